"""probe-unseen32's kernels (kernels_cuda/probes34.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from kernels_cuda.timing_probes import _dct_matrix, _records
from probe_launch import launch


def test_newton_cubic_finds_the_roots():
    n = 2048
    host, (a, b, root, iters, _), *_ = launch("probe/newton-cubic", n)
    x = root.astype(np.float64)
    f = (x * x + a) * x + b
    assert np.all(np.abs(f) < 1e-5 * (1 + np.abs(b)) * 1.01)            # every one converged
    exact = np.array([np.real(r[np.argmin(np.abs(np.imag(r)))]) for r in
                      (np.roots([1, 0, float(p), float(q)]) for p, q in zip(a, b))])
    np.testing.assert_allclose(x, exact, rtol=1e-4, atol=1e-4)
    assert iters.min() >= 1 and iters.max() < 50 and len(np.unique(iters)) >= 4   # lanes diverge


def test_dct8x8_is_c_tile_ct():
    n = 32
    host, (img, out, _), syms, _ = launch("probe/dct8x8", n)
    c = syms["c_dct"].reshape(8, 8).astype(np.float64)
    t = img.reshape(n // 8, 8, n // 8, 8).transpose(0, 2, 1, 3).astype(np.float64)
    exp = (c @ t @ c.T).transpose(0, 2, 1, 3).reshape(n, n)
    np.testing.assert_allclose(out.reshape(n, n), exp, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(_dct_matrix() @ _dct_matrix().T, np.eye(8), atol=1e-6)   # orthonormal


def test_warp_radix_sort32_sorts_each_warp():
    n = 1024
    host, (keys, out), *_ = launch("probe/warp-radix-sort32", n)
    assert np.array_equal(out.reshape(-1, 32), np.sort(keys.reshape(-1, 32), axis=1))
    assert not np.array_equal(out.reshape(-1, 32)[:, 0], np.sort(keys)[:n // 32])     # per warp, not global


def test_atoi_fixed16_parses_the_records():
    n = 3000
    host, (rec, val, _), *_ = launch("probe/atoi-fixed16", n)
    _, exp = _records(n, np.random.default_rng(0))
    assert np.array_equal(rec, host[0]) and np.array_equal(val, exp)
    text = rec.view(np.uint8).reshape(n, 16)
    assert [int(bytes(r).decode()) for r in text[:200]] == exp[:200].tolist()
    assert (exp < 0).mean() > 0.25 and np.abs(exp).max() > 10 ** 11 and (np.abs(exp) < 10).any()


def test_rotate_nearest_matches_a_float64_rotation():
    n = 64
    host, (src, dst, w, h, cs, sn), *_ = launch("probe/rotate-nearest", n)
    y, x = np.mgrid[0:n, 0:n].astype(np.float64)
    c = 0.5 * (n - 1)
    fx = float(cs) * (x - c) + float(sn) * (y - c) + c
    fy = float(cs) * (y - c) - float(sn) * (x - c) + c
    sx, sy = np.rint(fx).astype(int), np.rint(fy).astype(int)
    ok = (sx >= 0) & (sx < n) & (sy >= 0) & (sy < n)
    exp = np.where(ok, src.reshape(n, n)[np.clip(sy, 0, n - 1), np.clip(sx, 0, n - 1)], 0)
    edge = (np.abs(fx - np.floor(fx) - 0.5) < 1e-4) | (np.abs(fy - np.floor(fy) - 0.5) < 1e-4)
    got = dst.reshape(n, n)
    assert np.array_equal(got[~edge], exp[~edge])
    assert 0.1 < (got == 0).mean() < 0.3 and edge.mean() < 0.01          # corners cut off


def test_triad_double2():
    n = 4096
    host, (a, b, c, s, _), *_ = launch("probe/triad-double2", n)
    np.testing.assert_allclose(a, b + s * c, rtol=1e-15, atol=1e-15)   # fused: one rounding
    assert not np.array_equal(a, np.zeros_like(a))
