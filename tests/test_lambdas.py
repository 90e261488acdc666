"""C++ lambdas in device code (``simt.lambdas``): captures by value, by reference and
explicit, init-captures, ``mutable``, ``-> T``, lambdas passed to function templates,
generic lambdas, nested lambdas; and the forms outside the subset, each an error naming
its place.

Every kernel here is valid CUDA C++17 without ``--extended-lambda`` (the GPU test at the
end compiles the same text with NVRTC); inputs are small integers so every float result
is exact and can be checked against numpy bit for bit."""
import numpy as np
import pytest

import simt
from kern import compile_error, gpu_or_skip, run, same_bytes_on_gpu

F32, I32 = np.float32, np.int32

SRC = r'''
template <typename F> __device__ float apply(F f, float x) { return f(x); }
template <typename F> __device__ float apply_twice(const F &f, float x) { return f(f(x)); }
template <typename F> __device__ void each(int n, F f) { for (int k = 0; k < n; ++k) f(k); }
template <typename F> __device__ float sum_over(int n, F &&f) {      // a forwarding reference
    float s = 0.0f;
    for (int k = 0; k < n; ++k) s += f(k);
    return s;
}

extern "C" __global__ void forms(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    auto sq = [](float v) { return v * v; };
    auto seven = [] { return 7.0f; };                    // no parameter list
    auto eight = []() { return 8; };                     // an int
    auto halve = [](int k) -> double { return k * 0.5; };
    auto clamp = [](float v) {                           // several statements, two returns
        float t = v;
        for (int k = 0; k < 3; ++k) t = t * 2.0f;
        if (t > 20.0f) return 20.0f;
        return t;
    };
    auto store = [](float *p, int j, float v) {          // returns nothing
        if (j < 0) return;
        p[j] = v;
    };
    auto scaler = [](float s) { return [=](float v) { return v * s; }; };   // returns a lambda
    auto triple = scaler(3.0f);
    float r = sq(x[i]) + seven() + eight() + (float)halve(i) + clamp(x[i])
            + [](float v) { return v + 1.0f; }(x[i]) * 100.0f     // called where it is made
            + triple(x[i]) * 1000.0f + scaler(2.0f)(x[i]) * 10000.0f;
    store(y, -1, 0.0f);
    store(y, i, r);
}

extern "C" __global__ void captures(const float *x, float *y, int n, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float b = 3.0f;
    int cnt = 0;
    auto by_value = [a](float v) { return v * a; };
    auto by_ref = [&b](float v) { b += v; };
    auto mixed = [a, &b](float v) { return v + a + b; };
    auto all_val = [=](float v) { return v + a + b + cnt; };    // b and cnt as they are now
    auto all_ref = [&](float v) { b += v * a; cnt++; };
    auto except = [=, &cnt]() { cnt += 10; return b; };
    auto except2 = [&, a]() { b += a; };
    by_ref(1.0f);                                        // b = 4
    all_ref(2.0f);                                       // b = 4 + 2a, cnt = 1
    float e = except();                                  // cnt = 11
    except2();                                           // b = 4 + 3a
    auto counter = [c = i]() mutable { c += 10; return c; };
    int c1 = counter();
    auto copy = counter;                                 // the copy has its own c
    int c2 = counter();
    int c3 = copy();
    float base = 1.0f;
    auto grow = [&r = base](float v) { r += v; };        // an init-capture by reference
    grow(x[i]);
    auto product = [m{2}, q(3)]() { return m * q; };
    y[i * 4 + 0] = by_value(x[i]) + mixed(1.0f) + b * 10.0f;
    y[i * 4 + 1] = all_val(0.0f) + e * 100.0f + cnt * 1000.0f;
    y[i * 4 + 2] = c1 + c2 * 100.0f + c3 * 10000.0f;
    y[i * 4 + 3] = base + product() * 10.0f;
}

extern "C" __global__ void functors(const float *x, float *y, const int *idx, int n, float a) {
    __shared__ float tile[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i >= n) return;
    float *t = tile;                                     // a pointer to shared memory, captured
    auto from_tile = [=](int k) { return t[(threadIdx.x + k) % 64]; };
    auto from_shared = [&](int k) { return tile[(threadIdx.x + k) % 64]; };
    auto gather = [=](int k) { return x[idx[k]]; };       // a global pointer, captured
    auto add_a = [=](float v) { return v + a; };
    float acc = 0.0f;
    each(4, [&](int k) { acc += x[(i + k) % n]; });       // modifies a local it captured
    for (int k = 0; k < 3; ++k) {                        // made and called in a loop
        auto inc = [&acc, k]() { acc += k * 100.0f; };
        inc();
    }
    y[i * 3 + 0] = apply(add_a, x[i]) + apply([=](float v) { return v * a; }, x[i]) * 10.0f
                 + apply_twice(add_a, 0.0f) * 100.0f + sum_over(2, add_a) * 1000.0f
                 + sum_over(3, [=](int k) { return x[i] * k; }) * 10000.0f;
    y[i * 3 + 1] = from_tile(1) + from_shared(2) * 10.0f + gather(i) * 100.0f;
    y[i * 3 + 2] = acc;
}

template <typename T> __device__ T total(const T *p, int n) {
    T s = 0;
    auto add = [&s](T v) { s += v; };                    // in a function template
    for (int k = 0; k < n; ++k) add(p[k]);
    return s;
}

__device__ float twice_sq(float v) {
    auto sq = [](float u) -> float { return u * u; };    // in a __device__ function
    return 2.0f * sq(v);
}

extern "C" __global__ void generic(const float *x, float *y, int *z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    auto twice = [](auto v) { return v + v; };           // int and float
    auto first = [](const auto *p) { return p[0]; };
    auto bump = [](auto &v) { v += 1; };
    int k = i;
    bump(k);
    float f = x[i];
    bump(f);
    auto outer = [=](float v) {                          // a lambda in a lambda
        auto inner = [=](float u) { return u * f; };     // f: the outer one's copy
        return inner(v) + 1.0f;
    };
    auto plus_one = [=](float v) { return twice(v) + 1.0f; };     // calls the lambda it captured
    y[i] = twice(f) + first(x) + outer(2.0f) * 10.0f + total(x, 3) * 100.0f + twice_sq(x[i]) * 1000.0f
         + plus_one(1.0f) * 100000.0f;
    z[i] = twice(k) + total(z + n, 2);
}
'''

