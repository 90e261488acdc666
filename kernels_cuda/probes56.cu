// probe-unseen54: what a CUDA course's students hand in for their week 6-10 assignments,
// plainly written, each kernel's time set by a different limit: a 32 x 32 shared-tile
// transpose of a 6000 x 9000 uint8 image (partial tiles at both edges), the tile padded by
// one byte as the float version is, which still leaves 2-way bank conflicts on three rows
// in four of the column reads, a warp's global access only 32 bytes and the rows not
// 32-byte aligned (near the DRAM limit); Conway's Life on a bit-packed 16384^2 board, a
// thread a 32-cell word, its three rows widened to 34 bits and each cell's neighbours
// counted by three __popc of a 3-bit window (the POPC pipe and integer issue); SpMV in
// SELL-32-sigma format (slices of 32 rows sorted by length within windows of 256, padded
// with zeros; a few long rows pad their slice), streaming values and columns with x
// gathered near the diagonal and at random; N-queens (N = 13) counted from every valid
// placement of the first five rows, a thread each (31100 threads, 122 blocks), by an
// iterative bitmask backtracking whose stack is in local memory (divergent trip counts and
// branches; a warp's lanes at different depths store to different lines); one level of a
// queue-based BFS, a thread a frontier vertex walking its CSR neighbours, atomicCAS on
// dist[v] and atomicAdd on the queue's tail for each vertex found (random atomics, one hot
// counter); and a bottom-up merge-sort pass, a thread merging two sorted runs of 32 ints,
// its lanes 256 bytes apart (every warp access 32 lines, L1 reuse across iterations).
// Predicted before their first GPU run.

#define TU_TILE 32
#define TU_ROWS 8
#define NQ_MAXD 32

extern "C" {

// out (cols x rows) = the transpose of in (rows x cols), uint8: a block of 32 x 8 threads
// copies a 32 x 32 tile of in into shared memory, four rows a thread, then writes the
// tile's columns as rows of out; the tile has 33 bytes a row, as in the float version
__global__ void transpose_u8_rect(const unsigned char *in, unsigned char *out, int rows, int cols) {
    __shared__ unsigned char tile[TU_TILE][TU_TILE + 1];
    int x = blockIdx.x * TU_TILE + threadIdx.x;
    int y0 = blockIdx.y * TU_TILE;
    for (int j = threadIdx.y; j < TU_TILE; j += TU_ROWS) {
        int y = y0 + j;
        if (x < cols && y < rows) tile[j][threadIdx.x] = in[(size_t)y * cols + x];
    }
    __syncthreads();
    int ox = blockIdx.y * TU_TILE + threadIdx.x;   // a column of out, a row of in
    int oy0 = blockIdx.x * TU_TILE;
    for (int j = threadIdx.y; j < TU_TILE; j += TU_ROWS) {
        int oy = oy0 + j;
        if (ox < rows && oy < cols) out[(size_t)oy * rows + ox] = tile[threadIdx.x][j];
    }
}

// word w of a row of wpr words widened to 34 bits: bit 0 the cell left of the word (bit
// 31 of word w - 1), bits 1 .. 32 the word's cells, bit 33 the cell right of it (bit 0 of
// word w + 1); cells outside the board are dead
__device__ unsigned long long life_wide(const unsigned *row, int w, int wpr) {
    unsigned c = row[w];
    unsigned l = w > 0 ? row[w - 1] : 0u;
    unsigned r = w + 1 < wpr ? row[w + 1] : 0u;
    return (unsigned long long)(l >> 31) | ((unsigned long long)c << 1) | ((unsigned long long)(r & 1u) << 33);
}

// one step of Conway's Life on a rows x (32 wpr) board packed 32 cells a word (cell x of
// a row is bit x % 32 of word x / 32), dead outside: a thread a word, each of its 32 cells'
// neighbours counted with three __popc of the 3-bit windows above, beside and below it
__global__ void life_bits_popc(const unsigned *in, unsigned *out, int rows, int wpr) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (w >= wpr || y >= rows) return;
    const unsigned *row = in + (size_t)y * wpr;
    unsigned long long up = y > 0 ? life_wide(row - wpr, w, wpr) : 0ull;
    unsigned long long mid = life_wide(row, w, wpr);
    unsigned long long dn = y + 1 < rows ? life_wide(row + wpr, w, wpr) : 0ull;
    unsigned res = 0u;
    for (int b = 0; b < 32; ++b) {
        int cnt = __popc((unsigned)(up >> b) & 7u) + __popc((unsigned)(mid >> b) & 5u) +
                  __popc((unsigned)(dn >> b) & 7u);
        unsigned alive = (unsigned)(mid >> (b + 1)) & 1u;
        if (cnt == 3 || (alive && cnt == 2)) res |= 1u << b;
    }
    out[(size_t)y * wpr + w] = res;
}

