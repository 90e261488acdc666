// probe-unseen227: a post-quantum / lattice-based cryptography course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - kyber_ntt: Kyber's forward number-theoretic transform (n = 256, q = 3329), a block of
//    128 threads a polynomial: the 256 int16 coefficients in shared memory, the 7 layers
//    of Cooley-Tukey butterflies of the reference code (a thread a butterfly, the zeta of
//    its group from a __constant__ table in the Montgomery domain, Montgomery
//    multiplication), a __syncthreads a layer, then Barrett reduction to the centred
//    representative on the way out;
//  - dilithium_sign_z: Dilithium2's signing step z = y + c s1 with its rejection test, c s1
//    by schoolbook negacyclic multiplication in Z[X]/(X^256 + 1), a block a (signing
//    attempt, polynomial of s1), a thread an output coefficient: a loop over c's 256
//    int8 coefficients (the same address across the warp), the zero ones skipped (c has
//    39 nonzero +-1), the wrapped products subtracted; |z| >= gamma1 - beta found by
//    __syncthreads_or and one global atomicOr a block;
//  - kyber_rej_uniform: Kyber's SampleNTT / Parse, uniform coefficients mod q by rejection
//    from the XOF's byte stream (504 bytes: 3 SHAKE-128 blocks), a warp a polynomial: each
//    lane splits a 3-byte triple into two 12-bit candidates, the accepted ones (< q) placed
//    in order by __ballot_sync and __popc of the lanes below, a warp-uniform loop until 256
//    are accepted; the polynomials the stream runs short for listed by a global atomicAdd
//    (the host squeezes more for them);
//  - kyber_prf_cbd: Kyber's secret and error polynomials, a thread a polynomial: PRF =
//    SHAKE-256(seed || nonce) by a Keccak-f[1600] on a per-thread state of 25 64-bit lanes
//    (the rounds of the reference code's fips202.c, the lanes written out, the round
//    constants from a __constant__ table), 128 squeezed bytes into a local byte buffer and
//    from it a centred binomial sample of eta = 2 by masks and shifts (cbd2), the 256 int16
//    coefficients stored by the thread;
//  - kyber_compress_du: Kyber-768 ciphertext compression of u (d_u = 10), a grid-stride
//    loop over groups of 4 coefficients: round(2^10 x / q) by an integer division, 4
//    10-bit values packed into 5 bytes, and the compression noise (decompress, the
//    centred difference, -2 .. 2) counted in a shared histogram of 5 bins (contended
//    shared atomics) flushed by global atomics;
//  - falcon_samplerz: Falcon-512's SamplerZ at the leaves of ffSampling, a block a
//    signature's 512 leaves (structs of the centre and sigma'), a thread 2 of them: the
//    half-Gaussian base sampler by a __constant__ reverse CDT of doubles (a constant-time
//    scan), a sign bit, the rejection by exp in double (BerExp with sigma_min / sigma') in
//    a divergent loop, a per-thread splitmix64 stream standing in for ChaCha20; the
//    signature's squared distance to its centres by double warp shuffles and shared
//    memory, the rejections counted by an int shuffle sum and a global atomicAdd a warp.

#define KYBER_Q 3329
#define KYBER_N 256
#define QINV -3327              // q^-1 mod 2^16 (as an int16)

#define DIL_N 256
#define DIL_L 4                 // Dilithium2: s1 and y are L = 4 polynomials
#define DIL_TAU 39              // the challenge's nonzero coefficients
#define DIL_GAMMA1 (1 << 17)    // y's range
#define DIL_BETA 78             // tau * eta

#define REJ_BYTES 504           // kyber_rej_uniform: 3 blocks of SHAKE-128 (rate 168)
#define REJ_TRIPLES (REJ_BYTES / 3)

#define ETA 2                   // kyber_prf_cbd: Kyber-768's eta1
#define KECCAK_ROUNDS 24

#define DU 10                   // kyber_compress_du: bits a compressed u coefficient
#define NOISE_BINS 5            // compression noise -2 .. 2

#define FALCON_N 512
#define SIGMA_MIN 1.2778336969128337    // Falcon-512
#define SIGMA_MAX 1.8205
#define INV_2SIGMA2_MAX (1.0 / (2.0 * SIGMA_MAX * SIGMA_MAX))
#define RCDT_LEN 18
#define SZ_WARPS 8              // falcon_samplerz: the block's warps (256 threads)

#define FULL_MASK 0xffffffffu

