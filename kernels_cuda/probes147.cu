// probe-unseen145: a speech-processing course's CUDA assignments, as a student who knows
// CUDA basics hands them in (16 kHz audio throughout):
//  - preemph_frames: pre-emphasis y[s] = x[s] - alpha x[s-1] and Hamming-windowed framing
//    (25 ms frames of FRAME_LEN samples every HOP samples), a thread an output sample, the
//    window computed with cosf;
//  - logmel_smem: a 40-band triangular mel filterbank on 257-bin power spectra (512-point
//    FFT) and the log, FPB frames a block staged in shared memory, a thread a (frame, band),
//    the triangles' bin edges in __constant__ memory (bands widen with frequency);
//  - viterbi_hmm: Viterbi decoding of a VIT_S-state HMM over VIT_T frames of emission
//    log-likelihoods, a block an utterance and a thread a state, the log transition matrix
//    and the scores in shared memory, the backpointers stored as bytes, one thread
//    backtracking the best path;
//  - dtw_pairs: dynamic time warping between pitch contours of DTW_LEN frames, a thread a
//    (query, template) pair, two rows of the cost matrix in a per-thread array;
//  - vad_energy_zcr: frame energy / zero-crossing voice-activity detection, a thread a
//    frame of VAD_FRAME samples (it loops over them), the frame's dB energy and decision
//    stored, an energy histogram and the speech-frame count by global atomicAdd;
//  - ctc_greedy: greedy (best-path) CTC decoding of CTC_V-symbol logits, a block an
//    utterance chunk of CTC_T frames and a thread a frame: the argmax, the collapse of
//    repeats and blanks, and the kept labels' positions by a Hillis-Steele scan in shared
//    memory.

#define FRAME_LEN 400        // preemph_frames: samples a frame (25 ms)
#define HOP 160              // preemph_frames: the frame shift (10 ms)
#define NBINS 257            // logmel_smem: power-spectrum bins a frame (NFFT / 2 + 1)
#define NMEL 40              // logmel_smem: mel bands
#define FPB 8                // logmel_smem: frames a block (blockDim.x == NMEL * FPB)
#define VIT_S 32             // viterbi_hmm: HMM states (blockDim.x == VIT_S)
#define VIT_T 64             // viterbi_hmm: frames an utterance
#define DTW_LEN 48           // dtw_pairs: frames a contour
#define VAD_FRAME 256        // vad_energy_zcr: samples a frame (16 ms)
#define VAD_BINS 64          // vad_energy_zcr: histogram bins
#define VAD_DB_MIN -100.0f   // vad_energy_zcr: the histogram's lowest dB
#define VAD_DB_BIN 1.5f      // vad_energy_zcr: dB a bin
#define CTC_T 256            // ctc_greedy: frames a chunk (blockDim.x == CTC_T)
#define CTC_V 29             // ctc_greedy: symbols (blank, space, apostrophe, a-z)
#define CTC_BLANK 0

// logmel_smem's filterbank (set by the host): band m rises from bin c_mel_bin[m] to
// c_mel_bin[m + 1] and falls to c_mel_bin[m + 2]
__constant__ int c_mel_bin[NMEL + 2];

extern "C" {

// pre-emphasis and Hamming-windowed framing: frames[f][k] = (x[s] - alpha x[s - 1]) w[k],
// s = f HOP + k, w[k] = 0.54 - 0.46 cos(2 pi k / (FRAME_LEN - 1)), x[-1] taken as 0
__global__ void preemph_frames(const float *x, float *frames, float alpha, int n_frames) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n_frames * FRAME_LEN) return;
    int f = idx / FRAME_LEN;
    int k = idx % FRAME_LEN;
    int s = f * HOP + k;
    float cur = x[s];
    float prev = 0.0f;
    if (s > 0) prev = x[s - 1];
    float y = cur - alpha * prev;
    float w = 0.54f - 0.46f * cosf(2.0f * 3.14159265f * k / (FRAME_LEN - 1));
    frames[idx] = y * w;
}

