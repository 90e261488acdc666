"""cuComplex.h (simt/include/cuComplex.h): every function against numpy written out with
CUDA's formulas, fused where nvcc fuses (a*b + c is one rounding: ``fma32``, ``fma64``
below, exact), bit for bit, edge values included (zero divisor components, huge and tiny
magnitudes, infinities, NaN); a Mandelbrot kernel's iteration counts exactly; a user's
error named at its place; and (GPU) the same bytes as CUDA's own header gives."""
from fractions import Fraction

import numpy as np
import pytest

from kern import compile_error, gpu_or_skip, run, same_bytes_on_gpu

SRC = r'''
#include <cuComplex.h>
// one kernel per operation: o[i] = OP(a[i], b[i], d[i]).  Separate kernels, since nvcc
// shares a product that two calls on the same x and y compute (cuCmulf's xr*yr is
// cuCfmaf's) and then fuses neither use of it.
#define OP(name, T, expr)                                                                   \
    extern "C" __global__ void name(const T *a, const T *b, const T *d, T *o, int n) {     \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                     \
        if (i < n) {                                                                       \
            T x = a[i], y = b[i], z = d[i];                                                \
            o[i] = expr;                                                                   \
        }                                                                                  \
    }
OP(mul32, cuFloatComplex, cuCmulf(x, y))
OP(div32, cuFloatComplex, cuCdivf(x, y))
OP(fma32, cuFloatComplex, cuCfmaf(x, y, z))
OP(add32, cuFloatComplex, cuCaddf(x, y))
OP(sub32, cuFloatComplex, cuCsubf(x, y))
OP(conj32, cuFloatComplex, cuConjf(x))
OP(abs32, cuFloatComplex, make_cuFloatComplex(cuCabsf(x), cuCabsf(y)))
OP(through32, cuComplex, cuComplexDoubleToFloat(cuComplexFloatToDouble(make_cuComplex(cuCrealf(x), cuCimagf(x)))))
OP(mul64, cuDoubleComplex, cuCmul(x, y))
OP(div64, cuDoubleComplex, cuCdiv(x, y))
OP(fma64, cuDoubleComplex, cuCfma(x, y, z))
OP(add64, cuDoubleComplex, cuCadd(x, y))
OP(sub64, cuDoubleComplex, cuCsub(x, y))
OP(conj64, cuDoubleComplex, cuConj(x))
OP(abs64, cuDoubleComplex, make_cuDoubleComplex(cuCabs(x), cuCabs(y)))
OP(through64, cuDoubleComplex, make_cuDoubleComplex(cuCreal(x), cuCimag(x)))
// escape-time Mandelbrot: z <- z^2 + c while |z| <= 2
extern "C" __global__ void mandel(const cuComplex *c, int *iters, int n, int maxit) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cuComplex z = make_cuComplex(0.0f, 0.0f);
    int k = 0;
    while (k < maxit && cuCabsf(z) <= 2.0f) {
        z = cuCaddf(cuCmulf(z, z), c[i]);
        ++k;
    }
    iters[i] = k;
}
'''


# ---- exact references -------------------------------------------------------------
def fma32(a, b, c):
    """a * b + c on float32 arrays rounded once: the product is exact in double, the sum
    rounded to odd there (TwoSum's error moves an even inexact sum one ulp toward the
    exact value), and rounding that to float32 is then one rounding of the exact value."""
    a, b, c = (np.asarray(v, np.float32).astype(np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        p = a * b
        s = p + c
        bb = s - p
        err = (p - (s - bb)) + (c - bb)
        fix = (err != 0) & ((s.view(np.int64) & 1) == 0) & np.isfinite(s)
        s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
        return s.astype(np.float32)


def fma64(a, b, c):
    """a * b + c on float64 arrays rounded once, element by element in exact rationals."""
    a, b, c = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, c)))
    out = np.empty(a.shape)
    for k, (x, y, z) in enumerate(zip(a.ravel(), b.ravel(), c.ravel())):
        if not (np.isfinite(x) and np.isfinite(y)):
            with np.errstate(all="ignore"):
                out.flat[k] = x * y + z                  # an infinite or NaN product
            continue
        if not np.isfinite(z):
            out.flat[k] = z                              # a finite product (even one above DBL_MAX)
            continue
        e = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        if e == 0:                                       # the sign of zero: IEEE's for the sum
            out.flat[k] = x * y + z if x * y == 0 and z == 0 else 0.0
        else:
            try:
                out.flat[k] = float(e)                   # int / int: correctly rounded
            except OverflowError:
                out.flat[k] = np.inf if e > 0 else -np.inf
    return out


