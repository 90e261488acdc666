// probe-unseen122: a computational-economics / econometrics course's CUDA assignments, as
// a student who knows CUDA basics hands them in:
//   vfi_bellman     one value-function-iteration step of a consumption-savings model on an
//                   asset grid of VFI_NA points times nz income states, a thread a (z, a)
//                   state: the block first builds E[V(z', a') | z] for its z in shared memory
//                   (a loop over the nz next states), then grid-searches every a' on the
//                   grid for the best log(c) + beta E V, storing the value and the argmax;
//   bootstrap_ols   B bootstrap replicates of an OLS regression y = alpha + beta x, a thread
//                   a replicate: nobs observations drawn with replacement by a hash RNG,
//                   running sums in float, the slope and the intercept stored;
//   gini_lorenz     the sums behind a Gini coefficient of sorted incomes, sum x and sum
//                   (i + 1) x, in double: a block a chunk of GINI_PER * 256 incomes, a
//                   shared-memory tree reduction, the block's income share stored (the
//                   Lorenz curve's points, the host cumsums them) and two double atomicAdds;
//   panel_sim       a panel of households simulated for T periods with a policy function
//                   a'(a, z) on the asset grid, a thread a household: a binary search of the
//                   asset grid and a linear interpolation of the policy, consumption, the
//                   borrowing constraint, and the next income state drawn by walking a row
//                   of the Markov chain's CDF (a data-dependent number of steps);
//   yardsale_step   one step of a yard-sale exchange economy: each agent trades with a
//                   hashed random partner a fraction of the poorer one's wealth, the winner
//                   by a hashed coin flip, both wealths updated by float atomicAdd;
//   orderbook_levels  limit orders aggregated into bid and ask depth by price level: a
//                   block's histogram of both sides privatized in shared memory (shared
//                   atomicAdd, the side a branch), then flushed to the global book with one
//                   atomicAdd a non-empty level.

#define VFI_NA 1024          // vfi_bellman: asset grid points (the E V row in shared memory)
#define VFI_BLOCK 256        // vfi_bellman: threads a block (blockDim.x)
#define GINI_BLOCK 256       // gini_lorenz: threads a block (blockDim.x)
#define GINI_PER 8           // gini_lorenz: incomes a thread
#define SIM_NA 512           // panel_sim: asset grid points
#define SIM_NZ 7             // panel_sim: income states
#define OB_LEVELS 4096       // orderbook_levels: price levels (ticks)
#define OB_PER 16            // orderbook_levels: orders a thread

extern "C" {

// a 32-bit integer hash (lowbias32), the course's counter-based RNG
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

// one Bellman update: V is nz x VFI_NA (row z: the value on the asset grid), P the income
// chain's transition matrix (nz x nz, row-major); for state (z, i) with cash (1 + r) a_i +
// w z, Vnew = max over j of log(cash - a_j) + beta sum_z' P[z][z'] V[z'][j] over the
// feasible a_j (cash - a_j > 0), policy the first j attaining it. grid (VFI_NA / 256, nz)
__global__ void vfi_bellman(const float *V, const float *P, const float *agrid, const float *zgrid, float *Vnew,
                            int *policy, float r, float w, float beta, int nz) {
    __shared__ float sEV[VFI_NA];
    int z = blockIdx.y;
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    // expected continuation value for this block's income state
    for (int j = threadIdx.x; j < VFI_NA; j += blockDim.x) {
        float ev = 0.0f;
        for (int zp = 0; zp < nz; zp++) ev += P[z * nz + zp] * V[zp * VFI_NA + j];
        sEV[j] = ev;
    }
    __syncthreads();

    float cash = (1.0f + r) * agrid[i] + w * zgrid[z];
    float best = -1e30f;
    int arg = 0;
    for (int j = 0; j < VFI_NA; j++) {
        float c = cash - agrid[j];
        if (c > 0.0f) {
            float val = logf(c) + beta * sEV[j];
            if (val > best) {
                best = val;
                arg = j;
            }
        }
    }
    Vnew[z * VFI_NA + i] = best;
    policy[z * VFI_NA + i] = arg;
}

// B bootstrap replicates of the OLS fit of y on x (nobs observations): replicate b draws
// observation hash32(seed + b nobs + k) % nobs for k < nobs, slope = (m Sxy - Sx Sy) /
// (m Sxx - Sx^2), intercept = (Sy - slope Sx) / m
__global__ void bootstrap_ols(const float *x, const float *y, float *slope, float *intercept, int nobs,
                              unsigned int seed, int B) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= B) return;
    float sx = 0.0f, sy = 0.0f, sxx = 0.0f, sxy = 0.0f;
    for (int k = 0; k < nobs; k++) {
        unsigned int idx = hash32(seed + (unsigned int)b * nobs + k) % nobs;
        float xi = x[idx];
        float yi = y[idx];
        sx += xi;
        sy += yi;
        sxx += xi * xi;
        sxy += xi * yi;
    }
    float m = (float)nobs;
    float beta = (m * sxy - sx * sy) / (m * sxx - sx * sx);
    slope[b] = beta;
    intercept[b] = (sy - beta * sx) / m;
}

