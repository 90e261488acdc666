"""probe-unseen55's kernels (kernels_cuda/probes57.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say (and have the shape they say)."""
import dataclasses

import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch


def _limits(res, threads):
    from simt import timing
    regs = int(res.metrics["simt__registers_per_thread.max"])
    return timing.occupancy_limits(timing.load_profile("h200"), threads, res.shared_bytes, regs)


def test_chase_warp_blocks32():
    nblk = 40
    host, (nxt, out, steps, size), syms, res = launch("probe/chase-warp-blocks32", nblk)
    assert int(size) == tp.U55_CHASE_SIZE and int(steps) == tp.U55_CHASE_STEPS
    assert np.array_equal(np.sort(nxt), np.arange(tp.U55_CHASE_SIZE))      # a permutation ..
    p = np.arange(nblk, dtype=np.int64) * tp.U55_CHASE_SIZE // nblk
    q = p.copy()
    for _ in range(int(steps)):
        q = nxt[q]
    assert not np.any(q == p)                     # .. no block back at its start (one long cycle)
    exp = (q[:, None] + np.arange(32)[None, :]).astype(np.int32).ravel()
    assert np.array_equal(out, exp)


def test_chase_warp_blocks32_occupancy_is_the_blocks_limit():
    """Blocks of one warp: 32 an SM by the blocks limit (2048 by threads would allow 64)."""
    *_, res = launch("probe/chase-warp-blocks32", 4)
    lim = _limits(res, 32)
    assert lim["threads"] == 64 and lim["blocks"] == 32 and min(lim.values()) == 32


def fma_chains(x: np.ndarray, iters: int) -> np.ndarray:
    """fma_tail's answer: fmaf rounds a x c + b once (exact in float64, one rounding to
    float32, which differs from fmaf's only where double rounding bites)."""
    c = np.array([0.999, 0.998, 0.997, 0.996, 0.995, 0.994, 0.993, 0.992], np.float32).astype(np.float64)
    b = x.astype(np.float64)[:, None]
    a = (x[:, None] + np.arange(8, dtype=np.float32)[None, :]).astype(np.float32)
    for _ in range(iters):
        a = (a.astype(np.float64) * c + b).astype(np.float32)
    return ((a[:, 0] + a[:, 1]) + (a[:, 2] + a[:, 3])) + ((a[:, 4] + a[:, 5]) + (a[:, 6] + a[:, 7]))


def test_fma_tail(monkeypatch):
    pid, nblk, iters = "probe/fma-tail-133", 2, 40
    monkeypatch.setitem(tp._BY_ID, pid, dataclasses.replace(tp.get(pid), args=tp._u55_tail_args(iters)))
    host, (x, y, it), syms, res = launch(pid, nblk)
    assert int(it) == iters and len(y) == nblk * 1024
    np.testing.assert_array_equal(y, fma_chains(x, iters))
    assert np.ptp(y) > 1.0                        # the chains did not all land on one value


def test_fma_tail_is_one_block_more_than_the_sms(monkeypatch):
    """1024 threads a block and few registers: 2 blocks an SM, so 133 blocks are one wave in
    which one SM holds two."""
    from simt import timing
    p = tp.get("probe/fma-tail-133")
    prof = timing.load_profile("h200")
    assert p.grid(p.n) == prof.sm_count + 1 and p.block == 1024
    # one block, 40 rounds rather than the probe's 3000 (a runtime argument: the registers and
    # the shared memory are the kernel's whatever the trip count)
    monkeypatch.setitem(tp._BY_ID, p.id, dataclasses.replace(p, args=tp._u55_tail_args(40)))
    *_, res = launch(p.id, 1)
    assert min(_limits(res, 1024).values()) == 2


