// probe-unseen220: a chemometrics / analytical-spectroscopy course's CUDA assignments, as
// a student who knows CUDA basics hands them in:
//  - sg_filter: Savitzky-Golay smoothing or derivative of a batch of NIR spectra, a block
//    a tile of SG_TILE channels of one spectrum: the tile and its half-window halo copied
//    to shared memory (the spectrum's ends padded with its first / last value),
//    __syncthreads, then each thread's SG_WIN-point dot product with the coefficients of
//    the chosen derivative from a __constant__ table;
//  - msc_correct: multiplicative scatter correction of VIS-NIR spectra against the mean
//    spectrum, a block a spectrum: the sums x, r, x r and r r accumulated in double by each
//    thread, a shared-memory tree reduction with __syncthreads at every level, the
//    regression's offset a and slope b, then (x - a) / b in double stored as float, a and
//    b stored as double;
//  - snip_baseline: the SNIP baseline (Ryan et al.'s statistics-sensitive non-linear
//    iterative peak clipping, Morhac's decreasing window) of X-ray fluorescence spectra
//    of 16-bit counts, a block a spectrum: the log-log-square-root transform into shared
//    memory, niter clipping passes between two shared buffers (a pointer swap and one
//    __syncthreads a pass), the inverse transform, the net counts stored;
//  - peak_pick: peak picking and integration of HPLC-UV chromatograms of 16-bit detector
//    counts, a thread a point: the point is an apex if it is the largest of its +-PK_W
//    neighbours (a plateau's leftmost point) and stands thresh counts above their
//    minimum; apexes compacted into a global list of Peak structs by __ballot_sync,
//    __popc and one atomicAdd a warp; each apex walks left and right (divergent loops)
//    while the signal stays above frac of its height, sums the area above the window's
//    minimum and adds it to its chromatogram's total by a global float atomicAdd;
//  - pca_monitor: PCA process monitoring of NIR spectra, a thread a sample in a
//    grid-stride loop: the NPC scores from the mean and loadings in __constant__ memory
//    (a per-thread array of scores) and the centred spectrum's squared norm in one pass,
//    Hotelling's T^2 and the Q residual (the squared reconstruction error, as the norm
//    less the scores' for orthonormal loadings); an 8-bit flag of the limits exceeded and
//    global atomic counts of the out-of-control samples;
//  - lib_search: an EI mass-spectral library search (Stein & Scott's weighted dot
//    product, m/z^3 I^0.6) of a query against a library of LibPeak structs (16-bit m/z
//    and intensity), a block a query x a chunk of the library: the query's weighted
//    spectrum in a dense shared array (its norm by a warp shuffle reduction), then a warp
//    a library spectrum: each lane 2 peaks gathered from the shared array, two shuffle
//    reductions, the match factor; a warp's best packed with its index into a 64-bit
//    atomicMax, the good hits counted by a shared and a global atomicAdd.

#define SG_HALF 7               // sg_filter: half window (15 points)
#define SG_WIN (2 * SG_HALF + 1)
#define SG_TILE 256             // channels a block (= threads a block)

#define MSC_THREADS 256         // msc_correct: threads a block (a power of two)

#define SNIP_MAXCH 2048         // snip_baseline: channels a spectrum at most

#define PK_W 12                 // peak_pick: an apex is the largest of +-PK_W points

#define NPC 4                   // pca_monitor: principal components
#define PCA_MAXCH 128           // channels a spectrum at most

#define LIB_NPK 64              // lib_search: peaks a spectrum (zero padded)
#define MZ_MAX 1024             // m/z 0 .. MZ_MAX - 1
#define LS_PER_WARP 8           // library spectra a warp
#define LS_WARPS 8              // warps a block
#define LS_PER_BLOCK (LS_PER_WARP * LS_WARPS)

// Savitzky-Golay coefficients, row d: the d-th derivative (scaled by 1 / dx^d), set by the host
__constant__ float c_sg[3][SG_WIN];

