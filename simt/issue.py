"""Issue slots: how many SASS instructions nvcc would issue for each IR instruction.

The timing model's ``issue`` component counts what a warp scheduler issues.  The IR is
not SASS: it copies every assignment into its variable (``MOV``), marks loops with
pseudo-instructions, negates as a separate step, and runs a loop's counter, compare and
branch on every trip.  nvcc allocates variables to registers, folds negation into the
operand, and unrolls loops whose trip steps by a constant, so that their control runs once
per several trips.  It computes an access's address (widen the index, scale it, add the
base) in one instruction or folds it into the access's immediate offset.
``issue_weights`` gives each instruction of a kernel its share of a
slot; ``Counters.metrics`` sums them over what the warps executed
(``simt__issue_slots.sum``).

Measured on sm_90 SASS (docs/results/timing_investigation/unseen5/): the Mandelbrot
loop is 19 IR instructions a trip and 11 SASS instructions (not unrolled: its exit
depends on the data); cal_alu's loop, on which ``issue_ipc`` is calibrated, is 14 IR
instructions and about 4.75 SASS a trip (4 FFMA; the counter, compare and branch once per
4 unrolled trips).  Counted in slots they are 12 and 4.75.

A second count, ``alu_pipe_weights``, gives the slots that go to the integer ALU pipe:
logic operations, shifts right (and shifts left by a variable amount: nvcc turns a
constant left shift into ``IMAD.SHL`` on the FMA pipe), funnel shifts and byte permutes
(``SHF``, ``PRMT``), comparisons, selects, min/max, conversions of integers to floats,
warp votes (``VOTE``: ``__ballot_sync``, ``__any_sync``, ...).
On sm_90 that pipe takes a warp instruction every other cycle per sub-partition, so a
kernel made mostly of them (a xorshift random number generator:
docs/results/timing_investigation/unseen6/) issues at half the rate; the
timing model's ``issue`` component takes the larger of the two (``alu_ipc`` is measured
on ``cal_lop``, chains of shifts and xors).

Limitations: apart from the ALU pipe, a slot is one instruction, whatever its pipe;
of nvcc's rewrites only those named here are modelled (``_fused``'s SHF, LOP3 and IADD3,
free conversions, if-conversion, unrolling), not common subexpressions, strength
reduction or loop unswitching: a select on a uniform, loop-invariant condition
(``s > 0 ? b << s : b >> -s``) costs both arms, where nvcc branches once and runs one; a
loop counts as unrolled by 4 whenever its test compares counters that step by constants
with values the loop does not change.
"""
from __future__ import annotations

import numpy as np

from .cse import _BOUNDARY as STRAIGHT_LINE_BREAKS, _PURE as ARITHMETIC, _size
from .ir import Const, Op, Reg, Uniform
from .loops import (AFFINE, _int_const, add_step, counter_values, def_before,
                    folded_value, full_unrolls, loop_test, loops, writers)
from .promote import folded_offsets, register_locals
from .rounding import FP64_PIPE as ROUNDING_FP64
from .regalloc import regs_of

FREE = {Op.MOV, Op.LOOPINIT, Op.BODYINIT, Op.ELSE, Op.JUMP}
UNROLL = 4                 # trips nvcc unrolls a loop of unknown trip count by
INORDER_FROM_SLOW_PATH = True  # inorder_pcs: a branchy loop's arithmetic waits only from its first slow path on (False: from its top)
ADDRESS = 1.0 / 3.0        # an access's index arithmetic (widen, scale, add the base): one
                           # IMAD.WIDE or LEA in SASS for the IR's CAST, mul and add
_ADDR_OPS = {"add", "sub", "mul", "shl"}


def issue_weights(ir) -> np.ndarray:
    """Per pc, the SASS issue slots the instruction stands for (0, 1/UNROLL or 1)."""
    got = getattr(ir, "_simt_issue_weights", None)
    if got is not None:
        return got
    code = ir.code
    wide_products(ir)
    w = np.ones(len(code), np.float64)
    for p, ins in enumerate(code):
        if ins.info.get("select"):
            pass            # an if-converted assignment is a SEL (or a predicated MOV): a slot
        elif ins.op in FREE or (ins.op == Op.UN and ins.sub == "neg"):
            w[p] = 0.0
        elif ins.op == Op.LOAD and ins.info.get("space") == "const" and ins.info.get("uniform_addr") \
                and p not in uniform_ldc_pcs(ir):
            w[p] = 0.0      # an operand from the constant bank (c[0x3][...]), or a uniform-pipe ULDC
    for p, ins in enumerate(code):
        if w[p] == 1.0:
            w[p] = _wide_slots(ins)
    addr = _address_only(code)
    for p in addr:
        w[p] = ADDRESS
    uses = _uses(code)
    for p in (_free_casts(code, uses) | _shift_amount_casts(code, uses)) - addr:
        w[p] = 0.0
    for p in _trailing_returns(code):
        w[p] = 0.0
    for p in _predicate_only(code, uses) | _minmax_selects(code, uses):
        w[p] = 0.0
    for p in _fused(code, uses, w):
        w[p] = 0.0
    w[sorted(dead_code(code))] = 0.0
    for p, share in _shared_copies(code, _full(ir)).items():
        w[p] *= share
    for control in _unrolled(ir).values():
        for p in control:
            w[p] = min(w[p], 1.0 / UNROLL)
    w[sorted(compile_time(ir))] = 0.0
    for p in _divergence_checked(ir):
        w[p] += DIVERGENCE_CHECK
    ir._simt_issue_weights = w
    return w


# nvcc's check before a warp-synchronous vote or shuffle that it cannot prove the whole
# warp reaches (UMOV of the mask, BRA.DIV to an out-of-line WARPSYNC.COLLECTIVE path):
# probe/warp-hash-probe's ballots in a loop that breaks on data (unseen36/, sm_90 SASS)
DIVERGENCE_CHECK = 2.0

# warp shuffles: a SHFL moves 32 bits a lane, so a double or 64-bit integer is two; each
# SHFL passes L1's data pipe as a wavefront beside the shared accesses (Nsight counts
# them in l1tex__data_pipe_lsu_wavefronts_mem_shared: timing_investigation/unseen213/,
# unseen214/, unseen224/ and shflpipe/)
SHFL_CALLS = frozenset({"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync"})
# the warp-synchronous calls nvcc puts DIVERGENCE_CHECK before
_WARP_SYNC = SHFL_CALLS | {"__ballot_sync", "__any_sync", "__all_sync", "__uni_sync", "__match_any_sync"}


def dead_code(code) -> set[int]:
    """The pcs of pure operations (arithmetic, casts, selects) whose result nothing reads
    before it is written again in the same straight-line run: nvcc removes them.  The IR
    has them where ``simt.cse`` turned a repeated load into a copy and left the load's
    address arithmetic behind (``t[k]`` read twice: the second ``k * 4 + t`` feeds
    nothing).  Backwards through each run, with everything live at its end."""
    starts = {ins.target for ins in code if ins.target >= 0}
    dead: set[int] = set()
    rewritten: set[int] = set()          # slots whose next access after this pc is a write
    read: set[int] = set()               # slots read after this pc (in the run)
    ends = True                          # the run ends the kernel: what it does not read is dead
    for p in range(len(code) - 1, -1, -1):
        ins = code[p]
        if ins.op in STRAIGHT_LINE_BREAKS or ins.target >= 0:
            rewritten, read, ends = set(), set(), ins.op == Op.EXIT
        d = ins.dst
        if ins.op in ARITHMETIC and type(d) is Reg and (d.slot in rewritten or (ends and d.slot not in read)):
            dead.add(p)
            continue
        rewritten.update(r.slot for r in regs_of(d))
        for r in (*regs_of(ins.args), *regs_of(ins.ereg)):
            rewritten.discard(r.slot)
            read.add(r.slot)
        if p in starts:
            rewritten, read, ends = set(), set(), False
    return dead


