"""Light C++ in kernels: member functions, constructors, operators and static members of
structs (``simt.classes``, ``simt.methods``), class templates (``simt.templates``),
namespaces (``simt.namespaces``) and unions.

Every kernel here is valid CUDA C++ (the GPU test at the end compiles the same text with
NVRTC); inputs are small integers so every float result is exact and can be checked
against numpy bit for bit."""
import numpy as np
import pytest

import simt
from kern import compile_error, gpu_or_skip, run, same_bytes_on_gpu

F32, I32 = np.float32, np.int32
V3_DTYPE = np.dtype([("x", F32), ("y", F32), ("z", F32)])

SRC = r'''
struct V3 {
    float x, y, z;
    __device__ V3() : x(0.0f), y(0.0f), z(0.0f) {}
    __device__ V3(float a, float b, float c) : x(a), y(b), z(c) {}
    __device__ explicit V3(float s) : x(s), y(s), z(s) {}
    __device__ float dot(const V3 &o) const { return x * o.x + y * o.y + z * o.z; }
    __device__ float norm2() const { return dot(*this); }
    __device__ void scale(float s) { x *= s; this->y *= s; (*this).z *= s; }
    __device__ V3 operator+(const V3 &o) const { return V3(x + o.x, y + o.y, z + o.z); }
    __device__ V3 operator-(const V3 &o) const { return V3(x - o.x, y - o.y, z - o.z); }
    __device__ V3 operator-() const { return V3(-x, -y, -z); }
    __device__ V3 operator*(float s) const { return V3(x * s, y * s, z * s); }
    __device__ V3 &operator+=(const V3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
    __device__ bool operator==(const V3 &o) const { return x == o.x && y == o.y && z == o.z; }
    __device__ bool operator!=(const V3 &o) const { return !(*this == o); }
    __device__ float operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
    __device__ static V3 unit(int k) {
        return V3(k == 0 ? 1.0f : 0.0f, k == 1 ? 1.0f : 0.0f, k == 2 ? 1.0f : 0.0f);
    }
    static constexpr int DIM = 3;
};
__device__ V3 operator*(float s, const V3 &v) { return v * s; }

struct Acc {                                  // default member initializers
    float sum = 0.0f;
    int n = 0;
    __device__ void add(float v) { sum += v; ++n; }
    __device__ float mean() const { return n ? sum / n : 0.0f; }
};

struct Vec4 {                                 // an array member, operator[] returning a reference
    float v[4];
    __device__ float &operator[](int i) { return v[i]; }
    __device__ const float &operator[](int i) const { return v[i]; }
    __device__ float sum() const { float s = 0.0f; for (int i = 0; i < 4; ++i) s += v[i]; return s; }
};

struct Particle { V3 pos; V3 vel; };          // members default-constructed

struct Scale {                                // a functor
    float f;
    __device__ float operator()(float a) const { return a * f; }
};

class Counter {                               // members defined outside the class
public:
    __device__ Counter(int start);
    __device__ int next();
    __device__ int peek() const { return v; }
private:
    int v;
};
__device__ Counter::Counter(int start) : v(start) {}
__device__ int Counter::next() { return v++; }

struct Box {
    float lo, hi;
    __device__ Box() {}
    __device__ Box(float a, float b) : lo(a), hi(b) {}
    __device__ bool contains(float x) const { return x >= lo && x < hi; }
    __device__ float width() const { return hi - lo; }
};

struct Params {
    float alpha;
    int n;
    __device__ float apply(float x) const { return alpha * x; }
    __device__ void grow() { alpha += 1.0f; }
};

struct Body { V3 pos = V3(1, 2, 3); V3 vel{4, 5, 6}; float m = 2; V3 acc; };
struct Tally { float sum = 10.0f; int n; float w = 0.5f; };
__device__ float sum3(const V3 &v) { return v.x + v.y + v.z; }
struct Twice { float v; __device__ Twice(float d) : v(2.0f * d) {} };   // converts from float
__device__ float value(const Twice &t) { return t.v; }
__device__ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
__device__ void operator+=(float3 &a, float3 b) { a.x += b.x; a.y += b.y; a.z += b.z; }
__device__ float3 operator*(float3 a, float s) { return make_float3(a.x * s, a.y * s, a.z * s); }

template <typename T> __device__ float twice(const T &o, float x) { return o.apply(x) * 2.0f; }
__device__ float widen(Box b) { return b.width(); }

template <typename T> struct Pair { T a; T b; __device__ T sum() const { return a + b; } };
template <typename T, int N> struct Arr {
    T v[N];
    __device__ T total() const { T s = 0; for (int i = 0; i < N; ++i) s += v[i]; return s; }
    __device__ T &operator[](int i) { return v[i]; }
    __device__ static Arr filled(T x) { Arr r; for (int i = 0; i < N; ++i) r.v[i] = x; return r; }
    static const int size = N;
};
template <typename T> struct Outer { Pair<T> p; Arr<T, 2> w; };
template <typename T = float> struct Wrap { T w; };
template <typename T> __device__ T total(Pair<T> p) { return p.a + p.b; }
template <typename T, int N> __device__ T scaled_total(const Arr<T, N> &v) { return v.total() * N; }

template <typename T> __global__ void templated(const Pair<T> *pp, Pair<int> q, T *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Pair<T> p = pp[i];
    Arr<T, 4> v;
    for (int k = 0; k < Arr<T, 4>::size; ++k) v[k] = k * p.a;
    Pair<Arr<T, 2>> nested;
    nested.a = Arr<T, 2>::filled(p.b);
    Outer<T> o;
    o.p = p;
    Wrap<> w{0.5f};
    out[i] = total(p) + total(q) * 100 + v.total() + scaled_total(v) * 1000 + nested.a[1] * 10000
           + o.p.sum() + w.w;
}
template __global__ void templated<float>(const Pair<float> *, Pair<int>, float *, int);

struct Buf {                                  // static constants, nested types and enumerators
    static const int N = 4;
    static constexpr int M = N * 2;
    enum Kind { SMALL, BIG = 5 };
    struct Inner { int a; };
    float v[N];
    Inner in;
    Kind k;
    __device__ float sum() const { float s = 0; for (int i = 0; i < N; ++i) s += v[i]; return s + M; }
};

extern "C" __global__ void nested(const float *x, float *o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Buf b;
    for (int k = 0; k < Buf::N; ++k) b.v[k] = x[i] + k;
    Buf::Inner in = {3};
    b.in = in;
    b.k = i & 1 ? Buf::BIG : Buf::SMALL;
    o[i] = b.sum() + b.in.a + b.k + Buf::M * 100 + sizeof(Buf);
}

__device__ float &at(float *p, int i) { return p[i]; }           // functions returning references
__device__ const float &cat(const float *p, int i) { return p[i]; }
__device__ float3 &operator-=(float3 &a, const float3 &b) { a.x -= b.x; a.y -= b.y; a.z -= b.z; return a; }

extern "C" __global__ void references(float *o, const float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    at(o, i) = cat(x, i) * 2.0f;
    at(o, i) += 1.0f;
    V3 s(1, 2, 3);
    (s += V3(1, 1, 1)) += s;
    float3 v = make_float3(x[i], 2, 3);
    (v -= make_float3(1, 1, 1)) -= make_float3(0, 1, 0);
    o[n + i] = s.x + s.y * 10 + s.z * 100 + v.x + v.y + v.z * 1000;
}

namespace util {
namespace detail { __device__ float sq(float v) { return v * v; } }
__device__ float dbl(float v) { return 2.0f * detail::sq(v); }
struct Sum { float s; __device__ void add(float v) { s += v; } };
const int K = 3;
}
namespace u = util;
namespace cfg::inner { __device__ float half() { return 0.5f; } }
namespace { __device__ float plus_one(float v) { return v + 1.0f; } }
using namespace util;
using util::detail::sq;
using Real = float;

extern "C" __global__ void namespaces(const float *x, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    util::Sum a{0.0f};
    a.add(util::dbl(x[i]));
    a.add(u::detail::sq(x[i]));
    a.add(dbl(x[i]) + ::util::dbl(1.0f) + util::K + cfg::inner::half());
    Real r = plus_one(a.s) + sq(2.0f);
    out[i] = r;
}

union Bits { float f; unsigned int u; unsigned char b[4]; };
struct Tagged { int tag; union { float f; int i; } val; };
__device__ Bits bits_of(float x) { Bits r; r.f = x; return r; }

extern "C" __global__ void unions(const float *x, unsigned int *out, Bits *gb, const Tagged *tg,
                                  Bits byval, float *fo, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    union { float f; unsigned int u; } v;        // type punning in a local union
    v.f = x[i];
    v.u &= 0x7fffffffu;
    Bits b = {x[i]};                             // braces: the first member
    Bits c = b;                                  // a copy: its bytes
    c.b[3] ^= 0x80;
    out[i * 4 + 0] = v.u;
    out[i * 4 + 1] = c.u;
    out[i * 4 + 2] = bits_of(x[i]).u + byval.u;  // a union value returned, one by value
    out[i * 4 + 3] = sizeof(Tagged) * 1000 + sizeof(Bits) * 10 + sizeof(v);
    gb[i].f = fabsf(x[i]);                       // through a pointer to global memory
    gb[i].b[0] |= 1;
    Tagged t = tg[i];
    fo[i] = t.tag ? t.val.f : (float)t.val.i;
}

extern "C" __global__ void vectors(const V3 *pts, V3 *outp, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    V3 a = pts[i];
    V3 b(1.0f, 2.0f, 3.0f);
    V3 c{0.5f, -1.0f, 2.0f};
    V3 d;
    V3 e = V3(2.0f);
    a.scale(2.0f);
    V3 s = a + b * 2.0f - c;
    s += -d + e;
    s += 0.5f * V3::unit(i % 3);
    float r = s.dot(b) + pts[i].dot(c) + s[i % 3] + V3::DIM;
    if (s == s && !(s != s)) r += 1000.0f;
    outp[i] = s;
    outp[i].scale(0.5f);
    V3 *q = &outp[i];
    q->scale(4.0f);
    out[i] = r + q->norm2() + V3{1.0f, 1.0f, 1.0f}.dot(V3(i, 0, 0));
}

extern "C" __global__ void members(const float *x, float *out, int n) {
    __shared__ Box boxes[4];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 4) boxes[threadIdx.x] = Box(threadIdx.x, threadIdx.x + 2);
    __syncthreads();
    if (i >= n) return;
    Acc acc;
    for (int k = 0; k < 4; ++k) acc.add(x[(i + k) % n]);
    Vec4 w;
    for (int k = 0; k < 4; ++k) w[k] = (float)(k + i);
    w[i & 3] += 1.0f;
    const Vec4 cw = w;
    Scale sc{3.0f};
    Particle p;
    p.vel = V3(1, 2, 3);
    Counter ctr(i);
    ctr.next();
    ctr.next();
    V3 arr[4];
    arr[1] = V3(1, 1, 1);
    Box local(1, 4);
    out[i] = acc.mean() * 4.0f + w.sum() + cw[(i + 1) & 3] + sc(p.vel.y) + p.pos.x + ctr.peek()
           + arr[i & 1].dot(p.vel) + (boxes[i & 3].contains(x[i]) ? 100.0f : 0.0f)
           + (local.contains(x[i]) ? 1000.0f : 0.0f) + widen(Box(0, 3));
}

extern "C" __global__ void conversions(const float *x, float *o) {
    int i = threadIdx.x;
    Twice t = x[i];                     // a converting constructor
    V3 a(x[i]);
    V3 b(a);                            // the implicit copy constructor
    Body bd;                            // default member initializers of class type
    Tally c{x[i]};                      // an aggregate: the rest from the initializers (or 0)
    Tally d{};
    Tally e;
    float3 f = make_float3(x[i], 2, 3);
    float3 g = f + f * 2.0f;            // non-member operators on a built-in vector type
    g += f;
    o[i * 7 + 0] = sum3(a) + t.v + value(4.0f);
    o[i * 7 + 1] = sum3(b);
    o[i * 7 + 2] = sum3(bd.pos) + sum3(bd.vel) * 10 + bd.m * 100 + sum3(bd.acc);
    o[i * 7 + 3] = c.sum + c.n + c.w;
    o[i * 7 + 4] = d.sum + d.n + d.w;
    o[i * 7 + 5] = e.sum + e.w;
    o[i * 7 + 6] = g.x + g.y * 10 + g.z * 100;
}

extern "C" __global__ void by_value(Params prm, Params grown, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    grown.grow();
    out[i] = prm.apply(i) + twice(prm, 1.0f) + grown.apply(1.0f) * 100.0f;
}

struct P3 { float x, y, z; };                 // braced returns and arguments
__device__ P3 padd(P3 a, P3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
__device__ P3 pzero() { return {}; }
__device__ float psum(const P3 &p) { return p.x + p.y * 10 + p.z * 100; }
__device__ V3 vmid(float s) { return {s, s + 1, s + 2}; }      // through V3's constructor
__device__ float vsum(V3 v) { return v.x + v.y + v.z; }
__device__ float3 f3(float v) { return {v, 2 * v, 3 * v}; }
__device__ int izero() { return {}; }
union Word {                                  // a union with a constructor and member functions
    float f;
    unsigned int u;
    __device__ Word(float v) : f(v) {}
    __device__ unsigned int bits() const { return u; }
    __device__ void clear_sign() { u &= 0x7fffffffu; }
};
union Raw { float f; unsigned u; };

extern "C" __global__ void braced(const float *x, float *o, unsigned int *bits, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    constexpr int K = 3;
    const int L = K * 2 + 1;
    static_assert(K == 3, "K is three");
    static_assert(L == 7 && sizeof(P3) == K * 4, "P3 holds K floats");
    P3 a = padd({x[i], 1, 2}, pzero());
    float3 f = f3(x[i]);
    o[i * 4 + 0] = psum(padd(a, {1, 1, 1})) + izero();
    o[i * 4 + 1] = vsum(vmid(x[i])) + vsum({1.0f, 2.0f, 3.0f}) * 10;
    o[i * 4 + 2] = f.x + f.y + f.z * 10 + K + L;
    Word w(-x[i]);
    w.clear_sign();
    Raw r;
    r.f = -x[i];
    r.u &= 0x7fffffffu;
    o[i * 4 + 3] = w.f + r.f * 100;
    bits[i] = w.bits();
}
'''

