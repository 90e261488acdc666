"""ALU semantics as tables: ``dict[name, Callable]`` over numpy arrays.

Operands arrive already converted to the C result type, so numpy's dtype arithmetic is
C's: int32 wraps, float32 rounds to nearest even.  Integer ``/`` and ``%`` truncate
toward zero as in C (numpy floors).

Limitations: integer division by zero yields 0 (the GPU yields an unspecified value);
shifts by the type width or more yield 0 (undefined in C); single-precision math
functions (``expf``, ``sinf``...) use numpy's correctly rounded results, which can
differ from CUDA's in the last ulp or two.  A fused multiply-add (nvcc's contraction of
``a * b + c``, ``fma``, ``fmaf``) rounds once, as FFMA and DFMA do (``_ffma``, ``_dfma``).

Half precision (``__half``, numpy ``float16``): ``+ - * /`` of two halves are exact and
rounded once to half (numpy computes them in float32, whose 24 bits make that one
rounding exact); ``fma`` is rounded once (the sum in double, rounded to odd, then to
half); conversions to half round as asked (``to_half``: nearest even, toward zero, down,
up), overflowing to infinity or to the largest finite half as the rounding says.  A NaN
any of them produces is the GPU's canonical half NaN, 0x7FFF.  Limitations: ``hexp``,
``hlog``, ``hsqrt``, ``hsin`` ... are the correctly rounded values (the GPU's approximate
instructions can differ in the last place); NaNs that only pass through a negation, an
absolute value, a move or a conversion to float keep numpy's bits.

bfloat16 (``__nv_bfloat16``): uint16 bit patterns, widened to float32 (exact) for every
operation and rounded once back (``to_bf16``: nearest even, toward zero, down, up; a NaN
made 0x7FFF); ``BF16_BINOPS`` and ``BF16_CALLS`` below.  ``/`` is the float32 quotient
rounded to bfloat16, as ``__hdiv`` computes it (the same value as one rounding).
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np

from .curand import xorwow_matvec
from .rounding import ROUNDING, _two_prod_err, _two_sum_err
from .simd import SIMD_CALLS
from .spaces import LOCAL_BASE, SHARED_BASE


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
        # CUDA saturates (negative values give 0 for unsigned types) and gives 0 for NaN.
        # The upper bound 2^n - 1 may round up to 2^n in the float type (int32 in float32):
        # values that reach 2^n are set to the bound after the conversion, which wraps them
        info = np.iinfo(dtype)
        src = a if a.dtype.itemsize >= 4 else a.astype(np.float32)      # (a half: exact)
        ft = src.dtype.type
        with np.errstate(invalid="ignore", over="ignore"):
            t = np.clip(np.nan_to_num(np.trunc(src), nan=0.0), ft(info.min), ft(info.max))
            r = t.astype(dtype)
            over = t >= ft(float(info.max) + 1.0)
            if over.any():
                r = np.where(over, dtype.type(info.max), r)
            return r
    if dtype == np.float16:
        return to_half(a)
    return a.astype(dtype)


def _fma(a, b, c):
    """``a * b + c`` rounded once (FFMA, DFMA): what nvcc's contraction and ``fma``/``fmaf``
    give.  float: ``_ffma``; double: ``_dfma``."""
    if a.dtype == np.float16:
        return _hfma(a, b, c)
    if a.dtype == np.float32:
        return _ffma(a, b, c)
    return _dfma(a, b, c)


_LOW28 = np.int64(0xFFFFFFF)


def _ffma(a, b, c):
    """float ``a * b + c`` rounded once.  The product is exact in double and the sum is
    rounded there; rounding that again to float is the single rounding of the exact value
    unless the double sum fell on a midpoint between two floats (its low 29 bits
    1000...0, or more zeros below a subnormal float's last place), the rare case that
    ``_fma_odd`` settles by rounding to odd."""
    s = np.asarray(a, np.float64) * b + np.asarray(c, np.float64)
    if ((s.view(np.int64) & _LOW28) == 0).any():
        s = _fma_odd(*(np.asarray(v).astype(np.float64) for v in (a, b, c)))
    return s.astype(np.float32)


def _dfma(a, b, c):
    """double ``a * b + c`` rounded once.  Boldo and Melquiond's emulation (rounding to
    odd): the product exactly as ph + pl (Dekker), (th, tl) = TwoSum(c, ph), then
    RN(th + RO(tl + pl)).  That holds where the product's last bit is above the subnormal
    range (|ph| > 2^-960) and nothing overflows; elsewhere a zero factor gives IEEE's
    sum of the zero product and c, and the rest (a tiny product, an overflow, infinities,
    NaN: rare) is ``_dfma1``'s, lane by lane."""
    with np.errstate(all="ignore"):
        a = np.asarray(a, np.float64)
        b = np.asarray(b, np.float64)
        c = np.asarray(c, np.float64)
        ph = a * b
        pl = _two_prod_err(a, b, ph)
        th = c + ph
        tl = _two_sum_err(c, ph, th)
        v = tl + pl                                     # rounded to odd: TwoSum's error says
        e = _two_sum_err(tl, pl, v)                     # which way an inexact even sum moves
        fix = (e != 0) & ((v.view(np.int64) & 1) == 0)
        if fix.any():
            v = np.where(fix, np.nextafter(v, np.where(e > 0, np.inf, -np.inf)), v)
        r = th + v
        ok = (np.abs(ph) > 2.0 ** -960) & np.isfinite(r)
        if ok.all():
            return r
        a, b, c, r = np.broadcast_arrays(a, b, c, r)
        zero = (a == 0) | (b == 0)
        r = np.where(zero, a * b + c, r)                # an exact zero product: signed zeros too
        for k in zip(*np.nonzero(~(ok | zero))) if r.ndim else ([()] if not (ok or zero) else []):
            r[k] = _dfma1(float(a[k]), float(b[k]), float(c[k]))
        return r


def _dfma1(a: float, b: float, c: float) -> float:
    """One lane of ``_dfma``'s exceptions."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return a * b + c                    # the product is +-inf or NaN, as the unfused one
    if not math.isfinite(c):
        return c                            # a finite product: c's infinity, or NaN
    e = Fraction(a) * Fraction(b) + Fraction(c)
    if e == 0:
        return 0.0                          # an exact cancellation is +0 under round to nearest
    try:
        return float(e)                     # int / int, correctly rounded (subnormals too)
    except OverflowError:
        return math.inf if e > 0 else -math.inf


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
    # the lowest set bit 2^k is 0.5 x 2^(k + 1) (exact in float64); frexp(0) is (0, 0)
    return np.frexp(low.astype(np.float64))[1].astype(np.int32)


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
    # 64 x 64 bits: the four 32 x 32-bit partial products in uint64 (each exact), their
    # carries summed; signed: the unsigned high word less b where a < 0 and a where b < 0
    shape = np.broadcast(np.asarray(a), np.asarray(b)).shape
    ua = np.broadcast_to(np.asarray(a), shape).astype(np.int64 if signed else np.uint64).view(np.uint64).ravel()
    ub = np.broadcast_to(np.asarray(b), shape).astype(np.int64 if signed else np.uint64).view(np.uint64).ravel()
    m32, s32 = np.uint64(0xFFFFFFFF), np.uint64(32)
    alo, ahi, blo, bhi = ua & m32, ua >> s32, ub & m32, ub >> s32
    lh, hl = alo * bhi, ahi * blo
    mid = ((alo * blo) >> s32) + (lh & m32) + (hl & m32)
    hi = ahi * bhi + (lh >> s32) + (hl >> s32) + (mid >> s32)
    if signed:
        hi = hi - np.where(ua >> np.uint64(63), ub, np.uint64(0)) - np.where(ub >> np.uint64(63), ua, np.uint64(0))
        return hi.view(np.int64).reshape(shape)
    return hi.reshape(shape)


# ------------------------------------------------------------------ half precision
_H = np.float16
H_NAN = np.uint16(0x7FFF).view(np.float16)      # the GPU's canonical half NaN
_TOWARD = {"rz": None, "rd": -np.inf, "ru": np.inf}


def _canon(r):
    """A half result with every NaN made the GPU's canonical NaN (0x7FFF)."""
    r = np.asarray(r).astype(_H, copy=False)
    nan = np.isnan(r)
    return np.where(nan, H_NAN, r) if nan.any() else r


def to_half(x, mode: str = "rn"):
    """``x`` (any scalar type) rounded to half: to nearest even (``rn``, ``__float2half``,
    ``__int2half_rn``, ``__double2half``), toward zero (``rz``), down (``rd``) or up (``ru``).
    Through double, which holds every float and every integer that does not overflow a
    half exactly; numpy rounds double to half correctly (nearest even, subnormals, inf)."""
    x = np.asarray(x)
    if x.dtype == _H:
        return x
    wide = x.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        h = wide.astype(_H)
        if mode != "rn":
            back = h.astype(np.float64)
            if mode == "rz":
                step = np.abs(back) > np.abs(wide)
                to = np.where(wide < 0, _H(np.inf), _H(-np.inf))
            else:
                step = back > wide if mode == "rd" else back < wide
                to = _H(_TOWARD[mode])
            h = np.where(step, np.nextafter(h, to), h)
    return _canon(h)


def _hbin(f):
    """A binary operation on halves, exact in float32 and rounded once to half."""
    def g(a, b):
        with np.errstate(all="ignore"):
            return _canon(f(np.asarray(a, _H), np.asarray(b, _H)))
    return g


