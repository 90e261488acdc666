"""Do a warp's back-to-back partial-sector stores merge in L1 when the warps reach them
spread out in time?  `../wmerge/` found nothing merged where each lane writes part of a
sector of its own (lanes 32 bytes or more apart), in kernels that only store, yet
probe/fem-p1-element-quad7 (nine floats 36 bytes apart, back to back, after 28 sinf a
thread) reached L2 with about a third of the sectors its requests touch.

Each thread computes S dependent sinf steps, then writes its record of K floats field by
field, back to back (lanes 4K bytes apart), 2^23 records.

python smerge.py > smerge_GPU.jsonl     median of 9 CUDA-event timings each
python smerge.py --once [NAME ...]     one launch each (for ncu)
python smerge.py --src                 the CUDA source"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "racy"))
from sweep import timed  # noqa: E402

KS = (6, 8, 9, 12)
SS = (0, 4, 16, 48)
RECORDS = 1 << 23


def src() -> str:
    out = []
    for k in KS:
        for s in SS:
            out.append(f'''extern "C" __global__ void k{k}_s{s}(float *out, int records) {{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= records) return;
    float v = c * 1e-3f;
#pragma unroll 1
    for (int t = 0; t < {s}; ++t) v = sinf(v) + 1.0f;
#pragma unroll
    for (int f = 0; f < {k}; ++f) out[(size_t)c * {k} + f] = v + f;
}}''')
    return "\n".join(out)


def cases():
    for k in KS:
        for s in SS:
            yield f"k{k}_s{s}", k, s


def main():
    if sys.argv[1:2] == ["--src"]:
        print(src())
        return
    import cupy as cp
    once = sys.argv[1:2] == ["--once"]
    want = set(sys.argv[2:]) if once else None
    mod = cp.RawModule(code=src())
    buf = cp.zeros(RECORDS * max(KS) + 64, cp.float32)
    if not once:
        print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
        warm = cp.zeros(1 << 28, cp.float32)
        for _ in range(100):
            warm += 1.0
    for name, k, s in cases():
        if want and name not in want:
            continue
        f = mod.get_function(name)
        fn = lambda: f((RECORDS // 256,), (256,), (buf, np.int32(RECORDS)))
        if once:
            fn()
            continue
        ms = timed(fn)
        print(json.dumps({"case": name, "k": k, "s": s, "records": RECORDS, "ms": round(ms, 4)}), flush=True)
    cp.cuda.Device().synchronize()


if __name__ == "__main__":
    main()
