// probe-unseen222: a digital image forensics / steganography course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - lsbm_embed: LSB matching (+-1 embedding) of a message into an 8-bit photo along a
//    keyed pseudo-random path (an affine permutation of the pixels: the step k of pixel i
//    by 64-bit modular arithmetic, the message word gathered at k / 32), the +-1 from a
//    keyed integer hash, saturated pixels pushed inwards; a block-uniform grid-stride loop,
//    the changed and used pixels counted by __ballot_sync / __popc and one global atomic
//    a warp;
//  - chi2_attack: Westfeld and Pfitzmann's chi-square attack on sequential LSB replacement,
//    a block an image: the histogram of a growing prefix of the image in shared memory
//    (contended shared int atomics), after each segment the chi-square statistic over the
//    pairs of values (2k, 2k + 1) in double (a warp shuffle reduction in double) and its
//    p-value Q(df / 2, chi2 / 2) by Numerical Recipes' series / continued fraction
//    (lgamma, exp, log; one thread, a divergent loop);
//  - rs_counts: Fridrich, Goljan and Du's RS steganalysis: groups of 4 horizontally
//    adjacent pixels read as uchar4, the flipping functions F1, F-1 under 4 masks from a
//    __constant__ table, the regular / singular groups counted for M and -M, for the image
//    and for the image with every LSB flipped, in a per-thread local array of 32 counters
//    (a grid-stride loop over an image's groups), then warp shuffles and global atomics;
//  - jpeg_dct_hist: the 8 x 8 block DCT of a (decompressed) JPEG image, a block of 8 x 8
//    threads a JPEG block, by rows and columns through shared memory with a __constant__
//    cosine table, quantised by a __constant__ quantisation table into 16-bit coefficients;
//    the first 9 AC modes' histograms (double-compression artefacts) by global atomics,
//    each block's statistics (a struct: DC, AC energy by a shared float atomic, nonzero
//    count by __syncthreads_count, last nonzero zigzag index by a shared atomicMax);
//  - srm_cooc: SRM-style noise residuals (first-order, second-order, the 5 x 5 KV filter
//    from a __constant__ table) of a tile with a halo in shared memory, quantised (floorf)
//    and truncated to [-2, 2] into a shared byte array, the co-occurrences of 4 horizontal
//    neighbours (625 bins a filter) counted by shared int atomics (most on the all-zero
//    bin) and flushed by global atomics, the KV residual's energy by a shared and a global
//    float atomic;
//  - copymove_hash: exact-match copy-move forgery detection: every overlapping 8 x 8 block
//    not flat hashed (FNV-1a 64 of its bytes) and inserted into a global hash table by
//    64-bit atomicCAS with linear probing (key and position packed in a word); a block whose
//    key is already there is a match: appended to a list of structs (a global atomic
//    counter), its shift counted in a coarse shift histogram (global atomics).

#define FULL_MASK 0xffffffffu

#define CHI_BINS 256            // chi2_attack: 8-bit pixel values
#define CHI_WARPS 4             // the 128 pairs of values: 4 warps
#define CHI_MINCAT 10           // a pair of values counted when its two bins hold 10 pixels or more
#define CHI_ITMAX 500
#define CHI_EPS 1e-14
#define CHI_FPMIN 1e-300

#define RS_NMASK 4              // rs_counts: masks
#define RS_NCNT (RS_NMASK * 8)  // R_M, S_M, R_-M, S_-M, then the same with every LSB flipped, a mask

#define DCT_N 8
#define DCT_MODES 9             // jpeg_dct_hist: the AC modes of zigzag index 1 .. 9 histogrammed
#define DCT_HB 20               // quantised values -20 .. 20
#define DCT_HBINS (2 * DCT_HB + 1)

#define SRM_TW 32               // srm_cooc: a block's tile, SRM_TW x SRM_TH threads
#define SRM_TH 8
#define SRM_NF 3                // filters: first-order, second-order, KV
#define SRM_T 2                 // truncation threshold
#define SRM_BINS 625            // (2 T + 1)^4

