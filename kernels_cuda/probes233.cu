// probe-unseen231: a computational-lithography course's CUDA assignments (193 nm immersion,
// NA 1.35, annular illumination, a dark-field metal layer on a 6% attenuated phase-shift
// mask), as a student who knows CUDA basics hands them in:
//  - socs_aerial_image: Hopkins' aerial image by the sum of coherent systems (SOCS), a
//    16 x 16 block a 16 x 16 tile of the image: the 8-bit area-coverage raster of the mask
//    with a halo of 8 pixels turned into the att-PSM's amplitude transmission in a shared
//    32 x 32 tile (periodic clip: & masks), then for each of the 5 kernels kept (the TCC's
//    leading eigenfunctions in real space, 17 x 17 complex taps stored flipped in a
//    __constant__ float2 table) a correlation by a templated helper of fully unrolled loops,
//    the intensity the eigenvalue-weighted sum of |E_k|^2;
//  - abbe_pupil_spectra: the inner step of Abbe imaging, blockIdx.y a source point of a
//    __constant__ table of SourcePoint structs: the mask's spectrum (float2, FFT order)
//    times the pupil shifted by the source point: the NA's cut-off (divergent at the
//    circle), fringe Zernike aberrations Z4 .. Z9 from a __constant__ table, the exact
//    high-NA defocus phase (sqrtf), the radiometric factor, sincosf, a complex product,
//    one spectrum a source point for the inverse FFTs that follow;
//  - resist_peb_develop: the y pass of the post-exposure bake's separable Gaussian acid
//    diffusion fused with the deprotection and Mack's development rate: a grid-stride loop
//    whose index runs down the image's columns (y fastest, as the column pass is written:
//    a warp's loads 32 rows apart), 13 clamped taps by a templated, unrolled helper with
//    the Gaussian's weights in __constant__ memory, expf and powf, the rate stored as
//    16-bit fixed point;
//  - opc_epe_update: one iteration of model-based OPC, a grid-stride loop over the edge
//    fragments (16-byte structs with an 8-bit normal, clip and kind): 81 bilinear samples
//    of the fragment's clip image along its normal (gathered), the threshold crossing
//    nearest the target edge (divergent), the edge placement error, the new bias (a
//    __constant__ gain by kind, clamped) stored into the struct; the EPEs' sum of squares
//    and largest |EPE| by __shfl_xor_sync after the loop, a double atomicAdd and an int
//    atomicMax a warp, the fragments with no crossing counted by __ballot_sync / __popc;
//  - mrc_spacing_check: a mask rule check of the OPC'd mask's rectangles (int structs,
//    sorted into 256 nm bins, CSR offsets; a grid-stride loop): the width rule by a
//    warp-aggregated append (__ballot_sync, __popc, __shfl_sync), then the Euclidean
//    spacing and short checks against the rectangles of the 3 x 3 bins around
//    (data-dependent loops, gathered struct loads), each violation appended to a list by a
//    global atomicAdd;
//  - image_hist_moments: the statistics of a focus stack of aerial images for calibrating a
//    threshold resist model, blockIdx.y a focus plane: a grid-stride loop, a 256-bin shared
//    histogram of intensity (contended shared int atomics: the dark field's background),
//    double sums of I and I^2 reduced by a shared tree, the plane's min / max by
//    __shfl_down_sync and int atomicMin / atomicMax on the float bits, the histogram flushed
//    by global atomicAdd.

#define PI_F 3.14159265358979f
#define FULL_MASK 0xffffffffu

#define SOCS_K 5                // socs_aerial_image: kernels kept
#define SOCS_R 8                // taps each side of the centre (17 x 17)
#define SOCS_T 16               // the block's and the output tile's side
#define SOCS_W (SOCS_T + 2 * SOCS_R)    // the shared tile's side (32)

#define N_SRC_MAX 64            // abbe_pupil_spectra: source points, at most

#define PEB_R 6                 // resist_peb_develop: taps each side (13)

#define EPE_NS 81               // opc_epe_update: samples along the normal ...
#define EPE_STEP 1.0f           // ... 1 nm apart ...
#define EPE_HALF 40.0f          // ... from -40 to +40 nm

