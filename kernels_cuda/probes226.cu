// probe-unseen224: a hyperspectral imaging / imaging spectroscopy course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - sam_classify: the spectral angle mapper: each pixel of a 16-bit band-sequential (BSQ)
//    reflectance cube against 8 library spectra held in __constant__ memory, a thread a
//    (pixel, library spectrum) pair looping over the bands (coalesced loads, the 8 warps of
//    a block reading the same 32 pixels), sqrtf and acosf into shared memory, then one
//    warp picks the closest class within a maximum angle, written as a byte; no-data
//    pixels (the fill value in band 0) skipped; the classes counted by shared int atomics
//    (contended: neighbouring pixels share a class) and flushed by global atomics;
//  - rx_detect: the global RX anomaly detector on the first principal components of a
//    scene (band-interleaved-by-pixel floats: a thread reads its pixel's 20 components),
//    the Mahalanobis distance as the squared norm of the whitened vector (the lower
//    triangular inverse Cholesky factor of the covariance in shared memory, in double),
//    a grid-stride loop, the detections above a chi-square threshold appended to a list of
//    structs with one global atomic a warp (__ballot_sync, __popc, __shfl_sync);
//  - band_covariance: the band covariance matrix for a PCA of a 16-bit BSQ cube: 16 x 16
//    tiles of the matrix (upper triangle of tiles only: the blocks below it return at
//    once), each block over a chunk of pixels, the two bands' tiles of mean-subtracted
//    reflectance staged in padded shared memory between __syncthreads, the partial sums
//    added by float global atomics;
//  - ppi_extremes: the pixel purity index's projections: every pixel of a PCA-reduced cube
//    (16 components, a thread a pixel, in registers) projected on 16 random skewers a block
//    (shared memory), the extreme projections found by a warp shuffle reduction then a
//    shared-memory reduction over the warps of 64-bit keys (the projection's bits made
//    orderable, the pixel in the low word), and 64-bit global atomicMin / atomicMax;
//  - nnls_unmix: linear unmixing of each pixel into 5 endmember abundances by non-negative
//    least squares, Lawson and Hanson's active-set method on the normal equations (the
//    right-hand sides E x of every pixel from a GEMM before it, the Gram matrix in shared
//    memory), a thread a pixel, Gaussian elimination of the passive set in local arrays:
//    divergent loops, a pixel's iterations depending on its mixture;
//  - continuum_removal: continuum removal of the SWIR-2 window of a 16-bit band-interleaved-
//    by-line cube (coalesced along a line), the upper convex hull of each spectrum by a
//    monotone chain in a per-thread stack (divergent while loops), the band depth, its
//    deepest band refined by a parabola, into a struct a pixel and a byte depth map, dark
//    pixels skipped, the deepest bands histogrammed by shared and global atomics.

#define FULL_MASK 0xffffffffu

#define SAM_K 8                 // sam_classify: library spectra
#define SAM_MAXB 224            // bands at most
#define SAM_PIX 32              // pixels a block (a block: SAM_PIX x SAM_K threads)
#define SAM_NODATA -9999        // the fill value of pixels outside the flight line

#define RX_NC 20                // rx_detect: principal components

#define COV_T 16                // band_covariance: a block's tile of the matrix, 16 x 16

#define PPI_NC 16               // ppi_extremes: components
#define PPI_SK 16               // skewers a block
#define PPI_WARPS 8             // warps a block (256 threads)

#define NN_K 5                  // nnls_unmix: endmembers

#define CR_NB 224               // continuum_removal: bands of the cube
#define CR_MAXW 64              // bands in the window at most

struct Detection {
    int pixel;
    float score;                // the squared Mahalanobis distance
};

struct Feature {
    float depth;                // the largest band depth 1 - R / continuum
    float center;               // its wavelength (nm), refined by a parabola
    float area;                 // the sum of the band depths over the window
    unsigned short band;        // the deepest band (in the window), 0xffff: skipped
    unsigned short nhull;       // vertices of the continuum
};

// sam_classify: the library spectra (reflectance) and their norms
__constant__ float c_ref[SAM_K][SAM_MAXB];
__constant__ float c_ref_norm[SAM_K];

// continuum_removal: the bands' centre wavelengths (nm)
__constant__ float c_wl[CR_NB];

