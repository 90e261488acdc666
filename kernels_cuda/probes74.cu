// probe-unseen72: a numerical ODE/SDE and optimization course's CUDA assignments, as a
// student who knows CUDA basics hands them in: classical RK4 on many independent Lorenz
// systems (a parameter sweep over rho), a thread a system, L_STEPS fixed steps; an
// adaptive Dormand-Prince RK5(4) integrator in double, a thread a Van der Pol oscillator
// of its own stiffness mu, the tableau in __constant__ memory and the stages in a small
// per-thread array, the number of steps (accepted and rejected) depending on mu;
// Euler-Maruyama paths of an Ornstein-Uhlenbeck process with a counter-based hash RNG and
// Box-Muller normals, storing each path's end and maximum; one particle-swarm step on the
// 16-D Rastrigin function, a thread a particle (positions row-major), the particles that
// improve their personal best folding (f bits << 32 | index) into the swarm's best by a
// 64-bit atomicMin; simulated annealing on a 64-variable QUBO, a thread a chain, Q staged
// in shared memory, the chain's bits in a per-thread array, Metropolis acceptance with
// expf on a geometric temperature schedule; and one generation of a genetic algorithm on
// a 64-item knapsack (genomes as 64-bit masks, the items in __constant__ memory), an
// island of GA_POP individuals a block in shared memory, tournament selection, uniform
// crossover and a one-bit mutation, the island's best fitness by warp shuffles.

#define L_STEPS 200           // rk4_lorenz: RK4 steps a system
#define DP_MAX_STEPS 5000     // dopri_vdp: the most attempted steps a system
#define EM_STEPS 256          // em_ou_max: Euler-Maruyama steps a path
#define PSO_DIM 16            // pso_rastrigin: the dimensions
#define SA_N 64               // sa_qubo: the QUBO's variables (Q in shared memory)
#define GA_POP 128            // ga_knapsack: individuals an island (blockDim.x == GA_POP)
#define GA_TOUR 4             // ga_knapsack: the tournament's size
#define GA_GENES 64           // ga_knapsack: items (bits of a genome)

// dopri_vdp's Dormand-Prince tableau (set by the host): a (row-major 7 x 7, the stages'
// weights), b (the 5th-order weights) and e (b minus the 4th-order weights)
__constant__ double c_dp_a[49];
__constant__ double c_dp_b[7];
__constant__ double c_dp_e[7];

// ga_knapsack's items (set by the host): weights and values
__constant__ int c_ks_w[GA_GENES];
__constant__ int c_ks_v[GA_GENES];

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

__device__ void lorenz(float sigma, float rho, float beta, float x, float y, float z, float *dx, float *dy,
                       float *dz) {
    *dx = sigma * (y - x);
    *dy = x * (rho - z) - y;
    *dz = x * y - beta * z;
}

// L_STEPS classical RK4 steps of dt of n Lorenz systems (state in X, Y, Z; rho[i] each
// system's own, sigma and beta shared)
__global__ void rk4_lorenz(float *X, float *Y, float *Z, const float *rho, float sigma, float beta, float dt,
                           int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = X[i];
    float y = Y[i];
    float z = Z[i];
    float r = rho[i];
    for (int s = 0; s < L_STEPS; s++) {
        float k1x, k1y, k1z, k2x, k2y, k2z, k3x, k3y, k3z, k4x, k4y, k4z;
        lorenz(sigma, r, beta, x, y, z, &k1x, &k1y, &k1z);
        lorenz(sigma, r, beta, x + 0.5f * dt * k1x, y + 0.5f * dt * k1y, z + 0.5f * dt * k1z, &k2x, &k2y, &k2z);
        lorenz(sigma, r, beta, x + 0.5f * dt * k2x, y + 0.5f * dt * k2y, z + 0.5f * dt * k2z, &k3x, &k3y, &k3z);
        lorenz(sigma, r, beta, x + dt * k3x, y + dt * k3y, z + dt * k3z, &k4x, &k4y, &k4z);
        x += dt / 6.0f * (k1x + 2.0f * k2x + 2.0f * k3x + k4x);
        y += dt / 6.0f * (k1y + 2.0f * k2y + 2.0f * k3y + k4y);
        z += dt / 6.0f * (k1z + 2.0f * k2z + 2.0f * k3z + k4z);
    }
    X[i] = x;
    Y[i] = y;
    Z[i] = z;
}

// the Van der Pol oscillator y0' = y1, y1' = mu (1 - y0^2) y1 - y0
__device__ void vdp(double mu, const double *y, double *f) {
    f[0] = y[1];
    f[1] = mu * (1.0 - y[0] * y[0]) * y[1] - y[0];
}