def ref_ops(a, b, d, dt):
    """CUDA's formulas in numpy, fused where nvcc fuses: {kernel's operation: (n, 2)}."""
    fma = fma32 if dt == np.float32 else fma64
    big = np.float32(3.402823466e38) if dt == np.float32 else np.float64(1.79769313486231570e+308)
    one = dt(1)
    ar, ai, br, bi, dr, di = (np.asarray(v, dt) for v in (a.real, a.imag, b.real, b.imag, d.real, d.imag))

    def mag(re, im):
        p, q = np.abs(re), np.abs(im)
        v, w = np.where(p > q, p, q), np.where(p > q, q, p)
        t = w / v
        t = v * np.sqrt(fma(t, t, one))
        return np.where((v == 0) | (v > big) | (w > big), v + w, t)
    with np.errstate(all="ignore"):
        s = np.abs(br) + np.abs(bi)
        oos = one / s
        ars, ais, brs, bis = ar * oos, ai * oos, br * oos, bi * oos
        oos = one / fma(brs, brs, bis * bis)
        re, im = fma(ar, br, dr), fma(ar, bi, di)
        parts = {
            "mul": (fma(ar, br, -(ai * bi)), fma(ar, bi, ai * br)),
            "div": (fma(ars, brs, ais * bis) * oos, fma(ais, brs, -(ars * bis)) * oos),
            "fma": (fma(-ai, bi, re), fma(ai, br, im)),
            "add": (ar + br, ai + bi), "sub": (ar - br, ai - bi), "conj": (ar, -ai),
            "abs": (mag(ar, ai), mag(br, bi)), "through": (ar, ai)}
    return {k: np.stack(v, -1).astype(dt) for k, v in parts.items()}


OPS = ["mul", "div", "fma", "add", "sub", "conj", "abs", "through"]


