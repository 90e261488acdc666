"""probe-unseen150's kernels (kernels_cuda/probes152.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/rolling-std-dbl-timemajor", "probe/mprofile-dist-smem-rows", "probe/holtwinters-grid-season",
       "probe/sax-words-prefix-atomic", "probe/acf-256lags-smem", "probe/cusum-cp-warp-scan"]
FLAT_WORD = 0x5555                  # SAX: a flat window's 8 letters, all 1 (z = 0 is above -0.67 only)


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen150"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes152.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    x, mean, sd, nn, T = tp._p152_rs_args(n, rng)
    X = x.reshape(T, n)
    assert x.dtype == np.float32 and T == tp.P152_RS_T and len(mean) == len(sd) == (T - tp.P152_RS_WIN + 1) * n
    assert (X * 16 == np.round(X * 16)).all() and -30 < X.min() and X.max() < 80     # 1/16 deg readings
    assert abs((X == X[0]).all(axis=0).mean() - tp.P152_RS_STUCK) < 0.008
    assert abs((np.diff(X, axis=0) > 4.5).mean() - tp.P152_RS_SPIKE) < 2e-4
    assert 19 < np.median(X) < 22 and 0.03 < np.median(np.abs(np.diff(X, axis=0))) < 0.2
    T, mu, sig, q, dist, nq, nn = tp._p152_mp_args(1 << 16, rng)
    m = tp.P152_MP_M
    assert len(T) == nn + m - 1 and len(q) == len(set(q)) == nq == tp.P152_MP_NQ and len(dist) == nq * nn
    w = np.lib.stride_tricks.sliding_window_view(T.astype(np.float64), m)
    assert np.allclose(mu, w.mean(axis=1), atol=1e-6) and np.allclose(sig, w.std(axis=1), rtol=1e-6)
    r = np.flatnonzero((T[1:-1] > 0.8) & (T[1:-1] >= T[:-2]) & (T[1:-1] > T[2:]))    # R peaks
    beats = r[np.diff(r, prepend=-100) > 30]
    assert 55 < 60 * tp.P152_MP_FS / np.diff(beats).mean() < 110 and 0.01 < sig.min() and sig.max() < 1
    x = tp._p152_hw_load(2000, rng)
    lvl = x.mean(axis=1)
    assert x.dtype == np.float32 and x.shape == (2000, tp.P152_HW_T) and 25 < np.median(lvl) < 45
    assert lvl.max() / np.median(lvl) > 10                                       # lognormal: skewed
    h = x.reshape(2000, -1, 24).mean(axis=1)
    assert (h.max(axis=1) / h.min(axis=1)).min() > 1.3                            # a daily cycle in every series
    assert 0.005 < (x < 0.1 * lvl[:, None]).any(axis=1).mean() < 0.04             # outages
    a, b, g = tp._p152_hw_grid()
    assert len(set(zip(a, b, g))) == 256 and a.max() < 1 and b.max() == 0.2 and g.min() > 0.1
    P, P2, words, counts, nn = tp._p152_sx_args(1 << 16, rng)
    x = np.diff(P)
    assert len(P) == nn + tp.P152_SX_W and np.allclose(np.diff(P2), x * x) and len(counts) == 4 ** 8
    assert 0 <= x.min() and x.max() < 5 and abs(x.mean() - 1) < 0.05
    word, amb = tp._p152_sx_ref(x, nn)
    c = np.bincount(word, minlength=4 ** 8)
    assert 0.15 < c[FLAT_WORD] / nn < 0.45 and (c > 0).sum() > 1000 and amb.mean() < 1e-3
    x = tp._p152_ac_series(500, rng)
    sd = x.std(axis=1)
    assert x.dtype == np.float32 and x.shape == (500, tp.P152_AC_LEN) and abs(np.median(x.mean(axis=1)) - 50) < 3
    r1 = tp._p152_ac_ref(x)[:, 1]
    assert abs((r1 < 0.1).mean() - 0.05) < 0.03 and np.median(r1) > 0.7 and sd.max() / sd.min() > 10
    adc, cp, stat, nn = tp._p152_cs_args(2000, rng)
    X = adc.reshape(nn, tp.P152_CS_LEN).astype(np.int64)
    assert adc.dtype == np.uint16 and X.max() <= 4095 and 700 < np.median(X) < 3300
    step = np.abs(X[:, 600:].mean(axis=1) - X[:, :400].mean(axis=1)) / X[:, :400].std(axis=1)
    assert 0.2 < (step > 0.5).mean() < tp.P152_CS_SHIFT                     # some shifts small or outside
    c, s = tp._p152_cs_ref(adc)
    assert (c < tp.P152_CS_LEN - 1).all() and s.max() < 2 ** 40


# ---- rolling-std-dbl-timemajor ----

def test_rolling_stats():
    n, T = 64, 240                                          # 4 hours (the length is an argument); a partial block
    rng = np.random.default_rng(1)
    x = tp._p152_rs_temps(n, rng, T)
    x[:, 5] = 20.0625                                       # a stuck sensor: sd exactly 0
    x[:100, 7], x[100:, 7] = 22.0, 20.0                     # flat, a step, flat: sd 0, > 0, then 0 again
    m = (T - tp.P152_RS_WIN + 1) * n
    out = run("probe/rolling-std-dbl-timemajor", [x.ravel(), np.zeros(m, np.float32), np.zeros(m, np.float32),
                                                   np.int32(n), np.int32(T)], n)
    mean, sd = tp._p152_rs_ref(x, n, T)
    # readings are multiples of 1/16: the double sums are exact, so the mean is the float of the true mean
    assert (out[1].reshape(mean.shape) == mean.astype(np.float32)).all()
    # sd: float32 rounding (2^-24) of a double result whose cancellation error is ~1e-12 relative
    assert np.allclose(out[2].reshape(sd.shape), sd, rtol=1.2e-7, atol=0)
    got = out[2].reshape(sd.shape)
    k = 100 - tp.P152_RS_WIN + 1                            # the first window holding the step
    assert (got[:, 5] == 0).all() and (got[:k, 7] == 0).all() and (got[k:100, 7] > 0).all()
    assert (got[100:, 7] == 0).all()
    assert (got > 0).mean() > 0.9


# ---- mprofile-dist-smem-rows ----

def test_mp_dist_rows():
    n, nq = 260, 2                                          # 2 blocks, the last partial; 2 query rows
    rng = np.random.default_rng(1)
    host = tp._p152_mp_args(n, rng, nq)
    T, q, m = host[0], host[3], tp.P152_MP_M
    q[:] = [40, 150]
    T[200:200 + m] = T[40:40 + m]                           # an exact repeat of query 0 at 200: distance ~0
    w = np.lib.stride_tricks.sliding_window_view(T.astype(np.float64), m)
    host[1], host[2] = w.mean(axis=1).astype(np.float32), w.std(axis=1).astype(np.float32)
    out = run("probe/mprofile-dist-smem-rows", host, n)
    d = out[4].reshape(nq, n).astype(np.float64)
    ref = tp._p152_mp_ref(T, q, n)
    ex = np.isinf(ref)
    assert (d[ex] == np.finfo(np.float32).max).all() and ex.sum(axis=1).tolist() == [2 * m // 4 - 1] * 2
    # compare squared distances: float32 summation of 128 products errs by at most ~128 * 2^-24 of the
    # sum of their magnitudes, i.e. 7.6e-6 of S (below); the means' and sds' roundings add far less
    S = 2 * (np.abs(T[q[:, None] + np.arange(m)]) @ np.abs(w[:n]).T) / (host[2][q][:, None] * host[2][None, :n])
    assert (np.abs(d ** 2 - ref ** 2) <= 1e-5 * S)[~ex].all()
    assert ref[0, 200] == 0 and np.where(ex, np.inf, d)[0].argmin() == 200 and np.median(ref[~ex]) > 5


# ---- holtwinters-grid-season ----

def test_hw_grid_sse():
    n, T = 2, 168                                           # a week of hours (the length is an argument)
    rng = np.random.default_rng(1)
    x = tp._p152_hw_load(n, rng, T)
    x[1] = (40 + 10 * np.sin(2 * np.pi * np.arange(T) / 24)).astype(np.float32)[np.arange(T) % 24]
    out = run("probe/holtwinters-grid-season", [x.ravel(), np.zeros(256 * n, np.float32), np.int32(T)], n)
    mse = out[1].reshape(n, 256)
    ref = tp._p152_hw_ref(x, T)
    # float32 smoothing: each step rounds the level (~50) by ~3e-6, the stable filter keeps a few steps'
    # worth, against forecast errors of ~1: ~3e-5 relative in the worst case; seen here ~1e-5
    assert np.allclose(mse[0], ref[0], rtol=1e-4, atol=0) and ref[0].max() / ref[0].min() > 3
    assert mse[1].max() < 1e-8                              # a flat, purely seasonal series is forecast exactly


# ---- sax-words-prefix-atomic ----

@pytest.mark.parametrize("policy, n", [("lockstep", 4096), ("random", 300)])
def test_sax_words(policy, n):
    host, out, *_ = launch("probe/sax-words-prefix-atomic", n, policy=policy)
    x = tp._p152_sx_accel(n + tp.P152_SX_W - 1, np.random.default_rng(0))    # launch's rng drew this first
    assert np.array_equal(np.concatenate([[0.0], np.cumsum(x.astype(np.float64))]), host[0])
    word, amb = tp._p152_sx_ref(x, n)
    assert (out[2] == word)[~amb].all() and amb.sum() < 5       # near a breakpoint rounding decides
    assert (out[3] == np.bincount(out[2], minlength=4 ** 8)).all()
    assert (out[3] > 0).sum() > n // 10 and (n < 4096 or out[3][FLAT_WORD] > 1000)    # 300: no idle stretch yet


def test_sax_words_edges():
    n = 300
    x = np.concatenate([np.full(200, 1.0), np.arange(n + tp.P152_SX_W - 201, dtype=np.float64)])
    P, P2 = tp._p152_sx_prefix(x)
    out = run("probe/sax-words-prefix-atomic", [P, P2, np.zeros(n, np.uint16), np.zeros(4 ** 8, np.uint32),
                                                np.int32(n)], n)
    # constant windows are flat (all letters 1); a ramp's segments sit at z = +-0.22, 0.65, 1.08, 1.52
    assert (out[2][:73] == FLAT_WORD).all() and (out[2][200:] == 0b0000010110101111).all()
    word, amb = tp._p152_sx_ref(x, n)
    assert (out[2] == word).all() and (out[3] == np.bincount(word, minlength=4 ** 8)).all()


# ---- acf-256lags-smem ----

def test_acf_lags():
    n = 2
    rng = np.random.default_rng(1)
    x = tp._p152_ac_series(n, rng)
    L, K = tp.P152_AC_LEN, tp.P152_AC_LAGS
    x[1] = 50 + (-1) ** np.arange(L)                        # alternating: acf(l) = (-1)^l (L - l) / L, exact
    out = run("probe/acf-256lags-smem", [x.ravel(), np.zeros(K * n, np.float32)], n)
    acf = out[1].reshape(n, K)
    ref = tp._p152_ac_ref(x)
    # float32 sums of ~2000 products: rounding ~sqrt(L) * 2^-24 ~ 3e-6 of lag 0 typically, 1.2e-4 at worst
    assert np.abs(acf[0] - ref[0]).max() < 2e-5 and acf[0, 0] == 1 and ref[0, 1] > 0.5
    lag = np.arange(K)
    assert (acf[1] == ((-1.0) ** lag * (L - lag) / L).astype(np.float32)).all()


# ---- cusum-cp-warp-scan ----

@pytest.mark.parametrize("policy, n", [("lockstep", 40), ("random", 4)])
def test_cusum_changepoint(policy, n):                      # 40: 5 blocks of 8 warps; 4: half a block
    host, out, *_ = launch("probe/cusum-cp-warp-scan", n, policy=policy)
    cp, stat = tp._p152_cs_ref(host[0])
    assert (out[1] == cp).all() and (out[2] == stat).all() and stat.min() > 0


def test_cusum_changepoint_edges():
    L = tp.P152_CS_LEN
    rng = np.random.default_rng(1)
    x = np.full((5, L), 2000, np.uint16)                    # series 0 constant: the statistic 0 everywhere, cp 0
    x[1, 300:] = 2100                                       # a clean step after sample 299
    x[2, :700] = 2100                                       # a step down after sample 699
    x[3, ::2] = 2001                                        # 2001, 2000, ...: ties (512) at every even t: cp 0
    x[4] = tp._p152_cs_adc(1, rng)[0]
    out = run("probe/cusum-cp-warp-scan", [x.ravel(), np.zeros(5, np.int32), np.zeros(5, np.int64), np.int32(5)], 5)
    cp, stat = tp._p152_cs_ref(x.ravel())
    assert (out[1] == cp).all() and (out[2] == stat).all()
    assert list(out[1][:4]) == [0, 299, 699, 0] and list(out[2][[0, 1, 3]]) == [0, 300 * 724 * 100, 512]
