"""probe-unseen240's kernels (kernels_cuda/probes242.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/contact-asperity-summits-ballot-hist", "probe/contact-greenwood-williamson-shfl-f64",
       "probe/contact-reynolds-redblack-sor-f64", "probe/contact-boussinesq-influence-tiled",
       "probe/contact-pin-on-disc-wear-map-smem", "probe/contact-lugre-fretting-map-const"]

F32 = np.float32
EPS = 2.0 ** -24                 # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen240"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes242.cu" and len(tp.get(i).note) > 400 for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- the data ----

def test_rough_surface():
    rng = np.random.default_rng(1)
    z = tp._p242_surface(rng, 512, 1024)
    assert z.dtype == np.float32 and abs(z.mean()) < 1e-4 and np.isclose(z.std(), tp.P242_SQ, rtol=1e-3)
    # the grinding lay: slopes across it (y) steeper than along it (x)
    sx = np.diff(z, axis=1).std()
    sy = np.diff(z, axis=0).std()
    assert sy > 2 * sx
    # Gaussian heights: skewness ~ 0, kurtosis ~ 3 (loosely: the patch holds only ~50 roll-off
    # wavelengths' worth of independent long waves)
    u = (z - z.mean()) / z.std()
    assert abs((u ** 3).mean()) < 0.5 and abs((u ** 4).mean() - 3) < 0.8
    m = tp._p242_summit_mask(z)
    assert 0.003 < m.mean() < 0.03 and z[m].mean() > 0.2 * tp.P242_SQ     # summits stand above the mean
    R = 1 / tp._p242_curvature(z)[m]
    assert (R > 0).all() and 5 < np.median(R) < 200                      # tens of um, as measured


def test_other_data():
    rng = np.random.default_rng(2)
    H = tp._p242_film(rng, 2048, 129)
    smooth = 1 + tp.P242_RB_ECC * np.cos(np.arange(2048) * 2 * np.pi / 2048)
    dimp = H - smooth[None, :] - tp.P242_RB_MIS * (np.linspace(0, 1, 129)[:, None] - 0.5) * np.cos(
        np.arange(2048) * 2 * np.pi / 2048)[None, :]
    assert H.min() > 0.2 and dimp.min() > -1e-12 and 0.05 < (dimp > 1e-9)[:, 114:910].mean() < 0.25
    assert np.isclose(dimp.max(), 1.1 * tp.P242_DIMPLE_D / tp.P242_RB_C, rtol=0.1)
    assert np.abs(dimp[:, :100]).max() < 1e-12 and np.abs(dimp[:, 1000:]).max() < 1e-12   # a partial texture
    mc = tp._p242_contacts(rng, 200000)
    assert (mc["theta"] >= 0).all() and (mc["theta"] < 2 * np.pi).all()
    assert np.abs(mc["r"] - tp.P242_PD_R0).max() < 0.08
    assert 1.0 < np.median(mc["a"]) < 5.0 and 0.05 < np.median(mc["load"]) < 0.5
    v = np.unique(np.round(mc["v"] / mc["r"] * tp.P242_PD_R0, 6))
    assert len(v) <= 5 * 200                                              # five speeds (r varies a little)
    s = tp._p242_sliders(rng, 1024)
    assert (s["muc"] < s["mus"]).all() and s["amp"].min() == F32(2e-6) and s["fn"].max() == F32(500)


# ---- asperity_summits ----

def _check_as(z, cap=None, grid=None):
    ny, nx = z.shape
    zlo, inv_bw = F32(tp.P242_ZLO), F32(tp.P242_HBINS / (tp.P242_ZHI - tp.P242_ZLO))
    m = tp._p242_summit_mask(z)
    cap = cap if cap is not None else int(m.sum()) + 8
    host = [np.ascontiguousarray(z, F32).ravel(), np.int32(nx), np.int32(ny), F32(1.0), F32(1.0), zlo, inv_bw,
            np.zeros((max(cap, 1), 4), F32), np.int32(cap), np.zeros(1, np.int32),
            np.zeros(64, np.uint32), np.zeros(64, np.uint32)]
    out = run("probe/contact-asperity-summits-ballot-hist", host, ny, grid=grid or (nx // 32, ny // 8))
    # the bins: float32 (z - zlo) * inv_bw, truncated toward zero, clamped: exact
    b = np.clip(np.trunc((z - zlo) * inv_bw).astype(np.int64), 0, 63)
    assert (out[10] == np.bincount(b.ravel(), minlength=64)).all()
    assert (out[11] == np.bincount(b[m], minlength=64)).all()
    assert out[9][0] == m.sum()
    y, x = np.nonzero(m)
    kap = tp._p242_curvature(z)[m]
    got = out[7][:min(cap, len(y))]
    if cap >= len(y):
        order = np.lexsort((got[:, 0], got[:, 1]))                          # the atomics' order: any
        got = got[order]
        assert (got[:, 0] == x).all() and (got[:, 1] == y).all() and (got[:, 2] == z[m]).all()
        # kappa: four neighbours less 4 z (perhaps fused), halved: a few roundings of the sum of
        # their magnitudes
        zz = z.astype(np.float64)
        mag = 0.5 * (np.abs(np.roll(zz, 1, 0)) + np.abs(np.roll(zz, -1, 0)) + np.abs(np.roll(zz, 1, 1))
                     + np.abs(np.roll(zz, -1, 1)) + 4 * np.abs(zz))[m]
        assert (np.abs(got[:, 3] - kap) <= 6 * EPS * mag).all()
    else:                                                                     # overflow: cap of them stored
        idx = got[:, 1].astype(np.int64) * nx + got[:, 0].astype(np.int64)
        assert len(np.unique(idx)) == cap and m.ravel()[idx].all()
    return out


def test_asperity_summits_surface():
    rng = np.random.default_rng(3)
    z = tp._p242_surface(rng, 64, 256)
    out = _check_as(z)
    assert out[9][0] > 100
    _check_as(z, cap=40)                                                     # the buffer overflows


def test_asperity_summits_cases():
    rng = np.random.default_rng(4)
    z = rng.integers(-3, 4, (16, 64)).astype(F32) * F32(0.25)               # ties: not summits (strict >)
    z[0, 0], z[15, 63], z[0, 63] = 2.0, 1.75, 1.5                            # summits across the wrap
    z[7, 31], z[7, 32] = 3.0, 3.0                                             # a plateau of two: neither
    z[3, 5] = -9.0                                                            # below the histogram's range
    z[9, 40] = 9.0                                                            # above it: a summit in bin 63
    out = _check_as(z)
    m = tp._p242_summit_mask(z)
    assert m[0, 0] and m[9, 40] and not m[7, 31] and not m[7, 32] and out[11][63] >= 1 and out[10][0] >= 1


# ---- gw_load_separation ----

def _gw_ref(s, d):
    """Per separation: the float32 terms as the kernel rounds them (w, R w, sqrt, w sqrt),
    summed in float64."""
    z, R = s[:, 0], s[:, 1]
    load, area, cnt = [], [], []
    for dd in d:
        w = z - F32(dd)
        k = w > 0
        w, r = w[k], R[k]
        rw = r * w
        load.append(4 / 3 * float(F32(tp.P242_ESTAR)) * (w * np.sqrt(rw)).astype(np.float64).sum())
        area.append(np.pi * rw.astype(np.float64).sum())
        cnt.append(k.sum())
    return np.array(load), np.array(area), np.array(cnt)


def _check_gw(s, nsep, split, d0, dd):
    n = len(s)
    chunk = -(-n // split)
    host = [np.ascontiguousarray(s, F32), np.int32(n), np.int32(chunk), F32(d0), F32(dd), F32(tp.P242_ESTAR),
            np.zeros(nsep), np.zeros(nsep), np.zeros(nsep, np.int32)]
    out = run("probe/contact-greenwood-williamson-shfl-f64", host, n, grid=(nsep, split))
    # d0 + dd b exact in float32 here (dd a power of two, fused or not); the terms are single
    # float32 roundings the reference repeats; only the order of the double sums differs
    # (n terms: n ulps at most, 1e-12 of them)
    load, area, cnt = _gw_ref(host[0], d0 + dd * np.arange(nsep))
    assert (out[8] == cnt).all()
    assert np.allclose(out[6], load, rtol=1e-12, atol=0) and np.allclose(out[7], area, rtol=1e-12, atol=0)
    return out


def test_gw_summits():
    rng = np.random.default_rng(5)
    s = tp._p242_summits(rng, 3001, patch=256)
    out = _check_gw(s, 48, 32, -0.25, 1 / 32)                               # separations -0.25 .. 1.22 um
    load, area, cnt = out[6], out[7], out[8]
    assert cnt[0] > 0.75 * len(s) and cnt[-1] < 0.05 * len(s)              # the summits' tail
    assert (np.diff(load) <= 0).all() and (np.diff(area) <= 0).all()        # unloading as they part


def test_gw_cases():
    s = np.array([[1.0, 4.0], [0.5, 9.0], [0.25, 16.0], [-1.0, 1.0], [0.5, 1.0]], F32)
    s = np.tile(s, (70, 1))                                                  # 350: a partial last chunk
    out = _check_gw(s, 8, 5, 0.0, 0.25)
    # d = 0: w = 1, 0.5, 0.25, -, 0.5 -> sqrt(R) w^1.5 = 2, 3 / 2^1.5, 4 / 8, -, 1 / 2^1.5
    assert out[8][0] == 4 * 70 and out[8][1] == 3 * 70 and out[8][4] == 0
    want = 70 * 4 / 3 * float(F32(tp.P242_ESTAR)) * (2 + 3 / 2 ** 1.5 + 0.5 + 1 / 2 ** 1.5)
    assert np.isclose(out[6][0], want, rtol=1e-6)


# ---- reynolds_rb_sor ----

def _rb_ref(P, H, dth, alpha, omega, colour):
    """One red-black SOR half-sweep in float64 (the film as float32 values)."""
    P = P.copy()
    nz, nth = P.shape
    H = H.astype(np.float64)
    He, Hw = np.roll(H, -1, 1), np.roll(H, 1, 1)
    Hn, Hs = np.roll(H, -1, 0), np.roll(H, 1, 0)
    ae = 0.125 * (H + He) ** 3
    aw = 0.125 * (H + Hw) ** 3
    an = alpha * 0.125 * (H + Hn) ** 3
    as_ = alpha * 0.125 * (H + Hs) ** 3
    rhs = 3.0 * dth * (He - Hw)
    pgs = (ae * np.roll(P, -1, 1) + aw * np.roll(P, 1, 1) + an * np.roll(P, -1, 0) + as_ * np.roll(P, 1, 0)
           - rhs) / (ae + aw + an + as_)
    j, i = np.indices(P.shape)
    sel = ((i + j) % 2 == colour) & (j > 0) & (j < nz - 1)
    new = np.maximum(P + omega * (pgs - P), 0.0)
    dp = np.abs(new - P)[sel].max()
    P[sel] = new[sel]
    return P, dp


def _check_rb(P, H, omega=tp.P242_RB_OMEGA, sweeps=1):
    nz, nth = P.shape
    dth, alpha = tp._p242_rb_consts(nth, nz)
    grid = tp._p242_rb_grid(nz, nth)
    Hf = np.ascontiguousarray(H, F32)
    got, want = P.copy(), P.copy()
    dps = []
    for s in range(sweeps):
        for colour in (0, 1):
            host = [got.ravel(), Hf.ravel(), np.int32(nth), np.int32(nz), np.float64(dth), np.float64(alpha),
                    np.float64(omega), np.int32(colour), np.zeros(1, np.uint64)]
            out = run("probe/contact-reynolds-redblack-sor-f64", host, nz, grid=grid)
            got = out[0].reshape(nz, nth)
            want, dp = _rb_ref(want, Hf, dth, alpha, omega, colour)
            gdp = out[8].view(np.float64)[0]
            # a few dozen double operations a node (contracted or not), O(1) values: 1e-13
            assert np.allclose(got, want, rtol=1e-13, atol=1e-13)
            assert np.isclose(gdp, dp, rtol=1e-12, atol=1e-15)
            dps.append(gdp)
    assert (got[0] == P[0]).all() and (got[-1] == P[-1]).all()            # the ends stay at ambient
    return got, dps


def test_reynolds_bearing():
    rng = np.random.default_rng(6)
    nth, nz = 1024, 42                                                      # 8 rows of blocks; the last partial
    H = tp._p242_film(rng, nth, nz)
    P = tp._p242_ocvirk(nth, nz)
    got, dps = _check_rb(P, H, sweeps=3)
    assert (got >= 0).all() and (got[:, nth // 2 + 40:] == 0).any()        # cavitated downstream
    assert min(dps) > 0 and (got[:, nth // 8] > P[:, nth // 8]).any()      # the pressure builds


def test_reynolds_cases():
    nth, nz = 128, 6                                                        # a single block across
    rng = np.random.default_rng(7)
    H = 1 + 0.5 * rng.random((nz, nth))
    P = rng.random((nz, nth)) - 0.2                                         # negative guesses: clamped
    P[0] = P[-1] = 0
    _check_rb(P, H, omega=1.0)                                              # Gauss-Seidel
    _check_rb(P, H, omega=1.7)


# ---- boussinesq_deflection ----

def _check_bq(p, K, grid=None):
    n = len(p)
    host = [np.ascontiguousarray(p, F32), np.ascontiguousarray(K, F32), np.int32(n), np.zeros((n, n), F32)]
    out = run("probe/contact-boussinesq-influence-tiled", host, n, grid=grid or tp._p242_bq_grid(n))
    i = np.arange(n)
    D = np.abs(i[:, None] - i[None, :])
    Kd = host[1].astype(np.float64)
    # u[y, x] = sum K[|y - y'|, |x - x'|] p[y', x'] (float64), a row of targets at a time
    Pd = host[0].astype(np.float64)
    want = np.zeros((n, n))
    mag = np.zeros((n, n))
    for yy in range(n):
        Kr = Kd[D[yy]]                                                     # (n sources' rows, n cols)
        for_x = Kr[:, D]                                                   # (y', x, x')
        want[yy] = np.einsum("aqb,ab->q", for_x, Pd)
        mag[yy] = np.einsum("aqb,ab->q", np.abs(for_x), np.abs(Pd))
    # a block: 2 panels' 512 products summed in float32 (fused), the blocks' partials (2 n^2 /
    # 256 / 2 at most a node) by atomicAdd: (512 + n^2 / 256) roundings of the magnitudes, at most
    tol = (512 + n * n / 256) * EPS * mag
    assert (np.abs(out[3] - want) <= tol + 1e-30).all()
    return out[3]


def test_boussinesq_hertz():
    host = tp._p242_bq_args(64)
    u = _check_bq(host[0], host[1])
    p, h, a, p0 = tp._p242_hertz(64)
    c = (np.arange(64) + 0.5) * h - tp.P242_BOX * a / 2
    r2 = c[:, None] ** 2 + c[None, :] ** 2
    inside = r2 < (0.8 * a) ** 2
    hertz = np.pi * p0 * (2 * a * a - r2) / (4 * a * tp.P242_ESTAR)      # Johnson 3.41a
    assert np.allclose(u[inside], hertz[inside], rtol=0.01)               # the panels' discretisation


def test_boussinesq_cases():
    rng = np.random.default_rng(8)
    n = 32
    p = np.zeros((n, n), F32)
    p[3, 20] = 100.0                                                       # one panel in the second tile
    p[17:20, 1:4] = rng.random((3, 3)) * 50                                # a patch in the third
    d = np.arange(n) * 2.0
    K = tp._p242_love(d[:, None], d[None, :], 1.0)
    u = _check_bq(p, K)
    assert (u > 0).all() and np.unravel_index(np.argmax(u), u.shape) == (3, 20)
    assert np.isclose(K[0, 0], 8 * np.arcsinh(1.0) / (np.pi * tp.P242_ESTAR))   # a square panel's centre
    far = tp._p242_love(np.array(200.0), np.array(0.0), 1.0)
    assert np.isclose(far, 4.0 / (np.pi * tp.P242_ESTAR * 200.0), rtol=1e-4)   # a point load from afar


# ---- pin_on_disc_wear ----

def _pd_ref(mc, w):
    """float64: each contact's flash temperature and regime; the constants as floats."""
    g = {k: float(w[k]) for k in w.dtype.names}
    a = mc["a"].astype(np.float64) * 1e-6
    ld, mu, v = (mc[k].astype(np.float64) for k in ("load", "mu", "v"))
    q = mu * ld * v / (np.pi * a * a)
    pe = v * a / (2 * g["kappa"])
    tf = g["t_bulk"] + g["beta"] * 2 * q * a / (g["k_th"] * np.sqrt(np.pi * (1.273 + pe)))
    reg = np.where(tf < g["t_ox"], 0, np.where(tf < g["t_sev"], 1, 2))
    return tf, reg, g


