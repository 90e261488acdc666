"""probe-unseen82's kernels (kernels_cuda/probes84.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/fem-p1-element-quad7", "probe/fem-assemble-csr-atomic", "probe/fem-q1-matfree-smem",
       "probe/fem-csr-residual-jacobi", "probe/fem-cg-update-dot", "probe/fem-dirichlet-holes-csr"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen82"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes84.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def dense(row_ptr, col, val):
    n = len(row_ptr) - 1
    A = np.zeros((n, n))
    A[tp._p84_csr_rows(row_ptr), col] = val
    return A


def test_data():
    rng = np.random.default_rng(0)
    # the mesh: 2 m^2 counter-clockwise triangles covering the unit square, interior
    # vertices jittered by at most 0.15 h, the boundary straight
    m = 16
    X, Y, tri = tp._p84_mesh(m, rng)
    M, h = m + 1, 1.0 / m
    jj, ii = np.divmod(np.arange(M * M), M)
    assert tri.dtype == np.int32 and tri.shape == (2 * m * m, 3)
    assert np.abs(X - ii * h).max() <= 0.15 * h and np.abs(X - ii * h).max() > 0.1 * h
    assert (X[ii == 0] == 0).all() and (X[ii == m] == 1).all() and (Y[jj == m] == 1).all()
    det, gx, gy = tp._p84_geom(X, Y, tri)
    assert det.min() > 0.5 * h * h and abs(det.sum() / 2 - 1) < 1e-12
    np.testing.assert_allclose(gx.sum(axis=0), 0, atol=1e-9)           # barycentric: sum of gradients 0
    # the pattern: 7 sorted columns an interior row (3 .. 6 on the boundary), symmetric,
    # holding every pair of an element's vertices
    row_ptr, col, pos = tp._p84_pattern(m)
    lens = np.diff(row_ptr)
    assert row_ptr.dtype == col.dtype == np.int32 and lens.min() == 3 and lens.max() == 7
    assert (lens == 7).sum() == (m - 1) ** 2 and len(col) == 7 * M * M - 8 * M + 2
    assert all((np.diff(col[row_ptr[r]:row_ptr[r + 1]]) > 0).all() for r in range(M * M))
    P = dense(row_ptr, col, np.ones(len(col)))
    assert (P == P.T).all()
    for a in range(3):
        for c in range(3):
            assert (P[tri[:, a], tri[:, c]] == 1).all()
    # the element integrals: Ke symmetric with zero row sums (a constant is in the kernel),
    # the integrals of the source (8) and of kappa (1) right to the rule's order
    Ke, fe, A = tp._p84_el_ref(X.astype(np.float32), Y.astype(np.float32), tri)
    np.testing.assert_allclose(Ke.sum(axis=2), 0, atol=1e-9)
    assert (np.abs(Ke - Ke.transpose(0, 2, 1)) < 1e-12).all() and (Ke[:, range(3), range(3)] > 0).all()
    assert abs(fe.sum() - 8.0) < 1e-3 and abs(A.sum() - 1) < 1e-6
    kint = Ke[:, 0, 0] / (gx[0] ** 2 + gy[0] ** 2)                       # Ke = (int_T kappa) G G^T
    assert abs(kint.sum() - 1) < 1e-3 and 0.4 < (kint / A).min() and (kint / A).max() < 1.6
    # the stiffness matrix: symmetric, zero row sums, positive diagonal, the assembly of the
    # elements' kappa-scaled matrices; conductivities 0.1 .. 10
    row_ptr, col, val, X, Y = tp._p84_stiffness(m, np.random.default_rng(1))
    S = dense(row_ptr, col, val)
    assert np.abs(S - S.T).max() < 1e-12 and np.abs(S.sum(axis=1)).max() < 1e-12 and (np.diag(S) > 0).all()
    w = np.linalg.eigvalsh(S)
    assert w[0] > -1e-9 and w[1] > 1e-3                                    # one null vector: the constants
    q = tp._p84_q1_args(64 * 64, rng)
    assert q[3] == 64 and len(q[0]) == len(q[2]) == 65 * 65 and q[1].min() >= 0.1 and q[1].max() <= 10
    assert q[1].dtype == np.float32 and 0.3 < np.log10(q[1]).std() < 0.7
    # the Q1 reference on kappa = 1 is the 9-point stencil (8/3, -1/3), a constant gives 0
    u = rng.standard_normal(17 * 17)
    Yq = tp._p84_q1_ref(u, np.ones(16 * 16)).reshape(17, 17)
    U = u.reshape(17, 17)
    nb = sum(U[1 + dj:16 + dj, 1 + di:16 + di] for dj in (-1, 0, 1) for di in (-1, 0, 1)) - U[1:16, 1:16]
    np.testing.assert_allclose(Yq[1:16, 1:16], 8 / 3 * U[1:16, 1:16] - nb / 3, atol=1e-12)
    assert np.abs(tp._p84_q1_ref(np.ones(17 * 17), np.ones(256)).reshape(17, 17)[1:16, 1:16]).max() < 1e-12
    # CG: inv_diag 0.1 .. 1, rz zeroed
    x, r, z, p, qq, inv, alpha, rz, nn = tp._p84_cg_args(1000, rng)
    assert x.dtype == np.float64 and nn == 1000 and inv.min() >= 0.1 and inv.max() <= 1 and rz[0] == 0
    # the plate with holes: at 2^16 vertices about a quarter of the rows Dirichlet (the outer
    # boundary and 64 holes), g 1 in the holes and 0 on the outer boundary
    n = 256 * 256
    row_ptr, col, val, b, g, is_dir, nn = tp._p84_dr_args(n, rng)
    d = is_dir != 0
    assert is_dir.dtype == np.int32 and 0.22 < d.mean() < 0.28 and nn == n
    assert set(np.unique(g[d])) == {0.0, 1.0} and (g[~d] == 0).all()
    jj, ii = np.divmod(np.arange(n), 256)
    assert d[(ii == 0) | (jj == 255)].all() and (g[(ii == 0) | (jj == 0)] == 0).all()
    lab = d.reshape(256, 256)[1:-1, 1:-1]
    assert (lab[:, 1:] != lab[:, :-1]).sum() > 64 * 2 * 5                  # many hole edges along the rows


# ---- fem-p1-element-quad7 ----

def test_p1_element_integrals():
    n = 2 * 12 * 12                                          # 2 blocks, the last partial
    host, (X, Y, tri, Ke, fe, A, nn), *_ = launch("probe/fem-p1-element-quad7", n)
    rKe, rfe, rA = tp._p84_el_ref(X, Y, tri)
    np.testing.assert_allclose(Ke, rKe.ravel(), rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(fe, rfe.ravel(), rtol=2e-5, atol=1e-9)
    np.testing.assert_allclose(A, rA, rtol=1e-5)
    assert np.abs(Ke.reshape(-1, 3, 3).sum(axis=2)).max() < 1e-5 and abs(A.sum() - 1) < 1e-5
    assert (fe > 0).all() and rKe.max() > 1.5 * rKe[:, 0, 0].min()


# ---- fem-assemble-csr-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_assemble_csr_atomic(policy):
    n = 2 * 10 * 10                                          # 2 blocks of 128, the last partial
    host, out, *_ = launch("probe/fem-assemble-csr-atomic", n, policy=policy)
    tri, Ke, fe, row_ptr, col, val, b, nn = out
    rval, rb = tp._p84_assemble(10, host[0], host[1], host[2])
    np.testing.assert_allclose(val, rval, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(b, rb, rtol=1e-5, atol=1e-8)
    S = dense(row_ptr, col, val.astype(np.float64))
    assert np.abs(S - S.T).max() < 1e-4 and np.abs(S.sum(axis=1)).max() < 1e-4
    assert (np.diff(row_ptr) == 7).sum() == 81 and (val != 0).mean() > 0.95


# ---- fem-q1-matfree-smem ----

def test_q1_matfree():
    n = 20 * 20                                              # 21 x 21 nodes: 2 x 2 blocks, 3 partial
    host, (u, kappa, y, N), *_ = launch("probe/fem-q1-matfree-smem", n)
    assert N == 20 and tp.get("probe/fem-q1-matfree-smem").grid(n) == (2, 2)
    np.testing.assert_allclose(y, tp._p84_q1_ref(u, kappa), rtol=1e-5, atol=1e-5)
    Y, U = y.reshape(21, 21), u.reshape(21, 21)
    assert (Y[0] == U[0]).all() and (Y[:, 20] == U[:, 20]).all()
    # a constant field: zero at the interior nodes
    host[0] = np.full(21 * 21, 2.0, np.float32)
    y1 = run("probe/fem-q1-matfree-smem", host, n)[2].reshape(21, 21)
    assert np.abs(y1[1:20, 1:20]).max() < 1e-4 and (y1[0] == 2).all()


# ---- fem-csr-residual-jacobi ----

def test_csr_residual_jacobi():
    n = 20 * 20                                              # 2 blocks, the last partial
    host, out, *_ = launch("probe/fem-csr-residual-jacobi", n)
    r, z = tp._p84_rj_ref(*host[:5])
    np.testing.assert_allclose(out[5], r, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(out[6], z, rtol=1e-13, atol=1e-13)
    # x constant: A x = 0, so r = b
    host[3] = np.full(n, 3.0)
    o = run("probe/fem-csr-residual-jacobi", host, n)
    np.testing.assert_allclose(o[5], host[4], atol=1e-12)
    S = dense(*host[:3])
    np.testing.assert_allclose(o[6], o[5] / np.diag(S), rtol=1e-14)


# ---- fem-cg-update-dot ----

@pytest.mark.parametrize("n", [1000, 768])
def test_cg_update_dot(n):
    host, (x, r, z, p, q, inv, alpha, rz, nn), *_ = launch("probe/fem-cg-update-dot", n, policy="random")
    rx, rr, rzv, dot = tp._p84_cg_ref(host[0], host[1], host[3], host[4], host[5], alpha)
    np.testing.assert_allclose(x, rx, rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(r, rr, rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(z, rzv, rtol=1e-15, atol=1e-15)
    assert abs(rz[0] - dot) < 1e-12 * abs(dot) + 1e-12 and dot > 0


# ---- fem-dirichlet-holes-csr ----

def dirichlet_check(host, out):
    val, b = tp._p84_dr_ref(*host[:6])
    np.testing.assert_allclose(out[2], val, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(out[3], b, rtol=1e-14, atol=1e-14)
    d = host[5] != 0
    S = dense(host[0], host[1], out[2])
    assert (S[np.ix_(d, d)] == np.eye(d.sum())).all() and (S[np.ix_(~d, d)] == 0).all()
    assert (S[np.ix_(d, ~d)] == 0).all()
    assert (S[np.ix_(~d, ~d)] == S[np.ix_(~d, ~d)].T).all()              # the interior block still symmetric
    assert (out[3][d] == host[4][d]).all()
    return d


def test_dirichlet_holes():
    n = 25 * 25                                              # 3 blocks, the last partial
    host, out, *_ = launch("probe/fem-dirichlet-holes-csr", n, policy="random")
    d = dirichlet_check(host, out)
    assert d.sum() > 4 * 24 + 10                             # the outer boundary and some hole nodes


def test_dirichlet_random_mask():
    # a scattered mask (about a third of the nodes) and random g: every branch in most warps
    rng = np.random.default_rng(3)
    n = 24 * 24
    host = tp._p84_dr_args(n, rng)
    host[5] = (rng.random(n) < 0.35).astype(np.int32)
    host[4] = rng.standard_normal(n)
    out = run("probe/fem-dirichlet-holes-csr", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    d = dirichlet_check(host, out)
    assert 0.25 < d.mean() < 0.45 and (out[3][~d] != host[3][~d]).mean() > 0.5
