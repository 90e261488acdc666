// probe-unseen60: a wireless-communications course's CUDA assignments (the physical layer:
// demapping, channel decoding, OFDM reception, synchronisation), as a student who knows CUDA
// basics hands them in: max-log soft demapping of Gray-mapped 16-QAM, a thread a received
// symbol (interleaved complex floats) searching the 16 constellation points (in __constant__
// memory) for each bit's nearest point with the bit 0 and with it 1, writing 4 float LLRs;
// the add-compare-select of a Viterbi decoder for the K = 7, rate-1/2 code (generators 171
// and 133 octal), a block of 64 threads a codeword, a thread a state, the path metrics
// double-buffered in shared memory over 64 trellis steps and each step's 64 survivor bits
// gathered by __ballot_sync into a uint64; the min-sum check-node update of LDPC decoding, a
// thread a check node of degree 6 to 8 (CSR edge lists) finding the product of the signs
// and the smallest and second-smallest magnitude of its incoming messages and sending each
// edge 0.75 times the others' minimum with the others' sign; zero-forcing equalization of
// OFDM symbols, a thread a (symbol, subcarrier) dividing the received value (read past the
// cyclic prefix's slots of its row of N + CP) by the subcarrier's channel estimate; the 32
// syndromes of Reed-Solomon RS(255, 223) codewords over GF(256), a block of 256 threads 8
// byte codewords with a thread a syndrome, by Horner's rule with GF multiplication through
// log / antilog tables the block copies into shared memory; and carrier-frequency-offset
// correction, a thread a complex sample rotating it by exp(-j 2 pi eps n / N) through
// sincosf, eps its frame's offset (in subcarrier spacings) from an array.

#define VIT_K 7              // viterbi: the constraint length
#define VIT_S 64             // viterbi: 2^(K - 1) states, a thread each
#define VIT_G0 0x79          // viterbi: generator 171 octal, bit 6 the newest input
#define VIT_G1 0x5B          // viterbi: generator 133 octal
#define RS_N 255             // rs_syndromes: the codeword length in bytes
#define RS_T2 32             // rs_syndromes: 2t = n - k syndromes
#define RS_CW 8              // rs_syndromes: codewords a block (256 threads)

__constant__ float c_qam_re[16];    // qam16_demap: the constellation, indexed by the label b0 b1 b2 b3
__constant__ float c_qam_im[16];    // (b0 the most significant bit)

// a GF(256) product through the tables: antilog[log a + log b], 0 if either is 0
// (antilog has 510 entries, so the sum of two logs needs no reduction mod 255)
__device__ unsigned char gf_mul(unsigned char a, unsigned char b, const unsigned char *log_t,
                                const unsigned char *exp_t) {
    if (a == 0 || b == 0) return 0;
    return exp_t[log_t[a] + log_t[b]];
}

extern "C" {

// 16-QAM max-log demapping: symbol i's LLR of bit b (log P(b = 0) / P(b = 1), max-log) is
// (min |y - s|^2 over the points s whose label has bit b set - the same min over those with
// it clear) / noise_var; llr[4 i + b] for the label's bits b0 .. b3
__global__ void qam16_demap(const float2 *sym, float *llr, int n, float noise_var) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 y = sym[i];
    float d0[4], d1[4];
    for (int b = 0; b < 4; b++) {
        d0[b] = 1e30f;
        d1[b] = 1e30f;
    }
    for (int p = 0; p < 16; p++) {
        float dx = y.x - c_qam_re[p];
        float dy = y.y - c_qam_im[p];
        float d = dx * dx + dy * dy;
        for (int b = 0; b < 4; b++) {
            if ((p >> (3 - b)) & 1) d1[b] = fminf(d1[b], d);
            else d0[b] = fminf(d0[b], d);
        }
    }
    float inv = 1.0f / noise_var;
    for (int b = 0; b < 4; b++) llr[4 * i + b] = (d1[b] - d0[b]) * inv;
}

// Viterbi add-compare-select over nsteps trellis steps of the K = 7 rate-1/2 code, block c a
// codeword: state s holds the last 6 input bits, the newest at bit 5; input u takes s to
// (u << 5) | (s >> 1) emitting the parities of ((u << 6) | s) & G0 and & G1.  rx[2 (c nsteps
// + t) + k] is the soft value of step t's k-th coded bit (+ for 0), the branch metric the sum
// of rx for the bits emitted 0 and -rx for those 1, the path metric kept the larger.  Thread
// ns compares its predecessors s0 = (ns << 1) & 63 and s0 | 1; bit ns of dec[c nsteps + t]
// is 1 when s0 | 1 won (strictly).  pm_in / pm_out: the 64 metrics before / after
__global__ void viterbi_acs(const float *rx, const float *pm_in, float *pm_out,
                            unsigned long long *dec, int nsteps) {
    __shared__ float pm[2][VIT_S];
    __shared__ unsigned half[2];
    int c = blockIdx.x;
    int ns = threadIdx.x;
    pm[0][ns] = pm_in[c * VIT_S + ns];
    __syncthreads();
    int s0 = (ns << 1) & (VIT_S - 1);
    int s1 = s0 | 1;
    int u = ns >> (VIT_K - 2);
    int r0 = (u << (VIT_K - 1)) | s0, r1 = (u << (VIT_K - 1)) | s1;
    int a0 = __popc(r0 & VIT_G0) & 1, b0 = __popc(r0 & VIT_G1) & 1;    // the bits s0 -> ns emits
    int a1 = __popc(r1 & VIT_G0) & 1, b1 = __popc(r1 & VIT_G1) & 1;    // and those of s1 -> ns
    int cur = 0;
    for (int t = 0; t < nsteps; t++) {
        float x = rx[2 * (c * nsteps + t)];
        float y = rx[2 * (c * nsteps + t) + 1];
        float m0 = pm[cur][s0] + ((a0 ? -x : x) + (b0 ? -y : y));
        float m1 = pm[cur][s1] + ((a1 ? -x : x) + (b1 ? -y : y));
        int d = m1 > m0;
        pm[1 - cur][ns] = d ? m1 : m0;
        unsigned bits = __ballot_sync(0xffffffffu, d);
        if ((ns & 31) == 0) half[ns >> 5] = bits;
        __syncthreads();
        if (ns == 0)
            dec[c * nsteps + t] = ((unsigned long long)half[1] << 32) | half[0];
        cur = 1 - cur;
        __syncthreads();
    }
    pm_out[c * VIT_S + ns] = pm[cur][ns];
}

