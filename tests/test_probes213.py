"""probe-unseen211's kernels (kernels_cuda/probes213.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/ctrec-fan-joseph-fwd-warp", "probe/ctrec-fdk-ramp-smem-f64", "probe/ctrec-ossart-subset-atomic",
       "probe/ctrec-tv3d-smem-halo-f64atom", "probe/ctrec-li-mar-ballot-u16", "probe/ctrec-dual-energy-newton-f64"]

N = tp.P213_N
PIX = tp.P213_PIX


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen211"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes213.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # spectra: normalised, 80 kVp stops at 80 keV, the tin hardens 140 kVp; NIST-like attenuation
    s_lo, s_hi, mw, mb = tp._p213_spectra()
    e = tp.P213_DE_E
    assert s_lo.sum() == pytest.approx(1) and s_hi.sum() == pytest.approx(1) and (s_lo[e > 80] == 0).all()
    assert 40 < (s_lo * e).sum() < 55 and 80 < (s_hi * e).sum() < 95 and s_hi[e < 29.2].sum() < 0.02
    assert mw[np.searchsorted(e, 57)] == pytest.approx(0.21, abs=0.01) and (mb > 1.5 * mw).all()
    # the abdomen slice: air, fat, soft tissue, contrast, bone, gas
    img, ell = tp._p213_fp_image(rng)
    body = img > 0.1
    assert img.shape == (N, N) and img.min() >= 0 and 0.4 < img.max() < 0.65 and 0.2 < body.mean() < 0.45
    assert 0.19 < np.median(img[body]) < 0.205 and 0.002 < (img > 0.35).mean() < 0.02
    assert ((img < 0.05) & tp._p213_raster(ell[:1]).astype(bool)).sum() > 50                 # bowel gas
    tex = img - tp._p213_raster(ell)
    assert 0.0015 < tex[body].std() < 0.0025 and 0.5 < np.corrcoef(tex[:, :-1][body[:, :-1]],
                                                                     tex[:, 1:][body[:, :-1]])[0, 1] < 0.9
    # Joseph's projector agrees with the ellipses' analytic line integrals (the geometry's conventions)
    fan = tp._p213_fp_views(6, rng)
    jo = tp._p213_fp_ref(img, fan, 6, tp.P213_FP_DGAM, PIX)
    gam = (np.arange(tp.P213_FP_NDET) - 0.5 * (tp.P213_FP_NDET - 1) + 0.25) * tp.P213_FP_DGAM
    an = tp._p213_chords(ell, *tp._p213_fan_rays(fan[:6, 2:3].astype(np.float64), gam[None, :]))
    assert 4 < an.max() < 8 and np.abs(jo - an).mean() < 0.01 and np.median(np.abs(jo - an)[an > 1]) < 0.01
    # cone-beam head projections: the skull's rim, Poisson noise at 1e5 photons
    head = tp._p213_head(rng)
    clean = tp._p213_cone_proj(head, 2, nv=16)
    noisy = tp._p213_cone_proj(head, 2, nv=16, rng=rng)
    assert 2.5 < clean.max() < 4.5 and 0.2 < (clean == 0).mean() < 0.5
    z = (noisy - clean) / np.sqrt(np.exp(clean) / tp.P213_FK_I0)
    assert abs(z.mean()) < 0.05 and 0.95 < z.std() < 1.05
    # the Ram-Lak taps: the ramp's DC gain ~0 (sum of h over +-inf: 0)
    h = tp._p213_ramlak(4096, 1.0)
    assert abs(h[0] + 2 * h[1:].sum()) < 1e-4 and h[2] == 0 and h[1] == pytest.approx(-1 / np.pi ** 2)
    # OS-SART: the iterate close to the sinogram (residuals of a few 1e-3), 15% of the rays miss
    cur, sino = tp._p213_sa_data(rng)
    c, s = tp._p213_sa_angles()
    corr, wsum, res = tp._p213_sa_ref(cur, sino, 3, 45, 16, tp.P213_SA_DS, PIX, c, s)
    r = res[~np.isnan(res)]
    assert 0.1 < np.isnan(res).mean() < 0.2 and 0.0005 < np.abs(r).mean() < 0.005 and sino.max() > 4
    # the TV volume: HU classes and low-dose noise
    clean = tp._p213_hu_volume(16, np.random.default_rng(5), 128)
    u, f = tp._p213_tv_data(16, np.random.default_rng(5), 128)
    for hu, lo, hi in ((-1000, 0.5, 0.75), (-100, 0.03, 0.2), (40, 0.1, 0.4), (700, 0.001, 0.02)):
        assert lo < (clean == hu).mean() < hi, hu
    assert {60, 160, 200, 900}.issubset(set(np.unique(clean).tolist()))
    nz = f - clean
    assert 22 < nz[clean == 40].std() < 28 and 7 < nz[clean == -1000].std() < 9
    assert 0.2 < np.corrcoef(nz[8, :, :-1].ravel(), nz[8, :, 1:].ravel())[0, 1] < 0.8          # in-plane correlated
    flat = clean == 40
    for ax in range(3):
        flat &= (np.roll(clean, 1, axis=ax) == 40) & (np.roll(clean, -1, axis=ax) == 40)
    assert flat.sum() > 10000 and (u - clean)[flat].std() < 0.8 * nz[flat].std()      # the iterate: smoother
    # MAR: 16-bit counts, ~4% of the bins in the metal trace, counts there near zero
    raw, p = tp._p213_mr_data(24, rng)
    pm = np.log(tp.P213_MR_I0 / np.maximum(raw.astype(np.float64), 1))
    met = pm > tp.P213_MR_PMETAL
    assert raw.dtype == np.uint16 and raw.max() > 60000 and 0.02 < met.mean() < 0.08 and 0.3 < met.any(axis=2).mean()
    assert (raw[met] <= 20).all() and np.median(raw[met]) < 3 and (p[met] > 8.5).mean() > 0.95
    assert (pm[p < 7.5] > tp.P213_MR_PMETAL).mean() < 1e-3                          # few false metal bins
    # dual energy: path lengths, air, the noise-free model inverted exactly, noisy readings converge
    tw, tb = tp._p213_de_truth(1 << 19, rng)
    assert 0.3 < (tw == 0).mean() < 0.6 and 25 < tw.max() < 40 and 1.5 < tb.max() < 6 and tb.min() >= 0
    pl, ph = tp._p213_de_model(tw, tb)
    assert (pl >= ph).all() and pl.max() < 9
    sel = slice(0, None, 16)
    rw, rb, it = tp._p213_de_ref(pl[sel].astype(np.float32), ph[sel].astype(np.float32), tp._p213_spec_table())
    assert np.abs(rw - tw[sel]).max() < 1e-3 and np.abs(rb - tb[sel]).max() < 1e-3 and it.min() >= 1
    h = tp._p213_de_args(1 << 15, rng)
    rw, rb, it = tp._p213_de_ref(h[0], h[1], tp._p213_spec_table())
    assert (it >= 2).mean() > 0.99 and it.min() >= 1 and it.max() <= 6 and rb.min() < -0.1


# ---- ctrec-fan-joseph-fwd-warp ----

def _fan(betas):
    t = np.zeros((tp.P213_FP_MAXV, 4), np.float32)
    b = np.asarray(betas, np.float64)
    t[:len(b), 0] = tp.P213_DSO * np.cos(b) / PIX
    t[:len(b), 1] = tp.P213_DSO * np.sin(b) / PIX
    t[:len(b), 2] = b
    return t


def test_fan_joseph():
    rng = np.random.default_rng(1)
    img, _ = tp._p213_fp_image(rng)
    img[0, :] = 1.0                                          # the image's edges: a ray's last samples
    img[:, -1] = 1.0
    fan = _fan([0.3, 1.9, np.pi / 4 - 1e-3])                 # x-major, y-major, nearly diagonal
    h = [img.ravel(), np.zeros(3 * tp.P213_FP_NDET, np.float32), np.int32(3), np.float32(tp.P213_FP_DGAM),
         np.float32(PIX)]
    out = run("probe/ctrec-fan-joseph-fwd-warp", h, 3, symbols={"c_fan": fan.ravel()})
    ref = tp._p213_fp_ref(img, fan, 3, tp.P213_FP_DGAM, PIX)
    got = out[1].reshape(3, -1)
    assert np.abs(got - ref).max() < 1e-4 * np.abs(ref).max() and (ref == 0).any() and ref.max() > 4


def test_fan_joseph_uniform_square():
    # a uniform image: each ray's sum is the length of its chord through the square, to a sample
    img = np.ones((N, N), np.float32)
    betas = [0.0, np.pi / 2, 1.0, np.pi / 4]                 # on an axis (exact ties |dx| = |dy| at 45 degrees)
    fan = _fan(betas)
    h = [img.ravel(), np.zeros(4 * tp.P213_FP_NDET, np.float32), np.int32(4), np.float32(tp.P213_FP_DGAM),
         np.float32(PIX)]
    out = run("probe/ctrec-fan-joseph-fwd-warp", h, 4, symbols={"c_fan": fan.ravel()})
    got = out[1].reshape(4, -1)
    ref = tp._p213_fp_ref(img, fan, 4, tp.P213_FP_DGAM, PIX)
    assert np.abs(got - ref).max() < 1e-4 * ref.max()
    # the chord through the square [-N/2, N/2]^2 (pixels) of each ray, by clipping
    gam = (np.arange(tp.P213_FP_NDET) - 0.5 * (tp.P213_FP_NDET - 1) + 0.25) * tp.P213_FP_DGAM
    psi = np.asarray(betas)[:, None] + np.pi + gam[None, :]
    sx, sy = fan[:4, 0:1].astype(np.float64), fan[:4, 1:2].astype(np.float64)
    dx, dy = np.cos(psi), np.sin(psi)
    with np.errstate(divide="ignore", invalid="ignore"):
        tx = np.sort(np.stack([(-N / 2 - sx) / dx, (N / 2 - sx) / dx]), axis=0)
        ty = np.sort(np.stack([(-N / 2 - sy) / dy, (N / 2 - sy) / dy]), axis=0)
    chord = np.maximum(np.minimum(tx[1], ty[1]) - np.maximum(tx[0], ty[0]), 0) * PIX
    step = PIX / np.maximum(np.abs(dx), np.abs(dy))
    mid = np.argmin(np.abs(gam))
    assert (np.abs(got - chord) <= 1.01 * step).all() and chord[0, mid] == pytest.approx(N * PIX, rel=1e-5)
    assert got[0, mid] == pytest.approx(N * PIX, rel=1e-5)   # the central ray, along x


# ---- ctrec-fdk-ramp-smem-f64 ----

def _fk(rows, nv, grid_rows=None):
    g = tp._p213_cone_geom(nv)
    h = [np.ascontiguousarray(rows, np.float32).ravel(), np.zeros(np.size(rows), np.float32), g]
    out = run("probe/ctrec-fdk-ramp-smem-f64", h, 1, grid=(len(rows), 1))
    return out[1].reshape(len(rows), -1), tp._p213_fk_ref(h[0], g), g


def test_fdk_ramp():
    rng = np.random.default_rng(2)
    proj = tp._p213_cone_proj(tp._p213_head(rng), 1, nv=5, rng=rng)[0]
    got, ref, g = _fk(proj, 5)
    assert np.abs(got - ref).max() < 2e-6 * np.abs(ref).max() and np.abs(ref).max() > 0.5
    # an impulse: the weighted kernel itself; a constant row: ~0 in the middle (no DC gain)
    nu = tp.P213_FK_NU
    rows = np.zeros((3, nu), np.float32)
    rows[0, 100] = 1.0
    rows[1] = 1.0
    rows[2, nu - 1] = 2.0                                    # the row's last bin (thread 511, odd)
    got, ref, g = _fk(rows, 3)
    assert np.abs(got - ref).max() < 2e-6 * np.abs(ref).max()
    tau = float(g["tau"])
    uu = (100 - float(g["cu"])) * float(g["du"])
    w = float(g["dsd"]) / np.sqrt(float(g["dsd"]) ** 2 + uu ** 2 + (0 - float(g["cv"])) ** 2 * float(g["dv"]) ** 2)
    k = np.abs(np.arange(nu) - 100)
    assert np.allclose(got[0], w * tp._p213_ramlak(nu, tau)[k] * tau, rtol=1e-5, atol=1e-9)
    assert (got[0, 102::2] == 0).all() and got[0, 100] > 0 and (got[0, 101::2] < 0).all()
    mid = got[1, 200:312]
    assert np.abs(mid).max() < 0.01 * got[1].max() and got[1, 0] > 0.1   # the row's ends: the truncation


# ---- ctrec-ossart-subset-atomic ----

def _sa_ref(h, nvs, syms, img=None, sino=None):
    return tp._p213_sa_ref(h[0] if img is None else img, h[1] if sino is None else sino, int(h[4]), int(h[5]), nvs,
                           float(h[7]), float(h[8]), syms["c_cos"], syms["c_sin"])


def _check_sa(h, nvs, syms, policy="lockstep", scale=None):
    out = run("probe/ctrec-ossart-subset-atomic", h, nvs, symbols=syms, policy=policy)
    corr, wsum, res = _sa_ref(h, nvs, syms)
    gc, gw = out[2].reshape(N, N), out[3].reshape(N, N)
    scale = np.abs(corr).max() if scale is None else scale
    # float32 sample positions (up to ~500 pixels): weights good to ~3e-5 of a sample
    assert np.abs(gw - wsum).max() < 1e-4 * wsum.max() and np.abs(gc - corr).max() < 1e-4 * scale
    return gc, gw, corr, wsum, res


def _sa_lengths(h, nvs, syms):
    """Each ray's length (the sum of its weights, cm; 0 for a miss): 1 / residual of a zero
    image against a sinogram of ones."""
    r = _sa_ref(h, nvs, syms, img=np.zeros(N * N, np.float32), sino=np.ones_like(h[1]))[2]
    return np.where(np.isnan(r), 0, 1 / np.where(np.isnan(r), 1, r))


def test_ossart_subset():
    rng = np.random.default_rng(3)
    h = tp._p213_sa_args(1, rng)                             # one view: subset 7 of 720
    syms = tp._p213_sa_syms(1, rng)
    assert int(h[5]) == 720 and int(h[4]) == 7
    gc, gw, corr, wsum, res = _check_sa(h, 1, syms)
    # the rays' lengths: their chords through the image's square, to a sample; misses where none
    ln = _sa_lengths(h, 1, syms)[0]
    th = np.pi * 7 / 720
    s = (np.arange(tp.P213_SA_NDET) - 0.5 * (tp.P213_SA_NDET - 1)) * tp.P213_SA_DS
    d = np.array([-np.sin(th), np.cos(th)])
    p0 = s[:, None] * np.array([np.cos(th), np.sin(th)])[None, :]

    def chord(half):                                         # through the square [-half, half]^2 (pixels), cm
        t = np.sort(np.stack([(-half - p0) / d, (half - p0) / d]), axis=0)          # per axis entry / exit
        return np.maximum(t[1].min(axis=1) - t[0].max(axis=1), 0) * PIX
    step = PIX / max(abs(d[0]), abs(d[1]))
    # the interpolation smears the image's edge over +-1/2 pixel
    assert (chord(N / 2 - 0.5) - step <= ln).all() and (ln <= chord(N / 2 + 0.5) + step).all()
    assert np.abs(ln - chord(N / 2)).mean() < 0.01 * step and ((ln == 0) == np.isnan(res[0])).all()
    assert np.isnan(res).sum() > 50 and gw.sum() == pytest.approx(ln.sum(), rel=1e-5)
    assert gc.sum() == pytest.approx(np.nansum(res[0] * ln), rel=1e-4)


def test_ossart_consistent_data():
    # a sinogram equal to the iterate's own projections: residuals ~0, so corr ~0, wsum unchanged
    rng = np.random.default_rng(4)
    h = tp._p213_sa_args(2, rng)
    syms = tp._p213_sa_syms(2, rng)
    sub, nsub = int(h[4]), int(h[5])
    assert nsub == 360
    corr0 = _sa_ref(h, 2, syms)[0]
    ax = -_sa_ref(h, 2, syms, sino=np.zeros_like(h[1]))[2] * _sa_lengths(h, 2, syms)      # A x
    sino = h[1].reshape(tp.P213_SA_NV, -1).copy()
    sino[[sub, sub + nsub]] = np.nan_to_num(ax)
    h[1] = sino.ravel()
    gc, gw, corr, wsum, res = _check_sa(h, 2, syms, scale=np.abs(corr0).max())
    assert np.abs(gc).max() < 1e-3 * np.abs(corr0).max() and (gw > 0).mean() > 0.5


# ---- ctrec-tv3d-smem-halo-f64atom ----

def _tv(u, f, lam=tp.P213_TV_LAM, dt=tp.P213_TV_DT, eps=tp.P213_TV_EPS, policy="lockstep"):
    nz, ny, nx = u.shape
    h = [np.ascontiguousarray(u, np.float32).ravel(), np.ascontiguousarray(f, np.float32).ravel(),
         np.zeros(u.size, np.float32), np.zeros(1, np.float64), np.int32(nx), np.int32(ny), np.int32(nz),
         np.float32(lam), np.float32(dt), np.float32(eps * eps)]
    out = run("probe/ctrec-tv3d-smem-halo-f64atom", h, nz, grid=(nx // 32, ny // 8, nz), policy=policy)
    ref, en = tp._p213_tv_ref(h[0], h[1], nx, ny, nz, float(h[7]), float(h[8]), float(h[9]))
    got = out[2].reshape(nz, ny, nx)
    assert np.abs(got - ref).max() < 2e-6 * max(1.0, np.abs(ref).max()) and out[3][0] == pytest.approx(en, rel=1e-6)
    return got, out[3][0]


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_tv3d(policy):
    rng = np.random.default_rng(5)
    u, f = tp._p213_tv_data(3, rng, nxy=64)
    if policy == "random":                                   # warps interleaved at random: 2 x 1 x 2 blocks
        _tv(u[1:, 24:32, :], f[1:, 24:32, :], policy=policy)
    else:
        _tv(u[:, 24:40, :], f[:, 24:40, :])                  # 2 x 2 x 3 blocks, the body's edge inside


def test_tv3d_edges():
    rng = np.random.default_rng(6)
    # one slice (z neighbours are the slice itself), a step edge, a constant region
    u = np.full((1, 8, 32), 40.0, np.float32)
    u[0, :, 16:] = 1040.0
    f = u + rng.normal(0, 25, u.shape).astype(np.float32)
    got, en = _tv(u, f)
    lam, dt = tp.P213_TV_LAM, tp.P213_TV_DT
    flat = got[0, 2:6, 2:14]                                  # away from the edge: only the data term
    assert np.allclose(flat, (u - dt * lam * (u - f))[0, 2:6, 2:14], atol=1e-4)
    # across the edge the TV term pulls each side towards the other by dt (a unit normal)
    assert got[0, 4, 15] == pytest.approx(40 - dt * lam * (40 - f[0, 4, 15]) + dt * 1000 / np.sqrt(1000 ** 2 + 1),
                                          abs=1e-3)
    u3 = np.repeat(u, 3, axis=0)                              # constant along z: the same answer in each slice
    got3, _ = _tv(u3, np.repeat(f, 3, axis=0))
    assert np.abs(got3 - got[None, 0]).max() < 1e-4


# ---- ctrec-li-mar-ballot-u16 ----

def _mar(raw, nsl, grid, policy="lockstep"):
    nd = tp.P213_MR_NDET
    rows = raw.size // nd
    h = [np.ascontiguousarray(raw, np.uint16).ravel(), np.zeros(raw.size, np.float32),
         np.zeros(-(-rows // nsl), np.int32), np.zeros(1, np.int32), np.int32(rows), np.int32(nsl),
         np.float32(tp.P213_MR_I0), np.float32(tp.P213_MR_PMETAL)]
    out = run("probe/ctrec-li-mar-ballot-u16", h, rows, grid=grid, policy=policy)
    ref, met, nm = tp._p213_mr_ref(h[0], nsl, h[6], h[7])
    got = out[1].reshape(rows, nd)
    assert np.abs(got - ref).max() < 2e-6 * np.abs(ref).max()
    assert (out[2] == nm).all() and out[3][0] == met.sum()
    return got, ref, met


def test_li_mar():
    rng = np.random.default_rng(7)
    raw, _ = tp._p213_mr_data(2, rng, nsl=24)
    got, ref, met = _mar(raw, 24, grid=(3, 1))              # 24 warps over 48 rows: 2 rows each
    assert met.sum() > 200 and met.any(axis=1).sum() > 10


def test_li_mar_edges():
    nd = tp.P213_MR_NDET
    i0 = tp.P213_MR_I0
    rng = np.random.default_rng(8)
    base = np.rint(i0 * np.exp(-rng.uniform(1, 6, (9, nd)))).astype(np.uint16)
    base[0] = 0                                               # all metal: left as measured
    base[1, :40] = 3                                          # from the row's start: the right neighbour's value
    base[2, nd - 33:] = 0                                     # to its end, from lane 31 of a word
    base[3, 30:100] = 5                                       # across 3 words
    base[4, 64] = 1                                           # a single bin, a word's first
    base[5, ::2] = 2                                          # every other bin
    base[6, 31] = 0                                           # a word's last bin
    base[6, 32] = 0
    base[7, 300:700] = 0                                      # a run of 400 bins: 13 words searched
    # row 8: no metal
    got, ref, met = _mar(base, 3, grid=(1, 1))               # one block of 8 warps, 9 rows
    p = np.log(i0 / np.maximum(base.astype(np.float64), 1))
    assert np.allclose(got[0], p[0], rtol=1e-6) and np.allclose(got[1, :40], p[1, 40], rtol=1e-6)
    assert np.allclose(got[2, nd - 33:], p[2, nd - 34], rtol=1e-6)
    x = np.arange(30, 100)
    assert np.allclose(got[3, 30:100], p[3, 29] + (p[3, 30 + 70] - p[3, 29]) * (x - 29) / 71, rtol=1e-5)
    assert got[4, 64] == pytest.approx((p[4, 63] + p[4, 65]) / 2, rel=1e-6)
    assert np.allclose(got[5, 2:-2:2], (p[5, 1:-3:2] + p[5, 3:-1:2]) / 2, rtol=1e-5)
    assert np.allclose(got[8], p[8], rtol=1e-6) and list(met.sum(axis=1)) == [nd, 40, 33, 70, 1, nd // 2, 2, 400, 0]


# ---- ctrec-dual-energy-newton-f64 ----

def _de(pl, ph, grid=None):
    n = len(pl)
    spec = tp._p213_spec_table()
    h = [np.asarray(pl, np.float32), np.asarray(ph, np.float32), np.zeros(n, np.float32), np.zeros(n, np.float32),
         np.zeros(n, np.uint8), np.int32(n)]
    out = run("probe/ctrec-dual-energy-newton-f64", h, n, symbols={"c_spec": spec.ravel()}, grid=grid)
    tw, tb, it = tp._p213_de_ref(h[0], h[1], spec)
    assert np.allclose(out[2], tw, rtol=1e-6, atol=1e-6) and np.allclose(out[3], tb, rtol=1e-6, atol=1e-6)
    assert (out[4] == it).all()
    return out[2], out[3], out[4]


def test_dual_energy():
    rng = np.random.default_rng(9)
    h = tp._p213_de_args(600, rng)                            # a partial last block
    tw, tb, it = _de(h[0], h[1], grid=(3, 1))
    assert it.min() >= 2 and len(np.unique(it)) >= 3


def test_dual_energy_cases():
    tw = np.array([0, 20, 0, 30, 10, 5, 0, 0])
    tb = np.array([0, 0, 3, 4, 1, 0.5, 0, 0])
    pl, ph = tp._p213_de_model(tw, tb)
    pl[6], ph[6] = -0.02, -0.01                               # noisy air: clamped at t_w = 0
    pl[7], ph[7] = 9.0, 2.0                                   # inconsistent: the bone clamp
    got_w, got_b, it = _de(pl, ph)
    assert np.allclose(got_w[:6], tw[:6], atol=1e-4) and np.allclose(got_b[:6], tb[:6], atol=1e-4)
    assert it[0] == 1 and (it[1:6] >= 3).all() and got_w[6] == 0 and -0.02 < got_b[6] < 0
    assert got_w[7] == 0 and got_b[7] == 30 and it[6] >= 2 and it[7] >= 2              # stuck on both clamps
