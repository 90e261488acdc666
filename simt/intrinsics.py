"""CUDA built-in functions: how each one type-checks and lowers.

One table, ``INTRINSICS``: name -> ``Spec(kind, pure, lower)``.  Overloads follow
NVRTC (C++): ``sqrt(float)`` is the float overload, ``atomicAdd`` exists for int,
unsigned, unsigned long long, float, double and ``__half`` only, and ``atomicCAS`` on a
``float*`` is rejected as NVRTC rejects it.  The half-precision functions of
``cuda_fp16.h`` are one table, ``_HALF`` (signature and how each lowers).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import ctypes_ as T
from pycparser import c_ast

from .ctypes_ import Pointer, Scalar, usual_arith
from .ir import Const, Op
from .ops import PRINTF_CONVERSION
from .rounding import ROUNDING
from .simd import SIMD_ARITY


@dataclass(frozen=True)
class Spec:
    kind: str
    pure: bool
    lower: Callable


INTRINSICS: dict[str, Spec] = {}


def _reg(names, kind, pure):
    def deco(fn):
        for n in names.split():
            INTRINSICS[n] = Spec(kind, pure, fn)
        return fn
    return deco


def lower_intrinsic(b, name, args, node, want=True):
    return INTRINSICS[name].lower(b, name, args, node, want)


def _nargs(b, name, args, node, lo, hi=None):
    hi = lo if hi is None else hi
    if not lo <= len(args) <= hi:
        exp = f"{lo}" if lo == hi else f"{lo} to {hi}"
        raise b.err(f'wrong number of arguments in call to "{name}" (expected {exp}, got {len(args)})', node)


def _no_overload(b, name, vals, node):
    types = ", ".join(str(v.ctype) for v in vals)
    return b.err(f'no instance of overloaded function "{name}" matches the argument list '
                 f'(argument types are: ({types}))', node)


def _scalar_args(b, name, args, node, n, use=None):
    """The first ``use`` (default: all ``n``) of a call's ``n`` arguments as values, each a
    scalar, else NVRTC's "no instance of overloaded function" error."""
    _nargs(b, name, args, node, n)
    vals = [b.rvalue(a) for a in args[:use]]
    if not all(isinstance(v.ctype, Scalar) for v in vals):
        raise _no_overload(b, name, vals, node)
    return vals


def _ambiguous_half(b, name, vals, node, use):
    types = ", ".join(str(v.ctype) for v in vals)
    return b.err(f'more than one instance of overloaded function "{name}" matches the argument '
                 f"list (argument types are: ({types})): a __half converts to float and to every "
                 f"integer type; use {use}, or convert with __half2float", node)


def _val(t, op):
    from .lower import Val
    return Val(t, op)


# ------------------------------------------------------------------ atomics
_ATOMIC_TYPES = {
    "add": (T.INT, T.UINT, T.ULLONG, T.FLOAT, T.DOUBLE, T.HALF),
    "sub": (T.INT, T.UINT),
    "exch": (T.INT, T.UINT, T.ULLONG, T.FLOAT),
    "min": (T.INT, T.UINT, T.LLONG, T.ULLONG),
    "max": (T.INT, T.UINT, T.LLONG, T.ULLONG),
    "and": (T.INT, T.UINT, T.ULLONG),
    "or": (T.INT, T.UINT, T.ULLONG),
    "xor": (T.INT, T.UINT, T.ULLONG),
    "inc": (T.UINT,),
    "dec": (T.UINT,),
    "cas": (T.INT, T.UINT, T.ULLONG, T.USHORT),
}
_ATOMIC_NAMES = {}
for _op in _ATOMIC_TYPES:
    base = "atomic" + {"cas": "CAS"}.get(_op, _op.capitalize())
    for suffix in ("", "_block", "_system"):
        _ATOMIC_NAMES[base + suffix] = _op


def _same_scalar(a, b):
    # "unsigned long" and "unsigned long long" are both 64-bit: NVRTC overloads on the
    # exact type, but kernels written with size_t counters expect the 64-bit overload
    return a == b or (isinstance(a, Scalar) and isinstance(b, Scalar) and a.dtype == b.dtype
                      and not a.is_float and a.size == 8)


def _lower_atomic(b, name, args, node, want):
    op = _ATOMIC_NAMES[name]
    _nargs(b, name, args, node, 3 if op == "cas" else 2)
    vals = [b.rvalue(a) for a in args]
    p = vals[0]
    if op == "add" and isinstance(p.ctype, Pointer) and p.ctype.base in _VECTOR_ADD:
        return _vector_atomic_add(b, name, vals, node, want)
    if not isinstance(p.ctype, Pointer) or not any(_same_scalar(p.ctype.base, t) for t in _ATOMIC_TYPES[op]):
        raise _no_overload(b, name, vals, node)
    if p.ctype.const:
        raise _no_overload(b, name, vals, node)
    t = p.ctype.base
    rest = []
    for v, a in zip(vals[1:], args[1:]):
        if not isinstance(v.ctype, Scalar):
            raise _no_overload(b, name, vals, node)
        rest.append(b.convert(v, t, a).op)
    dst = b.reg(t.dtype) if want else None
    b.emit(Op.ATOM, node, dst=dst, args=(p.op, *rest), sub=op, ctype=t)
    return _val(t, dst) if want else None


# sm_90's vector atomicAdd (float2, float4: ``atom.global.v2.f32.add``) and cuda_fp16.h's
# atomicAdd(__half2 *, __half2) (``atom.add.noftz.f16x2``)
_VECTOR_ADD = (T.TYPEDEFS["float2"], T.TYPEDEFS["float4"], T.HALF2)


def _vector_atomic_add(b, name, vals, node, want):
    """``atomicAdd(float2 *, float2)`` / ``float4``, which compute capability 9.x adds, and
    ``atomicAdd(__half2 *, __half2)``: each element is added atomically on its own (CUDA
    guarantees no more: the vector is not one atomic access); the old vector is the result.

    Limitations: simt issues and counts it as one atomic an element, where sm_90 issues one
    vector atomic an address (the same sectors, half or a quarter of the instructions; a
    ``__half2`` is one 32-bit atomic there); and it accepts shared memory for float2 and
    float4, where CUDA supports global memory only."""
    from .lower import LVal, Val
    p, v = vals
    t = p.ctype.base
    if p.ctype.const or v.ctype != t:
        raise _no_overload(b, name, vals, node)
    cell = LVal(t, "mem", addr=p.op)
    olds = []
    for f in t.fields:
        dst = b.reg(t.elem.dtype) if want else None
        b.emit(Op.ATOM, node, dst=dst, args=(b.member(cell, f, node).addr, b.member(v, f, node).op),
               sub="add", ctype=t.elem)
        olds.append(dst)
    return Val(t, None, olds) if want else None


for _n in _ATOMIC_NAMES:
    INTRINSICS[_n] = Spec("atomic", False, _lower_atomic)


# ---------------------------------------------------------------- barriers
@_reg("__syncthreads", "sync", False)
def _sync(b, name, args, node, want):
    _nargs(b, name, args, node, 0)
    b.emit(Op.BAR, node)
    return None


@_reg("__syncthreads_count __syncthreads_and __syncthreads_or", "sync", False)
def _sync_pred(b, name, args, node, want):
    """``bar.red``: a ``__syncthreads()`` that also returns, to every thread of the block,
    how many of the block's threads passed a nonzero predicate (``_count``), or whether
    all (``_and``) or any (``_or``) of them did."""
    _nargs(b, name, args, node, 1)
    pred = b.to_bool(b.rvalue(args[0]), args[0])
    d = b.reg(np.int32)
    b.emit(Op.BAR, node, dst=d, args=(pred,), sub=name)
    return _val(T.INT, d)


@_reg("__syncwarp", "sync", False)
def _syncwarp(b, name, args, node, want):
    _nargs(b, name, args, node, 0, 1)
    m = b.convert(b.rvalue(args[0]), T.UINT, args[0]).op if args else Const(np.uint32(0xFFFFFFFF))
    b.emit(Op.SYNCWARP, node, args=(m,))
    return None


@_reg("__threadfence __threadfence_block __threadfence_system __nanosleep", "sync", False)
def _fence(b, name, args, node, want):
    for a in args:
        b.rvalue(a)
    b.fences.append(len(b.code))   # no load is merged across it (simt.cse)
    return None  # memory is sequentially consistent in the emulator: fences are no-ops


# -------------------------------------------------------------- warp-level
_SHFL_TYPES = (T.INT, T.UINT, T.LLONG, T.ULLONG, T.FLOAT, T.DOUBLE, T.LONG, T.ULONG)


def _shfl_type(b, v, name, vals, node):
    t = v.ctype
    if not isinstance(t, Scalar):
        raise _no_overload(b, name, vals, node)
    if t.is_half or t.is_bf16:          # cuda_fp16.h's and cuda_bf16.h's overloads of the shuffles
        if name.startswith("__shfl"):
            return t
        raise _no_overload(b, name, vals, node)
    if t not in _SHFL_TYPES:
        t = T.promote(t) if not t.is_float else T.FLOAT
    return t


