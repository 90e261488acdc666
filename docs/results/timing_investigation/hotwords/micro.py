"""Same-word atomics from many warps on a few words at a time: does a float add's longer
chain on one word (fatom/: 2.4x an int add's time when every lane hits one word) hold
when a few words share the stream?  probe/zonal-stats-atomic (unseen68/: four atomics a
cell into 1024 contiguous zones, a warp's lanes on one word, about 16 zones hot at a
time) took 2.65 ms where simt, pricing its replays at the int one-word rate, gave 1.40.

Every kernel is   if (i < n) atomicOp(&c[idx[i]], v);   (add int, add float, min int)
into a 4 KiB array of 1024 words, with idx chosen as
  warpK:  warp w's lanes all on word (w % K) * (1024 / K): K words, consecutive warps on
          different ones (K = 1, 4, 16, 64, 1024);
  runR:   lane i on word (i / R) % 1024: R lanes a word, consecutive warps on the same word
          until it moves on (R = 2048, 16384: about 128 and 16 words hot at a time, as
          zonal-stats-atomic's zones).
n = 2^24, 256 threads a block.  Median of 9 CUDA-event timings after 3 warm-ups.
python micro.py > micro_GPU.jsonl on the GPU;  predict.py here gives simt's."""
import json

import numpy as np

SRC = r'''
extern "C" {
__global__ void add_i(int *c, const int *idx, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(&c[idx[i]], 1); }
__global__ void add_f(float *c, const int *idx, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(&c[idx[i]], 1.0f); }
__global__ void min_i(int *c, const int *idx, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicMin(&c[idx[i]], i); }
}
'''
N = 1 << 24
W = 1024
PATTERNS = ("warpK1", "warpK4", "warpK16", "warpK64", "warpK1024", "runR2048", "runR16384")
KERNELS = {"add_i": np.int32, "add_f": np.float32, "min_i": np.int32}


def pattern(name, n=N):
    i = np.arange(n, dtype=np.int64)
    if name.startswith("warpK"):
        k = int(name[5:])
        return (((i // 32) % k) * (W // k)).astype(np.int32)
    r = int(name[4:])
    return ((i // r) % W).astype(np.int32)


def main():
    import cupy as cp
    mod = cp.RawModule(code=SRC)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    for pat in PATTERNS:
        n = N // 16 if pat == "warpK1" else N
        idx = cp.asarray(pattern(pat, n))
        for k, t in KERNELS.items():
            c = cp.zeros(W, t)
            f = mod.get_function(k)
            args = (c, idx, np.int32(n))
            grid = (n + 255) // 256
            for _ in range(3):
                f((grid,), (256,), args)
            ts = []
            for _ in range(9):
                start.record(); f((grid,), (256,), args); stop.record(); stop.synchronize()
                ts.append(cp.cuda.get_elapsed_time(start, stop))
            print(json.dumps({"kernel": k, "pattern": pat, "n": n, "ms": float(np.median(ts))}), flush=True)


if __name__ == "__main__":
    main()
