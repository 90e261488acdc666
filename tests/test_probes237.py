"""probe-unseen235's kernels (kernels_cuda/probes237.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/sonar-fdbf-towed-array-btr", "probe/sonar-pn-doppler-bank-mf-u64max",
       "probe/sonar-go-cfar-dscan-ballot-hist", "probe/sonar-fls-scan-convert-bsearch-u8",
       "probe/sonar-adcp-pulse-pair-shfl-janus", "probe/sonar-tl-pekeris-normal-modes-f64"]

F32 = np.float32
EPS = 2.0 ** -24                 # float32's unit roundoff
DB = 10 / np.log(10)             # dB a neper of power


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen235"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes237.cu" and len(tp.get(i).note) > 400 for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _c(a):
    """float32 pairs -> complex128."""
    a = np.asarray(a, np.float64).reshape(-1, 2)
    return a[:, 0] + 1j * a[:, 1]


# ---- fdbf_btr<64> ----

def _bf_ref(X, nf, kd_lo, kd_step, inv_norm, w):
    """The BTR in float64 (S x 128) and its error bound in dB. The kernel's phase step kd u
    is float32 (kd = kd_lo + k kd_step, then times u: a few roundings of |kd|), its sincosf
    to 2 ulp, and the phasor rotated ch times by complex multiplies: element ch's phasor off
    by ch (4 eps |kd| + 8 eps) in angle and size; each term's products and the sum over 64
    elements add (64 + 8) eps of the sum of |terms|; |y|^2 and the sum over bins a few eps
    more."""
    S = X.shape[0]
    nch = X.shape[2]
    u = (2 * np.arange(128) + 1 - 128) / 128
    kd = float(kd_lo) + float(kd_step) * np.arange(nf)
    ch = np.arange(nch)
    ph = np.exp(1j * kd[:, None, None] * u[None, :, None] * ch[None, None, :])       # f, b, ch
    y = np.einsum("sfc,fbc->sfb", X * w, ph)
    pw = (np.abs(y) ** 2).sum(1)
    a = np.abs(X) * w                                                                 # s, f, ch
    e = np.einsum("sfc,fc->sf", a, ch[None, :] * (4 * EPS * np.abs(kd)[:, None] + 8 * EPS) + (nch + 8) * EPS)
    dp = (2 * np.abs(y) * e[:, :, None] + e[:, :, None] ** 2 + 4 * EPS * np.abs(y) ** 2).sum(1) + nf * EPS * pw
    ref = 10 * np.log10(pw * float(inv_norm))
    return ref, DB * 2 * dp / pw + 1e-5


def _check_bf(X, nf, kd_lo, kd_step, w):
    S = X.shape[0]
    wt = np.zeros(128, F32)
    wt[:len(w)] = w
    w64 = wt[:64].astype(np.float64)
    inv_norm = F32(1.0 / (nf * (w64 * w64).sum()))
    host = [np.stack([X.real, X.imag], -1).astype(F32).reshape(-1, 2), np.int32(nf), F32(kd_lo), F32(kd_step),
            inv_norm, np.zeros(S * 128, F32)]
    out = run("probe/sonar-fdbf-towed-array-btr", host, S, symbols={"c_taper": wt})
    Xq = _c(host[0]).reshape(S, nf, 64)
    ref, tol = _bf_ref(Xq, nf, host[2], host[3], inv_norm, w64)
    got = out[5].reshape(S, 128)
    assert (np.abs(got - ref) <= tol).all()
    return got, ref


def test_fdbf_btr():
    rng = np.random.default_rng(1)
    S = 6
    host = tp._p237_bf_args(S, rng)
    X = _c(host[0]).reshape(S, 64, 64)
    got, ref = _check_bf(X, 64, host[2], host[3], tp._p237_taper())
    # the contacts: the tow ship's beam (cos 0.97: beam 126) the loudest, the merchant's
    # (0.62: beam 103) 10 dB over the noise beams; the beams' median near the noise's 0 dB
    assert np.argmax(got.mean(0)) in (125, 126, 127) and got[:, 103].mean() > 8
    assert abs(np.median(got) - 0.4) < 0.6


def test_fdbf_btr_cases():
    rng = np.random.default_rng(2)
    S, nf = 2, 8
    kd_lo, kd_step = tp._p237_bf_kd()
    ch = np.arange(64)
    kd = kd_lo.astype(np.float64) + kd_step.astype(np.float64) * np.arange(nf)
    X = np.zeros((S, nf, 64), complex)
    X[0] = np.exp(-1j * kd[:, None] * (-35 / 128) * ch[None, :])      # a plane wave on beam 46's axis
    X[1] = rng.standard_normal((nf, 64)) + 1j * rng.standard_normal((nf, 64))
    got, ref = _check_bf(X, nf, kd_lo, kd_step, tp._p237_taper())
    assert np.argmax(got[0]) == 46 and abs(got[0, 46] - 10 * np.log10(tp._p237_taper().astype(np.float64).sum() ** 2 /
                                                                          (tp._p237_taper().astype(np.float64) ** 2).sum())) < 1e-3
    _check_bf(X, nf, kd_lo, kd_step, np.ones(64, F32))                     # unshaded


# ---- doppler_bank_mf ----

def _check_mf(E, bank, n, nb):
    L = bank.shape[1]
    host = [np.stack([E.real, E.imag], -1).astype(F32).reshape(-1, 2),
            np.stack([bank.real, bank.imag], -1).astype(F32).reshape(-1, 2), np.int32(n), np.int32(L),
            np.zeros(nb * n, np.uint64)]
    out = run("probe/sonar-pn-doppler-bank-mf-u64max", host, n, grid=tp._p237_mf_grid(n, nb))
    e = _c(host[0]).reshape(nb, n + L - 1)
    r = _c(host[1]).reshape(-1, L)
    idx = np.arange(n)[:, None] + np.arange(L)[None, :]
    y = np.einsum("dk,bnk->bdn", np.conj(r), e[:, idx])
    P = np.abs(y) ** 2
    # the sum of L complex products in float32 (two fmas a part a tap): within (L + 4) eps
    # of the sum of |r||e| a part, so |y|'s error e_y <= 2 (L + 4) eps sum |r||e|; the power
    # within 2 |y| e_y + e_y^2 and its own rounding
    ey = 2 * (L + 4) * EPS * np.einsum("dk,bnk->bdn", np.abs(r), np.abs(e[:, idx]))
    dP = 2 * np.sqrt(P) * ey + ey ** 2 + 2 * EPS * P + 1e-38
    key = out[4].reshape(nb, n)
    p = (key >> np.uint64(32)).astype(np.uint32).view(F32).astype(np.float64)
    d = (key & np.uint64(0xFFFFFFFF)).astype(np.int64)
    assert (d < len(r)).all()
    b, t = np.indices(d.shape)
    Pd, dPd = P[b, d, t], dP[b, d, t]
    am = P.argmax(1)
    assert (np.abs(p - Pd) <= dPd).all()                                   # its power, its channel's
    assert (Pd >= P.max(1) - dPd - dP[b, am, t]).all()                      # the best channel (to rounding)
    return d, p, P


def test_doppler_bank_mf():
    rng = np.random.default_rng(3)
    n, nb = 512, 2
    host = tp._p237_mf_args(n, rng, nbeam=nb)
    E = _c(host[0]).reshape(nb, -1)
    d, p, P = _check_mf(E, _c(host[1]).reshape(16, -1), n, nb)
    assert (d == P.argmax(1)).mean() > 0.99


def test_doppler_bank_mf_cases():
    rng = np.random.default_rng(4)
    bank = tp._p237_mf_bank()
    L = bank.shape[1]
    n, nb = 256, 2
    E = np.zeros((nb, n + L - 1), complex)
    E[0, 40:40 + L] = 3 * bank[11]                                          # a target on replica 11
    E[0, 200:200 + L] += 2 * bank[2] * np.exp(0.7j)                         # and one on replica 2
    E[0] += 0.001 * (rng.standard_normal(n + L - 1) + 1j * rng.standard_normal(n + L - 1))
    d, p, P = _check_mf(E, bank, n, nb)
    assert d[0, 40] == 11 and d[0, 200] == 2 and abs(p[0, 40] - 9) < 0.05 and abs(p[0, 200] - 4) < 0.05
    assert (d[1] == 15).all() and (p[1] == 0).all()                         # silence: all ties, the last channel


# ---- go_cfar ----

def _cfar_ref(P, alpha):
    """GO-CFAR's statistic (float64) and detections of a beam x cell map."""
    nb, n = P.shape
    G, W, H = tp.P237_CF_GUARD, tp.P237_CF_TRAIN, tp.P237_CF_GUARD + tp.P237_CF_TRAIN
    c = np.concatenate([np.zeros((nb, 1)), np.cumsum(P, 1)], 1)
    i = np.arange(n)
    lo, la = i >= H, i + H < n
    lead = np.where(lo, c[:, np.clip(i - G, 0, n)] - c[:, np.clip(i - G - W, 0, n)], 0)
    lag = np.where(la, c[:, np.clip(i + G + W + 1, 0, n)] - c[:, np.clip(i + G + 1, 0, n)], 0)
    tr = np.where(lo & la, np.maximum(lead, lag), np.where(lo, lead, lag))
    return P / (tr / W)


