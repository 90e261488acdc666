// probe-unseen121: an error-correcting-codes course's CUDA assignments, as a student who
// knows CUDA basics hands them in. Each kernel is one step of a coded link simulation:
//
//   secded72_correct   SECDED(72,64) decoding of ECC-protected memory words (the extended
//                      Hamming code of DRAM ECC): a thread a 64-bit word and its check byte,
//                      the 7-bit syndrome by __popcll of the data against 7 parity masks
//                      (__constant__, set by the host), the overall parity; single errors
//                      corrected (the syndrome's position mapped to a data bit by a
//                      __constant__ table), double errors flagged and counted by atomicAdd
//   ldpc_bitflip       one iteration of Gallager's bit-flipping decoder on an irregular
//                      LDPC code's Tanner graph in CSR form (variable -> checks), a thread a
//                      variable node: the syndrome bits of its checks gathered and counted,
//                      the bit flipped when a strict majority of its checks fail
//   rs_chien_search    the Chien search of Reed-Solomon RS(255,239) decoding over GF(256):
//                      a block a codeword, a thread a position i, the error-locator
//                      polynomial Lambda (degree <= 8) evaluated at alpha^-i with the
//                      log/antilog tables staged in shared memory; the roots (the error
//                      positions) flagged and counted by a shared atomicAdd
//   polar_encode       polar encoding (Arikan, N = 1024, K = 512, x = u F^{(x)10}): a block
//                      a codeword, the info bits scattered to their reliable positions in
//                      shared memory (frozen bits 0), 10 stages of XOR butterflies with a
//                      __syncthreads after each, the codeword stored
//   deinterleave_llr   the receiver's block deinterleaver (64 x 128: the transmitter wrote
//                      rows and sent columns) turning BPSK channel samples into LLRs
//                      (2 y / sigma^2), a thread an output LLR: a strided load, a coalesced
//                      store
//   ber_count          bit-error counting of a BPSK/AWGN simulation: a thread a bit, the hard
//                      decision against the transmitted bit, each error counted by
//                      atomicAdd into its frame's counter (for the frame error rate) and the
//                      run's total (for the bit error rate)

#define SEC_PARITY 7          // secded72: Hamming parity bits (positions 1, 2, 4, .., 64)
#define RS_N 255              // rs_chien_search: the code's length (positions 0 .. 254)
#define RS_T 8                // rs_chien_search: the errors it corrects (Lambda's degree <= RS_T)
#define POLAR_N 1024          // polar_encode: codeword bits (blockDim.x == POLAR_N / 2)
#define POLAR_K 512           // polar_encode: info bits a codeword
#define IL_ROWS 64            // deinterleave_llr: the interleaver's rows
#define IL_COLS 128           // deinterleave_llr: the interleaver's columns
#define IL_LEN (IL_ROWS * IL_COLS)
#define BER_FRAME 1024        // ber_count: bits a frame

// secded72's tables (set by the host): the data bits each Hamming parity bit covers, and
// for each syndrome (a codeword position 0 .. 127) the data bit there (-1: none)
__constant__ unsigned long long c_sec_mask[SEC_PARITY];
__constant__ int c_sec_pos2bit[128];

