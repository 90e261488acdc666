// probe-unseen104: a medical-ultrasound imaging course's CUDA assignments (the receive
// chain of a scanner, from the ADC samples to the displayed frame), as a student who knows
// CUDA basics hands them in:
//  - tgc_convert: per-channel time-gain compensation, a thread a sample: the 16-bit ADC
//    sample minus its channel's DC offset, times the channel's calibration gain and the
//    TGC curve's gain at its depth (a table of one gain a sample), stored as float;
//  - das_beamform: plane-wave (0 degree) delay-and-sum receive beamforming, a thread a
//    pixel (pixels depth-fastest): for each of DAS_CH elements (positions in __constant__
//    memory) inside the expanding aperture z / F#, the two-way delay in samples, a linear
//    interpolation between two RF samples of the channel and a Hann apodization weight;
//  - hilbert_envelope_db: envelope detection and log compression of RF lines, a block 256
//    samples of a line: the samples and a halo staged in shared memory, the quadrature
//    part by a 31-tap windowed Hilbert FIR (taps in __constant__ memory), the envelope
//    sqrt(I^2 + Q^2) in dB against a reference, mapped over the dynamic range to 0..255;
//  - scan_convert: scan conversion of a cine loop of phased-array sector frames (beams x
//    samples, bytes) to Cartesian images, a thread an output pixel (16 x 16 blocks, a
//    frame a blockIdx.z): the pixel's radius and angle (sqrtf, atan2f), black outside the
//    sector, else a bilinear lookup of 4 polar samples;
//  - doppler_kasai: colour Doppler by Kasai's lag-one autocorrelation over an ensemble of
//    DOP_ENS slow-time IQ frames, a thread a pixel: the ensemble mean subtracted (a
//    simple wall filter: two passes over the ensemble), R0 and R1 summed, the velocity
//    vnyq atan2(Im R1, Re R1) / pi where the power passes a threshold, and the power in dB;
//  - bmode_histogram: the grey-level histograms of a cine loop of B-mode frames for
//    automatic gain/contrast, a block-row a frame: a grid-stride loop of shared-memory
//    atomicAdds into 256 bins, then one global atomicAdd a nonzero bin a block.

#define DAS_CH 128            // das_beamform: receive elements
#define HB_TAPS 31            // hilbert_envelope_db: FIR taps (odd)
#define HB_HALF 15            // (HB_TAPS - 1) / 2
#define HB_TILE 256           // samples a block (blockDim.x == HB_TILE)
#define DOP_ENS 16            // doppler_kasai: ensemble length (slow-time samples)
#define HIST_BINS 256         // bmode_histogram: grey levels

#define PI_F 3.14159265f

// element x positions of the linear array, metres (set by the host)
__constant__ float c_elem_x[DAS_CH];

// Hilbert FIR taps h[k], k = 0 .. HB_TAPS - 1 (the centre at HB_HALF; set by the host)
__constant__ float c_hilb[HB_TAPS];

extern "C" {

// time-gain compensation of n samples laid out [frame][channel][sample] (ns samples a
// channel record, nch channels): out = (adc - dc[ch]) * ch_gain[ch] * tgc[s]
__global__ void tgc_convert(const short *adc, float *out, const float *dc, const float *ch_gain, const float *tgc,
                            int ns, int nch, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int s = i % ns;
    int ch = (i / ns) % nch;
    out[i] = ((float)adc[i] - dc[ch]) * ch_gain[ch] * tgc[s];
}

// delay-and-sum of a 0-degree plane-wave acquisition: rf is DAS_CH channels of ns samples
// (row-major), img nx lines of nz depths (depth fastest); pixel (x0 + ix dx, z0 + iz dz);
// sample index (z + |pixel - element|) fs/c - t0, interpolated linearly; elements with
// |x - xe| > z / (2 fnum) skipped, the rest weighted 0.5 + 0.5 cos(pi (x - xe) / half_ap)
__global__ void das_beamform(const float *rf, float *img, float x0, float dx, float z0, float dz, int nx, int nz,
                             int ns, float fs_c, float t0, float fnum) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= nx * nz) return;
    int ix = idx / nz;
    int iz = idx % nz;
    float x = x0 + ix * dx;
    float z = z0 + iz * dz;
    float half_ap = z / (2.0f * fnum);
    float sum = 0.0f;
    for (int ch = 0; ch < DAS_CH; ch++) {
        float d = x - c_elem_x[ch];
        if (fabsf(d) > half_ap) continue;
        float r = sqrtf(d * d + z * z);
        float s = (z + r) * fs_c - t0;
        int i0 = (int)s;
        if (i0 < 0 || i0 >= ns - 1) continue;
        float frac = s - i0;
        const float *line = rf + ch * ns;
        float v = line[i0] + frac * (line[i0 + 1] - line[i0]);
        float w = 0.5f + 0.5f * cosf(PI_F * d / half_ap);
        sum += w * v;
    }
    img[idx] = sum;
}

