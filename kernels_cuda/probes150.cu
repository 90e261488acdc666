// probe-unseen148: a SAT / constraint-solving course's CUDA assignments, as a student who
// knows CUDA basics hands them in:
//  - maxsat_count: a random 3-CNF formula over 64 variables (its literals in __constant__
//    memory, DIMACS style: +-(v + 1)) evaluated over n candidate assignments (a 64-bit
//    word each, bit v the value of variable v), a thread an assignment, the number of
//    satisfied clauses stored (the MaxSAT score);
//  - walksat_break: WalkSAT's flip scores: for every variable, from its occurrence list
//    (CSR: the clauses it occurs in) and each clause's number of true literals under the
//    current assignment, the break count (clauses only its literal satisfies) and the make
//    count (unsatisfied clauses its flip would satisfy), a thread a variable;
//  - unit_count: a formula over 256 variables under n partial assignments (an assigned mask
//    and a value mask, 8 words each), a block a partial assignment staged in shared memory,
//    the threads striding over the clauses; the unit clauses, the conflicting (all literals
//    false) clauses and the first unit clause's index, reduced by a shared-memory tree;
//  - nqueens_count: n-queens solutions counted from fixed prefixes (the first rows placed,
//    given as the column and diagonal masks), a thread a prefix backtracking over the rest
//    with bitmasks and per-thread stacks, each count stored and added into a 64-bit total;
//  - sudoku_candidates: the candidate bitmask of every cell of n 9x9 sudoku puzzles, a block
//    of 81 threads a puzzle: the puzzle in shared memory, 27 threads building the rows',
//    columns' and boxes' used digits, each empty cell's candidates stored, the naked singles
//    counted by a shared atomicAdd;
//  - reach_step: one step of bit-parallel reachability in a transition graph (64 searches at
//    once, a 64-bit word a state), a thread an edge: a source on the frontier pushes the bits
//    its target has not reached yet into the next frontier by a 64-bit atomicOr.

#define MS_CLAUSES 272        // maxsat_count: clauses (64 variables, ratio ~4.25)
#define UC_WORDS 8            // unit_count: 32-bit words of a partial assignment (256 variables)
#define UC_BLOCK 256          // unit_count: blockDim.x (the reduction's size)
#define NQ_MAX 16             // nqueens_count: the largest board

// maxsat_count's formula (set by the host): clause c's literals at 3c, 3c + 1, 3c + 2
__constant__ int c_ms_lits[3 * MS_CLAUSES];

extern "C" {

// the number of the MS_CLAUSES clauses that assignment a satisfies, for n assignments
__global__ void maxsat_count(const unsigned long long *assign, int *nsat, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long a = assign[i];
    int cnt = 0;
    for (int c = 0; c < MS_CLAUSES; c++) {
        bool sat = false;
        for (int k = 0; k < 3; k++) {
            int lit = c_ms_lits[3 * c + k];
            int v = abs(lit) - 1;
            int bit = (int)((a >> v) & 1ull);
            if ((lit > 0 && bit == 1) || (lit < 0 && bit == 0)) sat = true;
        }
        if (sat) cnt++;
    }
    nsat[i] = cnt;
}

// WalkSAT scores of flipping each of n variables: lits the clauses' literals (3 a clause),
// num_true each clause's true literals under assign (a byte a variable), occ_off/occ the
// clauses variable v occurs in (occ[occ_off[v] .. occ_off[v + 1]])
__global__ void walksat_break(const int *lits, const int *num_true, const unsigned char *assign, const int *occ_off,
                              const int *occ, int *brk, int *mk, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    int val = assign[v];
    int b = 0;
    int m = 0;
    for (int j = occ_off[v]; j < occ_off[v + 1]; j++) {
        int c = occ[j];
        int nt = num_true[c];
        int lit = 0;
        for (int k = 0; k < 3; k++) {
            int l = lits[3 * c + k];
            if (abs(l) - 1 == v) lit = l;
        }
        bool lit_true = (lit > 0) == (val != 0);
        if (lit_true && nt == 1) b++;        // v alone satisfies c: flipping v breaks it
        if (!lit_true && nt == 0) m++;       // c unsatisfied: flipping v makes it
    }
    brk[v] = b;
    mk[v] = m;
}

// the unit clauses (one literal unassigned, the others false), the conflicts (all false)
// and the first unit clause (m if none) of the m clauses lits under each of the n partial
// assignments (assigned[p * UC_WORDS ..] and value[p * UC_WORDS ..], bit v of word v / 32)
__global__ void unit_count(const int *lits, const unsigned int *assigned, const unsigned int *value, int *units,
                           int *conflicts, int *first_unit, int m, int n) {
    __shared__ unsigned int sA[UC_WORDS];
    __shared__ unsigned int sV[UC_WORDS];
    __shared__ int s_units[UC_BLOCK];
    __shared__ int s_conf[UC_BLOCK];
    __shared__ int s_first[UC_BLOCK];
    int p = blockIdx.x;
    int t = threadIdx.x;
    if (t < UC_WORDS) {
        sA[t] = assigned[p * UC_WORDS + t];
        sV[t] = value[p * UC_WORDS + t];
    }
    __syncthreads();
    int nu = 0;
    int nc = 0;
    int first = m;
    for (int c = t; c < m; c += blockDim.x) {
        bool sat = false;
        int free_lits = 0;
        for (int k = 0; k < 3; k++) {
            int l = lits[3 * c + k];
            int v = abs(l) - 1;
            unsigned int a = (sA[v >> 5] >> (v & 31)) & 1u;
            unsigned int x = (sV[v >> 5] >> (v & 31)) & 1u;
            if (!a) free_lits++;
            else if ((l > 0) == (x == 1u)) sat = true;
        }
        if (!sat && free_lits == 1) {
            nu++;
            if (c < first) first = c;
        }
        if (!sat && free_lits == 0) nc++;
    }
    s_units[t] = nu;
    s_conf[t] = nc;
    s_first[t] = first;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            s_units[t] += s_units[t + s];
            s_conf[t] += s_conf[t + s];
            s_first[t] = min(s_first[t], s_first[t + s]);
        }
        __syncthreads();
    }
    if (t == 0) {
        units[p] = s_units[0];
        conflicts[p] = s_conf[0];
        first_unit[p] = s_first[0];
    }
}

