"""probe-unseen65's kernels (kernels_cuda/probes67.cu) give numpy's (or plain Python's)
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/pf-landmark-weight", "probe/pf-systematic-resample", "probe/occgrid-bresenham-atomic",
       "probe/icp-nn-shared", "probe/voxel-downsample-atomic", "probe/fk-jacobian-7dof"]
F32 = np.float32


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen65"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes67.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 16
    px, py, pth = tp._u65_particles(n, rng)
    assert px.dtype == np.float32 and abs(px.mean() - 8.0) < 0.01 and abs(py.std() - 0.15) < 0.01
    assert np.abs(pth).max() <= np.pi and abs(pth.mean() - 0.7) < 0.01
    sym = tp._u65_pf_symbols(n, rng)
    assert all(len(v) == tp.U65_PF_LM and v.dtype == np.float32 for v in sym.values())
    assert (sym["c_z_r"] > 0).all() and np.abs(sym["c_z_b"]).max() <= np.pi
    cdf = tp._u65_rs_args(n, rng)[0].astype(np.float64)
    w = np.diff(np.r_[0.0, cdf])
    assert (w >= 0).all() and abs(cdf[-1] - 1) < 1e-6 and 0.06 < 1 / (w ** 2).sum() / n < 0.11
    hit, org = tp._u65_og_scans(3 * tp.U65_OG_BEAMS, rng)
    hit, org = hit.reshape(-1, 2), org.reshape(-1, 2)
    assert len(org) == 3 and (np.abs(hit) <= np.array(tp.U65_OG_ROOM) + 0.05).all()
    r = np.hypot(*(hit - np.repeat(org, tp.U65_OG_BEAMS, 0)).T)
    assert 1.0 < r.min() and r.max() < 25 and 4 < r.mean() < 9
    assert (np.abs(hit) > np.array(tp.U65_OG_ROOM) - 0.05).any(1).mean() > 0.5   # most beams end on a wall
    pts = tp._u65_room_cloud(n, rng)
    assert pts.shape == (n, 3) and (pts.min(0) > [-4.05, -3.05, -0.05]).all()
    assert (pts.max(0) < [4.05, 3.05, 2.55]).all()
    assert 0.35 < (np.abs(pts[:, 2]) < 0.03).mean() < 0.45                      # the floor: 48 of 123 m^2
    lo, dims = tp._u65_vox_grid(pts)
    assert (lo == pts.min(0)).all() and dims[0] in (161, 162) and dims[1] in (121, 122) and dims[2] in (51, 52)
    q = tp._u65_fk_args(n, rng)[0].reshape(n, 7)
    lim = np.radians(tp.U65_FK_LIMITS)
    assert (np.abs(q) <= lim).all() and (np.abs(q).max(0) > lim - 0.01).all()
    dh = tp._u65_fk_symbols(n, rng)
    assert set(np.abs(dh["c_dh_ca"])) <= {0, 1} and (dh["c_dh_ca"] ** 2 + dh["c_dh_sa"] ** 2 == 1).all()


# ---- pf-landmark-weight ----

def pf_ref(px, py, pth, sym, ivr, ivb):
    """The particles' weights in float64."""
    dx = sym["c_lm_x"][None, :].astype(np.float64) - px[:, None]
    dy = sym["c_lm_y"][None, :].astype(np.float64) - py[:, None]
    er = sym["c_z_r"][None, :] - np.hypot(dx, dy)
    eb = tp._u65_wrap(sym["c_z_b"][None, :] - (np.arctan2(dy, dx) - pth[:, None]))
    return np.exp(-0.5 * (er * er * float(ivr) + eb * eb * float(ivb)).sum(1))


@pytest.mark.parametrize("policy,n", [("lockstep", 1000), ("random", 200)])   # the last block partial
def test_pf_landmark_weight(policy, n):
    host, (px, py, pth, w, wsum, ivr, ivb, nn), sym, _ = launch("probe/pf-landmark-weight", n, policy=policy)
    assert nn == n and ivr == F32(25) and ivb == F32(400)
    ref = pf_ref(px, py, pth, sym, ivr, ivb)
    assert np.allclose(w, ref, rtol=1e-3, atol=1e-40) and (ref < 1e-30).mean() < 0.05 and (ref > 1e-3).any()
    assert np.isclose(wsum[0], w.astype(np.float64).sum(), rtol=1e-5) and np.isclose(wsum[0], ref.sum(), rtol=1e-4)


