"""probe-unseen232's kernels (kernels_cuda/probes234.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/bem-hess-smith-2d-influence-atan2-log", "probe/bem-rankine-matvec-tiles-gauss-near",
       "probe/bem-john-series-green-f64-bessel", "probe/bem-hull-panel-geometry-gather-hydrostatics",
       "probe/bem-froude-krylov-station-hist-ballot", "probe/bem-kochin-havelock-sincos-tree"]

F32 = np.float32
EPS = float(np.finfo(F32).eps)                      # 1.19e-7
NST = 128                                           # SL_NST
NTH, NS = 256, 32                                   # KO_NTH, KO_NS


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen232"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes234.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- references ----

def _hs_ref(X, Y, npan):
    """hs2d_influence in float64 (the midpoints and the differences to the nodes rounded to
    float32 as the kernel forms them, all else exact): An, At (nf, npan, npan) and each
    entry's error scale |ln(r2 / r1)| + |beta| + 1."""
    X = np.asarray(X, F32).reshape(-1, npan + 1)
    Y = np.asarray(Y, F32).reshape(-1, npan + 1)
    xm = (X[:, :-1] + X[:, 1:]) * F32(0.5)
    ym = (Y[:, :-1] + Y[:, 1:]) * F32(0.5)
    th = np.arctan2((Y[:, 1:] - Y[:, :-1]).astype(np.float64), (X[:, 1:] - X[:, :-1]).astype(np.float64))
    d = lambda m, nodes: (m[:, :, None] - nodes[:, None, :]).astype(np.float64)
    dx1, dy1 = d(xm, X[:, :-1]), d(ym, Y[:, :-1])
    dx2, dy2 = d(xm, X[:, 1:]), d(ym, Y[:, 1:])
    eye = np.eye(npan, dtype=bool)[None]
    with np.errstate(divide="ignore", invalid="ignore"):
        lg = np.where(eye, 0.0, 0.5 * np.log((dx2 ** 2 + dy2 ** 2) / (dx1 ** 2 + dy1 ** 2)))
    beta = np.where(eye, np.pi, np.arctan2(dx1 * dy2 - dy1 * dx2, dx1 * dx2 + dy1 * dy2))
    dth = th[:, :, None] - th[:, None, :]
    s, c = np.sin(dth), np.cos(dth)
    return (s * lg + c * beta) / (2 * np.pi), (s * beta - c * lg) / (2 * np.pi), np.abs(lg) + np.abs(beta) + 1


def _gauss_pts(ng):
    x, w = np.polynomial.legendre.leggauss(ng)
    xi, eta = np.meshgrid(x, x, indexing="ij")
    return xi.ravel(), eta.ravel(), np.outer(w, w).ravel()


def _rk_ref(cen, pa, pb, nrm, sig):
    """rankine_matvec in float64: (vn, its error budget). The tiers as the kernel picks them
    (the differences in float32, as it forms them); a pair within float32's rounding of a
    tier's edge counts either way (the budget takes the two tiers' difference)."""
    cen, pa, pb, nrm = (np.asarray(a, F32) for a in (cen, pa, pb, nrm))
    sig = np.asarray(sig, F32)
    n = len(sig)
    x = cen[:, :3].astype(np.float64)
    nv = nrm[:, :3].astype(np.float64)
    sA = (cen[:, 3] * sig).astype(F32).astype(np.float64)
    dd = pa[:, 3].astype(np.float64)
    S = np.abs(cen[:, :3]).max() + np.abs(pa[:, :3]).max() + np.abs(pb[:, :3]).max()
    acc = np.zeros(n)
    err = np.zeros(n)
    quads = {ng: _gauss_pts(ng) for ng in (2, 4)}
    for zs in (1.0, -1.0):
        cz = cen[:, :3] * F32([1, 1, zs])
        dx = (cen[:, None, :3] - cz[None, :, :]).astype(np.float64)          # float32 differences
        r2 = (dx * dx).sum(-1)
        rf = np.sqrt(np.where(r2 > 0, r2, 1.0))                                # (the panel itself: dropped)
        val = {"far": sA[None, :] * (dx * nv[:, None, :]).sum(-1) / rf ** 3}
        rmin = {"far": rf}
        for ng, key in ((2, "mid"), (4, "near")):
            xi, eta, w = quads[ng]
            s = np.zeros((n, n))
            rm = np.full((n, n), np.inf)
            for q in range(len(w)):
                y = (cen[:, :3].astype(np.float64) + xi[q] * pa[:, :3] + eta[q] * pb[:, :3]) * [1, 1, zs]
                dq = x[:, None, :] - y[None, :, :]
                rq = np.sqrt((dq * dq).sum(-1))
                s += w[q] * (dq * nv[:, None, :]).sum(-1) / rq ** 3
                rm = np.minimum(rm, rq)
            val[key] = sA[None, :] * 0.25 * s
            rmin[key] = rm
        t_far, t_mid = 16.0 * dd[None, :], 4.0 * dd[None, :]
        pick = np.where(r2 > t_far, 0, np.where(r2 > t_mid, 1, 2))
        keys = ("far", "mid", "near")
        v = np.choose(pick, [val[k] for k in keys])
        r = np.choose(pick, [rmin[k] for k in keys])
        e = np.abs(v) * (1e-5 + 6 * EPS * S / r)                               # float32 positions, 1 / r^3
        for thr, a, b in ((t_far, "far", "mid"), (t_mid, "mid", "near")):     # a tier's edge
            amb = np.abs(r2 - thr) <= 4 * EPS * thr
            e = e + np.where(amb, np.abs(val[a] - val[b]), 0.0)
        if zs > 0:
            np.fill_diagonal(v, 0.0)
            np.fill_diagonal(e, 0.0)
        acc += v.sum(1)
        err += e.sum(1) + 300 * EPS * np.abs(v).sum(1)                         # float32 sums of up to 256 terms
    vn = 0.5 * sig.astype(np.float64) + acc / (4 * np.pi)
    return vn, err / (4 * np.pi) + EPS * np.abs(vn)


