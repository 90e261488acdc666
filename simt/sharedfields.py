"""Shared accesses nvcc joins into one wider access: a struct's adjacent fields.

A struct copied whole to or from shared memory (``Cand a = s[lo]; ... s[hi] = a;`` with
``struct Cand {float key; int idx;}``), or its fields read one after the other, is one
``LDS.64``/``STS.64`` (``LDS.128`` for 16 bytes) in nvcc's SASS where it can prove the
first word aligned to the wider width.  The IR moves it field by field: a 4-byte access
at ``a``, then one at ``a + 4``.  Counting them as two accesses doubles their shared
wavefronts where the lanes are 8 or more bytes apart (a field's lanes, 16 bytes apart,
take as many wavefronts as the whole struct's): ``probe/wres-bitonic-topk-smem``'s
bitonic sort of ``Cand`` moved every struct with two 4-byte accesses, 340.8 M
wavefronts against Nsight's 178.6 M, and was predicted 1.85 times its H200 time
(docs/results/timing_investigation/unseen201/notes.md).

``shared_field_groups`` finds, in each straight-line run, the shared loads (and, apart,
the stores) whose address is the run's previous access of the same kind plus that
access's size: the same terms (registers, scaled), a constant offset ``size`` further,
the same width (4 or 8 bytes), the same predicate, at most 16 bytes from the group's
first access, and no atomic, warp-synchronous call or barrier between.  The group's first
access must be aligned to twice its width as far as the IR shows: every register term
scaled by a multiple of that, and a constant part (the array's place in simt's layout
included) a multiple of it; a dynamic shared array's base counts as aligned (it is 16
at least).  ``machine._shared_vector`` then joins, warp by warp, the accesses whose
lanes' addresses show it (each lane's word right after its last, the group's start
aligned to the joined width), as it does the trips of a loop nvcc unrolls fully.

Limitations: nvcc's proof of alignment is its own (it knows its layout of shared
memory, simt only its own); fields read in different straight-line runs, or through
addresses whose relation the terms do not show (``s[2 * t]`` and ``s[2 * t + 1]``
computed apart are: same terms, constants 4 apart), stay apart; global and local
accesses are not joined here; a shared store between two loads of a group (or a load
between two stores) does not part them, where nvcc would keep apart accesses it cannot
prove do not alias.
"""
from __future__ import annotations

from .cse import _BOUNDARY as STRAIGHT_LINE_BREAKS, _size
from .ir import Op, Reg, Uniform
from .loops import _int_const as _int

MAX_BYTES = 16                  # LDS.128 / STS.128
_CLOSE = {Op.ATOM, Op.CALL}      # atomics and warp-synchronous calls order the accesses


def shared_field_groups(ir) -> dict[int, int]:
    """pc of a shared load or store -> pc of the access that begins its group (see the
    module's docstring).  Computed once a kernel."""
    got = getattr(ir, "_simt_shared_fields", None)
    if got is not None:
        return got
    code = ir.code
    starts = {ins.target for ins in code if getattr(ins, "target", -1) >= 0}
    out: dict[int, int] = {}
    env: dict = {}              # reg slot -> (terms, const) of its value in this run
    version: dict = {}          # reg slot -> writes so far
    last: dict = {}             # (op, terms, predicate) -> (const, size, head pc, bytes)

    def lin(x):
        if type(x) is Reg:
            e = env.get(x.slot)
            return e if e is not None else (((("r", x.slot, version.get(x.slot, 0)), 1),), 0)
        if type(x) is Uniform:
            return (((("u", x.name), 1),), 0)
        c = _int(x)
        return None if c is None else ((), c)

    def combine(a, b, sign=1):
        if a is None or b is None:
            return None
        terms = dict(a[0])
        for t, s in b[0]:
            terms[t] = terms.get(t, 0) + sign * s
        return tuple(sorted((t, s) for t, s in terms.items() if s)), a[1] + sign * b[1]

    def scaled(a, c):
        if a is None or c is None:
            return None
        return tuple((t, s * c) for t, s in a[0]), a[1] * c

    def aligned(e, width):
        return e[1] % width == 0 and all(s % width == 0 or (t[0] == "u" and t[1] == "dynshared")
                                         for t, s in e[0])

    for p, ins in enumerate(code):
        if ins.op in STRAIGHT_LINE_BREAKS or p in starts:
            env, last = {}, {}
            if ins.op in STRAIGHT_LINE_BREAKS:
                continue
        if ins.op in _CLOSE:
            last = {}
        if ins.op in (Op.LOAD, Op.STORE) and ins.info.get("space") == "shared" \
                and not ins.info.get("volatile") and ins.ctype is not None and ins.args:
            size = _size(ins.ctype)
            e = lin(ins.args[0])
            if size in (4, 8) and e is not None:
                pred = ins.info.get("pred_cond")
                pkey = (pred.slot, version.get(pred.slot, 0)) if type(pred) is Reg else None
                key = (ins.op, e[0], pkey)
                prev = last.get(key)
                if prev is not None and prev[0] + prev[1] == e[1] and prev[1] == size \
                        and prev[3] + size <= MAX_BYTES:
                    out[p] = prev[2]
                    last[key] = (e[1], size, prev[2], prev[3] + size)
                elif aligned(e, 2 * size):
                    last[key] = (e[1], size, p, size)
                else:
                    last.pop(key, None)
        dsts = ins.dst if isinstance(ins.dst, list) else ([ins.dst] if ins.dst is not None else [])
        val = None
        if len(dsts) == 1 and type(dsts[0]) is Reg:
            dt = getattr(dsts[0], "dtype", None)
            if dt is not None and dt.kind in "iu" and dt.itemsize >= 4:
                if ins.op in (Op.MOV, Op.CAST) and ins.args:
                    val = lin(ins.args[0])
                elif ins.op == Op.BIN and len(ins.args) == 2:
                    a, b = ins.args
                    if ins.sub == "add":
                        val = combine(lin(a), lin(b))
                    elif ins.sub == "sub":
                        val = combine(lin(a), lin(b), -1)
                    elif ins.sub == "mul":
                        val = scaled(lin(a), _int(b)) if _int(b) is not None else scaled(lin(b), _int(a))
                    elif ins.sub == "shl" and _int(b) is not None and 0 <= _int(b) < 32:
                        val = scaled(lin(a), 1 << _int(b))
                    if val is None:         # ``t % 64`` computed again is the same value
                        ea, eb = lin(a), lin(b)
                        if ea is not None and eb is not None:
                            val = (((("f", ins.sub, ea, eb), 1),), 0)
                elif ins.op == Op.UN and len(ins.args) == 1 and lin(ins.args[0]) is not None:
                    val = (((("f", ins.sub, lin(ins.args[0])), 1),), 0)
        for d in dsts:
            if type(d) is Reg:
                version[d.slot] = version.get(d.slot, 0) + 1
                env.pop(d.slot, None)
        if val is not None:
            env[dsts[0].slot] = val
    ir._simt_shared_fields = out
    return out
