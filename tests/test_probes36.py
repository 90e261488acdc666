"""probe-unseen34's kernels (kernels_cuda/probes36.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from probe_launch import launch
from kernels_cuda.timing_probes import _perm_dims

EX = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])
EY = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1])
W = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)


def test_lbm_d2q9_pulls_and_collides():
    n = 32
    host, (f, g, nx, ny, omega), *_ = launch("probe/lbm-d2q9", n)
    f = f.reshape(9, n, n).astype(np.float64)
    fi = np.stack([np.roll(f[k], (EY[k], EX[k]), axis=(0, 1)) for k in range(9)])   # f[k][y - ey][x - ex]
    rho = fi.sum(0)
    ux, uy = (EX[:, None, None] * fi).sum(0) / rho, (EY[:, None, None] * fi).sum(0) / rho
    cu = 3 * (EX[:, None, None] * ux + EY[:, None, None] * uy)
    feq = W[:, None, None] * rho * (1 + cu + 0.5 * cu * cu - 1.5 * (ux * ux + uy * uy))
    exp = fi + float(omega) * (feq - fi)
    np.testing.assert_allclose(g.reshape(9, n, n), exp, rtol=2e-5, atol=1e-7)
    # a collision keeps each site's mass: sum over k of g equals rho
    np.testing.assert_allclose(g.reshape(9, n, n).sum(0), rho, rtol=1e-5)


def test_hog_cells_bins_every_pixel_by_its_orientation():
    n = 64
    host, (img, hist, w, h), *_ = launch("probe/hog-cells", n)
    im = img.reshape(n, n).astype(np.float32)
    xs = np.arange(n)
    gx = im[:, np.minimum(xs + 1, n - 1)] - im[:, np.maximum(xs - 1, 0)]
    gy = im[np.minimum(xs + 1, n - 1), :] - im[np.maximum(xs - 1, 0), :]
    mag = np.sqrt(gx * gx + gy * gy).astype(np.float32)
    ang = np.arctan2(gy, gx).astype(np.float32)
    ang = np.where(ang < 0, ang + np.float32(3.14159265), ang).astype(np.float32)
    b = np.minimum((ang * np.float32(9.0 / np.float32(3.14159265))).astype(np.int32), 8)
    exp = np.zeros((n // 8, n // 8, 9))
    np.add.at(exp, (np.arange(n)[:, None] // 8, np.arange(n)[None, :] // 8, b), mag)
    got = hist.reshape(n // 8, n // 8, 9)
    np.testing.assert_allclose(got.sum(2), exp.sum(2), rtol=1e-5)         # every pixel counted once
    close = np.isclose(got, exp, rtol=1e-4, atol=1e-3).all(axis=2)
    assert close.mean() > 0.95                                           # atan2f's last bit moves a rare pixel
    assert (got > 0).sum(2).min() >= 4                                   # a random image fills many bins


def test_xnor_gemm_counts_agreeing_bits():
    n = 64
    host, (a, b, c, m, nn, kw), *_ = launch("probe/xnor-gemm", n)
    bits = lambda x: np.unpackbits(x.view(np.uint8)).reshape(n, -1).astype(np.int64) * 2 - 1
    exp = bits(a) @ bits(b).T
    assert np.array_equal(c.reshape(n, n), exp)


def test_ising_checker_flips_one_colour_by_metropolis():
    n = 64
    host, (s, nn, color, seed), syms, _ = launch("probe/ising-checker", n)
    s0 = host[0].reshape(n, n).astype(np.int64)
    nb = np.roll(s0, 1, 0) + np.roll(s0, -1, 0) + np.roll(s0, 1, 1) + np.roll(s0, -1, 1)
    y, x = np.mgrid[0:n, 0:n]
    site = (y * n + x).astype(np.uint32)
    v = site ^ np.uint32(seed)
    v ^= v >> 16; v = (v * np.uint32(0x7feb352d)).astype(np.uint32)
    v ^= v >> 15; v = (v * np.uint32(0x846ca68b)).astype(np.uint32)
    v ^= v >> 16
    u = (v >> 8).astype(np.float32) * np.float32(1 / 16777216)
    p = syms["c_boltz"][(s0 * nb + 4) // 2]
    flip = ((y + x) % 2 == color) & (u < p)
    exp = np.where(flip, -s0, s0)
    assert np.array_equal(s.reshape(n, n), exp)
    assert 0.2 < flip.mean() < 0.5                                        # half the sites, most of them flip


def test_permute4d_transposes_by_divisions():
    n = 8 * 3 * 8 * 8
    host, (a, out, *dims), *_ = launch("probe/permute4d", n)
    d = _perm_dims(n)
    assert tuple(int(x) for x in dims) == d
    assert np.array_equal(out, a.reshape(d).transpose(1, 0, 3, 2).ravel())


def _jacobi(f, tol, maxit):
    u = np.zeros(258, np.float32)
    it = 0
    while it < maxit:
        nu = (np.float32(0.5) * ((u[:-2] + u[2:]) + f)).astype(np.float32)
        d = np.abs(nu - u[1:-1])
        u[1:-1] = nu
        it += 1
        if not (d > tol).any():
            break
    return u[1:-1], it


def test_jacobi_converge_stops_each_block_on_its_vote():
    n = 256 * 6
    host, (rhs, x, iters, maxit, tol), *_ = launch("probe/jacobi-converge", n)
    for blk in range(n // 256):
        u, it = _jacobi(rhs[blk * 256:(blk + 1) * 256], tol, int(maxit))
        assert iters[blk] == it
        assert np.array_equal(x[blk * 256:(blk + 1) * 256], u)
    assert len(set(iters.tolist())) >= 4                                  # the blocks stop at different sweeps
