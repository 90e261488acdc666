"""probe-unseen90's kernels (kernels_cuda/probes92.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/csr-vector-spmv-band", "probe/bicgstab-update-2dot", "probe/sptrsv-level-rows",
       "probe/mg-restrict-residual-fw", "probe/mg-prolong-bilinear-add", "probe/wjacobi-kl-coeff-tile"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen90"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes92.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def trsv_levels(level_rows, level_ptr, n):
    lev = np.empty(n, np.int64)
    for m in range(len(level_ptr) - 1):
        lev[level_rows[level_ptr[m]:level_ptr[m + 1]]] = m
    return lev


def test_data():
    rng = np.random.default_rng(0)
    # spmv: rows of 16 .. 80 sorted distinct columns (mean 48) in a window around the row
    n = 1 << 15
    row_ptr, col, val, x, y, nn = tp._p92_spmv_args(n, rng)
    ln = np.diff(row_ptr)
    assert row_ptr.dtype == col.dtype == np.int32 and val.dtype == x.dtype == np.float32 and nn == n
    assert ln.min() == 16 and ln.max() == 80 and abs(ln.mean() - 48) < 0.5 and row_ptr[-1] == len(col)
    row = np.repeat(np.arange(n), ln)
    same = row[1:] == row[:-1]
    assert (np.diff(col)[same] > 0).all() and col.min() >= 0 and col.max() < n
    assert np.abs(col - row).max() < 2 * tp._P92_SPMV_HALF and np.abs(col - row).mean() > tp._P92_SPMV_HALF / 3
    assert np.abs(val).max() <= 1
    # bicgstab: omega makes r = s - omega t orthogonal to t
    x, r, p, s, t, r0, alpha, omega, dots, nn = tp._p92_bicg_args(1 << 14, rng)
    assert all(a.dtype == np.float32 for a in (x, r, p, s, t, r0)) and dots.dtype == np.float64
    rr = s.astype(np.float64) - float(omega) * t
    assert abs(rr @ t) < 1e-4 * np.linalg.norm(rr) * np.linalg.norm(t) and 0.5 < omega < 0.8
    # sptrsv: lower triangular, diagonal last, the levels a valid schedule and exact
    n = 1 << 14
    row_ptr, col, val, level_rows, level_ptr, lev = tp._p92_trsv_matrix(n, rng)
    L = tp._P92_TRSV_LEVELS
    assert (np.diff(level_ptr) == n // L).all() and (trsv_levels(level_rows, level_ptr, n) == lev).all()
    for m in range(L):
        assert (np.diff(level_rows[level_ptr[m]:level_ptr[m + 1]]) > 0).all()   # ascending in a level
    ln = np.diff(row_ptr)
    row = np.repeat(np.arange(n), ln)
    diag = row_ptr[1:] - 1
    assert (col[diag] == np.arange(n)).all() and (val[diag] >= 4).all() and (val[diag] <= 8).all()
    off = np.ones(len(col), bool)
    off[diag] = False
    assert (col[off] < row[off]).all() and (lev[col[off]] < lev[row[off]]).all()
    same = (row[1:] == row[:-1]) & off[1:]
    assert (np.diff(col)[same] > 0).all()                                   # sorted, no duplicates
    assert (ln[lev == 0] == 1).all() and ln[lev > 0].max() <= 13 and abs(ln[lev > 0].mean() - 9) < 0.3
    deep = np.zeros(n, bool)
    deep[row[off][lev[col[off]] == lev[row[off]] - 1]] = True
    assert deep[lev > 0].mean() > 0.99                                      # a dependency a level below
    gap = np.abs(np.concatenate([np.diff(level_rows[level_ptr[m]:level_ptr[m + 1]]) for m in range(L)]))
    assert abs(gap.mean() - L) < 0.1 and (row[off] - col[off]).max() < 4.5 * tp._P92_TRSV_WIN
    args = tp._p92_trsv_args(n, rng)
    x, lo, hi = args[5], args[6], args[7]
    lev = trsv_levels(args[3], np.arange(L + 1) * (n // L), n)
    assert (lo, hi) == (2 * n // L, 3 * n // L) and (x[lev >= 2] == 0).all() and (x[lev < 2] != 0).all()
    ref = tp._p92_trsv_solve(*args[:4], np.arange(L + 1) * (n // L), args[4], np.zeros(n), 0, L)
    np.testing.assert_allclose(x[lev < 2], ref[lev < 2], rtol=1e-6)
    # multigrid: u smooth plus noise, 0 on the boundary, f the smooth solution's right side
    nc = 33
    u, f, rc, nf, ncc, inv_h2 = tp._p92_restrict_args(nc, rng)
    U = u.reshape(nf, nf)
    assert nf == 65 and ncc == nc and inv_h2 == 64 ** 2 and len(rc) == nc * nc
    assert (U[0] == 0).all() and (U[:, -1] == 0).all() and abs(U[32, 32] - 1) < 0.05 and f.max() > 19
    u2, ec, nf2, _ = tp._p92_prolong_args(nc, rng)
    E = ec.reshape(nc, nc)
    assert (E[0] == 0).all() and (E[:, 0] == 0).all() and 0.05 < E[1:-1, 1:-1].std() < 0.2
    # KL: 8 modes, the coefficient within a factor of ~e^2.5 of 1
    syms = tp._p92_kl_syms(64, rng)
    assert all(v.shape == (8,) and v.dtype == np.float32 for v in syms.values())
    g = np.linspace(0, 1, 101)
    k = tp._p92_kappa(g[None, :], g[:, None], syms)
    assert k.min() > np.exp(-3) and k.max() < np.exp(3) and k.max() / k.min() > 1.5


# ---- csr-vector-spmv-band ----

def test_csr_vector_spmv():
    n = 300                                                 # 38 blocks of 8 rows, the last half empty
    host, (row_ptr, col, val, x, y, nn), *_ = launch("probe/csr-vector-spmv-band", n)
    ref = tp._p92_spmv_ref(*host[:4])
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=2e-5 * np.abs(ref).max())
    assert (x == host[3]).all()


def test_csr_vector_spmv_edge_rows():
    # rows of 0, 1, 31, 32, 33, 64 and 100 nonzeros (partial trips, an empty row: y 0)
    rng = np.random.default_rng(3)
    n = 200
    ln = np.array([0, 1, 31, 32, 33, 64, 100] * 28 + [5] * 4)
    row_ptr = np.r_[0, np.cumsum(ln)].astype(np.int32)
    col = rng.integers(0, n, row_ptr[-1]).astype(np.int32)
    val = rng.uniform(-1, 1, row_ptr[-1]).astype(np.float32)
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, 7, np.float32)
    out = run("probe/csr-vector-spmv-band", [row_ptr, col, val, x, y, np.int32(n)], n)
    ref = tp._p92_spmv_ref(row_ptr, col, val, x)
    np.testing.assert_allclose(out[4], ref, rtol=1e-5, atol=1e-5)
    assert (out[4][ln == 0] == 0).all()


# ---- bicgstab-update-2dot ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_bicgstab_update(policy):
    n = 1000                                                # 4 blocks, the last partial
    host, (x, r, p, s, t, r0, alpha, omega, dots, nn), *_ = launch("probe/bicgstab-update-2dot", n, policy=policy)
    xr, rr, dr = tp._p92_bicg_ref(*(host[k] for k in (0, 2, 3, 4, 5, 6, 7)))
    np.testing.assert_allclose(x, xr, rtol=0, atol=1e-5)
    np.testing.assert_allclose(r, rr, rtol=0, atol=1e-5)
    np.testing.assert_allclose(dots, dr, rtol=1e-6)
    # the dots are those of the stored r, summed in double
    r64 = r.astype(np.float64)
    np.testing.assert_allclose(dots, [host[5].astype(np.float64) @ r64, r64 @ r64], rtol=1e-12)
    assert (p == host[2]).all() and dots[1] > 0


# ---- sptrsv-level-rows ----

def test_sptrsv_level():
    n = 4096                                                # levels of 1024 rows: 4 blocks
    host, (row_ptr, col, val, level_rows, b, x, lo, hi), *_ = launch("probe/sptrsv-level-rows", n)
    L = tp._P92_TRSV_LEVELS
    level_ptr = np.arange(L + 1) * (n // L)
    lev = trsv_levels(level_rows, level_ptr, n)
    ref = tp._p92_trsv_solve(*host[:4], level_ptr, b, host[5], 2, 3)
    np.testing.assert_allclose(x[lev == 2], ref[lev == 2], rtol=1e-5, atol=1e-6)
    assert (x[lev != 2] == host[5][lev != 2]).all()


def test_sptrsv_all_levels():
    # the whole solve, a launch a level (a level of 100 rows: a partial block): L x = b
    rng = np.random.default_rng(4)
    n, L = 400, tp._P92_TRSV_LEVELS
    row_ptr, col, val, level_rows, level_ptr, _ = tp._p92_trsv_matrix(n, rng)
    b = rng.standard_normal(n).astype(np.float32)
    x = np.zeros(n, np.float32)
    for m in range(L):
        x = run("probe/sptrsv-level-rows", [row_ptr, col, val, level_rows, b, x, np.int32(level_ptr[m]),
                                            np.int32(level_ptr[m + 1])], n)[5]
    A = np.zeros((n, n))
    A[np.repeat(np.arange(n), np.diff(row_ptr)), col] = val
    np.testing.assert_allclose(A @ x.astype(np.float64), b, rtol=0, atol=1e-5)
    np.testing.assert_allclose(x, tp._p92_trsv_solve(row_ptr, col, val, level_rows, level_ptr, b, np.zeros(n), 0, L),
                               rtol=1e-5, atol=1e-6)


# ---- mg-restrict-residual-fw ----

@pytest.mark.parametrize("nc", [33, 40])
def test_restrict_residual(nc):
    host, (u, f, rc, nf, ncc, inv_h2), *_ = launch("probe/mg-restrict-residual-fw", nc)
    ref, R = tp._p92_restrict_ref(u, f, nc, inv_h2)
    scale = float(inv_h2) * np.abs(u).max()
    np.testing.assert_allclose(rc, ref, rtol=0, atol=1e-5 * scale)
    RC = rc.reshape(nc, nc)
    assert (RC[0] == 0).all() and (RC[-1] == 0).all() and (RC[:, 0] == 0).all() and (RC[:, -1] == 0).all()
    assert np.abs(RC[1:-1, 1:-1]).min() > 0 and np.abs(ref).max() > 0.1 * np.abs(R).max()


# ---- mg-prolong-bilinear-add ----

@pytest.mark.parametrize("nc", [33, 40])
def test_prolong_correct(nc):
    host, (u, ec, nf, ncc), *_ = launch("probe/mg-prolong-bilinear-add", nc)
    ref = tp._p92_prolong_ref(host[0], ec, nc)
    assert (u == ref).all()                                 # bit for bit
    U, U0 = u.reshape(nf, nf), host[0].reshape(nf, nf)
    assert (U[0] == 0).all() and (U[:, -1] == 0).all() and (U[1:-1, 1:-1] != U0[1:-1, 1:-1]).mean() > 0.99
    E = ec.reshape(nc, nc)
    assert U[6, 8] == U0[6, 8] + E[3, 4] and U[7, 8] == U0[7, 8] + np.float32(0.5) * (E[3, 4] + E[4, 4])


# ---- wjacobi-kl-coeff-tile ----

@pytest.mark.parametrize("n, policy", [(40, "lockstep"), (32, "random")])
def test_wjacobi_kl(n, policy):
    host, (u, f, un, omega, h, nn), syms, _ = launch("probe/wjacobi-kl-coeff-tile", n, policy=policy)
    ref = tp._p92_kl_ref(u, f, omega, h, n, syms)
    np.testing.assert_allclose(un, ref, rtol=0, atol=2e-6 * np.abs(ref).max())
    U, UN = u.reshape(n, n), un.reshape(n, n)
    assert (UN[0] == U[0]).all() and (UN[:, -1] == U[:, -1]).all() and (UN[1:-1, 1:-1] != U[1:-1, 1:-1]).all()
    # constant coefficient (all amplitudes 0): the plain 5-point weighted Jacobi
    s0 = dict(syms, c_kl_a=np.zeros(8, np.float32))
    out = run("probe/wjacobi-kl-coeff-tile", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n,
              symbols=s0)
    hd = float(h)
    jac = (hd * hd + U[1:-1, :-2] + U[1:-1, 2:] + U[:-2, 1:-1] + U[2:, 1:-1]) / 4
    want = (1 - float(omega)) * U[1:-1, 1:-1] + float(omega) * jac
    np.testing.assert_allclose(out[2].reshape(n, n)[1:-1, 1:-1], want, rtol=0, atol=1e-6)
