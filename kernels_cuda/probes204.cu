// probe-unseen202: a blockchain / cryptocurrency engineering course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - sha256d_scan: Bitcoin proof-of-work nonce search, a thread a nonce: the header's first 64
//    bytes' midstate and its last 12 bytes (the merkle root's tail, the time, nBits) in
//    __constant__ memory set by the host, the second block's compression with the nonce
//    byte-swapped in, then SHA-256 of that digest (the round constants in an initialised
//    __constant__ table, the message schedule a 64-word local array); a nonce whose hash (a
//    little-endian 256-bit number) has its top 32 bits at most the share target is appended
//    to found[] by a global atomicAdd on the count;
//  - merkle_roots: the merkle roots of many blocks' transaction lists (Bitcoin's rule: an odd
//    level's last node paired with itself), a block of MK_MAXTX threads a Bitcoin block: the
//    txids copied into shared memory, a thread a transaction, then a level at a time the
//    threads below the level's pair count each hashing a pair by SHA-256d (three compressions
//    of a 64-byte message), a __syncthreads, the hashes written over the level's first nodes,
//    another __syncthreads; the CVE-2012-2459 mutation check (two identical hashes paired)
//    OR-ed over the block with __syncthreads_or;
//  - utxo_fetch: the prevouts of a block's inputs looked up in a UTXO set held as an
//    open-addressing hash table of Coin structs (linear probing, the txid's first word mixed
//    with the output index as the hash), a thread an input: its 36-byte outpoint struct
//    loaded, slots probed until the outpoint or an empty slot, the coin's value (or -1 for a
//    missing coin, -2 for an immature coinbase) stored and atomicAdd-ed (64-bit) onto its
//    transaction's input sum, the errors counted by int atomics;
//  - secp_walk: the inner step of a vanity-address search on secp256k1, a thread a private
//    key: its public point (affine, 8 little-endian 32-bit limbs a coordinate) walked by
//    `steps` additions of the generator G in Jacobian coordinates (mixed addition, 8
//    multiplications and 3 squarings mod p a step: 8 x 8 limb schoolbook products with 64-bit
//    accumulators and the reduction by 2^256 = 2^32 + 977 mod p, all in local arrays); X, Y, Z
//    stored for the batch inversion of the next kernel;
//  - bloom_match: a BIP37 SPV node's bloom filter tested against a block's elements (txids,
//    outpoints, output script pushes: 20 to 36 bytes), the filter (bytes) copied into dynamic
//    shared memory, a grid-stride loop over the elements, a thread an element: nHashFuncs
//    MurmurHash3 (x86_32) over its bytes with seeds k 0xFBA4C795 + nTweak, each reduced mod the
//    filter's bits and tested, stopping at the first clear bit; the hit byte stored, the
//    transaction flagged by atomicOr, the hits counted a warp by __ballot_sync and __popc;
//  - feerate_hist: a fee-estimator's histogram of mempool transactions by fee rate (buckets
//    spaced by a factor of 1.05 from 1 sat/vB, as Bitcoin Core's estimator), a grid-stride
//    loop: the vsize from the weight, the rate by a float division, the bucket by logf and
//    floorf, the count and the vbytes added by shared int and float atomics, the fees summed
//    in double a thread, by __shfl_down_sync a warp and by a double atomicAdd; the blocks'
//    histograms added to global memory by atomics.

#define MK_MAXTX 1024           // merkle_roots: transactions a block at most
#define UT_EMPTY 0xFFFFFFFFu    // utxo_fetch: an empty slot's vout
#define UT_COINBASE 0x80000000u // a coinbase coin's height flag
#define UT_MATURITY 100         // blocks before a coinbase output can be spent
#define FH_NB 200               // feerate_hist: buckets
#define FH_SPACING 1.05f        // a bucket's upper rate / its lower rate
#define FE_LIMBS 8              // secp_walk: 32-bit limbs of a field element

// SHA-256's round constants and initial state
__constant__ unsigned int c_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
__constant__ unsigned int c_iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

