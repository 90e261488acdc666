"""probe-unseen234's kernels (kernels_cuda/probes236.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/ptycho-dm-reflect-float4-scanpos", "probe/ptycho-fft256-rows-smem-brev-sincos",
       "probe/ptycho-fourier-modulus-u16-ballot", "probe/ptycho-epie-object-atomics",
       "probe/ptycho-dm-probe-update-const-f64", "probe/ptycho-frc-rings-smem-hist"]

F32 = np.float32
EPS = 2.0 ** -24                 # float32's unit roundoff
N, W = 64, 256                   # the tests' crop and object (the full size: 256, 2048)


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen234"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes236.cu" and len(tp.get(i).note) > 400 for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _c(a):
    """float32 pairs -> complex128."""
    a = np.asarray(a, np.float64).reshape(-1, 2)
    return a[:, 0] + 1j * a[:, 1]


def _pairs(z):
    """complex -> float32 pairs (size, 2); float pairs pass through."""
    if not np.iscomplexobj(z):
        return np.ascontiguousarray(np.asarray(z, F32).reshape(-1, 2))
    return np.ascontiguousarray(np.stack([np.real(z), np.imag(z)], -1).astype(F32).reshape(-1, 2))


# ---- the data ----

def test_beam_and_scan():
    P = tp._p236_probe(256)
    a = np.abs(P) ** 2
    assert np.isclose(a.sum(), tp.P236_FLUX)
    yy, xx = np.indices(a.shape) - 128
    r = np.hypot(yy, xx)
    assert a[r < 40].sum() > 0.85 * a.sum() and a[r < 20].sum() < 0.4 * a.sum()    # 3.2 um across, a doughnut
    far = np.abs(np.fft.fftshift(np.fft.fft2(P))) ** 2                               # the zone plate's cone
    assert far[(r > 36 + 1) | (r < 14.4 - 1)].sum() < 1e-12 * far.sum()
    assert np.isclose(tp.P236_DX, 40.4e-9, rtol=1e-3)
    scan = tp._p236_scan(2048, 256)
    assert (scan == tp._p236_scan(2048, 256)).all() and 3500 < len(scan) < 3900     # the scan file: fixed
    assert scan.min() >= 0 and scan.max() <= 2048 - 256
    s = scan[:600].astype(np.float64)
    d = np.sqrt(((s[:, None] - s[None]) ** 2).sum(-1)) + 1e9 * np.eye(len(s))
    assert 26 < np.median(d.min(1)) < 30                                              # 1.1 um steps: ~65% overlap
    m = tp._p236_mask(256, np.random.default_rng(0))
    assert 0.97 < m.mean() < 0.98 and (m[179] == 0).all() and (m[:, 110] == 0).all()


def test_sample_and_frames():
    rng = np.random.default_rng(1)
    t = tp._p236_thickness(512, rng)
    assert 0.15 < (t > 0).mean() < 0.25 and t.max() > 2 * tp.P236_R_MAX              # clusters overlap
    s = tp._p236_state(8, rng, 256, 512)
    O = s["O"]
    mem = -2 * np.pi / tp.P236_LAM * tp.P236_SIN[0] * tp.P236_SIN[2]                  # the bare membrane's phase
    assert np.isclose(np.median(np.angle(O)), mem) and np.abs(O).max() <= 1 and np.abs(O).min() > 0.6
    assert (s["xy"] == tp._p236_scan(512, 256)[:8]).all()
    I = s["I"].astype(np.float64)
    win = tp._p236_windows(O, s["xy"], 256)
    expect = (np.abs(s["P"] * win) ** 2).sum((1, 2))                                   # Parseval: the photons a frame
    assert np.allclose(I.sum((1, 2)), expect, rtol=0.1)
    assert (s["I"] == tp.P236_SAT).mean() < 1e-3 and np.median(I) < 10 and I.max() > 2e4
    # psi_new has the measured modulus where it is measured, psi_old's phase
    F = np.fft.fft2(s["psi_new"].astype(np.complex128))
    Iu = np.fft.ifftshift(I, axes=(-2, -1))
    ok = np.fft.ifftshift(s["mask"]).astype(bool)[None] & (Iu < tp.P236_SAT)
    assert np.allclose(np.abs(F)[ok], 256 * np.sqrt(Iu[ok]), rtol=1e-3, atol=1e-2 * 256)
    assert 0.01 < np.linalg.norm(s["psi_new"] - s["psi_old"]) / np.linalg.norm(s["psi_old"]) < 0.2
    # the FRC fields: near 1 at low frequencies, falling through 1/7 before Nyquist
    _, F1, F2 = tp._p236_frc_fields(256, rng)
    ring, num, d1, d2 = _frc_ref(_pairs(F1.ravel()), _pairs(F2.ravel()), 256, 128)
    frc = num / np.sqrt(d1 * d2)
    assert frc[1:10].min() > 0.8 and frc[-10:].max() < 0.2 and 20 < np.argmax(frc < 1 / 7) < 100


# ---- dm_reflect_exit ----

def _check_dm(psi, P, O, xy, n, w, beta, nframes):
    host = [_pairs(psi), _pairs(P), _pairs(O), tp._p236_scanpos(np.asarray(xy, np.int32)), np.int32(n),
            np.int32(w), F32(beta), np.zeros((nframes * n * n, 2), F32)]
    out = run("probe/ptycho-dm-reflect-float4-scanpos", host, nframes, grid=tp._p236_dm_grid(nframes, n))
    Pc, Oc = _c(host[1]).reshape(n, n), _c(host[2]).reshape(w, w)
    win = tp._p236_windows(Oc, np.asarray(xy), n)
    po = Pc * win
    s = _c(host[0]).reshape(-1, n, n)
    b = float(F32(beta))
    want = (1 + b) * po - b * s
    # a complex product and two fmas in float32: a few units of roundoff of the terms
    tol = 8 * EPS * ((1 + abs(b)) * np.abs(Pc)[None] * np.abs(win) + abs(b) * np.abs(s))
    got = _c(out[7]).reshape(-1, n, n)
    assert (np.abs(got.real - want.real) <= tol + 1e-30).all() and (np.abs(got.imag - want.imag) <= tol + 1e-30).all()
    return got, want


def test_dm_reflect():
    rng = np.random.default_rng(2)
    host = tp._p236_dm_args(5, rng, N, W)
    xy = np.stack([host[3]["x"], host[3]["y"]], -1)
    assert (xy % 2 == 1).any()                                   # odd offsets: the object rows misaligned
    _check_dm(_c(host[0]), _c(host[1]), _c(host[2]), xy, N, W, tp.P236_DM_BETA, 5)


def test_dm_reflect_cases():
    rng = np.random.default_rng(3)
    n, w = 16, 40
    psi = rng.standard_normal(3 * n * n) + 1j * rng.standard_normal(3 * n * n)
    P = rng.standard_normal(n * n) + 1j * rng.standard_normal(n * n)
    O = np.exp(1j * rng.uniform(-np.pi, np.pi, w * w))
    xy = np.array([[0, 0], [w - n, w - n], [7, 3]])               # the object's corners, an odd offset
    got, want = _check_dm(psi, P, O, xy, n, w, 0.7, 3)
    _, po = _check_dm(psi, P, O, xy, n, w, 0.0, 3)                # beta = 0: the object's projection, P O
    assert np.allclose(po[2], P.reshape(n, n) * O.reshape(w, w)[3:3 + n, 7:7 + n])


# ---- fft_rows_smem<8> ----

def _check_fft(rows, inverse, nrun):
    host = [_pairs(rows.ravel()), np.int32(inverse)]
    out = run("probe/ptycho-fft256-rows-smem-brev-sincos", host, 1, grid=(nrun,))
    x = _c(host[0]).reshape(-1, 256)
    got = _c(out[0]).reshape(-1, 256)
    want = (np.fft.ifft if inverse else np.fft.fft)(x[:nrun], axis=1)
    # a radix-2 FFT in float32: each of the log2(N) = 8 stages adds a few roundoffs of its
    # values, a coefficient's error within ~eps log2(N) ||x||_2 (the twiddles by sincosf to
    # an ulp); the inverse scaled by 1 / N (exactly: a power of two)
    nrm = np.linalg.norm(x[:nrun], axis=1, keepdims=True) / (256 if inverse else 1)
    assert (np.abs(got[:nrun] - want) <= 4 * EPS * 8 * nrm + 1e-30).all()
    assert (got[nrun:] == x[nrun:]).all()                        # the other rows untouched
    return got


def test_fft_rows():
    rng = np.random.default_rng(4)
    host = tp._p236_fft_args(1, rng, W=384)                     # a frame's DM reflector, 256 rows
    x = _c(host[0]).reshape(256, 256)
    assert np.abs(x).max() > 50 and (np.abs(x[0]) > 0).all()
    _check_fft(x[96:128], 0, 32)                                # rows through the probe
    _check_fft(x[100:104], 1, 3)


def test_fft_cases():
    rng = np.random.default_rng(5)
    k = np.arange(256)
    rows = np.zeros((4, 256), complex)
    rows[0, 0] = 1.0                                            # an impulse: all ones
    rows[1] = np.exp(2j * np.pi * 5 * k / 256)                  # a tone: bin 5
    rows[2] = rng.standard_normal(256) + 1j * rng.standard_normal(256)
    rows[3] = 1.0
    got = _check_fft(rows, 0, 4)
    assert (got[0] == 1).all() and abs(got[1, 5] - 256) < 1e-3 and np.abs(np.delete(got[1], 5)).max() < 1e-3
    assert got[3, 0] == 256 and (got[3, 1:] == 0).all()
    back = _check_fft(np.fft.fft(rows[2])[None], 1, 1)           # and back
    assert np.allclose(back[0], rows[2], atol=1e-5)


# ---- fourier_modulus_project ----

def _check_fm(Psi, I, mask, n, nframes, grid):
    host = [_pairs(Psi.ravel()), np.asarray(I, np.uint16).ravel(), np.asarray(mask, np.uint8).ravel(),
            np.int32(n), np.int32(nframes), F32(n), np.zeros(1), np.zeros(1, np.int32)]
    out = run("probe/ptycho-fourier-modulus-u16-ballot", host, nframes, grid=(grid,))
    v = _c(host[0]).reshape(nframes, n, n)
    Iu = np.fft.ifftshift(host[1].reshape(nframes, n, n), axes=(-2, -1))
    mu = np.fft.ifftshift(host[2].reshape(n, n)).astype(bool)[None]
    ok = mu & (Iu < tp.P236_SAT)
    amp = np.abs(v)
    meas = F32(n) * np.sqrt(Iu.astype(np.float64))
    want = np.where(ok, v * meas / np.maximum(amp, 1e-300), v)
    got = _c(out[0]).reshape(nframes, n, n)
    # |Psi|, sqrt(I), the ratio and the two products each to a few units of roundoff
    tol = 8 * EPS * np.maximum(meas, amp)
    assert (np.abs(got - want) <= tol + 1e-30).all()
    assert (got[~ok] == v[~ok]).all()                            # the gaps and saturated pixels: free
    e = ((amp - meas) ** 2)[ok]
    # a float32 running sum a thread (positive terms), a float32 shuffle tree: 1e-5 of the sum
    assert abs(out[6][0] - e.sum()) <= 1e-5 * e.sum() + 1e-30
    assert out[7][0] == (mu & (Iu == tp.P236_SAT)).sum()
    return out


def test_fourier_modulus():
    rng = np.random.default_rng(6)
    host = tp._p236_fm_args(3, rng, N, W)
    assert host[5] == N and host[1].max() > 1e4 and (host[2] == 0).any()
    _check_fm(_c(host[0]), host[1], host[2], N, 3, 5)           # 5 blocks: 9.6 trips a thread


def test_fourier_modulus_cases():
    rng = np.random.default_rng(7)
    n, nf = 16, 2
    Psi = (rng.standard_normal((nf, n, n)) + 1j * rng.standard_normal((nf, n, n))) * 40
    Psi[0, 0, 0] = 0                                             # no modulus to rescale: stays 0
    Psi[1, 3, 5] = 1e-3
    I = rng.poisson(50.0, (nf, n, n)).astype(np.uint16)
    I[0, 8, 8] = 0                                               # zero counts where Psi[0, 0, 0] = 0
    I[:, :3, :] = tp.P236_SAT                                    # saturated rows, some masked
    mask = np.ones((n, n), np.uint8)
    mask[1, :] = 0
    mask[:, 4] = 0
    out = _check_fm(Psi, I, mask, n, nf, 1)
    assert out[7][0] == nf * 2 * (n - 1)                         # rows 0 and 2 less column 4 (row 1 masked)
    assert out[0][0].tolist() == [0.0, 0.0]
    _check_fm(Psi, I, mask, n, nf, 3)


# ---- epie_object_update ----

def _p2_32(P):
    """|P|^2 as the kernel rounds it: fma(Px, Px, Py * Py) in float32."""
    Px, Py = P.real.astype(F32).astype(np.float64), P.imag.astype(F32).astype(np.float64)
    return (Px * Px + (Py * Py).astype(F32)).astype(F32)


def _check_ep(pn, po, P, O, xy, n, w, step, cutoff):
    nf = len(xy)
    host = [_pairs(pn), _pairs(po), _pairs(P), tp._p236_scanpos(np.asarray(xy, np.int32)), np.int32(n),
            np.int32(w), F32(step), F32(cutoff), _pairs(O)]
    out = run("probe/ptycho-epie-object-atomics", host, nf, grid=tp._p236_ep_grid(nf, n))
    Pc = _c(host[2]).reshape(n, n)
    p2 = _p2_32(Pc)
    near = np.abs(p2.astype(np.float64) - float(F32(cutoff))) <= 1e-5 * float(F32(cutoff))
    assert not near.any()                                        # no pixel on the fence: the reference is exact
    keep = p2 >= F32(cutoff)
    d = (_c(host[0]) - _c(host[1])).reshape(nf, n, n)
    u = float(F32(step)) * np.conj(Pc)[None] * d * keep[None]
    O0 = _c(host[8])
    want = O0.copy()
    mag = np.abs(O0.real) + np.abs(O0.imag)
    i = np.arange(n)
    idx = ((xy[:, 1, None, None] + i[None, :, None]) * w + xy[:, 0, None, None] + i[None, None, :]).ravel()
    np.add.at(want, idx, u.ravel())
    np.add.at(mag, idx, (np.abs(u.real) + np.abs(u.imag)).ravel())
    got = _c(out[8])
    # each product to a few roundoffs, then float32 atomic sums in any order: eps a term and a partial sum
    tol = (2 + nf) * 4 * EPS * mag
    assert (np.abs(got.real - want.real) <= tol + 1e-30).all() and (np.abs(got.imag - want.imag) <= tol + 1e-30).all()
    return got, want, keep


def test_epie_object():
    rng = np.random.default_rng(8)
    host = tp._p236_ep_args(6, rng, N, W)
    xy = np.stack([host[3]["x"], host[3]["y"]], -1)
    got, want, keep = _check_ep(_c(host[0]), _c(host[1]), _c(host[2]), _c(host[8]), xy, N, W, host[6], host[7])
    assert 0.3 < keep.mean() < 0.7                               # the dark tail skipped
    assert np.abs(got - _c(host[8])).max() > 1e-3


def test_epie_object_cases():
    rng = np.random.default_rng(9)
    n, w = 32, 48
    P = (rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))) * 10
    P[:8] *= 1e-3                                                # a dark band
    O = np.ones((w, w), complex)
    xy = np.array([[5, 5], [5, 5], [5, 5], [6, 5], [0, 0], [w - n, w - n]])   # the same window thrice: contended
    pn = rng.standard_normal((6, n, n)) + 1j * rng.standard_normal((6, n, n))
    po = pn + 0.1 * (rng.standard_normal((6, n, n)) + 1j * rng.standard_normal((6, n, n)))
    p2 = float((np.abs(P) ** 2).max())
    got, want, keep = _check_ep(pn, po, P, O, xy, n, w, 1 / p2, 1e-2 * np.median(np.abs(P) ** 2))
    assert not keep[:8].any() and keep[8:].mean() > 0.95
    _check_ep(pn, po, P, O, xy, n, w, 1 / p2, 0.0)               # no cutoff: every pixel


# ---- dm_probe_update ----

def _check_pu(psi, O, xy, n, w, reg=tp.P236_PU_REG):
    ns = len(xy)
    host = [_pairs(psi), _pairs(O), np.int32(n), np.int32(w), np.int32(ns), np.float64(reg), np.zeros((n * n, 2), F32)]
    tab = np.zeros(tp.P236_MAX_SCAN, tp.P236_SCANPOS)
    tab[:ns] = tp._p236_scanpos(np.asarray(xy, np.int32).reshape(-1, 2))
    out = run("probe/ptycho-dm-probe-update-const-f64", host, ns, symbols={"c_pos": tab}, grid=(-(-n * n // 256),))
    Oc = _c(host[1]).reshape(w, w)
    win = tp._p236_windows(Oc, np.asarray(xy).reshape(-1, 2), n)
    s = _c(host[0]).reshape(ns, n, n)
    want = (np.conj(win) * s).sum(0) / ((np.abs(win) ** 2).sum(0) + reg)
    got = _c(out[6]).reshape(n, n)
    # sums in double: only the final rounding to float32 (half an ulp a part)
    assert (np.abs(got.real - want.real) <= 1.01 * EPS * np.abs(want.real) + 1e-37).all()
    assert (np.abs(got.imag - want.imag) <= 1.01 * EPS * np.abs(want.imag) + 1e-37).all()
    return got


def test_dm_probe_update():
    rng = np.random.default_rng(10)
    host = tp._p236_pu_args(40, rng, N, W)
    xy = tp._p236_scan(W, N)[:40]
    sym = tp._p236_pu_symbols(40, None, N, W)["c_pos"]
    assert (sym["x"][:40] == xy[:, 0]).all() and (sym["y"][:40] == xy[:, 1]).all() and (sym["x"][40:] == 0).all()
    got = _check_pu(_c(host[0]), _c(host[1]), xy, N, W)
    Pe = tp._p236_probe(N, tp.P236_EST_DEFOCUS, 0.97 * tp.P236_FLUX * (N / 256) ** 2)
    assert np.linalg.norm(got.ravel() - Pe.ravel()) < 0.2 * np.linalg.norm(Pe)   # near the estimate it came from


def test_dm_probe_update_cases():
    rng = np.random.default_rng(11)
    n, w = 16, 40
    O = np.exp(1j * rng.uniform(-1, 1, (w, w))) * rng.uniform(0.5, 1, (w, w))
    xy = np.array([[0, 0], [w - n, w - n], [3, 11]])
    psi = rng.standard_normal((3, n, n)) + 1j * rng.standard_normal((3, n, n))
    _check_pu(psi, O, xy, n, w)
    got = _check_pu(psi[:0], O, xy[:0], n, w)                   # an empty scan: 0 / reg
    assert (got == 0).all()


# ---- frc_rings ----

def _frc_ref(F1, F2, m, nring):
    a, b = _c(F1).reshape(m, m), _c(F2).reshape(m, m)
    k = np.fft.fftfreq(m) * m
    rad = np.sqrt(k[:, None] ** 2 + k[None, :] ** 2).astype(F32)      # sqrtf of an exact int
    ring = np.floor(rad + F32(0.5)).astype(np.int64)
    ok = ring < nring
    f = lambda v: np.bincount(ring[ok], v[ok], minlength=nring)[:nring]
    return ring, f((a * np.conj(b)).real), f(np.abs(a) ** 2), f(np.abs(b) ** 2)


def _check_frc(F1, F2, m, nring, grid):
    host = [_pairs(F1), _pairs(F2), np.int32(m), np.int32(nring), np.zeros(nring), np.zeros(nring), np.zeros(nring)]
    out = run("probe/ptycho-frc-rings-smem-hist", host, m, grid=(grid,))
    ring, num, d1, d2 = _frc_ref(host[0], host[1], m, nring)
    a, b = _c(host[0]).reshape(m, m), _c(host[1]).reshape(m, m)
    ok = ring < nring
    mag = np.bincount(ring[ok], (np.abs(a) * np.abs(b))[ok], minlength=nring)[:nring]
    # float32 products, then float32 shared sums of up to a few hundred terms a block in any
    # order: 1e-5 of the sum of the terms' magnitudes
    assert (np.abs(out[4] - num) <= 1e-5 * mag + 1e-30).all()
    assert (np.abs(out[5] - d1) <= 1e-5 * d1 + 1e-30).all() and (np.abs(out[6] - d2) <= 1e-5 * d2 + 1e-30).all()
    return out


def test_frc_rings():
    rng = np.random.default_rng(12)
    host = tp._p236_frc_args(128, rng)
    out = _check_frc(host[0], host[1], 128, 64, 7)             # 7 blocks: 9.1 trips a thread
    frc = out[4] / np.sqrt(out[5] * out[6])
    assert frc[1] > 0.9 and frc[-1] < 0.3


def test_frc_cases():
    rng = np.random.default_rng(13)
    m = 32
    F1 = rng.standard_normal(m * m) + 1j * rng.standard_normal(m * m)
    F2 = F1 + 0.5 * (rng.standard_normal(m * m) + 1j * rng.standard_normal(m * m))
    out = _check_frc(F1, F2, m, 16, 1)                          # a single block
    F1z = F1.copy()
    F1z[:m // 2 * m] = 0                                         # ky >= 0 dark in F1: rings still there in F2
    _check_frc(F1z, F2, m, 16, 3)
    out = _check_frc(F1, F2, m, 5, 2)                           # a few rings only
    assert abs(out[5][0] - abs(complex(F32(F1[0].real), F32(F1[0].imag))) ** 2) <= 1e-6 * abs(F1[0]) ** 2   # ring 0: DC
