// probe-unseen162: a cryo-electron microscopy image processing course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - ncc_pick: template-matching particle picking, the normalized cross-correlation of every
//    NCC_T x NCC_T window of a (binned) micrograph with a zero-mean, unit-norm template, a
//    16 x 16 block a tile of window corners staged with its apron in shared memory beside the
//    template, the window's sum and sum of squares kept as it goes (flat windows score 0);
//  - ctf_wiener: CTF correction of particle images' half transforms (FFT row order), a
//    thread a Fourier pixel, 2-D blocks a particle a grid row: the astigmatic defocus at the
//    pixel's azimuth (atan2f, cosf), the phase shift gamma (defocus and spherical aberration
//    terms, a phase plate's shift), the CTF with amplitude contrast (sinf, cosf) under a
//    B-factor envelope (expf), the particle's parameters an array of structs, then a Wiener
//    filter F ctf / (ctf^2 + 1/SNR);
//  - class_average: 2-D class averages, a thread a class-frame pixel of a particle (a grid row
//    a particle): the particle's pixel that its alignment (in-plane angle psi, shift) brings
//    there, interpolated bilinearly, added to its class's sum by atomicAdd (the class's
//    particle count too, once a particle);
//  - sector_average: rotational averages of power spectra (centred, S x S) into radial shells
//    and 8 azimuthal sectors (for astigmatism fits), a block a spectrum: the shell by sqrtf,
//    the sector by atan2f folded to [0, pi) (the spectrum being centrosymmetric), sums and
//    counts by shared-memory atomicAdd, then each (sector, shell)'s mean stored;
//  - backproject: real-space back-projection of projections (N x N) into an N^3 volume, a
//    thread a voxel (2-D blocks, a grid layer a z slice): for each projection its rotation's
//    first two rows and its shift from __constant__ memory, the voxel's place on the
//    projection, a bilinear gather there (projections it falls off skipped), the sum added to
//    the volume;
//  - local_fsc: local resolution, the Fourier shell correlation of two half-maps' transforms
//    of a FSC_B^3 window (half transforms, FFT order) for each window a block: per-thread
//    arrays of double shell sums (the cross term Re(F1 conj F2), |F1|^2, |F2|^2), warp shuffle
//    reductions, the warps' partial sums through shared memory, the FSC curve stored and the
//    resolution where it first falls under the threshold.

#define CE_PI 3.14159265f
#define NCC_T 32              // ncc_pick: the template's side (pixels)
#define NCC_TILE 16           // blockDim.x == blockDim.y: window corners a block a side
#define NCC_W (NCC_TILE + NCC_T - 1)
#define RA_SECT 8             // sector_average: azimuthal sectors over [0, pi)
#define RA_MAXSH 256          // shells at most (S / 2 for 512 x 512 spectra)
#define BP_MAXP 256           // backproject: projections a launch at most
#define FSC_B 24              // local_fsc: the window's side (voxels)
#define FSC_NXH (FSC_B / 2 + 1)
#define FSC_NK (FSC_B * FSC_B * FSC_NXH)   // a window's half transform: 7488 voxels
#define FSC_NSH (FSC_B / 2)   // shells 0 .. FSC_B / 2 - 1 (the corners beyond Nyquist left out)
#define FSC_WARPS 4           // blockDim.x == 32 FSC_WARPS

// ctf_wiener: a particle's CTF parameters (from CTF estimation of its micrograph, refined)
struct CtfParams {
    float defocus_u;          // defocus along the astigmatism angle (A, underfocus positive)
    float defocus_v;          // and across it
    float astig_angle;        // rad
    float phase_shift;        // rad (a phase plate's; 0 without one)
    float bfactor;            // the envelope's B-factor (A^2)
    float scale;
};

// backproject's orientations (set by the host): projection p's rotation matrix (row-major) at
// 9 p, its shift (pixels) at 2 p
__constant__ float c_rot[BP_MAXP * 9];
__constant__ float c_shift[BP_MAXP * 2];