def _check_cf(P, alpha, maxdet):
    nb, n = P.shape
    host = [P.astype(F32).ravel(), np.int32(n), F32(alpha), np.zeros(maxdet, tp.P237_DET), np.int32(maxdet),
            np.zeros(1, np.int32), np.zeros(128, np.uint32)]
    out = run("probe/sonar-go-cfar-dscan-ballot-hist", host, n, grid=tp._p237_cf_grid(n, nb))
    stat = _cfar_ref(host[0].reshape(nb, n).astype(np.float64), alpha)
    # the training sums in double from float data (exact to 1e-15), the mean rounded to
    # float32, the divide: the kernel's statistic within 3 eps; no cell that close to alpha
    a = float(F32(alpha))
    assert (np.abs(stat / a - 1) > 4 * EPS).all()
    hit = stat > a
    nd = int(out[5][0])
    assert nd == hit.sum()
    det = out[3][:min(nd, maxdet)]
    got = set(zip(det["beam"].tolist(), det["cell"].tolist()))
    assert len(got) == len(det) and got <= {(int(b), int(c)) for b, c in zip(*np.nonzero(hit))}
    if nd <= maxdet:
        assert len(got) == nd
    assert (det["power"] == host[0].reshape(nb, n)[det["beam"], det["cell"]]).all()
    db = 10 * np.log10(stat)
    # the statistic's 3 eps (1e-6 dB) and log10f's ulps
    assert (np.abs(det["snr_db"] - db[det["beam"], det["cell"]]) <= 4e-6 * np.maximum(1, np.abs(db[det["beam"], det["cell"]]))).all()
    # the histogram: cells within 1e-5 of a bin's edge (in bins) may fall either side
    x = (db + 30) * 2
    b = np.clip(np.floor(x), 0, 127).astype(np.int64)
    near = np.abs(x - np.rint(x)) < 1e-5
    ref = np.bincount(b.ravel(), minlength=128)
    assert out[6].sum() == nb * n and np.abs(out[6].astype(np.int64) - ref).sum() <= 2 * near.sum()
    return out, stat


