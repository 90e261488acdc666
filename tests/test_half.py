"""Half precision (``__half``, ``cuda_fp16.h``): every operator, intrinsic and conversion
bit for bit against an exact reference (each result is the exact value rounded once to
binary16, to nearest even, the NaN the GPU's canonical 0x7FFF), memory of 2-byte
elements (shared, global, atomics, counters), parameters, ``__half2``, the errors NVRTC
gives for mixed types, the command line, and the GPU."""
from __future__ import annotations

import bisect
import json
import math
from fractions import Fraction

import numpy as np
import pytest

import simt
from kern import gpu_or_skip, run
from simt import argspec
from simt.errors import CompileError, UsageError
from tui.cli import main

H = np.float16
NAN = 0x7FFF
# every finite non-negative half, as exact fractions, for rounding by bisection
_POS = np.arange(0, 0x7C00, dtype=np.uint16).view(H)
_FRAC = [Fraction(float(h)) for h in _POS]


def bits(a) -> np.ndarray:
    return np.asarray(a, H).view(np.uint16)


def round_half(q: Fraction, negative: bool) -> int:
    """The bits of the exact value q (sign given apart, for zeros) rounded to nearest even."""
    a = abs(q)
    i = bisect.bisect_left(_FRAC, a)
    if i < len(_FRAC) and _FRAC[i] == a:
        k = i
    elif i == len(_FRAC):                     # above 65504: the midpoint 65520 goes to inf
        k = 0x7C00 if a >= 65520 else 0x7BFF
    else:
        lo, hi = _FRAC[i - 1], _FRAC[i]
        k = i - 1 if a - lo < hi - a else i if a - lo > hi - a else (i - 1 if (i - 1) % 2 == 0 else i)
    return k | (0x8000 if negative else 0)


def exact(op, *xs) -> int:
    """What the GPU computes for op on halves xs: specials from double, finite results
    as the exact value rounded once (so this reference shares nothing with simt.ops)."""
    with np.errstate(all="ignore"):
        d = op(*(np.float64(x) for x in xs))
    if math.isnan(d):
        return NAN
    if math.isinf(d) or not all(math.isfinite(float(x)) for x in xs):
        return int(np.array(d, H).view(np.uint16))
    q = op(*(Fraction(float(x)) for x in xs))
    return round_half(q, bool(np.signbit(d)))


def specials() -> np.ndarray:
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.0, 3.0, 1 + 2**-10, 2048, 2049, 2050, 4096, 65504,
            -65504, 65519, 65520, 2**-24, -2**-24, 3 * 2**-24, 2**-14, 2**-14 - 2**-24, 0.1, 1 / 3,
            np.inf, -np.inf, np.nan]
    with np.errstate(over="ignore"):
        return np.array(vals, np.float64).astype(H)


def operands(n_random: int = 300, seed: int = 0):
    """Pairs (a, b) and a third operand c: every pair of the special values, then random
    bit patterns (subnormals, infinities and NaNs among them)."""
    s = specials()
    a, b = np.meshgrid(s, s)
    rng = np.random.default_rng(seed)
    r = rng.integers(0, 1 << 16, (3, n_random)).astype(np.uint16).view(H)
    a = np.concatenate([a.ravel(), r[0]])
    b = np.concatenate([b.ravel(), r[1]])
    c = np.concatenate([np.resize(s[::-1], a.size - n_random), r[2]])
    return a, b, c


