"""probe-unseen188's kernels (kernels_cuda/probes190.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/dft-image-w-smem", "probe/xcorr-int8-char2", "probe/uvgrid-kb-const-atomic",
       "probe/rfi-mad-bitonic", "probe/psr-harmsum-gather-shfl", "probe/psr-fold-f64-smem-atomic"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen188"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes190.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    enu = tp._p190_array(1000, rng)
    r = np.hypot(enu[:, 0], enu[:, 1])
    assert abs((r < 500).mean() - (0.6 + 0.4 * np.log(2.5) / np.log(20))) < 0.04 and r.max() < 4100   # core + arms
    assert np.median(r[r > 700]) > 1500
    vis, img, n, dl, nv = tp._p190_df_args(512, rng)
    uv = np.hypot(vis["u"], vis["v"])
    assert nv == len(vis) == 72 * 71 // 2 and vis.dtype.itemsize == 20 and len(img) == 512 * 512
    assert np.median(uv) < 0.15 * uv.max() and 15000 < uv.max() < 40000 and (uv < 1000).mean() > 0.1   # core-heavy
    assert 0 < np.abs(vis["w"]).max() < 0.3 * uv.max()                     # near transit: small w
    l, m, S = tp._p190_sky(np.random.default_rng(1), 1.0)
    assert S.min() >= 0.05 and np.median(S) < 0.15 and S.max() > 0.5      # a steep source count
    # long baselines resolve the sources apart: E|V|^2 = sum S^2 + 2 noise^2
    rng = np.random.default_rng(1)
    vis, *_ = tp._p190_df_args(512, rng)
    rng = np.random.default_rng(1)
    enu = tp._p190_array(72, rng)
    uvw = tp._p190_uvw(enu, tp.P190_DF_HA, tp.P190_DF_DEC)[:, 0]
    S = tp._p190_sky(rng, 0.8 * tp.P190_DF_DL * 256)[2]
    assert np.allclose(uvw[:, 0], vis["u"], rtol=1e-6) and np.allclose(uvw[:, 2], vis["w"], rtol=1e-6, atol=1e-3)
    p2 = (vis["re"].astype(np.float64) ** 2 + vis["im"].astype(np.float64) ** 2)[np.hypot(vis["u"], vis["v"]) > 5000]
    assert abs(p2.mean() / ((S ** 2).sum() + 2 * tp.P190_DF_NOISE ** 2) - 1) < 0.3
    rng = np.random.default_rng(0)
    V, vz, nant, C, T = tp._p190_xc_args(1024, rng)
    x = V.reshape(T, nant, C, 2)
    assert V.dtype == np.int8 and len(vz) == 2 * 2080 * C and (nant, C, T) == (64, 1024, 256)
    clipped = (np.abs(x) == 127).any(axis=(0, 1, 3))                       # strong RFI tones saturate
    assert 0.01 < clipped.mean() < 0.06
    q = x[..., 0] + 1j * x[..., 1].astype(np.float64)
    r01 = (q[:, 0] * np.conj(q[:, 1])).mean(axis=0) / np.sqrt((np.abs(q[:, 0]) ** 2).mean(axis=0)
                                                             * (np.abs(q[:, 1]) ** 2).mean(axis=0))
    assert 0.05 < np.median(np.abs(r01)) < 0.15 and (np.abs(r01) > 0.5).mean() > 0.01     # sky + RFI channels
    assert 8 < x[:, :, 512].std() < 16 and x[:, :, 0].std() < 0.5 * x[:, :, 512].std()  # the bandpass
    u, v, gvis, wt, grid, inv_du, gsize, n = tp._p190_gv_args(1 << 16, rng, nant=20)     # 190 baselines
    assert len(u) == n and len(gvis) == 2 * n and len(grid) == 2 * gsize * gsize and gsize == 2048
    assert 0.12 < (wt == 0).mean() < 0.18 and np.isclose(inv_du, 2048 * tp.P190_GV_CELL)    # antenna 17: 10%
    T = -(-n // 190)
    f = wt[:n // T * T].reshape(-1, T) == 0
    f = f[~f.all(axis=1)]                                                   # the bad antenna's baselines aside
    assert 0.03 < f.mean() < 0.07 and (f[:, 1:] & f[:, :-1]).sum() > 0.7 * f[:, 1:].sum()   # flags in runs
    iu, iv, ou, ov, _ = tp._p190_gv_bins(u, v, inv_du, gsize)
    r = np.hypot(iu - gsize // 2, iv - gsize // 2)
    assert np.median(r) < 0.2 * r.max()                                     # piled near the uv origin
    assert np.median([len(np.unique(w)) for w in (iv * gsize + iu).reshape(-1, 32)]) < 20   # warp-mates close
    T = tp._p190_gv_table()
    assert T.shape == (8, 7) and np.allclose(T.sum(axis=1), 1) and (T[:, 3] > T[:, 0]).all()
    assert np.allclose(T, T[::-1, ::-1]) and (np.diff(T[:, 0]) < 0).all()  # mirror offsets, the edge tap fading
    d, fl, med, mad, th = tp._p190_rf_args(1 << 12, rng)
    x = d.reshape(-1, 16 * 1024)
    assert len(d) == (1 << 12) * 1024 and th == 5
    z = (x == 0).all(axis=0)
    assert 0 < z.mean() < 0.002                                             # dropped samples
    rm = np.median(x, axis=1)
    assert rm[128] > 3 * rm[0] and abs(np.mean(x[128] / rm[128]) - 1.01) < 0.05 and x.std(axis=1)[128] < 0.5 * rm[128]
    m2, d2, f2, _ = tp._p190_rf_ref(d, th)
    assert 0.001 < f2.mean() < 0.02 and (f2.mean(axis=1) > 0.1).sum() >= 2  # bursts and a few RFI channels
    P, best, nh, wb, wbin, n = tp._p190_hs_args(1 << 16, rng)
    P = P.reshape(64, n)
    assert (P[:, 0] == 0).all() and abs(np.median(P[:, 10000:]) - np.log(2)) < 0.01
    assert 2.5 < P[:, 1:50].mean() < 5 and len(wb) == 64 * 4096 // 32
    b, h = tp._p190_hs_ref(P, n, 64)
    assert b.max() > 15 and (h == 16).any() and 0.2 < (h == 1).mean() < 0.35    # pulsars found; noise
    data, fold, nchan, n, nsub, *_ = tp._p190_fd_args(1 << 16, rng, nchan=32)
    x = data.reshape(32, n)
    assert len(fold) == 16 * 32 * 256 and x.dtype == np.uint8 and (x == 255).mean() > 0.0002
    assert 60 < np.median(x[0]) < 80 and 100 < np.median(x[16]) < 120
    prof = tp._p190_fd_ref(data, 32, n, 4096)[0].reshape(16, 32, 256).mean(axis=(0, 1))
    assert abs(np.argmax(prof) - 0.3 * 256) <= 2 and prof.max() - np.median(prof) > 3


# ---- dft-image-w-smem ----

@pytest.mark.parametrize("n, nant, policy", [(32, 25, "lockstep"), (16, 8, "random")])
def test_dft_image(n, nant, policy):
    # 32: 2 x 2 blocks, 300 visibilities (a tile and 44); 16: a block, 28 visibilities (a partial tile)
    rng = np.random.default_rng(2)
    h = tp._p190_df_args(n, rng, nant=nant)
    out = run("probe/dft-image-w-smem", h, n, policy=policy)[1].reshape(n, n)
    ref, tol = tp._p190_df_ref(h[0], n, h[3])
    assert h[4] == nant * (nant - 1) // 2 and (np.abs(out - ref) <= tol).all()
    assert tol.max() < 2e-4 * np.abs(ref).max()


def test_dft_image_wide_point():
    # a 1 Jy source on pixel (5, 20) of a wide field (dl = 2e-3: n - 1 down to -1e-3, w in the phase),
    # no noise: the image is 1 there, below it elsewhere
    n = 32
    rng = np.random.default_rng(3)
    h = tp._p190_df_args(n, rng, nant=25, dl=2e-3)
    vis = h[0]
    lm = tp._p190_lm(n, 2e-3).astype(np.float64)
    l, m = lm[5], lm[20]
    ph = -2 * np.pi * (vis["u"] * l + vis["v"] * m + vis["w"] * (np.sqrt(1 - l * l - m * m) - 1))
    vis["re"], vis["im"] = np.cos(ph), np.sin(ph)
    out = run("probe/dft-image-w-smem", h, n)[1].reshape(n, n)
    ref, tol = tp._p190_df_ref(vis, n, 2e-3)
    assert abs(ref[20, 5] - 1) < 1e-6 and np.unravel_index(np.argmax(out), out.shape) == (20, 5)
    assert (np.abs(out - ref) <= tol).all() and abs(out[20, 5] - 1) <= tol[20, 5] + 1e-6


# ---- xcorr-int8-char2 ----

@pytest.mark.parametrize("nant, nchan, ntime, policy", [(6, 200, 24, "lockstep"), (3, 130, 6, "random")])
def test_xcorr_int8(nant, nchan, ntime, policy):
    # 2 blocks a baseline, the second partial
    nbl = nant * (nant + 1) // 2
    rng = np.random.default_rng(4)
    h = tp._p190_xc_args(nchan, rng, nant=nant, ntime=ntime)
    out = run("probe/xcorr-int8-char2", h, nchan, policy=policy, grid=(2, nbl))[1].reshape(nbl, nchan, 2)
    re, im = tp._p190_xc_ref(h[0], nant, nchan, ntime)
    assert (out[..., 0] == re).all() and (out[..., 1] == im).all()
    i, j = np.triu_indices(nant)
    assert (im[i == j] == 0).all() and (re[i == j] > 0).all()                   # autos real
    assert (np.abs(h[0]) == 127).any() or policy == "random"                  # RFI clipped
    if policy == "random":
        return
    # V_i conj(V_j): antenna 2 (1, 0), antenna 4 (0, -3) in channel 7 -> baseline (2, 4) = 3i a sample
    V = np.zeros((ntime, nant, nchan, 2), np.int8)
    V[:, 2, 7] = (1, 0)
    V[:, 4, 7] = (0, -3)
    h[0] = V.ravel()
    out = run("probe/xcorr-int8-char2", h, nchan, grid=(2, 21))[1].reshape(21, nchan, 2)
    b = list(zip(*np.triu_indices(nant))).index((2, 4))
    assert b == 13 and (out[b, 7] == (0, 3 * ntime)).all() and (out[11, 7] == (ntime, 0)).all()
    assert (out[18, 7] == (9 * ntime, 0)).all() and np.count_nonzero(out) == 3


# ---- uvgrid-kb-const-atomic ----

@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (128, "random")])
def test_grid_vis_const(n, policy):
    gsize = 256
    rng = np.random.default_rng(5)
    h = tp._p190_gv_args(n, rng, nant=12, gsize=gsize)
    h[5] = np.float32(2048 * tp.P190_GV_CELL)               # the big grid's cell: the long baselines drop
    iu, iv, ou, ov, margin = tp._p190_gv_bins(h[0], h[1], h[5], gsize)
    h[3][margin < 1e-3] = 0                                 # float32 binning could go either way: flagged
    syms = tp._p190_gv_syms(n, rng)
    out = run("probe/uvgrid-kb-const-atomic", h, n, policy=policy, symbols=syms)[4].reshape(gsize, gsize, 2)
    G, A = tp._p190_gv_ref(h[0], h[1], h[2], h[3], h[5], gsize, syms["c_gcf"].reshape(8, 7))
    drop = (iu - 3 < 0) | (iu + 3 >= gsize) | (iv - 3 < 0) | (iv + 3 >= gsize)
    assert 0.05 < (drop & (h[3] > 0)).mean() < 0.5 and ((h[3] == 0).mean() < 0.4 or n < 1000)
    # each contribution rounded 3 times (w z, the taps' product, its product), then up to K atomic
    # float adds of partial sums no larger than A: |error| <= (K + 3) 2^-24 A
    K = np.bincount((iv * gsize + iu)[~drop & (h[3] > 0)]).max() * 49
    tol = (K + 3) * 2.0 ** -24 * A
    assert (np.abs(out[..., 0] - G.real) <= tol).all() and (np.abs(out[..., 1] - G.imag) <= tol).all()
    assert np.count_nonzero(A) > 100


def test_grid_vis_const_exact_edges():
    # dyadic taps, integer visibilities: every sum exact in any order; footprints at the grid's edges
    gsize, n = 64, 256
    rng = np.random.default_rng(6)
    h = tp._p190_gv_args(n, rng, nant=12, gsize=gsize)
    inv_du = np.float32(0.25)
    pos = rng.integers(3, 61, (n, 2)).astype(np.float32) + rng.integers(-7, 8, (n, 2)).astype(np.float32) / 16
    pos[:6, 0] = [3, 60.0625, 2, 32, 3.3125, 32.1875]       # (u, v) cells: footprints at the corners,
    pos[:6, 1] = [3, 60.0625, 32, 61, 59.5625, 31.7]        # two a cell past the edge, offsets 0 .. 6
    h[0] = (pos[:, 0] - 32) / inv_du                        # u = (cell - gsize / 2) / inv_du, exactly
    h[1] = (pos[:, 1] - 32) / inv_du
    h[2] = rng.integers(-8, 9, 2 * n).astype(np.float32)
    h[3] = np.where(rng.random(n) < 0.1, 0, 1).astype(np.float32)
    h[3][:6] = 1
    h[5] = inv_du
    tab = ((np.arange(56) % 13 + 1) / 16).astype(np.float32).reshape(8, 7)
    out = run("probe/uvgrid-kb-const-atomic", h, n, symbols={"c_gcf": tab.ravel()})[4].reshape(gsize, gsize, 2)
    G, _ = tp._p190_gv_ref(h[0], h[1], h[2], h[3], inv_du, gsize, tab)
    assert (out[..., 0] == G.real).all() and (out[..., 1] == G.imag).all()
    iu, iv, ou, ov, _ = tp._p190_gv_bins(h[0][:6], h[1][:6], inv_du, gsize)
    assert list(iu) == [3, 60, 2, 32, 3, 32] and list(iv) == [3, 60, 32, 61, 60, 32]
    assert list(ou) == [4, 4, 4, 4, 6, 5] and list(ov) == [4, 4, 4, 4, 0, 1]
    # cells 3 and 60 keep their footprints (to the corners 0 and 63), cells 2 and 61 are dropped
    h[3][:] = 0
    h[3][[2, 3]] = 1
    assert G[0, 0] != 0 and G[63, 63] != 0 and not run("probe/uvgrid-kb-const-atomic", h, n,
                                                       symbols={"c_gcf": tab.ravel()})[4].any()


# ---- rfi-mad-bitonic ----

@pytest.mark.parametrize("rows, policy", [(6, "lockstep"), (1, "random")])
def test_rfi_mad(rows, policy):
    rng = np.random.default_rng(7)
    h = tp._p190_rf_args(6, rng, chunks=2)
    x = h[0].reshape(6, 1024)
    x[1, 100:300] += 40 * np.median(x[1])                   # an RFI burst on 20% of a row
    x[2] = 5.0                                              # a flat row (mad 0): the odd sample out flagged
    x[2, 17] = 5.5
    x[3, ::3] = 0                                           # a third dropped: ties in the sorts
    x[4] = np.float32(rng.permutation(1024))                # every value once
    if rows == 1:                                           # the burst row alone
        h = [x[1].copy(), h[1][:1024], h[2][:1], h[3][:1], h[4]]
        out = run("probe/rfi-mad-bitonic", h, 1, policy=policy)
        med, mad, flag, clean = tp._p190_rf_ref(x[1], h[4])
        assert (out[2] == med).all() and (out[3] == mad).all() and (out[1] == flag.ravel()).all()
        assert (out[0] == clean.ravel()).all() and flag[0, 100:300].all()
        return
    out = run("probe/rfi-mad-bitonic", h, 6, policy=policy)
    med, mad, flag, clean = tp._p190_rf_ref(x.ravel(), h[4])
    assert (out[2] == med).all() and (out[3] == mad).all()
    assert (out[1].reshape(6, 1024) == flag).all() and (out[0].reshape(6, 1024) == clean).all()
    assert flag[1, 100:300].all() and list(np.flatnonzero(flag[2])) == [17] and mad[2] == 0
    assert med[4] == 511.5 and mad[4] == 256 and not flag[4].any() and flag[0].sum() < 20


# ---- psr-harmsum-gather-shfl ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_harmonic_sum(policy):
    n, trials = 16 * 600, 3                                 # 600 fundamentals: 3 blocks, the last 88 busy
    if policy == "random":
        trials = 1
    rng = np.random.default_rng(8)
    h = tp._p190_hs_args(n, rng, trials=trials)
    P = h[0].reshape(trials, n)
    P[-1, 37 * np.arange(1, 17)] = np.float32(12)           # a pulsar at bin 37 (16 harmonics)
    P[0, 2 * 123] = np.float32(100)                         # a lone spike: the fundamental at its half
    out = run("probe/psr-harmsum-gather-shfl", h, n, policy=policy, grid=(3, trials))
    best, nh = tp._p190_hs_ref(h[0], n, trials)
    wv, wi = tp._p190_hs_warps(best, 24)
    assert (out[1].reshape(trials, 600) == best).all() and (out[2].reshape(trials, 600) == nh).all()
    assert (out[3].reshape(trials, 24) == wv).all() and (out[4].reshape(trials, 24) == wi).all()
    assert (out[3][19:24] < -1e38).all() and (out[4][19:24] == 32 * np.arange(19, 24)).all()   # idle warps
    assert nh[-1, 37] == 16 and best[-1, 37] >= 40 and out[4][24 * (trials - 1) + 1] == 37
    assert nh[0, 123] == 2 and out[4][3] == 123


# ---- psr-fold-f64-smem-atomic ----

@pytest.mark.parametrize("n, nsub, nchan, policy", [(4500, 1000, 4, "lockstep"), (1200, 700, 2, "random")])
def test_fold_pulsar(n, nsub, nchan, policy):
    # the last sub-integration partial
    rng = np.random.default_rng(9)
    h = tp._p190_fd_args(n, rng, nchan=nchan, nsub=nsub)
    ns = -(-n // nsub)
    out = run("probe/psr-fold-f64-smem-atomic", h, n, policy=policy, grid=(ns, nchan))[1]
    ref, margin = tp._p190_fd_ref(h[0], nchan, n, nsub)
    # integer samples: the bins' sums and counts exact, their means one float division
    assert margin > 1e-9 and (out == ref).all()
    assert (ref == 0).mean() > 0.1 and (ref.reshape(ns, nchan, 256).sum(axis=2) > 0).all()
    # constant data: 7 in every visited bin
    h[0] = np.full(nchan * n, 7, np.uint8)
    out = run("probe/psr-fold-f64-smem-atomic", h, n, grid=(ns, nchan))[1]
    assert set(np.unique(out)) == {0.0, 7.0} and ((out == 7) == (ref > 0)).all()
