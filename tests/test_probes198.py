"""probe-unseen196's kernels (kernels_cuda/probes198.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/char-trigram-fnv-atomic", "probe/spell-levenshtein-row", "probe/pos-viterbi-45-smem",
       "probe/lm-backoff-hash-probe", "probe/bpe-pair-smem-hash", "probe/analogy-topk-tile"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen196"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes198.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # trigram: lower-case words, spaces and newlines; "the" the commonest word
    text, counts, nb, n = tp._p198_tg_args(1 << 20, rng)
    assert text.dtype == np.uint8 and len(text) == n == 1 << 20 and nb == np.uint32(2000000) and not counts.any()
    assert set(np.unique(text)) <= set(range(97, 123)) | {32, 10}
    sep = (text == 32) | (text == 10)
    assert 0.14 < sep.mean() < 0.2 and abs((text == 10).sum() / sep.sum() - 1 / 12) < 0.01
    words = bytes(text).split()
    vals, cnt = np.unique(words, return_counts=True)
    assert vals[cnt.argmax()] == b"the" and 0.02 < cnt.max() / len(words) < 0.04
    assert np.mean([w.endswith(b"ing") for w in words]) > 0.02                 # affixes
    c = np.sort(tp._p198_tg_ref(text, nb))[::-1]
    assert 0.78 < c.sum() / n < 0.88 and c[0] > 0.008 * c.sum() and (c > 0).sum() < 20000      # hot buckets
    # levenshtein: misspellings 1-2 edits from their sources, candidates of similar lengths
    W, L, qa, qb, src = tp._p198_lv_data(4096, rng, dict_size=1 << 14, cand=64)
    D = 1 << 14
    assert (np.diff(L[:D]) >= 0).all() and 2 <= L.min() and L.max() <= 24 and abs(L[:D].mean() - 8.4) < 0.2
    assert len(qa) == len(qb) == 4096 and (qa == np.repeat(np.arange(D, D + 64), 64)).all() and qb.max() < D
    assert all(src[k] in qb[64 * k:64 * k + 64] for k in range(64))
    assert (np.abs(L[qb] - L[qa]) <= 2).mean() > 0.98
    chars, off = tp._p198_lv_pack(W, L)
    d = tp._p198_lv_ref(chars, off, np.arange(D, D + 64), src)
    assert d.max() <= 4 and 0.5 < (d == 1).mean() < 0.95
    # viterbi: a proper HMM, sentences of the right lengths, Zipf words, ambiguous ones
    logpi, logA, logB = tp._p198_vt_model(rng, 4000)
    A, B = np.exp(logA.astype(np.float64)).reshape(45, 45), np.exp(logB.astype(np.float64)).reshape(4000, 45)
    assert abs(np.exp(logpi.astype(np.float64)).sum() - 1) < 1e-5 and np.allclose(A.sum(axis=1), 1, atol=1e-5)
    assert np.allclose(B.sum(axis=0), 1, atol=1e-4) and ((B > 1e-2 / 4000).sum(axis=1) > 1).mean() > 0.3
    w, tag = tp._p198_vt_sample(logpi, logA, logB, np.full(2000, 25), rng)
    f = np.array(list(tp.P198_VT_FREQ.values()))
    ft = np.bincount(tag, minlength=45) / len(tag)
    assert ft.argmax() == 0 and np.corrcoef(ft, f)[0, 1] > 0.9                  # NN the commonest tag
    words, off, *_ = tp._p198_vt_args(4096, rng)
    ln = np.diff(off)
    assert 19 <= np.median(ln) <= 21 and ln.max() <= 128 and ln.min() >= 1 and len(words) == off[-1]
    c = np.sort(np.bincount(words))[::-1]
    assert c[0] > 0.01 * len(words) and c[:100].sum() > 0.2 * len(words)
    # lm: sentences, tables at most half full with every key found where it hashes
    tok, tri, tm, big, bm, ulp, ubow, lp, tot, n = tp._p198_lm_args(1 << 16, rng, train=20000)
    assert tok[0] == 0 and abs((tok == 0).sum() - (tok == 1).sum()) <= 1 and tok.max() < 1 << 17
    assert 19 < n / (tok == 0).sum() - 2 < 26 and tot[0] == 0
    for t, m in ((tri, tm), (big, bm)):
        used = t["key"] != np.uint64(0xFFFFFFFFFFFFFFFF)
        assert len(t) == m + 1 and 0.2 < used.mean() <= 0.5
    lpr, how = tp._p198_lm_ref(tok, tri, big, ulp, ubow)
    h = np.bincount(how, minlength=4) / n
    assert 0.1 < h[3] < 0.4 and 0.2 < h[2] < 0.5 and 0.2 < h[1] < 0.5 and (lpr <= 0).all()
    # bpe: words of 1 .. ~10 symbols, a chunk's distinct pairs well under BP_SLOTS
    tok = tp._p198_bp_corpus(1 << 21, rng)
    x = tok.astype(np.int64)
    assert tok.dtype == np.int32 and x.min() == -1 and x.max() < 27 + 100 + 50 and 0.65 < (x >= 0).mean() < 0.85
    ok = (x[:-1] >= 0) & (x[1:] >= 0)
    key = x[:-1] << 16 | x[1:]
    blk = np.arange(len(key)) // tp.P198_BP_CHUNK
    dc = np.bincount(np.unique(blk[ok] << 32 | key[ok]) >> 32)
    k, cn = tp._p198_bp_ref(tok)
    per = ok.sum() / len(dc)                                                    # pairs a chunk
    assert dc.max() < 0.5 * tp.P198_BP_SLOTS and 3000 < per < 5000 and dc.mean() < 0.5 * per
    assert len(k) < 0.25 * (1 << tp.P198_BP_GBITS) and cn.max() > 0.003 * cn.sum()
    # analogy: unit vectors, clustered, the planted answer usually first
    E, ex, ans = tp._p198_an_data(512, rng)
    E = E.astype(np.float64)
    assert E.shape == (30000, 100) and np.allclose(np.linalg.norm(E, axis=1), 1, atol=1e-6)
    assert (ex[:, 0] < 10000).all() and (ex[:, 1] >= 10000).all() and (ex[:, 0] != ex[:, 2]).all()
    q = E[ex[:, 1]] - E[ex[:, 0]] + E[ex[:, 2]]
    S = q @ E.T
    S[np.arange(512)[:, None], ex] = -np.inf
    assert 0.55 < (S.argmax(axis=1) == ans).mean() < 0.85
    G = E[:2000] @ E[:2000].T
    assert 0.03 < np.median(G) < 0.15 and np.percentile(G, 99) > 0.25


# ---- char-trigram-fnv-atomic ----

def _fnv(s):
    h = 2166136261
    for ch in s.encode():
        h = ((h ^ ch) * 16777619) & 0xFFFFFFFF
    return h


@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (1000, "random")])
def test_char_trigram_fnv(n, policy):
    host, out, *_ = launch("probe/char-trigram-fnv-atomic", n, policy=policy)
    ref = tp._p198_tg_ref(host[0], host[2])
    assert (out[1] == ref).all() and ref.max() >= 5 and 0.75 * n < ref.sum() < 0.9 * n
    # by hand: the trigrams of "a b\nthe cat" not centred on a space or a newline
    s = "a b\nthe cat"
    h = [np.frombuffer(s.encode(), np.uint8).copy(), np.zeros(1000, np.uint32), np.uint32(1000), np.int32(len(s))]
    out = run("probe/char-trigram-fnv-atomic", h, len(s))[1]
    want = np.bincount([_fnv(t) % 1000 for t in (" b\n", "\nth", "the", "he ", " ca", "cat")], minlength=1000)
    assert (out == want).all() and out.sum() == 6


# ---- spell-levenshtein-row ----

def test_levenshtein_spell():
    n = 600
    rng = np.random.default_rng(1)
    h = tp._p198_lv_args(n, rng, dict_size=4096, cand=16)
    out = run("probe/spell-levenshtein-row", h, n)[4]
    ref = tp._p198_lv_ref(*h[:4])
    assert (out == ref).all() and (ref <= 2).sum() >= 0.8 * n / 16 and ref.max() > 6     # the sources near
    # textbook pairs, an empty word and the longest ones
    words = ["kitten", "sitting", "flaw", "lawn", "", "abc", "ab", "ba", "gumbo", "gambol", "a" * 24, "b" + "a" * 22]
    W = np.zeros((len(words), 24), np.uint8)
    for k, w in enumerate(words):
        W[k, :len(w)] = np.frombuffer(w.encode(), np.uint8)
    chars, off = tp._p198_lv_pack(W, np.array([len(w) for w in words]))
    qa = np.array([0, 2, 4, 5, 6, 8, 10, 0, 11], np.int32)
    qb = np.array([1, 3, 5, 4, 7, 9, 11, 0, 10], np.int32)
    h = [chars, off, qa, qb, np.zeros(len(qa), np.int32), np.int32(len(qa))]
    out = run("probe/spell-levenshtein-row", h, len(qa))[4]
    assert list(out) == [3, 2, 3, 3, 2, 2, 2, 0, 2] and (out == tp._p198_lv_ref(chars, off, qa, qb)).all()


# ---- pos-viterbi-45-smem ----

def test_viterbi_pos():
    rng = np.random.default_rng(2)
    n = 4
    h = tp._p198_vt_args(n, rng, vocab=2000)
    out = run("probe/pos-viterbi-45-smem", h, n)
    tags, score = tp._p198_vt_ref(*h[:5])
    assert np.diff(h[1]).sum() > 40
    # the same float32 sums and first maxima: exactly
    assert (out[5] == tags).all() and (out[6] == score).all()
    # sentences of 1, 2 and 3 words against every tag path, in float64
    w = rng.integers(0, 2000, 6).astype(np.int32)
    off = np.array([0, 1, 3, 6], np.int32)
    h2 = [w, off, *h[2:5], np.zeros(6, np.int32), np.zeros(3, np.float32)]
    out = run("probe/pos-viterbi-45-smem", h2, 3)
    pi = h[2].astype(np.float64)
    A = h[3].astype(np.float64).reshape(45, 45)
    B = h[4].astype(np.float64).reshape(-1, 45)
    for s in range(3):
        ws = w[off[s]:off[s + 1]]
        tot = pi + B[ws[0]]
        for t in range(1, len(ws)):
            tot = tot[..., None] + A.reshape((1,) * (t - 1) + (45, 45)) + B[ws[t]]
        best = np.unravel_index(tot.argmax(), tot.shape)
        second = np.sort(tot.ravel())[-2]
        assert tot.max() - second > 1e-4                                 # no near tie
        assert list(out[5][off[s]:off[s + 1]]) == list(best) and abs(out[6][s] - tot.max()) < 1e-4


# ---- lm-backoff-hash-probe ----

@pytest.mark.parametrize("n, policy", [(3000, "lockstep"), (1200, "random")])
def test_lm_backoff_score(n, policy):
    rng = np.random.default_rng(3)
    h = tp._p198_lm_args(n, rng, train=3000)
    out = run("probe/lm-backoff-hash-probe", h, n, policy=policy)
    lp, how = tp._p198_lm_ref(h[0], h[1], h[3], h[5], h[6])
    assert min(np.bincount(how)) > n / 100                              # every path taken
    # at most 3 float32 terms of magnitude < 8 summed: within 2 roundings of 16
    assert np.abs(out[7] - lp).max() < 4e-6
    # float32 warp sums (|sum| < 260) then double adds: 1e-4 a warp
    assert abs(out[8][0] - lp.sum()) < 1e-4 * n / 32


def test_lm_collisions():
    """A 16-slot bigram table with a chain through its last slot and back to slot 0: keys
    found past colliding ones, a missing key's probe walking the chain to an empty slot."""
    V = tp.P198_LM_V
    v, w = np.meshgrid(np.arange(2, 60), np.arange(2, 60), indexing="ij")
    keys = (v.ravel().astype(np.uint64) << np.uint64(17)) | w.ravel().astype(np.uint64)
    with np.errstate(over="ignore"):
        home = ((keys * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)).astype(np.int64) & 15
    chain = keys[home == 15][:3]
    other = keys[(home > 3) & (home < 14)][:5]
    missing = keys[home == 15][3]
    big, bm = tp._p198_lm_table(np.concatenate([chain, other]), np.float32(-np.arange(1, 9) / 4),
                                np.full(8, -0.5, np.float32))
    assert bm == 15 and {int(np.flatnonzero(big["key"] == k)[0]) for k in chain} == {15, 0, 1}
    tri, tm = tp._p198_lm_table(np.array([np.uint64(3) << np.uint64(34)]), np.float32([-1.0]), np.zeros(1, np.float32))
    toks = []
    for k in [*chain, *other, missing]:
        toks += [0, int(k) >> 17, int(k) & (V - 1), 1]
    tok = np.array(toks, np.int32)
    rng = np.random.default_rng(4)
    ulp = (-rng.uniform(2, 6, V)).astype(np.float32)
    ubow = (-rng.uniform(0.1, 1, V)).astype(np.float32)
    h = [tok, tri, tm, big, bm, ulp, ubow, np.zeros(len(tok), np.float32), np.zeros(1), np.int32(len(tok))]
    out = run("probe/lm-backoff-hash-probe", h, len(tok))
    lp, how = tp._p198_lm_ref(tok, tri, big, ulp, ubow)
    assert (how[2::4][:8] == 2).all() and how[2::4][8] == 1 and np.abs(out[7] - lp).max() < 4e-6
    assert (out[7][2::4][:8] == -np.arange(1, 9, dtype=np.float32) / 4).all()


