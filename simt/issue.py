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
(``SHF``, ``PRMT``), comparisons, selects, min/max, conversions of integers to floats.
On sm_90 that pipe takes a warp instruction every other cycle per sub-partition, so a
kernel made mostly of them (a xorshift random number generator:
docs/results/timing_investigation/unseen6/) issues at half the rate; the
timing model's ``issue`` component takes the larger of the two (``alu_ipc`` is measured
on ``cal_lop``, chains of shifts and xors).

Limitations: apart from the ALU pipe, a slot is one instruction, whatever its pipe
(nvcc fuses up to three logic operations into one ``LOP3``; counted one each); nvcc's other rewrites (common
subexpressions, strength reduction, predication of short branches, address arithmetic
folded into loads) are not modelled; a loop counts as unrolled by 4 whenever its test
compares counters that step by constants with values the loop does not change.
"""
from __future__ import annotations

import numpy as np

from .ir import Const, Op, Reg
from .loops import add_step, constant_trips, def_before, loop_test, loops, writers
from .promote import folded_offsets, register_locals

FREE = {Op.MOV, Op.LOOPINIT, Op.BODYINIT, Op.ELSE, Op.JUMP}
UNROLL = 4                 # trips nvcc unrolls a loop of unknown trip count by
ADDRESS = 1.0 / 3.0        # an access's index arithmetic (widen, scale, add the base): one
                           # IMAD.WIDE or LEA in SASS for the IR's CAST, mul and add
_ADDR_OPS = {"add", "sub", "mul", "shl"}


def issue_weights(ir) -> np.ndarray:
    """Per pc, the SASS issue slots the instruction stands for (0, 1/UNROLL or 1)."""
    got = getattr(ir, "_simt_issue_weights", None)
    if got is not None:
        return got
    code = ir.code
    w = np.ones(len(code), np.float64)
    for p, ins in enumerate(code):
        if ins.info.get("select"):
            pass            # an if-converted assignment is a SEL (or a predicated MOV): a slot
        elif ins.op in FREE or (ins.op == Op.UN and ins.sub == "neg"):
            w[p] = 0.0
        elif ins.op == Op.LOAD and ins.info.get("space") == "const" and ins.info.get("uniform_addr"):
            w[p] = 0.0      # an operand from the constant bank (c[0x3][...]), or a uniform-pipe ULDC
    for p, ins in enumerate(code):
        if w[p] == 1.0:
            w[p] = _wide_slots(ins)
    for p in _address_only(code):
        w[p] = ADDRESS
    for control in _unrolled(ir).values():
        for p in control:
            w[p] = min(w[p], 1.0 / UNROLL)
    w[sorted(compile_time(ir))] = 0.0
    ir._simt_issue_weights = w
    return w


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
    for (top, back), control in _unrolled(ir).items():
        if constant_trips(code, top, back) is not None:
            out.update(control)
            out.update(p for p in (top - 1, back) if code[p].op in (Op.LOOPINIT, Op.JUMP))
            out.update(p for p in range(top, back + 1) if code[p].op == Op.BODYINIT)
    moves = register_locals(ir)
    if moves:
        out |= moves | _address_only(code, moves)
    ir._simt_compile_time = frozenset(out)
    return ir._simt_compile_time


def _wide_slots(ins) -> float:
    """SASS instructions of an integer operation on 64-bit values: sm_90's integer units are
    32 bits wide, so an add, compare, shift, logic operation or select is two (``IADD3`` and
    ``IADD3.X``, ``ISETP`` and ``ISETP.EX``, ...) and a multiply three (``IMAD.WIDE.U32`` and
    two ``IMAD``), two by a constant (the Collatz loop of probes19.cu: 16 SASS a trip where
    the IR has 9).  Anything else is one."""
    if ins.op not in (Op.BIN, Op.UN, Op.SELECT) or ins.op == Op.UN and ins.sub not in ("not", "neg"):
        return 1.0
    vals = [a for a in ins.args if isinstance(a, (Reg, Const))]
    if ins.op == Op.SELECT:
        vals = vals[1:]
    if not any(type(a) is Reg and a.dtype.kind in "iu" and a.dtype.itemsize == 8 for a in vals):
        return 1.0
    if ins.op == Op.BIN and ins.sub == "mul":
        return 2.0 if any(type(a) is Const for a in vals) else 3.0
    if ins.op == Op.BIN and ins.sub in ("div", "mod"):
        return 1.0                         # (a 64-bit division: not measured)
    return 2.0


_ALU_BIN = {"and", "or", "xor", "shr", "eq", "ne", "lt", "gt", "le", "ge"}
_ALU_CALLS = {"min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax",
              # SHF and PRMT: ChaCha20's rotations (probe/chacha20) issue at the pipe's rate
              "__funnelshift_l", "__funnelshift_lc", "__funnelshift_r", "__funnelshift_rc",
              "__byte_perm"}


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
    the wait / UNROLL).  Their results are still ready only when their operands allow."""
    got = getattr(ir, "_simt_overlapped", None)
    if got is not None:
        return got
    code = ir.code
    out = set()
    for top, back in _unrolled(ir):
        for p in range(top, back + 1):
            ins = code[p]
            if ins.op == Op.CALL or (ins.op == Op.LOAD and ins.info.get("space") == "shared"):
                out.add(p)
    ir._simt_overlapped = frozenset(out)
    return ir._simt_overlapped


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


def _unrolled(ir) -> dict:
    """(top, back) -> control pcs (``_unrolled_control``) of each loop nvcc would unroll;
    computed once per kernel."""
    got = getattr(ir, "_simt_unrolled", None)
    if got is None:
        got = {}
        for top, back in loops(ir.code):
            control = _unrolled_control(ir.code, top, back)
            if control:
                got[(top, back)] = control
        ir._simt_unrolled = got
    return got


def _unrolled_control(code, top: int, back: int) -> list[int]:
    """The pcs of a loop's compare, test and counter updates when nvcc would unroll it: its
    test compares only counters stepped by constants with values the loop leaves alone."""
    found = loop_test(code, top, back)
    if found is None or found[1].op != Op.BIN:
        return []
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
        if step is None or type(step) is not Const:
            return []
        control.append(upd.pc)
        src = upd.args[0] if upd.op in (Op.MOV, Op.CAST) and type(upd.args[0]) is Reg else None
        d = def_before(code, src, upd.pc) if src is not None else None
        if d is not None and d.pc > test:
            control.append(d.pc)          # the add that the MOV copies into the counter
    return control
