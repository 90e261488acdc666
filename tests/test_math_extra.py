"""CUDA math API functions added in session 68: nextafter, logb, ilogb, scalbn, scalbln,
fdividef, nanf, remquo, rhypot, norm3d, rnorm3d, norm4d, rnorm4d, normf, rnormf, rcbrt,
__frsqrt_rn, the Bessel functions (j0 j1 jn y0 y1 yn cyl_bessel_i0 cyl_bessel_i1),
erfcx, __double2hiint / __double2loint / __hiloint2double, __match_all_sync and the
address-space tests __isGlobal / __isShared / __isConstant / __isLocal.

Each is run through the emulator and checked against an independent reference: Python's
integers and fractions where CUDA is exact, 60-digit decimal series for the Bessel
functions and erfcx.  ``test_they_match_the_gpu`` (marked gpu) runs the same kernels
through CuPy and compares them with the emulator: bit for bit where CUDA is exact, within
CUDA's documented error elsewhere."""
import functools
import math
from decimal import Decimal as D, localcontext
from fractions import Fraction

import numpy as np
import pytest

from simt import counters as C
from simt import machine, ops
from kern import compile_error, gpu_or_skip, run

F32, F64 = np.float32, np.float64
INF, NAN = np.inf, np.nan


# ------------------------------------------------------------------ references
def _nearest(r, dt):
    """The value r (a Fraction, or a Decimal) rounded to nearest even in dt: the double
    nearest it and that value's neighbours in dt, the closest one (ties: even bits)."""
    r = Fraction(r)
    if r == 0:
        return dt(0)
    big = np.finfo(dt).max
    if abs(r) >= Fraction(float(big)) + Fraction(float(big) - float(np.nextafter(big, dt(0)))) / 2:
        return dt(-INF if r < 0 else INF)
    with np.errstate(all="ignore"):
        f = dt(float(r))
        cands = [np.nextafter(f, dt(-INF)), f, np.nextafter(f, dt(INF))]
    return min((c for c in cands if np.isfinite(c)),
               key=lambda c: (abs(Fraction(float(c)) - r), int(np.asarray(c).view(
                   np.uint32 if dt == F32 else np.uint64)) & 1))


def _ulps(got, ref, dt):
    """|got - ref| in units of the spacing of dt at ref (ref exact, a Fraction/Decimal)."""
    ref = Fraction(ref)
    near = _nearest(ref, dt)
    unit = float(np.spacing(np.abs(near))) if near != 0 else float(np.finfo(dt).smallest_subnormal)
    return float(abs(Fraction(float(got)) - ref) / Fraction(unit))


def _same(a, b):
    """Equal bits, or both NaN (the GPU's NaNs are 0x7fffffff, numpy's 0x7fc00000)."""
    a, b = np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1)
    with np.errstate(all="ignore"):
        return (a.view(np.uint8).reshape(a.size, -1) == b.view(np.uint8).reshape(b.size, -1)).all(axis=1) | \
            (np.isnan(a) & np.isnan(b))


@functools.lru_cache(None)
def _dpi(prec):
    with localcontext() as c:
        c.prec = prec + 5
        lasts, t, s, n, na, d, da = 0, D(3), D(3), 1, 0, 0, 24
        while s != lasts:
            lasts = s
            n, na = n + na, na + 8
            d, da = d + da, da + 32
            t = (t * n) / d
            s += t
        return +s


@functools.lru_cache(None)
def _dgamma(prec):
    """Euler's gamma by Brent and McMillan's algorithm (error e^(-4n))."""
    with localcontext() as c:
        c.prec = prec + 10
        n = int(prec * 0.6) + 10
        u, v = -D(n).ln(), D(1)
        A, B, nn, k = u, v, D(n) * D(n), 1
        while True:
            v = v * nn / (k * k)
            u = (u * nn / k + v) / k
            A, B = A + u, B + v
            if k > 3 * n and v < D(10) ** (-(prec + 5)) * B:
                return A / B
            k += 1


def _jy01(x):
    """J0, J1, Y0, Y1 at x > 0 (a float) by their power series, in as many digits as the
    cancellation needs."""
    x = D(float(x))
    prec = int(float(x) * 0.45) + 45
    with localcontext() as c:
        c.prec = prec
        q, half = -(x * x) / 4, x / 2
        j0 = j1 = s0 = s1 = D(0)
        t0 = t1 = D(1)
        h, k, eps = D(0), 0, D(10) ** (-(prec - 5))
        while True:
            hn = h + D(1) / (k + 1)
            j0, j1, s0, s1 = j0 + t0, j1 + t1, s0 + h * t0, s1 + (h + hn) * t1
            if k > 5 and abs(t0) < eps and abs(t1) < eps:
                break
            k, h = k + 1, hn
            t0, t1 = t0 * q / (k * k), t1 * q / (k * (k + 1))
        j1 = half * j1
        pi, L = _dpi(prec), (x / 2).ln() + _dgamma(prec)
        return j0, j1, 2 / pi * (L * j0 - s0), -2 / (pi * x) + 2 / pi * L * j1 - half * s1 / pi


def _jn(n, x):
    """J_n(x) (n >= 0) by its power series."""
    x = D(float(x))
    prec = int(float(abs(x)) * 0.45) + 45
    with localcontext() as c:
        c.prec = prec
        q, t, s, k = -(x * x) / 4, (x / 2) ** n / math.factorial(n) if n else D(1), D(0), 0
        while True:
            s += t
            if k > 5 and abs(t) <= abs(s) * D(10) ** (-(prec - 5)):
                return s
            k += 1
            t = t * q / (k * (k + n))


def _yn(n, x):
    """Y_n(x) by the forward recurrence from Y0, Y1 (stable), in 60 more digits."""
    _, _, a, b = _jy01(x)
    if n == 0:
        return a
    with localcontext() as c:
        c.prec = int(float(x) * 0.45) + 105
        x = D(float(x))
        for k in range(1, n):
            a, b = b, 2 * k / x * b - a
        return b


def _i(nu, x):
    """I_nu(x) (nu = 0, 1) by its power series (no cancellation)."""
    x = D(float(x))
    with localcontext() as c:
        c.prec = 40
        q, t, s, k = x * x / 4, (x / 2) if nu else D(1), D(0), 0
        while True:
            s += t
            if k > 5 and abs(t) <= abs(s) * D(10) ** -38:
                return s
            k += 1
            t = t * q / (k * (k + nu))


