"""probe-unseen185's kernels (kernels_cuda/probes187.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/occ3d-dda-float-atomic", "probe/pf-likelihood-field-gather", "probe/csm-rot-smem-bytes",
       "probe/rrt-obb-const-collide", "probe/dubins-prm-double", "probe/kinfu-icp-shfl-double"]
U = 2.0 ** -24                                              # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen185"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes187.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # the truncated distance transform against brute force
    occ = rng.random((40, 50)) < 0.03
    d = tp._p187_edt(occ, 6)
    oy, ox = np.nonzero(occ)
    yy, xx = np.mgrid[0:40, 0:50]
    bf = np.sqrt(((yy[..., None] - oy) ** 2 + (xx[..., None] - ox) ** 2).min(axis=-1))
    assert np.allclose(d, np.minimum(bf, 6), atol=1e-5)
    # the 2-D lidar in an empty 10 x 6 m room, from (3, 2) heading 0: ranges to the walls
    room = np.zeros((120, 200), bool)
    room[[0, -1], :] = room[:, [0, -1]] = True
    r, a = tp._p187_lidar(room, 0.05, 0.0, 0.0, (3.0, 2.0, 0.0), np.random.default_rng(1))
    with np.errstate(divide="ignore"):
        wall = np.minimum(np.where(np.cos(a) > 0, 6.95 / np.cos(a), np.where(np.cos(a) < 0, -2.95 / np.cos(a), np.inf)),
                          np.where(np.sin(a) > 0, 3.95 / np.sin(a), np.where(np.sin(a) < 0, -1.95 / np.sin(a), np.inf)))
    ok = np.abs(r - wall) < 0.025 + 4 * 0.01                               # a march step past the wall, the noise
    assert len(r) == 1081 and abs(np.degrees(a[-1] - a[0]) - 270) < 1e-9 and 0.95 < ok.mean() and (r[~ok] < wall[~ok]).all()

    # occ3d: VLP-16 scans in the warehouse
    az = 256
    pts, org, grid, per, gx0, gy0, gz0, inv, nx, ny, nz, n = tp._p187_og_args(16 * az * 6, rng, az=az)
    assert pts.shape == (n, 4) and pts.dtype == np.float32 and per == 16 * az and len(org) == 18
    assert (nx, ny, nz) == (512, 512, 64) and len(grid) == nx * ny * nz and not grid.any() and inv == np.float32(10)
    w = pts[:, 3]
    assert set(np.unique(w)) == {-1, 0, 1} and abs((w < 0).mean() - 0.02) < 0.005 and 0.005 < (w == 0).mean() < 0.1
    o = org.reshape(-1, 3)[np.arange(n) // per]
    v = (pts[:, :3] - o).astype(np.float64)
    L = np.linalg.norm(v, axis=1)
    el = np.degrees(np.arcsin(v[:, 2] / np.maximum(L, 1e-9)))
    assert np.abs(el - np.tile(tp.P187_OG_RINGS, n // 16))[w >= 0].max() < 1e-3      # the lasers' firing order
    assert np.abs(L[w == 0] - 30).max() < 1e-4 and L[w == 1].max() < 30.1 and np.median(L[w == 1]) < 10
    assert np.abs(org.reshape(-1, 3)[:, 2] - 1.8).max() < 0.25
    hall = np.array(tp.P187_OG_HALL)
    assert (pts[w == 1, :3] > -0.1).all() and (pts[w == 1, :3] < hall + 0.1).all()
    assert 0.03 < (np.abs(pts[w == 1, 2]) < 0.1).mean() < 0.5                         # the floor's returns

    # pf: hypotheses and a scan
    px, py, pth, bx, by, nb, lp, W, H, ox, oy, inv, sx, sy, lout, lw, n = tp._p187_pf_args(1 << 14, rng, cells=600)
    assert W == H == 600 and ox == oy == -15 and len(lp) == W * H and len(px) == n and nb == 271
    assert abs(lout - np.log(0.05 / 30)) < 1e-6 and abs(lp.max() - np.log(0.95 + 0.05 / 30)) < 1e-6
    assert abs(pth).max() <= np.pi and 0.2 < np.median(np.hypot(bx, by)) < 6
    cell = (np.floor((py - oy) * 20) * W + np.floor((px - ox) * 20)).astype(np.int64)
    assert (lp[cell] < -3).mean() > 0.7                                               # particles in free space
    jump = np.hypot(np.diff(px), np.diff(py)) > 3
    assert 0.12 < jump.mean() < 0.25                                                  # 10% uniform, the rest in clusters

    # csm: the truth scores best, (n - 1) / 2 - 10 rotation steps and (+7, -4) cells from the guess
    R, win = 25, 32
    h = tp._p187_csm_args(R, rng, cells=300, beams=361, win=win)
    assert h[2] == len(h[0]) <= 361 and h[3].dtype == np.uint8 and h[3].max() == 255 and len(h[12]) == R * win * win
    ref, _ = tp._p187_csm_ref(h[0], h[1], h[3], h[4], h[5], *h[6:12], R)
    assert np.unravel_index(ref.argmax(), ref.shape) == (2, win // 2 - 4, win // 2 + 7)
    assert ref.max() > 200 * h[2] and np.median(ref) < 0.5 * ref.max()

    # rrt: the hall's boxes and RRT edges
    obb = tp._p187_cc_obbs()
    Rm = obb[:, 6:].reshape(-1, 3, 3)
    assert obb.shape == (128, 15) and np.allclose(Rm @ Rm.transpose(0, 2, 1), np.eye(3)) and (obb[:, 3:6] > 0).all()
    P = rng.random((20000, 3)) * tp.P187_CC_BOX
    assert 0.15 < (tp._p187_obb_d2(P, obb).min(axis=1) == 0).mean() < 0.3          # ~22% of the hall filled
    ax_, ay_, az_, bx_, by_, bz_, res, rad, nobb, hit, n = tp._p187_cc_args(4096, rng)
    a, b = np.c_[ax_, ay_, az_], np.c_[bx_, by_, bz_]
    L = np.linalg.norm((b - a).astype(np.float64), axis=1)
    assert nobb == 128 and (tp._p187_obb_d2(a, obb).min(axis=1) > rad ** 2).all()   # tree nodes are free
    assert abs((np.abs(L - 0.75) < 1e-5).mean() - 0.7) < 0.03 and L.min() > 0.05 - 1e-6
    assert (np.abs(b - a)[:, 2] / L).mean() < 0.5 * (np.abs(b - a)[:, 0] / L).mean()
    near_start = np.linalg.norm(a - [4, 4, 1.5], axis=1) < 6
    assert 0.2 < near_start.mean() < 0.45

    # dubins: a PRM's k-nearest edges
    x, y, th, frm, to, rho, ln, wd, n = tp._p187_db_args(16 * 144, rng)
    S = 12 + 4
    assert len(x) == S * S and n == 16 * 144 and rho == 4.0 and (np.diff(frm) >= 0).all()
    assert (np.bincount(frm, minlength=S * S)[frm] == 16).all() and (frm != to).all()
    assert (np.abs(to // S - frm // S) <= 2).all() and (np.abs(to % S - frm % S) <= 2).all()
    D = np.hypot(x[to] - x[frm], y[to] - y[frm])
    assert 3 < np.median(D) / 1.0 < 9 and D.max() < 2 * np.sqrt(8) * 4 + 4 and abs(th).max() <= np.pi
    words = np.bincount(tp._p187_db_ref(x, y, th, frm, to, rho).argmin(axis=1), minlength=6) / n
    assert (words > 0.05).all()                                                       # every word wins somewhere

    # icp: two frames of a depth camera
    vc, nc, vp, npv, T, Ti, fx, fy, cx, cy, w, h, dth, cth, sums = tp._p187_icp_args(160, rng)
    assert (w, h) == (160, 90) and len(vc) == len(nc) == len(vp) == len(npv) == 3 * w * h and fx == fy
    Rt, Ri = T.reshape(3, 4), Ti.reshape(3, 4)
    assert np.allclose(Ri[:, :3] @ Rt[:, :3], np.eye(3), atol=1e-6) and np.allclose(Ri[:, :3] @ Rt[:, 3] + Ri[:, 3], 0, atol=1e-6)
    z = vc.reshape(-1, 3)[:, 2]
    assert 0.9 < (z > 0).mean() < 0.99 and 1 < np.median(z[z > 0]) < 6
    nn = np.linalg.norm(npv.reshape(-1, 3), axis=1)
    assert np.allclose(nn[nn > 0], 1, atol=1e-5) and (nn > 0).mean() > 0.95
    assert (vp.reshape(-1, 3).min(axis=0) > -1e-3).all() and (vp.reshape(-1, 3).max(axis=0) < np.array(tp.P187_ICP_ROOM) + 1e-3).all()
    assert sums.dtype == np.float64 and len(sums) == 29 and not sums.any()


# ---- occ3d-dda-float-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_occ3d_update(policy):
    # voxels of 1.6 m (32 x 32 x 4): beams of up to ~20 crossings, so that float32's DDA meets
    # the exact crossings' order except at near-ties, which are left out (w = -1)
    rng = np.random.default_rng(1)
    n = 16 * 64 * 3
    h = tp._p187_og_args(n, rng, az=64, res=1.6)
    g0, dims = h[4:7], tuple(int(v) for v in h[8:11])
    _, margin = tp._p187_og_ref(h[0], h[1], 16 * 64, g0, h[7], dims)
    amb = (margin < 1e-3) & (h[0][:, 3] >= 0)
    assert amb.mean() < 0.1
    h[0][amb, 3] = -1
    ref, margin = tp._p187_og_ref(h[0], h[1], 16 * 64, g0, h[7], dims)
    out = run("probe/occ3d-dda-float-atomic", h, n, policy=policy)
    # multiples of 1/32 summed: exact in any order
    assert (out[2] == ref).all() and (ref > 0).any() and ref.min() < -100


def test_occ3d_update_hand():
    # one scan from a voxel's centre: along +x (the origin's voxel and 19 more free, the 21st
    # occupied), straight down out of the grid, a max-range beam in the xy plane (50 steps, its
    # end voxel free too), an end in the origin's voxel (no step), a beam without a measurement
    o = np.float32([10.05, 10.05, 1.05])
    pts = np.float32([[12.05, 10.05, 1.05, 1], [10.05, 10.05, -0.93, 1], [13.05, 12.05, 1.05, 0],
                      [10.07, 10.03, 1.06, 1], [20.0, 20.0, 2.0, -1]])
    dims = (128, 192, 16)
    h = [pts, o, np.zeros(np.prod(dims), np.float32), np.int32(5), np.float32(5.0), np.float32(-5.0),
         np.float32(-0.4), np.float32(10.0), *map(np.int32, dims), np.int32(5)]
    out = run("probe/occ3d-dda-float-atomic", h, 5)[2].reshape(dims[::-1])
    ref, margin = tp._p187_og_ref(pts, o, 5, h[4:7], 10.0, dims)
    assert (margin[:4] > 0.01).all() and (out.ravel() == ref).all()
    assert out[14, 150, 50] == 3 * tp.P187_L_FREE + tp.P187_L_OCC and out[14, 150, 70] == tp.P187_L_OCC
    assert (out[14, 150, 52:70] == tp.P187_L_FREE).all() and (out[:14, 150, 50] == tp.P187_L_FREE).all()
    assert out[14, 150, 51] == 2 * tp.P187_L_FREE                           # the +x beam's and the max-range one's
    assert out[14, 170, 80] == tp.P187_L_FREE                               # the max-range beam's end: free
    assert np.count_nonzero(out) == 1 + 20 + 14 + 50 - 1                    # the origin, each beam's others, 1 shared


# ---- pf-likelihood-field-gather ----

def test_pf_likelihood():
    rng = np.random.default_rng(1)
    n = 200                                                 # 4 blocks of 64, the last partial
    h = tp._p187_pf_args(n, rng, cells=240, step=16)        # a 12 x 12 m floor, 68 beams
    # one particle off the map: every end costs log_out
    h[0][5], h[1][5] = np.float32(100.0), np.float32(-3.0)
    ref, margin, mag = tp._p187_pf_ref(*h[:5], *h[6:15])
    out = run("probe/pf-likelihood-field-gather", h, n)[15]
    # end cells decided more than 2e-4 cells from an edge (float32's error in them ~3e-5);
    # the sum of nb float32 terms: error < nb u sum |term|
    ok = margin > 2e-4
    nb = int(h[5])
    assert 0.85 < ok.mean() and (np.abs(out - ref)[ok] <= nb * U * mag[ok]).all()
    assert np.isclose(ref[5], nb * float(h[14]), rtol=1e-12) and abs(out[5] - ref[5]) <= nb * U * mag[5]
    assert ref.max() > -0.7 * nb and np.median(ref) < 2 * ref.max()


# ---- csm-rot-smem-bytes ----

@pytest.mark.parametrize("corner, policy, grid", [(False, "lockstep", (4, 5)), (True, "lockstep", (4, 5)),
                                                  (False, "random", (1, 1))])
def test_csm_score(corner, policy, grid):
    R, win = 5, 32                                          # 2 x 2 tiles of 16 x 16 at 5 rotations
    rng = np.random.default_rng(1)
    h = tp._p187_csm_args(R, rng, cells=200, beams=181 if grid[1] > 1 else 41, win=win)
    if corner:                                              # a guess in the table's corner: most cells off it
        h[6], h[7] = np.float32(5.3), np.float32(190.6)
    # points whose cell is within 5e-4 of an edge at some rotation (float32's error ~1e-4) left out
    _, margin = tp._p187_csm_ref(h[0], h[1], h[3], h[4], h[5], *h[6:12], R)
    keep = margin > 5e-4
    assert keep.mean() > 0.95
    h[0], h[1], h[2] = h[0][keep], h[1][keep], np.int32(keep.sum())
    ref, _ = tp._p187_csm_ref(h[0], h[1], h[3], h[4], h[5], *h[6:12], R)
    out = run("probe/csm-rot-smem-bytes", h, R, policy=policy, grid=grid)[12].reshape(R, win, win)
    if grid[1] == 1:                                        # the first tile of the first rotation alone
        assert (out[0, :16, :16] == ref[0, :16, :16]).all() and out[1:].sum() == out[0, 16:].sum() == 0
        return
    assert (out == ref).all()
    if corner:
        assert ref.max() < 0.3 * 255 * h[2]
    else:
        assert np.unravel_index(ref.argmax(), ref.shape) == (0, 12, 23)


# ---- rrt-obb-const-collide ----

def test_edge_collide():
    rng = np.random.default_rng(2)
    n = 40
    h = tp._p187_cc_args(n, rng)
    obb = tp._p187_cc_obbs().astype(np.float32)
    # the first 12 start 0.3 .. 0.9 m off a machine's side and head 0.75 m straight at it
    # (machines turned about z: the box's frame matters); one of no length; one from inside a box
    j = 16 + np.arange(48)
    d = rng.uniform(0.3, 0.9, 48)
    loc = np.c_[obb[j, 3] + d, rng.uniform(-0.8, 0.8, 48) * obb[j, 4], np.zeros(48)]
    Rb = obb[j, 6:].reshape(-1, 3, 3).astype(np.float64)
    a = obb[j, :3] + np.einsum("kij,kj->ki", Rb, loc)
    free = np.flatnonzero(tp._p187_obb_d2(a, obb).min(axis=1) > tp.P187_CC_RADIUS ** 2)[:12]
    assert len(free) == 12
    a, b = a[free], a[free] - 0.75 * Rb[free, :, 0]
    for k in range(3):
        h[k][:12], h[3 + k][:12] = a[:, k], b[:, k]
        h[3 + k][20] = h[k][20]
        h[k][21] = h[3 + k][21] = obb[30, k]
    # the boxes within 0.5 m of an edge (the kernel's time grows with their count)
    P = np.c_[h[0], h[1], h[2]][:, None, :] + np.linspace(0, 1, 21)[None, :, None] * np.c_[
        h[3] - h[0], h[4] - h[1], h[5] - h[2]][:, None, :]
    sel = np.flatnonzero(tp._p187_obb_d2(P.reshape(-1, 3), obb).min(axis=0) < 0.5)
    h[8] = np.int32(len(sel))
    syms = {"c_obb": np.r_[obb[sel], np.zeros((128 - len(sel), 15), np.float32)].ravel()}
    out = run("probe/rrt-obb-const-collide", h, n, symbols=syms)[9]
    ref, margin = tp._p187_cc_ref(*h[:8], obb[sel])
    # samples within 1e-3 r^2 of the radius (float32's error ~1e-5) or a sample count within
    # 1e-3 of turning over are left out
    ok = margin > 1e-3
    assert ok.mean() > 0.9 and (out[ok] == ref[ok]).all()
    assert (ref[:12] > 0).all() and (ref[12:] == -1).mean() > 0.7 and 10 < len(sel) < 40
    assert out[20] == -1 and out[21] == 0


# ---- dubins-prm-double ----

@pytest.mark.parametrize("n, policy", [(16 * 36, "lockstep"), (16 * 9 + 5, "random")])
def test_dubins_path(n, policy):
    host, out, *_ = launch("probe/dubins-prm-double", n, policy=policy)
    L = tp._p187_db_ref(*host[:6])
    best = L.min(axis=1)
    # double against the circles' geometry in double: ~10 roundings of values up to 4 pi
    assert (np.abs(out[6] - best) <= 1e-12 * best).all()
    srt = np.sort(L, axis=1)
    clear = srt[:, 1] - srt[:, 0] > 1e-9 * srt[:, 0]
    assert clear.mean() > 0.99 and (out[7] == L.argmin(axis=1))[clear].all()


def test_dubins_path_hand():
    # straight ahead (the length the distance; LSL and RSR tied, LSL kept), 3 m straight behind
    # and 10 m behind (loops), a quarter turn to the left then 1 m straight
    rho = tp.P187_DB_RHO
    x = np.float32([0, 10, -3, 4])
    y = np.float32([0, 0, 0, 5])
    th = np.float32([0, 0, 0, np.pi / 2])
    h = [x, y, th, np.int32([0, 0, 0, 1]), np.int32([1, 2, 3, 0]), np.float64(rho), np.zeros(4), np.zeros(4, np.int32),
         np.int32(4)]
    out = run("probe/dubins-prm-double", h, 4)
    L = tp._p187_db_ref(x, y, th, h[3], h[4], rho)
    assert abs(out[6][0] - 10) < 1e-12 and out[7][0] == 0
    assert (np.abs(out[6] - L.min(axis=1)) < 1e-12 * out[6]).all() and (out[7][1:] == L[1:].argmin(axis=1)).all()
    assert abs(out[6][2] - (2 * np.pi + 1)) < 1e-6 and out[7][2] == 0      # float32(pi / 2) a hair over


# ---- kinfu-icp-shfl-double ----

@pytest.mark.parametrize("n, shift, policy", [(64, 0.0, "lockstep"), (64, 0.4, "lockstep"), (24, 0.0, "random")])
def test_icp_reduce(n, shift, policy):
    # 64 x 36: 5 blocks of 512, the last partial; 24 x 13: one block, 312 pixels
    rng = np.random.default_rng(0)
    h = tp._p187_icp_args(n, rng)
    h[4] = h[4].copy()
    h[4][3] += np.float32(shift)                            # an estimate 0.4 m off: many pixels off the old frame
    _, _, amb = tp._p187_icp_ref(*h[:14])
    h[0].reshape(-1, 3)[amb] = 0                            # pairings float32 may decide otherwise left out
    s, tol, amb = tp._p187_icp_ref(*h[:14])
    out = run("probe/kinfu-icp-shfl-double", h, n, policy=policy)[14]
    assert not amb.any() and (np.abs(out - s) <= tol).all() and out[28] == s[28]
    valid = (h[0].reshape(-1, 3)[:, 2] > 0).sum()
    if shift:
        assert 0 < s[28] < 0.5 * valid
    else:
        assert s[28] > 0.6 * valid and s[27] / s[28] < 1e-3                  # rms residual ~2 cm: the motion
