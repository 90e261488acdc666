"""probe-unseen113's kernels (kernels_cuda/probes115.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/upwind-tracer-latlon", "probe/saturation-adjust-newton", "probe/lw-two-stream-sweep",
       "probe/interp-sigma-to-plevels", "probe/thomas-vertical-diffusion", "probe/zonal-mean-eddy-flux"]
NL = tp.P115_NLEV


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen113"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes115.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def warps_split(a):
    """The fraction of 32-lane groups of a boolean array holding both values."""
    a = np.asarray(a).reshape(-1, 32)
    return (a.any(axis=1) & ~a.all(axis=1)).mean()


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 14
    sig, sh = tp._p115_sigma()
    assert (np.diff(sig) > 0).all() and sh[0] == 0 and sh[-1] == 1 and ((sig > sh[:-1]) & (sig < sh[1:])).all()
    zs, ps, p, T, Z, y = tp._p115_columns(n, rng)
    assert p.shape == (NL, n) and (np.diff(p, axis=0) > 0).all() and 60000 < ps.min() and ps.max() < 104000
    assert 0.02 < (zs > 1000).mean() < 0.15 and zs.max() < 6000
    assert 195 < T.min() and T.max() < 310 and (np.diff(Z, axis=0) < 0).all() and (Z[-1] > zs).all()
    assert np.abs(np.diff(ps[:512])).mean() < 200                  # smooth along a row (neighbouring lanes)
    # sat-adjust: ~9% of cells active, cloudy ones partly subsaturated (evaporation)
    Ts, qv, qc, pp, it, tol, nn = tp._p115_sa_args(n, rng)
    assert all(a.dtype == np.float32 and a.size == NL * n for a in (Ts, qv, qc, pp)) and nn == n and it.size == n
    qs = tp._p115_qsat(Ts, pp)
    act = (qv > qs) | (qc > 0)
    assert 0.05 < act.mean() < 0.15 and (qv > qs).mean() > 0.02 and ((qc > 0) & (qv < qs)).mean() > 0.02
    assert not act.reshape(NL, n)[pp.reshape(NL, n).max(axis=1) < 30000].any()      # none above 300 hPa
    assert qv.min() > 0 and qc.max() <= 5e-4 and warps_split(act.reshape(NL, n)[-1]) > 0.5
    *_, nit, mask, gap, gap_act = tp._p115_sa_ref(Ts, qv, qc, pp)
    assert 1.5 < nit.sum() / mask.sum() < 3.5 and nit.max() < 60
    # lw: optical depths 1.5 .. 6.5 a column, dp the interfaces' ps dsigma
    T2, tau, dp, ts, emis, fu, fd, heat, nn = tp._p115_lw_args(n, rng)
    ttot = tau.reshape(NL, n).sum(axis=0)
    assert 1.4 < ttot.min() and ttot.max() < 6.6 and emis == np.float32(tp.P115_LW_EMIS) and fu.size == (NL + 1) * n
    assert 60000 < dp.reshape(NL, n).sum(axis=0).min() and (tau > 0).all() and (dp > 0).all()
    up, dn, h = tp._p115_lw_ref(T2, tau, dp, ts)
    olr = up.reshape(NL + 1, n)[0]
    assert 180 < olr.mean() < 260 and -4 < h.reshape(NL, n)[20:60].mean() < -0.5   # longwave cools
    # interp: targets under the ground ~5% (1000 hPa in ~60% of the columns), none above the top
    p3, T3, Z3, Tp, Zp, fill, nn = tp._p115_ip_args(n, rng)
    assert (tp._p115_ip_syms(n, rng)["c_plev"] == tp.P115_PLEV).all() and (np.diff(tp.P115_PLEV) > 0).all()
    Tr, Zr, k, gap = tp._p115_ip_ref(p3, T3, Z3)
    assert 0.02 < (k == -1).mean() < 0.1 and 0.3 < (k[-1] == -1).mean() < 0.8 and not (k == -2).any()
    assert 1.1 < np.mean([len(set(w)) for w in k.reshape(16, -1, 32).reshape(-1, 32)]) < 2.5
    Zr = Zr.reshape(16, n)
    ok = Zr[5] != fill
    assert np.abs(Zr[5][ok].mean() - 16000) < 2000                 # 100 hPa near 16 km
    # thomas: K up to ~70 m^2/s in the boundary layer, 0.1 above; dz 20 m .. ~700 m
    ph, K, dz, dt, nn = tp._p115_vd_args(n, rng)
    assert dz[-1] == np.float32(20) and 600 < dz[0] < 800 and 10000 < dz.sum() < 15000
    assert K.size == (NL - 1) * n and K.min() >= np.float32(0.1) and 30 < K.max() < 90
    x = tp._p115_vd_ref(ph, K, dz)
    dzw = dz.astype(np.float64)[:, None]
    heat = lambda a: (dzw * np.asarray(a, np.float64).reshape(NL, n)).sum(axis=0)
    assert np.abs(heat(x) - heat(ph)).max() < 1e-9 * heat(ph).max() and np.abs(x - ph).max() > 1  # no flux out
    # upwind: Courant under 0.5, both signs of u and v, warps split by the sign sometimes
    q, u, v, qn, dlon, dlat, lat0, dt, nlon, nlat = tp._p115_adv_args(1024, rng)
    assert nlon == 1024 and nlat == 512 and q.size == nlon * nlat and 0.9 < q.min() and q.max() < 2.1
    lat = lat0 + np.arange(nlat) * dlat
    dx = 6.371e6 * np.cos(lat)[:, None] * dlon
    assert (np.abs(u.reshape(nlat, nlon)) * dt / dx).max() < 0.5 and (np.abs(v) * dt / (6.371e6 * dlat)).max() < 0.5
    assert 0.6 < (u > 0).mean() < 0.85 and 0.4 < (v > 0).mean() < 0.6 and 0.05 < warps_split(u > 0) < 0.5
    # zonal mean: a poleward eddy heat flux in both hemispheres
    T4, v4, w, tb, vb, ed, tg, nlon, nlat = tp._p115_zm_args(16, rng)
    assert nlon == 32 and nlat == 16 and T4.size == tp.P115_ZM_NLEV * 32 * 16 and abs(w.sum() - 1) < 1e-6
    e = tp._p115_zm_ref(T4, v4, w, nlon, nlat)[2].reshape(-1, nlat)
    assert (e[:, :nlat // 2].mean() < -1) and (e[:, nlat // 2:].mean() > 1)


# ---- upwind-tracer-latlon ----

def test_upwind_advect():
    n = 72                                                  # 72 x 36: partial blocks in x and y
    host, (q, u, v, qn, *_), *_ = launch("probe/upwind-tracer-latlon", n)
    ref = tp._p115_adv_ref(host[0], host[1], host[2], *host[4:])
    np.testing.assert_allclose(qn, ref, rtol=0, atol=2e-5)
    assert np.abs(qn - q).max() > 1e-4 and (u > 0).any() and (u < 0).any() and (v > 0).any() and (v < 0).any()


def test_upwind_poles_and_wrap():
    # a tracer ramp along the rows and columns: the pole rows' one-sided cases and the wrap
    rng = np.random.default_rng(3)
    n = 64
    host = tp._p115_adv_args(n, rng)
    nlon, nlat = n, n // 2
    host[0] = (1 + 0.01 * np.add.outer(np.arange(nlat), np.arange(nlon) % 7)).astype(np.float32).ravel()
    v = host[2].reshape(nlat, nlon)
    v[0], v[-1] = -3, 3                                     # flow out of the grid at both poles: no gradient
    out = run("probe/upwind-tracer-latlon", host, n)
    ref = tp._p115_adv_ref(host[0], host[1], host[2], *host[4:])
    np.testing.assert_allclose(out[3], ref, rtol=0, atol=2e-5)


# ---- saturation-adjust-newton ----

def test_sat_adjust():
    n = 200                                                 # 2 blocks, the last partial
    host, (T, qv, qc, p, it, *_), *_ = launch("probe/saturation-adjust-newton", n)
    Tr, qvr, qcr, nit, act, gap, gap_act = tp._p115_sa_ref(*host[:4])
    # a column where a step came within float32's reach of tol may take one step more or less
    near = gap < 3e-5
    assert gap_act > 1e-5 and act.mean() > 0.05 and near.mean() < 0.1
    assert (it == nit)[~near].all() and (np.abs(it - nit) <= 2).all() and nit.max() > nit.min()
    np.testing.assert_allclose(T, Tr, rtol=0, atol=2e-4)
    np.testing.assert_allclose(qv, qvr, rtol=0, atol=1e-7)
    np.testing.assert_allclose(qc, qcr, rtol=0, atol=1e-7)
    assert (T[~act] == host[0][~act]).all() and (qc >= 0).all()
    ev = act & (qcr == 0) & (host[2] > 0)                   # cloud evaporated wholly
    assert ev.any() and (qc[ev] == 0).all()
    # conserved: total water, and moist static energy cp T + Lv qv
    np.testing.assert_allclose(qv + qc, host[1] + host[2], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(tp.P115_CP * T.astype(float) + tp.P115_LV * qv,
                               tp.P115_CP * host[0].astype(float) + tp.P115_LV * host[1], rtol=0, atol=0.05)


# ---- lw-two-stream-sweep ----

def test_lw_two_stream():
    n = 160
    host, (T, tau, dp, ts, emis, fu, fd, heat, nn), *_ = launch("probe/lw-two-stream-sweep", n)
    up, dn, h = tp._p115_lw_ref(*host[:5])
    np.testing.assert_allclose(fu, up, rtol=2e-5, atol=1e-3)
    np.testing.assert_allclose(fd, dn, rtol=2e-5, atol=1e-3)
    np.testing.assert_allclose(heat, h, rtol=1e-3, atol=1e-3)
    assert (fd[:n] == 0).all() and (heat < 0).mean() > 0.5


# ---- interp-sigma-to-plevels ----

def test_interp_plevels():
    n = 200
    host, (p, T, Z, Tp, Zp, *_), syms, _ = launch("probe/interp-sigma-to-plevels", n)
    Tr, Zr, k, gap = tp._p115_ip_ref(*host[:3], plev=syms["c_plev"])
    assert gap > 1e-6 and (k == -1).any()        # float32's brackets as the reference's
    under = (k == -1).ravel()
    assert (Tp[under] == tp.P115_FILL).all() and (Zp[under] == tp.P115_FILL).all()
    np.testing.assert_allclose(Tp, Tr, rtol=0, atol=2e-3)
    np.testing.assert_allclose(Zp, Zr, rtol=1e-5, atol=0.05)


def test_interp_edges():
    # targets above the model top (a low top: the top rows copied), and a column whose
    # pressures lie exactly on targets (the bracket's upper end, w = 1)
    rng = np.random.default_rng(4)
    n = 40
    host = tp._p115_ip_args(n, rng)
    p = host[0].reshape(NL, n)
    p[:] = np.maximum(p, 1500)
    p[:] += np.arange(NL, dtype=np.float32)[:, None]        # still increasing
    p[:, 5] = np.linspace(5000, 102000, NL).astype(np.float32)
    p[[3, 16, 42], 5] = [tp.P115_PLEV[5], tp.P115_PLEV[9], tp.P115_PLEV[12]]    # 100, 300, 700 hPa
    assert (np.diff(p, axis=0) > 0).all()
    syms = {"c_plev": tp.P115_PLEV.copy()}
    out = run("probe/interp-sigma-to-plevels", host, n, symbols=syms)
    Tr, Zr, k, gap = tp._p115_ip_ref(*host[:3])
    assert (k[0] == -2).all() and (k[:, 5] == [-2, -2, -2, -2, 1, 2, 6, 9, 12, 15, 22, 29, 41, 51, 56, 61]).all()
    np.testing.assert_allclose(out[3], Tr, rtol=0, atol=2e-3)
    np.testing.assert_allclose(out[4], Zr, rtol=1e-5, atol=0.05)
    T = host[1].reshape(NL, n)
    assert out[3].reshape(16, n)[9, 5] == T[16, 5] and out[3].reshape(16, n)[12, 5] == T[42, 5] and out[3].reshape(16, n)[0, 0] == T[0, 0]


# ---- thomas-vertical-diffusion ----

def test_thomas_vdiff():
    n = 200
    host, (phi, K, dz, dt, nn), *_ = launch("probe/thomas-vertical-diffusion", n)
    ref = tp._p115_vd_ref(*host[:4])
    np.testing.assert_allclose(phi, ref, rtol=0, atol=1e-3)
    d = np.abs(phi - host[0]).reshape(NL, n)
    assert d[-20:].max() > 0.1 and d[:10].max() < 1e-3     # mixing in the boundary layer only
    # against a dense solve of one column
    k = 7
    lo = np.zeros(NL)
    up = np.zeros(NL)
    Kc = host[1].reshape(NL - 1, n)[:, k].astype(float)
    dzz = host[2].astype(float)
    up[:-1] = 600 * Kc / (dzz[:-1] * 0.5 * (dzz[:-1] + dzz[1:]))
    lo[1:] = 600 * Kc / (dzz[1:] * 0.5 * (dzz[:-1] + dzz[1:]))
    A = np.diag(1 + lo + up) - np.diag(up[:-1], 1) - np.diag(lo[1:], -1)
    x = np.linalg.solve(A, host[0].reshape(NL, n)[:, k])
    np.testing.assert_allclose(phi.reshape(NL, n)[:, k], x, rtol=0, atol=1e-3)


# ---- zonal-mean-eddy-flux ----

@pytest.mark.parametrize("policy, n", [("lockstep", 8), ("random", 1)])
def test_zonal_mean(policy, n):
    # 2n x n on 32 levels (256 or 32 blocks), most threads with no point: the reduction of zeros
    host, (T, v, w, tb, vb, ed, tg, nlon, nlat), *_ = launch("probe/zonal-mean-eddy-flux", n, policy=policy)
    rt, rv, re, rg = tp._p115_zm_ref(T, v, w, nlon, nlat)
    np.testing.assert_allclose(tb, rt, rtol=1e-6)
    np.testing.assert_allclose(vb, rv, rtol=0, atol=1e-5)
    np.testing.assert_allclose(ed, re, rtol=0, atol=2e-3)
    np.testing.assert_allclose(tg, rg, rtol=1e-6)


def test_zonal_mean_long_circles():
    # circles longer than the block (600 longitudes: 2-3 points a thread)
    rng = np.random.default_rng(9)
    n = 4
    nl, nlon = tp.P115_ZM_NLEV, 600
    host = tp._p115_zm_args(n, rng)
    host[0] = rng.normal(250, 10, nl * n * nlon).astype(np.float32)
    host[1] = (rng.normal(0, 5, nl * n * nlon) + 0.02 * (host[0] - 250)).astype(np.float32)
    host[7] = np.int32(nlon)
    out = run("probe/zonal-mean-eddy-flux", host, n)
    rt, rv, re, rg = tp._p115_zm_ref(host[0], host[1], host[2], nlon, n)
    np.testing.assert_allclose(out[3], rt, rtol=1e-6)
    np.testing.assert_allclose(out[4], rv, rtol=0, atol=1e-5)
    np.testing.assert_allclose(out[5], re, rtol=0, atol=2e-3)
    np.testing.assert_allclose(out[6], rg, rtol=1e-6)
    assert re.mean() > 0.5                                  # v correlated with T: [v'T'] ~ 0.02 * 100
