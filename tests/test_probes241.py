"""probe-unseen239's kernels (kernels_cuda/probes241.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/color-spectral-bip-d65-lab-const", "probe/color-ciede2000-ballot-shfl-f64",
       "probe/color-icc-clut-tetra-u16-smem", "probe/color-gamut-lch-bisect-hue-hist",
       "probe/color-floyd-steinberg-warp-wavefront", "probe/color-am-screen-cmyk-ballot-bits"]

F32 = np.float32


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen239"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes241.cu" and len(tp.get(i).note) > 400 for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- colorimetry, independently ----

def _lab_f(t):
    return np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)


def _lab_finv(f):
    return np.where(f > 6 / 29, f ** 3, 3 * (6 / 29) ** 2 * (f - 4 / 29))


def _xyz_lab(xyz, white):
    fx, fy, fz = (_lab_f(xyz[..., k] / white[k]) for k in range(3))
    return np.stack([116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)], -1)


def _encode(c):
    """The sRGB transfer curve, 8 bits (round half up)."""
    c = np.clip(c, 0, 1)
    return np.floor(np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055) * 255 + 0.5)


def test_colorimetry_data():
    # the 10 nm, 400..700 nm D65 white is within 0.2% of the CIE's (0.95047, 1, 1.08883)
    wt, white = tp._p241_weights()
    assert np.allclose(white, [0.95047, 1.0, 1.08883], rtol=2e-3) and abs(white[1] - 1) < 1e-6
    assert wt.dtype == np.float32 and wt.shape == (31, 4) and (wt[:, 3] == 0).all()
    # Rec. 2020 -> Rec. 709 as ITU-R BT.2087 tabulates it; white stays white
    m, mx, mi = tp._p241_gm_mats()
    bt2087 = [[1.6605, -0.5876, -0.0728], [-0.1246, 1.1329, -0.0083], [-0.0182, -0.1006, 1.1187]]
    assert np.allclose(m, bt2087, atol=1e-4) and np.allclose(m.sum(1), 1, atol=1e-12)
    assert np.allclose(mx[1], [0.2126, 0.7152, 0.0722], atol=1e-4)      # sRGB's luma weights
    # the Mondrian's papers: physical reflectances, the named ones where they belong
    R = tp._p241_materials(np.random.default_rng(0), 40)
    assert ((R > 0) & (R < 1)).all()
    S = tp.P241_CMF * tp.P241_D65[:, None] / (tp.P241_D65 * tp.P241_CMF[:, 1]).sum()
    lab = _xyz_lab(R @ S, S.sum(0))
    assert lab[0, 0] > 95 and lab[1, 0] < 20 and abs(lab[:4, 1:]).max() < 1   # white paper, black, greys
    h = np.degrees(np.arctan2(lab[:, 2], lab[:, 1])) % 360
    assert h[4] < 50 and 75 < h[6] < 110 and 100 < h[7] < 160 and 200 < h[11] < 250   # red, yellow, leaf, cyan
    assert abs(lab[8] - [65, 17, 17]).max() < 2                         # light skin


def test_scene_and_separation():
    rng = np.random.default_rng(1)
    img = tp._p241_srgb8_rows(rng, 120, 240)
    assert (img[..., 3] == 255).all()
    top, bottom = img[:30, :, :3].astype(int), img[-30:, :, :3].astype(int)
    assert (top[..., 2] > top[..., 0]).mean() > 0.6                  # sky (balloons in front of some)
    assert bottom.mean() < top.mean()                                  # the fields darker than the sky
    R, G, B = tp._p241_gm_planes(np.random.default_rng(2), 240 * 160, W=240)
    c = tp._p241_gm_mats()[0] @ np.stack([R, G, B]).astype(np.float64)
    oog = ((c < 0) | (c > 1)).any(0)
    assert 0.03 < oog.mean() < 0.4                                     # flowers and balloons beyond sRGB
    # the separation: paper white is no ink, black is rich black, a grey is mostly K over 25%
    cmyk = tp._p241_separate(np.array([[1, 1, 1], [0, 0, 0], [0.3, 0.3, 0.3], [1, 0, 0]]))
    assert (cmyk[0] == 0).all() and cmyk[1, 3] == 1 and np.allclose(cmyk[1, :3], 0.15 ** 1.2)
    assert cmyk[2, 3] > 0.4 and cmyk[3, 0] == 0 and cmyk[3, 1] > 0.9 and cmyk[3, 2] > 0.9


# ---- spectral_to_lab ----

def _check_spec(cube, grid):
    n = len(cube)
    wt, white = tp._p241_weights()
    host = [np.ascontiguousarray(cube, np.uint16), np.int32(n), np.zeros((n, 4), F32)]
    out = run("probe/color-spectral-bip-d65-lab-const", host, n, grid=grid,
              symbols={"c_wt": wt, "c_white": white.astype(F32)})
    S = tp.P241_CMF * tp.P241_D65[:, None] / (tp.P241_D65 * tp.P241_CMF[:, 1]).sum()
    xyz = cube.astype(np.float64) @ S / 4095
    want = _xyz_lab(xyz, S.sum(0))
    got = out[2].astype(np.float64)
    # float32: 31 products summed (X, Y, Z within 31 ulps), the weights rounded to float32
    # (an ulp each), the divide by the white and cbrtf: f() within ~1e-6 relative, times 116
    # for L* and 500 (200) for the difference a* (b*): 1e-3 (1.6e-5 L*, 8.5e-5 a* seen)
    assert np.abs(got[:, :3] - want).max() < 1e-3
    assert np.allclose(got[:, 3], xyz[:, 1], rtol=1e-5, atol=1e-9)
    return got


def test_spectral_mondrian():
    rng = np.random.default_rng(3)
    cube = tp._p241_spec_cube(rng, 3000, W=60)                        # 2 blocks: 6 trips, the last partial
    got = _check_spec(cube, (2,))
    assert got[:, 0].min() > 3 and got[:, 0].max() < 97 and np.hypot(got[:, 1], got[:, 2]).max() > 40


def test_spectral_cases():
    cube = np.zeros((9, 31), np.uint16)
    cube[0] = 4095                                                     # the perfect reflector
    cube[2] = 737                                                      # an 18% grey
    cube[3] = 10                                                       # a deep shadow: CIE's linear toe
    cube[4, 12] = 4000                                                 # 520 nm alone: saturated green
    cube[5, 20:] = 3800                                                # long-pass: orange-red
    cube[6, :8] = 3000                                                 # short-pass: violet-blue
    cube[7] = np.rint(4095 * tp._p241_sigmoid_poly(np.array([[0, 7.5, -3.2]])))[0]   # the red paint
    cube[8] = 2048 + 1500 * np.sin(np.arange(31))                      # a jagged spectrum
    got = _check_spec(cube, (1,))
    assert abs(got[0, 0] - 100) < 1e-3 and abs(got[0, 1:3]).max() < 2e-3
    assert abs(got[1, 0]) < 1e-4 and abs(got[2, 0] - 49.5) < 0.1 and got[3, 0] < 2.5
    assert got[4, 1] < -100 and got[5, 1] > 40 and got[6, 2] < -60


# ---- ciede2000_stats ----

# Sharma, Wu and Dalal (2005), Table 1: L1 a1 b1, L2 a2 b2, Delta E00 (4 decimals)
SHARMA = np.array([
    [50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425],
    [50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615],
    [50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412],
    [50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000],
    [50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000],
    [50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000],
    [50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669],
    [50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195],
    [50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045],
    [50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045],
    [50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461],
    [50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065],
    [50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492],
    [50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977],
    [50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030],
    [50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535],
    [50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000],
    [50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000],
    [50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000],
    [50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000],
    [60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644],
    [63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630],
    [61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731],
    [35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645],
    [22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373],
    [36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146],
    [90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441],
    [90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381],
    [6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377],
    [2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082]])


def _de00(p, q, kL=1.0):
    """CIEDE2000 in float64, vectorised (CIE 142-2001 as Sharma et al. spell it out)."""
    L1, a1, b1 = (np.asarray(p, np.float64)[:, k] for k in range(3))
    L2, a2, b2 = (np.asarray(q, np.float64)[:, k] for k in range(3))
    cb = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    G = 0.5 * (1 - np.sqrt(cb ** 7 / (cb ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1, C2 = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1 = np.where((a1p == 0) & (b1 == 0), 0, np.degrees(np.arctan2(b1, a1p)) % 360)
    h2 = np.where((a2p == 0) & (b2 == 0), 0, np.degrees(np.arctan2(b2, a2p)) % 360)
    z = C1 * C2 == 0
    dh = h2 - h1
    dh = np.where(z, 0, np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh)))
    dH = 2 * np.sqrt(C1 * C2) * np.sin(np.radians(dh) / 2)
    s = h1 + h2
    hb = np.where(z, s, np.where(np.abs(h1 - h2) <= 180, s / 2, np.where(s < 360, (s + 360) / 2, (s - 360) / 2)))
    r = np.radians
    T = 1 - 0.17 * np.cos(r(hb - 30)) + 0.24 * np.cos(r(2 * hb)) + 0.32 * np.cos(r(3 * hb + 6)) - \
        0.20 * np.cos(r(4 * hb - 63))
    Lb, Cb = (L1 + L2) / 2, (C1 + C2) / 2
    RT = -np.sin(r(60 * np.exp(-((hb - 275) / 25) ** 2))) * 2 * np.sqrt(Cb ** 7 / (Cb ** 7 + 25.0 ** 7))
    SL = 1 + 0.015 * (Lb - 50) ** 2 / np.sqrt(20 + (Lb - 50) ** 2)
    SC, SH = 1 + 0.045 * Cb, 1 + 0.015 * Cb * T
    tL, tC, tH = (L2 - L1) / (kL * SL), (C2 - C1) / SC, dH / SH
    return np.sqrt(tL ** 2 + tC ** 2 + tH ** 2 + RT * tC * tH)


def _check_de(ref, rep, grid, kL=1.0, tol=2.0):
    n = len(ref)
    host = [np.ascontiguousarray(ref, F32), np.ascontiguousarray(rep, F32), np.int32(n), F32(kL), F32(tol),
            np.zeros(n, F32), np.zeros(1), np.zeros(1, np.uint32), np.zeros(1, np.uint32)]
    out = run("probe/color-ciede2000-ballot-shfl-f64", host, n, grid=grid)
    de = out[5].astype(np.float64)
    want = _de00(host[0], host[1], kL)
    # float32 through ~60 operations (atan2f, cosf, sinf, expf within 2 ulps): a few 1e-5 of
    # the terms; the hue angles of near-neutral colours are ill-conditioned but their Delta
    # H' is scaled by sqrt(C1' C2'), small there: 1e-4 (2.3e-5 seen)
    assert np.abs(de - want).max() <= 1e-4 * (1 + want.max())
    # the statistics of the kernel's own values: the count and max exact, the sum of float32
    # partials (a thread's trips, 32-lane and 8-warp trees) then doubles: 1e-5 of it
    assert out[8][0] == (out[5] > F32(tol)).sum()
    assert out[7].view(F32)[0] == out[5].max()
    assert np.isclose(out[6][0], de.sum(), rtol=1e-5)
    return de, out


def test_ciede2000_sharma():
    de, out = _check_de(SHARMA[:, :3], SHARMA[:, 3:6], (1,))
    # the published 4 decimals (+-5e-5) and float32's few 1e-5, the 180-degree cases included
    assert np.abs(de - SHARMA[:, 6]).max() < 1e-4
    assert out[8][0] == (SHARMA[:, 6] > 2.0).sum()
    assert np.abs(_de00(SHARMA[:, :3], SHARMA[:, 3:6]) - SHARMA[:, 6]).max() <= 5e-5    # the reference itself


def test_ciede2000_proof():
    rng = np.random.default_rng(4)
    ref, rep = tp._p241_de_pairs(rng, 20000, W=200)
    de, out = _check_de(ref, rep, (7,))                                 # 7 blocks: 11.2 trips, the last partial
    assert 0.6 < de.mean() < 1.6 and 0.002 < (de > 2).mean() < 0.1
    # textiles' kL = 2 halves the lightness term: a pure lightness difference at L* 50 halves
    p = np.array([[50, 0, 0], [50, 20, 30], [80, -5, 60]] * 100, F32)
    q = p + np.array([[3, 0, 0], [3, 0, 0], [0, 2, -2]] * 100, F32)
    d1, _ = _check_de(p, q, (1,), kL=1.0, tol=1.0)
    d2, _ = _check_de(p, q, (1,), kL=2.0, tol=1.0)
    assert np.allclose(d2[0], d1[0] / 2, rtol=1e-6) and np.allclose(d2[2], d1[2], rtol=1e-6)


# ---- icc_rgb_to_cmyk ----

def _tetra_ref(rgb16, clut, N):
    """littleCMS's 16-bit tetrahedral interpolation, independently: the cube's fractions
    sorted (largest first), the path from the base node one axis at a time."""
    v = rgb16.astype(np.int64) * (N - 1)
    f = v + (v + 0x7fff) // 0xffff
    base, fr = f >> 16, f & 0xffff
    step = np.where(rgb16 == 0xffff, 0, 1)
    lut = clut.astype(np.int64).reshape(N, N, N, 4)
    order = np.argsort(-fr, axis=1, kind="stable")
    ar = np.arange(len(v))
    idx = base.copy()
    c0 = prev = lut[idx[:, 0], idx[:, 1], idx[:, 2]]
    rest = np.zeros_like(c0)
    for k in range(3):
        ax = order[:, k]
        idx[ar, ax] += step[ar, ax]
        node = lut[idx[:, 0], idx[:, 1], idx[:, 2]]
        rest += (node - prev) * fr[ar, ax][:, None]
        prev = node
    rest += 0x8001
    assert np.abs(rest).max() < 2 ** 31                                 # the kernel's int does not overflow
    return np.clip(c0 + ((rest + (rest >> 16)) >> 16), 0, 0xffff)


def _check_icc(img, W, H, grid):
    sh, clut = tp._p241_shapers(), tp._p241_clut()
    host = [np.ascontiguousarray(img, np.uint8).reshape(-1, 4), np.int32(W), np.int32(H), sh.ravel(), clut,
            np.zeros((H * W, 4), np.uint8)]
    out = run("probe/color-icc-clut-tetra-u16-smem", host, H, grid=grid)
    rgb16 = np.stack([sh[c][host[0][:, c]] for c in range(3)], 1)
    v = _tetra_ref(rgb16, clut, tp.P241_CLUT_N)
    want = ((v * 65281 + 8388608) >> 24).astype(np.uint8)
    assert (out[5] == want).all()                                       # integers: exact
    return out[5].reshape(H, W, 4)


def test_icc_photo():
    rng = np.random.default_rng(5)
    H, W = 40, 100                                                     # a partial tile across and down
    img = tp._p241_srgb8_rows(rng, H, W)
    got = _check_icc(img, W, H, (4, 2))
    assert got[..., 3].max() > 100 and got[..., 0].mean() > 20          # sky: cyan; fields: K


def test_icc_cases():
    rng = np.random.default_rng(6)
    H, W = 16, 96
    img = np.zeros((H, W, 4), np.uint8)
    img[..., 3] = 255
    img[:4, :, :3] = rng.integers(0, 256, (4, W, 3))                  # all six tetrahedra
    g = np.arange(256)
    img[4:7].reshape(-1, 4)[:256, :3] = g[:, None]                     # the grey axis (ties: rx == ry == rz)
    corners = np.array([[r, gg, b] for r in (0, 255) for gg in (0, 255) for b in (0, 255)])
    img[8, :8, :3] = corners                                           # 0xffff: the cube's far faces
    img[9, :, :3] = rng.integers(0, 256, (W, 3)) // 8 * 8               # near the nodes
    img[10:].reshape(-1, 4)[:, :3] = rng.choice([0, 1, 254, 255, 127, 128], (6 * W, 3))
    got = _check_icc(img, W, H, (3, 1))
    assert (got[8, 7] == 0).all()                                       # paper white: no ink
    assert got[8, 0, 3] == 255 and (got[8, 0, :3] == 26).all()          # black: K and 15% CMY (0.15^1.2)
    assert got[8, 4, 0] == 0 and got[8, 4, 1] > 240 and got[8, 4, 2] > 240   # red: magenta and yellow


# ---- gamut_map_lch ----

def _gm_ref(R, G, B, iters=16):
    """The mapping in float64: the pixels' sRGB (linear), whether each was out of gamut, how
    far the decisions were from the gamut's faces (the fence), the hue bin and chroma lost."""
    mx = tp.P241_M709
    wt = mx.sum(1)
    c = (np.linalg.inv(mx) @ tp.P241_M2020) @ np.stack([R, G, B]).astype(np.float64)
    oog = ((c < 0) | (c > 1)).any(0)
    near = np.minimum(np.abs(c), np.abs(c - 1)).min(0)
    f = [_lab_f((mx @ c)[k] / wt[k]) for k in range(3)]
    L = np.clip(116 * f[1] - 16, 0, 100)
    a, b = 500 * (f[0] - f[1]), 200 * (f[1] - f[2])

    def rgb(s):
        fy = (L + 16) / 116
        xyz = np.stack([wt[0] * _lab_finv(fy + s * a / 500), wt[1] * _lab_finv(fy),
                        wt[2] * _lab_finv(fy - s * b / 200)])
        return np.linalg.inv(mx) @ xyz

    lo, hi = np.zeros(len(R)), np.ones(len(R))
    for _ in range(iters):
        s = (lo + hi) / 2
        ok = ((rgb(s) >= 0) & (rgb(s) <= 1)).all(0)
        lo, hi = np.where(ok, s, lo), np.where(ok, hi, s)
    out = np.where(oog, rgb(lo), c)
    h = np.degrees(np.arctan2(b, a)) % 360
    return out, oog, near, np.minimum((h / 10).astype(int), 35), (1 - lo) * np.hypot(a, b), h


