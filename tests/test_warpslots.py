"""A block's warps that exit early free their warp slots for new blocks before its last
warp ends; its block slot, shared memory and registers stay until then (simt.timing
.warp_slot_share, docs/results/timing_investigation/warpslots/)."""
import numpy as np
import pytest

import simt
from simt import timing

# warps 0 .. nlong-1 of each block loop, the others exit at once
SPIN = '''extern "C" __global__ void k(float *out, int trips, int nlong) {
    float x = (float)threadIdx.x;
    if ((threadIdx.x >> 5) >= nlong) return;
    for (int i = 0; i < trips; i++) x = x * 0.999f + 0.5f;
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}'''


def _metrics(block, nlong, shared=0):
    mod = simt.Module.from_source(SPIN, "t.cu")
    dev = simt.Device()
    out = dev.to_device(np.zeros(4 * block, np.float32))
    res = mod.get_function("k").launch(dev, simt.LaunchConfig.of(4, block, shared),
                                       [out, np.int32(2000), np.int32(nlong)], sanitize=False)
    return res.metrics


def test_the_emulator_reports_its_warps_mean_life():
    m1, m8 = _metrics(256, 1), _metrics(256, 8)
    assert m8["simt__warp_cycles.mean"] == pytest.approx(m8["simt__block_cycles.mean"], rel=0.02)
    # one warp of eight loops: the mean warp lives about an eighth of the block
    assert m1["simt__warp_cycles.mean"] < 0.2 * m1["simt__block_cycles.mean"]
    assert m1["simt__block_cycles.mean"] == pytest.approx(m8["simt__block_cycles.mean"], rel=0.1)


@pytest.mark.parametrize("block, nlong, shared, share", [
    # measured on the H200 (warpslots/table.py): 0.45, 0.55, 0.60 and 0.95 of the time all
    # of a block's warps spinning take; 10 registers a thread hold 16 blocks of 256
    # threads an SM, 32 of 128 and 8 of 512
    (256, 1, 0, 0.5), (128, 1, 0, 0.5), (512, 1, 0, 0.5),
    # 56 KiB of shared memory a block: 4 blocks an SM, as many as the threads allow
    (256, 1, 56 * 1024, 1.0),
])
def test_blocks_overlap_as_far_as_the_limits_they_keep_allow(block, nlong, shared, share):
    prof = timing.load_profile("h200")
    long, short = _metrics(block, nlong, shared), _metrics(block, block // 32, shared)
    for m in (long, short):
        m[simt.counters.REGS] = 10
    grid = prof.sm_count * 64
    lat = [timing.predict(m, grid, block, shared, prof).components_us["latency"] for m in (long, short)]
    assert lat[0] / lat[1] == pytest.approx(share, abs=0.05)


def test_the_longest_block_ends_after_the_blocks_ahead_of_it():
    """A block that starts late cannot end early, whether or not early-exiting warps let
    blocks overlap: with every warp living as long as its block (share 1), the longest
    block at the end of the grid ends (its place / the blocks the SMs hold - 1) lives after
    the launch's start plus its own life.  probe/mna-stamp-csr-atomic's package-resistor
    blocks (1.5% of the grid, half-way through it, 30 times the others' life) were
    predicted as if they started first: 0.49 of its H200 time, 0.59 since."""
    prof = timing.load_profile("h200")
    m = _metrics(256, 8)
    m[simt.counters.REGS] = 10
    life_cycles = m["simt__block_cycles.mean"]
    m["simt__block_cycles.max"] = 30 * life_cycles
    bps = 8                                   # 256 threads, 10 registers: the threads limit
    grid = prof.sm_count * bps * 16           # 16 waves
    lat = {}
    for at in (0.01, 0.5, 1.0):
        m["simt__block_cycles.max_at"] = at
        p = timing.predict(m, grid, 256, 0, prof)
        assert p.occupancy_blocks_per_sm == bps and p.waves == 16
        lat[at] = p.components_us["latency"]
    life = life_cycles / (prof.clock_ghz * 1e3)
    # late in the grid: ~7.5 and ~15 lives of the blocks ahead before it starts
    assert lat[0.5] - lat[0.01] == pytest.approx(7.5 * life, rel=0.15)
    assert lat[1.0] - lat[0.01] == pytest.approx(15 * life, rel=0.15)
