"""CUDA's intrinsics with a rounding mode in their name: arithmetic (``__fadd_rd``,
``__fmul_ru``, ``__fdiv_rz``, ``__fsqrt_rd``, ``__frcp_ru``, ``__fmaf_rz``, ``__dadd_ru``,
``__ddiv_rd``, ``__fma_rz``, ...) and conversions (``__int2float_rz``, ``__ll2double_ru``,
``__float2ll_rd``, ``__double2float_ru``, ``__double2int_rz``, ...), each exactly as the
GPU rounds it: to nearest even (``_rn``), toward zero (``_rz``), down (``_rd``) or up
(``_ru``).  Interval arithmetic is what course code uses them for.

How: the correctly rounded result to nearest comes from numpy (IEEE arithmetic in the
operands' own precision); the sign of the exact result minus it decides whether a
directed mode takes the neighbour below or above.  For float operands that sign comes
from float64 arithmetic, which holds a float sum, product or fused product-sum exactly
with an error term (TwoSum, Dekker's product); for double operands, and for 64-bit
integers, from Python's exact rationals, one lane at a time.  Overflow follows IEEE: a
directed mode that points away from infinity gives the largest finite value.

Limitations: the double and 64-bit conversions are computed lane by lane in Python, so a
loop of millions of them is slow to emulate; subnormal results are the IEEE ones (the GPU
keeps them: these intrinsics never flush to zero).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

_F32, _F64 = np.float32, np.float64
MODES = ("rn", "rz", "rd", "ru")


def _split(a):
    """Veltkamp's split of float64 a into hi + lo, each of 26 bits or fewer."""
    c = a * 134217729.0                     # 2^27 + 1
    hi = c - (c - a)
    return hi, a - hi


def _two_prod_err(a, b, p):
    """a * b - p exactly, p = fl(a * b) (Dekker; float64 without overflow)."""
    ah, al = _split(a)
    bh, bl = _split(b)
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _two_sum_err(a, b, s):
    """a + b - s exactly, s = fl(a + b) (Knuth's TwoSum)."""
    bb = s - a
    return (a - (s - bb)) + (b - bb)


def _direct(r, above, below, mode: str, dtype):
    """Round-to-nearest results ``r`` moved to the neighbour a directed ``mode`` wants:
    ``above`` / ``below``: where the exact value is above / below r."""
    r = np.array(r, dtype)
    if mode == "rn":
        return r
    inf = dtype(np.inf)
    with np.errstate(over="ignore", invalid="ignore"):
        if mode == "rd":
            r = np.where(below, np.nextafter(r, -inf), r)
        elif mode == "ru":
            r = np.where(above, np.nextafter(r, inf), r)
        else:                                                   # toward zero
            r = np.where((r > 0) & below | (r < 0) & above, np.nextafter(r, dtype(0)), r)
    return r.astype(dtype)


def _overflowed(r, exact_finite, mode, dtype):
    """Round-to-nearest's infinities from finite exact values, as the directed modes give
    them: the largest finite value where the mode points back toward zero."""
    if mode == "rn":
        return r
    big = np.finfo(dtype).max
    pos = np.isinf(r) & (r > 0) & exact_finite
    neg = np.isinf(r) & (r < 0) & exact_finite
    if mode in ("rd", "rz"):
        r = np.where(pos, dtype(big), r)
    if mode in ("ru", "rz"):
        r = np.where(neg, dtype(-big), r)
    return r.astype(dtype)


# ------------------------------------------------------------------- float arithmetic

def _f32_from(hi, err, mode):
    """The float of exact value hi + err (hi a float64, err a float64 whose sign is that
    of the exact value minus hi, 0 where hi is exact) under ``mode``."""
    with np.errstate(over="ignore", invalid="ignore"):
        r = hi.astype(_F32)
        d = hi - r.astype(_F64)                 # exact: r is hi's nearest float
    d = np.where(d == 0, err, d)
    r = _direct(r, d > 0, d < 0, mode, _F32)
    return _overflowed(r, np.isfinite(hi), mode, _F32)


