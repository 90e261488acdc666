"""When does L1 merge a warp's partial-sector stores before they leave for L2?  Each
thread writes one record of K fields of E bytes (lanes K x E bytes apart), field by field:
back to back (the loop unrolled fully) or a trip apart (#pragma unroll 1).  E in 1, 2, 4,
8 bytes, K in 2 .. 32, into 16 MiB (L2 holds it) and, for E = 4, into 128 MiB.

python wmerge.py > wmerge_GPU.jsonl          median of 9 CUDA-event timings each
python wmerge.py --once [NAME ...]          one launch each (for ncu)
python wmerge.py --src                      the CUDA source (for nvcc / cuobjdump)"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "racy"))
from sweep import timed  # noqa: E402

TYPES = {1: "unsigned char", 2: "unsigned short", 4: "float", 8: "double"}
KS = (2, 3, 4, 5, 6, 8, 12, 16, 32)
SMALL, BIG = 16 << 20, 128 << 20


def src() -> str:
    out = []
    for e, t in TYPES.items():
        for k in KS:
            for kind, prag in (("u", "#pragma unroll"), ("l", "#pragma unroll 1")):
                out.append(f'''extern "C" __global__ void w{e}_k{k}_{kind}({t} *out, int records) {{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= records) return;
{prag}
    for (int f = 0; f < {k}; ++f) out[(size_t)c * {k} + f] = ({t})(c + f);
}}''')
    return "\n".join(out)


def cases():
    for e in TYPES:
        for k in KS:
            for kind in "ul":
                yield f"w{e}_k{k}_{kind}_16m", f"w{e}_k{k}_{kind}", e, k, kind, SMALL
    for k in KS:
        for kind in "ul":
            yield f"w4_k{k}_{kind}_128m", f"w4_k{k}_{kind}", 4, k, kind, BIG


def main():
    if sys.argv[1:2] == ["--src"]:
        print(src())
        return
    import cupy as cp
    once = sys.argv[1:2] == ["--once"]
    want = set(sys.argv[2:]) if once else None
    mod = cp.RawModule(code=src())
    buf = cp.zeros(BIG // 4 + 64, cp.float32)
    if not once:
        print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
        warm = cp.zeros(1 << 28, cp.float32)
        for _ in range(100):
            warm += 1.0
    for name, kern, e, k, kind, size in cases():
        if want and name not in want:
            continue
        rec = size // (e * k)
        f = mod.get_function(kern)
        fn = lambda: f((-(-rec // 256),), (256,), (buf, np.int32(rec)))
        if once:
            fn()
            continue
        ms = timed(fn)       # median of 9 CUDA-event timings after 3 warm-ups
        print(json.dumps({"case": name, "e": e, "k": k, "kind": kind, "bytes": size, "records": rec,
                          "ms": round(ms, 4)}), flush=True)
    cp.cuda.Device().synchronize()


if __name__ == "__main__":
    main()