PARAMS = np.dtype([("alpha", F32), ("n", I32)])


def _pts(n, seed=1):
    rng = np.random.default_rng(seed)
    p = np.zeros(n, V3_DTYPE)
    for f in "xyz":
        p[f] = rng.integers(0, 8, n)
    return p


def _vec(p):
    return np.stack([p["x"], p["y"], p["z"]], axis=1).astype(np.float64)


def test_member_functions_operators_and_constructors():
    n = 150
    pts = _pts(n)
    (_, outp, out, _), _ = run(SRC, "vectors", 2, 128, [pts, np.zeros(n, V3_DTYPE), np.zeros(n, F32), I32(n)])
    a = _vec(pts) * 2
    b, c = np.array([1.0, 2, 3]), np.array([0.5, -1, 2])
    i = np.arange(n)
    unit = np.eye(3)[i % 3]
    s = a + 2 * b - c + 2 + 0.5 * unit
    r = s @ b + _vec(pts) @ c + s[i, i % 3] + 3 + 1000
    want = (r + ((2 * s) ** 2).sum(1) + i).astype(F32)
    np.testing.assert_array_equal(_vec(outp), 2 * s)
    np.testing.assert_array_equal(out, want)


def test_default_member_initializers_references_functors_and_shared_objects():
    n = 100
    x = np.random.default_rng(2).integers(0, 6, n).astype(F32)
    (_, out, _), _ = run(SRC, "members", 2, 64, [x, np.zeros(n, F32), I32(n)])
    i = np.arange(n)
    mean4 = sum(x[(i + k) % n] for k in range(4))
    w = np.array([[k + j for k in range(4)] for j in i], np.float64)
    w[i, i & 3] += 1
    lo = (i & 3) % 64                      # block-local thread ids 0..3 made the boxes
    boxes = (x >= lo) & (x < lo + 2)
    want = (mean4 + w.sum(1) + w[i, (i + 1) & 3] + 6 + 0 + (i + 2) + np.where(i & 1, 6, 0)
            + 100 * boxes + 1000 * ((x >= 1) & (x < 4)) + 3)
    np.testing.assert_array_equal(out, want.astype(F32))


