"""probe-unseen243's kernels (kernels_cuda/probes245.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/photo-raw-lsc-wb-ballot", "probe/photo-demosaic-hamilton-adams-smem",
       "probe/photo-burst-align-l1-tiles", "probe/photo-mertens-fusion-weights",
       "probe/photo-bilateral-grid-splat-atomics", "probe/photo-clahe-tile-clip-scan"]

F32 = np.float32
EPS = 2.0 ** -24                 # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen243"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes245.cu" and len(tp.get(i).note) > 400 for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- the data ----

def test_scene_and_optics():
    rng = np.random.default_rng(1)
    sc = tp._p245_scene(rng, 192, 256)
    Y = sc @ np.array([0.2126, 0.7152, 0.0722], F32)
    assert sc.dtype == F32 and sc.shape == (192, 256, 3) and (sc > 0).all()
    assert Y.max() > 1e4 and np.percentile(Y, 2) < 0.02                        # the sun; shade and doorways
    assert 0.02 < np.median(Y) < 1.0                                           # sunlit and shaded surfaces
    assert Y.max() / np.percentile(Y, 1) > 2 ** 20                             # > 20 stops
    # the x4 upsampling by slices is the general bilinear one
    a = rng.random((5, 7, 3)).astype(F32)
    assert np.allclose(tp._p245_up4(a), tp._p245_upsample(a, 20, 28), atol=1e-6)
    # vignetting: cos^4 of 38.5 degrees in the corners, red falling faster, blue slower
    v = tp._p245_vignette(3024, 4032)
    assert abs(v[1511:1513, 2015:2017].mean() - 1) < 1e-5
    assert abs(v[0, 1] - 0.375) < 0.01 and v[0, 0] < v[0, 1] < v[1, 1]
    g = tp._p245_lsc_map()                                                     # its inverse, on 17 x 13 points
    assert abs(g[:, 6, 8] - 1).max() < 1e-6 and 2.4 < g[1, 0, 0] < 2.8 and g[0, 0, 0] > g[1, 0, 0] > g[3, 0, 0]


def test_raw_burst_statistics():
    rng = np.random.default_rng(2)
    raw = tp._p245_raw(rng, 2, 192, 256)
    assert raw.dtype == np.uint16 and raw.max() == 4095 and raw.min() < 300    # saturated and near-black
    sat = (raw == 4095).mean()
    assert 0.001 < sat < 0.2
    # a flat grey card: its photosites' mean and shot noise
    flat = tp._p245_raw(rng, 1, 64, 64, scene=np.full((80, 80, 3), 0.5, F32))[0].astype(np.float64)
    g = flat[1::2, 0::2][12:20, 12:20]                                         # Gb near the centre
    s = 0.5 * tp.P245_KCOUNTS * tp._p245_vignette(64, 64)[1::2, 0::2][12:20, 12:20].mean()
    assert abs(g.mean() - 256 - s) < 0.02 * s
    assert abs(g.std() - np.sqrt(s / tp.P245_EGAIN + tp.P245_READ ** 2)) < 0.25 * np.sqrt(s / tp.P245_EGAIN)


# ---- lsc_wb_raw ----

def _lsc_ref(raw, lsc, conf):
    """out, clip counts, sums (float32 arithmetic in the kernel's order; sums in float64)."""
    nf, h, w = raw.shape
    y, x = np.mgrid[0:h, 0:w]
    ch = (y & 1) * 2 + (x & 1)
    black = conf["black"].astype(F32)[ch]
    sc = (conf["wb"].astype(F32) / (F32(conf["white"]) - conf["black"].astype(F32)))[ch]
    gx = x.astype(F32) * F32(conf["gx_scale"])
    gy = y.astype(F32) * F32(conf["gy_scale"])
    ix = np.minimum(gx.astype(np.int64), 15)
    iy = np.minimum(gy.astype(np.int64), 11)
    fx, fy = gx - ix.astype(F32), gy - iy.astype(F32)
    g00, g01, g10, g11 = lsc[ch, iy, ix], lsc[ch, iy, ix + 1], lsc[ch, iy + 1, ix], lsc[ch, iy + 1, ix + 1]
    top = g00 + fx * (g01 - g00)
    bot = g10 + fx * (g11 - g10)
    gain = top + fy * (bot - top)
    r = raw.astype(F32)
    v = (r - black) * sc * gain
    sat = r >= F32(conf["white"])
    out = np.where(sat, F32(1), np.clip(v, 0, 1))
    clip = np.stack([(sat & (ch == c)).sum((1, 2)) for c in range(4)], 1)
    sums = np.stack([np.where(~sat & (ch == c), out, 0).astype(np.float64).sum((1, 2)) for c in range(4)], 1)
    return out, clip, sums, gain


def _check_lsc(raw, lsc, conf, grid):
    nf, h, w = raw.shape
    host = [np.ascontiguousarray(raw, np.uint16), np.int32(w), np.int32(h), np.zeros((nf, h, w), F32),
            np.zeros((nf, 4), np.uint32), np.zeros((nf, 4))]
    out = run("probe/photo-raw-lsc-wb-ballot", host, nf, symbols={"c_lsc": lsc, "c_raw": conf}, grid=grid)
    ref, clip, sums, gain = _lsc_ref(host[0], lsc, conf)
    # the gain: three lerps a nvcc-style FMA may round differently from numpy's separate
    # multiply and add (within 4 ulps of the gain), then two products: 8 ulps of the value
    assert np.allclose(out[3], ref, rtol=8 * EPS, atol=0)
    assert (out[4] == clip).all()                                              # integer counts: exact
    # each thread sums 6 floats, 5 shuffle levels, then doubles: float rounding at ~11
    # additions of partial sums, far under 1e-5 of the total
    assert np.allclose(out[5], sums, rtol=1e-5, atol=1e-6)
    return out[3], out[4], out[5]


def test_lsc_burst():
    rng = np.random.default_rng(3)
    h, w = 96, 128
    raw = tp._p245_raw(rng, 2, h, w)
    lsc, conf = tp._p245_lsc_map(rng, h, w), tp._p245_rawconf(h, w)
    out, clip, sums = _check_lsc(raw, lsc, conf, (w // 64, h // 48, 2))
    assert clip.sum() > 0 and sums.min() > 0


def test_lsc_flat_field_and_edges():
    rng = np.random.default_rng(4)
    h, w = 100, 134                                                            # partial blocks both ways
    scene = np.full((h + 16, w + 16, 3), 0.4, F32)
    raw = tp._p245_raw(rng, 1, h, w, scene=scene)
    raw[0, 80:84, 100:110] = 4095                                              # a saturated patch
    lsc, conf = tp._p245_lsc_map(None, h, w), tp._p245_rawconf(h, w)
    out, clip, sums = _check_lsc(raw, lsc, conf, (3, 3, 1))
    assert (out[0, 80:84, 100:110] == 1).all() and clip[0].tolist() == [10, 10, 10, 10]
    # the shading corrected: the corners' mean as the centre's (within the noise), every channel
    # balanced to the same grey by the white balance
    k = 0.4 * tp.P245_KCOUNTS / (4095 - 256)
    for sl in [np.s_[:24, :24], np.s_[-24:, -24:], np.s_[38:62, 55:79]]:
        assert abs(out[0][sl].mean() / k - 1) < 0.02


# ---- demosaic_ha_ccm ----

def _ha_ref(bayer):
    """Green by Hamilton-Adams and red / blue by colour differences, in float32 in the kernel's
    order (reflect-101 borders); (3, h, w) camera RGB."""
    h, w = bayer.shape
    P = np.pad(bayer.astype(F32), 3, mode="reflect")
    y, x = np.mgrid[-1:h + 1, -1:w + 1]
    S = lambda dy, dx, yy=y, xx=x: P[yy + 3 + dy, xx + 3 + dx]
    c = S(0, 0)
    gl, gr, gu, gd = S(0, -1), S(0, 1), S(-1, 0), S(1, 0)
    lh = F32(2) * c - S(0, -2) - S(0, 2)
    lv = F32(2) * c - S(-2, 0) - S(2, 0)
    dh = np.abs(gl - gr) + np.abs(lh)
    dv = np.abs(gu - gd) + np.abs(lv)
    gh = F32(0.5) * (gl + gr) + F32(0.25) * lh
    gv = F32(0.5) * (gu + gd) + F32(0.25) * lv
    gi = np.clip(np.where(dh < dv, gh, np.where(dv < dh, gv, F32(0.5) * (gh + gv))), 0, 1)
    Gt = np.where(((x + y) & 1) != 0, c, gi)                                   # (h + 2, w + 2): a 1-pixel halo
    G = Gt[1:-1, 1:-1]
    C = P[3:-3, 3:-3]
    D = P[2:-2, 2:-2] - Gt                                                     # colour minus green, halo 1
    d = lambda dy, dx: D[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
    diag = G + F32(0.25) * (((d(-1, -1) + d(-1, 1)) + d(1, -1)) + d(1, 1))
    hor = G + F32(0.5) * (d(0, -1) + d(0, 1))
    ver = G + F32(0.5) * (d(-1, 0) + d(1, 0))
    yy, xx = np.mgrid[0:h, 0:w]
    ph = ((yy & 1) << 1) | (xx & 1)
    R = np.select([ph == 0, ph == 3, ph == 1], [C, diag, hor], ver)
    B = np.select([ph == 0, ph == 3, ph == 1], [diag, C, ver], hor)
    return np.stack([R, G, B]), (dh < dv)[1:-1, 1:-1], (dv < dh)[1:-1, 1:-1]


def _check_dm(bayer, ccm, grid):
    nf, h, w = bayer.shape
    host = [np.ascontiguousarray(bayer, F32), np.int32(w), np.int32(h), np.zeros((nf, 3, h, w), F32)]
    out = run("probe/photo-demosaic-hamilton-adams-smem", host, nf, symbols={"c_ccm": ccm.ravel().astype(F32)},
              grid=grid)[3]
    refs = [_ha_ref(b) for b in host[0]]
    cam = np.stack([r[0] for r in refs])
    if (ccm == np.eye(3)).all():
        # every product is by 0.5, 0.25, 2 or 1 (exact; a contracted FMA rounds as the
        # separate operations do) and the sums are in the kernel's order: bit for bit
        assert np.array_equal(out, cam)
    else:
        # the colour matrix: 3 products summed (2 FMAs): within 3 ulps of sum |m_ij x_j|
        want = np.einsum("ij,fjyx->fiyx", ccm.astype(np.float64), cam.astype(np.float64))
        tol = 3 * EPS * np.einsum("ij,fjyx->fiyx", np.abs(ccm.astype(np.float64)), np.abs(cam.astype(np.float64)))
        assert (np.abs(out - want) <= tol + 1e-30).all()
    return out, refs


def test_demosaic_scene_bitexact():
    rng = np.random.default_rng(5)
    bayer = tp._p245_bayer(rng, 2, 70, 100)                                    # partial tiles both ways
    out, refs = _check_dm(bayer, np.eye(3), (4, 3, 2))
    hv = np.stack([r[1] for r in refs]).mean(), np.stack([r[2] for r in refs]).mean()
    assert min(hv) > 0.1                                                       # both directions chosen


def test_demosaic_ccm_and_edges():
    rng = np.random.default_rng(6)
    h, w = 64, 64
    # vertical stripes 3 pixels wide: Hamilton-Adams interpolates green along them, no zipper
    x = np.arange(w)
    img = np.where((x // 3) % 2 == 0, 0.8, 0.1).astype(F32)[None, :].repeat(h, 0)
    stripes = np.stack([img * 0.5, img, img * 0.7], -1)
    bay = tp._p245_mosaic(stripes)[None]
    ccm = np.array(tp.P245_CCM, F32)
    out, refs = _check_dm(bay, ccm, (2, 2, 1))
    G = refs[0][0][1]
    assert np.abs(G[4:-4, 4:-4] - img[4:-4, 4:-4]).max() < 1e-6                 # green exact in the interior
    assert refs[0][2][4:-4, 4:-4].sum() > 0.4 * (h - 8) * (w - 8) / 2          # vertical chosen at R / B sites
    # a neutral grey stays neutral through the colour matrix (its rows sum to 1)
    grey = np.full((1, 32, 32), 0.3, F32) + 0.01 * rng.random((1, 32, 32)).astype(F32)
    out, _ = _check_dm(grey, ccm, (1, 1, 1))
    assert np.abs(out[0].mean((1, 2)) - out[0, 1].mean()).max() < 2e-3


# ---- burst_align_l1 ----

def _align_ref(ref, alts, coarse, TS=16, ST=8, R=4):
    nf, h, w = alts.shape
    nty, ntx = coarse.shape[1:3]
    ND = 2 * R + 1
    out = np.zeros((nf, nty, ntx), tp.P245_MOTION)
    costs = np.zeros((nf, nty, ntx, ND * ND), np.int64)
    r64 = ref.astype(np.int64)
    for f in range(nf):
        a64 = alts[f].astype(np.int64)
        for ty in range(nty):
            for tx in range(ntx):
                t = r64[ty * ST:ty * ST + TS, tx * ST:tx * ST + TS]
                cx, cy = int(coarse[f, ty, tx, 0]), int(coarse[f, ty, tx, 1])
                ys = np.clip(ty * ST + cy - R + np.arange(TS + 2 * R), 0, h - 1)
                xs = np.clip(tx * ST + cx - R + np.arange(TS + 2 * R), 0, w - 1)
                win = a64[ys][:, xs]
                c = np.array([np.abs(t - win[dy:dy + TS, dx:dx + TS]).sum() for dy in range(ND) for dx in range(ND)])
                costs[f, ty, tx] = c
                b = int(np.argmin(c))                                          # ties: the first
                by, bx = divmod(b, ND)
                m = F32(c[b])
                sx = sy = F32(0)
                edge = 0
                if 0 < bx < ND - 1:
                    l, r = F32(c[b - 1]), F32(c[b + 1])
                    den = l - F32(2) * m + r
                    if den > 0:
                        sx = F32(0.5) * (l - r) / den
                else:
                    edge |= 1
                if 0 < by < ND - 1:
                    u, d = F32(c[b - ND]), F32(c[b + ND])
                    den = u - F32(2) * m + d
                    if den > 0:
                        sy = F32(0.5) * (u - d) / den
                else:
                    edge |= 2
                out[f, ty, tx] = (F32(cx + bx - R) + sx, F32(cy + by - R) + sy, c[b], edge)
    return out, costs


def _check_al(ref, alts, coarse, block=None):
    nf, h, w = alts.shape
    nty, ntx = coarse.shape[1:3]
    host = [np.ascontiguousarray(ref, np.uint16), np.ascontiguousarray(alts, np.uint16),
            np.ascontiguousarray(coarse, np.int16), np.int32(w), np.int32(h), np.int32(ntx), np.int32(nty),
            np.zeros((nf, nty, ntx), tp.P245_MOTION)]
    got = run("probe/photo-burst-align-l1-tiles", host, nf, grid=(ntx, nty, nf))[7]
    want, costs = _align_ref(host[0], host[1], host[2])
    # integer costs (exact); the fit's numbers are integers below 2^24 (exact in float32),
    # so its one divide and one add round as numpy's float32 do: bit for bit
    assert (got["cost"] == want["cost"]).all() and (got["edge"] == want["edge"]).all()
    assert np.array_equal(got["dx"], want["dx"]) and np.array_equal(got["dy"], want["dy"])
    return got, costs


def test_align_burst_recovers_motion():
    rng = np.random.default_rng(7)
    h, w = 96, 160
    ref, alts, disp = tp._p245_burst(rng, 2, h, w)
    ntx, nty = tp._p245_al_tiles(h, w)
    coarse = tp._p245_coarse(rng, disp, ntx, nty)
    got, costs = _check_al(ref, alts, coarse)
    true = disp[:, :, 8::8, 8::8][:, :, :nty, :ntx]
    err = np.hypot(got["dx"] - true[:, 0], got["dy"] - true[:, 1])
    assert np.median(err) < 0.5 and (err < 1.5).mean() > 0.7                   # the coarse level's misses aside


def test_align_cases():
    rng = np.random.default_rng(8)
    h, w = 40, 40
    ref = rng.integers(500, 9000, (h, w)).astype(np.uint16)                    # white noise: a sharp minimum
    alts = np.stack([np.roll(ref, (2, -3), (0, 1)),                             # a shift of (-3, 2)
                     np.full((h, w), 1000, np.uint16)])                         # flat: every cost equal
    ntx, nty = tp._p245_al_tiles(h, w)
    coarse = np.zeros((2, nty, ntx, 2), np.int16)
    coarse[0, 1, 1] = (-8, 4)                                                  # a coarse miss: -3 out of reach
    coarse[0, 0, 0] = (-100, -100)                                             # off the frame: a clamped window
    got, costs = _check_al(ref, alts, coarse)
    g = got[0]
    inner = np.zeros((nty, ntx), bool)
    inner[:3, 1:] = True                                                        # neither clamped nor wrapped
    inner[1, 1] = False
    # an exact match (cost 0); the parabolas through its neighbours' costs move it < 0.05 px
    assert (g["cost"][inner] == 0).all()
    assert (np.abs(g["dx"][inner] + 3) < 0.05).all() and (np.abs(g["dy"][inner] - 2) < 0.05).all()
    assert (g["edge"][inner] == 0).all() and g["cost"][1, 1] > 0
    assert g["dx"][0, 0] == -104 and g["dy"][0, 0] == -104 and g["edge"][0, 0] == 3   # all equal: the first
    assert (got[1]["dx"] == -4).all() and (got[1]["dy"] == -4).all() and (got[1]["edge"] == 3).all()


# ---- mertens_weights ----

def _fu_ref(imgs, p, wexp):
    """Normalised weights (float64 from the kernel's float32 C, S and E) and the raw ones."""
    ne, h, w, _ = imgs.shape
    q = imgs.astype(np.int64)
    s = q[..., 0] + q[..., 1] + q[..., 2]
    L = s.astype(F32) * F32(1.0 / 765.0)
    Lp = np.pad(L, ((0, 0), (1, 1), (1, 1)), mode="edge")
    lap = (((Lp[:, :-2, 1:-1] + Lp[:, 2:, 1:-1]) + Lp[:, 1:-1, :-2]) + Lp[:, 1:-1, 2:]) - F32(4) * Lp[:, 1:-1, 1:-1]
    C = np.abs(lap).astype(np.float64)
    d = 3 * q[..., :3] - s[..., None]
    S = (np.sqrt((d * d).sum(-1).astype(F32)) * F32(1.0 / (255.0 * 5.19615242))).astype(np.float64)
    E = (wexp[q[..., 0]] * wexp[q[..., 1]] * wexp[q[..., 2]]).astype(np.float64)
    W = C ** float(p["wc"]) * S ** float(p["ws"]) * E ** float(p["we"]) + float(p["eps"])
    return W / W.sum(0), W


def _check_fu(imgs, p, grid, rtol=1e-5):
    ne, h, w, _ = imgs.shape
    host = [np.ascontiguousarray(imgs, np.uint8), np.int32(ne), np.int32(w), np.int32(h), np.zeros((ne, h, w), F32)]
    wexp = tp._p245_wexp()
    got = run("probe/photo-mertens-fusion-weights", host, ne, symbols={"c_wexp": wexp, "c_fu": p}, grid=grid)[4]
    want, W = _fu_ref(host[0], p, wexp)
    # C and S reach the weight through the same float32 operations (a Laplacian of values
    # the kernel also rounds, an integer variance's sqrtf); each power (within 2 ulps), two
    # products, the FMA'd eps and the normalising sum and reciprocal add a few ulps: 1e-5
    assert np.allclose(got, want, rtol=rtol, atol=1e-7)
    return got, W


def test_mertens_bracket():
    rng = np.random.default_rng(9)
    imgs = tp._p245_bracket(rng, 3, 40, 70)                                     # partial blocks
    got, W = _check_fu(imgs, tp._p245_fusion(), (3, 5))
    m = imgs[..., :3].mean(-1)
    assert (imgs == 255).any() and (m[0].mean() < m[1].mean() < m[2].mean())   # a bracket
    assert np.allclose(got.sum(0), 1, atol=1e-6)


def test_mertens_exponents_and_flat():
    rng = np.random.default_rng(10)
    imgs = tp._p245_bracket(rng, 4, 24, 40, ev_step=1.5)
    imgs[:, :8, :8, :3] = 128                                                   # flat grey in every exposure
    got, W = _check_fu(imgs, tp._p245_fusion(1.0, 0.5, 2.0), (2, 3))
    assert np.allclose(got[:, 1:7, 1:7], 0.25, atol=1e-7)                       # all weights eps: equal


# ---- bilateral_grid_splat ----

def _bg_ref(lum, gx, gy, lmin, inv_sr, NZ=33):
    nf, h, w = lum.shape
    y, x = np.mgrid[0:h, 0:w]
    grid = np.zeros((nf, gy, gx, NZ, 2))
    absg = np.zeros((nf, gy, gx, NZ))
    for f in range(nf):
        l2 = np.log2(np.maximum(lum[f].astype(np.float64), 2.0 ** -20))
        gz = np.clip((l2 - lmin) * inv_sr, 0, NZ - 1)
        iz = np.minimum(gz.astype(np.int64), NZ - 2)
        fz = gz - iz
        ix, iy = x // 16, y // 16
        fx, fy = (x % 16) / 16, (y % 16) / 16
        for dy in (0, 1):
            for dx in (0, 1):
                for dz in (0, 1):
                    wt = (fx if dx else 1 - fx) * (fy if dy else 1 - fy) * (fz if dz else 1 - fz)
                    idx = (iy + dy, ix + dx, iz + dz)
                    np.add.at(grid[f, ..., 0], idx, wt * l2)
                    np.add.at(grid[f, ..., 1], idx, wt)
                    np.add.at(absg[f], idx, wt * np.abs(l2))
    return grid, absg


def _check_bg(lum, lmin=tp.P245_BG_LMIN, inv_sr=tp.P245_BG_INV_SR):
    nf, h, w = lum.shape
    gx, gy = tp._p245_grid_dims(h, w)
    host = [np.ascontiguousarray(lum, F32), np.int32(w), np.int32(h), np.int32(gx), np.int32(gy),
            np.zeros((nf, gy, gx, 33, 2), F32)]
    got = run("probe/photo-bilateral-grid-splat-atomics", host, nf, symbols={"c_bg": tp._p245_gridp(lmin, inv_sr)},
              grid=(-(-w // 32), -(-h // 32), nf))[5]
    want, absg = _bg_ref(host[0], gx, gy, lmin, inv_sr)
    # a pixel's weights (products of exact fractions of 16 and float32 range fractions) and
    # log2f within a few ulps; a cell sums at most 32 x 32 of them in float32 in an order the
    # atomics pick, then a few block partials: within 1e-4 of the sum of |terms| (a generous
    # bound of n eps); a cell the reference leaves empty stays exactly 0
    assert (np.abs(got[..., 1] - want[..., 1]) <= 1e-4 * want[..., 1] + 1e-6).all()
    assert (np.abs(got[..., 0] - want[..., 0]) <= 1e-4 * absg + 1e-6).all()
    assert (got[want[..., 1] == 0] == 0).all()
    return got, want


def test_bilateral_hdr_frames():
    rng = np.random.default_rng(11)
    lum = tp._p245_hdr_lum(rng, 2, 72, 104)                                     # partial tiles
    got, want = _check_bg(lum)
    assert abs(got[..., 1].sum() - 2 * 72 * 104) < 1e-2                         # every pixel's unit weight
    occ = (got[..., 1] > 0).sum(-1)
    assert occ.max() >= 6                                                       # cells spanning many stops


def test_bilateral_cases():
    lum = np.empty((1, 32, 64), F32)
    lum[0, :, :32] = 2.0 ** -12                                                 # under the range: cell 0
    lum[0, :, 32:] = 3e4                                                        # the sun: the top cell
    lum[0, 5, 40] = 0.0                                                         # a dead pixel: clamped
    got, want = _check_bg(lum)
    m = got[0, ..., 1]
    assert m[:, :, 1:32].sum() == 0 and abs(m[..., 0].sum() + m[..., 32].sum() - 32 * 64) < 1e-3
    # a cell's mean log luminance is its pixels': the shadows (and the dead pixel, at 2^-20) in
    # cell 0, the sun in the top one
    lo = got[0, ..., 0, 0][m[..., 0] > 0] / m[..., 0][m[..., 0] > 0]
    hi = got[0, ..., 32, 0][m[..., 32] > 0] / m[..., 32][m[..., 32] > 0]
    assert (lo <= -12 + 1e-5).all() and (lo >= -20).all() and lo.min() < -12.01
    assert np.allclose(hi, np.log2(3e4), rtol=1e-5)


# ---- clahe_tile_lut ----

def _clahe_ref(y8, limit, T=252, maxit=16):
    nf, h, w = y8.shape
    ty, tx = h // T, w // T
    lut = np.zeros((nf, ty, tx, 256), np.uint8)
    passes = np.zeros((nf, ty, tx), np.int32)
    for f in range(nf):
        for j in range(ty):
            for i in range(tx):
                hv = np.bincount(y8[f, j * T:(j + 1) * T, i * T:(i + 1) * T].ravel(), minlength=256).astype(np.int64)
                it = 0
                while it < maxit:
                    ex = np.maximum(hv - limit, 0)
                    hv = hv - ex
                    E = int(ex.sum())
                    below = hv < limit
                    NB = int(below.sum())
                    if E == 0 or NB == 0:
                        break
                    it += 1
                    rank = np.cumsum(below) - 1
                    hv = hv + np.where(below, E // NB + (rank < E % NB), 0)
                cdf = np.cumsum(hv)
                tot = int(cdf[-1])
                lut[f, j, i] = (cdf * 255 + tot // 2) // tot
                passes[f, j, i] = it
    return lut, passes


def _check_cl(y8, limit):
    nf, h, w = y8.shape
    ty, tx = h // 252, w // 252
    host = [np.ascontiguousarray(y8, np.uint8), np.int32(w), np.int32(h), np.int32(limit),
            np.zeros((nf, ty, tx, 256), np.uint8), np.zeros((nf, ty, tx), np.int32)]
    out = run("probe/photo-clahe-tile-clip-scan", host, nf, grid=(tx, ty, nf))
    lut, passes = _clahe_ref(host[0], limit)
    assert (out[4] == lut).all() and (out[5] == passes).all()                  # integer arithmetic: exact
    return out[4], out[5]


def test_clahe_frames():
    rng = np.random.default_rng(12)
    y8 = tp._p245_luma(rng, 1, 252, 504)
    lut, passes = _check_cl(y8, tp._p245_cl_limit())
    assert (passes >= 1).all() and (np.diff(lut.astype(int), axis=-1) >= 0).all()   # clipped; monotone maps
    h = np.bincount(y8.ravel(), minlength=256)
    assert h.max() > 3 * y8.size / 256                                          # hot bins for the clip to cut


def test_clahe_cases():
    rng = np.random.default_rng(13)
    y8 = np.empty((1, 252, 756), np.uint8)
    y8[0, :, :252] = 77                                                         # one bin: clipped, spread
    y8[0, :, 252:504] = rng.integers(0, 256, (252, 252))                        # uniform: nothing to clip
    y8[0, :, 504:] = np.where(rng.random((252, 252)) < 0.5, 10, 240)            # two bins, a tiny limit
    lut, passes = _check_cl(y8, 400)
    assert passes[0, 0].tolist() == [1, 0, 1]
    assert lut[0, 0, 0, 76] < 80 and lut[0, 0, 0, 77] > lut[0, 0, 0, 76]         # the spike mapped to a ramp
    # a limit under the mean bin (248) leaves excess no bin can take: one pass, then every bin
    # at the limit and the mapping a straight ramp
    lut2, passes2 = _check_cl(y8[:, :, :252], 100)
    assert passes2[0, 0, 0] == 1 and (lut2[0, 0, 0] == (np.arange(1, 257) * 100 * 255 + 12800) // 25600).all()
