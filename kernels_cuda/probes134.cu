// probe-unseen132: a network-science / graph-analytics course's CUDA assignments, as a
// student who knows CUDA basics hands them in. The graphs are CSR (row_ptr, col) with
// heavy-tailed degrees:
//   bfs_bottom_up      one bottom-up step of a direction-optimizing level-synchronous BFS, a
//                      thread a vertex: an unvisited vertex scans its (in-)neighbours for
//                      one in the frontier bitmap and stops at the first; found vertices set
//                      their level and parent, their bit of the next frontier by atomicOr,
//                      and count themselves by atomicAdd
//   pagerank_push      the scatter half of a push-style PageRank iteration, a thread a
//                      vertex: d rank[v] / deg(v) atomicAdd-ed into acc[] of every
//                      out-neighbour, the rank of dangling vertices into one global sum
//   pagerank_teleport  the other half: rank = (1 - d) / n + d dangling / n + acc, acc
//                      cleared for the next iteration, the L1 change summed by a shared-
//                      memory tree reduction and one atomicAdd a block
//   lpa_mode           one synchronous round of label-propagation community detection, a
//                      thread a vertex: its neighbours' labels copied into a local array,
//                      the most frequent one found by an O(deg^2) count (ties: the smallest
//                      label), the vertices that change counted by atomicAdd
//   ppr_walks          personalized-PageRank random walks, a thread a walk: WALK_LEN steps,
//                      each a restart to the walk's source with probability alpha (or at a
//                      dead end) else a hop to a hashed random out-neighbour; the end vertex
//                      stored and counted in a visit histogram by atomicAdd
//   fw_phase3          the third (independent-tiles) phase of one round of blocked
//                      Floyd-Warshall all-pairs shortest paths on a dense int distance
//                      matrix: a 32 x 32 block a tile, the pivot row's and column's tiles
//                      staged in shared memory, 32 min-plus relaxations a thread

#define WALK_LEN 64        // ppr_walks: steps a walk
#define LPA_MAX_DEG 32     // lpa_mode: the most neighbours a vertex has (its local array)
#define FW_TILE 32         // fw_phase3: the tile's side (blockDim 32 x 32)
#define PR_BLOCK 256       // pagerank_teleport: threads a block (the reduction's size)

