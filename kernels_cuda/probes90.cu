// probe-unseen88: an operations-research / dynamic-programming course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - knapsack_row: one row of the 0/1 knapsack table, dp_i[c] = max(dp_{i-1}[c],
//    dp_{i-1}[c - w_i] + v_i), a thread a capacity (the host launches it once an item);
//  - lcs_diag_step: one anti-diagonal step of the longest-common-subsequence table for a
//    batch of string pairs, each pair's diagonals d-2 and d-1 in global memory (index i,
//    the row), a thread a cell (the host launches it once a diagonal and rotates buffers);
//  - stage_relax: one stage of shortest paths on a multistage (layered) DAG, a thread a
//    node of stage k pushing dist + arc length along its CSR arcs into stage k+1 by a
//    64-bit atomicMin of (distance << 32 | predecessor), so the argmin comes for free;
//  - simplex_pivot: the Gauss-Jordan update of a dense simplex tableau around the pivot
//    (r, c), the pivot row and column copied out by the host beforehand (so no thread
//    reads a value another overwrites), a 32 x 8 tile a block staging its slices of them
//    in shared memory;
//  - inventory_sS: a Monte Carlo (s, S) inventory simulation, a thread a replication of
//    one policy: DAYS days of Poisson demand (the inverse CDF as a __constant__ table of
//    32-bit thresholds, searched linearly), lost sales, an order up to S when the stock
//    falls to s with nothing outstanding, arriving LEAD days later; integer costs;
//  - hungarian_row_reduce: the Hungarian algorithm's first step, each row of the cost
//    matrix minus its minimum, a block a row (a strided minimum, a shared-memory tree
//    reduction, then the subtraction).

#define DAYS 90               // inventory_sS: days simulated a replication
#define LEAD 3                // inventory_sS: an order's lead time, days
#define POIS_MAX 48           // inventory_sS: the CDF table's length (the largest demand)
#define PV_TX 32              // simplex_pivot: the tile (blockDim = (PV_TX, PV_TY))
#define PV_TY 8
#define HR_BLOCK 256          // hungarian_row_reduce: blockDim.x

// inventory_sS's daily demand: P(D <= k) * 2^32 (rounded down, the last 0xffffffff)
__constant__ unsigned int c_pois_cdf[POIS_MAX];

extern "C" {

// a 32-bit integer hash (lowbias32): the simulation's random numbers
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// dp_cur[c] = max(dp_prev[c], dp_prev[c - w] + v) for c = 0 .. cap (dp_prev[c] if c < w)
__global__ void knapsack_row(const int *dp_prev, int *dp_cur, int w, int v, int cap) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c > cap) return;
    int best = dp_prev[c];
    if (c >= w) {
        int take = dp_prev[c - w] + v;
        if (take > best) best = take;
    }
    dp_cur[c] = best;
}

// anti-diagonal d of the LCS tables of npairs pairs of length-L strings (A, B: row-major
// npairs x L bytes); a pair's diagonal stored as L + 1 ints indexed by the row i (cell (i,
// d - i)), pair p's at p (L + 1); cells off the table left alone
__global__ void lcs_diag_step(const unsigned char *A, const unsigned char *B, const int *diag2,
                              const int *diag1, int *cur, int d, int L, int npairs) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int W = L + 1;
    if (t >= npairs * W) return;
    int p = t / W;
    int i = t % W;
    int j = d - i;
    if (j < 0 || j > L) return;
    int val;
    if (i == 0 || j == 0) {
        val = 0;
    } else if (A[p * L + i - 1] == B[p * L + j - 1]) {
        val = diag2[t - 1] + 1;                      // (i-1, j-1)
    } else {
        val = max(diag1[t - 1], diag1[t]);           // (i-1, j) and (i, j-1)
    }
    cur[t] = val;
}

