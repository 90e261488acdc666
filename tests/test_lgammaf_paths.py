"""lgammaf's paths (simt.machine.lgammaf_paths): nvcc inlines lgammaf as five polynomial
paths by |x| and a reflection for negative x, and a warp runs every path one of its lanes
needs (the sm_90 SASS of probe/negbin-logpmf; ncu counts 390 instructions a warp for its
three calls a thread, docs/results/timing_investigation/unseen44/)."""
import numpy as np

from simt import counters as C
from simt.machine import LGAMMAF_MEASURED_PATH, OP_COST, lgammaf_paths
from kern import run


def _warp(*vals):
    x = np.resize(np.array(vals, np.float32), 32).reshape(1, 32)
    return lgammaf_paths(x, np.ones((1, 32), bool))[0]


def test_one_range_a_warp_runs_one_path():
    assert _warp(2.5) == LGAMMAF_MEASURED_PATH == 9 + 2 + 13          # math2/'s chain: [1.5, 3)
    assert _warp(50.0) == 9 + 2 + 42                                    # Stirling
    assert _warp(5.0) == 9 + 2 + 13
    assert _warp(1.0) == 9 + 2 + 2 + 14
    assert _warp(0.3) == 9 + 2 + 2 + 35


def test_a_warp_spread_over_every_range_runs_every_path():
    assert _warp(50.0, 5.0, 2.5, 1.0, 0.3) == 9 + 2 + 2 + 2 + 42 + 13 + 13 + 14 + 35
    assert _warp(-2.5, 2.5) == 9 + 2 + 13 + 56                          # the reflection
    assert _warp(-3.0) == 9 + 2 + 13 + 4                                # a pole


def test_inactive_lanes_take_no_path():
    x = np.full((2, 32), 2.5, np.float32)
    x[0, 5] = 50.0
    act = np.ones((2, 32), bool)
    act[0, 5] = False
    act[1] = False
    assert lgammaf_paths(x, act).tolist() == [LGAMMAF_MEASURED_PATH, 0.0]


def test_a_kernel_with_spread_arguments_issues_every_path():
    src = '''extern "C" __global__ void k(const float *x, float *y) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        y[i] = lgammaf(x[i]);
    }'''
    same = np.full(64, 2.5, np.float32)
    spread = np.resize(np.array([50.0, 5.0, 2.5, 1.0, 0.3], np.float32), 64)
    (_, y0), r0 = run(src, "k", 1, 64, [same, np.zeros(64, np.float32)])
    (_, y1), r1 = run(src, "k", 1, 64, [spread, np.zeros(64, np.float32)])
    import math
    np.testing.assert_allclose(y1, [math.lgamma(v) for v in spread], rtol=1e-6)
    busy = OP_COST["m_lgamma_f4"][1]
    assert r0.metrics[C.ISSUE_EXTRA] == 2 * busy
    assert r1.metrics[C.ISSUE_EXTRA] == 2 * (busy + 132 - LGAMMAF_MEASURED_PATH)