#define CM_B 8                  // copymove_hash: block side
#define CM_POSBITS 24           // a table word: key (40 bits) << 24 | y * width + x
#define CM_EMPTY 0xffffffffffffffffULL
#define CM_MINSHIFT 16          // matches closer than this (pixels) ignored
#define CM_SHSHIFT 4            // the shift histogram's bins: 16 x 16 pixels

struct BlockStat {
    float dc;                   // the dequantised DC coefficient
    float ac_energy;            // sum of |AC coefficient| before quantisation
    unsigned short nnz;         // nonzero quantised AC coefficients
    unsigned short last;        // zigzag index of the last nonzero one (0: none)
};

struct CmMatch {
    int a;                      // the block that found the key (y * width + x)
    int b;                      // the block that inserted it first
};

// rs_counts: 4 masks of 0 / 1 (1: flip that pixel), -M their negatives
__constant__ int c_rs_mask[RS_NMASK][4];

// jpeg_dct_hist: c_dct[u][x] = C(u) / 2 cos((2 x + 1) u pi / 16), the quantisation table
// (row-major, v * 8 + u), the zigzag index of each (v, u)
__constant__ float c_dct[DCT_N][DCT_N];
__constant__ float c_qtab[DCT_N * DCT_N];
__constant__ unsigned char c_zigzag[DCT_N * DCT_N];

// srm_cooc: the KV ("SQUARE 5x5") filter times 12, the quantisation steps of the 3 residuals
__constant__ int c_kv[5][5];
__constant__ float c_srm_q[SRM_NF];

// ---------------------------------------------------------------- lsbm_embed

// lowbias32 (C. Wellons): a 32-bit integer hash
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

extern "C" {

// n pixels; the embedding path visits pixel (a k + b) mod n at step k (gcd(a, n) = 1), so
// pixel i is step k = (i - b) a_inv mod n and carries message bit k (bit k % 32 of msg[k / 32])
// when k < nbits; LSB matching: a pixel whose LSB is not its bit goes up or down by 1 (the
// hash of key ^ i's lowest bit; 0 up, 255 down); counts[0] += pixels changed, counts[1] +=
// pixels carrying a bit
__global__ void lsbm_embed(const unsigned char *cover, const unsigned int *msg, unsigned char *stego, int n,
                           unsigned int a_inv, int b, int nbits, unsigned int key, int *counts) {
    int lane = threadIdx.x % 32;
    int my_changed = 0, my_used = 0;
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        int i = base + threadIdx.x;
        bool used = false, changed = false;
        if (i < n) {
            unsigned long long k = ((unsigned long long)(i + n - b) * a_inv) % n;
            int x = cover[i];
            if (k < (unsigned long long)nbits) {
                used = true;
                int bit = (msg[k / 32] >> (k % 32)) & 1;
                if ((x & 1) != bit) {
                    changed = true;
                    unsigned int h = hash32(key ^ (unsigned int)i);
                    if (x == 0) x = 1;
                    else if (x == 255) x = 254;
                    else if (h & 1) x = x + 1;
                    else x = x - 1;
                }
            }
            stego[i] = (unsigned char)x;
        }
        unsigned int mc = __ballot_sync(FULL_MASK, changed);
        unsigned int mu = __ballot_sync(FULL_MASK, used);
        if (lane == 0) {
            my_changed += __popc(mc);
            my_used += __popc(mu);
        }
    }
    if (lane == 0) {
        atomicAdd(&counts[0], my_changed);
        atomicAdd(&counts[1], my_used);
    }
}

}

// ---------------------------------------------------------------- chi2_attack