def _check_pd(mc, grid=(24,)):
    n = len(mc)
    wp = tp._p242_wear_params()
    host = [mc, np.int32(n), np.zeros(n, np.uint8), np.zeros(16 * 360, F32)]
    out = run("probe/contact-pin-on-disc-wear-map-smem", host, n, symbols={"c_wear": wp}, grid=grid)
    tf, reg, g = _pd_ref(mc, wp)
    # tf: a dozen float32 roundings and sqrtf: 1e-6 of it; regimes exact away from the thresholds
    fence = (np.abs(tf - g["t_ox"]) < 1e-5 * tf) | (np.abs(tf - g["t_sev"]) < 1e-5 * tf)
    got = out[2].astype(np.int64)
    assert (got[~fence] == reg[~fence]).all() and np.isin(got, (0, 1, 2)).all()
    K = np.where(got == 0, g["k_mild"], np.where(got == 1, g["a_ox"] * np.exp(-g["q_ox"] / tf), g["k_sev"]))
    dv = K * mc["load"] * (2 * mc["a"].astype(np.float64)) * g["inv_hard"] * 1e12
    # bins as the kernel computes them in float32 (one product, one difference and a product)
    c = F32(360) / (F32(2) * F32(3.14159265358979))
    ia = np.minimum(np.trunc(mc["theta"] * c).astype(np.int64), 359)
    ir = np.clip(np.trunc((mc["r"] - F32(wp["r_in"])) * F32(wp["inv_dr"])).astype(np.int64), 0, 15)
    bins = ir * 360 + ia
    want = np.bincount(bins, dv, minlength=16 * 360)
    # a contact within an ulp of an angular bin's edge may land next door: its volume allowed
    # to either bin
    edge = np.abs(mc["theta"].astype(np.float64) * 360 / (2 * np.pi) - np.rint(mc["theta"] * c)) < 1e-4
    slack = np.bincount(bins[edge], dv[edge], minlength=16 * 360)
    slack += np.bincount(ir[edge] * 360 + (ia[edge] + 1) % 360, dv[edge], minlength=16 * 360)
    slack += np.bincount(ir[edge] * 360 + (ia[edge] - 1) % 360, dv[edge], minlength=16 * 360)
    cnt = np.bincount(bins, minlength=16 * 360)
    # each volume within 2e-6 (expf, the exponent's divide, the products); the bin's float sums
    # (a block's share in shared memory, then the blocks'): one rounding an addend
    tol = (2e-6 + (cnt + grid[0]) * EPS) * want + slack
    assert (np.abs(out[3] - want) <= tol + 1e-30).all()
    return got, out[3]


