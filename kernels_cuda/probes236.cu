// probe-unseen234: an X-ray ptychography / coherent diffraction imaging course's CUDA
// assignments, as a student who knows CUDA basics hands them in (exit waves psi_j =
// P(r) O(r + R_j) of the scan positions R_j, their far fields by FFT, the measured
// intensities I_j of a photon-counting detector):
//  - dm_reflect_exit: the difference map's reflector (1 + beta) P O_j - beta psi_j for a
//    batch of scan positions, two pixels a thread: the exit waves and the probe as float4
//    (two complex pixels, coalesced), the object window at the position's offset as two
//    float2 loads (misaligned rows: gathered by a ScanPos struct a frame);
//  - fft_rows_smem<LOGN>: the first pass of the exit waves' 2-D FFT, a 2^LOGN-point
//    complex FFT of a row a block (2^(LOGN-1) threads, a butterfly a thread a stage): the
//    row loaded in bit-reversed order (__brev) into shared memory, LOGN radix-2 stages
//    (#pragma unroll) with twiddles by sincosf and a __syncthreads each, scaled by 1 / N
//    for the inverse;
//  - fourier_modulus_project: the Fourier-magnitude projection, a grid-stride loop over
//    the far-field pixels of a batch of frames (FFT layout): the detector pixel by the
//    fftshift (power-of-two masks), the 16-bit photon counts and an 8-bit bad-pixel mask
//    (module gaps, dead pixels); valid pixels get the measured modulus amp_scale sqrt(I)
//    with their phase kept (sqrtf, a divide; divergent stores), saturated pixels
//    (65535 counts) are left free and counted by __ballot_sync / __popc (an int
//    atomicAdd a warp that has any), the error sum (|Psi| - amp_scale sqrt(I))^2 reduced
//    by __shfl_xor_sync, a shared partial a warp and a double atomicAdd a block;
//  - epie_object_update: the ePIE object update of a mini-batch of positions (parallel
//    ePIE): O(r + R_j) += step conj(P) (psi'_j - psi_j), a thread a probe pixel, a frame
//    a blockIdx.y, the pixels in the probe's dark tail (|P|^2 < cutoff) skipped
//    (divergent), the two float atomicAdd a pixel scattered into the object where the
//    positions' windows overlap (contended across blocks);
//  - dm_probe_update: the difference map's probe update P = sum_j conj(O_j) psi_j /
//    (sum_j |O_j|^2 + reg), a thread a probe pixel looping over the scan: the positions
//    from a __constant__ table of ScanPos structs (one address a warp: broadcast), the
//    object gathered at the offset, the exit wave a frame apart (coalesced), the sums in
//    double, two double divides;
//  - frc_rings: the Fourier ring correlation of two independent reconstructions (the
//    two half data sets) for the resolution estimate, a grid-stride loop over their FFTs
//    (FFT layout): each pixel's ring by sqrtf of its frequency, Re(F1 conj F2), |F1|^2,
//    |F2|^2 added into three shared float histograms of rings (contended shared
//    atomics; the corners past the last ring skipped), each block's nonzero rings
//    flushed by double atomicAdd.

#define PI_F 3.14159265358979f
#define FULL_MASK 0xffffffffu

#define MAX_SCAN 1024           // dm_probe_update: scan positions in the __constant__ table
#define SAT_COUNT 65535         // fourier_modulus_project: a saturated 16-bit counter
#define FM_WARPS 8              // fourier_modulus_project: warps a block (blockDim.x = 256)
#define NRING_MAX 2048          // frc_rings: rings, at most (3 x 8 KB of shared memory)

// the top-left corner of a scan position's probe window on the object, in pixels
struct ScanPos {
    int x, y;
};

// dm_probe_update: the scan (set by the host)
__constant__ ScanPos c_pos[MAX_SCAN];

