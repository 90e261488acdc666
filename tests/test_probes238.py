"""probe-unseen236's kernels (kernels_cuda/probes238.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/volc-lava-magflow-ca-smem-halo", "probe/volc-tephra2-fallout-const-unroll",
       "probe/volc-mogi-insar-gridsearch-shfl", "probe/volc-tremor-envelope-xcorr-smem",
       "probe/volc-so2-camera-u16-ballot", "probe/volc-ash-lagrangian-ganser-atomics"]

F32 = np.float32
EPS = 2.0 ** -24                 # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen236"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes238.cu" and len(tp.get(i).note) > 400 for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _ulp(x):
    """float32's spacing at |x|."""
    return np.spacing(np.abs(np.asarray(x, np.float32))).astype(np.float64)


# ---- the volcano ----

def test_volcano_and_air():
    xs = np.arange(-20000.0, 20000.0, 100.0)
    z = tp._p238_dem_grid(xs, xs)
    assert 3000 < z.max() < tp.P238_SUMMIT and z.min() == 0                 # the craters below the summit
    assert np.allclose(z, tp._p238_dem_smooth(xs[None, :], xs[:, None]), atol=0.01)
    r = np.hypot(xs[None, :], xs[:, None])
    assert z[(r > 2000) & (r < 2100)].mean() > z[(r > 9000) & (r < 9100)].mean() + 1000
    ra, mu = tp._p238_air(np.array([0.0, 11000.0]))
    assert np.allclose(ra[0], 1.225) and 0.3 < ra[1] < 0.4 and 1.4e-5 < mu[1] < mu[0] < 1.9e-5
    # Ganser at sea level: a 1 mm sphere of 2500 kg/m^3 falls at ~8 m/s, 10 um ash at ~7 mm/s (Stokes)
    v, it = tp._p238_ganser(np.array([1e-3, 1e-5]), 2500.0, 1.0, 0.0)
    assert 5.5 < v[0] < 9 and abs(v[1] / (2500 * 9.81 * 1e-10 / (18 * mu[0])) - 1) < 0.01 and (it < 40).all()


# ---- lava_magflow_step ----

