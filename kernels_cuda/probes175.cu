// probe-unseen173: a pharmacometrics / pharmacokinetics course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - pk2cmt_oral_sim: a population PK simulation, a thread a virtual subject: the subject's
//    covariate and between-subject random effects (a PKSubject struct) give its clearances and
//    volumes (allometric weight scaling, log-normal variability), the two-compartment model
//    with first-order absorption solved analytically (the macro rate constants alpha, beta)
//    and superposed over the dosing schedule (a loading dose then q12h maintenance, held in
//    __constant__ with the sampling times) at each sampling time;
//  - pk_m3_loglik: each subject's contribution to the population -2 log-likelihood, a thread a
//    subject walking its observations (CSR; rich, moderate or sparse sampling designs by
//    study): the one-compartment oral prediction from its individual parameters, a combined
//    additive + proportional residual error, a Gaussian term for a measured concentration and
//    Beal's M3 term -2 log Phi((LLOQ - pred) / sd) (erfcf) for one below the quantification
//    limit;
//  - nca_auc_warp: non-compartmental analysis of densely sampled profiles, a warp a subject:
//    the AUC by the linear-up / log-down trapezoidal rule (each lane a strided share of the
//    intervals), Cmax and the first Tmax, reduced over the warp by __shfl_down_sync;
//  - vpc_hist: the binning of a visual predictive check's simulated observations, a grid-stride
//    loop over them: the time-after-dose bin by a linear search of the cut points in
//    __constant__, the log-concentration bin (below LLOQ its own bin), counted in a block's
//    shared-memory histogram by atomicAdd and merged into the global one;
//  - emax_dose_grid: a PK/PD dose-finding grid, a thread a (virtual subject, dose level) with the
//    dose levels in __constant__ (blockIdx.y): the steady-state one-compartment oral profile
//    over a dosing interval, a sigmoid Emax (Hill) effect by powf at each time point, the
//    interval's mean effect by the trapezoid rule and the fraction of time the effect reaches
//    the target;
//  - boot_mean: a nonparametric bootstrap of a population's mean clearance, a block a
//    replicate: each thread resamples its share of the subjects with its own splitmix64
//    stream (64-bit integer hashing, a multiply-high for the index), sums the gathered values in
//    double, then a shared-memory tree reduction with __syncthreads.

#define PK_ND 14              // pk2cmt_oral_sim: doses in the schedule
#define PK_NT 16              // sampling times
#define VPC_NTB 10            // vpc_hist: time-after-dose bins
#define VPC_NCB 64            // concentration bins (bin 0: below LLOQ)
#define EM_NDOSE 16           // emax_dose_grid: dose levels
#define EM_NTP 49             // time points over the dosing interval (both ends)
#define BS_BLOCK 256          // boot_mean: blockDim.x

// pk2cmt_oral_sim's dosing schedule (time h, amount mg; times increasing) and sampling times (h)
__constant__ float c_dose_t[PK_ND];
__constant__ float c_dose_amt[PK_ND];
__constant__ float c_obs_t[PK_NT];
// vpc_hist: the cut points between the time-after-dose bins (h, increasing)
__constant__ float c_tcut[VPC_NTB - 1];
// emax_dose_grid: the dose levels (mg)
__constant__ float c_dose[EM_NDOSE];

struct PKSubject {
    float wt;                 // body weight (kg)
    float eta_cl, eta_v1, eta_q, eta_v2, eta_ka;   // between-subject random effects
};