def test_go_cfar():
    rng = np.random.default_rng(5)
    n, nb = 4096, 3
    host = tp._p237_cf_args(n, rng, nbeam=nb, maxdet=4096)
    P = host[0].reshape(nb, n)
    out, stat = _check_cf(P, host[2], 4096)
    assert out[5][0] > 5


def test_go_cfar_cases():
    rng = np.random.default_rng(6)
    n, nb = 2048, 2
    P = rng.exponential(1.0, (nb, n))
    P[0, :800] *= 1000 * np.linspace(1, 0.001, 800)                          # a falling reverberation edge
    P[0, 3] = 5e5                                                            # targets at the ends: one-sided windows
    P[1, n - 2] = 80
    P[1, 1000:1010] = 60                                                     # a cluster: warps with many hits
    P[1, 1500:1532] = 70
    alpha = tp._p237_go_alpha()
    out, stat = _check_cf(P, alpha, 4096)
    det = out[3][:out[5][0]]
    hits = set(zip(det["beam"].tolist(), det["cell"].tolist()))
    assert (0, 3) in hits and (1, n - 2) in hits
    out, _ = _check_cf(P, alpha, 5)                                          # a full list: ndet still counts
    assert out[5][0] > 5


def test_go_alpha():
    # GO-CFAR's design threshold: Monte Carlo in exponential noise (4e6 cells: ~40 alarms)
    rng = np.random.default_rng(7)
    a = float(tp._p237_go_alpha())
    assert 11.5 < a < 12 and abs(tp._p237_go_pfa(a) / 1e-5 - 1) < 1e-3
    n = 32
    fa = 0
    for _ in range(4):
        X = rng.gamma(n, 1.0, (2, 1_000_000))
        fa += (rng.exponential(1.0, 1_000_000) > a * X.max(0) / n).sum()
    assert 20 <= fa <= 65


