// probe-unseen216: a computational number-theory course's CUDA assignments, as a student who
// knows CUDA basics hands them in:
//  - sieve_seg_bits: a segmented sieve of Eratosthenes over the odd numbers of a 32-bit
//    range, a block a segment of 8192 odd numbers kept as a bitset in shared memory: each
//    thread takes the base primes threadIdx.x, threadIdx.x + blockDim.x, ... (read
//    coalesced from global memory) and crosses off their odd multiples by shared atomicOr
//    (p = 3's thread 2730 of them, a large prime's one or none: a divergent loop); after
//    __syncthreads the primes and the twin pairs of the segment counted by __popc on the
//    bitset words (a pair straddling a word or the segment's end read from the next word),
//    warp shuffles, a shared atomicAdd a warp, and per-segment counts and 64-bit global
//    totals;
//  - next_prime_mr64: the next prime at or after random 64-bit starting points (log-uniform
//    over 2^24 .. 2^62), a warp a start (the warps striding over the starts): its lanes the
//    next 32 odd numbers, trial division by the 256 small primes of a __constant__ table,
//    then a Miller-Rabin test with Montgomery multiplication (__umul64hi) by the 7 bases of
//    a __constant__ table that make it exact below 2^64; the first prime by __ballot_sync
//    and __ffs, else the next 32; the gap (16-bit) stored, the largest gap by a global
//    atomicMax;
//  - pollard_rho_brent: Pollard's rho in Brent's form on semiprimes p q (p log-uniform
//    2^9 .. 2^16, q log-uniform 2^20 .. 2^40), a thread a number: x -> x^2 + c in
//    Montgomery form, the differences multiplied together 32 at a time before a binary gcd
//    (__ffsll), Brent's backtracking when a batch overshoots, another c when a try fails;
//    a divergent loop of ~sqrt(p) steps;
//  - mult_functions: Euler's phi, the divisor sum (stored as the aliquot step sigma(m) - m),
//    the divisor count (16-bit) and the Moebius function (8-bit) of a range of integers from
//    a smallest-prime-factor table, a thread a number: the factorisation by gathered loads
//    of the table into per-thread local arrays, then the functions from it; the numbers
//    with each count of distinct prime factors and the deficient / perfect / abundant ones
//    counted by shared atomics, the phis summed by warp shuffles and a 64-bit global
//    atomicAdd a warp;
//  - jacobi_polya_warp: Legendre symbols (a / p) by the binary Jacobi algorithm (__ffs, the
//    (2 / n) sign from a __constant__ table) for a = 1 .. A and primes p (log-uniform 2^16
//    .. 2^31), a warp a prime: the character's partial sums by a __shfl_up_sync scan, their
//    largest absolute value against Polya-Vinogradov's sqrt(p) log p (sqrtf, logf), the
//    least quadratic non-residue by __ballot_sync and __ffs;
//  - prime_gap_stats: the gaps between consecutive primes of a window above 10^12 (sorted
//    64-bit primes, coalesced): each gap stored as 16 bits, normalised by log p in double
//    (Cramer's model: exponential of mean 1) and histogrammed in shared memory (floorf,
//    shared int atomics), the normalised gaps and their squares summed by shared float
//    atomics, twin / cousin / sexy primes counted by ballots and __popc, the largest gap by
//    shared atomicMax; a block-uniform grid-stride loop; flushed by global atomics on the
//    fields of a struct.

#define SV_WORDS 256            // sieve_seg_bits: a segment's bitset words
#define SV_ODDS (SV_WORDS * 32) // odd numbers a segment (8192: a span of 16384)

#define NP_SMALL 256            // next_prime_mr64: trial-division primes (3 .. 1621)
#define MR_BASES 7              // Miller-Rabin witnesses

#define RHO_BATCH 32            // pollard_rho_brent: differences multiplied before a gcd
#define RHO_MAXR (1 << 16)      // a try gives up when Brent's r passes this
#define RHO_TRIES 4             // values of c tried

#define MF_MAXW 10              // mult_functions: distinct primes of a 32-bit number at most

#define JP_FULL 0xffffffffu     // jacobi_polya_warp

#define GS_BINS 64              // prime_gap_stats: normalised-gap bins
#define GS_BPU 8                // bins a unit of g / log p

struct GapStats {
    unsigned int twins;         // gaps of 2
    unsigned int cousins;       // gaps of 4
    unsigned int sexy;          // gaps of 6
    unsigned int max_gap;
    float sum_r;                // sum of g / log p
    float sum_r2;               // sum of (g / log p)^2
};

