// probe-unseen189: an EEG / brain-computer interface signal processing course's CUDA
// assignments, as a student who knows CUDA basics hands them in (scalp EEG in microvolts,
// epochs ("trials") held sample-major: trial r's sample t of channel c at (r * T + t) * C + c):
//  - butter_bandpass: a 4th-order Butterworth band-pass (the mu and beta rhythms, 8-30 Hz) as
//    two biquad sections in transposed direct form II, a thread a (trial, channel) running the
//    recurrence over the trial's samples (a warp's loads and stores coalesced across channels);
//  - csp_covariance: the trace-normalised spatial covariance X X^T / trace(X X^T) of each
//    64-channel trial (the input of common spatial patterns), a 32 x 32 block a trial, the
//    trial streamed through shared memory 32 samples at a time, each thread 4 entries of the
//    64 x 64 matrix, the trace by shared-memory atomicAdd of the diagonal threads;
//  - welch_psd: Welch power spectral densities, a thread a (trial, channel): Hann-tapered
//    windows of WL_N samples at 50% overlap, a direct DFT at the bins of interest (4 .. 40 Hz)
//    with the taper and the twiddle factors in __constant__ tables, |X_k|^2 averaged over the
//    windows;
//  - artifact_scan: artifact screening, a thread a sample of a channel: samples over the
//    channel's amplitude threshold (eye blinks) and jumps from the previous sample over a
//    step threshold (electrode pops) counted a (trial, channel) by atomicAdd, each trial's
//    first bad sample by atomicMin;
//  - plv_pairs: the phase-locking value across trials of every channel pair at every time
//    point from precomputed instantaneous phases (Hilbert transform), a thread a (pair, time
//    point) summing sincosf of the phase differences over the trials, the symmetric matrix
//    written both ways;
//  - rls_eog: ocular artifact removal by adaptive filtering (He et al. 2004), a thread a (trial,
//    channel): a recursive-least-squares filter over 4 taps of each of the two EOG references
//    (vertical and horizontal: blinks and saccades) predicts the eye movements' share of the
//    channel and subtracts it, the 8 x 8 inverse correlation matrix, the weights and the taps in
//    per-thread arrays of doubles updated every sample.

#define CV_CH 64            // csp_covariance: channels (blockDim 32 x 32, 2 x 2 entries a thread)
#define CV_TS 32            // samples a shared-memory tile
#define WL_N 128            // welch_psd: window length (samples; 0.5 s at 256 Hz)
#define WL_HOP 64           // window step (50% overlap)
#define RLS_M 8             // rls_eog: the filter's weights, 2 EOG references x 4 taps (interleaved)

// welch_psd's tables (set by the host): the periodic Hann window and cos, sin of 2 pi j / WL_N
__constant__ float c_hann[WL_N];
__constant__ float c_cos[WL_N];
__constant__ float c_sin[WL_N];

extern "C" {

// x, y: ntrials x T x C; sos: 2 sections of (b0, b1, b2, a0, a1, a2), a0 == 1
__global__ void butter_bandpass(const float *x, float *y, const float *sos, int T, int C, int ntrials) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ntrials * C) return;
    int tr = i / C;
    int c = i % C;
    float b00 = sos[0], b01 = sos[1], b02 = sos[2], a01 = sos[4], a02 = sos[5];
    float b10 = sos[6], b11 = sos[7], b12 = sos[8], a11 = sos[10], a12 = sos[11];
    float z00 = 0.0f, z01 = 0.0f, z10 = 0.0f, z11 = 0.0f;
    const float *xp = x + tr * T * C + c;
    float *yp = y + tr * T * C + c;
    for (int t = 0; t < T; t++) {
        float v = xp[t * C];
        float u = b00 * v + z00;               // section 1
        z00 = b01 * v - a01 * u + z01;
        z01 = b02 * v - a02 * u;
        float w = b10 * u + z10;               // section 2
        z10 = b11 * u - a11 * w + z11;
        z11 = b12 * u - a12 * w;
        yp[t * C] = w;
    }
}

// x: trials x T x CV_CH (band-passed: zero mean); cov: trials x CV_CH x CV_CH; a block a trial
__global__ void csp_covariance(const float *x, float *cov, int T) {
    __shared__ float xs[CV_TS][CV_CH];
    __shared__ float trace;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tid = ty * 32 + tx;
    const float *X = x + blockIdx.x * T * CV_CH;
    if (tid == 0) trace = 0.0f;
    // entries (ty, tx), (ty, tx + 32), (ty + 32, tx), (ty + 32, tx + 32)
    float s00 = 0.0f, s01 = 0.0f, s10 = 0.0f, s11 = 0.0f;
    for (int t0 = 0; t0 < T; t0 += CV_TS) {
        for (int k = tid; k < CV_TS * CV_CH; k += 1024) {
            int t = t0 + k / CV_CH;
            xs[k / CV_CH][k % CV_CH] = t < T ? X[t * CV_CH + k % CV_CH] : 0.0f;
        }
        __syncthreads();
        for (int s = 0; s < CV_TS; s++) {
            float a0 = xs[s][ty];
            float a1 = xs[s][ty + 32];
            float b0 = xs[s][tx];
            float b1 = xs[s][tx + 32];
            s00 += a0 * b0;
            s01 += a0 * b1;
            s10 += a1 * b0;
            s11 += a1 * b1;
        }
        __syncthreads();
    }
    if (tx == ty) atomicAdd(&trace, s00 + s11);
    __syncthreads();
    float inv = 1.0f / trace;
    float *Cm = cov + blockIdx.x * CV_CH * CV_CH;
    Cm[ty * CV_CH + tx] = s00 * inv;
    Cm[ty * CV_CH + tx + 32] = s01 * inv;
    Cm[(ty + 32) * CV_CH + tx] = s10 * inv;
    Cm[(ty + 32) * CV_CH + tx + 32] = s11 * inv;
}

