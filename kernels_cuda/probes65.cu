// probe-unseen63: an audio / signal-processing course's CUDA assignments, as a student who
// knows CUDA basics hands them in: an FIR low-pass filter, a thread an output sample, the
// block's input tile and its history (FIR_TAPS - 1 samples before it) staged in shared
// memory and the taps in __constant__ memory (set by cudaMemcpyToSymbol); an 8th-order
// IIR equalizer, a cascade of four biquads in transposed direct form II, a thread a
// channel looping over its samples in order (channels interleaved, so a step's loads
// coalesce), each channel its own coefficients held in registers; a 256-point complex FFT
// a block (128 threads, one butterfly each a stage): the frame loaded in bit-reversed
// order into shared memory, eight radix-2 stages with their twiddles from sincosf and a
// barrier after each; the short-time energy of Hann-windowed, half-overlapping frames, a
// block a frame, each thread summing four windowed squares and a shared-memory tree
// reduction, thread 0 writing the RMS and its level in dBFS; the zero-crossing rate of
// non-overlapping frames, a warp a frame: each lane compares its sample's sign with the
// one before, a __ballot_sync and __popc count the warp's crossings a step; and a log-mel
// filterbank over power spectra, a thread a (frame, mel band), its sparse triangular
// filter stored as a first bin, a length and an offset into a packed weight array.

#define FIR_TAPS 63           // fir_const_tile: the filter's length
#define FIR_BLOCK 256         // its threads a block (the shared tile's outputs)
#define NSEC 4                // biquad_cascade: second-order sections a channel
#define FFT_N 256             // fft256_shared: points a frame
#define FFT_LOG2N 8
#define RMS_FRAME 1024        // frame_rms_hann: samples a frame
#define RMS_HOP 512           // frames start RMS_HOP samples apart
#define RMS_BLOCK 256         // its threads a block
#define ZCR_FRAME 512         // zcr_ballot: samples a frame
#define MEL_BINS 513          // mel_filterbank: a 1024-point FFT's non-negative bins
#define MEL_BANDS 64          // mel bands

extern "C" {

__constant__ float c_taps[FIR_TAPS];    // set by the host (cudaMemcpyToSymbol)

// y[i] = sum_k c_taps[k] x[i - k], x zero before its start; blockDim.x == FIR_BLOCK
__global__ void fir_const_tile(const float *x, float *y, int n) {
    __shared__ float tile[FIR_BLOCK + FIR_TAPS - 1];
    int tid = threadIdx.x;
    int first = blockIdx.x * blockDim.x;
    for (int k = tid; k < FIR_BLOCK + FIR_TAPS - 1; k += blockDim.x) {
        int j = first - (FIR_TAPS - 1) + k;
        tile[k] = (j >= 0 && j < n) ? x[j] : 0.0f;
    }
    __syncthreads();
    int i = first + tid;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < FIR_TAPS; k++)
        acc += c_taps[k] * tile[tid + FIR_TAPS - 1 - k];
    y[i] = acc;
}

// nch channels of nsamp samples, interleaved (x[t * nch + c]), through channel c's cascade
// of NSEC biquads (sos[(c * NSEC + s) * 5 ...] = b0, b1, b2, a1, a2; a0 = 1), transposed
// direct form II, the state starting at zero
__global__ void biquad_cascade(const float *x, const float *sos, float *y, int nch, int nsamp) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= nch) return;
    float b0[NSEC], b1[NSEC], b2[NSEC], a1[NSEC], a2[NSEC], z1[NSEC], z2[NSEC];
    for (int s = 0; s < NSEC; s++) {
        const float *p = sos + (c * NSEC + s) * 5;
        b0[s] = p[0]; b1[s] = p[1]; b2[s] = p[2]; a1[s] = p[3]; a2[s] = p[4];
        z1[s] = 0.0f; z2[s] = 0.0f;
    }
    for (int t = 0; t < nsamp; t++) {
        float v = x[t * nch + c];
        for (int s = 0; s < NSEC; s++) {
            float out = b0[s] * v + z1[s];
            z1[s] = b1[s] * v - a1[s] * out + z2[s];
            z2[s] = b2[s] * v - a2[s] * out;
            v = out;
        }
        y[t * nch + c] = v;
    }
}