// trial-division primes 3 .. 1621, set by the host
__constant__ unsigned int c_small_primes[NP_SMALL];

// Miller-Rabin witnesses: with these seven the test is exact for every n < 2^64
__constant__ unsigned long long c_mr_bases[MR_BASES] = {2ull, 325ull, 9375ull, 28178ull, 450775ull, 9780504ull,
                                                        1795265022ull};

// (2 / n) for odd n, by n mod 8
__constant__ int c_two_sign[8] = {0, 1, 0, -1, 0, -1, 0, 1};

// a b / 2^64 mod n (Montgomery), a, b < n odd; ninv = 1 / n mod 2^64
__device__ unsigned long long mont_mul(unsigned long long a, unsigned long long b, unsigned long long n,
                                       unsigned long long ninv) {
    unsigned long long lo = a * b;
    unsigned long long hi = __umul64hi(a, b);
    unsigned long long m = lo * ninv;
    unsigned long long mh = __umul64hi(m, n);
    unsigned long long t = hi - mh;
    if (hi < mh) t += n;
    return t;
}

// 1 / n mod 2^64 for odd n by Newton's iteration (n is its own inverse mod 8)
__device__ unsigned long long inv64(unsigned long long n) {
    unsigned long long x = n;
    for (int k = 0; k < 5; k++) x *= 2 - n * x;
    return x;
}

// 2^128 mod n: 2^64 mod n doubled 64 times
__device__ unsigned long long r2_mod(unsigned long long one, unsigned long long n) {
    unsigned long long r = one;
    for (int k = 0; k < 64; k++) {
        if (r >= n - r) r = r - (n - r);
        else r = r + r;
    }
    return r;
}

// Miller-Rabin for odd n > 1
__device__ bool mr_prime(unsigned long long n) {
    unsigned long long ninv = inv64(n);
    unsigned long long one = (0ull - n) % n;
    unsigned long long r2 = r2_mod(one, n);
    unsigned long long mone = n - one;
    unsigned long long d = n - 1;
    int s = __ffsll((long long)d) - 1;
    d >>= s;
    int top = 63 - __clzll((long long)d);
    for (int b = 0; b < MR_BASES; b++) {
        unsigned long long a = c_mr_bases[b] % n;
        if (a == 0) continue;
        unsigned long long am = mont_mul(a, r2, n, ninv);
        unsigned long long x = one;
        for (int bit = top; bit >= 0; bit--) {
            x = mont_mul(x, x, n, ninv);
            if ((d >> bit) & 1) x = mont_mul(x, am, n, ninv);
        }
        if (x == one || x == mone) continue;
        bool witness = true;
        for (int r = 1; r < s; r++) {
            x = mont_mul(x, x, n, ninv);
            if (x == mone) {
                witness = false;
                break;
            }
        }
        if (witness) return false;
    }
    return true;
}

// gcd by the binary algorithm
__device__ unsigned long long gcd64(unsigned long long a, unsigned long long b) {
    if (a == 0) return b;
    if (b == 0) return a;
    int sh = __ffsll((long long)(a | b)) - 1;
    a >>= __ffsll((long long)a) - 1;
    while (b != 0) {
        b >>= __ffsll((long long)b) - 1;
        if (a > b) {
            unsigned long long t = a;
            a = b;
            b = t;
        }
        b -= a;
    }
    return a << sh;
}

// the Jacobi symbol (a / n), n odd
__device__ int jacobi(unsigned int a, unsigned int n) {
    a %= n;
    int t = 1;
    while (a != 0) {
        int z = __ffs(a) - 1;
        a >>= z;
        if (z & 1) t *= c_two_sign[n & 7];
        if (a & n & 2) t = -t;          // both 3 mod 4: reciprocity flips the sign
        unsigned int r = n % a;
        n = a;
        a = r;
    }
    return n == 1 ? t : 0;
}

