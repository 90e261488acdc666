// probe-unseen62: a computational-finance course's CUDA assignments (pricing, simulation
// and risk), as a student who knows CUDA basics hands them in: Black-Scholes prices of
// European calls and puts with their Greeks by finite differences (bumped spot, volatility
// and time), a thread an option, six closed-form prices each (logf, sqrtf, expf, erff);
// an arithmetic-average Asian call by Monte Carlo, a thread a path: a xorshift32 generator
// seeded by a hash of the path's index, Box-Muller normals (logf, sqrtf, cosf), a loop over
// the monitoring dates multiplying in expf of each log-return, and a shared-memory tree
// reduction of the block's discounted payoffs and their squares (the host adds the blocks'
// sums for the price and its standard error); an American put on a 1024-step
// Cox-Ross-Rubinstein tree, a block an option, the tree's last two columns in two shared
// arrays swapped after each step's __syncthreads, each node the larger of holding and
// exercising now (the node's spot from an expf); Bollinger bands (20-day moving average
// plus and minus two standard deviations) over many price series, a thread a (series, day)
// summing its window of prices and squared prices, with a buy / sell flag when the close
// leaves the bands; a portfolio's variance w^T Sigma w, a warp a row of the covariance
// matrix: lanes striding along the row, a __shfl_xor_sync reduction of (Sigma w)_i, and
// lane 0 adding w_i (Sigma w)_i into the variance by atomicAdd; and an order book's depth
// by price level, a thread an order: live orders inside the book's price window add their
// size (unsigned long long atomicAdd) and a count to their (side, level) bucket, the others
// outside the window counted as dropped.

#define GREEK_DS 0.01f        // bs_greeks_fd: the spot bump, a fraction of the spot
#define GREEK_DVOL 0.01f      // the volatility bump (1 vol point)
#define GREEK_DT (1.0f / 365.0f)   // theta: one calendar day
#define MC_BLOCK 256          // asian_call_mc: threads a block (the shared reduction's size)
#define TREE_STEPS 1024       // american_put_binomial: the tree's time steps
#define BB_WINDOW 20          // bollinger_bands: the moving window, in days
#define BB_K 2.0f             // the bands' width, in standard deviations

extern "C" {

// the standard normal distribution function
__device__ float norm_cdf(float x) {
    return 0.5f * (1.0f + erff(x * 0.70710678f));
}

// the Black-Scholes value of a European call (put == 0) or put (put == 1): spot S, strike K,
// T years to expiry, risk-free rate r, volatility sigma (no dividends)
__device__ float bs_price(float S, float K, float T, float r, float sigma, int put) {
    float sqrtT = sqrtf(T);
    float d1 = (logf(S / K) + (r + 0.5f * sigma * sigma) * T) / (sigma * sqrtT);
    float d2 = d1 - sigma * sqrtT;
    float df = expf(-r * T);
    if (put) return K * df * norm_cdf(-d2) - S * norm_cdf(-d1);
    return S * norm_cdf(d1) - K * df * norm_cdf(d2);
}

// option i's price and Greeks by central differences (theta by a one-day step back):
// delta and gamma from the spot bumped by +-1%, vega (per unit volatility) from the
// volatility bumped by +-0.01, theta the change in value over one calendar day
__global__ void bs_greeks_fd(const float *S, const float *K, const float *T, const float *vol,
                             const unsigned char *is_put, float r, float *price, float *delta,
                             float *gamma, float *vega, float *theta, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = S[i], k = K[i], t = T[i], v = vol[i];
    int put = is_put[i];
    float h = GREEK_DS * s;
    float p0 = bs_price(s, k, t, r, v, put);
    float ps_up = bs_price(s + h, k, t, r, v, put);
    float ps_dn = bs_price(s - h, k, t, r, v, put);
    float pv_up = bs_price(s, k, t, r, v + GREEK_DVOL, put);
    float pv_dn = bs_price(s, k, t, r, v - GREEK_DVOL, put);
    float pt = bs_price(s, k, t - GREEK_DT, r, v, put);
    price[i] = p0;
    delta[i] = (ps_up - ps_dn) / (2.0f * h);
    gamma[i] = (ps_up - 2.0f * p0 + ps_dn) / (h * h);
    vega[i] = (pv_up - pv_dn) / (2.0f * GREEK_DVOL);
    theta[i] = pt - p0;
}

// Marsaglia's xorshift32 (13, 17, 5): the next state, which is also the output
__device__ unsigned int xorshift32(unsigned int &x) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
}

// an arithmetic-average Asian call (strike K, expiry T, monitored at nsteps equally spaced
// dates) under geometric Brownian motion (S0, r, sigma), thread p simulating path p: its
// generator's state from seed ^ p * 2654435761 (Knuth's hash, then 4 warm-up steps), a
// standard normal a date by Box-Muller from two uniforms; the block's sum of the paths'
// discounted payoffs and of their squares go to block_sum and block_sumsq
__global__ void asian_call_mc(float S0, float K, float r, float sigma, float T, int nsteps,
                              unsigned int seed, float *block_sum, float *block_sumsq, int npaths) {
    __shared__ float s_pay[MC_BLOCK];
    __shared__ float s_pay2[MC_BLOCK];
    int tid = threadIdx.x;
    int p = blockIdx.x * blockDim.x + tid;
    float payoff = 0.0f;
    if (p < npaths) {
        unsigned int x = seed ^ ((unsigned int)p * 2654435761u);
        if (x == 0) x = 0x9E3779B9u;                    // xorshift's one bad state
        for (int k = 0; k < 4; k++) xorshift32(x);
        float dt = T / nsteps;
        float drift = (r - 0.5f * sigma * sigma) * dt;
        float vsdt = sigma * sqrtf(dt);
        float s = S0, sum = 0.0f;
        for (int k = 0; k < nsteps; k++) {
            float u1 = (xorshift32(x) + 1.0f) * 2.3283064e-10f;    // in (0, 1]
            float u2 = xorshift32(x) * 2.3283064e-10f;             // in [0, 1]
            float z = sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2);
            s *= expf(drift + vsdt * z);
            sum += s;
        }
        float avg = sum / nsteps;
        payoff = expf(-r * T) * fmaxf(avg - K, 0.0f);
    }
    s_pay[tid] = payoff;
    s_pay2[tid] = payoff * payoff;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (tid < st) {
            s_pay[tid] += s_pay[tid + st];
            s_pay2[tid] += s_pay2[tid + st];
        }
        __syncthreads();
    }
    if (tid == 0) {
        block_sum[blockIdx.x] = s_pay[0];
        block_sumsq[blockIdx.x] = s_pay2[0];
    }
}

