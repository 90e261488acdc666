"""Function specifiers before the CUDA execution space (``inline __device__``, ``static
inline``, ``inline __host__ __device__``, ``constexpr __device__``) are read as nvcc reads
them: the attribute the front end makes of ``__device__`` goes first."""
import numpy as np

from kern import run

F32 = np.float32


def test_leading_inline_static_constexpr():
    src = """
inline __device__ float f(float v) { return v + 1.0f; }
static inline __device__ float g(float v) { return v * 2.0f; }
inline __host__ __device__ float h(float v) { return v - 3.0f; }
constexpr __device__ float c(float v) { return v * v; }
__device__ constexpr int sq(int v) { return v * v; }
static __device__ inline float s2(float v) { return v + 0.5f; }
__forceinline__ __device__ float fi(float v) { return v * 4.0f; }
template <typename T> inline __host__ __device__ T tw(T v) { return v + v; }
inline __host__ __device__ float4 operator*(float4 a, float s) {
  return make_float4(a.x * s, a.y * s, a.z * s, a.w * s);
}
__global__ void k(float *y, float4 *q) {
  float v = y[threadIdx.x];
  y[threadIdx.x] = f(v) + g(v) + h(v) + c(v) + sq(3) + s2(v) + fi(v) + tw(v);
  q[threadIdx.x] = q[threadIdx.x] * v;
}"""
    v = np.arange(8, dtype=F32)
    q = np.arange(32, dtype=F32)
    (y, q2), _ = run(src, "k", 1, 8, [v.copy(), q.copy()])
    want = (v + 1) + v * 2 + (v - 3) + v * v + 9 + (v + F32(0.5)) + v * 4 + (v + v)
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(q2, q * np.repeat(v, 4))