def _erfcx(x):
    """exp(x^2) erfc(x): erf's series below 5 (digits for the cancellation), the
    continued fraction 1/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))) above."""
    x = D(float(x))
    with localcontext() as c:
        if x < 5:
            c.prec = int(float(x * x) * 0.45) + 50
            s, t, k = D(0), x, 0
            while True:
                term = t / (2 * k + 1)
                s += term
                if k > 3 and abs(term) < D(10) ** (-c.prec + 3):
                    break
                k += 1
                t = -t * x * x / k
            return (x * x).exp() * (1 - 2 / _dpi(c.prec).sqrt() * s)
        c.prec = 50
        f = x
        for k in range(3000, 0, -1):
            f = x + (D(k) / 2) / f
        return 1 / (_dpi(50).sqrt() * f)


# ------------------------------------------------------------------ kernels
EXACT = r"""
extern "C" __global__ void exact(const float *x, const float *y, const int *n, float *of, int *oi,
                                 const double *xd, const double *yd, double *od, int *oid) {
  int t = threadIdx.x;
  float a = x[t], b = y[t];
  of[t * 6 + 0] = nextafterf(a, b);
  of[t * 6 + 1] = logbf(a);
  of[t * 6 + 2] = scalbnf(a, n[t]);
  of[t * 6 + 3] = scalblnf(a, (long)n[t] * 3);
  of[t * 6 + 4] = fdividef(a, b);
  of[t * 6 + 5] = t == 0 ? nanf("") : t == 1 ? nanf("0X7fFfFf") : nanf("99999999999999999999");
  oi[t] = ilogbf(a);
  double c = xd[t], d = yd[t];
  od[t * 5 + 0] = nextafter(c, d);
  od[t * 5 + 1] = logb(c);
  od[t * 5 + 2] = scalbn(c, n[t] * 4);
  od[t * 5 + 3] = __hiloint2double(__double2hiint(c), __double2loint(c));
  od[t * 5 + 4] = t == 0 ? nan("") : t == 1 ? nan("0x5") : t == 2 ? nan("12") : t == 3 ? nan("0x1g") : nan("077");
  oid[t * 3 + 0] = ilogb(c);
  oid[t * 3 + 1] = __double2hiint(c);
  oid[t * 3 + 2] = __double2loint(c);
}
"""

REMQUO = r"""
extern "C" __global__ void remq(const float *x, const float *y, float *r, int *q, float *rr,
                                const double *xd, const double *yd, double *rd, int *qd) {
  int t = threadIdx.x;
  r[t] = remquof(x[t], y[t], q + t);
  rr[t] = remainderf(x[t], y[t]);
  int qq;
  rd[t] = remquo(xd[t], yd[t], &qq);
  qd[t] = qq;
}
"""

ROOTS = r"""
extern "C" __global__ void roots(const float *a, const float *b, const float *c, const float *d,
                                 float *o, const double *ad, const double *bd, const double *cd,
                                 const double *dd, double *od) {
  int t = threadIdx.x;
  o[t * 7 + 0] = rhypotf(a[t], b[t]);
  o[t * 7 + 1] = norm3df(a[t], b[t], c[t]);
  o[t * 7 + 2] = rnorm3df(a[t], b[t], c[t]);
  o[t * 7 + 3] = norm4df(a[t], b[t], c[t], d[t]);
  o[t * 7 + 4] = rnorm4df(a[t], b[t], c[t], d[t]);
  o[t * 7 + 5] = rcbrtf(a[t]);
  o[t * 7 + 6] = __frsqrt_rn(a[t]);
  od[t * 6 + 0] = rhypot(ad[t], bd[t]);
  od[t * 6 + 1] = norm3d(ad[t], bd[t], cd[t]);
  od[t * 6 + 2] = rnorm3d(ad[t], bd[t], cd[t]);
  od[t * 6 + 3] = norm4d(ad[t], bd[t], cd[t], dd[t]);
  od[t * 6 + 4] = rnorm4d(ad[t], bd[t], cd[t], dd[t]);
  od[t * 6 + 5] = rcbrt(ad[t]);
}
"""

NORMS = r"""
extern "C" __global__ void norms(const float *x, float *o, int n, const double *xd, double *od) {
  __shared__ float sh[128];
  int t = threadIdx.x;
  float loc[3];
  for (int i = 0; i < 3; i++) loc[i] = x[t + i];
  sh[t] = x[t];
  sh[t + 32] = x[t + 32];
  __syncthreads();
  o[t * 6 + 0] = normf(3, loc);
  o[t * 6 + 1] = rnormf(3, loc);
  o[t * 6 + 2] = normf(n, x + t);
  o[t * 6 + 3] = rnormf(n, sh + t);
  o[t * 6 + 4] = normf(0, x);
  o[t * 6 + 5] = rnormf(-1, x);
  od[t * 2 + 0] = norm(n, xd + t);
  od[t * 2 + 1] = rnorm(4, xd + t);
}
"""

BESSEL = r"""
extern "C" __global__ void bessel(const float *x, const int *n, float *o, const double *xd, double *od) {
  int t = threadIdx.x;
  float a = x[t];
  double b = xd[t];
  o[t * 9 + 0] = j0f(a);
  o[t * 9 + 1] = j1f(a);
  o[t * 9 + 2] = y0f(a);
  o[t * 9 + 3] = y1f(a);
  o[t * 9 + 4] = jnf(n[t], a);
  o[t * 9 + 5] = ynf(n[t], a);
  o[t * 9 + 6] = cyl_bessel_i0f(a);
  o[t * 9 + 7] = cyl_bessel_i1f(a);
  o[t * 9 + 8] = erfcxf(a);
  od[t * 9 + 0] = j0(b);
  od[t * 9 + 1] = j1(b);
  od[t * 9 + 2] = y0(b);
  od[t * 9 + 3] = y1(b);
  od[t * 9 + 4] = jn(n[t], b);
  od[t * 9 + 5] = yn(n[t], b);
  od[t * 9 + 6] = cyl_bessel_i0(b);
  od[t * 9 + 7] = cyl_bessel_i1(b);
  od[t * 9 + 8] = erfcx(b);
}
"""

WARP = r"""
__constant__ float cst[4];
extern "C" __global__ void warp(const int *v, unsigned *o, int *p, float *g) {
  __shared__ float sh[32];
  float loc[2];
  int t = threadIdx.x;
  float sc = g[t];
  loc[t & 1] = sc;
  sh[t & 31] = loc[0];
  int pr = -1;
  o[t * 8 + 0] = __match_all_sync(0xffffffffu, v[t], &pr);
  p[t * 2 + 0] = pr;
  if (t & 1) {
    o[t * 8 + 1] = __match_all_sync(0xaaaaaaaau, t < 32 ? 7 : t, &pr);
    p[t * 2 + 1] = pr;
  }
  o[t * 8 + 2] = __isGlobal(g + t);
  o[t * 8 + 3] = __isShared(sh + (t & 31));
  o[t * 8 + 4] = __isLocal(loc);
  o[t * 8 + 5] = __isConstant(cst + (t & 3));
  o[t * 8 + 6] = __isGlobal(cst) + 2 * __isShared(g) + 4 * __isLocal(sh) + 8 * __isConstant(g)
                 + 16 * __isGlobal(sh) + 32 * __isGlobal(loc);
  o[t * 8 + 7] = __isLocal(&sc) + 2 * __isGlobal(&sc);
}
"""

