"""The constant cache's misses when a loop reads several __constant__ tables a trip
(simt.constcache; measured in docs/results/timing_investigation/cmiss/ on the H200)."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import simt
from simt import constcache, timing
from simt import counters as C

SMS, BLOCKS_PER_SM = 132, 8
ROOT = Path(__file__).resolve().parents[1]


def _cmiss():
    """docs/results/timing_investigation/cmiss/cmiss.py, whose kernels the GPU timed."""
    spec = importlib.util.spec_from_file_location("cmiss", ROOT / "docs/results/timing_investigation/cmiss/cmiss.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(k: int, layout: str, blocks_per_sm: int = BLOCKS_PER_SM):
    """Emulate 512 trips over the tables' first 512 words (2 KB a table) on a grid of
    blocks_per_sm blocks of 256 an SM; the launch and the H200's prediction."""
    # a trip reads word j of k tables, 4 KB apart ("sep") or as k-word records of one
    # table ("rec"), by an index nvcc keeps in a vector register
    f = simt.Module.from_source(_cmiss().src(k, layout), "c.cu").get_function("walk")
    dev = simt.Device()
    grid = SMS * blocks_per_sm
    out = dev.zeros(grid * 256, np.uint32)
    r = f.launch(dev, simt.LaunchConfig.of(grid, 256), [out, np.int32(512), np.int32(511)],
                 sanitize=False, sample_blocks=2)
    prof = timing.load_profile("h200")
    return r, timing.predict_result(r, prof), prof


def _cycles_per_pass(r, p, prof) -> float:
    return p.components_us["constant"] * SMS * prof.clock_ghz * 1e3 / r.metrics[C.CONST_PASSES]


def test_seven_tables_a_trip_cost_what_the_h200_measured():
    """Seven tables 4 KB apart walked over 2 KB each (probe/acl-first-match-const's
    layout): 17.0 SM cycles a pass at 64 warps an SM (cmiss_h200.jsonl), where one table's
    words cost 2.0; at 8 warps an SM 0.67 of the extra (12.7 measured)."""
    r, p, prof = _run(7, "sep")
    assert r.metrics[C.CONST_MISS_STREAMS] == 7
    assert r.metrics[C.CONST_MISS_CYCLES] == pytest.approx(r.metrics[C.CONST_PASSES] * 15.0, rel=1e-6)
    assert _cycles_per_pass(r, p, prof) == pytest.approx(2.0 + 15.0 * constcache.miss_share(64, 7), abs=0.01)
    assert 16.9 < _cycles_per_pass(r, p, prof) < 17.1
    r8, p8, _ = _run(7, "sep", blocks_per_sm=1)
    assert 11.5 < _cycles_per_pass(r8, p8, prof) < 13.0


def test_the_same_words_as_records_of_one_table_do_not_miss():
    """The seven words of a trip adjacent, in one table of 7-word records: one stream,
    2.0-2.2 cycles a pass measured at every size; no miss counter."""
    r, p, prof = _run(7, "rec")
    assert C.CONST_MISS_CYCLES not in r.metrics
    assert _cycles_per_pass(r, p, prof) == pytest.approx(timing.CONST_PASS_CYCLES)


def test_extra_cycles_follow_the_measured_table():
    assert constcache.extra_cycles(1, 4096) == 0.0
    assert constcache.extra_cycles(2, 4096) == 0.0            # 2.2 measured: the base
    assert constcache.extra_cycles(4, 256) == 0.0
    assert constcache.extra_cycles(7, 2048) == pytest.approx(15.0)
    assert constcache.extra_cycles(5, 256) == pytest.approx(2.1)
    assert constcache.extra_cycles(5, 64) == pytest.approx(2.1)      # held below 256 B
    assert constcache.extra_cycles(3, 1024) == pytest.approx((5.5 - 2.0) * 2 / 3)   # 2/3 of the way in log2
    assert constcache.extra_cycles(12, 2048) == constcache.extra_cycles(8, 2048)


def test_fewer_warps_an_sm_miss_less():
    """cmiss_warps_h200.jsonl: 3-4 streams miss nothing at 8 warps an SM, most at 32."""
    assert constcache.miss_share(8, 3) == 0.0
    assert constcache.miss_share(8, 4) == 0.0
    assert 0.5 < constcache.miss_share(16, 4) < 0.8
    assert constcache.miss_share(64, 3) > 0.95


def test_tables_read_once_outside_a_loop_do_not_miss():
    """Five tables read once a thread, outside any loop: each warp reads each word once,
    nothing walks the tables, and no miss is counted."""
    decl = "\n".join(f"__constant__ unsigned int c_t{t}[1024];" for t in range(5))
    src = decl + '''
extern "C" __global__ void once(unsigned int *out) {
    int j = threadIdx.x >> 10;
    out[blockIdx.x * blockDim.x + threadIdx.x] = c_t0[j] ^ c_t1[j] ^ c_t2[j] ^ c_t3[j] ^ c_t4[j];
}'''
    f = simt.Module.from_source(src, "c.cu").get_function("once")
    dev = simt.Device()
    out = dev.zeros(SMS * 256, np.uint32)
    r = f.launch(dev, simt.LaunchConfig.of(SMS, 256), [out], sanitize=False, sample_blocks=2)
    assert r.metrics[C.CONST_PASSES] > 0
    assert C.CONST_MISS_CYCLES not in r.metrics


