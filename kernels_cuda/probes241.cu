// probe-unseen239: a color-science / color-management course's CUDA assignments, as a student
// who knows CUDA basics hands them in (CIE colorimetry from spectra, CIEDE2000, an ICC
// device link's CLUT, gamut mapping to sRGB, error diffusion and AM screening of CMYK
// separations):
//  - spectral_to_lab: a 31-band (400..700 nm, 10 nm) hyperspectral image stored band-
//    interleaved-by-pixel (ENVI "bip": 31 12-bit uint16 a pixel, 62 bytes apart) turned
//    into CIELAB, a thread a pixel in a grid-stride loop: the ASTM E308-style weights (D65
//    times the CIE 1931 2-degree observer, normalised, in a __constant__ float4 table:
//    broadcast) summed over the bands (a templated, #pragma unroll-ed loop of 31 strided
//    2-byte loads and 3 FMAs each), XYZ over the white, CIE's f() (cbrtf above
//    (6/29)^3, the linear toe below) and a float4 (L*, a*, b*, Y) store;
//  - ciede2000_stats: the CIEDE2000 colour difference of a proof against its press, a
//    thread a pixel pair (two 12-byte Lab structs: 3 strided float loads each) in a grid-
//    stride loop over whole blocks: the G factor (x^7, sqrtf), two atan2f hue angles, the
//    hue-difference and mean-hue cases (divergent near 180 degrees), four cosf for T, an
//    expf, sinf twice, ~10 divides and a float store; a warp's count over tolerance by
//    __ballot_sync / __popc, the sum and max by __shfl_down_sync, the warps' partials
//    through shared memory (a barrier), and a block's one double atomicAdd (the sum), one
//    atomicMax (the max's bits) and one atomicAdd (the count);
//  - icc_rgb_to_cmyk: an 8-bit sRGB -> press CMYK transform through an ICC device link's
//    shaper curves and CLUT as littleCMS evaluates it, a 32 x 8 block a 32 x 32 tile (4 rows
//    a thread): the three input shaper curves (256 uint16 each) staged in shared memory (a
//    barrier; lookups at data-dependent addresses: bank conflicts), the 33^3 CLUT of ushort4
//    CMYK nodes (287 KB, L2-resident) read at 4 gathered nodes a pixel (8-byte loads),
//    lcms's 16.16 fixed-point tetrahedral interpolation (the tetrahedron by 6-way divergent
//    branches, templated on the grid size), the 16 -> 8-bit reduction by a multiply and
//    shift, uchar4 in and out (coalesced);
//  - gamut_map_lch: a Rec. 2020 scene-linear image (three float planes, coalesced) mapped
//    into sRGB, a thread a pixel: a __constant__ 3x3 matrix to linear Rec. 709; pixels
//    outside [0, 1] (a divergent minority) go to CIELAB (cbrtf), L* clamped, and a 16-step
//    bisection of the chroma at constant L* and hue (each step Lab -> XYZ -> RGB: cubes and
//    a matrix), their hue binned (atan2f) into a shared 36-bin histogram of counts and
//    chroma lost (shared atomicAdd, contended: saturated objects share a hue), then the
//    sRGB transfer curve (powf) and a uchar4 store; the block's nonzero bins flushed by
//    global atomicAdd (barriers around);
//  - fs_halftone_bands: Floyd-Steinberg error diffusion of CMYK separations (8-bit ink
//    coverage), a warp a band of 32 rows on a skewed wavefront (lane i two pixels behind
//    lane i - 1): the errors from the row above through __shfl_up_sync into a 3-deep
//    register window, 7/16 carried along the row, the weights summed in sixteenths and
//    rounded once (integers), a uchar4 load every 4th pixel (a warp's lanes on 32
//    different rows), the dots packed 8 to a byte and stored every 8th pixel (scattered
//    rows); W + 62 steps a warp, the first and last 62 partly idle;
//  - am_screen_cmyk: AM (clustered-dot) screening of a 300 dpi CMYK contone image onto a
//    2400 dpi plate, a thread a device pixel, a warp 32 pixels of a row: the contone
//    bilinearly interpolated (4 gathered uchar4 loads, mostly the same few addresses a
//    warp), then per ink (#pragma unroll over 4) the screen's angle and ruling from a
//    __constant__ struct table (sincosf), the rotated cell coordinates (floorf), the
//    cosine spot function (2 cosf), the threshold for the pixel's rounded tone from a
//    __constant__ dot-area calibration table (per-lane addresses: a few distinct a warp),
//    and __ballot_sync packing the 32 pixels' dots into a word that one lane stores (4
//    planes: 4 scattered 4-byte stores a warp).