// the upper regularised incomplete gamma function Q(a, x): Numerical Recipes' series for
// x < a + 1, else the continued fraction by Lentz's method
__device__ double gamma_q(double a, double x) {
    if (x <= 0.0) return 1.0;
    double lpre = -x + a * log(x) - lgamma(a);
    if (x < a + 1.0) {
        double ap = a, del = 1.0 / a, sum = del;
        for (int it = 0; it < CHI_ITMAX; it++) {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if (fabs(del) < fabs(sum) * CHI_EPS) break;
        }
        return 1.0 - sum * exp(lpre);
    }
    double b = x + 1.0 - a, c = 1.0 / CHI_FPMIN, d = 1.0 / b, h = d;
    for (int it = 1; it <= CHI_ITMAX; it++) {
        double an = -it * (it - a);
        b += 2.0;
        d = an * d + b;
        if (fabs(d) < CHI_FPMIN) d = CHI_FPMIN;
        c = b + an / c;
        if (fabs(c) < CHI_FPMIN) c = CHI_FPMIN;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < CHI_EPS) break;
    }
    return exp(lpre) * h;
}

extern "C" {

// images of npix pixels one after another, a block (of 128 threads or more) an image:
// after its first (s + 1) npix / nseg pixels (s = 0 .. nseg - 1) chi2[o] = sum over the
// pairs of values (2k, 2k + 1) whose bins hold CHI_MINCAT pixels or more of
// (h[2k] - e)^2 / e, e = (h[2k] + h[2k + 1]) / 2; df[o] = such pairs - 1, p[o] = the
// probability of embedding Q(df / 2, chi2 / 2) (1 when df < 1); o = image * nseg + s
__global__ void chi2_attack(const unsigned char *img, int npix, int nseg, double *chi2, double *p, int *df) {
    __shared__ int s_hist[CHI_BINS];
    __shared__ double s_chi[CHI_WARPS];
    __shared__ int s_cat[CHI_WARPS];
    const unsigned char *im = img + (size_t)blockIdx.x * npix;
    for (int k = threadIdx.x; k < CHI_BINS; k += blockDim.x) s_hist[k] = 0;
    __syncthreads();
    for (int s = 0; s < nseg; s++) {
        int lo = s * npix / nseg, hi = (s + 1) * npix / nseg;
        for (int i = lo + threadIdx.x; i < hi; i += blockDim.x) atomicAdd(&s_hist[im[i]], 1);
        __syncthreads();
        if (threadIdx.x < CHI_BINS / 2) {
            int h0 = s_hist[2 * threadIdx.x], h1 = s_hist[2 * threadIdx.x + 1];
            double term = 0.0;
            int cat = 0;
            if (h0 + h1 >= CHI_MINCAT) {
                double e = 0.5 * (h0 + h1);
                term = (h0 - e) * (h0 - e) / e;
                cat = 1;
            }
            for (int o = 16; o > 0; o /= 2) {
                term += __shfl_down_sync(FULL_MASK, term, o);
                cat += __shfl_down_sync(FULL_MASK, cat, o);
            }
            if (threadIdx.x % 32 == 0) {
                s_chi[threadIdx.x / 32] = term;
                s_cat[threadIdx.x / 32] = cat;
            }
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            double x = 0.0;
            int c = 0;
            for (int w = 0; w < CHI_WARPS; w++) {
                x += s_chi[w];
                c += s_cat[w];
            }
            int o = blockIdx.x * nseg + s;
            chi2[o] = x;
            df[o] = c - 1;
            p[o] = (c > 1) ? gamma_q(0.5 * (c - 1), 0.5 * x) : 1.0;
        }
    }
}

}

// ---------------------------------------------------------------- rs_counts

// the flipping function F_m of a pixel value: m = 1: F1 (2k <-> 2k + 1), m = -1: F-1
// (2k - 1 <-> 2k), m = 0: the identity
__device__ int rs_flip(int x, int m) {
    if (m == 1) return x ^ 1;
    if (m == -1) return ((x + 1) ^ 1) - 1;
    return x;
}

// the discrimination function: the group's variation
__device__ int rs_var(const int *x) {
    return abs(x[1] - x[0]) + abs(x[2] - x[1]) + abs(x[3] - x[2]);
}

