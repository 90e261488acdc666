"""How unevenly hot lines land on the L2 slices, by how many 256-byte blocks they cover.

fchain.py found that 2^24 atomic lanes on H hot lines cost the busiest slice's sectors,
and that past 16 KiB the GPU's busiest slice holds 1.04-2.5 times the even share. Here
the same int atomicAdd of 2^24 lanes (blocks of 256) on H hot words drawn at random:
- ``line``: H words a 128-byte line apart (two lines a 256-byte block), H = 64 .. 2^15;
- ``block``: H words 256 bytes apart (a block each);
- ``scat``: H words on lines drawn at random from 64 MiB (no two on one block).

python fchain2.py > fchain2_GPU.jsonl     median of 9 CUDA-event timings each
python fchain2.py --once                 one launch each (for ncu, per-slice values)"""
import json
import sys

import numpy as np

SRC = r'''
extern "C" __global__ void add_i(int *c, const int *idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&c[idx[i]], 1);
}
'''
N = 1 << 24
W = 1 << 24             # 64 MiB of words
BLOCK = 256


def cases():
    for h in (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768):
        yield f"line{h}", h, "line"
    for h in (128, 512, 2048):
        yield f"block{h}", h, "block"
    for h in (256, 1024, 4096):
        yield f"scat{h}", h, "scat"


def pattern(h, kind, rng, n=N):
    if kind == "line":
        words = np.arange(h) * 32
    elif kind == "block":
        words = np.arange(h) * 64
    else:
        words = rng.choice(W // 64, h, replace=False) * 64
    return words[rng.integers(0, h, n)].astype(np.int32)


def time_cases(cases, pattern, record):
    """Time add_i on each case's pattern (``pattern(*case[1:], rng)``), printing
    ``{"case": name, **record(case), "ms": median}`` a line (one launch each with --once)."""
    import cupy as cp
    once = "--once" in sys.argv
    f = cp.RawModule(code=SRC).get_function("add_i")
    rng = np.random.default_rng(0)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    if not once:
        print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    c = cp.zeros(W, np.int32)
    for case in cases():
        idx = cp.asarray(pattern(*case[1:], rng))
        args = (c, idx, np.int32(N))
        grid = N // BLOCK
        for _ in range(0 if once else 3):
            f((grid,), (BLOCK,), args)
        ts = []
        for _ in range(1 if once else 9):
            start.record()
            f((grid,), (BLOCK,), args)
            stop.record()
            stop.synchronize()
            ts.append(cp.cuda.get_elapsed_time(start, stop))
        if not once:
            print(json.dumps({"case": case[0], **record(case), "ms": round(float(np.median(ts)), 4)}), flush=True)


def main():
    time_cases(cases, pattern, lambda case: {"hot": case[1], "kind": case[2]})


if __name__ == "__main__":
    main()
