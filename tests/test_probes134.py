"""probe-unseen132's kernels (kernels_cuda/probes134.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/bfs-bottomup-bitmap", "probe/pagerank-push-scatter-atomic", "probe/pagerank-teleport-l1-smem",
       "probe/lpa-mode-localarray", "probe/ppr-walks-hashed", "probe/fw-blocked-phase3-smem"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen132"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes134.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 14
    row_ptr, col = tp._p134_graph(n)
    deg = np.diff(row_ptr)
    assert row_ptr.dtype == col.dtype == np.int32 and row_ptr[0] == 0 and row_ptr[-1] == len(col)
    assert col.min() >= 0 and col.max() < n and deg.max() <= tp.P134_DMAX
    assert 6 < deg.mean() < 10 and np.median(deg) == 4 and deg.max() > 100          # heavy-tailed
    assert abs((deg == 0).mean() - tp.P134_P_DANGLE) < 0.005 and (deg[deg > 0] >= tp.P134_DMIN).all()
    # bfs: the first bottom-up level of a real BFS (levels 0..depth, the frontier exactly level depth)
    r, c, fr, nf, level, parent, found, depth, nn = tp._p134_bfs_args(n, rng)
    f = tp._p134_unbits(fr, n)
    assert fr.dtype == np.uint32 and len(fr) == n // 32 and not nf.any() and nn == n and found[0] == 0
    assert (f == (level == depth)).all() and depth >= 2 and level.max() == depth
    vis = np.flatnonzero((level > 0))
    assert (level[parent[vis]] == level[vis] - 1).all()                      # each parent one level up
    rows = tp._p134_rows(r)
    assert set(zip(vis.tolist(), parent[vis].tolist())) <= set(zip(rows.tolist(), c.tolist()))
    assert deg[f].sum() * tp.P134_BFS_ALPHA > deg[level < 0].sum()            # Beamer's test passes
    # pagerank: ranks a distribution, acc what a push of the dangling-free mass gives
    pr = tp._p134_push_args(n, rng)
    assert pr[2].dtype == np.float32 and abs(pr[2].sum() - 1) < 1e-5 and (pr[2] > 0).all()
    acc, dang = tp._p134_push_ref(pr[0], pr[1], pr[2])
    assert abs(acc.sum() + tp.P134_DAMPING * dang - tp.P134_DAMPING) < 1e-5 and 0.005 < dang < 0.04
    rank, acc, dg, l1, *_ = tp._p134_tp_args(n, rng)
    assert abs(rank.sum() - 1) < 1e-5 and abs(acc.sum() - tp.P134_DAMPING * (1 - tp.P134_TP_DANGLE)) < 1e-5
    new, _ = tp._p134_tp_ref(rank, acc, dg[0])
    assert abs(new.astype(np.float64).sum() - 1) < 1e-4                          # the update keeps the mass
    # lpa: degrees in range, ~70% of neighbours inside the community, half the labels converged
    r, c, lab, new_l, ch, nn = tp._p134_lpa_args(n, rng)
    comm = tp._p134_lpa_build(n)[3]
    d = np.diff(r)
    assert d.min() >= tp.P134_LPA_DEG[0] and d.max() <= tp.P134_LPA_DEG[1] == 32
    assert abs((comm[tp._p134_rows(r)] == comm[c]).mean() - tp.P134_LPA_PIN) < 0.02
    rep = np.array([np.flatnonzero(comm == k).min() for k in comm[:50]])
    assert ((lab[:50] == rep) | (lab[:50] == np.arange(50))).all()
    assert abs((lab != np.arange(n)).mean() - tp.P134_LPA_CONV * (1 - 1 / tp.P134_LPA_COMM)) < 0.03
    # walks: sources distinct, none a dead end
    w = tp._p134_walk_args(4096, rng)
    assert len(w[2]) == 16 and len(set(w[2].tolist())) == 16 and (np.diff(w[0])[w[2]] > 0).all()
    # fw: ints, zero diagonal, INF for a third of the pairs
    dist, kb, nn = tp._p134_fw_args(128, rng)
    D = dist.reshape(128, 128)
    assert dist.dtype == np.int32 and (np.diag(D) == 0).all() and kb == 3
    assert abs((D == tp.P134_FW_INF).mean() - tp.P134_FW_PINF) < 0.02 and D[D < tp.P134_FW_INF].max() <= 1000


# ---- bfs-bottomup-bitmap ----

@pytest.mark.parametrize("policy, n", [("lockstep", 1000), ("random", 600)])
def test_bfs_bottom_up(policy, n):
    # 4 (3) blocks, the last partial
    host, (r, c, fr, nf, level, parent, found, *_), *_ = launch("probe/bfs-bottomup-bitmap", n, policy=policy)
    nxt, lv, pa, cnt, trips = tp._p134_bfs_ref(*host[:3], host[4], host[5], host[7])
    assert cnt > 50 and (trips[host[4] < 0] == np.diff(host[0])[host[4] < 0]).any()   # some scan all
    assert (nf == nxt).all() and (level == lv).all() and (parent == pa).all() and found[0] == cnt
    assert (fr == host[2]).all()


# ---- pagerank-push-scatter-atomic ----

@pytest.mark.parametrize("policy, n", [("lockstep", 1000), ("random", 300)])
def test_pagerank_push(policy, n):
    host, (r, c, rank, acc, dang, *_), *_ = launch("probe/pagerank-push-scatter-atomic", n, policy=policy)
    a, d = tp._p134_push_ref(*host[:3])
    np.testing.assert_allclose(acc, a, rtol=2e-5, atol=1e-9)
    np.testing.assert_allclose(dang[0], d, rtol=2e-5)
    assert (rank == host[2]).all() and (np.diff(host[0]) == 0).any()       # some dangling vertices


# ---- pagerank-teleport-l1-smem ----

def test_pagerank_teleport():
    n = 1000
    host, (rank, acc, dang, l1, *_), *_ = launch("probe/pagerank-teleport-l1-smem", n)
    r, err = tp._p134_tp_ref(*host[:2], host[2][0])
    np.testing.assert_allclose(rank, r, rtol=1e-6, atol=0)
    assert (acc == 0).all() and dang[0] == host[2][0]
    np.testing.assert_allclose(l1[0], err, rtol=1e-5)


# ---- lpa-mode-localarray ----

@pytest.mark.parametrize("policy, n", [("lockstep", 600), ("random", 64)])
def test_lpa_mode(policy, n):
    host, (r, c, lab, new, ch, *_), *_ = launch("probe/lpa-mode-localarray", n, policy=policy)
    ref, changed = tp._p134_lpa_ref(*host[:3])
    assert (new == ref).all() and ch[0] == changed and 0.2 < changed / n < 0.9
    assert (lab == host[2]).all()


def test_lpa_ties():
    # every neighbour label distinct (a tie of ones: the smallest wins), all equal, and a 2-2-1 tie
    row_ptr = np.array([0, 4, 8, 13, 17], np.int32)
    col = np.array([1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 0, 1, 2, 3], np.int32)
    label = np.array([30, 20, 20, 10], np.int32)
    host = [row_ptr, col, label, np.zeros(4, np.int32), np.zeros(1, np.int32), np.int32(4)]
    out = run("probe/lpa-mode-localarray", host, 4)
    # v0: 20, 20, 10 -> 20; v1: 30 x4 -> 30; v2: 30, 30, 20, 20, 10 -> 20; v3: 30, 20, 20, 10 -> 20
    assert out[3].tolist() == [20, 30, 20, 20] and out[4][0] == 3
    assert out[3].tolist() == tp._p134_lpa_ref(row_ptr, col, label)[0].tolist()


# ---- ppr-walks-hashed ----

@pytest.mark.parametrize("policy, n", [("lockstep", 512), ("random", 96)])
def test_ppr_walks(policy, n):
    # 2 sources of 256 walks (1 source, a partial block, under the random policy)
    host, (r, c, src, end, visits, *_), *_ = launch("probe/ppr-walks-hashed", n, policy=policy)
    e, vis, restarts = tp._p134_walk_ref(*host[:3], n)
    assert (end == e).all() and (visits == vis).all() and visits.sum() == n
    assert 5 < restarts.mean() < 15 and (end == src[np.arange(n) // 256]).mean() < 0.4


# ---- fw-blocked-phase3-smem ----

@pytest.mark.parametrize("n, kb", [(96, 1), (128, 0)])
def test_fw_phase3(n, kb):
    rng = np.random.default_rng(n)
    host = tp._p134_fw_args(n, rng)
    host[1] = np.int32(kb)
    out = run("probe/fw-blocked-phase3-smem", host, n)
    ref = tp._p134_fw_ref(host[0], kb, n)
    assert (out[0] == ref).all() and (ref != host[0]).mean() > 0.1