// Kyber's zetas: 17^bitrev7(k) * 2^16 mod q, centred (the reference code's table)
__constant__ short c_zetas[128] = {
    -1044, -758, -359, -1517, 1493, 1422, 287, 202, -171, 622, 1577, 182, 962, -1202, -1474, 1468,
    573, -1325, 264, 383, -829, 1458, -1602, -130, -681, 1017, 732, 608, -1542, 411, -205, -1571,
    1223, 652, -552, 1015, -1293, 1491, -282, -1544, 516, -8, -320, -666, -1618, -1162, 126, 1469,
    -853, -90, -271, 830, 107, -1421, -247, -951, -398, 961, -1508, -725, 448, -1065, 677, -1275,
    -1103, 430, 555, 843, -1251, 871, 1550, 105, 422, 587, 177, -235, -291, -460, 1574, 1653,
    -246, 778, 1159, -147, -777, 1483, -602, 1119, -1590, 644, -872, 349, 418, 329, -156, -75,
    817, 1097, 603, 610, 1322, -1285, -1465, 384, -1215, -136, 1218, -1335, -874, 220, -1187, -1659,
    -1185, -1530, -1278, 794, -1510, -854, -870, 478, -108, -308, 996, 991, 958, -1460, 1522, 1628};

// Keccak-f[1600]'s round constants
__constant__ unsigned long long c_keccak_rc[KECCAK_ROUNDS] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL};

// Falcon's base sampler: P(z0 > k) of the half-Gaussian of sigma_max (set by the host)
__constant__ double c_rcdt[RCDT_LEN];

// one leaf of ffSampling: the centre and sigma' = sigma / |b~_i|
struct FalconLeaf {
    double mu;
    double sigma;
};

// ---------------------------------------------------------------- helpers

__device__ short montgomery_reduce(int a) {
    short t;
    t = (short)a * QINV;
    t = (a - (int)t * KYBER_Q) >> 16;
    return t;
}

__device__ short fqmul(short a, short b) {
    return montgomery_reduce((int)a * b);
}

__device__ short barrett_reduce(short a) {
    const short v = ((1 << 26) + KYBER_Q / 2) / KYBER_Q;
    short t = ((int)v * a + (1 << 25)) >> 26;
    t *= KYBER_Q;
    return a - t;
}

__device__ unsigned long long rotl64(unsigned long long x, int n) {
    return (x << n) | (x >> (64 - n));
}