#define HIST_B 256              // image_hist_moments: bins (= blockDim.x)

// abbe_pupil_spectra: a point of the pixelated source, in sigma units (of NA), its weight
struct SourcePoint {
    float sx, sy;
    float w;
    float pad;
};

// opc_epe_update: an edge fragment, its evaluation site on the target edge (nm in its clip)
struct Fragment {
    float x, y;
    float bias;                 // the mask edge's current move, outward positive (nm)
    unsigned char clip;         // its clip's image
    unsigned char kind;         // 0 a run slot's side, 1 a line end, 2 an end slot's side
    signed char nx, ny;         // the outward normal
};

// mrc_spacing_check: a rectangle of the OPC'd mask, nm (x1, y1 exclusive), its polygon
struct Rect {
    int x0, y0, x1, y1;
    int poly;
};

// mrc_spacing_check: a rule violation: the rectangles (b = -1 for width), kind (0 width,
// 1 space, 2 short), the width squared or the spacing squared
struct Violation {
    int a, b;
    int kind;
    int d2;
};

// the SOCS kernels h_k, stored flipped (c_socs[k][dy][dx] = h_k(R - dy, R - dx)) so that
// the loops below are correlations, and their eigenvalues
__constant__ float2 c_socs[SOCS_K][2 * SOCS_R + 1][2 * SOCS_R + 1];
__constant__ float c_socs_lam[SOCS_K];

// the source's points and the fringe Zernike coefficients Z1 .. Z9 (waves)
__constant__ SourcePoint c_src[N_SRC_MAX];
__constant__ float c_zern[9];

// the post-exposure bake's diffusion: Gaussian weights (summing to 1)
__constant__ float c_peb[2 * PEB_R + 1];

// the OPC feedback gain by fragment kind
__constant__ float c_gain[3];

// one SOCS kernel's field at the tile's pixel (ty, tx): the (2R + 1)^2 taps over the shared
// transmission tile s_t (SOCS_W a row)
template <int R>
__device__ float2 socs_field(const float *s_t, int ty, int tx, int k) {
    float re = 0.0f, im = 0.0f;
#pragma unroll
    for (int dy = 0; dy <= 2 * R; dy++) {
#pragma unroll
        for (int dx = 0; dx <= 2 * R; dx++) {
            float t = s_t[(ty + dy) * SOCS_W + tx + dx];
            float2 h = c_socs[k][dy][dx];
            re += t * h.x;
            im += t * h.y;
        }
    }
    return make_float2(re, im);
}

// the y pass of the bake's blur at (x, y): 2R + 1 taps down the column, clamped at the
// image's top and bottom
template <int R>
__device__ float blur_column(const float *a, int x, int y, int nx, int ny) {
    float s = 0.0f;
#pragma unroll
    for (int k = -R; k <= R; k++) {
        int yy = min(max(y + k, 0), ny - 1);
        s += c_peb[k + R] * a[yy * nx + x];
    }
    return s;
}

// the n x n image img (pixels of pix nm, the values at the pixels' corners (i pix, j pix))
// bilinearly interpolated at (x, y) nm, clamped to the clip
__device__ float bilinear(const float *img, int n, float pix, float x, float y) {
    float u = x / pix, v = y / pix;
    u = fminf(fmaxf(u, 0.0f), (float)(n - 1) - 0.001f);
    v = fminf(fmaxf(v, 0.0f), (float)(n - 1) - 0.001f);
    int i = (int)u, j = (int)v;
    float fu = u - (float)i, fv = v - (float)j;
    const float *p = img + j * n + i;
    float a = p[0] + fu * (p[1] - p[0]);
    float b = p[n] + fu * (p[n + 1] - p[n]);
    return a + fv * (b - a);
}