# a lambda marked __device__: NVRTC and nvcc reject the annotation without
# --extended-lambda, even inside device code (the GPU run of this file), so simt does too
ANNOTATED = r'''
extern "C" __global__ void annotated(const float *x, float *y, int n, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    auto f = [=] __device__ (int k) { return x[(i + k) % n] + a; };
    y[i] = f(1);
}
'''


def _x(n, seed=1, hi=6):
    return np.random.default_rng(seed).integers(0, hi, n).astype(F32)


def _forms_want(x):
    i = np.arange(len(x))
    xd = x.astype(np.float64)
    return (xd * xd + 7 + 8 + i * 0.5 + np.minimum(8 * xd, 20) + (xd + 1) * 100 + 3 * xd * 1000
            + 2 * xd * 10000).astype(F32)


def test_lambdas_with_and_without_parameters_return_types_and_several_statements():
    n = 50
    x = _x(n)
    (_, y, _), _ = run(SRC, "forms", 1, 64, [x, np.zeros(n, F32), I32(n)])
    np.testing.assert_array_equal(y, _forms_want(x))


def _captures_want(x, a):
    n = len(x)
    i = np.arange(n)
    b = 4 + 3 * a
    want = np.stack([x * a + (1 + a + b) + b * 10,
                     np.full(n, (0 + a + 3 + 0) + 3 * 100 + 11 * 1000),
                     (i + 10) + (i + 20) * 100 + (i + 20) * 10000,
                     1 + x + 60], axis=1)
    return want.astype(F32).ravel()


