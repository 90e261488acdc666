"""wmerge2/ found a warp's nine back-to-back 4-byte stores into 36-byte records unmerged
(1.05) in a store-only kernel, where `probe/fem-p1-element-quad7` had L1 merge the same
nine stores 4.4 times.  Is it how busy the store path is?  Each thread computes SPIN
dependent sinf/fma steps, then writes its record of K floats, field by field, back to
back (the loop unrolled fully).  SPIN sets the stores' rate; K = 8 (records a sector
each), 9 and 12.  All into 128 MiB.

python wmerge3.py > wmerge3_GPU.jsonl        median of 9 CUDA-event timings each
python wmerge3.py --once [NAME ...]          one launch each (for ncu)
python wmerge3.py --src                      the CUDA source (for nvcc / cuobjdump)"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "racy"))
from sweep import timed  # noqa: E402

KS = (8, 9, 12)
SPINS = (0, 4, 16, 64, 256)
SIZE = 128 << 20


def src() -> str:
    out = []
    for k in KS:
        for s in SPINS:
            out.append(f'''extern "C" __global__ void k{k}_s{s}(float *out, int records) {{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= records) return;
    float x = c * 1e-7f;
    for (int s = 0; s < {s}; ++s) x = fmaf(sinf(x), 0.5f, x);
#pragma unroll
    for (int f = 0; f < {k}; ++f) out[(size_t)c * {k} + f] = x + f;
}}''')
    return "\n".join(out)


def cases():
    for k in KS:
        for s in SPINS:
            yield f"k{k}_s{s}", k, s


def main():
    if sys.argv[1:2] == ["--src"]:
        print(src())
        return
    import cupy as cp
    once = sys.argv[1:2] == ["--once"]
    want = set(sys.argv[2:]) if once else None
    mod = cp.RawModule(code=src())
    buf = cp.zeros(SIZE // 4 + 64, cp.float32)
    if not once:
        print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
        warm = cp.zeros(1 << 28, cp.float32)
        for _ in range(100):
            warm += 1.0
    for name, k, s in cases():
        if want and name not in want:
            continue
        rec = SIZE // (4 * k)
        f = mod.get_function(name)
        fn = lambda: f((-(-rec // 256),), (256,), (buf, np.int32(rec)))
        if once:
            fn()
            continue
        ms = timed(fn)       # median of 9 CUDA-event timings after 3 warm-ups
        print(json.dumps({"case": name, "k": k, "spin": s, "bytes": SIZE, "records": rec,
                          "ms": round(ms, 4)}), flush=True)
    cp.cuda.Device().synchronize()


if __name__ == "__main__":
    main()