def _hfma(a, b, c):
    """``a * b + c`` on halves rounded once: the product is exact in double; the sum is
    rounded to odd there (an inexact sum whose last bit is 0 moves one ulp toward the
    exact value, from TwoSum's error term), which 53 >= 11 + 2 bits make safe to round
    again, to half."""
    return _canon(_fma_odd(*(np.asarray(v).astype(np.float64) for v in (a, b, c))).astype(_H))


def _fma_odd(a, b, c):
    """``a * b + c`` in double, rounded to odd: the product of two narrow floats is exact
    there, and an inexact sum whose last bit is 0 moves one ulp toward the exact value
    (from TwoSum's error term), so rounding it again to a narrower format is a single
    rounding of the exact value."""
    with np.errstate(all="ignore"):
        p = a * b
        s = p + c
        bb = s - p
        err = (p - (s - bb)) + (c - bb)
        even = (s.view(np.int64) & 1) == 0
        fix = (err != 0) & even & np.isfinite(s)
        if np.any(fix):
            s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
        return s


def _hmax(a, b):
    """``__hmax``: a NaN operand gives the other (two give NaN); +0 > -0."""
    a, b = np.asarray(a, _H), np.asarray(b, _H)
    zero = (a == 0) & (b == 0)
    r = np.where(zero, np.where(np.signbit(a) & np.signbit(b), _H(-0.0), _H(0.0)), np.fmax(a, b))
    return _canon(r)


def _hmin(a, b):
    """``__hmin``: a NaN operand gives the other (two give NaN); -0 < +0."""
    a, b = np.asarray(a, _H), np.asarray(b, _H)
    zero = (a == 0) & (b == 0)
    r = np.where(zero, np.where(np.signbit(a) | np.signbit(b), _H(-0.0), _H(0.0)), np.fmin(a, b))
    return _canon(r)


def _nan_of(a, b, r):
    """``__hmax_nan`` / ``__hmin_nan``: NaN when either operand is one."""
    return np.where(np.isnan(np.asarray(a, _H)) | np.isnan(np.asarray(b, _H)), H_NAN, r).astype(_H)


def _hmath(f):
    """A math function of a half: computed in double and rounded once to half."""
    def g(x):
        with np.errstate(all="ignore"):
            return to_half(f(np.asarray(x).astype(np.float64)))
    return g


def _sat(x):
    """Clamp a half to [+0, 1]; NaN and -0 give +0 (PTX's ``.sat``)."""
    x = np.asarray(x, _H)
    return np.where(np.isnan(x) | (x <= 0), _H(0), np.minimum(x, _H(1))).astype(_H)


def _hisinf(x):
    x = np.asarray(x, _H)
    return np.where(np.isinf(x), np.where(x > 0, 1, -1), 0).astype(np.int32)


# BIN operations on halves (simt.lower, the operators of cuda_fp16.hpp and __hadd ...):
# name -> fn(a, b); comparisons "h_ne" (ordered: false when either is NaN, __hne) and the
# unordered ones (true when either is NaN: __hequ, __hltu, ...; operator!= is __hneu, "ne")
HALF_BINOPS = {
    "h_add": _hbin(np.add), "h_sub": _hbin(np.subtract), "h_mul": _hbin(np.multiply),
    "h_div": _hbin(np.true_divide),
    "h_ne": lambda a, b: np.less(a, b) | np.greater(a, b),
    "h_equ": lambda a, b: ~(np.less(a, b) | np.greater(a, b)),
    "h_ltu": lambda a, b: ~np.greater_equal(a, b), "h_leu": lambda a, b: ~np.greater(a, b),
    "h_gtu": lambda a, b: ~np.less_equal(a, b), "h_geu": lambda a, b: ~np.less(a, b),
}

# lane-wise calls on halves (simt.intrinsics), under "m_h..." names: pure math for
# simt.uniformity, ordinary instructions for the timing model
HALF_CALLS = {
    "m_hcvt_rn": to_half, "m_hcvt_rz": lambda x: to_half(x, "rz"),
    "m_hcvt_rd": lambda x: to_half(x, "rd"), "m_hcvt_ru": lambda x: to_half(x, "ru"),
    "m_habs": lambda x: np.abs(np.asarray(x, _H)), "m_hmax": _hmax, "m_hmin": _hmin,
    "m_hmax_nan": lambda a, b: _nan_of(a, b, _hmax(a, b)),
    "m_hmin_nan": lambda a, b: _nan_of(a, b, _hmin(a, b)),
    "m_hsat": _sat, "m_hrelu": lambda x: _canon(np.where(np.asarray(x, _H) < 0, _H(0), x)),
    "m_hisnan": lambda x: np.isnan(np.asarray(x, _H)), "m_hisinf": _hisinf,
    "m_htrunc": lambda x: _canon(np.trunc(np.asarray(x, _H))),
    "m_hceil": lambda x: _canon(np.ceil(np.asarray(x, _H))),
    "m_hfloor": lambda x: _canon(np.floor(np.asarray(x, _H))),
    "m_hrint": lambda x: _canon(np.rint(np.asarray(x, _H))),
    "m_hsqrt": _hmath(np.sqrt), "m_hrsqrt": _hmath(lambda x: 1 / np.sqrt(x)),
    "m_hrcp": _hmath(lambda x: 1 / x), "m_hexp": _hmath(np.exp), "m_hexp2": _hmath(np.exp2),
    "m_hexp10": _hmath(lambda x: np.power(10.0, x)), "m_hlog": _hmath(np.log),
    "m_hlog2": _hmath(np.log2), "m_hlog10": _hmath(np.log10), "m_hsin": _hmath(np.sin),
    "m_hcos": _hmath(np.cos),
    "m_h_as_s": lambda x: np.asarray(x, _H).view(np.int16),
    "m_h_as_us": lambda x: np.asarray(x, _H).view(np.uint16),
    "m_s_as_h": lambda x: np.asarray(x).astype(np.int16).view(_H),
    "m_us_as_h": lambda x: np.asarray(x).astype(np.uint16).view(_H),
}


def _pi_times(f, x):
    """f(pi x) with x reduced mod 2 first (exact), so large arguments keep their phase
    as CUDA's sinpi/cospi do, and exact zeros where they fall (sinpi at integers, signed
    as x; cospi at half-integers); float arguments are evaluated in double and rounded."""
    x = np.asarray(x)
    r = np.fmod(x.astype(np.float64), 2.0)
    y = f(np.pi * r)
    frac = np.abs(r - np.trunc(r))
    if f is np.sin:
        y = np.where(frac == 0.0, np.copysign(0.0, r), y)
    else:
        y = np.where(frac == 0.5, 0.0, y)
    return y.astype(x.dtype)


def _round_away(x):
    """C's round(): to nearest, halves away from zero (x - trunc(x) is exact)."""
    x = np.asarray(x)
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= x.dtype.type(0.5), t + np.sign(x), t).astype(x.dtype)


_MATH = {
    "sqrt": np.sqrt, "rsqrt": lambda x: (1 / np.sqrt(x)).astype(np.asarray(x).dtype),
    "cbrt": np.cbrt, "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(x.dtype.type(10), x),
    "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "floor": np.floor, "ceil": np.ceil,
    "round": _round_away,                 # floor(|x| + 0.5) would take 0.49999997f to 1
    "trunc": np.trunc, "rint": np.rint, "nearbyint": np.rint, "fabs": np.abs,
    "erf": None, "erfc": None, "lgamma": None, "tgamma": None,
    "pow": np.power, "fmin": np.fmin, "fmax": np.fmax, "fmod": np.fmod, "atan2": np.arctan2,
    "hypot": np.hypot, "copysign": np.copysign, "fdim": lambda a, b: np.maximum(a - b, 0),
    "sinpi": lambda x: _pi_times(np.sin, x), "cospi": lambda x: _pi_times(np.cos, x),
    "remainder": np.remainder, "fma": _fma, "div": np.true_divide, "add": np.add,
    "mul": np.multiply, "sub": np.subtract, "min": np.minimum, "max": np.maximum,
}


def _gamma_pole(name, x: float) -> float:
    """CUDA's value where Python's math raises (``name``: ``lgamma`` or ``gamma``, which
    is tgamma): lgamma at 0 and the negative integers is +inf; tgamma is +-inf at +-0,
    NaN at the negative integers, and overflows to +inf."""
    import math
    if name == "lgamma":
        return math.inf
    if x == 0:
        return math.copysign(math.inf, x)
    return math.nan if x < 0 else math.inf


def _erf_like(name):
    import math
    f = getattr(math, name)

    def safe(x):
        try:
            return f(x)
        except (ValueError, OverflowError):
            return _gamma_pole(name, x)

    def g(x):
        x = np.asarray(x)
        return np.vectorize(safe, otypes=[np.float64])(x).astype(x.dtype)
    return g


for _n in ("erf", "erfc", "lgamma"):
    _MATH[_n] = _erf_like(_n)
_MATH["tgamma"] = _erf_like("gamma")


