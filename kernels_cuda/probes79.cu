// probe-unseen77: a medical-imaging reconstruction course's CUDA assignments (CT and MRI),
// as a student who knows CUDA basics hands them in. Parallel-beam CT geometry throughout:
// the image is N x N pixels of unit size centred on the rotation axis (row 0 at the top),
// a projection has n_det unit-spaced detector bins centred on the axis, angle a is
// theta = a pi / n_angles.
//   - flatfield_log: CT pre-processing, a thread a detector reading: the raw 16-bit count
//     corrected by the detector pixel's dark and flat (air) frames, the transmission
//     clamped against photon starvation, p = -log(T), then a cubic beam-hardening
//     polynomial (water correction) by Horner's rule;
//   - ramlak_filter: the Ram-Lak (ramp) filter of filtered backprojection as a spatial
//     convolution with its band-limited kernel h (h[0] = 1/4, h[odd k] = -1/(pi k)^2,
//     h[even k] = 0, from the host), a block a slice of one projection: the whole
//     projection and the whole kernel staged in shared memory, a thread a filtered bin;
//   - fbp_backproject: pixel-driven backprojection of the filtered sinogram, a thread a
//     pixel, a loop over the angles with cos/sin from __constant__ tables, the detector
//     coordinate linearly interpolated in the sinogram (read from global memory);
//   - forward_project: the forward projector of an iterative reconstruction by ray
//     marching, a thread a ray (angle, bin): the ray's chord through the circular field
//     of view (radius N / 2) sampled every FP_STEP with bilinear interpolation of the
//     image, the number of samples depending on the ray;
//   - grid_kspace_kb: MRI non-uniform gridding of radial k-space samples onto a 2x
//     oversampled Cartesian grid with a Kaiser-Bessel kernel of width KB_W (a tabulated
//     lookup), each sample weighted by its density compensation and spread onto its
//     KB_W x KB_W neighbours by float atomicAdd on the complex grid;
//   - hu_hist_minmax: the statistics of a CT volume (int16 Hounsfield units) for
//     choosing a display window: a histogram of HU_BINS bins of HU_BIN_WIDTH HU
//     privatized in shared memory (shared atomicAdd, the block's non-zero bins added to
//     the global histogram), and the volume's minimum and maximum by warp shuffles and
//     one atomicMin/atomicMax a warp.

#define RL_DET 768            // ramlak_filter: detector bins a projection (a multiple of blockDim.x)
#define BP_MAX_ANGLES 1024    // fbp_backproject: the trig tables' length
#define FP_STEP 1.0f          // forward_project: the sampling step along a ray (pixels)
#define KB_W 4                // grid_kspace_kb: the kernel's width in grid cells
#define KB_LUT 512            // grid_kspace_kb: table entries over distances 0 .. KB_W / 2
#define HU_MIN (-1024)        // hu_hist_minmax: the first bin's lowest HU
#define HU_BIN_WIDTH 4        // hu_hist_minmax: HU a bin
#define HU_BINS 1024          // hu_hist_minmax: bins (HU -1024 .. 3071)
#define HU_VOX_PER_THREAD 16  // hu_hist_minmax: voxels a thread

__constant__ float c_cos[BP_MAX_ANGLES];
__constant__ float c_sin[BP_MAX_ANGLES];

extern "C" {

// raw counts (n readings, view-major, n_det detector pixels a view) to line integrals:
// T = (raw - dark) / (flat - dark) clamped to at least t_min, p = -log(T), and the
// beam-hardening correction p + c2 p^2 + c3 p^3
__global__ void flatfield_log(const unsigned short *raw, const float *dark, const float *flat, float *proj,
                              float t_min, float c2, float c3, int n_det, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int d = i % n_det;
    float dk = dark[d];
    float t = ((float)raw[i] - dk) / (flat[d] - dk);
    if (t < t_min) t = t_min;
    float p = -logf(t);
    proj[i] = p * (1.0f + p * (c2 + p * c3));
}

// Ram-Lak filtering of n_angles projections of RL_DET bins: filt[a][t] = sum_k
// sino[a][k] h[t - k + RL_DET - 1] (h has 2 RL_DET - 1 taps, centre at RL_DET - 1); grid
// (RL_DET / blockDim.x, n_angles)
__global__ void ramlak_filter(const float *sino, const float *h, float *filt, int n_angles) {
    __shared__ float s_p[RL_DET];
    __shared__ float s_h[2 * RL_DET];
    int a = blockIdx.y;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = threadIdx.x; k < RL_DET; k += blockDim.x) s_p[k] = sino[a * RL_DET + k];
    for (int k = threadIdx.x; k < 2 * RL_DET - 1; k += blockDim.x) s_h[k] = h[k];
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < RL_DET; k++) {
        acc += s_p[k] * s_h[t - k + RL_DET - 1];
    }
    filt[a * RL_DET + t] = acc;
}

// pixel-driven backprojection of a filtered sinogram q (n_angles x n_det) into an N x N
// image: pixel (x, y) at (x - (N-1)/2, (N-1)/2 - y) meets the detector at t = x cos + y
// sin + (n_det-1)/2, q linearly interpolated there (bins outside the detector add 0); the
// sum times scale (pi / n_angles)
__global__ void fbp_backproject(const float *q, float *img, float scale, int n_angles, int n_det, int N) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= N || y >= N) return;
    float xc = x - 0.5f * (N - 1);
    float yc = 0.5f * (N - 1) - y;
    float center = 0.5f * (n_det - 1);
    float sum = 0.0f;
    for (int a = 0; a < n_angles; a++) {
        float t = xc * c_cos[a] + yc * c_sin[a] + center;
        int i0 = (int)floorf(t);
        float w = t - i0;
        if (i0 >= 0 && i0 < n_det - 1) {
            const float *row = q + a * n_det;
            sum += (1.0f - w) * row[i0] + w * row[i0 + 1];
        }
    }
    img[y * N + x] = sum * scale;
}