extern "C" {

// ---------------------------------------------------------------- sam_classify

// cube[b * npix + p]: band b of pixel p (reflectance * 1 / scale); a block of SAM_PIX x SAM_K
// threads: SAM_PIX pixels, threadIdx.y the library spectrum; cls[p] = the library spectrum of
// smallest angle (the first of equals) if under max_angle, else SAM_K (unclassified); SAM_K + 1
// for a no-data pixel; angle[p] = that smallest angle (radians; 0 for no-data);
// class_count[c] += pixels of class c (SAM_K + 2 counters)
__global__ void sam_classify(const short *cube, int npix, int nbands, float scale, float max_angle,
                             unsigned char *cls, float *angle, int *class_count) {
    __shared__ float s_ang[SAM_K][SAM_PIX];
    __shared__ int s_count[SAM_K + 2];
    int tx = threadIdx.x, k = threadIdx.y;
    int t = k * SAM_PIX + tx;
    if (t < SAM_K + 2) s_count[t] = 0;
    int p = blockIdx.x * SAM_PIX + tx;
    bool valid = false;
    if (p < npix) valid = cube[p] != SAM_NODATA;
    float a = 10.0f;
    if (valid) {
        float dot = 0.0f, xx = 0.0f;
        for (int b = 0; b < nbands; b++) {
            float x = cube[(size_t)b * npix + p] * scale;
            xx += x * x;
            dot += x * c_ref[k][b];
        }
        float cs = dot / (sqrtf(xx) * c_ref_norm[k]);
        cs = fminf(1.0f, fmaxf(-1.0f, cs));
        a = acosf(cs);
    }
    s_ang[k][tx] = a;
    __syncthreads();
    if (k == 0 && p < npix) {
        int c = SAM_K + 1;
        float best = 0.0f;
        if (valid) {
            int j = 0;
            best = s_ang[0][tx];
            for (int m = 1; m < SAM_K; m++) {
                if (s_ang[m][tx] < best) {
                    best = s_ang[m][tx];
                    j = m;
                }
            }
            c = best < max_angle ? j : SAM_K;
        }
        cls[p] = (unsigned char)c;
        angle[p] = best;
        atomicAdd(&s_count[c], 1);
    }
    __syncthreads();
    if (t < SAM_K + 2 && s_count[t] > 0) atomicAdd(&class_count[t], s_count[t]);
}

// ---------------------------------------------------------------- rx_detect

// pcs[p * RX_NC + j]: component j of pixel p; mean: the components' means; W (RX_NC x RX_NC,
// row-major, lower triangular): the inverse of the covariance's Cholesky factor, so that
// score = |W (x - mean)|^2 = (x - mean)^T C^-1 (x - mean); score[p] = it; a pixel whose score
// exceeds thresh goes to det[*ndet] (while under max_det) and *ndet += 1
__global__ void rx_detect(const float *pcs, int npix, const float *mean, const double *W, double thresh,
                          float *score, Detection *det, int max_det, int *ndet) {
    __shared__ double s_W[RX_NC * RX_NC];
    __shared__ float s_mean[RX_NC];
    for (int k = threadIdx.x; k < RX_NC * RX_NC; k += blockDim.x) s_W[k] = W[k];
    if (threadIdx.x < RX_NC) s_mean[threadIdx.x] = mean[threadIdx.x];
    __syncthreads();
    int lane = threadIdx.x % 32;
    for (int base = blockIdx.x * blockDim.x; base < npix; base += gridDim.x * blockDim.x) {
        int p = base + threadIdx.x;
        bool hit = false;
        double r = 0.0;
        if (p < npix) {
            double d[RX_NC];
            for (int j = 0; j < RX_NC; j++) d[j] = (double)(pcs[(size_t)p * RX_NC + j] - s_mean[j]);
            for (int i = 0; i < RX_NC; i++) {
                double y = 0.0;
                for (int j = 0; j <= i; j++) y += s_W[i * RX_NC + j] * d[j];
                r += y * y;
            }
            score[p] = (float)r;
            hit = r > thresh;
        }
        unsigned int m = __ballot_sync(FULL_MASK, hit);
        if (m != 0) {
            int first = 0;
            if (lane == 0) first = atomicAdd(ndet, __popc(m));
            first = __shfl_sync(FULL_MASK, first, 0);
            if (hit) {
                int k = first + __popc(m & ((1u << lane) - 1));
                if (k < max_det) {
                    Detection e;
                    e.pixel = p;
                    e.score = (float)r;
                    det[k] = e;
                }
            }
        }
    }
}

// ---------------------------------------------------------------- band_covariance

// cube[b * npix + p] (reflectance * 1 / scale), mean[b] its bands' means (reflectance);
// blockIdx.y, blockIdx.x the tile of bands (i, j), blockIdx.z the chunk of pixels z * chunk ..;
// cov[i * nbands + j] += sum over the chunk of (x_i - mean_i)(x_j - mean_j) * inv_n1, for the
// tiles with blockIdx.y <= blockIdx.x (the rest is the mirror image)
__global__ void band_covariance(const short *cube, int npix, int nbands, float scale, const float *mean,
                                int chunk, float inv_n1, float *cov) {
    if (blockIdx.y > blockIdx.x) return;
    __shared__ float s_a[COV_T][COV_T + 1];     // s_a[band i][pixel]
    __shared__ float s_b[COV_T][COV_T + 1];     // s_b[band j][pixel]
    int tx = threadIdx.x, ty = threadIdx.y;
    int ba = blockIdx.y * COV_T + ty;           // the bands this thread loads
    int bb = blockIdx.x * COV_T + ty;
    int p0 = blockIdx.z * chunk;
    int p1 = min(npix, p0 + chunk);
    float acc = 0.0f;
    for (int p = p0; p < p1; p += COV_T) {
        int q = p + tx;
        float va = 0.0f, vb = 0.0f;
        if (q < p1 && ba < nbands) va = cube[(size_t)ba * npix + q] * scale - mean[ba];
        if (q < p1 && bb < nbands) vb = cube[(size_t)bb * npix + q] * scale - mean[bb];
        s_a[ty][tx] = va;
        s_b[ty][tx] = vb;
        __syncthreads();
        for (int k = 0; k < COV_T; k++) acc += s_a[ty][k] * s_b[tx][k];
        __syncthreads();
    }
    int i = blockIdx.y * COV_T + ty, j = blockIdx.x * COV_T + tx;
    if (i < nbands && j < nbands) atomicAdd(&cov[i * nbands + j], acc * inv_n1);
}

}

