"""probe-unseen222's kernels (kernels_cuda/probes224.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import math

import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/stego-lsbm-affine-path-ballot", "probe/stego-chi2-attack-prefix-double",
       "probe/stego-rs-uchar4-const-local", "probe/forensics-jpeg-dct-dq-hist-struct",
       "probe/forensics-srm-cooc-smem-i8", "probe/forensics-copymove-fnv-cas64"]

F32 = np.float32
U64 = np.uint64


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen222"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes224.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _fma32(a, b, c):
    """float a * b + c rounded once (the emulator contracts as nvcc does): the exact
    product in double, one more rounding (a double rounding only on an exact midpoint)."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(F32)


# ---- references ----

def _hash32(x):
    x = np.asarray(x, np.uint32).copy()
    x ^= x >> np.uint32(16)
    x *= np.uint32(0x7FEB352D)
    x ^= x >> np.uint32(15)
    x *= np.uint32(0x846CA68B)
    x ^= x >> np.uint32(16)
    return x


def _lsbm_ref(cover, msg, n, a_inv, b, nbits, key):
    """lsbm_embed: (stego, changed, used)."""
    i = np.arange(n, dtype=np.uint64)
    k = ((i + U64(n) - U64(b)) * U64(a_inv)) % U64(n)
    used = k < U64(nbits)
    bit = np.zeros(n, np.int64)
    ku = k[used]
    bit[used] = (msg[(ku >> U64(5)).astype(np.int64)].astype(np.int64) >> (ku & U64(31)).astype(np.int64)) & 1
    x = cover.astype(np.int64)
    ch = used & ((x & 1) != bit)
    up = (_hash32(np.uint32(key) ^ np.arange(n, dtype=np.uint32)) & 1) == 1
    step = np.where(x == 0, 1, np.where(x == 255, -1, np.where(up, 1, -1)))
    return np.where(ch, x + step, x).astype(np.uint8), int(ch.sum()), int(used.sum())


