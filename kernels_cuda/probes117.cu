// probe-unseen115: a remote-sensing / satellite-imagery course's CUDA assignments, as a
// student who knows CUDA basics hands them in (rasters row-major, multiband images
// band-sequential: band b of pixel i at b * npix + i):
//   spectral_indices   NDVI, NDWI and MNDWI of a Landsat-8 tile stored as Collection-2
//                      uint16 DNs (reflectance = DN * scale + offset, DN 0 the fill of the
//                      scene's tilted footprint), NDVI and NDWI stored as floats (-9999 on
//                      fill) and a land-cover byte from thresholds (water, bare, sparse and
//                      dense vegetation); a thread a pixel
//   cloud_mask_dilate  a potential-cloud test (bright in blue, cold in the thermal band,
//                      white: flat visible/SWIR spectrum) on a 16 x 16 tile plus a 2-pixel
//                      halo staged in shared memory, then a 5 x 5 dilation of the mask (the
//                      cloud buffer): 2 cloud, 1 buffer, 0 clear
//   zonal_stats        sum, sum of squares and count of an NDVI raster per district of a
//                      label map (ZS_ZONES districts, -1 outside the study area, -9999 NDVI
//                      skipped), privatized in shared memory (shared atomics, a grid-stride
//                      loop of ZS_PER_THREAD pixels a thread), one global atomicAdd per
//                      block, district and statistic at the end
//   reproject_bilinear resampling a DEM onto a rotated, rescaled output grid: the affine
//                      geotransform (output pixel centre -> source pixel coordinates) in
//                      __constant__ memory, bilinear interpolation of the 4 neighbours,
//                      nodata where the footprint leaves the source
//   mlc_classify       Gaussian maximum-likelihood classification of a 6-band image into
//                      MLC_CLASSES classes: per class the Mahalanobis distance with the
//                      class's inverse covariance plus ln|Sigma| (the class statistics in
//                      __constant__ memory), the best class kept, pixels farther than the
//                      chi-square threshold from it left unclassified (255)
//   cva_change         change-vector analysis between two dates of a 4-band image: date 2
//                      radiometrically normalised (gain, bias per band), the change vector's
//                      squared magnitude against a threshold; changed pixels get a type from
//                      the quadrant of (tasseled-cap brightness change, greenness change)
//                      by atan2f and append their index to a list through one atomicAdd
//                      counter

#define FILL_VALUE -9999.0f

// spectral_indices: land-cover codes
#define LC_FILL 0
#define LC_WATER 1
#define LC_BARE 2
#define LC_SPARSE 3
#define LC_DENSE 4

// cloud_mask_dilate
#define CM_TILE 16                       // blockDim.x == blockDim.y == CM_TILE
#define CM_R 2                           // the dilation's radius (a 5 x 5 square)
#define CM_W (CM_TILE + 2 * CM_R)

// zonal_stats
#define ZS_ZONES 64

// mlc_classify
#define MLC_BANDS 6
#define MLC_CLASSES 16
#define MLC_UNCLASSIFIED 255

// cva_change
#define CVA_BANDS 4                      // blue, green, red, NIR

// reproject_bilinear's affine transform (set by the host): source column u = gt[0] +
// gt[1] (x + 0.5) + gt[2] (y + 0.5) - 0.5, source row v = gt[3] + gt[4] (x + 0.5) +
// gt[5] (y + 0.5) - 0.5 of output pixel (x, y)
__constant__ float c_gt[6];

// mlc_classify's class statistics (set by the host): means (class-major), inverse
// covariances (class, row, column) and ln det(Sigma)
__constant__ float c_mean[MLC_CLASSES * MLC_BANDS];
__constant__ float c_icov[MLC_CLASSES * MLC_BANDS * MLC_BANDS];
__constant__ float c_logdet[MLC_CLASSES];

