"""``&local`` of a variable in registers: out-parameters by pointer into an inlined
__device__ function, and pointers initialized with it, followed through ``*p``, ``p->m``
and ``p[0]`` as nvcc's inlining follows them (the variable itself)."""
import numpy as np

from kern import compile_error, run

F32 = np.float32


def test_out_parameters_by_pointer():
    src = """
struct P { float x, y; };
__device__ void minmax(const float *x, int n, float *mn, float *mx) {
  *mn = x[0]; *mx = x[0];
  for (int i = 1; i < n; ++i) { *mn = fminf(*mn, x[i]); *mx = fmaxf(*mx, x[i]); }
}
__device__ void opt(float v, float *out) { if (out) *out = v; }
__device__ void inner(float *p, float v) { p[0] += v; }
__device__ void outer(float *p, float v) { inner(p, v); }
__device__ void setp(P *p, float a) { p->x = a; p->y = 2 * a; }
__device__ void cnt(int *c) { (*c)++; ++*c; }
__global__ void k(const float *x, float *out, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float lo, hi;
  minmax(x + 4 * i, 4, &lo, &hi);
  float s = x[i]; float *ps = &s; *ps += a;
  float t = s;
  opt(lo, &t);
  P p; setp(&p, hi);
  int c = 0; cnt(&c);
  float2 v = make_float2(1, 2); float2 *pv = &v; pv->y = 5;
  float u = 1; outer(&u, a);
  out[i] = hi - lo + s * 100 + t + p.x + p.y + c + v.y + u;
}"""
    x = np.arange(32, dtype=F32) * F32(0.25)
    a = F32(0.5)
    (_, out, _), _ = run(src, "k", 1, 8, [x, np.zeros(8, F32), a])
    q = x.reshape(8, 4)
    lo, hi = q.min(1), q.max(1)
    want = hi - lo + (x[:8] + a) * F32(100) + lo + hi + 2 * hi + F32(2) + F32(5) + (F32(1) + a)
    np.testing.assert_array_equal(out, want)


def test_kernel_parameter_and_sincos_through_pointers():
    src = """
__device__ void sc(float x, float *s, float *c) { sincosf(x, s, c); }
__device__ void twice(float *p) { *p *= 2; }
__global__ void k(const float *x, float *out, float v) {
  twice(&v);
  float s, c; sc(x[threadIdx.x], &s, &c);
  out[threadIdx.x] = v; out[32 + threadIdx.x] = s; out[64 + threadIdx.x] = c;
  out[96 + threadIdx.x] = sinf(x[threadIdx.x]); out[128 + threadIdx.x] = cosf(x[threadIdx.x]);
}"""
    x = np.linspace(-3, 3, 32, dtype=F32)
    (_, out, _), _ = run(src, "k", 1, 32, [x, np.zeros(160, F32), F32(1.5)])
    assert (out[:32] == 3).all()
    np.testing.assert_array_equal(out[32:96], out[96:160])      # what sinf and cosf give
    np.testing.assert_allclose(out[32:64], np.sin(x.astype(np.float64)), rtol=0, atol=1e-6)


def test_other_uses_of_a_locals_address_are_errors():
    assert compile_error("__device__ float g(const float *p) { return *(p + 1); }\n"
                         "__global__ void k(float *a) {\n  float x = 1;\n  a[0] = g(&x);\n}") == (
        'bad.cu:1:47: error: the address of local variable "x" (taken at line 4) is used here as '
        "an address: simt follows a pointer to a register variable only through *p, p->m and "
        "p[0], which nvcc's inlining turns into the variable itself; declare it as a one-element "
        "array to use its address otherwise")
    assert compile_error("__global__ void k(float *a) {\n  float x = 1, y = 2; float *p = &x;\n"
                         "  p = &y; a[0] = *p;\n}") == (
        'bad.cu:3:3: error: pointer "p" holds the address of local variable "x" (line 2), and '
        "simt cannot change it: nvcc's inlining makes *p that variable itself")
    assert compile_error("__global__ void k(float *a) {\n  int i = 1; float *f = (float *)&i;\n"
                         "  a[0] = *f;\n}").startswith(
        'bad.cu:2:25: error: the address of local variable "i" (taken at line 2) is used here')
    assert compile_error("__global__ void k(int *a) {\n  int c = 0;\n  atomicAdd(&c, 1);\n}").startswith(
        'bad.cu:3:3: error: the address of local variable "c" (taken at line 3) is used here')
    assert compile_error("__global__ void k(float *a) {\n  const float x = 1; const float *p = &x; "
                         "*p = 2;\n}").startswith("bad.cu:2:44: error: expression must be a "
                                                 "modifiable lvalue")
