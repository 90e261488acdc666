"""probe-unseen75's kernels (kernels_cuda/probes77.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/gemv-i8-char4-warp", "probe/rmsnorm-half-block-row", "probe/rope-neox-gqa",
       "probe/embbag-mean-offsets", "probe/topk-warp-insert", "probe/moe-top1-atomic-slots"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen75"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes77.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    W, x, ws, xs, y, nn = tp._u75_gemv_args(n, rng)
    assert W.dtype == x.dtype == np.int8 and len(W) == n * 4096 and len(x) == 4096 and nn == n
    assert W.min() == -127 and W.max() == 127 and ws.dtype == np.float32
    assert tp.U75_GEMV_WSCALE[0] <= ws.min() and ws.max() <= tp.U75_GEMV_WSCALE[1]
    acc = tp._u75_gemv_ref(W[:64 * 4096], x, ws[:64])[1]
    assert np.abs(acc).max() < 2 ** 24                                    # exact as a float too
    xh, g, yh, eps, _ = tp._u75_rms_args(64, rng)
    assert xh.dtype == g.dtype == yh.dtype == np.float16 and len(xh) == 64 * 4096 and len(g) == 4096
    assert abs(xh.astype(np.float32).std() - 1) < 0.02 and 0.5 <= g.min() and g.max() <= 1.5
    q, k, pos, theta, _ = tp._u75_rope_args(3000, rng)
    assert len(q) == 3000 * 32 * 128 and len(k) == 3000 * 8 * 128 and q.dtype == np.float32
    assert pos.dtype == np.int32 and pos.max() == 2047 and pos[2048] == 0
    table, idx, off, out, _ = tp._u75_bag_args(n, rng)
    rows = len(table) // 128
    lens = np.diff(off)
    assert rows == 4 * n and off.dtype == idx.dtype == np.int32 and off[0] == 0 and off[-1] == len(idx)
    assert lens.min() == 0 and lens.max() == 40 and abs(lens.mean() - 20) < 1
    assert idx.min() >= 0 and idx.max() < rows
    hot = (np.arange(rows // 10, dtype=np.uint64) * np.uint64(tp.U75_BAG_HASH)) % np.uint64(rows)
    assert 0.43 < np.isin(idx, hot.astype(np.int32)).mean() < 0.49      # power law: 46% on the hottest 10%
    cnt = np.bincount(idx, minlength=rows)
    assert cnt.argmax() == 0 and abs(cnt[0] / len(idx) - rows ** (-1 / 3)) < 0.005   # rank 0 (row 0) the hottest
    x, tv, ti, _ = tp._u75_topk_args(64, rng)
    assert len(x) == 64 * 32000 and abs(x.std() - 2) < 0.01 and len(tv) == len(ti) == 64 * 8
    g, cnt, bt, bw, slot, cap, _ = tp._u75_moe_args(1 << 14, rng)
    assert cap == 2560 and len(bt) == 8 * cap and (bt == -1).all()
    best, p, c = tp._u75_moe_ref(g)
    share = c / c.sum()
    assert 0.25 < share[0] < 0.30 and share[1] > cap / (1 << 14) > share[2]   # two experts overflow
    drop = np.maximum(c - cap, 0).sum() / (1 << 14)
    assert 0.11 < drop < 0.17 and 0.125 < p.min() and p.max() < 1


# ---- gemv-i8-char4-warp ----

def test_gemv_i8():
    n = 44                                                  # 6 blocks of 8 rows, the last half empty
    host, (W, x, ws, xs, y, nn), *_ = launch("probe/gemv-i8-char4-warp", n)
    ref, acc = tp._u75_gemv_ref(*host[:3])
    assert (y == ref).all() and np.abs(acc).min() > 0
    # extremes: -128 everywhere (the largest product sum), alternating signs (a sum of 0)
    h = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    h[1] = np.full(4096, -128, np.int8)
    h[0][:4096] = -128
    h[0][4096:8192] = np.where(np.arange(4096) % 2 == 0, 127, -127).astype(np.int8)
    out = run("probe/gemv-i8-char4-warp", h, n)
    ref, acc = tp._u75_gemv_ref(*h[:3])
    assert acc[0] == 4096 * 128 * 128 and acc[1] == 0 and (out[4] == ref).all()


# ---- rmsnorm-half-block-row ----

def test_rmsnorm():
    n = 4
    rng = np.random.default_rng(3)
    host = tp._u75_rms_args(n, rng)
    host[0][:4096] = 0                                      # a zero row: y = 0
    host[0][4096:8192] *= np.float16(300)                   # large values (squares past half's range)
    out = run("probe/rmsnorm-half-block-row", host, n)
    y, inv = tp._u75_rms_ref(*host[:2])
    got, want = out[2].astype(np.float32), y.astype(np.float32)
    ulp = np.spacing(np.abs(y)).astype(np.float32)
    assert (got == want).mean() > 0.999 and (np.abs(got - want) <= ulp).all()
    assert (out[2][:4096] == 0).all() and np.isfinite(got).all()
    r = want.reshape(n, -1)[1:] / host[1].astype(np.float32)
    assert np.allclose(np.sqrt((r.astype(np.float64) ** 2).mean(axis=1)), 1, rtol=2e-3)     # unit RMS


# ---- rope-neox-gqa ----

def rope_check(host, q, k):
    """q and k against the reference, allowing powf's frequency an ulp or two: the angle's
    error grows with the position."""
    n = len(host[2])
    rq, rk = tp._u75_rope_ref(*host[:3])
    for got, want, x, h in ((q, rq, host[0], 32), (k, rk, host[1], 8)):
        x = np.abs(x.reshape(n, h, 2, 64)).sum(axis=2, keepdims=True)
        tol = 2e-6 + host[2].reshape(n, 1, 1, 1) * 2.4e-7 * x
        assert (np.abs(got.reshape(n, h, 2, 64) - want.reshape(n, h, 2, 64)) <= tol).all()


def test_rope():
    n = 5
    rng = np.random.default_rng(4)
    host = tp._u75_rope_args(n, rng)
    host[2] = np.array([0, 1, 17, 1000, 2047], np.int32)    # large angles too
    out = run("probe/rope-neox-gqa", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    rope_check(host, out[0], out[1])
    assert (out[0][:32 * 128] == host[0][:32 * 128]).all()          # position 0: unchanged
    assert (out[2] == host[2]).all()
    for a, b, h in ((out[0], host[0], 32), (out[1], host[1], 8)):    # rotations keep the pairs' norms
        a, b = a.reshape(n, h, 2, 64).astype(np.float64), b.reshape(n, h, 2, 64).astype(np.float64)
        np.testing.assert_allclose((a ** 2).sum(axis=2), (b ** 2).sum(axis=2), rtol=1e-5, atol=1e-6)


def test_rope_launch():
    n = 2                                                   # the generator's data: positions 0 and 1
    host, (q, k, *_), *_ = launch("probe/rope-neox-gqa", n)
    rope_check(host, q, k)
    assert (q[:32 * 128] == host[0][:32 * 128]).all() and (q[32 * 128:] != host[0][32 * 128:]).mean() > 0.9


# ---- embbag-mean-offsets ----

def test_embbag():
    n = 24
    host, (table, idx, off, out, _), *_ = launch("probe/embbag-mean-offsets", n)
    assert (np.diff(off) == 0).any()                        # an empty bag among them
    assert (out == tp._u75_bag_ref(*host[:3])).all()
    # hand-made bags: empty, one row, the same row 3 times, the last row of the table
    rows = len(table) // 128
    h = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    h[1] = np.array([5, 7, 7, 7, rows - 1, 0, rows - 1], np.int32)
    h[2] = np.array([0, 0, 1, 4, 4, 7] + [7] * (n - 5), np.int32)
    got = run("probe/embbag-mean-offsets", h, n)[3].reshape(n, 128)
    T = table.reshape(-1, 128)
    assert (got[0] == 0).all() and (got[1] == T[5]).all() and (got[3] == 0).all() and (got[6:] == 0).all()
    assert (got == tp._u75_bag_ref(*h[:3]).reshape(n, 128)).all()
    np.testing.assert_allclose(got[2], T[7], rtol=1e-6)
    np.testing.assert_allclose(got[4], (T[rows - 1] * 2 + T[0]) / 3, rtol=1e-5, atol=1e-6)


# ---- topk-warp-insert ----

def test_topk():
    # one block of 4 rows: random logits, heavy ties (values from 5 levels), ascending (every
    # element inserted: the longest shifts) and descending (none after a lane's first 8)
    n = 4
    rng = np.random.default_rng(5)
    host = tp._u75_topk_args(n, rng)
    x = host[0].reshape(n, -1)
    x[1] = rng.integers(0, 5, x.shape[1]).astype(np.float32)
    x[2] = np.linspace(-3, 3, x.shape[1], dtype=np.float32)
    x[3] = x[2][::-1]
    out = run("probe/topk-warp-insert", host, n)
    v, i = tp._u75_topk_ref(host[0])
    assert (out[1] == v).all() and (out[2] == i).all()
    i = i.reshape(n, 8)
    assert (i[1] == np.flatnonzero(x[1] == 4)[:8]).all()        # ties: the lowest indices first
    assert (i[2] == np.arange(31999, 31991, -1)).all() and (i[3] == np.arange(8)).all()


# ---- moe-top1-atomic-slots ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_moe_route(policy):
    n = 300                                                 # 2 blocks, the last partial
    host, (g, cnt, bt, bw, slot, cap, _), *_ = launch("probe/moe-top1-atomic-slots", n, policy=policy)
    best, p, c = tp._u75_moe_ref(host[0])
    assert (cnt == c).all() and (c > cap).any() and (c < cap).any()
    E = tp.U75_MOE_E
    bt, bw = bt.reshape(E, cap), bw.reshape(E, cap)
    for e in range(E):
        m = min(c[e], cap)
        toks = bt[e, :m]
        assert (bt[e, m:] == -1).all() and (bw[e, m:] == 0).all()
        assert len(set(toks)) == m and (best[toks] == e).all()         # distinct tokens of this expert
        assert (slot[toks] == e * cap + np.arange(m)).all()
        np.testing.assert_allclose(bw[e, :m], p[toks], rtol=1e-6)
    kept = slot >= 0
    assert (slot[~kept] == -1).all() and (~kept).sum() == np.maximum(c - cap, 0).sum()