// one stage of a multistage graph: node u of stage k (dist[u], or -1 if unreached) relaxes
// its arcs row_ptr[u] .. row_ptr[u+1] (head col[e] in stage k+1, length len[e]) into
// best[v] = min over arcs of (dist[u] + len) << 32 | u
__global__ void stage_relax(const int *row_ptr, const int *col, const int *len, const int *dist,
                            unsigned long long *best, int n) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n) return;
    int du = dist[u];
    if (du < 0) return;                               // not reached yet
    int e0 = row_ptr[u];
    int e1 = row_ptr[u + 1];
    for (int e = e0; e < e1; e++) {
        unsigned long long key = ((unsigned long long)(du + len[e]) << 32) | (unsigned int)u;
        atomicMin(&best[col[e]], key);
    }
}

// the pivot on T[r][c] of a rows x cols tableau (row-major): row r divided by piv =
// T[r][c], every other row i minus prow * (pcol[i] / piv); prow and pcol are copies of
// row r and column c taken before the launch
__global__ void simplex_pivot(float *T, const float *prow, const float *pcol, float piv, int r, int rows,
                              int cols) {
    __shared__ float s_row[PV_TX];
    __shared__ float s_col[PV_TY];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int j = blockIdx.x * PV_TX + tx;
    int i = blockIdx.y * PV_TY + ty;
    if (ty == 0 && j < cols) s_row[tx] = prow[j];
    if (tx == 0 && i < rows) s_col[ty] = pcol[i];
    __syncthreads();
    if (i >= rows || j >= cols) return;
    if (i == r) {
        T[i * cols + j] = s_row[tx] / piv;
    } else {
        float f = s_col[ty] / piv;
        T[i * cols + j] = T[i * cols + j] - f * s_row[tx];
    }
}

// n replications of (s, S) policies (s_lvl[t], S_lvl[t]), a thread one, from stock S:
// each day an outstanding order due arrives, demand D (the smallest k with hash <=
// c_pois_cdf[k]) is met or lost, holding h a unit left, an order S - stock (fixed cost
// K plus c a unit) placed when stock <= s and none is outstanding; the total cost and the
// units lost stored
__global__ void inventory_sS(const int *s_lvl, const int *S_lvl, int *cost_out, int *lost_out, int h, int p,
                             int K, int c, unsigned int seed, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int s = s_lvl[t];
    int S = S_lvl[t];
    int stock = S;
    int on_order = 0;
    int due = -1;
    int cost = 0;
    int lost = 0;
    for (int day = 0; day < DAYS; day++) {
        if (on_order > 0 && day == due) {
            stock += on_order;
            on_order = 0;
        }
        unsigned int u = hash32(seed + (unsigned int)t * DAYS + day);
        int D = 0;
        while (D < POIS_MAX - 1 && u > c_pois_cdf[D]) D++;
        if (D <= stock) {
            stock -= D;
        } else {
            lost += D - stock;
            cost += p * (D - stock);
            stock = 0;
        }
        cost += h * stock;
        if (on_order == 0 && stock <= s) {
            on_order = S - stock;
            due = day + LEAD;
            cost += K + c * on_order;
        }
    }
    cost_out[t] = cost;
    lost_out[t] = lost;
}

// the Hungarian algorithm's row reduction of an n x n integer cost matrix, a block
// (HR_BLOCK threads) a row: C[r][j] -= min_j C[r][j], the minimum stored in row_min[r]
__global__ void hungarian_row_reduce(int *C, int *row_min, int n) {
    __shared__ int s_min[HR_BLOCK];
    int r = blockIdx.x;
    int tid = threadIdx.x;
    int m = INT_MAX;
    for (int j = tid; j < n; j += HR_BLOCK) m = min(m, C[r * n + j]);
    s_min[tid] = m;
    __syncthreads();
    for (int st = HR_BLOCK / 2; st > 0; st >>= 1) {
        if (tid < st) s_min[tid] = min(s_min[tid], s_min[tid + st]);
        __syncthreads();
    }
    m = s_min[0];
    for (int j = tid; j < n; j += HR_BLOCK) C[r * n + j] -= m;
    if (tid == 0) row_min[r] = m;
}

}
