"""probe-unseen202's kernels (kernels_cuda/probes204.cu) give independent references' answers
(hashlib, Python ints, Python dicts, numpy) in the emulator at small sizes, with the
sanitizer on: the timing probes are only worth their measurements if they compute what they
say."""
import hashlib

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/btc-sha256d-nonce-scan", "probe/btc-merkle-root-smem", "probe/btc-utxo-probe-structs",
       "probe/secp256k1-jacobian-walk", "probe/bip37-bloom-murmur-smem", "probe/mempool-feerate-hist-atomics"]

# the genesis block's header (nonce 2083236893) and block 100000's txids (display order) and root
GENESIS = bytes.fromhex("01000000" + "00" * 32 + "3ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a"
                        "29ab5f49ffff001d1dac2b7c")
GENESIS_HASH = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"
B100K_TXIDS = ["8c14f0db3df150123e6f3dbbf30f8b955a8249b62ac1d1ff16284aefa3d06d87",
               "fff2525b8931402dd09222c50775608f75787bd2b87e56995a7bdd30f79702c4",
               "6359f0868171b1d194cbee1af2f16ea598ae8fad666d9b012c8ed2b79a236ec4",
               "e9a66845e05d5abc0ad04ec80f774a7e585c6e8db975962d069a522137b80c1d"]
B100K_ROOT = "f3e94742aca4b5ef85488dc37c06c3282295ffec960994b2c0d5ac2a25a95766"


def _sha256d(b):
    return hashlib.sha256(hashlib.sha256(b).digest()).digest()


