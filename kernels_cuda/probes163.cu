// probe-unseen161: a systems biology / stochastic biochemical kinetics course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - ssa_telegraph: an ensemble of Gillespie SSA (direct method) trajectories of the two-state
//    ("telegraph") model of gene expression (promoter switching, transcription, translation,
//    mRNA and protein decay), a thread a cell with its own rates (extrinsic noise; an array of
//    GeneRates structs) and its own xorshift32 stream: 6 propensities and their sum, an
//    exponential waiting time (logf), the reaction picked by a chain of comparisons, the
//    protein copy number written at each of nrec record times passed; the steps taken summed
//    by a warp shuffle reduction and one 64-bit atomicAdd a warp;
//  - tauleap_repressilator: tau-leaping of the repressilator (3 genes repressing each other in
//    a ring: mRNA and protein of each, 12 reactions), a thread a trajectory of a parameter
//    sweep (transcription rate and Hill coefficient a thread): the species and propensities in
//    per-thread arrays, the stoichiometry matrix in __constant__, each reaction's firings a
//    Poisson draw (Knuth's product of uniforms for small means, a rounded Box-Muller normal
//    for large ones) from a xorshift64* stream, negative copy numbers clamped to 0, the peaks
//    of the first protein counted;
//  - rk4_mapk: an ensemble of ODE integrations of Kholodenko's (2000) MAPK cascade with
//    negative feedback (8 species, 10 Michaelis-Menten rates), a thread a point of a sweep of
//    the input strength V1 and the feedback constant Ki, classic RK4 in double precision with
//    the state and the 4 stages in per-thread arrays; the oscillation's peaks counted and the
//    time-averaged MAPK-PP kept;
//  - mm_sse_grid: a brute-force least-squares landscape of the Michaelis-Menten model v = Vmax
//    S / (Km + S) against a plate of initial-rate measurements, a block a (Vmax, Km) point of a
//    log-spaced grid: the threads stride over the wells summing weighted squared residuals,
//    then a shared-memory tree reduction with __syncthreads;
//  - joint_hist: the joint (mRNA, protein) copy-number histogram of single cells (an
//    induction time course), a grid-stride loop over the cells, the 64 x 64 bins privatised in
//    shared memory (atomicAdd), cells with a failed count (-1) skipped, the block's non-zero
//    bins added to the global histogram by atomicAdd;
//  - stoich_residual: the mass-balance residuals S v of a genome-scale metabolic network's
//    flux samples, the stoichiometric matrix in CSR (a row a metabolite: the reactions it
//    takes part in and its coefficients, cofactor hubs in thousands), the samples of a
//    reaction's flux contiguous, a block a metabolite, its threads striding over the samples.

#define SSA_BLOCK 128         // ssa_telegraph: blockDim.x, a multiple of 32
#define RP_NS 6               // tauleap_repressilator: species (mRNA 0..2, protein 3..5)
#define RP_NR 12              // reactions
#define RP_KNUTH_MAX 15.0f    // Poisson means under this drawn by Knuth's method
#define MK_NS 8               // rk4_mapk: species
#define MK_PEAK_MIN 10.0      // a MAPK-PP peak counted only above this (nM)
#define MM_BLOCK 256          // mm_sse_grid: blockDim.x, a power of 2
#define JH_M 64               // joint_hist: mRNA bins (copy numbers 0 .. 63, more in the last)
#define JH_P 64               // protein bins
#define JH_PW 16              // of 16 copies each (the last one open)

// the telegraph model's rates of one cell (1/min)
struct GeneRates {
    float kon;     // promoter off -> on
    float koff;    // promoter on -> off
    float km;      // transcription while on
    float gm;      // mRNA decay, a molecule
    float kp;      // translation, an mRNA
    float gp;      // protein decay and dilution, a molecule
};

// tauleap_repressilator's stoichiometry (set by the host): reaction r changes species s by
// c_nu[r * RP_NS + s]
__constant__ int c_nu[RP_NR * RP_NS];

