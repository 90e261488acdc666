// probe-unseen81: a computational-photography course's CUDA assignments, as a student who
// knows CUDA basics hands them in (the camera pipeline from raw to graded output):
//
// - demosaic_mhc: Malvar-He-Cutler demosaicing of a 12-bit RGGB Bayer mosaic (uint16), a
//   thread a pixel on a 2-D grid: the 13 taps of the 5x5 cross-and-diagonal neighbourhood
//   fetched with reflect-101 borders (which keep the colour phase), then a switch on the
//   pixel's CFA phase (R site, G in an R row, G in a B row, B site: the lanes of a warp
//   alternate two phases) picks the filters; RGB floats in [0, 1] stored interleaved.
// - bilateral_smem: a bilateral filter of a grey float image with an 11x11 window
//   (radius BL_R), a 16x16 block staging its tile and a BL_R halo (edge-clamped) in shared
//   memory; the spatial Gaussian's 121 weights in __constant__ memory, the range weight
//   expf(-d^2 / (2 sigma_r^2)) a tap.
// - hdr_merge: Debevec-Malik HDR merge of HDR_K 8-bit RGB exposures (interleaved, one
//   after another in one buffer), a thread a pixel: for each channel the hat-weighted mean
//   of g(Z) - ln dt over the exposures, g (the recovered log inverse response, 256 entries
//   a channel) and ln dt in __constant__ memory (lanes index g by their own pixel value);
//   a pixel black or saturated in every exposure falls back to the middle exposure; the
//   radiance exp(ln E) stored as interleaved floats.
// - loglum_reduce: the first pass of Reinhard's global tone mapping: the log-average
//   luminance's sum of log(delta + L) and the largest luminance over an HDR RGB float
//   image, a thread a pixel, a shared-memory tree per block (both quantities), then one
//   float atomicAdd and one atomicMax on the float's bits (L >= 0) a block.
// - guided_ab: the guided filter's coefficient pass (He et al.): from summed-area tables in
//   double (of I, p, I*I, I*p, built by an earlier pass with a zero first row and column)
//   the box means over the (2r+1)^2 window clipped to the image, var, cov, a = cov / (var
//   + eps) and b = mean_p - a mean_I, stored as floats; a thread a pixel.
// - lut3d_apply: colour grading through a 33^3 3-D LUT (float4 entries, red fastest) with
//   trilinear interpolation, a thread an RGBA8 pixel: eight float4 gathers where the
//   pixel's colour falls, seven lerps, the result rounded back to 8 bits (alpha kept).

#define BL_R 5                                  // bilateral_smem: window radius (11x11 taps)
#define BL_TILE 16                              // bilateral_smem: blockDim == (BL_TILE, BL_TILE)
#define BL_W (BL_TILE + 2 * BL_R)               // the staged tile's side
#define HDR_K 5                                 // hdr_merge: exposures
#define LL_BLOCK 256                            // loglum_reduce: blockDim.x
#define LUT_N 33                                // lut3d_apply: the LUT's points an axis

// the spatial Gaussian of bilateral_smem, (2 BL_R + 1)^2 row-major (set by the host)
__constant__ float c_spatial[(2 * BL_R + 1) * (2 * BL_R + 1)];

// hdr_merge's camera: g(z) = ln of the exposure that gives value z, a channel after
// another, and the exposures' ln dt (set by the host)
__constant__ float c_g[3 * 256];
__constant__ float c_log_dt[HDR_K];

