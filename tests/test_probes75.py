"""probe-unseen73's kernels (kernels_cuda/probes75.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import _run, launch, run

IDS = ["probe/pin-sha256-earlyexit", "probe/aes128-ctr-4tables", "probe/rc4-drop256-local",
       "probe/miller-rabin-mont64", "probe/bloom-query-earlyexit", "probe/xor-keypos-hist-smem"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen73"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes75.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # pin: the leaked PIN 50-75% of the way through; 489 blocks at 10^6 PINs
    p = tp.get("probe/pin-sha256-earlyexit")
    assert p.n == 10 ** 6 and p.grid(p.n) == 489
    n = 4000
    salt, target, found, fpin, nn = tp._u73_pin_args(n, rng)
    pin = tp._u73_pin_ref(salt, target, n)
    assert salt.dtype == target.dtype == np.uint32 and len(salt) == 4 and len(target) == 8
    assert 0.5 * n <= pin < 0.75 * n and found[0] == 0 and fpin[0] == -1 and nn == n
    # aes: the tables and the reference on FIPS-197's example (C.1)
    te, sb = tp._u73_aes_te()
    te = te.reshape(4, 256)
    for k in (1, 2, 3):
        assert (te[k] == ((te[0] >> np.uint32(8 * k)) | (te[0] << np.uint32(32 - 8 * k)))).all()
    assert sb[0] == 0x63 and sb[0x53] == 0xED and len(set(sb.tolist())) == 256
    blk = np.frombuffer(bytes.fromhex("00112233445566778899aabbccddeeff"), ">u4").astype(np.uint32)[None]
    ct = tp._u73_aes_encrypt(blk, tp.aes_round_keys(bytes(range(16))))
    assert ct.astype(">u4").tobytes().hex() == "69c4e0d86a7b0430d8cdb78070b4c55a"
    pt, out, te2, sb2, rk, n0, n1, nn = tp._u73_aes_args(1000, rng)
    assert len(pt) == 4000 and pt.dtype == np.uint32 and len(rk) == 44 and te2.dtype == np.uint32
    assert (rk == tp.aes_round_keys(rk[:4].astype(">u4").tobytes())).all()
    # rc4: the reference on known keystreams (Wikipedia's "Key", RFC 6229's 128-bit key)
    ks = tp._u73_rc4_ref(np.frombuffer(b"Key", np.uint8), keylen=3, drop=0, out=10)
    assert bytes(ks[0]).hex() == "eb9f7781b734ca72a719"
    ks = tp._u73_rc4_ref(np.arange(1, 17, dtype=np.uint8), drop=0, out=16)
    assert bytes(ks[0]).hex() == "9ac7cc9a609d1ef7b2932899cde41b97"
    keys = tp._u73_rc4_args(500, rng)[0]
    assert keys.dtype == np.uint8 and len(keys) == 500 * 16 and len(np.unique(keys)) == 256
    # miller-rabin: odd 64-bit candidates with the top bit set, ~4.5% prime (2 / ln 2^63.5),
    # so most warps hold a prime
    assert [tp._u73_is_prime(x) for x in (2, 3, 4, 9, 561, 3215031751, 2 ** 61 - 1, 2 ** 64 - 59, 2 ** 64 - 57)] == \
        [True, True, False, False, False, False, True, True, False]
    c = tp._u73_mr_args(4096, rng)[0]
    assert c.dtype == np.uint64 and (c & np.uint64(1)).all() and (c >> np.uint64(63)).all()
    pr = tp._u73_mr_ref(c)
    assert 0.03 < pr.mean() < 0.06 and 0.6 < pr.reshape(-1, 32).any(axis=1).mean() < 0.9
    # bloom: 2^29 bits at the probe's 2^22 queries; a half-full filter; members all hit,
    # others mostly stop after one or two bits
    assert tp._u73_bloom_log2(1 << 22) == 29 and tp._u73_bloom_log2(4096) == 19
    keys, filt, hit, mask, nn = tp._u73_bloom_args(4096, rng)
    assert filt.dtype == np.uint32 and len(filt) * 32 == int(mask) + 1 == 1 << 19
    dens = np.unpackbits(filt.view(np.uint8)).mean()
    assert 0.5 < dens < 0.53
    h, probes = tp._u73_bloom_ref(keys, filt, mask)
    assert 0.48 < h.mean() < 0.56 and 1.5 < probes[h == 0].mean() < 2.5
    assert (probes.reshape(-1, 32).max(axis=1) == 7).all()                   # every warp runs 7 probes
    # xor: English-like text under a 13-byte key: the commonest byte at each position XOR
    # ' ' is the key, which decrypts to the text's alphabet; about 30 of 256 bins a position
    # are non-zero
    ct, hist, kl, nw = tp._u73_xor_args(1 << 16, rng)
    assert ct.dtype == np.uint32 and nw == len(ct) == 1 << 14 and kl == tp.U73_XK_KEYLEN
    ref = tp._u73_xor_ref(ct, kl).reshape(kl, 256)
    key = ref.argmax(axis=1).astype(np.uint8) ^ np.uint8(ord(" "))
    pt = ct.view(np.uint8) ^ np.resize(key, 4 * nw)
    assert set(bytes(np.unique(pt)).decode()) == set(tp.U73_XK_TEXT) and len(set(key.tolist())) > 8
    assert 0.16 < ref.max(axis=1).sum() / (4 * nw) < 0.2 and ((ref > 0).sum(axis=1) <= 33).all()
    assert tp.get("probe/xor-keypos-hist-smem").grid(1 << 24) == 1024


# ---- pin-sha256-earlyexit ----

def test_pin_crack():
    # the grid for 5000 PINs (3 blocks) searching 2000 (n_pins, an argument): 3 rounds of
    # 768, the last partial; the PIN (1000 .. 1499) in the second
    n, npins = 5000, 2000
    host = tp._u73_pin_args(npins, np.random.default_rng(0))
    (salt, target, found, fpin, nn), res = run_res("probe/pin-sha256-earlyexit", host, n)
    assert found[0] == 1 and fpin[0] == tp._u73_pin_ref(host[0], host[1], npins)
    # a PIN outside the range searched: nobody finds it, and every round runs
    h = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    h[1] = tp._u73_sha256_pin(salt, npins + 3)
    after, full = run_res("probe/pin-sha256-earlyexit", h, n)
    assert after[2][0] == 0 and after[3][0] == -1
    assert res.warp_instructions < 0.8 * full.warp_instructions         # the early exit saves rounds


def test_pin_crack_random():
    # warps interleaved at random (one block of 2 rounds: the PIN, 144 .. 215, in the first,
    # warp 0 alone in the second): the flag's reads and the finder's atomicExch do not race
    n = 288
    host, (salt, target, found, fpin, nn), *_ = launch("probe/pin-sha256-earlyexit", n, policy="random")
    assert found[0] == 1 and fpin[0] == tp._u73_pin_ref(host[0], host[1], n)


def run_res(pid, host, n):
    """run, also giving the launch's result."""
    return _run(tp.get(pid), [a.copy() if isinstance(a, np.ndarray) else a for a in host], {}, n, 0, "lockstep")