@_reg("__shfl_sync __shfl_up_sync __shfl_down_sync __shfl_xor_sync", "warp", False)
def _shfl(b, name, args, node, want):
    _nargs(b, name, args, node, 3, 4)
    vals = [b.rvalue(a) for a in args]
    if vals[1].ctype == T.HALF2:            # cuda_fp16.h's overload: the 32-bit pair moves whole
        # (here as two shuffles of one half each: the same lanes, two instructions counted)
        fields = [_shfl_ops(b, name, args, [vals[0], _val(T.HALF, f), *vals[2:]], node).op
                  for f in vals[1].fields]
        from .lower import Val
        return Val(T.HALF2, None, fields)
    return _shfl_ops(b, name, args, vals, node)


def _shfl_ops(b, name, args, vals, node):
    t = _shfl_type(b, vals[1], name, vals, node)
    mask = b.convert(vals[0], T.UINT, args[0]).op
    var = b.convert(vals[1], t, args[1]).op
    lane_t = T.UINT if name in ("__shfl_up_sync", "__shfl_down_sync") else T.INT
    lane = b.convert(vals[2], lane_t, args[2]).op
    width = b.convert(vals[3], T.INT, args[3]).op if len(vals) > 3 else Const(np.int32(32))
    d = b.reg(t.dtype)
    b.emit(Op.CALL, node, dst=d, args=(mask, var, lane, width), sub=name)
    return _val(t, d)


@_reg("__ballot_sync __any_sync __all_sync __uni_sync", "warp", False)
def _vote(b, name, args, node, want):
    _nargs(b, name, args, node, 2)
    vals = [b.rvalue(a) for a in args]
    mask = b.convert(vals[0], T.UINT, args[0]).op
    pred = b.to_bool(vals[1], args[1])
    t = T.UINT if name == "__ballot_sync" else T.INT
    d = b.reg(t.dtype)
    b.emit(Op.CALL, node, dst=d, args=(mask, pred), sub=name)
    return _val(t, d)


@_reg("__activemask", "warp", False)
def _activemask(b, name, args, node, want):
    _nargs(b, name, args, node, 0)
    d = b.reg(np.uint32)
    b.emit(Op.CALL, node, dst=d, args=(), sub=name)
    return _val(T.UINT, d)


@_reg("__match_any_sync", "warp", False)
def _match(b, name, args, node, want):
    _nargs(b, name, args, node, 2)
    vals = [b.rvalue(a) for a in args]
    t = _shfl_type(b, vals[1], name, vals, node)
    mask = b.convert(vals[0], T.UINT, args[0]).op
    v = b.convert(vals[1], t, args[1]).op
    d = b.reg(np.uint32)
    b.emit(Op.CALL, node, dst=d, args=(mask, v), sub=name)
    return _val(T.UINT, d)


@_reg("__match_all_sync", "warp", False)
def _match_all(b, name, args, node, want):
    """__match_all_sync(mask, v, &pred): mask where every lane of mask holds the same v,
    else 0; pred (an int) whether they do."""
    _nargs(b, name, args, node, 3)
    vals = [b.rvalue(a) for a in args[:2]]
    t = _shfl_type(b, vals[1], name, vals, node)
    mask = b.convert(vals[0], T.UINT, args[0]).op
    v = b.convert(vals[1], t, args[1]).op
    lv = _int_pointee(b, name, args[2], T.INT)
    d = b.reg(np.uint32)
    b.emit(Op.CALL, node, dst=d, args=(mask, v), sub=name)
    same = b.reg(np.bool_)
    b.emit(Op.BIN, node, dst=same, args=(d, Const(np.uint32(0))), sub="ne")
    b.store(lv, b.convert(_val(T.BOOL, same), T.INT, args[2]), args[2])
    return _val(T.UINT, d)


@_reg("__reduce_add_sync __reduce_min_sync __reduce_max_sync __reduce_and_sync "
      "__reduce_or_sync __reduce_xor_sync", "warp", False)
def _redux(b, name, args, node, want):
    """sm_80's ``redux.sync``: every lane of ``mask`` gets the reduction over those lanes
    (int and unsigned for add/min/max, unsigned for the bitwise ones)."""
    _nargs(b, name, args, node, 2)
    vals = [b.rvalue(a) for a in args]
    v = vals[1]
    if not isinstance(v.ctype, Scalar) or v.ctype.is_float:
        raise _no_overload(b, name, vals, node)
    signed = (name in ("__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync")
              and T.promote(v.ctype) == T.INT)
    t = T.INT if signed else T.UINT
    mask = b.convert(vals[0], T.UINT, args[0]).op
    d = b.reg(t.dtype)
    b.emit(Op.CALL, node, dst=d, args=(mask, b.convert(v, t, args[1]).op), sub=name)
    return _val(t, d)


@_reg("__lanemask_lt __lanemask_le __lanemask_gt __lanemask_ge __laneid", "warp", True)
def _lanemask(b, name, args, node, want):
    _nargs(b, name, args, node, 0)
    t = T.UINT
    d = b.reg(t.dtype)
    b.emit(Op.CALL, node, dst=d, args=(), sub=name)
    return _val(t, d)


# --------------------------------------------------------------- bits/casts
_BIT = {  # name: (argument type, result type)
    "__popc": (T.UINT, T.INT), "__popcll": (T.ULLONG, T.INT),
    "__clz": (T.INT, T.INT), "__clzll": (T.LLONG, T.INT),
    "__ffs": (T.INT, T.INT), "__ffsll": (T.LLONG, T.INT),
    "__brev": (T.UINT, T.UINT), "__brevll": (T.ULLONG, T.ULLONG),
    "__float_as_int": (T.FLOAT, T.INT), "__int_as_float": (T.INT, T.FLOAT),
    "__float_as_uint": (T.FLOAT, T.UINT), "__uint_as_float": (T.UINT, T.FLOAT),
    "__double_as_longlong": (T.DOUBLE, T.LLONG), "__longlong_as_double": (T.LLONG, T.DOUBLE),
    "__float2int_rn": (T.FLOAT, T.INT), "__float2int_rz": (T.FLOAT, T.INT),
    "__float2int_rd": (T.FLOAT, T.INT), "__float2int_ru": (T.FLOAT, T.INT),
    "__float2uint_rn": (T.FLOAT, T.UINT), "__float2uint_rz": (T.FLOAT, T.UINT),
    "__int2float_rn": (T.INT, T.FLOAT), "__uint2float_rn": (T.UINT, T.FLOAT),
    "__saturatef": (T.FLOAT, T.FLOAT), "__frcp_rn": (T.FLOAT, T.FLOAT), "__fsqrt_rn": (T.FLOAT, T.FLOAT),
    "__double2hiint": (T.DOUBLE, T.INT), "__double2loint": (T.DOUBLE, T.INT),
}


@_reg(" ".join(_BIT), "bit", True)
def _bit(b, name, args, node, want):
    _nargs(b, name, args, node, 1)
    at, rt = _BIT[name]
    v = b.rvalue(args[0])
    if not isinstance(v.ctype, Scalar):
        raise _no_overload(b, name, [v], node)
    if name.startswith(("__int_as", "__uint_as", "__longlong_as", "__float_as", "__double_as")) \
            and v.ctype.is_float != at.is_float and not isinstance(v.op, Const):
        pass  # C++ converts the argument first, exactly as we do below
    a = b.convert(v, at, args[0]).op
    d = b.reg(rt.dtype)
    b.emit(Op.CALL, node, dst=d, args=(a,), sub=name)
    return _val(rt, d)


# conversions and classifications of cuda_runtime's math API: (argument type, result type)
_CONV = {
    "__double2float_rn": (T.DOUBLE, T.FLOAT), "__double2int_rn": (T.DOUBLE, T.INT),
    "__float2ll_rn": (T.FLOAT, T.LLONG), "__ll2float_rn": (T.LLONG, T.FLOAT),
    "__isnanf": (T.FLOAT, T.INT), "__isinff": (T.FLOAT, T.INT), "__finitef": (T.FLOAT, T.INT),
    "lroundf": (T.FLOAT, T.LONG), "llroundf": (T.FLOAT, T.LLONG),
    "lround": (T.DOUBLE, T.LONG), "llround": (T.DOUBLE, T.LLONG),
    "lrintf": (T.FLOAT, T.LONG), "llrintf": (T.FLOAT, T.LLONG),
    "lrint": (T.DOUBLE, T.LONG), "llrint": (T.DOUBLE, T.LLONG),
}
_BIT.update(_CONV)
for _n in _CONV:
    INTRINSICS[_n] = Spec("math", True, _bit)


