"""Lanes that store rows of their own a word at a time: what DRAM reads and writes for
them, against how many lines the GPU's lanes hold open at once (session 52, after
probe/nerf-posenc-rowmajor, ../unseen147/: 63 floats a point into 252-byte rows, 285 MB
read and 675 MB written by DRAM for 264 MB of output, 0.59 of its time predicted).

- ``plain``: lane t writes row t (R floats, rows back to back, lanes R x 4 bytes apart),
  one float a trip of a counted loop;
- ``sfu``: the same with a ``__sinf`` and a ``__cosf`` a trip, so the stores spread out
  in time as the probe's do;
- ``coal``: the same floats written coalesced (word i of every lane's row by consecutive
  lanes: out[i * lanes + t]), the reference.

A grid of 132 x k blocks of 256 threads (one wave, k blocks an SM).  Median of 15
launches after 3 warm-ups.  From the repository root on the GPU machine:
python docs/results/timing_investigation/rowstore/rowstore_mb.py > rowstore_GPU.jsonl
(with a case name: that case once, for Nsight Compute)."""
import json
import sys

try:
    import cupy as cp
except ImportError:          # a predictor reads SRC and CASES without a GPU
    cp = None
import numpy as np

SRC = r'''
extern "C" __global__ void rows_plain(float *out, int r, float a) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float *row = out + (size_t)t * r;
    for (int i = 0; i < r; ++i) row[i] = a * (float)(t + i);
}
extern "C" __global__ void rows_sfu(float *out, int r, float a) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float *row = out + (size_t)t * r;
    float x = a * (float)t;
    for (int i = 0; i < r; ++i) row[i] = (i & 1) ? __cosf(x * (float)(i + 1)) : __sinf(x * (float)(i + 1));
}
extern "C" __global__ void rows_coal(float *out, int r, float a) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int lanes = gridDim.x * blockDim.x;
    for (int i = 0; i < r; ++i) out[(size_t)i * lanes + t] = a * (float)(t + i);
}
'''
SMS, BLOCK = 132, 256
# (case, kernel, R floats a lane, k blocks an SM)
CASES = ([(f"{kind}_r{r}_k{k}", f"rows_{kind}", r, k) for kind in ("plain", "sfu") for r in (16, 32, 63, 64)
          for k in (1, 2, 4, 8)]
         + [(f"coal_r{r}_k8", "rows_coal", r, 8) for r in (32, 63)])


def main():
    mod = cp.RawModule(code=SRC)
    dev = cp.cuda.Device()
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(dev.id)["name"].decode()}), flush=True)
    ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
    only = set(sys.argv[1:])
    for case, kern, r, k in CASES:
        if only and case not in only:
            continue
        f = mod.get_function(kern)
        g = SMS * k
        n = g * BLOCK * r
        out = cp.zeros(n, cp.float32)
        run = lambda: f((g,), (BLOCK,), (out, np.int32(r), np.float32(1e-3)))
        for _ in range(3):
            run()
        t = []
        for _ in range(1 if only else 15):
            ev0.record()
            run()
            ev1.record()
            ev1.synchronize()
            t.append(cp.cuda.get_elapsed_time(ev0, ev1))
        print(json.dumps({"case": case, "kernel": kern, "r": r, "k": k, "bytes": n * 4,
                          "ms": round(float(np.median(t)), 5)}), flush=True)


if __name__ == "__main__":
    main()