def test_pin_first_and_last():
    # PIN 0 (round one) and the last one of the range (the partial last round): the grid
    # for 3000 PINs (2 blocks) searching 600 (n_pins, an argument), rounds of 512 and 88
    rng = np.random.default_rng(3)
    n = 600
    host = tp._u73_pin_args(n, rng)
    for pin in (0, n - 1):
        h = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
        h[1] = tp._u73_sha256_pin(h[0], pin)
        out = run("probe/pin-sha256-earlyexit", h, 3000)
        assert out[2][0] == 1 and out[3][0] == pin


# ---- aes128-ctr-4tables ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_aes128_ctr(policy):
    # lockstep: 2 blocks, the last partial; random (warps interleaved one instruction at a
    # time: the tables staged in shared memory, the barrier, the reads): one partial block
    n = 300 if policy == "lockstep" else 40
    host, out, *_ = launch("probe/aes128-ctr-4tables", n, policy=policy)
    pt, ct, te, sb, rk, n0, n1, _ = host
    ref = tp._u73_aes_ctr_ref(pt, rk, n0, n1)
    assert (out[1] == ref).all() and (out[0] == pt).all()
    # CTR is its own inverse: decrypting gives the plaintext back
    h = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    h[0], h[1] = out[1].copy(), np.zeros_like(out[1])
    assert (run("probe/aes128-ctr-4tables", h, n, policy=policy)[1] == pt).all()


def test_aes128_fips197():
    # a zero plaintext gives the keystream: block 0 under FIPS-197's key, the counter block
    # 00112233 44556677 00000000 00000000
    rng = np.random.default_rng(1)
    n = 40
    host = tp._u73_aes_args(n, rng)
    host[0] = np.zeros(4 * n, np.uint32)
    host[4] = tp.aes_round_keys(bytes(range(16)))
    host[5], host[6] = np.uint32(0x00112233), np.uint32(0x44556677)
    ks = run("probe/aes128-ctr-4tables", host, n)[1]
    blk = np.array([[0x00112233, 0x44556677, 0, i] for i in range(n)], np.uint32)
    want = tp._u73_aes_encrypt(blk, host[4]).astype(">u4").tobytes()
    assert ks.tobytes() == want


