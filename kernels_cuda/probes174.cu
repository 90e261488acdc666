// probe-unseen172: a combustion modelling course's CUDA assignments, as a student who knows
// CUDA basics hands them in:
//  - jl_rates: the species' mass production rates and the heat release rate of each cell of a
//    methane-air flame field under the Jones-Lindstedt 4-step global mechanism (fractional
//    reaction orders by powf, Arrhenius rate constants by powf and expf, the water-gas shift
//    reversible through an equilibrium constant from the species' NASA-7 polynomials, the
//    low or high temperature range picked per cell), the mechanism and the thermodynamic data
//    in __constant__, the composition in per-thread arrays; the domain's total heat release
//    summed by a warp shuffle reduction, the warps' sums in shared memory and one atomicAdd a
//    block;
//  - h2o2_implicit: the chemistry substeps of an operator-split reacting flow solver, a thread
//    a cell: implicit Euler steps of a 7-species 8-reaction H2/O2 mechanism (elementary
//    mass-action rates, two termolecular steps with the third-body concentration held for a
//    step) at the cell's temperature in double precision, each step's Newton iterations
//    building the analytic Jacobian in a per-thread 7 x 7 matrix (indices from __constant__
//    tables) and solving by Gaussian elimination with partial pivoting, until the update is
//    under a relative tolerance;
//  - flamelet_lookup: a steady flamelet / progress variable table lookup for an LES, a thread
//    a cell: the mixture fraction's interval found by binary search in the table's stretched
//    mixture fraction grid, the progress variable's on a uniform grid, and the temperature,
//    density, progress variable source term and OH mass fraction interpolated bilinearly
//    from the four surrounding table entries (an array of structs);
//  - zcond_bins: conditional statistics of a flame by mixture fraction: each cell's count,
//    heat release rate and temperature added into 128 uniform mixture fraction bins,
//    privatised per block in shared memory by atomicAdd over a grid-stride loop, then the
//    block's bins added to the global ones by atomicAdd;
//  - advect_diffuse: one explicit step of a species mass fraction's transport on a 2-D grid,
//    first-order upwind advection by the cell's velocity and central diffusion, 32 x 8
//    blocks staging their tile and a one-cell halo in shared memory (zero-gradient edges by
//    clamped loads) before a __syncthreads;
//  - ignition_delay: a Monte Carlo ignition delay study, a thread an initial condition (a
//    struct: temperature, pressure, equivalence ratio, a rate multiplier drawn for the
//    uncertainty of the rate): an adiabatic constant-pressure n-heptane-air reactor under the
//    Westbrook-Dryer one-step mechanism, explicit Euler steps limited to a temperature rise
//    a step, integrated until 400 K above the start (its time the ignition delay), the end
//    time or a step limit.

#define JL_NSP 7            // jl_rates: CH4 O2 CO H2 H2O CO2 N2
#define JL_NR 4             // reactions
#define JL_RU 8.314f        // J / (mol K)
#define JL_P0 1.0e5f        // the NASA polynomials' standard pressure (Pa)
#define HO_NS 7             // h2o2_implicit: H2 O2 H2O H O OH HO2 (N2 inert, a third body only)
#define HO_NR 8
#define HO_MAXIT 10         // Newton iterations a step at most
#define HO_RTOL 1e-8        // converged when |dc| <= HO_RTOL |c| + HO_ATOL for every species
#define HO_ATOL 1e-20       // mol / cm^3
#define ZB_BINS 128         // zcond_bins: mixture fraction bins on [0, 1]
#define AD_BX 32            // advect_diffuse: blockDim.x
#define AD_BY 8             // blockDim.y
#define IG_RU 8.314f        // ignition_delay: J / (mol K)
#define IG_W_MIX 29.0f      // the mixture's molecular weight (g/mol), held constant
#define IG_W_F 100.2f       // n-heptane
#define IG_W_O2 32.0f
#define IG_A 5.1e11f        // Westbrook-Dryer: rate = A exp(-TA / T) [F]^0.25 [O2]^1.5 (mol/cm^3/s)
#define IG_TA 15098.0f      // 30 kcal/mol over R (K)
#define IG_QCP 33037.0f     // heat of combustion (44.6 kJ/g) over cp (1.35 J/g/K): K per unit fuel mass fraction
#define IG_STEP_DT 1.0f     // the temperature rise a step may make at most (K)
#define IG_RISE 400.0f      // ignition: the temperature 400 K above its start

