"""probe-unseen126's kernels (kernels_cuda/probes128.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/ccd-calib-shiftadd-atomic", "probe/sigma-clip-stack-local", "probe/lomb-scargle-smem-sincos",
       "probe/aperture-phot-block-reduce", "probe/find-peaks-smem-halo-append", "probe/xmatch-bsearch-dec-scan"]


def copy(host):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in host]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen126"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes128.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # calibration and co-addition: 16 frames of 128^2 (1024^2 at the default 2^24), ~0.2%
    # saturated, shifts' fractions away from 0.5, some pixels shifted off the mosaic
    n = 16 * 128 * 128
    raw, bias, flat, sx, sy, co, cov, nx, ny, onx, ony, F = tp._p128_sa_args(n, rng)
    assert raw.dtype == np.uint16 and len(raw) == n and nx == ny == 128 and onx == ony == 128 + 2 * tp.P128_SA_PAD
    assert F == 16 and tp._p128_sa_side(tp.get(IDS[0]).n) == 1024 and tp.get(IDS[0]).n == 16 << 20
    assert abs((raw >= tp.P128_SA_SAT).mean() - tp.P128_SA_SATFRAC) < 3e-4 and (raw == 65535).mean() < 0.0025
    assert sx.dtype == np.float32 and (np.abs(sx - np.floor(sx) - 0.5) >= 0.04).all()
    assert (np.abs(np.r_[sx, sy] - tp.P128_SA_PAD) <= tp.P128_SA_DITHER + 0.1).all()
    assert 0.8 < flat.min() and flat.max() < 1.15 and abs(bias.mean() - tp.P128_SA_BIAS) < 0.1
    s, c = tp._p128_sa_ref(raw, bias, flat, sx, sy, 128, onx)
    assert c.max() == 16 and (c == 0).any() and c.sum() < (raw < tp.P128_SA_SAT).sum()      # some off the mosaic
    assert abs(s.sum() / c.sum() - tp.P128_SA_SKY) < 1
    # stacking: one clipping round for most pixels, two where a cosmic ray hit
    n = 1 << 14
    fr, mean, kept, kappa, nf, nn = tp._p128_sc_args(n, rng)
    assert fr.dtype == np.float32 and len(fr) == 16 * n and nf == 16 and nn == n and kappa == 3
    m, c, rounds, gap = tp._p128_sc_ref(fr, n)
    assert 0.1 < (rounds >= 2).mean() < 0.3 and rounds.max() <= 4 and c.min() >= 12
    assert (fr.reshape(16, n).max(axis=0) > 1300).mean() > 0.12 and abs(np.median(m) - tp.P128_SC_SKY) < 1
    assert (np.abs(m - tp.P128_SC_SKY) > 40).mean() < 0.01              # the outliers clipped (not all pairs)
    # the light curve: sorted times over the season, the periodogram's peak at the period
    t, y, pw, f0, df, var, nobs, nf = tp._p128_ls_args(1 << 16, rng)
    assert t.dtype == y.dtype == np.float32 and nobs == len(t) == 1024 and (np.diff(t) >= 0).all()
    assert t.max() < tp.P128_LS_NIGHTS and abs(y.mean()) < 1e-6 and var == np.float32(y.var(ddof=1))
    k = np.arange(int((1 / tp.P128_LS_PERIOD - 0.1 - f0) / df), int((1 / tp.P128_LS_PERIOD + 0.1 - f0) / df))
    p = tp._p128_ls_ref(t, y, len(k), f0=f0 + k[0] * df)
    assert abs(1 / (f0 + k[np.argmax(p)] * df) - tp.P128_LS_PERIOD) < 1e-3 and p.max() > 100
    assert f0 + nf * df == 4 + f0 and np.float32(f0 + (nf - 1) * df) == f0 + (nf - 1) * df
    # photometry: positions in 1/64 pixel, some boxes cut by the image's edge
    n = 1 << 10
    img, sx, sy, fl, sky, npx, rap, rin, rout, nx, ny, nn = tp._p128_ap_args(n, rng)
    assert nx == ny == 512 and len(img) == 512 ** 2 and (rap, rin, rout) == (4, 8, 12)
    assert ((sx * 64) == np.round(sx * 64)).all() and ((sy * 64) == np.round(sy * 64)).all()
    flux, bg, nap, nsk = tp._p128_ap_ref(img, sx, sy, 512)
    assert 49 <= nap.max() <= 52 and nap.min() < 40 and 240 < nsk.max() < 260 and nsk.min() > 0
    assert abs(np.median(bg) - tp.P128_AP_SKY) < 60 and np.median(flux) > 1000       # a crowded field
    assert tp._p128_ap_side(tp.get(IDS[3]).n) == 4096
    # peak finding: ~1.5% of the pixels over threshold, the list's room to spare
    img, px, py, pv, cnt, th, room, nx, ny = tp._p128_pk_args(512, rng)
    x, y, v = tp._p128_pk_ref(img, 512)
    assert 0.005 < (img > th).mean() < 0.03 and 100 < len(x) < room == 1024 and (v > th).all()
    # cross-match: Dec sorted, ~60% matched, ~195 B sources a window at 2^19 (~25 at 2^16)
    ra, dec, rb, db, m, sep, r, nb, na = tp._p128_xm_args(1 << 16, rng)
    assert (np.diff(db) >= 0).all() and nb == len(rb) == 2 * na == 1 << 17 and r == np.float32(1 / 3600)
    assert abs(dec.mean() - tp.P128_XM_DEC0) < 0.05 and np.ptp(db) < 3.2 and tp.get(IDS[5]).n == 1 << 19
    lo, hi = tp._p128_xm_window(dec, db)
    assert 20 < (hi - lo).mean() < 30 and (hi - lo).max() > 40
    mm, ss, gap = tp._p128_xm_ref(ra[:1000], dec[:1000], rb, db)
    assert 0.55 < (mm >= 0).mean() < 0.7 and 0.2 < np.median(ss[mm >= 0]) < 0.4


# ---- ccd-calib-shiftadd-atomic ----

@pytest.mark.parametrize("policy, side", [("lockstep", 40), ("random", 12)])
def test_calib_shift_add(policy, side):
    n = 16 * side * side                                    # 100 (9) blocks, a mosaic of 72^2 (44^2)
    host, out, *_ = launch("probe/ccd-calib-shiftadd-atomic", n, policy=policy)
    s, c = tp._p128_sa_ref(*host[:5], side, side + 32)
    assert (out[6] == c).all() and c.max() >= (8 if side == 40 else 2) and (c == 0).any()
    np.testing.assert_allclose(out[5], s, rtol=1e-6, atol=1e-3)
    assert (host[0] >= tp.P128_SA_SAT).sum() > 0            # some skipped


# ---- sigma-clip-stack-local ----

def test_sigma_clip_stack():
    n = 1000                                                # 4 blocks, the last partial
    host, (fr, mean, kept, *_), *_ = launch("probe/sigma-clip-stack-local", n)
    m, c, rounds, gap = tp._p128_sc_ref(host[0], n)
    ok = gap > 1e-4                                         # no value at the edge of a clip
    assert ok.mean() > 0.995 and (rounds >= 2).sum() > 100
    assert (kept[ok] == c[ok]).all()
    np.testing.assert_allclose(mean[ok], m[ok], rtol=2e-6)


def test_sigma_clip_edge_cases():
    # 5 frames (a partial mask) at kappa 1.5: identical values, one huge outlier, a pixel
    # of small values; then 3 frames at kappa 1 (one value clipped where it is over 1 sd out,
    # then 2 left: the rounds stop) and 1.2 (nothing clipped: |v - mean| <= 2 / sqrt(3) sd)
    F, n = 5, 64
    rng = np.random.default_rng(3)
    fr = (100 + rng.standard_normal((F, n))).astype(np.float32)
    fr[:, 0] = 7.0
    fr[2, 1] = 1e4
    fr[:, 2] = [0, 0.1, -0.1, 0.05, 0]
    host = [fr.ravel(), np.zeros(n, np.float32), np.zeros(n, np.uint8), np.float32(1.5), np.int32(F), np.int32(n)]
    out = run("probe/sigma-clip-stack-local", host, n)
    m, c, rounds, gap = tp._p128_sc_ref(fr.ravel(), n, kappa=1.5)
    ok = gap > 1e-4
    ok[0] = True                                            # all equal: |v - mean| = lim = 0 exactly
    assert ok[:3].all() and ok.mean() > 0.9 and (rounds >= 2).any()
    assert (out[2][ok] == c[ok]).all() and out[1][0] == 7 and out[2][0] == 5 and out[2][1] == 4
    np.testing.assert_allclose(out[1][ok], m[ok], rtol=2e-6)
    for kappa in (1.0, 1.2):
        host3 = [fr[:3].ravel(), np.zeros(n, np.float32), np.zeros(n, np.uint8), np.float32(kappa), np.int32(3),
                 np.int32(n)]
        out = run("probe/sigma-clip-stack-local", host3, n)
        m, c, rounds, gap = tp._p128_sc_ref(fr[:3].ravel(), n, kappa=kappa)
        ok = gap > 1e-4
        ok[0] = True
        assert ok.mean() > 0.9 and (out[2][ok] == c[ok]).all()
        np.testing.assert_allclose(out[1][ok], m[ok], rtol=2e-6)
        assert (c == 3).all() if kappa == 1.2 else (c[1:] == 2).mean() > 0.8


# ---- lomb-scargle-smem-sincos ----

@pytest.mark.parametrize("f0, n, policy", [(tp.P128_LS_F0, 300, "lockstep"), (3.5, 300, "lockstep"),
                                          (1.0, 40, "random")])
def test_lomb_scargle(f0, n, policy):
    # 300 trial frequencies (2 blocks, the last partial) from f0 and 300 of the
    # observations (every third: 2 tiles, the last partial) over the whole season; 40
    # frequencies and 260 observations under the random policy
    rng = np.random.default_rng(0)
    host = tp._p128_ls_args(n, rng)
    m = 300 if n == 300 else 260
    host[0], host[1] = host[0][::3][:m].copy(), host[1][::3][:m].copy()
    host[3], host[6] = np.float32(f0), np.int32(m)
    out = run("probe/lomb-scargle-smem-sincos", host, n, policy=policy)
    ref = tp._p128_ls_ref(host[0], host[1], n, f0=f0, var=host[5])
    np.testing.assert_allclose(out[2], ref, rtol=2e-3, atol=2e-3 * ref.max())
    assert ref.min() > 0 and (ref.max() > 1.2 * np.median(ref) or n < 300)


# ---- aperture-phot-block-reduce ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_aperture_phot(policy):
    n = 24                                                  # a 64^2 image: boxes cut by the edges
    rng = np.random.default_rng(1)
    host = tp._p128_ap_args(n, rng)
    host[1][:2] = [0.25, 63.0]                              # two stars in corners
    host[2][:2] = [62.5, 0.0]
    host[1][2], host[2][2] = 40.0, 40.0                     # pixels on the radii exactly (included)
    side = int(host[9])
    out = run("probe/aperture-phot-block-reduce", host, n, policy=policy)
    flux, bg, nap, nsk = tp._p128_ap_ref(host[0], host[1], host[2], side)
    assert side == 64 and (out[5] == nap).all() and 10 < nap[0] < 30 and nap[1] < 30 and nap[2] == 49
    assert nap.max() > 49 and (nsk[:2] < 200).all()
    np.testing.assert_allclose(out[4], bg, rtol=1e-5)
    np.testing.assert_allclose(out[3], flux, rtol=1e-4, atol=2e-5 * np.abs(host[0]).max() * 49)


# ---- find-peaks-smem-halo-append ----

@pytest.mark.parametrize("policy, n", [("lockstep", 120), ("random", 40)])
def test_find_peaks(policy, n):
    # 8 x 8 (3 x 3) blocks, partial at the right and bottom
    rng = np.random.default_rng(4)
    host = tp._p128_pk_args(n, rng)
    img = host[0].reshape(n, n)
    img[0, 5] = img[30, 0] = img[n - 1, n - 1] = 50.0       # maxima on the edge: not sources
    img[20, 20] = img[20, 21] = 60.0                        # a tie: neither
    img[15, 16] = img[31, 32] = img[16, 33] = img[33, 15] = 40.0     # tile edges and corners
    img[1, 38] = 7.0
    out = run("probe/find-peaks-smem-halo-append", host, n, policy=policy)
    x, y, v = tp._p128_pk_ref(host[0], n)
    k = int(out[4][0])
    assert k == len(x) > 5 and (16, 15) in zip(x, y) and (38, 1) in zip(x, y) and (21, 20) not in zip(x, y)
    got = sorted(zip(out[2][:k], out[1][:k], out[3][:k]))
    assert got == sorted(zip(y, x, v)) and (out[1][k:] == 0).all()


def test_find_peaks_overflow():
    # more sources than the list's room: the count runs past it, the room filled
    n = 120
    rng = np.random.default_rng(6)
    host = tp._p128_pk_args(n, rng)
    host[6] = np.int32(4)
    out = run("probe/find-peaks-smem-halo-append", host, n)
    x, y, v = tp._p128_pk_ref(host[0], n)
    assert int(out[4][0]) == len(x) > 4
    ref = set(zip(x, y, v))
    assert all((a, b, c) in ref for a, b, c in zip(out[1][:4], out[2][:4], out[3][:4]))


# ---- xmatch-bsearch-dec-scan ----

def test_xmatch_nearest():
    # 300 queries against 2^15 B sources (~6 in a window); an A source exactly on a B one,
    # one outside the field, one below B's lowest Dec and one above its highest
    rng = np.random.default_rng(2)
    host = tp._p128_xm_args(1 << 14, rng)
    na = 300
    ra, dec = host[0][:na].copy(), host[1][:na].copy()
    ra[0], dec[0] = host[2][123], host[3][123]
    ra[1], dec[1] = 10.0, -30.0
    ra[2], dec[2] = host[2][0], host[3][0] - np.float32(0.5 / 3600)
    ra[3], dec[3] = host[2][-1], host[3][-1] + np.float32(0.5 / 3600)
    assert host[7] == len(host[2]) == 1 << 15
    h = [ra, dec, host[2], host[3], np.zeros(na, np.int32), np.zeros(na, np.float32), host[6], host[7],
         np.int32(na)]
    out = run("probe/xmatch-bsearch-dec-scan", h, na)
    m, sep, gap = tp._p128_xm_ref(ra, dec, host[2], host[3])
    assert gap.min() > 1e-5 and 0.5 < (m >= 0).mean() < 0.75
    assert (out[4] == m).all()
    assert out[5][0] == 0 and out[5][1] == -1 and m[2] == 0 and m[3] == (1 << 15) - 1
    np.testing.assert_allclose(out[5], sep, rtol=1e-5, atol=1e-5)
