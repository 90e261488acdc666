"""probe-unseen61's kernels (kernels_cuda/probes63.cu) give plain Python's (or numpy's, or
the re module's) answers in the emulator at small sizes, with the sanitizer on: the timing
probes are only worth their measurements if they compute what they say."""
import re

import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen61"]
    assert ids == ["probe/utf8-validate", "probe/dfa-regex-lines", "probe/csv-field-starts",
                   "probe/word-count-warp", "probe/levenshtein-short", "probe/rle-encode-runs"]
    assert all(tp.get(i).source == "probes63.cu" and tp.get(i).note for i in ids)



# ---- utf8-validate ----

def utf8_chunks(t, chunk=64):
    """Each chunk's flag by the kernel's rule, the sequences checked by Python's own strict
    UTF-8 decoder: the continuation bytes at the chunk's start must lie within the
    sequence of the nearest lead byte before them (at most 3 bytes back), and each
    sequence starting in the chunk (its length from its lead byte) must decode."""
    t = bytes(t)
    n = len(t)
    out = []
    for start in range(0, n, chunk):
        end = min(start + chunk, n)
        p = start
        while p < end and t[p] & 0xC0 == 0x80:
            p += 1
        good = True
        if p > start:
            leads = [q for q in range(max(0, start - 3), start) if t[q] & 0xC0 != 0x80]
            if not leads:
                good = False
            else:
                q = leads[-1]
                want = 4 if t[q] >= 0xF0 else 3 if t[q] >= 0xE0 else 2 if t[q] >= 0xC0 else 1
                good = q + want >= p
        while good and p < end:
            b = t[p]
            m = 1 if b < 0x80 else 2 if b >> 5 == 6 else 3 if b >> 4 == 14 else 4 if b >> 3 == 30 else 0
            if m == 0 or p + m > n:
                good = False
                break
            try:
                t[p:p + m].decode("utf-8")
            except UnicodeDecodeError:
                good = False
            p += m
        out.append(int(good))
    return np.array(out, np.uint8)


