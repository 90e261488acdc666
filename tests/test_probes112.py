"""probe-unseen110's kernels (kernels_cuda/probes112.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/nlp-bpe-merge-rank", "probe/nlp-embbag-mean", "probe/nlp-attn-causal-probs",
       "probe/nlp-ngram-hash-count", "probe/nlp-beam-topk-prune", "probe/nlp-vocab-softmax-temp"]
BIG = 2 ** 31 - 1


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen110"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes112.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # bpe: Zipf ids, a half-full table of 16K merges ranked 0 .. M-1, ~24% of pairs merges,
    # ~14% of positions merging, short probe sequences
    n = 1 << 16
    tok, out, keys, ranks, new, mask, nn = tp._p112_bpe_args(n, rng)
    assert tok.dtype == np.int32 and tok.min() >= 0 and tok.max() < tp.P112_BPE_VOCAB and nn == n
    assert mask == len(keys) - 1 == (1 << tp.P112_BPE_TBITS) - 1
    live = keys >= 0
    M = tp.P112_BPE_MERGES
    assert live.sum() == M and sorted(ranks[live]) == list(range(M))
    assert (new[live] == tp.P112_BPE_VOCAB + ranks[live]).all()
    a, b = keys[live] >> 16, keys[live] & 0xFFFF
    assert a.max() < tp.P112_BPE_VOCAB and b.max() < tp.P112_BPE_VOCAB and len(set(keys[live])) == M
    dist = (np.flatnonzero(live) - tp._p112_bpe_slot0(keys[live])) % len(keys)        # linear-probe distance
    assert dist.mean() < 1.0 and dist.max() < 64
    assert abs((tok == 0).mean() - 1 / np.sum(1 / np.arange(1, tp.P112_BPE_VOCAB + 1))) < 0.01
    r = tp._p112_bpe_ranks(tok, keys, ranks)
    _, here = tp._p112_bpe_ref(tok, keys, ranks, new)
    assert 0.2 < (r < BIG).mean() < 0.28 and 0.12 < here.mean() < 0.17
    assert np.median(r[r < BIG]) < M / 4                      # the frequent pairs: low ranks
    # embbag: lengths 0 .. 40 (mean 20), Zipf rows
    n = 4096
    table, idx, off, out, nn = tp._p112_emb_args(n, rng)
    lens = np.diff(off)
    assert table.dtype == np.float32 and len(table) == tp.P112_EMB_ROWS * tp.P112_EMB_D
    assert off.dtype == idx.dtype == np.int32 and off[0] == 0 and off[-1] == len(idx) and nn == n
    assert lens.min() == 0 and lens.max() == 40 and abs(lens.mean() - 20) < 0.5
    assert idx.min() >= 0 and idx.max() < tp.P112_EMB_ROWS and 0.06 < (idx == 0).mean() < 0.09
    assert len(out) == n * tp.P112_EMB_D and not out.any()
    # attn: N(0, 1) Q and K, 1 / sqrt(32)
    Q, K, P, scale, nn = tp._p112_att_args(16, rng)
    assert len(Q) == len(K) == 16 * 64 * 32 and len(P) == 16 * 64 * 64 and scale == np.float32(32 ** -0.5)
    assert abs(Q.std() - 1) < 0.05
    # ngram: Zipf(1) over 32K ids, the top one ~9%
    tok, cnt, bits, nn = tp._p112_ng_args(1 << 18, rng)
    assert tok.dtype == np.int32 and tok.max() < tp.P112_NG_VOCAB and cnt.dtype == np.uint32
    assert len(cnt) == 1 << bits and 0.085 < (tok == 0).mean() < 0.097
    c = tp._p112_ng_ref(tok)
    assert c.sum() == 3 * len(tok) - 3 and c.max() >= (tok == 0).sum()
    # beam: each row of log-probs a distribution; beams sorted descending in (-5, -4)
    lp, bs, os_, ot, op, vocab = tp._p112_bm_args(3, rng)
    assert vocab == tp.P112_BM_VOCAB and len(lp) == 3 * 4 * vocab and lp.dtype == bs.dtype == np.float32
    lse = np.log(np.exp(lp.reshape(12, vocab).astype(np.float64)).sum(axis=1))
    assert np.abs(lse).max() < 1e-4 and (lp < 0).all()
    b = bs.reshape(3, 4)
    assert (np.diff(b, axis=1) <= 0).all() and b.min() > -5 and b.max() < -4
    # softmax: N(0, 9) logits, temperature 0.8
    x, p, lse, it, vocab = tp._p112_sm_args(4, rng)
    assert len(x) == 4 * vocab and vocab == 32000 and it == np.float32(1.25) and 2.9 < x.std() < 3.1


# ---- nlp-bpe-merge-rank ----

def bpe_decode(out, keys, new):
    """Undo a merge pass: each merged id back into its pair, the holes dropped."""
    live = keys >= 0
    pair = dict(zip(new[live].tolist(), keys[live].tolist()))
    seq = []
    for t in out.tolist():
        if t >= tp.P112_BPE_VOCAB:
            seq += [pair[t] >> 16, pair[t] & 0xFFFF]
        elif t >= 0:
            seq.append(t)
    return np.array(seq)


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_bpe_merge(policy):
    n = 1000                                                # 4 blocks, the last partial
    host, after, *_ = launch("probe/nlp-bpe-merge-rank", n, policy=policy)
    tok, keys, ranks, new = host[0], host[2], host[3], host[4]
    ref, here = tp._p112_bpe_ref(tok, keys, ranks, new)
    out = after[1]
    assert (out == ref).all() and 0.08 < here.mean() < 0.2
    assert not (here[1:] & here[:-1]).any() and (out == -1).sum() == here.sum()
    assert (bpe_decode(out, keys, new) == tok).all()
    assert all(here[k:k + 256].sum() > 10 for k in range(0, n, 256))      # in every block


def test_bpe_edge_cases():
    # a run of one merge pair (a, a) (only the first of a run of equal ranks merges), a
    # chain x y z where (x, y) and (y, z) both merge (the lower rank wins), pairs straddling
    # the block edges, the last pair, and an array shorter than a block; u is in no merge
    rng = np.random.default_rng(4)
    keys, ranks, new = tp._p112_bpe_table(rng)
    live = keys >= 0
    k = keys[live]
    rank = dict(zip(k.tolist(), ranks[live].tolist()))
    used = set((k >> 16).tolist()) | set((k & 0xFFFF).tolist())
    u = next(t for t in range(tp.P112_BPE_VOCAB - 1, 0, -1) if t not in used)
    a = int(k[(k >> 16) == (k & 0xFFFF)][0] >> 16)
    x, y, z = next((kk >> 16, kk & 0xFFFF, zz) for kk in sorted(rank, key=rank.get)
                   for zz in range(tp.P112_BPE_VOCAB)
                   if ((kk & 0xFFFF) << 16 | zz) in rank and len({kk >> 16, kk & 0xFFFF, zz}) == 3)
    n = 600
    tok = tp._p112_zipf(n, rng, tp.P112_BPE_VOCAB, tp.P112_BPE_ZIPF)
    tok[9:16] = [u, a, a, a, a, a, u]
    tok[39:44] = [u, x, y, z, u]
    tok[254:258] = [u, x, y, u]                             # (x, y) over the first block edge
    tok[510:515] = [u, a, a, a, u]                          # (a, a) at 511, then 512 absorbed
    tok[-3:] = [u, x, y]                                    # the last pair
    h = [tok, np.zeros(n, np.int32), keys, ranks, new, np.int32(len(keys) - 1), np.int32(n)]
    out = run("probe/nlp-bpe-merge-rank", h, n, policy="random")[1]
    ref, here = tp._p112_bpe_ref(tok, keys, ranks, new)
    assert (out == ref).all() and (bpe_decode(out, keys, new) == tok).all()
    assert here[10] and not here[11:15].any() and list(out[10:15]) == [new[live][k == (a << 16 | a)][0], -1, a, a, a]
    first = rank[x << 16 | y] <= rank[y << 16 | z]
    assert here[40] == first and here[41] == (not first)
    assert here[255] and out[256] == -1 and here[511] and out[512] == -1 and out[513] == a
    assert here[n - 2] and out[n - 1] == -1
    t = tok[:7].copy()
    h = [t, np.zeros(7, np.int32), keys, ranks, new, np.int32(len(keys) - 1), np.int32(7)]
    out = run("probe/nlp-bpe-merge-rank", h, 7)[1]
    assert (out == tp._p112_bpe_ref(t, keys, ranks, new)[0]).all()


# ---- nlp-embbag-mean ----

def test_embbag_mean():
    n = 37                                                  # 19 blocks, the last half empty
    host, after, *_ = launch("probe/nlp-embbag-mean", n)
    ref = tp._p112_emb_ref(*host[:3])
    assert (after[3].reshape(n, -1) == ref).all()
    assert (after[0] == host[0]).all() and np.abs(ref).max() > 0


def test_embbag_empty_and_repeats():
    # empty bags (first, last, two in a row), a bag of one row repeated, a bag of one row
    rng = np.random.default_rng(5)
    n = 9
    host = tp._p112_emb_args(n, rng)
    lens = np.array([0, 5, 0, 0, 1, 40, 3, 17, 0])
    off = np.zeros(n + 1, np.int32)
    off[1:] = np.cumsum(lens)
    idx = tp._p112_zipf(off[-1], rng, tp.P112_EMB_ROWS, tp.P112_EMB_ZIPF)
    idx[off[5]:off[6]] = 12345
    idx[off[4]] = tp.P112_EMB_ROWS - 1
    h = [host[0], idx, off, np.zeros(n * tp.P112_EMB_D, np.float32), np.int32(n)]
    out = run("probe/nlp-embbag-mean", h, n)[3].reshape(n, -1)
    ref = tp._p112_emb_ref(host[0], idx, off)
    T = host[0].reshape(-1, tp.P112_EMB_D)
    assert (out == ref).all() and not out[[0, 2, 3, 8]].any()
    assert (out[4] == T[-1]).all()
    np.testing.assert_allclose(out[5], T[12345], rtol=1e-5)


# ---- nlp-attn-causal-probs ----

def test_attn_causal():
    n = 3
    host, after, *_ = launch("probe/nlp-attn-causal-probs", n)
    ref = tp._p112_att_ref(host[0], host[1], host[3])
    P = after[2].reshape(ref.shape)
    np.testing.assert_allclose(P, ref, rtol=2e-6, atol=1e-7)
    assert (P[:, np.triu_indices(64, 1)[0], np.triu_indices(64, 1)[1]] == 0).all()
    assert (P[:, 0, 0] == 1).all()
    np.testing.assert_allclose(P.sum(axis=2), 1, atol=1e-5)


def test_attn_large_scores():
    # scores of sd 16, up to ~+-70 (no overflow: the row's max subtracted), one head's Q zero (uniform rows)
    rng = np.random.default_rng(6)
    host = tp._p112_att_args(2, rng)
    host[0] *= np.float32(16)
    host[0][:64 * 32] = 0
    out = run("probe/nlp-attn-causal-probs", host, 2)[2].reshape(2, 64, 64)
    ref = tp._p112_att_ref(host[0], host[1], host[3])
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-7)          # float32 scores of ~70: ~1e-5 off
    np.testing.assert_allclose(out[0, 9, :10], 0.1, rtol=1e-6)
    assert (out[1].max(axis=1) > 0.99).mean() > 0.3               # peaked rows


# ---- nlp-ngram-hash-count ----

# 3000: 12 blocks, the last partial; random (slow): the first 600 tokens of the same ids, 3
# blocks, the last partial (the hot ids' atomics still collide within and across warps)
@pytest.mark.parametrize("policy, m", [("lockstep", 3000), ("random", 600)])
def test_ngram_count(policy, m):
    n = 3000
    if m == n:
        host, after, *_ = launch("probe/nlp-ngram-hash-count", n, policy=policy)
    else:
        host = tp.get("probe/nlp-ngram-hash-count").args(n, np.random.default_rng(0))
    ref = tp._p112_ng_ref(host[0])
    assert ref.sum() == 3 * n - 3
    assert ref.max() >= (host[0] == 0).sum() > 200            # the hot unigram's slot
    if m < n:
        tok = host[0][:m].copy()
        after = run("probe/nlp-ngram-hash-count", [tok, np.zeros_like(host[1]), host[2], np.int32(m)], m,
                    policy=policy)
        ref = tp._p112_ng_ref(tok)
        assert ref.max() >= (tok == 0).sum() > 40 and ref.sum() == 3 * m - 3
    assert (after[1] == ref).all()


def test_ngram_small_table():
    # a 2^8-slot table (collisions everywhere), one repeated token, n < a warp
    rng = np.random.default_rng(7)
    for tok in (tp._p112_zipf(700, rng, tp.P112_NG_VOCAB, 1.0), np.full(300, 5, np.int32),
                np.array([1, 2, 3, 4, 5], np.int32)):
        m = len(tok)
        h = [tok, np.zeros(256, np.uint32), np.int32(8), np.int32(m)]
        out = run("probe/nlp-ngram-hash-count", h, m, policy="random")[1]
        assert (out == tp._p112_ng_ref(tok, bits=8)).all() and out.sum() == 3 * m - 3


# ---- nlp-beam-topk-prune ----

def check_beam(host, out, vocab):
    s, tk, par = tp._p112_bm_ref(host[0], host[1], vocab=vocab)
    assert (out[2].reshape(-1, 4) == s).all()
    assert (out[3].reshape(-1, 4) == tk).all() and (out[4].reshape(-1, 4) == par).all()
    return s, par


def test_beam_topk():
    n = 2
    host, after, *_ = launch("probe/nlp-beam-topk-prune", n)
    s, par = check_beam(host, after, tp.P112_BM_VOCAB)
    assert (np.diff(s, axis=1) <= 0).all() and len(set(par.ravel())) > 1   # children of several beams


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_beam_ties_small_vocab(policy):
    # log-probs and scores on a 1/4 grid (many equal scores: the lower candidate first), vocab 300 (a
    # thread's sweep 1 or 2 trips), equal beam scores, and one item whose best four are
    # all the last beam's
    rng = np.random.default_rng(8)
    vocab, n = 300, 3
    host = tp._p112_bm_args(n, rng, vocab=vocab)
    host[0] = np.round(host[0] * 4) / np.float32(4)
    host[1] = np.round(host[1] * 4) / np.float32(4)
    host[1][4:8] = np.float32(-4.5)
    host[0][(2 * 4 + 3) * vocab + 17: (2 * 4 + 3) * vocab + 21] = np.float32(0)
    out = run("probe/nlp-beam-topk-prune", host, n, policy=policy)
    s, par = check_beam(host, out, vocab)
    assert (par[2] == 3).all() and (out[3].reshape(-1, 4)[2] == [17, 18, 19, 20]).all()
    sc = (host[1].reshape(n, 4)[:, :, None] + host[0].reshape(n, 4, vocab)).reshape(n, -1)
    assert all((sc[i] == s[i, -1]).sum() > 1 for i in range(2))      # ties at the cut


# ---- nlp-vocab-softmax-temp ----

def test_vocab_softmax():
    n = 3
    host, after, *_ = launch("probe/nlp-vocab-softmax-temp", n)
    p, lse = tp._p112_sm_ref(host[0], host[3])
    np.testing.assert_allclose(after[1].reshape(p.shape), p, rtol=1e-5, atol=1e-12)
    np.testing.assert_allclose(after[2], lse, rtol=1e-6)
    np.testing.assert_allclose(after[1].reshape(p.shape).sum(axis=1), 1, atol=1e-5)


def test_vocab_softmax_odd_vocab():
    # vocab 1000 (not a multiple of the block: a partial last trip), logits up to ~300 at
    # temperature 0.8 (expf would overflow without the max), a constant row
    rng = np.random.default_rng(9)
    vocab, n = 1000, 2
    host = tp._p112_sm_args(n, rng, vocab=vocab)
    host[0][:vocab] *= np.float32(30)
    host[0][vocab:] = np.float32(-7)
    out = run("probe/nlp-vocab-softmax-temp", host, n)
    p, lse = tp._p112_sm_ref(host[0], host[3], vocab=vocab)
    assert np.isfinite(out[1]).all() and np.isfinite(out[2]).all()
    np.testing.assert_allclose(out[1].reshape(p.shape), p, rtol=1e-5, atol=1e-12)
    np.testing.assert_allclose(out[2], lse, rtol=1e-6)
    np.testing.assert_allclose(out[1][vocab:], 1e-3, rtol=1e-6)