// jl_rates' data (set by the host): molecular weights (g/mol); NASA-7 coefficients a1 .. a7 of
// each species, [0] 200 - 1000 K, [1] 1000 - 3500 K; each reaction's A (cm, mol, s), temperature
// exponent b and activation temperature Ta (K); net stoichiometric coefficients (products
// positive), forward reaction orders; reversible reactions (their reverse orders the forward
// ones plus the net coefficients)
__constant__ float c_W[JL_NSP];
__constant__ float c_nasa[JL_NSP][2][7];
__constant__ float c_A[JL_NR];
__constant__ float c_b[JL_NR];
__constant__ float c_Ta[JL_NR];
__constant__ float c_nu[JL_NR][JL_NSP];
__constant__ float c_ord[JL_NR][JL_NSP];
__constant__ int c_rev[JL_NR];

// h2o2_implicit's mechanism (set by the host): each reaction's species [reactant, reactant,
// product, product] (-1: none), whether M is a reactant and a product, the forward and the
// reverse rate constants' A (cm, mol, s), b and Ta (K) (A 0: irreversible)
__constant__ int c_hsp[HO_NR][4];
__constant__ int c_htb[HO_NR];
__constant__ double c_hkf[HO_NR][3];
__constant__ double c_hkr[HO_NR][3];

struct FlameletPoint {
    float T;        // K
    float rho;      // kg / m^3
    float src;      // progress variable source term, kg / m^3 / s
    float Y_OH;
};

struct IgnCase {
    float T0;       // K
    float p;        // atm
    float phi;      // equivalence ratio
    float fA;       // multiplier of the rate constant
};

