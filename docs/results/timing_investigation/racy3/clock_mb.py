"""racy3's third call: a warp's store-to-store time under a saturated L2 slice, read from
clock64() before each store (inline PTX st.global, lane l to word l of one line, all the
SMs on the same line unless said).  The last 256 stores of each warp of blocks 0-3 are
timed; with the same loop alone (one warp on one SM) for comparison.  Prints, per case,
the median and the 10th / 90th percentiles of the cycles between a warp's stores, the
first 48 of block 0's warp 0, and the share of intervals above twice the median (stalls).
python docs/results/timing_investigation/racy3/clock_mb.py > clock_GPU.jsonl"""
import json
import sys

import numpy as np

SRC = r'''
extern "C" __global__ void st_clock(int *hist, long long *tout, int reps, int L) {
    __shared__ long long ts[8][256];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int r = 0; r < reps; ++r) {
        int *p = hist + (r % L) * 32 + lane;
        long long t = clock64();
        asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(lane + r) : "memory");
        if (r >= reps - 256 && lane == 0) ts[warp][r - (reps - 256)] = t;
    }
    __syncthreads();
    if (blockIdx.x < 4)
        for (int k = threadIdx.x; k < (blockDim.x >> 5) * 256; k += blockDim.x)
            tout[blockIdx.x * 2048 + k] = ts[k >> 8][k & 255];
}
'''

# name: (blocks, warps a block, lines)
CASES = [
    ("solo", 1, 1, 1),
    ("sm16_w1", 16, 1, 1),
    ("sm132_w1", 132, 1, 1),
    ("sm132_w4", 132, 4, 1),
    ("sm132_w8", 132, 8, 1),
    ("sm132_w8_L8", 132, 8, 8),
]
REPS = 4096


def run(case):
    import cupy as cp
    name, blocks, warps, L = case
    hist = cp.zeros(64 * 32, np.int32)
    tout = cp.zeros(4 * 2048, np.int64)
    f = cp.RawModule(code=SRC).get_function("st_clock")
    args = (hist, tout, np.int32(REPS), np.int32(L))
    times = []
    for _ in range(5):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        f((blocks,), (32 * warps,), args)
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b))
    t = cp.asnumpy(tout).reshape(4, 8, 256)[:min(4, blocks), :warps]
    d = np.diff(t, axis=2).ravel()
    med = float(np.median(d))
    return {"case": name, "blocks": blocks, "warps": warps, "lines": L, "kernel_ms": float(np.median(times)),
            "issue_ms": float(d.mean()) * REPS / 1.98e6, "median_cycles": med,
            "p10": float(np.percentile(d, 10)), "p90": float(np.percentile(d, 90)),
            "stall_share": float(np.mean(d > 2 * med)), "mean_cycles": float(d.mean()),
            "first48_b0w0": np.diff(t[0, 0])[:48].astype(int).tolist()}


if __name__ == "__main__":
    for c in CASES:
        if sys.argv[1:] and c[0] not in sys.argv[1:]:
            continue
        print(json.dumps(run(c)), flush=True)
