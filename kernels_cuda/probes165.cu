// probe-unseen163: a storage systems / data deduplication course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - gear_cdc: content-defined chunking (FastCDC's gear hash) of a backup stream, a thread a
//    segment of seg bytes: the 256-entry gear table staged in shared memory, the 32-bit gear
//    hash h = (h << 1) + gear[byte] warmed up over the 31 bytes before the segment (so each
//    position's hash is the whole stream's), a byte a step, every position whose hash has
//    the GC_MASK bits clear a candidate cut (the first GC_MAXC kept a segment, all counted;
//    a later pass applies the minimum and maximum chunk sizes);
//  - block_fp: 64-bit fingerprints of fixed-size 4 KiB blocks (a VM image's), a warp a block:
//    each lane folds its stride-32 words (8 bytes, coalesced) into an xxHash64-style
//    accumulator (64-bit multiplies and rotates), the 32 accumulators merged by a
//    __shfl_down_sync tree, lane 0 adding the length and avalanching;
//  - fp_insert: the dedup index, a GPU hash table of 64-bit fingerprints with open
//    addressing (linear probing from the fingerprint's low bits), a thread a block's
//    fingerprint: atomicCAS of the empty key 0 to the fingerprint, the thread whose CAS lands
//    it marks the block new, the others found it a duplicate; the slot's reference count by
//    atomicAdd and each block's slot written;
//  - super_features: similarity detection for delta compression (Shilane et al.'s
//    N-transform super-features), a block of SF_THREADS a variable-length chunk: each thread
//    a contiguous run of the chunk's 32-byte windows, a Rabin-Karp rolling hash over them and
//    SF_NF linear transforms m h + a (mod 2^32, from __constant__) each kept at its maximum
//    in a per-thread array, the maxima reduced over the block in shared memory
//    (__syncthreads a level), 3 super-features FNV-1a-64 hashed from 4 features each;
//  - raid6_pq: RAID-6 P and Q parity of a stripe of R6_DISKS data disks, a thread a 32-bit
//    word of each disk: P the XOR, Q = sum over disks d of 2^d D_d in GF(2^8) (polynomial
//    0x11d), each byte multiplied by exp[log[b] + d] with the log and exp tables staged in
//    shared memory (zero bytes skipped);
//  - extent_entropy: the compression heuristic of a file system (Btrfs-like) over 128 KiB
//    extents, a block of EN_THREADS an extent: its byte histogram by shared-memory
//    atomicAdd (4 bytes of a loaded word a thread a trip), written out, then the Shannon
//    entropy -sum p log2 p a bin a thread summed by warp shuffles and the 8 warps' sums, the
//    extent marked for compression if under the limit.

#define GC_WIN 32                 // gear_cdc: the gear hash's window, a byte leaves h after 32 shifts
#define GC_MAXC 16                // candidate cuts kept a segment
#define GC_MASK 0xdadb6000u       // 13 bits, all >= 13: mean chunk 8 KiB, windows of 14 .. 32 bytes
#define FP_BLOCK 4096             // block_fp: bytes a block
#define XX_P1 0x9E3779B185EBCA87ull
#define XX_P2 0xC2B2AE3D27D4EB4Full
#define XX_P3 0x165667B19E3779F9ull
#define XX_P4 0x85EBCA77C2B2AE63ull
#define HT_EMPTY 0ull             // fp_insert: an empty slot's key (no fingerprint is 0)
#define SF_THREADS 128            // super_features: blockDim.x
#define SF_WIN 32                 // the rolling hash's window (bytes)
#define SF_NF 12                  // features
#define SF_PER 4                  // features a super-feature
#define SF_B 16777619u            // the rolling hash's base
#define SF_BW 0x447c1481u         // SF_B^32 mod 2^32
#define FNV_OFF 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull
#define R6_DISKS 8                // raid6_pq: data disks of a stripe
#define EN_EXTENT 131072          // extent_entropy: bytes an extent
#define EN_THREADS 256            // blockDim.x (a thread a histogram bin)

