"""A pointer to const may move; a const pointer may not (C's rule: the qualifier binds
to what it stands beside)."""
import numpy as np

from kern import compile_error, run

F32 = np.float32


def test_pointer_to_const_locals_advance():
    src = """
__device__ float sum4(const float *p) { float s = 0; for (int i = 0; i < 4; ++i) s += *p++; return s; }
__global__ void k(const float *x, float *y) {
  const float *p; p = x; p += 4 * threadIdx.x;
  const float *end = p + 4;
  float s = 0;
  for (const float *q = p; q < end; q += 1) s += *q;
  const float *r = p;
  s += *r++; s += *r;
  y[threadIdx.x] = s + sum4(p);
}"""
    x = np.arange(32, dtype=F32) * F32(0.5)
    (_, y), _ = run(src, "k", 1, 8, [x, np.zeros(8, F32)])
    q = x.reshape(8, 4)
    np.testing.assert_array_equal(y, 2 * q.sum(1) + q[:, 0] + q[:, 1])


def test_const_pointer_is_not_assignable():
    msg = compile_error("__global__ void k(float *x) {\n  float *const p = x; p += 1;\n}")
    assert msg == ("bad.cu:2:23: error: expression must be a modifiable lvalue (it is const: a "
                   "const variable, or a member of a const object or of the object of a const "
                   "member function)")


def test_pointee_of_pointer_to_const_is_not_assignable():
    msg = compile_error("__global__ void k(float *x) {\n  const float *p = x; p += 1; *p = 2;\n}")
    assert msg == ("bad.cu:2:32: error: expression must be a modifiable lvalue (it is reached "
                   "through a pointer to const)")
