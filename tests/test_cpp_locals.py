"""C++ that kernels use inside their bodies: local reference variables (``float &x =
a[i];``), ``auto``, ``static_assert``, ``?:`` on structs, and the limits and constants of
``<cfloat>``/``<climits>``/``<cmath>`` (``FLT_MAX``, ``INT_MAX``, ``INFINITY``)."""
import numpy as np
import pytest

import simt
from kern import gpu_or_skip, run
from simt.errors import CompileError

SRC = r'''
#include <cfloat>
#include <climits>
struct P { float v; int idx; };
static_assert(sizeof(P) == 8, "P holds a float and an int");
__device__ void bump(float &v) { v += 1.0f; }
__device__ P better(P a, P b) { return a.v >= b.v ? a : b; }

extern "C" __global__ void locals(float *a, P *ps, float *out, int *iout, int n) {
    auto i = blockIdx.x * blockDim.x + threadIdx.x;       // unsigned int
    static_assert(sizeof(i) == 4, "auto from unsigned int");
    if (i >= n) return;
    float &x = a[i];                 // global memory
    x = x * 2.0f;
    auto &y = x;                     // a reference to a reference
    y += 0.5f;
    float acc = 0.0f;
    float &r = acc;                  // a register
    r += 3.0f;
    bump(r);                         // passed on to a reference parameter
    P &p = ps[i];                    // a struct in memory
    p.idx = p.idx + 7;
    const P &q = ps[i];
    const float &c = 2;              // a const reference to a temporary: a copy
    auto *pa = &out[i];
    const auto z = q.v + c;
    *pa = acc + z;
    P best; best.v = -FLT_MAX; best.idx = INT_MAX;
    for (int k = 0; k < 4; ++k) {
        P cand = {ps[(i + k) % n].v, (int)((i + k) % n)};
        best = better(best, cand);   // ?: on structs, through a function
    }
    P worst = best.v < 0.0f ? best : p;
    float m = -INFINITY;
    m = fmaxf(m, x);
    iout[i] = best.idx * 1000 + worst.idx + (m == x ? 0 : 1000000) + (isinf(-INFINITY) ? 0 : 2000000);
}
'''
N = 64


def _inputs():
    rng = np.random.default_rng(1)
    ps = np.zeros(N, np.dtype([("v", np.float32), ("idx", np.int32)]))
    ps["v"] = rng.random(N).astype(np.float32)
    ps["idx"] = np.arange(N)
    return [rng.random(N).astype(np.float32), ps, np.zeros(N, np.float32),
            np.zeros(N, np.int32), np.int32(N)]


def _expected(a, ps):
    a2 = a * 2.0 + 0.5
    a2 = a2.astype(np.float32)
    out = (np.float32(4.0) + (ps["v"] + np.float32(2.0))).astype(np.float32)
    ps2 = ps.copy()
    ps2["idx"] += 7
    best = np.empty(N, np.int64)
    for i in range(N):                 # the first maximum of v[i .. i+3] (>= keeps the earlier)
        b_v, b_i = -np.finfo(np.float32).max, np.iinfo(np.int32).max
        for k in range(4):
            j = (i + k) % N
            if b_v >= ps["v"][j]:
                continue
            b_v, b_i = ps["v"][j], j
        best[i] = b_i
    worst = ps2["idx"]                  # best.v < 0 never holds: the stored struct's idx
    return a2, ps2, out, (best * 1000 + worst).astype(np.int32)


def test_local_references_auto_and_struct_selects():
    ins = _inputs()
    (a, ps, out, iout, _), _ = run(SRC, "locals", 2, 32,
                                   [x.copy() if isinstance(x, np.ndarray) else x for x in ins])
    a2, ps2, out_w, iout_w = _expected(ins[0], ins[1])
    np.testing.assert_array_equal(a, a2)
    np.testing.assert_array_equal(ps, ps2)
    np.testing.assert_array_equal(out, out_w)
    np.testing.assert_array_equal(iout, iout_w)


