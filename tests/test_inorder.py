"""Arithmetic in a loop whose body branches to a slow path waits for its operands
(simt.issue.inorder_pcs): nvcc schedules within the branch's basic blocks, so a trip's
FMAs wait for its sincosf and its load.  probe/dft-naive takes 226 cycles a trip on the
H100 and the H200 (docs/results/timing_investigation/unseen48/)."""
from pathlib import Path

import numpy as np

from kern import run
from simt.issue import inorder_pcs
from simt.module import Module

# the probe's own kernel; __sincosf for the same loop without the branch
SRC = (Path(__file__).resolve().parents[1] / "kernels_cuda" / "probes50.cu").read_text()
FAST = SRC.replace("sincosf(w", "__sincosf(w")


def _trip_cycles(src: str, n: int = 256) -> float:
    x = np.random.default_rng(0).standard_normal(2 * n).astype(np.float32)
    (_, X, _), res = run(src, "dft_naive", 1, 32, [x, np.zeros(64, np.float32), np.int32(n)])
    k = np.arange(32)
    exp = np.exp(-2j * np.pi * np.outer(k, np.arange(n)) / n) @ (x[0::2] + 1j * x[1::2])
    np.testing.assert_allclose(X[0::2], exp.real, rtol=1e-3, atol=2e-3)
    np.testing.assert_allclose(X[1::2], exp.imag, rtol=1e-3, atol=2e-3)
    return res.metrics["simt__block_cycles.max"] / n


def test_a_branchy_loops_arithmetic_waits_for_its_operands():
    slow, fast = _trip_cycles(SRC), _trip_cycles(FAST)
    # sincosf's range test branches: a trip waits for the pair (98.5 cycles) and its load
    assert 200 < slow < 260
    # __sincosf does not branch: the trips overlap as unrolled ones do
    assert fast < 100


def test_only_the_arithmetic_of_such_loops_waits_and_not_its_moves():
    ir = Module.from_source(SRC).get_function("dft_naive").ir
    got = inorder_pcs(ir)
    assert got and all(ir.code[p].op.name in ("BIN", "UN", "CAST", "SELECT", "FMA") for p in got)
    assert not inorder_pcs(Module.from_source(FAST).get_function("dft_naive").ir)


NESTED = r"""
extern "C" __global__ void tables(const float *h, float *out, int nt, int ns) {
    __shared__ float tab[64];
    int st = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int t0 = 0; t0 < nt; t0 += 64) {
        for (int k = threadIdx.x; k < 64; k += blockDim.x) tab[k] = cosf(0.1f * (t0 + k));
        __syncthreads();
        for (int tt = 0; tt < min(64, nt - t0); tt++) acc += h[(t0 + tt) * ns + st] * tab[tt];
        __syncthreads();
    }
    out[st] = acc;
}
"""


def test_a_loop_without_a_slow_path_inside_a_branchy_one_is_scheduled_freely():
    """tidal_harmonics (probes125.cu): the loop over chunks builds a cosf table (a range
    test that branches), and a loop it keeps inside sums the chunk's hours.  Only the table
    loop's arithmetic waits for its operands; the sum's FMA passes its readiness along, as
    nvcc's SASS schedules that loop on its own (it was predicted at 2.73 of its H200 time
    with every trip waiting for its load from DRAM)."""
    ir = Module.from_source(NESTED).get_function("tables").ir
    got = inorder_pcs(ir)
    lines = {ir.code[p].coord.line for p in got}
    assert 7 in lines                      # the cosf table's arithmetic
    assert 9 not in lines                  # the sum over hours


SSADA = r"""
extern "C" __global__ void decor(const unsigned short *a, float *out, int n, int planes) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int t = 0; t < n; t++) {
        float a0 = (float)a[(4 * t) * planes + i];
        float a1 = (float)a[(4 * t + 1) * planes + i];
        float a2 = (float)a[(4 * t + 2) * planes + i];
        float a3 = (float)a[(4 * t + 3) * planes + i];
        s += a0 * a1 / (a0 * a0 + a1 * a1) + a2 * a3 / (a2 * a2 + a3 * a3);
    }
    out[i] = s;
}
"""


def test_the_switch_frees_the_arithmetic_before_a_loops_first_slow_path(monkeypatch):
    """angio_ssada_enface (probes244.cu): a trip's loads and their conversions come before
    its divides. With issue.INORDER_FROM_SLOW_PATH (on since session 73) the conversions
    (lines 6-9) no longer wait in order, so the loads issue together as in nvcc's basic
    block; the divides (line 10) still wait. Off, every arithmetic line waits."""
    import simt.issue as issue
    lines = {}
    for on in (False, True):
        monkeypatch.setattr(issue, "INORDER_FROM_SLOW_PATH", on)
        ir = Module.from_source(SSADA).get_function("decor").ir
        lines[on] = {ir.code[p].coord.line for p in inorder_pcs(ir)}
    assert {6, 7, 8, 9, 10} <= lines[False]
    assert 10 in lines[True] and not {6, 7, 8, 9} & lines[True]