def launch(src, kernel, n, args, block=128):
    return run(src, kernel, (n + block - 1) // block, block, args)


# ------------------------------------------------------------------ operators

OPS_SRC = r'''
#include <cuda_fp16.h>
extern "C" __global__ void ops(const __half *a, const __half *b, const __half *c, __half *o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = a[i], y = b[i], z = c[i];
    o[0 * n + i] = x + y;
    o[1 * n + i] = x - y;
    o[2 * n + i] = x * y;
    o[3 * n + i] = x / y;
    o[4 * n + i] = -x;
    o[5 * n + i] = x * y + z;          // one fma.rn.f16, as ptxas contracts it
    o[6 * n + i] = z - x * y;
    __half h = x;
    h += y;
    o[7 * n + i] = h;
    h = x;
    h -= y;
    o[8 * n + i] = h;
    h = x;
    h *= y;
    o[9 * n + i] = h;
    h = x;
    h /= y;
    o[10 * n + i] = h;
    h = z;
    h += x * y;                        // fma too
    o[11 * n + i] = h;
    h = x;
    h++;
    o[12 * n + i] = h;
    --h;
    o[13 * n + i] = h;
    o[14 * n + i] = +x;
}
'''


def test_operators_round_once_to_nearest_even_bit_for_bit():
    a, b, c = operands()
    n = a.size
    (_, _, _, o, _), _ = launch(OPS_SRC, "ops", n, [a, b, c, np.zeros(15 * n, H), np.int32(n)])
    o = bits(o).reshape(15, n)
    add, sub = (lambda x, y: x + y), (lambda x, y: x - y)
    mul, div = (lambda x, y: x * y), (lambda x, y: x / y)
    fma = (lambda x, y, z: x * y + z)
    want = {
        0: [exact(add, x, y) for x, y in zip(a, b)],
        1: [exact(sub, x, y) for x, y in zip(a, b)],
        2: [exact(mul, x, y) for x, y in zip(a, b)],
        3: [exact(div, x, y) for x, y in zip(a, b)],          # x/0 is inf, 0/0 NaN
        4: [int(v) ^ 0x8000 for v in bits(a)],
        5: [exact(fma, x, y, z) for x, y, z in zip(a, b, c)],
        6: [exact(lambda x, y, z: z - x * y, x, y, z) for x, y, z in zip(a, b, c)],
        11: [exact(fma, x, y, z) for x, y, z in zip(a, b, c)],
        12: [exact(add, x, H(1)) for x in a],
        14: [int(v) for v in bits(a)],
    }
    want[7], want[8], want[9], want[10] = want[0], want[1], want[2], want[3]
    want[13] = [exact(sub, x, y) for x, y in zip(o[12].view(H), [H(1)] * n)]
    for k, w in want.items():
        bad = np.flatnonzero(o[k] != np.array(w, np.uint16))
        assert bad.size == 0, (k, [(float(a[i]), float(b[i]), float(c[i]), hex(o[k][i]), hex(w[i]))
                                   for i in bad[:5]])


def test_rounding_cases_by_hand():
    """Ties to even, overflow to infinity at the midpoint 65520, subnormal results."""
    src = r'''
    #include <cuda_fp16.h>
    extern "C" __global__ void k(const __half *a, const __half *b, __half *add, __half *mul) {
        int i = threadIdx.x;
        add[i] = a[i] + b[i];
        mul[i] = a[i] * b[i];
    }'''
    a = np.array([2048, 2050, 65504, 65504, 2**-24, 3 * 2**-24, 1, 1 + 2**-10], H)
    b = np.array([1, 1, 16, 8, 0.5, 0.5, 2**-11, 2**-11], H)
    (_, _, add, mul), _ = run(src, "k", 1, 8, [a, b, np.zeros(8, H), np.zeros(8, H)])
    # 2048+1 ties to 2048 (even), 2050+1 to 2052; 65504+16 = 65520 ties to inf, +8 to 65504;
    # 1 + 2^-11 ties to 1, (1+2^-10) + 2^-11 ties up to 1+2^-9
    assert [hex(v) for v in bits(add)[[0, 1, 2, 3, 6, 7]]] == \
        ["0x6800", "0x6802", "0x7c00", "0x7bff", "0x3c00", "0x3c02"]
    # 2^-24 * 0.5 ties to 0 (even); 3 * 2^-24 * 0.5 = 1.5 * 2^-24 ties to 2 * 2^-24
    assert [hex(v) for v in bits(mul)[[4, 5]]] == ["0x0", "0x2"]
    # 256 * 256 overflows
    (_, _, _, mul), _ = run(src, "k", 1, 1, [np.array([256], H), np.array([256], H), np.zeros(1, H),
                                             np.zeros(1, H)])
    assert bits(mul)[0] == 0x7C00


def test_comparisons_follow_ieee_for_nan_and_signed_zero():
    src = r'''
    #include <cuda_fp16.h>
    extern "C" __global__ void cmp(const __half *a, const __half *b, int *o, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i >= n) return;
        __half x = a[i], y = b[i];
        o[0 * n + i] = x == y;  o[1 * n + i] = x != y;  o[2 * n + i] = x < y;
        o[3 * n + i] = x <= y;  o[4 * n + i] = x > y;   o[5 * n + i] = x >= y;
        o[6 * n + i] = __heq(x, y);  o[7 * n + i] = __hne(x, y);  o[8 * n + i] = __hlt(x, y);
        o[9 * n + i] = __hle(x, y);  o[10 * n + i] = __hgt(x, y); o[11 * n + i] = __hge(x, y);
        o[12 * n + i] = __hequ(x, y); o[13 * n + i] = __hneu(x, y); o[14 * n + i] = __hltu(x, y);
        o[15 * n + i] = __hleu(x, y); o[16 * n + i] = __hgtu(x, y); o[17 * n + i] = __hgeu(x, y);
        o[18 * n + i] = __hisnan(x);  o[19 * n + i] = __hisinf(x);
        o[20 * n + i] = x ? 1 : 0;    o[21 * n + i] = !y;
    }'''
    a, b, _ = operands(100)
    n = a.size
    (_, _, o, _), _ = launch(src, "cmp", n, [a, b, np.zeros(22 * n, np.int32), np.int32(n)])
    o = o.reshape(22, n)
    x, y = a.astype(np.float64), b.astype(np.float64)
    un = np.isnan(x) | np.isnan(y)
    ordered = [x == y, (x != y), x < y, x <= y, x > y, x >= y]
    assert all(np.array_equal(o[k], ordered[k]) for k in range(6))       # != is __hneu: true on NaN
    assert np.array_equal(o[6:12], np.array([x == y, (x < y) | (x > y), x < y, x <= y, x > y, x >= y]))
    assert np.array_equal(o[12:18], np.array([(x == y) | un, (x != y), (x < y) | un, (x <= y) | un,
                                              (x > y) | un, (x >= y) | un]))
    assert np.array_equal(o[18], np.isnan(x))
    assert np.array_equal(o[19], np.where(np.isinf(x), np.sign(x), 0))
    assert np.array_equal(o[20], (bits(a) & 0x7FFF) != 0)             # operator bool: NaN is true
    assert np.array_equal(o[21], (bits(b) & 0x7FFF) == 0)
    assert o[0][(bits(a) == 0x8000) & (bits(b) == 0)].all()             # -0 == +0


# ----------------------------------------------------------------- intrinsics

INTR_SRC = r'''
#include <cuda_fp16.h>
extern "C" __global__ void intr(const __half *a, const __half *b, const __half *c, __half *o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = a[i], y = b[i], z = c[i];
    o[0 * n + i] = __hadd(x, y);     o[1 * n + i] = __hsub(x, y);
    o[2 * n + i] = __hmul(x, y);     o[3 * n + i] = __hdiv(x, y);
    o[4 * n + i] = __hneg(x);        o[5 * n + i] = __hfma(x, y, z);
    o[6 * n + i] = __habs(x);        o[7 * n + i] = __hmax(x, y);
    o[8 * n + i] = __hmin(x, y);     o[9 * n + i] = __hmax_nan(x, y);
    o[10 * n + i] = __hmin_nan(x, y); o[11 * n + i] = __hadd_sat(x, y);
    o[12 * n + i] = __hfma_relu(x, y, z); o[13 * n + i] = __hadd_rn(x, __hmul_rn(y, z));
    o[14 * n + i] = __hadd(x, __hmul(y, z));     // contracted like the operators
    o[15 * n + i] = __hsub(__hmul(x, y), z);
}
'''


def _maxnum(x, y, larger):
    """__hmax / __hmin: a NaN operand gives the other, two give NaN; +0 > -0."""
    fx, fy = float(x), float(y)
    if math.isnan(fx) and math.isnan(fy):
        return NAN
    if math.isnan(fx):
        return int(bits(y))
    if math.isnan(fy):
        return int(bits(x))
    if fx == fy == 0:
        neg = (np.signbit(x) and np.signbit(y)) if larger else (np.signbit(x) or np.signbit(y))
        return 0x8000 if neg else 0
    return int(bits(x if (fx > fy) == larger else y))


def test_arithmetic_intrinsics_bit_for_bit():
    a, b, c = operands(200, seed=1)
    n = a.size
    (_, _, _, o, _), _ = launch(INTR_SRC, "intr", n, [a, b, c, np.zeros(16 * n, H), np.int32(n)])
    o = bits(o).reshape(16, n)
    add = lambda x, y: x + y  # noqa: E731
    mul = lambda x, y: x * y  # noqa: E731
    fma = lambda x, y, z: x * y + z  # noqa: E731

    def sat(v):
        f = float(np.uint16(v).view(H))
        return 0 if math.isnan(f) or f <= 0 else 0x3C00 if f >= 1 else v

    def relu(v):
        f = float(np.uint16(v).view(H))
        return v if math.isnan(f) or f > 0 else 0 if f < 0 else v

    for k, w in {
        0: [exact(add, x, y) for x, y in zip(a, b)],
        2: [exact(mul, x, y) for x, y in zip(a, b)],
        4: [int(v) ^ 0x8000 for v in bits(a)],
        5: [exact(fma, x, y, z) for x, y, z in zip(a, b, c)],
        6: [int(v) & 0x7FFF for v in bits(a)],
        7: [_maxnum(x, y, True) for x, y in zip(a, b)],
        8: [_maxnum(x, y, False) for x, y in zip(a, b)],
        9: [NAN if math.isnan(float(x)) or math.isnan(float(y)) else _maxnum(x, y, True) for x, y in zip(a, b)],
        10: [NAN if math.isnan(float(x)) or math.isnan(float(y)) else _maxnum(x, y, False) for x, y in zip(a, b)],
        11: [sat(exact(add, x, y)) for x, y in zip(a, b)],
        12: [relu(exact(fma, x, y, z)) for x, y, z in zip(a, b, c)],
        13: [exact(add, x, np.uint16(exact(mul, y, z)).view(H)) for x, y, z in zip(a, b, c)],
        14: [exact(lambda x, y, z: x + y * z, x, y, z) for x, y, z in zip(a, b, c)],
        15: [exact(lambda x, y, z: x * y - z, x, y, z) for x, y, z in zip(a, b, c)],
    }.items():
        bad = np.flatnonzero(o[k] != np.array(w, np.uint16))
        assert bad.size == 0, (k, [(float(a[i]), float(b[i]), float(c[i]), hex(o[k][i]), hex(w[i]))
                                   for i in bad[:5]])
    assert np.array_equal(o[1], [exact(lambda x, y: x - y, x, y) for x, y in zip(a, b)])
    assert np.array_equal(o[3], [exact(lambda x, y: x / y, x, y) for x, y in zip(a, b)])


def test_the_integer_hadd_is_still_the_halving_add():
    src = r'''
    #include <cuda_fp16.h>
    extern "C" __global__ void k(int *o, __half *h) {
        o[0] = __hadd(7, 10);
        h[0] = __hadd(h[1], h[2]);
    }'''
    (o, h), _ = run(src, "k", 1, 1, [np.zeros(1, np.int32), np.array([0, 1.5, 2.25], H)])
    assert o[0] == 8 and h[0] == H(3.75)


CONV_SRC = r'''
#include <cuda_fp16.h>
extern "C" __global__ void conv(const float *f, const int *k, const __half *h, __half *oh,
                                int *oi, float *of, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = f[i];
    oh[0 * n + i] = __float2half(x);      oh[1 * n + i] = __float2half_rn(x);
    oh[2 * n + i] = __float2half_rz(x);   oh[3 * n + i] = __float2half_rd(x);
    oh[4 * n + i] = __float2half_ru(x);
    __half a = x;                         // construction from float rounds to nearest even
    oh[5 * n + i] = a;
    a = 0;
    a = x;                                // so does assignment
    oh[6 * n + i] = a;
    oh[7 * n + i] = (__half)x;            oh[8 * n + i] = __half(x);
    oh[9 * n + i] = __int2half_rn(k[i]);  oh[10 * n + i] = __int2half_rz(k[i]);
    oh[11 * n + i] = k[i];                oh[12 * n + i] = __double2half((double)x * 1.0000001);
    oh[13 * n + i] = __ushort_as_half((unsigned short)k[i]);
    oh[14 * n + i] = __uint2half_ru((unsigned)k[i]);
    __half y = h[i];
    of[0 * n + i] = __half2float(y);      of[1 * n + i] = (float)y;
    of[2 * n + i] = float(y);             float g = y;   of[3 * n + i] = g;
    oi[0 * n + i] = __half2int_rz(y);     oi[1 * n + i] = __half2int_rn(y);
    oi[2 * n + i] = __half2int_rd(y);     oi[3 * n + i] = __half2int_ru(y);
    oi[4 * n + i] = (int)y;               int m = y;  oi[5 * n + i] = m;
    oi[6 * n + i] = __half2uint_rz(y);    oi[7 * n + i] = __half_as_ushort(y);
    oi[8 * n + i] = __half2short_rn(y);   oi[9 * n + i] = __half2char_rz(y);
}
'''


def _round_dir(x: float, mode: str) -> int:
    """x (a double) rounded to half toward zero, down or up (or to nearest even)."""
    if math.isnan(x):
        return NAN
    if math.isinf(x):
        return 0x7C00 | (0x8000 if x < 0 else 0)
    q = Fraction(x)
    neg = math.copysign(1, x) < 0
    if mode == "rn":
        return round_half(q, neg)
    a = abs(q)
    i = bisect.bisect_right(_FRAC, a) - 1          # the largest half <= |x|
    k = i
    up = (mode == "ru" and not neg) or (mode == "rd" and neg)
    if _FRAC[i] != a and up:
        k = 0x7C00 if i == len(_FRAC) - 1 else i + 1
    return k | (0x8000 if neg else 0)


def test_conversions():
    rng = np.random.default_rng(2)
    f = np.concatenate([np.array([0.1, -0.1, 1 / 3, 2049, 2051, 65519, 65520, 65536, 1e6, -1e6, 2**-25,
                                  3 * 2**-25, 2**-26, -2**-25, 1e-10, -0.0, np.inf, -np.inf, np.nan]),
                        rng.standard_normal(200) * np.exp2(rng.integers(-26, 18, 200))]).astype(np.float32)
    k = np.concatenate([np.array([0, 1, -1, 2049, 2051, 65519, 65520, -70000, 2**31 - 1, -2**31]),
                        rng.integers(-100000, 100000, f.size - 10)]).astype(np.int32)
    h = np.concatenate([specials(), np.array([2.5, 3.5, -2.5, -2.7, 2.7, 300, -300], H),
                        rng.integers(0, 1 << 16, f.size - 34).astype(np.uint16).view(H)])
    n = f.size
    (_, _, _, oh, oi, of, _), _ = launch(CONV_SRC, "conv", n, [
        f, k, h, np.zeros(15 * n, H), np.zeros(10 * n, np.int32), np.zeros(4 * n, np.float32), np.int32(n)])
    oh, oi, of = bits(oh).reshape(15, n), oi.reshape(10, n), of.reshape(4, n)
    rn = [_round_dir(float(x), "rn") for x in f]
    for row in (0, 1, 5, 6, 7, 8):
        assert np.array_equal(oh[row], rn), row
    for row, mode in ((2, "rz"), (3, "rd"), (4, "ru")):
        want = [_round_dir(float(x), "ru" if mode == "rz" and x < 0 else "rd" if mode == "rz" else mode)
                for x in f]
        assert np.array_equal(oh[row], want), (mode, [(float(x), hex(g), hex(w)) for x, g, w in
                                                      zip(f, oh[row], want) if g != w][:5])
    ki = [_round_dir(float(v), "rn") for v in k]
    assert np.array_equal(oh[9], ki) and np.array_equal(oh[11], ki)
    assert [hex(v) for v in oh[9][[3, 4, 5, 6, 7]]] == ["0x6800", "0x6802", "0x7bff", "0x7c00", "0xfc00"]
    assert np.array_equal(oh[10], [_round_dir(float(v), "ru" if v < 0 else "rd") for v in k])
    assert np.array_equal(oh[12], [_round_dir(float(np.float64(x) * 1.0000001), "rn") for x in f])
    assert np.array_equal(oh[13], k.astype(np.uint16))
    assert np.array_equal(oh[14], [_round_dir(float(np.uint32(v)), "ru") for v in k])
    hf = h.astype(np.float64)
    with np.errstate(invalid="ignore"):
        widened = hf.astype(np.float32)
    for row in range(4):                  # widening is exact (NaNs compared as NaNs)
        np.testing.assert_array_equal(of[row], widened)

    def sat_int(v, lo, hi):               # the GPU's cvt: saturate, NaN gives 0
        return np.where(np.isnan(v), 0, np.clip(np.nan_to_num(v, posinf=hi, neginf=lo), lo, hi)).astype(np.int64)
    i32 = (-2**31, 2**31 - 1)
    with np.errstate(invalid="ignore"):
        for row, fn in ((0, np.trunc), (1, np.rint), (2, np.floor), (3, np.ceil), (4, np.trunc), (5, np.trunc)):
            assert np.array_equal(oi[row], sat_int(fn(hf), *i32)), row
        assert np.array_equal(oi[6].astype(np.uint32), sat_int(np.trunc(hf), 0, 2**32 - 1).astype(np.uint32))
        assert np.array_equal(oi[7], bits(h))
        assert np.array_equal(oi[8], sat_int(np.rint(hf), -2**15, 2**15 - 1))
        assert np.array_equal(oi[9], sat_int(np.trunc(hf), -128, 127))
    assert list(oi[1][27:30]) == [2, 4, -2]            # rn: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2


def test_math_functions_are_correctly_rounded_halves():
    src = r'''
    #include <cuda_fp16.h>
    extern "C" __global__ void m(const __half *a, __half *o, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i >= n) return;
        __half x = a[i];
        o[0 * n + i] = hsqrt(x);  o[1 * n + i] = hexp(x);   o[2 * n + i] = hlog(x);
        o[3 * n + i] = hrsqrt(x); o[4 * n + i] = hrcp(x);   o[5 * n + i] = htrunc(x);
        o[6 * n + i] = hceil(x);  o[7 * n + i] = hfloor(x); o[8 * n + i] = hrint(x);
        o[9 * n + i] = hexp2(x);  o[10 * n + i] = hlog2(x); o[11 * n + i] = hsin(x);
    }'''
    a = np.concatenate([specials(), np.arange(0x3000, 0x4C00, 7, dtype=np.uint16).view(H)])
    n = a.size
    (_, o, _), _ = launch(src, "m", n, [a, np.zeros(12 * n, H), np.int32(n)])
    o = bits(o).reshape(12, n)
    x = a.astype(np.float64)
    with np.errstate(all="ignore"):
        refs = [np.sqrt(x), np.exp(x), np.log(x), 1 / np.sqrt(x), 1 / x, np.trunc(x), np.ceil(x),
                np.floor(x), np.rint(x), np.exp2(x), np.log2(x), np.sin(x)]
    for row, r in enumerate(refs):
        want = [_round_dir(float(v), "rn") for v in r]
        assert np.array_equal(o[row], want), row
    assert list(o[8][[4, 5]]) == [0x0000, 0x4000]       # rint: 0.5 -> 0, 1.5 -> 2 (to even)


# ----------------------------------------------------------------- memory

def test_shared_memory_tree_reduction_in_half():
    """GPU_SRC's hreduce (which the gpu test runs on the GPU too) against numpy."""
    rng = np.random.default_rng(4)
    x = rng.uniform(0, 1, 4 * 256).astype(H)
    (_, out), res = run(GPU_SRC, "hreduce", 4, 256, [x, np.zeros(4, H)])
    s = x.reshape(4, 256).copy()
    st = 128
    while st:
        s[:, :st] = s[:, :st] + s[:, st:2 * st]       # numpy float16: one rounding per add
        st //= 2
    assert np.array_equal(bits(out), bits(s[:, 0]))
    m = res.metrics
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"] == 0
    assert not res.sanitizer


def test_stepping_a_half_kernel_equals_a_run_and_shows_half_values():
    src = r'''
    #include <cuda_fp16.h>
    extern "C" __global__ void k(const __half *x, __half *y) {
        __shared__ __half s[64];
        int t = threadIdx.x;
        __half v = x[t] * __float2half(0.5f);
        s[t] = v;
        __syncthreads();
        y[t] = s[63 - t] + v;
    }'''
    x = (np.arange(64) - 20.25).astype(H)

    def launch_():
        mod = simt.Module.from_source(src, "s.cu")
        dev = simt.Device()
        dx, dy = dev.to_device(x), dev.zeros(64, H)
        return mod.get_function("k").prepare(dev, simt.LaunchConfig.of(1, 64), [dx, dy]), dy

    ln, dy = launch_()
    st = simt.Stepper(ln)
    ev = st.run_until(lambda e: e.line == 7)
    vals = st.values(ev.block, "v")
    assert vals.dtype == H and np.array_equal(bits(vals[:32]), bits(x[:32] * H(0.5)))
    while st.step() is not None:
        pass
    ln2, dy2 = launch_()
    res = ln2.run()
    v = x * H(0.5)
    assert np.array_equal(bits(dy.get()), bits(dy2.get())) and np.array_equal(bits(dy.get()), bits(v[::-1] + v))
    assert st.result().metrics == res.metrics and not res.sanitizer


def test_racecheck_tells_neighbouring_halves_from_one_half():
    """Threads writing the two halves of one 4-byte word do not race (compute-sanitizer
    checks bytes); two threads writing one half without a barrier do."""
    src = r'''
    #include <cuda_fp16.h>
    extern "C" __global__ void k(__half *y, int racy) {
        __shared__ __half s[64];
        int t = threadIdx.x;
        s[t] = __int2half_rn(t);
        if (racy) s[t / 2] = y[t];
        __syncthreads();
        y[t] = s[t];
    }'''
    (_, _), res = run(src, "k", 1, 64, [np.zeros(64, H), np.int32(0)])
    assert res.sanitizer == []
    (_, _), res = run(src, "k", 1, 64, [np.zeros(64, H), np.int32(1)])
    kinds = {(f.tool, f.kind, f.line, f.line2) for f in res.sanitizer}
    assert ("racecheck", "WAW hazard", 7, 7) in kinds and ("racecheck", "WAW hazard", 7, 6) in kinds


def test_shared_wavefronts_and_global_sectors_use_two_byte_elements():
    src = r'''
    #include <cuda_fp16.h>
    extern "C" __global__ void k(const __half *x, __half *y, int stride) {
        __shared__ __half s[32 * 64];
        int t = threadIdx.x;
        s[t] = x[t];                   // 32 lanes, 64 bytes: 16 words, one wavefront
        s[t * stride] = x[t];          // stride 64 halves = 128 bytes: one bank, 32 words
        __syncthreads();
        y[t] = s[t];
    }'''
    x = np.arange(32).astype(H)
    (_, y, _), res = run(src, "k", 1, 32, [x, np.zeros(32, H), np.int32(64)])
    assert np.array_equal(y, x)
    m = res.metrics
    assert m["smsp__inst_executed_op_shared_st.sum"] == 2
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] == 1 + 32
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"] == 31
    # a warp's 32 halves are 64 bytes: 2 sectors per request
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == 2
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] == 1


