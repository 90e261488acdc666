"""probe-unseen103's kernels (kernels_cuda/probes105.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/bm25-postings-atomicadd", "probe/postings-intersect-bsearch", "probe/df-count-hot-smem",
       "probe/topk-query-smem-merge", "probe/tfidf-cosine-warp-csr", "probe/minhash-shingle-sig"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen103"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes105.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 16
    # bm25: 6 lists of distinct ascending docs with the stated shares, idf from their lengths
    docs, tf, off, idf, dl, sc, avgdl, k1, b, nt, nn = tp._p105_bm_args(n, rng)
    assert nt == 6 and nn == n and off[-1] == n and len(dl) == len(sc) == 2 * n and not sc.any()
    assert np.allclose(np.diff(off) / n, tp.P105_BM_FRAC, atol=1e-4)
    for t in range(6):
        lst = docs[off[t]:off[t + 1]]
        assert (np.diff(lst) > 0).all() and lst.min() >= 0 and lst.max() < 2 * n
    assert (np.diff(idf) > 0).all() and idf.min() > 0                      # shorter lists, rarer terms
    assert tf.min() == 1 and tf.max() <= 20 and 1.9 < tf.mean() < 2.1
    assert 10 <= dl.min() and dl.max() <= 5000 and abs(avgdl - dl.mean()) < 1e-3 and 250 < avgdl < 350
    # intersect: both ascending, a 8 times shorter, ~1/4 of a in b, about the same range
    a, na, bl, nb, out, cnt = tp._p105_is_args(n, rng)
    assert na == n and nb == 8 * n and (np.diff(a) > 0).all() and (np.diff(bl) > 0).all()
    assert 0.23 < np.isin(a, bl).mean() < 0.27 and abs(a[-1] / bl[-1] - 1) < 0.02
    assert not out.any() and cnt[0] == 0
    # df: Zipf term ids, ~63% below DF_HOT
    terms, df, _ = tp._p105_df_args(1 << 20, rng)
    assert terms.dtype == np.int32 and terms.min() >= 0 and terms.max() < tp.P105_VOCAB and not df.any()
    assert 0.6 < (terms < tp.P105_DF_HOT).mean() < 0.66
    c = np.bincount(terms, minlength=8)
    assert 1.8 < c[0] / c[1] < 2.2 and 2.7 < c[0] / c[2] < 3.3                # rank r ~ 1 / r
    # topk: gamma scores, NC a query
    s, tv, ti, q = tp._p105_tk_args(8, rng)
    assert s.shape == (8 * tp.P105_TK_NC,) and s.min() > 0 and abs(s.mean() - 4) < 0.1 and q == 8
    # tfidf: CSR rows of distinct ascending terms, norms right
    ptr, col, val, norm, qw, qn, sim, nd = tp._p105_tf_args(4096, rng)
    lens = np.diff(ptr)
    assert ptr[0] == 0 and lens.min() >= 1 and lens.max() <= tp.P105_TF_LEN[1] and 50 < lens.mean() < 60
    for r in range(0, 4096, 97):
        assert (np.diff(col[ptr[r]:ptr[r + 1]]) > 0).all()
    assert val.min() > 0 and qw.min() >= 0 and len(qw) == tp.P105_VOCAB
    np.testing.assert_allclose(norm[:5], [np.linalg.norm(val[ptr[r]:ptr[r + 1]].astype(np.float64))
                                          for r in range(5)], rtol=1e-6)
    assert abs(qn - np.linalg.norm(qw.astype(np.float64))) < 1e-3
    # minhash: every 4th document a near copy; signature agreement estimates the Jaccard
    tok, ha, hb, sig, nd = tp._p105_ml_args(256, rng)
    T = tok.reshape(256, tp.P105_ML_LEN)
    assert ha.min() >= 1 and ha.max() < tp.P105_MERSENNE and hb.max() < tp.P105_MERSENNE
    same = (T[3::4] == T[2::4]).mean()
    assert 0.94 < same < 0.97 and (T[1::4] == T[0::4]).mean() < 0.1
    sh = tp._p105_shingles(tok)
    jac = np.array([len(np.intersect1d(sh[d], sh[d - 1])) / len(np.union1d(sh[d], sh[d - 1]))
                    for d in range(3, 256, 4)])
    S = tp._p105_ml_ref(tok, ha, hb)
    est = (S[3::4] == S[2::4]).mean(axis=1)
    assert 0.5 < jac.mean() < 0.85 and abs(est.mean() - jac.mean()) < 0.03
    assert (S[1::4] == S[0::4]).mean() < 0.05


# ---- bm25-postings-atomicadd ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_bm25_postings(policy):
    n = 1500                                                # 6 blocks, the last partial
    host, out, *_ = launch("probe/bm25-postings-atomicadd", n, policy=policy)
    ref = tp._p105_bm_ref(*host[:5], host[6])
    assert (np.bincount(host[0], minlength=len(ref)) > 1).sum() > 100       # docs in several lists
    np.testing.assert_allclose(out[5], ref, rtol=1e-5, atol=1e-6)
    assert ((out[5] > 0) == (ref > 0)).all()


# ---- postings-intersect-bsearch ----

def test_intersect_bsearch():
    n = 700
    host, (a, na, b, nb, out, cnt), *_ = launch("probe/postings-intersect-bsearch", n)
    ref = np.intersect1d(host[0], host[2])
    assert 100 < len(ref) < 250 and cnt[0] == len(ref)
    assert (np.sort(out[:cnt[0]]) == ref).all() and not out[cnt[0]:].any()


def test_intersect_edges():
    # a's entries below and above all of b, b's first and last, hits and misses between, and
    # a b of one entry (the grid sized for n, na below it)
    rng = np.random.default_rng(3)
    n = 100
    b = tp._p105_is_args(n, rng)[2] + 5
    a = np.unique(np.r_[0, b[0], b[-1], b[-1] + 10, rng.choice(b, 30), rng.integers(1, b[-1], 50)]).astype(np.int32)
    host = [a, np.int32(len(a)), b, np.int32(len(b)), np.zeros(n, np.int32), np.zeros(1, np.int32)]
    out = run("probe/postings-intersect-bsearch", host, n, policy="random")
    ref = np.intersect1d(a, b)
    assert out[5][0] == len(ref) > 30 and (np.sort(out[4][:len(ref)]) == ref).all()
    host = [a, np.int32(len(a)), b[:1].copy(), np.int32(1), np.zeros(n, np.int32), np.zeros(1, np.int32)]
    out = run("probe/postings-intersect-bsearch", host, n)
    assert out[5][0] == 1 and out[4][0] == b[0]


# ---- df-count-hot-smem ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_df_count(policy):
    # 36 blocks, the last partial (random: 2 blocks, the second partial, their atomics interleaved)
    n = 9000 if policy == "lockstep" else 300
    host, (terms, df, _), *_ = launch("probe/df-count-hot-smem", n, policy=policy)
    assert (terms >= tp.P105_DF_HOT).mean() > 0.3
    assert (df == np.bincount(terms, minlength=tp.P105_VOCAB)).all()


def test_df_grid_stride():
    # more entries than the grid's threads: each thread several of them
    n = 1 << 19
    assert tp._p105_df_grid(n) == tp.P105_DF_BLOCKS and n > tp.P105_DF_BLOCKS * 256
    host, (terms, df, _), *_ = launch("probe/df-count-hot-smem", n)
    assert (df == np.bincount(terms, minlength=tp.P105_VOCAB)).all()


# ---- topk-query-smem-merge ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_topk_query(policy):
    n = 2 if policy == "lockstep" else 1                    # random: one query's block, its 8 warps merging
    host, (s, tv, ti, _), *_ = launch("probe/topk-query-smem-merge", n, policy=policy)
    v, i = tp._p105_tk_ref(s)
    assert (tv.reshape(n, -1) == v).all() and (ti.reshape(n, -1) == i).all()


def test_topk_ties():
    # many equal scores (ties to the lower candidate) and a query whose best sit in one thread
    rng = np.random.default_rng(4)
    n = 2
    host = tp._p105_tk_args(n, rng)
    s = host[0].reshape(n, tp.P105_TK_NC)
    s[0] = np.round(s[0])                                   # a few distinct values
    s[1] = 0.0
    s[1, 7::tp.P105_TK_THREADS] = np.arange(16, dtype=np.float32) + 1
    out = run("probe/topk-query-smem-merge", host, n)
    v, i = tp._p105_tk_ref(host[0])
    assert (out[1].reshape(n, -1) == v).all() and (out[2].reshape(n, -1) == i).all()
    assert (i[1] == 7 + 256 * np.arange(15, 5, -1)).all() and len(np.unique(v[0])) < 10


# ---- tfidf-cosine-warp-csr ----

def test_tfidf_cosine():
    n = 70                                                  # 9 blocks of 8 warps, the last partial
    host, out, *_ = launch("probe/tfidf-cosine-warp-csr", n)
    ref = tp._p105_tf_ref(*host[:6])
    np.testing.assert_allclose(out[6], ref, rtol=2e-5)
    assert 0 < ref.min() and ref.max() < 1


def test_tfidf_empty_and_long_rows():
    # an empty document (similarity 0) and one longer than 3 warps' strides
    rng = np.random.default_rng(5)
    n = 20
    ptr, col, val, norm, qw, qn, sim, nn = tp._p105_tf_args(n, rng)
    lens = np.diff(ptr)
    lens[3], lens[4] = 0, 150
    ptr = np.r_[0, np.cumsum(lens)].astype(np.int32)
    col = rng.choice(tp.P105_VOCAB, ptr[-1]).astype(np.int32)
    val = rng.random(ptr[-1]).astype(np.float32)
    r = np.repeat(np.arange(n), lens)
    norm = np.sqrt(np.bincount(r, weights=val.astype(np.float64) ** 2, minlength=n)).astype(np.float32)
    host = [ptr, col, val, norm, qw, qn, sim, nn]
    out = run("probe/tfidf-cosine-warp-csr", host, n)
    ref = tp._p105_tf_ref(*host[:6])
    assert out[6][3] == 0 and ref[4] > 0
    np.testing.assert_allclose(out[6], ref, rtol=2e-5)


# ---- minhash-shingle-sig ----

def test_minhash_sig():
    n = 6
    host, (tok, ha, hb, sig, _), *_ = launch("probe/minhash-shingle-sig", n)
    ref = tp._p105_ml_ref(tok, ha, hb)
    assert (sig.reshape(n, -1) == ref).all()
    assert (ref[3] == ref[2]).mean() > 0.4 and (ref[1] == ref[0]).mean() < 0.1    # doc 3 a near copy of 2
