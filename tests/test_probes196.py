"""probe-unseen194's kernels (kernels_cuda/probes196.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/rips-edges-tile-smem", "probe/rips-uf-atomiccas", "probe/landscape-topk-local",
       "probe/ecc-cubical-smem-hist", "probe/fps-argmax-shfl", "probe/pers-image-expf"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen194"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes196.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    X, eps2, eu, ev, ed, cnt, cap, n = tp._p196_rp_args(2048, rng)
    X = X.reshape(n, 64).astype(np.float64)
    assert X.dtype == np.float64 and n == 2048 and eps2 == np.float32(tp.P196_RP_EPS ** 2)
    assert cap == int(0.02 * n * (n - 1) / 2) and len(eu) == len(ev) == len(ed) == cap and cnt[0] == 0
    sq = (X * X).sum(axis=1)
    D2 = np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0)
    d2 = D2[np.triu_indices(n, 1)]
    assert 0.001 < (d2 < eps2).mean() < 0.01 and np.median(d2) > 100 * eps2          # sparse at eps
    np.fill_diagonal(D2, np.inf)
    alone = D2.min(axis=1) > 16 * eps2                                              # the outliers
    assert abs(alone.mean() - tp.P196_RP_OUT) < 0.005 and np.median(D2.min(axis=1)) < eps2   # most have a neighbour
    eu, ev, parent, m = tp._p196_uf_args(1 << 16, rng)
    L = tp._p196_uf_edges(tp._p196_uf_points(1 << 14, np.random.default_rng(3)), 1 << 16)[2]
    assert m == len(eu) == 1 << 16 and (parent == np.arange(1 << 14)).all()
    assert (eu < ev).all() and (ev - eu).max() <= tp.P196_UF_WIN and (np.diff(L) >= 0).all()
    assert np.unique(eu.astype(np.int64) << 32 | ev).size == m                       # no edge twice
    assert np.abs(np.diff(eu[:1000])).mean() > 1000                                  # length order: scattered
    deg = np.bincount(np.concatenate([eu, ev]), minlength=1 << 14)
    assert deg.mean() == 8 and 0.03 < (deg == 0).mean() < 0.25                       # isolated background points
    lab = tp._p196_uf_ref(eu, ev, 1 << 14)
    assert 0.05 < np.unique(lab).size / (1 << 14) < 0.3
    p = tp._p196_uf_points(1 << 14, rng)
    assert p.dtype == np.float32 and 0 <= p.min() and p.max() <= 1
    assert (np.diff(tp._p196_morton((p * 1024).clip(0, 1023).astype(np.uint32)).astype(np.int64)) >= 0).all()
    off, pairs = tp._p196_diagrams(4096, rng)
    c = np.diff(off)
    b, d = pairs["birth"], pairs["death"]
    g = np.repeat(np.arange(4096), c)
    assert off[0] == 0 and off[-1] == len(pairs) and c.min() >= 1 and abs(c.mean() - 122.5) < 4 and c.std() > 50
    assert (d >= b).all() and (b >= 0).all() and (np.diff(d)[g[1:] == g[:-1]] >= 0).all()   # death order
    assert abs(((d - b) > 0.4).mean() - 1.5 / 122.5) < 0.002 and np.median(d - b) < 0.04
    land, dt = tp._p196_ls_args(8, rng)[2:]
    assert len(land) == 8 * 8 * 256 and dt == np.float32(2 / 256)
    img, *k = tp._p196_pi_args(8, rng)[2:]
    assert len(img) == 8 * 1024 and np.allclose(k, [0.05, 0.05, 0.5, 200, 1 / (2 * np.pi * 0.0025)])
    f, hist, nx, ny, nz = tp._p196_ec_args(96, rng)
    v = f.reshape(96, 96, 96).astype(np.int64)
    assert f.dtype == np.uint16 and f.max() <= 4095 and nx == ny == nz == 96 and (hist == 0).all()
    assert 0.15 < (v < 1750).mean() < 0.3 and abs(np.median(v[v > 2300]) - 2600) < 20       # pore, grain
    assert np.abs(np.diff(v, axis=2)).mean() < 150                                   # noise, no speckle
    x, y, z = tp._p196_fp_points(1 << 16, rng)
    tube = np.hypot(np.hypot(x, y) - 1.0, z)
    on = np.abs(tube - 0.35) < 0.05
    assert 0.985 < on.mean() < 0.995 and abs(tube[on] - 0.35).std() < 0.012
    assert abs((z[on] > 0.25).mean() - 0.25) < 0.02                                  # the tube angle's density
    pts, mind, last, bmax, barg, n = tp._p196_fp_args(1 << 16, rng)
    assert pts.dtype == tp.P196_FP_DTYPE and len(bmax) == len(barg) == 256 and mind[0] == 0
    assert last == np.argmax(mind) and (mind == 0).sum() == tp.P196_FP_PRIOR and mind[last] > 0.1


# ---- rips-edges-tile-smem ----

@pytest.mark.parametrize("n, policy", [(40, "lockstep"), (24, "random")])
def test_rips_edge_list(n, policy):
    rng = np.random.default_rng(1)
    h = tp._p196_rp_args(n, rng, eps=3.0, clusters=3)                # 40: 3 x 3 tiles, the last partial
    h[0].reshape(n, 64)[n - 1] = h[0].reshape(n, 64)[2]               # a duplicate point: distance 0
    h[2:5] = np.zeros(n * n, np.int32), np.zeros(n * n, np.int32), np.zeros(n * n, np.float32)
    h[6] = np.int32(n * n)                                            # room for every pair
    out = run("probe/rips-edges-tile-smem", h, n, policy=policy)
    i, j, d, gap = tp._p196_rp_ref(h[0], h[1])
    k = int(out[5][0])
    assert gap > 1e-4 and k == len(i) and 20 < k < n * (n - 1) / 4
    o = np.lexsort((out[3][:k], out[2][:k]))                          # by (i, j)
    assert (out[2][:k][o] == i).all() and (out[3][:k][o] == j).all()
    # 64 float32 squares summed: d^2 within 64 2^-24 relative, d half of that
    assert (np.abs(out[4][:k][o] - d) <= 2e-6 * d + 1e-7).all() and (out[4][:k][o] == 0).sum() == 1
    assert (out[2][k:] == 0).all()                                    # nothing past the count


def test_rips_edge_list_overflow():
    n = 40
    rng = np.random.default_rng(1)
    h = tp._p196_rp_args(n, rng, eps=3.0, clusters=3)
    h[6] = np.int32(7)                                                # room for 7 edges only
    out = run("probe/rips-edges-tile-smem", h, n)
    i, j, d, _ = tp._p196_rp_ref(h[0], h[1])
    got = set(zip(out[2][:7].tolist(), out[3][:7].tolist()))
    assert out[5][0] == len(i) > 7 and len(got) == 7 and got <= set(zip(i.tolist(), j.tolist()))
    assert (out[2][7:] == 0).all()


# ---- rips-uf-atomiccas ----

def _roots(parent):
    r = np.asarray(parent, np.int64)
    while (r[r] != r).any():
        r = r[r]
    return r


@pytest.mark.parametrize("n, policy", [(4000, "lockstep"), (1000, "random")])
def test_rips_components_uf(n, policy):
    host, out, *_ = launch("probe/rips-uf-atomiccas", n, policy=policy)
    npts = n // 4
    lab = tp._p196_uf_ref(host[0], host[1], npts)
    assert (out[2] <= np.arange(npts)).all()                          # hung under smaller points only
    assert (_roots(out[2]) == lab).all()
    assert 20 < np.unique(lab).size < npts / 2


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_rips_components_uf_shapes(policy):
    # a path 0 - 1 - ... - 99 with its edges in random order, a star about 200 and a cycle
    # 300 .. 339, every edge twice (both ways round), the other points alone
    rng = np.random.default_rng(4)
    e = [(i, i + 1) for i in range(99)] + [(200, 201 + k) for k in range(50)] + \
        [(300 + k, 300 + (k + 1) % 40) for k in range(40)]
    e = np.array(e + [(b, a) for a, b in e], np.int32)[rng.permutation(2 * len(e))]
    npts = 400
    h = [e[:, 0].copy(), e[:, 1].copy(), np.arange(npts, dtype=np.int32), np.int32(len(e))]
    out = run("probe/rips-uf-atomiccas", h, len(e), policy=policy)
    want = np.arange(npts)
    want[:100], want[200:251], want[300:340] = 0, 200, 300
    assert (_roots(out[2]) == want).all() and (tp._p196_uf_ref(h[0], h[1], npts) == want).all()


# ---- landscape-topk-local ----

def test_landscape_eval():
    host, out, *_ = launch("probe/landscape-topk-local", 5)
    ref = tp._p196_ls_ref(*host[:2], host[3])
    assert (out[2] == ref.ravel()).all()                              # the same float32 operations: exact
    assert (ref[:, 0] > 0).any() and (ref[:, 7] > 0).any()


@pytest.mark.parametrize("m, policy", [(300, "lockstep"), (40, "random")])
def test_landscape_eval_hand(m, policy):
    # an empty diagram; one of m pairs (300: two chunks) with ties; one of 3 pairs, one of them
    # on the diagonal, one past the sampled range
    rng = np.random.default_rng(5)
    off = np.array([0, 0, m, m + 3], np.int32)
    pairs = np.zeros(m + 3, tp.P196_PAIR_DTYPE)
    b = rng.uniform(0, 1, m).astype(np.float32)
    b[m - 10:] = b[:10]                                               # 10 pairs twice
    pairs["birth"][:m] = b
    pairs["death"][:m] = b + rng.exponential(0.2, m).astype(np.float32)
    pairs["death"][m - 10:m] = pairs["death"][:10]
    pairs[m:] = np.array([(0.5, 0.5), (0.25, 0.75), (1.5, 3.0)], tp.P196_PAIR_DTYPE)
    h = [off, pairs, np.zeros(3 * 8 * 256, np.float32), np.float32(2 / 256)]
    out = run("probe/landscape-topk-local", h, 3, policy=policy)
    ref = tp._p196_ls_ref(off, pairs, h[3])
    land = out[2].reshape(3, 8, 256)
    assert (land == ref).all() and (land[0] == 0).all() and (land[2, 2:] == 0).all()
    t = (np.arange(256) + 0.5) / 128
    tent = lambda lo, hi: np.maximum(np.minimum(t - lo, hi - t), 0)
    assert np.allclose(land[2, 0], np.maximum(tent(0.25, 0.75), tent(1.5, 3.0)), atol=1e-7)
    assert (land[1, 0] >= land[1, 1]).all() and (land[1, 6] >= land[1, 7]).all() and (land[1, 7] > 0).any()


# ---- ecc-cubical-smem-hist ----

@pytest.mark.parametrize("n, policy", [(20, "lockstep"), (10, "random")])
def test_ecc_cubical(n, policy):
    host, out, *_ = launch("probe/ecc-cubical-smem-hist", n, policy=policy)   # 20: partial blocks in x and y
    ref = tp._p196_ec_ref(host[0].reshape(n, n, n))
    assert (out[1] == ref).all() and ref.sum() == 1                   # the whole cube: chi 1
    assert (ref != 0).sum() > 20


def test_ecc_cubical_shapes():
    # a 40 x 18 x 14 field (x, y, z): a solid ring (a circle of radius 4 in z = 7, tube 1.3)
    # at value 20 (bin 1) and a spherical shell (radii 3 to 5) at 40 (bin 2), all else 4000:
    # chi is 0 at bin 1 (a circle), 2 at bin 2 (and a sphere), 1 from bin 250
    nx, ny, nz = 40, 18, 14
    z, y, x = np.mgrid[:nz, :ny, :nx].astype(np.float64)
    f = np.full((nz, ny, nx), 4000, np.uint16)
    f[np.hypot(np.hypot(x - 6, y - 9) - 4, z - 7) < 1.3] = 20
    r = np.sqrt((x - 28) ** 2 + (y - 9) ** 2 + (z - 7) ** 2)
    f[(r >= 3) & (r <= 5)] = 40
    h = [f.ravel(), np.zeros(256, np.int32), np.int32(nx), np.int32(ny), np.int32(nz)]
    out = run("probe/ecc-cubical-smem-hist", h, 0, grid=(2, 3, nz))
    chi = np.cumsum(out[1])
    assert (out[1] == tp._p196_ec_ref(f)).all()
    assert chi[0] == 0 and chi[1] == 0 and (chi[2:250] == 2).all() and (chi[250:] == 1).all()


# ---- fps-argmax-shfl ----

@pytest.mark.parametrize("n, policy", [(808, "lockstep"), (300, "random")])
def test_fps_step(n, policy):
    rng = np.random.default_rng(6)
    h = tp._p196_fp_args(n, rng)                                      # 808: 4 blocks, the last 40 points
    p, mind = h[0], h[1]
    d2 = lambda: sum((p[c].astype(np.float64) - p[c][h[2]]) ** 2 for c in "xyz")
    far = int(np.argmax(np.minimum(mind, d2())))
    for k in (5, 150, 151, n - 3):                                    # duplicates of the farthest point: ties
        p[k] = p[far]
        mind[k] = mind[far]
    out = run("probe/fps-argmax-shfl", h, n, policy=policy)
    ref = np.minimum(mind, d2())
    # float32 differences and squares (maybe fused) against float64: a few 2^-24 relative
    assert (np.abs(out[1] - ref) <= 1e-6 * ref).all() and out[1][h[2]] == 0
    for b in range(-(-n // 256)):
        m = out[1][b * 256:(b + 1) * 256]
        assert out[3][b] == m.max() and out[4][b] == b * 256 + np.argmax(m)       # the first of the largest
    best = int(np.argmax(out[3]))
    assert out[4][best] == min(5, far) and out[3][best] == out[1].max()


# ---- pers-image-expf ----

def _pi_close(out, ref):
    # per pair: expf within 2 ulp and its argument within ~4 roundings of up to ~40: < 2e-5
    # relative; the sum of positive terms adds its length x 2^-24 (< 1e-4 for 1030 pairs)
    ref = ref.ravel()
    return (np.abs(out - ref) <= 2e-5 * ref + 7e-5 * ref + 1e-9 * ref.max()).all()


def test_persistence_image():
    host, out, *_ = launch("probe/pers-image-expf", 3)
    ref = tp._p196_pi_ref(*host[:2], *host[3:])
    assert _pi_close(out[2], ref) and ref.max() > 10


@pytest.mark.parametrize("m, policy", [(1030, "lockstep"), (24, "random")])
def test_persistence_image_hand(m, policy):
    # an empty diagram; one pair at pixel (3, 12)'s centre with weight 1; m pairs (1030: two
    # chunks) with a fifth on the diagonal (weight 0)
    rng = np.random.default_rng(7)
    off = np.array([0, 0, 1, m + 1], np.int32)
    pairs = np.zeros(m + 1, tp.P196_PAIR_DTYPE)
    pairs[0] = (3.5 * 0.05, 3.5 * 0.05 + 12.5 * 0.05)
    b = rng.uniform(0, 1.6, m).astype(np.float32)
    pairs["birth"][1:] = b
    pairs["death"][1:] = b + rng.exponential(0.3, m).astype(np.float32) * (rng.random(m) > 0.2)
    h = [off, pairs, np.zeros(3 * 1024, np.float32), *tp._p196_pi_consts()]
    out = run("probe/pers-image-expf", h, 3, policy=policy)
    ref = tp._p196_pi_ref(off, pairs, *h[3:])
    img = out[2].reshape(3, 32, 32)
    assert _pi_close(out[2], ref) and (img[0] == 0).all()
    assert abs(img[1, 12, 3] - h[7]) < 1e-6 * h[7] and img[1].max() == img[1, 12, 3]
