"""What a warp-a-row second pass costs at low occupancy: layernorm_warp's two loops
apart, with and without __restrict__, 2048 rows of 2048 floats (256 blocks of 256, 2 an
SM: the launch fits L2 and is timed warm, as timing_check times it), and at 8192 rows.
Median of 20 launches after 3 warm-ups.  Run on the GPU:
python docs/results/timing_investigation/pass2/pass2_mb.py > pass2_GPU.jsonl"""
import json
import sys

import cupy as cp
import numpy as np

SRC = r'''
#define PTR(T) T *RESTRICT
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
extern "C" __global__ void K(const float *RESTRICT x, const float *RESTRICT gamma,
                             const float *RESTRICT beta, float *RESTRICT y, int rows, int cols, int mode) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float *xr = x + (size_t)row * cols;
    float mean = 0.0f, rstd = 1.0f;
    if (mode != 2) {                       // pass 1 (mode 0: both, 1: pass 1 alone)
        float s = 0.0f, ss = 0.0f;
        for (int c = lane; c < cols; c += 32) {
            float v = xr[c];
            s += v;
            ss += v * v;
        }
        s = warp_sum(s);
        ss = warp_sum(ss);
        mean = s / cols;
        rstd = rsqrtf(ss / cols - mean * mean + 1e-5f);
    }
    float *yr = y + (size_t)row * cols;
    if (mode == 1) {
        if (lane == 0) yr[0] = mean * rstd;
        return;
    }
    for (int c = lane; c < cols; c += 32)  // pass 2 (mode 0 and 2)
        yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}
'''
KERNELS = {r: cp.RawModule(code=SRC, options=(f"-DRESTRICT={'__restrict__' if r else ''}",)).get_function("K")
           for r in (0, 1)}


def timed(fn, reps=20):
    s, e = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(3):
        fn()
    out = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        out.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(out))


cols = 2048
for rows in (2048, 8192):
    n = rows * cols
    x = cp.random.random(n, dtype=cp.float32)
    g = cp.random.random(cols, dtype=cp.float32)
    b = cp.random.random(cols, dtype=cp.float32)
    y = cp.zeros(n, cp.float32)
    for restrict in (0, 1):
        for mode in (0, 1, 2):
            k = KERNELS[restrict]
            ms = timed(lambda: k((rows // 8,), (256,), (x, g, b, y, np.int32(rows), np.int32(cols), np.int32(mode))))
            print(json.dumps({"rows": rows, "cols": cols, "restrict": restrict,
                              "mode": ["both", "pass1", "pass2"][mode], "ms": round(ms, 5)}), flush=True)