def _j0_ref(x):
    """J0 by the midpoint rule on (1 / pi) int_0^pi cos(x sin t) dt (spectrally exact)."""
    t = (np.arange(600) + 0.5) * np.pi / 600
    return np.cos(np.multiply.outer(x, np.sin(t))).mean(-1)


def _y0_ref(x):
    """Y0: its power series below 20 (|terms| < 4e7: 1e-8 absolute), Hankel's asymptotic
    expansion (12 terms) above."""
    x = np.asarray(x, np.float64)
    out = np.empty_like(x)
    lo = x <= 20
    xs = x[lo]
    q = (xs / 2) ** 2
    term = np.ones_like(xs)
    s = np.zeros_like(xs)
    H = 0.0
    for k in range(1, 80):
        term = term * q / (k * k)
        H += 1.0 / k
        s += (-1) ** (k + 1) * H * term
    out[lo] = (2 / np.pi) * ((np.log(xs / 2) + np.euler_gamma) * _j0_ref(xs) + s)
    xl = x[~lo]
    a = [1.0]
    for k in range(1, 24):
        a.append(a[-1] * (-(2 * k - 1) ** 2) / (k * 8))
    P = sum((-1) ** k * a[2 * k] / xl ** (2 * k) for k in range(12))
    Q = sum((-1) ** k * a[2 * k + 1] / xl ** (2 * k + 1) for k in range(11))
    chi = xl - np.pi / 4
    out[~lo] = np.sqrt(2 / (np.pi * xl)) * (P * np.sin(chi) + Q * np.cos(chi))
    return out


def _k0_ref(x):
    """K0 by the trapezoidal rule on int_0^inf exp(-x cosh t) dt (doubly exponential decay)."""
    t = np.arange(0, 8.0, 0.02)
    w = np.full(len(t), 0.02)
    w[0] = 0.01
    return (np.exp(-np.multiply.outer(x, np.cosh(t))) * w).sum(-1)


def _js_ref(pt, h, km, cm):
    """john_green in float64 with independent Bessel functions: (Re G, Im G, the error
    budget of Abramowitz and Stegun's approximations: 1.2e-7 of the propagating term's
    amplitude, 2.5e-7 of each evanescent term), for the pairs on different buoys."""
    x, y, z = (np.asarray(pt[k], np.float64) for k in "xyz")
    R = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :])
    other = pt["body"][:, None] != pt["body"][None, :]
    Rf = np.where(other, R, 1.0).ravel()
    zi, zj = (z + h)[:, None], (z + h)[None, :]
    a0 = cm[0] * np.cosh(km[0] * zi) * np.cosh(km[0] * zj)
    kr = km[0] * Rf
    gr = a0 * _y0_ref(kr).reshape(R.shape)
    gi = -a0 * _j0_ref(kr).reshape(R.shape)
    err = 1.2e-7 * np.abs(a0)
    for m in range(1, len(km)):
        t = cm[m] * np.cos(km[m] * zi) * np.cos(km[m] * zj) * _k0_ref(km[m] * Rf).reshape(R.shape)
        gr = gr + t
        err = err + 2.5e-7 * np.abs(t)
    return np.where(other, gr, 0.0), np.where(other, gi, 0.0), err + 1e-12, other


