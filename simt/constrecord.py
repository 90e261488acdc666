"""Loads of one ``__constant__`` record in a straight-line run: what nvcc makes of them.

``Material p = c_mat[region[i]]`` (a 24-byte struct of six floats picked by a per-cell
index) is six 4-byte loads in the IR, one after another from one address.  nvcc reads
them as three ``LDC.64 c[0x3][R4+0x0/0x8/0x10]``: two adjacent fields at an 8-byte
aligned offset are one load and one pass of the constant cache
(``probe/film-energy-const-f64red``'s sm_90 SASS, docs/results/timing_investigation/
unseen191/).  And the later loads read the line or two the first brought into the
constant cache: where the table is read at scattered records, only the first of a
record's loads misses (``constcache.scatter_miss``); the others follow it.

``record_loads`` finds both from the IR: in each straight-line run (no branch, label,
barrier or exit between), the address of every ``__constant__`` load that differs by
lane is written as (table, index terms, byte offset), following adds of constants and
of scaled indices through the run.  Two loads of one table with the same index terms,
byte offsets k and k + 4 with k a multiple of 8 and every index scaled by a multiple of
8 (the record's stride: nvcc can prove the pair aligned), are a pair; the machine pairs
them where the first's address is 8-byte aligned in every lane
(``machine._const_counters``).  Every later load of a table in the run follows the run's
first load of it.

Limitations: only adds and multiplications by constants are followed (an index masked
or shifted, a base from a pointer variable, are opaque terms: two loads agree only when
they use one such term); a record's fields read in separate runs (an ``if`` between) are
neither paired nor followed, though nvcc may hoist them together.
"""
from __future__ import annotations

from .cse import _BOUNDARY as STRAIGHT_LINE_BREAKS
from .ir import Const, Op, Reg, Uniform

_INT_KINDS = "iu"


def _const_int(x):
    if type(x) is Const and x.dtype.kind in _INT_KINDS:
        return int(x.value)
    return None


def record_loads(ir) -> tuple[dict, dict]:
    """(pairs, follows) for ``ir``'s ``__constant__`` loads that differ by lane: ``pairs``
    maps the second load of a possible ``LDC.64`` to the first; ``follows`` maps a load
    to the first load of its table in its straight-line run.  Computed once a kernel."""
    got = getattr(ir, "_simt_const_records", None)
    if got is not None:
        return got
    code = ir.code
    starts = {ins.target for ins in code if ins.target >= 0}
    pairs: dict = {}
    follows: dict = {}
    env: dict = {}             # reg slot -> its value's expression in this run
    version: dict = {}         # reg slot -> writes so far (an opaque value's identity)
    seen: dict = {}            # (table, terms, offset) -> pc of this run's load there
    first: dict = {}           # table -> pc of this run's first load of it
    taken: set = set()         # loads already the first or second of a pair

    def value(x):
        """x's expression: ('sym', name, terms, off), ('lin', terms, off) or None."""
        if type(x) is Uniform:
            if x.name.startswith("csym."):
                return ("sym", x.name, (), 0)
            return ("lin", ((("u", x.name), 1),), 0)
        if type(x) is Reg:
            e = env.get(x.slot)
            if e is not None:
                return e
            return ("lin", ((("r", x.slot, version.get(x.slot, 0)), 1),), 0)
        c = _const_int(x)
        return None if c is None else ("lin", (), c)

    def add(a, b):
        if a is None or b is None or (a[0] == "sym" and b[0] == "sym"):
            return None
        if b[0] == "sym":
            a, b = b, a
        terms = dict(a[-2])
        for t, s in b[-2]:
            terms[t] = terms.get(t, 0) + s
        terms = tuple(sorted((t, s) for t, s in terms.items() if s))
        return (a[0], a[1], terms, a[-1] + b[-1]) if a[0] == "sym" else ("lin", terms, a[-1] + b[-1])

    def scale(a, c):
        if a is None or c is None or a[0] != "lin":
            return None
        return ("lin", tuple((t, s * c) for t, s in a[1]), a[2] * c)

    for p, ins in enumerate(code):
        if ins.op in STRAIGHT_LINE_BREAKS or p in starts:
            env, seen, first, taken = {}, {}, {}, set()
            if ins.op in STRAIGHT_LINE_BREAKS:
                continue
        e = None
        if ins.op in (Op.MOV, Op.CAST) and ins.args:
            dt = getattr(ins.dst, "dtype", None)
            if dt is not None and dt.kind in _INT_KINDS and dt.itemsize >= 4:
                e = value(ins.args[0])
        elif ins.op == Op.BIN and len(ins.args) == 2:
            a, b = ins.args
            if ins.sub == "add":
                e = add(value(a), value(b))
            elif ins.sub == "sub" and _const_int(b) is not None:
                e = add(value(a), ("lin", (), -_const_int(b)))
            elif ins.sub == "mul":
                e = scale(value(a), _const_int(b)) if _const_int(b) is not None else scale(value(b), _const_int(a))
            elif ins.sub == "shl" and _const_int(b) is not None and 0 <= _const_int(b) < 32:
                e = scale(value(a), 1 << _const_int(b))
        elif ins.op == Op.LOAD and ins.info.get("space") == "const" and not ins.info.get("uniform_addr"):
            addr = value(ins.args[0])
            if addr is not None and addr[0] == "sym":
                _, table, terms, off = addr
                head = first.setdefault(table, p)
                if head != p:
                    follows[p] = head
                q = seen.get((table, terms, off - 4))
                if q is not None and q not in taken and (off - 4) % 8 == 0 \
                        and all(s % 8 == 0 for _, s in terms):
                    pairs[p] = q
                    taken.update((p, q))
                seen[(table, terms, off)] = p
        if type(ins.dst) is Reg:
            slot = ins.dst.slot
            version[slot] = version.get(slot, 0) + 1
            if e is None:
                env.pop(slot, None)
            else:
                env[slot] = e
    ir._simt_const_records = (pairs, follows)
    return pairs, follows