def test_conversions_copies_member_initializers_and_non_member_operators():
    x = np.arange(32, dtype=F32) % 5
    (_, o), _ = run(SRC, "conversions", 1, 32, [x, np.zeros(32 * 7, F32)])
    o = o.reshape(32, 7)
    want = np.stack([5 * x + 8, 3 * x, np.full(32, 6 + 150 + 200), x + 0.5, np.full(32, 10.5),
                     np.full(32, 10.5), 4 * x + 80 + 1200], axis=1).astype(F32)
    np.testing.assert_array_equal(o, want)


def test_member_functions_on_by_value_parameters_and_in_templates():
    n = 40
    prm = np.array((2.0, 3), PARAMS)[()]
    (_, _, out, _), _ = run(SRC, "by_value", 1, 64, [prm, prm, np.zeros(n, F32), I32(n)])
    np.testing.assert_array_equal(out, (2.0 * np.arange(n) + 4 + 300).astype(F32))


def test_a_member_call_is_the_free_function_taking_the_object_by_reference():
    """The emitted IR of ``a.dot(b)`` / ``p[i].scale(s)`` is that of ``dot(a, b)`` /
    ``scale(p[i], s)`` with ``const V3 &``/``V3 &`` parameters: counters and timing are
    the same."""
    method = r'''
    struct V3 { float x, y, z;
      __device__ float dot(const V3 &o) const { return x * o.x + y * o.y + z * o.z; }
      __device__ void scale(float s) { x *= s; y *= s; z *= s; } };
    extern "C" __global__ void k(V3 *p, float *out, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
      V3 a = p[i]; a.scale(2.0f); p[i].scale(3.0f);
      out[i] = a.dot(p[i]) + p[(i + 1) % n].dot(a);
    }'''
    free = r'''
    struct V3 { float x, y, z; };
    __device__ float dot(const V3 &t, const V3 &o) { return t.x * o.x + t.y * o.y + t.z * o.z; }
    __device__ void scale(V3 &t, float s) { t.x *= s; t.y *= s; t.z *= s; }
    extern "C" __global__ void k(V3 *p, float *out, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
      V3 a = p[i]; scale(a, 2.0f); scale(p[i], 3.0f);
      out[i] = dot(a, p[i]) + dot(p[(i + 1) % n], a);
    }'''

    def code(src):
        k = simt.Module.from_source(src, "t.cu").get_function("k")
        return [(i.op, i.sub, len(i.args), i.coord.line) for i in k.ir.code], k.registers
    assert code(method) == code(free)
    n = 64
    pts = _pts(n, 3)
    got = [run(src, "k", 1, 64, [pts.copy(), np.zeros(n, F32), I32(n)]) for src in (method, free)]
    (p1, o1, _), r1 = got[0]
    (p2, o2, _), r2 = got[1]
    assert p1.tobytes() == p2.tobytes() and o1.tobytes() == o2.tobytes()
    assert r1.metrics == r2.metrics


