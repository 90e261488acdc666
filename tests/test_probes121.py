"""probe-unseen119's kernels (kernels_cuda/probes121.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/felsenstein-prune-16taxa", "probe/wright-fisher-drift-select", "probe/sfs-hist-smem-atomics",
       "probe/pdistance-jc-tiled-smem", "probe/rell-bootstrap-gather", "probe/allele-freq-gst-stream"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen119"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes121.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    # the tree: a rooted binary tree in post-order, stochastic P matrices
    left, right, P, pi = tp._p121_tree()
    T = tp.P121_NTAX
    kids = np.r_[left, right]
    assert sorted(kids) == list(range(2 * T - 2))                       # every node but the root a child once
    assert all(max(left[k], right[k]) < T + k for k in range(T - 1))    # children before parents
    assert P.shape == (2 * T - 2, 4, 4) and P.dtype == np.float32 and (P > 0).all()
    assert np.allclose(P.sum(axis=2), 1, atol=1e-6) and np.allclose(pi @ P, pi, atol=1e-5)   # pi stationary
    syms = tp._p121_fs_syms(n, rng)
    assert syms["c_P"].shape == (480,) and syms["c_left"].dtype == np.int32
    aln, lnl, nn = tp._p121_fs_args(n, rng)
    assert aln.dtype == np.uint8 and len(aln) == T * n and aln.max() == 4 and nn == n
    assert abs((aln == 4).mean() - tp.P121_FS_GAP) < 0.005
    a = aln.reshape(T, n)
    d = [(a[i] != a[j]).mean() for i in range(T) for j in range(i)]
    assert 0.03 < min(d) and max(d) < 0.6 and ((a == a[0]) | (a == 4)).all(axis=0).mean() > 0.1   # invariant sites
    ll = tp._p121_fs_ref(aln)
    assert -40 < ll.min() and ll.max() < -1 and np.exp(ll).min() > 1e-30                 # no underflow in float
    # Wright-Fisher: counts ~ 1/k, most loci lost early, some segregating to the end
    c0, s, co, fg, seed, nn = tp._p121_wf_args(n, rng)
    assert c0.dtype == np.int32 and c0.min() >= 1 and c0.max() < tp.P121_WF_2N and s.dtype == np.float32
    assert 0.15 < (c0 == 1).mean() < 0.28 and abs(s.std() - tp.P121_WF_SSD) < 0.005
    c, fx, gap = tp._p121_wf_ref(c0[:1024], s[:1024])
    assert ((c == 0) | (c == 64))[fx >= 0].all() and ((c > 0) & (c < 64))[fx < 0].all()
    assert 0.4 < (fx[fx >= 0] <= 6).mean() and 0.15 < (fx < 0).mean() < 0.45
    # the SFS: monomorphic and singleton sites most common, ~9% of sites with a missing genotype
    g, sfs, miss, nn = tp._p121_sfs_args(n, rng)
    assert g.dtype == np.uint8 and len(g) == tp.P121_SFS_NIND * n and set(np.unique(g)) == {0, 1, 2, 3}
    h, m = tp._p121_sfs_ref(g)
    assert len(sfs) == len(h) == 129 and h.sum() + m == n and 0.06 < m / n < 0.13
    assert h[0] > h[1] > h[2] > h[3] > h[10] and h[0] < 0.4 * n and h[64:].sum() > 0
    # p-distances: clades, diverging sequences, gaps
    seqs, pd, jc, nn, length = tp._p121_pd_args(96, rng)
    assert seqs.dtype == np.uint8 and len(seqs) == 96 * length and length == tp.P121_PD_LEN
    p, d = tp._p121_pd_ref(seqs, 96, length)
    assert (np.diag(p) == 0).all() and (p == p.T).all()
    same = np.arange(96)[:, None] % 8 == np.arange(96)[None, :] % 8
    assert p[same & ~np.eye(96, dtype=bool)].max() < p[~same].min() and p.max() < 0.5
    assert abs((seqs == 4).mean() - tp.P121_PD_GAP) < 0.003
    # RELL: lnL per site, trees with split support
    lnl, rep, sup, ns, seed, nn = tp._p121_rell_args(n, rng)
    L = lnl.reshape(-1, tp.P121_RELL_TREES)
    assert L.shape == (tp.P121_RELL_SITES, 4) and L.max() < 0 and sup.dtype == np.int32
    acc, best, support, gap = tp._p121_rell_ref(lnl, 512, ns)
    assert support.sum() == 512 and (support > 0).sum() >= 2 and support.max() < 500 and gap > 1e-4
    # allele frequencies: ~1% of (population, SNP) pairs empty, ~20-30% monomorphic SNPs
    dac, ncall, *outs, nn = tp._p121_fst_args(n, rng)
    assert dac.dtype == ncall.dtype == np.uint16 and (dac <= ncall).all() and len(dac) == 8 * n
    nc = ncall.reshape(8, n)
    assert (nc <= 2 * np.array(tp.P121_FST_NIND)[:, None]).all() and (nc % 2 == 0).all()
    assert 0.005 < (nc == 0).mean() < 0.02
    pp, ht, gst, mono = tp._p121_fst_ref(dac, ncall)
    assert 0.15 < mono.mean() < 0.35 and 0 < np.median(gst[~mono]) < 0.2 and ht.max() <= 0.5


# ---- felsenstein-prune-16taxa ----

def test_felsenstein():
    n = 300                                                 # 2 blocks, the last partial
    host, (aln, lnl, nn), syms, _ = launch("probe/felsenstein-prune-16taxa", n)
    np.testing.assert_allclose(lnl, tp._p121_fs_ref(host[0]), rtol=2e-6, atol=2e-6)
    # an all-gap column: likelihood 1
    a = host[0].copy().reshape(tp.P121_NTAX, n)
    a[:, 5] = 4
    out = run("probe/felsenstein-prune-16taxa", [a.ravel(), np.zeros(n, np.float32), np.int32(n)], n, symbols=syms)
    assert abs(out[1][5]) < 1e-6 and (out[1][:5] == lnl[:5]).all()


# ---- wright-fisher-drift-select ----

def test_wright_fisher():
    n = 300                                                 # one full block, one partial
    host, (c0, s, co, fg, *_), *_ = launch("probe/wright-fisher-drift-select", n)
    c, fx, gap = tp._p121_wf_ref(host[0], host[1])
    assert gap > 2e-7                                       # no draw within float rounding of w
    assert (co == c).all() and (fg == fx).all()
    assert (fx == 0).sum() == 0 and (fx > 0).any() and (fx < 0).any() and (c[fx > 0] == 64).any()


def test_wright_fisher_edges():
    # loci starting lost or fixed (generation 0), strong selection either way
    rng = np.random.default_rng(3)
    n = 64
    host = tp._p121_wf_args(n, rng)
    host[0][:4] = [0, 64, 0, 64]
    host[1][4:8] = [0.9, 0.9, -0.9, -0.9]
    host[0][4:8] = [32, 32, 32, 32]
    out = run("probe/wright-fisher-drift-select", host, n)
    c, fx, gap = tp._p121_wf_ref(host[0], host[1])
    assert gap > 2e-7 and (out[2] == c).all() and (out[3] == fx).all()
    assert (out[3][:4] == 0).all() and (out[2][:4] == [0, 64, 0, 64]).all()
    assert (out[2][4:6] == 64).all() and (out[2][6:8] == 0).all()


# ---- sfs-hist-smem-atomics ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_sfs(policy):
    # 4 blocks, the last partial (random: 2 blocks, the second partial)
    n = 1000 if policy == "lockstep" else 300
    host, (g, sfs, miss, nn), *_ = launch("probe/sfs-hist-smem-atomics", n, policy=policy)
    h, m = tp._p121_sfs_ref(host[0])
    assert (sfs == h).all() and miss[0] == m and m > 0
    # added to what is there already (the kernel accumulates)
    host[1] = np.arange(129, dtype=np.uint32)
    host[2] = np.array([7], np.uint32)
    out = run("probe/sfs-hist-smem-atomics", host, n, policy=policy)
    assert (out[1] == h + np.arange(129)).all() and out[2][0] == m + 7


# ---- pdistance-jc-tiled-smem ----

def test_pdistance():
    # 40 sequences (3 x 3 blocks, partial tiles) of 150 columns (a partial chunk)
    rng = np.random.default_rng(4)
    n, length = 40, 150
    s = tp._p121_pd_seqs(n, length, rng)
    s[3, :] = 4                                             # an all-N sequence: nothing compared
    s[7, :20] = s[9, :20] = np.array([0, 1, 2, 3] * 5)
    s[7, 20:] = 0
    s[9, 20:] = 3                                           # p = 130 / 150: JC capped at 10
    host = [s.ravel(), np.zeros(n * n, np.float32), np.zeros(n * n, np.float32), np.int32(n), np.int32(length)]
    out = run("probe/pdistance-jc-tiled-smem", host, n)
    p, d = tp._p121_pd_ref(s, n, length)
    assert (out[1].reshape(n, n) == p).all()
    np.testing.assert_allclose(out[2].reshape(n, n), d, rtol=2e-6, atol=1e-7)
    assert p[3, 5] == -1 and d[7, 9] == 10 and (np.diag(p)[np.arange(n) != 3] == 0).all()


# ---- rell-bootstrap-gather ----

@pytest.mark.parametrize("policy, n, ns", [("lockstep", 300, 160), ("random", 100, 40)])
def test_rell(policy, n, ns):
    # replicates of 160 columns (the probe's 600 are slow in the emulator), a partial block;
    # random: 4 warps of one partial block on 40 columns, their support atomics interleaved
    rng = np.random.default_rng(5)
    lnl = tp._p121_rell_lnl(ns, rng).ravel()
    host = [lnl, np.zeros(n * 4, np.float32), np.zeros(4, np.int32), np.int32(ns), np.uint32(tp.P121_RELL_SEED),
            np.int32(n)]
    out = run("probe/rell-bootstrap-gather", host, n, policy=policy)
    acc, best, sup, gap = tp._p121_rell_ref(lnl, n, ns)
    assert gap > 0 and (out[1].reshape(n, 4) == acc).all() and (out[2] == sup).all()
    assert (sup > 0).sum() >= 2


# ---- allele-freq-gst-stream ----

def test_allele_freq():
    n = 1000
    host, (dac, ncall, p, ht, gst, nn), *_ = launch("probe/allele-freq-gst-stream", n)
    # a SNP with no population genotyped, one with a single usable population
    for k in range(8):
        host[1][k * n + 3] = 0
        host[1][k * n + 4] = 1 if k else 10
        host[0][k * n + 3] = 0
        host[0][k * n + 4] = 0 if k else 4
    out = run("probe/allele-freq-gst-stream", host, n)
    rp, rht, rg, mono = tp._p121_fst_ref(host[0], host[1])
    assert mono[3] and not mono[4] and abs(rg[4]) < 1e-12 and mono.mean() > 0.1
    np.testing.assert_allclose(out[2], rp, rtol=1e-6, atol=0)
    # float32's 1 - p loses digits as p nears 1 (or p_k nears 0 or 1): errors within a few
    # ulps over min(p, 1 - p), G_ST's also scaled by H_S / H_T = 1 - G_ST
    q = np.maximum(np.minimum(rp, 1 - rp), 1e-3)
    assert (np.abs(out[3] - rht) <= 2e-7 * rht / q).all()
    assert (np.abs(out[4] - rg) <= 2e-7 * (1 + np.abs(1 - rg)) / q).all()
    assert (out[3][mono] == 0).all() and (out[4][mono] == 0).all()