// one round a trip, the lanes written out as in the reference code's fips202.c: theta's
// column parities, rho and pi into b, chi back into the state, iota
__device__ void keccakf(unsigned long long s[25]) {
    for (int r = 0; r < KECCAK_ROUNDS; r++) {
        unsigned long long c0 = s[0] ^ s[5] ^ s[10] ^ s[15] ^ s[20];
        unsigned long long c1 = s[1] ^ s[6] ^ s[11] ^ s[16] ^ s[21];
        unsigned long long c2 = s[2] ^ s[7] ^ s[12] ^ s[17] ^ s[22];
        unsigned long long c3 = s[3] ^ s[8] ^ s[13] ^ s[18] ^ s[23];
        unsigned long long c4 = s[4] ^ s[9] ^ s[14] ^ s[19] ^ s[24];
        unsigned long long d0 = c4 ^ rotl64(c1, 1);
        unsigned long long d1 = c0 ^ rotl64(c2, 1);
        unsigned long long d2 = c1 ^ rotl64(c3, 1);
        unsigned long long d3 = c2 ^ rotl64(c4, 1);
        unsigned long long d4 = c3 ^ rotl64(c0, 1);
        // rho and pi: b[y][2x + 3y] = rot(a[x][y] ^ d[x], r[x][y])
        unsigned long long b00 = s[0] ^ d0;
        unsigned long long b01 = rotl64(s[6] ^ d1, 44);
        unsigned long long b02 = rotl64(s[12] ^ d2, 43);
        unsigned long long b03 = rotl64(s[18] ^ d3, 21);
        unsigned long long b04 = rotl64(s[24] ^ d4, 14);
        unsigned long long b05 = rotl64(s[3] ^ d3, 28);
        unsigned long long b06 = rotl64(s[9] ^ d4, 20);
        unsigned long long b07 = rotl64(s[10] ^ d0, 3);
        unsigned long long b08 = rotl64(s[16] ^ d1, 45);
        unsigned long long b09 = rotl64(s[22] ^ d2, 61);
        unsigned long long b10 = rotl64(s[1] ^ d1, 1);
        unsigned long long b11 = rotl64(s[7] ^ d2, 6);
        unsigned long long b12 = rotl64(s[13] ^ d3, 25);
        unsigned long long b13 = rotl64(s[19] ^ d4, 8);
        unsigned long long b14 = rotl64(s[20] ^ d0, 18);
        unsigned long long b15 = rotl64(s[4] ^ d4, 27);
        unsigned long long b16 = rotl64(s[5] ^ d0, 36);
        unsigned long long b17 = rotl64(s[11] ^ d1, 10);
        unsigned long long b18 = rotl64(s[17] ^ d2, 15);
        unsigned long long b19 = rotl64(s[23] ^ d3, 56);
        unsigned long long b20 = rotl64(s[2] ^ d2, 62);
        unsigned long long b21 = rotl64(s[8] ^ d3, 55);
        unsigned long long b22 = rotl64(s[14] ^ d4, 39);
        unsigned long long b23 = rotl64(s[15] ^ d0, 41);
        unsigned long long b24 = rotl64(s[21] ^ d1, 2);
        // chi
        s[0] = b00 ^ (~b01 & b02);
        s[1] = b01 ^ (~b02 & b03);
        s[2] = b02 ^ (~b03 & b04);
        s[3] = b03 ^ (~b04 & b00);
        s[4] = b04 ^ (~b00 & b01);
        s[5] = b05 ^ (~b06 & b07);
        s[6] = b06 ^ (~b07 & b08);
        s[7] = b07 ^ (~b08 & b09);
        s[8] = b08 ^ (~b09 & b05);
        s[9] = b09 ^ (~b05 & b06);
        s[10] = b10 ^ (~b11 & b12);
        s[11] = b11 ^ (~b12 & b13);
        s[12] = b12 ^ (~b13 & b14);
        s[13] = b13 ^ (~b14 & b10);
        s[14] = b14 ^ (~b10 & b11);
        s[15] = b15 ^ (~b16 & b17);
        s[16] = b16 ^ (~b17 & b18);
        s[17] = b17 ^ (~b18 & b19);
        s[18] = b18 ^ (~b19 & b15);
        s[19] = b19 ^ (~b15 & b16);
        s[20] = b20 ^ (~b21 & b22);
        s[21] = b21 ^ (~b22 & b23);
        s[22] = b22 ^ (~b23 & b24);
        s[23] = b23 ^ (~b24 & b20);
        s[24] = b24 ^ (~b20 & b21);
        // iota
        s[0] ^= c_keccak_rc[r];
    }
}

