// probe-unseen49 (session 34): classic CUDA course exercises and CUDA Samples kernels in
// forms no probe had tried: a matrix-vector product whose rows are staged through an
// unpadded [128][32] shared tile (coalesced loads, then each thread reads its own row of
// the tile, every lane of a warp on the same banks); the partition step of a bucket sort
// into 8 buckets, once by an atomicAdd a key on the bucket's cursor and once by
// warp-aggregated atomics (the lanes with the same bucket grouped by __match_any_sync,
// one atomicAdd a group, the base handed on by __shfl_sync), the pair NVIDIA's blog on
// warp-aggregated atomics compares; a per-bin float maximum by the atomicCAS loop on the
// float's bits that courses give for the missing atomicMax(float *); a check that rows of
// ints are sorted, a block a row, that leaves a row at the first __syncthreads_and vote
// that finds a pair out of order; and the CUDA Samples' recursiveGaussian (Deriche's IIR
// filter down the columns of an image, a thread a column, a causal and an anticausal
// pass, blocks of 64). Predicted before their first GPU run.

extern "C" {

#define GT_ROWS 128
#define GT_K 32

// y = A x for the row-major rows x cols matrix A (cols a multiple of 32), a block of 128
// threads 128 rows: for each 32-column slab, warp w loads rows 32 w .. 32 w + 31 of the
// slab into the shared tile (a row a load instruction, coalesced) and warp 0 the slab of
// x, then thread t accumulates tile[t][k] xs[k] over the slab's 32 columns.  The tile is
// unpadded [128][32]: lane t reads word 32 t + k, so a 32-bit load puts all 32 lanes in
// bank k (32-way conflicts) and a 128-bit load of four k's 8 lanes a pass on the same 4
// banks
__global__ void gemv_tile32(const float *A, const float *x, float *y, int rows, int cols) {
    __shared__ float tile[GT_ROWS][GT_K];
    __shared__ float xs[GT_K];
    int t = threadIdx.x, lane = t & 31, w = t >> 5;
    int row0 = blockIdx.x * GT_ROWS;
    float acc = 0.0f;
    for (int k0 = 0; k0 < cols; k0 += GT_K) {
        for (int r = 0; r < 32; ++r) {
            int row = row0 + 32 * w + r;
            tile[32 * w + r][lane] = row < rows ? A[(size_t)row * cols + k0 + lane] : 0.0f;
        }
        if (w == 0) xs[lane] = x[k0 + lane];
        __syncthreads();
        for (int k = 0; k < GT_K; ++k) acc += tile[t][k] * xs[k];
        __syncthreads();
    }
    if (row0 + t < rows) y[row0 + t] = acc;
}

#define PT_BUCKETS 8
#define PT_STRIDE 32

// the keys grouped by bucket k & 7 (the partition step of a bucket sort): bucket b's range
// of out starts at start[b], and its cursor cursor[32 b] (from 0; the counters a 128-byte
// line apart) counts its slots taken.  A thread a key, one atomicAdd each: every key
// takes the next slot of its bucket's range
__global__ void partition8_atomic(const unsigned *keys, const unsigned *start, unsigned *cursor,
                                  unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned k = keys[i], b = k & (PT_BUCKETS - 1);
        out[start[b] + atomicAdd(&cursor[b * PT_STRIDE], 1u)] = k;
    }
}

// the same partition by warp-aggregated atomics: the lanes of a warp with the same bucket
// find each other with __match_any_sync, the lowest of them takes their slots with one
// atomicAdd and hands the base to the others by __shfl_sync, and each lane writes at base
// + its rank among them (lanes past n join in with bucket 8 and write nothing); blocks a
// multiple of 32
__global__ void partition8_match(const unsigned *keys, const unsigned *start, unsigned *cursor,
                                 unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    unsigned k = i < n ? keys[i] : 0u;
    unsigned b = i < n ? (k & (PT_BUCKETS - 1)) : PT_BUCKETS;
    unsigned peers = __match_any_sync(0xffffffffu, b);
    int leader = __ffs(peers) - 1;
    unsigned base = 0;
    if (lane == (unsigned)leader && b < PT_BUCKETS)
        base = atomicAdd(&cursor[b * PT_STRIDE], (unsigned)__popc(peers));
    base = __shfl_sync(0xffffffffu, base, leader);
    unsigned rank = __popc(peers & ((1u << lane) - 1u));
    if (b < PT_BUCKETS) out[start[b] + base + rank] = k;
}

// the float atomicMax courses write: a CAS loop on the float's bits that gives up as soon
// as the word already holds at least val
__device__ float atomicMaxFloat(float *address, float val) {
    int *address_as_int = (int *)address;
    int old = *address_as_int, assumed;
    while (val > __int_as_float(old)) {
        assumed = old;
        old = atomicCAS(address_as_int, assumed, __float_as_int(val));
        if (old == assumed) break;
    }
    return __int_as_float(old);
}

// mx[bin[i]] = max(mx[bin[i]], v[i]) for every i < n, a thread an element (mx starts at
// -inf)
__global__ void bin_max_cas(const float *v, const int *bin, float *mx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicMaxFloat(&mx[bin[i]], v[i]);
}

// sorted[r] = 1 if row r of the rows x len int matrix a is non-decreasing, else 0: a block
// of 256 a row, a trip a chunk of 256 adjacent pairs (a[j], a[j + 1]), the block leaving
// the row at the first trip whose __syncthreads_and vote finds a pair out of order
__global__ void rows_sorted_and(const int *a, int *sorted, int len) {
    const int *row = a + (size_t)blockIdx.x * len;
    int ok = 1;
    for (int base = 0; base < len - 1; base += blockDim.x) {
        int j = base + threadIdx.x;
        int good = j >= len - 1 || row[j] <= row[j + 1];
        if (!__syncthreads_and(good)) { ok = 0; break; }
    }
    if (threadIdx.x == 0) sorted[blockIdx.x] = ok;
}

// the CUDA Samples' recursiveGaussian (float, CLAMP_TO_EDGE): Deriche's recursive Gaussian
// down each column of the w x h image, a thread a column: a causal pass top to bottom
// writes od, an anticausal pass bottom to top adds its output to od; the coefficients come
// from the host
__global__ void recursive_gaussian(const float *id, float *od, int w, int h, float a0, float a1,
                                   float a2, float a3, float b1, float b2, float coefp, float coefn) {
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w) return;
    id += x;
    od += x;
    float xp = *id, yb = coefp * xp, yp = yb;
    for (int y = 0; y < h; y++) {
        float xc = *id;
        float yc = a0 * xc + a1 * xp - b1 * yp - b2 * yb;
        *od = yc;
        id += w;
        od += w;
        xp = xc;
        yb = yp;
        yp = yc;
    }
    id -= w;
    od -= w;
    float xn = *id, xa = xn, yn = coefn * xn, ya = yn;
    for (int y = h - 1; y >= 0; y--) {
        float xc = *id;
        float yc = a2 * xn + a3 * xa - b1 * yn - b2 * ya;
        xa = xn;
        xn = xc;
        ya = yn;
        yn = yc;
        *od = *od + yc;
        id -= w;
        od -= w;
    }
}

}