@_reg("ldexpf ldexp scalbnf scalbn scalblnf scalbln", "math", True)
def _ldexp(b, name, args, node, want):
    """ldexpf(x, n) = x * 2^n, rounded once (subnormal results included); scalbnf is the
    same function, scalblnf takes a long n."""
    _nargs(b, name, args, node, 2)
    vals = [b.rvalue(a) for a in args]
    if not all(isinstance(v.ctype, Scalar) for v in vals) or vals[1].ctype.is_float:
        raise _no_overload(b, name, vals, node)
    ft = T.FLOAT if name.endswith("f") or vals[0].ctype in (T.FLOAT, T.HALF) else T.DOUBLE
    nt = T.LONG if name.startswith("scalbln") else T.INT
    ops = (b.convert(vals[0], ft, args[0]).op, b.convert(vals[1], nt, args[1]).op)
    d = b.reg(ft.dtype)
    b.emit(Op.CALL, node, dst=d, args=ops, sub="m_ldexp")
    return _val(ft, d)


# frexpf(x, &e) and modff(x, &ip): (the value's call, the stored part's call, its type)
_SPLIT = {"frexpf": ("m_frexp_m", "m_frexp_e", T.INT, T.FLOAT),
          "frexp": ("m_frexp_m", "m_frexp_e", T.INT, None),
          "modff": ("m_modf_frac", "m_modf_int", None, T.FLOAT),
          "modf": ("m_modf_frac", "m_modf_int", None, None)}


@_reg(" ".join(_SPLIT), "math", False)
def _split(b, name, args, node, want):
    """frexpf(x, &e): the mantissa in [0.5, 1), the exponent stored through the pointer;
    modff(x, &ip): the fractional part, the integral part stored (both with x's sign).
    The pointer may be ``&local`` (the variable itself) or any other ``int *``/``float *``."""
    _nargs(b, name, args, node, 2)
    fv, fp, pt, ft = _SPLIT[name]
    v = b.rvalue(args[0])
    if not isinstance(v.ctype, Scalar):
        raise _no_overload(b, name, [v], node)
    ft = ft or (T.FLOAT if v.ctype in (T.FLOAT, T.HALF) else T.DOUBLE)
    pt = pt or ft
    x = b.convert(v, ft, args[0]).op
    pa = args[1]
    amp = isinstance(pa, c_ast.UnaryOp) and pa.op == "&"
    if not amp and not isinstance(b.type_of(pa), Pointer):
        raise _no_overload(b, name, [v, _val(b.type_of(pa), None)], node)
    lv = b.lvalue(pa.expr if amp else c_ast.UnaryOp("*", pa, pa.coord))
    if lv.ctype != pt:
        raise b.err(f'argument of type "{lv.ctype} *" is incompatible with parameter of type '
                    f'"{pt} *" in {name}', pa)
    part = b.reg(pt.dtype)
    b.emit(Op.CALL, node, dst=part, args=(x,), sub=fp)
    b.store(lv, _val(pt, part), pa)
    d = b.reg(ft.dtype)
    b.emit(Op.CALL, node, dst=d, args=(x,), sub=fv)
    return _val(ft, d)


_INT2 = {"__mulhi": T.INT, "__umulhi": T.UINT, "__mul24": T.INT, "__umul24": T.UINT,
         "__mul64hi": T.LLONG, "__umul64hi": T.ULLONG, "__sad": T.INT, "__usad": T.UINT,
         "__hadd": T.INT, "__uhadd": T.UINT, "__rhadd": T.INT, "__urhadd": T.UINT}


@_reg(" ".join(_INT2), "bit", True)
def _int2(b, name, args, node, want):
    n = 3 if name in ("__sad", "__usad") else 2
    _nargs(b, name, args, node, n)
    t = _INT2[name]
    ops = [b.convert(b.rvalue(a), t if k < 2 else T.UINT, a).op for k, a in enumerate(args)]
    rt = T.UINT if name == "__sad" else t
    d = b.reg(rt.dtype)
    b.emit(Op.CALL, node, dst=d, args=tuple(ops), sub=name)
    return _val(rt, d)


# Byte and half-word dot products, funnel shifts and byte permutes: one SASS instruction
# each (IDP.4A, IDP.2A, SHF, PRMT).  __dp4a / __dp2a_* have an int and an unsigned
# overload, chosen as C++ does: the one whose parameters the arguments match exactly
# (after integer promotion) on every argument where they differ; neither is ambiguous
# (``__dp4a(u, v, 0)`` with unsigned u, v, as nvcc says too).
_DOT = ("__dp4a", "__dp2a_lo", "__dp2a_hi")
_SHIFT = ("__funnelshift_l", "__funnelshift_lc", "__funnelshift_r", "__funnelshift_rc", "__byte_perm")


@_reg(" ".join(SIMD_ARITY), "bit", True)
def _simd(b, name, args, node, want):
    """The SIMD intrinsics (``simt.simd``): unsigned int operands and result."""
    vals = _scalar_args(b, name, args, node, SIMD_ARITY[name])
    ops = [b.convert(v, T.UINT, a).op for v, a in zip(vals, args)]
    d = b.reg(T.UINT.dtype)
    b.emit(Op.CALL, node, dst=d, args=tuple(ops), sub=name)
    return _val(T.UINT, d)


@_reg(" ".join(_DOT + _SHIFT), "bit", True)
def _int3(b, name, args, node, want):
    _nargs(b, name, args, node, 3)
    vals = [b.rvalue(a) for a in args]
    if not all(isinstance(v.ctype, Scalar) and not v.ctype.is_float for v in vals):
        raise _no_overload(b, name, vals, node)
    t = T.UINT
    if name in _DOT:
        # a candidate fits if no argument matches the other one exactly where it does not
        ints = [T.promote(v.ctype) == T.INT for v in vals]
        uns = [T.promote(v.ctype) == T.UINT for v in vals]
        fits = [c for c, mine, other in ((T.INT, ints, uns), (T.UINT, uns, ints))
                if all(m or not o for m, o in zip(mine, other))]
        if len(fits) != 1:
            types = ", ".join(str(v.ctype) for v in vals)
            raise b.err(f'more than one instance of overloaded function "{name}" matches the '
                        f"argument list (argument types are: ({types})): make the arguments all "
                        "int or all unsigned int", node)
        t = fits[0]
    ops = [b.convert(v, t, a).op for v, a in zip(vals, args)]
    d = b.reg(t.dtype)
    b.emit(Op.CALL, node, dst=d, args=tuple(ops), sub=name)
    return _val(t, d)


@_reg("__simt_xorwow_matvec", "bit", True)
def _xorwow_matvec(b, name, args, node, want):
    """simt's curand_kernel.h: word k of jump matrix m of a table times the XORWOW state
    (``simt.curand.xorwow_matvec``)."""
    _nargs(b, name, args, node, 8)
    ops = [b.convert(b.rvalue(a), T.UINT if k < 5 else T.INT, a).op for k, a in enumerate(args)]
    d = b.reg(T.UINT.dtype)
    b.emit(Op.CALL, node, dst=d, args=tuple(ops), sub=name)
    return _val(T.UINT, d)


# -------------------------------------------------------------------- math
_MATH1 = ("sqrt rsqrt cbrt exp exp2 exp10 expm1 log log2 log10 log1p sin cos tan asin acos atan "
          "sinh cosh tanh asinh acosh atanh floor ceil round trunc rint nearbyint fabs erf erfc "
          "lgamma tgamma sinpi cospi erfinv erfcinv normcdf normcdfinv "
          "rcbrt logb erfcx j0 j1 y0 y1 cyl_bessel_i0 cyl_bessel_i1").split()
_MATH2 = "pow fmin fmax fmod atan2 hypot copysign fdim remainder nextafter rhypot".split()
_MATH3 = ["fma", "norm3d", "rnorm3d"]
_MATH4 = ["norm4d", "rnorm4d"]
# the double functions with no float overload in CUDA's headers (crt/math_functions.h of
# CUDA 13 declares none): rhypot(1.0f, 2.0f) is the double rhypot; rhypotf the float one
_DOUBLE_ONLY = {"rhypot", "norm3d", "rnorm3d", "norm4d", "rnorm4d"}
_FAST = {"__expf": "exp", "__logf": "log", "__sinf": "sin", "__cosf": "cos", "__tanf": "tan",
         "__log2f": "log2", "__log10f": "log10", "__exp10f": "exp10", "__powf": "pow",
         "__fdividef": "div", "__fadd_rn": "add", "__fmul_rn": "mul", "__fsub_rn": "sub",
         "__fdiv_rn": "div", "__fmaf_rn": "fma", "__dadd_rn": "add", "__dmul_rn": "mul"}


def _math_names():
    names = []
    for base in _MATH1 + _MATH2 + _MATH3 + _MATH4:
        names += [base, base + "f"]
    return " ".join(names + list(_FAST) + ["isnan", "isinf", "isfinite", "signbit", "__isnan",
                                           "__isinf", "fabsf", "fabs"])


