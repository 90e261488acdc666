"""probe-unseen241's kernels (kernels_cuda/probes243.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/wave-ray-refraction-newton-gather", "probe/wave-zero-crossing-ballot-hist",
       "probe/wave-spectrum-moments-warp-shfl", "probe/wave-exner-mpm-smem-halo",
       "probe/wave-runup-overtopping-f64-transect", "probe/wave-harbour-modal-response-complex"]

F32 = np.float32
EPS = 2.0 ** -24                 # float32's unit roundoff
G = 9.81


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen241"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes243.cu" and len(tp.get(i).note) > 400 for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_dispersion_and_spectra():
    # the host's dispersion solver: deep and shallow limits, and a textbook value
    k = tp._p243_wavenumber(2 * np.pi / 10.0, np.array([1000.0, 0.05, 10.0]))
    assert np.isclose(k[0], (2 * np.pi / 10) ** 2 / G, rtol=1e-12)
    assert np.isclose(k[1], 2 * np.pi / 10 / np.sqrt(G * 0.05), rtol=1e-3)
    assert np.isclose(2 * np.pi / k[2], 92.3, rtol=2e-3)               # L = 92.3 m for T = 10 s, h = 10 m
    f = np.linspace(0.02, 1.0, 3000)
    S = tp._p243_jonswap(f, 2.0, 10.0, 3.3)
    assert np.isclose((S * np.gradient(f)).sum(), 0.25, rtol=1e-12) and abs(f[np.argmax(S)] - 0.1) < 1e-3
    D = tp._p243_spreading(np.arange(36) * 10.0, 250.0, 40.0)
    assert np.isclose(D.sum() * 2 * np.pi / 36, 1.0) and np.argmax(D) == 25


# ---- trace_rays ----

def _rays_ref(rays, h, nx, ny, dx, ds, hmin, binw, nb, maxstep=4096):
    """The rays in float64 (Newton to convergence, the same explicit Euler march): end
    states, steps (negative: not arrived), each bin's power; and per ray whether a
    termination test came within a hair of its threshold (float32 may decide otherwise),
    and the smallest distance to a grid line of any interpolation point (where the
    bilinear gradient jumps)."""
    H = h.reshape(ny, nx).astype(np.float64)
    n = len(rays)
    x = np.zeros(n)
    y = rays["y0"].astype(np.float64)
    th = rays["theta0"].astype(np.float64)
    om = rays["omega"].astype(np.float64)
    xmax, ymax = (nx - 1) * dx, (ny - 1) * dx
    act = np.ones(n, bool)
    arrived = np.zeros(n, bool)
    steps = np.zeros(n, np.int64)
    hh = np.zeros(n)
    near = np.zeros(n, bool)
    grid = np.full(n, np.inf)
    for _ in range(maxstep):
        if not act.any():
            break
        a = np.flatnonzero(act)
        xa, ya = x[a], y[a]
        edge = np.minimum.reduce([np.abs(xa), np.abs(xa - xmax), np.abs(ya), np.abs(ya - ymax)])
        near[a] |= (edge > 0) & (edge < 1e-3)                # the start, x = 0, is exact in both
        out = (xa < 0) | (xa > xmax) | (ya < 0) | (ya > ymax)
        act[a[out]] = False
        a, xa, ya = a[~out], xa[~out], ya[~out]
        fx, fy = xa / dx, ya / dx
        i = np.minimum(fx.astype(np.int64), nx - 2)
        j = np.minimum(fy.astype(np.int64), ny - 2)
        gl = np.minimum(np.abs(fx - np.rint(fx)), np.abs(fy - np.rint(fy))) * dx
        grid[a] = np.minimum(grid[a], np.where(gl > 0, gl, np.inf))    # on a line exactly: so is float32
        tx, ty = fx - i, fy - j
        h00, h10, h01, h11 = H[j, i], H[j, i + 1], H[j + 1, i], H[j + 1, i + 1]
        ca, cb, cc = h10 - h00, h01 - h00, h11 - h10 - h01 + h00
        d = h00 + ca * tx + cb * ty + cc * tx * ty
        hx, hy = ca + cc * ty, cb + cc * tx
        hh[a] = d
        near[a] |= np.abs(d - hmin) < 1e-3
        arr = d < hmin
        arrived[a[arr]] = True
        act[a[arr]] = False
        a, d, hx, hy = a[~arr], d[~arr], hx[~arr], hy[~arr]
        w = om[a]
        k = tp._p243_wavenumber(w, d)
        t = np.tanh(k * d)
        s2 = 1 - t * t
        dkdh = -k * k * s2 / (t + k * d * s2)
        c = w / k
        dcdh = -c / k * dkdh
        sn, cs = np.sin(th[a]), np.cos(th[a])
        dcdn = dcdh * (cs * hy - sn * hx) / dx
        x[a] += ds * cs
        y[a] += ds * sn
        th[a] -= ds * dcdn / c
        steps[a] += 1
    shore = np.zeros(nb)
    b = np.minimum((y[arrived] / binw).astype(np.int64), nb - 1)
    np.add.at(shore, b, rays["power"][arrived].astype(np.float64))
    # a ray whose end lies within a hair of a bin's edge may land in the next bin
    fence = arrived & (np.abs(y / binw - np.rint(y / binw)) * binw < 1e-2)
    return x, y, th, hh, np.where(arrived, steps, -steps), shore, near | fence, grid


def _check_rays(rays, h, nx, ny, dx, ds=10.0, hmin=1.0, binw=50.0):
    n = len(rays)
    nb = int(np.ceil((ny - 1) * dx / binw))
    host = [rays, np.int32(n), np.ascontiguousarray(h, F32).ravel(), np.int32(nx), np.int32(ny), F32(dx), F32(ds),
            F32(hmin), F32(binw), np.int32(nb), np.zeros(nb, F32), np.zeros((n, 4), F32), np.zeros(n, np.int32)]
    out = run("probe/wave-ray-refraction-newton-gather", host, n, grid=(-(-n // 128),))
    x, y, th, hh, steps, shore, flag, grid = _rays_ref(rays, host[2], nx, ny, float(F32(dx)), float(F32(ds)),
                                                       float(F32(hmin)), float(F32(binw)), nb)
    end, st = out[11].astype(np.float64), out[12]
    # float32 positions carry a few ulps of the coordinates a step (~1e-4 m over a hundred
    # steps) and headings ~1e-6 rad; where a ray passes within 5 mm of a grid line the
    # bilinear gradient's jump may fall on the other side for a step (a heading change of
    # a few 1e-5 rad at most here): those rays get 0.1 m. A ray whose termination test came
    # within 1 mm (position) or 1 mm (depth) of its threshold is compared loosely (its last
    # step may differ).
    ok = ~flag
    tight = ok & (grid > 5e-3)
    assert (st[ok] == steps[ok]).all()
    assert np.abs(end[tight, 0] - x[tight]).max() < 2e-2 and np.abs(end[tight, 1] - y[tight]).max() < 2e-2
    assert np.abs(end[tight, 2] - th[tight]).max() < 1e-4
    assert np.abs(end[ok, 0] - x[ok]).max() < 0.1 and np.abs(end[ok, 1] - y[ok]).max() < 0.1
    assert np.abs(end[ok, 3] - hh[ok]).max() < 2e-3
    assert np.abs(np.abs(st[flag]) - np.abs(steps[flag])).max(initial=0) <= 1
    # the shore: each bin's power, float atomics in any order (1e-6 of it); a flagged ray's
    # power may sit in a neighbouring bin or nowhere
    P = rays["power"].astype(np.float64)
    slack = np.zeros(nb)
    fb = np.clip((y[flag] / float(F32(binw))).astype(np.int64), 0, nb - 1)
    for d in (-1, 0, 1):
        np.add.at(slack, np.clip(fb + d, 0, nb - 1), P[flag])
    assert (np.abs(out[10] - shore) <= 1e-6 * shore + slack + 1e-6 * P.max()).all()
    return out, (x, y, th, hh, steps, shore, flag)


def test_rays_coast():
    rng = np.random.default_rng(1)
    nx, ny, dx = 48, 72, 20.0                      # a 940 m x 1420 m coast: ~90 steps a ray
    h = tp._p243_coast_depth(nx, ny, dx, rng)
    rays = tp._p243_ray_set(300, rng, (ny - 1) * dx)   # 300: a partial block
    out, (x, y, th, hh, steps, shore, flag) = _check_rays(rays, h, nx, ny, dx)
    assert flag.mean() < 0.1
    st = out[12]
    assert (st > 0).mean() > 0.6 and (st < 0).any()    # most arrive; some leave by the sides
    assert (out[11][st > 0, 3] < 1.0).all()             # arrived: at the breaking depth


def test_rays_planar_beach_snell():
    # straight, parallel contours (h = 12 - 0.0125 x): sin(theta) / c is conserved along a
    # ray (Snell's law), up to the explicit Euler march's O(ds) error; a flat bottom: straight
    nx, ny, dx = 48, 120, 20.0
    x = np.arange(nx) * dx
    h = np.tile((12.0 - 0.0125 * x).astype(F32), (ny, 1))
    r = np.zeros(64, tp.P243_RAY)
    r["y0"] = np.linspace(900, 1500, 64)
    r["theta0"] = np.radians(np.tile([-40.0, -20.0, 15.0, 35.0], 16))
    r["omega"] = 2 * np.pi / np.repeat([6.0, 9.0, 12.0, 16.0], 16)
    r["power"] = 1000.0
    out, _ = _check_rays(r, h, nx, ny, dx)
    end = out[11].astype(np.float64)
    arr = out[12] > 0
    assert arr.all()
    om = r["omega"].astype(np.float64)
    c0 = om / tp._p243_wavenumber(om, 12.0)
    c1 = om / tp._p243_wavenumber(om, end[:, 3])
    s0 = np.sin(r["theta0"].astype(np.float64)) / c0
    s1 = np.sin(end[:, 2]) / c1
    assert np.allclose(s1, s0, rtol=2e-2)
    assert (np.abs(end[:, 2]) < np.abs(r["theta0"])).all()     # turned toward the shore-normal
    hf = np.full((ny, nx), 7.0, F32)                           # flat: straight rays out of the grid
    out, _ = _check_rays(r[:32], hf, nx, ny, dx)
    end = out[11].astype(np.float64)
    t0 = r["theta0"][:32]
    assert (end[:, 2] == t0).all() and (out[12] < 0).all()     # no gradient: no turning at all
    st = -out[12].astype(np.float64)
    t0 = t0.astype(np.float64)
    # a hundred float32 additions of ds sin(theta): a few ulps of 1500 m each
    assert np.allclose(end[:, 1], r["y0"][:32] + st * 10.0 * np.sin(t0), atol=1e-2)
    assert np.allclose(end[:, 0], st * 10.0 * np.cos(t0), atol=1e-2)


# ---- zero_crossing_stats ----

def _zc_ref(eta, fs, hbin_mm, tbin, HB=48, TB=25):
    """Each record's zero up-crossing waves: the joint histogram (the crossings' times in
    float32, as C does them one IEEE operation at a time), number, Hmax, Hrms, Tz."""
    nrec, ns = eta.shape
    hist = np.zeros((HB, TB), np.int64)
    nw, hm, hr, tz = [], [], [], []
    for e in eta.astype(np.int64):
        c = np.flatnonzero((e[:-1] < 0) & (e[1:] >= 0)) + 1
        m = max(len(c) - 1, 0)
        nw.append(m)
        if m == 0:
            hm.append(0), hr.append(0.0), tz.append(0.0)
            continue
        H = np.array([e[a:b].max() - e[a:b].min() for a, b in zip(c[:-1], c[1:])])
        e32 = e.astype(F32)
        tc = (c - 1).astype(F32) + e32[c - 1] / (e32[c - 1] - e32[c])
        T = (tc[1:] - tc[:-1]) / F32(fs)
        tb = np.minimum((T / F32(tbin)).astype(np.int64), TB - 1)
        np.add.at(hist, (np.minimum(H // hbin_mm, HB - 1), tb), 1)
        hm.append(H.max())
        hr.append(np.sqrt(np.mean((H / 1000.0) ** 2)))
        tz.append(np.mean(T.astype(np.float64)))
    return hist.ravel(), np.array(nw), np.array(hm), np.array(hr), np.array(tz)


def _check_zc(eta, fs=2.0, hbin_mm=250, tbin=1.0):
    nrec, ns = eta.shape
    host = [np.ascontiguousarray(eta, np.int16).ravel(), np.int32(ns), F32(fs), np.int32(hbin_mm), F32(tbin),
            np.zeros(48 * 25, np.uint32), np.zeros(nrec, np.int32), np.zeros(nrec, np.int32), np.zeros(nrec, F32),
            np.zeros(nrec, F32)]
    out = run("probe/wave-zero-crossing-ballot-hist", host, nrec, grid=(nrec,))
    hist, nw, hm, hr, tz = _zc_ref(eta, fs, hbin_mm, tbin)
    assert (out[5] == hist).all() and (out[6] == nw).all() and (out[7] == hm).all()   # integers: exact
    # float32 sums of a few hundred terms in the block's order: 1e-5 of them
    assert np.allclose(out[8], hr, rtol=1e-5, atol=1e-7) and np.allclose(out[9], tz, rtol=1e-5, atol=1e-7)
    return out, hist, nw


def test_zero_crossing_buoy():
    rng = np.random.default_rng(2)
    states = (np.array([0.4, 1.2, 3.0, 6.5, 1.8]), np.array([4.0, 6.0, 9.0, 13.0, 15.0]),
              np.array([1.0, 3.3, 3.3, 2.0, 7.0]))
    eta, _ = tp._p243_records(rng, 5, states=states)
    out, hist, nw = _check_zc(eta)
    hr = out[8]
    # linear random seas: Hrms ~ Hs / sqrt(2) (Rayleigh heights; narrow-band), Tz ~ Tm02
    assert np.all(np.abs(hr * np.sqrt(2) / states[0] - 1) < 0.25)
    assert (nw > 2048 / states[1]).all() and (nw < 4096 / states[1]).all()
    assert hist.sum() == nw.sum()


def test_zero_crossing_cases():
    ns = 1000                                         # not a multiple of 256: a partial pass
    t = np.arange(ns)
    a = np.rint(800 * np.sin(2 * np.pi * t / 20.0 + 0.3)).astype(np.int16)   # 10 s waves, 1.6 m
    b = np.zeros(ns, np.int16)                        # flat calm: no crossing
    c = np.where(t % 2 == 0, -5, 0).astype(np.int16)  # a crossing every other sample, zeros count as up
    d = np.zeros(ns, np.int16)
    d[500] = -300
    d[501] = 4000                                     # one crossing: no wave
    e = a.copy()
    e[::97] = 0
    out, hist, nw = _check_zc(np.stack([a, b, c, d, e, -a]), fs=2.0)
    assert nw[1] == 0 and nw[3] == 0 and out[9][1] == 0
    assert nw[2] == ns // 2 - 1 and nw[0] in (48, 49) and (out[7][[0, 5]] == 1600).all()
    assert np.allclose(out[9][0], 10.0, atol=1e-3)


# ---- spectral_params ----

def _sp_ref(spec, npts):
    S = spec.reshape(npts, 32, 36).astype(np.float64)
    f = tp.P243_SP_F.astype(np.float64)
    df = tp.P243_SP_DF.astype(np.float64)
    th = np.radians(tp.P243_SP_DIR)
    cs, sn = np.cos(th).astype(F32).astype(np.float64), np.sin(th).astype(F32).astype(np.float64)
    dth = 2 * np.pi / 36
    E = S.sum(2) * dth
    m0 = (E * df).sum(1)
    m1 = (E * f * df).sum(1)
    m2 = (E * f * f * df).sum(1)
    mm1 = (E * df / f).sum(1)
    qp = (f * E * E * df).sum(1)
    a = (S * cs).sum(2) @ df * dth
    b = (S * sn).sum(2) @ df * dth
    ip = np.argmax(E, 1)
    Es = np.sort(E, 1)
    tie = Es[:, -1] - Es[:, -2] < 1e-5 * Es[:, -1]       # the peak too close to call in float32
    wet = m0 > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.minimum(np.hypot(a, b) / m0, 1)
        out = np.stack([4 * np.sqrt(m0), m0 / m1, np.sqrt(m0 / m2), mm1 / m0, 1 / f[ip],
                        np.mod(np.degrees(np.arctan2(b, a)), 360), np.degrees(np.sqrt(2 * (1 - r))),
                        2 * qp / m0 ** 2], 1)
    out[~wet] = 0
    return out, tie, r


def _check_sp(spec, npts, grid=None):
    host = [np.ascontiguousarray(spec, F32).ravel(), np.int32(npts), np.zeros((npts, 8), F32)]
    got = run("probe/wave-spectrum-moments-warp-shfl", host, npts, symbols=tp._p243_sp_symbols(),
              grid=grid or (-(-npts // 32),))[2].astype(np.float64)
    want_all, tie, r = _sp_ref(host[0], npts)
    wet = want_all[:, 0] > 0
    assert (got[~wet] == 0).all()                    # land (or a calm): zeros
    got_all = got
    got, want, tie, r = got[wet], want_all[wet], tie[wet], r[wet]
    # float32 sums of 36 directions, 32 frequencies and 5 shuffle levels: 1e-5 of the
    # moments; the direction to 1e-3 degrees unless the resultant is tiny (r < 1e-3); the
    # spreading's sqrt(2(1 - r)) amplifies r's 1e-6 by 1 / sqrt(2(1 - r)); the peak exact
    # unless two bins' energies are within 1e-5
    for c in (0, 1, 2, 3, 7):
        assert np.allclose(got[:, c], want[:, c], rtol=2e-5, atol=1e-6), c
    assert (got[~tie, 4] == want[~tie, 4].astype(F32)).all()
    dd = np.abs((got[:, 5] - want[:, 5] + 180) % 360 - 180)
    assert (dd[r > 1e-3] < 1e-3 + 1e-3 / r[r > 1e-3]).all()
    sp_tol = np.degrees(2e-6 / np.maximum(np.sqrt(2 * (1 - np.minimum(r, 1 - 1e-12))), 1e-3)) + 1e-3
    assert (np.abs(got[:, 6] - want[:, 6]) <= sp_tol).all()
    return got_all, want_all, wet


def test_spectral_field():
    rng = np.random.default_rng(3)
    n = 200                                           # warps: grid-stride over 2 rounds
    spec = tp._p243_spectra(n, rng, cols=20, dx=2500.0)   # a coarse 50 x 25 km grid: coast and island
    got, want, wet = _check_sp(spec, n, grid=(4,))
    assert 0.5 < wet.mean() < 0.95
    assert (got[wet, 0] > 0.2).all() and (got[wet, 0] < 3.5).all()
    assert ((got[wet, 4] > 11) | (got[wet, 4] < 7)).all()      # the peak: swell or wind sea


def test_spectral_cases():
    n = 35
    S = np.zeros((n, 32, 36))
    S[1, 10, 9] = 1.0                                 # one bin: from 90 degrees, no spread
    S[2, 5, :] = 0.3                                  # isotropic: no mean direction (r = 0)
    S[3] = tp._p243_jonswap(tp.P243_SP_F, 2.0, 10.0, 3.3, tp.P243_SP_DF)[:, None] * \
        tp._p243_spreading(tp.P243_SP_DIR, 355.0, 10.0)[None, :]     # across north
    S[4, 3, [0, 18]] = 2.0                            # opposing swells
    S[5:] = np.random.default_rng(4).gamma(0.5, 0.02, (n - 5, 32, 36))
    got, want, wet = _check_sp(S.astype(F32), n, grid=(2,))
    assert not wet[0] and wet[1:].all()
    assert np.isclose(got[1, 5], 90.0, atol=1e-3) and got[1, 6] < 0.1 and np.isclose(got[1, 4], 1 / tp.P243_SP_F[10])
    assert np.isclose(got[3, 0], 4 * np.sqrt((S[3].sum(1) * 2 * np.pi / 36 * tp.P243_SP_DF).sum()), rtol=1e-5)
    assert abs((got[3, 5] - 355 + 180) % 360 - 180) < 0.5


# ---- exner_update ----

def _exner_ref(h, uw, uv, cls, zb, nx, ny, dx, dy, tp_, cw, sw, dtm, sed):
    """The bedload (float64 from the float32 inputs) and the Exner step; also the scale of
    each cell's q, its MPM flux unit sqrt((s - 1) g d^3)."""
    rw, rs = 1025.0, 2650.0
    s = sed[cls.astype(np.int64)]
    d = s["d50"].astype(np.float64)
    tcr = s["theta_cr"].astype(np.float64)
    H = h.astype(np.float64)
    U, V = uv[:, 0].astype(np.float64), uv[:, 1].astype(np.float64)
    um = np.hypot(U, V)
    live = (h >= F32(0.05)) & (s["erodible"] != 0) & (um >= 1e-6)
    with np.errstate(all="ignore"):
        z0 = d / 12
        cd = (0.4 / (np.log(H / z0) - 1)) ** 2
        tc = rw * cd * um * um
        ub = uw.astype(np.float64)
        A = ub * tp_ / (2 * np.pi)
        fw = np.minimum(1.39 * (A / z0) ** -0.52, 0.3)
        tw = np.where(ub > 0, 0.5 * rw * fw * ub * ub, 0.0)
        tm = tc * (1 + 1.2 * (tw / (tc + tw)) ** 3.2)
        cphi = (U * cw + V * sw) / um
        tmax = np.sqrt(tm * tm + tw * tw + 2 * tm * tw * np.abs(cphi))
        ex = tmax / ((rs - rw) * G * d) - tcr
        Q = np.sqrt((rs / rw - 1) * G * d ** 3)
        qb = np.where(live & (ex > 0), 8 * np.maximum(ex, 0) ** 1.5 * Q, 0.0)
        qx, qy = np.where(live, qb * U / um, 0), np.where(live, qb * V / um, 0)
    qx, qy, qb, Q = (a.reshape(ny, nx) for a in (qx, qy, qb, np.where(live, Q, 0)))
    px = np.pad(qx, 1, mode="edge")
    py = np.pad(qy, 1, mode="edge")
    div = (px[1:-1, 2:] - px[1:-1, :-2]) / (2 * dx) + (py[2:, 1:-1] - py[:-2, 1:-1]) / (2 * dy)
    por = s["porosity"].astype(np.float64).reshape(ny, nx)
    dz = -dtm / (1 - por) * div
    dz = np.where((s["erodible"].reshape(ny, nx) == 0) & (dz < 0), 0, dz)
    # each cell's dz from its 4 neighbours' fluxes: their float32 errors (1e-5 of q, plus
    # 1e-6 of the flux unit where the Shields excess is near zero)
    e = np.pad(5e-5 * qb + 1e-6 * Q, 1, mode="edge")
    err = dtm / (1 - por) * ((e[1:-1, 2:] + e[1:-1, :-2]) / (2 * dx) + (e[2:, 1:-1] + e[:-2, 1:-1]) / (2 * dy))
    return zb.reshape(ny, nx).astype(np.float64) + dz, dz, err, qb


