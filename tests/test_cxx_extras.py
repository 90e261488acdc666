"""C++ and library pieces course kernels use that simt reads as the C they mean:
``numeric_limits`` (simt.limits), ``if constexpr``, range-based ``for`` over arrays
(simt.rangefor), ``memcpy``/``memset`` (simt.cstring) and the asynchronous-copy
primitives of ``cuda_pipeline.h``; and device ``malloc``, which is an error naming its
place."""
import numpy as np
import pytest

from kern import compile_error, gpu_or_skip, run, same_bytes_on_gpu as _same_bytes

LIMITS = """#include <cuda/std/limits>
#include <limits>
__global__ void k(float *f, int *i, unsigned *u, long long *l, double *d) {
  f[0] = cuda::std::numeric_limits<float>::max();
  f[1] = std::numeric_limits<float>::lowest();
  f[2] = cuda::std::numeric_limits<float>::min();
  f[3] = cuda::std::numeric_limits<float>::epsilon();
  f[4] = cuda::std::numeric_limits<float>::infinity();
  f[5] = cuda::std::numeric_limits<float>::quiet_NaN();
  f[6] = cuda::std::numeric_limits<float>::denorm_min();
  i[0] = std::numeric_limits<int>::max();
  i[1] = std::numeric_limits<int>::min();
  i[2] = std::numeric_limits<int>::digits + std::numeric_limits<unsigned char>::max();
  u[0] = std::numeric_limits<unsigned int>::max();
  u[1] = std::numeric_limits<unsigned short>::max();
  l[0] = std::numeric_limits<long long>::min();
  d[0] = cuda::std::numeric_limits<double>::max();
  d[1] = cuda::std::numeric_limits<double>::epsilon();
  d[2] = -cuda::std::numeric_limits<double>::infinity();
}"""

CONSTEXPR = """template <int N> __device__ int pick(int v) {
  if constexpr (N > 4) return v * N;
  else return -v;
}
__global__ void k(int *y) { y[threadIdx.x] = pick<8>(threadIdx.x) + pick<2>(1); }"""

RANGE_FOR = """struct S { int v[3]; };
__global__ void k(float *y, int *z) {
  __shared__ float sh[8];
  if (threadIdx.x < 8) sh[threadIdx.x] = threadIdx.x;
  __syncthreads();
  float w[4] = {1.f, 2.f, 3.f, 4.f};
  for (auto &v : w) { v *= threadIdx.x; }
  float acc = 0.f;
  for (const float &v : w)
    acc += v;
  for (float s : sh)
    if (s > 3.f) break;
    else acc += s;
  S st = {{1, 2, 3}};
  int tot = 0;
  for (int q : st.v) for (int r : st.v) tot += q * r;
  for (int q : st.v)
    do { tot += q; } while (0);
  y[threadIdx.x] = acc;
  z[threadIdx.x] = tot;
}"""

MEMCPY = """struct P { float x, y, z; int id; };
__global__ void k(const float *x, float *y, const P *ps, P *out, unsigned char *b) {
  int i = threadIdx.x;
  float t[4];
  memset(t, 0, sizeof(t));
  memcpy(t, &x[i & ~3], 4 * sizeof(float));
  y[i] = t[i & 3] + t[0];
  memcpy(&out[i], &ps[i], sizeof(P));
  out[i].id += 100;
  memset(b + 3 * i, 0xAB, 3);
}"""

PIPELINE = """#include <cuda_pipeline.h>
__global__ void k(const float *x, float *y) {
  __shared__ float s1[64];
  __shared__ float2 s2[64];
  __shared__ float4 s4[64];
  int t = threadIdx.x;
  __pipeline_memcpy_async(&s1[t], &x[t], sizeof(float));
  __pipeline_memcpy_async(&s2[t], &x[2 * t], sizeof(float2));
  __pipeline_memcpy_async(&s4[t], &x[4 * t], sizeof(float4), t % 2 ? 8 : 0);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  int r = 63 - t;
  y[t] = s1[r] + s2[r].x + s2[r].y + s4[r].x + s4[r].y + s4[r].z + s4[r].w;
}"""



def test_numeric_limits_are_the_headers_values():
    src = LIMITS
    (f, i, u, l, d), _ = run(src, "k", 1, 1, [np.zeros(7, np.float32), np.zeros(3, np.int32),
                                               np.zeros(2, np.uint32), np.zeros(1, np.int64),
                                               np.zeros(3, np.float64)])
    fi = np.finfo(np.float32)
    assert f[:5].tolist() == [fi.max, -fi.max, fi.tiny, fi.eps, np.inf]
    assert np.isnan(f[5]) and f[6] == np.float32(1.4e-45) and f[6] > 0
    assert i.tolist() == [2**31 - 1, -2**31, 31 + 255]
    assert u.tolist() == [2**32 - 1, 65535]
    assert l[0] == -2**63
    assert d.tolist() == [np.finfo(np.float64).max, np.finfo(np.float64).eps, -np.inf]


