"""probe-unseen182's kernels (kernels_cuda/probes184.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/grf-hash64-ctable", "probe/lpt2-struct-shfl", "probe/tsc-lagrangian-atomic",
       "probe/xi-dd-logbin-tiles", "probe/lya-fgpa-skewer-smem", "probe/hod-nfw-append"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen182"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes184.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # the BBKS field: its spectrum k^ns T^2 (a turnover near k ~ 0.02 h/Mpc), the table its log
    T = tp._p184_bbks(np.array([1e-4, 0.1, 1.0]))
    assert abs(T[0] - 1) < 2e-3 and 0.1 < T[1] < 0.3 and T[2] < 0.01
    tab, lnk0, idl = tp._p184_grf_table()
    assert tab.shape == (128,) and (np.diff(tab) < 0).all() and abs(lnk0 + idl ** -1 * 127 - np.log(20)) < 1e-9
    ng = 64
    d, k2 = tp._p184_delta_k(ng, 500.0, rng)
    p = (np.abs(d) ** 2).ravel()
    k = np.sqrt(k2).ravel()
    pk = [p[(k > a) & (k < 1.2 * a)].mean() for a in (0.03, 0.3)]
    assert pk[0] > 10 * pk[1]                                               # red: large scales dominate
    dk, n, seed, kf, amp, ns, lnk0, idl = tp._p184_grf_args(16, rng)
    assert len(dk) == 2 * 16 * 16 * 9 and not dk.any() and n == 16 and kf == np.float32(2 * np.pi / 1000)
    psi1x, psi1y, psi1z, psi2x, psi2y, psi2z, part, v2, n, box, D1, D2, vf1, vf2 = tp._p184_lpt_args(64, rng)
    s1 = np.stack([psi1x, psi1y, psi1z])
    assert part.dtype.itemsize == 32 and len(part) == 64 ** 3 and psi1x.dtype == np.float32
    assert abs(np.sqrt((s1 ** 2).mean()) - tp.P184_PSI_RMS) < 1e-3 and 0.05 < psi2x.std() / psi1x.std() < 1
    assert D2 == np.float32(-3 / 7 * D1 * D1) and 1 < vf1 / D1 / 100 < 10 and abs(vf2 / vf1 - 2 * D2 / D1) < 1e-6
    # Zel'dovich: div psi = -delta, psi smooth on the lattice (cells of 7.8 Mpc/h here)
    assert np.corrcoef(psi1x[:-1], psi1x[1:])[0, 1] > 0.6
    x, y, z, rho, n, mass, npart = tp._p184_tsc_args(32, rng)
    assert npart == 32 ** 3 and 0 <= min(x.min(), y.min(), z.min()) and max(x.max(), y.max(), z.max()) < 32
    lat = np.arange(32 ** 3) % 32
    dx = (x - lat + 16) % 32 - 16
    assert abs(dx.std() * 250 / 32 - tp.P184_TSC_PSI) < 0.3                      # in Mpc/h
    counts = np.bincount((np.floor(z).astype(int) * 32 + np.floor(y).astype(int)) * 32 + np.floor(x).astype(int),
                         minlength=32 ** 3)
    assert (counts == 0).mean() > 0.3 and counts.max() > 10                  # voids and collapsed regions
    x, y, z, dd, rmin2, rmax2, lnrmin, idl, n = tp._p184_xi_args(4000, rng)
    assert len(x) == n == 4000 and dd.dtype == np.uint64 and rmin2 == np.float32(0.25) and rmax2 == 2500
    assert 0 <= x.min() and x.max() < 500 and abs(np.exp(lnrmin + 20 / idl) - 50) < 1e-4
    p = np.stack([x, y, z], axis=1).astype(np.float64)
    near = np.sqrt(((p[1:] - p[:-1]) ** 2).sum(axis=1))
    assert 0.25 < (near < 2).mean() < 0.45                                   # catalogue in group order
    cnt = np.histogramdd(p, bins=16, range=[(0, 500)] * 3)[0]
    assert (cnt == 0).mean() > np.exp(-cnt.mean()) + 0.1                     # clustered: more empty cells than Poisson
    delta, T, v, flux, npix, dv, tau0 = tp._p184_ly_args(64, rng)
    assert npix == 512 and len(delta) == 64 * 512 and abs(delta.mean() - 1) < 0.1 and np.median(delta) < 0.6
    assert abs(np.std(np.log(delta)) - tp.P184_LY_SIGMA) < 1e-3 and abs(v.std() - tp.P184_LY_VSD) < 0.1
    assert np.corrcoef(np.log(delta), np.log(T))[0, 1] > 0.95 and 3e3 < np.median(T) < 1.5e4
    F, tau = tp._p184_ly_ref(delta[:8 * 512], T[:8 * 512], v[:8 * 512], 512, dv, tau0)
    assert 0.65 < F.mean() < 0.85 and (F < 0.05).mean() > 0.02                # mean flux, saturated lines
    hx, hy, hz, lm, c, rv, gx, gy, gz, gh, ng, maxgal, seed, box, n = tp._p184_hod_args(1 << 16, rng)
    assert (np.diff(lm) <= 0).all() and 11 <= lm.min() and lm.max() <= 15.5 and maxgal == n
    assert 0.1 < (lm > 12).mean() < 0.25 and (lm > 14).mean() < 0.005 and 4 < np.median(c) < 20
    assert abs(rv[np.argmin(np.abs(lm - 12))] - 0.243) < 0.002                      # r_200m of 1e12 Msun/h


# ---- grf-hash64-ctable ----

@pytest.mark.parametrize("n, policy", [(16, "lockstep"), (10, "random")])
def test_grf_modes(n, policy):
    host, out, syms, _ = launch("probe/grf-hash64-ctable", n, policy=policy)
    ref, scale = tp._p184_grf_ref(n, *host[2:], syms["c_lnT"])
    got = out[0].reshape(-1, 2).astype(np.float64) @ [1, 1j]
    # float32 Box-Muller, sincos, the table's interpolation and powf against float64: ~1e-6 of a mode's size
    assert (np.abs(got - ref.ravel()) <= 2e-6 * scale.ravel()).all() and got[0] == 0
    g = got.reshape(n, n, n // 2 + 1)
    for iz in (0, n // 2):                                                   # conjugate pairs, exactly
        p = g[:, :, iz]
        q = np.conj(np.roll(p[::-1, ::-1], 1, axis=(0, 1)))
        assert (p == q).all() and (p.imag[[0, 0, n // 2, n // 2], [0, n // 2, 0, n // 2]] == 0).all()
    assert np.unique(np.abs(got[1:])).size > 0.6 * got.size                   # the others independent


# ---- lpt2-struct-shfl ----

@pytest.mark.parametrize("n, policy", [(12, "lockstep"), (8, "random")])
def test_lpt2_particles(n, policy):
    host, out, *_ = launch("probe/lpt2-struct-shfl", n, policy=policy)      # 12: 6.75 blocks of 256
    x, v, v2 = tp._p184_lpt_ref(host[:6], *host[8:])
    p = out[6]
    box = float(host[9])
    d = np.abs(p["pos"] - x)
    # float32 positions up to 500: a few ulps (3e-5 each)
    assert (p["id"] == np.arange(n ** 3)).all() and (np.minimum(d, box - d) < 2e-4).all()
    assert 0 <= p["pos"].min() and p["pos"].max() < box and (np.abs(p["vel"] - v) < 1e-5 * np.abs(v).max()).all()
    assert abs(out[7][0] - v2) < 1e-5 * v2
    # the last particle pushed a cell past the box's far faces, the first past its near ones, the
    # rest on the lattice
    cell = np.float32(box) / np.float32(n)
    i = np.arange(n ** 3)
    ref_q = (np.stack([i % n, i // n % n, i // (n * n)], axis=1) + np.float32(0.5)).astype(np.float32) * cell
    h = list(host)
    for a in range(3):
        h[a] = np.zeros(n ** 3, np.float32)
        h[a][-1] = cell / h[10]                                # a cell at D1
        h[a][0] = -cell / h[10]
    h[3:6] = [np.zeros(n ** 3, np.float32) for _ in range(3)]
    p = run("probe/lpt2-struct-shfl", h, n)[6]
    assert np.allclose(p["pos"][-1], cell / 2, atol=1e-4) and np.allclose(p["pos"][0], box - cell / 2, atol=1e-4)
    assert (p["pos"][1:-1] == ref_q[1:-1]).all() and (p["vel"][1:-1] == 0).all()


# ---- tsc-lagrangian-atomic ----

@pytest.mark.parametrize("n, policy", [(12, "lockstep"), (8, "random")])
def test_tsc_deposit(n, policy):
    host, out, *_ = launch("probe/tsc-lagrangian-atomic", n, policy=policy)
    ref, cnt = tp._p184_tsc_ref(*host[:3], n)
    # float32 weights (3 roundings) summed by float atomics in any order: (count + 3) roundings of the cell
    assert (np.abs(out[3] - ref) <= (cnt + 3) * 2.0 ** -24 * ref + 1e-30).all()
    assert abs(out[3].sum(dtype=np.float64) - n ** 3) < 1e-4 * n ** 3 and cnt.max() > 27
    # particles on grid points (a corner, the far faces) and half-way: weights 1/8, 3/4 and 1/2,
    # the sums dyadic, so exact
    pts = np.float32([[0, 0, 0], [n - 1, n - 1, n - 1], [n - 1, 0, 5], [2.5, 3, 4], [2.5, 3, 4], [0, n - 1, 0]])
    h = [pts[:, 0].copy(), pts[:, 1].copy(), pts[:, 2].copy(), np.zeros(n ** 3, np.float32), np.int32(n),
         np.float32(1), np.int32(len(pts))]
    out = run("probe/tsc-lagrangian-atomic", h, len(pts))[3]
    ref, _ = tp._p184_tsc_ref(*h[:3], n)
    assert (out == ref).all() and out.sum() == len(pts) and out[0] == 0.75 ** 3 + 0.125 ** 3 + 0.125 * 0.75 ** 2
    assert out[((4 - 1) * n + 3) * n + 3] == 2 * 0.125 * 0.75 * 0.5 and out[(4 * n + 3) * n + 4] == 0   # x = 2.5


# ---- xi-dd-logbin-tiles ----

@pytest.mark.parametrize("n, policy", [(400, "lockstep"), (130, "random")])
def test_xi_pair_count(n, policy):
    rng = np.random.default_rng(3)
    h = tp._p184_xi_args(n, rng, box=60.0)                      # 400: 4 tiles, the last partial
    out = run("probe/xi-dd-logbin-tiles", h, n, policy=policy)[3]
    ref, _ = tp._p184_xi_ref(*h[:3], *h[4:8])
    # pairs whose log separation lies within float32's error of a bin edge may fall either side
    # (the coordinates' differences, up to 64: 3.8e-6 absolute each; logf and the sums: ~2e-6 of
    # ln r): the cumulative counts may differ by the pairs near each edge, no more
    amb = _xi_near_edges(h)
    assert out.sum() == ref.sum() and (np.abs(np.cumsum(out.astype(np.int64)) - np.cumsum(ref)) <= amb).all()
    assert ref.sum() > n * n / 20 and (ref > 0).sum() >= 15 and amb.sum() < 5e-4 * ref.sum()
    # a duplicate galaxy (r = 0: not counted), a pair exactly at rmin (counted), one exactly at rmax
    # (not), one just under it (the last bin)
    pts = np.float32([[10, 10, 10], [10, 10, 10], [10.5, 10, 10], [55, 55, 55], [55, 55, 5], [55, 55, 5.0001]])
    g = [pts[:, 0].copy(), pts[:, 1].copy(), pts[:, 2].copy(), np.zeros(20, np.uint64), *h[4:8], np.int32(len(pts))]
    out = run("probe/xi-dd-logbin-tiles", g, len(pts))[3]
    want = np.zeros(20, np.int64)
    want[0], want[19] = 4, 2
    assert (out == want).all() and (tp._p184_xi_ref(*g[:3], *g[4:8])[0] == want).all()


def _xi_near_edges(h):
    """The ordered pairs within float32's error (2e-6 + 7e-6 / r in ln r) of each inner bin edge
    b + 1 (b = 0 .. XI_NB - 1)."""
    p = np.stack([np.asarray(a, np.float64) for a in h[:3]], axis=1)
    r2 = ((p[:, None, :] - p[None, :, :]) ** 2).sum(axis=2).ravel()
    r2 = r2[(r2 >= float(h[4])) & (r2 < float(h[5]))]
    t = (0.5 * np.log(r2) - float(h[6])) * float(h[7])
    e = np.rint(t).astype(np.int64)
    near = (np.abs(t - e) < (2e-6 + 7e-6 / np.sqrt(r2)) * float(h[7])) & (e >= 1) & (e < 20)
    return np.bincount(e[near] - 1, minlength=20)


# ---- lya-fgpa-skewer-smem ----

@pytest.mark.parametrize("npix, policy", [(64, "lockstep"), (40, "random")])
def test_lya_flux(npix, policy):
    rng = np.random.default_rng(4)
    h = tp._p184_ly_args(3, rng, npix=npix)
    out = run("probe/lya-fgpa-skewer-smem", h, 3, policy=policy)[3]
    F, tau = tp._p184_ly_ref(*h[:3], npix, *h[5:])
    # up to npix float32 terms (each a few roundings, expf of an argument with relative error
    # ~1e-7 times |x|^2 < 20 where it matters): tau to ~1e-5 of itself
    assert (np.abs(out - F.ravel()) <= 1e-5 * tau.ravel() * F.ravel() + 1e-7).all()
    assert (F < 0.2).any() and (F > 0.9).any()
    # one cell of gas at the mean density and 10^4 K moving at the box's edge: a Gaussian line
    # of integral tau0 across the periodic boundary, every other pixel dark of it
    d = np.zeros(npix, np.float32)
    d[0] = 1
    g = [d, np.full(npix, 1e4, np.float32), np.full(npix, -0.5 * 10, np.float32), np.zeros(npix, np.float32),
         np.int32(npix), np.float32(10), np.float32(2.0)]
    out = run("probe/lya-fgpa-skewer-smem", g, 1)[3]
    tau = -np.log(out.astype(np.float64))
    b = 0.128450 * 100
    v = (np.arange(npix) + 0.5) * 10
    x = np.minimum(v, npix * 10 - v) / b
    assert np.allclose(tau, 2.0 * 10 / (np.sqrt(np.pi) * b) * np.exp(-x * x), rtol=1e-5, atol=1e-7)
    assert tau[0] == tau[-1] and abs(tau.sum() - 2.0) < 1e-4


# ---- hod-nfw-append ----

@pytest.mark.parametrize("n, policy", [(400, "lockstep"), (300, "random")])
def test_hod_populate(n, policy):
    rng = np.random.default_rng(5)
    h = tp._p184_hod_args(n, rng)
    # the catalogue's head: two 8e14 clusters (means of ~34 satellites: the normal approximation),
    # a 1e14 halo at the box's corner (its satellites wrap); its tail below M0 (no satellites)
    h[3][:3] = np.float32([14.9, 14.9, 14.0])
    h[0][2], h[1][2], h[2][2] = 0.01, 599.99, 0.0
    h[5][:3] = np.cbrt(3 * 10.0 ** h[3][:3] / (4 * np.pi * 200 * tp.P184_HOD_RHOM)).astype(np.float32)
    out = run("probe/hod-nfw-append", h, n, policy=policy, symbols=tp._p184_hod_syms(n, rng))
    ref, margin = tp._p184_hod_ref(*h[:6], h[12], h[13])
    # the draws' decisions: float32 against float64 thresholds agree when the margin is well
    # above float32's error (lam, erff, expf: a few 1e-7 relative, times lam in exp(-lam))
    assert margin > 1e-4
    k = int(out[10][0])
    assert k == sum(len(g) for g in ref) and (out[9][k:] == 0).all()
    gh = out[9][:k]
    pos = np.stack([out[6][:k], out[7][:k], out[8][:k]], axis=1).astype(np.float64)
    order = np.argsort(gh, kind="stable")                      # a halo's galaxies in the order appended
    got = np.split(pos[order], np.cumsum(np.bincount(gh, minlength=n))[:-1])
    d = np.concatenate([g - r for g, r in zip(got, ref) if len(g)])
    d = np.abs(d)
    # float32 positions up to 600 and a 20-step float32 bisection: < 3e-4 Mpc/h
    assert all(len(g) == len(r) for g, r in zip(got, ref)) and (np.minimum(d, 600 - d) < 3e-4).all()
    slots = [np.flatnonzero(gh == i) for i in range(3)]            # a halo's slots are contiguous
    assert all(len(s) > 0 and (np.diff(s) == 1).all() for s in slots)
    ns = np.array([len(r) for r in ref])
    assert ns[0] > 20 and ns[1] > 20 and (ns[h[3] < 11.5] == 0).all() and (ns[h[3] > 13.0] > 0).any()
    assert (pos.min() >= 0) and pos.max() < 600 and (np.abs(got[2] - got[2][0]) > 500).any()    # wrapped