extern "C" {

// ---------------------------------------------------------------- socs_aerial_image

// mask: an nx x ny raster (powers of two, multiples of SOCS_T; periodic) of the mask's
// clear area in each pixel (0 .. 255); the amplitude transmission t_bg + (t_ft - t_bg)
// cov / 255; img: the aerial intensity sum_k lam_k |h_k * t|^2
__global__ void socs_aerial_image(const unsigned char *mask, int nx, int ny, float t_bg, float t_ft,
                                  float *img) {
    __shared__ float s_t[SOCS_W * SOCS_W];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x0 = blockIdx.x * SOCS_T - SOCS_R, y0 = blockIdx.y * SOCS_T - SOCS_R;
    float dt = (t_ft - t_bg) / 255.0f;
    for (int k = ty * SOCS_T + tx; k < SOCS_W * SOCS_W; k += SOCS_T * SOCS_T) {
        int i = (x0 + k % SOCS_W) & (nx - 1);
        int j = (y0 + k / SOCS_W) & (ny - 1);
        s_t[k] = t_bg + dt * (float)mask[j * nx + i];
    }
    __syncthreads();
    float I = 0.0f;
    for (int k = 0; k < SOCS_K; k++) {
        float2 e = socs_field<SOCS_R>(s_t, ty, tx, k);
        I += c_socs_lam[k] * (e.x * e.x + e.y * e.y);
    }
    img[(blockIdx.y * SOCS_T + ty) * nx + blockIdx.x * SOCS_T + tx] = I;
}

// ---------------------------------------------------------------- abbe_pupil_spectra

// mspec: the mask's n x n spectrum (FFT order, n a power of two, frequencies k df
// cycles/nm); out[s n^2 + ..] = sqrt(w_s) mspec(f) P(f + s NA / lambda) for the source
// point s = blockIdx.y: the pupil of numerical aperture na (na_l = na / lambda), immersion
// index n_imm, defocus z (nm), the aberrations c_zern (waves)
__global__ void abbe_pupil_spectra(const float2 *mspec, int n, float df, float na_l, float na,
                                   float n_imm, float lambda, float z, float2 *out) {
    int s = blockIdx.y;
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int kx = idx % n, ky = idx / n;
    if (kx >= n / 2) kx -= n;
    if (ky >= n / 2) ky -= n;
    SourcePoint sp = c_src[s];
    // the pupil's coordinates (1 at the NA's edge)
    float px = (float)kx * df / na_l + sp.sx;
    float py = (float)ky * df / na_l + sp.sy;
    float r2 = px * px + py * py;
    float2 o = make_float2(0.0f, 0.0f);
    if (r2 <= 1.0f) {
        float W = c_zern[3] * (2.0f * r2 - 1.0f)                      // defocus
                  + c_zern[4] * (px * px - py * py)                   // astigmatism 0
                  + c_zern[5] * (2.0f * px * py)                      // astigmatism 45
                  + c_zern[6] * (3.0f * r2 - 2.0f) * px               // coma x
                  + c_zern[7] * (3.0f * r2 - 2.0f) * py               // coma y
                  + c_zern[8] * (6.0f * r2 * r2 - 6.0f * r2 + 1.0f);  // spherical
        float s2 = r2 * (na / n_imm) * (na / n_imm);                  // sin^2 of the angle in the fluid
        float cq = sqrtf(1.0f - s2);
        float phase = 2.0f * PI_F * (W + z * n_imm / lambda * (cq - 1.0f));
        float amp = sqrtf(sp.w) * sqrtf(rsqrtf(cq));                  // the radiometric factor cos^-1/4
        float sn, cs;
        sincosf(phase, &sn, &cs);
        float2 m = mspec[idx];
        o.x = amp * (m.x * cs - m.y * sn);
        o.y = amp * (m.x * sn + m.y * cs);
    }
    out[s * n * n + idx] = o;
}

// ---------------------------------------------------------------- resist_peb_develop

// acid_x: the photo-acid after the exposure (Dill) and the bake's x pass, an nx x ny image;
// its y pass, the inhibitor left m = exp(-kt acid), Mack's rate rmax (a + 1) (1 - m)^n /
// (a + (1 - m)^n) + rmin (nm/s) into rate as 0.01 nm/s units
__global__ void resist_peb_develop(const float *acid_x, int nx, int ny, float kt, float rmax, float rmin,
                                   float n_mack, float a_mack, unsigned short *rate) {
    int total = nx * ny;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        int y = i % ny, x = i / ny;                     // down the columns
        float acid = blur_column<PEB_R>(acid_x, x, y, nx, ny);
        float m = expf(-kt * acid);
        float q = powf(1.0f - m, n_mack);
        float r = rmax * (a_mack + 1.0f) * q / (a_mack + q) + rmin;
        rate[y * nx + x] = (unsigned short)(r * 100.0f + 0.5f);
    }
}

