"""simt.occupancy.estimate_registers against nvcc's count (regs_h200.json, from regs.py on
the device) for every kernel of kernels_cuda/*.cu.  Runs here, no GPU:
python docs/results/timing_investigation/regs/compare.py > docs/results/timing_investigation/regs/compare.txt"""
import json
from pathlib import Path
import simt
from simt.occupancy import blocks_by_registers, estimate_registers

HERE = Path(__file__).parent
nv = json.loads((HERE / "regs_h200.json").read_text())["kernels"]
rows = []
for key, v in nv.items():
    f, name = key.split(":")
    path = Path("kernels_cuda") / f
    if "regs" not in v or not path.exists():
        continue
    est = estimate_registers(simt.Module.from_file(path).get_function(name).ir)
    rows.append((f, name, v["regs"], est))
print(f"{'file':16s} {'kernel':34s} {'nvcc':>4s} {'est':>4s} {'diff':>4s}  blocks/SM of 256 (nvcc, est)")
for f, name, n, e in sorted(rows, key=lambda r: (r[3] - r[2], r[0], r[1])):
    print(f"{f:16s} {name:34s} {n:4d} {e:4d} {e - n:+4d}  {min(8, blocks_by_registers(n, 256))} {min(8, blocks_by_registers(e, 256))}")
d = [e - n for _, _, n, e in rows]
same = sum(min(8, blocks_by_registers(n, 256)) == min(8, blocks_by_registers(e, 256)) for _, _, n, e in rows)
print(f"{len(rows)} kernels: estimate - nvcc from {min(d)} to {max(d)}; within 3: {sum(abs(x) <= 3 for x in d)}; "
      f"same occupancy at 256 threads a block: {same}")