extern "C" {

// the odd numbers lo + 2 j, j < nseg * SV_ODDS (lo odd, the range below 2^32), segment b
// (a block) holding j in [b SV_ODDS, (b + 1) SV_ODDS): seg_primes[b] its primes, seg_twins[b]
// its twin pairs (p, p + 2) by p; totals[0], totals[1] += them. primes: the odd primes in
// ascending order, at least up to the square root of the range's end (and a word beyond)
__global__ void sieve_seg_bits(unsigned int lo, const unsigned int *primes, int nbase, unsigned int *seg_primes,
                               unsigned int *seg_twins, unsigned long long *totals, int nseg) {
    __shared__ unsigned int s_bits[SV_WORDS + 1];   // a set bit: composite; one word past the segment
    __shared__ unsigned int s_count[2];
    unsigned int start = lo + 2u * (unsigned int)(blockIdx.x * SV_ODDS);
    unsigned int end = start + 2u * (SV_ODDS + 32);
    for (int w = threadIdx.x; w < SV_WORDS + 1; w += blockDim.x) s_bits[w] = (w == 0 && start == 1) ? 1u : 0u;
    if (threadIdx.x < 2) s_count[threadIdx.x] = 0;
    __syncthreads();
    for (int k = threadIdx.x; k < nbase; k += blockDim.x) {
        unsigned int p = primes[k];
        if ((unsigned long long)p * p >= end) break;
        unsigned int m = (start + p - 1) / p * p;       // the first multiple of p from start
        if (m < p * p) m = p * p;
        if ((m & 1) == 0) m += p;
        for (; m < end; m += 2 * p) {
            unsigned int j = (m - start) >> 1;
            atomicOr(&s_bits[j >> 5], 1u << (j & 31));
        }
    }
    __syncthreads();
    unsigned int np = 0, ntw = 0;
    for (int w = threadIdx.x; w < SV_WORDS; w += blockDim.x) {
        unsigned int pr = ~s_bits[w];
        unsigned int next = ~s_bits[w + 1];
        unsigned int pair = pr & ((pr >> 1) | (next << 31));
        np += __popc(pr);
        ntw += __popc(pair);
    }
    for (int o = 16; o > 0; o /= 2) {
        np += __shfl_down_sync(0xffffffff, np, o);
        ntw += __shfl_down_sync(0xffffffff, ntw, o);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&s_count[0], np);
        atomicAdd(&s_count[1], ntw);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        seg_primes[blockIdx.x] = s_count[0];
        seg_twins[blockIdx.x] = s_count[1];
        atomicAdd(&totals[0], (unsigned long long)s_count[0]);
        atomicAdd(&totals[1], (unsigned long long)s_count[1]);
    }
}

// a warp a starting point v (warps striding over the n points): prime[v] the least prime
// >= start[v] (start[v] > 137, below 2^63), gap[v] = prime[v] - start[v], rounds[v] the
// rounds of 32 odd candidates it took; *max_gap = the largest gap
__global__ void next_prime_mr64(const unsigned long long *start, unsigned long long *prime, unsigned short *gap,
                                unsigned char *rounds, unsigned int *max_gap, int n) {
    int lane = threadIdx.x % 32;
    int nwarps = gridDim.x * blockDim.x / 32;
    for (int v = (blockIdx.x * blockDim.x + threadIdx.x) / 32; v < n; v += nwarps) {
        unsigned long long x0 = start[v];
        unsigned long long base = x0 | 1;
        int r = 0;
        while (true) {
            unsigned long long x = base + 2 * lane;
            bool cand = true;
            for (int k = 0; k < NP_SMALL; k++) {
                if (x % c_small_primes[k] == 0) {
                    cand = false;
                    break;
                }
            }
            bool is_p = cand && mr_prime(x);
            unsigned int found = __ballot_sync(0xffffffff, is_p);
            r++;
            if (found != 0) {
                base += 2 * (__ffs(found) - 1);
                break;
            }
            base += 64;
        }
        if (lane == 0) {
            unsigned int g = (unsigned int)(base - x0);
            prime[v] = base;
            gap[v] = (unsigned short)g;
            rounds[v] = (unsigned char)r;
            atomicMax(max_gap, g);
        }
    }
}

