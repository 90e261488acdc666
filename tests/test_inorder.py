"""Arithmetic in a loop whose body branches to a slow path waits for its operands
(simt.issue.inorder_pcs): nvcc schedules within the branch's basic blocks, so a trip's
FMAs wait for its sincosf and its load.  probe/dft-naive takes 226 cycles a trip on the
H100 and the H200 (docs/results/timing_investigation/unseen48/)."""
import numpy as np

from kern import run
from simt.issue import inorder_pcs
from simt.module import Module

SRC = '''extern "C" __global__ void k(const float2 *x, float2 *X, int n) {
    int k = threadIdx.x;
    float w = -6.28318530718f / (float)n, re = 0.0f, im = 0.0f;
    int m = 0;
    for (int t = 0; t < n; ++t) {
        float s, c;
        SINCOS(w * (float)m, &s, &c);
        float2 v = x[t];
        re += v.x * c - v.y * s;
        im += v.x * s + v.y * c;
        m += k;
        if (m >= n) m -= n;
    }
    X[k] = make_float2(re, im);
}'''


def _trip_cycles(fn: str, n: int = 256) -> float:
    x = np.random.default_rng(0).standard_normal(2 * n).astype(np.float32)
    (_, X, _), res = run(SRC.replace("SINCOS", fn), "k", 1, 32, [x, np.zeros(64, np.float32), np.int32(n)])
    k = np.arange(32)
    exp = np.exp(-2j * np.pi * np.outer(k, np.arange(n)) / n) @ (x[0::2] + 1j * x[1::2])
    np.testing.assert_allclose(X[0::2], exp.real, rtol=1e-3, atol=2e-3)
    np.testing.assert_allclose(X[1::2], exp.imag, rtol=1e-3, atol=2e-3)
    return res.metrics["simt__block_cycles.max"] / n


def test_a_branchy_loops_arithmetic_waits_for_its_operands():
    slow, fast = _trip_cycles("sincosf"), _trip_cycles("__sincosf")
    # sincosf's range test branches: a trip waits for the pair (98.5 cycles) and its load
    assert 200 < slow < 260
    # __sincosf does not branch: the trips overlap as unrolled ones do
    assert fast < 100


def test_only_the_arithmetic_of_such_loops_waits_and_not_its_moves():
    ir = Module.from_source(SRC.replace("SINCOS", "sincosf")).get_function("k").ir
    got = inorder_pcs(ir)
    assert got and all(ir.code[p].op.name in ("BIN", "UN", "CAST", "SELECT", "FMA") for p in got)
    assert not inorder_pcs(Module.from_source(SRC.replace("SINCOS", "__sincosf")).get_function("k").ir)
