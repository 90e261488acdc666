"""probe-unseen170's kernels (kernels_cuda/probes172.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/bem-induction-polar-const", "probe/gauss-wake-map-smem", "probe/wind-rose-smem-atomic",
       "probe/power-curve-bsearch-f64", "probe/kaimal-cos-synth", "probe/yaw-steer-grid-reduce"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen170"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes172.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    U, om, pitch, r, c, tw, af, *outs, n = tp._p172_bem_args(4096, rng)
    assert U.dtype == om.dtype == r.dtype == np.float32 and af.dtype == np.int32 and n == 4096
    assert len(r) == 32 and all(len(o) == 32 * n for o in outs) and 3 <= U.min() and U.max() <= 25
    assert abs(np.median(U) - 8.4) < 0.4 and 0.25 < (U > 11.4).mean() < 0.4     # Weibull(2, 9.5), truncated
    rpm = om * 30 / np.pi
    assert 6.9 * 0.85 < rpm.min() and rpm.max() < 12.1 * 1.15 and (pitch >= 0).all()
    assert np.median(np.rad2deg(pitch[U < 10])) < 0.5 and np.median(np.rad2deg(pitch[U > 20])) > 15
    tsr = om * 63 / U
    assert abs(np.median(tsr[(U > 7) & (U < 9)]) - 7.55) < 0.2                   # the controller's optimum
    assert (np.diff(r) > 0).all() and r[0] > 1.5 and r[-1] < 63 and list(np.bincount(af)) == [3, 7, 12, 10]
    assert abs(np.rad2deg(tw[0]) - 13.308) < 1e-4 and np.rad2deg(tw[-1]) < 0.2 and c.max() < 4.66
    cl, cd = tp._p172_polars()
    assert cl.shape == (4, 91) and (cl[0] == 0).all() and (cd > 0).all()
    for k, (s, a0, st, cd0) in enumerate(tp.P172_PC_CLASSES[1:], 1):
        pre = cl[k][20:51]                                                      # -10 .. 20 degrees
        assert abs(np.argmax(pre) - 10 - st) <= 2 and 1.0 < pre.max() < 1.3
        assert abs(np.interp(a0, np.arange(-30, 61), cl[k])) < 0.01                 # zero lift at a0
        assert cd[k][30] == cd0 and cd[k][90] > 1.3 and abs(cl[k][75] - 0.95) < 1e-6    # a flat plate at 45, 60

    x, y, ct, umap, nt, x0, y0, dxy, nx, ny, *_ = tp._p172_gw_args(256, rng)
    assert nt == 320 == len(x) and len(umap) == 256 * 128 and nx == 256 and ny == 128
    assert x0 < x.min() and x.max() < x0 + 256 * dxy and y0 < y.min() and y.max() < y0 + 128 * dxy
    d = np.hypot(x[:, None] - x[None], y[:, None] - y[None]) + np.eye(nt) * 1e9
    assert d.min() > 2 * 164 and 4.5 * 164 < np.median(d.min(axis=1)) < 6.5 * 164    # ~5-6 D apart
    assert 0.72 <= ct.min() and ct.max() <= 0.82

    spd, dirn, hist, nbad, n = tp._p172_wr_args(1 << 21, rng)
    out = spd < 0
    assert spd.dtype == dirn.dtype == np.float32 and len(hist) == 36 * 60 and n == 1 << 21
    assert (dirn[out] == -999).all() and (spd[out] == -999).all() and 0.002 < out.mean() < 0.03
    assert (np.diff(out.astype(int)) == 1).sum() < 20                           # outages come in long runs
    v, d = spd[~out], dirn[~out]
    assert 0 <= d.min() and d.max() < 360 and 5 < np.median(v) < 11 and (v > 25).mean() < 0.01
    assert np.corrcoef(v[:-1], v[1:])[0, 1] > 0.95                                # 1 Hz samples alike
    sect = tp._p172_wr_bins(spd, dirn)[~out] // 60
    share = np.bincount(sect, minlength=36) / len(sect)
    assert share[19:27].sum() > 0.35 and share[11:16].sum() < 0.05               # prevailing south-west
    b = tp._p172_wr_bins(spd, dirn)
    assert 3 < np.mean([len(np.unique(w)) for w in b[:1 << 16].reshape(-1, 32)]) < 16    # ~9 bins a warp

    spd, tmp, pres, model, off, cv, cp, power, energy, nrec = tp._p172_pw_args(64 * tp.P172_PW_T + 5, rng)
    s = spd.reshape(64, nrec)
    assert len(power) == 64 * nrec and energy.dtype == np.float64 and nrec == tp.P172_PW_T and len(pres) == 64
    assert 0.01 < (s < 0).mean() < 0.03 and np.isfinite(s).all() and (s[s < 0] == -1).all()
    assert (model.reshape(2, 32) == model[::32, None]).all() and 1.5e4 < np.median(pres) <= 101325 * 1.01
    v = s[s >= 0]
    assert 5 < np.median(v) < 10 and np.corrcoef(s[0, :-1], s[0, 1:])[0, 1] > 0.8
    assert np.corrcoef(np.maximum(s[0], 0), np.maximum(s[1], 0))[0, 1] > 0.8            # a farm's weather
    assert 250 < tmp.min() and tmp.max() < 320 and (np.diff(off) > 20).all() and off[-1] == len(cv) == len(cp)
    for m, (pr, vi, vr, vo) in enumerate(tp.P172_PW_MODELS):
        x, y = cv[off[m]:off[m + 1]], cp[off[m]:off[m + 1]]
        assert x[0] == vi and x[-1] == vo and y[0] == 0 and y[-1] == pr and (np.diff(x) > 0).all()
        assert (np.diff(y) >= 0).all() and len(np.unique(np.diff(x))) >= 3        # non-uniform spacing

    amp, ph, um, u, ny, nf, n, dt, df = tp._p172_ks_args(4096, rng)
    A = amp.reshape(8, nf)
    assert nf == 2048 and ny == 8 and len(ph) == 64 * nf and len(u) == 64 * n and abs(df * n * dt - 1) < 1e-6
    sig = 0.14 * (0.75 * 11.4 + 5.6)
    assert 0.8 < (A ** 2).sum(axis=1).min() / 2 / sig ** 2 < 0.95              # sigma^2 less below 1 / 410 Hz
    assert (np.diff(A, axis=1) < 0).all() and (np.diff(um) > 0).all() and abs(np.sqrt(um[3] * um[4]) - 11.4) < 0.1
    assert 0 <= ph.min() and ph.max() < 2 * np.pi and abs(ph.mean() - np.pi) < 0.01

    s = tp._p172_ys_syms(0, rng)
    assert list(s["c_ys_slot"][:8]) == [0, 1, 2, 3, 4, 5, -1, -1] and len(s["c_ys_x"]) == 48
    assert np.allclose(np.rad2deg(s["c_ys_yaw"]), [-30, -20, -10, 0, 10, 20, 30])
    dxs = np.diff(s["c_ys_x"].reshape(6, 8), axis=1)
    assert (dxs > 4 * 126).all() and abs(np.median(dxs) - 7 * 126) < 0.5 * 126
    assert (np.abs(np.diff(s["c_ys_y"].reshape(6, 8), axis=1)) < 126).all()     # rows roughly aligned
    fp, *_, ncand = tp._p172_ys_args(7 ** 6, rng)
    assert len(fp) == ncand == tp.get(IDS[5]).n == 117649


# ---- bem-induction-polar-const ----

@pytest.mark.parametrize("n, seed", [(24, 0), (6, 5)])
def test_bem_solve(n, seed):
    # threads independent (no shared memory, no atomics): the lockstep policy only
    host, out, *_ = launch("probe/bem-induction-polar-const", n, seed=seed)
    a, ap, pn, pt, roots = tp._p172_bem_ref(*host[:7])
    ka, kap, kpn, kpt, its = (v.reshape(n, 32) for v in out[7:12])
    assert (roots == 1).all() and (its < tp.P172_BEM_MAXIT).all() and (its > 1).all()
    # the loop stops at a step under BEM_TOL; a fixed point reached in its steps from 0
    # contracts by ~BEM_TOL^(1 / its) a step, leaving ~BEM_TOL its / ln(1 / BEM_TOL) (twice that
    # allowed); the loads follow (pt, lift and drag terms nearly cancelling, more)
    tol = 2 * tp.P172_BEM_TOL * its / np.log(1 / tp.P172_BEM_TOL) + 1e-6
    assert (np.abs(ka - a) <= tol).all() and (np.abs(kap - ap) <= tol).all()
    assert (np.abs(kpn - pn) / np.abs(pn).max(axis=1, keepdims=True)).max() < 5e-5
    assert (np.abs(kpt - pt) / np.abs(pt).max(axis=1, keepdims=True) <= 1e-5 * its + 1e-5).all()
    assert (a > 0.2).any() and (ap < 0).any()                   # Glauert's branch; the cylinders' drag
    # operating points off the schedule: 3 m/s at 12.1 rpm (tip-speed ratio 27, the turbulent
    # wake state: the iteration cycles until BEM_MAXIT), 25 m/s at 23.5 degrees of pitch,
    # idling at 85 degrees, rated wind at -2 degrees
    h = list(host)
    h[0] = np.float32([3.0, 25.0, 12.0, 11.4])
    h[1] = np.float32([12.1 * np.pi / 30, 12.1 * np.pi / 30, 0.5, 12.1 * np.pi / 30])
    h[2] = np.deg2rad(np.float32([0.0, 23.5, 85.0, -2.0])).astype(np.float32)
    h[7:12] = [np.zeros(4 * 32, v.dtype) for v in h[7:12]]
    h[12] = np.int32(4)
    out = run("probe/bem-induction-polar-const", h, 4, symbols=tp._p172_bem_syms(4, None))
    a, ap, pn, pt, roots = tp._p172_bem_ref(*h[:7])
    ka, kap, kpn, kpt, its = (v.reshape(4, 32) for v in out[7:12])
    assert (its[0] == tp.P172_BEM_MAXIT).sum() >= 8 and np.isfinite(ka).all() and (its[1:] < 30).all()
    tol = 2 * tp.P172_BEM_TOL * its / np.log(1 / tp.P172_BEM_TOL) + 1e-6
    assert (roots[1:] == 1).all() and (np.abs(ka - a) <= tol)[1:].all() and (np.abs(kap - ap) <= tol)[1:].all()
    assert (np.abs(kpt - pt) / np.abs(pt).max(axis=1, keepdims=True) <= 1e-5 * its + 1e-5)[1:].all()
    assert (kpn[1][-8:] < 0).sum() >= 5 and (kpt[2] < 0).all()    # the tips at negative angles of attack; idling


# ---- gauss-wake-map-smem ----

@pytest.mark.parametrize("n, wdir", [(40, tp.P172_GW_WDIR), (32, 0.0)])
def test_gauss_wake_map(n, wdir):
    # 40: 40 x 20 points in blocks of 32 x 8, partial in x and y; 320 turbines in 2 tiles, the last
    # partial (the sanitizer checks the tiles' reuse; the policy is lockstep only: 256 threads x 320
    # turbines a block are too slow under the random one)
    rng = np.random.default_rng(3)
    h = tp._p172_gw_args(n, rng, wdir=wdir)
    out = run("probe/gauss-wake-map-smem", h, n)
    u, tol, gap = tp._p172_gw_ref(h[0], h[1], h[2], n, n // 2, *h[5:8], *h[10:])
    ok = gap > 0.005                                           # not on a turbine's crosswind line
    err = np.abs(out[3].reshape(n // 2, n) - u)
    # float32's ~1e-7 relative rounding of ~300 terms and the map coordinates' few mm
    assert ok.mean() > 0.99 and (err <= tol + 1e-6 * tp.P172_GW_U)[ok].all()
    assert u.min() < 0.8 * tp.P172_GW_U and (u == tp.P172_GW_U).any()
    # one turbine between map points (10, 5) and (11, 5), the wind along x: upwind exactly the
    # free stream, the centreline downwind the model's C(x)
    x0, y0, dxy = h[5], h[6], h[7]
    f = np.float32
    one = [np.array([x0 + f(10.5) * dxy], f), np.array([y0 + f(5) * dxy], f), np.array([0.8], f)]
    h2 = one + [np.zeros(n * (n // 2), f), np.int32(1)] + list(h[5:11]) + [f(0)] + list(h[12:])
    r = run("probe/gauss-wake-map-smem", h2, n)[3].reshape(n // 2, n)
    assert (r[:, :11] == tp.P172_GW_U).all() and (r[:, 11:] < tp.P172_GW_U).any()
    dx = (np.arange(11, n) - 10.5) * float(dxy)
    eps = 0.2 * np.sqrt(0.5 * (1 + np.sqrt(0.2)) / np.sqrt(0.2))
    sd = tp.P172_GW_K * dx / tp.P172_GW_D + eps
    C = 1 - np.sqrt(1 - 0.8 / (8 * sd * sd))
    assert np.abs(r[5, 11:] - tp.P172_GW_U * (1 - C)).max() < 1e-5
    assert (r[5, 11:] < r[4, 11:]).all() and (np.diff(r[5, 11:]) > 0).all()     # recovering downwind


# ---- wind-rose-smem-atomic ----

@pytest.mark.parametrize("n, policy", [(300000, "lockstep"), (2000, "random")])
def test_wind_rose_hist(n, policy):
    # 300000: 1056 blocks, a second trip of the grid-stride loop for some threads
    rng = np.random.default_rng(4)
    h = tp._p172_wr_args(n, rng)
    # on the bins' edges: north's sector from 355 up to 5 degrees, 0.5 m/s bins, the last open
    e = [(0.0, 355.0), (0.4999999, 354.99997), (0.5, 5.0), (29.5, 4.999), (29.49, 0.0), (35.0, 359.99997),
         (-999.0, -999.0), (12.25, 185.0), (-999.0, 10.0)]
    h[0][:len(e)] = [v for v, _ in e]
    h[1][:len(e)] = [d for _, d in e]
    h[0][1000:1100] = -999                                     # an outage across warps
    out = run("probe/wind-rose-smem-atomic", h, n, policy=policy)
    b = tp._p172_wr_bins(h[0], h[1])
    assert list(b[:len(e)]) == [0, 35 * 60 + 0, 60 + 1, 59, 58, 59, -1, 19 * 60 + 24, -1]
    assert (out[2] == np.bincount(b[b >= 0], minlength=36 * 60)).all() and out[3][0] == (b < 0).sum()
    assert out[2].max() > 30 and out[3][0] >= 102


# ---- power-curve-bsearch-f64 ----

@pytest.mark.parametrize("n, policy", [(2 * tp.P172_PW_T, "lockstep"), (700, "random")])
def test_power_curve_energy(n, policy):
    # 2 turbines' years (206 blocks of 256 each); one turbine's 700 records (3 blocks, the last partial)
    host, out, *_ = launch("probe/power-curve-bsearch-f64", n, policy=policy)
    nt, T = tp._p172_pw_shape(n)
    P, E, gap, sens = tp._p172_pw_ref(*host[:4], T)
    k = out[7].reshape(nt, T)
    # the normalised speed in float32 is good to ~4 ulp (2.5e-7), the power to the curve's
    # slope times that (records within 1e-5 of the cut-out, where it jumps to 0, left out)
    ok = gap > 1e-5
    assert ok.mean() > 0.99 and (np.abs(k - P) <= 5e-7 * sens + 1e-6 * P + 1e-3)[ok].all()
    assert ((k == 0) == (P == 0))[ok].all() and (P == 0).mean() > 0.03
    # the energy: the same float32 powers summed in double in any order, and the curve's to 1e-6
    assert np.allclose(out[8], k.astype(np.float64).sum(axis=1) / 6, rtol=1e-13, atol=0) and len(out[8]) == nt
    assert np.allclose(out[8], E, rtol=1e-6, atol=0)
    # a thin air site (density 0.8 of the reference): the cut-out after 25 / 0.8^(1/3) m/s
    h = list(host)
    m = int(host[3][0])
    pr, vi, vr, vo = tp.P172_PW_MODELS[m]
    spd = np.float32([-1.0, 0.0, 25.0, 26.9, 27.0, vi / 0.8 ** (1 / 3) * 0.999, vi / 0.8 ** (1 / 3) * 1.001, 40.0])
    h[0] = np.zeros(nt * T, np.float32)
    h[0][:len(spd)] = spd
    h[1] = np.full(nt * T, 280.0, np.float32)
    h[2] = np.full(nt, 0.8 * 1.225 * 287.05 * 280.0, np.float32)
    h[7], h[8] = np.zeros(nt * T, np.float32), np.zeros(nt, np.float64)
    out = run("probe/power-curve-bsearch-f64", h, n, policy=policy)
    assert list(out[7][:len(spd)] == 0) == [True, True, False, False, True, True, False, True]
    assert out[7][2] == out[7][3] == pr and 0 < out[7][6] < 0.01 * pr and (out[7][len(spd):] == 0).all()
    assert abs(out[8][0] / (pr / 3 + np.float64(out[7][6]) / 6) - 1) < 1e-15 and (out[8][1:] == 0).all()


# ---- kaimal-cos-synth ----

@pytest.mark.parametrize("n, seed", [(256, 0), (96, 7)])
def test_kaimal_synth(n, seed):
    # 96: blocks of 256 a third full; threads independent: the lockstep policy only
    host, out, *_ = launch("probe/kaimal-cos-synth", n, seed=seed)
    nf = n // 2
    u, tol = tp._p172_ks_ref(host[0], host[1], host[2], 8, nf, n)
    k = out[3].reshape(64, n)
    assert (np.abs(k - u) <= tol).all() and np.abs(k - u).mean() < 1e-5
    assert (u.std(axis=1) > 0.5).all() and (np.corrcoef(u)[0, 1:] < 0.9).all()      # points independent
    # one frequency alone: a cosine of period nt / 4 samples about each row's mean
    h = list(host)
    h[0] = np.zeros_like(host[0])
    h[0][3::nf] = 1.5                                          # frequency 4 df, every row
    h[3] = np.zeros_like(host[3])
    k = run("probe/kaimal-cos-synth", h, n)[3].reshape(64, n)
    j = np.arange(n)
    ref = host[2][np.arange(64) // 8][:, None] + 1.5 * np.cos(2 * np.pi * 4 * j / n + host[1].reshape(64, nf)[:, 3:4])
    assert np.abs(k - ref).max() < 1.5 * 5e-7 * (2 * np.pi * 4 + 2 * np.pi) + 1e-5


# ---- yaw-steer-grid-reduce ----

@pytest.mark.parametrize("n, policy", [(60, "lockstep"), (2, "random")])
def test_yaw_search(n, policy):
    host, out, syms, _ = launch("probe/yaw-steer-grid-reduce", n, policy=policy)
    P, edge = tp._p172_ys_ref(syms["c_ys_x"], syms["c_ys_y"], syms["c_ys_slot"], syms["c_ys_yaw"], np.arange(n))
    # float32 sums of 48 powers and acosf away from tangency (edge): relative error ~1e-6
    assert edge.min() > 1e-4 and np.abs(out[0] / P - 1).max() < 5e-6 and np.ptp(P) > 0.001 * P.max()


def test_yaw_search_edges():
    n = 14
    host, out, syms, _ = launch("probe/yaw-steer-grid-reduce", n)
    P, _ = tp._p172_ys_ref(syms["c_ys_x"], syms["c_ys_y"], syms["c_ys_slot"], syms["c_ys_yaw"], np.arange(n))
    # the searched yaws all 0: every candidate the unyawed farm
    s = dict(syms)
    s["c_ys_yaw"] = np.zeros(7, np.float32)
    r = run("probe/yaw-steer-grid-reduce", host, n, symbols=s)[0]
    base, _ = tp._p172_ys_ref(s["c_ys_x"], s["c_ys_y"], s["c_ys_slot"], s["c_ys_yaw"], [0])
    assert (r == r[0]).all() and abs(r[0] / base[0] - 1) < 5e-6 and (P > r[0]).any()    # steering pays
    # one pair 7 D apart in line, turbine 0 yawed by candidate c % 7 (up to 10 degrees), the
    # others 20 D apart across and out of each other's wakes: 46 free turbines and the waked one
    D, R = tp.P172_YS_D, tp.P172_YS_D / 2
    s["c_ys_x"] = np.float32(np.r_[0.0, 7 * D, np.zeros(46)])
    s["c_ys_y"] = np.float32(np.r_[0.0, 0.0, 20 * D * np.arange(1, 47)])
    s["c_ys_slot"] = np.int32(np.r_[0, -1 * np.ones(47)])
    s["c_ys_yaw"] = np.deg2rad(np.float32([-10, -5, 0, 5, 10, 7.5, -7.5])).astype(np.float32)
    r = run("probe/yaw-steer-grid-reduce", host, n, symbols=s)[0]
    g = np.float64(s["c_ys_yaw"])[np.arange(n) % 7]
    ct, kw = tp.P172_YS_CT, tp.P172_YS_K
    P0 = 0.5 * tp.P172_YS_RHO * np.pi * R * R * tp.P172_YS_CP * tp.P172_YS_U ** 3
    grow = 1 + 2 * kw * 7
    dct = 1 - np.sqrt(1 - ct * np.cos(g) ** 2)
    d = np.abs(0.5 * np.cos(g) ** 2 * np.sin(g) * ct * D / (2 * kw) * (1 - 1 / grow))
    rw = R * grow
    assert (d < rw - R).all()                                  # the deflected wake still covers the rotor
    ref = P0 * (46 + np.cos(g) ** 1.88 + (1 - dct / grow ** 2) ** 3)
    assert np.abs(r / ref - 1).max() < 5e-6 and r[3] == r[3 + 7] and r[0] == r[4] and r[1] != r[0]    # +-10 mirrored
