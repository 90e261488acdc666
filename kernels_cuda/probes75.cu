// probe-unseen73: an applied-cryptography / computer-security course's CUDA assignments,
// as a student who knows CUDA basics hands them in: a brute-force search for a 6-digit PIN
// whose salted SHA-256 (salt || the PIN's ASCII digits, one padded block) matches a leaked
// digest, a thread trying PINs a grid-stride apart and every thread giving up as soon as a
// volatile "found" flag is set; AES-128 in counter mode with the four encryption T-tables,
// the S-box and the round keys staged in shared memory, a thread a 16-byte block (the
// counter block nonce || block index, the keystream XORed onto the plaintext); an RC4-drop
// keystream generator, a thread a 16-byte key, its 256-byte permutation a local array (the
// key schedule, 256 bytes discarded, then RC4_OUT bytes kept); a Miller-Rabin primality
// test of random 64-bit odd candidates (an RSA key-generation step) with Montgomery
// multiplication by __umul64hi and the 7 bases that make it deterministic below 2^64 in
// __constant__ memory, composites usually leaving after the first base, primes running all
// seven, the primes counted by atomicAdd; a Bloom-filter membership test (candidate
// passwords' 64-bit hashes against a filter of breached ones), BLOOM_K bit probes by double
// hashing, a query stopping at its first clear bit; and the frequency analysis that breaks
// a repeating-key XOR cipher, a histogram of the ciphertext's bytes for each position modulo
// the guessed key length, privatized a block in shared memory by atomicAdd and merged into
// the global histogram by one atomicAdd a non-zero bin.

#define PIN_DIGITS 6          // pin_crack: the PIN's digits (the message salt || digits)
#define SALT_WORDS 4          // pin_crack: a 16-byte salt
#define RC4_KEYLEN 16         // rc4_drop: key bytes
#define RC4_DROP 256          // rc4_drop: keystream bytes discarded (RC4-drop[256])
#define RC4_OUT 16            // rc4_drop: keystream bytes kept a key
#define MR_BASES 7            // miller_rabin64: witnesses (deterministic for 64-bit n)
#define BLOOM_K 7             // bloom_query: bit probes a key
#define XK_MAXLEN 32          // xor_pos_hist: the longest key length histogrammed

// SHA-256's round constants
__constant__ unsigned int c_k256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

// Miller-Rabin witnesses: with these seven the test is exact for every n < 2^64
__constant__ unsigned long long c_mr_bases[MR_BASES] = {2ull, 325ull, 9375ull, 28178ull, 450775ull, 9780504ull,
                                                        1795265022ull};

