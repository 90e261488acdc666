// probe-unseen40 (session 32): kinds no probe had tried: one pointer-jumping step of list
// ranking (two dependent random gathers a node), k-mer counting (a sliding 8-base window
// over 2-bit DNA codes, atomicAdd into 4^8 bins), reduce-by-key over sorted keys (a warp's
// segmented shuffle scan, one atomicAdd a run end), batched 8x8 matrix products through
// shared memory (64 threads a product), cuckoo-hash lookups (a second random probe only
// where the first misses), and a fused bias + ReLU + dropout with an integer-hash mask.
// Predicted before their first GPU run.

extern "C" {

// one pointer-jumping step: rank2[i] = rank[i] + rank[next[i]], next2[i] = next[next[i]]
// (a node whose next is itself, the list's end, keeps both)
__global__ void pointer_jump(const int *next, const int *rank, int *next2, int *rank2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int j = next[i];
    if (j == i) {
        next2[i] = i;
        rank2[i] = rank[i];
    } else {
        rank2[i] = rank[i] + rank[j];
        next2[i] = next[j];
    }
}

// counts[code of the 8 bases starting at i]++ for every full window of a sequence of
// 2-bit base codes (one byte a base)
__global__ void kmer_count(const unsigned char *seq, unsigned *counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n - 8) return;
    unsigned code = 0u;
#pragma unroll
    for (int k = 0; k < 8; ++k) code = (code << 2) | (seq[i + k] & 3u);
    atomicAdd(&counts[code], 1u);
}

// sums[key] += val for sorted keys: each warp scans its 32 values by segments (lanes with
// equal keys) with shuffles, and the last lane of each segment in the warp adds its sum
__global__ void reduce_by_key(const int *keys, const float *vals, float *sums, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    int k = i < n ? keys[i] : -1;
    float v = i < n ? vals[i] : 0.0f;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        float u = __shfl_up_sync(0xffffffffu, v, d);
        int ku = __shfl_up_sync(0xffffffffu, k, d);
        if (lane >= d && ku == k) v += u;
    }
    int kn = __shfl_down_sync(0xffffffffu, k, 1);
    if (i < n && (lane == 31 || kn != k)) atomicAdd(&sums[k], v);
}

// c[b] = a[b] @ bm[b] for a batch of 8x8 float matrices: a block of 64 threads a product,
// both operands staged in shared memory, a thread an output element
__global__ void batched_gemm8(const float *a, const float *bm, float *c, int batch) {
    __shared__ float sa[64], sb[64];
    int b = blockIdx.x, t = threadIdx.x, r = t >> 3, col = t & 7;
    if (b >= batch) return;
    sa[t] = a[64 * b + t];
    sb[t] = bm[64 * b + t];
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) acc += sa[8 * r + k] * sb[8 * k + col];
    c[64 * b + t] = acc;
}

// cuckoo-hash lookups: a key lives in slot h1(key) or h2(key) of a table of (key, value)
// pairs; out = its value, or -1 where it is in neither (the second probe only where the
// first misses)
__global__ void cuckoo_lookup(const unsigned *queries, const uint2 *table, int *out, int n, unsigned mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned q = queries[i];
    uint2 e = table[(q * 2654435761u) & mask];
    if (e.x != q) e = table[((q ^ 0x5bd1e995u) * 0x27d4eb2fu >> 7) & mask];
    out[i] = e.x == q ? (int)e.y : -1;
}

// y = dropout(relu(x + bias[col])) with keep probability 7/8 decided by an integer hash
// of (seed, index); kept values scaled by 8/7, the mask stored as a byte
__global__ void bias_relu_dropout(const float *x, const float *bias, float *y, unsigned char *keep, int n,
                                  int cols, unsigned seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = fmaxf(x[i] + bias[i % cols], 0.0f);
    unsigned h = (unsigned)i * 0x9e3779b9u ^ seed;
    h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
    bool k = (h & 7u) != 0u;
    y[i] = k ? v * (8.0f / 7.0f) : 0.0f;
    keep[i] = k;
}

}
