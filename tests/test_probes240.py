"""probe-unseen238's kernels (kernels_cuda/probes240.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/font-quad-flatten-warp-scan-alloc", "probe/font-sdf-atlas-smem-segments-u8",
       "probe/font-coverage-accumulate-atomics", "probe/font-coverage-resolve-blelloch-ink-f64",
       "probe/font-lcd-subpixel-fir5-gamma-const", "probe/font-hint-bluezone-f26dot6-warp"]

F32 = np.float32
EPS = 2.0 ** -24                 # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen238"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes240.cu" and len(tp.get(i).note) > 400 for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- the data ----

def test_font():
    font = tp._p240_font()
    assert len(font) == 26
    for ch, (cont, adv) in zip(tp.P240_ALPHABET, font):
        ink = 0.0
        for c in cont:
            assert np.allclose(c[1:, 0], c[:-1, 2]) and np.allclose(c[0, 0], c[-1, 2])   # closed chains of quads
            ink += tp._p240_area(c)
        assert ink > 0 and 300 < adv < 2200, ch
        q = np.concatenate(cont)
        assert q[..., 1].min() > tp.P240_DESC - 40 and q[..., 1].max() < tp.P240_ASC + 60
    cont, _ = font[tp.P240_ALPHABET.index("o")]                      # a bowl: ink counter-clockwise,
                                                                     # the counter clockwise
    assert tp._p240_area(cont[0]) > 0 > tp._p240_area(cont[1])
    R = tp.P240_XH / 2 + tp.P240_OS
    assert np.isclose(tp._p240_area(cont[0]), np.pi * R * R, rtol=5e-3)   # 45-degree quads bulge 0.3% at most
    # the exact-area accumulation (the resolve probe's data): an 'l' at 30 px / em covers its stem's area
    s = 30.0 / tp.P240_UPM
    q, _ = tp._p240_placed(font, np.array([11]), np.array([5.3]), np.array([40.6]), np.array([30.0]))
    cov = np.cumsum(tp._p240_accumulate(tp._p240_flatten(q, 0.1), 24, 48), 1)
    assert np.isclose(cov.sum(), tp.P240_WT * s * tp.P240_ASC * s, rtol=1e-12)
    assert np.abs(cov[:, -1]).max() < 1e-12                            # every row's cells sum to zero
    # TrueType points: on-curve starts and off-curve controls, int16
    pts, ends = tp._p240_points(cont)
    assert pts.dtype == np.int16 and len(pts) == 32 and list(ends) == [15, 31]


def test_text_and_pages():
    rng = np.random.default_rng(1)
    words = tp._p240_words(rng, 20000)
    lens = np.array([len(w) for w in words])
    assert 4.0 < lens.mean() < 5.0
    f = np.bincount(np.concatenate(words), minlength=26) / lens.sum()
    assert np.argmax(f) == 4 and abs(f[4] - 0.127) < 0.01                 # e
    q, first, npg = tp._p240_pages(rng, 6000)
    assert npg >= 2 and len(first) == 6001 and first[-1] == len(q)
    y = q[..., 1]
    page = np.floor(y.min(1) / tp.P240_PAGE_H)
    assert (y.max(1) < (page + 1) * tp.P240_PAGE_H).all()                  # no curve across a page break
    inpage = y - page[:, None] * tp.P240_PAGE_H
    assert inpage.min() > tp.P240_MARGIN - 60 and inpage.max() < tp.P240_PAGE_H - tp.P240_MARGIN + 60
    x = q[..., 0]
    assert x.min() > tp.P240_MARGIN - 20 and x.max() < tp.P240_PAGE_W - tp.P240_MARGIN + 20


# ---- flatten_quads ----

def _nsub(q, tol):
    """The segment counts in float64 and whether each is too close to call in float32."""
    dev = 0.25 * np.hypot(*(q[:, 0] - 2 * q[:, 1] + q[:, 2]).T)
    r = np.sqrt(dev / tol)
    k = np.clip(np.ceil(r), 1, 16).astype(np.int64)
    near = (np.abs(r - np.rint(r)) < 1e-4 * np.maximum(r, 1)) & (r > 0.5) & (r < 16.5)
    return k, near


def _check_fq(q, tol, cap=None, grid=None):
    nq = len(q)
    host = [np.ascontiguousarray(np.asarray(q, F32).reshape(nq, 6)), np.int32(nq), F32(tol), None, None,
            np.zeros(1, np.int32), np.zeros(nq, np.int32)]
    q = host[0].astype(np.float64).reshape(nq, 3, 2)
    k, near = _nsub(q, float(F32(tol)))
    assert not near.any()                                      # no count on the fence: the reference is exact
    total = int(k.sum())
    cap = total if cap is None else cap
    host[3], host[4] = np.zeros((cap, 4), F32), np.int32(cap)
    out = run("probe/font-quad-flatten-warp-scan-alloc", host, nq, grid=grid)
    assert out[5][0] == total                                  # every curve counted, room or not
    first = out[6]
    # the curves' runs tile [0, total): a warp's runs in lane order, the warps in any order
    o = np.argsort(first, kind="stable")
    assert first[o[0]] == 0 and (first[o[1:]] == (first + k)[o[:-1]]).all()
    for w in range(0, nq, 32):
        f, kk = first[w:w + 32], k[w:w + 32]
        assert (f[1:] == f[:-1] + kk[:-1]).all()
    seg = out[3].astype(np.float64)
    fits = first + k <= cap
    mag = np.abs(q).max((1, 2))
    for i in np.flatnonzero(fits):
        s = seg[first[i]:first[i] + k[i]]
        t = np.arange(k[i] + 1)[:, None] / k[i]
        p = (1 - t) ** 2 * q[i, 0] + 2 * t * (1 - t) * q[i, 1] + t * t * q[i, 2]
        # t = j / k rounded, (1 - t)^2 p0 + 2 (1 - t) t c + t^2 p1 with fmas: a few roundoffs of
        # the coordinates' size
        assert np.abs(s[:, :2] - p[:-1]).max() <= 8 * EPS * mag[i] + 1e-30
        assert np.abs(s[:, 2:] - p[1:]).max() <= 8 * EPS * mag[i] + 1e-30
        assert (s[0, :2] == q[i, 0]).all() and (s[-1, 2:] == q[i, 2]).all()     # ends exact
        assert (s[1:, :2] == s[:-1, 2:]).all()                                  # the polyline joined
    return out, k


def test_flatten_document():
    rng = np.random.default_rng(2)
    host = tp._p240_fq_args(1500, rng)
    q = host[0].reshape(-1, 3, 2)
    out, k = _check_fq(q, host[2], grid=(-(-1500 // 256),))
    assert 0.2 < (k == 1).mean() < 0.6 and (k >= 3).mean() > 0.2                # lines and arcs
    assert host[4] >= k.sum()


def test_flatten_cases():
    rng = np.random.default_rng(3)
    n = 77                                                         # a partial warp and a block past it
    p0 = rng.uniform(0, 300, (n, 2))
    p1 = p0 + rng.normal(0, 20, (n, 2))
    c = (p0 + p1) / 2 + rng.normal(0, 1, (n, 2)) * rng.choice([0.0, 0.3, 3.0, 40.0], (n, 1))
    c[:5] = (p0[:5] + p1[:5]) / 2                                  # straight: one segment
    c[5] = p0[5] + [1e4, 0]                                        # a spike: clamped to MAX_SUB
    p1[6], c[6] = p0[6], p0[6]                                     # a point: one empty segment
    q = np.stack([p0, c, p1], 1).astype(F32).astype(np.float64)
    q[:5, 1] = (q[:5, 0] + q[:5, 2]) / 2
    out, k = _check_fq(q, 0.25, grid=(2,))
    assert (k[:5] == 1).all() and k[5] == 16 and k[6] == 1 and k.max() == 16
    cap = int(out[6][5]) + 5                                       # inside the spike's run (likely)
    out, k = _check_fq(q, 0.25, cap=cap, grid=(2,))               # out of room: the runs past cap left out
    f = out[6]
    cut = (f < cap) & (f + k > cap)
    assert cut.sum() <= 1 and (f + k > cap).any()
    assert (out[3][f[cut].min():] == 0).all() if cut.any() else True   # the run across cap: not written


# ---- sdf_glyph_tiles ----

def _sdf_ref(seg, start, n):
    """The signed distance (float64 (n, 64, 64)) of each cell's texel centres to its segments,
    positive where the nonzero winding of a ray to +x says inside; and the distance to the
    nearest crossing of a texel's row (where the sign is decided)."""
    yy, xx = np.mgrid[0:64, 0:64] + 0.5
    sd = np.zeros((n, 64, 64))
    margin = np.full((n, 64, 64), np.inf)
    for g in range(n):
        d2 = np.full((64, 64), 1e30)
        w = np.zeros((64, 64), np.int64)
        for x0, y0, x1, y1 in seg[start[g]:start[g + 1]]:
            ex, ey = x1 - x0, y1 - y0
            wx, wy = xx - x0, yy - y0
            t = np.clip((wx * ex + wy * ey) / max(ex * ex + ey * ey, 1e-12), 0, 1)
            d2 = np.minimum(d2, (wx - t * ex) ** 2 + (wy - t * ey) ** 2)
            cross = (y0 <= yy) != (y1 <= yy)
            if ey != 0:
                xc = x0 + (yy - y0) * ex / ey
                w += np.where(cross & (xc > xx), 1 if ey > 0 else -1, 0)
                margin[g] = np.minimum(margin[g], np.where(cross, np.abs(xc - xx), np.inf))
        sd[g] = np.where(w != 0, 1, -1) * np.sqrt(d2)
    return sd, margin