def _chi2_q(df, chi2):
    """The chi-square distribution's survival function at chi2 for df degrees of freedom
    (an integer), by its closed forms: e^-y sum y^k / k! (df even) or erfc(sqrt y) plus e^-y sum
    y^(k + 1/2) / Gamma(k + 3/2) (df odd), y = chi2 / 2."""
    y = chi2 / 2
    if y <= 0:
        return 1.0
    if df % 2 == 0:
        return sum(math.exp(-y + k * math.log(y) - math.lgamma(k + 1)) for k in range(df // 2))
    return math.erfc(math.sqrt(y)) + sum(math.exp(-y + (k + 0.5) * math.log(y) - math.lgamma(k + 1.5))
                                         for k in range((df - 1) // 2))


def _chi2_ref(img, npix, nseg):
    """chi2_attack: (chi2, p, df) of each image's prefixes (rows: images)."""
    img = np.asarray(img).reshape(-1, npix)
    chi = np.zeros((len(img), nseg))
    p = np.ones((len(img), nseg))
    df = np.zeros((len(img), nseg), np.int64)
    for b, im in enumerate(img):
        for s in range(nseg):
            h = np.bincount(im[:(s + 1) * npix // nseg], minlength=256).astype(np.int64)
            h0, h1 = h[0::2], h[1::2]
            ok = h0 + h1 >= tp.P224_CH_MINCAT
            e = 0.5 * (h0 + h1)[ok]
            chi[b, s] = ((h0[ok] - e) ** 2 / e).sum()
            df[b, s] = ok.sum() - 1
            if df[b, s] >= 1:
                p[b, s] = _chi2_q(int(df[b, s]), chi[b, s])
    return chi, p, df


def _rs_ref(img, npix, masks=tp.P224_RS_MASKS):
    """rs_counts: int64 (images, masks, 8)."""
    g = np.asarray(img).reshape(-1, npix // 4, 4).astype(np.int64)
    out = np.zeros((len(g), len(masks), 8), np.int64)

    def var(z):
        return np.abs(np.diff(z, axis=-1)).sum(axis=-1)

    def flip(z, m):                                    # m: (4,) of -1 / 0 / 1
        f1 = z ^ 1
        fm = ((z + 1) ^ 1) - 1
        return np.where(m == 1, f1, np.where(m == -1, fm, z))
    for v in range(2):
        z = g ^ 1 if v else g
        f0 = var(z)
        for m, M in enumerate(masks):
            fp = var(flip(z, M))
            fn = var(flip(z, -M))
            out[:, m, 4 * v + 0] = (fp > f0).sum(axis=1)
            out[:, m, 4 * v + 1] = (fp < f0).sum(axis=1)
            out[:, m, 4 * v + 2] = (fn > f0).sum(axis=1)
            out[:, m, 4 * v + 3] = (fn < f0).sum(axis=1)
    return out


def _round_away(x):
    x = np.asarray(x, np.float64)
    return (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(np.int64)


def _jpeg_ref(img, width, qtab):
    """jpeg_dct_hist, float32 as the kernel rounds: (coef (blocks, 64), dc, energy (float64 sum of
    |d|), nnz, last, hist (9, 41))."""
    C = tp._p224_dct_matrix().astype(F32)
    zz = tp._p224_zigzag().ravel().astype(np.int64)
    h = len(img) // width
    B = (np.asarray(img).reshape(h // 8, 8, width // 8, 8).transpose(0, 2, 1, 3).reshape(-1, 8, 8)
         .astype(F32) - F32(128))
    T = np.zeros_like(B)                                   # T[., v, u] = sum_k C[u, k] B[., v, k]
    for k in range(8):
        T = _fma32(C[None, None, :, k], B[:, :, k][:, :, None], T)
    D = np.zeros_like(B)                                   # D[., v, u] = sum_k C[v, k] T[., k, u]
    for k in range(8):
        D = _fma32(C[None, :, k][:, :, None], T[:, k, :][:, None, :], D)
    q = _round_away(D / qtab.reshape(8, 8).astype(F32)).reshape(-1, 64)
    ac = zz > 0
    nz = (q != 0) & ac[None, :]
    last = np.where(nz, zz[None, :], 0).max(axis=1)
    hist = np.zeros((tp.P224_JQ_MODES, 2 * tp.P224_JQ_HB + 1), np.int64)
    for m in range(1, tp.P224_JQ_MODES + 1):
        col = q[:, int(np.flatnonzero(zz == m)[0])]
        col = col[np.abs(col) <= tp.P224_JQ_HB]
        hist[m - 1] = np.bincount(col + tp.P224_JQ_HB, minlength=2 * tp.P224_JQ_HB + 1)
    energy = np.abs(D.reshape(-1, 64)[:, ac].astype(np.float64)).sum(axis=1)
    return q, q[:, 0] * np.float64(qtab.ravel()[0]), energy, nz.sum(axis=1), last, hist


def _srm_residuals(im):
    """The 3 residuals of one image (int64 (3, h - 4, w - 4): the defined ones)."""
    x = np.asarray(im).astype(np.int64)
    h, w = x.shape
    c = x[2:h - 2, 2:w - 2]
    r0 = x[2:h - 2, 3:w - 1] - c
    r1 = x[2:h - 2, 1:w - 3] - 2 * c + x[2:h - 2, 3:w - 1]
    kv = np.zeros_like(c)
    for i in range(5):
        for j in range(5):
            kv += tp.P224_SR_KV[i, j] * x[i:h - 4 + i, j:w - 4 + j]
    return np.stack([r0, r1, kv])


def _srm_ref(img, width, img_h):
    """srm_cooc: (hist (images, 3, 625), energy float64 (images))."""
    ims = np.asarray(img).reshape(-1, img_h, width)
    T = tp.P224_SR_T
    hist = np.zeros((len(ims), 3, tp.P224_SR_BINS), np.int64)
    en = np.zeros(len(ims))
    for b, im in enumerate(ims):
        if img_h < 5 or width < 5:
            continue
        R = _srm_residuals(im)
        qf = np.floor(R.astype(F32) / tp.P224_SR_Q[:, None, None] + F32(0.5))
        d = np.clip(qf, -T, T).astype(np.int64) + T
        if d.shape[2] >= 4:
            idx = d[:, :, :-3] + 5 * d[:, :, 1:-2] + 25 * d[:, :, 2:-1] + 125 * d[:, :, 3:]
            for f in range(3):
                hist[b, f] = np.bincount(idx[f].ravel(), minlength=tp.P224_SR_BINS)
        e = R[2].astype(F32) / F32(12)
        en[b] = (e * e).astype(np.float64).sum()
    return hist, en


def _fnv_keys(img, width, height):
    """copymove_hash's keys (uint64, the top 40 bits of FNV-1a 64 over the 64 bytes) and flat
    test (max - min) of every 8 x 8 block position ((height - 7, width - 7) each)."""
    x = np.asarray(img).reshape(height, width)
    ny, nx = height - 7, width - 7
    h = np.full((ny, nx), U64(14695981039346656037))
    lo = np.full((ny, nx), 255)
    hi = np.zeros((ny, nx), np.int64)
    for r in range(8):
        for c in range(8):
            p = x[r:r + ny, c:c + nx]
            h ^= p.astype(U64)
            h *= U64(1099511628211)
            lo = np.minimum(lo, p)
            hi = np.maximum(hi, p)
    return h >> U64(24), hi - lo


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # photos: 8-bit, bright and dark images, small neighbour differences with heavy tails, combed histograms
    P = tp._p224_photos(24, 128, 128, rng)
    assert P.dtype == np.uint8 and P.shape == (24, 128, 128)
    m = P.reshape(24, -1).mean(axis=1)
    assert m.min() < 100 and m.max() > 150
    d = np.abs(np.diff(P.astype(np.int16), axis=2))
    assert 1 <= np.median(d) <= 4 and np.percentile(d, 99) >= 4 * max(1, np.median(d))
    assert np.corrcoef(P[:, :, 1:].ravel(), P[:, :, :-1].ravel())[0, 1] > 0.9
    hist = np.bincount(P[0].ravel(), minlength=256)
    assert (hist[10:240] == 0).any() or (hist[10:240] > 3 * np.convolve(hist, np.ones(5) / 5, "same")[10:240]).any()
    lut = tp._p224_tone_luts(50, rng)
    assert (np.diff(lut.astype(int), axis=1) >= 0).all() and (lut[:, 0] == 0).all() and (lut[:, -1] == 255).all()
    # the 64 MP photo: its path is a permutation, 0.4 bits a pixel
    h = tp._p224_ls_args(1 << 14, rng)
    n = 1 << 14
    k = (np.arange(n, dtype=U64) + U64(n) - U64(int(h[5]))) * U64(int(h[4])) % U64(n)
    assert len(np.unique(k)) == n and h[6] == int(0.4 * n) and len(h[1]) == h[6] // 32 + 1
    bits = np.unpackbits(h[1].view(np.uint8), bitorder="little")
    assert bits[h[6]:].sum() == 0 and 0.45 < bits[:h[6]].mean() < 0.55
    # chi-square: covers and sequentially embedded images; the attack tells them apart
    img, r = tp._p224_ch_images(12, rng, side=128)
    assert ((r == 0) | ((r >= 0.05) & (r <= 1))).all() and 0 < (r > 0).sum() < 12
    chi, p, df = _chi2_ref(img.reshape(12, -1), 128 * 128, 8)
    for b in range(12):
        if r[b] > 0.3:
            assert p[b, 0] > 0.5                             # the first eighth all embedded: p near 1
        if r[b] == 0:
            assert p[b, -1] < 0.5
    # RS: LSB replacement at random pixels: R_M - S_M shrinks with the rate
    img, r = tp._p224_rs_images(8, rng, side=128)
    c = _rs_ref(img.reshape(8, -1), 128 * 128)
    gap = (c[:, 0, 0] - c[:, 0, 1]) / (c[:, 0, 0] + c[:, 0, 1])
    assert np.corrcoef(gap, r)[0, 1] < -0.5
    # JPEG: Annex K at 50, libjpeg's scaling, zigzag order, the roundtrip idempotent-ish
    assert (tp._p224_qtable(50) == tp.P224_JQ_LUMA).all() and tp._p224_qtable(100).max() == 1
    zz = tp._p224_zigzag()
    assert sorted(zz.ravel()) == list(range(64)) and zz[0, 1] == 1 and zz[1, 0] == 2 and zz[7, 7] == 63
    C = tp._p224_dct_matrix()
    assert np.allclose(C @ C.T, np.eye(8))
    img, q1 = tp._p224_jq_images(6, rng, side=64)
    again = tp._p224_jpeg_roundtrip(img, tp._p224_qtable(tp.P224_JQ_Q2))
    assert np.abs(again.astype(int) - img).mean() < 0.5 and (q1 != tp.P224_JQ_Q2).all()
    D = tp._p224_dct_image(img.astype(F32) - 128, C.astype(F32)) / np.tile(tp._p224_qtable(tp.P224_JQ_Q2), (8, 8))
    assert (np.abs(D - np.rint(D)) < 0.2).mean() > 0.9                # on the last save's quantisation lattice
    # SRM: LSB matching raises the residuals' energy
    img, st = tp._p224_sr_images(8, rng, side=64)
    assert 0 < st.sum() < 8
    # copy-move: exact copies of rectangles
    im, cps = tp._p224_cm_image(256, rng, copies=3, size=(24, 40))
    assert len(cps) == 3
    for sx, sy, w, hh, dx, dy in cps:
        assert (im[sy:sy + hh, sx:sx + w] == im[sy + dy:sy + dy + hh, sx + dx:sx + dx + w]).all()
        assert abs(dx) >= w + 8 or abs(dy) >= hh + 8
    keys, spread = _fnv_keys(im, 256, 256)
    live = spread > tp.P224_CM_FLAT
    assert 0.5 < live.mean() < 1 and (im == 255).mean() > 0.005        # bright: some of the sky clipped
    nrep = live.sum() - len(np.unique(keys[live]))
    copied = sum(int(live[sy:sy + hh - 7, sx:sx + w - 7].sum()) for sx, sy, w, hh, _, _ in cps)
    assert copied > 1000 and nrep >= copied


# ---- stego-lsbm-affine-path-ballot ----

def _check_lsbm(h, grid):
    n = int(h[3])
    out = run("probe/stego-lsbm-affine-path-ballot", h, n, grid=grid)
    st, ch, used = _lsbm_ref(h[0], h[1], n, int(h[4]), int(h[5]), int(h[6]), int(h[7]))
    assert (out[2] == st).all() and out[8][0] == ch and out[8][1] == used
    return out


def test_lsbm():
    rng = np.random.default_rng(1)
    h = tp._p224_ls_args(5000, rng)
    out = _check_lsbm(h, (4, 1))                                   # 5 trips, the last part full
    assert out[8][1] == int(0.4 * 5000) and 0.35 < out[8][0] / out[8][1] < 0.65
    assert (np.abs(out[2].astype(int) - h[0]) <= 1).all()


def test_lsbm_cases():
    rng = np.random.default_rng(2)
    n = 700                                                        # a single block of 256, 3 trips
    cover = np.repeat(np.array([0, 255, 1, 254, 128], np.uint8), n // 5)
    _, b, a_inv = tp._p224_ls_path(n, rng)
    msg = np.full(n // 32 + 1, 0xFFFFFFFF, np.uint32)              # every bit 1: the even pixels move
    h = [cover, msg, np.zeros(n, np.uint8), np.int32(n), np.uint32(a_inv), np.int32(b), np.int32(n),
         np.uint32(12345), np.zeros(2, np.int32)]
    out = _check_lsbm(h, (1, 1))
    assert out[8][1] == n and out[8][0] == 3 * n // 5
    assert (out[2][cover == 0] == 1).all() and (out[2][cover == 255] == 255).all()
    h[6] = np.int32(0)                                             # no payload: nothing changes
    out = _check_lsbm(h, (1, 1))
    assert (out[2] == cover).all() and (out[8] == 0).all()
    h = tp._p224_ls_args(37, rng)                                  # fewer pixels than a warp
    _check_lsbm(h, (3, 1))


# ---- stego-chi2-attack-prefix-double ----

def _check_chi2(img, npix, nseg):
    nimg = len(img) // npix
    h = [np.asarray(img, np.uint8).ravel(), np.int32(npix), np.int32(nseg), np.zeros(nimg * nseg),
         np.zeros(nimg * nseg), np.zeros(nimg * nseg, np.int32)]
    out = run("probe/stego-chi2-attack-prefix-double", h, nimg, grid=(nimg, 1))
    chi, p, df = _chi2_ref(img, npix, nseg)
    assert (out[5] == df.ravel()).all()
    assert np.allclose(out[3], chi.ravel(), rtol=1e-12, atol=1e-9)
    assert np.allclose(out[4], p.ravel(), rtol=1e-9, atol=1e-12)
    return out


def test_chi2_attack():
    rng = np.random.default_rng(3)
    flat = tp._p224_photos(3, 64, 64, rng).reshape(3, -1)
    for k, r in ((1, 0.5), (2, 1.0)):                              # a cover, half, all embedded
        tp._p224_lsb_replace(flat[k], int(r * flat.shape[1]), rng)
    out = _check_chi2(flat.ravel(), 64 * 64, 8)                    # 16 trips of 256 threads a segment
    p = out[4].reshape(3, 8)
    assert p[2].min() > 0.05 and p[1, 0] > 0.05 and p[1, -1] < p[1, 0]


def test_chi2_cases():
    npix = 960                                                     # 12 segments of 80 pixels
    one = np.full(npix, 77, np.uint8)                              # a single pair: df 0, p 1
    spread = (np.arange(npix) * 7 % 256).astype(np.uint8)          # under 10 a pair: df -1, p 1
    even = np.tile(np.array([10, 11, 40, 41], np.uint8), npix // 4)   # pairs exactly equal: chi2 0, p 1
    edge = np.zeros(npix, np.uint8)                                # pairs of 9 and 10 pixels: the threshold
    edge[:9] = 100
    edge[9:19] = 102
    edge[19:] = np.arange(npix - 19) % 40 + 150
    out = _check_chi2(np.concatenate([one, spread, even, edge]), npix, 12)
    assert (out[5][:12] == 0).all() and (out[5][12:24] == -1).all() and (out[4][:36] == 1).all()
    assert (out[3][24:36] == 0).all() and (out[5][24:36] == 1).all() and out[5][36] == 0
    _check_chi2(np.random.default_rng(5).integers(0, 256, 256, dtype=np.uint8), 256, 1)   # one segment


# ---- stego-rs-uchar4-const-local ----

def _check_rs(img, npix, grid):
    nimg = len(img) // npix
    h = [np.asarray(img, np.uint8).ravel(), np.int32(npix), np.zeros(nimg * 32, np.int32)]
    out = run("probe/stego-rs-uchar4-const-local", h, nimg, symbols={"c_rs_mask": tp.P224_RS_MASKS}, grid=grid)
    want = _rs_ref(img, npix)
    assert (out[2].reshape(nimg, 4, 8) == want).all()
    return want


def test_rs_counts():
    rng = np.random.default_rng(6)
    img, r = tp._p224_rs_images(3, rng, side=64)
    c = _check_rs(img.ravel(), 64 * 64, (3, 3))                    # 1024 groups, 768 threads an image
    assert (c[:, :, 0] > c[:, :, 1]).all()                         # natural images: R_M > S_M


def test_rs_cases():
    g = np.array([[0, 0, 0, 0], [255, 255, 255, 255], [0, 1, 2, 3], [7, 7, 8, 8], [254, 255, 0, 1],
                  [100, 101, 100, 101], [3, 2, 2, 3], [128, 200, 10, 90]], np.uint8)
    img = np.tile(g, (5, 1)).ravel()                               # 40 groups: part of a warp
    c = _check_rs(img, len(img), (1, 1))
    assert c[0, 0, 0] > 0
    _check_rs(np.zeros(4, np.uint8), 4, (2, 1))                    # a single group, two blocks


# ---- forensics-jpeg-dct-dq-hist-struct ----

def _check_jpeg(img, width, grid=None):
    img = np.asarray(img, np.uint8).ravel()
    nblk = len(img) // 64
    h = [img, np.int32(width), np.zeros(len(img), np.int16), np.zeros(nblk, tp.P224_JQ_STAT),
         np.zeros(tp.P224_JQ_MODES * (2 * tp.P224_JQ_HB + 1), np.int32)]
    grid = grid or (width // 8, len(img) // width // 8)
    syms = tp._p224_jq_symbols()
    out = run("probe/forensics-jpeg-dct-dq-hist-struct", h, 1, symbols=syms, grid=grid)
    q, dc, en, nnz, last, hist = _jpeg_ref(img, width, syms["c_qtab"])
    assert (out[2].reshape(-1, 64) == q).all()
    st = out[3]
    assert (st["dc"] == dc).all() and (st["nnz"] == nnz).all() and (st["last"] == last).all()
    assert np.allclose(st["ac_energy"], en, rtol=2e-6, atol=1e-4)
    assert (out[4].reshape(tp.P224_JQ_MODES, -1) == hist).all()
    return out


def test_jpeg_dct_hist():
    rng = np.random.default_rng(7)
    img, q1 = tp._p224_jq_images(2, rng, side=32)
    out = _check_jpeg(img.ravel(), 32)                             # 2 images stacked: 4 x 8 blocks
    assert out[4].sum() > 0 and (out[3]["nnz"] > 0).any()


def test_jpeg_cases():
    x = np.arange(8)
    flat = np.full((8, 8), 200, np.uint8)                          # DC only
    checker = np.where((x[:, None] + x[None, :]) % 2, 255, 0).astype(np.uint8)    # (7, 7): zigzag 63
    ramp = np.tile((x * 30).astype(np.uint8), (8, 1))              # u = 1 quantised beyond +-20
    half = np.full((8, 8), 128, np.uint8)                          # all coefficients 0: dc 0
    img = np.concatenate([np.concatenate([flat, checker, ramp, half], axis=1)] * 2)
    out = _check_jpeg(img.ravel(), 32)
    st = out[3]
    assert st["nnz"][0] == 0 and st["last"][0] == 0 and st["last"][1] == 63 and st["dc"][3] == 0


# ---- forensics-srm-cooc-smem-i8 ----

def _check_srm(img, width, img_h, grid):
    img = np.asarray(img, np.uint8).ravel()
    nimg = len(img) // (width * img_h)
    h = [img, np.int32(width), np.int32(img_h), np.zeros(nimg * 3 * tp.P224_SR_BINS, np.int32),
         np.zeros(nimg, F32)]
    out = run("probe/forensics-srm-cooc-smem-i8", h, nimg, symbols=tp._p224_sr_symbols(), grid=grid)
    hist, en = _srm_ref(img, width, img_h)
    assert (out[3].reshape(nimg, 3, -1) == hist).all()
    assert np.allclose(out[4], en, rtol=1e-5, atol=1e-6)
    return out


def test_srm_cooc():
    rng = np.random.default_rng(8)
    img, st = tp._p224_sr_images(2, rng, side=64)
    out = _check_srm(img.ravel(), 64, 64, (2, 16))
    hist = out[3].reshape(2, 3, -1)
    assert (hist.sum(axis=2) == 60 * 57).all() and hist[:, :, 312].min() > 0   # the all-zero tuple


def test_srm_cases():
    rng = np.random.default_rng(9)
    img = rng.integers(0, 256, (3, 16, 40), dtype=np.uint8)       # partial tiles along x, 2 rows of tiles
    img[1] = 90                                                    # a flat image: all on the centre bin
    out = _check_srm(img.ravel(), 40, 16, (2, 6))
    hist = out[3].reshape(3, 3, -1)
    assert (hist[1, :, 312] == 12 * 33).all() and out[4][1] == 0
    tiny = rng.integers(0, 256, (8, 6), dtype=np.uint8)           # too narrow for a 4-tuple
    out = _check_srm(tiny.ravel(), 6, 8, (1, 1))
    assert (out[3] == 0).all() and out[4][0] > 0


# ---- forensics-copymove-fnv-cas64 ----

def _check_cm(img, width, height, tsize=None, grid=None, policy="lockstep"):
    img = np.asarray(img, np.uint8).ravel()
    ts = tsize or tp._p224_cm_tsize(max(width, height))
    rows, cols = tp._p224_cm_shape(width, height)
    h = [img, np.int32(width), np.int32(height), np.int32(tp.P224_CM_FLAT), np.full(ts, tp.P224_CM_EMPTY, U64),
         np.uint32(ts - 1), np.zeros(1 << 14, tp.P224_CM_MATCH), np.int32(1 << 14), np.zeros(1, np.int32),
         np.zeros(rows * cols, np.int32)]
    grid = grid or (-(-(width - 7) // 32), -(-(height - 7) // 8))
    out = run("probe/forensics-copymove-fnv-cas64", h, width, grid=grid, policy=policy)
    keys, spread = _fnv_keys(img, width, height)
    live = spread > tp.P224_CM_FLAT
    ys, xs = np.nonzero(live)
    pos = ys * width + xs
    k = keys[live]
    table = out[4]
    full = table != tp.P224_CM_EMPTY
    stored = table[full]
    skey = stored >> U64(24)
    # each distinct key stored once, in the probe sequence from its home slot with no hole before it
    assert sorted(skey.tolist()) == sorted(set(k.tolist()))
    slots = np.flatnonzero(full)
    mask = ts - 1
    for s, w in zip(slots, stored):
        home = int(w >> U64(24)) & mask
        j = home
        while j != s:
            assert full[j]
            j = (j + 1) & mask
    spos = (stored & U64((1 << 24) - 1)).astype(np.int64)
    by_key = {}
    for kk, pp in zip(k.tolist(), pos.tolist()):
        by_key.setdefault(kk, []).append(pp)
    assert all(p in by_key[int(kk)] for kk, p in zip(skey, spos))
    # the matches: every other block of a key against the stored one
    want = []
    hist = np.zeros(rows * cols, np.int64)
    for kk, p in zip(skey.tolist(), spos.tolist()):
        for q in by_key[kk]:
            if q == p:
                continue
            dx, dy = q % width - p % width, q // width - p // width
            if dy < 0 or (dy == 0 and dx < 0):
                dx, dy = -dx, -dy
            if dx * dx + dy * dy >= tp.P224_CM_MINSHIFT ** 2:
                want.append((q, p))
                hist[(dy >> 4) * cols + ((dx + width) >> 4)] += 1
    n = int(out[8][0])
    assert n == len(want)
    got = out[6][:n]
    assert sorted(zip(got["a"].tolist(), got["b"].tolist())) == sorted(want)
    assert (out[9] == hist).all()
    return out, want


def test_copymove():
    rng = np.random.default_rng(10)
    im, cps = tp._p224_cm_image(96, rng, copies=2, size=(16, 24))
    out, want = _check_cm(im, 96, 96)
    _, spread = _fnv_keys(im, 96, 96)
    copied = sum(int((spread[sy:sy + h - 7, sx:sx + w - 7] > tp.P224_CM_FLAT).sum()) for sx, sy, w, h, _, _ in cps)
    assert copied > 200 and len(want) >= copied                    # every textured copied block found


def test_copymove_cases():
    rng = np.random.default_rng(11)
    flat = np.full((40, 48), 255, np.uint8)                        # saturated: every block skipped
    out, want = _check_cm(flat, 48, 40)
    assert (out[4] == tp.P224_CM_EMPTY).all() and out[8][0] == 0
    im = rng.integers(0, 256, (40, 48), dtype=np.uint8)
    im[20:30, 30:40] = im[2:12, 2:12]                              # a copy 18 + 28 away: 9 matches
    im[0:10, 38:48] = im[2:12, 27:37]                              # 11 to the side: under the minimum
    out, want = _check_cm(im, 48, 40, tsize=1 << 11)               # a small table: long probes, wraps
    assert len(want) == 9 and out[8][0] == 9
    tex = np.tile(rng.integers(0, 256, (8, 20), dtype=np.uint8), (4, 3))   # period 20 x 8: many repeats
    _check_cm(tex, 60, 32)
    im = rng.integers(0, 256, (24, 96), dtype=np.uint8)
    im[4:20, 60:76] = im[4:20, 10:26]                              # along a row, 50 apart: dy = 0
    out, want = _check_cm(im, 96, 24, policy="random")             # blocks in any order: either side first
    assert len(want) == 81 and out[9].sum() == 81
    assert out[9][(0 >> 4) * tp._p224_cm_shape(96, 24)[1] + ((50 + 96) >> 4)] == 81
