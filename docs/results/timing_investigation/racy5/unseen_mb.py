"""Racy read-modify-writes the racy-store model (simt.racy) was not fitted to, predicted
before their first run (predict_unseen.py, committed first), then measured:

    python3 docs/results/timing_investigation/racy5/unseen_mb.py > unseen_GPU.jsonl
    (ncu: python3 .../unseen_mb.py NAME ...: one launch each)

Median of 9 CUDA-event timings after a warm-up.  Every kernel is in ``SRC``, which simt
emulates as it is.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from kernels_cuda.fam_histogram import histogram_data  # noqa: E402

SRC = r'''
extern "C" __global__ void once_u8(const unsigned char *d, int *hist, int n, int mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) hist[d[i] & mask]++;
}
extern "C" __global__ void once_u16(const unsigned short *d, int *hist, int n, int mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) hist[d[i] & mask]++;
}
extern "C" __global__ void once_u32(const unsigned int *d, int *hist, int n, int mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) hist[d[i] & mask]++;
}
extern "C" __global__ void once_f32(const unsigned char *d, float *hist, int n, int mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) hist[d[i] & mask] += 1.0f;
}
extern "C" __global__ void loop_u8(const unsigned char *d, int *hist, int n, int mask) {
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) hist[d[i] & mask]++;
}
extern "C" __global__ void rgb_u8(const unsigned char *d, int *hist, int n, int mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        hist[d[3 * i] & mask]++;
        hist[256 + (d[3 * i + 1] & mask)]++;
        hist[512 + (d[3 * i + 2] & mask)]++;
    }
}
'''
# (name, kernel, data, bins, n, block, trips): trips > 1 sizes a grid-stride loop's grid
CASES = [
    ("once_u16_image", "once_u16", "image", 256, 1 << 24, 256, 1),
    ("once_u8_b512", "once_u8", "image", 256, 1 << 24, 512, 1),
    ("once_u8_b64", "once_u8", "image", 256, 1 << 24, 64, 1),
    ("once_u8_u128", "once_u8", "uniform", 128, 1 << 24, 256, 1),
    ("once_u32_u512", "once_u32", "uniform", 512, 1 << 24, 256, 1),
    ("once_u8_gauss", "once_u8", "gauss", 256, 1 << 24, 256, 1),
    ("once_u32_b128", "once_u32", "image", 256, 1 << 24, 128, 1),
    ("once_f32_image", "once_f32", "image", 256, 1 << 24, 256, 1),
    ("once_u8_n20", "once_u8", "image", 256, 1 << 20, 256, 1),
    ("loop2_u8", "loop_u8", "image", 256, 1 << 24, 256, 2),
    ("loop8_u8_uniform", "loop_u8", "uniform", 256, 1 << 24, 256, 8),
    ("rgb_u8", "rgb_u8", "image", 256, 1 << 24, 256, 1),
]
DTYPE = {"once_u8": np.uint8, "once_u16": np.uint16, "once_u32": np.uint32, "once_f32": np.uint8,
         "loop_u8": np.uint8, "rgb_u8": np.uint8}


def data(kernel, skew, bins, n, rng):
    """The kernel's data array on the host (rgb: 3 bytes an element)."""
    m = 3 * n if kernel == "rgb_u8" else n
    if skew == "uniform":
        x = rng.integers(0, bins, m)
    elif skew == "gauss":
        x = np.clip(np.rint(rng.normal(128, 20, m)), 0, 255)
    else:
        x = histogram_data(m, rng, skew)
    return x.astype(DTYPE[kernel])


def grid(n, block, trips):
    return max(1, n // (block * trips))


def timed(f, g, b, args, reps=9):
    import cupy as cp
    f((g,), (b,), args)
    out = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        f((g,), (b,), args)
        e.record()
        e.synchronize()
        out.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(out))


def main(want):
    import cupy as cp
    mod = cp.RawModule(code=SRC)
    if not want:
        print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    for name, kernel, skew, bins, n, block, trips in CASES:
        if want and name not in want:
            continue
        d = cp.asarray(data(kernel, skew, bins, n, np.random.default_rng(0)))
        hist = cp.zeros(1024, cp.float32 if kernel == "once_f32" else cp.int32)
        f = mod.get_function(kernel)
        args = (d, hist, np.int32(n), np.int32(bins - 1))
        g = grid(n, block, trips)
        if want:
            f((g,), (block,), args)
        else:
            print(json.dumps({"case": name, "kernel": kernel, "data": skew, "bins": bins, "n": n,
                              "block": block, "trips": trips, "ms": round(timed(f, g, block, args), 4)}),
                  flush=True)
    cp.cuda.Device().synchronize()


if __name__ == "__main__":
    main(sys.argv[1:])