def test_captures_by_value_by_reference_explicit_init_and_mutable():
    n = 40
    x = _x(n, 2)
    (_, y, _, _), _ = run(SRC, "captures", 1, 64, [x, np.zeros(4 * n, F32), I32(n), F32(0.5)])
    np.testing.assert_array_equal(y, _captures_want(x, 0.5))


def _functors_inputs(n):
    return _x(n, 3), np.random.default_rng(4).integers(0, n, n).astype(I32)


def _functors_want(x, idx, a):
    n = len(x)
    i = np.arange(n)
    tile = np.zeros(64)
    tile[:n] = x
    acc = sum(x[(i + k) % n].astype(np.float64) for k in range(4)) + 300
    want = np.stack([(x + a) + x * a * 10 + (2 * a) * 100 + (1 + 2 * a) * 1000 + 3 * x * 10000,
                     tile[(i + 1) % 64] + tile[(i + 2) % 64] * 10 + x[idx] * 100,
                     acc], axis=1)
    return want.astype(F32).ravel()


def test_lambdas_passed_to_templates_in_loops_and_capturing_pointers():
    n = 60
    x, idx = _functors_inputs(n)
    (_, y, _, _, _), _ = run(SRC, "functors", 1, 64, [x, np.zeros(3 * n, F32), idx, I32(n), F32(1.5)])
    np.testing.assert_array_equal(y, _functors_want(x, idx, 1.5))


def _generic_inputs(n):
    z = np.zeros(n + 2, I32)
    z[n:] = [5, 7]
    return _x(n, 5), z


def _generic_want(x, z):
    n = len(x)
    i = np.arange(n)
    f = x.astype(np.float64) + 1
    y = (2 * f + x[0] + (2 * f + 1) * 10 + x[:3].astype(np.float64).sum() * 100 + 2 * x * x * 1000.0
         + 3 * 100000)
    zz = z.copy()
    zz[:n] = 2 * (i + 1) + 12
    return y.astype(F32), zz


def test_generic_lambdas_nested_lambdas_and_lambdas_in_templates():
    n = 40
    x, z = _generic_inputs(n)
    (_, y, z_out, _), _ = run(SRC, "generic", 1, 64, [x, np.zeros(n, F32), z, I32(n)])
    want_y, want_z = _generic_want(x, z)
    np.testing.assert_array_equal(y, want_y)
    np.testing.assert_array_equal(z_out, want_z)


def test_a_lambda_marked_device_is_the_error_nvcc_gives():
    with pytest.raises(simt.CompileError) as e:
        simt.Module.from_source(ANNOTATED, "a.cu").check_all()
    msg = str(e.value)
    assert msg.startswith("a.cu:5:18"), msg
    assert "requires the --extended-lambda nvcc flag" in msg and "drop the annotation" in msg, msg


def test_a_lambdas_class_in_a_template_argument():
    mod = simt.Module.from_source(SRC, "t.cu")
    mod.get_function("functors")
    shown = [n for n in mod.lowerer.funcs if n.startswith("apply<")]
    assert shown and all(n.startswith("apply<struct __lam") for n in shown), shown


# ---- the same instructions as the code written without lambdas --------------------------

def _code(src):
    k = simt.Module.from_source(src, "t.cu").get_function("k")
    return [(i.op, i.sub, len(i.args)) for i in k.ir.code], k.registers


