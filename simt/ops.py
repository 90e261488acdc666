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
from .rounding import ROUNDING
from .simd import SIMD_CALLS


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


_SPLIT = 134217729.0                    # 2^27 + 1: Veltkamp's splitter for doubles


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
        t = _SPLIT * a
        ah = t - (t - a)
        al = a - ah
        t = _SPLIT * b
        bh = t - (t - b)
        bl = b - bh
        pl = ((ah * bh - ph) + ah * bl + al * bh) + al * bl
        th = c + ph
        z = th - c
        tl = (c - (th - z)) + (ph - z)
        v = tl + pl                                     # rounded to odd: TwoSum's error says
        z = v - tl                                      # which way an inexact even sum moves
        e = (tl - (v - z)) + (pl - z)
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
    "m_ldexp": lambda x, n: np.ldexp(x, np.asarray(n).astype(np.int32)).astype(np.asarray(x).dtype),
    "m_frexp_m": lambda x: np.frexp(x)[0].astype(np.asarray(x).dtype),
    "m_frexp_e": _frexp_e,
    "m_modf_frac": lambda x: np.modf(x)[0].astype(np.asarray(x).dtype),
    "m_modf_int": lambda x: np.modf(x)[1].astype(np.asarray(x).dtype),
    "__simt_xorwow_matvec": xorwow_matvec,
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