extern "C" {

// score[y * (W - NCC_T + 1) + x]: the NCC of the micrograph's window with top-left corner (x, y)
// (mic W x H, row-major) and the template tpl (NCC_T x NCC_T, zero mean and unit norm)
__global__ void ncc_pick(const float *mic, const float *tpl, float *score, int W, int H) {
    __shared__ float tile[NCC_W][NCC_W];
    __shared__ float t[NCC_T][NCC_T];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x0 = blockIdx.x * NCC_TILE;
    int y0 = blockIdx.y * NCC_TILE;
    for (int yy = ty; yy < NCC_W; yy += NCC_TILE) {
        for (int xx = tx; xx < NCC_W; xx += NCC_TILE) {
            int gx = x0 + xx;
            int gy = y0 + yy;
            tile[yy][xx] = (gx < W && gy < H) ? mic[gy * W + gx] : 0.0f;
        }
    }
    for (int k = ty * NCC_TILE + tx; k < NCC_T * NCC_T; k += NCC_TILE * NCC_TILE) t[k / NCC_T][k % NCC_T] = tpl[k];
    __syncthreads();
    int OW = W - NCC_T + 1;
    int OH = H - NCC_T + 1;
    int x = x0 + tx;
    int y = y0 + ty;
    if (x >= OW || y >= OH) return;
    float s = 0.0f;
    float s2 = 0.0f;
    float st = 0.0f;
    for (int dy = 0; dy < NCC_T; dy++) {
        for (int dx = 0; dx < NCC_T; dx++) {
            float v = tile[ty + dy][tx + dx];
            s += v;
            s2 += v * v;
            st += v * t[dy][dx];
        }
    }
    // the template has zero mean, so sum (v - mean) t = sum v t; its norm is 1
    float var = s2 - s * s / (NCC_T * NCC_T);
    score[y * OW + x] = var > 0.0f ? st / sqrtf(var) : 0.0f;
}

// out = F ctf / (ctf^2 + wiener) for each particle's half transform (box rows of box / 2 + 1,
// particle p's at p box (box / 2 + 1)); apix the pixel size (A), lambda the electron
// wavelength (A), cs the spherical aberration (A), amp the amplitude contrast
__global__ void ctf_wiener(const float2 *F, float2 *out, const CtfParams *par, int box, float apix, float lambda,
                           float cs, float amp, float wiener) {
    int nxh = box / 2 + 1;
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int p = blockIdx.y;
    if (k >= box * nxh) return;
    int kx = k % nxh;
    int ky = k / nxh;
    if (ky >= box / 2) ky -= box;           // FFT order: the second half are negative frequencies
    float sx = kx / (box * apix);           // spatial frequency (1/A)
    float sy = ky / (box * apix);
    float s2 = sx * sx + sy * sy;
    CtfParams c = par[p];
    float ang = atan2f(sy, sx);
    float df = 0.5f * (c.defocus_u + c.defocus_v + (c.defocus_u - c.defocus_v) * cosf(2.0f * (ang - c.astig_angle)));
    float gamma = CE_PI * lambda * df * s2 - 0.5f * CE_PI * cs * lambda * lambda * lambda * s2 * s2 + c.phase_shift;
    float ctf = -(sqrtf(1.0f - amp * amp) * sinf(gamma) + amp * cosf(gamma));
    ctf *= c.scale * expf(-0.25f * c.bfactor * s2);
    size_t i = (size_t)p * box * nxh + k;
    float2 f = F[i];
    float w = ctf / (ctf * ctf + wiener);
    out[i] = make_float2(f.x * w, f.y * w);
}

// particles img (box x box each) added to their classes' sums (box x box each) once aligned:
// class-frame pixel (x, y) takes the particle's pixel R(psi) (x - c, y - c) + c + shift
// (c = box / 2), bilinearly; count[class] += 1 a particle (blockDim.x divides box^2 or not)
__global__ void class_average(const float *img, const int *cls, const float *psi, const float *shx,
                              const float *shy, float *sum, int *count, int box) {
    int p = blockIdx.y;
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= box * box) return;
    int c = cls[p];
    if (k == 0) atomicAdd(&count[c], 1);
    int x = k % box;
    int y = k / box;
    float h = box / 2;
    float cp = cosf(psi[p]);
    float sp = sinf(psi[p]);
    float dx = x - h;
    float dy = y - h;
    float u = cp * dx - sp * dy + h + shx[p];
    float v = sp * dx + cp * dy + h + shy[p];
    int x0 = (int)floorf(u);
    int y0 = (int)floorf(v);
    if (x0 < 0 || y0 < 0 || x0 >= box - 1 || y0 >= box - 1) return;   // off the particle's box
    float fx = u - x0;
    float fy = v - y0;
    const float *im = img + (size_t)p * box * box;
    float val = (1.0f - fx) * (1.0f - fy) * im[y0 * box + x0] + fx * (1.0f - fy) * im[y0 * box + x0 + 1] +
                (1.0f - fx) * fy * im[(y0 + 1) * box + x0] + fx * fy * im[(y0 + 1) * box + x0 + 1];
    atomicAdd(&sum[(size_t)c * box * box + k], val);
}