// ---------------------------------------------------------------- ppi_extremes

// a float's bits as an unsigned int that orders as the floats do
__device__ unsigned int ordered_bits(float f) {
    unsigned int u = __float_as_uint(f);
    if (u & 0x80000000u) return ~u;
    return u | 0x80000000u;
}

extern "C" {

// pcs[p * PPI_NC + c]; skewers[s * PPI_NC + c] (unit vectors), blockIdx.y the batch of
// PPI_SK skewers; ext_min[s], ext_max[s]: ordered_bits(projection) << 32 | pixel of the
// smallest / largest projection on skewer s (ties: the lower / higher pixel), atomically
// combined with what they hold (0xffff...ffff / 0 at first)
__global__ void ppi_extremes(const float *pcs, int npix, const float *skewers, unsigned long long *ext_min,
                             unsigned long long *ext_max) {
    __shared__ float s_sk[PPI_SK][PPI_NC];
    __shared__ unsigned long long s_min[PPI_WARPS];
    __shared__ unsigned long long s_max[PPI_WARPS];
    int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    int s0 = blockIdx.y * PPI_SK;
    for (int k = tid; k < PPI_SK * PPI_NC; k += blockDim.x) s_sk[k / PPI_NC][k % PPI_NC] = skewers[s0 * PPI_NC + k];
    int p = blockIdx.x * blockDim.x + tid;
    bool valid = p < npix;
    float x[PPI_NC];
    for (int c = 0; c < PPI_NC; c++) x[c] = valid ? pcs[(size_t)p * PPI_NC + c] : 0.0f;
    __syncthreads();
    for (int s = 0; s < PPI_SK; s++) {
        float v = 0.0f;
        for (int c = 0; c < PPI_NC; c++) v += x[c] * s_sk[s][c];
        unsigned long long key = ((unsigned long long)ordered_bits(v) << 32) | (unsigned int)p;
        unsigned long long kmin = valid ? key : 0xffffffffffffffffULL;
        unsigned long long kmax = valid ? key : 0ULL;
        for (int o = 16; o > 0; o /= 2) {
            unsigned long long a = __shfl_down_sync(FULL_MASK, kmin, o);
            unsigned long long b = __shfl_down_sync(FULL_MASK, kmax, o);
            if (a < kmin) kmin = a;
            if (b > kmax) kmax = b;
        }
        if (lane == 0) {
            s_min[warp] = kmin;
            s_max[warp] = kmax;
        }
        __syncthreads();
        if (tid == 0) {
            for (int w = 1; w < blockDim.x / 32; w++) {
                if (s_min[w] < kmin) kmin = s_min[w];
                if (s_max[w] > kmax) kmax = s_max[w];
            }
            atomicMin(&ext_min[s0 + s], kmin);
            atomicMax(&ext_max[s0 + s], kmax);
        }
        __syncthreads();
    }
}

}

