"""Fit the re-touch miss curve to the sweep's Nsight Compute DRAM bytes (no GPU):
python docs/results/timing_investigation/retouch/fit.py
For each GPU, the share of the second pass's sectors read from DRAM again, (DRAM bytes
read - the rows' bytes) / the rows' bytes, against R = resident warps x row bytes (a
warp's own bytes between its two reads of a sector, times the warps the GPU holds: 64
an SM, or 16 with 100 KiB of shared memory a block); ``pass2_write`` adds the stores
made in between, 0 to R by where the sector sits in its row.  Fitted: a miss with
probability 1 / (1 + (C / d)^k) at d = R (+ beta x the stores), averaged over the row."""
import collections
import csv
import json
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

HERE = Path(__file__).resolve().parent


def load(g):
    rows = [json.loads(l) for l in open(HERE / f"retouch_{g}.jsonl")]
    sms, cases = rows[0]["sms"], rows[1:]
    lines = [l for l in open(HERE / f"ncu_retouch_{g}.csv") if l.startswith('"')]
    r = list(csv.reader(lines))
    hdr = r[0]
    iid, im, iv = hdr.index("ID"), hdr.index("Metric Name"), hdr.index("Metric Value")
    m = collections.defaultdict(dict)
    for row in r[1:]:
        m[int(row[iid])][row[im]] = float(row[iv].replace(",", ""))
    out = []
    for c, k in zip(cases, sorted(m)):
        data = 4 * c["rows"] * c["cols"]
        miss = (m[k]["dram__bytes_read.sum"] - data) / data
        warps = sms * (16 if c["smem"] else 64)
        if c["cols"] >= 256:     # (shorter rows: too few trips for the warps to keep pace)
            out.append((c["kernel"] == "pass2_write", warps * c["cols"] * 4 / 2**20, c["smem"] > 0,
                        min(max(miss, 0.0), 1.0), c["cols"], c["ms"]))
    return out


def pred(par, w, R):
    C, k, beta = par
    j = np.linspace(0, 1, 33)
    d = R * (1 + (beta * j if w else 0 * j))
    return float(np.mean(1 / (1 + (C / d) ** k)))


if __name__ == "__main__":
    for g in ("h100", "h200"):
        pts = load(g)
        full = [p for p in pts if not p[2]]
        f = lambda par: sum((pred(par, w, R) - m) ** 2 for w, R, _, m, *_ in full)
        best = min((minimize(f, x0, method="Nelder-Mead") for x0 in ([50, 6, 1], [60, 4, 2], [40, 3, 0.5])),
                   key=lambda r: r.fun)
        C, k, beta = best.x
        print(f"{g}: C = {C:.1f} MiB, k = {k:.2f}, beta = {beta:.2f} (squared error {best.fun:.3f}, "
              f"fitted at full occupancy)")
        print("  pass         cols  smem   R MiB    ms   miss  fit")
        for w, R, sm, m, cols, ms in pts:
            print(f"  {'write' if w else 'read ':5s} {cols:11d} {'yes' if sm else '   '} {R:7.1f} {ms:6.4f} "
                  f"{m:5.2f} {pred(best.x, w, R):5.2f}")