# (a float and a double argument, nextafter(1.f, 2.0) or remquo(1.0, 2.f, &q), are
# ambiguous under NVRTC, which has no <cmath> templates: "more than one instance of
# overloaded function"; the emulator takes the double overload, as C++'s promotion would)
SIZES = r"""
extern "C" __global__ void sizes(int *o) {
  int q;
  o[0] = sizeof(nextafter(1.f, 2.f)); o[1] = sizeof(nextafter(1.0, 2.0));
  o[2] = sizeof(rhypot(1.f, 2.f)); o[3] = sizeof(norm3d(1.f, 2.f, 3.f));
  o[4] = sizeof(rnorm3d(1.f, 2.f, 3.f)); o[5] = sizeof(norm4d(1.f, 2.f, 3.f, 4.f));
  o[6] = sizeof(rnorm4d(1.f, 2.f, 3.f, 4.f)); o[7] = sizeof(rcbrt(1.f));
  o[8] = sizeof(logb(1.f)); o[9] = sizeof(logb(1.0)); o[10] = sizeof(ilogb(1.0));
  o[11] = sizeof(scalbn(1.f, 2)); o[12] = sizeof(scalbln(1.0, 2L)); o[13] = sizeof(jn(1, 2.f));
  o[14] = sizeof(yn(1, 2.0)); o[15] = sizeof(j0(1.f)); o[16] = sizeof(cyl_bessel_i1(1.f));
  o[17] = sizeof(erfcx(1.f)); o[18] = sizeof(remquo(1.f, 2.f, &q)); o[19] = sizeof(remquo(1.0, 2.0, &q));
  o[20] = sizeof(nanf("")); o[21] = sizeof(nan("")); o[22] = sizeof(__hiloint2double(1, 2));
  o[23] = sizeof(y1(1.f)); o[24] = sizeof(fdividef(1.f, 2.f)); o[25] = sizeof(__isGlobal(o));
  o[26] = sizeof(scalbnf(1.0, 2)); o[27] = sizeof(ilogbf(1.0));
}
"""
SIZES_WANT = [4, 8, 8, 8, 8, 8, 8, 4, 4, 8, 4, 4, 8, 4, 8, 4, 4, 4, 4, 8, 4, 8, 8, 4, 4, 4, 4, 4]


# ------------------------------------------------------------------ inputs
_FSPECIAL = [0.0, -0.0, 1.0, -1.0, 1.5, 1e-45, -1e-45, 1.1754942e-38, 1.17549435e-38, 3.4028235e38,
             INF, -INF, NAN, 2.5, -7.0, 1e10]


def _exact_inputs():
    rng = np.random.default_rng(68)
    x = np.concatenate([_FSPECIAL, rng.standard_normal(48) * np.exp(rng.uniform(-60, 60, 48))]).astype(F32)
    y = np.concatenate([[1, 1, 0, 0, INF, 0, 1, 1, -1, INF, -INF, 0, 1, NAN, -7, 0],
                        rng.standard_normal(48) * np.exp(rng.uniform(-60, 60, 48))]).astype(F32)
    n = np.concatenate([[3, -3, 149, -149, 300, 200, -1, 1, -1, 1, 5, -5, 2, 0, 1000, -1000],
                        rng.integers(-160, 160, 48)]).astype(np.int32)
    xd = np.concatenate([[0.0, -0.0, 1.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                          INF, -INF, NAN, 3.0, -0.75, 1e300, 1e-300, 2.0 ** 1023, 1.0 + 2.0 ** -52],
                         rng.standard_normal(48) * np.exp(rng.uniform(-600, 600, 48))])
    yd = np.concatenate([[1, 0, -1, 0, 1, 0, INF, 0, 1, 1, NAN, -INF, 0, 1, 1, 1],
                         rng.standard_normal(48) * np.exp(rng.uniform(-600, 600, 48))])
    return [x, y, n, np.zeros(64 * 6, F32), np.zeros(64, np.int32), xd, yd, np.zeros(64 * 5), np.zeros(64 * 3, np.int32)]


def _remquo_inputs():
    rng = np.random.default_rng(7)
    x = np.concatenate([[5, -5, 5, 7, 9, -9, 0.0, -0.0, INF, 1, NAN, 3, 1e38, 2.5, -2.5, 1e-45],
                        rng.standard_normal(48) * np.exp(rng.uniform(-20, 20, 48))]).astype(F32)
    y = np.concatenate([[3, 3, -3, 2, 2, 2, 1, 1, 1, 0, 1, INF, 3e-38, 1, 1, 3e-45],
                        rng.standard_normal(48) * np.exp(rng.uniform(-5, 5, 48))]).astype(F32)
    xd = np.concatenate([x[:16].astype(F64), [1.7e308, 1e308, -1e300], rng.standard_normal(45) * 1e3])
    yd = np.concatenate([y[:16].astype(F64), [-1.2e308, 1.5e308, 1e-300], rng.standard_normal(45)])
    return [x, y, np.zeros(64, F32), np.zeros(64, np.int32), np.zeros(64, F32), xd, yd, np.zeros(64), np.zeros(64, np.int32)]


def _root_inputs():
    rng = np.random.default_rng(11)
    rows = [(3, 4, 0, 0), (1, 2, 2, 0), (0, 0, 0, 0), (-0.0, 0, -0.0, 0), (INF, NAN, 1, 2), (NAN, 1, 2, -INF),
            (NAN, 1, 2, 3), (1e-45, 0, 0, 0), (3e38, 3e38, 3e38, 3e38), (1e-40, 1e-40, 0, 0),
            (-8, 0, 0, 0), (2 ** -75, 2 ** -75, 2 ** -75, 2 ** -75), (1, 1, 1, 1), (5, 12, 0, 0),
            (-27, 1, 1, 1), (1.7e38, 1, 1, 1)]
    f = np.array(rows, F64).T
    r = rng.standard_normal((4, 48)) * np.exp(rng.uniform(-40, 40, (4, 48)))
    a, b, c, d = np.concatenate([f, r], axis=1).astype(F32)
    rd = rng.standard_normal((4, 48)) * np.exp(rng.uniform(-300, 300, (4, 48)))
    fd = np.array(rows[:12] + [(1e300, 1e300, 1e300, 1e300), (1e-300, 0, 0, 0), (2.0 ** -1074, 0, 0, 0),
                               (-1e-310, 1, 1, 1)], F64).T
    ad, bd, cd, dd = np.concatenate([fd, rd], axis=1)
    return [a, b, c, d, np.zeros(64 * 7, F32), ad, bd, cd, dd, np.zeros(64 * 6)]


