"""probe-unseen231's kernels (kernels_cuda/probes233.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/litho-socs-aerial-smem-const-kernels", "probe/litho-abbe-pupil-zernike-sincos",
       "probe/litho-resist-peb-mack-column-u16", "probe/litho-opc-epe-bilinear-shfl-f64",
       "probe/litho-mrc-spacing-bins-int-structs", "probe/litho-focus-hist-smem-atomics-f64"]

F32 = np.float32


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen231"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes233.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- references ----

def _socs_ref(mask, nx, ny, t_bg, t_ft, c, lam):
    """socs_aerial_image in float64: (the image, the error scale sum_k lam_k (sum |t h|)^2)."""
    R = tp.P233_SOCS_R
    dt = float(F32((F32(t_ft) - F32(t_bg)) / F32(255)))
    t = float(F32(t_bg)) + dt * np.asarray(mask, np.float64).reshape(ny, nx)
    h = np.asarray(c["x"], np.float64) + 1j * np.asarray(c["y"], np.float64)
    img = np.zeros((ny, nx))
    mag = np.zeros((ny, nx))
    for k in range(len(lam)):
        e = np.zeros((ny, nx), np.complex128)
        a = np.zeros((ny, nx))
        for dy in range(2 * R + 1):
            for dx in range(2 * R + 1):
                s = np.roll(t, (R - dy, R - dx), axis=(0, 1))            # s[y, x] = t[y + dy - R, x + dx - R]
                e += s * h[k, dy, dx]
                a += np.abs(s) * abs(h[k, dy, dx])
        img += float(lam[k]) * np.abs(e) ** 2
        mag += float(lam[k]) * a * a
    return img, mag


def _abbe_ref(mspec, n, df, na_l, na, n_imm, lam, z, src, zern):
    """abbe_pupil_spectra in float64 from the float32 arguments: (out (ns, n^2) complex, |out|'s
    scale, the points within 1e-5 of the NA's edge (either side is right))."""
    M = mspec[:, 0].astype(np.float64) + 1j * mspec[:, 1]
    k = np.arange(n)
    k = np.where(k >= n // 2, k - n, k).astype(np.float64)
    ns = int(np.count_nonzero(src["w"]))
    out = np.zeros((ns, n * n), np.complex128)
    edge = np.zeros((ns, n * n), bool)
    zz = np.asarray(zern, np.float64)
    for s in range(ns):
        px = (k[None, :] * float(df) / float(na_l) + float(src["sx"][s])) * np.ones((n, 1))
        py = (k[:, None] * float(df) / float(na_l) + float(src["sy"][s])) * np.ones((1, n))
        r2 = px * px + py * py
        W = (zz[3] * (2 * r2 - 1) + zz[4] * (px * px - py * py) + zz[5] * 2 * px * py + zz[6] * (3 * r2 - 2) * px
             + zz[7] * (3 * r2 - 2) * py + zz[8] * (6 * r2 * r2 - 6 * r2 + 1))
        cq = np.sqrt(np.maximum(1 - r2 * (float(na) / float(n_imm)) ** 2, 0))
        ph = 2 * np.pi * (W + float(z) * float(n_imm) / float(lam) * (cq - 1))
        amp = np.sqrt(float(src["w"][s])) * np.where(r2 <= 1, cq, 1) ** -0.25
        out[s] = np.where(r2 <= 1, amp * np.exp(1j * ph), 0).ravel() * M
        edge[s] = (np.abs(r2 - 1) < 1e-5).ravel()
    scale = np.sqrt(src["w"][:ns].astype(np.float64))[:, None] * 1.2 * np.abs(M)[None, :]
    return out, scale, edge


def _peb_ref(acid, nx, ny, kt, rmax, rmin, nm, a, g):
    """resist_peb_develop in float64: the rates (nm/s), unrounded."""
    A = np.asarray(acid, np.float64).reshape(ny, nx)
    R = len(g) // 2
    b = np.zeros((ny, nx))
    for k in range(-R, R + 1):
        b += float(g[k + R]) * A[np.clip(np.arange(ny) + k, 0, ny - 1)]
    m = np.exp(-float(kt) * b)
    q = (1 - m) ** float(nm)
    return float(rmax) * (float(a) + 1) * q / (float(a) + q) + float(rmin)


def _epe_ref(img, n, pix, fr, thr, bmax, gain):
    """opc_epe_update in float64 (the sites and steps from float32): (epe, new bias, lost)."""
    half, ns = 40.0, 81
    img = np.asarray(img).reshape(-1, n, n)
    x = fr["x"].astype(np.float64)
    y = fr["y"].astype(np.float64)
    nx_, ny_ = fr["nx"].astype(np.float64), fr["ny"].astype(np.float64)
    t = -half + np.arange(ns)
    prof = np.zeros((len(fr), ns))
    for c in np.unique(fr["clip"]):
        sel = fr["clip"] == c
        px = (x[sel, None] + t[None, :] * nx_[sel, None]).astype(F32)
        py = (y[sel, None] + t[None, :] * ny_[sel, None]).astype(F32)
        prof[sel] = tp._p233_bilinear(img[c], n, float(F32(pix)), px, py)
    thr = float(F32(thr))
    a, b = prof[:, :-1] - thr, prof[:, 1:] - thr
    hit = (a * b <= 0) & (prof[:, :-1] != prof[:, 1:])
    with np.errstate(divide="ignore", invalid="ignore"):
        tc = t[None, :-1] + a / (a - b)
    tc = np.where(hit, tc, np.inf)
    best = tc[np.arange(len(fr)), np.argmin(np.abs(tc), axis=1)]
    lost = ~np.isfinite(best)
    mid = np.zeros(len(fr))
    for c in np.unique(fr["clip"]):
        sel = fr["clip"] == c
        mid[sel] = tp._p233_bilinear(img[c], n, float(F32(pix)), x[sel], y[sel])
    e = np.where(lost, np.where(mid > thr, half, -half), best)
    nb = np.clip(fr["bias"].astype(np.float64) - np.asarray(gain, np.float64)[fr["kind"]] * e, -bmax, bmax)
    return e, nb, lost


def _mrc_ref(r, wmin, smin):
    """mrc_spacing_check by brute force over every pair: the sorted violations (a, b, kind, d2)."""
    x0, y0, x1, y1, poly = (r[k].astype(np.int64) for k in ("x0", "y0", "x1", "y1", "poly"))
    out = []
    w = y1 - y0
    for i in np.nonzero(w < wmin)[0]:
        out.append((i, -1, 0, w[i] * w[i]))
    for i in range(len(r)):
        j = np.arange(i + 1, len(r))
        j = j[poly[j] != poly[i]]
        dx = np.maximum(0, np.maximum(x0[j] - x1[i], x0[i] - x1[j]))
        dy = np.maximum(0, np.maximum(y0[j] - y1[i], y0[i] - y1[j]))
        d2 = dx * dx + dy * dy
        short = (dx == 0) & (dy == 0)
        close = ~short & (d2 < smin * smin)
        out += [(i, jj, 2, dd) for jj, dd in zip(j[short], d2[short])]
        out += [(i, jj, 1, dd) for jj, dd in zip(j[close], d2[close])]
    return sorted(out)


def _hm_ref(img, npix, inv_bin, nb=256):
    """image_hist_moments: (hist (planes, nb), sums (planes, 2) float64, min, max)."""
    a = np.asarray(img, F32).reshape(-1, npix)
    b = np.minimum((a * F32(inv_bin)).astype(np.int64), nb - 1)
    hist = np.stack([np.bincount(row, minlength=nb) for row in b])
    d = a.astype(np.float64)
    return hist, np.stack([d.sum(1), (d * d).sum(1)], 1), a.min(1), a.max(1)


# ---- the generators ----

def test_generators():
    rng = np.random.default_rng(0)
    # the layout: tracks of 96 nm, wires >= 120 nm, gaps >= 64 nm, OPC'd: hammerheads, extensions
    wd = tp._p233_wires(16384, 16384, rng)
    assert (wd["x1"] - wd["x0"] >= 120).all() and (wd["gl"] >= 64).all() and (wd["gr"] >= 64).all()
    assert np.allclose((wd["y0"] - 24) % 96, 0) and (wd["y1"] - wd["y0"] == 48).all()
    op = tp._p233_opc(wd, rng)
    assert (op["rx1"][op["end"]] - op["rx0"][op["end"]]).min() >= 32 - 1e-9
    hw = op["ry1"] - op["ry0"]
    assert hw[op["end"]].mean() > hw[~op["end"]].mean() + 5                            # hammerheads
    rule = np.clip(0.5 * (wd["gl"] - 48), 4, 18)                                       # extensions: half the gap
    assert np.abs(op["el"] - rule).max() < 5 and abs((op["el"] - rule).std() - 1) < 0.1 and (rule < 18).mean() > 0.1
    # the raster: exact areas
    cov = tp._p233_raster(op["rx0"], op["ry0"], op["rx1"], op["ry1"], 1024, 1024, 16.0)
    area = ((op["rx1"] - op["rx0"]) * (op["ry1"] - op["ry0"])).sum()
    assert np.isclose(cov.sum() * 256, area, rtol=1e-9) and 0.25 < cov.mean() < 0.4
    # the aerial image: the open frame 1, the att-PSM's 6%, dense trenches print at ~0.2
    assert np.allclose(tp._p233_aerial(np.ones((2, 32, 32)), 16.0), 1, atol=1e-5)
    assert np.allclose(tp._p233_aerial(np.zeros((32, 32)), 16.0, sub=2, z=60.0), 0.06, atol=1e-5)
    I = tp._p233_aerial(cov[:512, :512], 16.0)
    assert 0.3 < I.max() < 0.7 and np.median(I) < 0.15
    # the SOCS kernels: 5 leading eigenpairs (a degenerate pair kept whole), 83% of the TCC
    h, lam, share = tp._p233_socs()
    assert 0.78 < share < 0.86 and np.isclose(lam[1], lam[2], rtol=1e-3) and np.isclose(lam[3], lam[4], rtol=1e-2)
    assert np.isclose((lam * np.abs(h.sum(axis=(1, 2))) ** 2).sum(), 1)
    # the MRC's bins: sorted, and no rectangle within smin of another reaches past the 3 x 3 bins
    r, start, nbx, nby = tp._p233_mrc_rects(8192, 8192, rng)
    ext = max((r["x1"] - r["x0"]).max(), (r["y1"] - r["y0"]).max())
    assert ext + tp.P233_MRC_SMIN <= tp.P233_MRC_BIN and (r["x0"] >= 0).all() and (r["y0"] >= 0).all()
    key = (r["y0"] // tp.P233_MRC_BIN) * nbx + r["x0"] // tp.P233_MRC_BIN
    assert (np.diff(key) >= 0).all() and start[-1] == len(r) and (np.diff(start) >= 0).all()
    # the fragments: run sides, line ends, end slots' sides; unit normals along the axes
    fr, dense = tp._p233_fragments(wd, op, 3)
    assert len(fr) == 2 * len(op["wid"]) + 2 * len(wd["x0"]) and (fr["clip"] == 3).all()
    assert ((fr["nx"] == 0) ^ (fr["ny"] == 0)).all() and (np.abs(fr["nx"]) + np.abs(fr["ny"]) == 1).all()
    assert ((fr["kind"] == 1) == (fr["nx"] != 0)).all() and 0.7 < (fr["kind"] == 0).mean() < 0.9 and dense.mean() > 0.4
    # the bake's taps and Mack's a
    g = tp._p233_peb_taps()
    assert np.isclose(g.sum(), 1, atol=1e-6) and g[6] == g.max()
    assert np.isclose(tp._p233_mack()[3], 13 / 11 * 0.5 ** 12)


# ---- litho-socs-aerial-smem-const-kernels ----

def _check_socs(mask, nx, ny, t_bg=tp.P233_T_BG, t_ft=tp.P233_T_FT):
    sym = tp._p233_socs_symbols()
    host = [np.asarray(mask, np.uint8).ravel(), np.int32(nx), np.int32(ny), F32(t_bg), F32(t_ft),
            np.zeros(nx * ny, F32)]
    out = run("probe/litho-socs-aerial-smem-const-kernels", host, nx, symbols=sym, grid=(nx // 16, ny // 16))
    ref, mag = _socs_ref(host[0], nx, ny, t_bg, t_ft, sym["c_socs"], sym["c_socs_lam"])
    img = out[5].reshape(ny, nx)
    # float32 sums of 289 products a kernel: ~1e-6 of (sum |t h|)^2, with room
    assert (np.abs(img - ref) <= 1e-5 * mag).all()
    return img


def test_socs():
    rng = np.random.default_rng(1)
    host = tp._p233_socs_args(128, rng)                                # 128 x 64 pixels of 16 nm
    img = _check_socs(host[0], 128, 64)
    assert 0.2 < img.max() < 0.6 and img.min() < 0.05 and (host[0] == 0).any() and (host[0] == 255).any()


def test_socs_cases():
    # the open frame is 1 (the eigenvalues' scaling), the att-PSM's background 6%
    img = _check_socs(np.full((32, 64), 255), 64, 32)
    assert np.allclose(img, 1, rtol=2e-5)
    img = _check_socs(np.zeros((16, 16)), 16, 16)                      # a single tile: its halo wraps onto itself
    assert np.allclose(img, 0.06, rtol=2e-5)
    # one clear pixel by the corner (wrapped halo), half-covered pixels, a 3-pixel trench
    m = np.zeros((32, 32), np.uint8)
    m[0, 31] = 255
    m[10:13, 4:28] = 255
    m[13, 4:28] = 128
    img = _check_socs(m, 32, 32)
    assert img[11, 16] > 3 * img[25, 16]


# ---- litho-abbe-pupil-zernike-sincos ----

def _check_abbe(mspec, n, z=tp.P233_AB_Z, pix=tp.P233_AB_PIX, zern=None):
    sym = tp._p233_src_symbols()
    if zern is not None:
        sym["c_zern"] = np.asarray(zern, F32)
    ns = int(np.count_nonzero(sym["c_src"]["w"]))
    host = [np.asarray(mspec, F32).reshape(-1, 2), np.int32(n), F32(1.0 / (n * pix)),
            F32(tp.P233_NA / tp.P233_LAMBDA), F32(tp.P233_NA), F32(tp.P233_NIMM), F32(tp.P233_LAMBDA), F32(z),
            np.zeros((ns * n * n, 2), F32)]
    out = run("probe/litho-abbe-pupil-zernike-sincos", host, n, symbols=sym, grid=(n * n // 256, ns))
    ref, scale, edge = _abbe_ref(host[0], n, *host[2:8], sym["c_src"], sym["c_zern"])
    got = (out[8][:, 0] + 1j * out[8][:, 1]).reshape(ns, n * n)
    # float32: the phase's argument (< 1 rad) to ~1e-6, sincosf, sqrtf: 1e-5 of the amplitude; the
    # points within 1e-5 of the NA's edge (float32 r^2 may fall either side) may be 0 or the value
    ok = np.abs(got - ref) <= 1e-5 * scale + 1e-12
    ok |= edge & ((got == 0) | (np.abs(got - ref) <= 1e-5 * scale + 1e-12))
    assert ok.all()
    return got, ref


def test_abbe():
    rng = np.random.default_rng(2)
    M, cov = tp._p233_ab_spectrum(64, rng)                            # 64 x 64 pixels of 16 nm
    got, ref = _check_abbe(np.stack([M.real, M.imag], -1), 64)
    inside = np.abs(ref) > 0
    assert 0.02 < inside.mean() < 0.08 and (got[~inside] == 0).all()


def test_abbe_cases():
    n = 32
    # the DC term alone, in focus, no aberrations: sqrt(w) cos^-1/4 of the source point's angle, real
    M = np.zeros((n * n, 2), F32)
    M[0] = [1.0, 0.0]
    got, ref = _check_abbe(M, n, z=0.0, zern=np.zeros(9))
    sx, sy, w = tp._p233_source()
    cq = np.sqrt(1 - (sx * sx + sy * sy) * (tp.P233_NA / tp.P233_NIMM) ** 2)
    assert np.allclose(got[:, 0].real, np.sqrt(w) * cq ** -0.25, rtol=1e-5) and np.abs(got[:, 0].imag).max() < 1e-6
    assert (got[:, 1:] == 0).all()
    # a uniform spectrum with the aberrations and 100 nm of defocus: the phases vary, |.| does not
    got, ref = _check_abbe(np.tile(np.array([[0.6, -0.8]], F32), (n * n, 1)), n, z=100.0)
    live = np.abs(ref) > 0
    assert np.ptp(np.angle(ref[live])) > 2 and live[0, 0]


# ---- litho-resist-peb-mack-column-u16 ----

def _check_peb(acid, nx, ny, grid, kt=tp.P233_PEB_KT):
    rmax, rmin, nm, a = tp._p233_mack()
    g = tp._p233_peb_taps()
    host = [np.asarray(acid, F32).ravel(), np.int32(nx), np.int32(ny), F32(kt), F32(rmax), F32(rmin), F32(nm), F32(a),
            np.zeros(nx * ny, np.uint16)]
    out = run("probe/litho-resist-peb-mack-column-u16", host, nx, symbols={"c_peb": g}, grid=(grid,))
    r = _peb_ref(host[0], nx, ny, kt, F32(rmax), F32(rmin), F32(nm), F32(a), g)
    q = np.floor(r * 100 + 0.5).ravel()
    d = np.abs(out[8].astype(np.int64) - q)
    # float32 expf / powf: ~1e-6 of a rate under 101 nm/s, ~1e-4 of a unit: only a rate within
    # that of a half unit rounds the other way
    assert d.max() <= 1 and (d > 0).mean() < 1e-3
    return out[8].reshape(ny, nx), r


def test_peb():
    rng = np.random.default_rng(3)
    acid, I = tp._p233_peb_acid(128, 64, rng)                          # 128 x 64 pixels of 8 nm
    rate, r = _check_peb(acid, 128, 64, 8)                               # 8 blocks: 4 trips
    assert rate.max() > 5000 and rate.min() <= 11 and (rate > 5000).mean() > 0.01 and (rate < 100).mean() > 0.5


def test_peb_cases():
    ny, nx = 32, 8
    acid = np.full((ny, nx), 0.277, F32)                                 # m = m_th
    acid[0, 3] = 1.0                                                     # clamped at the top: weighs 7 taps' worth
    acid[ny - 1, 5] = 0.0
    acid[:, 7] = np.linspace(0, 0.6, ny)
    rate, r = _check_peb(acid, nx, ny, 1)
    g = tp._p233_peb_taps().astype(np.float64)
    assert rate[0, 3] > rate[1, 3] > rate[2, 3] > rate[0, 2]                # the clamped top row sees it most
    assert np.isclose(r[0, 3], _peb_ref(np.full((1, 1), 0.277 + 0.723 * g[:7].sum(), F32), 1, 1, tp.P233_PEB_KT,
                                        *tp._p233_mack(), g)[0, 0], rtol=1e-6)
    assert (np.diff(rate[:, 7].astype(int)) >= 0).all()                 # more acid, faster
    rmax, rmin, nm, a = tp._p233_mack()
    q = np.exp(-tp.P233_PEB_KT * 0.277)
    q = (1 - q) ** nm
    assert abs(int(rate[10, 0]) - 100 * (rmax * (a + 1) * q / (a + q) + rmin)) <= 1      # Mack's rate by hand
    _check_peb(acid[:16, :4], 4, 16, 3)                                  # more threads than pixels


# ---- litho-opc-epe-bilinear-shfl-f64 ----

def _check_epe(img, n, fr, thr, grid, pix=tp.P233_EPE_PIX, bmax=tp.P233_EPE_BMAX):
    host = [np.asarray(img, F32).ravel(), np.int32(n), F32(pix), fr.copy(), np.int32(len(fr)), F32(thr), F32(bmax),
            np.zeros(len(fr), F32), np.zeros(1), np.zeros(1, np.int32), np.zeros(1, np.int32)]
    out = run("probe/litho-opc-epe-bilinear-shfl-f64", host, 1, symbols=tp._p233_gain_symbols(), grid=(grid,))
    e, nb, lost = _epe_ref(img, n, pix, fr, thr, bmax, tp.P233_EPE_GAIN)
    # float32 sites and samples: the crossing to ~1e-4 nm (a pixel's 1e-5 over slopes of ~0.01 / nm)
    assert np.abs(out[7] - e).max() <= 2e-3
    assert np.abs(out[3]["bias"] - nb).max() <= 2e-3
    assert out[10][0] == lost.sum()
    assert abs(out[9][0] - int(np.abs(e).max() * 100 + 0.5)) <= 1
    assert np.isclose(out[8][0], (e * e).sum(), rtol=1e-5, atol=1e-4)
    for k in ("x", "y", "clip", "kind", "nx", "ny"):
        assert (out[3][k] == fr[k]).all()
    return out, e, lost


def test_epe():
    rng = np.random.default_rng(4)
    imgs, fr, thr = tp._p233_epe_state(2, rng)                          # 2 clips of 4.1 um, ~9000 fragments
    out, e, lost = _check_epe(imgs, 512, fr, thr, 24)                    # 24 blocks: 3 trips, the last partial
    assert 0.15 < thr < 0.25 and 0 < lost.mean() < 0.1
    assert np.abs(np.median(e[fr["kind"] == 0])) < 3 and (np.abs(e) < 40).mean() > 0.9


def test_epe_cases():
    n, pix = 64, 8.0
    x = np.arange(n) * pix
    ramp = np.tile((0.5 - x / 1000.0)[None, :], (n, 1))                 # I = thr at x = 300 nm
    img = np.stack([ramp, np.full((n, n), 0.4), np.full((n, n), 0.02), ramp.T])
    fr = np.zeros(37, tp.P233_FRAGMENT)
    fr["x"], fr["y"], fr["nx"], fr["kind"], fr["clip"] = 290.5, 100.0, 1, 0, 0          # crossing 9.5 nm out
    fr["x"][1], fr["nx"][1], fr["kind"][1] = 310.25, -1, 1                                # facing -x: 10.25 nm
    fr["clip"][2], fr["clip"][3] = 1, 2                                                   # bright: +40, dark: -40
    fr["clip"][4], fr["x"][4], fr["y"][4], fr["nx"][4], fr["ny"][4] = 3, 100.0, 280.0, 0, 1  # along y
    fr["x"][5], fr["nx"][5] = 1.0, -1                                                     # clamped at the clip's edge
    fr["bias"][6], fr["kind"][6] = 24.0, 2                                                # clamped to +-25
    fr["x"][6] = 330.0                                                                    # 30 nm short: 24 + 12
    out, e, lost = _check_epe(img, n, fr, 0.2, 1)
    assert np.isclose(e[0], 9.5, atol=1e-3) and np.isclose(e[1], 10.25, atol=1e-3)    # bright inside, either way
    assert e[2] == 40 and e[3] == -40 and list(lost[:4]) == [False, False, True, True]
    assert np.isclose(e[4], 20.0, atol=1e-3) and out[3]["bias"][6] == 25.0


# ---- litho-mrc-spacing-bins-int-structs ----

def _check_mrc(r, start, nbx, nby, grid, cap=tp.P233_MRC_CAP):
    host = [r, np.int32(len(r)), np.asarray(start, np.int32), np.int32(nbx), np.int32(nby), np.int32(tp.P233_MRC_BIN),
            np.int32(tp.P233_MRC_WMIN), np.int32(tp.P233_MRC_SMIN), np.zeros(cap, tp.P233_VIOL), np.int32(cap),
            np.zeros(4, np.int32)]
    out = run("probe/litho-mrc-spacing-bins-int-structs", host, 1, grid=(grid,))
    ref = _mrc_ref(r, tp.P233_MRC_WMIN, tp.P233_MRC_SMIN)
    cnt = out[10]
    assert cnt[0] == len(ref) and list(cnt[1:]) == [sum(v[2] == k for v in ref) for k in range(3)]
    got = sorted(tuple(int(a) for a in v) for v in out[8][:min(cap, cnt[0])].tolist())
    if cnt[0] <= cap:
        assert got == [tuple(int(a) for a in v) for v in ref]
    else:
        assert set(got) <= {tuple(int(a) for a in v) for v in ref} and len(set(got)) == cap
    return out, ref


def test_mrc():
    rng = np.random.default_rng(5)
    r, start, nbx, nby = tp._p233_mrc_rects(3072, 3072, rng)             # ~1100 rectangles, 12 x 12 bins
    out, ref = _check_mrc(r, start, nbx, nby, 3)                         # 3 blocks: 3 trips
    assert len(r) > 900 and 5 < out[10][2] < 60


def _rects(rows):
    r = np.zeros(len(rows), tp.P233_RECT)
    for k, name in enumerate(("x0", "y0", "x1", "y1", "poly")):
        r[name] = [row[k] for row in rows]
    b = tp.P233_MRC_BIN
    nbx = nby = 4
    key = (r["y0"] // b) * nbx + r["x0"] // b
    o = np.argsort(key, kind="stable")
    return r[o], np.searchsorted(key[o], np.arange(nbx * nby + 1)), nbx, nby


def test_mrc_cases():
    rows = [(10, 10, 200, 58, 0), (200, 10, 240, 58, 0),            # one polygon, abutting: nothing
            (270, 10, 400, 58, 1),                                   # 30 nm tip-to-tip from it: space
            (240, 58, 300, 110, 2),                                  # touching the corner of 0's 2nd: short
            (100, 130, 250, 172, 3),                                 # 42 nm tall: width; 20 / 72 nm away
            (500, 300, 520, 350, 4), (540, 380, 560, 430, 5),        # corner to corner 20^2 + 30^2 < 40^2
            (700, 300, 720, 350, 6), (750, 380, 770, 430, 7),        # 30^2 + 30^2 > 40^2: clean
            (1000, 240, 1100, 288, 8), (1000, 320, 1100, 368, 9)]    # 32 nm apart across a bin's edge
    r, start, nbx, nby = _rects(rows)
    out, ref = _check_mrc(r, start, nbx, nby, 1)
    kinds = [v[2] for v in ref]
    assert kinds.count(0) == 1 and kinds.count(1) == 4 and kinds.count(2) == 2       # poly 2 touches 0 and 1
    assert sorted(v[3] for v in ref if v[2] == 1) == [400, 900, 1024, 1300]
    out, ref = _check_mrc(r, start, nbx, nby, 1, cap=3)                 # the list full: counted, not written


# ---- litho-focus-hist-smem-atomics-f64 ----

def _check_hm(st, grid):
    st = np.asarray(st, F32)
    npl, npix = st.shape[0], st[0].size
    host = [st.ravel(), np.int32(npix), F32(tp.P233_HM_INV), np.zeros(npl * 256, np.int32), np.zeros(2 * npl),
            np.full(npl, 0x7F7FFFFF, np.int32), np.zeros(npl, np.int32)]
    out = run("probe/litho-focus-hist-smem-atomics-f64", host, 1, grid=(grid, npl))
    hist, mom, mn, mx = _hm_ref(st, npix, tp.P233_HM_INV)
    assert (out[3].reshape(npl, 256) == hist).all()
    # double sums of float32 values in another order: a few ulps of the sum
    assert np.allclose(out[4].reshape(npl, 2), mom, rtol=1e-13, atol=0)
    assert (out[5].view(F32) == mn).all() and (out[6].view(F32) == mx).all()
    return out, hist


def test_hist():
    rng = np.random.default_rng(6)
    st = tp._p233_hm_stack(256, rng)                                     # 8 planes of 256 x 256 (2 um)
    out, hist = _check_hm(st, 4)                                         # 4 blocks a plane: 64 trips
    m = out[4].reshape(8, 2)[:, 0] / 65536
    assert np.allclose(m, m[0], rtol=1e-4)                               # defocus moves light, keeps it
    peak = st.reshape(8, -1).max(1)
    assert peak[3] > peak[0] and peak[4] > peak[7]                       # sharpest near focus


def test_hist_cases():
    a = np.zeros((2, 40, 20), F32)
    a[0, :, :] = 0.03                                                    # every lane on one bin
    a[1, :20] = np.linspace(0, 0.7, 400).reshape(20, 20)                 # past 0.5: the last bin
    a[1, 30, 7] = 1 / 512                                                # exactly on a bin's edge
    out, hist = _check_hm(a, 1)
    assert hist[0, 15] == 800 and hist[1, 255] > 100 and hist[1, 1] >= 1
    _check_hm(a, 5)                                                      # more threads than pixels