// super_features' transforms (set by the host): feature f = max over windows of c_m[f] h + c_a[f]
__constant__ unsigned int c_m[SF_NF];
__constant__ unsigned int c_a[SF_NF];

__device__ unsigned long long rotl64(unsigned long long x, int r) {
    return (x << r) | (x >> (64 - r));
}

__device__ unsigned long long xx_round(unsigned long long acc, unsigned long long w) {
    acc += w * XX_P2;
    acc = rotl64(acc, 31);
    return acc * XX_P1;
}

extern "C" {

// candidate cut points of the n-byte stream data in segments of seg bytes: cuts[s * GC_MAXC + k]
// the k-th position p of segment s (a chunk ends before byte p) where (gear hash of bytes .. p - 1)
// & GC_MASK == 0, ncut[s] how many the segment has
__global__ void gear_cdc(const unsigned char *data, const unsigned int *gear, int *cuts, int *ncut, int seg,
                         int n) {
    __shared__ unsigned int g[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) g[i] = gear[i];
    __syncthreads();
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    int start = s * seg;
    if (start >= n) return;
    int end = min(start + seg, n);
    unsigned int h = 0;
    for (int i = max(start - (GC_WIN - 1), 0); i < start; i++) h = (h << 1) + g[data[i]];
    int c = 0;
    for (int i = start; i < end; i++) {
        h = (h << 1) + g[data[i]];
        if ((h & GC_MASK) == 0) {
            if (c < GC_MAXC) cuts[s * GC_MAXC + c] = i + 1;
            c++;
        }
    }
    ncut[s] = c;
}

// fp[b] the fingerprint of the b-th FP_BLOCK-byte block of data (nblk blocks; blockDim.x a
// multiple of 32, a warp a block)
__global__ void block_fp(const unsigned long long *data, unsigned long long *fp, int nblk, unsigned long long seed) {
    int b = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (b >= nblk) return;
    const unsigned long long *p = data + b * (FP_BLOCK / 8);
    unsigned long long acc = seed + XX_P2 * (lane + 1);
    for (int k = lane; k < FP_BLOCK / 8; k += 32) acc = xx_round(acc, p[k]);
    for (int o = 16; o > 0; o >>= 1) {
        unsigned long long v = __shfl_down_sync(0xffffffff, acc, o);
        acc = (acc ^ xx_round(0, v)) * XX_P1 + XX_P4;
    }
    if (lane == 0) {
        unsigned long long h = acc + FP_BLOCK;
        h ^= h >> 33;
        h *= XX_P2;
        h ^= h >> 29;
        h *= XX_P3;
        h ^= h >> 32;
        fp[b] = h;
    }
}

// n fingerprints fp inserted into the table keys (cap_mask + 1 slots, a power of 2; empty
// slots HT_EMPTY): slot_of[i] the slot holding fp[i], is_new[i] 1 if this thread put it
// there, refs[slot] += 1
__global__ void fp_insert(const unsigned long long *fp, unsigned long long *keys, int *refs, int *slot_of,
                          int *is_new, unsigned int cap_mask, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long k = fp[i];
    unsigned int s = (unsigned int)k & cap_mask;
    int fresh = 0;
    for (;;) {
        unsigned long long prev = atomicCAS(&keys[s], HT_EMPTY, k);
        if (prev == HT_EMPTY) {
            fresh = 1;
            break;
        }
        if (prev == k) break;
        s = (s + 1) & cap_mask;
    }
    atomicAdd(&refs[s], 1);
    slot_of[i] = s;
    is_new[i] = fresh;
}

// the 3 super-features sf[c * 3 ..] of chunk c (bytes off[c] .. off[c + 1] - 1 of data, at
// least SF_WIN of them), a block of SF_THREADS a chunk
__global__ void super_features(const unsigned char *data, const int *off, unsigned long long *sf, int nchunk) {
    __shared__ unsigned int red[SF_NF][SF_THREADS];
    int c = blockIdx.x;
    int t = threadIdx.x;
    if (c >= nchunk) return;
    const unsigned char *p = data + off[c];
    int nwin = off[c + 1] - off[c] - SF_WIN + 1;
    int per = (nwin + SF_THREADS - 1) / SF_THREADS;
    int lo = t * per;
    int hi = min(lo + per, nwin);
    unsigned int mx[SF_NF];
    for (int f = 0; f < SF_NF; f++) mx[f] = 0;
    unsigned int h = 0;
    if (lo < hi)
        for (int k = 0; k < SF_WIN; k++) h = h * SF_B + p[lo + k];
    for (int i = lo; i < hi; i++) {
        if (i > lo) h = h * SF_B - p[i - 1] * SF_BW + p[i + SF_WIN - 1];
        for (int f = 0; f < SF_NF; f++) mx[f] = max(mx[f], c_m[f] * h + c_a[f]);
    }
    for (int f = 0; f < SF_NF; f++) red[f][t] = mx[f];
    __syncthreads();
    for (int s = SF_THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            for (int f = 0; f < SF_NF; f++) red[f][t] = max(red[f][t], red[f][t + s]);
        __syncthreads();
    }
    if (t < SF_NF / SF_PER) {
        unsigned long long x = FNV_OFF;
        for (int f = t * SF_PER; f < (t + 1) * SF_PER; f++) {
            unsigned int v = red[f][0];
            for (int b = 0; b < 4; b++) {
                x ^= (v >> (8 * b)) & 0xff;
                x *= FNV_PRIME;
            }
        }
        sf[c * (SF_NF / SF_PER) + t] = x;
    }
}

// P and Q parity words of nw-word strips: disk d's word w at data[d * nw + w]; gflog (256
// bytes) and gfexp (512 bytes, exp[i] = 2^i) the GF(2^8) tables
__global__ void raid6_pq(const unsigned int *data, const unsigned char *gflog, const unsigned char *gfexp,
                         unsigned int *P, unsigned int *Q, int nw) {
    __shared__ unsigned char lg[256];
    __shared__ unsigned char ex[512];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) lg[i] = gflog[i];
    for (int i = threadIdx.x; i < 512; i += blockDim.x) ex[i] = gfexp[i];
    __syncthreads();
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nw) return;
    unsigned int p = 0;
    unsigned int q = 0;
    for (int d = 0; d < R6_DISKS; d++) {
        unsigned int x = data[d * nw + w];
        p ^= x;
        for (int k = 0; k < 4; k++) {
            unsigned int b = (x >> (8 * k)) & 0xff;
            if (b != 0) q ^= (unsigned int)ex[lg[b] + d] << (8 * k);
        }
    }
    P[w] = p;
    Q[w] = q;
}

