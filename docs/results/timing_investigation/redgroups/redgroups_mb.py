"""Reductions whose lanes share addresses in groups, as sorted keys make them: lane l of
warp w adds to word base(w) + l / (32 / G), G addresses a warp (consecutive lanes on one
word), the warps' bases walking a region of R bytes in order (a sorted COO's rows, with
32 / G entries a row).  2^24 lanes, 256 threads a block.  Cases: G in 1, 2, 4, 8, 16, 32;
R 4 MiB (every L2 slice) and 1 KiB (one slice's pair); the operation add or min (int).
Median of 20 launches after 3 warm-ups.  Run on the GPU:
python docs/results/timing_investigation/redgroups/redgroups_mb.py > redgroups_GPU.jsonl"""
import json
import sys

try:
    import cupy as cp
except ImportError:          # predict.py reads SRC and CASES here without a GPU
    cp = None
import numpy as np

SRC = r'''
extern "C" __global__ void red_groups(int *c, int g_shift, int words_mask, int use_min, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int w = i >> 5, lane = i & 31;
    int word = ((w << g_shift) + (lane >> (5 - g_shift))) & words_mask;
    if (use_min) atomicMin(&c[word], i);
    else atomicAdd(&c[word], 1);
}
'''
N = 1 << 24
CASES = [(g, r, op) for op in ("add", "min") for r in (4 << 20, 1024) for g in (1, 2, 4, 8, 16, 32)]


def args(g, r, op):
    """(g_shift, words_mask, use_min) of a case."""
    return int(np.log2(g)), r // 4 - 1, int(op == "min")


def main():
    k = cp.RawModule(code=SRC).get_function("red_groups")
    dev = cp.cuda.Device()
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(dev.id)["name"].decode()}), flush=True)
    c = cp.zeros((4 << 20) // 4, cp.int32)
    s, e = cp.cuda.Event(), cp.cuda.Event()
    for g, r, op in CASES:
        gs, mask, mn = args(g, r, op)
        run = lambda: k((N // 256,), (256,), (c, np.int32(gs), np.int32(mask), np.int32(mn), np.int32(N)))
        for _ in range(3):
            run()
        t = []
        for _ in range(20):
            s.record()
            run()
            e.record()
            e.synchronize()
            t.append(cp.cuda.get_elapsed_time(s, e))
        print(json.dumps({"g": g, "region": r, "op": op, "ms": round(float(np.median(t)), 5)}), flush=True)


if __name__ == "__main__":
    main()
