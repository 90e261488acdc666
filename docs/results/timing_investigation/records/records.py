"""Per-thread records of R words written (or read) with R scalar instructions: what an
L2 store transaction is.  A warp's request then touches R lines (up to 32) and
min(4R, 32) sectors, so time by lines and time by sectors part at R = 2..16; `pair16`
writes the same 32 sectors a request as `st16` but in adjacent pairs (sectors 0,1 of a
line, then 2,3) where `st16` writes 0,2 then 1,3.  Every case moves 64 MiB.

Run on the GPU:  python records.py > records_GPU.jsonl   (ncu: python records.py --once NAME...)
"""
import json
import sys
from pathlib import Path

import numpy as np
try:
    import cupy as cp
except ImportError:
    cp = None

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "racy"))
from sweep import timed  # noqa: E402  (median of 9 CUDA-event timings after 3 warm-ups)

SRC = r'''
extern "C" {
// thread t writes words t*R .. t*R+R-1, one store instruction each
__global__ void st_rec(float *out, int r, int nthreads) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    for (int j = 0; j < r; ++j) out[(size_t)t * r + j] = (float)(t + j);
}
// 16 words a thread, lanes in pairs on a line: lane 2m+e writes line m's sector e (words
// 0..7), then its sector e+2 (words 8..15)
__global__ void st_pair16(float *out, int nthreads) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    size_t base = (size_t)(t >> 1) * 32 + (t & 1) * 8;
    for (int j = 0; j < 16; ++j) out[base + (j & 7) + (j >> 3) * 16] = (float)(t + j);
}
// thread t reads words t*R .. t*R+R-1, one load instruction each, and writes their sum
__global__ void ld_rec(const float *in, float *out, int r, int nthreads) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    float s = 0.f;
    for (int j = 0; j < r; ++j) s += in[(size_t)t * r + j];
    out[t] = s;
}
}
'''
WORDS = 1 << 24            # 64 MiB a case
CASES = [(f"st{r}", "st_rec", r) for r in (1, 2, 3, 4, 8, 16, 32)] + [("pair16", "st_pair16", 16)] + \
        [(f"ld{r}", "ld_rec", r) for r in (1, 4, 16, 32)]


def main():
    once = sys.argv[1:2] == ["--once"]
    want = set(sys.argv[2:]) if once else None
    mod = cp.RawModule(code=SRC)
    buf = cp.ones(WORDS, cp.float32)
    out = cp.zeros(WORDS, cp.float32)
    if not once:
        print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    for name, kern, r in CASES:
        if want and name not in want:
            continue
        nt = WORDS // r
        f = mod.get_function(kern)
        if kern == "st_rec":
            fn = lambda: f((-(-nt // 256),), (256,), (out, np.int32(r), np.int32(nt)))
        elif kern == "st_pair16":
            fn = lambda: f((-(-nt // 256),), (256,), (out, np.int32(nt)))
        else:
            fn = lambda: f((-(-nt // 256),), (256,), (buf, out, np.int32(r), np.int32(nt)))
        if once:
            fn()
        else:
            print(json.dumps({"case": name, "kernel": kern, "r": r, "threads": nt, "ms": round(timed(fn), 4)}),
                  flush=True)
    cp.cuda.Device().synchronize()


if __name__ == "__main__":
    main()