extern "C" {

// ---- spectral indices --------------------------------------------------------------

__global__ void spectral_indices(const unsigned short *green, const unsigned short *red,
                                 const unsigned short *nir, const unsigned short *swir1, float *ndvi,
                                 float *ndwi, unsigned char *cover, float scale, float offset, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned short g = green[i];
    unsigned short r = red[i];
    unsigned short nr = nir[i];
    unsigned short s = swir1[i];
    if (g == 0 || r == 0 || nr == 0 || s == 0) {
        ndvi[i] = FILL_VALUE;
        ndwi[i] = FILL_VALUE;
        cover[i] = LC_FILL;
        return;
    }
    float G = g * scale + offset;
    float R = r * scale + offset;
    float N = nr * scale + offset;
    float S = s * scale + offset;
    float vi = (N - R) / (N + R);
    float wi = (G - N) / (G + N);
    float mwi = (G - S) / (G + S);
    unsigned char c;
    if (wi > 0.0f || mwi > 0.2f)
        c = LC_WATER;
    else if (vi > 0.5f)
        c = LC_DENSE;
    else if (vi > 0.2f)
        c = LC_SPARSE;
    else
        c = LC_BARE;
    ndvi[i] = vi;
    ndwi[i] = wi;
    cover[i] = c;
}

// ---- cloud mask and buffer ---------------------------------------------------------

__device__ unsigned char cloud_test(float b, float r, float s, float t) {
    if (b < 0.18f || t > 293.0f) return 0;        // too dark or too warm
    float mean = (b + r + s) / 3.0f;
    float white = (fabsf(b - mean) + fabsf(r - mean) + fabsf(s - mean)) / mean;
    return white < 0.7f ? 1 : 0;
}

__global__ void cloud_mask_dilate(const float *blue, const float *red, const float *swir1, const float *bt,
                                  unsigned char *mask, int w, int h) {
    __shared__ unsigned char tile[CM_W][CM_W];
    int x0 = blockIdx.x * CM_TILE - CM_R;
    int y0 = blockIdx.y * CM_TILE - CM_R;
    int tid = threadIdx.y * CM_TILE + threadIdx.x;
    for (int k = tid; k < CM_W * CM_W; k += CM_TILE * CM_TILE) {
        int ty = k / CM_W;
        int tx = k % CM_W;
        int gx = x0 + tx;
        int gy = y0 + ty;
        unsigned char c = 0;
        if (gx >= 0 && gx < w && gy >= 0 && gy < h) {
            int p = gy * w + gx;
            c = cloud_test(blue[p], red[p], swir1[p], bt[p]);
        }
        tile[ty][tx] = c;
    }
    __syncthreads();

    int x = blockIdx.x * CM_TILE + threadIdx.x;
    int y = blockIdx.y * CM_TILE + threadIdx.y;
    if (x >= w || y >= h) return;
    int cx = threadIdx.x + CM_R;
    int cy = threadIdx.y + CM_R;
    unsigned char out = 0;
    if (tile[cy][cx]) {
        out = 2;
    } else {
        for (int dy = -CM_R; dy <= CM_R; dy++)
            for (int dx = -CM_R; dx <= CM_R; dx++)
                if (tile[cy + dy][cx + dx]) out = 1;
    }
    mask[y * w + x] = out;
}

// ---- zonal statistics --------------------------------------------------------------

__global__ void zonal_stats(const float *val, const int *zone, float *zsum, float *zsumsq, unsigned int *zcount,
                            int n) {
    __shared__ float s_sum[ZS_ZONES];
    __shared__ float s_sq[ZS_ZONES];
    __shared__ unsigned int s_cnt[ZS_ZONES];
    for (int z = threadIdx.x; z < ZS_ZONES; z += blockDim.x) {
        s_sum[z] = 0.0f;
        s_sq[z] = 0.0f;
        s_cnt[z] = 0;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int z = zone[i];
        float v = val[i];
        if (z < 0 || v == FILL_VALUE) continue;
        atomicAdd(&s_sum[z], v);
        atomicAdd(&s_sq[z], v * v);
        atomicAdd(&s_cnt[z], 1u);
    }
    __syncthreads();
    for (int z = threadIdx.x; z < ZS_ZONES; z += blockDim.x) {
        if (s_cnt[z] > 0) {
            atomicAdd(&zsum[z], s_sum[z]);
            atomicAdd(&zsumsq[z], s_sq[z]);
            atomicAdd(&zcount[z], s_cnt[z]);
        }
    }
}

// ---- bilinear reprojection ---------------------------------------------------------

__global__ void reproject_bilinear(const float *src, int sw, int sh, float *dst, int dw, int dh, float nodata) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dw || y >= dh) return;
    float px = x + 0.5f;
    float py = y + 0.5f;
    float u = c_gt[0] + c_gt[1] * px + c_gt[2] * py - 0.5f;
    float v = c_gt[3] + c_gt[4] * px + c_gt[5] * py - 0.5f;
    int u0 = (int)floorf(u);
    int v0 = (int)floorf(v);
    if (u0 < 0 || v0 < 0 || u0 + 1 >= sw || v0 + 1 >= sh) {
        dst[y * dw + x] = nodata;
        return;
    }
    float fu = u - u0;
    float fv = v - v0;
    float p00 = src[v0 * sw + u0];
    float p01 = src[v0 * sw + u0 + 1];
    float p10 = src[(v0 + 1) * sw + u0];
    float p11 = src[(v0 + 1) * sw + u0 + 1];
    float top = p00 + fu * (p01 - p00);
    float bot = p10 + fu * (p11 - p10);
    dst[y * dw + x] = top + fv * (bot - top);
}