def test_static_constants_nested_types_and_enumerators():
    n = 40
    x = (np.arange(n) % 9).astype(F32)
    (_, o, _), _ = run(SRC, "nested", 1, 64, [x, np.zeros(n, F32), I32(n)])
    i = np.arange(n)
    np.testing.assert_array_equal(o, (4 * x + 6 + 8 + 3 + 5 * (i & 1) + 800 + 24).astype(F32))


def test_functions_returning_references():
    n = 40
    x = (np.arange(n) % 9).astype(F32)
    (o, _, _), _ = run(SRC, "references", 1, 64, [np.zeros(2 * n, F32), x, I32(n)])
    np.testing.assert_array_equal(o[:n], 2 * x + 1)
    np.testing.assert_array_equal(o[n:], (4 + 60 + 800 + (x - 1) + 0 + 2000).astype(F32))


def test_braced_returns_and_arguments_unions_with_members_and_static_assert():
    n = 50
    x = (np.arange(n) % 9).astype(F32)
    (_, o, bits, _), _ = run(SRC, "braced", 1, 64, [x, np.zeros(4 * n, F32), np.zeros(n, np.uint32), I32(n)])
    want = np.stack([x + 321, 3 * x + 3 + 60, 33 * x + 10, 101 * x], axis=1).astype(F32)
    np.testing.assert_array_equal(o.reshape(n, 4), want)
    np.testing.assert_array_equal(bits, x.view(np.uint32))