// the N-queens solutions that complete each of n prefixes (cols, ld, rd: the columns and
// the two diagonals the prefix's queens attack in the first row left, rows of them to
// fill), by iterative backtracking with bitmasks; each count stored and added to *total
__global__ void nqueens_count(const unsigned int *cols, const unsigned int *ld, const unsigned int *rd,
                              unsigned int *count, unsigned long long *total, int N, int rows, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int full = (1u << N) - 1u;
    unsigned int sc[NQ_MAX];
    unsigned int sl[NQ_MAX];
    unsigned int sr[NQ_MAX];
    unsigned int avail[NQ_MAX];
    sc[0] = cols[i];
    sl[0] = ld[i];
    sr[0] = rd[i];
    avail[0] = ~(sc[0] | sl[0] | sr[0]) & full;
    unsigned int cnt = 0;
    int row = 0;
    while (row >= 0) {
        if (avail[row] == 0) {
            row--;
            continue;
        }
        unsigned int bit = avail[row] & (~avail[row] + 1u);     // the lowest free column
        avail[row] ^= bit;
        if (row == rows - 1) {
            cnt++;
            continue;
        }
        sc[row + 1] = sc[row] | bit;
        sl[row + 1] = ((sl[row] | bit) << 1) & full;
        sr[row + 1] = (sr[row] | bit) >> 1;
        avail[row + 1] = ~(sc[row + 1] | sl[row + 1] | sr[row + 1]) & full;
        row++;
    }
    count[i] = cnt;
    atomicAdd(total, (unsigned long long)cnt);
}

// the candidates of every cell of n sudoku puzzles (81 bytes a puzzle, 0 empty, else the
// digit): bit d - 1 set when digit d is in none of the cell's row, column and box; 0 for
// a filled cell; singles[p] the empty cells of puzzle p with exactly one candidate
// (blockDim.x == 81, a block a puzzle)
__global__ void sudoku_candidates(const unsigned char *grid, unsigned short *cand, int *singles, int n) {
    __shared__ unsigned char s[81];
    __shared__ unsigned int used[27];       // rows 0-8, columns 9-17, boxes 18-26
    __shared__ int s_single;
    int p = blockIdx.x;
    int c = threadIdx.x;
    s[c] = grid[p * 81 + c];
    if (c == 0) s_single = 0;
    __syncthreads();
    if (c < 27) {
        unsigned int mask = 0;
        for (int k = 0; k < 9; k++) {
            int cell;
            if (c < 9) cell = c * 9 + k;
            else if (c < 18) cell = k * 9 + (c - 9);
            else {
                int b = c - 18;
                cell = ((b / 3) * 3 + k / 3) * 9 + (b % 3) * 3 + k % 3;
            }
            int d = s[cell];
            if (d != 0) mask |= 1u << (d - 1);
        }
        used[c] = mask;
    }
    __syncthreads();
    int r = c / 9;
    int col = c % 9;
    int box = (r / 3) * 3 + col / 3;
    unsigned int m = 0;
    if (s[c] == 0) {
        m = ~(used[r] | used[9 + col] | used[18 + box]) & 0x1ffu;
        if (__popc(m) == 1) atomicAdd(&s_single, 1);
    }
    cand[p * 81 + c] = (unsigned short)m;
    __syncthreads();
    if (c == 0) singles[p] = s_single;
}

// one step of 64 breadth-first searches at once over m edges src[e] -> dst[e]: a source
// with frontier bits pushes those its target has not visited into next by atomicOr
__global__ void reach_step(const int *src, const int *dst, const unsigned long long *frontier,
                           const unsigned long long *visited, unsigned long long *next, int m) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    unsigned long long f = frontier[src[e]];
    if (f == 0ull) return;
    int v = dst[e];
    unsigned long long nw = f & ~visited[v];
    if (nw != 0ull) atomicOr(&next[v], nw);
}

}
