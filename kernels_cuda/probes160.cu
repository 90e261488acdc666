// probe-unseen158: a computational social science / network science course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - ic_step: a round of the independent cascade model (Kempe, Kleinberg & Tardos 2003) on a
//    power-law social network in CSR, a thread a node of the frontier (the nodes activated
//    last round): each out-edge tried once with its own probability (the trivalency model),
//    the coin a hash of the edge and the run's seed; the winner of an atomicCAS on the target's
//    activation round appends it to the next frontier through one atomicAdd counter;
//  - hk_opinion_step: a step of the Hegselmann-Krause bounded-confidence opinion model on a
//    network, a warp a node (lanes striding over its CSR neighbours): the node's new opinion
//    the mean of its own and its neighbours' opinions within eps of it, the sums and counts
//    reduced by __shfl_down_sync;
//  - assort_sums: Newman's degree assortativity's sums over an undirected edge list (sorted,
//    each edge once), a grid-stride loop gathering both ends' degrees, the products and
//    squares in 64-bit integers, a block's partial sums reduced in shared memory (a tree of
//    __syncthreads) and added by three unsigned long long atomicAdds a block;
//  - schelling_unhappy: the unhappy agents of a Schelling segregation model on a torus (0 empty,
//    1 and 2 the groups), a 32 x 8 block staging its tile and a halo of radius 2 (bytes) in
//    shared memory: an agent is unhappy when under its group's tolerance (__constant__) of its
//    24 neighbours' agents are alike; the flags stored, their count by __ballot_sync/__popc,
//    a shared atomicAdd a warp and a global one a block;
//  - gravity_balance: a Furness iteration's origin balancing factors of a doubly-constrained
//    gravity model of commuting (A_i = 1 / sum_j B_j D_j exp(-beta d_ij)) between all pairs of
//    zones (an array of Zone structs), a thread an origin, the destinations staged a tile of
//    128 at a time in shared memory, n-body style;
//  - brandes_backward: a level of the backward (dependency accumulation) sweep of Brandes'
//    betweenness centrality from one source, a thread a node: the nodes at BFS depth d pull
//    sigma_u / sigma_v (1 + delta_v) from their neighbours at depth d + 1, in double, and add
//    their dependency to their betweenness.

#define IC_MUL1 0x7feb352du   // ic_step: the lowbias32 hash's multipliers
#define IC_MUL2 0x846ca68bu
#define SC_R 2                // schelling_unhappy: the neighbourhood's radius (a 5 x 5 Moore one)
#define SC_BX 32              // blockDim.x
#define SC_BY 8               // blockDim.y
#define GR_TILE 128           // gravity_balance: blockDim.x and the destinations a tile
#define AS_BLOCK 256          // assort_sums: blockDim.x (a power of 2)

// schelling_unhappy: the share of alike neighbours each group needs (set by the host; [0] unused)
__constant__ float c_tol[3];

struct Zone {
    float x, y;       // the centroid (km, projected)
    float O, D;       // trips produced and attracted a day
};

__device__ unsigned int ic_hash(unsigned int x) {
    x ^= x >> 16;
    x *= IC_MUL1;
    x ^= x >> 15;
    x *= IC_MUL2;
    x ^= x >> 16;
    return x;
}

extern "C" {

// a round of an independent cascade: frontier[0 .. nfront) the nodes activated last round; each
// tries each out-edge e (u -> adj[e]) once, succeeding when a uniform of the hash of (e, seed) is
// under prob[e]; act[v] the round v was activated (0: not yet): a node newly activated gets
// round and is appended to next (*nnext its length)
__global__ void ic_step(const int *off, const int *adj, const float *prob, const int *frontier, int nfront,
                        int *act, int *next, int *nnext, int round, unsigned int seed) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nfront) return;
    int u = frontier[t];
    for (int e = off[u]; e < off[u + 1]; e++) {
        int v = adj[e];
        if (act[v] != 0) continue;                 // already active: no need to flip the coin
        unsigned int h = ic_hash(seed ^ ic_hash((unsigned int)e));
        float r = (float)(h >> 8) * (1.0f / 16777216.0f);
        if (r < prob[e]) {
            if (atomicCAS(&act[v], 0, round) == 0) {
                int k = atomicAdd(nnext, 1);
                next[k] = v;
            }
        }
    }
}

// a Hegselmann-Krause step of n agents on a graph (CSR): x2[i] = the mean of x[i] and the x[j]
// of i's neighbours j with |x[j] - x[i]| <= eps; a warp an agent (blockDim.x a multiple of 32)
__global__ void hk_opinion_step(const int *off, const int *adj, const float *x, float *x2, float eps, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (i >= n) return;                            // the whole warp
    float xi = x[i];
    float s = 0.0f;
    int c = 0;
    for (int e = off[i] + lane; e < off[i + 1]; e += 32) {
        float xj = x[adj[e]];
        if (fabsf(xj - xi) <= eps) {
            s += xj;
            c++;
        }
    }
    for (int o = 16; o > 0; o /= 2) {
        s += __shfl_down_sync(0xffffffff, s, o);
        c += __shfl_down_sync(0xffffffff, c, o);
    }
    if (lane == 0) x2[i] = (xi + s) / (float)(1 + c);
}

