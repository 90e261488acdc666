"""What a global reduction (atomicAdd, result unused: RED) costs on a hot 1 KiB region by
how a warp's 32 lanes spread over it: the flush of a privatized histogram (a warp's lanes
on 32 consecutive words: one line, four sectors) against random words and other spreads.
Every thread of 1056 x 256 makes REPS reductions on 256 words; the pattern's offset moves
each trip.  Patterns (lane l, trip r; all words mod 256):
  lane_order   32 r + l                       (a line, 4 sectors a request)
  sector       8 r + l / 4                    (one sector, 4 lanes a word)
  one_word     r                              (every lane on one word)
  stride8      8 l + r                        (32 sectors, a word each)
  random       a random word a lane (hloop's bins: hist from a table)
Median of 15 runs timed as the catalog times (kernels_cuda.cupy_backend.time_gpu).
Run on the GPU:  python docs/results/timing_investigation/redcost/redcost_mb.py > redcost_GPU.jsonl
ncu: python .../redcost_mb.py --once"""
import json
import sys
from pathlib import Path

import cupy as cp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from kernels_cuda.cupy_backend import time_gpu  # noqa: E402

IDX = {
    "lane_order": "(32 * r + l) & 255",
    "sector": "(8 * r + (l >> 2)) & 255",
    "one_word": "r & 255",
    "stride8": "(8 * l + r) & 255",
    "random": "tab[((r & 63) << 5) | l]",
}
SRC = r'''
extern "C" __global__ void red_NAME(const int *tab_g, unsigned *bins, int reps) {
    __shared__ int tab[2048];
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) tab[i] = tab_g[i];
    __syncthreads();
    int l = threadIdx.x & 31;
    for (int r = 0; r < reps; r++) atomicAdd(&bins[IDX], 1u);
}
'''
code = "\n".join(SRC.replace("NAME", k).replace("IDX", v) for k, v in IDX.items())
if sys.argv[1:2] == ["--src"]:
    print(code)
    sys.exit(0)
mod = cp.RawModule(code=code)
tab = cp.asarray(np.random.default_rng(0).integers(0, 256, 2048, dtype=np.int32))
bins = cp.zeros(256, cp.uint32)
GRID, REPS = 1056, 64
if sys.argv[1:2] == ["--once"]:
    for k in IDX:
        mod.get_function("red_" + k)((GRID,), (256,), (tab, bins, np.int32(REPS)))
    cp.cuda.Device().synchronize()
    sys.exit(0)
print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "grid": GRID, "reps": REPS}), flush=True)
for k in IDX:
    f = mod.get_function("red_" + k)
    for reps in (REPS, 1):
        ms = time_gpu(lambda: f((GRID,), (256,), (tab, bins, np.int32(reps))), 3, 15)
        print(json.dumps({"pattern": k, "reps": reps, "ms": round(ms, 5)}), flush=True)
