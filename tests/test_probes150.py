"""probe-unseen148's kernels (kernels_cuda/probes150.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/maxsat-cnf-const", "probe/walksat-breakmake-csr", "probe/unit-clause-smem-reduce",
       "probe/nqueens-prefix-stack", "probe/sudoku-cand-81thr", "probe/reach-bitpar-atomicor"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen148"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes150.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    L = tp._p150_cnf(100, 5000, rng)
    v = np.abs(L) - 1
    assert L.dtype == np.int32 and v.min() == 0 and v.max() == 99 and (L != 0).all()
    assert (v[:, 0] != v[:, 1]).all() and (v[:, 0] != v[:, 2]).all() and (v[:, 1] != v[:, 2]).all()
    assert abs((L > 0).mean() - 0.5) < 0.02
    a, cnt, nn = tp._p150_ms_args(n, rng)
    lits = tp._p150_ms_syms(n, rng)["c_ms_lits"]
    assert a.dtype == np.uint64 and nn == n and len(lits) == 3 * tp.P150_MS_CLAUSES
    assert np.abs(lits).max() <= 64 and abs(np.unpackbits(a.view(np.uint8)).mean() - 0.5) < 0.01
    s = tp._p150_ms_ref(a, lits)
    assert abs(s.mean() - 7 / 8 * tp.P150_MS_CLAUSES) < 2 and s.max() < tp.P150_MS_CLAUSES
    lits, nt, asg, off, occ, *_ = tp._p150_ws_args(n, rng)
    m = len(lits) // 3
    assert m == round(tp.P150_WS_RATIO * n) and off[0] == 0 and off[-1] == 3 * m and set(np.unique(asg)) == {0, 1}
    Lw = lits.reshape(-1, 3)
    for j in rng.integers(0, n, 50):                       # occ lists each variable's clauses, in order
        cs = occ[off[j]:off[j + 1]]
        assert (np.diff(cs) > 0).all() and ((np.abs(Lw[cs]) - 1) == j).any(axis=1).all()
        assert len(cs) == ((np.abs(Lw) - 1) == j).sum()
    assert (nt == ((Lw > 0) == (asg[np.abs(Lw) - 1] == 1)).sum(axis=1)).all()
    assert abs((nt == 0).mean() - 1 / 8) < 0.01
    brk, mk = tp._p150_ws_ref(lits, nt, asg)
    assert brk.sum() == (nt == 1).sum() and mk.sum() == 3 * (nt == 0).sum()
    lits, A, V, *_, mm, nn = tp._p150_uc_args(n, rng)
    assert mm == tp.P150_UC_CLAUSES and len(A) == len(V) == 8 * n and A.dtype == np.uint32
    frac = np.unpackbits(A.view(np.uint8)).reshape(n, 256).mean(axis=1)
    assert 0.2 < frac.min() and frac.max() < 0.8 and abs(frac.mean() - 0.5) < 0.01
    u, c, f = tp._p150_uc_ref(lits, A[:8 * 300], V[:8 * 300])
    assert 40 < u.mean() < 160 and c.min() >= 0 and (f < mm).all()
    cols, ld, rd, cnt, tot, N, rows, nn = tp._p150_nq_args(6404, rng)
    assert len(cols) == 6404 and N == 13 and rows == 9 and len(tp._p150_nq_prefixes(13, 4)[0]) == 6404
    assert all(bin(int(x)).count("1") == 4 for x in cols) and ld.max() < 1 << 13
    c8 = tp._p150_nq_ref(*tp._p150_nq_prefixes(8, 2), 8, 6)[0]
    c10 = tp._p150_nq_ref(*tp._p150_nq_prefixes(10, 3), 10, 7)[0]
    assert c8.sum() == 92 and c10.sum() == 724
    g = tp._p150_su_solved(500, rng).reshape(-1, 9, 9)
    box = g.reshape(-1, 3, 3, 3, 3).transpose(0, 1, 3, 2, 4).reshape(-1, 9, 9)
    for x in (g, g.transpose(0, 2, 1), box):
        assert (np.sort(x, axis=2) == np.arange(1, 10)).all()
    assert len({x.tobytes() for x in g}) == 500
    grid, cand, sg, nn = tp._p150_su_args(n, rng)
    empty = (grid.reshape(n, 81) == 0).mean(axis=1)
    assert grid.dtype == np.uint8 and 0.2 < empty.min() and empty.max() < 0.9 and abs(empty.mean() - 0.55) < 0.01
    src, dst, fr, vis, nxt, m = tp._p150_re_args(n, rng)
    assert m == 8 * n and (np.diff(src) >= 0).all() and (fr & ~vis == 0).all()
    assert abs((fr != 0).mean() - tp.P150_RE_FRONT) < 0.02 and abs(np.unpackbits(vis.view(np.uint8)).mean() - .25) < .01


# ---- maxsat-cnf-const ----

def test_maxsat_count():
    n = 300                                                 # 2 blocks, the last partial
    host, (a, cnt, nn), syms, _ = launch("probe/maxsat-cnf-const", n)
    assert (cnt == tp._p150_ms_ref(host[0], syms["c_ms_lits"])).all() and (a == host[0]).all()
    # all false and all true; a formula every assignment of all-false satisfies (negative literals)
    h = [np.array([0, 2 ** 64 - 1], np.uint64), np.zeros(2, np.int32), np.int32(2)]
    lits = -np.abs(syms["c_ms_lits"])
    out = run("probe/maxsat-cnf-const", h, 2, symbols={"c_ms_lits": lits})
    assert list(out[1]) == [tp.P150_MS_CLAUSES, 0]


# ---- walksat-breakmake-csr ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_walksat_break(policy):
    n = 300
    host, out, *_ = launch("probe/walksat-breakmake-csr", n, policy=policy)
    brk, mk = tp._p150_ws_ref(*host[:3])
    assert (out[5] == brk).all() and (out[6] == mk).all() and brk.max() > 2 and mk.max() > 2


# ---- unit-clause-smem-reduce ----

def test_unit_count():
    n = 4                                                   # 2 random partial assignments, 2 by hand
    rng = np.random.default_rng(3)
    host = tp._p150_uc_args(n, rng)
    host[1][8 * 2:8 * 3] = 0                                # nothing assigned: no unit, no conflict
    host[1][8 * 3:8 * 4] = 0xffffffff                       # everything assigned: no unit
    out = run("probe/unit-clause-smem-reduce", host, n, policy="random")
    u, c, f = tp._p150_uc_ref(*host[:3])
    assert (out[3] == u).all() and (out[4] == c).all() and (out[5] == f).all()
    assert u[2] == c[2] == 0 and f[2] == tp.P150_UC_CLAUSES and u[3] == 0 and c[3] > 50 and u[:2].min() > 20


# ---- nqueens-prefix-stack ----

# random (slow: the lanes' backtracking diverges) on the 8-queens' 42 prefixes, 2 warps whose
# atomicAdds on the total interleave; the 9-queens' 56 in lockstep
@pytest.mark.parametrize("N, depth, policy", [(8, 2, "random"), (9, 2, "lockstep")])
def test_nqueens_count(N, depth, policy):
    rng = np.random.default_rng(1)
    n = len(tp._p150_nq_prefixes(N, depth)[0])
    host = tp._p150_nq_args(n, rng, N, depth)
    out = run("probe/nqueens-prefix-stack", host, n, policy=policy)
    cnt, trips = tp._p150_nq_ref(*host[:3], N, N - depth)
    assert (out[3] == cnt).all() and int(out[4][0]) == {8: 92, 9: 352}[N] and (cnt == 0).any()


# ---- sudoku-cand-81thr ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_sudoku_candidates(policy):
    n = 5
    host, (g, cand, sg, nn), *_ = launch("probe/sudoku-cand-81thr", n, policy=policy)
    c, s = tp._p150_su_ref(host[0])
    assert (cand == c.ravel()).all() and (sg == s).all() and s.sum() > 0
    # every empty cell's solution digit is among its candidates
    rng = np.random.default_rng(0)
    sol = tp._p150_su_solved(n, rng).ravel()                # launch's rng drew the same grids first
    e = host[0] == 0
    assert (host[0][~e] == sol[~e]).all() and ((cand[e] >> (sol[e].astype(np.uint16) - 1)) & 1).all()


# ---- reach-bitpar-atomicor ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_reach_step(policy):
    n = 64                                                  # 512 edges, 2 blocks
    host, out, *_ = launch("probe/reach-bitpar-atomicor", n, policy=policy)
    ref = tp._p150_re_ref(*host[:4])
    assert (out[4] == ref).all() and (ref != 0).sum() > 10 and (ref & host[3] == 0).all()