extern "C" {

// a 32-bit integer hash (lowbias32): the walks' random numbers
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// bottom-up BFS step at level `depth`: every vertex v with level[v] < 0 looks through its
// neighbours col[row_ptr[v] .. row_ptr[v+1]) for the first u whose bit is set in the
// frontier bitmap; then level[v] = depth + 1, parent[v] = u, v's bit set in next_frontier
// and *found incremented
__global__ void bfs_bottom_up(const int *row_ptr, const int *col, const unsigned int *frontier,
                              unsigned int *next_frontier, int *level, int *parent, int *found, int depth, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    if (level[v] >= 0) return;              // already visited
    int start = row_ptr[v];
    int end = row_ptr[v + 1];
    for (int e = start; e < end; e++) {
        int u = col[e];
        if (frontier[u >> 5] & (1u << (u & 31))) {
            level[v] = depth + 1;
            parent[v] = u;
            atomicOr(&next_frontier[v >> 5], 1u << (v & 31));
            atomicAdd(found, 1);
            break;
        }
    }
}

// push-style PageRank scatter: each vertex v sends damping * rank[v] / deg(v) to every
// out-neighbour's acc; a vertex without out-edges adds its rank to *dangling
__global__ void pagerank_push(const int *row_ptr, const int *col, const float *rank, float *acc, float *dangling,
                              float damping, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    int start = row_ptr[v];
    int end = row_ptr[v + 1];
    int deg = end - start;
    float r = rank[v];
    if (deg == 0) {
        atomicAdd(dangling, r);
        return;
    }
    float c = damping * r / deg;
    for (int e = start; e < end; e++) {
        atomicAdd(&acc[col[e]], c);
    }
}

// PageRank update: rank[v] = (1 - d) / n + d * (*dangling) / n + acc[v], acc[v] = 0, and
// sum |new - old| over the block into *l1 (blockDim.x == PR_BLOCK)
__global__ void pagerank_teleport(float *rank, float *acc, const float *dangling, float *l1, float damping, int n) {
    __shared__ float s_diff[PR_BLOCK];
    int tid = threadIdx.x;
    int v = blockIdx.x * blockDim.x + tid;
    float diff = 0.0f;
    if (v < n) {
        float base = (1.0f - damping) / n + damping * (*dangling) / n;
        float r = base + acc[v];
        diff = fabsf(r - rank[v]);
        rank[v] = r;
        acc[v] = 0.0f;
    }
    s_diff[tid] = diff;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) s_diff[tid] += s_diff[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(l1, s_diff[0]);
}

// one synchronous label-propagation round: new_label[v] = the label most frequent among
// v's neighbours (the smallest on a tie; v's own label when it has none); *changed counts
// the vertices whose label changes (degrees at most LPA_MAX_DEG)
__global__ void lpa_mode(const int *row_ptr, const int *col, const int *label, int *new_label, int *changed,
                         int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    int start = row_ptr[v];
    int deg = row_ptr[v + 1] - start;
    int nl[LPA_MAX_DEG];
    for (int i = 0; i < deg; i++) nl[i] = label[col[start + i]];
    int mine = label[v];
    int best = mine;
    int best_count = 0;
    for (int i = 0; i < deg; i++) {
        int l = nl[i];
        int count = 0;
        for (int j = 0; j < deg; j++) {
            if (nl[j] == l) count++;
        }
        if (count > best_count || (count == best_count && l < best)) {
            best = l;
            best_count = count;
        }
    }
    new_label[v] = best;
    if (best != mine) atomicAdd(changed, 1);
}

// personalized random walks: walk w starts at source[w / walks_per_source] and takes
// WALK_LEN steps; at step k, h = hash(seed + w * WALK_LEN + k): the walk goes back to its
// source when (h >> 8) / 2^24 < alpha or its vertex has no out-edges, else to its
// out-neighbour number hash(h) % deg; its end vertex stored and counted in visits
__global__ void ppr_walks(const int *row_ptr, const int *col, const int *source, int *end_vertex, int *visits,
                          int walks_per_source, float alpha, unsigned int seed, int n_walks) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= n_walks) return;
    int src = source[w / walks_per_source];
    int v = src;
    for (int k = 0; k < WALK_LEN; k++) {
        unsigned int h = hash32(seed + (unsigned int)w * WALK_LEN + k);
        int start = row_ptr[v];
        int deg = row_ptr[v + 1] - start;
        float u = (h >> 8) * (1.0f / 16777216.0f);
        if (deg == 0 || u < alpha) {
            v = src;
        } else {
            v = col[start + hash32(h) % deg];
        }
    }
    end_vertex[w] = v;
    atomicAdd(&visits[v], 1);
}

// blocked Floyd-Warshall, phase 3 of round kb on the n x n matrix dist (n a multiple of
// FW_TILE): every tile (by, bx) off the pivot row and column relaxes dist[i][j] =
// min(dist[i][j], dist[i][k] + dist[k][j]) over the pivot tile's FW_TILE k's, the tiles
// (by, kb) and (kb, bx) staged in shared memory
__global__ void fw_phase3(int *dist, int kb, int n) {
    __shared__ int s_row[FW_TILE][FW_TILE];    // dist[kb tile rows][bx tile columns]
    __shared__ int s_col[FW_TILE][FW_TILE];    // dist[by tile rows][kb tile columns]
    int bx = blockIdx.x;
    int by = blockIdx.y;
    if (bx == kb || by == kb) return;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int i = by * FW_TILE + ty;
    int j = bx * FW_TILE + tx;
    s_row[ty][tx] = dist[(kb * FW_TILE + ty) * n + j];
    s_col[ty][tx] = dist[i * n + kb * FW_TILE + tx];
    __syncthreads();
    int d = dist[i * n + j];
    for (int k = 0; k < FW_TILE; k++) {
        int t = s_col[ty][k] + s_row[k][tx];
        if (t < d) d = t;
    }
    dist[i * n + j] = d;
}

}
