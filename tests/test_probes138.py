"""probe-unseen136's kernels (kernels_cuda/probes138.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/nla-lu8-pivot-thread", "probe/nla-householder-panel-smem", "probe/nla-givens-lsq-interleaved",
       "probe/nla-power-matvec-warp", "probe/nla-thomas-interleaved", "probe/nla-transpose-colnorm"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen136"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes138.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 10
    A, piv, info, nn = tp._p138_lu_args(n, rng)
    assert A.dtype == np.float32 and len(A) == 64 * n and len(piv) == 8 * n and (info == -1).all() and nn == n
    lu, p, inf = tp._p138_lu_ref(A)
    assert (inf == 0).all() and 0.7 < (p.reshape(n, 8)[:, :7] != np.arange(7)).mean() < 0.8    # ~3 in 4 steps swap
    M = A.reshape(n, 8, 8).astype(np.float64)
    L = np.tril(lu.reshape(n, 8, 8), -1) + np.eye(8)
    U = np.triu(lu.reshape(n, 8, 8))
    PA = M.copy()
    for k in range(8):                                      # the swaps, in order
        r = p.reshape(n, 8)[:, k]
        rk = PA[np.arange(n), k].copy()
        PA[np.arange(n), k] = PA[np.arange(n), r]
        PA[np.arange(n), r] = rk
    assert np.abs(L @ U - PA).max() < 1e-4 and np.abs(np.tril(lu.reshape(n, 8, 8), -1)).max() <= 1
    A, tau, nn = tp._p138_hh_args(8, rng)
    h, t = tp._p138_hh_ref(A)
    pan = A.reshape(8, 8, 256).astype(np.float64).transpose(0, 2, 1)
    R = np.triu(h.reshape(8, 8, 256).transpose(0, 2, 1)[:, :8])
    np.testing.assert_allclose(np.abs(R), np.abs(np.linalg.qr(pan, mode="r")), atol=1e-9)
    assert (np.abs(t - 1.5) < 0.5).all() and R.shape == (8, 8, 8)           # tau = 1 + |x_j| / |x| in [1, 2]
    A, b, x, res, nn = tp._p138_gv_args(n, rng)
    assert A.dtype == b.dtype == np.float32 and len(A) == 32 * 4 * n and len(b) == 32 * n
    xs, r = tp._p138_gv_ref(A, b)
    assert np.abs(xs).max() < 1.5 and 0.3 < r.mean() < 0.7                   # ~ noise * sqrt(32 - 4)
    xl = np.linalg.lstsq(A.reshape(32, 4, n)[:, :, 5].astype(np.float64), b.reshape(32, n)[:, 5], rcond=None)[0]
    np.testing.assert_allclose(xs.reshape(4, n)[:, 5], xl, atol=1e-12)
    A, x, y, s, nn = tp._p138_pw_args(256, rng)
    assert A.dtype == x.dtype == np.float32 and abs(np.linalg.norm(x) - 1) < 1e-6 and abs(A.std() * 16 - 1) < 0.02
    a, bb, c, d, cp, dp, xo, nn = tp._p138_th_args(n, rng)
    N = tp.P138_TH_N
    assert (a[:n] == 0).all() and (c[-n:] == 0).all() and (bb > np.abs(a) + np.abs(c) + 0.4).all()
    xt = tp._p138_th_ref(a, bb, c, d).reshape(N, n)
    a2, b2, c2, d2 = (v.reshape(N, n).astype(np.float64) for v in (a, bb, c, d))
    i = 7                                                   # one system, solved densely
    T = np.diag(b2[:, i]) + np.diag(a2[1:, i], -1) + np.diag(c2[:-1, i], 1)
    np.testing.assert_allclose(xt[:, i], np.linalg.solve(T, d2[:, i]), atol=1e-12)
    A, AT, cs, nn = tp._p138_tr_args(64, rng)
    at, col = tp._p138_tr_ref(A, 64)
    assert (at.reshape(64, 64) == A.reshape(64, 64).T).all() and abs(col.mean() / 64 - 1) < 0.1


# ---- nla-lu8-pivot-thread ----

@pytest.mark.parametrize("policy, n", [("lockstep", 200), ("random", 40)])
def test_lu_pivot(policy, n):
    # lockstep: 2 blocks, the last partial
    rng = np.random.default_rng(3)
    host = tp._p138_lu_args(n, rng)
    M = host[0].reshape(n, 8, 8)
    M[0] = 0                                                # singular from column 0: no pivot anywhere
    M[1, :, 2] = 0                                          # a zero column: info 3
    M[2] = np.eye(8, dtype=np.float32)[::-1]                # a permutation matrix: every step swaps
    M[3] = np.triu(M[3]) + 20 * np.eye(8, dtype=np.float32)   # upper triangular, dominant: no swap
    out = run("probe/nla-lu8-pivot-thread", [h.copy() if isinstance(h, np.ndarray) else h for h in host], n,
              policy=policy)
    lu, piv, info = tp._p138_lu_ref(host[0])
    assert (out[1] == piv).all() and (out[2] == info).all()
    np.testing.assert_allclose(out[0], lu, rtol=1e-5, atol=1e-5)
    assert list(info[:4]) == [1, 3, 0, 0] and (info[4:] == 0).all()
    assert (out[0].reshape(n, 8, 8)[0] == 0).all() and list(piv[:8]) == list(range(8))
    assert list(piv[16:24]) == [7, 6, 5, 4, 4, 5, 6, 7] and (piv[24:32] == np.arange(8)).all()


# ---- nla-householder-panel-smem ----

@pytest.mark.parametrize("policy, n", [("lockstep", 3), ("random", 1)])
def test_householder(policy, n):
    host, (A, tau, nn), *_ = launch("probe/nla-householder-panel-smem", n, policy=policy)
    h, t = tp._p138_hh_ref(host[0])
    np.testing.assert_allclose(A, h, rtol=0, atol=2e-5 * np.abs(h).max())
    np.testing.assert_allclose(tau, t, rtol=1e-5)
    # Q R reproduces the panel: the reflectors applied to R in reverse
    M, K = tp.P138_HH_M, tp.P138_HH_K
    for p in range(n):
        hp = A.reshape(n, K, M)[p].T.astype(np.float64)
        QR = np.zeros((M, K))
        QR[:K] = np.triu(hp[:K])
        for j in range(K - 1, -1, -1):
            v = np.r_[np.zeros(j), 1.0, hp[j + 1:, j]]
            QR -= tau[p * K + j] * np.outer(v, v @ QR)
        np.testing.assert_allclose(QR, host[0].reshape(n, K, M)[p].T, atol=2e-5)


# ---- nla-givens-lsq-interleaved ----

def test_givens_lsq():
    n = 300                                                 # 2 blocks, the last partial
    rng = np.random.default_rng(4)
    host = tp._p138_gv_args(n, rng)
    A = host[0].reshape(32, 4, n)
    A[:3, 0, 0] = 0                                         # zero entries skip their rotations
    A[5:, 1, 0] = 0
    host[1].reshape(32, n)[:, 1] = (A[:, :, 1].astype(np.float64) @ [1, -0.5, 0.25, 2]).astype(np.float32)
    A[:4, :, 2] = np.eye(4)                                 # a square identity block on top
    out = run("probe/nla-givens-lsq-interleaved", host, n)
    x, r = tp._p138_gv_ref(host[0], host[1])
    np.testing.assert_allclose(out[2], x, rtol=0, atol=2e-5)
    np.testing.assert_allclose(out[3], r, rtol=2e-5, atol=3e-6)
    assert r[1] < 1e-5 and np.allclose(out[2].reshape(4, n)[:, 1], [1, -0.5, 0.25, 2], atol=1e-5)


# ---- nla-power-matvec-warp ----

@pytest.mark.parametrize("policy, n", [("lockstep", 80), ("random", 20)])
def test_power_step(policy, n):
    # n rows not a multiple of the block's 8 warps: the last block partly idle
    host, (A, x, y, sums, nn), *_ = launch("probe/nla-power-matvec-warp", n, policy=policy)
    yr, sr = tp._p138_pw_ref(host[0], host[1])
    np.testing.assert_allclose(y, yr, rtol=0, atol=2e-6)
    np.testing.assert_allclose(sums, sr, rtol=1e-5, atol=1e-6)
    assert sr[1] > 0.5 and (A == host[0]).all()


# ---- nla-thomas-interleaved ----

def test_thomas():
    n = 300                                                 # 2 blocks, the last partial
    host, out, *_ = launch("probe/nla-thomas-interleaved", n)
    x = tp._p138_th_ref(*host[:4])
    np.testing.assert_allclose(out[6], x, rtol=0, atol=2e-6)
    a, b, c, d = (v.reshape(tp.P138_TH_N, n).astype(np.float64) for v in host[:4])
    X = out[6].reshape(tp.P138_TH_N, n).astype(np.float64)
    Tx = b * X
    Tx[1:] += a[1:] * X[:-1]
    Tx[:-1] += c[:-1] * X[1:]
    assert np.abs(Tx - d).max() < 1e-5
    np.testing.assert_allclose(out[4][:n], host[2][:n] / host[1][:n], rtol=1e-6)      # c'_0 = c_0 / b_0


# ---- nla-transpose-colnorm ----

@pytest.mark.parametrize("policy, n", [("lockstep", 80), ("random", 40)])
def test_transpose_colnorm(policy, n):
    # n not a multiple of 32: partial tiles on both edges
    host, (A, AT, colsq, nn), *_ = launch("probe/nla-transpose-colnorm", n, policy=policy)
    at, col = tp._p138_tr_ref(host[0], n)
    assert (AT == at).all()
    np.testing.assert_allclose(colsq, col, rtol=1e-5)