// the PCA model: the calibration set's mean spectrum, the loadings, 1 / the eigenvalues
__constant__ float c_mean[PCA_MAXCH];
__constant__ float c_load[PCA_MAXCH][NPC];
__constant__ float c_inv_eig[NPC];

struct Peak {
    int chrom;
    int apex;
    int start;
    int end;
    float height;
    float area;
};

struct LibPeak {
    unsigned short mz;
    unsigned short inten;
};

extern "C" {

// ---------------------------------------------------------------- sg_filter

// nspec spectra of nch channels (row-major); y = the SG filter (row deriv of c_sg) of x,
// grid (nspec, tiles of SG_TILE)
__global__ void sg_filter(const float *x, float *y, int nch, int deriv) {
    __shared__ float s[SG_TILE + 2 * SG_HALF];
    int spec = blockIdx.x;
    int c0 = blockIdx.y * SG_TILE;
    const float *row = x + (size_t)spec * nch;
    for (int k = threadIdx.x; k < SG_TILE + 2 * SG_HALF; k += blockDim.x) {
        int c = c0 + k - SG_HALF;
        if (c < 0) c = 0;
        if (c > nch - 1) c = nch - 1;
        s[k] = row[c];
    }
    __syncthreads();
    int c = c0 + threadIdx.x;
    if (c < nch) {
        float acc = 0.0f;
        for (int k = 0; k < SG_WIN; k++) acc += c_sg[deriv][k] * s[threadIdx.x + k];
        y[(size_t)spec * nch + c] = acc;
    }
}

// ---------------------------------------------------------------- msc_correct

// x: nspec spectra of nch channels, ref: the reference (mean) spectrum; x = a + b ref fitted
// by least squares, out = (x - a) / b, coef[2 s] = a, coef[2 s + 1] = b; a block a spectrum
__global__ void msc_correct(const float *x, const float *ref, float *out, double *coef, int nch) {
    __shared__ double s_x[MSC_THREADS];
    __shared__ double s_r[MSC_THREADS];
    __shared__ double s_xr[MSC_THREADS];
    __shared__ double s_rr[MSC_THREADS];
    int t = threadIdx.x;
    int spec = blockIdx.x;
    const float *row = x + (size_t)spec * nch;
    double sx = 0.0, sr = 0.0, sxr = 0.0, srr = 0.0;
    for (int c = t; c < nch; c += blockDim.x) {
        double xv = row[c];
        double rv = ref[c];
        sx += xv;
        sr += rv;
        sxr += xv * rv;
        srr += rv * rv;
    }
    s_x[t] = sx;
    s_r[t] = sr;
    s_xr[t] = sxr;
    s_rr[t] = srr;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            s_x[t] += s_x[t + s];
            s_r[t] += s_r[t + s];
            s_xr[t] += s_xr[t + s];
            s_rr[t] += s_rr[t + s];
        }
        __syncthreads();
    }
    double mx = s_x[0] / nch;
    double mr = s_r[0] / nch;
    double b = (s_xr[0] - nch * mx * mr) / (s_rr[0] - nch * mr * mr);
    double a = mx - b * mr;
    for (int c = t; c < nch; c += blockDim.x) out[(size_t)spec * nch + c] = (float)((row[c] - a) / b);
    if (t == 0) {
        coef[2 * spec] = a;
        coef[2 * spec + 1] = b;
    }
}

// ---------------------------------------------------------------- snip_baseline