// x: ntrials x T x C; psd: ntrials x nbins x C, bin klo + b at b: scale * mean over the windows
// of |sum_j x[j] hann[j] exp(-2 pi i k j / WL_N)|^2
__global__ void welch_psd(const float *x, float *psd, int T, int C, int klo, int nbins, float scale,
                          int ntrials) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ntrials * C) return;
    int tr = i / C;
    int c = i % C;
    const float *X = x + tr * T * C + c;
    int nw = (T - WL_N) / WL_HOP + 1;
    for (int b = 0; b < nbins; b++) {
        int k = klo + b;
        float acc = 0.0f;
        for (int w = 0; w < nw; w++) {
            const float *seg = X + w * WL_HOP * C;
            float re = 0.0f, im = 0.0f;
            for (int j = 0; j < WL_N; j++) {
                float v = seg[j * C] * c_hann[j];
                int idx = (k * j) % WL_N;
                re += v * c_cos[idx];
                im -= v * c_sin[idx];
            }
            acc += re * re + im * im;
        }
        psd[(tr * nbins + b) * C + c] = acc * scale / nw;
    }
}

// x: trials x T x C, n = trials * T * C samples; amp_count, jump_count: trials x C;
// first_bad: trials (T on entry): the first sample t with |x| > thr[c] or |x[t] - x[t - 1]| > jump_thr
__global__ void artifact_scan(const float *x, const float *thr, int *amp_count, int *jump_count, int *first_bad,
                              float jump_thr, int T, int C, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c = i % C;
    int t = (i / C) % T;
    int tr = i / (C * T);
    float v = x[i];
    int bad = 0;
    if (fabsf(v) > thr[c]) {
        atomicAdd(&amp_count[tr * C + c], 1);
        bad = 1;
    }
    if (t > 0 && fabsf(v - x[i - C]) > jump_thr) {
        atomicAdd(&jump_count[tr * C + c], 1);
        bad = 1;
    }
    if (bad) atomicMin(&first_bad[tr], t);
}

// phase: ntrials x T x C (radians); plv: T x C x C, (i, j) and (j, i) for i < j, the diagonal 1;
// blockDim (32, 8): x the channel j, y the channel i, blockIdx.z the time point
__global__ void plv_pairs(const float *phase, float *plv, int ntrials, int T, int C) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int t = blockIdx.z;
    if (i >= C || j >= C || j < i) return;
    float *P = plv + t * C * C;
    if (i == j) {
        P[i * C + i] = 1.0f;
        return;
    }
    float re = 0.0f, im = 0.0f;
    for (int r = 0; r < ntrials; r++) {
        const float *ph = phase + (r * T + t) * C;
        float s, co;
        sincosf(ph[i] - ph[j], &s, &co);
        re += co;
        im += s;
    }
    float v = sqrtf(re * re + im * im) / ntrials;
    P[i * C + j] = v;
    P[j * C + i] = v;
}

// eeg: ntrials x T x C, contaminated by the eye movements in eog: ntrials x T x 2 (VEOG, HEOG);
// clean: ntrials x T x C, the a-priori errors d(t) - w(t - 1) . u(t) of an RLS filter over
// u(t) = (v(t), h(t), v(t - 1), h(t - 1), ...) with forgetting factor lam and P(0) = I / delta
__global__ void rls_eog(const float *eeg, const float *eog, float *clean, double lam, double delta, int T, int C,
                        int ntrials) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ntrials * C) return;
    int tr = i / C;
    int c = i % C;
    double P[RLS_M][RLS_M];
    double w[RLS_M], u[RLS_M], Pu[RLS_M];
    for (int a = 0; a < RLS_M; a++) {
        for (int b = 0; b < RLS_M; b++) P[a][b] = a == b ? 1.0 / delta : 0.0;
        w[a] = 0.0;
        u[a] = 0.0;
    }
    double il = 1.0 / lam;
    for (int t = 0; t < T; t++) {
        for (int k = RLS_M - 1; k >= 2; k--) u[k] = u[k - 2];     // the taps shift by one sample
        u[0] = eog[(tr * T + t) * 2];
        u[1] = eog[(tr * T + t) * 2 + 1];
        double d = eeg[(tr * T + t) * C + c];
        double e = d;
        double den = lam;
        for (int a = 0; a < RLS_M; a++) {
            double s = 0.0;
            for (int b = 0; b < RLS_M; b++) s += P[a][b] * u[b];
            Pu[a] = s;
            den += u[a] * s;
            e -= w[a] * u[a];
        }
        for (int a = 0; a < RLS_M; a++) {
            double k = Pu[a] / den;                               // the gain
            w[a] += k * e;
            for (int b = 0; b < RLS_M; b++) P[a][b] = (P[a][b] - k * Pu[b]) * il;
        }
        clean[(tr * T + t) * C + c] = (float)e;
    }
}

}
