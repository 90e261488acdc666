"""probe-unseen167's kernels (kernels_cuda/probes169.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/felsenstein-k80-gamma-rescale", "probe/fitch-bitsliced-nni", "probe/k2p-packed-popc",
       "probe/bootstrap-pattern-smem-atomic", "probe/nj-qmin-shfl-argmin", "probe/lnl-sum-double-smem"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen167"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes169.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def _clusters(ch, ntax):
    """A rooted tree's clusters (the leaf sets below its internal nodes but the root)."""
    below = [frozenset([v]) for v in range(ntax)]
    for a, b in ch:
        below.append(below[a] | below[b])
    return set(below[ntax:-1])


def _valid_postorder(ch, ntax):
    kids = np.sort(np.asarray(ch).ravel())
    return (kids == np.arange(2 * ntax - 2)).all() and (np.asarray(ch).max(axis=1) < ntax + np.arange(ntax - 1)).all()


def test_data():
    rng = np.random.default_rng(0)
    # felsenstein: the fixed tree, codon-position rates, missing genes
    ch, bl = tp._p169_fl_tree()
    assert _valid_postorder(ch, 32) and bl.min() >= 0.002 and 0.03 < bl.mean() < 0.08
    aln, lnl, kappa, n = tp._p169_fl_args(30000, rng)
    a = aln.reshape(32, n)
    assert aln.dtype == np.uint8 and kappa == 4 and 0.03 < (a > 3).mean() < 0.2 and set(np.unique(a)) <= set(range(6))
    assert ((a == 4).mean(axis=1) > 0.05).sum() >= 2                          # whole genes missing
    ok = (a < 4).all(axis=0)
    const = (a == a[0]).all(axis=0)
    pos = np.arange(n) % 3
    c = [const[ok & (pos == q)].mean() for q in range(3)]
    assert 0.05 < c[2] < c[0] - 0.2 < c[1] - 0.3 and c[1] < 0.9            # third positions fastest
    x = a[:, ok]
    d = x[1:] != x[0]                                                         # changes against taxon 0
    tsn = (d & ((x[1:] & 1) == (x[0] & 1))).sum()
    assert 1.1 < tsn / (d.sum() - tsn) < 2          # kappa 4: 2 transitions a transversion, less multiple hits
    # fitch: bit planes with gaps and padding all set; an NNI neighbourhood of one tree
    words = 64
    bits, trees, score, w = tp._p169_fi_args(40, rng, words=words)
    m = tp._p169_fi_masks(bits, words)
    assert bits.dtype == np.uint32 and len(bits) == 64 * 4 * words and w == words and len(score) == 40
    assert (m[:, -13:] == 15).all() and 0.01 < (m[:, :-13] == 15).mean() < 0.04
    assert set(np.unique(m)) == {1, 2, 4, 8, 15}
    t = trees.reshape(40, 63, 2)
    assert all(_valid_postorder(c, 64) for c in t)
    cl = [_clusters(c, 64) for c in t]
    rf = [len(cl[i] ^ cl[j]) for i in range(40) for j in range(i)]
    assert max(rf) <= 16 and np.mean(rf) > 2                                  # each 1-4 NNI moves from one tree
    # k2p: clonal lineages, kappa 4, padding A
    n = 300
    seq, dist, nn, words, sites = tp._p169_k2_args(n, rng, words=256)
    g = tp._p169_k2_bases(seq, n, 256)
    assert (tp._p169_k2_pack(g) == seq).all() and sites == 16 * 256 - 5 and (g[:, sites:] == 0).all()
    assert np.allclose(np.bincount(g[:, :sites].ravel()) / g[:, :sites].size, tp.P169_K2_FREQ, atol=0.03)
    ts, tv, d = tp._p169_k2_ref(g, sites)
    p = (ts + tv) / sites
    np.fill_diagonal(p, np.inf)
    assert np.median(p.min(axis=1)) < 0.003 and 0.005 < np.median(p[np.isfinite(p)]) < 0.05   # close neighbours
    assert (p[np.isfinite(p)] > 0.08).mean() > 0.02                           # the outgroup
    assert 1.6 < ts.sum() / tv.sum() < 2.4
    # bootstrap: patterns by first appearance, mostly constant columns
    colpat, wts, cols, npat, seed = tp._p169_bs_args(4, rng)
    assert cols == 50000 and len(colpat) == cols and 4500 < npat <= 8192 and len(wts) == 4 * npat
    first = np.maximum.accumulate(colpat)
    assert colpat[0] == 0 and (np.diff(first) <= 1).all() and first[-1] == npat - 1
    cnt = np.sort(np.bincount(colpat))[::-1]
    assert 0.6 < cnt[:4].sum() / cols < 0.8 and cnt[4] < cnt[3] / 10 and (cnt == 1).mean() > 0.7
    # nj: a noisy tree metric, 30% of the slots joined
    D, R, act, qmin, qarg, nn, r = tp._p169_nj_args(1500, rng)
    D = D.reshape(1500, 1500)
    assert (D == D.T).all() and (np.diag(D) == 0).all() and D[~np.eye(1500, dtype=bool)].min() > 0
    assert r == act.sum() and abs(r / 1500 - 0.7) < 0.03
    assert np.allclose(R, D.astype(np.float64) @ act, rtol=1e-6)
    q = rng.integers(0, 1500, (20000, 4))                                   # four-point condition, nearly
    s = np.sort([D[q[:, 0], q[:, 1]] + D[q[:, 2], q[:, 3]], D[q[:, 0], q[:, 2]] + D[q[:, 1], q[:, 3]],
                 D[q[:, 0], q[:, 3]] + D[q[:, 1], q[:, 2]]], axis=0)
    a, b = (s[2] - s[1]) / s[2], (s[1] - s[0]) / s[2]
    assert np.median(a) < 0.03 and (b > a).mean() > 0.65          # the 2 largest sums close (iid sums: 0.5)
    # lnl_sum: a dominant state a pattern, sharp slow categories, Zipf weights
    part, lns, wgt, sl, tot, nn = tp._p169_ls_args(200000, rng)
    p = part.reshape(-1, 4, 4)
    assert (p.max(axis=(1, 2)) == 1).all() and (p[:, 0].mean() < p[:, 3].mean())
    assert np.allclose(np.bincount(p[:, 0].argmax(axis=1)) / len(p), tp.P169_LS_PI, atol=0.01)
    assert abs((wgt == 1).mean() - 0.745) < 0.01 and wgt.max() > 1000 and abs(lns.mean() + 48) < 1


