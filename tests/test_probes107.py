"""probe-unseen105's kernels (kernels_cuda/probes107.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/pf-ybus-mismatch-csr", "probe/n1-mc-ptdf-lodf-smem", "probe/branch-flow-injection-atomics",
       "probe/dcpf-redblack-sor", "probe/ed-lambda-bisect-block", "probe/line-limit-check-divergent"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen105"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes107.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 14
    f, t, g, b, bsh, vm, va = tp._p107_grid(n, rng)
    assert len(f) == tp._p107_nbr(n) and f.dtype == t.dtype == np.int32
    assert (t > f).all() and t.max() < n and (t - f).max() <= tp.P107_BR_REACH
    assert (np.diff(f) >= 0).all() and (np.lexsort((t, f)) == np.arange(len(f))).all()   # sorted by (from, to)
    assert (g > 0).all() and (b < 0).all() and (-b / g >= 3 - 1e-9).all() and (-b / g <= 10 + 1e-9).all()
    assert abs(vm.mean() - 1) < 0.002 and np.abs(va).max() < 0.1 and np.abs(np.diff(va)).max() < 0.015
    # Y-bus: symmetric, each row's sum the charging at the bus, rows of 2 .. ~10 entries
    row_ptr, col, Y, V, Ps, Qs, F, nn = tp._p107_mm_args(n, rng)
    Yc = Y.view(np.complex128)
    rows = np.repeat(np.arange(n), np.diff(row_ptr))
    assert nn == n and row_ptr[-1] == len(col) == len(Yc) and Y.dtype == V.dtype == np.float64
    assert (np.diff(col)[np.diff(rows) == 0] > 0).all() and (Yc[rows == col].real > 0).all()
    d = dict(zip(zip(rows.tolist(), col.tolist()), Yc))
    assert all(d[(c, r)] == v for (r, c), v in list(d.items())[:2000])
    assert 3.9 < np.diff(row_ptr).mean() < 4.1 and np.diff(row_ptr).min() == 2 and np.diff(row_ptr).max() <= 12
    assert np.abs(np.bincount(rows, Yc.real, n)).max() < 1e-9 and (np.bincount(rows, Yc.imag, n) > 0).all()
    Fr = tp._p107_mm_ref(row_ptr, col, Y, V, Ps, Qs)
    assert abs(Fr.std() - tp.P107_MM_NOISE) < 1e-4 and not F.any()
    # the DC screening model: every outage survivable, LODF bounded; about a third of samples insecure
    ptdf, lodf, p0, fl, tl = tp._p107_mc_net()
    tr = np.diag(ptdf[:, fl] - ptdf[:, tl])
    assert (1 - tr).min() > 0.05 and np.abs(lodf).max() < 1.01 and (np.diag(lodf) == -1).all()
    assert not ptdf[:, 0].any() and abs(p0.sum()) < 1e-12 and (p0[1:] > 0).sum() == 8
    m = tp._p107_mc_args(n, rng)
    nb, nl = tp.P107_MC_NB, tp.P107_MC_NL
    assert m[0].shape == (nl * nb,) and m[1].shape == (nl * nl,) and m[0].dtype == np.float32
    viol, worst, k, gap = tp._p107_mc_ref(*m[:4], n)
    assert 0.2 < (viol > 0).mean() < 0.4 and np.bincount(k, minlength=nl).min() > 0.5 * n / nl
    assert 0.85 < worst.mean() < 1.05
    # the mesh: susceptances in range inside, 0 past the edge; slack angle 0
    s = 64
    th, P, bh, bv, om, col0, nx, ny = tp._p107_rb_args(s * s, rng)
    assert nx == ny == s and col0 == 0 and th[0] == 0 and th.dtype == np.float32
    bh, bv = bh.reshape(s, s), bv.reshape(s, s)
    assert not bh[:, -1].any() and not bv[-1].any() and bh[:, :-1].min() >= 5 and bv[:-1].max() <= 20
    assert 0.01 < (P > 0).mean() < 0.03
    assert tp._p107_rb_grid(1 << 24) == (64, 512)
    # economic dispatch: demands inside the units' range, ~20 bisection steps
    e = tp._p107_ed_args(1000, rng)
    a, b2, c, pmin, pmax, dem = e[:6]
    assert pmin.sum() < dem.min() and dem.max() < pmax.sum() and e[6].shape == (1000 * 256,)
    assert ((b2 + 2 * c * pmax) <= e[10]).all() and ((b2 + 2 * c * pmin) >= e[9]).all()
    p, lam, cost, its, _ = tp._p107_ed_ref(*e[:6], *e[9:])
    assert (its == 20).all() and ((p > pmin) & (p < pmax)).mean() > 0.15 and (p == pmax).any()
    assert np.abs(p.astype(np.float64).sum(axis=1) - dem).max() < 5          # within a bracket's worth of MW
    # line checks: the stressed operating point's shares
    lc = tp._p107_lc_args(n, rng)
    load, warn, over, tt = tp._p107_lc_ref(*lc[:10])
    assert abs((lc[5] == 0).mean() - 0.02) < 0.005 and abs(np.bincount(lc[6]) / len(lc[6]) - [0.7, 0.2, 0.1]).max() < 0.02
    assert 0.08 < warn.mean() < 0.11 and 0.04 < over.mean() < 0.06 and over.sum() < lc[15]
    on = lc[5] == 1
    assert ((load[on] < 0.88 + 1e-6) | ((load[on] > 0.9 - 1e-6) & (load[on] < 0.98 + 1e-6)) | (load[on] > 1.02 - 1e-6)).all()
    assert over[:len(over) // 32 * 32].reshape(-1, 32).any(axis=1).mean() > 0.7   # most warps take the overload path
    assert np.nanmin(tt) > 1 and np.isfinite(tt[over]).all()


# ---- pf-ybus-mismatch-csr ----

def test_ybus_mismatch():
    n = 600                                                 # 3 blocks, the last partial
    host, out, *_ = launch("probe/pf-ybus-mismatch-csr", n)
    np.testing.assert_allclose(out[6], tp._p107_mm_ref(*host[:6]), rtol=0, atol=1e-11)
    assert (out[3] == host[3]).all()


# ---- n1-mc-ptdf-lodf-smem ----

@pytest.mark.parametrize("policy, n", [("lockstep", 200), ("random", 40)])
def test_mc_contingency(policy, n):
    # 200: 2 blocks of 128, the last partial (the random policy, slower, on one partial block)
    host, out, *_ = launch("probe/n1-mc-ptdf-lodf-smem", n, policy=policy)
    viol, worst, k, gap = tp._p107_mc_ref(*host[:4], n)
    sure = gap > 1e-4                                       # no line within rounding of its rating
    assert sure.mean() > 0.9
    assert (out[4][sure] == viol[sure]).all()
    np.testing.assert_allclose(out[5], worst, rtol=2e-5)
    assert out[6][0] == (out[4] > 0).sum() and 0.15 < (viol > 0).mean() < 0.5


# ---- branch-flow-injection-atomics ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_branch_injection(policy):
    n = 400                                                 # 599 branches: 3 blocks
    host, out, *_ = launch("probe/branch-flow-injection-atomics", n, policy=policy)
    P, Q = tp._p107_br_ref(*host[:7])
    np.testing.assert_allclose(out[7], P, rtol=0, atol=2e-4)
    np.testing.assert_allclose(out[8], Q, rtol=0, atol=2e-4)
    assert np.abs(P).max() > 0.5


# ---- dcpf-redblack-sor ----

def test_rbgs_dcpf():
    # both colours of a 70 x 70 mesh (a partial block in x and y), one after the other
    s = 70
    rng = np.random.default_rng(3)
    host = tp._p107_rb_args(s * s, rng)
    th0 = host[0].copy()
    out = run("probe/dcpf-redblack-sor", host, s * s)
    r0 = tp._p107_rb_ref(th0, *host[1:5], 0, s)
    np.testing.assert_allclose(out[0], r0, rtol=1e-5, atol=1e-6)
    i, j = np.indices((s, s))
    assert (out[0].reshape(s, s)[(i + j) % 2 == 1] == th0.reshape(s, s)[(i + j) % 2 == 1]).all()
    assert out[0][0] == 0
    host[0] = out[0].astype(np.float32)
    host[5] = np.int32(1)
    out1 = run("probe/dcpf-redblack-sor", host, s * s)
    np.testing.assert_allclose(out1[0], tp._p107_rb_ref(out[0], *host[1:5], 1, s), rtol=1e-5, atol=1e-6)


# ---- ed-lambda-bisect-block ----

@pytest.mark.parametrize("policy, n", [("lockstep", 6), ("random", 2)])
def test_ed_lambda(policy, n):
    host, out, *_ = launch("probe/ed-lambda-bisect-block", n, policy=policy)
    p, lam, cost, its, gap = tp._p107_ed_ref(*host[:6], *host[9:])
    assert (out[6] == p.ravel()).all() and (out[7] == lam).all() and (its == 20).all()
    np.testing.assert_allclose(out[8], cost, rtol=1e-5)


def test_ed_lambda_edges():
    # a demand at sum Pmin (lambda driven to the bracket's bottom, every unit at its
    # minimum) and a tol below float resolution (the bracket stalls: ED_MAX_IT steps)
    rng = np.random.default_rng(9)
    n = 4
    h = tp._p107_ed_args(n, rng)
    h[5][0] = h[3].sum()
    h[11] = np.float32(1e-7)
    out = run("probe/ed-lambda-bisect-block", h, n)
    p, lam, cost, its, _ = tp._p107_ed_ref(*h[:6], *h[9:])
    assert (out[6] == p.ravel()).all() and (out[7] == lam).all()
    assert (its[1:] == tp.P107_ED_MAX_IT).all() and its[0] < tp.P107_ED_MAX_IT
    assert (out[6][:256] == h[3]).all() and lam[0] < h[1].min()
    np.testing.assert_allclose(out[8], cost, rtol=1e-5)


# ---- line-limit-check-divergent ----

def lc_check(host, out, cap):
    load, warn, over, tt = tp._p107_lc_ref(*host[:10])
    # the float current is a difference of terms ~50x its size: ~1e-4 relative
    np.testing.assert_allclose(out[10], load, rtol=5e-4)
    assert out[11][0] == warn.sum() and out[12][0] == over.sum()
    k = min(cap, int(over.sum()))
    lines = out[13][:k]
    assert len(set(lines.tolist())) == k and over[lines].all()
    # trip times: the formulas at the kernel's own loadings
    np.testing.assert_allclose(out[14][:k], tp._p107_lc_trip(out[10][lines], host[6][lines]), rtol=2e-3)
    np.testing.assert_allclose(out[14][:k], tt[lines], rtol=0.05)
    assert not out[13][k:].any() and not out[14][k:].any()
    return over


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_line_limit_check(policy):
    n = 1200                                                # 1799 lines: 8 blocks
    host, out, *_ = launch("probe/line-limit-check-divergent", n, policy=policy)
    over = lc_check(host, out, host[15])
    assert set(out[13][:over.sum()].tolist()) == set(np.flatnonzero(over).tolist())
    assert len(set(host[6][over].tolist())) == 3                           # every kind's trip curve


def test_line_limit_list_full():
    # a list of 5 entries: every overload counted, 5 of them listed
    rng = np.random.default_rng(4)
    n = 600
    host = tp._p107_lc_args(n, rng)
    host[13], host[14], host[15] = np.zeros(5, np.int32), np.zeros(5, np.float32), np.int32(5)
    out = run("probe/line-limit-check-divergent", host, n, policy="random")
    assert lc_check(host, out, 5).sum() > 5