// incomes x sorted ascending (n of them): block k sums its chunk of GINI_PER * GINI_BLOCK
// incomes, x and (i + 1) x in double, into share[k] (its total income) and atomically into
// sums[0] (sum x) and sums[1] (sum (i + 1) x). Gini = 2 sums[1] / (n sums[0]) - (n + 1) / n
__global__ void gini_lorenz(const float *x, double *share, double *sums, int n) {
    __shared__ double s_x[GINI_BLOCK];
    __shared__ double s_ix[GINI_BLOCK];
    int t = threadIdx.x;
    int base = blockIdx.x * GINI_BLOCK * GINI_PER;
    double sx = 0.0;
    double six = 0.0;
    for (int k = 0; k < GINI_PER; k++) {
        int i = base + k * GINI_BLOCK + t;
        if (i < n) {
            double v = x[i];
            sx += v;
            six += (double)(i + 1) * v;
        }
    }
    s_x[t] = sx;
    s_ix[t] = six;
    __syncthreads();
    for (int s = GINI_BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) {
            s_x[t] += s_x[t + s];
            s_ix[t] += s_ix[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        share[blockIdx.x] = s_x[0];
        atomicAdd(&sums[0], s_x[0]);
        atomicAdd(&sums[1], s_ix[0]);
    }
}

// T periods of n households: household h at (a, z) saves a' = policy interpolated linearly
// in a on agrid (binary search for the bracket; a' >= 0), consumes c = (1 + r) a + w zgrid[z]
// - a', then draws z' as the first state whose CDF value Pcdf[z][z'] exceeds u =
// uniform01(hash32(seed + h T + t)). The final a, z and the mean consumption stored
__global__ void panel_sim(const float *agrid, const float *pol, const float *Pcdf, const float *zgrid,
                          const float *a0, const int *z0, float *a_out, int *z_out, float *c_mean, float r, float w,
                          unsigned int seed, int T, int n) {
    int h = blockIdx.x * blockDim.x + threadIdx.x;
    if (h >= n) return;
    float a = a0[h];
    int z = z0[h];
    float csum = 0.0f;
    for (int t = 0; t < T; t++) {
        // bracket a on the asset grid
        int lo = 0;
        int hi = SIM_NA - 1;
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (agrid[mid] <= a) lo = mid;
            else hi = mid;
        }
        float wt = (a - agrid[lo]) / (agrid[hi] - agrid[lo]);
        float p0 = pol[z * SIM_NA + lo];
        float p1 = pol[z * SIM_NA + hi];
        float ap = p0 + wt * (p1 - p0);
        if (ap < 0.0f) ap = 0.0f;
        float c = (1.0f + r) * a + w * zgrid[z] - ap;
        csum += c;
        a = ap;

        // next income state from the Markov chain
        float u = uniform01(hash32(seed + (unsigned int)h * T + t));
        int zn = 0;
        while (zn < SIM_NZ - 1 && u >= Pcdf[z * SIM_NZ + zn]) zn++;
        z = zn;
    }
    a_out[h] = a;
    z_out[h] = z;
    c_mean[h] = csum / T;
}

// one yard-sale step of n agents: agent i meets j = hash32(seed + i) % n (no trade when j
// == i) and they bet dm = frac min(w[i], w[j]) on a coin, hash32(seed2 + i) & 1 (1: i
// wins); the old wealths w read, the new ones w_new (a copy of w before the launch)
// updated by atomicAdd
__global__ void yardsale_step(const float *w, float *w_new, float frac, unsigned int seed, unsigned int seed2,
                              int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int j = hash32(seed + i) % n;
    if (j == i) return;
    float dm = frac * fminf(w[i], w[j]);
    if (hash32(seed2 + i) & 1) dm = -dm;     // dm: what j pays i
    atomicAdd(&w_new[i], dm);
    atomicAdd(&w_new[j], -dm);
}

// n limit orders (price level, quantity, side: 0 bid, 1 ask) aggregated into the book's
// depth bid[level] and ask[level]: a block takes OB_PER * blockDim.x orders (strided by
// blockDim.x), sums them into shared histograms, then adds each non-empty level to the book
__global__ void orderbook_levels(const int *price, const int *qty, const unsigned char *side, int *bid, int *ask,
                                 int n) {
    __shared__ int s_bid[OB_LEVELS];
    __shared__ int s_ask[OB_LEVELS];
    for (int l = threadIdx.x; l < OB_LEVELS; l += blockDim.x) {
        s_bid[l] = 0;
        s_ask[l] = 0;
    }
    __syncthreads();
    int base = blockIdx.x * blockDim.x * OB_PER;
    for (int k = 0; k < OB_PER; k++) {
        int o = base + k * blockDim.x + threadIdx.x;
        if (o < n) {
            int p = price[o];
            int q = qty[o];
            if (side[o]) atomicAdd(&s_ask[p], q);
            else atomicAdd(&s_bid[p], q);
        }
    }
    __syncthreads();
    for (int l = threadIdx.x; l < OB_LEVELS; l += blockDim.x) {
        if (s_bid[l] != 0) atomicAdd(&bid[l], s_bid[l]);
        if (s_ask[l] != 0) atomicAdd(&ask[l], s_ask[l]);
    }
}

}