def _check_sdf(seg, start, spread):
    n = len(start) - 1
    host = [np.ascontiguousarray(np.asarray(seg, F32).reshape(-1, 4)), np.asarray(start, np.int32), F32(spread),
            np.zeros(n * 64 * 64, np.uint8)]
    out = run("probe/font-sdf-atlas-smem-segments-u8", host, n, grid=(n,))
    got = out[3].reshape(n, 64, 64).astype(np.int64)
    sd, margin = _sdf_ref(host[0].astype(np.float64), host[1], n)
    u = 255 * np.clip(0.5 + 0.5 * sd / float(F32(spread)), 0, 1) + 0.5
    want = np.floor(u)
    # float32 distances to a few ulps of the cell's coordinates (< 1e-5 px): the byte exact
    # unless 255 v + 0.5 is within 1e-3 of an integer; the winding's x > px test can only
    # disagree with float64 where the crossing is within 1e-4 px of the texel (then |sd| is
    # that small too: 127 or 128 either way)
    fence = (np.abs(u - np.rint(u)) < 1e-3) | (margin < 1e-4)
    assert (np.abs(got - want) <= 1).all() and (got[~fence] == want[~fence]).all()
    return got, sd


def test_sdf_atlas():
    rng = np.random.default_rng(4)
    host = tp._p240_sdf_args(3, rng)
    got, sd = _check_sdf(host[0], host[1], host[2])
    for g in range(3):
        assert 0.02 < (sd[g] > 0).mean() < 0.3 and got[g].max() > 140 and got[g].min() == 0


