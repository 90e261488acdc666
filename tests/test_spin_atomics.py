"""A float or 64-bit integer atomicAdd on shared memory is nvcc's compare-and-swap loop on
sm_90 (LDS, FADD, ATOMS.CAST.SPIN, ISETP, BRA): a pass serves one lane of each bank, so a
warp makes as many passes as its busiest bank has lanes, and the block's other warps on its
words make it lose passes (simt.counters.spin_passes).  32-bit integer shared atomics and
global float atomics stay single instructions."""
import numpy as np
import pytest

from kern import run
from simt import counters as C

SRC = r'''
extern "C" __global__ void k(const int *slot, float *out, int reps) {
    __shared__ float s[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0.0f;
    __syncthreads();
    for (int r = 0; r < reps; ++r) atomicAdd(&s[slot[threadIdx.x]], 1.0f);
    __syncthreads();
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) out[i] = s[i];
}
extern "C" __global__ void kw(const int *slot, float *out, int reps) {
    __shared__ float s[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0.0f;
    __syncthreads();
    for (int r = 0; r < reps; ++r) atomicAdd(&s[(slot[threadIdx.x] + 32 * r) & 1023], 1.0f);
    __syncthreads();
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) out[i] = s[i];
}
extern "C" __global__ void kc(const int *slot, float *out, int reps) {
    __shared__ float s[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0.0f;
    __syncthreads();
    for (int r = 0; r < reps; ++r) atomicAdd(&s[(slot[threadIdx.x] + r) & 15], 1.0f);
    __syncthreads();
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) out[i] = s[i];
}
extern "C" __global__ void kd(const int *slot, double *out) {
    __shared__ double s[512];
    for (int i = threadIdx.x; i < 512; i += blockDim.x) s[i] = 0.0;
    __syncthreads();
    atomicAdd(&s[slot[threadIdx.x]], 1.0);
    __syncthreads();
    for (int i = threadIdx.x; i < 512; i += blockDim.x) out[i] = s[i];
}
extern "C" __global__ void ki(const int *slot, int *out) {
    __shared__ int s[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0;
    __syncthreads();
    atomicAdd(&s[slot[threadIdx.x]], 1);
    __syncthreads();
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) out[i] = s[i];
}
extern "C" __global__ void ku(const int *slot, unsigned long long *out) {
    __shared__ unsigned long long s[512];
    for (int i = threadIdx.x; i < 512; i += blockDim.x) s[i] = 0;
    __syncthreads();
    atomicAdd(&s[slot[threadIdx.x]], 1ull);
    __syncthreads();
    for (int i = threadIdx.x; i < 512; i += blockDim.x) out[i] = s[i];
}
extern "C" __global__ void kg(const int *slot, float *out) {
    atomicAdd(&out[slot[threadIdx.x]], 1.0f);
}
'''

