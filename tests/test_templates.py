"""Function templates (``simt.templates``) and C++ casts: instances asked for by name,
named in calls, deduced from argument types, with defaults; their errors; ``--real``."""
import json

import numpy as np
import pytest

import simt
from kern import gpu_or_skip
from tui.cli import main

SRC = r'''#define WARP 32
constexpr int ITEMS = 2;

template <typename T>
__device__ T warpSum(T v) {
    for (int o = WARP / 2; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffff, v, o);
    return v;
}

template <unsigned int blockSize>
__device__ void warpReduce(volatile float *s, unsigned int tid) {
    float v = s[tid];
    for (unsigned int o = 32; o > 0; o >>= 1) {
        if (blockSize >= 2 * o) { v += s[tid + o]; __syncwarp(); s[tid] = v; __syncwarp(); }
    }
}

template <unsigned int blockSize>
__global__ void reduce6(const float *g_idata, float *g_odata, unsigned int n) {
    __shared__ float sdata[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + tid;
    unsigned int gridSize = blockSize * 2 * gridDim.x;
    sdata[tid] = 0;
    while (i < n) { sdata[tid] += g_idata[i] + g_idata[i + blockSize]; i += gridSize; }
    __syncthreads();
    if (blockSize >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads(); }
    if (blockSize >= 128) { if (tid < 64) { sdata[tid] += sdata[tid + 64]; } __syncthreads(); }
    if (tid < 32) warpReduce<blockSize>(sdata, tid);
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

template <typename T, int N = ITEMS * 2>
__global__ void sum_items(const T *in, T *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    T v = 0;
    for (int k = 0; k < N; k++) {
        int j = i * N + k;
        if (j < n) v += in[j];
    }
    v = warpSum(v);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, static_cast<T>(v));
}

extern "C" __global__ void casts(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 4) {
        float4 v = reinterpret_cast<const float4 *>(x)[i];
        x[4 * i] = static_cast<float>(static_cast<int>(v.y * 2.5f)) + v.w;
    }
}
'''


@pytest.fixture(scope="module")
def mod():
    return simt.Module.from_source(SRC, "t.cu")


