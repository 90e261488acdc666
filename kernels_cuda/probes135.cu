// probe-unseen133: an actuarial-science / insurance-mathematics course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - compound_poisson: Monte-Carlo aggregate claims of a collective risk model, a thread a
//    scenario: the scenario's claim count Poisson(lam[i]) by Knuth's product of uniforms
//    (lam itself Gamma-distributed across scenarios: a mixed Poisson), then that many
//    lognormal severities by Box-Muller, the aggregate loss, the count and the largest
//    claim stored; uniforms from a counter-based hash, CP_STRIDE counters a scenario;
//  - chain_ladder: the chain-ladder method on bootstrap pseudo-triangles (CL_DEV x CL_DEV
//    cumulative paid claims, origin year x development year, the unknown lower-right part
//    zero), a block of CL_DEV^2 threads a triangle staged into shared memory: the volume-
//    weighted development factors, each origin year's projected ultimate and reserve, and
//    the triangle's total reserve;
//  - annuity_pv: the expected present value of a (deferred) whole-life annuity-due for
//    each policyholder, from a select-free life table q_x (two sexes, ages 0 .. AN_AGES - 1)
//    in __constant__ memory, a thread a policy looping over the years left to age 120;
//  - loss_hist: the histogram of simulated aggregate losses (for the value at risk and
//    TVaR read off it on the host): VH_BINS bins of bin_width, the last one the tail,
//    counted in shared memory by atomicAdd and merged into the global histogram;
//  - xol_layers: a per-risk excess-of-loss reinsurance tower of RL_LAYERS layers
//    (retentions and limits in __constant__ memory) applied to each ground-up claim: the
//    net retained claim stored and each layer's recoveries summed by warp shuffles and
//    one atomicAdd a warp into the layer's total;
//  - glm_premium: premium rating with a frequency-severity GLM (log links): each policy's
//    GL_K rating factors' levels (bytes, row-major) index the two relativity tables,
//    staged into shared memory, exposure as the offset; the office premium with a loading
//    and a minimum premium.

#define CP_STRIDE 512         // compound_poisson: hash counters reserved a scenario
#define CP_MAX_CLAIMS 150     // compound_poisson: the claim count's cap
#define CL_DEV 16             // chain_ladder: origin and development years (blockDim.x == CL_DEV^2)
#define AN_AGES 121           // annuity_pv: the life table's ages 0 .. 120 (q_120 = 1)
#define VH_BINS 1024          // loss_hist: bins (the last one the tail)
#define RL_LAYERS 8           // xol_layers: layers of the tower
#define GL_K 6                // glm_premium: rating factors a policy
#define GL_TAB 256            // glm_premium: entries of each relativity table (padded)

// annuity_pv's life table (set by the host): q_x of sex s at age x is c_qx[s * AN_AGES + x]
__constant__ float c_qx[2 * AN_AGES];

// xol_layers' tower (set by the host): layer l pays min(max(x - c_ret[l], 0), c_lim[l])
__constant__ float c_ret[RL_LAYERS];
__constant__ float c_lim[RL_LAYERS];

// glm_premium's table offsets (set by the host): factor k's level v is entry c_off[k] + v
__constant__ int c_off[GL_K];