// log mel energies: logmel[f][m] = log(max(sum_k w_m(k) P[f][k], 1e-10)), the triangle w_m
// from c_mel_bin; a block's FPB spectra staged in shared memory first
__global__ void logmel_smem(const float *power, float *logmel, int n_frames) {
    __shared__ float sP[FPB * NBINS];
    int frame0 = blockIdx.x * FPB;
    for (int k = threadIdx.x; k < FPB * NBINS; k += blockDim.x) {
        int g = frame0 * NBINS + k;
        sP[k] = g < n_frames * NBINS ? power[g] : 0.0f;
    }
    __syncthreads();
    int f = threadIdx.x / NMEL;
    int m = threadIdx.x % NMEL;
    if (frame0 + f >= n_frames) return;
    int lo = c_mel_bin[m];
    int mid = c_mel_bin[m + 1];
    int hi = c_mel_bin[m + 2];
    float acc = 0.0f;
    for (int k = lo; k < mid; k++) {
        float w = (k - lo) / (float)(mid - lo);
        acc += w * sP[f * NBINS + k];
    }
    for (int k = mid; k < hi; k++) {
        float w = (hi - k) / (float)(hi - mid);
        acc += w * sP[f * NBINS + k];
    }
    logmel[(frame0 + f) * NMEL + m] = logf(fmaxf(acc, 1e-10f));
}

// Viterbi on utterance u = blockIdx.x: delta_0[s] = logpi[s] + B[0][s], delta_t[s] =
// max_j (delta_{t-1}[j] + logA[j][s]) + B[t][s] (the first j of the maximum kept as the
// backpointer); the best final score and the best path (VIT_T states) stored
__global__ void viterbi_hmm(const float *loglik, const float *logA, const float *logpi, unsigned char *bp,
                            int *path, float *best_score) {
    __shared__ float sA[VIT_S * VIT_S];
    __shared__ float delta[2][VIT_S];
    int s = threadIdx.x;
    int u = blockIdx.x;
    for (int k = s; k < VIT_S * VIT_S; k += blockDim.x) sA[k] = logA[k];
    const float *B = loglik + (size_t)u * VIT_T * VIT_S;
    unsigned char *bpu = bp + (size_t)u * VIT_T * VIT_S;
    delta[0][s] = logpi[s] + B[s];
    __syncthreads();
    for (int t = 1; t < VIT_T; t++) {
        int cur = t & 1;
        int prv = cur ^ 1;
        float best = -INFINITY;
        int arg = 0;
        for (int j = 0; j < VIT_S; j++) {
            float v = delta[prv][j] + sA[j * VIT_S + s];
            if (v > best) {
                best = v;
                arg = j;
            }
        }
        delta[cur][s] = best + B[t * VIT_S + s];
        bpu[t * VIT_S + s] = (unsigned char)arg;
        __syncthreads();
    }
    if (s == 0) {
        int last = (VIT_T - 1) & 1;
        float best = delta[last][0];
        int arg = 0;
        for (int j = 1; j < VIT_S; j++) {
            if (delta[last][j] > best) {
                best = delta[last][j];
                arg = j;
            }
        }
        best_score[u] = best;
        int *pu = path + u * VIT_T;
        pu[VIT_T - 1] = arg;
        for (int t = VIT_T - 1; t > 0; t--) {
            arg = bpu[t * VIT_S + arg];
            pu[t - 1] = arg;
        }
    }
}