# ---- rc4-drop256-local ----

def test_rc4_drop():
    n = 100                                                 # one partial block
    host, (keys, ks, nn), *_ = launch("probe/rc4-drop256-local", n)
    assert (ks.reshape(n, 16) == tp._u73_rc4_ref(keys)).all()


def test_rc4_special_keys():
    # an all-zero key, RFC 6229's key, and keys equal but for their last byte
    rng = np.random.default_rng(4)
    n = 40
    host = tp._u73_rc4_args(n, rng)
    k = host[0].reshape(n, 16)
    k[0] = 0
    k[1] = np.arange(1, 17)
    k[3] = k[2]
    k[3, 15] ^= 1
    out = run("probe/rc4-drop256-local", host, n, policy="random")
    ref = tp._u73_rc4_ref(host[0])
    assert (out[1].reshape(n, 16) == ref).all() and (ref[2] != ref[3]).any()


# ---- miller-rabin-mont64 ----

SPECIAL = [0, 1, 2, 3, 4, 5, 9, 25, 561, 1105, 7919, 2 ** 32 + 1, 3215031751, 3825123056546413051,
           2 ** 61 - 1, (2 ** 32 - 5) ** 2, 2 ** 64 - 59, 2 ** 64 - 57, 2 ** 64 - 2, 2 ** 63 + 29,
           18446744030759878681, 4294967291 * 4294967279, 2 ** 63 - 25, 1000000007 * 998244353]


def test_miller_rabin():
    n = 300                                                 # 2 blocks, the last partial
    host, (cand, flag, count, nn), *_ = launch("probe/miller-rabin-mont64", n)
    ref = tp._u73_mr_ref(cand)
    assert (flag == ref).all() and count[0] == ref.sum() and ref.sum() >= 5


def test_miller_rabin_special():
    # small numbers, evens, Carmichael numbers, strong pseudoprimes to several bases, primes
    # near 2^64 and 2^63, squares and products of two large primes
    rng = np.random.default_rng(5)
    n = 64
    host = tp._u73_mr_args(n, rng)
    host[0][:len(SPECIAL)] = np.array(SPECIAL, np.uint64)
    out = run("probe/miller-rabin-mont64", host, n, policy="random")
    ref = tp._u73_mr_ref(host[0])
    assert (out[1] == ref).all() and out[2][0] == ref.sum()
    assert ref[:len(SPECIAL)].tolist() == [0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0,
                                            int(tp._u73_is_prime(2 ** 63 + 29)), 0, 0,
                                            int(tp._u73_is_prime(2 ** 63 - 25)), 0]


# ---- bloom-query-earlyexit ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_bloom_query(policy):
    n = 4000                                                # 16 blocks, the last partial
    host, (keys, filt, hit, mask, nn), *_ = launch("probe/bloom-query-earlyexit", n, policy=policy)
    ref, probes = tp._u73_bloom_ref(keys, filt, mask)
    assert (hit == ref).all() and 0.45 < hit.mean() < 0.6 and (filt == host[1]).all()


def test_bloom_empty_and_full():
    # an empty filter (nothing hits after one probe) and a full one (everything hits)
    rng = np.random.default_rng(6)
    n = 300
    host = tp._u73_bloom_args(n, rng)
    for word, want in ((0, 0), (0xFFFFFFFF, 1)):
        h = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
        h[1][:] = word
        assert (run("probe/bloom-query-earlyexit", h, n)[2] == want).all()


# ---- xor-keypos-hist-smem ----

@pytest.mark.parametrize("policy, n", [("lockstep", 1 << 16), ("random", 1 << 15)])
def test_xor_hist(policy, n):
    # 2^14 words: 4 blocks of 16 rounds; random: 2^13 words, 2 blocks of 16 rounds
    host, (ct, hist, kl, nw), *_ = launch("probe/xor-keypos-hist-smem", n, policy=policy)
    assert (hist == tp._u73_xor_ref(ct, kl)).all() and hist.sum() == n


@pytest.mark.parametrize("keylen", [1, 7, 32])
def test_xor_hist_keylens(keylen):
    # other key lengths guessed on one ciphertext, a word count leaving a partial last round
    rng = np.random.default_rng(7)
    n = 5000 * 4
    host = tp._u73_xor_args(n, rng)
    host[1] = np.zeros(keylen * 256, np.uint32)
    host[2] = np.int32(keylen)
    out = run("probe/xor-keypos-hist-smem", host, n)
    assert (out[1] == tp._u73_xor_ref(host[0], keylen)).all()