@_reg(_math_names(), "math", True)
def _math(b, name, args, node, want):
    if name in _FAST:
        base = _FAST[name]
        ftype = T.DOUBLE if name.startswith("__d") else T.FLOAT
    elif name in ("isnan", "isinf", "isfinite", "signbit", "__isnan", "__isinf"):
        _nargs(b, name, args, node, 1)
        v = b.rvalue(args[0])
        t = v.ctype if isinstance(v.ctype, Scalar) and v.ctype.is_float else T.DOUBLE
        a = b.convert(v, t, args[0]).op
        d = b.reg(np.bool_)
        b.emit(Op.CALL, node, dst=d, args=(a,), sub=name.lstrip("_"))
        return _val(T.BOOL, d)
    elif name.endswith("f") and name[:-1] in _MATH1 + _MATH2 + _MATH3 + _MATH4 + ["fabs"]:
        base, ftype = name[:-1], T.FLOAT
    else:
        base, ftype = name, (T.DOUBLE if name in _DOUBLE_ONLY else None)
    n = (1 if base in _MATH1 or base == "fabs" else 2 if base in _MATH2 or base in ("div", "add", "mul", "sub")
         else 4 if base in _MATH4 else 3)
    vals = _scalar_args(b, name, args, node, n)
    if ftype is None:   # C++ overload: float if every argument is float (or a __half,
        # whose operator float() is the best conversion to float), else double
        ftype = T.FLOAT if all(v.ctype in (T.FLOAT, T.HALF) for v in vals) else T.DOUBLE
    ops = [b.convert(v, ftype, a).op for v, a in zip(vals, args)]
    d = b.reg(ftype.dtype)
    # fast intrinsics (__expf, ...) compute what the IEEE function does here, but cost less
    # on the GPU (machine.OP_COST)
    b.emit(Op.CALL, node, dst=d, args=tuple(ops), sub="m_" + base,
           info={"fast": True} if name in _FAST else {})
    return _val(ftype, d)


def _float_type(name, v):
    """The float or double overload of a math function named ``name`` (``...f``: float)
    for the argument ``v`` (C++: float for a float or a __half, double otherwise)."""
    return T.FLOAT if name.endswith("f") or v.ctype in (T.FLOAT, T.HALF) else T.DOUBLE


def _int_pointee(b, name, pa, want_t):
    """The lvalue an ``int *`` argument points at (``&local`` names the variable)."""
    amp = isinstance(pa, c_ast.UnaryOp) and pa.op == "&"
    if not amp and not isinstance(pt := b.type_of(pa), Pointer):
        raise b.err(f'argument of type "{pt}" is incompatible with parameter of type '
                    f'"{want_t} *" in {name}', pa)
    lv = b.lvalue(pa.expr if amp else c_ast.UnaryOp("*", pa, pa.coord))
    if lv.ctype != want_t:
        raise b.err(f'argument of type "{lv.ctype} *" is incompatible with parameter of type '
                    f'"{want_t} *" in {name}', pa)
    return lv


@_reg("ilogbf ilogb", "math", True)
def _ilogb(b, name, args, node, want):
    """ilogbf(x): the unbiased exponent as an int (INT_MIN at 0 and NaN, INT_MAX at the
    infinities)."""
    v, = _scalar_args(b, name, args, node, 1)
    x = b.convert(v, _float_type(name, v), args[0]).op
    d = b.reg(np.int32)
    b.emit(Op.CALL, node, dst=d, args=(x,), sub="m_ilogb")
    return _val(T.INT, d)


@_reg("jnf jn ynf yn", "math", True)
def _bessel_n(b, name, args, node, want):
    """jnf(n, x), ynf(n, x): Bessel functions of integer order n (an int) of x."""
    vals = _scalar_args(b, name, args, node, 2)
    ft = _float_type(name, vals[1])
    ops = (b.convert(vals[0], T.INT, args[0]).op, b.convert(vals[1], ft, args[1]).op)
    d = b.reg(ft.dtype)
    b.emit(Op.CALL, node, dst=d, args=ops, sub="m_jn" if name.startswith("j") else "m_yn")
    return _val(ft, d)


@_reg("remquof remquo", "math", False)
def _remquo(b, name, args, node, want):
    """remquof(x, y, &q): the IEEE remainder of x by y (the quotient rounded to nearest
    even), the quotient's low 3 bits, with the sign of x / y, stored through the pointer."""
    vals = _scalar_args(b, name, args, node, 3, 2)
    ft = T.FLOAT if name == "remquof" or all(v.ctype in (T.FLOAT, T.HALF) for v in vals) else T.DOUBLE
    x, y = (b.convert(v, ft, a).op for v, a in zip(vals, args))
    lv = _int_pointee(b, name, args[2], T.INT)
    q = b.reg(np.int32)
    b.emit(Op.CALL, node, dst=q, args=(x, y), sub="m_remquo_q")
    b.store(lv, _val(T.INT, q), args[2])
    d = b.reg(ft.dtype)
    b.emit(Op.CALL, node, dst=d, args=(x, y), sub="m_remquo")
    return _val(ft, d)


@_reg("fdividef", "math", True)
def _fdividef(b, name, args, node, want):
    """fdividef(x, y): x / y, the IEEE division (CUDA's default; __fdividef is the fast
    one), priced as one (machine.OP_COST's fdiv)."""
    vals = _scalar_args(b, name, args, node, 2)
    x, y = (b.convert(v, T.FLOAT, a) for v, a in zip(vals, args))
    return b.arith("/", x, y, node)


def _nan_payload(tag: bytes) -> int:
    """The number libdevice's __nv_nan / __nv_nanf read from a NaN's tag, as a 64-bit
    value: "0x..." hexadecimal, "0..." octal, otherwise decimal; 0 if any character is out
    of place, all ones on overflow."""
    s = tag.decode("latin-1")
    base = 16 if s[:2] in ("0x", "0X") else 8 if s[:1] == "0" else 10
    v, bad = 0, False
    for ch in s[2:] if base == 16 else s:
        d = int(ch, 16) if ch in "0123456789abcdefABCDEF" else base
        if d >= base:
            bad = True
        else:
            v = v * base + d
    return 0 if bad else (1 << 64) - 1 if v >> 64 else v


@_reg("nanf nan", "math", True)
def _nan(b, name, args, node, want):
    """nan(tag) / nanf(tag): the quiet NaN with the tag's number in its significand, as
    libdevice builds it: nan, 0x7ff8000000000000 | (n & 0xfffffffffffff); nanf,
    0x7fc00000 | (n & 0x3fffff) (nanf("") is 0x7fc00000).  simt reads the tag from a
    string literal only."""
    from .lower import c_string_bytes
    _nargs(b, name, args, node, 1)
    a = args[0]
    if not (isinstance(a, c_ast.Constant) and a.type == "string" and a.value.startswith('"')):
        v = b.rvalue(a)
        if not (isinstance(v.ctype, Pointer) and v.ctype.base in (T.CHAR, T.SCHAR, T.UCHAR)):
            raise b.err(f'argument of type "{v.ctype}" is incompatible with parameter of type '
                        f'"const char *" in {name}', a)
        raise b.err(f'simt reads the tag of {name}() from a string literal only ({name}("") or '
                    f'{name}("0x1f")): the NaN it selects is known when the kernel compiles', a)
    n = _nan_payload(c_string_bytes(a.value))
    if name == "nanf":
        return _val(T.FLOAT, Const(np.uint32(0x7FC00000 | (n & 0x3FFFFF)).view(np.float32)))
    return _val(T.DOUBLE, Const(np.uint64(0x7FF8000000000000 | (n & 0xFFFFFFFFFFFFF)).view(np.float64)))


@_reg("__frsqrt_rn", "math", True)
def _frsqrt_rn(b, name, args, node, want):
    """__frsqrt_rn(x): 1 / sqrt(x) rounded to nearest even."""
    v, = _scalar_args(b, name, args, node, 1)
    d = b.reg(np.float32)
    b.emit(Op.CALL, node, dst=d, args=(b.convert(v, T.FLOAT, args[0]).op,), sub="m_frsqrt_rn")
    return _val(T.FLOAT, d)


@_reg("__hiloint2double", "bit", True)
def _hiloint2double(b, name, args, node, want):
    """__hiloint2double(hi, lo): the double whose high and low 32 bits they are."""
    vals = _scalar_args(b, name, args, node, 2)
    ops = tuple(b.convert(v, T.INT, a).op for v, a in zip(vals, args))
    d = b.reg(np.float64)
    b.emit(Op.CALL, node, dst=d, args=ops, sub=name)
    return _val(T.DOUBLE, d)


@_reg("__isGlobal __isShared __isConstant __isLocal", "bit", True)
def _isspace(b, name, args, node, want):
    """__isGlobal(p) ...: 1 where the generic address p is in that space (simt.spaces);
    ``&x`` of a variable simt keeps in registers is a local variable's address."""
    from .lower import RegTarget
    _nargs(b, name, args, node, 1)
    v = b.rvalue(args[0])
    if not isinstance(v.ctype, Pointer):
        raise b.err(f'argument of type "{v.ctype}" is incompatible with parameter of type '
                    f'"const void *" in {name}', args[0])
    if isinstance(v.op, RegTarget):
        return _val(T.UINT, Const(np.uint32(name == "__isLocal")))
    d = b.reg(np.uint32)
    b.emit(Op.CALL, node, dst=d, args=(v.op,), sub=name)
    return _val(T.UINT, d)