# ---- felsenstein-k80-gamma-rescale ----

def test_felsenstein_k80g():
    n = 32
    rng = np.random.default_rng(3)
    h = tp._p169_fl_args(n, rng)
    a = h[0].reshape(32, n)
    a[:, 0] = 5                                             # all gaps: likelihood 1
    a[:, 1:4] = 0                                           # all A
    a[7, 2] = 2                                             # one G (a transition)
    a[7, 3] = 1                                             # one C (a transversion)
    out = run("probe/felsenstein-k80-gamma-rescale", h, n, symbols=tp._p169_fl_syms(n, rng))[1]
    ref = tp._p169_fl_ref(h[0], n)
    # float32, 31 rescaled nodes a category: each node's product and logf a few ulps, ~1e-5 in all
    assert np.abs(out - ref).max() < 3e-5 and ref.min() < -15
    assert abs(out[0]) < 1e-6 and out[1] > out[2] > out[3] and ref[2] - ref[3] > 0.5


# ---- fitch-bitsliced-nni ----

def _planes(masks):
    """State sets (taxa x 32 k sites, 4-bit) as the kernel's bit planes."""
    pl = ((masks[:, None, :] >> np.arange(4, dtype=np.uint8)[None, :, None]) & 1).astype(bool)
    return np.packbits(pl, axis=2, bitorder="little").view("<u4").astype(np.uint32).ravel()


def test_fitch_bitsliced():
    words, nt = 30, 2                                       # 947 sites: a warp a tree, 2 lanes idle
    rng = np.random.default_rng(4)
    h = tp._p169_fi_args(nt, rng, words=words)
    out = run("probe/fitch-bitsliced-nni", h, nt)[2]
    ref = tp._p169_fi_ref(tp._p169_fi_masks(h[0], words), h[1])
    assert (out == ref).all() and ref.min() > 300 and ref[0] != ref[1]
    # identical sequences (all A) but one taxon's G at site 33, and a column of gaps but a G and a T: 1 change each
    m = np.full((64, 32 * words), 1, np.uint8)
    m[:, -13:] = 15
    m[9, 33] = 4
    m[:, 40] = 15
    m[[3, 50], 40] = [2, 8]
    h[0] = _planes(m)
    h[1] = h[1][:63 * 2]
    h[2] = np.zeros(1, np.int32)
    out = run("probe/fitch-bitsliced-nni", h, 1, policy="random")[2]
    assert tp._p169_fi_ref(m, h[1])[0] == 2 and out[0] == 2


# ---- k2p-packed-popc ----