def test_namespaces_are_flattened():
    n = 64
    x = (np.arange(n) % 7).astype(F32)
    (_, out, _), _ = run(SRC, "namespaces", 1, 64, [x, np.zeros(n, F32), I32(n)])
    want = 2 * x * x + x * x + 2 * x * x + 2 + 3 + 0.5 + 1 + 4
    np.testing.assert_array_equal(out, want.astype(F32))


BITS = np.dtype({"names": ["f", "u", "b"], "formats": [F32, np.uint32, (np.uint8, 4)],
                 "offsets": [0, 0, 0], "itemsize": 4})
TAGGED = np.dtype({"names": ["tag", "val"], "formats": [I32, np.dtype({"names": ["f", "i"],
                   "formats": [F32, I32], "offsets": [0, 0], "itemsize": 4})], "offsets": [0, 4],
                   "itemsize": 8})


def _union_inputs(n):
    rng = np.random.default_rng(6)
    x = (rng.random(n) * 4 - 2).astype(F32)
    tg = np.zeros(n, TAGGED)
    tg["tag"] = rng.integers(0, 2, n)
    vals = rng.integers(-50, 50, n).astype(I32)
    tg["val"]["i"] = vals
    tg["val"]["f"][tg["tag"] == 1] = vals[tg["tag"] == 1].astype(F32)
    return x, tg