def _divergence_checked(ir) -> list[int]:
    """The warp-synchronous calls inside an ``if`` or a loop nvcc does not unroll fully: there
    nvcc tests for divergence first (a loop adds two mask levels, an ``if`` one; the
    shuffles of a fully unrolled loop at the top level, as in a warp reduction, have no test)."""
    code = ir.code
    lps, full = loops(code), _full(ir)
    out = []
    for p, ins in enumerate(code):
        if ins.op != Op.CALL or ins.sub not in _WARP_SYNC:
            continue
        enc = [lp for lp in lps if lp[0] <= p <= lp[1]]
        if ins.depth > 2 * len(enc) or any(lp not in full for lp in enc):
            out.append(p)
    return out


def compile_time(ir) -> frozenset:
    """The pcs that leave nothing to issue in nvcc's code once it unrolls the loops with
    constant trip counts fully (``loops.constant_trips``): those loops' control (counter,
    compare, test, jumps), the address arithmetic it folds into immediate offsets, and
    the local loads and stores of arrays it keeps in registers, with their addresses
    (``simt.promote``).  The machine's clock passes over them too."""
    got = getattr(ir, "_simt_compile_time", None)
    if got is not None:
        return got
    code = ir.code
    out = set(folded_offsets(ir, _address_only(code)))
    full = _full(ir)
    for (top, back), control in _unrolled(ir).items():
        if (top, back) in full:
            out.update(control)
            out.update(p for p in (top - 1, back) if code[p].op in (Op.LOOPINIT, Op.JUMP))
            out.update(p for p in range(top, back + 1) if code[p].op == Op.BODYINIT)
    out.update(_folded_counters(code, full))
    out.update(loop_invariant_pcs(ir))
    moves = register_locals(ir)
    if moves:
        out |= moves | _address_only(code, moves)
    ir._simt_compile_time = frozenset(out)
    return ir._simt_compile_time


# the extended rule's ``__constant__`` loads (and the arithmetic of their addresses) are
# made before the loop (loop_invariant_pcs); False leaves them in it, as before session 64
# (repredict/screen_rows.py's CHANGE=constloads compares the two)
HOIST_CONST_LOADS = True


def loop_invariant_pcs(ir) -> frozenset:
    """The arithmetic inside a loop nvcc does not unroll fully whose value is the same on
    every trip: its operands are constants, values set before the loop that the loop does
    not write, or such arithmetic's results.  nvcc computes it once before the loop (LLVM's
    loop-invariant code motion): ``dt / 6.0f`` in an RK4 step, ``blockDim.x * gridDim.x``
    in a grid-stride loop.  ``probe/rk4-lorenz-sweep``'s sm_90 SASS comes to about 46
    instructions a step, ``0.5f * dt`` and ``dt / 6.0f`` computed before the loop, where
    simt counted 55 slots and three float divisions' measured sequences a step
    (docs/results/timing_investigation/unseen72/).  Loops are taken outermost: what is
    invariant in an inner loop only (computed once a trip of the outer one) is not moved.
    Loads and calls are never moved (what a load reads may change), copies (``MOV``) issue
    nothing anyway, and an integer division or remainder only by a nonzero constant (it
    may trap).  A float division is also moved where it is invariant once a
    ``__constant__`` word every lane reads counts as invariant (a kernel cannot write
    constant memory) and a loop nvcc unrolls fully as straight-line code:
    ``c_pk_beta[g] / Lam`` in a step loop, g the counter of an unrolled loop, is computed
    before the loop in ``probe/point-kinetics-rk4-double``'s SASS, where simt divided 24
    times a step (docs/results/timing_investigation/unseen195/); so is what computes its
    operands under that extension.  So is, since session 64, each ``__constant__`` word
    that extension finds invariant, with the arithmetic of its address, in a loop whose body
    has no ``if`` on a condition that differs by lane (``_uniform_loops``: where nvcc reads
    table words through the uniform datapath): the ten band coefficients of
    ``probe/synth-resonator-bank-double-const`` are ten ``ULDC.64`` before its step loop in
    the SASS (unseen206/), where simt read them every step, each a constant cache latency in
    an in-order chain (1.55 -> 0.99; ``point-kinetics-rk4-double`` 2.48 -> 1.20).  In loops
    that branch by lane, the SASS of the probes reads such words with ``LDC`` (in
    ``hmc-leapfrog-mvn16``, ``tauleap-repressilator``, ``psha-hazard-erfc``, the crowd
    kernels), and hoisting them there too took five rows further from the GPU, ``hmc`` out of
    the 1.5x band (``docs/results/timing_investigation/constloads/``).  The rest of what
    that extension finds (products of constant words, arithmetic on them) is left: applied
    to everything it made a dozen probes' predictions faster and further from the GPU on
    the whole (session 61); nvcc keeps a few values in registers, not everything invariant.
    A value reaches its use as invariant only from a write that runs on every path to the
    use in the trip (no lower depth between them) and that nothing in the loop writes after
    it on the way back to the use."""
    got = getattr(ir, "_simt_invariant", None)
    if got is not None:
        return got
    code = ir.code
    out = _invariant(ir, False)
    # (the extended rule, constant words and unrolled counters: for float divisions and
    # what computes their operands)
    ext = _invariant(ir, True)
    wr = writers(code)
    uniform = _uniform_loops(ir) if HOIST_CONST_LOADS else ()
    todo = [p for p in ext if code[p].op == Op.BIN and code[p].sub == "div" and code[p].dst.dtype.kind == "f"
            or code[p].op == Op.LOAD and any(top <= p <= back for top, back in uniform)]
    while todo:
        p = todo.pop()
        if p in out:
            continue
        out.add(p)
        todo.extend(w for w in wr[p] if w is not None and w in ext)
    ir._simt_invariant = frozenset(out)
    return ir._simt_invariant


def _uniform_loops(ir) -> list[tuple[int, int]]:
    """The outermost loops nvcc does not unroll fully whose body has no ``if`` on a
    condition that differs by lane (one it does not predicate): the loops whose table
    words nvcc reads through the uniform datapath (``uniform_ldc_pcs``), and whose
    invariant ones it reads once before the loop."""
    code = ir.code
    return [(top, back) for top, back in _outer_kept_loops(ir)
            if not any(_lane_branch(code[q]) for q in range(top, back + 1))]


def _lane_branch(ins) -> bool:
    """An ``if`` on a condition that differs by lane, which nvcc does not predicate: a
    branch in SASS."""
    return ins.op == Op.IF and bool(ins.info.get("varying_cond")) and not ins.info.get("predicated")


def _outer_kept_loops(ir) -> list[tuple[int, int]]:
    """The outermost loops nvcc does not unroll fully (inside no other loop)."""
    full = _full(ir)
    lps = loops(ir.code)
    return [(top, back) for top, back in lps
            if (top, back) not in full and not any(t <= top and back <= b and (t, b) != (top, back) for t, b in lps)]


def _invariant(ir, extended: bool) -> set[int]:
    """``loop_invariant_pcs``'s rule; ``extended``: with ``__constant__`` words every lane
    reads taken as invariant where their address is, and loops nvcc unrolls fully taken as
    straight-line code (their counter a constant in each copy), the loads of those words
    included (no other load is invariant)."""
    code = ir.code
    full = _full(ir)
    lps = loops(code)
    wr = writers(code)
    out: set[int] = set()
    for top, back in _outer_kept_loops(ir):
        writes: dict[int, list[int]] = {}
        for q in range(top, back + 1):
            for r in regs_of(code[q].dst):
                writes.setdefault(id(r), []).append(q)
        inner = [(t, b) for t, b in lps if top <= t and b <= back and (t, b) != (top, back)
                 and not (extended and (t, b) in full)]
        inv: set[int] = set()

        def invariant(p: int, k: int) -> bool:
            a = code[p].args[k]
            if type(a) is not Reg:
                return True
            w = wr[p][k]
            if w is None or not top <= w <= back:
                return id(a) not in writes
            if w not in inv or min(code[q].depth for q in range(w + 1, p + 1)) < code[w].depth:
                return False
            # written again on the way back to p (an inner loop around p but not w)
            return not any(w < t <= p <= b and any(p < q <= b for q in writes[id(a)]) for t, b in inner)

        for p in range(top, back + 1):
            ins = code[p]
            if (ins.op not in _PURE and not (extended and _constant_operand(ins))) or type(ins.dst) is not Reg \
                    or ins.info.get("predicated") or ins.info.get("select") or ins.info.get("volatile") \
                    or not ins.args:
                continue
            if ins.op == Op.BIN and ins.sub in ("div", "mod") and ins.dst.dtype.kind in "iu" and \
                    not (type(ins.args[1]) is Const and ins.args[1].value != 0):
                continue
            if all(invariant(p, k) for k in range(len(ins.args))):
                inv.add(p)
        out.update(p for p in inv if code[p].op != Op.MOV)
    return out


