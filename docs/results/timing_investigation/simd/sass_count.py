"""SASS instructions nvcc (sm_90) spends on each SIMD intrinsic (simt.simd): one kernel per
intrinsic, o[t] = f(x[t], y[t]), against the same kernel with a ^ b; the difference plus
one is the intrinsic's own instructions.  Needs nvcc and cuobjdump (the GPU machine).

    python docs/results/timing_investigation/simd/sass_count.py OUT.json
"""
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from simt.simd import SIMD_ARITY  # noqa: E402

names = sorted(SIMD_ARITY)
src = []
for k, nm in enumerate(["base"] + names):
    call = "a ^ b" if nm == "base" else f"{nm}(a{', b' if SIMD_ARITY[nm] == 2 else ''})"
    src.append(f'extern "C" __global__ void k_{nm}(const unsigned *x, const unsigned *y, unsigned *o) '
               f'{{ int t = blockIdx.x * blockDim.x + threadIdx.x; unsigned a = x[t], b = y[t]; o[t] = {call}; }}')
d = Path(tempfile.mkdtemp())
(d / "s.cu").write_text("\n".join(src) + "\n")
subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-O3", "-o", str(d / "s.cubin"), str(d / "s.cu")], check=True)
sass = subprocess.run(["cuobjdump", "-sass", str(d / "s.cubin")], check=True, capture_output=True, text=True).stdout
counts, ops, cur = {}, {}, None
for line in sass.splitlines():
    m = re.search(r"Function : k_(\w+)", line)
    if m:
        cur = m.group(1)
        counts[cur], ops[cur] = 0, []
        continue
    m = re.match(r"\s*/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
    if cur and m and m.group(2) not in ("NOP", "BRA", "EXIT"):
        counts[cur] += 1
        ops[cur].append(m.group(2))
base = counts.pop("base")
out = {nm: {"sass": counts[nm] - base + 1, "ops": [o for o in ops[nm]]} for nm in names}
Path(sys.argv[1]).write_text(json.dumps({"base": base, "base_ops": ops["base"], "intrinsics": out}, indent=1) + "\n")
for nm in names:
    print(f"{nm:16s} {out[nm]['sass']}")
