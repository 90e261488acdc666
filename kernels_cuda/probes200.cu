// probe-unseen198: a game AI and board-game engines course's CUDA assignments, as a student
// who knows CUDA basics hands them in:
//  - chess_legal_moves: legal move generation for many chess positions (12 bitboards a
//    position, no castling rights or en passant squares), a thread a position: each piece of
//    the side to move taken by an __ffsll loop, its targets by shifts and masks (pawns,
//    knights, king) or by walking the rays square by square (bishops, rooks, queens), each
//    target made on the occupancy and kept if the mover's king is not attacked afterwards
//    (promotions counting 4); the legal move count and whether the side to move is in check;
//  - elo_update: a rating period of an online game server, a thread a game of the log: both
//    players' ratings gathered, the white player's expected score 1 / (1 + 10^(d / 400)) (the
//    rating difference d capped at 400 points, FIDE's rule), each player's K-factor from their
//    games played and rating (40 / 20 / 10), the two rating changes atomicAdd-ed onto the
//    players' float deltas;
//  - pst_eval: static evaluation of chess positions (64-byte mailbox boards) with tapered
//    (midgame / endgame) piece-square tables in __constant__ memory, a warp a position: each
//    lane two squares' table values (black's squares mirrored), the midgame and endgame sums
//    and the game phase summed by __shfl_down_sync, lane 0 blending them by the phase and
//    storing the score from the side to move's view;
//  - ttt_solve: exact solution of tic-tac-toe positions by negamax with alpha-beta pruning and
//    an explicit per-thread stack (local arrays a ply: the two stone masks, the next move to
//    try, the window and the best score so far), a thread a position: the value (quicker wins
//    scoring higher) and the first best move;
//  - go_liberties: the groups and liberties of 19 x 19 Go positions, a block of 361 threads a
//    board and a thread a point: the stones labelled by their group by repeated min-label
//    propagation between same-coloured neighbours in shared memory (__syncthreads_or until no
//    label changes), each empty point adding 1 to the liberty count of each distinct adjacent
//    group by a shared atomicAdd, each stone's group liberties stored, and the stones in
//    atari (1 liberty) of each colour and the stones without a liberty counted with
//    __syncthreads_count;
//  - nnue_eval: an NNUE evaluation of chess positions (piece lists), a block of 256 threads a
//    position: the HalfKP feature transformer (64 king squares x 10 pieces x 64 squares, 256
//    int16 weights a feature) accumulated for both perspectives by a thread an accumulator
//    entry (a gathered weight row a piece), clipped to 0 .. 127 into shared memory (side to
//    move first), a 512 -> 32 int8 layer by 4 outputs a warp with shuffle sums, clipped
//    again, and a 32 -> 1 output layer in warp 0.

#define FILE_A 0x0101010101010101ULL
#define FILE_B 0x0202020202020202ULL
#define FILE_G 0x4040404040404040ULL
#define FILE_H 0x8080808080808080ULL
#define PST_PHASE_MAX 24      // pst_eval: the phase of the full set of pieces
#define TTT_FULL 0x1FF        // ttt_solve: all 9 squares
#define TTT_INF 100
#define GO_N 19               // go_liberties: the board's side
#define GO_PTS (GO_N * GO_N)  // blockDim.x == GO_PTS
#define NN_KINDS 10           // nnue_eval: piece kinds of HalfKP (5 types x own / their)
#define NN_FEATS (64 * NN_KINDS * 64)
#define NN_H 256              // accumulator width (blockDim.x == NN_H)
#define NN_L2 32              // hidden layer width
#define NN_MAXP 32            // a position's piece-list slots

typedef unsigned long long u64;

// pst_eval's tables (set by the host): white's piece type t (pawn .. king) on square s (a1 = 0,
// h8 = 63) at t * 64 + s, material included; the phase weight of each type
__constant__ int c_pst_mg[6 * 64];
__constant__ int c_pst_eg[6 * 64];
__constant__ int c_phase[6];

