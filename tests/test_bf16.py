"""bfloat16 (``__nv_bfloat16``, ``cuda_bf16.h``): operators, intrinsics and conversions
bit for bit against a reference computed here (the exact value as a Fraction, rounded
once to bfloat16; float32 rounded to bfloat16 in numpy), the ambiguity errors NVRTC
gives for mixed types, the argument specs and the command line, and the GPU."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import simt
from kern import gpu_or_skip, run
from simt import argspec
from simt.errors import CompileError
from tui.cli import main

NAN = 0x7FFF


# ------------------------------------------------------------ the test's own reference
def f32_to_bf16_rn(f) -> np.ndarray:
    """float32 -> bfloat16 bits, to nearest even; a NaN is the canonical 0x7FFF."""
    f = np.asarray(f, np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(f), np.uint16(NAN), r).astype(np.uint16)


def f32_to_bf16_rz(f) -> np.ndarray:
    f = np.asarray(f, np.float32)
    r = (f.view(np.uint32) >> 16).astype(np.uint16)
    return np.where(np.isnan(f), np.uint16(NAN), r).astype(np.uint16)


def f32_to_bf16_dir(f, up: bool) -> np.ndarray:
    """Toward +inf (up) or -inf: the truncation, one step away from zero when inexact
    on the side asked."""
    f = np.asarray(f, np.float32)
    u = f.view(np.uint32)
    inexact = (u & 0xFFFF) != 0
    away = inexact & ((f > 0) if up else (f < 0))
    r = ((u >> 16) + away).astype(np.uint16)
    return np.where(np.isnan(f), np.uint16(NAN), r).astype(np.uint16)


def to_float(bits) -> np.ndarray:
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def round_exact(q: Fraction, negative: bool) -> int:
    """The exact value q rounded once to bfloat16 (nearest even), as bits."""
    sign = 0x8000 if negative else 0
    a = abs(q)
    if a == 0:
        return sign
    e = max(math.floor(math.log2(a)), -126)
    while Fraction(2) ** e > a and e > -126:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    ulp = Fraction(2) ** (e - 7)
    m, rem = divmod(a, ulp)
    m = int(m)
    if rem * 2 > ulp or rem * 2 == ulp and m % 2 == 1:
        m += 1
    v = m * ulp
    if v >= Fraction(2) ** 128:
        return sign | 0x7F80
    return sign | int(np.float32(float(v)).view(np.uint32) >> 16)


def exact(op, *bs) -> int:
    """What the GPU computes for op on bfloat16 bit patterns bs: specials from double,
    finite results the exact value rounded once."""
    xs = [float(v) for v in to_float(np.array(bs, np.uint16))]
    with np.errstate(all="ignore"):
        d = op(*(np.float64(x) for x in xs))
    if math.isnan(d):
        return NAN
    if math.isinf(d) or not all(math.isfinite(x) for x in xs):
        return int(f32_to_bf16_rn(np.float32(d)))
    q = op(*(Fraction(x) for x in xs))
    return round_exact(q, bool(np.signbit(d)) if q == 0 else q < 0)


def specials() -> np.ndarray:
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 3.0, 1 + 2**-7, 256, 257, 1 / 3, 0.1, 3.3895e38,
            -3.3895e38, 2**-126, 2**-133, -2**-133, 2**-127, 1e-39, np.inf, -np.inf, np.nan]
    return f32_to_bf16_rn(np.array(vals, np.float32))


def operands(n_random: int = 300, seed: int = 0):
    """Every pair of the special values, then random bit patterns (with a narrower
    exponent range for half of them, so that sums are rarely exact)."""
    s = specials()
    a, b = np.meshgrid(s, s)
    rng = np.random.default_rng(seed)
    r = rng.integers(0, 1 << 16, (3, n_random)).astype(np.uint16)
    near = f32_to_bf16_rn((rng.standard_normal((3, n_random)) *
                           np.exp2(rng.integers(-12, 12, (3, n_random)))).astype(np.float32))
    a = np.concatenate([a.ravel(), r[0], near[0]])
    b = np.concatenate([b.ravel(), r[1], near[1]])
    c = np.concatenate([np.resize(s[::-1], a.size - 2 * n_random), r[2], near[2]])
    return a, b, c


def fmax_ref(x, y):
    fx, fy = to_float([x, y])
    if np.isnan(fx) and np.isnan(fy):
        return NAN
    if np.isnan(fx):
        return int(y)
    if np.isnan(fy):
        return int(x)
    if fx == 0 and fy == 0:
        return int(x) & int(y)                     # -0 only when both are -0
    return int(x) if fx > fy else int(y)


def fmin_ref(x, y):
    fx, fy = to_float([x, y])
    if np.isnan(fx) and np.isnan(fy):
        return NAN
    if np.isnan(fx):
        return int(y)
    if np.isnan(fy):
        return int(x)
    if fx == 0 and fy == 0:
        return int(x) | int(y)                     # -0 when either is -0
    return int(x) if fx < fy else int(y)


ARITH_SRC = r'''
#include <cuda_bf16.h>
extern "C" __global__ void bk(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                              const __nv_bfloat16 *c, const float *f, __nv_bfloat16 *o,
                              int *oi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat16 x = a[i], y = b[i], z = c[i];
    o[0 * n + i] = x + y;                 o[1 * n + i] = x - y;
    o[2 * n + i] = x * y;                 o[3 * n + i] = x / y;
    o[4 * n + i] = __hfma(x, y, z);       o[5 * n + i] = __hadd(x, y);
    o[6 * n + i] = __hsub(x, y);          o[7 * n + i] = __hmul(x, y);
    o[8 * n + i] = __hmax(x, y);          o[9 * n + i] = __hmin(x, y);
    o[10 * n + i] = __habs(x);            o[11 * n + i] = __hneg(x);
    o[12 * n + i] = -x;                   o[13 * n + i] = __float2bfloat16(f[i]);
    o[14 * n + i] = __float2bfloat16_rn(f[i]);  o[15 * n + i] = __float2bfloat16_rz(f[i]);
    o[16 * n + i] = __float2bfloat16_rd(f[i]);  o[17 * n + i] = __float2bfloat16_ru(f[i]);
    o[18 * n + i] = __hdiv(x, y);
    o[19 * n + i] = __int2bfloat16_rn((int)(f[i] * 65536.0f));
    oi[0 * n + i] = x < y;                oi[1 * n + i] = x == y;
    oi[2 * n + i] = x != y;               oi[3 * n + i] = x >= y;
    oi[4 * n + i] = __bfloat162int_rz(x); oi[5 * n + i] = __heq(x, y);
    oi[6 * n + i] = __float_as_int(__bfloat162float(x));
}
'''
ROWS = 20


def reference(a, b, c, f):
    n = a.size
    want = np.zeros((ROWS, n), np.uint16)
    for i in range(n):
        x, y, z = int(a[i]), int(b[i]), int(c[i])
        want[0, i] = want[5, i] = exact(lambda p, q: p + q, x, y)
        want[1, i] = want[6, i] = exact(lambda p, q: p - q, x, y)
        want[2, i] = want[7, i] = exact(lambda p, q: p * q, x, y)
        want[4, i] = exact(lambda p, q, r: p * q + r, x, y, z)
        want[8, i], want[9, i] = fmax_ref(x, y), fmin_ref(x, y)
    fa, fb = to_float(a), to_float(b)
    with np.errstate(all="ignore"):
        want[3] = want[18] = f32_to_bf16_rn(fa / fb)           # div.rn.f32, then rounded
        want[10] = a & 0x7FFF
        want[11] = want[12] = a ^ 0x8000
        want[13] = want[14] = f32_to_bf16_rn(f)
        want[15] = f32_to_bf16_rz(f)
        want[16], want[17] = f32_to_bf16_dir(f, False), f32_to_bf16_dir(f, True)
        iv = (f * np.float32(65536)).astype(np.float64)
        iv = np.clip(np.nan_to_num(np.trunc(iv)), -2**31, 2**31 - 1)
        want[19] = [round_exact(Fraction(int(v)), v < 0) for v in iv]
    wi = np.zeros((7, n), np.int32)
    with np.errstate(all="ignore"):
        wi[0], wi[1], wi[2], wi[3] = fa < fb, fa == fb, fa != fb, fa >= fb
        t = np.clip(np.nan_to_num(np.trunc(fa.astype(np.float64))), -2**31, 2**31 - 1)
        wi[4] = t.astype(np.int64)
        wi[5] = fa == fb
        wi[6] = fa.view(np.int32)
    return want, wi


def float_operands(n, seed):
    rng = np.random.default_rng(seed)
    f = (rng.standard_normal(n) * np.exp2(rng.integers(-40, 40, n))).astype(np.float32)
    f[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 3.4e38, -1e-45, 1.00390625]
    return f


def _args(a, b, c, f):
    n = a.size
    return [a, b, c, f, np.zeros(ROWS * n, np.uint16), np.zeros(7 * n, np.int32), np.int32(n)]


def test_arithmetic_and_conversions_bit_for_bit():
    a, b, c = operands(400, seed=1)
    n = a.size
    f = float_operands(n, seed=2)
    (_, _, _, _, o, oi, _), _ = run(ARITH_SRC, "bk", (n + 127) // 128, 128, _args(a, b, c, f))
    want, wi = reference(a, b, c, f)
    got = o.reshape(ROWS, n)
    for row in range(ROWS):
        bad = np.flatnonzero(got[row] != want[row])
        assert bad.size == 0, (row, [(hex(a[i]), hex(b[i]), hex(c[i]), float(f[i]), hex(got[row][i]),
                                      hex(want[row][i])) for i in bad[:5]])
    np.testing.assert_array_equal(oi.reshape(7, n), wi)


def test_rounding_of_float32_edges():
    """Ties go to even, the largest float32 values overflow to inf, NaN is 0x7FFF."""
    from simt.ops import to_bf16
    f = np.array([1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), 3.3895e38, 3.4e38, np.float32(np.inf),
                  np.nan, 1e-45, -1e-45, 2**-126 * (1 - 2**-8)], np.float32)
    assert np.array_equal(to_bf16(f), f32_to_bf16_rn(f))
    assert np.array_equal(to_bf16(f, "rz"), f32_to_bf16_rz(f))
    assert np.array_equal(to_bf16(f, "rd"), f32_to_bf16_dir(f, False))
    assert np.array_equal(to_bf16(f, "ru"), f32_to_bf16_dir(f, True))
    assert [hex(v) for v in to_bf16(f[:5])] == ["0x3f80", "0x3f82", "0xbf80", "0x7f7f", "0x7f80"]
    rng = np.random.default_rng(5)
    r = rng.integers(0, 1 << 32, 20000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    for mode, ref in (("rn", f32_to_bf16_rn), ("rz", f32_to_bf16_rz),
                      ("rd", lambda v: f32_to_bf16_dir(v, False)),
                      ("ru", lambda v: f32_to_bf16_dir(v, True))):
        assert np.array_equal(to_bf16(r, mode), ref(r)), mode
    # from double: rounded once (not through a rounded float32)
    d = np.array([1 + 2**-8 + 2**-40, 1 + 2**-8 - 2**-40, -(1 + 2**-8 + 2**-40)])
    assert [hex(v) for v in to_bf16(d)] == ["0x3f81", "0x3f80", "0xbf81"]


def test_what_cuda_bf16_allows_without_a_cast():
    src = r'''
    #include <cuda_bf16.h>
    __device__ float twice(float v) { return 2.0f * v; }
    extern "C" __global__ void k(__nv_bfloat16 *a, float *f, int *i) {
        __nv_bfloat16 h = 0.1f;             // float -> bf16, nearest even
        h += 1;                             // operator+=: 1 -> bf16
        h *= __nv_bfloat16(0.5f);
        f[0] = twice(h);
        f[1] = h;
        i[0] = (int)h;
        nv_bfloat16 g = a[0];
        g++;
        a[1] = g;
        a[2] = a[3] * a[4] + a[5];          // one fma.rn.bf16, as ptxas contracts it
        a[6] = __ushort_as_bfloat16((unsigned short)0x7F80U);
        i[1] = __bfloat16_as_ushort(a[0]);
        if (h) i[2] = 7;
        a[7] = h > a[0] ? h : a[0];
    }
    '''
    a = f32_to_bf16_rn(np.array([1.5, 0, 0, 3, 1 + 2**-7, -2**-20, 0, 0], np.float32))
    (a2, f, i), _ = run(src, "k", 1, 1, [a, np.zeros(2, np.float32), np.zeros(3, np.int32)])
    h = f32_to_bf16_rn(np.float32(0.1))
    h = exact(lambda p, q: p + q, int(h), 0x3F80)
    h = exact(lambda p, q: p * q, h, 0x3F00)
    assert f[1] == to_float(h) and f[0] == 2 * to_float(h) and i[0] == int(to_float(h))
    assert a2[1] == 0x4020 and a2[6] == 0x7F80 and i[1] == 0x3FC0 and i[2] == 7
    assert a2[2] == exact(lambda p, q, r: p * q + r, int(a[3]), int(a[4]), int(a[5]))
    assert a2[2] != exact(lambda p, q: p + q, exact(lambda p, q: p * q, int(a[3]), int(a[4])), int(a[5]))
    assert a2[7] == a[0]


@pytest.mark.parametrize("body,at,words", [
    ("a[1] = a[0] + 1.0f;", "a[0] + ", ('more than one operator "+"', "__nv_bfloat16 + float",
                                        "__bfloat162float")),
    ("a[1] = 2 * a[0];", "2 * ", ('more than one operator "*"',)),
    ("if (a[0] < 0) n = 1;", "a[0] <", ('more than one operator "<"',)),
    ("a[1] = a[0] % a[0];", "a[0] %", ('defines no "%" on __nv_bfloat16',)),
    ("a[1] = __hadd(a[0], 1.0f);", "__hadd", ('"__hadd"', "__float2bfloat16")),
    ("__nv_bfloat162 v;", "__nv_bfloat162", ("not supported yet",)),
    ("a[1] = hsqrt(a[0]);", "hsqrt", ("not supported yet", "__bfloat162float")),
    ('printf("%f", a[0]);', "a[0]", ("__bfloat162float",)),
])
def test_mixing_bf16_with_other_types_is_an_error_naming_its_place(body, at, words):
    src = ('#include <cuda_bf16.h>\nextern "C" __global__ void k(__nv_bfloat16 *a, int n) {\n    '
           + body + '\n}\n')
    with pytest.raises(CompileError) as e:
        simt.Module.from_source(src, "mix.cu").get_function("k")
    msg = str(e.value)
    assert msg.startswith(f"mix.cu:3:{5 + body.index(at)}:") or "__nv_bfloat162" in body, msg
    assert all(w in msg for w in words), msg


def test_shuffles_shared_memory_and_conditions():
    src = r'''
    #include <cuda_bf16.h>
    extern "C" __global__ void k(__nv_bfloat16 *a, int *o) {
        __shared__ __nv_bfloat16 s[32];
        unsigned t = threadIdx.x;
        __nv_bfloat16 v = __shfl_xor_sync(0xffffffffu, a[t], 1);
        s[t] = v;
        __syncthreads();
        a[t] = s[31 - t];
        o[t] = v ? 1 : 0;                   // its float value: -0 is false, NaN true
    }
    '''
    a = f32_to_bf16_rn(np.arange(32, dtype=np.float32) - 3)
    a[4:8] = [0x8000, 0, 0x7FFF, 0x0001]
    (o, c), _ = run(src, "k", 1, 32, [a.copy(), np.zeros(32, np.int32)])
    v = a[[t ^ 1 for t in range(32)]]
    assert np.array_equal(o, v[::-1])
    assert np.array_equal(c, (to_float(v) != 0).astype(np.int32))


def test_argspec_takes_bf16_arrays_and_scalars():
    s = argspec.parse("bfloat16[4]=[1,2.5,3.3895e38,0.1]")
    assert s.bf16 and s.dtype == np.uint16 and s.describe() == "bfloat16[4]"
    v = s.build()
    assert v.dtype == np.uint16 and [hex(x) for x in v] == ["0x3f80", "0x4020", "0x7f7f", "0x3dcd"]
    x = argspec.make_arg("__nv_bfloat16=0.1")
    assert x.dtype == np.uint16 and x == 0x3DCD
    g = argspec.make_arg("nv_bfloat16[8]=uniform(-1,1)", np.random.default_rng(1))
    want = f32_to_bf16_rn(np.random.default_rng(1).uniform(-1, 1, 8).astype(np.float32))
    assert g.dtype == np.uint16 and np.array_equal(g, want)
    assert np.array_equal(argspec.make_arg("bfloat16[4]=arange"), f32_to_bf16_rn(np.arange(4, dtype=np.float32)))


AXPY_CU = r'''
#include <cuda_bf16.h>
extern "C" __global__ void axpy(const __nv_bfloat16 *x, __nv_bfloat16 *y, __nv_bfloat16 a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hfma(a, x[i], y[i]);
}
'''


def test_cli_runs_a_bf16_kernel_and_writes_its_bits(tmp_path, capsys):
    p = tmp_path / "axpy.cu"
    p.write_text(AXPY_CU)
    dest = tmp_path / "y.npy"
    rc = main(["run", str(p), "--kernel", "axpy", "--grid", "4", "--block", "256",
               "--arg", "bfloat16[1000]=uniform", "--arg", "bfloat16[1000]=ones",
               "--arg", "bfloat16=0.1", "--arg", "1000", "--seed", "3", "--out", f"y={dest}"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    x = f32_to_bf16_rn(np.random.default_rng(3).uniform(0, 1, 1000).astype(np.float32))
    a = int(f32_to_bf16_rn(np.float32(0.1)))
    y = np.load(dest)                                   # the uint16 bit patterns
    want = [exact(lambda p, q, r: p * q + r, a, int(v), 0x3F80) for v in x]
    assert y.dtype == np.uint16 and np.array_equal(y, np.array(want, np.uint16))


def test_cupy_backend_reads_bf16_parameters_without_a_gpu():
    from kernels_cuda.cupy_backend import kernel_params
    ps = kernel_params(AXPY_CU, "axpy")
    assert [str(p.dtype) for p in ps] == ["uint16", "uint16", "uint16", "int32"]
    assert ps[0].is_const and not ps[2].is_pointer


@pytest.mark.gpu
def test_bf16_kernel_matches_the_gpu_bit_for_bit(tmp_path):
    gpu_or_skip()
    from kernels_cuda import crosscheck
    p = tmp_path / "bf16.cu"
    p.write_text(ARITH_SRC)
    a, b, c = operands(2000, seed=9)
    n = a.size
    f = float_operands(n, seed=9)
    args = _args(a, b, c, f)
    emu, _ = run(ARITH_SRC, "bk", (n + 127) // 128, 128, args)
    _, after, _ = crosscheck.real_launch(str(p), "bk", (n + 127) // 128, 128, args, repeat=1)
    got, want = np.asarray(after[4]).reshape(ROWS, n), emu[4].reshape(ROWS, n)
    nan_a = np.isnan(to_float(a))
    for row in range(ROWS):
        # (PTX leaves the NaN that neg.bf16 / abs.bf16 make of a NaN unspecified)
        bad = np.flatnonzero((got[row] != want[row]) & ~((row in (10, 11, 12)) & nan_a))
        assert bad.size == 0, (row, [(hex(a[i]), hex(b[i]), hex(c[i]), float(f[i]), hex(got[row][i]),
                                      hex(want[row][i])) for i in bad[:5]])
    np.testing.assert_array_equal(np.asarray(after[5]), emu[5])
