// probe-unseen201: a streaming algorithms / data sketches course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - cm_update: a count-min sketch of a packet trace's bytes by flow, a grid-stride loop a
//    thread: each packet's 32-bit flow key hashed into 4 rows of 2^16 64-bit counters by
//    pairwise independent hashes ((a x + b) mod 2^61 - 1, then mod the width; a and b in
//    __constant__ memory, the product's high word by __umul64hi and folded by shifts and
//    masks) and its length (16-bit) atomicAdd-ed onto each row's counter;
//  - hll_estimate: HyperLogLog cardinality estimates of many sketches (2^14 one-byte
//    registers each), a block of 256 threads a sketch: each thread's registers' 2^-M summed
//    in double and its empty registers counted, both summed by a shared-memory tree with
//    __syncthreads, thread 0 the raw estimate alpha m^2 / sum or, for small ones, linear
//    counting m log(m / zeros);
//  - misra_gries: Misra-Gries frequent-item summaries of a word stream, a thread a contiguous
//    chunk of 64 words with 8 (key, count) counters in a local struct array: the word's
//    counter incremented, else an empty one taken, else all decremented; the summary stored
//    (merged on the host);
//  - dd_sketch: a DDSketch of request latencies (1% relative accuracy), a grid-stride loop a
//    thread: each latency's log-spaced bucket by logf and ceilf counted by a shared atomicAdd
//    in the block's private histogram, the latencies' sum by a warp shuffle and one float
//    atomicAdd a warp, the block's non-empty buckets atomicAdd-ed onto the global one;
//  - minhash_verify: LSH candidate pairs checked with 16-bit b-bit MinHash signatures (128
//    slots a document), a warp a pair: 4 slot comparisons a lane counted by __ballot_sync and
//    __popc, lane 0 the b-bit corrected Jaccard estimate and, at the threshold or above, the
//    pair appended to the near-duplicate list by an atomicAdd on its length;
//  - wres_topk: weighted reservoir sampling (Efraimidis-Spirakis A-Res) of a stream, a block a
//    tile of 1024 items: each item's key log(u) / w (u from a hash of its index) and index
//    in shared memory, a bitonic sort of the tile (55 stages between __syncthreads), the 64
//    best keys of the tile stored (merged on the host).

#define CM_D 4                     // cm_update: the sketch's rows
#define CM_W (1 << 16)             // and its width
#define M61 ((1ULL << 61) - 1)     // the Mersenne prime 2^61 - 1
#define HLL_P 14                   // hll_estimate: 2^HLL_P registers a sketch
#define HLL_M (1 << HLL_P)
#define HLL_BLOCK 256              // blockDim.x
#define MG_K 8                     // misra_gries: counters a thread
#define MG_CHUNK 64                // the words a thread summarises
#define DD_BINS 1024               // dd_sketch: bucket 0 for zeros, the last for overflow
#define MH_K 128                   // minhash_verify: the signature's slots
#define WR_TILE 1024               // wres_topk: the items a block sorts
#define WR_BLOCK 256               // blockDim.x
#define WR_KEEP 64                 // the best kept a tile

// cm_update's hash functions (set by the host): row j's a_j in 1 .. p - 1, b_j in 0 .. p - 1
__constant__ unsigned long long c_cm_a[CM_D];
__constant__ unsigned long long c_cm_b[CM_D];

struct MGCounter {
    int key;       // -1 for an unused counter
    int count;
};

struct CandPair {
    int a;
    int b;
};

struct Cand {
    float key;
    int idx;
};

// row j's column of key x: ((a_j x + b_j) mod p) mod CM_W, p = 2^61 - 1
__device__ unsigned cm_hash(int j, unsigned x) {
    unsigned long long a = c_cm_a[j];
    unsigned long long lo = a * x;
    unsigned long long hi = __umul64hi(a, (unsigned long long)x);
    // a x = hi 2^64 + lo, and 2^64 = 8 mod p, 2^61 = 1 mod p
    unsigned long long r = (lo & M61) + (lo >> 61) + (hi << 3);
    r += c_cm_b[j];
    r = (r & M61) + (r >> 61);
    if (r >= M61) r -= M61;
    return (unsigned)(r % CM_W);
}

// murmur3's 32-bit finaliser
__device__ unsigned fmix32(unsigned h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

// a is to come before b: the larger key, ties to the smaller index
__device__ bool cand_before(Cand a, Cand b) {
    return a.key > b.key || (a.key == b.key && a.idx < b.idx);
}

extern "C" {

// n packets: flow[i] the flow's key, len[i] its length in bytes; sketch[j * CM_W + c] the
// bytes counted in row j, column c
__global__ void cm_update(const unsigned *flow, const unsigned short *len, unsigned long long *sketch, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned x = flow[i];
        unsigned long long v = len[i];
        for (int j = 0; j < CM_D; j++) {
            atomicAdd(&sketch[j * CM_W + cm_hash(j, x)], v);
        }
    }
}

// n sketches: reg[s * HLL_M + j] register j of sketch s (the largest rank seen, 0 if none);
// est[s] its cardinality estimate (a block a sketch)
__global__ void hll_estimate(const unsigned char *reg, double *est, int n) {
    __shared__ double ssum[HLL_BLOCK];
    __shared__ int szero[HLL_BLOCK];
    int s = blockIdx.x;
    int t = threadIdx.x;
    if (s >= n) return;
    const unsigned char *r = reg + (size_t)s * HLL_M;
    double sum = 0.0;
    int zeros = 0;
    for (int j = t; j < HLL_M; j += HLL_BLOCK) {
        int v = r[j];
        sum += 1.0 / (double)(1ULL << v);
        if (v == 0) zeros++;
    }
    ssum[t] = sum;
    szero[t] = zeros;
    __syncthreads();
    for (int k = HLL_BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) {
            ssum[t] += ssum[t + k];
            szero[t] += szero[t + k];
        }
        __syncthreads();
    }
    if (t == 0) {
        double m = HLL_M;
        double alpha = 0.7213 / (1.0 + 1.079 / m);
        double e = alpha * m * m / ssum[0];
        if (e <= 2.5 * m && szero[0] > 0) e = m * log(m / szero[0]);
        est[s] = e;
    }
}