def test_sdf_cases():
    rng = np.random.default_rng(5)
    segs, start = [], [0]
    sq = np.array([[16.3, 16.3], [47.7, 16.3], [47.7, 47.7], [16.3, 47.7]])     # a square: the exact SDF known
    segs.append(np.concatenate([sq, np.roll(sq, -1, 0)], 1))
    start.append(start[-1] + 4)
    start.append(start[-1])                                        # an empty cell: all outside
    for ch in "gm":                                                # outlines over SEG_CHUNK: staged in 2-3 chunks
        cont, _ = tp._p240_glyph(ch, 300, 1.1)
        q = np.concatenate(cont).copy()
        s = 40.0 / tp.P240_UPM
        q[..., 0] = 32 + (q[..., 0] - q[..., 0].mean()) * s
        q[..., 1] = 42.3 - q[..., 1] * s
        e = tp._p240_flatten(q, 0.002)
        segs.append(e)
        start.append(start[-1] + len(e))
    seg = np.concatenate(segs)
    assert np.diff(start)[2:].min() > tp.P240_SEG_CHUNK
    got, sd = _check_sdf(seg, start, 4.0)
    yy, xx = np.mgrid[0:64, 0:64] + 0.5
    dx = np.maximum(np.abs(xx - 32) - 15.7, 0)
    dy = np.maximum(np.abs(yy - 32) - 15.7, 0)
    inside = np.minimum(15.7 - np.abs(xx - 32), 15.7 - np.abs(yy - 32))
    exact = np.where(inside > 0, inside, -np.hypot(dx, dy))
    assert np.abs(sd[0] - exact).max() < 1e-5
    assert (got[1] == 0).all()


