"""When does L1 merge an SM's stores to one sector before L2?  (racy/ and racy2/ found the
catalog's racy histogram stores reach L2 merged 1.5-9 times, by amounts that follow the
warps' timing.)  Controlled cases, each warp storing to one 128-byte line (lane l writes
word l: 4 sectors a store) `reps` times, with `delay` clock cycles between its stores:

- ``solo_*``: one warp on one SM (no contention anywhere), delay 0 / 200 / 2000 cycles;
- ``pair_d0``: two warps of one block, the same line;
- ``sms_same_*``: one warp on each of 132 SMs, all on the same line (its L2 slice saturated);
- ``sms_own_d0``: one warp on each of 132 SMs, each on its own line;
- ``*_rmw``: each store preceded by a load of the same word (the racy histogram's
  read-modify-write), the load's value stored plus one.

Stores and loads are inline PTX (st.global / ld.global) so that nvcc keeps every one.
Per case: the median of 7 timings (CUDA events); with a case name, that case once (for
Nsight Compute: L1's store sectors against the sectors L1 sends to L2).  From the
repository root on the GPU machine:
python docs/results/timing_investigation/racy3/merge_mb.py > merge_GPU.jsonl"""
import json
import sys

import numpy as np

SRC = r'''
extern "C" __global__ void st_rep(int *hist, int reps, int delay, int stride, int rmw) {
    int lane = threadIdx.x & 31;
    int *p = hist + blockIdx.x * stride + lane;
    int v = lane;
    for (int r = 0; r < reps; ++r) {
        if (rmw) asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
        v += 1;
        asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
        if (delay) {
            long long t = clock64();
            while (clock64() - t < delay) { }
        }
    }
}
'''

SMS = 132
# name: (blocks, threads, reps, delay, stride in ints (0: every block the same line), rmw)
CASES = [
    ("solo_d0", 1, 32, 20000, 0, 0, 0),
    ("solo_d200", 1, 32, 20000, 200, 0, 0),
    ("solo_d2000", 1, 32, 5000, 2000, 0, 0),
    ("pair_d0", 1, 64, 20000, 0, 0, 0),
    ("sms_same_d0", SMS, 32, 20000, 0, 0, 0),
    ("sms_same_d2000", SMS, 32, 5000, 2000, 0, 0),
    ("sms_own_d0", SMS, 32, 20000, 0, 32, 0),
    ("solo_d0_rmw", 1, 32, 20000, 0, 0, 1),
    ("sms_same_d0_rmw", SMS, 32, 20000, 0, 0, 1),
    ("sms_own_d0_rmw", SMS, 32, 20000, 0, 32, 1),
]


def run(case, reps=7):
    import cupy as cp
    name, blocks, threads, n, delay, stride, rmw = case
    hist = cp.zeros(SMS * 64, np.int32)
    f = cp.RawModule(code=SRC).get_function("st_rep")
    args = (hist, np.int32(n), np.int32(delay), np.int32(stride), np.int32(rmw))
    f((blocks,), (threads,), args)
    times = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        f((blocks,), (threads,), args)
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b))
    ms = float(np.median(times))
    return {"case": name, "blocks": blocks, "threads": threads, "reps": n, "delay": delay, "stride": stride,
            "rmw": rmw, "ms": ms, "ns_per_store": ms * 1e6 / n}


if __name__ == "__main__":
    want = sys.argv[1:]
    for c in CASES:
        if want and c[0] not in want:
            continue
        print(json.dumps(run(c, 1 if want else 7)), flush=True)