def test_unions_pun_types_in_local_and_global_memory():
    n = 50
    x, tg = _union_inputs(n)
    byval = np.zeros((), BITS)
    byval["f"] = 1.5
    (_, out, gb, _, _, fo, _), _ = run(SRC, "unions", 1, 64, [x, np.zeros(4 * n, np.uint32),
                                                              np.zeros(n, BITS), tg, byval[()],
                                                              np.zeros(n, F32), I32(n)])
    bits = x.view(np.uint32)
    out = out.reshape(n, 4)
    np.testing.assert_array_equal(out[:, 0], bits & 0x7fffffff)
    np.testing.assert_array_equal(out[:, 1], bits ^ 0x80000000)
    np.testing.assert_array_equal(out[:, 2], bits + np.float32(1.5).view(np.uint32))
    np.testing.assert_array_equal(out[:, 3], np.full(n, 8 * 1000 + 4 * 10 + 4))
    np.testing.assert_array_equal(gb["u"], np.abs(x).view(np.uint32) | 1)
    want = np.where(tg["tag"] == 1, tg["val"]["f"], tg["val"]["i"].astype(F32))
    np.testing.assert_array_equal(fo, want)
    assert simt.Module.from_source(SRC, "t.cu").get_function("unions").ir.local_frame > 0


PAIR_F = np.dtype([("a", F32), ("b", F32)])
PAIR_I = np.dtype([("a", I32), ("b", I32)])


def _pairs(n, seed=4):
    rng = np.random.default_rng(seed)
    p = np.zeros(n, PAIR_F)
    p["a"], p["b"] = rng.integers(0, 8, n), rng.integers(0, 8, n)
    return p


def test_class_templates_with_type_and_integer_parameters():
    n = 100
    pp = _pairs(n)
    q = np.array((1, 2), PAIR_I)[()]
    mod = simt.Module.from_source(SRC, "t.cu")
    assert "templated<typename T>" in mod.template_kernels
    f = mod.get_function("templated<float>")
    assert [str(p.ctype) for p in f.params] == ["const struct Pair<float> *", "struct Pair<int>",
                                                "float *", "int"]
    (_, _, out, _), _ = run(SRC, "templated<float>", 1, 128, [pp, q, np.zeros(n, F32), I32(n)])
    a, b = pp["a"].astype(np.float64), pp["b"].astype(np.float64)
    want = 2 * (a + b) + 300 + 6 * a + 24000 * a + 10000 * b + 0.5
    np.testing.assert_array_equal(out, want.astype(F32))