// prof[b * RA_SECT * nsh + sec * nsh + sh]: the mean of spectrum b's (S x S, origin at (S / 2,
// S / 2)) pixels at radius sh +- 1/2 whose azimuth folded to [0, pi) is within pi / 16 of
// sec pi / 8 (sector 0 straddling 0 and pi); nsh <= RA_MAXSH
__global__ void sector_average(const float *ps, float *prof, int S, int nsh) {
    __shared__ float ssum[RA_SECT * RA_MAXSH];
    __shared__ int scnt[RA_SECT * RA_MAXSH];
    for (int j = threadIdx.x; j < RA_SECT * RA_MAXSH; j += blockDim.x) {
        ssum[j] = 0.0f;
        scnt[j] = 0;
    }
    __syncthreads();
    const float *img = ps + (size_t)blockIdx.x * S * S;
    int h = S / 2;
    for (int i = threadIdx.x; i < S * S; i += blockDim.x) {
        int x = i % S - h;
        int y = i / S - h;
        int sh = (int)(sqrtf((float)(x * x + y * y)) + 0.5f);
        if (sh >= nsh) continue;
        float ang = atan2f((float)y, (float)x);
        if (ang < 0.0f) ang += CE_PI;          // |F|^2 is centrosymmetric
        int sec = (int)(ang * (RA_SECT / CE_PI) + 0.5f);
        if (sec == RA_SECT) sec = 0;
        atomicAdd(&ssum[sec * RA_MAXSH + sh], img[i]);
        atomicAdd(&scnt[sec * RA_MAXSH + sh], 1);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < RA_SECT * nsh; j += blockDim.x) {
        int sec = j / nsh;
        int sh = j % nsh;
        int c = scnt[sec * RA_MAXSH + sh];
        prof[(size_t)blockIdx.x * RA_SECT * nsh + j] = c > 0 ? ssum[sec * RA_MAXSH + sh] / c : 0.0f;
    }
}

// vol (N^3, x fastest) += the back-projection of nproj projections (N x N each): voxel X
// (centred on N / 2) takes projection p's value at the first two rows of c_rot[p] X plus
// N / 2 plus c_shift[p], bilinearly, where that is inside the projection
__global__ void backproject(const float *proj, float *vol, int N, int nproj) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    if (x >= N || y >= N) return;
    float h = N / 2;
    float X = x - h;
    float Y = y - h;
    float Z = z - h;
    float acc = 0.0f;
    for (int p = 0; p < nproj; p++) {
        const float *R = c_rot + 9 * p;
        float u = R[0] * X + R[1] * Y + R[2] * Z + h + c_shift[2 * p];
        float v = R[3] * X + R[4] * Y + R[5] * Z + h + c_shift[2 * p + 1];
        int x0 = (int)floorf(u);
        int y0 = (int)floorf(v);
        if (x0 < 0 || y0 < 0 || x0 >= N - 1 || y0 >= N - 1) continue;
        float fx = u - x0;
        float fy = v - y0;
        const float *im = proj + (size_t)p * N * N + y0 * N + x0;
        acc += (1.0f - fx) * (1.0f - fy) * im[0] + fx * (1.0f - fy) * im[1] + (1.0f - fx) * fy * im[N] +
               fx * fy * im[N + 1];
    }
    vol[((size_t)z * N + y) * N + x] += acc;
}