@pytest.mark.parametrize("lam, plain", [
    # a lambda without captures: the __device__ function
    (r'''
    extern "C" __global__ void k(const float *x, float *y, int n) {
      auto f = [](float v) { return v * v + 1.0f; };
      int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
      y[i] = f(x[i]) + f(2.0f * x[i]);
    }''', r'''
    __device__ float f(float v) { return v * v + 1.0f; }
    extern "C" __global__ void k(const float *x, float *y, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
      y[i] = f(x[i]) + f(2.0f * x[i]);
    }'''),
    # a capture by reference: the __device__ function's reference parameter
    (r'''
    extern "C" __global__ void k(const float *x, float *y, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
      float acc = 0.0f;
      auto add = [&](float v) { acc += v * v; };
      for (int k = 0; k < 4; ++k) add(x[(i + k) % n]);
      y[i] = acc;
    }''', r'''
    __device__ void add(float &acc, float v) { acc += v * v; }
    extern "C" __global__ void k(const float *x, float *y, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
      float acc = 0.0f;
      for (int k = 0; k < 4; ++k) add(acc, x[(i + k) % n]);
      y[i] = acc;
    }'''),
    # captures by value passed to a template: the struct with operator() holding them
    (r'''
    template <typename F> __device__ float apply(F f, float v) { return f(v); }
    extern "C" __global__ void k(const float *x, float *y, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
      float s = x[0], c = 2.0f;
      y[i] = apply([=](float v) { return v * s + c; }, x[i]);
    }''', r'''
    struct Affine { float s, c; __device__ float operator()(float v) const { return v * s + c; } };
    template <typename F> __device__ float apply(F f, float v) { return f(v); }
    extern "C" __global__ void k(const float *x, float *y, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
      float s = x[0], c = 2.0f;
      y[i] = apply(Affine{s, c}, x[i]);
    }'''),
])
def test_a_lambda_is_the_code_written_without_it(lam, plain):
    """A lambda emits the instructions of the __device__ function (or functor) written
    by hand: the counters and the timing are the same."""
    assert _code(lam) == _code(plain)
    n = 64
    x = _x(n, 7)
    (_, y1, _), r1 = run(lam, "k", 1, 64, [x, np.zeros(n, F32), I32(n)])
    (_, y2, _), r2 = run(plain, "k", 1, 64, [x, np.zeros(n, F32), I32(n)])
    assert y1.tobytes() == y2.tobytes()
    assert r1.metrics == r2.metrics


# ---- outside the subset ---------------------------------------------------------------