// counts: nspec spectra of nch (<= SNIP_MAXCH) channels; net = counts - the SNIP baseline
// after niter passes (windows niter .. 1), in v = log(log(sqrt(y + 1) + 1) + 1)
__global__ void snip_baseline(const unsigned short *counts, float *net, int nch, int niter) {
    __shared__ float s_a[SNIP_MAXCH];
    __shared__ float s_b[SNIP_MAXCH];
    const unsigned short *row = counts + (size_t)blockIdx.x * nch;
    for (int c = threadIdx.x; c < nch; c += blockDim.x) {
        float y = (float)row[c];
        s_a[c] = logf(logf(sqrtf(y + 1.0f) + 1.0f) + 1.0f);
    }
    __syncthreads();
    float *src = s_a;
    float *dst = s_b;
    for (int p = niter; p >= 1; p--) {
        for (int c = threadIdx.x; c < nch; c += blockDim.x) {
            float v = src[c];
            if (c >= p && c < nch - p) v = fminf(v, 0.5f * (src[c - p] + src[c + p]));
            dst[c] = v;
        }
        __syncthreads();
        float *tmp = src;
        src = dst;
        dst = tmp;
    }
    for (int c = threadIdx.x; c < nch; c += blockDim.x) {
        float e = expf(expf(src[c]) - 1.0f) - 1.0f;
        float base = e * e - 1.0f;
        net[(size_t)blockIdx.x * nch + c] = (float)row[c] - base;
    }
}

// ---------------------------------------------------------------- peak_pick

// sig: nchrom chromatograms of npts points, grid (point blocks, nchrom); the apexes found
// appended to peaks (the first maxpeaks kept, *npeaks counts them all), area_tot[chrom] +=
// their areas
__global__ void peak_pick(const unsigned short *sig, int npts, int thresh, float frac, Peak *peaks, int *npeaks,
                          int maxpeaks, float *area_tot) {
    int chrom = blockIdx.y;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    const unsigned short *y = sig + (size_t)chrom * npts;
    bool is_peak = false;
    int yi = 0, lo = 0;
    if (i < npts) {
        yi = y[i];
        lo = yi;
        is_peak = true;
        for (int k = -PK_W; k <= PK_W; k++) {
            int j = i + k;
            if (k == 0 || j < 0 || j >= npts) continue;
            int yj = y[j];
            if (yj > yi || (yj == yi && k < 0)) is_peak = false;
            if (yj < lo) lo = yj;
        }
        if (yi - lo < thresh) is_peak = false;
    }
    unsigned int mask = __ballot_sync(0xffffffff, is_peak);
    int base = 0;
    if (lane == 0 && mask != 0) base = atomicAdd(npeaks, __popc(mask));
    base = __shfl_sync(0xffffffff, base, 0);
    if (is_peak) {
        int slot = base + __popc(mask & ((1u << lane) - 1));
        float level = lo + frac * (yi - lo);
        int s = i;
        while (s > 0 && y[s - 1] > level) s--;
        int e = i;
        while (e < npts - 1 && y[e + 1] > level) e++;
        float area = 0.0f;
        for (int j = s; j <= e; j++) area += (float)(y[j] - lo);
        if (slot < maxpeaks) {
            Peak p;
            p.chrom = chrom;
            p.apex = i;
            p.start = s;
            p.end = e;
            p.height = (float)(yi - lo);
            p.area = area;
            peaks[slot] = p;
        }
        atomicAdd(&area_tot[chrom], area);
    }
}

// ---------------------------------------------------------------- pca_monitor

// x: nsamp spectra of nch (<= PCA_MAXCH) channels; scores[s * NPC + c], t2[s] = sum t_c^2 /
// lambda_c, q[s] = |x - mean - P t|^2, flag[s] bit 0: t2 > t2_lim, bit 1: q > q_lim;
// nout[0] / nout[1] += the samples over each limit
__global__ void pca_monitor(const float *x, int nsamp, int nch, float t2_lim, float q_lim, float *scores, float *t2,
                            float *q, unsigned char *flag, int *nout) {
    for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < nsamp; s += gridDim.x * blockDim.x) {
        const float *row = x + (size_t)s * nch;
        float t[NPC];
        for (int c = 0; c < NPC; c++) t[c] = 0.0f;
        float ss = 0.0f;
        for (int j = 0; j < nch; j++) {
            float v = row[j] - c_mean[j];
            ss += v * v;
            for (int c = 0; c < NPC; c++) t[c] += v * c_load[j][c];
        }
        float T2 = 0.0f, tt = 0.0f;
        for (int c = 0; c < NPC; c++) {
            T2 += t[c] * t[c] * c_inv_eig[c];
            tt += t[c] * t[c];
        }
        // the loadings are orthonormal: |x - mean - P t|^2 = |x - mean|^2 - |t|^2
        float Q = fmaxf(ss - tt, 0.0f);
        for (int c = 0; c < NPC; c++) scores[(size_t)s * NPC + c] = t[c];
        t2[s] = T2;
        q[s] = Q;
        unsigned char f = 0;
        if (T2 > t2_lim) f |= 1;
        if (Q > q_lim) f |= 2;
        flag[s] = f;
        if (f & 1) atomicAdd(&nout[0], 1);
        if (f & 2) atomicAdd(&nout[1], 1);
    }
}

}