// ---- chess_legal_moves' helpers ----

__device__ u64 knight_attacks(u64 b) {
    u64 l1 = (b >> 1) & ~FILE_H;
    u64 l2 = (b >> 2) & ~(FILE_G | FILE_H);
    u64 r1 = (b << 1) & ~FILE_A;
    u64 r2 = (b << 2) & ~(FILE_A | FILE_B);
    u64 h1 = l1 | r1;
    u64 h2 = l2 | r2;
    return (h1 << 16) | (h1 >> 16) | (h2 << 8) | (h2 >> 8);
}

__device__ u64 king_attacks(u64 b) {
    u64 a = b | ((b << 1) & ~FILE_A) | ((b >> 1) & ~FILE_H);
    a |= (a << 8) | (a >> 8);
    return a & ~b;
}

// the squares a slider on sq reaches in direction (df, dr), the first blocker included
__device__ u64 ray_attacks(int sq, u64 occ, int df, int dr) {
    u64 a = 0;
    int f = (sq & 7) + df;
    int r = (sq >> 3) + dr;
    while (f >= 0 && f < 8 && r >= 0 && r < 8) {
        u64 bit = 1ULL << (r * 8 + f);
        a |= bit;
        if (occ & bit) break;
        f += df;
        r += dr;
    }
    return a;
}

__device__ u64 rook_attacks(int sq, u64 occ) {
    return ray_attacks(sq, occ, 1, 0) | ray_attacks(sq, occ, -1, 0) | ray_attacks(sq, occ, 0, 1) |
           ray_attacks(sq, occ, 0, -1);
}

__device__ u64 bishop_attacks(int sq, u64 occ) {
    return ray_attacks(sq, occ, 1, 1) | ray_attacks(sq, occ, -1, 1) | ray_attacks(sq, occ, 1, -1) |
           ray_attacks(sq, occ, -1, -1);
}

// the squares the pawns P of a side attack
__device__ u64 pawn_attacks(u64 P, int white) {
    if (white) return ((P << 7) & ~FILE_H) | ((P << 9) & ~FILE_A);
    return ((P >> 9) & ~FILE_H) | ((P >> 7) & ~FILE_A);
}

// is square sq attacked, with occupancy occ, by the pieces P .. K of side by_white
__device__ int attacked(int sq, u64 occ, u64 P, u64 N, u64 B, u64 R, u64 Q, u64 K, int by_white) {
    u64 bit = 1ULL << sq;
    if (pawn_attacks(P, by_white) & bit) return 1;
    if (knight_attacks(N) & bit) return 1;
    if (king_attacks(K) & bit) return 1;
    if (rook_attacks(sq, occ) & (R | Q)) return 1;
    if (bishop_attacks(sq, occ) & (B | Q)) return 1;
    return 0;
}

