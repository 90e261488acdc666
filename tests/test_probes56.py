"""probe-unseen54's kernels (kernels_cuda/probes56.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import dataclasses

import numpy as np

from kernels_cuda import timing_probes as tp
from probe_launch import launch


def test_transpose_u8_rect_partial_tiles():
    """100 x 150 (both edges partial tiles of 32): every byte lands at its transposed place."""
    n = 100
    host, (src, out, rows, cols), *_ = launch("probe/transpose-u8-rect", n)
    assert (rows, cols) == (100, 150) and src.dtype == np.uint8
    np.testing.assert_array_equal(out.reshape(150, 100), src.reshape(100, 150).T)


def test_transpose_u8_rect_tile_bank_conflicts():
    """The 33-byte tile rows (the float version's padding) leave the column reads of tile
    rows j = 1, 2, 3 (mod 4) with one 2-way conflict each; the row writes have none."""
    n = 64                                          # 2 x 3 full tiles: 6 blocks
    *_, res = launch("probe/transpose-u8-rect", n, count_memory=True)
    m = res.metrics
    tiles, reads = 6, 6 * 32                        # a block 32 warp-reads (8 warps x 4 rows)
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"] == 0
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == tiles * 24
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == reads + tiles * 24


def life_step(board: np.ndarray) -> np.ndarray:
    """One step of Conway's Life on a 0/1 board, dead outside it."""
    P = np.pad(board.astype(np.int32), 1)
    h, w = board.shape
    cnt = sum(P[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] for dy in (-1, 0, 1) for dx in (-1, 0, 1)
              if (dy, dx) != (0, 0))
    return ((cnt == 3) | ((board == 1) & (cnt == 2))).astype(np.uint8)


def unpack(words: np.ndarray, rows: int) -> np.ndarray:
    """Bits of rows x wpr words to a rows x 32 wpr 0/1 board, cell x bit x % 32 of word x / 32."""
    return np.unpackbits(words.reshape(rows, -1).view(np.uint8), axis=1, bitorder="little")


def test_life_bits_popc():
    n = 96                                          # three words a row: both word edges
    host, (src, out, rows, wpr), *_ = launch("probe/life-bits-popc", n)
    board = unpack(src, n)
    assert board.shape == (96, 96) and 0.4 < board.mean() < 0.6
    exp = life_step(board)
    np.testing.assert_array_equal(unpack(out, n), exp)
    assert 0 < exp.sum() < exp.size


def test_life_bits_popc_glider_across_words(monkeypatch):
    """A glider astride word 0 and word 1 and a blinker on the board's right edge, stepped once."""
    pid, n = "probe/life-bits-popc", 64
    p = tp.get(pid)
    board = np.zeros((n, n), np.uint8)
    board[10, 31], board[11, 32], board[12, 30:33] = 1, 1, 1  # glider
    board[30:33, 63] = 1                                     # blinker, half off the board
    board[0, 5:8] = 1                                        # blinker at the top edge

    def args(n, rng):
        w = np.packbits(board, axis=1, bitorder="little").view(np.uint32).ravel()
        return [w, np.zeros_like(w), tp._i32(n), tp._i32(n // 32)]
    monkeypatch.setitem(tp._BY_ID, pid, dataclasses.replace(p, args=args))
    host, (src, out, *_), *_ = launch(pid, n)
    got = unpack(out, n)
    np.testing.assert_array_equal(got, life_step(board))
    assert got[11, 30] == got[11, 32] == got[12, 31] == got[12, 32] == got[13, 31] == 1
    assert got[31, 62] == got[31, 63] == 1 and got.sum() == 5 + 2 + 2


def sell_to_dense(n, L, cols, vals):
    A = np.zeros((n, n))
    np.add.at(A, (np.repeat(np.arange(n), L), cols), vals.astype(np.float64))
    return A


def test_spmv_sell32_sigma():
    n = 700                                         # 22 slices, the last of 28 rows; 3 windows
    host, (sptr, slen, C, V, perm, x, y, nn), *_ = launch("probe/spmv-sell32-sigma", n)
    L, cols, vals = tp._u54_sell_csr(n, np.random.default_rng(0))
    assert (L >= 64).sum() >= 5                     # some long rows pad their slices
    Lp = np.zeros(22 * 32, np.int64)
    Lp[:n] = L[perm]
    assert np.array_equal(slen, Lp.reshape(22, 32).max(1))
    assert np.array_equal(np.diff(sptr), 32 * slen)
    assert all((np.diff(L[perm[w:w + 256]]) <= 0).all() for w in range(0, n, 256))
    assert sorted(perm) == list(range(n))
    assert np.count_nonzero(V) == len(vals)
    A = sell_to_dense(n, L, cols, vals)
    exp = A @ x.astype(np.float64)
    tol = 1e-5 * (np.abs(A) @ np.abs(x.astype(np.float64))) + 1e-6
    assert (np.abs(y - exp) <= tol).all()
    assert not np.array_equal(y, np.zeros(n, np.float32))


def queens_from(nb, c, l, r):
    full = (1 << nb) - 1
    if c == full:
        return 1
    tot, avail = 0, full & ~(c | l | r)
    while avail:
        b = avail & -avail
        avail ^= b
        tot += queens_from(nb, c | b, ((l | b) << 1) & full, (r | b) >> 1)
    return tot


def test_nqueens_prefix_8():
    host, (pc, pl, pr, count, total, nb, npf), *_ = launch("probe/nqueens-prefix", 8)
    assert npf == len(pc) > 256                     # more than one block
    exp = np.array([queens_from(8, int(c), int(l), int(r)) for c, l, r in zip(pc, pl, pr)], np.uint32)
    assert np.array_equal(count, exp)
    assert int(total[0]) == int(count.sum()) == 92


def test_nqueens_prefix_10():
    host, (pc, pl, pr, count, total, nb, npf), *_ = launch("probe/nqueens-prefix", 10)
    assert int(total[0]) == int(count.sum()) == 724
    assert all(bin(int(c)).count("1") == tp.U54_NQ_DEPTH for c in pc)
    exp = [queens_from(10, int(c), int(l), int(r)) for c, l, r in zip(pc[::37], pl[::37], pr[::37])]
    assert count[::37].tolist() == exp


def test_bfs_queue_expand():
    n = 3000
    host, (row_ptr, adj, front, nf, dist, nxt, nlen, level), *_ = launch("probe/bfs-queue-expand", n)
    d0 = host[4]
    assert nf == len(front) > 256 and (d0[front] == level).all() and (d0 <= level).all()
    nb = np.unique(np.concatenate([adj[row_ptr[u]:row_ptr[u + 1]] for u in front]))
    new = nb[d0[nb] < 0]
    exp = d0.copy()
    exp[new] = level + 1
    assert np.array_equal(dist, exp)
    k = int(nlen[0])
    assert k == len(new) > 0
    assert np.array_equal(np.sort(nxt[:k]), new)    # each found vertex queued once
    assert (nxt[k:] == 0).all()


def merged(a: np.ndarray, w: int) -> np.ndarray:
    out = a.copy()
    for lo in range(0, len(a), 2 * w):
        out[lo:lo + 2 * w] = np.sort(a[lo:lo + 2 * w])
    return out


def test_merge_pass_w32():
    n = 5000                                        # the last thread: a run of 8, no partner
    host, (src, out, nn, w), *_ = launch("probe/merge-pass-w32", n)
    assert w == 32 and all((np.diff(src[i:i + 32]) >= 0).all() for i in range(0, n, 32))
    assert len(np.unique(src)) < n                  # ties between the runs
    np.testing.assert_array_equal(out, merged(src, 32))
    assert not np.array_equal(out, src)


def test_merge_pass_w32_partner_cut():
    n = 64 * 256 + 40                               # a second block whose thread's partner run has 8
    host, (src, out, *_), *_ = launch("probe/merge-pass-w32", n, seed=3)
    np.testing.assert_array_equal(out, merged(src, 32))