def test_pin_on_disc_test_run():
    rng = np.random.default_rng(9)
    mc = tp._p242_contacts(rng, 30000)
    reg, wear = _check_pd(mc)
    stage = np.arange(len(mc)) * 5 // len(mc)
    # the wear map's transitions: mild at the slowest speed, much of it severe at the fastest
    assert (reg[stage == 0] == 0).mean() > 0.95 and (reg[stage == 4] == 2).mean() > 0.2
    assert (wear > 0).sum() > 200 and wear.reshape(16, 360)[[0, 15]].sum() == 0   # inside the track


def test_pin_on_disc_cases():
    mc = np.zeros(600, tp.P242_MC)
    mc["r"] = np.linspace(14.9, 15.1, 600)                                 # past the map's radii: clamped
    mc["theta"] = np.linspace(0, 2 * np.pi, 600, endpoint=False) + 0.001
    mc["theta"][-1] = np.nextafter(F32(2 * np.pi), F32(0))                  # the last bin
    mc["load"] = 0.2
    mc["a"] = 3.0
    mc["mu"] = 0.55
    mc["v"] = np.geomspace(0.1, 8.0, 600)                                   # all three regimes
    reg, wear = _check_pd(mc, grid=(3,))
    assert set(reg.tolist()) == {0, 1, 2} and (np.diff(reg) >= 0).all()
    assert wear.reshape(16, 360)[:, 359].sum() > 0


