"""Inline PTX ``asm(...)``: the one-instruction forms course code writes, read as the C
they mean.

Students reach for inline PTX for a handful of things CUDA C spells differently or not
at all: a special register (``mov.u32 %0, %%laneid;``, ``%%clock64``, ``%%tid.x``) or a float's bits
(``mov.b32 %0, %1;`` from an ``"f"`` operand to an ``"r"`` one), a
non-coherent load (``ld.global.nc.f32 %0, [%1];``), a cache-hinted store, a fence or a
barrier, a prefetch, and single integer instructions (``mul.hi``, ``brev``, ``popc``,
``prmt``, ``shf``).  ``translate`` rewrites each such statement, in place and keeping the
text's lines, into the C expression of the same meaning (``lane = __laneid()``,
``v = __ldg((const float *)(p))``, ...), built from the emulator's own intrinsics, so
they are emulated, counted and timed as those are.  The text that reaches NVRTC under
``--real`` keeps the original ``asm``.

The instruction table ``INSTRUCTIONS`` maps a PTX opcode (its first dotted words) to a
function of the parsed statement; ``SPECIAL_REGISTERS`` maps ``%%name`` to its C.

Limitations: one instruction a statement (no ``{ .reg ...; ...; }`` blocks); no carry
chains (``add.cc``/``addc``), vector loads (``.v2``/``.v4``), predicates or ``lop3``;
``%%warpid`` is the warp's index in its block (on the GPU it is the warp's slot on its
SM, which can change), ``%%globaltimer`` is ``clock64()`` (cycles, not nanoseconds),
and ``%%smid`` is not read (which SM runs a block is the GPU's choice, not the
program's).  ``prefetch`` does nothing here.  Anything else is an error naming the
statement's ``file:line:col`` and the instruction.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from .errors import CompileError
from .templates import skip_string

# a PTX type suffix -> the C type of a value of it
PTX_TYPES = {
    "u8": "unsigned char", "s8": "signed char", "b8": "unsigned char",
    "u16": "unsigned short", "s16": "short", "b16": "unsigned short",
    "u32": "unsigned int", "s32": "int", "b32": "unsigned int",
    "u64": "unsigned long long", "s64": "long long", "b64": "unsigned long long",
    "f32": "float", "f64": "double",
}

_LINEAR_TID = "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))"
SPECIAL_REGISTERS = {
    "laneid": "__laneid()",
    "warpid": f"({_LINEAR_TID} / 32u)",
    "nwarpid": "((blockDim.x * blockDim.y * blockDim.z + 31u) / 32u)",
    "lanemask_lt": "__lanemask_lt()", "lanemask_le": "__lanemask_le()",
    "lanemask_gt": "__lanemask_gt()", "lanemask_ge": "__lanemask_ge()",
    "lanemask_eq": "(1u << __laneid())",
    "clock": "((unsigned int)clock())", "clock_hi": "((unsigned int)(clock64() >> 32))",
    "clock64": "clock64()", "globaltimer": "clock64()",
    **{f"tid.{a}": f"threadIdx.{a}" for a in "xyz"},
    **{f"ntid.{a}": f"blockDim.{a}" for a in "xyz"},
    **{f"ctaid.{a}": f"blockIdx.{a}" for a in "xyz"},
    **{f"nctaid.{a}": f"gridDim.{a}" for a in "xyz"},
}


@dataclass
class Statement:
    """One ``asm(...)``: its instruction's opcode words, type suffix and operands (``%n``
    or ``[%n]`` or a special register), and the C expressions bound to ``%0, %1, ...``."""
    opcode: tuple[str, ...]
    ptx_type: str | None
    operands: list[str]
    bound: list[str]
    kinds: list[str] = ()       # each bound operand's constraint letter: r, l, h, f, d

    def kind(self, k: int) -> str:
        """The constraint letter of operand k when it is a ``%n`` (else '')."""
        m = re.fullmatch(r"\[?\s*%(\d+)\s*\]?", self.operands[k].strip())
        return self.kinds[int(m.group(1))] if m and int(m.group(1)) < len(self.kinds) else ""

    def arg(self, k: int) -> str:
        """Operand k as C: ``%n`` -> its bound expression, ``%%reg`` -> the register's C."""
        o = self.operands[k].strip()
        m = re.fullmatch(r"\[\s*(%\d+)\s*\]", o)
        if m:
            o = m.group(1)
        m = re.fullmatch(r"%(\d+)", o)
        if m and int(m.group(1)) < len(self.bound):
            return f"({self.bound[int(m.group(1))]})"
        m = re.fullmatch(r"%%(\w+(?:\.[xyz])?)", o)
        if m and m.group(1) in SPECIAL_REGISTERS:
            return SPECIAL_REGISTERS[m.group(1)]
        if m:
            raise _Unsupported(f"special register {o}")
        if re.fullmatch(r"-?(?:0[xX][0-9a-fA-F]+|\d+)", o):
            return o
        raise _Unsupported(f"operand {o!r}")

    def ctype(self) -> str:
        if self.ptx_type not in PTX_TYPES:
            raise _Unsupported(f"type .{self.ptx_type}")
        return PTX_TYPES[self.ptx_type]


