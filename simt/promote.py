"""Local arrays nvcc keeps in registers: the timing model's view of scalar replacement.

simt keeps every local array (and every struct variable) in the thread's local frame and
executes each access as a load or a store.  nvcc fully unrolls a loop whose trip count is
a small constant (``loops.constant_trips``) and then replaces an array whose every access
has an address known at compile time by one register per element: ``float acc[4][4]``
updated in ``for (i < 4) for (j < 4)`` loops is sixteen registers, and ``acc[i][j] +=
a[i] * b[j]`` is one FFMA (the register-tiled SGEMM of ``probes19.cu``: 44 M SASS
instructions where simt executed 1.24 G IR instructions with 16.8 M local loads).

``register_locals`` finds those accesses statically, so that the issue model
(``simt.issue``) gives them no slot and the machine's clock (``Machine.advance_clock``)
treats them as register moves: a load's value is ready when the value last stored at its
address was, with no memory latency.  What the emulator executes and counts is unchanged.

Limitations: an address is "known at compile time" when it is built from constants and
the counters of enclosing loops nvcc unrolls fully (``loops.full_unrolls``), through
integer arithmetic and casts (an array's base only through adds, subtracts, multiplies and
left shifts); nvcc also promotes after other unrolling and constant
propagation, and keeps an array in local memory when it would need too many registers
(here every such array is promoted, whatever its size).
"""
from __future__ import annotations

from .ir import Const, Op, Reg
from .loops import AFFINE, constant_trips, def_before, full_unrolls, loop_counter, loop_test, loops
from .spaces import LOCAL_BASE


def register_locals(ir) -> frozenset:
    """The pcs of local loads and stores that are register moves in nvcc's code."""
    got = getattr(ir, "_simt_register_locals", None)
    if got is not None:
        return got
    arrays, dynamic, unknown = local_accesses(ir)
    kept = {} if unknown else {b: ps for b, ps in arrays.items() if b not in dynamic}
    out = frozenset(p for ps in kept.values() for p in ps)
    ir._simt_register_locals = out
    ir._simt_register_arrays = kept
    return out


def local_accesses(ir) -> tuple[dict[int, list[int]], dict[int, list[int]], bool]:
    """The local frame's accesses by variable: (slot -> the pcs whose address is known once
    the constant-trip loops are unrolled, slot -> the pcs at a run-time address, whether
    some access goes through a pointer into the frame from elsewhere)."""
    code = ir.code
    counted = _counted(ir)
    writes: dict[int, list[int]] = {}
    for p, ins in enumerate(code):
        if isinstance(ins.dst, Reg):
            writes.setdefault(id(ins.dst), []).append(p)

    def static(x, pc, depth=0):
        """The local base constant an address is built on (or 0 for a value with none),
        if the value is known once the constant-trip loops around ``pc`` are unrolled;
        None if it is not."""
        if type(x) is Const:
            v = int(x.value) if x.dtype.kind in "iu" else None
            return None if v is None else (v if v >= LOCAL_BASE else 0)
        if type(x) is not Reg or depth > 24:
            return None
        if any(c is x and top <= pc <= back for top, back, c in counted):
            return 0
        if x.is_var and len(writes.get(id(x), ())) != 1:
            # a variable set in more than one place: known only as a running counter
            return 0 if running_counter(x) else None
        d = def_before(code, x, pc) if not x.is_var else code[writes[id(x)][0]]
        if d is None:
            return None
        if d.op in (Op.MOV, Op.CAST):
            return static(d.args[0], d.pc, depth + 1)
        if d.op == Op.BIN:
            a, b = (static(y, d.pc, depth + 1) for y in d.args)
            if a is None or b is None or (a and b) or (a or b) and d.sub not in AFFINE:
                return None
            return a or b         # (any operation of known values: ``x - (y >> 1)``)
        return None

    every_loop = loops(code)
    unrolled = {(top, back) for top, back, _ in counted}
    known_counters: dict[int, bool] = {}

    def running_counter(x) -> bool:
        """``int k = 0; for (a < 6) for (b = a; b < 6; b++) acc[k++] = ...``: a variable
        set once to a constant and otherwise only stepped by constants (``k++``, ``k +=
        2``), unconditionally, inside loops nvcc unrolls fully: each copy's value is known."""
        got = known_counters.get(id(x))
        if got is None:
            got = known_counters[id(x)] = _running_counter(code, x, writes.get(id(x), ()),
                                                           every_loop, unrolled)
        return got

    def slot(addr):
        """The start of the local variable whose slot holds ``addr`` (a constant-index
        access names an element's address, a run-time one its array's base)."""
        return next((lo for lo, hi in ir.local_slots if lo <= addr < hi), addr)

    arrays: dict[int, list[int]] = {}        # slot -> its accesses known statically
    dynamic: dict[int, list[int]] = {}       # slot -> its accesses not known statically
    unknown = False
    for p, ins in enumerate(code):
        if ins.op not in (Op.LOAD, Op.STORE) or ins.info.get("space") != "local":
            continue
        base = static(ins.args[0], p)
        if base:
            arrays.setdefault(slot(base), []).append(p)
        else:
            b = _base_of(code, ins.args[0], p)
            if b is None:
                unknown = True               # a pointer into the frame from elsewhere
            else:
                dynamic.setdefault(slot(b), []).append(p)
    return arrays, dynamic, unknown


