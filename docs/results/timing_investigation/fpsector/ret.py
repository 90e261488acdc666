"""Atomics whose old value the kernel uses (ATOM) against those it drops (RED), on hot
words and on runs of lanes.  probe/pic-sort-scatter-cells (unseen100/: slot =
cell_start[c] + atomicAdd(&fill[c], 1) for 2^22 nearly sorted particles, about 20 lanes of a
warp on one cell's counter, 8 counters a sector) took 0.221 ms where simt, pricing its
atomics as fpsector/ measured RED, gave 0.073.

    red_T:  atomicAdd(&c[w], 1)
    ret_T:  T old = atomicAdd(&c[w], 1); if (old == (T)-7) out[0] = old;   (never true)
with w, for lane i (2^22 lanes, 256 a block):
    lane0_one:   one lane a warp, all on word 0 (131,072 requests)
    warp_one:    every lane on word 0
    warp_far4:   warp g's lanes on word (g % 4) * 1 KiB
    runR_adj:    lane i on word i / R: runs of R lanes, consecutive counters adjacent (R = 20, 64)
    runR_sec:    the same, each counter in a sector of its own (word (i / R) * 8)
Median of 9 CUDA-event timings after 3 warm-ups.  python ret.py > ret_GPU.jsonl on the GPU."""
import json

import numpy as np

SRC = r'''
#define K(name, T, RET) \
extern "C" __global__ void name(T *c, T *out, const int *w, int n) { \
    int i = blockIdx.x * blockDim.x + threadIdx.x; \
    if (i < n && w[i] >= 0) { \
        if (RET) { T old = atomicAdd(&c[w[i]], (T)1); if (old == (T)-7) out[0] = old; } \
        else atomicAdd(&c[w[i]], (T)1); } }
K(red_i, int, 0)
K(ret_i, int, 1)
K(red_f, float, 0)
K(ret_f, float, 1)
'''
N = 1 << 22


def pattern(name, n=N):
    i = np.arange(n, dtype=np.int64)
    if name == "lane0_one":
        return np.where(i % 32 == 0, 0, -1)
    if name == "warp_one":
        return np.zeros(n, np.int64)
    if name == "warp_far4":
        return (i // 32 % 4) * 256
    r = int(name[3:name.index("_")])
    return i // r * (8 if name.endswith("_sec") else 1)


PATTERNS = ("lane0_one", "warp_one", "warp_far4", "run20_adj", "run20_sec", "run64_adj", "run64_sec")


def main():
    import cupy as cp
    mod = cp.RawModule(code=SRC)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    for pat in PATTERNS:
        w = pattern(pat)
        wd = cp.asarray(w.astype(np.int32))
        for k in ("red_i", "ret_i", "red_f", "ret_f"):
            t = np.float32 if k.endswith("f") else np.int32
            c = cp.zeros(int(w.max()) + 1, t)
            out = cp.zeros(1, t)
            f = mod.get_function(k)
            args = (c, out, wd, np.int32(N))
            for _ in range(3):
                f((N // 256,), (256,), args)
            ts = []
            for _ in range(9):
                start.record(); f((N // 256,), (256,), args); stop.record(); stop.synchronize()
                ts.append(cp.cuda.get_elapsed_time(start, stop))
            print(json.dumps({"kernel": k, "pattern": pat, "n": N, "ms": float(np.median(ts))}), flush=True)


if __name__ == "__main__":
    main()