def test_k2p_packed():
    n, words = 40, 64                                       # 2 x 5 blocks of 32 x 8, partial in x
    rng = np.random.default_rng(5)
    h = tp._p169_k2_args(n, rng, words=words)
    g = tp._p169_k2_bases(h[0], n, words)
    sites = int(h[4])
    g[3] = g[0]                                             # identical: 0
    flip = rng.random(sites) < 0.6
    g[1, :sites] = g[0, :sites] ^ (2 * flip).astype(np.uint8)      # 60% transitions: saturated
    flip = rng.random(sites) < 0.55
    g[2, :sites] = g[0, :sites] ^ (flip * rng.choice([1, 3], sites)).astype(np.uint8)   # 55% transversions
    h[0] = tp._p169_k2_pack(g)
    D = run("probe/k2p-packed-popc", h, n)[1].reshape(n, n)
    ts, tv, d = tp._p169_k2_ref(g, sites)
    assert (D == D.T).all() and (np.diag(D) == 0).all()
    sat = np.isnan(d)
    np.fill_diagonal(sat, False)
    # exact counts, then float32 logs of numbers near 1: ~1e-7 absolute
    assert (D[sat] == -1).all() and np.abs(D[~sat] - np.nan_to_num(d)[~sat]).max() < 5e-7
    odd = np.isin(np.arange(n), [1, 2])
    assert (sat == ((odd[:, None] | odd[None, :]) & ~np.eye(n, dtype=bool))).all() and D[0, 3] == 0
    assert tv[0, 1] == 0 and ts[0, 2] == 0 and ((0 < d) & (d < 0.003)).any() and (d > 0.02).any()


# ---- bootstrap-pattern-smem-atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_bootstrap_weights(policy):
    n, cols = 3, 3000                                       # 3000 = 11 x 256 + 184 draws
    rng = np.random.default_rng(6)
    h = tp._p169_bs_args(n, rng, cols=cols)
    npat = int(h[3])
    out = run("probe/bootstrap-pattern-smem-atomic", h, n, policy=policy)[1].reshape(n, npat)
    ref = tp._p169_bs_ref(h[0], n, cols, npat, int(h[4]))
    assert npat > 256 and (out == ref).all() and (out.sum(axis=1) == cols).all()
    share = np.bincount(h[0], minlength=npat) / cols                  # replicates resample the patterns' shares
    assert np.abs(out / cols - share).max() < 0.03 and (out != out[0]).any()


# ---- nj-qmin-shfl-argmin ----

def test_nj_qmin():
    n = 150
    host, out, *_ = launch("probe/nj-qmin-shfl-argmin", n)
    D, R, act, r = host[0], host[1], host[2] > 0, int(host[6])
    Q = tp._p169_nj_ref(D, R, host[2], n, r)
    # float32 Q: a few ulps of its largest term
    tol = 4 * 2.0 ** -24 * ((r - 2) * D.max() + 2 * R.max())
    best = Q.min(axis=1)
    assert (out[3][~act] == np.finfo(np.float32).max).all() and (out[4][~act] == -1).all()
    assert np.abs(out[3][act] - best[act]).max() < tol
    assert (Q[np.flatnonzero(act), out[4][act]] - best[act] < tol).all()
    assert (out[4][act] == Q[act].argmin(axis=1)).mean() > 0.95
    # integer distances: every Q exact, ties to the lowest j
    rng = np.random.default_rng(7)
    Di = rng.integers(1, 6, (n, n)).astype(np.float32)
    Di = np.triu(Di, 1) + np.triu(Di, 1).T
    h = list(host)
    h[0] = Di.ravel()
    h[1] = (Di.astype(np.float64) @ act).astype(np.float32)
    out = run("probe/nj-qmin-shfl-argmin", h, n)
    Q = tp._p169_nj_ref(h[0], h[1], host[2], n, r)
    rows = np.flatnonzero(act)
    assert (out[3][rows] == Q[rows].min(axis=1)).all() and (out[4][rows] == Q[rows].argmin(axis=1)).all()
    assert ((Q[rows] == Q[rows].min(axis=1, keepdims=True)).sum(axis=1) > 1).any()        # ties met


# ---- lnl-sum-double-smem ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_lnl_sum(policy):
    n = 700                                                 # 3 blocks, the last partial
    rng = np.random.default_rng(8)
    h = tp._p169_ls_args(n, rng)
    p = h[0].reshape(n, 4, 4)
    p[0] = 0
    p[0, :, 0] = 1                                          # only A at the root: L = pi_A
    h[2][1] = 0                                             # a pattern no column has
    out = run("probe/lnl-sum-double-smem", h, n, policy=policy, symbols=tp._p169_ls_syms(n, rng))
    l, tot = tp._p169_ls_ref(*h[:3])
    # the double log rounded once to float; the double sum in 3 block partials' order: ~1e-15
    assert (np.abs(out[3] - l) <= 1e-7 * np.abs(l)).all() and abs(out[4][0] - tot) < 1e-12 * abs(tot)
    assert abs(out[3][0] - (np.log(0.3) + h[1][0])) < 1e-5
    assert abs(out[4][0] - (tot - h[2][1] * l[1])) < 1e-12 * abs(tot) and out[3][1] != 0