#define FULL_MASK 0xffffffffu
#define PI_F 3.14159265358979f
#define DEG_F 57.2957795130823f        // degrees a radian
#define RAD_F 0.0174532925199433f      // radians a degree

#define NBANDS 31                      // spectral_to_lab: 400, 410, ..., 700 nm
#define DE_THREADS 256                 // ciede2000_stats: blockDim.x
#define DE_WARPS (DE_THREADS / 32)
#define CLUT_N 33                      // icc_rgb_to_cmyk: grid points a side
#define ICC_ROWS 4                     // rows a thread (a 32 x 8 block a 32 x 32 tile)
#define GM_ITERS 16                    // gamut_map_lch: bisection steps
#define GM_BINS 36                     // hue bins (10 degrees)
#define FS_BAND 32                     // fs_halftone_bands: rows a warp
#define NINKS 4                        // am_screen_cmyk: C, M, Y, K

// CIELAB
#define LAB_E 0.00885645167903563f     // (6/29)^3
#define LAB_K 7.78703703703704f        // (29/6)^2 / 3
#define LAB_D 0.206896551724138f       // 6/29

// a CIELAB colour
struct Lab {
    float L, a, b;
};

// an AM screen: its angle (degrees) and ruling (lines an inch)
struct Screen {
    float angle, lpi;
};

// spectral_to_lab: (S xbar, S ybar, S zbar) / (4095 sum S ybar) a band, and the white's XYZ
// (set by the host)
__constant__ float4 c_wt[NBANDS];
__constant__ float c_white[3];
// gamut_map_lch: Rec. 2020 -> Rec. 709 (linear), Rec. 709 <-> XYZ, the D65 white (set by the host)
__constant__ float c_m2020_709[9];
__constant__ float c_m709_xyz[9];
__constant__ float c_xyz_709[9];
__constant__ float c_d65[3];
// am_screen_cmyk: the C, M, Y, K screens, and the spot threshold for each 8-bit tone (the
// dot-area calibration: the cell's fraction above it is the tone; set by the host)
__constant__ Screen c_screen[NINKS];
__constant__ float c_thr[256];

// ---------------------------------------------------------------- helpers

// CIE's f(): the cube root above (6/29)^3, the linear toe below
__device__ float lab_f(float t) {
    return t > LAB_E ? cbrtf(t) : t * LAB_K + 4.0f / 29.0f;
}

__device__ float lab_finv(float f) {
    return f > LAB_D ? f * f * f : (f - 4.0f / 29.0f) / LAB_K;
}

// the reflectance weighted by the weights table, band by band
template <int NB>
__device__ float3 integrate_bands(const unsigned short *px) {
    float X = 0.0f, Y = 0.0f, Z = 0.0f;
#pragma unroll
    for (int k = 0; k < NB; k++) {
        float r = (float)px[k];
        float4 w = c_wt[k];
        X += r * w.x;
        Y += r * w.y;
        Z += r * w.z;
    }
    return make_float3(X, Y, Z);
}

__device__ float pow7(float x) {
    float x2 = x * x;
    float x3 = x2 * x;
    return x3 * x3 * x;
}

// a hue angle in degrees, 0 .. 360 (0 for a neutral)
__device__ float hue_deg(float b, float a) {
    if (a == 0.0f && b == 0.0f) return 0.0f;
    float h = atan2f(b, a) * DEG_F;
    return h < 0.0f ? h + 360.0f : h;
}

