"""Loop-invariant loads: a loop condition's load whose address does not change in the loop
is made once, before the loop.

``for (j = off[i]; j < off[i + 1]; ++j)`` reads ``off[i + 1]`` on every test as the
source says; nvcc loads it once before the loop when nothing in the loop can write
memory (the SASS of ``fnv_strings`` in ``kernels_cuda/probes43.cu`` loads both ``off``
words once, and ncu counts 71 load requests a warp where the emulator made 127).
``hoist_condition_loads`` moves such a load, with the arithmetic of its address, from the
loop's condition to just before the loop, so that the counters and the timing model see
one load a loop entry, as the GPU makes.

What is moved: the straight-line start of a ``for`` or ``while`` condition (the code a
loop runs on every test, before any branch of ``&&`` / ``||``), its loads (not
``volatile``) and pure arithmetic, where every register they read is written nowhere in
the loop except by another moved instruction.  Only loops with no store, atomic,
barrier, ``__syncwarp``, fence or ``printf`` anywhere inside are touched: the value read
before the loop is then the value every test would read, so the results do not change.
A loop that waits on a plain (not ``volatile``) load for another thread's write, as in
``while (flag[0] == 0) {}``, then waits for ever as nvcc's code does on the GPU, and the
emulator's step budget reports it; ``volatile`` (or an atomic) makes it work on both.

Limitations: nvcc also hoists loads from a loop's body, and past stores it can prove do
not alias (``__restrict__``); simt moves only condition loads of loops that write no
memory, and no loop's body.  A ``do``-``while`` loop's condition is left where it is.
"""
from __future__ import annotations

from .cse import _PURE
from .ir import Ins, Op, Reg
from .loops import loops
from .regalloc import regs_of

_WRITES = {Op.STORE, Op.ATOM, Op.BAR, Op.SYNCWARP, Op.PRINTF}


def hoist_condition_loads(code: list[Ins], fences=()) -> int:
    """Move, in place, each loop condition's invariant loads (and their address arithmetic)
    to before the loop's ``LOOPINIT``; ``fences``: pcs a ``__threadfence()`` stands before
    (updated in place where they move).  Returns how many loads were moved."""
    writes: dict[int, int] = {}                # id(register) -> how many instructions write it
    for ins in code:
        for r in regs_of(ins.dst):
            writes[id(r)] = writes.get(id(r), 0) + 1
    moved = 0
    # innermost loops first; a move keeps every pc outside [LOOPINIT, end of the moved
    # prefix) where it was, so the other loops' pcs stay valid
    for top, back in loops(code):
        init = top - 1
        if init < 0 or code[init].op != Op.LOOPINIT:
            continue                           # a do-while loop: its condition runs after the body
        if any(code[p].op in _WRITES for p in range(top, back + 1)) \
                or any(top <= f <= back for f in fences):
            continue
        written = {id(r) for p in range(top, back + 1) for r in regs_of(code[p].dst)}
        hoist: list[int] = []
        invariant: set[int] = set()
        end = top
        while end < back and (code[end].op in _PURE or code[end].op in (Op.LOAD, Op.MOV)):
            ins = code[end]
            d = ins.dst
            ok = (ins.op != Op.MOV and type(d) is Reg and not d.is_var and writes.get(id(d)) == 1
                  and not ins.info.get("volatile")
                  and all(type(a) is not Reg or id(a) not in written or id(a) in invariant
                          for a in ins.args))
            if ok:
                hoist.append(end)
                invariant.add(id(d))
            end += 1
        if not any(code[p].op == Op.LOAD for p in hoist):
            continue
        # targets into the block being reordered: only the back jump's, to its top
        if any(ins.target >= 0 and init <= ins.target < end and not (ins.target == top and ins.op == Op.JUMP)
               for ins in code) or any(init <= f < end for f in fences):
            continue
        depth = code[init].depth
        moving = set(hoist)
        rest = [p for p in range(top, end) if p not in moving]
        block = [code[p] for p in hoist] + [code[init]] + [code[p] for p in rest]
        for p in hoist:
            code[p].depth = depth
        code[init:end] = block
        new_top = init + len(hoist) + 1
        for ins in code:
            if ins.op == Op.JUMP and ins.target == top:
                ins.target = new_top
        moved += sum(code[p].op == Op.LOAD for p in hoist)
    return moved