extern "C" {

// the raw value at (x, y) with reflect-101 borders (-1 -> 1, W -> W - 2)
__device__ float raw_at(const unsigned short *raw, int x, int y, int W, int H) {
    if (x < 0) x = -x;
    if (x >= W) x = 2 * W - 2 - x;
    if (y < 0) y = -y;
    if (y >= H) y = 2 * H - 2 - y;
    return (float)raw[y * W + x];
}

// Malvar-He-Cutler demosaicing of a W x H RGGB mosaic (R at even x, even y), the result
// scaled by inv_white and clamped to [0, 1], stored as interleaved RGB floats
__global__ void demosaic_mhc(const unsigned short *raw, float *rgb, float inv_white, int W, int H) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;

    float c = raw_at(raw, x, y, W, H);
    float n = raw_at(raw, x, y - 1, W, H);
    float s = raw_at(raw, x, y + 1, W, H);
    float w = raw_at(raw, x - 1, y, W, H);
    float e = raw_at(raw, x + 1, y, W, H);
    float nn = raw_at(raw, x, y - 2, W, H);
    float ss = raw_at(raw, x, y + 2, W, H);
    float ww = raw_at(raw, x - 2, y, W, H);
    float ee = raw_at(raw, x + 2, y, W, H);
    float nw = raw_at(raw, x - 1, y - 1, W, H);
    float ne = raw_at(raw, x + 1, y - 1, W, H);
    float sw = raw_at(raw, x - 1, y + 1, W, H);
    float se = raw_at(raw, x + 1, y + 1, W, H);

    float cross4 = n + s + w + e;
    float far4 = nn + ss + ww + ee;
    float diag4 = nw + ne + sw + se;
    float r, g, b;
    int phase = ((y & 1) << 1) | (x & 1);
    switch (phase) {
    case 0:            // R site
        r = c;
        g = (4.0f * c + 2.0f * cross4 - far4) * 0.125f;
        b = (6.0f * c + 2.0f * diag4 - 1.5f * far4) * 0.125f;
        break;
    case 1:            // G in an R row: R left and right, B above and below
        g = c;
        r = (5.0f * c + 4.0f * (w + e) - diag4 - (ww + ee) + 0.5f * (nn + ss)) * 0.125f;
        b = (5.0f * c + 4.0f * (n + s) - diag4 - (nn + ss) + 0.5f * (ww + ee)) * 0.125f;
        break;
    case 2:            // G in a B row: B left and right, R above and below
        g = c;
        r = (5.0f * c + 4.0f * (n + s) - diag4 - (nn + ss) + 0.5f * (ww + ee)) * 0.125f;
        b = (5.0f * c + 4.0f * (w + e) - diag4 - (ww + ee) + 0.5f * (nn + ss)) * 0.125f;
        break;
    default:           // B site
        b = c;
        g = (4.0f * c + 2.0f * cross4 - far4) * 0.125f;
        r = (6.0f * c + 2.0f * diag4 - 1.5f * far4) * 0.125f;
        break;
    }
    int o = 3 * (y * W + x);
    rgb[o] = fminf(fmaxf(r * inv_white, 0.0f), 1.0f);
    rgb[o + 1] = fminf(fmaxf(g * inv_white, 0.0f), 1.0f);
    rgb[o + 2] = fminf(fmaxf(b * inv_white, 0.0f), 1.0f);
}

// bilateral filter of a W x H float image: out = sum w v / sum w over the 11x11 window
// (edge-clamped), w = c_spatial[tap] * exp(-(v - centre)^2 * inv_2sr2)
__global__ void bilateral_smem(const float *in, float *out, float inv_2sr2, int W, int H) {
    __shared__ float tile[BL_W][BL_W];
    int bx = blockIdx.x * BL_TILE - BL_R;
    int by = blockIdx.y * BL_TILE - BL_R;
    for (int k = threadIdx.y * BL_TILE + threadIdx.x; k < BL_W * BL_W; k += BL_TILE * BL_TILE) {
        int ty = k / BL_W;
        int tx = k % BL_W;
        int gx = min(max(bx + tx, 0), W - 1);
        int gy = min(max(by + ty, 0), H - 1);
        tile[ty][tx] = in[gy * W + gx];
    }
    __syncthreads();

    int x = blockIdx.x * BL_TILE + threadIdx.x;
    int y = blockIdx.y * BL_TILE + threadIdx.y;
    if (x >= W || y >= H) return;
    float centre = tile[threadIdx.y + BL_R][threadIdx.x + BL_R];
    float num = 0.0f;
    float den = 0.0f;
    for (int dy = 0; dy <= 2 * BL_R; dy++) {
        for (int dx = 0; dx <= 2 * BL_R; dx++) {
            float v = tile[threadIdx.y + dy][threadIdx.x + dx];
            float d = v - centre;
            float wt = c_spatial[dy * (2 * BL_R + 1) + dx] * expf(-d * d * inv_2sr2);
            num += wt * v;
            den += wt;
        }
    }
    out[y * W + x] = num / den;
}

// Debevec-Malik merge of HDR_K exposures of npix RGB pixels (exposure k's bytes at
// ldr[3 (k npix + i) + c]): ln E = sum w(z) (g(z) - ln dt_k) / sum w(z), w the hat
// min(z, 255 - z); radiance[3 i + c] = exp(ln E)
__global__ void hdr_merge(const unsigned char *ldr, float *radiance, int npix) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npix) return;
    for (int c = 0; c < 3; c++) {
        float num = 0.0f;
        float den = 0.0f;
        for (int k = 0; k < HDR_K; k++) {
            int z = ldr[3 * (k * npix + i) + c];
            float w = z <= 127 ? (float)z : (float)(255 - z);
            num += w * (c_g[c * 256 + z] - c_log_dt[k]);
            den += w;
        }
        float lnE;
        if (den > 0.0f) {
            lnE = num / den;
        } else {           // black or saturated everywhere: trust the middle exposure
            int z = ldr[3 * ((HDR_K / 2) * npix + i) + c];
            lnE = c_g[c * 256 + z] - c_log_dt[HDR_K / 2];
        }
        radiance[3 * i + c] = expf(lnE);
    }
}

