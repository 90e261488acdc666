"""ALU semantics as tables: ``dict[name, Callable]`` over numpy arrays.

Operands arrive already converted to the C result type, so numpy's dtype arithmetic is
C's: int32 wraps, float32 rounds to nearest even.  Integer ``/`` and ``%`` truncate
toward zero as in C (numpy floors).

Limitations: integer division by zero yields 0 (the GPU yields an unspecified value);
shifts by the type width or more yield 0 (undefined in C); single-precision math
functions (``expf``, ``sinf``...) use numpy's correctly rounded results, which can
differ from CUDA's in the last ulp or two; ``fmaf`` is computed in double and rounded.
"""
from __future__ import annotations

import numpy as np


def _cdiv(a, b):
    if a.dtype.kind == "f":
        return np.true_divide(a, b).astype(a.dtype, copy=False)
    b = np.where(b == 0, 1, b).astype(a.dtype, copy=False) if np.ndim(b) else (b if b != 0 else a.dtype.type(1))
    q = np.floor_divide(a, b)
    if a.dtype.kind == "i":
        r = a - q * b
        fix = (r != 0) & ((a < 0) != (b < 0))
        q = q + fix.astype(a.dtype)
    return q.astype(a.dtype, copy=False)


def _cmod(a, b):
    if a.dtype.kind == "f":
        return np.fmod(a, b)
    b = np.where(b == 0, 1, b).astype(a.dtype, copy=False) if np.ndim(b) else (b if b != 0 else a.dtype.type(1))
    return np.fmod(a, b).astype(a.dtype, copy=False)


def _shl(a, b):
    bits = a.dtype.itemsize * 8
    r = np.left_shift(a, (b & (bits - 1)).astype(a.dtype, copy=False))
    return np.where(b >= bits, a.dtype.type(0), r) if np.ndim(b) or b >= bits else r


def _shr(a, b):
    bits = a.dtype.itemsize * 8
    return np.right_shift(a, (np.minimum(b, bits - 1)).astype(a.dtype, copy=False))


BINOPS = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": _cdiv, "mod": _cmod,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "shl": _shl, "shr": _shr,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "gt": np.greater,
    "le": np.less_equal, "ge": np.greater_equal,
}

UNOPS = {
    "neg": np.negative,
    "not": np.invert,
    "lnot": np.logical_not,
}


def cast_value(a, dtype: np.dtype):
    """C conversion of array/scalar ``a`` to ``dtype`` (truncation toward zero for float->int)."""
    a = np.asarray(a)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return a != 0
    if a.dtype.kind == "f" and dtype.kind in "iu":
        with np.errstate(invalid="ignore"):
            t = np.trunc(a)
            if dtype.kind == "u":
                # CUDA saturates float->unsigned; negative values give 0
                info = np.iinfo(dtype)
                t = np.clip(np.nan_to_num(t, nan=0.0), 0, info.max)
            else:
                info = np.iinfo(dtype)
                t = np.clip(np.nan_to_num(t, nan=0.0), info.min, info.max)
            return t.astype(dtype)
    return a.astype(dtype)


def _fma(a, b, c):
    if a.dtype == np.float32:
        return (a.astype(np.float64) * b + c.astype(np.float64) if np.ndim(c) else
                a.astype(np.float64) * b + np.float64(c)).astype(np.float32)
    return a * b + c


def _popc(x):
    x = np.asarray(x).astype(np.uint64)
    return np.bitwise_count(x).astype(np.int32) if hasattr(np, "bitwise_count") else \
        np.array([bin(int(v)).count("1") for v in x.ravel()], np.int32).reshape(x.shape)


def _clz(x, bits):
    u = np.asarray(x).astype(np.uint64) & np.uint64((1 << bits) - 1)
    out = np.full(u.shape, bits, np.int32)
    nz = u != 0
    if np.any(nz):
        out[nz] = bits - 1 - np.floor(np.log2(u[nz].astype(np.float64))).astype(np.int32)
        # log2 of values near 2^k can round up: fix by checking the bit
        hb = (bits - 1 - out[nz]).astype(np.uint64)
        wrong = (u[nz] >> hb) == 0
        if np.any(wrong):
            o = out[nz]
            o[wrong] += 1
            out[nz] = o
    return out


def _ffs(x, bits):
    u = np.asarray(x).astype(np.uint64) & np.uint64((1 << bits) - 1)
    low = u & (~u + np.uint64(1))
    out = np.zeros(u.shape, np.int32)
    nz = u != 0
    out[nz] = np.round(np.log2(low[nz].astype(np.float64))).astype(np.int32) + 1
    return out


def _brev(x, bits):
    u = np.asarray(x).astype(np.uint64)
    r = np.zeros(u.shape, np.uint64)
    for k in range(bits):
        r |= ((u >> np.uint64(k)) & np.uint64(1)) << np.uint64(bits - 1 - k)
    return r.astype(np.uint32 if bits == 32 else np.uint64)


def _view(dt_from, dt_to):
    return lambda x: np.asarray(x).astype(dt_from).view(dt_to)


def _round_half_even_int(x, dtype):
    return cast_value(np.rint(x), dtype)


