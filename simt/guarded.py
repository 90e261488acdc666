"""Global atomics a thread reaches only after reading the word it updates (check, then act).

``if (v > mx[b]) atomicMax(&mx[b], v)``, the ``atomicCAS`` loop of the ``atomicMaxFloat``
that courses give (``old = *p; while (val > old) { ... atomicCAS(p, ...) }``) and a
visited flag (``if (!seen[v]) atomicCAS(&seen[v], 0, 1)``) do atomic work only while the
word has not settled: on the GPU the blocks that run late find the maximum (or the flag)
already there and skip the atomic.  A block-sampled launch (``simt.module.sample_block_ids``)
emulates a few blocks spread over the grid, each seeing only the sample's history, so its
extrapolated atomics overstate the grid's: ``probe/bin-max-cas`` (2^22 floats into 4096
bins) was predicted at 17.7 times its H200 time from 512 of 16384 blocks, and at 1.16
times emulated whole (docs/timing.md, "Atomics behind a read of their word").  The
backends (``kernels_cuda.backend``) emulate such a launch whole up to ``WHOLE_THREADS``.

Limitations: the test is syntactic.  The load and the atomic must compute their address
by the same expression (value numbers in program order, not across a loop's back edge
or a write between them), and any ``if`` or loop test on a value derived from the load,
whose scope holds the atomic, counts, whether or not the word settles (a CAS loop whose
first attempt is unconditional, ``do { ... } while``, does not count).
"""
from __future__ import annotations

from .ir import Op, Reg

# the largest launch (threads) a backend emulates whole when its kernel has a guarded
# atomic and the launch would otherwise be block-sampled: 2^22 floats into 4096 bins by an
# atomicCAS loop take 2.6 s whole here
WHOLE_THREADS = 1 << 24


def _scope_end(code, g: int) -> int:
    """The first instruction after the code an IF or LOOPTEST at ``g`` guards (its jump
    target; an IF's else branch is guarded too)."""
    end = code[g].target
    if code[g].op is Op.IF and 0 < end <= len(code) and code[end - 1].op is Op.JUMP \
            and end < len(code) and code[end].op is Op.ELSE:
        end = code[end].target
    return end


def _slots(x) -> list[int]:
    if isinstance(x, list):
        return [r.slot for r in x if type(r) is Reg]
    return [x.slot] if type(x) is Reg else []


def _condition_reads_load(code, load: int, g: int) -> bool:
    """Whether the condition of the guard at ``g`` is computed from the value the load at
    ``load`` read (through the instructions between them, in program order)."""
    tainted = set(_slots(code[load].dst))
    for ins in code[load + 1:g]:
        d = _slots(ins.dst)
        if not d:
            continue
        hit = any(s in tainted for a in ins.args for s in _slots(a))
        for s in d:
            (tainted.add if hit else tainted.discard)(s)
    return any(s in tainted for s in _slots(code[g].args[0] if code[g].args else None))


def _address_keys(code) -> list:
    """Per pc, a value number for its first argument (an address): the expression that
    computed it, in program order, a load standing for the word it read (``bin[i]`` loaded
    twice is one value), so that ``mx[bin[i]]`` computed again for the atomic matches the
    load's."""
    cur, keys, table = {}, [], {}

    def key(a):
        if type(a) is Reg:
            return ("b", a.builtin) if a.builtin else cur.get(a.slot, ("r", a.slot))
        return ("c", repr(a))

    for ins in code:
        keys.append(key(ins.args[0]) if ins.args else None)
        d = _slots(ins.dst)
        if len(d) == 1 and ins.info.get("merged_load"):
            cur[d[0]] = key(ins.args[0])         # a load simt.cse merged: the word it read
        elif len(d) == 1 and ins.op in (Op.BIN, Op.UN, Op.CAST, Op.MOV, Op.LOAD, Op.FMA, Op.SELECT):
            e = (ins.op.name, repr(ins.sub), repr(ins.ctype), tuple(key(a) for a in ins.args))
            cur[d[0]] = ("v", table.setdefault(e, len(table)))
        else:
            for s in d:                          # a value of its own
                cur[s] = ("v", table.setdefault(("pc", id(ins), s), len(table)))
    return keys


def guarded_atomics(code) -> list[int]:
    """The pcs of the global atomics that only run where a test on a load of their own
    address (the same value number, ``_address_keys``) let the thread through."""
    atoms = [a for a, ins in enumerate(code) if ins.op is Op.ATOM and ins.args
             and ins.info.get("space") not in ("shared", "local")]
    if not atoms:
        return []
    keys = _address_keys(code)
    jumps = [(j, ins.target) for j, ins in enumerate(code) if ins.op is Op.JUMP]
    out = []
    for a in atoms:
        loads = [j for j in range(a) if code[j].op is Op.LOAD and keys[j] == keys[a]
                 and code[j].info.get("space") not in ("shared", "local")]
        for g in range(a):
            if code[g].op not in (Op.IF, Op.LOOPTEST) or not g < a < _scope_end(code, g):
                continue
            if any(j < g < t <= a for j, t in jumps):
                continue            # a do-while: its first trip jumps past the test
            if any(j < g and _condition_reads_load(code, j, g) for j in loads):
                out.append(a)
                break
    return out


def has_guarded_atomic(kernel) -> bool:
    """Whether a kernel (``simt.Kernel``) has a guarded global atomic (``guarded_atomics``),
    found once per kernel."""
    ir = kernel.ir
    got = getattr(ir, "_simt_guarded", None)
    if got is None:
        got = ir._simt_guarded = bool(guarded_atomics(ir.code))
    return got