// CIEDE2000 (Sharma, Wu and Dalal's formulation), kC = kH = 1
__device__ float ciede2000(Lab p, Lab q, float kL) {
    const float p25 = 6103515625.0f;                       // 25^7
    float C1 = sqrtf(p.a * p.a + p.b * p.b);
    float C2 = sqrtf(q.a * q.a + q.b * q.b);
    float cb7 = pow7(0.5f * (C1 + C2));
    float G = 0.5f * (1.0f - sqrtf(cb7 / (cb7 + p25)));
    float a1 = (1.0f + G) * p.a;
    float a2 = (1.0f + G) * q.a;
    float C1p = sqrtf(a1 * a1 + p.b * p.b);
    float C2p = sqrtf(a2 * a2 + q.b * q.b);
    float h1 = hue_deg(p.b, a1);
    float h2 = hue_deg(q.b, a2);
    float dL = q.L - p.L;
    float dC = C2p - C1p;
    float cc = C1p * C2p;
    float dh = 0.0f;
    float hb = h1 + h2;
    if (cc != 0.0f) {
        dh = h2 - h1;
        if (dh > 180.0f) dh -= 360.0f;
        else if (dh < -180.0f) dh += 360.0f;
        if (fabsf(h1 - h2) <= 180.0f) hb *= 0.5f;
        else if (hb < 360.0f) hb = 0.5f * (hb + 360.0f);
        else hb = 0.5f * (hb - 360.0f);
    }
    float dH = 2.0f * sqrtf(cc) * sinf(0.5f * dh * RAD_F);
    float Lb = 0.5f * (p.L + q.L);
    float Cb = 0.5f * (C1p + C2p);
    float T = 1.0f - 0.17f * cosf((hb - 30.0f) * RAD_F) + 0.24f * cosf(2.0f * hb * RAD_F) +
              0.32f * cosf((3.0f * hb + 6.0f) * RAD_F) - 0.20f * cosf((4.0f * hb - 63.0f) * RAD_F);
    float e = (hb - 275.0f) / 25.0f;
    float dtheta = 30.0f * expf(-e * e);
    float c7 = pow7(Cb);
    float RC = 2.0f * sqrtf(c7 / (c7 + p25));
    float l50 = (Lb - 50.0f) * (Lb - 50.0f);
    float SL = 1.0f + 0.015f * l50 / sqrtf(20.0f + l50);
    float SC = 1.0f + 0.045f * Cb;
    float SH = 1.0f + 0.015f * Cb * T;
    float RT = -sinf(2.0f * dtheta * RAD_F) * RC;
    float tL = dL / (kL * SL);
    float tC = dC / SC;
    float tH = dH / SH;
    return sqrtf(tL * tL + tC * tC + tH * tH + RT * tC * tH);
}

// littleCMS's _cmsToFixedDomain: a 0..0xffff input times the domain to 16.16
__device__ int to_fixed_domain(int a) {
    return a + ((a + 0x7fff) / 0xffff);
}

// one output channel of the tetrahedral interpolation (lcms's rounding)
__device__ int tetra_channel(int c0, int n1, int n2, int n3, int fa, int fb, int fc) {
    int rest = (n1 - c0) * fa + (n2 - n1) * fb + (n3 - n2) * fc + 0x8001;
    int v = c0 + ((rest + (rest >> 16)) >> 16);
    return min(max(v, 0), 0xffff);
}

// lcms's 16-bit -> 8-bit: round(v * 255 / 65535)
__device__ unsigned char to8(int v) {
    return (unsigned char)(((unsigned int)v * 65281u + 8388608u) >> 24);
}

