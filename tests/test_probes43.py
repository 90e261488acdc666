"""probe-unseen41's kernels (kernels_cuda/probes43.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch


def test_jump_flood():
    n = 48
    host, (cur, out, nn, k), *_ = launch("probe/jump-flood", n)
    c = cur.reshape(n, n, 2).astype(np.int64)
    y, x = np.mgrid[0:n, 0:n]
    exp = c.copy()
    bd = np.where(c[..., 0] < 0, 2 ** 31 - 1, (c[..., 0] - x) ** 2 + (c[..., 1] - y) ** 2)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dx == dy == 0:
                continue
            qx, qy = x + dx * int(k), y + dy * int(k)
            ok = (qx >= 0) & (qy >= 0) & (qx < n) & (qy < n)
            s = np.where(ok[..., None], c[np.clip(qy, 0, n - 1), np.clip(qx, 0, n - 1)], -1)
            d = np.where(s[..., 0] < 0, 2 ** 31, (s[..., 0] - x) ** 2 + (s[..., 1] - y) ** 2)
            take = d < bd
            exp[take], bd = s[take], np.where(take, d, bd)
    assert np.array_equal(out.reshape(n, n, 2), exp)


def test_fnv_strings():
    n = 600
    host, (buf, off, h, nn), *_ = launch("probe/fnv-strings", n)
    for i in range(n):
        v = 2166136261
        for b in buf[off[i]:off[i + 1]]:
            v = ((v ^ int(b)) * 16777619) % (1 << 32)
        assert h[i] == v, i


def test_stereo_sad():
    n = 40
    host, (left, right, disp, w, h), *_ = launch("probe/stereo-sad", n)
    L, R = left.reshape(n, n).astype(np.int64), right.reshape(n, n).astype(np.int64)
    ys, xs = np.arange(n), np.arange(n)
    sums = []
    for d in range(32):
        s = np.zeros((n, n), np.int64)
        for j in (-1, 0, 1):
            yy = np.clip(ys + j, 0, n - 1)
            for i in (-1, 0, 1):
                s += np.abs(L[yy][:, np.clip(xs + i, 0, n - 1)] - R[yy][:, np.clip(xs + i - d, 0, n - 1)])
        sums.append(s)
    assert np.array_equal(disp.reshape(n, n), np.argmin(np.stack(sums), axis=0).astype(np.uint8))
    assert (disp.reshape(n, n)[:, 10:] == 7).mean() > 0.9                 # the shift the right image has


def test_sobol_points():
    n = 1000
    host, (out, nn), syms, _ = launch("probe/sobol-points", n)
    v = syms["c_sobol"].reshape(4, 32)
    for i in range(n):
        g = i ^ (i >> 1)
        exp = [0, 0, 0, 0]
        for k in range(32):
            if g >> k & 1:
                exp = [e ^ int(v[d, k]) for d, e in enumerate(exp)]
        assert [out[d * n + i] for d in range(4)] == exp, i
    assert sorted(out[:256]) == [k << 24 for k in range(256)]              # dimension 0: van der Corput


def test_grid_neighbors():
    n = 700                                                # 3 blocks, the last partial
    host, (p4, start, end, cnt, nn, g, r2), *_ = launch("probe/grid-neighbors", n)
    pos = p4.reshape(n, 4)[:, :3].astype(np.float32)
    cell = tp._grid_cells(pos, int(g))
    assert np.all(np.diff(cell) >= 0)
    d = pos[:, None, :].astype(np.float64) - pos[None, :, :]
    d2 = (d * d).sum(axis=2)
    lo, hi = (d2 <= float(r2) * (1 - 1e-5)).sum(axis=1), (d2 <= float(r2) * (1 + 1e-5)).sum(axis=1)
    assert np.all((lo <= cnt) & (cnt <= hi))              # (float32 and FMA rounding at the edge)
    assert int(g) == tp.grid_side(n) and cnt.mean() > 10                   # neighbours, not only itself


def test_polymul_mod():
    n = 300
    host, (a, b, c, nn, p), *_ = launch("probe/polymul-mod", n)
    exp = [0] * (2 * n - 1)
    for i in range(n):
        for j in range(n):
            exp[i + j] = (exp[i + j] + int(a[i]) * int(b[j])) % int(p)
    assert list(map(int, c)) == exp
