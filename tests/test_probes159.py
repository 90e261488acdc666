"""probe-unseen157's kernels (kernels_cuda/probes159.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/rwm-eight-schools-lcg", "probe/gmm-gibbs-assign-smem", "probe/logreg-loglik-dsmem",
       "probe/hmc-leapfrog-mvn16", "probe/is-ess-lse-shfl", "probe/corner-hist-atomic"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen157"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes159.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    q, lp, s, acc, steps, n = tp._p159_es_args(1 << 14, rng)
    q = q.reshape(10, n)
    assert q.dtype == np.float32 and s.dtype == np.uint64 and (s & np.uint64(1)).all() and steps == 128
    assert abs(np.median(q[0]) - 4.4) < 0.2 and abs(np.median(q[1]) - 1) < 0.1 and abs(np.median(q[5])) < 0.05
    assert 4.4 < q[0].std() < 5.1 and 0.01 < (np.abs(q[0] - 4.4) > 15).mean() < 0.025     # 5% stray chains
    pts, z, cnt, sums, seed, n = tp._p159_gm_args(1 << 16, rng)
    xy = pts.reshape(n, 2)
    w, mu, cov = tp._p159_gm_model()
    assert len(cnt) == 16 and len(sums) == 80 and -2 < xy.min() and xy.max() < 12 and abs(w.sum() - 0.97) < 1e-12
    far = lambda p: np.einsum("nki,kij,nkj->nk", p[:, None] - mu, np.linalg.inv(cov), p[:, None] - mu).min(axis=1) > 25
    g = (np.stack(np.meshgrid(np.arange(200), np.arange(200)), -1).reshape(-1, 2) + 0.5) / 20
    assert abs(far(xy.astype(np.float64)).mean() / (0.03 * far(g).mean()) - 1) < 0.15   # uniform background
    assert (np.linalg.eigvalsh(cov) > 0).all() and np.corrcoef(xy[:-1, 0], xy[1:, 0])[0, 1] < 0.02
    tab = tp._p159_gm_syms(n, rng)["c_gm"].reshape(16, 6)
    wt = np.exp(tab[:, 0]) / np.sqrt(tab[:, 3] * tab[:, 5] - tab[:, 4] ** 2)      # log c = log w - log|S| / 2
    assert abs(wt.sum() - 1) < 1e-5 and (tab[:, 3] > 0).all() and (wt[10:] < 0.006).all()
    pz = tp._p159_gm_probs(pts, tab).sum(axis=0) / n
    assert pz.max() > 0.25 and (pz < 0.01).sum() >= 5                       # skewed weights, near-empty spares
    X, y, beta, ll, n = tp._p159_lr_args(1 << 16, rng)
    X = X.reshape(n, 32)
    assert (X[:, 0] == 1).all() and abs(np.corrcoef(X[:, 1], X[:, 2])[0, 1] - 0.5) < 0.02
    sk = X[:, 13:21]
    assert np.abs(sk.mean(axis=0)).max() < 0.03 and (np.median(sk, axis=0) < -0.2).all()   # right-skewed
    assert ((X[:, 21:] == 0) | (X[:, 21:] == 1)).all() and abs(X[:, 21].mean() - 0.02) < 0.003
    assert 0.2 < y.mean() < 0.3 and ll.dtype == np.float64
    assert ll.size == 1 and beta.dtype == np.float32 and beta[0] < -1.5
    q, s, acc, eps, L, iters, n = tp._p159_hm_args(1 << 14, rng)
    C = tp._p159_hm_target()
    sd = np.sqrt(np.linalg.eigvalsh(C))
    assert abs(sd.min() - 0.1) < 1e-9 and abs(sd.max() - 1) < 1e-9 and (s & 1).all() and L == 20
    qq = q.reshape(16, n).astype(np.float64)
    m = np.einsum("in,ij,jn->n", qq, np.linalg.inv(C), qq)                  # chi^2_16 for the chains at home
    assert abs(np.median(m) - 15.34) < 0.5 and 0.015 < (m > 60).mean() < 0.025
    x, lw, part, a, b, *prop, lq0, n = tp._p159_is_args(1 << 16, rng)
    assert len(part) == 3 * tp._p159_is_grid(n) and tp._p159_is_grid(1 << 24) == 1024
    xy = x.reshape(n, 2).astype(np.float64)
    assert np.abs(xy.mean(axis=0)).max() < 0.1 and abs(xy[:, 1].var() / (1 + 2 * 0.25 ** 2 * 81) - 1) < 0.1
    lw = tp._p159_is_logw(x)
    ess = np.exp(2 * np.logaddexp.reduce(lw) - np.logaddexp.reduce(2 * lw)) / n
    assert 0.1 < ess < 0.3                                                  # the banana's arms under-covered
    d, lo, iw, h1, h2, n = tp._p159_ch_args(1 << 16, rng)
    d = d.reshape(n, 6)
    assert len(h1) == 6 * 64 and len(h2) == 15 * 64 * 64 and (d[:, 1] > 0).all() and (d[:, 2] > 0).all()
    assert np.corrcoef(d[:-1, 0], d[1:, 0])[0, 1] > 0.85 and np.corrcoef(d[:, 0], d[:, 3])[0, 1] < -0.5
    b = tp._p159_ch_bins(d, lo, iw)
    assert np.allclose((b < 0).mean(axis=0), 0.01, atol=0.002)
    assert np.mean(d[:, 1]) > 1.2 * np.median(d[:, 1])                     # tau skewed
    t = d[:, 1] < np.median(d[:, 1])
    assert d[t, 5].std() < 0.6 * d[~t, 5].std()                             # the funnel
    z = tp._p159_ch_latent(1 << 16, np.random.default_rng(1), chains=4)
    sticky = slice(1 << 15, 3 << 14)
    assert np.corrcoef(z[sticky][:-1, 0], z[sticky][1:, 0])[0, 1] > 0.97 and abs(z[:, 2].std() - 1) < 0.1


# ---- rwm-eight-schools-lcg ----

def test_rwm_eight_schools():
    # a thread a chain, nothing shared: lockstep only
    n, steps, policy = 40, 16, "lockstep"                                   # 40: a partial warp
    rng = np.random.default_rng(3)
    h = tp._p159_es_args(n, rng, steps=steps)
    syms = tp._p159_es_syms(n, rng)
    out = run("probe/rwm-eight-schools-lcg", h, n, policy=policy, symbols=syms)
    x, lp, s, acc, margin = tp._p159_es_ref(h[0], h[2], steps)
    assert (out[2] == s).all()                                              # 11 draws a step, every chain
    # float32 log posteriors err ~1e-5 (terms up to ~10, a few ulps each); a decision within 1e-3
    # of its threshold may flip, so those chains are left out; the states drift by ulps a step
    ok = margin > 1e-3
    assert ok.mean() > 0.85 and 0.1 < acc.mean() / steps < 0.5 and (acc < steps).all()
    assert (out[3][ok] == acc[ok]).all()
    assert np.abs(out[0].reshape(10, n) - x)[:, ok].max() < 3e-5 and np.abs(out[1] - lp)[ok].max() < 1e-4
    # no steps: the states kept bit for bit and their log posteriors
    h[4] = np.int32(0)
    out = run("probe/rwm-eight-schools-lcg", h, n, policy=policy, symbols=syms)
    lp0 = tp._p159_es_logpost(h[0].reshape(10, n).astype(np.float64))
    assert (out[0] == h[0]).all() and (out[2] == h[2]).all() and (out[3] == 0).all()
    assert (np.abs(out[1] - lp0) < 1e-5 * np.maximum(1, np.abs(lp0))).all()


# ---- gmm-gibbs-assign-smem ----

@pytest.mark.parametrize("n, policy", [(1200, "lockstep"), (100, "random")])
def test_gmm_gibbs_assign(n, policy):
    rng = np.random.default_rng(4)
    h = tp._p159_gm_args(n, rng)
    syms = tp._p159_gm_syms(n, rng)
    h[0][:4] = np.float32([500, 500, -400, 3])                              # far outliers
    out = run("probe/gmm-gibbs-assign-smem", h, n, policy=policy, symbols=syms)
    z, margin = tp._p159_gm_ref(h[0], syms["c_gm"], h[4])
    # float32 probabilities err ~1e-6 relative; a uniform within 1e-5 of a boundary may go either way
    ok = margin > 1e-5
    assert ok.mean() > 0.99 and (out[1][ok] == z[ok]).all() and 0 <= out[1].min() and out[1].max() < 16
    assert len(np.unique(z)) >= 6 and (z[:2] >= 10).all()                  # the outliers to spare components
    cnt, sums = tp._p159_gm_stats(h[0], out[1])
    assert (out[2] == cnt).all()
    # the float sums in any order: a component's count plus a block's worth of additions, each
    # rounding by <= 2^-24 of the sum of its terms' sizes (one more for the products themselves)
    xy = np.abs(h[0].reshape(n, 2).astype(np.float64))
    mag = np.stack([np.bincount(out[1], v, 16) for v in
                    (xy[:, 0], xy[:, 1], xy[:, 0] ** 2, xy[:, 0] * xy[:, 1], xy[:, 1] ** 2)], 1)
    err = np.abs(out[3].reshape(16, 5) - sums)
    assert (err <= (cnt[:, None] + -(-n // 256) + 1) * 2.0 ** -24 * mag).all() and (err > 0).any()


# ---- logreg-loglik-dsmem ----

@pytest.mark.parametrize("n, policy", [(700, "lockstep"), (100, "random")])
def test_logreg_loglik(n, policy):
    host, out, *_ = launch("probe/logreg-loglik-dsmem", n, policy=policy)   # partial last block
    terms, eta = tp._p159_lr_ref(*host[:3])
    X = host[0].reshape(n, 32).astype(np.float64)
    # float32: the 32-term dot product errs <= 32 ulps of sum |x_j b_j|, the softplus and
    # y eta - sp a few ulps of |eta| + 1; the double sum adds nothing that matters
    tol = 2.0 ** -24 * (32 * np.abs(X * host[2]).sum() + 4 * (np.abs(eta) + 1).sum())
    assert abs(out[3][0] - terms.sum()) <= tol and tol < 1e-4 * abs(terms.sum())
    if policy == "random":
        return
    # huge |eta| (separable rows): the stable softplus gives -|eta| or 0, never inf
    h = list(host)
    h[0] = np.zeros(4 * 32, np.float32)
    h[0][::32] = 1
    h[0][1::32] = np.float32([100, 100, -100, -100]) / h[2][1]
    h[0][1::32] -= np.float32(h[2][0] / h[2][1])
    h[1] = np.int32([1, 0, 1, 0])
    h[3] = np.zeros(1)
    h[4] = np.int32(4)
    r = run("probe/logreg-loglik-dsmem", h, 4, policy=policy)[3][0]
    t, e = tp._p159_lr_ref(*h[:3])
    assert np.abs(np.abs(e) - 100).max() < 1e-3 and np.isfinite(r) and abs(r - t.sum()) < 1e-3 and abs(r + 200) < 1e-2


# ---- hmc-leapfrog-mvn16 ----

def test_hmc_mvn():
    # a thread a chain, nothing shared: lockstep only
    n, L, iters, policy = 24, 2, 2, "lockstep"                              # a partial warp
    rng = np.random.default_rng(5)
    h = tp._p159_hm_args(n, rng, L=L, iters=iters)
    h[2][:] = 7                                                             # n_acc adds
    syms = tp._p159_hm_syms(n, rng)
    out = run("probe/hmc-leapfrog-mvn16", h, n, policy=policy, symbols=syms)
    x, s, acc, margin, dH = tp._p159_hm_ref(h[0], h[1], h[3], L, iters)
    assert (out[1] == s).all()                                              # 18 draws a trajectory
    # float32 leapfrog against float64: the energies err ~1e-5; decisions within 1e-3 left out; the
    # positions (|x| < ~3) a few ulps a step
    ok = margin > 1e-3
    assert ok.mean() > 0.9 and (out[2][ok] == 7 + acc[ok]).all() and dH.max() > 0.05
    assert np.abs(out[0].reshape(16, n) - x)[:, ok].max() < 3e-6
    assert (acc < iters).any()                                              # a rejection restores the start
    # a step size of 0: nothing moves, the energy is conserved, every transition is accepted
    h[3] = np.float32(0)
    h[4] = np.int32(1)
    h[5] = np.int32(1)
    h[2][:] = 0
    out = run("probe/hmc-leapfrog-mvn16", h, n, policy=policy, symbols=syms)
    assert (out[0] == h[0]).all() and (out[2] == 1).all() and (out[1] == tp._p159_hm_ref(h[0], h[1], 0, 1, 1)[1]).all()


# ---- is-ess-lse-shfl ----

@pytest.mark.parametrize("n, ngrid, policy", [(3000, 512, "lockstep"), (300, 300, "random")])
def test_is_weights_ess(n, ngrid, policy):
    # 3000 draws by 2 blocks (grid-stride: ~6 a thread); 300: 2 blocks, the second's last 6 warps idle
    rng = np.random.default_rng(6)
    h = tp._p159_is_args(n, rng)
    G = tp._p159_is_grid(ngrid)
    h[2] = np.zeros(3 * G, np.float32)
    h[0][:4] = np.float32([0, -2.25, 40, 5])                                # the mode; far in the tail
    out = run("probe/is-ess-lse-shfl", h, ngrid, policy=policy)
    lw, l1, l2 = tp._p159_is_ref(h[0], G)
    x = h[0].reshape(n, 2).astype(np.float64)
    # float32: each log weight's terms (up to ~1e5 in the tails) carry ~1e-7 relative error
    scale = 1 + x[:, 0] ** 2 / 18 + 0.5 * (np.abs(x[:, 1]) + 0.25 * (x[:, 0] ** 2 + 9)) ** 2 + np.abs(lw)
    assert (np.abs(out[1] - lw) <= 1e-6 * scale).all() and lw.min() < -1000
    m, s1, s2 = out[2].reshape(G, 3).T
    blk = np.arange(n) // 256 % G
    assert all(m[b] == out[1][blk == b].max() for b in range(G))           # the max exactly
    # the sums: terms in (0, 1] off by the largest weights' errors (~1e-6: log weights ~10 near the
    # max), and a few thousand float32 roundings at most: < 4e-6 in their logs
    assert np.abs(m + np.log(s1) - l1).max() < 4e-6 and np.abs(2 * m + np.log(s2) - l2).max() < 4e-6
    ess = np.exp(2 * np.logaddexp.reduce(l1) - np.logaddexp.reduce(l2))
    assert abs(s1.dot(np.exp(m - m.max())) ** 2 / s2.dot(np.exp(2 * (m - m.max()))) / ess - 1) < 1e-4


# ---- corner-hist-atomic ----

@pytest.mark.parametrize("n, policy", [(1500, "lockstep"), (200, "random")])
def test_corner_hist(n, policy):
    rng = np.random.default_rng(7)
    h = tp._p159_ch_args(n, rng)
    d = h[0].reshape(n, 6)
    lo, iw = h[1], h[2]
    # on the range's ends: lo is bin 0, lo + 64 widths is outside, below lo outside
    d[0] = lo
    d[1] = lo + np.float32(64) / iw * np.float32(1.0001)
    d[2] = lo - np.float32(1e-3)
    out = run("probe/corner-hist-atomic", h, n, policy=policy)
    h1, h2 = tp._p159_ch_ref(h[0], lo, iw)
    assert (out[3] == h1.ravel()).all() and (out[4] == h2.ravel()).all()
    b = tp._p159_ch_bins(h[0], lo, iw)
    assert (b[0] == 0).all() and (b[1:3] == -1).all() and h1.sum() < 6 * n and h2.max() >= 3
    assert h2[0].sum() == ((b[:, 0] >= 0) & (b[:, 1] >= 0)).sum()