extern "C" {

__device__ unsigned int xorshift32(unsigned int s) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

// n cells (promoter gene, mRNA, protein copy numbers; rng states) simulated from t = 0 to t_end
// (at most max_steps reactions): rec[k * n + i] the protein at time (k + 1) t_end / nrec,
// steps[i] the reactions fired, *total += all of them
__global__ void ssa_telegraph(const GeneRates *rates, int *gene, int *mrna, int *prot, unsigned int *rng,
                              int *rec, int *steps, unsigned long long *total, float t_end, int nrec,
                              int max_steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int st = 0;
    if (i < n) {
        GeneRates k = rates[i];
        int g = gene[i];
        int m = mrna[i];
        int p = prot[i];
        unsigned int s = rng[i];
        float dtrec = t_end / nrec;
        int next = 0;                 // the next record, at time (next + 1) * dtrec
        float t = 0.0f;
        while (st < max_steps) {
            float a1 = k.kon * (1 - g);
            float a2 = k.koff * g;
            float a3 = k.km * g;
            float a4 = k.gm * m;
            float a5 = k.kp * m;
            float a6 = k.gp * p;
            float a0 = a1 + a2 + a3 + a4 + a5 + a6;
            if (a0 <= 0.0f) break;    // nothing can happen any more
            s = xorshift32(s);
            float u1 = (float)((s >> 8) + 1) * (1.0f / 16777216.0f);    // (0, 1]
            s = xorshift32(s);
            float u2 = (float)(s >> 8) * (1.0f / 16777216.0f);          // [0, 1)
            float tnew = t - logf(u1) / a0;
            // the state held until tnew: record it at the record times passed
            while (next < nrec && (next + 1) * dtrec <= tnew) {
                rec[next * n + i] = p;
                next++;
            }
            if (tnew >= t_end) break;
            t = tnew;
            float r = u2 * a0;
            if (r < a1)
                g = 1;
            else if (r < a1 + a2)
                g = 0;
            else if (r < a1 + a2 + a3)
                m++;
            else if (r < a1 + a2 + a3 + a4)
                m--;
            else if (r < a1 + a2 + a3 + a4 + a5)
                p++;
            else if (p > 0)           // (rounding can make r == a0)
                p--;
            st++;
        }
        while (next < nrec) {         // stopped early: the last state to the end
            rec[next * n + i] = p;
            next++;
        }
        gene[i] = g;
        mrna[i] = m;
        prot[i] = p;
        rng[i] = s;
        steps[i] = st;
    }
    for (int o = 16; o > 0; o >>= 1) st += __shfl_down_sync(0xffffffff, st, o);
    if ((threadIdx.x & 31) == 0 && st > 0) atomicAdd(total, (unsigned long long)st);
}

// a uniform number in [0, 1) from a xorshift64* state (its top 24 bits)
__device__ float rp_uniform(unsigned long long *s) {
    unsigned long long x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return (float)((x * 2685821657736338717ull) >> 40) * (1.0f / 16777216.0f);
}

// a Poisson(lam) number
__device__ int rp_poisson(float lam, unsigned long long *s) {
    if (lam < RP_KNUTH_MAX) {
        float L = expf(-lam);
        int k = 0;
        float prod = rp_uniform(s);
        while (prod > L) {
            prod *= rp_uniform(s);
            k++;
        }
        return k;
    }
    float u1 = 1.0f - rp_uniform(s);          // (0, 1]
    float u2 = rp_uniform(s);
    float z = sqrtf(-2.0f * logf(u1)) * cosf(6.28318531f * u2);
    int k = __float2int_rn(lam + sqrtf(lam) * z);
    return k > 0 ? k : 0;
}

// n repressilator trajectories (copy numbers x[s * n + i], 64-bit rng states) leaped steps times by
// tau: gene j transcribed at alpha0 + alpha[i] / (1 + (protein of gene j - 1 / K)^hill[i]), mRNA
// decaying at gm, translated at beta, proteins decaying at gp; peaks[i] the times protein 0
// rose over thr (again after falling under thr / 2)
__global__ void tauleap_repressilator(int *x, unsigned long long *rng, const float *alpha, const float *hill,
                                      int *peaks, float alpha0, float K, float gm, float beta, float gp, float tau,
                                      float thr, int steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c[RP_NS];
    float a[RP_NR];
    for (int s = 0; s < RP_NS; s++) c[s] = x[s * n + i];
    unsigned long long st = rng[i];
    float al = alpha[i];
    float h = hill[i];
    int high = c[3] > thr;
    int npk = 0;
    for (int t = 0; t < steps; t++) {
        for (int j = 0; j < 3; j++) {
            float rep = c[3 + (j + 2) % 3];          // lacI -| tetR -| cI -| lacI
            a[j] = alpha0 + al / (1.0f + powf(rep / K, h));
            a[3 + j] = gm * c[j];
            a[6 + j] = beta * c[j];
            a[9 + j] = gp * c[3 + j];
        }
        for (int r = 0; r < RP_NR; r++) {
            int f = rp_poisson(a[r] * tau, &st);
            if (f == 0) continue;
            for (int s = 0; s < RP_NS; s++) c[s] += c_nu[r * RP_NS + s] * f;
        }
        for (int s = 0; s < RP_NS; s++)
            if (c[s] < 0) c[s] = 0;
        int lacI = c[3];
        if (!high && lacI > thr) {
            high = 1;
            npk++;
        } else if (high && lacI < 0.5f * thr) {
            high = 0;
        }
    }
    for (int s = 0; s < RP_NS; s++) x[s * n + i] = c[s];
    rng[i] = st;
    peaks[i] = npk;
}

// Kholodenko (2000): x = MKKK, MKKK-P, MKK, MKK-P, MKK-PP, MAPK, MAPK-P, MAPK-PP (nM), time in s
__device__ void mapk_rhs(const double *x, double *f, double V1, double Ki, double nh) {
    double v1 = V1 * x[0] / ((1.0 + pow(x[7] / Ki, nh)) * (10.0 + x[0]));
    double v2 = 0.25 * x[1] / (8.0 + x[1]);
    double v3 = 0.025 * x[1] * x[2] / (15.0 + x[2]);
    double v4 = 0.025 * x[1] * x[3] / (15.0 + x[3]);
    double v5 = 0.75 * x[4] / (15.0 + x[4]);
    double v6 = 0.75 * x[3] / (15.0 + x[3]);
    double v7 = 0.025 * x[4] * x[5] / (15.0 + x[5]);
    double v8 = 0.025 * x[4] * x[6] / (15.0 + x[6]);
    double v9 = 0.5 * x[7] / (15.0 + x[7]);
    double v10 = 0.5 * x[6] / (15.0 + x[6]);
    f[0] = v2 - v1;
    f[1] = v1 - v2;
    f[2] = v6 - v3;
    f[3] = v3 + v5 - v4 - v6;
    f[4] = v4 - v5;
    f[5] = v10 - v7;
    f[6] = v7 + v9 - v8 - v10;
    f[7] = v8 - v9;
}

// n sweep points (V1[i], Ki[i]; Hill coefficient nh): the cascade from x0 (MK_NS a point,
// interleaved) integrated steps RK4 steps of dt; xT[s * n + i] the final state, peaks[i] the
// MAPK-PP maxima above MK_PEAK_MIN, mean_pp[i] MAPK-PP averaged over the steps
__global__ void rk4_mapk(const double *x0, const double *V1, const double *Ki, double *xT, int *peaks,
                         double *mean_pp, double nh, double dt, int steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x[MK_NS], y[MK_NS], k1[MK_NS], k2[MK_NS], k3[MK_NS], k4[MK_NS];
    for (int s = 0; s < MK_NS; s++) x[s] = x0[i * MK_NS + s];
    double v1 = V1[i];
    double ki = Ki[i];
    double prev = x[7];
    int rising = 0;
    int npk = 0;
    double sum = 0.0;
    for (int t = 0; t < steps; t++) {
        mapk_rhs(x, k1, v1, ki, nh);
        for (int s = 0; s < MK_NS; s++) y[s] = x[s] + 0.5 * dt * k1[s];
        mapk_rhs(y, k2, v1, ki, nh);
        for (int s = 0; s < MK_NS; s++) y[s] = x[s] + 0.5 * dt * k2[s];
        mapk_rhs(y, k3, v1, ki, nh);
        for (int s = 0; s < MK_NS; s++) y[s] = x[s] + dt * k3[s];
        mapk_rhs(y, k4, v1, ki, nh);
        for (int s = 0; s < MK_NS; s++) x[s] += dt / 6.0 * (k1[s] + 2.0 * k2[s] + 2.0 * k3[s] + k4[s]);
        double pp = x[7];
        if (rising && pp < prev && prev > MK_PEAK_MIN) npk++;
        rising = pp > prev;
        prev = pp;
        sum += pp;
    }
    for (int s = 0; s < MK_NS; s++) xT[s * n + i] = x[s];
    peaks[i] = npk;
    mean_pp[i] = sum / steps;
}

// the weighted sum of squared residuals of v = Vmax S / (Km + S) against m wells (S, v, w = 1 /
// sigma) at each of the gridDim.x points of a grid: point b at Vmax = exp(lv0 + (b / nk) dlv),
// Km = exp(lk0 + (b % nk) dlk) (blockDim.x MM_BLOCK)
__global__ void mm_sse_grid(const float *S, const float *v, const float *w, float *sse, float lv0, float dlv,
                            float lk0, float dlk, int nk, int m) {
    __shared__ float part[MM_BLOCK];
    int b = blockIdx.x;
    float Vmax = expf(lv0 + (b / nk) * dlv);
    float Km = expf(lk0 + (b % nk) * dlk);
    float acc = 0.0f;
    for (int j = threadIdx.x; j < m; j += blockDim.x) {
        float pred = Vmax * S[j] / (Km + S[j]);
        float r = (v[j] - pred) * w[j];
        acc += r * r;
    }
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int o = blockDim.x / 2; o > 0; o >>= 1) {
        if (threadIdx.x < o) part[threadIdx.x] += part[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0) sse[b] = part[0];
}

// n cells' mRNA and protein counts (-1: not counted) binned into hist[JH_M x JH_P] (mRNA
// min(m, JH_M - 1), protein min(p / JH_PW, JH_P - 1))
__global__ void joint_hist(const int *mrna, const int *prot, int *hist, int n) {
    __shared__ int h[JH_M * JH_P];
    for (int k = threadIdx.x; k < JH_M * JH_P; k += blockDim.x) h[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int m = mrna[i];
        int p = prot[i];
        if (m < 0 || p < 0) continue;
        int bm = min(m, JH_M - 1);
        int bp = min(p / JH_PW, JH_P - 1);
        atomicAdd(&h[bm * JH_P + bp], 1);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < JH_M * JH_P; k += blockDim.x)
        if (h[k] > 0) atomicAdd(&hist[k], h[k]);
}

// res[i * ns + k] = sum over the reactions j of metabolite i (CSR rowptr, rxn, coef) of S_ij
// flux[j * ns + k], for ns flux samples; a block a metabolite, its threads striding over the samples
__global__ void stoich_residual(const int *rowptr, const int *rxn, const float *coef, const float *flux, float *res,
                                int ns) {
    int i = blockIdx.x;
    int beg = rowptr[i];
    int end = rowptr[i + 1];
    for (int k = threadIdx.x; k < ns; k += blockDim.x) {
        float acc = 0.0f;
        for (int e = beg; e < end; e++) acc += coef[e] * flux[rxn[e] * ns + k];
        res[i * ns + k] = acc;
    }
}

}