// out[f * 256 + k] = sum_j in[f * 256 + j] e^(-2 pi i j k / 256), block f a frame of 128
// threads: the input in bit-reversed order, then radix-2 decimation-in-time stages
__global__ void fft256_shared(const float2 *in, float2 *out, int nframes) {
    __shared__ float2 s[FFT_N];
    int f = blockIdx.x;
    if (f >= nframes) return;
    int t = threadIdx.x;
    const float2 *src = in + (size_t)f * FFT_N;
    for (int i = t; i < FFT_N; i += blockDim.x)
        s[__brev(i) >> (32 - FFT_LOG2N)] = src[i];
    __syncthreads();
    for (int len = 2; len <= FFT_N; len <<= 1) {
        int half = len >> 1;
        for (int b = t; b < FFT_N / 2; b += blockDim.x) {
            int k = b % half;
            int i = (b / half) * len + k;
            float sn, cs;
            sincosf(-6.2831853f * k / len, &sn, &cs);
            float2 u = s[i], v = s[i + half];
            float2 w;
            w.x = v.x * cs - v.y * sn;
            w.y = v.x * sn + v.y * cs;
            s[i] = make_float2(u.x + w.x, u.y + w.y);
            s[i + half] = make_float2(u.x - w.x, u.y - w.y);
        }
        __syncthreads();
    }
    float2 *dst = out + (size_t)f * FFT_N;
    for (int i = t; i < FFT_N; i += blockDim.x) dst[i] = s[i];
}

// frame f (samples f * RMS_HOP ...) under a periodic Hann window: rms[f] = the square root
// of the mean windowed square, db[f] = 20 log10(rms + 1e-10); blockDim.x == RMS_BLOCK
__global__ void frame_rms_hann(const float *x, int nframes, float *rms, float *db) {
    __shared__ float part[RMS_BLOCK];
    int f = blockIdx.x;
    if (f >= nframes) return;
    int tid = threadIdx.x;
    const float *fr = x + (size_t)f * RMS_HOP;
    float acc = 0.0f;
    for (int k = tid; k < RMS_FRAME; k += blockDim.x) {
        float w = 0.5f - 0.5f * cosf(6.2831853f * k / RMS_FRAME);
        float v = w * fr[k];
        acc += v * v;
    }
    part[tid] = acc;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (tid < st) part[tid] += part[tid + st];
        __syncthreads();
    }
    if (tid == 0) {
        float r = sqrtf(part[0] / RMS_FRAME);
        rms[f] = r;
        db[f] = 20.0f * log10f(r + 1e-10f);
    }
}

// zcr[f] = the share of the ZCR_FRAME - 1 neighbouring pairs of frame f (samples
// f * ZCR_FRAME ...) whose signs differ (a sample >= 0 counting as positive), a warp a frame
__global__ void zcr_ballot(const float *x, int nframes, float *zcr) {
    int f = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (f >= nframes) return;
    const float *fr = x + (size_t)f * ZCR_FRAME;
    int count = 0;
    for (int base = 0; base < ZCR_FRAME; base += 32) {
        int i = base + lane;
        int cross = 0;
        if (i > 0) cross = (fr[i] >= 0.0f) != (fr[i - 1] >= 0.0f);
        unsigned m = __ballot_sync(0xffffffffu, cross);
        count += __popc(m);
    }
    if (lane == 0) zcr[f] = (float)count / (ZCR_FRAME - 1);
}

// logmel[f * MEL_BANDS + m] = log(sum_k w[off[m] + k] P[f * MEL_BINS + start[m] + k] + 1e-10),
// k < len[m]: thread a (frame, band), n = nframes * MEL_BANDS
__global__ void mel_filterbank(const float *P, const int *start, const int *len, const int *off,
                               const float *w, float *logmel, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;
    int f = idx / MEL_BANDS;
    int m = idx % MEL_BANDS;
    const float *spec = P + (size_t)f * MEL_BINS + start[m];
    const float *wm = w + off[m];
    float acc = 0.0f;
    for (int k = 0; k < len[m]; k++) acc += wm[k] * spec[k];
    logmel[idx] = logf(acc + 1e-10f);
}

}
