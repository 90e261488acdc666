"""probe-unseen64's kernels (kernels_cuda/probes66.cu) give numpy's (or plain Python's)
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/select-q6-ballot", "probe/hash-build-cas", "probe/hash-probe-count", "probe/groupby64-smem",
       "probe/radix-part-hist", "probe/bitmap-index-or"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen64"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes66.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 16
    qty, disc = tp._u64_sel_args(n, rng)[:2]
    assert qty.min() == 1 and qty.max() == tp.U64_QTY_MAX and disc.min() == 0 and disc.max() == tp.U64_DISC_MAX
    kept = ((qty < tp.U64_SEL_QMAX) & (disc >= tp.U64_SEL_DLO) & (disc <= tp.U64_SEL_DHI)).mean()
    assert 0.11 < kept < 0.14
    keys = tp._u64_keys(n, rng)
    assert len(np.unique(keys)) == n and keys.min() >= 0 and keys.max() < tp.U64_KEY_RANGE
    g = tp._u64_zipf_groups(n, rng)
    share = np.bincount(g, minlength=tp.U64_NGROUPS) / n
    assert g.min() >= 0 and g.max() < tp.U64_NGROUPS and 0.23 < share.max() < 0.27 and share.min() < 0.005
    col = tp._u64_bm_args(n, rng)[0]
    c = np.bincount(col, minlength=tp.U64_BM_VALUES) / n
    assert col.max() < tp.U64_BM_VALUES and 0.28 < c.max() < 0.32 and (c > 0).all()
    assert tp._u64_cap(1) == 2 and tp._u64_cap(3) == 8 and tp._u64_cap(1 << 22) == 1 << 23


# ---- select-q6-ballot ----

def check_select(out, count, rows):
    """out[:count] holds exactly the rows, each warp's rows ascending and contiguous (the
    __popc offsets within the warp's reserved run), the rest untouched (zero)."""
    got = out[:count]
    assert count == len(rows) and (np.sort(got) == rows).all() and (out[count:] == 0).all()
    for w in np.unique(got // 32):
        pos = np.flatnonzero(got // 32 == w)
        assert (np.diff(pos) == 1).all() and (np.diff(got[pos]) > 0).all()


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_select_q6_ballot(policy):
    n = 1000                                                # 4 blocks, the last partial
    host, (qty, disc, out, count, qmax, dlo, dhi, nn), *_ = launch("probe/select-q6-ballot", n, policy=policy)
    assert nn == n and (qmax, dlo, dhi) == (24, 5, 7)
    rows = np.flatnonzero((qty < qmax) & (disc >= dlo) & (disc <= dhi))
    assert len(rows) > 50
    check_select(out, int(count[0]), rows)


def test_select_edge_cases():
    rng = np.random.default_rng(5)
    for n, qmax, dlo, dhi in [(1, 100, 0, 10), (37, 100, 0, 10), (300, 0, 0, 10), (300, 100, 3, 2),
                              (777, 30, 2, 8)]:
        qty = rng.integers(1, 51, n).astype(np.int32)
        disc = rng.integers(0, 11, n).astype(np.int32)
        host = [qty, disc, np.zeros(n, np.int32), np.zeros(1, np.int32), np.int32(qmax), np.int32(dlo),
                np.int32(dhi), np.int32(n)]
        out = run("probe/select-q6-ballot", host, n, policy="random")
        check_select(out[2], int(out[3][0]), np.flatnonzero((qty < qmax) & (disc >= dlo) & (disc <= dhi)))


# ---- hash-build-cas / hash-probe-count ----

def check_table(tk, tv, keys, mask):
    """A valid linear-probing table of the keys: each key once, beside its row id, and every
    slot from its home (hash & mask) to it occupied (wrapping around)."""
    occ = np.flatnonzero(tk != -1)
    assert len(occ) == len(keys) and (np.sort(tk[occ]) == np.sort(keys)).all()
    assert (keys[tv[occ]] == tk[occ]).all() and (tv[tk == -1] == -1).all()
    home = (tp._u64_hash(tk[occ]) & np.uint32(mask)).astype(np.int64)
    E = np.r_[0, np.cumsum(np.r_[tk, tk] == -1)]                       # empties before each slot
    last = np.where(home <= occ, occ, occ + mask + 1)
    assert (E[last + 1] - E[home] == 0).all()
    return occ, home


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_hash_build_cas(policy):
    n = 1000                                                # 4 blocks, the last partial
    host, (keys, tk, tv, mask, nn), *_ = launch("probe/hash-build-cas", n, policy=policy)
    assert nn == n and mask == 2047 and len(tk) == 2048
    occ, home = check_table(tk, tv, keys, int(mask))
    assert ((occ - home) & mask).max() >= 1                 # some keys were displaced


def full_table_keys(rng, m, mask):
    """m distinct keys, the first five homed on the table's last slot (chains wrap around)."""
    cand = rng.choice(tp.U64_KEY_RANGE, 200000, replace=False).astype(np.int32)
    last = cand[(tp._u64_hash(cand) & np.uint32(mask)) == mask][:5]
    rest = np.setdiff1d(cand[:4 * m], last)[:m - 5]
    return rng.permutation(np.r_[last, rest]).astype(np.int32)


def test_hash_build_edge_cases():
    rng = np.random.default_rng(6)
    # a table of 64 slots 60 full, chains wrapping past the end
    keys = full_table_keys(rng, 60, 63)
    host = [keys, np.full(64, -1, np.int32), np.full(64, -1, np.int32), np.int32(63), np.int32(60)]
    out = run("probe/hash-build-cas", host, 60, policy="random")
    occ, home = check_table(out[1], out[2], keys, 63)
    assert (occ < home).any()                               # a key wrapped
    # one key; and the host's build (_u64_table) is a valid table too
    out = run("probe/hash-build-cas", [keys[:1], np.full(2, -1, np.int32), np.full(2, -1, np.int32),
                                       np.int32(1), np.int32(1)], 1)
    check_table(out[1], out[2], keys[:1], 1)
    check_table(*tp._u64_table(keys, 64), keys, 63)


def probe_ref(keys, tk, tv):
    d = {int(k): int(v) for k, v in zip(tk, tv) if k != -1}
    return np.array([d.get(int(k), -1) for k in keys], np.int32)


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_hash_probe_count(policy):
    n = 1000                                                # 4 blocks, the last partial
    host, (keys, tk, tv, mask, match, count, nn), *_ = launch("probe/hash-probe-count", n, policy=policy)
    assert nn == n and mask == 511 and (tk != -1).sum() == 250
    occ = tk != -1
    bkeys = np.zeros(occ.sum(), np.int32)
    bkeys[tv[occ]] = tk[occ]                                # the build keys by row id
    check_table(tk, tv, bkeys, int(mask))                   # the host's table is valid
    ref = probe_ref(keys, tk, tv)
    assert (match == ref).all() and count[0] == (ref >= 0).sum()
    assert 0.4 < (ref >= 0).mean() < 0.6


def test_hash_probe_edge_cases():
    rng = np.random.default_rng(7)
    # the device's own build (random schedule), then every build key (row i -> i) and misses
    # against it: a 64-slot table 60 full, probes of missing keys running far around it
    bkeys = full_table_keys(rng, 60, 63)
    b = run("probe/hash-build-cas", [bkeys, np.full(64, -1, np.int32), np.full(64, -1, np.int32), np.int32(63),
                                     np.int32(60)], 60, policy="random")
    tk, tv = b[1], b[2]
    miss = rng.integers(tp.U64_KEY_RANGE, 2 ** 31 - 1, 77).astype(np.int32)
    keys = rng.permutation(np.r_[bkeys, miss, bkeys[:20]]).astype(np.int32)
    n = len(keys)
    out = run("probe/hash-probe-count", [keys, tk, tv, np.int32(63), np.zeros(n, np.int32), np.zeros(1, np.uint32),
                                         np.int32(n)], n, policy="random")
    pos = {int(k): i for i, k in enumerate(bkeys)}
    assert (out[4] == [pos.get(int(k), -1) for k in keys]).all() and out[5][0] == 80
    # an empty table: no matches
    keys = bkeys[:40]
    out = run("probe/hash-probe-count", [keys, np.full(2, -1, np.int32), np.full(2, -1, np.int32), np.int32(1),
                                         np.zeros(40, np.int32), np.zeros(1, np.uint32), np.int32(40)], 40)
    assert (out[4] == -1).all() and out[5][0] == 0


# ---- groupby64-smem ----

def groupby_ref(g, v):
    s = np.zeros(tp.U64_NGROUPS, np.uint64)
    np.add.at(s, g, v.astype(np.uint64))
    return s, np.bincount(g, minlength=tp.U64_NGROUPS).astype(np.uint32)


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_groupby64_smem(policy):
    n = 1000                                                # 4 blocks, the last partial
    host, (g, v, s, c, nn), *_ = launch("probe/groupby64-smem", n, policy=policy)
    rs, rc = groupby_ref(g, v)
    assert s.dtype == np.uint64 and (s == rs).all() and (c == rc).all() and c.sum() == n


def test_groupby_edge_cases():
    rng = np.random.default_rng(8)
    # 5000 rows on a grid sized for 600 (3 blocks): each thread strides ~7 times
    n = 5000
    g = tp._u64_zipf_groups(n, rng)
    v = rng.integers(1, 100001, n).astype(np.int32)
    out = run("probe/groupby64-smem", [g, v, np.zeros(64, np.uint64), np.zeros(64, np.uint32), np.int32(n)], 600,
              policy="random")
    rs, rc = groupby_ref(g, v)
    assert (out[2] == rs).all() and (out[3] == rc).all()
    assert tp.get("probe/groupby64-smem").grid(1 << 24) == tp.U64_GB_BLOCKS
    # one group, values near 2^31 (the sum past 2^32), over accumulators already holding some
    n = 300
    g = np.full(n, 5, np.int32)
    v = np.full(n, 2 ** 31 - 1, np.int32)
    s0 = np.arange(64, dtype=np.uint64)
    c0 = np.arange(64, dtype=np.uint32)
    out = run("probe/groupby64-smem", [g, v, s0.copy(), c0.copy(), np.int32(n)], n)
    rs, rc = groupby_ref(g, v)
    assert (out[2] == rs + s0).all() and (out[3] == rc + c0).all() and out[2][5] == 300 * (2 ** 31 - 1) + 5


# ---- radix-part-hist ----

def rp_ref(keys, n):
    nb = -(-n // tp.U64_RP_TILE)
    H = np.zeros((tp.U64_RP_BUCKETS, nb), np.uint32)
    for b in range(nb):
        H[:, b] = np.bincount(keys[b * tp.U64_RP_TILE:min((b + 1) * tp.U64_RP_TILE, n)] >> 24,
                              minlength=tp.U64_RP_BUCKETS)
    return H.ravel()


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_radix_part_hist(policy):
    n = 3 * tp.U64_RP_TILE + 1000                           # 4 blocks, the last partial
    host, (keys, hist, nn), *_ = launch("probe/radix-part-hist", n, policy=policy)
    assert nn == n and len(hist) == 256 * 4
    assert (hist == rp_ref(keys, n)).all() and hist.reshape(256, 4).sum(axis=0).tolist() == [4096] * 3 + [1000]


def test_radix_part_hist_edge_cases():
    rng = np.random.default_rng(9)
    for n, keys in [(1, np.array([0xABCDEF01], np.uint32)),
                    (tp.U64_RP_TILE, (0xFF000000 + rng.integers(0, 1 << 24, tp.U64_RP_TILE)).astype(np.uint32)),
                    (tp.U64_RP_TILE + 1, rng.integers(0, 1 << 26, tp.U64_RP_TILE + 1).astype(np.uint32))]:
        nb = -(-n // tp.U64_RP_TILE)
        out = run("probe/radix-part-hist", [keys, np.zeros(256 * nb, np.uint32), np.int32(n)], n, policy="random")
        assert (out[1] == rp_ref(keys, n)).all()
    assert out[1].reshape(256, 2)[:, 1].sum() == 1 and out[1].reshape(256, 2)[4:].sum() == 0


# ---- bitmap-index-or ----

def bitmap_ref(col, n):
    nw = -(-n // 32)
    bits = np.zeros((tp.U64_BM_VALUES, nw * 32), np.uint8)
    bits[col, np.arange(n)] = 1
    return np.packbits(bits, axis=1, bitorder="little").view("<u4").ravel()


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_bitmap_index_or(policy):
    n = 1000                                                # 4 blocks, the last partial
    host, (col, bm, nw, nn), *_ = launch("probe/bitmap-index-or", n, policy=policy)
    assert nw == 32 and len(bm) == 16 * 32
    assert (bm == bitmap_ref(col, n)).all()
    assert np.bitwise_or.reduce(bm.reshape(16, 32), axis=0)[:31].tolist() == [0xFFFFFFFF] * 31


def test_bitmap_index_edge_cases():
    rng = np.random.default_rng(10)
    for n, col in [(1, np.array([15])), (33, np.full(33, 3)), (64, np.arange(64) % 2 * 9),
                   (300, rng.integers(0, 16, 300))]:
        col = col.astype(np.int32)
        nw = -(-n // 32)
        out = run("probe/bitmap-index-or", [col, np.zeros(16 * nw, np.uint32), np.int32(nw), np.int32(n)], n,
                  policy="random")
        assert (out[1] == bitmap_ref(col, n)).all()