@pytest.mark.parametrize("src, where, words", [
    ('extern "C" __global__ void k(float *o) {\n  float s = 2;\n  auto f = [](float v) { return v * s; };\n'
     "  o[0] = f(1);\n}", "bad.cu:3:37", 'an enclosing-function local variable ("s") cannot be referenced'),
    ('extern "C" __global__ void k(float *o) {\n  float s = 2;\n  auto f = [s](float v) { s = v; return s; };\n'
     "  o[0] = f(1);\n}", "bad.cu:3:27", "modifiable lvalue"),
    ('extern "C" __global__ void k(float *o) {\n  float t[4] = {1, 2, 3, 4};\n'
     "  auto f = [=](int j) { return t[j]; };\n  o[0] = f(1);\n}", "bad.cu:3:32",
     'capturing the array "t" by copy'),
    ('extern "C" __global__ void k(float *o) {\n  float a = 1;\n  auto f = [=, a](int v) { return a; };\n'
     "  o[0] = f(1);\n}", "bad.cu:3:16", "cannot be listed after the capture default ="),
    ('__device__ float g;\nextern "C" __global__ void k(float *o) {\n  auto f = [g](float v) { return v; };\n'
     "  o[0] = f(1);\n}", "bad.cu:3:13", '"g" cannot be captured'),
    ('extern "C" __global__ void k(float *o) {\n  auto f = [](int v) { if (v) return 1; return 2.0f; };\n'
     "  o[0] = f(1);\n}", "bad.cu:2:48", 'the return type "float" is inconsistent with the "int"'),
    ('extern "C" __global__ void k(float *o) {\n  auto f = [](float v) { return v; };\n  o[0] = f(1, 2);\n}',
     "bad.cu:3:10", 'too many arguments in call to "lambda [](float v)"'),
    ('extern "C" __global__ void k(float *o) {\n  auto f = [](float v) { return {v, v}; };\n'
     "  o[0] = f(1);\n}", "bad.cu:2:33", "cannot deduce the return type"),
    ('extern "C" __global__ void k(float *o) {\n  auto f = []<typename T>(T v) { return v; };\n'
     "  o[0] = f(1.0f);\n}", "bad.cu:2:14", "a lambda with a template parameter list"),
    ('extern "C" __global__ void k(float *o) {\n  auto f = [](float v) { return this; };\n'
     "  f(1.0f);\n}", "bad.cu:2:33", '"this" in a lambda'),
    # an error in a lambda's body names its place, in a template's instance too
    ('extern "C" __global__ void k(float *o) {\n  auto f = [=](float v) {\n    return v * nothing;\n'
     "  };\n  o[0] = f(1);\n}", "bad.cu:3:16", 'identifier "nothing" is undefined'),
    ("template <typename T> __device__ T tw(T v) {\n  auto f = [](T u) {\n    return u * nothing;\n  };\n"
     '  return f(v);\n}\nextern "C" __global__ void k(float *o) { o[0] = tw(1.0f); }', "bad.cu:3:16",
     'identifier "nothing" is undefined'),
    # recursion, std::function, this, extended lambdas, file scope
    ('extern "C" __global__ void k(int *o) {\n  auto fact = [](auto self, int n) -> int {\n'
     "    return n <= 1 ? 1 : n * self(self, n - 1);\n  };\n  o[0] = fact(fact, 5);\n}", "bad.cu:3:29",
     'recursive call to "lambda [](auto self, int n)" is outside simt\'s subset'),
    ('#include <functional>\nextern "C" __global__ void k(float *o) {\n'
     "  std::function<float(float)> f = [](float v) { return v; };\n  o[0] = f(1);\n}", "bad.cu:3:3",
     "std::function (and nvstd::function) is outside simt's subset"),
    ("struct A {\n  float s;\n  __device__ float g(float v) { auto f = [&](float w) { return w + s; }; return f(v); }\n};\n"
     'extern "C" __global__ void k(float *o) { A a{1}; o[0] = a.g(2); }', "bad.cu:3:68",
     'the lambda uses "s", a member of "A": capturing this is outside'),
    ("struct A {\n  float s;\n  __device__ float g(float v) { auto f = [this](float w) { return w; }; return f(v); }\n};\n"
     'extern "C" __global__ void k(float *o) { A a{1}; o[0] = a.g(2); }', "bad.cu:3:43",
     "capturing this is outside simt's subset"),
    ('__device__ auto g = [](float v) { return v; };\nextern "C" __global__ void k(float *o) { o[0] = g(1); }',
     "bad.cu:1:21", "a lambda at file scope is outside simt's subset"),
])
def test_lambda_forms_outside_the_subset_are_errors_naming_the_place(src, where, words):
    msg = compile_error(src)
    assert msg.startswith(where), msg
    assert words in msg, msg


# ---- emulator versus GPU -------------------------------------------------------------------

@pytest.mark.gpu
def test_lambdas_match_the_gpu(tmp_path):
    """Every kernel above on both backends with the same inputs: the same bytes."""
    gpu_or_skip()
    from kernels_cuda import crosscheck

    def both(src, kernel, grid, block, args):
        same_bytes_on_gpu(src, tmp_path / f"{kernel}.cu", kernel, grid, block, args)

    both(SRC, "forms", 1, 64, [_x(50), np.zeros(50, F32), I32(50)])
    both(SRC, "captures", 1, 64, [_x(40, 2), np.zeros(160, F32), I32(40), F32(0.5)])
    x, idx = _functors_inputs(60)
    both(SRC, "functors", 1, 64, [x, np.zeros(180, F32), idx, I32(60), F32(1.5)])
    x, z = _generic_inputs(40)
    both(SRC, "generic", 1, 64, [x, np.zeros(40, F32), z, I32(40)])
    # and NVRTC refuses the annotated lambda, as simt does
    path = tmp_path / "annotated.cu"
    path.write_text(ANNOTATED)
    with pytest.raises(simt.CompileError, match="extended-lambda"):
        crosscheck.real_launch(str(path), "annotated", 1, 64,
                               [_x(40, 6), np.zeros(40, F32), I32(40), F32(0.5)], repeat=1)
