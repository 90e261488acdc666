"""Hot lines that move with the block index: the resident blocks' window, not the grid's.

probe/lidar-voxel-atomic (0.29) and probe/cic-graded-mesh-atomic (0.45): neighbouring
blocks hit the same few hot voxels or cells, far blocks others, so the grid as a whole
spreads over many lines while the blocks resident at once share a few. Here 2^24 int
atomicAdds (blocks of 256) where block b's lanes hit, at random, one of W lines (a word
each, a line apart) of a window that starts at line floor(b * D) of a 64 MiB region:
D = 0 is a fixed hot set of W lines; D = 1/16 .. 4 lines a block moves it, so the 1056
blocks resident at once (132 SMs x 8) cover about W + 1056 D lines.

python fchain3.py > fchain3_GPU.jsonl     median of 9 CUDA-event timings each
python fchain3.py --once                 one launch each (for ncu)"""
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
W_WORDS = 1 << 24       # 64 MiB of words
BLOCK = 256


def cases():
    for w in (64, 256, 1024):
        for num, den in ((0, 1), (1, 16), (1, 4), (1, 1), (4, 1)):
            yield f"w{w}_d{num}/{den}", w, num, den


def pattern(w, num, den, rng, n=N):
    b = np.arange(n) // BLOCK
    start = (b * num) // den
    line = (start + rng.integers(0, w, n)) % (W_WORDS // 32)
    return (line * 32).astype(np.int32)


def main():
    import cupy as cp
    once = "--once" in sys.argv
    f = cp.RawModule(code=SRC).get_function("add_i")
    rng = np.random.default_rng(0)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    if not once:
        print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    c = cp.zeros(W_WORDS, np.int32)
    for name, w, num, den in cases():
        idx = cp.asarray(pattern(w, num, den, rng))
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
            print(json.dumps({"case": name, "hot": w, "drift": num / den, "ms": round(float(np.median(ts)), 4)}),
                  flush=True)


if __name__ == "__main__":
    main()
