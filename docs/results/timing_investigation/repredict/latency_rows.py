"""Emulate again every (entry, size) whose table row has a launch bound by latency, and
print the tables' ratio beside the current model's, per GPU, without writing anything:
the rows a change to the critical paths can move.  From the repository root, no GPU:

    python docs/results/timing_investigation/repredict/latency_rows.py > rows.txt

(session 31 ran it for the L1 trip lookups; the movers were then written with
repredict.py --only)."""
import json
import time
from kernels_cuda import timing_check
from simt import timing

profs = {g: timing.load_profile(g) for g in ("h100", "h200")}
rows = {}
for f in ("timing_probes", "timing"):
    for g in ("h100", "h200"):
        d = json.load(open(f"docs/results/{f}_{g}.json"))
        for r in d["rows"]:
            if any(l["bound"].startswith("latency") for l in r["launches"]):
                rows.setdefault((r["id"], r["n"]), {})[g] = r
print(len(rows), "rows", flush=True)
for (eid, n), per in sorted(rows.items(), key=lambda kv: kv[0]):
    t0 = time.time()
    ls = timing_check.emulate(timing_check._entry(eid), n)
    out = []
    for g, r in per.items():
        ms = sum(timing.predict_result(x, profs[g]).ms for x in ls)
        out.append(f"{g} old {r['ratio']:.2f} new {ms / r['measured_ms']:.2f}")
    print(f"{eid:34} {n:>9} {'  '.join(out)}  ({time.time() - t0:.0f}s)", flush=True)