def _check_lava(z, h, T, dx, dt, vent, vq, vT, grid=None):
    ny, nx = h.shape
    host = [np.asarray(z, F32).ravel(), np.asarray(h, F32).ravel(), np.asarray(T, F32).ravel(), np.int32(nx),
            np.int32(ny), F32(dx), F32(dt), F32(tp.P238_LAVA_RHO), F32(tp.P238_LAVA_CV), F32(tp.P238_LAVA_EMIS),
            F32(tp.P238_LAVA_WATER), np.int32(vent[0]), np.int32(vent[1]), F32(vq), F32(vT),
            np.zeros(nx * ny, F32), np.zeros(nx * ny, F32)]
    out = run(IDS[0], host, nx, grid=grid or (-(-nx // 16), -(-ny // 16)))
    c = lambda v: float(F32(v))
    z2, h2, T2 = (host[k].reshape(ny, nx) for k in (0, 1, 2))
    hn, Tn, qo, qi, a = tp._p238_lava_ref(z2, h2, T2, c(dx), c(dt), c(tp.P238_LAVA_RHO), c(tp.P238_LAVA_CV),
                                          c(tp.P238_LAVA_EMIS), c(tp.P238_LAVA_WATER), vent, c(vq), c(vT))
    gh, gT = out[15].reshape(ny, nx), out[16].reshape(ny, nx)
    # the reference takes the kernel's float32 heads (their rounding is the float32 answer);
    # what is left: powf / logf / sqrtf / the divides to a few ulps each (the exponents of
    # 10 ~ 12 and ~ 3.5 rounded: ~3e-6 of a flux), amplified near the yield point, where
    # a flux ~ (a - 1)^2 takes a relative error of a as 2 a / (a - 1) times itself; then the
    # 8 + 8 float sums: 2e-5 of the thickness moved and 1e-5 a / (a - 1) of each flux
    q, _ = tp._p238_lava_flux(z2, h2, T2, c(dx), c(dt), c(tp.P238_LAVA_RHO), c(tp.P238_LAVA_WATER))
    with np.errstate(divide="ignore", invalid="ignore"):
        amp = np.where(a > 1, q * a / (a - 1), 0.0)
    ampin = np.zeros((ny, nx))
    ap = np.pad(amp, ((0, 0), (1, 1), (1, 1)))
    for k, (ox, oy) in enumerate(tp.P238_NB):
        ampin += ap[(k + 4) & 7, 1 + oy:1 + oy + ny, 1 + ox:1 + ox + nx]
    tolh = 2e-5 * (h2 + qo + qi) + 1e-5 * (amp.sum(0) + ampin) + 1e-30
    assert (np.abs(gh - hn) <= tolh).all()
    # T = (heat) / h_new, then the cooling (its sensitivity to h_new at most 1/3): the
    # thickness' error over h_new, three times, and 1e-5 for the divides, cbrtf and T^3
    tolT = 3 * np.abs(Tn) * tolh / np.maximum(hn, 1e-30) + 1e-5 * np.abs(Tn)
    assert (np.abs(gT - Tn) <= tolT).all()
    return gh, gT, hn, Tn, q


def test_lava_flow_field():
    rng = np.random.default_rng(1)
    n = 160
    host = tp._p238_lava_args(n, rng)
    h = host[1].reshape(n, n)
    assert 0.05 < (h > 0).mean() < 0.6 and h.max() < 8 and host[0].max() - host[0].min() > 50
    gh, gT, hn, Tn, q = _check_lava(host[0].reshape(n, n), h, host[2].reshape(n, n), host[5], host[6],
                                    (int(host[11]), int(host[12])), host[13], host[14])
    lv = h > 0
    assert (q.sum(0)[lv] > 0).mean() > 0.9                                     # the channels flow
    assert ((hn > 0) & ~lv).any()                                            # the margins advance
    assert (gT[lv] < host[2].reshape(n, n)[lv] + 1e-3).mean() > 0.3          # and cool


def test_lava_cases():
    rng = np.random.default_rng(2)
    ny, nx, dx = 36, 45, 10.0                                                # ragged tiles
    yy, xx = np.mgrid[0:ny, 0:nx]
    z = (2000.0 - 0.12 * xx * dx + 0.3 * np.sin(yy)).astype(F32)             # a 12% slope down to the east
    z[:, 30:] = z[:, 30:31]                                                  # a flat plain from column 30
    h = np.zeros((ny, nx), F32)
    T = np.full((ny, nx), 300.0, F32)
    h[5:15, 3:12] = rng.uniform(1.0, 4.0, (10, 9))                           # a lobe
    T[5:15, 3:12] = rng.uniform(1250, 1350, (10, 9))
    h[20:24, 40:45] = 3.0                                                    # on the plain, at the east edge
    T[20:24, 40:45] = 1340.0
    h[30, 5] = 2.0                                                           # solidified: under its yield
    T[30, 5] = 900.0
    h[0, 20] = 1.5                                                           # against the south edge
    T[0, 20] = 1330.0
    vent = (6, 10)
    gh, gT, hn, Tn, q = _check_lava(z, h, T, dx, 0.5, vent, 25.0, 1360.0)
    add = float(F32(25.0)) * 0.5 / dx ** 2
    # nothing leaves the DEM (a wall outside it): the lava's volume is kept, plus the vent's
    assert abs(gh.sum() - (h.astype(np.float64).sum() + add)) < 1e-5 * gh.sum()
    assert gh[30, 5] == h[30, 5] and q[:, 30, 5].sum() == 0                  # the frozen cell stays
    assert (q[[0, 1, 7], 20:24, 44] == 0).all() and (q[4, 20:24, 40] > 0).all()   # the wall east, spreading west
    assert (q[:, 5:15, 3:12][0] > 0).mean() > 0.5                            # the lobe runs east
    _check_lava(z, h, T, dx, 0.5, (-1, -1), 25.0, 1360.0)                   # no vent on the grid
    _check_lava(z[:16, :16], h[:16, :16], T[:16, :16], dx, 2.0, (8, 8), 25.0, 1360.0)   # one tile, a long step


# ---- tephra_fallout<12> ----

def _check_tf(host, nx, ny, sym):
    out = run(IDS[1], host, nx, symbols=sym, grid=tp._p238_tf_grid(0, nx, ny))
    load, mag, fence = tp._p238_tf_ref(host[0], host[1], host[2], host[3], nx, ny, sym["c_lev"], sym["c_cls"],
                                       int(host[6]), 12, host[9], host[10], host[11], host[12], host[13])
    got = out[14].reshape(ny, nx)
    # a term's exp argument to a few ulps (a relative error of arg times eps a ulp of it),
    # its divides and products a few ulps each, the sum of 384 positive terms in float32:
    # 32 eps of the sum of the terms weighted by 1 + their arguments (the observed ~6 eps);
    # a point with a fall time within 1e-5 of the fine threshold could take the other law;
    # far in the tails the terms are float32 denormals (2^-149 apart), off by up to that each
    ok = fence > 1e-5
    assert ok.mean() > 0.99
    tiny = float(F32(host[10])) * 384 * 2.0 ** -149
    assert (np.abs(got - load)[ok] <= 32 * EPS * mag[ok] + tiny).all()
    return got, load


def test_tephra_fallout():
    rng = np.random.default_rng(3)
    nx, ny = 36, 21
    host = tp._p238_tf_args(0, rng, nx=nx, ny=ny, dx=2000.0, x0=-20000.0, y0=-25000.0)
    sym = tp._p238_tf_symbols()
    assert np.isclose(sym["c_lev"]["frac"].sum(), 1) and np.isclose(sym["c_cls"]["frac"].sum(), 1)
    assert (np.diff(sym["c_cls"]["vs"][:12]) < 0).all()                      # finer, slower
    got, load = _check_tf(host, nx, ny, sym)
    iy, ix = np.unravel_index(np.argmax(load), load.shape)
    assert 1 < load.max() < 100 and -20000 + 2000 * ix > -2000                # kg/m^2 near the vent, downwind


def test_tephra_cases():
    # one level, still air, a flat plain: each class a centred Gaussian; the load over a
    # grid that holds them integrates to the mass
    lev = np.zeros(64, tp.P238_COLUMN_LEVEL)
    lev[0] = (8000.0, 1.0, 0.0, 0.0)
    cls = np.zeros(16, tp.P238_GRAIN_CLASS)
    cls["vs"] = 1.0
    cls["vs"][:12] = [40, 30, 20, 15, 10, 8, 6, 5, 4, 3, 2.5, 2]             # all coarse (t < ftt)
    cls["frac"][:12] = 1 / 12
    sym = {"c_lev": lev, "c_cls": cls}
    nx = ny = 40
    dx = 1500.0
    el = np.zeros(nx * ny, F32)
    host = [el, F32(-30000), F32(-30000), F32(dx), np.int32(nx), np.int32(ny), np.int32(1), F32(0), F32(0),
            F32(3000), F32(1e9), F32(500.0), F32(0.04), F32(1e9), np.zeros(nx * ny, F32)]
    got, load = _check_tf(host, nx, ny, sym)
    assert abs(got.sum() * dx * dx / 1e9 - 1) < 1e-3                          # the mass, all on the grid
    assert got.argmax() == 20 * nx + 20                                      # centred on the vent ...
    assert np.allclose(got[1:, 1:], got[1:, 1:].T, rtol=1e-5)                # ... and round
    assert np.allclose(got[20, 21:], got[20, 19:0:-1], rtol=1e-5)
    vs = cls["vs"][:12].astype(np.float64)
    s2 = 4 * 500.0 * (8000.0 / vs + (0.2 * 5000.0) ** 2 / (4 * 500.0))
    assert abs(got[20, 20] / (1e9 / 12 * (1 / (2 * np.pi * s2)).sum()) - 1) < 1e-5
    host[13] = F32(100.0)                                                   # every class past the threshold
    _check_tf(host, nx, ny, sym)


# ---- mogi_grid_search ----

def _check_mg(host, gnx, gny, gnz):
    out = run(IDS[2], host, int(host[2]), grid=(gnx * gny * gnz,))
    dv, chi2, agd, b, c = tp._p238_mg_ref(host[0], host[1], *[host[k] for k in (3, 4, 5, 6, 7, 8, 9)],
                                          gnx, gny, gnz, host[12], host[13])
    # each Green's function to a few ulps, float sums a thread (~16 terms) and a shuffle tree
    # (5 levels), the 8 warps' and the finish in double: 64 eps of the sums of magnitudes;
    # dv = a / b takes a's over b and b's (the same) times |dv|, chi2 = c - a^2 / b an
    # error of c's, plus twice a's times |dv|
    assert (np.abs(out[14] - dv) <= 64 * EPS * (agd / b + np.abs(dv))).all()
    assert (np.abs(out[15] - chi2) <= 64 * EPS * (c + 2 * agd * np.abs(dv))).all()
    return out[14], out[15], dv, chi2


def test_mogi_grid_search():
    rng = np.random.default_rng(4)
    host = tp._p238_mg_args(700, rng, grid=(6, 5, 4))
    p = host[0]
    assert 0.01 < p[:, 2].max() < 0.1 and (host[1] > 1000).any() and (np.hypot(p[:, 0], p[:, 1]) > 1000).all()
    got, chi, dv, chi2 = _check_mg(host, 6, 5, 4)
    assert (chi2 > 0).all() and (dv > 0).sum() > 60                          # inflation, mostly


def test_mogi_cases():
    rng = np.random.default_rng(5)
    n = 300
    xy = rng.uniform(-15000, 15000, (n, 2))
    el = rng.uniform(0, 2500, n)
    xs, ys, ds, dv0 = -1000.0, 500.0, 4000.0, 5e6                         # on the grid's node (2, 3, 1)
    los = tp._p238_mogi_los(xy[:, 0], xy[:, 1], el, xs, ys, ds, dv0)
    pts = np.stack([xy[:, 0], xy[:, 1], los, np.full(n, 1e4)], -1).astype(F32)
    ex, ey, eu = tp._p238_los()
    host = [pts, el.astype(F32), np.int32(n), F32(ex), F32(ey), F32(eu), F32(0.25), F32(-2000), F32(-1000),
            F32(500), np.int32(5), np.int32(4), F32(3000), F32(1000), np.zeros(40, F32), np.zeros(40, F32)]
    got, chi, dv, chi2 = _check_mg(host, 5, 4, 2)
    k = (1 * 4 + 3) * 5 + 2
    assert abs(got[k] / dv0 - 1) < 1e-4 and chi.argmin() == k and chi[k] < 1e-4 * np.median(chi)
    _check_mg([pts[:37], el[:37].astype(F32), np.int32(37)] + host[3:], 5, 4, 2)   # fewer points than threads


# ---- tremor_env_xcorr ----

def _check_xc(host, nwin, npair):
    out = run(IDS[3], host, nwin, grid=(nwin, npair))
    cc, bad = tp._p238_xc_ref(host[0], int(host[1]), int(host[2]), host[3], host[4], nwin)
    best, lag = cc.max(-1).ravel(), cc.argmax(-1).ravel() - tp.P238_XC_ML
    bad = bad.ravel()
    assert (out[6][bad] == -2).all() and (out[7][bad] == 0).all()
    # means, demeaned samples, 1024-term float32 sums of products (a few hundred ulps of
    # the sums of |products| at worst), sqrtf and a divide: 1e-5 of the normalised values
    # (the observed ~3e-6); the best lag exactly, unless the runner-up is within that
    assert (np.abs(out[6][~bad] - best[~bad]) <= 1e-5).all()
    srt = np.sort(cc, -1).reshape(-1, 2 * tp.P238_XC_ML)
    clear = (srt[:, -1] - srt[:, -2] > 2e-5) & ~bad
    assert (out[7][clear] == lag[clear]).all()
    near = ~clear & ~bad
    if near.any():
        c2 = cc.reshape(-1, 2 * tp.P238_XC_ML)[near, out[7][near] + tp.P238_XC_ML]
        assert (c2 >= best[near] - 2e-5).all()
    return out, best, lag, bad


def test_tremor_xcorr():
    rng = np.random.default_rng(6)
    host = tp._p238_xc_args(3, rng, nsta=4)
    out, best, lag, bad = _check_xc(host, 3, 6)
    assert bad.any() and (~bad).sum() >= 6                                   # the summit station's outage
    assert (best[~bad] > 0.7).all()
    # the later station is the farther one
    sta = tp._p238_stations(4)
    r = np.hypot(np.hypot(sta[:, 0], sta[:, 1]), sta[:, 2] + 800)
    pr = host[3]
    dr = (r[pr[:, 1]] - r[pr[:, 0]]).repeat(3)
    assert (np.sign(lag[~bad & (np.abs(dr) > 500)]) == np.sign(dr[~bad & (np.abs(dr) > 500)])).all()


def test_tremor_cases():
    rng = np.random.default_rng(7)
    nwin, WL, ML, hop = 2, tp.P238_XC_WL, tp.P238_XC_ML, tp.P238_XC_HOP
    nsamp = (nwin - 1) * hop + WL + 2 * ML
    src = np.exp(0.7 * tp._p238_smooth_noise(nsamp + 400, 10.0, rng)) * 100
    env = np.stack([src[200:200 + nsamp], src[200 - 37:200 - 37 + nsamp], src[200 + 20:200 + 20 + nsamp],
                    src[200:200 + nsamp] * 3 + 50]).astype(F32)              # 37 late, 20 early, scaled
    pairs = np.array([[0, 1], [0, 2], [0, 3], [1, 2], [2, 3]], np.int32)
    gap = np.zeros((4, nwin), np.uint8)
    gap[3, 1] = 1
    host = [env.ravel(), np.int32(nsamp), np.int32(hop), pairs, gap.ravel(), np.int32(nwin),
            np.zeros(5 * nwin, F32), np.zeros(5 * nwin, np.int32)]
    out, best, lag, bad = _check_xc(host, nwin, 5)
    assert out[7].tolist() == [37, 37, -20, -20, 0, 0, -57, -57, 20, 0]     # [pair nwin + window]
    # the same samples, but b demeaned over its wider span: just under 1
    assert (out[6][[0, 1, 2, 3, 4, 6, 7, 8]] > 0.98).all() and out[6][5] == -2 and out[6][9] == -2


# ---- so2_camera_columns ----

def _check_so2(host, nf, H, W, grid):
    out = run(IDS[4], host, nf, grid=grid)
    cd, aa, ok = tp._p238_so2_ref(host[0], host[1], host[2], host[3], host[4], nf, H, W, host[8], host[9])
    got = out[12].reshape(nf, H, W)
    assert (got[~ok] == 0).all()
    # two logf (each to ~2 ulps of its value), their difference, the polynomial: 8 eps of
    # |tau_A| + |tau_B| + 1 times the slope c1 + 2 c2 |aa|, and 8 eps of the value
    ia = np.asarray(host[0]).reshape(nf, H, W).astype(F32) - host[4][:, 0, None, None]
    a0 = np.asarray(host[2], F32).reshape(H, W)
    with np.errstate(divide="ignore", invalid="ignore"):
        ta = np.abs(np.log(ia.astype(np.float64) / a0))
    c1, c2 = float(F32(host[8])), float(F32(host[9]))
    tol = 8 * EPS * ((c1 + 2 * c2 * np.abs(aa)) * (2 * ta + np.abs(aa) + 1) + np.abs(cd))
    assert (np.abs(got - cd)[ok] <= tol[ok]).all()
    # the plume's pixels: exact, unless one's absorbance is within 1e-6 of the threshold
    thr = float(F32(host[11]))
    fence = (np.abs(aa - thr) < 1e-6) & ok
    want = (ok & (aa > thr)).sum((1, 2))
    assert (np.abs(out[14] - want) <= fence.sum((1, 2))).all()
    # the cross-section: float atomics of ~H terms in any order
    col = 2 * int(host[7])
    pm = float(F32(host[10]))
    s = (cd[:, :, col] * ok[:, :, col]).sum(1) * pm
    m = (np.abs(cd[:, :, col]) * ok[:, :, col]).sum(1) * pm
    assert (np.abs(out[13] - s) <= (H + 16) * EPS * m + 1e-30).all()
    return out, cd, ok


def test_so2_camera():
    rng = np.random.default_rng(8)
    H, W, nf = 64, 96, 3
    host = tp._p238_so2_args(nf, rng, H, W)
    assert (H * W // 2) % 32 == 0
    out, cd, ok = _check_so2(host, nf, H, W, (3, nf))                       # 3 blocks: 4 trips a thread
    assert 0.6 < ok.mean() < 0.9 and cd.max() > 1000 and (out[14] > 0).all() and (out[13] > 0).all()


def test_so2_cases():
    H, W, nf = 2, 64, 2
    rng = np.random.default_rng(9)
    bgA = np.full((H, W), 1500.0, F32)
    bgB = np.full((H, W), 2900.0, F32)
    dark = np.array([[100.25, 98.5], [101.0, 97.75]], F32)
    ia = (rng.uniform(800, 1500, (nf, H, W)) + 100).astype(np.uint16)
    ib = (rng.uniform(2500, 2900, (nf, H, W)) + 98).astype(np.uint16)
    ia[0, 0, :4] = [4095, 140, 141, 100]                                    # saturated; 39.75 and 40.75 over dark
    ib[0, 0, 4:6] = [4095, 138]                                             # saturated; 39.5 over dark
    ia[1, 1, 10] = 0
    host = [ia.ravel(), ib.ravel(), bgA.reshape(-1, 2), bgB.reshape(-1, 2), dark, np.int32(H * W // 2),
            np.int32(W // 2), np.int32(5), F32(4000), F32(2500), F32(1.8), F32(0.1),
            np.zeros((nf * H * W // 2, 2), F32), np.zeros(nf, F32), np.zeros(nf, np.int32)]
    out, cd, ok = _check_so2(host, nf, H, W, (1, nf))
    assert ok[0, 0, :6].tolist() == [False, False, True, False, False, False] and not ok[1, 1, 10]


# ---- ash_particle_step ----

def _check_at(host, npart, grid=None, fence=True):
    w = tp._p238_wind_table()
    g = int(host[3])
    ref = tp._p238_at_ref(host[0], host[2], g, int(host[4]), host[5], host[6], host[7], host[8], host[9],
                          int(host[10]), w)
    p = host[0]
    if fence:
        # a particle within a float32 rounding of the ground or a cell's edge could land
        # either way: leave those out (dead) so that the deposits compare
        alive = p["mass"] > 0
        near = alive & ((ref[3] < 0.05 + 1e-3 * ref[2] * float(host[8])) | (ref[4] < 0.05))
        p = p.copy()
        p["mass"][near] = 0
        host = [p] + host[1:]
        ref = tp._p238_at_ref(p, host[2], g, int(host[4]), host[5], host[6], host[7], host[8], host[9],
                              int(host[10]), w)
    (x, y, z, m), dep, vs, _, _ = ref
    out = run(IDS[5], host, npart, symbols={"c_wind": w}, grid=grid)
    q = out[0]
    alive = p["mass"] > 0
    assert (q[~alive] == p[~alive]).all()                                  # the deposited: untouched
    dt = float(F32(host[8]))
    # x, y: the wind (an interpolation), the Box-Muller step (logf, sqrtf, sincosf to a few
    # ulps) and the sum, rounded to float32: an ulp of the result and 1e-5 of the step;
    # z: Ganser's iteration stops within 1e-4 of its fixed point (a contraction of at most
    # 1/2: the last change bounds the distance left), the kernel's and the reference's each:
    # 3e-4 of vs dt, and an ulp of z
    sd = np.sqrt(2 * float(F32(host[9])) * dt)
    stepx = np.abs(x - p["x"]) + 5 * sd
    stepy = np.abs(y - p["y"]) + 5 * sd
    assert (np.abs(q["x"] - x)[alive] <= (_ulp(x) + 1e-5 * stepx)[alive]).all()
    assert (np.abs(q["y"] - y)[alive] <= (_ulp(y) + 1e-5 * stepy)[alive]).all()
    assert (np.abs(q["z"] - z)[alive] <= (_ulp(z) + 3e-4 * vs * dt)[alive]).all()
    assert (q["mass"] == m.astype(F32)).all()
    # float masses into double atomics: exact sums of float32 values (up to double's rounding)
    assert np.allclose(out[11], dep, rtol=1e-12, atol=0)
    return out, ref


def test_ash_step():
    rng = np.random.default_rng(10)
    npart = 3000
    host = tp._p238_at_args(npart, rng)
    p = host[0]
    assert 0.5 < (p["mass"] > 0).mean() < 0.95 and p["z"].max() < tp.P238_TF_TOP
    out, ref = _check_at(host, npart)
    assert ((p["mass"] > 0) & (out[0]["mass"] == 0)).any()                  # some land this step


def test_ash_cases():
    n = 300
    rng = np.random.default_rng(11)
    p = np.zeros(n, tp.P238_ASH)
    p["x"] = rng.uniform(-3000, 60000, n)
    p["y"] = rng.uniform(-20000, 5000, n)
    p["z"] = rng.uniform(0, 19000, n)                                       # up past the wind table's top
    p["diam"] = 2.0 ** -rng.uniform(-4, 7, n) * 1e-3
    p["rho"] = rng.uniform(1000, 2600, n)
    p["sph"] = rng.uniform(0.4, 1.0, n)
    p["mass"] = rng.uniform(1, 1000, n)
    p["id"] = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    p["mass"][::7] = 0                                                      # deposited before
    p["z"][1:40:3] = 30.0                                                   # just above the plain: they land
    p["x"][1:40:3] = 40250.0
    p["y"][1:40:3] = -10250.0                                               # in the same cell (contended)
    p["diam"][1:40:3], p["rho"][1:40:3], p["mass"][1:40:3] = 2e-3, 2000.0, 100.0
    p["x"][50:60], p["mass"][50:60] = 149990.0, 100.0                        # off the east edge next
    g = tp.P238_AT_GNX
    host = [p, np.int32(n), tp._p238_at_ground().ravel(), np.int32(g), np.int32(g), F32(tp.P238_AT_X0),
            F32(tp.P238_AT_Y0), F32(tp.P238_AT_DX), F32(tp.P238_AT_DT), F32(10.0), np.uint32(7), np.zeros(g * g + 1)]
    out, ref = _check_at(host, n, grid=(2,))                                # 2 blocks: 300 threads and 212 idle
    dep = out[11]
    assert dep[-1] >= 5 * 100.0 and dep[-1] % 100.0 == 0                    # mass lost off the grid
    cell = (int((40250.0 - tp.P238_AT_X0) // 500) + g * int((-10250.0 - tp.P238_AT_Y0) // 500))
    assert dep[cell] == 13 * 100.0                                          # 13 in one cell (contended)