// the CLUT (N^3 nodes, r slowest) at 16-bit inputs r, g, b: lcms's TetrahedralInterp16
template <int N>
__device__ ushort4 clut_tetra(const ushort4 *lut, int r, int g, int b) {
    int fx = to_fixed_domain(r * (N - 1));
    int fy = to_fixed_domain(g * (N - 1));
    int fz = to_fixed_domain(b * (N - 1));
    int rx = fx & 0xffff, ry = fy & 0xffff, rz = fz & 0xffff;
    int X0 = (fx >> 16) * N * N, Y0 = (fy >> 16) * N, Z0 = fz >> 16;
    int X1 = X0 + (r == 0xffff ? 0 : N * N);
    int Y1 = Y0 + (g == 0xffff ? 0 : N);
    int Z1 = Z0 + (b == 0xffff ? 0 : 1);
    int i1, i2, fa, fb, fc;
    if (rx >= ry) {
        if (ry >= rz) {
            i1 = X1 + Y0 + Z0; i2 = X1 + Y1 + Z0; fa = rx; fb = ry; fc = rz;
        } else if (rx >= rz) {
            i1 = X1 + Y0 + Z0; i2 = X1 + Y0 + Z1; fa = rx; fb = rz; fc = ry;
        } else {
            i1 = X0 + Y0 + Z1; i2 = X1 + Y0 + Z1; fa = rz; fb = rx; fc = ry;
        }
    } else {
        if (rx >= rz) {
            i1 = X0 + Y1 + Z0; i2 = X1 + Y1 + Z0; fa = ry; fb = rx; fc = rz;
        } else if (ry >= rz) {
            i1 = X0 + Y1 + Z0; i2 = X0 + Y1 + Z1; fa = ry; fb = rz; fc = rx;
        } else {
            i1 = X0 + Y0 + Z1; i2 = X0 + Y1 + Z1; fa = rz; fb = ry; fc = rx;
        }
    }
    ushort4 c0 = lut[X0 + Y0 + Z0];
    ushort4 n1 = lut[i1];
    ushort4 n2 = lut[i2];
    ushort4 n3 = lut[X1 + Y1 + Z1];
    ushort4 o;
    o.x = (unsigned short)tetra_channel(c0.x, n1.x, n2.x, n3.x, fa, fb, fc);
    o.y = (unsigned short)tetra_channel(c0.y, n1.y, n2.y, n3.y, fa, fb, fc);
    o.z = (unsigned short)tetra_channel(c0.z, n1.z, n2.z, n3.z, fa, fb, fc);
    o.w = (unsigned short)tetra_channel(c0.w, n1.w, n2.w, n3.w, fa, fb, fc);
    return o;
}

// a row-major 3x3 matrix times v
__device__ float3 mat3(const float *m, float3 v) {
    return make_float3(m[0] * v.x + m[1] * v.y + m[2] * v.z,
                       m[3] * v.x + m[4] * v.y + m[5] * v.z,
                       m[6] * v.x + m[7] * v.y + m[8] * v.z);
}

__device__ bool in_gamut(float3 c) {
    return c.x >= 0.0f && c.x <= 1.0f && c.y >= 0.0f && c.y <= 1.0f && c.z >= 0.0f && c.z <= 1.0f;
}

__device__ float3 lab_to_709(float L, float a, float b) {
    float fy = (L + 16.0f) / 116.0f;
    float fx = fy + a / 500.0f;
    float fz = fy - b / 200.0f;
    float3 xyz = make_float3(c_d65[0] * lab_finv(fx), c_d65[1] * lab_finv(fy), c_d65[2] * lab_finv(fz));
    return mat3(c_xyz_709, xyz);
}

// the sRGB transfer curve, rounded to 8 bits
__device__ unsigned char srgb8(float c) {
    c = fminf(fmaxf(c, 0.0f), 1.0f);
    float v = c <= 0.0031308f ? 12.92f * c : 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
    return (unsigned char)(v * 255.0f + 0.5f);
}

// the bilinear interpolation of one contone channel (0..255)
__device__ float bilerp(float a, float b, float c, float d, float fu, float fv) {
    float top = a + (b - a) * fu;
    float bot = c + (d - c) * fu;
    return top + (bot - top) * fv;
}