def test_atomic_f32_rand4096():
    n = 5000                                      # 20 blocks, the last partial
    host, (idx, v, bins, nn), syms, res = launch("probe/atomic-f32-rand4096", n)
    assert len(bins) == tp.U55_BINS == 4096 and idx.min() >= 0 and idx.max() < 4096
    exp = np.bincount(idx, weights=v, minlength=tp.U55_BINS).astype(np.float32)
    assert np.array_equal(bins, exp)              # small integers: exact in any order
    assert bins.sum() > 0


def butterfly_center(x: np.ndarray) -> np.ndarray:
    """butterfly_center1024's answer in float32, the kernel's adds in its order."""
    X = x.reshape(-1, tp.U55_ROW)
    t = np.arange(tp.U55_ROW)
    v = X.copy()
    k = 1
    while k < tp.U55_ROW:
        v = v + v[:, t ^ k]
        k <<= 1
    assert np.all(v == v[:, :1])                  # every thread the same sum
    return (X - v * np.float32(1.0 / tp.U55_ROW)).ravel()


def test_butterfly_center1024():
    host, (x, y), syms, res = launch("probe/butterfly-center1024", 3)
    np.testing.assert_array_equal(y, butterfly_center(x))
    assert abs(float(y.reshape(3, -1).astype(np.float64).sum(1).max())) < 1e-3
    assert res.metrics["simt__barrier_warps.sum"] == 3 * 32 * 21       # 21 barriers a row


def xyz_sums(p: np.ndarray, n: int, grid: int, block: int = 256) -> np.ndarray:
    """xyz_sum_x's answer: each thread's float32 sum in its order, then __shfl_down_sync's
    tree in each warp and the 8 warps' lane 0 in order."""
    T = grid * block
    xs = p[0:3 * n:3]
    s = np.zeros(T, np.float32)
    for j in range(0, n, T):
        m = min(T, n - j)
        s[:m] = s[:m] + xs[j:j + m]
    w = s.reshape(-1, 32)
    for off in (16, 8, 4, 2, 1):
        up = np.concatenate([w[:, off:], w[:, 32 - off:]], 1)     # out of range: its own value
        w = w + up
    lane0 = w[:, 0].reshape(grid, block // 32)
    out = np.zeros(grid, np.float32)
    for k in range(block // 32):
        out = out + lane0[:, k]
    return out


def test_xyz_sum_x(monkeypatch):
    """Three blocks instead of 1056 (the kernel strides by the grid it gets): threads 0 .. 99
    take three points, the others two."""
    pid, grid = "probe/xyz-sum-x", 3
    monkeypatch.setitem(tp._BY_ID, pid, dataclasses.replace(tp.get(pid), grid=lambda n: grid))
    n = 2 * grid * 256 + 100
    host, (p, out, nn), syms, res = launch(pid, n)
    assert len(p) == 3 * n
    np.testing.assert_array_equal(out[:grid], xyz_sums(p, n, grid))
    assert not out[grid:].any()
    # the y and z of each triple are never read: the sum over x alone, not over all
    np.testing.assert_allclose(out[:grid].sum(dtype=np.float64), p[0::3].sum(dtype=np.float64), atol=1e-3)


def test_xyz_sum_x_default_grid_small_n():
    """At the probe's own grid with fewer points than threads: most threads add nothing."""
    n = 3000
    host, (p, out, nn), syms, res = launch("probe/xyz-sum-x", n)
    np.testing.assert_array_equal(out, xyz_sums(p, n, tp.U55_XYZ_GRID))
    assert np.count_nonzero(out) == -(-n // 256)


def test_axpy_block32():
    n = 1000                                      # 32 blocks of 32, the last with 8 lanes in range
    p = tp.get("probe/axpy-block32")
    assert p.grid(1 << 22) == 1 << 17 and p.block == 32
    host, (a, x, y, nn), syms, res = launch("probe/axpy-block32", n)
    y0 = host[2]
    exp = (np.float64(a) * x.astype(np.float64) + y0.astype(np.float64)).astype(np.float32)    # fmaf
    np.testing.assert_allclose(y, exp, rtol=1e-6, atol=1e-7)
    assert not np.array_equal(y, y0)
