"""probe-unseen199's kernels (kernels_cuda/probes201.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/aliev-panfilov-tiled", "probe/fenton-karma-adaptive", "probe/luo-rudy-double-aos",
       "probe/egm-lat-warp-ballot", "probe/pseudo-ecg-atomics", "probe/cv-histogram-gridstride"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen199"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes201.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _winding(ph, y, x, r=4):
    """The phase's turns (wrapped differences summed) around a square loop of half-side r."""
    loop = [(y - r, x + d) for d in range(-r, r)] + [(y + d, x + r) for d in range(-r, r)] + \
           [(y + r, x - d) for d in range(-r, r)] + [(y - d, x - r) for d in range(-r, r)]
    p = np.array([ph[a, b] for a, b in loop + loop[:1]], np.float64)
    d = np.diff(p)
    return (d - np.round(d)).sum()


def test_data():
    rng = np.random.default_rng(0)
    # rotors: the phase turns once about each core, in its chirality's sense
    ph = tp._p201_phase(512, 512, 60.0, np.random.default_rng(11))
    r2 = np.random.default_rng(11)
    yc, xc = r2.uniform(0.1, 0.9, 6) * 512, r2.uniform(0.1, 0.9, 6) * 512
    ch = r2.choice([-1.0, 1.0], 6)
    assert 0 <= ph.min() and ph.max() < 1
    for k in range(6):
        assert abs(_winding(ph, int(yc[k]), int(xc[k])) - ch[k]) < 1e-3
    # aliev-panfilov: excited and recovering cells, fibrosis in patches, zero state in it
    u, v, mask, un, vn, r, dt, nx, ny = tp._p201_ap_args(1024, rng)
    fib = mask == 0
    assert u.dtype == v.dtype == np.float32 and mask.dtype == np.uint8 and len(u) == 1024 ** 2
    assert 0 <= u.min() and u.max() <= 1 and 0 <= v.min() and v.max() <= 2.2 + 1e-6
    assert 0.25 < (u > 0.5).mean() < 0.5 and 0.01 < ((u > 0.05) & (u < 0.95) & (v < 0.15)).mean() < 0.05
    assert (u[fib] == 0).all() and (v[fib] == 0).all() and 0.02 < fib.mean() < 0.2
    M = fib.reshape(1024, 1024)
    assert (M[:, 1:] & M[:, :-1]).sum() / M[:, :-1].sum() > 3 * fib.mean()    # clustered
    # fenton-karma: the regions' shares, the state's ranges, the upstroke's sub-steps
    u, v, w, reg, fdt, n = tp._p201_fk_args(1 << 20, rng)
    share = np.bincount(reg, minlength=4) / n
    assert reg.max() == 3 and share[0] > 0.5 and (share[1:] > 0.03).all()
    assert 0 <= u.min() and u.max() <= 1 and 0 <= v.min() and v.max() <= 1 and 0 < w.min() and w.max() <= 1
    assert 0.3 < (u >= 0.13).mean() < 0.55
    nsub = tp._p201_fk_ref(u, v, w, reg, fdt)[3]
    assert 0.97 < (nsub == 1).mean() < 0.995 and nsub.max() >= 15
    # luo-rudy: the action potential; the sheet mostly on its plateau, a wave front, a stimulus disc
    times, tr = tp._p201_lr_trajectory()
    V = tr["V"]
    apd = times[np.flatnonzero(V > -75)[-1]]
    assert 30 < V.max() < 55 and 300 < apd < 400 and V[-1] < -80 and tr["Cai"].max() > 3e-3
    cells, stim, t, ldt, steps, n = tp._p201_lr_args(1 << 18, rng)
    assert cells.dtype == tp.P201_LR_DTYPE and cells.dtype.itemsize == 64 and stim.dtype == np.uint8
    V = cells["V"]
    assert 0.7 < (V >= -40).mean() < 0.97 and (V < -80).mean() > 0.03 and ((V > -70) & (V < -40)).any()
    r = tp.P201_LR_STIM_R / tp.P201_LR_H                     # the disc's radius in cells
    sx, sy = np.flatnonzero(stim) % tp.P201_LR_NX, np.flatnonzero(stim) // tp.P201_LR_NX
    assert 0.3 * np.pi * r * r < stim.sum() < 1.05 * np.pi * r * r and np.ptp(sx) <= 2 * r and np.ptp(sy) <= 2 * r
    # electrograms: healthy, fractionated and scar sites
    egm, lat, nd, pp, thr, nt, n = tp._p201_eg_args(2048, rng)
    assert egm.dtype == np.int16 and len(egm) == 2048 * nt
    lat, runs, pp = tp._p201_eg_ref(egm, thr, nt)
    assert 0.06 < (lat < 0).mean() < 0.15 and ((lat >= 598) & (lat <= 962) | (lat < 0)).all()   # 300 .. 480 ms
    assert 0.7 < (runs == 1).mean() < 0.88 and 0.05 < (runs >= 3).mean() < 0.12
    assert 3 < np.median(pp) * tp.P201_EG_UV / 1000 < 8 and pp[lat < 0].max() * tp.P201_EG_UV < 1000
    # pseudo-ECG: the potentials' range, the electrodes over the sheet
    vm = tp._p201_ecg_args(256, rng)[0]
    assert -85 <= vm.min() and vm.max() <= 20 + 1e-4 and 0.25 < (vm > 0).mean() < 0.5
    ex, ey, ez = tp._p201_ecg_elec(256, 256)
    assert 0 < ex.min() and ex.max() < 25.6 and 0 < ey.min() and ey.max() < 25.6 and (ez == 10).all()
    # activation map: scar patches, conduction mostly between the transverse and longitudinal speeds
    lat, cv, hist, h, nx, ny = tp._p201_cv_args(1024, rng)
    scar = lat < 0
    assert 0.03 < scar.mean() < 0.3 and (lat[scar] == -1).all() and lat.max() < 400
    S = scar.reshape(1024, 1024)
    assert (S[:, 1:] & S[:, :-1]).sum() / S[:, :-1].sum() > 0.95                  # patches, not speckle
    cvr, hr = tp._p201_cv_ref(lat, h, nx, ny)
    ok = cvr >= 0
    assert 0.2 < np.median(cvr[ok]) < 0.6 and (cvr[ok] < 0.7).mean() > 0.9 and hr.sum() == ok.sum()


