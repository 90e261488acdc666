// probe-unseen215: a statistical-genetics / GWAS course's CUDA assignments, as a student
// who knows CUDA basics hands them in:
//  - bed_qc: per-SNP quality control and the allelic case/control test straight from a
//    PLINK .bed genotype matrix (2 bits a genotype, SNP-major, rows re-padded to 32-bit
//    words), a warp a SNP in a grid-stride loop over the SNPs: each lane decodes its words
//    a byte at a time through a 256-entry __constant__ table of packed genotype counts,
//    the cases' genotypes picked out by a per-word case mask (the others turned into
//    "missing" by bit tricks), the counts summed by __shfl_down_sync; lane 0 computes the
//    allele frequency, the call rate, the Hardy-Weinberg chi-square in the controls
//    (erfcf), the 2x2 allelic chi-square and odds ratio, the QC verdict, and stores a struct;
//  - ld_r2_window: linkage disequilibrium r^2 between each SNP and the following SNPs
//    within a window in base pairs (at most 64), genotypes as two 64-bit bit planes (het,
//    hom-alt) over the samples: a block 64 anchor SNPs x 8 groups of 8 partners, the
//    anchors' and partners' words tiled through shared memory 16 words at a time
//    (__syncthreads), a window's length by a divergent loop over positions, sum xy by __popcll of
//    the planes' ANDs into a per-thread array, the per-SNP sums by the first 128 threads;
//    r^2 in double; the pairs over a threshold counted by __ballot_sync / __popc and a
//    global atomicAdd a warp;
//  - grm_tile: the genomic relationship matrix (GCTA) of standardized genotypes, 8-bit
//    hard calls SNP-major, as a 16 x 16 shared-memory tiled product over the SNPs, the
//    standardization (2p, rsqrtf(2p(1-p)), missing to 0) done while loading the tiles;
//    blocks below the diagonal return at once, each result stored twice (symmetric);
//  - logistic_score: the per-SNP score test of a logistic regression's null model with 8
//    covariates (fitted once on the host: residuals y - mu, weights mu(1 - mu) and the
//    inverse of X'WX), 16-bit imputed dosages SNP-major (as BGEN keeps a SNP's together),
//    a block a SNP, a thread every 256th subject: its dosage (coalesced) and its record
//    (a 40-byte struct of residual, weight and covariates), the score, sum w g^2 and
//    sum w g x_k (a per-thread array) in float, the 10 sums reduced by a shared-memory
//    tree with __syncthreads; thread 0 projects on the covariates and computes the
//    chi-square and p-value (erfc) in double;
//  - perm_maxt: Westfall-Young max-T permutations for a quantitative trait, a block (256
//    SNPs, one permutation): the permuted trait gathered into dynamic shared memory by
//    the host's permutation indices, each thread its SNP's correlation test statistic
//    over the samples (8-bit genotypes sample-major, coalesced, reread from L2 by every
//    permutation), a global atomicAdd where it reaches the observed statistic, the block's
//    maximum by __shfl_xor_sync, a shared atomicMax on the float's bits and a global one;
//  - prs_score: polygenic risk scores by clumping and thresholding at 8 p-value
//    thresholds (a __constant__ table), a thread a sample and a y-block a chunk of the
//    score file (16-byte structs: the .bed row, effect size, p-value, frequency): a
//    gathered .bed row a SNP, the sample's 2 bits shifted out, missing genotypes mean
//    imputed, each SNP's term added to its p-value tier in a per-thread array (a dynamic
//    index: local memory); the tiers' cumulative sums added to the scores by global float
//    atomics, the missing calls by global int atomics.

#define BED_LUT 256            // bed_qc: the decode table's entries (a byte)

#define LD_ANCHORS 64          // ld_r2_window: anchor SNPs a block (blockDim.x)
#define LD_WIN 64              // partners an anchor at most
#define LD_GROUP 8             // partners a thread (blockDim.y = LD_WIN / LD_GROUP)
#define LD_CHUNK 16            // 64-bit sample words a tile
#define LD_TILE (LD_ANCHORS + LD_WIN)

#define GRM_TILE 16            // grm_tile: samples and SNPs a tile

#define LS_K 8                 // logistic_score: covariates (intercept included)
#define LS_BLOCK 256           // threads a block (a power of 2)
#define LS_DOSE_SCALE (1.0f / 30000.0f)   // a stored dosage's unit

