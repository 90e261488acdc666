"""The intrinsics with a rounding mode in their name (simt.rounding): every result is the
exact value rounded as the mode says, checked against exact rationals (an independent
reference: the candidates around the value, the one the mode picks), in the emulator
and, on a GPU, against the hardware bit for bit."""
from fractions import Fraction

import numpy as np
import pytest

from kern import gpu_or_skip, run, same_bytes_on_gpu
from simt.rounding import ROUNDING

F32, F64 = np.float32, np.float64
MODES = ("rn", "rz", "rd", "ru")


def ref_round(v: Fraction, mode: str, dtype):
    """v rounded to dtype by ``mode``, by looking at the representable neighbours."""
    big = np.finfo(dtype).max
    if v > Fraction(float(big)) or v < -Fraction(float(big)):
        up = v > 0
        if mode == "rn":
            # beyond max + half an ulp rounds to infinity
            half = (Fraction(float(big)) - Fraction(float(np.nextafter(dtype(big), dtype(0))))) / 2
            if abs(v) >= Fraction(float(big)) + half:
                return dtype(np.inf if up else -np.inf)
            return dtype(big if up else -big)
        if mode == "rz" or (mode == "rd" and up) or (mode == "ru" and not up):
            return dtype(big if up else -big)
        return dtype(np.inf if up else -np.inf)
    r = dtype(float(v)) if dtype is F64 else dtype(float(v))
    cands = sorted({np.nextafter(r, dtype(-np.inf)), r, np.nextafter(r, dtype(np.inf)),
                    np.nextafter(np.nextafter(r, dtype(-np.inf)), dtype(-np.inf)),
                    np.nextafter(np.nextafter(r, dtype(np.inf)), dtype(np.inf))}, key=float)
    cands = [c for c in cands if np.isfinite(c)]
    below = [c for c in cands if Fraction(float(c)) <= v]
    above = [c for c in cands if Fraction(float(c)) >= v]
    lo, hi = max(below, key=float), min(above, key=float)
    if mode == "rd":
        return lo
    if mode == "ru":
        return hi
    if mode == "rz":
        return lo if v >= 0 else hi
    dl, dh = v - Fraction(float(lo)), Fraction(float(hi)) - v
    if dl != dh:
        return lo if dl < dh else hi
    bits = np.uint32 if dtype is F32 else np.uint64
    return lo if int(np.asarray(lo).view(bits)) % 2 == 0 else hi


def _floats(rng, n, dtype):
    e = rng.integers(-20, 21, n)
    x = (rng.standard_normal(n) * 2.0 ** e).astype(dtype)
    return x


def _exact(op, xs):
    q = [Fraction(float(x)) for x in xs]
    if op == "add":
        return q[0] + q[1]
    if op == "sub":
        return q[0] - q[1]
    if op == "mul":
        return q[0] * q[1]
    if op == "div":
        return q[0] / q[1]
    if op == "rcp":
        return 1 / q[0]
    if op == "fma":
        return q[0] * q[1] + q[2]
    raise ValueError(op)


def _check(name, op, dtype, cols):
    f = ROUNDING[name][2]
    got = f(*cols)
    for k in range(len(cols[0])):
        xs = [c[k] for c in cols]
        if op == "sqrt":
            continue
        v = _exact(op, xs)
        if v == 0:
            continue
        want = ref_round(v, name[-2:], dtype)
        assert got[k].tobytes() == want.tobytes(), (name, xs, got[k], want)


@pytest.mark.parametrize("mode", MODES)
def test_float_arithmetic_rounds_the_exact_value(mode):
    rng = np.random.default_rng(1)
    a, b, c = (_floats(rng, 400, F32) for _ in range(3))
    # sums far apart in scale (the rounding decided below float64's last bit), exact
    # results, a product-sum on a float's midpoint, and overflow
    a[:4] = [1.0, 1.0, 3.0e38, -3.0e38]
    b[:4] = [2.0 ** -60, -(2.0 ** -60), 3.0e38, 3.0e38]
    c[:4] = [2.0 ** -80, 0.5, -1.0, 1.0]
    a[4], b[4], c[4] = 1 + 2.0 ** -12, 1 + 2.0 ** -12, 2.0 ** -60   # a*b = 1 + 2^-11 + 2^-24: a midpoint
    for op in ("add", "sub", "mul", "div", "fma"):
        cols = [a, b, c][:3 if op == "fma" else 2]
        _check({"fma": f"__fmaf_{mode}"}.get(op, f"__f{op}_{mode}"), op, F32, cols)
    _check(f"__frcp_{mode}", "rcp", F32, [b])


