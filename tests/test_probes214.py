"""probe-unseen212's kernels (kernels_cuda/probes214.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/pgm-stereo-census-smem-popcll", "probe/pgm-fast9-const-circle-append",
       "probe/pgm-orb-hamming-warp-knn", "probe/pgm-ransac-homog-dlt-ballot",
       "probe/pgm-ba-reproj-huber-double", "probe/pgm-pyrdown-gauss5-u8"]


# ---- the references ----

def census_ref(img):
    """9 x 7 census (uint64, 62 bits, row-major from the top-left, the centre skipped; a bit
    set where the neighbour is darker), the image's edge pixels replicated."""
    h, w = img.shape
    P = np.pad(img, ((3, 3), (4, 4)), mode="edge")
    bits = np.zeros((h, w), np.uint64)
    for dy in range(-3, 4):
        for dx in range(-4, 5):
            if dx == 0 and dy == 0:
                continue
            bits = (bits << np.uint64(1)) | (P[3 + dy:3 + dy + h, 4 + dx:4 + dx + w] < img).astype(np.uint64)
    return bits


def stereo_ref(left, right, D=128, uniq=15):
    """Winner-takes-all census stereo: disparities x 16 (int16, -16 rejected), with the
    uniqueness check and the parabola's subpixel step in float32."""
    h, w = left.shape
    cl, cr = census_ref(left), census_ref(right)
    xs = np.arange(w)
    cost = np.full((h, w, D), 255, np.int64)
    for d in range(D):
        cost[:, d:, d] = np.bitwise_count(cl[:, d:] ^ cr[:, :w - d]) if d < w else 0
    maxd = np.minimum(D - 1, xs)[None, :].repeat(h, 0)
    bd = np.argmin(cost, axis=2)
    best = np.take_along_axis(cost, bd[..., None], 2)[..., 0]
    dd = np.arange(D)[None, None, :]
    near = cost * 100 < best[..., None] * (100 + uniq)
    amb = ((np.abs(dd - bd[..., None]) > 1) & (dd <= maxd[..., None]) & near).any(2)
    cm = np.take_along_axis(cost, np.maximum(bd - 1, 0)[..., None], 2)[..., 0]
    cp = np.take_along_axis(cost, np.minimum(bd + 1, D - 1)[..., None], 2)[..., 0]
    den = cm + cp - 2 * best
    inner = (bd > 0) & (bd < maxd) & (den > 0)
    sub = bd.astype(np.float32)
    step = (cm - cp).astype(np.float32) / (np.float32(2) * np.maximum(den, 1).astype(np.float32))
    sub = np.where(inner, sub + step, sub).astype(np.float32)
    out = np.floor(sub * np.float32(16) + np.float32(0.5)).astype(np.int16)
    return np.where(amb, np.int16(-16), out)


def fast_ref(img, t=20):
    """FAST-9 on one view: (y, x, score) of its corners, row-major."""
    h, w = img.shape
    im = img.astype(np.int64)
    p = im[3:h - 3, 3:w - 3]
    ring = np.stack([im[3 + dy:h - 3 + dy, 3 + dx:w - 3 + dx] for dx, dy in tp.P214_CIRCLE])
    br, dk = ring > p + t, ring < p - t
    comp = [8, 0, 4, 12]                         # (0, -3), (0, 3), (3, 0), (-3, 0)
    ok = (br[comp].sum(0) >= 2) | (dk[comp].sum(0) >= 2)

    def arc(m):
        m2 = np.concatenate([m, m])
        return np.stack([m2[s:s + 9].all(0) for s in range(16)]).any(0)
    ab, ad = arc(br), arc(dk)
    sb = np.where(br, ring - (p + t), 0).sum(0)
    sd = np.where(dk, (p - t) - ring, 0).sum(0)
    corner = ok & (ab | ad)
    score = np.maximum(np.where(ab, sb, 0), np.where(ad, sd, 0))
    y, x = np.nonzero(corner)
    return y + 3, x + 3, score[y, x]