// price[o] = an American put's value on a TREE_STEPS-step Cox-Ross-Rubinstein tree (spot
// S[o], strike K[o], expiry T[o] years, volatility vol[o], rate r), block o an option:
// the payoffs at expiry, then backwards a step at a time, node i of step t (spot
// S u^(2i - t)) worth the larger of the discounted expected value and K minus its spot;
// one column in cur, the next written to nxt, swapped after the barrier
__global__ void american_put_binomial(const float *S, const float *K, const float *T, const float *vol,
                                      float r, float *price, int nopt) {
    __shared__ float va[TREE_STEPS + 1];
    __shared__ float vb[TREE_STEPS + 1];
    int o = blockIdx.x;
    if (o >= nopt) return;
    float s0 = S[o], k = K[o];
    float dt = T[o] / TREE_STEPS;
    float lu = vol[o] * sqrtf(dt);                      // log of the up factor
    float u = expf(lu), d = expf(-lu);
    float pu = (expf(r * dt) - d) / (u - d);
    float disc = expf(-r * dt);
    float qu = disc * pu, qd = disc * (1.0f - pu);
    for (int i = threadIdx.x; i <= TREE_STEPS; i += blockDim.x)
        va[i] = fmaxf(k - s0 * expf(lu * (2 * i - TREE_STEPS)), 0.0f);
    __syncthreads();
    float *cur = va, *nxt = vb;
    for (int t = TREE_STEPS - 1; t >= 0; t--) {
        for (int i = threadIdx.x; i <= t; i += blockDim.x) {
            float hold = qu * cur[i + 1] + qd * cur[i];
            float exercise = k - s0 * expf(lu * (2 * i - t));
            nxt[i] = fmaxf(hold, exercise);
        }
        __syncthreads();
        float *tmp = cur;
        cur = nxt;
        nxt = tmp;
    }
    if (threadIdx.x == 0) price[o] = cur[0];
}

// Bollinger bands of nseries price series of ndays closes each (series after series),
// thread i the close px[i]: the mean and the (population) standard deviation of the last
// BB_WINDOW closes up to and including it (fewer at a series' start), mid = the mean,
// upper / lower = mean +- BB_K sd, signal = -1 (sell) above the upper band, +1 (buy)
// below the lower one, 0 between
__global__ void bollinger_bands(const float *px, int ndays, int n, float *mid, float *upper,
                                float *lower, signed char *signal) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int day = i % ndays;
    int first = day - BB_WINDOW + 1;
    if (first < 0) first = 0;
    int m = day - first + 1;
    float sum = 0.0f, sumsq = 0.0f;
    for (int d = first; d <= day; d++) {
        float p = px[i - day + d];
        sum += p;
        sumsq += p * p;
    }
    float mean = sum / m;
    float var = sumsq / m - mean * mean;
    if (var < 0.0f) var = 0.0f;
    float sd = sqrtf(var);
    float up = mean + BB_K * sd;
    float lo = mean - BB_K * sd;
    mid[i] = mean;
    upper[i] = up;
    lower[i] = lo;
    float p = px[i];
    signal[i] = p > up ? -1 : (p < lo ? 1 : 0);
}

// a portfolio's risk: warp i takes row i of the n x n covariance matrix cov, its lanes
// striding along the row for sigma_w[i] = (cov w)_i, summed by shuffles; lane 0 adds
// w[i] (cov w)_i to *var, which ends as w^T cov w
__global__ void portfolio_variance_warp(const float *cov, const float *w, int n, float *sigma_w,
                                        float *var) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (warp >= n) return;
    const float *row = cov + warp * n;
    float acc = 0.0f;
    for (int j = lane; j < n; j += 32) acc += row[j] * w[j];
    for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) {
        sigma_w[warp] = acc;
        atomicAdd(var, w[warp] * acc);
    }
}

// an order book's depth: order i (price in ticks, size in shares, side 0 bid / 1 ask) is
// live when its size is positive; a live order at a price inside [base_tick, base_tick +
// nlevels) adds its size to depth[side * nlevels + level] and 1 to norders[...], one
// outside adds 1 to *dropped
__global__ void orderbook_depth(const int *price_tick, const int *qty, const unsigned char *side, int n,
                                int base_tick, int nlevels, unsigned long long *depth,
                                unsigned int *norders, unsigned int *dropped) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int q = qty[i];
    if (q <= 0) return;                                 // cancelled or filled
    int level = price_tick[i] - base_tick;
    if (level < 0 || level >= nlevels) {
        atomicAdd(dropped, 1u);
        return;
    }
    int b = side[i] * nlevels + level;
    atomicAdd(&depth[b], (unsigned long long)q);
    atomicAdd(&norders[b], 1u);
}

}
