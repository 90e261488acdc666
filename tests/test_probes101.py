"""probe-unseen99's kernels (kernels_cuda/probes101.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/bootstrap-mean-xorshift", "probe/kde-gauss-grid-smem", "probe/pearson-pairs-shfl-atomic",
       "probe/hist-quantile-smem-atomics", "probe/knn1d-bsearch-kdist", "probe/perm-test-fisher-yates"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen99"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes101.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # bootstrap: integer scores 0 .. 100, so a replicate's sum and sum of squares are exact
    data, m, means, sds, seed, n = tp._p101_boot_args(1 << 10, rng)
    assert data.dtype == np.float32 and len(data) == m == tp.P101_BOOT_M and n == 1 << 10
    assert (data == np.round(data)).all() and data.min() >= 0 and data.max() <= 100
    assert abs(data.mean() - 70) < 2 and 9 < data.std() < 15
    assert m * 100 ** 2 < 2 ** 24
    mu, sd, cnt = tp._p101_boot_ref(data[:64], 500, seed=seed)
    assert (cnt.sum(axis=1) == 64).all() and 0.3 < (cnt == 0).mean() < 0.43    # ~e^-1 of the sample left out
    assert abs(mu.std() - data[:64].std() / 8) < 0.3                           # the standard error
    # kde: a bimodal sample; the grid spans [-5, 5); the estimate integrates to ~1
    x, nx, dens, lo, step, inv_h, norm, ng = tp._p101_kde_args(4096, rng)
    assert x.dtype == np.float32 and nx == len(x) == tp.P101_KDE_NX and ng == 4096
    assert 0.55 < (x < 0.25).mean() < 0.65 and lo == -5 and abs(step * ng - 10) < 1e-5
    assert 0.15 < 1 / inv_h < 0.35 and abs(norm * nx * np.sqrt(2 * np.pi) / inv_h - 1) < 1e-6
    d = tp._p101_kde_ref(x, lo, step, inv_h, norm, ng)
    assert abs(d.sum() * step - 1) < 1e-3 and d[np.argmin(np.abs(np.arange(ng) * step - 4))] > d.max() / 3
    # pearson: column-major, the correlation rho^|j - k|
    X, n, c, sums = tp._p101_corr_args(1 << 16, rng)
    assert X.dtype == np.float32 and len(X) == n * c and c == tp.P101_CORR_COLS and len(sums) == 5 * 28
    assert len(tp._p101_pairs()) == tp.P101_CORR_PAIRS == 28 and tp._p101_pairs()[7] == (1, 2)
    C = np.corrcoef(X.reshape(c, n))
    assert np.abs(C - tp._p101_corr_matrix()).max() < 0.02
    s, r = tp._p101_corr_ref(X, n)
    assert np.allclose(r, [C[j, k] for j, k in tp._p101_pairs()])
    assert np.allclose(X.reshape(c, n).mean(axis=1), np.arange(c) / 4, atol=0.03)
    # hist: lognormal, the mass in the low bins, few values past the top (clamped)
    x, n, lo, inv_w, hist = tp._p101_hist_args(1 << 18, rng)
    assert x.dtype == np.float32 and hist.dtype == np.uint32 and len(hist) == 1024 and inv_w == 128
    h = tp._p101_hist_ref(x)
    assert h.sum() == n and (x >= 8).mean() < 0.005 and h[:256].sum() > 0.75 * n and h.max() > 1.3 * n / 256
    q = tp._p101_hist_quantiles(h, [0.1, 0.5, 0.9, 0.99])
    assert np.abs(q - np.quantile(x, [0.1, 0.5, 0.9, 0.99])).max() <= 1 / 128
    # knn: sorted references, unsorted queries of the same mixture
    r, nr, qs, n, kd = tp._p101_knn_args(2000, rng)
    assert r.dtype == qs.dtype == np.float32 and nr == len(r) == tp.P101_KNN_NR and (np.diff(r) >= 0).all()
    assert (np.diff(qs) < 0).mean() > 0.4 and 0.65 < (qs < 1.5).mean() < 0.75
    d, pos = tp._p101_knn_ref(r, qs[:50])
    r64 = r.astype(np.float64)                                  # brute force: the 8th nearest of all 2^20
    bf = np.array([np.partition(np.abs(x - r64), 7)[7] for x in qs[:50].astype(np.float64)])
    np.testing.assert_allclose(d, bf, rtol=1e-6, atol=1e-7)
    d, pos = tp._p101_knn_ref(r, qs)
    pdf = lambda t: sum(w * np.exp(-0.5 * ((t - mu) / sd) ** 2) / (sd * np.sqrt(2 * np.pi))
                        for w, mu, sd in tp.P101_KNN_MIX)
    est = tp._p101_knn_density(d, nr)
    assert np.median(np.abs(est / pdf(qs.astype(np.float64)) - 1)) < 0.3
    # perm: integer reaction times (exact sums), the observed difference, p ~ 0.04
    x, n1, total, obs, seed, stats, count, n = tp._p101_perm_args(1 << 13, rng)
    assert x.dtype == np.float32 and len(x) == tp.P101_PERM_N and n1 == 64 and (x == np.round(x)).all()
    assert total == x.sum() and total < 2 ** 24 and obs == x[:64].mean() - x[64:].mean() and obs > 0
    st, cnt, idx = tp._p101_perm_ref(x, n1, total, obs, n)
    assert 0.025 < cnt / n < 0.06 and abs(st.mean()) < 1 and (np.sort(idx, axis=1)[:, :-1] < np.sort(idx, axis=1)[:, 1:]).all()
    assert 0.45 < (idx < 64).mean() < 0.55                                    # group A's labels shuffled


# ---- bootstrap-mean-xorshift ----

@pytest.mark.parametrize("m", [64, 100])
def test_bootstrap(m):
    # m 64 (a power of 2: r % m the low bits) and 100; 300 replicates, the last block partial
    rng = np.random.default_rng(4)
    n = 300
    data = tp._p101_boot_data(m, rng)
    host = [data, np.int32(m), np.zeros(n, np.float32), np.zeros(n, np.float32), np.uint32(77), np.int32(n)]
    out = run("probe/bootstrap-mean-xorshift", host, n)
    mu, sd, cnt = tp._p101_boot_ref(data, n, seed=77)
    assert (out[2] == mu).all()
    np.testing.assert_allclose(out[3], sd, rtol=1e-6)
    assert (cnt > 0).any(axis=0).all() and abs(out[2].mean() - data.mean()) < 1


def test_bootstrap_default_sample():
    # the probe's own 1024-score sample, one partial block
    host, (data, m, mu, sd, *_), *_ = launch("probe/bootstrap-mean-xorshift", 40)
    rmu, rsd, _ = tp._p101_boot_ref(host[0], 40)
    assert (mu == rmu).all() and m == 1024
    np.testing.assert_allclose(sd, rsd, rtol=1e-6)
    assert abs(sd.mean() - data.std()) < 0.5 and mu.std() < 1.0


# ---- kde-gauss-grid-smem ----

@pytest.mark.parametrize("nx", [300, 2048])
def test_kde(nx):
    # 300 samples: a partial second tile; 2048 (the probe's): 8 full tiles; a partial block of grid points
    rng = np.random.default_rng(6)
    n = 300 if nx == 300 else 100
    host = tp._p101_kde_args(n, rng)
    host[0] = host[0][:nx]
    host[1] = np.int32(nx)
    out = run("probe/kde-gauss-grid-smem", host, n)
    ref = tp._p101_kde_ref(host[0], *host[3:8])
    np.testing.assert_allclose(out[2], ref, rtol=1e-4, atol=1e-5 * ref.max())
    assert ref.min() < 1e-4 * ref.max()                                   # the tails underflow toward 0


# ---- pearson-pairs-shfl-atomic ----

@pytest.mark.parametrize("n, policy", [(5000, "lockstep"), (300, "random"), (40000, "lockstep")])
def test_pearson(n, policy):
    # 5000 rows: 20 blocks a pair, a partial block; 300: 2 blocks a pair (the second partial),
    # the blocks' atomics interleaved; 40000: the grid capped at 128 blocks a pair, the grid-stride loop's second
    # trip for some threads
    host, (X, nn, c, sums), *_ = launch("probe/pearson-pairs-shfl-atomic", n, policy=policy)
    s, r = tp._p101_corr_ref(host[0], n)
    got = sums.reshape(-1, 5)
    scale = np.abs(host[0]).reshape(c, n).sum(axis=1)                    # the sums' magnitude
    tol = 1e-5 * np.array([[scale[j], scale[k], 4 * scale[j] ** 2 / n, 4 * scale[k] ** 2 / n, 4 * scale[j] * scale[k] / n]
                           for j, k in tp._p101_pairs()]) + 1e-4
    assert (np.abs(got - s) <= tol).all()
    np.testing.assert_allclose(tp._p101_corr_from_sums(sums, n), r, atol=2e-5)


# ---- hist-quantile-smem-atomics ----

@pytest.mark.parametrize("n, policy", [(20000, "lockstep"), (3000, "random"), (300000, "lockstep")])
def test_hist(n, policy):
    # 20000 values: 79 blocks; 3000: 12, the blocks' atomics interleaved; 300000: 1024
    # blocks, the grid-stride loop's second trip
    host, out, *_ = launch("probe/hist-quantile-smem-atomics", n, policy=policy)
    ref = tp._p101_hist_ref(host[0])
    assert (out[4] == ref).all() and out[4].sum() == n


def test_hist_edges():
    # bin edges, values below lo and past the top (clamped), one value huge
    rng = np.random.default_rng(9)
    x = rng.lognormal(0, 0.75, 1000).astype(np.float32)
    x[:12] = [0, -0.5, -3, 1 / 128, 2 / 128 - 1e-6, 1.0, 7.99, 8, 8.01, 100, 1e30, 3 + 1 / 256]
    host = [x, np.int32(len(x)), np.float32(0), np.float32(128), np.zeros(1024, np.uint32)]
    out = run("probe/hist-quantile-smem-atomics", host, len(x), policy="random")
    ref = tp._p101_hist_ref(x)
    assert (out[4] == ref).all()
    assert ref[0] >= 3 and ref[1023] >= 4 and ref[1] >= 2


# ---- knn1d-bsearch-kdist ----

def test_knn():
    # 5000 references (duplicates in them), 300 queries: the last block partial, queries
    # below and above every reference (one side runs out), on references and between duplicates
    rng = np.random.default_rng(11)
    r = np.sort(np.round(tp._p101_knn_mix(5000, rng) * 32).astype(np.float32) / 32)
    q = tp._p101_knn_mix(300, rng).astype(np.float32)
    q[:8] = [r[0] - 1, r[0], r[-1], r[-1] + 0.5, r[100], r[2500], -50, 50]
    host = [r, np.int32(len(r)), q, np.int32(len(q)), np.zeros(len(q), np.float32)]
    out = run("probe/knn1d-bsearch-kdist", host, len(q), policy="random")
    d, pos = tp._p101_knn_ref(r, q)
    assert (out[4] == d).all()
    bf = np.sort(np.abs(q[:, None].astype(np.float64) - r[None, :]), axis=1)[:, 7]
    np.testing.assert_allclose(d, bf, rtol=1e-6, atol=1e-7)
    assert len(np.unique(r)) < len(r) and (d == 0).any() and pos[6] == 0 and pos[7] == len(r)


def test_knn_probe_args():
    # the probe's own 2^20 references (the binary search's 20 steps), one partial block
    host, out, *_ = launch("probe/knn1d-bsearch-kdist", 40)
    d, _ = tp._p101_knn_ref(host[0], host[2])
    assert (out[4] == d).all() and (d > 0).all()


# ---- perm-test-fisher-yates ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_perm(policy):
    n = 300                                                 # 3 blocks, the last partial
    host, out, *_ = launch("probe/perm-test-fisher-yates", n, policy=policy)
    st, cnt, idx = tp._p101_perm_ref(*host[:4], n)
    assert (out[5] == st).all() and int(out[6][0]) == cnt and 0 < cnt < n / 10


def test_perm_edge_cases():
    # group A of 40 (so B of 88), observed statistic 0 (every permutation counted)
    x = tp._p101_perm_sample()
    n = 200
    total = np.float32(x.sum())
    host = [x, np.int32(40), total, np.float32(0), np.uint32(5), np.zeros(n, np.float32), np.zeros(1, np.uint32),
            np.int32(n)]
    out = run("probe/perm-test-fisher-yates", host, n)
    st, cnt, idx = tp._p101_perm_ref(x, 40, total, 0.0, n, seed=5)
    assert (out[5] == st).all() and int(out[6][0]) == cnt == n
    sa = x[idx].sum(axis=1)
    np.testing.assert_allclose(st, sa / 40 - (total - sa) / 88, rtol=1e-6, atol=1e-4)