extern "C" {

// conc[i * PK_NT + j]: subject i's central concentration (mg/L) at c_obs_t[j]; a dose counts
// for the samples strictly after it (a sample at a dose time is its trough)
__global__ void pk2cmt_oral_sim(const struct PKSubject *subj, float *conc, float tvcl, float tvv1, float tvq,
                                float tvv2, float tvka, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    struct PKSubject s = subj[i];
    float wr = s.wt / 70.0f;
    float cl = tvcl * powf(wr, 0.75f) * expf(s.eta_cl);
    float v1 = tvv1 * wr * expf(s.eta_v1);
    float q = tvq * powf(wr, 0.75f) * expf(s.eta_q);
    float v2 = tvv2 * wr * expf(s.eta_v2);
    float ka = tvka * expf(s.eta_ka);
    float k10 = cl / v1;
    float k12 = q / v1;
    float k21 = q / v2;
    float sum = k10 + k12 + k21;
    float alpha = 0.5f * (sum + sqrtf(sum * sum - 4.0f * k10 * k21));
    float beta = k10 * k21 / alpha;
    // the unit dose's coefficients of exp(-alpha t), exp(-beta t), exp(-ka t)
    float A = ka / v1 * (k21 - alpha) / ((ka - alpha) * (beta - alpha));
    float B = ka / v1 * (k21 - beta) / ((ka - beta) * (alpha - beta));
    float C = ka / v1 * (k21 - ka) / ((alpha - ka) * (beta - ka));
    for (int j = 0; j < PK_NT; j++) {
        float t = c_obs_t[j];
        float c = 0.0f;
        for (int d = 0; d < PK_ND && c_dose_t[d] < t; d++) {
            float dt = t - c_dose_t[d];
            c += c_dose_amt[d] * (A * expf(-alpha * dt) + B * expf(-beta * dt) + C * expf(-ka * dt));
        }
        conc[i * PK_NT + j] = c;
    }
}

// ofv[i] = -2 log L of subject i's observations off[i] .. off[i + 1] (times t, concentrations y,
// blq[j] != 0 for one below lloq) under a one-compartment oral model with the subject's
// clearance, volume, absorption rate and dose, residual sd sqrt(add^2 + (prop pred)^2)
__global__ void pk_m3_loglik(const int *off, const float *t, const float *y, const int *blq, const float *cl,
                             const float *v, const float *ka, const float *dose, float *ofv, float sd_add,
                             float sd_prop, float lloq, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float k = cl[i] / v[i];
    float kai = ka[i];
    float coef = dose[i] * kai / (v[i] * (kai - k));
    float sum = 0.0f;
    for (int j = off[i]; j < off[i + 1]; j++) {
        float tj = t[j];
        float pred = coef * (expf(-k * tj) - expf(-kai * tj));
        float var = sd_add * sd_add + sd_prop * sd_prop * pred * pred;
        if (blq[j]) {
            float z = (lloq - pred) / sqrtf(var);
            float p = 0.5f * erfcf(-z * 0.70710678f);       // Phi(z)
            sum += -2.0f * logf(p);
        } else {
            float r = y[j] - pred;
            sum += logf(6.2831853f * var) + r * r / var;
        }
    }
    ofv[i] = sum;
}

// subject w's profile t[w * ns ..], c[w * ns ..] (ns samples, times increasing): auc[w] by
// linear-up / log-down trapezoids, cmax[w] and tmax[w] (the first time of the maximum); a warp
// a subject (blockDim.x a multiple of 32)
__global__ void nca_auc_warp(const float *t, const float *c, float *auc, float *cmax, float *tmax, int ns,
                             int n) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (w >= n) return;
    const float *ts = t + (long long)w * ns;
    const float *cs = c + (long long)w * ns;
    float a = 0.0f;
    float best = -1.0f;
    int bi = 0;
    for (int j = lane; j < ns; j += 32) {
        float c1 = cs[j];
        if (c1 > best) {
            best = c1;
            bi = j;
        }
        if (j + 1 < ns) {
            float c2 = cs[j + 1];
            float dt = ts[j + 1] - ts[j];
            if (c2 < c1 && c2 > 0.0f)
                a += (c1 - c2) * dt / logf(c1 / c2);     // log-down
            else
                a += 0.5f * (c1 + c2) * dt;              // linear-up (and to or from 0)
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_down_sync(0xffffffff, a, o);
        float ob = __shfl_down_sync(0xffffffff, best, o);
        int oi = __shfl_down_sync(0xffffffff, bi, o);
        if (ob > best || (ob == best && oi < bi)) {
            best = ob;
            bi = oi;
        }
    }
    if (lane == 0) {
        auc[w] = a;
        cmax[w] = best;
        tmax[w] = ts[bi];
    }
}

// hist[tb * VPC_NCB + cb] += the observations (time after dose tad, concentration conc) in time
// bin tb (by c_tcut; before the first cut 0, from the last on VPC_NTB - 1) and concentration
// bin cb: 0 below lloq, else 1 + floor((log c - log lloq) * inv_w), at most VPC_NCB - 1
__global__ void vpc_hist(const float *tad, const float *conc, int *hist, float lloq, float inv_w, int n) {
    __shared__ int h[VPC_NTB * VPC_NCB];
    for (int k = threadIdx.x; k < VPC_NTB * VPC_NCB; k += blockDim.x) h[k] = 0;
    __syncthreads();
    float llo = logf(lloq);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float tt = tad[i];
        int tb = 0;
        while (tb < VPC_NTB - 1 && tt >= c_tcut[tb]) tb++;
        float c = conc[i];
        int cb = 0;
        if (c >= lloq) {
            cb = 1 + (int)((logf(c) - llo) * inv_w);
            if (cb > VPC_NCB - 1) cb = VPC_NCB - 1;
        }
        atomicAdd(&h[tb * VPC_NCB + cb], 1);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < VPC_NTB * VPC_NCB; k += blockDim.x)
        if (h[k] != 0) atomicAdd(&hist[k], h[k]);
}

