"""Atomics that crowd one part of a region load its L2 slice, not the region's slices
evenly (simt.counters.Counters.busiest_slice_share; probe/orderbook-depth, unseen62/)."""
import numpy as np
import pytest

import simt
from simt import counters as C

SRC = '''extern "C" __global__ void k(const int *key, int *t, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&t[key[i]], 1);
}'''
WORDS = 4096                 # 16 KiB of counters


def _keys(sort: bool) -> np.ndarray:
    rng = np.random.default_rng(5)
    n = 1 << 15
    hot = rng.random(n) < 0.8                  # 80% on the first 64 words (256 bytes)
    key = np.where(hot, rng.integers(0, 64, n), rng.integers(0, WORDS, n))
    return np.sort(key) if sort else key


def _metrics(key):
    mod = simt.Module.from_source(SRC, "t.cu")
    dev = simt.Device()
    t = dev.to_device(np.zeros(WORDS, np.int32))
    res = mod.get_function("k").launch(dev, simt.LaunchConfig.of(len(key) // 256, 256),
                                       [dev.to_device(key.astype(np.int32)), t, np.int32(len(key))],
                                       sanitize=False)
    assert np.array_equal(t.get(), np.bincount(key, minlength=WORDS))
    return res.metrics


def test_keys_at_random_on_a_small_part_load_its_slice():
    m = _metrics(_keys(sort=False))
    total = m[C.SECT_RED]
    # 16 KiB on a kilobyte boundary: 32 slices; the first 256 bytes are in one of them
    # with about 80% of the lanes (and its share of the others)
    share = m["simt__l2_slice_transactions.max"] / total
    assert share == pytest.approx(0.8 + 0.2 / 32, abs=0.05)


def test_sorted_keys_keep_the_even_share():
    """Sorted keys: each block's atomics span a few words, so the sample's blocks do not
    show where the grid's fall; the region's slices share them evenly, as before."""
    m = _metrics(_keys(sort=True))
    assert m["simt__l2_slice_transactions.max"] == round(m[C.SECT_RED] / 32)