def orb_ref(q, t, nper, npairs, maxd=64, ratio=0.8):
    """2-NN matching by pairs: (match, best distance, second distance)."""
    q = q.reshape(npairs, nper, 8)
    t = t.reshape(npairs, nper, 8)
    match = np.zeros((npairs, nper), np.int64)
    best = np.zeros((npairs, nper), np.int64)
    sec = np.zeros((npairs, nper), np.int64)
    for p in range(npairs):
        d = np.bitwise_count(q[p][:, None, :] ^ t[p][None, :, :]).sum(2).astype(np.int64)
        bi = np.argmin(d, axis=1)
        b = d[np.arange(nper), bi]
        s = np.sort(d, axis=1)[:, 1] if nper > 1 else np.full(nper, 1000)
        ok = (b <= maxd) & (np.float32(b) < np.float32(ratio) * np.float32(s))
        match[p] = np.where(ok, bi, -1)
        best[p], sec[p] = b, s
    return match.ravel(), best.ravel(), sec.ravel()


def ransac_ref(m, samples, T2=9.0):
    """Per hypothesis: H (float32 x 9; zeros if degenerate), the MSAC cost (float64 sum of the
    float32 truncated errors; 1e30 if degenerate), inliers."""
    s = samples.reshape(-1, 4)
    nh = len(s)
    A = np.zeros((nh, 8, 9))
    for k in range(4):
        p = m[s[:, k]]
        x, y, u, v = (p[f].astype(np.float64) for f in ("x1", "y1", "x2", "y2"))
        A[:, 2 * k] = np.stack([x, y, np.ones(nh), 0 * x, 0 * x, 0 * x, -u * x, -u * y, u], 1)
        A[:, 2 * k + 1] = np.stack([0 * x, 0 * x, 0 * x, x, y, np.ones(nh), -v * x, -v * y, v], 1)
    ok = np.ones(nh, bool)
    ar = np.arange(nh)
    for c in range(8):
        piv = c + np.argmax(np.abs(A[:, c:, c]), axis=1)
        big = np.abs(A[ar, piv, c])
        ok &= big >= 1e-9
        rc, rp = A[ar, c].copy(), A[ar, piv].copy()
        A[ar, c], A[ar, piv] = rp, rc
        piv_v = np.where(ok, A[:, c, c], 1.0)
        for r in range(c + 1, 8):
            f = A[:, r, c] / piv_v
            A[:, r, c:] -= f[:, None] * A[:, c, c:]
    hh = np.zeros((nh, 8))
    with np.errstate(all="ignore"):
        for c in range(7, -1, -1):
            acc = A[:, c, 8].copy()
            for k in range(c + 1, 8):
                acc -= A[:, c, k] * hh[:, k]
            hh[:, c] = acc / A[:, c, c]
    H = np.zeros((nh, 9), np.float32)
    H[ok, :8] = hh[ok].astype(np.float32)
    H[ok, 8] = 1
    f32 = np.float32
    x1, y1, x2, y2 = (m[f][None, :] for f in ("x1", "y1", "x2", "y2"))
    h = [H[:, k:k + 1] for k in range(9)]
    with np.errstate(all="ignore"):
        w = h[6] * x1 + h[7] * y1 + h[8]
        u = (h[0] * x1 + h[1] * y1 + h[2]) / w
        v = (h[3] * x1 + h[4] * y1 + h[5]) / w
        du, dv = u - x2, v - y2
        e2 = np.where(np.abs(w) > f32(1e-6), np.fmin(du * du + dv * dv, f32(T2)), f32(T2))
    cost = np.where(ok, e2.astype(np.float64).sum(1), 1e30)
    inl = np.where(ok, (e2 < f32(T2)).sum(1), 0)
    return H, cost, inl