def _mulhi(a, b, signed, bits):
    if bits == 32:
        p = np.asarray(a).astype(np.int64 if signed else np.uint64) * np.asarray(b).astype(
            np.int64 if signed else np.uint64)
        return (p >> (32 if signed else np.uint64(32))).astype(np.int32 if signed else np.uint32)
    a = np.asarray(a)
    b = np.asarray(b)
    out = [((int(x) * int(y)) >> 64) for x, y in zip(np.broadcast_to(a, np.broadcast(a, b).shape).ravel(),
                                                       np.broadcast_to(b, np.broadcast(a, b).shape).ravel())]
    dt = np.int64 if signed else np.uint64
    return np.array([v & ((1 << 64) - 1) for v in out], np.uint64).view(dt) if not signed else \
        np.array(out, dtype=object).astype(np.int64)


_MATH = {
    "sqrt": np.sqrt, "rsqrt": lambda x: (1 / np.sqrt(x)).astype(np.asarray(x).dtype),
    "cbrt": np.cbrt, "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(x.dtype.type(10), x),
    "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "floor": np.floor, "ceil": np.ceil,
    "round": lambda x: np.copysign(np.floor(np.abs(x) + x.dtype.type(0.5)), x),
    "trunc": np.trunc, "rint": np.rint, "nearbyint": np.rint, "fabs": np.abs,
    "erf": None, "erfc": None, "lgamma": None, "tgamma": None,
    "pow": np.power, "fmin": np.fmin, "fmax": np.fmax, "fmod": np.fmod, "atan2": np.arctan2,
    "hypot": np.hypot, "copysign": np.copysign, "fdim": lambda a, b: np.maximum(a - b, 0),
    "remainder": np.remainder, "fma": _fma, "div": np.true_divide, "add": np.add,
    "mul": np.multiply, "sub": np.subtract, "min": np.minimum, "max": np.maximum,
}


def _erf_like(name):
    import math
    f = getattr(math, name)

    def g(x):
        x = np.asarray(x)
        return np.vectorize(f, otypes=[np.float64])(x).astype(x.dtype)
    return g


for _n in ("erf", "erfc", "lgamma"):
    _MATH[_n] = _erf_like(_n)
_MATH["tgamma"] = _erf_like("gamma")

# Pure (lane-wise) intrinsics: name -> fn(*arrays) -> array
CALLS = {"m_" + k: v for k, v in _MATH.items()}
CALLS.update({
    "__popc": _popc, "__popcll": _popc,
    "__clz": lambda x: _clz(x, 32), "__clzll": lambda x: _clz(x, 64),
    "__ffs": lambda x: _ffs(x, 32), "__ffsll": lambda x: _ffs(x, 64),
    "__brev": lambda x: _brev(x, 32), "__brevll": lambda x: _brev(x, 64),
    "__float_as_int": _view(np.float32, np.int32), "__int_as_float": _view(np.int32, np.float32),
    "__float_as_uint": _view(np.float32, np.uint32), "__uint_as_float": _view(np.uint32, np.float32),
    "__double_as_longlong": _view(np.float64, np.int64), "__longlong_as_double": _view(np.int64, np.float64),
    "__float2int_rn": lambda x: _round_half_even_int(x, np.int32),
    "__float2int_rz": lambda x: cast_value(x, np.int32),
    "__float2int_rd": lambda x: cast_value(np.floor(x), np.int32),
    "__float2int_ru": lambda x: cast_value(np.ceil(x), np.int32),
    "__float2uint_rn": lambda x: _round_half_even_int(x, np.uint32),
    "__float2uint_rz": lambda x: cast_value(x, np.uint32),
    "__int2float_rn": lambda x: np.asarray(x).astype(np.float32),
    "__uint2float_rn": lambda x: np.asarray(x).astype(np.float32),
    "__saturatef": lambda x: np.clip(x, 0, 1).astype(np.float32),
    "__frcp_rn": lambda x: (np.float32(1) / x).astype(np.float32),
    "__fsqrt_rn": lambda x: np.sqrt(x).astype(np.float32),
    "__mulhi": lambda a, b: _mulhi(a, b, True, 32), "__umulhi": lambda a, b: _mulhi(a, b, False, 32),
    "__mul64hi": lambda a, b: _mulhi(a, b, True, 64), "__umul64hi": lambda a, b: _mulhi(a, b, False, 64),
    "__mul24": lambda a, b: ((np.asarray(a) << 8 >> 8).astype(np.int32) * (np.asarray(b) << 8 >> 8)).astype(np.int32),
    "__umul24": lambda a, b: ((np.asarray(a) & 0xFFFFFF) * (np.asarray(b) & 0xFFFFFF)).astype(np.uint32),
    "__sad": lambda a, b, c: (np.abs(np.asarray(a).astype(np.int64) - b) + c).astype(np.uint32),
    "__usad": lambda a, b, c: (np.abs(np.asarray(a).astype(np.int64) - np.asarray(b).astype(np.int64)) + c).astype(np.uint32),
    "__hadd": lambda a, b: ((np.asarray(a).astype(np.int64) + b) >> 1).astype(np.int32),
    "__uhadd": lambda a, b: ((np.asarray(a).astype(np.uint64) + np.asarray(b).astype(np.uint64)) >> np.uint64(1)).astype(np.uint32),
    "__rhadd": lambda a, b: ((np.asarray(a).astype(np.int64) + b + 1) >> 1).astype(np.int32),
    "__urhadd": lambda a, b: ((np.asarray(a).astype(np.uint64) + np.asarray(b).astype(np.uint64) + np.uint64(1)) >> np.uint64(1)).astype(np.uint32),
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "signbit": np.signbit,
})