extern "C" {

// ---------------------------------------------------------------- spectral_to_lab

// cube: npix pixels of NBANDS uint16 (12-bit reflectance x 4095, band-interleaved by pixel);
// lab[p] = (L*, a*, b*, Y) under the weights in c_wt (D65, CIE 1931 2 degrees)
__global__ void spectral_to_lab(const unsigned short *cube, int npix, float4 *lab) {
    for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < npix; p += gridDim.x * blockDim.x) {
        float3 xyz = integrate_bands<NBANDS>(cube + (size_t)p * NBANDS);
        float fx = lab_f(xyz.x / c_white[0]);
        float fy = lab_f(xyz.y / c_white[1]);
        float fz = lab_f(xyz.z / c_white[2]);
        lab[p] = make_float4(116.0f * fy - 16.0f, 500.0f * (fx - fy), 200.0f * (fy - fz), xyz.y);
    }
}

// ---------------------------------------------------------------- ciede2000_stats

// de[i] = CIEDE2000(ref[i], rep[i]); *sum += the sum of de, *maxbits = max(de)'s bits (de >= 0:
// unsigned order is float order), *nover += how many exceed tol
__global__ void ciede2000_stats(const Lab *ref, const Lab *rep, int n, float kL, float tol, float *de,
                                double *sum, unsigned int *maxbits, unsigned int *nover) {
    __shared__ float s_sum[DE_WARPS];
    __shared__ float s_max[DE_WARPS];
    __shared__ unsigned int s_cnt[DE_WARPS];
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    float tsum = 0.0f, tmax = 0.0f;
    unsigned int cnt = 0;
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        int i = base + threadIdx.x;
        float d = 0.0f;
        if (i < n) {
            d = ciede2000(ref[i], rep[i], kL);
            de[i] = d;
            tsum += d;
            tmax = fmaxf(tmax, d);
        }
        unsigned int over = __ballot_sync(FULL_MASK, d > tol);
        cnt += __popc(over);
    }
    for (int o = 16; o > 0; o >>= 1) {
        tsum += __shfl_down_sync(FULL_MASK, tsum, o);
        tmax = fmaxf(tmax, __shfl_down_sync(FULL_MASK, tmax, o));
    }
    if (lane == 0) {
        s_sum[warp] = tsum;
        s_max[warp] = tmax;
        s_cnt[warp] = cnt;
    }
    __syncthreads();
    if (warp == 0) {
        tsum = lane < DE_WARPS ? s_sum[lane] : 0.0f;
        tmax = lane < DE_WARPS ? s_max[lane] : 0.0f;
        cnt = lane < DE_WARPS ? s_cnt[lane] : 0u;
        for (int o = DE_WARPS / 2; o > 0; o >>= 1) {
            tsum += __shfl_down_sync(FULL_MASK, tsum, o);
            tmax = fmaxf(tmax, __shfl_down_sync(FULL_MASK, tmax, o));
            cnt += __shfl_down_sync(FULL_MASK, cnt, o);
        }
        if (lane == 0) {
            atomicAdd(sum, (double)tsum);
            atomicMax(maxbits, __float_as_uint(tmax));
            atomicAdd(nover, cnt);
        }
    }
}

// ---------------------------------------------------------------- icc_rgb_to_cmyk

// in: H rows of W RGBX pixels; curves: the 3 input shapers (256 uint16 each, 8-bit in);
// clut: CLUT_N^3 CMYK nodes (16-bit, r slowest); out: H rows of W CMYK pixels (8-bit)
__global__ void icc_rgb_to_cmyk(const uchar4 *in, int W, int H, const unsigned short *curves,
                                const ushort4 *clut, uchar4 *out) {
    __shared__ unsigned short s_curve[3][256];
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    for (int j = t; j < 3 * 256; j += blockDim.x * blockDim.y) s_curve[j / 256][j % 256] = curves[j];
    __syncthreads();
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= W) return;
    for (int k = 0; k < ICC_ROWS; k++) {
        int y = (blockIdx.y * ICC_ROWS + k) * blockDim.y + threadIdx.y;
        if (y >= H) return;
        size_t i = (size_t)y * W + x;
        uchar4 p = in[i];
        int r = s_curve[0][p.x];
        int g = s_curve[1][p.y];
        int b = s_curve[2][p.z];
        ushort4 c = clut_tetra<CLUT_N>(clut, r, g, b);
        out[i] = make_uchar4(to8(c.x), to8(c.y), to8(c.z), to8(c.w));
    }
}