// for each window w (a block): the FSC of half-maps' half transforms F1, F2 (FSC_NK complex
// each, x fastest over FSC_NXH, FFT order in y and z) in shells 0 .. FSC_NSH - 1 (radius
// rounded), fsc[w * FSC_NSH + sh]; res[w] = FSC_B apix / s for the first shell s >= 1 under thr
// (s = FSC_NSH, Nyquist, if none)
__global__ void local_fsc(const float2 *F1, const float2 *F2, float *fsc, float *res, float apix, float thr) {
    __shared__ double s_num[FSC_WARPS][FSC_NSH];
    __shared__ double s_d1[FSC_WARPS][FSC_NSH];
    __shared__ double s_d2[FSC_WARPS][FSC_NSH];
    __shared__ float s_fsc[FSC_NSH];
    int w = blockIdx.x;
    const float2 *a = F1 + (size_t)w * FSC_NK;
    const float2 *b = F2 + (size_t)w * FSC_NK;
    double num[FSC_NSH];
    double d1[FSC_NSH];
    double d2[FSC_NSH];
    for (int s = 0; s < FSC_NSH; s++) {
        num[s] = 0.0;
        d1[s] = 0.0;
        d2[s] = 0.0;
    }
    for (int k = threadIdx.x; k < FSC_NK; k += blockDim.x) {
        int kx = k % FSC_NXH;
        int ky = (k / FSC_NXH) % FSC_B;
        int kz = k / (FSC_NXH * FSC_B);
        if (ky >= FSC_B / 2) ky -= FSC_B;
        if (kz >= FSC_B / 2) kz -= FSC_B;
        int sh = (int)(sqrtf((float)(kx * kx + ky * ky + kz * kz)) + 0.5f);
        if (sh >= FSC_NSH) continue;
        float2 p = a[k];
        float2 q = b[k];
        num[sh] += (double)p.x * q.x + (double)p.y * q.y;
        d1[sh] += (double)p.x * p.x + (double)p.y * p.y;
        d2[sh] += (double)q.x * q.x + (double)q.y * q.y;
    }
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    for (int s = 0; s < FSC_NSH; s++) {
        for (int o = 16; o > 0; o >>= 1) {
            num[s] += __shfl_down_sync(0xffffffff, num[s], o);
            d1[s] += __shfl_down_sync(0xffffffff, d1[s], o);
            d2[s] += __shfl_down_sync(0xffffffff, d2[s], o);
        }
        if (lane == 0) {
            s_num[warp][s] = num[s];
            s_d1[warp][s] = d1[s];
            s_d2[warp][s] = d2[s];
        }
    }
    __syncthreads();
    if (threadIdx.x < FSC_NSH) {
        int s = threadIdx.x;
        double n = 0.0, e1 = 0.0, e2 = 0.0;
        for (int j = 0; j < FSC_WARPS; j++) {
            n += s_num[j][s];
            e1 += s_d1[j][s];
            e2 += s_d2[j][s];
        }
        float f = (e1 > 0.0 && e2 > 0.0) ? (float)(n / sqrt(e1 * e2)) : 0.0f;
        s_fsc[s] = f;
        fsc[w * FSC_NSH + s] = f;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int s = 1;
        while (s < FSC_NSH && s_fsc[s] >= thr) s++;
        res[w] = FSC_B * apix / s;
    }
}

}