def test_a_reference_to_a_kernel_parameter_writes_its_copy():
    src = '''extern "C" __global__ void k(int *o, int n) {
        int &m = n;
        m = m / 2;
        auto t = threadIdx.x;
        o[t] = n + (int)t;
    }'''
    (o, _), _ = run(src, "k", 1, 32, [np.zeros(32, np.int32), np.int32(100)])
    np.testing.assert_array_equal(o, 50 + np.arange(32))


def test_a_bitwise_and_before_an_assignment_is_not_a_reference():
    src = '''extern "C" __global__ void k(int *o, int m) {
        int x = threadIdx.x, y;
        y = x & m;
        bool b = (x & m) == 1;
        o[x] = y + (int)b + (x&m);
    }'''
    (o, _), _ = run(src, "k", 1, 32, [np.zeros(32, np.int32), np.int32(5)])
    x = np.arange(32)
    np.testing.assert_array_equal(o, 2 * (x & 5) + ((x & 5) == 1))


def test_limits_and_math_constants_have_cs_values():
    src = '''extern "C" __global__ void k(float *f, double *d, long long *l) {
        f[0] = FLT_MAX; f[1] = FLT_MIN; f[2] = FLT_EPSILON; f[3] = INFINITY; f[4] = M_PI;
        f[5] = CUDART_PI_F; f[6] = HUGE_VALF; f[7] = NAN;
        d[0] = DBL_MAX; d[1] = DBL_EPSILON; d[2] = HUGE_VAL; d[3] = M_SQRT2;
        l[0] = INT_MAX; l[1] = INT_MIN; l[2] = UINT_MAX; l[3] = LLONG_MIN; l[4] = SHRT_MIN;
        l[5] = CHAR_BIT; l[6] = LLONG_MAX;
    }'''
    (f, d, l), _ = run(src, "k", 1, 1, [np.zeros(8, np.float32), np.zeros(4, np.float64),
                                         np.zeros(7, np.int64)])
    fi = np.finfo(np.float32)
    np.testing.assert_array_equal(f[:7], np.array([fi.max, fi.tiny, fi.eps, np.inf, np.pi,
                                                   np.pi, np.inf], np.float32))
    assert np.isnan(f[7])
    np.testing.assert_array_equal(d, [np.finfo(np.float64).max, np.finfo(np.float64).eps,
                                      np.inf, np.sqrt(2.0)])
    np.testing.assert_array_equal(l, [2**31 - 1, -2**31, 2**32 - 1, -2**63, -32768, 8, 2**63 - 1])


def test_a_files_own_define_of_a_limit_wins():
    src = '''#define FLT_MAX 7.0f
    extern "C" __global__ void k(float *f) { f[0] = FLT_MAX; }'''
    (f,), _ = run(src, "k", 1, 1, [np.zeros(1, np.float32)])
    assert f[0] == 7.0


K = 'extern "C" __global__ void kk(int *p, float *f, const int *c) {\n'


@pytest.mark.parametrize("src, where, words", [
    (K + "  int &r = 3;\n}", "bad.cu:2:12", 'a reference of type "int &" cannot bind to a value'),
    (K + "  int &r = f[0];\n}", "bad.cu:2:12", 'cannot bind to a location of type "float"'),
    (K + "  int &r = c[0];\n}", "bad.cu:2:8", "cannot bind to a const location"),
    (K + "  int &r;\n}", "bad.cu:2:7", "must be initialized"),
    (K + "  auto v;\n}", "bad.cu:2:9", "syntax error before ';'"),
    (K + '  static_assert(sizeof(p) == 4, "32-bit");\n}', "bad.cu:2:3",
     "static assertion failed: 32-bit"),
    ('static_assert(sizeof(int) == 8, "wide ints");\n' + K + "}", "bad.cu:1:1",
     "static assertion failed: wide ints"),
])
def test_bad_locals_name_their_place(src, where, words):
    with pytest.raises(CompileError) as e:
        simt.Module.from_source(src, "bad.cu").get_function("kk")
    assert str(e.value).startswith(where), str(e.value)
    assert words in str(e.value), str(e.value)