// ---------------------------------------------------------------- gamut_map_lch

// R, G, B: n Rec. 2020 linear pixels; out[i]: sRGB (alpha 255, or 128 where the colour was
// mapped); hue_count / hue_loss[bin]: the mapped pixels and the chroma they lost a hue bin
__global__ void gamut_map_lch(const float *R, const float *G, const float *B, int n, uchar4 *out,
                              unsigned int *hue_count, float *hue_loss) {
    __shared__ unsigned int s_cnt[GM_BINS];
    __shared__ float s_loss[GM_BINS];
    for (int j = threadIdx.x; j < GM_BINS; j += blockDim.x) {
        s_cnt[j] = 0;
        s_loss[j] = 0.0f;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float3 c = mat3(c_m2020_709, make_float3(R[i], G[i], B[i]));
        unsigned char alpha = 255;
        if (!in_gamut(c)) {
            float3 xyz = mat3(c_m709_xyz, c);
            float fx = lab_f(xyz.x / c_d65[0]);
            float fy = lab_f(xyz.y / c_d65[1]);
            float fz = lab_f(xyz.z / c_d65[2]);
            float L = fminf(fmaxf(116.0f * fy - 16.0f, 0.0f), 100.0f);
            float a = 500.0f * (fx - fy);
            float b = 200.0f * (fy - fz);
            float lo = 0.0f, hi = 1.0f;                      // the chroma's scale
            for (int it = 0; it < GM_ITERS; it++) {
                float s = 0.5f * (lo + hi);
                if (in_gamut(lab_to_709(L, s * a, s * b))) lo = s;
                else hi = s;
            }
            c = lab_to_709(L, lo * a, lo * b);
            int bin = min((int)(hue_deg(b, a) * (GM_BINS / 360.0f)), GM_BINS - 1);
            atomicAdd(&s_cnt[bin], 1u);
            atomicAdd(&s_loss[bin], (1.0f - lo) * sqrtf(a * a + b * b));
            alpha = 128;
        }
        out[i] = make_uchar4(srgb8(c.x), srgb8(c.y), srgb8(c.z), alpha);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < GM_BINS; j += blockDim.x) {
        if (s_cnt[j] != 0) {
            atomicAdd(&hue_count[j], s_cnt[j]);
            atomicAdd(&hue_loss[j], s_loss[j]);
        }
    }
}

// ---------------------------------------------------------------- fs_halftone_bands

