"""probe-unseen25's kernels (kernels_cuda/probes26.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from probe_launch import launch


def test_rank1_update():
    n = 64
    host, (a, u, v, _), *_ = launch("probe/rank1-update", n)
    exp = host[0].reshape(n, n) - np.outer(u, v).astype(np.float32)
    np.testing.assert_allclose(a.reshape(n, n), exp, rtol=1e-6, atol=1e-6)


def test_transpose_inplace():
    n = 64
    host, (a, _), *_ = launch("probe/transpose-inplace", n)
    assert a.reshape(n, n).tolist() == host[0].reshape(n, n).T.tolist()


def test_matmul_bt():
    n = 64
    host, (a, b, c, _), *_ = launch("probe/matmul-bt", n)
    exp = a.reshape(n, n).astype(np.float64) @ b.reshape(n, n).astype(np.float64).T
    np.testing.assert_allclose(c.reshape(n, n), exp, rtol=1e-4, atol=1e-4)


def test_argmin_u64_finds_the_first_smallest():
    n = 256 * 8
    host, (x, best, _), *_ = launch("probe/argmin-u64", n)
    i = int(np.argmin(x))
    assert int(best[0]) == (int(x[i:i + 1].view(np.uint32)[0]) << 32) | i


def test_rational_double():
    n = 256 * 4
    host, (x, y, _), *_ = launch("probe/rational-double", n)
    p = np.polyval([0.5, 1.5, -2.0, 0.25, 3.0, -1.0, 2.0], x)
    q = np.polyval([0.25, 0.5, 1.0, 0.125, 2.0, 0.5, 4.0], x)
    np.testing.assert_allclose(y, p / q, rtol=1e-13)