def _erfcinv1(y: float) -> float:
    """erfcinv(y) in double: +-inf at 0 and 2, NaN outside [0, 2].  For y <= 1 Newton's
    method on log(erfc(x)) - log(y), concave and decreasing, from sqrt(-log y), which is
    never below the root (erfc(x) < exp(-x^2)): the steps fall monotonically onto it;
    y > 1 by erfcinv(y) = -erfcinv(2 - y) (2 - y is exact for y in [1, 2])."""
    if not 0.0 <= y <= 2.0:
        return math.nan
    if y > 1.0:
        return -_erfcinv1(2.0 - y)
    if y == 0.0:
        return math.inf
    x = math.sqrt(-math.log(y))
    k = 2.0 / math.sqrt(math.pi)
    for _ in range(200):
        e = math.erfc(x)
        if e <= 0.0:
            break
        step = (math.log(e) - math.log(y)) / (-k * math.exp(-x * x) / e)
        x -= step
        if abs(step) <= 4e-16 * max(x, 1e-300):
            break
    return x


def _erfinv1(y: float) -> float:
    """erfinv(y) in double: +-inf at +-1, NaN outside [-1, 1].  For |y| < 1/2 Newton's
    method on erf(x) - |y|, concave and rising, from |y| sqrt(pi) / 2, never past the root
    (erf(x) < 2x / sqrt(pi)); otherwise erfcinv(1 - |y|) (exact for |y| >= 1/2)."""
    if not -1.0 <= y <= 1.0:
        return math.nan
    a = abs(y)
    if a >= 0.5:
        return math.copysign(_erfcinv1(1.0 - a), y)
    if a == 0.0:
        return y
    x = a * math.sqrt(math.pi) / 2.0
    k = 2.0 / math.sqrt(math.pi)
    for _ in range(100):
        step = (math.erf(x) - a) / (k * math.exp(-x * x))
        x -= step
        if abs(step) <= 4e-16 * x:
            break
    return math.copysign(x, y)


def _vec1(f):
    """A scalar double function over an array, rounded once to the array's dtype (CUDA's
    erfinvf and kin are within 2-3 ulp of the exact value; these are the exact value
    rounded)."""
    def g(x):
        x = np.asarray(x)
        return np.vectorize(lambda v: f(float(v)), otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)
    return g


_MATH["erfinv"] = _vec1(_erfinv1)
_MATH["erfcinv"] = _vec1(_erfcinv1)
# normcdfinv(p) = -sqrt(2) erfcinv(2p) (2p is exact), normcdf(x) = erfc(-x / sqrt(2)) / 2
_MATH["normcdfinv"] = _vec1(lambda p: -math.sqrt(2.0) * _erfcinv1(2.0 * p))
_MATH["normcdf"] = _vec1(lambda x: 0.5 * math.erfc(-x / math.sqrt(2.0)))


# ------------------------------------------------- CUDA math API, part 5 (session 68)
# nextafter, logb, ilogb, remquo (and remainder), rhypot, norm3d, rnorm3d, norm4d,
# rnorm4d, norm / rnorm over an array, rcbrt, __frsqrt_rn, the Bessel functions j0 j1 jn
# y0 y1 yn cyl_bessel_i0 cyl_bessel_i1, and erfcx.  Where CUDA is exact (nextafter, logb,
# ilogb, remquo, __frsqrt_rn) so is simt; the roots (rhypot, the norms, rcbrt) are the
# exact value rounded once (a double-double estimate, and Python integers where it is
# too close to a midpoint to tell); the Bessel functions and erfcx are computed in double
# and rounded once to float (CUDA's own are within several ulp, or an absolute error).
_INT_MIN, _INT_MAX = -2 ** 31, 2 ** 31 - 1
_FMT = {np.dtype(np.float32): (24, -149), np.dtype(np.float64): (53, -1074)}


def _lanes(f):
    """f over 1-D copies of its arguments (broadcast; floating ones widened to float64),
    its result reshaped back to their shape and cast to the dtype of the last argument
    (the math call's type)."""
    def g(*args):
        arrs = [np.asarray(a) for a in args]
        shape = np.broadcast_shapes(*(a.shape for a in arrs))
        flat = [np.broadcast_to(a.astype(np.float64) if a.dtype.kind == "f" else a, shape).ravel()
                for a in arrs]
        with np.errstate(all="ignore"):
            return np.asarray(f(*flat)).reshape(shape).astype(arrs[-1].dtype)
    return g


def _nextafter(x, y):
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        return np.nextafter(x, np.asarray(y).astype(x.dtype))


def _logb(x):
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        e = (np.frexp(x)[1].astype(np.int64) - 1).astype(x.dtype)
        r = np.where(x == 0, x.dtype.type(-np.inf), np.where(np.isinf(x), x.dtype.type(np.inf), e))
        return np.where(np.isnan(x), x, r).astype(x.dtype)


