"""probe-unseen27's kernels (kernels_cuda/probes28.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run


def test_median3x3_is_the_median_of_the_clamped_neighbourhood():
    n = 64
    host, (img, out, _, _), *_ = launch("probe/median3x3-u8", n)
    pad = np.pad(img.reshape(n, n), 1, mode="edge")
    win = np.stack([pad[dy:dy + n, dx:dx + n] for dy in range(3) for dx in range(3)])
    assert np.array_equal(out.reshape(n, n), np.median(win, axis=0).astype(np.uint8))


def _nw(a, b):
    h = np.zeros((len(a) + 1, len(b) + 1), np.int64)
    h[:, 0] = -np.arange(len(a) + 1)
    h[0, :] = -np.arange(len(b) + 1)
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            h[i, j] = max(h[i - 1, j - 1] + (1 if a[i - 1] == b[j - 1] else -1), h[i - 1, j] - 1, h[i, j - 1] - 1)
    return int(h[-1, -1])


def test_nw_batch_scores_are_needleman_wunsch():
    n = 6
    host, (a, b, score, _), *_ = launch("probe/nw-batch", n)
    exp = [_nw(a[32 * p:32 * p + 32], b[32 * p:32 * p + 32]) for p in range(n)]
    assert score.tolist() == exp
    assert len(set(exp)) > 1


def test_tri_mv_rows_uses_the_lower_triangle_only():
    n = 128
    host, (m, x, y, _), *_ = launch("probe/tri-mv-rows", n)
    exp = np.tril(m.reshape(n, n).astype(np.float64)) @ x.astype(np.float64)
    np.testing.assert_allclose(y, exp, rtol=1e-4, atol=1e-4)


def test_knn_top8_lists_the_nearest_points_in_order():
    # one block of 256 queries against the first 32 of the generator's 1024 points (m is
    # an argument): the first 8 fill the list, later ones insert part way down or miss it
    n, m = 256, 32
    host = tp._knn_args(n, np.random.default_rng(0))
    host[0], host[3] = host[0][:2 * m].copy(), np.int32(m)
    pts, qs, idx, m, _ = run("probe/knn-top8", host, n)
    d = ((qs.reshape(n, 1, 2).astype(np.float64) - pts.reshape(1, int(m), 2)) ** 2).sum(axis=2)
    assert np.array_equal(idx.reshape(n, 8), np.argsort(d, axis=1, kind="stable")[:, :8])


def test_cumsum_rows_thread_is_a_row_cumsum():
    n = 256
    host, (x, out, _, cols), *_ = launch("probe/cumsum-rows-thread", n)
    exp = np.cumsum(x.reshape(n, int(cols)).astype(np.float64), axis=1)
    np.testing.assert_allclose(out.reshape(n, int(cols)), exp, rtol=1e-4, atol=1e-3)


def test_index_add_rows_sums_rows_into_their_index():
    n = 512
    host, (src, index, out, _), *_ = launch("probe/index-add-rows", n)
    exp = np.zeros((4096, 64))
    np.add.at(exp, index, src.reshape(n, 64).astype(np.float64))
    np.testing.assert_allclose(out.reshape(4096, 64), exp, rtol=1e-4, atol=1e-5)
    assert len(np.unique(index)) < n              # some rows got several source rows
