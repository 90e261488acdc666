// probe-unseen188: a radio astronomy / interferometry course's CUDA assignments, as a student who
// knows CUDA basics hands them in:
//  - dft_image: the dirty image of a snapshot's visibilities by a direct Fourier transform, a
//    thread a pixel (l, m) of a 16 x 16 block: the visibilities (struct Vis: u, v, w in
//    wavelengths, the complex value) staged DFT_TILE at a time in shared memory between two
//    __syncthreads, each pixel summing Re(V exp(2 pi i (u l + v m + w (n - 1)))) with sincosf
//    over all of them (the w-term kept: n = sqrt(1 - l^2 - m^2));
//  - xcorr_int8: an FX correlator's X step on 8-bit complex (char2) channelised voltages
//    V[t][ant][chan], a thread a (channel, baseline) (blockIdx.y the baseline, its antenna pair
//    i <= j decoded by walking the upper triangle's rows), V_i conj(V_j) accumulated over the
//    time samples in integers, the visibility stored as an int2;
//  - grid_vis_const: gridding visibilities onto a uv grid, a thread a visibility (flagged ones,
//    weight 0, skipped): its nearest cell and oversampled fractional offset, the 7 x 7 footprint
//    of a separable Kaiser-Bessel convolution function tabulated in __constant__ memory (a row of
//    G_SUP taps a offset), the weighted visibility added to each cell's real and imaginary parts
//    by float atomicAdd; visibilities whose footprint leaves the grid dropped;
//  - rfi_mad: RFI flagging by the median absolute deviation, a block of RFI_N / 2 threads a row
//    of RFI_N samples of one channel: the median by a bitonic sort in shared memory (a
//    __syncthreads a stage), the absolute deviations sorted the same way for the MAD, samples
//    more than thresh robust sigmas (1.4826 MAD) from the median flagged and replaced by it;
//  - harmonic_sum: incoherent harmonic summing of a pulsar search's power spectra (one a DM
//    trial), a thread a (fundamental bin, trial): the powers at the first 1 .. HS_MAX harmonics
//    gathered and summed, the best of the 1, 2, 4, 8, 16-harmonic significances kept; each warp's
//    best (significance, bin) found by __shfl_down_sync for the candidate list;
//  - fold_pulsar: folding an 8-bit filterbank (channel-major after the corner turn) at a
//    pulsar's ephemeris, a block a (sub-integration, channel): the channel's dispersion delay and
//    each sample's spin phase in double (f0, f1), the samples and counts accumulated into
//    FOLD_NBIN phase bins by shared-memory atomicAdd, each bin's mean stored.

#define DFT_TILE 256          // dft_image: visibilities in shared memory at once (== threads a block)
#define G_SUP 7               // grid_vis_const: the convolution function's support (cells)
#define G_HALF 3              // G_SUP / 2
#define G_OVER 8              // its oversampling (fractional offsets a cell)
#define RFI_N 1024            // rfi_mad: samples a row (blockDim.x == RFI_N / 2)
#define MAD_SCALE 1.4826f     // sigma / MAD of a Gaussian
#define HS_MAX 16             // harmonic_sum: harmonics summed at most
#define FOLD_NBIN 256         // fold_pulsar: phase bins
#define KDM 4.148808e3        // the dispersion constant (s MHz^2 pc^-1 cm^3)

struct Vis {
    float u, v, w;            // wavelengths
    float re, im;             // Jy
};

// grid_vis_const's convolution function (set by the host): offset o (fractional position
// (o + 0.5) / G_OVER - 0.5 of a cell from the nearest cell's centre), tap d (cell d - G_HALF) at
// o * G_SUP + d
__constant__ float c_gcf[G_OVER * G_SUP];

