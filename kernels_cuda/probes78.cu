// probe-unseen76: a graph-analytics course's CUDA assignments on CSR graphs, as a student
// who knows CUDA basics hands them in. Every graph is undirected, stored as CSR with both
// directions of each edge (row_ptr, col; each row's columns sorted, no self-loops, no
// duplicates), its degrees power-law-ish (a Chung-Lu graph of exponent 2.3: a median degree
// of 9, a mean of 16, hubs of ~600 neighbours; the Jaccard graph half as dense):
//   - tc_oriented_edges: triangle counting, the edges oriented from the lower to the higher
//     (degree, id) so each triangle is found once, a thread an oriented edge (u, v)
//     merging the sorted out-lists of u and v; the block's counts summed by a tree in
//     shared memory and added to the total by one 64-bit atomicAdd a block;
//   - cc_label_push: one pass of connected components by label propagation, a thread a
//     vertex pushing its label to every neighbour whose label is larger by atomicMin into
//     the next labels (double-buffered), a vertex that pushed raising a "changed" flag
//     by atomicOr;
//   - bfs_block_queue: one level-synchronous BFS step, a thread a frontier vertex, the
//     neighbours claimed by atomicExch on a visited flag, the block's new vertices
//     collected in a shared-memory queue (shared atomicAdd; the overflow straight to the
//     global queue) and copied out after one global atomicAdd reserves the block's space
//     (the privatized frontier of Kirk and Hwu's textbook);
//   - degree_hist: the degree histogram (bins 0 .. DH_BINS - 2, the tail in the last bin)
//     from the row offsets, a thread a vertex, privatized in shared memory by shared
//     atomicAdd, the block's non-zero bins added to the global histogram;
//   - jaccard_edges: the Jaccard similarity |N(u) & N(v)| / |N(u) | N(v)| of every edge's
//     endpoints, a thread a CSR entry, each neighbour of the shorter list binary-searched
//     in the longer one;
//   - kcore_peel: one peeling round of the k-core decomposition, a thread a vertex: a live
//     vertex of degree below k is removed (double-buffered state) and atomicSub's the
//     degree of each live neighbour; the removals counted by atomicAdd.

#define TC_BLOCK 256          // tc_oriented_edges: blockDim.x == TC_BLOCK
#define BQ_CAP 2048           // bfs_block_queue: the shared queue's capacity
#define DH_BINS 256           // degree_hist: bins

extern "C" {

// triangles of the graph whose edges are oriented low -> high (degree, then id): row_ptr,
// col the oriented CSR (m entries, sorted rows), edge_src each entry's row; a thread an
// oriented edge (u, v) counts the common out-neighbours of u and v by a merge walk
__global__ void tc_oriented_edges(const int *row_ptr, const int *col, const int *edge_src,
                                  unsigned long long *total, int m) {
    __shared__ unsigned int s_cnt[TC_BLOCK];
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int cnt = 0;
    if (e < m) {
        int u = edge_src[e];
        int v = col[e];
        int i = row_ptr[u];
        int iend = row_ptr[u + 1];
        int j = row_ptr[v];
        int jend = row_ptr[v + 1];
        while (i < iend && j < jend) {
            int a = col[i];
            int b = col[j];
            if (a < b) {
                i++;
            } else if (a > b) {
                j++;
            } else {
                cnt++;
                i++;
                j++;
            }
        }
    }
    s_cnt[threadIdx.x] = cnt;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) s_cnt[threadIdx.x] += s_cnt[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(total, (unsigned long long)s_cnt[0]);
}

// one label-propagation pass: vertex u pushes its label to each neighbour whose label is
// larger (label_next starts as a copy of label); *changed set (atomicOr, once a vertex
// that pushed) when any label drops
__global__ void cc_label_push(const int *row_ptr, const int *col, const int *label, int *label_next,
                              int *changed, int n) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n) return;
    int lu = label[u];
    bool pushed = false;
    for (int e = row_ptr[u]; e < row_ptr[u + 1]; e++) {
        int v = col[e];
        if (lu < label[v]) {
            atomicMin(&label_next[v], lu);
            pushed = true;
        }
    }
    if (pushed) atomicOr(changed, 1);
}

