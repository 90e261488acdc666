"""probe-unseen183's kernels (kernels_cuda/probes185.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
from statistics import NormalDist

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/semivariogram-pairs-smem", "probe/kriging-bucket-dsolve", "probe/nscore-backtr-const",
       "probe/local-moran-shfl", "probe/focal-var9-dem-smem", "probe/spectral-sim-cosf"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen183"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes185.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _nn_dist(x, y):
    """Each point's distance to its nearest other point."""
    d = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :])
    np.fill_diagonal(d, np.inf)
    return d.min(axis=1)


def test_data():
    rng = np.random.default_rng(0)
    g = tp._p185_gauss_grid(1000, 1200, 8, rng)
    assert g.dtype == np.float32 and g.shape == (1000, 1200)
    assert abs(g.mean()) < 0.05 and abs(g.std() - 1) < 0.03 and abs((g > 1.96).mean() - 0.025) < 0.005
    assert np.corrcoef(g[:, :-1].ravel(), g[:, 1:].ravel())[0, 1] > 0.9                  # smooth
    x, y, z, gsum, gcnt, lag, n = tp._p185_vg_args(2048, rng)
    assert x.dtype == z.dtype == np.float32 and gsum.dtype == np.float64 and gcnt.dtype == np.uint32
    assert len(gsum) == len(gcnt) == 20 and not gsum.any() and lag == 2.5 and n == 2048
    assert 0 <= min(x.min(), y.min()) and max(x.max(), y.max()) < 100 and z.min() > 0
    assert abs(np.median(np.log(z)) - 3.4) < 0.35 and z.mean() > 1.2 * np.median(z)      # right-skewed
    assert np.median(_nn_dist(x.astype(np.float64), y.astype(np.float64))) < 0.4         # clustered (uniform: ~1.1)
    gl, cl = tp._p185_vg_ref(x, y, np.log(z))
    gam = gl / cl
    assert cl.min() > 1000 and gam[0] < 0.6 * gam[10:].mean()                          # spatially correlated
    smp, bstart, bw, bh, bsize, cell, nx, ny, nug, sill, rg, est, kv = tp._p185_kr_args(512, rng)
    s = smp.reshape(-1, 3)
    cnt = np.diff(bstart)
    assert len(s) == 512 * 512 // 64 and bw == bh == 25 and len(bstart) == 626 and bstart[-1] == len(s)
    b = np.repeat(np.arange(bw * bh), cnt)
    assert ((s[:, 0] / bsize).astype(int) == b % bw).all() and ((s[:, 1] / bsize).astype(int) == b // bw).all()
    assert cnt.max() > 5 * cnt.mean() and (cnt == 0).any() and (nug, sill, rg) == tp.P185_KR_MODEL
    assert abs(np.median(np.log(s[:, 2]))) < 0.3 and cell == np.float32(0.1) and not est.any()
    yv, zv, ymin, zmin, ymax, zmax, n = tp._p185_ns_args(1 << 16, rng)
    yt, zt = tp._p185_ns_syms(n, rng).values()
    assert yv.dtype == np.float32 and len(yv) == n and abs(yv.std() - 1) < 0.25
    assert np.corrcoef(yv[:-1], yv[1:])[0, 1] > 0.95
    assert len(yt) == len(zt) == 1024 and (np.diff(yt) > 0).all() and (np.diff(zt) > 0).all()
    assert np.allclose(yt, -yt[::-1], atol=1e-6) and abs(yt[-1] - NormalDist().inv_cdf(1 - 0.5 / 1024)) < 1e-6
    assert zmin == 0 < zt[0] and zt[-1] < zmax
    assert (ymin, ymax) == (-5, 5) and abs(np.median(zt) - np.exp(-0.2)) < 0.1
    v, li, quad, gnum, mean, inv_m2, nx, ny = tp._p185_mi_args(1024, rng)
    ok = ~np.isnan(v)
    assert v.dtype == np.float32 and quad.dtype == np.uint8 and len(gnum) == 1 and nx == ny == 1024
    assert abs(mean - v[ok].mean()) < 1e-3 and abs(1 / inv_m2 - v[ok].var()) < 1e-3 * v[ok].var()
    assert v[ok].min() > 0 and v[ok].mean() > np.median(v[ok]) and 0.002 < 1 - ok.mean() < 0.5
    v = v.reshape(1024, 1024)
    both = ok.reshape(1024, 1024)[:, 1:] & ok.reshape(1024, 1024)[:, :-1]
    assert np.corrcoef(v[:, 1:][both], v[:, :-1][both])[0, 1] > 0.7                     # autocorrelated
    dem, var, nx, ny = tp._p185_fv_args(1024, rng)
    void = dem == -9999
    d = dem.reshape(1024, 1024)
    assert 0.002 < void.mean() < 0.01 and 0 < dem[~void].min() and dem.max() < 3000
    step = np.abs(np.diff(d, axis=1))[(d[:, 1:] != -9999) & (d[:, :-1] != -9999)]
    assert np.median(step) < 10 < dem[~void].std()                                      # rough but continuous
    lab = void.reshape(1024, 1024)
    assert (lab[:, 1:] & lab[:, :-1]).sum() > 0.5 * lab.sum()                           # voids in blobs
    w, out, nx, ny, cell, mean, amp, nw = tp._p185_ss_args(512, rng)
    k = np.hypot(*w.reshape(-1, 3)[:, :2].T)
    a = tp.P185_SS_MODEL[2] / 3
    assert nw == 256 and len(w) == 768 and 0 <= w[2::3].min() and w[2::3].max() < 2 * np.pi
    assert 0.5 < np.median(k) * a < 3 and k.max() > 20 * np.median(k)                  # Cauchy: heavy-tailed
    assert abs(amp - np.sqrt(3 / 256)) < 1e-7 and cell == np.float32(0.05)


# ---- semivariogram-pairs-smem ----

def _vg_block_bound(x, y, z, lag):
    """The float32 shared sums' worst-case error: for each (block, class), its pair count
    times its sum times 2^-24, added over the blocks."""
    f = np.float32
    i, j = np.triu_indices(len(x), 1)
    dx, dy = x[j] - x[i], y[j] - y[i]
    b = (np.sqrt((dx.astype(np.float64) * dx + dy * dy).astype(f)) / f(lag)).astype(np.int64)
    ok = b < 20
    key = ((i // 128) * 1000 + j // 128)[ok] * 20 + b[ok]
    u, inv = np.unique(key, return_inverse=True)
    c = np.bincount(inv)
    s = np.bincount(inv, 0.5 * (z[j].astype(np.float64) - z[i])[ok] ** 2)
    return np.bincount(u % 20, c * s * 2.0 ** -24, 20)


@pytest.mark.parametrize("n, policy", [(300, "lockstep"), (140, "random")])
def test_variogram_pairs(n, policy):
    # 300: 3 x 3 tiles (the last partial), 6 of the 9 blocks working; 140: 3 of 4
    rng = np.random.default_rng(3)
    h = tp._p185_vg_args(n, rng)
    # integer concentrations 0..20 on a 0.5 km grid: distances on class edges exact, the
    # float sums exact (half-integers under 2^23)
    hq = list(h)
    hq[0], hq[1] = (np.round(v * 2) / 2 for v in h[:2])
    hq[2] = np.minimum(np.round(h[2] / 5), 20).astype(np.float32)
    out = run("probe/semivariogram-pairs-smem", hq, n, policy=policy)
    g, c = tp._p185_vg_ref(*hq[:3])
    assert (out[4] == c).all() and (out[3] == g).all() and 0 < c.sum() < n * (n - 1) // 2
    assert c.min() > 0 and g.min() > 0
    # the drawn (real-valued) data: counts exact, sums within the float32 bound
    out = run("probe/semivariogram-pairs-smem", h, n, policy=policy)
    g, c = tp._p185_vg_ref(*h[:3])
    bound = _vg_block_bound(*h[:3], h[5])
    assert (out[4] == c).all() and (np.abs(out[3] - g) <= bound).all() and (bound < 1e-3 * g).all()


def test_variogram_edges():
    # coincident samples (lag 0), pairs exactly 2.5 km (class 1) and 50 km (the largest lag:
    # left out) apart, one pair at 47.5 km (class 19)
    x = np.float32([0, 0, 30, 1.5])
    y = np.float32([0, 0, 40, 2])
    z = np.float32([1, 3, 5, 7])
    h = [x, y, z, np.zeros(20), np.zeros(20, np.uint32), np.float32(2.5), np.int32(4)]
    out = run("probe/semivariogram-pairs-smem", h, 4)
    g = np.zeros(20)
    c = np.zeros(20, np.uint32)
    g[[0, 1, 19]] = [2, 18 + 8, 2]
    c[[0, 1, 19]] = [1, 2, 1]
    assert (out[3] == g).all() and (out[4] == c).all()


# ---- kriging-bucket-dsolve ----

def test_ok_krige():
    # 16 x 16 cells of 0.8 km: 7 x 7 buckets (the last partial), 2 x 2 blocks of 8 x 8
    n = 16
    rng = np.random.default_rng(4)
    h = tp._p185_kr_args(n, rng, m=150, cell=0.8)
    out = run("probe/kriging-bucket-dsolve", h, n)
    est, var, clear, k = tp._p185_kr_ref(*h[:10], h[10])
    # double against double, rounded to float32 once: a few float32 ulps
    assert clear.mean() > 0.95 and (k == 8).mean() > 0.5 and ((k > 0) & (k < 8)).any()
    assert (np.abs(out[11] - est)[clear] <= 4e-7 * (np.abs(est) + 1)[clear]).all()
    assert (np.abs(out[12] - var)[clear] <= 4e-7 * (var + 1)[clear]).all() and (var[k > 0] > 0).all()
    assert ((out[11] == -9999) == (k == 0)).all()


def test_ok_krige_edges():
    # every sample in the first bucket: cells two buckets away have none (nodata); one sample
    # on a cell's centre (kriging is exact there: its value, variance 0); one cell with 1 sample
    n = 16
    cell = np.float32(0.4)
    c = lambda i: (np.float32(i) + np.float32(0.5)) * cell                 # noqa: E731
    pts = np.float32([[c(2), c(3), 2.5], [0.3, 0.2, 1.0], [1.9, 0.1, 4.0], [0.2, 1.7, 0.5], [1.0, 1.0, 3.0]])
    bw = 4                                                              # 6.4 km / 2.048
    bstart = np.zeros(bw * bw + 1, np.int32)
    bstart[1:] = len(pts)
    h = [pts.ravel(), bstart, np.int32(bw), np.int32(bw), np.float32(2.048), cell, np.int32(n), np.int32(n),
         *(np.float32(v) for v in tp.P185_KR_MODEL), np.zeros(n * n, np.float32), np.zeros(n * n, np.float32)]
    out = run("probe/kriging-bucket-dsolve", h, n)
    est, var, clear, k = tp._p185_kr_ref(*h[:10], h[10])
    assert (k[:6] == 5).all() and (k.reshape(n, n)[11:, :] == 0).all() and (k == 0).sum() > 100
    assert ((out[11] == -9999) == (k == 0)).all() and ((out[12] == -9999) == (k == 0)).all()
    live = k > 0
    assert (np.abs(out[11] - est)[live] <= 4e-7 * (np.abs(est) + 1)[live]).all()
    assert (np.abs(out[12] - var)[live] <= 4e-7 * (var + 1)[live]).all()
    assert abs(out[11][3 * n + 2] - 2.5) < 1e-6 and abs(out[12][3 * n + 2]) < 1e-6


# ---- nscore-backtr-const ----

@pytest.mark.parametrize("n, policy", [(5000, "lockstep"), (1500, "random")])
def test_nscore_backtr(n, policy):
    host, out, syms, _ = launch("probe/nscore-backtr-const", n, policy=policy)
    yt, zt = syms["c_ns_y"], syms["c_ns_z"]
    ref = tp._p185_ns_ref(host[0], yt, zt, *host[2:6])
    # IEEE float32 steps but one fused multiply-add, emulated with a double rounding: 1 ulp
    assert (np.abs(out[1] - ref) <= np.spacing(ref)).all() and (out[1] == ref).mean() > 0.99
    # the table's own scores, its ends, the tails' bounds and beyond
    y = np.concatenate([yt[[0, 1, 500, 1022, 1023]], np.float32([-5, 5, -7, 9, -4, 4, -3.2, 3.2])])
    h = [y, np.zeros(len(y), np.float32), *host[2:6], np.int32(len(y))]
    z = run("probe/nscore-backtr-const", h, len(y), symbols=syms)[1]
    assert (z[1:5] == zt[[1, 500, 1022, 1023]]).all() and z[0] == zt[0]
    assert (z[[5, 7]] == host[3]).all() and (z[[6, 8]] == host[5]).all()
    assert (z == tp._p185_ns_ref(y, yt, zt, *host[2:6])).all() and 0 < z[9] < zt[0] and zt[-1] < z[10] < host[5]


# ---- local-moran-shfl ----

def _moran_check(h, out, n):
    li, quad, num = tp._p185_mi_ref(h[0], n, n, h[4], h[5])
    assert (out[1] == li).all() and (out[2] == quad).all()
    # float32 shuffle trees (5 + 5 levels) then one atomicAdd a block (up to 10 blocks), each
    # rounding within 2^-24 of the partial sums
    assert abs(out[3][0] - num.astype(np.float64).sum()) <= (10 + 10) * 2.0 ** -24 * np.abs(num).sum()
    return li, quad


@pytest.mark.parametrize("n, policy", [(40, "lockstep"), (20, "random")])
def test_local_moran(n, policy):
    # 40: 2 x 5 blocks of 32 x 8, partial in x; 20: 1 x 3, partial in both
    host, out, *_ = launch("probe/local-moran-shfl", n, policy=policy)
    li, quad = _moran_check(host, out, n)
    assert set(np.unique(quad)) >= {1, 2, 3, 4} and li.mean() > 0         # positive autocorrelation


def test_local_moran_nodata():
    # nodata: a square, a ring isolating one cell, a cell at the corner with 3 neighbours
    n, policy = 40, "lockstep"
    host, out, *_ = launch("probe/local-moran-shfl", n)
    h = list(host)
    v = h[0].reshape(n, n).copy()
    v[5:12, 30:38] = np.nan
    v[19:22, 9:12] = np.nan
    v[20, 10] = 7.0
    v[0, 1] = v[1, 0] = np.nan
    h[0] = v.ravel()
    out = run("probe/local-moran-shfl", h, n, policy=policy)
    li, quad = _moran_check(h, out, n)
    assert li[20 * n + 10] == 0 and quad[20 * n + 10] == 0 and (quad.reshape(n, n)[5:12, 30:38] == 0).all()
    zc = np.float32(v[0, 0]) - h[4]
    assert li[0] == zc * (np.float32(v[1, 1]) - h[4]) * h[5]


# ---- focal-var9-dem-smem ----

@pytest.mark.parametrize("n, policy", [(40, "lockstep"), (16, "random")])
def test_focal_var9(n, policy):
    # 40: 3 x 3 tiles, the last ones partial; 16: one
    host, out, *_ = launch("probe/focal-var9-dem-smem", n, policy=policy)
    h = list(host)
    d = h[0].reshape(n, n).copy()
    d[2:5, n - 5:n - 2] = -9999                                         # a void
    d[0, n - 1] = -9999                                                 # one in the corner
    d[n - 12:, 3:15] = 812.5                                            # a lake's flat surface
    h[0] = d.ravel()
    out = run("probe/focal-var9-dem-smem", h, n, policy=policy)
    var, msd = tp._p185_fv_ref(h[0], n, n)
    # float32 with the centre subtracted: d rounded once, 81-term sums of d and d^2, then
    # s2 - s^2/k: within 256 * 2^-24 of the mean squared deviation
    assert (np.abs(out[1] - var) <= 256 * 2.0 ** -24 * msd + 1e-30).all()
    assert ((out[1] == -9999) == (d.ravel() == -9999)).all() and (var > 1).mean() > 0.5
    assert (out[1].reshape(n, n)[n - 8:, 7:11] == 0).all()              # windows inside the flat
    assert (out[1].reshape(n, n)[n - 9, 7:11] > 0).all()


# ---- spectral-sim-cosf ----

@pytest.mark.parametrize("n, nw, policy", [(40, 300, "lockstep"), (16, 40, "random")])
def test_spectral_sim(n, nw, policy):
    # 40: 3 x 3 blocks (partial); 300 waves: 2 chunks, the second of 44
    rng = np.random.default_rng(5)
    h = tp._p185_ss_args(n, rng, nw=nw)
    out = run("probe/spectral-sim-cosf", h, n, policy=policy)
    ref, err = tp._p185_ss_ref(h[0], n, n, *h[4:7])
    assert (np.abs(out[1] - ref) <= err).all() and err.max() < 2e-4 and ref.std() > 0.1
