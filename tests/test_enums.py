"""C++ enums: ``enum class`` with qualified enumerators (``Mode::Mul``), an underlying
type, enum names used as types (variables, struct members, ``switch``), and enum-typed
template value parameters (``template <Mode M>``)."""
import numpy as np
import pytest

import simt
from kern import gpu_or_skip, run
from simt.errors import CompileError

SRC = r'''
enum class Mode : int { Add = 0, Mul = 1, Last = Mul };
enum class Other { Add = 7 };                 // the same enumerator name, another scope
enum Color { Red, Green = 5 };
template <Mode M> __device__ float op(float a, float b) { return M == Mode::Add ? a + b : a * b; }
struct S { Mode m; Color c; };

extern "C" __global__ void enums(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Mode m = (i & 1) ? Mode::Mul : Mode::Add;
    S s; s.m = m; s.c = Green;
    switch (s.m) {
        case Mode::Add: a[i] = op<Mode::Add>(a[i], 2.0f); break;
        case Mode::Mul: a[i] = op<Mode::Mul>(a[i], 2.0f); break;
    }
    a[i] += (int)Other::Add + (int)Mode::Last + (s.c == Green ? 100 : 0) + (int)Red;
}
'''


KSRC = r'''
#include <climits>
enum class Combine : int { Sum, Max };
template <Combine C> __device__ int combine(int a, int b) { return C == Combine::Sum ? a + b : max(a, b); }
template <Combine C>
__global__ void warp_combine(const int *x, int *out, int n) {
    int acc = C == Combine::Sum ? 0 : INT_MIN;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc = combine<C>(acc, x[i]);
    int w = C == Combine::Sum ? __reduce_add_sync(0xffffffffu, acc) : __reduce_max_sync(0xffffffffu, acc);
    if ((threadIdx.x & 31) == 0) { if (C == Combine::Sum) atomicAdd(out, w); else atomicMax(out, w); }
}
'''


@pytest.mark.parametrize("which", ["Sum", "Max"])
def test_a_kernel_templated_on_a_scoped_enum_is_named_by_its_enumerator(which):
    x = np.random.default_rng(2).integers(-500, 500, 5000).astype(np.int32)
    init = np.int32(0 if which == "Sum" else -2**31)
    mod = simt.Module.from_source(KSRC, "k.cu")
    fn = mod.get_function(f"warp_combine<Combine::{which}>")
    assert fn.name == f"warp_combine<Combine::{which}>"
    (_, out, _), _ = run(KSRC, f"warp_combine<Combine::{which}>", 4, 128,
                         [x, np.array([init]), np.int32(x.size)])
    assert out[0] == (x.sum() if which == "Sum" else x.max())


def _expected(a):
    i = np.arange(a.size)
    return np.where(i & 1, a * 2, a + 2) + 7 + 1 + 100


def test_scoped_enums_templates_and_switches():
    a = np.arange(40, dtype=np.float32)
    (got, _), _ = run(SRC, "enums", 2, 32, [a.copy(), np.int32(40)])
    np.testing.assert_array_equal(got, _expected(a))


def test_an_unknown_scoped_enumerator_names_its_place():
    src = 'enum class E { A };\nextern "C" __global__ void k(int *o) {\n  o[0] = (int)E::B;\n}'
    with pytest.raises(CompileError) as e:
        simt.Module.from_source(src, "bad.cu")
    assert str(e.value).startswith("bad.cu:3:15") and 'no enumerator "B"' in str(e.value), str(e.value)


@pytest.mark.gpu
def test_enums_match_the_gpu(tmp_path):
    gpu_or_skip()
    from kernels_cuda import crosscheck
    p = tmp_path / "enums.cu"
    p.write_text(SRC)
    a = np.arange(40, dtype=np.float32)
    _, after, _ = crosscheck.real_launch(str(p), "enums", 2, 32, [a, np.int32(40)], repeat=1)
    np.testing.assert_array_equal(after[0], _expected(a))


@pytest.mark.gpu
def test_an_enum_templated_kernel_matches_the_gpu(tmp_path):
    gpu_or_skip()
    from kernels_cuda import crosscheck
    p = tmp_path / "combine.cu"
    p.write_text(KSRC)
    x = np.random.default_rng(2).integers(-500, 500, 5000).astype(np.int32)
    for which, init, want in (("Sum", 0, x.sum()), ("Max", -2**31, x.max())):
        _, after, _ = crosscheck.real_launch(str(p), f"warp_combine<Combine::{which}>", 4, 128,
                                             [x, np.array([init], np.int32), np.int32(x.size)], repeat=1)
        assert after[1][0] == want
