"""probe-unseen224's kernels (kernels_cuda/probes226.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/hsi-sam-const-acos-i16", "probe/hsi-rx-whiten-double-ballot",
       "probe/hsi-band-covariance-tiled-atomics", "probe/hsi-ppi-skewers-shfl-minmax64",
       "probe/hsi-nnls-lawson-hanson-local", "probe/hsi-continuum-hull-local-struct"]

F32 = np.float32
U64 = np.uint64
NOKEY = U64(0xFFFFFFFFFFFFFFFF)


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen224"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes226.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _fma32(a, b, c):
    """float a * b + c rounded once (the emulator contracts as nvcc does): the exact product in
    double, one more rounding (a double rounding only on an exact midpoint)."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(F32)


# ---- references ----

def _sam_ref(cube, npix, nbands, scale, max_angle, ref, ref_norm):
    """sam_classify: (cls, angle, class_count); cube (nbands, npix) int16."""
    cube = np.asarray(cube).reshape(nbands, npix)
    nod = cube[0] == tp.P226_SAM_NODATA
    dot = np.zeros((len(ref), npix), F32)
    xx = np.zeros(npix, F32)
    for b in range(nbands):
        x = cube[b].astype(F32) * F32(scale)
        xx = _fma32(x, x, xx)
        dot = _fma32(x[None, :], ref[:, b][:, None], dot)
    with np.errstate(invalid="ignore", divide="ignore"):
        cs = dot / (np.sqrt(xx)[None, :] * ref_norm[:, None])
    cs = np.where(np.isnan(cs), F32(-1), np.clip(cs, F32(-1), F32(1)))      # fmaxf(-1, NaN) = -1
    ang = np.arccos(cs.astype(F32))
    j = ang.argmin(axis=0)
    best = ang.min(axis=0)
    cls = np.where(best < F32(max_angle), j, len(ref))
    cls = np.where(nod, len(ref) + 1, cls)
    best = np.where(nod, F32(0), best)
    return cls, best, np.bincount(cls, minlength=len(ref) + 2)


def _rx_ref(X, mean, W):
    """rx_detect's scores (float64): |W (x - mean)|^2, x - mean in float."""
    d = (np.asarray(X, F32) - np.asarray(mean, F32)).astype(np.float64)
    return ((d @ np.tril(W).T) ** 2).sum(axis=1)


def _cov_ref(cube, npix, nbands, scale, mean, inv_n1):
    """band_covariance: the full matrix (float64) of the float centred values."""
    x = (np.asarray(cube).reshape(nbands, npix).astype(F32) * F32(scale) - mean[:, None]).astype(np.float64)
    return (x @ x.T) * np.float64(F32(inv_n1))


def _ordered(v):
    u = np.asarray(v, F32).view(np.uint32)
    return np.where(u & np.uint32(0x80000000), ~u, u | np.uint32(0x80000000)).astype(U64)


def _ppi_ref(X, sk):
    """ppi_extremes: the keys of each skewer's smallest and largest projection."""
    X = np.asarray(X, F32)
    v = np.zeros((len(sk), len(X)), F32)
    for c in range(X.shape[1]):
        v = _fma32(X[None, :, c], sk[:, c][:, None], v)
    key = (_ordered(v) << U64(32)) | np.arange(len(X), dtype=U64)[None, :]
    return key.min(axis=1), key.max(axis=1)


def _lh_ref(G, b, tol, K):
    """Lawson and Hanson's NNLS on the normal equations G a = b in double: (a, solves)."""
    a = np.zeros(K)
    P = np.zeros(K, bool)
    solves = 0
    for _ in range(3 * K):
        w = b - G @ a
        cand = ~P & (w > tol)
        if not cand.any():
            break
        P[int(np.argmax(np.where(cand, w, -np.inf)))] = True
        while True:
            solves += 1
            z = np.zeros(K)
            idx = np.flatnonzero(P)
            z[idx] = np.linalg.solve(G[np.ix_(idx, idx)], b[idx])
            neg = P & (z <= 0)
            with np.errstate(invalid="ignore", divide="ignore"):
                q = a[neg] / (a[neg] - z[neg])
            q = q[~np.isnan(q)]
            if not len(q) or q.min() > 1:
                a = z
                break
            a = a + q.min() * (z - a)
            drop = P & (a <= 1e-6)
            P[drop] = False
            a[drop] = 0
    return a, solves