// ---- maximum-likelihood classification ---------------------------------------------

__global__ void mlc_classify(const float *img, unsigned char *label, float *dist, float reject, int npix) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npix) return;
    float x[MLC_BANDS];
    for (int b = 0; b < MLC_BANDS; b++) x[b] = img[b * npix + i];
    float best = 1e30f;
    float best_m = 0.0f;
    int best_c = 0;
    for (int c = 0; c < MLC_CLASSES; c++) {
        float d[MLC_BANDS];
        for (int b = 0; b < MLC_BANDS; b++) d[b] = x[b] - c_mean[c * MLC_BANDS + b];
        float m = 0.0f;
        for (int p = 0; p < MLC_BANDS; p++) {
            float s = 0.0f;
            for (int q = 0; q < MLC_BANDS; q++) s += c_icov[(c * MLC_BANDS + p) * MLC_BANDS + q] * d[q];
            m += d[p] * s;
        }
        float g = m + c_logdet[c];
        if (g < best) {
            best = g;
            best_m = m;
            best_c = c;
        }
    }
    label[i] = best_m > reject ? MLC_UNCLASSIFIED : best_c;
    dist[i] = best_m;
}

// ---- change-vector analysis --------------------------------------------------------

__global__ void cva_change(const float *t1, const float *t2, const float *gain, const float *bias, float thresh,
                           unsigned char *ctype, int *list, int *count, int npix) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npix) return;
    float d[CVA_BANDS];
    float m2 = 0.0f;
    for (int b = 0; b < CVA_BANDS; b++) {
        float a = t1[b * npix + i];
        float c = t2[b * npix + i] * gain[b] + bias[b];
        d[b] = c - a;
        m2 += d[b] * d[b];
    }
    unsigned char k = 0;
    if (m2 > thresh * thresh) {
        // tasseled-cap brightness and greenness of the change (Landsat TM, visible + NIR)
        float db = 0.3037f * d[0] + 0.2793f * d[1] + 0.4743f * d[2] + 0.5585f * d[3];
        float dg = -0.2848f * d[0] - 0.2435f * d[1] - 0.5436f * d[2] + 0.7243f * d[3];
        float ang = atan2f(dg, db);                                  // -pi .. pi
        int q = (int)((ang + 3.14159265f) * (2.0f / 3.14159265f));   // the quadrant 0 .. 3
        if (q > 3) q = 3;
        k = 1 + q;
        int slot = atomicAdd(count, 1);
        list[slot] = i;
    }
    ctype[i] = k;
}

}
