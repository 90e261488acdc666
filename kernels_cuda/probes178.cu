// probe-unseen176: a music information retrieval / audio analysis course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - chroma_fold: chroma features from an STFT magnitude spectrogram, a block a frame: each
//    bin's nearest MIDI pitch by log2f, its energy weighted by a Gaussian over octaves
//    (centred on C5, expf), folded into the frame's 12 pitch classes by shared-memory
//    atomicAdd, then the 12 divided by the largest (0 for a silent frame);
//  - superflux: a spectral-flux onset detection function with vibrato suppression
//    (SuperFlux, Boeck & Widmer 2013), a warp a frame: the log-compressed magnitudes
//    (log1pf) of the frame minus those of the previous frame max-filtered over 3 bins,
//    half-wave rectified and summed over the bins, the lanes' sums by __shfl_down_sync;
//  - yin_pitch: the YIN pitch detector (de Cheveigne & Kawahara 2002), a block a frame and a
//    thread a lag: the frame and its lag span staged in shared memory, each thread's
//    difference function d(tau) summed over the 1024-sample window, then thread 0 turns it
//    into the cumulative mean normalised difference, picks the first dip under the
//    threshold (walked down to its local minimum) and refines it by parabolic
//    interpolation into f0 (0 if unvoiced) and the dip's aperiodicity;
//  - tempo_acf: tempo estimation by the autocorrelation of onset-strength envelopes, a block
//    a track and a thread a lag: the lag's products summed in double, the mean weighted by a
//    log-normal tempo prior held in __constant__ memory, the best lag found by a
//    shared-memory tree arg-max;
//  - subseq_dtw: subsequence dynamic time warping (free start and end in the reference) of
//    a chroma query against a reference recording, a block a pair and a thread a query
//    frame holding its 12-dim chroma vector in a per-thread array: the reference staged in
//    shared memory, the cost matrix swept by anti-diagonal wavefronts (three diagonals in
//    shared memory, a __syncthreads a diagonal), the query's last row's minimum kept as it
//    goes;
//  - landmark_hash: audio fingerprinting (Wang 2003, Shazam-style landmarks), a thread an
//    anchor spectral peak (Peak structs sorted by track, frame, bin): pairs with the first
//    LM_FANOUT later peaks of its target zone, each pair's 21-bit hash (anchor bin, bin
//    difference, time difference) stored and counted in a 2^20-bucket histogram by a global
//    atomicAdd at a multiplicative hash of it.

#define CH_CENTER 72.0f       // chroma_fold: the octave weighting's centre (MIDI C5, 523 Hz)
#define CH_WIDTH 24.0f        // and its standard deviation (semitones)
#define YIN_W 1024            // yin_pitch: the integration window (samples)
#define YIN_TAU 512           // lags 0 .. YIN_TAU - 1, a thread each (blockDim.x)
#define YIN_TAU_MIN 11        // the shortest lag searched
#define TP_LAGS 512           // tempo_acf: lags 0 .. TP_LAGS - 1, a thread each (blockDim.x)
#define DTW_Q 256             // subseq_dtw: the longest query (blockDim.x, a thread a query frame)
#define DTW_R 384             // the longest reference
#define DTW_INF 1e30f
#define LM_DT_MAX 63          // landmark_hash: the target zone: 1 .. LM_DT_MAX frames after the anchor
#define LM_DF_MAX 31          // and within LM_DF_MAX bins of it
#define LM_FANOUT 8           // at most this many pairs an anchor
#define LM_TABLE_BITS 20      // the hash histogram's buckets: 2^LM_TABLE_BITS

// tempo_acf's prior (set by the host): the weight of each lag, 0 for lags out of the tempo range
__constant__ float c_prior[TP_LAGS];

// a spectral peak of landmark_hash
struct Peak {
    int track;
    int frame;
    int bin;
};