__device__ unsigned long long splitmix64(unsigned long long &s) {
    s += 0x9E3779B97F4A7C15ULL;
    unsigned long long z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__device__ double uniform01(unsigned long long &s) {
    return (double)(splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
}

extern "C" {

// ---------------------------------------------------------------- kyber_ntt

// npoly polynomials of 256 int16 coefficients (|a| < q); out: their NTTs (bit-reversed
// order, as the reference code), coefficients in -(q-1)/2 .. (q-1)/2
__global__ void kyber_ntt(const short *in, short *out, int npoly) {
    __shared__ short s[KYBER_N];
    int p = blockIdx.x;
    int t = threadIdx.x;
    if (p >= npoly) return;
    s[t] = in[p * KYBER_N + t];
    s[t + 128] = in[p * KYBER_N + t + 128];
    __syncthreads();
    for (int len = 128; len >= 2; len >>= 1) {
        int grp = t / len;
        int j = grp * 2 * len + t % len;
        short zeta = c_zetas[128 / len + grp];
        short v = fqmul(zeta, s[j + len]);
        short u = s[j];
        s[j + len] = u - v;
        s[j] = u + v;
        __syncthreads();
    }
    out[p * KYBER_N + t] = barrett_reduce(s[t]);
    out[p * KYBER_N + t + 128] = barrett_reduce(s[t + 128]);
}

// ---------------------------------------------------------------- dilithium_sign_z

// nsig signing attempts: the challenge c (256 int8: DIL_TAU of them +-1, the rest 0), the
// key's s1 (L polynomials, int8 in -eta .. eta), the masking vector y (L polynomials, int32
// in -(gamma1 - 1) .. gamma1); z = y + c s1 in Z[X]/(X^256 + 1) (small: no reduction mod q),
// reject[sig] |= 1 << m where polynomial m has a coefficient with |z| >= gamma1 - beta
__global__ void dilithium_sign_z(const signed char *c, const signed char *s1, const int *y, int *z, int *reject,
                                 int nsig) {
    int sig = blockIdx.x;
    int m = blockIdx.y;
    int i = threadIdx.x;
    if (sig >= nsig) return;
    const signed char *cc = c + (long long)sig * DIL_N;
    const signed char *s = s1 + ((long long)sig * DIL_L + m) * DIL_N;
    int acc = 0;
    for (int j = 0; j < DIL_N; j++) {
        int cj = cc[j];
        if (cj == 0) continue;              // c is sparse: 39 of 256
        int k = i - j;
        if (k >= 0)
            acc += cj * s[k];
        else
            acc -= cj * s[k + DIL_N];       // X^256 = -1
    }
    long long o = ((long long)sig * DIL_L + m) * DIL_N + i;
    int zi = y[o] + acc;
    z[o] = zi;
    int bad = zi >= DIL_GAMMA1 - DIL_BETA || zi <= -(DIL_GAMMA1 - DIL_BETA);
    if (__syncthreads_or(bad) && i == 0) atomicOr(&reject[sig], 1 << m);
}

// ---------------------------------------------------------------- kyber_rej_uniform

// npoly byte streams of REJ_BYTES; polys: the accepted coefficients in order (the first
// 256); the polynomials with fewer than 256 appended to short_list (*nshort their count)
__global__ void kyber_rej_uniform(const unsigned char *buf, short *polys, int npoly, int *nshort, int *short_list) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (warp >= npoly) return;
    const unsigned char *b = buf + (long long)warp * REJ_BYTES;
    short *r = polys + (long long)warp * KYBER_N;
    unsigned int below = (1u << lane) - 1;
    int cnt = 0;
    for (int base = 0; base < REJ_TRIPLES && cnt < KYBER_N; base += 32) {
        int tr = base + lane;
        unsigned int d1 = 0, d2 = 0;
        bool ok1 = false, ok2 = false;
        if (tr < REJ_TRIPLES) {
            unsigned int b0 = b[3 * tr], b1 = b[3 * tr + 1], b2 = b[3 * tr + 2];
            d1 = (b0 | (b1 << 8)) & 0xFFF;
            d2 = ((b1 >> 4) | (b2 << 4)) & 0xFFF;
            ok1 = d1 < KYBER_Q;
            ok2 = d2 < KYBER_Q;
        }
        unsigned int m1 = __ballot_sync(FULL_MASK, ok1);
        unsigned int m2 = __ballot_sync(FULL_MASK, ok2);
        int pos = cnt + __popc(m1 & below) + __popc(m2 & below);
        if (ok1 && pos < KYBER_N) r[pos] = (short)d1;
        if (ok1) pos++;
        if (ok2 && pos < KYBER_N) r[pos] = (short)d2;
        cnt += __popc(m1) + __popc(m2);
    }
    if (lane == 0 && cnt < KYBER_N) {
        int k = atomicAdd(nshort, 1);
        short_list[k] = warp;
    }
}

// ---------------------------------------------------------------- kyber_prf_cbd

// nkeys 32-byte seeds, npk polynomials a key (nonces 0 .. npk-1): polys[key * npk + nonce]
// = CBD_eta(SHAKE-256(seed || nonce)), int16 coefficients in -2 .. 2
__global__ void kyber_prf_cbd(const unsigned char *seeds, short *polys, int nkeys, int npk) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= nkeys * npk) return;
    int key = id / npk;
    int nonce = id % npk;
    unsigned long long st[25];
    for (int i = 0; i < 25; i++) st[i] = 0;
    // absorb the seed (32 bytes, little-endian lanes), the nonce, SHAKE's padding
    for (int i = 0; i < 4; i++) {
        unsigned long long w = 0;
        for (int k = 0; k < 8; k++)
            w |= (unsigned long long)seeds[key * 32 + 8 * i + k] << (8 * k);
        st[i] ^= w;
    }
    st[4] ^= (unsigned long long)nonce | (0x1FULL << 8);
    st[16] ^= 0x8000000000000000ULL;        // the last byte of the 136-byte rate
    keccakf(st);
    // squeeze 64 * ETA = 128 bytes (16 lanes, little-endian)
    unsigned char buf[64 * ETA];
    for (int i = 0; i < 64 * ETA / 8; i++)
        for (int k = 0; k < 8; k++)
            buf[8 * i + k] = (unsigned char)(st[i] >> (8 * k));
    // CBD_2: 4 bytes to 8 coefficients, a - b of bit pairs
    short *r = polys + (long long)id * KYBER_N;
    for (int i = 0; i < KYBER_N / 8; i++) {
        unsigned int w = buf[4 * i] | (buf[4 * i + 1] << 8) | (buf[4 * i + 2] << 16) | ((unsigned int)buf[4 * i + 3] << 24);
        unsigned int d = w & 0x55555555;
        d += (w >> 1) & 0x55555555;
        for (int j = 0; j < 8; j++) {
            short a = (d >> (4 * j)) & 0x3;
            short bb = (d >> (4 * j + 2)) & 0x3;
            r[8 * i + j] = a - bb;
        }
    }
}

