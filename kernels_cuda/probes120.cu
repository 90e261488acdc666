// probe-unseen118: a parallel-algorithms course's CUDA assignments (sorting, searching and
// selection), as a student who knows CUDA basics hands them in:
//  - bitonic_sort_kv: the first phase of a bitonic sort of (key, value) pairs, a block a
//    tile of BT_TILE float keys with their int values (blockDim BT_TILE / 2): the tile
//    staged in shared memory (the last tile padded with FLT_MAX), every compare-exchange
//    step one pair a thread (the pair's lower index 2t - (t & (j - 1))), ascending
//    where bit k of the index is clear, __syncthreads between the steps, the sorted tile
//    stored back;
//  - lower_bound_batch: batched binary searches, a thread a query: the first position in
//    a sorted int array whose element is not less than the query (std::lower_bound),
//    ~log2(m) dependent loads at data-dependent places;
//  - radix_hist: the counting pass of an LSD radix sort (8-bit digits), a block a tile of
//    RH_PER keys a thread (coalesced): each key's digit counted in a shared histogram by
//    shared atomicAdd, the block's histogram stored digit-major (counts[d * gridDim.x +
//    block]) for the scan that follows;
//  - compact_scan: stream compaction of the elements above a threshold, a thread an
//    element: the block's flags scanned in shared memory (Hillis-Steele, double
//    buffered), the block's last thread reserving the block's run of the output by one
//    atomicAdd on a global counter, the kept values and their indices scattered in order;
//  - samplesort_bucket: the bucket-assignment pass of a sample sort, a block SS_PER keys a
//    thread: the SS_BUCKETS - 1 sorted splitters staged in shared memory, each key's
//    bucket (how many splitters are <= the key) found by a binary search over them,
//    stored as a byte;
//  - select_kth_rows: k-th smallest element of every SEL_N-int row by counting, a block a
//    row (a thread an element): the row in shared memory, each thread counting the
//    elements ranked before its own (smaller, or equal and earlier), the thread of rank
//    k storing its element.

#define BT_TILE 2048          // bitonic_sort_kv: keys a tile (blockDim.x == BT_TILE / 2)
#define RADIX 256             // radix_hist: buckets (8-bit digits)
#define RH_PER 16             // radix_hist: keys a thread (a block's tile: RH_PER x blockDim)
#define CS_BLOCK 256          // compact_scan: threads a block (blockDim.x == CS_BLOCK)
#define SS_BUCKETS 256        // samplesort_bucket: buckets (SS_BUCKETS - 1 splitters)
#define SS_PER 8              // samplesort_bucket: keys a thread
#define SEL_N 512             // select_kth_rows: ints a row (blockDim.x == SEL_N)

extern "C" {

// every BT_TILE-key tile of keys (its values alongside) sorted ascending in place; n keys
__global__ void bitonic_sort_kv(float *keys, int *vals, int n) {
    __shared__ float sk[BT_TILE];
    __shared__ int sv[BT_TILE];
    int t = threadIdx.x;
    int base = blockIdx.x * BT_TILE;
    for (int i = t; i < BT_TILE; i += blockDim.x) {
        int g = base + i;
        if (g < n) {
            sk[i] = keys[g];
            sv[i] = vals[g];
        } else {
            sk[i] = FLT_MAX;
            sv[i] = -1;
        }
    }
    __syncthreads();
    for (int k = 2; k <= BT_TILE; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            int i = 2 * t - (t & (j - 1));
            int p = i + j;
            bool up = (i & k) == 0;
            float a = sk[i];
            float b = sk[p];
            if (up ? (a > b) : (a < b)) {
                sk[i] = b;
                sk[p] = a;
                int tv = sv[i];
                sv[i] = sv[p];
                sv[p] = tv;
            }
            __syncthreads();
        }
    }
    for (int i = t; i < BT_TILE; i += blockDim.x) {
        int g = base + i;
        if (g < n) {
            keys[g] = sk[i];
            vals[g] = sv[i];
        }
    }
}