// ---------------------------------------------------------------- opc_epe_update

// img: the clips' n x n aerial images (pixels of pix nm); nf fragments, a grid-stride loop
// (warp-uniform trips); thr the resist's threshold; the new bias bias - gain[kind] EPE
// clamped to +-bmax into frag, the EPE into epe; stats[0] += sum EPE^2, *max_epe = max |EPE|
// (0.01 nm units), *nlost += the fragments with no crossing
__global__ void opc_epe_update(const float *img, int n, float pix, Fragment *frag, int nf, float thr,
                               float bmax, float *epe, double *stats, int *max_epe, int *nlost) {
    int lane = threadIdx.x % 32;
    float s = 0.0f, m = 0.0f;
    int nl = 0;
    for (int base = blockIdx.x * blockDim.x; base < nf; base += gridDim.x * blockDim.x) {
        int f = base + threadIdx.x;
        bool lost = false;
        if (f < nf) {
            Fragment fr = frag[f];
            const float *im = img + fr.clip * n * n;
            float nxf = (float)fr.nx, nyf = (float)fr.ny;
            float best = 1e30f;
            float prev = bilinear(im, n, pix, fr.x - EPE_HALF * nxf, fr.y - EPE_HALF * nyf);
            for (int k = 1; k < EPE_NS; k++) {
                float tk = -EPE_HALF + (float)k * EPE_STEP;
                float cur = bilinear(im, n, pix, fr.x + tk * nxf, fr.y + tk * nyf);
                if ((prev - thr) * (cur - thr) <= 0.0f && prev != cur) {
                    float tc = tk - EPE_STEP + (prev - thr) / (prev - cur) * EPE_STEP;
                    if (fabsf(tc) < fabsf(best)) best = tc;
                }
                prev = cur;
            }
            float e = best;
            if (best > 1e29f) {
                // no edge: the feature bridged (bright all along) or vanished (dark)
                lost = true;
                float mid = bilinear(im, n, pix, fr.x, fr.y);
                e = mid > thr ? EPE_HALF : -EPE_HALF;
            }
            float b = fr.bias - c_gain[fr.kind] * e;
            frag[f].bias = fminf(fmaxf(b, -bmax), bmax);
            epe[f] = e;
            s += e * e;
            m = fmaxf(m, fabsf(e));
        }
        unsigned int bl = __ballot_sync(FULL_MASK, lost);
        nl += __popc(bl);
    }
    for (int o = 16; o > 0; o /= 2) {
        s += __shfl_xor_sync(FULL_MASK, s, o);
        m = fmaxf(m, __shfl_xor_sync(FULL_MASK, m, o));
    }
    if (lane == 0) {
        atomicAdd(&stats[0], (double)s);
        atomicMax(max_epe, (int)(m * 100.0f + 0.5f));
        if (nl > 0) atomicAdd(nlost, nl);
    }
}

// ---------------------------------------------------------------- mrc_spacing_check

