"""probe-unseen48's kernels (kernels_cuda/probes50.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import conv_same, launch


def test_saxpy_gridstride():
    n = tp.SAXPY_GRID * 256 * 2 + 999               # the 264 blocks take 2 or 3 trips
    host, (a, x, y, nn), *_ = launch("probe/saxpy-gridstride264", n)
    exp = float(a) * host[1].astype(np.float64) + host[2].astype(np.float64)
    np.testing.assert_allclose(y, exp, rtol=1e-6, atol=1e-6)


def test_cbrt_even_only():
    n = 5000
    host, (x, out, nn), *_ = launch("probe/cbrt-even-only", n)
    assert np.all(out[1::2] == 0)                   # the odd threads returned
    np.testing.assert_allclose(out[0::2], np.cbrt(1 + np.abs(x[0::2].astype(np.float64))), rtol=2e-6)


def test_dft_naive():
    n = 300                                         # 3 blocks of 128, the last partial
    host, (x, X, nn), *_ = launch("probe/dft-naive", n)
    z = x[0::2].astype(np.float64) + 1j * x[1::2].astype(np.float64)
    exp = np.fft.fft(z)
    got = X[0::2].astype(np.float64) + 1j * X[1::2].astype(np.float64)
    np.testing.assert_allclose(got, exp, rtol=0, atol=2e-4 * np.sqrt(n))
    assert np.abs(exp).max() > 40


def test_sturm_bisect32():
    nmat = 21                                       # 3 blocks of 8 matrices, the last partial
    host, (d, e, eig, nm), *_ = launch("probe/sturm-bisect32", nmat)
    for m in range(nmat):
        dd, ee = d[32 * m:32 * m + 32].astype(np.float64), e[32 * m:32 * m + 31].astype(np.float64)
        T = np.diag(dd) + np.diag(ee, 1) + np.diag(ee, -1)
        np.testing.assert_allclose(eig[32 * m:32 * m + 32], np.linalg.eigvalsh(T), rtol=0, atol=3e-5)


def test_blur5x5_u8():
    n = 37                                          # 3 x 3 blocks, partly outside
    host, (img, out, w, h), *_ = launch("probe/blur5x5-u8", n)
    I = img.reshape(n, n).astype(np.int64)
    P = np.pad(I, 2)
    C = np.pad(np.ones((n, n), np.int64), 2)
    s = sum(P[dy:dy + n, dx:dx + n] for dy in range(5) for dx in range(5))
    c = sum(C[dy:dy + n, dx:dx + n] for dy in range(5) for dx in range(5))
    assert c.min() == 9 and c.max() == 25
    assert np.array_equal(out.reshape(n, n).astype(np.int64), s // c)


def test_conv5x5_cached_halo():
    n = 37                                          # 3 x 3 blocks, the last ones partly outside
    host, (img, out, w, h), syms, _ = launch("probe/conv5x5-cached-halo", n)
    exp = conv_same(img.reshape(n, n), syms["c_filt5"].astype(np.float64).reshape(5, 5))
    np.testing.assert_allclose(out.reshape(n, n), exp, rtol=1e-4, atol=1e-5)
