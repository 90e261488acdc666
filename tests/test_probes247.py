"""probe-unseen245's kernels (kernels_cuda/probes247.cu) give independent numpy references'
answers in the emulator at small sizes, with the sanitizer on: the timing probes are only
worth their measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import run

IDS = ["probe/rans-interleaved-warp-decode", "probe/lz77-hash-chain-longest-match",
       "probe/bwt-st5-mtf-rank-entropy", "probe/huffman-encode-scan-atomicor",
       "probe/gorilla-xor-float64-metrics", "probe/pfor-ballot-pack-exceptions"]

F32 = np.float32
EPS = 2.0 ** -24                 # float32's unit roundoff


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen245"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes247.cu" and len(tp.get(i).note) > 400 for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


# ---- the data ----

def _entropy(h):
    p = h[h > 0] / h.sum()
    return float(-(p * np.log2(p)).sum())


def test_text_corpus():
    import zlib
    rng = np.random.default_rng(1)
    t = tp._p247_text(rng, 1 << 18)
    assert len(t) == 1 << 18 and t.dtype == np.uint8
    s = bytes(t).decode("ascii")
    words = s.split()
    assert 4.0 < len(t) / len(words) < 7.5                                  # ~5.6 characters a word, with its space
    top = {w: words.count(w) for w in ("the", "of", "and")}
    assert top["the"] > top["of"] > 0.2 * top["the"] and top["and"] > 0      # Zipf's head
    assert s.count(". ") + s.count(".\n") > len(words) / 25                  # sentences
    h = np.bincount(t, minlength=256)
    assert 4.0 < _entropy(h) < 4.6 and 40 <= (h > 0).sum() <= 60           # English-like order-0 statistics
    assert 0.3 < len(zlib.compress(bytes(t), 6)) / len(t) < 0.45            # gzip's ratio on prose


def test_photo_residuals():
    rng = np.random.default_rng(2)
    img = tp._p247_photo(rng, 512, 512)
    assert 60 < img.mean() < 200 and img.std() > 20 and (img == 255).mean() < 0.01
    r = tp._p247_med(img)
    h = np.bincount(r.ravel(), minlength=256)
    assert h.argmax() <= 2 and 3.5 < _entropy(h) < 6.0                      # peaked at 0: 4-6 bits a pixel
    # MED: a vertical edge and a horizontal ramp are predicted exactly off the borders
    j = np.arange(40)
    ramp = np.tile(np.where(j < 17, 30, 220) + j // 3, (40, 1)).astype(np.uint8)
    assert (tp._p247_med(ramp)[1:, 1:] == 0).all()


def test_postings_and_metrics():
    rng = np.random.default_rng(3)
    g = tp._p247_postings(rng, 128 * 400)
    assert len(g) == 128 * 400 and g.dtype == np.uint32 and g.max() < tp.P247_PF_DOCS
    assert 10 < np.median(g) < 1e6 and (g == 0).any()                       # dense and sparse lists
    v = tp._p247_metrics(rng, 2000)
    assert v.shape == (120, 2000)
    d = np.diff(v, axis=0)
    assert 0.05 < (d == 0).all(0).mean() < 0.3                              # constant series
    mono = (d >= 0).all(0) & (d > 0).any(0) & (v == np.floor(v)).all(0)
    assert 0.1 < mono.mean() < 0.3                                          # counters


# ---- rans_decode_warp ----

def _check_rans(sym, f=None, cum=None, tamper=None):
    host = tp._p247_rans_host(sym, f, cum)
    if tamper is not None:
        host[1][tamper] ^= np.uint32(0x5A5)
    out = run("probe/rans-interleaved-warp-decode", host, len(sym))
    return host, out[5], out[6]


def test_rans_photo_residuals():
    rng = np.random.default_rng(4)
    sym = tp._p247_med(tp._p247_photo(rng, 256, 256)).ravel()[:3 * tp.P247_RANS_CHUNK]
    host, got, bad = _check_rans(sym)
    # integer arithmetic throughout: the decoder gives back the very symbols encoded
    assert (got == sym).all() and (bad == 0).all()
    # rANS with 12-bit probabilities codes within a few % of the order-0 entropy (the
    # words and the 32-bit initial states together)
    h = np.bincount(sym, minlength=256)
    bits = 16 * (len(host[2]) - 1) + 32 * len(host[1])
    assert _entropy(h) * len(sym) < bits < 1.04 * _entropy(h) * len(sym)


def test_rans_cases():
    rng = np.random.default_rng(5)
    # a skewed alphabet: one symbol at 4089 / 4096 (no renormalisation for long runs), six
    # at 1 / 4096 (a word nearly every time)
    f = np.zeros(256, np.int64)
    f[[7, 8, 9, 100, 200, 254, 255]] = [4090, 1, 1, 1, 1, 1, 1]
    cum = np.cumsum(f) - f
    p = f / f.sum()
    sym = rng.choice(256, 2 * tp.P247_RANS_CHUNK, p=p).astype(np.uint8)
    sym[100:140] = 255                                                       # a run of the rarest
    host, got, bad = _check_rans(sym, f, cum)
    assert (got == sym).all() and (bad == 0).all()
    # a corrupted state: that chunk decodes garbage and reports it, the next is untouched
    sym = rng.integers(0, 256, 4 * tp.P247_RANS_CHUNK).astype(np.uint8)
    host, got, bad = _check_rans(sym, tamper=5)
    assert bad[0] >= 1 and (bad[1:] == 0).all()
    assert (got[tp.P247_RANS_CHUNK:] == sym[tp.P247_RANS_CHUNK:]).all()
    lane5 = np.arange(5, tp.P247_RANS_CHUNK, 32)
    assert (got[lane5] != sym[lane5]).any()


# ---- lz77_chain_match ----

def _lz_ref(buf, prev, P):
    """gzip's longest_match at every position, positions side by side (int64 numpy)."""
    n = len(buf)
    b = np.concatenate([buf.astype(np.int64), np.full(260, -1)])          # past the end: never equal
    i = np.arange(n)
    limit = np.minimum(n - i, 258)
    best = np.full(n, 2)
    bdist = np.zeros(n, np.int64)
    links = np.zeros(n, np.int64)
    chain = np.full(n, int(P["max_chain"]))
    cut = np.zeros(n, bool)
    live = limit >= 3
    j = prev.astype(np.int64).copy()
    while True:
        a = np.flatnonzero(live & (j >= 0) & (i - j <= int(P["max_dist"])) & (chain > 0))
        if len(a) == 0:
            break
        chain[a] -= 1
        links[a] += 1
        ja = j[a]
        cand = (b[ja + best[a]] == b[a + best[a]]) & (b[ja] == b[a])
        c, jc = a[cand], ja[cand]
        L = np.ones(len(c), np.int64)
        go = np.ones(len(c), bool)
        while go.any():
            go &= (L < limit[c]) & (b[jc + L] == b[c + L])
            L += go
        up = L > best[c]
        u, Lu = c[up], L[up]
        best[u], bdist[u] = Lu, u - jc[up]
        stop = (Lu >= int(P["nice_len"])) | (Lu == limit[u])
        live[u[stop]] = False
        cutn = u[~stop & ~cut[u] & (Lu >= int(P["good_len"]))]
        chain[cutn] >>= 2
        cut[cutn] = True
        j[a] = np.where(ja >= 0, prev[ja], -1)
    m = best >= 3
    return np.where(m, best, 0), np.where(m, bdist, 0), links


