"""``std::min`` & co.: the std:: functions that name CUDA's own device overloads; other
``std::`` names are an error that says so."""
import numpy as np

from kern import compile_error, run

F32 = np.float32


def test_std_math_functions_are_cudas():
    src = """#include <algorithm>
#include <cmath>
__global__ void k(const float *x, float *y, int *z) {
  int t = threadIdx.x;
  float v = x[t];
  y[t] = std::min(v, 0.5f) + std::max(v, -0.5f) + std::abs(v) + std::fabs(v) + ::min(1.0f, v);
  y[32 + t] = std::floor(v) + std::ceil(v) + std::sqrt(std::fabs(v));
  y[64 + t] = std :: exp(v * 0.125f);
  z[t] = std::min(t, 7) + std::max(t - 30, 0) + std::abs(-t) + (int)sizeof(std::abs(v));
}"""
    x = np.linspace(-3, 3, 32, dtype=F32)
    (_, y, z), _ = run(src, "k", 1, 32, [x, np.zeros(96, F32), np.zeros(32, np.int32)])
    np.testing.assert_array_equal(y[:32], np.minimum(x, F32(0.5)) + np.maximum(x, F32(-0.5))
                                  + np.abs(x) + np.abs(x) + np.minimum(F32(1), x))
    np.testing.assert_array_equal(y[32:64], np.floor(x) + np.ceil(x) + np.sqrt(np.abs(x)))
    np.testing.assert_array_equal(y[64:], np.exp(x * F32(0.125)))     # (simt's expf is numpy's)
    t = np.arange(32)
    assert z.tolist() == (np.minimum(t, 7) + np.maximum(t - 30, 0) + t + 4).tolist()


def test_other_std_names_are_an_error():
    msg = compile_error("#include <algorithm>\n__global__ void k(float *y) {\n"
                        "  y[0] = std::clamp(y[0], 0.0f, 1.0f);\n}")
    assert msg == ("bad.cu:3:10: error: std:: is outside simt's subset (but for std::min, "
                   "std::max, std::abs, std::sqrt, std::exp, std::floor, std::ceil, std::fabs, "
                   "which name CUDA's own device functions)")
