"""probe-unseen162's kernels (kernels_cuda/probes164.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/ncc-pick-smem-tile", "probe/ctf-wiener-struct", "probe/class-avg-bilinear-atomic",
       "probe/thon-sector-smem-atomic", "probe/backproject-vol-const", "probe/local-fsc-double-shfl"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen162"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes164.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # a binned micrograph: normalized, ~500 particles off the carbon, crowding its edge and aggregating
    n = 1024
    mic, tpl, cen, carbon = tp._p164_ncc_mic(n, rng)
    assert mic.dtype == np.float32 and abs(mic.mean()) < 1e-4 and abs(mic.std() - 1) < 1e-4
    assert abs(tpl.astype(np.float64).sum()) < 1e-5 and abs((tpl.astype(np.float64) ** 2).sum() - 1) < 1e-5
    assert abs(len(cen) / (tp.P164_NCC_DENSITY * n * n) - 1) < 0.05 and 0.02 < carbon.mean() < 0.1
    assert not carbon[cen[:, 1].astype(int), cen[:, 0].astype(int)].any() and mic[carbon].mean() > 0.5
    cx, cy, r = (v * n for v in tp.P164_NCC_HOLE)
    assert 0.3 < (r - np.hypot(cen[:, 0] - cx, cen[:, 1] - cy) < 40).mean() < 0.5         # lining the edge
    d = np.hypot(*(cen[:, None] - cen[None]).transpose(2, 0, 1)) + 1e9 * np.eye(len(cen))
    assert np.median(d.min(axis=1)) < 0.5 * 0.5 / np.sqrt(len(cen) / n ** 2)             # clustered
    # particles' CTFs: micrographs' defoci in contiguous runs, astigmatism ~400 A, no phase plate
    p = tp._p164_ctf_params(20000, rng)
    df = (p["defocus_u"] + p["defocus_v"]) / 2
    jump = np.abs(np.diff(df)) > 1000
    assert 1 / 200 < jump.mean() < 1 / 80 and np.abs(np.diff(df))[~jump].std() < 1.6 * tp.P164_CTF_DZ
    assert 7000 < df.min() and df.max() < 26000 and abs(np.mean(p["defocus_u"] - p["defocus_v"]) - 400) < 100
    assert (p["defocus_u"] >= p["defocus_v"]).all() and (p["phase_shift"] == 0).all() and p["bfactor"].min() >= 20
    F, out, par, box, *_ = tp._p164_ctf_args(8, rng)
    assert F.dtype == np.complex64 and len(F) == 8 * 256 * 129 and len(par) == 8
    A = np.abs(F.reshape(8, 256, 129))
    assert 3 < np.median(A[:, 1:4, 1:4]) / np.median(A[:, 100:128, 100:]) < 5             # the low-resolution rise
    # particles: a junk class of 20%, others lognormal; their signal lines up under their alignments
    img, cls, psi, sx, sy, sums, cnt, box = tp._p164_ca_args(1500, rng, box=64)
    c = np.bincount(cls, minlength=tp.P164_CA_CLASSES)
    assert abs(c[0] / 1500 - tp.P164_CA_JUNK) < 0.03 and c[1:].max() > 4 * np.median(c[1:])
    assert abs(np.std(sx) - tp.P164_CA_SHIFT) < 0.2 and np.ptp(psi) > 6 and abs(img.std() - 1) < 0.02
    big = int(np.argmax(c[1:])) + 1
    S, C, _, _ = tp._p164_ca_ref(img, cls, psi, sx, sy, 64, tp.P164_CA_CLASSES)
    avg = S.reshape(-1, 64, 64) / np.maximum(C, 1)[:, None, None]
    assert avg[big].max() > 0.6 * tp.P164_CA_AMP and np.abs(avg[0]).max() < 5 / np.sqrt(c[0])
    # power spectra: exponential noise about background + CTF^2: Thon rings in the rotational average
    ps, prof, S, nsh = tp._p164_ra_args(4, rng, S=256)
    assert ps.min() >= 0 and 1.3 < np.mean(ps) / np.median(ps) < 1.7
    ref, cnt = tp._p164_ra_ref(ps, 256, 128)
    m = ref.reshape(4, 8, 128).mean(axis=1)[:, 3:60]
    rings = ((m[:, 1:-1] < m[:, :-2]) & (m[:, 1:-1] < m[:, 2:])).sum(axis=1)
    assert (rings >= 3).all() and cnt.sum() == (np.hypot(*np.mgrid[-128:128, -128:128]) < 127.5).sum()
    # back-projection: preferred orientation (60% top views), proper rotations, projections of one particle
    R, sh = tp._p164_bp_orient(256)
    assert np.allclose(R @ R.transpose(0, 2, 1), np.eye(3)) and np.allclose(np.linalg.det(R), 1)
    assert 0.62 < (R[:, 2, 2] > np.cos(np.radians(45))).mean() < 0.8 and 0.7 < sh.std() < 1.3
    proj, vol, N, m = tp._p164_bp_args(128, rng)
    tot = proj.reshape(256, -1).sum(axis=1)
    assert tot.std() < 0.1 * tot.mean() and len(vol) == 128 ** 3
    # local FSC: windows in raster order, resolutions worse outward, FSC curves crossing 0.143 there
    cen, d = tp._p164_fsc_windows(2000, rng)
    g = np.floor(cen / 4)
    assert (np.diff(g[:, 2]) >= 0).all() and 2 < d.min() and d.max() < 9
    assert np.corrcoef(np.sum((cen / tp.P164_FSC_ELL) ** 2, axis=1), d)[0, 1] > 0.9
    F1, F2, *_ = tp._p164_fsc_args(300, np.random.default_rng(3))
    _, d = tp._p164_fsc_windows(300, np.random.default_rng(3))
    fsc, res, _ = tp._p164_fsc_ref(F1, F2)
    sh, _ = tp._p164_fsc_shells()
    assert np.corrcoef(res, d)[0, 1] > 0.85 and (np.abs(res - d) < 0.25 * d + 0.5).mean() > 0.9
    assert (fsc[:, 1] > 0.5).all() and np.median(fsc[:, -1]) < 0.1 and (sh < 12).sum() == 3412


# ---- ncc-pick-smem-tile ----

def test_ncc_pick():
    # a 72 x 33 strip (41 x 2 windows, all in the first row of the 3 x 3 blocks sized for n = 72,
    # the last block partly out, the tiles' aprons past the edges): a generated micrograph's
    # rows, a flat band (its windows score exactly 0) and the template itself, scaled and offset
    # (scoring 1)
    W, H, T = 72, 33, tp.P164_NCC_T
    mic, tpl, score, *_ = tp._p164_ncc_args(72, np.random.default_rng(4))
    m = mic.reshape(72, 72)[:H].copy()
    m[:, :34] = 0.5
    m[:T, 36:36 + T] = 2.5 * tpl.reshape(T, T) - 0.25
    h = [m.ravel(), tpl, np.zeros(41 * 2, np.float32), np.int32(W), np.int32(H)]
    out = run("probe/ncc-pick-smem-tile", h, 72)[2].reshape(2, 41)
    ref, tol = tp._p164_ncc_ref(m, tpl, W, H)
    assert (np.abs(out - ref) <= tol).all() and (out[:, :3] == 0).all() and (ref[:, 3:] != 0).all()
    # (the template's window: 1 in float64, float32's variance losing ~10x to cancellation)
    assert abs(ref[0, 36] - 1) < 1e-12 and out[0, 36] == out.max() and np.abs(np.delete(out, 36, 1)).max() < 0.5


# ---- ctf-wiener-struct ----

def test_ctf_wiener():
    n = 3                                                   # box 256: 129 blocks of 256 a particle
    host, out, *_ = launch("probe/ctf-wiener-struct", n)
    ref, tol = tp._p164_ctf_ref(host[0], host[2], *host[3:])
    assert (np.abs(out[1] - ref.ravel()) <= tol.ravel()).all() and np.median(tol) < 2e-3
    # float32's gamma is good to ~2^-21 of itself (up to ~400 rad at Nyquist): the low
    # frequencies are much closer
    low = np.abs(tp._p164_ctf_curve(host[2], *tp._p164_freqs(256, 1.06))[1]) < 20
    assert (np.abs(out[1] - ref.ravel())[low.ravel()] < 1e-4 * (np.abs(host[0])[low.ravel()] + 1)).all()
    # a round CTF with a phase plate's pi / 2 on all-ones transforms: rows ky and -ky alike,
    # the DC term -sqrt(1 - amp^2) / (1 - amp^2 + wiener); scale 0: nothing passes
    h = list(host)
    p = host[2].copy()
    p["defocus_v"][0] = p["defocus_u"][0]
    p["phase_shift"][0] = np.pi / 2
    p["scale"][1] = 0
    h[0] = np.ones_like(host[0])
    h[2] = p
    o = run("probe/ctf-wiener-struct", h, n)[1].reshape(n, 256, 129)
    assert (o[0, 1:128] == o[0, 255:128:-1]).all() and (o[1] == 0).all()
    a, w = tp.P164_CTF_AMP, tp.P164_CTF_WIENER
    assert abs(o[0, 0, 0].real - -np.sqrt(1 - a * a) / (1 - a * a + w)) < 1e-6 and (o.imag == 0).all()
    ref, tol = tp._p164_ctf_ref(h[0], p, *host[3:])
    assert (np.abs(o.ravel() - ref.ravel()) <= tol.ravel()).all()


# ---- class-avg-bilinear-atomic ----

@pytest.mark.parametrize("n, seed", [(12, 0), (5, 1)])
def test_class_average(n, seed):
    host, out, *_ = launch("probe/class-avg-bilinear-atomic", n, seed=seed)
    box, K = tp.P164_CA_BOX, tp.P164_CA_CLASSES
    ref, cnt, tol, amb = tp._p164_ca_ref(*host[:5], box, K)
    ok = ~amb
    assert (out[6] == cnt).all() and amb.mean() < 1e-3 and (out[5][ref == 0] == 0).all()
    assert (np.abs(out[5] - ref)[ok] <= tol[ok]).all() and (ref != 0).sum() > 0.8 * box * box * len(set(host[1]))


def test_class_average_exact():
    # no rotation, whole-pixel shifts (some pushing samples off the box), integer images: each
    # class sum exactly numpy's, added in any order
    n, box = 10, tp.P164_CA_BOX
    rng = np.random.default_rng(5)
    h = tp._p164_ca_args(n, rng)
    h[0] = rng.integers(-8, 9, n * box * box).astype(np.float32)
    h[1] = np.array([3, 0, 3, 3, 7, 0, 3, 7, 7, 3], np.int32)
    h[2] = np.zeros(n, np.float32)
    h[3] = rng.integers(-3, 4, n).astype(np.float32)
    h[4] = rng.integers(-3, 4, n).astype(np.float32)
    h[3][0], h[4][0] = 0, 0
    out = run("probe/class-avg-bilinear-atomic", h, n)
    img = h[0].reshape(n, box, box)
    ref = np.zeros((tp.P164_CA_CLASSES, box, box))
    for p in range(n):
        dx, dy = int(h[3][p]), int(h[4][p])
        sh = np.zeros((box, box))
        ys, xs = slice(max(0, -dy), min(box, box - 1 - dy)), slice(max(0, -dx), min(box, box - 1 - dx))
        sh[ys, xs] = img[p, ys.start + dy:ys.stop + dy, xs.start + dx:xs.stop + dx]
        ref[h[1][p]] += sh
    assert (out[5] == ref.ravel()).all() and list(out[6][[0, 3, 7]]) == [2, 5, 3] and out[6].sum() == n


# ---- thon-sector-smem-atomic ----

@pytest.mark.parametrize("S, policy", [(64, "lockstep"), (50, "random")])
def test_sector_average(S, policy):
    n, nsh = 3, S // 2
    rng = np.random.default_rng(6)
    h = tp._p164_ra_args(n, rng, S=S)
    out = run("probe/thon-sector-smem-atomic", h, n, policy=policy)
    ref, cnt = tp._p164_ra_ref(h[0], S, nsh)
    _, gap = tp._p164_ra_bins(S, nsh)
    # float32's azimuths are good to ~1e-6 of a sector: no pixel is near a sector's edge; a
    # mean of c positive float32 values in any order: within c + 1 ulps
    assert gap > 1e-4
    assert (np.abs(out[1] - ref.ravel()) <= np.tile((cnt + 1) * 2.0 ** -24, n) * ref.ravel()).all()
    # integer-valued spectra, a spike at the origin: means exactly numpy's (sums exact in any order)
    h[0] = rng.integers(0, 1000, n * S * S).astype(np.float32)
    h[0].reshape(n, S, S)[:, S // 2, S // 2] = 1e6
    out = run("probe/thon-sector-smem-atomic", h, n, policy=policy)[1].reshape(n, 8, nsh)
    ref, cnt = tp._p164_ra_ref(h[0], S, nsh)
    ref = ref.reshape(n, 8, nsh)
    assert (out == ref.astype(np.float32)).all() and (out[:, 0, 0] == 1e6).all() and (out[:, 1:, 0] == 0).all()
    # near the origin some bins get no pixel (shell 1's 8 lie at multiples of 45 degrees, shell
    # 2's 12 miss the sectors at 45 and 135): their means 0
    c = cnt.reshape(8, nsh)
    assert cnt[0] == 1 and (c[:, 3:] > 0).all() and (c[:, :3] == 0).sum() == 7 + 4 + 2 and (out[:, c == 0] == 0).all()


# ---- backproject-vol-const ----

def test_backproject():
    N, m = 16, 8                                            # blocks of 32 x 8: half the lanes off the volume
    rng = np.random.default_rng(7)
    h = tp._p164_bp_args(N, rng, nproj=m)
    syms = tp._p164_bp_syms(N, rng, nproj=m)
    h[1] = rng.integers(-4, 5, N ** 3).astype(np.float32)          # an earlier batch's sum to add to
    out = run("probe/backproject-vol-const", h, N, symbols=syms)[1]
    ref, tol, amb = tp._p164_bp_ref(h[0], N, syms["c_rot"], syms["c_shift"])
    err = np.abs(out - h[1] - ref)                          # (vol += acc: one more rounding)
    assert amb.mean() < 0.01 and (err <= tol + 2.0 ** -24 * np.abs(out))[~amb].all() and (ref != 0).mean() > 0.9
    # exact orientations (the identity, a quarter turn about z, the view down x) and whole-pixel
    # shifts on integer projections: each voxel the sum of the pixels it projects to
    P = rng.integers(0, 50, (3, N, N)).astype(np.float32)
    rot = np.zeros((tp.P164_BP_MAXP, 9), np.float32)
    rot[0] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
    rot[1] = [0, -1, 0, 1, 0, 0, 0, 0, 1]
    rot[2] = [0, 0, 1, 0, 1, 0, -1, 0, 0]
    shift = np.zeros((tp.P164_BP_MAXP, 2), np.float32)
    shift[1] = [2, -1]
    hs = {"c_rot": rot.ravel(), "c_shift": shift.ravel()}
    out = run("probe/backproject-vol-const", [P.ravel(), np.zeros(N ** 3, np.float32), np.int32(N), np.int32(3)],
              N, symbols=hs)[1].reshape(N, N, N)
    z, y, x = np.mgrid[0:N, 0:N, 0:N]
    h2 = N // 2
    exp = np.zeros((N, N, N))
    for p, (u, v) in enumerate([(x, y), (h2 - (y - h2) + 2, x - 1), (z, y)]):
        ok = (u >= 0) & (u < N - 1) & (v >= 0) & (v < N - 1)
        exp += np.where(ok, P[p][np.clip(v, 0, N - 1), np.clip(u, 0, N - 1)], 0)
    assert (out == exp).all()


# ---- local-fsc-double-shfl ----

def test_local_fsc():
    n = 5
    h = tp._p164_fsc_args(n, np.random.default_rng(8))
    # window 0: identical halves (FSC 1 to Nyquist); 1: opposite (FSC -1: the first shell);
    # 2: an empty half (FSC 0)
    F1, F2 = (a.reshape(n, -1) for a in h[:2])
    F2[0] = F1[0]
    F2[1] = -F1[1]
    F1[2] = 0
    out = run("probe/local-fsc-double-shfl", h, n)
    fsc, res, gap = tp._p164_fsc_ref(h[0], h[1])
    # double sums in another order, rounded to float32 once: within an ulp
    assert (np.abs(out[2] - fsc.ravel()) <= np.spacing(np.abs(fsc.ravel()).astype(np.float32))).all()
    assert gap > 1e-6 and np.allclose(out[3], res, rtol=1e-6, atol=0)
    f = out[2].reshape(n, -1)
    assert (f[0] == 1).all() and (f[1] == -1).all() and (f[2] == 0).all() and (f[3:, 1] > 0.5).all()
    B, a = tp.P164_FSC_B, np.float32(tp.P164_FSC_APIX)
    assert out[3][0] == np.float32(B * a / (B // 2)) and out[3][1] == out[3][2] == np.float32(B * a)
    assert ((out[3][3:] > 2.2) & (out[3][3:] < 26)).all()