// n words: items[i] a word's id; summary[MG_K t ..] thread t's counters over words
// MG_CHUNK t .. MG_CHUNK (t + 1) - 1 (key -1, count 0 for an unused one)
__global__ void misra_gries(const int *items, MGCounter *summary, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int begin = t * MG_CHUNK;
    if (begin >= n) return;
    int end = min(begin + MG_CHUNK, n);
    MGCounter c[MG_K];
    for (int j = 0; j < MG_K; j++) {
        c[j].key = -1;
        c[j].count = 0;
    }
    for (int i = begin; i < end; i++) {
        int x = items[i];
        int found = -1;
        int empty = -1;
        for (int j = 0; j < MG_K; j++) {
            if (c[j].count > 0 && c[j].key == x) {
                found = j;
                break;
            }
            if (c[j].count == 0 && empty < 0) empty = j;
        }
        if (found >= 0) {
            c[found].count++;
        } else if (empty >= 0) {
            c[empty].key = x;
            c[empty].count = 1;
        } else {
            for (int j = 0; j < MG_K; j++) c[j].count--;
        }
    }
    for (int j = 0; j < MG_K; j++) {
        MGCounter o;
        o.key = c[j].count > 0 ? c[j].key : -1;
        o.count = c[j].count;
        summary[t * MG_K + j] = o;
    }
}

// n latencies lat[i] (ms); hist[b] += the latencies in bucket b: 0 for those <= min_value,
// else ceil(log(x) / log(gamma)) + key_offset clamped to 1 .. DD_BINS - 1; total += their sum
__global__ void dd_sketch(const float *lat, int *hist, float *total, float min_value, float inv_log_gamma,
                          int key_offset, int n) {
    __shared__ int h[DD_BINS];
    for (int j = threadIdx.x; j < DD_BINS; j += blockDim.x) h[j] = 0;
    __syncthreads();
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float x = lat[i];
        sum += x;
        int b = 0;
        if (x > min_value) {
            b = (int)ceilf(logf(x) * inv_log_gamma) + key_offset;
            b = min(max(b, 1), DD_BINS - 1);
        }
        atomicAdd(&h[b], 1);
    }
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffff, sum, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(total, sum);
    __syncthreads();
    for (int j = threadIdx.x; j < DD_BINS; j += blockDim.x) {
        if (h[j] > 0) atomicAdd(&hist[j], h[j]);
    }
}

// n candidate pairs of documents; sig[MH_K d ..] document d's 16-bit MinHash values;
// jac[p] pair p's Jaccard estimate, near[0 .. *nnear - 1] the pairs at thresh or above (any
// order); a warp a pair (blockDim.x a multiple of 32)
__global__ void minhash_verify(const unsigned short *sig, const CandPair *pairs, float *jac, int *near, int *nnear,
                               float thresh, int n) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (w >= n) return;
    CandPair p = pairs[w];
    const unsigned short *sa = sig + (size_t)p.a * MH_K;
    const unsigned short *sb = sig + (size_t)p.b * MH_K;
    int match = 0;
    for (int k = lane; k < MH_K; k += 32) {
        unsigned m = __ballot_sync(0xffffffff, sa[k] == sb[k]);
        match += __popc(m);
    }
    if (lane == 0) {
        float r = match / (float)MH_K;
        float c = 1.0f / 65536.0f;           // two different documents' chance to agree on 16 bits
        float j = fmaxf((r - c) / (1.0f - c), 0.0f);
        jac[w] = j;
        if (j >= thresh) {
            int pos = atomicAdd(nnear, 1);
            near[pos] = w;
        }
    }
}

// n items of weights w[i] >= 0; out[WR_KEEP b ..] the WR_KEEP best (key, index) of tile b
// (items WR_TILE b ..), best first: key log(u_i) / w_i, u_i in (0, 1) from a hash of i and
// seed (-inf for a weight 0 or an index past n)
__global__ void wres_topk(const float *w, Cand *out, unsigned seed, int n) {
    __shared__ Cand s[WR_TILE];
    int base = blockIdx.x * WR_TILE;
    for (int k = threadIdx.x; k < WR_TILE; k += WR_BLOCK) {
        int i = base + k;
        Cand c;
        c.idx = i;
        c.key = -INFINITY;
        if (i < n) {
            float wi = w[i];
            if (wi > 0.0f) {
                unsigned h = fmix32((unsigned)i ^ seed);
                float u = ((h >> 8) + 0.5f) * (1.0f / 16777216.0f);
                c.key = logf(u) / wi;
            }
        }
        s[k] = c;
    }
    __syncthreads();
    for (int size = 2; size <= WR_TILE; size <<= 1) {
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            for (int k = threadIdx.x; k < WR_TILE / 2; k += WR_BLOCK) {
                int lo = 2 * k - (k & (stride - 1));
                int hi = lo + stride;
                Cand a = s[lo];
                Cand b = s[hi];
                bool down = (lo & size) == 0;        // this run in cand_before order
                if (down ? cand_before(b, a) : cand_before(a, b)) {
                    s[lo] = b;
                    s[hi] = a;
                }
            }
            __syncthreads();
        }
    }
    if (threadIdx.x < WR_KEEP) out[blockIdx.x * WR_KEEP + threadIdx.x] = s[threadIdx.x];
}

}
