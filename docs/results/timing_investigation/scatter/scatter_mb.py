"""Scattered global atomics on tables of growing size: what one atomic costs when the
addresses are random over the table (bellman-ford's relaxations) rather than a few hot
bins (the histogram calibration).  N = 2^24 atomics, 256 threads a block, results unused
(RED), median of 20 launches after 3 warm-ups.  Run on the GPU:
python docs/results/timing_investigation/scatter/scatter_mb.py > scatter_GPU.jsonl"""
import json

import cupy as cp
import numpy as np

SRC = r'''
extern "C" __global__ void red_add(const int *idx, unsigned *tab, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&tab[idx[i]], 1u);
}
extern "C" __global__ void red_min(const int *idx, unsigned *tab, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicMin(&tab[idx[i]], (unsigned)i);
}
extern "C" __global__ void ld_only(const int *idx, unsigned *tab, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && tab[idx[i]] == 0xdeadbeefu) tab[0] = 1u;
}
'''
mod = cp.RawModule(code=SRC)
N = 1 << 24
rng = np.random.default_rng(0)
dev = cp.cuda.Device()
props = cp.cuda.runtime.getDeviceProperties(dev.id)
print(json.dumps({"gpu": props["name"].decode(), "sms": props["multiProcessorCount"]}), flush=True)


def timed(fn, reps=20):
    s, e = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(3):
        fn()
    out = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        out.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(out))


for words in (256, 4096, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26):
    idx = cp.asarray(rng.integers(0, words, N, dtype=np.int32))
    tab = cp.zeros(words, cp.uint32)
    for name in ("red_add", "red_min", "ld_only"):
        k = mod.get_function(name)
        ms = timed(lambda: k((N // 256,), (256,), (idx, tab, np.int32(N))))
        print(json.dumps({"kernel": name, "words": words, "table_mib": words * 4 / 2**20, "n": N,
                          "ms": round(ms, 5), "ns_per_op": round(ms * 1e6 / N, 4)}), flush=True)