def ba_ref(cams, pts, obs, delta=2.0):
    """Residuals (n x 2), the Huber cost's sum and the residuals past delta, in float64."""
    c = cams.reshape(-1, 9)[obs["cam"]]
    X = pts.reshape(-1, 3)[obs["point"]]
    r = c[:, :3]
    th2 = r[:, 0] * r[:, 0] + r[:, 1] * r[:, 1] + r[:, 2] * r[:, 2]
    big = th2 > np.finfo(np.float64).eps
    th = np.sqrt(th2)
    ths = np.where(big, th, 1.0)
    wv = r / ths[:, None]
    ct, st = np.cos(th), np.sin(th)
    cr = np.cross(wv, X)
    tmp = (wv[:, 0] * X[:, 0] + wv[:, 1] * X[:, 1] + wv[:, 2] * X[:, 2]) * (1 - ct)
    full = X * ct[:, None] + cr * st[:, None] + wv * tmp[:, None]
    P = np.where(big[:, None], full, X + np.cross(r, X)) + c[:, 3:6]
    xp, yp = -P[:, 0] / P[:, 2], -P[:, 1] / P[:, 2]
    rr = xp * xp + yp * yp
    d = 1 + rr * (c[:, 7] + c[:, 8] * rr)
    e = np.column_stack([c[:, 6] * d * xp - obs["u"], c[:, 6] * d * yp - obs["v"]])
    s = (e * e).sum(1)
    out = s > delta * delta
    return e, np.where(out, 2 * delta * np.sqrt(s) - delta * delta, s).sum(), int(out.sum())


def pyr_ref(img):
    """OpenCV's pyrDown of one view (5 x 5 binomial / 256, reflect-101, rounded)."""
    h, w = img.shape
    P = np.pad(img.astype(np.int64), 2, mode="reflect")
    full = np.zeros((h, w), np.int64)
    for ky in range(5):
        for kx in range(5):
            full += tp.P214_GAUSS[ky, kx] * P[ky:ky + h, kx:kx + w]
    return ((full[::2, ::2] + 128) >> 8).astype(np.uint8)


# ---- the family ----

def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen212"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes214.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # stereo: a layered scene, most pixels matched right by census WTA, the far left and the
    # textureless walls rejected
    left, right, gt = tp._p214_stereo(640, 360, rng)
    assert left.dtype == np.uint8 and 6 <= gt.min() and gt.max() < 120 and np.ptp(gt) > 60
    assert 110 < left.mean() < 145 and 30 < left.std() < 55 and abs(right.mean() - (0.95 * left.mean() + 6)) < 3
    d = stereo_ref(left, right)
    ok = d != -16
    good = np.abs(d / 16 - gt) < 1
    assert 0.6 < ok.mean() < 0.9 and good[ok].mean() > 0.7
    xs = np.arange(640)[None, :]
    assert (ok & good)[xs < gt - 2].mean() < 0.1                  # the match outside the right image
    # views: 75% overlap, a sky without corners, ~0.1 .. 2% FAST corners
    v = tp._p214_views(3, 240, 320, rng)
    a, b = v[0][100:, 80:].astype(float), v[1][100:, :240].astype(float)
    assert np.corrcoef(a.ravel(), b.ravel())[0, 1] > 0.9
    assert np.abs(np.diff(v[:, :50].astype(int), axis=2)).mean() < 2.8       # the sky: smooth but for noise
    assert np.abs(np.diff(v[:, 60:].astype(int), axis=2)).mean() > 3.2
    big = tp._p214_views(2, 900, 1200, rng)
    frac = [len(fast_ref(im)[0]) / im.size for im in big]
    assert all(0.001 < f < 0.02 for f in frac)
    y, x, s = fast_ref(big[0])
    assert (y > 0.2 * 900).all() and np.median(s) > 40
    # ORB descriptors: unrelated ~120 bits apart, true partners ~10 .. 46
    q, t, truth = tp._p214_orb(2, 512, rng)
    bits = np.unpackbits(q.view(np.uint8), axis=1, bitorder="little").mean(0)
    assert 0.08 < bits.min() and bits.max() < 0.92 and 0.08 < bits.std() < 0.16
    dd = np.bitwise_count(q[:512, None, :] ^ t[None, :512, :]).sum(2)
    assert 110 < np.median(dd) < 130
    has = truth[:512] >= 0
    td = dd[np.flatnonzero(has), truth[:512][has]]
    assert 0.58 < has.mean() < 0.72 and 15 < np.median(td) < 35 and td.max() < 80
    m, best, _ = orb_ref(q, t, 512, 2)
    assert (m[m >= 0] == truth[m >= 0]).mean() > 0.97 and 0.5 < (m >= 0).mean() < 0.7
    # matches: 35% inliers on the homography, the rest off it
    mm, H, kind = tp._p214_matches(4000, rng)
    hp = np.column_stack([mm["x1"], mm["y1"], np.ones(4000)]) @ H.T
    e = np.hypot(hp[:, 0] / hp[:, 2] - mm["x2"], hp[:, 1] / hp[:, 2] - mm["y2"])
    assert 0.31 < (kind == 0).mean() < 0.39 and np.percentile(e[kind == 0], 95) < 3
    assert (e[kind == 1] > 50).all() and np.median(e[kind == 2]) > 500
    assert mm["x1"].min() >= 0 and mm["x1"].max() <= 3999 and mm["y1"].max() <= 2999
    s = tp._p214_samples(5000, 4000, rng)
    assert all(len(set(r)) == 4 for r in s) and s.min() >= 0 and s.max() < 4000
    # bundle adjustment: sorted by camera, the first camera the world's, residuals ~1 px
    cams, pts, obs = tp._p214_ba(60000, rng)
    assert (np.diff(obs["cam"]) >= 0).all() and len(obs) == 60000 and len(cams) == 21
    assert (cams[0, :3] == 0).all() and (cams[0, 3:6] ** 2).sum() < 1e-3
    L = np.bincount(obs["point"])
    assert 4 < L.mean() < 6 and L.min() >= 1 and L.max() <= 40
    e, cost, nout = ba_ref(cams, pts, obs)
    r = np.hypot(e[:, 0], e[:, 1])
    assert 0.5 < np.median(r) < 1.6 and 0.08 < nout / len(obs) < 0.25 and np.percentile(r, 99.5) > 5
    assert np.percentile(np.abs(obs["u"]), 99) < 800