// line integrals of an N x N image along n_angles x n_det parallel rays, a thread a ray:
// ray (a, d) at detector offset s = d - (n_det-1)/2 crosses the field of view (radius N /
// 2) on a chord of half-length L; samples every FP_STEP along it (centred on the chord),
// each a bilinear interpolation of its 2 x 2 pixels (a sample whose 2 x 2 pixels are not
// all in the image skipped: the object is inside the field of view), summed times FP_STEP
__global__ void forward_project(const float *img, float *sino, int N, int n_det, int n_angles) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n_angles * n_det) return;
    int a = r / n_det;
    int d = r % n_det;
    float theta = a * (3.14159265f / n_angles);
    float c = cosf(theta);
    float s = sinf(theta);
    float off = d - 0.5f * (n_det - 1);
    float R = 0.5f * N;
    float sum = 0.0f;
    if (fabsf(off) < R) {
        float L = sqrtf(R * R - off * off);
        int nsteps = (int)(2.0f * L / FP_STEP);
        float u0 = -0.5f * nsteps * FP_STEP + 0.5f * FP_STEP;
        float half = 0.5f * (N - 1);
        for (int k = 0; k < nsteps; k++) {
            float u = u0 + k * FP_STEP;
            float px = off * c - u * s + half;             // image column
            float py = half - (off * s + u * c);           // image row
            int ix = (int)floorf(px);
            int iy = (int)floorf(py);
            if (ix >= 0 && ix < N - 1 && iy >= 0 && iy < N - 1) {
                float fx = px - ix;
                float fy = py - iy;
                const float *p = img + iy * N + ix;
                sum += (1.0f - fy) * ((1.0f - fx) * p[0] + fx * p[1]) + fy * ((1.0f - fx) * p[N] + fx * p[N + 1]);
            }
        }
    }
    sino[r] = sum * FP_STEP;
}

// gridding of n k-space samples (kx, ky in grid cells, centred on 0) with values data
// (complex) and density weights dcf onto a G x G complex grid (origin at G / 2): each
// sample's KB_W x KB_W neighbours from floor(k) - KB_W/2 + 1, the weight kb(|dx|) kb(|dy|)
// from the table lut (KB_LUT entries over 0 .. KB_W / 2, nearest entry)
__global__ void grid_kspace_kb(const float *kx, const float *ky, const float2 *data, const float *dcf,
                               const float *lut, float2 *grid, int G, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float gx = kx[i] + 0.5f * G;
    float gy = ky[i] + 0.5f * G;
    float2 v = data[i];
    float w = dcf[i];
    float vr = v.x * w;
    float vi = v.y * w;
    int x0 = (int)floorf(gx) - KB_W / 2 + 1;
    int y0 = (int)floorf(gy) - KB_W / 2 + 1;
    float lut_scale = (KB_LUT - 1) / (0.5f * KB_W);
    for (int y = y0; y < y0 + KB_W; y++) {
        if (y < 0 || y >= G) continue;
        float wy = lut[(int)(fabsf(y - gy) * lut_scale + 0.5f)];
        for (int x = x0; x < x0 + KB_W; x++) {
            if (x < 0 || x >= G) continue;
            float wx = lut[(int)(fabsf(x - gx) * lut_scale + 0.5f)];
            float k = wx * wy;
            atomicAdd(&grid[y * G + x].x, vr * k);
            atomicAdd(&grid[y * G + x].y, vi * k);
        }
    }
}

// a histogram (HU_BINS bins of HU_BIN_WIDTH from HU_MIN; values outside in the end bins),
// the minimum and the maximum of n HU values; a block HU_VOX_PER_THREAD * blockDim.x
// consecutive voxels, *vmin and *vmax set by the host to INT_MAX and INT_MIN
__global__ void hu_hist_minmax(const short *vol, unsigned int *hist, int *vmin, int *vmax, int n) {
    __shared__ unsigned int s_hist[HU_BINS];
    for (int b = threadIdx.x; b < HU_BINS; b += blockDim.x) s_hist[b] = 0;
    __syncthreads();
    int base = blockIdx.x * blockDim.x * HU_VOX_PER_THREAD + threadIdx.x;
    int lo = 32767;
    int hi = -32768;
    for (int k = 0; k < HU_VOX_PER_THREAD; k++) {
        int i = base + k * blockDim.x;
        if (i < n) {
            int v = vol[i];
            lo = min(lo, v);
            hi = max(hi, v);
            int b = (v - HU_MIN) / HU_BIN_WIDTH;
            if (b < 0) b = 0;
            if (b > HU_BINS - 1) b = HU_BINS - 1;
            atomicAdd(&s_hist[b], 1u);
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        lo = min(lo, __shfl_down_sync(0xffffffff, lo, o));
        hi = max(hi, __shfl_down_sync(0xffffffff, hi, o));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMin(vmin, lo);
        atomicMax(vmax, hi);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < HU_BINS; b += blockDim.x) {
        if (s_hist[b] > 0) atomicAdd(&hist[b], s_hist[b]);
    }
}

}