HALF2_ATOMIC = r'''
#include <cuda_fp16.h>
extern "C" __global__ void k2(__half2 *acc, const __half2 *x, __half2 *olds, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) olds[i] = atomicAdd(&acc[i % 4], __hmul2(x[i], x[i]));
}'''


def _half2_atomic_args(n=1024):
    x = np.random.default_rng(11).integers(-3, 4, 2 * n).astype(H)   # squares 0..9: sums exact
    return [np.zeros(8, H), x, np.zeros(2 * n, H), np.int32(n)], x


def test_half2_atomic_add_adds_each_half_on_its_own():
    """atomicAdd(__half2 *, __half2): each half of the word added atomically (CUDA promises
    no more), the old pair returned."""
    args, x = _half2_atomic_args()
    (acc, _, olds, _), _ = run(HALF2_ATOMIC, "k2", 4, 256, args)
    sq = (x.astype(np.float64) ** 2).reshape(-1, 4, 2)      # thread i adds to acc[i % 4]
    assert acc.astype(np.float64).tolist() == sq.sum(axis=0).reshape(-1).tolist()
    # each element's olds are the running sums of its adds in some order: all distinct
    # prefixes of one order, the largest below the total
    o = olds.astype(np.float64).reshape(-1, 4, 2)
    assert (o <= sq.sum(axis=0)).all() and (o >= 0).all()


