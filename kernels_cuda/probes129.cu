// probe-unseen127: an epidemiology / public-health modelling course's CUDA assignments, as
// a student who knows CUDA basics hands them in:
//  - sir_agent_step: one day of an agent-based SIR model on a contact network in CSR form,
//    a thread an agent: a susceptible agent walks its contacts and, for each infectious one,
//    draws a hashed Bernoulli(beta) transmission, stopping at the first success (the new
//    cases counted by one global atomicAdd); an infectious agent recovers with
//    probability gamma; the new states written to a second array;
//  - reed_frost_outbreak: Monte-Carlo Reed-Frost chain-binomial outbreaks in double, a
//    thread an outbreak in a closed population of pop people (its own per-contact
//    probability p, a sweep over R0): each generation's cases Binomial(S, 1 - (1-p)^I)
//    drawn by inversion (walking the pmf), until no one is infectious; the final size,
//    the duration in generations and the largest generation stored;
//  - case_counts: a line list of cases (region, age in years (255 unknown), onset day)
//    counted into a region x age-band table (5-year bands to 85+, plus unknown) and a
//    daily epidemic curve with global atomicAdds (the list sorted by onset day);
//  - incidence_ma7: the trailing 7-day moving average of daily case counts of many
//    regions (a row of days a region), and the week-on-week growth ratio of that average,
//    a block a tile of one region's days staged with its 13-day halo in shared memory;
//  - renewal_rt: Cori et al.'s renewal-equation estimate of the reproduction number R_t
//    over a 7-day window, a thread a (region, day): the total infectiousness Lambda_k =
//    sum_s w_s I_{k-s} with the serial-interval weights in __constant__ memory, and the
//    gamma posterior's mean and coefficient of variation;
//  - contact_matrix: a social-contact survey's weighted contact matrix (participant's
//    5-year age band x contact's, 16 x 16), a block's partial matrix accumulated with
//    shared-memory float atomicAdds in a grid-stride loop, then added into the global
//    matrix.

#define S_SUSC 0
#define S_INF 1
#define S_REC 2

#define RF_MAX_GEN 200       // reed_frost_outbreak: the most generations an outbreak

#define CC_BANDS 19          // case_counts: 18 five-year bands (85+ the last) and unknown
#define CC_AGE_UNKNOWN 255

#define MA_TILE 256          // incidence_ma7: days a block (blockDim.x == MA_TILE)
#define MA_HALO 13           // the 7-day window and the one a week before it

#define RT_TAU 7             // renewal_rt: the estimation window (days)
#define RT_SI 21             // serial-interval weights w[0 .. RT_SI-1] (w[0] = 0)

#define CM_BANDS 16          // contact_matrix: 5-year bands, 75+ the last

// renewal_rt's discretized serial-interval distribution (set by the host)
__constant__ float c_si_w[RT_SI];