# ---- fls_scan_convert ----

def _sc_ref(polar, th, nrange, rmin, inv_dr, nx, ny, px, db_lo, gpd):
    """The display (float gray levels before truncation), the fan mask, each pixel's gray
    error bound and the pixels too near the fan's edges to call, from float64 geometry."""
    nbeam = len(th)
    x = ((np.arange(nx).astype(F32) - F32(0.5) * F32(nx) + F32(0.5)) * F32(px)).astype(np.float64)[None, :]
    y = (((F32(ny) - np.arange(ny).astype(F32)) - F32(0.5)) * F32(px)).astype(np.float64)[:, None]
    r = np.sqrt(x * x + y * y)
    a = np.arctan2(x, y)
    th = th.astype(np.float64)
    fr = (r - float(rmin)) * float(inv_dr)
    inside = (fr >= 0) & (fr <= nrange - 1) & (a >= th[0]) & (a <= th[-1])
    edge = (np.abs(fr) < 1e-4) | (np.abs(fr - (nrange - 1)) < 1e-4) | (np.abs(a - th[0]) < 1e-5) | (np.abs(a - th[-1]) < 1e-5)
    lo = np.clip(np.searchsorted(th, a, "right") - 1, 0, nbeam - 2)
    wb = (a - th[lo]) / (th[lo + 1] - th[lo])
    r0 = np.clip(np.floor(fr), 0, nrange - 2).astype(np.int64)
    wr = fr - r0
    r0c, loc = np.clip(r0, 0, nrange - 2), np.clip(lo, 0, nbeam - 2)
    Pp = polar.astype(np.float64)
    v00, v01, v10, v11 = Pp[..., r0c, loc], Pp[..., r0c, loc + 1], Pp[..., r0c + 1, loc], Pp[..., r0c + 1, loc + 1]
    v = (1 - wr) * ((1 - wb) * v00 + wb * v01) + wr * ((1 - wb) * v10 + wb * v11)
    v = np.maximum(v, 0)
    g = (20 * np.log10(v + 1) - float(db_lo)) * float(gpd)
    # the kernel's range index off by a few eps of r / dr (sqrtf, the subtract, the
    # multiply), its beam weight by atan2f's 2 ulps and a few eps over the beam's width;
    # the value moves with the index by at most the neighbours' differences; its own
    # bilinear roundings 8 eps; the gray level by 20 / ln 10 gpd dv / (v + 1) and log10f's
    # ulps (1e-4 of a level)
    dfr = 8 * EPS * (r + float(rmin)) * float(inv_dr)
    dwb = (8 * EPS * (np.abs(a) + 1)) / (th[lo + 1] - th[lo])
    dv = (np.maximum(np.abs(v10 - v00), np.abs(v11 - v01)) * dfr + np.maximum(np.abs(v01 - v00), np.abs(v11 - v10)) * dwb
          + 8 * EPS * (v + 1))
    dg = 20 / np.log(10) * float(gpd) * dv / (v + 1) + 1e-4
    return g, inside, dg, edge