// ---------------------------------------------------------------- nnls_unmix

// z = the solution of G_PP z_P = b_P over the passive set P (passive[i] != 0), 0 elsewhere,
// by Gaussian elimination without pivoting (G is symmetric positive definite)
__device__ void solve_passive(const float *G, const float *b, const int *passive, float *z) {
    float M[NN_K][NN_K + 1];
    int idx[NN_K];
    int m = 0;
    for (int i = 0; i < NN_K; i++) {
        z[i] = 0.0f;
        if (passive[i]) idx[m++] = i;
    }
    for (int r = 0; r < m; r++) {
        for (int c = 0; c < m; c++) M[r][c] = G[idx[r] * NN_K + idx[c]];
        M[r][m] = b[idx[r]];
    }
    for (int c = 0; c < m; c++) {
        for (int r = c + 1; r < m; r++) {
            float f = M[r][c] / M[c][c];
            for (int q = c; q <= m; q++) M[r][q] -= f * M[c][q];
        }
    }
    for (int r = m - 1; r >= 0; r--) {
        float s = M[r][m];
        for (int q = r + 1; q < m; q++) s -= M[r][q] * z[idx[q]];
        z[idx[r]] = s / M[r][r];
    }
}

extern "C" {

// etx[p * NN_K + k] = E_k . x_p, pixel p's spectrum's dot product with endmember k, and
// xx[p] = |x_p|^2 (from a GEMM before the kernel); G = E E^T (NN_K x NN_K); abund[p * NN_K + k]
// >= 0 minimising |x_p - E^T a| by Lawson and Hanson's method on the normal equations (a
// variable enters while its gradient exceeds tol; at most 3 NN_K entries), rmse[p] =
// |x_p - E^T a| / sqrt(nbands), iters[p] = the least-squares solves
__global__ void nnls_unmix(const float *etx, const float *xx, int npix, int nbands, const float *G, float tol,
                           float *abund, float *rmse, unsigned char *iters) {
    __shared__ float s_G[NN_K * NN_K];
    if (threadIdx.x < NN_K * NN_K) s_G[threadIdx.x] = G[threadIdx.x];
    __syncthreads();
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npix) return;
    float b[NN_K];
    for (int k = 0; k < NN_K; k++) b[k] = etx[(size_t)p * NN_K + k];
    float a[NN_K], w[NN_K], z[NN_K];
    int passive[NN_K];
    for (int k = 0; k < NN_K; k++) {
        a[k] = 0.0f;
        passive[k] = 0;
    }
    int it = 0;
    for (int outer = 0; outer < 3 * NN_K; outer++) {
        for (int i = 0; i < NN_K; i++) {
            float s = b[i];
            for (int j = 0; j < NN_K; j++) s -= s_G[i * NN_K + j] * a[j];
            w[i] = s;
        }
        int t = -1;
        float wmax = tol;
        for (int i = 0; i < NN_K; i++) {
            if (!passive[i] && w[i] > wmax) {
                wmax = w[i];
                t = i;
            }
        }
        if (t < 0) break;
        passive[t] = 1;
        while (true) {
            it++;
            solve_passive(s_G, b, passive, z);
            float alpha = 2.0f;
            for (int i = 0; i < NN_K; i++) {
                if (passive[i] && z[i] <= 0.0f) {
                    float q = a[i] / (a[i] - z[i]);
                    if (q < alpha) alpha = q;
                }
            }
            if (alpha > 1.0f) {
                for (int i = 0; i < NN_K; i++) a[i] = z[i];
                break;
            }
            for (int i = 0; i < NN_K; i++) {
                a[i] += alpha * (z[i] - a[i]);
                if (passive[i] && a[i] <= 1e-6f) {
                    passive[i] = 0;
                    a[i] = 0.0f;
                }
            }
        }
    }
    float ab = 0.0f, aga = 0.0f;
    for (int i = 0; i < NN_K; i++) {
        ab += a[i] * b[i];
        float s = 0.0f;
        for (int j = 0; j < NN_K; j++) s += s_G[i * NN_K + j] * a[j];
        aga += a[i] * s;
        abund[(size_t)p * NN_K + i] = a[i];
    }
    rmse[p] = sqrtf(fmaxf(0.0f, xx[p] - 2.0f * ab + aga) / nbands);
    iters[p] = (unsigned char)it;
}