def _zero_sign(r, x, y, mode):
    """IEEE's sign of an exact zero sum x + y: +0 in every mode but round-down, -0 there
    (two zeros of one sign keep it: numpy's nearest-mode sum already has it)."""
    if mode != "rd":
        return r
    both_plus = (x == 0) & (y == 0) & ~np.signbit(x) & ~np.signbit(y)
    return np.where((r == 0) & ~both_plus, -r.dtype.type(0), r).astype(r.dtype)


def _fadd(mode, sub=False):
    def f(a, b):
        a, b = np.asarray(a, _F32).astype(_F64), np.asarray(b, _F32).astype(_F64)
        b = -b if sub else b
        with np.errstate(invalid="ignore", over="ignore"):
            s = a + b
            e = np.where(np.isfinite(s), _two_sum_err(a, b, s), 0.0)
        if mode == "rn":
            with np.errstate(over="ignore", invalid="ignore"):
                return (a.astype(_F32) + b.astype(_F32)).astype(_F32)
        return _zero_sign(_f32_from(s, e, mode), a, b, mode)
    return f


def _fmul(mode):
    def f(a, b):
        a, b = np.asarray(a, _F32).astype(_F64), np.asarray(b, _F32).astype(_F64)
        with np.errstate(invalid="ignore", over="ignore"):
            return _f32_from(a * b, np.zeros_like(a * b), mode)    # exact in float64
    return f


def _ffma(mode):
    def f(a, b, c):
        a, b, c = (np.asarray(x, _F32).astype(_F64) for x in (a, b, c))
        with np.errstate(invalid="ignore", over="ignore"):
            p = a * b                                              # exact
            s = p + c
            e = np.where(np.isfinite(s), _two_sum_err(p, c, s), 0.0)
        if mode == "rn":                 # s + e is exact; its nearest float, not s's
            return _f32_nearest(s, e)
        return _zero_sign(_f32_from(s, e, mode), p, c, mode)
    return f


def _f32_nearest(hi, err):
    """Round-to-nearest-even of hi + err (exact) to float, avoiding double rounding."""
    with np.errstate(over="ignore", invalid="ignore"):
        r = hi.astype(_F32)
        d = hi - r.astype(_F64)
        half = np.abs(np.spacing(r).astype(_F64)) / 2
    tie = (np.abs(d) == half) & (err != 0) & np.isfinite(r)
    # at a midpoint between two floats, err says which side the exact value is on
    move = tie & (np.sign(d) == np.sign(err))
    away = np.where(d > 0, np.inf, -np.inf).astype(_F32)
    with np.errstate(over="ignore"):
        return np.where(move, np.nextafter(r, away), r).astype(_F32)


def _fdiv(mode, one=False):
    def f(a, b=None):
        if one:
            a, b = np.ones_like(np.asarray(a, _F32)), a
        a, b = np.asarray(a, _F32).astype(_F64), np.asarray(b, _F32).astype(_F64)
        if mode == "rn":
            with np.errstate(all="ignore"):
                return (a.astype(_F32) / b.astype(_F32)).astype(_F32)
        with np.errstate(all="ignore"):
            q = a / b
            p = q * b
            rem = np.where(np.isfinite(q) & (q != 0), (a - p) - _two_prod_err(q, b, p), 0.0)
        return _f32_from(q, rem * np.sign(b), mode)
    return f


def _fsqrt(mode):
    def f(a):
        a = np.asarray(a, _F32).astype(_F64)
        if mode == "rn":
            with np.errstate(invalid="ignore"):
                return np.sqrt(a.astype(_F32)).astype(_F32)
        with np.errstate(invalid="ignore"):
            s = np.sqrt(a)
            p = s * s
            rem = np.where(np.isfinite(s) & (s > 0), (a - p) - _two_prod_err(s, s, p), 0.0)
        return _f32_from(s, rem, mode)
    return f


# ------------------------------------------------------------ exact, lane by lane

def _exact(x) -> Fraction | None:
    """x (a float or an integer) as an exact rational; None for NaN and infinities."""
    if isinstance(x, (float, np.floating)):
        return Fraction(float(x)) if np.isfinite(x) else None
    return Fraction(int(x))


