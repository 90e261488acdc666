// probe-unseen116: a game-AI / board-game search course's CUDA assignments, as a student
// who knows CUDA basics hands them in:
//  - othello_mobility: Othello move generation on bitboards, a thread a position: the
//    legal moves of the side to move by the shift-and-mask flood ("dumb7fill") in 8
//    directions (shift amounts and wrap masks from __constant__ tables), the same for the
//    opponent, the move bitboard stored with the mobility difference (__popcll);
//  - c4_playouts: flat Monte Carlo for Connect Four, a thread a root position (Tromp's
//    bitboard layout: 7 bits a column, the top one a sentinel): C4_PLAYOUTS random games
//    to the end, columns drawn by a per-thread xorshift32 (rejecting full columns), the
//    win test by four shift-and-and pairs; the root's value (wins + draws / 2) over the
//    playouts and the plies played stored;
//  - zobrist_hash: Zobrist hashing of chess positions (a board of 64 piece-code bytes and
//    a state word: side to move, castling rights, en passant file), the 793 64-bit keys
//    staged in shared memory by the block, a thread a position XORing the keys of its
//    pieces, side, castling rights and en passant file;
//  - tt_store: storing a batch of search results in a lock-free transposition table
//    (64-bit keys, linear probing over TT_PROBE slots): a slot claimed by atomicCAS on the
//    key (or found holding the same key), the entry's packed (depth, move, score) word
//    merged by a 64-bit atomicMax (depth-preferred replacement); a store that finds no
//    slot is counted in `dropped`;
//  - c4_eval: the static evaluation of Connect Four leaf positions, a thread a position:
//    the 69 winning lines (masks in __constant__, set by the host) scored by the stones
//    of one side alone on them (__popcll, a __constant__ weight table), plus a centre
//    column bonus;
//  - negamax_level: one level of a negamax backup over a game tree stored level by level
//    (each node's children contiguous, CSR offsets), a thread a node: the best of its
//    children's negated scores and which child gave it.

#define OTH_DIRS 8            // othello_mobility: the flood's directions
#define C4_PLAYOUTS 16        // c4_playouts: random games a root position
#define C4_CELLS 42           // Connect Four: 7 columns x 6 rows
#define C4_LINES 69           // c4_eval: the winning lines of four
#define C4_CENTER 0x7e00000ull  // c4_eval: column 3's six cells
#define ZOB_PIECE 768         // zobrist_hash: 12 pieces x 64 squares, then
#define ZOB_SIDE 768          //   the side to move's key,
#define ZOB_CASTLE 769        //   16 castling-rights keys,
#define ZOB_EP 785            //   8 en passant files' keys
#define ZOB_KEYS 793
#define TT_PROBE 16           // tt_store: slots probed before a store is dropped
#define TT_EMPTY 0ull         // tt_store: an empty slot's key
#define NEG_INF -1000000000   // negamax_level: below any score

// othello_mobility: the bit index is row * 8 + column; a shift by s moves a stone one
// square in a direction, the mask clears what wrapped around the board's edge
__constant__ int c_oth_shift[OTH_DIRS] = {1, -1, 8, -8, 9, -9, 7, -7};
__constant__ unsigned long long c_oth_mask[OTH_DIRS] = {
    0xfefefefefefefefeull, 0x7f7f7f7f7f7f7f7full, 0xffffffffffffffffull, 0xffffffffffffffffull,
    0xfefefefefefefefeull, 0x7f7f7f7f7f7f7f7full, 0x7f7f7f7f7f7f7f7full, 0xfefefefefefefefeull};

// c4_eval: the winning lines (set by the host) and a line's worth by its stones
__constant__ unsigned long long c_c4_lines[C4_LINES];
__constant__ int c_c4_weight[5] = {0, 1, 4, 32, 100000};

