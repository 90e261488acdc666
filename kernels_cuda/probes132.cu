// probe-unseen130: a radar signal-processing course's CUDA assignments, as a student who
// knows CUDA basics hands them in (one kernel a stage of the receive chain):
//  - matched_filter: pulse compression by a time-domain matched filter, a thread an output
//    range sample of a pulse: the correlation of the pulse's complex echo with the conjugated
//    chirp replica (MF_TAPS taps, read from global memory), its power stored;
//  - doppler_dft: range-Doppler processing, a DFT over slow time (NPULSE pulses, a Hamming
//    window) for every range bin, a thread a (range bin, Doppler bin), the twiddles and the
//    window in a shared-memory table, the power in dB stored with zero Doppler in the middle;
//  - cfar_2d: two-dimensional cell-averaging CFAR on the range-Doppler power map, a thread a
//    cell under test, the block's 16 x 16 cells plus a halo of guard and training cells
//    staged in shared memory (Doppler wraps round, range does not), the training cells'
//    mean times alpha the threshold;
//  - das_beamform: wideband delay-and-sum beamforming of a DS_ELEM-element line array, a
//    thread a (time sample, beam): each element's sample at its fractional delay for the
//    beam's angle by linear interpolation, tapered by a __constant__ window;
//  - clutter_map: the clutter-map detector, a thread a resolution cell: the scan's power
//    against k times the cell's clutter map, detections flagged, the map of the other cells
//    updated by an exponential average (detections censored);
//  - det_histogram: the detection-count histogram of many scans' detection reports, a
//    thread a report: reports above the SNR gate add one count and their SNR into their
//    coarse (range, Doppler) cell by global atomics.

#define MF_BLOCK 256          // matched_filter: threads a block
#define NPULSE 64             // doppler_dft: pulses a CPI (the DFT's length)
#define CF_TX 16              // cfar_2d: cells a block along range
#define CF_TY 16              // cfar_2d: cells a block along Doppler
#define CF_G 2                // cfar_2d: guard cells each side (both dimensions)
#define CF_W 6                // cfar_2d: guard plus training cells each side
#define CF_SW (CF_TX + 2 * CF_W)
#define CF_SH (CF_TY + 2 * CF_W)
#define DS_ELEM 32            // das_beamform: array elements

// das_beamform's element taper (set by the host)
__constant__ float c_taper[DS_ELEM];

// det_histogram's detection report
struct Report {
    int range;        // range gate
    int doppler;      // Doppler bin
    float snr_db;     // the detection's SNR, dB
};

extern "C" {

// matched filter of np pulses of ns complex samples (pulse-major): y[p][r] = |sum_k
// x[p][r + k] conj(h[k])|^2 over the L taps inside the pulse
__global__ void matched_filter(const float2 *x, const float2 *h, float *y, int ns, int L) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int p = blockIdx.y;
    if (r >= ns) return;
    const float2 *xp = x + (size_t)p * ns;
    float re = 0.0f;
    float im = 0.0f;
    for (int k = 0; k < L; k++) {
        if (r + k >= ns) break;
        float2 a = xp[r + k];
        float2 b = h[k];
        re += a.x * b.x + a.y * b.y;          // a * conj(b)
        im += a.y * b.x - a.x * b.y;
    }
    y[(size_t)p * ns + r] = re * re + im * im;
}

// Doppler processing of NPULSE pulses of nr range bins (pulse-major, complex): for each
// range bin r and Doppler bin d, Y = sum_p win[p] x[p][r] exp(-2 pi i p d / NPULSE); the
// power in dB stored at row (d + NPULSE / 2) % NPULSE of rd_db (Doppler-major, nr wide)
__global__ void doppler_dft(const float2 *x, const float *win, float *rd_db, int nr) {
    __shared__ float s_cos[NPULSE];
    __shared__ float s_sin[NPULSE];
    __shared__ float s_w[NPULSE];
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    if (tid < NPULSE) {
        float ang = -6.283185307f * tid / NPULSE;
        s_cos[tid] = cosf(ang);
        s_sin[tid] = sinf(ang);
        s_w[tid] = win[tid];
    }
    __syncthreads();
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int d = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= nr) return;
    float re = 0.0f;
    float im = 0.0f;
    for (int p = 0; p < NPULSE; p++) {
        float2 v = x[p * nr + r];
        int k = (p * d) % NPULSE;
        float c = s_cos[k];
        float s = s_sin[k];
        float w = s_w[p];
        re += w * (v.x * c - v.y * s);
        im += w * (v.x * s + v.y * c);
    }
    int row = (d + NPULSE / 2) % NPULSE;      // fftshift: zero Doppler in the middle
    rd_db[row * nr + r] = 10.0f * log10f(re * re + im * im + 1e-10f);
}

