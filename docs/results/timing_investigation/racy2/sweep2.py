"""Where do racy stores to a small region merge, and what stops them?  Three kernels over
the same data streams (racy/'s sweep.py cases), each a grid-stride loop with K = 1:

    rmw:  T v = data[i]; hist[BIN(v)]++;            (racy/'s kernel)
    st:   T v = data[i]; hist[BIN(v)] = i;          (stores only: no bin loads)
    ld:   T v = data[i]; acc += hist[BIN(v)];       (bin loads only; one store at the end)

Run on the GPU:  python sweep2.py > sweep2_GPU.jsonl   (ncu: python sweep2.py --once NAME...)
"""
import json
import sys
from pathlib import Path

import numpy as np
try:
    import cupy as cp
except ImportError:
    cp = None

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "racy"))
from sweep import data, timed  # noqa: E402  (racy/'s data streams and timing)

TYPES = {1: "unsigned char", 4: "unsigned int"}
BODY = {
    "rmw": "hist[(unsigned)v & mask]++;",
    "st": "hist[(unsigned)v & mask] = i;",
    "ld": "acc += hist[(unsigned)v & mask];",
}
SRC = r'''
extern "C" __global__ void NAME(const T *data, int *hist, int n, int mask) {
    int stride = gridDim.x * blockDim.x, acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        T v = data[i];
        BODY
    }
    if (acc == 0x7fffffff) hist[0] = acc;
}
'''
# (name, kernel, width, bins, skew)
CASES = []
for kind in ("rmw", "st", "ld"):
    for w, nb, skew in ((1, 256, "image"), (4, 256, "image"), (1, 64, "uniform"),
                        (1, 256, "uniform"), (4, 1024, "uniform"), (1, 256, "dark"), (4, 256, "dark")):
        CASES.append((f"{kind}_{skew}{nb}_w{w}", kind, w, nb, skew))


def source():
    return "\n".join(SRC.replace("NAME", f"{k}_{w}").replace("T", t).replace("BODY", b)
                     for k, b in BODY.items() for w, t in TYPES.items())


def main():
    if sys.argv[1:2] == ["--src"]:
        print(source())
        return
    once = sys.argv[1:2] == ["--once"]
    want = set(sys.argv[2:]) if once else None
    mod = cp.RawModule(code=source())
    hist = cp.zeros(4096, cp.int32)
    n, b = 1 << 24, 256
    if not once:
        print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    for name, kind, w, nb, skew in CASES:
        if want and name not in want:
            continue
        d = data(w, nb, n, skew, np.random.default_rng(0))
        kern = mod.get_function(f"{kind}_{w}")
        fn = lambda: kern((n // b,), (b,), (d, hist, np.int32(n), np.int32(nb - 1)))
        if once:
            fn()
        else:
            print(json.dumps({"case": name, "kind": kind, "width": w, "bins": nb, "skew": skew,
                              "ms": round(timed(fn), 4)}), flush=True)
        del d
    cp.cuda.Device().synchronize()


if __name__ == "__main__":
    main()
