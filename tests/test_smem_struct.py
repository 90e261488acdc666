"""The CUDA samples' ``SharedMemory<T>`` struct (conversion operators that return the
block's dynamic shared memory), its ``template <>`` specialization for double, explicit
instantiations, and the error for other conversion operators."""
import numpy as np
import pytest

import simt
from kern import gpu_or_skip, run
from simt.errors import CompileError

SRC = r'''
template <class T>
struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
  __device__ inline operator const T *() const {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

template <>
struct SharedMemory<double> {
  __device__ inline operator double *() {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
  __device__ inline operator const double *() const {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
};

struct Floats {                       // not a template: a plain conversion
  __device__ operator float *() { extern __shared__ float fs[]; return fs; }
};

// sums of pairs of blocks' halves, then a tree in shared memory
template <class T, unsigned int blockSize>
__global__ void block_sums(const T *in, T *out, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + tid;
  T s = (i < n) ? in[i] : 0;
  if (i + blockSize < n) s += in[i + blockSize];
  sdata[tid] = s;
  __syncthreads();
  for (unsigned int k = blockSize / 2; k > 0; k >>= 1) {
    if (tid < k) sdata[tid] = s = s + sdata[tid + k];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
template __global__ void block_sums<float, 128>(const float *, float *, unsigned int);

extern "C" __global__ void reverse(float *a) {
  float *s = Floats();
  const float *c = SharedMemory<float>();
  s[threadIdx.x] = a[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  a[blockIdx.x * blockDim.x + threadIdx.x] = c[blockDim.x - 1 - threadIdx.x];
}
'''


@pytest.mark.parametrize("name, dtype", [("block_sums<float, 128>", np.float32),
                                          ("block_sums<double, 128>", np.float64),
                                          ("block_sums<int, 64>", np.int32)])
def test_shared_memory_struct_hands_out_the_dynamic_shared_memory(name, dtype):
    block = int(name.split(",")[1].strip(" >"))
    n, grid = 5000, 20
    x = (np.arange(n) % 97).astype(dtype)
    (_, out, _), _ = run(SRC, name, grid, block, [x, np.zeros(grid, dtype), np.uint32(n)],
                         shared=block * np.dtype(dtype).itemsize)
    want = np.array([x[b * 2 * block:(b + 1) * 2 * block].sum() for b in range(grid)], dtype)
    np.testing.assert_array_equal(out, want)


def test_two_conversions_alias_the_same_shared_memory():
    a = np.arange(128, dtype=np.float32)
    (got,), _ = run(SRC, "reverse", 2, 64, [a.copy()], shared=256)
    np.testing.assert_array_equal(got, a.reshape(2, 64)[:, ::-1].ravel())


@pytest.mark.parametrize("src, where", [
    ("struct V {\n  float x;\n  __device__ operator float() const { return x; }\n};", "bad.cu:3:14"),
    ("struct W {\n  __device__ operator float *() { return 0; }\n};", "bad.cu:2:14"),
])
def test_other_conversion_operators_are_an_error_naming_the_operator(src, where):
    """Other member functions are simt.classes' (tests/test_cpp_classes.py); a conversion
    operator that is not SharedMemory's is outside the subset."""
    with pytest.raises(CompileError) as e:
        simt.Module.from_source(src + '\nextern "C" __global__ void k(float *a) { }', "bad.cu")
    assert str(e.value).startswith(where), str(e.value)
    assert "conversion operators" in str(e.value)


@pytest.mark.gpu
def test_shared_memory_struct_matches_the_gpu(tmp_path):
    gpu_or_skip()
    from kernels_cuda import crosscheck
    p = tmp_path / "smem.cu"
    p.write_text(SRC)
    n, grid, block = 5000, 20, 128
    x = (np.arange(n) % 97).astype(np.float64)
    _, after, _ = crosscheck.real_launch(str(p), "block_sums<double, 128>", grid, block,
                                         [x, np.zeros(grid), np.uint32(n)], repeat=1,
                                         shared_mem=block * 8)
    (_, want, _), _ = run(SRC, "block_sums<double, 128>", grid, block,
                          [x, np.zeros(grid), np.uint32(n)], shared=block * 8)
    np.testing.assert_array_equal(after[1], want)