// a factor of each odd composite num[i] < 2^63 by Brent's variant of Pollard's rho (0 when
// every try fails), iters[i] the steps x -> x^2 + c it took, tries[i] the values of c
__global__ void pollard_rho_brent(const unsigned long long *num, unsigned long long *factor, unsigned int *iters,
                                  unsigned char *tries, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long N = num[i];
    unsigned long long ninv = inv64(N);
    unsigned long long one = (0ull - N) % N;
    unsigned long long result = 0;
    unsigned int steps = 0;
    int c = 1;
    for (; c <= RHO_TRIES && result == 0; c++) {
        unsigned long long cm = one;                    // c in Montgomery form: c R mod N
        for (int k = 1; k < c; k++) {
            cm += one;
            if (cm >= N) cm -= N;
        }
        unsigned long long y = one + one;               // x0 = 2
        if (y >= N) y -= N;
        unsigned long long x = y, ys = y;
        unsigned long long q = one;
        unsigned long long g = 1;
        int r = 1;
        while (g == 1 && r <= RHO_MAXR) {
            x = y;
            for (int k = 0; k < r; k++) {
                y = mont_mul(y, y, N, ninv) + cm;
                if (y >= N) y -= N;
            }
            steps += r;
            int k = 0;
            while (k < r && g == 1) {
                ys = y;
                int lim = min(RHO_BATCH, r - k);
                for (int j = 0; j < lim; j++) {
                    y = mont_mul(y, y, N, ninv) + cm;
                    if (y >= N) y -= N;
                    q = mont_mul(q, x > y ? x - y : y - x, N, ninv);
                }
                steps += lim;
                g = gcd64(q, N);
                k += RHO_BATCH;
            }
            r *= 2;
        }
        if (g == N) {
            // the batch overshot: step again one at a time from its start
            do {
                ys = mont_mul(ys, ys, N, ninv) + cm;
                if (ys >= N) ys -= N;
                steps++;
                g = gcd64(x > ys ? x - ys : ys - x, N);
            } while (g == 1);
        }
        if (g != 1 && g != N) result = g;
    }
    factor[i] = result;
    iters[i] = steps;
    tries[i] = (unsigned char)(c - 1);
}

