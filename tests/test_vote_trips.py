"""A vote in a loop nvcc unrolls by a factor (not fully) does not let the warp go on to the
next unrolled trip while it waits: nvcc keeps each trip's vote in its own ``BSSY``/``BSYNC``
region, so the next trip's loads issue after it (``simt.issue.overlapped_pcs``).
probe/egm-lat-warp-ballot waits a DRAM round trip a trip on the H200; simt charged a
quarter of the wait and predicted 0.54 of its time, 0.99 since
(docs/results/timing_investigation/unseen199/notes.md)."""
import numpy as np

from kern import run
from simt.ir import Op
from simt.issue import overlapped_pcs
from simt.machine import LAT
from simt.module import Module

SRC = r"""
extern "C" __global__ void steep(const int *x, int *out, int nt) {
    int lane = threadIdx.x;
    int cnt = 0;
    for (int t = 0; t < nt; t++) {
        int v = x[t * 32 + lane];
        unsigned b = __ballot_sync(0xffffffffu, v > 0);
        cnt += __popc(b);
    }
    float s = (float)cnt;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) out[0] = cnt;
    if (lane == 1) out[1] = (int)s;
}
"""


def test_a_vote_waits_for_its_trip_and_holds_the_next_one():
    nt = 64
    x = np.random.default_rng(0).integers(-5, 5, nt * 32).astype(np.int32)
    (_, out, _), res = run(SRC, "steep", 1, 32, [x, np.zeros(2, np.int32), np.int32(nt)])
    cnt = int((x > 0).sum())
    assert out[0] == cnt and out[1] == 32 * cnt
    per_trip = res.metrics["simt__block_cycles.max"] / nt
    # each trip waits for its load (from L2 at least) before its vote, trip after trip
    assert per_trip > 0.9 * LAT["global"]


def test_only_the_kept_loops_votes_lose_the_overlap():
    ir = Module.from_source(SRC).get_function("steep").ir
    got = overlapped_pcs(ir)
    calls = {ins.sub: p for p, ins in enumerate(ir.code) if ins.op == Op.CALL}
    assert calls["__ballot_sync"] not in got and calls["__popc"] in got
    # the fully unrolled reduction's shuffles keep theirs
    assert calls["__shfl_down_sync"] in got
