"""Predictions for the probe-unseen4 kernels (kernels_cuda/probes5.cu) on the H100 and the
H200, written before the kernels were first run on a GPU:
python docs/results/timing_investigation/unseen4/predict.py > docs/results/timing_investigation/unseen4/predicted.json"""
import json
import sys
import time
from simt import timing
from kernels_cuda import timing_check, timing_probes

out = {}
profs = {g: timing.load_profile(g) for g in ("h100", "h200")}
for p in timing_probes.entries():
    if p.family != "probe-unseen4":
        continue
    t0 = time.perf_counter()
    launches = timing_check.emulate(p, p.n)
    s = time.perf_counter() - t0
    out[p.id] = {g: {"predicted_ms": round(sum(timing.predict_result(r, pr).ms for r in launches), 5),
                     "bound": timing.predict_result(launches[0], pr).bound}
                 for g, pr in profs.items()}
    out[p.id]["emulate_s"] = round(s, 1)
    print(p.id, out[p.id], file=sys.stderr, flush=True)
print(json.dumps(out, indent=1))
