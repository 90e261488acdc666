"""Same-address atomicAdd throughput by type (probe/orderbook-depth, unseen62/: 0.11x, its
hot price levels take unsigned long long and unsigned int atomicAdds).  2^24 threads in
256-thread blocks each add 1 to word (i mod k) of a k-word array (k = 1: every lane on one
address; 64: 64 addresses 8 bytes apart), results unused (RED).  Median of 7 CUDA-event
timings: ns an add on the busiest address = ms / (2^24 / k).
python docs/results/timing_investigation/atom64/atom64_mb.py > atom64_GPU.jsonl"""
import json
import sys
from pathlib import Path

import cupy as cp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "warpslots"))
from warpslots_mb import timed  # noqa: E402  (median of 7 CUDA-event timings)

SRC = r'''
extern "C" __global__ void add_u32(unsigned *p, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(&p[(i % k) * 2], 1u); }
extern "C" __global__ void add_u64(unsigned long long *p, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(&p[i % k], 1ull); }
extern "C" __global__ void add_f32(float *p, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(&p[(i % k) * 2], 1.0f); }
extern "C" __global__ void add_both(unsigned long long *p, unsigned *q, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { atomicAdd(&p[i % k], 1ull); atomicAdd(&q[i % k], 1u); } }
'''


def main():
    mod = cp.RawModule(code=SRC)
    n = 1 << 24
    buf = cp.zeros(1 << 16, cp.uint64)
    buf2 = cp.zeros(1 << 16, cp.uint32)
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    for k in (1, 2, 64, 1024):
        for name in ("add_u32", "add_u64", "add_f32", "add_both"):
            f = mod.get_function(name)
            args = (buf, buf2, np.int32(k), np.int32(n)) if name == "add_both" else (buf, np.int32(k), np.int32(n))
            ms = timed(lambda: f((n // 256,), (256,), args))
            print(json.dumps({"kernel": name, "addresses": k, "ms": ms,
                              "ns_per_add_busiest": round(ms * 1e6 / (n / k), 3)}), flush=True)


if __name__ == "__main__":
    main()