extern "C" {

// SECDED(72,64): n words; check byte bits 0..6 the Hamming parities, bit 7 the overall
// parity (all 72 bits even). Corrected words in out, status 0 clean, 1 corrected (a data
// or a check bit), 2 uncorrectable (counted in *n_uncorrectable)
__global__ void secded72_correct(const unsigned long long *data, const unsigned char *check,
                                 unsigned long long *out, unsigned char *status, int *n_uncorrectable, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long d = data[i];
    unsigned int c = check[i];
    unsigned int syn = 0;
    for (int k = 0; k < SEC_PARITY; k++) {
        unsigned int p = (__popcll(d & c_sec_mask[k]) + ((c >> k) & 1u)) & 1u;
        syn |= p << k;
    }
    unsigned int odd = (__popcll(d) + __popc(c)) & 1u;
    unsigned char st = 0;
    if (odd) {
        // one bit flipped: a check bit (syndrome 0 or a power of two) or a data bit
        if (syn == 0 || (syn & (syn - 1)) == 0) {
            st = 1;
        } else {
            int b = c_sec_pos2bit[syn];
            if (b >= 0) {
                d ^= 1ull << b;
                st = 1;
            } else {
                st = 2;
                atomicAdd(n_uncorrectable, 1);
            }
        }
    } else if (syn != 0) {
        // even parity but a syndrome: two bits flipped
        st = 2;
        atomicAdd(n_uncorrectable, 1);
    }
    out[i] = d;
    status[i] = st;
}

// one bit-flipping iteration: variable v's checks are var_chk[var_ptr[v] .. var_ptr[v+1]),
// syndrome[c] is 1 when check c fails; the hard bits after the iteration in bits_out
__global__ void ldpc_bitflip(const int *var_ptr, const int *var_chk, const unsigned char *syndrome,
                             const unsigned char *bits, unsigned char *bits_out, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    int start = var_ptr[v];
    int end = var_ptr[v + 1];
    int unsat = 0;
    for (int e = start; e < end; e++) unsat += syndrome[var_chk[e]];
    unsigned char b = bits[v];
    if (2 * unsat > end - start) b ^= 1;
    bits_out[v] = b;
}

// Chien search: codeword cw's error locator lambda[cw * (RS_T + 1) + j] (coefficient of
// x^j, lambda_0 = 1); position i is in error when Lambda(alpha^-i) == 0; err_pos gets a
// 0/1 byte a position, n_roots the roots found (== deg Lambda when decoding succeeded)
__global__ void rs_chien_search(const unsigned char *lambda, const unsigned char *gf_exp,
                                const unsigned char *gf_log, unsigned char *err_pos, int *n_roots, int ncw) {
    __shared__ unsigned char s_exp[256];
    __shared__ unsigned char s_log[256];
    __shared__ unsigned char s_lam[RS_T + 1];
    __shared__ int s_count;
    int t = threadIdx.x;            // blockDim.x == 256
    int cw = blockIdx.x;
    s_exp[t] = gf_exp[t];
    s_log[t] = gf_log[t];
    if (t <= RS_T) s_lam[t] = lambda[cw * (RS_T + 1) + t];
    if (t == 0) s_count = 0;
    __syncthreads();
    if (t < RS_N) {
        int val = 0;
        for (int j = 0; j <= RS_T; j++) {
            int l = s_lam[j];
            if (l != 0) val ^= s_exp[(s_log[l] + j * (RS_N - t)) % RS_N];
        }
        unsigned char root = (val == 0);
        err_pos[cw * RS_N + t] = root;
        if (root) atomicAdd(&s_count, 1);
    }
    __syncthreads();
    if (t == 0) n_roots[cw] = s_count;
}

// polar encoding of ncw codewords: u holds POLAR_K info bits (bytes) a codeword, placed
// at info_pos[0 .. POLAR_K) (the reliable positions), the rest frozen to 0; x = u F^{(x)n}
// by butterflies u[i] ^= u[i + half] for half = 1, 2, .., POLAR_N / 2
__global__ void polar_encode(const unsigned char *u, const int *info_pos, unsigned char *x, int ncw) {
    __shared__ unsigned char s[POLAR_N];
    int t = threadIdx.x;            // blockDim.x == POLAR_N / 2 == POLAR_K
    int cw = blockIdx.x;
    s[t] = 0;
    s[t + POLAR_N / 2] = 0;
    __syncthreads();
    s[info_pos[t]] = u[cw * POLAR_K + t];
    __syncthreads();
    for (int half = 1; half < POLAR_N; half <<= 1) {
        int i = (t / half) * 2 * half + (t % half);
        s[i] ^= s[i + half];
        __syncthreads();
    }
    x[cw * POLAR_N + t] = s[t];
    x[cw * POLAR_N + t + POLAR_N / 2] = s[t + POLAR_N / 2];
}

// block deinterleaving of n samples (frames of IL_LEN): the transmitter wrote a frame's
// bits row by row into IL_ROWS x IL_COLS and sent it column by column, so output k = r
// IL_COLS + c of a frame is received sample c IL_ROWS + r; llr = scale * y
__global__ void deinterleave_llr(const float *y, float *llr, float scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int f = i / IL_LEN;
    int k = i % IL_LEN;
    int r = k / IL_COLS;
    int c = k % IL_COLS;
    llr[i] = scale * y[f * IL_LEN + c * IL_ROWS + r];
}

// BER count of n BPSK bits (0 -> +1, 1 -> -1) received as y: a negative sample decides 1;
// each wrong decision adds 1 to its frame's counter and to the total
__global__ void ber_count(const float *y, const unsigned char *tx, int *frame_err, int *total_err, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned char rx = y[i] < 0.0f ? 1 : 0;
    if (rx != tx[i]) {
        atomicAdd(&frame_err[i / BER_FRAME], 1);
        atomicAdd(total_err, 1);
    }
}

}