def _round_exact(v: Fraction, mode: str, dtype):
    """The float or double nearest v in ``mode`` (v exact)."""
    top = np.finfo(dtype).max
    big = Fraction(float(top))
    if abs(v) > big:                                        # beyond the largest finite value
        pos = v > 0
        if mode == "rn":
            half = (big - Fraction(float(np.nextafter(dtype(top), dtype(0))))) / 2
            to_inf = abs(v) >= big + half
        else:
            to_inf = (mode == "ru" and pos) or (mode == "rd" and not pos)
        return dtype((np.inf if to_inf else top) * (1 if pos else -1))
    r = dtype(float(v))
    # float(Fraction) rounds to nearest (even) in double; a float target rounds again
    ex = Fraction(float(r))
    if dtype is _F32 and mode == "rn" and ex != v:
        lo, hi = (np.nextafter(r, dtype(-np.inf)), r) if ex > v else (r, np.nextafter(r, dtype(np.inf)))
        dl, dh = v - Fraction(float(lo)), Fraction(float(hi)) - v
        if dl != dh:
            return lo if dl < dh else hi
        return lo if int(np.asarray(lo).view(np.uint32)) % 2 == 0 else hi
    if mode == "rn" or ex == v:
        return r
    return _direct(r, v > ex, v < ex, mode, dtype)[()]


def _lanes(fn, out_dtype):
    """A lane-wise function of exact rationals, applied to numpy arrays."""
    def f(*args):
        arrs = np.broadcast_arrays(*(np.asarray(a) for a in args))
        out = np.empty(arrs[0].shape, out_dtype)
        for idx in np.ndindex(out.shape):
            out[idx] = fn(*(a[idx] for a in arrs))
        return out
    return f


def _d_op(op, mode):
    """A double operation exactly rounded: op on exact rationals, NaN and infinities as
    IEEE (numpy's round-to-nearest result, which a directed mode keeps)."""
    ieee = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}.get(op)

    def lane(*xs):
        vals = [_exact(x) for x in xs]
        with np.errstate(all="ignore"):
            if op == "fma":
                near = _F64(xs[0]) * _F64(xs[1]) + _F64(xs[2])
            elif op == "sqrt":
                near = np.sqrt(_F64(xs[0]))
            elif op == "rcp":
                near = _F64(1.0) / _F64(xs[0])
            else:
                near = ieee(_F64(xs[0]), _F64(xs[1]))
        if any(v is None for v in vals):
            return near
        if op == "sqrt":
            v = vals[0]
            if v < 0:
                return _F64(np.nan)
            if v == 0:
                return _F64(xs[0])                           # keeps -0.0
            r = np.sqrt(_F64(xs[0]))                         # IEEE: correctly rounded
            s = Fraction(float(r)) ** 2 - v                  # > 0: r above the exact root
            return _direct(r, s < 0, s > 0, mode, _F64)[()]
        if op in ("div", "rcp"):
            num, den = (Fraction(1), vals[0]) if op == "rcp" else vals
            if den == 0:
                return near
            v = num / den
        elif op == "fma":
            v = vals[0] * vals[1] + vals[2]
        else:
            v = {"add": vals[0] + vals[1], "sub": vals[0] - vals[1], "mul": vals[0] * vals[1]}[op]
        if v == 0:                                           # the sign of zero as IEEE gives it
            if op in ("add", "sub", "fma") and mode == "rd":
                x = _F64(xs[0]) * _F64(xs[1]) if op == "fma" else _F64(xs[0])
                y = _F64(xs[2]) if op == "fma" else (_F64(xs[1]) if op == "add" else -_F64(xs[1]))
                return _zero_sign(np.asarray(near), np.asarray(x), np.asarray(y), mode)[()]
            return near
        return _round_exact(v, mode, _F64)
    return _lanes(lane, _F64)


# -------------------------------------------------------------------- conversions

def _to_float(mode, dtype):
    """An integer (any width) or a double to float/double under ``mode``."""
    def lane(x):
        v = _exact(x)
        if v is None:
            return dtype(x)
        return _round_exact(v, mode, dtype)
    return _lanes(lane, dtype)


def _int32_to_float(mode):
    def f(x):
        x = np.asarray(x)
        wide = x.astype(_F64)                                # exact for 32-bit integers
        return _f32_from(wide, np.zeros_like(wide), mode) if mode != "rn" else wide.astype(_F32)
    return f