# ---- aliev-panfilov-tiled ----

def test_ap_monodomain():
    n = 40                                                  # 3 x 3 tiles, the last ones partial
    host, out, _, _ = launch("probe/aliev-panfilov-tiled", n)
    un, vn = tp._p201_ap_ref(*host[:3], host[5], host[6], n, n)
    assert np.abs(out[3] - un).max() < 1e-6 and np.abs(out[4] - vn).max() < 1e-6
    assert np.abs(un - host[0]).max() > 0.05 and (host[2] == 0).any()
    # a 37 x 21 sheet at a uniform state: no flux through its edges, so every cell alike;
    # then a fibrotic ring isolating one excited cell: its own kinetics alone
    h = [np.full(37 * 21, 0.5, np.float32), np.full(37 * 21, 0.3, np.float32), np.ones(37 * 21, np.uint8),
         np.zeros(37 * 21, np.float32), np.zeros(37 * 21, np.float32), np.float32(0.1), np.float32(0.02),
         np.int32(37), np.int32(21)]
    out = run("probe/aliev-panfilov-tiled", h, 37, grid=(3, 2))
    un, vn = tp._p201_ap_ref(*h[:3], h[5], h[6], 37, 21)
    assert (un == un[0]).all() and np.abs(out[3] - un[0]).max() < 1e-7 and np.abs(out[4] - vn[0]).max() < 1e-7
    m = h[2].reshape(21, 37)
    m[9:12, 15:18] = 0
    m[10, 16] = 1                                           # cell (10, 16): its 4 neighbours fibrotic
    h[0][:] = 0.0
    h[0][10 * 37 + 16] = 0.9
    out = run("probe/aliev-panfilov-tiled", h, 37, grid=(3, 2))
    un, vn = tp._p201_ap_ref(*h[:3], h[5], h[6], 37, 21)
    k = 10 * 37 + 16
    ion = 8 * 0.9 * (0.9 - 0.15) * (0.9 - 1) + 0.9 * 0.3
    assert abs(out[3][k] - (0.9 - 0.02 * ion)) < 1e-6 and np.abs(out[3] - un).max() < 1e-6
    assert (out[3][m.ravel() == 0] == 0).all() and (out[4][m.ravel() == 0] == np.float32(0.3)).all()