extern "C" {

// img[py * npix + px] = (1 / nvis) sum_k Re(V_k exp(2 pi i (u_k l + v_k m + w_k (n - 1)))), l = (px - npix / 2) dl,
// m = (py - npix / 2) dl (blockDim 16 x 16 == DFT_TILE threads)
__global__ void dft_image(const struct Vis *vis, float *img, int npix, float dl, int nvis) {
    __shared__ struct Vis tile[DFT_TILE];
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    float l = (px - npix / 2) * dl;
    float m = (py - npix / 2) * dl;
    float nm1 = sqrtf(1.0f - l * l - m * m) - 1.0f;
    float sum = 0.0f;
    for (int base = 0; base < nvis; base += DFT_TILE) {
        if (base + tid < nvis) tile[tid] = vis[base + tid];
        __syncthreads();
        int cnt = min(DFT_TILE, nvis - base);
        for (int k = 0; k < cnt; k++) {
            float ph = 6.28318531f * (tile[k].u * l + tile[k].v * m + tile[k].w * nm1);
            float s, c;
            sincosf(ph, &s, &c);
            sum += tile[k].re * c - tile[k].im * s;
        }
        __syncthreads();
    }
    if (px < npix && py < npix) img[py * npix + px] = sum / nvis;
}

// vis[b * nchan + c] = sum_t V[t][i][c] conj(V[t][j][c]) for baseline b = (i, j), i <= j, numbered row by
// row of the upper triangle (0 = (0, 0), 1 = (0, 1), .., nant = (1, 1), ..); gridDim.y the baselines
__global__ void xcorr_int8(const char2 *V, int2 *vis, int nant, int nchan, int ntime) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    int i = 0;
    int r = b;
    while (r >= nant - i) {
        r -= nant - i;
        i++;
    }
    int j = i + r;
    if (c >= nchan) return;
    int re = 0;
    int im = 0;
    for (int t = 0; t < ntime; t++) {
        char2 a = V[(t * nant + i) * nchan + c];
        char2 q = V[(t * nant + j) * nchan + c];
        re += a.x * q.x + a.y * q.y;
        im += a.y * q.x - a.x * q.y;
    }
    vis[b * nchan + c] = make_int2(re, im);
}

// grid[cell] += wt c_gcf[ov][dy] c_gcf[ou][dx] vis over the 7 x 7 cells about each visibility's nearest cell
// (u, v in wavelengths, the cell 1 / inv_du wavelengths, u = v = 0 at cell (gsize / 2, gsize / 2))
__global__ void grid_vis_const(const float *u, const float *v, const float2 *vis, const float *wt, float2 *grid,
                               float inv_du, int gsize, int nvis) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nvis) return;
    float w = wt[k];
    if (w == 0.0f) return;                             // flagged
    float gu = u[k] * inv_du + gsize / 2;
    float gv = v[k] * inv_du + gsize / 2;
    int iu = (int)rintf(gu);
    int iv = (int)rintf(gv);
    if (iu - G_HALF < 0 || iu + G_HALF >= gsize || iv - G_HALF < 0 || iv + G_HALF >= gsize) return;
    int ou = min((int)((gu - iu + 0.5f) * G_OVER), G_OVER - 1);
    int ov = min((int)((gv - iv + 0.5f) * G_OVER), G_OVER - 1);
    float2 z = vis[k];
    float zr = w * z.x;
    float zi = w * z.y;
    for (int dy = 0; dy < G_SUP; dy++) {
        float cy = c_gcf[ov * G_SUP + dy];
        int row = (iv - G_HALF + dy) * gsize + iu - G_HALF;
        for (int dx = 0; dx < G_SUP; dx++) {
            float g = cy * c_gcf[ou * G_SUP + dx];
            atomicAdd(&grid[row + dx].x, g * zr);
            atomicAdd(&grid[row + dx].y, g * zi);
        }
    }
}

// sorts s[0 .. RFI_N) ascending, a thread (of RFI_N / 2) a compare-exchange a stage
__device__ void bitonic_sort(float *s, int tid) {
    for (int k = 2; k <= RFI_N; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            int i = 2 * tid - (tid & (j - 1));         // the pair's lower index (bit j clear)
            bool up = (i & k) == 0;
            float a = s[i];
            float b = s[i + j];
            if ((a > b) == up) {
                s[i] = b;
                s[i + j] = a;
            }
            __syncthreads();
        }
    }
}

// row r of data (RFI_N samples from r * RFI_N): med[r], mad[r] its median and median absolute deviation,
// samples with |x - med| > thresh MAD_SCALE mad replaced by med and flagged (flag 1, else 0)
__global__ void rfi_mad(float *data, unsigned char *flag, float *med, float *mad, float thresh) {
    __shared__ float s[RFI_N];
    int tid = threadIdx.x;
    float *x = data + blockIdx.x * RFI_N;
    unsigned char *f = flag + blockIdx.x * RFI_N;
    float a = x[tid];
    float b = x[tid + RFI_N / 2];
    s[tid] = a;
    s[tid + RFI_N / 2] = b;
    __syncthreads();
    bitonic_sort(s, tid);
    float m = 0.5f * (s[RFI_N / 2 - 1] + s[RFI_N / 2]);
    __syncthreads();
    float da = fabsf(a - m);
    float db = fabsf(b - m);
    s[tid] = da;
    s[tid + RFI_N / 2] = db;
    __syncthreads();
    bitonic_sort(s, tid);
    float d = 0.5f * (s[RFI_N / 2 - 1] + s[RFI_N / 2]);
    float cut = thresh * MAD_SCALE * d;
    f[tid] = da > cut;
    f[tid + RFI_N / 2] = db > cut;
    if (da > cut) x[tid] = m;
    if (db > cut) x[tid + RFI_N / 2] = m;
    if (tid == 0) {
        med[blockIdx.x] = m;
        mad[blockIdx.x] = d;
    }
}

