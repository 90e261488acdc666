"""Cache-hinted stores, rounding conversions, ldexpf/frexpf/modff, the float
classifications, __builtin_expect/__builtin_assume and __trap, against numpy."""
import math

import numpy as np
import pytest

import simt
from kern import compile_error, run

F32 = np.float32


def _round_away(v):
    return np.array([math.copysign(math.floor(abs(float(a)) + 0.5), a) for a in v])


def test_rounding_conversions_and_splits():
    src = """
__global__ void k(const float *x, float *y, long long *l, int *iv) {
  int t = threadIdx.x;
  float v = x[t];
  l[t * 6 + 0] = lroundf(v); l[t * 6 + 1] = llroundf(v); l[t * 6 + 2] = lrintf(v);
  l[t * 6 + 3] = llrintf(v); l[t * 6 + 4] = __float2ll_rn(v * 1e9f); l[t * 6 + 5] = lround((double)v);
  int e; float m = frexpf(v, &e);
  float ip; float fr = modff(v, &ip);
  int *pe = iv + 64 * 5 + t;
  y[t * 6 + 0] = ldexpf(v, t - 32); y[t * 6 + 1] = m + frexpf(v, pe) * 0; y[t * 6 + 2] = fr;
  y[t * 6 + 3] = ip; y[t * 6 + 4] = __double2float_rn((double)v / 3.0);
  y[t * 6 + 5] = __ll2float_rn(123456789012345LL + t);
  iv[t * 5 + 0] = e; iv[t * 5 + 1] = __double2int_rn((double)v);
  iv[t * 5 + 2] = __isnanf(v / 0.0f * 0.0f); iv[t * 5 + 3] = __isinff(v / 0.0f);
  iv[t * 5 + 4] = __finitef(v) + sizeof(__isnanf(v)) * 10;
}"""
    x = np.random.default_rng(5).uniform(-40, 40, 64).astype(F32)
    x[:6] = [2.5, -2.5, 0.5, -0.49999997, 1.5, 3.5]
    args = [x, np.zeros(64 * 6, F32), np.zeros(64 * 6, np.int64), np.zeros(64 * 6, np.int32)]
    (_, y, l, iv), _ = run(src, "k", 1, 64, args)
    y, l, e = y.reshape(64, 6), l.reshape(64, 6), iv[320:384]
    iv = iv[:320].reshape(64, 5)
    for c in (0, 1, 5):
        assert l[:, c].tolist() == _round_away(x).tolist()
    for c in (2, 3):
        assert l[:, c].tolist() == np.rint(x).tolist()
    assert l[:, 4].tolist() == np.rint((x * F32(1e9)).astype(np.float64)).tolist()
    m, ex = np.frexp(x)
    fr, ip = np.modf(x)
    np.testing.assert_array_equal(y[:, 0], np.ldexp(x, np.arange(64) - 32).astype(F32))
    np.testing.assert_array_equal(y[:, 1], m)
    np.testing.assert_array_equal(y[:, 2], fr)
    np.testing.assert_array_equal(y[:, 3], ip)
    np.testing.assert_array_equal(y[:, 4], (x.astype(np.float64) / 3.0).astype(F32))
    np.testing.assert_array_equal(y[:, 5], (123456789012345 + np.arange(64)).astype(F32))
    assert iv[:, 0].tolist() == ex.tolist() and e.tolist() == ex.tolist()
    assert iv[:, 1].tolist() == np.rint(x).tolist()
    assert iv[:, 2:].tolist() == [[1, 1, 41]] * 64


def test_cache_hinted_stores_and_builtins():
    src = """
__global__ void k(const float *x, double *d, float4 *q) {
  int t = threadIdx.x;
  if (__builtin_expect(t < 64, 1)) { __builtin_assume(t >= 0); }
  __stcs(d + t, (double)x[t]); __stcg(d + 64 + t, 1); __stwt(d + 128 + t, 2.0 * x[t]);
  __stwb(d + 192 + t, (double)__builtin_expect(t, 0));
  __stcs(q + t, make_float4(x[t], 1, 2, 3));
}"""
    x = np.arange(64, dtype=F32)
    (_, d, q), _ = run(src, "k", 1, 64, [x, np.zeros(256, np.float64), np.zeros(256, F32)])
    assert d.tolist() == x.tolist() + [1.0] * 64 + (2 * x).tolist() + list(range(64))
    np.testing.assert_array_equal(q.reshape(64, 4), np.stack([x, x * 0 + 1, x * 0 + 2, x * 0 + 3], 1))
    assert compile_error("__global__ void k(const float *y) {\n  __stcs(y, 1.0f);\n}") == (
        'bad.cu:2:3: error: no instance of overloaded function "__stcs" matches the argument list '
        "(argument types are: (const float *, float))")


def test_trap_stops_the_launch_naming_the_thread():
    src = "__global__ void k(int *y) {\n  if (threadIdx.x == 5) __trap();\n  y[threadIdx.x] = 1;\n}"
    with pytest.raises(simt.LaunchError) as e:
        run(src, "k", 1, 32, [np.zeros(32, np.int32)])
    assert e.value.tool == "trap"
    assert str(e.value) == ("t.cu:2:25: error: __trap() called in thread (5, 0, 0) of block "
                            "(0, 0, 0): the kernel stops (on the GPU: unspecified launch failure)")


