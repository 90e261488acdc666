"""probe-unseen63's kernels (kernels_cuda/probes65.cu) give numpy's (or plain Python's)
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen63"]
    assert ids == ["probe/fir-const-tile", "probe/biquad-cascade", "probe/fft256-shared",
                   "probe/frame-rms-hann", "probe/zcr-ballot", "probe/mel-filterbank"]
    assert all(tp.get(i).source == "probes65.cu" and tp.get(i).note for i in ids)



def test_audio():
    x = tp._u63_audio(1 << 16, np.random.default_rng(0))
    assert x.dtype == np.float32 and np.abs(x).max() <= 1.0
    seg = x.reshape(-1, tp.U63_SEG).astype(np.float64)
    r = np.sqrt((seg ** 2).mean(axis=1))
    assert (r < 3e-4).sum() >= 1 and (r > 0.05).sum() >= 5        # silences and louder segments


# ---- fir-const-tile ----

def fir_ref(x, h):
    return np.convolve(x.astype(np.float64), h.astype(np.float64))[:len(x)]


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_fir_const_tile(policy):
    n = 1000                                                # 4 blocks, the last partial
    host, (x, y, nn), syms, _ = launch("probe/fir-const-tile", n, policy=policy)
    h = syms["c_taps"]
    assert nn == n and len(h) == tp.U63_FIR_TAPS and abs(h.astype(np.float64).sum() - 1) < 1e-6
    assert (h == h[::-1]).all()                             # linear phase
    np.testing.assert_allclose(y, fir_ref(x, h), rtol=0, atol=2e-6)
    # the low-pass: DC passes, 12 kHz is gone
    H = np.abs(np.fft.rfft(h.astype(np.float64), 4800))
    assert abs(H[0] - 1) < 1e-6 and H[400] < 0.75 and H[1200:].max() < 3e-3


def test_fir_edge_cases():
    h = tp._u63_fir_taps()
    rng = np.random.default_rng(3)
    for n in (1, 62, 63, 257, 513):
        x = rng.uniform(-1, 1, n).astype(np.float32)
        out = run("probe/fir-const-tile", [x, np.zeros(n, np.float32), np.int32(n)], n, symbols={"c_taps": h})
        np.testing.assert_allclose(out[1], fir_ref(x, h), rtol=0, atol=2e-6)
    # an impulse in the second block gives the taps back across the block boundary
    n = 512
    x = np.zeros(n, np.float32)
    x[230] = 1.0
    y = run("probe/fir-const-tile", [x, np.zeros(n, np.float32), np.int32(n)], n, policy="random",
            symbols={"c_taps": h})[1]
    assert (y[230:293] == h).all() and (y[:230] == 0).all() and (y[293:] == 0).all()


# ---- biquad-cascade ----

def biquad_ref(x, sos, nch, ns):
    """The cascade in float64 (the float32 coefficients), channels along the rows' columns."""
    v_all = x.astype(np.float64).reshape(ns, nch)
    S = sos.astype(np.float64).reshape(nch, -1, 5)
    z1 = np.zeros(S.shape[:2])
    z2 = np.zeros(S.shape[:2])
    y = np.zeros((ns, nch))
    for t in range(ns):
        v = v_all[t]
        for s in range(S.shape[1]):
            b0, b1, b2, a1, a2 = S[:, s].T
            out = b0 * v + z1[:, s]
            z1[:, s] = b1 * v - a1 * out + z2[:, s]
            z2[:, s] = b2 * v - a2 * out
            v = out
        y[t] = v
    return y.ravel()


def test_biquad_cascade():
    n = 64 * tp.U63_BQ_SAMPLES                              # 64 channels: one block, half idle
    host = tp._u63_bq_args(n, np.random.default_rng(0))
    assert host[3] == 64 and host[4] == tp.U63_BQ_SAMPLES and len(host[1]) == 64 * tp.U63_BQ_SECTIONS * 5
    # the first 64 of each channel's samples (ns, an argument)
    host[0], host[2], host[4] = host[0][:64 * 64].copy(), np.zeros(64 * 64, np.float32), np.int32(64)
    x, sos, y, nch, ns = run("probe/biquad-cascade", host, n)
    ref = biquad_ref(x, sos, 64, int(ns))
    # float32's rounding in the recursion (sharp low-frequency sections) reaches ~1e-4 of
    # the peak by itself (numpy in float32 is as far off), a wrong term moves it by ~1
    np.testing.assert_allclose(y, ref, rtol=0, atol=5e-4 * np.abs(ref).max())
    # every section is stable (poles inside the unit circle)
    S = sos.astype(np.float64).reshape(-1, 5)
    assert (np.abs(S[:, 4]) < 1).all() and (np.abs(S[:, 3]) < 1 + S[:, 4]).all()


