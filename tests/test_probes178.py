"""probe-unseen176's kernels (kernels_cuda/probes178.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/chroma-fold-smem-atomic", "probe/superflux-warp-shfl", "probe/yin-diff-smem",
       "probe/tempo-acf-double-prior", "probe/subseq-dtw-wavefront", "probe/landmark-hash-atomic"]
U = 2.0 ** -24                                              # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen176"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes178.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    X = tp._p178_spec(1 << 14, rng)
    nb = tp.P178_BINS
    assert X.dtype == np.float32 and X.shape == (1 << 14, nb) and X.min() >= 0
    silent = X.max(axis=1) == 0                             # the gaps between tracks: exact zeros
    assert silent.sum() % tp.P178_SPEC_GAP == 0 and 1 <= silent.sum() // tp.P178_SPEC_GAP <= 3
    cut = int(tp.P178_SPEC_CUTOFF / (tp.P178_SR / tp.P178_NFFT))
    Xa = X[~silent]
    assert np.median(Xa[:, cut + 2:]) < 0.1 * np.median(Xa[:, cut - 200:cut - 2])      # the encoder's low-pass
    assert np.median(Xa) < 0.1 and np.percentile(Xa, 99.9) > 30                        # sparse harmonic peaks
    e = (Xa[:, 800:1400].astype(np.float64) ** 2).sum(axis=1)                          # 8.6 - 15 kHz
    assert np.percentile(e, 90) > 5 * np.median(e)                                     # drum hits on the beats
    C = tp._p178_ch_ref(X[:4000].ravel(), nb, tp.P178_SR / tp.P178_NFFT)
    m = np.sort(C[C.max(axis=1) > 0].mean(axis=0))
    assert m[-7:].sum() > 0.7 * m.sum()                                                # a key's 7 notes
    midi, margin = tp._p178_pitch(nb, np.float32(tp.P178_SR / tp.P178_NFFT))
    assert margin.min() > 5e-4 and midi.min() > 0           # float32 finds the same pitch classes
    n = 200
    x, f0, ap, hop, sr, thr = tp._p178_yin_args(n, rng)
    assert x.dtype == np.float32 and len(x) == hop * (n - 1) + 1536 and np.abs(x).max() < 1.5
    f0, ap, lag, _ = tp._p178_yin_ref(x, n)
    assert 0.7 < (lag >= 0).mean() < 0.95 and 80 < f0[lag >= 0].min() and f0.max() < 800
    assert np.median(ap[lag >= 0]) < 0.03 and np.median(ap[lag < 0]) > 0.3
    env, acf, best, length = tp._p178_tp_args(64, rng)
    E = env.reshape(64, length)
    assert E.dtype == np.float32 and E.min() >= 0 and 0.35 < (E == 0).mean() < 0.5
    prior = tp._p178_tp_prior()
    assert prior.argmax() == 43 and (prior[:17] == 0).all() and (prior[17:] > 0).all()
    a, b, _ = tp._p178_tp_ref(env, length, prior)
    bpm = 60 * tp.P178_TP_FPS / b
    assert ((bpm > 60) & (bpm < 200)).mean() > 0.9 and 80 < np.median(bpm) < 160       # octave errors: a few
    q, r, qoff, qlen, roff, rlen, dist, end = tp._p178_dtw_args(200, rng)
    assert qlen.min() >= 96 and qlen.max() <= tp.P178_DTW_Q and rlen.min() >= 192 and rlen.max() <= tp.P178_DTW_R
    assert len(q) == 12 * qlen.sum() and len(r) == 12 * rlen.sum() and (qoff[1:] == np.cumsum(qlen)[:-1]).all()
    assert np.allclose(np.linalg.norm(r.reshape(-1, 12), axis=1), 1, atol=1e-6) and r.min() >= 0
    d, j, _ = tp._p178_dtw_ref(q, r, qoff[:40], qlen[:40], roff[:40], rlen[:40])
    per = d / qlen[:40]
    assert 0.4 < (per < 0.15).mean() < 0.8 and per.max() > 0.25                       # matches and misfits
    pk, h, npairs, hist, n = tp._p178_lm_args(1 << 15, rng)
    P = pk.reshape(-1, 3).astype(np.int64)
    key = (P[:, 0] << 40) + (P[:, 1] << 12) + P[:, 2]
    assert n == len(P) == 1 << 15 and (np.diff(key) > 0).all() and P[:, 2].min() >= 1 and P[:, 2].max() <= 511
    assert 50 < np.median(P[:, 2]) < 90 and len(hist) == 1 << 20 and len(h) == 8 * n
    per_frame = n / len(np.unique(P[:, 0] * 100000 + P[:, 1]))
    assert 1.5 < per_frame < 2.5
    H, cnt, hi = tp._p178_lm_ref(pk)
    assert 0.8 < (cnt == 8).mean() < 0.95 and hi.sum() == cnt.sum() and hi.max() > 10


# ---- chroma-fold-smem-atomic ----

def _chroma_tol(nbins, bin_hz):
    # positive sums: a class's sum of m terms is off by < m u in any order; the ratio doubles
    # it; log2f / expf a few ulps of the weights
    midi, _ = tp._p178_pitch(nbins, bin_hz)
    m = np.bincount(np.floor(midi + 0.5).astype(np.int64) % 12).max()
    return 2 * (m + 8) * U


def test_chroma_fold():
    host, out, *_ = launch("probe/chroma-fold-smem-atomic", 5, seed=5)
    ref = tp._p178_ch_ref(host[0], host[2], host[3])
    assert np.abs(out[1] - ref.ravel()).max() < _chroma_tol(host[2], host[3])
    assert (ref.max(axis=1) == 1).all()


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_chroma_fold_cases(policy):
    # 257 bins (up to 2.8 kHz): a silent frame; a lone bin at 441 Hz (A); bins at 258 and 528 Hz
    # (C4, C5) and one at 334 Hz (E); a drawn frame's first 257 bins
    nb = 257
    rng = np.random.default_rng(6)
    X = np.zeros((4, nb), np.float32)
    X[1, 41] = 3.0
    X[2, [24, 49, 31]] = [1.0, 1.0, 2.0]
    X[3] = tp._p178_spec(1, rng)[0, :nb]
    bin_hz = np.float32(tp.P178_SR / tp.P178_NFFT)
    h = [X.ravel(), np.zeros(48, np.float32), np.int32(nb), bin_hz]
    c = run("probe/chroma-fold-smem-atomic", h, 4, policy=policy)[1].reshape(4, 12)
    ref = tp._p178_ch_ref(h[0], nb, bin_hz)
    assert (c[0] == 0).all() and (c[1] == np.eye(12)[9]).all() and list(np.flatnonzero(c[2])) == [0, 4]
    assert np.abs(c - ref).max() < _chroma_tol(nb, bin_hz) and X[3].min() > 0


# ---- superflux-warp-shfl ----

@pytest.mark.parametrize("n, policy", [(20, "lockstep"), (3, "random")])
def test_superflux(n, policy):
    # 20 frames: 3 blocks of 8 warps, the last one's warps past frame 19 leaving at once (3: 5 of 8)
    host, out, *_ = launch("probe/superflux-warp-shfl", n, seed=n, policy=policy)
    ref, tol = tp._p178_sf_ref(host[0], host[2], host[3])
    assert (np.abs(out[1] - ref) <= tol).all() and out[1][0] == 0 and (ref[1:] > 0).all()
    # 64 bins: a partial peak moved by one bin (vibrato: suppressed), by two bins, to the last bin
    nb = 64
    X = np.zeros((5, nb), np.float32)
    X[0, 10], X[1, 11], X[2, 13], X[3, 63], X[4, 62] = 5.0, 5.0, 5.0, 5.0, 7.0
    h = [X.ravel(), np.zeros(5, np.float32), np.int32(nb), host[3], np.int32(5)]
    f = run("probe/superflux-warp-shfl", h, 5, policy=policy)[1]
    g = float(host[3])
    assert f[0] == 0 and f[1] == 0 and f[2] == f[3] == np.log1p(np.float32(g * 5))
    assert abs(f[4] - (np.log1p(g * 7) - np.log1p(g * 5))) < 4 * U * np.log1p(g * 7)


# ---- yin-diff-smem ----

def _yin_margin(c, lag):
    """How far the reference's decisions for a voiced frame (normalised differences c, lag
    chosen) are from a tie: the threshold tests up to the first dip, the walk down it."""
    k0, thr = tp.P178_YIN_TAU_MIN, tp.P178_YIN_THR
    first = k0 + int(np.argmax(c[k0:] < thr))
    return min(np.abs(c[k0:first + 1] - thr).min(), np.abs(np.diff(c[first:lag + 2])).min())


def test_yin_pitch():
    host, out, *_ = launch("probe/yin-diff-smem", 1, seed=3)
    f0, ap, lag, c = tp._p178_yin_ref(host[0], 1)
    # float32 sums of 1024 squares are off by < 1024 u ~ 6e-5 relative (and c, the ratio of two,
    # by twice that at most): the decisions are the reference's where its margins are 3e-4;
    # the parabola's shift then off by < 1e-3 lag
    assert lag[0] > 0 and _yin_margin(c[0], lag[0]) > 3e-4
    assert abs(out[2][0] - ap[0]) < 2.5e-4 * ap[0] and abs(out[1][0] - f0[0]) < 1e-3 / lag[0] * f0[0]
    # frames of 1536 samples apart: a 220.5 Hz sine (a period of 100 samples) and silence
    hop = 1536
    x = np.zeros(2 * hop, np.float32)
    x[:hop] = 0.5 * np.sin(2 * np.pi * np.arange(hop) / 100)
    h = [x, np.zeros(2, np.float32), np.zeros(2, np.float32), np.int32(hop), host[4], host[5]]
    out = run("probe/yin-diff-smem", h, 2)
    f0, ap, lag, _ = tp._p178_yin_ref(x, 2, hop=hop)
    # (1024 samples are not a whole number of periods: the dip's parabola is a little lopsided)
    assert list(lag) == [100, -1] and abs(out[1][0] - 220.5) < 0.02 and out[1][1] == 0 and out[2][1] == 1
    assert abs(out[1][0] - f0[0]) < 1e-3 / 100 * f0[0] and abs(out[2][0]) < 1e-6


# ---- tempo-acf-double-prior ----

def test_tempo_acf():
    rng = np.random.default_rng(4)
    length = 520
    env = tp._p178_tp_args(1, rng, length=length)[0]
    # a generated track; a click every 43 frames (120.2 BPM); silence (every weight 0: lag 0)
    clicks = np.zeros(length, np.float32)
    clicks[5::43] = 2.0
    E = np.concatenate([env, clicks, np.zeros(length, np.float32)])
    h = [E, np.zeros(3 * tp.P178_TP_LAGS, np.float32), np.zeros(3, np.int32), np.int32(length)]
    prior = tp._p178_tp_prior()
    out = run("probe/tempo-acf-double-prior", h, 3, symbols={"c_prior": prior})
    acf, best, _ = tp._p178_tp_ref(E, length, prior)
    gap = tp._p178_tp_ref(E[:2 * length], length, prior)[2]
    # float32 products summed in double in another order: the float32 means within an ulp
    a32 = acf.astype(np.float32).ravel()
    assert (np.abs(out[1] - a32) <= np.spacing(a32)).all()
    assert gap > 1e-5 and list(out[2]) == list(best) and best[1] == 43 and best[2] == 0
    assert out[1][tp.P178_TP_LAGS + 43] == np.float32(4.0 * 11 / (length - 43)) and (out[1][-512:] == 0).all()


# ---- subseq-dtw-wavefront ----

def test_subseq_dtw():
    rng = np.random.default_rng(5)
    h = tp._p178_dtw_args(5, rng, qlens=(20, 40), rlens=(40, 70))
    # pair 0: a 1-frame query (its reference's frame 3); pair 1: an exact cut of its reference's
    # frames 7 .. 38 (32 frames: a whole warp); pairs 2 .. 4 as drawn (a cut played faster or
    # slower, or unrelated)
    qlen = h[3]
    R = h[1].reshape(-1, 12)
    cut = R[h[4][1] + 7:h[4][1] + 39]
    h[0] = np.concatenate([R[h[4][0] + 3], cut.ravel(), h[0][12 * h[2][2]:]])
    qlen[:2] = 1, 32
    h[2] = np.concatenate([[0], np.cumsum(qlen)[:-1]]).astype(np.int32)
    out = run("probe/subseq-dtw-wavefront", h, 5)
    dist, end, gap = tp._p178_dtw_ref(*h[:6])
    # float32: each cost's 12-term dot < 12 u, each of the path's <= M + N additions < u D
    tol = (h[3] + h[5]) * (dist + 12) * U
    assert (np.abs(out[6] - dist) <= tol).all() and (gap > 2 * tol).all() and (out[7] == end).all()
    assert out[7][0] == 3 and out[7][1] == 38 and abs(out[6][1]) < 1e-5 and abs(out[6][0]) < 1e-6


# ---- landmark-hash-atomic ----

@pytest.mark.parametrize("n, policy", [(256, "lockstep"), (40, "random")])
def test_landmark_hash(n, policy):
    host, out, *_ = launch("probe/landmark-hash-atomic", n, seed=n, policy=policy)
    H, cnt, hist = tp._p178_lm_ref(host[0])
    assert (out[1].reshape(n, 8) == H).all() and (out[2] == cnt).all() and (out[3] == hist).all()
    assert (cnt == 8).any() and (cnt < 8).any()


def test_landmark_zone():
    # the target zone's edges: dt 0 and 64 out, 1 and 63 in; dbin +-31 in, +-32 out; a new track
    # stops the scan; the fan-out stops at 8
    P = [(0, 0, 100), (0, 0, 120), (0, 1, 69), (0, 1, 131), (0, 1, 68), (0, 63, 132), (0, 64, 100),
         (1, 64, 100)]
    P = sorted(P) + [(2, 0, 50)] + [(2, 1 + k, 50) for k in range(10)]
    pk = np.array(P, np.int32).ravel()
    n = len(P)
    h = [pk, np.zeros(8 * n, np.uint32), np.zeros(n, np.int32), np.zeros(1 << 20, np.int32), np.int32(n)]
    out = run("probe/landmark-hash-atomic", h, n)
    H, cnt, hist = tp._p178_lm_ref(pk, scan=n)
    assert (out[1].reshape(n, 8) == H).all() and (out[2] == cnt).all() and (out[3] == hist).all()
    # anchor (0, 0, 100): (1, 69) and (1, 131) and (63, 132: dbin 32) -> 2 pairs; (0, 0, 120) -> 131, 132 (dbin 12)
    assert list(cnt[:2]) == [2, 2] and H[0, 0] == (100 << 12) | ((69 - 100 + 31) << 6) | 1
    assert cnt[8] == 8 and cnt[9] == 8 and cnt[n - 1] == 0 and cnt[6] == 0