extern "C" {

// images of npix pixels (a multiple of 4) one after another, blockIdx.y the image, groups
// of 4 pixels (a uchar4); counts[(image * RS_NMASK + m) * 8 + c]: for mask m, c = 0 .. 3
// the groups that F_M makes regular (variation up), singular (down), then the same for
// F_-M; c = 4 .. 7 the same for the image with every LSB flipped
__global__ void rs_counts(const uchar4 *img, int npix, int *counts) {
    int cnt[RS_NCNT];
    for (int k = 0; k < RS_NCNT; k++) cnt[k] = 0;
    int ng = npix / 4;
    const uchar4 *im = img + (size_t)blockIdx.y * ng;
    for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < ng; g += gridDim.x * blockDim.x) {
        uchar4 q = im[g];
        int x[4] = {q.x, q.y, q.z, q.w};
        for (int v = 0; v < 2; v++) {
            int z[4];
            for (int j = 0; j < 4; j++) z[j] = v ? (x[j] ^ 1) : x[j];
            int f0 = rs_var(z);
            for (int m = 0; m < RS_NMASK; m++) {
                int y[4];
                for (int j = 0; j < 4; j++) y[j] = rs_flip(z[j], c_rs_mask[m][j]);
                int fp = rs_var(y);
                for (int j = 0; j < 4; j++) y[j] = rs_flip(z[j], -c_rs_mask[m][j]);
                int fn = rs_var(y);
                int *c = &cnt[m * 8 + v * 4];
                if (fp > f0) c[0]++;
                else if (fp < f0) c[1]++;
                if (fn > f0) c[2]++;
                else if (fn < f0) c[3]++;
            }
        }
    }
    int lane = threadIdx.x % 32;
    for (int k = 0; k < RS_NCNT; k++) {
        int v = cnt[k];
        for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(FULL_MASK, v, o);
        if (lane == 0 && v > 0) atomicAdd(&counts[blockIdx.y * RS_NCNT + k], v);
    }
}

// ---------------------------------------------------------------- jpeg_dct_hist

// a width-pixel-wide image (width and the height multiples of 8), a block of 8 x 8 threads
// an 8 x 8 JPEG block: its DCT (pixels level-shifted by 128), quantised by c_qtab and rounded
// into coef[block * 64 + v * 8 + u] (blocks in raster order); hist[(zz - 1) * 41 + q + 20]
// += 1 for the AC modes of zigzag index zz = 1 .. 9 with q in -20 .. 20; stat[block] its
// statistics
__global__ void jpeg_dct_hist(const unsigned char *img, int width, short *coef, BlockStat *stat, int *hist) {
    __shared__ float s_pix[DCT_N][DCT_N];
    __shared__ float s_tmp[DCT_N][DCT_N];
    __shared__ float s_energy;
    __shared__ int s_last;
    int u = threadIdx.x, v = threadIdx.y;
    int x = blockIdx.x * DCT_N + u, y = blockIdx.y * DCT_N + v;
    if (u == 0 && v == 0) {
        s_energy = 0.0f;
        s_last = 0;
    }
    s_pix[v][u] = (float)img[y * width + x] - 128.0f;
    __syncthreads();
    // along the rows: s_tmp[v][u] = sum_k c_dct[u][k] s_pix[v][k] (v the pixel row here)
    float t = 0.0f;
    for (int k = 0; k < DCT_N; k++) t += c_dct[u][k] * s_pix[v][k];
    s_tmp[v][u] = t;
    __syncthreads();
    // along the columns: coefficient (v, u)
    float d = 0.0f;
    for (int k = 0; k < DCT_N; k++) d += c_dct[v][k] * s_tmp[k][u];
    int q = (int)roundf(d / c_qtab[v * DCT_N + u]);
    int blk = blockIdx.y * gridDim.x + blockIdx.x;
    coef[blk * 64 + v * DCT_N + u] = (short)q;
    int zz = c_zigzag[v * DCT_N + u];
    if (zz > 0) {
        atomicAdd(&s_energy, fabsf(d));
        if (q != 0) atomicMax(&s_last, zz);
        if (zz <= DCT_MODES && q >= -DCT_HB && q <= DCT_HB) atomicAdd(&hist[(zz - 1) * DCT_HBINS + q + DCT_HB], 1);
    }
    int nnz = __syncthreads_count(zz > 0 && q != 0);
    if (u == 0 && v == 0) {
        BlockStat st;
        st.dc = q * c_qtab[0];
        st.ac_energy = s_energy;
        st.nnz = (unsigned short)nnz;
        st.last = (unsigned short)s_last;
        stat[blk] = st;
    }
}

