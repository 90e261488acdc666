"""A float atomicAdd on shared memory is nvcc's compare-and-swap loop on sm_90 (LDS, FADD,
ATOMS.CAST.SPIN, ISETP, BRA): a pass serves one lane of each bank, so a warp makes as many
passes as its busiest bank has lanes (simt.counters.spin_passes).  Integer shared atomics
and global float atomics stay single instructions."""
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
extern "C" __global__ void kg(const int *slot, float *out) {
    atomicAdd(&out[slot[threadIdx.x]], 1.0f);
}
'''

LANES = np.arange(32)
PATTERNS = {                       # slot of each lane -> (passes, wavefronts of each access)
    "own bank": (LANES, 1, 1),
    "stride 2 (16 banks)": (LANES * 2, 2, 2 + 1),
    "stride 32 (one bank)": (LANES * 32, 32, sum(range(1, 33))),
    "one word": (np.zeros(32, int), 32, sum(range(1, 33))),
    "pairs on a word": (LANES // 2, 2, 2 + 1),
}


def _counts(slot, reps=1):
    (s, out, _), res = run(SRC, "k", 1, 32, [slot.astype(np.int32), np.zeros(1024, np.float32), np.int32(reps)])
    assert np.array_equal(out, np.bincount(slot, minlength=1024) * reps)
    return res.metrics


@pytest.mark.parametrize("name", list(PATTERNS))
def test_passes_and_wavefronts_per_lane_pattern(name):
    slot, passes, waves = PATTERNS[name]
    m = _counts(slot)
    assert m[C.SHARED_ATOM] == passes            # one ATOMS.CAST a pass
    assert m[C.WAVES_ATOM] == waves
    reads = 1024 // 32                            # the copy out: a conflict-free LDS each
    assert m[C.SHARED_LD] == passes + reads       # and one LDS a pass
    assert m[C.WAVES_LD] == waves + reads


def test_instructions_follow_the_passes():
    """Five SASS instructions a pass and two around the loop, in the issue slots too."""
    one, many = _counts(LANES), _counts(LANES * 32)
    assert many[C.INST] - one[C.INST] == C.SPIN_PASS_INST * 31
    assert many[C.ISSUE_SLOTS] - one[C.ISSUE_SLOTS] == C.SPIN_PASS_INST * 31


def test_the_warp_waits_for_its_passes():
    """A pass is a dependent chain (LDS, FADD, CAS): a warp on one bank takes 31 passes
    longer than a warp on 32 banks, ten times over."""
    from simt.machine import SPIN_PASS_CYCLES
    one = _counts(LANES, reps=10)["simt__block_cycles.mean"]
    many = _counts(LANES * 32, reps=10)["simt__block_cycles.mean"]
    assert many - one == pytest.approx(10 * 31 * SPIN_PASS_CYCLES, rel=0.02)


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