// m = lo + i for i < n (lo >= 1): phi[i] = Euler's phi(m), aliquot[i] = sigma(m) - m,
// tau[i] = the divisor count, mu[i] = the Moebius function; omega_hist[w] += the numbers
// with w distinct prime factors, classes[0 / 1 / 2] += the deficient / perfect / abundant
// ones, *phi_sum += the phis. spf[x] the smallest prime factor of x (x itself for primes)
__global__ void mult_functions(const int *spf, unsigned int lo, int n, unsigned int *phi, unsigned int *aliquot,
                               unsigned short *tau, signed char *mu, unsigned int *omega_hist, unsigned int *classes,
                               unsigned long long *phi_sum) {
    __shared__ unsigned int s_omega[MF_MAXW + 1];
    __shared__ unsigned int s_class[3];
    if (threadIdx.x < MF_MAXW + 1) s_omega[threadIdx.x] = 0;
    if (threadIdx.x < 3) s_class[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long my_phi = 0;
    if (i < n) {
        unsigned int m = lo + i;
        unsigned int pr[MF_MAXW];
        int ex[MF_MAXW];
        int w = 0;
        unsigned int x = m;
        while (x > 1) {
            unsigned int p = spf[x];
            int e = 0;
            while (x % p == 0) {
                x /= p;
                e++;
            }
            pr[w] = p;
            ex[w] = e;
            w++;
        }
        unsigned int ph = 1;
        unsigned long long sigma = 1;
        unsigned int t = 1;
        int mo = 1;
        for (int k = 0; k < w; k++) {
            unsigned int p = pr[k];
            unsigned long long pk = 1;           // p^e
            unsigned long long s = 1;            // 1 + p + ... + p^e
            for (int e = 0; e < ex[k]; e++) {
                pk *= p;
                s += pk;
            }
            ph *= (unsigned int)(pk / p) * (p - 1);
            sigma *= s;
            t *= ex[k] + 1;
            mo = ex[k] > 1 ? 0 : -mo;
        }
        phi[i] = ph;
        aliquot[i] = (unsigned int)(sigma - m);
        tau[i] = (unsigned short)t;
        mu[i] = (signed char)mo;
        atomicAdd(&s_omega[w], 1u);
        unsigned long long s_m = sigma - m;
        atomicAdd(&s_class[s_m < m ? 0 : (s_m == m ? 1 : 2)], 1u);
        my_phi = ph;
    }
    for (int o = 16; o > 0; o /= 2) my_phi += __shfl_down_sync(0xffffffff, my_phi, o);
    if (threadIdx.x % 32 == 0 && my_phi != 0) atomicAdd(phi_sum, my_phi);
    __syncthreads();
    if (threadIdx.x < MF_MAXW + 1 && s_omega[threadIdx.x] != 0) atomicAdd(&omega_hist[threadIdx.x], s_omega[threadIdx.x]);
    if (threadIdx.x < 3 && s_class[threadIdx.x] != 0) atomicAdd(&classes[threadIdx.x], s_class[threadIdx.x]);
}

// a warp a prime p = primes[v] (odd, A < p < 2^31): S(x) = sum over a <= x of (a / p) for
// x = 1 .. A; sum_out[v] = S(A), max_out[v] = the largest |S(x)|, lnr[v] = the least
// quadratic non-residue (0 if none up to A), ratio[v] = max |S| / (sqrt(p) log p)
__global__ void jacobi_polya_warp(const unsigned int *primes, int A, int *sum_out, int *max_out, int *lnr,
                                  float *ratio, int nmod) {
    int lane = threadIdx.x % 32;
    int v = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (v >= nmod) return;
    unsigned int p = primes[v];
    int run = 0;            // S(base)
    int best = 0;           // the largest |S(x)| seen by this lane
    int least = 0;
    for (int base = 0; base < A; base += 32) {
        unsigned int a = base + lane + 1;
        int chi = (a <= (unsigned int)A) ? jacobi(a, p) : 0;
        unsigned int nr = __ballot_sync(JP_FULL, chi == -1);
        if (least == 0 && nr != 0) least = base + __ffs(nr);
        int s = chi;
        for (int o = 1; o < 32; o *= 2) {
            int y = __shfl_up_sync(JP_FULL, s, o);
            if (lane >= o) s += y;
        }
        int S = run + s;
        if (a <= (unsigned int)A) best = max(best, abs(S));
        run += __shfl_sync(JP_FULL, s, 31);
    }
    for (int o = 16; o > 0; o /= 2) best = max(best, __shfl_xor_sync(JP_FULL, best, o));
    if (lane == 0) {
        sum_out[v] = run;
        max_out[v] = best;
        lnr[v] = least;
        float fp = (float)p;
        ratio[v] = best / (sqrtf(fp) * logf(fp));
    }
}

// pr[0 .. np - 1] consecutive primes (ascending, odd): gap[i] = pr[i + 1] - pr[i] for
// i < np - 1; hist[b] += the gaps with b = floor(GS_BPU g / log p) (clamped to GS_BINS - 1);
// st's fields += the twin / cousin / sexy pairs and the sums of g / log p and its square,
// st->max_gap = max of the gaps
__global__ void prime_gap_stats(const unsigned long long *pr, int np, unsigned short *gap, unsigned int *hist,
                                GapStats *st) {
    __shared__ unsigned int s_hist[GS_BINS];
    __shared__ unsigned int s_pairs[3];
    __shared__ unsigned int s_max;
    __shared__ float s_sum, s_sum2;
    for (int b = threadIdx.x; b < GS_BINS; b += blockDim.x) s_hist[b] = 0;
    if (threadIdx.x < 3) s_pairs[threadIdx.x] = 0;
    if (threadIdx.x == 0) {
        s_max = 0;
        s_sum = 0.0f;
        s_sum2 = 0.0f;
    }
    __syncthreads();
    int lane = threadIdx.x % 32;
    int m = np - 1;             // gaps
    for (int base = blockIdx.x * blockDim.x; base < m; base += gridDim.x * blockDim.x) {
        int i = base + threadIdx.x;
        bool valid = i < m;
        unsigned int g = 0;
        unsigned long long p = 0;
        if (valid) {
            p = pr[i];
            g = (unsigned int)(pr[i + 1] - p);
            gap[i] = (unsigned short)g;
        }
        for (int k = 0; k < 3; k++) {
            unsigned int b = __ballot_sync(0xffffffff, valid && g == 2 * (k + 1));
            if (lane == 0 && b != 0) atomicAdd(&s_pairs[k], __popc(b));
        }
        if (valid) {
            float r = (float)(g / log((double)p));
            int bin = (int)floorf(r * GS_BPU);
            bin = min(bin, GS_BINS - 1);
            atomicAdd(&s_hist[bin], 1u);
            atomicAdd(&s_sum, r);
            atomicAdd(&s_sum2, r * r);
            atomicMax(&s_max, g);
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < GS_BINS; b += blockDim.x)
        if (s_hist[b] != 0) atomicAdd(&hist[b], s_hist[b]);
    if (threadIdx.x == 0) {
        atomicAdd(&st->twins, s_pairs[0]);
        atomicAdd(&st->cousins, s_pairs[1]);
        atomicAdd(&st->sexy, s_pairs[2]);
        atomicMax(&st->max_gap, s_max);
        atomicAdd(&st->sum_r, s_sum);
        atomicAdd(&st->sum_r2, s_sum2);
    }
}

}