// min-sum check-node update: check node m's edges are row_ptr[m] .. row_ptr[m + 1] - 1;
// edge e's outgoing message is 0.75 (scale) times the smallest |v2c| over the node's other
// edges, signed by the product of their signs (a message below 0 negative)
__global__ void ldpc_check_minsum(const int *row_ptr, const float *v2c, float *c2v, int m, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    int beg = row_ptr[i], end = row_ptr[i + 1];
    float min1 = 1e30f, min2 = 1e30f;
    int imin = -1;
    int sgn = 0;                       // the parity of the negative messages
    for (int e = beg; e < end; e++) {
        float q = v2c[e];
        float a = fabsf(q);
        if (q < 0.0f) sgn ^= 1;
        if (a < min1) {
            min2 = min1;
            min1 = a;
            imin = e;
        } else if (a < min2) {
            min2 = a;
        }
    }
    for (int e = beg; e < end; e++) {
        float q = v2c[e];
        float mag = (e == imin) ? min2 : min1;
        int s = sgn ^ (q < 0.0f ? 1 : 0);
        c2v[e] = s ? -scale * mag : scale * mag;
    }
}

// OFDM zero-forcing equalization: symbol s's n_sc subcarrier values follow the cp slots at
// the start of its row of n_sc + cp in rx (left there by the in-place FFT); out[s n_sc + k]
// = rx[s (n_sc + cp) + cp + k] / h[k], the complex division by y conj(h) / |h|^2
__global__ void ofdm_equalize_zf(const float2 *rx, const float2 *h, float2 *out, int nsym, int n_sc, int cp) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nsym * n_sc) return;
    int s = i / n_sc;
    int k = i % n_sc;
    float2 y = rx[s * (n_sc + cp) + cp + k];
    float2 hk = h[k];
    float den = hk.x * hk.x + hk.y * hk.y;
    float re = (y.x * hk.x + y.y * hk.y) / den;
    float im = (y.y * hk.x - y.x * hk.y) / den;
    out[i] = make_float2(re, im);
}

// RS(255, 223) syndromes: S_j = r(alpha^(j + 1)), j = 0 .. 31, of the byte codewords r (r[0]
// the coefficient of x^254) by Horner's rule; GF(256) by the polynomial 0x11d (alpha = 2),
// the log (256) and antilog (510) tables copied into shared memory by the block; thread
// 32 w + j of block b: codeword 8 b + w's syndrome j
__global__ void rs_syndromes(const unsigned char *cw, const unsigned char *log_g, const unsigned char *exp_g,
                             unsigned char *syn, int ncw) {
    __shared__ unsigned char s_log[256];
    __shared__ unsigned char s_exp[510];
    for (int t = threadIdx.x; t < 510; t += blockDim.x) {
        s_exp[t] = exp_g[t];
        if (t < 256) s_log[t] = log_g[t];
    }
    __syncthreads();
    int c = blockIdx.x * RS_CW + threadIdx.x / RS_T2;
    int j = threadIdx.x % RS_T2;
    if (c >= ncw) return;
    unsigned char a = s_exp[j + 1];
    const unsigned char *r = cw + c * RS_N;
    unsigned char s = 0;
    for (int i = 0; i < RS_N; i++)
        s = gf_mul(s, a, s_log, s_exp) ^ r[i];
    syn[c * RS_T2 + j] = s;
}

// CFO correction: sample i (frame i / frame_len, n = i % frame_len within it) times
// exp(-j 2 pi eps n / fft_size), eps the frame's offset in subcarrier spacings
__global__ void cfo_correct(const float2 *x, const float *eps, float2 *y, int total, int frame_len, int fft_size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    int f = i / frame_len;
    int n = i % frame_len;
    float ph = -6.28318531f * eps[f] * (float)n / (float)fft_size;
    float s, c;
    sincosf(ph, &s, &c);
    float2 v = x[i];
    y[i] = make_float2(v.x * c - v.y * s, v.x * s + v.y * c);
}

}
