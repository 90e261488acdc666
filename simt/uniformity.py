"""Which values are the same in every lane of a warp (a divergence analysis).

nvcc aggregates an integer atomic whose address is warp-uniform and whose result is
unused: the warp reduces the values first and one lane performs a single atomic.  It
does the same for an ``atomicAdd``/``atomicSub`` of a warp-uniform value whose result is
used (``out[atomicAdd(&count, 1)] = v``: VOTEU.ANY, FLO and POPC pick a leader and
count the lanes, the leader's ATOMG adds the count, SHFL.IDX hands its result to the
lanes, which add their rank; probes10.cu's ``compact_atomic`` on sm_90).  Nsight then
counts one request and one sector per warp, and the L2 sees one transaction.  To count
like the hardware, the emulator marks such atomics ``info["aggregated"]``.

A register is varying if it comes from threadIdx, a load, an atomic, a shuffle, or from
varying operands; a variable is also varying if it is assigned under a varying branch or
in a loop that lanes can leave at different trips.  Everything else is uniform.
Limitations: loads from uniform addresses are treated as varying (as the compiler must,
unless it proves the memory read-only), which errs towards not aggregating.
"""
from __future__ import annotations

from .ir import Const, KernelIR, Op, Reg, Uniform
from .loops import AFFINE, constant_trips, def_before, first_writes, loops

_DATAFLOW = {Op.BIN, Op.UN, Op.CAST, Op.MOV, Op.SELECT, Op.FMA}
_WARP_UNIFORM_CALLS = {"__ballot_sync", "__any_sync", "__all_sync", "__uni_sync", "__activemask",
                       *(f"__reduce_{k}_sync" for k in ("add", "min", "max", "and", "or", "xor"))}
_AGGREGATABLE = {"add", "sub", "and", "or", "xor", "min", "max"}


def _dsts(ins):
    d = ins.dst
    if d is None:
        return []
    return list(d) if isinstance(d, list) else [d]


def analyse(ir: KernelIR) -> set[int]:
    """ids of the varying registers; marks aggregated atomics in ``ins.info``."""
    code = ir.code
    varying: set[int] = {id(r) for r in ir.regs if r.builtin.startswith("tid.")}
    # the loop each LOOPINIT opens: its LOOPTEST (the condition that guards its body)
    loop_test = {}
    for pc, ins in enumerate(code):
        if ins.op == Op.LOOPINIT:
            for q in range(pc + 1, len(code)):
                if code[q].op == Op.LOOPTEST and code[q].depth == ins.depth + 1:
                    loop_test[pc] = q
                    break
    varying_levels: set[tuple[int, int]] = set()    # (pc of the construct, level) left by some lanes
    # a named variable's scope starts at the depth of its first write: guards around that
    # (the `if (i < n)` a loop counter is declared in) hold for all of its writes, so they
    # make it no less uniform among the lanes that use it
    scope = {v: code[q].depth for v, q in first_writes(code).items()}

    def is_var(o):
        return isinstance(o, Reg) and id(o) in varying

    changed = True
    while changed:
        changed = False
        guard: dict[int, object] = {}      # level -> (condition operand or "V" for varying, owner pc)
        owner: dict[int, int] = {}

        def guarded(r, d):
            """a varying guard at depth d opened inside the variable's scope"""
            d0 = scope.get(id(r), 0)
            return any((g == "V") or is_var(g) for lv, g in guard.items() if d0 < lv <= d)
        for pc, ins in enumerate(code):
            d = ins.depth
            for lv in [k for k in guard if k > d + 1]:
                del guard[lv]
            gv = any((g == "V") or is_var(g) for lv, g in guard.items() if lv <= d)
            op = ins.op
            if op == Op.IF:
                guard[d + 1] = ins.args[0]
                owner[d + 1] = pc
                if is_var(ins.args[0]) and id(ins.ereg) not in varying:
                    varying.add(id(ins.ereg))
                    changed = True
            elif op == Op.ELSE:
                guard[d + 1] = ins.ereg
                owner[d + 1] = pc
            elif op == Op.LOOPINIT:
                t = code[loop_test[pc]] if pc in loop_test else None
                lv_var = (pc, d + 1) in varying_levels
                guard[d + 1] = "V" if lv_var else (t.args[0] if t is not None and t.args else None)
                owner[d + 1] = pc
            elif op == Op.BODYINIT:
                guard[d + 1] = "V" if (pc, d + 1) in varying_levels else None
                owner[d + 1] = pc
            elif op == Op.KILL and gv:
                # some lanes leave the construct that owns this level: what follows diverges
                lv = ins.level
                key = (owner.get(lv, -1), lv)
                if lv > 0 and key not in varying_levels:
                    varying_levels.add(key)
                    changed = True
            for r in _dsts(ins):
                if id(r) in varying:
                    continue
                if op in _DATAFLOW:
                    v = any(is_var(a) for a in ins.args) or (r.is_var and guarded(r, d))
                elif op == Op.CALL and ins.sub.startswith("m_"):
                    v = any(is_var(a) for a in ins.args) or (r.is_var and guarded(r, d))
                elif op == Op.CALL and ins.sub in _WARP_UNIFORM_CALLS:
                    v = r.is_var and guarded(r, d)
                else:                       # loads, atomics, shuffles, lane ids
                    v = True
                if v:
                    varying.add(id(r))
                    changed = True
    for ins in code:
        if ins.op == Op.LOAD and not is_var(ins.args[0]):
            ins.info["uniform_addr"] = True     # (simt.issue: a __constant__ operand)
        if ins.op == Op.IF and ins.args and is_var(ins.args[0]):
            ins.info["varying_cond"] = True     # lanes may go both ways (simt.issue.uniform_ldc_pcs)
        if ins.op == Op.ATOM and ins.sub in _AGGREGATABLE and ins.ctype.dtype.kind in "iu" \
                and isinstance(ins.args[0], (Reg, Const, Uniform)) and not is_var(ins.args[0]) \
                and (ins.dst is None or (ins.sub in ("add", "sub") and not is_var(ins.args[1]))):
            ins.info["aggregated"] = True
    return varying


