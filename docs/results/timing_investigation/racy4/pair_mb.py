"""racy4's third call: does a load that follows another warp's partial-sector store to the
sector miss L1, and for how long after the store?

One block on one SM (nothing else runs, no slice is busy).  Every `period` cycles warps
0..S-1 (S = 1, 2 or 4) store to one 128-byte line: from all 32 lanes (whole sectors) or
from lanes l with l mod 8 = w only (word w of each sector); `gap` cycles later warp S
loads the line
(all 32 words) and times the load with clock64() read before it and after an add that
waits for it.  ``self`` cases have warp 0 load after its own store instead.  Both warps
spin on clock64() (one SM-wide counter) to keep the schedule.  Prints, per case, the
median load latency in cycles and the share of loads over 150 cycles (an L1 hit takes
about 40).
python docs/results/timing_investigation/racy4/pair_mb.py > pair_GPU.jsonl"""
import json

import numpy as np

SRC = r'''
__device__ __forceinline__ long long now() {
    long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t;
}
extern "C" __global__ void pair(int *line, long long *lat, int reps, int period, int gap,
                                int full, int self, int nst) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int *p = line + lane;
    int v;
    asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");   // fill L1
    __syncthreads();
    long long t0 = now() + 2000;
    for (int r = 0; r < reps; ++r) {
        long long at = t0 + (long long)r * period;
        if (warp < nst) {
            while (now() < at) {}
            if (full || (lane & 7) == warp)
                asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(v + r) : "memory");
        }
        if (warp == (self ? 0 : nst)) {
            while (now() < at + gap) {}
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
GAPS = [0, 10, 20, 40, 80, 160, 320, 640, 1280, 2560]
CASES = [(f"{'full' if full else 'partial'}_{'self' if self else 'other'}_g{g}", full, self, g, 1)
         for self in (0, 1) for full in (0, 1) for g in GAPS]
# two or four warps store at the same moment (their stores merge, racy3's pair_d0), each
# its own word of every sector when partial; another warp loads
CASES += [(f"{'full' if full else 'partial'}_st{nst}_g{g}", full, 0, g, nst)
          for nst in (2, 4) for full in (0, 1) for g in (0, 20, 80, 320, 1280)]


def main():
    import cupy as cp
    f = cp.RawModule(code=SRC).get_function("pair")
    line = cp.zeros(256, np.int32)
    lat = cp.zeros(REPS, np.int64)
    for name, full, self, gap, nst in CASES:
        f((1,), (32 * (nst + 1),), (line, lat, np.int32(REPS), np.int32(PERIOD), np.int32(gap), np.int32(full),
                                  np.int32(self), np.int32(nst)))
        cp.cuda.Device().synchronize()
        x = cp.asnumpy(lat)[10:]
        print(json.dumps({"case": name, "full": full, "self": self, "gap": gap, "storers": nst,
                          "median_cycles": float(np.median(x)), "p90": float(np.percentile(x, 90)),
                          "over150": float((x > 150).mean())}), flush=True)


if __name__ == "__main__":
    main()
