"""probe-unseen31's kernels (kernels_cuda/probes33.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import base64

import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch

M32 = np.uint64(0xFFFFFFFF)


def _mix32(x):
    x = x.astype(np.uint64)
    x ^= x >> np.uint64(16)
    x = (x * np.uint64(0x7feb352d)) & M32
    x ^= x >> np.uint64(15)
    x = (x * np.uint64(0x846ca68b)) & M32
    x ^= x >> np.uint64(16)
    return x


def test_bloom_insert_sets_the_four_hashed_bits():
    n = 4096
    host, (keys, bits, _, mask), *_ = launch("probe/bloom-insert", n)
    h1 = _mix32(keys)
    h2 = _mix32(h1 ^ np.uint64(0x9e3779b9)) | np.uint64(1)
    exp = np.zeros(1 << 24, bool)
    for k in range(4):
        exp[((h1 + np.uint64(k) * h2) & np.uint64(int(mask))).astype(np.int64)] = True
    got = np.unpackbits(bits.view(np.uint8), bitorder="little").astype(bool)
    assert np.array_equal(got, exp)
    assert 4 * n - 16 < exp.sum() <= 4 * n                               # a few collisions at most


def test_flash_attn_rows_is_softmax_attention(monkeypatch):
    # the probe's 16 heads (grid.y) of 128-thread blocks; emulated: 2 heads (FA_HEADS, the
    # generator's and the grid's) of 128 queries and keys (the fewest: a thread a query row),
    # two tiles of 64 keys each
    assert tp.get("probe/flash-attn-rows").grid(512) == (4, 16)
    monkeypatch.setattr(tp, "FA_HEADS", 2)
    n, H = 128, 2
    host, (q, k, v, o, L, scale), _, res = launch("probe/flash-attn-rows", n)
    q, k, v = (a.reshape(H, n, 32).astype(np.float64) for a in (q, k, v))
    s = np.einsum("hqd,hkd->hqk", q * float(scale), k)
    p = np.exp(s - s.max(axis=2, keepdims=True))
    exp = np.einsum("hqk,hkd->hqd", p / p.sum(axis=2, keepdims=True), v)
    np.testing.assert_allclose(o.reshape(H, n, 32), exp, rtol=2e-4, atol=2e-5)
    assert res.config.grid.y == H and res.config.block.x == 128


def test_base64_encode_matches_the_standard_library():
    n = 3000
    host, (data, out, _), syms, _ = launch("probe/base64-encode", n)
    assert out.tobytes() == base64.b64encode(data.tobytes())
    assert len(set(out.tobytes())) == 64                                 # every letter used


def test_fft_stage_does_the_butterflies():
    n = 4096
    host, (x, y, tw, _, half), *_ = launch("probe/fft-stage", n)
    assert half == 1024
    xc, yc, w = x.view(np.complex64).astype(np.complex128), y.view(np.complex64), tw.view(np.complex64)
    t = np.arange(n // 2)
    j = t % half
    i0 = (t // half) * 2 * half + j
    b = w[j * (n // (2 * half))].astype(np.complex128) * xc[i0 + half]
    exp = np.empty(n, np.complex128)
    exp[i0], exp[i0 + half] = xc[i0] + b, xc[i0] - b
    np.testing.assert_allclose(yc, exp, rtol=1e-5, atol=1e-5)
    # a whole FFT: the stages of span 1, 2, ..., n/2 over bit-reversed input are numpy's FFT
    m = 256
    z = np.random.default_rng(1).standard_normal(2 * m).astype(np.float32)
    rev = np.array([int(f"{i:08b}"[::-1], 2) for i in range(m)])
    from kernels_cuda.backend import EmulatorBackend
    be = EmulatorBackend()
    cur = be.to_device(z.view(np.complex64)[rev].view(np.float32).copy())
    twd = be.to_device(np.exp(-2j * np.pi * np.arange(m // 2) / m).astype(np.complex64).view(np.float32))
    h = 1
    while h < m:
        nxt = be.to_device(np.zeros(2 * m, np.float32))
        be.launch("probes33.cu", "fft_stage", 1, 128, [cur, nxt, twd, np.int32(m), np.int32(h)])
        cur, h = nxt, 2 * h
    np.testing.assert_allclose(be.to_host(cur).view(np.complex64), np.fft.fft(z.view(np.complex64)),
                               rtol=1e-4, atol=2e-4)


def test_nms_mask_holds_the_overlapping_pairs():
    n = 256
    host, (boxes, mask, _, thr), _, res = launch("probe/nms-mask", n)
    b = boxes.reshape(n, 4).astype(np.float64)
    iw = np.maximum(0, np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0]))
    ih = np.maximum(0, np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1]))
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    inter = iw * ih
    iou = inter / (area[:, None] + area[None, :] - inter)
    got = np.unpackbits(mask.view(np.uint8), bitorder="little").reshape(n, n).astype(bool)
    later = np.triu(np.ones((n, n), bool), 1)
    exp = (iou > float(thr)) & later
    close = np.abs(iou - float(thr)) < 1e-5
    assert np.array_equal(got & ~close, exp & ~close)
    assert not np.any(got & ~later)                      # nothing at or below the diagonal
    assert n < exp.sum() < n * n // 64                     # clusters overlap, most pairs don't


def test_redux_count_counts_each_warps_share():
    n = 1 << 16
    host, (x, count, _, thr), *_ = launch("probe/redux-count", n)
    stride = 1024 * 256
    gi = np.arange(n)
    warp = (gi % stride) // 32
    exp = np.bincount(warp, weights=(x > thr), minlength=count.size).astype(np.uint32)
    assert np.array_equal(count, exp)
    assert count[:n // 32].sum() == (x > thr).sum() and count[n // 32:].sum() == 0
