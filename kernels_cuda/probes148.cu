// probe-unseen146: a bioimage-analysis / microscopy course's CUDA assignments, as a student
// who knows CUDA basics hands them in:
//  - rl_blur_ratio: the first half of a Richardson-Lucy deconvolution step, the current
//    estimate blurred by a 9 x 9 PSF held in __constant__ memory (zero outside the image,
//    a thread a pixel reading its 81 neighbours straight from global memory), and the
//    ratio observed / (blurred + eps) stored;
//  - spot_localmax: spot detection on a 16-bit image, a 16 x 16 tile plus a 2-pixel halo
//    staged in shared memory, a pixel a spot when it is over the threshold and no pixel of
//    its 5 x 5 neighbourhood is brighter; the spots appended to a list by atomicAdd on a
//    counter;
//  - ccl_propagate: one iteration of connected-component labelling by label propagation
//    on a binary mask (4-connectivity), each foreground pixel taking the smallest label of
//    itself and its foreground neighbours (labels double-buffered), a flag set by atomicOr
//    when any label changes;
//  - bg_colmin_subtract: rolling-minimum background subtraction, the vertical pass of a
//    separable 51 x 51 minimum filter (the horizontal pass's row minima given), rows
//    clamped at the edges, the background subtracted from the 16-bit image;
//  - hist12_smem: the intensity histogram of a 12-bit camera image (4096 bins), a
//    private histogram a block in shared memory filled by a grid-stride loop with shared
//    atomicAdd, then added into the global histogram;
//  - mip_argmax_u16: the maximum-intensity projection of a 16-bit z-stack, a thread a
//    pixel walking down the slices, with the slice of the maximum (a depth-coded MIP).

#define RL_R 4                // rl_blur_ratio: the PSF's radius
#define RL_K (2 * RL_R + 1)   // rl_blur_ratio: the PSF's width
#define RL_EPS 1e-6f          // rl_blur_ratio: guards the division
#define SP_T 16               // spot_localmax: the tile's side (blockDim 16 x 16)
#define SP_R 2                // spot_localmax: the neighbourhood's radius (5 x 5)
#define SP_S (SP_T + 2 * SP_R)
#define BG_R 25               // bg_colmin_subtract: the window's radius (51 rows)
#define HIST_BINS 4096        // hist12_smem: 12-bit intensities

// rl_blur_ratio's point-spread function (set by the host), row-major RL_K x RL_K
__constant__ float c_psf[RL_K * RL_K];

extern "C" {

// ratio = obs / (psf (*) est + eps) over a w x h image (row-major), est zero outside
__global__ void rl_blur_ratio(const float *est, const float *obs, float *ratio, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.0f;
    for (int dy = -RL_R; dy <= RL_R; dy++) {
        int yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (int dx = -RL_R; dx <= RL_R; dx++) {
            int xx = x + dx;
            if (xx < 0 || xx >= w) continue;
            s += c_psf[(dy + RL_R) * RL_K + (dx + RL_R)] * est[yy * w + xx];
        }
    }
    ratio[y * w + x] = obs[y * w + x] / (s + RL_EPS);
}

// the pixels of a w x h 16-bit image over thresh with no brighter pixel in their 5 x 5
// neighbourhood (outside the image counts as 0): their indices y * w + x appended to
// spots (at most max_spots stored, *count counting all of them)
__global__ void spot_localmax(const unsigned short *img, int *spots, int *count, int w, int h, int thresh,
                              int max_spots) {
    __shared__ unsigned short tile[SP_S][SP_S];
    int tid = threadIdx.y * SP_T + threadIdx.x;
    int x0 = blockIdx.x * SP_T - SP_R;
    int y0 = blockIdx.y * SP_T - SP_R;
    for (int k = tid; k < SP_S * SP_S; k += SP_T * SP_T) {
        int ty = k / SP_S;
        int tx = k % SP_S;
        int gx = x0 + tx;
        int gy = y0 + ty;
        unsigned short v = 0;
        if (gx >= 0 && gx < w && gy >= 0 && gy < h) v = img[gy * w + gx];
        tile[ty][tx] = v;
    }
    __syncthreads();

    int x = blockIdx.x * SP_T + threadIdx.x;
    int y = blockIdx.y * SP_T + threadIdx.y;
    if (x >= w || y >= h) return;
    int v = tile[threadIdx.y + SP_R][threadIdx.x + SP_R];
    if (v > thresh) {
        bool is_max = true;
        for (int dy = 0; dy < 2 * SP_R + 1; dy++) {
            for (int dx = 0; dx < 2 * SP_R + 1; dx++) {
                if (tile[threadIdx.y + dy][threadIdx.x + dx] > v) is_max = false;
            }
        }
        if (is_max) {
            int idx = atomicAdd(count, 1);
            if (idx < max_spots) spots[idx] = y * w + x;
        }
    }
}

// one label-propagation iteration on a w x h mask (non-zero: foreground): a foreground
// pixel's new label the smallest of its own and its 4 foreground neighbours' in lab_in,
// background pixels keeping theirs (0); *changed set to 1 (atomicOr) when some label went down
__global__ void ccl_propagate(const unsigned char *mask, const int *lab_in, int *lab_out, int *changed, int w,
                              int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int p = y * w + x;
    int l = lab_in[p];
    if (mask[p]) {
        int m = l;
        if (x > 0 && mask[p - 1]) m = min(m, lab_in[p - 1]);
        if (x < w - 1 && mask[p + 1]) m = min(m, lab_in[p + 1]);
        if (y > 0 && mask[p - w]) m = min(m, lab_in[p - w]);
        if (y < h - 1 && mask[p + w]) m = min(m, lab_in[p + w]);
        if (m < l) {
            l = m;
            atomicOr(changed, 1);   // not a plain store: every changing pixel writes the flag
        }
    }
    lab_out[p] = l;
}

// background = the minimum of rowmin over rows y - BG_R .. y + BG_R (clamped to the
// image) of column x; out = img - background (img >= its row minimum >= background)
__global__ void bg_colmin_subtract(const unsigned short *img, const unsigned short *rowmin, unsigned short *out,
                                   int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    unsigned short bg = 65535;
    for (int dy = -BG_R; dy <= BG_R; dy++) {
        int yy = min(max(y + dy, 0), h - 1);
        unsigned short r = rowmin[yy * w + x];
        if (r < bg) bg = r;
    }
    out[y * w + x] = img[y * w + x] - bg;
}

// the histogram of npix 12-bit intensities (values 0 .. 4095 in uint16): a shared
// histogram a block, filled by a grid-stride loop, then added into hist
__global__ void hist12_smem(const unsigned short *img, unsigned int *hist, int npix) {
    __shared__ unsigned int s_hist[HIST_BINS];
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) s_hist[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < npix; i += blockDim.x * gridDim.x) {
        unsigned short v = img[i];
        atomicAdd(&s_hist[v & (HIST_BINS - 1)], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) {
        if (s_hist[b] > 0) atomicAdd(&hist[b], s_hist[b]);
    }
}

// the maximum-intensity projection of nz slices of npix 16-bit pixels (slice z at
// stack + z * npix): each pixel's maximum and the first slice holding it
__global__ void mip_argmax_u16(const unsigned short *stack, unsigned short *mip, unsigned char *depth, int npix,
                               int nz) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npix) return;
    unsigned short best = stack[p];
    int bz = 0;
    for (int z = 1; z < nz; z++) {
        unsigned short v = stack[(size_t)z * npix + p];
        if (v > best) {
            best = v;
            bz = z;
        }
    }
    mip[p] = best;
    depth[p] = (unsigned char)bz;
}

}
