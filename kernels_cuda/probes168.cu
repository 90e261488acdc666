// probe-unseen166: an electrochemistry / battery modelling course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - particle_diffusion: the solid-phase diffusion of a pseudo-2-D (Doyle-Fuller-Newman)
//    many-particle model, a thread an electrode particle: Fick's law in the sphere on NR
//    equal-thickness finite-volume shells, the lithium flux out of the surface as the
//    boundary condition, steps backward-Euler steps each a tridiagonal (Thomas) solve in
//    double precision with the matrix and the sweep in per-thread arrays; the surface
//    concentration extrapolated from the outer shell;
//  - butler_volmer: the kinetics at each node of a batch of cells' P2-D meshes (negative
//    electrode, separator, positive electrode along each cell), a thread a node: the
//    electrode's open-circuit potential (the LG M50 graphite and NMC811 fits of Chen et al.
//    2020, exponentials and tanhs), the exchange current density (Arrhenius rate constant,
//    square root of the concentrations) and the overpotential that carries the node's
//    reaction current, the inverse of symmetric Butler-Volmer by asinhf;
//  - electrolyte_diffusion: the electrolyte's salt concentration along each cell of a
//    batch, a block a cell: the profile staged in shared memory and advanced by substeps
//    explicit Euler steps (Bruggeman effective diffusivities, harmonic means at the faces,
//    zero flux at the current collectors, the reactions as a source), double-buffered with a
//    __syncthreads a substep; the regions' porosities in __constant__;
//  - ecm_drive_cycle: an ensemble of second-order equivalent-circuit cell models (R0 and
//    two RC pairs, an EcmCell struct a cell) connected in series and driven by a drive
//    cycle's current profile held in __constant__, a thread a cell: a sequential loop of
//    coulomb counting, the RC pairs' exact discrete updates and the terminal voltage from
//    the open-circuit voltage table (linear interpolation in global memory); the state of
//    charge at the end, the lowest voltage and the energy delivered;
//  - pack_voltage_stats: BMS logs of a fleet's packs, each snapshot the 96 series groups'
//    voltages (uint16 millivolts), a warp a snapshot: min (with the weakest group's index),
//    max and mean by __shfl_down_sync reductions;
//  - soh_histogram: a fleet's cells' state of health (measured capacity over the nominal
//    capacity of the cell's chemistry, held in __constant__) binned per chemistry, a
//    grid-stride loop into a shared-memory histogram by atomicAdd, merged into the global
//    one by an atomicAdd a non-empty bin.

#define PD_NR 24              // particle_diffusion: shells a particle
#define CELL_NEG 43           // a cell's P2-D mesh: nodes in the negative electrode,
#define CELL_SEP 6            // the separator
#define CELL_POS 38           // and the positive electrode (2 um apart)
#define CELL_NX (CELL_NEG + CELL_SEP + CELL_POS)
#define BV_F 96485.33f        // Faraday's constant (C/mol)
#define BV_R 8.314462f        // the gas constant (J/mol/K)
#define BV_TREF 298.15f
#define BV_NEG_K 6.48e-7f     // graphite: reaction rate (A/m^2 (m^3/mol)^1.5), activation energy / R (K),
#define BV_NEG_EA 4209.5f     // the maximum concentration (mol/m^3)
#define BV_NEG_CMAX 33133.0f
#define BV_POS_K 3.42e-6f     // NMC811
#define BV_POS_EA 2140.8f
#define BV_POS_CMAX 63104.0f
#define EC_MAXT 1800          // ecm_drive_cycle: the profile's length (s at 1 Hz)
#define EC_OCV_N 101          // points of the OCV table (state of charge 0, 0.01, .., 1)
#define PK_CELLS 96           // pack_voltage_stats: series groups a pack
#define SH_CHEM 4             // soh_histogram: chemistries
#define SH_BINS 128           // bins a chemistry

