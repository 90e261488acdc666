"""Barriers' cost (docs/results/timing_investigation/barred/): the emulator counts every
warp's arrival at a __syncthreads() and at a vote (__syncthreads_count/_and/_or), an SM
takes them one after another at full occupancy, and a vote and its result are slower than
a plain barrier.  The per-trip cycles are checked against the H100's clock64 figures in
barred_h100.jsonl."""
import json
from pathlib import Path

import numpy as np
import pytest

from kernels_cuda.backend import EmulatorBackend
from simt import counters as C
from simt import timing

BARRED = Path(__file__).resolve().parent.parent / "docs" / "results" / "timing_investigation" / "barred"
SRC = str(BARRED / "barred.cu")


def _measured():
    rows = [json.loads(line) for line in (BARRED / "barred_h100.jsonl").read_text().splitlines()[1:]]
    return {(r["k"], r["block"], r["grid"] > 1): r["cycles_per_trip"] for r in rows}


def _launch(kernel, grid, block, trips):
    be = EmulatorBackend(seed=0, sample_blocks="auto")
    args = [be.zeros(grid, np.int32), be.zeros(grid, np.int64), np.int32(trips)]
    be.launch(SRC, kernel, grid, block, args)
    return be.launches[-1]


def test_counts_every_warps_arrival_by_kind():
    r = _launch("k_count", 3, 256, 10)
    assert r.metrics[C.VOTE_WARPS] == 3 * 8 * 10
    assert r.metrics.get(C.BAR_WARPS, 0) == 0
    r = _launch("k_bar", 2, 64, 7)
    assert r.metrics[C.BAR_WARPS] == 2 * 2 * 7
    assert r.metrics.get(C.VOTE_WARPS, 0) == 0


@pytest.mark.parametrize("kernel", ["k_bar", "k_count", "k_count_exit"])
def test_full_occupancy_trip_follows_the_barrier_unit(kernel):
    """8 blocks of 256 threads an SM: the predicted cycles a trip (barrier-bound) are
    within 15% of clock64's on the H100, where a barrier's issue slot alone gave 0.2-0.4."""
    prof = timing.load_profile("h100")
    trips = 60
    r = _launch(kernel, prof.sm_count * 8, 256, trips)
    p = timing.predict_result(r, prof)
    assert p.bound == "barrier"
    cycles = (p.ms * 1e3 - prof.launch_us) * prof.clock_ghz * 1e3 / trips
    assert cycles / _measured()[(kernel, 256, True)] == pytest.approx(1.0, abs=0.15)


def test_a_loop_exit_waits_for_the_votes_result():
    """One block alone: a loop that branches on the vote takes longer a trip than one that
    only adds it up, as on the GPU (129 against 59 cycles at 8 warps)."""
    per = {}
    for k in ("k_count", "k_count_exit"):
        c = [_launch(k, 1, 256, t).metrics["simt__block_cycles.mean"] for t in (20, 40)]
        per[k] = (c[1] - c[0]) / 20
    meas = _measured()
    for k, v in per.items():
        assert v / meas[(k, 256, False)] == pytest.approx(1.0, abs=0.3)
    assert per["k_count_exit"] > per["k_count"] + 30
