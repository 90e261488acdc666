"""A warp reads its row, then reads it again: how many of the second pass's sectors L2
still holds, against the bytes the GPU touches between the two reads.  Rows of 32 to
16,384 floats over (about) 256 MiB, a warp a row, 256 threads a block; the second pass either
only reads (``pass2_read``) or also writes the row out (``pass2_write``, a softmax's
shape); ``SMEM`` cases cap the blocks an SM holds with dynamic shared memory, so the
same distance comes from fewer, longer rows.  Median of 20 launches after 3 warm-ups.
Run on the GPU:
python docs/results/timing_investigation/retouch/retouch_mb.py > retouch_GPU.jsonl
ncu -k regex:pass2 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct --csv \
    python docs/results/timing_investigation/retouch/retouch_mb.py --once"""
import json
import sys

import cupy as cp
import numpy as np

SRC = r'''
__device__ float warp_sum(float s) {
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    return s;
}
extern "C" __global__ void pass2_read(const float *x, float *y, int rows, int cols) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (w >= rows) return;
    const float *r = x + (size_t)w * cols;
    float s = 0.f;
    for (int c = lane; c < cols; c += 32) s += r[c];
    s = warp_sum(s);
    float t = 0.f;
    for (int c = lane; c < cols; c += 32) t += r[c] * s;
    t = warp_sum(t);
    if (lane == 0) y[w] = t;
}
extern "C" __global__ void pass2_write(const float *x, float *y, int rows, int cols) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (w >= rows) return;
    const float *r = x + (size_t)w * cols;
    float *o = y + (size_t)w * cols;
    float s = 0.f;
    for (int c = lane; c < cols; c += 32) s += r[c];
    s = warp_sum(s);
    for (int c = lane; c < cols; c += 32) o[c] = r[c] * s;
}
'''
mod = cp.RawModule(code=SRC)
dev = cp.cuda.Device()
props = cp.cuda.runtime.getDeviceProperties(dev.id)
N = 1 << 26
# (kernel, cols, dynamic shared bytes a block: 0 or enough to hold 2 blocks an SM)
CASES = [(k, cols, 0) for k in ("pass2_read", "pass2_write")
         for cols in (32, 64, 128, 256, 512, 768, 1024, 1280, 1536, 1792, 2048, 2560, 3072,
                      4096, 8192, 16384)]
CASES += [(k, cols, 100 * 1024) for k in ("pass2_read", "pass2_write") for cols in (1024, 4096, 16384)]


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


once = sys.argv[1:2] == ["--once"]
if not once:
    print(json.dumps({"gpu": props["name"].decode(), "sms": props["multiProcessorCount"],
                      "l2_bytes": props["l2CacheSize"]}), flush=True)
x = cp.random.random(N, dtype=cp.float32)
y = cp.zeros(N, cp.float32)
for name, cols, smem in CASES:
    k = mod.get_function(name)
    if smem:
        k.max_dynamic_shared_size_bytes = smem
    rows = N // cols
    grid = (rows * 32 + 255) // 256
    call = lambda: k((grid,), (256,), (x, y, np.int32(rows), np.int32(cols)), shared_mem=smem)
    if once:
        call()
        dev.synchronize()
        continue
    ms = timed(call)
    print(json.dumps({"kernel": name, "cols": cols, "rows": rows, "smem": smem,
                      "ms": round(ms, 5)}), flush=True)
