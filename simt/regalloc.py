"""Reuse register slots of temporaries (linear scan over the flat IR).

Lowering gives every temporary its own register; a big kernel has hundreds, and each
is an array of one value per lane of the batch.  A temporary lives from its definition
to its last use, mostly inside one statement of structured code, so its live range is an
interval of the instruction list; temporaries whose intervals do not overlap share a
slot (slots are per lane, so warps at different instructions never collide).  A
temporary written before a loop and read inside it (a condition's load that
``simt.licm`` moved out) lives to the loop's end, as every trip reads it.  Named
variables and built-ins keep their own slots.
"""
from __future__ import annotations

from .ir import KernelIR, Op, Reg


def regs_of(x):
    """The registers among an instruction's operand(s): a Reg, or the Regs of a list."""
    if isinstance(x, Reg):
        yield x
    elif isinstance(x, (list, tuple)):
        for y in x:
            if isinstance(y, Reg):
                yield y


def live_ranges(code) -> tuple[dict[int, int], dict[int, int], dict[int, Reg]]:
    """Per register (by id): the pc of its first and of its last mention, and the register.
    A value mentioned before a loop and inside it stays live to the loop's back edge (a
    loop: a backward ``JUMP``), nested loops included.  Shared by ``compact`` and
    ``simt.occupancy.live_peak``."""
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    byid: dict[int, Reg] = {}
    for pc, ins in enumerate(code):
        for r in (*regs_of(ins.args), *regs_of(ins.dst), *regs_of(ins.ereg)):
            k = id(r)
            byid[k] = r
            first.setdefault(k, pc)
            last[k] = pc
    loops = back_edges(code)
    if loops:
        for k in byid:
            last[k] = through_loops(first[k], last[k], loops)
    return first, last, byid


def back_edges(code) -> list[tuple[int, int]]:
    """(top, back) of each loop: a backward ``JUMP`` and its target."""
    return [(ins.target, pc) for pc, ins in enumerate(code) if ins.op == Op.JUMP and 0 <= ins.target < pc]


def through_loops(first: int, last: int, loops) -> int:
    """The end of a range from ``first`` to ``last`` once it lasts over the whole of each
    loop it enters (a value made before a loop and used in it is read every trip)."""
    grown = True
    while grown:
        grown = False
        for top, back in loops:
            if first < top <= last < back:
                last, grown = back, True
    return last


def compact(ir: KernelIR) -> None:
    first, last, byid = live_ranges(ir.code)
    pinned = [r for r in ir.regs if r.is_var or r.builtin]
    temps = sorted((k for k, r in byid.items() if not (r.is_var or r.builtin)), key=lambda k: first[k])
    slots: list[Reg] = []
    for r in pinned:
        r.slot = len(slots)
        slots.append(r)
    busy: dict[str, list[list[int]]] = {}      # dtype -> [[slot, busy_until], ...]
    for k in temps:
        r = byid[k]
        pool = busy.setdefault(r.dtype.str, [])
        for entry in pool:
            if entry[1] < first[k]:
                r.slot = entry[0]
                entry[1] = last[k]
                break
        else:
            r.slot = len(slots)
            slots.append(r)
            pool.append([r.slot, last[k]])
    ir.regs = slots
