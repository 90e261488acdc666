"""probe-unseen118's kernels (kernels_cuda/probes120.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/bitonic-kv-tile-smem", "probe/lower-bound-batch", "probe/radix-hist-digit-major",
       "probe/compact-block-scan", "probe/samplesort-bucket-smem", "probe/select-kth-rows-count"]


def copy(host):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in host]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen118"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes120.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 16
    # bitonic: float keys N(0, 1), the values their indices
    k, v, nn = tp._p120_bt_args(n, rng)
    assert k.dtype == np.float32 and v.dtype == np.int32 and (v == np.arange(n)).all() and nn == n
    assert abs(k.mean()) < 0.02 and abs(k.std() - 1) < 0.02
    assert tp.get(IDS[0]).grid(n) == n // 2048 and tp.get(IDS[0]).grid(n + 1) == n // 2048 + 1
    # lower-bound: a sorted array of 2n, half the queries hits, some below and above it all
    a, m, q, pos, nn = tp._p120_lb_args(n, rng)
    assert a.dtype == q.dtype == np.int32 and m == len(a) == 2 * n and nn == n and not pos.any()
    assert (np.diff(a) >= 0).all() and 0 <= a.min() and a.max() < tp.P120_LB_MAX
    hit = np.isin(q, a)
    assert abs(hit.mean() - tp.P120_LB_HIT) < 0.02
    p = tp._p120_lb_ref(a, q)
    assert (p == 0).any() and (p == m).any() and 0.3 < p.mean() / m < 0.7
    # radix-hist: 28-bit keys, the pass at bit 24 sees only 16 digits, evenly
    keys, counts, shift, nn = tp._p120_rh_args(n, rng)
    assert keys.dtype == np.uint32 and keys.max() < 1 << 28 and keys.max() >= 1 << 27 and shift == 24
    assert counts.dtype == np.uint32 and len(counts) == 256 * (n // 4096) and not counts.any()
    c = tp._p120_rh_ref(keys).reshape(256, -1)
    assert c.sum() == n and (c.sum(axis=0) == 4096).all() and c[16:].sum() == 0
    assert (c[:16] > 0).all() and c[:16].sum(axis=1).min() > 0.9 * n / 16
    # compact: ~31% of N(0, 1) above 0.5
    x, thr, ov, oi, cnt, nn = tp._p120_cs_args(n, rng)
    assert x.dtype == np.float32 and thr == np.float32(0.5) and (oi == -1).all() and cnt.tolist() == [0]
    assert 0.30 < len(tp._p120_cs_ref(x)) / n < 0.32
    # samplesort: 255 ascending splitters, buckets used about evenly
    keys, split, b, nn = tp._p120_ss_args(n, rng)
    assert split.dtype == np.float32 and len(split) == 255 and (np.diff(split) >= 0).all() and b.dtype == np.uint8
    sizes = np.bincount(tp._p120_ss_ref(keys, split), minlength=256)
    assert len(sizes) == 256 and sizes.min() > 0 and sizes.max() < 3 * n / 256
    # select: rows of 512 ints < 1000 with ties, the median's rank
    a, out, k, rows = tp._p120_sel_args(n, rng)
    assert a.dtype == np.int32 and rows == n // 512 == len(out) and k == 256 and a.max() < 1000 and a.min() >= 0
    r = a.reshape(rows, 512)
    assert (np.array([len(np.unique(row)) for row in r[:50]]) < 450).all()   # ties in every row


# ---- bitonic-kv-tile-smem ----

def bitonic_check(host, out):
    keys, vals = out[0], out[1]
    assert (keys == tp._p120_bt_ref(host[0])).all()
    T = tp.P120_BT_TILE
    for s in range(0, len(keys), T):                        # the values a tile's permutation, with their keys
        assert (np.sort(vals[s:s + T]) == host[1][s:s + T]).all()
    assert (host[0][vals] == keys).all()


def test_bitonic():
    n = 2 * 2048 + 700                                      # 3 tiles, the last partial
    host, out, *_ = launch("probe/bitonic-kv-tile-smem", n)
    bitonic_check(host, out)
    assert (out[0][:2048] != host[0][:2048]).any()


def test_bitonic_ties():
    # few distinct keys (ties in every compare), one short tile, the warps in random order
    # (slow in the emulator: 32 warps through 66 barriers)
    rng = np.random.default_rng(3)
    n = 1500
    host = tp._p120_bt_args(n, rng)
    host[0] = rng.integers(-3, 4, n).astype(np.float32)
    out = run("probe/bitonic-kv-tile-smem", copy(host), n, policy="random")
    bitonic_check(host, out)


# ---- lower-bound-batch ----

def test_lower_bound():
    n = 700
    host, out, *_ = launch("probe/lower-bound-batch", n)
    p = tp._p120_lb_ref(host[0], host[2])
    assert (out[3] == p).all() and (out[0] == host[0]).all()
    assert (p == 0).any() and (p == host[1]).any()


def test_lower_bound_duplicates():
    # runs of equal elements (the first of a run found), a one-element and an empty array
    rng = np.random.default_rng(4)
    n = 300
    a = np.sort(rng.integers(0, 20, 1000)).astype(np.int32)
    q = rng.integers(-2, 23, n).astype(np.int32)
    for arr in (a, a[:1].copy(), a[:0].copy()):
        m = len(arr)
        host = [arr if m else np.zeros(1, np.int32), np.int32(m), q.copy(), np.full(n, -7, np.int32), np.int32(n)]
        out = run("probe/lower-bound-batch", host, n)
        assert (out[3] == np.searchsorted(arr, q, side="left")).all()


# ---- radix-hist-digit-major ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_radix_hist(policy):
    n = 3 * 4096 + 1000                                     # 4 blocks, the last partial
    host, out, *_ = launch("probe/radix-hist-digit-major", n, policy=policy)
    assert (out[1] == tp._p120_rh_ref(host[0])).all()
    c = out[1].reshape(256, 4)
    assert c[:, 3].sum() == 1000 and c[16:].sum() == 0


def test_radix_hist_other_shifts():
    # the low digit (all 256 occur) and one key value (a single counter a block)
    rng = np.random.default_rng(5)
    n = 2 * 4096
    host = tp._p120_rh_args(n, rng)
    h = copy(host)
    h[2] = np.int32(0)
    out = run("probe/radix-hist-digit-major", copy(h), n, policy="random")
    assert (out[1] == tp._p120_rh_ref(h[0], 0)).all() and (out[1] > 0).all()
    h = copy(host)
    h[0][:] = 0x0A3B5C7D
    h[2] = np.int32(8)
    out = run("probe/radix-hist-digit-major", copy(h), n, policy="random")
    c = out[1].reshape(256, 2)
    assert (c[0x5C] == 4096).all() and c.sum() == n


# ---- compact-block-scan ----

def compact_check(host, out):
    ref = tp._p120_cs_ref(host[0], host[1])
    c = int(out[4][0])
    idx = out[3][:c]
    assert c == len(ref) and (np.sort(idx) == ref).all() and (out[3][c:] == -1).all()
    assert (out[2][:c] == host[0][idx]).all()
    # each block's kept indices one run, ascending
    blk = idx // tp.P120_CS_BLOCK
    assert (np.diff(blk) != 0).sum() == max(len(np.unique(blk)) - 1, 0)
    assert (np.diff(idx)[np.diff(blk) == 0] > 0).all()
    return idx


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_compact(policy):
    n = 5 * 256 + 77                                        # 6 blocks, the last partial
    host, out, *_ = launch("probe/compact-block-scan", n, policy=policy)
    compact_check(host, out)


def test_compact_none_and_all():
    rng = np.random.default_rng(6)
    n = 600
    host = tp._p120_cs_args(n, rng)
    for thr in (np.float32(100), np.float32(-100)):
        h = copy(host)
        h[1] = thr
        out = run("probe/compact-block-scan", copy(h), n, policy="random")
        idx = compact_check(h, out)
        assert len(idx) == (0 if thr > 0 else n)


# ---- samplesort-bucket-smem ----

def test_samplesort_bucket():
    n = 3 * 2048 + 500                                      # 4 blocks, the last partial
    host, out, *_ = launch("probe/samplesort-bucket-smem", n)
    b = tp._p120_ss_ref(host[0], host[1])
    assert (out[2] == b).all() and b.min() == 0 and b.max() == 255


def test_samplesort_on_splitters():
    # keys equal to splitters (to the right bucket), repeated splitters, keys beyond both ends
    rng = np.random.default_rng(7)
    n = 2048
    keys, split, b, nn = tp._p120_ss_args(n, rng)
    split[100:110] = split[100]
    keys[:255] = split
    keys[255:260] = [-np.inf, np.inf, -50, 50, split[100]]
    out = run("probe/samplesort-bucket-smem", [keys, split, b, nn], n)
    ref = tp._p120_ss_ref(keys, split)
    assert (out[2] == ref).all() and ref[256] == 255 and ref[255] == 0 and ref[100] == 110


# ---- select-kth-rows-count ----

def test_select_kth():
    n = 3 * 512
    host, out, *_ = launch("probe/select-kth-rows-count", n)
    assert (out[1] == tp._p120_sel_ref(host[0])).all()


@pytest.mark.parametrize("k", [0, 511])
def test_select_extremes(k):
    # the minimum and maximum; a row all equal, a row of distinct values descending
    rng = np.random.default_rng(8)
    n = 3 * 512
    a, out, _, rows = tp._p120_sel_args(n, rng)
    a[:512] = 42
    a[512:1024] = np.arange(512)[::-1] * 3
    got = run("probe/select-kth-rows-count", [a, out, np.int32(k), rows], n)[1]
    assert (got == tp._p120_sel_ref(a, k)).all() and got[0] == 42 and got[1] == (0 if k == 0 else 1533)