// subject i (clearance cl, volume v, absorption ka; EC50 ec50, Hill coefficient hill, maximal
// effect emax) at dose level d = blockIdx.y, dosed every tau h to steady state: eavg[d * n + i]
// the mean effect over the interval (trapezoids over EM_NTP points), ftgt[d * n + i] the
// fraction of the points with an effect >= target
__global__ void emax_dose_grid(const float *cl, const float *v, const float *ka, const float *ec50,
                               const float *hill, const float *emax, float *eavg, float *ftgt, float tau, float e0,
                               float target, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int d = blockIdx.y;
    if (i >= n) return;
    float k = cl[i] / v[i];
    float kai = ka[i];
    float coef = c_dose[d] * kai / (v[i] * (kai - k));
    float rk = 1.0f / (1.0f - expf(-k * tau));             // steady-state accumulation
    float rka = 1.0f / (1.0f - expf(-kai * tau));
    float g = hill[i];
    float ecg = powf(ec50[i], g);
    float em = emax[i];
    float dt = tau / (EM_NTP - 1);
    float sum = 0.0f;
    float prev = 0.0f;
    int above = 0;
    for (int j = 0; j < EM_NTP; j++) {
        float tt = j * dt;
        float c = coef * (expf(-k * tt) * rk - expf(-kai * tt) * rka);
        float cg = powf(c, g);
        float e = e0 + em * cg / (ecg + cg);
        if (e >= target) above++;
        if (j > 0) sum += 0.5f * (prev + e) * dt;
        prev = e;
    }
    eavg[d * n + i] = sum / tau;
    ftgt[d * n + i] = (float)above / EM_NTP;
}

// mean[b] = the mean of nsub values of x drawn with replacement (replicate b = blockIdx.x;
// blockDim.x == BS_BLOCK), thread tid of the block drawing for k = tid, tid + BS_BLOCK, .. < nsub
__global__ void boot_mean(const float *x, double *mean, int nsub, unsigned long long seed) {
    __shared__ double red[BS_BLOCK];
    unsigned long long s = seed + (unsigned long long)(blockIdx.x * BS_BLOCK + threadIdx.x) * 0xD1B54A32D192ED03ULL;
    double sum = 0.0;
    for (int k = threadIdx.x; k < nsub; k += BS_BLOCK) {
        s += 0x9E3779B97F4A7C15ULL;                      // splitmix64
        unsigned long long z = s;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        int idx = (int)(((z >> 32) * (unsigned long long)nsub) >> 32);
        sum += x[idx];
    }
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int st = BS_BLOCK / 2; st > 0; st >>= 1) {
        if (threadIdx.x < st) red[threadIdx.x] += red[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x == 0) mean[blockIdx.x] = red[0] / nsub;
}

}
