"""probe-unseen138's kernels (kernels_cuda/probes140.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/chem-tanimoto-query-const", "probe/chem-substruct-screen-atomics", "probe/chem-minhash-block-smem",
       "probe/chem-descriptors-csr", "probe/chem-butina-counts-tiled", "probe/chem-gaussian-shape-overlap"]
W = tp.P140_FP_WORDS


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen138"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes140.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 13
    fp, sim, nn = tp._p140_tn_args(n, rng)
    assert fp.dtype == np.uint64 and len(fp) == n * W and nn == n
    dens = tp._p140_popc(fp.reshape(n, W)).mean() / (64 * W)
    assert abs(dens - 1 / 16) < 0.002                                        # ~64 bits of 1024
    q = tp._p140_tn_syms(n, rng)["c_query"]
    assert q.shape == (W,) and q.dtype == np.uint64 and 40 < tp._p140_popc(q) < 90
    fp, Q, match, hits, hl, cap, nn = tp._p140_ss_args(n, rng)
    assert Q.dtype == np.uint64 and len(Q) == tp.P140_SS_NQ * W and cap == n and (hl == -1).all()
    assert len(tp._p140_ss_common()) == tp.P140_SS_COMMON
    kc = [tp._p140_popc(Q.reshape(-1, W)[q]) for q in range(tp.P140_SS_NQ)]
    assert kc == [a + b for a, b in tp.P140_SS_QUERIES]
    m, hit = tp._p140_ss_ref(fp)
    rates = hit.mean(axis=0)
    assert 0.55 < rates[0] < 0.7 and 0.2 < rates[1] < 0.4 and rates[7] < 0.005 and 0.9 < hit.sum(1).mean() < 1.4
    start, feat, a, b, sig, nn = tp._p140_mh_args(n, rng)
    cnt = np.diff(start)
    assert cnt.min() >= 16 and cnt.max() <= tp.P140_MH_MAX and feat.dtype == np.uint32 and len(feat) == start[-1]
    assert (a >= 1).all() and (a < tp.P140_MH_P).all() and (b < tp.P140_MH_P).all() and len(sig) == 128 * n
    start, Z, x, y, z, *_ = tp._p140_ds_args(n, rng)
    cnt = np.diff(start)
    assert cnt.min() >= 8 and cnt.max() <= 56 and Z.dtype == np.uint8 and set(np.unique(Z)) <= {1, 6, 7, 8, 9, 16, 17}
    assert abs((Z == 1).mean() - 0.45) < 0.02 and (tp._p140_ds_mass()[Z] > 0).all()
    mw, heavy, het, rg = tp._p140_ds_ref(start, Z, x, y, z)
    assert 1 < rg.min() and rg.max() < 7 and (het <= heavy).all()
    fp, bc, nb, cut, nn = tp._p140_bt_args(1024, rng)
    assert (bc == tp._p140_popc(fp.reshape(-1, W))).all() and cut == np.float32(0.65)
    cnt = tp._p140_bt_ref(fp)
    assert 2 < cnt.mean() < 8 and (cnt == 0).mean() > 0.03 and cnt.max() > 10      # counts that vary
    ref, nref, conf, na, ov, nn = tp._p140_sh_args(1000, rng)
    assert nref == 24 and len(ref) == 96 and na.min() >= 12 and na.max() <= 32
    c = conf.reshape(-1, 32, 4)
    assert (c[np.arange(32)[None, :] >= na[:, None]] == 0).all() and (c[:, :12, 3] > 0.8).all()
    v = tp._p140_sh_ref(ref, conf, na)
    assert 50 < v.min() and v.max() < 1200


# ---- chem-tanimoto-query-const ----

def test_tanimoto():
    rng = np.random.default_rng(3)
    n = 300                                                 # 2 blocks, the last partial
    host = tp._p140_tn_args(n, rng)
    q = tp._p140_tn_query()
    fp = host[0].reshape(n, W)
    fp[0] = q                                               # identical: 1
    fp[1] = 0                                               # empty: 0 (union > 0)
    fp[2] = q & np.uint64(0x00ff00ff00ff00ff)               # a subset
    out = run("probe/chem-tanimoto-query-const", host, n, symbols={"c_query": q})
    ref = tp._p140_tn_ref(host[0])
    assert (out[1] == ref).all()
    assert out[1][0] == 1 and out[1][1] == 0 and out[1][2] == np.float32(tp._p140_popc(fp[2])) / np.float32(tp._p140_popc(q))
    # an empty query against an empty fingerprint: 0, not a division by zero
    host[0][:W] = 0
    out = run("probe/chem-tanimoto-query-const", host, n, symbols={"c_query": np.zeros(W, np.uint64)})
    assert (out[1] == 0).all()


# ---- chem-substruct-screen-atomic-hits ----

@pytest.mark.parametrize("policy, n", [("lockstep", 600), ("random", 200)])
def test_substruct_screen(policy, n):
    # 5 (2) blocks, the last partial
    host, (fp, Q, match, hits, hl, cap, nn), *_ = launch("probe/chem-substruct-screen-atomics", n, policy=policy)
    m, hit = tp._p140_ss_ref(host[0])
    assert (match == m).all() and (hits == hit.sum(axis=0)).all()
    hl = hl.reshape(tp.P140_SS_NQ, n)
    for q in range(tp.P140_SS_NQ):
        k = int(hits[q])
        assert sorted(hl[q, :k]) == list(np.flatnonzero(hit[:, q])) and (hl[q, k:] == -1).all()
    assert hits[0] > n / 2 and 0 < hits[4] < hits[1]


def test_substruct_cap():
    # a hit list shorter than the hits: the count is all of them, the first cap kept
    rng = np.random.default_rng(4)
    n = 200
    host = tp._p140_ss_args(n, rng)
    cap = 16
    host[4] = np.full(tp.P140_SS_NQ * cap, -1, np.int32)
    host[5] = np.int32(cap)
    out = run("probe/chem-substruct-screen-atomics", host, n, policy="random")
    m, hit = tp._p140_ss_ref(host[0])
    assert (out[2] == m).all() and (out[3] == hit.sum(axis=0)).all()
    hl = out[4].reshape(-1, cap)
    for q in range(tp.P140_SS_NQ):
        k = min(cap, int(hit[:, q].sum()))
        assert len(set(hl[q, :k])) == k and set(hl[q, :k]) <= set(np.flatnonzero(hit[:, q]))
        assert (hl[q, k:] == -1).all()


# ---- chem-minhash-block-smem ----

def test_minhash():
    rng = np.random.default_rng(5)
    n = 6
    host = tp._p140_mh_args(n, rng)
    # a molecule with MH_MAX_FEAT features, one with none and one with a feature twice
    cnt = np.diff(host[0])
    cnt[1], cnt[2], cnt[3] = tp.P140_MH_MAX, 0, 2
    host[0] = np.r_[0, np.cumsum(cnt)].astype(np.int32)
    host[1] = rng.integers(0, 2 ** 32, int(host[0][-1]), dtype=np.uint64).astype(np.uint32)
    host[1][host[0][3] + 1] = host[1][host[0][3]]
    host[1][host[0][4] - 1] = 0xffffffff                  # the largest id: a * f needs all 64 bits
    host[4] = np.zeros(n * 128, np.uint32)
    out = run("probe/chem-minhash-block-smem", host, n)
    sig = tp._p140_mh_ref(host[0], host[1])
    assert (out[4] == sig).all()
    s = out[4].reshape(n, 128)
    assert (s[2] == 0xffffffff).all() and (s[[0, 1, 3, 4, 5]] < tp.P140_MH_P).all()


# ---- chem-descriptors-csr ----

def test_descriptors():
    n = 300                                                 # 3 blocks, the last partial
    host, (start, Z, x, y, z, mw, heavy, het, rg, nn), *_ = launch("probe/chem-descriptors-csr", n)
    rmw, rh, rt, rrg = tp._p140_ds_ref(*host[:5])
    np.testing.assert_allclose(mw, rmw, rtol=2e-6)
    assert (heavy == rh).all() and (het == rt).all() and het.sum() > 0
    np.testing.assert_allclose(rg, rrg, rtol=1e-5)


def test_descriptors_empty_molecule():
    # molecule 4 without atoms: zeros (the kernel skips the centroid), the rest as numpy
    rng = np.random.default_rng(6)
    n = 40
    host = tp._p140_ds_args(n, rng)
    cnt = np.diff(host[0])
    cnt[4] = 0
    host[0] = np.r_[0, np.cumsum(cnt)].astype(np.int32)
    out = run("probe/chem-descriptors-csr", host, n, symbols=tp._p140_ds_syms(n, rng))
    assert out[5][4] == 0 and out[6][4] == 0 and out[7][4] == 0 and out[8][4] == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        e = host[0][-1]
        rmw, rh, rt, rrg = tp._p140_ds_ref(host[0], *(a[:e] for a in host[1:5]))
    ok = cnt > 0
    np.testing.assert_allclose(out[5], rmw, rtol=2e-6)
    assert (out[6] == rh).all() and (out[7] == rt).all()
    np.testing.assert_allclose(out[8][ok], rrg[ok], rtol=1e-5)


# ---- chem-butina-counts-tiled ----

@pytest.mark.parametrize("policy, n", [("lockstep", 300), ("random", 40)])
def test_butina(policy, n):
    # a 3 x 10 (1 x 2) grid, the last row and column tiles partial
    host, (fp, bc, nb, cut, nn), *_ = launch("probe/chem-butina-counts-tiled", n, policy=policy)
    s = tp._p140_bt_sim(host[0])
    np.fill_diagonal(s, -1)
    assert ((s >= 0.6) & (s < 0.65)).any() and ((s >= 0.65) & (s < 0.7)).any()   # pairs on both sides
    assert (nb == tp._p140_bt_ref(host[0])).all()
    assert (nb == 0).any() and nb.max() > 3


# ---- chem-gaussian-shape-overlap ----

def test_shape_overlap():
    n = 200                                                 # 2 blocks, the last partial
    host, (ref, nref, conf, na, ov, nn), *_ = launch("probe/chem-gaussian-shape-overlap", n)
    np.testing.assert_allclose(ov, tp._p140_sh_ref(ref, conf, na), rtol=2e-5)
    # the reference against itself: the largest overlap (Vaa)
    rng = np.random.default_rng(7)
    host = tp._p140_sh_args(8, rng)
    c = host[2].reshape(8, 32, 4)
    c[0] = 0
    c[0, :24] = host[0].reshape(24, 4)
    host[3][0] = 24
    out = run("probe/chem-gaussian-shape-overlap", host, 8)
    v = tp._p140_sh_ref(host[0], host[2], host[3])
    np.testing.assert_allclose(out[4], v, rtol=2e-5)
