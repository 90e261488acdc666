"""racy3's second call: how the merging L1 does under a saturated L2 slice scales with the
warps an SM has on the line, the SMs sharing it, and the lines the stores spread over.
Each warp stores `reps` times (lane l to word l of a 128-byte line, 4 sectors); warp w's
store r goes to line (r + w x woff) mod L of an L-line region; the SM's warps together make
20,000 stores.  Inline PTX keeps every store (and, for ``*_rmw``, the load before it).

- ``w1``..``w32``: 1-32 warps an SM (one block of each of 132 SMs), one line;
- ``sm16``..``sm66``: one warp on each of 16-66 SMs, one line;
- ``w1_L8``: one warp an SM cycling over 8 lines;
- ``w8_L8_same``: 8 warps an SM, all on the same one of 8 lines at each step;
- ``w8_L8_own``: 8 warps an SM, each on its own line of the 8 at each step.

Median of 7 timings (CUDA events); with case names, each once (for Nsight Compute).
python docs/results/timing_investigation/racy3/merge2_mb.py > merge2_GPU.jsonl"""
import json
import sys

import numpy as np

SRC = r'''
extern "C" __global__ void st_rep2(int *hist, int reps, int L, int woff, int rmw) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int v = lane;
    for (int r = 0; r < reps; ++r) {
        int *p = hist + ((r + warp * woff) % L) * 32 + lane;
        if (rmw) asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
        v += 1;
        asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
    }
}
'''

TOTAL = 20000
# name: (blocks, warps a block, lines, woff, rmw)
CASES = [
    ("w1", 132, 1, 1, 0, 0),
    ("w2", 132, 2, 1, 0, 0),
    ("w4", 132, 4, 1, 0, 0),
    ("w8", 132, 8, 1, 0, 0),
    ("w32", 132, 32, 1, 0, 0),
    ("sm16", 16, 1, 1, 0, 0),
    ("sm33", 33, 1, 1, 0, 0),
    ("sm66", 66, 1, 1, 0, 0),
    ("w1_L8", 132, 1, 8, 0, 0),
    ("w8_L8_same", 132, 8, 8, 0, 0),
    ("w8_L8_own", 132, 8, 8, 1, 0),
    ("w8_L8_own_rmw", 132, 8, 8, 1, 1),
    ("w8_rmw", 132, 8, 1, 0, 1),
]


def run(case, reps=7):
    import cupy as cp
    name, blocks, warps, L, woff, rmw = case
    n = TOTAL // warps
    hist = cp.zeros(64 * 32, np.int32)
    f = cp.RawModule(code=SRC).get_function("st_rep2")
    args = (hist, np.int32(n), np.int32(L), np.int32(woff), np.int32(rmw))
    f((blocks,), (32 * warps,), args)
    times = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        f((blocks,), (32 * warps,), args)
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b))
    ms = float(np.median(times))
    return {"case": name, "blocks": blocks, "warps": warps, "lines": L, "woff": woff, "rmw": rmw, "reps": n,
            "ms": ms, "ns_per_sm_store": ms * 1e6 / (n * warps)}


if __name__ == "__main__":
    want = sys.argv[1:]
    for c in CASES:
        if want and c[0] not in want:
            continue
        print(json.dumps(run(c, 1 if want else 7)), flush=True)
