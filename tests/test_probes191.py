"""probe-unseen189's kernels (kernels_cuda/probes191.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/eeg-butter-biquad", "probe/eeg-csp-cov-smem", "probe/eeg-welch-dft-const",
       "probe/eeg-artifact-atomic", "probe/eeg-plv-sincos", "probe/eeg-rls-eog-double"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen189"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes191.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _psd(x, fs=tp.P191_FS):
    """Mean periodogram over the trials (x: trials x T x C) at 1 / (T / fs) Hz steps."""
    X = np.fft.rfft(np.asarray(x, np.float64) - np.mean(x, axis=1, keepdims=True), axis=1)
    return (np.abs(X) ** 2).mean(axis=0), np.fft.rfftfreq(x.shape[1], 1 / fs)


def test_data():
    rng = np.random.default_rng(0)
    # the band-pass: -3 dB at the band's edges, unit gain at the centre, zeros at DC and Nyquist
    sos = tp._p191_butter_sos()
    lo, hi = tp.P191_BP_BAND
    H = np.abs(tp._p191_sos_response(sos, 2 * np.pi * np.array([lo, hi, np.sqrt(lo * hi), 0, 128]) / 256))
    assert np.allclose(H[:2], 2 ** -0.5, atol=1e-4) and abs(H[2] - 1) < 0.05 and (H[3:] < 1e-6).all()
    assert all((np.abs(np.roots(s[3:])) < 0.95).all() for s in sos.astype(np.float64))
    # background EEG: the channels' RMS, volume conduction, 1/f with alpha at the back, mu over the centre
    x, rms = tp._p191_eeg(64, 512, rng)
    assert x.dtype == np.float32 and x.shape == (64, 512, 64)
    assert np.allclose(x.std(axis=(0, 1)), rms, rtol=0.02) and 5 < rms.min() and rms.max() < 20
    cc = np.corrcoef(x.reshape(-1, 64).T)
    assert cc[27, 28] > 0.5 and cc[27, 35] > 0.5 and abs(cc[0, 63]) < 0.1             # neighbours vs far apart
    P, f = _psd(x)
    at = lambda hz: P[np.argmin(np.abs(f - hz))]                   # noqa: E731
    back, front = at(10)[48:].mean() / at(6)[48:].mean(), at(10)[:8].mean() / at(6)[:8].mean()
    assert back > 3 and front < back / 2 and (at(4) > 10 * at(40)).all()
    assert at(12)[[25, 26, 29, 30]].mean() > 1.5 * at(12)[[0, 7, 56, 63]].mean()       # mu over C3, C4
    amp = x[:, :, 60].std(axis=1)                                  # alpha waxes and wanes over trials
    assert amp.max() > 1.5 * amp.min()
    # raw trials: DC offsets, drifts and 50 Hz line noise, all gone through the band-pass
    x, y, s, T, C, n = tp._p191_bp_args(16, rng)
    assert (T, C, n) == (tp.P191_BP_T, 64, 16) and len(x) == n * T * C and (s == sos.ravel()).all()
    x = x.reshape(n, T, C)
    off = x.mean(axis=(0, 1))
    assert 1000 < np.abs(off).mean() < 1600 and np.abs(off).max() > 2000
    P, f = _psd(x)
    assert (P[np.argmin(np.abs(f - 50))] > 10 * P[np.argmin(np.abs(f - 45))]).mean() > 0.9
    x, cov, T = tp._p191_cv_args(256, rng, T=64)
    p = x.reshape(256, 64, 64).var(axis=(1, 2))
    assert T == 64 and len(cov) == 256 * 64 * 64 and 0.6 < np.log(p).std() < 1.0     # trial power lognormal
    x, psd, T, C, klo, nb, scale, n = tp._p191_wl_args(4, rng)
    assert (T, C, klo, nb, n) == (512, 64, 2, 19, 4) and len(psd) == n * nb * C
    syms = tp._p191_wl_syms(n, rng)
    assert abs(syms["c_hann"].sum() - 64) < 1e-5 and syms["c_hann"][0] == 0 and syms["c_sin"][32] == 1
    assert abs(scale * 256 * (syms["c_hann"].astype(np.float64) ** 2).sum() - 2) < 1e-6
    # artifacts: blinks exceed the thresholds at the front, pops jump once in ~10% of trials
    x, thr, ac, jc, fb, jump, T, C, nn = tp._p191_ar_args(128, rng)
    assert nn == 128 * T * C and (fb == T).all() and not ac.any() and not jc.any() and jump == 50
    a, j, f = tp._p191_ar_ref(x, thr, jump, T, C)
    row = a.reshape(128, 8, 8).sum(axis=(0, 2)) / (128 * T * 8)
    assert 0.02 < row[0] < 0.07 and row[1] < row[0] and (row[3:] < 0.003).all()
    assert 0.04 < (j.reshape(128, C).sum(axis=1) > 0).mean() < 0.18 and j.max() == 1
    assert 0.4 < (f < T).mean() < 0.8 and np.allclose(thr, 5 * x.reshape(128, T, C)[:, :, 40:].std(), rtol=0.5)
    # phases: networks phase-locked, the rest not; networks 0 and 1 synchronised by the stimulus
    ph, plv, ntr, times, n = tp._p191_plv_args(64, rng, times=128)
    assert ph.dtype == np.float32 and -np.pi <= ph.min() and ph.max() < np.pi and ntr == 200 and times == 128
    P = tp._p191_plv_ref(ph, ntr, times, n)
    assert np.median(P[:, 1, 5]) > 0.2 and np.median(P[:, 60, 63]) < 0.15 and np.median(P[:, 1, 40]) < 0.15
    assert P[tp.P191_PLV_ONSET:tp.P191_PLV_ONSET + 4, 1, 20].mean() > 0.3 > P[:60, 1, 20].mean()
    # EOG: blinks on VEOG, saccades' steps on HEOG, propagated most to the front, HEOG with opposite signs
    x, eog, cl, lam, delta, T, C, n = tp._p191_rls_args(32, rng)
    assert (T, C, n) == (tp.P191_RLS_T, 64, 32) and lam == 0.999 and len(eog) == n * T * 2
    assert x.dtype == eog.dtype == np.float32
    e = eog.reshape(n, T, 2)
    assert np.percentile(e[:, :, 0], 99.9) > 150 and np.percentile(np.abs(np.diff(e[:, :, 1], axis=1)), 99.5) > 10
    W = tp._p191_rls_coef()
    assert W[0, 0] > W[63, 0] > 0 and W[0, 1] < 0 < W[7, 1] and W[3, 1] < 0 < W[4, 1] and abs(W[3, 1]) < W[7, 1] / 5
    assert np.allclose(W[:, 0::2].sum(axis=1), 0.5 * np.exp(-(np.arange(64) // 8) / 1.5))
    r = [[np.corrcoef(e[:, :, k].ravel(), x.reshape(n, T, C)[:, :, c].ravel())[0, 1] for c in (0, 3, 7, 60)]
         for k in (0, 1)]
    assert r[0][1] > 0.7 and r[1][0] < -0.6 and r[1][2] > 0.6 and abs(r[0][3]) < 0.1 and abs(r[1][3]) < 0.1


# ---- eeg-butter-biquad ----

@pytest.mark.parametrize("n, T, policy", [(2, 300, "lockstep"), (1, 40, "random")])
def test_butter_bandpass(n, T, policy):
    rng = np.random.default_rng(1)
    h = tp._p191_bp_args(n, rng, T=T)
    out = run("probe/eeg-butter-biquad", h, n, policy=policy)
    ref = tp._p191_bp_ref(h[0], h[2], T, 64)
    xm = np.abs(h[0].reshape(n, T, 64)).max(axis=1, keepdims=True)
    # float32 against float64: the DC offsets (to ~5000 uV) rounded at 2^-24 and carried by the
    # poles (radius 0.905: ~10 samples' memory) through 10 roundings: < 1e-6 of the channel's peak
    assert (np.abs(out[1].reshape(n, T, 64) - ref) <= 1e-6 * xm).all()
    if T == 300:                                           # the offsets' transient gone, the EEG's mu/beta left
        assert np.abs(ref[:, 200:]).max() < 100 < np.abs(ref[:, :20]).max()
    # an impulse on one channel: the filter's impulse response there, nothing elsewhere
    h[0] = np.zeros(n * T * 64, np.float32)
    h[0][(n - 1) * T * 64 + 3] = 1.0
    out = run("probe/eeg-butter-biquad", h, n)[1].reshape(n, T, 64)
    imp = np.fft.irfft(tp._p191_sos_response(h[2].reshape(2, 6), 2 * np.pi * np.arange(2049) / 4096))[:T]
    assert np.count_nonzero(out[:, :, np.arange(64) != 3]) == 0 and not out[:n - 1].any()
    assert np.abs(out[n - 1, :, 3] - imp).max() < 1e-6 * np.abs(imp).max() and out[n - 1, 0, 3] == h[2][0]


# ---- eeg-csp-cov-smem ----

@pytest.mark.parametrize("n, T", [(2, 70), (1, 32)])
def test_csp_covariance(n, T):
    # 70: 3 tiles, the last 6 samples of 32; 32: exactly one (a block of 1024: lockstep only, for time)
    rng = np.random.default_rng(2)
    h = tp._p191_cv_args(n, rng, T=T)
    h[0].reshape(n, T, 64)[0, :, 9] = 0                    # a dead electrode
    out = run("probe/eeg-csp-cov-smem", h, n)[1].reshape(n, 64, 64)
    ref = tp._p191_cv_ref(h[0], T)
    d = np.sqrt(np.maximum(np.einsum("rii->ri", ref), 1e-30))
    # float32 sums of T products and 64 diagonal terms: < 2e-6 of sqrt(C_ii C_jj)
    assert (np.abs(out - ref) <= 2e-6 * d[:, :, None] * d[:, None, :]).all()
    assert (out == out.transpose(0, 2, 1)).all() and np.allclose(np.trace(out, axis1=1, axis2=2), 1, atol=1e-6)
    assert not out[0, 9].any() and not out[0, :, 9].any() and (out[0, 8, 8] > 0)


# ---- eeg-welch-dft-const ----

def test_welch_psd():
    T, klo, nb, C = 192, 4, 4, 32                          # 2 windows; bins 4 .. 7 (8 .. 14 Hz); a warp
    rng = np.random.default_rng(3)
    h = tp._p191_wl_args(1, rng, T=T, klo=klo, nbins=nb)
    syms = tp._p191_wl_syms(1, rng)
    x = np.ascontiguousarray(h[0].reshape(1, T, 64)[:, :, :C])
    h[:4] = [x.ravel(), np.zeros(nb * C, np.float32), np.int32(T), np.int32(C)]
    x[0, :, 0] = 10 * np.cos(2 * np.pi * 5 * np.arange(T) / 128)    # 10 uV at bin 5 (10 Hz) exactly
    x[0, :, 1] = 0
    out = run("probe/eeg-welch-dft-const", h, 1, symbols=syms)[1].reshape(nb, C)
    ref = tp._p191_wl_ref(h[0], T, C, klo, nb, h[6])[0]
    # float32 DFT of 128 terms against float64: |X| to ~1e-6 of sum |x w|, so each power to 1e-5 of
    # the window's largest (Parseval) power
    big = ref.max(axis=0)
    assert (np.abs(out - ref) <= 1e-5 * big + 1e-5 * ref).all() and ref[:, 2:].min() > 0
    # the cosine: (10/2 * 64)^2 at its bin, a quarter of it in the Hann taper's neighbours, none beyond
    s = float(h[6])
    assert np.allclose(out[:, 0] / s, [160 ** 2, 320 ** 2, 160 ** 2, 0], rtol=1e-5, atol=1e-2)
    assert not out[:, 1].any()


# ---- eeg-artifact-atomic ----

@pytest.mark.parametrize("n, T, policy", [(4, 100, "lockstep"), (2, 12, "random")])
def test_artifact_scan(n, T, policy):
    rng = np.random.default_rng(4)
    h = tp._p191_ar_args(n, rng, T=T)
    x = h[0].reshape(n, T, 64)
    thr = h[1]
    if n == 4:
        x[1] = 0                                            # a flat trial but for two bumps (steps of thr / 4)
        ramp = np.float32([0.25, 0.5, 0.75, 1, 1, 0.75, 0.5, 0.25])
        x[1, 16:24, 5] = ramp * thr[5]
        x[1, 20, 5] = np.nextafter(thr[5], np.float32(0))   # at the threshold (19) and under it: not over
        x[1, 21:29, 6] = -ramp * thr[6]
        x[1, 25, 6] = -np.nextafter(thr[6], np.float32(np.inf))   # just over: bad from sample 25
        x[2, 0, 7] = x[1, T - 1, 7] + 500                   # the previous trial's last sample is not "before" it
        x[2, 15, 8] = x[2, 14, 8] + 60                      # an electrode pop
        x[2, 16:, 8] += 60
        x[3, :, 20:] = np.clip(x[3, :, 20:], -20, 20)
        x[3, 10, 20] = 25                                   # a jump of exactly 50 (representable): not over
        x[3, 9, 20] = -25
    out = run("probe/eeg-artifact-atomic", h, n, policy=policy)
    a, j, f = tp._p191_ar_ref(h[0], thr, h[5], T, 64)
    assert (out[2] == a).all() and (out[3] == j).all() and (out[4] == f).all()
    if n == 4:
        assert f[1] == 25 and a.reshape(n, 64)[1].sum() == 1 and j.reshape(n, 64)[1].sum() == 0
        assert j.reshape(n, 64)[2, 8] == 1 and j.reshape(n, 64)[3, 20] == 0 and a.reshape(n, 64)[0].sum() > 0
        assert (f[[0, 2]] < T).all()


# ---- eeg-plv-sincos ----

@pytest.mark.parametrize("C, times, trials, policy", [(40, 6, 24, "lockstep"), (12, 3, 7, "random")])
def test_plv_pairs(C, times, trials, policy):
    # 40 channels: 2 x 5 blocks of 32 x 8, the second column of blocks partial
    rng = np.random.default_rng(5)
    h = tp._p191_plv_args(C, rng, times=times, trials=trials)
    ph = h[0].reshape(trials, times, C)
    ph[:, :, 2] = ph[:, :, 1]                               # two channels of identical phase
    out = run("probe/eeg-plv-sincos", h, C, policy=policy,
              grid=(-(-C // 32), -(-C // 8), times))[1].reshape(times, C, C)
    ref = tp._p191_plv_ref(h[0], trials, times, C)
    # sincosf to 2 ulp and the float32 phase difference rounded (< 2.4e-7 rad): < 2e-6 after the mean
    assert np.abs(out - ref).max() < 2e-6 and (out == out.transpose(0, 2, 1)).all()
    assert (out[:, np.arange(C), np.arange(C)] == 1).all() and (out[:, 1, 2] == 1).all()
    assert out.min() > 0 and out.max() <= 1


# ---- eeg-rls-eog-double ----

@pytest.mark.parametrize("C, T, lam, policy", [(8, 8, 0.9, "lockstep"), (40, 3, 0.999, "random")])
def test_rls_eog(C, T, lam, policy):
    # 8 channels: one warp, partial; 40: a block of 128, 2 warps working
    rng = np.random.default_rng(6)
    h = tp._p191_rls_args(1, rng, T=T, C=C, lam=lam)
    h[0].reshape(T, C)[:, 2] = 0                           # a flat channel: nothing to remove
    out = run("probe/eeg-rls-eog-double", h, 1, policy=policy)[2]
    ref = tp._p191_rls_ref(h[0], h[1], h[3], h[4], T, C).ravel()
    # double recursion against a direct solve (R's condition < 1e8: < 1e-8 uV apart), then the
    # float32 store: half an ulp of |e|
    assert (np.abs(out - ref) <= 1e-7 * np.abs(ref) + 1e-7).all()
    assert not out.reshape(T, C)[:, 2].any() and (out.reshape(T, C)[0] == h[0].reshape(T, C)[0]).all()
