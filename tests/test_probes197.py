"""probe-unseen195's kernels (kernels_cuda/probes197.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/mc-sphere-cenergy-bsearch", "probe/xs-union-grid-gather", "probe/diffusion-2g-jacobi-harmonic",
       "probe/point-kinetics-rk4-double", "probe/moc-sweep-c5g7-atomic", "probe/entropy-mesh-smem-atomic"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen195"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes197.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # mc: the grid refined at the resonances, the cross sections of a uranium-water mixture
    E, ss, sc, sf = tp._p197_mc_table()
    assert E.dtype == np.float32 and (np.diff(E) > 0).all() and E[0] == np.float32(1e-5) and E[-1] == np.float32(2e7)
    for e0, gn in tp.P197_MC_RES:
        g = gn + tp.P197_MC_GG
        assert ((E > e0 - 10 * g) & (E < e0 + 10 * g)).sum() >= 60
    at = lambda e, t: np.interp(e, E, t)
    assert 1.5 < at(0.0253, ss) < 2 and 0.2 < at(0.0253, sc + sf) < 0.25 and 0.3 < at(2e6, ss) < 0.4
    assert at(6.674, sc) > 100 and at(6.0, sc) < 1 and at(1e6, sf) < 1e-3 < at(5e6, sf)
    x, y, z, e, s = tp._p197_mc_args(1 << 16, rng)[5:10]
    r = np.sqrt(x.astype(np.float64) ** 2 + y ** 2 + z ** 2)
    R = tp.P197_MC_R
    g = np.linspace(0, R, 10001)
    mode = g * np.sin(np.pi * g / R)                        # r^2 times the flux shape sin(pi r / R) / r
    assert r.max() < R and abs(r.mean() - (g * mode).sum() / mode.sum()) < 0.1
    assert abs(np.mean(x) / R) < 0.01 and (s & 1).all() and e.max() < 2e7
    assert 1.95e6 < e.mean() < 2.1e6                         # Watt: 3 a / 2 + a^2 b / 4 = 2.03 MeV
    # xs: the union grid and its index table
    nuc, off, ug, idx, grids = tp._p197_xs_library()
    assert nuc.dtype == tp.P197_XS_POINT and len(grids) == 16 and len(ug) > 3e5 and (np.diff(ug) > 0).all()
    assert list(off) == list(np.cumsum([0] + [len(g) for g in grids[:-1]]))
    for k in (0, 5, 10):                                    # H1, U238, Zr90
        ge = grids[k].energy
        assert abs(len(ge) - tp.P197_XS_NUCS[k][1]) < 0.01 * tp.P197_XS_NUCS[k][1] and (np.diff(ge) > 0).all()
        j = idx[:, k]
        assert (ge[j] <= ug).all() and ((ge[j + 1] > ug) | (j == len(ge) - 2)).all()
    u238 = grids[5]
    assert u238.total.max() > 1e4 and (u238.energy[(u238.energy > 6) & (u238.energy < 2e4)].size > 0.6 * len(u238))
    assert (grids[4].nufis > 0).all() and grids[5].nufis[grids[5].energy < 1e5].max() < 1e-5    # U-238: fast fission
    d = tp._p197_xs_dens()
    assert list((d > 0).sum(axis=1)) == [3, 7, 7, 6, 4, 2]
    e, m = tp._p197_xs_args(1 << 16, rng)[4:6]
    assert abs((e < 0.5).mean() - 0.40) < 0.02 and abs((e > 2e5).mean() - 0.15) < 0.02 and e.min() >= 1e-5
    assert np.abs(np.bincount(m, minlength=6) / len(m) - tp.P197_XS_FREQ).max() < 0.01
    # diffusion: an IAEA-3D-like core in reflector
    n = 68
    p1, p2, _, _, mat, nx, ny, nz, ih2, ik, res = tp._p197_df_args(n, rng)
    M = mat.reshape(nz, n, n)
    assert nz == 76 and abs(ih2 - (n / 340) ** 2) < 1e-6
    assert (M == M[:, ::-1]).all() and (M == M.transpose(0, 2, 1)).all()                 # quarter symmetric
    assert (M[:4] == 3).all() and (M[-4:, n // 2, n // 2] == 4).all() and (M[4:-4, n // 2, n // 2] == 2).all()
    rods = M[:, n // 2, n // 2 + 16]                         # a partly rodded assembly: 4 from the centre
    assert (rods[4:52] == 1).all() and (rods[52:72] == 2).all() and (rods[72:] == 4).all()
    assert 0.4 < (M[:, :, :] == 3).mean() < 0.5 and (M[38] == 0).sum() > 0 and (M[38, 0] == 3).all()
    P1, P2 = p1.reshape(M.shape), p2.reshape(M.shape)
    assert P1.min() > 0 and P1.mean(axis=(1, 2)).argmax() in (37, 38)
    assert abs(np.median(P2[M == 1] / P1[M == 1]) - 0.25) < 0.01
    # point kinetics: ramps from hot zero to full power
    sc = tp._p197_pk_args(1 << 14, rng)[0]
    b = tp.P197_PK_BTOT
    assert abs(np.median(sc["rate"] / b) - 0.3) < 0.02 and abs((sc["rho_max"] > b).mean() - 0.2 / 1.1) < 0.02
    assert sc["alpha"].min() >= 2e-5 and sc["alpha"].max() <= 4e-5 and 1e-8 <= sc["n0"].min() and sc["n0"].max() <= 1
    # moc: the segments fill the lattice's areas
    off, fsr, ln, wt, a, bb = tp._p197_moc_segments(4096, 17)
    phi, sp, so = tp._p197_moc_tracks(4096, 17)
    assert off[-1] == len(fsr) and np.allclose(np.add.reduceat(ln.astype(np.float64), off[:-1]),
                                                 np.hypot(*(bb - a).T), rtol=1e-5)
    area = np.bincount(fsr, np.repeat(sp, np.diff(off)) * ln, 2 * 17 * 17) / (tp.P197_MOC_NAZIM // 2)
    assert np.abs(area[0::2] / (np.pi * 0.54 ** 2) - 1).max() < 0.01 and abs(area.sum() / (17 * 1.26) ** 2 - 1) < 1e-4
    lat = tp._p197_moc_lattice(51)
    assert list(np.bincount(lat.ravel(), minlength=7)) == [528, 128, 184, 216, 4, 96, 1445]
    host = tp._p197_moc_args(4096, rng, pins=17)
    psi = host[6].reshape(2 * 4096, -1)
    assert ((psi > 0).all(axis=1) | (psi == 0).all(axis=1)).all() and abs((psi[:, 0] > 0).mean() - 0.5) < 0.05
    # entropy: a fission bank of the fundamental mode, banked by collision
    x, y, z, w, cnt, wsum, *mesh, n = tp._p197_se_args(1 << 18, rng)
    R, H = tp.P197_SE_CORE
    assert n == len(x) == 1 << 18 and (np.hypot(x, y) <= R).all() and 0 <= z.min() and z.max() <= H
    same = (x[1:] == x[:-1]) & (y[1:] == y[:-1])
    assert abs(same.mean() - 0.6) < 0.02 and ((w[1:] == w[:-1]) | ~same).all()
    assert abs((w < 1).mean() - tp.P197_SE_IMPLICIT) < 0.01 and abs(z.mean() - H / 2) < 1
    assert abs(np.median(np.hypot(x, y)) - 0.51 * R) < 0.01 * R
    box = tp._p197_se_boxes(x, y, z, *mesh)
    c = np.bincount(box, minlength=16 ** 3)
    assert (c == 0).mean() > 0.1 and c.max() > 3 * c[c > 0].mean()       # the box's corners empty, the centre hot


# ---- mc-sphere-cenergy-bsearch ----

@pytest.mark.parametrize("n, policy", [(96, "lockstep"), (32, "random")])
def test_mc_sphere_history(n, policy):
    rng = np.random.default_rng(1)
    h = tp._p197_mc_args(n, rng)
    h[8][:3] = [np.float32(2e7), np.float32(0.0253), h[0][100]]          # the grid's top, kT, a grid point
    out = run("probe/mc-sphere-cenergy-bsearch", h, n, policy=policy)
    fate, nc, tl, E, s, margin = tp._p197_mc_ref(*h[:4], *h[5:11])
    # a decision within 1e-4 (relative) of its threshold may go the other way in float32
    ok = margin > 1e-4
    assert ok.mean() > 0.9 and (out[11] == fate)[ok].all() and (out[12] == nc)[ok].all() and (out[9] == s)[ok].all()
    # float32 against float64: ~50 flights' and positions' roundings; a product a scatter
    assert (np.abs(out[13] - tl) <= 2e-5 * tl)[ok].all() and (np.abs(out[14] - E) <= 1e-5 * E)[ok].all()
    assert nc.max() > 30 and (E[fate == 1] < 1).any() and (n < 96 or set(fate[ok]) == {0, 1, 2})
    # a sphere far smaller than a mean free path: everything leaks without a collision, a radius of track
    h[10] = np.float32(1e-5)
    for k in (5, 6, 7):
        h[k] = np.zeros(n, np.float32)
    out = run("probe/mc-sphere-cenergy-bsearch", h, n)
    assert (out[11] == 2).all() and (out[12] == 0).all() and np.allclose(out[13], 1e-5, rtol=1e-6)
    assert (out[14] == h[8]).all()


# ---- xs-union-grid-gather ----

@pytest.mark.parametrize("n, policy", [(256, "lockstep"), (64, "random")])
def test_xs_union_lookup(n, policy):
    rng = np.random.default_rng(2)
    host = tp._p197_xs_args(n, rng)
    ug = host[0]
    host[4][:12] = [ug[0], ug[-1], ug[1], ug[-2], ug[len(ug) // 2], ug[len(ug) // 3], *ug[1000:1006]]   # grid points
    host[5][:12] = np.arange(12) % 6
    out = run("probe/xs-union-grid-gather", host, n, policy=policy, symbols=tp._p197_xs_syms(n, rng))
    ref = tp._p197_xs_ref(host[4], host[5])
    # float32 interpolation and up to 7 products and sums: a few roundings of the nuclides'
    # sum of N |sigma| at the two points about the energy
    for r in range(3):
        assert (np.abs(out[6 + r] - ref[r]) <= 1e-6 * ref[3]).all()
    assert ((out[8] == 0) == (host[5] >= 3)).all() and (ref[0] > ref[1]).all()
    assert ref[0].max() > 50 * np.median(ref[0])                             # a resonance hit


# ---- diffusion-2g-jacobi-harmonic ----

def test_diffusion_2g_jacobi():
    n = 20                                                  # blocks of 32 x 8: 20 of 32 lanes, 3 rows of blocks
    host, out, syms, _ = launch("probe/diffusion-2g-jacobi-harmonic", n)
    nz = tp._p197_df_nz(n)
    n1, n2, r = tp._p197_df_ref(host[0], host[1], host[4], n, n, nz, host[8], host[9])
    # float32 against float64: ~20 roundings of positive terms (harmonic means, sums, a division)
    assert (np.abs(out[2] - n1.ravel()) <= 2e-6 * n1.ravel()).all()
    assert (np.abs(out[3] - n2.ravel()) <= 2e-6 * n2.ravel()).all()
    assert abs(out[10][0] - r) <= 1e-5 * r and len(set(host[4])) == 5
    # one fast neutron source in the mesh's corner: only it and its 3 neighbours change
    h = list(host)
    h[0] = np.zeros(n * n * nz, np.float32)
    h[0][0] = 1.0
    h[1] = np.zeros(n * n * nz, np.float32)
    h[10] = np.zeros(1, np.float32)
    out = run("probe/diffusion-2g-jacobi-harmonic", h, n, symbols=syms)
    n1, n2, r = tp._p197_df_ref(h[0], h[1], h[4], n, n, nz, h[8], h[9])
    assert list(np.flatnonzero(out[2])) == [1, n, n * n] and list(np.flatnonzero(out[3])) == [0]
    assert np.allclose(out[2], n1.ravel(), rtol=2e-6, atol=0) and np.allclose(out[3], n2.ravel(), rtol=2e-6, atol=0)
    assert abs(out[10][0] - r) <= 1e-5 * r


# ---- point-kinetics-rk4-double ----

@pytest.mark.parametrize("n, steps, policy", [(40, 12, "lockstep"), (8, 6, "random")])
def test_point_kinetics(n, steps, policy):
    rng = np.random.default_rng(3)
    host = tp._p197_pk_args(n, rng, steps=steps)
    syms = tp._p197_pk_syms(n, rng)
    # a critical reactor at full power with no feedback; a 1.5 $ step that a strong feedback turns in 14 ms
    host[0][:2] = [(0.0, 0.0, 0.0, 1.0), (1e6, 1.5 * tp.P197_PK_BTOT, 4e-4, 1.0)]
    out = run("probe/point-kinetics-rk4-double", host, n, policy=policy, symbols=syms)
    peak, tpeak, pfin, Tfin, en, traj = tp._p197_pk_ref(host[0], *(float(v) for v in host[6:9]), steps)
    # double against double in another order: a few ulps a step
    for k, ref in enumerate((peak, pfin, Tfin, en)):
        assert (np.abs(out[(1, 3, 4, 5)[k]] - ref) <= 1e-12 * np.abs(ref)).all()
    step = np.rint(out[2] / host[8]).astype(np.int64)
    assert (traj[step, np.arange(n)] >= peak * (1 - 1e-12)).all() and (np.abs(out[2] - step * host[8]) < 1e-15).all()
    t = steps * tp.P197_PK_DT
    assert abs(out[3][0] - 1) < 1e-12 and abs(out[4][0] - tp.P197_PK_HEAT * t) < 1e-12 and abs(out[5][0] - t) < 1e-12
    if steps == 12:
        assert 0 < step[1] < steps and peak[1] > 3 and pfin[1] < 0.9 * peak[1]


# ---- moc-sweep-c5g7-atomic ----

@pytest.mark.parametrize("n, pins, policy", [(24, 4, "lockstep"), (8, 3, "random")])
def test_moc_sweep(n, pins, policy):
    rng = np.random.default_rng(4)
    host = tp._p197_moc_args(n, rng, pins=pins)
    syms = tp._p197_moc_syms(n, rng)
    out = run("probe/moc-sweep-c5g7-atomic", host, n, policy=policy, symbols=syms)
    psi, phi, mag = tp._p197_moc_ref(*host[:7])
    # float32 against float64: a few roundings an attenuation (expf), the angular fluxes' scale
    # for psi, the summed |contributions| of each tally for phi (any order of the atomics)
    assert np.abs(out[7] - psi).max() <= 1e-6 * np.abs(psi).max() and (np.abs(out[8] - phi) <= 2e-6 * mag).all()
    assert (mag > 0).mean() > 0.5 and (phi < 0).any() and (phi > 0).any()        # (some circles missed: few tracks)
    # every region at its flat source's equilibrium (psi = q everywhere): nothing changes
    h = list(host)
    q = np.float32(0.7) + np.arange(tp.P197_MOC_G, dtype=np.float32)
    h[5] = np.tile(q, len(h[4]))
    h[6] = np.tile(q, 2 * n * tp.P197_MOC_NP)
    out = run("probe/moc-sweep-c5g7-atomic", h, n, symbols=syms)
    assert (out[7] == h[6]).all() and (out[8] == 0).all()


# ---- entropy-mesh-smem-atomic ----

@pytest.mark.parametrize("n, policy", [(6000, "lockstep"), (800, "random")])
def test_entropy_tally(n, policy):
    rng = np.random.default_rng(5)
    h = tp._p197_se_args(n, rng)
    R, H = tp.P197_SE_CORE
    # sites on the mesh's boxes' edges, its far faces and outside it (clamped)
    h[0][:6] = [-R, R, -R + 340 / 16, -R - 5, 0.0, 0.0]
    h[1][:6] = [-R, R, 0.0, 0.0, R + 1, 0.0]
    h[2][:6] = [0.0, H, H / 2, 10.0, -3.0, H + 7]
    out = run("probe/entropy-mesh-smem-atomic", h, n, policy=policy)
    box = tp._p197_se_boxes(*h[:3], *h[6:12])
    assert list(box[:6]) == [0, 16 ** 3 - 1, 8 * 256 + 8 * 16 + 1, 8 * 16, 15 * 16 + 8, 15 * 256 + 8 * 16 + 8]
    assert (out[4] == np.bincount(box, minlength=16 ** 3)).all()
    # float32 sums of a box's weights (<= ~100 of them) in any order; sites sharing boxes
    ref = np.bincount(box, h[3].astype(np.float64), 16 ** 3)
    assert (np.abs(out[5] - ref) <= 1e-5 * ref).all() and out[4].max() > n / 400
    # weights in 64ths: every order sums exactly
    h[3] = (rng.integers(16, 65, n) / 64).astype(np.float32)
    h[4], h[5] = np.zeros_like(h[4]), np.zeros_like(h[5])
    out = run("probe/entropy-mesh-smem-atomic", h, n, policy=policy)
    assert (out[5] == np.bincount(box, h[3].astype(np.float64), 16 ** 3)).all()