# ---- fenton-karma-adaptive ----

def test_fk_reaction():
    n = 4096
    rng = np.random.default_rng(2)
    h = tp._p201_fk_args(n, rng)
    syms = tp._p201_fk_syms(n, rng)
    u, v, w, reg = h[:4]
    # the switches' edges (u exactly u_c, u_v), the upstroke's sub-steps (set 3's the most),
    # rest, a cell overshooting after a strong stimulus (120 sub-steps wanted, 32 taken)
    u[:7] = [0.13, 0.04, 0.13 - 1e-7, 0.5, 0.5, 0.0, 1.5]
    v[:7] = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    w[:7] = [1.0, 1.0, 1.0, 0.9, 0.9, 1.0, 1.0]
    reg[:7] = [0, 0, 0, 3, 0, 2, 3]
    out = run("probe/fenton-karma-adaptive", h, n, symbols=syms)
    ru, rv, rw, nsub = tp._p201_fk_ref(u, v, w, reg, h[4])
    assert nsub[3] == 32 and nsub[4] < 32 and nsub[5] == 1 and nsub[6] == 32 and len(np.unique(nsub)) > 8
    for a, r in zip(out[:3], (ru, rv, rw)):
        assert np.abs(a - r).max() < 2e-6 * (1 + np.abs(r).max())
    assert abs(out[0][0] - u[0]) > 1e-4 and out[1][0] < 1 and out[1][2] > 0.999   # u_c on / just off
    assert np.abs(out[0] - u).max() > 0.1


# ---- luo-rudy-double-aos ----

def test_lr1_step():
    n = 256                                                 # 2 blocks
    rng = np.random.default_rng(3)
    h = tp._p201_lr_args(n, rng)
    times, tr = tp._p201_lr_trajectory()
    c = h[0]
    c[:8] = tr[[0, 0, 0, 60, 200, 600, 1500, 2400]]         # rest .. upstroke .. plateau .. repolarised
    c["V"][1], c["V"][2] = -40.0, -40.0 - 1e-9              # the h / j branch's edge
    h[1][:] = 0
    h[1][[0, 3, 9]] = 1
    h[2] = np.float64(0.95)                                 # the stimulus ends after 3 of the 5 steps
    out = run("probe/luo-rudy-double-aos", h, n)[0]
    ref = tp._p201_lr_ref(c, h[1], h[2], h[3], h[4])
    for k in ref.dtype.names:
        assert np.allclose(out[k], ref[k], rtol=1e-11, atol=1e-300), k
    assert out["V"][0] - c["V"][0] > 2.5 and abs(out["V"][7] - c["V"][7]) < 0.2 < abs(out["V"][3] - c["V"][3])
    assert out["h"][1] < out["h"][2]                        # V >= -40: the h gate closes faster
    # the stimulus for 3 steps exactly: against the same cell unstimulated
    h2 = list(h)
    h2[1] = np.zeros(n, np.uint8)
    alone = tp._p201_lr_ref(c, h2[1], h[2], h[3], h[4])
    assert abs((out["V"][0] - alone["V"][0]) - 3 * 0.02 * 50) < 0.2          # not 2 or 4 steps


# ---- egm-lat-warp-ballot ----

