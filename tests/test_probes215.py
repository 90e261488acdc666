"""probe-unseen213's kernels (kernels_cuda/probes215.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/seis-semblance-const-smem-window", "probe/seis-rtm-fd4-tiled-sponge",
       "probe/seis-spiking-decon-levinson-f64", "probe/seis-fold-map-struct-atomics",
       "probe/seis-firstbreak-stalta-i16-warp", "probe/seis-segy-ibm2ieee-bytes-atomicmax"]
F32 = np.float32


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen213"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes215.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # CMP gathers: top mute, dead and noisy traces; the semblance peaks on the primaries' velocity
    nt, dt = tp.P215_SB_NT, tp.P215_SB_DT
    g = tp._p215_sb_gathers(24, rng)
    x = tp._p215_sb_offsets()
    t = np.arange(nt) * dt
    assert (g[:, -1, t < 0.04 + x[-1] / 2000] == 0).all()                           # the far trace's muted top
    dead = np.abs(g).max(axis=2) == 0
    assert 0.005 < dead.mean() < 0.05 and (g == 0).mean() > 0.15
    rms = np.sqrt((g[~dead] ** 2).mean(axis=1))
    assert np.percentile(rms, 99) > 2 * np.median(rms)                               # the noisy traces
    semb, _ = tp._p215_sb_ref(g[:4].ravel(), nt)
    v = tp._p215_sb_vels()
    best = v[np.argmax(semb, axis=1)]                                                # 4 x nt
    # where the semblance is high (the top 5% of t0 past 0.5 s) its velocity is near the line's RMS velocity
    for c in range(4):
        peak = semb[c].max(axis=0)
        hi = (peak >= np.percentile(peak[t > 0.5], 95)) & (t > 0.5)
        vr = (1550.0 + 650.0 * t[hi] - 50.0 * t[hi] ** 2)
        assert hi.sum() > 5 and np.median(np.abs(best[c, hi] / vr - 1)) < 0.08
    # the velocity model: water, compacting sediments, salt; the scheme's stability
    v, zsf = tp._p215_fd_model(512, 256, rng)
    assert v.min() == 1500 and v.max() == 4480 and 100 < zsf.min() and zsf.max() < 500
    assert (v[:20] == 1500).all() and v[-20:].mean() > v[40:60].mean() + 500
    assert 0.01 < (v == 4480).mean() < 0.3
    assert v.max() * tp.P215_FD_DT / tp.P215_FD_H < 0.6
    p = tp._p215_fd_wave(512, 256, 0.2, 170, 4, zsf)
    iz, ix = np.nonzero(p)                                   # nothing ahead of the wavefront
    R = (1500 * 0.2 + 3 * 1500 / 15) / tp.P215_FD_H + 4
    assert np.abs(ix - 170).max() <= R and iz.max() <= 4 + R and 0.01 < np.abs(p).max() < 1
    # deconvolution: dead traces, bursts; the filters whiten the design window
    tr = tp._p215_dc_traces(1024, rng)
    live = np.abs(tr).max(axis=1) > 0
    assert 0.002 < 1 - live.mean() < 0.03
    a, y = tp._p215_dc_ref(tr.ravel(), tp.P215_DC_NT, tp.P215_DC_W0, tp.P215_DC_NW, tp.P215_DC_EPS)
    assert (a[:, 0] == 1).all() and (a[~live, 1:] == 0).all()
    w = slice(tp.P215_DC_W0, tp.P215_DC_W0 + tp.P215_DC_NW)
    r1 = lambda z: (z[:, w][:, 1:] * z[:, w][:, :-1]).sum(1) / (z[:, w] ** 2).sum(1)
    assert np.median(r1(tr[live].astype(np.float64))) > 0.8 and np.median(np.abs(r1(y[live]))) < 0.1
    # the survey: patches, dead stations, skidded shots, fold
    n = 1 << 20
    h, (x0, y0, nbx, nby) = tp._p215_fm_survey(n, rng)
    assert len(h) == n and h.dtype.itemsize == 28
    tid = np.bincount(h["trid"], minlength=4)
    assert tid[3] == 2 * (-(-n // 1442))                                             # 2 auxiliary traces a shot
    assert 0.01 < tid[2] / n < 0.025
    fold, offsum, hist = tp._p215_fm_ref(h, x0, y0, tp.P215_FM_BIN, nbx, nby)
    assert 0.8 < fold.sum() / tid[1] < 0.98 and hist.sum() == fold.sum()         # the outer taper off the grid
    assert fold.max() > 30 and 1000 < offsum.sum() / fold.sum() < 2500
    s = h[h["trid"] == 1]
    off = np.hypot(s["gx"] - s["sx"], s["gy"] - s["sy"])
    assert off.max() < 3800 and off.min() < 100
    # first breaks: most picked near the truth, the windy and dead ones not
    tr, tfb = tp._p215_fb_data(4800, rng)
    assert tr.dtype == np.int16 and 80 < tfb.min() and tfb.max() < 620
    picks, ratio = tp._p215_fb_ref(tr)
    ok = picks >= 0
    assert 0.88 < ok.mean() < 0.98 and (np.abs(picks[ok] - tfb[ok]) < 10).mean() > 0.95
    assert (picks[np.abs(tr).max(axis=1) == 0] == -1).all() and (ratio[ok] > tp.P215_FB_THRESH).all()
    # SEG-Y: IBM words (the textbook -118.625 = 0xC276A000), the file's layout, the dynamic range
    w = tp._p215_ieee_to_ibm(np.array([1.0, -118.625, 0.0, 0.15625], np.float32))
    assert list(w) == [0x41100000, 0xC276A000, 0, 0x40280000]
    ns = tp.P215_SG_NS
    smp = tp._p215_sg_samples(1000, rng)
    live = np.abs(smp).max(axis=1) > 0
    dr = np.abs(smp[live, 200:]).max(axis=1) / np.abs(smp[live, -100:]).max(axis=1)
    assert np.median(dr) > 300 and 0.002 < 1 - live.mean() < 0.025
    smp, live = smp[:64], live[:64]
    f = tp._p215_sg_file(smp, rng, unnorm=0, corrupt=0)
    out, tmax, nbad = tp._p215_sg_ref(f, ns, 64)
    assert nbad == 0 and len(f) == 3600 + 64 * (240 + 4 * ns)
    assert (np.abs(out - smp) <= np.abs(smp) * 2.0 ** -20).all()                     # truncated to 21+ bits
    f = tp._p215_sg_file(smp, rng)                                                   # 2% unnormalised, 1 corrupt
    b = f[3600:].reshape(64, 240 + 4 * ns)[:, 240:].reshape(64, ns, 4)
    frac = (b[..., 1].astype(np.int64) << 16) | (b[..., 2].astype(np.int64) << 8) | b[..., 3]
    un = (frac > 0) & (frac < 1 << 20)
    assert 0.015 < un[live].mean() < 0.03
    o2, _, nbad = tp._p215_sg_ref(f, ns, 64)
    close = (np.abs(o2 - smp) <= np.abs(smp) * 2.0 ** -16).all(axis=1)              # a hex digit less
    assert nbad > 100 and close.sum() == 63


# ---- semblance ----

def test_semblance():
    rng = np.random.default_rng(1)
    nt, n = 300, 3
    h = tp._p215_sb_args(n, rng, nt=nt)
    g = h[0].reshape(n, 48, nt)
    g[0] = 0.75                                              # a flat event everywhere: semblance 1
    g[1] = 0.0                                               # a dead gather: 0
    grid = (-(-nt // tp.P215_SB_TILE), tp.P215_SB_NV, n)
    out = run("probe/seis-semblance-const-smem-window", h, n, symbols=tp._p215_sb_syms(n, rng), grid=grid)
    semb = out[3].reshape(n, tp.P215_SB_NV, nt)
    ref, unsure = tp._p215_sb_ref(h[0], nt)
    assert np.allclose(semb[:, ~unsure], ref[:, ~unsure], rtol=1e-4, atol=2e-6)
    assert 0.002 < unsure.mean() < 0.05
    assert np.allclose(semb[0], ref[0] > 0, atol=3e-6) and (ref[0] > 0).mean() > 0.9     # 1 where any trace lives
    assert (semb[1] == 0).all()
    assert semb[2].max() > 0.5


def test_semblance_one_block_short_trace():
    # one tile, its last lanes past the trace's end, the halo both sides clipped
    rng = np.random.default_rng(2)
    nt = 70
    h = tp._p215_sb_args(1, rng, nt=nt)
    out = run("probe/seis-semblance-const-smem-window", h, 1, symbols=tp._p215_sb_syms(1, rng), grid=(1, 4, 1))
    semb = out[3].reshape(tp.P215_SB_NV, nt)
    ref, unsure = tp._p215_sb_ref(h[0], nt)
    assert np.allclose(semb[:4][~unsure[:4]], ref[0, :4][~unsure[:4]], rtol=1e-4, atol=2e-6)
    assert (semb[4:] == 0).all()                            # velocities 4 .. 63 not launched


# ---- acoustic FD step ----

def _check_fd(h, nx, nz):
    out = run("probe/seis-rtm-fd4-tiled-sponge", h, nx, symbols=tp._p215_fd_syms(nx, None))
    ref = tp._p215_fd_ref(h[0], h[1], h[3], nx, nz, h[6], int(h[7]), float(h[8]), float(h[9]), int(h[10]),
                          int(h[11]))
    got = out[2].reshape(nz, nx)
    scale = np.abs(ref).max()
    assert scale > 0 and np.abs(got - ref).max() <= 2e-6 * scale
    assert (got[:2] == 0).all() and (got[-2:] == 0).all() and (got[:, :2] == 0).all() and (got[:, -2:] == 0).all()
    assert (out[13] == got[int(h[12])]).all()
    return got, ref


def test_fd_step():
    rng = np.random.default_rng(3)
    nx, nz = 164, 82                                         # partial blocks both ways, sponge and interior
    h = tp._p215_fd_args(nx, rng, it=80)
    got, ref = _check_fd(h, nx, nz)
    sx, sz = int(h[10]), int(h[11])
    # the source adds its Ricker sample there and only there
    h2 = list(h)
    h2[9] = np.float32(30.0)                                 # another peak frequency: only (sx, sz) changes
    out2 = run("probe/seis-rtm-fd4-tiled-sponge", h2, nx, symbols=tp._p215_fd_syms(nx, None))[2].reshape(nz, nx)
    diff = got - out2
    assert np.count_nonzero(diff) == 1 and diff[sz, sx] != 0
    # the sponge, on rough fields: a point 3 from the left side damped by exp(-(a 61)^2), one 75 from every side not
    rng2 = np.random.default_rng(33)
    h2 = list(h)
    h2[0], h2[1] = rng2.standard_normal(nx * nz).astype(F32), rng2.standard_normal(nx * nz).astype(F32)
    got, _ = _check_fd(h2, nx, nz)
    P, PP = h2[0].reshape(nz, nx).astype(np.float64), h2[1].reshape(nz, nx).astype(np.float64)
    c = (h[3].reshape(nz, nx).astype(np.float64) * float(h[6])) ** 2
    plain = lambda z, x: 2 * P[z, x] - PP[z, x] + c[z, x] * (
        -5 * P[z, x] + 4 / 3 * (P[z, x - 1] + P[z, x + 1] + P[z - 1, x] + P[z + 1, x])
        - 1 / 12 * (P[z, x - 2] + P[z, x + 2] + P[z - 2, x] + P[z + 2, x]))
    assert got[10, 3] == pytest.approx(plain(10, 3) * np.exp(-(tp.P215_FD_DAMP * 61) ** 2), rel=1e-5, abs=1e-6)
    assert got[6, 80] == pytest.approx(plain(6, 80), rel=1e-5, abs=1e-6) and abs(got[6, 80]) > 1e-3


def test_fd_no_sponge_interior():
    # a grid wide enough that its centre is out of the sponge: plain leapfrog there
    rng = np.random.default_rng(4)
    nx, nz = 200, 140
    h = tp._p215_fd_args(nx, rng, it=40)
    h[5] = np.int32(nz)                                      # nz larger than n / 2: arrays redrawn
    v, zsf = tp._p215_fd_model(nx, nz, rng)
    p = rng.standard_normal((nz, nx)).astype(F32)            # rough fields: every neighbour counts
    pp = rng.standard_normal((nz, nx)).astype(F32)
    h[0], h[1], h[2], h[3] = p.ravel(), pp.ravel(), np.zeros(nx * nz, F32), v.ravel()
    h[10], h[11], h[12] = np.int32(100), np.int32(70), np.int32(75)
    out = run("probe/seis-rtm-fd4-tiled-sponge", h, nx, symbols=tp._p215_fd_syms(nx, None),
              grid=(-(-nx // 32), -(-nz // 16)))
    got = out[2].reshape(nz, nx)
    ref = tp._p215_fd_ref(h[0], h[1], h[3], nx, nz, h[6], int(h[7]), float(h[8]), float(h[9]), 100, 70)
    assert np.abs(got - ref).max() < 2e-5
    iz, ix = 75, 100
    lap = (-5 * p[iz, ix] + 4 / 3 * (p[iz, ix - 1] + p[iz, ix + 1] + p[iz - 1, ix] + p[iz + 1, ix])
           - 1 / 12 * (p[iz, ix - 2] + p[iz, ix + 2] + p[iz - 2, ix] + p[iz + 2, ix]))
    c = (float(v[iz, ix]) * tp.P215_FD_DT / tp.P215_FD_H) ** 2
    assert got[iz, ix] == pytest.approx(2 * p[iz, ix] - pp[iz, ix] + c * lap, abs=2e-5)
    assert (out[13] == got[75]).all()


# ---- spiking deconvolution ----

def test_decon():
    rng = np.random.default_rng(5)
    n, nt, w0, nw = 8, 300, 20, 250
    h = tp._p215_dc_args(n, rng, nt=nt)
    tr = h[0].reshape(n, nt)
    tr[1] = 0                                                # dead: the unit spike, zeros out
    e = rng.standard_normal(nt)
    ar = np.zeros(nt)
    for i in range(1, nt):
        ar[i] = 0.9 * ar[i - 1] + e[i]
    tr[2] = ar                                               # AR(1): the filter is ~[1, -0.9]
    tr[3] = 0
    tr[3, 150] = 1.0                                         # one spike: r = [1, 0, ...], filter 1
    h[2], h[3] = np.int32(w0), np.int32(nw)
    out = run("probe/seis-spiking-decon-levinson-f64", h, n)
    a, y = tp._p215_dc_ref(h[0], nt, w0, nw, tp.P215_DC_EPS)
    pef = out[6].reshape(n, tp.P215_DC_NL)
    got = out[5].reshape(n, nt)
    assert np.abs(pef - a).max() < 1e-5 * np.abs(a).max()
    for k in range(n):
        assert np.abs(got[k] - y[k]).max() <= 1e-5 * max(np.abs(tr[k]).max() * np.abs(pef[k]).sum(), 1e-30)
    assert (pef[1] == np.eye(1, tp.P215_DC_NL)[0]).all() and (got[1] == 0).all()
    assert abs(pef[2, 1] + 0.9) < 0.1 and np.abs(pef[2, 2:]).mean() < 0.1           # estimated from 250 samples
    assert (pef[3] == np.eye(1, tp.P215_DC_NL)[0]).all() and (got[3] == tr[3]).all()


def test_decon_short_trace():
    # fewer samples than threads, a design window as long as the trace
    rng = np.random.default_rng(6)
    n, nt = 3, 90
    h = tp._p215_dc_args(n, rng, nt=nt)
    h[2], h[3] = np.int32(0), np.int32(nt)
    out = run("probe/seis-spiking-decon-levinson-f64", h, n)
    a, y = tp._p215_dc_ref(h[0], nt, 0, nt, tp.P215_DC_EPS)
    assert np.abs(out[6].reshape(n, -1) - a).max() < 1e-5 * np.abs(a).max()
    assert np.abs(out[5].reshape(n, nt) - y).max() < 1e-5 * np.abs(y).max()


# ---- fold map ----

def _check_fm(h, grid=None):
    n = len(h[0])
    out = run("probe/seis-fold-map-struct-atomics", h, n, grid=grid)
    fold, offsum, hist = tp._p215_fm_ref(h[0], float(h[2]), float(h[3]), float(h[4]), int(h[5]), int(h[6]))
    assert (out[7] == fold).all() and (out[9] == hist).all()
    assert np.allclose(out[8], offsum, rtol=2e-6, atol=1e-3)
    return out, fold, hist


def test_fold_map():
    rng = np.random.default_rng(7)
    h = tp._p215_fm_args(20000, rng)
    out, fold, hist = _check_fm(h)
    assert fold.sum() > 10000 and (hist > 0).sum() > 20
    for a in h[7:]:
        a[...] = 0
    _check_fm(h, grid=(3, 1))                               # a few blocks striding over everything


def test_fold_map_edges():
    hd = np.zeros(12, tp.P215_FM_DTYPE)
    hd["trid"] = 1
    #             sx      sy      gx      gy
    rows = [(100.0, 100.0, 150.0, 100.0),                   # mx 125 exactly on a bin edge: bin 5, offset 50
            (100.0, 100.0, 100.0, 100.0),                   # zero offset: azimuth 0
            (300.0, 100.0, 50.0, 100.0),                    # due west: atan2 = pi, 180 degrees -> last sector
            (100.0, 100.0, 100.0, 350.0),                   # due north: 90 degrees, sector 6
            (-2000.0, 100.0, 2100.0, 100.0),                # 4.1 km: the last offset class
            (-80.0, 10.0, -20.0, 10.0),                     # mx -50: left of the grid
            (100.0, 100.0, 180.0, 160.0),                   # (80, 60): offset 100, 36.87 degrees
            (100.0, 100.0, 20.0, 40.0),                     # (-80, -60): 216.87 -> 36.87 degrees
            (0.0, 0.0, 2490.0, 1240.0),                     # midpoint near the grid's far corner
            (0.0, 0.0, 2500.0, 1250.0),                     # midpoint on the far edge: outside
            (400.0, 400.0, 600.0, 600.0),                   # dead
            (400.0, 400.0, 600.0, 600.0)]                   # auxiliary
    for k, (a, b, c, d) in enumerate(rows):
        hd[k]["sx"], hd[k]["sy"], hd[k]["gx"], hd[k]["gy"] = a, b, c, d
    hd["trid"][10], hd["trid"][11] = 2, 3
    nbx, nby = 50, 25                                        # 1250 x 625 m from (0, 0)
    h = [hd, np.int32(12), F32(0), F32(0), F32(25), np.int32(nbx), np.int32(nby), np.zeros(nbx * nby, np.int32),
         np.zeros(nbx * nby, F32), np.zeros(tp.P215_FM_NOFF * tp.P215_FM_NAZ, np.int32)]
    out, fold, hist = _check_fm(h, grid=(1, 1))
    fb = out[7].reshape(nby, nbx)
    assert fb.sum() == 8 and fb[4, 5] == fb[4, 4] == fb[4, 7] == fb[9, 4] == fb[4, 2] == fb[5, 5] == fb[2, 2] == 1
    assert fb[24, 49] == 1
    H = out[9].reshape(tp.P215_FM_NOFF, tp.P215_FM_NAZ)
    assert H[0, 0] == 2 and H[1, 11] == 1 and H[1, 6] == 1 and H[0, 2] == 2 and H[11, 1] == 1 and H[15, 0] == 1
    assert out[8].reshape(nby, nbx)[4, 5] == 50


# ---- first breaks ----

def _check_fb(tr, grid=None):
    n = len(tr)
    h = [tr.ravel(), np.zeros(n, np.int16), np.zeros(n, F32), np.int32(n)]
    out = run("probe/seis-firstbreak-stalta-i16-warp", h, n, grid=grid)
    picks, ratio = tp._p215_fb_ref(tr)
    assert (out[1] == picks).all() and (out[2] == ratio).all()
    return out[1], out[2]


def test_first_breaks():
    rng = np.random.default_rng(8)
    tr, tfb = tp._p215_fb_data(30, rng)                      # 7 warps and a half: the last block's last warps idle
    p, r = _check_fb(tr)
    assert (p >= 0).sum() > 20


def test_first_break_cases():
    NT = tp.P215_FB_NT
    tr = np.zeros((8, NT), np.int16)                         # trace 0 dead: no pick
    tr[1] = np.where(np.arange(NT) % 2, 1, -1)
    tr[1, 199], tr[1, 200] = 3, 5                            # STA exactly 5 LTA at 200 .. 206: no pick (not over)
    tr[2] = -32768                                           # the full range: 2^40 of energy, ratio 1
    tr[2, 500:] = 32767
    tr[3] = 1
    tr[3, 67] = 9                                            # at the first sample tested (lane 0 of the first chunk)
    tr[4] = 2
    tr[4, NT - 1] = 60                                       # at the last sample
    tr[5] = 3
    tr[5, 67 + 31] = 100                                     # the first chunk's last lane
    tr[6, 300:] = 7                                          # STA > 0 = LTA at 300 .. 307: the pick once the LTA lives
    tr[7] = 10
    tr[7, 120] = 100
    tr[7, 400] = 100                                         # two hits: the earlier one
    p, r = _check_fb(tr, grid=(2, 1))
    assert list(p) == [-1, -1, -1, 67, NT - 1, 98, 308, 120]
    assert r[0] == 0 and r[3] == pytest.approx((8 - 1 + 81) / 8 / 1)


# ---- SEG-Y IBM to IEEE ----

def _check_sg(f, ns, n, grid=None):
    h = [f, np.int32(ns), np.zeros(n * ns, F32), np.zeros(n, np.int32), np.zeros(1, np.int32), np.int32(n)]
    out = run("probe/seis-segy-ibm2ieee-bytes-atomicmax", h, n, grid=grid)
    o, tmax, nbad = tp._p215_sg_ref(f, ns, n)
    assert (out[2].view(np.int32) == o.ravel().view(np.int32)).all()
    assert (out[3] == tmax).all() and out[4][0] == nbad
    return out[2].reshape(n, ns), nbad


def test_segy():
    rng = np.random.default_rng(9)
    n = 6
    smp = tp._p215_sg_samples(n, rng)
    f = tp._p215_sg_file(smp, rng, corrupt=0.2)              # one trace of random bytes
    out, nbad = _check_sg(f, tp.P215_SG_NS, n, grid=(5, 1))
    assert nbad > 100


def test_segy_words():
    words = [0x41100000, 0xC276A000, 0x00000000, 0x80000000, 0x42010000, 0x40000001, 0x00100000, 0x21100000,
             0x22100000, 0x60FFFFFF, 0x61100000, 0x7FFFFFFF, 0xFFFFFFFF, 0x3F100000, 0xBF100000, 0x40FFFFFF,
             0x41000010]
    want = [1.0, -118.625, 0.0, 0.0, 1.0, 2.0 ** -24, 0.0, 0.0, 2.0 ** -124, float(np.finfo(F32).max),
            float(np.finfo(F32).max), float(np.finfo(F32).max), -float(np.finfo(F32).max), 2.0 ** -8, -2.0 ** -8,
            1 - 2.0 ** -24, 2.0 ** -16]
    ns, n = len(words), 3                                    # 17 samples a trace: warps straddle traces
    rec = 240 + 4 * ns
    f = np.zeros(3600 + n * rec, np.uint8)
    body = f[3600:].reshape(n, rec)
    for t in range(n):
        body[t, 240:] = np.array(np.roll(words, t), ">u4").view(np.uint8)
    out, nbad = _check_sg(f, ns, n, grid=(1, 1))
    assert [float(v) for v in out[0]] == want
    assert nbad == 3 * 5 and (out[0] != 0).sum() == 13
