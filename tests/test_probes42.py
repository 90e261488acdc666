"""probe-unseen40's kernels (kernels_cuda/probes42.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch


def test_pointer_jump():
    n = 3000
    host, (nxt, rank, nxt2, rank2, nn), *_ = launch("probe/pointer-jump", n)
    assert np.array_equal(nxt2, nxt[nxt])
    assert np.array_equal(rank2, np.where(nxt == np.arange(n), rank, rank + rank[nxt]))
    assert rank2.sum() == 2 * (n - 1) - 1                      # every node 2 from the end but the last two


def test_kmer_count():
    n = 5000
    host, (seq, counts, nn), *_ = launch("probe/kmer-count", n)
    code = np.zeros(n - 7, np.int64)
    for k in range(8):
        code = code * 4 + seq[k:n - 7 + k]
    assert np.array_equal(counts, np.bincount(code, minlength=1 << 16).astype(np.uint32))


def test_reduce_by_key():
    n = 4000
    host, (keys, vals, sums, nn), *_ = launch("probe/reduce-by-key", n)
    exp = np.zeros(sums.size, np.float64)
    np.add.at(exp, keys, vals.astype(np.float64))
    np.testing.assert_allclose(sums, exp, rtol=1e-5, atol=1e-5)
    assert np.all(np.diff(keys) >= 0) and 15 <= n / sums.size <= 25


def test_batched_gemm8():
    n = 40
    host, (a, b, c, nn), *_ = launch("probe/batched-gemm8", n)
    exp = a.reshape(n, 8, 8).astype(np.float64) @ b.reshape(n, 8, 8).astype(np.float64)
    np.testing.assert_allclose(c.reshape(n, 8, 8), exp, rtol=1e-5, atol=1e-5)


def test_cuckoo_lookup():
    n = 1 << 12
    host, (q, table, out, nn, mask), *_ = launch("probe/cuckoo-lookup", n)
    t = table.reshape(-1, 2)
    e1, e2 = t[tp.cuckoo_h1(q, mask)], t[tp.cuckoo_h2(q, mask)]
    exp = np.where(e1[:, 0] == q, e1[:, 1].astype(np.int64), np.where(e2[:, 0] == q, e2[:, 1].astype(np.int64), -1))
    assert np.array_equal(out, exp)
    assert 0.45 <= (out >= 0).mean() <= 0.6                     # half the queries are stored keys
    assert (t[tp.cuckoo_h2(q, mask)][:, 0] == q).any()           # some are found only by the second probe


def test_bias_relu_dropout():
    n = 5000
    host, (x, bias, y, keep, nn, cols, seed), *_ = launch("probe/bias-relu-dropout", n)
    i = np.arange(n, dtype=np.uint64)
    h = ((i * 0x9E3779B9) % (1 << 32)).astype(np.uint32) ^ np.uint32(seed)
    h ^= h >> np.uint32(16)
    h = (h.astype(np.uint64) * 0x85EBCA6B % (1 << 32)).astype(np.uint32)
    h ^= h >> np.uint32(13)
    h = (h.astype(np.uint64) * 0xC2B2AE35 % (1 << 32)).astype(np.uint32)
    h ^= h >> np.uint32(16)
    k = (h & 7) != 0
    assert np.array_equal(keep, k.astype(np.uint8)) and 0.82 < k.mean() < 0.93
    v = np.maximum(x + bias[np.arange(n) % int(cols)], np.float32(0))
    np.testing.assert_allclose(y, np.where(k, v * np.float32(8.0 / 7.0), 0), rtol=1e-6, atol=1e-7)