// electrolyte_diffusion's porosities of the negative electrode, separator, positive electrode
__constant__ float c_eps[3];
// ecm_drive_cycle's drive-cycle current (A, positive discharging), one value a second
__constant__ float c_current[EC_MAXT];
// soh_histogram's nominal capacities (Ah) of the chemistries
__constant__ float c_qnom[SH_CHEM];

struct EcmCell {
    float q_ah;               // capacity (Ah)
    float r0;                 // series resistance (ohm)
    float r1, tau1;           // the fast RC pair: resistance (ohm), time constant (s)
    float r2, tau2;           // the slow one
    float soc0;               // initial state of charge
};

// x <- the solution of the tridiagonal system (lo, di, up) x = x of PD_NR rows (cp scratch)
__device__ void thomas(const double *lo, const double *di, const double *up, double *x, double *cp) {
    cp[0] = up[0] / di[0];
    x[0] = x[0] / di[0];
    for (int k = 1; k < PD_NR; k++) {
        double m = di[k] - lo[k] * cp[k - 1];
        cp[k] = up[k] / m;
        x[k] = (x[k] - lo[k] * x[k - 1]) / m;
    }
    for (int k = PD_NR - 2; k >= 0; k--) x[k] -= cp[k] * x[k + 1];
}

// the open-circuit potential (V) of graphite at stoichiometry x (Chen et al. 2020)
__device__ float ocp_graphite(float x) {
    return 1.9793f * expf(-39.3631f * x) + 0.2482f - 0.0909f * tanhf(29.8538f * (x - 0.1234f)) -
           0.04478f * tanhf(14.9159f * (x - 0.2769f)) - 0.0205f * tanhf(30.4444f * (x - 0.6103f));
}

// the open-circuit potential (V) of NMC811 at stoichiometry y (Chen et al. 2020)
__device__ float ocp_nmc811(float y) {
    return -0.8090f * y + 4.4875f - 0.0428f * tanhf(18.5138f * (y - 0.5542f)) -
           17.7326f * tanhf(15.7890f * (y - 0.3117f)) + 17.5842f * tanhf(15.9308f * (y - 0.3120f));
}

extern "C" {

// steps backward-Euler steps (dt s) of n particles: c[p * PD_NR + k] the concentration
// (mol/m^3) of shell k (radii k R / PD_NR .. (k + 1) R / PD_NR) of particle p, of radius R[p]
// (m) and diffusivity D[p] (m^2/s), j[p] the flux out of its surface (mol/m^2/s); cs[p] the
// surface concentration after
__global__ void particle_diffusion(double *c, double *cs, const double *R, const double *D, const double *j,
                                   double dt, int steps, int n) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    double lo[PD_NR], di[PD_NR], up[PD_NR], cp[PD_NR], x[PD_NR];
    double dr = R[p] / PD_NR;
    double lam = D[p] * dt / (dr * dr);
    for (int k = 0; k < PD_NR; k++) {
        double v = ((k + 1.0) * (k + 1.0) * (k + 1.0) - (double)k * k * k) / 3.0;   // shell volume / (4 pi dr^3)
        lo[k] = -lam * k * k / v;
        up[k] = k < PD_NR - 1 ? -lam * (k + 1.0) * (k + 1.0) / v : 0.0;
        di[k] = 1.0 - lo[k] - up[k];
        x[k] = c[p * PD_NR + k];
    }
    double vout = ((double)PD_NR * PD_NR * PD_NR - (PD_NR - 1.0) * (PD_NR - 1.0) * (PD_NR - 1.0)) / 3.0;
    double g = dt * j[p] * PD_NR * PD_NR / (vout * dr);          // the outer shell's loss a step
    for (int t = 0; t < steps; t++) {
        x[PD_NR - 1] -= g;
        thomas(lo, di, up, x, cp);
    }
    for (int k = 0; k < PD_NR; k++) c[p * PD_NR + k] = x[k];
    cs[p] = x[PD_NR - 1] - j[p] * dr / (2.0 * D[p]);
}

