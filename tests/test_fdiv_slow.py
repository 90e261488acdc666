"""Float division's slow path (simt.machine.fdiv_slow_path): the SASS and time a warp adds
when FCHK sends it to nvcc's division subroutine, by the classes of operands that
docs/results/timing_investigation/fchk/ measured on an H100."""
import numpy as np
import pytest

from simt import counters as C
from simt.machine import FDIV_SLOW_RANGE, FDIV_SLOW_SPECIAL, OP_COST, fdiv_slow_path
from kern import run

SRC = """
extern "C" __global__ void div_class(const float *a, const float *b, float *o, int reps, float e) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = a[i], y = b[i], acc = 0.0f;
    for (int r = 0; r < reps; ++r) acc += (x + r * e) / (y + r * e);
    o[i] = acc;
}"""

# (a, b) -> extra SASS a warp (fchk/ncu_h100.txt: 15.8 a division without the slow path)
CLASSES = {
    "normal": (1.5, 3.0, 0.0), "big_num": (3e38, 3.0, 0.0), "zero_num": (0.0, 3.0, FDIV_SLOW_SPECIAL),
    "negzero_num": (-0.0, 3.0, FDIV_SLOW_SPECIAL), "denorm_num": (1e-40, 3.0, FDIV_SLOW_SPECIAL),
    "inf_num": (np.inf, 3.0, FDIV_SLOW_SPECIAL), "zero_den": (1.0, 0.0, FDIV_SLOW_SPECIAL),
    "tiny_quot": (1e-30, 1e20, FDIV_SLOW_RANGE), "huge_quot": (1e30, 1e-20, FDIV_SLOW_RANGE),
    "huge_den": (1.0, 3e38, FDIV_SLOW_RANGE), "small_num": (1e-37, 3.0, FDIV_SLOW_RANGE),
    "half_range": (1e19, 1e-19, FDIV_SLOW_RANGE),
}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_each_measured_class_takes_the_path_it_took_on_the_gpu(name):
    a, b, extra = CLASSES[name]
    lanes = np.ones((1, 32), bool)
    got = fdiv_slow_path(np.full((1, 32), a, np.float32), np.full((1, 32), b, np.float32), lanes)
    assert got.tolist() == [extra]


def test_one_slow_lane_sends_the_warp_and_an_inactive_one_does_not():
    a = np.full((2, 32), 1.5, np.float32)
    a[0, 7] = a[1, 9] = 0.0
    act = np.ones((2, 32), bool)
    act[1, 9] = False
    assert fdiv_slow_path(a, np.full((2, 32), 3.0, np.float32), act).tolist() == [FDIV_SLOW_SPECIAL, 0.0]


def _div(a, b, reps=16, blocks=1, threads=64, **kw):
    n = blocks * threads
    args = [np.full(n, a, np.float32), np.full(n, b, np.float32), np.zeros(n, np.float32), np.int32(reps),
            np.float32(0.0)]
    (_, _, o, _, _), res = run(SRC, "div_class", blocks, threads, args, **kw)
    return o, res


def test_a_kernel_dividing_zeros_issues_the_slow_path_every_division():
    reps = 16
    o0, normal = _div(1.5, 3.0, reps)
    o1, zero = _div(0.0, 3.0, reps)
    assert o0[0] == np.float32(0.5) * reps and o1[0] == 0.0
    extra = zero.metrics[C.ISSUE_EXTRA] - normal.metrics[C.ISSUE_EXTRA]
    assert extra == 2 * reps * FDIV_SLOW_SPECIAL                 # 2 warps, every trip
    assert normal.metrics[C.ISSUE_EXTRA] == 2 * reps * OP_COST["fdiv"][1]


def test_the_slow_path_triples_a_division_bound_loop_as_on_the_h100():
    """fchk/fchk_h100.txt: 0.176 ms with 1.5 / 3, 0.508 with 0 / 3 and 0.619 with 1e30 /
    1e-20 (2112 blocks of 256, 512 divisions a thread)."""
    ms = {}
    for name in ("normal", "zero_num", "huge_quot"):
        a, b, _ = CLASSES[name]
        _, res = _div(a, b, 512, 2112, 256, sample_blocks=16, sanitize=False, gpu="h100")
        ms[name] = res.predicted_ms
    assert 2.3 < ms["zero_num"] / ms["normal"] < 3.6            # measured 2.89
    assert 1.1 < ms["huge_quot"] / ms["zero_num"] < 1.4         # measured 1.22