class _Unsupported(Exception):
    pass


def _call(fn: str, n: int) -> Callable[[Statement], str]:
    """``op %0, %1, ..., %n;`` -> ``%0 = fn(%1, ..., %n)``."""
    return lambda s: f"{s.arg(0)} = {fn}({', '.join(s.arg(k) for k in range(1, n + 1))})"


# mov between a float and an integer register copies the bits (mov.b32 %0, %1 with
# "=r"(i) : "f"(x) is __float_as_uint(x))
_BITS = {("r", "f"): "__float_as_uint", ("f", "r"): "__uint_as_float",
         ("l", "d"): "__double_as_longlong", ("d", "l"): "__longlong_as_double"}


def _mov(s: Statement) -> str:
    view = _BITS.get((s.kind(0), s.kind(1)))
    if view:
        return f"{s.arg(0)} = {view}({s.arg(1)})"
    return f"{s.arg(0)} = ({s.ctype()}){s.arg(1)}"


def _load(fn: str) -> Callable[[Statement], str]:
    return lambda s: f"{s.arg(0)} = {fn}((const {s.ctype()} *){s.arg(1)})"


def _store(s: Statement) -> str:
    return f"*({s.ctype()} *){s.arg(0)} = ({s.ctype()}){s.arg(1)}"


def _mul_hi(s: Statement) -> str:
    fn = {"u32": "__umulhi", "s32": "__mulhi", "u64": "__umul64hi", "s64": "__mul64hi"}
    if s.ptx_type not in fn:
        raise _Unsupported(f"mul.hi.{s.ptx_type}")
    return _call(fn[s.ptx_type], 2)(s)


def _mul_wide(s: Statement) -> str:
    wide = {"u32": "unsigned long long", "s32": "long long", "u16": "unsigned int", "s16": "int"}
    if s.ptx_type not in wide:
        raise _Unsupported(f"mul.wide.{s.ptx_type}")
    t = wide[s.ptx_type]
    return f"{s.arg(0)} = ({t})({s.ctype()}){s.arg(1)} * ({t})({s.ctype()}){s.arg(2)}"


def _bit(fn32: str, fn64: str) -> Callable[[Statement], str]:
    return lambda s: _call(fn64 if s.ptx_type == "b64" else fn32, 1)(s)


def _shf(left: bool, clamp: bool) -> Callable[[Statement], str]:
    name = "__funnelshift_" + ("l" if left else "r") + ("c" if clamp else "")
    return lambda s: f"{s.arg(0)} = {name}({s.arg(1)}, {s.arg(2)}, {s.arg(3)})"


def _const(c: str) -> Callable[[Statement], str]:
    return lambda s: c


# opcode words (before the type suffix) -> C; cache operators (.nc, .cs, ...) are words
INSTRUCTIONS: dict[tuple[str, ...], Callable[[Statement], str]] = {
    ("",): _const("((void)0)"),
    ("mov",): _mov,
    ("ld", "global", "nc"): _load("__ldg"),
    ("ld", "global"): _load("*"),
    ("ld", "global", "ca"): _load("__ldca"), ("ld", "global", "cg"): _load("__ldcg"),
    ("ld", "global", "cs"): _load("__ldcs"), ("ld", "global", "lu"): _load("__ldlu"),
    ("ld", "global", "cv"): _load("__ldcv"),
    ("st", "global"): _store, ("st", "global", "wb"): _store, ("st", "global", "cg"): _store,
    ("st", "global", "cs"): _store, ("st", "global", "wt"): _store,
    ("mul", "hi"): _mul_hi,
    ("mul", "wide"): _mul_wide,
    ("brev",): _bit("__brev", "__brevll"),
    ("popc",): _bit("__popc", "__popcll"),
    ("clz",): _bit("__clz", "__clzll"),
    ("prmt",): _call("__byte_perm", 3),
    ("shf", "l", "wrap"): _shf(True, False), ("shf", "l", "clamp"): _shf(True, True),
    ("shf", "r", "wrap"): _shf(False, False), ("shf", "r", "clamp"): _shf(False, True),
    ("membar", "gl"): _const("__threadfence()"),
    ("membar", "cta"): _const("__threadfence_block()"),
    ("membar", "sys"): _const("__threadfence_system()"),
    ("fence", "sc", "gpu"): _const("__threadfence()"), ("fence", "acq_rel", "gpu"): _const("__threadfence()"),
    ("fence", "sc", "cta"): _const("__threadfence_block()"),
    ("fence", "acq_rel", "cta"): _const("__threadfence_block()"),
    ("fence", "sc", "sys"): _const("__threadfence_system()"),
    ("bar", "sync"): _const("__syncthreads()"), ("barrier", "sync"): _const("__syncthreads()"),
    ("bar", "warp", "sync"): lambda s: f"__syncwarp({s.arg(0)})",
    ("prefetch", "global", "L1"): _const("((void)0)"),
    ("prefetch", "global", "L2"): _const("((void)0)"),
    ("prefetch", "L1"): _const("((void)0)"), ("prefetch", "L2"): _const("((void)0)"),
}