extern "C" {

// a 32-bit integer hash (lowbias32), the RNG of the stochastic kernels
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// a uniform float in [0, 1) from a hash's top 24 bits
__device__ float uniform01(unsigned int h) {
    return (h >> 8) * (1.0f / 16777216.0f);
}

// one day of the SIR model: contact e of a susceptible agent with an infectious one
// transmits when uniform01(hash(seed_inf + e)) < beta (the agent's first success ends its
// walk); an infectious agent i recovers when uniform01(hash(seed_rec + i)) < gamma
__global__ void sir_agent_step(const int *row_ptr, const int *col, const unsigned char *state,
                               unsigned char *next, int *new_cases, float beta, float gamma,
                               unsigned int seed_inf, unsigned int seed_rec, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned char s = state[i];
    unsigned char ns = s;
    if (s == S_SUSC) {
        int start = row_ptr[i];
        int end = row_ptr[i + 1];
        for (int e = start; e < end; e++) {
            if (state[col[e]] == S_INF) {
                if (uniform01(hash32(seed_inf + (unsigned int)e)) < beta) {
                    ns = S_INF;
                    break;
                }
            }
        }
        if (ns == S_INF) atomicAdd(new_cases, 1);
    } else if (s == S_INF) {
        if (uniform01(hash32(seed_rec + (unsigned int)i)) < gamma) ns = S_REC;
    }
    next[i] = ns;
}

// n Reed-Frost outbreaks from one index case in a population of pop (S = pop - 1), outbreak
// i's escape probability 1 - p[i] a contact; a generation's new cases Binomial(S, q), q =
// 1 - (1 - p)^I, by inversion: u from an xorshift32 stream seeded hash(seed + i), the pmf
// walked from (1 - q)^S while u > cdf
__global__ void reed_frost_outbreak(const double *p, int *final_size, int *duration, int *peak, int pop,
                                    unsigned int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double pi = p[i];
    unsigned int x = hash32(seed + (unsigned int)i) | 1u;
    int S = pop - 1;
    int I = 1;
    int total = 1;
    int mx = 1;
    int gen = 0;
    while (I > 0 && gen < RF_MAX_GEN) {
        double q = 1.0 - pow(1.0 - pi, (double)I);
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        double u = x * 2.3283064365386963e-10;
        double pk = pow(1.0 - q, (double)S);
        double cdf = pk;
        int k = 0;
        while (u > cdf && k < S) {
            pk = pk * ((double)(S - k) / (k + 1) * q / (1.0 - q));
            k++;
            cdf += pk;
        }
        S -= k;
        I = k;
        total += k;
        if (k > mx) mx = k;
        gen++;
    }
    final_size[i] = total;
    duration[i] = gen;
    peak[i] = mx;
}

// count n cases into counts[region * CC_BANDS + band] (band age / 5, at most 17; unknown
// ages the last) and epi[onset day]; a case with no region (-1) counts on the curve only
__global__ void case_counts(const int *region, const unsigned char *age, const short *onset, int *counts,
                            int *epi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int r = region[i];
    int a = age[i];
    int band;
    if (a == CC_AGE_UNKNOWN)
        band = CC_BANDS - 1;
    else
        band = min(a / 5, CC_BANDS - 2);
    if (r >= 0) atomicAdd(&counts[r * CC_BANDS + band], 1);
    int d = onset[i];
    if (d >= 0) atomicAdd(&epi[d], 1);
}

// cases: nreg rows of ndays daily counts; ma7[t] the mean of days t-6 .. t (of the days
// there are before day 6), growth[t] = ma7[t] / ma7[t - 7] (0 before day 13 or when
// ma7[t - 7] is 0); grid (ndays / MA_TILE, nreg)
__global__ void incidence_ma7(const int *cases, float *ma7, float *growth, int ndays) {
    __shared__ int s[MA_TILE + MA_HALO];
    int r = blockIdx.y;
    int t0 = blockIdx.x * MA_TILE;
    const int *row = cases + (size_t)r * ndays;
    for (int k = threadIdx.x; k < MA_TILE + MA_HALO; k += blockDim.x) {
        int t = t0 - MA_HALO + k;
        s[k] = (t >= 0 && t < ndays) ? row[t] : 0;
    }
    __syncthreads();
    int t = t0 + threadIdx.x;
    if (t >= ndays) return;
    int j = threadIdx.x + MA_HALO;
    int sum = 0;
    int prev = 0;
    for (int k = 0; k < 7; k++) {
        sum += s[j - k];
        prev += s[j - 7 - k];
    }
    float m = t >= 6 ? sum / 7.0f : (float)sum / (t + 1);
    float mp = prev / 7.0f;
    ma7[(size_t)r * ndays + t] = m;
    growth[(size_t)r * ndays + t] = (t >= 13 && prev > 0) ? m / mp : 0.0f;
}

// R_t of nreg regions' daily incidence (rows of ndays) over the window t-RT_TAU+1 .. t with
// a Gamma(a, b) prior: shape a + sum I_k, rate 1/b + sum Lambda_k; the posterior mean and
// its coefficient of variation 1/sqrt(shape); -1 where the window starts before day 1
__global__ void renewal_rt(const float *inc, float *rt_mean, float *rt_cv, float a, float b, int ndays,
                           int nreg) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= ndays * nreg) return;
    int r = idx / ndays;
    int t = idx % ndays;
    const float *I = inc + (size_t)r * ndays;
    if (t < RT_TAU) {
        rt_mean[idx] = -1.0f;
        rt_cv[idx] = -1.0f;
        return;
    }
    float sumI = 0.0f;
    float sumL = 0.0f;
    for (int k = t - RT_TAU + 1; k <= t; k++) {
        sumI += I[k];
        float lam = 0.0f;
        for (int s = 1; s < RT_SI && s <= k; s++) lam += c_si_w[s] * I[k - s];
        sumL += lam;
    }
    float shape = a + sumI;
    float rate = 1.0f / b + sumL;
    rt_mean[idx] = shape / rate;
    rt_cv[idx] = 1.0f / sqrtf(shape);
}

// the weighted contact matrix M[participant band * CM_BANDS + contact band] of n reported
// contacts (ages in years, bands min(age / 5, 15)), a block's partial sums in shared memory
__global__ void contact_matrix(const unsigned char *part_age, const unsigned char *cont_age, const float *w,
                               float *M, int n) {
    __shared__ float sM[CM_BANDS * CM_BANDS];
    for (int k = threadIdx.x; k < CM_BANDS * CM_BANDS; k += blockDim.x) sM[k] = 0.0f;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int pb = min(part_age[i] / 5, CM_BANDS - 1);
        int cb = min(cont_age[i] / 5, CM_BANDS - 1);
        atomicAdd(&sM[pb * CM_BANDS + cb], w[i]);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < CM_BANDS * CM_BANDS; k += blockDim.x) atomicAdd(&M[k], sM[k]);
}

}
