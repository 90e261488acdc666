"""probe-unseen220's kernels (kernels_cuda/probes222.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/chemo-savgol-smem-const", "probe/chemo-msc-double-tree", "probe/chemo-snip-xrf-u16-smem",
       "probe/chemo-peakpick-ballot-struct", "probe/chemo-pca-t2q-const-local", "probe/chemo-msearch-shfl-atomicmax64"]

F32 = np.float32
EPS32 = 2.0 ** -24


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen220"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes222.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- references ----

def _sg_ref(x, nch, deriv, dx=tp.P222_NIR_WL[1], half=tp.P222_SG_HALF, order=tp.P222_SG_ORDER):
    """Savitzky-Golay by fitting: each point's 2 half + 1 neighbours (the ends repeated) fitted
    by a polynomial of degree `order` (np.polyfit), its deriv-th derivative at the centre."""
    x = np.asarray(x, np.float64).reshape(-1, nch)
    P = np.pad(x, ((0, 0), (half, half)), mode="edge")
    W = np.lib.stride_tricks.sliding_window_view(P, 2 * half + 1, axis=1)      # (nspec, nch, win)
    k = np.arange(-half, half + 1, dtype=np.float64)
    coef = np.polyfit(k, W.reshape(-1, 2 * half + 1).T, order)               # highest power first
    c = coef[order - deriv] * np.prod(np.arange(1, deriv + 1))
    return (c / dx ** deriv).reshape(x.shape)


def _msc_ref(x, ref, nch):
    """(a, b, corrected) of each spectrum by np.polyfit(ref, x, 1), float64."""
    x = np.asarray(x, np.float64).reshape(-1, nch)
    b, a = np.polyfit(np.asarray(ref, np.float64), x.T, 1)
    return a, b, (x - a[:, None]) / b[:, None]


def _snip_ref(y, niter):
    """SNIP in float32 numpy, the windows niter .. 1, the ends of each pass unclipped: the
    baseline (float64 of the float32 v)."""
    y = np.asarray(y)
    v = np.log(np.log(np.sqrt(y.astype(F32) + F32(1)) + F32(1)) + F32(1)).astype(F32)
    n = v.shape[-1]
    for p in range(niter, 0, -1):
        if n - 2 * p <= 0:
            continue
        m = F32(0.5) * (v[..., :n - 2 * p] + v[..., 2 * p:])
        w = v.copy()
        w[..., p:n - p] = np.minimum(v[..., p:n - p], m)
        v = w
    e = np.exp(np.exp(v.astype(np.float64)) - 1) - 1
    return e * e - 1


def _peaks_ref(sig, npts, thresh, frac, W=tp.P222_PK_W):
    """peak_pick by plain loops over the apexes: records (chrom, apex, start, end, height,
    area) sorted by (chrom, apex) and the areas a chromatogram."""
    sig = np.asarray(sig).reshape(-1, npts).astype(np.int64)
    recs, tot = [], np.zeros(len(sig))
    for ch, y in enumerate(sig):
        P = np.pad(y, W, constant_values=-1)                                   # -1: outside, never larger
        win = np.lib.stride_tricks.sliding_window_view(P, 2 * W + 1)
        left, right = win[:, :W], win[:, W + 1:]
        ok = (left < y[:, None]).all(1) & (right <= y[:, None]).all(1)
        Q = np.pad(y, W, constant_values=1 << 30)
        lo = np.minimum(np.lib.stride_tricks.sliding_window_view(Q, 2 * W + 1).min(1), y)
        ok &= (y - lo) >= thresh
        for i in np.flatnonzero(ok):
            level = F32(lo[i] + np.float64(F32(frac)) * (y[i] - lo[i]))      # one rounding: nvcc's fma
            s = i
            while s > 0 and y[s - 1] > level:
                s -= 1
            e = i
            while e < npts - 1 and y[e + 1] > level:
                e += 1
            area = float((y[s:e + 1] - lo[i]).sum())
            recs.append((ch, i, s, e, float(y[i] - lo[i]), area))
            tot[ch] += area
    return np.array(recs, tp.P222_PEAK), tot


def _sorted_peaks(p):
    return p[np.lexsort((p["apex"], p["chrom"]))]


def _pca_ref(x, nch, model=None):
    """(scores, T^2, Q, |x - mean|^2) in float64 under the float32 model the kernel gets."""
    mu, P, lam = model or _model32()
    Xc = np.asarray(x, np.float64).reshape(-1, nch) - mu
    T = Xc @ P
    E = Xc - T @ P.T
    return T, (T * T / lam).sum(1), (E * E).sum(1), (Xc * Xc).sum(1)


def _model32():
    s = tp._p222_pca_symbols()
    nch = tp.P222_MNIR_WL[2]
    return (s["c_mean"][:nch].astype(np.float64), s["c_load"][:nch].astype(np.float64),
            1 / s["c_inv_eig"].astype(np.float64))


def _ms_weights(spec):
    """Dense Stein-Scott weights (rows x 1024, float64) of LibPeak rows."""
    spec = np.atleast_2d(spec)
    W = np.zeros((len(spec), tp.P222_LS_MZ))
    mz = spec["mz"].astype(np.int64)
    w = mz.astype(np.float64) ** 3 * spec["inten"].astype(np.float64) ** 0.6
    np.add.at(W, (np.repeat(np.arange(len(spec)), spec.shape[1]), mz.ravel()), w.ravel())
    return W


def _ms_ref(lib, query):
    """999 cos^2 of every (query, library) pair, float64 (0 where either is empty)."""
    L, Q = _ms_weights(lib), _ms_weights(query)
    nl, nq = np.linalg.norm(L, axis=1), np.linalg.norm(Q, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = (Q @ L.T) / (nq[:, None] * nl[None, :])
    return np.where((nq[:, None] > 0) & (nl[None, :] > 0), 999 * c * c, 0.0)


# ---- the data ----

def test_data():
    rng = np.random.default_rng(0)
    # the SG table: Savitzky & Golay's 15-point quadratic tables (and their derivatives' exactness)
    tab = tp._p222_sg_table().astype(np.float64)
    assert np.allclose(tab[0] * 1105, [-78, -13, 42, 87, 122, 147, 162, 167, 162, 147, 122, 87, 42, -13, -78],
                       atol=1e-4)
    assert np.allclose(tab[1] * 280 * 2, np.arange(-7, 8), atol=1e-5)
    assert np.allclose(tab[2] * 6188 * 4, [91, 52, 19, -8, -29, -44, -53, -56, -53, -44, -29, -8, 19, 52, 91],
                       atol=1e-4)
    # NIR spectra of meat: absorbances 0 .. 2, the water band at 1940 nm the deepest curvature
    x = tp._p222_nir(4000, rng)
    assert x.shape == (4000, 700) and x.dtype == F32
    assert -0.3 < x.min() and x.max() < 2.5 and 0.2 < np.median(x) < 0.5
    d2 = _sg_ref(x.mean(0), 700, 2)[0]
    wl = tp._p222_wl(tp.P222_NIR_WL)
    assert abs(wl[np.argmin(d2)] - 1940) < 12 or abs(wl[np.argmin(d2)] - 2310) < 12
    conc, _ = tp._p222_composition(20000, rng)
    assert np.median(conc[:, 1]) == pytest.approx(12, rel=0.05) and conc[:, 1].min() >= 1 and conc[:, 1].max() <= 50
    assert (conc.sum(1) == pytest.approx(99.0)) and conc[:, 0].min() > 15
    # scatter: MSC recovers slopes around 1 (lognormal sigma 0.15 about the mean spectrum)
    xv = tp._p222_nir(3000, rng, grid=tp.P222_VNIR_WL)
    a, b, _ = _msc_ref(xv, xv.mean(0), 1050)
    assert 0.1 < np.std(np.log(b)) < 0.25 and np.median(b) == pytest.approx(1, abs=0.05)
    # XRF: Poisson counts about the expected ones, Fe K-alpha the largest line, 2% hot pixels
    c, lam = tp._p222_xrf(3000, rng)
    assert c.dtype == np.uint16 and c.shape == (3000, 2048)
    z = (c - lam) / np.sqrt(lam + 1e-9)
    big = lam > 50
    assert np.std(z[big]) == pytest.approx(1, abs=0.02)
    fe = int(6.404 / tp.P222_XRF_DE)
    assert np.argmax(np.median(c, 0)) in range(fe - 2, fe + 3)
    assert (c[:, :100] == 0).mean() > 0.5 and np.median(c.sum(1)) > 1e5
    fw = tp._p222_xrf_fwhm(5.899)
    assert fw == pytest.approx(0.144, abs=0.003)
    cu = c[:, int(8.048 / tp.P222_XRF_DE)].astype(np.float64)
    assert 0.01 < (cu > 10 * np.median(cu)).mean() < 0.04                  # the Cu-Zn-Pb grains
    # chromatograms: a 2000-count offset, noise of 3 counts, ~30 peaks a run of median height 400
    s, truth = tp._p222_chrom(400, rng)
    assert s.dtype == np.uint16 and s.shape == (400, tp.P222_PK_NPTS)
    assert len(truth) / 400 == pytest.approx(30, rel=0.05)
    assert np.median(truth[:, 2]) == pytest.approx(400, rel=0.1)
    head = s[:, :60].astype(np.float64)                                     # before the first peaks
    assert np.median(head) == pytest.approx(2000, abs=20)
    assert np.std(np.diff(head, axis=1)) / np.sqrt(2) == pytest.approx(3, rel=0.1)
    assert s.max() > 10000
    rec, _ = _peaks_ref(s[:40], tp.P222_PK_NPTS, tp.P222_PK_THRESH, tp.P222_PK_FRAC)
    found = len(rec) / (truth[:, 0] < 40).sum()
    assert 0.6 < found < 1.05                                               # co-eluting and tiny peaks missed
    # PCA: orthonormal loadings, 1% of the calibration over each limit, faults found
    mu, P, lam, t2l, ql = tp._p222_pca_model()
    assert np.allclose(P.T @ P, np.eye(tp.P222_PCA_NPC), atol=1e-12) and (np.diff(lam) < 0).all()
    X, f, e = tp._p222_pca_samples(20000, rng)
    assert X.shape == (20000, 125) and f.mean() == pytest.approx(0.03, abs=0.005)
    _, t2, q = tp._p222_pca_stats(X, mu, P, lam)
    ok = ~f & ~e
    assert 0.005 < (t2[ok] > t2l).mean() < 0.03 and 0.005 < (q[ok] > ql).mean() < 0.03
    assert (q[f] > ql).mean() > 0.9 and (t2[e] > t2l).mean() > 0.9
    # EI spectra: distinct m/z ascending, the molecular ion and one base peak of 999 in each
    lib = tp._p222_ms_library(3000, rng)
    n_pk = (lib["inten"] > 0).sum(1)
    assert n_pk.min() >= 8 and n_pk.max() == 64 and 30 < np.median(n_pk) < 55
    for r in lib[:300]:
        m = r["mz"][r["inten"] > 0]
        assert (np.diff(m.astype(int)) > 0).all() and (r["inten"][len(m):] == 0).all() and (r["mz"][len(m):] == 0).all()
    assert (lib["inten"].max(1) == 999).all() and lib["mz"].max() <= 901
    assert np.median(lib["mz"].max(1)) == pytest.approx(220, rel=0.1)
    small = lib["inten"][lib["inten"] > 0]
    assert np.median(small) < 250                                            # mostly small peaks
    rng2 = np.random.default_rng(5)
    h = tp._p222_ms_args(3000, rng2)
    rng3 = np.random.default_rng(5)
    tp._p222_ms_library(3000, rng3)
    src = rng3.integers(0, 3000, tp.P222_LS_NQUERY)
    S = _ms_ref(h[0].reshape(-1, 64), h[2].reshape(-1, 64))
    top = S.max(1)
    assert (top > 900).all() and (S[np.arange(8), src] >= top - 1e-9).all()   # each finds its own compound
    assert np.median(S) < 100


# ---- chemo-savgol-smem-const ----

def _check_sg(x, nch, deriv, grid=None):
    x = np.asarray(x, F32).ravel()
    nspec = len(x) // nch
    h = [x, np.zeros_like(x), np.int32(nch), np.int32(deriv)]
    g = grid or (nspec, -(-nch // tp.P222_SG_TILE))
    out = run("probe/chemo-savgol-smem-const", h, nspec, grid=g, symbols={"c_sg": tp._p222_sg_table()})
    want = _sg_ref(x, nch, deriv)
    tab = tp._p222_sg_table()[deriv].astype(np.float64)
    bound = 20 * EPS32 * np.abs(tab).sum() * np.abs(x).reshape(-1, nch).max(1, keepdims=True) + 1e-30
    assert (np.abs(out[1].reshape(-1, nch) - want) <= bound + 1e-6 * np.abs(want)).all()
    return out[1].reshape(-1, nch)


def test_savgol():
    rng = np.random.default_rng(1)
    x = tp._p222_nir(3, rng)                                          # 3 spectra x 3 tiles, the last 188 wide
    y = _check_sg(x, 700, 2)
    assert np.abs(y).max() > 1e-4
    _check_sg(x, 700, 0)
    _check_sg(x, 700, 1)


def test_savgol_cases():
    k = np.arange(300, dtype=np.float64)
    quad = (1e-5 * (k - 150) ** 2 + 2e-3 * k + 0.3).astype(F32)
    y2 = _check_sg(quad, 300, 2)                                      # a parabola: exact away from the ends
    assert np.allclose(y2[0, 7:-7], 2e-5 / 4, rtol=5e-3)
    y0 = _check_sg(quad, 300, 0)
    assert np.allclose(y0[0, 7:-7], quad[7:-7], rtol=5e-6)
    const = np.full(40, 0.75, F32)                                    # shorter than a tile: one block
    assert np.allclose(_check_sg(const, 40, 0), 0.75, rtol=3e-6)
    assert np.abs(_check_sg(const, 40, 1)).max() < 1e-6
    one = np.array([0.5, 1.5, -2.0], F32)                             # spectra of one channel: the ends padded
    assert np.allclose(_check_sg(one, 1, 0)[:, 0], one, rtol=3e-6)


# ---- chemo-msc-double-tree ----

def _check_msc(x, ref, nch):
    x = np.asarray(x, F32).ravel()
    nspec = len(x) // nch
    h = [x, np.asarray(ref, F32), np.zeros_like(x), np.zeros(2 * nspec), np.int32(nch)]
    out = run("probe/chemo-msc-double-tree", h, nspec)
    a, b, corr = _msc_ref(x, ref, nch)
    assert np.allclose(out[3][0::2], a, rtol=1e-9, atol=1e-12) and np.allclose(out[3][1::2], b, rtol=1e-9)
    assert np.allclose(out[2].reshape(-1, nch), corr, rtol=2 ** -23, atol=1e-12)
    return out


def test_msc():
    rng = np.random.default_rng(2)
    x = tp._p222_nir(6, rng, grid=tp.P222_VNIR_WL)
    out = _check_msc(x, x.mean(0), 1050)
    corr = out[2].reshape(6, -1).astype(np.float64)
    assert corr.std(0).mean() < x.std(0).mean() / 2                   # scatter removed


def test_msc_cases():
    rng = np.random.default_rng(3)
    ref = rng.uniform(0.2, 1.2, 100).astype(F32)                      # 100 channels: 156 idle threads
    x = np.stack([ref, (F32(0.25) + F32(2) * ref), 0.5 * ref + rng.normal(0, 0.01, 100)])
    out = _check_msc(x, ref, 100)
    assert out[3][0] == 0 and out[3][1] == 1 and (out[2][:100] == ref).all()   # the reference itself: exact
    x = tp._p222_nir(2, rng, grid=(400.0, 2.0, 300))                  # 300 channels: a thread 1 or 2
    _check_msc(x, x.mean(0), 300)


# ---- chemo-snip-xrf-u16-smem ----

def _check_snip(c, nch, niter, grid=None):
    c = np.asarray(c, np.uint16).ravel()
    nspec = len(c) // nch
    h = [c, np.zeros(len(c), F32), np.int32(nch), np.int32(niter)]
    out = run("probe/chemo-snip-xrf-u16-smem", h, nspec, grid=grid)
    base = _snip_ref(c.reshape(-1, nch), niter)
    y = c.reshape(-1, nch).astype(np.float64)
    net = out[1].reshape(-1, nch).astype(np.float64)
    assert np.allclose(net, y - base, rtol=0, atol=2e-5 * (y + 10))
    return net


def test_snip():
    rng = np.random.default_rng(4)
    c, lam = tp._p222_xrf(3, rng)
    net = _check_snip(c, 2048, tp.P222_SNIP_ITER)
    y = c.astype(np.float64)
    fe = int(6.404 / tp.P222_XRF_DE)
    assert (net[:, fe] > 0.8 * y[:, fe]).all()                        # the Fe line stands on little background
    # 11.1 .. 12 keV: continuum alone (~40 counts); the clipped baseline under its Poisson noise
    base = np.median((y - net)[:, 1110:1200], axis=1) / np.median(lam[:, 1110:1200], axis=1)
    assert ((base > 0.5) & (base < 1.05)).all()


def test_snip_cases():
    z = np.zeros((2, 300), np.uint16)                                 # 300 channels: a thread 1 or 2
    z[1] = 100
    z[1, 150] = 5000                                                  # a spike on a flat background
    net = _check_snip(z, 300, 10)
    assert np.abs(net[0]).max() < 1e-3 and net[1, 150] == pytest.approx(4900, rel=1e-3)
    assert np.abs(net[1, :140]).max() < 0.05
    _check_snip(z, 300, 0)                                            # no passes: net ~ 0
    _check_snip(z, 300, 200)                                          # windows wider than half the spectrum
    one = np.array([[65535, 0, 7, 65535, 1]], np.uint16)              # the full 16-bit range, 5 channels
    _check_snip(one, 5, 3)


# ---- chemo-peakpick-ballot-struct ----

def _check_peaks(sig, npts, thresh=tp.P222_PK_THRESH, frac=tp.P222_PK_FRAC, cap=None, grid=None):
    sig = np.asarray(sig, np.uint16).ravel()
    nchrom = len(sig) // npts
    cap = cap if cap is not None else 64 * nchrom
    h = [sig, np.int32(npts), np.int32(thresh), F32(frac), np.zeros(max(cap, 1), tp.P222_PEAK),
         np.zeros(1, np.int32), np.int32(cap), np.zeros(nchrom, F32)]
    g = grid or (-(-npts // tp.P222_PK_BLOCK), nchrom)
    out = run("probe/chemo-peakpick-ballot-struct", h, nchrom, grid=g)
    rec, tot = _peaks_ref(sig, npts, thresh, frac)
    assert out[5][0] == len(rec)
    got = _sorted_peaks(out[4][:min(cap, len(rec))])
    if cap >= len(rec):
        assert (got == rec).all()
    else:                                                             # the first cap of them, in some order
        keys = set(zip(rec["chrom"], rec["apex"]))
        assert len(set(zip(got["chrom"], got["apex"]))) == cap and set(zip(got["chrom"], got["apex"])) <= keys
    assert np.allclose(out[7], tot, rtol=1e-6)
    return out, rec


def test_peak_pick():
    rng = np.random.default_rng(5)
    s, truth = tp._p222_chrom(3, rng)                                 # 3 x 24 blocks, the last 112 wide
    out, rec = _check_peaks(s, tp.P222_PK_NPTS)
    assert len(rec) > 50 and (rec["end"] - rec["start"]).max() > 30
    _check_peaks(s, tp.P222_PK_NPTS, cap=20)                          # the list overflows


def test_peak_pick_cases():
    y = np.full(700, 1000, np.int64)
    y[0] = 1500                                                       # an apex on the first point
    y[699] = 1200                                                     # and on the last
    y[100:106] = 65535                                                # a saturated plateau: its leftmost point
    y[99], y[106] = 30000, 30000
    y[300], y[310] = 1400, 1400                                       # twins within the window: the left one
    y[500] = 1000 + 40                                                # exactly the threshold
    y[600] = 1000 + 39                                                # one count short
    y[400:420] = 1000 + 10 * np.minimum(np.arange(20), 19 - np.arange(20))   # a ramp up and down, 90 high
    out, rec = _check_peaks(y, 700)
    assert list(rec["apex"]) == [0, 100, 300, 409, 500, 699]
    assert rec["area"][1] == pytest.approx(6 * 64535 + 2 * 29000)
    out, _ = _check_peaks(y, 700, cap=0)                              # no room: counted, none stored
    assert out[5][0] == 6
    flat = np.full((2, 50), 7, np.uint16)                             # no apex at all (ties everywhere)
    out, rec = _check_peaks(flat, 50)
    assert out[5][0] == 0 and len(rec) == 0


# ---- chemo-pca-t2q-const-local ----

def _check_pca(x, grid=None, t2l=None, ql=None):
    nch = tp.P222_MNIR_WL[2]
    x = np.asarray(x, F32).reshape(-1, nch)
    n = len(x)
    _, _, _, t2_lim, q_lim = tp._p222_pca_model()
    t2l = F32(t2_lim if t2l is None else t2l)
    ql = F32(q_lim if ql is None else ql)
    h = [x.ravel(), np.int32(n), np.int32(nch), t2l, ql, np.zeros(n * tp.P222_PCA_NPC, F32), np.zeros(n, F32),
         np.zeros(n, F32), np.zeros(n, np.uint8), np.zeros(2, np.int32)]
    out = run("probe/chemo-pca-t2q-const-local", h, n, symbols=tp._p222_pca_symbols(), grid=grid)
    T, t2, q, ss = _pca_ref(x, nch)
    mu, P, lam = _model32()
    # float32 sums of 125 terms: bounded by 2 x 125 eps of the sums of magnitudes
    absv = np.abs(x.astype(np.float64) - mu)
    tb = 250 * EPS32 * (absv @ np.abs(P)) + 1e-12
    sc = out[5].reshape(n, tp.P222_PCA_NPC)
    assert (np.abs(sc - T) <= tb).all()
    assert np.allclose(out[6], t2, rtol=1e-5, atol=(2 * np.abs(T) * tb / lam).sum(1).max(initial=0) + 1e-9)
    qb = 300 * EPS32 * (ss + (T * T).sum(1)) + 1e-12
    assert (np.abs(out[7] - np.maximum(q, 0)) <= qb).all()
    far = (np.abs(t2 - t2l) > 1e-3 * t2l) & (np.abs(q - ql) > qb)
    want = (t2 > t2l).astype(np.uint8) | ((q > ql).astype(np.uint8) << 1)
    assert (out[8][far] == want[far]).all()
    assert out[9][0] == (out[8] & 1).sum() and out[9][1] == (out[8] >> 1).sum()
    return out


def test_pca_monitor():
    rng = np.random.default_rng(6)
    x, f, e = tp._p222_pca_samples(1500, rng)                        # 12 blocks, the last part full
    out = _check_pca(x)
    assert out[9][1] >= 0.8 * f.sum() and out[9][0] >= 0.8 * e.sum()
    out2 = _check_pca(x, grid=(3, 1))                                # 4 trips of the grid-stride loop
    assert all((a == b).all() for a, b in zip(out[5:], out2[5:]))


def test_pca_monitor_cases():
    mu, P, lam = _model32()
    r = np.random.default_rng(7).normal(size=125)
    r -= P @ (P.T @ r)                                                # orthogonal to the model
    x = np.stack([mu, mu + 5 * np.sqrt(lam[0]) * P[:, 0], mu + 0.1 * r / np.linalg.norm(r),
                  mu + 2 * np.sqrt(lam[1]) * P[:, 1]]).astype(F32)
    out = _check_pca(x, grid=(1, 1))
    assert list(out[8]) == [0, 1, 2, 0]
    assert out[6][1] == pytest.approx(25, rel=1e-3) and out[7][2] == pytest.approx(0.01, rel=1e-3)
    out = _check_pca(x[:0], grid=(1, 1))                              # no samples
    assert (out[9] == 0).all()


# ---- chemo-msearch-shfl-atomicmax64 ----

def _check_ms(lib, query, hit_min=tp.P222_LS_HIT, grid=None):
    lib = np.asarray(lib, tp.P222_LS_PEAK).reshape(-1, 64)
    query = np.asarray(query, tp.P222_LS_PEAK).reshape(-1, 64)
    nl, nq = len(lib), len(query)
    h = [lib.ravel(), np.int32(nl), query.ravel(), np.zeros(nq, np.uint64), np.zeros(nq, np.int32), F32(hit_min)]
    g = grid or (-(-nl // tp.P222_LS_PER_BLOCK), nq)
    out = run("probe/chemo-msearch-shfl-atomicmax64", h, nl, grid=g)
    S = _ms_ref(lib, query)
    score = (out[3] >> np.uint64(32)).astype(np.uint32).view(F32).astype(np.float64)
    idx = (out[3] & np.uint64(0xFFFFFFFF)).astype(np.int64)
    top = S.max(1)
    assert np.allclose(score, top, rtol=2e-5, atol=1e-4)
    assert (S[np.arange(nq), idx] >= top - 2e-5 * top - 1e-4).all()
    lo = (S >= hit_min + 0.01).sum(1)
    hi = (S >= hit_min - 0.01).sum(1)
    assert ((out[4] >= lo) & (out[4] <= hi)).all()
    return score, idx, out[4]


def test_lib_search():
    rng = np.random.default_rng(8)
    h = tp._p222_ms_args(1000, rng)                                   # 16 blocks a query, the last part full
    score, idx, hits = _check_ms(h[0], h[2])
    assert (score > 900).all() and (hits >= 1).all()


def test_lib_search_cases():
    rng = np.random.default_rng(9)
    lib = tp._p222_ms_library(150, rng)
    lib[140] = lib[3]                                                 # an exact tie in another block: the later index
    lib[77] = 0                                                       # an empty entry
    q = np.stack([lib[3], np.zeros(64, tp.P222_LS_PEAK), lib[100]])
    score, idx, hits = _check_ms(lib, q)
    assert idx[0] == 140 and score[0] == pytest.approx(999, rel=1e-5)
    assert score[1] == 0 and idx[1] == 149 and hits[1] == 0          # an empty query: all tie at 0
    assert idx[2] == 100
    score, idx, hits = _check_ms(lib[:1], lib[:1], grid=(1, 1))       # a library of one spectrum, itself
    assert idx[0] == 0 and hits[0] == 1
    two = np.zeros((2, 64), tp.P222_LS_PEAK)                          # identical single-peak spectra, one warp
    two["mz"][:, 0], two["inten"][:, 0] = 50, 10
    score, idx, _ = _check_ms(two, two[:1], grid=(1, 1))
    assert idx[0] == 1 and score[0] == pytest.approx(999, rel=1e-6)
