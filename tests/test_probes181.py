"""probe-unseen179's kernels (kernels_cuda/probes181.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/sc-lognorm-warp-csr", "probe/sc-hvg-stats-atomic-f64", "probe/sc-pca-tiled-const",
       "probe/sc-knn-pca-smem-topk", "probe/sc-umi-dedup-cas64", "probe/sc-labelprop-knn-mode"]
U = 2.0 ** -24                                              # float32's unit roundoff
EMPTY = np.iinfo(np.uint64).max


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen179"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes181.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    indptr, c, out, lib, target, n = tp._p181_ln_args(4096, rng)
    det = np.diff(indptr)
    assert indptr.dtype == np.int32 and n == 4096 and len(lib) == n and len(out) == len(c) and target == 1e4
    assert det.min() >= 200 and det.max() <= 8000 and abs(np.median(det) / 1500 - 1) < 0.03
    assert np.percentile(det, 95) / np.median(det) > 1.9                      # skewed rows
    assert c.dtype == np.float32 and (c == np.floor(c)).all() and c.min() == 1 and c.max() <= 5000
    assert abs((c == 1).mean() - (1 - 2 ** -1.4)) < 0.005 and (c >= 100).mean() > 0.001
    indptr, ind, cnt, lib, types = tp._p181_umi_matrix(1 << 20, rng)
    det = np.diff(indptr)
    nc = len(det)
    assert indptr[-1] == len(ind) == len(cnt) == 1 << 20 and len(types) == len(lib) == nc
    assert (np.add.reduceat(cnt, indptr[:-1])[:-1] == lib[:-1]).all() and abs(np.median(lib) / 4000 - 1) < 0.1
    row = np.repeat(np.arange(nc), det)
    assert (np.diff(ind)[np.diff(row) == 0] > 0).all()                      # ascending and distinct in a cell
    assert 1500 < np.median(det[:-1]) < 2800 and 0.5 < (cnt == 1).mean() < 0.8
    seen = np.bincount(ind[:indptr[-2]], minlength=tp.P181_GENES)             # the cells not cut
    top = tp._p181_gene_model()[0]
    assert seen[top[0]] == nc - 1 and seen[top[:100]].min() > 0.9 * nc        # the commonest in every cell
    assert abs((seen == 0).mean() - 11538 / 33538) < 0.01 and seen[top[5000:22000]].mean() < 0.1 * nc  # a long tail
    mk = tp._p181_gene_model()[1]
    t0 = types == types[0]
    inmk = np.isin(ind, mk[types[0]])
    assert np.bincount(row[inmk], minlength=nc)[t0].mean() > 3 * np.bincount(row[inmk], minlength=nc)[~t0].mean()
    ind2, data, gs, gq, gn, n = tp._p181_gs_args(1 << 16, rng)
    assert n == len(ind2) == len(data) == 1 << 16 and data.dtype == np.float32 and len(gs) == len(gn) == 33538
    assert 0 < data.min() and data.max() < 10
    X, W, Y, G, n = tp._p181_pca_args(2048, rng)
    X = X.reshape(n, G)
    assert G == 2000 and len(Y) == n * 50 and X.dtype == W.dtype == np.float32
    assert 0.45 < (X == 0).mean() < 0.6 and X[X > 0].min() >= 0.1
    W = W.reshape(G, 50).astype(np.float64)
    assert np.abs(W.T @ W - np.eye(50)).max() < 1e-5
    syms = tp._p181_pca_syms(n, rng)
    assert np.abs(syms["c_mu"] - X.mean(axis=0)).max() < 0.15 and (syms["c_isd"] > 0.3).all()
    z = (X - syms["c_mu"]) * syms["c_isd"]
    assert 0 < (z > 10).mean() < 1e-3                                        # a few clipped
    s = (z @ W).std(axis=0)
    assert s[:11].min() > 3 * s[12:].max()                                   # the 12 types' 11 dimensions first
    pcs, kd, ki, r0, nr, nq = tp._p181_knn_args(4096, rng)
    P = pcs.reshape(nq, 50)
    assert (r0, nr, nq) == (0, 512, 4096) and (kd == np.finfo(np.float32).max).all() and (ki == -1).all()
    sd = P.std(axis=0)
    assert sd[0] > 3 and sd[-1] < 1 and (np.diff(sd[:10]) < 0.5).all()
    d = np.sqrt(((P[:200, None] - P[None, :]) ** 2).sum(axis=2))
    np.fill_diagonal(d, np.inf)
    assert np.median(np.sort(d, axis=1)[:, 14]) < 0.5 * np.median(d[np.isfinite(d)])    # clustered
    reads, table, mask, umis, first, n = tp._p181_umi_args(1 << 20, rng)
    assert reads.dtype.itemsize == 12 and n == len(reads) == len(first) == 1 << 20 and len(umis) == 8192
    assert len(table) == 1 << 20 and mask == (1 << 20) - 1 and (table == EMPTY).all()
    ok = reads["gene"] >= 0
    assert abs((~ok).mean() - 0.25) < 0.01 and reads["umi"].max() < 1 << 24 and reads["cell"].max() < 8192
    keys, per_cell = tp._p181_umi_ref(reads, 8192)
    assert 2.8 < ok.sum() / len(keys) < 3.2                                  # reads a molecule: 3
    assert per_cell.max() > 3 * np.median(per_cell)
    k = tp._p181_umi_keys(reads)[ok]
    assert (k[1:] == k[:-1]).mean() < 0.01                                   # duplicates scattered
    nbr, lab, lab2, ch, n = tp._p181_lp_args(1 << 16, rng)
    N = nbr.reshape(n, 15)
    assert nbr.dtype == lab.dtype == np.int32 and 0 <= N.min() and N.max() < n
    assert (N != np.arange(n)[:, None]).all() and len(np.unique(lab)) == 40
    assert 0.55 < (lab[N] == lab[:, None]).mean() < 0.65
    new, changed = tp._p181_lp_ref(nbr, lab)
    assert 0.1 < changed / n < 0.3 and (new == lab).mean() > 0.7


# ---- sc-lognorm-warp-csr ----

@pytest.mark.parametrize("n, policy", [(18, "lockstep"), (3, "random")])
def test_sc_lognorm(n, policy):
    host, out, *_ = launch("probe/sc-lognorm-warp-csr", n, policy=policy)  # 18: 3 blocks, the last partial
    lib, ref = tp._p181_ln_ref(host[0], host[1])
    # integer sums under 2^24: exact; target / lib and the product 1 rounding each, log1pf
    # about 1 ulp: within 3u (1 + ref)
    assert (out[3] == lib).all() and (np.abs(out[2] - ref) <= 3 * U * (1 + ref)).all() and ref.max() > 5


def test_sc_lognorm_edges():
    # empty cells (their library size 0, nothing written), one count, 33 counts (lane 0 twice),
    # a library of 2^23 + 3 (still exact in float32)
    counts = np.float32([7] + [1] * 32 + [2] + [2 ** 23, 3])
    indptr = np.int32([0, 0, 1, 1, 34, 36])
    h = [indptr, counts, np.full(36, -1, np.float32), np.full(5, -1, np.float32), np.float32(1e4), np.int32(5)]
    out = run("probe/sc-lognorm-warp-csr", h, 5)
    lib, ref = tp._p181_ln_ref(indptr, counts)
    assert list(out[3]) == [0, 7, 0, 34, 2 ** 23 + 3] and (lib == out[3]).all()
    assert (np.abs(out[2] - ref) <= 3 * U * (1 + ref)).all() and out[2][1] == out[2][32] < out[2][33]


# ---- sc-hvg-stats-atomic-f64 ----

@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (2600, "random")])
def test_sc_gene_stats(n, policy):                          # the values of 2 cells: genes in both
    host, out, *_ = launch("probe/sc-hvg-stats-atomic-f64", n, policy=policy)
    s, q, c = tp._p181_gs_ref(host[0], host[1])
    # double sums of the same float32 terms in another order: n 2^-53 of the sum of terms
    assert (out[4] == c).all() and c.sum() == n and c.max() > 1
    assert (np.abs(out[2] - s) <= n * 2.0 ** -53 * s).all() and (np.abs(out[3] - q) <= n * 2.0 ** -53 * q).all()


def test_sc_gene_stats_edges():
    # every value in one gene (all the atomics on one address) but one in the last gene
    n = 700
    rng = np.random.default_rng(9)
    ind = np.full(n, 7, np.int32)
    ind[-1] = tp.P181_GENES - 1
    data = np.log1p(rng.integers(1, 50, n)).astype(np.float32)
    h = [ind, data, np.zeros(tp.P181_GENES), np.zeros(tp.P181_GENES), np.zeros(tp.P181_GENES, np.int32), np.int32(n)]
    out = run("probe/sc-hvg-stats-atomic-f64", h, n, policy="random")
    s, q, c = tp._p181_gs_ref(ind, data)
    assert out[4][7] == n - 1 and out[4][-1] == 1 and out[4].sum() == n and np.count_nonzero(out[2]) == 2
    assert abs(out[2][7] - s[7]) <= n * 2.0 ** -53 * s[7] and abs(out[3][7] - q[7]) <= n * 2.0 ** -53 * q[7]
    assert out[2][-1] == s[-1] and out[3][-1] == q[-1]
    assert abs(s[7] / (n - 1) - 25) < 2                                      # expm1f undid the log1p


# ---- sc-pca-tiled-const ----

@pytest.mark.parametrize("n, genes, policy", [(20, 40, "lockstep"), (4, 10, "random")])
def test_sc_pca_project(n, genes, policy):
    # 20 cells: 4 x 2 blocks, the second row of tiles and the last column (components 48, 49) partial;
    # 40 genes: 3 tiles of genes, the last partial
    rng = np.random.default_rng(2)
    h = tp._p181_pca_args(n, rng, genes=genes)
    syms = tp._p181_pca_syms(n, rng)
    h[0][3 * genes:4 * genes] = 1e4                                         # a cell clipped everywhere
    out = run("probe/sc-pca-tiled-const", h, n, policy=policy, symbols=syms)
    ref, mag = tp._p181_pca_ref(h[0], h[1], syms["c_mu"], syms["c_isd"])
    # z exactly as float32 computes it; genes sequential FMAs: within genes u of sum |z W|
    assert (np.abs(out[2] - ref.ravel()) <= genes * U * mag.ravel()).all()
    W = h[1].reshape(genes, 50).astype(np.float64)
    assert np.allclose(out[2].reshape(n, 50)[3], 10 * W.sum(axis=0), rtol=0, atol=genes * U * 10 * np.abs(W).sum(0))


# ---- sc-knn-pca-smem-topk ----

def test_sc_knn_batch():
    # 20 queries (one block of 128: one warp, partial) of 24 cells against two batches of
    # references: cells 0 .. 17 (the queries among them never their own neighbour), then 18 .. 23
    # with the first batch's lists carried over (queries 18, 19 among them)
    n, nq = 24, 20
    rng = np.random.default_rng(4)
    h = tp._p181_knn_args(n, rng, nr=18)
    h[5] = np.int32(nq)
    out = run("probe/sc-knn-pca-smem-topk", h, nq)
    P = h[0].reshape(n, 50).astype(np.float64)
    D = ((P[:, None] - P[None]) ** 2).sum(axis=2)
    for refs, res in ((np.arange(18), out), (np.arange(24), None)):
        if res is None:
            h2 = list(h)
            h2[1], h2[2], h2[3], h2[4] = out[1], out[2], np.int32(18), np.int32(6)
            res = run("probe/sc-knn-pca-smem-topk", h2, nq, policy="random")
        d, ids, gap = (v[:nq] for v in tp._p181_knn_ref(h[0], refs))
        kd, ki = res[1].reshape(n, 15), res[2].reshape(n, 15)
        assert (kd[nq:] == np.finfo(np.float32).max).all() and (ki[nq:] == -1).all()     # not queries
        kd, ki = kd[:nq], ki[:nq]
        # float32 distances: 50 products and sums each a rounding, the differences one: within 60 u
        assert (np.abs(kd - d) <= 60 * U * d).all() and (np.diff(kd, axis=1) >= 0).all()
        assert (ki != np.arange(nq)[:, None]).all() and np.isin(ki, refs).all()
        assert (np.abs(np.take_along_axis(D[:nq], ki.astype(np.int64), axis=1) - d) <= 60 * U * d).all()
        far = gap > 1e-4                                                     # no near-tie at the 15th
        assert far.mean() > 0.8
        assert (np.sort(ki[far], axis=1) == np.sort(ids[far], axis=1)).all()


# ---- sc-umi-dedup-cas64 ----

def _fmix64(k):
    k = np.asarray(k, np.uint64)
    with np.errstate(over="ignore"):
        k = k ^ (k >> np.uint64(33))
        k = k * np.uint64(0xff51afd7ed558ccd)
        k = k ^ (k >> np.uint64(33))
        k = k * np.uint64(0xc4ceb9fe1a85ec53)
        return k ^ (k >> np.uint64(33))


def _probe_slots(keys, mask):
    """The slots keys fill, inserted one at a time by linear probing from their fmix64 slots."""
    used = np.zeros(mask + 1, bool)
    for hm in (_fmix64(keys) & np.uint64(mask)).astype(np.int64):
        while used[hm]:
            hm = (hm + 1) & mask
        used[hm] = True
    return np.flatnonzero(used)


def _umi_check(h, out):
    reads, ncells = h[0], len(h[3])
    keys, per_cell = tp._p181_umi_ref(reads, ncells)
    table = out[1]
    stored = table[table != EMPTY]
    assert (np.sort(stored) == keys).all() and (out[3] == per_cell).all()
    k = tp._p181_umi_keys(reads)
    f = out[4].astype(bool)
    assert set(np.unique(out[4])) <= {0, 1} and (reads["gene"][f] >= 0).all()
    assert (np.sort(k[f]) == keys).all()                                    # one first read a molecule
    # linear probing fills the same slots whatever the order the keys come in
    mask = len(table) - 1
    assert (np.flatnonzero(table != EMPTY) == _probe_slots(keys, mask)).all()
    # and leaves no empty slot between a key's hash slot and where it sits
    slot = np.flatnonzero(table != EMPTY)
    home = (_fmix64(table[slot]) & np.uint64(mask)).astype(np.int64)
    dist = (slot - home) & mask
    for s, hm, dd in zip(slot, home, dist):
        if dd:
            idx = (hm + np.arange(dd)) & mask
            assert (table[idx] != EMPTY).all()
    return dist


@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (1200, "random")])
def test_sc_umi_dedup(n, policy):
    host, out, *_ = launch("probe/sc-umi-dedup-cas64", n, policy=policy)
    dist = _umi_check(host, out)
    assert out[3].sum() > 0.2 * n and dist.max() > 0


def test_sc_umi_dedup_full_table():
    # a table of 512 slots three quarters full: long probe runs, some wrapping past the end
    rng = np.random.default_rng(38)                        # (a seed whose keys wrap)
    h = tp._p181_umi_args(1500, rng, ncells=64)
    keys, _ = tp._p181_umi_ref(h[0], 64)
    assert 340 < len(keys) < 512
    h[1], h[2] = np.full(512, EMPTY, np.uint64), np.uint32(511)
    out = run("probe/sc-umi-dedup-cas64", h, 1500, policy="random")
    dist = _umi_check(h, out)
    slot = np.flatnonzero(out[1] != EMPTY)
    assert dist.max() > 10 and ((slot - dist) < 0).any()                       # wrapped


# ---- sc-labelprop-knn-mode ----

@pytest.mark.parametrize("n, policy", [(1000, "lockstep"), (100, "random")])
def test_sc_label_prop(n, policy):
    host, out, *_ = launch("probe/sc-labelprop-knn-mode", n, policy=policy)  # 1000: 4 blocks, the last partial
    new, changed = tp._p181_lp_ref(host[0], host[1])
    assert (out[2] == new).all() and out[3][0] == changed and 0 < changed < n // 2


def test_sc_label_prop_ties():
    # cells 0 .. 14 labelled 3 x 5, 1 x 5, 2 x 5; cells 15 .. 19 their neighbours' modes
    lab = np.int32([3] * 5 + [1] * 5 + [2] * 5 + [2, 9, 3, 1, 0])
    nbr = np.zeros((20, 15), np.int32)
    nbr[:15] = (np.arange(15)[:, None] + 1 + np.arange(15)) % 20             # the others
    nbr[15:18] = np.arange(15)                                               # a three-way tie
    nbr[18] = [0] * 14 + [5]                                                 # 14 x label 3, once its own
    nbr[19] = [5, 5, 0, 0, 10, 10, 15, 15, 16, 16, 17, 17, 18, 18, 19]        # 1, 2, 3 four times, its own once
    h = [nbr.ravel(), lab, np.zeros(20, np.int32), np.zeros(1, np.int32), np.int32(20)]
    out = run("probe/sc-labelprop-knn-mode", h, 20)
    new, changed = tp._p181_lp_ref(nbr.ravel(), lab)
    assert list(out[2][15:]) == [2, 1, 3, 3, 1] and (out[2] == new).all() and out[3][0] == changed