def _constant_operand(ins) -> bool:
    """A load of a ``__constant__`` word the same in every lane: at an address the same on
    every trip, nvcc reads it as an operand from the constant bank (``uniform_ldc_pcs``'s
    ``LDC``s are those whose address changes by trip)."""
    return ins.op == Op.LOAD and ins.info.get("space") == "const" and bool(ins.info.get("uniform_addr"))


def _wide_slots(ins) -> float:
    """SASS instructions of an integer operation on 64-bit values: sm_90's integer units are
    32 bits wide, so an add, compare, shift, logic operation or select is two (``IADD3`` and
    ``IADD3.X``, ``ISETP`` and ``ISETP.EX``, ...) and a product what ``PRODUCT_SASS`` says:
    of two 64-bit values three (``IMAD.WIDE.U32`` and two ``IMAD``), by a 32-bit value two
    (the Collatz loop's 3n + 1 in probes19.cu: 16 SASS a trip where the IR has 9), of two
    32-bit values one (``IMAD.WIDE``), ``__umul64hi`` seven; a SIMD intrinsic what
    ``SIMD_SASS`` says.  Anything else is one."""
    if (k := ins.info.get("product64")) is not None:
        return PRODUCT_SASS[k]
    if ins.op == Op.CALL and ins.sub in SIMD_SASS:
        return float(SIMD_SASS[ins.sub])
    if ins.op not in (Op.BIN, Op.UN, Op.SELECT) or ins.op == Op.UN and ins.sub not in ("not", "neg"):
        return 1.0
    vals = [a for a in ins.args if isinstance(a, (Reg, Const))]
    if ins.op == Op.SELECT:
        vals = vals[1:]
    if not any(type(a) is Reg and a.dtype.kind in "iu" and a.dtype.itemsize == 8 for a in vals):
        return 1.0
    if ins.op == Op.BIN and ins.sub == "mul":
        return 2.0                         # by a power of two: the two words' shifts
    if ins.op == Op.BIN and ins.sub in ("div", "mod"):
        return 1.0                         # (and machine.OP_COST its sequence)
    return 2.0


# SASS instructions of each SIMD intrinsic (simt.simd) in nvcc's sm_90 code: most are
# sequences of LOP3, PRMT and IADD3; __vabsdiffu4 and __vsadu4 are one VABSDIFF4,
# __vadd2/__vsub2 one VIADD.16, the half-word min/max one VIMNMX.16 (each intrinsic in its
# own kernel against one with a ^ b: timing_investigation/simd/sass_h200.json)
SIMD_SASS = {
    "__vabs2": 4, "__vabs4": 3, "__vabsdiffs2": 6, "__vabsdiffs4": 3, "__vabsdiffu2": 9,
    "__vabsdiffu4": 1, "__vabsss2": 6, "__vabsss4": 5, "__vadd2": 1, "__vadd4": 5,
    "__vaddss2": 6, "__vaddss4": 10, "__vaddus2": 4, "__vaddus4": 7, "__vavgs2": 12,
    "__vavgs4": 12, "__vavgu2": 4, "__vavgu4": 4, "__vcmpeq2": 5, "__vcmpeq4": 5,
    "__vcmpges2": 5, "__vcmpges4": 5, "__vcmpgeu2": 5, "__vcmpgeu4": 5, "__vcmpgts2": 5,
    "__vcmpgts4": 5, "__vcmpgtu2": 4, "__vcmpgtu4": 5, "__vcmples2": 5, "__vcmples4": 5,
    "__vcmpleu2": 5, "__vcmpleu4": 5, "__vcmplts2": 5, "__vcmplts4": 5, "__vcmpltu2": 4,
    "__vcmpltu4": 5, "__vcmpne2": 5, "__vcmpne4": 5, "__vhaddu2": 3, "__vhaddu4": 3,
    "__vmaxs2": 1, "__vmaxs4": 6, "__vmaxu2": 1, "__vmaxu4": 6, "__vmins2": 1, "__vmins4": 6,
    "__vminu2": 1, "__vminu4": 6, "__vneg2": 2, "__vneg4": 3, "__vnegss2": 5, "__vnegss4": 6,
    "__vsads2": 8, "__vsads4": 8, "__vsadu2": 10, "__vsadu4": 1, "__vseteq2": 5,
    "__vseteq4": 5, "__vsetges2": 6, "__vsetges4": 6, "__vsetgeu2": 6, "__vsetgeu4": 6,
    "__vsetgts2": 6, "__vsetgts4": 6, "__vsetgtu2": 6, "__vsetgtu4": 6, "__vsetles2": 6,
    "__vsetles4": 6, "__vsetleu2": 6, "__vsetleu4": 6, "__vsetlts2": 6, "__vsetlts4": 6,
    "__vsetltu2": 6, "__vsetltu4": 6, "__vsetne2": 5, "__vsetne4": 5, "__vsub2": 1,
    "__vsub4": 5, "__vsubss2": 6, "__vsubss4": 10, "__vsubus2": 4, "__vsubus4": 7,
}


_ALU_BIN = {"and", "or", "xor", "shr", "eq", "ne", "lt", "gt", "le", "ge"}
_ALU_CALLS = {"m_min", "m_max",        # IMNMX / FMNMX (min, umin, fminf, ... all lower to these)
              # SHF and PRMT: ChaCha20's rotations (probe/chacha20) issue at the pipe's rate
              "__funnelshift_l", "__funnelshift_lc", "__funnelshift_r", "__funnelshift_rc",
              "__byte_perm",
              # VOTE: probe/bitmat-transpose's 32 ballots a warp keep the ALU pipe 89% busy
              # (ncu's pipe counters, timing_investigation/votes/)
              "__ballot_sync", "__any_sync", "__all_sync", "__uni_sync", "__activemask"}


def alu_pipe_weights(ir) -> np.ndarray:
    """Per pc, the issue slots (``issue_weights``) that go to the integer ALU pipe."""
    got = getattr(ir, "_simt_alu_weights", None)
    if got is not None:
        return got
    w = issue_weights(ir).copy()
    for p, ins in enumerate(ir.code):
        if not _alu_pipe(ins):
            w[p] = 0.0
    ir._simt_alu_weights = w
    return w


# the bit-counting intrinsics: SASS instructions on the pipe that takes a warp's POPC,
# FLO (__clz) or BREV in 8 cycles (16 lanes a cycle an SM): docs/results/timing_investigation/
# bitops/ (H100: 8.6 cycles a warp-instruction a sub-partition; __ffs is BREV then FLO)
BIT_PIPE = {"__popc": 1.0, "__clz": 1.0, "__brev": 1.0, "__ffs": 2.0,
            "__popcll": 2.0, "__clzll": 2.0, "__brevll": 2.0, "__ffsll": 4.0}


def bit_pipe_weights(ir) -> np.ndarray:
    """Per pc, the SASS instructions that go to the bit-counting pipe (``BIT_PIPE``)."""
    got = getattr(ir, "_simt_bit_weights", None)
    if got is None:
        got = ir._simt_bit_weights = np.array(
            [BIT_PIPE.get(ins.sub, 0.0) if ins.op == Op.CALL else 0.0 for ins in ir.code], np.float64)
    return got