def test_ldg_shuffle_atomics_and_by_value_half_parameter():
    src = r'''
    #include <cuda_fp16.h>
    extern "C" __global__ void k(const __half *__restrict__ x, __half *y, __half *sum, __half a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i >= n) return;
        __half v = __ldg(&x[i]);
        y[i] = a * v;
        __half w = v;
        for (int off = 16; off > 0; off >>= 1) w += __shfl_xor_sync(0xffffffff, w, off);
        if ((i & 31) == 0) y[n + i / 32] = w;
        atomicAdd(&sum[0], __float2half(1.0f));
        __half old = atomicAdd(&sum[1], v);
        y[n + 8 + i] = old;
    }'''
    rng = np.random.default_rng(5)
    x = rng.integers(-8, 9, 256).astype(H)            # small integers: every sum exact
    a = 0.1                                          # a Python float: rounds to half 0.1
    (_, y, sm, _, _), res = run(src, "k", 8, 32, [x, np.zeros(256 + 8 + 256, H), np.zeros(2, H), a,
                                                  np.int32(256)])
    assert np.array_equal(bits(y[:256]), bits(x * H(0.1)))
    w = x.reshape(8, 32).astype(np.float64)
    assert np.array_equal(y[256:264], w.sum(axis=1))
    assert sm[0] == 256 and sm[1] == x.astype(np.float64).sum()
    olds = np.sort(y[264:].astype(np.float64))
    assert olds.size == 256 and sm[1] in set(np.cumsum(x.astype(np.float64)))
    assert res.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"] == 8
    assert res.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"] == 8


