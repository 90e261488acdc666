"""Whole programs: a .cu file's host code (main, cudaMalloc, launches, std::vector, a
CUDA_CHECK macro) is blanked before parsing (``simt.hostcode``); its kernels run."""
from pathlib import Path

import numpy as np
import pytest

import simt
from kern import compile_error, run
from tui.cli import main

DATA = Path(__file__).resolve().parent / "data"
F32 = np.float32


def test_simt_run_on_a_whole_program(tmp_path, capsys):
    dest = tmp_path / "y.npy"
    rc = main(["run", str(DATA / "whole_program_saxpy.cu"), "--kernel", "saxpy", "--grid", "4",
               "--block", "256", "--arg", "float32=2", "--arg", "float32[1000]=uniform",
               "--arg", "float32[1000]=ones", "--arg", "int32=1000", "--seed", "3",
               "--out", f"y={dest}"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    x = np.random.default_rng(3).uniform(0, 1, 1000).astype(F32)
    np.testing.assert_array_equal(np.load(dest), F32(2) * x + F32(1))


def test_whole_program_kernels_and_host_names():
    m = simt.Module.from_file(DATA / "whole_program_saxpy.cu")
    assert m.kernel_names == ["saxpy"]
    with pytest.raises(simt.UsageError) as e:
        m.get_function("main")
    assert e.value.message == (f"main in {DATA / 'whole_program_saxpy.cu'} is a host function, which "
                            "simt skips; it runs __global__ kernels (kernels: saxpy)")


def test_leetgpu_solve_wrapper():
    src = """#include <cuda_runtime.h>
__global__ void relu(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(in[i], 0.0f);
}
// input, output are device pointers
extern "C" void solve(const float *input, float *output, int N) {
  int threadsPerBlock = 256;
  int blocksPerGrid = (N + threadsPerBlock - 1) / threadsPerBlock;
  relu<<<blocksPerGrid, threadsPerBlock>>>(input, output, N);
  cudaDeviceSynchronize();
}"""
    x = np.linspace(-2, 2, 300, dtype=F32)
    (_, y, _), _ = run(src, "relu", 2, 256, [x, np.zeros(300, F32), np.int32(300)])
    np.testing.assert_array_equal(y, np.maximum(x, 0))


def test_device_code_calling_a_host_function_is_an_error():
    src = ("float helper(float x) { return 2 * x; }\n"
           "__global__ void k(float *y) { y[0] = helper(y[0]); }\n")
    assert compile_error(src) == (
        'bad.cu:2:38: error: calling a __host__ function("helper") from device code is not '
        "allowed: it is declared at bad.cu:1 without __device__ (declare it __device__, or "
        "__host__ __device__ to keep it for the host too)")
    src = ("__host__ void prep(float *p);\n"
           "__global__ void k(float *y) {\n  prep(y);\n}\n")
    assert compile_error(src).startswith('bad.cu:3:3: error: calling a __host__ function("prep")')


def test_host_variable_of_a_host_type_is_named():
    src = ("#include <vector>\nstd::vector<float> table(16);\n"
           "__global__ void k(float *y) { y[0] = table[0]; }\n")
    assert compile_error(src).startswith(
        'bad.cu:3:38: error: identifier "table" is undefined in device code: it is a host '
        "variable (bad.cu:2)")


def test_host_device_and_constexpr_functions_stay():
    src = """
constexpr int twice(int v) { return 2 * v; }
__host__ __device__ float half_of(float v) { return 0.5f * v; }
namespace util { inline float host_only(float v) { return v; } __device__ float sq(float v) { return v * v; } }
__global__ void k(float *y) { y[threadIdx.x] = util::sq(half_of(y[threadIdx.x])) + twice(3); }
"""
    v = np.arange(8, dtype=F32)
    (y,), _ = run(src, "k", 1, 8, [v.copy()])
    np.testing.assert_array_equal(y, (F32(0.5) * v) ** 2 + 6)


def test_host_code_with_an_extended_lambda_is_skipped():
    # (nvcc needs --extended-lambda for it; simt never reads host code)
    src = ("template <typename F> __global__ void map(F f, float *x) { x[threadIdx.x] = f(x[threadIdx.x]); }\n"
           "void launch(float *x) {\n  auto f = [=] __device__ (float v) { return v * 2; };\n"
           "  map<<<1, 32>>>(f, x);\n}\n"
           'extern "C" __global__ void k(float *o) { o[threadIdx.x] = 3; }')
    (o,), _ = run(src, "k", 1, 4, [np.zeros(4, F32)])
    assert o.tolist() == [3, 3, 3, 3]
