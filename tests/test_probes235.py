"""probe-unseen233's kernels (kernels_cuda/probes235.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/vlasov-advect-x-lagrange5-smem-row", "probe/vlasov-advect-v-bspline-thomas-const",
       "probe/vlasov-moments-entropy-ballot-f64-atomics", "probe/vlasov-pic-deposit-tsc-smem-atomics",
       "probe/vlasov-poisson-fourier-sincos-shfl", "probe/vlasov-advect-2d-bicubic-f64-gather"]

F32 = np.float32
NX, NV = 512, 512
VMIN, DV, DT = tp.P235_VMIN, tp.P235_DV, tp.P235_DT
EPS = 2.0 ** -24                                    # float32's unit roundoff
CASES = tp.P235_CASES


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen233"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes235.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- helpers ----

def _table(rows):
    """A __constant__ RunParam table (MAX_RUN entries) holding rows (structured) first."""
    t = np.zeros(tp.P235_MAX_RUN, tp.P235_RUN)
    t[:len(rows)] = rows
    return t


def _ensemble(runs, seed):
    """The sweep's runs `runs` (indices into a sweep of max(runs) + 1), f float32 (R, NV, NX), E
    float64 (R, NX), their table rows, their cases."""
    nr = max(runs) + 1
    f, E, _ = tp._p235_ensemble(nr, np.random.default_rng(seed))
    return f[runs], E[runs], tp._p235_run_table(nr)[runs], tp._p235_runs(nr)[0][runs]


def _lagrange(a, npts):
    """Lagrange weights (float64) of the nodes -(npts/2 - 1) .. npts/2 at a (any shape): (npts, ...)."""
    a = np.asarray(a, np.float64)
    nodes = np.arange(npts) - (npts // 2 - 1)
    w = []
    for m in range(npts):
        num = np.ones_like(a)
        den = 1.0
        for q in range(npts):
            if q != m:
                num = num * (a - nodes[q])
                den *= nodes[m] - nodes[q]
        w.append(num / den)
    return np.array(w)


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    f, E, t = tp._p235_ensemble(20, rng)
    case, kbox, kp, alpha = tp._p235_runs(20)
    assert [CASES[c] for c in case[:10]] == ["landau"] * 3 + ["landau-nl"] * 2 + ["two-stream"] * 2 + \
        ["bump-on-tail"] * 2 + ["waterbag"]
    assert (kbox[case == 0] >= 0.3).all() and (kbox[case == 0] <= 0.6).all() and len(set(kbox[case == 0])) == 6
    mass = f.astype(np.float64).sum(axis=(1, 2)) * DV / NX
    assert np.allclose(mass[case != 4], 1.0, atol=1e-6)                              # the spline step conserves mass
    assert np.allclose(mass[case == 4], 1.0, atol=2e-3)                              # the sampled waterbag's edges
    neg = (f < 0).mean(axis=(1, 2))
    assert (neg[case == 4] > 0.05).all() and (neg[case != 4] < 1e-3).all()          # ringing at the waterbags' edges
    assert f.min() > -0.04 and f.max() < 0.65
    assert (f[case == 4].min(axis=(1, 2)) < -0.01).all()
    shift = np.abs(E).max(1) * DT / DV
    assert shift[case == 0].max() < 0.2 and shift[case == 2].max() > 1.0 and shift.max() < 3.3
    # the linear runs: the ballistic solution, barely moved by the step (E dt < 0.2 dv)
    fb = tp._p235_ballistic(np.arange(3), case, kbox, kp, alpha, t[:3])
    assert np.abs(f[:3] - fb).max() < 0.01 * fb.max() and np.abs(f[3] - tp._p235_ballistic(
        [3], case, kbox, kp, alpha, t[3:4])[0]).max() > 1e-3
    # the Thomas factors converge to 2 - sqrt(3)
    cp = tp._p235_thomas_cp()
    assert np.isclose(cp[-1], 2 - np.sqrt(3)) and cp[0] == 0.25
    # the spectra: Landau's mode 1, the bump-on-tail's unstable band, the noise floor
    tt = rng.uniform(0, 40, 20)
    A, ph = tp._p235_modes(20, tt, rng)
    assert (np.abs(A[:3, 1]) <= alpha[:3]).all() and np.median(np.abs(A[:, 10:])) < 1e-6
    b = np.abs(A[7])                                                                 # bump-on-tail: k = 0.1 m
    assert np.argmax(b) in (2, 3, 4) and b[3] >= 0.04 and b[8:].max() < 1e-5
    assert np.isclose(A[3, 2], 0.5 * A[3, 1] ** 2 / np.cos(np.sqrt(1.75) * tt[3]) ** 2)   # a harmonic
    mom = tp._p235_ps_moments(20, rng).reshape(20, NX, 4)
    assert np.abs(mom[..., 0].mean(1) - 1).max() < 1e-5 and np.abs(mom[..., 0] - 1).max() < 0.8
    # the PIC particles: a quarter beam, partly sorted by cell, the beam drifting at 4.5
    p = tp._p235_pic_particles(200000, rng)
    assert (p["species"] == 1).sum() == 50000 and (p["dx"] >= 0).all() and (p["dx"] < 1).all()
    assert p["cell"].min() >= 0 and p["cell"].max() < tp.P235_NXP
    assert abs(p["v"][p["species"] == 1].mean() - 4.5) < 0.01 and abs(p["v"][p["species"] == 0].std() - 1) < 0.01
    c = p["cell"].astype(np.int64)[: 200000 // 32 * 32].reshape(-1, 32)
    d = (c - c[:, :1] + 1024) % 2048 - 1024                                          # from the warp's first
    core = np.where(p["species"][: 200000 // 32 * 32].reshape(-1, 32) == 0, d, np.nan)
    assert 5 < np.median(np.nanstd(core, axis=1)) < 8                                # 2 steps of 0.1 lambda_D rms
    assert np.median([len(np.unique(x)) for x in c[:1000]]) <= 24                    # a warp's 32: ~21 cells
    q = tp._p235_qw_symbols(200000)["c_qw"]
    dens = np.bincount(p["cell"], weights=q[p["species"]], minlength=tp.P235_NXP)
    assert np.isclose(dens.mean(), -1.0, rtol=1e-5)


# ---- vlasov-advect-x-lagrange5-smem-row ----

def _ax_ref(f, tab, dt):
    """vl_advect_x_lag5 in float64 (the shift in float32 as the kernel rounds it): (out, sum |w f|)."""
    R = f.shape[0]
    v = (F32(VMIN) + np.arange(NV, dtype=F32) * F32(DV)).astype(F32)
    out = np.zeros((R, NV, NX))
    mag = np.zeros((R, NV, NX))
    i = np.arange(NX)
    for r in range(R):
        s = (v * F32(dt)) * tab["inv_dx"][r]                       # float32
        fl = np.floor(-s)
        a = (-s - fl).astype(np.float64)
        w = _lagrange(a, 6)                                         # (6, NV)
        sh = fl.astype(np.int64)
        for b in range(6):
            idx = (i[None, :] + sh[:, None] + b - 2) % NX
            g = np.take_along_axis(f[r].astype(np.float64), idx, axis=1)
            out[r] += w[b][:, None] * g
            mag[r] += np.abs(w[b][:, None] * g)
    return out, mag


def test_advect_x():
    runs = [1, 3, 8, 9]                                              # Landau k = 0.49, nonlinear, bump, waterbag
    f, _, rows, _ = _ensemble(runs, 1)
    dt = F32(0.5 * DT)
    host = [f.reshape(-1, 4), np.zeros((f.size // 4, 4), F32), F32(VMIN), F32(DV), dt]
    out = run(IDS[0], host, len(runs), symbols={"c_run": _table(rows)})
    got = out[1].reshape(f.shape)
    want, mag = _ax_ref(f, rows, dt)
    # the kernel's weights: 6 products and a divide in float32 each, 6 fmas: 16 units of roundoff
    assert (np.abs(got - want) <= 16 * EPS * mag + 1e-30).all()
    assert (got[:, 256] == f[:, 256]).all()                          # v = 0: no shift, an exact copy
    s_max = 8 * 0.05 * rows["inv_dx"].max()
    assert s_max > 10                                                # whole cells of shift, both ways
    assert np.abs(got[1] - f[1]).max() > 1e-3


# ---- vlasov-advect-v-bspline-thomas-const ----

def _av_ref(f, E, dt, inv_dv):
    """vl_advect_v_spline: the coefficients by a dense solve (float64), the departure fraction
    as the kernel rounds it."""
    R = f.shape[0]
    A = 4 * np.eye(NV) + np.eye(NV, k=1) + np.eye(NV, k=-1)
    out = np.zeros(f.shape)
    for r in range(R):
        c = np.linalg.solve(A, 6 * f[r].astype(np.float64))          # (NV, NX)
        s = (E[r].astype(F32) * F32(dt)) * F32(inv_dv)
        fl = np.floor(s)
        t = (s - fl).astype(np.float64)
        sh = fl.astype(np.int64)
        w = [(1 - t) ** 3 / 6, (3 * t ** 3 - 6 * t ** 2 + 4) / 6, (-3 * t ** 3 + 3 * t ** 2 + 3 * t + 1) / 6, t ** 3 / 6]
        j = np.arange(NV)[:, None]
        for a in range(4):
            jj = j + sh[None, :] - 1 + a
            ok = (jj >= 0) & (jj < NV)
            g = np.take_along_axis(c, np.clip(jj, 0, NV - 1), axis=0)
            out[r] += np.where(ok, g, 0.0) * w[a][None, :]
    return out


def test_advect_v():
    runs = [3, 5, 9]                                                 # nonlinear Landau, two-stream, waterbag
    f, E, _, _ = _ensemble(runs, 2)
    E = E.astype(F32)
    # hand-made columns: no field (the spline reproduces f), one cell exactly, far past the grid both ways
    E[0, :4] = [0.0, F32(DV / DT), 1000.0, -1000.0]
    n = len(runs)
    host = [f.ravel(), np.zeros(f.size, F32), np.zeros(f.size, F32), E.ravel(), np.int32(n), F32(DT), F32(1 / DV)]
    out = run(IDS[1], host, n, symbols=tp._p235_cp_symbols())
    got = out[2].reshape(f.shape)
    want = _av_ref(f, E, DT, 1 / DV)
    # the Thomas sweeps' roundoff shrinks by 0.27 a step: a few units of the column's scale
    scale = np.abs(f).max(axis=1, keepdims=True)
    assert (np.abs(got - want) <= 16 * EPS * scale + 1e-30).all()
    assert np.allclose(got[0, :, 0], f[0, :, 0], rtol=0, atol=8 * EPS * scale[0, 0, 0])
    assert (F32(E[0, 1]) * F32(DT)) * F32(32) == 1.0                 # exactly a cell: f moved a row down
    assert np.allclose(got[0, :-1, 1], f[0, 1:, 1], rtol=0, atol=8 * EPS * scale[0, 0, 1])
    assert (got[0, :, 2:4] == 0).all()                               # everything left the grid
    coef = out[1].reshape(f.shape)
    A = 4 * np.eye(NV) + np.eye(NV, k=1) + np.eye(NV, k=-1)
    assert np.allclose(A @ coef[2].astype(np.float64), 6 * f[2], atol=1e-5 * np.abs(f[2]).max())


# ---- vlasov-moments-entropy-ballot-f64-atomics ----

def _md_ref(f, tab):
    """vl_moments_diag in float64: (mom (R, NX, 4), sum |terms| (R, NX, 4), diag (R, 3), nneg)."""
    v = VMIN + DV * np.arange(NV)
    f64 = f.astype(np.float64)
    p = [f64, v[:, None] * f64, v[:, None] ** 2 * f64, v[:, None] ** 3 * f64]
    mom = np.stack([q.sum(1) * DV for q in p], -1)
    mag = np.stack([np.abs(q).sum(1) * DV for q in p], -1)
    cell = DV * tab["dx"].astype(np.float64)
    pos = np.where(f64 > 0, f64, 1.0)
    ke = 0.5 * mom[..., 2].sum(1) * tab["dx"]
    l2 = (f.astype(F32) ** 2).astype(np.float64).sum(axis=(1, 2)) * cell
    ent = -(f64 * np.log(pos)).sum(axis=(1, 2)) * cell
    return mom, mag, np.stack([ke, l2, ent], 1), (f < 0).sum(axis=(1, 2))


def _check_md(f, rows):
    R = f.shape[0]
    host = [f.ravel(), np.zeros((R * NX, 4), F32), np.zeros(3 * R), np.zeros(R, np.int32), F32(VMIN), F32(DV)]
    out = run(IDS[2], host, R, symbols={"c_run": _table(rows)})
    mom, mag, diag, nneg = _md_ref(f, rows)
    got = out[1].reshape(R, NX, 4)
    # 64 float sums a thread, 8 more a column, 3 roundings a product: 80 units of the terms' sum
    assert (np.abs(got - mom) <= 80 * EPS * mag + 1e-30).all()
    assert (out[3] == nneg).all()
    d = out[2].reshape(R, 3)
    # kinetic energy from float32 column sums (all terms >= 0 but the undershoots): 80 units;
    # L2 (float32 squares summed in double): 2 units; entropy (logf: 2 ulp, a float product): 4 units
    assert np.allclose(d[:, 0], diag[:, 0], rtol=80 * EPS, atol=0)
    assert np.allclose(d[:, 1], diag[:, 1], rtol=2 * EPS, atol=0)
    assert np.allclose(d[:, 2], diag[:, 2], rtol=4 * EPS, atol=0)
    return out, nneg


def test_moments():
    runs = [0, 4, 6, 9]                                              # Landau, nonlinear, two-stream, waterbag
    f, _, rows, case = _ensemble(runs, 3)
    out, nneg = _check_md(f, rows)
    assert nneg[3] > 1000 and nneg[0] == 0
    got = out[1].reshape(4, NX, 4)
    assert np.allclose(got[..., 0].mean(1), [1, 1, 1, 1.0013], atol=2e-4)           # the mass, per unit length
    assert np.allclose(got[2, :, 2].mean(), 3.0, rtol=3e-3)                           # two-stream: <v^2> = 3, the field's work


def test_moments_cases():
    rows = tp._p235_run_table(2)[:2]
    f = np.zeros((2, NV, NX), F32)
    f[0] = 1.0 / 16                                                  # flat: n = 1, j = -1/64 (the grid's asymmetry)
    f[1, ::2, ::3] = -1e-3                                           # scattered negatives, zero elsewhere: no logf
    f[1, 100, 7] = 0.5
    out, nneg = _check_md(f, rows)
    got = out[1].reshape(2, NX, 4)
    assert np.allclose(got[0, :, 0], 1.0, rtol=1e-6) and np.allclose(got[0, :, 1], -1 / 64, rtol=1e-5)
    assert nneg[1] == 256 * 171 and nneg[0] == 0
    assert np.isclose(out[2][5], -(0.5 * np.log(0.5)) * DV * np.float64(rows["dx"][1]), rtol=4 * EPS)


# ---- vlasov-pic-deposit-tsc-smem-atomics ----

def _pic_ref(p, qw):
    """pic_deposit_tsc in float64: (rho, jx, sum |terms| of each, terms a node)."""
    cell = p["cell"].astype(np.int64)
    off = p["dx"].astype(np.float64)
    up = off >= 0.5
    i = cell + up
    d = off - up
    w = [0.5 * (0.5 - d) ** 2, 0.75 - d * d, 0.5 * (0.5 + d) ** 2]
    q = qw[p["species"]].astype(np.float64)
    v = p["v"].astype(np.float64)
    rho, jx, mr, mj, cnt = (np.zeros(tp.P235_NXP) for _ in range(5))
    for a in range(3):
        idx = (i - 1 + a) % tp.P235_NXP
        np.add.at(rho, idx, q * w[a])
        np.add.at(jx, idx, q * v * w[a])
        np.add.at(mr, idx, np.abs(q * w[a]))
        np.add.at(mj, idx, np.abs(q * v * w[a]))
        np.add.at(cnt, idx, 1)
    return rho, jx, mr, mj, cnt


def _check_pic(p, grid, qw=None):
    n = len(p)
    qw = tp._p235_qw_symbols(max(n, 4))["c_qw"] if qw is None else qw
    host = [p, np.int32(n), np.zeros(tp.P235_NXP, F32), np.zeros(tp.P235_NXP, F32)]
    out = run(IDS[3], host, n, symbols={"c_qw": qw}, grid=(grid,))
    rho, jx, mr, mj, cnt = _pic_ref(p, qw)
    # a node's float sum: its terms in shared memory, then one term a block; each term 3
    # roundings (the weight, the charge, the velocity)
    k = (cnt + grid + 3) * EPS
    assert (np.abs(out[2] - rho) <= k * mr + 1e-30).all()
    assert (np.abs(out[3] - jx) <= k * mj + 1e-30).all()
    return out, rho


def test_pic_deposit():
    rng = np.random.default_rng(4)
    p = tp._p235_pic_particles(60000, rng)                          # ~29 a cell, 4 blocks: 59 trips each
    out, rho = _check_pic(p, 4)
    assert np.isclose(out[2].astype(np.float64).sum(), -tp.P235_NXP, rtol=1e-5)       # charge conserved


def test_pic_cases():
    # on a node, at a cell's centre (the branch), across the periodic edge both ways, 300 on one point
    p = np.zeros(306, tp.P235_PARTICLE)
    p["cell"] = [5, 5, 0, tp.P235_NXP - 1, 7, 9] + [100] * 300
    p["dx"] = [0.0, 0.5, 0.2, 0.9, np.nextafter(F32(0.5), F32(0)), 0.75] + [0.3] * 300
    p["species"] = [0, 1, 0, 1, 0, 1] + [0] * 300
    p["v"] = [1.0, -2.0, 3.0, 4.5, 0.0, -1.0] + [0.25] * 300
    qw = np.array([-1.0, -0.5, 0.0, 0.0], F32)
    out, rho = _check_pic(p, 2, qw)
    assert out[2][5] == F32(-0.75) + F32(-0.5 * 0.5)                 # node 5: 3/4 of the first, 1/2 of the second's
    assert out[2][tp.P235_NXP - 1] != 0 and out[2][1] != 0 and out[3][0] != 0       # wrapped
    assert np.isclose(out[2][100], -300 * (0.75 - 0.09), rtol=1e-5)
    _check_pic(np.zeros(0, tp.P235_PARTICLE), 2, qw)                 # no particles


# ---- vlasov-poisson-fourier-sincos-shfl ----

def _ps_ref(mom, tab):
    """vl_poisson_fourier in float64: (E, espec, wfield, the error scales of each)."""
    R = len(tab)
    rho = 1.0 - mom.reshape(R, NX, 4)[..., 0].astype(np.float64)
    m = np.arange(1, tp.P235_NMODE + 1)
    ang = 2 * np.pi * np.outer(m, np.arange(NX)) / NX
    rh = (rho @ np.cos(ang).T - 1j * (rho @ np.sin(ang).T)) / NX   # (R, NMODE)
    km = m[None, :] * tab["k"].astype(np.float64)[:, None]
    eh = rh / (1j * km)
    E = 2 * (eh.real @ np.cos(ang) - eh.imag @ np.sin(ang))
    espec = 2 * np.abs(eh)
    # the DFT's float32 error: sincosf's argument rounded (4e-7) and ~24 sums (1.4e-6): 3e-6 of sum |rho|
    drh = 3e-6 * np.abs(rho).sum(1, keepdims=True) / NX / km
    tol_spec = 2 * drh + 8 * EPS * espec
    tol_E = (2 * drh + 2 * 80 * EPS * np.abs(eh)).sum(1, keepdims=True)          # + 64 more sincosf and sums
    dx = tab["dx"].astype(np.float64)
    W = 0.5 * (E * E).sum(1) * dx
    tol_W = (np.abs(E) * tol_E).sum(1) * dx + 32 * EPS * W           # ~20 float roundings a term
    return E, espec, W, tol_E, tol_spec, tol_W


def test_poisson_fourier():
    R = 20
    rows = tp._p235_run_table(R)[:R]
    mom = tp._p235_ps_moments(R, np.random.default_rng(5))
    host = [mom, np.zeros(R * NX, F32), np.zeros(R * tp.P235_NMODE, F32), np.zeros(R, F32)]
    out = run(IDS[4], host, R, symbols={"c_run": _table(rows)})
    E, espec, W, tol_E, tol_spec, tol_W = _ps_ref(mom, rows)
    assert (np.abs(out[1].reshape(R, NX) - E) <= tol_E).all()
    assert (np.abs(out[2].reshape(R, -1) - espec) <= tol_spec).all()
    assert (np.abs(out[3] - W) <= tol_W).all()
    assert out[2].reshape(R, -1)[7, 2] > 0.1                         # the bump-on-tail's mode 3 (k = 0.3)


def test_poisson_cases():
    # a single cosine mode 5 (E = A / (5k) sin), a mode past NMODE (dropped), n = 1 (no field)
    rows = tp._p235_run_table(3)
    x = np.arange(NX)
    mom = np.zeros((3, NX, 4), F32)
    mom[..., 0] = 1.0
    mom[0, :, 0] = 1.0 - 0.25 * np.cos(2 * np.pi * 5 * x / NX)
    mom[1, :, 0] = 1.0 - 0.25 * np.cos(2 * np.pi * 100 * x / NX)
    host = [mom.reshape(-1, 4), np.zeros(3 * NX, F32), np.zeros(3 * tp.P235_NMODE, F32), np.zeros(3, F32)]
    out = run(IDS[4], host, 3, symbols={"c_run": rows})
    k = np.float64(rows["k"][0])
    E = out[1].reshape(3, NX)
    assert np.allclose(E[0], 0.25 / (5 * k) * np.sin(2 * np.pi * 5 * x / NX), atol=1e-5)
    assert np.abs(E[1]).max() < 1e-5 and (E[2] == 0).all() and out[3][2] == 0
    assert np.isclose(out[2][4], 0.25 / (5 * k), rtol=1e-5)


# ---- vlasov-advect-2d-bicubic-f64-gather ----

def _bc_ref(f, E, tab, dt):
    """vl_advect_2d_bicubic in float64, the same operations in the same order: (out, sum |w f|)."""
    R = f.shape[0]
    i = np.arange(NX)[None, :]
    j = np.arange(NV)[:, None]
    out = np.zeros(f.shape)
    mag = np.zeros(f.shape)
    for r in range(R):
        dx = np.float64(tab["dx"][r])
        x = i * dx
        v = VMIN + j * DV
        ph = (x - 0.5 * v * dt) / dx
        fh = np.floor(ph)
        th = ph - fh
        ih = fh.astype(np.int64)
        Eh = (1 - th) * E[r][ih % NX] + th * E[r][(ih + 1) % NX]
        V = v + Eh * dt
        X = x - 0.5 * (v + V) * dt
        px, pv = X / dx, (V - VMIN) / DV
        fx, fv = np.floor(px), np.floor(pv)
        ix, iv = fx.astype(np.int64), fv.astype(np.int64)
        wx, wv = _lagrange(px - fx, 4), _lagrange(pv - fv, 4)
        for b in range(4):
            jj = iv - 1 + b
            ok = (jj >= 0) & (jj < NV)
            for a in range(4):
                g = np.where(ok, f[r][np.clip(jj, 0, NV - 1), (ix - 1 + a) % NX], 0.0)
                out[r] += wv[b] * wx[a] * g
                mag[r] += np.abs(wv[b] * wx[a] * g)
    return out, mag


def test_advect_2d():
    runs = [3, 9]                                                   # nonlinear Landau (E to 0.55), waterbag
    f32, E, rows, _ = _ensemble(runs, 6)
    f = f32.astype(np.float64)
    E[1] *= 10                                                      # a strong field: departures past v's ends
    host = [f.ravel(), np.zeros(f.size), E.ravel(), np.float64(VMIN), np.float64(DV), np.float64(DT)]
    out = run(IDS[5], host, len(runs), symbols={"c_run": _table(rows)})
    got = out[1].reshape(f.shape)
    want, mag = _bc_ref(f, E, rows, DT)
    # the same double operations but for fused multiply-adds: a departure point ~500 cells out
    # differs by an ulp (1e-13 cells) here and there, the weights' slopes ~1 a cell
    assert (np.abs(got - want) <= 1e-11 * mag + 1e-300).all()
    assert np.abs(got - f).max() > 1e-3