// n nodes (CELL_NX a cell: graphite, separator, NMC811): electrolyte concentration ce and
// particle surface concentration cs (mol/m^3), temperature T (K), reaction current density
// i (A/m^2, anodic positive) -> overpotential eta and open-circuit potential ocp (V), both 0
// in the separator
__global__ void butler_volmer(const float *ce, const float *cs, const float *T, const float *i_loc, float *eta,
                              float *ocp, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int k = i % CELL_NX;
    if (k >= CELL_NEG && k < CELL_NEG + CELL_SEP) {       // the separator: no reaction
        eta[i] = 0.0f;
        ocp[i] = 0.0f;
        return;
    }
    float t = T[i];
    float c = cs[i];
    float kr, u, cmax;
    if (k < CELL_NEG) {
        cmax = BV_NEG_CMAX;
        u = ocp_graphite(c / cmax);
        kr = BV_NEG_K * expf(BV_NEG_EA * (1.0f / BV_TREF - 1.0f / t));
    } else {
        cmax = BV_POS_CMAX;
        u = ocp_nmc811(c / cmax);
        kr = BV_POS_K * expf(BV_POS_EA * (1.0f / BV_TREF - 1.0f / t));
    }
    float i0 = kr * sqrtf(ce[i] * c * (cmax - c));
    eta[i] = 2.0f * BV_R * t / BV_F * asinhf(i_loc[i] / (2.0f * i0));
    ocp[i] = u;
}

// substeps explicit Euler steps (dt s) of the electrolyte concentration ce (mol/m^3) of cell
// blockIdx.x (CELL_NX nodes dx m apart from ce[blockIdx.x * CELL_NX]), diffusivity De
// (m^2/s) times porosity^1.5, src the reactions' source (mol/m^3/s); blockDim.x >= CELL_NX
__global__ void electrolyte_diffusion(float *ce, const float *src, float De, float dx, float dt, int substeps) {
    __shared__ float c[2][CELL_NX];
    int k = threadIdx.x;
    int base = blockIdx.x * CELL_NX;
    float a = 0.0f, b = 0.0f, dl = 0.0f, dr = 0.0f;
    int kl = k, kr = k;
    if (k < CELL_NX) {
        int reg = k < CELL_NEG ? 0 : (k < CELL_NEG + CELL_SEP ? 1 : 2);
        float eps = c_eps[reg];
        float dk = De * eps * sqrtf(eps);                   // Bruggeman
        if (k > 0) {
            float e = c_eps[k - 1 < CELL_NEG ? 0 : (k - 1 < CELL_NEG + CELL_SEP ? 1 : 2)];
            float dn = De * e * sqrtf(e);
            dl = 2.0f * dk * dn / (dk + dn);
            kl = k - 1;
        }
        if (k < CELL_NX - 1) {
            float e = c_eps[k + 1 < CELL_NEG ? 0 : (k + 1 < CELL_NEG + CELL_SEP ? 1 : 2)];
            float dn = De * e * sqrtf(e);
            dr = 2.0f * dk * dn / (dk + dn);
            kr = k + 1;
        }
        a = dt / (eps * dx * dx);
        b = dt * src[base + k] / eps;
        c[0][k] = ce[base + k];
    }
    __syncthreads();
    int cur = 0;
    for (int s = 0; s < substeps; s++) {
        if (k < CELL_NX) {
            float ck = c[cur][k];
            c[1 - cur][k] = ck + a * (dr * (c[cur][kr] - ck) - dl * (ck - c[cur][kl])) + b;
        }
        cur = 1 - cur;
        __syncthreads();
    }
    if (k < CELL_NX) ce[base + k] = c[cur][k];
}

