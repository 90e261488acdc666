"""Spellings real kernels use that change nothing in simt: ``uintptr_t``/``intptr_t``/
``ssize_t`` (64-bit), ``__restrict``, ``__grid_constant__``, ``__attribute__((...))``; and
inline PTX outside simt.inlineasm's subset, which is an error naming its place."""
import numpy as np

from kern import compile_error, run


def test_typedefs_and_blanked_words():
    src = """#include <cstdint>
struct __attribute__((aligned(8))) P { float a; int n; };
__device__ __attribute__((always_inline)) float twice(float v) { return 2 * v; }
__global__ void k(const float *__restrict x, float *__restrict y, long long *l,
                  const __grid_constant__ P p) {
  int t = threadIdx.x;
  bool aligned = reinterpret_cast<uintptr_t>(x) % 16 == 0;
  intptr_t ip = -3; ssize_t ss = 4;
  l[t] = (uintptr_t)(x + t) - (uintptr_t)x + ip * ss + sizeof(uintptr_t) * 100 + sizeof(ssize_t) * 1000;
  y[t] = aligned ? twice(x[t]) * p.a + p.n : -1.0f;
}"""
    x = np.arange(8, dtype=np.float32)
    (_, y, l, _), _ = run(src, "k", 1, 8, [x, np.zeros(8, np.float32), np.zeros(8, np.int64),
                                             (np.float32(1.5), np.int32(7))])
    np.testing.assert_array_equal(y, 2 * x * np.float32(1.5) + 7)
    assert l.tolist() == [4 * t - 12 + 800 + 8000 for t in range(8)]


def test_inline_ptx_outside_the_subset_is_an_error_naming_its_place():
    """(simt.inlineasm reads one-instruction forms; tests/test_inlineasm.py tests them.)"""
    src = ('__device__ unsigned lane() {\n  unsigned r;\n  asm volatile("mov.u32 %0, %%smid;" : '
           '"=r"(r));\n  return r;\n}\n__global__ void k(int *y) { y[0] = lane(); }')
    assert compile_error(src).startswith("bad.cu:3:3: error: inline PTX asm is outside simt's subset (special register %%smid)")
    assert compile_error('__global__ void k(int *y) {\n  int r; __asm__ ("addc.u32 %0, 1, 2;" : "=r"(r));\n}'
                         ).startswith("bad.cu:2:10: error: inline PTX asm is outside simt's subset (addc)")


def test_textures_tensor_cores_and_device_launches_are_errors_naming_their_place():
    """What simt does not emulate says so at its place, where the parser would only see a
    syntax error."""
    tex = ('__global__ void k(cudaTextureObject_t t, float *y) {\n'
           '  y[threadIdx.x] = tex2D<float>(t, threadIdx.x, 0);\n}\n')
    assert compile_error(tex).startswith("bad.cu:1:19: error: texture and surface objects and references")
    ref = 'texture<float, 1, cudaReadModeElementType> tr;\n__global__ void k(float *y) { y[0] = 1; }\n'
    assert compile_error(ref).startswith("bad.cu:1:1: error: texture and surface objects")
    mma = ('#include <mma.h>\nusing namespace nvcuda;\n__global__ void k(half *a) {\n'
           '  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f;\n}\n')
    assert compile_error(mma) == "bad.cu:4:3: error: wmma (warp matrix fragments on the tensor cores: mma.h) " \
                                 "is outside simt's subset"
    dp = ('__global__ void child(int *y) { y[0] = 1; }\n'
          '__global__ void parent(int *y) {\n  if (threadIdx.x == 0) child<<<1, 32>>>(y);\n}\n')
    assert compile_error(dp).startswith("bad.cu:3:30: error: a kernel launched from device code "
                                        "(dynamic parallelism) is outside simt's subset")
    # a host function's launch is host code, blanked before the check
    host = ('__global__ void k(int *y) { y[0] = 1; }\n'
            'void run(int *y) { k<<<1, 32>>>(y); }\n')
    (y,), _ = run(host, "k", 1, 32, [np.zeros(32, np.int32)])
    assert y[0] == 1
