"""Counters against counts computed by hand (one warp unless said otherwise)."""
from math import gcd

import numpy as np
import pytest

from kern import run
import simt
from simt import counters, slicewin

I32 = np.int32
WAVES_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
CONFL_LD = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
WAVES_ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
SECT_LD = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
REQ_LD = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
SECT_ST = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"


def shared_load(expr: str, ctype="int", n_words=4096):
    src = f'''extern "C" __global__ void k(int *out, int s) {{
        __shared__ {ctype} buf[{n_words}];
        int t = threadIdx.x;
        int v = (int)buf[{expr}];
        out[t] = v;
    }}'''
    _, res = run(src, "k", 1, 32, [np.zeros(32, I32), I32(0)], sanitize=False)
    return res.per_line[4]


@pytest.mark.parametrize("s", [1, 2, 3, 4, 5, 8, 16, 17, 32, 33])
def test_stride_s_costs_gcd_s_32_wavefronts(s):
    line = shared_load(f"t * {s}")
    assert line[WAVES_LD] == gcd(s, 32)
    assert line[CONFL_LD] == gcd(s, 32) - 1


def test_broadcast_and_same_word_cost_one_wavefront():
    assert shared_load("7")[WAVES_LD] == 1
    assert shared_load("t / 4")[WAVES_LD] == 1          # 8 words, 4 lanes each, 8 banks
    assert shared_load("(t % 2) * 32")[WAVES_LD] == 2   # two words in bank 0


def test_8_and_16_byte_accesses():
    # 8 bytes: two half-warp phases of 16 lanes; consecutive doubles: 2 wavefronts, no conflict
    assert shared_load("t", "double")[WAVES_LD] == 2
    assert shared_load("t", "double")[CONFL_LD] == 0
    # stride 2 doubles: each phase touches 16 lanes x 2 words in 16 banks twice: 2 per phase
    assert shared_load("t * 2", "double")[WAVES_LD] == 4
    # 16 bytes (float4 rows): four phases of 8 lanes
    src = '''extern "C" __global__ void k(float *out) {
        __shared__ float4 buf[256];
        int t = threadIdx.x;
        float4 v = buf[t];
        out[t] = v.x + v.y + v.z + v.w;
    }'''
    _, res = run(src, "k", 1, 32, [np.zeros(32, np.float32)], sanitize=False)
    assert res.per_line[4][WAVES_LD] == 4 and res.per_line[4][CONFL_LD] == 0


def test_wide_access_with_an_idle_half_warp():
    # a double tree reduction's late steps: lanes 16-31 idle leave the second phase empty
    # (this crashed the wavefront count before session 8)
    src = '''extern "C" __global__ void k(double *out) {
        __shared__ double buf[64];
        int t = threadIdx.x;
        buf[t] = t;
        if (t < 8) out[t] = buf[t] + buf[t + 8];
    }'''
    _, res = run(src, "k", 1, 32, [np.zeros(32, np.float64)], sanitize=False)
    assert res.per_line[5][WAVES_LD] == 2 and res.per_line[5][CONFL_LD] == 0


def global_load(expr: str, n=1 << 16, dtype=np.int32, ctype="int"):
    src = f'''extern "C" __global__ void k(const {ctype} *in, int *out) {{
        int t = threadIdx.x;
        int v = (int)in[{expr}];
        out[t] = v;
    }}'''
    _, res = run(src, "k", 1, 32, [np.zeros(n, dtype), np.zeros(32, I32)], sanitize=False)
    return res.per_line[3]