def test_roundf_halves_away_and_keeps_the_largest_float_below_a_half():
    """roundf(0.49999997f) is 0: adding 0.5 first rounds up to 1 in float."""
    src = """
__global__ void k(const float *x, float *y, const double *xd, double *yd) {
  int t = threadIdx.x;
  y[t] = roundf(x[t]);
  yd[t] = round(xd[t]);
}"""
    x = np.array([0.49999997, -0.49999997, 0.5, -0.5, 2.5, -2.5, 1.4999999, 8388609.0, -0.3, 0.0,
                  np.inf, -np.inf], F32)
    xd = np.array([0.49999999999999994, -0.49999999999999994, 0.5, -2.5, 4503599627370497.0, -0.3,
                   1.5, 0.0, 7.5, -7.5, np.inf, -np.inf])
    (_, y, _, yd), _ = run(src, "k", 1, 12, [x, np.zeros(12, F32), xd, np.zeros(12)])
    assert y.tolist() == [0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 1.0, 8388609.0, -0.0, 0.0, np.inf, -np.inf]
    assert np.array_equal(np.signbit(y), np.signbit(np.array([0, -0.0, 1, -1, 3, -3, 1, 1, -0.0, 0, 1, -1], F32)))
    assert yd.tolist() == [0.0, -0.0, 1.0, -3.0, 4503599627370497.0, -0.0, 2.0, 0.0, 8.0, -8.0, np.inf, -np.inf]


def test_gamma_functions_at_their_poles_give_cudas_values():
    """lgammaf is +inf at 0 and the negative integers; tgammaf is +-inf at +-0, NaN at
    the negative integers and +inf past FLT_MAX, as CUDA returns (Python's math raises)."""
    src = """
__global__ void k(const float *x, float *lg, float *tg) {
  int t = threadIdx.x;
  lg[t] = lgammaf(x[t]); tg[t] = tgammaf(x[t]);
}"""
    x = np.array([0.0, -0.0, -1.0, -3.0, 1.0, 5.0, 40.0, -2.5], F32)
    (_, lg, tg), _ = run(src, "k", 1, 8, [x, np.zeros(8, F32), np.zeros(8, F32)])
    np.testing.assert_array_equal(lg[:4], [np.inf] * 4)
    np.testing.assert_allclose(lg[4:], [math.lgamma(v) for v in x[4:]], rtol=1e-6)
    np.testing.assert_array_equal(tg[:2], [np.inf, -np.inf])
    assert np.isnan(tg[2]) and np.isnan(tg[3])
    np.testing.assert_allclose(tg[[4, 5, 7]], [1.0, 24.0, math.gamma(-2.5)], rtol=1e-6)
    assert tg[6] == np.inf


def test_inverse_error_functions_and_the_normal_cdf():
    """erfinvf, erfcinvf, normcdff, normcdfinvf (and their double forms): the inverses
    undo erf and erfc to float rounding, the quantiles a statistics course uses come out,
    and the ends give CUDA's infinities and NaNs."""
    src = """
__global__ void k(const float *p, float *y, const double *pd, double *yd) {
  int t = threadIdx.x;
  y[t * 4 + 0] = erfinvf(p[t]); y[t * 4 + 1] = erfcinvf(p[t] + 1.0f);
  y[t * 4 + 2] = normcdfinvf(0.5f * (p[t] + 1.0f)); y[t * 4 + 3] = normcdff(4.0f * p[t]);
  yd[t * 2 + 0] = erfinv(pd[t]); yd[t * 2 + 1] = normcdfinv(0.5 * (pd[t] + 1.0));
}"""
    rng = np.random.default_rng(8)
    p = np.concatenate([[-1.0, 1.0, 0.0, 0.9, -0.999999, 1.5], rng.uniform(-1, 1, 58)]).astype(F32)
    pd = p.astype(np.float64)
    (_, y, _, yd), _ = run(src, "k", 1, 64, [p, np.zeros(256, F32), pd, np.zeros(128)])
    y, yd = y.reshape(64, 4), yd.reshape(64, 2)
    assert y[0, 0] == -np.inf and y[1, 0] == np.inf and y[2, 0] == 0.0 and np.isnan(y[5, 0])
    assert y[0, 1] == np.inf and y[1, 1] == -np.inf and np.isnan(y[5, 1])   # erfcinv(0), (2)
    assert y[0, 2] == -np.inf and y[1, 2] == np.inf
    ok = np.abs(p) < 1
    # erf(erfinv(p)) = p to erf's slope times float rounding of the result
    x = y[ok, 0].astype(np.float64)
    slope = 2 / math.sqrt(math.pi) * np.exp(-x * x)
    back = np.array([math.erf(v) for v in x])
    assert np.all(np.abs(back - p[ok]) <= slope * np.abs(x) * 2.0 ** -23 + 1e-12)
    np.testing.assert_allclose(y[ok, 1], -y[ok, 0], rtol=2e-6, atol=1e-30)     # erfcinv(1 + p) = -erfinv(p)
    np.testing.assert_allclose(y[ok, 2], math.sqrt(2) * y[ok, 0], rtol=2e-6, atol=1e-30)
    want = np.array([0.5 * math.erfc(-4.0 * float(v) / math.sqrt(2)) for v in p])
    np.testing.assert_allclose(y[:, 3], want, rtol=2e-7, atol=1e-40)
    xd = yd[ok, 0]
    assert np.max(np.abs(np.array([math.erf(v) for v in xd]) - pd[ok])) < 1e-15
    np.testing.assert_allclose(yd[ok, 1], math.sqrt(2) * xd, rtol=1e-14, atol=1e-300)
    (_, y2, _, _), _ = run(src, "k", 1, 1, [np.array([0.95], F32), np.zeros(4, F32), np.array([0.95]), np.zeros(2)])
    assert y2[2] == pytest.approx(1.959964, abs=2e-6)            # the 97.5% quantile
