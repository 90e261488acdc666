"""probe-unseen158's kernels (kernels_cuda/probes160.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/ic-cascade-trivalency-cas", "probe/hk-opinion-warp-shfl", "probe/assortativity-u64-smem",
       "probe/schelling-tile-ballot", "probe/gravity-furness-tiles", "probe/brandes-level-double"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen158"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes160.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _csr(n, edges):
    """The CSR (off, adj int32) of the undirected edges (pairs) on n nodes."""
    lo, hi = np.array(sorted((min(e), max(e)) for e in edges), np.int32).T
    return tp._p160_csr(lo, hi, n)


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 14
    lo, hi, cid = tp._p160_graph(n, rng)
    key = lo.astype(np.int64) * n + hi
    assert lo.dtype == hi.dtype == np.int32 and (lo < hi).all() and (np.diff(key) > 0).all()   # simple, sorted
    off, adj = tp._p160_csr(lo, hi, n)
    deg = np.diff(off)
    row = np.repeat(np.arange(n), deg)
    assert off[-1] == 2 * len(lo) and ((np.diff(adj) > 0) | (np.diff(row) > 0)).all()       # rows ascending
    assert (np.sort(row * n + adj) == np.sort(adj.astype(np.int64) * n + row)).all()       # symmetric
    assert abs(deg.mean() - 17) < 1 and np.median(deg) <= 13 and deg.max() > 20 * np.median(deg)   # heavy tail
    assert 0.003 < (deg > 10 * deg.mean()).mean() < 0.01 and (deg == 0).mean() < 0.001
    assert 0.6 < (cid[lo] == cid[hi]).mean() < 0.7 and (np.diff(cid) >= 0).all() and 150 < cid[-1] < 350
    # clustering: the triangles at 200 nodes by their neighbour sets (social networks: ~0.1 .. 0.3)
    nb = [set(adj[off[i]:off[i + 1]]) for i in range(n)]
    cc = [sum(len(nb[a] & nb[i]) for a in nb[i]) / (len(nb[i]) * (len(nb[i]) - 1))
          for i in range(0, n, n // 200) if len(nb[i]) > 1]
    assert 0.1 < np.mean(cc) < 0.25
    off, adj, prob, front, nf, act, nxt, nn, rnd, seed = tp._p160_ic_args(n, rng)
    assert nf == len(front) > 100 and (act[front] == rnd - 1).all() and (np.bincount(act)[1:] > 0).all()
    assert (act == 1).sum() == max(4, n // tp.P160_IC_SEEDS) and set(np.unique(act)) == set(range(rnd))
    assert np.diff(off)[act == 1].min() >= np.sort(np.diff(off))[-4]        # the top-degree users
    assert set(np.unique(prob)) == set(np.float32(tp.P160_IC_PROBS)) and abs((prob == prob[0]).mean() - 1 / 3) < 0.01
    later, new = tp._p160_ic_ref(off, adj, prob, front, act, rnd)
    assert 0 < len(new) <= len(front)                                        # the cascade's biggest round
    assert seed == tp.P160_IC_SEED and len(nxt) == n and nn[0] == 0
    off, adj, x, x2, eps, nh = tp._p160_hk_args(n, rng)
    row = np.repeat(np.arange(n), np.diff(off))
    assert x.dtype == np.float32 and 0 <= x.min() and x.max() <= 1 and eps == np.float32(0.2)
    assert np.corrcoef(x[row], x[adj])[0, 1] > 0.5                           # homophily
    assert 0.6 < (np.abs(x[row] - x[adj]) <= eps).mean() < 0.9
    src, dst, deg, sums, m = tp._p160_as_args(n, rng)
    assert m == len(src) and (src < dst).all() and (np.diff(src) >= 0).all()
    assert (deg == np.bincount(np.r_[src, dst], minlength=n)).all() and sums.dtype == np.uint64
    g, unhappy, count, nx, ny = tp._p160_sc_args(512, rng)
    G = g.reshape(512, 512)
    assert g.dtype == np.uint8 and nx == ny == 512 and abs((g == 0).mean() - tp.P160_SC_EMPTY) < 0.01
    assert abs((g == 1).sum() / (g > 0).sum() - tp.P160_SC_SHARE) < 0.03
    sad, alike, occ = tp._p160_sc_ref(g, 512, 512)
    assert (alike[G > 0] / occ[G > 0]).mean() > 0.75 and 0.05 < sad.sum() / (g > 0).sum() < 0.25   # segregated
    assert ((G[:, 1:] == G[:, :-1]) & (G[:, 1:] > 0)).mean() > 0.6
    z, B, A, beta, nz = tp._p160_gr_args(4096, rng)
    assert z.dtype == tp.P160_GR_ZONE and nz == 4096 and B.dtype == np.float32 and 0.08 < beta < 0.09
    assert 0 <= z["x"].min() and z["y"].max() <= tp.P160_GR_SIDE and abs(np.median(z["O"]) - 600) < 20
    assert np.percentile(z["D"], 99) > 8 * np.median(z["D"])                # jobs concentrated
    near = np.sort(np.hypot(z["x"][:512, None] - z["x"], z["y"][:512, None] - z["y"]), axis=1)[:, 1]
    assert np.median(near) < 2 < np.percentile(near, 90)                     # towns dense, the country not
    off, adj, dist, sigma, delta, bc, d, nb_ = tp._p160_bb_args(n, rng)
    row = np.repeat(np.arange(n), np.diff(off))
    reach = dist[row] >= 0
    assert (np.abs(dist[row] - dist[adj])[reach] <= 1).all() and ((dist[row] < 0) == (dist[adj] < 0)).all()
    lv = np.bincount(dist[dist >= 0])
    assert lv[0] == 1 and d == np.argmax(lv) and 1 <= d < len(lv) - 1 and (dist >= 0).mean() > 0.99
    par = dist[adj] == dist[row] - 1                                         # edges from a parent
    s = np.bincount(row[par], sigma[adj[par]], n)
    assert (sigma[dist == 0] == 1).all() and np.allclose(s[dist > 0], sigma[dist > 0], rtol=1e-12)
    kid = np.bincount(row[dist[adj] == dist[row] + 1], minlength=n) > 0
    assert ((delta > 0) == (kid & (dist > d))).all() and (kid & (dist > d)).any()   # filled below d
    assert (bc >= 0).all() and (bc[np.diff(off) > 0] > 0).mean() > 0.99


# ---- ic-cascade-trivalency-cas ----

@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (1500, "random")])
def test_ic_step(n, policy):
    host, out, *_ = launch("probe/ic-cascade-trivalency-cas", n, policy=policy)
    off, adj, prob, front, nf, act, nxt, nn, rnd, seed = host
    later, new = tp._p160_ic_ref(off, adj, prob, front, act, rnd, seed)
    k = out[7][0]
    assert k == len(new) > 10 and (np.sort(out[6][:k]) == new).all() and (out[6][k:] == 0).all()
    assert (out[5] == later).all()
    # a hub's many coins won by several frontier nodes: it joins once; an active node never again
    n = 64
    edges = [(0, j) for j in range(1, 41)] + [(1, 50), (2, 50), (3, 41)]
    off, adj = _csr(n, edges)
    prob = np.ones(len(adj), np.float32)
    prob[adj == 41] = 0                                    # never
    front = np.arange(1, 41, dtype=np.int32)
    act = np.zeros(n, np.int32)
    act[front] = 3
    act[50] = 2
    h = [off, adj, prob, front, np.int32(40), act, np.zeros(n, np.int32), np.zeros(1, np.int32), np.int32(4), seed]
    out = run("probe/ic-cascade-trivalency-cas", h, n, policy=policy)
    assert out[7][0] == 1 and out[6][0] == 0 and out[5][0] == 4 and (np.delete(out[5], 0) == np.delete(act, 0)).all()


# ---- hk-opinion-warp-shfl ----

@pytest.mark.parametrize("n, policy", [(500, "lockstep"), (96, "random")])
def test_hk_opinion_step(n, policy):
    host, out, *_ = launch("probe/hk-opinion-warp-shfl", n, policy=policy)
    ref, c = tp._p160_hk_ref(*host[:3], eps=host[4])
    # a float32 sum of c opinions in [0, 1] (any order) and a division: within (c + 2) 2^-24
    assert (np.abs(out[3] - ref) <= (c + 2) * 2.0 ** -24).all() and np.diff(host[0]).max() > 32   # 2 trips
    assert 0 < (c < np.diff(host[0])).mean() < 1                             # some neighbours too far
    # a hub of 70 neighbours (3 trips a lane) at exactly eps (counted), beyond it and in it; a lone agent
    n = 80
    off, adj = _csr(n, [(0, j) for j in range(1, 71)])
    x = np.full(n, 0.25, np.float32)
    x[1:25] = 0.5                                          # |0.5 - 0.25| == eps: in
    x[25:50] = 0.75                                        # out
    x[75] = 0.9
    out = run("probe/hk-opinion-warp-shfl", [off, adj, x, np.zeros(n, np.float32), np.float32(0.25), np.int32(n)], n)
    assert out[3][0] == np.float32(17.5) / np.float32(46) and out[3][75] == np.float32(0.9)
    assert (out[3][1:25] == 0.375).all() and (out[3][25:50] == 0.75).all() and (out[3][50:71] == 0.25).all()


# ---- assortativity-u64-smem ----

@pytest.mark.parametrize("n, grid_n, policy", [(2000, 2000, "lockstep"), (400, 60, "random")])
def test_assort_sums(n, grid_n, policy):
    # grid_n 60: a grid of 3 blocks striding ~4 times over the edges
    rng = np.random.default_rng(3)
    h = tp._p160_as_args(n, rng)
    out = run("probe/assortativity-u64-smem", h, grid_n, policy=policy)
    sums, r = tp._p160_as_ref(*h[:3])
    assert [int(s) for s in out[3]] == sums and abs(tp._p160_as_r(out[3], h[4]) - r) < 1e-12
    # a star is perfectly disassortative; hubs of a million: products beyond 32 bits
    K = 300
    deg = np.zeros(K + 3, np.int32)
    deg[0], deg[1:K + 1] = K, 1
    src, dst = np.zeros(K, np.int32), np.arange(1, K + 1, dtype=np.int32)
    out = run("probe/assortativity-u64-smem", [src, dst, deg, np.zeros(3, np.uint64), np.int32(K)], K)
    assert abs(tp._p160_as_r(out[3], K) + 1) < 1e-12
    deg[K + 1], deg[K + 2] = 3_000_000, 2_500_000
    src, dst = np.r_[src, np.int32(K + 1)], np.r_[dst, np.int32(K + 2)]
    out = run("probe/assortativity-u64-smem", [src, dst, deg, np.zeros(3, np.uint64), np.int32(K + 1)], K + 1)
    assert [int(s) for s in out[3]] == tp._p160_as_ref(src, dst, deg)[0] and int(out[3][0]) > 1 << 32


# ---- schelling-tile-ballot ----

@pytest.mark.parametrize("n, policy", [(40, "lockstep"), (12, "random")])
def test_schelling_unhappy(n, policy):
    # 40: 2 x 5 blocks, the last column of blocks 8 wide; 12: 1 x 2 blocks, partial in both
    host, out, syms, _ = launch("probe/schelling-tile-ballot", n, policy=policy)
    sad, *_ = tp._p160_sc_ref(host[0], n, n)
    assert (out[1] == sad.ravel()).all() and out[2][0] == sad.sum() > 0
    # the torus' corners are neighbours: the agent at (0, 0) sees rows and columns n - 2 .. 2;
    # 7 alike of 20 is exactly its tolerance 0.35 (happy), 6 of 19 under it; a lone agent is happy
    win = np.r_[0, 0, 0, 0, [2] * 7, [1] * 13]                # its 24 neighbours
    g = np.zeros((n, n), np.uint8)
    nbr = [(dy, dx) for dy in range(-2, 3) for dx in range(-2, 3) if dy or dx]
    for (dy, dx), t in zip(nbr, np.random.default_rng(7).permutation(win)):
        g[dy % n, dx % n] = t
    g[0, 0] = 2
    g[n // 2, n // 2] = 2                                  # alone
    s = tp._p160_sc_ref(g, n, n)
    assert (s[1][0, 0], s[2][0, 0]) == (7, 20) and not s[0][0, 0]
    for k in range(2):
        if k:
            y, x = next((dy % n, dx % n) for dy, dx in nbr if g[dy % n, dx % n] == 2)
            g[y, x] = 0                                    # 6 of 19
        out = run("probe/schelling-tile-ballot", [g.ravel(), np.zeros(n * n, np.uint8), np.zeros(1, np.int32),
                                                 np.int32(n), np.int32(n)], n, symbols=syms)
        sad = tp._p160_sc_ref(g, n, n)[0]
        assert (out[1] == sad.ravel()).all() and out[2][0] == sad.sum() > 0
        assert out[1][0] == k and out[1][n // 2 * n + n // 2] == 0


# ---- gravity-furness-tiles ----

@pytest.mark.parametrize("n, policy", [(300, "lockstep"), (100, "random")])
def test_gravity_balance(n, policy):
    host, out, *_ = launch("probe/gravity-furness-tiles", n, policy=policy)   # 300: 3 tiles, the last of 44; 100: 1
    A, mbd = tp._p160_gr_ref(*host[:2])
    # float32 against float64: expf within 2 ulps, its argument beta d off by <= 4 2^-24 of itself
    # (the squares, sum, sqrtf and product), the weights' product one rounding, a sequential sum
    # of n positive terms: relative error <= (n + 4 + 4 mean beta d) 2^-24, mean weighted by term
    assert (np.abs(out[2] - A) <= (n + 4 + 4 * mbd) * 2.0 ** -24 * A).all() and mbd.max() > 1
    # zones 2000 km apart see only themselves (expf underflows to 0, expf(-0) is 1): A = 1 / (B D)
    z = np.zeros(2, tp.P160_GR_ZONE)
    z["x"] = [0, 2000]
    z["O"], z["D"] = 100, [123.4, 567.8]
    B = np.float32([0.7, 1.3])
    out = run("probe/gravity-furness-tiles", [z, B, np.zeros(2, np.float32), np.float32(tp.P160_GR_BETA),
                                              np.int32(2)], 2)
    assert (out[2] == np.float32(1) / (B * z["D"])).all()


# ---- brandes-level-double ----

@pytest.mark.parametrize("n, policy", [(2000, "lockstep"), (250, "random")])
def test_brandes_backward(n, policy):
    host, out, *_ = launch("probe/brandes-level-double", n, policy=policy)
    off, adj, dist, sigma, delta, bc, d, _ = host
    ref = tp._p160_bb_ref(off, adj, dist, sigma, delta, d)
    lv = dist == d
    # double, a different order: each term 3 roundings, the sum one a term
    tol = (np.diff(off) + 4) * 2.0 ** -52 * ref
    assert (np.abs(out[4][lv] - ref[lv]) <= tol[lv]).all() and (out[4][~lv] == delta[~lv]).all()
    assert (np.abs(out[5] - (bc + ref)) <= tol + 2.0 ** -52 * bc).all() and (out[5][~lv] == bc[~lv]).all()
    assert (ref[lv] == 0).any() and (ref[lv] > 0).any()                     # leaves of the BFS dag at depth d
    # a diamond s - a, b - t and a tail t - u, an unreached pair: a and b each carry half of t and u's paths
    n = 8
    off, adj = _csr(n, [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (6, 7)])
    dist = np.int32([0, 1, 1, 2, 3, -1, -1, -1])
    sigma = np.array([1, 1, 1, 2, 2, 0, 0, 0], np.float64)
    delta = np.array([0, 0, 0, 1, 0, 0, 0, 0], np.float64)
    bc = np.full(n, 0.25)
    out = run("probe/brandes-level-double", [off, adj, dist, sigma, delta, bc, np.int32(1), np.int32(n)], n)
    assert (out[4] == [0, 1, 1, 1, 0, 0, 0, 0]).all() and (out[5] == [0.25, 1.25, 1.25] + [0.25] * 5).all()
