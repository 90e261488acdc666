// probe-unseen157: a Bayesian statistics / MCMC course's CUDA assignments, as a student who
// knows CUDA basics hands them in:
//  - rwm_eight_schools: many independent random-walk Metropolis chains on the eight schools
//    hierarchical model (Rubin 1981; non-centred: mu, log tau, eta_1 .. eta_8), a thread a
//    chain with its state in a per-thread array, Gaussian proposals by Box-Muller from the
//    chain's own 64-bit LCG stream (per-coordinate proposal scales and the schools' data in
//    __constant__), the chains' acceptances counted;
//  - gmm_gibbs_assign: the assignment step of a Gibbs sweep for a 2-D Gaussian mixture, a
//    thread a point: the K components' (struct in __constant__) log densities, the max-shifted
//    probabilities in a per-thread array, a categorical draw by a linear search of the running
//    sum (a PCG hash of the point's index and the sweep's seed as the uniform), then the
//    components' sufficient statistics (counts, sums, sums of squares and products) for the
//    next parameter step by shared-memory atomics, merged into global ones by a block;
//  - logreg_loglik: the log-likelihood of a Bayesian logistic regression's coefficient draw
//    over a data set (rows of LR_D features, row-major), a thread a row: the linear predictor
//    with the coefficients staged in shared memory, the Bernoulli log-likelihood through a
//    stable softplus, a shared-memory tree reduction in double and one atomicAdd a block;
//  - hmc_mvn: Hamiltonian Monte Carlo on a correlated HM_D-dimensional normal (its precision
//    matrix in __constant__), a thread a chain: iters trajectories each of a fresh Box-Muller
//    momentum (xorshift32 stream), a jittered step size, L leapfrog steps with the gradient by
//    a matrix-vector product and a Metropolis correction on the Hamiltonian, positions, momenta
//    and gradients in per-thread arrays;
//  - is_weights_ess: self-normalised importance sampling of a banana-shaped posterior from a
//    multivariate Student-t proposal fitted at its mode, a grid-stride loop: each draw's log
//    weight stored, the sums of the weights and of their squares kept as a running
//    log-sum-exp (max, sum exp, sum exp 2x) and merged by warp shuffles and across a block's
//    warps, a block's (max, s1, s2) written for the host (the effective sample size s1^2 / s2);
//  - corner_hist: the histograms of a corner plot of posterior draws (CH_P parameters a draw,
//    row-major, chains one after another), a thread a draw: each parameter's bin (draws outside
//    the plotted range left out), its 1-D histogram and the 2-D histogram of each pair of
//    parameters by global atomicAdd.

#define ES_J 8                 // rwm_eight_schools: the schools
#define ES_D (ES_J + 2)        // the parameters: mu, log tau, eta_1 .. eta_J
#define GM_K 16                // gmm_gibbs_assign: mixture components
#define GM_S 5                 // the sums kept a component: x, y, xx, xy, yy (blockDim.x >= GM_K * GM_S)
#define LR_D 32                // logreg_loglik: features a row (the first the intercept's 1)
#define LR_BLOCK 256           // blockDim.x (a power of 2)
#define HM_D 16                // hmc_mvn: the target's dimension
#define IS_NU 5.0f             // is_weights_ess: the proposal's degrees of freedom
#define CH_P 6                 // corner_hist: parameters a draw
#define CH_NB 64               // bins an axis
#define CH_PAIRS (CH_P * (CH_P - 1) / 2)

// the eight schools' estimated effects and 1 / their standard errors squared, the proposal's
// scale on each parameter (set by the host)
__constant__ float c_es_y[ES_J];
__constant__ float c_es_prec[ES_J];
__constant__ float c_es_step[ES_D];

// a mixture component: log(weight) - log|Sigma| / 2, the mean, the precision matrix Sigma^-1
struct GmComp {
    float logc;
    float mx, my;
    float pxx, pxy, pyy;
};
__constant__ GmComp c_gm[GM_K];

// hmc_mvn's target precision matrix (row-major)
__constant__ float c_hm_A[HM_D * HM_D];

// a draw in (0, 1] from a 64-bit LCG (Knuth's MMIX constants), its top 24 bits
__device__ float lcg_uniform(unsigned long long *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((float)(*s >> 40) + 1.0f) * (1.0f / 16777216.0f);
}

