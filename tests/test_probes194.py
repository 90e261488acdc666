"""probe-unseen192's kernels (kernels_cuda/probes194.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/kg-fene-bonds", "probe/kg-wca-cell-list", "probe/kg-chain-shape-shfl",
       "probe/kg-rouse-modes-cosf", "probe/kg-bd-box-muller", "probe/kg-pair-hist-smem"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen192"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes194.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    b = tp._p194_bonds(1 << 16, rng)
    ln = np.sqrt((b.astype(np.float64) ** 2).sum(axis=1))
    u = b / ln[:, None]
    assert b.dtype == np.float32 and 0.849 < ln.min() and ln.max() < 1.101 and abs(ln.mean() - 0.97) < 0.002
    assert abs(ln.std() - 0.03) < 0.002 and np.abs(u.mean(axis=0)).max() < 0.02            # isotropic
    cos = [(u[k:] * u[:-k]).sum(axis=1).mean() for k in (1, 2, 3)]
    assert 0.55 < cos[0] < 0.65 and 0.25 < cos[1] < 0.33 and abs(cos[2]) < 0.02             # semiflexible
    x, y, z, *_, nb, L, K, R0, n = tp._p194_fene_args(64 * 512, rng)
    assert nb == 64 and n == 64 * 512 and abs(n / L ** 3 - tp.P194_RHO) < 1e-4 and (K, R0) == (30, 1.5)
    assert all(v.dtype == np.float32 and 0 <= v.min() and v.max() < L for v in (x, y, z))
    _, _, bl = tp._p194_fene_ref(x, y, z, nb, L, K, R0)                       # minimum image
    assert len(bl) == 63 * 512 and 0.849 < bl.min() and bl.max() < 1.101
    wrapped = np.abs(np.diff(x.reshape(-1, 64), axis=1)) > L / 2
    assert 0 < wrapped.sum() < 0.02 * len(bl)                                # bonds across the box's faces
    pos, start, force, nc, L, n = tp._p194_wca_args(20 ** 3, rng)
    p = pos.reshape(-1, 4)
    assert n == 8000 and abs(n / L ** 3 - tp.P194_RHO) < 1e-4 and nc == int(L / tp.P194_WCA_RC) == 18 and L / nc >= tp.P194_WCA_RC
    assert len(start) == nc ** 3 + 1 and start[0] == 0 and start[-1] == n and (p[:, 3] == 0).all()
    _, cell = tp._p194_wca_cells(p[:, :3], L)
    assert (np.repeat(np.arange(nc ** 3), np.diff(start)) == cell).all()     # sorted by cell
    occ = np.bincount(np.diff(start))
    assert occ[0] > 0 and 0.5 < occ[1] / occ.sum() < 0.7 and len(occ) >= 5  # not one a cell
    r, off, rg2, ree2, n = tp._p194_sh_args(4096, rng)
    ln = np.diff(off)
    assert off[0] == 0 and len(r) == 3 * off[-1] and ln.min() >= 2 and abs(ln.mean() / 256 - 1) < 0.03
    assert abs((ln ** 2).mean() / ln.mean() ** 2 - tp.P194_SH_PDI) < 0.05    # Mw / Mn
    g2, e2 = tp._p194_sh_ref(r, off)
    long = ln > 100                                                           # Gaussian chains: Ree^2 / Rg^2 ~ 6
    assert 5.2 < (e2[long] / g2[long]).mean() < 6.3 and 2.2 < (e2[long] / (ln[long] - 1)).mean() < 3.2
    x, y, z, X, nb, ch = tp._p194_rm_args(64 * 1000, rng)
    A = (tp._p194_rm_ref(x, y, z, nb)[:, 1:9] ** 2).sum(axis=2).mean(axis=0)
    assert nb == 64 and ch == 1000 and len(X) == 3 * 64000 and 12 < A[0] / A[3] < 20       # Rouse: ~ p^-2
    x, y, z, ix, iy, iz, fx, fy, fz, L, dt, gamma, kT, seed, step, n = tp._p194_bd_args(1 << 16, rng)
    assert abs(n / L ** 3 - tp.P194_RHO) < 1e-4 and 0 <= min(x.min(), y.min(), z.min()) and z.max() < L
    assert abs(ix.std() - 2) < 0.05 and ix.dtype == np.int32 and fx.dtype == np.float32
    assert abs(fx.std() - 6 * np.sqrt(2)) < 0.6 and np.abs(fx).max() > 60                 # heavy tails
    g = tp._p194_bd_gauss(n, seed, step)
    assert np.abs(g.mean(axis=0)).max() < 0.02 and np.abs(g.std(axis=0) - 1).max() < 0.01
    assert abs(np.corrcoef(g.T)[0, 1]) < 0.02 and abs(((g ** 4).mean(axis=0) - 3)).max() < 0.1
    assert (tp._p194_bd_gauss(n, seed, step + 1) != g).all()                 # a new step, new noise
    r, hist, nb, inv = tp._p194_ph_args(3, rng)
    assert nb == 2048 and len(r) == 3 * 3 * 2048 and len(hist) == 256 and inv == 20


# ---- kg-fene-bonds ----

@pytest.mark.parametrize("nb, policy", [(64, "lockstep"), (7, "random")])
def test_fene_bonds(nb, policy):
    n = nb * 10 if nb == 64 else 7 * 50                     # 2 1/2 blocks; 7: chains across warps
    h = tp._p194_fene_args(n, np.random.default_rng(3), nb=nb)
    # the first chain straight along x, bonds of 0.97 but one of 1.45 (of R0 = 1.5) across the box's face
    K, L = 30.0, float(h[8])
    k = np.arange(nb)
    h[0][:nb] = np.mod(L - 3.4 + 0.97 * k + 0.48 * (k >= 4), L)
    h[1][:nb], h[2][:nb] = 1.0, 2.0
    out = run("probe/kg-fene-bonds", h, n, policy=policy)
    F, E, bl = tp._p194_fene_ref(*h[:3], nb, *h[8:11])
    assert abs(bl[3] - 1.45) < 1e-5 and h[0][3] > L - 1 and h[0][4] < 1 and bl.min() > 0.8
    # float32 against float64: a bond vector off by up to 2 ulps of L (a difference rounded, the
    # minimum image); q = 1 - r^2 / R0^2 then off by dq (that and 4 roundings), the coefficient
    # K / q by K dq / q^2; 4 more roundings of each product and sum
    eps = 2 * float(np.spacing(np.float32(L)))
    q = 1 - bl ** 2 / 2.25
    dq = (2 * np.sqrt(3) * bl * eps + 4 * 2.0 ** -24 * bl ** 2) / 2.25 + 2.0 ** -24
    tb = (K / q * eps + bl * K * dq / q ** 2 + 4 * 2.0 ** -24 * bl * K / q).reshape(-1, nb - 1)
    te = (0.25 * K * 2.25 * dq / q + 4 * 2.0 ** -24 * np.abs(np.log(q)) * 0.25 * K * 2.25).reshape(-1, nb - 1)
    tol_f = np.zeros((n // nb, nb))
    tol_e = np.zeros((n // nb, nb))
    for t, tt in ((tol_f, tb), (tol_e, te)):
        t[:, :-1] += tt
        t[:, 1:] += tt
    err = np.abs(np.stack(out[3:6], axis=1) - F).max(axis=1)
    assert (err <= tol_f.ravel()).all() and (np.abs(out[6] - E) <= tol_e.ravel()).all()
    assert np.abs(F[3]).max() > 500 and tol_f.ravel()[3] < 1e-3 * np.abs(F[3]).max()


# ---- kg-wca-cell-list ----

@pytest.mark.parametrize("m, policy", [(8, "lockstep"), (6, "random")])
def test_wca_cells(m, policy):
    host, out, *_ = launch("probe/kg-wca-cell-list", m ** 3, policy=policy)
    ref, scale, d = tp._p194_wca_ref(host[0], host[4])
    o = out[2].reshape(-1, 4)
    # float32 against float64: a pair's difference vector exact, or (across the box's faces) off by
    # half an ulp of L, r^-14 then off 14 times that relatively; ~16 roundings of each term (a
    # division, r^-6 by products, the sums); the energy terms < the force terms' sizes here (r < 1.13)
    assert (d < tp.P194_WCA_RC).sum() > 1.5 * m ** 3 and d.min() > 0.5
    rel = 14 * float(np.spacing(np.float32(host[4]))) / 2 / d.min() + 16 * 2.0 ** -24
    assert (np.abs(o[:, :3] - ref[:, :3]).max(axis=1) <= rel * scale).all()
    assert (np.abs(o[:, 3] - ref[:, 3]) <= rel * scale).all() and rel < 2e-5


def test_wca_cells_lattice():
    # a perfect lattice (spacing 1.056 < the cutoff): 6 neighbours each, across the box's faces
    # too, their forces cancelling; no others (the next at 1.49)
    m = 8
    host = tp._p194_wca_args(m ** 3, np.random.default_rng(0))
    a = np.float32(tp.P194_RHO ** (-1 / 3))
    g = np.arange(m, dtype=np.float32) * a
    p = np.stack(np.meshgrid(g, g, g, indexing="ij"), axis=-1).reshape(-1, 3)
    nc, cell = tp._p194_wca_cells(p, host[4])
    o = np.argsort(cell, kind="stable")
    host[0] = np.zeros((m ** 3, 4), np.float32)
    host[0][:, :3] = p[o]
    host[0] = host[0].ravel()
    host[1] = np.searchsorted(cell[o], np.arange(nc ** 3 + 1)).astype(np.int32)
    out = run("probe/kg-wca-cell-list", host, m ** 3)[2].reshape(-1, 4)
    r = float(a)
    u = 4 * (r ** -12 - r ** -6) + 1
    f = 24 * (2 * r ** -13 - r ** -7)
    assert np.abs(out[:, :3]).max() < 1e-4 * f and np.allclose(out[:, 3], 3 * u, rtol=1e-5)


# ---- kg-chain-shape-shfl ----

@pytest.mark.parametrize("n, policy", [(40, "lockstep"), (19, "random")])
def test_chain_shape(n, policy):
    host, out, *_ = launch("probe/kg-chain-shape-shfl", n, policy=policy)  # 40: 5 blocks; 19: the last partial
    rg2, ree2 = tp._p194_sh_ref(host[0], host[1])
    # each bead's difference from the first rounded to float32 (half an ulp of the largest
    # coordinate M, each axis), then summed in double: Rg^2 off by at most 2 Rg (sqrt 3 ulp(M) / 2)
    # (Cauchy-Schwarz) and the final rounding; Ree^2 (float32) likewise and 3 more roundings
    u = float(np.spacing(np.float32(np.abs(host[0]).max())))
    assert (np.abs(out[2] - rg2) <= np.sqrt(3 * rg2) * u + 2.0 ** -24 * rg2).all()
    assert (np.abs(out[3] - ree2) <= np.sqrt(3 * ree2) * u + 4 * 2.0 ** -24 * ree2).all()
    assert np.diff(host[1]).max() > 64 and u < 1e-5


def test_chain_shape_rods():
    # straight rods of 1, 2, 31, 32, 33, 100 beads with bonds (0.375, 0.5, 0) (exact in binary):
    # Rg^2 = b^2 (N^2 - 1) / 12, Ree^2 = b^2 (N - 1)^2
    ln = np.array([1, 2, 31, 32, 33, 100])
    off = np.concatenate([[0], np.cumsum(ln)]).astype(np.int32)
    k = np.concatenate([np.arange(v) for v in ln]).astype(np.float32)
    r = np.float32(10.0) + k[:, None] * np.float32([0.375, 0.5, 0.0])
    h = [r.ravel(), off, np.zeros(6, np.float32), np.zeros(6, np.float32), np.int32(6)]
    out = run("probe/kg-chain-shape-shfl", h, 6)
    b2 = 0.625 ** 2
    assert np.allclose(out[2], b2 * (ln ** 2 - 1) / 12, rtol=2.0 ** -23, atol=0)
    assert (out[3] == b2 * (ln - 1) ** 2).all() and out[2][0] == 0


# ---- kg-rouse-modes-cosf ----

@pytest.mark.parametrize("n, nb, policy", [(64 * 5, 64, "lockstep"), (24 * 9, 24, "random")])
def test_rouse_modes(n, nb, policy):
    host = tp._p194_rm_args(n, np.random.default_rng(4), nb=nb)     # 24: chains and warps misaligned
    out = run("probe/kg-rouse-modes-cosf", host, n, policy=policy)
    X = tp._p194_rm_ref(*host[:3], nb)
    # the bound, mode by mode: each phase p pi (k + 1/2) / N off by < 3 ulps of it (PI_F, 2
    # products, a division), so cosf off by that absolutely plus its 2 ulps (< 4 2^-24); times
    # |r_k|; the running FMA sum rounded each trip (< the sum of |r_k| an ulp), the / N once more
    p = np.stack(host[:3], axis=1).astype(np.float64).reshape(-1, nb, 3)
    k = np.arange(nb)
    ph = np.pi * np.outer(k, k + 0.5) / nb                 # mode, bead
    a = np.abs(p)                                          # chain, bead, axis
    tol = (np.einsum("pk,ckd->cpd", 3 * ph + 4, a) + nb * a.sum(axis=1)[:, None, :]) * 2.0 ** -24 / nb
    tol += 2.0 ** -24 * np.abs(X)
    got = out[3].reshape(-1, nb, 3)
    assert (np.abs(got - X) <= tol).all() and (tol[:, 1:4] < 1e-3 * np.abs(X[:, 1:4])).mean() > 0.9
    assert (np.abs(got[:, 0] - p.mean(axis=1)) <= tol[:, 0]).all()                     # X_0: the centre


# ---- kg-bd-box-muller ----

@pytest.mark.parametrize("n, policy", [(1000, "lockstep"), (300, "random")])
def test_bd_step(n, policy):
    h = tp._p194_bd_args(n, np.random.default_rng(5))
    L = float(h[9])
    # forced across the faces: +x at the top, -y at the bottom (images 0 -> 1, 0 -> -1)
    h[0][:2] = np.float32(L - 0.001)
    h[6][:2] = np.float32(500)                              # 1 sigma in dt = 0.002
    h[1][2:4] = np.float32(0.0005)
    h[7][2:4] = np.float32(-500)
    h[3][:4] = h[4][:4] = 0
    out = run("probe/kg-bd-box-muller", h, n, policy=policy)
    R = tp._p194_bd_ref(*h[:15])
    U = np.stack(out[:3], axis=1) + L * np.stack(out[3:6], axis=1).astype(np.float64)
    # float32 positions in [0, L) (L ~ 10): a few ulps of L from the adds, wraps and the noise's
    # logf/cosf (~2 ulps of a displacement under 1)
    P = np.stack(out[:3], axis=1)
    assert np.abs(U - R).max() < 4 * np.spacing(np.float32(L)) and 0 <= P.min() and P.max() <= L
    assert (out[3][:2] == 1).all() and (out[4][2:4] == -1).all() and abs(out[0][0] - 0.999) < 0.3
    # the displacements less the drift, over the amplitude: N(0, 1)
    g = (U - np.stack(h[:3], axis=1) - L * np.stack(h[3:6], axis=1) - np.stack(h[6:9], axis=1) * 0.002) / np.sqrt(0.004)
    assert abs(g.mean()) < 0.1 and abs(g.std() - 1) < 0.06


def test_bd_step_still():
    # no force and no temperature: nothing moves, not a bit
    h = tp._p194_bd_args(500, np.random.default_rng(6))
    for k in (6, 7, 8):
        h[k] = np.zeros(500, np.float32)
    h[12] = np.float32(0)
    out = run("probe/kg-bd-box-muller", h, 500)
    assert all((out[k] == h[k]).all() for k in range(6))


# ---- kg-pair-hist-smem ----

@pytest.mark.parametrize("ch, nb, policy", [(2, 300, "lockstep"), (2, 100, "random")])
def test_pair_hist(ch, nb, policy):
    h = tp._p194_ph_args(ch, np.random.default_rng(7), nb=nb)
    out = run("probe/kg-pair-hist-smem", h, ch, policy=policy, grid=(-(-nb // 256), ch))   # 300: 2 blocks a chain
    ref, near = tp._p194_ph_ref(h[0], nb)
    # a pair within 1e-4 of a bin edge may land in the next bin in float32 (d to ~2 ulps)
    diff = out[1].astype(np.int64) - ref
    assert np.abs(diff).sum() <= 2 * near and near < 10 and ref.sum() > 0.2 * ch * nb * (nb - 1) / 2
    # the bond-length peak (0.95 .. 1.05); phantom chains: ~0.2% of the pairs (non-bonded ones) closer
    # than the shortest bond, 0.85
    assert ref[:40].argmax() in (19, 20) and ref[:17].sum() < 5e-3 * ref.sum()


def test_pair_hist_rod():
    # a straight rod of bonds 0.5127: pairs k bonds apart at 0.5127 k, bin floor(10.254 k) (at
    # least 0.016 bins from an edge) for k <= 24 (k = 25 at 256.35 bins: dropped), nb - k of each
    nb = 200
    k = np.arange(nb, dtype=np.float32)
    r = np.stack([k * np.float32(0.5127), np.zeros(nb, np.float32), np.full(nb, 3.0, np.float32)], axis=1)
    h = [r.ravel(), np.zeros(256, np.uint32), np.int32(nb), np.float32(20.0)]
    out = run("probe/kg-pair-hist-smem", h, 1, grid=(1, 1))[1]
    ref = np.zeros(256, np.int64)
    sep = np.arange(1, 25)
    ref[(10.254 * sep).astype(np.int64)] = nb - sep
    assert (out == ref).all()
