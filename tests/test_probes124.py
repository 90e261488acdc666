"""probe-unseen122's kernels (kernels_cuda/probes124.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/vfi-bellman-gridsearch", "probe/bootstrap-ols-slope-hash", "probe/gini-lorenz-double-reduce",
       "probe/household-panel-sim", "probe/yardsale-pair-atomics", "probe/orderbook-levels-smem-priv"]


def copy(host):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in host]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen122"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes124.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 16
    # the income chain: rows of P sum to 1, z has mean 1 under the stationary law, persistent
    z, P = tp._p124_tauchen(7)
    assert np.allclose(P.sum(axis=1), 1) and (P >= 0).all() and (np.diff(z) > 0).all()
    assert np.diag(P).min() > 0.3 and abs(np.linalg.matrix_power(P, 2000)[0] @ z - 1) < 1e-9
    # vfi: nz = n / 1024 states, a concave increasing guess of V, cash always covers a' = 0
    V, Pf, a, zf, vn, pol, r, w, beta, nz = tp._p124_vfi_args(n, rng)
    assert nz == 64 and V.dtype == Pf.dtype == np.float32 and len(V) == n and len(Pf) == 64 * 64
    assert a[0] == 0 and (np.diff(a) > 0).all() and a[-1] == np.float32(40) and len(a) == 1024
    assert tp.get(IDS[0]).grid(n) == (4, 64)
    Vm = V.reshape(64, 1024)
    assert (np.diff(Vm[:, ::16], axis=1) > 0).all() and (np.diff(Vm, axis=0)[:, ::16] > 0).all()
    # the grid search's answers spread over the grid: interior policies, some at a' = 0
    val, vbest, arg = tp._p124_vfi_ref(*tp._p124_vfi_args(8192, rng)[:4])      # 8 states
    assert (arg == 0).any() and 0.2 < np.mean(arg > 0) and arg.max() < 1023
    feas = np.isfinite(val).sum(axis=2)
    assert feas.min() >= 1 and (feas < 1024).mean() > 0.3 and (feas == 1024).any()
    # bootstrap: the slope near beta, the replicates spread by the heteroskedastic noise
    x, y, s, ic, nobs, seed, B = tp._p124_bs_args(n, rng)
    assert x.dtype == y.dtype == np.float32 and nobs == len(x) == 1024 and B == n and not s.any()
    slope, inter = tp._p124_bs_ref(x, y, 2000)
    assert abs(slope.mean() - 2) < 0.1 and abs(inter.mean() - 1) < 0.1 and 0.02 < slope.std() < 0.1
    idx = tp._p124_bs_idx(4, 1024)
    assert idx.min() >= 0 and idx.max() < 1024 and 500 < len(np.unique(idx[0])) < 800   # ~63% distinct
    # gini: sorted Pareto incomes, Gini ~ 1 / (2 alpha - 1)
    inc, share, sums, nn = tp._p124_gini_args(n, rng)
    assert inc.dtype == np.float32 and (np.diff(inc) >= 0).all() and inc.min() >= 20 and nn == n
    assert share.dtype == sums.dtype == np.float64 and len(share) == n // 2048 and len(sums) == 2
    g = tp._p124_gini_ref(inc)[3]
    assert abs(g - 1 / (2 * 1.8 - 1)) < 0.03
    # panel: the policy increasing in a and z, under the 45-degree line for a > 10, the
    # borrowing constraint binding for the poor; the draws never tie a CDF value
    ag, pol, cdf, zs = tp._p124_sim_model()
    assert ag.dtype == pol.dtype == cdf.dtype == np.float32 and pol.shape == (7, 512)
    assert (np.diff(pol, axis=1) >= 0).all() and (np.diff(pol, axis=0) >= 0).all() and (pol[0, :5] == 0).all()
    assert (pol[:, ag > 10] < ag[ag > 10]).all() and (cdf[:, -1] == 1).all() and (np.diff(cdf, axis=1) >= 0).all()
    h = tp._p124_sim_args(4096, rng)
    assert h[4].dtype == np.float32 and h[5].dtype == np.int32 and h[5].max() == 6 and h[12] == 256
    af, zf2, cm, steps, gap = tp._p124_sim_ref(h[4][:512], h[5][:512])
    assert gap > 1e-7 and af.max() < ag[-1] and (cm > 0).all() and 0.5 < cm.mean() < 1.5
    warp_max = steps.reshape(16, 32, -1).max(axis=1)
    assert steps.min() == 0 and steps.max() == 6 and warp_max.mean() > 1.5 * steps.mean()   # divergent walks
    # yard-sale: lognormal wealths, the copy equal, a few self-partners at most
    w, wn, frac, s1, s2, nn = tp._p124_ys_args(n, rng)
    assert w.dtype == np.float32 and (w == wn).all() and w is not wn and w.min() > 0 and frac == np.float32(0.1)
    out, j, trade = tp._p124_ys_ref(w)
    assert trade.mean() > 0.999 and abs(out.sum() - w.astype(np.float64).sum()) < 1e-6 * w.sum()
    # order book: bids below the mid, asks at and above it, the best levels hot
    price, qty, side, bid, ask, nn = tp._p124_ob_args(n, rng)
    assert price.dtype == qty.dtype == np.int32 and side.dtype == np.uint8 and abs(side.mean() - 0.5) < 0.01
    assert (price[side == 0] < 2048).all() and (price[side == 1] >= 2048).all() and price.min() >= 0
    assert price.max() < 4096 and qty.min() == 1 and qty.max() == 100 and len(bid) == len(ask) == 4096
    b, a_ = tp._p124_ob_ref(price, qty, side)
    assert b[2047] > 0.03 * b.sum() and a_[2048] > 0.03 * a_.sum() and 100 < (b > 0).sum() < 600


# ---- vfi-bellman-gridsearch ----

def test_vfi_bellman():
    n = 2048                                                # 2 income states, grid (4, 2)
    host, (V, P, a, z, vn, pol, *_), *_ = launch("probe/vfi-bellman-gridsearch", n)
    val, vbest, arg = tp._p124_vfi_ref(*host[:4])
    vn, pol = vn.reshape(2, -1), pol.reshape(2, -1)
    np.testing.assert_allclose(vn, vbest, rtol=2e-6, atol=2e-5)
    # the policy attains the maximum (float32 rounding may pick a near-tie)
    got = np.take_along_axis(val, pol[:, :, None].astype(np.int64), axis=2)[:, :, 0]
    assert (got >= vbest - 5e-5).all()
    assert (pol == arg).mean() > 0.9 and (pol == 0).any() and pol.max() > 100


# ---- bootstrap-ols-slope-hash ----

def test_bootstrap_ols():
    # 128 observations (the probe's 1024 are slow in the emulator); 2 blocks, the last partial
    rng = np.random.default_rng(3)
    n = 300
    host = tp._p124_bs_args(n, rng)
    host[0], host[1] = tp._p124_bs_data(128, rng)
    host[4] = np.int32(128)
    out = run("probe/bootstrap-ols-slope-hash", host, n)
    slope, inter = tp._p124_bs_ref(host[0], host[1], n)
    np.testing.assert_allclose(out[2], slope, rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(out[3], inter, rtol=2e-5, atol=2e-5)
    assert len(np.unique(out[2])) == n and 1.5 < out[2].mean() < 2.5


# ---- gini-lorenz-double-reduce ----

def test_gini_lorenz():
    n = 5000                                                # 3 blocks, the last partial
    host, (x, share, sums, nn), *_ = launch("probe/gini-lorenz-double-reduce", n)
    sh, s0, s1, g = tp._p124_gini_ref(host[0])
    np.testing.assert_allclose(share, sh, rtol=1e-13)
    np.testing.assert_allclose(sums, [s0, s1], rtol=1e-13)
    gk = 2 * sums[1] / (n * sums[0]) - (n + 1) / n
    assert abs(gk - g) < 1e-12 and 0.3 < g < 0.5
    lorenz = np.cumsum(share) / sums[0]                     # the Lorenz curve at 2048, 4096, n incomes
    assert lorenz[0] < 2048 / n and lorenz[1] < 4096 / n and abs(lorenz[-1] - 1) < 1e-14


def test_gini_equal_incomes():
    # everyone earns the same: Gini 0
    n = 4096
    host = tp._p124_gini_args(n, np.random.default_rng(1))
    host[0] = np.full(n, 30.0, np.float32)
    out = run("probe/gini-lorenz-double-reduce", host, n, policy="random")
    assert out[2][0] == 30.0 * n and out[2][1] == 30.0 * n * (n + 1) / 2 and (out[1] == 30.0 * 2048).all()
    assert abs(2 * out[2][1] / (n * out[2][0]) - (n + 1) / n) < 1e-15


# ---- household-panel-sim ----

def test_panel_sim():
    # 40 periods (the probe's 200 are slow in the emulator); 2 blocks, the last partial
    rng = np.random.default_rng(4)
    n, T = 300, 40
    host = tp._p124_sim_args(n, rng)
    host[4][:3] = [0.0, 1e-3, tp._p124_sim_model()[0][37]]   # at the grid's bottom, near it, on a point
    host[12] = np.int32(T)
    out = run("probe/household-panel-sim", host, n)
    a, z, cm, steps, gap = tp._p124_sim_ref(host[4], host[5], T=T)
    assert gap > 1e-7 and len(np.unique(steps)) == 7
    assert (out[7] == z).all()
    np.testing.assert_allclose(out[6], a, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[8], cm, rtol=1e-5, atol=1e-5)
    assert (out[6] == 0).any() and (out[6] > 1).mean() > 0.5              # some constrained, most saving


# ---- yardsale-pair-atomics ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_yardsale(policy):
    n = 3000                                                # 12 blocks, the last partial
    host, (w, wn, *_), *_ = launch("probe/yardsale-pair-atomics", n, policy=policy)
    ref, j, trade = tp._p124_ys_ref(host[0])
    assert (w == host[0]).all()
    np.testing.assert_allclose(wn, ref, rtol=3e-6, atol=1e-6)
    assert abs(wn.astype(np.float64).sum() - ref.sum()) < 1e-4 * ref.sum() and (wn > 0).all()
    assert (np.abs(wn - w) > 0).mean() > 0.9             # a win and a loss of the same stake cancel


def test_yardsale_self_partner():
    # n = 1: the only agent meets itself, nothing changes; n = 2: a pair trades both ways
    for n in (1, 2):
        host = tp._p124_ys_args(n, np.random.default_rng(2))
        out = run("probe/yardsale-pair-atomics", copy(host), n)
        ref, j, trade = tp._p124_ys_ref(host[0])
        np.testing.assert_allclose(out[1], ref, rtol=1e-6)
        assert (out[1] == host[0]).all() == (not trade.any())


# ---- orderbook-levels-smem-priv ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_orderbook(policy):
    n = 10000                                               # 3 blocks, the last partial
    host, (price, qty, side, bid, ask, nn), *_ = launch("probe/orderbook-levels-smem-priv", n, policy=policy)
    b, a = tp._p124_ob_ref(host[0], host[1], host[2])
    assert (bid == b).all() and (ask == a).all()
    assert bid.sum() + ask.sum() == host[1].sum() and bid[2047] > 0 and ask[2048] > 0


def test_orderbook_book_accumulates():
    # the book is added to, not overwritten; one hot level for every order
    n = 4096
    host = tp._p124_ob_args(n, np.random.default_rng(5))
    host[0][:] = 2048
    host[2][:] = 1
    host[3][:] = 7
    host[4][2048] = 1000
    out = run("probe/orderbook-levels-smem-priv", copy(host), n, policy="random")
    assert (out[3] == 7).all() and out[4][2048] == 1000 + host[1].sum() and out[4].sum() == out[4][2048]
