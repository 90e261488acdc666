"""CUDA built-in functions: how each one type-checks and lowers.

One table, ``INTRINSICS``: name -> ``Spec(kind, pure, lower)``.  Overloads follow
NVRTC (C++): ``sqrt(float)`` is the float overload, ``atomicAdd`` exists for int,
unsigned, unsigned long long, float and double only, and ``atomicCAS`` on a ``float*``
is rejected as NVRTC rejects it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import ctypes_ as T
from .ctypes_ import Pointer, Scalar, usual_arith
from .ir import Const, Op


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


def _val(t, op):
    from .lower import Val
    return Val(t, op)


# ------------------------------------------------------------------ atomics
_ATOMIC_TYPES = {
    "add": (T.INT, T.UINT, T.ULLONG, T.FLOAT, T.DOUBLE),
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


for _n in _ATOMIC_NAMES:
    INTRINSICS[_n] = Spec("atomic", False, _lower_atomic)


# ---------------------------------------------------------------- barriers
@_reg("__syncthreads", "sync", False)
def _sync(b, name, args, node, want):
    _nargs(b, name, args, node, 0)
    b.emit(Op.BAR, node)
    return None


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
    if t not in _SHFL_TYPES:
        t = T.promote(t) if not t.is_float else T.FLOAT
    return t


@_reg("__shfl_sync __shfl_up_sync __shfl_down_sync __shfl_xor_sync", "warp", False)
def _shfl(b, name, args, node, want):
    _nargs(b, name, args, node, 3, 4)
    vals = [b.rvalue(a) for a in args]
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


# -------------------------------------------------------------------- math
_MATH1 = ("sqrt rsqrt cbrt exp exp2 exp10 expm1 log log2 log10 log1p sin cos tan asin acos atan "
          "sinh cosh tanh asinh acosh atanh floor ceil round trunc rint nearbyint fabs erf erfc "
          "lgamma tgamma").split()
_MATH2 = "pow fmin fmax fmod atan2 hypot copysign fdim remainder".split()
_MATH3 = ["fma"]
_FAST = {"__expf": "exp", "__logf": "log", "__sinf": "sin", "__cosf": "cos", "__tanf": "tan",
         "__log2f": "log2", "__log10f": "log10", "__exp10f": "exp10", "__powf": "pow",
         "__fdividef": "div", "__fadd_rn": "add", "__fmul_rn": "mul", "__fsub_rn": "sub",
         "__fdiv_rn": "div", "__fmaf_rn": "fma", "__dadd_rn": "add", "__dmul_rn": "mul"}


def _math_names():
    names = []
    for base in _MATH1 + _MATH2 + _MATH3:
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
    elif name.endswith("f") and name[:-1] in _MATH1 + _MATH2 + _MATH3 + ["fabs"]:
        base, ftype = name[:-1], T.FLOAT
    else:
        base, ftype = name, None
    n = 1 if base in _MATH1 or base == "fabs" else 2 if base in _MATH2 or base in ("div", "add", "mul", "sub") else 3
    _nargs(b, name, args, node, n)
    vals = [b.rvalue(a) for a in args]
    if not all(isinstance(v.ctype, Scalar) for v in vals):
        raise _no_overload(b, name, vals, node)
    if ftype is None:   # C++ overload: float if every argument is float, else double
        ftype = T.FLOAT if all(v.ctype == T.FLOAT for v in vals) else T.DOUBLE
    ops = [b.convert(v, ftype, a).op for v, a in zip(vals, args)]
    d = b.reg(ftype.dtype)
    # fast intrinsics (__expf, ...) compute what the IEEE function does here, but cost less
    # on the GPU (machine.OP_COST)
    b.emit(Op.CALL, node, dst=d, args=tuple(ops), sub="m_" + base,
           info={"fast": True} if name in _FAST else {})
    return _val(ftype, d)


@_reg("min max umin umax llmin llmax ullmin ullmax", "math", True)
def _minmax(b, name, args, node, want):
    _nargs(b, name, args, node, 2)
    vals = [b.rvalue(a) for a in args]
    if not all(isinstance(v.ctype, Scalar) for v in vals):
        raise _no_overload(b, name, vals, node)
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
    _nargs(b, name, args, node, 1)
    v = b.rvalue(args[0])
    if not isinstance(v.ctype, Scalar):
        raise _no_overload(b, name, [v], node)
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
    if _vn != "dim3":
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


@_reg("printf", "io", False)
def _printf(b, name, args, node, want):
    if not args:
        raise b.err('too few arguments in call to "printf"', node)
    fmt = b.rvalue(args[0])
    if not isinstance(fmt.op, Const) or not isinstance(fmt.op.value, str):
        raise b.err("printf needs a string literal format", args[0])
    ops = []
    for a in args[1:]:
        v = b.rvalue(a)
        if isinstance(v.ctype, Scalar) and v.ctype.is_float:
            v = b.convert(v, T.DOUBLE, a)   # varargs promote float to double
        elif isinstance(v.ctype, Scalar):
            v = b.convert(v, T.promote(v.ctype), a)
        ops.append(v.op)
    text = fmt.op.value[1:-1].encode("utf-8").decode("unicode_escape")
    b.emit(Op.PRINTF, node, args=tuple(ops), sub=text)
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
