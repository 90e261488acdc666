"""What stops nvcc from hoisting the loads of a loop's unrolled trips, and which loops run
only the remainder it peels off them (``remainder_only``).

nvcc unrolls most loops whose trip count is known only at run time by 4
(``loops.runtime_unroll``), and simt has taken the four trips' global loads as in flight
together (``machine._load_depths``).  The sm_90 SASS of 532 such loops of the probes
(``docs/results/timing_investigation/unroll3/``) shows that this holds for about half of
the loops unrolled by 2 or more; in 67 of them a warp has one trip's loads in flight, as if
the loop were not unrolled at all.  What the SASS shows stands in the way, and what
``hoist_blockers`` looks for in a loop's body:

- ``store``: a global store or atomic through another pointer than a load's (no
  ``__restrict__`` on either), or through a pointer read from memory.  ptxas may not move
  the next trip's load above a store that may write its word (``integral_rows``: one load
  in flight; with ``__restrict__``, fifteen).
- ``branch``: an ``if`` that simt does not predicate: the next trip's loads wait behind the
  branch (``lj_forces``' cut-off test).
- ``divide``: a float or double divide by anything but a power of two, or a 64-bit
  integer divide or remainder by a variable: nvcc emits a slow path behind a branch
  (``FCHK`` / ``@!P0 BRA``) or a call, with the same effect.

On the 242 loops unrolled by 2 or more that are neither pointer chases nor already at the
cap of eight loads, this tells the one-trip loops from the others in 215 (unroll3/README.md).

The emulator's in-order warps already wait where such an instruction waits for the trip's
loaded data (a store of it, a divide's slow-path check, ``machine._SLOW_PATH``), so the
rule moves only loops whose blocker does not: a store of data that is ready (a flag, a
counter), or a branch on something else.  Of the 182 H200 probe rows whose loops it
changes, 8 moved by more than 2%, all slower, none across 1.5x (summed |log ratio| 39.79 ->
39.34; ``HOIST_BLOCKERS`` in ``simt.machine`` turns it off).

Limitations: the features were chosen on those same loops (in-sample).  nvcc predicates some
``if``s that simt leaves as branches (16 of the 23 loops flagged wrongly), and some loops
keep two or three of four trips in flight, where simt now takes one or four.  A register
budget can stop the hoisting too (``dm_probe_update``: 32 registers, one trip in flight;
with ``__launch_bounds__(256, 1)``, 55 registers and four trips); simt does not model that.
A same-pointer store at a run-time stride (``edt_columns``) is not flagged.
"""
from __future__ import annotations

from .ctypes_ import Pointer
from .ir import Const, Op, Reg, Uniform
from .loops import copied_from, counter_step, def_before, loop_test, test_vars

_CONTROL = {Op.LOOPINIT, Op.LOOPTEST, Op.JUMP}


def _bases(code, x, pc: int, pointers: frozenset, depth: int = 0) -> frozenset:
    """The pointers (pointer parameters, ``__device__`` and ``__constant__`` symbols) an
    address is computed from, with '?' for a pointer read from memory or a chain too long
    to follow."""
    if type(x) is Uniform:
        name = x.name
        return frozenset((name,)) if name in pointers or name.startswith(("gsym.", "csym.")) else frozenset()
    if type(x) is not Reg:
        return frozenset()
    if depth > 40:
        return frozenset("?")
    d = def_before(code, x, pc)
    if d is None:
        return frozenset()
    if d.op in (Op.BIN, Op.MOV, Op.CAST, Op.SELECT):
        out: frozenset = frozenset()
        for a in d.args:
            out |= _bases(code, a, d.pc, pointers, depth + 1)
        return out
    if d.op == Op.LOAD and x.dtype.itemsize == 8 and x.dtype.kind in "iu":
        return frozenset("?")
    return frozenset()


def _global(ins) -> bool:
    return ins.info.get("space") not in ("shared", "local", "const")


# machine._cost_key's divides whose SASS branches to a slow path or calls a routine
_SLOW_DIVIDES = {"fdiv", "ddiv", "idiv64_s", "idiv64_u"}


