"""simt's predictions for redgroups_mb.py's cases (no GPU):
python docs/results/timing_investigation/redgroups/predict.py GPU > predicted_GPU.txt"""
import json
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import redgroups_mb as mb  # noqa: E402  (cupy is imported only on the GPU machine)
import simt  # noqa: E402
from simt import timing  # noqa: E402

gpu = sys.argv[1] if len(sys.argv) > 1 else "h200"
path = HERE / f"redgroups_{gpu}.jsonl"
meas = {}
if path.exists():
    for r in map(json.loads, open(path)):
        if "g" in r:
            meas[(r["g"], r["region"], r["op"])] = r["ms"]
prof = timing.load_profile(gpu)
mod = simt.Module.from_source(mb.SRC, "redgroups.cu")
print(f"# {gpu}: G, region, op, serialized steps, predicted ms, measured ms, ratio, bound")
for g, r, op in mb.CASES:
    dev = simt.Device()
    gs, mask, mn = mb.args(g, r, op)
    res = mod.get_function("red_groups").launch(
        dev, simt.LaunchConfig.of(mb.N // 256, 256),
        [dev.zeros((4 << 20) // 4, np.int32), np.int32(gs), np.int32(mask), np.int32(mn), np.int32(mb.N)],
        sanitize=False, sample_blocks=512)
    p = timing.predict_result(res, prof)
    got = meas.get((g, r, op))
    print(f"{g:3d} {r:8d} {op:4s} {res.metrics['simt__atomic_global_serialized_steps.sum']:10d} {p.ms:8.4f} "
          + (f"{got:8.4f} {p.ms / got:6.2f}" if got else "       -      -") + f"  {p.bound}", flush=True)
