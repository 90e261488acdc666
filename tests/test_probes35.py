"""probe-unseen33's kernels (kernels_cuda/probes35.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from probe_launch import launch


def test_mandelbrot_double_escape_times():
    n = 64
    host, (iters, w, h, mx), *_ = launch("probe/mandelbrot-double", n)
    y, x = np.mgrid[0:n, 0:n]
    c = (-2.0 + 3.0 * x / n) + 1j * (-1.5 + 3.0 * y / n)
    z = np.zeros_like(c)
    k = np.zeros(c.shape, int)
    for _ in range(mx):
        live = np.abs(z) ** 2 < 4.0
        z = np.where(live, z * z + c, z)
        k += live
    got = iters.reshape(n, n)
    assert np.mean(got == k) > 0.99 and np.abs(got - k).max() <= 2        # contraction moves a few
    assert got.max() == mx and got.min() <= 2                            # inside and far outside


def test_rgb565_unpack():
    n = 5000
    host, (px, rgb, _), *_ = launch("probe/rgb565-unpack", n)
    p = px.astype(np.uint32)
    r, g, b = (p >> 11) & 31, (p >> 5) & 63, p & 31
    exp = np.stack([(r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2)], axis=1).astype(np.uint8)
    assert np.array_equal(rgb.reshape(n, 3), exp)


def test_warp_transpose32():
    n = 256 * 32                              # 8 warps' tiles
    host, (a, out), *_ = launch("probe/warp-transpose32", n)
    tiles = a.reshape(-1, 32, 32)
    assert np.array_equal(out.reshape(-1, 32, 32), tiles.transpose(0, 2, 1))


def test_bitmap_rank():
    n = 4096
    host, (bits, prefix, pos, rank, _), *_ = launch("probe/bitmap-rank", n)
    flat = np.unpackbits(bits.view(np.uint8), bitorder="little").astype(np.int64)
    csum = np.concatenate([[0], np.cumsum(flat)])
    assert np.array_equal(rank, csum[pos.astype(np.int64)].astype(np.uint32))
    assert 0.2 < flat.mean() < 0.45


def test_kmeans_update16_sums_each_cluster():
    n = 4096
    host, (pts, label, sums, _), *_ = launch("probe/kmeans-update16", n)
    p = pts.reshape(n, 2).astype(np.float64)
    s = sums.reshape(16, 3)
    for c in range(16):
        m = label == c
        np.testing.assert_allclose(s[c, :2], p[m].sum(axis=0), rtol=1e-4, atol=1e-3)
        assert s[c, 2] == m.sum()


def test_nbody_tiled():
    n = 256
    host, (body, acc, _, eps), *_ = launch("probe/nbody-tiled", n)
    b = body.reshape(n, 4).astype(np.float64)
    d = b[None, :, :3] - b[:, None, :3]
    d2 = (d ** 2).sum(axis=2) + float(eps)
    exp = (d * (b[None, :, 3] / d2 ** 1.5)[:, :, None]).sum(axis=1)
    np.testing.assert_allclose(acc.reshape(n, 4)[:, :3], exp, rtol=2e-3, atol=2e-3)
    assert np.all(acc.reshape(n, 4)[:, 3] == 0)
