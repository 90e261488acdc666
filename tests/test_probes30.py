"""probe-unseen29's kernels (kernels_cuda/probes30.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from probe_launch import launch


def _morton_ref(x, y, z):
    code = 0
    for b in range(10):
        code |= ((x >> b) & 1) << (3 * b + 2) | ((y >> b) & 1) << (3 * b + 1) | ((z >> b) & 1) << (3 * b)
    return code


def test_morton3d_interleaves_the_quantized_coordinates():
    n = 1024
    host, (p, code, _), *_ = launch("probe/morton3d", n)
    q = np.minimum(np.floor(p.reshape(n, 3).astype(np.float64) * 1024), 1023).astype(int)
    assert code.tolist() == [_morton_ref(*map(int, r)) for r in q]
    assert int(code.max()) >= 1 << 29 and len(set(code.tolist())) == n      # the top bit reached


def test_persistent_chunks_cover_every_chunk_once():
    n = 64 * 4096
    host, (x, nxt, part, nchunks), _, res = launch("probe/persistent-chunks", n)
    blocks = len(part)
    assert blocks == res.config.grid.size == 4 and int(nchunks) == 64
    # every block took chunks until one of its grabs found none left
    assert int(nxt[0]) == int(nchunks) + blocks
    assert np.all(part > 0)                                          # each block took some
    np.testing.assert_allclose(part.astype(np.float64).sum(), np.sum(x.astype(np.float64) ** 2), rtol=1e-5)
    per_chunk = (x.astype(np.float64) ** 2).reshape(-1, 4096).sum(axis=1)
    assert np.all(part > 2 * per_chunk.max())                        # each block took several


def test_cic_deposit_spreads_mass_bilinearly():
    n = 4096
    host, (pos, mass, grid, _, g), *_ = launch("probe/cic-deposit", n)
    p = pos.reshape(n, 2).astype(np.float64)
    x0, y0 = np.floor(p[:, 0]).astype(int), np.floor(p[:, 1]).astype(int)
    fx, fy = p[:, 0] - x0, p[:, 1] - y0
    x1, y1 = (x0 + 1) % g, (y0 + 1) % g
    m = mass.astype(np.float64)
    exp = np.zeros((g, g))
    np.add.at(exp, (y0, x0), m * (1 - fx) * (1 - fy))
    np.add.at(exp, (y0, x1), m * fx * (1 - fy))
    np.add.at(exp, (y1, x0), m * (1 - fx) * fy)
    np.add.at(exp, (y1, x1), m * fx * fy)
    np.testing.assert_allclose(grid.reshape(g, g), exp, rtol=1e-5, atol=1e-6)
    assert np.any(x0 == g - 1) and np.any(y0 == g - 1)                # wrapping round
    assert np.bincount(y0 * g + x0).max() > 1                         # cells shared


def test_pcr_tridiag_solves_each_system():
    n = 2                                                   # a block per system: two show base offsets
    host, (a, b, c, d, x), *_ = launch("probe/pcr-tridiag", n)
    for s in range(n):
        sl = slice(s * 256, (s + 1) * 256)
        A = np.diag(b[sl].astype(np.float64)) + np.diag(a[sl][1:].astype(np.float64), -1) \
            + np.diag(c[sl][:-1].astype(np.float64), 1)
        exp = np.linalg.solve(A, d[sl].astype(np.float64))
        np.testing.assert_allclose(x[sl], exp, rtol=0, atol=1e-4 * np.abs(exp).max())
    assert not np.allclose(x, d / b, rtol=1e-2)                       # the off-diagonals matter


def test_trilinear3d_interpolates_the_volume():
    n = 2048
    host, (vol, pos, out, _, dim), *_ = launch("probe/trilinear3d", n)
    v = vol.reshape(dim, dim, dim).astype(np.float64)
    p = pos.reshape(n, 3).astype(np.float64)
    i0 = np.clip(np.floor(p).astype(int), 0, dim - 2)
    f = p - i0
    x, y, z = i0[:, 0], i0[:, 1], i0[:, 2]
    fx, fy, fz = f[:, 0], f[:, 1], f[:, 2]
    exp = np.zeros(n)
    for dz in (0, 1):
        for dy in (0, 1):
            for dx in (0, 1):
                w = (fx if dx else 1 - fx) * (fy if dy else 1 - fy) * (fz if dz else 1 - fz)
                exp += w * v[z + dz, y + dy, x + dx]
    np.testing.assert_allclose(out, exp, rtol=1e-4, atol=1e-5)
    assert np.abs(out - v[z, y, x]).max() > 0.1                        # not the nearest voxel


def _bits_value(h):
    """The value of float32 bits h, reading exponent 255 with mantissa 0 as 2^128."""
    sign = -1.0 if h >> 31 else 1.0
    e, m = (h >> 23) & 0xFF, h & 0x7FFFFF
    if e == 0:
        return sign * m * 2.0 ** -149
    return sign * (1 + m * 2.0 ** -23) * 2.0 ** (e - 127)


def _bf16_ref(u):
    """bfloat16 bits of float32 bits u, rounded to the nearer of its two bfloat16 neighbours
    by value, the even one on a tie."""
    if (u & 0x7FFFFFFF) > 0x7F800000:
        return None
    lo = u & 0xFFFF0000
    hi = lo + 0x10000
    dl, dh = abs(_bits_value(u) - _bits_value(lo)), abs(_bits_value(hi) - _bits_value(u))
    pick = lo if dl < dh or (dl == dh and not (lo >> 16) & 1) else hi
    return pick >> 16


def test_to_bf16_rounds_to_nearest_even():
    n = 8192
    host, (x, out, _), *_ = launch("probe/to-bf16-rne", n)
    u = x.view(np.uint32)
    nan = 0
    for a, h in zip(u.tolist(), out.tolist()):
        r = _bf16_ref(a)
        if r is None:
            nan += 1
            assert h & 0x7FC0 == 0x7FC0 and h >> 15 == a >> 31, (hex(a), hex(h))    # NaN, quiet, signed
        else:
            assert h == r, (hex(a), hex(h), hex(r))
    low = u & 0xFFFF
    ties = low == 0x8000
    assert nan >= 8 and np.any(((u >> 16) & 1)[ties] == 0) and np.any(((u >> 16) & 1)[ties] == 1)
    assert np.any((u & 0x7FFFFFFF) == 0x7F800001) and np.any(out == 0x7F80)    # signalling NaN; overflow to inf
