"""probe-unseen53's kernels (kernels_cuda/probes55.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import dataclasses

import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch


def test_regtile8x8_lb_partial_tiles(monkeypatch):
    """M = N = 200 (a 2 x 2 grid, the second row and column of tiles partial) and K = 12
    (the last step of 8 half outside A and B): the guards load zeros, the stores skip."""
    pid, n, K = "probe/regtile8x8-lb", 200, 12
    p = tp.get(pid)

    def args(n, rng):
        return [tp._f32(n * K, rng), tp._f32(K * n, rng), np.zeros(n * n, np.float32), tp._i32(n), tp._i32(n),
                tp._i32(K)]
    monkeypatch.setitem(tp._BY_ID, pid, dataclasses.replace(p, args=args))
    host, (A, B, C, *_), *_ = launch(pid, n)
    exp = A.reshape(n, K).astype(np.float64) @ B.reshape(K, n).astype(np.float64)
    np.testing.assert_allclose(C.reshape(n, n), exp, rtol=0, atol=2e-4)


def test_regtile8x8_lb_registers_limit_occupancy(monkeypatch):
    """The 64 accumulators are registers the occupancy estimate sees: more than 64 a
    thread (2 blocks of 256 an SM at most), as __launch_bounds__(256, 2) allows nvcc.
    (The generator's matrices with K = 8, an argument: one step of k, the same code.)"""
    from simt import timing
    pid, K = "probe/regtile8x8-lb", 8
    p = tp.get(pid)

    def args(n, rng):
        return [tp._f32(n * K, rng), tp._f32(K * n, rng), np.zeros(n * n, np.float32), tp._i32(n), tp._i32(n),
                tp._i32(K)]
    monkeypatch.setitem(tp._BY_ID, pid, dataclasses.replace(p, args=args))
    *_, res = launch(pid, 130)
    regs = int(res.metrics["simt__registers_per_thread.max"])
    assert 64 < regs <= 128
    lim = timing.occupancy_limits(timing.load_profile("h100"), 256, res.shared_bytes, regs)
    assert lim["registers"] == 2


def window_sums(x: np.ndarray, ch: int, r: int = 8) -> np.ndarray:
    """smem_window_dyn's answer: per chunk of ch, the clamped window sums in float32,
    added in the kernel's order."""
    out = np.empty_like(x)
    for b in range(0, len(x), ch):
        c = x[b:b + ch]
        i = np.arange(len(c))
        s = np.zeros(len(c), np.float32)
        for d in range(-r, r + 1):
            s = s + c[np.clip(i + d, 0, len(c) - 1)]
        out[b:b + ch] = s
    return out


def test_smem_window_76k():
    n = 30_000                                      # two chunks, the second 10544 floats
    host, (x, y, *_), *_ = launch("probe/smem-window-76k", n)
    assert tp.get("probe/smem-window-76k").shared == tp.WIN_CH * 4 == 77824
    np.testing.assert_array_equal(y, window_sums(x, tp.WIN_CH))


def test_stream_ilp4_66blk():
    T = tp.ILP_GRID * 256
    q = 2 * T + 1000                                # the third round only for threads 0 .. 999
    host, (x, out, qq), *_ = launch("probe/stream-ilp4-66blk", 4 * q)
    assert qq == q
    S = x.reshape(4, q)
    exp = np.zeros((T, 4), np.float32)
    for j in range(0, q, T):
        m = min(T, q - j)
        exp[:m] = exp[:m] + S[:, j:j + m].T         # float32 adds in the kernel's order
    np.testing.assert_array_equal(out.reshape(T, 4), exp)


def test_chase_l2_32m(monkeypatch):
    # the probe's grid (132 warps) on a cycle of 5000, chasing 64 steps (an argument; the
    # probe takes 2048)
    pid, size = "probe/chase-l2-32m", 5000
    monkeypatch.setitem(tp._BY_ID, pid, dataclasses.replace(tp.get(pid), args=tp._u53_chase_args(64)))
    host, (nxt, out, steps, sz), *_ = launch(pid, size)
    assert steps == 64 and sz == size
    assert sorted(nxt) == list(range(size))         # a permutation ..
    seen, p = 1, nxt[0]
    while p != 0:
        p, seen = nxt[p], seen + 1
    assert seen == size                             # .. of one cycle
    T = tp.CHASE_GRID * tp.CHASE_BLOCK
    p = (np.arange(T, dtype=np.int64) * size // T).astype(np.int64)
    for _ in range(int(steps)):
        p = nxt[p]
    assert np.array_equal(out, p.astype(np.int32))


def test_smem_stride_mix():
    n = 512                                         # two blocks
    host, (src, out, iters), *_ = launch("probe/smem-stride-mix", n)
    t = np.arange(n)
    lane, w, blk = t & 31, (t >> 5) & 7, t // 256
    st = np.array([1, 2, 3, 4, 8, 16, 32, 33])[w]
    S = src.reshape(-1, tp.SMIX_WORDS)
    acc = lane.astype(np.uint32)
    off = (lane * st).astype(np.int64)
    for it in range(int(iters)):
        acc = acc * np.uint32(31) + S[blk, (off + it) & (tp.SMIX_WORDS - 1)]
    assert out.dtype == np.uint32 and np.array_equal(out, acc)


def test_dfma_imix(monkeypatch):
    n = 300                                         # two blocks, the second partial
    # 24 rounds (iters, an argument; the probe runs 512)
    pid = "probe/dfma-imix"

    def args(n, rng):
        a = tp._u53_dfma_args(n, rng)
        a[4] = tp._i32(24)
        return a
    monkeypatch.setitem(tp._BY_ID, pid, dataclasses.replace(tp.get(pid), args=args))
    host, (x, yd, yh, nn, iters), *_ = launch(pid, n)
    assert iters == 24
    c = np.array([0.999, 0.998, 0.997, 0.996, 0.995, 0.994, 0.993, 0.992])
    a = x[:, None] + np.arange(8.0)[None, :]
    h = (np.arange(n, dtype=np.uint64) * 2654435761 + 1).astype(np.uint32)
    for _ in range(int(iters)):
        for _ in range(2):                          # two steps of each chain a round
            a = a * c + x[:, None]                  # the kernel's fma rounds once: within 1e-12
        h ^= h << np.uint32(13)
        h ^= h >> np.uint32(17)
        h ^= h << np.uint32(5)
    exp = ((a[:, 0] + a[:, 1]) + (a[:, 2] + a[:, 3])) + ((a[:, 4] + a[:, 5]) + (a[:, 6] + a[:, 7]))
    np.testing.assert_allclose(yd, exp, rtol=1e-12, atol=0)
    assert yh.dtype == np.uint32 and np.array_equal(yh, h)
    assert len(np.unique(yh)) == n