extern "C" {

// a 32-bit integer hash (lowbias32), seeding the playouts' generators
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

__device__ unsigned int xorshift32(unsigned int *state) {
    unsigned int x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

__device__ unsigned long long shift_dir(unsigned long long b, int s) {
    return s > 0 ? b << s : b >> (-s);
}

// the legal moves of the player with stones P against O: empty squares at the end of a
// run of O's stones that starts next to one of P's
__device__ unsigned long long othello_moves(unsigned long long P, unsigned long long O) {
    unsigned long long empty = ~(P | O);
    unsigned long long moves = 0;
    for (int d = 0; d < OTH_DIRS; d++) {
        int s = c_oth_shift[d];
        unsigned long long m = c_oth_mask[d];
        unsigned long long mo = m & O;
        unsigned long long x = shift_dir(P, s) & mo;
        for (int k = 0; k < 5; k++) x |= shift_dir(x, s) & mo;
        moves |= shift_dir(x, s) & m & empty;
    }
    return moves;
}

// n positions (the side to move's stones me[i], the opponent's opp[i]): the side to
// move's legal moves and its mobility minus the opponent's
__global__ void othello_mobility(const unsigned long long *me, const unsigned long long *opp,
                                 unsigned long long *moves, int *mobility, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long p = me[i];
    unsigned long long o = opp[i];
    unsigned long long mp = othello_moves(p, o);
    unsigned long long mo = othello_moves(o, p);
    moves[i] = mp;
    mobility[i] = __popcll(mp) - __popcll(mo);
}

// four in a row among the stones b (column bits 7 apart, the sentinel row always empty)
__device__ bool c4_won(unsigned long long b) {
    unsigned long long m = b & (b >> 7);      // horizontal
    if (m & (m >> 14)) return true;
    m = b & (b >> 6);                         // diagonal, down to the right
    if (m & (m >> 12)) return true;
    m = b & (b >> 8);                         // diagonal, up to the right
    if (m & (m >> 16)) return true;
    m = b & (b >> 1);                         // vertical
    if (m & (m >> 2)) return true;
    return false;
}

// C4_PLAYOUTS random games from each of n root positions (cur[i]: the stones of the side
// to move, mask[i]: all stones; no four in a row yet, the board not full): a random
// non-full column a move until a four in a row or a full board; value[i] the side to
// move's score (1 a win, 1/2 a draw) averaged, plies[i] the moves played in all games
__global__ void c4_playouts(const unsigned long long *cur, const unsigned long long *mask, float *value,
                            int *plies, unsigned int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int rng = hash32(seed + (unsigned int)i) | 1u;
    unsigned long long root_p = cur[i];
    unsigned long long root_all = mask[i];
    int root_moves = __popcll(root_all);
    int wins = 0;
    int draws = 0;
    int total = 0;
    for (int g = 0; g < C4_PLAYOUTS; g++) {
        unsigned long long p = root_p;        // the stones of the player to move
        unsigned long long all = root_all;
        int moves = root_moves;
        int side = 0;                         // 0: the root's side to move
        int result = 0;                       // +1 the root's side won, -1 lost, 0 a draw
        while (moves < C4_CELLS) {
            int c;
            do {
                c = xorshift32(&rng) % 7;
            } while (all & (1ull << (7 * c + 5)));
            unsigned long long next = all | (all + (1ull << (7 * c)));
            unsigned long long mine = p | (next ^ all);
            all = next;
            moves++;
            total++;
            if (c4_won(mine)) {
                result = side == 0 ? 1 : -1;
                break;
            }
            p = all ^ mine;
            side ^= 1;
        }
        if (result > 0) wins++;
        else if (result == 0) draws++;
    }
    value[i] = (wins + 0.5f * draws) / C4_PLAYOUTS;
    plies[i] = total;
}

// the Zobrist hashes of n chess positions: board[64 i + sq] the piece on square sq (0
// empty, 1..6 white pawn .. king, 7..12 black), state[i] bit 0 black to move, bits 1..4
// the castling rights, bits 5..8 the en passant file + 1 (0: none); keys: 768 piece-square
// keys ((piece - 1) * 64 + sq), the side's, 16 castling and 8 en passant keys
__global__ void zobrist_hash(const unsigned char *board, const int *state, const unsigned long long *keys,
                             unsigned long long *hash, int n) {
    __shared__ unsigned long long s_keys[ZOB_KEYS];
    for (int k = threadIdx.x; k < ZOB_KEYS; k += blockDim.x) s_keys[k] = keys[k];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long h = 0;
    for (int sq = 0; sq < 64; sq++) {
        int piece = board[i * 64 + sq];
        if (piece != 0) h ^= s_keys[(piece - 1) * 64 + sq];
    }
    int st = state[i];
    if (st & 1) h ^= s_keys[ZOB_SIDE];
    h ^= s_keys[ZOB_CASTLE + ((st >> 1) & 15)];
    int ep = (st >> 5) & 15;
    if (ep != 0) h ^= s_keys[ZOB_EP + ep - 1];
    hash[i] = h;
}

// n search results (key[i] != 0, depth, score, move) stored in a transposition table of
// tt_mask + 1 slots (tt_key: 0 empty; tt_data: depth << 48 | move << 32 | score bits),
// linear probing from the slot key & tt_mask; the deepest result of a key kept
__global__ void tt_store(unsigned long long *tt_key, unsigned long long *tt_data, int tt_mask,
                         const unsigned long long *key, const int *depth, const int *score, const int *move,
                         int *dropped, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long k = key[i];
    unsigned long long data = ((unsigned long long)depth[i] << 48) | ((unsigned long long)(move[i] & 0xffff) << 32) |
                              (unsigned int)score[i];
    unsigned int s = (unsigned int)k & tt_mask;
    for (int p = 0; p < TT_PROBE; p++) {
        unsigned long long old = atomicCAS(&tt_key[s], TT_EMPTY, k);
        if (old == TT_EMPTY || old == k) {
            atomicMax(&tt_data[s], data);
            return;
        }
        s = (s + 1) & tt_mask;
    }
    atomicAdd(dropped, 1);
}

// the static evaluation of n Connect Four positions (cur[i]: the side to move's stones,
// mask[i]: all stones), for the side to move: each winning line holding stones of one
// side only scores c_c4_weight[its stones] for that side, the centre column 3 a stone
__global__ void c4_eval(const unsigned long long *cur, const unsigned long long *mask, int *score, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long me = cur[i];
    unsigned long long opp = mask[i] ^ me;
    int s = 0;
    for (int l = 0; l < C4_LINES; l++) {
        unsigned long long line = c_c4_lines[l];
        int a = __popcll(line & me);
        int b = __popcll(line & opp);
        if (b == 0) s += c_c4_weight[a];
        else if (a == 0) s -= c_c4_weight[b];
    }
    s += 3 * (__popcll(me & C4_CENTER) - __popcll(opp & C4_CENTER));
    score[i] = s;
}

// one negamax level: node p's children are child_score[first_child[p] .. first_child[p +
// 1]) (scores for the side to move there); score[p] the largest negated child score,
// best_move[p] the first child (counted from first_child[p]) that gives it
__global__ void negamax_level(const int *first_child, const int *child_score, int *score, int *best_move, int n) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    int begin = first_child[p];
    int end = first_child[p + 1];
    int best = NEG_INF;
    int bm = -1;
    for (int c = begin; c < end; c++) {
        int v = -child_score[c];
        if (v > best) {
            best = v;
            bm = c - begin;
        }
    }
    score[p] = best;
    best_move[p] = bm;
}

}