// a * b, complex
__device__ float2 cmul(float2 a, float2 b) {
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// the radix-2 decimation-in-time stages of a 2^LOGN-point FFT in shared memory (the data
// already in bit-reversed order); thread t does butterfly t of each stage
template <int LOGN>
__device__ void fft_stages(float2 *s, int t, float sign) {
#pragma unroll
    for (int st = 1; st <= LOGN; st++) {
        int half = 1 << (st - 1);
        int pos = t & (half - 1);                       // place in its group
        int i = ((t >> (st - 1)) << st) + pos;          // the butterfly's upper element
        float sn, cs;
        sincosf(sign * PI_F * (float)pos / (float)half, &sn, &cs);
        float2 a = s[i];
        float2 b = cmul(s[i + half], make_float2(cs, sn));
        s[i] = make_float2(a.x + b.x, a.y + b.y);
        s[i + half] = make_float2(a.x - b.x, a.y - b.y);
        __syncthreads();
    }
}

// ---------------------------------------------------------------- fft_rows_smem

// data: rows of 2^LOGN complex values, a block a row, 2^(LOGN-1) threads; in place,
// forward (e^-i) or inverse (e^+i, scaled by 1 / 2^LOGN)
template <int LOGN>
__global__ void fft_rows_smem(float2 *data, int inverse) {
    __shared__ float2 s[1 << LOGN];
    const int N = 1 << LOGN;
    int t = threadIdx.x;
    float2 *row = data + (size_t)blockIdx.x * N;
    // bit-reversed load: element t goes to brev(t)
    s[__brev(t) >> (32 - LOGN)] = row[t];
    s[__brev(t + N / 2) >> (32 - LOGN)] = row[t + N / 2];
    __syncthreads();
    fft_stages<LOGN>(s, t, inverse ? 1.0f : -1.0f);
    float sc = inverse ? 1.0f / (float)N : 1.0f;
    float2 a = s[t], b = s[t + N / 2];
    row[t] = make_float2(a.x * sc, a.y * sc);
    row[t + N / 2] = make_float2(b.x * sc, b.y * sc);
}

extern "C" {

// ---------------------------------------------------------------- dm_reflect_exit

// nframes exit waves psi (n x n complex each, as float4: two pixels) at the positions pos
// on a W-wide object obj; out = (1 + beta) P O_j - beta psi_j. A block of blockDim.x
// pixel pairs of frame blockIdx.y.
__global__ void dm_reflect_exit(const float4 *psi, const float4 *probe, const float2 *obj,
                                const ScanPos *pos, int n, int W, float beta, float4 *out) {
    int j = blockIdx.y;
    int half = n / 2;
    int t = blockIdx.x * blockDim.x + threadIdx.x;     // the pixel pair in the frame
    if (t >= n * half) return;
    int y = t / half;
    int x = 2 * (t - y * half);
    ScanPos p = pos[j];
    float4 P = probe[t];
    float4 s = psi[j * n * half + t];
    const float2 *orow = obj + (p.y + y) * W + p.x + x;
    float2 o0 = orow[0];
    float2 o1 = orow[1];
    float2 a = cmul(make_float2(P.x, P.y), o0);
    float2 b = cmul(make_float2(P.z, P.w), o1);
    float c1 = 1.0f + beta;
    float4 r;
    r.x = c1 * a.x - beta * s.x;
    r.y = c1 * a.y - beta * s.y;
    r.z = c1 * b.x - beta * s.z;
    r.w = c1 * b.y - beta * s.w;
    out[j * n * half + t] = r;
}

// ---------------------------------------------------------------- fourier_modulus_project

// Psi: nframes far fields of n x n (n a power of two, FFT layout: the zero frequency at
// [0]); I: the photon counts in the detector's layout (the zero frequency at [n/2][n/2]);
// mask: the detector's good pixels (1) and gaps / dead pixels (0). Valid unsaturated
// pixels: Psi = amp_scale sqrt(I) Psi / |Psi|; *err += the sum of (|Psi| - amp_scale
// sqrt(I))^2 over them, *nsat += the saturated pixels (good but 65535 counts).
// nframes n n must be a multiple of 32 (whole warps in the loop).
__global__ void fourier_modulus_project(float2 *Psi, const unsigned short *I, const unsigned char *mask,
                                        int n, int nframes, float amp_scale, double *err, int *nsat) {
    __shared__ float s_err[FM_WARPS];
    int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
    int npix = n * n;
    int total = nframes * npix;
    int h = n / 2;
    float e = 0.0f;
    int sat = 0;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < total; k += gridDim.x * blockDim.x) {
        int f = k / npix;
        int r = k - f * npix;
        int y = r / n, x = r - (r / n) * n;
        int d = ((y + h) & (n - 1)) * n + ((x + h) & (n - 1));   // fftshift
        unsigned short c = I[f * npix + d];
        bool good = mask[d] != 0;
        bool full = good && c >= SAT_COUNT;
        unsigned int b = __ballot_sync(FULL_MASK, full);
        if (lane == 0) sat += __popc(b);
        if (good && !full) {
            float2 v = Psi[k];
            float amp = sqrtf(v.x * v.x + v.y * v.y);
            float meas = amp_scale * sqrtf((float)c);
            float diff = amp - meas;
            e += diff * diff;
            float g = meas / fmaxf(amp, 1e-30f);
            Psi[k] = make_float2(v.x * g, v.y * g);
        }
    }
    for (int o = 16; o > 0; o /= 2) e += __shfl_xor_sync(FULL_MASK, e, o);
    if (lane == 0) {
        s_err[wid] = e;
        if (sat > 0) atomicAdd(nsat, sat);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double sum = 0.0;
        for (int w = 0; w < FM_WARPS; w++) sum += (double)s_err[w];
        atomicAdd(err, sum);
    }
}

// ---------------------------------------------------------------- epie_object_update

// a mini-batch of nframes positions pos: the exit waves before (psi_old) and after
// (psi_new) the Fourier projection, n x n each; the probe; obj (W x W complex) +=
// step conj(P) (psi_new - psi_old) at each frame's window, where |P|^2 >= cutoff
__global__ void epie_object_update(const float2 *psi_new, const float2 *psi_old, const float2 *probe,
                                   const ScanPos *pos, int n, int W, float step, float cutoff, float2 *obj) {
    int j = blockIdx.y;
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * n) return;
    float2 P = probe[k];
    float p2 = P.x * P.x + P.y * P.y;
    if (p2 < cutoff) return;                            // the probe's dark tail
    float2 a = psi_new[j * n * n + k];
    float2 b = psi_old[j * n * n + k];
    float dx = a.x - b.x, dy = a.y - b.y;
    // step conj(P) (dx + i dy)
    float ux = step * (P.x * dx + P.y * dy);
    float uy = step * (P.x * dy - P.y * dx);
    ScanPos p = pos[j];
    int y = k / n, x = k % n;
    int o = (p.y + y) * W + p.x + x;
    atomicAdd(&obj[o].x, ux);
    atomicAdd(&obj[o].y, uy);
}