def _geo_ref(V, Q, kind, ppv):
    """hull_panel_geometry in float64 from the float32 vertices: (props (np, 8) as Panel,
    hydro (nv, 4), hydro's magnitudes)."""
    V = np.asarray(V, F32).astype(np.float64)
    v0, v1, v2, v3 = (V[Q[:, k]] for k in range(4))
    d1, d2 = v2 - v0, v3 - v1
    n = np.cross(d1, d2)
    nn = np.linalg.norm(n, axis=1)
    c = 0.25 * (v0 + v1 + v2 + v3)
    A = 0.5 * nn
    diam = np.sqrt(np.maximum((d1 * d1).sum(1), (d2 * d2).sum(1)))
    props = np.c_[c, n / nn[:, None], A, diam]
    hull = kind == 0
    terms = np.stack([np.where(hull, A, 0), np.where(hull, c[:, 2] * props[:, 5] * A, 0),
                      np.where(hull, c[:, 0] * c[:, 2] * props[:, 5] * A, 0), np.where(kind == 1, A, 0)], 1)
    v = np.arange(len(Q)) // ppv
    nvar = v.max() + 1 if len(v) else 0
    hyd, mag = np.zeros((nvar, 4)), np.zeros((nvar, 4))
    np.add.at(hyd, v, terms)
    np.add.at(mag, v, np.abs(terms))
    return props, hyd, mag


def _sl_ref(pan, st, p, n, nt):
    """fk_sectional_loads in float64: (q (nt, 3, NST), its error scale, ndry)."""
    P = np.asarray(p, F32).reshape(nt, n).astype(np.float64)
    nrm = np.stack([pan["nx"], pan["ny"], pan["nz"]], 1).astype(np.float64)
    A = pan["area"].astype(np.float64)
    wet = P >= 0
    fa = np.where(wet, -P * A[None, :], 0.0)
    onehot = np.zeros((n, NST))
    onehot[np.arange(n), st.astype(np.int64)] = 1
    q = np.einsum("tj,jc,js->tcs", fa, nrm, onehot)
    mag = np.einsum("tj,jc,js->tcs", np.abs(fa), np.abs(nrm), onehot)
    return q, mag, (~wet).sum(1)