// ---------------------------------------------------------------- lib_search

// Stein & Scott's weight of a peak: m/z^3 I^0.6 (0 for a padding peak)
__device__ float peak_weight(LibPeak p) {
    float m = (float)p.mz;
    return m * m * m * powf((float)p.inten, 0.6f);
}

extern "C" {

// lib: nlib spectra of LIB_NPK peaks (m/z < MZ_MAX, distinct within a spectrum, padding
// 0 / 0), query: nquery of them, grid (library chunks of LS_PER_BLOCK, nquery), LS_WARPS
// warps a block; score = 999 cos^2 of the weighted spectra; best[q] = max over the library
// of (score bits << 32 | index), nhits[q] += the spectra scoring at least hit_min
__global__ void lib_search(const LibPeak *lib, int nlib, const LibPeak *query, unsigned long long *best, int *nhits,
                           float hit_min) {
    __shared__ float s_q[MZ_MAX];
    __shared__ float s_qnorm;
    __shared__ int s_hits;
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    int qi = blockIdx.y;
    const LibPeak *qp = query + (size_t)qi * LIB_NPK;
    for (int k = threadIdx.x; k < MZ_MAX; k += blockDim.x) s_q[k] = 0.0f;
    if (threadIdx.x == 0) s_hits = 0;
    __syncthreads();
    if (warp == 0) {
        float nn = 0.0f;
        for (int k = lane; k < LIB_NPK; k += 32) {
            LibPeak p = qp[k];
            float w = peak_weight(p);
            if (p.inten > 0) s_q[p.mz] = w;
            nn += w * w;
        }
        for (int o = 16; o > 0; o /= 2) nn += __shfl_xor_sync(0xffffffff, nn, o);
        if (lane == 0) s_qnorm = sqrtf(nn);
    }
    __syncthreads();
    int first = blockIdx.x * LS_PER_BLOCK + warp * LS_PER_WARP;
    float my_best = -1.0f;
    int my_idx = -1;
    int hits = 0;
    for (int e = first; e < first + LS_PER_WARP && e < nlib; e++) {
        float dot = 0.0f, nn = 0.0f;
        for (int k = lane; k < LIB_NPK; k += 32) {
            LibPeak p = lib[(size_t)e * LIB_NPK + k];
            float w = peak_weight(p);
            dot += s_q[p.mz] * w;
            nn += w * w;
        }
        for (int o = 16; o > 0; o /= 2) {
            dot += __shfl_down_sync(0xffffffff, dot, o);
            nn += __shfl_down_sync(0xffffffff, nn, o);
        }
        if (lane == 0) {
            float score = 0.0f;
            if (nn > 0.0f && s_qnorm > 0.0f) {
                float cs = dot / (s_qnorm * sqrtf(nn));
                score = 999.0f * cs * cs;
            }
            if (score >= my_best) {
                my_best = score;
                my_idx = e;
            }
            if (score >= hit_min) hits++;
        }
    }
    if (lane == 0 && my_idx >= 0) {
        unsigned long long packed = ((unsigned long long)__float_as_uint(my_best) << 32) | (unsigned int)my_idx;
        atomicMax(&best[qi], packed);
        atomicAdd(&s_hits, hits);
    }
    __syncthreads();
    if (threadIdx.x == 0 && s_hits > 0) atomicAdd(&nhits[qi], s_hits);
}

}