// sha256d_scan's job (set by the host for each block template): the midstate after the
// header's first 64 bytes and the header's bytes 64 .. 75 as big-endian words
__constant__ unsigned int c_mid[8];
__constant__ unsigned int c_tail[3];

// secp256k1: the field prime p = 2^256 - 2^32 - 977 and the generator G (little-endian limbs)
__constant__ unsigned int c_p[FE_LIMBS] = {0xFFFFFC2F, 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFF,
                                           0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF};
__constant__ unsigned int c_gx[FE_LIMBS] = {0x16F81798, 0x59F2815B, 0x2DCE28D9, 0x029BFCDB,
                                            0xCE870B07, 0x55A06295, 0xF9DCBBAC, 0x79BE667E};
__constant__ unsigned int c_gy[FE_LIMBS] = {0xFB10D4B8, 0x9C47D08F, 0xA6855419, 0xFD17B448,
                                            0x0E1108A8, 0x5DA4FBFC, 0x26A3C465, 0x483ADA77};

// a coin of the UTXO set (48 bytes) and a transaction input's prevout (36 bytes)
struct Coin {
    unsigned int txid[8];       // the creating transaction's id (internal byte order, as words)
    unsigned int vout;          // its output index (UT_EMPTY: an empty slot)
    unsigned int height;        // the block height it was created at (| UT_COINBASE)
    unsigned long long value;   // satoshis
};

struct Outpoint {
    unsigned int txid[8];
    unsigned int vout;
};

__device__ unsigned int rotr(unsigned int x, int n) {
    return (x >> n) | (x << (32 - n));
}

__device__ unsigned int bswap32(unsigned int x) {
    return (x >> 24) | ((x >> 8) & 0xFF00) | ((x << 8) & 0xFF0000) | (x << 24);
}

