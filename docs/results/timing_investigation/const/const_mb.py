"""Constant-memory microbenchmarks (session 10): what a __constant__ load costs on the GPU.

- cm_div: every thread of a full grid (8 blocks of 256 per SM) sums TRIPS loads from a
  __constant__ table; the lanes of a warp read d distinct words (d = 1 .. 32), 128 bytes
  apart (stride 32) or adjacent (stride 1).  The time's slope in d - 1 is the cost of a
  replay; simt charges machine.CONST_REPLAY_CYCLES issue cycles of a sub-partition each.
- cm_chase: one thread follows a chain of indices through a __constant__ table, timed
  with clock64(): the latency of a dependent constant load (machine.LAT["const"]).

Run on the GPU:  python docs/results/timing_investigation/const/const_mb.py > const_GPU.json
"""
import json
import statistics

import cupy as cp
import numpy as np

SRC = r"""
__constant__ float tab[1024];
__constant__ int nxt[1024];
extern "C" __global__ void cm_div(float *out, int trips, int d, int stride) {
    int lane = threadIdx.x & 31;
    int base = (lane % d) * stride;
    float s = 0.0f;
    for (int k = 0; k < trips; k++) s += tab[(base + k) & 1023];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
extern "C" __global__ void cm_chase(int *out, long long *cycles, int steps) {
    int j = threadIdx.x;
    long long t0 = clock64();
    for (int k = 0; k < steps; k++) j = nxt[j];
    long long t1 = clock64();
    out[0] = j;
    cycles[0] = t1 - t0;
}
"""
TRIPS = 1024


def timed(fn, repeat=15):
    s, e = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(3):
        fn()
    out = []
    for _ in range(repeat):
        s.record()
        fn()
        e.record()
        e.synchronize()
        out.append(cp.cuda.get_elapsed_time(s, e))
    return statistics.median(out)


def main():
    mod = cp.RawModule(code=SRC)
    div, chase = mod.get_function("cm_div"), mod.get_function("cm_chase")
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    tab = cp.ndarray((1024,), cp.float32, memptr=mod.get_global("tab"))
    tab.set(np.random.default_rng(0).random(1024, np.float32))
    nxt = cp.ndarray((1024,), cp.int32, memptr=mod.get_global("nxt"))
    nxt.set(((np.arange(1024) + 33) % 1024).astype(np.int32))
    blocks, threads = sms * 8, 256
    out = cp.zeros(blocks * threads, cp.float32)
    res = {"device": props["name"].decode(), "sms": sms, "blocks": blocks, "threads": threads,
           "trips": TRIPS, "div": {}}
    for stride in (32, 1):
        for d in (1, 2, 4, 8, 16, 32):
            ms = timed(lambda: div((blocks,), (threads,), (out, np.int32(TRIPS), np.int32(d),
                                                           np.int32(stride))))
            res["div"][f"s{stride}_d{d}"] = ms
    o = cp.zeros(1, cp.int32)
    cyc = cp.zeros(1, cp.int64)
    per = []
    for steps in (256, 4096):
        chase((1,), (1,), (o, cyc, np.int32(steps)))
        cp.cuda.Device().synchronize()
        per.append(int(cyc.get()[0]))
    res["chase_cycles"] = {"256": per[0], "4096": per[1],
                           "per_step": (per[1] - per[0]) / (4096 - 256)}
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