extern "C" {

// chroma of the frames of an nbins-bin magnitude spectrogram (frame-major, bin k at k * bin_hz Hz),
// a block a frame: chroma[t * 12 + c] the octave-weighted energy of the bins whose nearest MIDI pitch
// has pitch class c (0 = C), divided by the frame's largest class
__global__ void chroma_fold(const float *mag, float *chroma, int nbins, float bin_hz) {
    __shared__ float acc[12];
    int t = blockIdx.x;
    if (threadIdx.x < 12) acc[threadIdx.x] = 0.0f;
    __syncthreads();
    const float *m = mag + (size_t)t * nbins;
    for (int k = 1 + threadIdx.x; k < nbins; k += blockDim.x) {      // bin 0 (DC) has no pitch
        float midi = 69.0f + 12.0f * log2f(k * bin_hz / 440.0f);
        int pc = (int)(midi + 0.5f) % 12;
        float z = (midi - CH_CENTER) / CH_WIDTH;
        float e = m[k] * m[k] * expf(-0.5f * z * z);
        atomicAdd(&acc[pc], e);
    }
    __syncthreads();
    if (threadIdx.x < 12) {
        float mx = 0.0f;
        for (int c = 0; c < 12; c++) mx = fmaxf(mx, acc[c]);
        chroma[t * 12 + threadIdx.x] = mx > 0.0f ? acc[threadIdx.x] / mx : 0.0f;
    }
}

// the SuperFlux onset strength of each of nframes frames of an nbins-bin magnitude spectrogram
// (frame-major), a warp a frame (blockDim.x a multiple of 32): the sum over bins of
// max(0, log(1 + gamma X[t][k]) - log(1 + gamma max(X[t-1][k-1 .. k+1]))), 0 for frame 0
__global__ void superflux(const float *mag, float *flux, int nbins, float gamma, int nframes) {
    int t = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (t >= nframes) return;                 // whole warps
    float s = 0.0f;
    if (t > 0) {
        const float *cur = mag + (size_t)t * nbins;
        const float *prev = cur - nbins;
        for (int k = lane; k < nbins; k += 32) {
            float p = prev[k];                // the previous frame, max-filtered over 3 bins
            if (k > 0) p = fmaxf(p, prev[k - 1]);
            if (k + 1 < nbins) p = fmaxf(p, prev[k + 1]);
            float d = log1pf(gamma * cur[k]) - log1pf(gamma * p);
            if (d > 0.0f) s += d;
        }
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
    if (lane == 0) flux[t] = s;
}

// YIN on the frames of x (frame t the samples from t * hop, YIN_W + YIN_TAU of them), a block a frame
// and a thread a lag: f0[t] in Hz (0 if no dip of the normalised difference falls under thr) and
// aper[t] the normalised difference at the chosen lag (the smallest one if unvoiced)
__global__ void yin_pitch(const float *x, float *f0, float *aper, int hop, float sr, float thr) {
    __shared__ float s[YIN_W + YIN_TAU];
    __shared__ float d[YIN_TAU];
    int t = blockIdx.x;
    int tau = threadIdx.x;
    const float *xf = x + (size_t)t * hop;
    for (int j = tau; j < YIN_W + YIN_TAU; j += YIN_TAU) s[j] = xf[j];
    __syncthreads();
    float acc = 0.0f;
    for (int j = 0; j < YIN_W; j++) {
        float diff = s[j] - s[j + tau];
        acc += diff * diff;
    }
    d[tau] = acc;
    __syncthreads();
    if (tau == 0) {
        // the cumulative mean normalised difference, in place
        float run = 0.0f;
        d[0] = 1.0f;
        for (int k = 1; k < YIN_TAU; k++) {
            run += d[k];
            d[k] = run > 0.0f ? d[k] * k / run : 1.0f;
        }
        // the absolute threshold: the first lag under it, followed down to its local minimum
        int best = -1;
        for (int k = YIN_TAU_MIN; k < YIN_TAU - 1; k++) {
            if (d[k] < thr) {
                while (k + 2 < YIN_TAU && d[k + 1] < d[k]) k++;
                best = k;
                break;
            }
        }
        if (best < 0) {
            float mn = d[YIN_TAU_MIN];
            for (int k = YIN_TAU_MIN + 1; k < YIN_TAU; k++) mn = fminf(mn, d[k]);
            f0[t] = 0.0f;
            aper[t] = mn;
        } else {
            float a = d[best - 1];
            float b = d[best];
            float c = d[best + 1];
            float den = a - 2.0f * b + c;
            float shift = den > 0.0f ? 0.5f * (a - c) / den : 0.0f;
            f0[t] = sr / (best + shift);
            aper[t] = b;
        }
    }
}

// the autocorrelation of each track's onset envelope (len frames at env + track * len), a block a
// track and a thread a lag: acf[track * TP_LAGS + lag] the mean product at the lag, best[track] the
// lag of the largest acf * c_prior (the smallest such lag on a tie)
__global__ void tempo_acf(const float *env, float *acf, int *best, int len) {
    __shared__ float sv[TP_LAGS];
    __shared__ int si[TP_LAGS];
    int tr = blockIdx.x;
    int lag = threadIdx.x;
    const float *e = env + (size_t)tr * len;
    double s = 0.0;                           // 2500-term sums: in double
    for (int t = 0; t + lag < len; t++) s += e[t] * e[t + lag];
    float a = (float)(s / (len - lag));
    acf[(size_t)tr * TP_LAGS + lag] = a;
    sv[lag] = a * c_prior[lag];
    si[lag] = lag;
    __syncthreads();
    for (int h = TP_LAGS / 2; h > 0; h >>= 1) {
        if (lag < h) {
            float v = sv[lag + h];
            int i = si[lag + h];
            if (v > sv[lag] || (v == sv[lag] && i < si[lag])) {
                sv[lag] = v;
                si[lag] = i;
            }
        }
        __syncthreads();
    }
    if (lag == 0) best[tr] = si[0];
}

// subsequence DTW of pair p's query (qlen[p] <= DTW_Q frames of unit-norm 12-dim chroma at q + qoff[p] * 12)
// against its reference (rlen[p] <= DTW_R frames at r + roff[p] * 12), local cost 1 - <q_i, r_j>, a block
// a pair (blockDim.x DTW_Q): dist[p] = min_j D[qlen - 1][j], end[p] the first j attaining it
__global__ void subseq_dtw(const float *q, const float *r, const int *qoff, const int *qlen, const int *roff,
                           const int *rlen, float *dist, int *end) {
    __shared__ float ref[DTW_R * 12];
    __shared__ float diag[3][DTW_Q];
    int p = blockIdx.x;
    int i = threadIdx.x;
    int M = qlen[p];
    int N = rlen[p];
    const float *rp = r + (size_t)roff[p] * 12;
    for (int k = i; k < N * 12; k += blockDim.x) ref[k] = rp[k];
    float qv[12];
    if (i < M)
        for (int k = 0; k < 12; k++) qv[k] = q[((size_t)qoff[p] + i) * 12 + k];
    __syncthreads();
    float best = DTW_INF;
    int bestj = -1;
    for (int d = 0; d < M + N - 1; d++) {
        int j = d - i;
        float v = DTW_INF;
        if (i < M && j >= 0 && j < N) {
            float dot = 0.0f;
            for (int k = 0; k < 12; k++) dot += qv[k] * ref[j * 12 + k];
            float c = 1.0f - dot;
            if (i == 0) {
                v = c;                                   // a free start anywhere in the reference
            } else {
                float m = diag[(d + 2) % 3][i - 1];      // D[i - 1][j], diagonal d - 1
                if (j > 0) m = fminf(m, fminf(diag[(d + 1) % 3][i - 1], diag[(d + 2) % 3][i]));
                v = c + m;
            }
            if (i == M - 1 && v < best) {                // a free end
                best = v;
                bestj = j;
            }
        }
        diag[d % 3][i] = v;
        __syncthreads();
    }
    if (i == M - 1) {
        dist[p] = best;
        end[p] = bestj;
    }
}

// the landmarks of n spectral peaks pk (sorted by track, frame, bin), a thread an anchor: the anchor
// pairs with the first LM_FANOUT later peaks of its track 1 .. LM_DT_MAX frames on and within LM_DF_MAX
// bins, hash[i * LM_FANOUT + c] = bin << 12 | (dbin + LM_DF_MAX) << 6 | dt for its c-th pair, npairs[i]
// its pairs, and each hash counted in hist[(hash * 2654435761) >> (32 - LM_TABLE_BITS)]
__global__ void landmark_hash(const Peak *pk, unsigned int *hash, int *npairs, int *hist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Peak a = pk[i];
    int c = 0;
    for (int j = i + 1; j < n && c < LM_FANOUT; j++) {
        Peak b = pk[j];
        int dt = b.frame - a.frame;
        if (b.track != a.track || dt > LM_DT_MAX) break;
        int df = b.bin - a.bin;
        if (dt < 1 || df < -LM_DF_MAX || df > LM_DF_MAX) continue;
        unsigned int h = ((unsigned int)a.bin << 12) | ((unsigned int)(df + LM_DF_MAX) << 6) | (unsigned int)dt;
        hash[i * LM_FANOUT + c] = h;
        atomicAdd(&hist[(h * 2654435761u) >> (32 - LM_TABLE_BITS)], 1);
        c++;
    }
    npairs[i] = c;
}

}