// the sums of Newman's assortativity over the m edges (src[e], dst[e]) with degrees deg:
// sums[0] += deg_u deg_v, sums[1] += deg_u + deg_v, sums[2] += deg_u^2 + deg_v^2 (blockDim.x AS_BLOCK)
__global__ void assort_sums(const int *src, const int *dst, const int *deg, unsigned long long *sums, int m) {
    __shared__ unsigned long long s_jk[AS_BLOCK];
    __shared__ unsigned long long s_j[AS_BLOCK];
    __shared__ unsigned long long s_jj[AS_BLOCK];
    int tid = threadIdx.x;
    unsigned long long jk = 0, j1 = 0, jj = 0;
    for (int e = blockIdx.x * blockDim.x + tid; e < m; e += gridDim.x * blockDim.x) {
        unsigned long long a = deg[src[e]];
        unsigned long long b = deg[dst[e]];
        jk += a * b;
        j1 += a + b;
        jj += a * a + b * b;
    }
    s_jk[tid] = jk;
    s_j[tid] = j1;
    s_jj[tid] = jj;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) {
            s_jk[tid] += s_jk[tid + s];
            s_j[tid] += s_j[tid + s];
            s_jj[tid] += s_jj[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        atomicAdd(&sums[0], s_jk[0]);
        atomicAdd(&sums[1], s_j[0]);
        atomicAdd(&sums[2], s_jj[0]);
    }
}

// the Schelling agents of an nx x ny torus (row-major bytes: 0 empty, 1 or 2 the group) unhappy
// with their 5 x 5 neighbourhood: unhappy[i] = 1 if alike < c_tol[group] * occupied (the
// neighbours' agents; no neighbour, no unhappiness), *count += the unhappy (blockDim SC_BX x SC_BY)
__global__ void schelling_unhappy(const unsigned char *grid, unsigned char *unhappy, int *count, int nx, int ny) {
    __shared__ unsigned char tile[SC_BY + 2 * SC_R][SC_BX + 2 * SC_R];
    __shared__ int nblock;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    if (tx == 0 && ty == 0) nblock = 0;
    int x0 = blockIdx.x * SC_BX - SC_R;
    int y0 = blockIdx.y * SC_BY - SC_R;
    for (int yy = ty; yy < SC_BY + 2 * SC_R; yy += SC_BY) {
        for (int xx = tx; xx < SC_BX + 2 * SC_R; xx += SC_BX) {
            int gx = (x0 + xx + nx) % nx;          // wrapped: the landscape is a torus
            int gy = (y0 + yy + ny) % ny;
            tile[yy][xx] = grid[gy * nx + gx];
        }
    }
    __syncthreads();
    int x = blockIdx.x * SC_BX + tx;
    int y = blockIdx.y * SC_BY + ty;
    bool sad = false;
    if (x < nx && y < ny) {
        int me = tile[ty + SC_R][tx + SC_R];
        if (me != 0) {
            int alike = 0, occ = 0;
            for (int dy = -SC_R; dy <= SC_R; dy++) {
                for (int dx = -SC_R; dx <= SC_R; dx++) {
                    if (dx == 0 && dy == 0) continue;
                    int t = tile[ty + SC_R + dy][tx + SC_R + dx];
                    if (t != 0) occ++;
                    if (t == me) alike++;
                }
            }
            sad = occ > 0 && (float)alike < c_tol[me] * (float)occ;
        }
        unhappy[y * nx + x] = sad ? 1 : 0;
    }
    unsigned int b = __ballot_sync(0xffffffff, sad);
    if ((tx & 31) == 0) atomicAdd(&nblock, __popc(b));
    __syncthreads();
    if (tx == 0 && ty == 0) atomicAdd(count, nblock);
}

// the origin balancing factors A[i] = 1 / sum_j B[j] z[j].D exp(-beta |z[i] - z[j]|) of n zones
// (all pairs, i == j included; blockDim.x GR_TILE)
__global__ void gravity_balance(const Zone *z, const float *B, float *A, float beta, int n) {
    __shared__ float sx[GR_TILE];
    __shared__ float sy[GR_TILE];
    __shared__ float sw[GR_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float xi = 0.0f, yi = 0.0f;
    if (i < n) {
        xi = z[i].x;
        yi = z[i].y;
    }
    float s = 0.0f;
    for (int j0 = 0; j0 < n; j0 += GR_TILE) {
        int j = j0 + threadIdx.x;
        if (j < n) {
            sx[threadIdx.x] = z[j].x;
            sy[threadIdx.x] = z[j].y;
            sw[threadIdx.x] = B[j] * z[j].D;
        }
        __syncthreads();
        int cnt = min(GR_TILE, n - j0);
        for (int k = 0; k < cnt; k++) {
            float dx = sx[k] - xi;
            float dy = sy[k] - yi;
            s += sw[k] * expf(-beta * sqrtf(dx * dx + dy * dy));
        }
        __syncthreads();
    }
    if (i < n) A[i] = 1.0f / s;
}

// Brandes' backward sweep at depth d from one source (CSR, n nodes; dist the BFS depths, -1
// unreached; sigma the shortest-path counts; delta filled for the depths beyond d): each node u at
// depth d gets delta[u] = sum over neighbours v at depth d + 1 of sigma[u] / sigma[v] (1 + delta[v])
// and bc[u] += delta[u]
__global__ void brandes_backward(const int *off, const int *adj, const int *dist, const double *sigma,
                                 double *delta, double *bc, int d, int n) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n || dist[u] != d) return;
    double su = sigma[u];
    double acc = 0.0;
    for (int e = off[u]; e < off[u + 1]; e++) {
        int v = adj[e];
        if (dist[v] == d + 1) acc += su / sigma[v] * (1.0 + delta[v]);
    }
    delta[u] = acc;
    bc[u] += acc;
}

}
