"""probe-unseen87's kernels (kernels_cuda/probes89.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/lu-schur-rank1-double", "probe/householder-apply-cols", "probe/cholesky-tile32-smem",
       "probe/jacobi-rotate-cols-thresh", "probe/mgs-project-atomic", "probe/inv8-gauss-jordan-pivot"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen87"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes89.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # lu: diagonally dominant, the pivot column below k already multipliers (|l| < 1 / (n - 1))
    n = 512
    A, nn, k = tp._p89_lu_args(n, rng)
    M = A.reshape(n, n)
    assert A.dtype == np.float64 and nn == n and k == n // 32
    off = np.abs(M).sum(axis=1) - np.abs(np.diag(M))
    assert (np.abs(np.diag(M)) > off).all() and np.abs(M[k + 1:, k]).max() < 1 / (n - 1)
    assert np.abs(np.delete(M, k, axis=1)[k + 1:]).min() < 1e-3                 # the rest uniform in +-1
    # householder: v zero above k, v[k] = 1, H orthogonal (tau v^T v = 2)
    m, kk = 1000, 100
    A, v, tau, mm, nc, k = tp._p89_hh_args(16, rng, m=m, k=kk)
    assert A.dtype == v.dtype == np.float32 and len(A) == 16 * m and (mm, nc, k) == (m, 16, kk)
    assert (v[:k] == 0).all() and v[k] == 1 and abs(tau * (v.astype(np.float64) @ v) - 2) < 1e-5
    assert 1 < tau < 2 and np.abs(v[k + 1:]).max() < 0.2                     # larfg's sign choice: |v_i| small
    assert (tp._p89_hh_args(4, rng)[3], tp._p89_hh_args(4, rng)[5]) == (8192, 1000)
    # cholesky tiles: exactly symmetric, eigenvalues 1 .. ~5
    T = tp._p89_ch_args(64, rng)[0].reshape(64, 32, 32)
    assert T.dtype == np.float32 and (T == T.transpose(0, 2, 1)).all()
    ev = np.linalg.eigvalsh(T.astype(np.float64))
    assert ev.min() > 1 - 1e-5 and 4 < ev.max() < 6.5
    # jacobi: a round's pairs partition the columns; the gathered entries are A's; half active
    n = 1024
    A, top, bot, app, aqq, apq, tol, nn = tp._p89_jac_args(n, rng)
    M = A.reshape(n, n)
    assert A.dtype == np.float32 and (M == M.T).all() and tol == np.float32(1e-6) and nn == n
    assert (top < bot).all() and sorted(np.r_[top, bot]) == list(range(n)) and top.dtype == np.int32
    assert (app == M[top, top]).all() and (aqq == M[bot, bot]).all() and (apq == M[top, bot]).all()
    d = np.diag(M)
    assert 1 <= d.min() and d.max() <= 10
    on, c, s = tp._p89_jac_rot(app, aqq, apq)
    thr = 1e-6 * np.sqrt(app.astype(np.float64) * aqq)
    assert 0.45 < on.mean() < 0.55 and (np.abs(apq[~on]) <= 0.31 * thr[~on]).all()
    assert (np.abs(apq[on]) > 10 * thr[on]).mean() > 0.99
    assert np.abs(np.triu(M, 1)).max() < 0.3 and abs(np.triu(M, 1)[np.triu(M, 1) != 0].std() - 0.01) < 0.002
    assert (np.diff(top[1:tp._P89_JAC_ROUND]) == 1).all() or (np.diff(top[tp._P89_JAC_ROUND:]) == 1).all()
    # mgs: q is column k normalized; r zeroed
    A, q, r, m, nc, k = tp._p89_mgs_args(2000, rng)
    assert A.dtype == q.dtype == np.float32 and (m, nc, k) == (2000, 256, 37) and not r.any()
    assert abs(np.linalg.norm(q.astype(np.float64)) - 1) < 1e-6
    np.testing.assert_allclose(q, A.reshape(m, nc)[:, k] / np.linalg.norm(A.reshape(m, nc)[:, k]), rtol=1e-5)
    # inverses: N(0, 1) entries, ~5.3 row swaps of 8, mostly well conditioned
    A = tp._p89_inv_args(4096, rng)[0]
    assert A.dtype == np.float32 and abs(A.std() - 1) < 0.01
    sw = tp._p89_inv_pivots(A)
    assert 5.0 < sw.mean() < 5.6 and sw.max() <= 7
    cond = np.linalg.cond(A.reshape(-1, 8, 8).astype(np.float64))
    assert np.median(cond) < 100 and (cond < 1e5).all()


# ---- lu-schur-rank1-double ----

@pytest.mark.parametrize("n", [100, 203])
def test_lu_schur(n):
    host, (A, nn, k), *_ = launch("probe/lu-schur-rank1-double", n)
    assert tp.get("probe/lu-schur-rank1-double").grid(n) == (-(-(n - k - 1) // 32), -(-(n - k - 1) // 8))
    ref = tp._p89_lu_ref(host[0], n, k).reshape(n, n)
    got = A.reshape(n, n)
    np.testing.assert_allclose(got, ref, rtol=1e-15, atol=1e-15)
    h = host[0].reshape(n, n)
    assert (got[:k + 1] == h[:k + 1]).all() and (got[:, :k + 1] == h[:, :k + 1]).all()   # outside untouched
    assert (got[k + 1:, k + 1:] != h[k + 1:, k + 1:]).mean() > 0.99


# ---- householder-apply-cols ----

@pytest.mark.parametrize("m, k, ncols", [(600, 77, 12), (300, 0, 5)])
def test_householder(m, k, ncols):
    rng = np.random.default_rng(3)
    host = tp._p89_hh_args(ncols, rng, m=m, k=k)
    # column 0 the vector the reflector was made from: H x = beta e1
    x = rng.standard_normal(m - k)
    v, tau, beta = tp._p89_hh_vec(x)
    host[1][k:] = v
    host[2] = np.float32(tau)
    host[0][k:m] = x
    out = run("probe/householder-apply-cols", [a.copy() if isinstance(a, np.ndarray) else a for a in host], ncols)
    ref = tp._p89_hh_ref(*host)
    np.testing.assert_allclose(out[0], ref, rtol=0, atol=2e-5)
    got, h = out[0].reshape(ncols, m), host[0].reshape(ncols, m)
    assert (got[:, :k] == h[:, :k]).all()                                   # rows above k untouched
    np.testing.assert_allclose(np.linalg.norm(got[:, k:], axis=1), np.linalg.norm(h[:, k:], axis=1), rtol=1e-5)
    assert abs(got[0, k] - beta) < 1e-4 * abs(beta) and np.abs(got[0, k + 1:]).max() < 1e-5


# ---- cholesky-tile32-smem ----

@pytest.mark.parametrize("policy, n", [("lockstep", 3), ("random", 1)])
def test_cholesky_tiles(policy, n):
    host, (T, nn), *_ = launch("probe/cholesky-tile32-smem", n, policy=policy)
    L = tp._p89_ch_ref(host[0])
    got = T.reshape(n, 32, 32)
    np.testing.assert_allclose(got, L, rtol=0, atol=2e-6)
    assert (np.triu(got, 1) == 0).all() and (np.diagonal(got, axis1=1, axis2=2) > 0).all()
    A = host[0].reshape(n, 32, 32).astype(np.float64)
    g = got.astype(np.float64)
    np.testing.assert_allclose(g @ g.transpose(0, 2, 1), A, rtol=0, atol=5e-6)


def test_cholesky_identity_and_diagonal():
    # an identity tile, a diagonal one (the factor its square roots) and a random one
    rng = np.random.default_rng(4)
    T = tp._p89_ch_args(3, rng)
    t = T[0].reshape(3, 32, 32)
    t[0] = np.eye(32, dtype=np.float32)
    t[1] = np.diag(np.arange(1, 33, dtype=np.float32) ** 2)
    out = run("probe/cholesky-tile32-smem", T, 3)[0].reshape(3, 32, 32)
    assert (out[0] == np.eye(32)).all() and (out[1] == np.diag(np.arange(1, 33))).all()
    np.testing.assert_allclose(out[2], tp._p89_ch_ref(t[2])[0], rtol=0, atol=2e-6)


# ---- jacobi-rotate-cols-thresh ----

def test_jacobi_rotate():
    n = 520                                                  # 260 pairs: 2 blocks a row, the last partial
    host, out, *_ = launch("probe/jacobi-rotate-cols-thresh", n)
    ref, on, c, s = tp._p89_jac_ref(*host[:6])
    assert 0.35 < on.mean() < 0.65
    np.testing.assert_allclose(out[0], ref, rtol=0, atol=3e-6)
    got, h = out[0].reshape(n, n), host[0].reshape(n, n)
    top, bot = host[1], host[2]
    skip = np.r_[top[~on], bot[~on]]
    assert (got[:, skip] == h[:, skip]).all() and (got[:, top[on]] != h[:, top[on]]).any(axis=0).all()
    # J^T (A J): the rotated pairs' a_pq annihilated, the eigenvalues kept
    B = got.astype(np.float64)
    p, q = top[on], bot[on]
    Bp, Bq = B[p].copy(), B[q].copy()
    B[p] = c[on, None] * Bp - s[on, None] * Bq
    B[q] = s[on, None] * Bp + c[on, None] * Bq
    assert np.abs(B[p, q]).max() < 1e-6 and np.abs(h[p, q]).min() > 1e-4
    np.testing.assert_allclose(np.linalg.eigvalsh((B + B.T) / 2), np.linalg.eigvalsh(h.astype(np.float64)),
                               atol=2e-5)


def test_jacobi_all_or_none():
    # every pair converged (nothing written), then every pair active with a_pp == a_qq
    # (theta 0: 45-degree rotations)
    rng = np.random.default_rng(6)
    n = 96
    host = tp._p89_jac_args(n, rng)
    h = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    h[5] = np.zeros(n // 2, np.float32)
    assert (run("probe/jacobi-rotate-cols-thresh", h, n)[0] == host[0]).all()
    h = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    h[4] = h[3].copy()
    h[5] = np.full(n // 2, 0.5, np.float32)
    out = run("probe/jacobi-rotate-cols-thresh", h, n)[0]
    ref, on, c, s = tp._p89_jac_ref(*h[:6])
    assert on.all() and np.allclose(c, np.sqrt(0.5)) and np.allclose(s, np.sqrt(0.5))
    np.testing.assert_allclose(out, ref, rtol=0, atol=3e-6)


# ---- mgs-project-atomic ----

@pytest.mark.parametrize("policy, m", [("lockstep", 1000), ("random", 120)])
def test_mgs_project(policy, m):
    # 1000 rows: 32 row blocks, the last 8 rows; 120: 4 row blocks, the last 24
    host, (A, q, r, *_), *_ = launch("probe/mgs-project-atomic", m, policy=policy)
    assert tp.get("probe/mgs-project-atomic").grid(m) == (7, -(-m // 32))
    ref = tp._p89_mgs_ref(host[0], host[1], m, 256, 37)
    assert (r[:38] == 0).all()
    np.testing.assert_allclose(r, ref, rtol=0, atol=2e-5)
    assert np.abs(ref[38:]).min() > 1e-4                    # every later column got its projection
    # the projection step that follows removes q from every later column
    Am = host[0].reshape(m, 256).astype(np.float64)
    Am[:, 38:] -= np.outer(host[1], r[38:])
    assert np.abs(host[1] @ Am[:, 38:]).max() < 1e-4


# ---- inv8-gauss-jordan-pivot ----

def test_inv8():
    n = 300                                                  # 3 blocks, the last partial
    host, (A, X, info, nn), *_ = launch("probe/inv8-gauss-jordan-pivot", n)
    assert (info == 0).all()
    Am = host[0].reshape(n, 8, 8).astype(np.float64)
    ref = np.linalg.inv(Am)
    cond = np.linalg.cond(Am)
    err = np.abs(X.reshape(n, 8, 8) - ref).max(axis=(1, 2)) / np.abs(ref).max(axis=(1, 2))
    assert (err < 1e-6 * cond).all() and np.median(err) < 1e-5
    assert np.abs(X.reshape(n, 8, 8) @ Am - np.eye(8)).max(axis=(1, 2)).max() < 1e-5 * cond.max()
    assert tp._p89_inv_pivots(host[0]).mean() > 4.5


def test_inv8_special():
    # a permutation (a zero pivot at once: its inverse the transpose, exactly), a diagonal
    # matrix, a singular one (column 3 zero: info 4, nothing written) and random ones
    rng = np.random.default_rng(9)
    n = 40
    host = tp._p89_inv_args(n, rng)
    A = host[0].reshape(n, 8, 8)
    P = np.eye(8, dtype=np.float32)[[3, 0, 7, 1, 6, 2, 5, 4]]
    A[0] = P
    A[1] = np.diag(np.float32([1, 2, 4, -8, 0.5, 3, 5, -7]))
    A[2][:, 3] = 0
    A[5] *= 1e-3
    out = run("probe/inv8-gauss-jordan-pivot", host, n)
    X, info = out[1].reshape(n, 8, 8), out[2]
    assert info[2] == 4 and (np.delete(info, 2) == 0).all() and (X[2] == 0).all()
    assert (X[0] == P.T).all()
    assert (X[1] == np.diag(np.float32(1) / np.diag(A[1]))).all()
    ok = np.delete(np.arange(n), [0, 1, 2])
    ref = np.linalg.inv(A[ok].astype(np.float64))
    rel = np.abs(X[ok] - ref).max(axis=(1, 2)) / np.abs(ref).max(axis=(1, 2))
    assert (rel < 1e-6 * np.linalg.cond(A[ok].astype(np.float64))).all()
