// probe-unseen140: a GPU data-structures course's CUDA assignments, as a student who knows
// CUDA basics hands them in:
//  - ht_insert: building an open-addressing hash table (32-bit keys and values in two
//    arrays, linear probing from a murmur3 fmix32 hash), a thread a key, each slot claimed
//    by atomicCAS on the key array (the empty key all ones), then the value stored;
//  - cuckoo_lookup: looking keys up in a cuckoo hash table built on the host (one table of
//    64-bit entries, key << 32 | value, two hash functions): the first slot, then the
//    second if the key is not there, a miss written as all ones;
//  - bloom_query: querying a Bloom filter (a bit array of m = 2^k bits in 32-bit words, BF_K
//    bits a key by double hashing h1 + j h2), a thread a query leaving at its first zero
//    bit, one byte out (1: maybe in the set);
//  - splitter_search: lower_bound of queries in a big sorted array, a thread a query, the
//    array's every (m / SPLIT)-th key staged in shared memory as splitters: a binary search
//    in shared memory picks the bucket, a second one in global memory the position;
//  - bfs_expand: one level of a top-down BFS with a work queue, a thread a frontier vertex:
//    its CSR neighbours claimed by atomicCAS on the level array (-1 unvisited), each vertex
//    claimed pushed onto the next frontier at an atomicAdd on the queue's tail;
//  - bitmap_and_count: intersecting two bitmaps (sets of integers as bits of 32-bit words),
//    a thread a word: the AND stored, __popc of it summed by a shared-memory tree reduction
//    and a block's count added to the set's size by one atomicAdd.

#define HT_EMPTY 0xffffffffu      // ht_insert: an empty slot's key
#define CK_EMPTY 0xffffffffffffffffull   // cuckoo_lookup: an empty slot
#define CK_SEED1 0x12345678u      // cuckoo_lookup: the two hash functions' seeds
#define CK_SEED2 0x9abcdef1u
#define NOT_FOUND 0xffffffffu     // cuckoo_lookup: a miss
#define BF_K 7                    // bloom_query: bits a key
#define SPLIT 1024                // splitter_search: splitters in shared memory
#define BM_BLOCK 256              // bitmap_and_count: threads a block

extern "C" {

// murmur3's 32-bit finalizer
__device__ unsigned int fmix32(unsigned int h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

// insert n (key, value) pairs (keys distinct, none HT_EMPTY) into a table of capacity
// slots (a power of two, keys initialized to HT_EMPTY) by linear probing
__global__ void ht_insert(unsigned int *table_keys, unsigned int *table_vals, const unsigned int *keys,
                          const unsigned int *vals, unsigned int capacity, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int key = keys[i];
    unsigned int slot = fmix32(key) & (capacity - 1);
    while (true) {
        unsigned int prev = atomicCAS(&table_keys[slot], HT_EMPTY, key);
        if (prev == HT_EMPTY || prev == key) {
            table_vals[slot] = vals[i];
            return;
        }
        slot = (slot + 1) & (capacity - 1);
    }
}

// look up n keys in a cuckoo table of mask + 1 entries (key << 32 | value): at
// fmix32(q ^ CK_SEED1) & mask, then fmix32(q ^ CK_SEED2) & mask; NOT_FOUND for a miss
__global__ void cuckoo_lookup(const unsigned long long *table, const unsigned int *queries, unsigned int *out,
                              unsigned int mask, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int q = queries[i];
    unsigned int v = NOT_FOUND;
    unsigned long long e = table[fmix32(q ^ CK_SEED1) & mask];
    if (e != CK_EMPTY && (unsigned int)(e >> 32) == q) {
        v = (unsigned int)(e & 0xffffffffull);
    } else {
        e = table[fmix32(q ^ CK_SEED2) & mask];
        if (e != CK_EMPTY && (unsigned int)(e >> 32) == q) v = (unsigned int)(e & 0xffffffffull);
    }
    out[i] = v;
}

// query n keys in a Bloom filter of m_bits bits (a power of two; bit b is bit b % 32 of
// word b / 32): bits (h1 + j h2) mod m_bits, j < BF_K, h1 = fmix32(q), h2 = fmix32(q ^
// 0x9e3779b9) | 1; out[i] = 1 if all are set, 0 from the first clear one
__global__ void bloom_query(const unsigned int *bits, const unsigned int *queries, unsigned char *out,
                            unsigned int m_bits, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int q = queries[i];
    unsigned int h1 = fmix32(q);
    unsigned int h2 = fmix32(q ^ 0x9e3779b9u) | 1u;
    unsigned char found = 1;
    for (int j = 0; j < BF_K; j++) {
        unsigned int b = (h1 + j * h2) & (m_bits - 1);
        if ((bits[b >> 5] & (1u << (b & 31))) == 0) {
            found = 0;
            break;
        }
    }
    out[i] = found;
}

// pos[i] = lower_bound of queries[i] in keys[0 .. m) (sorted ascending, m a multiple of
// SPLIT): the first index whose key is >= the query (m if none)
__global__ void splitter_search(const unsigned int *keys, const unsigned int *queries, int *pos, int m, int n) {
    __shared__ unsigned int s_split[SPLIT];
    int stride = m / SPLIT;
    for (int k = threadIdx.x; k < SPLIT; k += blockDim.x) s_split[k] = keys[k * stride];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int q = queries[i];
    // how many splitters are < q
    int lo = 0;
    int hi = SPLIT;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s_split[mid] < q) lo = mid + 1;
        else hi = mid;
    }
    int b = lo;
    int res = 0;
    if (b > 0) {
        // keys[(b - 1) * stride] < q <= keys[b * stride] (or b * stride == m)
        lo = (b - 1) * stride + 1;
        hi = b * stride;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (keys[mid] < q) lo = mid + 1;
            else hi = mid;
        }
        res = lo;
    }
    pos[i] = res;
}

// one BFS level: each frontier vertex's neighbours col[row_ptr[u] .. row_ptr[u + 1]) not
// yet visited (level -1) get level depth + 1, the thread whose atomicCAS claimed one
// appending it to next_frontier at atomicAdd(next_tail, 1)
__global__ void bfs_expand(const int *row_ptr, const int *col, int *level, const int *frontier, int *next_frontier,
                           int *next_tail, int depth, int frontier_size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= frontier_size) return;
    int u = frontier[i];
    int start = row_ptr[u];
    int end = row_ptr[u + 1];
    for (int e = start; e < end; e++) {
        int v = col[e];
        if (atomicCAS(&level[v], -1, depth + 1) == -1) {
            int p = atomicAdd(next_tail, 1);
            next_frontier[p] = v;
        }
    }
}

// c = a & b over n_words words; *count += the number of bits set in c (blockDim.x ==
// BM_BLOCK)
__global__ void bitmap_and_count(const unsigned int *a, const unsigned int *b, unsigned int *c,
                                 unsigned int *count, int n_words) {
    __shared__ unsigned int s_cnt[BM_BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    unsigned int w = 0;
    if (i < n_words) {
        w = a[i] & b[i];
        c[i] = w;
    }
    s_cnt[tid] = __popc(w);
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) s_cnt[tid] += s_cnt[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(count, s_cnt[0]);
}

}