def _check_sc(polar, th, rmin, dr, nx, ny, px, grid):
    nf, nrange, nbeam = polar.shape
    gpd = F32(255.0 / 70.0)
    host = [polar.ravel(), th.astype(F32), np.int32(nf), np.int32(nrange), np.int32(nbeam), F32(rmin), F32(1 / dr),
            np.int32(nx), np.int32(ny), F32(px), F32(20.0), gpd, np.zeros(nf * nx * ny, np.uint8)]
    out = run("probe/sonar-fls-scan-convert-bsearch-u8", host, nf, grid=(grid,))
    g, inside, dg, edge = _sc_ref(polar, host[1], nrange, host[5], host[6], nx, ny, host[9], host[10], gpd)
    img = out[12].reshape(nf, ny, nx).astype(np.int64)
    assert edge.mean() < 0.01
    ok = ~edge[None] & np.ones((nf, 1, 1), bool)
    assert (img[ok & ~inside[None]] == 0).all()                            # outside the fan: black
    lo = np.floor(np.clip(g - dg, 0, 255)).astype(np.int64)
    hi = np.floor(np.clip(g + dg, 0, 255)).astype(np.int64)
    m = ok & inside[None]
    assert ((img >= lo) & (img <= hi))[m].all()
    return img, g, inside


def test_fls_scan_convert():
    rng = np.random.default_rng(8)
    host = tp._p237_sc_args(2, rng)                                         # two full frames (1024 x 256)
    polar = host[0].reshape(2, 1024, 256)
    th = host[1]
    assert np.allclose(np.diff(np.sin(th.astype(np.float64))), np.diff(np.sin(th.astype(np.float64)))[0], rtol=1e-4)
    nx, ny = 96, 48                                                         # a small display of the whole fan
    px = F32(40.0 / 48)
    img, g, inside = _check_sc(polar, th, tp.P237_SC_RMIN, tp._p237_sc_dr(), nx, ny, px, 5)
    assert 0.5 < inside.mean() < 0.65 and img[:, inside].mean() > 30


def test_fls_scan_convert_cases():
    rng = np.random.default_rng(9)
    th = np.deg2rad(np.sort(rng.uniform(-50, 50, 24))).astype(F32)          # an irregular fan
    polar = rng.integers(0, 65536, (2, 40, 24)).astype(np.uint16)
    polar[1] = 1000                                                          # flat: 20 log10(1001) -> level 145
    img, g, inside = _check_sc(polar, th, 2.0, 0.25, 64, 40, F32(0.3), 3)
    assert (img[1][inside] == 145).all() and (img[1][~inside] == 0).all()


def test_fls_scene():
    rng = np.random.default_rng(10)
    f = tp._p237_sc_frame(0, rng).astype(np.float64)
    r = tp.P237_SC_RMIN + tp._p237_sc_dr() * np.arange(1024)
    assert np.median(f[r < tp.P237_SC_ALT - 0.5]) < 40                      # the water column before the bed: noise
    bed = f[(r > 8) & (r < 30)]
    assert np.median(bed) > 5 * np.median(f[r < tp.P237_SC_ALT - 0.5])
    assert (f == 0).mean() < 0.01 and f.max() < 65535


# ---- adcp_pulse_pair ----

def _ad_ref(iq, npg, nc, vscale, corr_min, M):
    x = iq.astype(np.float64)
    x = (x[:, 0] + 1j * x[:, 1]).reshape(npg, 4, nc, 64)
    a, b = x[..., :56], x[..., 8:]
    R1 = (b * np.conj(a)).sum(-1)
    R0 = (0.5 * (np.abs(a) ** 2 + np.abs(b) ** 2)).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.abs(R1) / R0
    v = float(vscale) * np.angle(R1)
    # the sums in float32 (int16 products rounded, 56 terms by lanes and a shuffle tree):
    # within 64 eps of the sum of the terms' magnitudes; the phase within that over |R1| and
    # atan2f's 2 ulps; the correlation within both relative errors and 4 eps
    S = (np.abs(b) * np.abs(a)).sum(-1) * 2
    with np.errstate(invalid="ignore", divide="ignore"):
        dph = 64 * EPS * S / np.abs(R1) + 4 * EPS * np.pi
        dc = c * (64 * EPS * S / np.abs(R1) + 64 * EPS + 4 * EPS)
    ok = np.all(c >= float(corr_min), axis=1)
    close = np.any(np.abs(c - float(corr_min)) <= dc, axis=1)
    e = np.einsum("ij,pjc->pci", M, v)
    de = np.einsum("ij,pjc->pci", np.abs(M), np.abs(float(vscale)) * dph) + 8 * EPS * np.einsum(
        "ij,pjc->pci", np.abs(M), np.abs(v)) + 1e-7
    return c, dc, ok, close, e, de