# normf(dim, p) and kin: the coordinates' type, and whether it is the reciprocal
_NORMP = {"normf": (T.FLOAT, False), "rnormf": (T.FLOAT, True), "norm": (T.DOUBLE, False),
          "rnorm": (T.DOUBLE, True)}
_NORM_UNROLL = 64
_NORM_LOOPS: dict = {}


def _norm_loops(ft, coord):
    """normf's two passes over a run-time dim, as libdevice's __nv_normf makes them
    (pycparser's AST of C text, placed at the call): the largest |p[i]| (CUDA scales by
    it; simt only loads and compares), then each coordinate's square added to the
    double-double (__simt_h, __simt_l)."""
    import copy
    key = ft.dtype.itemsize
    if key not in _NORM_LOOPS:
        from pycparser import c_parser
        t = "float" if ft == T.FLOAT else "double"
        src = ("void f(void) { "
               "for (int __simt_i = 1; __simt_i < __simt_n; __simt_i++) { "
               f"{t} __simt_x = __simt_p[__simt_i]; __simt_m = __simt_absmax(__simt_m, __simt_x); }} "
               "for (int __simt_i = 0; __simt_i < __simt_n; __simt_i++) { "
               f"{t} __simt_x = __simt_p[__simt_i]; "
               "double __simt_t = __simt_ddsq_hi(__simt_h, __simt_l, __simt_x); "
               "__simt_l = __simt_ddsq_lo(__simt_h, __simt_l, __simt_x); __simt_h = __simt_t; } }")
        _NORM_LOOPS[key] = c_parser.CParser().parse(src).ext[0].body
    body = copy.deepcopy(_NORM_LOOPS[key])
    stack = [body]
    while stack:
        n = stack.pop()
        n.coord = coord
        stack.extend(c for _, c in n.children())
    return body


@_reg(" ".join(_NORMP), "math", False)
def _normp(b, name, args, node, want):
    """normf(dim, p) / rnormf: the root of the sum of the squares of p[0 .. dim-1] (or its
    reciprocal), rounded once.  libdevice's __nv_normf loads p[0] whatever dim is (a dim
    of 0 or less gives |p[0]|, or its reciprocal: simt too), then makes two passes over p,
    the largest |p[i]| first (it scales by it) and the sum of squares.  A constant dim up
    to 64, which nvcc unrolls (each coordinate loaded once): its loads and one call
    (``m_norm``).  A run-time dim: p[0], the two loops (each coordinate loaded twice; one
    compare a coordinate in the first, two one-instruction steps adding its square to a
    double-double in the second: ``m_absmax``, ``m_ddsq_hi``/``_lo``), then the call.
    The loads are ordinary loads of p's memory (global, shared or local)."""
    from .lower import Val
    _nargs(b, name, args, node, 2)
    ft, inverse = _NORMP[name]
    dim, p = b.rvalue(args[0]), b.rvalue(args[1])
    if not isinstance(dim.ctype, Scalar) or not isinstance(p.ctype, Pointer) or p.ctype.base != ft:
        raise _no_overload(b, name, [dim, p], node)
    n = b.convert(dim, T.INT, args[0])
    sub = "m_rnorm" if inverse else "m_norm"

    def coord(i):
        return b.rvalue(c_ast.ArrayRef(c_ast.ID("__simt_p", node.coord),
                                       c_ast.Constant("int", str(i), node.coord), node.coord)).op
    b.scopes.append({})
    try:
        b.bind_copy(node, "__simt_p", p.ctype, p)
        if isinstance(n.op, Const) and int(n.op.value) <= _NORM_UNROLL:
            ops = (*(coord(i) for i in range(max(int(n.op.value), 1))), Const(ft.dtype.type(0)))
        else:
            x0 = coord(0)
            b.bind_copy(node, "__simt_n", T.INT, n)
            b.bind_copy(node, "__simt_m", ft, Val(ft, x0))
            for v in ("__simt_h", "__simt_l"):
                b.bind_copy(node, v, T.DOUBLE, Val(T.DOUBLE, Const(np.float64(0))))
            b.stmt(_norm_loops(ft, node.coord))
            ops = (b.lookup("__simt_h").op, b.lookup("__simt_l").op, x0, n.op, Const(ft.dtype.type(1)))
    finally:
        b.scopes.pop()
    d = b.reg(ft.dtype)
    b.emit(Op.CALL, node, dst=d, args=ops, sub=sub)
    return _val(ft, d)


@_reg("__simt_ddsq_hi __simt_ddsq_lo __simt_absmax", "math", True)
def _norm_steps(b, name, args, node, want):
    """normf's loop steps (simt.ops._ddsq): the high or the low half of (h, l) + x^2; and
    max(m, |x|)."""
    vals = [b.rvalue(a) for a in args]
    if name == "__simt_absmax":
        _nargs(b, name, args, node, 2)
        t = vals[0].ctype
        ops = tuple(b.convert(v, t, a).op for v, a in zip(vals, args))
    else:
        _nargs(b, name, args, node, 3)
        t = T.DOUBLE
        ops = (b.convert(vals[0], t, args[0]).op, b.convert(vals[1], t, args[1]).op, vals[2].op)
    d = b.reg(t.dtype)
    b.emit(Op.CALL, node, dst=d, args=ops, sub="m_" + name[len("__simt_"):])
    return _val(t, d)


_SINCOS = {"sincosf": ("sin", "cos", T.FLOAT, False), "__sincosf": ("sin", "cos", T.FLOAT, True),
           "sincospif": ("sinpi", "cospi", T.FLOAT, False), "sincos": ("sin", "cos", None, False),
           "sincospi": ("sinpi", "cospi", None, False)}


@_reg(" ".join(_SINCOS), "math", False)
def _sincos(b, name, args, node, want):
    """sincosf(x, &s, &c) and its kin: the sine and the cosine, stored through the two
    pointers (into the variables themselves when they are ``&local``, which nvcc keeps in
    registers).  The pair costs what CUDA's shared range reduction costs (math3/), about
    1.2 sines, not a sine and a cosine."""
    from .lower import Val
    _nargs(b, name, args, node, 3)
    fs, fc, ftype, fast = _SINCOS[name]
    v = b.rvalue(args[0])
    if not isinstance(v.ctype, Scalar):
        raise _no_overload(b, name, [v], node)
    if ftype is None:    # C++ overload on the argument: float or double
        ftype = T.FLOAT if v.ctype in (T.FLOAT, T.HALF) else T.DOUBLE
    x = b.convert(v, ftype, args[0]).op
    for fn, pa in ((fs, args[1]), (fc, args[2])):
        # *pa as the lowerer reads an assignment's target (pointer and const checks
        # included); &x is x itself
        amp = isinstance(pa, c_ast.UnaryOp) and pa.op == "&"
        if not amp and not isinstance(pt := b.type_of(pa), Pointer):
            raise b.err(f'argument of type "{pt}" is incompatible with parameter of type '
                        f'"{ftype} *" in {name}', pa)
        lv = b.lvalue(pa.expr if amp else c_ast.UnaryOp("*", pa, pa.coord))
        if lv.ctype != ftype:
            raise b.err(f'argument of type "{lv.ctype} *" is incompatible with parameter of type '
                        f'"{ftype} *" in {name}', pa)
        d = b.reg(ftype.dtype)
        # the pair is priced as one (machine.OP_COST's *_pair rows): the sine carries its
        # issue cycles, the cosine only its latency
        b.emit(Op.CALL, node, dst=d, args=(x,), sub="m_" + fn,
               info={"fast": True, "pair": True} if fast else {"pair": True})
        b.store(lv, Val(ftype, d), pa)
    return None


@_reg("min max umin umax llmin llmax ullmin ullmax", "math", True)
def _minmax(b, name, args, node, want):
    vals = _scalar_args(b, name, args, node, 2)
    if any(v.ctype.is_half or v.ctype.is_bf16 for v in vals):
        raise _ambiguous_half(b, name, vals, node, "__hmin / __hmax")
    t = usual_arith(vals[0].ctype, vals[1].ctype)
    forced = {"umin": T.UINT, "umax": T.UINT, "llmin": T.LLONG, "llmax": T.LLONG,
              "ullmin": T.ULLONG, "ullmax": T.ULLONG}
    t = forced.get(name, t)
    ops = [b.convert(v, t, a).op for v, a in zip(vals, args)]
    fn = "min" if "min" in name else "max"
    if all(isinstance(o, Const) for o in ops):
        r = min(ops[0].value, ops[1].value) if fn == "min" else max(ops[0].value, ops[1].value)
        return _val(t, Const(t.dtype.type(r)))
    d = b.reg(t.dtype)
    b.emit(Op.CALL, node, dst=d, args=tuple(ops), sub="m_" + fn)
    return _val(t, d)


