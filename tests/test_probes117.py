"""probe-unseen115's kernels (kernels_cuda/probes117.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/landsat-ndvi-ndwi-cover", "probe/cloud-buffer-dilate-smem", "probe/zonal-ndvi-smem-atomics",
       "probe/dem-reproject-bilinear", "probe/mlc-mahalanobis-const", "probe/cva-change-list-atomic"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen115"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes117.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 18
    assert tp._p117_shape(1 << 24) == (4096, 4096) and tp._p117_shape(1 << 23) == (2048, 4096)
    assert tp._p117_shape(3000) == (47, 64)
    # spectral indices: ~26% fill (all four bands 0), whole warps mostly; covers in patches
    g, r, nr, s, vi, wi, cov, scale, offset, nn = tp._p117_si_args(n, rng)
    assert all(a.dtype == np.uint16 for a in (g, r, nr, s)) and nn == n and scale == np.float32(2.75e-5)
    fill = g == 0
    assert ((r == 0) == fill).all() and ((nr == 0) == fill).all() and ((s == 0) == fill).all()
    assert 0.2 < fill.mean() < 0.32
    warps = fill.reshape(-1, 32)
    assert (warps.any(axis=1) & ~warps.all(axis=1)).mean() < 0.15             # 512 wide; ~3% at 4096
    rho = nr[~fill] * float(scale) + float(offset)
    assert 0 < rho.min() and rho.max() < 0.6
    c = tp._p117_si_ref(g, r, nr, s)[2]
    shares = np.bincount(c, minlength=5)[1:] / (~fill).sum()
    assert (shares > 0.08).all() and shares.sum() == 1
    # clouds: ~22% cloud, a few % buffer; snow bright and cold but not white
    m = 256
    b, rd, sw, bt, mask, w, h = tp._p117_cm_args(m, rng)
    assert b.dtype == np.float32 and len(b) == m * m and w == h == m
    cloud, gap = tp._p117_cloud_test(b, rd, sw, bt)
    assert 0.15 < cloud.mean() < 0.3 and gap > 1e-6
    ref = tp._p117_cm_ref(b, rd, sw, bt, m, m)
    assert 0.01 < (ref == 1).mean() < 0.08
    snow = (b > 0.45) & (bt < 275) & (sw < 0.1)
    assert snow.mean() > 0.01 and not cloud[snow].any()
    # zonal: 64 districts, ~15% outside, ~5% cloud fill, most warps on one district
    v, z, zs, zq, zc, nn = tp._p117_zs_args(n, rng)
    assert v.dtype == np.float32 and z.dtype == np.int32 and zc.dtype == np.uint32 and len(zs) == 64
    assert abs((z < 0).mean() - 0.15) < 0.03 and abs((v == -9999).mean() - 0.05) < 0.02
    ok = v != -9999
    assert np.abs(v[ok]).max() <= 1 and set(np.unique(z)) == set(range(-1, 64))
    zw = z.reshape(-1, 32)
    assert (zw == zw[:, :1]).all(axis=1).mean() > 0.4                        # 512 wide; ~83% at 2048
    assert tp._p117_zs_grid(1 << 22) == 1024 and tp._p117_zs_grid(20000) == 5
    # reproject: dyadic transform, the centre onto the centre, ~1% of the output outside
    gt = tp._p117_rp_gt(4096)
    assert (gt * 64 == np.round(gt * 64)).all() and gt[0] == -128 and gt[3] == 768
    assert gt[0] + (gt[1] + gt[2]) * 2048 == 2048 and gt[3] + (gt[4] + gt[5]) * 2048 == 2048
    src, sw_, sh_, dst, dw, dh, nod = tp._p117_rp_args(128, rng)
    assert src.dtype == np.float32 and 100 < src.min() and src.max() < 1800 and nod == -9999
    out = tp._p117_rp_ref(src, 128, 128, 128, 128, tp._p117_rp_gt(128))
    assert 0.003 < (out == -9999).mean() < 0.03
    # MLC: symmetric positive definite covariances, ~3% outliers rejected, all classes drawn
    mean, cov, icov, logdet = tp._p117_mlc_stats()
    assert (np.linalg.eigvalsh(cov) > 0).all() and np.allclose(cov, cov.transpose(0, 2, 1))
    syms = tp._p117_mlc_syms(n, rng)
    assert syms["c_icov"].dtype == np.float32 and len(syms["c_icov"]) == 16 * 36 and len(syms["c_logdet"]) == 16
    img, lab, dist, rej, nn = tp._p117_mlc_args(n, rng)
    assert len(img) == 6 * n and rej == np.float32(22.458)
    lab, mb, gap, rgap = tp._p117_mlc_ref(img, syms)
    assert 0.02 < (lab == 255).mean() < 0.05 and (np.bincount(lab)[:16] > 0.04 * n).all()
    assert 5 < mb[lab != 255].mean() < 7                                     # chi-square, 6 dof: mean 6
    assert (gap < 1e-2).mean() < 1e-4
    # CVA: ~5% changed, all four types, date 2 normalised back onto date 1 elsewhere
    t1, t2, gain, bias, th, ct, lst, cnt, nn = tp._p117_cva_args(n, rng)
    assert t1.dtype == np.float32 and len(t1) == 4 * n and len(lst) == n and cnt[0] == 0
    typ, dm, de = tp._p117_cva_ref(t1, t2, gain, bias)
    assert 0.03 < (typ > 0).mean() < 0.07 and (np.bincount(typ, minlength=5)[1:] > 0.005 * n).all()
    d = (t2.reshape(4, n) * gain[:, None] + bias[:, None] - t1.reshape(4, n))[:, typ == 0]
    assert np.abs(d.mean(axis=1)).max() < 1e-3 and 0.012 < d.std() < 0.016


# ---- landsat-ndvi-ndwi-cover ----

def test_spectral_indices():
    n = 3000                                                # 12 blocks, the last partial
    host, (g, r, nr, s, vi, wi, cov, *_), *_ = launch("probe/landsat-ndvi-ndwi-cover", n)
    rvi, rwi, rc, gap = tp._p117_si_ref(*host[:4])
    np.testing.assert_allclose(vi, rvi, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(wi, rwi, rtol=1e-6, atol=1e-7)
    assert (cov == rc).all() and set(np.unique(cov)) == {0, 1, 2, 3, 4}


def test_spectral_indices_fill_edges():
    # one band's DN 0 makes a pixel fill; DN 1 (reflectance -0.19997) does not
    rng = np.random.default_rng(3)
    n = 256
    host = tp._p117_si_args(n, rng)
    for b in range(4):
        host[b][:] = np.maximum(host[b], 9000)              # no footprint fill
    for b in range(4):
        host[b][b] = 0
    host[3][10] = 1
    out = run("probe/landsat-ndvi-ndwi-cover", host, n)
    rvi, rwi, rc, _ = tp._p117_si_ref(*host[:4])
    assert (out[6][:4] == 0).all() and (out[4][:4] == -9999).all() and (out[5][:4] == -9999).all()
    assert (out[6][4:] != 0).all() and out[6][10] == rc[10]
    assert (out[6] == rc).all() and np.allclose(out[4], rvi, rtol=1e-6)


# ---- cloud-buffer-dilate-smem ----

@pytest.mark.parametrize("m", [96, 130])
def test_cloud_mask_dilate(m):
    host, (b, r, s, t, mask, w, h), *_ = launch("probe/cloud-buffer-dilate-smem", m)
    ref = tp._p117_cm_ref(*host[:4], m, m)
    assert (mask == ref).all() and set(np.unique(ref)) == {0, 1, 2}


def test_cloud_mask_single_pixels():
    # isolated cloud pixels at the corners and inside: a 5 x 5 buffer, clipped at the edges
    m = 40
    f = np.float32
    host = [np.full(m * m, 0.05, f), np.full(m * m, 0.06, f), np.full(m * m, 0.1, f), np.full(m * m, 300, f),
            np.zeros(m * m, np.uint8), np.int32(m), np.int32(m)]
    for y, x in [(0, 0), (39, 39), (17, 15), (20, 33)]:
        p = y * m + x
        host[0][p], host[1][p], host[2][p], host[3][p] = 0.4, 0.42, 0.35, 270
    out = run("probe/cloud-buffer-dilate-smem", host, m)[4]
    ref = tp._p117_cm_ref(*host[:4], m, m)
    assert (out == ref).all() and (out == 2).sum() == 4 and (out == 1).sum() == 8 + 8 + 24 + 24


# ---- zonal-ndvi-smem-atomics ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_zonal_stats(policy):
    n = 20000                                               # 5 blocks, the last partial, 16 pixels a thread
    host, (v, z, zs, zq, zc, nn), *_ = launch("probe/zonal-ndvi-smem-atomics", n, policy=policy)
    s, q, c = tp._p117_zs_ref(host[0], host[1])
    assert (zc == c).all() and c.sum() > 0.7 * n
    np.testing.assert_allclose(zs, s, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(zq, q, rtol=1e-4, atol=1e-3)


# ---- dem-reproject-bilinear ----

@pytest.mark.parametrize("m", [40, 72])
def test_reproject_bilinear(m):
    host, (src, sw, sh, dst, *_), syms, _ = launch("probe/dem-reproject-bilinear", m)
    ref = tp._p117_rp_ref(host[0], m, m, m, m, syms["c_gt"])
    assert ((dst == -9999) == (ref == -9999)).all() and (ref == -9999).any()
    np.testing.assert_allclose(dst, ref, rtol=0, atol=2e-3)


def test_reproject_identity_shift():
    # a pure shift by (+3.25, -1.5) pixels of a ramp: bilinear is exact on a linear field
    m = 40
    host = tp._p117_rp_args(m, np.random.default_rng(1))
    y, x = np.mgrid[0:m, 0:m]
    host[0] = (2.0 * x + 5.0 * y).astype(np.float32).ravel()
    gt = np.array([3.25, 1, 0, -1.5, 0, 1], np.float32)
    out = run("probe/dem-reproject-bilinear", host, m, symbols={"c_gt": gt})[3].reshape(m, m)
    ok = (x + 3 + 1 < m) & (y - 2 >= 0)                   # floor(u) + 1 inside, floor(v) >= 0
    assert ((out == -9999) == ~ok).all()
    np.testing.assert_allclose(out[ok], (2.0 * (x + 3.25) + 5.0 * (y - 1.5))[ok], rtol=0, atol=1e-4)


# ---- mlc-mahalanobis-const ----

def test_mlc_classify():
    n = 500                                                 # 2 blocks, the last partial
    host, (img, lab, dist, *_), syms, _ = launch("probe/mlc-mahalanobis-const", n)
    rl, rm, gap, rgap = tp._p117_mlc_ref(host[0], syms)
    sure = (gap > 1e-3) & (rgap > 1e-3)
    assert sure.mean() > 0.99 and (lab[sure] == rl[sure]).all()
    np.testing.assert_allclose(dist, rm, rtol=1e-4, atol=1e-4)
    assert (lab == 255).any() and len(set(lab.tolist())) > 10


def test_mlc_class_means_and_far_pixels():
    # a pixel at each class's mean (distance 0 to it) and pixels far from all (255)
    n = 64
    rng = np.random.default_rng(4)
    host = tp._p117_mlc_args(n, rng)
    syms = tp._p117_mlc_syms(n, rng)
    x = host[0].reshape(6, n)
    x[:, :16] = syms["c_mean"].reshape(16, 6).T
    x[:, 16:20] = 5.0
    out = run("probe/mlc-mahalanobis-const", host, n, symbols=syms)
    rl, rm, gap, _ = tp._p117_mlc_ref(host[0], syms)
    assert (out[1] == rl).all() and (out[1][16:20] == 255).all()
    np.testing.assert_allclose(out[2], rm, rtol=1e-4, atol=1e-4)
    own = rl[:16] == np.arange(16)
    assert own.sum() >= 12 and (out[2][:16][own] < 1e-4).all()


# ---- cva-change-list-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_cva_change(policy):
    n = 3000
    host, (t1, t2, gain, bias, th, typ, lst, cnt, nn), *_ = launch("probe/cva-change-list-atomic", n,
                                                                    policy=policy)
    rt, dm, de = tp._p117_cva_ref(*host[:4])
    assert dm.min() > 1e-6 and de.min() > 1e-4
    assert (typ == rt).all() and set(np.unique(rt)) == {0, 1, 2, 3, 4}
    k = int(cnt[0])
    assert k == (rt > 0).sum() and (np.sort(lst[:k]) == np.flatnonzero(rt)).all() and (lst[k:] == 0).all()