# ---- bpe-pair-smem-hash ----

def _table(keys, cnt):
    used = keys != 0xFFFFFFFF
    o = np.argsort(keys[used])
    return keys[used][o], cnt[used][o]


@pytest.mark.parametrize("n, policy", [(20000, "lockstep"), (5000, "random")])
def test_bpe_pair_count(n, policy):
    # 20000: 3 chunks, the last partial; 5000: one
    rng = np.random.default_rng(5)
    h = tp._p198_bp_args(n, rng, gbits=13)
    out = run("probe/bpe-pair-smem-hash", h, n, policy=policy)
    k, c = tp._p198_bp_ref(h[0])
    gk, gc = _table(out[1], out[2])
    assert len(gk) == len(k) and (gk == k).all() and (gc == c).all() and c.max() > n / 1000


def test_bpe_pair_overflow():
    """5000 distinct pairs in one chunk: past BP_SLOTS the shared table is full and pairs go to
    the global table after BP_PROBES probes; the counts still exact."""
    n = 5001
    rng = np.random.default_rng(6)
    tok = rng.permutation(60000)[:n].astype(np.int32)
    tok[[100, 101, 102, 200, 201, 202]] = [7, 8, -1, 7, 8, 9]                # (7, 8) twice, a boundary
    h = [tok, np.full(1 << 14, 0xFFFFFFFF, np.uint32), np.zeros(1 << 14, np.uint32), np.uint32((1 << 14) - 1),
         np.int32(n)]
    out = run("probe/bpe-pair-smem-hash", h, n)
    k, c = tp._p198_bp_ref(tok)
    gk, gc = _table(out[1], out[2])
    assert (gk == k).all() and (gc == c).all() and len(k) > tp.P198_BP_SLOTS and gc.max() == 2