extern "C" {

// a 32-bit integer hash (lowbias32), the RNG of the simulation
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

// n scenarios of a compound Poisson model: N ~ Poisson(lam[i]) by Knuth's method (multiply
// uniforms until the product drops to exp(-lam) or below, at most CP_MAX_CLAIMS claims),
// then N lognormal(mu, sigma) claims by Box-Muller; draws from hash(seed + CP_STRIDE i + c)
// for the counters c = 0, 1, ... in order; the aggregate, the count and the largest claim
__global__ void compound_poisson(const float *lam, float *agg, int *count, float *max_claim, float mu, float sigma,
                                 unsigned int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int ctr = seed + (unsigned int)i * CP_STRIDE;
    float L = expf(-lam[i]);
    float p = uniform01(hash32(ctr++));
    int k = 0;
    while (p > L && k < CP_MAX_CLAIMS) {
        p *= uniform01(hash32(ctr++));
        k++;
    }
    float S = 0.0f;
    float mx = 0.0f;
    for (int c = 0; c < k; c++) {
        float u1 = ((hash32(ctr++) >> 8) + 1) * (1.0f / 16777216.0f);      // (0, 1]
        float u2 = uniform01(hash32(ctr++));
        float z = sqrtf(-2.0f * logf(u1)) * cosf(6.28318531f * u2);
        float x = expf(mu + sigma * z);
        S += x;
        mx = fmaxf(mx, x);
    }
    agg[i] = S;
    count[i] = k;
    max_claim[i] = mx;
}

// chain ladder on CL_DEV x CL_DEV cumulative triangles (row-major, origin i by development
// j, known where i + j < CL_DEV), a block a triangle: factor j the sum over the origins
// with both j and j + 1 known of C[i][j + 1] over that of C[i][j] (1 if that is 0);
// origin i's ultimate its latest C[i][CL_DEV - 1 - i] times the factors from there on, its
// reserve the ultimate less the latest; the triangle's total reserve
__global__ void chain_ladder(const float *C, float *factors, float *ultimate, float *reserve, float *total) {
    __shared__ float sC[CL_DEV][CL_DEV];
    __shared__ float sF[CL_DEV];
    __shared__ float sR[CL_DEV];
    int t = threadIdx.x;
    int tri = blockIdx.x;
    sC[t / CL_DEV][t % CL_DEV] = C[tri * CL_DEV * CL_DEV + t];
    __syncthreads();

    if (t < CL_DEV - 1) {
        float num = 0.0f;
        float den = 0.0f;
        for (int i = 0; i < CL_DEV - 1 - t; i++) {
            num += sC[i][t + 1];
            den += sC[i][t];
        }
        float f = den > 0.0f ? num / den : 1.0f;
        sF[t] = f;
        factors[tri * (CL_DEV - 1) + t] = f;
    }
    __syncthreads();

    if (t < CL_DEV) {
        int j0 = CL_DEV - 1 - t;
        float latest = sC[t][j0];
        float ult = latest;
        for (int j = j0; j < CL_DEV - 1; j++) ult *= sF[j];
        ultimate[tri * CL_DEV + t] = ult;
        reserve[tri * CL_DEV + t] = ult - latest;
        sR[t] = ult - latest;
    }
    __syncthreads();

    if (t == 0) {
        float s = 0.0f;
        for (int i = 0; i < CL_DEV; i++) s += sR[i];
        total[tri] = s;
    }
}

// the EPV of an annuity-due of amount[i] a year, the first payment defer[i] years from now,
// for a life of age[i] and sex[i] (0 or 1): the sum over k >= defer of v^k kp_x, kp_x the
// product of (1 - q_{x+j}) for j < k from c_qx, v = 1 / (1 + rate), to age AN_AGES - 1
__global__ void annuity_pv(const int *age, const int *sex, const int *defer, const float *amount, float *epv,
                           float rate, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = age[i];
    int s = sex[i];
    int d = defer[i];
    float v = 1.0f / (1.0f + rate);
    float kpx = 1.0f;
    float vk = 1.0f;
    float pv = 0.0f;
    for (int k = 0; x + k < AN_AGES; k++) {
        if (k >= d) pv += vk * kpx;
        kpx *= 1.0f - c_qx[s * AN_AGES + x + k];
        vk *= v;
    }
    epv[i] = amount[i] * pv;
}

// the histogram of n simulated losses: bin (int)(loss / bin_width), the last bin for all
// the losses beyond; a block's counts in shared memory (a grid-stride loop), then added
// into hist (VH_BINS counters, zeroed by the host)
__global__ void loss_hist(const float *loss, unsigned int *hist, float bin_width, int n) {
    __shared__ unsigned int sh[VH_BINS];
    for (int k = threadIdx.x; k < VH_BINS; k += blockDim.x) sh[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int b = (int)(loss[i] / bin_width);
        if (b >= VH_BINS) b = VH_BINS - 1;
        atomicAdd(&sh[b], 1u);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < VH_BINS; k += blockDim.x) {
        if (sh[k] > 0) atomicAdd(&hist[k], sh[k]);
    }
}

// n ground-up claims through the tower: net[i] the claim less its recoveries from all the
// layers; layer l's recoveries summed over a warp by shuffles and added into layer_tot[l]
// by the warp's lane 0 when not zero (the threads past n take part with a zero claim)
__global__ void xol_layers(const float *claim, float *net, float *layer_tot, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    float x = i < n ? claim[i] : 0.0f;
    float rec = 0.0f;
    for (int l = 0; l < RL_LAYERS; l++) {
        float r = fminf(fmaxf(x - c_ret[l], 0.0f), c_lim[l]);
        rec += r;
        for (int o = 16; o > 0; o >>= 1) r += __shfl_down_sync(0xffffffff, r, o);
        if (lane == 0 && r > 0.0f) atomicAdd(&layer_tot[l], r);
    }
    if (i < n) net[i] = x - rec;
}

// the premiums of n policies: the levels lev[i GL_K + k] of the GL_K rating factors pick
// entries c_off[k] + level of the frequency and severity tables (log relativities, staged
// into shared memory); frequency exp(b0_f + log exposure + sum), severity exp(b0_s + sum),
// the premium their product times 1 + loading, at least min_prem
__global__ void glm_premium(const unsigned char *lev, const float *expo, const float *beta_f, const float *beta_s,
                            float *premium, float b0_f, float b0_s, float loading, float min_prem, int n) {
    __shared__ float s_bf[GL_TAB];
    __shared__ float s_bs[GL_TAB];
    for (int k = threadIdx.x; k < GL_TAB; k += blockDim.x) {
        s_bf[k] = beta_f[k];
        s_bs[k] = beta_s[k];
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float eta_f = b0_f + logf(expo[i]);
        float eta_s = b0_s;
        for (int k = 0; k < GL_K; k++) {
            int l = c_off[k] + lev[i * GL_K + k];
            eta_f += s_bf[l];
            eta_s += s_bs[l];
        }
        float prem = expf(eta_f) * expf(eta_s) * (1.0f + loading);
        premium[i] = fmaxf(prem, min_prem);
    }
}

}