def _egm_edges(nt):
    """Hand-made electrograms: flat, a tie of two equal downstrokes, a steep run across a 32-sample
    chunk's edge, a run at the first slope sample, full-scale swings, a slope just at the
    threshold and one just short of it."""
    thr = tp.P201_EG_THR
    e = np.zeros((7, nt), np.int64)
    e[1, 101:] -= 200
    e[1, 501:] -= 200                                       # slopes -200 at 100, 101 and 500, 501
    e[2, 30:36] = -50 * np.arange(1, 7)                     # steep 29 .. 35: one run across 31 | 32
    e[2, 36:] = -300
    e[3, 0], e[3, 2:] = 100, 100 - 2 * thr                 # slope -2 thr at t = 1, then flat
    e[4, nt // 2:] = -32768
    e[4, :nt // 2] = 32767
    e[5, 700] = 2 * thr                                     # at 699: +2 thr; at 701: -2 thr exactly
    e[6, 700] = 2 * thr - 1
    return e.astype(np.int16)


def test_egm_lat():
    n = 24
    rng = np.random.default_rng(4)
    h = tp._p201_eg_args(n, rng)
    nt = int(h[5])
    edges = _egm_edges(nt)
    h[0].reshape(n, nt)[:7] = edges
    out = run("probe/egm-lat-warp-ballot", h, n)
    lat, runs, pp = tp._p201_eg_ref(h[0], h[4], nt)
    assert (out[1] == lat).all() and (out[2] == runs).all() and (out[3] == pp).all()
    assert list(lat[:7]) == [-1, 100, 30, 1, nt // 2 - 1, 701, -1] and list(runs[:7]) == [0, 2, 1, 1, 1, 1, 0]
    assert pp[4] == 65535 and pp[0] == 0 and (lat[7:] >= 0).any()
    # records of 100 samples (not a multiple of 32), a single block
    m = 8
    x = np.clip(rng.normal(0, 40, (m, 100)).cumsum(axis=1), -32768, 32767).astype(np.int16)
    x[0] = 0
    h = [x.ravel(), np.zeros(m, np.int32), np.zeros(m, np.int32), np.zeros(m, np.int32), np.int32(15), np.int32(100),
         np.int32(m)]
    out = run("probe/egm-lat-warp-ballot", h, m)
    lat, runs, pp = tp._p201_eg_ref(h[0], 15, 100)
    assert (out[1] == lat).all() and (out[2] == runs).all() and (out[3] == pp).all() and runs.max() > 2


# ---- pseudo-ecg-atomics ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_pseudo_ecg(policy):
    n = 50                                                  # 10 blocks, the last partial
    rng = np.random.default_rng(5)
    h = tp._p201_ecg_args(n, rng)
    syms = tp._p201_ecg_syms(n, rng)
    syms["c_elec_x"][0], syms["c_elec_y"][0] = 2.45, 2.45   # one above the sheet's middle
    out = run("probe/pseudo-ecg-atomics", h, n, policy=policy, symbols=syms)[1]
    s, mag = tp._p201_ecg_ref(h[0], h[2], n, n, syms["c_elec_x"], syms["c_elec_y"], syms["c_elec_z"])
    scale = abs(float(h[3]))
    assert (np.abs(out - h[3] * s) <= 2e-5 * scale * mag).all() and (np.abs(s) > 0.1 * mag).any()
    # a uniform sheet: no gradient, no signal; a ramp in x: the leads' sums of x-terms alone
    h[0][:] = -85.0
    assert (run("probe/pseudo-ecg-atomics", h, n, policy=policy, symbols=syms)[1] == 0).all()
    h[0][:] = np.tile(np.arange(n, dtype=np.float32), n)
    out = run("probe/pseudo-ecg-atomics", h, n, policy=policy, symbols=syms)[1]
    s, mag = tp._p201_ecg_ref(h[0], h[2], n, n, syms["c_elec_x"], syms["c_elec_y"], syms["c_elec_z"])
    assert (np.abs(out - h[3] * s) <= 2e-5 * scale * mag).all() and abs(s[0]) < 1e-3 * mag[0]   # symmetric


# ---- cv-histogram-gridstride ----

@pytest.mark.parametrize("grid", [None, (3,)])
def test_cv_hist(grid):
    n = 64
    rng = np.random.default_rng(6)
    h = tp._p201_cv_args(n, rng)
    L = h[0].reshape(n, n)
    L[:8, :8] = 5.0                                         # flat: |grad T| = 0, the last bin
    L[10:20, :] = np.arange(n, dtype=np.float32) * np.float32(0.025 / 0.5)   # a plane wave at 0.5 m/s
    L[30, 30] = -1.0                                        # a lone scar cell: it and 4 neighbours skipped
    out = run("probe/cv-histogram-gridstride", h, n, grid=grid)
    cv, hist = tp._p201_cv_ref(h[0], h[3], n, n)
    assert (out[1] == cv).all() and (out[2] == hist).all()
    C = cv.reshape(n, n)
    assert (C[1:7, 1:7] == 2).all() and np.abs(C[11:19, 1:-1] - 0.5).max() < 1e-4 and hist[63] >= 36
    assert (C[[30, 29, 31, 30, 30], [30, 30, 30, 29, 31]] == -1).all() and (C[0] == -1).all()
    assert hist.sum() == (cv >= 0).sum() and (hist > 0).sum() > 5
