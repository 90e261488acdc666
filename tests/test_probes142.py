"""probe-unseen140's kernels (kernels_cuda/probes142.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/ds-linprobe-insert-cas", "probe/ds-cuckoo2-lookup-u64", "probe/ds-bloom7-query",
       "probe/ds-splitter-smem-lbound", "probe/ds-bfs-worklist-tail", "probe/ds-bitmap-and-popc"]
EMPTY = np.uint32(0xFFFFFFFF)


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen140"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes142.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 12
    tk, tv, keys, vals, cap, nn = tp._p142_ht_args(n, rng)
    assert cap == 2 * n and nn == n and (tk == EMPTY).all() and (tv == 0).all() and len(tk) == cap
    assert keys.dtype == np.uint32 and len(np.unique(keys)) == n and not (keys == EMPTY).any()
    assert vals.max() < 2 ** 31 and not np.array_equal(keys, np.sort(keys))      # shuffled
    rk, rv, probes = tp._p142_ht_ref(keys, vals, int(cap))
    assert tp._p142_ht_valid(rk, rv, keys, vals, int(cap))
    assert 1.2 < probes.mean() < 2.0 and probes.max() > 5                         # load 0.5
    bad = rk.copy()
    s = np.flatnonzero(probes > 2)[0]                                              # a key off its home slot
    bad[(tp._p142_fmix32(keys[s]) & np.uint32(cap - 1)).astype(np.int64)] = EMPTY
    assert not tp._p142_ht_valid(bad, rv, keys, vals, int(cap))

    table, q, out, mask, nn = tp._p142_ck_args(n, rng)
    assert len(table) == 2 * n and mask == 2 * n - 1 and q.dtype == np.uint32 and len(q) == n
    full = table != np.uint64(2 ** 64 - 1)
    assert int(0.375 * 2 * n) - 4 <= full.sum() <= int(0.375 * 2 * n)
    sk = (table[full] >> np.uint64(32)).astype(np.uint32)
    assert len(np.unique(sk)) == full.sum()
    slot = np.flatnonzero(full)
    h1, h2 = ((tp._p142_fmix32(sk ^ np.uint32(s)) & mask).astype(np.int64) for s in tp.P142_CK_SEEDS)
    assert ((slot == h1) | (slot == h2)).all() and (slot == h2).mean() > 0.1     # each key at one of its slots
    vals, where = tp._p142_ck_ref(table, q)
    assert (where > 0).mean() == 0.5 and 0.08 < (where == 2).mean() < 0.2
    assert (np.isin(q, sk) == (where > 0)).all() and (vals[where == 0] == EMPTY).all()

    words, q, out, m, nn = tp._p142_bf_args(n, rng)
    assert m == 4 * n and len(words) == m // 32 and out.dtype == np.uint8
    assert 0.45 < np.bitwise_count(words).sum() / m < 0.55                        # ~half the bits set
    found, tested = tp._p142_bf_ref(words, q)
    assert 0.25 <= found.mean() < 0.27 and 1.8 < tested[found == 0].mean() < 2.2  # 1% false positives
    assert tested.reshape(-1, 32).max(axis=1).mean() > 6.5                        # warps run to 7

    keys, q, pos, m, nn = tp._p142_ss_args(n + 100, rng)
    assert m == 5 * 1024 and len(keys) == m and (np.diff(keys.astype(np.int64)) > 0).all()
    assert 0.5 <= np.isin(q, keys).mean() < 0.51 and len(q) == n + 100

    row_ptr, col, level, fr, nxt, tail, depth, nn = tp._p142_bfs_args(n, rng)
    V = 4 * n
    deg = np.diff(row_ptr)
    assert len(row_ptr) == V + 1 and row_ptr[0] == 0 and deg.min() == 0 and deg.max() == 15
    assert len(col) == row_ptr[-1] and col.min() >= 0 and col.max() < V and abs(deg.mean() - 7.5) < 0.2
    assert len(np.unique(fr)) == n and (level[fr] == depth).all() and depth == 3 and (tail == 0).all()
    assert abs((level >= 0).sum() - n - 0.3 * (V - n)) < 2 and level.max() == depth
    lv, new, ne = tp._p142_bfs_ref(row_ptr, col, level, fr)
    assert abs(ne / n - 7.5) < 0.3 and 1.6 < len(new) / n < 2.0

    a, b, c, cnt, nn = tp._p142_bm_args(1 << 16, rng)
    assert abs(np.bitwise_count(a).mean() - 16) < 0.1 and abs(np.bitwise_count(b).mean() - 8) < 0.1
    assert (c == 0).all() and cnt.shape == (1,)


# ---- ds-linprobe-insert-cas ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_ht_insert(policy):
    n = 300                                                 # 2 blocks, the last partial
    host, (tk, tv, keys, vals, cap, nn), *_ = launch("probe/ds-linprobe-insert-cas", n, policy=policy)
    assert cap == 1024 and nn == n
    assert tp._p142_ht_valid(tk, tv, keys, vals, 1024)
    assert (keys == host[2]).all() and (vals == host[3]).all()


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_ht_insert_crowded(policy):
    # 56 keys whose home slots are the last 4 of 64: long probe runs wrapping around the end
    rng = np.random.default_rng(3)
    cand = tp._p142_distinct(8000, rng)
    keys = cand[(tp._p142_fmix32(cand) & np.uint32(63)) >= 60][:56]
    assert len(keys) == 56
    vals = np.arange(56, dtype=np.uint32) * np.uint32(7)
    host = [np.full(64, EMPTY, np.uint32), np.zeros(64, np.uint32), keys, vals, np.uint32(64), np.int32(56)]
    tk, tv, *_ = run("probe/ds-linprobe-insert-cas", host, 56, policy=policy)
    assert tp._p142_ht_valid(tk, tv, keys, vals, 64)
    assert (tk[:52] != EMPTY).all() and (tk[52:60] == EMPTY).all() and (tk[60:] != EMPTY).all()


# ---- ds-cuckoo2-lookup-u64 ----

def test_cuckoo_lookup():
    n = 300
    host, (table, q, out, *_), *_ = launch("probe/ds-cuckoo2-lookup-u64", n)
    vals, where = tp._p142_ck_ref(host[0], host[1])
    assert (out == vals).all() and set(np.unique(where)) == {0, 1, 2}
    assert (out[where == 0] == EMPTY).all() and (out[where > 0] < 2 ** 31).all()


# ---- ds-bloom7-query ----

def test_bloom_query():
    n = 300
    host, (words, q, out, m, nn), *_ = launch("probe/ds-bloom7-query", n)
    found, tested = tp._p142_bf_ref(host[0], host[1])
    assert (out == found).all() and set(np.unique(tested)) >= {1, 2, 7}
    assert 0.2 < out.mean() < 0.35 and (words == host[0]).all()


# ---- ds-splitter-smem-lbound ----

def test_splitter_search():
    n = 300
    host, (keys, q, pos, m, nn), *_ = launch("probe/ds-splitter-smem-lbound", n)
    assert m == 1024 and (pos == tp._p142_ss_ref(host[0], host[1])).all()


def test_splitter_search_buckets():
    # 8192 keys (buckets of 8 behind each splitter), the edges: below the first key, the
    # first key, splitters, between keys, the last key, above it
    rng = np.random.default_rng(4)
    keys = np.sort(tp._p142_distinct(8192, rng))
    keys[0], keys[-1] = np.uint32(5), np.uint32(0xFFFFFFF0)
    keys = np.sort(keys)
    n = 300
    q = np.concatenate([[0, 5, 6, 0xFFFFFFF0, 0xFFFFFFF1, 0xFFFFFFFF], keys[::8][:40], keys[7::8][:40] + 1,
                        keys[rng.integers(0, 8192, 100)], tp._u32(n - 186, rng)]).astype(np.uint32)
    host = [keys, q, np.zeros(n, np.int32), np.int32(8192), np.int32(n)]
    pos = run("probe/ds-splitter-smem-lbound", host, n)[2]
    ref = tp._p142_ss_ref(keys, q)
    assert (pos == ref).all() and ref[0] == 0 and ref[5] == 8192 and ref[3] == 8191


# ---- ds-bfs-worklist-tail ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_bfs_expand(policy):
    n = 300
    host, (row_ptr, col, level, fr, nxt, tail, depth, nn), *_ = launch("probe/ds-bfs-worklist-tail", n,
                                                                        policy=policy)
    lv, new, ne = tp._p142_bfs_ref(*host[:4])
    t = int(tail[0])
    assert (level == lv).all() and t == len(new) and t > 50
    assert (np.sort(nxt[:t]) == new).all() and (nxt[t:] == 0).all()


# ---- ds-bitmap-and-popc ----

def test_bitmap_and_count():
    n = 1000                                                # 4 blocks, the last partial
    host, (a, b, c, cnt, nn), *_ = launch("probe/ds-bitmap-and-popc", n)
    ref, k = tp._p142_bm_ref(host[0], host[1])
    assert (c == ref).all() and int(cnt[0]) == k and 3500 < k < 4500