def _words(display_hex):
    """A txid in display (reversed) hex as the kernels' 8 big-endian words of its internal bytes."""
    return np.frombuffer(bytes.fromhex(display_hex)[::-1], ">u4").astype(np.uint32)


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen202"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes204.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # sha: the compression against hashlib (one padded block), the header template, the job
    msg = b"abc" + b"\x80" + b"\0" * 52 + (24).to_bytes(8, "big")
    st = tp._p204_compress(tp._P204_IV, msg)
    assert np.array(st, ">u4").tobytes() == hashlib.sha256(b"abc").digest()
    hdr = tp._p204_header(rng)
    assert len(hdr) == 80 and hdr[3] >> 5 == 1 and hdr[4 + 22:36] == b"\0" * 10 and hdr[76:] == b"\0" * 4
    v, t, bits = int.from_bytes(hdr[:4], "little"), int.from_bytes(hdr[68:72], "little"), hdr[72:76]
    assert v >> 29 == 1 and v & 0x1FFF == 0 and 1.7e9 < t < 1.74e9 and bits == bytes.fromhex("19420317")
    job = tp._p204_sha_job(hdr)
    assert job["c_tail"].tobytes() == np.frombuffer(hdr[64:76], ">u4").astype("<u4").tobytes()
    # merkle: the transaction counts
    c = tp._p204_mk_counts(1 << 16, rng)
    assert c.min() == 1 and c.max() == tp.P204_MK_MAXTX and 0.008 < (c == 1).mean() < 0.02
    assert 280 < np.median(c) < 320 and 0.02 < (c == tp.P204_MK_MAXTX).mean() < 0.08 and 330 < c.mean() < 400
    txid, first, root, mut, nb = tp._p204_mk_args(64, rng)
    assert len(first) == 65 and len(txid) == 8 * first[-1] and abs(txid.mean() / 2 ** 31 - 1) < 0.02
    # utxo: the table (load, linear probing's invariant: occupied from home to slot), the spends
    slots = 1 << 16
    table, mask, op, tx_of, h, val, in_sum, err, n = tp._p204_ut_args(1 << 13, rng, slots=slots)
    used = table["vout"] != tp.P204_UT_EMPTY
    assert used.sum() == int(tp.P204_UT_LOAD * slots) and mask == slots - 1
    home = tp._p204_ut_home(table["txid"][used, 0], table["vout"][used], mask)
    dist = (np.flatnonzero(used) - home) & mask
    assert 1.5 < dist.mean() + 1 < 2.1 and dist.max() > 10
    occ = np.concatenate([used, used])
    assert all(occ[hm:hm + d + 1].all() for hm, d in zip(home[:2000], dist[:2000]))
    coins = table[used]
    assert (coins["value"] >= 546).all() and 5e4 < np.median(coins["value"]) < 2e5
    assert 0.4 < (coins["vout"] == 0).mean() < 0.55 and coins["vout"].max() > 20
    cb = (coins["height"] & tp.P204_UT_CB_FLAG) != 0
    assert 0 < cb.mean() < 0.01 and (coins["value"][cb] >= 312500000).all()
    hgt = (coins["height"] & ~np.uint32(tp.P204_UT_CB_FLAG)).astype(np.int64)
    assert hgt.max() <= tp.P204_UT_TIP and 0.4 < (tp.P204_UT_TIP - hgt < 60000).mean() < 0.6   # half recent
    v, sums, e = tp._p204_ut_ref(table, op, tx_of, int(h), len(in_sum))
    assert 0.005 < e[0] / n < 0.02 and (np.bincount(tx_of) > 0).all() and 2.1 < n / len(in_sum) < 2.7
    assert len(np.unique(op)) == n                                           # no coin spent twice
    age = {(r["txid"].tobytes(), int(r["vout"])): tp.P204_UT_TIP - int(r["height"] & 0x7FFFFFFF) for r in coins}
    spent = np.array([age[(r["txid"].tobytes(), int(r["vout"]))] for r in op[v != -1]])
    assert np.median(spent) < 0.5 * np.median(list(age.values()))            # young coins spent more
    # secp: the points are on the curve, consecutive keys' points steps G apart
    px, py, *_ = tp._p204_ec_args(8, rng)
    P = tp.P204_EC_P
    pts = list(zip(tp._p204_unlimb(px), tp._p204_unlimb(py)))
    assert all((y * y - x ** 3 - 7) % P == 0 for x, y in pts)
    D = tp._p204_ec_mul(tp.P204_EC_STEPS)
    assert all(tp._p204_ec_add(pts[i], D) == pts[i + 1] for i in range(7))
    # bloom: BIP37's sizes, the filter's fill, the elements' lengths and the wallet's hits
    assert tp.P204_BL_BYTES == 23962 and tp.P204_BL_NHASH == 13
    h = tp._p204_bl_args(1 << 15, rng)
    filt, data, start, tx_of = h[0], h[4], h[5], h[6]
    fill = np.unpackbits(filt).mean()
    assert abs(fill - (1 - np.exp(-13 * 10000 / (8 * 23962)))) < 0.01
    lens = np.diff(start)
    assert set(np.unique(lens).tolist()) == {20, 32, 33, 36} and abs(lens.mean() - 28.5) < 2
    assert len(h[8]) == tx_of[-1] + 1 and 4 < (1 << 15) / len(h[8]) < 6
    hit = tp._p204_bl_ref(filt, h[2], h[3], data, start)
    txhit = np.zeros(len(h[8]), bool)
    txhit[tx_of[hit == 1]] = True
    assert 0.003 < txhit.mean() < 0.008                                      # the wallet's (and a few false)
    # fee: weights, rates
    fee, w, *_ = tp._p204_fh_args(1 << 16, rng)
    b, edge, vs = tp._p204_fh_ref(fee, w)
    assert w.max() <= 400000 and 100 < vs.min() and 150 < np.median(vs) < 250 and vs.max() > 20000
    rate = fee / vs
    assert 0.29 < (rate < 1.01).mean() < 0.35 and (rate >= 1).all() and 0.0 < (rate > 500).mean() < 0.01
    assert 0.3 < (b == 0).mean() < 0.4 and b.max() > 150 and edge.mean() < 0.01


