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
from .ctypes_ import sizeof
from .ir import Const, Ins, Op, Reg, Uniform
from .loops import full_unrolls, loops
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


# 4-byte registers nvcc spends, at most, on the loads it hoists out of one kept loop
HOIST_WORDS = 64


def hoisted_loads(ir) -> dict[int, tuple[int, int]]:
    """Global loads of a fully unrolled loop nest that nvcc loads once, before the kept
    loop around the nest: pc -> (the pc of that loop's ``LOOPINIT``, the load's visits in
    one trip of it).

    In ``for (i < n) { for (j < 48) ... t[j] ... }`` with the inner loop unrolled
    (``loops.full_unrolls``), ``t[0]`` .. ``t[47]`` are 48 loads at addresses that do
    not change with ``i``; when nothing in the outer loop writes global memory, nvcc
    loads them into registers once, before it (probe/sw-affine-batch: 96 load requests a
    warp on the H200, its 48 query bytes and its 48 target bytes, where reading the
    source makes 2,352).  A load qualifies when it runs on every trip of its nest, which
    runs on every trip of the kept loop; its address is built from constants, the
    unrolled counters and values the kept loop does not write; the kept loop has no
    global store, atomic, fence, barrier or ``printf``; and the kept loop's hoisted
    loads need at most ``HOIST_WORDS`` registers.

    Limitations: nvcc's own limit is its register allocation, not a fixed count; and it
    also hoists invariant loads of loops it does not unroll, which simt does only for
    their conditions (``hoist_condition_loads``)."""
    got = getattr(ir, "_simt_hoisted_loads", None)
    if got is not None:
        return got
    code = ir.code
    full = full_unrolls(code)
    every = loops(code)
    kept = [lp for lp in every if lp not in full]
    out: dict[int, tuple[int, int]] = {}
    words: dict[int, int] = {}                  # a kept loop's LOOPINIT pc -> its hoisted words
    for (top, back), (root, copies) in full.items():
        around = [lp for lp in kept if lp[0] < root[0] and root[1] < lp[1]]
        if not copies or not around:
            continue
        otop, oback = min(around, key=lambda lp: lp[1] - lp[0])     # the innermost kept loop
        if otop < 1 or code[otop - 1].op != Op.LOOPINIT or _writes_global(ir, otop, oback):
            continue
        # the nest runs on every trip of the kept loop, the load on every trip of its loop
        nest = [lp for lp in full if root[0] <= lp[0] and lp[1] <= root[1] and lp[0] <= top and back <= lp[1]]
        if any(code[lp[0] - 1].depth != code[_enclosing(nest + [(otop, oback)], lp)[0]].depth + 1
               for lp in nest):
            continue
        counters = set(copies[0])
        written = _written(code, otop, oback)
        deeper = [lp for lp in every if top < lp[0] and lp[1] < back]
        for p in range(top, back + 1):
            ins = code[p]
            if not _global_load(ins) or ins.depth != code[top].depth + 1 \
                    or any(lp[0] <= p <= lp[1] for lp in deeper) or p in ir.fences \
                    or not _same_each_trip(code, ins.args[0], p, otop, oback, written, counters):
                continue
            w = max(1, -(-sizeof(ins.ctype) // 4)) if ins.ctype is not None else 1
            out[p] = (otop - 1, len(copies))
            words[otop - 1] = words.get(otop - 1, 0) + w * len(copies)
    out = {p: v for p, v in out.items() if words[v[0]] <= HOIST_WORDS}
    ir._simt_hoisted_loads = out
    return out


def repeated_loads(ir) -> dict[int, tuple[int, tuple]]:
    """Global loads of an innermost fully unrolled loop that read, in some of its copies,
    an address an earlier copy (or an earlier load of the same copy) already read: nvcc
    loads each distinct address of the copies once and keeps it in a register.  pc ->
    (the pc of the loop's ``LOOPINIT``, per copy in order: whether that copy's load is a
    repeat).

    probe/harris-response sums Sobel gradients at the 5 pixels of a window row, the ``dx``
    loop unrolled: its copies' 40 loads read 3 rows x 7 columns, and the SASS has 21
    ``LDG`` there (Nsight: 105 load requests a warp a pixel where reading the source makes
    200).  An address is compared as a sum of terms (constants, the loop's counter, and
    values the loop does not write, each times a constant) through adds, subtracts,
    multiplies by constants, shifts and casts; a load qualifies when it runs on every
    trip, is not ``volatile``, and the loop has no global store, atomic, barrier, fence or
    ``printf``.

    Limitations: an address that reaches the same value by other arithmetic (``(a + 1) *
    w`` against ``a * w + w``) counts as another; nvcc's merging across loops it keeps and
    across a nest's outer copies is not modelled."""
    got = getattr(ir, "_simt_repeated_loads", None)
    if got is not None:
        return got
    code = ir.code
    out: dict[int, tuple[int, tuple]] = {}
    every = loops(code)
    for (top, back), (root, copies) in full_unrolls(code).items():
        if top < 1 or code[top - 1].op != Op.LOOPINIT or len(copies) < 2 \
                or any(top < a and b < back for a, b in every) or _writes_global(ir, top, back):
            continue
        written = _written(code, top, back)
        ctr = [k for k in copies[0] if k in written]
        if len(ctr) != 1:
            continue
        ctr = ctr[0]
        # one run of this loop: its copies' counter values, in order
        values = [c[ctr] for c in copies[: _run_length(copies, ctr)]]
        forms = {}
        for p in range(top, back + 1):
            ins = code[p]
            if _global_load(ins) and _every_trip(code, top, p):
                f = _linear(code, ins.args[0], p, ctr, written, top, back)
                if f is not None:
                    forms[p] = (f, sizeof(ins.ctype) if ins.ctype is not None else 0)
        seen = set()
        rep: dict[int, list[bool]] = {p: [] for p in forms}
        for v in values:
            for p, (f, size) in forms.items():
                key = (size, frozenset((a, c) for a, c in _at(f, ctr, v).items() if c))
                rep[p].append(key in seen)
                seen.add(key)
        out.update((p, (top - 1, tuple(r))) for p, r in rep.items() if any(r))
    ir._simt_repeated_loads = out
    return out


def _global_load(ins) -> bool:
    return ins.op == Op.LOAD and ins.info.get("space") not in ("shared", "local", "const") \
        and not ins.info.get("volatile")


def _writes_global(ir, top: int, back: int) -> bool:
    """Whether the loop top..back may write global memory (or order it: a barrier, a
    fence, ``printf``)."""
    return any(ins.op in (Op.ATOM, Op.BAR, Op.PRINTF)
               or ins.op == Op.STORE and ins.info.get("space") not in ("shared", "local")
               for ins in ir.code[top:back + 1]) or any(top <= f <= back for f in ir.fences)


def _written(code, top: int, back: int) -> set:
    """ids of the registers the loop top..back writes."""
    return {id(r) for p in range(top, back + 1) for r in regs_of(code[p].dst)}


def _enclosing(nest, lp):
    """The innermost loop of ``nest`` around ``lp`` (not ``lp`` itself)."""
    return min((o for o in nest if o[0] < lp[0] and lp[1] < o[1]), key=lambda o: o[1] - o[0])


def _def_in_trip(code, x, pc: int, top: int, back: int):
    """The instruction of this trip of the loop top..back that gave ``x`` its value at
    ``pc``; None for a value carried from the last trip, or a variable set more than once
    a trip or not on every trip."""
    d = next((code[q] for q in range(pc - 1, top - 1, -1) if code[q].dst is x), None)
    if d is not None and x.is_var and (not _every_trip(code, top, d.pc) or any(
            code[q].dst is x for q in range(d.pc + 1, back + 1))):
        return None
    return d


def _same_each_trip(code, x, pc: int, top: int, back: int, written: set, fixed=(), depth: int = 0) -> bool:
    """Whether ``x`` at ``pc`` has the same value on every trip of the loop top..back:
    built by pure arithmetic from constants, values the loop does not write and the
    registers ``fixed`` (an unrolled nest's counters), through temporaries and variables
    set once a trip.  A running sum, or the loop's own counter, is not (``s & 0`` is a new
    value every trip)."""
    if type(x) is not Reg or id(x) in fixed or id(x) not in written:
        return True
    d = _def_in_trip(code, x, pc, top, back) if depth <= 24 else None
    if d is None or (d.op not in _PURE and d.op not in (Op.MOV, Op.CAST)):
        return False
    return all(_same_each_trip(code, a, d.pc, top, back, written, fixed, depth + 1) for a in d.args)


def _run_length(copies, ctr) -> int:
    """How many copies one run of the loop has (its counter's values before they repeat
    for the next copy of an unrolled loop around it)."""
    first = copies[0]
    others = [k for k in first if k != ctr]
    n = 1
    while n < len(copies) and all(copies[n].get(k) == first.get(k) for k in others):
        n += 1
    return n


def _at(form: dict, ctr, v) -> dict:
    """``form`` with the counter's term folded into the constant."""
    out = {a: c for a, c in form.items() if a != ctr}
    if ctr in form:
        out[1] = out.get(1, 0) + form[ctr] * int(v)
    return out


def _linear(code, x, pc: int, ctr, written: set, top: int, back: int, depth: int = 0):
    """``x`` at ``pc`` as {term: integer coefficient}: 1 for the constant, ``ctr`` for the
    loop's counter, a value the loop does not write (by id) or an instruction of the loop
    whose value is the same on every trip (by ("pc", pc)); None if it is none of these."""
    if type(x) is Const:
        return {1: int(x.value)} if x.dtype.kind in "iu" else None
    if type(x) is Uniform:
        return {("uniform", x.index): 1}
    if type(x) is not Reg or depth > 24:
        return None
    if id(x) == ctr:
        return {ctr: 1}
    if id(x) not in written:
        return {id(x): 1}
    d = _def_in_trip(code, x, pc, top, back)
    if d is None:
        return None
    if d.op in (Op.MOV, Op.CAST):
        if d.op == Op.CAST and x.dtype.kind not in "iu":
            return None
        return _linear(code, d.args[0], d.pc, ctr, written, top, back, depth + 1)
    if d.op == Op.BIN and d.sub in ("add", "sub", "mul", "shl") and x.dtype.kind in "iu":
        a, b = (_linear(code, y, d.pc, ctr, written, top, back, depth + 1) for y in d.args)
        if a is not None and b is not None:
            if d.sub in ("add", "sub"):
                s = -1 if d.sub == "sub" else 1
                return {k: a.get(k, 0) + s * b.get(k, 0) for k in set(a) | set(b)}
            if d.sub == "shl" and set(b) == {1}:
                return {k: c << b[1] for k, c in a.items()}
            if d.sub == "mul" and set(b) == {1}:
                return {k: c * b[1] for k, c in a.items()}
            if d.sub == "mul" and set(a) == {1}:
                return {k: c * a[1] for k, c in b.items()}
    if _same_each_trip(code, x, pc, top, back, written):
        return {("pc", d.pc): 1}
    return None


def _every_trip(code, top: int, p: int) -> bool:
    """Whether instruction ``p`` runs on every trip of the loop at ``top``: between them
    it is nested in bodies (the loop's, an inlined function's), not in an ``if``."""
    d = code[p].depth
    for q in range(p - 1, top, -1):
        if code[q].depth < d:
            if code[q].op != Op.BODYINIT:
                return False
            d = code[q].depth
    return d == code[top].depth