// Reinhard's first pass over n HDR RGB pixels (interleaved floats): *sum_log += the sum
// of log(delta + L), *max_bits = max(*max_bits, the bits of the largest L), L the Rec. 709
// luminance; LL_BLOCK threads a block, one pair of atomics a block
__global__ void loglum_reduce(const float *rgb, float *sum_log, unsigned int *max_bits, float delta, int n) {
    __shared__ float s_sum[LL_BLOCK];
    __shared__ float s_max[LL_BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * LL_BLOCK + t;
    float lg = 0.0f;
    float lm = 0.0f;
    if (i < n) {
        float L = 0.2126f * rgb[3 * i] + 0.7152f * rgb[3 * i + 1] + 0.0722f * rgb[3 * i + 2];
        lg = logf(delta + L);
        lm = L;
    }
    s_sum[t] = lg;
    s_max[t] = lm;
    __syncthreads();
    for (int s = LL_BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) {
            s_sum[t] += s_sum[t + s];
            s_max[t] = fmaxf(s_max[t], s_max[t + s]);
        }
        __syncthreads();
    }
    if (t == 0) {
        atomicAdd(sum_log, s_sum[0]);
        atomicMax(max_bits, __float_as_uint(s_max[0]));
    }
}

// the sum over the rows y0 .. y1 and columns x0 .. x1 from a summed-area table S of row
// length W1 = W + 1 (S[(y + 1) W1 + x + 1] the sum of the pixels up to (x, y))
__device__ double box_sum(const double *S, int W1, int x0, int y0, int x1, int y1) {
    return S[(y1 + 1) * W1 + x1 + 1] - S[y0 * W1 + x1 + 1] - S[(y1 + 1) * W1 + x0] + S[y0 * W1 + x0];
}

// the guided filter's a and b of a W x H image (guide I, input p) from the SATs of I, p,
// I*I and I*p, the window of radius r clipped to the image
__global__ void guided_ab(const double *sI, const double *sP, const double *sII, const double *sIP, float *a,
                          float *b, int r, float eps, int W, int H) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    int x0 = max(x - r, 0);
    int x1 = min(x + r, W - 1);
    int y0 = max(y - r, 0);
    int y1 = min(y + r, H - 1);
    int W1 = W + 1;
    double cnt = (double)((x1 - x0 + 1) * (y1 - y0 + 1));
    double mI = box_sum(sI, W1, x0, y0, x1, y1) / cnt;
    double mP = box_sum(sP, W1, x0, y0, x1, y1) / cnt;
    double mII = box_sum(sII, W1, x0, y0, x1, y1) / cnt;
    double mIP = box_sum(sIP, W1, x0, y0, x1, y1) / cnt;
    double var = mII - mI * mI;
    double cov = mIP - mI * mP;
    double aa = cov / (var + eps);
    a[y * W + x] = (float)aa;
    b[y * W + x] = (float)(mP - aa * mI);
}

__device__ float4 lerp4(float4 p, float4 q, float t) {
    return make_float4(p.x + t * (q.x - p.x), p.y + t * (q.y - p.y), p.z + t * (q.z - p.z), p.w + t * (q.w - p.w));
}

__device__ unsigned char to_u8(float v) {
    return (unsigned char)(fminf(fmaxf(v, 0.0f), 1.0f) * 255.0f + 0.5f);
}

// n RGBA8 pixels graded through a LUT_N^3 LUT (lut[(b LUT_N + g) LUT_N + r], RGB in
// .x .y .z) by trilinear interpolation; alpha copied
__global__ void lut3d_apply(const uchar4 *in, uchar4 *out, const float4 *lut, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uchar4 p = in[i];
    float fr = p.x / 255.0f * (LUT_N - 1);
    float fg = p.y / 255.0f * (LUT_N - 1);
    float fb = p.z / 255.0f * (LUT_N - 1);
    int ir = min((int)fr, LUT_N - 2);
    int ig = min((int)fg, LUT_N - 2);
    int ib = min((int)fb, LUT_N - 2);
    float tr = fr - ir;
    float tg = fg - ig;
    float tb = fb - ib;
    int base = (ib * LUT_N + ig) * LUT_N + ir;
    float4 c000 = lut[base];
    float4 c100 = lut[base + 1];
    float4 c010 = lut[base + LUT_N];
    float4 c110 = lut[base + LUT_N + 1];
    float4 c001 = lut[base + LUT_N * LUT_N];
    float4 c101 = lut[base + LUT_N * LUT_N + 1];
    float4 c011 = lut[base + LUT_N * LUT_N + LUT_N];
    float4 c111 = lut[base + LUT_N * LUT_N + LUT_N + 1];
    float4 c00 = lerp4(c000, c100, tr);
    float4 c10 = lerp4(c010, c110, tr);
    float4 c01 = lerp4(c001, c101, tr);
    float4 c11 = lerp4(c011, c111, tr);
    float4 c0 = lerp4(c00, c10, tg);
    float4 c1 = lerp4(c01, c11, tg);
    float4 v = lerp4(c0, c1, tb);
    out[i] = make_uchar4(to_u8(v.x), to_u8(v.y), to_u8(v.z), p.w);
}

}
