"""probe-unseen101's kernels (kernels_cuda/probes103.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/u1-plaquette-blocksum", "probe/wilson-dslash-u1", "probe/su2-heatbath-kp", "probe/su2-polyakov-atomic",
       "probe/cg-cdot-double", "probe/u1-metropolis-2d-smem"]


def copy(host):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in host]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen101"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes103.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # U(1) links: uniform-looking angles in [-pi, pi), plaquettes those of the noise alone
    L = 8
    th, bs, LL = tp._p103_plaq_args(L, rng)
    assert th.dtype == np.float32 and len(th) == 4 * L ** 4 and LL == L and len(bs) == L ** 4 // 256
    assert th.min() >= -np.pi and th.max() < np.pi and abs(np.cos(th).mean()) < 0.02 and np.cos(th).std() > 0.69
    p = tp._p103_plaq_field(th, L)
    assert abs(p.mean() / 6 - np.exp(-2 * tp.P103_PQ_EPS ** 2)) < 0.01
    g = rng.uniform(-np.pi, np.pi, (L,) * 4)               # gauge invariance of the plaquettes
    th2 = th.reshape((L,) * 4 + (4,)).astype(np.float64).copy()
    for mu in range(4):
        th2[..., mu] += g - np.roll(g, -1, axis=3 - mu)
    np.testing.assert_allclose(tp._p103_plaq_field(th2, L), p, atol=1e-9)
    # the gamma matrices: hermitian, square to one, anticommuting
    gm = tp._p103_gammas()
    for mu in range(4):
        assert np.allclose(gm[mu], gm[mu].conj().T)
        for nu in range(4):
            assert np.allclose(gm[mu] @ gm[nu] + gm[nu] @ gm[mu], 2 * (mu == nu) * np.eye(4))
    U, psi, out, kappa, LL = tp._p103_wd_args(L, rng)
    assert U.dtype == psi.dtype == np.float32 and len(U) == len(psi) == 8 * L ** 4 and kappa == np.float32(0.124)
    assert np.abs(np.hypot(U[0::2], U[1::2]) - 1).max() < 1e-6 and abs(psi.std() - np.sqrt(0.5)) < 0.01
    # SU(2) links: unit quaternions near the identity
    U, beta, mu, par, seed, LL = tp._p103_hb_args(L, rng)
    q = U.reshape(-1, 4).astype(np.float64)
    assert U.dtype == np.float32 and np.abs(np.linalg.norm(q, axis=1) - 1).max() < 1e-6
    assert 0.75 < q[:, 0].mean() < 0.82 and q[:, 0].min() > 0
    Uq, tries, k, gap = tp._p103_hb_ref(U, L)
    assert 3 < k.mean() < 4.5 and k.max() < 6 and gap > 1e-4                # six staples, not aligned
    assert 1.02 < tries.mean() < 1.1 and tries.reshape(-1, 32).max(axis=1).mean() > 1.7    # divergent warps
    assert tries.max() < tp.P103_HB_MAXTRY and np.abs(np.linalg.norm(Uq, axis=-1) - 1).max() < 1e-6
    U, poly, s, hist, Ls, Lt = tp._p103_pl_args(16, rng)
    assert len(U) == 16 * 16 ** 3 * Lt and len(hist) == 64 and Lt == 8
    pl = tp._p103_pl_ref(U, 16)
    assert 0.25 < pl.mean() < 0.4 and pl.min() < -0.5 and pl.max() > 0.95
    nb = [len(set(b)) for b in tp._p103_pl_bins(pl).reshape(-1, 32)]
    assert 18 < np.mean(nb) < 28                                             # a warp's lanes on ~23 bins
    p, q, res, n = tp._p103_cg_args(1 << 16, rng)
    c = tp._p103_cg_ref(p, q)
    assert p.dtype == np.float32 and res.dtype == np.float64 and abs(c.real / n - 1) < 0.02 and abs(c.imag / n) < 0.02
    assert tp._p103_cg_grid(1 << 24) == 1024 and tp._p103_cg_grid(5000) == 20
    th, beta, delta, mu, par, seed, LL = tp._p103_mc_args(64, rng)
    assert len(th) == 2 * 64 * 64 and th.min() >= -np.pi and th.max() < np.pi
    t2, nacc, gap = tp._p103_mc_ref(th, 64)
    assert 0.6 < nacc.mean() / tp.P103_MC_NHIT < 0.75 and nacc.min() >= 0 and nacc.max() == tp.P103_MC_NHIT


# ---- u1-plaquette-blocksum ----

@pytest.mark.parametrize("L", [4, 6])
def test_u1_plaquette(L):
    # 6^4 = 1296 sites: the last of 6 blocks partial
    host, (th, bs, LL), *_ = launch("probe/u1-plaquette-blocksum", L)
    ref = tp._p103_plaq_ref(host[0], L)
    assert len(bs) == len(ref) == -(-L ** 4 // 256)
    np.testing.assert_allclose(bs, ref, rtol=0, atol=2e-4)
    assert (th == host[0]).all()


# ---- wilson-dslash-u1 ----

@pytest.mark.parametrize("L", [4, 6])
def test_wilson_dslash(L):
    host, (U, psi, out, kappa, LL), *_ = launch("probe/wilson-dslash-u1", L)
    ref = tp._p103_wd_ref(host[0], host[1], L)
    got = out.reshape(-1, 4, 2)
    np.testing.assert_allclose(got[..., 0], ref.real, rtol=0, atol=2e-5)
    np.testing.assert_allclose(got[..., 1], ref.imag, rtol=0, atol=2e-5)
    assert np.abs(ref - host[1].reshape(-1, 4, 2) @ [1, 1j]).max() > 1         # the hopping term matters


def test_wilson_dslash_free_constant():
    # a trivial background and a constant spinor: out = (1 - 8 kappa) psi
    L = 4
    rng = np.random.default_rng(3)
    host = tp._p103_wd_args(L, rng)
    host[0][0::2], host[0][1::2] = 1, 0
    s = rng.standard_normal(8).astype(np.float32)
    host[1] = np.tile(s, L ** 4)
    out = run("probe/wilson-dslash-u1", host, L)[2]
    np.testing.assert_allclose(out, np.tile(s * (1 - 8 * np.float32(0.124)), L ** 4), rtol=0, atol=1e-6)


# ---- su2-heatbath-kp ----

@pytest.mark.parametrize("L, mu, parity", [(4, 1, 0), (6, 3, 1), (4, 0, 1)])
def test_su2_heatbath(L, mu, parity):
    rng = np.random.default_rng(L + mu)
    host = tp._p103_hb_args(L, rng)
    host[2], host[3] = np.int32(mu), np.int32(parity)
    U = run("probe/su2-heatbath-kp", copy(host), L)[0].reshape(-1, 4, 4)
    ref, tries, k, gap = tp._p103_hb_ref(host[0], L, mu=mu, parity=parity)
    assert gap > 1e-5 and tries.max() < tp.P103_HB_MAXTRY
    x, _ = tp._p103_hb_sites(L, parity)
    U0 = host[0].reshape(-1, 4, 4)
    changed = np.zeros(U0.shape[:2], bool)
    changed[x, mu] = True
    assert (U[~changed] == U0[~changed]).all()                                # only those links
    np.testing.assert_allclose(U[changed], ref[changed], rtol=0, atol=1e-4)
    assert np.abs(np.linalg.norm(U[changed].astype(np.float64), axis=-1) - 1).max() < 1e-5
    assert np.abs(U[changed] - U0[changed]).max() > 0.3


# ---- su2-polyakov-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_su2_polyakov(policy):
    Ls = 8                                                  # 512 spatial sites: 2 blocks
    host, (U, poly, s, hist, *_), *_ = launch("probe/su2-polyakov-atomic", Ls, policy=policy)
    np.testing.assert_allclose(poly, tp._p103_pl_ref(host[0], Ls), rtol=0, atol=2e-6)
    assert (hist == np.bincount(tp._p103_pl_bins(poly), minlength=64)).all() and hist.sum() == Ls ** 3
    np.testing.assert_allclose(s[0], poly.astype(np.float64).sum(), rtol=0, atol=1e-3)


def test_su2_polyakov_ordered():
    # the cold start (all links one): every loop 1, in the last bin
    Ls = 4
    host = tp._p103_pl_args(Ls, np.random.default_rng(1))
    host[0][:] = np.tile([1, 0, 0, 0], len(host[0]) // 4)
    U, poly, s, hist, *_ = run("probe/su2-polyakov-atomic", host, Ls)
    assert (poly == 1).all() and s[0] == Ls ** 3 and hist[-1] == Ls ** 3 and hist.sum() == Ls ** 3


# ---- cg-cdot-double ----

@pytest.mark.parametrize("n", [5000, 270000])
def test_cg_cdot(n):
    # 270000 > 1024 blocks of 256: the grid-stride loop's second trip for some threads
    host, (p, q, res, nn), *_ = launch("probe/cg-cdot-double", n)
    c = tp._p103_cg_ref(host[0], host[1])
    np.testing.assert_allclose(res, [c.real, c.imag], rtol=1e-12, atol=1e-9)


def test_cg_cdot_norm():
    # <p, p>: the imaginary part cancels exactly (float products are exact in double)
    n = 3000
    host = tp._p103_cg_args(n, np.random.default_rng(2))
    host[1] = host[0].copy()
    res = run("probe/cg-cdot-double", host, n, policy="random")[2]
    assert res[1] == 0.0
    np.testing.assert_allclose(res[0], (host[0].astype(np.float64) ** 2).sum(), rtol=1e-13)


# ---- u1-metropolis-2d-smem ----

@pytest.mark.parametrize("mu, parity, policy", [(0, 1, "lockstep"), (1, 0, "random")])
def test_u1_metropolis(mu, parity, policy):
    L = 32                                                  # 2 x 2 tiles: the halos wrap
    rng = np.random.default_rng(10 + mu)
    host = tp._p103_mc_args(L, rng)
    host[3], host[4] = np.int32(mu), np.int32(parity)
    th = run("probe/u1-metropolis-2d-smem", copy(host), L, policy=policy)[0].reshape(L, L, 2)
    ref, nacc, gap = tp._p103_mc_ref(host[0], L, mu=mu, parity=parity)
    assert gap > 5e-6
    th0 = host[0].reshape(L, L, 2)
    on = np.zeros((L, L, 2), bool)
    on[..., mu] = (np.add.outer(np.arange(L), np.arange(L)) & 1) == parity
    assert (th[~on] == th0[~on]).all()
    np.testing.assert_allclose(th[on], ref[on], rtol=0, atol=2e-5)
    assert (th[on] != th0[on]).mean() > 0.9 and 0.5 < nacc.mean() / tp.P103_MC_NHIT < 0.85
