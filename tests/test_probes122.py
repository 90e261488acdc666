"""probe-unseen120's kernels (kernels_cuda/probes122.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/fresnel-direct-smem", "probe/lens-trace-triplet", "probe/thinfilm-tmm-complex",
       "probe/tcspc-t3-hist-smem", "probe/bpm-kspace-propagator", "probe/mie-bhmie-double"]


def copy(host):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in host]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen120"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes122.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 14
    # fresnel: points in the annulus, the amplitudes the area / (lambda z), phases small
    # enough for sincosf's fast reduction
    ax, ay, amp, m, I, x0, y0, dx, alpha, nx, ny = tp._p122_fr_args(64, rng)
    r = np.hypot(ax.astype(np.float64), ay.astype(np.float64))
    assert ax.dtype == np.float32 and m == tp.P122_FR_M == len(ax) and len(I) == 64 * 64 and nx == ny == 64
    assert 0.25 <= r.min() < 0.26 and 0.49 < r.max() <= 0.5 and abs(np.median(r ** 2) - 0.15625) < 0.01
    area = np.pi * (0.5 ** 2 - 0.25 ** 2)
    assert abs(amp.sum() * tp.P122_FR_LAM * tp.P122_FR_Z - area) < 1e-5 and abs(alpha - 9.926) < 1e-3
    assert x0 == -1.5 and dx * 64 == 3.0 and alpha * 2 * (1.5 + 0.5) ** 2 < 100
    # lens-trace: the prescription, the focus and ~29% of the rays stopped, at most surfaces
    syms = tp._p122_lt_syms()
    assert all(v.dtype == np.float32 and v.shape == (6,) for v in syms.values())
    assert syms["c_zv"][0] == 5 and abs(syms["c_zv"][-1] - 22.96) < 1e-5
    rays, spot, lost, zimg, nn = tp._p122_lt_args(n, rng)
    assert len(rays) == 4 * n and len(spot) == 2 * n and nn == n and abs(zimg - 61.687) < 1e-2
    r4 = rays.reshape(-1, 4)
    assert (r4[:, 2] == 0).all() and 0 <= r4[:, 3].min() and r4[:, 3].max() <= np.sin(np.deg2rad(20)) + 1e-6
    x, y, st, mg = tp._p122_lt_trace(*r4.T, zimg)
    frac = np.bincount(st + 1, minlength=7) / n
    assert 0.25 < 1 - frac[0] < 0.33 and (frac[1:] > 0.003).sum() >= 5 and frac[3] > 0.1
    assert np.abs(x[st < 0]).max() < 0.2 and 16 < y[st < 0].max() < 19        # f ~ 50 mm: y ~ f tan 20 deg
    warp_lost = (st >= 0).reshape(-1, 32)
    assert (warp_lost.any(axis=1) & ~warp_lost.all(axis=1)).mean() > 0.99      # divergent warps
    # thinfilm: quarter-wave thicknesses within tolerance, a stop band around 550 nm
    d, R, lam0, dlam, ninc, nsub, nw, nn = tp._p122_tf_args(n, rng)
    q = 550.0 / (4 * tp._p122_tf_nlayer())
    assert len(d) == n // 256 * 24 and d.dtype == np.float32 and len(R) == n and nw == 256
    assert np.abs(d.reshape(-1, 24) / q - 1).max() < 0.1 and lam0 + 256 * dlam == 800
    assert (tp._p122_tf_syms()["c_nlayer"][:4] == np.float32([2.35, 1.46, 2.35, 1.46])).all()
    Rr = tp._p122_tf_ref(d, n)
    lam = 400 + np.arange(n) % 256 * dlam
    assert Rr[np.abs(lam - 550) < 20].min() > 0.99 and Rr.min() < 0.01 and 0.3 < (Rr > 0.99).mean() < 0.5
    # tcspc: ~1.2% specials, ~5% photons on channels 4-5, dtimes inside the period, 782 bins a
    # channel filled with the peaks near bin 2000 / 16 = 125
    rec, hist, nn = tp._p122_tc_args(1 << 18, rng)
    rec = rec.astype(np.int64)
    sp, ch, dt = rec >> 31, (rec >> 25) & 63, (rec >> 10) & 0x7FFF
    assert rec.max() < 2 ** 32 and hist.dtype == np.uint32 and len(hist) == 4 * 2048
    assert abs(sp.mean() - 0.012) < 0.002 and abs((ch[sp == 0] >= 4).mean() - 0.05) < 0.005
    assert set(np.unique(ch[sp == 1])) <= set(range(1, 16)) | {63} and (dt[ch == 63] == 0).all()
    assert dt[sp == 0].max() == 12499 and dt[sp == 0].min() == 0
    h = tp._p122_tc_ref(rec.astype(np.uint32)).reshape(4, 2048)
    assert h.sum() == ((sp == 0) & (ch < 4)).sum() and ((h > 0).sum(axis=1) == 782).all()
    assert (np.abs(h.argmax(axis=1) - 130) < 25).all() and (h[:, 782:] == 0).all()
    assert h[:, 400].sum() < h.max(axis=1).sum() / 4                            # decayed: hot bins early
    # bpm: the propagator's largest phase ~13 rad, the scale 1 / n^2
    E, coef, dkx, dky, scale, nx, ny = tp._p122_bp_args(256, rng)
    assert E.dtype == np.float32 and len(E) == 2 * 256 * 256 and scale == np.float32(1 / 65536)
    assert abs(dkx - 2 * np.pi / 128) < 1e-7 and 10 < coef * 2 * (np.pi / 0.5) ** 2 < 15
    assert np.abs(E).max() > 10 and np.abs(E.reshape(256, 256, 2)[128, 128]).max() < 1e-10   # speckle, enveloped
    # mie: x lognormal (median ~12.6), clipped at 120; divergent trip counts; Q_ext = Q_sca
    x, mm, qe, qs, nt, nn = tp._p122_mie_args(n, rng)
    assert x.dtype == np.float64 and abs(np.median(x) - 12.6) < 0.5 and x.max() <= 120 and x.min() >= 0.2
    assert abs(mm - 1.59 / 1.33) < 1e-12
    nstop, nmx = tp._p122_mie_terms(x)
    assert nmx.max() < 256 and (nmx == nstop + 15).mean() > 0.99
    assert nmx.reshape(-1, 32).max(axis=1).mean() > 1.8 * nmx.mean()
    frac = x + 4 * np.cbrt(x) + 2
    assert np.abs(frac - np.round(frac)).min() > 1e-9                         # no nstop at a rounding edge
    e, s, ns = tp._p122_mie_ref(x[:2048])
    assert np.abs(e - s).max() < 1e-12 and 1.9 < e[x[:2048] > 60].min() and e.max() < 4


# ---- fresnel-direct-smem ----

@pytest.mark.parametrize("n, m", [(32, 300), (40, 256)])
def test_fresnel(n, m):
    # 2 tiles, the second partial; then a screen of partial blocks (threads past the edge
    # load their share of the tile but store nothing) and one full tile
    rng = np.random.default_rng(1)
    host = tp._p122_fr_args(n, rng, m=m)
    out = run("probe/fresnel-direct-smem", copy(host), n)
    ref = tp._p122_fr_ref(*host[:3], *host[5:])
    np.testing.assert_allclose(out[4], ref, rtol=0, atol=2e-5 * ref.max())
    # the centre (X = Y = 0): |U|^2 = 2 - 2 cos(alpha (r1^2 - r0^2)) for the exact annulus
    c = out[4][(n // 2) * n + n // 2]
    assert abs(c / (2 - 2 * np.cos(host[8] * 0.1875)) - 1) < 0.25      # m Monte-Carlo samples


# ---- lens-trace-triplet ----

def lt_check(host, out):
    r4 = host[0].reshape(-1, 4)
    x, y, st, mg = tp._p122_lt_trace(*r4.T, host[3])
    ok = mg > 1e-3                                          # rays not at an aperture's edge
    assert ok.mean() > 0.98
    assert (out[2][ok] == st[ok]).all()
    sp = out[1].reshape(-1, 2)
    arrived = ok & (st < 0)
    np.testing.assert_allclose(sp[arrived, 0], x[arrived], rtol=0, atol=2e-5)
    np.testing.assert_allclose(sp[arrived, 1], y[arrived], rtol=0, atol=2e-5)
    assert (sp[out[2] >= 0] == 0).all()
    return st


def test_lens_trace():
    n = 300                                                 # 2 blocks, the last partial
    host, out, *_ = launch("probe/lens-trace-triplet", n)
    st = lt_check(host, out)
    assert 0.2 < (st >= 0).mean() < 0.4 and len(set(st)) >= 5


def test_lens_trace_rays():
    # the axial ray, a paraxial one (to the focus), a ray outside the first surface's
    # aperture, rays at 15 degrees stopped by the third and fifth, a skew one, and a ray of
    # L^2 + M^2 ~ 1 that grazes z = 0
    rng = np.random.default_rng(3)
    host = tp._p122_lt_args(40, rng)
    r4 = host[0].reshape(-1, 4)
    r4[:7] = [[0, 0, 0, 0], [0, 0.01, 0, 0], [0, 6.2, 0, 0], [0, 3.16, 0, 0.2588], [1, -1.5, 0.1, 0.2],
              [0, -2, 0.0, 0.999], [0, 1.16, 0, 0.2588]]
    out = run("probe/lens-trace-triplet", copy(host), 40, symbols=tp._p122_lt_syms())
    lt_check(host, out)
    sp = out[1].reshape(-1, 2)
    assert list(out[2][:7]) == [-1, -1, 0, 2, -1, 0, 4]
    assert sp[0, 0] == 0 and sp[0, 1] == 0 and abs(sp[1, 1]) < 1e-4 and sp[4, 0] > 4 and sp[4, 1] > 9


# ---- thinfilm-tmm-complex ----

def test_thinfilm():
    n = 600                                                 # 3 blocks; 3 coatings, the last partial
    host, out, *_ = launch("probe/thinfilm-tmm-complex", n)
    np.testing.assert_allclose(out[1], tp._p122_tf_ref(host[0], n), rtol=0, atol=3e-5)
    assert (out[0] == host[0]).all()


def test_thinfilm_limits():
    # bare glass (zero thicknesses): ((1 - 1.52) / (1 + 1.52))^2 at every wavelength; the
    # exact quarter-wave (HL)^12 mirror at 550 nm: R = ((1 - Y) / (1 + Y))^2, Y = 1.52
    # (2.35 / 1.46)^24; a half-wave stack at 550 nm is absent (R of bare glass)
    rng = np.random.default_rng(4)
    n = 3 * 256
    host = tp._p122_tf_args(n, rng)
    q = 550.0 / (4 * tp._p122_tf_nlayer().astype(np.float64))
    d = host[0].reshape(3, 24)
    d[0] = 0
    d[1] = q
    d[2] = 2 * q
    host[2] = np.float32(550.0)                             # the first wavelength 550 nm
    out = run("probe/thinfilm-tmm-complex", copy(host), n, symbols=tp._p122_tf_syms())[1]
    glass = ((1 - 1.52) / (1 + 1.52)) ** 2
    Y = 1.52 * (2.35 / 1.46) ** 24
    assert np.abs(out[:256] - glass).max() < 1e-6
    assert abs(out[256] - ((1 - Y) / (1 + Y)) ** 2) < 1e-6 and abs(out[512] - glass) < 1e-4
    np.testing.assert_allclose(out, tp._p122_tf_ref(host[0], n, lam0=550.0), rtol=0, atol=3e-5)


# ---- tcspc-t3-hist-smem ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_tcspc(policy):
    n = 40000                                               # 3 blocks of 256 x 64, the last partial
    host, (rec, hist, nn), *_ = launch("probe/tcspc-t3-hist-smem", n, policy=policy)
    assert tp._p122_tc_grid(n) == 3
    ref = tp._p122_tc_ref(host[0])
    assert (hist == ref).all() and hist.sum() > 0.9 * n


def test_tcspc_edges():
    # every photon in one bin of channel 3 (all lanes on one shared word), then records that
    # are all specials or channel 4+ (an empty histogram), over a histogram already holding
    # counts (the kernel adds to it)
    n = 5000
    base = np.arange(8192, dtype=np.uint32)
    one = np.full(n, (3 << 25) | (2047 << 14) | 5, np.uint32)   # dtime 2047 << 4 + ...: bin 2047
    one[::7] |= np.uint32(1 << 31)                          # a seventh special
    out = run("probe/tcspc-t3-hist-smem", [one, base.copy(), np.int32(n)], n, policy="random")[1]
    exp = base.astype(np.int64).copy()
    exp[3 * 2048 + 2047] += n - len(one[::7])
    assert (out == exp).all() and (out == base.astype(np.int64) + tp._p122_tc_ref(one)).all()
    none = np.where(np.arange(n) % 2 == 0, np.uint32(63 << 25) | np.uint32(1 << 31), np.uint32(4 << 25 | 77 << 10))
    out = run("probe/tcspc-t3-hist-smem", [none.astype(np.uint32), base.copy(), np.int32(n)], n)[1]
    assert (out == base).all()


# ---- bpm-kspace-propagator ----

@pytest.mark.parametrize("n", [64, 40])
def test_bpm(n):
    # 2 x 8 blocks; then partial blocks in both directions (an even size not a multiple of
    # the block's)
    host, (E, *_), *_ = launch("probe/bpm-kspace-propagator", n)
    ref = tp._p122_bp_ref(*host)
    got = E.view(np.complex64)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-6 * np.abs(ref).max())
    src = host[0].view(np.complex64)
    np.testing.assert_allclose(np.abs(got), np.abs(src) * host[4], rtol=1e-5, atol=1e-30)
    assert got[0] == src[0] * host[4]                       # the zero frequency: no phase


# ---- mie-bhmie-double ----

def test_mie():
    n = 200                                                 # 2 blocks, the last partial
    host, (x, m, qe, qs, nt, nn), *_ = launch("probe/mie-bhmie-double", n)
    e, s, ns = tp._p122_mie_ref(host[0])
    assert (nt == ns).all()
    np.testing.assert_allclose(qe, e, rtol=1e-11)
    np.testing.assert_allclose(qs, s, rtol=1e-11)


def test_mie_limits():
    # Rayleigh (x = 0.05: Q_sca ~ 8/3 x^4 ((m^2 - 1) / (m^2 + 2))^2), x = 120 (nmx capped
    # below MIE_NMAX: the longest recurrence), large spheres near the extinction paradox's 2,
    # and x = 10, m = 1.5: Q_ext = Q_sca = 2.88200 (as a check by spherical Bessel functions from
    # Miller's downward recurrence gives, not the log-derivative method)
    host = tp._p122_mie_args(32, np.random.default_rng(6))
    xs = np.array([0.05, 120.0, 60.0, 100.0, 10.0])
    host[0][:5] = xs
    out = run("probe/mie-bhmie-double", copy(host), 32)
    e, s, ns = tp._p122_mie_ref(host[0])
    np.testing.assert_allclose(out[2], e, rtol=1e-11)
    np.testing.assert_allclose(out[3], s, rtol=1e-11)
    m = tp.P122_MIE_M
    ray = 8 / 3 * 0.05 ** 4 * ((m * m - 1) / (m * m + 2)) ** 2
    assert abs(out[3][0] / ray - 1) < 0.01 and out[4][1] == int(120 + 4 * 120 ** (1 / 3) + 2)
    assert 1.9 < out[2][1:4].min() and out[2][1:4].max() < 2.4
    host[1] = np.float64(1.5)
    out = run("probe/mie-bhmie-double", copy(host), 32)
    assert abs(out[2][4] - 2.8820) < 2e-3 and abs(out[3][4] - out[2][4]) < 1e-12