// a draw in (0, 1] from xorshift32
__device__ float xs_uniform(unsigned int *s) {
    unsigned int x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return ((float)(x >> 8) + 1.0f) * (1.0f / 16777216.0f);
}

// the PCG hash (Jarzynski and Olano 2020)
__device__ unsigned int pcg_hash(unsigned int v) {
    unsigned int state = v * 747796405u + 2891336453u;
    unsigned int word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// the eight schools' log posterior (up to a constant) at q = (mu, log tau, eta_1 .. eta_J):
// mu ~ N(0, 5^2), tau ~ half-Cauchy(0, 5) (with the log's Jacobian), eta_j ~ N(0, 1),
// y_j ~ N(mu + tau eta_j, sigma_j^2)
__device__ float es_logpost(const float *q) {
    float mu = q[0];
    float tau = expf(q[1]);
    float lp = -mu * mu / 50.0f - logf(1.0f + tau * tau / 25.0f) + q[1];
    for (int j = 0; j < ES_J; j++) {
        float eta = q[2 + j];
        float r = c_es_y[j] - mu - tau * eta;
        lp -= 0.5f * (eta * eta + r * r * c_es_prec[j]);
    }
    return lp;
}

// g = A q
__device__ void hm_grad(const float *q, float *g) {
    for (int i = 0; i < HM_D; i++) {
        float s = 0.0f;
        for (int j = 0; j < HM_D; j++) s += c_hm_A[i * HM_D + j] * q[j];
        g[i] = s;
    }
}

extern "C" {

// steps Metropolis steps of n chains: states q (ES_D x n, a parameter's values contiguous),
// rng the chains' LCG states; lp the final log posteriors, n_acc the steps accepted
__global__ void rwm_eight_schools(float *q, float *lp_out, unsigned long long *rng, int *n_acc, int steps,
                                  int n) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;
    float x[ES_D], y[ES_D];
    for (int k = 0; k < ES_D; k++) x[k] = q[k * n + c];
    unsigned long long s = rng[c];
    float lp = es_logpost(x);
    int acc = 0;
    for (int t = 0; t < steps; t++) {
        for (int k = 0; k < ES_D; k += 2) {        // Box-Muller: two normals a pair of uniforms
            float u1 = lcg_uniform(&s);
            float u2 = lcg_uniform(&s);
            float r = sqrtf(-2.0f * logf(u1));
            y[k] = x[k] + c_es_step[k] * r * cosf(6.2831853f * u2);
            y[k + 1] = x[k + 1] + c_es_step[k + 1] * r * sinf(6.2831853f * u2);
        }
        float lq = es_logpost(y);
        if (logf(lcg_uniform(&s)) < lq - lp) {
            for (int k = 0; k < ES_D; k++) x[k] = y[k];
            lp = lq;
            acc++;
        }
    }
    for (int k = 0; k < ES_D; k++) q[k * n + c] = x[k];
    lp_out[c] = lp;
    rng[c] = s;
    n_acc[c] = acc;
}

// n 2-D points: z[i] drawn from p(z = k | point i) under c_gm; cnt[k] += the points given k,
// sums[k * GM_S + 0 .. 4] += their x, y, x^2, x y, y^2
__global__ void gmm_gibbs_assign(const float2 *pts, int *z, int *cnt, float *sums, unsigned int seed, int n) {
    __shared__ int s_cnt[GM_K];
    __shared__ float s_sum[GM_K * GM_S];
    int t = threadIdx.x;
    if (t < GM_K) s_cnt[t] = 0;
    if (t < GM_K * GM_S) s_sum[t] = 0.0f;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) {
        float2 p = pts[i];
        float pr[GM_K];
        float mx = -FLT_MAX;
        for (int k = 0; k < GM_K; k++) {
            float dx = p.x - c_gm[k].mx;
            float dy = p.y - c_gm[k].my;
            pr[k] = c_gm[k].logc - 0.5f * (c_gm[k].pxx * dx * dx + 2.0f * c_gm[k].pxy * dx * dy +
                                           c_gm[k].pyy * dy * dy);
            mx = fmaxf(mx, pr[k]);
        }
        float tot = 0.0f;
        for (int k = 0; k < GM_K; k++) {
            pr[k] = expf(pr[k] - mx);
            tot += pr[k];
        }
        float u = (float)(pcg_hash((unsigned int)i ^ pcg_hash(seed)) >> 8) * (1.0f / 16777216.0f) * tot;
        int k = 0;
        float cum = pr[0];
        while (cum <= u && k < GM_K - 1) {
            k++;
            cum += pr[k];
        }
        z[i] = k;
        atomicAdd(&s_cnt[k], 1);
        atomicAdd(&s_sum[k * GM_S + 0], p.x);
        atomicAdd(&s_sum[k * GM_S + 1], p.y);
        atomicAdd(&s_sum[k * GM_S + 2], p.x * p.x);
        atomicAdd(&s_sum[k * GM_S + 3], p.x * p.y);
        atomicAdd(&s_sum[k * GM_S + 4], p.y * p.y);
    }
    __syncthreads();
    if (t < GM_K && s_cnt[t] > 0) atomicAdd(&cnt[t], s_cnt[t]);
    if (t < GM_K * GM_S && s_cnt[t / GM_S] > 0) atomicAdd(&sums[t], s_sum[t]);
}

