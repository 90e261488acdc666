"""Common loads: a second load of the same address in straight-line code reuses the first.

nvcc loads a value once where the source reads it twice with nothing in between that
could change it: ``a[i] * a[i]``, or a stencil's neighbours read for two sums (the Sobel
filter of ``kernels_cuda/probes7.cu`` reads four of its eight neighbours twice; its sm_90
SASS loads each once, and ncu counts 8 load requests a warp where the emulator made 12).
``eliminate_common_loads`` turns the later load into a copy of the earlier one's result,
so that the counters (requests, sectors, wavefronts) and the timing model see the loads
the GPU makes.

Two loads are one when they are in one straight-line run of the IR (no jump target, no
branch, mask change, barrier or fence between them) or the second is in the body of an
``if`` (or its ``else``) that follows the first's run, read the same type from addresses
with the same value number (the same operation on operands with the same value numbers;
a variable's number changes when it is written), and no store or atomic comes between
them.  A load through a ``volatile`` pointer is never merged.  An ``if`` at the join of
an ``if`` without an ``else`` (after a ``&&``'s right side) sees only what held both
before that ``if`` and after its body: the body's loads were made by some lanes only.

Limitations: only within straight-line code and into the bodies of an ``if`` after it
(nvcc also merges loads after a join and hoists them out of loops); value numbers see no
algebra (``a[i + 1]`` and ``a[1 + i]`` are two loads); a merged load is checked for races and bounds once, as the GPU makes it
once.
"""
from __future__ import annotations

from collections import Counter
from itertools import count

import numpy as np

from .ir import Const, Ins, Op, Reg, Uniform

_PURE = {Op.BIN, Op.UN, Op.CAST, Op.FMA, Op.SELECT}
_BOUNDARY = {Op.IF, Op.ELSE, Op.LOOPINIT, Op.LOOPTEST, Op.BODYINIT, Op.JUMP, Op.KILL, Op.BAR,
             Op.SYNCWARP, Op.EXIT, Op.PRINTF, Op.ASSERT}
_CLOBBER = {Op.STORE, Op.ATOM}      # (calls write no memory: atomics are ATOM, fences are ``fences``)


def _size(ctype) -> int:
    from .ctypes_ import sizeof
    try:
        return sizeof(ctype)
    except TypeError:
        return 1 << 30                   # unknown: overlaps everything


def _common(a: dict, b: dict) -> dict:
    """What two states both hold, alike."""
    return {k: v for k, v in a.items() if k in b and b[k] == v}