def static_spaces(ir: KernelIR) -> None:
    """Mark each load and store with the address space its pointer comes from, where the
    source says it (shared/local array bases, extern shared, pointer parameters,
    ``__device__`` variables, and ``"const"`` for ``__constant__`` ones, whose loads go
    through the constant cache), so an if-converted access is classified without looking
    at lanes that computed nothing."""
    from .spaces import LOCAL_BASE, SHARED_BASE
    space: dict[int, str] = {}
    pointer_params = {p.uniform.index for p in ir.params if p.is_pointer}
    pointer_params |= {u.index for p in ir.params for _, t, _, u in p.fields or () if t.is_pointer()}

    def of(o):
        if isinstance(o, Const):
            try:
                v = int(o.value)
            except (TypeError, ValueError):
                return None
            return "local" if v >= LOCAL_BASE else "shared" if v >= SHARED_BASE else None
        if isinstance(o, Uniform):
            if o.name == "dynshared":
                return "shared"
            if o.name.startswith("csym."):     # a __constant__ variable
                return "const"
            return "global" if o.index in pointer_params or o.name.startswith("gsym.") else None
        return space.get(id(o))

    for _ in range(2):                 # twice: loop-carried pointers
        for ins in ir.code:
            if ins.op in (Op.BIN, Op.MOV, Op.CAST) and isinstance(ins.dst, Reg):
                found = {of(a) for a in ins.args} - {None}
                if len(found) == 1:
                    space[id(ins.dst)] = found.pop()
    for ins in ir.code:
        if ins.op in (Op.LOAD, Op.STORE):
            sp = of(ins.args[0])
            if sp:
                ins.info["space"] = sp


_NO_PREDICATION = {Op.IF, Op.ELSE, Op.LOOPINIT, Op.LOOPTEST, Op.BODYINIT, Op.JUMP, Op.KILL,
                   Op.BAR, Op.SYNCWARP, Op.PRINTF, Op.ASSERT, Op.EXIT, Op.ATOM, Op.CALL}
PREDICATE_MAX = 16
# calls that are one ALU instruction (FMNMX, IMNMX, an absolute value's modifier): nothing
# to branch around, so a body with them is predicated like any other (probe/loglum's
# reduction, s_max[t] = fmaxf(s_max[t], s_max[t + s]): @!P0 LDS ... in its sm_90 SASS)
_ONE_INSTRUCTION = {"m_min", "m_max", "m_fmin", "m_fmax", "m_fabs"}   # (abs is m_fabs too)