// extent e (EN_EXTENT bytes of data from e * EN_EXTENT): hist[e * 256 + v] its bytes of value
// v, ent[e] their Shannon entropy (bits a byte), compress[e] 1 if under limit (blockDim.x
// EN_THREADS)
__global__ void extent_entropy(const unsigned int *data, int *hist, float *ent, int *compress, float limit,
                               int next) {
    __shared__ int h[256];
    __shared__ float wsum[EN_THREADS / 32];
    int e = blockIdx.x;
    int t = threadIdx.x;
    if (e >= next) return;
    h[t] = 0;
    __syncthreads();
    const unsigned int *p = data + e * (EN_EXTENT / 4);
    for (int i = t; i < EN_EXTENT / 4; i += EN_THREADS) {
        unsigned int w = p[i];
        atomicAdd(&h[w & 0xff], 1);
        atomicAdd(&h[(w >> 8) & 0xff], 1);
        atomicAdd(&h[(w >> 16) & 0xff], 1);
        atomicAdd(&h[w >> 24], 1);
    }
    __syncthreads();
    int cnt = h[t];
    hist[e * 256 + t] = cnt;
    float s = 0.0f;
    if (cnt > 0) {
        float pr = (float)cnt / EN_EXTENT;
        s = -pr * log2f(pr);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
    if (t % 32 == 0) wsum[t / 32] = s;
    __syncthreads();
    if (t == 0) {
        float tot = 0.0f;
        for (int k = 0; k < EN_THREADS / 32; k++) tot += wsum[k];
        ent[e] = tot;
        compress[e] = tot < limit ? 1 : 0;
    }
}

}
