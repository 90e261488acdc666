"""simt.occupancy's register estimate against nvcc's count for every probe kernel whose
unseen run saved nvcc's resource usage (``../unseen*/probes*_res.txt``), and how simple
rescalings of the estimate would do (session 38).  Runs here, no GPU:
python docs/results/timing_investigation/regs/probes_compare.py > docs/results/timing_investigation/regs/probes_compare.txt"""
import glob
import re
from pathlib import Path

import numpy as np

import simt
from simt.occupancy import REG_OVERHEAD, blocks_by_registers, live_peak

rows, seen = [], set()
for res in sorted(glob.glob("docs/results/timing_investigation/*/probes*_res.txt")):
    f = Path(res).name.replace("_res.txt", ".cu")
    path = Path("kernels_cuda") / f
    if not path.exists():
        continue
    mod = simt.Module.from_file(path)
    for m in re.finditer(r"Function (\w+):\n\s*REG:(\d+)", Path(res).read_text()):
        name, n = m.group(1), int(m.group(2))
        if (f, name) in seen:
            continue
        try:
            fn = mod.get_function(name)
        except Exception:                 # a kernel the probe file holds but no probe runs
            continue
        seen.add((f, name))
        rows.append((f, name, n, live_peak(fn.ir)))

n = np.array([r[2] for r in rows], float)
live = np.array([r[3] for r in rows], float)


def occ(regs, threads=256):
    return min(2048 // threads, 32, blocks_by_registers(int(regs), threads))


def report(est, label):
    d = est - n
    same = sum(occ(e) == occ(x) for e, x in zip(est, n))
    over = n > 32
    print(f"{label:22s} median {np.median(d):+5.1f}  mean |d| {np.abs(d).mean():5.2f}  within 3: {np.sum(np.abs(d) <= 3):3d}"
          f"  same occupancy at 256 threads: {same:3d}  over 32 (nvcc {over.sum()}): caught {np.sum(est[over] > 32):2d},"
          f" false {np.sum((est > 32) & ~over):2d}")


print(f"{len(rows)} kernels (nvcc's count, minus the estimate)")
report(live + REG_OVERHEAD, f"live + {REG_OVERHEAD} (the model)")
for a in (1.5, 1.75, 2.0):
    for b in (0, 2, 4):
        report(np.round(a * live + b), f"{a} x live + {b}")
print()
print(f"{'file':14s} {'kernel':28s} {'nvcc':>4s} {'est':>4s}")
for f, name, r, lv in sorted(rows, key=lambda r: r[3] + REG_OVERHEAD - r[2]):
    if abs(lv + REG_OVERHEAD - r) > 8:
        print(f"{f:14s} {name:28s} {r:4d} {lv + REG_OVERHEAD:4d}")
