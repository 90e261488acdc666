"""probe-unseen104's kernels (kernels_cuda/probes106.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/us-tgc-int16-channels", "probe/us-das-hann-aperture", "probe/us-hilbert-envelope-db",
       "probe/us-scanconv-sector-bilinear", "probe/us-doppler-kasai-ensemble", "probe/us-bmode-hist-frames"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen104"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes106.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # tgc: 16-bit speckle decaying with depth on each channel's DC offset, the TGC curve 0 .. 40 dB
    ns, nch = tp.P106_TGC_NS, tp.P106_TGC_NCH
    n = 4 * ns * nch
    adc, out, dc, gain, tgc, a_ns, a_nch, a_n = tp._p106_tgc_args(n, rng)
    assert adc.dtype == np.int16 and not out.any() and (a_ns, a_nch, a_n) == (ns, nch, n)
    assert np.abs(adc).max() < 32767                                        # nothing clipped
    rec = adc.reshape(4, nch, ns).astype(np.float64)
    assert np.corrcoef(rec[:, :, -1024:].mean(axis=(0, 2)), dc)[0, 1] > 0.98    # the offsets as measured
    top, deep = rec[:, :, :256].std(), rec[:, :, -256:].std()
    assert 40 < top / deep < 60                                             # exp(-4) over the record
    assert 0.9 <= gain.min() and gain.max() <= 1.1 and (np.diff(tgc) >= 0).all()
    assert tgc[0] == 1 and abs(20 * np.log10(tgc[-1]) - 40) < 1e-4 and tgc.shape == (ns,)
    # das: a 38.4 mm array, the lines across it, delays within the record, 6 .. ~100 elements a pixel
    ex = tp._p106_elem_x()
    assert abs(ex[-1] - ex[0] - 127 * 0.3e-3) < 1e-7 and abs(ex.sum()) < 1e-6
    rf, img, x0, dx, z0, dz, nx, nz, dns, fs_c, t0, fnum = tp._p106_das_args(512 * 16, rng)
    assert rf.shape == (128 * 2048,) and abs(rf.std() - 1) < 0.01 and (nx, nz, dns) == (512, 16, 2048)
    assert abs(x0 + 511 * dx / 2) < 1e-7 and abs(z0 + 16 * dz - 0.045) < 1e-7
    _, cnt = tp._p106_das_ref(rf, x0, dx, z0, dz, nx, nz)
    idx = np.arange(512 * 16)
    x = np.float64(x0) + (idx // 16) * np.float64(dx)
    z = np.float64(z0) + (idx % 16) * np.float64(dz)
    inap = (np.abs(x[:, None] - ex[None, :]) <= z[:, None] / 3).sum(axis=1)
    assert (cnt == inap).all() and cnt.min() == 6 and cnt.max() == 95      # no delay past the record (95 at 42.5 mm)
    assert np.percentile(cnt.reshape(512, 16)[64:-64, 0], 50) == 11             # 11 at 5 mm away from the edges
    # hilbert: an antisymmetric FIR with zero even taps, unit gain near the carrier; rarely clamped
    h = tp._p106_hilbert_taps().astype(np.float64)
    assert (h == -h[::-1]).all() and not h[1::2].any() and h[15] == 0
    m = np.arange(31) - 15
    for f in (0.1, 0.2, 0.3):
        assert abs(abs((h * np.exp(-2j * np.pi * f * m)).sum()) - 1) < 0.05
    rf, bm, hns, ref, dr = tp._p106_hb_args(64 * 4096, rng)
    lines = rf.reshape(64, 4096)
    assert hns == 4096 and rf.dtype == np.float32 and abs(lines[:, :256].std() - 1) < 0.1
    assert 5 < lines[:, :256].std() / lines[:, -256:].std() < 9                # exp(-2)
    spec = np.abs(np.fft.rfft(lines, axis=1)).mean(axis=0)
    assert abs(np.argmax(spec) / 4096 - tp.P106_HB_F0) < 0.02
    b, _ = tp._p106_hb_ref(rf)
    assert (b == 0).mean() < 1e-3 and (b == 255).mean() < 1e-3 and 150 < np.median(b) < 190
    # scan conversion: ~46% of a frame outside the 90-degree sector; speckle bytes
    fb, fs = tp._p106_sc_coords(1024)
    inside = (fb >= 0) & (fb < 255) & (fs >= 0) & (fs < 1023)
    assert 0.44 < 1 - inside.mean() < 0.48 and tp._p106_sc_grid(1 << 24) == (64, 64, 16)
    sc = tp._p106_sc_args(16 * 64 * 64, rng)
    assert sc[0].shape == (16 * 256 * 1024,) and sc[0].dtype == np.uint8 and sc[4] == 64
    assert 200 < np.median(sc[0]) < 230 and sc[0].min() < 50
    # doppler: ~half the pixels in vessels, the clutter removed, their power over the threshold
    n = 1 << 14
    dop = tp._p106_dop_args(n, rng)
    iq = dop[0].view(np.complex64).reshape(16, n)
    assert dop[0].shape == (2 * 16 * n,) and abs(np.abs(iq).mean() - 20) < 0.5
    vel, pw_db, pw = tp._p106_dop_ref(dop[0])
    on = pw > tp.P106_DOP_THRESH
    assert 0.45 < on.mean() < 0.5 and (np.abs(pw - tp.P106_DOP_THRESH) < 0.01).mean() < 0.01
    assert np.median(pw[~on]) < 0.03 and np.median(pw[on]) > 0.5
    assert np.abs(vel).max() < 0.65 * tp.P106_DOP_VNYQ and (vel > 0).mean() > 0.2 and (vel < 0).mean() > 0.05
    # the vessels are bands along depth: 10 of a line's 16 warps all in or all out, 6 split at the walls
    w = on[:n // 32 * 32].reshape(-1, 32)
    assert 0.6 < (w.all(axis=1) | ~w.any(axis=1)).mean() < 0.65
    # histogram: the sector's black background and the speckle's bins
    hi = tp._p106_hist_args(16 * 128 * 128, rng)
    assert hi[2] == 128 * 128 and not hi[1].any() and hi[1].shape == (16 * 256,)
    assert 0.44 < (hi[0] == 0).mean() < 0.48 and np.argmax(np.bincount(hi[0][hi[0] > 0])) in range(205, 230)
    assert tp._p106_hist_grid(1 << 24) == (64, 16) and tp._p106_hist_grid(16 * 48 * 48) == (9, 16)


# ---- us-tgc-int16-channels ----

def test_tgc_convert():
    n = 3 * 4096 + 100                                      # a partial record and block
    host, (adc, out, *_), *_ = launch("probe/us-tgc-int16-channels", n)
    assert (out == tp._p106_tgc_ref(host[0], host[2], host[3], host[4])).all()


def test_tgc_channels_wrap():
    # 64-sample records of 4 channels: frames wrap the channel index; the int16 extremes
    rng = np.random.default_rng(3)
    n = 1000
    host = tp._p106_tgc_args(n, rng, ns=64, nch=4)
    host[4] = tp._p106_tgc_curve(64)
    host[0][:3] = [-32768, 32767, 0]
    out = run("probe/us-tgc-int16-channels", host, n)[1]
    assert (out == tp._p106_tgc_ref(host[0], host[2], host[3], host[4], ns=64, nch=4)).all()
    assert out[0] < -30000 and out[1] > 30000


# ---- us-das-hann-aperture ----

@pytest.mark.parametrize("nx, nz", [(512, 4), (32, 40)])    # 4 depths, 40 (warps across two lines)
def test_das_beamform(nx, nz):
    rng = np.random.default_rng(4)
    n = nx * nz
    host = tp._p106_das_args(n, rng, nx=nx)
    out = run("probe/us-das-hann-aperture", host, n, symbols=tp._p106_das_syms(n, rng))[1]
    ref, cnt = tp._p106_das_ref(host[0], *host[2:8])
    assert cnt.min() >= 5 and (cnt < 128).all()
    np.testing.assert_allclose(out, ref, rtol=0, atol=3e-3)
    assert np.abs(ref).max() > 5


# ---- us-hilbert-envelope-db ----

def test_hilbert_envelope():
    n = 2 * 4096
    host, (rf, bm, *_), *_ = launch("probe/us-hilbert-envelope-db", n)
    ref, v = tp._p106_hb_ref(host[0])
    d = bm.astype(int) - ref
    assert np.abs(d).max() <= 1
    near = np.abs(v - np.round(v)) < 1e-3                   # v + 0.5 within rounding of an integer
    assert not d[~near].any() and near.mean() < 1e-2


def test_hilbert_tone():
    # a pure tone at the carrier: the envelope 1 away from the lines' ends (zero-padded there)
    rng = np.random.default_rng(5)
    n = 2 * 4096
    host = tp._p106_hb_args(n, rng)
    s = np.arange(4096)
    host[0] = np.tile(np.cos(2 * np.pi * tp.P106_HB_F0 * s + 0.3), 2).astype(np.float32)
    bm = run("probe/us-hilbert-envelope-db", host, n, symbols=tp._p106_hb_syms(n, rng))[1].reshape(2, 4096)
    ref = tp._p106_hb_ref(host[0])[0].reshape(2, 4096)
    assert np.abs(bm.astype(int) - ref).max() <= 1
    one = int(np.floor((20 * np.log10(1 / tp.P106_HB_REF) + 60) * 255 / 60 + 0.5))
    assert np.abs(bm[:, 20:-20].astype(int) - one).max() <= 1
    assert (bm[:, 0].astype(int) < one - 1).all()           # half the taps off the line's end


# ---- us-scanconv-sector-bilinear ----

@pytest.mark.parametrize("side", [40, 37])                  # whole 16 x 16 tiles but the last, partial ones
def test_scan_convert(side):
    n = 16 * side * side
    host, (polar, img, *_), *_ = launch("probe/us-scanconv-sector-bilinear", n)
    ref, v, edge = tp._p106_sc_ref(host[0], side)
    d = img.astype(int) - ref
    # float32 coordinates (~1e-4 of a sample at 1000) move v by up to ~1e-2 near rounding ties
    inside = v > 0
    tie = inside & (np.abs(v - np.round(v)) < 1e-2)
    unsure = tie | (edge < 1e-4)
    assert np.abs(d[edge >= 1e-4]).max() <= 1 and not d[~unsure].any() and tie.sum() < 0.05 * inside.sum()
    assert 0.4 < (ref == 0).mean() < 0.55 and (img.reshape(16, side, side)[:, 0, :side // 4] == 0).all()


# ---- us-doppler-kasai-ensemble ----

def test_doppler_kasai():
    n = 2000                                                # lines of 512 depths, a partial block
    host, (iq, vel, pw, *_), *_ = launch("probe/us-doppler-kasai-ensemble", n)
    rv, rp, p = tp._p106_dop_ref(host[0])
    assert np.abs(p - tp.P106_DOP_THRESH).min() > 1e-4
    np.testing.assert_allclose(vel, rv, rtol=0, atol=2e-5)
    np.testing.assert_allclose(pw, rp, rtol=0, atol=2e-4)
    assert ((vel != 0) == (p > tp.P106_DOP_THRESH)).all() and (vel > 0).any() and (vel < 0).any()


def test_doppler_tone():
    # pure flow (no clutter, no noise) at phase steps of j pi / 8 (j = -7 .. 7, the wall
    # filter leaves it whole); one pixel of pure clutter (v 0)
    rng = np.random.default_rng(6)
    n = 64
    host = tp._p106_dop_args(n, rng)
    step = (np.arange(n) % 15 - 7) * np.pi / 8              # whole cycles over the ensemble: a zero mean
    k = np.arange(16)[:, None]
    sig = 0.7 * np.exp(1j * (k * step[None, :] + 0.4))
    sig[:, 5] = 20.0 * np.exp(0.9j)
    host[0] = sig.astype(np.complex64).view(np.float32).ravel()
    vel = run("probe/us-doppler-kasai-ensemble", host, n)[1]
    want = np.where((np.arange(n) == 5) | (step == 0), 0.0, tp.P106_DOP_VNYQ * step / np.pi)
    np.testing.assert_allclose(vel, want, rtol=0, atol=1e-5)


# ---- us-bmode-hist-frames ----

# side 48: 9 blocks a frame, 2304 pixels; random (slow): side 20, 2 blocks a frame (both
# adding into the frame's bins), 400 pixels, the second block partial
@pytest.mark.parametrize("policy, side", [("lockstep", 48), ("random", 20)])
def test_bmode_histogram(policy, side):
    n = 16 * side * side
    assert tp._p106_hist_grid(n) == ({48: 9, 20: 2}[side], 16)
    host, (img, hist, fp), *_ = launch("probe/us-bmode-hist-frames", n, policy=policy)
    ref = tp._p106_hist_ref(host[0], fp)
    assert (hist.reshape(16, 256) == ref).all() and ref.sum() == n and ref[:, 0].min() > 0.4 * fp


def test_bmode_histogram_edge_cases():
    # a frame all black, one all white, one counting every grey level alike, and a grid
    # of 64 blocks a frame whose stride loop makes a second, partial pass (side 130: 16900 pixels)
    rng = np.random.default_rng(7)
    n = 16 * 130 * 130
    host = tp._p106_hist_args(n, rng)
    fp = 130 * 130
    assert tp._p106_hist_grid(n) == (64, 16)
    img = host[0].reshape(16, fp)
    img[0] = 0
    img[1] = 255
    img[2] = np.arange(fp) % 256
    hist = run("probe/us-bmode-hist-frames", host, n)[1].reshape(16, 256)
    assert (hist == tp._p106_hist_ref(host[0], fp)).all()
    assert hist[0, 0] == fp and hist[1, 255] == fp and hist[2].min() == fp // 256 and hist[2].max() == fp // 256 + 1