// envelope detection and log compression of RF lines of ns samples (a line a blockIdx.y,
// HB_TILE samples a block, zeros beyond the line's ends): q = the Hilbert FIR of the
// line, env = sqrt(x^2 + q^2), db = 20 log10(env / ref), the byte round((db + dr) 255 /
// dr) clamped to 0 .. 255
__global__ void hilbert_envelope_db(const float *rf, unsigned char *bmode, int ns, float ref, float dr_db) {
    __shared__ float tile[HB_TILE + 2 * HB_HALF];
    int line = blockIdx.y;
    int s0 = blockIdx.x * HB_TILE;
    const float *x = rf + line * ns;
    for (int k = threadIdx.x; k < HB_TILE + 2 * HB_HALF; k += blockDim.x) {
        int s = s0 + k - HB_HALF;
        tile[k] = (s >= 0 && s < ns) ? x[s] : 0.0f;
    }
    __syncthreads();
    int s = s0 + threadIdx.x;
    if (s >= ns) return;
    float q = 0.0f;
    for (int k = 0; k < HB_TAPS; k++) q += c_hilb[k] * tile[threadIdx.x + HB_TAPS - 1 - k];
    float i = tile[threadIdx.x + HB_HALF];
    float env = sqrtf(i * i + q * q);
    float db = 20.0f * log10f(fmaxf(env, 1e-6f) / ref);
    float v = (db + dr_db) * (255.0f / dr_db);
    v = fminf(fmaxf(v, 0.0f), 255.0f);
    bmode[line * ns + s] = (unsigned char)(v + 0.5f);
}

// scan conversion of frames of nbeam beams x nsamp samples (bytes; beam b at angle th0 +
// b dth from the z axis, sample s at radius r0 + s dr) to side x side images (row pz,
// column px at x = xmin + px dxp, z = zmin + pz dzp); a frame a blockIdx.z
__global__ void scan_convert(const unsigned char *polar, unsigned char *img, int nbeam, int nsamp, int side,
                             float th0, float dth, float r0, float dr, float xmin, float dxp, float zmin,
                             float dzp) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int pz = blockIdx.y * blockDim.y + threadIdx.y;
    int f = blockIdx.z;
    if (px >= side || pz >= side) return;
    float x = xmin + px * dxp;
    float z = zmin + pz * dzp;
    float r = sqrtf(x * x + z * z);
    float th = atan2f(x, z);
    float fb = (th - th0) / dth;
    float fs = (r - r0) / dr;
    unsigned char out = 0;
    if (fb >= 0.0f && fb < nbeam - 1 && fs >= 0.0f && fs < nsamp - 1) {
        int b = (int)fb;
        int s = (int)fs;
        float wb = fb - b;
        float ws = fs - s;
        const unsigned char *p = polar + (f * nbeam + b) * nsamp + s;
        float v00 = p[0];
        float v01 = p[1];
        float v10 = p[nsamp];
        float v11 = p[nsamp + 1];
        float v = (1.0f - wb) * ((1.0f - ws) * v00 + ws * v01) + wb * ((1.0f - ws) * v10 + ws * v11);
        out = (unsigned char)(v + 0.5f);
    }
    img[(f * side + pz) * side + px] = out;
}

// Kasai colour Doppler over npix pixels, iq laid out [DOP_ENS][npix]: the ensemble mean
// removed, R0 = sum |x_k|^2, R1 = sum conj(x_{k-1}) x_k; vel = vnyq atan2(Im R1, Re R1) /
// pi where R0 / DOP_ENS > thresh (else 0), power = 10 log10(R0 / DOP_ENS + 1e-12)
__global__ void doppler_kasai(const float2 *iq, float *vel, float *power, int npix, float vnyq, float thresh) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npix) return;
    float mr = 0.0f;
    float mi = 0.0f;
    for (int k = 0; k < DOP_ENS; k++) {
        float2 s = iq[k * npix + p];
        mr += s.x;
        mi += s.y;
    }
    mr /= DOP_ENS;
    mi /= DOP_ENS;
    float r0 = 0.0f;
    float r1r = 0.0f;
    float r1i = 0.0f;
    float pr = 0.0f;
    float pim = 0.0f;
    for (int k = 0; k < DOP_ENS; k++) {
        float2 s = iq[k * npix + p];
        float xr = s.x - mr;
        float xi = s.y - mi;
        r0 += xr * xr + xi * xi;
        if (k > 0) {
            r1r += pr * xr + pim * xi;
            r1i += pr * xi - pim * xr;
        }
        pr = xr;
        pim = xi;
    }
    float pw = r0 / DOP_ENS;
    float v = 0.0f;
    if (pw > thresh) v = vnyq * atan2f(r1i, r1r) / PI_F;
    vel[p] = v;
    power[p] = 10.0f * log10f(pw + 1e-12f);
}

// grey-level histograms of frames of frame_pixels bytes, a frame a blockIdx.y: shared
// counts by atomicAdd over a grid-stride loop, then added to hist[frame][HIST_BINS]
__global__ void bmode_histogram(const unsigned char *img, unsigned int *hist, int frame_pixels) {
    __shared__ unsigned int sh[HIST_BINS];
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) sh[b] = 0;
    __syncthreads();
    int f = blockIdx.y;
    const unsigned char *p = img + f * frame_pixels;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < frame_pixels; i += blockDim.x * gridDim.x)
        atomicAdd(&sh[p[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x)
        if (sh[b] > 0) atomicAdd(&hist[f * HIST_BINS + b], sh[b]);
}

}