def test_coalesced_strided_and_scattered_sectors():
    assert global_load("t")[SECT_LD] == 4                  # 128 contiguous bytes
    assert global_load("t")[REQ_LD] == 1
    assert global_load("t * 2")[SECT_LD] == 8
    assert global_load("t * 8")[SECT_LD] == 32             # one sector per lane
    assert global_load("t * 1000")[SECT_LD] == 32
    assert global_load("0")[SECT_LD] == 1                  # broadcast
    assert global_load("t", ctype="char", dtype=np.int8)[SECT_LD] == 1      # 32 bytes
    assert global_load("t + 1")[SECT_LD] == 5              # allocations are 256-byte aligned
    assert global_load("(t * 7919) % 4096")[SECT_LD] == len({(t * 7919) % 4096 // 8 for t in range(32)})


@pytest.mark.parametrize("expr, lines, chunks", [
    ("t", 1, 2),                 # 128 contiguous bytes: one line, two 64-byte chunks
    ("t + 1", 2, 3),             # straddles a line boundary
    ("t * 8", 8, 16),            # 32-byte stride: a sector per lane, 4 lanes per line
    ("t * 16", 16, 32),          # 64-byte stride: each lane's sector costs its neighbour
    ("t * 32", 32, 32),          # 128-byte stride: a line per lane
    ("t * 2", 2, 4),
    ("0", 1, 1),                 # broadcast
])
def test_l2_lines_and_dram_chunks(expr, lines, chunks):
    """A request reaches L2 as one transaction per 128-byte line; DRAM reads 64 bytes."""
    src = f'''extern "C" __global__ void k(const int *in, int *out) {{
        int t = threadIdx.x;
        out[t] = in[{expr}];
    }}'''
    _, res = run(src, "k", 1, 32, [np.zeros(1024, I32), np.zeros(32, I32)], sanitize=False)
    m = res.metrics
    assert m["simt__l2_lines_ld.sum"] == lines
    assert m["simt__l2_lines_st.sum"] == 1                  # out[t]: one line
    assert m["simt__dram_read_chunks64.sum"] == chunks
    assert m["simt__dram_written_sectors.sum"] == 4


def test_scattered_stores_send_a_line_per_lane():
    src = '''extern "C" __global__ void k(int *out, int n) {
        out[threadIdx.x * n] = 1;           // a column of a row-major matrix
    }'''
    _, res = run(src, "k", 1, 32, [np.zeros(32 * 64, I32), I32(64)], sanitize=False)
    assert res.metrics["simt__l2_lines_st.sum"] == 32
    assert res.metrics["simt__dram_written_sectors.sum"] == 32


def test_global_stores_and_partial_warps():
    src = '''extern "C" __global__ void k(int *out, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i * 2] = i;
    }'''
    _, res = run(src, "k", 2, 64, [np.zeros(256, I32), I32(100)], sanitize=False)
    # lanes 0..99 store at stride 2: warps 0-2 full (8 sectors each), warp 3 has 4 lanes (1 sector)
    assert res.metrics[SECT_ST] == 3 * 8 + 1
    assert res.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] == 4


def test_race_reported_with_its_lines():
    src = '''extern "C" __global__ void k(int *out) {
        __shared__ int s[64];
        s[threadIdx.x] = threadIdx.x;
        int v = s[63 - threadIdx.x];
        out[threadIdx.x] = v;
    }'''
    _, res = run(src, "k", 1, 64, [np.zeros(64, I32)], policy="round-robin")
    races = [f for f in res.sanitizer if f.tool == "racecheck"]
    assert races and {(f.line2, f.line) for f in races} <= {(3, 4), (4, 3)}
    assert any(f.kind == "RAW hazard" and (f.line2, f.line) == (3, 4) for f in races)


def test_short_branches_are_if_converted_like_nvcc():
    # `if (t < stride) s[t] += s[t + stride]` is predicated by nvcc: both warps of the block
    # issue the two loads and the store every trip, lanes off or not (Nsight counts them);
    # wavefronts come only from warps with active lanes.
    src = '''extern "C" __global__ void k(float *out) {
        __shared__ float s[128];
        int t = threadIdx.x;
        s[t] = t; s[t + 64] = t;
        for (int stride = 64; stride > 0; stride /= 2) {
            __syncthreads();
            if (t < stride) s[t] += s[t + stride];
        }
        if (t == 0) out[0] = s[0];
    }'''
    (out,), res = run(src, "k", 1, 64, [np.zeros(1, np.float32)], sanitize=False)
    assert out[0] == 2 * sum(range(64))
    line = res.per_line[7]
    trips = 7                                                  # stride 64, 32, ..., 1
    assert line["smsp__inst_executed_op_shared_ld.sum"] == trips * 2 * 2
    assert line["smsp__inst_executed_op_shared_st.sum"] == trips * 2
    # active warps only: stride 64 keeps both warps busy, 32 and below only warp 0
    assert line[WAVES_LD] == (2 + 6) * 2
    # the final `if (t == 0) out[0] = ...` stores to global memory: a real branch
    assert res.per_line[9]["smsp__inst_executed_op_shared_ld.sum"] == 1
    # ... and each of those predicated-off accesses still takes the LSU pipe a slot:
    # strides 32..1 leave warp 1 with no lane on, two loads and a store a trip
    assert line["simt__shared_predicated_off.sum"] == 6 * 3


@pytest.mark.parametrize("op, want", [("fmaxf(s[t], s[t + stride])", 63.0),
                                      ("s[t] + s[t + stride]", float(sum(range(64)))),
                                      ("sinf(s[t + stride]) + s[t]", None)])
def test_a_body_with_a_min_or_max_is_if_converted_too(op, want):
    """fmaxf is one FMNMX: nvcc predicates ``if (t < stride) s[t] = fmaxf(...)`` as it does
    the add (probe/loglum-atomic-reduce's SASS: @!P0 LDS; Nsight's 16,908,288 shared
    loads), so both warps issue the two loads every trip; a sinf keeps the branch."""
    src = """extern "C" __global__ void k(float *out) {
        __shared__ float s[128];
        int t = threadIdx.x;
        s[t] = t; s[t + 64] = 0.0f;
        for (int stride = 64; stride > 0; stride /= 2) {
            __syncthreads();
            if (t < stride) s[t] = OP;
        }
        if (t == 0) out[0] = s[0];
    }""".replace("OP", op)
    (out,), res = run(src, "k", 1, 64, [np.zeros(1, np.float32)], sanitize=False)
    if want is not None:
        assert out[0] == want
    trips = 7
    loads = res.per_line[7]["smsp__inst_executed_op_shared_ld.sum"]
    # predicated: both warps every trip; a branch: both warps at stride 64, then warp 0
    assert loads == (trips * 2 * 2 if want is not None else (2 + 6) * 2)


# the textbook up-sweep / down-sweep of probes20.cu's blelloch_scan, 64 elements
_BLELLOCH = '''extern "C" __global__ void k(int *out) {
    __shared__ int t[132];
    int tid = threadIdx.x;
    t[P(2 * tid)] = 2 * tid; t[P(2 * tid + 1)] = 2 * tid + 1;
    int offset = 1;
    for (int d = LEVELS; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            t[P(bi)] += t[P(ai)];
        }
        offset *= 2;
    }
    if (tid == 0) t[P(127)] = 0;
    for (int d = 1; d < 2 * LEVELS; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            int v = t[P(ai)];
            t[P(ai)] = t[P(bi)];
            t[P(bi)] += v;
        }
    }
    __syncthreads();
    out[2 * tid] = t[P(2 * tid)]; out[2 * tid + 1] = t[P(2 * tid + 1)];
}'''


@pytest.mark.parametrize("levels, unrolled", [("64", True), ("(int)blockDim.x", False)])
@pytest.mark.parametrize("pad", [False, True])
def test_unrolled_sweeps_are_if_converted(levels, unrolled, pad):
    """nvcc unrolls a loop whose counter halves from a constant (``d >>= 1``) or doubles
    up to one: each copy's index arithmetic folds into its addresses and the 20-instruction
    IR body is four SASS instructions, predicated (blelloch_scan's SASS: ``@!P1 LDS``).
    With the trips from blockDim the down-sweep stays a branch (as scan_otimizado's does
    on the GPU: Nsight's instruction counts), and so does a padded index (`i + (i >> 5)`:
    blelloch_padded's SASS keeps the arithmetic, 12 instructions a level, and branches)."""
    src = ("#define P(i) ((i) + ((i) >> 5))\n" if pad else "#define P(i) (i)\n") + \
        _BLELLOCH.replace("LEVELS", levels)
    unrolled = unrolled and not pad
    (out,), res = run(src, "k", 1, 64, [np.zeros(128, np.int32)], sanitize=False)
    a = np.arange(128)
    assert out.tolist() == (np.cumsum(a) - a).tolist()        # exclusive scan
    down = res.per_line[24]                                   # t[ai] = t[bi]
    if unrolled:
        # all 2 warps issue each of the 7 levels; the up-sweep's load too
        assert down["smsp__inst_executed_op_shared_st.sum"] == 7 * 2
        assert res.per_line[12]["smsp__inst_executed_op_shared_ld.sum"] == 7 * 2 * 2
        # levels d = 1 .. 32 leave warp 1 off: its load and store of t[ai] = t[bi] pass
        # the pipe all the same
        assert down["simt__shared_predicated_off.sum"] == 6 * 2
    else:
        assert down["smsp__inst_executed_op_shared_st.sum"] == 6 + 2
        assert down.get("simt__shared_predicated_off.sum", 0) == 0


def test_l1_keeps_the_line_a_lane_loaded_on_its_previous_trip():
    """CSR rows, one per lane (spmv/csr-scalar's pattern): each row's elements are read
    once per trip, but a sector goes to L2 only the first time some lane needs it (L1 is
    sectored: a miss brings in the sectors the request asked for)."""
    src = '''extern "C" __global__ void k(const int *rp, const float *v, float *o) {
        int r = blockIdx.x * blockDim.x + threadIdx.x;
        float s = 0.0f;
        for (int j = rp[r]; j < rp[r + 1]; j++)
            s += v[j];
        o[r] = s;
    }'''
    rows = np.arange(33, dtype=I32) * 10          # 10 floats (40 bytes) per row
    _, res = run(src, "k", 1, 32, [rows, np.ones(320, np.float32), np.zeros(32, np.float32)],
                 sanitize=False)
    m = res.metrics
    # v spans 1280 bytes = 10 lines of 40 sectors: the first trip's lanes start in 32 of
    # them (lane r at byte 40 r), one request a line; the 8 sectors no lane starts in
    # (4, 9, ..., 39, one a line) are each asked for when a lane walks into them; rp[r] is
    # 1 line, rp[r + 1] 2 lines, the first of them the one rp[r] brought into L1 (loaded
    # once, before the loop, as nvcc loads it: simt.licm)
    assert m["simt__l2_lines_ld.sum"] == 10 + 8 + 1 + 1
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 1 + 1 + 10


def test_l1_keeps_a_small_table_a_block_gathers_again_and_again():
    """A block's earlier loads leave their lines in L1 for its later ones, up to its share
    of the SM's L1 (counters.l1_keep_lines: all of it for a grid of one block an SM, what
    the shared carveout leaves): x of 8192 floats (256 lines) gathered at random
    by spmv_csr_vector cost 13.5 us on the H100, about what x of 600 did (12.8), where
    sending every gathered line to L2 predicted 20.5 (timing_investigation/csrlat/, x8k).
    Another block does not see them, and a table that does not fit goes on missing.  L1 is
    sectored: a line holds the 32-byte sectors loads fetched into it, so a word of the
    line's next sector misses once more."""
    src = r'''extern "C" __global__ void k(const int *idx, const float *x, float *o, int trips) {
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        float s = 0.0f;
        for (int k = 0; k < trips; k++)
            s += x[idx[k * gridDim.x * blockDim.x + t]];
        o[t] = s;
    }'''
    keep, trips = counters.l1_keep_lines(1, 0) // 2, 16    # a table of half the lines a block keeps

    def x_lines(blocks, groups, words=8):
        # trip k: thread t of each block reads word k % words of line (t + 8k) % keep of group
        # k % groups, so a lane's line changes every trip and every trip touches each of a
        # group's lines once (8 words: all in the line's first sector)
        t = np.arange(keep)
        k = np.arange(trips)[:, None, None]
        line = (t[None, None, :] + 8 * k) % keep + keep * (k % groups)
        idx = np.broadcast_to(line * 32 + k % words, (trips, blocks, keep)).astype(I32).ravel()
        _, res = run(src, "k", blocks, keep, [idx, np.ones(keep * groups * 32, np.float32),
                                              np.zeros(keep * blocks, np.float32), np.int32(trips)],
                     sanitize=False)
        # idx's own lines: keep / 32 a block a trip (keep ints), never read again
        return res.metrics["simt__l2_lines_ld.sum"] - keep // 32 * blocks * trips

    assert x_lines(1, 1) == keep                   # each line once, then hits
    assert x_lines(3, 1) == 3 * keep               # blocks do not share
    assert x_lines(1, 4) == keep * trips           # twice what it keeps: all miss (LRU)
    assert x_lines(1, 1, words=32) == 2 * keep     # trips 8-15 read the lines' second sector


@pytest.mark.parametrize("expr, trans, replays, in_slice", [
    ("t >> 5", 32, 31, 32),      # one address (not provably uniform, so not aggregated)
    ("t & 1", 16, 15, 16),       # two words of one sector: 16 deep
    ("t * 8", 32, 0, 16),        # a sector per lane: nothing replays; 996 bytes: 2 slices
    ("(t & 3) * 8", 32, 28, 32),  # four sectors, 8 lanes on one word of each
])
def test_atomic_replays_counted_for_the_l2_slice(expr, trans, replays, in_slice):
    """Same-address lanes of an atomic replay in the L2's atomic unit (each costs what a
    lane on one hot address costs); the busiest slice's share is what the timing uses, a
    slice for every 512 bytes the region spans."""
    src = f'''extern "C" __global__ void k(int *c) {{
        int t = threadIdx.x;
        atomicAdd(&c[{expr}], 1);
    }}'''
    _, res = run(src, "k", 1, 32, [np.zeros(256, I32)], sanitize=False)
    m = res.metrics
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"] == trans
    assert m["simt__l2_slice_transactions.max"] == in_slice
    assert m["simt__l2_slice_serialized.max"] == replays * in_slice // trans


def test_a_walk_whose_next_index_comes_from_the_data_keeps_only_what_l1_holds():
    """Lanes walking rows of their own (64 ints, two lines): a lane's sector from its
    previous trip hits L1 where the trips are pipelined (a miss a sector: Nsight counts 87%
    of walk/'s `ind` load sectors as hits, 7 of 8); where the address waits for the
    previous trip's value, the SM's lanes must all fit, and 200 KiB of shared memory
    leave L1 224 lines for the block's 512 (timing_investigation/walk/)."""
    assert counters.l1_keep_lines(1, 200 * 1024) == 224

    def lines_to_l2(step):
        src = f'''extern "C" __global__ void k(const int *x, int *out) {{
            extern __shared__ int pad[];
            int t = threadIdx.x;
            const int *row = x + t * 64;
            int s = 0, i = 0;
            while (i < 64) {{ int v = row[i]; s += v; i += {step}; }}
            pad[t] = s;
            out[t] = pad[t];
        }}'''
        _, res = run(src, "k", 1, 512, [np.arange(512 * 64, dtype=I32), np.zeros(512, I32)],
                     shared=200 * 1024, sanitize=False)
        return res.metrics["simt__l2_lines_ld.sum"]

    assert lines_to_l2("1") == 512 * 8                 # a counter: each lane's 8 sectors once
    # from the data: 512 lines in 224 of L1, most trips miss (those in sets that hold
    # four lines or fewer stay)
    assert lines_to_l2("1 + (v >> 30)") > 0.5 * 512 * 64


@pytest.mark.parametrize("stride, word, alone", [
    (16, "0", False),                # lanes 64 bytes apart: two lanes' chunks a line
    (32, "16 * (i & 1)", True),      # 128 bytes apart, a chunk a trip: alone in its line
])
def test_l2_retouches_count_lines_and_the_chunks_dram_reads(stride, word, alone):
    """What lies between two touches is the distinct 128-byte lines touched, L2's unit of
    room: a block's 256 lanes 64 or 128 bytes apart hold 128 or 256 lines, not 256
    sectors, and touching them again adds nothing.  A sector
    re-touched without its pair counts the two sectors of the 64-byte chunk DRAM reads, and a
    chunk alone in its line is a scattered read (timing_investigation/walk/)."""
    src = f'''extern "C" __global__ void k(const int *x, int *out) {{
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        int s = 0;
        for (int i = 0; i < 4; ++i) s += x[t * {stride} + {word} + (s >> 30)];
        out[t] = s;
    }}'''
    grid, block = 8192, 256            # 256-512 MiB of rows: past L2, re-touches tracked
    n = grid * block
    _, res = run(src, "k", grid, block, [np.zeros(n * stride, I32), np.zeros(n, I32)],
                 sanitize=False, sample_blocks=8)
    m = res.metrics
    touches = 3 if not alone else 2                      # a lane's re-touches of a sector
    assert m["simt__l2_retouch_sectors.sum"] == 2 * touches * n    # a lone sector: its chunk
    assert m["simt__l2_retouch_scattered_sectors.sum"] == (2 * touches * n if alone else 0)
    # between a lane's two reads of its sector the block touched each of its lanes' lines:
    # distinct lines, however often (the alternating lanes touch theirs twice)
    lines = block * stride * 4 // 128
    assert m["simt__l2_retouch_block_bytes.q4"] == lines * 128


@pytest.mark.parametrize("passes", [1, 2])
def test_trips_l1_serves_are_not_l2_re_touches(passes):
    """A lane walking its own row of 32 ints a word a trip (a CSR row, a molecule's
    atoms) finds each sector its previous trip brought in L1: those trips never reach L2,
    so they are not L2 re-touches that may miss to DRAM.  One pass re-touches nothing; a
    second pass re-touches at most each sector's first trip (its chunk: two sectors), 8 a
    lane, where counting every trip gave 56 and 120 (timing_investigation/l1retouch/)."""
    src = """extern "C" __global__ void k(const int *x, int *out, int r, int passes) {
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        const int *row = x + t * r;
        int s = 0;
        for (int i = 0; i < r; i++) s += row[i];
        if (passes > 1)
            for (int i = 0; i < r; i++) s += row[i] ^ s;
        out[t] = s;
    }"""
    grid, block, r = 8192, 256, 32     # 256 MiB of rows: past L2, re-touches tracked
    n = grid * block
    _, res = run(src, "k", grid, block, [np.zeros(n * r, I32), np.zeros(n, I32), I32(r), I32(passes)],
                 sanitize=False, sample_blocks=4)
    got = res.metrics["simt__l2_retouch_sectors.sum"]
    if passes == 1:
        assert got == 0
    else:
        assert 0 < got <= 2 * (r // 8) * n


def test_a_small_regions_slice_serves_its_share_of_the_spread_regions_too():
    """The busiest slice is the hot small region's work plus the share every slice gets of
    the regions spread over all of them (a BFS's queue tail beside its CAS on dist,
    timing_investigation/bfsq/), not the larger of the two."""
    src = r'''extern "C" __global__ void k(int *tail, int *big) {
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        atomicAdd(tail, 1);                          // nvcc aggregates: one lane a warp
        atomicAdd(&big[(t * 97) & 65535], 1);        // 256 KiB: every slice
    }'''
    grid, block = 64, 256
    args = [np.zeros(1, I32), np.zeros(65536, I32)]
    _, res = run(src, "k", grid, block, args, sanitize=False)
    hot = grid * block // 32                         # one word: one slice, a warp's atomic each
    share = grid * block / counters.L2_SLICES        # the spread atomics' share of a slice
    assert res.metrics["simt__l2_slice_transactions.max"] == round(hot + share) == 768
    _, alone = run(src.replace("atomicAdd(tail, 1);", ""), "k", grid, block, args, sanitize=False)
    assert alone.metrics["simt__l2_slice_transactions.max"] == round(share)


# ----------------------------------------------------------------------------- atomics
# One warp's atomicAdd(&c[idx[lane]], 1) on an int array: Nsight's
# l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum on an H200.  The warps below are data,
# measured with ncu: warps of histogram/atomic's default input (seed 0), each replayed as
# its own one-warp launch (docs/results/atomic_sectors_probe/ncu_w1.csv, warp number in the
# comment), and hand-made lane patterns (probe3_*.json / ncu_probe3_*.csv there); -1 = lane off.
MEASURED_RED_WARPS = [
    # warp 205: 6 (lane 10) meets 166 (lane 6) on bank 6 of lines 0 and 5 (one L1 set)
    ([115, 31, 243, 0, 58, 198, 166, 122, 100, 207, 6, 169, 101, 236, 53, 4,
      2, 10, 1, 30, 240, 83, 224, 81, 62, 3, 247, 79, 255, 246, 10, 148], 21),
    # warp 115
    ([7, 224, 4, 247, 246, 22, 122, 165, 81, 191, 27, 164, 99, 176, 197, 14,
      6, 3, 60, 124, 231, 74, 215, 38, 52, 5, 1, 100, 21, 5, 129, 98], 21),
    # warp 74: 160/0 clash too, but line 0 waits whole there (line 5 leads the set)
    ([160, 255, 50, 17, 60, 117, 6, 29, 255, 27, 183, 64, 255, 157, 236, 3,
      255, 174, 188, 135, 1, 163, 107, 75, 147, 100, 49, 7, 255, 0, 15, 148], 25),
    # warp 16: two extra sectors
    ([247, 132, 184, 255, 1, 59, 107, 3, 230, 170, 3, 7, 207, 51, 255, 66,
      63, 133, 255, 167, 162, 59, 6, 7, 156, 104, 5, 0, 75, 222, 115, 124], 24),
    # warp 18: 7 (lane 12) meets 167 (lane 5), but no extra sector
    ([255, 117, 113, 40, 60, 167, 4, 78, 67, 228, 20, 4, 7, 83, 255, 10,
      121, 26, 214, 220, 230, 171, 77, 182, 1, 36, 192, 246, 232, 87, 2, 142], 25),
    # hand-made (probe3 A21): 3 sectors for 3 lanes in 2 sectors; without lane 0 (A20) 2
    ([160] + [-1] * 14 + [3] + [-1] * 5 + [163] + [-1] * 10, 3),
    ([-1] * 15 + [3] + [-1] * 5 + [163] + [-1] * 10, 2),
    # probe3 C7: 0, 166, 6 in lanes 3, 6, 10
    ([-1] * 3 + [0] + [-1] * 2 + [166] + [-1] * 3 + [6] + [-1] * 21, 3),
    # probe3 PA1 / PA8: the same seven values in lanes 0..6, two orders
    ([6, 160, 0, 1, 163, 3, 7] + [-1] * 25, 3),
    ([160, 6, 7, 0, 1, 163, 3] + [-1] * 25, 2),
]


@pytest.mark.parametrize("idx, ncu", MEASURED_RED_WARPS)
def test_atomic_sectors_match_measured_warps(idx, ncu):
    from simt.counters import Runs, l1_atomic_passes
    assert l1_atomic_passes([4 * i for i in idx if i >= 0]) == ncu
    # the vectorized path, at a 2 KiB boundary and at an allocation that is not on one
    base = 1 << 32
    for start in (base, base + 768):
        a = np.array(idx)
        mat = np.where(a >= 0, start + 4 * a, 0)[None, :]
        assert Runs(mat, (a >= 0)[None, :]).atomic_sectors(4, np.array([start])).tolist() == [ncu]


def test_atomic_sectors_reduce_to_the_per_sector_rule():
    from simt.counters import Runs
    base = 1 << 32

    def sect(idx, size=4):
        a = np.array(idx)
        mat = (base + size * a)[None, :]
        return int(Runs(mat, np.ones_like(mat, bool)).atomic_sectors(size, np.array([base]))[0])

    t = np.arange(32)
    assert sect(np.zeros(32, int)) == 32            # one address: one lane per pass
    assert sect(t) == 4                             # 128 contiguous bytes
    assert sect(t * 32) == 32                       # one lane per line, all on bank 0
    assert sect(t * 8) == 32                        # one lane per sector
    assert sect(t % 8) == 4                         # one sector, 4 lanes on each word
    assert sect(t * 2, size=8) == 16                # 8-byte atomics, every other double


def test_histogram_atomic_warps_sum_to_ncu():
    # all 256 warps of histogram/atomic (seed 0) against ncu's per-warp values (H200)
    import csv
    from pathlib import Path
    from simt.counters import Runs
    d = Path(__file__).resolve().parents[1] / "docs/results/atomic_sectors_probe"
    idx = np.load(d / "data.npy").astype(np.int64).reshape(-1, 32)
    lines = (d / "ncu_w1.csv").read_text().splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.startswith('"ID"'))
    ncu = [int(r["Metric Value"]) for r in csv.DictReader(lines[head:])
           if r["Metric Name"] == "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"]
    base = 1 << 32
    got = Runs(base + 4 * idx, np.ones(idx.shape, bool)).atomic_sectors(4, np.array([base]))
    assert got.tolist() == ncu and sum(ncu) == 5603


def test_atomic_sectors_in_a_launch():
    # warp 205 above through the emulator, with the histogram at several offsets from the
    # 2 KiB boundary (the emulator packs allocations 256-byte aligned; the L1 set is taken
    # relative to the allocation, as the GPU runs had it)
    idx = np.array(MEASURED_RED_WARPS[0][0], I32)
    src = '''extern "C" __global__ void k(int *pad, int *c, const int *idx) {
        atomicAdd(&c[idx[threadIdx.x]], 1);
    }'''
    for pad in (1, 64, 200, 448):
        (_, c, _), res = run(src, "k", 1, 32, [np.zeros(pad, I32), np.zeros(256, I32), idx],
                             sanitize=False)
        assert c.sum() == 32
        assert res.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"] == 21


@pytest.mark.parametrize("size", [4, 8])
def test_atomic_sector_replay_vectorized_equals_reference(size):
    # the emulator's batched replay against the lane-by-lane one, on random warps over a
    # few lines of one L1 set (heavy clashing), partial warps and two allocations
    from simt.counters import Runs, l1_atomic_passes, set_shift
    rng = np.random.default_rng(1)
    base = 1 << 32
    starts = np.array([base + 256, base + 6400])           # off the 2 KiB grid, both
    lines = np.array([0, 5, 10, 15, 1, 4])
    rows = 600
    which = rng.integers(0, 2, (rows, 32))
    line = lines[rng.integers(0, len(lines), (rows, 32))]
    word = rng.integers(0, 128 // size, (rows, 32)) * size
    word = np.where(rng.random((rows, 32)) < 0.5, word % (4 * size), word)    # crowd a few banks
    mat = starts[which] + line * 128 + word
    act = rng.random((rows, 32)) < 0.9
    act[::7] = True
    got = Runs(np.where(act, mat, 0), act).atomic_sectors(size, starts)
    for r in range(rows):
        a = mat[r][act[r]]
        assert got[r] == l1_atomic_passes(a.tolist(), size, set_shift(a, starts).tolist()), r


@pytest.mark.parametrize("span_words, partial", [(256, False), (256, True), (2048, True),
                                                 (4000, False)])
def test_atomic_sector_table_masks_equal_reference(span_words, partial):
    # one allocation over a small region (a histogram's bins): the lane masks come from
    # bincounts instead of sorts (more than _TABLE_WORDS words falls back to the sorts)
    from simt.counters import Runs, l1_atomic_passes, set_shift
    rng = np.random.default_rng(span_words)
    base = 1 << 32
    starts = np.array([base + 768])                         # off the 2 KiB grid
    rows = 500
    w = rng.integers(0, span_words, (rows, 32))
    w = np.where(rng.random((rows, 32)) < 0.3, rng.integers(0, 8, (rows, 32)), w)   # dark bins
    mat = starts[0] + 4 * w
    act = rng.random((rows, 32)) < 0.8 if partial else np.ones((rows, 32), bool)
    act[:, 3] = True
    got = Runs(np.where(act, mat, 0), act).atomic_sectors(4, starts)
    for r in range(rows):
        a = mat[r][act[r]]
        assert got[r] == l1_atomic_passes(a.tolist(), 4, set_shift(a, starts).tolist()), r


def test_atomic_sector_replay_across_chunks_equals_reference():
    # more rows than one vectorized chunk: a chunk where most rows clash (replayed whole),
    # then one where few do (those picked out); the replay runs once over both
    from simt.counters import _CHUNK, Runs, l1_atomic_passes, set_shift
    rng = np.random.default_rng(7)
    base = 1 << 32
    starts = np.array([base + 512])
    rows = _CHUNK + 900
    w = rng.integers(0, 256, (rows, 32))                    # 8 lines: clashes are common
    quiet = np.arange(rows) >= _CHUNK
    w[quiet] = rng.integers(0, 32, (int(quiet.sum()), 32))  # one line: no clash ...
    w[quiet.nonzero()[0][::9], 5] = 5 * 32 + 7              # ... but in every 9th row
    mat = starts[0] + 4 * w
    act = rng.random((rows, 32)) < 0.95
    got = Runs(np.where(act, mat, 0), act).atomic_sectors(4, starts)
    want = [l1_atomic_passes(mat[r][act[r]].tolist(), 4,
                             set_shift(mat[r][act[r]], starts).tolist()) for r in range(rows)]
    assert got.tolist() == want


def test_popcount_fallback_for_numpy_1():
    # numpy < 2 has no bitwise_count; the table fallback must count the same bits
    from simt.counters import _popcount_lut
    x = np.random.default_rng(3).integers(0, 1 << 32, (7, 5), dtype=np.uint64).astype(np.uint32)
    want = np.array([[bin(int(v)).count("1") for v in row] for row in x])
    assert _popcount_lut(x).tolist() == want.tolist()
    assert _popcount_lut(x[0]).tolist() == want[0].tolist()


SCATTER_SRC = '''extern "C" __global__ void gather(const int *idx, const int *tab, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tab[idx[i]];
}
extern "C" __global__ void scatter(const int *idx, int *tab) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tab[idx[i]] = i;
}'''
TABLE = 1 << 18                   # 1 MiB of ints: 16384 chunks of 64 bytes


def test_a_sampled_random_gather_touches_its_table_once_and_again():
    """2^18 random loads over a 1 MiB table: extrapolated from 16 of 1024 blocks, every
    chunk of the table is read once and the other touches are re-touches (which the timing
    model prices by how much of the table L2 keeps), the index and output streams once;
    emulated whole, 2^11 loads read their distinct chunks once and nothing again."""
    rng = np.random.default_rng(1)
    table_chunks = TABLE * 4 // 64
    for n, sample in ((1 << 18, 16), (1 << 11, None)):
        idx = rng.integers(0, TABLE, n).astype(I32)
        _, res = run(SCATTER_SRC, "gather", n // 256, 256, [idx, np.ones(TABLE, I32), np.zeros(n, I32)],
                     sanitize=False, sample_blocks=sample)
        m = res.metrics
        first = table_chunks if sample else len(np.unique(idx // 16))
        assert m["simt__dram_scattered_chunks64.sum"] == first
        assert m["simt__dram_read_chunks64.sum"] == first + n * 4 // 64       # + idx, streamed
        assert m["simt__dram_written_sectors.sum"] == n * 4 // 32              # out, streamed
        assert m["simt__dram_scattered_sectors_written.sum"] == 0 == m["simt__dram_fill_sectors.sum"]
        if sample:
            # the sample's distinct chunks x 64, less the table's: most of 2^18 touches
            assert 0.8 * n < m["simt__dram_reread_chunks64.sum"] + table_chunks <= n
            assert m["simt__dram_retouched_bytes.max"] == TABLE * 4
        else:
            assert m["simt__dram_reread_chunks64.sum"] == 0 == m["simt__dram_retouched_bytes.max"]


def test_a_column_walk_comes_back_to_its_sectors_within_a_pass():
    """A gather walking a row-major matrix down its columns (lanes a row apart) touches
    each sector once a column, a pass of the column's rows later: the bytes between
    re-touches are the pass's sectors, not the table's size as for a random gather, so
    L2 keeps them (probe/gather-ldg: ncu reads 134 MB, not the 600 MB every re-touch
    missing would give). The random gather above keeps the table's size."""
    rows = cols = 512                                  # 1 MiB of ints, a column of 512 rows
    n = rows * cols
    i = np.arange(n)
    idx = ((i % rows) * cols + i // rows).astype(I32)
    _, res = run(SCATTER_SRC, "gather", n // 256, 256, [idx, np.ones(n, I32), np.zeros(n, I32)],
                 sanitize=False, sample_blocks=16)
    m = res.metrics
    assert m["simt__dram_reread_chunks64.sum"] > 0                   # re-touches beyond the table
    assert m["simt__dram_retouched_bytes.max"] == rows * 32          # one pass: a sector a row


def test_a_column_walk_whose_warps_wrap_to_the_next_column_is_still_a_column_walk():
    """Columns of 140 rows: a warp's lanes run down one column and, for a fifth of the
    warps, on at the top of the next, one break in the stride. The walk still comes back
    to a sector a pass later (probe/mp2-energy-const-f64's transposed read of (ib|ja),
    nv = 140: 2.31 when such warps made it a random gather over the whole array)."""
    rows, cols = 140, 2048
    n = rows * cols
    i = np.arange(n)
    idx = ((i % rows) * cols + i // rows).astype(I32)
    _, res = run(SCATTER_SRC, "gather", n // 256, 256, [idx, np.ones(n, I32), np.zeros(n, I32)],
                 sanitize=False, sample_blocks=16)
    m = res.metrics
    assert m["simt__dram_reread_chunks64.sum"] > 0
    assert m["simt__dram_retouched_bytes.max"] == rows * 32


def test_a_scattered_store_reads_its_sectors_first():
    """Scattered 4-byte stores write part of a sector each: the sectors are filled before
    they are written back (a coalesced stream of whole sectors needs no fill)."""
    n = 1 << 12
    perm = np.random.default_rng(2).permutation(TABLE)[:n].astype(I32)
    _, res = run(SCATTER_SRC, "scatter", n // 256, 256, [np.sort(perm), np.zeros(TABLE, I32)],
                 sanitize=False)
    sectors = len(np.unique(np.sort(perm) // 8))
    m = res.metrics
    assert m["simt__dram_written_sectors.sum"] == sectors
    assert m["simt__dram_scattered_sectors_written.sum"] == sectors == m["simt__dram_fill_sectors.sum"]
    _, res = run(SCATTER_SRC, "scatter", n // 256, 256, [np.arange(n, dtype=I32), np.zeros(TABLE, I32)],
                 sanitize=False)
    assert res.metrics["simt__dram_written_sectors.sum"] == n * 4 // 32
    assert res.metrics["simt__dram_fill_sectors.sum"] == 0 == res.metrics["simt__dram_scattered_sectors_written.sum"]


TWO_PASS_SRC = '''extern "C" __global__ void two_pass(const float *x, float *y, int cols, int write) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    const float *r = x + (size_t)w * cols;
    float s = 0.f;
    for (int c = lane; c < cols; c += 32) s += r[c];
    for (int c = lane; c < cols; c += 32) {
        if (write) y[(size_t)w * cols + c] = r[c] * s;
        else s += r[c];
    }
    if (!write && lane == 0) y[w] = s;
}
extern "C" __global__ void one_pass(const float *x, float *y, int cols, int write) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    for (int c = lane; c < cols; c += 32) y[(size_t)w * cols + c] = 2.f * x[(size_t)w * cols + c];
}'''
ROWS, COLS = 1 << 14, 1 << 10          # 64 MiB of rows of 4 KiB, a warp each: more than L2


@pytest.mark.parametrize("sample", [16, 64])
def test_a_blocks_re_reads_count_the_bytes_it_touched_in_between(sample):
    """A warp reads its 4 KiB row twice.  Every sector of x is re-read once, within the
    batch, after the block (8 warps) touched 32 KiB: the rest of each row and the start
    of it again, wherever the sector sits.  Writing the row out in the second pass adds
    the stores made in between, 0 to 32 KiB more by where the sector sits.  A kernel
    reading each row once re-touches nothing.  The counts extrapolate from the sample."""
    x = np.ones(ROWS * COLS, np.float32)
    grid = ROWS // 8
    for write in (0, 1):
        _, res = run(TWO_PASS_SRC, "two_pass", grid, 256, [x, np.zeros(ROWS * COLS, np.float32),
                     np.int32(COLS), np.int32(write)], sanitize=False, sample_blocks=sample)
        m = res.metrics
        assert m["simt__l2_retouch_sectors.sum"] == ROWS * COLS * 4 // 32
        q = [m[f"simt__l2_retouch_block_bytes.q{i}"] for i in range(8)]
        if not write:
            assert q == [8 * COLS * 4] * 8
        else:       # quantiles of distances spread evenly over 32..64 KiB (bins' means)
            assert q == sorted(q) and 8 * COLS * 4 <= q[0] < q[4] < q[7] <= 16 * COLS * 4
            assert abs(q[4] - 12 * COLS * 4) < 0.1 * 12 * COLS * 4
    _, res = run(TWO_PASS_SRC, "one_pass", grid, 256, [x, np.zeros(ROWS * COLS, np.float32),
                 np.int32(COLS), np.int32(1)], sanitize=False, sample_blocks=sample)
    assert res.metrics["simt__l2_retouch_sectors.sum"] == 0


def test_re_touches_of_a_table_touched_at_random_are_left_to_its_own_model():
    """A random gather's table (a scattered allocation) is re-touched at random: those
    re-touches are priced by how much of the table L2 keeps (simt__dram_reread_chunks64)
    and by their own distance (simt__l2_retouch_table_*), not as a block's re-reads."""
    src = '''extern "C" __global__ void gather4(const int *idx, const int *tab, int *out, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x, s = 0;
        for (int k = 0; k < 4; k++) s += tab[idx[k * n + i]];
        out[i] = s;
    }'''
    rng = np.random.default_rng(2)
    n, table = 1 << 15, 1 << 24                 # a 64 MiB table: the launch exceeds L2
    idx = rng.integers(0, table, 4 * n).astype(I32)
    assert len(np.unique(idx // 8)) < 4 * n - 1000      # a thousand sectors touched again
    _, res = run(src, "gather4", n // 256, 256, [idx, np.ones(table, I32), np.zeros(n, I32), np.int32(n)],
                 sanitize=False)
    assert res.metrics["simt__dram_scattered_chunks64.sum"] > 0
    assert res.metrics["simt__l2_retouch_sectors.sum"] == 0
    assert res.metrics["simt__l2_retouch_table_sectors.sum"] > 2 * 1000


@pytest.mark.parametrize("op, rmw", [
    ("s += tab[j]; s += tab[j + (s >> 30)];", False),
    ("atomicAdd(&tab[j], 1); atomicAdd(&tab[j + (s >> 30)], 1);", True),
])
def test_a_samples_own_re_touches_of_a_random_table_count_with_their_distance(op, rmw):
    """Each lane touches a random word of a 64 MiB table twice.  The second touches are
    re-touches of the table's chunks within the batch: two sectors each (DRAM reads a
    64-byte chunk), and for atomics each distinct sector once more, as it goes back to
    DRAM again if it missed.  Between a lane's two touches the launch touched every line
    of the first pass: the distinct lines over the blocks, 128 bytes each
    (timing_investigation/unseen219/: a Bloom filter's re-touches counted as L2 hits)."""
    src = f'''extern "C" __global__ void twice(const int *idx, int *tab, int *out, int n) {{
        int i = blockIdx.x * blockDim.x + threadIdx.x, s = 0;
        int j = idx[i];
        {op}
        out[i] = s;
    }}'''
    rng = np.random.default_rng(2)
    n, table = 1 << 15, 1 << 24
    idx = rng.integers(0, table, n).astype(I32)
    _, res = run(src, "twice", n // 256, 256, [idx, np.zeros(table, I32), np.zeros(n, I32), np.int32(n)],
                 sanitize=False)
    m = res.metrics
    assert m["simt__l2_retouch_table_sectors.sum"] == 2 * len(np.unique(idx // 16))
    assert m["simt__l2_retouch_table_rmw_sectors.sum"] == (len(np.unique(idx // 8)) if rmw else 0)
    lines = len(np.unique(idx // 32))
    assert [m[f"simt__l2_retouch_table_block_bytes.q{q}"] for q in range(8)] == [lines * 128 // (n // 256)] * 8
    assert m["simt__l2_retouch_sectors.sum"] == 0


def test_shared_atomic_wavefronts_equal_nsight_compute():
    """A shared atomicAdd passes through the banks once per distinct word in its busiest
    bank (lanes on one word merge, words sharing a bank do not): for each lane pattern of
    the satom sweep, the emulator's wavefronts per instruction equal what Nsight Compute
    counted on the H100 (docs/results/timing_investigation/satom/ncu_satom_h100.csv; the
    patterns are the sweep's own, satom_cases.py)."""
    import importlib.util
    import re
    from pathlib import Path
    from kernels_cuda.ncu_check import parse_ncu_csv
    from simt import counters
    d = Path(__file__).resolve().parents[1] / "docs" / "results" / "timing_investigation" / "satom"
    src = re.search(r"SRC = r'''(.*?)'''", (d / "satom_mb.py").read_text(), re.S).group(1)
    spec = importlib.util.spec_from_file_location("satom_cases", d / "satom_cases.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cases = mod.cases()
    ncu = parse_ncu_csv((d / "ncu_satom_h100.csv").read_text())
    assert len(ncu) == len(cases) == 10
    for (name, tab), rec in zip(cases.items(), ncu):
        _, res = run(src, "satom", 1, 256, [tab, np.zeros(1, I32), np.int32(64)], sanitize=False)
        m = res.metrics
        got = m[counters.WAVES_ATOM] / m[counters.SHARED_ATOM]
        want = rec["metrics"][counters.WAVES_ATOM] / rec["metrics"][counters.SHARED_ATOM]
        assert got == pytest.approx(want, rel=1e-12), name
        if name.startswith("bank"):
            assert got == int(name[4:])


MATADD_ROWS_X = '''extern "C" __global__ void k(const float *A, const float *B, float *C, int N) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;     // threadIdx.x down the rows
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    C[r * N + c] = A[r * N + c] + B[r * N + c];
}'''


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_warps_of_a_block_share_l1_lines(policy):
    """A 16 x 16 block whose threadIdx.x walks down 16 rows: its 8 warps each touch the
    same 16 lines of A (and of B), which L2 sees once a block, whatever order the warps
    run in; L1's pipe sees every warp's."""
    N = 64
    z = np.zeros(N * N, np.float32)
    _, res = run(MATADD_ROWS_X, "k", (N // 16, N // 16), (16, 16), [z, z.copy(), z.copy(), I32(N)],
                 sanitize=False, policy=policy, seed=3)
    m = res.metrics
    blocks = (N // 16) ** 2
    assert m["simt__l1_lines_ld.sum"] == blocks * 8 * 16 * 2      # warps x lines x arrays
    # together (lockstep) or one at a time (random order, the stepper): the same count
    assert m["simt__l2_lines_ld.sum"] == blocks * 16 * 2
    assert m["simt__l2_lines_ld_gather.sum"] == m["simt__l2_lines_ld.sum"]   # 16 lines a request
    assert m["simt__l2_lines_st.sum"] == blocks * 8 * 16                       # stores do not merge


def test_gather_lines_are_the_wide_requests_only():
    src = '''extern "C" __global__ void k(const int *idx, const float *x, float *y) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        y[i] = x[idx[i]];
    }'''
    idx = (np.arange(256, dtype=np.int64) * 97 % 256 * 64).astype(I32)     # a line a lane
    _, res = run(src, "k", 2, 128, [idx, np.zeros(256 * 64, np.float32), np.zeros(256, np.float32)],
                 sanitize=False)
    m = res.metrics
    assert m["simt__l2_lines_ld_gather.sum"] == 256                 # x[idx[i]]: 32 lines a warp
    assert m["simt__l2_lines_ld.sum"] == 256 + 8                    # idx[i]: one line a warp


@pytest.mark.parametrize("ctype,fp", [("float", True), ("double", True), ("int", False),
                                     ("unsigned long long", False)])
def test_float_adds_on_one_word_are_marked(ctype, fp):
    src = f'''extern "C" __global__ void k({ctype} *c) {{ atomicAdd(c, ({ctype})threadIdx.x); }}'''
    dt = {"float": np.float32, "double": np.float64, "int": I32, "unsigned long long": np.uint64}[ctype]
    (c,), res = run(src, "k", 4, 256, [np.zeros(1, dt)], sanitize=False)
    assert c[0] == 4 * 255 * 256 // 2
    # nvcc sums an integer add to one address over the warp first (one lane a warp)
    lanes = 1024 if fp else 32
    assert res.metrics["simt__global_atomic_hot_address_lanes.max"] == lanes
    assert res.metrics["simt__global_atomic_hot_fp_lanes.max"] == (lanes if fp else 0)
    from simt import timing
    prof = timing.load_profile("h100")
    t = timing.predict(res.metrics, 4, 256, 0, prof).components_us["global_atomics"]
    assert t == pytest.approx(lanes / (prof.gatom_same_fp_per_us if fp else prof.gatom_same_per_us), abs=1e-3)


@pytest.mark.parametrize("apart,chain", [(1, 2 * 64), (4, 64), (8, 64)])
def test_adds_on_words_of_one_sector_form_one_chain(apart, chain):
    # bicgstab's dots[0] and dots[1]: a double add a block on each of two words.  In one
    # 32-byte sector the L2 takes them one after another (fpsector/: two or four words of a
    # sector cost what one word costs); 32 bytes apart they are two chains
    src = f'''extern "C" __global__ void k(double *c) {{
        if (threadIdx.x == 0) {{ atomicAdd(&c[0], 1.0); atomicAdd(&c[{apart}], 2.0); }}
    }}'''
    (c,), res = run(src, "k", 64, 64, [np.zeros(16, np.float64)], sanitize=False)
    assert c[0] == 64 and c[apart] == 128
    assert res.metrics["simt__global_atomic_hot_address_lanes.max"] == chain
    assert res.metrics["simt__global_atomic_hot_fp_lanes.max"] == chain


def test_a_warps_lanes_on_words_of_one_sector_cost_the_most_on_one_word():
    # lane l on word l % 4 of one sector: the sector takes 8 steps a warp, not 32
    # (fpsector/'s spread kernels: P words cost 1 / P of one word's time)
    src = '''extern "C" __global__ void k(unsigned *c) { atomicAdd(&c[threadIdx.x % 4], threadIdx.x); }'''
    (c,), res = run(src, "k", 2, 64, [np.zeros(8, np.uint32)], sanitize=False)
    assert c.tolist()[:4] == [2 * sum(range(r, 64, 4)) for r in range(4)]
    assert res.metrics["simt__global_atomic_hot_address_lanes.max"] == 4 * 8
    assert res.metrics["simt__global_atomic_hot_fp_lanes.max"] == 0


def test_funnel_shifts_go_to_the_alu_pipe():
    def alu(expr):
        src = f'''extern "C" __global__ void k(unsigned *o) {{
            unsigned x = o[threadIdx.x];
            o[threadIdx.x] = {expr};
        }}'''
        _, res = run(src, "k", 1, 32, [np.arange(32, dtype=np.uint32)], sanitize=False)
        return res.metrics["simt__alu_pipe_slots.sum"]
    base = alu("x + 3u")
    assert alu("__funnelshift_l(x, x, 7)") == alu("__byte_perm(x, 0u, 0x0123)") == alu("x ^ 3u") == base + 1
    assert alu("__dp4a(x, x, 0u)") == base          # IDP.4A: the FMA pipe


def test_block_spans_follow_sorted_keys_and_not_random_ones():
    """counters.block_spans: atomicMax into sorted segments (probe/seg-max's pattern: a
    segment every 4 blocks here) spans one word a block and a word more every 4 blocks;
    random bins span the whole table in every block and do not grow with the block."""
    src = r'''extern "C" __global__ void k(const int *seg, const int *v, int *m, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) atomicMax(&m[seg[i]], v[i]);
    }'''
    n, rng = 64 * 32, np.random.default_rng(3)

    def spans(seg):
        _, res = run(src, "k", n // 64, 64, [seg.astype(I32), np.arange(n, dtype=I32),
                                               np.zeros(1024, I32), np.int32(n)], sanitize=False)
        m = res.metrics
        return (m["simt__l2_region_block_span_bytes.max"], m["simt__l2_region_span_per_block.max"],
                m["simt__l2_region_span_bytes.max"])

    own, slope, whole = spans(np.arange(n) // 256)          # 8 segments, 4 blocks each
    assert own == 4 and slope == pytest.approx(4 / 4, rel=0.15) and whole == 8 * 4 - 3
    own, slope, whole = spans(rng.integers(0, 1024, n))
    assert own > 3000 and slope < 0.05 * own and whole > 4000
    # nearly sorted keys (a counting sort's scatter, timing_investigation/sortscatter/): four
    # words a block, and one lane in 16 a row of cells (1 KiB) further on, which a block
    # reaches too.  The bulk of each warp's lanes moves 16 bytes a block, and so does the slope
    i = np.arange(n)
    own, slope, whole = spans(i // 16 + np.where(i % 16 == 5, 256, 0))
    assert own == 1024 + 12 + 4 and slope == pytest.approx(16, rel=0.05) and whole > 1024


@pytest.mark.parametrize("unrolled, load, partial", [(False, False, 5 * 18), (True, False, 0), (True, True, 5 * 18)])
def test_partial_sectors_of_stores_a_loop_trip_apart(unrolled, load, partial):
    """Lanes 24 bytes apart share sectors: L1 merges such stores back to back (a loop nvcc
    unrolls fully), but a loop trip apart each request's partial sectors reach L2 one by
    one (timing_investigation/wmerge/): 24 sectors in 6 lines, 18 beyond a line's first,
    on each trip after the first.  An unrolled loop whose trips load from global memory
    between their stores does not merge them either (unseen229/notes.md: quant-sr-int8's
    err stores, each behind the next element's loads)."""
    bound = "6" if unrolled else "k"
    value = "in[t * 6 + f] + 1.0f" if load else "(float)(t + f)"
    src = f'''extern "C" __global__ void rec(float *out, const float *in, int k) {{
        int t = threadIdx.x;
        for (int f = 0; f < {bound}; ++f) out[t * 6 + f] = {value};
    }}'''
    src_in = np.arange(32 * 6, dtype=np.float32)
    (out, _, _), res = run(src, "rec", 1, 32, [np.zeros(32 * 6, np.float32), src_in, np.int32(6)], sanitize=False)
    want = src_in + 1 if load else (np.arange(32)[:, None] + np.arange(6)).ravel()
    assert (out == want).all()
    assert res.metrics["simt__l2_partial_sectors_st.sum"] == partial


@pytest.mark.parametrize("ctype, k, partial", [
    ("float", 8, 24),            # lanes 32 bytes apart: 8 lines, 32 sectors, 24 beyond a line's first
    ("float", 16, 16),           # 64 bytes apart: 16 lines, 2 sectors each
    ("float", 32, 0),            # 128 bytes apart: a sector a line, nothing beyond it
    ("float", 4, 0),             # 16 bytes apart: two lanes a sector, which L1 merges
    ("unsigned char", 32, 24),   # bytes 32 apart, as probe/huffman-decode writes
    ("double", 4, 24),           # 8-byte fields 32 bytes apart
])
def test_partial_sectors_of_stores_whose_lanes_each_have_a_sector(ctype, k, partial):
    """A warp's store whose lanes each write part of a sector of their own reaches L2 as its
    partial sectors one by one (timing_investigation/wmerge/): counted beyond the first of
    each line, per store instruction, for a record of k fields written field by field."""
    src = f'''extern "C" __global__ void k({ctype} *out) {{
        int t = threadIdx.x;
        #pragma unroll
        for (int f = 0; f < {k}; ++f) out[t * {k} + f] = ({ctype})(t + f);
    }}'''
    dt = {"float": np.float32, "unsigned char": np.uint8, "double": np.float64}[ctype]
    out = np.zeros(32 * k, dt)
    _, res = run(src, "k", 1, 32, [out], sanitize=False)
    assert res.metrics["simt__l2_partial_sectors_st.sum"] == k * partial
    half = np.zeros(32 * k, dt)                     # 16 lanes: half the sectors, as many a lane
    src16 = src.replace("int t = threadIdx.x;", "int t = threadIdx.x; if (t >= 16) return;")
    _, res = run(src16, "k", 1, 32, [half], sanitize=False)
    lines = max(1, 16 * k * dt().itemsize // 128)
    assert res.metrics["simt__l2_partial_sectors_st.sum"] == (k * (16 - lines) if partial else 0)


@pytest.mark.parametrize("span, gpu_lo, slices", [
    (1024, 0, 2),            # a kilobyte on a kilobyte boundary: lines 0,1,4,5 and 2,3,6,7
    (1024, 512, 4),          # the same 512 bytes on: two kilobytes, two pairs
    (512, 0, 2), (256, 0, 1), (4096, 0, 8), (16384, 0, 32),
    (1024, None, 2), (512, None, 1),   # of unknown place: a slice per 512 bytes
    (1 << 20, 0, counters.L2_SLICES),
])
def test_region_slices_follow_l2s_hash(span, gpu_lo, slices):
    assert counters.region_slices(0, span - 1, gpu_lo) == slices


def test_allocations_are_placed_as_cupys_pool_places_them():
    """A 32-byte array then 1 KiB of cursors, as probe/partition8-atomic allocates them:
    the cursors sit 512 bytes into their page on the GPU (unseen49/alignment_h200.txt), so
    8 counters 128 bytes apart reach four slices; large arrays start a 2 MiB page and
    module variables have no place in the pool."""
    from simt.memory import Device
    d = Device()
    d.malloc(8 << 20)                    # keys
    d.malloc(32)                         # bucket starts
    d.malloc(1024)                       # cursors
    d.malloc(8 << 20)                    # out
    d.malloc(0)                          # an empty array takes nothing
    d.malloc(100)
    d.malloc(4, "__device__ x", pool=False)
    assert d.gpu_offsets == [0, 0, 512, 0, 1536, 1536, None]
    src = '''extern "C" __global__ void k(const int *first, int *cur, int *out) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        out[i] = atomicAdd(&cur[32 * (i & 7)], 1);
    }'''
    for first, slices in ((8, 4), (256, 2)):        # 32 bytes before the cursors, or 1 KiB
        args = [np.zeros(first, I32), np.zeros(256, I32), np.zeros(2048, I32)]
        _, res = run(src, "k", 8, 256, args, sanitize=False)
        # 2048 lanes on 8 words: the busiest slice takes all of its words' lanes
        assert res.metrics["simt__l2_slice_transactions.max"] == 2048 // slices, first


def test_l1_is_split_among_the_blocks_an_sm_holds():
    """A block keeps lines in its share of the SM's L1: 256 KiB less the smallest shared
    carveout that holds the resident blocks' shared memory and reserved KiB, over those
    blocks (spmv-jds's eight blocks an SM, timing_investigation/jds/)."""
    assert counters.l1_keep_lines(1, 0) == (256 - 8) * 1024 // 128        # 1 KiB reserved: 8 KiB carveout
    assert counters.l1_keep_lines(8, 0) == 248                            # 248 KiB over 8 blocks
    assert counters.l1_keep_lines(2, 48 * 1024) == (256 - 100) * 8 // 2   # 98 KiB: the 100 KiB carveout
    assert counters.l1_keep_lines(32, 0) == 56                            # whole sets of 4 ways
    src = r'''extern "C" __global__ void k(float *o) { o[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }'''
    mod = simt.Module.from_source(src, "t.cu")
    dev = simt.Device()
    for grid, block, lines in [(132, 256, 1984), (132 * 8, 256, 248), (132 * 4, 1024, 992), (264, 1024, 992)]:
        out = dev.to_device(np.zeros(grid * block, np.float32))
        launch = mod.get_function("k").prepare(dev, simt.LaunchConfig.of(grid, block, 0), [out], gpu="h200")
        assert launch.counters.l1_keep_lines == lines, (grid, block)


def test_a_fully_unrolled_loops_trips_find_in_l1_only_what_l1_kept():
    """A loop nvcc unrolls fully is separate loads in SASS: a lane's sector from the
    trip before is in L1 only if L1 kept it, where a loop it runs trip by trip hits there
    (staggered-dslash reads each 72-byte link in three unrolled trips while the SM's
    other warps read theirs: Nsight counts 63% of its load sectors as L1 hits, 29% with
    48 KiB of L1, timing_investigation/dslash/).  Each trip here reads the lane's own
    sector again and a new line far away; 200 KiB of shared memory leave the block 224
    lines of L1 for its 512 lanes' 1024 lines a trip."""
    def lines_to_l2(trips):
        src = f'''extern "C" __global__ void k(const float *x, const float *y, float *out, int n) {{
            extern __shared__ float pad[];
            int t = threadIdx.x;
            float s = 0.0f;
            for (int i = 0; i < {trips}; ++i) s += x[t * 64 + (i & 3)] + y[(i * 512 + t) * 32];
            pad[t] = s;
            out[t] = pad[t];
        }}'''
        _, res = run(src, "k", 1, 512, [np.ones(512 * 64, np.float32), np.ones(8 * 512 * 32, np.float32),
                                        np.zeros(512, np.float32), I32(8)], shared=200 * 1024, sanitize=False)
        return res.metrics["simt__l2_lines_ld.sum"]

    # trip by trip: x's sector hits on most trips (the first misses, and one where the
    # warp, at its loads in flight, waited past the last trip's value: Machine.ld_dep)
    assert lines_to_l2("n") <= 2 * 512 + 8 * 512
    assert lines_to_l2("8") == 8 * 512 + 8 * 512     # unrolled: evicted by y's lines each time


@pytest.mark.parametrize("pragma", ["", "#pragma unroll 1"])
def test_a_loop_kept_trip_by_trip_finds_in_l1_only_what_l1_kept(pragma):
    """A lane's own row read a float a trip: where nvcc unrolls the loop by four, a group's
    trips go out together and meet the sector the lane asked for (a miss a sector); under
    ``#pragma unroll 1`` the SM's other warps touch their rows between two trips, so the
    sector stays only if L1 keeps them all.  Nsight counts 37% of the load sectors as L1
    hits at 16 and 64 warps an SM, and 0.2-4% with three rows a lane
    (timing_investigation/urow/).  200 KiB of shared memory leave the block 224 lines of
    L1 for its 512 lanes' rows."""
    src = f'''extern "C" __global__ void k(const float *x, float *out, int n) {{
        extern __shared__ float pad[];
        int t = threadIdx.x;
        float s = 0.0f;
        {pragma}
        for (int i = 0; i < n; ++i) s += x[t * 32 + i];
        pad[t] = s;
        out[t] = pad[t];
    }}'''
    (_, out, _), res = run(src, "k", 1, 512, [np.ones(512 * 32, np.float32), np.zeros(512, np.float32), I32(16)],
                           shared=200 * 1024, sanitize=False)
    assert out.tolist() == [16.0] * 512
    lines = res.metrics["simt__l2_lines_ld.sum"]
    if not pragma:
        assert lines == 2 * 512                    # each lane's two sectors once
    else:
        assert lines > 0.5 * 16 * 512              # most trips miss


def test_the_busiest_chain_is_the_longest_not_the_one_with_most_lanes():
    """An integer count and a float sum on the same cell, as a histogram with weights: the
    two words get as many lanes, and the float one's chain takes 2.4 times as long
    (FP_CHAIN_COST), so it is the one reported; with the integer word busier by more than
    that, the integer one is."""
    src = '''extern "C" __global__ void k(const int *cell, unsigned *cnt, float *sum, int extra) {
        int c = cell[blockIdx.x * blockDim.x + threadIdx.x];
        atomicAdd(&cnt[c], 1u);
        atomicAdd(&sum[c], 0.5f);
        for (int e = 0; e < extra; ++e) atomicAdd(&cnt[c], 1u);
    }'''
    cell = (np.arange(512) % 64).astype(I32)         # lane l on cell l % 64: 8 lanes a cell
    (_, cnt, s, _), res = run(src, "k", 2, 256, [cell, np.zeros(64, np.uint32), np.zeros(64, np.float32),
                                                  I32(0)], sanitize=False)
    assert cnt.tolist() == [8] * 64 and s.tolist() == [4.0] * 64
    assert res.metrics["simt__global_atomic_hot_address_lanes.max"] == 8
    assert res.metrics["simt__global_atomic_hot_fp_lanes.max"] == 8
    (_, cnt, _, _), res = run(src, "k", 2, 256, [cell, np.zeros(64, np.uint32), np.zeros(64, np.float32),
                                                 I32(2)], sanitize=False)
    assert cnt.tolist() == [24] * 64
    assert res.metrics["simt__global_atomic_hot_address_lanes.max"] == 24
    assert res.metrics["simt__global_atomic_hot_fp_lanes.max"] == 0


@pytest.mark.parametrize("k, bound, own, shared, partial", [
    # 9 floats 36 bytes apart (a sector a lane): 1152 bytes, 9 lines a request, each
    # request after the first shares all 9 with the one before, and every request's
    # partial sectors (32 in 9 lines: 23 beyond a line's first) are saved
    (9, "9", 8 * 9, 0, 9 * 23),
    (6, "6", 0, 5 * 6, 0),         # 6 floats 24 bytes apart: lanes share sectors, 6 lines
    (12, "12", 0, 0, 0),           # 48 bytes apart: 12 lines a request, never merged
    (9, "k", 0, 0, 0),             # a loop nvcc keeps: the stores a trip apart
])
def test_back_to_back_stores_count_what_merging_would_save(k, bound, own, shared, partial):
    """A warp's store requests of at most counters.MERGE_LINES lines that follow its
    previous store straight away send L2, when L1 merges them, only the lines the previous
    one did not touch and none of the partial sectors (timing_investigation/smerge/)."""
    src = f'''extern "C" __global__ void rec(float *out, int k) {{
        int t = threadIdx.x;
        #pragma unroll
        for (int f = 0; f < {bound}; ++f) out[t * {k} + f] = (float)(t + f);
    }}'''
    (out, _), res = run(src, "rec", 1, 32, [np.zeros(32 * k, np.float32), np.int32(k)], sanitize=False)
    assert (out.reshape(32, k) == np.arange(32)[:, None] + np.arange(k)).all()
    m = res.metrics
    assert m.get("simt__l2_st_merge_own_lines.sum", 0) == own
    assert m.get("simt__l2_st_merge_lines.sum", 0) == shared
    assert m.get("simt__l2_st_merge_partial_sectors.sum", 0) == partial


def test_stores_merge_only_where_other_work_spaces_them_out():
    """Nine floats 36 bytes apart after S sinf steps (timing_investigation/smerge/ on the
    H200: 0.68 ms at S = 16, stores unmerged; 0.41 at S = 48, merged and issue-bound):
    the store lines' time stays whole where the stores are the work, and nearly all of it
    goes where the issue slots take more than MERGE_BUSY_HI of it."""
    from simt import timing
    prof = timing.load_profile("h200")
    l2 = {}
    for s in (16, 48):
        src = f'''extern "C" __global__ void rec(float *out, int n) {{
            int c = blockIdx.x * blockDim.x + threadIdx.x;
            if (c >= n) return;
            float v = c * 1e-3f;
            #pragma unroll 1
            for (int t = 0; t < {s}; ++t) v = sinf(v) + 1.0f;
            #pragma unroll
            for (int f = 0; f < 9; ++f) out[(size_t)c * 9 + f] = v + f;
        }}'''
        n = 1 << 23
        _, res = run(src, "rec", n // 256, 256, [np.zeros(9 * n, np.float32), np.int32(n)],
                     sanitize=False, sample_blocks=16)
        p = timing.predict_result(res, prof)
        l2[s] = p.components_us["l2_lines"]
        assert p.bound == ("l2_lines" if s == 16 else "issue")
    assert l2[48] < 0.1 * l2[16]
    assert timing.store_merge_share(0.2) == 0 and timing.store_merge_share(0.6) == 1
    assert 0 < timing.store_merge_share(0.6, timing.MERGE_SHARED_HI) < 1


# a lane a count: c[idx[i]] += 1
ADD_AT = '''extern "C" __global__ void k(int *c, const int *idx) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&c[idx[i]], 1);
}'''


@pytest.mark.parametrize("words, stride, uneven", [(256, 32, 3.0), (32768, 32, 1.0), (256, 1 << 14, None)])
def test_hot_lines_past_16_kib_fall_unevenly_on_the_gpu_slices(words, stride, uneven):
    """Past 16 KiB the GPU's slice hash repeats a 16 KiB pattern of 32 slices over each
    32 KiB chunk (counters.gpu_slice): 2^24 lanes on 256 hot lines over 32 KiB put 3 times
    the even share (of 64 slices) on the busiest slice, and spread over 4 MiB 1.04 times
    (Nsight, timing_investigation/fchain/); 256 lines at random over 64 MiB fall as
    balls in 96 bins (2.3 times).  A thin sample of scattered lanes makes up none."""
    rng = np.random.default_rng(1)
    n = 1 << 15
    if uneven is None:
        hot = rng.choice(1 << 12, words, replace=False) * stride
    else:
        hot = np.arange(words) * stride
    idx = hot[rng.integers(0, words, n)].astype(I32)
    (c, _), res = run(ADD_AT, "k", n // 256, 256, [np.zeros(int(hot.max()) + 1, I32), idx], sanitize=False)
    assert c.sum() == n and (np.bincount(idx, minlength=len(c)) == c).all()
    got = res.metrics["simt__l2_slice_transactions.max"] / (n / counters.L2_SLICES)
    if uneven is None:
        # (each of 96 slices holds 2.7 lines on average; the sample's busiest holds 5-8)
        assert 1.5 < got < 3.2
    elif uneven > 1:
        # the busiest of 32 slices, less three standard deviations of its 1024 lanes
        assert 2.6 < got <= 3.0
    else:
        assert got == pytest.approx(1.0, abs=0.02)


def test_a_hot_words_chain_is_not_also_piled_on_its_slice():
    """Half the lanes, whole warps at a time, add to one word of a 128 KiB region and the
    rest at random over it: the word's chain is priced by ``global_atomics`` and the GPU
    runs the slice's other atomics beside it (probe/sax-words-prefix-atomic: 1.04 so,
    2.03 with the word's lanes on its slice too), so the busiest slice takes the spread
    lanes' uneven share (1.5 times the even share over 128 KiB), not half the launch.
    (Up to 64 KiB ``busiest_slice_share`` would take the word's 512 bytes as one slice's.)"""
    rng = np.random.default_rng(2)
    n = 1 << 15
    idx = rng.integers(0, 1 << 15, n).astype(I32)
    warps = idx.reshape(-1, 32)
    warps[rng.random(len(warps)) < 0.5] = 5                  # whole warps on word 5
    (c, _), res = run(ADD_AT, "k", n // 256, 256, [np.zeros(1 << 15, I32), idx], sanitize=False)
    assert (np.bincount(idx, minlength=len(c)) == c).all()
    m = res.metrics
    # (the chain is the sector's: a few random lanes share word 5's sector)
    assert (idx == 5).sum() <= m["simt__global_atomic_hot_address_lanes.max"] <= (idx // 8 == 0).sum()
    got = m["simt__l2_slice_transactions.max"] / (n / counters.L2_SLICES)
    assert 1.2 < got < 2.0


def _drifting(n, hot, num, den, rng):
    """fchain3's pattern: block b's lanes on ``hot`` lines (a word each) of a window that
    starts at line b * num / den."""
    b = np.arange(n) // 256
    return ((((b * num) // den) + rng.integers(0, hot, n)) * 32).astype(I32)


@pytest.mark.parametrize("num, den, lo, hi, coupled", [(1, 16, 2.4, 3.4, 1), (16, 1, 0.95, 1.15, 0)])
def test_hot_lines_that_drift_with_the_block_index_cost_by_the_resident_blocks_slices(num, den, lo, hi, coupled):
    """64 hot lines a block, in a window that moves a sixteenth of a line a block: the
    2112 blocks on the GPU at once (twice 132 SMs x 8) share about 200 lines, 25 KiB,
    which the GPU's slices take at 3 times the even share, though the whole launch's
    busiest slice holds 1.15 times it (the H200 took 2.75 times what that costs;
    timing_investigation/fchain/, fchain3).  A sampled grid's runs of 8 blocks see 64
    lines; how far apart runs still share them gives the rest (simt.slicewin).  Moving
    16 lines a block, the resident blocks spread over 4 MiB, 530 runs' worth of lines:
    about the even share either way, and the launch's rule prices it."""
    rng = np.random.default_rng(3)
    n = 1 << 22
    idx = _drifting(n, 64, num, den, rng)
    (c, _), res = run(ADD_AT, "k", n // 256, 256, [np.zeros(int(idx.max()) + 1, I32), idx],
                      sanitize=False, sample_blocks=512)
    got = res.metrics["simt__l2_slice_transactions.max"] / (n / counters.L2_SLICES)
    assert lo < got < hi
    assert res.metrics["simt__l2_region_windowed.max"] == coupled


ADD_AT3 = '''extern "C" __global__ void k(int *a, int *b, int *c, const int *idx) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&a[idx[i]], 1);
    atomicAdd(&b[idx[i]], 1);
    atomicAdd(&c[idx[i]], 1);
}'''


def test_three_arrays_hot_on_the_same_drifting_lines_add_their_even_shares_and_one_excess():
    """The drift of the test above in three arrays at once (a well's three totals,
    probe/peaceman-wells-atomic): each array's window puts 2.4-3.4 times its even share on
    its busiest slice, but the three arrays' hot lines hash to different slices, so the
    busiest slice holds every array's even share and one array's excess, not three
    arrays' busiest (that made the probe 2.24 times too slow; unseen177/)."""
    rng = np.random.default_rng(3)
    n = 1 << 22
    idx = _drifting(n, 64, 1, 16, rng)
    size = int(idx.max()) + 1
    got = []
    for src, arrays in ((ADD_AT, 1), (ADD_AT3, 3)):
        _, res = run(src, "k", n // 256, 256, [np.zeros(size, I32) for _ in range(arrays)] + [idx],
                          sanitize=False, sample_blocks=512)
        assert res.metrics["simt__l2_region_windowed.max"] == 1
        got.append(res.metrics["simt__l2_slice_transactions.max"] / (n / counters.L2_SLICES))
    one, three = got
    assert 2.4 < one < 3.4
    assert 2.0 + 2.4 < three < 2.0 + 3.4
    assert three - one == pytest.approx(2.0, abs=0.4)


def test_a_whole_grid_is_priced_window_by_window():
    """Emulated whole, each window of resident blocks counts its own busiest slice: two
    windows of 16 blocks, each on 64 lines (16 KiB) of its own 32 KiB chunk, put 3 times
    the even share on their busiest slice, where the launch's two chunks together take 1.5
    (less three standard deviations of the busiest slice's 800 transactions, each)."""
    halves = np.repeat(np.arange(8), 64)                    # 4 half-runs (16 blocks) a window
    lines = np.tile(np.arange(64), 8) + 128 * (halves >= 4)
    w = np.full(len(lines), 100.0)
    at = lambda x: counters.gpu_slice(x)
    top = 800 - 3 * np.sqrt(800)
    got, _ = slicewin.window_share(halves, lines, w, None, 16, at, counters.GPU_SLICES)
    assert got == pytest.approx(top / (w.sum() / 2 / 96))
    whole, _ = slicewin.window_share(halves, lines, w, None, 32, at, counters.GPU_SLICES)
    assert whole == pytest.approx(top / (w.sum() / 96))


def test_turnover_reads_how_far_apart_runs_still_share_their_lines():
    """Pairs at distances d sharing max(0, 1 - d / 1024) of their weight: L = 1024."""
    pairs = [(d, 1000.0 * max(0.0, 1 - d / 1024), 1000.0) for d in (4, 300, 700, 2000)]
    assert slicewin.turnover(pairs) == pytest.approx(1024, rel=1e-3)
    assert slicewin.turnover([(4, 10.0, 10.0)]) == float("inf")
    assert slicewin.turnover([(4, 0.0, 10.0)]) == 0.5