def _hull_ref(wl, r):
    """The upper convex hull (vertex indices) of (wl, r), collinear points dropped, in double;
    and the smallest |cross product| met (relative), a margin for float decisions."""
    h = []
    margin = np.inf
    for k in range(len(r)):
        while len(h) >= 2:
            i0, i1 = h[-2], h[-1]
            cr = (wl[i1] - wl[i0]) * (r[k] - r[i0]) - (r[i1] - r[i0]) * (wl[k] - wl[i0])
            margin = min(margin, abs(cr) / ((wl[k] - wl[i0]) * (abs(r).max() + 1e-3)))
            if cr < 0:
                break
            h.pop()
        h.append(k)
    return h, margin


def _cr_ref(cube, width, nbands, b0, b1, scale, min_refl, wl=tp.P226_WL):
    """continuum_removal in double: per pixel (skip, depth, band, margin (of the deepest band over
    the second), center, area, nhull, hull margin)."""
    c = np.asarray(cube).reshape(-1, nbands, width)
    R = (c[:, b0:b1, :].astype(F32) * F32(scale)).astype(np.float64).transpose(0, 2, 1).reshape(-1, b1 - b0)
    w = wl[b0:b1].astype(np.float64)
    out = []
    for r in R:
        if r.astype(F32).mean(dtype=np.float64) < min_refl - 1e-6:
            out.append((True, 0.0, 0xFFFF, np.inf, 0.0, 0.0, 0, np.inf))
            continue
        h, hm = _hull_ref(w, r)
        cont = np.interp(w, w[h], r[h])
        d = np.where(cont > 0, 1 - r / np.where(cont > 0, cont, 1), 0.0)
        k = int(np.argmax(d))
        gap = d[k] - np.max(np.delete(d, k)) if len(d) > 1 else np.inf
        center = w[k]
        if 0 < k < len(d) - 1:
            den = d[k - 1] - 2 * d[k] + d[k + 1]
            if abs(den) > 1e-12:
                center += 0.5 * (d[k - 1] - d[k + 1]) / den * (w[k + 1] - w[k])
        out.append((False, d[k], k, gap, center, d.sum(), len(h), hm))
    return out


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    wl = tp.P226_WL
    E = tp._p226_library()
    assert E.shape == (8, 224) and E.min() > 0 and E.max() < 1
    veg, dry, soil, kao, cal, water = E[:6]
    at = lambda nm: int(np.argmin(np.abs(wl - nm)))
    assert veg[at(850)] > 5 * veg[at(670)] and veg[at(550)] > veg[at(670)]          # red edge, green peak
    assert kao[at(2205)] < 0.8 * kao[at(2100)] and cal[at(2340)] < 0.8 * cal[at(2250)]
    assert water[at(1000):].max() < 0.01
    assert 180 <= len(tp.P226_GOOD) <= 190
    # abundances: sum to one, mostly pure patches (clustered), mixed at the borders
    A, s = tp._p226_abundances(128, 256, rng)
    assert np.allclose(A.sum(axis=1), 1, atol=1e-5) and (A >= 0).all()
    dom = A.argmax(axis=1).reshape(128, 256)
    assert (dom[:, 1:] == dom[:, :-1]).mean() > 0.8 and 0.3 < (A.max(axis=1) > 0.9).mean() < 0.7
    share = np.bincount(dom.ravel(), minlength=8) / dom.size
    assert share.max() < 0.5 and (share > 0.005).all()
    assert 0.6 <= s.min() and s.max() <= 1.3 and 0.05 < s.std() < 0.15
    # the SAM cube: int16 reflectance * 1e4, 15% no-data, noisy water-vapour bands (some negative)
    n = 8192
    cube = tp._p226_sam_cube(n, rng)
    nod = cube[0] == tp.P226_SAM_NODATA
    assert cube.dtype == np.int16 and abs(nod.mean() - 0.15) < 0.01 and (cube[:, nod] == -9999).all()
    R = cube[:, ~nod].astype(np.float64) * 1e-4
    assert 0.2 < np.median(R) < 0.4 and R.max() < 1.0 and 0 < (R < 0).mean() < 0.01
    bad = np.setdiff1d(np.arange(224), tp.P226_GOOD)
    dn = np.abs(np.diff(R, axis=1))                     # neighbouring pixels: noise + texture
    assert np.median(dn[bad]) > 3 * np.median(dn[tp.P226_GOOD])
    # RX: 20 components, variance decreasing, targets stand out
    X, fill = tp._p226_pc_scene(1 << 16, 20, rng, targets=2e-3)
    sd = X.std(axis=0)
    assert X.dtype == np.float32 and (np.diff(sd) <= 1e-4).all() and sd[0] > 100 * sd[-1]
    assert 0.5 * 2e-3 < (fill > 0).mean() < 3 * 2e-3
    mu, W = tp._p226_rx_stats(X)
    sc = _rx_ref(X, mu, W)
    assert abs(np.median(sc) - 19.3) < 3                                  # about chi-square, 20 dof
    assert np.median(sc[fill >= 0.5]) > tp._p226_chi2_quantile(1e-3, 20) > np.quantile(sc[fill == 0], 0.995)
    # PPI: unit skewers
    S = tp._p226_skewers(64, 16, rng)
    assert np.allclose(np.linalg.norm(S, axis=1), 1, atol=1e-6)
    # NNLS: the right-hand sides and norms of the spectra; calcite and roofs outside the model
    etx, xx, Y = tp._p226_nn_system(4096, rng)
    Ee, G = tp._p226_nn_ends()
    assert np.allclose(G, Ee.astype(np.float64) @ Ee.T.astype(np.float64), rtol=1e-6)
    assert np.allclose(etx, (Y @ tp._p226_library()[:, tp.P226_GOOD]) @ Ee.T.astype(np.float64), rtol=0.05, atol=0.05)
    assert (xx > 0).all() and np.median(xx) > 5
    # continuum removal: the SWIR-2 window, uint16, negative reflectance clipped
    b0, b1 = tp._p226_cr_window()
    assert 2045 < wl[b0] < 2060 and 2440 < wl[b1 - 1] <= 2450 and b1 - b0 <= 64
    c = tp._p226_cr_cube(2048, rng)
    assert c.dtype == np.uint16 and c.shape == (4, 224, 512) and (c == 0).any()