def _ko_ref(src, dirs, spds):
    """kochin_rw in float64 for the direction and speed tables: (H2 (ns, nth), Rw (ns),
    H2's error budget). k, k cos, k sin in float32 as the kernel forms them; the budget: the
    phase's float32 rounding (2 ulps of kx x and ky y and 1 of their sum), the exponent's,
    sincosf's and expf's few ulps, the float32 sums (32 terms a thread, the 8-level tree)."""
    src = np.asarray(src, F32)
    x, y, z, w = (src[:, k].astype(np.float64) for k in range(4))
    H2 = np.zeros((len(spds), len(dirs)))
    e2 = np.zeros_like(H2)
    for s, sp in enumerate(spds):
        for d, dr in enumerate(dirs):
            k = F32(sp["x"]) * F32(dr["z"])
            kx, ky = float(k * F32(dr["x"])), float(k * F32(dr["y"]))
            amp = w * np.exp(float(k) * z)
            ph = kx * x + ky * y
            H = (amp * np.exp(1j * ph)).sum()
            a = np.abs(amp)
            dH = (a * (2 * EPS * (np.abs(kx * x) + np.abs(ky * y)) + EPS * np.abs(ph)
                       + 2 * EPS * np.abs(float(k) * z) + 8 * EPS)).sum() + 48 * EPS * a.sum()
            H2[s, d] = abs(H) ** 2
            e2[s, d] = 2 * abs(H) * dH + dH * dH
    Rw = (H2 * (spds["y"].astype(np.float64)[:, None] * dirs["w"].astype(np.float64)[None, :])).sum(1)
    return H2, Rw, e2


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # sections: rudders symmetric, blade sections thinner and less cambered to the tip, closed
    X, Y, kind, t, m, r = tp._p234_sections(200, rng)
    assert 0.15 < (kind == 0).mean() < 0.35 and (X[:, 0] == X[:, -1]).all() and (Y[:, 0] == Y[:, -1]).all()
    assert (m[kind == 0] == 0).all() and (t[kind == 0] >= 0.12).all()
    bl = kind == 1
    assert np.corrcoef(r[bl], t[bl])[0, 1] < -0.9 and np.corrcoef(r[bl], m[bl])[0, 1] < -0.7
    chord = np.hypot(X[:, 0] - X[:, 128], Y[:, 0] - Y[:, 128])                  # trailing to leading edge
    assert 0.15 < chord.min() and chord.max() < 5.01
    area = 0.5 * (X[:, :-1] * Y[:, 1:] - X[:, 1:] * Y[:, :-1]).sum(1)             # clockwise: negative
    assert (area < 0).all() and np.allclose(-area / chord ** 2, 0.685 * t, rtol=0.05)
    # Wigley I: C_B 0.561 (Journee), both sides' outward normals, diameters ~0.9 m
    c, n, A, dm, a, b = tp._p234_rk_mesh(8192)
    V = (c[:, 2] * n[:, 2] * A).sum()
    assert abs(V / (100 * 10 * 6.25) - 0.561) < 0.003
    assert (n[:4096, 1] > 0).all() and (n[4096:, 1] < 0).all()
    assert np.allclose(4 * np.linalg.norm(np.cross(a, b), axis=1), A)             # the mean parallelogram's area
    assert 0.3 < dm.min() and dm.max() < 2.2 and 0.8 < np.median(dm) < 1.0
    # the iterate: close to the thin-ship source strength
    host = tp._p234_rk_args(8192, rng)
    assert 0.01 < np.std(host[4] - n[:, 0]) < 0.03 and np.abs(host[4]).max() < 0.5
    # the farm: roots of the dispersion relations, buoys apart, John's coefficients
    km, cm = tp._p234_js_tables()
    K = (2 * np.pi / 7.0) ** 2 / 9.81
    h = tp.P234_JS_H
    assert np.isclose(km[0] * np.tanh(km[0] * h), K, rtol=1e-12)
    assert np.allclose(km[1:] * np.tan(km[1:] * h), -K, rtol=1e-9)
    assert ((km[1:] * h > (np.arange(1, 25) - 0.5) * np.pi) & (km[1:] * h < np.arange(1, 25) * np.pi)).all()
    assert cm[0] < 0 and (cm[1:] > 0).all()
    pt = tp._p234_farm(24, rng)
    assert len(pt) == 24 * 128 and (pt["z"] < 0).all() and (pt["z"] > -4.5).all()
    cx = np.array([pt["x"][pt["body"] == b].mean() for b in range(24)])
    cy = np.array([pt["y"][pt["body"] == b].mean() for b in range(24)])
    dist = np.hypot(cx[:, None] - cx, cy[:, None] - cy) + np.eye(24) * 1e9
    assert 28 < dist.min() and dist.min(1).max() < 46
    # the design sweep: a Latin hypercube; volumes against the analytic form's, lids = waterplanes
    par = tp._p234_geo_variants(16, rng)
    lo = np.array([80, 7, 1.4, 0, 0, -0.15])
    hi = np.array([160, 12, 2.2, 0.6, 1, 0.15])
    assert all(sorted(((par[:, k] - lo[k]) / (hi[k] - lo[k]) * 16).astype(int)) == list(range(16)) for k in range(6))
    for v in (0, 1):
        V, Q, K = tp._p234_geo_mesh(*par[v])
        assert len(Q) == tp.P234_GEO_PPV == 21504 and np.bincount(K).tolist() == [6144, 1024, 14336]
        props, hyd, _ = _geo_ref(V.astype(F32), Q, K, len(Q))
        L, LB, BT, a1, a3, e = par[v]
        B, T = L / LB, L / LB / BT
        xi, ze = np.meshgrid(np.linspace(-1, 1, 2001), np.linspace(-1, 0, 1001), indexing="ij")
        yv = tp._p234_halfbreadth(xi, ze, B, a1, a3, e)
        sec = np.trapezoid(yv, ze[0], axis=1) * 2 * T                          # sectional areas
        Vex = np.trapezoid(sec, xi[:, 0]) * L / 2
        lcb = np.trapezoid(sec * xi[:, 0], xi[:, 0]) * L / 2 * L / 2 / Vex
        assert abs(hyd[0, 1] / Vex - 1) < 0.01 and abs(hyd[0, 2] / hyd[0, 1] - lcb) < 0.005 * L
        assert abs(lcb) < 0.05 * L and (abs(e) < 0.02 or np.sign(lcb) == np.sign(e))
        wpl = 2 * np.trapezoid(yv[:, -1], xi[:, 0]) * L / 2
        assert abs(hyd[0, 3] / wpl - 1) < 0.01
    up = K > 0
    assert (props[up, 5] > 0.999).all() and (props[K == 0, 5] <= 1e-9).all()     # lid and free surface up
    # the sea: JONSWAP's Hs, the pressure at the waterline, panels dry in the troughs
    w, a, ph = tp._p234_jonswap(rng)
    assert abs(4 * np.sqrt(0.5 * (a ** 2).sum()) / 4.0 - 1) < 0.06
    V, Q = tp._p234_wigley(128)
    c, *_ = tp._p234_panel_props(V, Q)
    p = tp._p234_fk_pressure(c, 400, rng)
    dry = (p < 0).mean()
    assert 0.02 < dry < 0.2 and p.max() < 1025 * 9.81 * 10
    # Kochin: Gauss-Legendre in tan theta; Wigley I's C_w ~ 1e-3 .. 1e-2 by Michell's theory
    d, s, Fn, U = tp._p234_ko_tables()
    assert np.isclose((d["w"] / np.sqrt(d["z"])).sum(), 12.0, rtol=1e-5)
    assert np.allclose(d["x"] ** 2 + d["y"] ** 2, 1, atol=1e-6)


