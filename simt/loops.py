"""A kernel's loops as nvcc would see them: where they are, what their test compares,
how their counters step, and who wrote each operand.  Shared by ``simt.machine`` (loads
a warp keeps in flight) and ``simt.issue`` (issue slots, overlapped waits)."""
from __future__ import annotations

from .ir import Const, Op, Reg, Uniform
from .ops import BINOPS


# arithmetic that keeps an address affine in its inputs: with the inputs known, nvcc folds
# it into an LEA and an immediate offset (simt.promote, simt.uniformity.body_size)
AFFINE = {"add", "sub", "mul", "shl"}


def first_writes(code) -> dict[int, int]:
    """id of each named variable -> the pc of its first write (where its scope starts)."""
    first: dict[int, int] = {}
    for q, ins in enumerate(code):
        d = ins.dst
        for r in (d if isinstance(d, list) else (d,)):
            if isinstance(r, Reg) and r.is_var:
                first.setdefault(id(r), q)
    return first


def loops(code) -> list[tuple[int, int]]:
    """(top, back) of each loop, a backward JUMP and its target, innermost first."""
    return sorted(((ins.target, j) for j, ins in enumerate(code)
                   if ins.op == Op.JUMP and ins.target is not None and ins.target <= j),
                  key=lambda r: r[1] - r[0])


def loop_test(code, top: int, back: int):
    """(pc of the loop's LOOPTEST, the instruction inside the loop that computes its
    condition), or None."""
    test = next((p for p in range(top, back + 1) if code[p].op == Op.LOOPTEST), None)
    if test is None or not code[test].args or type(code[test].args[0]) is not Reg:
        return None
    cond = code[test].args[0]
    cmp = next((code[p] for p in range(test - 1, top - 1, -1) if code[p].dst is cond), None)
    return None if cmp is None else (test, cmp)


def def_before(code, reg, pc: int):
    """The nearest instruction before ``pc`` that writes ``reg`` (the same Reg object)."""
    return next((code[p] for p in range(pc - 1, -1, -1) if code[p].dst is reg), None)


def writers(code) -> list[list]:
    """Per pc, per argument: the pc of the nearest earlier instruction that writes it (what
    ``def_before`` finds), or None; one pass over the code."""
    last: dict[int, int] = {}
    out = []
    for q, ins in enumerate(code):
        out.append([last.get(id(a)) if type(a) is Reg else None for a in (ins.args or ())])
        if isinstance(ins.dst, Reg):
            last[id(ins.dst)] = q
    return out


def copied_from(code, ins, hops: int = 6):
    """The instruction at the start of the chain of MOV/CAST that ends in ``ins`` (``ins``
    itself if it is no copy), or None."""
    for _ in range(hops):
        if ins is None or ins.op not in (Op.MOV, Op.CAST):
            return ins
        if type(ins.args[0]) is not Reg:
            return None
        ins = def_before(code, ins.args[0], ins.pc)
    return None


def add_step(code, ins, var, back: int):
    """The operand added to ``var`` by the chain of MOV/CAST that ends in ``ins`` (None if
    the chain is not ``var + step`` or ``var - step``)."""
    def derives(x, depth=0):
        if x is var:
            return True
        if type(x) is not Reg or depth > 4:
            return False
        d = def_before(code, x, back)
        return d is not None and d.op in (Op.MOV, Op.CAST) and derives(d.args[0], depth + 1)

    ins = copied_from(code, ins)
    if ins is not None and ins.op == Op.BIN and ins.sub in ("add", "sub") and len(ins.args) == 2:
        a, b = ins.args
        if derives(a):
            return b
        if derives(b) and ins.sub == "add":
            return a
    return None


def counter_step(code, test: int, back: int, var):
    """(the instruction that last writes ``var`` in the loop, the operand it adds to it) for
    a counter of a loop whose test is at ``test``; the operand is None where the update is
    not ``var + step`` or ``var - step`` (``add_step``)."""
    upd = next((code[p] for p in range(back, test, -1) if code[p].dst is var), None)
    return upd, (add_step(code, upd, var, back) if upd is not None else None)


