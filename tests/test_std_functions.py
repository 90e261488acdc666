"""``std::min`` & co.: the std:: functions that name CUDA's own device overloads; other
``std::`` names are an error that says so."""
import numpy as np
import pytest

from kern import compile_error, emulated_and_gpu, gpu_or_skip, run

F32 = np.float32


STD_MIN_MAX = """#include <algorithm>
#include <cmath>
__global__ void k(const float *x, float *y, int *z) {
  int t = threadIdx.x;
  float v = x[t];
  y[t] = std::min(v, 0.5f) + std::max(v, -0.5f) + std::abs(v) + std::fabs(v) + ::min(1.0f, v);
  y[32 + t] = std::floor(v) + std::ceil(v) + std::sqrt(std::fabs(v));
  y[64 + t] = std :: exp(v * 0.125f);
  z[t] = std::min(t, 7) + std::max(t - 30, 0) + std::abs(-t) + (int)sizeof(std::abs(v));
}"""

STD_CMATH = """#include <cmath>
__global__ void k(const float *x, const double *xd, float *y, double *yd, int *z) {
  int t = threadIdx.x;
  float v = x[t];
  double w = xd[t];
  y[t] = std::sin(v) + std::pow(v, 2.0f) + std::atan2(v, 1.0f) + std::fmod(v, 0.75f);
  y[32 + t] = std::nextafter(v, 0.0f) + std::round(v) + std::copysign(1.0f, v) + std::fma(v, v, v);
  yd[t] = std::cos(w) + std::log1p(std::fabs(w)) + std::hypot(w, 2.0) + std::ldexp(w, 3);
  z[t] = std::isnan(v / v) + 2 * std::signbit(v) + 4 * std::ilogb(v + 4.0f)
         + 64 * (sizeof(std::sin(v)) + sizeof(std::sin(w)));
}"""


def test_std_math_functions_are_cudas():
    src = STD_MIN_MAX
    x = np.linspace(-3, 3, 32, dtype=F32)
    (_, y, z), _ = run(src, "k", 1, 32, [x, np.zeros(96, F32), np.zeros(32, np.int32)])
    np.testing.assert_array_equal(y[:32], np.minimum(x, F32(0.5)) + np.maximum(x, F32(-0.5))
                                  + np.abs(x) + np.abs(x) + np.minimum(F32(1), x))
    np.testing.assert_array_equal(y[32:64], np.floor(x) + np.ceil(x) + np.sqrt(np.abs(x)))
    np.testing.assert_array_equal(y[64:], np.exp(x * F32(0.125)))     # (simt's expf is numpy's)
    t = np.arange(32)
    assert z.tolist() == (np.minimum(t, 7) + np.maximum(t - 30, 0) + t + 4).tolist()


def test_cmaths_std_functions_are_cudas_overloads():
    """std::sin, std::pow, std::nextafter, ... (nvcc compiles them in device code: CUDA's
    headers declare <cmath>'s std:: forms) are the unqualified functions, float for float
    arguments and double for double, as C++ overloads them."""
    src = STD_CMATH
    x = np.linspace(-3, 3, 32, dtype=F32)
    xd = np.linspace(-2, 2, 32)
    (_, _, y, yd, z), _ = run(src, "k", 1, 32, [x, xd, np.zeros(64, F32), np.zeros(32), np.zeros(32, np.int32)])
    want = (np.sin(x) + x * x).astype(F32)            # the unqualified float functions'
    np.testing.assert_allclose(y[:32], want + np.arctan2(x, F32(1)) + np.fmod(x, F32(0.75)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y[32:], np.nextafter(x, F32(0)) + np.where(x < 0, -np.floor(-x + F32(0.5)), np.floor(x + F32(0.5)))
                               + np.copysign(F32(1), x) + (x * x + x), rtol=1e-6)
    np.testing.assert_allclose(yd, np.cos(xd) + np.log1p(np.abs(xd)) + np.hypot(xd, 2.0) + xd * 8, rtol=1e-14)
    assert z.tolist() == [int(v == 0) + 2 * int(np.signbit(v)) + 4 * (np.frexp(v + 4)[1] - 1) + 64 * 12
                          for v in x]


def test_other_std_names_are_an_error():
    msg = compile_error("#include <algorithm>\n__global__ void k(float *y) {\n"
                        "  y[0] = std::clamp(y[0], 0.0f, 1.0f);\n}")
    assert msg == ("bad.cu:3:10: error: std:: is outside simt's subset (but for std::min, "
                   "std::max, std::abs, std::sqrt, std::exp, std::floor, std::ceil, std::fabs and "
                   "<cmath>'s other functions, std::sin, std::pow, ..., which name CUDA's own device "
                   "functions)")


@pytest.mark.gpu
def test_std_functions_compile_under_nvrtc_and_agree(tmp_path):
    """NVRTC (--real) has no <algorithm> or <cmath> to declare std::min or std::sin;
    cupy_backend blanks the std:: as the emulator does, so both kernels compile there and
    give the emulator's results: integers and exact functions bit for bit, the
    transcendental ones within 2 ulp (CUDA's sinf, powf, atan2f, cos, log1p, hypot)."""
    gpu_or_skip()
    x = np.linspace(-3, 3, 32, dtype=F32)
    for name, src, args in (("minmax", STD_MIN_MAX, [x, np.zeros(96, F32), np.zeros(32, np.int32)]),
                            ("cmath", STD_CMATH, [x, np.linspace(-2, 2, 32), np.zeros(64, F32), np.zeros(32),
                                                  np.zeros(32, np.int32)])):
        src = src.replace("__global__", 'extern "C" __global__')         # (CuPy finds it by name)
        emu, gpu = emulated_and_gpu(src, tmp_path / f"{name}.cu", "k", 1, 32, args)
        for k, (e, g) in enumerate(zip(emu, gpu)):
            if g is None or k < (1 if name == "minmax" else 2):
                continue
            if e.dtype.kind == "i":
                assert e.tolist() == g.tolist(), (name, k)
            else:
                it = np.int32 if e.dtype == F32 else np.int64
                ulps = np.abs(e.view(it).astype(np.int64) - g.view(it).astype(np.int64))
                assert (ulps <= 2).all(), (name, k, e, g)