# ---- btc-sha256d-nonce-scan ----

def test_sha256d_scan():
    rng = np.random.default_rng(1)
    n = 512
    hdr = tp._p204_header(rng)
    h = tp._p204_sha_args(n, rng, target=1 << 25)
    h[0] = np.uint32(2 ** 32 - 200)                         # the nonces wrap past 2^32
    out = run("probe/btc-sha256d-nonce-scan", h, n, symbols=tp._p204_sha_job(hdr))
    ref = tp._p204_sha_ref(hdr, h[0], n, 1 << 25)
    k = int(out[3][0])
    assert k == len(ref) >= 2 and sorted(out[2][:k].tolist()) == ref and (out[2][k:] == 0).all()
    assert min(ref) < 1000 < 2 ** 32 - 200 < max(ref)
    # the genesis block: its nonce found among 256 at target 0, and nothing else
    assert _sha256d(GENESIS)[::-1].hex() == GENESIS_HASH
    h = tp._p204_sha_args(256, rng, target=0)
    h[0] = np.uint32(2083236893 - 117)
    out = run("probe/btc-sha256d-nonce-scan", h, 256, symbols=tp._p204_sha_job(GENESIS))
    assert out[3][0] == 1 and out[2][0] == 2083236893
    # every nonce under the target: the count is n, the first maxfound stored
    h = tp._p204_sha_args(256, rng, target=0xFFFFFFFF)
    out = run("probe/btc-sha256d-nonce-scan", h, 256, symbols=tp._p204_sha_job(hdr))
    got = out[2].astype(np.int64) - int(h[0])
    assert out[3][0] == 256 and len(set(got.tolist())) == tp.P204_SHA_MAXFOUND and got.min() >= 0 and got.max() < 256


# ---- btc-merkle-root-smem ----

def test_merkle_roots():
    rng = np.random.default_rng(2)
    counts = [4, 1, 2, 3, 4, 7, 6, 6, 3, 4, 33]
    first = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    txid = rng.integers(0, 1 << 32, 8 * int(first[-1]), dtype=np.uint32).reshape(-1, 8)
    txid[:4] = [_words(t) for t in B100K_TXIDS]             # block 100000
    txid[24] = txid[23]                                     # 6 txs (21..26): a pair of equal txids: mutated
    txid[29:31] = txid[27:29]                               # 6 txs (27..32): equal hashes one level up: mutated
    txid[33:36] = txid[14:17]                               # [a b c] (33..35) and [a b c c] (36..39): the same
    txid[36:39], txid[39] = txid[14:17], txid[16]           # root, the second one mutated (CVE-2012-2459)
    n = len(counts)
    h = [txid.ravel().copy(), first, np.zeros(8 * n, np.uint32), np.zeros(n, np.int32), np.int32(n)]
    out = run("probe/btc-merkle-root-smem", h, n)
    roots, muts = tp._p204_mk_ref(h[0], first)
    got = out[2].reshape(n, 8)
    assert (got == roots).all() and (out[3] == muts).all()
    assert got[0].astype(">u4").tobytes()[::-1].hex() == B100K_ROOT
    assert (got[1] == txid[4]).all()                                         # the coinbase alone
    assert got[2].astype(">u4").tobytes() == _sha256d(txid[5:7].astype(">u4").tobytes())
    assert list(muts) == [0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0] and (got[8] == got[9]).all()


