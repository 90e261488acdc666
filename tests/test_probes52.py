"""probe-unseen50's kernels (kernels_cuda/probes52.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import math

import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch


def moe_top2(logits: np.ndarray):
    """The two largest logits of each row of 64 (the lower index first among equals) and
    their softmax weights renormalized over the two, in float64."""
    L = logits.reshape(-1, tp.MOE_E).astype(np.float64)
    top = np.argsort(-L, axis=1, kind="stable")[:, :2]
    v = np.take_along_axis(L, top, 1)
    g = 1 / (1 + np.exp(v[:, 1] - v[:, 0]))
    return top, np.stack([g, 1 - g], 1)


def test_moe_top2_thread_and_warp():
    n = 300                                         # 2 blocks of 256 threads, 38 of 8 warps: both partial
    host, (lg, idx, w, nn), *_ = launch("probe/moe-top2-thread", n)
    _, (lg2, idx2, w2, _), *_ = launch("probe/moe-top2-warp", n)
    assert np.array_equal(lg, lg2)                  # the same inputs
    top, wt = moe_top2(lg)
    assert np.array_equal(idx.reshape(n, 2), top)
    np.testing.assert_allclose(w.reshape(n, 2), wt, rtol=0, atol=2e-6)
    assert np.array_equal(idx2.reshape(n, 2), top)
    np.testing.assert_allclose(w2.reshape(n, 2), wt, rtol=0, atol=2e-6)


def test_group_norm():
    hw = 300                                        # a partial last trip of 256 threads a channel
    host, (x, gamma, beta, y, C, HW, G, eps), *_ = launch("probe/group-norm", hw)
    N, C, G, HW = tp.group_norm_shape(hw)
    assert (N, HW) == (2, 300)
    X = x.astype(np.float64).reshape(N, G, -1)
    mean, var = X.mean(2, keepdims=True), X.var(2, keepdims=True)
    Z = ((X - mean) / np.sqrt(var + float(eps))).reshape(N, C, HW)
    exp = Z * gamma.astype(np.float64)[None, :, None] + beta.astype(np.float64)[None, :, None]
    np.testing.assert_allclose(y.reshape(N, C, HW), exp, rtol=1e-4, atol=1e-4)


def test_joint_hist64():
    n = 4 * 100_000                                 # 67584 threads: one or two trips each
    host, (a, b, hist, n4), *_ = launch("probe/joint-hist64", n)
    exp = np.bincount((a.astype(np.int64) >> 2) * 64 + (b.astype(np.int64) >> 2), minlength=4096)
    assert np.array_equal(hist.astype(np.int64), exp)
    assert exp.max() > 1000 and (exp > 0).sum() < 2048   # hot bins near the diagonal


def test_linear_bias_gelu():
    m = 100                                         # 7 row tiles of 16, the last partial
    host, (X, W, bias, Y, M, Nout), *_ = launch("probe/linear-bias-gelu", m)
    V = X.astype(np.float64).reshape(m, tp.LG_K) @ W.astype(np.float64).reshape(tp.LG_K, tp.LG_NOUT) + bias
    erf = np.vectorize(math.erf)
    exp = 0.5 * V * (1 + erf(V / math.sqrt(2)))
    np.testing.assert_allclose(Y.reshape(m, tp.LG_NOUT), exp, rtol=1e-5, atol=2e-5)
    assert (V < -1).any() and (V > 1).any()


def grid_sample(img: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """torch.nn.functional.grid_sample(img, grid, 'bilinear', 'zeros', align_corners=False)
    of img N x C x H x W at grid N x Ho x Wo x 2, the source coordinates in float32 as the
    kernel computes them, the rest in float64."""
    N, C, H, W = img.shape
    f = np.float32
    ix = (((grid[..., 0] + f(1)) * f(W) - f(1)) * f(0.5)).astype(np.float64)
    iy = (((grid[..., 1] + f(1)) * f(H) - f(1)) * f(0.5)).astype(np.float64)
    x0, y0 = np.floor(ix).astype(np.int64), np.floor(iy).astype(np.int64)
    out = np.zeros((N, C) + grid.shape[1:3])
    for dy in (0, 1):
        for dx in (0, 1):
            xx, yy = x0 + dx, y0 + dy
            wgt = (ix - x0 if dx else 1 - (ix - x0)) * (iy - y0 if dy else 1 - (iy - y0))
            ok = (xx >= 0) & (xx < W) & (yy >= 0) & (yy < H)
            for k in range(N):
                v = img[k][:, np.clip(yy[k], 0, H - 1), np.clip(xx[k], 0, W - 1)].astype(np.float64)
                out[k] += np.where(ok[k], wgt[k], 0.0) * v
    return out


def test_grid_sample_bilinear():
    n = 37                                          # 4 x 37 x 37 threads: 22 blocks, the last partial
    host, (img, grid, out, N, C, H, W, Ho, Wo), *_ = launch("probe/grid-sample-bilinear", n)
    N, C = tp.GS_N, tp.GS_C
    exp = grid_sample(img.reshape(N, C, n, n), grid.reshape(N, n, n, 2))
    np.testing.assert_allclose(out.reshape(N, C, n, n), exp, rtol=1e-5, atol=1e-5)
    outside = (np.abs(grid.reshape(-1, 2)) > 1 + 1 / n).any(1).reshape(N, n, n)
    assert outside.any() and (out.reshape(N, C, n, n).transpose(0, 2, 3, 1)[outside] == 0).all()
