"""probe-unseen38's kernels (kernels_cuda/probes40.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from probe_launch import launch


def test_bitmat_transpose():
    n = 32 * 24
    host, (a, out, nn), *_ = launch("probe/bitmat-transpose", n)
    bits = ((a.reshape(-1, 32)[:, :, None] >> np.arange(32, dtype=np.uint32)) & 1).astype(np.uint64)  # [tile, row, col]
    exp = (bits.transpose(0, 2, 1) << np.arange(32, dtype=np.uint64)).sum(axis=2).astype(np.uint32).ravel()
    assert np.array_equal(out, exp)


def test_gray_scott():
    n = 64
    host, (u, v, u2, v2, nn, du, dv, f, k, dt), *_ = launch("probe/gray-scott", n)
    U, V = u.reshape(n, n).astype(np.float64), v.reshape(n, n).astype(np.float64)
    lap = lambda a: np.roll(a, 1, 0) + np.roll(a, -1, 0) + np.roll(a, 1, 1) + np.roll(a, -1, 1) - 4 * a
    uvv = U * V * V
    np.testing.assert_allclose(u2.reshape(n, n), U + float(dt) * (float(du) * lap(U) - uvv + float(f) * (1 - U)),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v2.reshape(n, n), V + float(dt) * (float(dv) * lap(V) + uvv - (float(f) + float(k)) * V),
                               rtol=1e-5, atol=1e-6)


def test_rgb_to_yuv420():
    n = 64
    host, (rgb, y, u, v, w, h), *_ = launch("probe/rgb-to-yuv420", n)
    p = rgb.reshape(n, n, 3).astype(np.int64)
    r, g, b = p[..., 0], p[..., 1], p[..., 2]
    assert np.array_equal(y.reshape(n, n), (((66 * r + 129 * g + 25 * b + 128) >> 8) + 16).astype(np.uint8))
    cu = ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128
    cv = ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128
    box = lambda c: c[0::2, 0::2] + c[0::2, 1::2] + c[1::2, 0::2] + c[1::2, 1::2]
    assert np.array_equal(u.reshape(n // 2, n // 2), ((box(cu) + 2) >> 2).astype(np.uint8))
    assert np.array_equal(v.reshape(n // 2, n // 2), ((box(cv) + 2) >> 2).astype(np.uint8))


def test_trapz_integrate():
    n = 1 << 19
    host, (total, nn, b), *_ = launch("probe/trapz-integrate", n)
    assert abs(total[0] - 0.5 * (1 - np.exp(-20.0) * (np.sin(20.0) + np.cos(20.0)))) < 1e-4


def test_col_softmax():
    n = 300
    host, (a, out, rows, cols), *_ = launch("probe/col-softmax", n)
    m = a.reshape(256, n).astype(np.float64)
    e = np.exp(m - m.max(axis=0))
    np.testing.assert_allclose(out.reshape(256, n), e / e.sum(axis=0), rtol=1e-5, atol=1e-7)