@pytest.mark.parametrize("mode", MODES)
def test_sqrt_brackets_the_root(mode):
    rng = np.random.default_rng(2)
    x = np.abs(_floats(rng, 300, F32))
    x[:3] = [4.0, 2.0, 1e-30]
    r = ROUNDING[f"__fsqrt_{mode}"][2](x)
    d = np.abs(_floats(rng, 300, F64))
    d[:2] = [9.0, 2.0]
    rd = ROUNDING[f"__dsqrt_{mode}"][2](d)
    for vals, got, dt in ((x, r, F32), (d, rd, F64)):
        for v, g in zip(vals, got):
            q = Fraction(float(v))
            lo, hi = Fraction(float(np.nextafter(g, dt(-np.inf)))), Fraction(float(np.nextafter(g, dt(np.inf))))
            gq = Fraction(float(g))
            if mode == "rd" or mode == "rz":
                assert gq * gq <= q < hi * hi, (mode, v, g)
            elif mode == "ru":
                assert lo * lo < q <= gq * gq, (mode, v, g)
            else:
                assert (gq + lo) ** 2 / 4 <= q <= (gq + hi) ** 2 / 4, (mode, v, g)


@pytest.mark.parametrize("mode", MODES)
def test_double_arithmetic_rounds_the_exact_value(mode):
    rng = np.random.default_rng(3)
    a, b, c = (_floats(rng, 150, F64) for _ in range(3))
    a[:2], b[:2] = [1.0, 1.7e308], [2.0 ** -80, 1.7e308]
    for op in ("add", "sub", "mul", "div", "fma"):
        cols = [a, b, c][:3 if op == "fma" else 2]
        _check({"fma": f"__fma_{mode}"}.get(op, f"__d{op}_{mode}"), op, F64, cols)
    _check(f"__drcp_{mode}", "rcp", F64, [b])


@pytest.mark.parametrize("mode", MODES)
def test_conversions_round_the_exact_value(mode):
    rng = np.random.default_rng(4)
    i32 = rng.integers(-2**31, 2**31, 300).astype(np.int32)
    i64 = rng.integers(-2**63, 2**63 - 1, 300, dtype=np.int64)
    u64 = rng.integers(0, 2**64 - 1, 300, dtype=np.uint64)
    d = _floats(rng, 300, F64)
    for name, xs, dt in ((f"__int2float_{mode}", i32, F32), (f"__ll2float_{mode}", i64, F32),
                         (f"__ull2float_{mode}", u64, F32), (f"__ll2double_{mode}", i64, F64),
                         (f"__ull2double_{mode}", u64, F64), (f"__double2float_{mode}", d, F32)):
        got = ROUNDING[name][2](xs)
        for x, g in zip(xs, got):
            v = Fraction(int(x)) if xs.dtype.kind in "iu" else Fraction(float(x))
            assert g.tobytes() == ref_round(v, mode, dt).tobytes(), (name, x, g)
    f = _floats(rng, 300, F32) * F32(1000)
    f[:3] = [np.nan, 3e9, -3e9]
    rnd = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}[mode]
    got = ROUNDING[f"__float2ll_{mode}"][2](f)
    assert got[0] == 0 and got[1] == 3_000_000_000 and got[2] == -3_000_000_000
    assert got[3:].tolist() == [int(v) for v in rnd(f[3:].astype(F64))]
    got = ROUNDING[f"__double2int_{mode}"][2](np.array([np.nan, 3e9, -3e9, 2.5, -2.5]))
    want = [0, 2**31 - 1, -2**31] + [int(v) for v in rnd(np.array([2.5, -2.5]))]
    assert got.tolist() == want