def valid(t):
    try:
        bytes(t).decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_utf8_validate(policy):
    n = 64 * 300 + 17                                       # 2 blocks of 256 chunks, the last partial
    host, (t, nn, ok, nch), *_ = launch("probe/utf8-validate", n, policy=policy)
    assert nn == n and nch == 301 and len(ok) == 301
    np.testing.assert_array_equal(ok, utf8_chunks(t))
    # the text: UTF-8 but for the corrupted places, with multi-byte characters (some across
    # a chunk boundary) of 2, 3 and 4 bytes; the chunks far from the places are valid
    clean = tp._u61_text(n, np.random.default_rng(0))
    assert valid(clean) and not valid(t)
    s = clean.tobytes().decode()
    assert {len(c.encode()) for c in s} == {1, 2, 3, 4}
    bad = np.flatnonzero(t != clean)
    near = np.zeros(302, bool)
    for p in bad:
        near[max(0, p - 4) // 64:(p + 8) // 64 + 1] = True
    assert ok[~near[:301]].all() and (ok == 0).sum() >= 1
    lead = np.flatnonzero(clean >= 0xC0)
    size = np.where(clean[lead] >= 0xF0, 4, np.where(clean[lead] >= 0xE0, 3, 2))
    cross = lead[(lead // 64) != (lead + size - 1) // 64]
    cross = cross[~near[cross // 64] & ~near[cross // 64 + 1]]
    assert len(cross) >= 2 and ok[cross // 64].all() and ok[cross // 64 + 1].all()
    assert 0.5 < (ok == 1).mean() < 1


def test_utf8_validate_edge_cases():
    e2, e3, e4 = "é".encode(), "語".encode(), "😀".encode()
    good = bytearray(b"a" * 1000)
    for k, ch in enumerate([e2, e3, e4, e3, e4, e4, e2, e3]):   # characters across chunk boundaries
        at = 64 * (k + 1) - (1 + k % (len(ch) - 1))
        good[at:at + len(ch)] = ch
    good[572:576] = e4                                      # one that ends a chunk
    good[576:578] = e2                                      # one that starts a chunk
    good = bytes(good)
    assert valid(good) and good[522:572].isascii() and good[578:].isascii()

    def put(at, b):
        return good[:at] + b + good[at + len(b):]
    cases = {                                               # the text, and a chunk's flag known
        "clean": (good, 8, 1),
        "stray continuation at a chunk's start": (put(704, b"\x80"), 11, 0),
        "one continuation byte too many": (put(766, b"\xc3\xa9\xa9"), 12, 0),
        "... the sequence itself fine": (put(766, b"\xc3\xa9\xa9"), 11, 1),
        "a stray byte after a 4-byte character": (put(829, e4 + b"\x80"), 13, 0),
        "... which is fine": (put(829, e4 + b"\x80"), 12, 1),
        "starts with a continuation byte": (put(0, b"\xbf"), 0, 0),
        "overlong '/' across a boundary": (put(894, b"\xe0\x80\xaf"), 13, 0),
        "overlong C0": (put(660, b"\xc0\xaf"), 10, 0),
        "overlong C1": (put(670, b"\xc1\xbf"), 10, 0),
        "overlong 3-byte e-acute": (put(680, b"\xe0\x82\xa9"), 10, 0),
        "overlong 4-byte U+FFFF": (put(690, b"\xf0\x8f\xbf\xbf"), 10, 0),
        "the largest 3-byte and 4-byte": (put(680, "\uffff\U0010ffff".encode()), 10, 1),
        "a surrogate across a boundary": (put(958, b"\xed\xa0\x80"), 14, 0),
        "past U+10FFFF": (put(700, b"\xf4\x90\x80\x80"), 10, 0),
        "an F5 lead": (put(710, b"\xf5\x80\x80\x80"), 11, 0),
        "FF": (put(720, b"\xff"), 11, 0),
        "FE": (put(730, b"\xfe"), 11, 0),
        "cut short by ASCII at a boundary": (put(767, b"\xe8\xaa"), 11, 0),
        "... the next chunk's start covered": (put(767, b"\xe8\xaa"), 12, 1),
        "cut short by ASCII": (put(540, b"\xf0\x9f\x98"), 8, 0),
        "cut short by the end": (put(997, e4[:3]), 15, 0),
        "ends in a complete character": (put(998, e2), 15, 1),
        "a partial last chunk ending in a 4-byte character": (good[:975] + e4, 15, 1),
        "all multi-byte": (e3 * 21 + b"x" + e4 * 30, 2, 1),
    }
    flags = {}                                              # each text once in the emulator
    for name, (t, c, want) in cases.items():
        n = len(t)
        nch = -(-n // 64)
        if t not in flags:
            arr = np.frombuffer(t, np.uint8).copy()
            flags[t] = run("probe/utf8-validate", [arr, np.int32(n), np.zeros(nch, np.uint8), np.int32(nch)], n)[2]
        ok = flags[t]
        ref = utf8_chunks(t)
        np.testing.assert_array_equal(ok, ref, err_msg=name)
        assert bool(ref.all()) == valid(t), name
        assert ok[c] == want, name


# ---- dfa-regex-lines ----

def test_dfa_is_the_regex():
    delta, acc = tp._u61_dfa(tp.U61_DATE_RE)
    assert delta.shape == (27, 128) and acc.sum() == 1 and 16 <= len(acc) <= 32
    A = np.flatnonzero(acc)[0]
    assert (delta[A] == A).all()                            # accepting: absorbing

    def dfa(s):
        st = 0
        for ch in s.encode():
            st = delta[st, ch & 127]
        return bool(acc[st])
    rng = np.random.default_rng(3)
    alpha = "0123456789-- 12T:/x"
    for _ in range(3000):
        s = "".join(rng.choice(list(alpha), int(rng.integers(0, 30))))
        assert dfa(s) == (re.search(tp.U61_DATE_RE, s) is not None), s
    for s in ["2024-01-31", "x2024-01-31x", "22024-01-31", "2024-2024-01-31", "1999-19-39", "2024-01-3",
              "3024-01-31", "2024-21-01", "2024-01-41", "12024-1-01-01"]:
        assert dfa(s) == (re.search(tp.U61_DATE_RE, s) is not None), s


def match_ref(t, off):
    lines = [bytes(t[off[i]:off[i + 1] - 1]).decode("ascii") for i in range(len(off) - 1)]
    return np.array([re.search(tp.U61_DATE_RE, s) is not None for s in lines], np.uint8), lines


# 600: 3 blocks of 256 lines, the last partial; random (slow): the first 48 of 300 lines, one
# partial block of two warps (the shared table's copy and its barrier), the last warp partial
@pytest.mark.parametrize("policy, n, m", [("lockstep", 600, 600), ("random", 300, 48)])
def test_dfa_regex_lines(policy, n, m):
    if m == n:
        host, (t, off, nl, delta, acc, ns, match), *_ = launch("probe/dfa-regex-lines", n, policy=policy)
    else:
        t, off, nl, delta, acc, ns, match = tp.get("probe/dfa-regex-lines").args(n, np.random.default_rng(0))
    assert nl == n and ns == 27 and len(off) == n + 1 and off[-1] == len(t)
    assert (t[off[1:] - 1] == ord("\n")).all() and t.max() < 128
    ref, lines = match_ref(t, off)
    if m < n:
        match = run("probe/dfa-regex-lines", [t[:off[m]].copy(), off[:m + 1].copy(), np.int32(m), delta, acc,
                                              np.int32(ns), np.zeros(m, np.uint8)], m, policy=policy)[-1]
        assert len(match) == m and 0 < ref[:m].sum() < m and (np.diff(off[:m + 1]) == 1).any()
        ref = ref[:m]
    np.testing.assert_array_equal(match, ref)
    ref = match_ref(t, off)[0]
    L = np.diff(off) - 1
    assert (L == 0).sum() >= 5 and L.max() > 150              # empty lines and long ones
    assert 0.15 < ref.mean() < 0.6
    assert any(s.startswith(("1", "2")) and r for s, r in zip(lines, ref))          # log lines
    assert any(not r and any(q in s for q in tp.U61_DFA_NEAR) for s, r in zip(lines, ref))


def test_dfa_regex_lines_edge_cases():
    lines = ["", "2024-01-31", "x 2024-01-31", "on 1999-12-3", "1999-12-31 at the end 2024-01-3",
             "2024-01", "-31", "", "abc 2024-01-31", "5555-12-12 no", "1000-00-00", "2999-19-39 the"] * 23
    t = np.frombuffer("".join(s + "\n" for s in lines).encode(), np.uint8).copy()
    off = np.zeros(len(lines) + 1, np.int32)
    off[1:] = np.cumsum([len(s) + 1 for s in lines])
    delta, acc = tp._u61_dfa(tp.U61_DATE_RE)
    n = len(lines)                                          # 276: 2 blocks, the last partial
    out = run("probe/dfa-regex-lines", [t, off, np.int32(n), delta.ravel(), acc, np.int32(len(acc)),
                                        np.zeros(n, np.uint8)], n)
    np.testing.assert_array_equal(out[-1], match_ref(t, off)[0])
    assert list(out[-1][:12]) == [0, 1, 1, 0, 1, 0, 0, 0, 1, 0, 1, 1]


# ---- csv-field-starts ----

def field_starts(t):
    n = len(t)
    d = np.flatnonzero((t[:-1] == ord(",")) | (t[:-1] == ord("\n"))) + 1
    return np.r_[0, d[d < n]] if n else np.zeros(0, np.int64)


def check_csv(t, starts, count):
    ref = field_starts(t)
    assert count[0] == len(ref) == len(starts)
    np.testing.assert_array_equal(np.sort(starts), ref)
    # each warp's starts in one block of places, in increasing order
    w = starts // 256
    change = np.flatnonzero(np.diff(w) != 0) + 1
    groups = np.split(starts, change)
    assert len({int(g[0]) // 256 for g in groups}) == len(groups)
    assert all((np.diff(g) > 0).all() for g in groups)


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_csv_field_starts(policy):
    n = 5000                                                # 3 blocks of 2048 bytes, the last warp partial
    host, (t, nn, starts, count), *_ = launch("probe/csv-field-starts", n, policy=policy)
    assert nn == n
    check_csv(t, starts, count)
    s = bytes(t).decode()
    rows = s.split("\n")
    assert rows[0] == tp.U61_CSV_HEADER
    assert all(r.count(",") == 10 for r in rows[1:-1])     # 11 fields a row, the last row cut
    assert ",," in s and ",\n" in s                         # empty ratings and comments
    assert re.fullmatch(r"1000\d\d\d,20\d\d-\d\d-\d\d,[A-Z][a-z]+ [A-Z][a-z]+,.*", rows[1])


def test_csv_field_starts_edge_cases():
    cases = [b",", b"a", b"\n\n,,", b",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,," * 20, b"x" * 300 + b",",
             b"a,b\n" * 700 + b"c"]
    for c in cases:
        t = np.frombuffer(c, np.uint8).copy()
        n = len(t)
        out = run("probe/csv-field-starts", [t, np.int32(n), np.zeros(len(field_starts(t)), np.int32),
                                             np.zeros(1, np.int32)], n, policy="random")
        check_csv(t, out[2], out[3])


# ---- word-count-warp ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_word_count_warp(policy):
    n = 3000                                                # 12 blocks of 256, the last partial
    host, (t, nn, count), *_ = launch("probe/word-count-warp", n, policy=policy)
    assert nn == n
    b = bytes(t)
    assert count[0] == len(b.split()) > 300
    assert b"  " in b and b"\t" in b and b"\n\n" in b and max(t) >= 0xF0     # double spaces, tabs, emoji
    assert valid(t)


def test_word_count_edge_cases():
    cases = [b"word", b" ", b"   a", b"a   ", b" \t\n\r\x0b\x0c" * 50, b"ab" * 300, b"a " * 300,
             b"x" * 255 + b" y" + b"z" * 300, b"\xe6\x97\xa5 \xe6\x9c\xac\t\xe8\xaa\x9e\r\ntext",
             bytes(range(256)) * 3]
    for c in cases:
        t = np.frombuffer(c, np.uint8).copy()
        out = run("probe/word-count-warp", [t, np.int32(len(t)), np.zeros(1, np.uint32)], len(t))
        assert out[2][0] == len(c.split()), c[:20]


# ---- levenshtein-short ----

def levenshtein(a, b):
    """The textbook edit distance (Wagner-Fischer, the full table)."""
    D = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        D[i][0] = i
    for j in range(len(b) + 1):
        D[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            D[i][j] = min(D[i - 1][j] + 1, D[i][j - 1] + 1, D[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
    return D[len(a)][len(b)]


def test_levenshtein_short():
    n = 300                                                 # 2 blocks of 256 pairs, the last partial
    A, la, B, lb, _, nn = tp.get("probe/levenshtein-short").args(n, np.random.default_rng(0))
    assert nn == n
    A, B = A.reshape(n, 32), B.reshape(n, 32)
    sa = [bytes(A[i, :la[i]]) for i in range(n)]
    sb = [bytes(B[i, :lb[i]]) for i in range(n)]
    assert all(A[i, la[i]:].max(initial=0) == 0 and B[i, lb[i]:].max(initial=0) == 0 for i in range(n))
    ref = np.array([levenshtein(a, b) for a, b in zip(sa, sb)])
    # the emulator (a warp a ~1 s: its lanes' table loops) on the pairs of the first warp and
    # of the partial last warp (of the second block); the pairs between emptied (distance 0,
    # one pass each)
    keep = (np.arange(n) < 32) | (np.arange(n) >= 288)
    host = [np.where(keep[:, None], A, 0).ravel(), np.where(keep, la, 0).astype(np.int32),
            np.where(keep[:, None], B, 0).ravel(), np.where(keep, lb, 0).astype(np.int32), np.zeros(n, np.int32),
            np.int32(n)]
    dist = run("probe/levenshtein-short", host, n)[4]
    np.testing.assert_array_equal(dist, np.where(keep, ref, 0))
    L = np.r_[la, lb]
    assert (L == 0).any() and (L == 32).any() and L.max() <= 32
    assert (ref == 0).sum() > 10 and ((ref >= 1) & (ref <= 4)).sum() > 100 and ref.max() > 10
    assert ref[keep].max() > 10 and (ref[keep] == 0).any() and (ref[keep] > 0).mean() > 0.7     # the kept pairs
    assert any(b" " in a and b"." not in a for a in sa) and any(a[:1].isdigit() for a in sa)   # names, addresses


def test_levenshtein_edge_cases():
    pairs = [(b"", b""), (b"", b"abc"), (b"abc", b""), (b"kitten", b"sitting"), (b"flaw", b"lawn"),
             (b"a" * 32, b"a" * 32), (b"a" * 32, b"b" * 32), (b"a" * 32, b""), (b"", b"z" * 32),
             (b"abcdefghijklmnopqrstuvwxyz012345", b"543210zyxwvutsrqponmlkjihgfedcba"),
             (b"intention", b"execution"), (b"x", b"x" * 32)] * 3
    n = len(pairs)
    A, B = np.zeros((n, 32), np.uint8), np.zeros((n, 32), np.uint8)
    for i, (a, b) in enumerate(pairs):
        A[i, :len(a)] = np.frombuffer(a, np.uint8)
        B[i, :len(b)] = np.frombuffer(b, np.uint8)
    la = np.array([len(a) for a, _ in pairs], np.int32)
    lb = np.array([len(b) for _, b in pairs], np.int32)
    out = run("probe/levenshtein-short", [A.ravel(), la, B.ravel(), lb, np.zeros(n, np.int32), np.int32(n)], n)
    assert list(out[4]) == [levenshtein(a, b) for a, b in pairs]
    assert list(out[4][:9]) == [0, 3, 3, 3, 2, 0, 32, 32, 32] and list(out[4][10:12]) == [5, 31]


# ---- rle-encode-runs ----

def rle(s):
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]]) if len(s) else np.zeros(0, np.int64)
    return s[starts], np.diff(np.r_[starts, len(s)])


# 3000: 12 blocks of 256, the last partial; random (slow): the first 600 bytes of the same
# stream, 3 blocks, the last partial, two runs across block boundaries
@pytest.mark.parametrize("policy, n", [("lockstep", 3000), ("random", 600)])
def test_rle_encode_runs(policy, n):
    full = tp.get("probe/rle-encode-runs").args(3000, np.random.default_rng(0))[0]
    v, ln = rle(full)
    assert (ln <= 4).sum() > 30 and ln.max() >= 60 and full.max() < tp.U61_RLE_PALETTE and (v == 0).mean() > 0.2
    if n == 3000:
        host, (s, idx, nn, vals, lens), *_ = launch("probe/rle-encode-runs", n, policy=policy)
        np.testing.assert_array_equal(s, full)
    else:
        s = full[:n]
        start = np.r_[True, s[1:] != s[:-1]]
        idx = (np.cumsum(start) - start).astype(np.int32)
        nr = int(start.sum())
        s, idx, nn, vals, lens = run("probe/rle-encode-runs", [s, idx, np.int32(n), np.zeros(nr, np.uint8),
                                                                np.zeros(nr, np.int32)], n, policy=policy)
    assert nn == n
    v, ln = rle(s)
    np.testing.assert_array_equal(vals, v)
    np.testing.assert_array_equal(lens, ln)
    np.testing.assert_array_equal(np.repeat(vals, lens), s)
    ends = np.cumsum(ln)
    assert (((ends - ln) // 256) != ((ends - 1) // 256)).sum() >= 2          # runs across block boundaries


def test_rle_edge_cases():
    cases = [np.zeros(1, np.uint8), np.full(700, 7, np.uint8), np.arange(600, dtype=np.uint8) % 2,
             np.repeat(np.array([3, 4, 3, 9], np.uint8), [255, 2, 257, 1])]
    for s in cases:
        n = len(s)
        start = np.r_[True, s[1:] != s[:-1]]
        idx = (np.cumsum(start) - start).astype(np.int32)
        nr = int(start.sum())
        out = run("probe/rle-encode-runs", [s, idx, np.int32(n), np.zeros(nr, np.uint8), np.zeros(nr, np.int32)], n)
        v, ln = rle(s)
        np.testing.assert_array_equal(out[3], v)
        np.testing.assert_array_equal(out[4], ln)