# ---- btc-utxo-probe-structs ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_utxo_fetch(policy):
    rng = np.random.default_rng(3)
    slots, n = 1 << 12, 600
    h = tp._p204_ut_args(n, rng, slots=slots)
    mask, op, tx_of, tip = int(h[1]), h[2], h[3], int(h[4])
    coins = h[0][h[0]["vout"] != tp.P204_UT_EMPTY]
    # hand-made: coinbases 99 and 100 blocks old, three coins homed on the last slot (the
    # cluster wraps to slot 0), a known txid with an absent vout, a missing coin homed where
    # the longest probe sequence starts
    coins["height"][:2] = [tp.P204_UT_CB_FLAG | (tip - 99), tp.P204_UT_CB_FLAG | (tip - 100)]
    mix = (coins["vout"][2:5].astype(np.uint64) * 0x9E3779B1) & 0xFFFFFFFF
    coins["txid"][2:5, 0] = (mix.astype(np.uint32) ^ np.uint32(mask)) | (coins["txid"][2:5, 0] & ~np.uint32(mask))
    table = h[0] = tp._p204_ut_table(coins, slots)
    where = [int(np.flatnonzero((table["txid"] == coins["txid"][k]).all(axis=1)
                                & (table["vout"] == coins["vout"][k]))[0]) for k in range(2, 5)]
    assert min(where) < 8 and mask in where                  # wrapped around
    op[:6] = [(coins["txid"][k], coins["vout"][k]) for k in range(5)] + [(coins["txid"][5], 77)]
    dist = (np.arange(slots) - tp._p204_ut_home(table["txid"][:, 0], table["vout"], mask)) & mask
    longest = np.argmax(dist * (table["vout"] != tp.P204_UT_EMPTY))
    op[6]["txid"][:] = 0
    op[6]["txid"][0] = (longest - dist[longest]) & mask ^ 0x9E3779B1 & mask
    op[6]["vout"] = 1                                        # homed where the longest probe started, absent
    out = run("probe/btc-utxo-probe-structs", h, n, policy=policy)
    val, sums, err = tp._p204_ut_ref(table, op, tx_of, tip, len(h[6]))
    assert (out[5] == val).all() and (out[6] == sums).all() and (out[7] == err).all()
    assert list(val[:2]) == [-2, int(coins["value"][1])] and (val[2:5] > 0).all() and list(val[5:7]) == [-1, -1]
    assert dist[longest] >= 5 and err[0] >= 3 and err[1] >= 1
    assert sums.max() > 1e8 and (sums == 0).sum() < 0.1 * len(sums)


# ---- secp256k1-jacobian-walk ----

def test_secp_walk():
    n, steps = 32, 2
    rng = np.random.default_rng(4)
    h = tp._p204_ec_args(n, rng, steps=steps)
    # the last 8 keys: order - 40 + 2 i (points with large y: -20 G ..), walking towards -G
    base = tp._p204_ec_mul(tp.P204_EC_ORDER - 40)
    D = tp._p204_ec_mul(steps)
    pts = [base]
    for _ in range(7):
        pts.append(tp._p204_ec_add(pts[-1], D))
    h[0][-64:] = tp._p204_limbs([q[0] for q in pts])
    h[1][-64:] = tp._p204_limbs([q[1] for q in pts])
    out = run("probe/secp256k1-jacobian-walk", h, n)
    got = tp._p204_ec_affine(out[2], out[3], out[4])
    start = list(zip(tp._p204_unlimb(h[0]), tp._p204_unlimb(h[1])))
    ref = [tp._p204_ec_add(q, D) for q in start]
    assert got == ref and got[-1] == tp._p204_ec_mul(tp.P204_EC_ORDER - 40 + 16)
    assert all(X < tp.P204_EC_P for X in tp._p204_unlimb(np.concatenate([out[2], out[3], out[4]])))
    assert got[:n - 9] == start[1:n - 8]                    # consecutive keys: each lands on the next one
    # no step: the points come back as (x, y, 1)
    h[5] = np.int32(0)
    out = run("probe/secp256k1-jacobian-walk", h, n)
    assert (out[2] == h[0]).all() and (out[3] == h[1]).all() and (out[4].reshape(n, 8) == [1] + [0] * 7).all()


# ---- bip37-bloom-murmur-smem ----