@_reg("abs labs llabs", "math", True)
def _abs(b, name, args, node, want):
    v, = _scalar_args(b, name, args, node, 1)
    if v.ctype.is_half or v.ctype.is_bf16:
        raise _ambiguous_half(b, name, [v], node, "__habs")
    t = {"labs": T.LONG, "llabs": T.LLONG}.get(name, v.ctype if v.ctype.is_float else T.promote(v.ctype))
    a = b.convert(v, t, args[0]).op
    d = b.reg(t.dtype)
    b.emit(Op.CALL, node, dst=d, args=(a,), sub="m_fabs")
    return _val(t, d)


# ---------------------------------------------------------------- vectors
def _make_vec(b, name, args, node, want):
    vt = T.TYPEDEFS[name[5:]]
    _nargs(b, name, args, node, vt.n)
    from .lower import Val
    ops = [b.convert(b.rvalue(a), vt.elem, a).op for a in args]
    return Val(vt, None, ops)


for _vn in sorted(T.VECTOR_NAMES):
    if _vn != "dim3" and not _vn.startswith("__"):       # (make_half2, not make___half2)
        INTRINSICS["make_" + _vn] = Spec("vector", True, _make_vec)


# ------------------------------------------------------------------ misc
@_reg("__ldg __ldcg __ldca __ldcs __ldlu __ldcv", "memory", False)
def _ldg(b, name, args, node, want):
    _nargs(b, name, args, node, 1)
    p = b.rvalue(args[0])
    if not isinstance(p.ctype, Pointer):
        raise _no_overload(b, name, [p], node)
    from .lower import LVal
    return b.load(LVal(p.ctype.base, "mem", addr=p.op), node)


@_reg("__stcg __stcs __stwt __stwb", "memory", False)
def _st_hint(b, name, args, node, want):
    """__stcs(p, v) and the other cache-hinted stores: ``*p = v`` (simt has no cache
    policies for stores: the hint changes nothing here)."""
    _nargs(b, name, args, node, 2)
    p = b.rvalue(args[0])
    if not isinstance(p.ctype, Pointer) or p.ctype.const or p.ctype.base == T.VOID:
        raise _no_overload(b, name, [p, b.rvalue(args[1])], node)
    from .lower import LVal
    v = b.convert(b.rvalue(args[1]), p.ctype.base, args[1])
    b.store(LVal(p.ctype.base, "mem", addr=p.op), v, node)
    return None


@_reg("__builtin_expect __builtin_assume", "misc", True)
def _builtin_hint(b, name, args, node, want):
    """__builtin_expect(x, c) is x (a long, as GCC declares it); __builtin_assume(c) is a
    no-op whose argument is not evaluated (clang's rule)."""
    if name == "__builtin_assume":
        _nargs(b, name, args, node, 1)
        b.type_of(args[0])
        return None
    _nargs(b, name, args, node, 2)
    v = b.rvalue(args[0])
    b.rvalue(args[1])
    if not isinstance(v.ctype, Scalar):
        raise _no_overload(b, name, [v], node)
    return b.convert(v, T.LONG, args[0])


@_reg("__trap", "io", False)
def _trap(b, name, args, node, want):
    """__trap(): the launch stops with an error naming the thread, as a failed assert
    does (on the GPU: cudaErrorLaunchFailure, "unspecified launch failure")."""
    _nargs(b, name, args, node, 0)
    b.emit(Op.ASSERT, node, args=(Const(np.bool_(False)),), info={"trap": True})
    return None




@_reg("printf", "io", False)
def _printf(b, name, args, node, want):
    """printf: the format must be a string literal.  A ``%s`` of a string literal is written
    into the format here; a ``%s`` of any other ``char *`` reads the string from memory
    when the instruction runs (``machine._printf``: global and constant memory only)."""
    from .lower import c_string_bytes
    if not args:
        raise b.err('too few arguments in call to "printf"', node)
    if not (isinstance(args[0], c_ast.Constant) and args[0].type == "string"
            and args[0].value.startswith('"')):
        b.rvalue(args[0])
        raise b.err("printf needs a string literal format", args[0])
    text = c_string_bytes(args[0].value).decode("utf-8", "replace")
    specs = [m for m in PRINTF_CONVERSION.finditer(text) if m.group(2) != "%"]
    ops, strings, out, pos = [], [], [], 0
    for k, a in enumerate(args[1:]):
        spec = specs[k] if k < len(specs) else None
        if spec is not None and spec.group(2) == "s" and isinstance(a, c_ast.Constant) \
                and a.type == "string" and a.value.startswith('"'):
            s = c_string_bytes(a.value).decode("utf-8", "replace")     # "%-6s" % "xyz", in place
            out += [text[pos:spec.start()], (("%" + spec.group(1) + "s") % s).replace("%", "%%")]
            pos = spec.end()
            continue
        v = b.rvalue(a)
        if not isinstance(v.ctype, (Scalar, Pointer)):
            raise b.err(f"printf cannot print a {v.ctype}; pass its members", a)
        if isinstance(v.ctype, Scalar) and v.ctype.is_bf16:
            raise b.err("printf cannot print a __nv_bfloat16 (a class passed through '...'); pass "
                        "__bfloat162float(h)", a)
        if isinstance(v.ctype, Scalar) and v.ctype.is_half:
            raise b.err("printf cannot print a __half (a class passed through '...': %f would "
                        "read its 2 bytes as a double); pass __half2float(h)", a)
        if spec is not None and spec.group(2) == "s":
            if not (isinstance(v.ctype, Pointer) and v.ctype.base in (T.CHAR, T.UCHAR, T.SCHAR)):
                raise b.err(f'printf\'s %s needs a char *, got a value of type "{v.ctype}"', a)
            strings.append(len(ops))
        elif isinstance(v.ctype, Scalar) and v.ctype.is_float:
            v = b.convert(v, T.DOUBLE, a)   # varargs promote float to double
        elif isinstance(v.ctype, Scalar):
            v = b.convert(v, T.promote(v.ctype), a)
        ops.append(v.op)
    text = "".join(out) + text[pos:]
    b.emit(Op.PRINTF, node, args=tuple(ops), sub=text,
           info={"strings": tuple(strings)} if strings else {})
    if want:
        return _val(T.INT, Const(np.int32(0)))
    return None


@_reg("assert", "io", False)
def _assert(b, name, args, node, want):
    _nargs(b, name, args, node, 1)
    c = b.cond_bool(args[0])
    b.emit(Op.ASSERT, node, args=(c,))
    return None


@_reg("clock clock64", "misc", False)
def _clock(b, name, args, node, want):
    _nargs(b, name, args, node, 0)
    t = T.LLONG if name == "clock64" else T.INT
    d = b.reg(t.dtype)
    b.emit(Op.CALL, node, dst=d, args=(), sub="clock")
    return _val(t, d)


# ------------------------------------------------------------- half precision
# cuda_fp16.h: name -> (parameter types, result type, how it lowers).  Arguments convert
# to the parameter types as C++ converts them (a float to __half rounds, a __half to
# float is exact).  Lowerings:
#   ("bin", sub[, after])  Op.BIN of simt.ops.BINOPS, then optionally a call on the result
#   ("fma", after)         Op.FMA on halves (rounded once), then optionally a call
#   ("neg",)               Op.UN neg (the sign bit)
#   ("call", sub)          Op.CALL of simt.ops.CALLS
#   ("cvt", round)         a C conversion, after rounding the half (``m_hrint`` ...) if asked
H, F, D, H2 = T.HALF, T.FLOAT, T.DOUBLE, T.HALF2
_HALF: dict[str, tuple] = {
    "__hadd": ((H, H), H, ("bin", "h_add")), "__hsub": ((H, H), H, ("bin", "h_sub")),
    "__hmul": ((H, H), H, ("bin", "h_mul")), "__hdiv": ((H, H), H, ("bin", "h_div")),
    "__hadd_rn": ((H, H), H, ("bin", "h_add")), "__hsub_rn": ((H, H), H, ("bin", "h_sub")),
    "__hmul_rn": ((H, H), H, ("bin", "h_mul")),
    "__hadd_sat": ((H, H), H, ("bin", "h_add", "m_hsat")),
    "__hsub_sat": ((H, H), H, ("bin", "h_sub", "m_hsat")),
    "__hmul_sat": ((H, H), H, ("bin", "h_mul", "m_hsat")),
    "__hfma": ((H, H, H), H, ("fma", None)), "__hfma_sat": ((H, H, H), H, ("fma", "m_hsat")),
    "__hfma_relu": ((H, H, H), H, ("fma", "m_hrelu")),
    "__hneg": ((H,), H, ("neg",)), "__habs": ((H,), H, ("call", "m_habs")),
    "__hmax": ((H, H), H, ("call", "m_hmax")), "__hmin": ((H, H), H, ("call", "m_hmin")),
    "__hmax_nan": ((H, H), H, ("call", "m_hmax_nan")), "__hmin_nan": ((H, H), H, ("call", "m_hmin_nan")),
    "__heq": ((H, H), T.BOOL, ("bin", "eq")), "__hne": ((H, H), T.BOOL, ("bin", "h_ne")),
    "__hlt": ((H, H), T.BOOL, ("bin", "lt")), "__hle": ((H, H), T.BOOL, ("bin", "le")),
    "__hgt": ((H, H), T.BOOL, ("bin", "gt")), "__hge": ((H, H), T.BOOL, ("bin", "ge")),
    "__hequ": ((H, H), T.BOOL, ("bin", "h_equ")), "__hneu": ((H, H), T.BOOL, ("bin", "ne")),
    "__hltu": ((H, H), T.BOOL, ("bin", "h_ltu")), "__hleu": ((H, H), T.BOOL, ("bin", "h_leu")),
    "__hgtu": ((H, H), T.BOOL, ("bin", "h_gtu")), "__hgeu": ((H, H), T.BOOL, ("bin", "h_geu")),
    "__hisnan": ((H,), T.BOOL, ("call", "m_hisnan")), "__hisinf": ((H,), T.INT, ("call", "m_hisinf")),
    "__float2half": ((F,), H, ("call", "m_hcvt_rn")), "__double2half": ((D,), H, ("call", "m_hcvt_rn")),
    "__half2float": ((H,), F, ("cvt", None)),
    "__half2char_rz": ((H,), T.SCHAR, ("cvt", None)), "__half2uchar_rz": ((H,), T.UCHAR, ("cvt", None)),
    "__half_as_short": ((H,), T.SHORT, ("call", "m_h_as_s")),
    "__half_as_ushort": ((H,), T.USHORT, ("call", "m_h_as_us")),
    "__short_as_half": ((T.SHORT,), H, ("call", "m_s_as_h")),
    "__ushort_as_half": ((T.USHORT,), H, ("call", "m_us_as_h")),
}
_HMATH = "sqrt rsqrt rcp exp exp2 exp10 log log2 log10 sin cos trunc ceil floor rint".split()
for _m in _HMATH:
    _HALF["h" + _m] = ((H,), H, ("call", "m_h" + _m))
