"""Which instruction of hhist's bin computation makes its loop slow (hloop_mb.py: the
loop with no shared operation at all, hl_sum, takes 28.4 us on the H100 where hsum's
loop, the same loads summed as floats, takes 17.3).  The same grid-stride loop over 2^24
halves with the bin computed four ways, summed in a register:
  h_f2i  __half2int_rz(__hmul(x, 256))  (HMUL2, F2I.F16.TRUNC: hhist's)
  f_f2i  __float2int_rz(__half2float(x) * 256.f)  (HADD2.F32, FMUL, F2I.TRUNC)
  bits   (__half_as_ushort(x) >> 6) & 255  (integer only)
  fsum   acc += __half2float(x)  (hsum's loop, a float sum)
and, with no memory at all, 64 warps an SM converting registers in a loop of 4
independent chains (throughput of each conversion): alu_h_f2i, alu_f_f2i, alu_i2f.
Grids of 1056 and 132 blocks of 256 threads; warm (back to back) and flushed (256 MiB
written before each run); median of 15 runs timed as the catalog times them
(kernels_cuda.cupy_backend.time_gpu: CUDA events, a spin kernel ahead of each run).
Run on the GPU:  python docs/results/timing_investigation/hloop/hconv_mb.py > hconv_GPU.jsonl
ncu: python .../hconv_mb.py --once"""
import json
import sys

from pathlib import Path

import cupy as cp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from kernels_cuda.cupy_backend import time_gpu  # noqa: E402  (the catalog's timer: a spin kernel ahead of each run)

BIN = {
    "h_f2i": "unsigned v = (unsigned)min(max(__half2int_rz(__hmul(x[i], __float2half(256.0f))), 0), 255);",
    "f_f2i": "unsigned v = (unsigned)min(max(__float2int_rz(__half2float(x[i]) * 256.0f), 0), 255);",
    "bits": "unsigned v = (__half_as_ushort(x[i]) >> 6) & 255u;",
    "fsum": "float v = __half2float(x[i]);",
}
LOOP = r'''
extern "C" __global__ void hc_MODE(const __half *x, float *out, int n) {
    ACC acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        BIN
        acc += v;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)acc;
}
'''
ALU = r'''
extern "C" __global__ void alu_h_f2i(float *out, int reps) {
    __half h0 = __int2half_rn(threadIdx.x & 7), h1 = __int2half_rn(threadIdx.x & 3), h2 = h0, h3 = h1;
    int a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int r = 0; r < reps; r++) {
        a0 += __half2int_rz(h0); a1 += __half2int_rz(h1); a2 += __half2int_rz(h2); a3 += __half2int_rz(h3);
        h0 = __int2half_rz(a0 & 1023); h1 = __int2half_rz(a1 & 1023); h2 = __int2half_rz(a2 & 1023); h3 = __int2half_rz(a3 & 1023);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(a0 + a1 + a2 + a3);
}
extern "C" __global__ void alu_f_f2i(float *out, int reps) {
    float f0 = threadIdx.x, f1 = f0 + 1, f2 = f0 + 2, f3 = f0 + 3;
    int a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int r = 0; r < reps; r++) {
        a0 += __float2int_rz(f0); a1 += __float2int_rz(f1); a2 += __float2int_rz(f2); a3 += __float2int_rz(f3);
        f0 += 1.5f; f1 += 1.5f; f2 += 1.5f; f3 += 1.5f;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(a0 + a1 + a2 + a3);
}
extern "C" __global__ void alu_i2f(float *out, int reps) {
    int i0 = threadIdx.x, i1 = i0 + 1, i2 = i0 + 2, i3 = i0 + 3;
    float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int r = 0; r < reps; r++) {
        a0 += __int2float_rn(i0); a1 += __int2float_rn(i1); a2 += __int2float_rn(i2); a3 += __int2float_rn(i3);
        i0 += 3; i1 += 3; i2 += 3; i3 += 3;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3;
}
'''
code = "#include <cuda_fp16.h>\n" + "\n".join(
    LOOP.replace("MODE", m).replace("BIN", b).replace("ACC", "float" if m == "fsum" else "unsigned")
    for m, b in BIN.items()) + ALU
if sys.argv[1:2] == ["--src"]:
    print(code)
    sys.exit(0)
mod = cp.RawModule(code=code)
props = cp.cuda.runtime.getDeviceProperties(0)
sms = props["multiProcessorCount"]
N = 1 << 24
X = cp.asarray(np.random.default_rng(0).random(N, dtype=np.float32).astype(np.float16))
out = cp.zeros(1056 * 256 * 8, cp.float32)
flush = cp.zeros(256 << 20 >> 2, cp.float32)
REPS = 4096


def timed(fn, flushed, reps=15):
    return time_gpu(fn, 3, reps, before=(lambda: flush.fill(1.0)) if flushed else None)


if sys.argv[1:2] == ["--once"]:
    for m in BIN:
        mod.get_function("hc_" + m)((1056,), (256,), (X, out, np.int32(N)))
    for a in ("alu_h_f2i", "alu_f_f2i", "alu_i2f"):
        mod.get_function(a)((sms * 8,), (256,), (out, np.int32(REPS)))
    cp.cuda.Device().synchronize()
    sys.exit(0)
print(json.dumps({"gpu": props["name"].decode(), "sms": sms}), flush=True)
for grid in (1056, sms):
    for m in BIN:
        k = mod.get_function("hc_" + m)
        for fl in (False, True):
            ms = timed(lambda: k((grid,), (256,), (X, out, np.int32(N))), fl)
            print(json.dumps({"mode": m, "grid": grid, "flushed": fl, "ms": round(ms, 5),
                              "trips": -(-N // (grid * 256))}), flush=True)
for a in ("alu_h_f2i", "alu_f_f2i", "alu_i2f"):
    k = mod.get_function(a)
    ms = timed(lambda: k((sms * 8,), (256,), (out, np.int32(REPS))), False)
    per_sm = 8 * 8 * REPS * 4           # warp conversions an SM makes
    print(json.dumps({"mode": a, "ms": round(ms, 5), "warp_convs_per_sm": per_sm,
                      "sm_cycles_per_warp_conv": round(ms * 1e-3 * props["clockRate"] * 1e3 / per_sm, 3)}), flush=True)
