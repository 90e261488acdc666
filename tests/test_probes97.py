"""probe-unseen95's kernels (kernels_cuda/probes97.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/reinhard-srgb-tonemap", "probe/raster-zbuffer-atomicmin64", "probe/texture-bilinear-wrap",
       "probe/forward-plus-tile-cull", "probe/path-trace-rr-bounce", "probe/raycast-icosphere-mt"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen95"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes97.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 14
    # tonemap: log-normal HDR, some black, many pixels past the white point and the toe
    hdr, out, ex, wh, nn = tp._p97_tonemap_args(n, rng)
    assert hdr.dtype == np.float32 and len(hdr) == 3 * n and out.dtype == np.uint8 and len(out) == 4 * n
    rgb = hdr.reshape(-1, 3).astype(np.float64)
    black = (rgb == 0).all(axis=1)
    assert 0.005 < black.mean() < 0.02 and (rgb >= 0).all()
    L = rgb @ [0.2126, 0.7152, 0.0722] * ex
    assert (L > wh).mean() > 0.02 and 0.3 < np.median(L) < 1 and (L[~black] * 0.2 < 0.0031308).mean() > 0.001
    # raster: snapped vertices, half back-facing, small triangles, overlapping
    v, zb, nt, w, h = tp._p97_raster_args(n, rng)
    assert w == h == 2 * 128 and nt == n and zb.dtype == np.uint64 and (zb == 2 ** 64 - 1).all()
    t = v.reshape(-1, 3, 3).astype(np.float64)
    assert (t[:, :, :2] * 16 == np.round(t[:, :, :2] * 16)).all() and 0.03 <= t[:, :, 2].min() < t[:, :, 2].max() <= 0.97
    area = (t[:, 1, 0] - t[:, 0, 0]) * (t[:, 2, 1] - t[:, 0, 1]) - (t[:, 1, 1] - t[:, 0, 1]) * (t[:, 2, 0] - t[:, 0, 0])
    assert 0.45 < (area > 0).mean() < 0.55 and np.abs(t[:, :, :2] - t[:, :, :2].mean(axis=1, keepdims=True)).max() < 16
    tid, best, gap, tests, cov = tp._p97_raster_ref(v, int(w), int(h))
    front = (area > 0).sum()
    assert 60 < tests / front < 120 and 12 < cov / front < 25 and 1.5 < cov / (w * h) < 3
    assert 0.75 < (tid >= 0).mean() < 0.95
    # texture: uv spans several repeats both ways, a warp's pixels close in the texture
    uv, light, tex, o, tw, th, nn = tp._p97_tex_args(1 << 16, rng)
    u = uv.reshape(-1, 2)
    assert tex.dtype == np.uint8 and len(tex) == 4 * tw * th and (tex[3::4] == 255).all() and tex[0::4].std() > 20
    assert u.min() < -1 and np.ptp(u, axis=0).min() > 0.25 and 0.15 <= light.min() and light.max() <= 1
    step = np.abs(np.diff(u[:32], axis=0)).max() * tw
    assert abs(step - tp.P97_TX_SCALE * np.cos(np.radians(tp.P97_TX_ANGLE))) < 1e-3
    # forward+: light counts a tile well under MAX_TILE_LIGHTS, some tiles see none of some
    depth, lights, col, out, cnt, nl, zs, w, h = tp._p97_fp_args(256, rng)
    assert nl == 64 and len(lights) == 4 * nl and len(cnt) == 256 and depth.dtype == np.float32
    assert 0.09 < depth.min() and depth.max() < 0.91 and len(np.unique(np.round(depth, 2))) > 40
    rgb, counts, gap = tp._p97_fp_ref(depth, lights, col, 256)
    assert counts.max() < tp.P97_FP_MAX and 5 < counts.mean() < 40 and counts.min() < counts.max() / 2
    assert gap > 1e-3 and (rgb > 0).any(axis=1).mean() > 0.8
    # path tracing: paths of every length, most ended by Russian roulette
    sc = tp._p97_pt_scene()
    assert sc.dtype.itemsize == 40 and sc["er"][0] > 0 and (sc["er"][1:] == 0).all()
    lo, hi = np.array(tp.P97_PT_ROOM)
    assert (np.abs(sc["cx"]) + sc["rad"] < hi[0]).all() and np.allclose(sc["cy"][1:] - sc["rad"][1:], lo[1])
    L, b, end = tp._p97_pt_ref(64, 64)
    assert set(np.unique(b)) == set(range(tp.P97_PT_MAX_DEPTH + 1)) and 0.6 < (end == 1).mean() < 0.98
    assert (end == 0).mean() > 0.03 and (end == 2).sum() > 10
    assert b.reshape(-1, 32).max(axis=1).mean() > 1.8 * b.mean()             # divergent warps
    # ray casting: the icospheres are on the ground, counter-clockwise, in view
    m = tp._p97_mesh().reshape(-1, 3, 3).astype(np.float64)
    assert len(m) == 162
    for k, (c, r) in enumerate(tp.P97_RC_SPHERES):
        s = m[80 * k:80 * k + 80]
        nrm = np.cross(s[:, 1] - s[:, 0], s[:, 2] - s[:, 0])
        assert ((nrm * (s.mean(axis=1) - c)).sum(axis=1) > 0).all()
        assert np.allclose(np.linalg.norm(s - c, axis=2), r, rtol=1e-6) and abs(c[1] - r - tp.P97_RC_GROUND) < 1e-9
    t, hit, _ = tp._p97_rc_ref(tp._p97_mesh(), 64, 64)
    cover = [(hit < 0).mean(), ((hit >= 0) & (hit < 80)).mean(), ((hit >= 80) & (hit < 160)).mean(), (hit >= 160).mean()]
    assert 0.2 < cover[0] < 0.6 and 0.1 < cover[1] < 0.4 and 0.03 < cover[2] < 0.2 and 0.15 < cover[3] < 0.5


# ---- reinhard-srgb-tonemap ----

def test_tonemap():
    n = 1000                                                # 4 blocks, the last partial
    host, (hdr, ldr, *_), *_ = launch("probe/reinhard-srgb-tonemap", n)
    ref, enc = tp._p97_tonemap_ref(hdr)
    got = ldr.reshape(-1, 4)
    assert (got[:, 3] == 255).all()
    diff = np.abs(got[:, :3].astype(int) - ref[:, :3])
    frac = np.abs(enc + 0.5 - np.round(enc + 0.5))
    assert diff.max() <= 1 and (diff[frac > 1e-3] == 0).all()
    assert (got[:, :3] == 255).any() and (got[:, :3] < 10).any()


# ---- raster-zbuffer-atomicmin64 ----

def test_raster():
    n = 1024                                                # 4 blocks; a 64 x 64 screen
    host, (v, zb, *_), *_ = launch("probe/raster-zbuffer-atomicmin64", n)
    side = int(host[3])
    tid, best, gap, tests, cov = tp._p97_raster_ref(v, side, side)
    empty = tid < 0
    assert empty.any() and (zb[empty] == 2 ** 64 - 1).all()
    ids = (zb & np.uint64(0xffffffff)).astype(np.int64)
    z = (zb >> np.uint64(32)).astype(np.uint32).view(np.float32)
    clear = ~empty & (gap > 1e-5)
    assert clear.mean() > 0.7 and (ids[clear] == tid[clear]).all()
    np.testing.assert_allclose(z[~empty], best[~empty], rtol=1e-6)


def test_raster_edges():
    # a pixel centre on a shared edge is drawn by both triangles (the nearer one wins), a
    # back-facing copy is culled, a triangle past the screen edge is clamped
    n = 64                                                  # a 16 x 16 screen, 8 triangles
    host = tp._p97_raster_args(n, np.random.default_rng(3))
    tri = np.array([[[2, 2, 0.5], [10, 2, 0.5], [2, 10, 0.5]],          # the edge x + y = 12 ...
                    [[10, 2, 0.4], [10, 10, 0.4], [2, 10, 0.4]],         # ... shared, this one nearer
                    [[2, 2, 0.1], [2, 10, 0.1], [10, 2, 0.1]],          # back-facing: culled
                    [[3, 3, 0.3], [5, 3, 0.3], [3, 5, 0.3]]] * 2, np.float32)
    tri[4:] += [2, 0, 0.05]
    tri[7] = [[-5, -5, 0.2], [8, -5, 0.2], [-5, 6, 0.2]]              # clipped at the corner
    host[0] = tri.ravel()
    host[2] = np.int32(8)
    side = int(host[3])
    zb = run("probe/raster-zbuffer-atomicmin64", host, n, policy="random")[1]
    tid, best, gap, tests, cov = tp._p97_raster_ref(tri.ravel(), side, side)
    ids = np.where(zb == 2 ** 64 - 1, -1, (zb & np.uint64(0xffffffff)).astype(np.int64))
    assert (ids == tid).all() and 2 not in ids and 6 not in ids and (ids == 7).sum() == 2
    assert ids[5 * side + 6] == 1 and ids[6 * side + 5] == 1                 # on the shared edge


# ---- texture-bilinear-wrap ----

def test_texture():
    n = 2000                                                # 8 blocks, the last partial
    host, (uv, light, tex, out, *_), *_ = launch("probe/texture-bilinear-wrap", n)
    ref, lit = tp._p97_tex_ref(uv, light, tex)
    got = out.reshape(-1, 4)
    diff = np.abs(got[:, :3].astype(int) - ref[:, :3])
    frac = np.abs(lit + 0.5 - np.round(lit + 0.5))
    assert (got[:, 3] == 255).all() and diff.max() <= 1 and (diff[frac > 1e-2] == 0).all()
    assert (uv < 0).any()                                   # negative coordinates wrap


def test_texture_wrap():
    # coordinates on texel centres (exact texels), at the texture's edges (the wrap's
    # neighbours) and far outside [0, 1)
    rng = np.random.default_rng(4)
    n = 64
    host = tp._p97_tex_args(n, rng)
    tw = int(host[4])
    k = rng.integers(0, tw, (n, 2))
    uv = (k + 0.5) / tw + rng.integers(-5, 6, (n, 2))
    uv[:8] = [[0, 0], [1, 1], [-3, 0.5 / tw], [0.5 / tw, 7], [1 - 0.25 / tw, 0.3], [0.7, -0.25 / tw],
              [2.0, -1.0], [-0.5 / tw, 0.5 / tw]]
    host[0] = uv.astype(np.float32).ravel()
    host[1] = np.ones(n, np.float32)
    out = run("probe/texture-bilinear-wrap", host, n)[3].reshape(-1, 4)
    ref, lit = tp._p97_tex_ref(host[0], host[1], host[2])
    assert np.abs(out.astype(int) - ref).max() <= 1
    t = host[2].reshape(tw, tw, 4)
    assert (out[8:] == t[k[8:, 1], k[8:, 0]]).all()                      # texel centres: the texel itself
    corner = t[[0, 0, -1, -1], [0, -1, 0, -1], :3].astype(np.float64).mean(axis=0)
    assert np.abs(out[0, :3] - corner).max() <= 0.5 + 1e-9 and (out[0] == out[1]).all()   # the 4 corners' mean


# ---- forward-plus-tile-cull ----

@pytest.mark.parametrize("policy, n, nl", [("lockstep", 64, 48), ("random", 32, 24)])
def test_forward_plus(policy, n, nl):
    # a 64 x 64 frame (16 tiles) and 48 lights; warps drifting apart on 4 tiles
    rng = np.random.default_rng(5)
    host = tp._p97_fp_args(n, rng, num_lights=nl)
    depth, lights, col, out, cnt, *_ = run("probe/forward-plus-tile-cull", host, n, policy=policy)
    rgb, counts, gap = tp._p97_fp_ref(depth, lights, col, n)
    assert gap > 1e-3 and (cnt == counts).all() and 5 < counts.min() and counts.max() <= nl
    o = out.reshape(-1, 4)
    assert (o[:, 3] == 1).all()
    np.testing.assert_allclose(o[:, :3], rgb, rtol=2e-5, atol=2e-5)


def test_forward_plus_no_lights():
    # lights all far behind (depth 5): every tile culls them all, every pixel black
    n = 32
    host = tp._p97_fp_args(n, np.random.default_rng(6), num_lights=300)      # 2 lights a thread, some 1
    host[1].reshape(-1, 4)[:, 2] = 5.0
    depth, lights, col, out, cnt, *_ = run("probe/forward-plus-tile-cull", host, n, policy="random")
    assert (cnt == 0).all() and (out.reshape(-1, 4)[:, :3] == 0).all()


# ---- path-trace-rr-bounce ----

def test_path_trace():
    n = 40                                                  # 3 x 3 blocks, partial ones
    host, (acc, *_), *_ = launch("probe/path-trace-rr-bounce", n)
    L, b, end = tp._p97_pt_ref(n, n)
    got = acc.reshape(-1, 3).astype(np.float64) - host[0].reshape(-1, 3)
    close = np.isclose(got, L, rtol=1e-4, atol=1e-4).all(axis=1)
    assert close.mean() > 0.98, close.mean()                # float32 vs float64: a rare path forks
    assert (end == 0).sum() > 40 and (L[end != 0] == 0).all() and (got[close & (end != 0)] == 0).all()


# ---- raycast-icosphere-mt ----

def test_raycast():
    n = 24                                                  # 2 x 2 blocks, partial ones
    host, (tris, nt, t, ids, img, lx, ly, lz, *_), *_ = launch("probe/raycast-icosphere-mt", n)
    tr, hr, gap = tp._p97_rc_ref(tris, n, n)
    assert nt == 162
    clear = ~(gap <= 1e-4)                                  # a miss or a single hit is clear too
    assert clear.mean() > 0.98 and (ids[clear] == hr[clear]).all()
    assert (ids == hr).mean() > 0.98 and (hr == -1).any() and (hr >= 160).any() and ((hr >= 0) & (hr < 80)).any()
    same = ids == hr
    np.testing.assert_allclose(t[same], tr[same], rtol=1e-5, atol=0)
    m = tris.reshape(-1, 3, 3).astype(np.float64)
    nrm = np.cross(m[:, 1] - m[:, 0], m[:, 2] - m[:, 0])
    nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
    shade = 0.1 + 0.9 * np.abs(nrm @ [lx, ly, lz])
    px = img.reshape(-1, 4)
    ref = np.where(hr >= 0, np.floor(np.minimum(shade[hr], 1) * 255), 30)
    assert (np.abs(px[same, 0] - ref[same]) <= 1).all() and (px[:, 0] == px[:, 1]).all()
    assert (px[hr < 0, 2] == 40).all() and (px[:, 3] == 255).all()
