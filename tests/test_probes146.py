"""probe-unseen144's kernels (kernels_cuda/probes146.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/kepler-newton-ephem", "probe/rk4-twobody-double", "probe/conjunction-screen-smem",
       "probe/ground-station-passes", "probe/j2-secular-aos", "probe/od-residual-chi2"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen144"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes146.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    # kepler: the catalog's mix, mean motions, iterations varying within warps
    M0, e, nm, a, E, r, its, dt, nn = tp._p146_kepler_args(n, rng)
    assert all(x.dtype == np.float32 for x in (M0, e, nm, a)) and len(E) == tp.P146_KEP_NT * n and nn == n
    assert 0 <= M0.min() and M0.max() < 2 * np.pi and e.min() >= 0 and e.max() < 0.88
    np.testing.assert_allclose(nm, np.sqrt(tp.P146_MU / a.astype(np.float64) ** 3), rtol=1e-6)
    assert abs((e < 0.02).mean() - 0.65) < 0.03 and abs((e >= 0.8).mean() - 0.05) < 0.015
    Ec, rr, tot, M = tp._p146_kepler_ref(M0, e, nm, a)
    assert 16 <= tot.min() and tot.max() <= 16 * 8 and 38 < tot.mean() < 48 and np.median(tot[e < 0.02]) == 32
    assert tot.reshape(-1, 32).max(axis=1).mean() > 1.6 * tot.mean()         # divergent warps
    assert (rr > tp.P146_RE + 150).all()                                        # nothing below the atmosphere
    # rk4: circular-ish LEO states
    x, y, z, vx, vy, vz, h, steps, nn = tp._p146_rk4_args(n, rng)
    p, v = np.stack([x, y, z], 1), np.stack([vx, vy, vz], 1)
    rad = np.linalg.norm(p, axis=1)
    assert x.dtype == np.float64 and 6700 <= rad.min() and rad.max() <= 8000 and steps == 24 and h == 60
    assert np.abs((p * v).sum(1)).max() < 1e-6 * rad.max() * 8               # velocity perpendicular to r
    ratio = np.linalg.norm(v, axis=1) / np.sqrt(tp.P146_MU / rad)
    assert abs(ratio.mean() - 1) < 0.002 and 0.015 < ratio.std() < 0.025
    # conjunction: the shell and the debris clouds; the pair count of the screen
    px, py, pz, *rest = tp._p146_cs_args(n, rng)
    rad = np.sqrt(px.astype(np.float64) ** 2 + py ** 2 + pz ** 2)
    assert px.dtype == np.float32 and rest[-1] == n and rest[-2] == tp.P146_CS_CAP
    assert 6778 - 300 < rad.min() and rad.max() < 7578 + 300
    ii, jj, dd, gap = tp._p146_cs_ref(px, py, pz)
    assert (jj > ii).all() and (dd < tp.P146_CS_THR).all() and 2000 < len(ii) < 5000   # ~ (n / 16384)^2 49k
    assert 0.1 < len(np.unique(np.r_[ii, jj])) / n < 0.16                   # the clouds' members, mostly
    # visibility: stations on the sphere; a few % of samples visible, a few passes
    syms = tp._p146_vis_syms(n, rng)
    up = syms["c_st_up"].reshape(4, 3).astype(np.float64)
    np.testing.assert_allclose(np.linalg.norm(up, axis=1), 1, rtol=1e-6)
    np.testing.assert_allclose(syms["c_st_pos"].reshape(4, 3), tp.P146_RE * up, rtol=1e-6)
    va = tp._p146_vis_args(256, rng)
    assert va[-2] == 720 and va[7] == 60 and len(va[4]) == 4 * 256
    cnt, pas, mx, bd = tp._p146_vis_ref(*va[:4])
    assert 0.02 < cnt.mean() / 720 < 0.06 and 1.5 < pas.mean() < 4 and 0.6 < (cnt > 0).mean() < 0.95
    assert mx.max() > 80 and (mx[cnt > 0] > 10).all()
    # j2: the mix, the struct layout, a sun-synchronous orbit's node drift
    el, dt, nn = tp._p146_j2_args(n, rng)
    el = el.reshape(n, 6)
    assert el.dtype == np.float32 and dt == 86400 and abs((el[:, 1] > 0.5).mean() - 0.1) < 0.02
    assert abs((el[:, 0] < 8000).mean() - 0.8) < 0.03 and el[:, 2].max() <= np.deg2rad(110) + 1e-6
    assert (el[:, 0] * (1 - el[:, 1]) > tp.P146_RE + 150).all()               # perigees above the atmosphere
    sso = tp._p146_j2_rates(np.array([[7078.0, 0, np.deg2rad(98.19), 0, 0, 0]]))[0][0]
    assert abs(np.rad2deg(sso) * 86400 * 365.2422 - 360) < 2                 # a turn a year
    # od: passes of one station, 1 s apart; sigmas the station's; gross errors
    t, st, ro, sig, res, chi, no, *est, thr, nn = tp._p146_od_args(n, rng)
    starts = np.flatnonzero(np.r_[True, np.diff(st) != 0])
    lens = np.diff(np.r_[starts, n])
    assert st.dtype == np.int32 and 0 <= st.min() and st.max() < 16 and t.dtype == np.float32
    assert lens[:-1].min() >= 256 and 600 < np.median(lens) < 2048         # two passes of a station may meet
    assert (np.abs(np.diff(t) - 1) < 0.01).mean() > 0.99                     # 1 s apart but across passes
    assert all(len(np.unique(sig[st == s])) <= 1 for s in range(16))
    r, c2, nout, gap = tp._p146_od_ref(t, st, ro, sig)
    w = r / sig
    assert 0.007 < (np.abs(w) > 10).mean() < 0.013 and 0.6 < np.median(np.abs(w)) < 0.8   # ~ |N(0, 1)|'s 0.67
    assert 0.01 < nout / n < 0.017 and 4 < c2 / n < 7.5


# ---- kepler-newton-ephem ----

def test_kepler_ephem():
    n = 300                                                 # 2 blocks, the last partial
    host, out, *_ = launch("probe/kepler-newton-ephem", n)
    E, r, its, M = tp._p146_kepler_ref(*host[:4])
    Eg, rg = out[4].reshape(16, n).astype(np.float64), out[5].reshape(16, n).astype(np.float64)
    e = host[1].astype(np.float64)
    assert np.abs(Eg - e * np.sin(Eg) - M).max() < 2e-6                   # Kepler's equation holds
    np.testing.assert_allclose(Eg, E, rtol=0, atol=2e-5)
    np.testing.assert_allclose(rg, r, rtol=2e-6, atol=0)
    assert (out[6] == its).mean() > 0.95 and np.abs(out[6] - its).max() <= 2
    assert (host[4] == 0).all() and (out[0] == host[0]).all()


# ---- rk4-twobody-double ----

def test_rk4_twobody():
    # 8 steps (the probe's 24 are slow in the emulator), 3 blocks, the last partial
    rng = np.random.default_rng(3)
    n = 300
    host = tp._p146_rk4_args(n, rng)
    host[7] = np.int32(8)
    out = run("probe/rk4-twobody-double", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    ref = tp._p146_rk4_ref(*host[:6], steps=8)
    for got, want in zip(out[:6], ref):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)
    p0, v0 = np.stack(host[:3]), np.stack(host[3:6])
    p1, v1 = np.stack(out[:3]), np.stack(out[3:6])
    en = lambda p, v: 0.5 * (v * v).sum(0) - tp.P146_MU / np.sqrt((p * p).sum(0))
    np.testing.assert_allclose(en(p1, v1), en(p0, v0), rtol=1e-7)          # energy kept (RK4 drift ~3e-8)
    assert np.linalg.norm(p1 - p0, axis=0).min() > 100                      # 480 s of flight


# ---- conjunction-screen-smem ----

def test_conjunction_screen():
    n = 700                                                 # grid 3 x 3, the last row and column partial
    host, out, *_ = launch("probe/conjunction-screen-smem", n)
    ii, jj, dd, gap = tp._p146_cs_ref(*host[:3])
    assert gap > 1e-5 and len(ii) > 50
    k = int(out[6][0])
    assert k == len(ii)
    o = np.lexsort((out[4][:k], out[3][:k]))
    assert (out[3][:k][o] == ii).all() and (out[4][:k][o] == jj).all()
    np.testing.assert_allclose(out[5][:k][o], dd, rtol=1e-5, atol=1e-3)
    assert (out[3][k:] == 0).all() and (out[5][k:] == 0).all()


def test_conjunction_cap():
    # a list smaller than the pairs: the count goes on, cap slots filled with real pairs
    rng = np.random.default_rng(4)
    n = 600
    host = tp._p146_cs_args(n, rng)
    ii, jj, dd, gap = tp._p146_cs_ref(*host[:3])
    cap = len(ii) // 2
    host[8] = np.int32(cap)
    out = run("probe/conjunction-screen-smem", host, n)
    assert int(out[6][0]) == len(ii)
    ref = {(a, b) for a, b in zip(ii, jj)}
    got = set(zip(out[3][:cap], out[4][:cap]))
    assert len(got) == cap and got <= ref and (out[5][cap:] == 0).all()


# ---- ground-station-passes ----

def test_station_visibility():
    # 180 samples (the probe's 720 are slow in the emulator), a partial block
    rng = np.random.default_rng(5)
    n = 48
    host = tp._p146_vis_args(n, rng)
    host[10] = np.int32(180)
    out = run("probe/ground-station-passes", host, n, symbols=tp._p146_vis_syms(n, rng))
    cnt, pas, mx, bd = tp._p146_vis_ref(*host[:4], nt=180)
    gc, gp, gm = (out[k].reshape(4, n) for k in (4, 5, 6))
    assert (np.abs(gc - cnt) <= bd).all() and (np.abs(gp - pas) <= bd).all() and bd.sum() <= 8
    seen = (cnt > 0) & (gc > 0)
    np.testing.assert_allclose(gm[seen], mx[seen], atol=0.02)
    assert (gm[gc == 0] == -90).all() and 0.3 < seen.mean() < 0.9 and pas.max() >= 2


# ---- j2-secular-aos ----

def test_j2_secular():
    n = 1000
    host, out, *_ = launch("probe/j2-secular-aos", n)
    ref = tp._p146_j2_ref(host[0])
    g = out[0].reshape(n, 6).astype(np.float64)
    assert (g[:, :3] == host[0].reshape(n, 6)[:, :3]).all()               # a, e, i untouched
    assert g[:, 3:].min() >= 0 and g[:, 3:].max() < 2 * np.pi + 1e-6
    d = np.abs((g[:, 3:] - ref[:, 3:] + np.pi) % (2 * np.pi) - np.pi)
    assert d[:, :2].max() < 1e-5 and d[:, 2].max() < 1e-4                  # M moved ~95 rad


# ---- od-residual-chi2 ----

@pytest.mark.parametrize("policy, n", [("lockstep", 1000), ("random", 600)])
def test_od_residuals(policy, n):
    host, out, *_ = launch("probe/od-residual-chi2", n, policy=policy)
    res, chi, nout, gap = tp._p146_od_ref(*host[:4])
    np.testing.assert_allclose(out[4], res, rtol=0, atol=5e-3)             # float32 ranges of ~10^4 km
    np.testing.assert_allclose(out[5][0], chi, rtol=1e-2)
    w = res / host[3]
    near = int((np.abs(np.abs(w) - tp.P146_OD_THRESH) < 0.3).sum())
    assert abs(int(out[6][0]) - nout) <= near and nout > 0


def test_od_reduction_exact():
    # residuals made exact (measured = the kernel's own prediction + k sigma): the block
    # sums and atomics add up exactly
    rng = np.random.default_rng(9)
    n = 700
    host = tp._p146_od_args(n, rng)
    pred = host[2] - run("probe/od-residual-chi2", [a.copy() if isinstance(a, np.ndarray) else a for a in host],
                         n)[4]
    k = rng.integers(-5, 6, n)
    host[3] = np.full(n, 0.03125, np.float32)
    host[2] = (pred.astype(np.float64) + k * 0.03125).astype(np.float32)
    out = run("probe/od-residual-chi2", host, n, policy="random")
    w = out[4].astype(np.float64) / 0.03125
    assert out[5][0] == pytest.approx((w * w).sum(), rel=1e-6)
    assert int(out[6][0]) == int((np.abs(w) > 3).sum()) and 0.3 < (np.abs(w) > 3).mean() < 0.5