def register_arrays(ir) -> list[tuple[int, int, int]]:
    """(first pc, last pc, 32-bit words) of each local variable ``register_locals`` keeps
    in registers: what it adds to the registers a thread needs (``simt.occupancy``), the
    whole variable live from its first access to its last."""
    register_locals(ir)
    ends = dict(ir.local_slots)
    return [(min(ps), max(ps), -(-(ends.get(b, b + 4) - b) // 4))
            for b, ps in ir._simt_register_arrays.items()]


def _counted(ir, every: bool = True) -> list:
    """(top, back, counter) of each loop nvcc unrolls fully (``loops.full_unrolls``), the
    counter being the variable its test compares; computed once per kernel.  ``every``
    False keeps those with constant trips (``loops.constant_trips``) and those bounded by
    the counter of an unrolled loop around them (``j < s``), leaving out geometric steps
    and starts set by an outer counter: nvcc does not fold the addresses of such copies
    into immediates (``pcr_tridiag``'s ``sb[i - s]`` in its unrolled ``s <<= 1`` loop is
    an ``IADD3`` and an ``LDS`` in each copy, probes30.cu)."""
    got = getattr(ir, "_simt_counted_loops", None)
    if got is None:
        code = ir.code
        const = [(top, back, next(a for a in loop_test(code, top, back)[1].args if type(a) is Reg))
                 for top, back in loops(code) if constant_trips(code, top, back) is not None]
        seen = {(top, back) for top, back, _ in const}
        outer, rest = [], []
        for top, back in full_unrolls(code):
            var = None if (top, back) in seen else loop_counter(code, top, back)
            if var is not None:
                test = loop_test(code, top, back)[1]
                (outer if all(type(a) is Reg for a in test.args) else rest).append((top, back, var))
        got = ir._simt_counted_loops = (const + outer, const + outer + rest)
    return got[every]


def _running_counter(code, x, wpcs, every_loop, unrolled) -> bool:
    """Whether variable ``x`` (written at ``wpcs``) is set once to an integer constant and
    then only stepped by constants, each step unconditional in loops nvcc unrolls fully
    (an instruction's ``depth`` is its block's nesting: two levels a loop, one an ``if``),
    every later use in the same block or deeper, so its value is known in each copy."""
    if not wpcs:
        return False
    p0 = wpcs[0]
    init = code[p0]
    if init.op != Op.MOV or type(init.args[0]) is not Const or init.args[0].dtype.kind not in "iu":
        return False
    d0 = init.depth
    for w in wpcs[1:]:
        ins = code[w]
        if ins.op != Op.MOV or type(ins.args[0]) is not Reg:
            return False
        step = def_before(code, ins.args[0], w)
        if step is None or step.op != Op.BIN or step.sub not in ("add", "sub") or \
                not any(a is x for a in step.args) or \
                not any(type(a) is Const and a.dtype.kind in "iu" for a in step.args):
            return False
        around = [lp for lp in every_loop if lp[0] <= w <= lp[1] and not lp[0] <= p0 <= lp[1]]
        if not around or any(lp not in unrolled for lp in around) or \
                ins.depth != d0 + 2 * len(around) or step.depth != ins.depth:
            return False
    uses = [q for q, ins in enumerate(code) if any(a is x for a in (ins.args or ()))]
    last = max(uses + list(wpcs))
    return min(uses + list(wpcs)) >= p0 and all(code[q].depth >= d0 for q in range(p0, last + 1)) and \
        all(lp in unrolled for q in uses for lp in every_loop
            if lp[0] <= q <= lp[1] and not lp[0] <= p0 <= lp[1])


def _base_of(code, x, pc, depth=0):
    """The local base constant somewhere in an address's definition, or None."""
    if type(x) is Const:
        v = int(x.value) if x.dtype.kind in "iu" else 0
        return v if v >= LOCAL_BASE else None
    if type(x) is not Reg or depth > 24:
        return None
    d = def_before(code, x, pc)
    if d is None or d.op not in (Op.MOV, Op.CAST, Op.BIN):
        return None
    for y in d.args:
        b = _base_of(code, y, d.pc, depth + 1)
        if b is not None:
            return b
    return None


def folded_offsets(ir, address_pcs) -> frozenset:
    """The address arithmetic nvcc folds into an access's immediate offset: inside loops it
    unrolls fully, an address built from constants, those loops' counters and values set
    before the outermost of them is one base register (computed once, before the loops)
    plus a constant (``As[k][ty * 4 + i]`` in an unrolled ``k``, ``i`` nest is an ``LDS``
    with offset ``k * 256 + i * 4``).  ``address_pcs``: the arithmetic that only forms
    addresses (``simt.issue``)."""
    code = ir.code
    counted = _counted(ir, every=False)
    written: dict[tuple, set] = {}

    def writes_in(top, back):
        got = written.get((top, back))
        if got is None:
            got = written[(top, back)] = {id(code[q].dst) for q in range(top, back + 1)
                                          if isinstance(code[q].dst, Reg)}
        return got

    out = set()
    for p in address_pcs:
        around = [(t, b, c) for t, b, c in counted if t <= p <= b]
        if not around:
            continue
        top, back = min(t for t, _, _ in around), max(b for _, b, _ in around)
        counters = {id(c) for _, _, c in around}
        inside = writes_in(top, back)

        def ok(x, pc, depth=0):
            if type(x) is Const:
                return True
            if type(x) is not Reg or depth > 24:
                return False
            if id(x) in counters or id(x) not in inside:
                return True
            if x.is_var:
                return False
            d = def_before(code, x, pc)
            return (d is not None and (d.op in (Op.MOV, Op.CAST) or d.op == Op.BIN and d.sub in AFFINE)
                    and all(ok(y, d.pc, depth + 1) for y in d.args))

        if all(ok(y, p) for y in code[p].args):
            out.add(p)
    return frozenset(out)
