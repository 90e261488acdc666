// probe-unseen150: a time-series analysis / sensor analytics course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - rolling_stats: the rolling mean and standard deviation (a window of RS_WIN samples) of a
//    day of one-minute readings of many temperature sensors, stored time-major as the logger
//    writes them (row t holds every sensor's reading at minute t), a thread a sensor keeping
//    running sums of the readings and their squares in double precision (add the newest,
//    subtract the one leaving the window);
//  - mp_dist_rows: rows of a matrix profile's distance matrix: the z-normalized Euclidean
//    distances between nq query subsequences (MP_M samples, staged in shared memory) and
//    every subsequence of a long signal, from sliding dot products and the subsequences'
//    precomputed means and standard deviations, a thread a subsequence; trivial matches
//    (within MP_M / 4 of the query) set to FLT_MAX;
//  - hw_grid_sse: additive Holt-Winters (level, trend, 24-hour seasonality) fitted by grid
//    search to hourly load series, a block a series and a thread one of the 256 (alpha, beta,
//    gamma) triples of the grid: the seasonal state in a per-thread array, the mean squared
//    one-step-ahead forecast error stored;
//  - sax_words: the SAX word (SAX_SEG PAA segments, an alphabet of SAX_A letters cut at the
//    standard normal's quartiles, held in __constant__) of every sliding window of SAX_W
//    samples of an accelerometer-magnitude recording, the window's mean, standard deviation
//    and segment means read off prefix sums of the samples and their squares (double); flat
//    windows (sd < SAX_EPS) not normalized; each word stored and counted into a histogram of
//    all 4^8 words by atomicAdd;
//  - acf_lags: the sample autocorrelation at lags 0 .. AC_LAGS - 1 of many series of AC_LEN
//    samples, a block a series: the series staged in shared memory, its mean by a shared tree
//    reduction, the series centred in place, then a thread a lag summing the lagged products
//    out of shared memory, each divided by lag 0's sum;
//  - cusum_changepoint: the CUSUM change-point estimate of 12-bit ADC series (CS_LEN samples),
//    a warp a series: the total by a shuffle reduction, then 32 samples at a time the prefix
//    sums by a shuffle scan and the statistic |CS_LEN * S_t - (t + 1) * total| (64-bit
//    integers), its maximum and (the earliest) place found by a final shuffle reduction.

#define RS_WIN 60             // rolling_stats: window (samples: an hour of one-minute readings)
#define MP_M 128              // mp_dist_rows: subsequence length
#define MP_MAXQ 64            // mp_dist_rows: the most query rows (shared memory)
#define HW_SEASON 24          // hw_grid_sse: season (hours)
#define SAX_W 128             // sax_words: window (samples)
#define SAX_SEG 8             // sax_words: PAA segments (letters a word)
#define SAX_A 4               // sax_words: alphabet size
#define SAX_EPS 0.01          // sax_words: windows with a smaller sd are left unnormalized
#define AC_LEN 2048           // acf_lags: samples a series
#define AC_LAGS 256           // acf_lags: lags, blockDim.x
#define CS_LEN 1024           // cusum_changepoint: samples a series

// the standard normal's quartiles: SAX's breakpoints for an alphabet of 4
__constant__ float c_sax_breaks[SAX_A - 1] = {-0.67449f, 0.0f, 0.67449f};

extern "C" {

// rolling mean and sd over RS_WIN samples of nsensors series of nt samples, x[t * nsensors + s];
// window ending at t (t >= RS_WIN - 1) stored at (t - RS_WIN + 1) * nsensors + s
__global__ void rolling_stats(const float *x, float *mean, float *sd, int nsensors, int nt) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nsensors) return;
    double sum = 0.0;
    double sumsq = 0.0;
    for (int t = 0; t < nt; t++) {
        double v = x[t * nsensors + s];
        sum += v;
        sumsq += v * v;
        if (t >= RS_WIN) {
            double old = x[(t - RS_WIN) * nsensors + s];
            sum -= old;
            sumsq -= old * old;
        }
        if (t >= RS_WIN - 1) {
            double m = sum / RS_WIN;
            double var = sumsq / RS_WIN - m * m;
            int o = (t - RS_WIN + 1) * nsensors + s;
            mean[o] = (float)m;
            sd[o] = var > 0.0 ? (float)sqrt(var) : 0.0f;
        }
    }
}

// distances between the nq subsequences starting at qidx[r] and the nsub subsequences of T
// (mu, sig: every subsequence's mean and sd), dist[r * nsub + j]
__global__ void mp_dist_rows(const float *T, const float *mu, const float *sig, const int *qidx, float *dist,
                             int nq, int nsub) {
    __shared__ float q[MP_MAXQ * MP_M];
    for (int k = threadIdx.x; k < nq * MP_M; k += blockDim.x)
        q[k] = T[qidx[k / MP_M] + k % MP_M];
    __syncthreads();
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= nsub) return;
    float mj = mu[j];
    float sj = sig[j];
    for (int r = 0; r < nq; r++) {
        int qi = qidx[r];
        float dot = 0.0f;
        for (int k = 0; k < MP_M; k++) dot += q[r * MP_M + k] * T[j + k];
        float corr = (dot - MP_M * mu[qi] * mj) / (MP_M * sig[qi] * sj);
        float d = sqrtf(fmaxf(2.0f * MP_M * (1.0f - corr), 0.0f));
        if (abs(j - qi) < MP_M / 4) d = FLT_MAX;        // exclusion zone: trivial matches
        dist[r * nsub + j] = d;
    }
}

