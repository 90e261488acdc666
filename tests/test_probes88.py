"""probe-unseen86's kernels (kernels_cuda/probes88.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/pfb-fir-int8", "probe/fx-xmac-smem", "probe/dedisp-bruteforce-u8", "probe/uv-grid-atomic",
       "probe/rfi-flag-sigma", "probe/beamform-sincos"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen86"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes88.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # pfb: 8-bit noise of rms 12 plus a tone of amplitude 20 (rms 14.1), none clipped; a
    # Hann-windowed sinc, symmetric, 1 at its middle
    nchan = tp._P88_PFB_NCHAN
    x, h, y, nc, ns = tp._p88_pfb_args(64 * nchan, rng)
    assert x.dtype == np.int8 and len(x) == (64 + 7) * nchan and nc == nchan and ns == 64
    assert abs(x.std() - np.hypot(12, 20 / np.sqrt(2))) < 0.3 and np.abs(x.astype(int)).max() < 100
    spec = np.abs(np.fft.rfft(x[:1 << 16].astype(np.float64)))
    assert abs(np.argmax(spec[1:]) + 1 - tp._P88_PFB_TONE[0] * (1 << 16)) <= 1
    assert h.dtype == np.float32 and len(h) == 8 * nchan and np.allclose(h, h[::-1], atol=1e-6)
    assert abs(h.max() - 1) < 1e-3 and abs(h.sum() / nchan - 1) < 0.05
    # fx: 2080 baselines i <= j; the sky signal's correlation (0.25 of the noise) in the
    # cross-correlations (with 128 samples' noise), the autos 1.25
    V, a1, a2, vis, n, nt = tp._p88_xm_args(4, rng)
    assert len(a1) == 2080 == tp._P88_XM_NANT * 65 // 2 and (a1 <= a2).all() and len(set(zip(a1, a2))) == 2080
    assert V.dtype == np.float32 and len(V) == 2 * nt * 4 * 64 and len(vis) == 2 * 4 * 2080 and nt == 128
    R = tp._p88_xm_ref(V, 4, nt) / nt
    auto = a1 == a2
    assert abs(R[:, auto].real.mean() - 1.25) < 0.05 and np.abs(R[:, auto].imag).max() < 1e-9
    assert 0.22 < np.abs(R[:, ~auto]).mean() < 0.34          # 0.25 plus the noise (~0.1 alone)
    # dedispersion: delays 0 for channel 0 and DM 0, growing with DM and down the band, at
    # most ~4100 samples at DM 255; the pulse stands out at its DM and time
    ndm, nout = tp._p88_dd_shape(1 << 21)
    assert (ndm, nout) == (256, 8192)
    D = tp._p88_dd_delays(256)
    assert (D[0] == 0).all() and (D[:, 0] == 0).all() and (np.diff(D, axis=1) >= 0).all()
    assert (np.diff(D, axis=0) >= 0).all() and 4000 < D.max() < 4200
    fb, delay, out, nch, nin, no = tp._p88_dd_args(32 * 32 * 32, rng)
    assert fb.dtype == np.uint8 and nch == 256 and no == 1024 and nin == 1024 + delay.max()
    F = fb.reshape(nch, nin).astype(np.float64)
    gain = 1 + 0.3 * np.sin(np.linspace(0, 3 * np.pi, nch))     # the bandpass
    assert np.abs(np.median(F, axis=1) / gain - 96).max() < 2 and np.abs(F.std(axis=1) / gain - 12).max() < 1
    assert 0 < fb.min() and fb.max() < 255
    S = tp._p88_dd_ref(fb, delay, nch, nin, no)
    d, t = np.unravel_index(np.argmax(S), S.shape)
    assert d == round(0.45 * 32) and 0 <= t - no // 3 < 3
    # gridding: every visibility's footprint on the grid, a quarter of them within 1/8 of
    # its radius (1/64 of its area: contention), the longest reaching ~800 cells out; the
    # convolution function symmetric, 1 at 0
    u, v, vs, wt, gcf, grid, inv_du, gs, nv = tp._p88_gv_args(1 << 16, rng)
    iu, iv, fu, fv, on = tp._p88_gv_cells(u, v, inv_du, gs)
    assert on.all() and gs == 2048 and len(grid) == 2 * 2048 * 2048 and len(vs) == 2 * nv
    r = np.hypot(iu - 1024, iv - 1024)
    assert np.abs(fu).max() == 4 and 0.2 < (r < 128).mean() < 0.4 and 600 < r.max() < 1000
    assert np.bincount(iv * gs + iu).max() > 10                 # visibilities a cell, at most
    assert gcf[32] == 1 and np.allclose(gcf, gcf[::-1]) and len(gcf) == 65 and 0.5 <= wt.min()
    # rfi: of 128 channels one with intermittent RFI (+10 .. 30 sigma), one constant (+50
    # sigma, its median far above the bandpass); ~0.25% flagged, the bursts in every channel
    nt = tp._P88_RFI_NT
    data, flags, cnt, ntime, thresh = tp._p88_rfi_args(128 * nt, rng)
    assert data.dtype == np.float32 and ntime == nt and thresh == 5 and len(cnt) == 128
    X = data.reshape(128, nt)
    med = np.median(X, axis=1)
    assert 55 < med.min() and (med > 150).sum() == 1 and np.sort(med)[-2] < 150
    _, f, c, gap = tp._p88_rfi_ref(data, nt)
    assert 0.001 < f.mean() < 0.01 and (c >= 10).all() and c.max() > 50 and gap > 1e-4
    # beamform: the source's beam the brightest, its power ~ 64^2 x 0.1 over the noise's 64
    V, freq, bl, bm, pw, nch, nt = tp._p88_bf_args(2 * 64 * 256, rng)
    ax, ay = tp._p88_bf_ants(rng)
    assert nch == 2 and nt == 256 and np.hypot(ax, ay).max() <= 1500 and len(bl) == 64
    assert abs(float(freq[1]) - float(freq[0]) - 0.78125e6) < 200 and np.allclose(np.diff(np.unique(bl)), 1e-4)
    P = tp._p88_bf_ref(V, freq, bl, bm, nch, nt).mean(axis=(1, 2))
    assert np.argmax(P) == tp._P88_BF_SRC and 300 < P.max() < 700 and np.median(P) < 200


# ---- pfb-fir-int8 ----

def test_pfb_fir():
    rng = np.random.default_rng(1)
    host = tp._p88_pfb_args(500, rng, nchan=100)                # 2 blocks, the last partial
    x, h, y, nchan, nspec = run("probe/pfb-fir-int8", host, 500)
    assert (nchan, nspec) == (100, 5)
    np.testing.assert_allclose(y, tp._p88_pfb_ref(host[0], host[1], 100, 5).ravel(), rtol=1e-5, atol=1e-4)


def test_pfb_fir_default_channels():
    n = 3 * tp._P88_PFB_NCHAN
    host, (x, h, y, nchan, nspec), *_ = launch("probe/pfb-fir-int8", n)
    ref = tp._p88_pfb_ref(host[0], host[1], nchan, nspec).ravel()
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-4)
    assert np.abs(ref).max() > 50


# ---- fx-xmac-smem ----

@pytest.mark.parametrize("policy, nchan", [("lockstep", 3), ("random", 1)])
def test_fx_xmac(policy, nchan):
    rng = np.random.default_rng(2)
    host = tp._p88_xm_args(nchan, rng, ntime=64)               # 2 chunks (the random schedule is slow)
    nb = tp._P88_XM_NBL
    if policy == "lockstep":
        out = run("probe/fx-xmac-smem", host, nchan, policy=policy)
    else:
        # random (slower still): the channel's first block alone, its 256 baselines (the
        # grid's 9 blocks ~8 s): its 8 warps staging both chunks and crossing the barriers
        nb = tp.get("probe/fx-xmac-smem").block
        out = run("probe/fx-xmac-smem", host, nchan, policy=policy, grid=(1, 1))
    got = out[3].view(np.complex64).reshape(nchan, -1)
    ref = tp._p88_xm_ref(host[0], nchan, 64)
    np.testing.assert_allclose(got[:, :nb], ref[:, :nb], rtol=0, atol=1e-4)
    assert (got[:, nb:] == 0).all()                            # the blocks not run
    a1, a2 = tp._p88_xm_tables()
    auto = (a1 == a2)[:nb]
    assert auto.sum() >= 5 and np.abs(got[:, :nb][:, auto].imag).max() < 1e-4 and (got[:, :nb][:, auto].real > 0).all()


# ---- dedisp-bruteforce-u8 ----

def test_dedisperse():
    n = 32 * 16 * 16                                            # 16 DM trials x 512 samples
    host, (fb, delay, out, nchan, nin, nout), *_ = launch("probe/dedisp-bruteforce-u8", n)
    assert (nchan, nout) == (256, 512)
    ref = tp._p88_dd_ref(fb, delay, nchan, nin, nout)
    assert (out == ref.ravel()).all()                           # integer sums: exact
    d, t = np.unravel_index(np.argmax(ref), ref.shape)
    assert d == 7 and 0 <= t - nout // 3 < 3


def test_dedisperse_partial_block():
    # 8 DM trials of 64 channels, nout 200 of the grid's 256 threads a trial (the rest
    # return at once)
    rng = np.random.default_rng(3)
    n = 32 * 8 * 8
    host = tp._p88_dd_args(n, rng, nchan=64)
    host[5] = np.int32(200)                                     # nout 200 of the grid's 256
    fb, delay, out, nchan, nin, nout = run("probe/dedisp-bruteforce-u8", host, n)
    ref = tp._p88_dd_ref(fb, delay, 64, nin, 200)
    got = out[:8 * 200].reshape(8, 200)
    assert (got == ref).all() and (out[8 * 200:] == 0).all()


# ---- uv-grid-atomic ----

# 600: 3 blocks, the last partial; random (slow): 72, one partial block of 3 warps, the last
# partial (the footprints still overlap: colliding atomics within and across warps)
@pytest.mark.parametrize("policy, n", [("lockstep", 600), ("random", 72)])
def test_grid_vis(policy, n):
    rng = np.random.default_rng(4)
    gs = 256
    host = tp._p88_gv_args(n, rng, gsize=gs)
    host[0][:5] = np.float32(1e6)                               # off the grid: dropped
    host[1][5:8] = np.float32(-1e6)
    out = run("probe/uv-grid-atomic", host, n, policy=policy)
    G, on = tp._p88_gv_ref(host[0], host[1], host[2], host[3], host[6], gs)
    assert on.sum() == n - 8
    got = out[5].view(np.complex64).reshape(gs, gs)
    np.testing.assert_allclose(got, G, rtol=0, atol=2e-5 * np.abs(G).max())
    assert (got != 0).sum() == (G != 0).sum() > 1500


# ---- rfi-flag-sigma ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_rfi_flag(policy):
    nt = tp._P88_RFI_NT
    n = 4 * nt
    host, (data, flags, cnt, ntime, thresh), *_ = launch("probe/rfi-flag-sigma", n, policy=policy)
    d, f, c, gap = tp._p88_rfi_ref(host[0], nt)
    assert gap > 1e-4
    assert (flags == f).all() and (cnt == c).all() and c.min() > 10
    np.testing.assert_allclose(data, d, rtol=2e-6)
    assert (data[f == 0] == host[0][f == 0]).all()


# ---- beamform-sincos ----

def test_beamform():
    n = 64 * 256                                                # one channel: 64 blocks
    host, (V, freq, bl, bm, pw, nchan, ntime), syms, _ = launch("probe/beamform-sincos", n)
    ref = tp._p88_bf_ref(V, freq, bl, bm, nchan, ntime, ants=(syms["c_ant_x"], syms["c_ant_y"]))
    np.testing.assert_allclose(pw, ref.ravel(), rtol=2e-4, atol=1e-2)
    assert np.argmax(ref.mean(axis=(1, 2))) == tp._P88_BF_SRC


def test_beamform_partial_block():
    rng = np.random.default_rng(6)
    n = 64 * 256
    host = tp._p88_bf_args(n, rng, ntime=200)                   # 200 samples of the block's 256
    host[1][:] = np.float32(1.42e9)
    V, freq, bl, bm, pw, nchan, ntime = run("probe/beamform-sincos", host, n, symbols=tp._p88_bf_syms(n, rng))
    ref = tp._p88_bf_ref(V, freq, bl, bm, 1, 200)
    np.testing.assert_allclose(pw, ref.ravel(), rtol=2e-4, atol=1e-2)
