"""probe-unseen46's kernels (kernels_cuda/probes48.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch


def test_atomic_sum_naive():
    n = 5000                                        # small integers: the float sum is exact in any order
    host, (x, s, nn), *_ = launch("probe/atomic-sum-naive", n)
    assert s[0] == float(x.astype(np.int64).sum()) and s[0] > 5000


def test_rank_sort1024():
    n = 3 * 1024 - 100                              # a padded last block
    host, (x, out, nn), *_ = launch("probe/rank-sort1024", n)
    for b in range(0, n, tp.RS_N):
        seg = x[b:b + tp.RS_N]
        assert np.array_equal(out[b:b + tp.RS_N], np.sort(seg))
    assert len(np.unique(x[:1024])) < 1000          # ties exercised


def test_ripple():
    n = 50                                          # 4 x 4 blocks, partly outside
    host, (img, dim, ticks), *_ = launch("probe/ripple", n)
    y, x = np.mgrid[0:n, 0:n]
    d = np.sqrt((x - n // 2) ** 2.0 + (y - n // 2) ** 2.0)
    grey = np.trunc(128.0 + 127.0 * np.cos(d / 10.0 - int(ticks) / 7.0) / (d / 10.0 + 1.0))
    px = img.reshape(n, n, 4).astype(np.int64)
    assert np.abs(px[..., 0] - grey).max() <= 1 and (px[..., 0] == grey).mean() > 0.98
    assert np.array_equal(px[..., 0], px[..., 1]) and np.array_equal(px[..., 0], px[..., 2])
    assert np.all(px[..., 3] == 255) and px[..., 0].max() - px[..., 0].min() > 80


def test_grad3d_mag():
    n = 12                                          # 2 x 2 x 3 blocks, partly outside
    host, (u, out, nn), *_ = launch("probe/grad3d-mag", n)
    U = u.reshape(n, n, n).astype(np.float64)       # [z, y, x]
    gz, gy, gx = np.gradient(U)                     # central inside, one-sided on the faces
    np.testing.assert_allclose(out.reshape(n, n, n), np.sqrt(gx ** 2 + gy ** 2 + gz ** 2), rtol=1e-5, atol=1e-5)


def test_gather_ldg():
    n = 5000                                        # a 64 x 79 matrix, its last column short
    host, (src, idx, out, nn), *_ = launch("probe/gather-ldg", n)
    rows, cols = tp.gather_shape(n)
    assert (rows, cols) == (64, 79)
    M = src.reshape(rows, cols)
    assert np.array_equal(out, M.T.ravel()[:n])


def test_interp_scan():
    n = 3000
    host, (xs, ys, x, y, nn), *_ = launch("probe/interp-scan", n)
    assert np.all(np.diff(xs) > 0)
    np.testing.assert_allclose(y, np.interp(x.astype(np.float64), xs, ys), rtol=1e-4, atol=1e-4)
    assert (x < xs[0]).sum() > 10 and (x >= xs[-1]).sum() > 10      # both clamps taken