def test_pf_weight_edge_cases():
    rng = np.random.default_rng(3)
    sym = tp._u65_pf_symbols(64, rng)
    x0, y0, t0 = tp.U65_PF_POSE
    # noise-free measurements from the true pose (landmarks all around it: bearings near +-pi)
    lx, ly = sym["c_lm_x"].astype(np.float64), sym["c_lm_y"].astype(np.float64)
    sym["c_z_r"] = np.hypot(lx - x0, ly - y0).astype(F32)
    sym["c_z_b"] = tp._u65_wrap(np.arctan2(ly - y0, lx - x0) - t0).astype(F32)
    assert np.abs(sym["c_z_b"]).max() > 2.8
    # the true pose, its heading +-2 pi (each bearing wrapped once more), far off, and random
    n = 70
    px, py, pth = tp._u65_particles(n, rng)
    px[:4] = x0
    py[:4] = y0
    pth[:4] = [t0, t0 - 2 * np.pi, t0 + 2 * np.pi, t0 + np.pi]
    px[4] = x0 + 5.0
    host = [px, py, pth, np.zeros(n, F32), np.full(1, 0.5, F32), F32(25), F32(400), np.int32(n)]
    out = run("probe/pf-landmark-weight", host, n, policy="random", symbols=sym)
    w = out[3]
    assert np.allclose(w[:3], 1.0, atol=1e-4) and w[3] == 0 and w[4] == 0
    assert np.allclose(w, pf_ref(px, py, pth, sym, 25, 400), rtol=1e-3, atol=1e-40)
    assert np.isclose(out[4][0], 0.5 + w.astype(np.float64).sum(), rtol=1e-5)


# ---- pf-systematic-resample ----

def resample_ref(cdf, u0, n):
    u = (F32(u0) + np.arange(n, dtype=F32)) / F32(n)                 # float32, as the kernel
    assert u.dtype == np.float32
    return np.minimum(np.searchsorted(cdf, u, side="left"), n - 1)


def test_pf_systematic_resample():
    n = 1000                                                # 4 blocks, the last partial
    host, (cdf, px, py, pth, qx, qy, qth, par, u0, nn), *_ = launch("probe/pf-systematic-resample", n)
    ref = resample_ref(cdf, u0, n)
    assert (par == ref).all() and (qx == px[ref]).all() and (qy == py[ref]).all() and (qth == pth[ref]).all()
    assert (np.diff(par) >= 0).all() and 0.05 < len(np.unique(par)) / n < 0.2


def test_resample_edge_cases():
    rng = np.random.default_rng(4)
    # zero weights (repeated CDF values), a CDF short of 1 (the last particles clamped), u0 = 0
    # (the first u is 0: particle 0 even at weight 0) and u0 just below 1; a CDF past 1 (the
    # last particles never drawn)
    got = []
    for cdf, u0 in [([0, 0, 0.5, 0.5, 0.9, 0.9], 0.0), ([0, 0, 0.5, 0.5, 0.9, 0.9], 0.99),
                    ([1, 1, 1], 0.5), ([0.25], 0.3), (np.cumsum(rng.random(300)) / 100, 0.123)]:
        cdf = np.asarray(cdf, F32)
        n = len(cdf)
        p = [rng.random(n).astype(F32) for _ in range(3)]
        host = [cdf, *p, np.zeros(n, F32), np.zeros(n, F32), np.zeros(n, F32), np.full(n, -7, np.int32),
                F32(u0), np.int32(n)]
        out = run("probe/pf-systematic-resample", host, n, policy="random")
        ref = resample_ref(cdf, u0, n)
        assert (out[7] == ref).all() and all((out[4 + k] == p[k][ref]).all() for k in range(3))
        got.append(out[7].tolist())
    assert got[0] == [0, 2, 2, 2, 4, 4] and got[1] == [2, 2, 2, 4, 4, 5] and got[2] == [0, 0, 0] and got[3] == [0]
    assert max(got[4]) < 210


