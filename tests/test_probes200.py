"""probe-unseen198's kernels (kernels_cuda/probes200.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/chess-legal-movecount", "probe/elo-period-atomicadd", "probe/pst-tapered-warp-shfl",
       "probe/ttt-alphabeta-stack", "probe/go-liberties-smem", "probe/nnue-halfkp-gather"]


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen198"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes200.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def test_data():
    rng = np.random.default_rng(0)
    n = 1 << 14
    sq, side = tp._p200_positions(n, rng)
    bb = tp._p200_bitboards(sq)
    live = sq >= 0
    assert sq.shape == (n, 32) and live[:, [0, 16]].all() and side.dtype == np.int32
    occ = np.bitwise_or.reduce(bb, axis=1)
    assert (np.bitwise_count(occ) == live.sum(axis=1)).all()                 # no square taken twice
    pawns = bb[:, 0] | bb[:, 6]
    assert not (pawns & np.uint64(0xFF000000000000FF)).any()                # no pawn on rank 1 or 8
    assert not (tp._p200_king_att(bb[:, 5]) & bb[:, 11]).any()               # kings apart
    chk = np.stack([tp._p200_attacked(bb, c) for c in (0, 1)], axis=1)
    assert not chk[np.arange(n), 1 - side].any()                             # the idle side never in check
    assert 0.04 < chk[np.arange(n), side].mean() < 0.1 and abs(side.mean() - 0.5) < 0.03
    cnt = live.sum(axis=1)
    assert 22 < cnt.mean() < 24 and (cnt <= 12).mean() > 0.04 and (cnt == 32).mean() > 0.05   # openings to endgames
    val = np.array([0, 900, 500, 500, 300, 300, 300, 300] + [100] * 8)
    diff = (live[:, :16] * val).sum(axis=1) - (live[:, 16:] * val).sum(axis=1)
    assert (diff == 0).mean() > 0.5 and np.median(np.abs(diff)) == 0     # trades keep material even
    home = (sq[:, 0] >= 4) & (sq[:, 0] < 8)
    assert 0.5 < home.mean() < 0.8                                           # kings castled or centralised
    b, s, *_ = tp._p200_cm_args(256, rng)
    assert b.dtype == np.uint64 and len(b) == 12 * 256 and len(s) == 256
    w, bl, res, rating, played, delta, n_ = tp._p200_el_args(1 << 16, rng)
    P = tp.P200_EL_PLAYERS
    assert len(rating) == len(played) == len(delta) == P and n_ == len(w) == 1 << 16
    assert (w != bl).all() and w.max() < P and 400 <= rating.min() and rating.max() <= 3200
    seats = np.bincount(np.concatenate([w, bl]), minlength=P)
    q = tp.P200_EL_ZIPF_Q
    top = 2 * n_ / q / np.log((P + q) / q)                                    # the busiest player's expected seats
    assert abs(seats.max() - top) < 0.25 * top and (seats == 0).mean() > 0.8   # skewed: most idle
    assert np.median(np.abs(rating[w] - rating[bl])) < 60                    # matchmaking by rating
    score = res / 2
    assert 0.51 < score.mean() < 0.56 and 0.04 < (res == 1).mean() < 0.12   # white's edge, draws
    assert 0.3 < (played < 30).mean() < 0.5 and played.max() > 1000 and (played[w] < 30).mean() < 0.25
    mg, eg = tp._p200_ps_tables()
    assert mg.shape == eg.shape == (6, 64) and (mg[0, :8] == 0).all() and (eg[0, 56:] == 0).all()
    assert (mg.reshape(6, 8, 8) == mg.reshape(6, 8, 8)[:, :, ::-1]).all()    # left-right symmetric
    assert 80 <= mg[0, 8:56].min() and eg[0, 48:56].min() > eg[0, 8:16].max() and mg[5, 6] > mg[5, 36]
    assert 2 * sum(np.array(tp.P200_PS_PHASE) * [8, 2, 2, 2, 1, 0]) == 24
    pos, *_ = tp._p200_tt_args(4096, rng)
    x, o = pos & 0x1FF, pos >> 9
    k = np.bitwise_count(x) + np.bitwise_count(o)
    assert not (x & o).any() and ((np.bitwise_count(x) - np.bitwise_count(o)) // 2 == 0).all()
    assert k.min() == 3 and k.max() == 7 and not (tp._p200_tt_line(x) | tp._p200_tt_line(o)).any()
    board, libs, stats, ng = tp._p200_go_args(512, rng)
    g = board.reshape(ng, 19, 19)
    assert board.dtype == np.uint8 and board.max() == 2 and len(libs) == 361 * ng and len(stats) == 3 * ng
    occ = (g > 0).mean(axis=(1, 2))
    assert 0.05 < occ.min() and occ.max() < 0.75 and 0.3 < occ.mean() < 0.45
    both = (g[:, :, 1:] > 0) & (g[:, :, :-1] > 0)
    same = (g[:, :, 1:] == g[:, :, :-1])[both].mean()
    pb = (g == 1).sum(axis=(1, 2)) / (g > 0).sum(axis=(1, 2))
    mixed = ((pb ** 2 + (1 - pb) ** 2) * both.sum(axis=(1, 2))).sum() / both.sum()
    assert same > mixed + 0.12                                               # territories: colours clustered
    ft_w, ft_b, w2, b2, w3, b3, pcs, cnt, side, out, nn = tp._p200_nn_args(512, rng)
    assert ft_w.dtype == np.int16 and len(ft_w) == 40960 * 256 and w2.dtype == w3.dtype == np.int8
    assert len(w2) == 32 * 512 and abs(ft_w.std() - tp.P200_NN_FT_SD) < 0.1
    p = pcs.reshape(nn, 32)
    alive = np.arange(32) < cnt[:, None]
    assert ((((p >> 6) & 7) == 5) & alive).sum(axis=1).tolist() == [2] * nn and (p[~alive] == 0).all()
    _, a = tp._p200_nn_ref(ft_w, ft_b, w2, b2, w3, b3, pcs[:32 * 64], cnt[:64], side[:64])
    assert 0.1 < (a == 0).mean() < 0.5 and 0 < (a == 127).mean() < 0.1       # the clip bites, not always


# ---- chess-legal-movecount ----

FENS = [("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", 20, 0),            # the start
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w", 46, 0),   # "Kiwipete" (48 with castling)
        ("8/2p5/3p4/KP5r/1R3p2/8/4P1P1/8 w", 14, 0),                         # pins along the 5th rank
        ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w", 6, 1),      # check, promotions
        ("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w", 0, 1),          # fool's mate
        ("7k/5Q2/6K1/8/8/8/8/8 b", 0, 0),                                    # stalemate
        ("4k3/1P6/8/8/8/8/8/4K3 w", 9, 0),                                   # 4 promotions, 5 king moves
        ("4k3/8/8/8/8/8/1p6/R3K3 b", 13, 0)]                                 # promotion by capture or push


def test_chess_legal_moves():
    n = 24                                                  # 8 positions hand-made, 16 drawn
    rng = np.random.default_rng(3)
    h = tp._p200_cm_args(n, rng)
    for i, (fen, _, _) in enumerate(FENS):
        h[0][12 * i:12 * i + 12], h[1][i] = tp._p200_fen(fen)
    out = run("probe/chess-legal-movecount", h, n)
    moves, check = tp._p200_cm_ref(h[0], h[1])
    assert (out[2] == moves).all() and (out[3] == check).all()
    assert list(moves[:8]) == [f[1] for f in FENS] and list(check[:8]) == [f[2] for f in FENS]
    assert moves[8:].min() < 15 and moves[8:].max() > 40                     # endgames, open middlegames


# ---- elo-period-atomicadd ----

@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_elo_update(policy):
    n, P = 1500, 200                                        # ~15 games a player: contended atomics
    rng = np.random.default_rng(4)
    h = tp._p200_el_args(n, rng, players=P)
    h[3][:4] = [2450.0, 1000.0, 2399.5, 1700.0]             # K = 10 (>= 2400, 30+ games), > 400 points apart
    h[4][:4] = [200, 50, 29, 30]
    h[0][:3], h[1][:3], h[2][:3] = [0, 2, 3], [1, 3, 0], [2, 1, 0]
    out = run("probe/elo-period-atomicadd", h, n, policy=policy)[5]
    d, mag, ks, m = tp._p200_el_ref(*h[:5])
    # each term: K (<= 40) times an expected score within ~4e-7 of float64's (rb - ra rounded by
    # < 2^-12 points, exp10f and the division a few ulps); a player's m terms summed in float32
    # in any order: within (m - 1) 2^-24 of the sum of their magnitudes
    tol = 1e-6 * ks + m * 2.0 ** -24 * mag
    assert (np.abs(out - d) <= tol).all() and tol.max() < 1e-2 and np.abs(d).max() > 30 and (m > 0).all()
    # equal ratings: every expected score 1/2 exactly, the changes +-20, +-10, +-5 or 0: exact
    h[3][:] = 1500.0
    out = run("probe/elo-period-atomicadd", h, n, policy=policy)[5]
    d = tp._p200_el_ref(*h[:5])[0]
    assert (out == d).all() and (np.abs(d) % 5 == 0).all() and len(np.unique(d)) > 10


# ---- pst-tapered-warp-shfl ----

def test_pst_eval():
    n = 40                                                  # 5 blocks of 8 warps
    host, out, syms, _ = launch("probe/pst-tapered-warp-shfl", n)
    ref = tp._p200_ps_ref(host[0], host[1])
    assert (out[2] == ref).all() and ref.min() < -100 and ref.max() > 100
    # the start position is level; lone kings score their endgame squares only; a black queen
    # against a bare king loses white the queen's endgame-weighted value (truncated towards 0)
    h = list(host)
    b = h[0].reshape(n, 64)
    b[:3] = 0
    b[0, :16] = [4, 2, 3, 5, 6, 3, 2, 4] + [1] * 8
    b[0, 48:] = [7] * 8 + [10, 8, 9, 11, 12, 9, 8, 10]
    b[1, [27, 56]] = [6, 12]                                # white's king on d4, black's on a8
    b[2, [6, 62, 27]] = [6, 12, 11]
    h[1][:3] = [0, 1, 0]
    out = run("probe/pst-tapered-warp-shfl", h, n, symbols=syms)[2]
    mg, eg = tp._p200_ps_tables()
    assert out[0] == 0 and out[1] == -(eg[5, 27] - eg[5, 0]) < 0
    num = (mg[5, 6] - mg[5, 6] - mg[4, 27 ^ 56]) * 4 + (eg[5, 6] - eg[5, 6] - eg[4, 27 ^ 56]) * 20
    assert out[2] == -(-num // 24) and out[2] == tp._p200_ps_ref(b[2], [0])[0]


# ---- ttt-alphabeta-stack ----

def _ttt(x, o):
    return sum(1 << q for q in x) | sum(1 << q for q in o) << 9


def test_ttt_solve():
    n = 32                                                  # one warp
    rng = np.random.default_rng(5)
    h = tp._p200_tt_args(n, rng, plies=(4, 7))               # small trees: the emulator is slow
    h[0][:7] = [_ttt([0, 1], [3, 4]),                       # X wins at once on 2
                _ttt([0, 1, 2], [3, 4]),                    # over: X has a line
                _ttt([0, 2, 5, 6, 7], [1, 3, 4, 8]),        # over: a full board, drawn
                _ttt([1, 3, 5, 7], [0, 2, 6, 8]),           # one square left, X's line
                _ttt([1, 5, 7], [0, 4, 6]),                 # O threatens three lines: X loses
                _ttt([0, 8], [2, 4]),                       # X must block on 6, then forks
                _ttt([0, 4], [1, 8])]
    out = run("probe/ttt-alphabeta-stack", h, n)
    v, best = tp._p200_tt_ref(h[0])
    assert (out[1] == v).all() and (out[2] == best).all()
    assert list(v[:5]) == [5, -5, 0, 1, -2] and list(best[:5]) == [2, -1, -1, 4, 2] and best[5] == 6
    assert (v > 0).any() and (v < 0).any() and (v == 0).any() and len(np.unique(v)) >= 5


# ---- go-liberties-smem ----

def _go_board():
    """A hand-made board: a black stone captured in the corner, an L of three black stones
    (7 liberties, one next to two of its stones), a white snake over rows 10 to 16 (~80 steps
    from its lowest point to its far end: as many rounds of label propagation)."""
    g = np.zeros((19, 19), np.uint8)
    g[0, 0], g[0, 1], g[1, 0] = 1, 2, 2
    g[5, 5] = g[5, 6] = g[6, 5] = 1
    g[[10, 12, 14, 16]] = 2
    g[11, 18] = g[13, 0] = g[15, 18] = 2
    g[18, 3:6] = 1
    return g.ravel()


@pytest.mark.parametrize("n, policy", [(2, "lockstep"), (1, "random")])
def test_go_liberties(n, policy):
    h = tp._p200_go_args(n, np.random.default_rng(0))
    h[0][-361:] = tp._p200_go_args(1, np.random.default_rng(18))[0]       # 56% of the points taken
    if n == 2:
        h[0][:361] = _go_board()
    out = run("probe/go-liberties-smem", h, n, policy=policy)
    libs, stats = tp._p200_go_ref(h[0])
    assert (out[1] == libs.ravel()).all() and (out[2] == stats.ravel()).all()
    assert (libs[-1] > 1).sum() > 100 and stats[-1].sum() > 0
    if n == 2:
        L = out[1][:361].reshape(19, 19)
        assert L[0, 0] == 0 and L[0, 1] == L[1, 0] == 2 and L[5, 5] == 7 and L[18, 4] == 5
        assert L[16, 0] == L[10, 0] == 19 * 2 + 18 * 3 and out[2][2] == 1


# ---- nnue-halfkp-gather ----

def test_nnue_eval():
    n = 4
    rng = np.random.default_rng(7)
    h = tp._p200_nn_args(n, rng)
    pcs, cnt, side = h[6].reshape(n, 32), h[7], h[8]
    pcs[0] = 0
    pcs[0, :2] = [6 | 5 << 6, 58 | 5 << 6 | 1 << 9]          # lone kings: g1, c8
    cnt[0] = 2
    pcs[1] = np.where(np.arange(32) < cnt[2], (pcs[2] & ~63 | (pcs[2] & 63) ^ 56) ^ 1 << 9, 0)
    cnt[1], side[1] = cnt[2], 1 - side[2]                     # position 2 mirrored, colours swapped
    out = run("probe/nnue-halfkp-gather", h, n)[9]
    ref, acc = tp._p200_nn_ref(*h[:9])
    assert (out == ref).all() and out[1] == out[2] and len(set(out.tolist())) == 3
    assert (acc[0] == np.clip(np.concatenate([h[1], h[1]]), 0, 127)).all()   # kings alone: the biases