# ---- lugre_fretting ----

def _lg_ref(s, c):
    """The tests in float64, as the kernel steps them."""
    g_ = {k: float(c[k]) for k in c.dtype.names}
    amp, fn, mus, muc = (s[k].astype(np.float64) for k in ("amp", "fn", "mus", "muc"))
    x = np.zeros(len(s))
    v = np.zeros(len(s))
    z = np.zeros(len(s))
    work = np.zeros(len(s))
    absw = np.zeros(len(s))
    fmx = np.zeros(len(s))
    slip = np.zeros(len(s), np.int64)
    near = np.zeros(len(s), np.int64)
    dt, om, s0 = g_["dt"], g_["omega"], g_["sigma0"]
    for k in range(int(c["nsteps"])):
        t = om * (k * dt)
        xd, vd = amp * np.sin(t), amp * om * np.cos(t)
        r = v / g_["vs"]
        g = muc + (mus - muc) * np.exp(-r * r)
        zss = np.where(v >= 0, g, -g) / s0
        zn = zss + (z - zss) * np.exp(-s0 * np.abs(v) * dt / g)
        zd = (zn - z) / dt
        f = fn * (s0 * zn + g_["sigma1"] * zd + g_["sigma2"] * v)
        a = (g_["k"] * (xd - x) + g_["c"] * (vd - v) - f) * g_["inv_mass"]
        v = v + a * dt
        x = x + v * dt
        z = zn
        work += f * v * dt
        absw += np.abs(f * v * dt)
        fmx = np.maximum(fmx, np.abs(f))
        q = s0 * np.abs(z) / (0.95 * g)
        slip += q > 1
        near += np.abs(q - 1) < 1e-4
    return work, absw, fmx, slip, near


