"""urow.py's rows again, in a loop nvcc unrolls by four rather than fully or not at all:
the trip count is a kernel argument (16 at run time), with no pragma.  Session 54 kept the
previous-trip rule for such loops (a group's trips go out together); does the next group
of four still find the sector the group before it brought in?

python urow2.py > urow2_GPU.jsonl      median of 9 CUDA-event timings each
python urow2.py --once [NAME ...]     one launch each (for ncu)
python urow2.py --src                 the CUDA source"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "racy"))
import urow  # noqa: E402
from urow import N, R, SHS  # noqa: E402


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


if __name__ == "__main__":
    urow.main(src, cases, args)