// in: nplanes planes of H rows of W bytes (ink coverage, 255 solid; W a multiple of 4);
// out: the same planes' rows of (W + 7) / 8 bytes of dots (MSB first); Floyd-Steinberg, each
// band of FS_BAND rows on its own (no error passes from one band to the next)
__global__ void fs_halftone_bands(const unsigned char *in, int W, int H, int nplanes, unsigned char *out) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    int bands = (H + FS_BAND - 1) / FS_BAND;
    if (warp >= nplanes * bands) return;                     // whole warps
    int plane = warp / bands;
    int row = (warp % bands) * FS_BAND + lane;
    bool live = row < H;
    int Wb = (W + 7) / 8;
    const unsigned char *src = in + ((size_t)plane * H + (live ? row : 0)) * W;
    unsigned char *dst = out + ((size_t)plane * H + (live ? row : 0)) * Wb;
    int eL = 0;                        // this row's error at x - 1 (7/16 of it comes here)
    int u1 = 0, u2 = 0, u3 = 0;        // the row above's at x + 1 (3/16), x (5/16), x - 1 (1/16)
    unsigned int bits = 0;
    uchar4 q = make_uchar4(0, 0, 0, 0);
    for (int t = 0; t < W + 2 * (FS_BAND - 1); t++) {
        int x = t - 2 * lane;
        int e = 0;
        if (live && x >= 0 && x < W) {
            int m = x & 3;
            if (m == 0) q = *(const uchar4 *)(src + x);
            int v = m == 0 ? q.x : (m == 1 ? q.y : (m == 2 ? q.z : q.w));
            int s = 7 * eL + u3 + 5 * u2 + 3 * u1;           // sixteenths
            int val = v + ((s + 8) >> 4);
            int dot = val >= 128 ? 1 : 0;
            e = val - 255 * dot;
            bits = (bits << 1) | dot;
            if ((x & 7) == 7 || x == W - 1) {
                dst[x >> 3] = (unsigned char)(bits << (7 - (x & 7)));
                bits = 0;
            }
            eL = e;
        }
        int up = __shfl_up_sync(FULL_MASK, e, 1);
        if (lane == 0) up = 0;                               // the band's first row
        u3 = u2;
        u2 = u1;
        u1 = up;
    }
}

// ---------------------------------------------------------------- am_screen_cmyk

// cont: ch rows of cw CMYK contone pixels (255 solid), scale device pixels a contone pixel;
// planes: NINKS planes of H rows of W / 32 words (bit j of a word: pixel 32 w + j), dpi the
// device resolution; the cosine spot function, a pixel inked where spot > c_thr[its tone]
__global__ void am_screen_cmyk(const uchar4 *cont, int cw, int ch, int scale, int W, int H, float dpi,
                               unsigned int *planes) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;          // blockDim.x == 32: a warp a row's 32
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y >= H) return;                                      // whole warps
    float px = (float)x + 0.5f, py = (float)y + 0.5f;
    float inv = 1.0f / (float)scale;
    float u = fminf(fmaxf(px * inv - 0.5f, 0.0f), (float)(cw - 1));
    float v = fminf(fmaxf(py * inv - 0.5f, 0.0f), (float)(ch - 1));
    int u0 = (int)u, v0 = (int)v;
    int u1 = min(u0 + 1, cw - 1), v1 = min(v0 + 1, ch - 1);
    float fu = u - (float)u0, fv = v - (float)v0;
    uchar4 p00 = cont[v0 * cw + u0];
    uchar4 p01 = cont[v0 * cw + u1];
    uchar4 p10 = cont[v1 * cw + u0];
    uchar4 p11 = cont[v1 * cw + u1];
    float tone[NINKS];
    tone[0] = bilerp(p00.x, p01.x, p10.x, p11.x, fu, fv);
    tone[1] = bilerp(p00.y, p01.y, p10.y, p11.y, fu, fv);
    tone[2] = bilerp(p00.z, p01.z, p10.z, p11.z, fu, fv);
    tone[3] = bilerp(p00.w, p01.w, p10.w, p11.w, fu, fv);
    size_t words = (size_t)H * (W / 32);
    size_t wi = (size_t)y * (W / 32) + (x >> 5);
#pragma unroll
    for (int k = 0; k < NINKS; k++) {
        Screen s = c_screen[k];
        float sn, cs;
        sincosf(s.angle * RAD_F, &sn, &cs);
        float f = s.lpi / dpi;                               // cells a device pixel
        float sx = (px * cs + py * sn) * f;
        float sy = (py * cs - px * sn) * f;
        float a = 2.0f * (sx - floorf(sx)) - 1.0f;
        float b = 2.0f * (sy - floorf(sy)) - 1.0f;
        float spot = 0.5f * (cosf(PI_F * a) + cosf(PI_F * b));
        float thr = c_thr[(int)(tone[k] + 0.5f)];           // per-lane constant addresses
        unsigned int w = __ballot_sync(FULL_MASK, spot > thr);
        if ((threadIdx.x & 31) == k) planes[k * words + wi] = w;
    }
}

}