def eliminate_common_loads(code: list[Ins], fences=(), new_reg=None) -> int:
    """Rewrite, in place, each load that repeats an earlier one into a ``MOV`` of the
    earlier one's result, and (given ``new_reg(dtype)``, a fresh register) each store
    that writes back the value a load just read from its address into a ``MOV`` to a
    register nothing reads (``p[i] = q`` after ``q = p[i]`` stores only the members the
    code changed, as nvcc's SASS does); ``fences``: pcs a ``__threadfence()`` stands
    before.  Returns how many loads and stores it removed.

    A store or atomic forgets every load except those from the same base address at a
    constant offset that does not overlap it (a struct's other members)."""
    targeted = Counter(ins.target for ins in code if ins.target >= 0)
    starts = set(targeted) | set(fences)
    version: dict[int, int] = {}        # register slot -> how many times written so far
    vn: dict[tuple, object] = {}        # (slot, version) -> value number of what it holds
    table: dict[tuple, object] = {}     # operation on value numbers -> its value number
    loads: dict[tuple, tuple] = {}      # load key -> (register, version, (base, lo, hi))
    affine: dict[object, tuple] = {}    # value number -> (base value number, constant offset)
    fresh = count()
    merged = 0

    def span(addr_vn, ctype):
        base, off = affine.get(addr_vn, (addr_vn, 0))
        return base, off, off + _size(ctype)

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

    def forget():
        vn.clear()
        table.clear()
        loads.clear()

    pre_if: dict[int, tuple] = {}       # an if's else-body start -> what held at the if
    joins: dict[int, tuple] = {}        # the join of an if without an else -> what held at the if
    for p, ins in enumerate(code):
        op = ins.op
        if p in pre_if:
            # an else (its if's target): what held before the if holds in its body too
            vn, table, loads, affine = (dict(x) for x in pre_if.pop(p))
        elif op == Op.IF and p in joins:
            # an if at the join of an if without an else (``a && x[i] > 0``'s right side):
            # its lanes come from before that if or through its body, so only what held at
            # both holds here, not what the body alone loaded
            vn, table, loads, affine = (_common(a, b) for a, b in zip(joins.pop(p), (vn, table, loads, affine)))
        elif p in starts or (op in _BOUNDARY and op != Op.IF):
            forget()
        if op == Op.IF:
            if ins.target is not None and ins.target >= 0:
                # an if's body runs on some of the lanes that made the loads before it,
                # which nvcc's value numbering also reuses there (a predicated
                # ``phi -= sm[k] * r`` after ``sm[k] * r3``: plummer_accpot in probes96.cu)
                state = (dict(vn), dict(table), dict(loads), dict(affine))
                if code[ins.target].op == Op.ELSE:
                    pre_if[ins.target] = state
                elif targeted[ins.target] == 1:
                    joins[ins.target] = state
            else:
                forget()
        d = ins.dst
        key = n = None
        if type(d) is Reg:
            args = tuple(num(a) for a in ins.args)
            if None not in args:
                if op == Op.LOAD and not ins.info.get("volatile"):
                    key = ("ld", str(ins.ctype), d.dtype.str, args[0])
                elif op in _PURE:
                    key = (op.name, ins.sub, str(ins.ctype), d.dtype.str, args)
                elif op == Op.MOV:
                    n = args[0]
        if op == Op.LOAD and key in loads:
            r, v, _ = loads[key]
            if version.get(r.slot, 0) == v and r.dtype == d.dtype:
                code[p] = Ins(Op.MOV, ins.coord, ins.depth, dst=d, args=(r,),
                              info={"merged_load": True})
                merged += 1
        if op == Op.STORE and new_reg is not None and len(ins.args) == 2 and type(ins.args[1]) is Reg:
            src = ins.args[1]
            got = loads.get(("ld", str(ins.ctype), src.dtype.str, num(ins.args[0])))
            if got is not None and version.get(got[0].slot, 0) == got[1] \
                    and vn.get((got[0].slot, got[1])) == num(src):
                code[p] = Ins(Op.MOV, ins.coord, ins.depth, dst=new_reg(src.dtype), args=(src,),
                              info={"dead_store": True})
                merged += 1
                continue
        if key is not None:
            n = table.setdefault(key, ("v", next(fresh)))
            if op == Op.BIN and ins.sub in ("add", "sub"):
                c = [k for k, x in enumerate(ins.args) if type(x) is Const and np.asarray(x.value).dtype.kind in "iu"]
                if len(c) == 1 and (ins.sub == "add" or c[0] == 1):
                    k = c[0]
                    base, off = affine.get(args[1 - k], (args[1 - k], 0))
                    step = int(np.asarray(ins.args[k].value))
                    affine[n] = (base, off + (step if ins.sub == "add" else -step))
        for r in (d if isinstance(d, list) else (d,) if d is not None else ()):
            version[r.slot] = version.get(r.slot, 0) + 1
        if n is not None:
            vn[(d.slot, version[d.slot])] = n
        if key is not None and code[p].op == Op.LOAD:
            loads[key] = (d, version[d.slot], span(key[3], ins.ctype))
        if op in _CLOBBER:
            a = num(ins.args[0]) if ins.args else None
            if a is None or op == Op.ATOM:
                loads.clear()
            else:       # keep what the store provably does not touch: its base's other words
                b, lo, hi = span(a, ins.ctype)
                for k in [k for k, (_, _, (b2, lo2, hi2)) in loads.items()
                          if b2 != b or (lo2 < hi and lo < hi2)]:
                    del loads[k]
    return merged