// *ll += the log-likelihood of coefficients beta over n rows X (n x LR_D) with outcomes y (0 / 1)
// (blockDim.x == LR_BLOCK)
__global__ void logreg_loglik(const float *X, const int *y, const float *beta, double *ll, int n) {
    __shared__ float s_beta[LR_D];
    __shared__ double s_ll[LR_BLOCK];
    int t = threadIdx.x;
    if (t < LR_D) s_beta[t] = beta[t];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + t;
    double v = 0.0;
    if (i < n) {
        float eta = 0.0f;
        for (int j = 0; j < LR_D; j++) eta += X[i * LR_D + j] * s_beta[j];
        // log p(y | eta) = y eta - log(1 + e^eta), the softplus written so that it cannot overflow
        float sp = fmaxf(eta, 0.0f) + log1pf(expf(-fabsf(eta)));
        v = (double)(y[i] * eta - sp);
    }
    s_ll[t] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) s_ll[t] += s_ll[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(ll, s_ll[0]);
}

// iters HMC transitions of n chains (positions q HM_D x n, a coordinate contiguous; rng their
// xorshift32 states): L leapfrog steps of eps U(0.8, 1.2); n_acc += the transitions accepted
__global__ void hmc_mvn(float *q, unsigned int *rng, int *n_acc, float eps, int L, int iters, int n) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;
    float x[HM_D], x0[HM_D], p[HM_D], g[HM_D];
    for (int d = 0; d < HM_D; d++) x[d] = q[d * n + c];
    unsigned int s = rng[c];
    int acc = 0;
    for (int it = 0; it < iters; it++) {
        for (int d = 0; d < HM_D; d += 2) {
            float u1 = xs_uniform(&s);
            float u2 = xs_uniform(&s);
            float r = sqrtf(-2.0f * logf(u1));
            p[d] = r * cosf(6.2831853f * u2);
            p[d + 1] = r * sinf(6.2831853f * u2);
        }
        float h = eps * (0.8f + 0.4f * xs_uniform(&s));
        hm_grad(x, g);
        float H0 = 0.0f;
        for (int d = 0; d < HM_D; d++) {
            x0[d] = x[d];
            H0 += 0.5f * (x[d] * g[d] + p[d] * p[d]);
        }
        for (int l = 0; l < L; l++) {
            for (int d = 0; d < HM_D; d++) p[d] -= 0.5f * h * g[d];
            for (int d = 0; d < HM_D; d++) x[d] += h * p[d];
            hm_grad(x, g);
            for (int d = 0; d < HM_D; d++) p[d] -= 0.5f * h * g[d];
        }
        float H1 = 0.0f;
        for (int d = 0; d < HM_D; d++) H1 += 0.5f * (x[d] * g[d] + p[d] * p[d]);
        if (logf(xs_uniform(&s)) < H0 - H1) {
            acc++;
        } else {
            for (int d = 0; d < HM_D; d++) x[d] = x0[d];
        }
    }
    for (int d = 0; d < HM_D; d++) q[d * n + c] = x[d];
    rng[c] = s;
    n_acc[c] += acc;
}