def test_numeric_limits_of_a_type_simt_cannot_name_is_an_error():
    src = ("template <typename T> __device__ T top() {\n"
           "  return std::numeric_limits<T>::max();\n}\n"
           "__global__ void k(float *y) { y[0] = top<float>(); }\n")
    assert compile_error(src).startswith("bad.cu:2:10: error: numeric_limits<T> is outside simt's subset")
    src = "__global__ void k(float *y) {\n  y[0] = std::numeric_limits<float>::round_error();\n}\n"
    assert compile_error(src).startswith("bad.cu:2:10: error: numeric_limits<float>::round_error() "
                                         "is outside simt's subset")


def test_if_constexpr_takes_the_branch_its_test_picks():
    src = CONSTEXPR
    (y,), _ = run(src, "k", 1, 8, [np.zeros(8, np.int32)])
    assert y.tolist() == [8 * t - 1 for t in range(8)]


def test_range_for_over_local_shared_and_member_arrays():
    src = RANGE_FOR
    (y, z), _ = run(src, "k", 1, 32, [np.zeros(32, np.float32), np.zeros(32, np.int32)])
    assert y.tolist() == [10.0 * t + 6 for t in range(32)]
    assert z.tolist() == [42] * 32


def test_range_for_keeps_lines_for_errors_after_it():
    src = ("__global__ void k(float *y) {\n  float w[2] = {1, 2};\n  for (float v :\n       w) y[0] += v;\n"
           "  y[1] = undefined_name;\n}\n")
    assert compile_error(src).startswith("bad.cu:5:10: error: identifier \"undefined_name\" is undefined")


def test_memcpy_and_memset_copy_words_and_bytes():
    src = MEMCPY
    x = np.arange(32, dtype=np.float32)
    ps = np.zeros(32, dtype=[("x", "f4"), ("y", "f4"), ("z", "f4"), ("id", "i4")])
    ps["x"], ps["id"] = np.arange(32) * 0.5, np.arange(32)
    (_, y, _, out, b), _ = run(src, "k", 1, 32, [x, np.zeros(32, np.float32), ps, np.zeros_like(ps),
                                                 np.zeros(100, np.uint8)])
    assert y.tolist() == [float(i + (i & ~3)) for i in range(32)]
    assert out["x"].tolist() == (np.arange(32) * 0.5).tolist()
    assert out["id"].tolist() == list(range(100, 132))
    assert b[:96].tolist() == [0xAB] * 96 and b[96:].tolist() == [0] * 4


def test_pipeline_memcpy_async_copies_4_8_and_16_bytes_and_zero_fills():
    src = PIPELINE
    x = np.arange(256, dtype=np.float32)
    (_, y), _ = run(src, "k", 1, 64, [x, np.zeros(64, np.float32)])
    want = []
    for t in range(64):
        r = 63 - t
        four = x[4 * r:4 * r + 4].copy()
        if r % 2:
            four[2:] = 0
        want.append(x[r] + x[2 * r] + x[2 * r + 1] + four.sum())
    assert y.tolist() == want


def test_device_malloc_is_an_error_naming_its_place():
    src = ("__global__ void k(float *y) {\n"
           "  float *t = (float *)malloc(16);\n  y[0] = t[0];\n  free(t);\n}\n")
    assert compile_error(src).startswith("bad.cu:2:23: error: malloc and free in device code "
                                         "(the device heap) are outside simt's subset")


def _pipeline_input():
    return np.arange(256, dtype=np.float32)


@pytest.mark.gpu
def test_the_kernels_above_match_the_gpu(tmp_path):
    """Each kernel above through CuPy (NVRTC with CUDA's own headers) and in simt, the same
    inputs: the same bytes."""
    gpu_or_skip()
    path = tmp_path / "extras.cu"

    def same_bytes_on_gpu(src, *rest):          # CuPy finds kernels by their C names
        _same_bytes(src.replace("__global__ void k(", 'extern "C" __global__ void k('), *rest)
    # NVRTC has libcu++'s <cuda/std/limits>, not the host's <limits>
    cuda_std = LIMITS.replace("#include <limits>\n", "").replace(" std::numeric", " cuda::std::numeric")
    same_bytes_on_gpu(cuda_std, path, "k", 1, 1, [np.zeros(7, np.float32), np.zeros(3, np.int32),
                                                 np.zeros(2, np.uint32), np.zeros(1, np.int64),
                                                 np.zeros(3, np.float64)])
    same_bytes_on_gpu(CONSTEXPR, path, "k", 1, 8, [np.zeros(8, np.int32)])
    same_bytes_on_gpu(RANGE_FOR, path, "k", 1, 32, [np.zeros(32, np.float32), np.zeros(32, np.int32)])
    ps = np.zeros(32, dtype=[("x", "f4"), ("y", "f4"), ("z", "f4"), ("id", "i4")])
    ps["x"], ps["id"] = np.arange(32) * 0.5, np.arange(32)
    same_bytes_on_gpu(MEMCPY, path, "k", 1, 32, [np.arange(32, dtype=np.float32), np.zeros(32, np.float32),
                                                  ps, np.zeros_like(ps), np.zeros(100, np.uint8)])
    same_bytes_on_gpu(PIPELINE, path, "k", 1, 64, [_pipeline_input(), np.zeros(64, np.float32)])