def _check_ex(h, uw, uv, cls, zb, nx, ny, dx=2.0, dy=4.0, tp_=9.0, th=12.0, dtm=600.0):
    cw, sw = F32(np.cos(np.radians(th))), F32(np.sin(np.radians(th)))
    host = [np.ascontiguousarray(h, F32).ravel(), np.ascontiguousarray(uw, F32).ravel(),
            np.ascontiguousarray(uv, F32).reshape(-1, 2), np.ascontiguousarray(cls, np.uint8).ravel(),
            np.ascontiguousarray(zb, F32).ravel(), np.int32(nx), np.int32(ny), F32(dx), F32(dy), F32(tp_), cw, sw,
            F32(dtm), np.zeros(nx * ny, F32)]
    sym = tp._p243_ex_symbols()
    out = run("probe/wave-exner-mpm-smem-halo", host, ny, symbols=sym, grid=(-(-nx // 32), -(-ny // 8)))
    want, dz, err, qb = _exner_ref(*host[:5], nx, ny, float(F32(dx)), float(F32(dy)), float(F32(tp_)), float(cw),
                                   float(sw), float(F32(dtm)), sym["c_sed"])
    got = out[13].reshape(ny, nx).astype(np.float64)
    # plus the float32 rounding of zb + dz (an ulp of zb)
    assert (np.abs(got - want) <= err + 2 * EPS * np.abs(want) + 1e-12).all()
    return got, dz, qb


def test_exner_surf_zone():
    rng = np.random.default_rng(5)
    nx, ny = 96, 40                                   # 3 x 5 tiles, the last row partial
    zb, h, uw, uv, cls = tp._p243_surf_zone(ny, rng, nx=nx, dx=8.0, dy=25.0)
    got, dz, qb = _check_ex(h, uw, uv, cls, zb, nx, ny, dx=8.0, dy=25.0)
    assert (qb > 0).mean() > 0.2 and (qb == 0).mean() > 0.05      # moving and quiet cells
    assert (dz > 0).any() and (dz < 0).any()
    hard = cls == 0
    assert (got[hard] >= zb[hard]).all() if hard.any() else True


def test_exner_cases():
    rng = np.random.default_rng(6)
    nx, ny = 40, 12                                   # edge tiles on both axes
    h = rng.uniform(0.5, 6.0, (ny, nx)).astype(F32)
    h[:, -4:] = 0.02                                  # dry cells
    uw = rng.uniform(0.0, 1.2, (ny, nx)).astype(F32)
    uw[0] = 0                                         # no waves: the current's stress alone
    uv = rng.normal(0, 0.5, (ny, nx, 2)).astype(F32)
    uv[1, :5] = 0                                     # no current: no direction, no transport
    cls = rng.integers(0, 8, (ny, nx)).astype(np.uint8)
    zb = (-h).astype(F32)
    got, dz, qb = _check_ex(h, uw, uv, cls, zb, nx, ny, dx=1.0, dy=1.0, th=-30.0, dtm=60.0)
    assert (qb[:, -4:] == 0).all() and (qb[1, :5] == 0).all() and (qb[cls == 0] == 0).all()
    assert (qb > 0).mean() > 0.3


# ---- runup_overtopping ----

def _ro_ref(ss, tr, nhours, nyears):
    """Each transect's volume, highest runup, impact hours and annual maxima (mm) in
    float64 (the incidence angle, the shelter product and the dry-toe test in float32, as C
    decides them); the hours whose impact test is a hair from its threshold, and the
    annual maxima that are a hair from a rounding edge."""
    hs0, tp_, dr, swl = (ss[k][:nhours] for k in ("hs", "tp", "dir", "swl"))
    T, S = tp_.astype(np.float64), swl.astype(np.float64)
    res = []
    yr = np.arange(nhours) // 8766
    for t in tr:
        rel = dr - F32(t["normal"])
        rel = rel - F32(360) * np.floor((rel + F32(180)) / F32(360))
        hs32 = hs0 * F32(t["shelter"])
        on = (np.abs(rel) < 90) & (hs32 > F32(0.05))
        gb = 1 - 0.0033 * np.minimum(np.abs(rel.astype(np.float64)), 80)
        hs = hs32.astype(np.float64)
        b = float(t["slope"])
        crest, toe, gf = float(t["crest"]), float(t["toe"]), float(t["gamma_f"])
        q = np.zeros(nhours)
        r2 = np.zeros(nhours)
        with np.errstate(all="ignore"):
            if t["type"] == 0:
                hl = hs * G * T * T / (2 * np.pi)
                r2 = np.where(on, gb * 1.1 * (0.35 * b * np.sqrt(hl) + 0.5 * np.sqrt(hl * (0.563 * b * b + 0.004))), 0)
                twl = S + r2
                e = np.maximum(twl - crest, 0)
                q = np.where(on, 0.51 * np.sqrt(G) * e ** 1.5, 0)
                imp = on & (twl > toe)
                hair = on & (np.abs(twl - toe) < 1e-4)
            else:
                depth = swl - F32(toe)
                on &= depth > 0
                hm0 = np.minimum(hs, 0.55 * depth.astype(np.float64))
                lm = G * (T / 1.1) ** 2 / (2 * np.pi)
                xi = b / np.sqrt(hm0 / lm)
                gfb = gf * gb
                r2 = np.where(on, hm0 * np.minimum(1.65 * gfb * xi, gfb * (4 - 1.5 / np.sqrt(xi))), 0)
                twl = S + r2
                rc = np.maximum(crest - S, 0)
                q1 = 0.023 / np.sqrt(b) * xi * np.exp(-(2.7 * rc / (xi * hm0 * gfb)) ** 1.3)
                q2 = 0.09 * np.exp(-(1.5 * rc / (hm0 * gfb)) ** 1.3)
                q = np.where(on, np.sqrt(G * hm0 ** 3) * np.minimum(q1, q2), 0)
                imp = on & (q > 0.001)
                hair = on & (np.abs(q - 0.001) < 1e-4 * 0.001)
        mm = twl * 1000
        ann = np.full(nyears, -1000000.0)
        np.maximum.at(ann, yr, mm)
        edge = np.full(nyears, np.inf)
        np.minimum.at(edge, yr, np.where(np.abs(mm - np.rint(mm)) > 0.49, 0.0, np.inf))   # a hair from x.5
        res.append((q.sum() * 3600, r2.max(), imp.sum(), hair.sum(), ann, edge == 0))
    return res


def _check_ro(ss, tr_full, ntr, nhours):
    nyears = -(-nhours // 8766)
    host = [ss, np.int32(nhours), np.int32(nyears), np.zeros(ntr), np.zeros(ntr, F32), np.zeros(ntr, np.int32),
            np.zeros(ntr * nyears, np.int32)]
    out = run("probe/wave-runup-overtopping-f64-transect", host, ntr, symbols={"c_tr": tr_full}, grid=(ntr,))
    ref = _ro_ref(ss, tr_full[:ntr], nhours, nyears)
    for t, (vol, r2, nimp, hair, ann, edge) in enumerate(ref):
        # float32 expf / powf(.., 1.3) of arguments up to ~10: 1e-5 of each hour's q, summed
        # in double in any order; the runup's float32 chain: 1e-5
        assert np.isclose(out[3][t], vol, rtol=1e-4, atol=1e-9), t
        assert np.isclose(out[4][t], r2, rtol=1e-5, atol=1e-6), t
        assert abs(out[5][t] - nimp) <= hair, t
        got = out[6][t * nyears:(t + 1) * nyears]
        want = np.rint(ann)
        # the total water level in mm rounded half to even from float32: +-1 where the
        # float64 value is within 0.01 mm of a half, else exact (float32 carries ~5e-3 mm)
        assert (np.abs(got - want) <= 1).all() and (got[~edge] == want[~edge]).all(), t
    return out, ref


def test_runup_hindcast():
    rng = np.random.default_rng(7)
    nh = 2 * 8766 + 500                                # 3 years, the last a stub
    ss = tp._p243_hindcast(rng, nh)
    tr = tp._p243_transects(rng, 6)
    assert set(tr["type"][:6]) <= {0, 1} and (tr["type"][6:] == 0).all() and (tr["slope"][6:] == 0).all()
    # normal, slope, crest, toe, gamma_f, shelter, type: three dune beaches, three dikes
    tr[:6] = [(270, 0.10, 4.0, 2.6, 1.0, 1.0, 0, 0), (280, 0.05, 6.0, 3.0, 1.0, 0.8, 0, 0),
              (255, 0.12, 8.0, 3.2, 1.0, 0.6, 0, 0), (275, 1 / 3, 4.2, 0.0, 1.0, 1.0, 1, 0),
              (290, 0.5, 6.0, -0.5, 0.55, 0.9, 1, 0), (265, 0.25, 5.5, 1.0, 0.9, 0.7, 1, 0)]
    out, ref = _check_ro(ss, tr, 6, nh)
    assert out[3][0] > 0 and out[3][3] > 0 and out[5][0] > 0 and out[5][3] > 0   # a low dune, a low dike
    assert out[3][2] == 0 and out[5][2] > 0                # a high dune: reached, not overwashed
    assert (out[6].reshape(6, 3) > 1000).all()          # annual maxima above the tide's
    assert (out[4] > 0.5).all()


def test_runup_cases():
    ss = np.zeros(300, tp.P243_SEASTATE)
    ss["hs"] = np.linspace(0.0, 8.0, 300)
    ss["tp"] = np.linspace(4.0, 18.0, 300)
    ss["dir"] = np.linspace(0.0, 359.0, 300)            # from every side: offshore waves ignored
    ss["swl"] = np.linspace(-1.5, 3.5, 300)
    tr = np.zeros(512, tp.P243_TRANSECT)
    tr[:4] = [(270, 0.08, 6.0, 3.0, 1.0, 1.0, 0, 0), (5, 0.03, 4.0, 2.5, 1.0, 0.6, 0, 0),
              (270, 1 / 3, 4.0, 0.5, 0.55, 1.0, 1, 0), (180, 0.5, 7.0, 1.0, 1.0, 0.9, 1, 0)]
    out, ref = _check_ro(ss, tr, 4, 300)
    assert (out[4] > 0).all() and out[3][2] > 0


# ---- harbour_response ----

def _hr_ref(phi, modes, nmodes, npts, omega):
    P = phi.reshape(nmodes, npts).astype(np.float64)
    w2 = modes["w2"].astype(np.float64)
    H = modes["amp"].astype(np.float64)[:, None] * w2[:, None] / (
        w2[:, None] - omega.astype(np.float64)[None, :] ** 2 +
        1j * modes["damp"].astype(np.float64)[:, None] * omega.astype(np.float64)[None, :])
    return np.abs(H.T @ P), np.abs(H).T @ np.abs(P)


def _check_hr(phi, modes, npts, omega):
    nm, nw = len(modes), len(omega)
    host = [np.ascontiguousarray(phi, F32).ravel(), modes, np.int32(nm), np.int32(npts), np.asarray(omega, F32),
            np.zeros(nw * npts, F32)]
    out = run("probe/wave-harbour-modal-response-complex", host, npts, grid=(-(-npts // 256), nw))
    want, scale = _hr_ref(host[0], modes, nm, npts, host[4])
    got = out[5].reshape(nw, npts).astype(np.float64)
    # the sum in double (1e-15 of the terms' magnitudes), |A| rounded to float32
    assert (np.abs(got - want) <= 1e-12 * scale + EPS * want).all()
    return got, want


def test_harbour_basin():
    rng = np.random.default_rng(8)
    host = tp._p243_hr_args(300, rng)                  # a partial block
    md, mm, nn = tp._p243_harbour_modes()
    assert len(md) == 256 and (np.diff(md["w2"]) >= 0).all()
    T0 = 2 * np.pi / np.sqrt(md["w2"][0])
    assert abs(T0 - 4 * tp.P243_HR_L / np.sqrt(G * tp.P243_HR_H)) < 0.01 * T0    # Merian: 4 L / sqrt(g h)
    # the first 70 modes (two chunks, the second partial) at the first 5 frequencies
    phi = host[0].reshape(256, 300)[:70]
    got, want = _check_hr(phi, md[:70], 300, host[4][:5])
    assert got.max() > 1.5                             # resonance amplifies
    # at the fundamental's frequency the head of the basin responds most
    x, y = tp._p243_harbour_points(300)
    om0 = np.float32(np.sqrt(md["w2"][0]))
    g0, _ = _check_hr(phi, md[:70], 300, np.array([om0, om0 * 0.2], F32))
    assert np.corrcoef(g0[0], x)[0, 1] > 0.8


def test_harbour_cases():
    md = np.zeros(3, tp.P243_MODE)
    md["w2"], md["damp"], md["amp"] = [0.01, 0.04, 0.09], [0.004, 0.008, 0.012], [1.0, -0.5, 0.25]
    phi = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.3, -0.2, 1.0]], F32)
    om = np.array([0.0, 0.1, 0.2, 0.3, 1.0], F32)
    got, want = _check_hr(phi, md, 3, om)
    assert np.isclose(got[0, 0], abs(1.0 + 0.0 + 0.25 * 0.3), rtol=1e-7)          # static: sum a phi
    # at omega = 0.1 the first mode resonates: 1 / (2 zeta) = w_n / damp = 25
    assert np.isclose(got[1, 0], abs(1.0 * 0.01 / (1j * 0.004 * 0.1) + 0.25 * 0.3 * 0.09 / (0.09 - 0.01 + 0.0012j)),
                      rtol=1e-5)