// ---------------------------------------------------------------- srm_cooc

// images of width x img_h pixels stacked row-wise (img_h a multiple of SRM_TH), a block a
// tile of SRM_TW x SRM_TH pixels; residuals 0: x[i][j + 1] - x[i][j], 1: x[i][j - 1] -
// 2 x[i][j] + x[i][j + 1], 2: the KV filter (times 12), defined where the 5 x 5 neighbourhood
// lies in the image; each quantised floor(r / q + 1/2) and truncated to [-T, T];
// hist[(image * 3 + f) * 625 + d0 + 5 d1 + 25 d2 + 125 d3] += the horizontal 4-tuples
// (residuals at j .. j + 3, d = residual + T) all defined; energy[image] += (KV / 12)^2
__global__ void srm_cooc(const unsigned char *img, int width, int img_h, int *hist, float *energy) {
    __shared__ int s_pix[SRM_TH + 4][SRM_TW + 7];            // rows y0 - 2 .., columns x0 - 2 .. x0 + TW + 4
    __shared__ signed char s_res[SRM_NF][SRM_TH][SRM_TW + 3];
    __shared__ int s_hist[SRM_NF * SRM_BINS];
    __shared__ float s_energy;
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * SRM_TW + tx;
    int x0 = blockIdx.x * SRM_TW, y0 = blockIdx.y * SRM_TH;
    int b = y0 / img_h;                                       // the image: tiles never straddle two
    int r0 = y0 - b * img_h;                                  // the tile's first row in it
    for (int k = t; k < SRM_NF * SRM_BINS; k += SRM_TW * SRM_TH) s_hist[k] = 0;
    if (t == 0) s_energy = 0.0f;
    for (int k = t; k < (SRM_TH + 4) * (SRM_TW + 7); k += SRM_TW * SRM_TH) {
        int a = k % (SRM_TW + 7), c = k / (SRM_TW + 7);
        int gx = x0 + a - 2, gr = r0 + c - 2;
        int val = 0;
        if (gx >= 0 && gx < width && gr >= 0 && gr < img_h) val = img[(b * img_h + gr) * width + gx];
        s_pix[c][a] = val;
    }
    __syncthreads();
    // the residuals of column x0 + tx and, threads tx < 3, of x0 + SRM_TW + tx
    for (int col = tx; col < SRM_TW + 3; col += SRM_TW) {
        int gx = x0 + col, gr = r0 + ty;
        bool ok = gx >= 2 && gx < width - 2 && gr >= 2 && gr < img_h - 2;
        int cy = ty + 2, cx = col + 2;
        int r[SRM_NF];
        r[0] = s_pix[cy][cx + 1] - s_pix[cy][cx];
        r[1] = s_pix[cy][cx - 1] - 2 * s_pix[cy][cx] + s_pix[cy][cx + 1];
        int kv = 0;
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++) kv += c_kv[i][j] * s_pix[cy - 2 + i][cx - 2 + j];
        r[2] = kv;
        for (int f = 0; f < SRM_NF; f++) {
            float qf = floorf((float)r[f] / c_srm_q[f] + 0.5f);
            qf = fminf(fmaxf(qf, (float)-SRM_T), (float)SRM_T);
            s_res[f][ty][col] = ok ? (signed char)qf : (signed char)127;
        }
        if (ok && col < SRM_TW) {
            float e = kv / 12.0f;
            atomicAdd(&s_energy, e * e);
        }
    }
    __syncthreads();
    int gx = x0 + tx, gr = r0 + ty;
    if (gx >= 2 && gx + 3 < width - 2 && gr >= 2 && gr < img_h - 2) {
        for (int f = 0; f < SRM_NF; f++) {
            int idx = 0;
            for (int k = 3; k >= 0; k--) idx = idx * (2 * SRM_T + 1) + s_res[f][ty][tx + k] + SRM_T;
            atomicAdd(&s_hist[f * SRM_BINS + idx], 1);
        }
    }
    __syncthreads();
    for (int k = t; k < SRM_NF * SRM_BINS; k += SRM_TW * SRM_TH)
        if (s_hist[k] > 0) atomicAdd(&hist[b * SRM_NF * SRM_BINS + k], s_hist[k]);
    if (t == 0) atomicAdd(&energy[b], s_energy);
}

