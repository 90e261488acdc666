"""A warp whose lanes all took ``continue`` (or ``break``) is branched past the rest of
the loop's trip on the GPU (a uniform ``BRA``): it issues nothing there, and its clock
does not wait for the warps that run the body (docs/results/timing_investigation/
unseen186/notes.md, fire-ca-alexandridis)."""
import numpy as np
import pytest

import simt

# warp 0 skips every trip's body, warp 1 runs a long dependent chain in it (straight
# code: a loop there would send the lane-less warp on at its first test)
LOOP = '''#define S x = sqrtf(x * 1.0001f + 0.5f);
#define S8 S S S S S S S S
extern "C" __global__ void k(float *out, int trips, int skip) {
    float x = (float)threadIdx.x;
    for (int i = 0; i < trips; i++) {
        if ((threadIdx.x >> 5) < skip) SKIP;
        S8 S8 S8 S8
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}'''


def _metrics(skip, how, trips):
    mod = simt.Module.from_source(LOOP.replace("SKIP", how), "t.cu")
    dev = simt.Device()
    out = dev.to_device(np.zeros(64, np.float32))
    res = mod.get_function("k").launch(dev, simt.LaunchConfig.of(1, 64),
                                       [out, np.int32(trips), np.int32(skip)], sanitize=False)
    return res.metrics, out.get()


@pytest.mark.parametrize("how, trips", [("continue", 8), ("break", 1)])
def test_a_warp_whose_lanes_all_left_the_trip_waits_for_no_one(how, trips):
    both, _ = _metrics(0, how, trips)
    one, got = _metrics(1, how, trips)
    # warp 1 runs the same body either way: the block lives as long
    assert one["simt__block_cycles.mean"] == pytest.approx(both["simt__block_cycles.mean"], rel=0.05)
    # warp 0 only steps the loop: the mean warp lives little more than half the block
    # (it lived the whole block when its clock was charged the body it skipped)
    assert one["simt__warp_cycles.mean"] < 0.6 * one["simt__block_cycles.mean"]
    assert both["simt__warp_cycles.mean"] == pytest.approx(both["simt__block_cycles.mean"], rel=0.02)
    # and the lanes that skipped kept their values
    np.testing.assert_array_equal(got[:32], np.arange(32, dtype=np.float32))
    # warp instructions: warp 0 issues the loop's control, not the body
    assert one["smsp__inst_executed.sum"] < 0.6 * both["smsp__inst_executed.sum"]
