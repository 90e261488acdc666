"""probe-unseen193's kernels (kernels_cuda/probes195.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import dataclasses

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/drone-ndvi-ndre-u16", "probe/maize-season-const-wx", "probe/yield-zones-smem-u64",
       "probe/fcm-zones-shfl-26", "probe/et0-fao56-coarse-wx", "probe/irrig-sched-argmax"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen193"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes195.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 512
    img, *outs, npix = tp._p195_vi_args(n, rng)
    assert img.dtype == np.uint16 and len(img) == 4 * n * n and npix == n * n and len(outs) == 4
    b = img.reshape(4, n, n).astype(np.int64)
    out = (b == 0).all(axis=0)
    assert ((b == 0).any(axis=0) == out).all() and 0.28 < out.mean() < 0.36      # the footprint's collar
    assert out[0, 0] and out[-1, -1] and not out[n // 2, n // 2]
    g, r, re, nir = b[:, ~out]
    assert (nir > re).mean() > 0.99 and (re > r).mean() > 0.99 and 1 <= r.min() and nir.max() < 10000
    ndvi = ((b[3] - b[1]) / np.maximum(b[3] + b[1], 1))[n // 4:3 * n // 4, n // 4:3 * n // 4]     # inside
    assert 0.35 < np.median(ndvi) < 0.6 and ndvi.min() > 0.1 and 0.15 < np.percentile(ndvi, 90) - np.percentile(ndvi, 10)
    lag = lambda k: np.corrcoef(ndvi[:, k:].ravel(), ndvi[:, :-k].ravel())[0, 1]
    assert lag(15) > 0.8 and lag(7) < 0.3                                        # crop rows every 15 pixels
    sow, tsum, awc, y, md, ncell = tp._p195_cg_args(300, rng)
    w = tp._p195_cg_syms(300, rng)
    assert ncell == 300 * 300 and sow.dtype == md.dtype == np.int32 and awc.dtype == np.float32
    assert 3 <= sow.min() and sow.max() <= 40 and set(np.unique(tsum)) <= set(tp.P195_CG_TSUM)
    s2 = sow.reshape(300, 300)
    assert 0.9 < (s2[:, 1:] == s2[:, :-1]).mean() < 0.99 and len(np.unique(sow)) > 20   # 27-cell fields
    assert 76 < awc.min() and awc.max() < 263 and np.corrcoef(awc[1:], awc[:-1])[0, 1] > 0.9
    tmax, tmin, srad, rain = (w[k] for k in ("c_tmax", "c_tmin", "c_srad", "c_rain"))
    assert all(len(v) == 180 and v.dtype == np.float32 for v in (tmax, tmin, srad, rain))
    assert (tmin < tmax).all() and tmax[60:120].mean() > tmax[:30].mean() + 8 and 0.2 < (rain > 0).mean() < 0.45
    assert 10 < srad.mean() < 25 and 300 < rain.sum() < 1000
    yld, zone, npix, nz, cnt, sm, sq, lo, hi = tp._p195_zs_args(600, rng)
    assert yld.dtype == np.uint16 and zone.dtype == np.int32 and npix == 600 * 600 and 200 < nz <= 1024
    assert zone.max() == nz - 1 and zone.min() == -1 and (yld[zone < 0] == 0).all()
    assert 0.25 < (zone < 0).mean() < 0.6 and 0.05 < (yld[zone >= 0] == 0).mean() < 0.2
    c = np.bincount(zone[zone >= 0], minlength=nz)
    assert np.percentile(c[c > 0], 90) > 5 * np.percentile(c[c > 0], 10)          # skewed zone sizes
    z2 = zone.reshape(600, 600)
    assert (z2[:, 1:] == z2[:, :-1]).mean() > 0.9                                 # zones in patches
    v = yld[yld > 0]
    assert 2500 < np.percentile(v, 10) and np.percentile(v, 90) < 17000 and v.max() > 20000   # spikes
    assert (lo == 2 ** 31 - 1).all() and not (cnt.any() or sm.any() or sq.any() or hi.any())
    x, cen, wgt, lab, acc, npix = tp._p195_fc_args(256, rng)
    xs = x.reshape(4, -1)
    ring = xs[0] != -9999
    assert abs(ring.mean() - np.pi / 4) < 0.01 and lab.dtype == np.uint8 and len(acc) == 26
    assert all(((xs[:, ring].T == c).all(axis=1)).any() for c in cen.reshape(5, 4))    # data points
    assert np.allclose(wgt, 1 / np.var(xs[:, ring], axis=1), rtol=0.05)
    assert np.corrcoef(xs[0, ring], xs[1, ring])[0, 1] > 0.5 and 299 < xs[2].min() and xs[2].max() < 313
    n = 160
    wx, elev, crop, e0, ec, nx, ny, lat0, res, doy0, days = tp._p195_et_args(n, rng)
    w = wx.reshape(days, 10, 10, 6)
    assert (nx, ny, doy0, days) == (n, n, 182, 31) and crop.dtype == np.uint8
    assert (w[..., 1] < w[..., 0]).all() and (w[..., 3] <= w[..., 2]).all() and w[..., 2].max() <= 100
    assert w[..., 0].min() > 15 and w[..., 0].max() < 42 and 0.5 < w[..., 4].min() and 10 < w[..., 5].min()
    assert w[:, -1, :, 0].mean() > w[:, 0, :, 0].mean() + 2                      # warmer to the south
    assert 180 <= elev.min() and elev.max() <= 430 and abs((crop == 0).mean() - 0.38) < 0.06
    fld, etc, rain, bs, bp = tp._p195_ir_args(512, rng)
    F = fld.reshape(-1, 7)
    assert len(F) == 512 and (F[:, 2] <= 0.5 * F[:, 0]).all() and abs(np.median(F[:, 0]) - 120) < 10
    E, Rn = etc.reshape(512, 120), rain.reshape(512, 120)
    kc = tp._p195_ir_kc()
    assert kc[0] == 0.3 and kc[65] == 1.2 and kc[104] == 1.2 and kc[-1] < 0.65
    assert (E[:, 70] > 3 * E[:, 10]).all() and 0.2 < (Rn > 0).mean() < 0.35
    assert np.corrcoef((Rn[:-1] > 0).ravel(), (Rn[1:] > 0).ravel())[0, 1] > 0.8


# ---- drone-ndvi-ndre-u16 ----

def test_veg_indices():
    n = 50                                                  # 2500 pixels: the last block partial
    host, out, *_ = launch("probe/drone-ndvi-ndre-u16", n)
    ndvi, gndvi, ndre, savi = tp._p195_vi_ref(host[0], n * n)
    # integer differences over integer sums: one rounding, the same in numpy's float32
    assert (out[1] == ndvi).all() and (out[2] == gndvi).all() and (out[3] == ndre).all()
    # SAVI from float32 reflectances: ~6 roundings of values under 1.5
    assert np.abs(out[4] - savi).max() < 6e-7 and (ndvi == -9999).any() and (ndvi > 0).any()
    # hand-made pixels: one band missing, the extremes of the digital numbers, NIR == red
    img = np.array([[0, 100, 100, 100], [100, 0, 100, 100], [100, 100, 100, 0], [1, 1, 1, 65535],
                    [65535, 65535, 65535, 1], [500, 800, 2000, 800], [1, 2, 3, 4]], np.uint16).T.copy()
    z = lambda: np.zeros(7, np.float32)
    h = [img.ravel(), z(), z(), z(), z(), np.int32(7)]
    o = run("probe/drone-ndvi-ndre-u16", h, 7, grid=1)
    assert (o[1][:3] == -9999).all() and (o[4][:3] == -9999).all()
    assert o[1][3] == np.float32(65534 / 65536) and o[1][4] == np.float32(-65534 / 65536) and o[1][5] == 0
    assert o[2][5] == np.float32(300 / 1300) and o[3][5] == np.float32(-1200 / 2800) and o[4][5] == 0
    assert abs(o[4][3] - 1.5 * (6.5535 - 1e-4) / (6.5536 + 0.5)) < 1e-6 and o[3][6] == np.float32(1 / 7)


# ---- maize-season-const-wx ----

@pytest.mark.parametrize("n, policy", [(24, "lockstep"), (6, "random")])
def test_crop_season(n, policy):
    host, out, syms, _ = launch("probe/maize-season-const-wx", n, policy=policy)
    w = [syms[k] for k in ("c_tmax", "c_tmin", "c_srad", "c_rain")]
    y, md, margin = tp._p195_cg_ref(*host[:3], *w)
    # the season ends on the day thermal time passes tsum: float32's ~1e-3 degree-days of
    # drift over 180 days cannot move it where every cell's margin exceeds 0.01
    assert margin.min() > 0.01 and (out[4] == md).all() and (md >= 0).any()
    # float32 against float64: ~150 days of biomass increments, each ~20 roundings and 3 expf
    assert (np.abs(out[3] - y) <= 1e-5 * y).all() and y.min() > 3000
    # hand-made cells: never sown (day 180), sown on the last day, a hybrid that cannot
    # mature, a soil holding 5 mm (drought), a very early hybrid
    h = [np.array([180, 179, 5, 10, 10], np.int32), np.array([1500, 1500, 1e6, 1500, 300], np.float32),
         np.array([200, 200, 200, 5, 200], np.float32), np.zeros(5, np.float32), np.zeros(5, np.int32), np.int32(5)]
    o = run("probe/maize-season-const-wx", h, 5, symbols=syms)
    y, md, margin = tp._p195_cg_ref(*h[:3], *w)
    assert list(o[4]) == list(md) and md[0] == md[1] == md[2] == -1 and 10 < md[4] < md[3]
    assert o[3][0] == 0 and (np.abs(o[3] - y) <= 1e-5 * y).all() and y[3] < 0.6 * out[3].min()


# ---- yield-zones-smem-u64 ----

@pytest.mark.parametrize("n, policy", [(120, "lockstep"), (40, "random")])
def test_zonal_yield(n, policy):
    host, out, *_ = launch("probe/yield-zones-smem-u64", n, policy=policy)
    ref = tp._p195_zs_ref(host[0], host[1], int(host[3]))
    # integer statistics: exact, whatever order the atomics land in
    assert all((o == r).all() for o, r in zip(out[4:], ref)) and (ref[0] > 0).sum() > 50
    # a grid-stride loop of 3 blocks over 1000 pixels in 2 zones and an empty one: the
    # largest yield (its square just under 2^32) and the smallest
    h = list(host)
    h[0] = np.tile(np.uint16([65535, 1, 0, 7]), 250)
    h[1] = np.tile(np.int32([0, 2, 2, -1]), 250)
    h[2], h[3] = np.int32(1000), np.int32(3)
    h[4:] = (np.zeros_like(a) if k != 3 else np.full_like(a, 2 ** 31 - 1) for k, a in enumerate(host[4:]))
    o = run("probe/yield-zones-smem-u64", h, 32, grid=3)
    assert list(o[4][:3]) == [250, 0, 250] and list(o[5][:3]) == [250 * 65535, 0, 250]
    assert list(o[6][:3]) == [250 * 65535 ** 2, 0, 250] and list(o[7][:3]) == [65535, 2 ** 31 - 1, 1]
    assert list(o[8][:3]) == [65535, 0, 1] and not o[4][3:].any()


# ---- fcm-zones-shfl-26 ----

@pytest.mark.parametrize("n, policy", [(40, "lockstep"), (12, "random")])
def test_fcm_step(n, policy):
    # 40: 1600 pixels in 7 blocks, the last partial; 12: 144 pixels, a partial warp
    host, out, *_ = launch("probe/fcm-zones-shfl-26", n, policy=policy)
    lab, acc, gap = tp._p195_fc_ref(host[0], host[1], host[2], n * n)
    # no pixel's two nearest centres within 1e-5 of each other: float32 picks the same zone
    assert gap > 1e-5 and (out[3] == lab).all() and (lab == 255).any() and len(set(lab) - {255}) >= 3
    # float32 sums of ~1600 positive terms (warp shuffles, block sums, atomics in any order)
    assert (np.abs(out[4] - acc) <= 1e-5 * acc).all()
    # a pixel on a centre exactly: that zone, membership 1 (the others ~1e-12 / d^2)
    h = list(host)
    x = h[0].reshape(4, -1).copy()
    x[:, 5] = h[1].reshape(5, 4)[3]
    h[0] = x.ravel()
    h[3], h[4] = np.zeros_like(host[3]), np.zeros_like(host[4])
    o = run("probe/fcm-zones-shfl-26", h, n)
    lab, acc, _ = tp._p195_fc_ref(h[0], h[1], h[2], n * n)
    assert o[3][5] == 3 and (o[3] == lab).all() and (np.abs(o[4] - acc) <= 1e-5 * acc).all()


# ---- et0-fao56-coarse-wx ----

@pytest.mark.parametrize("n, policy", [(40, "lockstep"), (9, "random")])
def test_et0_month(n, policy):
    # 40: 2 x 5 blocks of 32 x 8, partial in x; coarse cells of 16 partial at the edges; 9: one block
    host, out, *_ = launch("probe/et0-fao56-coarse-wx", n, policy=policy)
    et0, etc = tp._p195_et_ref(host[0], host[1], host[2], n, n, *host[7:])
    # float32 against float64: 31 days of ~60 operations and 10 transcendentals each
    assert (np.abs(out[3] - et0) <= 4e-6 * et0).all() and (np.abs(out[4] - etc) <= 4e-6 * etc).all()
    assert 130 < et0.min() and et0.max() < 220 and (n < 20 or len(np.unique(host[2])) > 3)


def test_et0_fao56_example():
    # FAO-56 example 18 (Uccle, 50 48' N, 100 m, 6 July): Tmax 21.5, Tmin 12.3, RH 84 / 63 %,
    # 10 km/h of wind at 10 m, Rs 22.07 MJ / m^2: ET0 3.9 mm/day (Rn 13.28, from Ra 41.09)
    wx = np.float32([21.5, 12.3, 84, 63, 10 / 3.6, 22.07])
    res = np.float32(1e-3)
    h = [wx, np.float32([100]), np.uint8([0]), np.zeros(1, np.float32), np.zeros(1, np.float32), np.int32(1),
         np.int32(1), np.float32(50.8 + 0.5e-3), res, np.int32(187), np.int32(1)]
    o = run("probe/et0-fao56-coarse-wx", h, 1, symbols=tp._p195_et_syms(1, None))
    assert abs(o[3][0] - 3.9) < 0.05 and o[4][0] == np.float32(1.2) * o[3][0]
    assert abs(o[3][0] - tp._p195_et_ref(*h[:3], 1, 1, *h[7:])[0][0]) < 1e-5


# ---- irrig-sched-argmax ----

def test_irrig_search():
    n = 6
    host, out, syms, _ = launch("probe/irrig-sched-argmax", n)
    P = tp._p195_ir_ref(*host[:3])
    best = P.max(axis=1)
    # float32 against float64: 120 days of depletion, 4 stage ratios, a product: ~1e-6 relative
    tol = 1e-5 * best
    assert (np.abs(out[4] - best) <= tol).all()
    assert (P[np.arange(n), out[3]] >= best - tol).all() and len(set(out[3])) > 1
    assert (np.sort(P, axis=1)[:, -2] < best - tol).any() and (out[3] == P.argmax(axis=1)).all()
    # hand-made fields: rain every day and nothing to pay (all 256 schedules tie: the lowest
    # wins), the same paying for water (no irrigation), no rain and a dry, shallow soil (the
    # early applications pay, the late ones, in stages of low Ky, not all)
    f = host[0].reshape(n, 7)[:3].copy()
    f[:, 6] = [0, 20, 20]
    f[2, :3] = [60, 0.55, 60]
    rain = np.zeros((3, 120), np.float32)
    rain[:2] = 10
    h = [f.ravel(), host[1][:360].copy(), rain.ravel(), np.zeros(3, np.int32), np.zeros(3, np.float32)]
    o = run("probe/irrig-sched-argmax", h, 3, symbols=syms)
    P = tp._p195_ir_ref(*h[:3])
    assert list(o[3]) == [0, 0, P[2].argmax()] and (o[4][:2] == f[:2, 5] * f[:2, 3]).all()
    assert (P[0] == P[0, 0]).all() and abs(o[4][2] - P[2].max()) <= 1e-5 * P[2].max()
    assert bin(o[3][2]).count("1") >= 4 and o[3][2] & 1


def test_irrig_search_random(monkeypatch):
    # the shared-memory argmax under the random schedule: one field, its first 64 schedules
    pid = "probe/irrig-sched-argmax"
    monkeypatch.setitem(tp._BY_ID, pid, dataclasses.replace(tp.get(pid), block=64))
    host, out, *_ = launch(pid, 1, seed=3, policy="random")
    P = tp._p195_ir_ref(*host[:3])[:, :64]
    assert out[3][0] == P.argmax() and abs(out[4][0] - P.max()) <= 1e-5 * P.max()
    assert np.sort(P[0])[-2] < P.max() - 1e-5 * P.max()
