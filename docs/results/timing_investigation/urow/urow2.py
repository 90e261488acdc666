"""urow.py's rows again, in a loop nvcc unrolls by four rather than fully or not at all:
the trip count is a kernel argument (16 at run time), with no pragma.  Session 54 kept the
previous-trip rule for such loops (a group's trips go out together); does the next group
of four still find the sector the group before it brought in?

python urow2.py > urow2_GPU.jsonl      median of 9 CUDA-event timings each
python urow2.py --once [NAME ...]     one launch each (for ncu)
python urow2.py --src                 the CUDA source"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "racy"))
import urow  # noqa: E402
from urow import BLOCK, N, R, SHS, inputs  # noqa: E402


def src() -> str:
    out = []
    for f in (1, 3):
        terms = " * ".join(f"T{q}[i{q} * {R} + r]" for q in range(f))
        idx = "\n    ".join(f"int i{q} = idx[{q} * n + t];" for q in range(f))
        tabs = ", ".join(f"const float *T{q}" for q in range(f))
        out.append(f'''extern "C" __global__ void f{f}d(const int *idx, {tabs}, float *out, int n, int nr) {{
    extern __shared__ float pad[];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    {idx}
    float m = 0.0f;
    for (int r = 0; r < nr; ++r) m += {terms};
    out[t] = m;
    if (m == -1.0f) pad[threadIdx.x] = m;
}}''')
    return "\n".join(out)


def cases():
    for f in (1, 3):
        for sh in SHS:
            yield f"f{f}d_sh{sh // 1024}", f"f{f}d", f, sh


def args(name, f, idx, tabs, out):
    return [idx, *tabs[:f], out, np.int32(N), np.int32(R)]


def main():
    if sys.argv[1:2] == ["--src"]:
        print(src())
        return
    import cupy as cp
    from sweep import timed
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
        print(json.dumps({"case": name, "f": f, "kind": "d", "shared": sh, "ms": round(ms, 4)}), flush=True)
    cp.cuda.Device().synchronize()


if __name__ == "__main__":
    main()