// one BFS level: the n_front vertices of frontier (at level cur) visit their neighbours;
// an unvisited one (atomicExch on visited) gets level cur + 1 and joins the next frontier
// through the block's shared queue (or, when that is full, the global queue directly)
__global__ void bfs_block_queue(const int *row_ptr, const int *col, const int *frontier, int n_front,
                                int *visited, int *level, int *next_front, int *next_size, int cur) {
    __shared__ int s_queue[BQ_CAP];
    __shared__ int s_size;
    __shared__ int s_base;
    if (threadIdx.x == 0) s_size = 0;
    __syncthreads();

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_front) {
        int u = frontier[i];
        for (int e = row_ptr[u]; e < row_ptr[u + 1]; e++) {
            int v = col[e];
            if (atomicExch(&visited[v], 1) == 0) {
                level[v] = cur + 1;
                int k = atomicAdd(&s_size, 1);
                if (k < BQ_CAP) {
                    s_queue[k] = v;
                } else {
                    int g = atomicAdd(next_size, 1);
                    next_front[g] = v;
                }
            }
        }
    }
    __syncthreads();

    if (threadIdx.x == 0) {
        if (s_size > BQ_CAP) s_size = BQ_CAP;
        s_base = atomicAdd(next_size, s_size);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < s_size; k += blockDim.x) next_front[s_base + k] = s_queue[k];
}

// the degree histogram of n vertices from their row offsets: degrees 0 .. DH_BINS - 2 in
// their own bins, larger ones in the last
__global__ void degree_hist(const int *row_ptr, unsigned int *hist, int n) {
    __shared__ unsigned int s_hist[DH_BINS];
    for (int b = threadIdx.x; b < DH_BINS; b += blockDim.x) s_hist[b] = 0;
    __syncthreads();
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) {
        int d = row_ptr[v + 1] - row_ptr[v];
        atomicAdd(&s_hist[min(d, DH_BINS - 1)], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < DH_BINS; b += blockDim.x) {
        if (s_hist[b] > 0) atomicAdd(&hist[b], s_hist[b]);
    }
}

// the first index in the sorted a[lo .. hi) whose value is >= key (hi when none)
__device__ int lower_bound(const int *a, int lo, int hi, int key) {
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (a[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// the Jaccard similarity of the endpoints of each of the nnz CSR entries (edge_src the
// entries' rows): |N(u) & N(v)| / |N(u) | N(v)|, the shorter list's neighbours each
// binary-searched in the longer list
__global__ void jaccard_edges(const int *row_ptr, const int *col, const int *edge_src, float *w, int nnz) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nnz) return;
    int u = edge_src[e];
    int v = col[e];
    int a0 = row_ptr[u];
    int da = row_ptr[u + 1] - a0;
    int b0 = row_ptr[v];
    int db = row_ptr[v + 1] - b0;
    if (da > db) {
        int t = a0; a0 = b0; b0 = t;
        t = da; da = db; db = t;
    }
    int inter = 0;
    for (int k = 0; k < da; k++) {
        int x = col[a0 + k];
        int p = lower_bound(col, b0, b0 + db, x);
        if (p < b0 + db && col[p] == x) inter++;
    }
    w[e] = (float)inter / (float)(da + db - inter);
}

// one k-core peeling round: a live vertex of degree below k is removed, and each of its
// live neighbours loses one degree (alive_next and deg_next start as copies of alive and
// deg); the removals counted
__global__ void kcore_peel(const int *row_ptr, const int *col, const unsigned char *alive, const int *deg,
                           unsigned char *alive_next, int *deg_next, int *n_removed, int k, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    if (alive[v] && deg[v] < k) {
        alive_next[v] = 0;
        atomicAdd(n_removed, 1);
        for (int e = row_ptr[v]; e < row_ptr[v + 1]; e++) {
            int w = col[e];
            if (alive[w]) atomicSub(&deg_next[w], 1);
        }
    }
}

}