def _bessel_inputs():
    rng = np.random.default_rng(5)
    special = [0.0, -0.0, INF, -INF, NAN, -1.5, 1e-30, 0.893576966, 2.4048255, 3.831706, 5.5200781,
               30.0, 99.9, 88.0, 100.0, 24.9]
    x = np.concatenate([special, rng.uniform(0, 100, 32), rng.uniform(0, 8, 12), -rng.uniform(0, 30, 4)]).astype(F32)
    n = np.concatenate([[0, 1, 2, 3, 2, 3, 2, 2, -1, 5, 10, 20, 50, 2, 200, 7],
                        rng.integers(0, 30, 48)]).astype(np.int32)
    n[-8:-4] = [0, 1, 2, 3]
    return [x, n, np.zeros(64 * 9, F32), x.astype(F64), np.zeros(64 * 9)]


def _warp_inputs():
    v = np.concatenate([np.full(32, 5), np.arange(32)]).astype(np.int32)
    return [v, np.zeros(64 * 8, np.uint32), np.full(128, -7, np.int32), np.arange(64, dtype=F32)]


# ------------------------------------------------------------------ tests
def test_next_values_exponents_and_scaling_are_exact():
    """nextafterf / nextafter, logbf / logb, ilogbf / ilogb (INT_MIN at 0 and NaN, INT_MAX at
    the infinities), scalbnf / scalblnf / scalbn (x 2^n rounded once, subnormals included),
    fdividef (IEEE division by default), nanf and nan (0x7fc00000 and 0x7ff8000000000000,
    the tag's number below, as libdevice reads it) and a double's two halves."""
    ins = _exact_inputs()
    (x, y, n, of, oi, xd, yd, od, oid), _ = run(EXACT, "exact", 1, 64, [a.copy() for a in ins])
    of, od, oid = of.reshape(64, 6), od.reshape(64, 5), oid.reshape(64, 3)
    with np.errstate(all="ignore"):
        assert _same(of[:, 0], np.nextafter(x, y)).all()
    with np.errstate(all="ignore"):
        assert _same(od[:, 0], np.nextafter(xd, yd)).all()
    assert of[0, 0] == F32(1e-45) and of[5, 0] == 0 and of[9, 0] == INF
    for k, v in enumerate(x):
        v = float(v)
        want_e = (INF if math.isinf(v) else -INF if v == 0 else math.frexp(v)[1] - 1) if not math.isnan(v) else NAN
        assert _same(of[k, 1], F32(want_e)), (v, of[k, 1])
        want_i = (2 ** 31 - 1 if math.isinf(v) else -2 ** 31 if v == 0 or math.isnan(v) else math.frexp(v)[1] - 1)
        assert oi[k] == want_i, (v, oi[k])
        for col, m in ((2, int(n[k])), (3, 3 * int(n[k]))):
            want = v if not math.isfinite(v) or v == 0 else float(_nearest(Fraction(v) * Fraction(2) ** m, F32))
            assert _same(of[k, col], F32(want)), (v, m, of[k, col], want)
        with np.errstate(all="ignore"):
            assert _same(of[k, 4], np.divide(x[k], y[k])), (v, float(y[k]))
    for k, v in enumerate(xd):
        v = float(v)
        want_e = (INF if math.isinf(v) else -INF if v == 0 else math.frexp(v)[1] - 1) if not math.isnan(v) else NAN
        assert _same(od[k, 1], F64(want_e))
        assert oid[k, 0] == (2 ** 31 - 1 if math.isinf(v) else -2 ** 31 if v == 0 or math.isnan(v)
                             else math.frexp(v)[1] - 1)
        m = 4 * int(n[k])
        want = v if not math.isfinite(v) or v == 0 else float(_nearest(Fraction(v) * Fraction(2) ** m, F64))
        assert _same(od[k, 2], want), (v, m, od[k, 2])
    assert od[:, 3].tobytes() == xd.tobytes()
    bits = xd.view(np.uint64)
    assert oid[:, 1].tolist() == (bits >> np.uint64(32)).astype(np.uint32).view(np.int32).tolist()
    assert oid[:, 2].tolist() == (bits & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32).tolist()
    nanbits = od[:, 4].view(np.uint64)
    assert [hex(int(v)) for v in nanbits[:5]] == ["0x7ff8000000000000", "0x7ff8000000000005", "0x7ff800000000000c",
                                                   "0x7ff8000000000000", "0x7ff800000000003f"]
    assert [hex(int(v)) for v in of[:3, 5].view(np.uint32)] == ["0x7fc00000", "0x7fffffff", "0x7fffffff"]


def test_remquo_gives_the_ieee_remainder_and_the_quotients_low_bits():
    """remquof / remquo: the remainder of the quotient rounded to nearest even (exact),
    the quotient's low 3 bits with the sign of x / y; remainderf is the same remainder
    (it was numpy's floored modulo: remainderf(5, 3) gave 2, CUDA gives -1)."""
    ins = _remquo_inputs()
    (x, y, r, q, rr, xd, yd, rd, qd), _ = run(REMQUO, "remq", 1, 64, [a.copy() for a in ins])
    for xs, ys, rs, qs, dt in ((x, y, r, q, F32), (xd, yd, rd, qd, F64)):
        for k in range(64):
            a, b = float(xs[k]), float(ys[k])
            if math.isnan(a) or math.isnan(b) or math.isinf(a) or b == 0:
                assert np.isnan(rs[k])
                continue
            if math.isinf(b):
                assert _same(rs[k], dt(a)) and qs[k] == 0
                continue
            n = round(Fraction(a) / Fraction(b))           # to nearest, ties to even
            want = Fraction(a) - n * Fraction(b)
            assert Fraction(float(rs[k])) == want and (want != 0 or np.signbit(rs[k]) == (math.copysign(1, a) < 0))
            assert float(rs[k]) == math.remainder(a, b)
            sign = -1 if (a < 0) != (b < 0) else 1
            assert qs[k] == sign * (abs(n) % 8), (a, b, qs[k], n)
    assert r[:3].tolist() == [-1, 1, -1] and q[:4].tolist() == [2, -2, -2, 4]
    assert _same(rr, r).all()