def _check_ad(iq, npg, nc):
    M = tp._p237_ad_geom()[1]
    host = [iq.reshape(-1, 2), np.int32(nc), tp._p237_ad_vscale(), F32(tp.P237_AD_CORR_MIN),
            np.zeros((npg * nc, 4), F32), np.zeros((npg * nc, 4), np.uint8), np.zeros(nc, np.int32)]
    out = run("probe/sonar-adcp-pulse-pair-shfl-janus", host, npg, grid=(nc, npg), symbols={"c_b2e": M})
    c, dc, ok, close, e, de = _ad_ref(host[0], npg, nc, host[2], host[3], M.reshape(4, 4).astype(np.float64))
    assert not close.any()                                                   # no cell on the fence
    vel = out[4].reshape(npg, nc, 4)
    assert (np.abs(vel - e)[ok] <= de[ok]).all()
    assert (vel[~ok] == F32(-32.768)).all()
    assert (out[6] == ok.sum(0)).all()
    cnt = out[5].reshape(npg, nc, 4).astype(np.int64)
    cc = np.fmin(c, 1.0).transpose(0, 2, 1)                                  # fminf(NaN, 1) = 1
    x = 255 * cc + 0.5
    dx = 255 * dc.transpose(0, 2, 1) + 1e-4
    lo, hi = np.floor(np.where(np.isnan(dx), x, x - dx)), np.floor(np.where(np.isnan(dx), x, x + dx))
    assert ((cnt >= lo) & (cnt <= hi)).all()
    return vel, ok, c


def test_adcp_pulse_pair():
    rng = np.random.default_rng(11)
    npg, nc = 3, 128
    host = tp._p237_ad_args(npg, rng, ncell=nc)
    vel, ok, c = _check_ad(host[0], npg, nc)
    assert ok[:, :60].mean() > 0.95 and not ok[:, 115:].any()               # good water, then the bed's echo and below


def test_adcp_cases():
    rng = np.random.default_rng(12)
    npg, nc = 2, 4
    B, M = tp._p237_ad_geom()
    v_true = np.array([0.5, -0.2, 0.05])                                     # a uniform current
    n = np.arange(nc * 64)
    iq = np.zeros((npg, 4, nc * 64, 2), np.int16)
    for b in range(4):
        fd = -2 * tp.P237_AD_F0 * (B[b] @ v_true) / tp.P237_C
        z = 3000 * np.exp(2j * np.pi * fd * n / tp.P237_AD_FS) * np.exp(1j * rng.uniform(0, 6.3))
        iq[:, b, :, 0], iq[:, b, :, 1] = np.rint(z.real), np.rint(z.imag)
    iq[1, 2, 64:128] = 0                                                    # a silent beam in a cell: bad
    iq[1, 0, 128:192] = np.random.default_rng(99).integers(-40, 40, (64, 2))   # noise in a cell: corr 0.1, bad
    iq[0, 3, 192:256] = 32767                                               # a clipped cell: zero Doppler, corr 1
    vel, ok, c = _check_ad(iq, npg, nc)
    assert ok[0].all() and ok[1, [0, 3]].all() and not ok[1, 1] and not ok[1, 2] and c[1, 0, 2] < 0.15
    assert np.allclose(vel[0, 0, :3], v_true, atol=2e-3) and abs(vel[0, 0, 3]) < 2e-3