# ---- bem-hess-smith-2d-influence-atan2-log ----

def _check_hs(X, Y, npan, nf):
    m = nf * npan * npan
    host = [np.asarray(X, F32).ravel(), np.asarray(Y, F32).ravel(), np.int32(npan), np.zeros(m, F32),
            np.zeros(m, F32)]
    out = run(IDS[0], host, nf, grid=(-(-npan // 32), -(-npan // 8), nf))
    An, At, sc = _hs_ref(X, Y, npan)
    # float32: r^2's and the log's ulps, atan2f of the float32 cross and dot (cancellation
    # bounded by 4 ulps of the angle), sincosf of a difference of two atan2f's (a few ulps of
    # pi): ~4 ulps of |ln(r2 / r1)| + |beta| + 1 over 2 pi
    tol = 5e-7 * sc
    assert (np.abs(out[3].reshape(An.shape) - An) <= tol).all()
    assert (np.abs(out[4].reshape(At.shape) - At) <= tol).all()
    return out[3].reshape(An.shape), out[4].reshape(At.shape)


def test_hess_smith():
    rng = np.random.default_rng(1)
    X, Y, *_ = tp._p234_sections(3, rng, npan=64)
    An, At = _check_hs(X, Y, 64, 3)
    assert (np.diagonal(An, axis1=1, axis2=2) == F32(0.5)).all()
    assert (np.diagonal(At, axis1=1, axis2=2) == 0).all()


def test_hess_smith_circle():
    # a circle, 40 panels (tiles cut short): the source panel method's Cp = 1 - 4 sin^2
    npan = 40
    phi = 2 * np.pi * np.arange(npan + 1) / npan
    X, Y = np.cos(phi)[None].astype(F32), -np.sin(phi)[None].astype(F32)
    X[0, -1], Y[0, -1] = X[0, 0], Y[0, 0]
    An, At = _check_hs(X, Y, npan, 1)
    th = np.arctan2(np.diff(Y[0]).astype(np.float64), np.diff(X[0]).astype(np.float64))
    nrm = np.stack([-np.sin(th), np.cos(th)], 1)
    sig = np.linalg.solve(An[0].astype(np.float64), -nrm[:, 0])                   # V = (1, 0)
    vt = At[0] @ sig + np.cos(th)
    pm = 0.5 * (phi[:-1] + phi[1:])
    assert np.abs(1 - vt ** 2 - (1 - 4 * np.sin(pm) ** 2)).max() < 0.01
    ln = np.hypot(np.diff(X[0]), np.diff(Y[0]))
    assert abs((sig * ln).sum()) < 1e-5                                             # a closed body: no net source


# ---- bem-rankine-matvec-tiles-gauss-near ----

def _check_rk(host, grid):
    out = run(IDS[1], host, int(host[5]), grid=grid)
    vn, err = _rk_ref(*host[:5])
    assert (np.abs(out[6] - vn) <= err).all()
    return out[6], vn


def test_rankine():
    rng = np.random.default_rng(2)
    host = tp._p234_rk_args(8192, rng)
    # 297 panels of the full hull (3 blocks of collocation points x 3 of sources, short tiles):
    # mostly far pairs, some within 2 and 4 diameters, the waterline's images among them
    sel = np.sort(np.concatenate([rng.choice(8192, 236, replace=False), np.arange(0, 64)]))
    sel = np.unique(sel)[:300]
    sub = [a[sel] for a in host[:5]] + [np.int32(len(sel)), np.zeros(len(sel), F32)]
    got, vn = _check_rk(sub, (3, 3))
    c = host[0][sel, :3].astype(np.float64)
    d2 = ((c[:, None] - c[None]) ** 2).sum(-1) + np.eye(len(sel)) * 1e9
    dd = host[1][sel, 3][None, :]
    assert (d2 <= 4 * dd).sum() > 50 and ((d2 > 4 * dd) & (d2 <= 16 * dd)).sum() > 50


def test_rankine_cases():
    # two panels facing each other across a gap, a third far off, and one at the waterline
    # whose own image is within a diameter: each tier, the self jump, the image
    a = np.array([[0.5, 0, 0], [0, 0, 0], [0, 0, 0], [0.5, 0, 0]], F32)
    b = np.array([[0, 0, 0.25], [0, 0.25, 0], [0, 0, 0.25], [0, 0, 0.1]], F32)
    c = np.array([[0, 1, -3], [0, 1.5, -3], [40, 0, -5], [3, 0, -0.15]], F32)
    nrm = np.array([[0, -1, 0], [0, 0, -1], [1, 0, 0], [0, 1, 0]], F32)
    a[1], a[2] = [0.25, 0, 0], [0, 0.5, 0]
    A = 4 * np.linalg.norm(np.cross(a, b), axis=1)
    dm = 2 * np.linalg.norm(a + b, axis=1)
    host = [np.c_[c, A].astype(F32), np.c_[a, dm * dm].astype(F32), np.c_[b, np.zeros(4)].astype(F32),
            np.c_[nrm, np.zeros(4)].astype(F32), np.array([1.0, -0.5, 2.0, 0.7], F32), np.int32(4),
            np.zeros(4, F32)]
    got, vn = _check_rk(host, (1, 1))
    assert np.isclose(got[2], 1.0, rtol=1e-3)                                    # far: sigma / 2 and little else


# ---- bem-john-series-green-f64-bessel ----

def _check_js(pt, h=tp.P234_JS_H):
    N = len(pt)
    km, cm = tp._p234_js_tables()
    host = [pt, np.int32(N), np.float64(h), np.zeros((N * N, 2))]
    out = run(IDS[2], host, N, symbols={"c_km": km, "c_cm": cm}, grid=(-(-N // 32), -(-N // 8)))
    gr, gi, err, other = _js_ref(pt, h, km, cm)
    G = out[3].reshape(N, N, 2)
    assert (G[~other] == 0).all()                                                  # a buoy's own block untouched
    assert (np.abs(G[..., 0] - gr) <= err).all() and (np.abs(G[..., 1] - gi) <= err).all()
    return G, gr, gi, other


def test_bessel_refs():
    x = np.array([1.0, 5.0, 10.0, 25.0])
    assert np.allclose(_j0_ref(x), [0.7651976865579666, -0.1775967713143383, -0.2459357644513483,
                                    0.0962667832759581], atol=1e-12)
    assert np.allclose(_y0_ref(x), [0.0882569642156769, -0.3085176252490338, 0.0556711672835994,
                                    -0.1272494322680061], atol=1e-9)
    assert np.allclose(_k0_ref(x[:3]), [0.4210244382407083, 0.0036910983340425, 1.778006231616918e-05],
                       rtol=1e-12)
    # either side of the switch from the series to the asymptotic expansion (80-digit series values)
    assert np.allclose(_y0_ref(np.array([20.0, 21.0, 40.0])), [0.0626405968093838, 0.1702017584221558,
                                                         0.1259364170582609], atol=1e-10)


def test_john_green():
    rng = np.random.default_rng(3)
    pt = tp._p234_farm(4, rng)                                 # 4 buoys of a row, 40 m apart ...
    pt = pt[::4][:118]                                         # ... every 4th panel: 118 (blocks cut short)
    # the second buoy moved 13 m off the first (k0 R < 3, k1 R < 2), the third 300 m off (the
    # series cut after one evanescent mode)
    pt["x"][pt["body"] == 2] += 300.0
    pt["x"][pt["body"] == 1] += 13.0 - 40.0
    G, gr, gi, other = _check_js(pt)
    km, _ = tp._p234_js_tables()
    R = np.hypot(pt["x"][:, None] - pt["x"], pt["y"][:, None] - pt["y"])[other]
    assert (km[0] * R < 3).any() and (km[0] * R > 3).any() and (km[1] * R < 2).any() and (km[2] * R > 36).any()
    assert (G[..., 0][other] != 0).all() and (G[..., 1][other] != 0).all()


# ---- bem-hull-panel-geometry-gather-hydrostatics ----

def _check_geo(V, Q, K, ppv, grid):
    np_ = len(Q)
    nvar = np_ // ppv
    host = [np.asarray(V, F32), np.asarray(Q, np.int32), np.asarray(K, np.uint8), np.int32(np_), np.int32(ppv),
            np.zeros(np_, tp.P234_PANEL), np.zeros(4 * nvar)]
    out = run(IDS[3], host, nvar, grid=grid)
    props, hyd, mag = _geo_ref(V, Q, np.asarray(K), ppv)
    pan = out[5]
    got = np.stack([pan[k] for k in tp.P234_PANEL.names], 1).astype(np.float64)
    S = np.abs(np.asarray(V, F32)).max()
    # float32: the vertex sums' and differences' ulps, the cross product's (the diagonals at
    # least 16 degrees apart: 4 ulps of |n| over sin), the root's and the divides'
    assert (np.abs(got[:, :3] - props[:, :3]) <= 2 * EPS * S).all()
    assert (np.abs(got[:, 3:6] - props[:, 3:6]) <= 3e-6).all()
    assert (np.abs(got[:, 6:] - props[:, 6:]) <= 3e-6 * props[:, 6:]).all()
    # a warp's float32 sums of 32 terms (31 ulps) of terms good to a few ulps, added in double
    assert (np.abs(out[6].reshape(-1, 4) - hyd) <= 40 * EPS * mag + 1e-30).all()
    return pan, out[6].reshape(-1, 4), hyd


def test_geometry():
    rng = np.random.default_rng(4)
    host = tp._p234_geo_args(2, rng)                           # 43008 panels, 16 blocks: 11 trips
    pan, hydro, hyd = _check_geo(host[0], host[1], host[2], tp.P234_GEO_PPV, (16,))
    assert (hydro[:, 1] > 0).all() and (np.abs(hydro[:, 2] / hydro[:, 1]) < 0.1 * 160).all()   # LCB near midships


def _box(L, B, T, xc):
    """A box barge's 5 wetted faces (outward), its lid, and 26 free-surface panels (z = 0,
    up) to fill a warp: V, Q, kind."""
    x0, x1, y0, y1 = xc - L / 2, xc + L / 2, -B / 2, B / 2
    P = lambda x, y, z: [x, y, z]
    faces = [
        [P(x0, y0, -T), P(x0, y1, -T), P(x1, y1, -T), P(x1, y0, -T)],    # bottom (down)
        [P(x0, y0, -T), P(x1, y0, -T), P(x1, y0, 0), P(x0, y0, 0)],      # port (-y)
        [P(x0, y1, -T), P(x0, y1, 0), P(x1, y1, 0), P(x1, y1, -T)],      # starboard (+y)
        [P(x0, y0, -T), P(x0, y0, 0), P(x0, y1, 0), P(x0, y1, -T)],      # stern (-x)
        [P(x1, y0, -T), P(x1, y1, -T), P(x1, y1, 0), P(x1, y0, 0)],      # bow (+x)
        [P(x0, y0, 0), P(x1, y0, 0), P(x1, y1, 0), P(x0, y1, 0)],        # lid (up)
    ]
    for k in range(26):                                                   # free surface ahead
        xa = x1 + 4.0 * k
        faces.append([P(xa, y0, 0), P(xa + 4, y0, 0), P(xa + 4, y1, 0), P(xa, y1, 0)])
    V = np.array(faces, np.float64).reshape(-1, 3)
    Q = np.arange(len(V)).reshape(-1, 4)
    return V, Q, np.array([0] * 5 + [1] + [2] * 26, np.uint8)


def test_geometry_boxes():
    # exact in float32: powers of two; hydrostatics to the last bit
    parts = [_box(64.0, 16.0, 8.0, 4.0), _box(32.0, 8.0, 2.0, -16.0), _box(128.0, 32.0, 16.0, 0.0)]
    V = np.concatenate([p[0] for p in parts])
    Q = np.concatenate([p[1] + 128 * k for k, p in enumerate(parts)])
    K = np.concatenate([p[2] for p in parts])
    pan, hydro, _ = _check_geo(V, Q, K, 32, (1,))
    for (L, B, T, xc), h in zip([(64, 16, 8, 4), (32, 8, 2, -16), (128, 32, 16, 0)], hydro):
        assert h.tolist() == [L * B + 2 * T * (L + B), L * B * T, xc * L * B * T, L * B]
    assert pan["nz"][0] == -1 and pan["ny"][1] == -1 and pan["nx"][4] == 1 and pan["nz"][5] == 1


# ---- bem-froude-krylov-station-hist-ballot ----

def _check_sl(pan, st, p, nt):
    n = len(pan)
    host = [pan, np.asarray(st, np.uint16), np.asarray(p, F32).ravel(), np.int32(n), np.zeros(nt * 3 * NST, F32),
            np.zeros(3 * NST, F32), np.zeros(nt, np.int32)]
    out = run(IDS[4], host, nt, grid=(nt,))
    q, mag, ndry = _sl_ref(pan, st, p, n, nt)
    # float32: -p A and its product with n (2 ulps a term), the shared atomic sums (a
    # station's up to 64 terms: 64 ulps of their magnitudes), the record's nt more
    assert (out[6] == ndry).all()
    assert (np.abs(out[4].reshape(nt, 3, NST) - q) <= 70 * EPS * mag + 1e-30).all()
    assert (np.abs(out[5].reshape(3, NST) - q.sum(0)) <= (70 + nt) * EPS * mag.sum(0) + 1e-30).all()
    return out, q, ndry


def test_sectional_loads():
    rng = np.random.default_rng(5)
    host = tp._p234_sl_args(6, rng, nx=16)                     # 1024 panels, 16 stations, 6 steps
    out, q, ndry = _check_sl(host[0], host[1], host[2], 6)
    assert (ndry > 0).any() and (ndry < 1024).all()
    assert (q[:, 2, :16] > 0).all()                                               # buoyancy up


def test_sectional_cases():
    rng = np.random.default_rng(6)
    pan, st, p, *_ = tp._p234_sl_args(3, rng, nx=16)
    n = 1000                                                   # a short warp at the end
    P = p.reshape(3, -1)[:, :n].copy()
    P[0] = -1.0                                                # all dry
    P[1] = np.abs(P[1])                                        # all wet
    P[2, ::3] = -P[2, ::3]                                     # mixed within warps
    st2 = (np.arange(n) * 37 % NST).astype(np.uint16)          # scattered stations, all 128 bins
    out, q, ndry = _check_sl(pan[:n], st2, P, 3)
    assert ndry[0] == n and ndry[1] == 0 and (q[0] == 0).all() and (out[4][:3 * NST] == 0).all()


# ---- bem-kochin-havelock-sincos-tree ----

def test_kochin():
    rng = np.random.default_rng(7)
    host = tp._p234_ko_args(1024, rng)                         # 8 stations x 32 a side: 4 trips a thread
    d, s, _, _ = tp._p234_ko_tables()
    # 12 directions from the whole range (up to tan theta 12) and 3 speeds at the front of the tables
    dsel = np.array([0, 20, 60, 100, 140, 170, 200, 220, 235, 245, 250, 255])
    ssel = np.array([0, 13, 31])
    dd, ss = d.copy(), s.copy()
    dd[:len(dsel)], ss[:len(ssel)] = d[dsel], s[ssel]
    out = run(IDS[5], host, 1024, symbols={"c_dir": dd, "c_spd": ss}, grid=(len(dsel), len(ssel)))
    H2, Rw, e2 = _ko_ref(host[0], d[dsel], s[ssel])
    got = out[2].reshape(NS, NTH)[:len(ssel), :len(dsel)]
    assert (np.abs(got - H2) <= e2).all()
    assert (out[2].reshape(NS, NTH)[len(ssel):] == 0).all() and (out[2].reshape(NS, NTH)[:, len(dsel):] == 0).all()
    wgt = (ss["y"][:len(ssel)].astype(np.float64)[:, None] * dd["w"][:len(dsel)].astype(np.float64)[None, :])
    assert (np.abs(out[3][:len(ssel)] - Rw) <= (wgt * e2).sum(1) + 1e-5 * (wgt * H2).sum(1)).all()
    assert (Rw > 0).all() and (out[3][len(ssel):] == 0).all()


def test_kochin_cases():
    # one source on the centreline: |H|^2 = (sigma A e^(k z))^2 exactly for every direction
    src = np.array([[0.0, 0.0, -0.5, 2.0]] + [[0.0, 0.0, -1.0, 0.0]] * 299, F32)
    d, s, _, _ = tp._p234_ko_tables()
    out = run(IDS[5], [src, np.int32(300), np.zeros(NS * NTH, F32), np.zeros(NS, F32)], 300,
              symbols={"c_dir": d, "c_spd": s}, grid=(4, 2))
    k = (s["x"][:2, None] * d["z"][None, :4]).astype(np.float64)
    want = (2.0 * np.exp(-0.5 * k)) ** 2
    assert np.allclose(out[2].reshape(NS, NTH)[:2, :4], want, rtol=1e-5)