// DTW distance between query p / n_templ and template p % n_templ (contours of DTW_LEN):
// D[i][j] = |q[i-1] - r[j-1]| + min(D[i-1][j], D[i][j-1], D[i-1][j-1]), D[0][0] = 0, the
// rest of row and column 0 infinite; two rows kept; D[DTW_LEN][DTW_LEN] stored
__global__ void dtw_pairs(const float *queries, const float *templ, float *dist, int n_templ, int n_pairs) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n_pairs) return;
    const float *q = queries + (p / n_templ) * DTW_LEN;
    const float *r = templ + (p % n_templ) * DTW_LEN;
    float D[2][DTW_LEN + 1];
    D[0][0] = 0.0f;
    for (int j = 1; j <= DTW_LEN; j++) D[0][j] = INFINITY;
    for (int i = 1; i <= DTW_LEN; i++) {
        int cur = i & 1;
        int prv = cur ^ 1;
        float qi = q[i - 1];
        D[cur][0] = INFINITY;
        for (int j = 1; j <= DTW_LEN; j++) {
            float c = fabsf(qi - r[j - 1]);
            float m = fminf(D[prv][j], fminf(D[cur][j - 1], D[prv][j - 1]));
            D[cur][j] = c + m;
        }
    }
    dist[p] = D[DTW_LEN & 1][DTW_LEN];
}

// voice-activity detection of frame f (samples f VAD_FRAME ..): the mean energy in dB
// (10 log10(e / VAD_FRAME + 1e-10)), the zero crossings (sign changes, 0 counted as
// positive); speech when dB > thr_db and crossings < zcr_max; the dB's histogram bin
// (VAD_DB_BIN wide from VAD_DB_MIN, clamped) and the speech count by atomicAdd
__global__ void vad_energy_zcr(const float *x, float *energy_db, unsigned char *is_speech, int *hist,
                               int *n_speech, float thr_db, int zcr_max, int n_frames) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= n_frames) return;
    const float *fr = x + (size_t)f * VAD_FRAME;
    float prev = fr[0];
    float e = prev * prev;
    int zc = 0;
    for (int k = 1; k < VAD_FRAME; k++) {
        float s = fr[k];
        e += s * s;
        if ((s >= 0.0f) != (prev >= 0.0f)) zc++;
        prev = s;
    }
    float db = 10.0f * log10f(e / VAD_FRAME + 1e-10f);
    energy_db[f] = db;
    int speech = (db > thr_db && zc < zcr_max) ? 1 : 0;
    is_speech[f] = (unsigned char)speech;
    int bin = (int)((db - VAD_DB_MIN) / VAD_DB_BIN);
    if (bin < 0) bin = 0;
    if (bin > VAD_BINS - 1) bin = VAD_BINS - 1;
    atomicAdd(&hist[bin], 1);
    if (speech) atomicAdd(n_speech, 1);
}

// greedy CTC decoding of chunk u = blockIdx.x (logits[u][t][v], CTC_T x CTC_V): each
// frame's argmax (the first of the maximum), kept when not blank and not its previous
// frame's; the kept labels packed in frame order into labels[u][..] (positions by an
// inclusive scan) and their number into lens[u]
__global__ void ctc_greedy(const float *logits, int *labels, int *lens) {
    __shared__ int s_arg[CTC_T];
    __shared__ int s_scan[CTC_T];
    int t = threadIdx.x;
    int u = blockIdx.x;
    const float *lp = logits + ((size_t)u * CTC_T + t) * CTC_V;
    float best = lp[0];
    int arg = 0;
    for (int v = 1; v < CTC_V; v++) {
        float z = lp[v];
        if (z > best) {
            best = z;
            arg = v;
        }
    }
    s_arg[t] = arg;
    __syncthreads();
    int keep = (arg != CTC_BLANK && (t == 0 || arg != s_arg[t - 1])) ? 1 : 0;
    s_scan[t] = keep;
    __syncthreads();
    for (int off = 1; off < CTC_T; off *= 2) {
        int add = 0;
        if (t >= off) add = s_scan[t - off];
        __syncthreads();
        s_scan[t] += add;
        __syncthreads();
    }
    if (keep) labels[u * CTC_T + s_scan[t] - 1] = arg;
    if (t == CTC_T - 1) lens[u] = s_scan[t];
}

}
