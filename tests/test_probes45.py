"""probe-unseen43's kernels (kernels_cuda/probes45.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch


def test_cholesky4_batch():
    n = 500
    host, (a, l, nn), *_ = launch("probe/cholesky4-batch", n)
    A, L = a.reshape(n, 4, 4).astype(np.float64), l.reshape(n, 4, 4)
    assert np.all(L[:, np.triu_indices(4, 1)[0], np.triu_indices(4, 1)[1]] == 0)
    np.testing.assert_allclose(L, np.linalg.cholesky(A), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.einsum("nij,nkj->nik", L.astype(np.float64), L), A, rtol=1e-4, atol=1e-4)


def test_sat_box_filter():
    n, r = 40, tp.SAT_R
    host, (s, out, w, h, rr), *_ = launch("probe/sat-box-filter", n)
    S = s.reshape(n + 1, n + 1).astype(np.int64)
    img = (S[1:, 1:] - S[:-1, 1:] - S[1:, :-1] + S[:-1, :-1]) % (1 << 32)      # the image back
    assert img.min() >= 0 and img.max() <= 255 and img.std() > 50
    exp = np.zeros((n, n), np.int64)
    for y in range(n):
        for x in range(n):
            box = img[max(y - r, 0):y + r + 1, max(x - r, 0):x + r + 1]
            exp[y, x] = (box.sum() + box.size // 2) // box.size
    assert np.array_equal(out.reshape(n, n).astype(np.int64), exp)


def test_daub4_step():
    half = 1000                                     # not a multiple of 32: the last pair wraps
    host, (x, a, d, nn), *_ = launch("probe/daub4-step", half)
    X = x.astype(np.float64)
    s3 = np.sqrt(3.0)
    h = np.array([1 + s3, 3 + s3, 3 - s3, 1 - s3]) / (4 * np.sqrt(2.0))
    g = np.array([h[3], -h[2], h[1], -h[0]])
    win = X[(2 * np.arange(half)[:, None] + np.arange(4)) % (2 * half)]
    np.testing.assert_allclose(a, win @ h, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(d, win @ g, rtol=1e-5, atol=1e-5)
    # orthonormal: the energy is kept
    assert np.isclose((a.astype(np.float64) ** 2).sum() + (d.astype(np.float64) ** 2).sum(), (X ** 2).sum(), rtol=1e-5)


def test_bmh_count():
    n = 20000
    host, (text, nn, pat, m, count), *_ = launch("probe/bmh-count", n)
    win = np.lib.stride_tricks.sliding_window_view(text, int(m))
    at = np.flatnonzero((win == pat).all(axis=1))
    exp = np.bincount(at // tp.BMH_CHUNK, minlength=count.size)
    assert count.size == -(-(n - m + 1) // tp.BMH_CHUNK)
    assert list(count) == list(exp)
    assert exp.sum() >= 10


def test_poisson_knuth():
    n = 2000
    host, (lam, out, nn, seed), *_ = launch("probe/poisson-knuth", n)
    u32 = lambda v: v & 0xFFFFFFFF
    exp = []
    for i in range(n):
        s = u32(i * 0x9E3779B9) ^ int(seed)
        s ^= s >> 16; s = u32(s * 0x85EBCA6B); s ^= s >> 13; s = u32(s * 0xC2B2AE35); s ^= s >> 16
        limit, p, k = np.exp(-lam[i]), np.float32(1), 0
        while True:
            s = u32(s * 1664525 + 1013904223)
            p = np.float32(p * (np.float32(s >> 8) * np.float32(1 / 16777216)))
            if p <= limit:
                break
            k += 1
        exp.append(k)
    assert list(out) == exp
    assert abs(out.mean() - lam.mean()) < 0.5 and abs(out.var() / lam.mean() - 1 - lam.var() / lam.mean()) < 0.3


def test_voxel_max():
    n = 2000
    host, (cell, feat, vmax, nn), *_ = launch("probe/voxel-max", n)
    exp = np.full_like(host[2], -np.inf)
    np.maximum.at(exp, 4 * cell[:, None] + np.arange(4), feat.reshape(n, 4))
    assert np.array_equal(vmax, exp)
    assert np.isinf(vmax).any() and (vmax < 0).sum() > 0.05 * vmax.size      # empty cells and negative maxima