// ---------------------------------------------------------------- dm_probe_update

// the scan's nscan positions in c_pos, its exit waves psi (nscan x n x n), the object
// (W x W); probe = sum_j conj(O_j) psi_j / (sum_j |O_j|^2 + reg) a pixel
__global__ void dm_probe_update(const float2 *psi, const float2 *obj, int n, int W, int nscan, double reg,
                                float2 *probe) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * n) return;
    int y = k / n, x = k % n;
    double nr = 0.0, ni = 0.0, den = 0.0;
    for (int j = 0; j < nscan; j++) {
        ScanPos p = c_pos[j];
        float2 o = obj[(p.y + y) * W + p.x + x];
        float2 s = psi[j * n * n + k];
        nr += (double)o.x * s.x + (double)o.y * s.y;
        ni += (double)o.x * s.y - (double)o.y * s.x;
        den += (double)o.x * o.x + (double)o.y * o.y;
    }
    double d = den + reg;
    probe[k] = make_float2((float)(nr / d), (float)(ni / d));
}

// ---------------------------------------------------------------- frc_rings

// F1, F2: the FFTs (m x m, m a power of two, FFT layout) of two reconstructions; ring
// r < nring (the pixels whose |k| rounds to r) gets num[r] += sum Re(F1 conj F2),
// d1[r] += sum |F1|^2, d2[r] += sum |F2|^2
__global__ void frc_rings(const float2 *F1, const float2 *F2, int m, int nring, double *num, double *d1,
                          double *d2) {
    __shared__ float s_num[NRING_MAX];
    __shared__ float s_d1[NRING_MAX];
    __shared__ float s_d2[NRING_MAX];
    for (int r = threadIdx.x; r < nring; r += blockDim.x) {
        s_num[r] = 0.0f;
        s_d1[r] = 0.0f;
        s_d2[r] = 0.0f;
    }
    __syncthreads();
    int total = m * m;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < total; k += gridDim.x * blockDim.x) {
        int y = k / m, x = k % m;
        int ky = y < m / 2 ? y : y - m;
        int kx = x < m / 2 ? x : x - m;
        float rad = sqrtf((float)(kx * kx + ky * ky));
        int ring = (int)(rad + 0.5f);
        if (ring < nring) {
            float2 a = F1[k], b = F2[k];
            atomicAdd(&s_num[ring], a.x * b.x + a.y * b.y);
            atomicAdd(&s_d1[ring], a.x * a.x + a.y * a.y);
            atomicAdd(&s_d2[ring], b.x * b.x + b.y * b.y);
        }
    }
    __syncthreads();
    for (int r = threadIdx.x; r < nring; r += blockDim.x) {
        if (s_d1[r] != 0.0f || s_d2[r] != 0.0f) {
            atomicAdd(&num[r], (double)s_num[r]);
            atomicAdd(&d1[r], (double)s_d1[r]);
            atomicAdd(&d2[r], (double)s_d2[r]);
        }
    }
}

}