# ---- coverage_accumulate ----

def _area_ref(seg, W, H):
    """The exact-area accumulation, independently: each segment cut at every row and every
    integer x it crosses; a piece inside column k from x_a to x_b, h high (signed), leaves
    h (k + 1 - (x_a + x_b) / 2) in cell k and the rest of h in cell k + 1."""
    acc = np.zeros((H, W))
    for x0, y0, x1, y1 in seg:
        if y0 == y1:
            continue
        ts = [0.0, 1.0]
        for r in range(int(np.floor(min(y0, y1))) + 1, int(np.ceil(max(y0, y1)))):
            ts.append((r - y0) / (y1 - y0))
        if x0 != x1:
            for c in range(int(np.floor(min(x0, x1))) + 1, int(np.ceil(max(x0, x1)))):
                ts.append((c - x0) / (x1 - x0))
        ts = np.unique(np.clip(ts, 0, 1))
        for ta, tb in zip(ts[:-1], ts[1:]):
            if tb <= ta:
                continue
            xa, xb = x0 + ta * (x1 - x0), x0 + tb * (x1 - x0)
            ya, yb = y0 + ta * (y1 - y0), y0 + tb * (y1 - y0)
            tm = (ta + tb) / 2
            k = int(np.floor(x0 + tm * (x1 - x0)))
            r = int(np.floor(y0 + tm * (y1 - y0)))
            h = yb - ya
            a = h * (k + 1 - (xa + xb) / 2)
            acc[r, k] += a
            acc[r, k + 1] += h - a
    return acc


