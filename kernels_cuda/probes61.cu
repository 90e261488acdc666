// probe-unseen59: a bioinformatics course's CUDA assignments (sequence encoding, motif
// search, alignment, read pileup, genome statistics, read preprocessing), as a student who
// knows CUDA basics hands them in: packing an ASCII genome (soft-masked lower case, N
// gaps) into 2-bit codes, a thread reading 16 bases through one uint4 load and writing one
// uint32; a position-weight-matrix scan, a thread a position of a byte-coded genome (codes
// 0-3) summing a 12-long motif's log-odds scores from __constant__ memory on both strands
// and keeping the better, the last 11 positions (no whole motif) scoring -INFINITY;
// Smith-Waterman local alignment with affine gaps (Gotoh), a thread a 48 x 48 pair of
// byte-coded sequences, the H row and the vertical-gap row in local arrays, the best cell
// written; a coverage pileup, a thread a base of a 100-base aligned read adding one to the
// (reference position, base) count by atomicAdd, bases past the reference's end dropped;
// the GC fraction of every 1000-base window (stride 1) of an ASCII genome, a block of 256
// windows staging its 1280-base tile (the 999-base halo included) in shared memory and
// scanning its GC flags into a per-block prefix count; and BWA's 3' quality trimming, a
// warp a read of up to 150 Phred+33 qualities, 32 positions a round from the 3' end, the
// running sum by __shfl_up_sync, the stop and the arg-max by __ballot_sync and
// __shfl_xor_sync.

#define PWM_LEN 12           // pwm_scan: the motif's length

#define SW_QLEN 48           // sw_affine_batch: query and target lengths
#define SW_TLEN 48
#define SW_MATCH 2
#define SW_MISMATCH (-3)
#define SW_GAP_OPEN 5        // the first base of a gap
#define SW_GAP_EXTEND 2      // each further base
#define SW_NEG (-100000)     // minus infinity for the gap scores

#define READ_LEN 100         // coverage_pileup: bases a read

#define GC_WIN 1000          // gc_window: the window
#define GC_BLOCK 256         // threads (windows) a block
#define GC_PER 5             // tile bases a thread counts: GC_BLOCK * GC_PER >= GC_BLOCK + GC_WIN - 1
#define GC_TILE (GC_BLOCK * GC_PER)

#define QT_MAXLEN 150        // quality_trim: bytes a read's qualities take (shorter reads padded)
#define QT_MINLEN 35         // BWA_MIN_RDLEN: a read is never trimmed below this

__constant__ float c_pwm[PWM_LEN][4];   // pwm_scan: log-odds of base b (A C G T = 0 1 2 3) at motif position k

// the 2-bit code of an ASCII base: A 0, C 1, G 2, T 3, lower case as upper case; N (or
// anything else) 0
__device__ unsigned base2bit(unsigned char c) {
    c = c & 0xDF;                   // to upper case
    if (c == 'C') return 1u;
    if (c == 'G') return 2u;
    if (c == 'T') return 3u;
    return 0u;
}

extern "C" {

// 2-bit packing: word i holds bases 16 i .. 16 i + 15, base j of the word in bits 2 j and
// 2 j + 1 (the first base lowest); the host pads the genome with N to a multiple of 16
__global__ void dna_pack_2bit(const uint4 *seq, unsigned *packed, int nwords) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nwords) return;
    uint4 v = seq[i];
    unsigned w[4] = {v.x, v.y, v.z, v.w};
    unsigned out = 0;
    for (int k = 0; k < 4; k++) {
        for (int b = 0; b < 4; b++) {
            unsigned char c = (w[k] >> (8 * b)) & 0xFF;
            out |= base2bit(c) << (2 * (4 * k + b));
        }
    }
    packed[i] = out;
}

// motif scan: position i scores sum_k pwm[k][seq[i + k]] on the forward strand and
// sum_k pwm[k][3 - seq[i + 11 - k]] on the reverse complement and keeps the larger;
// positions from n - 11 on (the motif would run off the end) get -INFINITY
__global__ void pwm_scan(const unsigned char *seq, float *score, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (i > n - PWM_LEN) {
        score[i] = -INFINITY;
        return;
    }
    float fwd = 0.0f, rev = 0.0f;
    for (int k = 0; k < PWM_LEN; k++) {
        fwd += c_pwm[k][seq[i + k]];
        rev += c_pwm[k][3 - seq[i + PWM_LEN - 1 - k]];
    }
    score[i] = fmaxf(fwd, rev);
}

