"""probe-unseen190's kernels (kernels_cuda/probes192.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/boys-series-downward", "probe/gto-overlap-kinetic-os", "probe/sad-density-screened",
       "probe/coulomb-j-eri-atomic", "probe/becke-weights-smem", "probe/mp2-energy-const-f64"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen190"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes192.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    pos, Z = tp._p192_waters(64, rng)
    O, H1, H2 = pos[0::3], pos[1::3], pos[2::3]
    d1, d2 = np.linalg.norm(H1 - O, axis=1), np.linalg.norm(H2 - O, axis=1)
    ang = np.degrees(np.arccos(((H1 - O) * (H2 - O)).sum(axis=1) / (d1 * d2)))
    assert (Z == np.tile([8, 1, 1], 64)).all() and np.allclose(d1 / tp.P192_BOHR, 0.9572) and np.allclose(ang, 104.52)
    dOO = np.linalg.norm(O[:, None] - O[None], axis=2) / tp.P192_BOHR + 9 * np.eye(64)
    assert 2.2 < dOO.min() and np.median(dOO.min(axis=1)) < 3.3                # liquid-like packing
    assert np.linalg.norm(O, axis=1).max() / tp.P192_BOHR < 1.25 * 3.1 * (3 * 64 / (4 * np.pi)) ** (1 / 3)
    T, F, n = tp._p192_boys_args(1 << 16, rng)
    assert T.dtype == np.float32 and len(F) == 9 * n and T.min() >= 0 and 100 < np.median(T) < 400
    assert 0.08 < (T < tp.P192_BOYS_TSWITCH).mean() < 0.15 and T.max() > 1e4     # skewed: mostly asymptotic
    prim, S, K, nf = tp._p192_ok_args(3, rng)
    assert prim.dtype.itemsize == 32 and nf == 108 and len(S) == len(K) == nf * nf
    L = prim["lx"] + prim["ly"] + prim["lz"]
    assert list(np.bincount(L)) == [3 * 18, 3 * 12, 3 * 6] and (np.diff(prim["atom"]) >= 0).all()
    assert prim["alpha"].max() == np.float32(5484.6717) and prim["alpha"].min() == np.float32(0.1612778)
    # the grid integrates a Gaussian about each atom; the SAD density holds ~10 electrons a water
    pos, Z = tp._p192_waters(2, rng)
    pts, own, w = tp._p192_grid(pos, Z, 50, 110, rng)
    g = w * np.exp(-((pts - pos[own]) ** 2).sum(axis=1))
    assert len(pts) == 6 * 5500 and (np.diff(own) >= 0).all() and np.allclose(np.bincount(own, g), np.pi ** 1.5)
    h = tp._p192_sad_args(16500, np.random.default_rng(1))
    hb = tp._p192_bk_args(16500, np.random.default_rng(1))
    assert (h[0] == hb[0]).all() and h[16] == hb[10] == 3 and len(h[0]) == 16500
    rho = tp._p192_sad_ref(*h[:15])[0]
    assert abs((tp._p192_bk_ref(*hb[:9])[0] * rho).sum() - 10) < 1                 # Becke-weighted
    assert np.allclose(np.sqrt(h[6]), [8.97, 11.50, 11.50], atol=0.01) and (rho == 0).mean() > 0.05
    bra, ket, eri, D, J, n = tp._p192_j_args(230000, np.random.default_rng(0))   # 2 waters: 692 pairs
    rows = np.bincount(bra, minlength=len(D))
    assert len(bra) == n and (np.diff(bra) >= 0).all() and (ket <= bra).all() and len(D) == 692
    assert (np.diff(ket)[np.diff(bra) == 0] > 0).all() and rows.std() > 0.3 * rows.mean()   # uneven rows
    assert 1e-10 < eri.min() < 1e-8 and eri.max() > 1e3 * np.median(eri) and (bra == ket).sum() > 500
    K, part, no, nv = tp._p192_mp2_args(2, rng)
    sy = tp._p192_mp2_syms(2, rng)
    assert (no, nv) == (8, 28) and len(part) == -(-(8 * 28) ** 2 // 256) == tp.get(IDS[5]).grid(2)
    K4 = K.reshape(no, nv, no, nv)
    assert (K4 == K4.transpose(2, 3, 0, 1)).all()                               # (ia|jb) = (jb|ia)
    eo, ev = sy["c_eocc"][:no], sy["c_evir"][:nv]
    assert (np.diff(eo) >= 0).all() and eo.max() < 0 < ev.min() and (sy["c_evir"][nv:] == 0).all()
    assert -0.3 < tp._p192_mp2_ref(K, eo, ev).sum() / 2 < -0.1                  # E2 per water


# ---- boys-series-downward ----

def test_boys_function():
    host, out, *_ = launch("probe/boys-series-downward", 600)         # 5 blocks of 128, the last partial
    ref = tp._p192_boys_ref(host[0])
    F = out[1].reshape(-1, 9)
    # float32 against float64: the series' <= 60 positive terms and a recursion step's few
    # roundings keep the relative error under 60 2^-24 = 3.6e-6; below 1e-36 float32 is subnormal
    ok = ref > 1e-36
    assert (np.abs(F - ref)[ok] <= 2e-6 * ref[ok]).all() and (np.abs(F - ref)[~ok] < 1e-37).all()
    assert (host[0] < 30).sum() > 40 and (~ok).any()
    # T = 0: 1 / (2m + 1) exactly; either side of the switch and far out
    T = np.float32([0, 1e-30, 1e-3, np.nextafter(np.float32(30), np.float32(0)), 30, 100, 1e4, 1e6])
    F = run("probe/boys-series-downward", [T, np.zeros(72, np.float32), np.int32(8)], 8)[1].reshape(8, 9)
    assert (F[0] == np.float32(1) / np.float32(2 * np.arange(9) + 1)).all()
    ref = tp._p192_boys_ref(T)
    ok = ref > 1e-36
    assert (np.abs(F - ref)[ok] <= 2e-6 * ref[ok]).all() and (np.abs(F - ref)[~ok] < 1e-37).all()
    assert list(np.flatnonzero(~ok)) == [7 * 9 + 6, 7 * 9 + 7, 7 * 9 + 8]     # T = 1e6: F_6 ~ 1e-37


# ---- gto-overlap-kinetic-os ----

@pytest.mark.parametrize("n, policy", [(2, "lockstep"), (1, "random")])
def test_gto_overlap_kinetic(n, policy):
    host = tp._p192_ok_args(n, np.random.default_rng(1))                  # 72 primitives: 5 x 5 blocks
    if policy == "random":                                                 # 20 of them (O's p, d; H): 2 x 2
        host = [host[0][16:], np.zeros(400, np.float32), np.zeros(400, np.float32), np.int32(20)]
    out = run("probe/gto-overlap-kinetic-os", host, n, policy=policy, grid=(2, 2) if policy == "random" else None)
    S, T, mr2 = tp._p192_ok_ref(host[0])
    nf = int(host[3])
    keep = mr2 < tp.P192_OK_CUT
    assert np.abs(mr2 - tp.P192_OK_CUT).min() > 1e-3 and 0.3 < keep.mean() and (~keep).any()
    # against the Cauchy-Schwarz scales sqrt(X_ii X_jj): float32 centres of a few bohr put the
    # product centre ~2e-7 bohr off, times sqrt(2 alpha) <= 105 / bohr, and ~20 roundings
    scale = lambda X: np.sqrt(np.outer(np.diag(X), np.diag(X)))
    assert (np.diag(S) > 0).all() and (np.diag(T) > 0).all()
    assert (np.abs(out[1].reshape(nf, nf) - np.where(keep, S, 0)) <= 1e-5 * scale(S)).all()
    assert (np.abs(out[2].reshape(nf, nf) - np.where(keep, T, 0)) <= 1e-5 * scale(T)).all()
    assert (out[1][~keep.ravel()] == 0).all() and (out[2][~keep.ravel()] == 0).all()


def test_gto_overlap_kinetic_s_pairs():
    # s primitives: S = (pi / p)^1.5 exp(-mu R^2), T = mu (3 - 2 mu R^2) S; one pair just past the cut
    prim = np.zeros(16, tp.P192_PRIM_DTYPE)
    prim["alpha"] = np.float32([0.25, 1.0, 4.0, 16.0] * 4)
    prim["x"] = np.float32(np.repeat([0.0, 1.5, 2.0, 5.0], 4))
    prim["atom"] = np.repeat(np.arange(4), 4)
    out = run("probe/gto-overlap-kinetic-os", [prim, np.zeros(256, np.float32), np.zeros(256, np.float32),
                                                np.int32(16)], 1)
    a = prim["alpha"].astype(np.float64)
    p = a[:, None] + a[None, :]
    mu = a[:, None] * a[None, :] / p
    R2 = (prim["x"][:, None] - prim["x"][None, :]).astype(np.float64) ** 2
    S = (np.pi / p) ** 1.5 * np.exp(-mu * R2)
    T = mu * (3 - 2 * mu * R2) * S
    keep = mu * R2 < 30
    assert (~keep).sum() > 10 and keep[3, 7] and not keep[3, 11]                # mu R^2 = 8 x 1.5^2, 8 x 2^2
    assert np.allclose(out[1].reshape(16, 16), np.where(keep, S, 0), rtol=2e-6, atol=0)
    scale = np.sqrt(np.outer(np.diag(T), np.diag(T)))
    assert (np.abs(out[2].reshape(16, 16) - np.where(keep, T, 0)) <= 2e-6 * scale).all()


# ---- sad-density-screened ----

@pytest.mark.parametrize("n, policy", [(288, "lockstep"), (40, "random")])
def test_sad_density(n, policy):
    rng = np.random.default_rng(2)
    h = tp._p192_sad_args(n, rng, grid=(6, 8))                           # 2 waters of 6 x 48 points
    # the first point on the O atom (only its s functions count), the second beyond every cut-off
    h[0][0], h[1][0], h[2][0] = h[3][0], h[4][0], h[5][0]
    h[0][1] = 100.0
    out = run("probe/sad-density-screened", h, n, policy=policy)
    rho, gap = tp._p192_sad_ref(*h[:15])
    # float32 against float64: up to 225 products of a quadratic form a heavy atom, all of one
    # sign but for few small off-diagonal terms, and expf's 2 ulp: 1e-5 relative
    assert gap > 1e-5 and (np.abs(out[15] - rho) <= 1e-5 * rho).all()
    assert out[15][1] == 0 and (rho == 0).any() and rho.max() > 100


# ---- coulomb-j-eri-atomic ----

@pytest.mark.parametrize("n, policy", [(15000, "lockstep"), (2000, "random")])
def test_coulomb_j(n, policy):
    host, out, *_ = launch("probe/coulomb-j-eri-atomic", n, policy=policy)   # one water: 190 pairs
    J, A = tp._p192_j_ref(*host[:4])
    # float atomics in any order: a row's <= 2 x 190 terms summed with error < 380 2^-24 sum |terms|
    assert (np.abs(out[4] - J) <= 2.3e-5 * A).all() and (A > 0).sum() > 100
    # integer-valued integrals and densities: every order of the sums is exact
    rng = np.random.default_rng(3)
    h = list(host)
    h[2] = rng.integers(-3, 4, n).astype(np.float32)
    h[3] = rng.integers(-2, 3, len(host[3])).astype(np.float32)
    out = run("probe/coulomb-j-eri-atomic", h, n, policy=policy)
    assert (out[4] == tp._p192_j_ref(*h[:4])[0]).all() and np.abs(out[4]).max() > 10


# ---- becke-weights-smem ----

@pytest.mark.parametrize("n, policy", [(600, "lockstep"), (200, "random")])
def test_becke_weights(n, policy):
    rng = np.random.default_rng(4)
    h = tp._p192_bk_args(n, rng, grid=(6, 14))                           # 3 waters (9 atoms) of 84 points
    h[0][5], h[1][5], h[2][5] = h[5][0], h[6][0], h[7][0]                # a point on its own atom
    h[0][90], h[1][90], h[2][90] = h[5][0], h[6][0], h[7][0]             # and on atom 0 but owned by atom 1
    out = run("probe/becke-weights-smem", h, n, policy=policy)
    w, PA = tp._p192_bk_ref(*h[:9])
    # float32 against float64: mu's cancellation |r_A - r_B| costs ~ulp(r) / R_AB <= 1e-6 and
    # the cubic's slope is <= 1.7: 1e-5 of the quadrature weight
    assert (np.abs(out[9] - w) <= 1e-5 * h[4]).all() and (w < 1e-3 * h[4]).any() and (w > 0.99 * h[4]).any()
    assert out[9][5] == h[4][5] and out[9][90] == 0


def test_becke_partition_of_unity():
    # one point owned in turn by each of the 9 atoms: its weights sum to its quadrature weight
    rng = np.random.default_rng(5)
    h = tp._p192_bk_args(84 * 9, rng, grid=(6, 14))
    pick = np.arange(0, 84 * 9, 37)[:25]
    n = 9 * len(pick)
    h2 = [np.repeat(h[k][pick], 9) for k in range(3)] + [np.tile(np.arange(9, dtype=np.int32), len(pick)),
                                                        np.repeat(h[4][pick], 9)] + h[5:9] + [np.zeros(n, np.float32),
                                                                                              np.int32(9), np.int32(n)]
    out = run("probe/becke-weights-smem", h2, n)[9].reshape(-1, 9)
    assert np.allclose(out.sum(axis=1), h[4][pick], rtol=2e-6, atol=0)


# ---- mp2-energy-const-f64 ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_mp2_energy(policy):
    host, out, syms, _ = launch("probe/mp2-energy-const-f64", 1)         # 3136 terms: 13 blocks, the last partial
    no, nv = int(host[2]), int(host[3])
    t = tp._p192_mp2_ref(host[0], syms["c_eocc"][:no], syms["c_evir"][:nv]).ravel()
    nb = len(host[1])
    t = np.concatenate([t, np.zeros(256 * nb - len(t))]).reshape(nb, 256)
    if policy == "random":                                                 # the first 3 blocks
        out = run("probe/mp2-energy-const-f64", host, 1, policy=policy, symbols=syms, grid=(3,))
        t = t[:3]
    # double against double in another summation order: 255 additions, < 1e-13 of sum |terms|
    assert (np.abs(out[1][:len(t)] - t.sum(axis=1)) <= 1e-13 * np.abs(t).sum(axis=1)).all()
    assert abs(out[1].sum() - t.sum()) < 1e-13 * np.abs(t).sum() and t.sum() < -0.01


def test_mp2_one_integral():
    # (ia|jb) = (jb|ia) = 0.1 for i = 0, a = 1, j = 2, b = 3 (its exchange partner (ib|ja) 0):
    # E2 = 2 x 0.1 (0.2 - 0) / (e_0 + e_2 - e_v1 - e_v3), in the block of its own index and its partner's
    no, nv = 4, 14
    K = np.zeros((no, nv, no, nv))
    K[0, 1, 2, 3] = K[2, 3, 0, 1] = 0.1
    eo = np.array([-1.3, -0.7, -0.6, -0.5])
    ev = np.linspace(0.2, 3.0, nv)
    syms = {"c_eocc": np.concatenate([eo, np.zeros(60)]), "c_evir": np.concatenate([ev, np.zeros(512 - nv)])}
    part = run("probe/mp2-energy-const-f64", [K.ravel(), np.zeros(13), np.int32(no), np.int32(nv)], 1,
               symbols=syms)[1]
    i1, i2 = np.ravel_multi_index((0, 1, 2, 3), K.shape) // 256, np.ravel_multi_index((2, 3, 0, 1), K.shape) // 256
    assert part[i1] == 0.1 * 0.2 / (eo[0] + eo[2] - ev[1] - ev[3]) and np.count_nonzero(part) == 2
    assert part[i2] == 0.1 * 0.2 / (eo[2] + eo[0] - ev[3] - ev[1])
