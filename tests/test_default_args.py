"""Default arguments (``__device__ float f(float x, float s = 2.0f)``): a call that leaves
trailing arguments out gets the declaration's expressions, in free functions, function
templates, member functions (defined in or outside their class) and constructors (one
whose parameters all have defaults is the default constructor).

The kernel is valid CUDA C++ (the GPU test compiles the same text with NVRTC); inputs are
small integers so every float result is exact."""
import numpy as np
import pytest

from kern import compile_error, gpu_or_skip, run, same_bytes_on_gpu

SRC = r'''
typedef float real;
#define BASE 3
const int OFF = 7;

__device__ real axpb(real x, int a = BASE + OFF,
                     real b = (real)0.5f) { return x * a + b; }
__device__ int sub(int a, int b = 1);          // the defaults on the prototype
__device__ int sub(int a, int b) { return a - b; }
template <typename T> __device__ T twice(T v, T k = T(2)) { return v * k; }

struct V3 {
    float x, y, z;
    __device__ V3(float a = 0.f, float b = 0.f, float c = 0.f) : x(a), y(b), z(c) {}
    __device__ float dot(const V3 &o, float w = 1.0f) const { return w * (x * o.x + y * o.y + z * o.z); }
    __device__ V3 scaled(float s = 2.0f) const;
};
__device__ V3 V3::scaled(float s) const { return V3(x * s, y * s, z * s); }

extern "C" __global__ void defaults(const float *x, float *y, int *z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[4 * i] = axpb(x[i]) + 100.0f * axpb(x[i], 1) + 10000.0f * axpb(x[i], 2, 1.0f);
    z[2 * i] = sub(i) + 100 * sub(i, 5);
    z[2 * i + 1] = twice(i) + 100 * twice<int>(i, 3);
    V3 a(x[i], 1.f), b(1.f), c, d = a.scaled();
    V3 arr[2];
    y[4 * i + 1] = a.dot(b) + 100.0f * a.dot(b, 2.f);
    y[4 * i + 2] = c.x + c.y + c.z + arr[1].z + V3().y + d.x + 100.0f * d.y;
    y[4 * i + 3] = a.scaled(3.f).x;
}
'''


def _expected(n):
    x = np.arange(n, dtype=np.float32) % 8
    i = np.arange(n)
    y = np.zeros((n, 4), np.float32)
    y[:, 0] = (10 * x + 0.5) + 100 * (x + 0.5) + 10000 * (2 * x + 1)
    y[:, 1] = x + 100 * 2 * x
    y[:, 2] = 2 * x + 100 * 2
    y[:, 3] = 3 * x
    z = np.stack([(i - 1) + 100 * (i - 5), 2 * i + 100 * 3 * i], axis=1).astype(np.int32)
    return x, y.ravel(), z.ravel()


def test_trailing_arguments_left_out_take_the_declarations_defaults():
    n = 64
    x, y_want, z_want = _expected(n)
    (_, y, z, _), _ = run(SRC, "defaults", 2, 32, [x, np.zeros(4 * n, np.float32), np.zeros(2 * n, np.int32),
                                                   np.int32(n)])
    np.testing.assert_array_equal(y, y_want)
    np.testing.assert_array_equal(z, z_want)


def test_default_argument_errors_name_their_place():
    # a name the default's expression does not know: at that name, where it was written
    assert compile_error("__device__ int h(int a,\n                 int b = undefined_name) { return a + b; }\n"
                         'extern "C" __global__ void k(int *o) { o[0] = h(1); }'
                         ).startswith('bad.cu:2:26: error: identifier "undefined_name" is undefined')
    # a parameter with no default still has to be given
    msg = compile_error("__device__ int h(int a, int b, int c = 2) { return a + b + c; }\n"
                        'extern "C" __global__ void k(int *o) { o[0] = h(1); }')
    assert msg.startswith("bad.cu:2:47: error: too few arguments") and "(expected 3, got 1)" in msg
    msg = compile_error("struct A { float x; __device__ float f(float y, float w = 1.0f) { return x * w + y; } };\n"
                        'extern "C" __global__ void k(float *o) { A a{1}; o[0] = a.f(); }')
    assert msg.startswith('bad.cu:2:57: error: too few arguments in call to "A::f" (expected 2, got 0)')


@pytest.mark.gpu
def test_default_arguments_on_the_gpu(tmp_path):
    gpu_or_skip()
    n = 64
    x, y_want, z_want = _expected(n)
    same_bytes_on_gpu(SRC, tmp_path / "defaults.cu", "defaults", 2, 32,
                      [x, np.zeros(4 * n, np.float32), np.zeros(2 * n, np.int32), np.int32(n)])