def test_tables_every_warp_reads_whole_each_trip_do_not_miss():
    """Three tables of eight species' rates (probe/leslie-double-shfl's layout), a lane's
    species its own, read whole on every trip of a loop nvcc keeps: each warp reads each
    word many times, the tables stay in the cache (2.0 cycles a pass on the H200, 592 M
    passes in 4.6 ms), and no miss is counted.  The same three tables walked a word a trip
    (each warp at its own place) are three streams that miss."""
    decl = "\n".join(f"__constant__ unsigned int c_t{t}[1024];" for t in range(3))   # 4 KB apart
    whole = decl + '''
extern "C" __global__ void k(unsigned int *out, int years) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int s = (t * 7) & 7;
    unsigned int a = 0;
    for (int y = 0; y < years; y++) {
        #pragma unroll
        for (int k = 0; k < 12; k++) a += c_t0[s * 12 + k] ^ (c_t1[s * 12 + k] + a) ^ c_t2[s * 12 + k];
    }
    out[t] = a;
}'''
    # (an index nvcc keeps in a vector register, as cmiss/'s: threadIdx.x >> 10 is 0)
    walk = whole.replace("s * 12 + k", "(y * 12 + k + (threadIdx.x >> 10)) % 1024")
    dev = simt.Device()
    got = {}
    for name, src in (("whole", whole), ("walk", walk)):
        f = simt.Module.from_source(src, "c.cu").get_function("k")
        out = dev.zeros(SMS * 8 * 256, np.uint32)
        r = f.launch(dev, simt.LaunchConfig.of(SMS * 8, 256), [out, np.int32(24)], sanitize=False, sample_blocks=2)
        got[name] = r.metrics
    assert got["whole"][C.CONST_PASSES] > 0 and C.CONST_MISS_CYCLES not in got["whole"]
    assert got["walk"][C.CONST_MISS_STREAMS] == 3 and got["walk"][C.CONST_MISS_CYCLES] > 0
    assert constcache.reuse({0: [np.array([1, 2, 1, 2]), np.array([1, 2])], 1: []}) == {0: 3.0}


@pytest.mark.parametrize("nbytes, lo, hi", [(1024, 1.9, 2.1), (4096, 8.0, 12.0), (16384, 24.0, 32.0)])
def test_one_table_read_at_scattered_words_misses_past_the_cache(nbytes, lo, hi):
    """cscat.cu (the kernel the H200 timed, docs/results/timing_investigation/cscat/): 32
    hashed words a request of one table.  Measured SM cycles a pass: 1.9 at 1 KB, 10.1 at
    4 KB, 28.3 at 16 KB, whatever the warps an SM; simt's passes cost 2 plus ``MISS_CYCLES``
    times the share outside the ``CACHE_LINES`` lines kept (none up to 3 KB)."""
    src = (ROOT / "docs/results/timing_investigation/cscat/cscat.cu").read_text()
    f = simt.Module.from_source(src, "cscat.cu").get_function("cscat")
    dev = simt.Device()
    grid = SMS * BLOCKS_PER_SM
    out = dev.zeros(grid * 256, np.float32)
    r = f.launch(dev, simt.LaunchConfig.of(grid, 256), [out, np.int32(64), np.int32(nbytes // 4 - 1), np.int32(0)],
                 sanitize=False, sample_blocks=2)
    prof = timing.load_profile("h200")
    p = timing.predict_result(r, prof)
    assert lo < _cycles_per_pass(r, p, prof) < hi
    assert (C.CONST_SCATTER_CYCLES in r.metrics) == (nbytes > 4 * constcache.CACHE_LINES * 16)


def test_scattered_passes_are_those_off_the_lines_the_warp_read_last_time():
    """A warp walking a table line by line (its next read on the line it read or the next
    one) does not count as scattered, whatever the table's size; one jumping does."""
    lines = {0: (0, np.full(1024, 10.0)), 1: (0, np.full(1024, 10.0))}
    walk = [np.array([(3 << 32) | (t * 16)]) for t in range(200)]        # 4 bytes a trip
    jump = [np.array([(3 << 32) | ((t * 977) % 1024 * 64)]) for t in range(200)]
    got = constcache.scatter_miss({0: walk, 1: jump}, lines, {0: 7, 1: 7})
    assert 0 not in got
    # (the launch's 48 most-read lines of 1024 kept)
    assert got[1] == pytest.approx(1 - constcache.CACHE_LINES / 1024, rel=1e-9)
    # a warp's lanes on 32 scattered lines at once: scattered, though some come back
    wide = [np.array([(3 << 32) | ((t * 31 + k * 67) % 1024 * 64) for k in range(32)]) for t in range(50)]
    assert constcache.scatter_miss({0: wide}, lines, {0: 7})[0] == pytest.approx(1 - constcache.CACHE_LINES / 1024)
    # read once a warp, outside a loop, at scattered lines: scattered
    once = [np.array([(w << 32) | (w * 977 % 1024 * 64)]) for w in range(50)]
    assert constcache.scatter_miss({0: once}, lines, {0: None})[0] == pytest.approx(1 - constcache.CACHE_LINES / 1024)
    # ... unless an earlier load of the run read the line (simt.constrecord): those hit
    half = {0: {w: np.array([w % 2 == 0]) for w in range(50)}}
    assert constcache.scatter_miss({0: once}, lines, {0: None}, half)[0] == \
        pytest.approx(0.5 * (1 - constcache.CACHE_LINES / 1024))