def body_size(body: list) -> int:
    """The instructions of a straight-line ``if`` body in a fully unrolled loop that nvcc
    keeps inside it, roughly as SASS counts them.  Register moves cost nothing, and so
    does the arithmetic of an address that is affine in values from outside the body (adds,
    subtractions, multiplications and left shifts, the loop's counter a constant in each
    copy): it folds into one ``LEA`` and an immediate offset, above the branch.
    ``t[offset * (2 * tid + 1) - 1]`` in ``blelloch_scan``'s up-sweep is its loads, its
    store and the add: four SASS instructions where the IR counts 20.  An address with
    anything else on its way (``i + (i >> 5)``, a padded index) keeps all of its
    arithmetic: ``blelloch_padded`` (probes21.cu) is twelve SASS instructions a level, a
    branch."""
    n = len(body)
    defs: list[list] = []                  # per instruction, per operand: the body's writer
    last: dict[int, int] = {}
    for j, ins in enumerate(body):
        defs.append([last.get(id(a)) if isinstance(a, Reg) else None for a in ins.args])
        if isinstance(ins.dst, Reg):
            last[id(ins.dst)] = j
    uses: list[list] = [[] for _ in range(n)]
    for k, ins in enumerate(body):
        for pos, j in enumerate(defs[k]):
            if j is not None:
                uses[j].append((k, pos))
    free = {j for j, ins in enumerate(body)
            if isinstance(ins.dst, Reg) and (ins.op in (Op.MOV, Op.CAST) or
                                             (ins.op == Op.BIN and ins.sub in AFFINE))}
    changed = True
    while changed:
        changed = False
        for j in sorted(free):
            ok = uses[j] and all((body[k].op in (Op.LOAD, Op.STORE) and pos == 0) or k in free
                                 for k, pos in uses[j]) and \
                all(w is None or w in free for w in defs[j])
            if not ok:
                free.discard(j)
                changed = True
    return sum(1 for j, ins in enumerate(body) if ins.op != Op.MOV and j not in free)


def if_convert(ir: KernelIR) -> None:
    """nvcc if-converts a short ``if`` with no control flow, atomics or global stores inside:
    its instructions become predicated, issued by every warp that reaches the branch,
    active lanes or not.  Mark them (``info["predicated"]``) so the machine issues and
    counts them as Nsight does, and lets a warp go past the ``IF`` without waiting for its
    condition: each predicated instruction waits for it as for an operand
    (``info["pred_cond"]``; timing_investigation/l1lat/).  Needs ``static_spaces`` first.
    Limitations: "short" is at most ``PREDICATE_MAX`` IR instructions, or, in a loop nvcc
    unrolls fully, ``body_size``'s estimate of the SASS.  nvcc's own rule is not known: it
    predicates ``t[bi] += t[ai]`` in a loop whose trips come from blockDim (up_rt in
    docs/results/timing_investigation/pred/, 20 IR instructions, 7 SASS) and branches
    around scan_otimizado's down-sweep (two loads and two stores; Nsight's instruction
    counts), and simt does not tell the two apart: it branches around both."""
    code = ir.code
    first = first_writes(code)
    unrolled = [(top, back) for top, back in loops(code)
                if constant_trips(code, top, back, geometric=True) is not None]
    # innermost first: an ``if`` whose body holds short ``if``s nvcc predicates is
    # predicated whole (gshare's `if (taken) { if (c < 3) c++; } else { if (c > 0) c--; }`:
    # @P0 VIADD, @!P0 VIADD, SEL in its sm_90 SASS, no branch; unseen106/)
    for p in range(len(code) - 1, -1, -1):
        ins = code[p]
        if ins.op != Op.IF or not ins.info.get("stmt_if"):
            continue
        # in a loop nvcc unrolls fully, the counter is a constant in each copy and the
        # address arithmetic folds (body_size); elsewhere the IR's own count
        size = body_size if any(top < p < back for top, back in unrolled) else len
        t = ins.target
        els = code[t] if t < len(code) and code[t].op == Op.ELSE and code[t].ereg is ins.ereg else None
        bodies = [(p + 1, t)] + ([(t + 1, els.target)] if els is not None else [])
        body = [code[k] for a, b in bodies for k in range(a, b)]
        if not body or any(size(code[a:b]) > PREDICATE_MAX for a, b in bodies) or \
                any(i.op in _NO_PREDICATION and not (i.op == Op.CALL and i.sub in _ONE_INSTRUCTION)
                    and not (i.op in (Op.IF, Op.ELSE) and i.info.get("predicated"))
                    for i in body) or \
                any(i.op == Op.STORE and i.info.get("space") != "shared" for i in body):
            continue
        cond = ins.args[0] if ins.args and type(ins.args[0]) is Reg else None
        for i in [ins] + ([els] if els is not None else []) + body:
            i.info["predicated"] = True
            if cond is not None and i is not ins and i is not els and "pred_cond" not in i.info:
                # a predicated instruction waits for its predicate as for an operand; the
                # warp does not wait at the branch (there is none)
                i.info["pred_cond"] = cond
            # a variable that lives on past the body keeps its old value in the lanes that
            # are off: assigning it a value from outside the body (`best = d; arg = k`) is
            # a SEL, which simt.issue counts; a value the body computes is written straight
            # into the variable's register, and a body's own temporaries are registers
            if i.op == Op.MOV and isinstance(i.dst, Reg) and i.dst.is_var and first.get(id(i.dst), p) < p:
                src = def_before(code, i.args[0], i.pc) if isinstance(i.args[0], Reg) else None
                if src is None or src.pc < p:
                    i.info["select"] = True