extern "C" {

// n positions: bb[12 p .. 12 p + 11] white's pawns, knights, bishops, rooks, queens, king, then
// black's; side[p] 0 white to move, 1 black; nmoves[p] the legal moves, check[p] 1 if in check
__global__ void chess_legal_moves(const u64 *bb, const int *side, int *nmoves, int *check, int n) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    u64 b[12];
    for (int k = 0; k < 12; k++) b[k] = bb[p * 12 + k];
    int us = side[p];
    int them = 1 - us;
    u64 own = 0, opp = 0;
    for (int k = 0; k < 6; k++) {
        own |= b[us * 6 + k];
        opp |= b[them * 6 + k];
    }
    u64 occ = own | opp;
    int ksq = __ffsll(b[us * 6 + 5]) - 1;
    int o = them * 6;
    int count = 0;
    for (int pt = 0; pt < 6; pt++) {
        for (u64 pcs = b[us * 6 + pt]; pcs; pcs &= pcs - 1) {
            int from = __ffsll(pcs) - 1;
            u64 fb = 1ULL << from;
            u64 tg;
            if (pt == 0) {
                u64 one = us == 0 ? (fb << 8) & ~occ : (fb >> 8) & ~occ;
                tg = one | (pawn_attacks(fb, us == 0) & opp);
                if (one && ((us == 0 && from < 16) || (us == 1 && from >= 48))) {
                    u64 two = us == 0 ? (one << 8) & ~occ : (one >> 8) & ~occ;
                    tg |= two;
                }
            } else if (pt == 1) {
                tg = knight_attacks(fb) & ~own;
            } else if (pt == 2) {
                tg = bishop_attacks(from, occ) & ~own;
            } else if (pt == 3) {
                tg = rook_attacks(from, occ) & ~own;
            } else if (pt == 4) {
                tg = (rook_attacks(from, occ) | bishop_attacks(from, occ)) & ~own;
            } else {
                tg = king_attacks(fb) & ~own;
            }
            for (; tg; tg &= tg - 1) {
                int to = __ffsll(tg) - 1;
                u64 tb = 1ULL << to;
                u64 keep = ~tb;     // a captured piece no longer attacks
                u64 occ2 = (occ & ~fb) | tb;
                int k = pt == 5 ? to : ksq;
                if (!attacked(k, occ2, b[o] & keep, b[o + 1] & keep, b[o + 2] & keep, b[o + 3] & keep,
                              b[o + 4] & keep, b[o + 5], them == 0)) {
                    count += (pt == 0 && (to >= 56 || to < 8)) ? 4 : 1;
                }
            }
        }
    }
    nmoves[p] = count;
    check[p] = attacked(ksq, occ, b[o], b[o + 1], b[o + 2], b[o + 3], b[o + 4], b[o + 5], them == 0);
}

// n games: white[i] against black[i], result[i] 2 a white win, 1 a draw, 0 a loss; the players'
// ratings and games played before the period; delta[player] += the rating change of each game
__global__ void elo_update(const int *white, const int *black, const unsigned char *result, const float *rating,
                           const int *played, float *delta, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a = white[i];
    int b = black[i];
    float ra = rating[a];
    float rb = rating[b];
    float d = fminf(fmaxf(rb - ra, -400.0f), 400.0f);
    float ea = 1.0f / (1.0f + exp10f(d / 400.0f));
    float s = 0.5f * result[i];
    float ka = played[a] < 30 ? 40.0f : (ra < 2400.0f ? 20.0f : 10.0f);
    float kb = played[b] < 30 ? 40.0f : (rb < 2400.0f ? 20.0f : 10.0f);
    atomicAdd(&delta[a], ka * (s - ea));
    atomicAdd(&delta[b], kb * (ea - s));
}

// n positions: board[64 p + s] the piece on square s (0 empty, 1 .. 6 white pawn .. king,
// 7 .. 12 black's), side[p] 0 white to move, 1 black; score[p] in centipawns for the side to
// move (blockDim.x a multiple of 32, a warp a position)
__global__ void pst_eval(const unsigned char *board, const int *side, int *score, int n) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (w >= n) return;
    int mg = 0, eg = 0, ph = 0;
    for (int k = 0; k < 2; k++) {
        int sq = lane + 32 * k;
        int pc = board[w * 64 + sq];
        if (pc) {
            int t = (pc - 1) % 6;
            if (pc <= 6) {
                mg += c_pst_mg[t * 64 + sq];
                eg += c_pst_eg[t * 64 + sq];
            } else {
                mg -= c_pst_mg[t * 64 + (sq ^ 56)];
                eg -= c_pst_eg[t * 64 + (sq ^ 56)];
            }
            ph += c_phase[t];
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        mg += __shfl_down_sync(0xffffffff, mg, o);
        eg += __shfl_down_sync(0xffffffff, eg, o);
        ph += __shfl_down_sync(0xffffffff, ph, o);
    }
    if (lane == 0) {
        int q = min(ph, PST_PHASE_MAX);
        int s = (mg * q + eg * (PST_PHASE_MAX - q)) / PST_PHASE_MAX;
        score[w] = side[w] ? -s : s;
    }
}

