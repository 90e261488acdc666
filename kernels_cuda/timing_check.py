"""Predicted versus measured time for every catalog launch.

Two halves, so the GPU machine only measures:

    python -m kernels_cuda.timing_check measure --out measured_h200.json     # on the GPU
    python -m kernels_cuda.timing_check predict measured_h200.json --gpu h200 --md out.md

``measure`` runs every entry's host driver on ``CupyBackend(timed=True)`` at its default
size and at a large size (2^24 elements unless the entry is fixed-size), recording each
launch's median milliseconds.  ``predict`` runs the same drivers with the same seeded
inputs in the emulator (grids block-sampled) and puts ``simt.timing`` predictions beside
the measurements: per entry the ratio predicted/measured, and per family whether the
predicted order of variants is the measured order wherever they differ by more than 25%.

Each (entry, size) is measured from an empty CuPy memory pool, as ``simt run ID --real``
in a fresh process sees it.  Without that, an entry run after one with 2^24-element
buffers gets its arrays carved from a block the pool kept, and a latency-bound launch's
time moved with it: spmv/csr-vector's 3-block launch took 13.7 us in a fresh process and
19-20.5 us after a 1 GiB buffer was allocated and freed into the pool, on the same H100
(docs/results/timing_investigation/csrlat/).
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

LARGE = 1 << 24
SAMPLE_THREADS = 1 << 17


def sizes_for(entry) -> list[int]:
    """Default size, and a size whose largest input has about 2^24 elements."""
    inp = entry.inputs(seed=0)
    elems = max(int(np.asarray(v).size) for v in inp.values())
    big = int(entry.default_n * LARGE / max(1, elems))
    return [entry.default_n] + ([big] if big > entry.default_n else [])


def _entries(probes: bool):
    if probes:
        from kernels_cuda import timing_probes
        return timing_probes.entries()
    from kernels_cuda import catalog
    return catalog.entries()


def _entry(eid: str):
    from kernels_cuda import catalog, timing_probes
    if eid.startswith("probe/"):
        return timing_probes.get(eid)
    return catalog.get(eid)


def _sizes(e) -> list[int]:
    return list(e.sizes) if hasattr(e, "sizes") else sizes_for(e)


def _block_threads(block) -> int:
    return int(np.prod(block)) if isinstance(block, (tuple, list)) else int(block)


def measure(ids=None, repeat: int = 10, sizes=None, probes: bool = False) -> dict:
    from kernels_cuda import cupy_backend as cb
    info = cb.device_info()
    res = {"device": info, "entries": {}}
    for e in _entries(probes):
        if ids and e.id not in ids and e.family not in ids:
            continue
        for n in (sizes or _sizes(e)):
            t0 = time.perf_counter()
            inp = be = None                  # the last entry's arrays go back to the pool ...
            cb.release_pools()               # ... and the pool to the driver: a fresh process
            try:
                inp = e.inputs(n=n, seed=0)
                be = cb.CupyBackend(timed=True, warmup=2, repeat=repeat)
                e.run(be, inp)
                rec = {"launches": [t.as_dict() for t in be.launches], "total_ms": be.total_ms()}
            except Exception as ex:          # a size the entry cannot take: say so
                rec = {"error": f"{type(ex).__name__}: {ex}"[:300]}
            res["entries"].setdefault(e.id, {})[str(n)] = rec
            print(f"{e.id:30s} n={n:<10d} {rec.get('total_ms')} ms  ({time.perf_counter() - t0:.1f}s)",
                  file=sys.stderr, flush=True)
    return res


def emulate(entry, n: int):
    """Per-launch LaunchResults of the entry's driver in the emulator (sampled grids)."""
    from kernels_cuda.backend import EmulatorBackend
    inp = entry.inputs(n=n, seed=0)
    big = n > (1 << 18) or hasattr(entry, "sizes")
    sample = max(1, SAMPLE_THREADS // max(32, _block_threads(entry.block))) if big else None
    be = EmulatorBackend(seed=0, policy="lockstep", sanitize=False, sample_blocks=sample)
    entry.run(be, inp)
    return be.launches


def predict_table(measured: dict, gpu: str, only=None, reuse: dict | None = None) -> dict:
    """Emulate every measured (entry, size) and put the prediction beside the measurement;
    with ``only`` (ids or families) and ``reuse`` (a table this function wrote), the other
    rows are ``reuse``'s, unchanged (for a change that cannot move them)."""
    from simt import timing
    prof = timing.load_profile(gpu)
    rows = []
    kept = {(r["id"], r["n"]): r for r in (reuse or {}).get("rows", [])}
    for eid, by_n in measured["entries"].items():
        try:
            e = _entry(eid)
        except Exception:
            continue
        for n, rec in by_n.items():
            if "error" in rec:
                continue
            if only and eid not in only and e.family not in only and (eid, int(n)) in kept:
                rows.append(kept[(eid, int(n))])
                continue
            t0 = time.perf_counter()
            try:
                launches = emulate(e, int(n))
            except Exception as ex:
                rows.append({"id": eid, "n": int(n), "error": f"{type(ex).__name__}: {ex}"[:200]})
                continue
            preds = [timing.predict_result(r, prof) for r in launches]
            meas = [lt["ms"] for lt in rec["launches"]]
            pred_ms = sum(p.ms for p in preds)
            meas_ms = rec["total_ms"]
            rows.append({
                "id": eid, "family": e.family, "n": int(n), "measured_ms": meas_ms,
                "predicted_ms": pred_ms, "ratio": pred_ms / meas_ms if meas_ms else None,
                "launches": [{"kernel": r.kernel, "measured_ms": m, "predicted_ms": p.ms,
                              "grid_blocks": r.config.grid.size, "threads_per_block": r.config.block.size,
                              "shared_bytes": r.shared_bytes,
                              "bound": p.bound, "components_us": p.components_us,
                              "sampled_blocks": r.sampled_blocks, "total_blocks": r.total_blocks,
                              "metrics": r.metrics}
                             for r, m, p in zip(launches, meas, preds)],
                "emulate_s": round(time.perf_counter() - t0, 2)})
            print(f"{eid:30s} n={n:>9s} meas {meas_ms:.4f} pred {pred_ms:.4f} ratio {pred_ms / meas_ms:.2f}",
                  file=sys.stderr, flush=True)
    return {"gpu": gpu, "device": measured.get("device"), "rows": rows, "order": order_check(rows)}


def order_check(rows) -> list[dict]:
    """Within each family and size: pairs of variants whose measured times differ by more
    than 25% must be predicted in the same order."""
    out = []
    groups: dict = {}
    for r in rows:
        if "error" not in r:
            groups.setdefault((r["family"], r["n"]), []).append(r)
    for (fam, n), rs in sorted(groups.items()):
        for i in range(len(rs)):
            for j in range(i + 1, len(rs)):
                a, b = rs[i], rs[j]
                lo, hi = sorted((a["measured_ms"], b["measured_ms"]))
                if hi <= 1.25 * lo:
                    continue
                ok = (a["measured_ms"] < b["measured_ms"]) == (a["predicted_ms"] < b["predicted_ms"])
                out.append({"family": fam, "n": n, "a": a["id"], "b": b["id"], "ok": ok})
    return out


def markdown(tab: dict, command: str = "") -> str:
    rows = [r for r in tab["rows"] if "error" not in r]
    within = sum(1 for r in rows if 1 / 1.5 <= r["ratio"] <= 1.5)
    order = tab["order"]
    lines = [f"# Predicted vs measured: {tab['gpu']} profile on {tab['device'].get('name') if tab['device'] else '?'}",
             "", f"Command: `{command}`" if command else "", "",
             f"{within} of {len(rows)} entry-sizes within 1.5x; "
             f"{sum(o['ok'] for o in order)} of {len(order)} family orderings (pairs > 25% apart) right.", "",
             "| id | n | measured ms | predicted ms | ratio | bound (first launch) |",
             "|---|---:|---:|---:|---:|---|"]
    for r in sorted(rows, key=lambda r: (r["id"], r["n"])):
        flag = "" if 1 / 1.5 <= r["ratio"] <= 1.5 else " **off**"
        lines.append(f"| {r['id']} | {r['n']} | {r['measured_ms']:.4f} | {r['predicted_ms']:.4f} | "
                     f"{r['ratio']:.2f}{flag} | {r['launches'][0]['bound']} |")
    bad = [o for o in order if not o["ok"]]
    if bad:
        lines += ["", "Orderings predicted wrong:", ""]
        lines += [f"- {o['family']} n={o['n']}: {o['a']} vs {o['b']}" for o in bad]
    errs = [r for r in tab["rows"] if "error" in r]
    if errs:
        lines += ["", "Not predicted:", ""] + [f"- {r['id']} n={r['n']}: {r['error']}" for r in errs]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kernels_cuda.timing_check")
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("ids", nargs="*")
    m.add_argument("--out", required=True)
    m.add_argument("--repeat", type=int, default=10)
    m.add_argument("--probes", action="store_true",
                   help="time the kernels outside the catalog (kernels_cuda/timing_probes.py)")
    p = sub.add_parser("predict")
    p.add_argument("measured")
    p.add_argument("--gpu", required=True)
    p.add_argument("--md")
    p.add_argument("--json")
    p.add_argument("--command", default="")
    p.add_argument("--only", nargs="*", help="ids or families to emulate; the other rows come from --reuse")
    p.add_argument("--reuse", help="a table (--json) whose rows stand for those not in --only")
    g = sub.add_parser("merge", help="add a run's measurements (measure --out) to a measured file")
    g.add_argument("run")
    g.add_argument("into")
    g.add_argument("--note", required=True, help="how the run was made (kept under 'remeasured')")
    a = ap.parse_args(argv)
    if a.cmd == "measure":
        res = measure(a.ids, a.repeat, probes=a.probes)
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1, default=float)
        return 0
    if a.cmd == "merge":
        run, into = json.load(open(a.run)), json.load(open(a.into))
        for eid, by_n in run["entries"].items():
            into["entries"].setdefault(eid, {}).update(by_n)
            into.setdefault("remeasured", {})[eid] = a.note
        with open(a.into, "w") as f:
            json.dump(into, f, indent=1, default=float)
        return 0
    measured = json.load(open(a.measured))
    tab = predict_table(measured, a.gpu, a.only, json.load(open(a.reuse)) if a.reuse else None)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(tab, f, indent=1, default=float)
    text = markdown(tab, a.command)
    if a.md:
        open(a.md, "w").write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