def test_struct_member_constant_table_local_array_and_template():
    src = r'''
    #include <cuda_fp16.h>
    struct P { __half scale; int n; __half bias; };
    __constant__ __half lut[4] = {0.5f, 1.0f, 1.5f, 0.1f};
    template <typename T> __device__ T twice(T v) { return v + v; }
    extern "C" __global__ void k(const __half *x, __half *y, P p) {
        int i = threadIdx.x;
        if (i >= p.n) return;
        __half loc[2] = {x[i], __float2half(0.25f)};
        y[i] = twice(loc[0]) * lut[i % 4] + p.scale * p.bias + loc[1];
    }'''
    x = np.arange(-8, 8).astype(H)
    (_, y, _), _ = run(src, "k", 1, 16, [x, np.zeros(16, H), {"scale": 0.5, "n": 16, "bias": 3}])
    lut = np.array([0.5, 1, 1.5, 0.1], np.float32).astype(H)
    want = [exact(lambda a, b, c: a * b + c, t, l, H(1.5)) for t, l in zip(x + x, lut[np.arange(16) % 4])]
    want = [exact(lambda a, b: a + b, np.uint16(w).view(H), H(0.25)) for w in want]
    assert np.array_equal(bits(y), np.array(want, np.uint16))
    # C's layout: __half at 0, int at 4, __half at 8, 12 bytes in all
    assert simt.Module.from_source(src, "t.cu").get_function("k").params[2].ctype.size == 12