_ROUND = {"rn": "m_hrint", "rz": None, "rd": "m_hfloor", "ru": "m_hceil"}
for _r in _ROUND:
    _HALF["__float2half_" + _r] = ((F,), H, ("call", "m_hcvt_" + _r))
    for _p, _t in (("int", T.INT), ("uint", T.UINT), ("short", T.SHORT), ("ushort", T.USHORT),
                   ("ll", T.LLONG), ("ull", T.ULLONG)):
        _HALF[f"__{_p}2half_{_r}"] = ((_t,), H, ("call", "m_hcvt_" + _r))
        _HALF[f"__half2{_p}_{_r}"] = ((H,), _t, ("cvt", _ROUND[_r]))
# __hadd(a, __hmul(b, c)) is one fma.rn.f16 on the GPU (ptxas contracts add.f16 and mul.f16
# without a rounding modifier); the _rn and _sat forms are never contracted.  The value:
# whether the product is subtracted
_CONTRACT = {"__hadd": False, "__hsub": True, "__hadd2": False, "__hsub2": True}

# the __half2 forms: each half of the pair as the scalar function computes it
_HALF2_OF = {"__hadd2": "__hadd", "__hsub2": "__hsub", "__hmul2": "__hmul", "__h2div": "__hdiv",
             "__hadd2_rn": "__hadd_rn", "__hsub2_rn": "__hsub_rn", "__hmul2_rn": "__hmul_rn",
             "__hadd2_sat": "__hadd_sat", "__hsub2_sat": "__hsub_sat", "__hmul2_sat": "__hmul_sat",
             "__hfma2": "__hfma", "__hfma2_sat": "__hfma_sat", "__hfma2_relu": "__hfma_relu",
             "__hneg2": "__hneg", "__habs2": "__habs", "__hmax2": "__hmax", "__hmin2": "__hmin",
             "__hmax2_nan": "__hmax_nan", "__hmin2_nan": "__hmin_nan",
             **{"h2" + m: "h" + m for m in _HMATH}}
# packing and unpacking __half2: name -> (parameter types, result type, the result's
# members from the arguments' members), each member converted to the result's type
_F2 = T.TYPEDEFS["float2"]
_HALF2_PACK: dict[str, tuple] = {
    "__halves2half2": ((H, H), H2, lambda a, b: [a[0], b[0]]),
    "make_half2": ((H, H), H2, lambda a, b: [a[0], b[0]]),
    "__half2half2": ((H,), H2, lambda a: [a[0], a[0]]),
    "__float2half2_rn": ((F,), H2, lambda a: [a[0], a[0]]),
    "__floats2half2_rn": ((F, F), H2, lambda a, b: [a[0], b[0]]),
    "__float22half2_rn": ((_F2,), H2, lambda a: [a[0], a[1]]),
    "__half22float2": ((H2,), _F2, lambda a: [a[0], a[1]]),
    "__low2half": ((H2,), H, lambda a: [a[0]]), "__high2half": ((H2,), H, lambda a: [a[1]]),
    "__low2float": ((H2,), F, lambda a: [a[0]]), "__high2float": ((H2,), F, lambda a: [a[1]]),
    "__lows2half2": ((H2, H2), H2, lambda a, b: [a[0], b[0]]),
    "__highs2half2": ((H2, H2), H2, lambda a, b: [a[1], b[1]]),
    "__lowhigh2highlow": ((H2,), H2, lambda a: [a[1], a[0]]),
    "__low2half2": ((H2,), H2, lambda a: [a[0], a[0]]),
    "__high2half2": ((H2,), H2, lambda a: [a[1], a[1]]),
}


def _half_args(b, name, args, node, sig) -> list:
    """The arguments converted to the parameter types ``sig``: a list of Vals."""
    _nargs(b, name, args, node, len(sig))
    vals = [b.rvalue(a) for a in args]
    if not all(isinstance(v.ctype, Scalar) or v.ctype in (H2, _F2) for v in vals):
        raise _no_overload(b, name, vals, node)
    if any(isinstance(v.ctype, Scalar) and v.ctype.is_bf16 for v in vals):
        raise b.err(f'"{name}" on a __nv_bfloat16 is not supported yet: convert with '
                    "__bfloat162float(h) and use the float function", node)
    return [b.convert(v, t, a) for v, t, a in zip(vals, sig, args)]


def _is_call(a, name: str) -> bool:
    return isinstance(a, c_ast.FuncCall) and isinstance(a.name, c_ast.ID) and a.name.name == name \
        and a.args is not None and len(a.args.exprs) == 2


def _contracted(b, name, args, node):
    """``__hadd(x, __hmul(a, c))`` (either side; ``__hsub``, the ``2`` forms): the fma,
    or None."""
    pair = name.endswith("2")
    mul, t = ("__hmul2", H2) if pair else ("__hmul", H)
    for k, a in enumerate(args):
        if len(args) == 2 and _is_call(a, mul):
            x, y = _half_args(b, mul, list(a.args.exprs), a, (t, t))
            (c,) = _half_args(b, name, [args[1 - k]], node, (t,))
            if _CONTRACT[name]:             # a*c - x = fma(a, c, -x);  x - a*c = fma(-a, c, x)
                neg = b.negate_fields if pair else b.negate
                c, x = (neg(c, node), x) if k == 0 else (c, neg(x, node))
            return _fields_apply(b, "__hfma", [x, y, c], node) if pair else \
                _half_apply(b, "__hfma", [x.op, y.op, c.op], node)
    return None


def _val_fields(t, fields):
    from .lower import Val
    return Val(t, None, list(fields))


def _half_apply(b, name, ops, node):
    """The half function ``name`` on operands already of its parameter types."""
    sig, rt, how = _HALF[name]
    kind = how[0]
    if kind == "call":
        return _half_call(b, how[1], rt, ops, node)
    if kind == "neg":
        return b.negate(_val(H, ops[0]), node)
    if kind == "cvt":
        v = _val(H, ops[0]) if how[1] is None else _half_call(b, how[1], H, ops, node)
        return b.convert(v, rt, node, explicit=True)
    if kind == "bin":
        v, after = b.half_bin(how[1], rt, ops[0], ops[1], node), how[2] if len(how) > 2 else None
    else:                                   # "fma"
        v, after = b.half_fma(*(_val(H, o) for o in ops), node), how[1]
    return _half_call(b, after, rt, [v.op], node) if after else v


def _fields_apply(b, name, vals, node):
    """A __half2 function: the scalar ``name`` on each half of the pair."""
    return _val_fields(H2, [_half_apply(b, name, [v.fields[k] for v in vals], node).op
                            for k in range(2)])


