"""probe-unseen88's kernels (kernels_cuda/probes90.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/knapsack-dp-row", "probe/lcs-antidiag-step", "probe/dag-stage-relax", "probe/simplex-pivot",
       "probe/inventory-ss-montecarlo", "probe/hungarian-row-reduce"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen88"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes90.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # knapsack: a real DP row (non-decreasing in c, zero below the lightest item), w not
    # a multiple of 32
    n = 1 << 14
    dp, cur, w, v, cap = tp._p90_knapsack_args(n, rng)
    assert dp.dtype == np.int32 and cap == n - 1 and (np.diff(dp) >= 0).all() and dp[0] == 0
    assert dp[-1] > 5 * tp._P90_KS_VAL[0] and n / 256 <= w <= n / 16 and 100 <= v <= 5000
    # lcs: DNA strings, the diagonals those of the real tables (checked against the
    # textbook DP's table), pairs repeated every _P90_LCS_DISTINCT
    L = 40
    A, B, d2, d1, cur, d, LL, npairs = tp._p90_lcs_args(70, rng, L=L)
    assert d == LL == L and npairs == 70 and A.dtype == np.uint8 and set(np.unique(A)) <= set(b"ACGT")
    assert (A.reshape(70, L)[64:] == A.reshape(70, L)[:6]).all() and len(d1) == 70 * (L + 1)
    for p in (0, 5):
        a, b = A[p * L:(p + 1) * L], B[p * L:(p + 1) * L]
        for dd, diag in ((L - 2, d2), (L - 1, d1)):
            for i in (0, 3, 17, dd):
                assert diag[p * (L + 1) + i] == tp._p90_lcs_full(a[:i], b[:dd - i])
    A, B, *_ = tp._p90_lcs_args(1 << 10, rng, L=64)
    assert 0.2 < (A.reshape(-1, 64)[:, :, None] == B.reshape(-1, 64)[:, None, :]).mean() < 0.3
    # dag: degrees 4 .. 12, heads near their tails, 5% unreached
    n = 1 << 14
    row_ptr, col, ln, dist, best, nn = tp._p90_dag_args(n, rng)
    deg = np.diff(row_ptr)
    assert deg.min() == 4 and deg.max() == 12 and abs(deg.mean() - 8) < 0.1 and len(col) == row_ptr[-1]
    tail = np.repeat(np.arange(n), deg)
    off = (col - tail + n // 2) % n - n // 2
    assert np.abs(off).max() <= 512 and 1 <= ln.min() and ln.max() <= 1000
    assert abs((dist < 0).mean() - 0.05) < 0.01 and dist[dist >= 0].min() >= 20000 and (best == 2 ** 64 - 1).all()
    # simplex: [A | I | b] over [-c | 0 | 0], the pivot Dantzig's and the ratio test's
    n = 64
    T, prow, pcol, piv, r, rows, cols = tp._p90_simplex_args(n, rng)
    Tm = T.reshape(rows, cols)
    assert (rows, cols) == (n + 1, 2 * n + 1) and (Tm[:n, n:2 * n] == np.eye(n)).all() and (Tm[:n, -1] > 0).all()
    c = int(np.argmin(Tm[n, :-1]))
    assert (prow == Tm[r]).all() and (pcol == Tm[:, c]).all() and piv == Tm[r, c] > 0
    assert np.argmin(Tm[:n, -1] / Tm[:n, c]) == r
    # inventory: the CDF table's Poisson(10), the policies' grid
    cdf = tp._p90_pois_cdf().astype(np.float64) / 2 ** 32
    assert (np.diff(cdf) >= 0).all() and abs(cdf[10] - 0.58304) < 1e-4 and cdf[-1] == (2 ** 32 - 1) / 2 ** 32
    s, S, *rest = tp._p90_inv_args(1 << 19, rng)
    assert (s.reshape(-1, 128) == s[::128, None]).all() and s.min() == 10 and s.max() == 73
    assert (S - s).min() == 10 and (S - s).max() == 136 and len(set(zip(s[::128], S[::128]))) == 4096
    cost, lost, orders = tp._p90_inv_ref(s[::1000], S[::1000])
    assert 3 < orders.min() and orders.max() < 40 and 0.2 < (lost > 0).mean() < 0.7 and (lost == 0).any()
    # hungarian: row offsets, minimum-free rows
    n = 512
    C, rmin, nn = tp._p90_hr_args(n, rng)
    Cm = C.reshape(n, n)
    spread = Cm.max(axis=1) - Cm.min(axis=1)
    assert C.dtype == np.int32 and spread.max() < 10000 and np.ptp(Cm.min(axis=1)) > 50000


# ---- knapsack-dp-row ----

def test_knapsack_row():
    n = 3000                                                # 12 blocks, the last partial
    host, (dp, cur, w, v, cap), *_ = launch("probe/knapsack-dp-row", n)
    ref = tp._p90_knapsack_ref(host[0], w, v)
    assert (cur == ref).all() and (cur > dp).any() and (cur[:w] == dp[:w]).all()
    # an item heavier than the knapsack: the row copied
    host[2] = np.int32(n + 5)
    host[1] = np.full(n, -7, np.int32)
    out = run("probe/knapsack-dp-row", host, n)
    assert (out[1] == host[0]).all()


# ---- lcs-antidiag-step ----

def test_lcs_step():
    n = 3                                                   # 3 pairs of 1024: 13 blocks
    host, (A, B, d2, d1, cur, d, L, npairs), *_ = launch("probe/lcs-antidiag-step", n)
    ref = tp._p90_lcs_step_ref(*host[:5], int(d), int(L))
    assert (cur == ref).all()
    a, b = host[0][:L], host[1][:L]
    assert cur[500] == tp._p90_lcs_full(a[:500], b[:L - 500])


def test_lcs_full_wavefront():
    # the whole table of 5 pairs of 9-base strings, a launch a diagonal (0 .. 18), the
    # buffers rotated as the host does; off-table cells never read
    rng = np.random.default_rng(3)
    L, n = 9, 5
    alpha = np.frombuffer(b"ACGT", np.uint8)
    A, B = alpha[rng.integers(0, 4, n * L)], alpha[rng.integers(0, 4, n * L)]
    A[:L] = B[:L]                                           # one identical pair
    W = L + 1
    bufs = [np.full(n * W, -1, np.int32) for _ in range(3)]
    for d in range(2 * L + 1):
        host = [A, B, bufs[0], bufs[1], bufs[2], np.int32(d), np.int32(L), np.int32(n)]
        out = run("probe/lcs-antidiag-step", host, n)
        ref = tp._p90_lcs_step_ref(A, B, bufs[0], bufs[1], bufs[2], d, L)
        assert (out[4] == ref).all()
        bufs = [bufs[1], out[4], bufs[0]]
    got = bufs[1].reshape(n, W)[:, L]
    want = [tp._p90_lcs_full(A[p * L:(p + 1) * L], B[p * L:(p + 1) * L]) for p in range(n)]
    assert list(got) == want and got[0] == L


# ---- dag-stage-relax ----

# random: 2 blocks, the last partial (the heads within +-512 of the tail wrap round: contention)
@pytest.mark.parametrize("policy, n", [("lockstep", 3000), ("random", 300)])
def test_dag_stage_relax(policy, n):
    host, (row_ptr, col, ln, dist, best, nn), *_ = launch("probe/dag-stage-relax", n, policy=policy)
    ref = tp._p90_dag_ref(*host[:5])
    assert (best == ref).all()
    reached = best != 2 ** 64 - 1
    assert reached.mean() > 0.95
    u = (best[reached] & np.uint64(0xffffffff)).astype(np.int64)
    assert (host[3][u] >= 0).all()                          # predecessors reached
    # a second relaxation onto the result with the same stage changes nothing
    again = run("probe/dag-stage-relax", [*host[:4], best.copy(), host[5]], n, policy=policy)
    assert (again[4] == best).all()


# ---- simplex-pivot ----

@pytest.mark.parametrize("n", [40, 23])
def test_simplex_pivot(n):
    host, (T, prow, pcol, piv, r, rows, cols), *_ = launch("probe/simplex-pivot", n)
    ref = tp._p90_simplex_ref(*host)
    got = T.reshape(rows, cols).astype(np.float64)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-5 * np.abs(ref).max())
    c = int(np.argmin(host[0].reshape(rows, cols)[n, :-1]))
    assert got[r, c] == 1 and np.abs(np.delete(got[:, c], r)).max() < 1e-5   # the column a unit vector
    assert (got[:n, -1] >= -1e-3).all()                     # the ratio test keeps b feasible
    assert got[n, -1] > 0                                   # the objective improved


# ---- inventory-ss-montecarlo ----

def test_inventory():
    n = 160                                                 # one partial block, 2 policies
    host, (s, S, cost, lost, *_), syms, _ = launch("probe/inventory-ss-montecarlo", n)
    rc, rl, orders = tp._p90_inv_ref(host[0], host[1])
    assert (cost == rc).all() and (lost == rl).all()
    assert (lost > 0).any() and orders.min() > 3 and len(set(cost)) > 100
    # a policy that never lets stock out (s covers the lead time's demand), one that
    # orders every day it can
    rng = np.random.default_rng(1)
    h = tp._p90_inv_args(40, rng)
    h[0] = np.where(np.arange(40) < 20, 80, 0).astype(np.int32)
    h[1] = np.where(np.arange(40) < 20, 180, 1).astype(np.int32)
    out = run("probe/inventory-ss-montecarlo", h, 40, symbols=tp._p90_inv_syms(40, rng))
    rc, rl, orders = tp._p90_inv_ref(h[0], h[1])
    assert (out[2] == rc).all() and (out[3] == rl).all()
    assert (rl[:20] == 0).all() and (rl[20:] > 600).all()


# ---- hungarian-row-reduce ----

@pytest.mark.parametrize("n", [300, 100])
def test_hungarian_row_reduce(n):
    # 300: a partial last trip of the strided loop; 100: threads that load nothing
    host, (C, rmin, nn), *_ = launch("probe/hungarian-row-reduce", n)
    Cm = host[0].reshape(n, n)
    assert (rmin == Cm.min(axis=1)).all()
    assert (C.reshape(n, n) == Cm - Cm.min(axis=1, keepdims=True)).all()
    assert (C.reshape(n, n).min(axis=1) == 0).all()