def _check_lz(buf, P=None):
    P = tp._p247_lz_params() if P is None else P
    host = tp._p247_lz_host(np.asarray(buf, np.uint8))
    out = run("probe/lz77-hash-chain-longest-match", host, len(buf), symbols={"c_lz": P})
    ln, dist, links = _lz_ref(host[0], host[1], P)
    m = out[3]
    # integer compares throughout: exact
    assert (m["len"] == ln).all() and (m["dist"] == dist).all()
    assert out[4].tolist() == [int((ln > 0).sum()), int(ln.sum()), int(links.sum())]
    # every match is a real one, inside the window
    for k in np.flatnonzero(ln)[::7]:
        d, L = int(dist[k]), int(ln[k])
        assert 0 < d <= int(P["max_dist"]) and (host[0][k - d:k - d + L] == host[0][k:k + L]).all()
    return ln, dist, links


def test_lz_text():
    rng = np.random.default_rng(6)
    buf = tp._p247_text(rng, 3000)
    ln, dist, links = _check_lz(buf)
    assert 0.4 < (ln > 0).mean() < 0.9 and links.max() == 32                # prose: most positions match
    assert (ln[ln > 0] >= 3).all() and ln.max() > 8


def test_lz_cases():
    rng = np.random.default_rng(7)
    buf = np.frombuffer(b"abcabcabc" + b"x" * 600 + b"the cat sat on the mat; the cat sat." * 3, np.uint8).copy()
    buf = np.concatenate([buf, rng.integers(0, 256, 200).astype(np.uint8)])  # an incompressible tail
    ln, dist, links = _check_lz(buf)
    assert ln[3] == 6 and dist[3] == 3                                       # "abcabc" overlapping itself
    assert ln[10] == 258 and dist[10] == 1                                   # the run: the longest deflate codes
    assert ln[-150:].max() == 0                                              # random bytes: literals
    # a short window and a long chain: nothing farther away, nice never reached
    ln2, dist2, _ = _check_lz(buf, tp._p247_lz_params(max_chain=200, good=4, nice=258, max_dist=30))
    assert dist2.max() <= 30 and ln2[10] == 258 and (ln2[620:] > 0).sum() < (ln[620:] > 0).sum()


