"""warpslots' second call: which of a block's warps spin decides how many blocks an SM
overlaps?  Same spin as warpslots_mb.py (40,000 cycles, 132 x 64 blocks), but the
spinning warps are a set (a bit mask of warp indices in the block), to tell an SM-wide
pool of 64 warp slots from four schedulers' pools of 16 (warp w on scheduler w mod 4).
python docs/results/timing_investigation/warpslots/sets_mb.py > sets_GPU.jsonl"""
import json

import cupy as cp
import numpy as np

from warpslots_mb import timed

SRC = r'''
__device__ __forceinline__ long long now() {
    long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t;
}
extern "C" __global__ void spinset(long long cycles, unsigned mask, int *out) {
    if (!((mask >> (threadIdx.x >> 5)) & 1u)) return;
    long long t0 = now();
    while (now() - t0 < cycles) {}
    if ((threadIdx.x & 31) == 0) out[blockIdx.x] = 1;
}
'''
CASES = [(256, [0]), (256, [0, 4]), (256, [0, 1]), (256, [0, 1, 2, 3]), (256, [0, 2, 4, 6]),
         (256, list(range(8))), (128, [0]), (128, [0, 2]), (128, [0, 1]), (128, [0, 1, 2, 3]),
         (64, [0]), (64, [0, 1]), (512, [0]), (512, list(range(16)))]


def main():
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    k = cp.RawModule(code=SRC).get_function("spinset")
    grid = sms * 64
    out = cp.zeros(grid, cp.int32)
    cycles = 40000
    one = timed(lambda: k((1,), (32,), (np.int64(cycles), np.uint32(1), out)))
    print(json.dumps({"gpu": props["name"].decode(), "one_spin_ms": one}), flush=True)
    for block, ws in CASES:
        mask = sum(1 << w for w in ws)
        ms = timed(lambda: k((grid,), (block,), (np.int64(cycles), np.uint32(mask), out)))
        print(json.dumps({"block": block, "spinning": ws, "blocks": grid, "ms": ms,
                          "rounds": round(ms / one, 2)}), flush=True)


if __name__ == "__main__":
    main()
