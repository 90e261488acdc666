"""Random loads, stores and atomics over tables around and beyond L2's size: how many of
a re-touched random chunk's accesses miss L2 and what a miss costs.  For tables of 8 MiB
to 512 MiB, 2^24 operations (and 2^22 and 2^26 on some), 256 threads a block, median of
20 launches after 3 warm-ups.  Run on the GPU:
python docs/results/timing_investigation/l2miss/l2miss_mb.py > l2miss_GPU.jsonl
(``--one KERNEL MIB N`` launches one case once, for ncu)."""
import json
import sys

import cupy as cp
import numpy as np

SRC = r'''
extern "C" __global__ void ld_only(const int *idx, unsigned *tab, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && tab[idx[i]] == 0xdeadbeefu) tab[0] = 1u;
}
extern "C" __global__ void st_only(const int *idx, unsigned *tab, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tab[idx[i]] = (unsigned)i;
}
extern "C" __global__ void red_add(const int *idx, unsigned *tab, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&tab[idx[i]], 1u);
}
'''
mod = cp.RawModule(code=SRC)
rng = np.random.default_rng(0)
dev = cp.cuda.Device()
props = cp.cuda.runtime.getDeviceProperties(dev.id)
print(json.dumps({"gpu": props["name"].decode(), "sms": props["multiProcessorCount"],
                  "l2_bytes": props["l2CacheSize"]}), flush=True)


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


if sys.argv[1:2] == ["--one"]:
    name, mib, n = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    idx = cp.asarray(rng.integers(0, mib << 18, n, dtype=np.int32))
    tab = cp.zeros(mib << 18, cp.uint32)
    mod.get_function(name)((n // 256,), (256,), (idx, tab, np.int32(n)))
    dev.synchronize()
    sys.exit(0)

CASES = [(mib, 1 << 24) for mib in (8, 16, 24, 32, 40, 48, 64, 96, 128, 256, 512)]
CASES += [(256, 1 << 22), (64, 1 << 22), (64, 1 << 26), (32, 1 << 26)]
for mib, n in CASES:
    words = mib << 18
    idx = cp.asarray(rng.integers(0, words, n, dtype=np.int32))
    tab = cp.zeros(words, cp.uint32)
    for name in ("ld_only", "st_only", "red_add"):
        k = mod.get_function(name)
        ms = timed(lambda: k((n // 256,), (256,), (idx, tab, np.int32(n))))
        print(json.dumps({"kernel": name, "words": words, "table_mib": mib, "n": n,
                          "ms": round(ms, 5), "ns_per_op": round(ms * 1e6 / n, 4)}), flush=True)
    del idx, tab