def _int_const(x):
    """The value of an integer constant operand, else None."""
    return int(x.value) if type(x) is Const and x.dtype.kind in "iu" else None


# integer arithmetic nvcc folds when its operands are constants (C's division truncates)
_FOLD = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
         "shl": lambda a, b: a << b, "shr": lambda a, b: a >> b,
         "div": lambda a, b: (abs(a) // b) * (1 if a >= 0 else -1) if b > 0 else None}
_GEOMETRIC = {k: _FOLD[k] for k in ("mul", "shl", "shr", "div")}   # steps of a geometric counter


def _geometric_step(code, ins, var):
    """(op, constant) where the chain of MOV/CAST that ends in ``ins`` is ``var * c``,
    ``var << c``, ``var >> c`` or ``var / c``; else None."""
    ins = copied_from(code, ins)
    if ins is None or ins.op != Op.BIN or ins.sub not in _GEOMETRIC or len(ins.args) != 2:
        return None
    a, b = ins.args
    if ins.sub == "mul" and a is not var:
        a, b = b, a
    c = _int_const(b)
    if a is not var or c is None or c <= (1 if ins.sub in ("mul", "div") else 0):
        return None
    return ins.sub, c


# trips nvcc unrolls fully under '#pragma unroll' (without a count): its own limit is a
# code-size one; SHA-256's 48- and 64-trip loops (probes31.cu) are unrolled, as they say
PRAGMA_FULL = 1024

# trips nvcc unrolls fully without a pragma
UNROLL_TRIPS = 32
# beyond UNROLL_TRIPS, an innermost loop that reads or writes a local array is unrolled
# fully while its trips times its body's instructions (uniformity.body_size, less the
# counter's compare and step) stay within this: nvcc's unroller counts the array it then
# keeps in registers as a saving.  timing_investigation/unroll/ (sm_90): an int array
# indexed by the counter of an inner loop is unrolled up to 256, 128, 48 and 16 trips for
# bodies of 11, 17, 41 and 105 such instructions (kept at 512, 180, 64, 32), where the
# same bodies without the array stop at 180, 64, 16 and none; Smith-Waterman's 48-trip
# row loop (probe/sw-affine-batch: 23 such instructions) is unrolled, its H and F rows
# in 199 registers.
UNROLL_LOCAL_SIZE = 2600


def constant_trips(code, top: int, back: int, limit: int = UNROLL_TRIPS, geometric: bool = False):
    """The trip count of a loop whose counter starts at a constant, steps by a constant
    and is compared with a constant (``for (int k = 14; k >= 0; k--)``), if it is at most
    ``limit``; else None.  nvcc unrolls such a loop fully (poly_horner in probes8.cu: its
    sixteen coefficient loads all go out before the first FMA).  ``geometric`` also takes
    a counter multiplied, divided or shifted by a constant (``for (d = 512; d > 0; d >>=
    1)``), which nvcc unrolls the same way (blelloch_scan in probes20.cu)."""
    found = counter_values(code, top, back, limit, geometric)
    return None if found is None else len(found[1])


def counter_values(code, top: int, back: int, limit: int = UNROLL_TRIPS, geometric: bool = False,
                   env: dict | None = None):
    """(counter, the values it takes on the trips) of a loop ``constant_trips`` counts,
    else None.  ``env`` (id of a Reg -> value) holds the counters of the loops around this
    one in one of their unrolled copies: an initial value computed from them by constant
    arithmetic (``stride = size >> 1``) is then a constant too."""
    found = loop_test(code, top, back)
    if found is None:
        return None
    test, cmp = found
    pragma = code[test].info.get("unroll")     # '#pragma unroll' (0) or '#pragma unroll N'
    if pragma is not None:
        if pragma == 1:
            return None                            # nvcc keeps the loop
        limit = PRAGMA_FULL if pragma == 0 else pragma
    if cmp.op != Op.BIN or cmp.sub not in ("lt", "le", "gt", "ge", "ne") or len(cmp.args) != 2:
        return None
    var, bound = cmp.args
    flip = type(var) is not Reg or (type(bound) is Reg and not _written(code, top, back, var)
                                    and _written(code, top, back, bound))
    if flip:
        var, bound = bound, var
    if type(bound) is Reg and env:
        # a bound from the loops around (``for (j = 0; j < s; j++)`` in an unrolled s
        # loop: a Runge-Kutta tableau's rows, probes74.cu's dopri_vdp) is a constant in
        # each of their copies, and nvcc unrolls the inner loop there too
        bound = folded_value(code, bound, cmp.pc, env)
    else:
        bound = _int_const(bound)
    if type(var) is not Reg or not var.is_var or bound is None:
        return None
    writes = [p for p in range(top, back + 1) if code[p].dst is var]
    init = def_before(code, var, top)
    v = _int_const(init.args[0]) if init is not None and init.op == Op.MOV else None
    if v is None and env and init is not None and init.op in (Op.MOV, Op.CAST):
        v = folded_value(code, init.args[0], init.pc, env)
    if len(writes) != 1 or v is None:
        return None
    upd = copied_from(code, code[writes[0]])          # the add or sub of the step
    step = _int_const(add_step(code, upd, var, back))
    if step:
        step = -step if upd.sub == "sub" else step
        advance = lambda v: v + step                  # noqa: E731
    else:
        geo = _geometric_step(code, code[writes[0]], var) if geometric else None
        if geo is None:
            return None
        advance = lambda v: _GEOMETRIC[geo[0]](v, geo[1])   # noqa: E731
    test = BINOPS[cmp.sub]
    values = []
    boosted = pragma is not None or limit != UNROLL_TRIPS
    while test(bound, v) if flip else test(v, bound):
        values.append(v)
        v = advance(v)
        if len(values) > limit:
            if boosted:
                return None
            boosted, limit = True, max(limit, _local_array_limit(code, top, back, var))
            if len(values) > limit:
                return None
    return var, values


# a loop nvcc keeps, with a trip count known at run time: the trips it unrolls by, from
# the size of its body (uniformity.body_size of the body with fully unrolled inner loops
# expanded, plus RUNTIME_CALL_SIZE a math call): the factor of the first RUNTIME_UNROLL
# bound it is within, else 1.  timing_investigation/unroll2/ (sm_90 SASS of 291 probe
# loops with global loads): most bodies are unrolled by 4, bodies past 88 (and loops whose
# trips nvcc cannot count) not at all.  Small bodies are unrolled by 16 in nvcc's SASS
# (LLVM's 4, then ptxas' 4 more), but the timed cal_ilp (one load a trip, one warp: 88 us
# on the H200) runs as 4 trips in flight do (79 us predicted; 41 with 16), so they keep 4
RUNTIME_UNROLL = ((88, 4),)
RUNTIME_CALL_SIZE = 8


def runtime_unroll(code, top: int, back: int) -> int:
    """The trips nvcc unrolls a kept loop by when its trip count is known only at run time
    (RUNTIME_UNROLL): 4 for most bodies, 1 for a large one, and 1 where no variable the
    test is computed from is stepped by an add (a ``while`` on data, whose trips nvcc
    cannot count)."""
    found = loop_test(code, top, back)
    if found is None or not any(
            len(ws := [p for p in range(top, back + 1) if code[p].dst is v]) == 1
            and add_step(code, code[ws[0]], v, back) is not None
            for v in test_vars(code, found[0], found[1].args)):
        return 1
    from .uniformity import body_size
    body = _expanded_body(code, top, back, full_unrolls(code))
    size = body_size(body) + RUNTIME_CALL_SIZE * sum(1 for ins in body if ins.op == Op.CALL)
    return next((u for bound, u in RUNTIME_UNROLL if size <= bound), 1)


def test_vars(code, test: int, args, depth: int = 0) -> list:
    """The named variables a loop test's operands are computed from through adds,
    multiplies, shifts, casts and copies (``i`` in ``i + step < n``): what LLVM's scalar
    evolution follows to count the trips."""
    out = []
    for x in args:
        if type(x) is not Reg or depth > 3:
            continue
        if x.is_var:
            out.append(x)
            continue
        d = def_before(code, x, test)
        if d is not None and d.op in (Op.BIN, Op.CAST, Op.MOV):
            out += test_vars(code, test, d.args, depth + 1)
    return out


def _expanded_body(code, top: int, back: int, full: dict) -> list:
    """A loop's body without its own control (the test, the counter's step, the jumps), a
    fully unrolled inner loop's body repeated for each of its trips."""
    skip = {p for p in range(top, back + 1) if code[p].op in _CONTROL}
    found = loop_test(code, top, back)
    if found is not None:
        skip.add(found[1].pc)
        for v in found[1].args:
            ws = [p for p in range(top, back + 1) if getattr(v, "is_var", False) and code[p].dst is v]
            if ws:
                skip.add(ws[-1])
                src = copied_from(code, code[ws[-1]])
                if src is not None and src.pc is not None and top <= src.pc <= back:
                    skip.add(src.pc)
    out, p = [], top
    while p <= back:
        inner = next(((t, b) for t, b in full if t == p and (t, b) != (top, back)), None)
        if inner is not None:
            trips = constant_trips(code, *inner, limit=PRAGMA_FULL, geometric=True) or len(full[inner][1])
            out += _expanded_body(code, *inner, full) * trips
            p = inner[1] + 1
            continue
        if p not in skip:
            out.append(code[p])
        p += 1
    return out


def _written(code, top: int, back: int, reg) -> bool:
    return any(code[p].dst is reg for p in range(top, back + 1))


def loop_counter(code, top: int, back: int):
    """The register a loop's test compares that the loop writes (its counter), or None."""
    found = loop_test(code, top, back)
    if found is None or found[1].op != Op.BIN:
        return None
    return next((a for a in found[1].args if type(a) is Reg and _written(code, top, back, a)), None)


_CONTROL = {Op.LOOPINIT, Op.LOOPTEST, Op.BODYINIT, Op.JUMP, Op.IF, Op.ELSE}


def _local_array_limit(code, top: int, back: int, var) -> int:
    """The trips nvcc unrolls fully an innermost loop to whose local loads or stores the
    counter ``var`` leads (an array it indexes): UNROLL_LOCAL_SIZE over its body's
    instructions; 0 for other loops (a curandState's members, at fixed offsets, are in
    registers unrolled or not: xorwow_draws64's 64-trip loop stays, probes32.cu)."""
    body = code[top:back + 1]
    if any(ins.op == Op.JUMP and ins.target is not None and ins.target <= q + top
           for q, ins in enumerate(body[:-1])):
        return 0                                           # an inner loop
    if not any(ins.op in (Op.LOAD, Op.STORE) and ins.info.get("space") == "local" and
               _reaches(code, ins.args[0], top + q, var, top) for q, ins in enumerate(body)):
        return 0
    from .uniformity import body_size
    size = body_size([ins for ins in body if ins.op not in _CONTROL]) - 2
    return UNROLL_LOCAL_SIZE // max(size, 1)


def _reaches(code, x, pc: int, var, top: int, depth: int = 0) -> bool:
    """Whether ``x`` at ``pc`` is computed from ``var`` through the loop body's arithmetic."""
    if x is var:
        return True
    if type(x) is not Reg or x.is_var or depth > 8:
        return False
    d = def_before(code, x, pc)
    if d is None or d.pc < top:
        return False
    return any(_reaches(code, a, d.pc, var, top, depth + 1) for a in (d.args or ()))


def folded_value(code, x, pc: int, env: dict, depth: int = 0):
    """The value of ``x`` at ``pc`` when it is a constant, a counter in ``env``, or constant
    arithmetic (add, sub, mul, shifts, division by a positive constant) of those through
    temporaries and copies; else None."""
    if type(x) is Const:
        return _int_const(x)
    if type(x) is not Reg or depth > 8:
        return None
    if id(x) in env:
        return env[id(x)]
    if x.is_var:
        return None                # a variable the loop may change: not folded
    d = def_before(code, x, pc)
    if d is None:
        return None
    if d.op in (Op.MOV, Op.CAST) and d.dst.dtype.kind in "iu":
        return folded_value(code, d.args[0], d.pc, env, depth + 1)
    if d.op == Op.BIN and d.sub in _FOLD and len(d.args) == 2:
        a = folded_value(code, d.args[0], d.pc, env, depth + 1)
        b = folded_value(code, d.args[1], d.pc, env, depth + 1) if a is not None else None
        return None if b is None else _FOLD[d.sub](a, b)
    return None


def full_unrolls(code, limit: int = UNROLL_TRIPS, nest: int = 64) -> dict:
    """(top, back) -> (root, copies) of each loop nvcc unrolls fully: the (top, back) of
    the outermost loop of the nest unrolled with it (itself if none is), and its copies in
    one run of that nest, each the counters' values there (id of each counter Reg, this
    loop's and those of the fully unrolled loops around it -> value).  A loop is unrolled
    fully when ``counter_values`` finds its trips (geometric steps included), in each copy
    of the loops around it: the inner loop
    of ``for (size = 2; size <= 32; size <<= 1) for (stride = size >> 1; stride > 0;
    stride >>= 1)`` has 1, 2, ... 5 trips, 15 in all (warp_bitonic32 in probes24.cu).  A
    nest of more than ``nest`` copies counts each loop alone (at most ``limit`` trips)."""
    found: dict = {}
    for top, back in sorted(loops(code), key=lambda r: r[0] - r[1]):     # outermost first
        outer = [k for k in found if k[0] < top and back < k[1]]
        root, around = found[max(outer)][:2] if outer else (None, None)
        copies = _copies(code, top, back, around, limit, nest) if around else None
        if copies is None:
            root, copies = (top, back), _copies(code, top, back, [{}], limit, nest)
        if copies:              # (a loop of no trips, `for (s = 0; s < 0; ...)`: nvcc drops it)
            found[(top, back)] = (root, copies)
    return found


def _copies(code, top, back, around, limit, nest):
    copies = []
    for env in around:
        got = counter_values(code, top, back, limit, True, env)
        if got is None:
            return None
        var, values = got
        copies += [{**env, id(var): v} for v in values]
        if len(copies) > nest:
            return None
    return copies


def unrolled_divisors(code) -> None:
    """Mark each integer division and remainder by the counter of a loop nvcc unrolls
    fully: the divisor is a constant in each copy, a shift or a mask where every value is
    a power of two (``info["divisor"] = "pow2"``; fft1024 in probes22.cu:
    ``tid / half, tid % half`` for half = 1, 2, ..., 512), a multiply-high otherwise
    (``"const"``)."""
    for top, back in loops(code):
        found = counter_values(code, top, back, geometric=True)
        if found is None:
            continue
        var, values = found
        pow2 = all(v > 0 and v & (v - 1) == 0 for v in values)
        for p in range(top, back + 1):
            ins = code[p]
            if ins.op == Op.BIN and ins.sub in ("div", "mod") and len(ins.args) == 2 and \
                    _is_copy_of(code, ins.args[1], var, p):
                ins.info["divisor"] = "pow2" if pow2 else "const"


_STRAIGHT = {Op.BIN, Op.UN, Op.CAST, Op.MOV, Op.SELECT, Op.FMA, Op.LOAD, Op.STORE, Op.CALL}
# what an instruction dominates, read on from it: straight-line code, ifs (their bodies and
# else bodies), inlined calls' bodies (a BODYINIT outside a loop) and returns, barriers;
# not a loop (its trips may write what the instruction read)
_DOMINATED = _STRAIGHT | {Op.ATOM, Op.IF, Op.ELSE, Op.BODYINIT, Op.KILL, Op.BAR, Op.SYNCWARP}


def shared_quotients(code) -> None:
    """Mark the second of a ``/`` and a ``%`` of the same value by the same constant in
    straight-line code (``info["divisor"] = "shared"``): nvcc computes the quotient once
    (a multiply-high) and the remainder from it with one ``IMAD``.  digit_sum_u32's loop
    (probes29.cu: ``s += x % 10u; x /= 10u;``) is seven SASS instructions a trip, one
    ``IMAD.WIDE.U32`` of them (unseen28/probes29_sass.txt.gz).  By a divisor known only at
    run time (a 32-bit register), ``repeated_divisors``."""
    for p, ins in enumerate(code):
        if ins.op != Op.BIN or ins.sub not in ("div", "mod") or len(ins.args) != 2 or \
                type(ins.args[0]) is not Reg:
            continue
        if type(ins.args[1]) in (Reg, Uniform):
            _repeated_divisor(code, p, ins)
            continue
        if type(ins.args[1]) is not Const:
            continue
        x, c = ins.args
        for q in range(p + 1, len(code)):
            o = code[q]
            if o.op not in _STRAIGHT or o.depth != ins.depth:
                break
            if o.op == Op.BIN and o.sub in ("div", "mod") and o.sub != ins.sub and len(o.args) == 2 and \
                    o.args[0] is x and type(o.args[1]) is Const and o.args[1].value == c.value and \
                    o.dst is not None and o.dst.dtype == ins.dst.dtype:
                o.info.setdefault("divisor", "shared")
                break
            if o.dst is x or (isinstance(o.dst, list) and any(d is x for d in o.dst)):
                break


def _repeated_divisor(code, p: int, ins) -> None:
    """A ``/`` or ``%`` by a 32-bit value known only at run time: the later ones by the
    same value that it dominates reuse the reciprocal nvcc computed for it
    (``info["divisor"] = "again"``; the same dividend's other half of the quotient,
    ``"shared"``: one ``IMAD``).  Dominated: straight-line code after it, through inlined
    calls (each a ``BODYINIT`` with its parameters copied in, a ``KILL`` return at its
    end: a divisor is followed through the copies) and into later ``if`` bodies, not into
    a loop.  probe/texture-bilinear-wrap's sixteen ``%`` (four inlined ``texel`` calls,
    ``((x % tw) + tw) % tw`` and the same by ``th``) are two ``MUFU.RCP`` and about eight
    instructions a remainder in nvcc's SASS (unseen95/probes97_sass.txt.gz)."""
    x, c = ins.args
    dt = ins.dst.dtype if ins.dst is not None else None
    if dt is None or dt.kind not in "iu" or dt.itemsize > 4:
        return
    # where what follows stays dominated by p: past the end of p's own body only if that
    # body is an inlined call's and p is in its straight-line start; up to a loop
    base = ins.depth
    for q in range(p - 1, -1, -1):
        o = code[q]
        if o.depth < ins.depth:
            if o.op == Op.BODYINIT and o.depth == ins.depth - 1:
                base = o.depth
            break
        if o.op not in _STRAIGHT:
            break
    root = _copied(code, c, p)
    same_x = True
    for q in range(p + 1, len(code)):
        o = code[q]
        if o.depth < base or o.op not in _DOMINATED:
            break
        if o.op == Op.BIN and o.sub in ("div", "mod") and len(o.args) == 2 and type(o.args[1]) in (Reg, Uniform) and \
                o.dst is not None and o.dst.dtype == dt and _copied(code, o.args[1], q) is root:
            shared = same_x and o.args[0] is x and o.sub != ins.sub
            o.info.setdefault("divisor", "shared" if shared else "again")
        dst = o.dst if isinstance(o.dst, list) else (o.dst,)
        if any(d is root or d is c for d in dst if d is not None) and not \
                (o.op == Op.MOV and o.args and _copied(code, o.args[0], q) is root):
            break
        if any(d is x for d in dst):
            same_x = False


def _copied(code, r, pc: int, hops: int = 4):
    """The value ``r`` holds at ``pc``, followed back through MOVs (an inlined call's
    parameters) to the register or launch parameter they copy."""
    for _ in range(hops):
        if type(r) is not Reg:          # a launch's scalar parameter: never written
            return r
        d = def_before(code, r, pc)
        if d is None or d.op != Op.MOV or not d.args or type(d.args[0]) not in (Reg, Uniform):
            return r
        r, pc = d.args[0], d.pc
    return r


def _is_copy_of(code, x, var, pc: int, hops: int = 4) -> bool:
    """Whether ``x`` at ``pc`` is ``var`` or a MOV/CAST copy of it."""
    for _ in range(hops):
        if x is var:
            return True
        if type(x) is not Reg:
            return False
        d = def_before(code, x, pc)
        if d is None or d.op not in (Op.MOV, Op.CAST):
            return False
        x, pc = d.args[0], d.pc
    return False
