"""The emulator preprocesses a file as nvcc's sm_90 device pass does: ``__CUDA_ARCH__`` is
900, ``__CUDACC__`` and ``__NVCC__`` are defined, ``__CUDACC_RTC__`` (NVRTC's) is not."""
import numpy as np

from kern import run


def test_cuda_arch_cudacc_nvcc_are_defined():
    src = """
__global__ void k(int *y) {
#ifdef __CUDA_ARCH__
  y[0] = __CUDA_ARCH__;
#else
  y[0] = -1;
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  y[1] = 80;
#endif
#ifdef __CUDACC__
  y[2] = 1;
#endif
#if defined(__NVCC__)
  y[3] = 1;
#endif
#ifdef __CUDACC_RTC__
  y[4] = 1;
#endif
}"""
    (y,), _ = run(src, "k", 1, 1, [np.zeros(5, np.int32)])
    assert y.tolist() == [900, 80, 1, 1, 0]


def test_a_files_own_definition_wins():
    src = "#define __CUDA_ARCH__ 700\n__global__ void k(int *y) { y[0] = __CUDA_ARCH__; }"
    (y,), _ = run(src, "k", 1, 1, [np.zeros(1, np.int32)])
    assert y.tolist() == [700]