// ---------------------------------------------------------------- continuum_removal

// cube[(line * nbands + b) * width + s] (reflectance * 1 / scale), blockIdx.y the line; the
// window of bands b0 .. b1 - 1 (2 .. CR_MAXW of them); a pixel whose mean reflectance over
// the window is under min_refl is skipped (feat: zeros, band 0xffff; depth8 0); else its
// continuum is the upper convex hull of (c_wl[b], R[b]) over the window, the band depth
// d = 1 - R / continuum, feat[p] its largest depth, the deepest band's wavelength moved by
// the vertex of the parabola through it and its neighbours, the sum of d, the deepest band
// and the hull's vertices; depth8[p] = min(255, floor(500 depth + 1/2));
// band_hist[k] += pixels deepest at window band k; p = line * width + s
__global__ void continuum_removal(const unsigned short *cube, int width, int nbands, int b0, int b1, float scale,
                                  float min_refl, Feature *feat, unsigned char *depth8, int *band_hist) {
    __shared__ int s_hist[CR_MAXW];
    int nw = b1 - b0;
    for (int t = threadIdx.x; t < CR_MAXW; t += blockDim.x) s_hist[t] = 0;
    __syncthreads();
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    int line = blockIdx.y;
    if (s < width) {
        float r[CR_MAXW];
        int hull[CR_MAXW];
        float mean = 0.0f;
        for (int k = 0; k < nw; k++) {
            r[k] = cube[((size_t)line * nbands + b0 + k) * width + s] * scale;
            mean += r[k];
        }
        mean /= nw;
        Feature f;
        f.depth = 0.0f;
        f.center = 0.0f;
        f.area = 0.0f;
        f.band = 0xffff;
        f.nhull = 0;
        unsigned char d8 = 0;
        if (mean >= min_refl) {
            int h = 0;
            for (int k = 0; k < nw; k++) {
                while (h >= 2) {
                    int i0 = hull[h - 2], i1 = hull[h - 1];
                    float cross = (c_wl[b0 + i1] - c_wl[b0 + i0]) * (r[k] - r[i0]) -
                                  (r[i1] - r[i0]) * (c_wl[b0 + k] - c_wl[b0 + i0]);
                    if (cross < 0.0f) break;
                    h--;
                }
                hull[h++] = k;
            }
            int seg = 0, bk = 0;
            float best = -1.0f, area = 0.0f, dprev = 0.0f, dnext = 0.0f;
            float dk[CR_MAXW];
            for (int k = 0; k < nw; k++) {
                while (hull[seg + 1] < k) seg++;
                int i0 = hull[seg], i1 = hull[seg + 1];
                float t = (c_wl[b0 + k] - c_wl[b0 + i0]) / (c_wl[b0 + i1] - c_wl[b0 + i0]);
                float cont = r[i0] + t * (r[i1] - r[i0]);
                float d = cont > 0.0f ? 1.0f - r[k] / cont : 0.0f;
                dk[k] = d;
                area += d;
                if (d > best) {
                    best = d;
                    bk = k;
                }
            }
            float center = c_wl[b0 + bk];
            if (bk > 0 && bk < nw - 1) {
                dprev = dk[bk - 1];
                dnext = dk[bk + 1];
                float den = dprev - 2.0f * best + dnext;
                if (fabsf(den) > 1e-12f) center += 0.5f * (dprev - dnext) / den * (c_wl[b0 + bk + 1] - c_wl[b0 + bk]);
            }
            f.depth = best;
            f.center = center;
            f.area = area;
            f.band = (unsigned short)bk;
            f.nhull = (unsigned short)h;
            d8 = (unsigned char)fminf(255.0f, floorf(best * 500.0f + 0.5f));
            atomicAdd(&s_hist[bk], 1);
        }
        size_t p = (size_t)line * width + s;
        feat[p] = f;
        depth8[p] = d8;
    }
    __syncthreads();
    for (int t = threadIdx.x; t < nw; t += blockDim.x)
        if (s_hist[t] > 0) atomicAdd(&band_hist[t], s_hist[t]);
}

}