def shfl_pipe_weights(ir) -> np.ndarray:
    """Per pc, the SHFL instructions a warp's ``__shfl*_sync`` stands for (one per 32
    bits of the value; none where nvcc drops the call).  Limitations: cooperative groups'
    ``reduce`` is emulated as a butterfly of shuffles for every type, where CUDA's headers
    use one ``REDUX`` for a 32-bit integer sum, min or max on sm_80 and later."""
    got = getattr(ir, "_simt_shfl_weights", None)
    if got is None:
        slots = issue_weights(ir)
        got = np.zeros(len(ir.code), np.float64)
        for p, ins in enumerate(ir.code):
            if ins.op == Op.CALL and ins.sub in SHFL_CALLS and slots[p] > 0:
                dt = getattr(ins.args[1], "dtype", None)
                got[p] = max(1, -(-(dt.itemsize if dt is not None else 4) // 4))
        ir._simt_shfl_weights = got
    return got


# 64-bit integer products on the FMA pipe's heavy half, which takes a warp's IMAD every
# other cycle a sub-partition and an IMAD.WIDE(.U32) in two such turns
# (docs/results/timing_investigation/mont64/: with four warps a sub-partition, a step of
# v = v * c + d takes 33.5 cycles, 8.4 a warp; of __umul64hi 77.6, 19.4 a warp).  In turns:
# a product of two 64-bit values is an IMAD.WIDE.U32 and two IMADs (4), by a 32-bit value
# (a widened int, a constant under 2^32) one IMAD fewer (3), of two 32-bit values one
# IMAD.WIDE (2); __umul64hi / __mul64hi four IMAD.WIDE.U32 linked by carries and an
# IMAD.MOV (9, of 7 SASS instructions, the rest on the ALU pipe).
IMAD_TURNS = {"mul": 4.0, "mul_half": 3.0, "mul_narrow": 2.0, "__umul64hi": 9.0, "__mul64hi": 9.0}
PRODUCT_SASS = {"mul": 3.0, "mul_half": 2.0, "mul_narrow": 1.0, "__umul64hi": 7.0, "__mul64hi": 7.0}


def wide_products(ir) -> dict[int, str]:
    """The 64-bit integer products of a kernel, pc -> ``IMAD_TURNS`` key, also kept on each
    instruction as ``info["product64"]`` (machine.OP_COST's latencies read it).  A product
    of two values that fit in 32 bits (widened ints, small constants: ``(size_t)row * n``)
    is one IMAD.WIDE, ``mul_narrow``; one by a power of two is shifts, not a product."""
    got = getattr(ir, "_simt_wide_products", None)
    if got is not None:
        return got
    out, lps = {}, loops(ir.code)
    for p, ins in enumerate(ir.code):
        if ins.op == Op.CALL and ins.sub in ("__umul64hi", "__mul64hi"):
            out[p] = ins.sub
        elif ins.op == Op.BIN and ins.sub == "mul" and ins.dst is not None and \
                ins.dst.dtype.kind in "iu" and ins.dst.dtype.itemsize == 8:
            a = ins.args[:2]
            consts = [abs(int(x.value)) for x in a if type(x) is Const]
            if any(v & (v - 1) == 0 for v in consts):
                continue
            fits = [_fits_32(ir.code, lps, x, p) for x in a]
            out[p] = "mul_narrow" if all(fits) else "mul_half" if any(fits) else "mul"
    for p, k in out.items():
        ir.code[p].info["product64"] = k
    ir._simt_wide_products = out
    return out


def _fits_32(code, lps, x, pc: int, depth: int = 0) -> bool:
    """Whether an operand at ``pc`` is a 32-bit value: an integer of 4 bytes or fewer, a
    constant that fits, or a register whose reaching writes (the nearest before ``pc``, and
    a write later in a loop around ``pc``, whose value comes round the back edge) widen or
    copy such a value."""
    if type(x) is Const:
        return -(1 << 31) <= int(x.value) < (1 << 32)
    if type(x) not in (Reg, Uniform) or depth > 6:
        return False
    if x.dtype.kind in "iub" and x.dtype.itemsize <= 4:
        return True
    d = def_before(code, x, pc) if type(x) is Reg else None
    if d is None:
        return False
    ws = [d] + [code[q] for top, back in lps if top <= pc <= back
                for q in range(pc, back + 1) if code[q].dst is x]
    return all(w.op in (Op.CAST, Op.MOV) and w.args and _fits_32(code, lps, w.args[0], w.pc, depth + 1)
               for w in ws)


def imad_pipe_weights(ir) -> np.ndarray:
    """Per pc, the FMA pipe's half-rate turns of 64-bit integer products (``IMAD_TURNS``,
    in proportion to the instruction's issue slots, so a product nvcc folds into an
    address or computes before the loop costs what its slots do).  Limitations: 32-bit
    IMADs and an access's address arithmetic (one IMAD.WIDE or LEA, ``ADDRESS``) are left
    to the issue rate."""
    got = getattr(ir, "_simt_imad_weights", None)
    if got is not None:
        return got
    slots = issue_weights(ir)
    addr = _address_only(ir.code)
    w = np.zeros(len(ir.code), np.float64)
    for p, k in wide_products(ir).items():
        if slots[p] and p not in addr:
            w[p] = slots[p] * IMAD_TURNS[k] / _wide_slots(ir.code[p])
    ir._simt_imad_weights = w
    return w


# the FP64 pipe: an sm_90 SM has 64 FP64 lanes, half its FP32 rate, so a kernel made mostly
# of double adds, multiplies, FMAs and comparisons issues at half the rate (fp64_ipc,
# measured on cal_dfma: four independent DFMA chains)
_FP64_BIN = {"add", "sub", "mul", "eq", "ne", "lt", "gt", "le", "ge"}


def fp64_pipe_weights(ir) -> np.ndarray:
    """Per pc, the issue slots (``issue_weights``) that go to the FP64 pipe: ``DADD``,
    ``DMUL``, ``DFMA`` (a contracted ``a * b + c`` or ``fma()``) and ``DSETP``.  Limitations: conversions to and from doubles (a
    quarter of that rate on sm_90) and the math library's double paths (``OP_COST``
    measures those whole) are not counted here."""
    got = getattr(ir, "_simt_fp64_weights", None)
    if got is not None:
        return got
    w = issue_weights(ir).copy()
    for p, ins in enumerate(ir.code):
        if not _fp64_pipe(ins):
            w[p] = 0.0
    ir._simt_fp64_weights = w
    return w


def _is_f64(x) -> bool:
    """A double in a register (a double constant beside a float is the front end's C
    promotion, which nvcc folds back into a float operation where it is exact)."""
    return type(x) is Reg and x.dtype.kind == "f" and x.dtype.itemsize == 8


def _fp64_pipe(ins) -> bool:
    if ins.op == Op.BIN and ins.sub in _FP64_BIN:
        return any(_is_f64(a) for a in ins.args[:2])
    if ins.op == Op.CALL and ins.sub in ROUNDING_FP64:
        return True
    return (ins.op == Op.FMA or ins.op == Op.CALL and ins.sub == "m_fma") and ins.dst is not None \
        and _is_f64(ins.dst)


def _alu_pipe(ins) -> bool:
    op = ins.op
    if op == Op.BIN:
        return ins.sub in _ALU_BIN or (ins.sub == "shl" and type(ins.args[1]) is not Const)
    if op == Op.UN:
        return ins.sub in ("not", "lnot")
    if op == Op.SELECT:
        return True
    if op == Op.CAST:
        src, dst = ins.args[0].dtype, ins.dst.dtype
        return src.kind in "iub" and dst.kind == "f"
    return op == Op.CALL and ins.sub in _ALU_CALLS


def overlapped_pcs(ir) -> frozenset:
    """The math calls and shared loads inside loops nvcc unrolls: while one of them waits
    for its operands, the warp issues the other unrolled trips' work (the machine charges
    the wait / UNROLL).  Their results are still ready only when their operands allow.
    Not in a loop whose trips hold a ``break`` or ``continue``: nvcc puts each unrolled
    trip in its own ``BSSY``/``BSYNC`` region behind the branch, so one trip's loads and
    math wait for the last one's (``probe/dipolar-nbody-smem-rsqrt``, unseen191/notes.md:
    129 cycles a pair on the H200, 81 with the overlap, 145 without).  Nor a warp-synchronous
    call (a vote, a shuffle) in a loop nvcc keeps (unrolled by a factor, not fully): nvcc
    keeps each unrolled trip's vote in its own ``BSSY``/``BSYNC`` region, so the next trip's
    loads issue only after it (``probe/egm-lat-warp-ballot``,
    unseen199/notes.md: a DRAM round trip a trip, 0.54 of its H200 time with the overlap,
    0.99 without)."""
    got = getattr(ir, "_simt_overlapped", None)
    if got is not None:
        return got
    code = ir.code
    out = set()
    full = _full(ir)
    for top, back in _unrolled(ir):
        if any(code[p].op == Op.KILL and code[p].level > 0 for p in range(top, back + 1)):
            continue
        kept = (top, back) not in full
        for p in range(top, back + 1):
            ins = code[p]
            if (ins.op == Op.CALL and not (kept and ins.sub in _WARP_SYNC)) or \
                    (ins.op == Op.LOAD and ins.info.get("space") == "shared"):
                out.add(p)
    ir._simt_overlapped = frozenset(out)
    return ir._simt_overlapped


def _uses(code) -> dict[int, list]:
    """pc -> the (pc, argument index) of each read of what it writes; a read of a variable
    counts for the nearest write before it (``loops.writers``)."""
    uses: dict[int, list] = {p: [] for p in range(len(code))}
    for q, (ins, wr) in enumerate(zip(code, writers(code))):
        for k, d in enumerate(wr):
            if d is not None:
                uses[d].append((q, k))
    return uses


def _through_moves(code, uses, p) -> list:
    """The reads of what ``p`` writes, looking through the MOVs that copy it on."""
    out = []
    for q, k in uses[p]:
        out += _through_moves(code, uses, q) if code[q].op == Op.MOV else [(q, k)]
    return out


def _is_bool(x) -> bool:
    return type(x) is Reg and x.dtype.kind == "b"


def _predicate_only(code, uses) -> set[int]:
    """The casts of a ``bool`` to an integer whose value only meets comparisons with zero
    or with other such casts (``int keep = (up == low); x = keep ? a : b``), and the
    comparisons of one with zero: a bool lives in a predicate register, and the
    comparison is the predicate itself (or its negation, folded into its use).  nvcc
    issues nothing for them; a comparison of two casts is one PLOP3 (it stays)."""
    casts = {p for p, ins in enumerate(code)
             if ins.op == Op.CAST and _is_bool(ins.args[0]) and ins.dst.dtype.kind in "iu"}

    def with_zero(q):
        ins = code[q]
        return ins.op == Op.BIN and ins.sub in ("eq", "ne") and \
            any(type(a) is Const and a.value == 0 for a in ins.args)

    def of_casts(q):
        ins = code[q]
        return ins.op == Op.BIN and ins.sub in ("eq", "ne") and \
            all(type(a) is Reg and _defs(code, a, q) in casts for a in ins.args)

    out = set()
    for p in casts:
        reads = _through_moves(code, uses, p)
        if reads and all(with_zero(q) or of_casts(q) for q, _ in reads):
            out.add(p)
            out.update(q for q, _ in reads if with_zero(q))
    return out


def _defs(code, x, pc):
    """The pc of the instruction whose value ``x`` copies at ``pc`` (through MOVs), or None."""
    d = def_before(code, x, pc)
    while d is not None and d.op == Op.MOV and type(d.args[0]) is Reg:
        d = def_before(code, d.args[0], d.pc)
    return None if d is None else d.pc


def _int(dt) -> bool:
    return dt.kind in "iu"


def _in_range(code, x, pc, dst, depth: int = 0) -> bool:
    """Whether the value of operand ``x`` read at ``pc`` provably fits integer type ``dst``:
    a constant that fits, a load or widening of a type that fits, a min, max or select of
    such values, an ``and`` with a value that fits (an unsigned ``dst``: a negative operand
    of a signed one can set bits above it)."""
    if type(x) is Const:
        v = _int_const(x)
        return v is not None and np.iinfo(dst).min <= v <= np.iinfo(dst).max
    if type(x) is not Reg or depth > 8:
        return False
    if _int(x.dtype) and np.can_cast(x.dtype, dst, "safe"):
        return True
    p = _defs(code, x, pc)
    if p is None:
        return False
    d = code[p]
    if d.op == Op.CAST:
        a = d.args[0]
        return _int(a.dtype) and (np.can_cast(a.dtype, dst, "safe") or _in_range(code, a, p, dst, depth + 1))
    if d.op == Op.CALL and d.sub in ("m_min", "m_max") or d.op == Op.SELECT:
        vals = d.args[1:] if d.op == Op.SELECT else d.args
        return all(_in_range(code, a, p, dst, depth + 1) for a in vals)
    if d.op == Op.BIN and d.sub == "and" and dst.kind == "u":
        return any(_in_range(code, a, p, dst, depth + 1) for a in d.args)
    return False


def _free_casts(code, uses) -> set[int]:
    """Integer conversions nvcc issues nothing for.  A register holds an 8-, 16- or 32-bit
    integer widened to 32 bits (``LDG.U8`` zero-extends, ``LDG.S8`` sign-extends), so a cast
    between them is free when it widens or only changes the sign, and a narrowing one is
    free when the value already fits (``min``/``max`` of bytes: a 3x3 median's network is one
    ``VIMNMX`` an exchange in sm_90 SASS, where C's promotions put three casts around it)
    or goes only to stores of the narrow type (``STG.U8`` writes the low byte).  From 64
    bits to 32 is the low register; an unsigned widening to 64 bits takes ``RZ`` as its
    high word.  Anything else (a signed widening to 64 bits, a truncation the value needs)
    is one slot."""
    out = set()
    for p, ins in enumerate(code):
        if ins.op != Op.CAST or not isinstance(ins.dst, Reg) or not _int(ins.dst.dtype):
            continue
        src, dst = ins.args[0], ins.dst.dtype
        if type(src) is Const:
            out.add(p)                       # folded into an immediate
            continue
        if not _int(src.dtype):
            continue
        s = src.dtype
        if dst.itemsize >= s.itemsize and (dst.itemsize <= 4 or s.kind == "u") or \
                dst.itemsize == 4 < s.itemsize:
            out.add(p)
        elif dst.itemsize < 4 and (_in_range(code, src, p, dst) or _only_stored(code, uses, p, dst)):
            out.add(p)
    return out


def _shift_amount_casts(code, uses) -> set[int]:
    """Conversions of a shift's amount (C converts ``b << s`` 's int ``s`` to ``b`` 's
    64-bit type): ``SHF`` reads the amount's low bits from its 32-bit register, so they
    issue nothing (probe/othello-mobility-bitboard's flood, unseen116/'s SASS)."""
    out = set()
    for p, ins in enumerate(code):
        if ins.op != Op.CAST or not isinstance(ins.dst, Reg) or not _int(ins.dst.dtype) \
                or type(ins.args[0]) is not Reg or not _int(ins.args[0].dtype):
            continue
        reads = _through_moves(code, uses, p)
        if reads and all(code[q].op == Op.BIN and code[q].sub in ("shl", "shr") and k == 1
                         for q, k in reads):
            out.add(p)
    return out


def _trailing_returns(code) -> set[int]:
    """The ``return`` that ends an inlined function's body (the next instruction is outside
    it): nvcc inlines the function, and its last statement's return is no instruction.
    An early return (more of the function follows) is a branch, and keeps its slot."""
    out = set()
    for p, ins in enumerate(code):
        if ins.op == Op.KILL and ins.sub == "return" and (p + 1 == len(code) or code[p + 1].depth < ins.level):
            out.add(p)
    return out


def _only_stored(code, uses, p, dst) -> bool:
    """Whether every read of what ``p`` writes (through MOVs) is the value of a store of
    integers no wider than ``dst``."""
    reads = _through_moves(code, uses, p)
    return bool(reads) and all(code[q].op == Op.STORE and k == 1 and code[q].ctype is not None
                               and code[q].ctype.size <= dst.itemsize for q, k in reads)


_LOGIC = {"and", "or", "xor"}
_ADDS = {"add", "sub"}


def _fused(code, uses, w) -> set[int]:
    """The 32-bit integer operations nvcc folds into another one's instruction:
    - a rotation written ``(x >> n) | (x << (32 - n))`` (either order, n a constant or
      not) is one ``SHF``: its two shifts issue nothing;
    - a tree of ``& | ^ ~`` over at most three inputs is one ``LOP3`` (any function of
      three inputs is a lookup table): its inner operations issue nothing;
    - a chain of adds and subtracts over at most three inputs is one ``IADD3``.
    An inner operation folds only where its result has no other use.  SHA-256's round
    (probes31.cu) is 15 SASS instructions where the IR has 38."""
    out: set[int] = set()
    wr = writers(code)
    leaves: dict[int, frozenset] = {}           # pc -> the inputs of its fused instruction

    def only_use(d, q):
        dst = code[d].dst
        return isinstance(dst, Reg) and not dst.is_var and len(uses[d]) == 1 and uses[d][0][0] == q

    def kind(ins):
        if not isinstance(ins.dst, Reg) or not _int(ins.dst.dtype) or ins.dst.dtype.itemsize > 8:
            return None
        wide = ins.dst.dtype.itemsize == 8
        if ins.op == Op.BIN and ins.sub in _LOGIC or ins.op == Op.UN and ins.sub == "not":
            return "lop64" if wide else "lop"
        if ins.op == Op.BIN and ins.sub in _ADDS and not wide:
            return "add"
        return None

    rotations = set()
    for q, ins in enumerate(code):
        if ins.op == Op.BIN and ins.sub == "or" and w[q] == 1.0 and kind(ins):
            ds = wr[q]
            pair = _rotation(code, ins, ds)
            if pair and all(only_use(d, q) for d in pair):
                out.update(pair)
                rotations.add(q)
    for q, ins in enumerate(code):
        k = kind(ins)
        if k is None or q in rotations or w[q] != (2.0 if k == "lop64" else 1.0):
            continue
        mine, kids = set(), []
        for a, d in zip(ins.args, wr[q]):
            if d is not None and d not in rotations and d in leaves and kind(code[d]) == k and \
                    only_use(d, q):
                kids.append(d)
            else:
                mine.add(("r", id(a)) if type(a) is Reg else ("c", repr(a)))
        for d in kids:
            if len(mine | leaves[d]) <= 3:
                mine |= leaves[d]
                out.add(d)
            else:
                mine.add(("p", d))
        leaves[q] = frozenset(mine)
    return out


def _rotation(code, ins, ds):
    """The pcs of the two shifts of a rotation ``(x >> n) | (x << (32 - n))``, or None."""
    if len(ds) != 2 or None in ds:
        return None
    a, b = (code[d] for d in ds)
    if {a.op, b.op} != {Op.BIN} or {a.sub, b.sub} != {"shr", "shl"} or a.args[0] is not b.args[0]:
        return None
    if type(a.args[0]) is not Reg or a.args[0].dtype.itemsize != 4:
        return None
    def source(x, pc):                         # through conversions of the shift amount
        for _ in range(4):
            d = def_before(code, x, pc) if type(x) is Reg else None
            if d is None or d.op not in (Op.CAST, Op.MOV):
                return x, d
            x, pc = d.args[0], d.pc
        return x, None

    (n, dn), (m, dm) = source(a.args[1], a.pc), source(b.args[1], b.pc)
    if type(n) is Const and type(m) is Const:
        return ds if int(n.value) + int(m.value) == 32 else None
    for x, d in ((n, dm), (m, dn)):            # the other amount is 32 - x
        if d is not None and d.op == Op.BIN and d.sub == "sub" and type(d.args[0]) is Const and \
                int(d.args[0].value) == 32 and source(d.args[1], d.pc)[0] is x:
            return ds
    return None


def _minmax_selects(code, uses) -> set[int]:
    """The selects of ``c ? min(a, b) : max(a, b)`` (a sorting network's compare and
    exchange): nvcc writes the min and then, predicated on ``c``, the max into one
    register (``VIMNMX R, a, b, PT; @P VIMNMX R, a, b, !PT``: warp_bitonic32's sm_90 SASS),
    so the select issues nothing (when the two values are used nowhere else)."""
    out = set()
    for p, ins in enumerate(code):
        if ins.op != Op.SELECT:
            continue
        sides = [def_before(code, a, p) if type(a) is Reg else None for a in ins.args[1:]]
        if any(d is None or d.op != Op.CALL or d.sub not in ("m_min", "m_max") for d in sides):
            continue
        a, b = sides
        if {a.sub, b.sub} != {"m_min", "m_max"} or \
                {id(x) for x in a.args} != {id(x) for x in b.args} or len(a.args) != 2:
            continue
        if all(uses[d.pc] == [(p, k + 1)] for k, d in enumerate(sides)):
            out.add(p)
    return out


def _address_only(code, accesses=None) -> set[int]:
    """The pcs of integer arithmetic (and casts) whose results only ever form the address
    of a load, store or atomic (of one of the pcs ``accesses``, if given), directly or
    through other such instructions."""
    uses: dict[int, list] = {p: [] for p in range(len(code))}
    for q, (ins, wr) in enumerate(zip(code, writers(code))):
        for k, (a, d) in enumerate(zip(ins.args or (), wr)):
            if d is not None and not a.is_var:
                uses[d].append((q, k))
    cand = [p for p, ins in enumerate(code)
            if ins.op == Op.CAST or (ins.op == Op.BIN and ins.sub in _ADDR_OPS)]
    addr: set[int] = set()
    changed = True
    while changed:
        changed = False
        for p in cand:
            if p in addr or not uses[p]:
                continue
            if all((code[q].op in (Op.LOAD, Op.STORE, Op.ATOM) and k == 0
                    and (accesses is None or q in accesses)) or q in addr
                   for q, k in uses[p]):
                addr.add(p)
                changed = True
    return addr


def _full(ir) -> dict:
    """``loops.full_unrolls`` of the kernel, computed once."""
    got = getattr(ir, "_simt_full_unrolls", None)
    if got is None:
        got = ir._simt_full_unrolls = full_unrolls(ir.code)
    return got


def const_pair_pcs(ir) -> frozenset:
    """Loads from ``__constant__`` memory at addresses that differ by lane, inside a loop
    nvcc unrolls fully: it reads two consecutive words of such a load's trips with one
    ``LDC.64`` when it can prove them 8-byte aligned (``probe/dct8x8``'s
    ``c_dct[8 tx + x]``, x = 0..7: four ``LDC.64``, docs/results/timing_investigation/
    unseen32/).  The machine pairs the trips whose addresses show it
    (``machine._const_counters``)."""
    return _loads_in_full_unrolls(ir, "_simt_const_pairs", lambda ins: ins.info.get("space") == "const"
                                  and not ins.info.get("uniform_addr"))


def _loads_in_full_unrolls(ir, attr: str, keep) -> frozenset:
    """The pcs of the loads ``keep(ins)`` accepts inside loops nvcc unrolls fully,
    computed once per kernel (kept as ``attr`` on the IR)."""
    got = getattr(ir, attr, None)
    if got is None:
        full = _full(ir)
        got = frozenset(p for p, ins in enumerate(ir.code)
                        if ins.op == Op.LOAD and keep(ins) and any(top <= p <= back for top, back in full))
        setattr(ir, attr, got)
    return got


def shared_vector_pcs(ir) -> frozenset:
    """Loads from shared memory inside a loop nvcc unrolls fully, or by 4 from a start it
    knows aligned (``_aligned_by_unroll``): it reads the words that consecutive trips of
    such a load take, one after another in each lane, with one
    ``LDS.64`` or ``LDS.128`` when it can prove them 8- or 16-byte aligned
    (``probe/matmul-rect``'s ``As[ty][k]``, k = 0..31: eight ``LDS.128``, ncu counts 131 M
    shared loads where the scalar loads are 210 M; ``probe/sgemm-reg4x4``'s
    ``As[k][ty * 4 + i]``, i = 0..3: one).  The machine groups the trips whose addresses
    show it (``machine._shared_vector``)."""
    keep = (lambda ins: ins.info.get("space") == "shared" and not ins.info.get("volatile")
            and ins.ctype is not None and _size(ins.ctype) in (4, 8))
    got = getattr(ir, "_simt_shared_vectors", None)
    if got is None:
        code = ir.code
        by4 = frozenset(p for top, back, var in _aligned_by_unroll(ir) for p in range(top, back + 1)
                        if code[p].op == Op.LOAD and keep(code[p]) and _size(code[p].ctype) == 4
                        and code[p].depth <= _body_depth(code, top, back)
                        and _affine_in(code, code[p].args[0], p, var, top) is True)
        got = ir._simt_shared_vectors = _loads_in_full_unrolls(ir, "_simt_shared_vectors_full", keep) | by4
    return got


def _body_depth(code, top: int, back: int) -> int:
    """The mask depth of a loop's body: a load deeper than that is under an ``if`` in the
    body, which nvcc predicates trip by trip and does not widen (``probe/xcorr-pairs-
    smem-lags``' ``sa[t] * sb[t + lag]`` under ``if (0 <= t + lag < 512)``: one
    predicated ``LDS`` a trip for each in its sm_90 SASS, Nsight's 76 M shared loads)."""
    b = next((q for q in range(top, back + 1) if code[q].op == Op.BODYINIT), top)
    return code[b].depth + 1


def _affine_in(code, x, pc: int, var, top: int, depth: int = 0):
    """True when ``x`` at ``pc`` is the counter ``var`` through adds, subtractions,
    multiplications and shifts with values from before the loop (``base + 4 * k``);
    False when it does not depend on ``var``; None otherwise (``(t + r) & 255``, a value
    loaded in the loop)."""
    if x is var:
        return True
    if type(x) is not Reg or depth > 12:
        return False if type(x) is not Reg else None
    d = def_before(code, x, pc)
    if d is None or d.pc < top:
        return False if not (x.is_var and any(code[q].dst is x for q in range(top, pc))) else None
    if d.op in (Op.MOV, Op.CAST):
        return _affine_in(code, d.args[0], d.pc, var, top, depth + 1)
    if d.op == Op.BIN and d.sub in AFFINE:
        got = [_affine_in(code, a, d.pc, var, top, depth + 1) for a in d.args]
        return None if None in got else any(got)
    return None


def _aligned_by_unroll(ir) -> list:
    """(top, back, counter) of the loops nvcc unrolls by ``UNROLL`` (not fully) whose
    counter starts at a constant multiple of ``UNROLL`` and steps by one to a constant
    bound, a multiple of ``UNROLL`` trips: each unrolled body's first trip has a counter
    it knows to be a multiple of 4, so consecutive words the four trips read are as
    aligned as the array, and a shared array's are read with one ``LDS.128``
    (``probe/plummer-direct-accpot``'s 128-trip ``sx[k]``, ``sy[k]``, ``sz[k]``,
    ``sm[k]``: four ``LDS.128`` a body of four trips in its sm_90 SASS).  Only 4-byte
    words: ``probe/radar-pulse-compress-smem``'s ``float2`` trips stay one ``LDS.64``
    each (a ``float2`` array is known 8-byte aligned, not 16)."""
    code, full, out = ir.code, _full(ir), []
    for top, back in _unrolled(ir):
        # (a run-time trip count leaves a remainder, and the unrolled body's counter is not
        # known aligned: probe/antikt-nn-smem's 36 scalar LDS; counter_values finds none)
        got = None if (top, back) in full else counter_values(code, top, back, 1 << 20)
        if got is None:
            continue
        var, values = got
        if len(values) >= 2 and values[0] % UNROLL == 0 and values[1] - values[0] == 1 \
                and len(values) % UNROLL == 0:
            out.append((top, back, var))
    return out


def uniform_ldc_pcs(ir) -> frozenset:
    """Loads from ``__constant__`` memory at an address the same in every lane that
    changes from trip to trip of a loop nvcc does not unroll fully, where the loop's body
    branches in SASS: on a condition that differs by lane (an ``if`` it does not
    predicate), or to a slow path (a float division, ``sqrtf``, a sine: ``FCHK`` and a
    ``CALL``, machine._SLOW_PATH).  nvcc keeps such a loop's counter in an ordinary
    register and reads the table with ``LDC c[0x3][R]``: an instruction, and a pass of
    the constant cache a warp (``probe/raycast-spheres``: four a trip over 32 spheres;
    ``probe/point-in-polygon``, whose division branches; sm_90 SASS,
    docs/results/timing_investigation/unseen22/ and unseen30/).  Where the body does not
    branch (``probe/fir64-shared``'s ``#pragma unroll 16``), the counter is a uniform
    register and the load a ``ULDC``, which costs nothing here, like an operand from the
    constant bank.
    Limitations: what nvcc decides from is not documented; this is the rule its SASS
    follows on the probes."""
    got = getattr(ir, "_simt_uniform_ldc", None)
    if got is not None:
        return got
    code = ir.code
    wr = writers(code)
    out = set()
    for top, back in _branchy_loops(ir, varying_ifs=True):
        written = {id(code[q].dst) for q in range(top, back + 1) if isinstance(code[q].dst, Reg)}
        for p in range(top, back + 1):
            ins = code[p]
            if ins.op == Op.LOAD and ins.info.get("space") == "const" and ins.info.get("uniform_addr") \
                    and _changes_by_trip(code, wr, p, 0, top, back, written):
                out.add(p)
    ir._simt_uniform_ldc = frozenset(out)
    return ir._simt_uniform_ldc


def inorder_pcs(ir) -> frozenset:
    """The arithmetic inside a loop nvcc does not unroll fully whose body branches to a
    slow path (a float division's ``FCHK`` and ``CALL``, ``sqrtf``'s range test, a
    sine's large-argument reduction: machine._SLOW_PATH).  The branch splits the body
    into basic blocks, and nvcc schedules within each: it does not move one trip's work
    between another trip's long-latency result and its use.  So there an instruction
    waits for its operands before it issues, as the hardware's scoreboard makes it.
    ``probe/dft-naive`` (a ``sincosf`` and a broadcast load a trip, one warp a
    sub-partition) takes 226 cycles a trip on the H100 and the H200, and the machine now
    gives 224, where letting the arithmetic pass its readiness along gave 73
    (docs/results/timing_investigation/unseen48/).  A ``MOV`` issues nothing (register
    renaming) and never waits.  Elsewhere the machine lets arithmetic pass its readiness
    along without waiting, as unrolled and interleaved trips hide it, and so it does in a
    loop kept inside such a loop with no slow path of its own.
    From the body's first slow path on (``INORDER_FROM_SLOW_PATH``, on since session 73):
    the first basic block, from the loop's top to that instruction, is scheduled freely,
    since nvcc issues a trip's loads there together before the arithmetic that converts
    them, where the IR interleaves them (``probe/oct-ssada-enface-warp-gridstride``: 16
    ``LDG``s back to back, then 12 divides; in order from the top, simt waited a DRAM round
    trip a load, 3.55x the time; 1.24 now; ``probe/raycast-trilinear-early-exit``'s eight
    ``LDG``s too). Screened on all 293 table rows it changes
    (docs/results/timing_investigation/inorder2/): one more row within 1.5x and a smaller
    summed error; the ray caster leaves 1.5x (0.98 -> 0.60: something else it costs is
    not priced)."""
    got = getattr(ir, "_simt_inorder", None)
    if got is not None:
        return got
    code = ir.code
    branchy = set(_branchy_loops(ir, varying_ifs=False))
    kept = [lp for lp in loops(code) if lp not in _full(ir)]
    slow = _slow_path(ir) if INORDER_FROM_SLOW_PATH else None
    out = set()
    for top, back in branchy:
        start = next((q for q in range(top, back + 1) if slow(code[q])), top) if slow else top
        # the body's own arithmetic, not that of a loop nvcc keeps inside it with no slow
        # path of its own: tidal_harmonics' sum over hours (probes125.cu) is scheduled
        # freely though the loop around it builds cosf tables
        inner = [(t, b) for t, b in kept if top < t and b < back and (t, b) not in branchy]
        out.update(p for p in range(start, back + 1) if code[p].op in _PURE and code[p].op != Op.MOV
                   and not any(t <= p <= b for t, b in inner))
    ir._simt_inorder = frozenset(out)
    return ir._simt_inorder


def _slow_path(ir):
    """The test of an instruction whose SASS branches to a slow path (machine._SLOW_PATH)
    that nvcc does not move before its loop (``loop_invariant_pcs``: a division of
    invariants)."""
    from .machine import _SLOW_PATH, _cost_key
    hoisted = loop_invariant_pcs(ir)
    return lambda ins: _cost_key(ins) in _SLOW_PATH and ins.pc not in hoisted


def _branchy_loops(ir, varying_ifs: bool) -> list[tuple[int, int]]:
    """(top, back) of the loops nvcc does not unroll fully whose body branches in SASS: to
    a slow path (machine._SLOW_PATH) it does not move before the loop, or, with ``varying_ifs``, on a condition that
    differs by lane (an ``if`` it does not predicate)."""
    code = ir.code
    full = _full(ir)
    slow = _slow_path(ir)

    def branches(ins) -> bool:
        return slow(ins) or (varying_ifs and _lane_branch(ins))
    return [(top, back) for top, back in loops(code)
            if (top, back) not in full and any(branches(code[q]) for q in range(top, back + 1))]


def _changes_by_trip(code, wr, p, k, top, back, written, depth: int = 0) -> bool:
    """Whether argument k of pc p can differ between trips of the loop top..back: it
    comes, through arithmetic in the loop, from a variable the loop writes."""
    a = code[p].args[k]
    if type(a) is not Reg:
        return False
    w = wr[p][k]
    if w is None or not top <= w <= back:
        return id(a) in written              # set before this trip: carried if the loop writes it
    if depth > 16:
        return True
    return any(_changes_by_trip(code, wr, w, j, top, back, written, depth + 1) for j in range(len(code[w].args)))


def _folded_counters(code, full: dict) -> set[int]:
    """The integer arithmetic inside loops nvcc unrolls fully whose operands are all
    constants in each copy (the counters, and arithmetic of them: ``stride = size >> 1``):
    nvcc folds it into immediates."""
    out = set()
    for (top, back), (_, copies) in full.items():
        env = copies[0]
        for p in range(top, back + 1):
            ins = code[p]
            if ins.op in (Op.BIN, Op.CAST) and isinstance(ins.dst, Reg) and \
                    ins.dst.dtype.kind in "iu" and not ins.dst.is_var and \
                    all(folded_value(code, a, p, env) is not None for a in ins.args):
                out.add(p)
    return out


_PURE = {Op.BIN, Op.UN, Op.CAST, Op.SELECT, Op.FMA, Op.MOV}


def _shared_copies(code, full: dict) -> dict[int, float]:
    """pc -> the share of its executions nvcc issues, for the arithmetic of a loop nest it
    unrolls fully that computes the same value in several copies: its operands are not
    written in the nest, or only by such arithmetic, or are counters.  nvcc computes it
    once per distinct value of the counters it depends on (common subexpressions across
    the copies, and code hoisted out of the nest).  warp_bitonic32 (probes24.cu, 15
    copies): ``(lane & size) == 0`` and ``(lane & stride) == 0`` five times each, as its
    sm_90 SASS does (5 LOP3 and the predicates folded into 12 PLOP3 / ISETP)."""
    out: dict[int, float] = {}
    for root in {r for r, _ in full.values()}:
        top, back = root
        writes: dict[int, list[int]] = {}
        for p in range(top, back + 1):
            # (a vector load writes a list of registers: probe/sph-hash-forces' float4 pos[j]
            # in a loop inside the unrolled nest was taken as written nowhere, its
            # arithmetic as computed once for all 27 copies)
            for r in regs_of(code[p].dst):
                writes.setdefault(id(r), []).append(p)
        counters = {c for r, copies in full.values() if r == root for c in copies[0]}
        deps: dict[int, frozenset] = {}          # foldable pc -> the counters it depends on
        changed = True
        while changed:
            changed = False
            for p in range(top, back + 1):
                ins = code[p]
                if p in deps or ins.op not in _PURE or not isinstance(ins.dst, Reg) or \
                        ins.info.get("predicated") or ins.info.get("select"):
                    continue
                dep = set()
                for a in ins.args:
                    if type(a) is not Reg or id(a) not in writes:
                        continue
                    if id(a) in counters:
                        dep.add(id(a))
                    elif all(q in deps for q in writes[id(a)]):
                        dep.update(*(deps[q] for q in writes[id(a)]))
                    else:
                        break
                else:
                    deps[p] = frozenset(dep)
                    changed = True
        for (t, b), (r, copies) in full.items():
            if r != root:
                continue
            inner = [(x, y) for x, y in full if t <= x and y <= b and (x, y) != (t, b)]
            for p in range(t, b + 1):
                if p in deps and not any(x <= p <= y for x, y in inner):
                    distinct = {tuple(env.get(c) for c in sorted(deps[p])) for env in copies}
                    out[p] = len(distinct) / len(copies)
    return out


def unrolled_loops(ir) -> frozenset:
    """(top, back) of each loop nvcc unrolls, fully (``_full``) or by ``UNROLL``
    (``_unrolled``): the others it runs trip by trip."""
    return frozenset(_full(ir)) | frozenset(_unrolled(ir))


def _unrolled(ir) -> dict:
    """(top, back) -> control pcs (``_unrolled_control``) of each loop nvcc would unroll;
    computed once per kernel."""
    got = getattr(ir, "_simt_unrolled", None)
    if got is None:
        got = {}
        full = _full(ir)
        for top, back in loops(ir.code):
            control = _unrolled_control(ir.code, top, back, (top, back) in full)
            if control:
                got[(top, back)] = control
        ir._simt_unrolled = got
    return got


def _unrolled_control(code, top: int, back: int, full: bool = False) -> list[int]:
    """The pcs of a loop's compare, test and counter updates when nvcc would unroll it: its
    test compares only counters stepped by constants with values the loop leaves alone
    (or, in a loop it unrolls ``full``y, multiplied, divided or shifted by constants)."""
    found = loop_test(code, top, back)
    if found is None or found[1].op != Op.BIN or code[found[0]].info.get("unroll") == 1:
        return []                         # ('#pragma unroll 1': nvcc keeps every trip's)
    test, cmp = found
    written = {id(code[p].dst) for p in range(top, back + 1) if isinstance(code[p].dst, Reg)}
    control = [cmp.pc, test]
    for a in cmp.args:
        if type(a) is not Reg or id(a) not in written:
            continue                      # a constant, a parameter or a value set before the loop
        if not a.is_var:
            return []                     # computed in the loop: the exit depends on data
        upd = next((code[p] for p in range(back, test, -1) if code[p].dst is a), None)
        step = add_step(code, upd, a, back) if upd is not None else None
        if (step is None or type(step) is not Const) and not (full and upd is not None):
            return []
        control.append(upd.pc)
        src = upd.args[0] if upd.op in (Op.MOV, Op.CAST) and type(upd.args[0]) is Reg else None
        d = def_before(code, src, upd.pc) if src is not None else None
        if d is not None and d.pc > test:
            control.append(d.pc)          # the add that the MOV copies into the counter
    return control