def test_half2_pairs():
    src = r'''
    #include <cuda_fp16.h>
    extern "C" __global__ void k(const __half2 *a, const __half2 *b, __half2 *o, float2 *f, __half2 s) {
        int i = threadIdx.x;
        __half2 x = a[i], y = b[i];
        o[0 * 32 + i] = x + y;
        o[1 * 32 + i] = __hmul2(x, y);
        o[2 * 32 + i] = x * y + s;
        o[3 * 32 + i] = __halves2half2(__high2half(x), __low2half(y));
        o[4 * 32 + i] = __floats2half2_rn(__low2float(x) + 0.1f, 2.0f);
        f[i] = __half22float2(x);
        o[5 * 32 + i] = __shfl_xor_sync(0xffffffff, x, 1);
        __half2 acc = __half2half2(__float2half(1.0f));
        acc -= x * y;
        o[6 * 32 + i] = -acc;
        __half2 z = make_half2(x.x, y.y);
        z.x = z.x * s.y;
        o[7 * 32 + i] = z;
        o[8 * 32 + i] = __hsub2(__hmul2(x, y), s);     // one fma per half
        z++;
        o[9 * 32 + i] = z;
    }'''
    rng = np.random.default_rng(6)
    a = rng.standard_normal(64).astype(H)
    b = rng.standard_normal(64).astype(H)
    (_, _, o, f, _), _ = run(src, "k", 1, 32, [a, b, np.zeros(10 * 64, H), np.zeros(64, np.float32), (0.5, -2.0)])
    o = bits(o).reshape(10, 32, 2)
    a2, b2 = a.reshape(32, 2), b.reshape(32, 2)
    s = np.array([0.5, -2.0], H)
    add = np.vectorize(lambda x, y: exact(lambda p, q: p + q, x, y))
    mul = np.vectorize(lambda x, y: exact(lambda p, q: p * q, x, y))
    fma = np.vectorize(lambda x, y, z: exact(lambda p, q, r: p * q + r, x, y, z))
    assert np.array_equal(o[0], add(a2, b2)) and np.array_equal(o[1], mul(a2, b2))
    assert np.array_equal(o[2], fma(a2, b2, s))
    assert np.array_equal(o[3], bits(np.stack([a2[:, 1], b2[:, 0]], 1)))
    assert np.array_equal(o[4][:, 0], [_round_dir(float(np.float32(v) + np.float32(0.1)), "rn") for v in a2[:, 0]])
    assert (o[4][:, 1] == 0x4000).all()
    np.testing.assert_array_equal(f, a.astype(np.float32))
    assert np.array_equal(o[5], bits(a2[np.arange(32) ^ 1]))
    # acc = 1 - x*y is one fma; -acc flips its sign
    assert np.array_equal(o[6], np.vectorize(lambda x, y: exact(lambda p, q: 1 - p * q, x, y))(a2, b2) ^ 0x8000)
    assert np.array_equal(o[7], np.stack([mul(a2[:, 0], H(-2.0)), bits(b2[:, 1])], 1))
    assert np.array_equal(o[8], np.vectorize(lambda x, y, z: exact(lambda p, q, r: p * q - r, x, y, z))(a2, b2, s))
    assert np.array_equal(o[9], add(o[7].view(H), H(1)))


# ------------------------------------------------------------------ errors

