"""Do a warp's back-to-back stores merge in L1 when its lanes never share a sector within one
store but neighbouring records share sectors across stores (records of 36, 40, 44 ... bytes:
`probe/fem-p1-element-quad7`, `probe/lbm-d2q9-aos-bounceback`)?  wmerge/ measured records of
E x K bytes only up to K = 6 and at K = 8, 12, 16, 32 (sector-aligned from 32 bytes on).

Each thread writes one record of K fields of E bytes, field by field:
- `_u`: the loop unrolled fully, the K stores back to back;
- `_l`: `#pragma unroll 1`, the stores a loop trip apart;
- `_c`: as `_u`, after a chain of SPIN dependent sinf/fma steps (stores spread in time, as
  in fem-p1, where 28 sinf come first).
All into 128 MiB (DRAM-sized; L2 cannot hold it).

python wmerge2.py > wmerge2_GPU.jsonl        median of 9 CUDA-event timings each
python wmerge2.py --once [NAME ...]          one launch each (for ncu)
python wmerge2.py --src                      the CUDA source (for nvcc / cuobjdump)"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "racy"))
from sweep import timed  # noqa: E402

TYPES = {2: "unsigned short", 4: "float", 8: "double"}
KS = {4: (5, 6, 7, 8, 9, 10, 11, 12, 13, 16), 2: (9, 11, 17), 8: (3, 5)}
SIZE = 128 << 20
SPIN = 24


def src() -> str:
    out = []
    for e, t in TYPES.items():
        for k in KS[e]:
            for kind, prag in (("u", "#pragma unroll"), ("l", "#pragma unroll 1")):
                out.append(f'''extern "C" __global__ void w{e}_k{k}_{kind}({t} *out, int records) {{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= records) return;
{prag}
    for (int f = 0; f < {k}; ++f) out[(size_t)c * {k} + f] = ({t})(c + f);
}}''')
            if e == 4:
                out.append(f'''extern "C" __global__ void w{e}_k{k}_c({t} *out, int records) {{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= records) return;
    float x = c * 1e-7f;
    for (int s = 0; s < {SPIN}; ++s) x = fmaf(sinf(x), 0.5f, x);
#pragma unroll
    for (int f = 0; f < {k}; ++f) out[(size_t)c * {k} + f] = ({t})(x + f);
}}''')
    return "\n".join(out)


def cases():
    for e in TYPES:
        for k in KS[e]:
            for kind in ("ulc" if e == 4 else "ul"):
                yield f"w{e}_k{k}_{kind}", e, k, kind


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
    for name, e, k, kind in cases():
        if want and name not in want:
            continue
        rec = SIZE // (e * k)
        f = mod.get_function(name)
        fn = lambda: f((-(-rec // 256),), (256,), (buf, np.int32(rec)))
        if once:
            fn()
            continue
        ms = timed(fn)       # median of 9 CUDA-event timings after 3 warm-ups
        print(json.dumps({"case": name, "e": e, "k": k, "kind": kind, "bytes": SIZE, "records": rec,
                          "ms": round(ms, 4)}), flush=True)
    cp.cuda.Device().synchronize()


if __name__ == "__main__":
    main()
