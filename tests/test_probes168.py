"""probe-unseen166's kernels (kernels_cuda/probes168.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/dfn-particle-thomas-f64", "probe/butler-volmer-ocp", "probe/electrolyte-smem-substeps",
       "probe/ecm-drive-cycle-const", "probe/pack-voltage-shfl", "probe/soh-hist-shared-atomic"]
NX, NEG, SEP = tp.P168_NX, tp.P168_NEG, tp.P168_SEP


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen166"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes168.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    c, cs, R, D, j, dt, steps, n = tp._p168_pd_args(1 << 16, rng)
    c = c.reshape(n, tp.P168_PD_NR)
    assert c.dtype == R.dtype == j.dtype == np.float64 and n == 1 << 16 and steps == tp.P168_PD_STEPS
    assert abs(np.median(R) / 5.86e-6 - 1) < 0.02 and abs(np.log(R).std() - 0.3) < 0.01
    assert 1 <= c.min() and c.max() <= tp.P168_NEG_CMAX - 1 and (c == 1).mean() < 1e-3
    sgn = np.sign(j).reshape(-1, tp.P168_PD_PER_CELL)
    assert (sgn == sgn[:, :1]).all()                                    # a cell charges or discharges
    jc = j.reshape(-1, tp.P168_PD_PER_CELL).mean(axis=1)                # resting 20%, charging 15%
    assert abs((np.abs(jc) < 1.5e-6).mean() - 0.2) < 0.04 and abs((jc < -3e-6).mean() - 0.15) < 0.04
    Tc = np.log(D / tp.P168_PD_D)[::tp.P168_PD_PER_CELL]                # the Arrhenius exponent a cell
    assert (np.ptp(D.reshape(-1, tp.P168_PD_PER_CELL), axis=1) == 0).all() and Tc.std() > 0.1
    assert ((c[:, -1] < c[:, 0]) == (j > 0)).mean() > 0.99              # discharging: the surface depleted
    r = (np.arange(tp.P168_PD_NR) + 0.5) / tp.P168_PD_NR                 # the quasi-steady profile of the flux
    ok = ((c > 1) & (c < tp.P168_NEG_CMAX - 1)).all(axis=1)
    assert ok.mean() > 0.99 and np.allclose((c[:, -1] - c[:, 0])[ok], (-j * R / (2 * D) * (r[-1] ** 2 - r[0] ** 2))[ok])

    ce, cs, T, i, eta, ocp, n = tp._p168_bv_args(NX * 512 - 20, rng)
    k = np.arange(n) % NX
    neg, sep = k < NEG, (k >= NEG) & (k < NEG + SEP)
    assert ce.dtype == cs.dtype == np.float32 and n == NX * 512 - 20 and len(ce) == n
    assert (cs[sep] == 0).all() and (i[sep] == 0).all() and abs(np.median(ce) - 1000) < 5
    assert 0.005 * 33133 * 0.999 < cs[neg].min() and cs[neg].max() < 0.995 * 33133 * 1.001
    assert 0.005 * 63104 * 0.999 < cs[~neg & ~sep].min() and cs[~neg & ~sep].max() < 0.995 * 63104 * 1.001
    assert abs((i[neg] > 0).mean() - 0.75) < 0.05 and abs(np.median(T) - 303) < 1
    assert np.abs(np.diff(T.reshape(-1)[:NX * 511].reshape(511, NX), axis=1)).max() < 3   # a cell's nodes alike
    ce, src, De, dx, dt, sub = tp._p168_el_args(4096, rng)
    s = src.reshape(-1, NX)
    assert (s[:, NEG:NEG + SEP] == 0).all() and (np.abs(s.sum(axis=1)) <= 1e-5 * np.abs(s).sum(axis=1)).all()
    assert abs(ce.mean() - 1000) < 5 and (np.sign(s[:, 0]) == -np.sign(s[:, -1])).mean() > 0.99
    Dmax = De * max(e ** 0.5 for e in tp.P168_EL_EPS)
    assert 2 * Dmax * dt / dx ** 2 < 1                                  # the explicit steps are stable

    cells, ocv, *_, dt, steps, n = tp._p168_ec_args(1000, rng)
    I = tp._p168_ec_syms(1000, rng)["c_current"]
    assert cells.dtype == tp.P168_EC_DTYPE and cells.dtype.itemsize == 28 and n == 1000 and steps == 1800
    assert len(I) == 1800 and I.dtype == np.float32 and 0.1 < (I < 0).mean() < 0.4 and 0 < I.mean() < 1
    assert I.max() < 10 and I.min() > -2.5 and (np.diff(ocv) > 0).all() and 2.4 < ocv[0] < 2.6 and 4.1 < ocv[-1] < 4.3
    soc0 = cells["soc0"][:960].reshape(-1, 96)
    assert np.median(soc0.std(axis=1)) < 0.015 and soc0.mean(axis=1).std() > 0.15      # strings differ
    assert 3.9 < np.median(cells["q_ah"]) < 4.7 and np.corrcoef(cells["q_ah"], cells["r0"])[0, 1] < -0.5

    mv, *_, n = tp._p168_pk_args(4096, rng)
    m = mv.reshape(n, 96).astype(np.int64)
    assert mv.dtype == np.uint16 and 2900 < m.min() and m.max() < 4400
    w = m.argmin(axis=1).reshape(-1, tp.P168_PK_SNAPS)
    assert (w == np.median(w, axis=1, keepdims=True)).mean() > 0.5      # a vehicle's weak group recurs
    assert 0.002 < ((m == m.min(axis=1, keepdims=True)).sum(axis=1) > 1).mean() < 0.1  # ties for the minimum

    q, chem, hist, lo, inv_w, n = tp._p168_sh_args(1 << 20, rng)
    assert q.dtype == np.float32 and chem.dtype == np.uint8 and len(hist) == 4 * 128 and n == 1 << 20
    start = np.flatnonzero(np.diff(chem.astype(int), prepend=-1))
    runs = np.diff(np.append(start, n))[:-1]                           # whole packs (the last cut)
    size = np.array([c[1] for c in tp.P168_SH_CHEM])
    assert (runs % size[chem[start[:-1]]] == 0).all() and np.bincount(chem).argmax() == 0
    soh = q / np.array([c[0] for c in tp.P168_SH_CHEM], np.float32)[chem]
    assert 0.8 < np.median(soh) < 1.0 and 5e-4 < (soh < 0.8).mean() < 1e-2 and (soh > 1.2).mean() < 3e-4
    b = tp._p168_sh_bins(q, chem)[:n // 32 * 32].reshape(-1, 32)
    assert np.mean([len(set(r)) for r in b[:4000]]) < 8                 # a warp's cells in a few bins


# ---- dfn-particle-thomas-f64 ----

# steps: an argument (the probe takes 10)
@pytest.mark.parametrize("n, steps, policy", [(160, 3, "lockstep"), (24, 3, "random")])
def test_particle_diffusion(n, steps, policy):
    rng = np.random.default_rng(7)
    host = tp._p168_pd_args(n, rng, steps=steps)
    out = run("probe/dfn-particle-thomas-f64", host, n, policy=policy)
    c0, R, D, j, dt = host[0], host[2], host[3], host[4], float(host[5])
    x, cs = tp._p168_pd_ref(c0, R, D, j, dt, steps)
    # double Thomas against double LU of well-conditioned (diagonally dominant) systems
    assert (np.abs(out[0] - x.ravel()) <= 1e-12 * x.ravel()).all() and (np.abs(out[1] - cs) <= 1e-12 * cs).all()
    assert np.abs(out[0] - c0).max() > 1                                   # it did something
    # lithium conserved: the shells' contents fell by the flux through the surface
    nr = tp.P168_PD_NR
    k = np.arange(nr)
    vol = ((k + 1.0) ** 3 - k ** 3) / 3
    lost = ((c0 - out[0]).reshape(n, nr) * vol).sum(axis=1) * (R / nr) ** 3
    assert np.allclose(lost, steps * dt * j * R * R, rtol=1e-9, atol=1e-9 * np.abs(steps * dt * j * R * R).max())
    # no flux, a uniform particle stays uniform; no flux from a profile: it flattens towards its mean
    h = list(host)
    h[4] = np.zeros(n)
    h[0] = np.repeat(np.linspace(2000, 30000, n), nr)
    h[0][:nr] = np.linspace(1000, 30000, nr)
    out = run("probe/dfn-particle-thomas-f64", h, n)
    assert (np.abs(out[0][nr:] - h[0][nr:]) <= 1e-12 * h[0][nr:]).all()
    assert np.ptp(out[0][:nr]) < np.ptp(h[0][:nr]) and (np.diff(out[0][:nr]) > 0).all()


# ---- butler-volmer-ocp ----

@pytest.mark.parametrize("n", [NX * 5 + 20, 3 * 256])
def test_butler_volmer(n):
    host, out, *_ = launch("probe/butler-volmer-ocp", n)
    eta, u = tp._p168_bv_ref(*host[:4])
    # float32 expf, sqrtf and asinhf against float64: a few ulps relative; the NMC811 fit's two
    # tanh terms of 17.7 V cancel: 2 x 17.7 V x a few 2^-24 absolute
    assert (np.abs(out[4] - eta) <= 4e-6 * np.abs(eta) + 1e-9).all() and np.abs(out[5] - u).max() < 1e-5
    k = np.arange(n) % NX
    sep = (k >= NEG) & (k < NEG + SEP)
    assert (out[4][sep] == 0).all() and (out[5][sep] == 0).all() and (out[5][~sep] > 0.05).all()
    assert (eta[~sep] > 0.01).any() and (eta[~sep] < -0.01).any()
    # no current: no overpotential; the current reversed: the overpotential reversed; near full
    # lithiation a small exchange current: a large overpotential
    h = list(host)
    h[3] = np.where(np.arange(n) % 2 == 0, np.float32(0), -host[3])
    h[1] = host[1].copy()
    h[1][1] = np.float32(0.999 * tp.P168_NEG_CMAX)
    r = run("probe/butler-volmer-ocp", h, n)
    e2, _ = tp._p168_bv_ref(*h[:4])
    assert (r[4][::2] == 0).all() and (np.abs(r[4][1::2] + out[4][1::2]) <= 4e-6 * np.abs(eta[1::2]) + 1e-9)[1:].all()
    assert abs(r[4][1] - e2[1]) <= 4e-6 * abs(e2[1]) and abs(e2[1]) > abs(eta[1])


# ---- electrolyte-smem-substeps ----

@pytest.mark.parametrize("n, sub, policy", [(5, tp.P168_EL_SUB, "lockstep"), (3, 30, "random")])
def test_electrolyte_diffusion(n, sub, policy):
    rng = np.random.default_rng(6)
    host = tp._p168_el_args(n, rng, substeps=sub)
    out = run("probe/electrolyte-smem-substeps", host, n, policy=policy, symbols=tp._p168_el_syms(n, rng))
    ref = tp._p168_el_ref(host[0], host[1], sub).ravel()
    # float32 steps: each substep rounds a concentration near 1000 once (its increment is
    # ~1e-3 of it): at most an ulp a substep
    assert np.abs(out[0] - ref).max() <= sub * np.spacing(np.float32(ref.max()))
    assert np.abs(ref - host[0]).max() > 10                                 # the profiles moved
    # the salt is conserved (the sources sum to 0 across a cell)
    k = np.arange(NX)
    eps = np.array(tp.P168_EL_EPS)[np.where(k < NEG, 0, np.where(k < NEG + SEP, 1, 2))]
    salt = lambda c: (np.asarray(c, np.float64).reshape(n, NX) * eps).sum(axis=1)
    assert np.abs(salt(out[0]) - salt(host[0])).max() < 1e-5 * salt(host[0]).min()
    # a uniform electrolyte at rest stays exactly uniform; a step at the separator spreads
    h = list(host)
    h[1] = np.zeros(n * NX, np.float32)
    h[0] = np.full(n * NX, 1000, np.float32)
    h[0][NX:2 * NX] = np.where(k < NEG + 3, 1200, 800).astype(np.float32)
    r = run("probe/electrolyte-smem-substeps", h, n, symbols=tp._p168_el_syms(n, None))[0]
    ref = tp._p168_el_ref(h[0], h[1], sub).ravel()
    assert (np.delete(r, np.s_[NX:2 * NX]) == 1000).all() and np.abs(r - ref).max() <= sub * np.spacing(np.float32(1200))
    assert (np.diff(r[NX:2 * NX]) <= 0).all() and r[NX] == 1200 and r[2 * NX - 1] == 800


# ---- ecm-drive-cycle-const ----

@pytest.mark.parametrize("n, steps, policy", [(200, 150, "lockstep"), (100, 50, "random")])
def test_ecm_drive_cycle(n, steps, policy):
    rng = np.random.default_rng(3)
    h = tp._p168_ec_args(n, rng, steps=steps)
    sym = tp._p168_ec_syms(n, rng)
    h[0]["soc0"][:4] = [1.02, 1.0, 0.004, 0.0]               # over the table's top; run past empty
    h[0]["q_ah"][2:4] = 0.05
    out = run("probe/ecm-drive-cycle-const", h, n, policy=policy, symbols=sym)
    soc, vmin, wh, wabs = tp._p168_ec_ref(h[0], h[1], sym["c_current"][:steps])
    # float32 coulomb counting: a rounding of a state of charge <= 1 a step (2^-24 each); the
    # OCV's slope is at most 20 V a unit of charge; the voltages (~4 V) a few roundings a step
    tol = steps * 2.0 ** -24
    assert np.abs(out[2] - soc).max() <= tol and np.abs(out[3] - vmin).max() <= 20 * tol + 1e-5
    assert (np.abs(out[4] - wh) <= steps * 2.0 ** -23 * wabs).all()
    assert soc[0] > 1 and soc[2] < 0 and soc[3] < 0 and np.ptp(vmin[4:]) > 0.2
    assert vmin[3] < h[1][0] and abs(out[3][3] - vmin[3]) <= 20 * tol + 1e-5


# ---- pack-voltage-shfl ----

@pytest.mark.parametrize("n, policy", [(37, "lockstep"), (21, "random")])
def test_pack_voltage_stats(n, policy):
    rng = np.random.default_rng(4)
    h = tp._p168_pk_args(n, rng)
    m = h[0].reshape(n, 96)
    m[0] = 3700                                              # all equal: the first group
    m[1, [95, 37, 5]] = m[1].min() - 7                       # ties in different lanes: the first
    m[2, 95] = 0
    m[3, 0] = 65535
    out = run("probe/pack-voltage-shfl", h, n, policy=policy)
    mi = m.astype(np.int64)
    assert (out[1] == mi.min(axis=1)).all() and (out[2] == mi.max(axis=1)).all()
    assert (out[4] == mi.argmin(axis=1)).all() and list(out[4][:3]) == [0, 5, 95]
    # sums of 96 uint16 values are exact in int; the mean one IEEE division in float32
    assert (out[3] == mi.sum(axis=1).astype(np.float32) / np.float32(96)).all()


# ---- soh-hist-shared-atomic ----

@pytest.mark.parametrize("n, grid_n, policy", [(6000, 6000, "lockstep"), (6000, 600, "random")])
def test_soh_histogram(n, grid_n, policy):
    rng = np.random.default_rng(5)
    h = tp._p168_sh_args(n, rng)
    qn = np.array([c[0] for c in tp.P168_SH_CHEM], np.float32)
    # cells on the bins' edges and off the ends: 0, exactly lo, 1.2 and 1.5 of the nominal capacity
    h[1][:8] = [0, 1, 2, 3, 0, 1, 2, 3]
    h[0][:8] = qn[h[1][:8]] * np.float32([0, 0.4, 1.2, 1.5, 0.95, 0.9, 0.85, 1.0])
    # grid_n < n: fewer blocks than cells, each thread striding over several
    out = run("probe/soh-hist-shared-atomic", h, grid_n, policy=policy, symbols=tp._p168_sh_syms(n, rng))
    ref = np.bincount(tp._p168_sh_bins(h[0], h[1]), minlength=4 * 128)
    assert (out[2] == ref).all() and out[2].sum() == n and (ref > 0).sum() > 20
    assert list(tp._p168_sh_bins(h[0][:4], h[1][:4]) % 128) == [0, 0, 127, 127]
