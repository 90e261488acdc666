"""racy3's fourth call: the window in which an SM's stores to a line merge.  On each of
132 SMs two warps store to the same line (lane l to word l, inline PTX) once every PERIOD
clock cycles, warp 1 GAP cycles after warp 0 (both spin on clock64() until their turn),
1,000 times each; every SM on the same line keeps its slice saturated.  With the period
long enough that a warp's own stores do not merge, the merge (L1's store sectors over the
sectors it sends toward L2, from Nsight) runs from 2 (the pair always merges) to 1 (never)
as the gap grows.  ``*_sm16``: 16 SMs, the slice not saturated.
python docs/results/timing_investigation/racy3/gap_mb.py > gap_GPU.jsonl; with case names,
each once (for Nsight Compute)."""
import json
import sys

import numpy as np

SRC = r'''
extern "C" __global__ void st_gap(int *hist, int reps, long long period, long long gap) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int *p = hist + lane;
    __shared__ long long t0;
    if (threadIdx.x == 0) t0 = clock64() + 2000;
    __syncthreads();
    long long start = t0 + (warp ? gap : 0);
    for (int r = 0; r < reps; ++r) {
        long long due = start + r * period;
        while (clock64() < due) { }
        asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(lane + r) : "memory");
    }
}
'''

REPS, PERIOD = 1000, 800
# name: (blocks, gap in cycles)
CASES = [(f"gap{g}", 132, g) for g in (0, 25, 50, 100, 200, 400)] + [("gap0_sm16", 16, 0), ("gap100_sm16", 16, 100)]


def run(case, reps=5):
    import cupy as cp
    name, blocks, gap = case
    hist = cp.zeros(32, np.int32)
    f = cp.RawModule(code=SRC).get_function("st_gap")
    args = (hist, np.int32(REPS), np.int64(PERIOD), np.int64(gap))
    times = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        f((blocks,), (64,), args)
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b))
    return {"case": name, "blocks": blocks, "gap_cycles": gap, "period_cycles": PERIOD, "reps": REPS,
            "ms": float(np.median(times))}


if __name__ == "__main__":
    want = sys.argv[1:]
    for c in CASES:
        if want and c[0] not in want:
            continue
        print(json.dumps(run(c, 1 if want else 5)), flush=True)