// nr rectangles r sorted by the bin of their lower-left corner (bins of bin_nm, nbx x nby,
// CSR offsets bin_start), a grid-stride loop (warp-uniform trips); widths (heights: the
// layer runs along x) under wmin, and different polygons closer than smin (Euclidean) or
// touching, appended to out (at most cap); count[0] the slots taken, count[1 + kind] the
// violations of each kind
__global__ void mrc_spacing_check(const Rect *r, int nr, const int *bin_start, int nbx, int nby, int bin_nm,
                                  int wmin, int smin, Violation *out, int cap, int *count) {
    int lane = threadIdx.x % 32;
    int s2 = smin * smin;
    for (int base = blockIdx.x * blockDim.x; base < nr; base += gridDim.x * blockDim.x) {
        int i = base + threadIdx.x;
        bool act = i < nr;
        Rect a;
        a.x0 = 0;
        a.y0 = 0;
        a.x1 = 0;
        a.y1 = 0;
        a.poly = -1;
        if (act) a = r[i];
        int w = a.y1 - a.y0;                            // the layer's wires run along x
        bool thin = act && w < wmin;
        // the width rule: one atomic a warp for its slots
        unsigned int bal = __ballot_sync(FULL_MASK, thin);
        int slot0 = 0;
        if (lane == 0 && bal != 0) {
            slot0 = atomicAdd(&count[0], __popc(bal));
            atomicAdd(&count[1], __popc(bal));
        }
        slot0 = __shfl_sync(FULL_MASK, slot0, 0);
        if (thin) {
            int slot = slot0 + __popc(bal & ((1u << lane) - 1u));
            if (slot < cap) {
                out[slot].a = i;
                out[slot].b = -1;
                out[slot].kind = 0;
                out[slot].d2 = w * w;
            }
        }
        if (!act) continue;
        // spacing and shorts: the rectangles after this one in the 3 x 3 bins around it
        int bx = a.x0 / bin_nm, by = a.y0 / bin_nm;
        for (int gy = by - 1; gy <= by + 1; gy++) {
            if (gy < 0 || gy >= nby) continue;
            for (int gx = bx - 1; gx <= bx + 1; gx++) {
                if (gx < 0 || gx >= nbx) continue;
                int b = gy * nbx + gx;
                int jend = bin_start[b + 1];
                for (int j = max(bin_start[b], i + 1); j < jend; j++) {     // each pair once
                    Rect c = r[j];
                    if (c.poly == a.poly) continue;
                    int dx = max(0, max(c.x0 - a.x1, a.x0 - c.x1));
                    int dy = max(0, max(c.y0 - a.y1, a.y0 - c.y1));
                    int d2 = dx * dx + dy * dy;
                    int kind = 0;
                    if (dx == 0 && dy == 0) kind = 2;
                    else if (d2 < s2) kind = 1;
                    if (kind > 0) {
                        int slot = atomicAdd(&count[0], 1);
                        atomicAdd(&count[1 + kind], 1);
                        if (slot < cap) {
                            out[slot].a = i;
                            out[slot].b = j;
                            out[slot].kind = kind;
                            out[slot].d2 = d2;
                        }
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------- image_hist_moments

// img: gridDim.y planes of npix intensities (>= 0); for plane p = blockIdx.y: hist[p HIST_B
// + b] += the pixels with I inv_bin in bin b (the last bin open), mom[2 p] += sum I,
// mom[2 p + 1] += sum I^2, imin[p] / imax[p] the float bits of the least / largest I
__global__ void image_hist_moments(const float *img, int npix, float inv_bin, int *hist, double *mom,
                                   int *imin, int *imax) {
    __shared__ int s_h[HIST_B];
    __shared__ double s_sum[HIST_B];
    __shared__ double s_sq[HIST_B];
    int t = threadIdx.x, lane = t % 32;
    int p = blockIdx.y;
    const float *a = img + p * npix;
    s_h[t] = 0;
    __syncthreads();
    double sum = 0.0, sq = 0.0;
    float mn = 3.0e38f, mx = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < npix; i += gridDim.x * blockDim.x) {
        float v = a[i];
        int b = min((int)(v * inv_bin), HIST_B - 1);
        atomicAdd(&s_h[b], 1);
        sum += (double)v;
        sq += (double)v * (double)v;
        mn = fminf(mn, v);
        mx = fmaxf(mx, v);
    }
    for (int o = 16; o > 0; o /= 2) {
        mn = fminf(mn, __shfl_down_sync(FULL_MASK, mn, o));
        mx = fmaxf(mx, __shfl_down_sync(FULL_MASK, mx, o));
    }
    if (lane == 0) {
        atomicMin(&imin[p], __float_as_int(mn));
        atomicMax(&imax[p], __float_as_int(mx));
    }
    s_sum[t] = sum;
    s_sq[t] = sq;
    __syncthreads();
    for (int s = HIST_B / 2; s > 0; s /= 2) {
        if (t < s) {
            s_sum[t] += s_sum[t + s];
            s_sq[t] += s_sq[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        atomicAdd(&mom[2 * p], s_sum[0]);
        atomicAdd(&mom[2 * p + 1], s_sq[0]);
    }
    if (s_h[t] > 0) atomicAdd(&hist[p * HIST_B + t], s_h[t]);
}

}
