"""Does L1 serve a lane's own row read a float a trip when nvcc unrolls the loop fully?
probe/gcp-logit-sampled-loss (../unseen153/) reads three random 64-byte factor rows a
float a trip in a 16-trip loop nvcc unrolls: Nsight counts 82% of its load sectors as L1
hits, where simt (session 38's rule, ../dslash/) keeps a lane's sector from the trip
before only where the block's share of L1 holds it.

Each of 2^22 threads (blocks of 128) reads F rows of 16 floats (rows at random of a
65,536-row table each, indices precomputed) a float a trip and sums their product:
  u: the 16-trip loop unrolled fully; l: #pragma unroll 1.
F is 1 or 3; SH is the dynamic shared memory a block asks for (0, 48 or 200 KiB), which
shrinks L1 (and the blocks an SM).

python urow.py > urow_GPU.jsonl       median of 9 CUDA-event timings each
python urow.py --once [NAME ...]     one launch each (for ncu)
python urow.py --src                 the CUDA source"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "racy"))
from sweep import timed  # noqa: E402

N = 1 << 22
ROWS = 65536
R = 16
BLOCK = 128
SHS = (0, 48 * 1024, 200 * 1024)


def src() -> str:
    out = []
    for f in (1, 3):
        for kind, prag in (("u", "#pragma unroll"), ("l", "#pragma unroll 1")):
            terms = " * ".join(f"T{q}[i{q} * {R} + r]" for q in range(f))
            idx = "\n    ".join(f"int i{q} = idx[{q} * n + t];" for q in range(f))
            tabs = ", ".join(f"const float *T{q}" for q in range(f))
            out.append(f'''extern "C" __global__ void f{f}{kind}(const int *idx, {tabs}, float *out, int n) {{
    extern __shared__ float pad[];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    {idx}
    float m = 0.0f;
{prag}
    for (int r = 0; r < {R}; ++r) m += {terms};
    out[t] = m;
    if (m == -1.0f) pad[threadIdx.x] = m;
}}''')
    return "\n".join(out)


def cases():
    for f in (1, 3):
        for kind in "ul":
            for sh in SHS:
                yield f"f{f}{kind}_sh{sh // 1024}", f"f{f}{kind}", f, sh


def inputs(xp):
    rng = np.random.default_rng(0)
    idx = rng.integers(0, ROWS, 3 * N).astype(np.int32)
    tabs = [rng.random(ROWS * R, np.float32) for _ in range(3)]
    return xp.asarray(idx), [xp.asarray(a) for a in tabs], xp.zeros(N, np.float32)


def args(name, f, idx, tabs, out):
    return [idx, *tabs[:f], out, np.int32(N)]


def main(src=src, cases=cases, args=args):
    """Time (or, with --once, launch once) each case of ``cases``; ``src``, ``cases`` and
    ``args`` are this module's or another variant's (urow2.py)."""
    if sys.argv[1:2] == ["--src"]:
        print(src())
        return
    import cupy as cp
    once = sys.argv[1:2] == ["--once"]
    want = set(sys.argv[2:]) if once else None
    mod = cp.RawModule(code=src())
    idx, tabs, out = inputs(cp)
    if not once:
        print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    for name, kern, f, sh in cases():
        if want and name not in want:
            continue
        fn_ = mod.get_function(kern)
        if sh > 48 * 1024:
            fn_.max_dynamic_shared_size_bytes = sh
        fn = lambda: fn_((N // BLOCK,), (BLOCK,), tuple(args(name, f, idx, tabs, out)), shared_mem=sh)
        if once:
            fn()
            continue
        ms = timed(fn)
        print(json.dumps({"case": name, "f": f, "kind": kern[-1], "shared": sh, "ms": round(ms, 4)}), flush=True)
    cp.cuda.Device().synchronize()


if __name__ == "__main__":
    main()
