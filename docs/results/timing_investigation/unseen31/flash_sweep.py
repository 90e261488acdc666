"""flash_attn_rows at L = 256 ... 2048 keys (16 heads, 128 threads a block, so every SM
sub-partition keeps one warp at most): the slope of the time over L is the cost of a key
to one warp. Run on the GPU machine from the repository root:
python3 docs/results/timing_investigation/unseen31/flash_sweep.py"""
import json

import cupy as cp
import numpy as np

from kernels_cuda.cupy_backend import CupyBackend

mod, _ = CupyBackend().module("probes33.cu")     # as timing_check compiles it (simt's macros)
k = mod.get_function("flash_attn_rows")
out = {}
for L in (256, 512, 1024, 2048):
    H = 16
    q, kk, v = (cp.random.standard_normal(H * L * 32, dtype=cp.float32) for _ in range(3))
    o = cp.zeros(H * L * 32, cp.float32)
    args = (q, kk, v, o, np.int32(L), np.float32(32 ** -0.5))
    k((L // 128, H), (128,), args)
    ts = []
    for _ in range(9):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        k((L // 128, H), (128,), args)
        e.record()
        e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    out[L] = float(np.median(ts))
    print(L, out[L], flush=True)
Ls = [x for x in sorted(out) if x <= 1024]       # 128 blocks at most: one a SM
slope = np.polyfit(Ls, [out[x] for x in Ls], 1)[0]
print(json.dumps({"ms": out, "ms_per_key": slope, "ns_per_key": slope * 1e6}))