@pytest.mark.gpu
def test_locals_match_the_gpu(tmp_path):
    gpu_or_skip()
    from kernels_cuda import crosscheck
    p = tmp_path / "locals.cu"
    p.write_text(SRC)
    ins = _inputs()
    _, after, _ = crosscheck.real_launch(str(p), "locals", 2, 32, ins, repeat=1)
    a2, ps2, out_w, iout_w = _expected(ins[0], ins[1])
    np.testing.assert_array_equal(after[0], a2)
    np.testing.assert_array_equal(after[1].view(ps2.dtype), ps2)
    np.testing.assert_array_equal(after[2], out_w)
    np.testing.assert_array_equal(after[3], iout_w)


def test_builtin_vectors_copied_whole():
    src = '''extern "C" __global__ void k(unsigned int *o) {
        uint3 t = threadIdx;
        dim3 b = blockDim;
        auto g = blockIdx;
        o[t.y * b.x + t.x + g.x * b.x * b.y] = t.x + 100 * t.y + 10000 * g.x + b.y;
    }'''
    (o,), _ = run(src, "k", 2, (4, 3), [np.zeros(24, np.uint32)])
    tx, ty, bx = np.meshgrid(np.arange(4), np.arange(3), np.arange(2), indexing="xy")
    want = np.zeros(24, np.uint32)
    want[ty * 4 + tx + bx * 12] = tx + 100 * ty + 10000 * bx + 3
    np.testing.assert_array_equal(o, want)


def test_bfloat162_is_an_error_naming_its_place():
    # (__half and __nv_bfloat16 are supported: tests/test_half.py, tests/test_bf16.py)
    src = '#include <cuda_bf16.h>\nextern "C" __global__ void k(const __nv_bfloat162 *a) { }'
    with pytest.raises(CompileError) as e:
        simt.Module.from_source(src, "bad.cu")
    assert str(e.value).startswith("bad.cu:2:36") and "__nv_bfloat162" in str(e.value), str(e.value)
    assert "not supported yet" in str(e.value)


HEADERS = r'''
#include <cmath>
#include <math.h>
#include <cstdio>
#include <stdlib.h>
#include <float.h>
#include <limits.h>
extern "C" __global__ void consts(float *f, long long *l) {
    f[0] = INFINITY; f[1] = -FLT_MAX; f[2] = (float)M_PI; f[3] = FLT_EPSILON; f[4] = HUGE_VALF;
    l[0] = INT_MIN; l[1] = UINT_MAX; l[2] = LLONG_MAX; l[3] = CHAR_BIT;
}
'''


@pytest.mark.gpu
def test_c_library_constants_compile_and_agree_on_the_gpu(tmp_path):
    """NVRTC has no <cfloat>, <cmath>, <stdio.h>, ...: --real supplies stand-ins
    (kernels_cuda.cupy_backend.host_headers) so a file written for nvcc compiles, with
    the values the emulator uses."""
    gpu_or_skip()
    from kernels_cuda import crosscheck
    p = tmp_path / "consts.cu"
    p.write_text(HEADERS)
    args = [np.zeros(5, np.float32), np.zeros(4, np.int64)]
    _, after, _ = crosscheck.real_launch(str(p), "consts", 1, 1, args, repeat=1)
    (f, l), _ = run(HEADERS, "consts", 1, 1, [a.copy() for a in args])
    np.testing.assert_array_equal(after[0], f)
    np.testing.assert_array_equal(after[1], l)
    assert f[0] == np.inf and l[2] == 2**63 - 1
