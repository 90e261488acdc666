"""simt on cmiss.py's kernels against the H200 timings (no GPU), from the repository root:
python docs/results/timing_investigation/cmiss/predict.py > docs/results/timing_investigation/cmiss/predicted_h200.txt
(the full 4096 trips, 8 blocks of each grid emulated)"""
import json
import sys
from pathlib import Path

import numpy as np

H = Path(__file__).resolve().parent
sys.path.insert(0, str(H))
import simt  # noqa: E402
from simt import timing  # noqa: E402
import cmiss  # noqa: E402

prof = timing.load_profile("h200")
meas = {}
for f in ("cmiss_h200.jsonl", "cmiss_warps_h200.jsonl"):
    for d in map(json.loads, open(H / f)):
        if "layout" in d:
            meas[(d["layout"], d["k"], d["words"], d["warps_per_sm"])] = d["ms"]
dev = simt.Device()
for layout in ("sep", "rec"):
    for k in cmiss.KS:
        f = simt.Module.from_source(cmiss.src(k, layout), "c.cu").get_function("walk")
        for words in cmiss.WORDS:
            for grid, block, w in ((132 * 8, 256, 64), (132 * 2, 256, 16), (132, 256, 8)):
                key = (layout, k, words, w)
                if key not in meas:
                    continue
                out = dev.zeros(grid * block, np.uint32)
                r = f.launch(dev, simt.LaunchConfig.of(grid, block), [out, np.int32(cmiss.ITERS), np.int32(words - 1)],
                             sanitize=False, sample_blocks=8)
                p = timing.predict_result(r, prof)
                print(f"{layout} k={k} words={words:5d} warps={w:2d} pred {p.ms:.4f} meas {meas[key]:.4f} "
                      f"r {p.ms / meas[key]:.2f} {p.bound} miss {r.metrics.get('simt__const_miss_cycles.sum')}", flush=True)