# ---- occgrid-bresenham-atomic ----

def bresenham(x0, y0, x1, y1):
    """The cells before (x1, y1) on Bresenham's line from (x0, y0)."""
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
    err, cells = dx + dy, []
    while (x0, y0) != (x1, y1):
        cells.append((x0, y0))
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy
    return cells


def og_ref(hit, org, beams, ox, oy, inv, w, h, n):
    """The grid after the n beams, and the cells each beam passed (None: dropped)."""
    hit, org = hit.reshape(-1, 2)[:n], org.reshape(-1, 2)
    s = org[np.arange(n) // beams]
    fl = lambda p: np.floor((p - np.array([ox, oy], F32)) * F32(inv)).astype(np.int64)   # noqa: E731
    c0, c1 = fl(s), fl(hit)
    assert ((s - np.array([ox, oy], F32)) * F32(inv)).dtype == np.float32
    grid = np.zeros((h, w), np.int64)
    paths = []
    for (x0, y0), (x1, y1) in zip(c0.tolist(), c1.tolist()):
        if not (0 <= x0 < w and 0 <= y0 < h and 0 <= x1 < w and 0 <= y1 < h):
            paths.append(None)
            continue
        cells = bresenham(x0, y0, x1, y1)
        for x, y in cells:
            grid[y, x] += tp.U65_OG_FREE
        grid[y1, x1] += tp.U65_OG_OCC
        paths.append(cells)
    return grid.ravel(), paths


def test_occgrid_bresenham_atomic():
    n = tp.U65_OG_BEAMS + 300                               # two scans, the second partial; 6 blocks
    host, out, *_ = launch("probe/occgrid-bresenham-atomic", n)
    hit, org, grid, beams, ox, oy, inv, w, h, nn = out
    assert nn == n and beams == 1024 and len(org) == 4 and w == h == 1024 and inv == F32(20) and ox == F32(-25.6)
    ref, paths = og_ref(hit, org, beams, ox, oy, inv, w, h, n)
    assert (grid == ref).all()
    lens = np.array([len(p) for p in paths])
    assert 60 < lens.mean() < 200 and (grid > 0).sum() > 500 and grid.min() < -200      # cells near the sensors


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_occgrid_small_scenes(policy):
    # a 16 x 12 grid of 0.5 m cells from (-2, -1): 3 scans of 5 beams, every octant, a beam
    # ending in its sensor's cell, one ending outside the grid, a scan from outside it
    org = np.array([[1.3, 2.2], [4.9, 3.7], [-2.5, 0.0]], F32)
    hit = np.array([[5.9, 2.4], [1.4, 4.8], [-1.9, -0.9], [1.45, 2.05], [1.0, -0.6],
                    [-1.2, 4.4], [5.5, -0.8], [4.6, 3.9], [5.8, 4.9], [6.5, 3.0],
                    [0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]], F32)
    n = len(hit)
    host = [hit.ravel(), org.ravel(), np.zeros(16 * 12, np.int32), np.int32(5), F32(-2), F32(-1), F32(2),
            np.int32(16), np.int32(12), np.int32(n)]
    out = run("probe/occgrid-bresenham-atomic", host, n, policy=policy)
    ref, paths = og_ref(hit, org, 5, F32(-2), F32(-1), F32(2), 16, 12, n)
    assert (out[2] == ref).all()
    assert [p is None for p in paths] == [False] * 9 + [True] * 6 and len(paths[3]) == 0
    assert out[2].sum() == 9 * tp.U65_OG_OCC + tp.U65_OG_FREE * sum(len(p) for p in paths[:9])


# ---- icp-nn-shared ----

def ffma(a, b, c):
    """float32 a * b + c rounded once (but for a double rounding at 2^-29 odds): a
    contracted multiply-add (nvcc -fmad=true, as the emulator does)."""
    return (a.astype(np.float64) * b + c).astype(F32)


def nn_ref(src, dst):
    """Nearest target (first of equals) and its squared distance, in float32 as the
    emulator computes it: dx * dx + dy * dy + dz * dz contracted to fma(dz, dz, fma(dx, dx,
    dy * dy))."""
    dx, dy, dz = (dst[None, :, k] - src[:, None, k] for k in range(3))
    d = ffma(dz, dz, ffma(dx, dx, dy * dy))
    assert d.dtype == np.float32
    k = d.argmin(1)
    return k, d[np.arange(len(src)), k]


def test_icp_nn_shared():
    n = 600                                                 # 3 blocks, the last partial; 3 tiles
    host, (src, nn, dst, m, idx, d2), *_ = launch("probe/icp-nn-shared", n)
    assert nn == m == n
    k, d = nn_ref(src.reshape(-1, 3), dst.reshape(-1, 3))
    assert (idx == k).all() and (d2 == d).all()
    assert 0.01 < np.sqrt(d).mean() < 0.5


def test_icp_edge_cases():
    rng = np.random.default_rng(5)
    # fewer targets than a tile (random schedule); three tiles of targets, the first 300
    # twice (ties: the first) and one at a source point
    for n, m, policy in [(70, 100, "random"), (40, 700, "lockstep")]:
        src = rng.random((n, 3)).astype(F32)
        dst = rng.random((m, 3)).astype(F32)
        if m > 300:
            dst[300:600] = dst[:300]
            dst[650] = src[3]
        host = [src.ravel(), np.int32(n), dst.ravel(), np.int32(m), np.zeros(n, np.int32), np.zeros(n, F32)]
        out = run("probe/icp-nn-shared", host, n, policy=policy)
        k, d = nn_ref(src, dst)
        assert (out[4] == k).all() and (out[5] == d).all()
    assert out[4][3] == 650 and out[5][3] == 0 and (k < 300).sum() > 15 and not ((k >= 300) & (k < 600)).any()
    # no targets: -1 and FLT_MAX
    out = run("probe/icp-nn-shared", [src.ravel(), np.int32(n), dst.ravel(), np.int32(0), np.zeros(n, np.int32),
                                      np.zeros(n, F32)], n)
    assert (out[4] == -1).all() and (out[5] == np.finfo(F32).max).all()


# ---- voxel-downsample-atomic ----

def vox_ref(pts, lo, inv, dims):
    g = np.floor((pts - lo.astype(F32)) * F32(inv)).astype(np.int64)
    assert ((pts - lo.astype(F32)) * F32(inv)).dtype == np.float32
    ok = ((g >= 0) & (g < dims)).all(1)
    v = (g[ok, 2] * dims[1] + g[ok, 1]) * dims[0] + g[ok, 0]
    nv = int(np.prod(dims))
    sums = [np.bincount(v, pts[ok, k].astype(np.float64), nv) for k in range(3)]
    return sums, np.bincount(v, minlength=nv), ok


def check_vox(out, pts, lo, inv, dims):
    sums, cnt, ok = vox_ref(pts, lo, inv, dims)
    assert (out[4] == cnt).all()
    for k in range(3):
        assert np.allclose(out[1 + k], sums[k], rtol=1e-5, atol=1e-5)
    return cnt, ok


@pytest.mark.parametrize("policy,n", [("lockstep", 3000), ("random", 400)])   # the last block partial
def test_voxel_downsample_atomic(policy, n):
    host, out, *_ = launch("probe/voxel-downsample-atomic", n, policy=policy)
    pts = out[0].reshape(-1, 3)
    lo, dims = np.array(out[5:8], F32), np.array(out[9:12])
    assert tuple(dims) == tp._u65_vox_grid(pts)[1] and out[8] == F32(20) and out[12] == n
    cnt, ok = check_vox(out, pts, lo, out[8], dims)
    assert ok.all() and cnt.sum() == n and cnt.max() >= 2


def test_voxel_edge_cases():
    rng = np.random.default_rng(6)
    # a 4 x 3 x 2 grid of 0.5 m voxels from (-1, 0, 0.5): points on voxel faces, on the
    # grid's far faces (outside), below its corner, and 200 in one voxel
    pts = np.r_[rng.uniform([-1.2, -0.2, 0.3], [1.2, 1.7, 1.7], (300, 3)),
                [[-1, 0, 0.5], [0.5, 1.0, 1.0], [1.0, 0.2, 0.6], [0.2, 1.5, 0.6], [0.2, 0.2, 1.5]],
                rng.uniform([0.01, 0.01, 1.01], [0.49, 0.49, 1.49], (200, 3))].astype(F32)
    n = len(pts)
    lo, dims = np.array([-1, 0, 0.5], F32), np.array([4, 3, 2])
    host = [pts.ravel(), *[np.zeros(24, F32) for _ in range(3)], np.zeros(24, np.int32), *lo, F32(2),
            *map(np.int32, dims), np.int32(n)]
    out = run("probe/voxel-downsample-atomic", host, n, policy="random")
    cnt, ok = check_vox(out, pts, lo, 2, dims)
    assert ok[300:302].all() and not ok[302:305].any() and 0 < ok[:300].sum() < 300 and cnt.max() > 200


# ---- fk-jacobian-7dof ----

def fk_ref(q, dh):
    """The end effectors' [R | t] (n x 3 x 4) and Jacobians (n x 6 x 7), float64."""
    n = len(q)
    R = np.broadcast_to(np.eye(3), (n, 3, 3)).copy()
    t = np.zeros((n, 3))
    z, o = np.zeros((n, 7, 3)), np.zeros((n, 7, 3))
    for j in range(7):
        z[:, j], o[:, j] = R[:, :, 2], t
        c, s = np.cos(q[:, j]), np.sin(q[:, j])
        a, d, ca, sa = (float(dh[k][j]) for k in ("c_dh_a", "c_dh_d", "c_dh_ca", "c_dh_sa"))
        A = np.stack([np.stack([c, -s * ca, s * sa], -1), np.stack([s, c * ca, -c * sa], -1),
                      np.stack([np.zeros(n), np.full(n, sa), np.full(n, ca)], -1)], 1)
        t = t + np.einsum("nij,nj->ni", R, np.stack([a * c, a * s, np.full(n, d)], -1))
        R = R @ A
    jv = np.cross(z, t[:, None, :] - o)                     # n x 7 x 3
    return np.concatenate([R, t[:, :, None]], 2), np.concatenate([jv, z], 2).transpose(0, 2, 1)


def test_fk_reference():
    """fk_ref's Jacobian is the derivative of its position, its pose at q = 0 the arm upright."""
    rng = np.random.default_rng(7)
    dh = tp._u65_fk_symbols(1, rng)
    q = rng.uniform(-2, 2, (5, 7))
    pose, J = fk_ref(q, dh)
    h = 1e-6
    for j in range(7):
        dq = np.zeros(7)
        dq[j] = h
        num = (fk_ref(q + dq, dh)[0][:, :, 3] - fk_ref(q - dq, dh)[0][:, :, 3]) / (2 * h)
        assert np.allclose(num, J[:, :3, j], atol=1e-7)
    p0 = fk_ref(np.zeros((1, 7)), dh)[0][0]
    assert np.allclose(p0[:, 3], [0, 0, sum(tp.U65_FK_D)]) and np.allclose(np.abs(np.diag(p0[:, :3])), 1)


def test_fk_jacobian_7dof():
    n = 300                                                 # 2 blocks, the last partial
    host, (q, pose, jac, nn), dh, _ = launch("probe/fk-jacobian-7dof", n)
    assert nn == n
    q = host[0].reshape(n, 7).astype(np.float64)
    rp, rj = fk_ref(q, dh)
    assert np.allclose(pose.reshape(n, 3, 4), rp, atol=3e-6) and np.allclose(jac.reshape(n, 6, 7), rj, atol=3e-6)
    R = pose.reshape(n, 3, 4)[:, :, :3].astype(np.float64)
    assert np.allclose(R @ R.transpose(0, 2, 1), np.eye(3), atol=1e-5)
