"""simt's predictions for micro.py's kernels (no GPU): python predict.py [MEASURED.jsonl]"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import simt  # noqa: E402
from simt import timing  # noqa: E402
from micro import SRC, N, W, PATTERNS, KERNELS, pattern  # noqa: E402

meas = {}
if len(sys.argv) > 1:
    for line in open(sys.argv[1]):
        d = json.loads(line)
        if "kernel" in d:
            meas[(d["kernel"], d["pattern"])] = d["ms"]
mod = simt.Module.from_source(SRC, "hotwords.cu")
prof = timing.load_profile("h200")
for pat in PATTERNS:
    n = N // 16 if pat == "warpK1" else N
    for k, t in KERNELS.items():
        dev = simt.Device()
        c, idx = dev.zeros(W, t), dev.to_device(pattern(pat, n))
        grid = (n + 255) // 256
        r = mod.get_function(k).launch(dev, simt.LaunchConfig.of(grid, 256), [c, idx, np.int32(n)],
                                       sanitize=False, sample_blocks=256)
        p = timing.predict_result(r, prof)
        m = meas.get((k, pat))
        print(f"{pat:10s} {k:6s} pred {p.ms:.4f} ms ({p.bound})" + (f" meas {m:.4f} ratio {p.ms / m:.2f}" if m else ""),
              flush=True)