def test_roots_are_the_exact_value_rounded_once():
    """rhypotf, norm3df, rnorm3df, norm4df, rnorm4df, rcbrtf, __frsqrt_rn and the double
    forms: the exact root rounded to nearest even (against 100-digit square and cube roots
    of the exact sum of squares), subnormal results and overflow included; an infinite
    coordinate wins over a NaN."""
    ins = _root_inputs()
    (a, b, c, d, o, ad, bd, cd, dd, od), _ = run(ROOTS, "roots", 1, 64, [v.copy() for v in ins])
    o, od = o.reshape(64, 7), od.reshape(64, 6)

    def root(vals, inverse, k, dt):
        if any(math.isinf(v) for v in vals):
            return dt(0.0 if inverse else INF)
        if any(math.isnan(v) for v in vals):
            return dt(NAN)
        S = sum(Fraction(v) ** 2 for v in vals) if k == 2 else Fraction(abs(vals[0]))
        if S == 0:
            return dt(INF if inverse else 0.0)
        with localcontext() as ctx:
            ctx.prec = 100
            s = D(S.numerator) / D(S.denominator)
            r = s.sqrt() if k == 2 else (s.ln() / 3).exp()
            if k == 3 and (r ** 3 - s).copy_abs() < s * D(10) ** -90:
                r3 = r.to_integral_value()
                r = r3 if r3 ** 3 == s else r
            r = 1 / r if inverse else r
        return _nearest(r, dt)

    for k in range(64):
        fv = [float(v) for v in (a[k], b[k], c[k], d[k])]
        want = [root(fv[:2], True, 2, F32), root(fv[:3], False, 2, F32), root(fv[:3], True, 2, F32),
                root(fv, False, 2, F32), root(fv, True, 2, F32)]
        assert _same(o[k, :5], np.array(want, F32)).all(), (k, fv, o[k, :5], want)
        x = fv[0]
        rc = F32(math.copysign(INF, x)) if x == 0 else F32(math.copysign(0.0, x)) if math.isinf(x) else \
            F32(NAN) if math.isnan(x) else F32(math.copysign(float(root([x], True, 3, F32)), x))
        assert _same(o[k, 5], rc), (x, o[k, 5], rc)
        rs = F32(math.copysign(INF, x)) if x == 0 else F32(0.0) if x == INF else \
            F32(NAN) if not x > 0 else _nearest(_inv_sqrt(x), F32)
        assert _same(o[k, 6], rs), (x, o[k, 6], rs)
        dv = [float(v) for v in (ad[k], bd[k], cd[k], dd[k])]
        want = [root(dv[:2], True, 2, F64), root(dv[:3], False, 2, F64), root(dv[:3], True, 2, F64),
                root(dv, False, 2, F64), root(dv, True, 2, F64)]
        assert _same(od[k, :5], np.array(want)).all(), (k, dv, od[k, :5], want)
        x = dv[0]
        rc = math.copysign(INF, x) if x == 0 else math.copysign(0.0, x) if math.isinf(x) else \
            NAN if math.isnan(x) else math.copysign(float(root([x], True, 3, F64)), x)
        assert _same(od[k, 5], rc), (x, od[k, 5], rc)
    assert (o[0, :5] == np.array([0.2, 5, 0.2, 5, 0.2], F32)).all() and o[1, 1] == 3.0
    assert o[8, 3] == INF and 0 < o[8, 2] < 1.2e-38          # overflow, and a subnormal reciprocal
    assert o[10, 5] == -0.5 and o[14, 5] == F32(-1 / 3)


def _inv_sqrt(x):
    with localcontext() as ctx:
        ctx.prec = 100
        return 1 / D(x).sqrt()


def test_normf_loads_the_array_and_rounds_its_length_once():
    """normf(dim, p) / rnormf / norm / rnorm over local, global and shared arrays: the
    exact length rounded once; a constant dim's loads unrolled, a run-time dim's in
    libdevice's two loops (each coordinate loaded twice: the global requests grow by 2 dim,
    the shared loads too); normf(0, p) is |p[0]| and rnormf(-1, p) 1/|p[0]|, as libdevice's
    are (it reads p[0] whatever dim is)."""
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(128) * np.exp(rng.uniform(-20, 20, 128))).astype(F32)
    x[5], x[6], x[20] = INF, NAN, NAN
    xd = rng.standard_normal(128) * np.exp(rng.uniform(-200, 200, 128))
    xd[10] = -INF

    def launch(n):
        return run(NORMS, "norms", 1, 32, [x.copy(), np.zeros(32 * 6, F32), np.int32(n), xd.copy(), np.zeros(64)])

    def want(vals, inverse, dt):
        vals = [float(v) for v in vals]
        if any(math.isinf(v) for v in vals):
            return dt(0.0 if inverse else INF)
        if any(math.isnan(v) for v in vals):
            return dt(NAN)
        S = sum(Fraction(v) ** 2 for v in vals)
        if S == 0:
            return dt(INF if inverse else 0.0)
        with localcontext() as ctx:
            ctx.prec = 100
            s = (D(S.numerator) / D(S.denominator)).sqrt()
            return _nearest(1 / s if inverse else s, dt)

    (_, o, _, _, od), r4 = launch(4)
    (_, _, _, _, _), r9 = launch(9)
    o, od = o.reshape(32, 6), od.reshape(32, 2)
    for t in range(32):
        w = [want(x[t:t + 3], False, F32), want(x[t:t + 3], True, F32), want(x[t:t + 4], False, F32),
             want(x[t:t + 4], True, F32), want(x[:1], False, F32), want(x[:1], True, F32)]
        assert _same(o[t], np.array(w, F32)).all(), (t, o[t], w)
        assert _same(od[t], np.array([want(xd[t:t + 4], False, F64), want(xd[t:t + 4], True, F64)])).all()
    # a run-time dim: normf(n, x + t) and norm(n, xd + t) load each coordinate twice (libdevice's
    # two passes), rnormf(n, sh + t) too
    assert r9.metrics[C.REQ_LD] - r4.metrics[C.REQ_LD] == 2 * 2 * 5
    assert r9.metrics[C.SHARED_LD] - r4.metrics[C.SHARED_LD] == 2 * 5


@pytest.fixture(scope="module")
def bessel_run():
    ins = _bessel_inputs()
    (x, n, o, xd, od), _ = run(BESSEL, "bessel", 1, 64, [a.copy() for a in ins])
    return x, n, o.reshape(64, 9), od.reshape(64, 9)