_ASM = re.compile(r"\b(?:asm|__asm__|__asm)\b\s*(?:(?:volatile|__volatile__)\b\s*)*\(")
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def _split_top(s: str, sep: str) -> list[str]:
    """s split at ``sep`` outside parentheses, brackets and string literals."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(s):
        c = s[i]
        if c == '"':
            i = skip_string(s, i)
            continue
        depth += (c in "([{") - (c in ")]}")
        if c == sep and depth == 0:
            out.append(s[start:i])
            start = i + 1
        i += 1
    out.append(s[start:])
    return out


def _close_paren(text: str, i: int) -> int:
    """Index of the ``)`` matching the ``(`` at i, string literals skipped."""
    depth = 0
    while i < len(text):
        if text[i] == '"':
            i = skip_string(text, i)
            continue
        depth += (text[i] == "(") - (text[i] == ")")
        if depth == 0:
            return i
        i += 1
    return i


def _operands(part: str) -> list[tuple[str, str]]:
    """``"=r"(lane), "l"(p)`` -> ``[('lane', 'r'), ('p', 'l')]``: each operand's expression
    and its constraint letter."""
    out = []
    for op in _split_top(part, ","):
        op = op.strip()
        if not op:
            continue
        m = re.fullmatch(r'"[=+&]*([a-zA-Z]+)"\s*\((.*)\)', op, re.S)
        if not m:
            raise _Unsupported(f"operand {op!r}")
        out.append((m.group(2).strip(), m.group(1)[-1]))
    return out


def _statement(inside: str) -> Statement:
    parts = _split_top(inside, ":")
    template = "".join(bytes(m.group(1), "utf-8").decode("unicode_escape")
                       for m in _STRING.finditer(parts[0]))
    instrs = [i.strip() for i in template.split(";") if i.strip()]
    if not instrs:             # asm volatile("" ::: "memory"): a compiler barrier, no code
        return Statement(("",), None, [], [])
    if len(instrs) != 1 or template.lstrip().startswith("{"):
        raise _Unsupported("more than one instruction" if len(instrs) > 1 else "a { } block")
    ops = (_operands(parts[1]) if len(parts) > 1 else []) + (_operands(parts[2]) if len(parts) > 2 else [])
    head, _, rest = instrs[0].partition(" ")
    words = head.split(".")
    ptx_type = words[-1] if words[-1] in PTX_TYPES else None
    opcode = tuple(words[:-1] if ptx_type else words)
    operands = _split_top(rest, ",") if rest.strip() else []
    return Statement(opcode, ptx_type, operands, [e for e, _ in ops], [k for _, k in ops])


def _rewrite(s: Statement) -> str:
    fn = INSTRUCTIONS.get(s.opcode)
    if fn is None:
        raise _Unsupported(".".join(s.opcode))
    return "(" + fn(s) + ")"


def translate(text: str, filename: str, coord_of) -> str:
    """Every inline ``asm(...)`` of ``text`` rewritten as C (module docstring), keeping the
    text's newlines; ``coord_of(text, pos, filename)`` places an error."""
    out, last = [], 0
    for m in _ASM.finditer(text):
        if m.start() < last:
            continue
        i = _close_paren(text, m.end() - 1)
        span = text[m.start():i + 1]
        try:
            c = _rewrite(_statement(text[m.end():i]))
        except _Unsupported as e:
            raise CompileError(f"inline PTX asm is outside simt's subset ({e}): simt reads one "
                               "instruction an asm statement, of mov from registers and special "
                               "registers (%%laneid, %%clock64, %%tid.x, ...), ld.global[.nc], "
                               "st.global, mul.hi, mul.wide, brev, popc, clz, prmt, shf, membar, "
                               "fence, bar.sync and prefetch", coord_of(text, m.start(), filename))
        k = span.count("\n")
        first = span.find("\n") if k else len(span)
        if len(c) <= first:      # on the statement's first line: every column after it kept
            c = c + " " * (first - len(c)) + "".join(ch if ch == "\n" else " " for ch in span[first:])
        else:                    # the lines kept, the length where it fits
            c = c + " " * max(0, len(span) - len(c) - k) + "\n" * k
        out.append(text[last:m.start()])
        out.append(c)
        last = i + 1
    out.append(text[last:])
    return "".join(out)
