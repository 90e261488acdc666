"""probe-unseen164's kernels (kernels_cuda/probes166.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/fista-at-soft", "probe/omp-corr-argmax", "probe/sjlt-csr-gather",
       "probe/tv-dual-chambolle-pock", "probe/srht-hadamard-smem", "probe/amp-state-evolution"]
ULP = 2.0 ** -24


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen164"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes166.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 4096
    A, r, z, x, xn, zn, m, nn, step, thr, mom = tp._p166_fi_args(n, rng)
    assert m == n // 8 and nn == n and A.dtype == np.float32 and len(A) == m * n and (xn == 0).all()
    assert abs(A.std() * np.sqrt(m) - 1) < 0.01 and abs(A.mean()) < 1e-3
    k = n // tp.P166_FI_K
    assert (x != 0).sum() == (z != 0).sum() == k + k // 2 and (np.abs(x) > 0.4).sum() == k        # true + false
    assert abs(step - 1 / (1 + np.sqrt(8)) ** 2) < 1e-7 and abs(thr - step * tp.P166_FI_LAM) < 1e-8
    assert 0.85 < mom < 0.88 and 0.02 < r.std() < 0.15 and abs(r.mean()) < 0.01
    A, r, sel, best, m, nn = tp._p166_omp_args(n, rng)
    A = A.reshape(n, m)
    assert np.abs(np.linalg.norm(A, axis=1) - 1).max() < 1e-5 and sel.sum() == tp.P166_OMP_S
    c = np.abs(A.astype(np.float64) @ r)
    assert c[sel == 1].max() < 1e-5 * np.linalg.norm(r)                     # r orthogonal to the chosen
    left = tp.P166_OMP_K - tp.P166_OMP_S                                    # the true columns still out
    top = np.sort(c[sel == 0])[::-1]
    assert top[left - 1] > 1.2 * np.percentile(top, 99) and top[0] > 10 * np.median(top)   # they stand out
    rowptr, col, sgn, xs, y, m = tp._p166_sj_args(1 << 14, rng)
    S, mb = tp.P166_SJ_S, m // tp.P166_SJ_S
    assert m == 1 << 12 and rowptr[-1] == len(col) == len(sgn) == S * (1 << 14)
    row = np.repeat(np.arange(m), np.diff(rowptr))
    order = np.lexsort((row, col))                                          # each column's rows
    assert (col[order].reshape(-1, S) == np.arange(1 << 14)[:, None]).all()   # S entries a column
    assert (row[order].reshape(-1, S) // mb == np.arange(S)).all()         # one in each block
    d = np.diff(col)
    assert (d[np.diff(row) == 0] > 0).all() and set(np.unique(sgn)) == {-1, 1} and abs(sgn.mean()) < 0.01
    assert abs(np.diff(rowptr).mean() - 64) < 0.1 and 6 < np.diff(rowptr).std() < 10
    lvl = [np.median(np.abs(xs[4 ** L:4 ** (L + 1)])) for L in range(3, 7)]      # 192 .. 12288 entries
    assert all(2.4 > a / b > 1.6 for a, b in zip(lvl, lvl[1:]))              # halving a level
    ub, p, nx, ny, sg = tp._p166_tv_args(512, rng)
    P = p.reshape(512, 512, 2)
    nrm = np.hypot(P[..., 0], P[..., 1])
    assert nx == ny == 512 and nrm.max() < 1 + 1e-6 and 0.01 < (nrm > 0.999).mean() < 0.1
    assert (P[:, -1, 0] == 0).all() and (P[-1, :, 1] == 0).all()           # no difference across the edge
    lv = np.round(ub * 4)
    assert set(np.unique(lv)) <= set(range(-1, 6)) and np.abs(ub - lv / 4).std() < 0.045
    assert abs(sg - 1 / np.sqrt(8)) < 1e-7
    xw, signs, yw = tp._p166_wh_args(1 << 16, rng)
    X = xw.reshape(-1, 1024)
    assert len(yw) == 64 * 256 and abs(np.diff(X, axis=1).std() - 1) < 0.01 and 8 < X[:, 0].std() < 12
    bits = np.unpackbits(signs.view(np.uint8))
    assert len(bits) == 1 << 16 and abs(bits.mean() - 0.5) < 0.01
    rows = tp._p166_wh_syms(1 << 16, rng)["c_rows"]
    assert len(rows) == 256 and (np.diff(rows) > 0).all() and 0 <= rows[0] and rows[-1] < 1024
    alpha, t2, it, nd, nr, s2, ta, tr, big, mx = tp._p166_se_args(64, rng)
    eps = np.outer(np.arange(1, 65), np.arange(1, 65)).ravel() / 64 ** 2
    g = tp._p166_phi(alpha) - alpha * tp._p166_Phi(-alpha)
    ok = eps < 0.9
    assert np.abs(eps * alpha - 2 * (1 - eps) * g)[ok].max() < 1e-4      # the minimax condition
    assert (np.diff(alpha[np.argsort(eps)]) <= 1e-12).all() and 0.3 < alpha[eps == 0.25][0] < 1.5
    assert (nd, nr, s2, mx) == (64, 64, 0, tp.P166_SE_MAXIT) and alpha.max() > 2.5


# ---- fista-at-soft ----

@pytest.mark.parametrize("n, policy", [(300, "lockstep"), (200, "random")])
def test_fista_step(n, policy):
    host, out, *_ = launch("probe/fista-at-soft", n, policy=policy)    # 300: 3 blocks, the last partial
    A, r, z, x, _, _, m, _, step, thr, mom = host
    xn, zn, gap = tp._p166_fi_ref(A, r, z, x, m, n, step, thr, mom)
    # float32: A^T r sums m = n / 8 products (|A r| < 0.1, error < m 2^-24 0.1 step) and |z + step g|
    # < 4 is rounded 3 times (< 3 2^-24 4): 1e-6 with room
    assert np.abs(out[4] - xn).max() < 1e-6 and np.abs(out[5] - zn).max() < 2e-6
    far = np.abs(gap) > 1e-6
    assert ((out[4] == 0) == (xn == 0))[far].all() and (xn != 0).sum() > (x != 0).sum() // 2
    assert (xn == 0).sum() > n // 2
    # a zero residual: x_new the soft threshold of z itself, exactly; z at +-thr goes to 0
    h = list(host)
    h[1] = np.zeros(int(m), np.float32)
    h[2] = z.copy()
    h[2][:3] = [thr, -thr, np.nextafter(thr, np.float32(1))]
    out = run("probe/fista-at-soft", h, n)
    soft = np.where(h[2] > thr, h[2] - thr, np.where(h[2] < -thr, h[2] + thr, np.float32(0)))
    assert (out[4] == soft).all() and out[4][0] == out[4][1] == 0 and 0 < out[4][2] < 1e-8
    assert np.abs(out[5] - (soft + mom * (soft.astype(np.float64) - x))).max() < 1e-6


# ---- omp-corr-argmax ----

@pytest.mark.parametrize("n, m, policy", [(200, 1024, "lockstep"), (40, 128, "random")])
def test_omp_select(n, m, policy):
    host = tp._p166_omp_args(n, np.random.default_rng(0), m=m, k=8, s=4)   # 200 warps: 25 blocks of 8
    out = run("probe/omp-corr-argmax", host, n, policy=policy)
    A, r, sel = host[:3]
    j, c, gap = tp._p166_omp_ref(A, r, sel, m, n)
    col, val = tp._p166_omp_key(out[3][0], n)
    # each lane sums 32 float32 products, then 5 shuffle adds: error < 37 2^-24 sum |a_i r_i|
    bound = 37 * ULP * np.abs(A.reshape(n, m)[j].astype(np.float64) * r).sum()
    assert gap > 2 * bound and col == j and abs(val - c) < bound and sel[j] == 0
    # +-1 columns and an integer residual: exact correlations; the largest (column 3) is in the
    # support, columns 5 and 9 tie for the largest of the rest (the lower index wins), 13 columns:
    # the second block's last 3 warps have no column
    rng = np.random.default_rng(3)
    n, m = 13, 64
    A = rng.choice(np.float32([-1, 1]), (n, m))
    r = rng.integers(-3, 4, m).astype(np.float32)
    A[3] = np.sign(r + 0.5)
    A[9] = A[5] = np.where(np.arange(m) < 50, A[3], -A[3])
    sel = np.zeros(n, np.int32)
    sel[[3, 7]] = 1
    h = [A.ravel(), r, sel, np.zeros(1, np.uint64), np.int32(m), np.int32(n)]
    out = run("probe/omp-corr-argmax", h, n, policy=policy)
    c = np.abs(A.astype(np.float64) @ r)
    c[sel == 1] = -1
    assert tp._p166_omp_key(out[3][0], n) == (5, c[5]) and c[5] == c[9] == c.max() and (c[:5] < c[5]).all()
    assert out[3][0] == (int(np.float32(c[5]).view(np.uint32)) << 32) | (n - 1 - 5)


# ---- sjlt-csr-gather ----

@pytest.mark.parametrize("n, policy", [(2048, "lockstep"), (256, "random")])
def test_sjlt_apply(n, policy):
    host, out, *_ = launch("probe/sjlt-csr-gather", n, policy=policy)   # 2048: 512 rows, 4 blocks; 256: 64
    D = tp._p166_sj_dense(*host[:3], n)
    ref = D @ host[3].astype(np.float64) / 4
    # ~64 float32 additions a row: error < 64 2^-24 sum |x| (the 0.25 exact)
    bound = 64 * ULP * (np.abs(D) @ np.abs(host[3].astype(np.float64))) / 4
    assert (np.abs(out[4] - ref) <= bound).all() and np.abs(ref).max() > 1
    if policy == "random":
        return
    # integer samples: exact; a one-hot signal gives its column (S entries of +-1/4)
    rng = np.random.default_rng(4)
    for x in (rng.integers(-2000, 2000, n).astype(np.float32), np.eye(1, n, n - 1, dtype=np.float32)[0]):
        h = list(host)
        h[3] = x
        out = run("probe/sjlt-csr-gather", h, n, policy=policy)
        assert (out[4] == (D @ x) / 4).all()
    assert np.count_nonzero(out[4]) == tp.P166_SJ_S and set(np.abs(out[4][out[4] != 0])) == {0.25}


# ---- tv-dual-chambolle-pock ----

@pytest.mark.parametrize("n, policy", [(40, "lockstep"), (24, "random")])
def test_tv_dual_step(n, policy):
    host, out, *_ = launch("probe/tv-dual-chambolle-pock", n, policy=policy)   # 40: 2 x 5 blocks, partial
    ref = tp._p166_tv_ref(*host)
    # |q| < 2 through ~6 float32 roundings (the sqrtf and divisions correctly rounded): < 1e-6
    assert np.abs(out[1] - ref.ravel()).max() < 1e-6 and np.hypot(*out[1].reshape(-1, 2).T).max() < 1 + 3e-7
    assert (np.hypot(ref[..., 0], ref[..., 1]) > 1 - 1e-9).any()          # some projected
    # a 37 x 20 image, flat but for a step at x = 10 and the last row: p inside the disc unchanged
    # where the gradient is 0, exactly; one column's and the last-but-one row's p moved
    nx, ny = 37, 20
    rng = np.random.default_rng(5)
    u = np.full((ny, nx), 0.5, np.float32)
    u[:, 11:] = 0.75
    u[-1] = 1.0
    p = (rng.uniform(-0.5, 0.5, (ny, nx, 2))).astype(np.float32)
    h = [u.ravel(), p.ravel(), np.int32(nx), np.int32(ny), host[4]]
    out = run("probe/tv-dual-chambolle-pock", h, max(nx, ny), policy=policy)[1].reshape(ny, nx, 2)
    ref = tp._p166_tv_ref(*h)
    moved = np.zeros((ny, nx), bool)
    moved[:-1, 10] = moved[-2] = True
    assert (out[~moved] == p[~moved]).all() and (out[moved] != p[moved]).any(axis=1).all()
    assert np.abs(out - ref).max() < 1e-6


# ---- srht-hadamard-smem ----

@pytest.mark.parametrize("frames, policy", [(3, "lockstep"), (2, "random")])
def test_srht_block(frames, policy):
    n = frames * 1024
    host, out, syms, _ = launch("probe/srht-hadamard-smem", n, policy=policy)
    rows = syms["c_rows"]
    ref = tp._p166_wh_ref(host[0], host[1], rows)
    # each output the sum of 1024 signed samples over 10 stages of float32 adds: error < 10 2^-24
    # sum |x| (the 1/16 exact)
    bound = 10 * ULP * np.abs(host[0].reshape(frames, 1024)).sum(axis=1, keepdims=True) / 16
    assert (np.abs(out[2].reshape(frames, 256) - ref) <= bound).all()
    if policy == "random":
        return
    # integer samples: exact (sums < 2^24); frame 1 a one-hot: the kept rows of column 5, +-1/16
    h = list(host)
    h[0] = np.random.default_rng(6).integers(-100, 101, n).astype(np.float32)
    h[0][1024:2048] = 0
    h[0][1024 + 5] = 1
    out = run("probe/srht-hadamard-smem", h, n, policy=policy, symbols=syms)[2].reshape(frames, 256)
    ref = tp._p166_wh_ref(h[0], h[1], rows)
    sgn = 1 - 2 * ((int(h[1][32]) >> 5) & 1)
    assert (out == ref).all() and (out[1] == sgn * tp._p166_hadamard(1024)[rows, 5] / 16).all()


# ---- amp-state-evolution ----

@pytest.mark.parametrize("n, maxit, policy", [(16, 100, "lockstep"), (12, 40, "random")])
def test_amp_se(n, maxit, policy):
    # 12: 144 points, the second block partial
    h = tp._p166_se_args(n, np.random.default_rng(0), maxit=maxit)
    out = run("probe/amp-state-evolution", h, n, policy=policy)
    t2, it, margin = tp._p166_se_ref(h[0], n, n, *h[5:9], maxit)
    # double against double in another form (Phi(z0) - Phi(z1) from 1 - Q0 - P1): ~1e-16 an
    # iteration, contracted near the fixed points
    assert margin.min() > 1e-6 and (out[2] == it).all() and (np.abs(out[1] - t2) <= 1e-11 * t2).all()
    ok, stuck, big = t2 < h[6], (it < maxit) & (t2 >= h[6]) & (t2 <= h[8]), t2 > h[8]
    if policy == "random":
        return
    assert ok.any() and stuck.any() and big.any() and (it == maxit).any()    # all four endings
    # maxit 0: tau2 = eps / delta = rho; one iteration (tol_abs huge): the closed-form MSE / delta
    h0 = list(h)
    h0[9] = np.int32(0)
    out = run("probe/amp-state-evolution", h0, n)
    assert (out[2] == 0).all() and np.allclose(out[1], np.repeat(np.arange(1, n + 1) / n, n), rtol=1e-15, atol=0)
    h0[6], h0[9] = np.float64(1e300), np.int32(maxit)
    out = run("probe/amp-state-evolution", h0, n)
    t1 = tp._p166_se_ref(h[0], n, n, *h[5:9], 1)[0]
    assert (out[2] == 1).all() and np.allclose(out[1], t1, rtol=1e-13, atol=0)