extern "C" {

// n cells (T in K; Y species-major, Y[s * n + i]) at pressure p (Pa): wdot[s * n + i] the species'
// mass production rates (g/cm^3/s), hrr[i] the heat release rate (W/cm^3), *hrr_total += the sum
// of hrr (blockDim.x a multiple of 32)
__global__ void jl_rates(const float *T, const float *Y, float *wdot, float *hrr, float *hrr_total, float p,
                         int n) {
    __shared__ float s_sum[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float heat = 0.0f;
    if (i < n) {
        float t = T[i];
        float y[JL_NSP], c[JL_NSP], h[JL_NSP], g[JL_NSP], w[JL_NSP];
        float inv_w = 0.0f;
        for (int s = 0; s < JL_NSP; s++) {
            y[s] = fmaxf(Y[s * n + i], 0.0f);
            inv_w += y[s] / c_W[s];
        }
        float rho = 1.0e-6f * p / (JL_RU * t * inv_w);       // g / cm^3
        float lnt = logf(t);
        int range = t < 1000.0f ? 0 : 1;
        for (int s = 0; s < JL_NSP; s++) {
            c[s] = rho * y[s] / c_W[s];                       // mol / cm^3
            const float *a = c_nasa[s][range];
            // h / RT and s / R, g / RT = h / RT - s / R
            h[s] = a[0] + t * (a[1] / 2.0f + t * (a[2] / 3.0f + t * (a[3] / 4.0f + t * a[4] / 5.0f))) + a[5] / t;
            float sr = a[0] * lnt + t * (a[1] + t * (a[2] / 2.0f + t * (a[3] / 3.0f + t * a[4] / 4.0f))) + a[6];
            g[s] = h[s] - sr;
            w[s] = 0.0f;
        }
        for (int r = 0; r < JL_NR; r++) {
            float kf = c_A[r] * powf(t, c_b[r]) * expf(-c_Ta[r] / t);
            float q = kf;
            for (int s = 0; s < JL_NSP; s++)
                if (c_ord[r][s] != 0.0f) q *= powf(c[s], c_ord[r][s]);
            if (c_rev[r]) {
                float dg = 0.0f;
                float dn = 0.0f;
                for (int s = 0; s < JL_NSP; s++) {
                    dg += c_nu[r][s] * g[s];
                    dn += c_nu[r][s];
                }
                float kc = expf(-dg) * powf(1.0e-6f * JL_P0 / (JL_RU * t), dn);   // concentration units
                float qr = kf / kc;
                for (int s = 0; s < JL_NSP; s++) {
                    float o = c_ord[r][s] + c_nu[r][s];
                    if (o != 0.0f) qr *= powf(c[s], o);
                }
                q -= qr;
            }
            for (int s = 0; s < JL_NSP; s++) w[s] += c_nu[r][s] * q;
        }
        for (int s = 0; s < JL_NSP; s++) {
            wdot[s * n + i] = w[s] * c_W[s];
            heat -= w[s] * h[s];
        }
        heat *= JL_RU * t;
        hrr[i] = heat;
    }
    for (int o = 16; o > 0; o >>= 1) heat += __shfl_down_sync(0xffffffff, heat, o);
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    if (lane == 0) s_sum[warp] = heat;
    __syncthreads();
    if (warp == 0) {
        heat = lane < blockDim.x / 32 ? s_sum[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) heat += __shfl_down_sync(0xffffffff, heat, o);
        if (lane == 0) atomicAdd(hrr_total, heat);
    }
}

// nsub implicit Euler steps of dt (s) of the n cells' concentrations (mol/cm^3, species-major,
// conc[s * n + i], updated in place) at their temperatures T (K) with the inert N2 at cN2;
// newton_its[i] the Newton iterations taken
__global__ void h2o2_implicit(double *conc, const double *T, const double *cN2, int *newton_its, double dt,
                              int nsub, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double t = T[i];
    double c[HO_NS], c0[HO_NS], f[HO_NS], dx[HO_NS];
    double A[HO_NS][HO_NS];
    double kf[HO_NR], kr[HO_NR];
    for (int s = 0; s < HO_NS; s++) c[s] = conc[s * n + i];
    for (int r = 0; r < HO_NR; r++) {
        kf[r] = c_hkf[r][0] * pow(t, c_hkf[r][1]) * exp(-c_hkf[r][2] / t);
        kr[r] = c_hkr[r][0] * pow(t, c_hkr[r][1]) * exp(-c_hkr[r][2] / t);
    }
    int its = 0;
    for (int step = 0; step < nsub; step++) {
        double M = cN2[i];                        // the third body, held for the step
        for (int s = 0; s < HO_NS; s++) {
            M += c[s];
            c0[s] = c[s];
        }
        for (int it = 0; it < HO_MAXIT; it++) {
            // the rates f(c) and their Jacobian (in A)
            for (int s = 0; s < HO_NS; s++) {
                f[s] = 0.0;
                for (int j = 0; j < HO_NS; j++) A[s][j] = 0.0;
            }
            for (int r = 0; r < HO_NR; r++) {
                int sp[4];
                for (int k = 0; k < 4; k++) sp[k] = c_hsp[r][k];
                double m = c_htb[r] ? M : 1.0;
                double ca = c[sp[0]];
                double cb = sp[1] >= 0 ? c[sp[1]] : 1.0;
                double cp = c[sp[2]];
                double cq = sp[3] >= 0 ? c[sp[3]] : 1.0;
                double w = m * (kf[r] * ca * cb - kr[r] * cp * cq);
                double dw[4] = {m * kf[r] * cb, m * kf[r] * ca, -m * kr[r] * cq, -m * kr[r] * cp};
                for (int k = 0; k < 4; k++) {
                    if (sp[k] < 0) continue;
                    double sg = k < 2 ? -1.0 : 1.0;
                    f[sp[k]] += sg * w;
                    for (int l = 0; l < 4; l++)
                        if (sp[l] >= 0) A[sp[k]][sp[l]] += sg * dw[l];
                }
            }
            // Newton: (I - dt J) dx = -(c - c0 - dt f)
            for (int s = 0; s < HO_NS; s++) {
                for (int j = 0; j < HO_NS; j++) A[s][j] = (s == j ? 1.0 : 0.0) - dt * A[s][j];
                dx[s] = -(c[s] - c0[s] - dt * f[s]);
            }
            for (int k = 0; k < HO_NS; k++) {
                int piv = k;
                for (int r = k + 1; r < HO_NS; r++)
                    if (fabs(A[r][k]) > fabs(A[piv][k])) piv = r;
                if (piv != k) {
                    for (int j = 0; j < HO_NS; j++) {
                        double tmp = A[k][j];
                        A[k][j] = A[piv][j];
                        A[piv][j] = tmp;
                    }
                    double tmp = dx[k];
                    dx[k] = dx[piv];
                    dx[piv] = tmp;
                }
                for (int r = k + 1; r < HO_NS; r++) {
                    double l = A[r][k] / A[k][k];
                    for (int j = k; j < HO_NS; j++) A[r][j] -= l * A[k][j];
                    dx[r] -= l * dx[k];
                }
            }
            for (int k = HO_NS - 1; k >= 0; k--) {
                double s = dx[k];
                for (int j = k + 1; j < HO_NS; j++) s -= A[k][j] * dx[j];
                dx[k] = s / A[k][k];
            }
            int done = 1;
            for (int s = 0; s < HO_NS; s++) {
                c[s] += dx[s];
                if (fabs(dx[s]) > HO_RTOL * fabs(c[s]) + HO_ATOL) done = 0;
            }
            its++;
            if (done) break;
        }
    }
    for (int s = 0; s < HO_NS; s++) conc[s * n + i] = c[s];
    newton_its[i] = its;
}

// the n cells' (mixture fraction Z, progress variable C in [0, 1]) looked up in an nz x nc table
// (tab[iz * nc + ic]; zgrid increasing from 0 to 1, C uniform from 0 to 1): T, rho, src, yoh
__global__ void flamelet_lookup(const float *Z, const float *C, const float *zgrid,
                                const struct FlameletPoint *tab, int nz, int nc, float *T, float *rho,
                                float *src, float *yoh, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float z = Z[i];
    float c = C[i];
    int lo = 0;
    int hi = nz - 1;
    while (hi - lo > 1) {                     // zgrid[lo] <= z < zgrid[hi]
        int mid = (lo + hi) / 2;
        if (zgrid[mid] <= z) lo = mid;
        else hi = mid;
    }
    float fz = (z - zgrid[lo]) / (zgrid[lo + 1] - zgrid[lo]);
    fz = fminf(fmaxf(fz, 0.0f), 1.0f);
    float cc = c * (nc - 1);
    int ic = min((int)cc, nc - 2);
    float fc = cc - ic;
    struct FlameletPoint p00 = tab[lo * nc + ic];
    struct FlameletPoint p01 = tab[lo * nc + ic + 1];
    struct FlameletPoint p10 = tab[(lo + 1) * nc + ic];
    struct FlameletPoint p11 = tab[(lo + 1) * nc + ic + 1];
    float w00 = (1.0f - fz) * (1.0f - fc);
    float w01 = (1.0f - fz) * fc;
    float w10 = fz * (1.0f - fc);
    float w11 = fz * fc;
    T[i] = w00 * p00.T + w01 * p01.T + w10 * p10.T + w11 * p11.T;
    rho[i] = w00 * p00.rho + w01 * p01.rho + w10 * p10.rho + w11 * p11.rho;
    src[i] = w00 * p00.src + w01 * p01.src + w10 * p10.src + w11 * p11.src;
    yoh[i] = w00 * p00.Y_OH + w01 * p01.Y_OH + w10 * p10.Y_OH + w11 * p11.Y_OH;
}

// the n cells binned by mixture fraction Z in [0, 1] (bin min(Z * ZB_BINS, ZB_BINS - 1)):
// count[b] += the cells, sum_hrr[b] += their heat release rates, sum_T[b] += their temperatures
__global__ void zcond_bins(const float *Z, const float *hrr, const float *T, int *count, float *sum_hrr,
                           float *sum_T, int n) {
    __shared__ int s_count[ZB_BINS];
    __shared__ float s_hrr[ZB_BINS];
    __shared__ float s_T[ZB_BINS];
    for (int b = threadIdx.x; b < ZB_BINS; b += blockDim.x) {
        s_count[b] = 0;
        s_hrr[b] = 0.0f;
        s_T[b] = 0.0f;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int b = (int)(Z[i] * ZB_BINS);
        if (b > ZB_BINS - 1) b = ZB_BINS - 1;
        atomicAdd(&s_count[b], 1);
        atomicAdd(&s_hrr[b], hrr[i]);
        atomicAdd(&s_T[b], T[i]);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < ZB_BINS; b += blockDim.x) {
        if (s_count[b] > 0) {
            atomicAdd(&count[b], s_count[b]);
            atomicAdd(&sum_hrr[b], s_hrr[b]);
            atomicAdd(&sum_T[b], s_T[b]);
        }
    }
}

// one step of Y (nx x ny, row-major) by velocities u, v: Y2 = Y - dt/dx (upwind u dY/dx + v dY/dy)
// + D dt/dx^2 lap(Y), zero-gradient edges (blockDim AD_BX x AD_BY)
__global__ void advect_diffuse(const float *Y, const float *u, const float *v, float *Y2, int nx, int ny,
                               float dt_dx, float d_dt_dx2) {
    __shared__ float tile[AD_BY + 2][AD_BX + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * AD_BX + tx;
    int y = blockIdx.y * AD_BY + ty;
    int xc = min(x, nx - 1);                  // cells past the edge load the edge cell
    int yc = min(y, ny - 1);
    tile[ty + 1][tx + 1] = Y[yc * nx + xc];
    if (tx == 0) tile[ty + 1][0] = Y[yc * nx + max(xc - 1, 0)];
    if (tx == AD_BX - 1) tile[ty + 1][AD_BX + 1] = Y[yc * nx + min(x + 1, nx - 1)];
    if (ty == 0) tile[0][tx + 1] = Y[max(yc - 1, 0) * nx + xc];
    if (ty == AD_BY - 1) tile[AD_BY + 1][tx + 1] = Y[min(y + 1, ny - 1) * nx + xc];
    __syncthreads();
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    float yc0 = tile[ty + 1][tx + 1];
    float yw = tile[ty + 1][tx];
    float ye = tile[ty + 1][tx + 2];
    float ys = tile[ty][tx + 1];
    float yn = tile[ty + 2][tx + 1];
    float uu = u[i];
    float vv = v[i];
    float adv = uu > 0.0f ? uu * (yc0 - yw) : uu * (ye - yc0);
    adv += vv > 0.0f ? vv * (yc0 - ys) : vv * (yn - yc0);
    Y2[i] = yc0 - dt_dx * adv + d_dt_dx2 * (yw + ye + ys + yn - 4.0f * yc0);
}

// the ignition delays tau (s; -1: none by t_end or max_steps steps) of n initial conditions, the
// steps taken in steps; time steps of at most dt_max
__global__ void ignition_delay(const struct IgnCase *cases, float *tau, int *steps, float t_end, float dt_max,
                               int max_steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    struct IgnCase k = cases[i];
    float fst = IG_W_F / (11.0f * IG_W_O2 / 0.233f);          // stoichiometric fuel / air mass ratio
    float yf = k.phi * fst / (1.0f + k.phi * fst);
    float yo = 0.233f * (1.0f - yf);
    float rhot = 1.0e-6f * k.p * 101325.0f * IG_W_MIX / IG_RU;  // rho T (g K / cm^3) at constant pressure
    float T = k.T0;
    float t = 0.0f;
    int s = 0;
    while (T < k.T0 + IG_RISE && t < t_end && s < max_steps) {
        float rho = rhot / T;
        float w = k.fA * IG_A * expf(-IG_TA / T) * powf(rho * yf / IG_W_F, 0.25f) * powf(rho * yo / IG_W_O2, 1.5f);
        float dyf = -IG_W_F * w / rho;         // 1 / s
        float dTdt = -IG_QCP * dyf;
        float dt = fminf(dt_max, IG_STEP_DT / dTdt);
        T += dt * dTdt;
        yf += dt * dyf;
        yo += 11.0f * IG_W_O2 / IG_W_F * dt * dyf;
        t += dt;
        s++;
    }
    tau[i] = T >= k.T0 + IG_RISE ? t : -1.0f;
    steps[i] = s;
}

}
