"""Local memory's line reuse (simt.localreuse) and what the timing model makes of it: the
stack distances a warp's touches of its frame have, the write-backs its dirty lines wait
for, and local traffic that reaches DRAM only once the resident frames outgrow L2."""
import numpy as np
import pytest

from kern import run
from simt import localreuse as LR, timing

F32, I32 = np.float32, np.int32

SRC = r"""
__global__ void sweep(const float* x, float* out, int w) {
    float a[8];                       // a run-time trip count keeps it in local memory
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < w; ++k) a[k] = x[i] + k;
    float s = 0.0f;
    for (int k = w - 1; k >= 0; --k) s = s * 0.5f + a[k];
    out[i] = s;
}

__global__ void sweep_uneven(const float* x, float* out) {
    float a[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int w = threadIdx.x < 32 ? 4 : 8;         // the second warp's last trips run alone
    for (int k = 0; k < w; ++k) a[k] = x[i] + k;
    float s = 0.0f;
    for (int k = w - 1; k >= 0; --k) s = s * 0.5f + a[k];
    out[i] = s;
}
"""


def _hist(metrics, name):
    return {b: int(metrics.get(name.format(b), 0)) for b in range(LR.BINS) if metrics.get(name.format(b), 0)}


def test_stack_distances_and_write_backs_of_a_forward_store_backward_load_sweep():
    """Each warp stores a[0..7], then loads a[7..0]: the load of a[j] comes k = 7 - j
    distinct lines after its store, and at the warp's end line j has waited max(7 - j, 2j)
    lines for the next warp in its slot (j touched after it, j before it in the next
    warp's sweep), so each line is a write-back candidate once."""
    x = np.arange(64, dtype=F32)
    (_, out, _), res = run(SRC, "sweep", 1, 64, [x, np.zeros(64, F32), I32(8)])
    exp = np.zeros(64, F32)
    for k in range(7, -1, -1):
        exp = exp * 0.5 + (x + k)
    np.testing.assert_allclose(out, exp, rtol=1e-6)
    m = res.metrics
    # half-octave bins of k = 0..7 (0 counts as 1): 0, 0, 2, 3, 4, 4, 5, 5, for 2 warps
    assert _hist(m, LR.LD) == {0: 4, 2: 2, 3: 2, 4: 4, 5: 4}
    # max(7 - j, 2j) = 7, 6, 5, 6, 8, 10, 12, 14: bins 5, 5, 4, 5, 6, 6, 7, 7
    assert _hist(m, LR.WB) == {4: 2, 5: 6, 6: 4, 7: 4}
    assert m["simt__local_store_lines.sum"] == 2 * 8


def test_each_warp_keeps_its_own_lines_when_warps_run_apart():
    """The first warp sweeps 4 words and the second 8, so the second runs its last trips in
    a group of its own: each warp's lines are its own.  First warp: loads at 0-3 lines
    (bins 0, 0, 2, 3), write-backs at max(3 - j, 2j) = 3, 2, 4, 6 (bins 3, 2, 4, 5); the
    second as in the sweep above."""
    x = np.arange(64, dtype=F32)
    (_, out), res = run(SRC, "sweep_uneven", 1, 64, [x, np.zeros(64, F32)])
    assert out[0] == ((x[0] + 3) * 0.5 + x[0] + 2) * 0.5 * 0.5 + (x[0] + 1) * 0.5 + x[0]
    assert _hist(res.metrics, LR.LD) == {0: 4, 2: 2, 3: 2, 4: 2, 5: 2}
    assert _hist(res.metrics, LR.WB) == {2: 1, 3: 1, 4: 2, 5: 4, 6: 2, 7: 2}


def test_local_traffic_reaches_dram_only_beyond_l2():
    """The same histograms cost no DRAM while the resident warps' frames fit in L2, and
    nearly a line a touch once they are many times its size; the loads' misses join the
    local component and half the write-backs join DRAM's."""
    prof = timing.load_profile("h200")
    m = {LR.LD.format(10): 1000, LR.WB.format(10): 500}     # 45 lines apart
    few = timing.local_dram_bytes(m, prof, 1000)             # 1000 warps: 5.8 MB apart
    many = timing.local_dram_bytes(m, prof, 100000)          # 580 MB apart
    assert few[0] < 0.01 * 1000 * 128 and few[1] < 0.01 * 500 * 128
    assert many[0] > 0.99 * 1000 * 128 and many[1] > 0.99 * 500 * 128
    base = {"simt__local_store_lines.sum": 1e6}
    p0 = timing.predict(base, 132 * 16, 256, 0, prof)
    p1 = timing.predict({**base, LR.LD.format(14): 4e7}, 132 * 16, 256, 0, prof)
    extra = 4e7 * 128 * timing.local_dram_bytes({LR.LD.format(14): 1}, prof, 132 * 8 * 8)[0] / 128
    # (components are kept to the nanosecond)
    assert p1.components_us["local"] - p0.components_us["local"] == \
        pytest.approx(extra / (prof.dram_gbs * 1e3), abs=2e-3)
    assert extra > 0.9 * 4e7 * 128
