"""Float atomicAdd chains on words many warps share: by word or by sector?

probe/lidar-voxel-atomic (0.30, ../unseen137/), probe/cic-graded-mesh-atomic (0.45,
../unseen159/) and probe/radar-det-histogram-atomic (0.54, ../unseen130/) add floats to a
few hundred or thousand hot neighbouring words from lanes spread over many warps. Their
busiest L2 slice takes 2.2-2.9 ns a transaction, where scattered float atomics take about
0.7 ns and one word's chain 1.76 ns a lane (../fatom/). Here 2^24 lanes each add 1 to one
of H hot words drawn at random (few lanes of a warp share a word), the words S apart
(S = 1: eight words a sector; 8: a sector each; 32: a line each), int and float; and the
same lanes spread over 2^20 words.

python fchain.py > fchain_GPU.jsonl     median of 9 CUDA-event timings each
python fchain.py --once                one launch each (for ncu)"""
import json
import sys

import numpy as np

SRC = r'''
extern "C" {
__global__ void add_i(int *c, const int *idx, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(&c[idx[i]], 1); }
__global__ void add_f(float *c, const int *idx, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(&c[idx[i]], 1.0f); }
}
'''
N = 1 << 24
W = 1 << 20
BLOCK = 256


def cases():
    for h in (256, 4096):
        for s in (1, 8, 32):
            yield f"hot{h}_s{s}", h, s
    yield "spread", 0, 1


def pattern(h, s, rng, n=N):
    if h == 0:
        return rng.integers(0, W, n).astype(np.int32)
    return (rng.integers(0, h, n) * s).astype(np.int32)


def main():
    import cupy as cp
    once = "--once" in sys.argv
    mod = cp.RawModule(code=SRC)
    rng = np.random.default_rng(0)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    if not once:
        print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    for name, h, s in cases():
        idx = cp.asarray(pattern(h, s, rng))
        for k, t in (("add_i", np.int32), ("add_f", np.float32)):
            c = cp.zeros(W, t)
            f = mod.get_function(k)
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
                print(json.dumps({"case": name, "kernel": k, "hot": h, "spacing": s, "ms": round(float(np.median(ts)), 4)}),
                      flush=True)


if __name__ == "__main__":
    main()