LANES = np.arange(32)
PATTERNS = {               # slot of each lane -> (passes, the passes' LDS wavefronts), as ncu
    "own bank": (LANES, 1, 1),                      # counted them (spin/ncu_spin_h200.csv)
    "stride 2 (16 banks)": (LANES * 2, 2, 2 + 1),
    "stride 32 (one bank)": (LANES * 32, 32, sum(range(1, 33))),
    "one word": (np.zeros(32, int), 32, 32),        # the LDS broadcasts: one wavefront a pass
    "pairs on a word": (LANES // 2, 2, 1 + 1),
}


def _counts(slot, reps=1):
    (s, out, _), res = run(SRC, "k", 1, 32, [slot.astype(np.int32), np.zeros(1024, np.float32), np.int32(reps)])
    assert np.array_equal(out, np.bincount(slot, minlength=1024) * reps)
    return res.metrics


@pytest.mark.parametrize("name", list(PATTERNS))
def test_passes_and_wavefronts_per_lane_pattern(name):
    slot, passes, waves = PATTERNS[name]
    m = _counts(slot)
    assert m[C.SHARED_ATOM] == passes            # one ATOMS.CAST a pass, two wavefronts each
    assert m[C.WAVES_ATOM] == C.SPIN_CAS_WAVES * passes
    reads = 1024 // 32                            # the copy out: a conflict-free LDS each
    assert m[C.SHARED_LD] == passes + reads       # and one LDS a pass
    assert m[C.WAVES_LD] == waves + reads


def test_instructions_follow_the_passes():
    """Six SASS instructions a pass, in the issue slots too."""
    one, many = _counts(LANES), _counts(LANES * 32)
    assert many[C.INST] - one[C.INST] == C.SPIN_PASS_INST * 31
    assert many[C.ISSUE_SLOTS] - one[C.ISSUE_SLOTS] == C.SPIN_PASS_INST * 31


def test_the_warp_waits_for_its_passes():
    """A pass is a dependent chain (LDS, FADD, CAS) whose load takes longer the more
    wavefronts it has: a warp on 32 words of one bank takes 31 passes and 496 load
    wavefronts longer than a warp on 32 banks, ten times over."""
    from simt.machine import SPIN_PASS_CYCLES, SPIN_WAVE_CYCLES
    one = _counts(LANES, reps=10)["simt__block_cycles.mean"]
    many = _counts(LANES * 32, reps=10)["simt__block_cycles.mean"]
    extra = 31 * SPIN_PASS_CYCLES + (528 - 32) * SPIN_WAVE_CYCLES
    assert many - one == pytest.approx(10 * extra, rel=0.02)


def test_the_sweep_matches_nsight_compute():
    """The passes, loads and wavefronts of spin/'s eleven lane patterns, one warp a block,
    are what Nsight Compute counted on the H200 (a block of one warp: no other warp's CAS
    makes a pass fail)."""
    import re
    import sys
    from pathlib import Path
    from kernels_cuda.ncu_check import parse_ncu_csv
    d = Path(__file__).resolve().parents[1] / "docs" / "results" / "timing_investigation" / "spin"
    sys.path.insert(0, str(d))
    import spin_cases
    recs = parse_ncu_csv((d / "ncu_spin_h200.csv").read_text())
    cases = spin_cases.cases()
    assert len(recs) == 2 * len(cases) == 22
    src = re.search(r"SRC = r'''(.*?)'''", (d / "spin_mb.py").read_text(), re.S).group(1)
    for (name, tab), rec in zip(cases.items(), recs[1::2]):          # the one-warp launches
        (_, _, _), res = run(src, "spin", 1, 32, [tab, np.zeros(132 * 8, np.float32), np.int32(64)],
                             sanitize=False)
        m, want = res.metrics, rec["metrics"]
        per = 132 * 512                            # the GPU's warp atomics; here 64
        for key in (C.SHARED_ATOM, C.WAVES_ATOM):
            assert m[key] / 64 == pytest.approx(want[key] / per, abs=1e-9), (name, key)
        # loads: the table's index a trip and a pass's LDS, and thread 0's two at the end
        for key in (C.SHARED_LD, C.WAVES_LD):
            assert (m[key] - 2) / 64 == pytest.approx((want[key] - 2 * 132) / per, abs=1e-9), (name, key)


def test_doubles_pass_per_half_warp_and_bank_pair():
    slot = LANES                                  # 8-byte words: 16 bank pairs a half-warp
    (_, out), res = run(SRC, "kd", 1, 32, [slot.astype(np.int32), np.zeros(512)])
    assert np.array_equal(out, np.bincount(slot, minlength=512))
    assert res.metrics[C.SHARED_ATOM] == 1
    slot = (LANES % 16) * 16                      # each half-warp's lanes on one bank pair
    _, res = run(SRC, "kd", 1, 32, [slot.astype(np.int32), np.zeros(512)])
    assert res.metrics[C.SHARED_ATOM] == 16


def test_integer_shared_and_float_global_atomics_are_one_instruction():
    slot = (LANES * 32).astype(np.int32)
    (_, out), res = run(SRC, "ki", 1, 32, [slot, np.zeros(1024, np.int32)])
    assert res.metrics[C.SHARED_ATOM] == 1 and res.metrics[C.WAVES_ATOM] == 32
    assert res.metrics[C.SHARED_LD] == 1024 // 32                  # the copy out alone
    (_, out), res = run(SRC, "kg", 1, 32, [slot, np.zeros(1024, np.float32)])
    assert res.metrics.get(C.SHARED_ATOM, 0) == 0 and out.sum() == 32
    assert res.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"] == 1     # one RED


def test_64_bit_integer_adds_are_the_cas_loop_too():
    """sm_90's SASS for a __shared__ unsigned long long atomicAdd is LDS.64, IADD,
    ATOMS.CAST.SPIN.64 (timing_investigation/unseen64/): passes as for doubles."""
    (_, out), res = run(SRC, "ku", 1, 32, [LANES.astype(np.int32), np.zeros(512, np.uint64)])
    assert np.array_equal(out, np.bincount(LANES, minlength=512))
    assert res.metrics[C.SHARED_ATOM] == 1
    slot = (LANES % 16) * 16
    (_, out), res = run(SRC, "ku", 1, 32, [slot.astype(np.int32), np.zeros(512, np.uint64)])
    assert np.array_equal(out, np.bincount(slot, minlength=512)) and res.metrics[C.SHARED_ATOM] == 16


@pytest.mark.parametrize("slot, passes", [
    # eight warps of a block on the same words: the warps' CASes succeed one after another,
    # (8 + 1) / 2 = 4.5 passes a lane on average (Nsight on the H200, spin/: 3.77 and 142)
    (LANES, 4.5),
    (np.zeros(32, int), 32 * 4.5),
    # each warp on words of its own: no pass lost
    (None, 1.0),
])
def test_other_warps_of_the_block_on_a_word_cost_passes(slot, passes):
    tab = np.arange(256) if slot is None else np.tile(slot, 8)
    (_, out, _), res = run(SRC, "k", 1, 256, [tab.astype(np.int32), np.zeros(1024, np.float32), np.int32(1)])
    assert np.array_equal(out, np.bincount(tab, minlength=1024))
    assert res.metrics[C.SHARED_ATOM] == round(8 * passes)


def test_warps_that_move_to_a_new_word_each_trip_drift_apart():
    """Eight warps whose 32 lanes share a word, the same for every warp, for 4 trips: on
    the same word every trip the warps stay together, 4.5 passes a lane each trip; when
    the word moves on each trip, they are together on the first (4.5 a lane) and then
    drift into a pipeline, about one other warp on a word (C.DRIFT_WARPS: 1.5 a lane)."""
    tab = np.zeros(256, np.int32)
    (_, out, _), res = run(SRC, "k", 1, 256, [tab, np.zeros(1024, np.float32), np.int32(4)])
    assert out[0] == 1024 and res.metrics[C.SHARED_ATOM] == 8 * 4 * 144
    (_, out, _), res = run(SRC, "kw", 1, 256, [tab, np.zeros(1024, np.float32), np.int32(4)])
    assert out[[0, 32, 64, 96]].tolist() == [256] * 4 and out.sum() == 1024
    assert C.DRIFT_WARPS == 2
    assert res.metrics[C.SHARED_ATOM] == 8 * (144 + 3 * 32 * 1.5)


@pytest.mark.parametrize("kernel, per_warp", [
    # the same 16 words every trip: together, 2 lanes x 4.5 a word each trip
    ("k", 4 * 9),
    # the 16 words turned round within their range each trip: still together
    ("kc", 4 * 9),
    # 32 words further on each trip (a grid-stride loop over sorted keys): together on the
    # first trip, then drifting, 2 lanes x 1.5 (timing_investigation/unseen233/notes.md:
    # a PIC deposit's particles sorted by cell, 2.12 -> 1.03)
    ("kw", 9 + 3 * 3),
])
def test_warps_whose_spread_lanes_move_on_each_trip_drift_apart(kernel, per_warp):
    """Lanes spread over several words (two a word here, 16 words, every warp of the block
    on the same ones) keep the warps together only while the range of their words overlaps
    the range the warp's previous visit covered by half or more (machine._spin_steady)."""
    tab = np.tile(np.arange(32) // 2, 8).astype(np.int32)
    (_, out, _), res = run(SRC, kernel, 1, 256, [tab, np.zeros(1024, np.float32), np.int32(4)])
    shift = {"k": lambda r: tab, "kc": lambda r: (tab + r) & 15, "kw": lambda r: (tab + 32 * r) & 1023}[kernel]
    assert np.array_equal(out, sum(np.bincount(shift(r), minlength=1024) for r in range(4)))
    assert res.metrics[C.SHARED_ATOM] == 8 * per_warp


def test_spread_lanes_stayed_together_under_the_old_rule(monkeypatch):
    """SPIN_DRIFT_BY_RANGE False is session 69's rule: spread lanes never drift."""
    from simt import machine
    monkeypatch.setattr(machine, "SPIN_DRIFT_BY_RANGE", False)
    tab = np.tile(np.arange(32) // 2, 8).astype(np.int32)
    _, res = run(SRC, "kw", 1, 256, [tab, np.zeros(1024, np.float32), np.int32(4)])
    assert res.metrics[C.SHARED_ATOM] == 8 * 4 * 9


TWO = r"""
extern "C" __global__ void k2(const int *slot, float *out, int reps) {
    __shared__ float s[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0.0f;
    __syncthreads();
    for (int r = 0; r < reps; ++r) {
        atomicAdd(&s[slot[threadIdx.x]], 1.0f);
        atomicAdd(&s[slot[threadIdx.x] + 512], 1.0f);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) out[i] = s[i];
}
"""


@pytest.mark.parametrize("any_atomic, per_warp", [
    # each atomic on the same word as its own previous visit: together, 4.5 a lane each time
    (False, 2 * 4 * 144),
    # compared with the warp's previous CAS loop, the other atomic's word: together only on
    # the very first, then drifting, 1.5 a lane (timing_investigation/unseen243/notes.md)
    (True, 144 + 7 * 32 * 1.5),
])
def test_two_atomics_on_different_words_under_the_any_atomic_switch(monkeypatch, any_atomic, per_warp):
    """Every lane of the block's eight warps on word 0, then word 512, four trips. Session
    73's screening switch SPIN_DRIFT_ANY_ATOMIC (off) compares a warp's words with its
    previous CAS loop at any atomic instead of the same one."""
    from simt import machine
    monkeypatch.setattr(machine, "SPIN_DRIFT_ANY_ATOMIC", any_atomic)
    tab = np.zeros(256, np.int32)
    (_, out, _), res = run(TWO, "k2", 1, 256, [tab, np.zeros(1024, np.float32), np.int32(4)])
    assert out[0] == 1024 and out[512] == 1024 and out.sum() == 2048
    assert res.metrics[C.SHARED_ATOM] == 8 * per_warp