// n Van der Pol oscillators (mu[i] each) integrated from t = 0 to t_end by Dormand-Prince
// with error control (atol = rtol = tol, the RMS norm), from the step h0; the states
// overwritten, the accepted and rejected steps counted (at most DP_MAX_STEPS tries)
__global__ void dopri_vdp(double *Y0, double *Y1, const double *mu, int *n_acc, int *n_rej, double t_end,
                          double h0, double tol, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double y[2];
    double yt[2];
    double yn[2];
    double k[7][2];
    y[0] = Y0[i];
    y[1] = Y1[i];
    double m = mu[i];
    double t = 0.0;
    double h = h0;
    int acc = 0;
    int rej = 0;
    for (int it = 0; it < DP_MAX_STEPS && t < t_end; it++) {
        if (t + h > t_end) h = t_end - t;
        vdp(m, y, k[0]);
        for (int s = 1; s < 7; s++) {
            for (int d = 0; d < 2; d++) {
                double sum = 0.0;
                for (int j = 0; j < s; j++) sum += c_dp_a[s * 7 + j] * k[j][d];
                yt[d] = y[d] + h * sum;
            }
            vdp(m, yt, k[s]);
        }
        double err = 0.0;
        for (int d = 0; d < 2; d++) {
            double sb = 0.0;
            double se = 0.0;
            for (int s = 0; s < 7; s++) {
                sb += c_dp_b[s] * k[s][d];
                se += c_dp_e[s] * k[s][d];
            }
            yn[d] = y[d] + h * sb;
            double sc = tol + tol * fmax(fabs(y[d]), fabs(yn[d]));
            double q = h * se / sc;
            err += q * q;
        }
        err = sqrt(err / 2.0);
        if (err <= 1.0) {
            t += h;
            y[0] = yn[0];
            y[1] = yn[1];
            acc++;
        } else {
            rej++;
        }
        double fac = 0.9 * pow(fmax(err, 1e-10), -0.2);
        h = h * fmin(5.0, fmax(0.2, fac));
    }
    Y0[i] = y[0];
    Y1[i] = y[1];
    n_acc[i] = acc;
    n_rej[i] = rej;
}

// EM_STEPS Euler-Maruyama steps of dt of n Ornstein-Uhlenbeck paths dX = theta (mu - X) dt
// + sigma dW from x0[i]; step k's normal by Box-Muller from the hashes of seed + 2 (i
// EM_STEPS + k) and the next counter; the end and the running maximum (x0 included) stored
__global__ void em_ou_max(const float *x0, float *x_end, float *x_max, float theta, float mu, float sigma,
                          float dt, unsigned int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = x0[i];
    float mx = x;
    float sdt = sqrtf(dt);
    for (int k = 0; k < EM_STEPS; k++) {
        unsigned int c = seed + 2u * ((unsigned int)i * EM_STEPS + k);
        float u1 = ((hash32(c) >> 8) + 1) * (1.0f / 16777216.0f);      // (0, 1]
        float u2 = uniform01(hash32(c + 1u));
        float z = sqrtf(-2.0f * logf(u1)) * cosf(6.28318531f * u2);
        x = x + theta * (mu - x) * dt + sigma * sdt * z;
        mx = fmaxf(mx, x);
    }
    x_end[i] = x;
    x_max[i] = mx;
}

// one particle-swarm step of n particles in PSO_DIM dimensions (x, v, pbest row-major n x
// PSO_DIM): v = w v + c1 r1 (pbest - x) + c2 r2 (gbest - x) clamped to +-vmax, x += v, r1
// and r2 hashed from seed + 2 (i PSO_DIM + d) and the next counter; the Rastrigin value
// of the new x; a particle that beats pbest_f[i] takes it as its personal best and folds
// (its value's bits << 32 | i) into *best_key by atomicMin (f >= 0: the bits order as f)
__global__ void pso_rastrigin(float *x, float *v, float *pbest, float *pbest_f, const float *gbest,
                              unsigned long long *best_key, float w, float c1, float c2, float vmax,
                              unsigned int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float f = 10.0f * PSO_DIM;
    for (int d = 0; d < PSO_DIM; d++) {
        int k = i * PSO_DIM + d;
        float r1 = uniform01(hash32(seed + 2u * k));
        float r2 = uniform01(hash32(seed + 2u * k + 1u));
        float xi = x[k];
        float vi = w * v[k] + c1 * r1 * (pbest[k] - xi) + c2 * r2 * (gbest[d] - xi);
        vi = fminf(fmaxf(vi, -vmax), vmax);
        xi = xi + vi;
        v[k] = vi;
        x[k] = xi;
        f += xi * xi - 10.0f * cosf(6.28318531f * xi);
    }
    if (f < pbest_f[i]) {
        pbest_f[i] = f;
        for (int d = 0; d < PSO_DIM; d++) pbest[i * PSO_DIM + d] = x[i * PSO_DIM + d];
        unsigned long long key = ((unsigned long long)__float_as_uint(f) << 32) | (unsigned int)i;
        atomicMin(best_key, key);
    }
}