// n draws x from a t_IS_NU(m, S) proposal: logw[i] = log pi(x_i) - log q(x_i) for the banana
// log pi(x) = -x0^2 / (2 a^2) - (x1 - b (x0^2 - a^2))^2 / 2 and the t density given by P = S^-1
// and lq0 (its log normalising constant); part[3 b .. 3 b + 2] = block b's max log weight m and
// the sums of exp(lw - m) and exp(2 (lw - m)) over its draws (a grid-stride loop)
__global__ void is_weights_ess(const float2 *x, float *logw, float *part, float a, float b, float m0, float m1,
                               float P00, float P01, float P11, float lq0, int n) {
    __shared__ float s_m[32], s_1[32], s_2[32];
    float m = -FLT_MAX, s1 = 0.0f, s2 = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float2 v = x[i];
        float r = v.y - b * (v.x * v.x - a * a);
        float lp = -v.x * v.x / (2.0f * a * a) - 0.5f * r * r;
        float d0 = v.x - m0;
        float d1 = v.y - m1;
        float Q = P00 * d0 * d0 + 2.0f * P01 * d0 * d1 + P11 * d1 * d1;
        float lq = lq0 - 0.5f * (IS_NU + 2.0f) * logf(1.0f + Q / IS_NU);
        float lw = lp - lq;
        logw[i] = lw;
        if (lw > m) {                       // a new max: rescale what was summed
            float e = expf(m - lw);
            s1 = s1 * e + 1.0f;
            s2 = s2 * e * e + 1.0f;
            m = lw;
        } else {
            float w = expf(lw - m);
            s1 += w;
            s2 += w * w;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float mo = __shfl_down_sync(0xffffffff, m, o);
        float ao = __shfl_down_sync(0xffffffff, s1, o);
        float bo = __shfl_down_sync(0xffffffff, s2, o);
        float mn = fmaxf(m, mo);
        float e = expf(m - mn);
        float eo = expf(mo - mn);
        s1 = s1 * e + ao * eo;
        s2 = s2 * e * e + bo * eo * eo;
        m = mn;
    }
    int lane = threadIdx.x & 31;
    int w = threadIdx.x >> 5;
    if (lane == 0) {
        s_m[w] = m;
        s_1[w] = s1;
        s_2[w] = s2;
    }
    __syncthreads();
    if (w == 0) {
        int nw = blockDim.x >> 5;
        m = lane < nw ? s_m[lane] : -FLT_MAX;
        s1 = lane < nw ? s_1[lane] : 0.0f;
        s2 = lane < nw ? s_2[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) {
            float mo = __shfl_down_sync(0xffffffff, m, o);
            float ao = __shfl_down_sync(0xffffffff, s1, o);
            float bo = __shfl_down_sync(0xffffffff, s2, o);
            float mn = fmaxf(m, mo);
            float e = expf(m - mn);
            float eo = expf(mo - mn);
            s1 = s1 * e + ao * eo;
            s2 = s2 * e * e + bo * eo * eo;
            m = mn;
        }
        if (lane == 0) {
            part[3 * blockIdx.x] = m;
            part[3 * blockIdx.x + 1] = s1;
            part[3 * blockIdx.x + 2] = s2;
        }
    }
}

// n draws (CH_P parameters each, row-major): parameter p's bin (v - lo[p]) * inv_w[p] in
// 0 .. CH_NB - 1, h1[p * CH_NB + bin] += 1; for each pair a < c (k-th in row order)
// h2[(k * CH_NB + bin_c) * CH_NB + bin_a] += 1; draws outside a parameter's range left out
__global__ void corner_hist(const float *draws, const float *lo, const float *inv_w, int *h1, int *h2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int bin[CH_P];
    for (int p = 0; p < CH_P; p++) {
        float f = (draws[i * CH_P + p] - lo[p]) * inv_w[p];
        bin[p] = -1;
        if (f >= 0.0f && f < (float)CH_NB) {
            bin[p] = (int)f;
            atomicAdd(&h1[p * CH_NB + bin[p]], 1);
        }
    }
    int k = 0;
    for (int a = 0; a < CH_P; a++) {
        for (int c = a + 1; c < CH_P; c++) {
            if (bin[a] >= 0 && bin[c] >= 0) atomicAdd(&h2[(k * CH_NB + bin[c]) * CH_NB + bin[a]], 1);
            k++;
        }
    }
}

}
