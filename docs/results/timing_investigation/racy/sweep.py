"""Racy read-modify-writes of a small global region (histogram[bin]++, no atomics): how the
time and the L2 work depend on the data stream beside them, the number of bins, elements per
thread, the data's size and the block size.  Every kernel:

    for (i = tid; i < n; i += stride) { T v = data[i]; hist[BIN(v)]++; }

one launch, grid = n / (block x K), so each thread does K elements (K = 1: no loop trip).
Median of 9 CUDA-event timings after 3 warm-ups.
Run on the GPU:  python sweep.py > sweep_GPU.jsonl      (ncu: python sweep.py --once NAME...)
"""
import json
import sys
from pathlib import Path

import numpy as np
try:
    import cupy as cp
except ImportError:  # --src on a machine without a GPU
    cp = None

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from kernels_cuda.fam_histogram import histogram_data  # noqa: E402

TYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long", 16: "uint4"}
SRC = r'''
extern "C" __global__ void NAME(const T *data, int *hist, int n, int mask) {
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        T v = data[i];
        hist[(LOW) & mask]++;
    }
}
'''
# (name, width, bins, K, n, block, skew)
CASES = []
for w in (1, 2, 4, 8, 16):
    CASES.append((f"w{w}", w, 256, 1, 1 << 24, 256, "image"))
for w in (1, 4):
    for nb in (64, 256, 1024, 4096):
        CASES.append((f"u{nb}_w{w}", w, nb, 1, 1 << 24, 256, "uniform"))
    for k in (4, 16):
        CASES.append((f"k{k}_w{w}", w, 256, k, 1 << 24, 256, "image"))
    for lg in (22, 26):
        CASES.append((f"n{lg}_w{w}", w, 256, 1, 1 << lg, 256, "image"))
    for b in (128, 1024):
        CASES.append((f"b{b}_w{w}", w, 256, 1, 1 << 24, b, "image"))
    CASES.append((f"dark_w{w}", w, 256, 1, 1 << 24, 256, "dark"))


def source():
    out = []
    for w, t in TYPES.items():
        low = "v.x" if w == 16 else "(unsigned)v"
        out.append(SRC.replace("NAME", f"racy_{w}").replace("T", t).replace("LOW", low))
    return "\n".join(out)


def data(w, nb, n, skew, rng):
    if skew == "uniform":
        base = rng.integers(0, nb, n).astype(np.uint32)
    else:
        base = histogram_data(n, rng, skew).astype(np.uint32)
    if w < 4:
        return cp.asarray(base.astype({1: np.uint8, 2: np.uint16}[w]))
    a = np.zeros((n, w // 4), np.uint32)
    a[:, 0] = base
    return cp.asarray(a)


def timed(fn, reps=9):
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


def main():
    if sys.argv[1:2] == ["--src"]:
        print(source())
        return
    once = sys.argv[1:2] == ["--once"]
    want = set(sys.argv[2:]) if once else None
    mod = cp.RawModule(code=source())
    hist = cp.zeros(4096, cp.int32)
    if not once:
        print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    for name, w, nb, k, n, b, skew in CASES:
        if want and name not in want:
            continue
        d = data(w, nb, n, skew, np.random.default_rng(0))
        kern = mod.get_function(f"racy_{w}")
        grid = max(1, n // (b * k))
        fn = lambda: kern((grid,), (b,), (d, hist, np.int32(n), np.int32(nb - 1)))
        if once:
            fn()
        else:
            print(json.dumps({"case": name, "width": w, "bins": nb, "k": k, "n": n, "block": b,
                              "skew": skew, "ms": round(timed(fn), 4)}), flush=True)
        del d
    cp.cuda.Device().synchronize()


if __name__ == "__main__":
    main()