def test_adcp_profile():
    # ping-averaged (64 pings) earth velocities of the synthetic data follow the current: a
    # ping's u, v within ~0.28 m/s (0.2 along a beam, two beams), 64 pings' mean 0.035
    rng = np.random.default_rng(13)
    npg, nc = 64, 64
    iq = tp._p237_ad_iq(npg, rng, nc)
    B, M = tp._p237_ad_geom()
    c, dc, ok, close, e, de = _ad_ref(iq.reshape(-1, 2), npg, nc, tp._p237_ad_vscale(), tp.P237_AD_CORR_MIN,
                                      M.reshape(4, 4).astype(np.float64))
    cells = np.arange(2, 60)
    z = (tp.P237_AD_BLANK + tp.P237_C / (2 * tp.P237_AD_FS) * (cells * 64 + 28)) * np.cos(np.deg2rad(tp.P237_AD_THETA))
    u, v, w = tp._p237_ad_current(z[None], np.arange(npg)[:, None].astype(float))
    assert ok[:, cells].mean() > 0.97
    m = ok[:, cells, None]
    err = (e[:, cells, :2] * m).sum(0) / m.sum(0) - np.stack([(u * m[..., 0]).sum(0), (v * m[..., 0]).sum(0)], -1) / m.sum(0)
    assert np.abs(err).max() < 0.15 and np.sqrt((err ** 2).mean()) < 0.05


# ---- tl_normal_modes ----

def _nm_ref(m, nr, nz, dr, dz, D):
    """TL (dB, nz x nr) from the modes in float64 with the kernel's float32 arguments (gamma z,
    alpha r, z - D and r rounded as it rounds them), and its error bound: each term's sinf /
    expf / sincosf and products to ~10 eps, the phase's reduction in double rounded to
    float (half an ulp of 2 pi), the float sum over the modes 2 nm eps of the sum of |terms|;
    |p|'s error over |p| in dB (the cells where it reaches a third of |p| not called)."""
    r32 = (np.arange(nr) + 1).astype(F32) * F32(dr)
    z32 = (np.arange(nz) + 1).astype(F32) * F32(dz)
    r = r32.astype(np.float64)
    g = m["gamma"]
    water = z32 <= F32(D)
    psi_w = np.sin((g[:, None] * z32[None, :]).astype(np.float64))
    psi_b = m["bot"].astype(np.float64)[:, None] * np.exp(-(m["delta"][:, None] * (z32 - F32(D))[None, :]).astype(np.float64))
    psi = np.where(water[None], psi_w, psi_b)
    att = np.exp(-(m["alpha"][:, None] * r32[None, :]).astype(np.float64))
    E = m["amp"].astype(np.float64)[:, None] * att * np.exp(1j * m["kr"][:, None] * r[None, :])
    p = np.einsum("mz,mr->zr", psi, E)
    S = np.einsum("mz,mr->zr", np.abs(psi), np.abs(E))
    dp = S * (12 * EPS + 2.4e-7 + 2 * len(m) * EPS)
    mag = np.abs(p)
    k = 4 * np.pi / np.sqrt(8 * np.pi * r)[None, :]
    tl = -20 * np.log10(k * mag)
    with np.errstate(divide="ignore", invalid="ignore"):
        dtl = 2 * 20 / np.log(10) * dp / mag + 8 * EPS * 20 / np.log(10) + 1e-5 * np.abs(tl)
    # and deep in the sediment's evanescent tails, where the kernel's float32 |p|^2
    # underflows (|p| under ~1e-15: TL over ~300 dB), not called
    call = (dp < mag / 3) & (mag > 1e-15)
    return tl, dtl, call


def _check_nm(m, nr, nz, dr, dz, D):
    tab = np.zeros(tp.P237_NM_MAX, tp.P237_MODE)
    tab[:len(m)] = m
    host = [np.int32(len(m)), np.int32(nr), np.int32(nz), F32(dr), F32(dz), F32(D), np.zeros(nz * nr, F32)]
    out = run("probe/sonar-tl-pekeris-normal-modes-f64", host, nr, grid=tp._p237_nm_grid(nr, nz), symbols={"c_mode": tab})
    tl, dtl, call = _nm_ref(tab[:len(m)], nr, nz, dr, dz, D)
    got = out[6].reshape(nz, nr).astype(np.float64)
    assert (np.abs(got - tl)[call] <= dtl[call]).all()
    return got, tl, call