// y = A x with A in SELL-32-sigma: slot g of the length-sorted order is row perm[g], lane
// g % 32 of slice g / 32; the slice's entries start at slice_ptr[s] and are stored column
// by column (entry j of the slice's lane l at slice_ptr[s] + 32 j + l), slice_len[s] of
// them a lane, rows shorter than their slice padded with value 0 and column 0
__global__ void spmv_sell32(const int *slice_ptr, const int *slice_len, const int *cols, const float *vals,
                            const int *perm, const float *x, float *y, int nrows) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nrows) return;
    int s = g / 32, lane = g % 32;
    int base = slice_ptr[s], len = slice_len[s];
    float sum = 0.0f;
    for (int j = 0; j < len; ++j) {
        int k = base + j * 32 + lane;
        sum += vals[k] * x[cols[k]];
    }
    y[perm[g]] = sum;
}

// the number of ways to finish an n-queens board from placement g of its first rows
// (occupied columns, left and right diagonals as bitmasks for the next row), by iterative
// backtracking over a stack of masks a depth (local arrays indexed by the depth); count[g]
// gets the thread's solutions and *total adds them
__global__ void nqueens_prefix(const unsigned *pcols, const unsigned *pld, const unsigned *prd,
                               unsigned *count, unsigned long long *total, int nboard, int nprefix) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nprefix) return;
    unsigned all = (1u << nboard) - 1u;
    unsigned cs[NQ_MAXD], ls[NQ_MAXD], rs[NQ_MAXD], cand[NQ_MAXD];
    cs[0] = pcols[g];
    ls[0] = pld[g];
    rs[0] = prd[g];
    cand[0] = all & ~(cs[0] | ls[0] | rs[0]);
    unsigned found = 0;
    int d = 0;
    while (d >= 0) {
        unsigned c = cand[d];
        if (c == 0u) {
            --d;
            continue;
        }
        unsigned bit = c & (0u - c);
        cand[d] = c ^ bit;
        unsigned nc = cs[d] | bit;
        if (nc == all) {
            ++found;
            continue;
        }
        unsigned nl = ((ls[d] | bit) << 1) & all, nr = (rs[d] | bit) >> 1;
        ++d;
        cs[d] = nc;
        ls[d] = nl;
        rs[d] = nr;
        cand[d] = all & ~(nc | nl | nr);
    }
    count[g] = found;
    atomicAdd(total, (unsigned long long)found);
}

// one level of a queue-based BFS over a CSR graph: thread g expands frontier[g]; each
// neighbour v still at dist -1 is claimed by atomicCAS (dist level + 1) and appended to
// next at a slot taken by atomicAdd on *next_len
__global__ void bfs_queue_expand(const int *row_ptr, const int *adj, const int *frontier, int nfront, int *dist,
                                 int *next, int *next_len, int level) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nfront) return;
    int u = frontier[g];
    for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
        int v = adj[e];
        if (atomicCAS(&dist[v], -1, level + 1) == -1) {
            int pos = atomicAdd(next_len, 1);
            next[pos] = v;
        }
    }
}

// one pass of a bottom-up merge sort: thread g merges the sorted runs in[lo, lo + width)
// and in[lo + width, lo + 2 width) (lo = 2 g width, both cut at n) into out[lo, ..),
// taking from the first run on ties
__global__ void merge_pass(const int *in, int *out, int n, int width) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    long long lo = (long long)g * 2 * width;
    if (lo >= n) return;
    int i = (int)lo, mid = (int)min(lo + width, (long long)n), hi = (int)min(lo + 2 * width, (long long)n);
    int j = mid, k = (int)lo;
    while (i < mid && j < hi) {
        if (in[i] <= in[j]) out[k++] = in[i++];
        else out[k++] = in[j++];
    }
    while (i < mid) out[k++] = in[i++];
    while (j < hi) out[k++] = in[j++];
}

}
