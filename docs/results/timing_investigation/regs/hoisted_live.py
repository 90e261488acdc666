"""Would the register estimate come closer to nvcc's count if the values nvcc hoists out
of a loop lived across the whole loop (session 64, ``aq-wesely-drydep-budget``: 72
registers from nvcc, 34 estimated, its constant terms held across a grid-stride loop)?
For every probe kernel whose nvcc count is committed (``../unseen*/probes*_res.txt``),
the estimate as the model makes it and with the loop-invariant values of
``simt.issue`` held from the top of their outermost loop to its back edge: those of
``loop_invariant_pcs``, and of the extended rule (``_invariant(ir, True)``) without and
with its ``__constant__`` loads.  Occupancy is blocks an SM by registers and threads at
the probe's own block size.  Runs here, no GPU:
python docs/results/timing_investigation/regs/hoisted_live.py > docs/results/timing_investigation/regs/hoisted_live.txt"""
import glob
import re
from pathlib import Path

import numpy as np

import simt
from kernels_cuda import timing_probes as tp
from simt.ir import Op, Reg
from simt.issue import _full, _invariant, loop_invariant_pcs
from simt.loops import loops
from simt.occupancy import _width, blocks_by_registers, bounded_registers, estimate_registers
from simt.promote import register_arrays
from simt.regalloc import back_edges, live_ranges, through_loops

BLOCK = {}
for e in tp.entries():
    BLOCK.setdefault((Path(e.source).name, e.kernel), int(np.prod(e.block)))


def held(ir, pcs) -> int:
    """estimate_registers with each value written at ``pcs`` live over its outermost loop."""
    code = ir.code
    first, last, byid = live_ranges(code)
    full = _full(ir)
    lps = loops(code)
    outer = [(t, b) for t, b in lps if (t, b) not in full
             and not any(t2 <= t and b <= b2 and (t2, b2) != (t, b) for t2, b2 in lps)]
    for p in pcs:
        d = code[p].dst
        for t, b in outer:
            if t <= p <= b and type(d) is Reg:
                first[id(d)] = min(first[id(d)], max(0, t - 1))
                last[id(d)] = max(last[id(d)], b)
    delta = np.zeros(len(code) + 1, np.int64)
    for k, r in byid.items():
        delta[first[k]] += _width(r)
        delta[last[k] + 1] -= _width(r)
    for a, z, words in register_arrays(ir):
        delta[a] += words
        delta[through_loops(a, z, back_edges(code)) + 1] -= words
    return int(min(255, max(8, np.cumsum(delta).max() + 3)))


rows, seen = [], set()
for res in sorted(glob.glob("docs/results/timing_investigation/*/probes*_res.txt")):
    f = Path(res).name.replace("_res.txt", ".cu")
    if not (Path("kernels_cuda") / f).exists():
        continue
    mod = simt.Module.from_file(Path("kernels_cuda") / f)
    for m in re.finditer(r"Function (\w+):\n\s*REG:(\d+)", Path(res).read_text()):
        if (f, m.group(1)) in seen:
            continue
        try:
            fn = mod.get_function(m.group(1))
        except Exception:                 # a kernel the probe file holds but no probe runs
            continue
        seen.add((f, m.group(1)))
        ir, code = fn.ir, fn.ir.code
        ext = _invariant(ir, True)
        est = {"the model": estimate_registers(ir),
               "loop_invariant_pcs held": held(ir, loop_invariant_pcs(ir)),
               "extended, no loads, held": held(ir, [p for p in ext if code[p].op not in (Op.MOV, Op.LOAD)]),
               "extended, loads, held": held(ir, [p for p in ext if code[p].op != Op.MOV])}
        rows.append((int(m.group(2)), BLOCK.get((f, m.group(1)), 256), fn.bounds,
                     {k: bounded_registers(v, fn.bounds) for k, v in est.items()}))


def occ(regs, threads):
    return min(2048 // threads, 32, blocks_by_registers(regs, threads))


print(f"{len(rows)} probe kernels: the estimate minus nvcc's count")
for label in rows[0][3]:
    d = np.array([r[3][label] - r[0] for r in rows])
    same = sum(occ(r[3][label], r[1]) == occ(r[0], r[1]) for r in rows)
    print(f"{label:26s} median {np.median(d):+5.1f}  mean |d| {np.abs(d).mean():5.2f}  within 3: {np.sum(np.abs(d) <= 3):4d}"
          f"  more than 3 over: {np.sum(d > 3):4d}  same blocks an SM: {same:4d}")