def test_tl_normal_modes():
    m = tp._p237_modes()
    nr, nz = 64, 48
    got, tl, call = _check_nm(m, nr, nz, 150.0, 150.0 / 48, tp.P237_NM_D)   # 150 m to 9.6 km
    assert call.mean() > 0.99
    assert 40 < np.median(got[:32, 8:]) < 80 and (got[40:] > 80).all()      # the water; the sediment far below


def test_tl_cases():
    m = tp._p237_modes()
    got, tl, call = _check_nm(m[:1], 40, 16, 1000.0, 10.0, tp.P237_NM_D)   # one mode, to 40 km
    assert call[:11].all() and not call[11:].any()                          # 20 m into the bed: underflow
    got, tl, call = _check_nm(m[::7], 40, 24, 333.0, 6.25, tp.P237_NM_D)   # a few; r not whole in binary
    assert call[:16].mean() > 0.98 and call.mean() > 0.8                    # the water; the bed to 50 m
    host = [np.int32(0), np.int32(32), np.int32(8), F32(100.0), F32(10.0), F32(tp.P237_NM_D), np.zeros(256, F32)]
    out = run("probe/sonar-tl-pekeris-normal-modes-f64", host, 32, grid=tp._p237_nm_grid(32, 8),
              symbols={"c_mode": np.zeros(tp.P237_NM_MAX, tp.P237_MODE)})
    assert np.allclose(out[6], 600.0, rtol=1e-6)                            # no modes: |p| 0, floored at 1e-30


def test_pekeris_modes():
    m = tp._p237_modes()
    D, w = tp.P237_NM_D, 2 * np.pi * tp.P237_NM_F
    k1, k2 = w / tp.P237_NM_C1, w / tp.P237_NM_C2
    assert len(m) == 63 and (np.diff(m["kr"]) < 0).all() and (m["kr"] > k2).all() and (m["kr"] < k1).all()
    g, de = m["gamma"].astype(np.float64), m["delta"].astype(np.float64)
    assert np.allclose(g ** 2 + m["kr"] ** 2, k1 ** 2, rtol=1e-6) and np.allclose(m["kr"] ** 2 - de ** 2, k2 ** 2, rtol=1e-5)
    # the boundary condition at the bed: tan(gamma D) = -(rho2 gamma) / (rho1 delta)
    assert np.allclose(tp.P237_NM_RHO1 * de * np.sin(g * D) + tp.P237_NM_RHO2 * g * np.cos(g * D), 0,
                       atol=1e-4 * (g + de).max())
    # normalised: int psi^2 / rho dz = 1 (by the trapezoid rule through water and sediment)
    zw = np.linspace(0, D, 20001)
    zb = np.linspace(D, D + 4000, 400001)
    sel = np.abs(np.sin(g * tp.P237_NM_ZS)) > 0.05                          # A^2 recovered from amp where well posed
    m, g, de = m[sel], g[sel], de[sel]
    A2 = (m["amp"] * tp.P237_NM_RHO1 * np.sqrt(m["kr"]) / np.sin(g * tp.P237_NM_ZS))[:, None]
    Iw = np.trapezoid(A2 * np.sin(g[:, None] * zw) ** 2 / tp.P237_NM_RHO1, zw, axis=1)
    Ib = np.trapezoid(A2 * (np.sin(g * D)[:, None] * np.exp(-de[:, None] * (zb - D))) ** 2 / tp.P237_NM_RHO2, zb, axis=1)
    assert np.allclose(Iw + Ib, 1, rtol=1e-3)
    a = tp._p237_modes()["alpha"] * 8686                                     # dB/km: higher modes lose more to the bed
    assert a[0] < 0.1 and a[-1] > 5 and (np.diff(a[:-1]) > 0).mean() > 0.9
