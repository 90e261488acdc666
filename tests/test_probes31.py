"""probe-unseen30's kernels (kernels_cuda/probes31.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import hashlib

import numpy as np

from probe_launch import launch


def test_sha256_msgs_match_hashlib():
    n = 512
    host, (msg, digest, _), syms, _ = launch("probe/sha256-msgs", n)
    assert hex(int(syms["c_k"][0])) == "0x428a2f98" and hex(int(syms["c_k"][63])) == "0xc67178f2"
    words = msg.reshape(n, 16)
    lengths = words[:, 15] // 8
    for w, length, d in zip(words, lengths.tolist(), digest.reshape(n, 8)):
        m = w.astype(">u4").tobytes()[:length]
        assert d.astype(">u4").tobytes() == hashlib.sha256(m).digest(), m.hex()
    assert lengths.min() == 0 and lengths.max() == 55                    # empty and fullest block
    msgs = {w.astype(">u4").tobytes()[:k] for w, k in zip(words, lengths.tolist())}
    assert len({bytes(d) for d in digest.reshape(n, 8)}) == len(msgs) > n - 32     # distinct messages, digests


def test_im2col3x3_lays_out_the_patches():
    n = 7                                     # 64 channels of 7 x 7: a partial last block
    host, (im, col, c, h, w), _, res = launch("probe/im2col3x3", n)
    assert res.config.grid.size * 256 > col.size
    x = np.pad(im.reshape(c, h, w), ((0, 0), (1, 1), (1, 1)))
    exp = np.stack([x[:, ky:ky + h, kx:kx + w] for ky in range(3) for kx in range(3)], axis=1)
    assert np.array_equal(col.reshape(c * 9, h * w), exp.reshape(c * 9, h * w))
    assert np.count_nonzero(col == 0) == c * (9 * h * w - (3 * h - 2) * (3 * w - 2))   # the padding


def test_triangle_count_counts_each_triangle_once():
    n = 1024
    host, (row_ptr, col, src, count, nnz), _, res = launch("probe/triangle-count", n)
    assert np.all(np.diff(col.astype(np.int64) + src.astype(np.int64) * n) > 0)       # sorted, no duplicates
    assert np.all(src != col) and res.config.grid.size * 256 >= nnz
    a = np.zeros((n, n))
    a[src, col] = 1.0
    assert np.array_equal(a, a.T)                                        # undirected
    exp = int(round(np.trace(a @ a @ a) / 6))
    assert int(count[0]) == exp
    assert exp > 1000                                                   # many triangles
    assert 14 < nnz / n < 17                                            # degree about 16


def test_jacobi_residual_sweeps_and_takes_the_max():
    n = 64
    host, (u, unew, r, _), _, res = launch("probe/jacobi-residual", n)
    g = u.reshape(n, n)
    exp = g.copy()
    exp[1:-1, 1:-1] = np.float32(0.25) * (((g[1:-1, :-2] + g[1:-1, 2:]) + g[:-2, 1:-1]) + g[2:, 1:-1])
    out = unew.reshape(n, n)
    assert np.array_equal(out, exp)
    assert np.array_equal(out[0], g[0]) and np.array_equal(out[:, -1], g[:, -1])      # boundary copied
    d = np.abs(out - g)
    assert r[0] == d.max() and r[0] > 0
    warp_max = d.reshape(n, n // 32, 32).max(axis=2)                     # a warp a row of 32
    assert len(np.unique(warp_max[warp_max > 0])) > 100                  # the atomicMax had to choose
    assert np.argmax(warp_max) // (n // 32) >= 8                         # not from the first row of blocks


def test_spmm_csr_warp_matches_dense():
    n = 256
    host, (row_ptr, col, val, x, y, _), *_ = launch("probe/spmm-csr-warp", n)
    a = np.zeros((n, n))
    rows = np.repeat(np.arange(n), np.diff(row_ptr))
    np.add.at(a, (rows, col), val.astype(np.float64))
    exp = a @ x.reshape(n, 32).astype(np.float64)
    np.testing.assert_allclose(y.reshape(n, 32), exp, rtol=1e-5, atol=1e-5)
    lens = np.diff(row_ptr)
    assert lens.min() == 4 and lens.max() == 28 and len(np.unique(col)) < col.size   # columns repeat


def _pnpoly(px, py, vx, vy):
    """Franklin's crossing test in float32, the kernel's operations in its order."""
    inside = np.zeros(px.shape, bool)
    j = len(vx) - 1
    for k in range(len(vx)):
        xi, yi, xj, yj = vx[k], vy[k], vx[j], vy[j]
        with np.errstate(divide="ignore", invalid="ignore"):
            xc = (xj - xi) * (py - yi) / (yj - yi) + xi
        inside ^= ((yi > py) != (yj > py)) & (px < xc)
        j = k
    return inside


def test_point_in_polygon_even_odd():
    n = 4096
    host, (pts, inside, _), syms, _ = launch("probe/point-in-polygon", n)
    p = pts.reshape(n, 2)
    exp = _pnpoly(p[:, 0], p[:, 1], syms["c_px"], syms["c_py"])
    assert pts.dtype == np.float32 and syms["c_px"].dtype == np.float32
    assert np.array_equal(inside, exp.astype(np.uint8))
    r = np.hypot(p[:, 0], p[:, 1])
    assert np.all(inside[r < 0.4] == 1) and np.all(inside[r > 1.06] == 0)
    assert 0.2 < inside.mean() < 0.6 and np.any(inside[(r > 0.5) & (r < 0.9)] == 0)   # between the points
