"""probe-unseen137's kernels (kernels_cuda/probes139.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/lidar-voxel-atomic", "probe/lidar-knn-smem-tiles", "probe/lidar-normal-pca", "probe/lidar-fps-block",
       "probe/lidar-ransac-plane", "probe/lidar-range-image"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen137"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes139.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    s = tp._p139_scan(256, rng)
    assert s.shape == (256 * 64, 3)
    r = np.hypot(s[:, 0], s[:, 1])
    assert r.max() < 30.5 and np.abs(s).max() < 32 and -1.8 < s[:, 2].min() and s[:, 2].max() < 1.7
    ground = np.abs(s[:, 2] + tp.P139_SENSOR_H) < 0.05
    assert 0.5 < ground.mean() < 0.7 and (s[:, 2] > -1.5).mean() > 0.3          # ground, facades and cars
    assert (r[~ground] < 20).mean() > 0.02                                        # car sides
    # voxel: a few points cropped (above the box), hundreds on the busiest voxels
    n = 1 << 16
    a = tp._p139_voxel_args(n, rng)
    assert a[0].dtype == np.float32 and len(a[0]) == 3 * n and len(a[2]) == 256 * 256 * 16 and a[-1] == n
    v = tp._p139_voxel_ids(a[0])
    c = np.bincount(v[v >= 0])
    assert 0 < (v < 0).mean() < 0.01 and c.max() > 30 and (c > 0).sum() > 5000
    # knn: quantized queries and references, distinct references
    q, nq, ref, nr, idx, d2 = tp._p139_knn_args(1000, rng)
    assert nq == 1000 and nr == tp.P139_KNN_NR and len(ref) == 3 * nr
    assert (q * 16 == np.round(q * 16)).all() and (ref * 16 == np.round(ref * 16)).all()
    assert len(np.unique(ref.reshape(-1, 3), axis=0)) > 0.99 * nr
    # normals: the 4 x 4 windows, the point itself among them, mostly planar patches
    p, nbr, *_ = tp._p139_normal_args(64 * 128, rng)
    nb = nbr.reshape(-1, 16)
    assert nb.dtype == np.int32 and nb.min() == 0 and nb.max() == 64 * 128 - 1
    assert (nb == np.arange(len(nb))[:, None]).any(axis=1).all()
    _, curv, w = tp._p139_normal_ref(p, nbr)
    assert np.median(curv) < 0.005 and (curv > 0.01).mean() > 0.01                # edges at the cars and walls
    # fps: clouds of 4096 quantized points
    f = tp._p139_fps_args(1 << 13, rng)
    assert len(f[0]) == 3 * 8192 and len(f[2]) == 2 * tp.P139_FPS_M and (f[0] * 16 == np.round(f[0] * 16)).all()
    # ransac: the best hypothesis is the ground
    rs = tp._p139_ransac_args(1 << 12, rng)
    planes, cnt, ids = tp._p139_ransac_ref(rs[0], 1 << 12)
    b = int(np.argmax(cnt))
    assert abs(planes[b, 2]) > 0.99 and abs(abs(planes[b, 3]) - tp.P139_SENSOR_H) < 0.05
    assert 0.45 < cnt[b] / tp.P139_RS_NP < 0.75 and np.median(cnt) < 0.2 * cnt[b]
    # range image: float4 points, the image at FLT_MAX
    ra = tp._p139_range_args(64 * 4096, rng)
    x = ra[0].reshape(-1, 4)
    assert x.dtype == np.float32 and len(x) == 64 * 4096 and (ra[1] == 0x7f7fffff).all() and ra[4] == 64
    img, bad = tp._p139_range_ref(ra[0])
    assert np.isfinite(img).all() and bad.mean() < 0.05                           # 2 sweeps fill every pixel


# ---- lidar-voxel-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_voxel(policy):
    n = 3000                                                 # 12 blocks, the last partial
    host, (pts, vsum, vcount, *_), *_ = launch("probe/lidar-voxel-atomic", n, policy=policy)
    sums, cnt = tp._p139_voxel_ref(host[0])
    assert (vcount == cnt).all() and cnt.sum() < n and cnt.max() > 3
    np.testing.assert_allclose(vsum.reshape(-1, 3), sums, rtol=1e-5, atol=1e-4)


# ---- lidar-knn-smem-tiles ----

def test_knn():
    # 300 references (the probe's 2048 are slow in the emulator): 2 tiles, the last partial
    rng = np.random.default_rng(3)
    n = 300
    host = tp._p139_knn_args(n, rng)
    host[2] = host[2][:3 * 300].copy()
    host[3] = np.int32(300)
    host[0][3:6] = host[2][30:33]                            # a query on a reference (distance 0)
    host[0][6:9] = host[0][9:12]                             # two equal queries
    out = run("probe/lidar-knn-smem-tiles", host, n)
    o, d = tp._p139_knn_ref(host[0], host[2])
    idx, d2 = out[4].reshape(n, 8), out[5].reshape(n, 8)
    assert (idx == o).all() and (d2 == d).all()
    assert idx[1, 0] == 10 and d2[1, 0] == 0 and (idx[2] == idx[3]).all()
    assert (np.diff(d2, axis=1) >= 0).all() and (d[:, :-1] == d[:, 1:]).any()        # ties met


# ---- lidar-normal-pca ----

def test_normal_pca():
    n = 64 * 64                                              # 16 blocks
    host, (pts, nbr, nrm, curv, _), *_ = launch("probe/lidar-normal-pca", n)
    ref, cref, w = tp._p139_normal_ref(host[0], host[1])
    nrm = nrm.reshape(-1, 3)
    p = host[0].reshape(-1, 3)
    assert np.abs(np.linalg.norm(nrm, axis=1) - 1).max() < 1e-5
    assert ((nrm * p).sum(axis=1) <= 0).all()                # toward the sensor
    good = (w[:, 1] - w[:, 0]) > 0.05 * w[:, 2]                # a well separated smallest eigenvalue
    assert good.mean() > 0.5
    assert np.abs((nrm * ref).sum(axis=1))[good].min() > 0.999
    flat = good & (np.abs(ref[:, 2]) > 0.99) & (np.abs((ref * p).sum(axis=1)) > 0.5)
    assert flat.sum() > n / 4 and ((nrm * ref).sum(axis=1)[flat] > 0.999).all()          # same orientation
    np.testing.assert_allclose(curv, cref, rtol=0, atol=2e-4)


# ---- lidar-fps-block ----

def test_fps():
    # 2 clouds of 512 points, 40 samples each (the probe's 4096 and 256 are slow in the
    # emulator); the grid of 8192 // FPS_N = 2 blocks
    rng = np.random.default_rng(4)
    N, m = 512, 40
    s = tp._p139_quant(tp._p139_scan(64, rng))
    pts = np.concatenate([s[rng.choice(len(s), N, replace=False)] for _ in range(2)])
    pts[N + 7] = pts[N + 3]                                  # a repeated point
    host = [pts.ravel(), np.zeros(2 * N, np.float32), np.zeros(2 * m, np.int32), np.int32(N), np.int32(m)]
    out = run("probe/lidar-fps-block", host, 2 * tp.P139_FPS_N)
    idx, dist = tp._p139_fps_ref(host[0], N, m)
    assert (out[2].reshape(2, m) == idx).all()
    assert (out[1].reshape(2, N) == dist).all()
    assert all(len(set(r)) == m for r in idx) and (idx[:, 0] == 0).all()


# ---- lidar-ransac-plane ----

def test_ransac():
    # 600 points (3 tiles, the last partial; the probe's 4096 are slow in the emulator),
    # 300 hypotheses (2 blocks, the last partial)
    rng = np.random.default_rng(5)
    n = 300
    host = tp._p139_ransac_args(n, rng)
    host[0] = host[0][:3 * 600].copy()
    host[1] = np.int32(600)
    out = run("probe/lidar-ransac-plane", host, n)
    pl, cnt = out[4].reshape(n, 4), out[5]
    p64, c64, ids = tp._p139_ransac_ref(host[0], n, dtype=np.float64)
    p32, c32, _ = tp._p139_ransac_ref(host[0], n, dtype=np.float32)
    sure = c32 == c64                                        # rounding moves no point across thr
    assert sure.mean() > 0.95 and (cnt[sure] == c64[sure]).all() and (np.abs(cnt - c64) <= 2).all()
    ok = c64 > 0
    sign = np.sign((pl[ok, :3] * p64[ok, :3]).sum(axis=1))
    assert (sign > 0).all()
    np.testing.assert_allclose(pl[ok], p64[ok], rtol=0, atol=2e-3)
    assert cnt.max() > 300 and (cnt[~ok] == 0).all() and (pl[~ok] == 0).all()


def test_ransac_degenerate():
    # all points on one line: every hypothesis degenerate, no inliers, planes zero
    n = 40
    t = np.arange(-150, 150) / 32.0                          # products exact: the cross products 0
    pts = np.stack([t, 2 * t, np.full_like(t, -1.73)], 1).astype(np.float32)
    pts[::3] = pts[5]                                        # and repeated points
    host = [pts.ravel(), np.int32(300), np.float32(0.1), np.uint32(tp.P139_RS_SEED), np.ones(4 * n, np.float32),
            np.ones(n, np.int32), np.int32(n)]
    out = run("probe/lidar-ransac-plane", host, n)
    assert (out[4] == 0).all() and (out[5] == 0).all()


# ---- lidar-range-image ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_range_image(policy):
    rng = np.random.default_rng(6)
    n = 64 * 300                                             # 75 blocks, 300 columns of one sweep
    host = tp._p139_range_args(n, rng)
    x = host[0].reshape(-1, 4)
    x[0, :3] = 0.0                                           # no return: skipped
    x[1, :3] = [0.5, 0.0, 5.0]                               # above the field of view: row 0, column W/2
    x[2, :3] = [-3.0, -1e-6, -0.5]                           # yaw just under -pi: the last column
    out = run("probe/lidar-range-image", host, n, policy=policy)
    img = out[1].view(np.float32).astype(np.float64)
    ref, bad = tp._p139_range_ref(host[0])
    full = np.isfinite(ref)
    assert bad.mean() < 0.02 and 64 * 40 < full.sum() < 64 * 400
    assert (out[1][~full & ~bad] == 0x7f7fffff).all()
    np.testing.assert_allclose(img[full & ~bad], ref[full & ~bad], rtol=3e-7, atol=0)
    W = tp.P139_RI_W
    row = int((np.deg2rad(3.0) - np.arcsin(-0.5 / np.sqrt(9.25))) / np.deg2rad(28.0) * 64)
    assert img[W // 2] == np.float32(np.sqrt(25.25)) and row == 28
    np.testing.assert_allclose(img.reshape(64, W)[row, W - 1], np.sqrt(9.25), rtol=1e-6)