// n cells in series carrying c_current[0 .. steps - 1] (dt s apart), the open-circuit voltage
// ocv[EC_OCV_N] at states of charge 0, 1 / (EC_OCV_N - 1), .., 1: the state of charge after,
// the lowest terminal voltage (V) and the energy delivered (Wh)
__global__ void ecm_drive_cycle(const EcmCell *cells, const float *ocv, float *soc_out, float *vmin_out,
                                float *wh_out, float dt, int steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    EcmCell cell = cells[i];
    float a1 = expf(-dt / cell.tau1);
    float a2 = expf(-dt / cell.tau2);
    float b1 = cell.r1 * (1.0f - a1);
    float b2 = cell.r2 * (1.0f - a2);
    float dsoc = dt / (3600.0f * cell.q_ah);
    float soc = cell.soc0;
    float v1 = 0.0f, v2 = 0.0f, vmin = FLT_MAX, e = 0.0f;
    for (int t = 0; t < steps; t++) {
        float I = c_current[t];
        soc -= I * dsoc;
        v1 = a1 * v1 + b1 * I;
        v2 = a2 * v2 + b2 * I;
        float s = fminf(fmaxf(soc, 0.0f), 1.0f) * (EC_OCV_N - 1);
        int q = min((int)s, EC_OCV_N - 2);
        float f = s - q;
        float u = ocv[q] + f * (ocv[q + 1] - ocv[q]);
        float v = u - v1 - v2 - cell.r0 * I;
        vmin = fminf(vmin, v);
        e += v * I;
    }
    soc_out[i] = soc;
    vmin_out[i] = vmin;
    wh_out[i] = e * dt / 3600.0f;
}

// n BMS snapshots, mv[s * PK_CELLS + g] the voltage (mV) of series group g: vmin (with the
// lowest group of that voltage, weakest), vmax and the mean; a warp a snapshot
__global__ void pack_voltage_stats(const unsigned short *mv, int *vmin, int *vmax, float *vmean, int *weakest,
                                   int n) {
    int lane = threadIdx.x & 31;
    int s = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (s >= n) return;                                   // the whole warp
    const unsigned short *p = mv + (size_t)s * PK_CELLS;
    int lo = INT_MAX, hi = 0, sum = 0, arg = 0;
    for (int g = lane; g < PK_CELLS; g += 32) {
        int v = p[g];
        if (v < lo) {
            lo = v;
            arg = g;
        }
        hi = max(hi, v);
        sum += v;
    }
    for (int o = 16; o > 0; o >>= 1) {
        int lo2 = __shfl_down_sync(0xffffffff, lo, o);
        int arg2 = __shfl_down_sync(0xffffffff, arg, o);
        hi = max(hi, __shfl_down_sync(0xffffffff, hi, o));
        sum += __shfl_down_sync(0xffffffff, sum, o);
        if (lo2 < lo || (lo2 == lo && arg2 < arg)) {
            lo = lo2;
            arg = arg2;
        }
    }
    if (lane == 0) {
        vmin[s] = lo;
        vmax[s] = hi;
        vmean[s] = (float)sum / PK_CELLS;
        weakest[s] = arg;
    }
}

// n cells: measured capacity q (Ah) and chemistry chem -> hist[chem * SH_BINS + b] += 1 for b
// the bin of q / c_qnom[chem] in SH_BINS bins of width 1 / inv_w from lo (the outside values
// in the end bins)
__global__ void soh_histogram(const float *q, const unsigned char *chem, unsigned int *hist, float lo, float inv_w,
                              int n) {
    __shared__ unsigned int h[SH_CHEM * SH_BINS];
    for (int b = threadIdx.x; b < SH_CHEM * SH_BINS; b += blockDim.x) h[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int c = chem[i];
        float soh = q[i] / c_qnom[c];
        int b = (int)((soh - lo) * inv_w);
        b = min(max(b, 0), SH_BINS - 1);
        atomicAdd(&h[c * SH_BINS + b], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < SH_CHEM * SH_BINS; b += blockDim.x)
        if (h[b] > 0) atomicAdd(&hist[b], h[b]);
}

}