def launch(mod, name, grid, block, args):
    dev = simt.Device()
    dargs = [dev.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    res = mod.get_function(name).launch(dev, simt.LaunchConfig.of(grid, block), dargs)
    assert res.error is None, res.error
    return [d.get() if isinstance(d, simt.DeviceArray) else d for d in dargs], res


X = (np.arange(1 << 13) % 7).astype(np.float32)


@pytest.mark.parametrize("bs", [256, 128, 64])
def test_templated_reduction_at_each_block_size(mod, bs):
    (_, out, _), res = launch(mod, f"reduce6<{bs}>", 8, bs, [X, np.zeros(8, np.float32), np.uint32(X.size)])
    assert float(out.sum()) == float(X.sum())
    per_block = X.reshape(-1, 2 * bs)
    want = [per_block[b::8].sum() for b in range(8)]
    np.testing.assert_array_equal(out, np.array(want, np.float32))
    assert res.kernel == f"reduce6<{bs}>"
    assert not [f for f in res.sanitizer if f.severity == "error"]


def test_instances_differ_as_their_arguments_do(mod):
    """blockSize folds like a constant: the 64-thread instance skips the steps for larger
    blocks, so it executes fewer shared loads per warp than the 256-thread one."""
    _, r256 = launch(mod, "reduce6<256>", 1, 256, [X[:512], np.zeros(1, np.float32), np.uint32(512)])
    _, r64 = launch(mod, "reduce6<64>", 1, 64, [X[:128], np.zeros(1, np.float32), np.uint32(128)])
    key = "smsp__inst_executed_op_shared_ld.sum"
    assert r64.metrics[key] / 2 < r256.metrics[key] / 8


def test_defaults_deduction_and_canonical_names(mod):
    x = np.arange(1000, dtype=np.int32)
    (_, out, _), res = launch(mod, "sum_items<int>", 2, 128, [x, np.zeros(1, np.int32), np.int32(1000)])
    assert res.kernel == "sum_items<int, 4>"          # N's default: ITEMS * 2
    assert int(out[0]) == int(x.sum())
    (_, out2, _), _ = launch(mod, "sum_items< float ,2 >", 4, 128,
                             [x.astype(np.float32), np.zeros(1, np.float32), np.int32(1000)])
    assert float(out2[0]) == float(x.sum())
    names = set(mod.lowerer.names.values())
    assert {"warpSum<int>", "warpSum<float>", "sum_items<int, 4>", "sum_items<float, 2>"} <= names
    assert mod.get_function("sum_items<int,4>") is mod.get_function("sum_items<int>")
    assert mod.kernel_names == ["casts"]
    assert mod.template_kernels == ["reduce6<unsigned int blockSize>", "sum_items<typename T, int N>"]


def test_cpp_casts_become_c_casts(mod):
    x = np.arange(16, dtype=np.float32) * 0.5
    (out, _), _ = launch(mod, "casts", 1, 32, [x.copy(), np.int32(16)])
    for i in range(4):
        assert out[4 * i] == np.float32(int(x[4 * i + 1] * 2.5)) + x[4 * i + 3]


def test_if_constexpr_and_unsigned_value_parameters():
    src = r'''
    template <bool Square, unsigned Shift>
    __global__ void f(int *x) {
        int v = x[threadIdx.x];
        if constexpr (Square) v = v * v;
        x[threadIdx.x] = v >> Shift;
    }'''
    m = simt.Module.from_source(src, "c.cu")
    (out,), _ = launch(m, "f<true, 1u>", 1, 32, [np.arange(32, dtype=np.int32)])
    np.testing.assert_array_equal(out, (np.arange(32) ** 2) >> 1)
    (out,), _ = launch(m, "f<false, 2>", 1, 32, [np.arange(32, dtype=np.int32)])
    np.testing.assert_array_equal(out, np.arange(32) >> 2)


def test_forwarding_reference_parameters_bind_a_variable_or_a_temporary():
    """``F &&f`` in a function template (a functor passed on as given): a variable binds
    (its changes are the caller's), a temporary is the parameter's own."""
    src = r'''
    struct Counter { int n; __device__ int operator()(int k) { n += k; return n; } };
    template <typename F> __device__ int call_twice(F &&f, int k) { f(k); return f(k); }
    extern "C" __global__ void k(int *o) {
        Counter c{0};
        int a = call_twice(c, 2);
        int b = call_twice(Counter{10}, 1);
        o[threadIdx.x] = a + c.n * 10 + b * 100;
    }'''
    m = simt.Module.from_source(src, "f.cu")
    (out,), _ = launch(m, "k", 1, 32, [np.zeros(32, dtype=np.int32)])
    np.testing.assert_array_equal(out, np.full(32, 4 + 40 + 1200))


@pytest.mark.parametrize("src,kernel,where,msg", [
    ("template <> __global__ void k(int *x) {}\n", None, "e.cu:1:1", "explicit specializations"),
    ("template <int N>\n__global__ void k(int *x) { k<N + 1>(x); }\n", "k<1>", "e.cu:1",
     "more than 256 template instances"),
    ("template <typename T> __device__ T id(int v) { return v; }\n"
     "__global__ void k(int *x) {\n  x[0] = id(x[0]);\n}\n", "k", "e.cu:3:10",
     "cannot deduce template argument 'T'"),
    ("template <typename T> __device__ T bad(T v) { return v + nope; }\n"
     "template <int N> __global__ void k(float *x) { x[0] = bad(x[0]) * N; }\n", "k<2>", "e.cu:1:58",
     'identifier "nope" is undefined'),
    ("template <typename... Ts> __global__ void k(int *x) {}\n", None, "e.cu:1:1", "parameter packs"),
])
def test_template_errors_name_the_place(src, kernel, where, msg):
    with pytest.raises(simt.CompileError) as e:
        m = simt.Module.from_source(src, "e.cu")
        m.get_function(kernel)
    assert str(e.value).startswith(where + ":") or str(e.value).startswith(where + " "), str(e.value)
    assert msg in str(e.value)


def test_cli_names_template_kernels_and_needs_their_arguments(tmp_path, capsys):
    p = tmp_path / "t.cu"
    p.write_text(SRC)
    rc = main(["run", str(p), "--grid", "1", "--block", "32"])
    err = capsys.readouterr().err
    assert rc == 2 and "reduce6<unsigned int blockSize>" in err and "sum_items<typename T, int N>" in err
    rc = main(["run", str(p), "--kernel", "reduce6", "--grid", "1", "--block", "32"])
    err = capsys.readouterr().err
    assert rc == 2 and "needs its template argument 'blockSize'" in err
    rc = main(["run", str(p), "--kernel", "reduce6<64>", "--grid", "2", "--block", "64",
               "--arg", "float32[256]=ones", "--arg", "float32[2]=zeros", "--arg", "256", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 0 and d["kernel"] == "reduce6<64>" and d["predicted_ms"] > 0
    assert d["arrays"][1]["sum"] == 256.0


@pytest.mark.gpu
def test_template_instances_match_the_gpu(tmp_path):
    gpu_or_skip()
    from kernels_cuda import crosscheck
    p = tmp_path / "t.cu"
    p.write_text(SRC)
    m = simt.Module.from_file(p)
    for name, grid, block, args in [
            ("reduce6<128>", 8, 128, [X, np.zeros(8, np.float32), np.uint32(X.size)]),
            ("sum_items<int, 2>", 8, 128, [np.arange(2048, dtype=np.int32), np.zeros(1, np.int32),
                                           np.int32(2048)])]:
        want, _ = launch(m, name, grid, block, args)
        _, after, _ = crosscheck.real_launch(str(p), name, grid, block, args, repeat=3)
        np.testing.assert_array_equal(after[1], want[1])