# ---- stereo-census-smem-popcll ----

def _grid_cs(w, h):
    return (-(-w // tp.P214_CS_BX), -(-h // tp.P214_CS_BY))


def test_stereo_census():
    rng = np.random.default_rng(1)
    w, h = 200, 18                                           # a partial block in x and in y
    left, right, _ = tp._p214_stereo(w, h, rng, nobj=4)
    left[2:12, 140:190] = 90                                 # a flat patch in both: census 0, every cost 0,
    right[2:12, 100:190] = 93
    left[14:, :30] = 255                                     # saturated
    host = [left.ravel(), right.ravel(), np.int32(w), np.int32(h), np.zeros(w * h, np.int16)]
    out = run("probe/pgm-stereo-census-smem-popcll", host, w, grid=_grid_cs(w, h))
    want = stereo_ref(left, right)
    got = out[4].reshape(h, w)
    assert (got == want).all()
    assert (got[5:9, 150:180] == 0).all() and (got != -16).mean() > 0.4     # ... the first of the ties kept


def test_stereo_census_shift():
    # a random-dot pair shifted by 37 px: most pixels with a match find it (a very dark or bright
    # centre's census is nearly all 0 or 1s: ties with d = 0 and others)
    rng = np.random.default_rng(2)
    w, h, s = 130, 8, 37
    left = rng.integers(0, 256, (h, w)).astype(np.uint8)
    right = np.empty_like(left)
    right[:, :w - s] = left[:, s:]
    right[:, w - s:] = rng.integers(0, 256, (h, s))
    host = [left.ravel(), right.ravel(), np.int32(w), np.int32(h), np.zeros(w * h, np.int16)]
    got = run("probe/pgm-stereo-census-smem-popcll", host, w, grid=_grid_cs(w, h))[4].reshape(h, w)
    assert (got == stereo_ref(left, right)).all()
    inner = got[:, s + 5:w - 5]
    assert (np.abs(inner - 16 * s) <= 8).mean() > 0.85 and (got[:, :s - 1] == -16).mean() > 0.3
    assert got[0, 0] == 0                                    # d = 0 the only choice at x = 0


# ---- fast9-const-circle-append ----

def _fast_sorted(corners, count):
    c = corners[:count]
    key = np.lexsort((c["x"], c["y"], c["view"]))
    return c[key]


def _fast_want(img, t=20):
    rows = []
    for v, im in enumerate(img):
        y, x, s = fast_ref(im, t)
        rows.append(np.stack([np.full(len(y), v), y, x, s], 1))
    return np.concatenate(rows)


def test_fast9():
    rng = np.random.default_rng(3)
    w, h = 100, 45
    img = tp._p214_views(tp.P214_VIEWS, h, w, rng)
    img[0, 10:20, 10:20] = 250                               # a bright square on a dark ground: 4 corners
    img[0, 5:25, 5:25][img[0, 5:25, 5:25] < 250] = 10
    img[1, :3] = 0                                           # the border rows are never tested
    cap = 4000
    host = [img.ravel(), np.int32(w), np.int32(h), np.zeros(cap, tp.P214_CORNER_DTYPE), np.int32(cap),
            np.zeros(1, np.int32)]
    out = run("probe/pgm-fast9-const-circle-append", host, w, symbols={"c_circle": tp.P214_CIRCLE},
              grid=(-(-w // 32), -(-h // 8), tp.P214_VIEWS))
    want = _fast_want(img)
    n = int(out[5][0])
    assert n == len(want) > 50
    got = _fast_sorted(out[3], n)
    assert (np.stack([got["view"], got["y"], got["x"], got["score"]], 1) == want).all()
    sq = want[(want[:, 0] == 0) & (want[:, 1] < 25) & (want[:, 2] < 25)]
    assert {(y, x) for _, y, x, _ in sq} >= {(10, 10), (10, 19), (19, 10), (19, 19)}
    assert (sq[:, 3] > 16 * 100).any()                       # the square's corners: big scores


def test_fast9_overflow():
    rng = np.random.default_rng(4)
    w, h = 64, 24
    img = rng.integers(0, 256, (tp.P214_VIEWS, h, w)).astype(np.uint8)     # noise: corners everywhere
    cap = 40
    host = [img.ravel(), np.int32(w), np.int32(h), np.zeros(cap, tp.P214_CORNER_DTYPE), np.int32(cap),
            np.zeros(1, np.int32)]
    out = run("probe/pgm-fast9-const-circle-append", host, w, symbols={"c_circle": tp.P214_CIRCLE},
              grid=(2, 3, tp.P214_VIEWS))
    want = _fast_want(img)
    assert int(out[5][0]) == len(want) > cap
    got = out[3]
    keys = {tuple(r) for r in want}
    assert all((c["view"], c["y"], c["x"], c["score"]) in keys for c in got)
    assert len({(c["view"], c["y"], c["x"]) for c in got}) == cap


# ---- orb-hamming-warp-knn ----

def _orb(h, nper, npairs, grid=None, policy="lockstep"):
    n = nper * npairs
    out = run("probe/pgm-orb-hamming-warp-knn", h, n, grid=grid or (-(-n * 32 // 256), 1), policy=policy)
    m, best, sec = orb_ref(h[0], h[1], nper, npairs)
    assert (out[4] == m).all() and (out[5] == np.minimum(best, 255)).all()
    assert (out[6] == np.bincount(np.minimum(best, 256), minlength=257)).all() and out[7][0] == (m >= 0).sum()
    return out, m, best, sec


def test_orb_match():
    rng = np.random.default_rng(5)
    nper, npairs = 80, 3                                     # 2.5 rounds a lane, 30 queries a block
    h = tp._p214_orb_args(nper * npairs, rng, nper=nper)
    t = h[1].reshape(npairs, nper, 8)
    q = h[0].reshape(npairs, nper, 8)
    fresh = tp._p214_orb(1, 3, rng)[0]                       # new features, ~95+ bits from the rest
    q[0, 5], q[1, 0], q[2, 1] = fresh
    t[0, 70] = q[0, 5]                                       # distance 0 at two indices (lanes 6 and 1):
    t[0, 33] = q[0, 5]                                       # the second is 0 too, no match
    t[1, 10] = q[1, 0]
    t[1, 11] = q[1, 0] ^ np.array([0xFFF, 0, 0, 0, 0, 0, 0, 0], np.uint32)    # 12 bits away: 0 < 0.8 x 12, a match
    t[2, 40] = q[2, 1] ^ np.array([0, 0, 0xFFFFFFFF, 0, 0, 0, 0, 0], np.uint32)   # 32 bits off, second 40:
    t[2, 41] = q[2, 1] ^ np.array([0xFFFFFFFF, 0xFF, 0, 0, 0, 0, 0, 0], np.uint32)    # 32 < 32 false
    out, m, best, sec = _orb(h, nper, npairs)
    assert m[5] == -1 and best[5] == 0 and out[5][5] == 0
    assert m[nper] == 10 and best[nper] == 0 and sec[nper] == 12
    assert m[2 * nper + 1] == -1 and best[2 * nper + 1] == 32 and sec[2 * nper + 1] == 40 and out[5][2 * nper + 1] == 32
    assert (m >= 0).mean() > 0.4


def test_orb_match_few_features():
    rng = np.random.default_rng(6)
    nper, npairs = 20, 2                                     # lanes 20 .. 31 see nothing
    h = tp._p214_orb_args(nper * npairs, rng, nper=nper)
    _orb(h, nper, npairs, policy="random")                   # warps interleaved: the shared histogram's atomics
    h1 = tp._p214_orb_args(3, rng, nper=1)                   # one feature an image: no second
    h1[1][8:16] = h1[0][8:16] ^ np.uint32(0x11)              # 16 bits apart: a match
    h1[1][16:] = ~h1[0][16:]                                 # 256 apart: the byte saturates, the last bin
    out, m, best, sec = _orb(h1, 1, 3)
    assert list(m[1:]) == [0, -1] and list(best[1:]) == [16, 256] and out[5][2] == 255 and out[6][256] == 1


# ---- ransac-homog-dlt-ballot ----

def _rh(h, nhyp, policy="lockstep"):
    out = run("probe/pgm-ransac-homog-dlt-ballot", h, nhyp, policy=policy)
    H, cost, inl = ransac_ref(h[0], h[2])
    assert (out[3].reshape(-1, 9) == H).all()
    assert (out[5] == inl).all()
    assert np.allclose(out[4], cost, rtol=1e-5)
    key = (inl.astype(np.uint64) << np.uint64(32)) | (np.uint64(0xFFFFFFFF) - np.arange(nhyp, dtype=np.uint64))
    assert out[6][0] == key.max()
    return out, H, cost, inl


def test_ransac_homog():
    rng = np.random.default_rng(7)
    nm, nhyp = 300, 24                                       # a partial warp in the last round
    mm, H, kind = tp._p214_matches(nm, rng)
    s = tp._p214_samples(nhyp, nm, rng)
    h = [mm, np.int32(nm), s.ravel(), np.zeros(9 * nhyp, np.float32), np.zeros(nhyp, np.float32),
         np.zeros(nhyp, np.int32), np.zeros(1, np.uint64)]
    inl_idx = np.flatnonzero(kind == 0)
    p = np.column_stack([mm["x1"], mm["y1"]])[inl_idx]
    far = [inl_idx[np.argmax(p @ d)] for d in ([1, 1], [1, -1], [-1, 1], [-1, -1])]
    s[0] = far                                               # all inliers, spread out: the true plane found
    s[1] = inl_idx[4:8]                                      # all inliers, wherever
    s[2] = [5, 9, 5, 11]                                     # a repeated match: singular, degenerate
    s[3] = [inl_idx[0], inl_idx[1], inl_idx[2], inl_idx[0]]
    s[4] = [far[1], far[0], far[3], far[2]]                  # the same sample reordered: the same score
    out, Hk, cost, inl = _rh(h, nhyp)
    assert inl[0] > 0.9 * len(inl_idx) and inl[1] > 10
    assert list(inl[2:4]) == [0, 0] and (out[4][2:4] == np.float32(1e30)).all() and (Hk[2:4] == 0).all()
    assert abs(inl[4] - inl[0]) <= 2
    assert np.allclose(Hk[0].reshape(3, 3), H, rtol=0.05, atol=1e-3 * np.abs(H).max())
    best = int(out[6][0])
    assert best >> 32 == inl.max() and 0xFFFFFFFF - (best & 0xFFFFFFFF) in (0, 4)     # the spread sample wins


def test_ransac_homog_ties():
    rng = np.random.default_rng(8)
    nm = 100
    mm, H, kind = tp._p214_matches(nm, rng)
    s = np.tile(tp._p214_samples(1, nm, rng), (6, 1))        # six copies of one sample: a tie, hypothesis 0 wins
    h = [mm, np.int32(nm), s.ravel(), np.zeros(54, np.float32), np.zeros(6, np.float32), np.zeros(6, np.int32),
         np.zeros(1, np.uint64)]
    out, _, _, inl = _rh(h, 6, policy="random")
    assert (inl == inl[0]).all() and out[6][0] & np.uint64(0xFFFFFFFF) == 0xFFFFFFFF


# ---- ba-reproj-huber-double ----

def _ba(h, n, grid=None):
    out = run("probe/pgm-ba-reproj-huber-double", h, n, grid=grid)
    e, cost, nout = ba_ref(h[0], h[1], h[2])
    assert np.allclose(out[4].reshape(-1, 2), e, rtol=1e-11, atol=1e-9)
    assert out[5][0] == pytest.approx(cost, rel=1e-11) and out[6][0] == nout
    return e, cost, nout


def test_ba_residuals():
    rng = np.random.default_rng(9)
    n = 3001                                                 # a partial warp at the end
    h = tp._p214_ba_args(n, rng)
    cams = h[0].reshape(-1, 9)
    cams[3, :3] = [1e-9, 0, 0]                               # small-angle branch on another camera
    cams[4, :3] = [0, 0, np.pi - 1e-3]                       # a half turn nearly
    e, cost, nout = _ba(h, n)
    assert 0 < nout < n // 3 and (h[2]["cam"] == 0).sum() > 50
    for a in h[4:]:
        a[...] = 0
    _ba(h, n, grid=(3, 1))                                   # the grid-stride loop: ~4 rounds a thread


def test_ba_empty():
    rng = np.random.default_rng(10)
    h = tp._p214_ba_args(100, rng)
    h[3] = np.int32(0)                                       # no observations: nothing written, zero cost
    out = run("probe/pgm-ba-reproj-huber-double", h, 100, grid=(1, 1))
    assert (out[4] == 0).all() and out[5][0] == 0 and out[6][0] == 0


# ---- pyrdown-gauss5-u8 ----

@pytest.mark.parametrize("w,h", [(71, 37), (64, 40), (3, 5)])
def test_pyr_down(w, h):
    rng = np.random.default_rng(11)
    img = tp._p214_views(tp.P214_VIEWS, h, w, rng)
    img[0, :, 0] = 255                                       # the reflections at the borders
    img[0, -1, :] = 0
    dw, dh = (w + 1) // 2, (h + 1) // 2
    host = [img.ravel(), np.int32(w), np.int32(h), np.zeros(tp.P214_VIEWS * dw * dh, np.uint8)]
    out = run("probe/pgm-pyrdown-gauss5-u8", host, w, symbols={"c_gauss": tp.P214_GAUSS},
              grid=(-(-dw // 32), -(-dh // 8), tp.P214_VIEWS))
    want = np.stack([pyr_ref(im) for im in img])
    assert (out[3].reshape(tp.P214_VIEWS, dh, dw) == want).all()