__device__ int ttt_line(int m) {
    return (m & 0x7) == 0x7 || (m & 0x38) == 0x38 || (m & 0x1C0) == 0x1C0 || (m & 0x49) == 0x49 ||
           (m & 0x92) == 0x92 || (m & 0x124) == 0x124 || (m & 0x111) == 0x111 || (m & 0x54) == 0x54;
}

// n positions pos[i] = x | o << 9 (square r * 3 + c), X to move when both have as many stones;
// value[i] for the side to move: 0 a draw, 1 + the empty squares left at the end for a win
// (negative for a loss); best[i] the first square reaching it (-1 if the game is over)
__global__ void ttt_solve(const int *pos, int *value, int *best, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = pos[i] & TTT_FULL;
    int o = pos[i] >> 9;
    int me = __popc(x) == __popc(o) ? x : o;
    int op = me == x ? o : x;
    if (ttt_line(op)) {
        value[i] = -(1 + 9 - __popc(x | o));
        best[i] = -1;
        return;
    }
    if ((x | o) == TTT_FULL) {
        value[i] = 0;
        best[i] = -1;
        return;
    }
    int sme[10], sop[10], smv[10], sa[10], sb[10], sbest[10];
    int d = 0;
    sme[0] = me;
    sop[0] = op;
    smv[0] = 0;
    sa[0] = -TTT_INF;
    sb[0] = TTT_INF;
    sbest[0] = -TTT_INF;
    int bestmove = -1;
    while (1) {
        int m = smv[d];
        int occ = sme[d] | sop[d];
        while (m < 9 && ((occ >> m) & 1)) m++;
        int score;
        if (m < 9 && sbest[d] < sb[d]) {
            smv[d] = m + 1;
            int cme = sop[d];
            int cop = sme[d] | (1 << m);
            if (ttt_line(cop)) {
                score = 1 + 9 - __popc(cme | cop);       // the mover won
            } else if ((cme | cop) == TTT_FULL) {
                score = 0;
            } else {
                int alpha = max(sa[d], sbest[d]);
                d++;
                sme[d] = cme;
                sop[d] = cop;
                smv[d] = 0;
                sa[d] = -sb[d - 1];
                sb[d] = -alpha;
                sbest[d] = -TTT_INF;
                continue;
            }
        } else {
            if (d == 0) break;
            score = -sbest[d];
            d--;
        }
        if (score > sbest[d]) {
            sbest[d] = score;
            if (d == 0) bestmove = smv[0] - 1;
        }
    }
    value[i] = sbest[0];
    best[i] = bestmove;
}

