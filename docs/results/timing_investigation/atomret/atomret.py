"""Global atomics whose result the thread uses (ATOM) against the same without (RED), on
a few hot words: one word, 8 words 128 bytes apart (a kilobyte: two L2 slices, four words
each, timing_investigation/l2map/), 8 words 4 KiB apart (eight slices), 256 random bins.
Each lane of 2^21 does one int atomicAdd (or atomicExch / atomicMax) on word idx[i].

python atomret.py > atomret_GPU.jsonl      median of 9 CUDA-event timings each
python atomret.py --once [NAME ...]       one launch each (for ncu)"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "racy"))
from sweep import timed  # noqa: E402

SRC = r'''
extern "C" {
__global__ void add_red(int *c, const int *idx, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&c[idx[i]], 1);
}
__global__ void add_ret(int *c, const int *idx, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = atomicAdd(&c[idx[i]], 1);
}
__global__ void max_ret(int *c, const int *idx, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = atomicMax(&c[idx[i]], i);
}
__global__ void exch_ret(int *c, const int *idx, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = atomicExch(&c[idx[i]], i);
}
__global__ void fadd_ret(float *c, const int *idx, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = atomicAdd(&c[idx[i]], 1.0f);
}
}
'''
N = 1 << 21
PATTERNS = ("one", "eight_1k", "eight_32k", "bins256")
KERNELS = ("add_red", "add_ret", "max_ret", "exch_ret", "fadd_ret")


def index(pattern, rng):
    k = rng.integers(0, 8, N)
    if pattern == "one":
        return np.zeros(N, np.int32)
    if pattern == "eight_1k":
        return (k * 32).astype(np.int32)             # 128 bytes apart
    if pattern == "eight_32k":
        return (k * 1024 + (k & 1) * 64).astype(np.int32)   # 4 KiB apart, alternate halves
    return rng.integers(0, 256, N).astype(np.int32)


def cases():
    for p in PATTERNS:
        for k in KERNELS:
            yield f"{k}_{p}", k, p


def main():
    import cupy as cp
    once = sys.argv[1:2] == ["--once"]
    want = set(sys.argv[2:]) if once else None
    mod = cp.RawModule(code=SRC)
    rng = np.random.default_rng(0)
    idx = {p: cp.asarray(index(p, rng)) for p in PATTERNS}
    c = cp.zeros(1 << 16, cp.int32)
    out = cp.zeros(N, cp.int32)
    if not once:
        print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "n": N}), flush=True)
    for name, kern, p in cases():
        if want and name not in want:
            continue
        f = mod.get_function(kern)
        fn = lambda: f((N // 256,), (256,), (c, idx[p], out, np.int32(N)))
        if once:
            fn()
            continue
        ms = timed(fn)       # median of 9 CUDA-event timings after 3 warm-ups
        print(json.dumps({"case": name, "kernel": kern, "pattern": p, "ms": round(ms, 4)}), flush=True)
    cp.cuda.Device().synchronize()


if __name__ == "__main__":
    main()
