"""What a shared-memory operation costs inside a grid-stride loop of global loads
(probe/hhist: LDG.U16, HMUL2, F2I, ATOMS.POPC.INC on 256 bins a trip, not unrolled).
One kernel per MODE, the same loop and bin computation, only the shared operation
differs: sum (none, the bins summed in a register), atom (hhist's atomicAdd on the bin),
atom_lane (atomicAdd on (lane + 32 bin) & 255: every lane its own bank), atom_ret (the
atomic's old value summed), sts (a plain store of the bin), lds (the bin's word summed).
Grids of 1056 x 256 (8 blocks an SM, hhist's) and 132 x 256 (1 an SM: a warp's trip
time); 2^24 halves (32 MiB) and 2^21 (4 MiB, L2-resident); timed warm (back to back)
and flushed (a 256 MiB buffer written before each run).  Median of 15 runs timed
as the catalog times them (kernels_cuda.cupy_backend.time_gpu: a spin kernel ahead of each).
Run on the GPU:  python docs/results/timing_investigation/hloop/hloop_mb.py > hloop_GPU.jsonl
ncu: python .../hloop_mb.py --once (one launch of each mode, 2^24, 1056 blocks)"""
import json
import sys

from pathlib import Path

import cupy as cp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from kernels_cuda.cupy_backend import time_gpu  # noqa: E402  (the catalog's timer: a spin kernel ahead of each run)

BODY = {
    "sum": "acc += (unsigned)b;",
    "atom": "atomicAdd(&local[b], 1u);",
    "atom_lane": "atomicAdd(&local[(threadIdx.x + 32 * b) & 255], 1u);",
    "atom_ret": "acc += atomicAdd(&local[b], 1u);",
    "sts": "local[b] = (unsigned)i;",
    "lds": "acc += local[b];",
}
SRC = r'''
#include <cuda_fp16.h>
extern "C" __global__ void hl_MODE(const __half *x, unsigned *bins, int n) {
    __shared__ unsigned local[256];
    local[threadIdx.x] = threadIdx.x;
    __syncthreads();
    unsigned acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int b = __half2int_rz(__hmul(x[i], __float2half(256.0f)));
        b = min(max(b, 0), 255);
        BODY
    }
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x] + acc);
}
'''
code = "\n".join(SRC.replace("MODE", m).replace("BODY", b) for m, b in BODY.items())
if sys.argv[1:2] == ["--src"]:
    print(code)
    sys.exit(0)
mod = cp.RawModule(code=code, options=("-std=c++17",))
props = cp.cuda.runtime.getDeviceProperties(0)
sms = props["multiProcessorCount"]
rng = np.random.default_rng(0)
X = cp.asarray(rng.random(1 << 24, dtype=np.float32).astype(np.float16))
bins = cp.zeros(256, cp.uint32)
flush = cp.zeros(256 << 20 >> 2, cp.float32)


def timed(fn, flushed, reps=15):
    return time_gpu(fn, 3, reps, before=(lambda: flush.fill(1.0)) if flushed else None)


if sys.argv[1:2] == ["--once"]:
    for m in BODY:
        mod.get_function("hl_" + m)((1056,), (256,), (X, bins, np.int32(1 << 24)))
    cp.cuda.Device().synchronize()
    sys.exit(0)
print(json.dumps({"gpu": props["name"].decode(), "sms": sms}), flush=True)
for n in (1 << 24, 1 << 21):
    for grid in (1056, sms):
        for m in BODY:
            k = mod.get_function("hl_" + m)
            for fl in (False, True):
                ms = timed(lambda: k((grid,), (256,), (X, bins, np.int32(n))), fl)
                trips = -(-n // (grid * 256))
                print(json.dumps({"mode": m, "n": n, "grid": grid, "flushed": fl, "ms": round(ms, 5),
                                  "trips": trips}), flush=True)
