"""probe-unseen26's kernels (kernels_cuda/probes27.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import zlib

import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run


def test_attention_naive_is_softmax_of_scores_times_values():
    """One block of 256 queries over 48 keys (the probe has 1024: the emulation's time
    goes with the keys, the same code), then the probe's own inputs' shape."""
    n, nk = 256, 48
    rng = np.random.default_rng(0)
    host = [rng.standard_normal(n * 16).astype(np.float32), rng.standard_normal(nk * 16).astype(np.float32),
            rng.standard_normal(nk * 16).astype(np.float32), np.zeros(n * 16, np.float32),
            np.int32(n), np.int32(nk), np.float32(0.25)]
    q, k, v, o, _, _, scale = run("probe/attention-naive", host, n)
    s = (q.reshape(n, 16).astype(np.float64) * float(scale)) @ k.reshape(-1, 16).T.astype(np.float64)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    exp = (p / p.sum(axis=1, keepdims=True)) @ v.reshape(-1, 16).astype(np.float64)
    np.testing.assert_allclose(o.reshape(n, 16), exp, rtol=2e-4, atol=2e-5)
    args = tp.get("probe/attention-naive").args(256, np.random.default_rng(0))
    assert int(args[5]) == 1024 and len(args[1]) == 1024 * 16


def test_rgb_to_hsv_matches_colorsys_rules():
    n = 512
    host, (px, out, _), *_ = launch("probe/rgb-to-hsv", n)
    rgb = px.reshape(n, 4)[:, :3].astype(np.float32) / np.float32(255)
    r, g, b = rgb.T
    mx, mn = rgb.max(axis=1), rgb.min(axis=1)
    d = mx - mn
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.where(mx == r, (g - b) / d, np.where(mx == g, (b - r) / d + 2, (r - g) / d + 4)) * 60
    h = np.where(d > 0, np.where(h < 0, h + 360, h), 0)
    s = np.where(mx > 0, d / np.where(mx > 0, mx, 1), 0)
    got = out.reshape(n, 4)
    np.testing.assert_allclose(got[:, 0], h, rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(got[:, 1], s, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[:, 2], mx, rtol=1e-6)
    np.testing.assert_allclose(got[:, 3], px.reshape(n, 4)[:, 3] / 255.0, rtol=1e-6)
    assert (got[:, 0] > 0).sum() > n // 2       # the hue branches were taken


def test_crc32_chunks_is_zlib_crc32():
    n = 256
    host, (data, _, out, _), *_ = launch("probe/crc32-chunks", n)
    chunks = data.astype("<u4").tobytes()
    exp = [zlib.crc32(chunks[64 * c:64 * (c + 1)]) for c in range(n)]
    assert out.tolist() == exp


def test_conv2d_layer_is_a_zero_padded_3x3_convolution():
    n = 32
    host, (x, out, _, _), syms, _ = launch("probe/conv2d-layer", n)
    xin = np.pad(x.reshape(8, n, n).astype(np.float64), ((0, 0), (1, 1), (1, 1)))
    w = syms["c_w"].reshape(16, 8, 3, 3).astype(np.float64)
    exp = np.zeros((16, n, n))
    for dy in range(3):
        for dx in range(3):
            exp += np.einsum("oc,cyx->oyx", w[:, :, dy, dx], xin[:, dy:dy + n, dx:dx + n])
    np.testing.assert_allclose(out.reshape(16, n, n), exp, rtol=1e-4, atol=1e-4)


def test_invert4x4_gives_the_inverse():
    n = 256
    host, (a, inv, _), *_ = launch("probe/invert4x4", n)
    exp = np.linalg.inv(a.reshape(n, 4, 4).astype(np.float64))
    np.testing.assert_allclose(inv.reshape(n, 4, 4), exp, rtol=1e-4, atol=1e-5)


def test_fir64_shared_is_a_causal_convolution():
    n = 1024
    host, (x, y, _), syms, _ = launch("probe/fir64-shared", n)
    exp = np.convolve(x.astype(np.float64), syms["c_fir"].astype(np.float64))[:n]
    np.testing.assert_allclose(y, exp, rtol=1e-4, atol=1e-4)
