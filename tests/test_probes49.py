"""probe-unseen47's kernels (kernels_cuda/probes49.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run


def test_matmul_t32_rows4():
    n = 256                                         # 8 x 8 blocks, k = 32: one step
    host, (a, b, c, nn, k), *_ = launch("probe/matmul-t32-rows4", n)
    assert int(k) == 32
    A, B = a.reshape(n, 32).astype(np.float64), b.reshape(32, n).astype(np.float64)
    np.testing.assert_allclose(c.reshape(n, n), A @ B, rtol=1e-4, atol=1e-4)
    # 4 x 4 blocks, k = 64: two steps (n = 128 of the generator's 512 x 64 and 64 x 512)
    pid, n = "probe/matmul-t32-rows4", 128
    a, b, c, _, k = tp.get(pid).args(512, np.random.default_rng(0))
    assert int(k) == 64
    a, b, c = a.reshape(512, 64)[:n].ravel(), b.reshape(64, 512)[:, :n].ravel(), c[:n * n].copy()
    a, b, c, nn, k = run(pid, [a, b, c, np.int32(n), k], n)
    A, B = a.reshape(n, 64).astype(np.float64), b.reshape(64, n).astype(np.float64)
    np.testing.assert_allclose(c.reshape(n, n), A @ B, rtol=1e-4, atol=1e-4)


def test_spmv_jds():
    rows = 3000                                     # 12 blocks, the last partial
    host, (jd_ptr, perm, cols, vals, x, y, nr, ndiag), *_ = launch("probe/spmv-jds", rows)
    assert int(nr) == rows and int(ndiag) == jd_ptr.size - 1
    assert sorted(perm.tolist()) == list(range(rows))
    # decode the format on its own terms: diagonal d holds sorted rows 0 .. count_d - 1
    A = np.zeros((rows, rows))
    counts = np.diff(jd_ptr)
    assert np.all(np.diff(counts) <= 0) and counts[0] == rows
    for d in range(int(ndiag)):
        r = np.arange(counts[d])
        np.add.at(A, (perm[r], cols[jd_ptr[d] + r]), vals[jd_ptr[d] + r].astype(np.float64))
    lens = (A != 0).sum(1)
    assert lens.min() >= 1 and lens.max() > 20                  # rows of many lengths
    np.testing.assert_allclose(y, A @ x.astype(np.float64), rtol=1e-4, atol=1e-4)


def test_equalize_lut_u8():
    n = 4 * 6000                                    # 24 blocks, one trip of the grid-stride loop or none
    host, (cdf, cdf_min, img, out, n4), *_ = launch("probe/equalize-lut-u8", n)
    hist = np.bincount(img, minlength=256)
    c = np.cumsum(hist)
    cmin = c[c > 0].min()
    assert int(cdf_min) == cmin and np.array_equal(cdf, c)
    lut = np.floor((np.maximum(c - cmin, 0) * 255 + (c[-1] - cmin) // 2) / (c[-1] - cmin)).astype(np.int64)
    exp = lut[img]
    assert np.array_equal(out.astype(np.int64), exp)
    assert exp.min() == 0 and exp.max() == 255 and len(np.unique(exp)) > 60      # spread out


def test_fwht1024_shared():
    n = 3 * tp.FW_N
    host, (x, out), *_ = launch("probe/fwht1024-shared", n)
    j = np.arange(tp.FW_N)
    bits = np.unpackbits((j[:, None] & j[None, :]).astype(">u2").view(np.uint8).reshape(tp.FW_N, tp.FW_N, 2), axis=2)
    H = np.where(bits.sum(2) % 2, -1.0, 1.0)
    exp = x.reshape(3, tp.FW_N).astype(np.float64) @ H.T
    np.testing.assert_allclose(out.reshape(3, tp.FW_N), exp, rtol=1e-4, atol=2e-3)


def test_lane_switch4():
    n = 3000
    host, (x, out, nn), *_ = launch("probe/lane-switch4", n)
    x64 = x.astype(np.float64)
    lane = np.arange(n) % 256 % 4
    exp = np.zeros(n)
    y = x64 / (1 + np.abs(x64))
    exp[lane == 0] = ((1 - y ** 32) / (1 - y))[lane == 0]
    exp[lane == 1] = (1 / np.sqrt(1 + x64 * x64))[lane == 1]
    h = x.view(np.uint32).astype(np.uint64)
    m = np.uint64(0xFFFFFFFF)
    for _ in range(32):
        h ^= (h << np.uint64(13)) & m
        h ^= h >> np.uint64(17)
        h ^= (h << np.uint64(5)) & m
    exp[lane == 2] = ((h >> np.uint64(8)).astype(np.float64) / 2 ** 24)[lane == 2]
    r = np.zeros(n)
    for _ in range(32):
        r = np.sin(r + x64)
    exp[lane == 3] = r[lane == 3]
    np.testing.assert_allclose(out[lane != 2], exp[lane != 2], rtol=2e-4, atol=2e-4)
    assert np.array_equal(out[lane == 2], exp[lane == 2].astype(np.float32))     # integer math, exact


def test_atomic_intrinsics9():
    n = 3000
    host, (g, nn), *_ = launch("probe/atomic-intrinsics9", n)
    init = host[0].astype(np.int64)
    i = np.arange(n, dtype=np.int64)
    inc = dec = 0
    for _ in range(n):
        inc = 0 if inc >= 17 else inc + 1
        dec = 137 if dec == 0 or dec > 137 else dec - 1
    andv, orv, xorv = int(init[6]), int(init[7]), int(init[8])
    for k in range(n):
        andv &= 2 * k + 7
        orv |= 1 << (k % 32)
        xorv ^= k
    exp = [init[0] + 10 * n, init[1] - 10 * n, max(init[2], i.max()), min(init[3], (i ^ 0x2AAAA).min()),
           inc, dec, andv, orv, xorv]
    assert g.astype(np.int64).tolist() == [int(e) for e in exp]
