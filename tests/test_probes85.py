"""probe-unseen83's kernels (kernels_cuda/probes85.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/geo-pip-raycast-smem", "probe/geo-nearest-site-grid", "probe/geo-seg-pairs-tiled-atomic",
       "probe/geo-poly-area-centroid-atomic", "probe/geo-delaunay-incircle-f64", "probe/geo-edt-column-scan"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen83"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes85.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _orient(ax, ay, bx, by, cx, cy):
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


def test_data():
    rng = np.random.default_rng(0)
    # pip: a star-shaped (simple) polygon of 320 vertices, a third of the points inside
    px, py, vx, vy, nv, inside, n = tp._p85_pip_args(1 << 14, rng)
    assert nv == len(vx) == tp._P85_PIP_NV <= 512 and px.dtype == np.float32 and inside.dtype == np.uint8
    ang = np.unwrap(np.arctan2(vy, vx).astype(np.float64))
    assert (np.diff(ang) > 0).all() and 2 * np.pi - 0.1 < ang[-1] - ang[0] < 2 * np.pi
    r = np.hypot(vx, vy)
    assert 0.45 < r.min() and r.max() < 1.1 and np.abs(px).max() <= tp._P85_PIP_BOX
    turns = np.sign(_orient(np.roll(vx, 1), np.roll(vy, 1), vx, vy, np.roll(vx, -1), np.roll(vy, -1)))
    assert (turns < 0).mean() > 0.2                                          # non-convex
    assert 0.25 < tp._p85_pip_ref(px, py, vx, vy).mean() < 0.4
    # nearest: 2^20 sites in 512 x 512 cells at 2^21 queries; the sites sorted by cell
    assert tp._p85_ns_grid(1 << 21) == (1 << 20, 512)
    qx, qy, sx, sy, start, G, near, d2, n = tp._p85_ns_args(1 << 13, rng)
    G = int(G)
    assert G == 32 and len(sx) == 1 << 12 and start[0] == 0 and start[-1] == len(sx) and len(start) == G * G + 1
    cell = tp._p85_cell(sx, sy, G)
    assert (np.diff(cell) >= 0).all() and (np.diff(start) == np.bincount(cell, minlength=G * G)).all()
    assert len(sx) / G ** 2 == tp._P85_NS_PER_CELL
    got, dmin, _, scanned = tp._p85_ns_ref(qx[:512], qy[:512], sx, sy, start, G)
    full = ((sx[None, :].astype(np.float64) - qx[:512, None]) ** 2 +
            (sy[None, :].astype(np.float64) - qy[:512, None]) ** 2).min(axis=1)
    assert (dmin == full).mean() > 0.99 and 20 < scanned.mean() < 40                  # 3 x 3 cells: ~9 x 4 sites
    # segments: integer endpoints, lengths 20 .. 120 (less where clipped), crossings rare
    seg = tp._p85_seg_args(4096, rng)[0].reshape(-1, 4)
    assert (seg == np.rint(seg)).all() and seg.min() >= 0 and seg.max() < tp._P85_SEG_SPAN
    L = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    assert L.max() < 121 and (L > 19).mean() > 0.97 and 60 < np.median(L) < 80
    cnt, total = tp._p85_seg_ref(seg)
    assert 1000 < total < 2200 and cnt.sum() == 2 * total                    # ~1e-4 of the pairs
    # polygons: 3 .. 13 vertices (8 on average), a quarter clockwise
    x, y, poly_of, pstart, *_ = tp._p85_pa_args(1 << 14, rng)
    k = np.diff(pstart)
    assert pstart[0] == 0 and pstart[-1] == 1 << 14 and (np.repeat(np.arange(len(k)), k) == poly_of).all()
    assert k[:-1].min() == 3 and k[:-1].max() == 13 and 3 <= k[-1] <= 15 and abs(k.mean() - 8) < 0.2
    a2, *_ = tp._p85_pa_ref(x, y, poly_of, pstart)
    assert abs((a2 < 0).mean() - tp._P85_PA_CW) < 0.03 and np.abs(a2).max() < 2 * np.pi * 16
    # the mesh: counter-clockwise triangles, neighbours sharing an edge both ways, integer
    # coordinates, half of the diagonals (only they) illegal
    m = 24
    X, Y, tri, nbr, *_ = tp._p85_ic_args(2 * m * m, rng)
    assert (X == np.rint(X)).all() and X.max() == 16 * m and np.abs(X - np.rint(X / 16) * 16).max() == 4
    T = tri.reshape(-1, 3).astype(np.int64)
    Nb = nbr.reshape(-1, 3).astype(np.int64)
    assert (_orient(X[T[:, 0]], Y[T[:, 0]], X[T[:, 1]], Y[T[:, 1]], X[T[:, 2]], Y[T[:, 2]]) > 0).all()
    assert (Nb < 0).sum() == 4 * m
    for t, kk in zip(*np.nonzero(Nb >= 0)):
        u = Nb[t, kk]
        edge = {T[t, (kk + 1) % 3], T[t, (kk + 2) % 3]}
        assert edge <= set(T[u]) and t in Nb[u]
    flags, count, det = tp._p85_ic_ref(X, Y, tri, nbr)
    diag = np.zeros_like(det, bool)
    diag[0::2, 1] = diag[1::2, 2] = True
    assert not (det[~diag] > 0).any() and 0.35 < (det[diag] > 0).mean() < 0.65
    # edt: 8192 x 2048 at 2^24; a few per cent of the pixels features, some columns without
    assert tp._p85_edt_shape(1 << 24) == (8192, 2048) and tp._p85_edt_shape(4096) == (128, 32)
    img, g, W, H = tp._p85_edt_args(1 << 24, rng)                        # the probe's size
    assert img.dtype == np.uint8 and set(np.unique(img)) == {0, 1} and 0.02 < img.mean() < 0.04
    assert 0.03 < (img.reshape(H, W).max(axis=0) == 0).mean() < 0.12


# ---- geo-pip-raycast-smem ----

def test_pip_raycast():
    n = 700                                                 # 3 blocks, the last partial
    host, (px, py, vx, vy, nv, inside, nn), *_ = launch("probe/geo-pip-raycast-smem", n)
    ref = tp._p85_pip_ref(*host[:4])
    assert (inside == ref).all() and 0.2 < ref.mean() < 0.45
    # the polygon's vertices themselves and points far outside
    rng = np.random.default_rng(3)
    h = tp._p85_pip_args(64, rng)
    h[0][:32] = 0.5 * h[2][::10]
    h[1][:32] = 0.5 * h[3][::10]                            # halfway to the boundary: inside
    h[0][32:] = 5.0
    out = run("probe/geo-pip-raycast-smem", h, 64)
    assert (out[5][:32] == 1).all() and (out[5][32:] == 0).all()


# ---- geo-nearest-site-grid ----

def test_nearest_site_grid():
    n = 700
    host, out, *_ = launch("probe/geo-nearest-site-grid", n)
    qx, qy, sx, sy, start, G = host[:6]
    near, d1, d2, _ = tp._p85_ns_ref(qx, qy, sx, sy, start, G)
    got, dist = out[6], out[7]
    assert (near >= 0).all() and (got >= 0).all()
    clear = d2 - d1 > 1e-6 * d2                             # no near-tie between the two nearest
    assert clear.mean() > 0.95 and (got[clear] == near[clear]).all()
    dg = (sx[got].astype(np.float64) - qx) ** 2 + (sy[got].astype(np.float64) - qy) ** 2
    np.testing.assert_allclose(dg, d1, rtol=1e-5, atol=1e-12)
    np.testing.assert_allclose(dist, d1, rtol=1e-5, atol=1e-12)


def test_nearest_empty_cells():
    # all the sites in one corner cell: the queries far from it find none (-1, FLT_MAX)
    rng = np.random.default_rng(4)
    n = 256
    h = tp._p85_ns_args(n, rng)
    G = int(h[5])
    h[2][:] = np.float32(0.1 / G)
    h[3][:] = np.linspace(0.1, 0.9, len(h[3])).astype(np.float32) / G
    h[4][:] = len(h[2])
    h[4][0] = 0
    out = run("probe/geo-nearest-site-grid", h, n)
    c = tp._p85_cell(h[0], h[1], G)
    near_corner = (c // G <= 1) & (c % G <= 1)
    assert near_corner.any() and not near_corner.all()
    assert (out[6][~near_corner] == -1).all() and (out[7][~near_corner] == np.finfo(np.float32).max).all()
    assert (out[6][near_corner] >= 0).all()


# ---- geo-seg-pairs-tiled-atomic ----

@pytest.mark.parametrize("policy, span, n", [("lockstep", tp._P85_SEG_SPAN, 300), ("lockstep", 256, 300),
                                             ("random", 256, 100)])
def test_seg_pairs(policy, span, n):
    # 300: 3 x 3 tiles (6 busy), the last partial; denser segments (span 256) for more hits;
    # random (warps interleaved one instruction at a time: the staged tile, the barrier, the
    # atomics on shared counters): one partial tile, its 4 warps
    rng = np.random.default_rng(1)
    host = tp._p85_seg_args(n, rng, span=span)
    out = run("probe/geo-seg-pairs-tiled-atomic", host, n, policy=policy)
    cnt, total = tp._p85_seg_ref(host[0])
    assert (out[1] == cnt).all() and out[2][0] == total
    assert total > (100 if span == 256 else 0)


def test_seg_touching_not_counted():
    # a T junction and collinear overlaps (orientation 0) are not proper crossings; an X is
    s = np.array([[0, 0, 10, 0], [5, 0, 5, 8], [2, 0, 7, 0], [0, 5, 10, 5], [3, 3, 9, 9], [3, 9, 9, 3]],
                 np.float32)
    n = len(s)
    host = [s.ravel(), np.zeros(n, np.int32), np.zeros(1, np.int32), np.int32(n)]
    out = run("probe/geo-seg-pairs-tiled-atomic", host, n)
    cnt, total = tp._p85_seg_ref(s)
    assert (out[1] == cnt).all() and out[2][0] == total
    assert list(cnt) == [0, 3, 0, 3, 3, 3] and total == 6      # three of them through (5, 5)


# ---- geo-poly-area-centroid-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_poly_area_centroid(policy):
    n = 700
    host, out, *_ = launch("probe/geo-poly-area-centroid-atomic", n, policy=policy)
    x, y, poly_of, start = host[:4]
    ref = tp._p85_pa_ref(x, y, poly_of, start)
    for got, want, scale in zip(out[4:7], ref[:3], ref[3]):
        assert np.abs(got - want).max() < 1e-5 * scale.max() and (np.abs(got - want) <= 1e-5 * scale + 1e-6).all()
    # the centroids lie inside the polygons' discs and the areas match the shoelace formula
    P = len(start) - 1
    cx = x[start[:-1]] + out[5] / (3 * out[4])
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    area = np.array([0.5 * np.sum(xd[a:b] * np.roll(yd[a:b], -1) - np.roll(xd[a:b], -1) * yd[a:b])
                     for a, b in zip(start[:-1].astype(np.int64), start[1:].astype(np.int64))])
    np.testing.assert_allclose(out[4] / 2, area, rtol=1e-3, atol=1e-3)
    assert P > 70 and (np.abs(cx - np.bincount(poly_of, x) / np.diff(start)) < 4).all()


# ---- geo-delaunay-incircle-f64 ----

@pytest.mark.parametrize("policy, m", [("lockstep", 20), ("random", 12)])
def test_delaunay_incircle(policy, m):
    n = 2 * m * m                                           # 800: 4 blocks, the last partial
    host, out, *_ = launch("probe/geo-delaunay-incircle-f64", n, policy=policy)
    flags, count, det = tp._p85_ic_ref(*host[:4])
    assert (out[4] == flags).all() and out[5][0] == count and count > n / 6
    assert (det == 0).any() or m < 20                       # exact cocircular cases are legal


def test_incircle_regular_grid():
    # no jitter: every diagonal's four points are cocircular (det exactly 0): nothing
    # illegal; then a vertex pushed into its neighbours' circles
    m = 8
    rng = np.random.default_rng(2)
    host = tp._p85_ic_args(2 * m * m, rng)
    M = m + 1
    host[0] = (np.arange(M * M) % M * 16).astype(np.float32)
    host[1] = (np.arange(M * M) // M * 16).astype(np.float32)
    out = run("probe/geo-delaunay-incircle-f64", [a.copy() if isinstance(a, np.ndarray) else a for a in host],
              2 * m * m)
    assert not out[4].any() and out[5][0] == 0
    host[0][4 * M + 4] += 6.0                               # vertex (4, 4) moved right
    out = run("probe/geo-delaunay-incircle-f64", host, 2 * m * m)
    flags, count, _ = tp._p85_ic_ref(*host[:4])
    assert (out[4] == flags).all() and out[5][0] == count and count > 0


# ---- geo-edt-column-scan ----

def test_edt_columns():
    n = 4096                                                # 128 x 32
    host, (img, g, W, H), *_ = launch("probe/geo-edt-column-scan", n)
    assert (W, H) == (128, 32)
    ref = tp._p85_edt_ref(img, W, H)
    assert (g == ref).all() and (ref == 0).any() and (ref > 5).any()
    # an empty column (W + H all the way), a full one (0), one feature at each end
    im = img.reshape(H, W).copy()
    im[:, 3] = 0
    im[:, 4] = 1
    im[:, 5] = 0
    im[0, 5] = im[H - 1, 5] = 1
    h = [im.ravel(), np.zeros(W * H, np.int32), W, H]
    g = run("probe/geo-edt-column-scan", h, n)[1].reshape(H, W)
    assert (g == tp._p85_edt_ref(im.ravel(), W, H).reshape(H, W)).all()
    assert (g[:, 3] == W + H).all() and (g[:, 4] == 0).all()
    assert list(g[:, 5]) == [min(y, H - 1 - y) for y in range(H)]