// `moves` single-flip Metropolis moves of n simulated-annealing chains on the QUBO E(x) =
// x^T Q x (Q symmetric SA_N x SA_N, staged in shared memory), chain c's bits x0[c SA_N ..]
// with energy e0[c]; move m flips the bit h & (SA_N - 1) of h = hash(seed + c moves + m),
// accepted when dE <= 0 or (h >> 8) / 2^24 < exp(-dE / T), T from t0 times alpha a move;
// the bits, the energy and the lowest energy seen stored
__global__ void sa_qubo(const float *Q, const unsigned char *x0, const float *e0, unsigned char *x_out,
                        float *e_out, float *e_best, float t0, float alpha, unsigned int seed, int moves, int n) {
    __shared__ float sQ[SA_N * SA_N];
    for (int k = threadIdx.x; k < SA_N * SA_N; k += blockDim.x) sQ[k] = Q[k];
    __syncthreads();
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;
    unsigned char x[SA_N];
    for (int j = 0; j < SA_N; j++) x[j] = x0[c * SA_N + j];
    float e = e0[c];
    float best = e;
    float T = t0;
    for (int m = 0; m < moves; m++) {
        unsigned int h = hash32(seed + (unsigned int)c * moves + m);
        int i = h & (SA_N - 1);
        float s = 0.0f;
        for (int j = 0; j < SA_N; j++) s += sQ[i * SA_N + j] * x[j];
        float qii = sQ[i * SA_N + i];
        float dE = qii + 2.0f * (s - qii * x[i]);
        if (x[i]) dE = -dE;
        if (dE <= 0.0f || uniform01(h) < expf(-dE / T)) {
            x[i] = 1 - x[i];
            e += dE;
            if (e < best) best = e;
        }
        T *= alpha;
    }
    for (int j = 0; j < SA_N; j++) x_out[c * SA_N + j] = x[j];
    e_out[c] = e;
    e_best[c] = best;
}

// one generation of a knapsack GA, islands of GA_POP genomes (bit b: item b taken), a
// block an island (n a multiple of GA_POP): fitness the value taken when the weight fits
// cap, else cap - weight (negative); each thread picks two parents by tournaments of
// GA_TOUR random island members (the first of the fittest), crosses them with a hashed
// uniform mask and flips one hashed bit with probability p_mut; draws from hash(seed +
// 16 i + counter); the fitnesses, the children and each island's best fitness stored
__global__ void ga_knapsack(const unsigned long long *pop, unsigned long long *next, int *fit, int *island_best,
                            int cap, float p_mut, unsigned int seed, int n) {
    __shared__ unsigned long long s_g[GA_POP];
    __shared__ int s_f[GA_POP];
    __shared__ int s_wbest[GA_POP / 32];
    int t = threadIdx.x;
    int i = blockIdx.x * GA_POP + t;
    unsigned long long g = pop[i];
    int wsum = 0;
    int vsum = 0;
    for (int b = 0; b < GA_GENES; b++) {
        if ((g >> b) & 1ull) {
            wsum += c_ks_w[b];
            vsum += c_ks_v[b];
        }
    }
    int f = wsum <= cap ? vsum : cap - wsum;
    s_g[t] = g;
    s_f[t] = f;
    fit[i] = f;
    __syncthreads();

    unsigned int ctr = seed + 16u * (unsigned int)i;
    int parent[2];
    for (int q = 0; q < 2; q++) {
        int best = hash32(ctr++) % GA_POP;
        for (int r = 1; r < GA_TOUR; r++) {
            int cand = hash32(ctr++) % GA_POP;
            if (s_f[cand] > s_f[best]) best = cand;
        }
        parent[q] = best;
    }
    unsigned long long mask = ((unsigned long long)hash32(ctr) << 32) | hash32(ctr + 1u);
    unsigned long long child = (s_g[parent[0]] & mask) | (s_g[parent[1]] & ~mask);
    unsigned int hm = hash32(ctr + 2u);
    if (uniform01(hm) < p_mut) child ^= 1ull << (hm & (GA_GENES - 1));
    next[i] = child;

    // the island's best fitness: a warp's maximum by shuffles, then the warps' in shared
    int m = f;
    for (int o = 16; o > 0; o >>= 1) m = max(m, __shfl_down_sync(0xffffffff, m, o));
    if (t % 32 == 0) s_wbest[t / 32] = m;
    __syncthreads();
    if (t == 0) {
        int b = s_wbest[0];
        for (int k = 1; k < GA_POP / 32; k++) b = max(b, s_wbest[k]);
        island_best[blockIdx.x] = b;
    }
}

}