def _check_lg(s, c):
    n = len(s)
    host = [s, np.int32(n), np.zeros(n, F32), np.zeros(n, F32), np.zeros(n, np.uint16)]
    out = run("probe/contact-lugre-fretting-map-const", host, n, symbols={"c_lg": c}, grid=(-(-n // 128),))
    work, absw, fmx, slip, near = _lg_ref(s, c)
    # float32 steps against float64: the stroke's rounding (sincosf, expf to a few ulps) carried
    # through 256 steps of a damped, stable scheme: 1e-4 of the friction's absolute work, of the
    # peak force; a step whose bristle ratio is within 1e-4 of the slip limit may count either way
    assert (np.abs(out[2] - work) <= 1e-4 * absw + 1e-12).all()
    assert np.allclose(out[3], fmx, rtol=1e-4, atol=1e-9)
    assert (np.abs(out[4].astype(np.int64) - slip) <= near).all()
    return out, slip


def test_lugre_fretting_map():
    rng = np.random.default_rng(10)
    na = 16
    s = np.zeros(na * na, tp.P242_SLIDER)
    s["amp"] = np.tile(np.geomspace(*tp.P242_LG_AMP, na), na)
    s["fn"] = np.repeat(np.geomspace(*tp.P242_LG_FN, na), na)
    s["mus"] = np.clip(rng.normal(0.62, 0.04, na * na), 0.45, 0.8)
    s["muc"] = s["mus"] * rng.uniform(0.70, 0.85, na * na)
    out, slip = _check_lg(s, tp._p242_lugre())
    m = out[4].reshape(na, na)
    assert (m[-1, :4] == 0).all() and (m[0, -4:] > 100).all()             # partial slip / gross slip
    ratio = out[3] / s["fn"]
    assert (ratio <= s["mus"] * 1.2).all()
    assert np.isclose(ratio.reshape(na, na)[0, -1], s["muc"][na - 1], rtol=0.15)   # sliding: Coulomb


def test_lugre_cases():
    s = np.zeros(130, tp.P242_SLIDER)                                       # a partial second block
    s["amp"] = np.linspace(1e-6, 3e-4, 130)
    s["fn"] = 50.0
    s["mus"], s["muc"] = 0.6, 0.6                                           # no Stribeck drop: Dahl-like
    s["mus"][::2] = 0.8
    c = tp._p242_lugre(nsteps=100)
    _check_lg(s, c)
