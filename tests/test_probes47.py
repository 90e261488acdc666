"""probe-unseen45's kernels (kernels_cuda/probes47.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import conv_same, launch


def test_matmul_rect():
    m = 88                      # M 88, N 71, K 53: partial tiles everywhere, K's last ends in the second half
    host, (a, b, c, M, N, K), *_ = launch("probe/matmul-rect", m)
    assert (int(M), int(N), int(K)) == (88, 71, 53) == tp.matmul_rect_dims(m)
    A, B = a.reshape(88, 53).astype(np.float64), b.reshape(53, 71).astype(np.float64)
    np.testing.assert_allclose(c.reshape(88, 71), A @ B, rtol=1e-4, atol=1e-4)


def test_hist256_warp_private():
    n = 4 * 9000                                    # 9 blocks, about 4 words a thread by the grid-stride loop
    host, (data, nwords, bins), *_ = launch("probe/hist256-warp-private", n)
    byts = host[0].view(np.uint8)
    assert byts.size == n and int(nwords) == n // 4
    exp = np.bincount(byts, minlength=256)
    assert np.array_equal(bins.astype(np.int64), exp)
    assert exp.max() > 20 * exp.min() and exp.min() > 0      # skewed, every bin hit


def test_conv7x7_tiled():
    n = 37                                          # 4 x 4 blocks, the last ones partly outside
    host, (img, out, w, h), syms, _ = launch("probe/conv7x7-tiled", n)
    exp = conv_same(img.reshape(n, n), syms["c_filt7"].astype(np.float64).reshape(7, 7))
    np.testing.assert_allclose(out.reshape(n, n), exp, rtol=1e-4, atol=1e-5)


def test_reduce_modulo():
    n = 256 * 5 + 77                                # a partial last block
    host, (x, sums, nn), *_ = launch("probe/reduce-modulo", n)
    exp = np.add.reduceat(x.astype(np.int64), np.arange(0, n, 256))
    assert np.array_equal(sums.astype(np.int64), exp)


def test_gemv_block_row():
    rows = 6
    host, (a, x, y, cols), *_ = launch("probe/gemv-block-row", rows)
    A = a.reshape(rows, int(cols)).astype(np.float64)
    np.testing.assert_allclose(y, A @ x.astype(np.float64), rtol=1e-4, atol=1e-3)


def test_heat1d_multistep():
    n = 1000                                        # 5 blocks of 224 outputs, the last partial
    host, (u, out, nn, r), *_ = launch("probe/heat1d-multistep", n)
    v = u.astype(np.float64)
    for _ in range(tp.HEAT_STEPS):
        p = np.pad(v, 1)
        v = v + float(r) * (p[:-2] - 2 * v + p[2:])
    np.testing.assert_allclose(out, v, rtol=1e-4, atol=1e-5)
    assert np.abs(out - u).max() > 0.5              # it did smooth
