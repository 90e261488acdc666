"""histogram[data[i]]++ (histogram/naive's racy read-modify-write of 256 int bins) with
data elements of 1, 2, 4, 8 and 16 bytes (the bin is the element's low byte), and the
same with the data loaded past L1 (__ldcg: cached in L2 only).  If the data stream
through L1 is what keeps L1 from merging the bins' stores and serving their loads
(README.md), the time grows with the element's width and __ldcg takes it back.
2^24 elements of the catalog's "image" data (kernels_cuda.fam_histogram.histogram_data),
one thread an element, 256 threads a block; median of 9 runs, CUDA events, warm.
Run on the GPU:  python docs/results/timing_investigation/naive_u8/width_mb.py > width_GPU.jsonl
ncu: python .../width_mb.py --once (one launch of each kernel)"""
import json
import sys
from pathlib import Path

import cupy as cp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from kernels_cuda.fam_histogram import histogram_data  # noqa: E402

TYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long", 16: "uint4"}
SRC = r'''
extern "C" __global__ void naive_W_L(const T *data, int *hist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        T v = LOAD;
        hist[LOW & 0xff]++;
    }
}
'''
code = []
for w, t in TYPES.items():
    for how, load in (("l1", "data[i]"), ("cg", "__ldcg(&data[i])")):
        low = "v.x" if w == 16 else "(unsigned)v"
        code.append(SRC.replace("_W_L", f"_{w}_{how}").replace("T", t).replace("LOAD", load).replace("LOW", low))
mod = cp.RawModule(code="\n".join(code))
N = 1 << 24
base = histogram_data(N, np.random.default_rng(0)).astype(np.uint32)
hist = cp.zeros(256, cp.int32)


def arr(w):
    a = np.zeros((N, max(1, w // 4)), np.uint32) if w >= 4 else np.zeros(N, {1: np.uint8, 2: np.uint16}[w])
    if w >= 4:
        a[:, 0] = base
    else:
        a[:] = base
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


once = sys.argv[1:2] == ["--once"]
if not once:
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
for w in TYPES:
    d = arr(w)
    for how in ("l1", "cg"):
        k = mod.get_function(f"naive_{w}_{how}")
        fn = lambda: k((N // 256,), (256,), (d, hist, np.int32(N)))
        if once:
            fn()
            continue
        print(json.dumps({"width": w, "load": how, "ms": round(timed(fn), 4)}), flush=True)
    del d
cp.cuda.Device().synchronize()