def _check_ca(seg, W, H, grid=None):
    seg = np.ascontiguousarray(np.asarray(seg, F32))
    host = [seg, np.int32(len(seg)), np.int32(W), np.int32(H), np.zeros((H, W), F32)]
    out = run("probe/font-coverage-accumulate-atomics", host, len(seg), grid=grid or (-(-len(seg) // 256),))
    want = _area_ref(seg.astype(np.float64), W, H)
    got = out[4].astype(np.float64)
    # font-rs carries x from row to row in float32 (an ulp of the canvas coordinate a row, a
    # few dozen rows at most here) and splits a row's area by products of O(1) terms; each
    # cell gets a few such deposits by float atomicAdd in any order: 16 ulps of W in all (6 seen)
    tol = 16 * EPS * W
    assert np.abs(got - want).max() <= tol
    cg, cw = np.cumsum(got, 1), np.cumsum(want, 1)
    assert np.abs(cg - cw).max() <= 2 * tol                      # the coverage, as resolved
    return got, cw


def test_coverage_accumulate_page():
    rng = np.random.default_rng(6)
    q, first, npg = tp._p240_pages(rng, 200, W=360, H=140, margin=12, body=(18.0, 15.0), heads=(28.0,))
    seg = tp._p240_flatten(q, 0.1)
    seg = seg[np.maximum(seg[:, 1], seg[:, 3]) < 140]             # the first page
    assert len(seg) > 1500
    got, cov = _check_ca(seg, 360, 140)
    a = np.minimum(np.abs(cov), 1)
    assert 0.03 < a.mean() < 0.3 and (np.abs(cov) > 1.5).any()   # overlapping strokes: winding 2


def test_coverage_accumulate_cases():
    W, H = 64, 24
    r = lambda x0, y0, x1, y1: [[x0, y0, x1, y0], [x1, y0, x1, y1], [x1, y1, x0, y1], [x0, y1, x0, y0]]
    seg = r(3.25, 2.5, 13.75, 9.25)                                # a rectangle at fractions of a pixel
    seg += r(20.0, 3.0, 24.0, 8.0)                                 # on the grid: vertical edges on integer x
    seg += [[30.2, 2.3, 61.6, 4.1], [61.6, 4.1, 33.0, 20.7], [33.0, 20.7, 30.2, 2.3]]   # shallow: long spans
    seg += [[5.5, 12.0, 6.0, 22.9], [6.0, 22.9, 5.5, 12.0]]        # a sliver both ways: it cancels
    seg += [[10.0, 14.0, 10.0, 14.0], [8.0, 15.5, 18.0, 15.5]]     # a point, a horizontal line: no area
    got, cov = _check_ca(np.array(seg), W, H, grid=(1,))
    x = np.arange(W)
    ox = np.clip(np.minimum(x + 1, 13.75) - np.maximum(x, 3.25), 0, 1)
    y = np.arange(H)
    oy = np.clip(np.minimum(y + 1, 9.25) - np.maximum(y, 2.5), 0, 1)
    assert np.allclose(np.abs(cov[:, :18]), oy[:, None] * ox[None, :18], atol=1e-12)   # the reference: exact
    a = np.abs(np.cumsum(got, 1))
    assert np.allclose(a[:, :18], oy[:, None] * ox[None, :18], atol=1e-4)
    assert np.allclose(a[3:8, 20:24], 1, atol=1e-6) and np.abs(got[:, 25:29]).max() < 1e-6
    tri = 0.5 * abs((61.6 - 30.2) * (20.7 - 2.3) - (33.0 - 30.2) * (4.1 - 2.3))
    assert abs(a[:, 29:].sum() - tri) < 1e-3


# ---- coverage_resolve ----

def _check_cr(acc, W, H, npages):
    host = [np.ascontiguousarray(np.asarray(acc, F32)), np.int32(W), np.int32(H), np.zeros(npages * H * W, np.uint8),
            np.zeros(npages)]
    out = run("probe/font-coverage-resolve-blelloch-ink-f64", host, npages, grid=(npages * H,))
    v = np.minimum(np.abs(np.cumsum(host[0].astype(np.float64), 1)), 1)
    u = 255 * v + 0.5
    got = out[3].reshape(npages * H, W).astype(np.int64)
    # the scan's float32 partial sums (up to W cells of O(1) values, in the Blelloch tree's
    # order) within a few 1e-7 of the exact prefix (2e-5 in 255 v seen): the byte exact
    # unless 255 v + 0.5 is within 1e-3 of an integer
    fence = np.abs(u - np.rint(u)) < 1e-3
    assert (np.abs(got - np.floor(u)) <= 1).all() and (got[~fence] == np.floor(u)[~fence]).all()
    ink = v.reshape(npages, -1).sum(1)
    # float32 sums: 4 cells, a thread's few chunks, a 256-leaf tree; then double: 2e-6 of it
    assert np.allclose(out[4], ink, rtol=2e-6, atol=1e-6)
    return got, out[4]


def test_coverage_resolve_pages():
    rng = np.random.default_rng(7)
    W, H = 1100, 40                                                # 2 chunks a row, the second partial
    q, first, npg = tp._p240_pages(rng, 400, W=W, H=H, margin=4, body=(16.0, 13.0), heads=(24.0,))
    seg = tp._p240_flatten(q, 0.1)
    seg = seg[np.maximum(seg[:, 1], seg[:, 3]) < 2 * H]          # two pages
    acc = tp._p240_accumulate(seg, W, 2 * H)
    assert np.allclose(acc, _area_ref(seg, W, 2 * H), atol=1e-9)   # the probe's data: the exact area
    got, ink = _check_cr(acc, W, H, 2)
    assert ink.min() > 0.03 * W * H and (got == 255).any()


def test_coverage_resolve_cases():
    W, H = 2056, 3                                                 # 3 chunks, the last of 8 cells
    acc = np.zeros((H, W))
    acc[0, 3], acc[0, 1050] = 1.0, -1.0                            # a run across a chunk boundary
    acc[1, 1000], acc[1, 2050] = -0.5, 0.5                         # negative winding: |.|
    acc[1, 1500], acc[1, 1600] = 2.0, -2.0                         # winding 2 in places: clamped
    acc[2, :] = 1.0 / 256                                          # a ramp: exact in float32
    acc[2, 1024:] = -1.0 / 256
    got, ink = _check_cr(acc, W, H, 1)
    assert (got[0, 3:1050] == 255).all() and (got[0, :3] == 0).all() and (got[0, 1050:] == 0).all()
    assert (got[1, 1000:2050] >= 128).all() and (got[1, 1500:1600] == 255).all()
    assert got[2, 127] == 128 and got[2, 255] == 255 and got[2, 2047] == 0 and got[2, 2055] == 8


# ---- lcd_filter_blend ----

def _lcd_ref(cov3, bg, fg):
    H, W = bg.shape[:2]
    lin, srgb = tp._p240_srgb_tables()
    c = np.pad(cov3.astype(np.int64), ((0, 0), (2, 2)))
    f = sum(w * c[:, t:t + 3 * W] for t, w in enumerate([8, 77, 86, 77, 8]))
    a = ((f + 128) >> 8).reshape(H, W, 3)
    lb = lin[bg[..., :3]].astype(np.int64)
    lf = lin[np.asarray(fg[:3])].astype(np.int64)
    v = (lf - lb) * a
    q = np.abs(v) + 127
    lv = lb + np.sign(v) * (q // 255)                              # C's division: toward zero
    out = bg.copy()
    ink = (a != 0).any(-1)
    out[..., :3] = np.where(ink[..., None], srgb[lv >> 4], bg[..., :3])
    return out, a


def _check_lcd(cov3, bg, fg, grid=None):
    H, W = bg.shape[:2]
    f = np.zeros((), tp.P240_UCHAR4)
    f["x"], f["y"], f["z"], f["w"] = fg
    host = [np.ascontiguousarray(cov3, np.uint8).ravel(), np.ascontiguousarray(bg, np.uint8).reshape(-1, 4),
            np.int32(W), np.int32(H), f, np.zeros((H * W, 4), np.uint8)]
    out = run("probe/font-lcd-subpixel-fir5-gamma-const", host, H, symbols=tp._p240_lcd_symbols(),
              grid=grid or (-(-W // 64), -(-H // 4)))
    want, a = _lcd_ref(cov3, bg, fg)
    got = out[5].reshape(H, W, 4)
    assert (got == want).all()                                     # integers and tables: exact
    return got, a


def test_lcd_screen():
    rng = np.random.default_rng(8)
    host = tp._p240_lcd_args(160, rng)
    x0 = 2520                                                      # the first window's right side, the gap,
    cov3 = host[0].reshape(160, -1)[:, 3 * x0:3 * (x0 + 256)]      # the second's left: text, title bars
    bg = host[1].reshape(160, -1, 4)[:, x0:x0 + 256]
    got, a = _check_lcd(cov3, bg, tp.P240_LCD_FG)
    ink = (a != 0).any(-1)
    assert 0.01 < ink.mean() < 0.3 and (a == 255).any()
    assert (got[~ink] == bg[~ink]).all() and (got[ink][:, :3] < bg[ink][:, :3]).any()
    lin, srgb = tp._p240_srgb_tables()
    assert (srgb[lin >> 4] == np.arange(256)).all()                # the tables round-trip sRGB


def test_lcd_cases():
    rng = np.random.default_rng(9)
    H, W = 8, 96                                                   # a partial tile across
    cov3 = np.zeros((H, 3 * W), np.uint8)
    cov3[0, 0] = 255                                               # the left edge: the halo reads zeros
    cov3[1, -1] = 255                                              # the right edge
    cov3[2, 100:140] = 255                                         # a stem: full coverage inside, fringes
    cov3[3:7] = rng.integers(0, 256, (4, 3 * W)) * (rng.random((4, 3 * W)) < 0.3)
    bg = rng.integers(0, 256, (H, W, 4)).astype(np.uint8)
    bg[..., 3] = 255
    got, a = _check_lcd(cov3, bg, (255, 255, 255, 255))           # white text
    assert a[0, 0].tolist() == [86, 77, 8] and a[1, -1].tolist() == [8, 77, 86]
    assert (got[2, 35:45, :3] == 255).all()
    _check_lcd(cov3, bg, (0, 0, 0, 255))
    _check_lcd(cov3[:5], bg[:5], (200, 30, 30, 255), grid=(2, 2))  # rows past H in the last tile


# ---- hint_glyph_runs ----

def _mulfix(a, b):
    p = np.asarray(a, np.int64) * np.int64(b)
    c = (np.abs(p) + 0x8000) >> 16
    return np.where(p < 0, -c, c)


def _hint_ref(runs, pts, gfirst, zones, upm, fuzz):
    """Each run's points (int64 (m, 2)) and control box, in numpy int64."""
    ref, sh = zones["ref"].astype(np.int64), zones["shoot"].astype(np.int64)
    outs, boxes = [], []
    for r in runs:
        scale = int(r["ppem"]) * 64 * 65536 // upm
        P = pts[gfirst[r["glyph"]]:gfirst[r["glyph"] + 1]].astype(np.int64)
        x, y = P[:, 0], P[:, 1]
        snap = (_mulfix(ref, scale) + 32) & ~63
        o = _mulfix(sh - ref, scale)
        keep = np.abs(o) >= 32
        y26 = np.zeros(len(y), np.int64)
        zone = np.full(len(y), -1)
        for z in range(len(ref))[::-1]:                             # the first zone that holds it
            inz = (y >= min(ref[z], sh[z]) - fuzz) & (y <= max(ref[z], sh[z]) + fuzz)
            zone[inz] = z
        for z in range(len(ref)):
            m = zone == z
            d = _mulfix(y[m] - ref[z], scale)
            y26[m] = snap[z] + (((d + 32) & ~63) if keep[z] else 0)
        free = zone < 0
        seg = np.searchsorted(ref, y, side="right") - 1             # between ref[seg] and ref[seg + 1]
        lo, hi = free & (seg < 0), free & (seg >= len(ref) - 1)
        y26[lo] = snap[0] + _mulfix(y[lo] - ref[0], scale)
        y26[hi] = snap[-1] + _mulfix(y[hi] - ref[-1], scale)
        mid = free & ~lo & ~hi
        s = seg[mid]
        y26[mid] = snap[s] + (y[mid] - ref[s]) * (snap[s + 1] - snap[s]) // (ref[s + 1] - ref[s])
        X = r["pen_x"] + _mulfix(x, scale)
        Y = r["pen_y"] - y26
        outs.append(np.stack([X, Y], 1))
        boxes.append([X.min(), Y.min(), X.max(), Y.max()])
    return np.concatenate(outs), np.array(boxes)


def _check_hg(runs, pts, gfirst, zones, fuzz=tp.P240_FUZZ, grid=None):
    n = len(runs)
    npt = np.diff(gfirst)[runs["glyph"]]
    assert (runs["first"] == np.concatenate([[0], np.cumsum(npt)[:-1]])).all()
    host = [runs, np.int32(n), np.asarray(pts, np.int16), np.asarray(gfirst, np.int32), np.int32(tp.P240_UPM),
            np.int32(fuzz), np.zeros((int(npt.sum()), 2), np.int32), np.zeros((n, 4), np.int32)]
    out = run("probe/font-hint-bluezone-f26dot6-warp", host, n, symbols={"c_zones": zones},
              grid=grid or (-(-n * 32 // 256),))
    want, box = _hint_ref(runs, host[2], host[3], zones, tp.P240_UPM, fuzz)
    assert (out[6] == want).all() and (out[7] == box).all()       # integers: exact
    return out[6], out[7]


def test_hint_book():
    rng = np.random.default_rng(10)
    host = tp._p240_hg_args(300, rng)
    runs = host[0]
    got, box = _check_hg(runs, host[2], host[3], tp._p240_zones(), grid=(38,))
    assert set(np.unique(runs["ppem"])) >= {16, 13}
    body = runs["ppem"] == 16
    # at 16 ppem the x-height (1040 units: 8.125 px) lands on 8 px, the baseline on the pen's row
    top = box[body, 1]
    xh = np.isin(runs["glyph"][body], [tp.P240_ALPHABET.index(c) for c in "vwxz"])
    assert ((runs["pen_y"][body][xh] - top[xh]) == 8 * 64).all()


def test_hint_cases():
    zones = tp._p240_zones()
    ys = [-500, -476, -475, -466, -440, -431, -430, -200, -37, -36, -26, 0, 10, 11, 300, 1029, 1030, 1040, 1066,
          1076, 1077, 1300, 1469, 1470, 1480, 1506, 1516, 1517, 1600, 2047, -2048]
    xs = np.arange(len(ys)) * 97 - 700
    pts = np.stack([xs, ys], 1).astype(np.int16)                   # one 31-point glyph and a 40-point one
    pts = np.concatenate([pts, np.stack([np.arange(40) * 51, np.arange(40) * 53 - 600], 1).astype(np.int16)])
    gfirst = np.array([0, 31, 71], np.int32)
    ppem = [6, 8, 11, 12, 13, 16, 17, 24, 36, 72, 150]            # overshoots suppressed, then kept
    runs = np.zeros(2 * len(ppem), tp.P240_RUN)
    runs["glyph"] = np.tile([0, 1], len(ppem))
    runs["ppem"] = np.repeat(ppem, 2)
    runs["pen_x"] = np.arange(len(runs)) * 1000 + 17
    runs["pen_y"] = 64 * (100 + np.arange(len(runs)))
    runs["first"] = np.concatenate([[0], np.cumsum(np.diff(gfirst)[runs["glyph"]])[:-1]])
    got, box = _check_hg(runs, pts, gfirst, zones, grid=(3,))
    assert (got[runs["first"][-2] + 11, 1] == runs["pen_y"][-2])   # the baseline on the pen's row
    o = _mulfix(tp.P240_OS, np.array(ppem) * 64 * 65536 // tp.P240_UPM)
    assert (np.abs(o) < 32).any() and (np.abs(o) >= 32).any()
    _check_hg(runs, pts, gfirst, zones, fuzz=0, grid=(3,))