def _to_int(mode, dtype):
    """A float or double to an integer type under ``mode``, saturating as the GPU's F2I
    does, NaN giving 0 (``simt.ops.cast_value``)."""
    rnd = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}[mode]

    def f(x):
        from .ops import cast_value       # (ops imports this module's table)
        return cast_value(rnd(np.asarray(x)), dtype)
    return f


# ---------------------------------------------------------------------- the table

_I32, _U32, _I64, _U64 = np.int32, np.uint32, np.int64, np.uint64
# name -> (argument kinds, result dtype, function): kinds "f" float, "d" double, "i" int,
# "u" unsigned, "l" long long, "L" unsigned long long
ROUNDING: dict[str, tuple[str, type, object]] = {}
for _m in MODES:
    ROUNDING.update({
        f"__fadd_{_m}": ("ff", _F32, _fadd(_m)), f"__fsub_{_m}": ("ff", _F32, _fadd(_m, sub=True)),
        f"__fmul_{_m}": ("ff", _F32, _fmul(_m)), f"__fdiv_{_m}": ("ff", _F32, _fdiv(_m)),
        f"__frcp_{_m}": ("f", _F32, _fdiv(_m, one=True)), f"__fsqrt_{_m}": ("f", _F32, _fsqrt(_m)),
        f"__fmaf_{_m}": ("fff", _F32, _ffma(_m)),
        f"__dadd_{_m}": ("dd", _F64, _d_op("add", _m)), f"__dsub_{_m}": ("dd", _F64, _d_op("sub", _m)),
        f"__dmul_{_m}": ("dd", _F64, _d_op("mul", _m)), f"__ddiv_{_m}": ("dd", _F64, _d_op("div", _m)),
        f"__drcp_{_m}": ("d", _F64, _d_op("rcp", _m)), f"__dsqrt_{_m}": ("d", _F64, _d_op("sqrt", _m)),
        f"__fma_{_m}": ("ddd", _F64, _d_op("fma", _m)),
        f"__int2float_{_m}": ("i", _F32, _int32_to_float(_m)),
        f"__uint2float_{_m}": ("u", _F32, _int32_to_float(_m)),
        f"__ll2float_{_m}": ("l", _F32, _to_float(_m, _F32)),
        f"__ull2float_{_m}": ("L", _F32, _to_float(_m, _F32)),
        f"__ll2double_{_m}": ("l", _F64, _to_float(_m, _F64)),
        f"__ull2double_{_m}": ("L", _F64, _to_float(_m, _F64)),
        f"__double2float_{_m}": ("d", _F32, _to_float(_m, _F32)),
        f"__float2int_{_m}": ("f", _I32, _to_int(_m, _I32)),
        f"__float2uint_{_m}": ("f", _U32, _to_int(_m, _U32)),
        f"__float2ll_{_m}": ("f", _I64, _to_int(_m, _I64)),
        f"__float2ull_{_m}": ("f", _U64, _to_int(_m, _U64)),
        f"__double2int_{_m}": ("d", _I32, _to_int(_m, _I32)),
        f"__double2uint_{_m}": ("d", _U32, _to_int(_m, _U32)),
        f"__double2ll_{_m}": ("d", _I64, _to_int(_m, _I64)),
        f"__double2ull_{_m}": ("d", _U64, _to_int(_m, _U64)),
    })

# what each costs beyond an issue slot (``simt.machine.OP_COST``): the divisions, square
# roots and reciprocals in a directed mode run the IEEE paths of their round-to-nearest
# forms (a float reciprocal, MUFU.RCP and its fix-ups, is costed as sqrtf's MUFU.RSQ and
# fix-ups), the rest is one FADD/FMUL/FFMA/DADD/DMUL/DFMA or I2F/F2I with a rounding modifier
COST_KEY = {n: k for m in MODES for n, k in (
    (f"__fdiv_{m}", "fdiv"), (f"__frcp_{m}", "sqrt"), (f"__fsqrt_{m}", "sqrt"),
    (f"__ddiv_{m}", "ddiv"), (f"__drcp_{m}", "ddiv"), (f"__dsqrt_{m}", "m_sqrt_f8"))}
# the double additions, products and fused products, which issue on the FP64 pipe
FP64_PIPE = frozenset(f"__{op}_{m}" for op in ("dadd", "dsub", "dmul", "fma") for m in MODES)