def test_an_exact_zero_sum_is_minus_zero_rounding_down_only():
    """IEEE: x + (-x) is +0 in every mode but round-down, where it is -0; two +0 stay +0."""
    a = np.array([1.5, 0.0, -0.0, 2.0], F32)
    b = np.array([-1.5, 0.0, -0.0, -2.0], F32)
    for mode in MODES:
        want = [mode == "rd", False, True, mode == "rd"]
        for name, x, y in ((f"__fadd_{mode}", a, b), (f"__fsub_{mode}", a, -b)):
            assert np.signbit(ROUNDING[name][2](x, y)).tolist() == want, (name, mode)
        got = ROUNDING[f"__dadd_{mode}"][2](a.astype(F64), b.astype(F64))
        assert np.signbit(got).tolist() == want, mode
        got = ROUNDING[f"__fmaf_{mode}"][2](a, np.ones_like(a), b)
        assert np.signbit(got).tolist() == want, mode
        got = ROUNDING[f"__fma_{mode}"][2](a.astype(F64), np.ones(4), b.astype(F64))
        assert np.signbit(got).tolist() == want, mode


SRC = """
__global__ void k(const float *a, const float *b, float *o, const double *x, const double *y,
                  double *od, const long long *ll, long long *oi) {
  int i = threadIdx.x;
  o[8 * i + 0] = __fadd_rd(a[i], b[i]);
  o[8 * i + 1] = __fsub_ru(a[i], b[i]);
  o[8 * i + 2] = __fmul_rz(a[i], b[i]);
  o[8 * i + 3] = __fdiv_ru(a[i], b[i]);
  o[8 * i + 4] = __fsqrt_rd(fabsf(a[i]));
  o[8 * i + 5] = __fmaf_rz(a[i], b[i], 1.0f);
  o[8 * i + 6] = __int2float_ru(16777217 + 2 * i) + __frcp_rd(b[i]);
  o[8 * i + 7] = __ll2float_rd(ll[i]) + __double2float_ru(x[i]);
  od[4 * i + 0] = __dadd_ru(x[i], y[i]);
  od[4 * i + 1] = __ddiv_rd(x[i], y[i]);
  od[4 * i + 2] = __fma_rz(x[i], y[i], 1.0);
  od[4 * i + 3] = __dsqrt_ru(fabs(x[i])) + __ull2double_rd((unsigned long long)ll[i]);
  oi[i] = __double2int_ru(x[i] * 1e3) + __float2ll_rd(a[i] * 1e3f) + __double2ll_rz(y[i] * 1e12);
}
"""


def _cancelling(x, y):
    """x and y with a few lanes where x + y is exactly zero (the sign rounding down gives)."""
    y[::9] = -x[::9]
    return x, y


def _inputs():
    rng = np.random.default_rng(5)
    n = 64
    return [*_cancelling(_floats(rng, n, F32), _floats(rng, n, F32)), np.zeros(8 * n, F32),
            *_cancelling(_floats(rng, n, F64), _floats(rng, n, F64)), np.zeros(4 * n, F64),
            rng.integers(-2**62, 2**62, n, dtype=np.int64), np.zeros(n, np.int64)]


def test_the_emulator_runs_them_as_the_table_says():
    ins = _inputs()
    (a, b, o, x, y, od, ll, oi), _ = run(SRC, "k", 1, 64, [v.copy() for v in ins])
    R = {n: f for n, (_, _, f) in ROUNDING.items()}
    assert o[0::8].tobytes() == R["__fadd_rd"](a, b).tobytes()
    assert o[3::8].tobytes() == R["__fdiv_ru"](a, b).tobytes()
    assert o[5::8].tobytes() == R["__fmaf_rz"](a, b, np.ones_like(a)).tobytes()
    assert od[1::4].tobytes() == R["__ddiv_rd"](x, y).tobytes()
    assert od[2::4].tobytes() == R["__fma_rz"](x, y, np.ones_like(x)).tobytes()
    assert o[6] == F32(16777218) + R["__frcp_rd"](b[:1])[0]


@pytest.mark.gpu
def test_they_match_the_gpu(tmp_path):
    gpu_or_skip()
    src = SRC.replace("__global__ void k(", 'extern "C" __global__ void k(')   # CuPy's lookup
    same_bytes_on_gpu(src, tmp_path / "rounding.cu", "k", 1, 64, _inputs())
