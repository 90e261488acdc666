"""A fused multiply-add rounds once (simt.ops._fma: FFMA and DFMA), whether nvcc's
contraction made it (``a * b + c``) or the kernel called ``fma``/``fmaf``: results
against exact rational arithmetic, on inputs where one rounding and two differ (a sum
that cancels the product, a float product on a midpoint between two floats, a double
product above DBL_MAX that the sum brings back, a product below the subnormals, signed
zeros)."""
from fractions import Fraction

import numpy as np
import pytest

from kern import gpu_or_skip, run, same_bytes_on_gpu

SRC = r'''
extern "C" __global__ void dfma(const double *a, const double *b, const double *c, double *o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[2 * i] = a[i] * b[i] + c[i];                  // contracted
    o[2 * i + 1] = fma(a[i], b[i], c[i]);
}
extern "C" __global__ void ffma(const float *a, const float *b, const float *c, float *o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[2 * i] = a[i] * b[i] + c[i];
    o[2 * i + 1] = fmaf(a[i], b[i], c[i]);
}
'''


def exact(a, b, c, dt):
    """a * b + c rounded once to dt, lane by lane (finite inputs)."""
    out = []
    for x, y, z in zip(a.tolist(), b.tolist(), c.tolist()):
        e = Fraction(x) * Fraction(y) + Fraction(z)
        if e == 0:
            out.append(x * y + z if x * y == 0 and z == 0 else 0.0)
            continue
        if dt == np.float64:
            try:
                out.append(float(e))                  # int / int: correctly rounded
            except OverflowError:
                out.append(np.inf if e > 0 else -np.inf)
            continue
        f = np.float32(float(e))                      # then the nearest float, ties to even
        cands = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
        out.append(min((v for v in cands if np.isfinite(v)),
                       key=lambda v: (abs(Fraction(float(v)) - e), int(np.float32(v).view(np.int32)) & 1)))
    return np.array(out, dt)


def inputs(dt, n=256):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)).astype(dt)
    b = (rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)).astype(dt)
    p = a.astype(np.float64) * b
    c = np.where(rng.integers(0, 2, n) == 0, -p, -p * (1 + 2.0 ** -20 * rng.integers(-8, 9, n))).astype(dt)
    return a, b, c


def launch(kernel, a, b, c):
    n = len(a)
    (_, _, _, o, _), _ = run(SRC, kernel, (n + 63) // 64, 64, [a, b, c, np.zeros(2 * n, a.dtype), np.int32(n)])
    return o.reshape(n, 2)


@pytest.mark.parametrize("dt,kernel", [(np.float64, "dfma"), (np.float32, "ffma")])
def test_fused_is_one_rounding_of_the_exact_value(dt, kernel):
    a, b, c = inputs(dt)
    want = exact(a, b, c, dt)
    o = launch(kernel, a, b, c)
    np.testing.assert_array_equal(o[:, 0], want)
    np.testing.assert_array_equal(o[:, 1], want)
    assert (want != (a * b + c)).sum() > len(a) // 4          # two roundings would differ


def test_float_midpoint_products_round_once():
    # 4097 * 4097 = 2^24 + 2^13 + 1 lies halfway between two floats; +-2^-30 decides the way,
    # which a sum rounded to double first (then to float) loses
    a = np.full(4, 4097, np.float32)
    c = np.array([2.0 ** -30, -(2.0 ** -30), 2.0 ** -60, 0], np.float32)
    o = launch("ffma", a, a, c)
    assert o[:, 0].tolist() == o[:, 1].tolist() == [16785410, 16785408, 16785410, 16785408]


def test_double_edges():
    big = np.finfo(np.float64).max
    a = np.array([1.5 * 2.0 ** 1000, 1e300, -0.0, 0.0, 1e-200, 1e-170, 2.0 ** -1074, 1e308, 3.0])
    b = np.array([2.0 ** 24, 1e10, 1.0, -1.0, 1e-200, 1e-170, 0.75, 10.0, np.inf])
    c = np.array([-big, -np.inf, -0.0, 0.0, 2.0 ** -1074, -(2.0 ** -1074), 0.0, -np.inf, -np.inf])
    o = launch("dfma", a, b, c)
    want = [2.0 ** 1023 * (1 + 2.0 ** -52),   # a product above DBL_MAX brought back by the sum
            -np.inf,                          # a finite product plus -inf
            -0.0, 0.0,                        # -0 + -0 is -0; -0 + +0 is +0
            2.0 ** -1074,                     # 2^-1074 + 1e-400: the product below the subnormals
            -(2.0 ** -1074) + 0.0,            # 1e-340 - 2^-1074: still the negative subnormal
            2.0 ** -1074,                     # 0.75 of the least subnormal: rounds to it
            -np.inf, np.nan]
    for k in range(2):
        np.testing.assert_array_equal(o[:, k], want)
        assert np.signbit(o[:4, k]).tolist() == [False, True, True, False]


@pytest.mark.gpu
def test_fma_on_the_gpu(tmp_path):
    gpu_or_skip()
    for dt, kernel in ((np.float64, "dfma"), (np.float32, "ffma")):
        a, b, c = inputs(dt)
        same_bytes_on_gpu(SRC, tmp_path / f"{kernel}.cu", kernel, 4, 64,
                          [a, b, c, np.zeros(2 * len(a), dt), np.int32(len(a))])