extern "C" {

__device__ unsigned int rotr32(unsigned int x, int r) {
    return (x >> r) | (x << (32 - r));
}

// SHA-256 of one padded 64-byte block m (16 big-endian words) into h (8 words)
__device__ void sha256_block(const unsigned int *m, unsigned int *h) {
    unsigned int w[64];
    for (int t = 0; t < 16; t++) w[t] = m[t];
    for (int t = 16; t < 64; t++) {
        unsigned int s0 = rotr32(w[t - 15], 7) ^ rotr32(w[t - 15], 18) ^ (w[t - 15] >> 3);
        unsigned int s1 = rotr32(w[t - 2], 17) ^ rotr32(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    unsigned int a = 0x6a09e667, b = 0xbb67ae85, c = 0x3c6ef372, d = 0xa54ff53a;
    unsigned int e = 0x510e527f, f = 0x9b05688c, g = 0x1f83d9ab, hh = 0x5be0cd19;
    for (int t = 0; t < 64; t++) {
        unsigned int S1 = rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25);
        unsigned int ch = (e & f) ^ (~e & g);
        unsigned int t1 = hh + S1 + ch + c_k256[t] + w[t];
        unsigned int S0 = rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22);
        unsigned int maj = (a & b) ^ (a & c) ^ (b & c);
        unsigned int t2 = S0 + maj;
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] = a + 0x6a09e667;
    h[1] = b + 0xbb67ae85;
    h[2] = c + 0x3c6ef372;
    h[3] = d + 0xa54ff53a;
    h[4] = e + 0x510e527f;
    h[5] = f + 0x9b05688c;
    h[6] = g + 0x1f83d9ab;
    h[7] = hh + 0x5be0cd19;
}

// the PINs 0 .. n_pins - 1 (n_pins <= 10^PIN_DIGITS) against the leaked digest target
// (8 words): SHA-256 of salt (SALT_WORDS big-endian words) || the PIN's PIN_DIGITS ASCII
// digits; a thread tries the PINs a grid apart, stopping once *found is set; the match
// stores its PIN in *found_pin and sets *found (atomicExch)
__global__ void pin_crack(const unsigned int *salt, const unsigned int *target, volatile int *found,
                          int *found_pin, int n_pins) {
    int stride = gridDim.x * blockDim.x;
    for (int pin = blockIdx.x * blockDim.x + threadIdx.x; pin < n_pins; pin += stride) {
        if (*found) return;                    // someone already has it
        unsigned int dig[PIN_DIGITS];
        int p = pin;
        for (int k = PIN_DIGITS - 1; k >= 0; k--) {
            dig[k] = '0' + p % 10;
            p /= 10;
        }
        // one block: the salt, the digits, the 0x80 pad byte, zeros, the length in bits
        unsigned int m[16];
        for (int k = 0; k < SALT_WORDS; k++) m[k] = salt[k];
        m[4] = (dig[0] << 24) | (dig[1] << 16) | (dig[2] << 8) | dig[3];
        m[5] = (dig[4] << 24) | (dig[5] << 16) | 0x8000u;
        for (int k = 6; k < 15; k++) m[k] = 0;
        m[15] = (4 * SALT_WORDS + PIN_DIGITS) * 8;
        unsigned int h[8];
        sha256_block(m, h);
        bool match = true;
        for (int k = 0; k < 8; k++)
            if (h[k] != target[k]) match = false;
        if (match) {
            *found_pin = pin;
            atomicExch((int *)found, 1);       // tell everyone else to stop
        }
    }
}

// AES-128 in CTR mode over n 16-byte blocks: block i's keystream is AES_k(nonce0 || nonce1
// || 0 || i) (big-endian words), XORed onto the plaintext (little-endian words, as the
// bytes lie in memory); te holds Te0..Te3 (4 x 256 words), sbox the S-box, rk the 44 round
// key words of the expanded key, all staged in shared memory a block
__global__ void aes128_ctr(const uint4 *in, uint4 *out, const unsigned int *te, const unsigned char *sbox,
                           const unsigned int *rk, unsigned int nonce0, unsigned int nonce1, int n) {
    __shared__ unsigned int sTe0[256];
    __shared__ unsigned int sTe1[256];
    __shared__ unsigned int sTe2[256];
    __shared__ unsigned int sTe3[256];
    __shared__ unsigned char sS[256];
    __shared__ unsigned int sRk[44];
    for (int k = threadIdx.x; k < 256; k += blockDim.x) {
        sTe0[k] = te[k];
        sTe1[k] = te[256 + k];
        sTe2[k] = te[512 + k];
        sTe3[k] = te[768 + k];
        sS[k] = sbox[k];
    }
    for (int k = threadIdx.x; k < 44; k += blockDim.x) sRk[k] = rk[k];
    __syncthreads();

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int s0 = nonce0 ^ sRk[0];
    unsigned int s1 = nonce1 ^ sRk[1];
    unsigned int s2 = sRk[2];
    unsigned int s3 = (unsigned int)i ^ sRk[3];
    unsigned int t0, t1, t2, t3;
    for (int r = 1; r < 10; r++) {
        t0 = sTe0[s0 >> 24] ^ sTe1[(s1 >> 16) & 0xff] ^ sTe2[(s2 >> 8) & 0xff] ^ sTe3[s3 & 0xff] ^ sRk[4 * r];
        t1 = sTe0[s1 >> 24] ^ sTe1[(s2 >> 16) & 0xff] ^ sTe2[(s3 >> 8) & 0xff] ^ sTe3[s0 & 0xff] ^ sRk[4 * r + 1];
        t2 = sTe0[s2 >> 24] ^ sTe1[(s3 >> 16) & 0xff] ^ sTe2[(s0 >> 8) & 0xff] ^ sTe3[s1 & 0xff] ^ sRk[4 * r + 2];
        t3 = sTe0[s3 >> 24] ^ sTe1[(s0 >> 16) & 0xff] ^ sTe2[(s1 >> 8) & 0xff] ^ sTe3[s2 & 0xff] ^ sRk[4 * r + 3];
        s0 = t0;
        s1 = t1;
        s2 = t2;
        s3 = t3;
    }
    // the last round: SubBytes and ShiftRows without MixColumns
    t0 = ((unsigned int)sS[s0 >> 24] << 24) | ((unsigned int)sS[(s1 >> 16) & 0xff] << 16) |
         ((unsigned int)sS[(s2 >> 8) & 0xff] << 8) | sS[s3 & 0xff];
    t1 = ((unsigned int)sS[s1 >> 24] << 24) | ((unsigned int)sS[(s2 >> 16) & 0xff] << 16) |
         ((unsigned int)sS[(s3 >> 8) & 0xff] << 8) | sS[s0 & 0xff];
    t2 = ((unsigned int)sS[s2 >> 24] << 24) | ((unsigned int)sS[(s3 >> 16) & 0xff] << 16) |
         ((unsigned int)sS[(s0 >> 8) & 0xff] << 8) | sS[s1 & 0xff];
    t3 = ((unsigned int)sS[s3 >> 24] << 24) | ((unsigned int)sS[(s0 >> 16) & 0xff] << 16) |
         ((unsigned int)sS[(s1 >> 8) & 0xff] << 8) | sS[s2 & 0xff];
    t0 ^= sRk[40];
    t1 ^= sRk[41];
    t2 ^= sRk[42];
    t3 ^= sRk[43];
    uint4 p = in[i];
    uint4 c;
    c.x = p.x ^ __byte_perm(t0, 0, 0x0123);     // keystream bytes in memory order
    c.y = p.y ^ __byte_perm(t1, 0, 0x0123);
    c.z = p.z ^ __byte_perm(t2, 0, 0x0123);
    c.w = p.w ^ __byte_perm(t3, 0, 0x0123);
    out[i] = c;
}

// RC4-drop[RC4_DROP] for n keys (RC4_KEYLEN bytes each, consecutive): a thread a key, the
// key schedule on its own 256-byte permutation, RC4_DROP keystream bytes thrown away and
// the next RC4_OUT stored at ks[t * RC4_OUT ..]
__global__ void rc4_drop(const unsigned char *keys, unsigned char *ks, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const unsigned char *key = keys + t * RC4_KEYLEN;
    unsigned char S[256];
    for (int k = 0; k < 256; k++) S[k] = k;
    int j = 0;
    for (int k = 0; k < 256; k++) {
        j = (j + S[k] + key[k % RC4_KEYLEN]) & 255;
        unsigned char tmp = S[k];
        S[k] = S[j];
        S[j] = tmp;
    }
    int i = 0;
    j = 0;
    for (int k = 0; k < RC4_DROP + RC4_OUT; k++) {
        i = (i + 1) & 255;
        j = (j + S[i]) & 255;
        unsigned char tmp = S[i];
        S[i] = S[j];
        S[j] = tmp;
        unsigned char z = S[(S[i] + S[j]) & 255];
        if (k >= RC4_DROP) ks[t * RC4_OUT + (k - RC4_DROP)] = z;
    }
}

// a b / 2^64 mod n in Montgomery form (a, b < n, n odd, ninv = -1/n mod 2^64)
__device__ unsigned long long mont_mul(unsigned long long a, unsigned long long b, unsigned long long n,
                                       unsigned long long ninv) {
    unsigned long long lo = a * b;
    unsigned long long hi = __umul64hi(a, b);
    unsigned long long m = lo * ninv;
    unsigned long long mhi = __umul64hi(m, n);
    // lo + the low word of m n is 0 mod 2^64: it carries unless lo == 0
    unsigned long long t = hi + mhi + (lo != 0 ? 1ull : 0ull);
    if (t < hi || t >= n) t -= n;
    return t;
}

// (a + b) mod n for a, b < n
__device__ unsigned long long add_mod(unsigned long long a, unsigned long long b, unsigned long long n) {
    unsigned long long s = a + b;
    if (s < a || s >= n) s -= n;
    return s;
}

// is_prime[i] = 1 when cand[i] is prime, else 0 (Miller-Rabin with the c_mr_bases
// witnesses, Montgomery arithmetic); *n_primes counts the primes
__global__ void miller_rabin64(const unsigned long long *cand, int *is_prime, unsigned int *n_primes, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long N = cand[i];
    if (N < 4 || (N & 1) == 0) {
        is_prime[i] = (N == 2 || N == 3) ? 1 : 0;
        if (N == 2 || N == 3) atomicAdd(n_primes, 1u);
        return;
    }
    // -1/N mod 2^64 by Newton's iteration (N is its own inverse mod 8)
    unsigned long long inv = N;
    for (int k = 0; k < 5; k++) inv *= 2 - N * inv;
    unsigned long long ninv = 0 - inv;
    unsigned long long one = (0 - N) % N;                 // R mod N, R = 2^64
    unsigned long long r2 = one;
    for (int k = 0; k < 64; k++) r2 = add_mod(r2, r2, N);  // R^2 mod N
    unsigned long long minus_one = N - one;
    unsigned long long d = N - 1;
    int s = 0;
    while ((d & 1) == 0) {
        d >>= 1;
        s++;
    }
    int prime = 1;
    for (int b = 0; b < MR_BASES && prime; b++) {
        unsigned long long a = c_mr_bases[b] % N;
        if (a == 0) continue;
        // x = a^d (Montgomery form), right-to-left square and multiply
        unsigned long long base = mont_mul(a, r2, N, ninv);
        unsigned long long x = one;
        unsigned long long e = d;
        while (e) {
            if (e & 1) x = mont_mul(x, base, N, ninv);
            base = mont_mul(base, base, N, ninv);
            e >>= 1;
        }
        if (x == one || x == minus_one) continue;
        int witness = 1;
        for (int r = 1; r < s; r++) {
            x = mont_mul(x, x, N, ninv);
            if (x == minus_one) {
                witness = 0;
                break;
            }
        }
        if (witness) prime = 0;
    }
    is_prime[i] = prime;
    if (prime) atomicAdd(n_primes, 1u);
}

// MurmurHash3's 32-bit finalizer
__device__ unsigned int fmix32(unsigned int h) {
    h ^= h >> 16;
    h *= 0x85ebca6b;
    h ^= h >> 13;
    h *= 0xc2b2ae35;
    h ^= h >> 16;
    return h;
}

// hit[i] = 1 when all BLOOM_K bits of key i are set in the filter (mask + 1 bits, a power
// of two, 32 a word), else 0: bit k is (h1 + k h2) & mask, h1 and h2 the finalized low
// and high halves of the key (h2 made odd); a key stops at its first clear bit
__global__ void bloom_query(const unsigned long long *keys, const unsigned int *filter, unsigned char *hit,
                            unsigned int mask, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long key = keys[i];
    unsigned int h1 = fmix32((unsigned int)key);
    unsigned int h2 = fmix32((unsigned int)(key >> 32)) | 1u;
    unsigned char in = 1;
    for (int k = 0; k < BLOOM_K; k++) {
        unsigned int bit = (h1 + k * h2) & mask;
        if (((filter[bit >> 5] >> (bit & 31)) & 1u) == 0) {
            in = 0;
            break;
        }
    }
    hit[i] = in;
}

// hist[p * 256 + c] += the bytes c of the ciphertext ct (nwords little-endian words) at
// positions p mod keylen (keylen <= XK_MAXLEN): a block's histogram in shared memory,
// threads taking words a grid apart, then merged by an atomicAdd a non-zero bin
__global__ void xor_pos_hist(const unsigned int *ct, unsigned int *hist, int keylen, int nwords) {
    __shared__ unsigned int sh[XK_MAXLEN * 256];
    int bins = keylen * 256;
    for (int k = threadIdx.x; k < bins; k += blockDim.x) sh[k] = 0;
    __syncthreads();
    for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < nwords; w += gridDim.x * blockDim.x) {
        unsigned int v = ct[w];
        for (int b = 0; b < 4; b++) {
            int pos = (4 * w + b) % keylen;
            atomicAdd(&sh[pos * 256 + ((v >> (8 * b)) & 0xff)], 1u);
        }
    }
    __syncthreads();
    for (int k = threadIdx.x; k < bins; k += blockDim.x)
        if (sh[k] != 0) atomicAdd(&hist[k], sh[k]);
}

}