# ---- hsi-sam-const-acos-i16 ----

def _check_sam(cube, npix, nbands, syms, grid=None, max_angle=tp.P226_SAM_MAXANG):
    h = [np.asarray(cube, np.int16).ravel(), np.int32(npix), np.int32(nbands), F32(tp.P226_SCALE), F32(max_angle),
         np.zeros(npix, np.uint8), np.zeros(npix, F32), np.zeros(10, np.int32)]
    out = run("probe/hsi-sam-const-acos-i16", h, npix, symbols=syms, grid=grid)
    cls, ang, cnt = _sam_ref(h[0], npix, nbands, tp.P226_SCALE, max_angle, syms["c_ref"], syms["c_ref_norm"])
    assert (out[5] == cls).all() and (out[7] == cnt).all()
    assert np.allclose(out[6], ang, rtol=2e-6, atol=2e-6)
    return out


def test_sam():
    rng = np.random.default_rng(1)
    n = 200                                                          # 7 blocks, the last part full
    cube = tp._p226_sam_cube(n, rng)
    out = _check_sam(cube, n, 224, tp._p226_sam_symbols())
    assert len(set(out[5].tolist())) >= 4 and out[7][9] > 0


def test_sam_cases():
    syms = tp._p226_sam_symbols()
    E = tp._p226_library()
    nb = 224
    px = [np.rint(E[3] * 1e4),                   # kaolinite exactly: angle ~0
          np.rint(0.5 * E[0] * 1e4),             # dark vegetation: same angle
          np.rint((0.5 * E[0] + 0.5 * E[2]) * 1e4),   # a 50/50 mixture: likely unclassified
          np.zeros(nb),                          # all zero (not no-data): NaN -> -1 -> pi
          np.full(nb, tp.P226_SAM_NODATA),       # no-data
          np.rint(E[5] * 1e4)]                   # water
    cube = np.stack(px, axis=1).astype(np.int16)                    # (224, 6): one block, 6 lanes of 32
    out = _check_sam(cube, 6, nb, syms)
    assert out[5][0] == 3 and out[5][1] == 0 and out[5][3] == 8 and out[5][4] == 9
    assert out[6][0] < 1e-3 and abs(out[6][3] - np.pi) < 1e-6 and out[6][4] == 0
    # fewer bands than the table holds (the rest of c_ref unused), max angle 0: all unclassified
    rng = np.random.default_rng(2)
    cube = rng.integers(0, 5000, (5, 40)).astype(np.int16)
    out = _check_sam(cube, 40, 5, syms, max_angle=0.0)
    assert (out[5] == 8).all() and out[7][8] == 40