@pytest.mark.parametrize("body,at,words", [
    ("__half h = a[0]; a[1] = h + 1.0f;", "h + 1", ('"+"', "__half + float")),
    ("__half h = a[0]; a[1] = h * 2;", "h * 2", ('"*"', "__half * int")),
    ("if (a[0] < 0) a[1] = a[0];", "a[0] <", ('"<"', "__half < int")),
    ("float f = 1.0f; f += a[0]; a[1] = f;", "f +=", ('"+="', "float += __half")),
    ("double d = 2.0; a[1] = d - a[0];", "d - ", ('"-"', "double - __half")),
    ("a[1] = a[0] % a[0];", "a[0] %", ('"%"', "__half % __half")),
    ("a[1] = n ? a[0] : 1.0f;", "n ?", ("incompatible",)),
    ("a[1] = min(a[0], a[1]);", "min", ('"min"', "__hmin")),
    ("a[1] = __hadd(a[0], 1);", "__hadd", ('"__hadd"',)),
    ('printf("%f", a[0]);', "a[0]", ("__half2float",)),
    ("__half2 v = __half2half2(a[0]); v = v + a[0];", "v + ", ("__half2 + __half",)),
    ("__half2 v = __half2half2(a[0]); if (v == v) n = 1;", "v ==", ("not supported yet",)),
])
def test_mixing_half_with_other_types_is_an_error_naming_its_place(body, at, words):
    src = '#include <cuda_fp16.h>\nextern "C" __global__ void k(__half *a, int n) {\n    ' + body + '\n}\n'
    with pytest.raises(CompileError) as e:
        simt.Module.from_source(src, "mix.cu").get_function("k")
    msg = str(e.value)
    assert msg.startswith(f"mix.cu:3:{5 + body.index(at)}:"), msg
    assert all(w in msg for w in words), msg


def test_what_cuda_fp16_allows_without_a_cast():
    """Conversions to one named type (initialization, assignment, arguments, return,
    compound assignment to a half) are implicit; so is a half as a condition."""
    src = r'''
    #include <cuda_fp16.h>
    __device__ float twice(float v) { return 2.0f * v; }
    __device__ __half third(__half v) { return v / __half(3); }
    extern "C" __global__ void k(__half *a, float *f, int *i) {
        __half h = 0.1;                 // double -> half
        h += 1;                         // operator+=(__half &, const __half &): 1 -> half
        h *= 0.5f;
        f[0] = twice(h);                // half -> float argument
        f[1] = h;
        i[0] = h;                       // operator int(): toward zero
        a[0] = third(3);                // int -> half argument
        a[1] = h ? h : a[0];
        if (!a[2]) i[1] = 7;
        a[3] = CUDART_INF_FP16;
        a[4] = -CUDART_MAX_NORMAL_FP16;
        __shared__ __half s[2];
        if (threadIdx.x == 0) s[0] = CUDART_ZERO_FP16;
        __syncthreads();
        atomicAdd(&s[0], CUDART_ONE_FP16);
        __syncthreads();
        a[5] = s[0];
    }'''
    (a, f, i), res = run(src, "k", 1, 32, [np.zeros(6, H), np.zeros(2, np.float32), np.zeros(2, np.int32)])
    h = np.float16(np.float16(np.float16(0.1) + np.float16(1)) * np.float16(0.5))
    assert f[0] == 2 * np.float32(h) and f[1] == np.float32(h) and i[0] == 0 and i[1] == 7
    assert a[0] == H(1) and bits(a[1]) == bits(h)
    assert list(bits(a[3:6])) == [0x7C00, 0xFBFF, 0x5000]            # inf, -65504, 32.0
    assert not [f for f in res.sanitizer if f.tool == "racecheck"]    # (32 threads write a[]: global)


def test_half_kernel_errors_at_launch_are_usage_errors():
    src = '#include <cuda_fp16.h>\nextern "C" __global__ void k(__half *a, __half s) { a[0] = s; }'
    mod = simt.Module.from_source(src, "t.cu")
    dev = simt.Device()
    d = dev.to_device(np.zeros(1, H))
    mod.get_function("k").launch(dev, simt.LaunchConfig.of(1, 1), [d, 65504])
    assert d.get()[0] == H(65504)
    with pytest.raises(UsageError):
        mod.get_function("k").launch(dev, simt.LaunchConfig.of(1, 1), [d, "x"])


# -------------------------------------------------------------- command line

