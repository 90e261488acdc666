"""C++ reference parameters of device functions (``void swap(float &a, float &b)``): the
name stands for the caller's variable or memory, not a copy."""
import numpy as np
import pytest

import simt
from kern import gpu_or_skip, run
from simt.errors import CompileError

SRC = r'''
struct P { float x, y; };
__device__ void swap(float &a, float &b) { float t = a; a = b; b = t; }
__device__ void bump(int &c, const int &by) { c += by; }
__device__ float len2(const P &p) { return p.x * p.x + p.y * p.y; }
__device__ void scale(P &p, float s) { p.x *= s; p.y *= s; }
__device__ void twice(float &v);
__device__ void twice_both(float &a, float &b) { twice(a); twice(b); }
__device__ void twice(float &v) { v *= 2.0f; }
template <typename T> __device__ void addto(T &acc, T v) { acc += v; }

extern "C" __global__ void refs(float *a, int *cnt, P *ps, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[2 * i], y = a[2 * i + 1];
    if (x > y) swap(x, y);                 // registers
    a[2 * i] = x; a[2 * i + 1] = y;
    int c = 0;
    bump(c, i & 7);                        // a const reference to a temporary
    bump(cnt[i], 3);                       // global memory
    P p = ps[i];
    scale(p, 2.0f);                        // a struct in registers
    scale(ps[i], 0.5f);                    // ... and in memory
    twice_both(p.x, p.y);                  // members, passed on to another reference
    float acc = 0.0f;
    addto(acc, len2(p));                   // a template's, deduced
    addto<float>(acc, (float)c);
    __shared__ float s[64];
    s[threadIdx.x] = 1.0f;
    twice(s[threadIdx.x]);                 // shared memory
    out[i] = acc + s[threadIdx.x];
}
'''
N = 64


def _inputs():
    rng = np.random.default_rng(0)
    return [rng.random(2 * N).astype(np.float32), np.arange(N, dtype=np.int32),
            rng.random(2 * N).astype(np.float32), np.zeros(N, np.float32), np.int32(N)]


def _expected(a, cnt, ps):
    p = ps.reshape(N, 2)
    return [np.sort(a.reshape(N, 2), axis=1).ravel(), cnt + 3, ps * 0.5,
            ((p * 4) ** 2).sum(1) + (np.arange(N) & 7) + 2.0]


def test_reference_parameters_write_the_callers_lvalues():
    ins = _inputs()
    (a, cnt, ps, out, _), _ = run(SRC, "refs", 2, 32, [x.copy() if isinstance(x, np.ndarray) else x
                                                        for x in ins])
    want = _expected(*ins[:3])
    np.testing.assert_array_equal(a, want[0])
    np.testing.assert_array_equal(cnt, want[1])
    np.testing.assert_array_equal(ps, want[2])
    np.testing.assert_allclose(out, want[3], rtol=1e-6)


def test_a_bitwise_and_in_a_call_is_not_a_reference():
    src = '''__device__ int f(int a, int b) { return a + b; }
    extern "C" __global__ void k(int *o, int m) {
        int x = threadIdx.x;
        o[x] = f(x & m, m & x);
    }'''
    (o, _), _ = run(src, "k", 1, 32, [np.zeros(32, np.int32), np.int32(5)])
    np.testing.assert_array_equal(o, 2 * (np.arange(32) & 5))


@pytest.mark.parametrize("src, where, words", [
    ('extern "C" __global__ void k(int &a) {}', "bad.cu:1:34", "kernel's parameters cannot be C++ references"),
    ('struct S { int &r; };', "bad.cu:1:16", "a struct cannot hold one"),
])
def test_references_outside_the_subset_name_their_place(src, where, words):
    with pytest.raises(CompileError) as e:
        simt.Module.from_source(src, "bad.cu")
    assert str(e.value).startswith(where) and words in str(e.value)


@pytest.mark.gpu
def test_reference_parameters_match_the_gpu(tmp_path):
    gpu_or_skip()
    from kernels_cuda import crosscheck
    p = tmp_path / "refs.cu"
    p.write_text(SRC)
    ins = _inputs()
    _, after, _ = crosscheck.real_launch(str(p), "refs", 2, 32, ins, repeat=1)
    want = _expected(*ins[:3])
    for k in range(3):
        np.testing.assert_array_equal(after[k], want[k])
    np.testing.assert_allclose(after[3], want[3], rtol=1e-6)


def test_a_kernel_parameter_passed_to_a_reference_is_written():
    src = '''__device__ void clamp_to(int &v, int hi) { if (v > hi) v = hi; }
    template <typename T> __device__ void halve(T &v) { v /= 2; }
    extern "C" __global__ void k(int *o, int n, int m) {
        clamp_to(n, 100);
        halve(m);
        o[threadIdx.x] = n + m;
    }'''
    (o, _, _), _ = run(src, "k", 1, 32, [np.zeros(32, np.int32), np.int32(500), np.int32(9)])
    np.testing.assert_array_equal(o, np.full(32, 104))
