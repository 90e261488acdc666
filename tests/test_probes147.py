"""probe-unseen145's kernels (kernels_cuda/probes147.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/preemph-hamming-framing", "probe/logmel-triangle-smem", "probe/viterbi-hmm-block-smem",
       "probe/dtw-pitch-pairs-local", "probe/vad-energy-zcr-atomics", "probe/ctc-greedy-scan-smem"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen145"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes147.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    x, fr, alpha, nf = tp._p147_preemph_args(1 << 14, rng)
    assert x.dtype == np.float32 and nf == (len(x) - 400) // 160 + 1 and len(fr) == nf * 400
    assert 0.05 < x.std() < 0.2 and abs(np.corrcoef(x[1:], x[:-1])[0, 1]) > 0.5     # low-passed: correlated
    b = tp._p147_mel_bins()
    assert b.dtype == np.int32 and len(b) == 42 and b[0] == 0 and b[-1] == 256 and (np.diff(b) > 0).all()
    width = b[2:] - b[:-2]
    assert width.min() == 2 and width.max() > 25                         # bands widen with frequency
    W = tp._p147_mel_matrix()
    assert W.max() == 1 and (W.sum(axis=0)[1:256] > 0).all()
    P, lm, n = tp._p147_power_args(64, rng)
    assert P.dtype == np.float32 and (P > 0).all() and len(lm) == 64 * 40 and n == 64
    S, T = tp.P147_VIT_S, tp.P147_VIT_T
    B, lA, lpi, bp, path, best = tp._p147_vit_args(32, rng)
    A = np.exp(lA.astype(np.float64)).reshape(S, S)
    assert np.allclose(A.sum(axis=1), 1, atol=1e-5) and np.allclose(np.exp(lpi).sum(), 1, atol=1e-5)
    assert (np.diag(A) >= 0.6).all() and B.dtype == np.float32 and len(B) == 32 * T * S
    Bm = B.reshape(32, T, S)
    assert ((Bm.max(axis=2) - np.median(Bm, axis=2)) > 4).mean() > 0.5      # the true state stands out
    Q, R, d, nt, npairs = tp._p147_dtw_args(1000, rng)
    L = tp.P147_DTW_LEN
    assert nt == 256 and npairs == 1000 and len(Q) == 4 * L and len(R) == 256 * L
    Rm = R.reshape(-1, L)
    assert np.abs(Rm).max() < 20 and np.abs(np.diff(Rm, axis=1)).max() < 2.5
    cls = tp._p147_vad_classes(2000, rng)
    assert set(np.unique(cls)) == {0, 1, 2} and (np.diff(np.flatnonzero(np.diff(cls) != 0)) >= 5).all()
    xv, *rest = tp._p147_vad_args(256 * 2000, rng)
    assert rest[-1] == 2000 and xv.dtype == np.float32
    db, zc, sp = tp._p147_vad_ref(xv)
    assert 0.2 < sp.mean() < 0.5 and (db > -60).all() and (db < 0).all()
    assert (zc >= tp.P147_VAD_ZCR).mean() > 0.2 and ((db > tp.P147_VAD_THR) & ~sp).any()   # loud fricatives
    z, lab, lens = tp._p147_ctc_args(16, rng)
    assert z.dtype == np.float32 and len(z) == 16 * 256 * 29 and lab.shape == (16 * 256,)
    lab_r, lens_r, a = tp._p147_ctc_ref(z)
    assert 0.4 < (a == 0).mean() < 0.7 and 40 < lens_r.mean() < 80


# ---- preemph-hamming-framing ----

def test_preemph_frames():
    n = 4000                                             # 23 frames, 36 blocks, the last partial
    host, (x, fr, alpha, nf), *_ = launch("probe/preemph-hamming-framing", n)
    ref = tp._p147_preemph_ref(host[0])
    assert nf == 23 and ref.shape == (23, 400)
    np.testing.assert_allclose(fr.reshape(23, 400), ref, rtol=1e-5, atol=1e-7)
    assert (x == host[0]).all() and abs(fr[0] - 0.08 * x[0]) <= 1e-6 * abs(x[0])


# ---- logmel-triangle-smem ----

def test_logmel():
    n = 21                                               # 3 blocks, the last partial
    host, (P, lm, nn), *_ = launch("probe/logmel-triangle-smem", n)
    np.testing.assert_allclose(lm.reshape(n, 40), tp._p147_logmel_ref(host[0]), rtol=0, atol=2e-5)
    # a silent frame (the log's floor) and a flat spectrum (each band its triangle's weight sum)
    h = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    h[0].reshape(n, 257)[3] = 0
    h[0].reshape(n, 257)[20] = 1
    out = run("probe/logmel-triangle-smem", h, n, symbols=tp._p147_mel_syms(n, None))
    lm = out[1].reshape(n, 40)
    np.testing.assert_allclose(lm[3], np.log(1e-10), rtol=1e-6)
    np.testing.assert_allclose(lm[20], np.log(tp._p147_mel_matrix().sum(axis=1)), atol=2e-6)


# ---- viterbi-hmm-block-smem ----

# the probe's 3 utterances; a block (one warp) an utterance, its 64 x 32 steps fixed:
# random (slow) on the first 2, interleaved
@pytest.mark.parametrize("policy, n", [("lockstep", 3), ("random", 2)])
def test_viterbi(policy, n):
    S, T = tp.P147_VIT_S, tp.P147_VIT_T
    h = tp.get("probe/viterbi-hmm-block-smem").args(3, np.random.default_rng(0))
    host = [h[0][:n * T * S].copy(), h[1], h[2], h[3][:n * T * S].copy(), h[4][:n * T].copy(), h[5][:n].copy()]
    B, lA, lpi, bp, path, best = run("probe/viterbi-hmm-block-smem", host, n, policy=policy)
    bp_r, path_r, best_r, gap = tp._p147_viterbi_ref(*host[:3])
    assert gap > 0                                       # no tie in any maximum
    assert (bp.reshape(n, T, S)[:, 1:] == bp_r[:, 1:]).all()
    assert (path.reshape(n, T) == path_r).all() and (best == best_r).all()
    # the decoded path scores its best score, and mostly follows the boosted (true) states
    Bm = B.reshape(n, T, S)
    Am = lA.reshape(S, S)
    p = path.reshape(n, T)
    for u in range(n):
        sc = np.float32(lpi[p[u, 0]] + Bm[u, 0, p[u, 0]])
        for t in range(1, T):
            sc = np.float32(np.float32(sc + Am[p[u, t - 1], p[u, t]]) + Bm[u, t, p[u, t]])
        assert sc == best[u]
    assert (Bm[np.arange(n)[:, None], np.arange(T), p] > -7).mean() > 0.7


# ---- dtw-pitch-pairs-local ----

def test_dtw():
    # 40 templates, 4 queries (160 pairs: 2 blocks, the last partial): query 0 the
    # generator's (a warped noisy copy of a template: its nearest by far), query 1 the first
    # half of template 11 at half speed (each frame twice: still nearest 11), query 2
    # template 7 itself (distance 0), query 3 template 9 shifted by 0.5 (at most DTW_LEN *
    # 0.5, the diagonal path's cost)
    rng = np.random.default_rng(3)
    n = 160
    Q, R, d0, nt, nn = tp._p147_dtw_args(40, rng)
    L = tp.P147_DTW_LEN
    assert nt == 40 and len(Q) == L
    Rm = R.reshape(40, L)
    q = np.concatenate([Q, np.repeat(Rm[11, :L // 2], 2), Rm[7], Rm[9] + np.float32(0.5)]).astype(np.float32)
    host = [q, R, np.zeros(n, np.float32), np.int32(40), np.int32(n)]
    d = run("probe/dtw-pitch-pairs-local", host, n)[2]
    np.testing.assert_allclose(d, tp._p147_dtw_ref(q, R, 40, n), rtol=1e-6)
    d = d.reshape(4, 40)
    assert np.sort(d[0])[1] > 1.5 * d[0].min()
    assert np.argmin(d[1]) == 11 and d[2, 7] == 0 and (d[2] > 0).sum() == 39
    assert 0 < d[3, 9] <= L / 2


# ---- vad-energy-zcr-atomics ----

# 300 frames: 3 blocks, the last partial; random (slow): 160, 2 blocks, the last partial
@pytest.mark.parametrize("policy, nf", [("lockstep", 300), ("random", 160)])
def test_vad(policy, nf):
    host, (x, db, sp, hist, cnt, thr, zmax, nn), *_ = launch("probe/vad-energy-zcr-atomics", 256 * nf,
                                                              policy=policy)
    db_r, zc_r, sp_r = tp._p147_vad_ref(host[0])
    assert np.abs(db_r - tp.P147_VAD_THR).min() > 1e-3
    np.testing.assert_allclose(db, db_r, rtol=0, atol=1e-4)
    assert (sp == sp_r).all() and cnt[0] == sp_r.sum() and 0 < cnt[0] < nf
    assert (hist == np.bincount(tp._p147_vad_bins(db), minlength=64)).all() and hist.sum() == nf
    assert (hist > 0).sum() > 5


# ---- ctc-greedy-scan-smem ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_ctc(policy):
    n = 3
    host, (z, lab, lens), *_ = launch("probe/ctc-greedy-scan-smem", n, policy=policy)
    lab_r, lens_r, a = tp._p147_ctc_ref(host[0])
    zm = z.reshape(n, 256, 29)
    srt = np.sort(zm, axis=2)
    assert (srt[:, :, -1] > srt[:, :, -2]).all()         # no tied maximum
    assert (lens == lens_r).all() and (lab.reshape(n, 256) == lab_r).all()


def test_ctc_edge_cases():
    # all blank (nothing kept), one letter throughout (kept once), letters alternating with
    # no blank (all 256 kept)
    n = 3
    z = np.zeros((n, 256, 29), np.float32)
    z[0, :, 0] = 1
    z[1, :, 5] = 1
    z[2, np.arange(256), 1 + np.arange(256) % 2] = 1
    host = [z.ravel(), np.zeros(n * 256, np.int32), np.zeros(n, np.int32)]
    z_, lab, lens = run("probe/ctc-greedy-scan-smem", host, n, policy="random")
    assert list(lens) == [0, 1, 256]
    lab = lab.reshape(n, 256)
    assert (lab[0] == 0).all() and lab[1, 0] == 5 and (lab[1, 1:] == 0).all()
    assert (lab[2] == 1 + np.arange(256) % 2).all()
