"""Common loads: a second load of the same address in straight-line code reuses the first.

nvcc loads a value once where the source reads it twice with nothing in between that
could change it: ``a[i] * a[i]``, or a stencil's neighbours read for two sums (the Sobel
filter of ``kernels_cuda/probes7.cu`` reads four of its eight neighbours twice; its sm_90
SASS loads each once, and ncu counts 8 load requests a warp where the emulator made 12).
``eliminate_common_loads`` turns the later load into a copy of the earlier one's result,
so that the counters (requests, sectors, wavefronts) and the timing model see the loads
the GPU makes.

Two loads are one when they are in one straight-line run of the IR (no jump target, no
branch, mask change, barrier or fence between them), read the same type from addresses
with the same value number (the same operation on operands with the same value numbers;
a variable's number changes when it is written), and no store or atomic comes between
them.  A load through a ``volatile`` pointer is never merged.

Limitations: only within straight-line code (nvcc also merges loads across branches and
hoists them out of loops); value numbers see no algebra (``a[i + 1]`` and ``a[1 + i]``
are two loads); a merged load is checked for races and bounds once, as the GPU makes it
once.
"""
from __future__ import annotations

from itertools import count

import numpy as np

from .ir import Const, Ins, Op, Reg, Uniform

_PURE = {Op.BIN, Op.UN, Op.CAST, Op.FMA, Op.SELECT}
_BOUNDARY = {Op.IF, Op.ELSE, Op.LOOPINIT, Op.LOOPTEST, Op.BODYINIT, Op.JUMP, Op.KILL, Op.BAR,
             Op.SYNCWARP, Op.EXIT, Op.PRINTF, Op.ASSERT}
_CLOBBER = {Op.STORE, Op.ATOM}      # (calls write no memory: atomics are ATOM, fences are ``fences``)


def eliminate_common_loads(code: list[Ins], fences=()) -> int:
    """Rewrite, in place, each load that repeats an earlier one into a ``MOV`` of the
    earlier one's result; ``fences``: pcs a ``__threadfence()`` stands before.  Returns
    how many loads it merged."""
    starts = {ins.target for ins in code if ins.target >= 0} | set(fences)
    version: dict[int, int] = {}        # register slot -> how many times written so far
    vn: dict[tuple, object] = {}        # (slot, version) -> value number of what it holds
    table: dict[tuple, object] = {}     # operation on value numbers -> its value number
    loads: dict[tuple, tuple] = {}      # load key -> (register, version) holding its value
    fresh = count()
    epoch = 0                           # stores and atomics so far
    merged = 0

    def num(a):
        t = type(a)
        if t is Reg:
            k = (a.slot, version.get(a.slot, 0))
            return vn.get(k, ("r",) + k)
        if t is Const:
            v = np.asarray(a.value)
            return ("c", v.dtype.str, v.item())
        if t is Uniform:
            return ("u", a.index)
        return None

    for p, ins in enumerate(code):
        op = ins.op
        if p in starts or op in _BOUNDARY:
            vn.clear()
            table.clear()
            loads.clear()
        d = ins.dst
        key = n = None
        if type(d) is Reg:
            args = tuple(num(a) for a in ins.args)
            if None not in args:
                if op == Op.LOAD and not ins.info.get("volatile"):
                    key = ("ld", str(ins.ctype), d.dtype.str, args[0], epoch)
                elif op in _PURE:
                    key = (op.name, ins.sub, str(ins.ctype), d.dtype.str, args)
                elif op == Op.MOV:
                    n = args[0]
        if op == Op.LOAD and key in loads:
            r, v = loads[key]
            if version.get(r.slot, 0) == v and r.dtype == d.dtype:
                code[p] = Ins(Op.MOV, ins.coord, ins.depth, dst=d, args=(r,),
                              info={"merged_load": True})
                merged += 1
        if key is not None:
            n = table.setdefault(key, ("v", next(fresh)))
        for r in (d if isinstance(d, list) else (d,) if d is not None else ()):
            version[r.slot] = version.get(r.slot, 0) + 1
        if n is not None:
            vn[(d.slot, version[d.slot])] = n
        if key is not None and code[p].op == Op.LOAD:
            loads[key] = (d, version[d.slot])
        if op in _CLOBBER:
            epoch += 1
    return merged
