"""probe-unseen201's kernels (kernels_cuda/probes203.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/countmin-flow-bytes-u64atomic", "probe/hll-estimate-double-smem", "probe/misra-gries-local-struct",
       "probe/ddsketch-latency-smem-hist", "probe/minhash-bbit-ballot-pairs", "probe/wres-bitonic-topk-smem"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen201"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes203.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # count-min: Zipf(1.1) flows, distinct keys a flow, bimodal packet lengths
    flow, length, sk, n = tp._p203_cm_args(1 << 17, rng)
    assert flow.dtype == np.uint32 and length.dtype == np.uint16 and sk.dtype == np.uint64
    assert len(sk) == 4 << 16 and not sk.any() and n == len(flow) == len(length)
    _, cnt = np.unique(flow, return_counts=True)
    N, s = tp.P203_CM_FLOWS, tp.P203_CM_ZIPF
    top = (1 - 2.0 ** (1 - s)) / (1 - (N + 1.0) ** (1 - s))                 # P(rank 0)
    assert abs(cnt.max() / n - top) < 0.01 and 0.08 < top < 0.1
    assert np.sort(cnt)[::-1][:len(cnt) // 100].sum() > 0.5 * n               # elephants: 1% of flows, most packets
    assert length.min() >= 40 and length.max() == 1500
    assert abs((length == 1500).mean() - 0.45) < 0.01 and abs((length <= 66).mean() - 0.4) < 0.01
    # HyperLogLog registers: ranks, and the estimates within a few % of the cardinalities
    card = np.array([50, 2000, 3e4, 1e6, 1e8] * 4)
    reg = tp._p203_hll_regs(card, rng)
    assert reg.dtype == np.uint8 and reg.shape == (20, 1 << 14) and reg.max() <= 51
    assert (reg[card == 50] == 0).mean() > 0.99 and (reg[card == 1e8] == 0).sum() == 0
    est = tp._p203_hll_ref(reg)
    # Poissonised: card's Poisson noise (4 sd), then HLL's 1.04 / sqrt(m) = 0.8% (4 sd)
    assert (np.abs(est - card) < 4 * np.sqrt(card) + 0.032 * card).all()
    assert np.abs(est / card - 1)[card > 1e4].mean() < 0.012
    r, e, n = tp._p203_hll_args(64, rng)
    assert len(r) == 64 << 14 and e.dtype == np.float64 and n == 64
    c = tp._p203_hll_ref(r)
    assert c.min() < 100 and c.max() > 1e7                                   # 10 .. 10^8 visitors, log-uniform
    # Misra-Gries: a Zipf(1) word stream, ids permuted
    items, summ, n = tp._p203_mg_args(1 << 18, rng)
    assert items.dtype == np.int32 and 0 <= items.min() and items.max() < tp.P203_MG_VOCAB
    assert summ.dtype == tp.P203_MG_DTYPE and len(summ) == (n // 64) * tp.P203_MG_K
    ids, cnt = np.unique(items, return_counts=True)
    top = np.log(2) / np.log(tp.P203_MG_VOCAB + 1)                           # ~5%: "the"
    assert abs(cnt.max() / n - top) < 0.005 and ids[cnt.argmax()] != 0
    # DDSketch: latencies and the buckets' 1% relative accuracy
    lat, hist, total, mn, inv, off, n = tp._p203_dd_args(1 << 18, rng)
    assert lat.dtype == np.float32 and abs((lat == 0).mean() - 0.005) < 0.001 and lat.max() <= 5000
    q = np.quantile(lat, [0.5, 0.9, 0.99])
    assert 2.5 < q[0] < 4 and 8 < q[1] < 40 and 1000 < q[2] < 5000
    assert tp._p203_dd_ref(np.float32([np.nextafter(mn, np.float32(1)), 1e30]), mn, inv, off).nonzero()[0].tolist() \
        == [1, 1023]
    x = lat[lat > mn]
    h = tp._p203_dd_ref(x, mn, inv, off)
    assert h[0] == 0 and h[-1] == 0 and 300 < (h > 0).sum() < 800
    g = (1 + tp.P203_DD_ALPHA) / (1 - tp.P203_DD_ALPHA)
    b = np.ceil(np.log(x.astype(np.float64)) / np.log(g))
    rep = 2 * g ** b / (g + 1)                                               # a bucket's representative value
    assert np.abs(rep / x - 1).max() <= tp.P203_DD_ALPHA + 1e-6
    # MinHash: clusters of near-duplicates, random false positives, the threshold's share
    sig, pairs, jac, near, nnear, thresh, n = tp._p203_mh_args(1 << 14, rng, docs=1 << 14)
    assert sig.dtype == np.uint16 and len(sig) == 128 << 14 and pairs.dtype == np.int32
    p = pairs.reshape(-1, 2)
    assert (p[:, 0] != p[:, 1]).all() and p.max() < 1 << 14
    j, nr, m = tp._p203_mh_ref(sig, pairs, thresh)
    assert 0.3 < (m == 0).mean() < 0.5 and 0.25 < len(nr) / n < 0.45       # random pairs: no match
    assert 0.5 < np.median(j[m > 0]) < 0.75 and (j == 1).mean() < 0.01
    # weighted reservoir: lognormal weights, some zero
    w, out, seed, n = tp._p203_wr_args(1 << 16, rng)
    assert w.dtype == np.float32 and abs((w == 0).mean() - 0.03) < 0.005 and out.dtype == tp.P203_WR_DTYPE
    assert abs(np.log(np.median(w[w > 0])) - 3) < 0.05 and w.max() > 100 * np.median(w)


# ---- countmin-flow-bytes-u64atomic ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_cm_update(policy):
    n = 3000
    rng = np.random.default_rng(1)
    h = tp._p203_cm_args(n, rng)
    syms = tp._p203_cm_syms(n, rng)
    syms["c_cm_a"][0] = tp.P203_M61 - 1                     # the largest a and keys: the fold's carries
    syms["c_cm_b"][0] = tp.P203_M61 - 1
    h[0][:4] = [0, 0xFFFFFFFF, 0xFFFFFFFE, 1]
    h[0][32:96] = h[0][40]                                   # two warps of one flow: contended
    out = run("probe/countmin-flow-bytes-u64atomic", h, n, policy=policy, symbols=syms, grid=(3,))
    ref = tp._p203_cm_ref(h[0], h[1], syms["c_cm_a"], syms["c_cm_b"])
    sk = out[2].reshape(4, -1)
    assert (sk == ref).all() and (sk.sum(axis=1) == h[1].astype(np.uint64).sum()).all()
    cols = tp._p203_cm_cols(h[0], syms["c_cm_a"], syms["c_cm_b"])
    assert cols[0, 1] == ((tp.P203_M61 - 1) * 0xFFFFFFFF + tp.P203_M61 - 1) % tp.P203_M61 % (1 << 16)
    # the count-min estimate: never under a flow's bytes, exact for most flows
    keys, inv = np.unique(h[0], return_inverse=True)
    true = np.bincount(inv, h[1].astype(np.int64))
    first = np.unique(inv, return_index=True)[1]
    est = sk[np.arange(4)[:, None], cols[:, first]].min(axis=0).astype(np.int64)
    assert (est >= true).all() and (est == true).mean() > 0.95


# ---- hll-estimate-double-smem ----

def test_hll_estimate():
    n = 9
    rng = np.random.default_rng(2)
    card = np.array([20, 900, 4e4, 1e7, 0, 0, 0, 0, 0])
    reg = tp._p203_hll_regs(card, rng)
    m = 1 << 14
    reg[4] = 0                                               # empty: linear counting's m ln 1 = 0
    reg[5] = 1                                               # every register 1: raw 2 alpha m, no zeros
    reg[6, 123] = 3                                          # one register: m ln(m / (m - 1))
    reg[7] = 51                                              # the largest rank everywhere
    reg[8] = rng.integers(4, 8, m)                           # raw above 2.5 m with empty registers:
    reg[8, :3000] = 0                                        # raw, not linear counting
    h = [reg.ravel(), np.zeros(n, np.float64), np.int32(n)]
    out = run("probe/hll-estimate-double-smem", h, n)[1]
    ref = tp._p203_hll_ref(reg)
    assert np.allclose(out, ref, rtol=1e-12, atol=0)
    alpha = 0.7213 / (1 + 1.079 / m)
    assert out[4] == 0 and out[5] == pytest.approx(2 * alpha * m, rel=1e-14)
    assert out[6] == pytest.approx(m * np.log(m / (m - 1)), rel=1e-12) and out[6] == pytest.approx(1, abs=1e-4)
    assert out[7] == pytest.approx(alpha * m * 2.0 ** 51, rel=1e-14)
    z = np.ldexp(1.0, -reg[8].astype(np.int64)).sum()
    assert alpha * m * m / z > 2.5 * m and out[8] == pytest.approx(alpha * m * m / z, rel=1e-12)
    assert np.abs(out[:4] / card[:4] - 1).max() < 0.05


# ---- misra-gries-local-struct ----

def test_misra_gries():
    n = 64 * 130 + 37                                        # 131 threads, 2 blocks, a short last chunk
    rng = np.random.default_rng(3)
    h = tp._p203_mg_args(n, rng)
    it = h[0]
    it[:64] = 7                                              # one word: one counter of 64
    it[64:128] = np.tile(np.arange(100, 108), 8)             # 8 words: 8 counters of 8
    it[128:192] = np.tile(np.arange(200, 209), 8)[:64]       # 9 words round robin: every 9th decrements
    it[192:256] = np.arange(300, 364)                        # all distinct: emptied each 9th word
    it[256:320] = np.r_[[5] * 30, np.arange(400, 434)]       # a heavy word first, then noise
    out = run("probe/misra-gries-local-struct", h, n)[1].reshape(-1, tp.P203_MG_K)
    got = [{int(k): int(c) for k, c in zip(r["key"], r["count"]) if c > 0} for r in out]
    ref = tp._p203_mg_ref(it)
    assert got == ref and len(got) == 131
    assert ((out["count"] == 0) == (out["key"] == -1)).all()                # unused counters marked
    assert got[0] == {7: 64} and got[1] == {k: 8 for k in range(100, 108)}
    assert got[3] == {363: 1} and got[4][5] == 30 - 34 // tp.P203_MG_K     # a decrement each 8 new words
    # the guarantee: each chunk's count within chunk / (K + 1) under the word's true count
    for t, c in enumerate(got):
        chunk = it[64 * t:64 * t + 64]
        for k, v in c.items():
            f = int((chunk == k).sum())
            assert f - len(chunk) // (tp.P203_MG_K + 1) <= v <= f


# ---- ddsketch-latency-smem-hist ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_dd_sketch(policy):
    n = 6000
    rng = np.random.default_rng(4)
    h = tp._p203_dd_args(n, rng)
    mn, inv, off = h[3:6]
    g = (1 + tp.P203_DD_ALPHA) / (1 - tp.P203_DD_ALPHA)
    h[0][:6] = [0, mn, np.nextafter(mn, np.float32(1)), 1e30, 3.0, 4.5e4]
    out = run("probe/ddsketch-latency-smem-hist", h, n, policy=policy, grid=(3,))  # 8 items a thread
    ref = tp._p203_dd_ref(h[0], mn, inv, off)
    assert (out[1] == ref).all() and ref.sum() == n
    assert ref[0] == (h[0] <= mn).sum() >= 2 and ref[1] >= 1 and ref[-1] == 1
    k3 = int(np.ceil(np.log(3.0) / np.log(g))) + int(off)
    assert ref[k3] > 0 and 2 * g ** (k3 - off) / (g + 1) == pytest.approx(3.0, rel=tp.P203_DD_ALPHA)
    total = h[0].astype(np.float64).sum()
    assert abs(out[2][0] - total) <= 1e-6 * total                            # 1e30 dominates: exact-ish
    h[0][3] = 2e4                                                            # a sum of ordinary latencies
    out = run("probe/ddsketch-latency-smem-hist", h, n, policy=policy, grid=(3,))
    total = h[0].astype(np.float64).sum()
    assert abs(out[2][0] - total) <= 2e-6 * total and (out[1] == tp._p203_dd_ref(h[0], mn, inv, off)).all()
    # a min_value under the buckets' range: latencies below bucket 1's clamped into it
    h[3] = np.float32(1e-5)
    h[0][6:9] = [2e-5, 5e-4, 2e-3]
    out = run("probe/ddsketch-latency-smem-hist", h, n, policy=policy, grid=(3,))
    ref = tp._p203_dd_ref(h[0], h[3], inv, off)
    assert (out[1] == ref).all() and ref[1] >= 4 and ref[0] == (h[0] == 0).sum()      # 2e-5, 5e-4, 1e-3, 1e-3+


# ---- minhash-bbit-ballot-pairs ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_minhash_verify(policy):
    n, D = 48, 256
    rng = np.random.default_rng(5)
    h = tp._p203_mh_args(n, rng, docs=D)
    sig, pairs = h[0].reshape(D, 128), h[1].reshape(n, 2)
    m0 = 77
    c = np.float32(1 / 65536)
    h[5] = np.maximum((np.float32(m0) / np.float32(128) - c) / (np.float32(1) - c), np.float32(0))   # at 77 matches
    sig[1] = sig[0]
    sig[1, :128 - m0] ^= 1                                   # docs 0, 1: exactly 77 matches
    sig[3] = sig[2]
    sig[3, 1::2] += 1                                        # docs 2, 3: 64
    sig[4] = sig[0] + 1                                      # docs 0, 4: none
    sig[5] = sig[0]
    sig[5, :128 - m0 + 1] += 7                               # docs 0, 5: 76, just under
    pairs[:6] = [[0, 1], [2, 3], [0, 4], [6, 6], [0, 5], [1, 0]]   # [6, 6]: a document against itself
    out = run("probe/minhash-bbit-ballot-pairs", h, n, policy=policy)
    j, near, m = tp._p203_mh_ref(h[0], h[1], h[5])
    assert (out[2] == j).all() and out[4][0] == len(near) and sorted(out[3][:len(near)]) == near.tolist()
    assert (out[3][len(near):] == 0).all()
    assert m[:6].tolist() == [77, 64, 0, 128, 76, 77] and j[3] == 1 and j[2] == 0
    assert {0, 3, 5} <= set(near.tolist()) and not {1, 2, 4} & set(near.tolist())
    assert 0 < len(near) < n and (j[6:] > 0.5).any() and (j[6:] == 0).any()


# ---- wres-bitonic-topk-smem ----

def test_wres_topk():
    n = 3 * 1024 + 452                                       # 4 tiles, the last short
    rng = np.random.default_rng(6)
    h = tp._p203_wr_args(n, rng)
    w = h[0]
    w[1024:2048] = 0
    w[1024 + np.arange(0, 1000, 100)] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]   # tile 1: 10 items to draw from
    w[2048:2048 + 700] = 0                                   # tile 2: 324 items to draw from
    out = run("probe/wres-bitonic-topk-smem", h, n)[1].reshape(-1, tp.P203_WR_KEEP)
    key, idx = tp._p203_wr_ref(w, h[2], n)
    assert (out["key"] == key).all() and (out["idx"] == idx).all()
    assert (out["key"][:, :-1] >= out["key"][:, 1:]).all()
    t1 = out[1]
    assert sorted(t1["idx"][:10].tolist()) == (1024 + np.arange(0, 1000, 100)).tolist()
    assert np.isneginf(t1["key"][10:]).all() and t1["idx"][10:].tolist() == \
        [i for i in range(1024, 2048) if i not in set(1024 + np.arange(0, 1000, 100))][:54]
    assert out[3]["idx"].max() < n and out[3]["idx"].min() >= 3072
    # A-Res: the heavier an item, the likelier it is kept
    kept = np.concatenate([out[0]["idx"], out[2]["idx"], out[3]["idx"]])
    assert np.median(w[kept]) > 3 * np.median(w[w > 0])