@pytest.mark.parametrize("grid", [None, (3, 1)])
def test_bloom_match(grid):
    rng = np.random.default_rng(5)
    n = 3000
    h = tp._p204_bl_args(n, rng)
    filt, nh, tw, data, start = h[0], int(h[2]), h[3], h[4], h[5]
    # short elements (the hash's tails): 1..7 bytes twice, the first of each length inserted
    short = [rng.integers(0, 256, L, dtype=np.uint8).tobytes() for L in range(1, 8) for _ in range(2)]
    filt = h[0] = filt | tp._p204_bl_filter(short[::2], tw)
    lens = np.concatenate([[len(e) for e in short], np.diff(start)[14:]])
    data = h[4] = np.concatenate([np.frombuffer(b"".join(short), np.uint8), data[start[14]:]])
    start = h[5] = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    assert start[-1] == len(data)
    out = run("probe/bip37-bloom-murmur-smem", h, n, grid=grid)
    ref = tp._p204_bl_ref(filt, nh, tw, data, start)
    txm = np.zeros(len(h[8]), np.int32)
    txm[h[6][ref == 1]] = 1
    assert (out[7] == ref).all() and (out[8] == txm).all() and out[9][0] == ref.sum()
    assert list(ref[:14:2]) == [1] * 7 and ref.sum() >= 10 and ref[14:].sum() >= 3


def test_bloom_small_filter():
    n = 256
    rng = np.random.default_rng(6)
    h = tp._p204_bl_args(n, rng)
    h[0] = np.zeros(tp.P204_BL_BYTES, np.uint8)
    h[0][:3] = [0xFF, 0x5A, 0xFF]                           # a 3-byte filter: 24 bits, 4 of them clear
    h[1], h[2] = np.int32(3), np.int32(2)
    out = run("probe/bip37-bloom-murmur-smem", h, n)
    ref = tp._p204_bl_ref(h[0][:3], 2, h[3], h[4], h[5])
    assert (out[7] == ref).all() and 0.5 < ref.mean() < 0.8 and out[9][0] == ref.sum()


# ---- mempool-feerate-hist-atomics ----

@pytest.mark.parametrize("grid", [None, (3, 1)])
def test_feerate_hist(grid):
    rng = np.random.default_rng(7)
    n = 6000
    h = tp._p204_fh_args(n, rng)
    fee, w = h[0], h[1]
    w[:6] = [561, 562, 400000, 4000, 4000, 844]             # vsizes 141, 141 (rounded up), 100000, 1000, 1000, 211
    fee[:6] = [141, 140, 10 ** 10, 0, 1050, 1478]           # rates 1, 0.99, 1e5 (the top bucket), 0,
    #                                                         1.05 (a bucket edge), 7.005
    out = run("probe/mempool-feerate-hist-atomics", h, n, grid=grid)
    b, edge, vs = tp._p204_fh_ref(fee, w)
    assert list(b[:6]) == [0, 0, tp.P204_FH_NB - 1, 0, 1, 39] and list(edge[:6]) == [0, 0, 0, 0, 1, 0]
    cnt = np.bincount(b, minlength=tp.P204_FH_NB)
    vb = np.bincount(b, vs, minlength=tp.P204_FH_NB)
    # a transaction within 1e-4 of a bucket edge may land on either side in float32
    near = [np.clip(b[edge] + d, 0, tp.P204_FH_NB - 1) for d in (-1, 0, 1)]
    slack = sum(np.bincount(k, minlength=tp.P204_FH_NB) for k in near)
    vslack = sum(np.bincount(k, vs[edge], tp.P204_FH_NB) for k in near)
    assert (np.abs(out[2] - cnt) <= slack).all() and out[2].sum() == n
    assert (np.abs(out[3] - vb) <= vslack).all() and out[3].sum() == vs.sum()
    assert out[4][0] == fee.astype(np.float64).sum() and edge.sum() <= 3
    assert cnt[0] > 0.3 * n and (cnt > 0).sum() > 100
