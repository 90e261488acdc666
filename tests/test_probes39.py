"""probe-unseen37's kernels (kernels_cuda/probes39.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from probe_launch import launch


def test_hough_vote():
    n = 64
    host, (img, w, h, acc, nrho), syms, _ = launch("probe/hough-vote", n)
    y, x = np.nonzero(img.reshape(n, n))
    exp = np.zeros((180, int(nrho)), np.int64)
    for t in range(180):
        r = np.rint(x * syms["c_cos"][t] + y * syms["c_sin"][t]).astype(np.int64) + int(nrho) // 2
        np.add.at(exp[t], r, 1)
    got = acc.reshape(180, int(nrho))
    assert got.sum() == 180 * len(x)
    assert (got == exp).mean() > 0.999             # float rounding of a rare rho at .5
    assert got.max() >= 25 > np.median(got[got > 0])  # the lines make peaks


def _cubic(d):
    d = np.abs(d)
    return np.where(d < 1, (1.5 * d - 2.5) * d * d + 1, ((-0.5 * d + 2.5) * d - 4) * d + 2)


def test_bicubic_resize():
    n = 32
    host, (img, w, h, out, ow, oh), *_ = launch("probe/bicubic-resize", n)
    m = 3 * n // 2
    a = img.reshape(n, n).astype(np.float64)
    c = (np.arange(m) + 0.5) * n / m - 0.5
    i0 = np.floor(c).astype(int)
    exp = np.zeros((m, m))
    for j in range(-1, 3):
        yy = np.clip(i0 + j, 0, n - 1)
        wy = _cubic(c - (i0 + j))
        for i in range(-1, 3):
            xx = np.clip(i0 + i, 0, n - 1)
            exp += wy[:, None] * _cubic(c - (i0 + i))[None, :] * a[yy][:, xx]
    np.testing.assert_allclose(out.reshape(m, m), exp, rtol=1e-4, atol=1e-4)


def test_haar2d():
    n = 64
    host, (img, out, nn), *_ = launch("probe/haar2d", n)
    a = img.reshape(n, n)
    p, q, r, s = a[0::2, 0::2], a[0::2, 1::2], a[1::2, 0::2], a[1::2, 1::2]
    exp = np.block([[(p + q + r + s) / 4, (p - q + r - s) / 4], [(p + q - r - s) / 4, (p - q - r + s) / 4]])
    np.testing.assert_allclose(out.reshape(n, n), exp, rtol=1e-5, atol=1e-6)


def test_stencil_rows4():
    n = 64
    host, (img, out, nn), *_ = launch("probe/stencil-rows4", n)
    a = img.reshape(n, n)
    exp = np.zeros((n, n), np.float32)
    exp[1:-1, 1:-1] = a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] - 4 * a[1:-1, 1:-1]
    np.testing.assert_allclose(out.reshape(n, n), exp, rtol=1e-5, atol=1e-5)


def test_upper_char4():
    n = 4096
    host, (text, out, n4), *_ = launch("probe/upper-char4", n)
    assert out.tobytes() == text.tobytes().upper()


def test_dist_matrix():
    n = 64
    host, (pts, d, nn), *_ = launch("probe/dist-matrix", n)
    p = pts.reshape(n, 4)[:, :3].astype(np.float64)
    exp = np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(axis=2))
    np.testing.assert_allclose(d.reshape(n, n), exp, rtol=1e-5, atol=1e-5)
