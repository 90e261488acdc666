"""probe-unseen24's kernels (kernels_cuda/probes25.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from probe_launch import launch


def test_normalize_float3():
    n = 256 * 4
    host, (v, _), *_ = launch("probe/normalize-float3", n)
    a = host[0].reshape(n, 3).astype(np.float64)
    exp = a / np.sqrt((a * a).sum(axis=1, keepdims=True) + 1e-12)
    np.testing.assert_allclose(v.reshape(n, 3), exp, rtol=1e-5, atol=1e-6)


def test_upsample2x():
    n = 64
    host, (a, out, *_), *_ = launch("probe/upsample2x", n)
    exp = np.repeat(np.repeat(a.reshape(n, n), 2, axis=0), 2, axis=1)
    assert out.reshape(2 * n, 2 * n).tolist() == exp.tolist()


def test_quantize_i8():
    n = 256 * 4
    host, (x, q, *_), *_ = launch("probe/quantize-i8", n)
    exp = np.clip(np.rint(x * np.float32(40.0)), -127, 127).astype(np.int8)   # rint: to even
    assert q.tolist() == exp.tolist()
    assert (q == 127).any() and (q == -127).any()


def test_gelu_tanh():
    n = 256 * 4
    host, (x, y, _), *_ = launch("probe/gelu-tanh", n)
    v = x.astype(np.float64)
    exp = 0.5 * v * (1 + np.tanh(0.7978845608 * (v + 0.044715 * v ** 3)))
    np.testing.assert_allclose(y, exp, rtol=1e-5, atol=1e-6)


def test_ssd8x8():
    n = 64
    host, (img, tpl, d, *_), *_ = launch("probe/ssd8x8", n)
    a, t = img.reshape(n, n).astype(np.float64), tpl.reshape(8, 8).astype(np.float64)
    win = np.lib.stride_tricks.sliding_window_view(a, (8, 8))
    exp = ((win - t) ** 2).sum(axis=(2, 3))
    got = d.reshape(n, n)
    np.testing.assert_allclose(got[:n - 7, :n - 7], exp, rtol=1e-5)
    assert not got[n - 7:, :].any() and not got[:, n - 7:].any()     # no window there


def test_list_push_builds_every_list():
    n = 256 * 8
    host, (key, heads, nxt, _), *_ = launch("probe/list-push", n)
    bucket = ((key.astype(np.uint64) * 2654435761) & 0xFFFFFFFF) >> 20
    for b in np.unique(bucket):
        seen, i = [], heads[b]
        while i != -1:
            seen.append(i)
            i = nxt[i]
        assert sorted(seen) == np.flatnonzero(bucket == b).tolist()
    assert (heads[np.setdiff1d(np.arange(4096), bucket)] == -1).all()


def test_brev_permute():
    n = 1 << 12
    host, (a, out, *_), *_ = launch("probe/brev-permute", n)
    rev = np.array([int(f"{i:012b}"[::-1], 2) for i in range(n)])
    exp = np.empty(n, np.float32)
    exp[rev] = a
    assert out.tolist() == exp.tolist()