def _ilogb(x):
    """ilogbf: the unbiased exponent (subnormals as if normalized); INT_MIN at 0 and NaN,
    INT_MAX at the infinities (CUDA's documented values)."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        e = np.frexp(np.where(np.isfinite(x), x, 1))[1].astype(np.int64) - 1
        r = np.where(np.isinf(x), _INT_MAX, np.where((x == 0) | np.isnan(x), _INT_MIN, e))
    return r.astype(np.int32)


def _ldexp(x, n):
    """ldexpf / scalbnf / scalblnf: x * 2^n rounded once; n (an int or a long) clamped
    where any larger magnitude gives the same result."""
    x = np.asarray(x)
    n = np.clip(np.asarray(n).astype(np.int64), -100000, 100000).astype(np.int32)
    with np.errstate(all="ignore"):
        return np.ldexp(x, n).astype(x.dtype)


# -- remainder and remquo: IEEE remainder (the quotient rounded to nearest even), exact
def _remquo_parts(x, y):
    """(remainder, quotient's low 3 bits with x / y's sign) of remquo(x, y), exactly: the
    remainder of |x| by 8|y| (fmod is exact), less 4|y|, 2|y|, |y| where they fit (each
    subtraction exact by Sterbenz's lemma), then one more |y| where the rest is over half
    of it (or half of it and the count odd).  In double (float arguments widened first);
    a double |y| of 2^1020 or more, whose 8|y| overflows, goes through Python's integers.
    NaN (quotient 0) for y = 0, an infinite x or a NaN; x and quotient 0 for y infinite."""
    x = np.asarray(x)
    dt = x.dtype
    xs, ys = np.broadcast_arrays(x.astype(np.float64), np.asarray(y).astype(np.float64))
    xs, ys = xs.ravel(), ys.ravel()
    with np.errstate(all="ignore"):
        ax, ay = np.abs(xs), np.abs(ys)
        big = np.isfinite(ay) & (ay >= 2.0 ** 1020)
        ok = np.isfinite(ax) & np.isfinite(ay) & (ay > 0) & ~big
        a = np.fmod(np.where(ok, ax, 0.0), np.where(ok, 8 * ay, 1.0))
        q = np.zeros(xs.shape, np.int64)
        for k in (4, 2, 1):
            step = k * ay
            over = ok & (a >= step)
            a = np.where(over, a - step, a)
            q += np.where(over, k, 0)
        up = ok & ((2 * a > ay) | ((2 * a == ay) & (q % 2 == 1)))
        a = np.where(up, a - ay, a)
        q = np.where(up, q + 1, q) & 7
        r = np.where(a == 0, np.copysign(0.0, xs), np.where(np.signbit(xs), -a, a))
        neg = np.signbit(xs) != np.signbit(ys)
        q = np.where(neg, -q, q)
        inf_y = np.isinf(ay) & np.isfinite(ax)
        r = np.where(inf_y, xs, r)
        q = np.where(ok, q, 0)
        bad = ~(ok | inf_y | big)
        r = np.where(bad, np.nan, r)
        for i in np.flatnonzero(big & np.isfinite(ax)):
            r[i], q[i] = _remquo1(float(xs[i]), float(ys[i]))
        r = np.where(big & ~np.isfinite(ax), np.nan, r)
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    return r.reshape(shape).astype(dt), q.reshape(shape).astype(np.int32)


def _remquo1(x: float, y: float):
    """One lane of remquo in Python's rationals (the remainder is exactly representable)."""
    fx, fy = Fraction(x), Fraction(y)
    t = fx / fy
    n = math.floor(t)
    if t - n > Fraction(1, 2) or (t - n == Fraction(1, 2) and n % 2):
        n += 1
    r = fx - n * fy
    rr = math.copysign(0.0, x) if r == 0 else float(r)
    q = abs(n) & 7
    return rr, (-q if (x < 0) != (y < 0) else q)


# -- roots rounded once: rhypot, norm3d, rnorm3d, norm4d, rnorm4d, norm, rnorm, rcbrt,
#    __frsqrt_rn.  Double-double (Dekker's products, Knuth's sums) gives the root within
#    about 2^-100 of itself; the lanes whose value lies closer than that to a midpoint of
#    the result's format (or whose result is subnormal, or overflows) are settled exactly
#    with Python's integers (_root_round).
def _round_bits(t: int, s: int, sticky: bool, fmt) -> float:
    """t * 2^-s (t > 0), plus a nonzero amount below t's last bit if ``sticky``, rounded
    to nearest even in ``fmt`` (bits of precision, exponent of the smallest ulp); a
    Python float (inf on overflow)."""
    prec, emin = fmt
    u = max(t.bit_length() - s - prec, emin)
    sh = u + s
    if sh <= 0:
        q = t << -sh
    else:
        q, r = t >> sh, t & ((1 << sh) - 1)
        half = 1 << (sh - 1)
        if r > half or (r == half and (sticky or q & 1)):
            q += 1
    try:
        return math.ldexp(q, u)
    except OverflowError:
        return math.inf


def _iroot(n: int, k: int) -> int:
    """floor(n^(1/k)) for n >= 1 (Newton's method from above, in integers)."""
    if k == 2:
        return math.isqrt(n)
    x = 1 << -(-n.bit_length() // k)
    while True:
        y = ((k - 1) * x + n // x ** (k - 1)) // k
        if y >= x:
            return x
        x = y


def _root_round(R: Fraction, k: int, dtype) -> float:
    """R^(1/k) (R > 0 rational) rounded once to nearest even in ``dtype``."""
    fmt = _FMT[np.dtype(dtype)]
    p, q = R.numerator, R.denominator
    e = (p.bit_length() - q.bit_length()) // k
    s = fmt[0] + 3 - e
    ks = k * s
    num, den = (p << ks, q) if ks >= 0 else (p, q << -ks)
    n, rem = divmod(num, den)
    t = _iroot(n, k)
    return _round_bits(t, s, rem != 0 or t ** k != n, fmt)


def _two_sum(a, b):
    s = a + b
    return s, _two_sum_err(a, b, s)


def _fast_two_sum(a, b):
    s = a + b
    return s, b - (s - a)


def _two_prod(a, b):
    """a * b as p + e exactly (Dekker; |a|, |b| below 2^995 and the product normal)."""
    p = a * b
    return p, _two_prod_err(a, b, p)


def _dd_sqrt(sh, sl):
    """sqrt(sh + sl), a double-double: one Newton step from the double root."""
    r = np.sqrt(sh)
    p, pe = _two_prod(r, r)
    return _fast_two_sum(r, (((sh - p) - pe) + sl) / (2 * r))


def _dd_rsqrt(sh, sl):
    """1 / sqrt(sh + sl), a double-double: y + y (1 - S y^2) / 2 from y = 1/sqrt(sh)."""
    y = 1 / np.sqrt(sh)
    q, qe = _two_prod(y, y)
    m, me = _two_prod(sh, q)
    e = ((1 - m) - me) - (sh * qe + sl * q)
    return _fast_two_sum(y, y * e * 0.5)


def _dd_rcbrt(x):
    """x^(-1/3) for x in [1/2, 4), a double-double: y + y (1 - x y^3) / 3."""
    y = 1 / np.cbrt(x)
    q, qe = _two_prod(y, y)
    c, ce = _two_prod(q, y)
    ce = ce + qe * y
    m, me = _two_prod(x, c)
    e = (1 - m) - (me + x * ce)
    return _fast_two_sum(y, y * e / 3)


_DD_TOL = 2.0 ** -90


def _dd_round(hi, lo, dtype):
    """(hi + lo rounded to nearest even in ``dtype``, hard): hi + lo within 2^-95 of the
    exact value relatively, |lo| at most half an ulp of hi.  ``hard`` where the exact
    value may fall on the other side of a midpoint, or the result is not a normal number
    (those go to _root_round)."""
    with np.errstate(all="ignore"):
        tol = _DD_TOL * np.abs(hi)
        if np.dtype(dtype) == np.float64:
            nb = np.nextafter(hi, np.where(lo >= 0, np.inf, -np.inf))
            half = np.abs(nb - hi) * 0.5
            hard = np.abs(np.abs(lo) - half) <= tol
            r = hi
            hard |= ~((np.abs(r) >= 2.0 ** -1022) & (np.abs(r) < 2.0 ** 1023))
        else:
            r = hi.astype(np.float32)
            d = (hi - r.astype(np.float64)) + lo
            nb = np.nextafter(r, np.where(d >= 0, np.float32(np.inf), np.float32(-np.inf)))
            half = np.abs(nb.astype(np.float64) - r.astype(np.float64)) * 0.5
            r = np.where(np.abs(d) > half, nb, r)
            hard = np.abs(np.abs(d) - half) <= tol
            hard |= ~((np.abs(r) >= 2.0 ** -126) & np.isfinite(r))
    return r, hard


def _norm_core(inverse, dtype, parts, ok, exact_sum):
    """The root of a sum of squares, or its reciprocal, rounded once, on the lanes ``ok``:
    ``parts`` lists the (scaled) terms, or is (("dd", hi, lo),): a double-double sum
    already; the scale is found here.  ``exact_sum(i)``: lane i's exact sum (a Fraction)."""
    n = len(ok)
    if parts and isinstance(parts[0], tuple):
        sh0, sl0 = parts[0][1], parts[0][2]
        e2 = 2 * (np.frexp(np.where(ok, sh0, 1.0))[1] // 2)
        sh, sl = np.ldexp(np.where(ok, sh0, 1.0), -e2), np.ldexp(np.where(ok, sl0, 0.0), -e2)
        half_e = e2 // 2
    else:
        mx = np.max(parts, axis=0) if parts else np.ones(n)
        half_e = np.frexp(np.where(ok, mx, 1.0))[1]
        sh, sl = np.zeros(n), np.zeros(n)
        for v in parts:
            w = np.ldexp(np.where(ok, v, 0.0), -half_e)
            p, pe = _two_prod(w, w)
            s, t = _two_sum(sh, p)
            sh, sl = _fast_two_sum(s, t + (sl + pe))
        sh = np.where(ok, sh, 1.0)
        sl = np.where(ok, sl, 0.0)
    rh, rl = (_dd_rsqrt if inverse else _dd_sqrt)(sh, sl)
    k = -half_e if inverse else half_e
    rh, rl = np.ldexp(rh, k), np.ldexp(rl, k)
    r, hard = _dd_round(rh, rl, dtype)
    hard |= np.abs(rh) < 2.0 ** -960
    r = np.asarray(r, dtype).copy()
    for i in np.flatnonzero(hard & ok):
        S = exact_sum(i)
        r[i] = _root_round(1 / S if inverse else S, 2, dtype)
    return r


def _norm_of(inverse):
    """norm3d / norm4d / rhypot / rnorm3d / rnorm4d (and normf of a constant dim): the
    root of the sum of the arguments' squares (inverse: its reciprocal) rounded once.
    An infinite argument gives +inf (the reciprocal: +0) even beside a NaN; otherwise a
    NaN gives NaN; all zeros give +0 (the reciprocal: +inf)."""
    def f(*xs):
        dt = np.asarray(xs[0]).dtype
        shape = np.broadcast_shapes(*(np.shape(x) for x in xs))
        a = [np.abs(np.broadcast_to(np.asarray(x, np.float64), shape).ravel()) for x in xs]
        with np.errstate(all="ignore"):
            inf = np.any([np.isinf(v) for v in a], axis=0)
            nan = np.any([np.isnan(v) for v in a], axis=0)
            zero = np.all([v == 0 for v in a], axis=0)
            ok = ~(inf | nan | zero)
            r = _norm_core(inverse, dt, a, ok, lambda i: sum(Fraction(float(v[i])) ** 2 for v in a))
            big, small = (0.0, np.inf) if inverse else (np.inf, 0.0)
            r = np.where(inf, big, np.where(nan, np.nan, np.where(zero, small, r)))
        return r.reshape(shape).astype(dt)
    return f


def _norm_call(inverse):
    """The last call of normf / rnormf / norm / rnorm: its last argument carries the
    result's type and says what the others are: 0, the coordinates (a constant dim);
    1, (hi, lo, p[0], dim): the double-double sum of squares the loop accumulated
    (m_ddsq_hi/_lo), and for a dim of 0 or less, libdevice's result, p[0]'s own norm."""
    of = _norm_of(inverse)

    def f(*args):
        carrier = np.asarray(args[-1])
        dt = carrier.dtype
        if not float(carrier.reshape(-1)[0]):
            return of(*(np.asarray(v).astype(dt) for v in args[:-1]))
        h, l, x0, n = (np.asarray(v) for v in args[:4])
        shape = np.broadcast_shapes(h.shape, l.shape, x0.shape, n.shape)
        h, l = (np.broadcast_to(v.astype(np.float64), shape).ravel() for v in (h, l))
        with np.errstate(all="ignore"):
            inf, nan, zero = np.isposinf(h), np.isnan(h), h == 0
            ok = ~(inf | nan | zero)
            r = _norm_core(inverse, dt, [("dd", h, l)], ok, lambda i: Fraction(float(h[i])) + Fraction(float(l[i])))
            big, small = (0.0, np.inf) if inverse else (np.inf, 0.0)
            r = np.where(inf, big, np.where(nan, np.nan, np.where(zero, small, r)))
            r = np.where(np.broadcast_to(n, shape).ravel() <= 0, of(np.broadcast_to(x0.astype(dt), shape).ravel()), r)
        return r.reshape(shape).astype(dt)
    return f


def _ddsq(h, l, x):
    """(h, l) + x^2 as a double-double (normf's loop over a run-time dim): exact for float
    coordinates up to the sum's 106 bits; +inf once a coordinate is infinite (NaNs after
    it included), NaN once one is NaN before any infinity.  Double coordinates whose
    squares overflow count as infinite, and those below 2^-500 lose their low bits."""
    x = np.asarray(x).astype(np.float64)
    h, l = np.asarray(h, np.float64), np.asarray(l, np.float64)
    with np.errstate(all="ignore"):
        p, pe = _two_prod(x, x)
        s, t = _two_sum(h, p)
        nh, nl = _fast_two_sum(s, t + (l + pe))
        inf = np.isposinf(h) | np.isinf(x) | np.isinf(p)
        nan = ~inf & (np.isnan(h) | np.isnan(x))
        nh = np.where(inf, np.inf, np.where(nan, np.nan, nh))
        nl = np.where(inf | nan, 0.0, nl)
    return nh, nl


def _rcbrt(x):
    """rcbrtf: x^(-1/3) rounded once; +-inf at +-0, +-0 at +-inf."""
    x = np.asarray(x)
    dt = x.dtype
    a = np.abs(x.astype(np.float64)).ravel()
    with np.errstate(all="ignore"):
        ok = np.isfinite(a) & (a > 0)
        e = np.frexp(np.where(ok, a, 1.0))[1]
        k = np.floor_divide(e, 3)
        w = np.ldexp(np.where(ok, a, 1.0), -3 * k)
        rh, rl = _dd_rcbrt(w)
        rh, rl = np.ldexp(rh, -k), np.ldexp(rl, -k)
        r, hard = _dd_round(rh, rl, dt)
        r = np.asarray(r, dt).copy()
        for i in np.flatnonzero(hard & ok):
            r[i] = _root_round(1 / Fraction(float(a[i])), 3, dt)
        r = np.where(a == 0, np.inf, np.where(np.isinf(a), 0.0, np.where(np.isnan(a), np.nan, r)))
        r = np.copysign(r, x.astype(np.float64).ravel())
    return r.reshape(x.shape).astype(dt)


def _frsqrt_rn(x):
    """__frsqrt_rn: 1 / sqrt(x) rounded to nearest even; +-inf at +-0, +0 at +inf, NaN
    below 0."""
    x = np.asarray(x, np.float32)
    a = x.astype(np.float64).ravel()
    with np.errstate(all="ignore"):
        ok = np.isfinite(a) & (a > 0)
        rh, rl = _dd_rsqrt(np.where(ok, a, 1.0), np.zeros(a.shape))
        r, hard = _dd_round(rh, rl, np.float32)
        r = np.asarray(r, np.float32).copy()
        for i in np.flatnonzero(hard & ok):
            r[i] = _root_round(1 / Fraction(float(a[i])), 2, np.float32)
        r = np.where(a == 0, np.copysign(np.inf, a), np.where(np.isposinf(a), 0.0,
                     np.where(ok, r, np.nan)))
    return r.reshape(x.shape).astype(np.float32)


# -- Bessel functions, in double.  J0, J1, Y0, Y1: a power series for x <= 2, Miller's
# backward recurrence (normalized by J0 + 2 sum J_2k = 1, with Neumann's series for Y0
# and Y1) for 2 < x < 25, Hankel's asymptotic expansion as modulus and phase for x >= 25
# (the phase x - (2n + 1) pi / 4 + atan2(Q, P) in double-double, reduced by pi/2 in
# pieces, so the value keeps its relative accuracy next to a zero); and within 0.2 of
# each zero below 25, the Taylor series about that zero (the zeros to double-double,
# found with 60-digit series: tests/test_math_extra.py).  Jn, Yn (n >= 2): Hankel's
# expansion where x >= max(25, n^2); else Yn by forward recurrence from Y0, Y1; Jn by
# forward recurrence where n < x, the power series where x <= 1, Miller's recurrence
# otherwise.  I0, I1: the power series for |x| <= 30, the asymptotic expansion above.
_EULER_GAMMA = 0.5772156649015329
_PIO4 = (0.7853981633974483, 3.061616997868383e-17)            # pi / 4 as hi + lo
# pi / 2 in pieces of 33 bits (fdlibm's pio2_1, pio2_2, pio2_3) and the rest: k * piece
# is exact for |k| < 2^20
_PIO2_1, _PIO2_2 = 1.57079632673412561417e+00, 6.07710050630396597660e-11
_PIO2_3, _PIO2_3T = 2.02226624871116645580e-21, 8.47842766036889956997e-32
_ZEROS = {   # (zero hi, zero lo, derivative there) as float.hex; tests/test_math_extra.py checks them
    "j0": [
        ("0x1.33d152e971b40p+1", "-0x1.0f539d7da258ep-53", "-0x1.09cdb36551280p-1"),
        ("0x1.6148f5b2c2e45p+2", "0x1.75054cd60a517p-54", "0x1.5c6e60a097823p-2"),
        ("0x1.14eb56cccdecap+3", "-0x1.51970714c7c25p-52", "-0x1.15f7977a772d4p-2"),
        ("0x1.79544008272b6p+3", "0x1.444fd5821d5b1p-52", "0x1.dc13e66ac2e77p-3"),
        ("0x1.ddca13ef271d2p+3", "-0x1.9796609364e85p-51", "-0x1.a701d0f967500p-3"),
        ("0x1.212313f8a19f6p+4", "-0x1.165fd108f46ffp-50", "0x1.8077f56c9b782p-3"),
        ("0x1.5362dd173f792p+4", "0x1.1d2dfa1c3b5a8p-51", "-0x1.62d93aa9d05bbp-3"),
        ("0x1.85a3b930156ddp+4", "0x1.0847c620015e0p-50", "0x1.4b2a2ebf61ecep-3"),
    ],
    "j1": [
        ("0x1.ea75575af6f09p+1", "-0x1.60155a9d1b256p-53", "-0x1.9c6cf582cbf7fp-2"),
        ("0x1.c0ff5f3b47250p+2", "-0x1.b226d9d243827p-54", "0x1.33518b3874e8ap-2"),
        ("0x1.458d0d0bdfc29p+3", "0x1.02610a51562b6p-51", "-0x1.ff654544ebcd1p-3"),
        ("0x1.aa5baf310e5a2p+3", "0x1.2bce7fd18e693p-52", "0x1.bf3337873a7d8p-3"),
        ("0x1.0787b360508c5p+4", "-0x1.d2a68e88ab317p-50", "-0x1.925c6fca08f55p-3"),
        ("0x1.39da8e7416ca4p+4", "-0x1.21830197e9e86p-50", "0x1.70c511227d5aap-3"),
        ("0x1.6c294e3d4d8acp+4", "-0x1.1bf33afef88f1p-51", "-0x1.5664e13b70622p-3"),
    ],
    "y0": [
        ("0x1.c982eb8d417eap-1", "0x1.ea9d270347f83p-56", "0x1.c24371844b88ap-1"),
        ("0x1.fa9534d98569cp+1", "-0x1.f06ae7804384ep-54", "-0x1.9c34256a12a0cp-2"),
        ("0x1.c581dc4e72103p+2", "-0x1.9774a495f56cfp-54", "0x1.334cca0697a5bp-2"),
        ("0x1.471d735a47d58p+3", "-0x1.cb49ff791c495p-51", "-0x1.ff635cc72b9f1p-3"),
        ("0x1.ab8e1c4a1e74ap+3", "-0x1.7df81de86f24dp-51", "0x1.bf32a27594007p-3"),
        ("0x1.0803c74003214p+4", "0x1.25a237d12159bp-50", "-0x1.925c35988ee29p-3"),
        ("0x1.3a42cdf5febd7p+4", "-0x1.8bf92d51fbaebp-50", "0x1.70c4f66cab47fp-3"),
        ("0x1.6c832fd77ac07p+4", "0x1.ca75080cf53a8p-50", "-0x1.5664d37c37d7bp-3"),
    ],
    "y1": [
        ("0x1.193bed4dff243p+1", "-0x1.bd1e50d219bfdp-55", "0x1.0aa48442f014bp-1"),
        ("0x1.5b7fe4e87b02ep+2", "0x1.dfe7bac228e8cp-52", "-0x1.5c7c556f0c19ap-2"),
        ("0x1.13127ae6169b4p+3", "0x1.479cc068d9046p-52", "0x1.15f993fceab5cp-2"),
        ("0x1.77f9138d43206p+3", "0x1.0fc786ce06080p-55", "-0x1.dc14ea14e89f9p-3"),
        ("0x1.dcb7d88de848bp+3", "-0x1.5e091a50f8e05p-51", "0x1.a7022be084d99p-3"),
        ("0x1.20b1c695f1e3bp+4", "-0x1.a1ee4c5487edep-50", "-0x1.80781c32422e7p-3"),
        ("0x1.53025492188cdp+4", "0x1.391b14410528fp-50", "0x1.62d94d97e859cp-3"),
        ("0x1.854fa303820cap+4", "0x1.52f75f025b205p-52", "-0x1.4b2a38f1ab9b4p-3"),
    ],
}
_TAYLOR: dict = {}       # name -> [(zero hi, zero lo, coefficients a_1 ... a_K)], filled once
_TAYLOR_RADIUS = 0.2
_TAYLOR_TERMS = 32


def _taylor_tables(name):
    """Taylor coefficients of J_nu or Y_nu about each of its zeros below 25, from the
    derivative there and the Bessel equation x^2 y'' + x y' + (x^2 - nu^2) y = 0 about
    x = z + t: z^2 (m+2)(m+1) a_{m+2} = -[z (m+1)(2m+1) a_{m+1} + (m^2 + z^2 - nu^2) a_m
    + 2 z a_{m-1} + a_{m-2}]."""
    rows = _TAYLOR.get(name)
    if rows is None:
        nu = 0.0 if name.endswith("0") else 1.0
        rows = []
        for zh, zl, d in _ZEROS[name]:
            z = float.fromhex(zh)
            a = [0.0, float.fromhex(d)]
            for m in range(_TAYLOR_TERMS - 1):
                am2 = a[m - 2] if m >= 2 else 0.0
                am1 = a[m - 1] if m >= 1 else 0.0
                a.append(-(z * (m + 1) * (2 * m + 1) * a[m + 1] + (m * m + z * z - nu * nu) * a[m]
                           + 2 * z * am1 + am2) / (z * z * (m + 2) * (m + 1)))
            rows.append((z, float.fromhex(zl), np.array(a[1:])))
        _TAYLOR[name] = rows
    return rows


def _near_zeros(name, x, out):
    """Where x lies within _TAYLOR_RADIUS of a zero of ``name`` below 25: the Taylor
    series there, written into ``out``."""
    for z, zl, a in _taylor_tables(name):
        sel = np.abs(x - z) < _TAYLOR_RADIUS
        if sel.any():
            t = (x[sel] - z) - zl
            acc = np.zeros(t.shape)
            for c in a[::-1]:
                acc = acc * t + c
            out[sel] = acc * t


def _series01(x):
    """J0, J1, Y0, Y1 by their power series (0 < x <= 2)."""
    q = -0.25 * x * x
    j0 = np.zeros(x.shape)
    j1 = np.zeros(x.shape)
    s0 = np.zeros(x.shape)
    s1 = np.zeros(x.shape)
    t0 = np.ones(x.shape)
    t1 = np.ones(x.shape)
    h = 0.0
    for k in range(30):
        hn = h + 1.0 / (k + 1)
        j0 += t0
        j1 += t1
        s0 += h * t0
        s1 += (h + hn) * t1
        h = hn
        t0 = t0 * q / ((k + 1) * (k + 1))
        t1 = t1 * q / ((k + 1) * (k + 2))
    j1 = 0.5 * x * j1
    L = np.log(0.5 * x) + _EULER_GAMMA
    y0 = (2 / np.pi) * (L * j0 - s0)
    y1 = -2 / (np.pi * x) + (2 / np.pi) * L * j1 - 0.5 * x * s1 / np.pi
    return j0, j1, y0, y1


def _miller01(x, N=80):
    """J0, J1, Y0, Y1 by Miller's backward recurrence from J_N = tiny, J_N+1 = 0 (2 < x
    < 25), normalized by J0 + 2 (J2 + J4 + ...) = 1; Y0 and Y1 from Neumann's series
    Y0 = (2/pi) [(ln(x/2) + gamma) J0 - 2 sum (-1)^k J_2k / k] and its derivative
    Y1 = (2/pi) [-J0/x + (ln(x/2) + gamma) J1 + sum (-1)^k (J_2k-1 - J_2k+1) / k]."""
    vp1 = np.zeros(x.shape)
    v = np.full(x.shape, 1e-30)
    S = np.zeros(x.shape)
    s0 = np.zeros(x.shape)
    s1 = np.zeros(x.shape)
    m = N // 2
    S += 2 * v
    s0 += (-1) ** m * v / m
    for k in range(N, 0, -1):
        vm1 = (2 * k / x) * v - vp1           # J_{k-1}
        j = k - 1
        if j >= 2 and j % 2 == 0:
            S += 2 * vm1
            s0 += (-1) ** (j // 2) * vm1 / (j // 2)
        elif j % 2 == 1:
            mm = (j + 1) // 2
            s1 += (-1) ** mm * (vm1 - vp1) / mm
        big = np.abs(vm1) > 1e250
        if big.any():
            f = np.where(big, 1e-250, 1.0)
            vm1, v, S, s0, s1 = vm1 * f, v * f, S * f, s0 * f, s1 * f
        vp1, v = v, vm1
    S += v
    j0, j1 = v / S, vp1 / S
    L = np.log(0.5 * x) + _EULER_GAMMA
    y0 = (2 / np.pi) * (L * j0 - 2 * s0 / S)
    y1 = (2 / np.pi) * (-j0 / x + L * j1 + s1 / S)
    return j0, j1, y0, y1


_PI_BITS = 1300
_PI_INT = None


def _pi_int():
    """floor(pi * 2^_PI_BITS), by Machin's formula in integers (once)."""
    global _PI_INT
    if _PI_INT is None:
        one = 1 << (_PI_BITS + 20)

        def atan_inv(m):
            s, t, k, m2 = 0, one // m, 0, m * m
            while t:
                s += t // (2 * k + 1) if k % 2 == 0 else -(t // (2 * k + 1))
                t //= m2
                k += 1
            return s
        _PI_INT = (16 * atan_inv(5) - 4 * atan_inv(239)) >> 20
    return _PI_INT


def _cos_sin_dd(th, tl):
    """cos and sin of th + tl (a double-double, |th| large or small): reduced by pi/2 in
    33-bit pieces while the multiple stays below 2^20, in Python's integers above."""
    k = np.rint(th * (2 / np.pi))
    small = np.abs(k) < 2.0 ** 20
    kk = np.where(small, k, 0.0)
    r = ((((th - kk * _PIO2_1) - kk * _PIO2_2) - kk * _PIO2_3) - kk * _PIO2_3T) + tl
    kq = kk.astype(np.int64)
    for i in np.flatnonzero(~small):
        half_pi = Fraction(_pi_int(), 1 << (_PI_BITS + 1))
        t = Fraction(float(th[i]))
        n = round(t / half_pi)
        r[i] = float(t - n * half_pi) + tl[i]
        kq[i] = n % 4
    c, s = np.cos(r), np.sin(r)
    q = kq % 4
    cos = np.choose(q, [c, -s, -c, s])
    sin = np.choose(q, [s, c, -s, -c])
    return cos, sin


def _hankel(n, x):
    """(J_n(x), Y_n(x)) for x >= 25 and x >= n^2 (n: int array): Hankel's expansion,
    J = M cos(theta), Y = M sin(theta), M = sqrt(2 / (pi x)) hypot(P, Q), theta =
    x - (2n + 1) pi / 4 + atan2(Q, P)."""
    mu = 4.0 * n.astype(np.float64) ** 2
    P = np.ones(x.shape)
    Q = np.zeros(x.shape)
    t = np.ones(x.shape)
    for k in range(1, 120):
        t = t * (mu - (2 * k - 1) ** 2) / (8.0 * k * x)
        sign = 1.0 if (k // 2) % 2 == 0 else -1.0
        if k % 2:
            Q += sign * t
        else:
            P += sign * t
        if np.all(np.abs(t) < 1e-18):
            break
    c = 2.0 * n.astype(np.float64) + 1
    ch, cl = _two_prod(c, np.full(x.shape, _PIO4[0]))
    cl = cl + c * _PIO4[1]
    xh, xl = _two_sum(x, -ch)
    xl = xl - cl
    th, e = _two_sum(xh, np.arctan2(Q, P))
    cos, sin = _cos_sin_dd(th, xl + e)
    M = np.sqrt(2 / (np.pi * x)) * np.hypot(P, Q)
    return M * cos, M * sin


def _jy01(x):
    """J0, J1, Y0, Y1 at x > 0 (finite float64 array)."""
    j0, j1, y0, y1 = (np.zeros(x.shape) for _ in range(4))
    for sel, fn in ((x <= 2, _series01), ((x > 2) & (x < 25), _miller01)):
        if sel.any():
            for out, v in zip((j0, j1, y0, y1), fn(x[sel])):
                out[sel] = v
    sel = x >= 25
    if sel.any():
        for nu, oj, oy in ((0, j0, y0), (1, j1, y1)):
            jv, yv = _hankel(np.full(int(sel.sum()), nu), x[sel])
            oj[sel], oy[sel] = jv, yv
    low = x < 25 + _TAYLOR_RADIUS
    if low.any():
        xl = x[low]
        for name, out in (("j0", j0), ("j1", j1), ("y0", y0), ("y1", y1)):
            part = out[low]
            _near_zeros(name, xl, part)
            out[low] = part
    return j0, j1, y0, y1


def _bessel_j(order):
    def f(x):
        a = np.abs(x)
        fin = np.isfinite(a) & (a > 0)
        r = np.zeros(x.shape)
        if fin.any():
            r[fin] = _jy01(a[fin])[order]
        if order == 0:
            r = np.where(a == 0, 1.0, r)
        else:
            r = r * np.copysign(1.0, x)           # J1 is odd: -0 at -0, +-0 at +-inf
        return np.where(np.isnan(x), np.nan, r)
    return _lanes(f)


def _bessel_y(order):
    def f(x):
        fin = np.isfinite(x) & (x > 0)
        r = np.zeros(x.shape)
        if fin.any():
            r[fin] = _jy01(x[fin])[2 + order]
        r = np.where(x == 0, -np.inf, r)
        return np.where(np.isnan(x) | (x < 0), np.nan, r)
    return _lanes(f)


def _jn_pos(n, x):
    """J_n(x) for n >= 2, x > 0 finite (int64 and float64 arrays)."""
    r = np.zeros(x.shape)
    hank = (x >= 25) & (x >= n.astype(np.float64) ** 2)
    if hank.any():
        r[hank] = _hankel(n[hank], x[hank])[0]
    fwd = ~hank & (n < x)
    if fwd.any():
        xs, ns = x[fwd], n[fwd]
        j0, j1 = _jy01(xs)[:2]
        out = np.zeros(xs.shape)
        for k in range(1, int(ns.max())):
            j0, j1 = j1, (2 * k / xs) * j1 - j0
            out = np.where(ns == k + 1, j1, out)
        r[fwd] = out
    ser = ~hank & ~fwd & (x <= 1)
    if ser.any():
        xs, ns = x[ser], n[ser]
        pre = np.ones(xs.shape)
        for k in range(1, int(ns.max()) + 1):
            pre = np.where(k <= ns, pre * (0.5 * xs) / k, pre)
            if not pre.any():
                break
        q = -0.25 * xs * xs
        s, t = np.ones(xs.shape), np.ones(xs.shape)
        for k in range(1, 30):
            t = t * q / (k * (ns + k))
            s += t
        r[ser] = pre * s
    mil = ~hank & ~fwd & ~ser
    if mil.any():
        xs, ns = x[mil], n[mil]
        start = 2 * ((ns + np.sqrt(40.0 * ns).astype(np.int64) + 20) // 2)
        vp1 = np.zeros(xs.shape)
        v = np.zeros(xs.shape)
        S = np.zeros(xs.shape)
        got = np.zeros(xs.shape)
        for k in range(int(start.max()), 0, -1):
            v = np.where(start == k, 1e-30, v)
            if k % 2 == 0:
                S += 2 * v
            got = np.where(ns == k, v, got)
            vm1 = (2 * k / xs) * v - vp1
            big = np.abs(vm1) > 1e250
            if big.any():
                f = np.where(big, 1e-250, 1.0)
                vm1, v, S, got = vm1 * f, v * f, S * f, got * f
            vp1, v = v, vm1
        S += v
        r[mil] = got / S
    return r


def _jn(n, x):
    """jnf(n, x): NaN for n < 0 (CUDA's documented value) and for NaN x; J_n(-x) =
    (-1)^n J_n(x); +0 at +-inf (signed as the parity says)."""
    n = n.astype(np.int64)
    a = np.abs(x)
    r = np.zeros(x.shape)
    fin = np.isfinite(a) & (a > 0)
    for order in (0, 1):
        s = fin & (n == order)
        if s.any():
            r[s] = _jy01(a[s])[order]
    s = fin & (n >= 2)
    if s.any():
        r[s] = _jn_pos(n[s], a[s])
    r = np.where((a == 0) & (n == 0), 1.0, r)
    r = np.where((x < 0) | ((x == 0) & np.signbit(x)), np.where(n % 2 == 1, -r, r), r)
    return np.where(np.isnan(x) | (n < 0), np.nan, r)


def _yn(n, x):
    """ynf(n, x): NaN for n < 0, x < 0 or NaN; -inf at +-0; +0 at +inf; -inf once the
    recurrence overflows."""
    n = n.astype(np.int64)
    r = np.zeros(x.shape)
    fin = np.isfinite(x) & (x > 0) & (n >= 0)
    if fin.any():
        xs, ns = x[fin], n[fin]
        j0, j1, y0, y1 = _jy01(xs)
        out = np.where(ns == 0, y0, y1)
        hank = (xs >= 25) & (xs >= ns.astype(np.float64) ** 2) & (ns >= 2)
        if hank.any():
            out[hank] = _hankel(ns[hank], xs[hank])[1]
        todo = ~hank & (ns >= 2)
        if todo.any():
            a, b, xt, nt = y0[todo], y1[todo], xs[todo], ns[todo]
            got = np.zeros(xt.shape)
            for k in range(1, int(nt.max())):
                a, b = b, (2 * k / xt) * b - a
                got = np.where(nt == k + 1, b, got)
                if np.all(~np.isfinite(b) | (nt <= k + 1)):
                    got = np.where(nt > k + 1, -np.inf, got)
                    break
            out[todo] = np.where(np.isnan(got), -np.inf, got)
        r[fin] = out
    r = np.where(x == 0, -np.inf, r)
    return np.where(np.isnan(x) | (x < 0) | (n < 0), np.nan, r)


def _bessel_i(order):
    """cyl_bessel_i0f / _i1f: the power series for |x| <= 30, e^x / sqrt(2 pi x) times
    the asymptotic series above (e^x as e^(x/2) twice, so the double result overflows only
    where it must); I0 even, I1 odd."""
    def f(x):
        a = np.abs(x)
        r = np.full(x.shape, np.inf)
        ser = a <= 30
        if ser.any():
            xs = a[ser]
            q = 0.25 * xs * xs
            s, t = np.ones(xs.shape), np.ones(xs.shape)
            for k in range(1, 130):
                t = t * q / (k * (k + order))
                s += t
                if np.all(t <= 1e-18 * s):
                    break
            r[ser] = s if order == 0 else 0.5 * xs * s
        asy = (a > 30) & np.isfinite(a)
        if asy.any():
            xs = a[asy]
            mu = 4.0 * order * order
            s, t = np.ones(xs.shape), np.ones(xs.shape)
            for k in range(1, 60):
                t = -t * (mu - (2 * k - 1) ** 2) / (8.0 * k * xs)
                s += t
                if np.all(np.abs(t) <= 1e-18):
                    break
            e = np.exp(0.5 * xs)
            r[asy] = e * (e * s / np.sqrt(2 * np.pi * xs))
        if order == 1:
            r = r * np.copysign(1.0, x)
        return np.where(np.isnan(x), np.nan, r)
    return _lanes(f)


def _erfcx1(x: float) -> float:
    """exp(x^2) erfc(x) in double: exp(x^2) with x^2 as an exact double-double, erfc from
    Python's math; for x >= 26 the asymptotic series 1/(x sqrt(pi)) (1 - 1/(2x^2) + 3/(2x^2)^2
    - ...); for x < 0, 2 exp(x^2) - erfcx(-x) (+inf below -26.7)."""
    if math.isnan(x):
        return x
    if x < 0:
        if x < -26.7:
            return math.inf
        h, l = _two_prod(x, x)
        return 2 * math.exp(h) * (1 + l) - _erfcx1(-x)
    if x < 26:
        h, l = _two_prod(x, x)
        return math.exp(h) * (1 + l) * math.erfc(x)
    if x > 1e9:
        return 1 / (x * math.sqrt(math.pi))
    y = 1 / (2 * x * x)
    s, t = 1.0, 1.0
    for k in range(1, 14):
        t *= -(2 * k - 1) * y
        s += t
    return s / (x * math.sqrt(math.pi))


_MATH.update({
    "nextafter": _nextafter, "logb": _logb, "rcbrt": _rcbrt, "erfcx": _vec1(_erfcx1),
    "rhypot": _norm_of(True), "norm3d": _norm_of(False), "rnorm3d": _norm_of(True),
    "norm4d": _norm_of(False), "rnorm4d": _norm_of(True),
    "j0": _bessel_j(0), "j1": _bessel_j(1), "y0": _bessel_y(0), "y1": _bessel_y(1),
    "cyl_bessel_i0": _bessel_i(0), "cyl_bessel_i1": _bessel_i(1),
    # IEEE remainder (numpy's remainder is the floored modulo: remainderf(5, 3) was 2)
    "remainder": lambda x, y: _remquo_parts(x, y)[0],
    "remquo": lambda x, y: _remquo_parts(x, y)[0],
})


def _dp(a, b, c, n, hi=False):
    """__dp4a (n = 4) and __dp2a_lo/_hi (n = 2): byte (or half-word) products summed
    into c, wrapping at 32 bits; signed or unsigned as c's type says."""
    c = np.asarray(c)
    signed = c.dtype.kind == "i"
    wide = np.int64
    a = np.asarray(a).astype(np.uint32).astype(wide)
    b = np.asarray(b).astype(np.uint32).astype(wide)
    acc = c.astype(wide)
    bits_a = 8 if n == 4 else 16
    for k in range(n):
        x = (a >> (bits_a * k)) & ((1 << bits_a) - 1)
        y = (b >> (8 * (k + (2 if hi else 0)))) & 0xFF
        if signed:
            x = np.where(x >= 1 << (bits_a - 1), x - (1 << bits_a), x)
            y = np.where(y >= 128, y - 256, y)
        acc = acc + x * y
    return (acc & 0xFFFFFFFF).astype(np.uint32).astype(c.dtype)


def _funnel(lo, hi, sh, left, clamp):
    """__funnelshift_l/_r(lo, hi, shift): hi:lo as 64 bits shifted by shift mod 32
    (``_lc``/``_rc``: by min(shift, 32)); the upper word (left) or the lower (right)."""
    v = (np.asarray(hi).astype(np.uint64) << np.uint64(32)) | np.asarray(lo).astype(np.uint64)
    sh = np.asarray(sh).astype(np.uint64)
    sh = np.minimum(sh, np.uint64(32)) if clamp else sh & np.uint64(31)
    r = (v << sh) >> np.uint64(32) if left else v >> sh
    return (r & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def _byte_perm(x, y, s):
    """__byte_perm(x, y, s): byte n of the result is byte (s >> 4n) & 7 of y:x."""
    v = (np.asarray(y).astype(np.uint64) << np.uint64(32)) | np.asarray(x).astype(np.uint64)
    s = np.asarray(s).astype(np.uint64)
    r = np.zeros(np.broadcast(v, s).shape, np.uint64)
    for n in range(4):
        sel = (s >> np.uint64(4 * n)) & np.uint64(7)
        r |= ((v >> (sel * np.uint64(8))) & np.uint64(0xFF)) << np.uint64(8 * n)
    return r.astype(np.uint32)


# one conversion of a printf format: flags, width, precision, length, conversion
# (intrinsics._printf reads formats with it, machine._py_format turns them into Python's)
PRINTF_CONVERSION = re.compile(r"%([-+ #0]*\d*(?:\.\d+)?)(?:hh|h|ll|l|z|j|t)?([diouxXeEfgGcsp%])")


def _frexp_e(x):
    return np.frexp(x)[1].astype(np.int32)


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
    "__dp4a": lambda a, b, c: _dp(a, b, c, 4), "__dp2a_lo": lambda a, b, c: _dp(a, b, c, 2),
    "__dp2a_hi": lambda a, b, c: _dp(a, b, c, 2, hi=True),
    "__funnelshift_l": lambda lo, hi, s: _funnel(lo, hi, s, True, False),
    "__funnelshift_lc": lambda lo, hi, s: _funnel(lo, hi, s, True, True),
    "__funnelshift_r": lambda lo, hi, s: _funnel(lo, hi, s, False, False),
    "__funnelshift_rc": lambda lo, hi, s: _funnel(lo, hi, s, False, True),
    "__byte_perm": _byte_perm,
    "__double2float_rn": lambda x: np.asarray(x).astype(np.float32),
    "__double2int_rn": lambda x: _round_half_even_int(x, np.int32),
    "__float2ll_rn": lambda x: _round_half_even_int(x, np.int64),
    "__ll2float_rn": lambda x: np.asarray(x).astype(np.float32),
    "__isnanf": lambda x: np.isnan(x).astype(np.int32),
    "__isinff": lambda x: np.isinf(x).astype(np.int32),
    "__finitef": lambda x: np.isfinite(x).astype(np.int32),
    **{n: (lambda x, dt=dt: cast_value(_round_away(x), dt))
       for n, dt in (("lroundf", np.int64), ("llroundf", np.int64), ("lround", np.int64),
                     ("llround", np.int64))},
    **{n: (lambda x, dt=dt: _round_half_even_int(x, dt))
       for n, dt in (("lrintf", np.int64), ("llrintf", np.int64), ("lrint", np.int64),
                     ("llrint", np.int64))},
    "m_ldexp": _ldexp,
    "m_frexp_m": lambda x: np.frexp(x)[0].astype(np.asarray(x).dtype),
    "m_frexp_e": _frexp_e,
    "m_modf_frac": lambda x: np.modf(x)[0].astype(np.asarray(x).dtype),
    "m_modf_int": lambda x: np.modf(x)[1].astype(np.asarray(x).dtype),
    "__simt_xorwow_matvec": xorwow_matvec,
    # CUDA math API, part 5
    "m_ilogb": _ilogb, "m_jn": _lanes(_jn), "m_yn": _lanes(_yn),
    "m_remquo_q": lambda x, y: _remquo_parts(x, y)[1],
    "m_norm": _norm_call(False), "m_rnorm": _norm_call(True),
    "m_ddsq_hi": lambda h, l, x: _ddsq(h, l, x)[0], "m_ddsq_lo": lambda h, l, x: _ddsq(h, l, x)[1],
    "m_absmax": lambda m, x: np.fmax(m, np.abs(x)),
    "m_frsqrt_rn": _frsqrt_rn,
    "__double2hiint": lambda x: (np.asarray(x, np.float64).view(np.int64) >> 32).astype(np.int32),
    "__double2loint": lambda x: (np.asarray(x, np.float64).view(np.uint64) & np.uint64(0xFFFFFFFF))
    .astype(np.uint32).view(np.int32),
    "__hiloint2double": lambda hi, lo: ((np.asarray(hi).astype(np.int32).view(np.uint32).astype(np.uint64)
                                        << np.uint64(32))
                                       | np.asarray(lo).astype(np.int32).view(np.uint32).astype(np.uint64))
    .view(np.float64),
    # generic addresses (simt.spaces): the shared window, the local window (__isGlobal and
    # __isConstant look the address up among the device's allocations: machine.WARP_CALLS)
    "__isShared": lambda a: ((np.asarray(a).astype(np.int64) >= SHARED_BASE)
                             & (np.asarray(a).astype(np.int64) < LOCAL_BASE)).astype(np.uint32),
    "__isLocal": lambda a: (np.asarray(a).astype(np.int64) >= LOCAL_BASE).astype(np.uint32),
})
BINOPS.update(HALF_BINOPS)
CALLS.update(HALF_CALLS)
CALLS.update(SIMD_CALLS)
CALLS.update({n: f for n, (_, _, f) in ROUNDING.items() if n not in CALLS})


# ------------------------------------------------------------------ bfloat16
# ``__nv_bfloat16`` (cuda_bf16.h) lives in registers and memory as its uint16 bit pattern
# (numpy has no bfloat16): the top 16 bits of the float32 of the same value.  Every
# operation below widens to float32 (exact), computes, and rounds once to bfloat16.
# ``+ - * /`` rounded to float32 first and then to bfloat16 equal the one rounding of the
# exact result (24 >= 2 * 8 + 2 bits, and the same exponent range).  A NaN any of them
# produces is the canonical 0x7FFF (as ``cvt.rn.bf16.f32`` and the bf16 ALU give it).
B_NAN = np.uint16(0x7FFF)


def bf16_to_float(x):
    """The float32 values of bf16 bit patterns (exact)."""
    return (np.asarray(x).astype(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


def _f32_round_to_odd(x):
    """float64 (or any) values to float32 rounded to odd, which keeps a sticky bit for
    the second rounding to bfloat16 (53 and 24 >= 8 + 2 bits)."""
    x = np.asarray(x)
    if x.dtype == np.float32:
        return x
    wide = x.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        f = wide.astype(np.float32)
        inexact = (f.astype(np.float64) != wide) & ~np.isnan(wide)
        even = (f.view(np.uint32) & np.uint32(1)) == 0
        fix = inexact & even
        if np.any(fix):
            f = np.where(fix, np.nextafter(f, np.where(wide > f, np.float32(np.inf),
                                                       np.float32(-np.inf)).astype(np.float32)), f)
    return np.asarray(f, np.float32)


def to_bf16(x, mode: str = "rn"):
    """The numeric value ``x`` (any scalar type, never bf16 bits) rounded to bfloat16 bits:
    to nearest even (``rn``), toward zero (``rz``), down (``rd``) or up (``ru``)."""
    f = _f32_round_to_odd(np.asarray(x) if np.asarray(x).dtype.kind == "f" else
                          np.asarray(x).astype(np.float64))
    u = np.asarray(f, np.float32).view(np.uint32)
    hi, lo = u >> np.uint32(16), u & np.uint32(0xFFFF)
    neg = (u >> np.uint32(31)) == 1
    if mode == "rn":
        r = (u + np.uint32(0x7FFF) + (hi & np.uint32(1))) >> np.uint32(16)
    elif mode == "rz":
        r = hi
    else:
        away = (lo != 0) & (neg if mode == "rd" else ~neg)
        r = hi + away.astype(np.uint32)
    r = np.where(np.isnan(f), np.uint32(B_NAN), r)
    return np.asarray(r).astype(np.uint16)


def _bbin(f):
    def g(a, b):
        with np.errstate(all="ignore"):
            return to_bf16(f(bf16_to_float(a), bf16_to_float(b)).astype(np.float32))
    return g


def _bcmp(f):
    return lambda a, b: f(bf16_to_float(a), bf16_to_float(b))


def _bfma(a, b, c):
    """``a * b + c`` rounded once: the product is exact in double, the sum rounded to odd
    there (as ``_hfma``), then to odd in float32, then to nearest even in bfloat16."""
    return to_bf16(_fma_odd(*(bf16_to_float(v).astype(np.float64) for v in (a, b, c))))


def _bminmax(hf):
    def g(a, b):
        return to_bf16(hf(bf16_to_float(a), bf16_to_float(b)))
    return g


def _fmax0(a, b):
    zero = (a == 0) & (b == 0)
    return np.where(zero, np.where(np.signbit(a) & np.signbit(b), np.float32(-0.0), np.float32(0.0)),
                    np.fmax(a, b)).astype(np.float32)


def _fmin0(a, b):
    zero = (a == 0) & (b == 0)
    return np.where(zero, np.where(np.signbit(a) | np.signbit(b), np.float32(-0.0), np.float32(0.0)),
                    np.fmin(a, b)).astype(np.float32)


BF16_BINOPS = {
    "b_add": _bbin(np.add), "b_sub": _bbin(np.subtract), "b_mul": _bbin(np.multiply),
    "b_div": _bbin(np.true_divide),
    "b_eq": _bcmp(np.equal), "b_ne": _bcmp(np.not_equal), "b_lt": _bcmp(np.less),
    "b_gt": _bcmp(np.greater), "b_le": _bcmp(np.less_equal), "b_ge": _bcmp(np.greater_equal),
}

BF16_CALLS = {
    "m_bcvt_rn": to_bf16, "m_bcvt_rz": lambda x: to_bf16(x, "rz"),
    "m_bcvt_rd": lambda x: to_bf16(x, "rd"), "m_bcvt_ru": lambda x: to_bf16(x, "ru"),
    "m_b2f": bf16_to_float,
    "m_bneg": lambda x: np.asarray(x).astype(np.uint16) ^ np.uint16(0x8000),
    "m_babs": lambda x: np.asarray(x).astype(np.uint16) & np.uint16(0x7FFF),
    "m_bmax": _bminmax(_fmax0), "m_bmin": _bminmax(_fmin0), "m_bfma": _bfma,
    "m_bbits": lambda x: np.asarray(x).astype(np.uint16),
    "m_bbits_s": lambda x: np.asarray(x).astype(np.uint16).view(np.int16),
    "m_bfrom_s": lambda x: np.asarray(x).astype(np.int16).view(np.uint16),
}
BINOPS.update(BF16_BINOPS)
CALLS.update(BF16_CALLS)