def edge_inputs(dt, ftz=False):
    """(a, b, d) complex arrays: random values, then the edges (zero divisor components,
    huge and tiny magnitudes, subnormals, signed zeros, infinities, NaN).  ``ftz``: none
    that makes a float subnormal anywhere (CuPy compiles with -ftz=true, nvcc does not)."""
    ct = np.complex64 if dt == np.float32 else np.complex128
    big = np.finfo(dt).max
    tiny = np.finfo(dt).tiny
    sub = tiny * dt(2.0) ** -10
    rng = np.random.default_rng(7)
    n = 40
    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 10.0 ** rng.integers(-3, 4, n)
    b = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 10.0 ** rng.integers(-3, 4, n)
    d = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    ea = [(1, 2), (3, -4), (0, 0), (-0.0, 0), (big, big), (big / 2, -big / 4), (tiny, tiny),
          (sub, -sub), (1e-20, 3e-20), (np.inf, 1), (1, -np.inf), (np.nan, 1), (2, 0),
          (big, 1), (5, 12), (-1e30, 1e-30), (0.1, 0.7), (1, 1), (-0.0, -0.0), (np.inf, np.nan)]
    eb = [(0, 3), (2, 0), (0, 0), (-0.0, 0), (big, big), (1, 1), (tiny, tiny), (sub, sub),
          (1e20, -1e-20), (1, 1), (np.inf, np.inf), (1, 1), (-0.0, 5), (tiny, big),
          (3, 4), (1e-30, 1e30), (0.3, -0.9), (1, -1), (0, -0.0), (2, 3)]
    ed = [(1, 1), (-2, 0.5)] * (len(ea) // 2)
    if ftz and dt == np.float32:
        def plain(p):
            return all(x == 0 or not np.isfinite(x) or 1e-6 <= abs(x) <= 1e6 for x in p)
        keep = [k for k in range(len(ea)) if plain(ea[k]) and plain(eb[k])]
        ea, eb, ed = ([e[k] for k in keep] for e in (ea, eb, ed))

    def cplx(xs):
        xs = np.array(xs, np.float64).astype(dt)
        z = np.empty(len(xs), ct)
        z.real, z.imag = xs[:, 0], xs[:, 1]
        return z
    return tuple(np.concatenate([r.astype(ct), cplx(e)]) for r, e in ((a, ea), (b, eb), (d, ed)))


def run_ops(dt, a, b, d):
    """{operation: (n, 2) results} from the emulator, one launch of each kernel."""
    n, bits = len(a), 32 if dt == np.float32 else 64
    out = {}
    for op in OPS:
        (_, _, _, o, _), _ = run(SRC, f"{op}{bits}", (n + 31) // 32, 32, [a, b, d, np.zeros_like(a), np.int32(n)])
        out[op] = o.view(dt).reshape(n, 2)
    return out


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_ops_are_cudas_formulas_bit_for_bit(dt):
    a, b, d = edge_inputs(dt)
    got, want = run_ops(dt, a, b, d), ref_ops(a, b, d, dt)
    for op in OPS:
        np.testing.assert_array_equal(got[op], want[op], err_msg=op)
        same = ~np.isnan(want[op])                      # -0.0 == 0.0: the signs too
        assert (np.signbit(got[op]) == np.signbit(want[op]))[same].all(), op
    # the edges do what CUDA's formulas say they do
    m = len(a) - 20
    div, mag = got["div"], got["abs"][:, 0]
    assert np.isnan(div[m + 2]).all()                          # 0 / 0
    assert div[m + 1].tolist() == [1.5, -2]                    # (3 - 4i) / 2
    assert np.isnan(div[m + 4]).all()    # (max + max i) / itself: |yr| + |yi| overflows, as in CUDA
    assert np.isfinite(div[m + 5]).all()                       # huge / (1 + i): scaled, no overflow
    assert mag[m + 4] == np.inf and mag[m + 5] < np.inf        # |max + max i| overflows
    assert mag[m + 9] == np.inf and mag[m + 10] == np.inf      # |inf + i|
    assert np.isnan(mag[m + 11]) and np.isnan(mag[m + 19])      # |nan + i|; |inf + nan i| (C99: inf)
    assert mag[m + 2] == 0 and not np.signbit(got["mul"][m + 18]).all()


def test_the_products_are_fused_as_nvcc_fuses_them():
    """Without contraction the answers differ somewhere: the test above is not vacuous."""
    for dt in (np.float32, np.float64):
        a, b, d = edge_inputs(dt)
        got = run_ops(dt, a, b, d)["mul"]
        with np.errstate(all="ignore"):
            unfused = np.stack([a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real], -1)
        fin = np.isfinite(unfused).all(1)
        assert (got[fin] != unfused[fin]).any(), dt


def mandel_points(w=48, h=32):
    """c on a grid over the set's boundary, float32."""
    xs = np.linspace(-2.1, 0.6, w, dtype=np.float32)
    ys = np.linspace(-1.2, 1.2, h, dtype=np.float32)
    x, y = np.meshgrid(xs, ys)
    return (x + np.complex64(1j) * y).astype(np.complex64).ravel()


def mandel_ref(c, maxit, fused=True):
    """Escape counts with cuCmulf, cuCaddf and cuCabsf's formulas (fused as nvcc fuses)."""
    f32 = np.float32
    fma = fma32 if fused else (lambda x, y, z: (x * y + z).astype(f32))
    cr, ci = c.real.astype(f32), c.imag.astype(f32)
    zr, zi = np.zeros_like(cr), np.zeros_like(ci)
    k = np.zeros(len(c), np.int32)
    live = np.ones(len(c), bool)
    with np.errstate(all="ignore"):
        for _ in range(maxit):
            p, q = np.abs(zr), np.abs(zi)
            v, w = np.maximum(p, q), np.minimum(p, q)
            t = w / v
            t = v * np.sqrt(fma(t, t, f32(1)))
            mag = np.where((v == 0) | (v > f32(3.402823466e38)) | (w > f32(3.402823466e38)), v + w, t)
            live &= mag <= f32(2)
            if not live.any():
                break
            nr = fma(zr, zr, -(zi * zi)) + cr
            ni = fma(zr, zi, zi * zr) + ci
            zr, zi = np.where(live, nr, zr), np.where(live, ni, zi)
            k += live
    return k


def test_mandelbrot_counts_exactly():
    c = mandel_points()
    n, maxit = len(c), 200
    (_, it, _, _), _ = run(SRC, "mandel", (n + 127) // 128, 128, [c, np.zeros(n, np.int32), np.int32(n), np.int32(maxit)])
    want = mandel_ref(c, maxit)
    np.testing.assert_array_equal(it, want)
    assert len(set(it.tolist())) > 20 and (it == maxit).any()
    assert (mandel_ref(c, maxit, fused=False) != want).any()    # where contraction shows


def test_user_error_names_the_call():
    msg = compile_error('#include <cuComplex.h>\nextern "C" __global__ void k(cuFloatComplex *o) {\n'
                        "  o[0] = cuCmulf(o[0], o[1], o[2]);\n}")
    assert msg.startswith('bad.cu:3:10: error: too many arguments in call to "cuCmulf"')
    msg = compile_error('#include <cuComplex.h>\nextern "C" __global__ void k(float *o) {\n'
                        "  o[0] = cuCabs(o[0]);\n}")
    assert msg == 'bad.cu:3:17: error: no suitable conversion from "float" to "double2"'


def test_types_are_cudas():
    src = r'''
#include <cuComplex.h>
extern "C" __global__ void k(int *o) {
    o[0] = sizeof(cuFloatComplex); o[1] = sizeof(cuDoubleComplex); o[2] = sizeof(cuComplex);
    float2 f = make_float2(1.0f, 2.0f);
    cuComplex z = f;                                // the same type
    double2 e = make_cuDoubleComplex(3.0, 4.0);
    o[3] = (int)cuCabsf(cuCmulf(z, z)) + (int)cuCabs(e) * 100;
}
'''
    (o,), _ = run(src, "k", 1, 1, [np.zeros(4, np.int32)])
    assert o.tolist() == [8, 16, 8, 5 + 500]


def _same_floats(real, emu, what):
    """Bytes equal, except that a NaN may have other bits (simt keeps numpy's NaNs, the GPU
    makes its canonical one)."""
    nan = np.isnan(real)
    assert (np.isnan(emu) == nan).all(), what
    assert real[~nan].tobytes() == emu[~nan].tobytes(), what


@pytest.mark.gpu
def test_cucomplex_on_the_gpu(tmp_path):
    gpu_or_skip()
    from kernels_cuda import crosscheck
    path = tmp_path / "cc.cu"
    path.write_text(SRC)
    for dt in (np.float32, np.float64):
        a, b, d = edge_inputs(dt, ftz=True)
        n, bits = len(a), 32 if dt == np.float32 else 64
        emu = run_ops(dt, a, b, d)
        for op in OPS:
            _, real, _ = crosscheck.real_launch(str(path), f"{op}{bits}", (n + 31) // 32, 32,
                                                [a, b, d, np.zeros_like(a), np.int32(n)], repeat=1)
            _same_floats(real[3].view(dt).reshape(n, 2), emu[op], f"{op}{bits}")
    c = mandel_points()
    same_bytes_on_gpu(SRC, tmp_path / "m.cu", "mandel", (len(c) + 127) // 128, 128,
                      [c, np.zeros(len(c), np.int32), np.int32(len(c)), np.int32(200)])
