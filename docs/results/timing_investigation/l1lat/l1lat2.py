"""python l1lat2.py [KERNEL]: nn1 and near_sum at one warp an SM and at 8 (grid 64), m = 1024,
median of 9 CUDA-event timings; with a kernel name, one launch of it for ncu."""
import json
import sys
import cupy as cp
import numpy as np
from l1lat import mod, timed

rng = np.random.default_rng(0)
m = 1024
pts = cp.asarray(rng.random(2 * m, dtype=np.float32))
for block in (32, 256):
    nq = 64 * block
    qs = cp.asarray(rng.random(2 * nq, dtype=np.float32))
    idx = cp.zeros(nq, cp.int32)
    f = cp.zeros(nq, cp.float32)
    for name, args in (("nn1", (pts, qs, idx, np.int32(m), np.int32(nq))),
                       ("near_sum", (pts, qs, f, np.int32(m), np.int32(nq), np.float32(0.01)))):
        if len(sys.argv) > 1:
            if name == sys.argv[1] and block == 256:
                mod.get_function(name)((64,), (block,), args)
                cp.cuda.Device().synchronize()
            continue
        ms = timed(mod.get_function(name), (64,), (block,), args)
        print(json.dumps({"kernel": name, "m": m, "grid": 64, "block": block, "ms": ms,
                          "gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}))
