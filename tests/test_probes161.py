"""probe-unseen159's kernels (kernels_cuda/probes161.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/sg-continuity-bernoulli", "probe/nlpoisson-rbsor-tile16", "probe/emc-flight-scatter-table",
       "probe/cic-graded-mesh-atomic", "probe/fermi-dirac-half-double", "probe/tmd-3band-smith-dos"]
ULP = 2.0 ** -24                                            # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen159"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes161.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    g = tp._p161_graded(2.0, 101, 1.0, 4.0)
    h = np.diff(g.astype(np.float64))
    assert g[0] == 0 and g[-1] == 2 and (h > 0).all() and h.argmin() in (49, 50) and 3 < h.max() / h.min() < 4
    h = np.diff(tp._p161_graded(0.5, 51, 0.0, 3.0).astype(np.float64))
    assert (np.diff(h) > 0).all() and 9 < h[-1] / h[0] < 11                   # finest at the surface
    # sg: a forward-biased diode, densities of flat quasi-Fermi levels times the iterate's error
    psi, n, p, hx, hy, res, nx, ny, Dn, taun, taup = tp._p161_sg_args(256, rng)
    V = tp.P161_SG_BIAS / tp.P161_VT
    lnp = np.log(n.astype(np.float64) * p)
    assert nx == ny == 256 and len(psi) == 256 * 256 and len(hx) == len(hy) == 255 and Dn == np.float32(0.0036)
    assert abs(lnp.mean() - V) < 0.01 and abs(lnp.std() - 0.1 * np.sqrt(2)) < 0.005
    P = psi.reshape(256, 256)
    assert (np.diff(P, axis=1) >= 0).all() and (np.diff(P, axis=0) >= 0).all()          # the step; the bent top
    assert abs(P.max() - np.log(1e8)) < 1e-4 and abs(P[-1, 0] - (V - np.log(1e7))) < 1e-3 and P[0, 0] < P[-1, 0] - 1.9
    assert 120 <= hx.argmin() <= 135 and hy.argmin() == 0 and n.max() / n.min() > 1e10
    # nlpoisson: a row of transistors (a whole period), psi about the charge-neutral guess
    psi, psi2, N, lam2, phin, phip, omega, nx, ny, color = tp._p161_ps_args(768, rng)
    N = N.reshape(768, 768)
    # the wells' masks 54% of the top row, the n+ tails reach ~35 nodes past each edge
    assert 0.68 < (N[0] > 0).mean() < 0.76 and (N[-1] == -1e7).all() and 0.9e10 < N.max() <= 1e10
    d = psi.reshape(768, 768) - np.arcsinh(N.astype(np.float64) / 2)
    assert abs(d.std() - tp.P161_PS_NOISE) < 1e-4 and abs(lam2 / (40.9 / 5e-4) ** 2 - 1) < 1e-6
    assert (phin, phip, omega, color) == (0, 0, np.float32(1.9), 0)
    # emc: the rate table, the ensemble
    W = tp._p161_mc_rates().reshape(1024, 4)
    assert (np.diff(W, axis=1) >= 0).all() and W.max() < tp.P161_MC_GAMMA and W[0, 0] == 0 and W[0, 3] == W[0, 1] > 0
    assert (W[:32, 2] == W[:32, 1]).all() and (W[32:, 2] > W[32:, 1]).all()     # emission above hw = 0.063 eV
    assert abs(W[250, 0] - 3 * np.sqrt(5)) < 1e-5 and np.argmax(W[:, 3] - W[:, 2]) == 1   # impurity peak at Eb/4
    kx, ky, kz, ts, s, cnt, cum, field, dt, n = tp._p161_mc_args(1 << 16, rng)
    sd2 = 8.617e-5 * np.array([450, 1500]) / (2 * tp.P161_MC_CK)
    assert abs(kx.mean() - tp.P161_MC_DRIFT) < 0.01 and abs(ky.var() / (0.9 * sd2[0] + 0.1 * sd2[1]) - 1) < 0.03
    assert abs(ts.mean() - 0.01) < 2e-4 and (s & 1).all() and (cnt == 0).all() and (cum == W.ravel()).all()
    Ek = tp.P161_MC_CK * (kx.astype(np.float64) ** 2 + ky ** 2 + kz ** 2)
    assert 0.06 < Ek.mean() < 0.09 and (Ek > 0.5).mean() > 0.002                # a hot tail past the table's 0.1 eV
    # charge: species on their sides, clustered at the junction and the top, sorted by cell
    x, y, sp, xg, yg, rn, rp, w, nx, ny, n = tp._p161_ca_args(1 << 16, rng)
    ins = (x >= 0) & (x <= 2)
    assert (nx, ny) == (1024, 256) and len(rn) == len(rp) == nx * ny and abs((sp == 0).mean() - 0.55) < 0.01
    assert abs((~ins).mean() - tp.P161_CA_OUT) < 0.001 and (y >= 0).all() and (y <= 0.5).all()
    assert (x[ins & (sp == 0)] > 1).mean() > 0.85 and (x[ins & (sp == 1)] < 1).mean() > 0.85
    assert 0.35 < (np.abs(x - 1) < 0.1).mean() < 0.45 and 0.15 < (y < 0.02).mean() < 0.2
    cx = np.searchsorted(xg, x[ins], "right") // 4
    cy = np.searchsorted(yg, y[ins], "right")
    # sorted by row (then 4 columns), then moved ~1 nm: the rows near the top are thinner than that
    assert np.corrcoef(np.arange(len(cy)), cy)[0, 1] > 0.9 and (np.abs(np.diff(cy)) <= 1).mean() > 0.8
    assert (np.diff(cx)[np.diff(cy) == 0] >= 0).mean() > 0.7
    # fermi-dirac: the regions' eta
    psi, phin, nn, dn, eta0, Nc, count = tp._p161_fd_args(4096, rng)
    eta = psi - phin + eta0
    assert 0.15 < (eta >= -2).mean() < 0.3 and -39 < eta.min() < -37 and 5 < eta.max() < 9 and phin.max() == 20
    # tmd: the grid fills the cell; the model's gap at K (Liu et al.: 1.66 eV) and bands at Gamma
    kx, ky, bands, dos, a, emin, per, nk = tp._p161_tm_args(4096, rng)
    f1 = kx * a / (2 * np.pi)
    f2 = (kx + np.sqrt(3) * ky) * a / (4 * np.pi)
    assert np.allclose(np.sort(f1)[::64], (np.arange(64) + 0.5) / 64, atol=1e-5) and 0 < f2.min() and f2.max() < 1
    e, *_ = tp._p161_tm_ref(np.float32([0, 4 * np.pi / (3 * a)]), np.float32([0, 0]))
    assert np.allclose(e[0], [-0.058, 2.929, 2.929], atol=1e-6) and abs(e[1, 1] - e[1, 0] - 1.663) < 1e-3
    H = tp._p161_tm_hamiltonians(kx[:64], ky[:64])
    assert np.allclose(H, np.conj(np.transpose(H, (0, 2, 1))))


# ---- sg-continuity-bernoulli ----

@pytest.mark.parametrize("n, policy", [(40, "lockstep"), (24, "random")])
def test_sg_electron_residual(n, policy):
    host, out, *_ = launch("probe/sg-continuity-bernoulli", n, policy=policy)   # 40: partial blocks in x
    ref, scale = tp._p161_sg_ref(*host[:5], n, n, *host[8:])
    # float32: each term ~10 roundings (expm1f, the divisions, the products and sums) of at most its magnitude
    assert (np.abs(out[5] - ref.ravel()) <= 10 * ULP * scale.ravel()).all()
    assert (out[5].reshape(n, n)[:, [0, -1]] == 0).all() and (np.abs(ref) > 1e-3 * scale).mean() > 0.8
    # in equilibrium (flat quasi-Fermi levels at 0, no error) the Scharfetter-Gummel currents vanish exactly
    h = list(host)
    psi = h[0].astype(np.float64)
    h[1], h[2] = np.exp(psi).astype(np.float32), np.exp(-psi).astype(np.float32)
    out = run("probe/sg-continuity-bernoulli", h, n)[5]
    ref, scale = tp._p161_sg_ref(*h[:5], n, n, *h[8:])
    assert (np.abs(ref) <= 4 * ULP * scale).all() and (np.abs(out - ref.ravel()) <= 10 * ULP * scale.ravel()).all()


# ---- nlpoisson-rbsor-tile16 ----

@pytest.mark.parametrize("n, color, policy", [(40, 0, "lockstep"), (40, 1, "random"), (24, 1, "lockstep")])
def test_nlpoisson_rbsor(n, color, policy):
    rng = np.random.default_rng(3)
    h = tp._p161_ps_args(n, rng)
    h[2] = tp._p161_ps_doping(n, period=32, edge=1.5, depth=6.0).ravel()     # wells inside the small mesh
    h[0] = (np.arcsinh(h[2] * np.float32(0.5)) + np.float32(0.01) * rng.standard_normal(n * n, np.float32))
    h[9] = np.int32(color)
    out = run("probe/nlpoisson-rbsor-tile16", h, n, policy=policy)[1]          # 40: 3 x 3 tiles, partial
    ref, scale = tp._p161_ps_ref(h[0], *h[2:])
    # float32: ~6 roundings of the step's terms (expf, the Laplacian, the division) and the update
    assert (np.abs(out - ref.ravel()) <= 6 * ULP * scale.ravel()).all()
    y, x = np.divmod(np.arange(n * n), n)
    moved = (x > 0) & (y > 0) & (x < n - 1) & (y < n - 1) & ((x + y) % 2 == color)
    assert (out[~moved] == h[0][~moved]).all() and (out[moved] != h[0][moved]).mean() > 0.95
    assert 0.2 < (h[2] > 0).mean() < 0.7
    # uniform n-type doping at its charge-neutral potential is a fixed point
    h[2] = np.full(n * n, 1e7, np.float32)
    h[0] = np.full(n * n, np.arcsinh(5e6), np.float32)
    assert (run("probe/nlpoisson-rbsor-tile16", h, n)[1] == h[0]).all()


# ---- emc-flight-scatter-table ----

@pytest.mark.parametrize("n, policy", [(256, "lockstep"), (128, "random")])
def test_emc_flight(n, policy):
    rng = np.random.default_rng(1)
    h = tp._p161_mc_args(n, rng)
    h[3][:4] = 0.5                                          # flights past the step: a drift, no draw
    out = run("probe/emc-flight-scatter-table", h, n, policy=policy)
    x, y, z, ts, s, cnt, margin = tp._p161_mc_ref(*h[:5], h[6])
    # the float32 decisions may go the other way within ~1e-6 of a threshold: those electrons
    # left out (a few percent)
    ok = margin > 1e-5
    assert ok.mean() > 0.9 and ok[:4].all()
    assert (out[4] == s)[ok].all() and (out[5] == cnt)[ok].all()            # the same draws and events
    k = np.sqrt(x * x + y * y + z * z)
    dk = np.sqrt((out[0] - x) ** 2 + (out[1] - y) ** 2 + (out[2] - z) ** 2)
    # ~10 flights of a few roundings each: |k| to ~1e-6 relative
    assert (dk / k)[ok].max() < 1e-5 and np.abs(out[3] - ts)[ok].max() < 1e-6
    ax = -np.float32(tp.P161_MC_QH) * np.float32(tp.P161_MC_FIELD)
    assert (out[4][:4] == h[4][:4]).all() and (out[5][:4] == 0).all() and np.allclose(out[3][:4], 0.4, atol=1e-6)
    assert np.allclose(out[0][:4], h[0][:4] + ax * np.float32(0.1), atol=1e-6) and (out[1][:4] == h[1][:4]).all()
    assert (cnt > 0).mean() > 0.4 and cnt.max() >= 3
    # no field, slow electrons along +-z (E = 2.7 meV: 92% of real events on impurities): the
    # Brooks-Herring rotation's special case, exactly along its axis
    h[7] = np.float32(0)
    h[0][:32] = h[1][:32] = 0
    h[2][:32] = np.where(np.arange(32) % 2, 1, -1) * np.sqrt(0.0027 / tp.P161_MC_CK)
    h[3][:4] = np.float32(0.01)
    out = run("probe/emc-flight-scatter-table", h, n)
    x, y, z, ts, s, cnt, margin = tp._p161_mc_ref(*h[:5], h[6], field=0)
    ok = margin > 1e-5
    k = np.sqrt(x * x + y * y + z * z)
    dk = np.sqrt((out[0] - x) ** 2 + (out[1] - y) ** 2 + (out[2] - z) ** 2)
    assert ok[:32].all() and (out[4] == s)[ok].all() and (out[5] == cnt)[ok].all() and (dk / k)[ok].max() < 1e-5
    assert (cnt[:32] > 0).sum() >= 8 and (out[2][:32][cnt[:32] > 0] != h[2][:32][cnt[:32] > 0]).all()


# ---- cic-graded-mesh-atomic ----

@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (1000, "random")])
def test_charge_assign(n, policy):
    mesh = (tp._p161_graded(2.0, 40, 1.0, 4.0), tp._p161_graded(0.5, 24, 0.0, 3.0))
    rng = np.random.default_rng(2)
    h = tp._p161_ca_args(n, rng, mesh=mesh)
    xg, yg = mesh
    # on mesh lines, the last lines (x = L, y = depth) and just outside
    h[0][:6] = [xg[5], xg[-1], xg[-1], 0.0, np.nextafter(xg[-1], np.float32(3)), -1e-7]
    h[1][:6] = [yg[3], yg[7], yg[-1], 0.0, 0.1, 0.1]
    h[2][:6] = [0, 0, 1, 1, 0, 1]
    out = run("probe/cic-graded-mesh-atomic", h, n, policy=policy)
    rn, rp, cnt = tp._p161_ca_ref(*h[:5])
    # each deposit's weight within ~3 ULP of 1 (fx, fy rounded once, then 1 - f and the products),
    # then the node's m deposits summed in any order (m ULP of the sum)
    w = float(h[7])
    assert (np.abs(out[5] - rn) <= (cnt + 1) * ULP * (rn + 4 * w)).all()
    assert (np.abs(out[6] - rp) <= (cnt + 1) * ULP * (rp + 4 * w)).all()
    inside = ((h[0] >= 0) & (h[0] <= 2)).sum()
    assert n - inside >= 2 and abs(out[5].sum() + out[6].sum() - inside) < 1e-3 and cnt.max() > 15
    # a lone particle at the far corner: all its weight on the last node
    h2 = [v.copy() if isinstance(v, np.ndarray) else v for v in h]
    h2[0], h2[1], h2[2], h2[10] = np.float32([2.0]), np.float32([0.5]), np.int32([1]), np.int32(1)
    h2[5][:], h2[6][:] = 0, 0
    out = run("probe/cic-graded-mesh-atomic", h2, 1)
    assert out[6][-1] == 1 and out[6].sum() == 1 and (out[5] == 0).all()


# ---- fermi-dirac-half-double ----

def test_fermi_dirac_n():
    n = 600                                                 # 3 blocks, the last partial; both branches
    host, out, *_ = launch("probe/fermi-dirac-half-double", n)
    eta = host[0] - host[1] + host[4]
    F, dF = tp._p161_fd_ref(eta, 0.5), tp._p161_fd_ref(eta, -0.5)
    # the series is cut under 1e-16 of its sum, the trapezoid rule's error is ~e^-50: rounding only
    # (sums of up to 128 terms)
    assert 0.1 < (eta >= -2).mean() < 0.4
    assert (np.abs(out[2] / (host[5] * F) - 1) < 1e-14).all() and (np.abs(out[3] / (host[5] * dF) - 1) < 1e-14).all()
    # hand-made: the branches' meeting point, the non-degenerate limit, F_j(0) = (1 - 2^(-j)) zeta(j + 1)
    e = np.array([-60.0, -2.0 - 1e-12, -2.0, 0.0, 1.0, 7.0, 12.0])
    h = [e.copy(), np.zeros(7), np.zeros(7), np.zeros(7), np.float64(0), np.float64(1), np.int32(7)]
    out = run("probe/fermi-dirac-half-double", h, 7)
    assert abs(out[2][3] - 0.7651470246254080) < 1e-15 and abs(out[3][3] - 0.6048986434216304) < 1e-15
    assert abs(out[2][0] / np.exp(-60) - 1) < 1e-15 and abs(out[3][0] / np.exp(-60) - 1) < 1e-15
    assert abs(out[2][1] / out[2][2] - 1) < 1e-11 and abs(out[3][1] / out[3][2] - 1) < 1e-11
    assert (np.abs(out[2] / tp._p161_fd_ref(e, 0.5) - 1) < 1e-14).all()
    assert (np.abs(out[3] / tp._p161_fd_ref(e, -0.5) - 1) < 1e-14).all()


# ---- tmd-3band-smith-dos ----

@pytest.mark.parametrize("n, policy", [(1000, "lockstep"), (300, "random")])
def test_tmd_bands(n, policy):
    host, out, syms, _ = launch("probe/tmd-3band-smith-dos", n, policy=policy)
    e, gap, p = tp._p161_tm_ref(host[0], host[1])
    # float32 H and closed form: ~1e-6 p, but acos' slope grows as two bands meet (relative gap g):
    # ~1e-6 p / g, and at most ~p sqrt(ULP) at a double root
    tol = np.minimum(3e-6 * p * (1 + 1 / gap), 2e-3 * p)[:, None]
    assert (np.abs(out[2].reshape(n, 3) - e) <= tol).all()
    # the histogram of the bands the kernel computed, binned as the kernel does in float32
    b = np.floor((out[2] - np.float32(-0.6)) * np.float32(60)).astype(np.int64)
    assert (out[3] == np.bincount(b, minlength=256)).all() and out[3].sum() == 3 * n and out[3].max() > 20
    # hand-made: Gamma (a double root: the clamp of acos' argument), near it, K, M
    a = tp.P161_TM_A
    kx = np.float32([0, 1e-3, 4 * np.pi / (3 * a), np.pi / a])
    ky = np.float32([0, 0, 0, np.pi / (np.sqrt(3) * a)])
    h = [kx, ky, np.zeros(12, np.float32), np.zeros(256, np.int32), *host[4:7], np.int32(4)]
    out = run("probe/tmd-3band-smith-dos", h, 4, symbols=syms)
    e, gap, p = tp._p161_tm_ref(kx, ky)
    assert not np.isnan(out[2]).any() and (np.abs(out[2].reshape(4, 3) - e) <= 2e-3 * p[:, None]).all()
    assert abs(out[2][7] - out[2][6] - 1.663) < 2e-3 and out[3].sum() == 12
