"""probe-unseen78's kernels (kernels_cuda/probes80.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/for-bitunpack", "probe/delta-zigzag-varint", "probe/rle-ballot-compact",
       "probe/huffman-canonical-bitserial", "probe/lz77-smem-window", "probe/byte-entropy-smem"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen78"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes80.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    # for-bitunpack: widths 4..20 (mean ~12), frames 4 w words apart, offsets using their width
    n = 1 << 16
    packed, base, width, word_off, out, nn = tp._p80_for_args(n, rng)
    assert packed.dtype == np.uint32 and base.dtype == width.dtype == word_off.dtype == np.int32 and nn == n
    assert width.min() == 4 and width.max() == 20 and abs(width.mean() - 12) < 0.5
    assert (np.diff(word_off) == 4 * width[:-1]).all() and len(packed) == word_off[-1] + 4 * width[-1]
    assert np.abs(base).max() <= 1 << 20
    off = tp._p80_for_ref(packed, base, width, word_off, n).astype(np.int64) - np.repeat(base, 128)
    w = np.repeat(width, 128)
    assert (off >= 0).all() and (off < 2 ** w).all() and ((off >> (w - 1)) == 1).mean() > 0.45   # top bit used
    vals = rng.integers(0, 1 << 32, 3 * 128, dtype=np.uint64) >> np.repeat(np.array([27, 0, 15], np.uint64), 128)
    wd = np.array([5, 32, 17], np.int32)
    wo = np.array([0, 20, 148], np.int32)
    pk = tp._p80_for_pack(vals, wd, wo)
    assert len(pk) == 148 + 68
    assert (tp._p80_for_ref(pk, np.zeros(3, np.int32), wd, wo, 384).view(np.uint32) == vals).all()   # round trip
    # delta-zigzag: a random walk, ~1% jumps, no overflow, ~1.06 varint bytes a value
    x = tp._p80_dz_args(n, rng)[0]
    d = np.diff(x.astype(np.int64))
    assert x.dtype == np.int32 and np.abs(d).max() <= 1 << 16 and 0.008 < (np.abs(d) > 200).mean() < 0.012
    z, b = tp._p80_dz_ref(x)
    assert 1.03 < b / n < 1.09 and z.dtype == np.uint32
    # rle: runs of 16 symbols, mean ~15 bytes, ~7% heads once cut at the 256-byte pieces
    data = tp._p80_rle_args(1 << 20, rng)[0]
    assert data.dtype == np.uint8 and data.max() == 15
    assert 13 < len(data) / (1 + (np.diff(data.astype(int)) != 0).sum()) < 17
    sym, ln, cnt = tp._p80_rle_ref(data)
    assert cnt.sum() == (ln > 0).sum() and ln.sum() == len(data) and 0.06 < cnt.sum() / len(data) < 0.08
    # huffman: a complete prefix code of 256 symbols, lengths 3..11, ~6.4 bits a symbol
    p, lens, codes, count, order = tp._p80_huff_code()
    assert count.dtype == np.int32 and len(count) == 16 and count.sum() == 256 and count[0] == 0
    assert lens.min() == 3 and lens.max() == 11 and (2.0 ** -lens).sum() == 1.0
    assert 6.3 < (p * lens).sum() < 6.45 and sorted(order) == list(range(256))
    assert (np.diff(lens[order]) >= 0).all() and (np.diff(codes[order] << (11 - lens[order])) > 0).all()   # canonical
    for a in range(0, 256, 17):                                              # prefix-free
        for c in range(256):
            if c != a and lens[c] >= lens[a]:
                assert codes[c] >> (lens[c] - lens[a]) != codes[a]
    sy, words, starts = tp._p80_huff_stream(4000, np.random.default_rng(1))
    assert len(sy) == 4000 and len(starts) == 250 and starts[0] == 0
    assert abs(np.diff(starts).mean() / 16 - 6.37) < 0.2                    # bits a symbol
    assert (tp._p80_huff_ref(words, starts, count, order) == sy).all()      # round trip
    # lz77: lowercase words, spaces and full stops; ~26% of positions match 3+ bytes
    t = tp._p80_lz_text(1 << 14, rng)
    assert t.dtype == np.uint8 and set(np.unique(t)) <= set(range(97, 123)) | {32, 46}
    m = tp._p80_lz_ref(t)
    L = m >> 16
    assert 0.2 < (L > 0).mean() < 0.32 and 4.5 < L[L > 0].mean() < 6.5 and (m & 0xffff).max() <= 256
    # byte-entropy: the chunk kinds' entropies ~4.9, 8.0 and 1.8 bits a byte
    n = 32 * 16384
    words, freq, ent, cw = tp._p80_ent_args(n, np.random.default_rng(3))
    kind = tp._p80_ent_kinds(32, np.random.default_rng(3))
    assert words.dtype == np.uint32 and len(words) == n // 4 and cw == 4096 and set(kind) == {0, 1, 2}
    f, e = tp._p80_ent_ref(words, cw)
    assert f.sum() == n
    for k, lo, hi in [(0, 4.8, 4.95), (1, 7.98, 8.0), (2, 1.7, 1.9)]:
        assert lo < e[kind == k].min() and e[kind == k].max() < hi


# ---- for-bitunpack ----

def test_for_unpack():
    n = 1000                                                # 8 frames, the last partial; 4 blocks
    host, out, *_ = launch("probe/for-bitunpack", n)
    assert (out[4] == tp._p80_for_ref(*host[:4], n)).all()


def test_for_unpack_edges():
    # widths 1, 32 (no mask), 31 and 19; a base near INT_MAX that the 32-bit offsets wrap
    rng = np.random.default_rng(4)
    wd = np.array([1, 32, 31, 19], np.int32)
    vals = rng.integers(0, 1 << 32, 512, dtype=np.uint64) >> np.repeat(np.uint64(32) - wd.astype(np.uint64), 128)
    wo = np.concatenate([[0], np.cumsum(4 * wd[:-1])]).astype(np.int32)
    base = np.array([-5, 2 ** 31 - 10, -2 ** 31, 7], np.int32)
    host = [tp._p80_for_pack(vals, wd, wo), base, wd, wo, np.zeros(500, np.int32), np.int32(500)]
    out = run("probe/for-bitunpack", host, 500)[4]
    ref = (np.repeat(base.astype(np.int64), 128)[:500] + vals[:500].astype(np.int64)).astype(np.uint32).view(np.int32)
    assert (out == ref).all() and (out == tp._p80_for_ref(*host[:4], 500)).all()
    assert (out[128:256] < 0).any()                                          # wrapped


# ---- delta-zigzag-varint ----

def test_delta_zigzag():
    n = 1000                                                # 4 blocks, the last partial
    host, (x, zz, tot, _), *_ = launch("probe/delta-zigzag-varint", n)
    z, b = tp._p80_dz_ref(host[0])
    assert (zz == z).all() and int(tot[0]) == b


def test_delta_zigzag_edges():
    # 1- to 5-byte varints (deltas up to +-2^30, zero runs), a partial single block
    rng = np.random.default_rng(6)
    n = 200
    d = rng.integers(-1, 2, n) * (1 << rng.integers(0, 31, n))
    d[50:60] = 0
    x = np.cumsum(d)
    x = np.clip(x, -2 ** 31 + 2 ** 30, 2 ** 31 - 2 ** 30 - 1).astype(np.int32)
    host = [x, np.zeros(n, np.uint32), np.full(1, 7, np.uint64), np.int32(n)]
    zz, tot = run("probe/delta-zigzag-varint", host, n)[1:3]
    z, b = tp._p80_dz_ref(x)
    assert (zz == z).all() and int(tot[0]) == b + 7
    nb = (np.floor(np.log2((z | 1).astype(np.float64))).astype(int) + 7) // 7
    assert set(nb) == {1, 2, 3, 4, 5}
    dd = np.diff(x.astype(np.int64), prepend=0)
    assert (z.astype(np.int64) == np.where(dd >= 0, 2 * dd, -2 * dd - 1)).all()    # zigzag itself


# ---- rle-ballot-compact ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_rle_compact(policy):
    n = 1000                                                # 4 pieces, the last partial
    host, (data, sym, ln, cnt, _), *_ = launch("probe/rle-ballot-compact", n, policy=policy)
    rs, rl, rc = tp._p80_rle_ref(host[0])
    assert (sym == rs).all() and (ln == rl).all() and (cnt == rc).all()
    # the runs decode to the input
    dec = np.concatenate([np.repeat(sym[b * 256:b * 256 + c], ln[b * 256:b * 256 + c]) for b, c in enumerate(cnt)])
    assert (dec == data).all()


def test_rle_compact_edges():
    # one run a piece (length 256, the last piece's 44), every byte its own run (256
    # runs: the sentinel at slot 256), then a mixed piece
    n = 256 * 3 + 44
    data = np.zeros(n, np.uint8)
    data[256:512] = np.arange(256) % 2
    data[512:] = 9
    data[600:610] = 3
    host = [data, np.zeros(n, np.uint8), np.zeros(n, np.uint16), np.zeros(4, np.int32), np.int32(n)]
    sym, ln, cnt = run("probe/rle-ballot-compact", host, n, policy="random")[1:4]
    rs, rl, rc = tp._p80_rle_ref(data)
    assert (sym == rs).all() and (ln == rl).all() and (cnt == rc).all()
    assert list(cnt) == [1, 256, 3, 1] and ln[0] == 256 and ln[768] == 44


# ---- huffman-canonical-bitserial ----

def test_huffman_decode():
    n = 16 * 300                                            # 300 chunks: 2 blocks, the last partial
    host, out, *_ = launch("probe/huffman-canonical-bitserial", n)
    sy = tp._p80_huff_stream(n, np.random.default_rng(0))[0]
    assert (out[4] == sy).all() and (out[4] == tp._p80_huff_ref(*host[:4])).all()


def test_huffman_decode_edges():
    # chunks of only the longest codes, only the shortest, and every symbol in turn
    p, lens, codes, count, order = tp._p80_huff_code()
    longest = np.flatnonzero(lens == lens.max())
    syms = np.concatenate([np.resize(longest, 32), np.full(16, np.argmin(lens)), np.arange(256)]).astype(np.uint8)
    bits = "".join(format(int(codes[s]), f"0{lens[s]}b") for s in syms)
    starts = np.concatenate([[0], np.cumsum(lens[syms])])[::16][:len(syms) // 16].astype(np.int32)
    bits += "0" * (-len(bits) % 32 + 32)
    words = np.array([int(bits[k:k + 32], 2) for k in range(0, len(bits), 32)], np.uint32)
    nc = len(starts)
    host = [words, starts, count, order, np.zeros(nc * 16, np.uint8), np.int32(nc)]
    out = run("probe/huffman-canonical-bitserial", host, nc * 16)[4]
    assert (out == syms).all()


# ---- lz77-smem-window ----

def test_lz77_match():
    n = 700                                                 # 6 blocks, the last partial
    host, (text, match, _), *_ = launch("probe/lz77-smem-window", n)
    ref = tp._p80_lz_ref(host[0])
    assert (match == ref).all() and (ref > 0).mean() > 0.15


def test_lz77_match_edges():
    # a run of 'a' (dist 1, 32 bytes: the early exit, shorter near the end), then bytes of
    # period 256 (matched only at the window's far edge, the tile spanning it)
    n = 40 + 330                                            # 3 blocks, the last partial
    text = np.concatenate([np.full(40, 97), np.arange(330) % 256]).astype(np.uint8)
    host = [text, np.zeros(n, np.int32), np.int32(n)]
    match = run("probe/lz77-smem-window", host, n, policy="random")[1]
    ref = tp._p80_lz_ref(text)
    assert (match == ref).all()
    assert match[0] == 0 and match[1] == (32 << 16 | 1) and match[20] == (20 << 16 | 1)
    assert match[300] == (32 << 16 | 256) and match[n - 2] == 0 and match[n - 20] == (20 << 16 | 256)


# ---- byte-entropy-smem ----

def test_byte_entropy():
    n = 3 * 16384
    host, (words, freq, ent, _), *_ = launch("probe/byte-entropy-smem", n)
    f, e = tp._p80_ent_ref(host[0], host[3])
    assert (freq == f).all()
    np.testing.assert_allclose(ent, e, rtol=0, atol=2e-5)


def test_byte_entropy_edges():
    # one byte only (entropy 0; a whole warp's atomics on one bin), every byte value
    # equally often (8 bits), two values half and half (1 bit); freq accumulates
    b = np.concatenate([np.full(16384, 200), np.arange(16384) % 256, np.arange(16384) % 2 * 255]).astype(np.uint8)
    host = [b.view(np.uint32), np.full(256, 5, np.uint32), np.zeros(3, np.float32), np.int32(4096)]
    freq, ent = run("probe/byte-entropy-smem", host, len(b), policy="random")[1:3]
    assert list(ent) == [0.0, 8.0, 1.0]
    assert (freq == tp._p80_ent_ref(host[0], 4096)[0] + 5).all()