# ---- analogy-topk-tile ----

def test_analogy_topk():
    nq, nv, sl = 32, 40, 16                                 # 3 slices, the last a part tile of 8 words
    rng = np.random.default_rng(7)
    h = tp._p198_an_args(nq, rng, vocab=nv, slice_len=sl)
    ex = h[1].reshape(nq, 3)
    ex[0] = [30, 3, 30]                                     # a = c: the query is b's own vector
    ex[1] = [33, 34, 35]                                    # 3 of the last slice's 8 words left out
    E = h[2].reshape(nv, 100).astype(np.float64)
    q = E[ex[:, 1]] - E[ex[:, 0]] + E[ex[:, 2]]
    h[0] = np.ascontiguousarray((q / np.linalg.norm(q, axis=1, keepdims=True)).T, np.float32).ravel()
    h[1] = ex.ravel().copy()
    out = run("probe/analogy-topk-tile", h, nq, grid=(1, 3))
    ids = out[3].reshape(nq, 3, 10)
    sc = out[4].reshape(nq, 3, 10)
    S, rid, rsc = tp._p198_an_ref(h[0], h[1], h[2], nq, nv, sl)
    ok = rid >= 0
    assert (ids[~ok] == -1).all() and (sc[~ok] == -np.finfo(np.float32).max).all()
    assert ok[1, 2].sum() == 5 and ok[0, 2].sum() == 8
    # 100 float32 products of unit vectors' coordinates: |error| <= 100 * 2^-24 < 1e-5
    assert np.abs(sc[ok] - rsc[ok]).max() < 1e-5
    assert np.abs(S[np.arange(nq)[:, None, None], np.where(ok, ids, 0)][ok] - sc[ok]).max() < 1e-5
    with np.errstate(invalid="ignore"):                    # (-inf) - (-inf) past a slice's words
        gap = np.abs(np.diff(np.concatenate([rsc, np.full((nq, 3, 1), -np.inf)], axis=2), axis=2))
        sure = ok & (gap > 2e-5) & (np.concatenate([np.full((nq, 3, 1), np.inf), gap[:, :, :-1]], axis=2) > 2e-5)
    assert sure.mean() > 0.6 and (ids[sure] == rid[sure]).all()
    assert 3 not in ids[0] and 30 not in ids[0] and not np.isin(ids[1], [33, 34, 35]).any()