def test_biquad_edge_cases():
    rng = np.random.default_rng(4)
    # 300 channels (a partial second block) of 8 samples, a random schedule
    nch, ns = 300, 8
    x = rng.uniform(-1, 1, ns * nch).astype(np.float32)
    sh = (nch, tp.U63_BQ_SECTIONS)
    sos = tp._u63_peaking(rng.uniform(100, 10000, sh), rng.uniform(-12, 12, sh), rng.uniform(0.5, 4, sh))
    sos = sos.astype(np.float32).ravel()
    out = run("probe/biquad-cascade", [x, sos, np.zeros(ns * nch, np.float32), np.int32(nch), np.int32(ns)],
              nch * tp.U63_BQ_SAMPLES, policy="random")          # the grid's n: nch channels
    ref = biquad_ref(x, sos, nch, ns)
    np.testing.assert_allclose(out[2], ref, rtol=0, atol=5e-4 * np.abs(ref).max())
    # pass-through sections (b0 = 1) copy the input; a one-pole section's impulse response
    nch, ns = 2, 16
    sos = np.zeros((nch, tp.U63_BQ_SECTIONS, 5), np.float32)
    sos[:, :, 0] = 1
    sos[1, 0] = [1, 0, 0, -0.5, 0]
    x = np.zeros((ns, nch), np.float32)
    x[0] = 1
    x[3, 0] = 2
    y = run("probe/biquad-cascade", [x.ravel(), sos.ravel(), np.zeros(ns * nch, np.float32), np.int32(nch),
                                     np.int32(ns)], nch * tp.U63_BQ_SAMPLES)[2].reshape(ns, nch)
    assert (y[:, 0] == x[:, 0]).all() and (y[:, 1] == 0.5 ** np.arange(ns)).all()


# ---- fft256-shared ----

def check_fft(x, out, nframes):
    z = (x[0::2].astype(np.float64) + 1j * x[1::2]).reshape(nframes, tp.U63_FFT_N)
    ref = np.fft.fft(z, axis=1)
    got = (out[0::2].astype(np.float64) + 1j * out[1::2]).reshape(nframes, tp.U63_FFT_N)
    scale = np.sqrt((np.abs(z) ** 2).sum(axis=1, keepdims=True)) + 1e-30
    assert (np.abs(got - ref) < 2e-6 * tp.U63_FFT_N ** 0.5 * scale + 1e-30).all()
    return got


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_fft256_shared(policy):
    n = 3 * tp.U63_FFT_N
    host, (x, out, nf), *_ = launch("probe/fft256-shared", n, policy=policy)
    assert nf == 3 and len(x) == 2 * n
    check_fft(x, out, 3)


def test_fft256_edge_cases():
    N = tp.U63_FFT_N
    t = np.arange(N)
    frames = [np.r_[1.0, np.zeros(N - 1)],                      # an impulse: all ones
              np.ones(N),                                       # a constant: bin 0
              np.exp(2j * np.pi * 37 * t / N),                  # a complex tone on bin 37
              np.cos(2 * np.pi * 5 * t / N),                    # a real cosine: bins 5 and 251
              np.zeros(N)]
    z = np.concatenate(frames)
    x = np.empty(2 * len(z), np.float32)
    x[0::2], x[1::2] = z.real, z.imag
    out = run("probe/fft256-shared", [x, np.zeros_like(x), np.int32(len(frames))], len(z), policy="random")[1]
    got = check_fft(x, out, len(frames))
    assert np.allclose(got[0], 1, atol=1e-6) and abs(got[1][0] - N) < 1e-4 and np.abs(got[1][1:]).max() < 1e-4
    assert abs(got[2][37] - N) < 1e-3 and np.abs(np.delete(got[2], 37)).max() < 1e-3
    assert abs(got[3][5] - N / 2) < 1e-3 and abs(got[3][N - 5] - N / 2) < 1e-3
    assert (got[4] == 0).all()


# ---- frame-rms-hann ----

def rms_ref(x, nf):
    F, H = tp.U63_RMS_FRAME, tp.U63_RMS_HOP
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(F) / F)
    fr = np.stack([x[f * H:f * H + F].astype(np.float64) for f in range(nf)]) if nf else np.zeros((0, F))
    return np.sqrt(((w * fr) ** 2).mean(axis=1))


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_frame_rms_hann(policy):
    n = 12000                                                # 22 frames, the tail dropped
    host, (x, nf, rms, db), *_ = launch("probe/frame-rms-hann", n, policy=policy)
    assert nf == 22 == (n - 1024) // 512 + 1
    ref = rms_ref(x, 22)
    np.testing.assert_allclose(rms, ref, rtol=2e-6)
    np.testing.assert_allclose(db, 20 * np.log10(ref + 1e-10), atol=2e-4)


