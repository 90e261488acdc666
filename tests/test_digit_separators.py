"""C++14 digit separators (``1'000'000``) in every kind of number, and where a later
rewrite would have read the separator as a character literal's quote."""
import numpy as np

from kern import run


def test_digit_separators():
    src = """
struct S { int v; __device__ int get() const { return v + 1'0; } };
template <int N> __device__ int f(int x) { return x + N * 1'000; }
__global__ void k(long long *c, double *d) {
  c[0] = 1'000'000; c[1] = 0xFF'FF; c[2] = 0b1010'1010; c[3] = 1'000'000'000'000LL;
  c[4] = 07'7; c[5] = sizeof(1'0); c[6] = '\\''; S s{2'0};
  if (c[0] > 0) { c[7] = f<2>(1'000) + s.get(); }
  d[0] = 1'000.5; d[1] = 2'5e1'0; d[2] = 0x1'0p-4;
}"""
    (c, d), _ = run(src, "k", 1, 1, [np.zeros(8, np.int64), np.zeros(3, np.float64)])
    assert c.tolist() == [1000000, 0xFFFF, 0b10101010, 10**12, 0o77, 4, ord("'"), 3030]
    assert d.tolist() == [1000.5, 25e10, 1.0]


def test_columns_after_a_separated_number_hold():
    from kern import compile_error
    assert compile_error("__global__ void k(int *c) {\n  c[0] = 1'000'000 + missing;\n}") == (
        'bad.cu:2:22: error: identifier "missing" is undefined')