#define PRS_TIERS 8            // prs_score: p-value thresholds

struct SnpQc {
    int n_hom1;                // A1/A1 calls (.bed 00)
    int n_het;                 // (.bed 10)
    int n_hom2;                // A2/A2 (.bed 11)
    int n_miss;                // (.bed 01)
    float maf;                 // minor allele frequency of the calls
    float call_rate;
    float hwe_p;               // Hardy-Weinberg chi-square test, controls
    float chisq;               // allelic case/control chi-square, 1 df
    float odds_ratio;          // A1 in cases vs controls (-1 if a cell is empty)
    unsigned char pass;        // MAF, call rate and HWE filters passed
};

struct Subject {
    float r;                   // y - mu under the null model
    float w;                   // mu (1 - mu)
    float x[LS_K];             // covariates: 1, sex, age, PCs
};

struct ScoreSnp {
    int row;                   // the SNP's row in the .bed
    float beta;                // effect of A1 (log odds ratio)
    float pval;                // its GWAS p-value
    float freq;                // A1 frequency, for mean imputation
};

// a .bed byte's four genotypes counted: A1/A1 | het << 8 | A2/A2 << 16 | missing << 24
__constant__ unsigned int c_bed_lut[BED_LUT];

// the p-value thresholds of the scores, increasing (the last 1)
__constant__ float c_pthresh[PRS_TIERS];