def test_frame_rms_edge_cases():
    F = tp.U63_RMS_FRAME
    t = np.arange(4 * F)
    # silence, a full-scale 1 kHz sine (RMS 1/sqrt(2) times the Hann's sqrt(3/8)), a DC
    # level, one frame exactly
    x = np.r_[np.zeros(F), np.sin(2 * np.pi * 1000 * t / tp.U63_FS), np.full(F, 0.5)].astype(np.float32)
    nf = tp._u63_rms_frames(len(x))
    out = run("probe/frame-rms-hann", [x, np.int32(nf), np.zeros(nf, np.float32), np.zeros(nf, np.float32)],
              len(x), policy="random")
    np.testing.assert_allclose(out[2], rms_ref(x, nf), rtol=2e-6, atol=1e-12)
    assert out[2][0] == 0 and out[3][0] == pytest.approx(-200.0)
    assert out[2][4] == pytest.approx(np.sqrt(3 / 16), rel=1e-4) and out[3][4] == pytest.approx(-7.27, abs=0.01)
    assert tp._u63_rms_frames(F) == 1 and tp._u63_rms_frames(F - 1) == 0


# ---- zcr-ballot ----

def zcr_ref(x, nf):
    s = (x[:nf * tp.U63_ZCR_FRAME] >= 0).reshape(nf, tp.U63_ZCR_FRAME)
    c = (s[:, 1:] != s[:, :-1]).sum(axis=1)
    return c.astype(np.float32) / np.float32(tp.U63_ZCR_FRAME - 1)


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_zcr_ballot(policy):
    n = 20 * 512 + 100                                     # 20 frames (3 blocks, the last partial), a tail
    host, (x, nf, zcr), *_ = launch("probe/zcr-ballot", n, policy=policy)
    assert nf == 20
    np.testing.assert_array_equal(zcr, zcr_ref(x, 20))
    assert zcr.min() < 0.05 and zcr.max() > 0.3                 # tones and noise


def test_zcr_edge_cases():
    Z = tp.U63_ZCR_FRAME
    k = np.arange(Z)
    x = np.r_[np.where(k % 2, 1.0, -1.0), np.zeros(Z), np.full(Z, -0.0), -np.ones(Z),
              np.where(k == 300, 1.0, -1.0), np.sin(2 * np.pi * 3 * k / Z + 0.1)].astype(np.float32)
    nf = len(x) // Z
    out = run("probe/zcr-ballot", [x, np.int32(nf), np.zeros(nf, np.float32)], len(x), policy="random")[2]
    np.testing.assert_array_equal(out, zcr_ref(x, nf))
    assert out[0] == 1 and out[1] == 0 and out[2] == 0 and out[3] == 0
    assert out[4] == np.float32(2 / 511) and out[5] == np.float32(6 / 511)


# ---- mel-filterbank ----

def test_mel_bank():
    start, length, off, w = tp._u63_mel_bank()
    assert len(start) == tp.U63_MEL_BANDS and (length >= 1).all() and (np.diff(start) >= 0).all()
    assert (off == np.r_[0, np.cumsum(length)[:-1]]).all() and len(w) == length.sum()
    assert (w > 0).all() and (w <= 1).all() and start[-1] + length[-1] <= tp.U63_MEL_BINS
    assert length.min() <= 3 and length.max() >= 25             # narrow low bands, wide high ones


def mel_ref(P, start, length, off, w, n):
    S = P.astype(np.float64).reshape(-1, tp.U63_MEL_BINS)
    W = np.zeros((tp.U63_MEL_BANDS, tp.U63_MEL_BINS))
    for m in range(tp.U63_MEL_BANDS):
        W[m, start[m]:start[m] + length[m]] = w[off[m]:off[m] + length[m]]
    return np.log((S @ W.T).ravel()[:n] + 1e-10)


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_mel_filterbank(policy):
    n = 9 * tp.U63_MEL_BANDS                                   # 9 frames, 3 blocks (the last partial)
    host, (P, start, length, off, w, logmel, nn), *_ = launch("probe/mel-filterbank", n, policy=policy)
    assert nn == n and len(P) == 9 * tp.U63_MEL_BINS
    np.testing.assert_allclose(logmel, mel_ref(P, start, length, off, w, n), rtol=0, atol=2e-5)


def test_mel_filterbank_edge_cases():
    start, length, off, w = tp._u63_mel_bank()
    B, M = tp.U63_MEL_BINS, tp.U63_MEL_BANDS
    # a flat spectrum (each band its weights' sum), silence (log 1e-10), a single bin, and
    # n cutting the last frame short
    P = np.r_[np.ones(B), np.zeros(B), np.where(np.arange(B) == 100, 1.0, 0.0)].astype(np.float32)
    n = 3 * M - 5
    out = run("probe/mel-filterbank", [P, start, length, off, w, np.zeros(n, np.float32), np.int32(n)], n,
              policy="random")[5]
    ref = mel_ref(P, start, length, off, w, n)
    np.testing.assert_allclose(out, ref, rtol=0, atol=2e-5)
    sums = np.add.reduceat(w.astype(np.float64), off)
    np.testing.assert_allclose(out[:M], np.log(sums + 1e-10), atol=2e-5)
    assert out[M:2 * M] == pytest.approx(np.log(np.float32(1e-10)), abs=1e-5)
    hit = (start <= 100) & (100 < start + length)
    assert 1 <= hit.sum() <= 2 and (out[2 * M:][hit[:n - 2 * M]] > -5).all()