# ---- mtf_rank_entropy ----

def _mtf_ref(data, init, chunk):
    out = np.empty(len(data), np.int64)
    for c in range(len(data) // chunk):
        lst = [int(x) for x in init]
        for k, x in enumerate(data[c * chunk:(c + 1) * chunk].tolist()):
            r = lst.index(x)
            out[c * chunk + k] = r
            del lst[r]
            lst.insert(0, x)
    return out


def _check_mtf(data, chunk, init=None):
    host = tp._p247_mtf_host(np.asarray(data, np.uint8), init, chunk=chunk)
    out = run("probe/bwt-st5-mtf-rank-entropy", host, len(data) * tp.P247_MTF_CHUNK // chunk)
    r = _mtf_ref(host[0], host[1], chunk)
    assert (out[4] == r).all()                                               # integer work: exact
    nch = len(r) // chunk
    per = tp.P247_MTF_WARPS * chunk
    want = []
    for b in range(-(-nch // tp.P247_MTF_WARPS)):
        h = np.bincount(r[b * per:(b + 1) * per], minlength=256).astype(np.float64)
        N = h.sum()
        want.append((h[h > 0] * np.log2(N / h[h > 0])).sum())
    # each term h log2f(N / h) in float32 (a divide, log2f's 1-2 ulp, a multiply: within
    # 4 eps relative), at most 2 a thread then a 32-lane tree and 4 warp partials: 8 more
    # roundings of a sum of positive terms: within 12 eps of the total
    assert np.allclose(out[5], want, rtol=12 * EPS, atol=0)
    assert (out[6] == np.bincount(r, minlength=256)).all()
    return r, out


def test_mtf_st_text():
    rng = np.random.default_rng(8)
    t = tp._p247_text(rng, 1 << 15)
    d = tp._p247_st(t, block=1 << 14)
    r, out = _check_mtf(d[:9 * 128], 128)                                    # 9 chunks: 3 blocks, the last partial
    assert 0.25 < (r == 0).mean() < 0.7
    # the transform itself: each block's bytes permuted, and sorted contexts put equal
    # bytes together (long runs)
    for k in range(2):
        blk = slice(k << 14, (k + 1) << 14)
        assert (np.bincount(d[blk], minlength=256) == np.bincount(t[blk], minlength=256)).all()
    assert (np.diff(d.astype(np.int64)) == 0).mean() > 0.3 > (np.diff(t.astype(np.int64)) == 0).mean()


def test_st_is_a_sort_of_contexts():
    buf = np.frombuffer(b"banana_bandana", np.uint8)
    k = tp.P247_ST_ORDER
    rot = [bytes(np.roll(buf, -i)[:k]) for i in range(len(buf))]
    order = sorted(range(len(buf)), key=lambda i: (rot[i], i))
    assert bytes(tp._p247_st(buf)) == bytes(buf[(np.array(order) - 1) % len(buf)])


def test_mtf_cases():
    init = np.arange(256, dtype=np.uint8)
    d = np.empty(4 * 64, np.uint8)
    d[:64] = np.arange(255, 191, -1)                                         # ranks 255, 255, ...: the last lane's last byte
    d[64:128] = 7                                                            # a run: 7, then zeros
    d[128:192] = np.tile([1, 2], 32)                                         # alternating: rank 1
    d[192:] = np.arange(64) * 4 + 3                                          # each byte a lane boundary apart
    r, out = _check_mtf(d, 64, init)
    assert (r[:64] == 255).all() and r[64] == 7 and (r[65:128] == 0).all() and (r[130:192] == 1).all()


# ---- huff_encode_block ----

def _huff_ref(data, book, nblk):
    """Each block's words (MSB-first, zero-padded) and bits, from bit strings."""
    words, bits = [], []
    per = tp.P247_HUF_SYMS
    for b in range(nblk):
        s = "".join(format(int(book["code"][x]), "0%db" % int(book["len"][x])) for x in data[b * per:(b + 1) * per])
        bits.append(len(s))
        s += "0" * (-len(s) % 32)
        words.append(np.array([int(s[k:k + 32], 2) for k in range(0, len(s), 32)], np.uint64))
    return words, bits


def _check_huf(data, book):
    host = tp._p247_huff_host(np.asarray(data, np.uint8))
    out = run("probe/huffman-encode-scan-atomicor", host, len(data), symbols={"c_huf": book})
    nblk = len(out[3])
    words, bits = _huff_ref(host[0], book, nblk)
    # integer work: the blocks' bit counts and words exact, the unused words untouched
    assert out[3].tolist() == bits
    W = out[2].reshape(nblk, tp.P247_HUF_CAPW)
    for b in range(nblk):
        assert (W[b, :len(words[b])] == words[b]).all() and (W[b, len(words[b]):] == 0).all()
    return out


def test_huffman_book_and_text():
    book = tp._p247_huff_symbols()["c_huf"]
    L = book["len"].astype(np.int64)
    assert L.max() <= 15 and abs((2.0 ** -L[L > 0]).sum() - 1) < 1e-12     # a complete prefix code
    codes = {format(int(c), "0%db" % l) for c, l in zip(book["code"], L) if l}
    assert not any(a != b and b.startswith(a) for a in codes for b in codes)  # prefix-free
    rng = np.random.default_rng(10)
    d = tp._p247_text(rng, 2 * tp.P247_HUF_SYMS + 8 * 40)                    # 2 blocks and 40 threads of a third
    out = _check_huf(d, book)
    assert 4.2 < out[3].sum() / len(d) < 4.7                                  # bits a byte of prose


def test_huffman_long_codes():
    # Fibonacci-like counts give the longest codes: the lengths limited to 15, codes
    # straddling words everywhere
    h = np.zeros(256, np.int64)
    fib = [1, 1]
    while len(fib) < 24:
        fib.append(fib[-1] + fib[-2])
    h[40:64] = fib
    L = tp._p247_huff_lengths(h)
    assert 12 <= L.max() <= 15 and (L[40:64] > 0).all()
    book = tp._p247_huff_book(L)
    rng = np.random.default_rng(11)
    d = rng.choice(np.arange(40, 64), 2 * tp.P247_HUF_SYMS, p=np.ones(24) / 24).astype(np.uint8)
    _check_huf(d, book)


# ---- gorilla_xor_encode ----

def _gorilla_ref(col):
    """A series' Gorilla bits as a string (Python ints)."""
    v = col.view(np.uint64).tolist()
    out = [format(v[0], "064b")]
    plz = -1
    ptz = 0
    for a, b in zip(v[:-1], v[1:]):
        x = a ^ b
        if x == 0:
            out.append("0")
            continue
        lz = min(64 - x.bit_length(), 31)
        tz = (x & -x).bit_length() - 1
        if plz >= 0 and lz >= plz and tz >= ptz:
            out.append("10" + format(x >> ptz, "0%db" % (64 - plz - ptz)))
        else:
            mb = 64 - lz - tz
            out.append("11" + format(lz, "05b") + format(mb & 63, "06b") + format(x >> tz, "0%db" % mb))
            plz, ptz = lz, tz
    return "".join(out)


def _gorilla_decode(words, nbits, npts):
    s = "".join(format(int(w), "064b") for w in words)[:nbits]
    v = [int(s[:64], 2)]
    p = 64
    plz, mb = 0, 0
    while len(v) < npts:
        if s[p] == "0":
            v.append(v[-1])
            p += 1
            continue
        if s[p + 1] == "1":
            plz = int(s[p + 2:p + 7], 2)
            mb = int(s[p + 7:p + 13], 2) or 64
            p += 13
        else:
            p += 2
        x = int(s[p:p + mb], 2) << (64 - plz - mb)
        p += mb
        v.append(v[-1] ^ x)
    assert p == nbits
    return np.array(v, np.uint64).view(np.float64)


def _check_gor(vals):
    host = tp._p247_gor_host(vals)
    npts, ns = vals.shape
    out = run("probe/gorilla-xor-float64-metrics", host, ns)
    W = out[3].reshape(ns, tp.P247_GOR_CAP)
    for s in range(ns):
        ref = _gorilla_ref(vals[:, s])
        nb = int(out[5][s])
        # integer bit work: exact, the padding zero, and the stream decodes back to the series
        assert nb == len(ref)
        got = "".join(format(int(w), "064b") for w in W[s, :-(-nb // 64)])
        assert got[:nb] == ref and set(got[nb:]) <= {"0"} and (W[s, -(-nb // 64):] == 0).all()
        back = _gorilla_decode(W[s], nb, npts)
        assert (back.view(np.uint64) == vals[:, s].view(np.uint64)).all()
    return out


def test_gorilla_metrics():
    rng = np.random.default_rng(12)
    vals = tp._p247_metrics(rng, 40)
    out = _check_gor(vals)
    bpp = out[5] / 8.0 / 120
    assert bpp.min() < 0.3 and bpp.max() > 5                                 # constants to noisy decimals


def test_gorilla_cases():
    v = np.zeros((120, 3))
    v[::2, 0] = -0.0                                                         # the sign bit alone: 1 meaningful bit
    v[:, 1] = np.arange(120) * 0.1                                           # a decimal ramp
    b = np.zeros(120, np.uint64)
    b[1::3] = np.uint64(0x8000000000000001)                                  # 64 meaningful bits (coded as 0)
    b[2::3] = np.uint64(1)                                                   # 63 leading zeros, capped at 31
    v[:, 2] = b.view(np.float64)
    _check_gor(v)


# ---- pfor_pack_frames ----

def _pfor_ref(g):
    F = g.reshape(-1, 128).astype(np.int64)
    w = sum((F >> k) > 0 for k in range(32)).astype(np.int64)               # bit widths
    wmax = w.max(1)
    b = np.empty(len(F), np.int64)
    for f in range(len(F)):
        cost = [128 * bb + 40 * int((w[f] > bb).sum()) for bb in range(wmax[f])]
        b[f] = int(np.argmin(cost)) if cost and min(cost) < 128 * wmax[f] else wmax[f]
    return b


def _check_pf(g):
    host = tp._p247_pf_host(np.asarray(g, np.uint32))
    nf = len(host[0]) // 128
    out = run("probe/pfor-ballot-pack-exceptions", host, len(host[0]))
    b = _pfor_ref(host[0])
    H = out[3]
    assert (H["b"] == b).all()
    F = host[0].reshape(nf, 128).astype(np.uint64)
    P = out[2].reshape(nf, 128)
    tot = 0
    runs = []
    for f in range(nf):
        bf = int(b[f])
        # the low bits packed LSB-first: exact
        bits = np.zeros(128 * bf, np.uint8)
        for k in range(bf):
            bits[np.arange(128) * bf + k] = (F[f] >> np.uint64(k)) & np.uint64(1)
        want = np.packbits(bits, bitorder="little").view("<u4")
        assert (P[f, :4 * bf] == want[:4 * bf]).all() and (P[f, 4 * bf:] == 0).all()
        exc = np.flatnonzero(F[f] >> np.uint64(bf)) if bf < 32 else np.zeros(0, np.int64)
        assert H["nexc"][f] == len(exc)
        o = int(H["exc_off"][f])
        if len(exc):
            runs.append((o, len(exc)))
            assert (out[5][o:o + len(exc)] == exc).all()
            assert (out[4][o:o + len(exc)] == F[f, exc] >> np.uint64(bf)).all()
        tot += len(exc)
    # the frames' exception runs tile [0, total) whatever order the warps reserved them in
    runs.sort()
    assert out[6][0] == tot and sum(n for _, n in runs) == tot
    assert all(a[0] + a[1] == c[0] for a, c in zip(runs, runs[1:])) and (not runs or runs[0][0] == 0)
    return b, out


def test_pfor_postings():
    rng = np.random.default_rng(13)
    g = tp._p247_postings(rng, 128 * 24, docs=1 << 22)
    b, out = _check_pf(g)
    assert b.min() < b.max() and out[6][0] > 0


def test_pfor_cases():
    rng = np.random.default_rng(14)
    g = np.zeros((11, 128), np.uint32)                                       # frame 0: all zero (b = 0)
    g[1] = rng.integers(1 << 31, 1 << 32, 128, dtype=np.uint64)              # all 32-bit: b = 32
    g[2] = rng.integers(0, 8, 128)
    g[2, 77] = 4000000000                                                    # one huge exception
    g[3] = rng.geometric(0.01, 128)                                          # 7-bit-ish gaps
    g[4] = 1
    g[5] = rng.integers(0, 1 << 17, 128)                                     # straddling words
    g[6:] = rng.geometric(1e-4, (5, 128))
    b, out = _check_pf(g.ravel())
    assert b[0] == 0 and b[1] == 32 and b[2] == 3 and b[4] == 1


# ---- each probe's own argument generator, through its launch, at a small n ----

def test_probes_own_arguments():
    from probe_launch import launch
    # rANS: the decoded bytes re-encode to the very stream decoded
    host, after, _, _ = launch(IDS[0], 2 * tp.P247_RANS_CHUNK)
    slot_sym = host[0] & 0xFF
    f = np.bincount(slot_sym, minlength=256)
    s0, words, woff = tp._p247_rans_encode(after[5], f, np.cumsum(f) - f)
    assert (after[6] == 0).all() and (s0 == host[1]).all() and (words == host[2][:-1]).all() and (woff == host[3]).all()
    # LZ77
    host, after, syms, _ = launch(IDS[1], 1500)
    ln, dist, links = _lz_ref(host[0], host[1], syms["c_lz"])
    assert (after[3]["len"] == ln).all() and (after[3]["dist"] == dist).all()
    # MTF: two 1 KB chunks
    host, after, _, _ = launch(IDS[2], 2048)
    assert (after[4] == _mtf_ref(host[0], host[1], 1024)).all()
    # Huffman: a block and a half
    host, after, syms, _ = launch(IDS[3], 3072)
    words, bits = _huff_ref(host[0], syms["c_huf"], 2)
    assert after[3].tolist() == bits
    # Gorilla: 40 series
    host, after, _, _ = launch(IDS[4], 40)
    assert [len(_gorilla_ref(host[0][:, s])) for s in range(40)] == after[5].tolist()
    # PFor: 16 frames
    host, after, _, _ = launch(IDS[5], 16 * 128)
    assert (after[3]["b"] == _pfor_ref(host[0])).all() and after[6][0] == after[3]["nexc"].sum()