// 2-D cell-averaging CFAR on the nd x nr power map pw (Doppler-major): the training cells
// are the (2 CF_W + 1)^2 window less the (2 CF_G + 1)^2 guard window round the cell, Doppler
// wrapping round, range cut at the map's ends (the count adjusted); thr = alpha * their
// mean, det = cell > thr.  nd a multiple of CF_TY
__global__ void cfar_2d(const float *pw, unsigned char *det, float *thr, float alpha, int nr, int nd) {
    __shared__ float tile[CF_SH][CF_SW];
    int r0 = blockIdx.x * CF_TX - CF_W;
    int d0 = blockIdx.y * CF_TY - CF_W;
    int tid = threadIdx.y * CF_TX + threadIdx.x;
    for (int k = tid; k < CF_SH * CF_SW; k += CF_TX * CF_TY) {
        int ty = k / CF_SW;
        int tx = k % CF_SW;
        int r = r0 + tx;
        int d = (d0 + ty + nd) % nd;
        tile[ty][tx] = (r >= 0 && r < nr) ? pw[d * nr + r] : 0.0f;
    }
    __syncthreads();
    int r = blockIdx.x * CF_TX + threadIdx.x;
    int d = blockIdx.y * CF_TY + threadIdx.y;
    if (r >= nr || d >= nd) return;
    float sum = 0.0f;
    for (int dy = -CF_W; dy <= CF_W; dy++) {
        for (int dx = -CF_W; dx <= CF_W; dx++) {
            if (abs(dy) <= CF_G && abs(dx) <= CF_G) continue;     // guard cells and the CUT
            sum += tile[threadIdx.y + CF_W + dy][threadIdx.x + CF_W + dx];
        }
    }
    int cols = min(r + CF_W, nr - 1) - max(r - CF_W, 0) + 1;
    int gcols = min(r + CF_G, nr - 1) - max(r - CF_G, 0) + 1;
    int cnt = (2 * CF_W + 1) * cols - (2 * CF_G + 1) * gcols;
    float t = alpha * sum / cnt;
    float cut = tile[threadIdx.y + CF_W][threadIdx.x + CF_W];
    thr[d * nr + r] = t;
    det[d * nr + r] = cut > t ? 1 : 0;
}

// delay-and-sum beamforming of DS_ELEM elements of ns real samples (element-major) into
// nbeam beams from -60 to +60 degrees: y[b][t] = sum_m c_taper[m] x[m](t + m spacing
// sin(theta_b)), x between samples linearly interpolated, samples off the record skipped
__global__ void das_beamform(const float *x, float *y, float spacing, int ns, int nbeam) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (t >= ns) return;
    float theta = (-60.0f + 120.0f * b / (nbeam - 1)) * (3.14159265f / 180.0f);
    float st = sinf(theta);
    float acc = 0.0f;
    for (int m = 0; m < DS_ELEM; m++) {
        float s = t + m * spacing * st;
        int i0 = (int)floorf(s);
        float f = s - i0;
        if (i0 >= 0 && i0 + 1 < ns) {
            const float *xm = x + m * ns;
            acc += c_taper[m] * ((1.0f - f) * xm[i0] + f * xm[i0 + 1]);
        }
    }
    y[b * ns + t] = acc;
}

// the clutter-map detector on n cells: the scan's complex sample x[i], its power against
// k_det times the map cmap[i]; a detection sets det[i] and leaves the map, other cells set
// det[i] = 0 and move the map toward the power by alpha
__global__ void clutter_map(const float2 *x, float *cmap, unsigned char *det, float alpha, float k_det, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 v = x[i];
    float p = v.x * v.x + v.y * v.y;
    float m = cmap[i];
    if (p > k_det * m) {
        det[i] = 1;                   // censored: a target must not raise the clutter map
    } else {
        det[i] = 0;
        cmap[i] = m + alpha * (p - m);
    }
}

// the detection-count histogram of n reports: a report at or above min_snr adds one to
// count and its SNR to snr_sum of its cell (range / gates_per_cell, doppler), row-major
// with nd Doppler bins a row
__global__ void det_histogram(const Report *rep, unsigned int *count, float *snr_sum, float min_snr,
                              int gates_per_cell, int nd, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Report r = rep[i];
    if (r.snr_db < min_snr) return;
    int cell = (r.range / gates_per_cell) * nd + r.doppler;
    atomicAdd(&count[cell], 1u);
    atomicAdd(&snr_sum[cell], r.snr_db);
}

}