extern "C" {

// nsnp SNPs of a .bed (row s: nwords 32-bit words, 16 samples a word, the low bits first,
// padding bits 0); case_mask[w] has 11 on the cases' 2-bit fields of word w
__global__ void bed_qc(const unsigned int *bed, const unsigned int *case_mask, int nsnp, int nwords, int nsamp,
                       float min_maf, float min_call, float min_hwe, SnpQc *out) {
    int lane = threadIdx.x % 32;
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int nwarps = gridDim.x * blockDim.x / 32;
    for (int snp = warp; snp < nsnp; snp += nwarps) {
        const unsigned int *row = bed + (size_t)snp * nwords;
        int a = 0, h = 0, b = 0, m = 0;     // all samples
        int ca = 0, ch = 0, cb = 0;         // cases
        for (int w = lane; w < nwords; w += 32) {
            unsigned int g = row[w];
            unsigned int cm = case_mask[w];
            unsigned int gc = (g & cm) | (0x55555555u & ~cm);   // the controls made missing
            for (int k = 0; k < 4; k++) {
                unsigned int e = c_bed_lut[(g >> (8 * k)) & 0xff];
                a += e & 0xff;
                h += (e >> 8) & 0xff;
                b += (e >> 16) & 0xff;
                m += e >> 24;
                unsigned int f = c_bed_lut[(gc >> (8 * k)) & 0xff];
                ca += f & 0xff;
                ch += (f >> 8) & 0xff;
                cb += (f >> 16) & 0xff;
            }
        }
        for (int o = 16; o > 0; o /= 2) {
            a += __shfl_down_sync(0xffffffff, a, o);
            h += __shfl_down_sync(0xffffffff, h, o);
            b += __shfl_down_sync(0xffffffff, b, o);
            m += __shfl_down_sync(0xffffffff, m, o);
            ca += __shfl_down_sync(0xffffffff, ca, o);
            ch += __shfl_down_sync(0xffffffff, ch, o);
            cb += __shfl_down_sync(0xffffffff, cb, o);
        }
        if (lane == 0) {
            a -= nwords * 16 - nsamp;       // the padding's 00s
            SnpQc q;
            q.n_hom1 = a;
            q.n_het = h;
            q.n_hom2 = b;
            q.n_miss = m;
            int n = a + h + b;
            float p = n > 0 ? (2.0f * a + h) / (2.0f * n) : 0.0f;
            q.maf = fminf(p, 1.0f - p);
            q.call_rate = (float)n / nsamp;
            // Hardy-Weinberg in the controls: n F^2, F from the genotype counts
            int ua = a - ca, uh = h - ch, ub = b - cb;
            int u1 = 2 * ua + uh, u2 = 2 * ub + uh;
            q.hwe_p = 1.0f;
            if (u1 > 0 && u2 > 0) {
                float f = (4.0f * ua * ub - (float)uh * uh) / ((float)u1 * u2);
                float chi = (ua + uh + ub) * f * f;
                q.hwe_p = erfcf(sqrtf(0.5f * chi));
            }
            // allele counts: cases c1, c2, controls u1, u2
            float c1 = 2 * ca + ch, c2 = 2 * cb + ch;
            float den = (c1 + c2) * (u1 + u2) * (c1 + u1) * (c2 + u2);
            q.chisq = 0.0f;
            if (den > 0.0f) {
                float d = c1 * u2 - c2 * u1;
                q.chisq = (c1 + c2 + u1 + u2) * d * d / den;
            }
            q.odds_ratio = (c2 > 0.0f && u1 > 0) ? (c1 * u2) / (c2 * u1) : -1.0f;
            q.pass = q.maf >= min_maf && q.call_rate >= min_call && q.hwe_p >= min_hwe;
            out[snp] = q;
        }
    }
}

// nsnp SNPs at positions pos (increasing), genotype x = het + 2 hom of bit planes over
// nsamp samples (nwords 64-bit words a SNP, padding bits 0); r2[i * LD_WIN + d - 1] the
// r^2 of SNPs i and i + d for the d <= LD_WIN within win_bp of i; *n_high += the pairs
// with r^2 >= r2_min
__global__ void ld_r2_window(const unsigned long long *het, const unsigned long long *hom, const int *pos, int nsnp,
                             int nwords, int nsamp, int win_bp, float r2_min, float *r2, int *n_high) {
    __shared__ unsigned long long s_het[LD_CHUNK][LD_TILE];
    __shared__ unsigned long long s_hom[LD_CHUNK][LD_TILE];
    __shared__ int s_sx[LD_TILE], s_sxx[LD_TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * LD_ANCHORS + tx;
    int nthreads = blockDim.x * blockDim.y;
    int base = blockIdx.x * LD_ANCHORS;
    int i = base + tx;
    // the partners within the window
    int nw = 0;
    if (i < nsnp) {
        while (nw < LD_WIN && i + nw + 1 < nsnp && pos[i + nw + 1] - pos[i] <= win_bp) nw++;
    }
    int d0 = ty * LD_GROUP;                 // this thread's partners i + d0 + 1 .. i + d0 + LD_GROUP
    int sxy[LD_GROUP];
    for (int k = 0; k < LD_GROUP; k++) sxy[k] = 0;
    if (tid < LD_TILE) {
        s_sx[tid] = 0;
        s_sxx[tid] = 0;
    }
    for (int c0 = 0; c0 < nwords; c0 += LD_CHUNK) {
        for (int idx = tid; idx < LD_TILE * LD_CHUNK; idx += nthreads) {
            int s = idx / LD_CHUNK, w = idx % LD_CHUNK;
            unsigned long long hv = 0, dv = 0;
            if (base + s < nsnp && c0 + w < nwords) {
                hv = het[(size_t)(base + s) * nwords + c0 + w];
                dv = hom[(size_t)(base + s) * nwords + c0 + w];
            }
            s_het[w][s] = hv;
            s_hom[w][s] = dv;
        }
        __syncthreads();
        if (tid < LD_TILE) {
            int sx = 0, sxx = 0;
            for (int w = 0; w < LD_CHUNK; w++) {
                int nh = __popcll(s_het[w][tid]);
                int nd = __popcll(s_hom[w][tid]);
                sx += nh + 2 * nd;
                sxx += nh + 4 * nd;
            }
            s_sx[tid] += sx;
            s_sxx[tid] += sxx;
        }
        for (int w = 0; w < LD_CHUNK; w++) {
            unsigned long long ah = s_het[w][tx], ad = s_hom[w][tx];
            for (int k = 0; k < LD_GROUP && d0 + k < nw; k++) {
                int j = tx + d0 + k + 1;
                unsigned long long bh = s_het[w][j], bd = s_hom[w][j];
                sxy[k] += __popcll(ah & bh) + 2 * (__popcll(ah & bd) + __popcll(ad & bh)) + 4 * __popcll(ad & bd);
            }
        }
        __syncthreads();
    }
    int lane = tid % 32;
    int high = 0;
    double n = nsamp;
    for (int k = 0; k < LD_GROUP; k++) {
        int d = d0 + k + 1;
        bool ok = d <= nw;                  // nw is 0 past the last SNP
        float r = 0.0f;
        if (ok) {
            int j = tx + d;
            double num = n * sxy[k] - (double)s_sx[tx] * s_sx[j];
            double va = n * s_sxx[tx] - (double)s_sx[tx] * s_sx[tx];
            double vb = n * s_sxx[j] - (double)s_sx[j] * s_sx[j];
            if (va > 0.0 && vb > 0.0) r = (float)(num * num / (va * vb));
            r2[(size_t)i * LD_WIN + d - 1] = r;
        }
        unsigned int hit = __ballot_sync(0xffffffff, ok && r >= r2_min);
        high += __popc(hit);
    }
    if (lane == 0 && high > 0) atomicAdd(n_high, high);
}

// the nsamp x nsamp genomic relationship matrix of nsnp SNPs: geno[s * nsamp + i] sample
// i's A1 count at SNP s (0, 1, 2; 3 missing), freq[s] A1's frequency;
// grm[j * nsamp + k] = mean over the SNPs of z_sj z_sk, z = (x - 2p) / sqrt(2p(1 - p))
__global__ void grm_tile(const unsigned char *geno, const float *freq, float *grm, int nsnp, int nsamp) {
    __shared__ float za[GRM_TILE][GRM_TILE];       // [snp][row sample]
    __shared__ float zb[GRM_TILE][GRM_TILE];       // [snp][column sample]
    if (blockIdx.y > blockIdx.x) return;           // symmetric: the upper blocks only
    int tx = threadIdx.x, ty = threadIdx.y;
    int j = blockIdx.y * GRM_TILE + ty;             // row
    int k = blockIdx.x * GRM_TILE + tx;             // column
    float acc = 0.0f;
    for (int s0 = 0; s0 < nsnp; s0 += GRM_TILE) {
        int s = s0 + ty;
        float va = 0.0f, vb = 0.0f;
        if (s < nsnp) {
            float p = freq[s];
            float mean = 2.0f * p;
            float inv = rsqrtf(2.0f * p * (1.0f - p));
            int ra = blockIdx.y * GRM_TILE + tx, rb = blockIdx.x * GRM_TILE + tx;
            if (ra < nsamp) {
                unsigned char g = geno[(size_t)s * nsamp + ra];
                if (g != 3) va = (g - mean) * inv;
            }
            if (rb < nsamp) {
                unsigned char g = geno[(size_t)s * nsamp + rb];
                if (g != 3) vb = (g - mean) * inv;
            }
        }
        za[ty][tx] = va;
        zb[ty][tx] = vb;
        __syncthreads();
        for (int t = 0; t < GRM_TILE; t++) acc += za[t][ty] * zb[t][tx];
        __syncthreads();
    }
    if (j < nsamp && k < nsamp) {
        acc = acc / nsnp;
        grm[(size_t)j * nsamp + k] = acc;
        if (blockIdx.x != blockIdx.y) grm[(size_t)k * nsamp + j] = acc;     // the mirror, off the diagonal
    }
}

// gridDim.x SNPs' score tests, a block a SNP: dose[s * nsamp + i] subject i's A1 dosage
// in LS_DOSE_SCALE units; subj[i] the null model's residual, weight and covariates;
// xtwx_inv the inverse of X'WX (LS_K x LS_K); score[s] = sum g r, var[s] its variance
// adjusted for the covariates, pval[s] the 1-df chi-square p-value
__global__ void logistic_score(const unsigned short *dose, const Subject *subj, const double *xtwx_inv, int nsamp,
                               float *score, float *var, double *pval) {
    __shared__ float s_red[LS_K + 2][LS_BLOCK];     // u, g w g, w g x_k
    int s = blockIdx.x;
    int tid = threadIdx.x;
    const unsigned short *row = dose + (size_t)s * nsamp;
    float u = 0.0f, gwg = 0.0f;
    float wgx[LS_K];
    for (int k = 0; k < LS_K; k++) wgx[k] = 0.0f;
    for (int i = tid; i < nsamp; i += blockDim.x) {
        float g = row[i] * LS_DOSE_SCALE;
        Subject sb = subj[i];
        u += g * sb.r;
        float wg = sb.w * g;
        gwg += wg * g;
        for (int k = 0; k < LS_K; k++) wgx[k] += wg * sb.x[k];
    }
    s_red[0][tid] = u;
    s_red[1][tid] = gwg;
    for (int k = 0; k < LS_K; k++) s_red[k + 2][tid] = wgx[k];
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
        if (tid < h) {
            for (int v = 0; v < LS_K + 2; v++) s_red[v][tid] += s_red[v][tid + h];
        }
        __syncthreads();
    }
    if (tid == 0) {
        double q = 0.0;
        for (int a = 0; a < LS_K; a++) {
            double t = 0.0;
            for (int b = 0; b < LS_K; b++) t += xtwx_inv[a * LS_K + b] * s_red[b + 2][0];
            q += s_red[a + 2][0] * t;
        }
        double v = s_red[1][0] - q;
        double uu = s_red[0][0];
        double chi2 = v > 0.0 ? uu * uu / v : 0.0;
        score[s] = s_red[0][0];
        var[s] = (float)v;
        pval[s] = erfc(sqrt(0.5 * chi2));
    }
}

// gridDim.y permutations of a quantitative trait y (centred, sum of squares syy) over
// nsamp samples, tested at nsnp SNPs: geno[i * nsnp + s] (0, 1, 2), sxx[s] the SNP's
// centred sum of squares, perm[p * nsamp + i] permutation p; T = nsamp r^2;
// exceed[s] += (T >= tobs[s]); maxt_bits[p] = the bits of permutation p's largest T
__global__ void perm_maxt(const unsigned char *geno, const float *y, const int *perm, const float *sxx,
                          const float *tobs, float syy, int nsamp, int nsnp, int *exceed, int *maxt_bits) {
    extern __shared__ float s_y[];
    __shared__ int s_max;
    int p = blockIdx.y;
    for (int i = threadIdx.x; i < nsamp; i += blockDim.x) s_y[i] = y[perm[(size_t)p * nsamp + i]];
    if (threadIdx.x == 0) s_max = 0;
    __syncthreads();
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    float t = 0.0f;
    if (s < nsnp && sxx[s] > 0.0f) {
        float sxy = 0.0f;
        for (int i = 0; i < nsamp; i++) sxy += geno[(size_t)i * nsnp + s] * s_y[i];
        t = nsamp * sxy * sxy / (sxx[s] * syy);
        if (t >= tobs[s]) atomicAdd(&exceed[s], 1);
    }
    for (int o = 16; o > 0; o /= 2) t = fmaxf(t, __shfl_xor_sync(0xffffffff, t, o));
    if (threadIdx.x % 32 == 0) atomicMax(&s_max, __float_as_int(t));
    __syncthreads();
    if (threadIdx.x == 0) atomicMax(&maxt_bits[p], s_max);
}

// polygenic scores of nsamp samples from a .bed (bpr bytes a row, 4 samples a byte, the low
// bits first) and nscore score SNPs, chunk of them a y-block: prs[t * nsamp + i] += the sum
// of beta x A1 count over the SNPs with p-value <= c_pthresh[t]; nmiss[i] += the missing
// calls (mean imputed: 2 freq)
__global__ void prs_score(const unsigned char *bed, int bpr, const ScoreSnp *score, int nscore, int chunk,
                          int nsamp, float *prs, int *nmiss) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nsamp) return;
    float acc[PRS_TIERS];
    for (int t = 0; t < PRS_TIERS; t++) acc[t] = 0.0f;
    int miss = 0;
    int e0 = blockIdx.y * chunk;
    int e1 = min(e0 + chunk, nscore);
    for (int e = e0; e < e1; e++) {
        ScoreSnp sc = score[e];
        int t = 0;
        while (t < PRS_TIERS - 1 && sc.pval > c_pthresh[t]) t++;
        unsigned char byte = bed[(size_t)sc.row * bpr + i / 4];
        int code = (byte >> (2 * (i % 4))) & 3;
        float g;
        switch (code) {
            case 0: g = 2.0f; break;                // A1/A1
            case 2: g = 1.0f; break;                // het
            case 3: g = 0.0f; break;                // A2/A2
            default: g = 2.0f * sc.freq; miss++;    // missing
        }
        acc[t] += sc.beta * g;
    }
    float c = 0.0f;
    for (int t = 0; t < PRS_TIERS; t++) {
        c += acc[t];
        atomicAdd(&prs[t * nsamp + i], c);
    }
    if (miss > 0) atomicAdd(&nmiss[i], miss);
}

}