AXPY_CU = """\
#include <cuda_fp16.h>
extern "C" __global__ void axpy(const __half *x, __half *y, __half a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def test_argspec_takes_half_arrays_and_scalars():
    s = argspec.parse("half[4]=[1,2.5,65504,0.1]")
    assert s.dtype == np.float16 and s.build().dtype == np.float16
    assert argspec.make_arg("__half=0.1") == H(0.1) and argspec.make_arg("__half=0.1").dtype == H
    g = argspec.make_arg("float16[8]=uniform(-1,1)", np.random.default_rng(1))
    assert g.dtype == H and np.array_equal(g, np.random.default_rng(1).uniform(-1, 1, 8).astype(H))
    with pytest.raises(UsageError, match="overflows"):
        argspec.parse("half=70000")
    with pytest.raises(UsageError, match="float16"):
        argspec.parse("half[2]=[1,1e6]")


def test_cli_runs_a_half_kernel(tmp_path, capsys):
    p = tmp_path / "axpy.cu"
    p.write_text(AXPY_CU)
    dest = tmp_path / "y.npy"
    rc = main(["run", str(p), "--kernel", "axpy", "--grid", "4", "--block", "256",
               "--arg", "half[1000]=uniform", "--arg", "__half[1000]=ones", "--arg", "half=0.1",
               "--arg", "1000", "--seed", "3", "--out", f"y={dest}"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    x = np.random.default_rng(3).uniform(0, 1, 1000).astype(H)
    y = np.load(dest)
    want = [exact(lambda a, b, c: a * b + c, H(0.1), v, H(1)) for v in x]
    assert y.dtype == H and np.array_equal(bits(y), np.array(want, np.uint16))
    assert "float16[1000]" in out and "(written)" in out
    rc = main(["run", str(p), "--grid", "1", "--block", "64", "--arg", "float16[64]=arange",
               "--arg", "[64]=ones", "--arg", "2", "--arg", "64", "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    doc = json.loads(out)
    ya = doc["arrays"][1]
    assert ya["dtype"] == "float16" and ya["first"][:3] == [1.0, 3.0, 5.0] and ya["changed"]
    assert doc["metrics"]["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == 4   # 128 bytes
    # a float32 array for a __half pointer, and a value that overflows a half: one line, exit 2
    rc = main(["run", str(p), "--grid", "1", "--block", "64", "--arg", "float32[64]=ones",
               "--arg", "half[64]=ones", "--arg", "2", "--arg", "64"])
    out, err = capsys.readouterr()
    assert rc == 2 and "float16" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    rc = main(["run", str(p), "--grid", "1", "--block", "64", "--arg", "half[64]=ones",
               "--arg", "half[64]=ones", "--arg", "1e6", "--arg", "64"])
    out, err = capsys.readouterr()
    assert rc == 2 and "overflows" in err


def test_cli_half2_by_value(tmp_path, capsys):
    p = tmp_path / "h2.cu"
    p.write_text('#include <cuda_fp16.h>\nextern "C" __global__ void s2(__half2 *v, half2 s) '
                 '{ v[threadIdx.x] = v[threadIdx.x] * s; }\n')
    rc = main(["run", str(p), "--grid", "1", "--block", "8", "--arg", "half[8x2]=arange",
               "--arg", "half2={2,0.5}", "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert json.loads(out)["arrays"][0]["first"][:4] == [0.0, 0.5, 4.0, 1.5]


def test_cli_mixed_types_exit_2_with_the_place(tmp_path, capsys):
    p = tmp_path / "bad.cu"
    p.write_text('#include <cuda_fp16.h>\nextern "C" __global__ void k(__half *a) {\n'
                 '    a[0] = a[1] + 1.0f;\n}\n')
    rc = main(["run", str(p), "--grid", "1", "--block", "1", "--arg", "half[2]=ones"])
    out, err = capsys.readouterr()
    assert rc == 2 and f"{p}:3:12: error: more than one operator" in err and "Traceback" not in err


def test_cupy_backend_reads_half_parameters_without_a_gpu():
    from kernels_cuda.cupy_backend import fp16_options, kernel_params
    ps = kernel_params(AXPY_CU, "axpy")
    assert [str(p.dtype) for p in ps] == ["float16", "float16", "float16", "int32"]
    assert ps[0].is_const and not ps[2].is_pointer
    assert fp16_options(AXPY_CU) == ()                   # the include reaches NVRTC as written
    assert fp16_options(AXPY_CU.replace("#include <cuda_fp16.h>", "")) == ("--pre-include=cuda_fp16.h",)
    assert fp16_options('extern "C" __global__ void k(float *a) { }') == ()


# ----------------------------------------------------------------------- GPU

GPU_SRC = r'''
#include <cuda_fp16.h>
extern "C" __global__ void hk(const __half *a, const __half *b, const __half *c, const float *f,
                              __half *o, int *oi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = a[i], y = b[i], z = c[i];
    o[0 * n + i] = x + y;            o[1 * n + i] = x - y;
    o[2 * n + i] = x * y;            o[3 * n + i] = x / y;
    o[4 * n + i] = x * y + z;        o[5 * n + i] = __hfma(x, y, z);
    o[6 * n + i] = __hmax(x, y);     o[7 * n + i] = __hmin_nan(x, y);
    o[8 * n + i] = __float2half(f[i]);  o[9 * n + i] = __float2half_rz(f[i]);
    o[10 * n + i] = __float2half_rd(f[i]); o[11 * n + i] = __float2half_ru(f[i]);
    o[12 * n + i] = __int2half_rn((int)(f[i] * 4096.0f));
    o[13 * n + i] = __hadd_sat(x, y);  o[14 * n + i] = -x;
    __half h = z;
    h += x * y;
    o[15 * n + i] = h;
    o[16 * n + i] = __hadd(z, __hmul(x, y));
    o[17 * n + i] = __hadd_rn(z, __hmul_rn(x, y));
    oi[0 * n + i] = x < y;           oi[1 * n + i] = x != y;
    oi[2 * n + i] = __half2int_rz(x); oi[3 * n + i] = __half2int_rn(x);
    oi[4 * n + i] = __hne(x, y);     oi[5 * n + i] = __hisinf(x);
}

extern "C" __global__ void hreduce(const __half *x, __half *out) {
    __shared__ __half s[256];
    unsigned t = threadIdx.x;
    s[t] = x[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
'''


@pytest.mark.gpu
def test_half_kernels_match_the_gpu_bit_for_bit(tmp_path):
    gpu_or_skip()
    from kernels_cuda import crosscheck
    p = tmp_path / "half.cu"
    p.write_text(GPU_SRC)
    a, b, c = operands(2000, seed=9)
    n = a.size
    rng = np.random.default_rng(9)
    f = (rng.standard_normal(n) * np.exp2(rng.integers(-28, 18, n))).astype(np.float32)
    args = [a, b, c, f, np.zeros(18 * n, H), np.zeros(6 * n, np.int32), np.int32(n)]
    emu, _ = run(GPU_SRC, "hk", (n + 127) // 128, 128, args)
    _, after, _ = crosscheck.real_launch(str(p), "hk", (n + 127) // 128, 128, args, repeat=1)
    got, want = bits(after[4]).reshape(18, n), bits(emu[4]).reshape(18, n)
    for row in range(18):
        # (PTX leaves the NaN that neg.f16 makes of a NaN unspecified)
        bad = np.flatnonzero((got[row] != want[row]) & ~((row == 14) & np.isnan(a)))
        assert bad.size == 0, (row, [(float(a[i]), float(b[i]), float(c[i]), float(f[i]), hex(got[row][i]),
                                      hex(want[row][i])) for i in bad[:5]])
    np.testing.assert_array_equal(after[5], emu[5])
    args2, _ = _half2_atomic_args()
    p2 = tmp_path / "half2.cu"
    p2.write_text(HALF2_ATOMIC)
    emu2, _ = run(HALF2_ATOMIC, "k2", 4, 256, [a.copy() if isinstance(a, np.ndarray) else a for a in args2])
    _, after2, _ = crosscheck.real_launch(str(p2), "k2", 4, 256, args2, repeat=1)
    assert np.array_equal(bits(after2[0]), bits(emu2[0]))       # exact sums: any order agrees
    x = np.random.default_rng(10).uniform(-1, 1, 8 * 256).astype(H)
    emu, _ = run(GPU_SRC, "hreduce", 8, 256, [x, np.zeros(8, H)])
    _, after, _ = crosscheck.real_launch(str(p), "hreduce", 8, 256, [x, np.zeros(8, H)], repeat=1)
    assert np.array_equal(bits(after[1]), bits(emu[1]))
