"""probe-unseen116's kernels (kernels_cuda/probes118.cu) give numpy's answers in the
emulator at small sizes, with the sanitizer on: the timing probes are only worth their
measurements if they compute what they say."""
import numpy as np
import pytest

from kernels_cuda import timing_probes as tp
from probe_launch import launch, run

IDS = ["probe/othello-mobility-bitboard", "probe/c4-mc-playouts", "probe/zobrist-chess-smem",
       "probe/tt-store-cas-atomicmax", "probe/c4-eval-lines-const", "probe/negamax-level-csr"]

U = np.uint64


def test_family_lists_six():
    ids = [p.id for p in tp.entries() if p.family == "probe-unseen116"]
    assert ids == IDS
    assert all(tp.get(i).source == "probes118.cu" and tp.get(i).note for i in ids)
    assert len({p.id for p in tp.entries()}) == len(tp.entries())          # no id taken twice


def c4_valid(cur, msk):
    """Connect Four positions as the kernels expect them: columns filled from the bottom,
    the sentinel row empty, the side to move's stones half of them (rounded down), no four
    in a row for either side."""
    cur, msk = np.asarray(cur, U), np.asarray(msk, U)
    col = np.array([(msk >> U(7 * c)) & U(0x7f) for c in range(7)])
    assert ((col & (col + U(1))) == 0).all() and (col < 64).all()          # 0, 1, 3, 7 .. 63
    assert ((cur & ~msk) == 0).all()
    assert (np.bitwise_count(cur) == np.bitwise_count(msk) // 2).all()
    assert not tp._p118_c4_won(cur).any() and not tp._p118_c4_won(cur ^ msk).any()


def test_data():
    rng = np.random.default_rng(0)
    # othello: positions of random games, the centre four always taken, ~34 stones, ~9 moves
    me, opp, mv, mob, nn = tp._p118_oth_args(1 << 14, rng)
    assert me.dtype == np.uint64 and nn == 1 << 14 and not mv.any() and not mob.any()
    assert not (me & opp).any() and ((me | opp) & U(0x0000001818000000) == U(0x0000001818000000)).all()
    st = np.bitwise_count(me | opp)
    assert st.min() >= 8 and st.max() <= 60 and 30 < st.mean() < 38
    a, d = tp._p118_oth_ref(me, opp)
    assert 8 < np.bitwise_count(a).mean() < 11 and (a == 0).mean() < 0.01
    assert all(int(a[j]) == tp._p118_oth_slow(me[j], opp[j]) for j in range(40))   # the flood is right
    # connect four playout roots (6..20 plies) and eval leaves (4..30)
    cur, msk, val, pl, seed, nn = tp._p118_c4_play_args(1 << 12, rng)
    c4_valid(cur, msk)
    s = np.bitwise_count(msk)
    assert s.min() == 6 and s.max() == 20 and seed == tp.P118_C4_SEED
    v, tot, L = tp._p118_c4_play_ref(cur[:1024], msk[:1024])
    assert 10 < L.mean() < 12.5 and L.reshape(-1, 32, tp.P118_C4_PLAYOUTS).max(axis=1).mean() > 2 * L.mean()
    assert (tot == L.sum(axis=1)).all() and 0.45 < v.mean() < 0.58
    cur, msk, sc, nn = tp._p118_c4_eval_args(1 << 12, rng)
    c4_valid(cur, msk)
    s = np.bitwise_count(msk)
    assert s.min() == 4 and s.max() == 30
    lines = tp._p118_c4_lines()
    assert len(set(lines.tolist())) == 69 and (np.bitwise_count(lines) == 4).all()
    cells = np.array([[(int(ln) >> (7 * c + r)) & 1 for c in range(7) for r in range(6)] for ln in lines]).sum(0)
    assert cells.min() == 3 and cells.max() == 13 and cells.sum() == 69 * 4
    assert not (lines & U(sum(1 << (7 * c + 6) for c in range(7)))).any()   # no sentinel cell
    assert tp._p118_c4_eval_syms(0, rng)["c_c4_lines"].dtype == np.uint64
    # zobrist: ~29% of the squares taken, one king a side, no pawns on ranks 1 and 8
    n = 1 << 13
    board, state, keys, h, nn = tp._p118_zob_args(n, rng)
    b = board.reshape(n, 64)
    assert board.dtype == np.uint8 and b.max() <= 12 and abs((b != 0).mean() - 0.29) < 0.02
    assert ((b == 6).sum(1) == 1).all() and ((b == 12).sum(1) == 1).all()
    assert not np.isin(b[:, :8], (1, 7)).any() and not np.isin(b[:, 56:], (1, 7)).any()
    assert (np.isin(b, (1, 7)).sum() / (b != 0).sum()) > 0.35                 # pawns the most common
    assert keys.dtype == np.uint64 and len(set(keys.tolist())) == 793 and (keys != 0).all()
    assert state.dtype == np.int32 and (state >> 9 == 0).all() and abs(((state >> 5) != 0).mean() - 0.1) < 0.02
    assert ((state >> 5) & 15).max() == 8
    # tt: a quarter of the slots in use, each key reachable by linear probing from its home
    n = 1 << 14
    tk, td, mask, k, dep, sc, mvs, dr, nn = tp._p118_tt_args(n, rng)
    S = len(tk)
    assert S == 2 * n and mask == S - 1 and 0.2499 < (tk != 0).mean() <= 0.25 and not dr.any()
    probe_ok(tk, mask)
    assert abs(np.isin(k, tk).mean() - 0.1) < 0.01 and 0.5 < len(np.unique(k)) / n < 0.65
    d = td[tk != 0]
    assert (d >> U(48)).min() == 1 and (d >> U(48)).max() == 12 and ((d >> U(32)) & U(0xffff)).max() < 4096
    assert dep.min() == 1 and dep.max() == 20 and np.abs(sc).max() <= 3000 and mvs.max() < 4096
    p = tp._p118_tt_pack([3], [-2], [5])
    assert int(p[0]) == (3 << 48) | (5 << 32) | 0xfffffffe
    # negamax: ~30 children a node (1..60), scores ~N(0, 300^2)
    first, child, sc, bm, nn = tp._p118_neg_args(1 << 14, rng)
    f = np.diff(first)
    assert first[0] == 0 and f.min() == 1 and f.max() <= 60 and abs(f.mean() - 30) < 0.5
    assert len(child) == first[-1] and 280 < child.std() < 320


def probe_ok(tk, mask):
    """Every key in the table sits within TT_PROBE slots of its home, all slots between taken."""
    S = len(tk)
    used = tk != 0
    s = np.flatnonzero(used)
    home = (tk[s] & U(mask)).astype(np.int64)
    d = (s - home) % S
    assert d.max() < tp.P118_TT_PROBE
    for j in range(tp.P118_TT_PROBE):
        assert used[(home[d > j] + j) % S].all()


# ---- othello-mobility-bitboard ----

def test_othello_mobility():
    n = 300                                                 # 2 blocks, the last partial
    host, (me, opp, mv, mob, nn), *_ = launch("probe/othello-mobility-bitboard", n)
    a, d = tp._p118_oth_ref(host[0], host[1])
    assert (mv == a).all() and (mob == d).all() and nn == n
    assert (mob > 0).any() and (mob < 0).any()


def test_othello_edge_cases():
    # the opening (d3, c4, f5, e6), a run of six to capture along the first rank, a stone on
    # h1 beside one on a2 (no wrap-around), a lone side, a full board
    me = np.array([tp.P118_OTH_START[0], 1, 1 << 7, 1 << 20, 0x5555555555555555], U)
    opp = np.array([tp.P118_OTH_START[1], 0x7e, 1 << 8, 0, 0xaaaaaaaaaaaaaaaa], U)
    n = len(me)
    out = run("probe/othello-mobility-bitboard", [me, opp, np.zeros(n, U), np.zeros(n, np.int32), np.int32(n)], n)
    assert out[2].tolist() == [(1 << 19) | (1 << 26) | (1 << 37) | (1 << 44), 1 << 7, 0, 0, 0]
    assert out[3].tolist() == [0, 1, 0, 0, 0]
    assert all(int(out[2][j]) == tp._p118_oth_slow(me[j], opp[j]) for j in range(n))


# ---- c4-mc-playouts ----

def test_c4_playouts():
    n = 48                                                  # a partial block (the emulator is slow here)
    host, (cur, msk, val, plies, seed, nn), *_ = launch("probe/c4-mc-playouts", n)
    v, tot, L = tp._p118_c4_play_ref(host[0], host[1])
    assert (val == v).all() and (plies == tot).all()
    assert (cur == host[0]).all() and (val > 0.5).any() and (val < 0.5).any()
    assert L.min() >= 1 and L.max() > 20


def test_c4_playouts_edge_cases():
    # the empty board and late roots (36 and 28 stones: at most 6 and 14 plies a game left)
    rng = np.random.default_rng(4)
    cur, msk = tp._p118_c4_pool(rng, (28, 36), games=2048)
    c4_valid(cur, msk)
    pick = np.r_[np.flatnonzero(np.bitwise_count(msk) == 36)[:6], np.flatnonzero(np.bitwise_count(msk) == 28)[:4]]
    cur = np.r_[U(0), cur[pick]]
    msk = np.r_[U(0), msk[pick]]
    n = len(cur)
    out = run("probe/c4-mc-playouts", [cur, msk, np.zeros(n, np.float32), np.zeros(n, np.int32),
                                       np.uint32(99), np.int32(n)], n)
    v, tot, L = tp._p118_c4_play_ref(cur, msk, seed=99)
    assert (out[2] == v).all() and (out[3] == tot).all()
    assert L[0].min() >= 7 and (L[1:7] <= 6).all()          # the empty board: 7 plies at least


# ---- zobrist-chess-smem ----

def test_zobrist():
    n = 300
    host, (board, state, keys, h, nn), *_ = launch("probe/zobrist-chess-smem", n)
    assert (h == tp._p118_zob_ref(*host[:3])).all() and len(set(h.tolist())) == n


def test_zobrist_incremental():
    # a move changes the hash by the two piece-square keys (and the side key); castling
    # and en passant states pick their keys
    rng = np.random.default_rng(1)
    board, state, keys, h, nn = tp._p118_zob_args(4, rng)
    b = board.reshape(4, 64)
    b[1] = b[0]
    state[1] = state[0] ^ 1
    frm = int(np.flatnonzero(b[0] == 6)[0])
    to = next(s for s in range(64) if b[0][s] == 0)
    b[1][frm], b[1][to] = 0, 6
    b[2] = b[0]
    state[2] = (state[0] & 1) | (5 << 1) | (3 << 5)
    b[3] = 0
    state[3] = 0
    out = run("probe/zobrist-chess-smem", [b.ravel().copy(), state, keys, h, np.int32(4)], 4)[3]
    assert out[0] ^ out[1] == keys[5 * 64 + frm] ^ keys[5 * 64 + to] ^ keys[768]
    assert out[3] == keys[769] and (out == tp._p118_zob_ref(b, state, keys)).all()


# ---- tt-store-cas-atomicmax ----

def tt_check(host, out):
    tk0, td0, mask, keys, depth, score, move, _, n = host
    tk, td, dropped = out[0], out[1], out[7]
    uk, best, _ = tp._p118_tt_ref(tk0, td0, keys, depth, score, move)
    used = tk != 0
    assert len(np.unique(tk[used])) == used.sum()                     # no key stored twice
    assert (tk[tk0 != 0] == tk0[tk0 != 0]).all()                      # old entries stay put
    pos = np.searchsorted(uk, tk[used])
    assert (uk[pos] == tk[used]).all() and (td[used] == best[pos]).all() and not td[~used].any()
    probe_ok(tk, mask)
    present = np.isin(keys, tk[used])
    assert dropped[0] == (~present).sum()
    return dropped[0]


@pytest.mark.parametrize("policy", ["lockstep", "random"])
def test_tt_store(policy):
    n = 1000
    host, out, *_ = launch("probe/tt-store-cas-atomicmax", n, policy=policy)
    tt_check(host, out)
    assert (out[0] != 0).sum() > (host[0] != 0).sum() + n // 3


def test_tt_store_full_table():
    # a 1024-slot table ~82% full (870 keys tried, those without a slot in their window
    # left out): long probes and dropped stores; repeated keys
    rng = np.random.default_rng(2)
    S, n = 1024, 400
    old = tp._p118_u64(870, rng)
    od = tp._p118_tt_pack(rng.integers(1, 13, 870), rng.integers(-3000, 3001, 870), rng.integers(0, 4096, 870))
    tk, td = tp._p118_tt_fill(S, old, od)
    new = tp._p118_u64(100, rng)
    keys = np.where(rng.random(n) < 0.5, old[rng.integers(0, 870, n)], new[rng.integers(0, 100, n)])
    i32 = np.int32
    host = [tk, td, i32(S - 1), keys, rng.integers(1, 21, n).astype(i32), rng.integers(-3000, 3001, n).astype(i32),
            rng.integers(0, 4096, n).astype(i32), np.zeros(1, i32), i32(n)]
    out = run("probe/tt-store-cas-atomicmax", [a.copy() if isinstance(a, np.ndarray) else a for a in host], n,
              policy="random")
    assert tt_check(host, out) > 20 and (out[0] != 0).sum() > (tk != 0).sum() + 40 and (tk != 0).sum() > 800


# ---- c4-eval-lines-const ----

def test_c4_eval():
    n = 300
    host, (cur, msk, sc, nn), syms, _ = launch("probe/c4-eval-lines-const", n)
    assert (sc == tp._p118_c4_eval_ref(host[0], host[1])).all() and len(syms["c_c4_lines"]) == 69
    # symmetric: the same position from the other side scores the negative
    out = run("probe/c4-eval-lines-const", [host[1] ^ host[0], host[1], np.zeros(n, np.int32), np.int32(n)], n,
              symbols=syms)
    assert (out[2] == -sc).all() and (sc > 0).any() and (sc < 0).any()


def test_c4_eval_edge_cases():
    # the empty board (0), one stone in the centre's bottom cell (7 lines of 1, the centre's
    # 3), three in a row on the bottom (open at both ends)
    cur = np.array([0, 1 << 21, (1 << 7) | (1 << 14) | (1 << 21)], U)
    n = len(cur)
    out = run("probe/c4-eval-lines-const", [cur, cur.copy(), np.zeros(n, np.int32), np.int32(n)], n,
              symbols=tp._p118_c4_eval_syms(n, None))[2]
    assert out[0] == 0 and out[1] == 10 and out[2] == tp._p118_c4_eval_ref(cur, cur)[2] > 2 * 32


# ---- negamax-level-csr ----

def test_negamax_level():
    n = 300
    host, (first, child, sc, bm, nn), *_ = launch("probe/negamax-level-csr", n)
    s, b = tp._p118_neg_ref(host[0], host[1])
    assert (sc == s).all() and (bm == b).all() and (bm > 0).mean() > 0.9


def test_negamax_edge_cases():
    # one child; ties (the first wins); the extreme scores
    first = np.array([0, 1, 4, 8, 10], np.int32)
    child = np.array([5, 3, -7, -7, 2, 2, 2, 2, 1000000, -1000000], np.int32)
    out = run("probe/negamax-level-csr", [first, child, np.zeros(4, np.int32), np.zeros(4, np.int32), np.int32(4)], 4)
    assert out[2].tolist() == [-5, 7, -2, 1000000] and out[3].tolist() == [0, 1, 0, 1]