@pytest.mark.parametrize("src, where, words", [
    ("namespace a { __device__ float f(float v) { return v; } }\n"
     "namespace b { __device__ float f(float v) { return 2 * v; } }\n"
     'extern "C" __global__ void k(float *o) { o[0] = a::f(1) + b::f(1); }', "bad.cu:2:32",
     'function "f" is defined twice (first at bad.cu:1'),
    ('extern "C" __global__ void k(float *o) { o[0] = std::clamp(1.5f, 0.f, 1.f); }', "bad.cu:1:49",
     "std:: is outside simt's subset"),
    ("struct S { int t; union { float x; int i; }; };\n"
     'extern "C" __global__ void k(float *o) { S s; s.t = 1; o[0] = s.t; }', "bad.cu:1:",
     "anonymous unions"),
    ("union U { float f; int i; };\n"
     'extern "C" __global__ void k(float *o) { U u = {1.0f, 2}; o[0] = u.f; }', "bad.cu:2:",
     "a union takes one"),
    ("template <typename T> struct P { T a; };\ntemplate <typename T> struct P<T *> { T a; };",
     "bad.cu:2:1", "partial specializations"),
    ("template <typename T> struct P { T a; __device__ T get() const; };\n"
     "template <typename T> __device__ T P<T>::get() const { return a; }", "bad.cu:2:1",
     "defined outside the class"),
    ("template <typename T> struct P { T a; };\n"
     'extern "C" __global__ void k(float *o) { P<float, int> p; o[0] = 0; }', "bad.cu:2:",
     "too many template arguments"),
    ("struct A { float x; };\nstruct B : public A { float y; };", "bad.cu:2:10", "inheritance"),
    ("struct A {\n  float x;\n  __device__ virtual float f() { return x; }\n};", "bad.cu:3:14",
     "virtual functions"),
    ("struct A {\n  float x;\n  __device__ A(const A &o) : x(o.x) {}\n};", "bad.cu:3:3",
     "copy or move constructor"),
    ("struct A {\n  float x;\n  __device__ A &operator=(const A &o) { x = o.x; return *this; }\n};",
     "bad.cu:3:3", "operator="),
    ("struct A {\n  float x;\n  __device__ ~A() { x = 0; }\n};", "bad.cu:3:3", "destructor"),
    ("struct A {\n  float x;\n  friend __device__ float g(A a) { return a.x; }\n};", "bad.cu:3:3", "friend"),
    ("struct A {\n  float x;\n  __device__ float f() const { x = 1; return x; }\n};\n"
     'extern "C" __global__ void k(float *o) { A a; a.x = 1; o[0] = a.f(); }', "bad.cu:3:32",
     "modifiable lvalue"),
    ("struct A {\n  float x;\n  __device__ void set(float v) { x = v; }\n};\n"
     'extern "C" __global__ void k(float *o) { const A a = {1}; a.set(2); o[0] = a.x; }', "bad.cu:5:59",
     "const member functions only"),
    ("struct A {\n  float x;\n  __device__ A(float v) : x(v) {}\n};\n"
     'extern "C" __global__ void k(float *o) { A a; o[0] = a.x; }', "bad.cu:5:44",
     'no default constructor exists for class "A"'),
    ("struct A {\n  float x;\n  __device__ float f() { return x; }\n};\n"
     'extern "C" __global__ void k(float *o) { A a = {1}; o[0] = a.g(); }', "bad.cu:5:62",
     'has no member function "g"'),
    ("struct A { float x;  __device__ A(float v) : x(v) {}  __device__ A(int v) : x(v) {} };\n"
     'extern "C" __global__ void k(float *o) { A a(1u); o[0] = a.x; }', "bad.cu:2:44",
     'more than one instance of constructor "A::A"'),
    ("struct A { float x;  __device__ explicit A(float v) : x(v) {} };\n"
     '__device__ float f(A a) { return a.x; }\n'
     'extern "C" __global__ void k(float *o) { o[0] = f(2.0f); }', "bad.cu:3:51", "no suitable conversion"),
    ("struct A { float x;  __device__ A operator+(const A &o) const { return A{x + o.x}; } };\n"
     'extern "C" __global__ void k(float *o) { A a{1}; o[0] = (a * a).x; }', "bad.cu:2:58",
     'no operator "*" matches these operands (operand types are: struct A * struct A)'),
    ("struct A { float v[2]; __device__ float &at(int i) { return i ? v[1] : v[0]; } };\n"
     'extern "C" __global__ void k(float *o) { A a{1, 2}; o[0] = a.at(1); }', "bad.cu:1:61",
     "cannot bind to a value"),
    ("struct A { float x; __device__ float f() { return x; } };\n"
     'extern "C" __global__ void k(float *o) { A a{1}; o[0] = A::f(); }', "bad.cu:2:57",
     "must be called on an object"),
    ("struct A { float x; __device__ A *self() { return this; } };\n"
     'extern "C" __global__ void k(float *o) { A a{1}; o[0] = a.self()->x; }', "bad.cu:1:51",
     '"this" has no address'),
    ("struct A { float x; __device__ float *p() { return &this->x; } };\n"
     'extern "C" __global__ void k(float *o) { A a{1}; o[0] = *a.p(); }', "bad.cu:1:45",
     'the address of local variable "a" (taken at line 1) is used here as an address'),
    ("struct A {\n  float x;\n  __device__ operator float() const { return x; }\n};", "bad.cu:3:14",
     "conversion operators"),
    ("struct A {\n  float x;\n  template <typename T> __device__ T get() const { return x; }\n};",
     "bad.cu:3:3", "template inside a function or struct"),
    ("struct P { float x, y; };\n__device__ void g(P &p) { p.x = 1; }\n"
     'extern "C" __global__ void k(float *o) { g({1, 2}); o[0] = 0; }', "bad.cu:3:44",
     'a braced list cannot bind to the non-const reference parameter "p"'),
    ("struct P { float x, y; };\n"
     'extern "C" __global__ void k(float *o) { P p = {1, 2}; o[0] = p.x + ({1, 2}).y; }', "bad.cu:2:",
     "syntax error"),
    ('extern "C" __global__ void k(float *o, int n) {\n  const int m = n;\n'
     '  static_assert(m == 3, "m");\n  o[0] = m;\n}', "bad.cu:3:17", "constant integer value"),
])
def test_unsupported_class_features_are_errors_naming_the_place(src, where, words):
    if "__global__" not in src:
        src += '\nextern "C" __global__ void k(float *o) { }'
    msg = compile_error(src)
    assert msg.startswith(where), msg
    assert words in msg, msg