def _lower_half(b, name, args, node, want):
    if name in _CONTRACT:
        f = _contracted(b, name, args, node)
        if f is not None:
            return f
    if name in _HALF2_OF:
        scalar = _HALF2_OF[name]
        return _fields_apply(b, scalar, _half_args(b, name, args, node, (H2,) * len(_HALF[scalar][0])),
                             node)
    if name in _HALF2_PACK:
        sig, rt, pick = _HALF2_PACK[name]
        vals = _half_args(b, name, args, node, sig)
        parts = pick(*([_val(H if v.ctype == H2 else F, f) for f in v.fields] if v.fields is not None
                       else [v] for v in vals))
        et = rt.elem if isinstance(rt, T.Vector) else rt
        ops = [b.convert(p, et, node).op for p in parts]
        return _val_fields(rt, ops) if isinstance(rt, T.Vector) else _val(rt, ops[0])
    return _half_apply(b, name, [v.op for v in _half_args(b, name, args, node, _HALF[name][0])], node)


def _half_call(b, sub, rt, ops, node):
    """One call of simt.ops.CALLS (folded when its operands are constants)."""
    if all(isinstance(o, Const) for o in ops):
        from .ops import CALLS
        with np.errstate(all="ignore"):
            r = CALLS[sub](*(np.asarray(o.value) for o in ops))
        return _val(rt, Const(np.asarray(r).astype(rt.dtype)[()]))
    d = b.reg(rt.dtype)
    b.emit(Op.CALL, node, dst=d, args=tuple(ops), sub=sub)
    return _val(rt, d)


for _n in (*_HALF, *_HALF2_OF, *_HALF2_PACK):
    INTRINSICS[_n] = Spec("half", True, _lower_half)


def _hadd_overloads(b, name, args, node, want):
    """``__hadd``: the half function when an argument is a __half, the integer one
    (``int __hadd(int, int)``, the halving add) when none is; a __half beside another type
    matches both (ambiguous, as NVRTC says)."""
    if len(args) == 2:
        kinds = [b.type_of(a) for a in args]
        halves = [isinstance(t, Scalar) and t.is_half for t in kinds]
        if any(halves) and not all(halves):
            raise _ambiguous_half(b, name, [_val(t, None) for t in kinds], node,
                                  "__float2half(x) for the other argument")
        if not any(halves):
            return _int2(b, name, args, node, want)
    return _lower_half(b, name, args, node, want)


INTRINSICS["__hadd"] = Spec("half", True, _hadd_overloads)


def _not_yet(b, name, args, node, want):
    raise b.err(f'"{name}" (cuda_fp16.h) is not supported yet: compare or add the .x and .y '
                "halves of the __half2 one by one", node)


for _n in ("__heq2 __hne2 __hlt2 __hle2 __hgt2 __hge2 __hequ2 __hneu2 __hltu2 __hleu2 __hgtu2 "
           "__hgeu2 __hbeq2 __hbne2 __hblt2 __hble2 __hbgt2 __hbge2 __hbequ2 __hbneu2 __hbltu2 "
           "__hbleu2 __hbgtu2 __hbgeu2 __heq2_mask __hne2_mask __hisnan2 __hcmadd").split():
    INTRINSICS[_n] = Spec("half", False, _not_yet)


# ------------------------------------------------------------------ bfloat16
# cuda_bf16.h: name -> (parameter types, result type, how it lowers), as _HALF, on
# __nv_bfloat16 values held as uint16 bit patterns (simt.ops.BF16_BINOPS / BF16_CALLS):
#   ("bin", sub)     Op.BIN of simt.ops.BINOPS
#   ("call", sub)    Op.CALL of simt.ops.CALLS
#   ("cvt", round)   to float (exact), rounded to an integral value (``m_rint`` ...) if
#                    asked, then a C conversion (truncating, saturating)
B = T.BF16
_BF16: dict[str, tuple] = {
    "__hadd": ((B, B), B, ("bin", "b_add")), "__hsub": ((B, B), B, ("bin", "b_sub")),
    "__hmul": ((B, B), B, ("bin", "b_mul")), "__hdiv": ((B, B), B, ("bin", "b_div")),
    "__hadd_rn": ((B, B), B, ("bin", "b_add")), "__hsub_rn": ((B, B), B, ("bin", "b_sub")),
    "__hmul_rn": ((B, B), B, ("bin", "b_mul")),
    "__hfma": ((B, B, B), B, ("call", "m_bfma")),
    "__hneg": ((B,), B, ("call", "m_bneg")), "__habs": ((B,), B, ("call", "m_babs")),
    "__hmax": ((B, B), B, ("call", "m_bmax")), "__hmin": ((B, B), B, ("call", "m_bmin")),
    "__heq": ((B, B), T.BOOL, ("bin", "b_eq")), "__hlt": ((B, B), T.BOOL, ("bin", "b_lt")),
    "__hle": ((B, B), T.BOOL, ("bin", "b_le")), "__hgt": ((B, B), T.BOOL, ("bin", "b_gt")),
    "__hge": ((B, B), T.BOOL, ("bin", "b_ge")), "__hneu": ((B, B), T.BOOL, ("bin", "b_ne")),
    "__float2bfloat16": ((F,), B, ("call", "m_bcvt_rn")),
    "__double2bfloat16": ((D,), B, ("call", "m_bcvt_rn")),
    "__bfloat162float": ((B,), F, ("cvt", None)),
    "__bfloat16_as_ushort": ((B,), T.USHORT, ("call", "m_bbits")),
    "__ushort_as_bfloat16": ((T.USHORT,), B, ("call", "m_bbits")),
    "__bfloat16_as_short": ((B,), T.SHORT, ("call", "m_bbits_s")),
    "__short_as_bfloat16": ((T.SHORT,), B, ("call", "m_bfrom_s")),
}
_BROUND = {"rn": "m_rint", "rz": None, "rd": "m_floor", "ru": "m_ceil"}
for _r in _BROUND:
    _BF16["__float2bfloat16_" + _r] = ((F,), B, ("call", "m_bcvt_" + _r))
    for _p, _t in (("int", T.INT), ("uint", T.UINT), ("short", T.SHORT), ("ushort", T.USHORT)):
        _BF16[f"__{_p}2bfloat16_{_r}"] = ((_t,), B, ("call", "m_bcvt_" + _r))
        _BF16[f"__bfloat162{_p}_{_r}"] = ((B,), _t, ("cvt", _BROUND[_r]))


def _bf16_apply(b, name, ops, node):
    sig, rt, how = _BF16[name]
    if how[0] == "bin":
        return b.half_bin(how[1], rt, ops[0], ops[1], node)
    if how[0] == "call":
        return _half_call(b, how[1], rt, ops, node)
    v = _half_call(b, "m_b2f", F, ops, node)            # "cvt"
    if how[1] is not None:
        v = _half_call(b, how[1], F, [v.op], node)
    return b.convert(v, rt, node, explicit=True)


def _lower_bf16(b, name, args, node, want):
    sig = _BF16[name][0]
    vals = _scalar_args(b, name, args, node, len(sig))
    return _bf16_apply(b, name, [b.convert(v, t, a).op for v, t, a in zip(vals, sig, args)], node)


def _bf16_overloads(prev):
    """A name cuda_fp16.h (or the integer intrinsics) also declares: the bfloat16 function
    when every argument is a __nv_bfloat16, the earlier one when none is; a mix is
    ambiguous, as NVRTC says."""
    def lower(b, name, args, node, want):
        kinds = [b.type_of(a) for a in args]
        bfs = [isinstance(t, Scalar) and t.is_bf16 for t in kinds]
        if any(bfs) and not all(bfs):
            types = ", ".join(str(t) for t in kinds)
            raise b.err(f'more than one instance of overloaded function "{name}" matches the '
                        f"argument list (argument types are: ({types})): a __nv_bfloat16 converts "
                        "to float and to every integer type; convert with __float2bfloat16(x) or "
                        "__bfloat162float(h)", node)
        if any(bfs):
            return _lower_bf16(b, name, args, node, want)
        return prev.lower(b, name, args, node, want)
    return lower


for _n in _BF16:
    _prev = INTRINSICS.get(_n)
    INTRINSICS[_n] = Spec("bf16", True, _lower_bf16) if _prev is None else \
        Spec(_prev.kind, _prev.pure, _bf16_overloads(_prev))


# the intrinsics with a rounding mode in their name (``simt.rounding``) not above
_KIND_TYPE = {"f": T.FLOAT, "d": T.DOUBLE, "i": T.INT, "u": T.UINT, "l": T.LLONG, "L": T.ULLONG}


def _rounding(b, name, args, node, want):
    kinds, rdt, _ = ROUNDING[name]
    vals = _scalar_args(b, name, args, node, len(kinds))
    ops = [b.convert(v, _KIND_TYPE[k], a).op for v, k, a in zip(vals, kinds, args)]
    rt = {np.float32: T.FLOAT, np.float64: T.DOUBLE, np.int32: T.INT, np.uint32: T.UINT,
          np.int64: T.LLONG, np.uint64: T.ULLONG}[rdt]
    d = b.reg(rt.dtype)
    b.emit(Op.CALL, node, dst=d, args=tuple(ops), sub=name)
    return _val(rt, d)


for _n in ROUNDING:
    if _n not in INTRINSICS:
        INTRINSICS[_n] = Spec("math", True, _rounding)
