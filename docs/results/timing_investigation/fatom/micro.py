"""Global atomics by value type and lane pattern: does a float atomicAdd cost what an int
one costs at L2?  probe/coo-spmv (a float atomicAdd a nonzero, rows sorted, so about 16
lanes of a warp on one address) took 0.30 ms where simt, pricing each same-address lane at
the int rate cal_gatom measured, predicted 0.15.

Every kernel is   if (i < n) atomicAdd(&c[idx[i]], v);   with idx chosen as
  one:     every lane of the grid on one word;
  run16:   i / 16 spread over 2^20 words (a warp's lanes on 2 words, 16 each);
  run4:    i / 4 spread over 2^20 words (8 words a warp, 4 lanes each);
  warp:    i / 32 over 2^20 words (a warp on one word);
  spread:  random over 2^20 words (lanes on different words);
for int, unsigned long long, float and double (atomicAdd), and int atomicMin.
n = 2^24, 256 threads a block.  Median of 9 CUDA-event timings after 3 warm-ups.
Run on the GPU:  python micro.py > micro_GPU.jsonl; under ncu with --once (one launch each)
"""
import json
import sys

import numpy as np
import cupy as cp

SRC = r'''
extern "C" {
__global__ void add_i(int *c, const int *idx, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(&c[idx[i]], 1); }
__global__ void add_u64(unsigned long long *c, const int *idx, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(&c[idx[i]], 1ull); }
__global__ void add_f(float *c, const int *idx, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(&c[idx[i]], 1.0f); }
__global__ void add_d(double *c, const int *idx, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(&c[idx[i]], 1.0); }
__global__ void min_i(int *c, const int *idx, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicMin(&c[idx[i]], i); }
}
'''
ONCE = "--once" in sys.argv      # one launch each (under ncu)
N = 1 << 24
W = 1 << 20


def pattern(name, rng):
    i = np.arange(N, dtype=np.int64)
    if name == "one":
        return np.zeros(N, np.int32)
    if name == "spread":
        return rng.integers(0, W, N).astype(np.int32)
    run = {"run16": 16, "run4": 4, "warp": 32}[name]
    words = rng.permutation(W)                       # runs land on scattered words
    return words[(i // run) % W].astype(np.int32)


def main():
    mod = cp.RawModule(code=SRC)
    rng = np.random.default_rng(0)
    dt = {"add_i": np.int32, "add_u64": np.uint64, "add_f": np.float32, "add_d": np.float64, "min_i": np.int32}
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    for pat in ("one", "run16", "run4", "warp", "spread"):
        idx = cp.asarray(pattern(pat, rng))
        if pat == "one":
            idx_n = N // 16                              # one word: 2^20 lanes are enough
        else:
            idx_n = N
        for k, t in dt.items():
            c = cp.zeros(W, t)
            f = mod.get_function(k)
            args = (c, idx, np.int32(idx_n))
            grid = (idx_n + 255) // 256
            for _ in range(0 if ONCE else 3):
                f((grid,), (256,), args)
            ts = []
            for _ in range(1 if ONCE else 9):
                start.record(); f((grid,), (256,), args); stop.record(); stop.synchronize()
                ts.append(cp.cuda.get_elapsed_time(start, stop))
            print(json.dumps({"kernel": k, "pattern": pat, "n": idx_n, "ms": float(np.median(ts))}), flush=True)


if __name__ == "__main__":
    main()