// additive Holt-Winters on series blockIdx.x (x[series * nt ..], nt samples), thread i the
// grid point alpha = (i / 32 + 1) / 9, beta = (i / 8 % 4 + 1) / 20, gamma = (i % 8 + 1) / 9;
// initialised from the first two seasons, the mean squared one-step error over t >= HW_SEASON
__global__ void hw_grid_sse(const float *x, float *mse, int nt) {
    const float *y = x + blockIdx.x * nt;
    int i = threadIdx.x;
    float alpha = (i / 32 + 1) / 9.0f;
    float beta = (i / 8 % 4 + 1) / 20.0f;
    float gamma = (i % 8 + 1) / 9.0f;
    float m1 = 0.0f;
    float m2 = 0.0f;
    for (int k = 0; k < HW_SEASON; k++) {
        m1 += y[k];
        m2 += y[HW_SEASON + k];
    }
    m1 /= HW_SEASON;
    m2 /= HW_SEASON;
    float level = m1;
    float trend = (m2 - m1) / HW_SEASON;
    float season[HW_SEASON];
    for (int k = 0; k < HW_SEASON; k++) season[k] = y[k] - m1;
    float sse = 0.0f;
    for (int t = HW_SEASON; t < nt; t++) {
        int h = t % HW_SEASON;
        float f = level + trend + season[h];
        float e = y[t] - f;
        sse += e * e;
        float nl = alpha * (y[t] - season[h]) + (1.0f - alpha) * (level + trend);
        trend = beta * (nl - level) + (1.0f - beta) * trend;
        season[h] = gamma * (y[t] - nl) + (1.0f - gamma) * season[h];
        level = nl;
    }
    mse[blockIdx.x * blockDim.x + i] = sse / (nt - HW_SEASON);
}

// the SAX words of the nwin windows x[p .. p + SAX_W - 1], from P[k] = x[0] + .. + x[k - 1]
// and P2 the same of the squares; words[p] the word (first segment most significant),
// counts[w] the windows with word w
__global__ void sax_words(const double *P, const double *P2, unsigned short *words, unsigned int *counts,
                          int nwin) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= nwin) return;
    double mean = (P[p + SAX_W] - P[p]) / SAX_W;
    double var = (P2[p + SAX_W] - P2[p]) / SAX_W - mean * mean;
    double sd = var > 0.0 ? sqrt(var) : 0.0;
    const int seg = SAX_W / SAX_SEG;
    unsigned int word = 0;
    for (int k = 0; k < SAX_SEG; k++) {
        int a = p + k * seg;
        double paa = (P[a + seg] - P[a]) / seg;
        float z = sd > SAX_EPS ? (float)((paa - mean) / sd) : 0.0f;
        int sym = 0;
        for (int b = 0; b < SAX_A - 1; b++)
            if (z > c_sax_breaks[b]) sym++;
        word = word * SAX_A + sym;
    }
    words[p] = (unsigned short)word;
    atomicAdd(&counts[word], 1u);
}

// the autocorrelation of series blockIdx.x (x[series * AC_LEN ..]) at lag threadIdx.x,
// acf[series * AC_LAGS + lag] (blockDim.x == AC_LAGS)
__global__ void acf_lags(const float *x, float *acf) {
    __shared__ float s[AC_LEN];
    __shared__ float red[AC_LAGS];
    __shared__ float c0;
    const float *xs = x + blockIdx.x * AC_LEN;
    int t = threadIdx.x;
    float part = 0.0f;
    for (int k = t; k < AC_LEN; k += blockDim.x) {
        float v = xs[k];
        s[k] = v;
        part += v;
    }
    red[t] = part;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (t < st) red[t] += red[t + st];
        __syncthreads();
    }
    float mean = red[0] / AC_LEN;
    for (int k = t; k < AC_LEN; k += blockDim.x) s[k] -= mean;
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < AC_LEN - t; k++) acc += s[k] * s[k + t];
    if (t == 0) c0 = acc;
    __syncthreads();
    acf[blockIdx.x * AC_LAGS + t] = acc / c0;
}

// CUSUM change point of n series of CS_LEN ADC counts (adc[series * CS_LEN ..]), a warp a
// series: cp the t maximizing |CS_LEN * (x[0] + .. + x[t]) - (t + 1) * total| (the earliest
// of ties), stat that maximum
__global__ void cusum_changepoint(const unsigned short *adc, int *cp, long long *stat, int n) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (w >= n) return;
    const unsigned short *x = adc + w * CS_LEN;
    int sum = 0;
    for (int k = lane; k < CS_LEN; k += 32) sum += x[k];
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffff, sum, o);
    long long total = __shfl_sync(0xffffffff, sum, 0);
    int carry = 0;
    long long best = -1;
    int best_t = 0;
    for (int c = 0; c < CS_LEN; c += 32) {
        int v = x[c + lane];
        for (int o = 1; o < 32; o <<= 1) {
            int u = __shfl_up_sync(0xffffffff, v, o);
            if (lane >= o) v += u;
        }
        int pre = carry + v;
        carry = __shfl_sync(0xffffffff, pre, 31);
        long long d = (long long)CS_LEN * pre - (long long)(c + lane + 1) * total;
        if (d < 0) d = -d;
        if (d > best) {
            best = d;
            best_t = c + lane;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        long long ob = __shfl_down_sync(0xffffffff, best, o);
        int ot = __shfl_down_sync(0xffffffff, best_t, o);
        if (ob > best || (ob == best && ot < best_t)) {
            best = ob;
            best_t = ot;
        }
    }
    if (lane == 0) {
        cp[w] = best_t;
        stat[w] = best;
    }
}

}