// n boards: board[361 g + 19 y + x] 0 empty, 1 black, 2 white; libs[361 g + t] the liberties
// of the group of the stone on point t (0 for an empty point); stats[3 g ..] black's and
// white's stones in atari and the stones without a liberty
__global__ void go_liberties(const unsigned char *board, int *libs, int *stats, int n) {
    __shared__ unsigned char b[GO_PTS];
    __shared__ short lab[GO_PTS];
    __shared__ int nlib[GO_PTS];
    int g = blockIdx.x;
    int t = threadIdx.x;
    int x = t % GO_N;
    int y = t / GO_N;
    int c = board[g * GO_PTS + t];
    b[t] = c;
    lab[t] = t;
    nlib[t] = 0;
    __syncthreads();
    int more = 1;
    while (more) {
        int m = lab[t];
        if (c) {
            if (x > 0 && b[t - 1] == c) m = min(m, (int)lab[t - 1]);
            if (x < GO_N - 1 && b[t + 1] == c) m = min(m, (int)lab[t + 1]);
            if (y > 0 && b[t - GO_N] == c) m = min(m, (int)lab[t - GO_N]);
            if (y < GO_N - 1 && b[t + GO_N] == c) m = min(m, (int)lab[t + GO_N]);
        }
        __syncthreads();
        int changed = m < lab[t];
        lab[t] = m;
        more = __syncthreads_or(changed);
    }
    if (c == 0) {
        int nb[4];
        int k = 0;
        if (x > 0) nb[k++] = t - 1;
        if (x < GO_N - 1) nb[k++] = t + 1;
        if (y > 0) nb[k++] = t - GO_N;
        if (y < GO_N - 1) nb[k++] = t + GO_N;
        int seen[4];
        int ns = 0;
        for (int j = 0; j < k; j++) {
            if (b[nb[j]] == 0) continue;
            int L = lab[nb[j]];
            int dup = 0;
            for (int q = 0; q < ns; q++)
                if (seen[q] == L) dup = 1;
            if (!dup) {
                seen[ns++] = L;
                atomicAdd(&nlib[L], 1);
            }
        }
    }
    __syncthreads();
    int L = c ? nlib[lab[t]] : 0;
    libs[g * GO_PTS + t] = L;
    int ab = __syncthreads_count(c == 1 && L == 1);
    int aw = __syncthreads_count(c == 2 && L == 1);
    int dead = __syncthreads_count(c != 0 && L == 0);
    if (t == 0) {
        stats[3 * g] = ab;
        stats[3 * g + 1] = aw;
        stats[3 * g + 2] = dead;
    }
}

// n positions: pieces[32 p + k] for k < count[p]: square | type << 6 | colour << 9 (type 0 .. 5
// pawn .. king, colour 0 white, 1 black), side[p] the side to move; ft_w[f * NN_H + j] the
// transformer's weights of feature f, ft_b its biases; w2[o * 2 NN_H + i], b2: the hidden layer;
// w3, b3 the output; out[p] the evaluation for the side to move
__global__ void nnue_eval(const short *ft_w, const short *ft_b, const signed char *w2, const int *b2,
                          const signed char *w3, int b3, const int *pieces, const int *count, const int *side,
                          int *out, int n) {
    __shared__ int acc[2 * NN_H];
    __shared__ int hid[NN_L2];
    int p = blockIdx.x;
    int j = threadIdx.x;
    int cnt = count[p];
    int ksq[2] = {0, 0};
    for (int k = 0; k < cnt; k++) {
        int pc = pieces[p * NN_MAXP + k];
        if (((pc >> 6) & 7) == 5) ksq[pc >> 9] = pc & 63;
    }
    int stm = side[p];
    for (int v = 0; v < 2; v++) {           // perspective v: white, black
        int kv = v ? ksq[1] ^ 56 : ksq[0];
        int a = ft_b[j];
        for (int k = 0; k < cnt; k++) {
            int pc = pieces[p * NN_MAXP + k];
            int type = (pc >> 6) & 7;
            if (type == 5) continue;
            int sq = v ? (pc & 63) ^ 56 : pc & 63;
            int kind = type * 2 + ((pc >> 9) != v);
            int f = kv * (NN_KINDS * 64) + kind * 64 + sq;
            a += ft_w[f * NN_H + j];
        }
        acc[(v == stm ? 0 : NN_H) + j] = min(max(a, 0), 127);
    }
    __syncthreads();
    int warp = j >> 5;
    int lane = j & 31;
    for (int q = 0; q < NN_L2 / (NN_H / 32); q++) {
        int o = warp * (NN_L2 / (NN_H / 32)) + q;
        int s = 0;
        for (int i = lane; i < 2 * NN_H; i += 32) s += w2[o * 2 * NN_H + i] * acc[i];
        for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffff, s, d);
        if (lane == 0) hid[o] = min(max((s + b2[o]) >> 6, 0), 127);
    }
    __syncthreads();
    if (warp == 0) {
        int s = w3[lane] * hid[lane];
        for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffff, s, d);
        if (lane == 0) out[p] = (s + b3) / 16;
    }
}

}
