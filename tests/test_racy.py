"""Racy plain read-modify-writes of a small region: L1 merges the stores of a block's warps
to a sector, and the loads miss L1 after other warps' stores (simt.racy,
docs/results/timing_investigation/racy5/)."""
import numpy as np
import pytest

import simt
from simt import racy, timing

RMW = '''extern "C" __global__ void rmw(const T *data, int *hist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) hist[data[i] & 255]++;
}'''


def _launch(dtype, bins, block=256):
    src = RMW.replace("T", {np.uint8: "unsigned char", np.uint32: "unsigned int"}[dtype])
    mod = simt.Module.from_source(src, "racy.cu")
    dev = simt.Device()
    data = dev.to_device(bins.astype(dtype))
    hist = dev.to_device(np.zeros(256, np.int32))
    n = len(bins)
    res = mod.get_function("rmw").launch(dev, simt.LaunchConfig.of(-(-n // block), block),
                                         [data, hist, np.int32(n)], sanitize=False)
    return res.metrics


def _expected(bins, group, block=256):
    """By hand: distinct (block, sector) pairs; distinct (group of warps, sector) pairs of
    the sectors two or more warps of a block store to."""
    warp = np.arange(len(bins)) // 32
    sec = bins.astype(np.int64) * 4 // 32
    blk = warp // (block // 32)
    pairs = set(zip(blk.tolist(), sec.tolist()))
    warps_on = {}
    for b, w, s in zip(blk.tolist(), warp.tolist(), sec.tolist()):
        warps_on.setdefault((b, s), set()).add(w)
    shared = {(w // group, s) for b, w, s in zip(blk.tolist(), warp.tolist(), sec.tolist())
              if len(warps_on[(b, s)]) > 1}
    return len(pairs), len(shared)


@pytest.mark.parametrize("dtype, group", [(np.uint8, 4), (np.uint32, 1)])
def test_sends_and_misses_are_counted_per_block_and_per_arrival_group(dtype, group):
    bins = np.random.default_rng(3).integers(0, 256, 4096)
    m = _launch(dtype, bins)
    sends, pairs = _expected(bins, group)
    # 1 KiB of bins on a kilobyte boundary: two L2 slices share the work
    assert m["simt__l2_slice_transactions.max"] == round(sends / 2)
    assert m["simt__l2_slice_racy_misses.max"] == round(racy.MISS_PER_GROUP_SECTOR * pairs / 2)
    assert m["simt__racy_store_warps.sum"] == 4096 // 32


def test_one_byte_data_miss_less_than_int_data():
    """Four warps read one line of bytes and store together: the loads that follow miss
    a quarter as often as with int data, where each warp's data come alone."""
    bins = np.random.default_rng(4).integers(0, 256, 8192)
    u8, i32 = _launch(np.uint8, bins), _launch(np.uint32, bins)
    assert u8["simt__l2_slice_transactions.max"] == i32["simt__l2_slice_transactions.max"]
    assert u8["simt__l2_slice_racy_misses.max"] < 0.5 * i32["simt__l2_slice_racy_misses.max"]


def test_lone_warps_and_whole_sectors_do_not_merge_or_miss():
    """Each warp on its own line (no sector shared within a block): every sector is a send
    and no load misses."""
    bins = (np.arange(4096) // 32 % 8) * 32 + np.arange(4096) % 32
    m = _launch(np.uint32, bins)
    assert m.get("simt__l2_slice_racy_misses.max", 0) == 0
    # 8 warps of 4 sectors a block, all distinct within it: 16 blocks x 32 sectors / 2 slices
    assert m["simt__l2_slice_transactions.max"] == 16 * 8 * 4 // 2


def test_arrival_groups():
    base = 1 << 20
    lanes = np.arange(32)
    # 8 warps of bytes, two blocks of four: one line a block
    mat = base + np.arange(8)[:, None] * 32 + lanes
    act = np.ones(mat.shape, bool)
    ranks = np.repeat([0, 1], 4)
    assert racy.arrival_groups(mat, act, ranks).tolist() == [0, 0, 0, 0, 4, 4, 4, 4]
    # ints: a line a warp; 8-byte elements: two lines a warp, none shared
    assert racy.arrival_groups(base + np.arange(8)[:, None] * 128 + 4 * lanes, act, ranks).tolist() == list(range(8))
    assert racy.arrival_groups(base + np.arange(8)[:, None] * 256 + 8 * lanes, act, ranks).tolist() == list(range(8))
    # one channel of 3-byte pixels: four warps read three lines, each sharing one with the next
    assert racy.arrival_groups(base + np.arange(8)[:, None] * 96 + 3 * lanes, act,
                               np.zeros(8, int)).tolist() == [0, 0, 0, 0, 4, 4, 4, 4]
    # bins every block reads (four blocks here): not a data stream
    assert racy.arrival_groups(np.full(mat.shape, base), act, np.repeat([0, 1, 2, 3], 2)) is None
    # a warp across three lines
    assert racy.arrival_groups(base + np.arange(8)[:, None] * 512 + 16 * lanes, act, ranks) is None


def test_misses_wait_for_a_second_round_of_warps():
    """One wave, one element a thread: every bin load comes before any store on its SM."""
    assert racy.after_stores(256, 132 * 64) == 0.0
    assert racy.after_stores(524288, 132 * 64) == pytest.approx(1 - 8448 / 524288)


def test_the_misses_cost_the_slice_after_the_first_stores():
    prof = timing.load_profile("h200")
    m = {"simt__l2_slice_transactions.max": 1000, "simt__l2_slice_racy_misses.max": 500,
         "simt__racy_store_warps.sum": 1 << 19}
    few = timing._slice_us(m, prof, 1 << 24, 8192)          # 256 resident warps
    many = timing._slice_us(m, prof, 1 << 24, prof.sm_count * 2048)
    assert few == pytest.approx((1000 + 500 * racy.MISS_COST * (1 - 256 / (1 << 19))) * prof.l2_transaction_us)
    assert many < few
    assert timing._slice_us({**m, "simt__racy_store_warps.sum": 256}, prof, 8192, prof.sm_count * 2048) \
        == pytest.approx(1000 * prof.l2_transaction_us)