def _check_gm(R, G, B, grid=None):
    n = len(R)
    host = [np.asarray(R, F32), np.asarray(G, F32), np.asarray(B, F32), np.int32(n), np.zeros((n, 4), np.uint8),
            np.zeros(36, np.uint32), np.zeros(36, F32)]
    out = run("probe/color-gamut-lch-bisect-hue-hist", host, n, symbols=tp._p241_gm_symbols(),
              grid=grid or (-(-n // 256),))
    c, oog, near, bins, loss, h = _gm_ref(host[0], host[1], host[2])
    got = out[4]
    # the in-gamut test on float32 matrix products (a few ulps of 1) may go either way within
    # 1e-6 of a face: those pixels are fenced; the bisection's float32 decisions near the
    # boundary move its end by ~2^-16 of the chroma, either way: 1 in the sRGB byte at most
    fence = near < 1e-6
    assert (np.abs(got[:, :3].astype(int) - _encode(c).T) <= 1).all()
    assert ((got[:, 3] == 128) == oog)[~fence].all() and set(np.unique(got[:, 3])) <= {128, 255}
    # the histogram: the counts exact but for fenced pixels and hues within 1e-3 degree of a bin's edge
    edge = np.abs(h - 10 * np.rint(h / 10)) < 1e-3
    slack = np.bincount(bins[(fence | edge) & oog], minlength=36) + np.bincount(bins[fence], minlength=36)
    want = np.bincount(bins[oog], minlength=36)
    assert (np.abs(out[5].astype(int) - want) <= slack).all()
    wl = np.bincount(bins[oog], weights=loss[oog], minlength=36)
    # chroma lost: (1 - lo) C in float32, lo within 2^-15, summed by shared then global float atomics
    assert np.allclose(out[6], wl, rtol=1e-4, atol=2e-3 * (1 + slack))
    return got, oog


def test_gamut_landscape():
    rng = np.random.default_rng(7)
    R, G, B = tp._p241_gm_planes(rng, 12000, W=160)                     # 47 blocks, the last partial
    got, oog = _check_gm(R, G, B)
    assert 0.05 < oog.mean() < 0.4
    assert (got[~oog, 3] == 255).all()


def test_gamut_cases():
    v = np.array([0.05, 0.2, 0.5, 1.0])
    prim = np.concatenate([np.eye(3), 1 - np.eye(3)])                  # Rec. 2020's primaries and secondaries
    rgb = (prim[:, None, :] * v[None, :, None]).reshape(-1, 3)
    grey = np.outer([0, 0.001, 0.18, 0.5, 0.9], [1, 1, 1])
    mix = np.random.default_rng(8).random((230, 3)) ** 2                # anything in Rec. 2020's cube
    R, G, B = np.concatenate([rgb, grey, mix]).T
    got, oog = _check_gm(R, G, B)                                       # 259 pixels: 2 blocks
    assert oog[:24].all() and not oog[24:29].any()
    # what the mapping keeps: L* and hue (the mapped sRGB's, from its bytes: within 8-bit
    # quantisation), and it lands on the gamut's surface (a channel at 0 or 255)
    mx = tp.P241_M709
    lin = lambda u: np.where(u <= 0.04045, u / 12.92, ((u + 0.055) / 1.055) ** 2.4)
    lab_out = _xyz_lab(lin(got[:24, :3] / 255) @ mx.T, mx.sum(1))
    c = (np.linalg.inv(mx) @ tp.P241_M2020) @ np.stack([R, G, B])[:, :24]
    lab_in = _xyz_lab((mx @ c).T, mx.sum(1))
    assert np.abs(lab_out[:, 0] - np.clip(lab_in[:, 0], 0, 100)).max() < 0.6
    hue = lambda x: np.degrees(np.arctan2(x[:, 2], x[:, 1]))
    dh = (hue(lab_out) - hue(lab_in) + 180) % 360 - 180
    assert np.abs(dh[np.hypot(lab_out[:, 1], lab_out[:, 2]) > 20]).max() < 2.0
    assert ((got[:24, :3] == 0) | (got[:24, :3] == 255)).any(1).all()


# ---- fs_halftone_bands ----

def _fs_ref(planes):
    """Floyd-Steinberg over each band of 32 rows on its own (integers: the weights summed in
    sixteenths and rounded once), all planes and bands at once, pixel by pixel: dots (P, H, W)."""
    P, H, W = planes.shape
    dots = np.zeros((P, H, W), np.uint8)
    for b0 in range(0, H, 32):
        rows = planes[:, b0:b0 + 32].astype(np.int64)
        prev = np.zeros((P, W + 2), np.int64)                          # the row above's errors, padded
        for r in range(rows.shape[1]):
            cur = np.zeros((P, W + 2), np.int64)
            eL = np.zeros(P, np.int64)
            for x in range(W):
                s = 7 * eL + prev[:, x] + 5 * prev[:, x + 1] + 3 * prev[:, x + 2]
                val = rows[:, r, x] + ((s + 8) >> 4)
                d = val >= 128
                eL = val - 255 * d
                cur[:, x + 1] = eL
                dots[:, b0 + r, x] = d
            prev = cur
    return dots


def _check_fs(planes, grid=None):
    P, H, W = planes.shape
    Wb = -(-W // 8)
    host = [np.ascontiguousarray(planes, np.uint8).ravel(), np.int32(W), np.int32(H), np.int32(P),
            np.zeros(P * H * Wb, np.uint8)]
    bands = -(-H // 32)
    out = run("probe/color-floyd-steinberg-warp-wavefront", host, H, grid=grid or (-(-P * bands // 4),))
    dots = _fs_ref(planes)
    assert (out[4] == np.packbits(dots, axis=-1).ravel()).all()         # integers: exact (MSB first)
    return dots


def test_fs_print():
    rng = np.random.default_rng(9)
    planes = tp._p241_fs_planes(rng, 70, W=132)                        # 3 bands (the last 6 rows), 16.5 bytes a row
    dots = _check_fs(planes)
    # error diffusion keeps the tone: each plane's dot density its mean ink
    assert np.abs(dots.mean((1, 2)) - planes.mean((1, 2)) / 255).max() < 0.01


def test_fs_cases():
    H, W = 40, 64
    p = np.zeros((4, H, W), np.uint8)
    p[0] = 128                                                          # 50%: a checkerboard-like pattern
    p[1] = np.rint(np.linspace(0, 255, W))[None, :]                     # a ramp
    p[2, :, :] = 255                                                    # solid
    p[3, ::3, 5::7] = 200                                               # sparse marks
    dots = _check_fs(p, grid=(2,))                                      # 8 warps, one idle
    assert dots[2].all() and abs(dots[0].mean() - 128 / 255) < 0.01
    assert np.abs(dots[1].mean(0) - np.linspace(0, 1, W)).max() < 0.25
    _check_fs(p[:2, :5, :12], grid=(1,))                                # a band of 5 rows, 12 columns


# ---- am_screen_cmyk ----

def _am_ref(cont, cw, ch, scale, W, H, dpi, screens, thr):
    """The screened planes (4, H, W) in float64, and each decision's distance from its
    threshold (0 where a cell coordinate is within 1e-6 of the cell's edge or the tone within
    1e-3 of a rounding edge)."""
    y, x = np.mgrid[0:H, 0:W].astype(np.float64) + 0.5
    u = np.clip(x / scale - 0.5, 0, cw - 1)
    v = np.clip(y / scale - 0.5, 0, ch - 1)
    u0, v0 = u.astype(int), v.astype(int)
    u1, v1 = np.minimum(u0 + 1, cw - 1), np.minimum(v0 + 1, ch - 1)
    fu, fv = (u - u0)[..., None], (v - v0)[..., None]
    c = cont.reshape(ch, cw, 4).astype(np.float64)
    tone = (c[v0, u0] * (1 - fu) + c[v0, u1] * fu) * (1 - fv) + (c[v1, u0] * (1 - fu) + c[v1, u1] * fu) * fv
    ti = np.floor(tone + 0.5).astype(int)
    tedge = np.abs(tone + 0.5 - np.rint(tone + 0.5)) < 1e-3
    dots, margin = [], []
    for k, s in enumerate(screens):
        th, f = np.radians(float(s["angle"])), float(s["lpi"]) / dpi
        sx = (x * np.cos(th) + y * np.sin(th)) * f
        sy = (y * np.cos(th) - x * np.sin(th)) * f
        fx, fy = sx - np.floor(sx), sy - np.floor(sy)
        spot = 0.5 * (np.cos(np.pi * (2 * fx - 1)) + np.cos(np.pi * (2 * fy - 1)))
        t = thr[ti[..., k]].astype(np.float64)
        dots.append(spot > t)
        edge = (np.minimum(np.minimum(fx, 1 - fx), np.minimum(fy, 1 - fy)) < 1e-6) | tedge[..., k]
        margin.append(np.where(edge, 0, np.abs(spot - t)))
    return np.stack(dots), np.stack(margin)


def _check_am(cont, cw, ch, W, H, grid=None):
    sym = tp._p241_am_symbols()
    host = [np.ascontiguousarray(cont, np.uint8).reshape(-1, 4), np.int32(cw), np.int32(ch), np.int32(8),
            np.int32(W), np.int32(H), F32(2400), np.zeros(4 * H * (W // 32), np.uint32)]
    out = run("probe/color-am-screen-cmyk-ballot-bits", host, H, symbols=sym, grid=grid or (W // 32, -(-H // 8)))
    words = out[7].reshape(4, H, W // 32)
    bits = ((words[..., None] >> np.arange(32, dtype=np.uint32)) & 1).reshape(4, H, W).astype(bool)
    dots, margin = _am_ref(host[0], cw, ch, 8, W, H, 2400.0, sym["c_screen"], sym["c_thr"])
    # float32: the rotated coordinates (a few hundred cells' worth of pixels) within ~1e-5 of a
    # cell, the angle's sincosf and the two cosf an ulp or two: the spot within ~1e-4 of
    # float64's; decisions closer than 2e-4 to the threshold are fenced (and tones within 1e-3
    # of a rounding edge: the bilinear weights' float32 rounding)
    fence = margin < 2e-4
    assert (bits == dots)[~fence].all() and fence.mean() < 0.01
    return bits


def test_am_contone():
    rng = np.random.default_rng(10)
    W, H = 256, 68                                                      # the last block's rows 68..71 idle
    cw, ch = W // 8, -(-H // 8)
    cont = tp._p241_cmyk8(rng, ch, cw)
    bits = _check_am(cont, cw, ch, W, H)
    # AM screening keeps the tone on average (the cosine dot's area is its threshold's)
    assert np.abs(bits.mean((1, 2)) - cont.reshape(-1, 4).mean(0) / 255).max() < 0.03


def test_am_flat_tones():
    W, H = 256, 256
    cw, ch = 32, 32
    for t in ([0, 64, 128, 255], [191, 26, 230, 102]):
        cont = np.zeros((ch, cw, 4), np.uint8) + np.array(t, np.uint8)
        bits = _check_am(cont, cw, ch, W, H, grid=(8, 32))
        # the rotated screens keep the tone to ~1%; yellow's 0-degree screen samples its 16-pixel
        # cell on a fixed 16 x 16 lattice, whose points fall on the 50% dot's diamond together:
        # its coverage comes in 1/256 steps with a jump of 16/256 there
        err = np.abs(bits.mean((1, 2)) - np.array(t) / 255)
        assert err[[0, 1, 3]].max() < 0.012 and err[2] < 0.07
        if t[0] == 0:
            assert not bits[0].any() and bits[3].all()                  # no ink; solid