def _bessel_refs(x, n):
    """Per lane: J0, J1, Y0, Y1, Jn, Yn, I0, I1, erfcx at x (float), as exact values
    (Decimals), or floats for the special cases."""
    v, nn = float(x), int(n)
    a = abs(v)
    out = [None] * 9
    if math.isnan(v):
        return [NAN] * 9
    if math.isinf(v):
        odd = -0.0 if v < 0 else 0.0
        out[:6] = [0.0, odd, 0.0 if v > 0 else NAN, 0.0 if v > 0 else NAN,
                   NAN if nn < 0 else (odd if nn % 2 else 0.0), NAN if nn < 0 or v < 0 else 0.0]
        out[6:] = [INF, v, 0.0 if v > 0 else INF]
        return out
    sgn = -1 if v < 0 or (v == 0 and math.copysign(1, v) < 0) else 1
    if a == 0:
        out[:4] = [1.0, sgn * 0.0, -INF, -INF]
        out[4] = NAN if nn < 0 else 1.0 if nn == 0 else (sgn if nn % 2 else 1) * 0.0
        out[5] = NAN if nn < 0 else -INF
    else:
        j0, j1, y0, y1 = _jy01(a)
        out[0], out[1] = j0, sgn * j1
        out[2], out[3] = (y0, y1) if v > 0 else (NAN, NAN)
        out[4] = NAN if nn < 0 else (sgn if nn % 2 else 1) * _jn(nn, a)
        out[5] = NAN if nn < 0 or v < 0 else _yn(nn, a)
    out[6] = _i(0, a)
    out[7] = sgn * _i(1, a) if a else sgn * 0.0
    out[8] = _erfcx(v)
    return out


def test_bessel_functions_and_erfcx_within_an_ulp(bessel_run):
    """j0f j1f y0f y1f jnf ynf cyl_bessel_i0f cyl_bessel_i1f erfcxf within 1 ulp of the
    exact value (60-digit series) for x in [0, 100] (the floats nearest the first zeros
    included), and CUDA's documented special values: jnf(n < 0) and ynf(n < 0) NaN, the
    Y functions NaN below 0 and -inf at 0, J0 and the I functions even, J1 and I1 odd,
    ynf overflowing to -inf; the double forms within 8 ulp (jn, yn: 8 + 2n, for the
    recurrences' n steps), or 2e-16 absolute (CUDA's jn and yn promise 5e-12)."""
    x, n, o, od = bessel_run
    for k in range(64):
        refs = _bessel_refs(x[k], n[k])
        for col, ref in enumerate(refs):
            dtol = 8.0 + 2 * max(int(n[k]), 0) if col in (4, 5) else 8.0     # recurrences: n steps
            for got, dt, tol in ((o[k, col], F32, 1.0), (od[k, col], F64, dtol)):
                if isinstance(ref, float):
                    assert _same(got, dt(ref)), (float(x[k]), int(n[k]), col, got, ref)
                    continue
                near = _nearest(ref, dt)
                if not np.isfinite(near):
                    assert got == near, (float(x[k]), col, got)
                    continue
                err = _ulps(got, ref, dt)
                ok = err <= tol or (dt == F64 and abs(Fraction(float(got)) - Fraction(ref)) < Fraction(2e-16))
                assert ok, (float(x[k]), int(n[k]), col, dt.__name__, got, float(ref), err)


def test_bessel_zero_table_matches_the_series():
    """simt.ops._ZEROS (the zeros below 25 simt expands about): each within 1e-30 of a
    zero of the 60-digit series, and the derivative there right to double."""
    for name, rows in ops._ZEROS.items():
        col = ("j0", "j1", "y0", "y1").index(name)
        for hi, lo, dv in (rows[0], rows[-1]):
            with localcontext() as ctx:
                ctx.prec = 60
                z = D(float.fromhex(hi)) + D(float.fromhex(lo))
                f = _jy01_at(z)
                assert abs(f[col]) < D(10) ** -29
                j0, j1, y0, y1 = f
                deriv = {"j0": -j1, "j1": j0 - j1 / z, "y0": -y1, "y1": y0 - y1 / z}[name]
                assert abs(float(deriv) - float.fromhex(dv)) <= 1e-16 * abs(float(deriv))


def _jy01_at(z):
    """_jy01 at a Decimal argument (the zeros carry more than a double's digits)."""
    with localcontext() as c:
        c.prec = 60
        q, half = -(z * z) / 4, z / 2
        j0 = j1 = s0 = s1 = D(0)
        t0 = t1 = D(1)
        h, k = D(0), 0
        while True:
            hn = h + D(1) / (k + 1)
            j0, j1, s0, s1 = j0 + t0, j1 + t1, s0 + h * t0, s1 + (h + hn) * t1
            if k > 5 and abs(t0) < D(10) ** -58 and abs(t1) < D(10) ** -58:
                break
            k, h = k + 1, hn
            t0, t1 = t0 * q / (k * k), t1 * q / (k * (k + 1))
        j1 = half * j1
        pi, L = _dpi(60), (z / 2).ln() + _dgamma(60)
        return j0, j1, 2 / pi * (L * j0 - s0), -2 / (pi * z) + 2 / pi * L * j1 - half * s1 / pi


def test_match_all_and_the_address_space_tests():
    """__match_all_sync: mask when every lane of mask holds the same value (pred 1), else
    0 (pred 0), over a partial mask too; __isGlobal / __isShared / __isLocal /
    __isConstant on a global, a shared, a local and a __constant__ array (and &x of a
    variable kept in registers: local); one match_all costs machine.OP_COST's row."""
    (v, o, p, g), res = run(WARP, "warp", 1, 64, _warp_inputs())
    o, p = o.reshape(64, 8), p.reshape(64, 2)
    assert o[:32, 0].tolist() == [0xFFFFFFFF] * 32 and p[:32, 0].tolist() == [1] * 32
    assert o[32:, 0].tolist() == [0] * 32 and p[32:, 0].tolist() == [0] * 32
    assert o[1:32:2, 1].tolist() == [0xAAAAAAAA] * 16 and p[1:32:2, 1].tolist() == [1] * 16
    assert o[33::2, 1].tolist() == [0] * 16 and p[33::2, 1].tolist() == [0] * 16
    assert p[0::2, 1].tolist() == [-7] * 32
    assert o[:, 2:6].tolist() == [[1, 1, 1, 1]] * 64
    assert o[:, 6].tolist() == [0] * 64 and o[:, 7].tolist() == [1] * 64
    assert res.metrics[C.ISSUE_EXTRA] == 4 * machine.OP_COST["match_all"][1]


def test_overloads_follow_nvrtcs_headers():
    """The float overloads CUDA's headers declare for NVRTC (nextafter, logb, ilogb,
    scalbn, norm3d, norm4d, rcbrt, the Bessel functions, erfcx, remquo) and the double-
    only ones (rhypot, rnorm3d, rnorm4d): sizeof of each result."""
    (o,), _ = run(SIZES, "sizes", 1, 1, [np.zeros(28, np.int32)])
    assert o.tolist() == SIZES_WANT