// Smith-Waterman with affine gaps (Gotoh): pair p aligns query p against target p (48
// bytes each, codes 0-3) row by row of the query; H[j] holds the best score of an
// alignment ending at (i, j), F[j] that of one ending in a gap in the target (vertical), e
// that of one ending in a gap in the query (horizontal); a gap of length L costs
// GAP_OPEN + (L - 1) GAP_EXTEND; the best H over the matrix (0 at least) is written
__global__ void sw_affine_batch(const unsigned char *query, const unsigned char *target, int *score, int npairs) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npairs) return;
    const unsigned char *q = query + p * SW_QLEN;
    const unsigned char *t = target + p * SW_TLEN;
    int H[SW_TLEN + 1], F[SW_TLEN + 1];
    for (int j = 0; j <= SW_TLEN; j++) {
        H[j] = 0;
        F[j] = SW_NEG;
    }
    int best = 0;
    for (int i = 1; i <= SW_QLEN; i++) {
        unsigned char qc = q[i - 1];
        int diag = 0;                // H[i - 1][j - 1]
        int e = SW_NEG;
        for (int j = 1; j <= SW_TLEN; j++) {
            int f = max(F[j] - SW_GAP_EXTEND, H[j] - SW_GAP_OPEN);       // H[j]: row i - 1
            e = max(e - SW_GAP_EXTEND, H[j - 1] - SW_GAP_OPEN);          // H[j - 1]: row i
            int h = diag + (qc == t[j - 1] ? SW_MATCH : SW_MISMATCH);
            h = max(max(h, 0), max(e, f));
            diag = H[j];
            H[j] = h;
            F[j] = f;
            best = max(best, h);
        }
    }
    score[p] = best;
}

// pileup: thread g is base g % 100 of read g / 100, aligned at start[read] + g % 100 with
// base code bases[g] (0-3); count[4 pos + base] += 1, positions from ref_len on dropped
__global__ void coverage_pileup(const unsigned char *bases, const int *start, int *count, int nreads, int ref_len) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nreads * READ_LEN) return;
    int r = g / READ_LEN;
    int pos = start[r] + (g - r * READ_LEN);
    if (pos >= ref_len) return;
    atomicAdd(&count[4 * pos + bases[g]], 1);
}

// GC content: window w covers bases w .. w + 999 of an ASCII genome (C, G, c, g count; A,
// T, N and lower case a, t do not) and gets its GC count / 1000; n - 999 windows.  Block b
// stages the flags of bases 256 b .. 256 b + 1279 (0 past the end), each thread sums 5 of
// them, a Hillis-Steele scan of the 256 sums gives each thread its offset and pre[k] is
// the count of the tile's first k flags
__global__ void gc_window(const unsigned char *seq, float *gc, int n) {
    __shared__ unsigned char flag[GC_TILE];
    __shared__ int part[GC_BLOCK];
    __shared__ int pre[GC_TILE + 1];
    int tid = threadIdx.x;
    int base0 = blockIdx.x * GC_BLOCK;
    for (int k = tid; k < GC_TILE; k += GC_BLOCK) {
        int g = base0 + k;
        unsigned char f = 0;
        if (g < n) {
            unsigned char c = seq[g] & 0xDF;
            f = (c == 'C' || c == 'G') ? 1 : 0;
        }
        flag[k] = f;
    }
    __syncthreads();
    int mine = 0;
    for (int k = 0; k < GC_PER; k++) mine += flag[tid * GC_PER + k];
    part[tid] = mine;
    __syncthreads();
    for (int off = 1; off < GC_BLOCK; off <<= 1) {
        int v = tid >= off ? part[tid - off] : 0;
        __syncthreads();
        part[tid] += v;
        __syncthreads();
    }
    int run = part[tid] - mine;          // the flags before my 5
    if (tid == 0) pre[0] = 0;
    for (int k = 0; k < GC_PER; k++) {
        run += flag[tid * GC_PER + k];
        pre[tid * GC_PER + k + 1] = run;
    }
    __syncthreads();
    int w = base0 + tid;
    if (w < n - GC_WIN + 1) gc[w] = (pre[tid + GC_WIN] - pre[tid]) / (float)GC_WIN;
}

// BWA's 3' trimming (bwa_trim_read): going from the last base towards position 35,
// s += thr - (q - 33); stop at the first s < 0; the kept length is the position with the
// largest s > 0 (the first met, so the longest read on ties), the whole read when none.
// A warp a read: each round covers 32 positions, lane 0 the 3'-most
__global__ void quality_trim(const unsigned char *qual, const int *len, int *kept, int nreads, int thr) {
    int read = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (read >= nreads) return;
    const unsigned char *q = qual + read * QT_MAXLEN;
    int L = len[read];
    int carry = 0;                   // s after the rounds done
    int best = 0, best_l = L;
    for (int top = L - 1; top >= QT_MINLEN; top -= 32) {
        int l = top - lane;
        bool valid = l >= QT_MINLEN;
        int v = valid ? thr - (q[l] - 33) : 0;
        for (int off = 1; off < 32; off <<= 1) {
            int u = __shfl_up_sync(0xffffffffu, v, off);
            if (lane >= off) v += u;
        }
        int s = carry + v;
        unsigned neg = __ballot_sync(0xffffffffu, valid && s < 0);
        int stop = neg ? __ffs(neg) - 1 : 32;
        int m = (valid && lane < stop) ? s : -1;
        int ml = lane;
        for (int off = 16; off > 0; off >>= 1) {
            int om = __shfl_xor_sync(0xffffffffu, m, off);
            int ol = __shfl_xor_sync(0xffffffffu, ml, off);
            if (om > m || (om == m && ol < ml)) {
                m = om;
                ml = ol;
            }
        }
        if (m > best) {
            best = m;
            best_l = top - ml;
        }
        if (neg) break;
        carry = __shfl_sync(0xffffffffu, s, 31);
    }
    if (lane == 0) kept[read] = best_l;
}

}