// ---------------------------------------------------------------- kyber_compress_du

// ngroups groups of 4 coefficients in 0 .. q-1: ct 5 bytes a group (4 x 10 bits,
// little-endian), hist[e + 2] += the coefficients whose compression noise is e
__global__ void kyber_compress_du(const short *u, unsigned char *ct, int ngroups, unsigned int *hist) {
    __shared__ unsigned int s_hist[NOISE_BINS];
    if (threadIdx.x < NOISE_BINS) s_hist[threadIdx.x] = 0;
    __syncthreads();
    for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < ngroups; g += gridDim.x * blockDim.x) {
        unsigned short t[4];
        for (int k = 0; k < 4; k++) {
            unsigned int x = (unsigned short)u[4 * g + k];
            t[k] = (((x << DU) + KYBER_Q / 2) / KYBER_Q) & ((1 << DU) - 1);
            // decompress and the noise, centred mod q
            int y = ((int)t[k] * KYBER_Q + (1 << (DU - 1))) >> DU;
            int e = y - (int)x;
            if (e > KYBER_Q / 2) e -= KYBER_Q;
            if (e < -(KYBER_Q / 2)) e += KYBER_Q;
            atomicAdd(&s_hist[e + 2], 1u);
        }
        unsigned char *o = ct + 5 * (long long)g;
        o[0] = (unsigned char)t[0];
        o[1] = (unsigned char)((t[0] >> 8) | (t[1] << 2));
        o[2] = (unsigned char)((t[1] >> 6) | (t[2] << 4));
        o[3] = (unsigned char)((t[2] >> 4) | (t[3] << 6));
        o[4] = (unsigned char)(t[3] >> 2);
    }
    __syncthreads();
    if (threadIdx.x < NOISE_BINS && s_hist[threadIdx.x] > 0) atomicAdd(&hist[threadIdx.x], s_hist[threadIdx.x]);
}

// ---------------------------------------------------------------- falcon_samplerz

// nsig signatures of FALCON_N leaves; z: the samples (int16), norm2[sig] = sum (z - mu)^2,
// *nrej += the rejected tries, *nlong += the signatures with norm2 above bound2
__global__ void falcon_samplerz(const FalconLeaf *leaves, short *z, double *norm2, int nsig,
                                unsigned long long seed, double bound2, int *nrej, int *nlong) {
    __shared__ double s_part[SZ_WARPS];
    int sig = blockIdx.x;
    int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
    if (sig >= nsig) return;
    double sq = 0.0;
    int rej = 0;
    for (int c = threadIdx.x; c < FALCON_N; c += blockDim.x) {
        long long gid = (long long)sig * FALCON_N + c;
        unsigned long long st = seed + (unsigned long long)gid;
        FalconLeaf lf = leaves[gid];
        double s = floor(lf.mu);
        double r = lf.mu - s;
        double dss = 1.0 / (2.0 * lf.sigma * lf.sigma);
        double ccs = SIGMA_MIN / lf.sigma;
        int zz;
        while (true) {
            // the base sampler: z0 >= 0, half-Gaussian of sigma_max
            double u = uniform01(st);
            int z0 = 0;
            for (int k = 0; k < RCDT_LEN; k++)
                if (u < c_rcdt[k]) z0++;
            int b = (int)(splitmix64(st) & 1);
            int zc = b + (2 * b - 1) * z0;
            double x = (zc - r) * (zc - r) * dss - z0 * z0 * INV_2SIGMA2_MAX;
            double p = ccs * exp(-x);
            if (uniform01(st) < p) {
                zz = zc;
                break;
            }
            rej++;
        }
        int zi = (int)s + zz;
        z[gid] = (short)zi;
        double d = zi - lf.mu;
        sq += d * d;
    }
    for (int o = 16; o > 0; o /= 2) {
        sq += __shfl_down_sync(FULL_MASK, sq, o);
        rej += __shfl_down_sync(FULL_MASK, rej, o);
    }
    if (lane == 0) {
        s_part[wid] = sq;
        if (rej > 0) atomicAdd(nrej, rej);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double tot = 0.0;
        for (int w = 0; w < blockDim.x / 32; w++) tot += s_part[w];
        norm2[sig] = tot;
        if (tot > bound2) atomicAdd(nlong, 1);
    }
}

}