@pytest.mark.parametrize("code, message", [
    ("float r = nextafterf(1.0f);", 'wrong number of arguments in call to "nextafterf" (expected 2, got 1)'),
    ("float r = norm4df(1.0f, 2.0f, 3.0f);", 'wrong number of arguments in call to "norm4df" (expected 4, got 3)'),
    ("float r = normf(3);", 'wrong number of arguments in call to "normf" (expected 2, got 1)'),
    ("float r = jnf(2);", 'wrong number of arguments in call to "jnf" (expected 2, got 1)'),
    ("int q; float r = remquof(1.0f, 2.0f);", 'wrong number of arguments in call to "remquof" (expected 3, got 2)'),
    ("int q; unsigned r = __match_all_sync(0xffffffffu, 1);",
     'wrong number of arguments in call to "__match_all_sync" (expected 3, got 2)'),
    ("float r = rcbrtf(1.0f, 2.0f);", 'wrong number of arguments in call to "rcbrtf" (expected 1, got 2)'),
    ("double r = normf(3, y);", 'no instance of overloaded function "normf" matches the argument list '
     "(argument types are: (int, double *))"),
    ("float f; float r = remquof(1.0f, 2.0f, &f);",
     'argument of type "float *" is incompatible with parameter of type "int *" in remquof'),
    ("unsigned r = __isGlobal(3);",
     'argument of type "int" is incompatible with parameter of type "const void *" in __isGlobal'),
])
def test_wrong_calls_are_compile_errors_at_the_call(code, message):
    src = f"__global__ void k(double *y) {{\n  {code}\n}}"
    err = compile_error(src)
    assert err.startswith("bad.cu:2:") and f"error: {message}" in err, err


def test_nan_reads_its_tag_from_a_literal():
    err = compile_error('__global__ void k(double *y, const char *s) {\n  y[0] = nan(s);\n}')
    assert err.startswith("bad.cu:2:14: error: simt reads the tag of nan() from a string literal"), err


def test_every_new_math_function_has_a_cost_and_fdividef_is_a_division():
    """Each new math call has machine.OP_COST rows (measured on the H200 by math5/),
    and fdividef costs what x / y costs (the IEEE division, CUDA's default)."""
    for base in ("nextafter logb ilogb rcbrt rhypot norm3d rnorm3d norm4d rnorm4d norm rnorm remquo "
                 "j0 j1 jn y0 y1 yn cyl_bessel_i0 cyl_bessel_i1 erfcx").split():
        assert f"m_{base}_f4" in machine.OP_COST and f"m_{base}_f8" in machine.OP_COST, base
    assert "m_frsqrt_rn_f4" in machine.OP_COST and "match_all" in machine.OP_COST
    src = 'extern "C" __global__ void k(const float *x, float *y) {{ y[threadIdx.x] = {}; }}'
    x = np.linspace(1, 2, 32).astype(F32)
    got = [run(src.format(e), "k", 1, 32, [x, np.zeros(32, F32)])[1].metrics[C.ISSUE_EXTRA]
           for e in ("fdividef(x[threadIdx.x], 3.0f)", "x[threadIdx.x] / 3.0f", "ilogbf(x[threadIdx.x]) + 0.0f",
                     "(float)ilogb((double)x[threadIdx.x])")]
    assert got[0] == got[1] == machine.OP_COST["fdiv"][1]
    assert got[2] == machine.OP_COST["m_ilogb_f4"][1] and got[3] == machine.OP_COST["m_ilogb_f8"][1]


def test_a_ternary_leaves_what_its_untaken_call_would_store_alone():
    """frexpf, modff and sincosf store through a pointer: a ternary whose lane does not take
    the call must not run it (they were marked side-effect free, so both arms ran for every
    lane and e, ip and s were written on all of them)."""
    src = r'''extern "C" __global__ void k(const float *x, float *y, int *e_out, float *ip_out, float *s_out) {
        int t = threadIdx.x;
        int e = -7; float ip = -7.f, s = -7.f, c = -7.f, xv = x[t];
        float a = (t & 1) ? frexpf(xv, &e) : 0.f;
        float b = (t & 2) ? modff(xv, &ip) : 0.f;
        float d = (t & 4) ? (sincosf(xv, &s, &c), 1.f) : 0.f;
        y[t] = a + b + d;
        e_out[t] = e; ip_out[t] = ip; s_out[t] = s;
    }'''
    x = np.linspace(1.25, 9.5, 32).astype(F32)
    (_, _, e, ip, s), _ = run(src, "k", 1, 32, [x, np.zeros(32, F32), np.zeros(32, np.int32),
                                                 np.zeros(32, F32), np.zeros(32, F32)])
    t = np.arange(32)
    assert (e == np.where(t & 1, np.frexp(x)[1], -7)).all()
    assert (ip == np.where(t & 2, np.trunc(x), -7)).all()
    assert (s[(t & 4) == 0] == -7).all() and (s[(t & 4) != 0] != -7).all()


# ------------------------------------------------------------------ the GPU
def _ord(a):
    """Floats as integers ordered as the floats are (for ulp distances)."""
    a = np.asarray(a)
    it = np.int32 if a.dtype == F32 else np.int64
    i = a.view(it).astype(np.int64)
    return np.where(i < 0, np.int64(np.iinfo(it).min) - i, i)


def _close(emu, gpu, ulps, absolute=0.0):
    """Same bits, both NaN, within ``ulps`` of each other, or within ``absolute``."""
    emu, gpu = np.asarray(emu), np.asarray(gpu)
    with np.errstate(all="ignore"):
        return _same(emu, gpu) | (np.abs(_ord(emu) - _ord(gpu)) <= ulps) | \
            (np.abs(emu.astype(F64) - gpu.astype(F64)) <= absolute)


