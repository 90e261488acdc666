// probe-unseen64: a databases / query-processing course's CUDA assignments (GPU database
// operators), as a student who knows CUDA basics hands them in: a selection in the style
// of TPC-H Q6 (quantity < a bound and discount within a range) over two int columns, a
// thread a row, the qualifying row ids compacted into the output by a warp's __ballot_sync,
// one atomicAdd a warp on the output counter and __popc of the lanes below for the slot;
// a hash-join build, a thread a build row inserting its (unique) key into an
// open-addressing table with atomicCAS and linear probing, the row id stored beside it by
// the winner of the slot; the hash-join probe of another relation against such a table
// (built on the host), a thread a probe row walking its chain until its key or an empty
// slot, writing the matching build row id (or -1) and counting the matches with one
// ballot and one atomicAdd a warp; a group-by SUM / COUNT over 64 (skewed) groups, a
// grid-stride loop into per-block shared-memory accumulators (64-bit sums) and one global
// atomicAdd a group a block at the end; the histogram pass of a radix partitioning, a block
// a tile of RP_TILE keys counting the keys' top bytes into 256 shared buckets, the
// block's histogram written out as a column of a bucket-major matrix (for the exclusive
// scan that would give the scatter offsets), not combined; and a bitmap index build over a
// low-cardinality column, a thread a row setting its bit in its value's bitmap with an
// atomicOr on the 32-bit word.

#define HT_EMPTY -1           // hash_build / hash_probe: an empty slot's key (keys are >= 0)
#define NGROUPS 64            // groupby_sum: the groups
#define RP_BUCKETS 256        // radix_part_hist: buckets (the key's top byte)
#define RP_TILE 4096          // keys a block
#define BM_VALUES 16          // bitmap_index: the column's distinct values (0 .. 15)

extern "C" {

// the murmur3 finalizer: a 32-bit key's hash
__device__ unsigned hash32(unsigned k) {
    k ^= k >> 16;
    k *= 0x85ebca6bu;
    k ^= k >> 13;
    k *= 0xc2b2ae35u;
    k ^= k >> 16;
    return k;
}

// out[0 .. *count) = the rows i (in any order) with qty[i] < qmax and dlo <= disc[i] <= dhi;
// blockDim.x a multiple of 32
__global__ void select_ballot(const int *qty, const int *disc, int *out, int *count, int qmax, int dlo,
                              int dhi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    bool keep = false;
    if (i < n) {
        int q = qty[i];
        int d = disc[i];
        keep = q < qmax && d >= dlo && d <= dhi;
    }
    unsigned m = __ballot_sync(0xffffffffu, keep);
    int base = 0;
    if (lane == 0 && m != 0) base = atomicAdd(count, __popc(m));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (keep) out[base + __popc(m & ((1u << lane) - 1u))] = i;
}

// insert the n distinct keys (>= 0) into the table of mask + 1 slots (a power of two, all
// HT_EMPTY at first): tkeys[s] = keys[i] and tvals[s] = i, s the first free slot from
// hash32(key) & mask on
__global__ void hash_build(const int *keys, int *tkeys, int *tvals, int mask, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int k = keys[i];
    unsigned h = hash32((unsigned)k) & (unsigned)mask;
    while (true) {
        int prev = atomicCAS(&tkeys[h], HT_EMPTY, k);
        if (prev == HT_EMPTY) {
            tvals[h] = i;
            return;
        }
        h = (h + 1) & (unsigned)mask;
    }
}

// match[i] = the build row id of keys[i] in the table (hash_build's), or -1; *count += the
// matches; blockDim.x a multiple of 32
__global__ void hash_probe(const int *keys, const int *tkeys, const int *tvals, int mask, int *match,
                           unsigned *count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    bool found = false;
    if (i < n) {
        int k = keys[i];
        unsigned h = hash32((unsigned)k) & (unsigned)mask;
        int r = -1;
        while (true) {
            int t = tkeys[h];
            if (t == k) {
                r = tvals[h];
                break;
            }
            if (t == HT_EMPTY) break;
            h = (h + 1) & (unsigned)mask;
        }
        match[i] = r;
        found = r >= 0;
    }
    unsigned m = __ballot_sync(0xffffffffu, found);
    if (lane == 0 && m != 0) atomicAdd(count, (unsigned)__popc(m));
}

// SELECT g, SUM(val), COUNT(*) GROUP BY g: sum[g] += the vals of the rows of group g
// (0 <= g < NGROUPS), cnt[g] += their number; a grid-stride loop
__global__ void groupby_sum(const int *gkey, const int *val, unsigned long long *sum, unsigned *cnt, int n) {
    __shared__ unsigned long long s_sum[NGROUPS];
    __shared__ unsigned s_cnt[NGROUPS];
    for (int g = threadIdx.x; g < NGROUPS; g += blockDim.x) {
        s_sum[g] = 0;
        s_cnt[g] = 0;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int g = gkey[i];
        atomicAdd(&s_sum[g], (unsigned long long)val[i]);
        atomicAdd(&s_cnt[g], 1u);
    }
    __syncthreads();
    for (int g = threadIdx.x; g < NGROUPS; g += blockDim.x) {
        if (s_cnt[g] != 0) {
            atomicAdd(&sum[g], s_sum[g]);
            atomicAdd(&cnt[g], s_cnt[g]);
        }
    }
}

// hist[b * gridDim.x + blockIdx.x] = how many of the block's keys (keys[blockIdx.x * RP_TILE
// ...], the last tile cut at n) have top byte b
__global__ void radix_part_hist(const unsigned *keys, unsigned *hist, int n) {
    __shared__ unsigned h[RP_BUCKETS];
    for (int b = threadIdx.x; b < RP_BUCKETS; b += blockDim.x) h[b] = 0;
    __syncthreads();
    int start = blockIdx.x * RP_TILE;
    int end = min(start + RP_TILE, n);
    for (int i = start + threadIdx.x; i < end; i += blockDim.x)
        atomicAdd(&h[keys[i] >> 24], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < RP_BUCKETS; b += blockDim.x)
        hist[b * gridDim.x + blockIdx.x] = h[b];
}

// bit i of bitmap v (words bm[v * nwords ...], bit i & 31 of word i >> 5) set for the rows
// with col[i] == v (0 <= v < BM_VALUES); bm zeroed by the host
__global__ void bitmap_index(const int *col, unsigned *bm, int nwords, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = col[i];
    atomicOr(&bm[v * nwords + (i >> 5)], 1u << (i & 31));
}

}
