"""probe-unseen35's kernels (kernels_cuda/probes37.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from probe_launch import launch
from kernels_cuda.timing_probes import _HUFF_LENS, _huffman_code


def test_the_prefix_code_is_complete():
    codes, lut = _huffman_code()
    assert (0.5 ** _HUFF_LENS).sum() == 1.0
    for s, (c, ln) in enumerate(zip(codes, _HUFF_LENS)):     # each code looks itself up
        assert lut[int(c) << (8 - ln)] == (s << 4) | ln
    assert (lut != 0).all() or lut[0] == _HUFF_LENS[0]       # every 8-bit peek decodes


def test_huffman_decode_gives_back_the_symbols():
    n = 300
    per = 32
    host, (bits, start, lut, out, nn, pp), *_ = launch("probe/huffman-decode", n)
    # decode on the host, bit by bit, from the same stream
    stream = np.unpackbits(bits.astype(">u4").view(np.uint8))
    codes, _ = _huffman_code()
    table = {(int(ln), int(c)): s for s, (c, ln) in enumerate(zip(codes, _HUFF_LENS))}
    got = out.reshape(n, per)
    for c in (0, 1, n // 2, n - 1):
        pos, syms = int(start[c]), []
        while len(syms) < per:
            for ln in range(1, 9):
                v = int("".join(map(str, stream[pos:pos + ln])), 2)
                if (ln, v) in table:
                    syms.append(table[(ln, v)])
                    pos += ln
                    break
        assert got[c].tolist() == syms
    counts = np.bincount(got.ravel(), minlength=len(_HUFF_LENS)) / got.size
    assert abs(counts[0] - 0.25) < 0.03 and counts[-1] < 0.02        # drawn with p = 2^-length


def test_pagerank_pull():
    n = 2000
    host, (rowptr, src, rank, outdeg, nxt, nn, d), *_ = launch("probe/pagerank-pull", n)
    contrib = rank.astype(np.float64) / np.maximum(outdeg, 1)
    s = np.add.reduceat(contrib[src], rowptr[:-1])
    exp = (1 - float(d)) / n + float(d) * s
    np.testing.assert_allclose(nxt, exp, rtol=2e-5)
    deg = np.diff(rowptr)
    assert deg.max() >= 100 and np.median(deg) <= 8                     # a heavy tail


def test_sddmm_rows():
    n = 4096
    host, (a, b, row, col, out, nn), *_ = launch("probe/sddmm-rows", n)
    A, B = a.reshape(-1, 64).astype(np.float64), b.reshape(-1, 64).astype(np.float64)
    exp = (A[row] * B[col]).sum(axis=1)
    np.testing.assert_allclose(out, exp, rtol=1e-4, atol=1e-4)


def test_lz77_match_lengths():
    n = 20000
    host, (text, off, ln, nn), *_ = launch("probe/lz77-match", n)
    exp = np.zeros(n, np.int64)
    for i in range(n):
        o = off[i]
        if 0 < o <= i:
            m = 0
            while m < 32 and i + m < n and text[i + m] == text[i - o + m]:
                m += 1
            exp[i] = m
    assert np.array_equal(ln, exp)
    assert (ln == 32).mean() > 0.1 and (ln == 0).mean() > 0.3            # long matches and none


def test_xent_loss():
    n = 5000
    host, (logits, label, loss, nn), *_ = launch("probe/xent-loss", n)
    z = logits.reshape(n, 10).astype(np.float64)
    zs = z - z.max(axis=1, keepdims=True)
    exp = (np.log(np.exp(zs).sum(axis=1)) - zs[np.arange(n), label]).sum()
    assert loss[0] == np.float32(loss[0]) and abs(loss[0] - exp) / exp < 1e-4


def test_uchar4_scan():
    n = 1024 * 3 + 512                          # a partial last tile
    host, (data, out, n4), *_ = launch("probe/uchar4-scan", n)
    tiles = np.concatenate([data, np.zeros(-n % 1024, np.uint8)]).reshape(-1, 1024).astype(np.int64)
    exp = np.cumsum(tiles, axis=1).ravel()[:n]
    assert np.array_equal(out, exp.astype(np.uint32))