def _gpu_launch(src, name, grid, block, args, tmp_path):
    """One launch on the GPU with nvcc's floating-point defaults.  CuPy adds -ftz=true to
    every compile (cupy/cuda/compiler.py; a -ftz=false before it does not undo it: the
    H200 gave nextafterf(0, 1) = FLT_MIN either way, session 69), and libdevice then flushes
    subnormals that nvcc's default and the emulator keep.  So the source goes through
    CuPy's NVRTC binding itself, with --std=c++17 and nothing else, and the module is loaded
    from its PTX.  Returns each argument after the launch (numpy), None for scalars."""
    import cupy
    from cupy.cuda import nvrtc
    prog = nvrtc.createProgram(src, f"{name}.cu", (), ())
    try:
        cc = cupy.cuda.Device().compute_capability
        nvrtc.compileProgram(prog, (f"--gpu-architecture=compute_{cc}", "--std=c++17"))
        ptx = nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)
    path = tmp_path / f"{name}.ptx"
    path.write_bytes(ptx if isinstance(ptx, bytes) else ptx.encode())
    fn = cupy.RawModule(path=str(path)).get_function(name)
    dargs = [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    fn((grid,), (block,), tuple(dargs))
    cupy.cuda.runtime.deviceSynchronize()
    return [d.get() if isinstance(a, np.ndarray) else None for a, d in zip(args, dargs)]


@pytest.mark.gpu
def test_they_match_the_gpu(tmp_path):
    """The kernels above through CuPy on the GPU against the emulator: exact functions bit
    for bit (NaNs as NaNs, but nanf and nan("") bit for bit), the others within the CUDA
    Programming Guide's error bounds: rhypotf 2 ulp, norm3df / norm4df 3, rnorm3df /
    rnorm4df 2, normf / rnormf 4 (dim <= 4), rcbrtf 1, j0f j1f y0f y1f 9 ulp or 2.2e-6,
    jnf 2.2e-6, ynf ceil(2 + 2.5n) ulp or 2.2e-6, cyl_bessel_i0f / i1f 6, erfcxf 4; doubles:
    rhypot rnorm3d rnorm4d rcbrt 1 ulp, norm3d norm4d 2, norm / rnorm 4, the J and Y
    functions 7 ulp or 5e-12 (yn: ynf's bound, or 1e-11 relative: the GPU's own error),
    cyl_bessel_i0 / i1 6, erfcx 4; jnf(2, 1e-30), NaN on the GPU, apart.  Also sizeof of each
    overload, and __match_all_sync / the address-space tests exactly."""
    gpu_or_skip()

    def both(src, name, grid, block, args):
        emu, _ = run(src, name, grid, block, [a.copy() if isinstance(a, np.ndarray) else a for a in args])
        return emu, _gpu_launch(src, name, grid, block, args, tmp_path)

    emu, gpu = both(EXACT, "exact", 1, 64, _exact_inputs())
    for k in (3, 4, 7, 8):
        assert _same(emu[k], gpu[k]).all(), f"exact: argument {k + 1}"
    assert emu[7].reshape(64, 5)[:, 4].tobytes() == gpu[7].reshape(64, 5)[:, 4].tobytes(), "nan bits"
    f, g = emu[3].reshape(64, 6), gpu[3].reshape(64, 6)
    assert f[:, 5].tobytes() == g[:, 5].tobytes(), "nanf bits"

    emu, gpu = both(REMQUO, "remq", 1, 64, _remquo_inputs())
    for r, q in ((2, 3), (7, 8)):
        ok = np.isfinite(emu[r])
        assert _same(emu[r], gpu[r]).all(), "remquo remainder"
        assert (emu[q][ok] == gpu[q][ok]).all(), ("remquo quotient", emu[q][ok], gpu[q][ok])
    assert _same(emu[4], gpu[4]).all(), "remainderf"

    emu, gpu = both(ROOTS, "roots", 1, 64, _root_inputs())
    e, g = emu[4].reshape(64, 7), gpu[4].reshape(64, 7)
    for col, u in enumerate((2, 3, 2, 3, 2, 1, 0)):
        assert _close(e[:, col], g[:, col], u).all(), ("roots float", col, e[:, col], g[:, col])
    e, g = emu[9].reshape(64, 6), gpu[9].reshape(64, 6)
    for col, u in enumerate((1, 2, 1, 2, 1, 1)):
        assert _close(e[:, col], g[:, col], u).all(), ("roots double", col)

    x = np.random.default_rng(3).standard_normal(128).astype(F32)
    emu, gpu = both(NORMS, "norms", 1, 32, [x, np.zeros(32 * 6, F32), np.int32(4), x.astype(F64), np.zeros(64)])
    assert _close(emu[1], gpu[1], 4).all() and _close(emu[4], gpu[4], 4).all(), "normf"

    ins = _bessel_inputs()
    emu, gpu = both(BESSEL, "bessel", 1, 64, ins)
    x, n = ins[0], ins[1]
    e, g = emu[2].reshape(64, 9), gpu[2].reshape(64, 9)
    small = np.abs(x) < 8
    for col in range(4):
        assert (_close(e[:, col], g[:, col], 9) | (~small & _close(e[:, col], g[:, col], 0, 2.2e-6))).all(), col
    # (CUDA 13's jnf(2, 1e-30) is NaN on the H200, session 69; J2 there is 1.25e-61, which
    # the emulator rounds to 0)
    quirk = (n == 2) & (x == F32(1e-30))
    assert np.isnan(g[quirk, 4]).all() and (e[quirk, 4] == 0).all()
    assert (_close(e[:, 4], g[:, 4], 2, 2.2e-6) | quirk).all(), "jnf"
    yn_ulps = np.ceil(2 + 2.5 * np.maximum(n, 0))
    assert (_close(e[:, 5], g[:, 5], 0, 2.2e-6) | (np.abs(_ord(e[:, 5]) - _ord(g[:, 5])) <= yn_ulps)).all(), "ynf"
    for col, u in ((6, 6), (7, 6), (8, 4)):
        assert _close(e[:, col], g[:, col], u).all(), col
    e, g = emu[4].reshape(64, 9), gpu[4].reshape(64, 9)
    for col in range(5):
        assert (_close(e[:, col], g[:, col], 7) | _close(e[:, col], g[:, col], 0, 5e-12)).all(), ("double", col)
    # yn for n past x: the GPU's own error grows with n (the recurrence's steps); on the H200
    # yn(200, 100) is 33,671 ulp (7e-12 relative) from the 50-digit value, the emulator's 4,
    # and yn(19, 0.11996836) 13 ulp, the emulator's 4 (session 69, mpmath)
    with np.errstate(all="ignore"):
        rel = np.abs(e[:, 5] - g[:, 5]) / np.abs(g[:, 5])
    assert (_close(e[:, 5], g[:, 5], 0, 5e-12) | (np.abs(_ord(e[:, 5]) - _ord(g[:, 5])) <= yn_ulps)
            | (rel <= 1e-11)).all(), ("double", 5)
    for col, u in ((6, 6), (7, 6), (8, 4)):
        assert _close(e[:, col], g[:, col], u).all(), ("double", col)

    emu, gpu = both(WARP, "warp", 1, 64, _warp_inputs())
    assert emu[1].tolist() == gpu[1].tolist() and emu[2].tolist() == gpu[2].tolist(), "match_all / spaces"
    emu, gpu = both(SIZES, "sizes", 1, 1, [np.zeros(28, np.int32)])
    assert gpu[0].tolist() == SIZES_WANT