// P[trial * nbins + k]: trial's normalised powers; for fundamental f < nf = nbins / HS_MAX: S_h = sum of P at
// f, 2f, .., hf and sig_h = (S_h - h) / sqrt(h) for h = 1, 2, 4, 8, 16; best[trial * nf + f] the largest sig_h,
// nharm its h; wbest, wbin (a warp of the grid's row each, trial * gridDim.x blockDim.x / 32 + f / 32) the
// warp's largest best and its bin (the smallest on ties; blockDim.x a multiple of 32)
__global__ void harmonic_sum(const float *P, float *best, unsigned char *nharm, float *wbest, int *wbin, int nbins) {
    int nf = nbins / HS_MAX;
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    int trial = blockIdx.y;
    const float *p = P + (size_t)trial * nbins;
    float bs = -FLT_MAX;
    int bh = 0;
    if (f < nf) {
        float S = 0.0f;
        for (int h = 1; h <= HS_MAX; h++) {
            S += p[h * f];
            if ((h & (h - 1)) == 0) {
                float sig = (S - h) / sqrtf((float)h);
                if (sig > bs) {
                    bs = sig;
                    bh = h;
                }
            }
        }
        best[trial * nf + f] = bs;
        nharm[trial * nf + f] = bh;
    }
    int bf = f;
    for (int o = 16; o > 0; o >>= 1) {
        float os = __shfl_down_sync(0xffffffff, bs, o);
        int of = __shfl_down_sync(0xffffffff, bf, o);
        if (os > bs || (os == bs && of < bf)) {
            bs = os;
            bf = of;
        }
    }
    if ((threadIdx.x & 31) == 0) {
        int w = (trial * gridDim.x * blockDim.x + f) / 32;
        wbest[w] = bs;
        wbin[w] = bf;
    }
}

// data[c * nsamp + t]: channel c (fch1 + c foff MHz) at t tsamp s; sub-integration s = blockIdx.x of nsub
// samples, channel c = blockIdx.y: each sample's phase f0 tt + f1 tt^2 / 2 at tt = t tsamp - KDM dm
// (f^-2 - fref^-2), its bin floor(frac(phase) FOLD_NBIN); fold[(s * nchan + c) * FOLD_NBIN + bin] the bin's mean
// (0 if empty)
__global__ void fold_pulsar(const unsigned char *data, float *fold, int nchan, int nsamp, int nsub, double tsamp,
                            double fch1, double foff, double fref, double dm, double f0, double f1) {
    __shared__ float prof[FOLD_NBIN];
    __shared__ int cnt[FOLD_NBIN];
    int sub = blockIdx.x;
    int c = blockIdx.y;
    for (int b = threadIdx.x; b < FOLD_NBIN; b += blockDim.x) {
        prof[b] = 0.0f;
        cnt[b] = 0;
    }
    __syncthreads();
    double f = fch1 + c * foff;
    double delay = KDM * dm * (1.0 / (f * f) - 1.0 / (fref * fref));
    const unsigned char *x = data + (size_t)c * nsamp;
    for (int k = threadIdx.x; k < nsub; k += blockDim.x) {
        int t = sub * nsub + k;
        if (t >= nsamp) break;
        double tt = t * tsamp - delay;
        double ph = tt * (f0 + 0.5 * f1 * tt);
        ph -= floor(ph);
        int bin = min((int)(ph * FOLD_NBIN), FOLD_NBIN - 1);
        atomicAdd(&prof[bin], (float)x[t]);
        atomicAdd(&cnt[bin], 1);
    }
    __syncthreads();
    float *out = fold + ((size_t)sub * nchan + c) * FOLD_NBIN;
    for (int b = threadIdx.x; b < FOLD_NBIN; b += blockDim.x) out[b] = cnt[b] > 0 ? prof[b] / cnt[b] : 0.0f;
}

}