// ---------------------------------------------------------------- copymove_hash

// a width x height image, a thread the 8 x 8 block at (x, y) (x <= width - 8, y <= height - 8):
// skipped when flat (max - min <= flat), else its bytes hashed (FNV-1a 64), the top 40 bits
// the key, and key << 24 | y * width + x inserted into table (tmask + 1 slots, a power of 2,
// all CM_EMPTY at first) at slot key & tmask by linear probing; a block that finds its key
// there matches the block stored: if their shift (dx, dy), signed so that dy > 0 or dy == 0
// and dx > 0, is CM_MINSHIFT long or more, the pair goes to matches[*nmatch] (while under
// max_match), *nmatch += 1 and shift_hist[(dy >> 4) * ((2 width >> 4) + 1) + ((dx + width) >> 4)] += 1
__global__ void copymove_hash(const unsigned char *img, int width, int height, int flat, unsigned long long *table,
                              unsigned int tmask, CmMatch *matches, int max_match, int *nmatch, int *shift_hist) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > width - CM_B || y > height - CM_B) return;
    unsigned long long h = 14695981039346656037ULL;
    int lo = 255, hi = 0;
    for (int r = 0; r < CM_B; r++) {
        for (int c = 0; c < CM_B; c++) {
            int p = img[(y + r) * width + x + c];
            lo = min(lo, p);
            hi = max(hi, p);
            h ^= (unsigned long long)p;
            h *= 1099511628211ULL;
        }
    }
    if (hi - lo <= flat) return;
    unsigned long long key = h >> CM_POSBITS;
    int pos = y * width + x;
    unsigned long long word = (key << CM_POSBITS) | (unsigned long long)pos;
    unsigned int s = (unsigned int)key & tmask;
    while (true) {
        unsigned long long old = atomicCAS(&table[s], CM_EMPTY, word);
        if (old == CM_EMPTY) break;
        if ((old >> CM_POSBITS) == key) {
            int other = (int)(old & ((1ULL << CM_POSBITS) - 1));
            int dx = x - other % width, dy = y - other / width;
            if (dy < 0 || (dy == 0 && dx < 0)) {
                dx = -dx;
                dy = -dy;
            }
            if (dx * dx + dy * dy >= CM_MINSHIFT * CM_MINSHIFT) {
                int k = atomicAdd(nmatch, 1);
                if (k < max_match) {
                    CmMatch m;
                    m.a = pos;
                    m.b = other;
                    matches[k] = m;
                }
                int nbx = ((2 * width) >> CM_SHSHIFT) + 1;
                atomicAdd(&shift_hist[(dy >> CM_SHSHIFT) * nbx + ((dx + width) >> CM_SHSHIFT)], 1);
            }
            break;
        }
        s = (s + 1) & tmask;
    }
}

}
