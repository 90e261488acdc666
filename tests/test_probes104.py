"""probe-unseen102's kernels (kernels_cuda/probes104.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/cartpole-es-rollout", "probe/qlearn-gridworld-atomic", "probe/value-iter-slip-tile16",
       "probe/gae-timemajor-scan", "probe/per-sumtree-sample-gather", "probe/policy-mlp-const-sample"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen102"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes104.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    # cartpole: fresh episodes, perturbed policies; about half end an episode in a launch
    cp = tp._p104_cp_args(n, rng)
    assert all(a.dtype == np.float32 and np.abs(a).max() <= 0.05 for a in cp[:4])
    assert not cp[4].any() and not cp[5].any() and not cp[6].any() and cp[7].shape == (4 * n,)
    w = cp[7].reshape(n, 4)
    assert np.allclose(w.mean(axis=0), tp.P104_CP_W, atol=0.05) and 0.45 < w.std(axis=0).min() < 0.55
    x, xd, th, thd, L, R, E, gap = tp._p104_cp_ref(*cp[:8])
    assert 0.4 < (E > 0).mean() < 0.65 and 30 < R.sum() / E.sum() < 80          # episodes of ~50 steps
    assert (E.reshape(-1, 32).sum(axis=1) > 0).all()                             # every warp resets some lane
    assert np.abs(x).max() <= tp.P104_CP_XLIM and np.abs(th).max() <= tp.P104_CP_THLIM and L.max() <= 200
    # qlearn: the map's cell fractions, agents on free cells, Q without ties
    ql = tp._p104_ql_args(n, rng)
    Q, cells, state, starts = ql[0], ql[3], ql[4], ql[5]
    frac = np.bincount(cells, minlength=4) / cells.size
    assert np.allclose(frac, tp.P104_QL_CELLS, atol=0.015) and ql[6] == len(starts)
    assert (cells[starts] == 0).all() and (cells[state] == 0).all() and Q.shape == (4 * 64 * 64,)
    Qs = np.sort(Q.reshape(-1, 4), axis=1)
    assert (np.diff(Qs, axis=1) > 0).all()
    dQ, N, new, a, term = tp._p104_ql_ref(Q, cells, state, starts)
    assert N.sum() == n and 0.01 < term.mean() < 0.1 and (cells[new] == 0).all()
    assert 0.12 < np.mean(a != np.argmax(Q.reshape(-1, 4)[state], axis=1)) < 0.18  # eps 0.2: 3/4 of them differ
    # value iteration: the type fractions
    vi = tp._p104_vi_args(256, rng)
    frac = np.bincount(vi[1], minlength=4) / vi[1].size
    assert np.allclose(frac, tp.P104_VI_CELLS, atol=0.01) and vi[3].shape == (256,) and np.abs(vi[0]).max() <= 1
    # gae: time-major shapes, an episode's end 1 step in 64
    ga = tp._p104_gae_args(64, rng)
    T = tp.P104_GAE_T
    assert len(ga[0]) == T * 64 and len(ga[1]) == (T + 1) * 64 and abs(ga[2].mean() - 1 / 64) < 0.005
    # per: the sum tree's sums, p_min, the weights in (0, 1]
    pa = tp._p104_per_args(256, rng, cap=1 << 12)
    tree = pa[0]
    assert tree[0] == 0 and (tree[1:4096] == tree[2:8192:2] + tree[3:8192:2]).all()
    assert pa[13] == tree[4096:].min() > 0 and abs(tree[1] / tree[4096:].sum() - 1) < 1e-5
    assert pa[3].max() == 3 and 0.01 < pa[5].mean() < 0.03
    idx, wt = tp._p104_per_ref(tree, 256, pa[13])
    assert 0 < wt.min() and wt.max() <= 1 and len(np.unique(idx)) > 240
    # policy: non-degenerate action probabilities
    ma = tp._p104_mlp_args(n, rng)
    syms = tp._p104_mlp_syms(n, rng)
    assert syms["c_W2"].shape == (64 * 64,) and all(v.dtype == np.float32 for v in syms.values())
    a, lp, p, gap = tp._p104_mlp_ref(ma[0], syms)
    assert 0.05 < p.min(axis=1).mean() and p.max(axis=1).mean() < 0.8
    assert (np.bincount(a, minlength=4) > n / 10).all()


# ---- cartpole-es-rollout ----

def test_cartpole_rollout():
    # 60 steps (the probe's 200 drift further from float64), 2 blocks, the last partial
    rng = np.random.default_rng(3)
    n = 300
    host = tp._p104_cp_args(n, rng, steps=60)
    out = run("probe/cartpole-es-rollout", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    x, xd, th, thd, L, R, E, gap = tp._p104_cp_ref(*host[:8], steps=60)
    ok = gap > 3e-5                                         # no decision within float32's drift (~1e-5) of its edge
    assert ok.mean() > 0.95
    assert (out[4] == L)[ok].all() and (out[5] == R)[ok].all() and (out[6] == E)[ok].all()
    for got, ref in zip(out[:4], (x, xd, th, thd)):
        np.testing.assert_allclose(got[ok], ref[ok], rtol=0, atol=5e-5)
    assert (E > 0)[ok].sum() >= 10 and (E > 1).any() and (out[7] == host[7]).all()      # resets compared too
    # episodes carried in: the length continues and the CP_MAX_LEN truncation ends them
    host[4] = np.full(n, tp.P104_CP_MAXLEN - 30, np.int32)
    host[5] = np.full(n, 7.0, np.float32)
    host[6] = np.full(n, 1, np.int32)
    out = run("probe/cartpole-es-rollout", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    x, xd, th, thd, L, R, E, gap = tp._p104_cp_ref(*host[:8], steps=60)
    ok = gap > 3e-5
    assert ok.mean() > 0.95 and (E >= 2).all() and (R >= 7 + tp.P104_CP_MAXLEN - 29).all()
    assert (out[4] == L)[ok].all() and (out[5] == R)[ok].all() and (out[6] == E)[ok].all()
    np.testing.assert_allclose(out[2][ok], th[ok], rtol=0, atol=5e-5)


# ---- qlearn-gridworld-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_qlearn_step(policy):
    n = 2000                                                # 8 blocks, the last partial
    host, out, *_ = launch("probe/qlearn-gridworld-atomic", n, policy=policy)
    dQ, N, new, a, term = tp._p104_ql_ref(host[0], host[3], host[4], host[5])
    assert (out[2] == N).all() and (out[4] == new).all() and (out[0] == host[0]).all()
    np.testing.assert_allclose(out[1], dQ, rtol=1e-5, atol=1e-6)
    assert term.sum() > 20 and (N > 1).any() and (new != host[4]).mean() > 0.5


def test_qlearn_crowded():
    # all agents in one state next to a goal: 4 slots take every atomicAdd
    rng = np.random.default_rng(4)
    n = 256
    host = tp._p104_ql_args(n, rng)
    cells = host[3]
    cells[:] = 0
    cells[5 * 64 + 6] = 2                                   # goal right of (5, 5)
    cells[4 * 64 + 5] = 1                                   # wall above
    cells[6 * 64 + 5] = 3                                   # pit below
    host[5] = np.flatnonzero(cells == 0).astype(np.int32)
    host[6] = np.int32(len(host[5]))
    host[4] = np.full(n, 5 * 64 + 5, np.int32)
    out = run("probe/qlearn-gridworld-atomic", host, n, policy="random")
    dQ, N, new, a, term = tp._p104_ql_ref(host[0], cells, host[4], host[5])
    s = 5 * 64 + 5
    assert N[s * 4:s * 4 + 4].sum() == n and (N[s * 4:s * 4 + 4] > 0).all()
    assert (out[2] == N).all() and (out[4] == new).all()
    np.testing.assert_allclose(out[1], dQ, rtol=1e-5, atol=1e-5)
    Qd = host[0].astype(np.float64)
    q = Qd[s * 4:s * 4 + 4]
    per = 0.1 * np.array([-0.01 + 0.95 * q.max() - q[0],                 # up: the wall, stays
                          1 - q[1],                                          # right: the goal
                          -1 - q[2],                                         # down: the pit
                          -0.01 + 0.95 * Qd[(s - 1) * 4:s * 4].max() - q[3]])    # left: a free cell
    np.testing.assert_allclose(out[1][s * 4:s * 4 + 4] / N[s * 4:s * 4 + 4], per, rtol=1e-5)
    assert (cells[out[4]] == 0).all() and (out[4] == s).sum() >= N[s * 4]


# ---- value-iter-slip-tile16 ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_value_iter(policy):
    n = 48                                                  # 3 x 3 blocks, border tiles on every side
    host, out, *_ = launch("probe/value-iter-slip-tile16", n, policy=policy)
    v, d = tp._p104_vi_ref(host[0], host[1])
    np.testing.assert_allclose(out[2], v.ravel(), rtol=0, atol=2e-6)
    np.testing.assert_allclose(out[3], d, rtol=1e-5)
    assert (out[0] == host[0]).all() and set(np.unique(host[1])) == {0, 1, 2, 3}
    typ = host[1]
    assert (out[2][typ == 1] == 1).all() and (out[2][typ == 2] == -1).all()


def test_value_iter_corners():
    # a constant V: interior and border cells alike (the clamped halo) get r + gamma V
    rng = np.random.default_rng(1)
    n = 32
    host = tp._p104_vi_args(n, rng)
    host[0] = np.full(n * n, 0.5, np.float32)
    host[1] = np.zeros(n * n, np.uint8)
    host[1][n - 1] = 3                                      # a mud corner
    out = run("probe/value-iter-slip-tile16", host, n)
    want = np.float32(-0.04) + np.float32(0.99) * 0.5
    np.testing.assert_allclose(out[2][:n - 1], want, rtol=1e-6)
    np.testing.assert_allclose(out[2][n - 1], np.float32(-0.5) + np.float32(0.99) * 0.5, rtol=1e-6)
    np.testing.assert_allclose(out[3], [0.045, 0.505, 0.045, 0.045], rtol=1e-5)      # block 1 holds the mud


# ---- gae-timemajor-scan ----

def test_gae_returns():
    n = 300                                                 # 2 blocks, the last partial
    host, out, *_ = launch("probe/gae-timemajor-scan", n)
    adv, ret = tp._p104_gae_ref(*host[:3])
    np.testing.assert_allclose(out[3], adv, rtol=0, atol=2e-5)
    np.testing.assert_allclose(out[4], ret, rtol=0, atol=2e-5)
    # at an episode's end the advantage is r - V (no bootstrap, nothing carried)
    k = np.flatnonzero(host[2])
    np.testing.assert_allclose(out[3][k], host[0][k] - host[1][k], rtol=0, atol=1e-6)


# ---- per-sumtree-sample-gather ----

@pytest.mark.parametrize("cap", [1 << 10, 1 << 12])
def test_per_sample(cap):
    rng = np.random.default_rng(cap)
    n = 300
    host = tp._p104_per_args(n, rng, cap=cap)
    out = run("probe/per-sumtree-sample-gather", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    idx, wt = tp._p104_per_ref(host[0], n, host[13])
    assert (out[11] == idx).all()
    np.testing.assert_allclose(out[12], wt, rtol=2e-6)
    d = tp.P104_OBS
    assert (out[6].reshape(n, d) == host[1].reshape(-1, d)[idx]).all()
    assert (out[7].reshape(n, d) == host[2].reshape(-1, d)[idx]).all()
    assert (out[8] == host[3][idx]).all() and (out[9] == host[4][idx]).all() and (out[10] == host[5][idx]).all()
    # stratified: sample i's leaf lies in segment i of the priorities' running sum
    cs = np.cumsum(host[0][cap:].astype(np.float64))
    seg = cs[-1] / n
    assert (np.abs((cs[idx] - host[0][cap:][idx] / 2) / seg - np.arange(n) - 0.5) < 1.01 + cs[-1] * 1e-5 / seg).all()


def test_per_one_heavy_leaf():
    # one transition with most of the priority: most samples land on it, with the least weight
    rng = np.random.default_rng(9)
    n, cap = 64, 1 << 8
    host = tp._p104_per_args(n, rng, cap=cap)
    p = host[0][cap:].copy()
    p[77] = 20 * p.sum()
    host[0] = tp._p104_sumtree(p)
    host[13] = np.float32(p.min())
    out = run("probe/per-sumtree-sample-gather", host, n)
    idx, wt = tp._p104_per_ref(host[0], n, host[13])
    assert (out[11] == idx).all() and (out[11] == 77).sum() >= 60
    np.testing.assert_allclose(out[12], wt, rtol=2e-6)
    assert out[12][out[11] == 77].max() == out[12].min()


# ---- policy-mlp-smem-sample ----

def test_policy_forward():
    n = 300                                                 # 2 blocks, the last partial
    host, out, syms, _ = launch("probe/policy-mlp-const-sample", n)
    a, lp, p, gap = tp._p104_mlp_ref(host[0], syms)
    assert gap > 1e-5
    assert (out[1] == a).all()
    np.testing.assert_allclose(out[2], lp, rtol=0, atol=2e-5)
    assert len(np.unique(a)) == 4 and (out[2] < 0).all()


def test_policy_forward_peaked():
    # a network whose last layer is scaled up: near one-hot probabilities, log-probabilities
    # of the likely action near 0 and of the rare draws far below
    rng = np.random.default_rng(6)
    n = 64
    host = tp._p104_mlp_args(n, rng)
    syms = tp._p104_mlp_syms(n, rng)
    syms["c_W3"] = (syms["c_W3"] * 20).astype(np.float32)
    out = run("probe/policy-mlp-const-sample", host, n, symbols=syms)
    a, lp, p, gap = tp._p104_mlp_ref(host[0], syms)
    assert gap > 1e-6 and (out[1] == a).all() and p.max(axis=1).mean() > 0.9
    np.testing.assert_allclose(out[2], lp, rtol=1e-4, atol=2e-5)
