"""probe-unseen76's kernels (kernels_cuda/probes78.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/tc-oriented-merge", "probe/cc-labelprop-atomicmin", "probe/bfs-smem-frontier",
       "probe/degree-hist-smem", "probe/jaccard-bsearch", "probe/kcore-peel-atomicsub"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen76"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes78.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def dense(row_ptr, col):
    n = len(row_ptr) - 1
    A = np.zeros((n, n))
    A[np.repeat(np.arange(n), np.diff(row_ptr)), col] = 1
    return A


def check_graph(row_ptr, col, src, n, avg):
    assert row_ptr.dtype == col.dtype == src.dtype == np.int32 and len(row_ptr) == n + 1
    assert row_ptr[0] == 0 and row_ptr[-1] == len(col) == len(src) and (np.diff(row_ptr) >= 0).all()
    assert (src == np.repeat(np.arange(n), np.diff(row_ptr))).all()
    key = src.astype(np.int64) * n + col
    assert (np.diff(key) > 0).all()                                         # rows sorted, no duplicates
    assert (src != col).all() and col.min() >= 0 and col.max() < n
    assert (np.sort(col.astype(np.int64) * n + src) == key).all()           # symmetric
    deg = np.diff(row_ptr)
    assert 0.9 * avg < deg.mean() < avg                                     # duplicates cost a little
    assert np.median(deg) < 0.7 * deg.mean() and deg.max() > 20 * deg.mean()   # skewed: hubs, many small
    assert (deg == 0).mean() < 0.3 / avg                                   # few isolated vertices
    top = np.argsort(deg)[-20:]
    assert top.min() > 0 and np.ptp(top) > n // 4                          # hubs anywhere, not ids 0 ..
    return deg


def test_data():
    n = 1 << 14
    rng = np.random.default_rng(0)
    row_ptr, col, src = tp._u76_graph(n)
    deg = check_graph(row_ptr, col, src, n, tp.U76_AVG_DEG)
    # the power law: the fraction of degrees >= 2d falls ~2^(1 - gamma) a doubling of d
    ccdf = [(deg >= d).mean() for d in (16, 32, 64)]
    assert 0.25 < ccdf[1] / ccdf[0] < 0.6 and 0.25 < ccdf[2] / ccdf[1] < 0.6
    check_graph(*tp._u76_graph(n, tp.U76_JC_AVG), n, tp.U76_JC_AVG)

    orp, ocol, osrc, tot, m = tp._u76_tc_args(n, rng)
    assert m == len(ocol) == len(col) // 2 and tot.dtype == np.uint64 and tot[0] == 0
    rank = deg.astype(np.int64) * n + np.arange(n)
    assert (rank[osrc] < rank[ocol]).all() and (np.diff(osrc.astype(np.int64) * n + ocol) > 0).all()
    assert (orp == tp._u76_csr(osrc, ocol, n)).all() and np.diff(orp).max() < deg.max() / 4   # short out-lists
    assert set((osrc.astype(np.int64) * n + ocol).tolist()) | set((ocol.astype(np.int64) * n + osrc).tolist()) \
        == set((src.astype(np.int64) * n + col).tolist())

    r, c, lab, nxt, changed, nn = tp._u76_cc_args(n, rng)
    assert nn == n and changed[0] == 0 and (lab == nxt).all() and lab is not nxt
    mins = np.minimum.reduceat(np.r_[col, n], row_ptr[:-1])
    assert (lab == np.where(deg > 0, np.minimum(np.arange(n), mins), np.arange(n))).all()
    assert 0.3 < (lab[src] < lab[col]).mean() < 0.6                       # pushes left to do

    r, c, front, nf, vis, lvl, nxt, size, cur = tp._u76_bfs_args(n, rng)
    dist = tp._u76_bfs_dist(row_ptr, col)
    assert nf == len(front) and (np.sort(front) == np.flatnonzero(dist == cur)).all() and size[0] == 0
    assert (vis == (lvl >= 0)).all() and (lvl == np.where(dist <= cur, dist, -1)).all()
    walked = [deg[dist == k].sum() for k in range(dist.max() + 1)]
    assert walked[cur] == max(walked) and (np.diff(front) < 0).any()      # the heaviest level, queue order
    found = tp._u76_bfs_ref(row_ptr, col, front, vis)
    assert (found == np.flatnonzero(dist == cur + 1)).all()

    rp, hist, nn = tp._u76_dh_args(n, rng)
    d = np.diff(rp)
    assert nn == n and rp.dtype == np.int32 and (d >= 0).all() and hist.dtype == np.uint32 and not hist.any()
    assert 14 < d.mean() < 18 and np.median(d) < 11 and d.max() > 30 * d.mean()

    r, c, e, w, nnz = tp._u76_jc_args(n, rng)
    assert nnz == len(c) == len(w) and not w.any() and np.median(np.diff(r)) <= 5

    r, c, alive, kdeg, alive2, kdeg2, nrem, k, nn = tp._u76_kc_args(n, rng)
    assert k == tp.U76_KC_K and nn == n and alive.dtype == np.uint8 and (alive == alive2).all()
    live = alive.astype(bool)
    assert (kdeg == kdeg2).all() and 0.1 < live.mean() < 0.5                # the first round removed most
    assert (kdeg[live] == np.bincount(src[live[col]], minlength=n)[live]).all()   # live degrees
    assert 0.2 < (kdeg[live] < k).mean() < 0.7                             # this round removes a share


# ---- tc-oriented-merge ----

def test_tc_count():
    n = 1024
    host, out, *_ = launch("probe/tc-oriented-merge", n)
    per_edge = tp._u76_tc_ref(*host[:3])
    A = dense(*tp._u76_graph(n)[:2])
    tri = int(round(np.trace(A @ A @ A) / 6))
    assert per_edge.sum() == tri > 1000 and int(out[3][0]) == tri
    assert (out[0] == host[0]).all() and (out[1] == host[1]).all()
    assert host[4] % 256 != 0                                              # a partial last block


def test_tc_random_policy():
    n = 256
    host, out, *_ = launch("probe/tc-oriented-merge", n, policy="random")
    assert int(out[3][0]) == tp._u76_tc_ref(*host[:3]).sum() > 0


# ---- cc-labelprop-atomicmin ----

@pytest.mark.parametrize("policy, n", [("lockstep", 2000), ("random", 300)])
def test_cc_pass(policy, n):
    host, out, *_ = launch("probe/cc-labelprop-atomicmin", n, policy=policy)
    row_ptr, col, src = tp._u76_graph(n)
    ref = tp._u76_push(row_ptr, col, src, host[2])
    assert (out[3] == ref).all() and (ref < host[2]).sum() > n // 10 and out[4][0] == 1
    assert (out[2] == host[2]).all()


def test_cc_converged():
    # labels already each component's least id (the sparser graph: isolated vertices too):
    # no push, the flag stays 0
    n = 500
    row_ptr, col, src = tp._u76_graph(n, tp.U76_JC_AVG)
    lab = np.arange(n, dtype=np.int32)
    while True:
        nxt = tp._u76_push(row_ptr, col, src, lab)
        if (nxt == lab).all():
            break
        lab = nxt
    host = [row_ptr, col, lab, lab.copy(), np.zeros(1, np.int32), np.int32(n)]
    out = run("probe/cc-labelprop-atomicmin", host, n)
    assert (out[3] == lab).all() and out[4][0] == 0 and len(np.unique(lab)) > 1   # isolated vertices


# ---- bfs-smem-frontier ----

def bfs_check(host, out):
    row_ptr, col, front, nf, vis, lvl, _, _, cur = host
    found = tp._u76_bfs_ref(row_ptr, col, front, vis)
    size = int(out[7][0])
    assert size == len(found) > 0
    assert (np.sort(out[6][:size]) == found).all() and not out[6][size:].any()
    assert (out[4] == np.where(np.isin(np.arange(len(vis)), found), 1, vis)).all()
    assert (out[5] == np.where(np.isin(np.arange(len(vis)), found), cur + 1, lvl)).all()
    return found


@pytest.mark.parametrize("policy, n", [("lockstep", 2048), ("random", 400)])
def test_bfs_level(policy, n):
    host, out, *_ = launch("probe/bfs-smem-frontier", n, policy=policy)
    assert len(bfs_check(host, out)) > 0
    assert host[3] > 256 or policy == "random"


def test_bfs_queue_overflow():
    # the level of a 4096-vertex graph whose blocks find the most: a block finds more than
    # BQ_CAP vertices, the rest going straight to the global queue
    n = 4096
    row_ptr, col, src = tp._u76_graph(n)
    dist = tp._u76_bfs_dist(row_ptr, col)
    cur = int(np.argmax(np.bincount(dist[dist >= 0])[1:]))                  # dist cur + 1 the largest
    front = np.random.default_rng(3).permutation(np.flatnonzero(dist == cur)).astype(np.int32)
    vis = ((dist >= 0) & (dist <= cur)).astype(np.int32)
    lvl = np.where(vis > 0, dist, -1).astype(np.int32)
    per_block = [len(tp._u76_bfs_ref(row_ptr, col, front[i:i + 256], vis)) for i in range(0, len(front), 256)]
    assert max(per_block) > tp.U76_BQ_CAP
    host = [row_ptr, col, front, np.int32(len(front)), vis, lvl, np.zeros(n, np.int32), np.zeros(1, np.int32),
            np.int32(cur)]
    out = run("probe/bfs-smem-frontier", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n)
    bfs_check(host, out)


# ---- degree-hist-smem ----

def test_degree_hist():
    n = 5000                                                               # a partial last block
    host, out, *_ = launch("probe/degree-hist-smem", n)
    ref = tp._u76_dh_ref(host[0])
    assert (out[1] == ref).all() and ref.sum() == n and ref[0] > 0 and ref[-1] > 0


def test_degree_hist_edges():
    # degrees 0, 254, 255 (the last bin's first), 10^6 and runs of one degree (a whole warp
    # on one shared bin)
    rng = np.random.default_rng(4)
    deg = rng.integers(0, 40, 700)
    deg[:64] = 3
    deg[100:110] = [0, 254, 255, 256, 10 ** 6, 0, 1, 1, 255, 254]
    rp = np.r_[0, np.cumsum(deg)].astype(np.int32)
    out = run("probe/degree-hist-smem", [rp, np.zeros(tp.U76_DH_BINS, np.uint32), np.int32(700)], 700,
              policy="random")
    ref = tp._u76_dh_ref(rp)
    assert (out[1] == ref).all() and ref[-1] == 4 and ref[254] == 2


# ---- jaccard-bsearch ----

def test_jaccard():
    n = 400
    host, out, *_ = launch("probe/jaccard-bsearch", n)
    row_ptr, col, src = host[:3]
    ref = tp._u76_jc_ref(row_ptr, col, src)
    assert (out[3] == ref).all()
    A = dense(row_ptr, col)
    common = (A @ A)[src, col]
    deg = np.diff(row_ptr)
    assert (ref == (common / (deg[src] + deg[col] - common)).astype(np.float32)).all()
    assert (ref > 0).mean() > 0.3 and (ref == 0).any() and ref.max() <= 1
    rev = np.searchsorted(src.astype(np.int64) * n + col, col.astype(np.int64) * n + src)
    assert (out[3][rev] == out[3]).all()                                   # symmetric


# ---- kcore-peel-atomicsub ----

@pytest.mark.parametrize("policy, n", [("lockstep", 4096), ("random", 600)])
def test_kcore_round(policy, n):
    host, out, *_ = launch("probe/kcore-peel-atomicsub", n, policy=policy)
    row_ptr, col, src = tp._u76_graph(n)
    alive, deg, rem = tp._u76_peel(row_ptr, col, src, host[2], host[3], tp.U76_KC_K)
    assert rem.sum() > 10 and out[6][0] == rem.sum()
    assert (out[4] == alive).all() and (out[5] == deg).all()
    live = alive.astype(bool)
    assert (out[5][live] == np.bincount(src[live[col]], minlength=n)[live]).all()   # still the live degrees


def test_kcore_first_round():
    # from the whole graph (all alive, deg the degrees) at k = 16
    n = 1000
    row_ptr, col, src = tp._u76_graph(n)
    deg = np.diff(row_ptr).astype(np.int32)
    host = [row_ptr, col, np.ones(n, np.uint8), deg, np.ones(n, np.uint8), deg.copy(), np.zeros(1, np.int32),
            np.int32(16), np.int32(n)]
    out = run("probe/kcore-peel-atomicsub", host, n)
    alive, d, rem = tp._u76_peel(row_ptr, col, src, host[2], host[3], 16)
    assert (out[4] == alive).all() and (out[5] == d).all() and out[6][0] == rem.sum() > n // 2
