"""probe-unseen77's kernels (kernels_cuda/probes79.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/ct-flatfield-log", "probe/ramlak-conv-smem", "probe/fbp-backproject-const",
       "probe/raymarch-forward-proj", "probe/mri-grid-kb-atomic", "probe/ct-hu-hist-minmax"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen77"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes79.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # flat-field: uint16 counts between the dark level and the flat one, ~1% starved (about
    # half of those clamped)
    det = 1000
    raw, dark, flat, proj, t_min, c2, c3, d, n = tp._p79_ff_args(4 * det, np.random.default_rng(1), det=det)
    assert raw.dtype == np.uint16 and d == det and n == 4 * det
    assert abs(dark.mean() - 100) < 2 and abs(flat.mean() / 40000 - 1) < 0.01 and raw.max() < 48000
    t = (raw.reshape(4, det) - dark) / (flat - dark)
    assert 0.005 < (t < 0.0015).mean() < 0.02 and t.max() < 1.3
    p, clamped = tp._p79_ff_ref(raw, dark, flat)
    assert 0.001 < clamped.mean() < 0.01 and p.max() < 12.5
    # the analytic Shepp-Logan sinogram: every projection carries the phantom's mass; the
    # Ram-Lak kernel sums to ~0 (no DC); filtered and backprojected it gives the phantom back
    s = tp._p79_shepp_sino(8, 768, 512)
    mass = sum(A * np.pi * a * b for A, a, b, *_ in tp._P79_SHEPP) * 256 ** 2 * tp._P79_MU
    assert np.allclose(s.sum(axis=1), mass, rtol=1e-3) and s.min() >= 0 and s[:, :120].max() == 0
    h = tp._p79_ramlak_h()
    assert len(h) == 2 * 768 - 1 and h[767] == 0.25 and h[768] == h[766] < 0 and h[769] == 0 and abs(h.sum()) < 1e-3
    N, A = 64, 180
    host = tp._p79_bp_args(N, rng, n_angles=A)
    sy = tp._p79_bp_syms(N, rng, n_angles=A)
    assert host[4] == 96 and sy["c_cos"].shape == (1024,) and sy["c_cos"][A:].max() == 0
    rec = tp._p79_bp_ref(host[0], sy["c_cos"], sy["c_sin"], host[2], A, host[4], N)
    ph = tp._p79_shepp_image(N)
    assert ph.max() == np.float32(tp._P79_MU) and np.median(np.abs(rec - ph)) < 0.02 * tp._P79_MU
    # the ray marcher reproduces the analytic projections (up to the pixels' staircase);
    # its samples a ray at the default size as the note says
    fp = tp._p79_fp_ref(tp._p79_shepp_image(N), N, N, 24)
    an = tp._p79_shepp_sino(24, N, N)
    assert np.abs(fp - an).mean() < 0.03 * an.max()
    steps, gap = tp._p79_fp_steps(256, 256)
    assert steps.min() == 22 and steps.max() == 255 and 195 < steps.mean() < 205 and gap > 1e-3
    assert 215 < steps.reshape(-1, 32).max(axis=1).mean() < 230
    # the KB table falls from 1 to ~0; radial spokes stay KB_W cells inside the grid, all
    # 16 taps land and the centre cells take ~2000 updates each
    lut = tp._p79_kb_lut()
    assert lut[0] == 1 and (np.diff(lut) < 0).all() and lut[-1] < 1e-3
    kx, ky, data, dcf, lut, grid, G, n = tp._p79_kb_args(1 << 15, rng)
    assert data.shape == (n, 2) and grid.shape == (G * G, 2) and G == 512
    assert np.hypot(kx, ky).max() <= G / 2 - 4 + 1e-3 and dcf.min() > 0
    r = np.hypot(kx, ky)
    assert np.abs(data[r < 10]).mean() > 20 * np.abs(data[r > 100]).mean()
    x0 = np.floor(kx + 256).astype(np.int64) - 1
    y0 = np.floor(ky + 256).astype(np.int64) - 1
    cnt = np.zeros(G * G, np.int64)
    for j in range(4):
        for i in range(4):
            np.add.at(cnt, (y0 + j) * G + x0 + i, 1)
    assert cnt.sum() == 16 * n and cnt.max() > 200              # 64 spokes here: ~250 a centre cell
    # the CT volume: 60% air, lungs, soft tissue, bone, a few metal voxels past the last bin
    v = tp._p79_hu_volume(1 << 18, rng)
    assert v.dtype == np.int16 and v.min() == -1024 and v.max() > 3072
    assert 0.5 < (v < -900).mean() < 0.7 and 0.1 < ((v > -900) & (v < -700)).mean() < 0.3
    assert 0.05 < ((v > -50) & (v < 150)).mean() < 0.2 and 0.002 < (v > 300).mean() < 0.02
    b = np.clip((v.astype(np.int64) + 1024) // 4, 0, 1023)
    assert 10 < np.mean([len(np.unique(r)) for r in b.reshape(-1, 32)]) < 20


# ---- ct-flatfield-log ----

def ff_check(host, out):
    p, clamped = tp._p79_ff_ref(*host[:3])
    d = np.arange(len(host[0])) % len(host[1])
    t = (host[0].astype(np.float64) - host[1][d]) / (host[2][d].astype(np.float64) - host[1][d])
    assert np.abs(t - tp._P79_FF_TMIN).min() > 1e-7                # no reading on the clamp's edge
    np.testing.assert_allclose(out[3], p, rtol=1e-5, atol=1e-5)
    assert (out[3][clamped] == out[3][clamped][0]).all()
    return clamped


def test_flatfield_log():
    n = 3000                                                # a partial block, n < n_det
    host, out, *_ = launch("probe/ct-flatfield-log", n)
    assert ff_check(host, out).any()
    # several views of a 700-pixel detector: the dark and flat frames by i % n_det
    host = tp._p79_ff_args(2 * 700 + 333, np.random.default_rng(3), det=700)
    out = run("probe/ct-flatfield-log", host, len(host[0]))
    ff_check(host, out)


# ---- ramlak-conv-smem ----

def test_ramlak_filter():
    host, (sino, h, filt, n), *_ = launch("probe/ramlak-conv-smem", 2)
    ref = tp._p79_ramlak_ref(sino, h)
    np.testing.assert_allclose(filt, ref.ravel(), rtol=0, atol=2e-6 * np.abs(ref).max())
    assert (filt.reshape(2, -1)[:, :100] < 0).all()           # the ramp's negative tails outside the object
    # an impulse at bin 100 of the first projection gives the kernel back; zeros give zeros
    host = [np.zeros(3 * 768, np.float32), tp._p79_ramlak_h(), np.zeros(3 * 768, np.float32), np.int32(3)]
    host[0][100] = 1.0
    host[0][768 + 767] = 2.0
    out = run("probe/ramlak-conv-smem", host, 3)[2].reshape(3, 768)
    np.testing.assert_array_equal(out[0], host[1][767 - 100:767 - 100 + 768])
    np.testing.assert_array_equal(out[1], 2 * host[1][:768])
    assert (out[2] == 0).all()


# ---- fbp-backproject-const ----

@pytest.mark.parametrize("N, A", [(32, 24), (40, 30)])       # 40: partial 16 x 16 blocks
def test_fbp_backproject(N, A):
    rng = np.random.default_rng(4)
    host = tp._p79_bp_args(N, rng, n_angles=A)
    syms = tp._p79_bp_syms(N, rng, n_angles=A)
    if N == 40:
        host[0] = rng.standard_normal(len(host[0])).astype(np.float32)   # any sinogram
    out = run("probe/fbp-backproject-const", host, N, symbols=syms)
    ref = tp._p79_bp_ref(host[0], syms["c_cos"], syms["c_sin"], host[2], A, host[4], N)
    np.testing.assert_allclose(out[1], ref.ravel(), rtol=0, atol=1e-5 * np.abs(ref).max())


def test_fbp_edge_bins():
    # a detector too short for the image: pixels whose bins fall off it add nothing
    rng = np.random.default_rng(5)
    N, A, nd = 32, 16, 21
    q = rng.standard_normal(A * nd).astype(np.float32)
    host = [q, np.zeros(N * N, np.float32), np.float32(np.pi / A), np.int32(A), np.int32(nd), np.int32(N)]
    syms = tp._p79_bp_syms(N, rng, n_angles=A)
    c = np.arange(N) - 0.5 * (N - 1)
    t = (c[None, :, None] * syms["c_cos"][:A].astype(np.float64) - c[:, None, None] * syms["c_sin"][:A]) + 10
    assert np.minimum(np.abs(t), np.abs(t - (nd - 1))).min() > 1e-4     # no pixel on the detector's ends
    out = run("probe/fbp-backproject-const", host, N, symbols=syms)
    ref = tp._p79_bp_ref(q, syms["c_cos"], syms["c_sin"], host[2], A, nd, N)
    np.testing.assert_allclose(out[1], ref.ravel(), rtol=0, atol=1e-5 * np.abs(ref).max())
    assert 0.2 < ((t < 0) | (t >= nd - 1)).mean() < 0.6         # many (pixel, angle) pairs off the detector


# ---- raymarch-forward-proj ----

def test_forward_project():
    N, A = 32, 24
    host = tp._p79_fp_args(N, np.random.default_rng(0), n_angles=A)
    out = run("probe/raymarch-forward-proj", host, N)
    ref = tp._p79_fp_ref(host[0], N, N, A)
    np.testing.assert_allclose(out[1], ref.ravel(), rtol=0, atol=1e-5 * np.abs(ref).max())
    assert (ref > 0).mean() > 0.5 and ref[0, 0] == 0


def test_forward_project_random_image():
    # any image with a zero border of 2 pixels (the skipped samples' pixels all zero), an odd
    # detector, partial blocks
    rng = np.random.default_rng(6)
    N, A = 40, 10
    img = rng.random((N, N)).astype(np.float32)
    img[:2], img[-2:], img[:, :2], img[:, -2:] = 0, 0, 0, 0
    host = [img.ravel(), np.zeros(A * N, np.float32), np.int32(N), np.int32(N), np.int32(A)]
    out = run("probe/raymarch-forward-proj", host, N)
    ref = tp._p79_fp_ref(img, N, N, A)
    np.testing.assert_allclose(out[1], ref.ravel(), rtol=0, atol=1e-5 * np.abs(ref).max())
    # a constant disc's projection is its chord length
    assert abs(ref[0, N // 2] - img[:, N // 2].sum()) < 0.1 * ref[0, N // 2]


# ---- mri-grid-kb-atomic ----

# 2048: 4 spokes of 512; random (slow): 1024, 2 spokes crossing at the centre, 4 blocks
@pytest.mark.parametrize("policy, n", [("lockstep", 2048), ("random", 1024)])
def test_grid_kspace_kb(policy, n):
    host, (kx, ky, data, dcf, lut, grid, G, nn), *_ = launch("probe/mri-grid-kb-atomic", n, policy=policy)
    ref, taps = tp._p79_kb_ref(*host[:5], host[6])
    assert (taps == 16).all()
    np.testing.assert_allclose(grid, ref, rtol=0, atol=2e-6 * np.abs(ref).max())
    assert (grid != 0).any(axis=1).sum() == (ref != 0).any(axis=1).sum()


def test_grid_kspace_edges():
    # samples anywhere on a 16 x 16 grid: taps falling off its edges skipped
    rng = np.random.default_rng(7)
    n, G = 300, 16
    kx = rng.uniform(-G / 2, G / 2, n).astype(np.float32)
    ky = rng.uniform(-G / 2, G / 2, n).astype(np.float32)
    kx[:3] = [-8.0, 7.99, 0.0]
    host = [kx, ky, rng.standard_normal((n, 2)).astype(np.float32), rng.random(n).astype(np.float32),
            tp._p79_kb_lut(), np.zeros((G * G, 2), np.float32), np.int32(G), np.int32(n)]
    out = run("probe/mri-grid-kb-atomic", host, n, policy="random")
    ref, taps = tp._p79_kb_ref(*host[:5], G)
    assert taps.min() < 16 and taps.min() > 0
    np.testing.assert_allclose(out[5], ref, rtol=0, atol=2e-6 * np.abs(ref).max())


# ---- ct-hu-hist-minmax ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_hu_hist_minmax(policy):
    n = 20000                                               # 5 blocks, the last partial
    host, (vol, hist, vmin, vmax, nn), *_ = launch("probe/ct-hu-hist-minmax", n, policy=policy)
    h, lo, hi = tp._p79_hu_ref(vol)
    assert (hist == h).all() and hist.sum() == n and vmin[0] == lo == -1024 and vmax[0] == hi > 3071


def test_hu_hist_edges():
    # one value everywhere (every lane on one bin), then values past both ends of the bins
    n = 5000
    for vol in (np.full(n, 40, np.int16),
                np.array([-32768, -1025, -1024, -1020, 3071, 3072, 32767] * (n // 7), np.int16)):
        host = [vol, np.zeros(1024, np.uint32), np.array([2 ** 31 - 1], np.int32), np.array([-2 ** 31], np.int32),
                np.int32(len(vol))]
        out = run("probe/ct-hu-hist-minmax", host, len(vol), policy="random")
        h, lo, hi = tp._p79_hu_ref(vol)
        assert (out[1] == h).all() and out[2][0] == lo and out[3][0] == hi
    assert h[0] == 3 * (n // 7) and h[1] == n // 7 and h[1023] == 3 * (n // 7)