# ---- hsi-rx-whiten-double-ballot ----

def _check_rx(X, mean, W, thresh, grid, max_det=1 << 12):
    X = np.asarray(X, F32)
    n = len(X)
    h = [X.ravel(), np.int32(n), np.asarray(mean, F32), np.asarray(W, np.float64).ravel(), np.float64(thresh),
         np.zeros(n, F32), np.zeros(max_det, tp.P226_RX_DET), np.int32(max_det), np.zeros(1, np.int32)]
    out = run("probe/hsi-rx-whiten-double-ballot", h, n, grid=grid)
    sc = _rx_ref(X, mean, W)
    assert np.allclose(out[5], sc.astype(F32), rtol=4e-7, atol=0)
    hit = np.flatnonzero(sc > thresh)
    assert out[8][0] == len(hit)
    det = out[6][:min(len(hit), max_det)]
    got = np.sort(det["pixel"])
    if len(hit) <= max_det:
        assert (got == hit).all()
    else:
        assert len(np.unique(got)) == max_det and np.isin(got, hit).all()
    assert (det["score"] == out[5][det["pixel"]]).all()
    return out


def test_rx():
    rng = np.random.default_rng(3)
    X, fill = tp._p226_pc_scene(3000, 20, rng, targets=5e-3)
    mu, W = tp._p226_rx_stats(X)
    out = _check_rx(X, mu, W, tp._p226_chi2_quantile(1e-3, 20), (4, 1))    # 3 trips, the last partial
    assert out[8][0] >= 5


def test_rx_cases():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((77, 20)).astype(F32)                    # white: W = I, thresh on |x|^2
    W = np.eye(20)
    mu = np.zeros(20, F32)
    out = _check_rx(X, mu, W, 20.0, (1, 1))                          # part of one block
    assert 0 < out[8][0] < 77
    _check_rx(X, mu, W, 1e9, (1, 1))                                 # nothing detected
    out = _check_rx(X, mu, W, 0.0, (1, 1), max_det=10)               # all detected, 10 kept
    assert out[8][0] == 77
    Wl = np.tril(rng.standard_normal((20, 20)))                     # the upper triangle ignored
    Wf = Wl + np.triu(rng.standard_normal((20, 20)), 1) * 100
    a = _check_rx(X, mu, Wf, 30.0, (1, 1))
    assert (_rx_ref(X, mu, Wl).astype(F32) == a[5]).all()


# ---- hsi-band-covariance-tiled-atomics ----