def _slow_divide(ins) -> bool:
    from .machine import _cost_key          # (machine imports this module)
    return ins.op == Op.BIN and ins.sub in ("div", "mod") and _cost_key(ins) in _SLOW_DIVIDES


def hoist_blockers(code, top: int, back: int, params=()) -> tuple:
    """The reasons (``store``, ``branch``, ``divide``) nvcc keeps the unrolled trips of the
    loop ``[top, back]`` from issuing their global loads together; empty where none.
    ``params``: the kernel's parameters (``simt.lower.Param``), for its pointers and which of
    them are ``__restrict__``."""
    pointers = frozenset(p.uniform.name for p in params if p.is_pointer and p.uniform is not None) | \
        frozenset(f[3].name for p in params for f in (p.fields or ()) if isinstance(f[1], Pointer))
    restrict = frozenset(p.uniform.name for p in params if p.is_pointer and p.restrict)
    body = [code[p] for p in range(top, back + 1) if code[p].op not in _CONTROL]
    out = []
    loads = [_bases(code, i.args[0], i.pc, pointers) for i in body if i.op == Op.LOAD and _global(i)]
    writes = [_bases(code, i.args[0], i.pc, pointers) for i in body
              if (i.op == Op.STORE and _global(i)) or i.op == Op.ATOM]
    # an atomic's space is not in the IR: shared where its address has no pointer
    writes = [w for w in writes if w]
    # restrict on either pointer promises that they do not alias
    if any("?" in w or (w != ld and not (w <= restrict or ld <= restrict)) for w in writes for ld in loads):
        out.append("store")
    if any(i.op == Op.IF and not i.info.get("predicated") for i in body):
        out.append("branch")
    if any(_slow_divide(i) for i in body):
        out.append("divide")
    return tuple(out)


def remainder_only(code, top: int, back: int) -> bool:
    """Whether a loop nvcc unrolls by 4 at run time runs (for some of a warp's lanes) only
    the remainder it peels off, one trip at a time: a counter that starts at the thread
    index, steps up by a constant S to a constant bound B (``for (c = tid; c < 196; c +=
    64)``: a tile and its halo staged by a block), so that lanes make B / S trips rounded
    up or down; nvcc runs the ``trips % 4`` left over first, so at most 3 trips, or 4 for
    some lanes and 3 for others, make one trip's loads in flight at a time
    (``lcd_filter_blend``'s 3-4 staging trips: a byte load and its shared store a trip, 48
    load requests a block in Nsight, unseen238/notes.md).  Exactly 4 trips for every lane
    (B = 4 S) run as one unrolled copy."""
    found = loop_test(code, top, back)
    if found is None:
        return False
    test, cmp = found
    if cmp.op != Op.BIN or cmp.sub not in ("lt", "le") or len(cmp.args) != 2 or type(cmp.args[1]) is not Const:
        return False
    bound = cmp.args[1].value
    if not float(bound).is_integer() or bound <= 0:
        return False
    for v in test_vars(code, test, cmp.args[:1]):
        upd, step = counter_step(code, test, back, v)
        add = copied_from(code, upd) if step is not None else None
        if type(step) is Const and add is not None and add.sub == "add" and step.value > 0 \
                and _from_thread_index(code, v, top):
            b, st = int(bound) + (cmp.sub == "le"), int(step.value)
            most = -(-b // st)
            return most <= 3 or (most == 4 and b % st != 0)
    return False


def _from_thread_index(code, var, top: int) -> bool:
    """Whether the counter's value on entering the loop is a thread index (plus a
    non-negative constant): what makes ``bound / step`` the most trips any lane makes."""
    x = def_before(code, var, top)
    for _ in range(6):
        if x is None:
            return False
        if x.op in (Op.MOV, Op.CAST) or (x.op == Op.BIN and x.sub == "add" and type(x.args[1]) is Const
                                           and x.args[1].value >= 0):
            a = x.args[0]
            if type(a) is Uniform or type(a) is Const:
                return type(a) is Const and a.value >= 0
            if type(a) is Reg and (a.name or "").split(".")[0] in ("threadIdx", "%tid"):
                return True
            x = def_before(code, a, x.pc) if type(a) is Reg else None
            continue
        return False
    return False
