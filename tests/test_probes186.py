"""probe-unseen184's kernels (kernels_cuda/probes186.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/ohlcv-bars-atomic", "probe/book-imbalance-soa", "probe/realized-var-warp",
       "probe/lee-ready-bsearch", "probe/zscore-rolling-double", "probe/xcorr-lag-smem"]
U = 2.0 ** -24                                              # float32's unit roundoff
MIN = tp.P186_MIN_NS


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen184"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes186.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    u = np.linspace(0, 1, 10001)
    f = tp._p186_ushape(u)
    assert f[0] == 0 and abs(f[-1] - 1) < 1e-12 and (np.diff(f) > 0).all()
    dens = 1e-4 / np.diff(f)                                 # activity: U-shaped
    assert abs(dens[0] - 2.5) < 0.01 and abs(dens[5000] - 0.625) < 0.01
    t = tp._p186_times(np.array([3000, 0, 1, 5000]), rng)
    assert len(t) == 8001 and (np.diff(t[:3000]) >= 0).all() and (np.diff(t[3001:]) >= 0).all()
    assert 0 <= t.min() and t.max() < tp.P186_DAY_NS
    assert 0.27 < (np.abs(t[3001:] / tp.P186_DAY_NS - 0.5) > 0.4).mean() < 0.37   # 20% of the day, 1/3 of the trades
    q = tp._p186_sizes(1 << 16, rng)
    assert q.dtype == np.int32 and abs((q < 100).mean() - 0.45) < 0.01 and q.min() >= 1 and q.max() <= 50000
    assert ((q >= 100) & (q < 1000) & (q % 100 != 0)).sum() == 0 and 0.004 < (q >= 1000).mean() < 0.008

    ts, sym, price, size, ok_, ck, hi, lo, vol, notl, cnt, n = tp._p186_bar_args(1 << 17, rng)
    nsym = 32
    assert ts.dtype == np.int64 and sym.dtype == price.dtype == np.int32 and n == 1 << 17
    assert (np.diff(ts) >= 0).all() and sym.min() >= 0 and sym.max() < nsym and price.min() >= 1
    assert len(ok_) == len(lo) == nsym * 390 and (ok_ == np.iinfo(np.uint64).max).all() and (lo == 2 ** 31 - 1).all()
    assert (ck == 0).all() and (hi == 0).all() and (vol == 0).all() and (cnt == 0).all()
    assert abs((ts < 0).mean() - 0.02) < 0.003 and abs((ts >= 390 * MIN).mean() - 0.015) < 0.003
    assert ts.min() >= -330 * MIN and ts.max() < 630 * MIN
    c = np.sort(np.bincount(sym, minlength=nsym))[::-1]
    assert c[0] > 5 * np.median(c)                                          # a few busy symbols
    m = np.bincount(ts[(ts >= 0) & (ts < 390 * MIN)] // MIN, minlength=390)
    assert m[:10].mean() > 3 * m[185:205].mean() and m[-10:].mean() > 3 * m[185:205].mean()
    for s in range(3):                                                      # prices walk in time
        p = price[sym == s].astype(np.float64)
        assert np.abs(np.diff(np.log(p))).max() < 0.05 and 0.3 < (np.diff(p) != 0).mean() < 0.95

    bp, bs, ap, as_, *out, n = tp._p186_bk_args(1 << 16, rng)
    L = tp.P186_BK_LEVELS
    bp, bs, ap, as_ = (v.reshape(L, n) for v in (bp, bs, ap, as_))
    spr = np.bincount(ap[0] - bp[0], minlength=5)[1:5] / n
    assert np.allclose(spr, tp.P186_BK_SPREAD[1], atol=0.03)
    assert ((ap[0] - bp[0])[1:] == (ap[0] - bp[0])[:-1]).mean() > 0.9              # in runs
    assert (np.diff(bp, axis=0) < 0).all() and (np.diff(ap, axis=0) > 0).all()
    assert abs((np.diff(bp, axis=0) == -2).mean() - tp.P186_BK_GAP) < 0.01
    assert abs((np.diff(bp[0]) != 0).mean() - tp.P186_BK_MOVE) < 0.002 and np.abs(np.diff(bp[0])).max() == 1
    assert bs.min() >= 100 and np.median(bs[0]) < np.median(bs[5]) < np.median(bs[9])
    assert abs((bs % 100 != 0).mean() - 0.15) < 0.01 and all(o.dtype == np.float32 and (o == 0).all() for o in out)
    w = tp._p186_bk_syms(n, rng)["c_lvl_w"]
    assert w.dtype == np.float32 and w[0] == 1 and np.allclose(w[1:] / w[:-1], np.exp(-0.5))

    off, price, rv, bv, nchg, n = tp._p186_rv_args(4096, rng)
    cnt = np.diff(off)
    assert off[0] == 0 and (cnt >= 0).all() and off[-1] == len(price) and price.min() >= 1
    assert abs(np.median(cnt[cnt > 0]) - np.exp(6.5)) < 60 and 0.006 < (cnt == 0).mean() < 0.016 and cnt.max() > 2e4
    r, b, ch = tp._p186_rv_ref(off, price)
    assert 0.5 < ch.sum() / (off[-1] - n) < 0.9                            # bid-ask bounce, ticks
    big = cnt > 200
    assert 0.3 < np.median(b[big] / r[big]) < 1.1 and (r[big] > 4 * b[big]).any()    # a news jump

    tr, tsym, toff, qts, bid, ask, qoff, sign, lag, n = tp._p186_lr_args(1 << 17, rng)
    assert tr.dtype.itemsize == 16 and tr.dtype == tp.P186_TRADE_DTYPE and lag == 0 and n == 1 << 17
    assert (np.diff(tsym) >= 0).all() and (np.diff(toff) == np.bincount(tsym, minlength=len(toff) - 1)).all()
    qsym = np.repeat(np.arange(len(qoff) - 1), np.diff(qoff))
    assert (np.diff(tp._p186_keys(tsym, tr["ts"])) >= 0).all() and (np.diff(tp._p186_keys(qsym, qts)) >= 0).all()
    assert qts.dtype == np.int64 and (np.diff(qoff) >= 1).all() and 2 < len(qts) / n < 6
    sp = ask - bid
    assert abs((sp == 1).mean() - 0.70) < 0.01 and abs((sp == 0).mean() - 0.015) < 0.003 and (sp == -1).any()
    s, kind = tp._p186_lr_ref(tr, tsym, toff, qts, bid, ask, qoff, lag)
    k = np.bincount(kind, minlength=3) / n
    assert 0.93 < k[0] < 0.96 and 0.025 < k[1] < 0.04 and 0.015 < k[2] < 0.03
    assert abs((s == 1).mean() - 0.5) < 0.01 and (s == 0).sum() < 0.001 * n and tr["size"].min() >= 1

    x, z, T, n, w = tp._p186_zs_args(512, rng)
    X = x.reshape(T, n)
    assert x.dtype == np.float32 and (T, w) == (2340, 360) and len(z) == T * n
    assert 0.002 < np.median(X.std(axis=0)) < 0.008 and 0.015 < np.abs(X.mean(axis=0)).mean() < 0.025
    d = X[1:] - X[:-1]
    phi = (d[:, :] * (X[:-1] - X.mean(axis=0))).sum(axis=0) / ((X[:-1] - X.mean(axis=0)) ** 2).sum(axis=0)
    assert -0.01 < np.median(phi) < -0.0003                                 # mean-reverting: half-lives ~600 points
    kurt = (d ** 4).mean(axis=0) / (d ** 2).mean(axis=0) ** 2
    assert np.median(kurt) > 4                                              # fat-tailed shocks

    r, rho, T, n = tp._p186_xc_args(24, rng, T=6000)
    R = r.reshape(n, T)
    assert r.dtype == np.float32 and len(rho) == 24 * 24 * 21 and (R[:, 0] == 0).all()
    assert 0.2 < (R == 0).mean() < 0.45 and 1e-4 < np.median(R.std(axis=1)) < 3e-4
    c = tp._p186_xc_ref(r, T, n)[np.triu_indices(n, 1)]
    assert 0.02 < c[:, 10].mean() < 0.1 and c[:, 9].mean() > c[:, 5].mean() and c[:, 11].mean() > c[:, 15].mean()


# ---- ohlcv-bars-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_ohlcv_bars(policy):
    n, nsym = 6000, 3                                      # up to ~50 trades a bar: same-address atomics in a warp
    rng = np.random.default_rng(3)
    h = tp._p186_bar_args(n, rng, nsym=nsym)
    # the session's edges: dropped, first minute, first minute, second minute, last minute, dropped
    h[0][1000:1006] = [-1, 0, MIN - 1, MIN, 390 * MIN - 1, 390 * MIN]
    h[0].sort()
    out = run("probe/ohlcv-bars-atomic", h, n, policy=policy)
    op, hi, lo, cl, vol, notl, cnt = tp._p186_bar_ref(*h[:4], nsym)
    assert (out[10] == cnt).all() and (out[6] == hi).all() and (out[7] == lo).all()
    assert (out[8] == vol).all() and (out[9] == notl).all()
    has = cnt > 0
    assert ((out[4] & 0xFFFFFFFF) == np.where(has, op, 0xFFFFFFFF)).all() and (out[4][~has] == 2 ** 64 - 1).all()
    assert ((out[5] & 0xFFFFFFFF) == cl).all() and (out[5][~has] == 0).all()
    # the keys' upper halves: the bar's first and last trades' indices in the tape
    bar = np.where((h[0] >= 0) & (h[0] < 390 * MIN), h[1] * 390 + h[0] // MIN, -1)
    first = {b: i for i, b in reversed(list(enumerate(bar)))}
    last = {b: i for i, b in enumerate(bar)}
    b = np.flatnonzero(has)
    assert ((out[4][b] >> 32) == [first[k] for k in b]).all() and ((out[5][b] >> 32) == [last[k] for k in b]).all()
    assert 0.4 < has.mean() and cnt.max() > 30 and cnt.sum() == ((h[0] >= 0) & (h[0] < 390 * MIN)).sum()
    edge = h[1][np.searchsorted(h[0], [0, MIN, 390 * MIN - 1])]
    assert (cnt.reshape(nsym, 390)[edge, [0, 1, 389]] > 0).all()


# ---- book-imbalance-soa ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_book_imbalance(policy):
    n = 600                                                # 3 blocks of 256, the last partial
    rng = np.random.default_rng(4)
    h = tp._p186_bk_args(n, rng)
    syms = tp._p186_bk_syms(n, rng)
    h[1][:3] = [500, 1000000, 1]                            # the touch: balanced, all bid, all ask
    h[3][:3] = [500, 1, 1000000]
    out = run("probe/book-imbalance-soa", h, n, policy=policy, symbols=syms)
    micro, obi1, od, wmid = tp._p186_bk_ref(*h[:4], syms["c_lvl_w"])
    # (bs - as) and (bs + as) are exact in float32: one rounding of the quotient, as numpy's
    assert (out[5] == obi1.astype(np.float32)).all()
    # microprice: 2 products, a sum and a quotient of positive terms; the weighted-depth sums
    # of 10 products each (cancelling in the numerator: an absolute bound); the VWAPs' 10
    # products and sums, the size sums exact
    assert (np.abs(out[4] - micro) <= 4 * U * micro).all() and (np.abs(out[6] - od) <= 24 * U).all()
    assert (np.abs(out[7] - wmid) <= 14 * U * wmid).all()
    assert out[4][0] == (h[0][0] + h[2][0]) / 2 and out[5][0] == 0
    assert abs(out[4][1] - h[2][1]) < 1e-3 and abs(out[4][2] - h[0][2]) < 1e-3 and out[5][1] > 0.9999
    assert np.abs(out[6]).max() < 1 and (out[6] > 0.3).any() and (out[6] < -0.3).any()


# ---- realized-var-warp ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_realized_var(policy):
    rng = np.random.default_rng(5)
    # 20 hand-made symbols: none, 1, 2, 3, 33 trades, a constant price, 300 trades; then 50
    # drawn with fewer trades (9 blocks of 8 warps, the last with 6 working)
    cnt = np.r_[0, 1, 2, 3, 33, 40, 300, rng.integers(0, 80, 13), np.floor(rng.lognormal(3.5, 1.0, 50)).astype(int)]
    n = len(cnt)
    sym = np.repeat(np.arange(n), cnt)
    price = tp._p186_walk(sym, n, rng, jump=0.1)
    off = np.r_[0, np.cumsum(cnt)].astype(np.int32)
    price[off[5]:off[6]] = 12345
    h = [off, price, np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(n, np.int32), np.int32(n)]
    out = run("probe/realized-var-warp", h, n, policy=policy)
    rv, bv, nchg = tp._p186_rv_ref(off, price)
    # each return: an exact tick difference, a division and log1pf (3U); its square 7U; a
    # lane's float sum of cnt / 32 of them and 5 shuffle additions (bipower: pi / 2 in
    # float32 and its product too)
    tol = (16 + cnt / 32) * U
    assert (out[4] == nchg).all()
    assert (np.abs(out[2] - rv) <= tol * rv).all() and (np.abs(out[3] - bv) <= tol * bv).all()
    assert (out[2][[0, 1, 5]] == 0).all() and (out[3][:3] == 0).all() and (out[4][:2] == 0).all()
    assert out[2][2] > 0 and out[3][3] > 0 and (rv > 0).sum() > 55 and cnt.max() > 200


# ---- lee-ready-bsearch ----

@pytest.mark.parametrize("n, lag, policy", [(2000, 0, "lockstep"), (800, 2_000_000, "random")])
def test_lee_ready(n, lag, policy):
    rng = np.random.default_rng(6)
    h = tp._p186_lr_args(n, rng, nsym=6, lag=lag)
    out = run("probe/lee-ready-bsearch", h, n, policy=policy)[7]
    sign, kind = tp._p186_lr_ref(*h[:7], lag)
    assert (out == sign).all() and (np.bincount(kind, minlength=3) > 10).all() and (out == 0).any()
    # hand-made: symbol 0's quotes at 100 (1000 / 1002), 200 (locked 1001), 300 (1000 / 1001),
    # symbol 1's at 50 (2000 / 2004); trades in order: before any quote, at a quote's very
    # time at its midpoint, above, under a locked quote, above, below; symbol 1's before its
    # quote (the previous trade is symbol 0's), at the midpoint (no earlier price of its own), above
    tr = np.zeros(9, tp.P186_TRADE_DTYPE)
    tr["ts"] = [50, 100, 150, 250, 300, 301, 10, 60, 70]
    tr["price"] = [1001, 1001, 1002, 1001, 1001, 1000, 2002, 2002, 2003]
    tr["size"] = 100
    h = [tr, np.int32([0] * 6 + [1] * 3), np.int32([0, 6, 9]), np.int64([100, 200, 300, 50]),
         np.int32([1000, 1001, 1000, 2000]), np.int32([1002, 1001, 1001, 2004]), np.int32([0, 3, 4]),
         np.zeros(9, np.int32), np.int64(0), np.int32(9)]
    out = run("probe/lee-ready-bsearch", h, 9)[7]
    assert list(out) == [0, 0, 1, -1, 1, -1, 0, 0, 1] and (tp._p186_lr_ref(*h[:7], 0)[0] == out).all()


# ---- zscore-rolling-double ----

@pytest.mark.parametrize("n, T, w, policy", [(100, 200, 40, "lockstep"), (40, 100, 20, "random")])
def test_rolling_zscore(n, T, w, policy):
    # one block of 128, partial
    rng = np.random.default_rng(7)
    h = tp._p186_zs_args(n, rng, T=T, w=w)
    X = h[0].reshape(T, n)
    X[:, 0] = 0.5                                          # a halted pair: no variance, z 0
    X[:80, 1] = 0.25                                       # halted for the first 80 points
    out = run("probe/zscore-rolling-double", h, n, policy=policy)[1].reshape(T, n)
    z, sd = tp._p186_zs_ref(h[0], T, n, w)
    # running sums in double drift by ~T 2^-53 max|x| (~1e-10 of the sd here): the float
    # result's rounding (U) against numpy's two-pass double one
    assert (np.abs(out - z) <= 2 * U * np.abs(z) + 1e-6).all() and (out[:w - 1] == 0).all()
    assert (out[:, 0] == 0).all() and (out[w - 1:80, 1] == 0).all() and (out[80:, 1] != 0).all()
    assert np.abs(z).max() > 3 and sd[:, 2:].min() > 2e-5


# ---- xcorr-lag-smem ----

@pytest.mark.parametrize("n, T, policy", [(5, 600, "lockstep"), (3, 280, "random")])
def test_xcorr_lags(n, T, policy):
    rng = np.random.default_rng(8)
    h = tp._p186_xc_args(n, rng, T=T)
    R = h[0].reshape(n, T)
    R[1] = 0                                               # a symbol halted all day: rho 0
    R[n - 1, 5] = 0.01                                     # a jump, 5 points from the start
    out = run("probe/xcorr-lag-smem", h, n, policy=policy)[1]
    ref = tp._p186_xc_ref(h[0], T, n).ravel()
    # a thread's FMA sums of ceil(T / 256) terms, 8 tree additions: (k + 8) U of sum |a b|,
    # at most sqrt(sum a^2 sum b^2) (Cauchy-Schwarz); the denominator's (k + 10) U
    k = -(-T // 256)
    assert (np.abs(out - ref) <= (2 * k + 20) * U).all()
    rho = out.reshape(n, n, 21)
    assert (rho[np.tril_indices(n)] == 0).all() and (rho[1] == 0).all() and (rho[:, 1] == 0).all()
    assert (rho[np.triu_indices(n, 1)] != 0).sum() >= (n * (n - 1) // 2 - (n - 1)) * 21 - 5