// one SHA-256 compression of the 16 big-endian message words msg into the state st
__device__ void sha256_block(unsigned int *st, const unsigned int *msg) {
    unsigned int w[64];
    for (int i = 0; i < 16; i++) w[i] = msg[i];
    for (int i = 16; i < 64; i++) {
        unsigned int s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        unsigned int s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    unsigned int a = st[0], b = st[1], c = st[2], d = st[3];
    unsigned int e = st[4], f = st[5], g = st[6], h = st[7];
    for (int i = 0; i < 64; i++) {
        unsigned int S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        unsigned int ch = (e & f) ^ (~e & g);
        unsigned int t1 = h + S1 + ch + c_k[i] + w[i];
        unsigned int S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        unsigned int maj = (a & b) ^ (a & c) ^ (b & c);
        unsigned int t2 = S0 + maj;
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    st[0] += a;
    st[1] += b;
    st[2] += c;
    st[3] += d;
    st[4] += e;
    st[5] += f;
    st[6] += g;
    st[7] += h;
}

// SHA-256d of a 64-byte message (16 big-endian words) into out (8 words)
__device__ void sha256d_64(const unsigned int *in, unsigned int *out) {
    unsigned int st[8];
    unsigned int m[16];
    for (int k = 0; k < 8; k++) st[k] = c_iv[k];
    sha256_block(st, in);
    for (int k = 0; k < 16; k++) m[k] = 0;
    m[0] = 0x80000000;                  // the padding block of a 64-byte message
    m[15] = 512;
    sha256_block(st, m);
    for (int k = 0; k < 8; k++) m[k] = st[k];
    m[8] = 0x80000000;                  // the second hash: a 32-byte message
    m[15] = 256;
    for (int k = 0; k < 8; k++) out[k] = c_iv[k];
    sha256_block(out, m);
}

// ---- secp_walk's field arithmetic mod p ----

// a >= p ?
__device__ int fe_geq_p(const unsigned int *a) {
    for (int i = FE_LIMBS - 1; i >= 0; i--) {
        if (a[i] > c_p[i]) return 1;
        if (a[i] < c_p[i]) return 0;
    }
    return 1;
}

// r = a - p (a >= p)
__device__ void fe_sub_p(unsigned int *r) {
    unsigned long long borrow = 0;
    for (int i = 0; i < FE_LIMBS; i++) {
        unsigned long long d = (unsigned long long)r[i] - c_p[i] - borrow;
        r[i] = (unsigned int)d;
        borrow = (d >> 32) & 1;
    }
}

// r = a + b mod p
__device__ void fe_add(unsigned int *r, const unsigned int *a, const unsigned int *b) {
    unsigned long long c = 0;
    for (int i = 0; i < FE_LIMBS; i++) {
        c += (unsigned long long)a[i] + b[i];
        r[i] = (unsigned int)c;
        c >>= 32;
    }
    if (c || fe_geq_p(r)) fe_sub_p(r);
}

// r = a - b mod p
__device__ void fe_sub(unsigned int *r, const unsigned int *a, const unsigned int *b) {
    unsigned long long borrow = 0;
    for (int i = 0; i < FE_LIMBS; i++) {
        unsigned long long d = (unsigned long long)a[i] - b[i] - borrow;
        r[i] = (unsigned int)d;
        borrow = (d >> 32) & 1;
    }
    if (borrow) {                        // wrapped below 0: add p back
        unsigned long long c = 0;
        for (int i = 0; i < FE_LIMBS; i++) {
            c += (unsigned long long)r[i] + c_p[i];
            r[i] = (unsigned int)c;
            c >>= 32;
        }
    }
}

// r = a * b mod p
__device__ void fe_mul(unsigned int *r, const unsigned int *a, const unsigned int *b) {
    unsigned int t[2 * FE_LIMBS];
    for (int k = 0; k < 2 * FE_LIMBS; k++) t[k] = 0;
    for (int i = 0; i < FE_LIMBS; i++) {
        unsigned long long carry = 0;
        for (int j = 0; j < FE_LIMBS; j++) {
            unsigned long long x = (unsigned long long)a[i] * b[j] + t[i + j] + carry;
            t[i + j] = (unsigned int)x;
            carry = x >> 32;
        }
        t[i + FE_LIMBS] = (unsigned int)carry;
    }
    // t = lo + hi 2^256 = lo + hi (2^32 + 977) mod p
    unsigned int u[FE_LIMBS];
    unsigned long long c = 0;
    for (int i = 0; i < FE_LIMBS; i++) {
        c += (unsigned long long)t[FE_LIMBS + i] * 977 + t[i];
        if (i > 0) c += t[FE_LIMBS + i - 1];
        u[i] = (unsigned int)c;
        c >>= 32;
    }
    unsigned long long top = c + t[2 * FE_LIMBS - 1];      // < 2^34: fold it once more
    c = (unsigned long long)u[0] + top * 977;
    u[0] = (unsigned int)c;
    c >>= 32;
    c += (unsigned long long)u[1] + top;
    u[1] = (unsigned int)c;
    c >>= 32;
    for (int i = 2; i < FE_LIMBS; i++) {
        c += u[i];
        u[i] = (unsigned int)c;
        c >>= 32;
    }
    if (c) {                             // carried past 2^256 (u is small now): once more
        c = (unsigned long long)u[0] + 977;
        u[0] = (unsigned int)c;
        c >>= 32;
        c += (unsigned long long)u[1] + 1;
        u[1] = (unsigned int)c;
        c >>= 32;
        for (int i = 2; i < FE_LIMBS; i++) {
            c += u[i];
            u[i] = (unsigned int)c;
            c >>= 32;
        }
    }
    if (fe_geq_p(u)) fe_sub_p(u);
    for (int i = 0; i < FE_LIMBS; i++) r[i] = u[i];
}

// (X, Y, Z) += (x2, y2) in Jacobian coordinates (the "madd" formulas; P != +-Q assumed)
__device__ void point_madd(unsigned int *X, unsigned int *Y, unsigned int *Z, const unsigned int *x2,
                           const unsigned int *y2) {
    unsigned int z1z1[FE_LIMBS], u2[FE_LIMBS], s2[FE_LIMBS], h[FE_LIMBS], r[FE_LIMBS];
    unsigned int hh[FE_LIMBS], hhh[FE_LIMBS], v[FE_LIMBS], x3[FE_LIMBS], t[FE_LIMBS];
    fe_mul(z1z1, Z, Z);
    fe_mul(u2, x2, z1z1);
    fe_mul(s2, Z, z1z1);
    fe_mul(s2, y2, s2);
    fe_sub(h, u2, X);
    fe_sub(r, s2, Y);
    fe_mul(hh, h, h);
    fe_mul(hhh, h, hh);
    fe_mul(v, X, hh);
    fe_mul(x3, r, r);
    fe_sub(x3, x3, hhh);
    fe_sub(x3, x3, v);
    fe_sub(x3, x3, v);
    fe_sub(t, v, x3);
    fe_mul(t, r, t);
    fe_mul(s2, Y, hhh);
    fe_sub(Y, t, s2);
    fe_mul(Z, Z, h);
    for (int i = 0; i < FE_LIMBS; i++) X[i] = x3[i];
}

// ---- bloom_match's hash ----

__device__ unsigned int rotl(unsigned int x, int r) {
    return (x << r) | (x >> (32 - r));
}

// MurmurHash3 x86_32 of len bytes at d
__device__ unsigned int murmur3(unsigned int seed, const unsigned char *d, int len) {
    const unsigned int c1 = 0xcc9e2d51;
    const unsigned int c2 = 0x1b873593;
    unsigned int h = seed;
    int nblocks = len / 4;
    for (int b = 0; b < nblocks; b++) {
        unsigned int k = d[4 * b] | (d[4 * b + 1] << 8) | (d[4 * b + 2] << 16) | (d[4 * b + 3] << 24);
        k *= c1;
        k = rotl(k, 15);
        k *= c2;
        h ^= k;
        h = rotl(h, 13);
        h = h * 5 + 0xe6546b64;
    }
    const unsigned char *tail = d + nblocks * 4;
    unsigned int k = 0;
    switch (len & 3) {
    case 3:
        k ^= tail[2] << 16;
    case 2:
        k ^= tail[1] << 8;
    case 1:
        k ^= tail[0];
        k *= c1;
        k = rotl(k, 15);
        k *= c2;
        h ^= k;
    }
    h ^= len;
    h ^= h >> 16;
    h *= 0x85ebca6b;
    h ^= h >> 13;
    h *= 0xc2b2ae35;
    h ^= h >> 16;
    return h;
}

extern "C" {

// nonces nonce0 .. nonce0 + n - 1 (mod 2^32) tried on the job in c_mid / c_tail; those whose
// hash's top 32 bits are <= target written to found[] (the first maxfound), *nfound counted
__global__ void sha256d_scan(unsigned int nonce0, unsigned int target, unsigned int *found, int *nfound,
                             int maxfound, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int nonce = nonce0 + i;
    unsigned int m[16];
    m[0] = c_tail[0];
    m[1] = c_tail[1];
    m[2] = c_tail[2];
    m[3] = bswap32(nonce);              // the header's nonce is little-endian
    m[4] = 0x80000000;
    for (int k = 5; k < 15; k++) m[k] = 0;
    m[15] = 640;                        // 80 bytes
    unsigned int st[8];
    for (int k = 0; k < 8; k++) st[k] = c_mid[k];
    sha256_block(st, m);
    for (int k = 0; k < 8; k++) m[k] = st[k];
    m[8] = 0x80000000;
    for (int k = 9; k < 15; k++) m[k] = 0;
    m[15] = 256;
    for (int k = 0; k < 8; k++) st[k] = c_iv[k];
    sha256_block(st, m);
    // the hash read as a little-endian number: its top 32 bits are the last word's bytes reversed
    if (bswap32(st[7]) <= target) {
        int slot = atomicAdd(nfound, 1);
        if (slot < maxfound) found[slot] = nonce;
    }
}

// n blocks: block b's transactions first[b] .. first[b + 1] - 1 (at most MK_MAXTX ==
// blockDim.x), txid[8 t .. 8 t + 7] transaction t's id as big-endian words of its internal
// bytes; root[8 b ..] the merkle root, mutated[b] 1 if some level paired two identical hashes
__global__ void merkle_roots(const unsigned int *txid, const int *first, unsigned int *root, int *mutated,
                             int n) {
    __shared__ unsigned int s_h[MK_MAXTX * 8];
    int b = blockIdx.x;
    int t = threadIdx.x;
    int base = first[b];
    int m = first[b + 1] - base;
    if (t < m) {
        for (int k = 0; k < 8; k++) s_h[t * 8 + k] = txid[(base + t) * 8 + k];
    }
    __syncthreads();
    int mut = 0;
    while (m > 1) {                     // a level: thread t hashes pair t
        int pairs = (m + 1) / 2;
        unsigned int h[8];
        if (t < pairs) {
            unsigned int w[16];
            int l = 2 * t;
            int r = l + 1 < m ? l + 1 : l;  // an odd count: the last one hashed with itself
            int same = 1;
            for (int k = 0; k < 8; k++) {
                w[k] = s_h[l * 8 + k];
                w[8 + k] = s_h[r * 8 + k];
                if (w[k] != w[8 + k]) same = 0;
            }
            if (same && r != l) mut = 1;
            sha256d_64(w, h);
        }
        __syncthreads();                // everyone has read the level before it is overwritten
        if (t < pairs) {
            for (int k = 0; k < 8; k++) s_h[t * 8 + k] = h[k];
        }
        __syncthreads();
        m = pairs;
    }
    int any = __syncthreads_or(mut);
    if (t < 8) root[b * 8 + t] = s_h[t];
    if (t == 0) mutated[b] = any;
}

// n inputs: prevout[i] the coin input i spends, tx_of[i] its transaction; the UTXO set's
// mask + 1 slots; value[i] the coin's value, -1 if not in the set, -2 for a coinbase output
// younger than UT_MATURITY blocks at spend_height; in_sum[tx] += the values found,
// errors[0] the missing coins, errors[1] the immature ones
__global__ void utxo_fetch(const Coin *set, unsigned int mask, const Outpoint *prevout, const int *tx_of,
                           int spend_height, long long *value, unsigned long long *in_sum, int *errors, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Outpoint op = prevout[i];
    unsigned int slot = (op.txid[0] ^ (op.vout * 0x9E3779B1u)) & mask;
    long long v = -1;
    while (1) {
        const Coin *c = &set[slot];
        if (c->vout == UT_EMPTY) break;          // an empty slot: not in the set
        if (c->vout == op.vout) {
            int same = 1;
            for (int k = 0; k < 8; k++) {
                if (c->txid[k] != op.txid[k]) {
                    same = 0;
                    break;
                }
            }
            if (same) {
                unsigned int h = c->height;
                if ((h & UT_COINBASE) && spend_height - (int)(h & ~UT_COINBASE) < UT_MATURITY)
                    v = -2;
                else
                    v = (long long)c->value;
                break;
            }
        }
        slot = (slot + 1) & mask;
    }
    value[i] = v;
    if (v >= 0)
        atomicAdd(&in_sum[tx_of[i]], (unsigned long long)v);
    else
        atomicAdd(&errors[-v - 1], 1);
}

// n keys: (px, py)[8 i .. 8 i + 7] key i's public point (affine, little-endian limbs); (ox,
// oy, oz) the point plus steps G in Jacobian coordinates
__global__ void secp_walk(const unsigned int *px, const unsigned int *py, unsigned int *ox, unsigned int *oy,
                          unsigned int *oz, int steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int X[FE_LIMBS], Y[FE_LIMBS], Z[FE_LIMBS], gx[FE_LIMBS], gy[FE_LIMBS];
    for (int k = 0; k < FE_LIMBS; k++) {
        X[k] = px[i * FE_LIMBS + k];
        Y[k] = py[i * FE_LIMBS + k];
        Z[k] = k == 0;
        gx[k] = c_gx[k];
        gy[k] = c_gy[k];
    }
    for (int s = 0; s < steps; s++) point_madd(X, Y, Z, gx, gy);
    for (int k = 0; k < FE_LIMBS; k++) {
        ox[i * FE_LIMBS + k] = X[k];
        oy[i * FE_LIMBS + k] = Y[k];
        oz[i * FE_LIMBS + k] = Z[k];
    }
}

// n elements: element e's bytes data[start[e] .. start[e + 1] - 1], of transaction tx_of[e];
// the BIP37 filter's nbytes bytes (dynamic shared memory of nbytes), nhash functions, tweak;
// hit[e] 1 if the filter matches, tx_match[tx] |= 1, *nhits += the hits
__global__ void bloom_match(const unsigned char *filter, int nbytes, int nhash, unsigned int tweak,
                            const unsigned char *data, const int *start, const int *tx_of, unsigned char *hit,
                            int *tx_match, int *nhits, int n) {
    extern __shared__ unsigned char s_filt[];
    for (int i = threadIdx.x; i < nbytes; i += blockDim.x) s_filt[i] = filter[i];
    __syncthreads();
    unsigned int nbits = nbytes * 8;
    for (int base = blockIdx.x * blockDim.x; base < n; base += blockDim.x * gridDim.x) {
        int e = base + threadIdx.x;
        int match = 0;
        if (e < n) {
            int s = start[e];
            int len = start[e + 1] - s;
            match = 1;
            for (int k = 0; k < nhash; k++) {
                unsigned int bit = murmur3(k * 0xFBA4C795u + tweak, data + s, len) % nbits;
                if (!(s_filt[bit >> 3] & (1 << (bit & 7)))) {
                    match = 0;
                    break;
                }
            }
            hit[e] = match;
            if (match) atomicOr(&tx_match[tx_of[e]], 1);
        }
        unsigned int votes = __ballot_sync(0xffffffff, match);
        if ((threadIdx.x & 31) == 0 && votes) atomicAdd(nhits, __popc(votes));
    }
}

// n transactions: fee[i] satoshis, weight[i] weight units; count[b] and vbytes[b] the
// transactions and vbytes of fee-rate bucket b (rates FH_SPACING^b .. FH_SPACING^(b+1) sat/vB,
// the first also every lower rate, the last every higher one), *total_fee += the fees
__global__ void feerate_hist(const unsigned long long *fee, const unsigned int *weight, int *count, float *vbytes,
                             double *total_fee, int n) {
    __shared__ int s_cnt[FH_NB];
    __shared__ float s_vb[FH_NB];
    for (int b = threadIdx.x; b < FH_NB; b += blockDim.x) {
        s_cnt[b] = 0;
        s_vb[b] = 0.0f;
    }
    __syncthreads();
    double my_fee = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned int vsize = (weight[i] + 3) / 4;
        unsigned long long f = fee[i];
        float rate = (float)f / (float)vsize;
        int b = (int)floorf(logf(fmaxf(rate, 1.0f)) / logf(FH_SPACING));
        b = min(b, FH_NB - 1);
        atomicAdd(&s_cnt[b], 1);
        atomicAdd(&s_vb[b], (float)vsize);
        my_fee += (double)f;
    }
    for (int o = 16; o > 0; o >>= 1) my_fee += __shfl_down_sync(0xffffffff, my_fee, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(total_fee, my_fee);
    __syncthreads();
    for (int b = threadIdx.x; b < FH_NB; b += blockDim.x) {
        if (s_cnt[b] > 0) {
            atomicAdd(&count[b], s_cnt[b]);
            atomicAdd(&vbytes[b], s_vb[b]);
        }
    }
}

}
