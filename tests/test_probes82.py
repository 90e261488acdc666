"""probe-unseen80's kernels (kernels_cuda/probes82.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/rec-embbag-sum-dim", "probe/rec-hash-trick-atomic", "probe/rec-score-tiled-smem",
       "probe/rec-topk-warp-merge", "probe/rec-mf-sgd-atomic", "probe/rec-spmm-csr-rowthread"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen80"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes82.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # embedding bags: geometric lengths (mean 16, 1 .. 128), Zipf-popular rows scattered
    n = 1 << 13
    table, idx, off, out, nn = tp._p82_eb_args(n, rng)
    lens = np.diff(off)
    assert nn == n and table.dtype == np.float32 and idx.dtype == off.dtype == np.int32
    assert len(table) == tp._P82_EB_ROWS * n * 64 and len(out) == n * 64 and not out.any()
    assert off[0] == 0 and off[-1] == len(idx) and lens.min() >= 1 and lens.max() <= tp._P82_EB_MAX
    assert 14 < lens.mean() < 18 and np.median(lens) < lens.mean()
    assert idx.min() >= 0 and idx.max() < tp._P82_EB_ROWS * n
    cnt = np.sort(np.bincount(idx, minlength=tp._P82_EB_ROWS * n))[::-1]
    assert 0.05 < cnt[0] / len(idx) < 0.2 and cnt[:len(cnt) // 100].sum() > 0.5 * len(idx)   # hot rows
    hot = np.argsort(np.bincount(idx))[-20:]
    assert np.ptp(hot) > n                                                   # the hot rows anywhere
    # feature hashing: Zipf ids, integer counts, the sums exact in float32
    m = 1 << 18
    feat, val, buckets, seed, nb, nn = tp._p82_fh_args(m, rng)
    assert feat.dtype == np.uint32 and val.dtype == np.float32 and set(np.unique(val)) == {1, 2, 3, 4}
    assert nb == len(buckets) == tp._P82_FH_BUCKETS and not buckets.any() and nn == m
    fc = np.unique(feat, return_counts=True)[1]
    assert 0.04 < fc.max() / m < 0.09 and len(fc) > m / 4
    ref, b = tp._p82_fh_ref(feat, val)
    assert np.abs(ref).max() * (1 << 24) / m < 1 << 24                      # exact at the probe's 2^24 too
    assert 0 < (ref < 0).sum() and 0 < (ref > 0).sum()                       # both signs
    lanes = np.array([np.unique(w, return_counts=True)[1].max() for w in b.reshape(-1, 32)])
    assert 2 < lanes.mean() < 3.5                                            # a warp's lanes on one bucket
    # scores: n users (a multiple of 16), 4 n items
    U, V, S, nu, ni = tp._p82_sc_args(64, rng)
    assert (nu, ni) == (64, 256) and len(U) == 64 * 64 and len(V) == 256 * 64 and len(S) == 64 * 256
    assert U.dtype == V.dtype == np.float32 and 0.25 < U.std() < 0.35
    # top-k scores: popular items score high for most users, no ties near the top
    s, ti, tv, nu, ni = tp._p82_tk_args(512, rng)
    assert s.dtype == np.float32 and len(s) == 512 * ni and ni == tp._P82_TK_ITEMS and len(ti) == 512 * 10
    top, vals = tp._p82_tk_ref(s, ni)
    assert (np.diff(vals, axis=1) < 0).all() and 20 < len(np.unique(top[:, 0])) < 300
    # ratings: Zipf users and items, 1 .. 5
    u, i, r, P, Q, lr, reg, nn = tp._p82_mf_args(1 << 16, rng)
    nu, ni = len(P) // 32, len(Q) // 32
    assert (nu, ni) == (1 << 13, 1 << 11) and u.dtype == i.dtype == np.int32 and nn == 1 << 16
    assert u.min() >= 0 and u.max() < nu and i.min() >= 0 and i.max() < ni and set(np.unique(r)) == set(range(1, 6))
    ci, cu = np.bincount(i), np.bincount(u)
    assert 0.01 < ci.max() / nn < 0.05 and cu.max() / nn < 0.01 and (cu > 0).mean() > 0.95
    err = tp._p82_mf_ref(u, i, r, P, Q)[2]
    assert abs(err.mean()) < 0.5 and 1 < err.std() < 2                       # ratings near P . Q's scale
    # the interaction matrix: rows sorted and distinct, long-tailed lengths
    n = 1 << 15
    row_ptr, col, val, V, out, nn = tp._p82_sp_args(n, rng)
    items = n // tp._P82_SP_ITEMS
    src = np.repeat(np.arange(n), np.diff(row_ptr))
    assert row_ptr.dtype == col.dtype == np.int32 and row_ptr[0] == 0 and row_ptr[-1] == len(col) == len(val)
    assert (np.diff(src.astype(np.int64) * items + col) > 0).all() and col.min() >= 0 and col.max() < items
    lens = np.diff(row_ptr)
    assert lens.min() >= 1 and np.median(lens) == 3 and 4 < lens.mean() < 5 and lens.max() > 100
    assert 20 < lens.reshape(-1, 32).max(axis=1).mean() < 32
    assert len(V) == items * tp._P82_SP_F and len(out) == n * tp._P82_SP_F and not out.any()


# ---- rec-embbag-sum-dim ----

def test_embbag_sum():
    n = 100                                                 # 25 blocks
    host, (table, idx, off, out, nn), *_ = launch("probe/rec-embbag-sum-dim", n)
    np.testing.assert_allclose(out.reshape(n, 64), tp._p82_eb_ref(*host[:3]), rtol=0, atol=2e-5)


def test_embbag_empty_and_partial():
    # empty bags sum to 0; 5 bags = 320 threads: the second block partial
    rng = np.random.default_rng(3)
    host = tp._p82_eb_args(5, rng)
    host[2] = np.array([0, 3, 3, 10, 10, 11], np.int32)
    host[1] = host[1][:11]
    host[1][:] = np.arange(11) * 7 % 20
    out = run("probe/rec-embbag-sum-dim", host, 5)[3].reshape(5, 64)
    ref = tp._p82_eb_ref(*host[:3])
    assert (out[1] == 0).all() and (out[3] == 0).all()
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-6)


# ---- rec-hash-trick-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_hash_features(policy):
    n = 2000
    host, (feat, val, buckets, *_), *_ = launch("probe/rec-hash-trick-atomic", n, policy=policy)
    ref, b = tp._p82_fh_ref(*host[:2])
    assert (buckets == ref).all() and np.bincount(b).max() > 50            # the hot bucket from many warps


def test_hash_few_buckets():
    # 64 buckets, every lane of a warp on one feature and its neighbours on a few
    rng = np.random.default_rng(4)
    n = 300
    host = tp._p82_fh_args(n, rng)
    host[0][:64] = host[0][0]
    host[2] = np.zeros(64, np.float32)
    host[4] = np.int32(64)
    out = run("probe/rec-hash-trick-atomic", host, n, policy="random")[2]
    ref, b = tp._p82_fh_ref(host[0], host[1], n_buckets=64)
    assert (out == ref).all() and len(np.unique(b)) > 32


# ---- rec-score-tiled-smem ----

def test_score_tiled():
    n = 32                                                  # 32 users x 128 items: 8 x 2 blocks
    host, (U, V, S, *_), *_ = launch("probe/rec-score-tiled-smem", n)
    np.testing.assert_allclose(S.reshape(n, 4 * n), tp._p82_sc_ref(U, V), rtol=0, atol=2e-5)


# ---- rec-topk-warp-merge ----

def test_topk():
    n = 12                                                  # 12 warps: 3 blocks
    host, (s, ti, tv, *_), *_ = launch("probe/rec-topk-warp-merge", n)
    idx, val = tp._p82_tk_ref(s, host[4])
    assert (ti.reshape(n, 10) == idx).all() and (tv.reshape(n, 10) == val).all()


def test_topk_ties_and_short_rows():
    # 40 items (lanes 0-7 hold two, the rest one): a row of one value (ties: the lowest
    # items), rows of a few integer values, a row with its best items in one lane, and a
    # partial last block (5 users, 160 threads)
    rng = np.random.default_rng(9)
    n, m = 5, 40
    s = rng.integers(0, 4, (n, m)).astype(np.float32)
    s[0] = 1.5
    s[1] = -np.arange(m, dtype=np.float32)                  # descending: the first 10
    s[2] = -1e30
    s[2, [3, 35, 13]] = [2, 2, 7]
    host = [s.ravel(), np.zeros(n * 10, np.int32), np.zeros(n * 10, np.float32), np.int32(n), np.int32(m)]
    out = run("probe/rec-topk-warp-merge", host, n, policy="random")
    idx, val = tp._p82_tk_ref(s, m)
    assert (out[1].reshape(n, 10) == idx).all() and (out[2].reshape(n, 10) == val).all()
    assert (idx[0] == np.arange(10)).all() and (idx[2, :3] == [13, 3, 35]).all()


# ---- rec-mf-sgd-atomic ----

def mf_check(host, out):
    u, i, r, P, Q = host[:5]
    P1, Q1, err = tp._p82_mf_ref(u, i, r, P, Q)
    np.testing.assert_allclose(out[3].reshape(P1.shape), P1, rtol=0, atol=2e-6)
    np.testing.assert_allclose(out[4].reshape(Q1.shape), Q1, rtol=0, atol=2e-6)
    return P1, Q1


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_mf_sgd_distinct(policy):
    # ratings of distinct users and items (no row read after another rating's update): the
    # generator's rows, users and items permuted
    rng = np.random.default_rng(5)
    n = 300                                                 # 2 blocks, the last partial
    host = tp._p82_mf_args(1 << 14, rng)                 # 2048 users, 512 items
    host[0] = rng.permutation(len(host[3]) // 32)[:n].astype(np.int32)
    host[1] = rng.permutation(len(host[4]) // 32)[:n].astype(np.int32)
    host[2] = host[2][:n]
    host[7] = np.int32(n)
    out = run("probe/rec-mf-sgd-atomic", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n,
              policy=policy)
    P1, Q1 = mf_check(host, out)
    untouched = np.setdiff1d(np.arange(len(P1)), host[0])
    assert (out[3].reshape(P1.shape)[untouched] == host[3].reshape(P1.shape)[untouched]).all()


def test_mf_sgd_one_item_one_warp():
    # a warp's 32 ratings all of one item (32 atomicAdds on each of its words, all read
    # before any: a warp loads before it adds), and of one user on another warp's item
    rng = np.random.default_rng(6)
    n = 64
    host = tp._p82_mf_args(1 << 12, rng)
    host[0] = np.r_[np.arange(32), np.full(32, 40)].astype(np.int32)
    host[1] = np.r_[np.full(32, 7), np.arange(32) + 10].astype(np.int32)
    host[2] = host[2][:n]
    host[7] = np.int32(n)
    out = run("probe/rec-mf-sgd-atomic", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    P1, Q1 = mf_check(host, out)
    assert np.abs(Q1[7] - host[4].reshape(-1, 32)[7]).min() > 1e-4


# ---- rec-spmm-csr-rowthread ----

def test_spmm_csr_rows():
    n = 300                                                 # 2 blocks, the last partial
    host, (row_ptr, col, val, V, out, *_), *_ = launch("probe/rec-spmm-csr-rowthread", n)
    np.testing.assert_allclose(out.reshape(n, tp._P82_SP_F), tp._p82_sp_ref(*host[:4]), rtol=1e-6, atol=1e-5)


def test_spmm_empty_rows():
    rng = np.random.default_rng(7)
    n = 40
    host = tp._p82_sp_args(n, rng)
    lens = np.diff(host[0])
    lens[[0, 5, 39]] = 0                                    # users with no interactions
    keep = ~np.isin(np.repeat(np.arange(n), np.diff(host[0])), [0, 5, 39])
    host[1], host[2] = host[1][keep], host[2][keep]
    host[0] = np.r_[0, np.cumsum(lens)].astype(np.int32)
    out = run("probe/rec-spmm-csr-rowthread", host, n)[4].reshape(n, tp._P82_SP_F)
    assert (out[[0, 5, 39]] == 0).all() and out[1].any()
    np.testing.assert_allclose(out, tp._p82_sp_ref(*host[:4]), rtol=1e-6, atol=1e-5)
