"""Which float divisions take nvcc's slow path (FCHK, then a CALL), and what it costs.

Each thread divides x + r*e by y + r*e for r < reps (e = 0 at run time, so every
division sees the same class of operands and none can be hoisted), all lanes alike.
Prints, per class: median time of 9 launches (CUDA events), ns per division per SM
sub-partition slot, and (with --ncu, under Nsight Compute) the kernel's SASS count.
Run on the GPU machine: python3 docs/results/timing_investigation/fchk/fchk.py [--one CLASS]"""
import json
import sys

import cupy as cp
import numpy as np

SRC = r'''
extern "C" __global__ void div_class(const float *a, const float *b, float *o, int reps, float e) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = a[i], y = b[i], acc = 0.0f;
    for (int r = 0; r < reps; ++r) acc += (x + r * e) / (y + r * e);
    o[i] = acc;
}
extern "C" __global__ void mul_class(const float *a, const float *b, float *o, int reps, float e) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = a[i], y = b[i], acc = 0.0f;
    for (int r = 0; r < reps; ++r) acc += (x + r * e) * (y + r * e);
    o[i] = acc;
}
'''
CLASSES = {
    "normal": (1.5, 3.0), "zero_num": (0.0, 3.0), "negzero_num": (-0.0, 3.0),
    "denorm_num": (1e-40, 3.0), "tiny_quot": (1e-30, 1e20), "huge_quot": (1e30, 1e-20),
    "huge_den": (1.0, 3e38), "small_num": (1e-37, 3.0), "inf_num": (np.inf, 3.0),
    "zero_den": (1.0, 0.0), "big_num": (3e38, 3.0), "half_range": (1e19, 1e-19),
}
BLOCKS, THREADS, REPS = 132 * 16, 256, 512


def main():
    mod = cp.RawModule(code=SRC)
    only = sys.argv[sys.argv.index("--one") + 1] if "--one" in sys.argv else None
    out = {}
    n = BLOCKS * THREADS
    o = cp.zeros(n, cp.float32)
    for name, (x, y) in CLASSES.items():
        if only and name != only:
            continue
        a, b = cp.full(n, x, cp.float32), cp.full(n, y, cp.float32)
        for kname in ("div_class", "mul_class"):
            if kname == "mul_class" and name != "normal":
                continue
            k = mod.get_function(kname)
            args = (a, b, o, np.int32(REPS), np.float32(0.0))
            k((BLOCKS,), (THREADS,), args)
            cp.cuda.Device().synchronize()
            ts = []
            for _ in range(9 if not only else 1):
                s, e = cp.cuda.Event(), cp.cuda.Event()
                s.record()
                k((BLOCKS,), (THREADS,), args)
                e.record()
                e.synchronize()
                ts.append(cp.cuda.get_elapsed_time(s, e))
            ms = float(np.median(ts))
            warp_divs = BLOCKS * THREADS // 32 * REPS
            # 132 SMs x 4 sub-partitions: ns per division per sub-partition
            out[f"{kname}:{name}"] = {"ms": ms, "ns_per_warp_div_per_smsp": ms * 1e6 / (warp_divs / 528),
                                      "result": float(o[0].get())}
            print(kname, name, out[f"{kname}:{name}"], flush=True)
    if not only:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