// pos[i] = the first index of sorted[0 .. m) whose element is >= queries[i] (m if none)
__global__ void lower_bound_batch(const int *sorted, int m, const int *queries, int *pos, int nq) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nq) return;
    int q = queries[i];
    int lo = 0;
    int hi = m;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (sorted[mid] < q)
            lo = mid + 1;
        else
            hi = mid;
    }
    pos[i] = lo;
}

// the block's histogram of the digits (keys[i] >> shift) & (RADIX - 1) of its tile of
// RH_PER * blockDim.x keys, stored at counts[d * gridDim.x + blockIdx.x]
__global__ void radix_hist(const unsigned int *keys, unsigned int *counts, int shift, int n) {
    __shared__ unsigned int hist[RADIX];
    for (int d = threadIdx.x; d < RADIX; d += blockDim.x) hist[d] = 0;
    __syncthreads();
    int base = blockIdx.x * blockDim.x * RH_PER;
    for (int r = 0; r < RH_PER; r++) {
        int i = base + r * blockDim.x + threadIdx.x;
        if (i < n) {
            unsigned int d = (keys[i] >> shift) & (RADIX - 1);
            atomicAdd(&hist[d], 1u);
        }
    }
    __syncthreads();
    for (int d = threadIdx.x; d < RADIX; d += blockDim.x) counts[d * gridDim.x + blockIdx.x] = hist[d];
}

// the x[i] > thr (and their indices i) appended to out_val / out_idx, a block's in order,
// the blocks' runs in the order they reserve them; *count the total kept
__global__ void compact_scan(const float *x, float thr, float *out_val, int *out_idx, int *count, int n) {
    __shared__ int buf[2][CS_BLOCK];
    __shared__ int block_base;
    int t = threadIdx.x;
    int i = blockIdx.x * CS_BLOCK + t;
    float v = 0.0f;
    if (i < n) v = x[i];
    int flag = (i < n && v > thr) ? 1 : 0;
    int pin = 0;
    buf[0][t] = flag;
    __syncthreads();
    for (int off = 1; off < CS_BLOCK; off <<= 1) {
        int s = buf[pin][t];
        if (t >= off) s += buf[pin][t - off];
        buf[1 - pin][t] = s;
        pin = 1 - pin;
        __syncthreads();
    }
    int incl = buf[pin][t];
    if (t == CS_BLOCK - 1) block_base = atomicAdd(count, incl);
    __syncthreads();
    if (flag) {
        int p = block_base + incl - 1;
        out_val[p] = v;
        out_idx[p] = i;
    }
}

// bucket[i] = how many of the SS_BUCKETS - 1 sorted splitters are <= keys[i]
__global__ void samplesort_bucket(const float *keys, const float *splitters, unsigned char *bucket, int n) {
    __shared__ float s_split[SS_BUCKETS - 1];
    for (int k = threadIdx.x; k < SS_BUCKETS - 1; k += blockDim.x) s_split[k] = splitters[k];
    __syncthreads();
    int base = blockIdx.x * blockDim.x * SS_PER;
    for (int r = 0; r < SS_PER; r++) {
        int i = base + r * blockDim.x + threadIdx.x;
        if (i >= n) break;
        float x = keys[i];
        int lo = 0;
        int hi = SS_BUCKETS - 1;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (s_split[mid] <= x)
                lo = mid + 1;
            else
                hi = mid;
        }
        bucket[i] = (unsigned char)lo;
    }
}

// kth[r] = the k-th smallest (0-based) of row r's SEL_N ints a[r * SEL_N ..]
__global__ void select_kth_rows(const int *a, int *kth, int k, int rows) {
    __shared__ int s[SEL_N];
    int r = blockIdx.x;
    int t = threadIdx.x;
    if (r >= rows) return;
    int x = a[r * SEL_N + t];
    s[t] = x;
    __syncthreads();
    int rank = 0;
    for (int j = 0; j < SEL_N; j++) {
        int v = s[j];
        if (v < x || (v == x && j < t)) rank++;
    }
    if (rank == k) kth[r] = x;
}

}