# ---- emulator versus GPU -------------------------------------------------------------------

@pytest.mark.gpu
def test_cpp_classes_match_the_gpu(tmp_path):
    """Every kernel above on both backends with the same inputs: the same bytes."""
    gpu_or_skip()
    path = tmp_path / "classes.cu"

    def both(kernel, grid, block, args):
        same_bytes_on_gpu(SRC, path, kernel, grid, block, args)

    n = 150
    both("vectors", 2, 128, [_pts(n), np.zeros(n, V3_DTYPE), np.zeros(n, F32), I32(n)])
    x = np.random.default_rng(2).integers(0, 6, 100).astype(F32)
    both("members", 2, 64, [x, np.zeros(100, F32), I32(100)])
    both("conversions", 1, 32, [np.arange(32, dtype=F32) % 5, np.zeros(32 * 7, F32)])
    both("nested", 1, 64, [(np.arange(40) % 9).astype(F32), np.zeros(40, F32), I32(40)])
    both("references", 1, 64, [np.zeros(80, F32), (np.arange(40) % 9).astype(F32), I32(40)])
    x = (np.arange(64) % 7).astype(F32)
    both("namespaces", 1, 64, [x, np.zeros(64, F32), I32(64)])
    x, tg = _union_inputs(50)
    byval = np.zeros((), BITS)
    byval["f"] = 1.5
    both("unions", 1, 64, [x, np.zeros(200, np.uint32), np.zeros(50, BITS), tg, byval[()],
                           np.zeros(50, F32), I32(50)])
    both("templated<float>", 1, 128, [_pairs(100), np.array((1, 2), PAIR_I)[()], np.zeros(100, F32),
                                      I32(100)])
    prm = np.array((2.0, 3), PARAMS)[()]
    both("by_value", 1, 64, [prm, prm, np.zeros(40, F32), I32(40)])
    x = (np.arange(50) % 9).astype(F32)
    both("braced", 1, 64, [x, np.zeros(200, F32), np.zeros(50, np.uint32), I32(50)])
