"""racy4's fourth call: when do partial-sector stores from several warps leave the sector
invalid in L1?  pair_mb.py found that a load long after (1280 cycles) four warps' partial
stores to a line misses about 30% of the time, where one or two warps' never do.

One block on one SM.  Every 6000 cycles S warps store to one 128-byte line, warp w at
``at + w x stagger``; partial stores write word (w mod 8) of each sector (lanes l with
l mod 8 = w mod 8), or word 0 for every warp (``same``); ``seq`` has warp 0 alone make the
S stores back to back.  Warp S loads the line ``gap`` cycles after the last store and
times the load (clock64 before it and after an add that waits for it).  Share of loads
over 150 cycles (an L1 hit takes 33) and the median, over 190 periods.
python docs/results/timing_investigation/racy4/inval_mb.py > inval_GPU.jsonl"""
import json

import numpy as np

SRC = r'''
__device__ __forceinline__ long long now() {
    long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t;
}
extern "C" __global__ void inval(int *line, long long *lat, int reps, int period, int gap,
                                 int nst, int stagger, int same, int seq) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int *p = line + lane;
    int v;
    asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    __syncthreads();
    long long t0 = now() + 2000;
    long long last = (long long)(seq ? 0 : nst - 1) * stagger;
    for (int r = 0; r < reps; ++r) {
        long long at = t0 + (long long)r * period;
        if (seq) {
            if (warp == 0) {
                while (now() < at) {}
                for (int s = 0; s < nst; ++s)
                    if ((lane & 7) == (same ? 0 : (s & 7)))
                        asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(v + r) : "memory");
            }
        } else if (warp < nst) {
            while (now() < at + (long long)warp * stagger) {}
            if ((lane & 7) == (same ? 0 : (warp & 7)))
                asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(v + r) : "memory");
        }
        if (warp == nst) {
            while (now() < at + last + gap) {}
            long long a = now();
            asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
            asm volatile("add.u32 %0, %0, 1;" : "+r"(v));
            long long b = now();
            if (lane == 0) lat[r] = b - a;
        }
    }
    if (v == 0x7fffffff) line[64] = v;
}
'''

REPS, PERIOD = 200, 6000
CASES = []
for nst in (2, 3, 4, 6, 8):
    for stagger in (0, 8, 32, 128, 512):
        for gap in (0, 1280):
            CASES.append((f"st{nst}_s{stagger}_g{gap}", nst, stagger, gap, 0, 0))
for nst in (4, 8):
    CASES.append((f"st{nst}_same_g1280", nst, 0, 1280, 1, 0))
    CASES.append((f"seq{nst}_g1280", nst, 0, 1280, 0, 1))
    CASES.append((f"seq{nst}_same_g1280", nst, 0, 1280, 1, 1))


def main():
    import cupy as cp
    f = cp.RawModule(code=SRC).get_function("inval")
    line = cp.zeros(256, np.int32)
    lat = cp.zeros(REPS, np.int64)
    for name, nst, stagger, gap, same, seq in CASES:
        f((1,), (32 * (nst + 1),), (line, lat, np.int32(REPS), np.int32(PERIOD), np.int32(gap), np.int32(nst),
                                  np.int32(stagger), np.int32(same), np.int32(seq)))
        cp.cuda.Device().synchronize()
        x = cp.asnumpy(lat)[10:]
        print(json.dumps({"case": name, "storers": nst, "stagger": stagger, "gap": gap, "same": same, "seq": seq,
                          "median_cycles": float(np.median(x)), "over150": float((x > 150).mean())}), flush=True)


if __name__ == "__main__":
    main()
