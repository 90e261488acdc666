"""probe-unseen133's kernels (kernels_cuda/probes135.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/compound-poisson-aggclaims", "probe/chain-ladder-bootstrap-smem", "probe/annuity-epv-lifetable-const",
       "probe/var-loss-hist-smem-atomics", "probe/xol-tower-warp-atomics", "probe/glm-freqsev-premium-smem"]


def copy(host):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in host]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen133"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes135.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    # compound Poisson: Gamma means, ~25 claims, divergent warps, the cap never reached
    lam, *rest = tp._p135_cp_args(n, rng)
    assert lam.dtype == np.float32 and abs(lam.mean() - 25) < 0.5 and abs(lam.std() / lam.mean() - 0.3) < 0.02
    S, k, mx, gap = tp._p135_cp_ref(lam)
    assert abs(k.mean() - 25) < 0.6 and k.min() >= 1 and k.max() < 90 and gap > 1e-6
    assert k.reshape(-1, 32).max(axis=1).mean() > 1.6 * k.mean()
    assert 2 * k.max() + 1 < tp.P135_CP_STRIDE and (mx <= S).all() and (mx > 0).all()
    # chain ladder: cumulative rows, the unknown part zero, factors above 1 decreasing to ~1
    C = tp._p135_cl_args(64, rng)[0].reshape(64, 16, 16)
    j = np.arange(16)
    known = j[:, None] + j[None, :] < 16
    assert (C[:, ~known] == 0).all() and (C[:, known] > 0).all()
    assert all((np.diff(C[t, i, :16 - i]) > 0).all() for t in range(64) for i in range(15))
    f, ult, res, tot = tp._p135_cl_ref(C)
    assert (f > 1).all() and 1.4 < f[:, 0].mean() < 1.8 and f[:, -1].max() < 1.01 and (res[:, 0] == 0).all()
    # the life table: q_x rising with age, females lower, q_120 = 1
    q = tp._p135_an_qx()
    assert q.shape == (2, 121) and (np.diff(q, axis=1) > 0).all() and (q[1] < q[0])[:-1].all()
    assert (q[:, -1] == 1).all() and 0.003 < q[0, 60] < 0.02 and tp._p135_an_syms(n, rng)["c_qx"].shape == (242,)
    age, sex, defer, amt, *rest = tp._p135_an_args(n, rng)
    ret = defer == 0
    assert 0.55 < ret.mean() < 0.65 and age[ret].min() >= 60 and age[ret].max() <= 95
    assert (age[~ret] >= 25).all() and (age[~ret] <= 64).all() and (age[~ret] + defer[~ret] == 65).all()
    assert (121 - age).reshape(-1, 32).max(axis=1).mean() > 90 and set(np.unique(sex)) == {0, 1}
    # losses: ~400 bins busy, the tail bin nearly empty
    loss = tp._p135_vh_args(1 << 16, rng)[0]
    h = tp._p135_vh_ref(loss)
    assert loss.dtype == np.float32 and 600 < (h > 0).sum() < 800 and h.max() / h.sum() < 0.01
    assert 280 < (h > 0.0005 * h.sum()).sum() < 400 and h[-1] < 10
    blk = tp._p135_vh_ref(loss[:4096])                      # a block's span of the losses
    assert 380 < (blk > 0).sum() < 520
    # the tower: contiguous layers, ~20% of the claims reach the first, few the top
    r, lim = tp._p135_rl_tower()
    assert (r[1:] == r[:-1] + lim[:-1]).all() and lim[-1] == 2.5e7
    claims = tp._p135_rl_args(1 << 16, rng)[0]
    assert (claims == np.round(claims)).all() and claims.min() >= 0
    reach = (tp._p135_rl_ref(claims)[2] > 0).mean(axis=0)
    assert 0.18 < reach[0] < 0.23 and 0.035 < reach[1] < 0.055 and reach[-1] < 1e-3 and (np.diff(reach) < 0).all()
    warps = (tp._p135_rl_ref(claims)[2].reshape(-1, 32, 8) > 0).any(axis=1).sum(axis=1).mean()
    assert 2 < warps < 2.8                                  # float atomics a warp
    # the GLM: levels in range, padded tables with base levels 0, ~11% at the minimum premium
    lev, expo, bf, bs, *rest = tp._p135_gl_args(n, rng)
    L = lev.reshape(n, 6)
    assert lev.dtype == np.uint8 and (L.max(axis=0) < np.array(tp.P135_GL_NLEV)).all()
    off = tp._p135_gl_offsets()
    assert (bf[off] == 0).all() and (bs[off] == 0).all() and (bf[211:] == 0).all() and (bs[211:] == 0).all()
    assert (tp._p135_gl_syms(n, rng)["c_off"] == off).all() and off[-1] + 4 == 211
    assert 0.65 < (expo == 1).mean() < 0.75 and expo.min() >= 0.02
    prem, raw = tp._p135_gl_ref(lev, expo, bf, bs)
    assert 0.08 < (raw < tp.P135_GL_MIN).mean() < 0.15 and 100 < np.median(prem) < 250


# ---- compound-poisson-aggclaims ----

def cp_check(host, out):
    S, k, mx, gap = tp._p135_cp_ref(host[0])
    assert gap > 1e-6
    assert (out[2] == k).all()
    np.testing.assert_allclose(out[1], S, rtol=2e-5, atol=0)
    np.testing.assert_allclose(out[3], mx, rtol=2e-5, atol=0)
    return k


def test_compound_poisson():
    n = 300                                                 # 2 blocks, the last partial
    host, out, *_ = launch("probe/compound-poisson-aggclaims", n)
    k = cp_check(host, out)
    assert out[2].min() > 0 and (out[3] <= out[1]).all() and 20 < k.mean() < 30


def test_compound_poisson_edges():
    # no claims (lam 0: the first uniform never above exp(0)), a tiny mean, and means so
    # large that expf(-lam) underflows to 0 (the count ends where the float32 product does)
    rng = np.random.default_rng(3)
    n = 40
    host = tp._p135_cp_args(n, rng)
    host[0][:4] = [0.0, 0.01, 400.0, 1000.0]
    out = run("probe/compound-poisson-aggclaims", copy(host), n, policy="random")
    k = cp_check(host, out)
    assert k[0] == 0 and out[1][0] == 0 and out[3][0] == 0
    assert (90 < k[2:4]).all() and (k[2:4] < tp.P135_CP_MAX).all()


# ---- chain-ladder-bootstrap-smem ----

def test_chain_ladder():
    rng = np.random.default_rng(4)
    n = 3
    host = tp._p135_cl_args(n, rng)
    host[0][2 * 256:] = 0                                   # an empty triangle: factors 1, no reserves
    out = run("probe/chain-ladder-bootstrap-smem", copy(host), n)
    f, ult, res, tot = tp._p135_cl_ref(host[0])
    np.testing.assert_allclose(out[1], f.ravel(), rtol=2e-6)
    np.testing.assert_allclose(out[2], ult.ravel(), rtol=2e-6)
    np.testing.assert_allclose(out[3], res.ravel(), rtol=1e-5, atol=1e-2)
    np.testing.assert_allclose(out[4], tot, rtol=1e-5)
    assert (out[1][30:] == 1).all() and (out[2][32:] == 0).all() and out[4][2] == 0
    assert (out[3].reshape(n, 16)[:, 0] == 0).all() and (out[4][:2] > 1e4).all()


def test_chain_ladder_launch():
    host, out, *_ = launch("probe/chain-ladder-bootstrap-smem", 2)
    f, ult, res, tot = tp._p135_cl_ref(host[0])
    np.testing.assert_allclose(out[4], tot, rtol=1e-5)
    np.testing.assert_allclose(out[2], ult.ravel(), rtol=2e-6)


# ---- annuity-epv-lifetable-const ----

def test_annuity_pv():
    rng = np.random.default_rng(5)
    n = 200
    host = tp._p135_an_args(n, rng)
    # age 120 (one payment of 1 if undeferred), a deferral beyond the table (nothing), age 0
    host[0][:4] = [120, 120, 100, 0]
    host[2][:4] = [0, 1, 30, 65]
    host[3][:4] = 1.0
    out = run("probe/annuity-epv-lifetable-const", copy(host), n, symbols=tp._p135_an_syms(n, rng))
    ref = tp._p135_an_ref(*host[:4])
    np.testing.assert_allclose(out[4], ref, rtol=3e-5)
    assert out[4][0] == 1 and out[4][1] == 0 and out[4][2] == 0 and out[4][3] > 0


def test_annuity_pv_launch():
    host, out, *_ = launch("probe/annuity-epv-lifetable-const", 300, policy="random")
    np.testing.assert_allclose(out[4], tp._p135_an_ref(*host[:4]), rtol=3e-5)
    ret = host[2] == 0
    per = out[4] / host[3]                                  # a unit annuity's EPV
    assert ret.any() and (~ret).any() and per[ret].mean() > per[~ret].mean() and (per > 1).all()


# ---- var-loss-hist-smem-atomics ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_loss_hist(policy):
    rng = np.random.default_rng(6)
    n = 5000                                                # 2 blocks, 10 .. 20 trips a thread
    host = tp._p135_vh_args(n, rng)
    host[0][:6] = [0.0, 0.25, 0.5, 255.75, 256.0, 1e9]      # bin edges, the last bin's edge, the tail
    out = run("probe/var-loss-hist-smem-atomics", copy(host), n, policy=policy)
    ref = tp._p135_vh_ref(host[0])
    assert (out[1] == ref).all() and out[1].sum() == n and out[1][-1] >= 3 and out[1][1] >= 1


# ---- xol-tower-warp-atomics ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_xol_layers(policy):
    rng = np.random.default_rng(7)
    n = 300                                                 # 2 blocks, the last partial (lanes past n)
    host = tp._p135_rl_args(n, rng)
    r, lim = tp._p135_rl_tower()
    host[0][:6] = [0.0, r[0], r[0] + lim[0], r[3] + 1, r[7] + lim[7], 1e9]   # edges, the tower exhausted
    out = run("probe/xol-tower-warp-atomics", copy(host), n, policy=policy, symbols=tp._p135_rl_syms(n, rng))
    net, tot, R = tp._p135_rl_ref(host[0])
    assert (out[1] == net).all()
    np.testing.assert_allclose(out[2], tot, rtol=1e-5)
    assert out[1][0] == 0 and out[1][1] == r[0] and (out[1][2:5] == r[0]).all()     # the tower retains r[0]
    assert abs(out[1][5] - (1e9 - float(lim.sum()))) < 64                           # past the top
    assert (out[2] > 0).all()


# ---- glm-freqsev-premium-smem ----

def test_glm_premium():
    n = 300
    host, out, syms, _ = launch("probe/glm-freqsev-premium-smem", n, policy="random")
    prem, raw = tp._p135_gl_ref(*host[:4])
    np.testing.assert_allclose(out[4], prem, rtol=2e-5)
    low = raw < tp.P135_GL_MIN * (1 - 1e-4)
    assert low.any() and (out[4][low] == np.float32(tp.P135_GL_MIN)).all()
    assert (out[4][~low] > tp.P135_GL_MIN * 0.999).all()