def _check_cov(cube, npix, nbands, chunk):
    cube = np.asarray(cube, np.int16).reshape(nbands, npix)
    mean = (cube.astype(np.float64).mean(axis=1) * tp.P226_SCALE).astype(F32)
    inv = F32(1.0 / max(1, npix - 1))
    h = [cube.ravel(), np.int32(npix), np.int32(nbands), F32(tp.P226_SCALE), mean, np.int32(chunk), inv,
         np.zeros(nbands * nbands, F32)]
    t = -(-nbands // 16)
    out = run("probe/hsi-band-covariance-tiled-atomics", h, npix, grid=(t, t, -(-npix // chunk)))
    C = out[7].reshape(nbands, nbands)
    ref = _cov_ref(cube, npix, nbands, tp.P226_SCALE, mean, inv)
    tile = np.arange(nbands) // 16
    upper = tile[:, None] <= tile[None, :]
    assert (C[~upper] == 0).all()
    assert np.allclose(C[upper], ref[upper], rtol=2e-5, atol=2e-6 * np.abs(ref).max() + 1e-12)
    return C, ref


def test_cov():
    rng = np.random.default_rng(5)
    cube, _ = tp._p226_cov_cube(1100, rng)
    sel = np.r_[0:20, 100:110, 150:160]                             # 40 bands: 3 tiles, the last partial
    C, ref = _check_cov(cube[sel], 1100, 40, 512)                    # 3 chunks, the last partial
    ev = np.linalg.eigvalsh(np.triu(C) + np.triu(C, 1).T)
    assert ev[-1] > 0.5 * ev.sum()                                   # one dominant component (brightness)


def test_cov_cases():
    rng = np.random.default_rng(6)
    x = rng.integers(-3000, 3000, (16, 37)).astype(np.int16)       # one tile, chunks of 16 pixels
    C, _ = _check_cov(x, 37, 16, 16)
    c = np.tile(np.int16(1234), (18, 20))                            # constant bands: zero covariance
    C, _ = _check_cov(c, 20, 18, 512)
    assert np.abs(C).max() < 1e-9


# ---- hsi-ppi-skewers-shfl-minmax64 ----

def _check_ppi(X, sk, grid=None, init=None):
    X = np.asarray(X, F32)
    n = len(X)
    mn = np.full(len(sk), NOKEY) if init is None else init[0].copy()
    mx = np.zeros(len(sk), U64) if init is None else init[1].copy()
    h = [X.ravel(), np.int32(n), np.asarray(sk, F32).ravel(), mn, mx]
    out = run("probe/hsi-ppi-skewers-shfl-minmax64", h, n,
              grid=grid or (-(-n // 256), len(sk) // 16))
    rmin, rmax = _ppi_ref(X, sk)
    if init is not None:
        rmin, rmax = np.minimum(rmin, init[0]), np.maximum(rmax, init[1])
    assert (out[3] == rmin).all() and (out[4] == rmax).all()
    return out


def test_ppi():
    rng = np.random.default_rng(7)
    X, _ = tp._p226_pc_scene(600, 16, rng)                          # 3 blocks, the last partial
    sk = tp._p226_skewers(32, 16, rng)                               # 2 batches of 16
    out = _check_ppi(X, sk)
    pix = np.concatenate([out[3], out[4]]) & U64(0xFFFFFFFF)
    assert len(np.unique(pix)) < 64                                  # pure pixels extreme on many skewers


def test_ppi_cases():
    rng = np.random.default_rng(8)
    x = rng.standard_normal(16).astype(F32)
    X = np.tile(x, (70, 1))                                          # all equal: ties to the lowest / highest
    X[5] = -X[5]                                                     # ... but one pixel, negated
    sk = tp._p226_skewers(16, 16, rng)
    out = _check_ppi(X, sk, grid=(1, 1))
    v = X[0] @ sk.T
    assert ((out[3] & U64(0xFFFFFFFF)) == np.where(v < 0, 0, 5)).all()
    assert ((out[4] & U64(0xFFFFFFFF)) == np.where(v < 0, 5, 69)).all()
    # the atomics combine with what the words hold: a batch already seen elsewhere
    X = rng.standard_normal((40, 16)).astype(F32)
    mn, mx = _ppi_ref(X[:20] * 3, sk)
    _check_ppi(X, sk, grid=(1, 1), init=(mn, mx))
    z = np.zeros((3, 16), F32)                                       # projections +0: ordered 0x80000000
    out = _check_ppi(z, sk, grid=(1, 1))
    assert (out[3] == U64(0x80000000 << 32)).all() and (out[4] == (U64(0x80000000 << 32) | U64(2))).all()


# ---- hsi-nnls-lawson-hanson-local ----

def _check_nn(etx, xx, nbands, grid=None, tol=tp.P226_NN_TOL):
    etx = np.asarray(etx, F32).reshape(-1, tp.P226_NN_K)
    n = len(etx)
    _, G = tp._p226_nn_ends()
    h = [etx.ravel(), np.asarray(xx, F32), np.int32(n), np.int32(nbands), G.ravel(), F32(tol),
         np.zeros(n * tp.P226_NN_K, F32), np.zeros(n, F32), np.zeros(n, np.uint8)]
    out = run("probe/hsi-nnls-lawson-hanson-local", h, n, grid=grid)
    a = out[6].reshape(n, -1).astype(np.float64)
    G64 = G.astype(np.float64)
    ref = [_lh_ref(G64, e.astype(np.float64), tol, tp.P226_NN_K) for e in etx]
    A = np.array([r[0] for r in ref]).reshape(n, -1)
    assert (a >= 0).all() and np.abs(a - A).max() < 1e-4
    assert (out[8] == [r[1] for r in ref]).all()
    r2 = np.asarray(xx, np.float64) - 2 * (a * etx).sum(axis=1) + np.einsum("pi,ij,pj->p", a, G64, a)
    assert np.allclose(out[7].astype(np.float64) ** 2, np.maximum(r2, 0) / nbands, rtol=1e-3,
                       atol=4e-7 * np.asarray(xx).max() / nbands)
    return out, A


def test_nnls():
    rng = np.random.default_rng(9)
    etx, xx, Y = tp._p226_nn_system(300, rng)
    out, A = _check_nn(etx, xx, len(tp.P226_GOOD))
    assert (A == 0).any(axis=1).mean() > 0.5 and len(set(out[8].tolist())) >= 3
    # the endmembers in the model are recovered where the scene holds no others
    inside = Y[:, [4, 5, 7]].sum(axis=1) < 1e-3
    assert inside.sum() > 10 and np.abs(A[inside] - Y[inside][:, list(tp.P226_NN_ENDS)]).max() < 0.05


def test_nnls_cases():
    Ee, G = tp._p226_nn_ends()
    E64 = Ee.astype(np.float64)
    nb = len(tp.P226_GOOD)
    X = np.stack([E64[2],                            # soil exactly
                  0.3 * E64[0] + 0.7 * E64[3],       # two endmembers, the rest 0
                  -E64[1],                           # all gradients negative: a = 0, no solve
                  np.zeros(nb),                      # nothing
                  0.25 * E64.sum(axis=0)])           # all five
    etx = X @ E64.T
    xx = (X * X).sum(axis=1)
    out, A = _check_nn(etx, xx, nb, grid=(1, 1))
    a = out[6].reshape(5, -1)
    assert np.abs(a[0] - [0, 0, 1, 0, 0]).max() < 1e-3 and np.abs(a[1] - [0.3, 0, 0, 0.7, 0]).max() < 1e-3
    assert (a[2] == 0).all() and (a[3] == 0).all() and out[8][2] == 0 and out[8][3] == 0
    assert np.abs(a[4] - 0.25).max() < 1e-2 and out[7][:2].max() < 1e-3
    assert abs(out[7][2] - np.sqrt(xx[2] / nb)) < 1e-5


# ---- hsi-continuum-hull-local-struct ----

def _check_cr(cube, width, nbands, b0, b1, grid=None, min_refl=tp.P226_CR_MINREFL):
    cube = np.asarray(cube, np.uint16).ravel()
    lines = len(cube) // (nbands * width)
    h = [cube, np.int32(width), np.int32(nbands), np.int32(b0), np.int32(b1), F32(tp.P226_SCALE), F32(min_refl),
         np.zeros(lines * width, tp.P226_CR_FEAT), np.zeros(lines * width, np.uint8), np.zeros(64, np.int32)]
    grid = grid or (-(-width // 256), lines)
    out = run("probe/hsi-continuum-hull-local-struct", h, lines * width, symbols={"c_wl": tp.P226_WL.copy()},
              grid=grid)
    f = out[7]
    ref = _cr_ref(cube, width, nbands, b0, b1, tp.P226_SCALE, min_refl)
    skip = np.array([r[0] for r in ref])
    assert (f["band"][skip] == 0xFFFF).all() and (f["depth"][skip] == 0).all() and (out[8][skip] == 0).all()
    assert (f["band"][~skip] < b1 - b0).all()
    depth = np.array([r[1] for r in ref])
    assert np.allclose(f["depth"], depth, rtol=0, atol=2e-6)
    sure = ~skip & (np.array([r[3] for r in ref]) > 1e-4)            # a clear deepest band
    assert (f["band"][sure] == np.array([r[2] for r in ref])[sure]).all()
    assert np.allclose(f["center"][sure], np.array([r[4] for r in ref])[sure], rtol=0, atol=0.05)
    assert np.allclose(f["area"][~skip], np.array([r[5] for r in ref])[~skip], rtol=1e-5, atol=2e-5)
    firm = ~skip & (np.array([r[7] for r in ref]) > 1e-5)            # no nearly collinear hull points
    assert (f["nhull"][firm] == np.array([r[6] for r in ref])[firm]).all()
    d8 = np.minimum(255, np.floor(f["depth"].astype(np.float64) * 500 + 0.5)).astype(np.uint8)
    assert (out[8][~skip] == d8[~skip]).all()
    hist = np.bincount(f["band"][~skip], minlength=64)
    assert (out[9] == hist).all()
    return out, sure, firm


def test_continuum():
    rng = np.random.default_rng(10)
    cube = tp._p226_cr_cube(300, rng)                                # 300 samples a line: 2 blocks, the 2nd partial
    cube[0, :, 280:290] //= 20                                       # a shadow: skipped
    b0, b1 = tp._p226_cr_window()
    out, sure, firm = _check_cr(cube, 300, 224, b0, b1)
    f = out[7]
    assert sure.mean() > 0.8 and firm.mean() > 0.5 and (f["band"][280:290] == 0xFFFF).all()
    assert f["depth"].max() > 0.1 and len(np.unique(f["band"])) > 3


def test_continuum_cases():
    wl = tp.P226_WL.astype(np.float64)
    b0, b1 = 180, 190                                                # 10 bands: 2094 .. 2179 nm
    x = wl[b0:b1]
    spec = [np.full(10, 0.3),                                        # flat: depth 0 at band 0, 2 vertices
            0.4 - 0.2 * np.exp(-0.5 * ((x - 2140) / 20) ** 2),       # one absorption
            0.2 + 0.3 * (x - x[0]) / (x[-1] - x[0]),                 # a straight slope: nearly collinear
            np.full(10, 0.01),                                       # dark: skipped
            np.r_[0.5, np.full(9, 0.1)]]                             # a drop: hull 0 -> 9
    cube = np.zeros((1, 224, len(spec)), np.uint16)
    for s, r in enumerate(spec):
        cube[0, b0:b1, s] = np.rint(r / tp.P226_SCALE)
    out, _, _ = _check_cr(cube, len(spec), 224, b0, b1, grid=(1, 1))
    f = out[7]
    assert f["depth"][0] == 0 and f["band"][0] == 0 and f["nhull"][0] == 2 and f["depth"][2] < 1e-3
    assert abs(f["center"][1] - 2140) < 3 and f["depth"][1] > 0.4 and f["band"][3] == 0xFFFF
    assert f["nhull"][4] == 2 and f["band"][4] == 1
    nb2 = np.zeros((2, 224, 3), np.uint16)                           # a window of 2 bands, 2 lines
    nb2[:, 200:202, :] = np.random.default_rng(11).integers(300, 5000, (2, 2, 3))
    _check_cr(nb2, 3, 224, 200, 202, grid=(1, 2))
