"""Shared loads nvcc widens (machine._shared_vector): in a loop it unrolls fully, the
trips of one shared load that read each lane's next word become one LDS.64 / LDS.128
where the first is aligned; and a 16-byte access takes its wavefronts a half-warp at a
time (counters.wavefronts).  The counts are ncu's for probe/matmul-rect (131,112,960
shared loads), probe/flash-attn-rows (2,097,152 loads, 4,261,120 wavefronts) and
probe/sgemm-reg4x4 (21.7 M wavefronts)."""
import numpy as np
import pytest

from simt import counters as C
from kern import run

SHLD, WAVES = "smsp__inst_executed_op_shared_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"


def _row_dot(k_expr: str, trips: int = 32, pragma: str = "#pragma unroll", offset: int = 0):
    """One warp: each half-warp's row of a 2 x 40 float tile dotted with a shared vector,
    ``s[row * 40 + OFF + k]`` for k < trips (rows 160 bytes apart)."""
    src = f'''extern "C" __global__ void k(const float *x, float *out) {{
        __shared__ float s[2 * 40];
        __shared__ float v[32];
        int t = threadIdx.x, row = t >> 4;
        for (int i = t; i < 80; i += 32) s[i] = x[i];
        v[t] = x[t];
        __syncthreads();
        float acc = 0.0f;
        {pragma}
        for (int k = 0; k < {trips}; ++k) acc += s[{k_expr}] * v[k];
        out[t] = acc;
    }}'''
    x = np.arange(80, dtype=np.float32) / 7
    (_, out), res = run(src, "k", 1, 32, [x, np.zeros(32, np.float32)])
    row = np.arange(32) >> 4
    k = np.arange(trips)
    exp = np.array([(x[r * 40 + offset + k] * x[k]).sum() for r in row], np.float32)
    np.testing.assert_allclose(out, exp, rtol=1e-5)
    return res.metrics


def test_consecutive_words_of_an_unrolled_loop_are_one_lds128_a_four():
    m = _row_dot("row * 40 + k")
    # s: 8 LDS.128 (each half-warp one address: 2 wavefronts); v[k], one address for the
    # warp, 8 more (2 wavefronts each too)
    assert m[SHLD] == 8 + 8
    assert m[WAVES] == 8 * 2 + 8 * 2


def test_a_misaligned_start_gives_narrower_loads():
    m = _row_dot("row * 40 + 2 + k", offset=2)      # 8-byte aligned: LDS.64 to the next 16
    # 2 + 32 words from word 2: LDS.64 (words 2, 3), then LDS.128s from word 4 on, the
    # last two words an LDS.64: 1 + 7 + 1 (and v's 8)
    assert m[SHLD] == 9 + 8


def test_a_loop_nvcc_does_not_unroll_keeps_its_scalar_loads():
    m = _row_dot("row * 40 + k", pragma="#pragma unroll 1")
    assert m[SHLD] == 32 + 32
    assert m[WAVES] == 32 + 32


@pytest.mark.parametrize("offsets, waves", [
    (np.zeros(32), 2),                                   # one address: a wavefront a half-warp
    (np.where(np.arange(32) < 16, 0, 128), 2),           # one address a half-warp, same banks
    (np.arange(32) * 16, 4),                             # 512 distinct bytes
    ((np.arange(32) % 16) * 16, 4),                      # 256 bytes, twice
    (np.arange(32) * 32, 8),                             # every other 16 bytes: 2-way a half
])
def test_a_16_byte_access_is_served_a_half_warp_at_a_time(offsets, waves):
    w, _ = C.wavefronts(np.asarray(offsets, np.int64)[None], np.ones((1, 32), bool), 16)
    assert w.tolist() == [waves]


@pytest.mark.parametrize("loop, shld", [
    ("for (int k = 0; k < 128; ++k) acc += s[k] * w;", 32),          # by 4 from 0: LDS.128s
    ("for (int k = 0; k < n; ++k) acc += s[k] * w;", 128),           # a remainder: scalar
    ("for (int k = 1; k < 129; ++k) acc += s[k - 1] * w;", 128),     # start not known aligned
    ("int j = t * n % 128; for (int k = 0; k < 128; ++k) { acc += s[j] * w; j = (j + 1) % 128; }",
     128),                                                            # not the counter's word
])
def test_a_loop_unrolled_by_four_widens_only_what_nvcc_knows_aligned(loop, shld):
    """nvcc unrolls a 128-trip loop by 4; from a counter that starts at 0 and steps to a
    constant bound, each body's four consecutive words are one LDS.128 (plummer_accpot's
    sx[k]: Nsight counts 2,097,152 shared loads, a quarter of the trips; so do
    probe/rank-sort1024's 8,421,376 and probe/ramlak-conv-smem's 16,588,800).  A run-time
    bound leaves a remainder, and a start or a word not known aligned stays scalar."""
    src = f'''extern "C" __global__ void k(const float *x, float *out, int n) {{
        __shared__ float s[128];
        int t = threadIdx.x;
        for (int i = t; i < 128; i += 32) s[i] = x[i];
        __syncthreads();
        float acc = 0.0f, w = x[t];
        {loop}
        out[t] = acc;
    }}'''
    x = np.arange(128, dtype=np.float32) / 7
    (_, out, _), res = run(src, "k", 1, 32, [x, np.zeros(32, np.float32), np.int32(128)])
    np.testing.assert_allclose(out, x[:32] * x.astype(np.float64).sum(), rtol=1e-4)
    assert res.metrics[SHLD] == shld


def test_a_load_under_an_if_in_the_unrolled_body_stays_one_lds_a_trip():
    """The same 128-trip loop with its load under a per-lane condition: nvcc predicates
    each trip's LDS apart and does not widen them (probe/xcorr-pairs-smem-lags'
    sa[t] * sb[t + lag] under 0 <= t + lag < 512: one predicated LDS a trip each in its
    sm_90 SASS, Nsight's 75,837,696 shared loads, simt's count now)."""
    src = '''extern "C" __global__ void k(const float *x, float *out) {
        __shared__ float s[128];
        int t = threadIdx.x;
        for (int i = t; i < 128; i += 32) s[i] = x[i];
        __syncthreads();
        float acc = 0.0f;
        for (int k = 0; k < 128; ++k)
            if (k + t >= 16) acc += s[k];
        out[t] = acc;
    }'''
    x = np.arange(128, dtype=np.float32) / 7
    (_, out), res = run(src, "k", 1, 32, [x, np.zeros(32, np.float32)])
    want = [x[max(0, 16 - t):].astype(np.float64).sum() for t in range(32)]
    np.testing.assert_allclose(out, want, rtol=1e-5)
    assert res.metrics[SHLD] == 128
