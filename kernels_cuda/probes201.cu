// probe-unseen199: a cardiac electrophysiology (excitable media) course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - ap_monodomain: one explicit Euler step of the monodomain equation with Aliev-Panfilov
//    kinetics on a 2-D sheet of fibrotic tissue, 16 x 16 tiles (2-D blocks): u and the tissue
//    mask (a byte a cell: 1 myocyte, 0 fibroblast / collagen) staged in shared memory with a
//    one-cell halo loaded by the tile's edge threads, __syncthreads, the 5-point Laplacian with
//    no flux into non-tissue neighbours or out of the sheet, the cubic reaction term and the
//    recovery variable's update with its u-dependent rate;
//  - fk_reaction: the reaction half of an operator-split step of the Fenton-Karma three-
//    variable model, a thread a cell: the cell's region (a byte) selecting one of four
//    parameter sets (FKParams structs in __constant__ memory), the step subdivided into
//    1 .. FK_MAXSUB forward-Euler sub-steps by the cell's initial |du/dt| (many on the
//    upstroke, one at rest: a divergent loop), Heaviside switches on u and tanhf in the slow
//    inward current;
//  - lr1_step: Luo-Rudy I (1991) ventricular cells in double precision, a thread a cell (a
//    64-byte Cell struct of doubles, array of structs): several time steps of Rush-Larsen for
//    the six gates (their alphas and betas in per-thread arrays, h and j by the branch on
//    V >= -40 mV), the six currents (E_si from log(Ca_i), the K time-independent factor),
//    forward Euler for V and Ca_i, a stimulus on the pacing electrode's cells;
//  - egm_lat: local activation times of unipolar electrograms (a mapping catheter's 16-bit
//    samples), a warp an electrogram: each lane a sample of 32 at a time, the central
//    difference slope, the steepest downstroke and its sample kept (argmin by
//    __shfl_down_sync, the earliest on ties), the peak-to-peak voltage by shuffle min / max,
//    and the deflections (runs of samples steeper than a threshold) counted by __ballot_sync
//    bit tricks: a run's first sample is a set bit whose lower neighbour is clear;
//  - pseudo_ecg: the pseudo-ECG of a 2-D sheet's transmembrane potentials at electrodes above
//    it (positions in __constant__ memory), a thread a cell: grad Vm by central differences,
//    for each electrode grad Vm . r / |r|^3 (rsqrtf) added to the block's sums by shared float
//    atomicAdd (every lane on the same address), then one global atomicAdd a block and lead;
//  - cv_hist: conduction velocity from an activation-time map, a grid-stride loop over the
//    cells: grad T by central differences (cells not activated or next to one skipped),
//    1 / |grad T| clipped, stored, and counted in a 64-bin histogram by shared int atomicAdd,
//    merged into the global one by atomicAdd.

// ap_monodomain: Aliev-Panfilov constants (dimensionless units)
#define AP_TILE 16
#define AP_K 8.0f
#define AP_A 0.15f
#define AP_EPS0 0.002f
#define AP_MU1 0.2f
#define AP_MU2 0.3f

// fk_reaction
#define FK_REGIONS 4
#define FK_MAXSUB 32
#define FK_DU_MAX 0.005f     // the largest change of u a sub-step should make

// lr1_step
#define LR_GNA 23.0
#define LR_ENA 54.4
#define LR_GSI 0.09
#define LR_GK 0.282
#define LR_EK -77.0
#define LR_GK1 0.6047
#define LR_EK1 -87.26
#define LR_GKP 0.0183
#define LR_GB 0.03921
#define LR_EB -59.87
#define LR_STIM -50.0        // stimulus current (uA / cm^2)
#define LR_STIM_DUR 1.0      // ms

// pseudo_ecg
#define ECG_NE 8

// cv_hist
#define CV_BINS 64
#define CV_MAX 2.0f          // m/s (= mm/ms): the last bin takes everything faster

struct FKParams {
    float tau_vp, tau_v1m, tau_v2m;   // the fast gate v's time constants (ms)
    float tau_wp, tau_wm;             // the slow gate w's
    float tau_d, tau_o, tau_r, tau_si;
    float k, u_csi, u_c, u_v;
};

__constant__ FKParams c_fk[FK_REGIONS];

struct Cell {
    double V;                          // mV
    double m, h, j, d, f, X;           // gates
    double Cai;                        // mM
};

__constant__ float c_elec_x[ECG_NE];    // pseudo_ecg: electrode positions (mm)
__constant__ float c_elec_y[ECG_NE];
__constant__ float c_elec_z[ECG_NE];

extern "C" {

// nx x ny sheet (row-major), u, v the state, mask 1 for tissue; un, vn the next state;
// r = D dt / h^2
__global__ void ap_monodomain(const float *u, const float *v, const unsigned char *mask, float *un, float *vn,
                              float r, float dt, int nx, int ny) {
    __shared__ float su[AP_TILE + 2][AP_TILE + 2];
    __shared__ unsigned char sm[AP_TILE + 2][AP_TILE + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * AP_TILE + tx;
    int y = blockIdx.y * AP_TILE + ty;
    int in = x < nx && y < ny;
    int i = y * nx + x;
    su[ty + 1][tx + 1] = in ? u[i] : 0.0f;
    sm[ty + 1][tx + 1] = in ? mask[i] : 0;
    // halo: the edge threads load one more cell each (0 outside the sheet)
    if (tx == 0) {
        int ok = x - 1 >= 0 && y < ny;
        su[ty + 1][0] = ok ? u[i - 1] : 0.0f;
        sm[ty + 1][0] = ok ? mask[i - 1] : 0;
    }
    if (tx == AP_TILE - 1) {
        int ok = x + 1 < nx && y < ny;
        su[ty + 1][AP_TILE + 1] = ok ? u[i + 1] : 0.0f;
        sm[ty + 1][AP_TILE + 1] = ok ? mask[i + 1] : 0;
    }
    if (ty == 0) {
        int ok = y - 1 >= 0 && x < nx;
        su[0][tx + 1] = ok ? u[i - nx] : 0.0f;
        sm[0][tx + 1] = ok ? mask[i - nx] : 0;
    }
    if (ty == AP_TILE - 1) {
        int ok = y + 1 < ny && x < nx;
        su[AP_TILE + 1][tx + 1] = ok ? u[i + nx] : 0.0f;
        sm[AP_TILE + 1][tx + 1] = ok ? mask[i + nx] : 0;
    }
    __syncthreads();
    if (!in) return;
    float uc = su[ty + 1][tx + 1];
    float vc = v[i];
    if (!sm[ty + 1][tx + 1]) {          // not excitable: copied
        un[i] = uc;
        vn[i] = vc;
        return;
    }
    float lap = 0.0f;
    if (sm[ty + 1][tx]) lap += su[ty + 1][tx] - uc;
    if (sm[ty + 1][tx + 2]) lap += su[ty + 1][tx + 2] - uc;
    if (sm[ty][tx + 1]) lap += su[ty][tx + 1] - uc;
    if (sm[ty + 2][tx + 1]) lap += su[ty + 2][tx + 1] - uc;
    float ion = AP_K * uc * (uc - AP_A) * (uc - 1.0f) + uc * vc;
    float eps = AP_EPS0 + AP_MU1 * vc / (uc + AP_MU2);
    un[i] = uc + r * lap - dt * ion;
    vn[i] = vc + dt * eps * (-vc - AP_K * uc * (uc - AP_A - 1.0f));
}

// the Fenton-Karma rates of state (u, v, w) with parameters p
__device__ void fk_rates(const FKParams &p, float u, float v, float w, float *du, float *dv, float *dw) {
    float hc = u >= p.u_c ? 1.0f : 0.0f;
    float hv = u >= p.u_v ? 1.0f : 0.0f;
    float jfi = -v * hc * (1.0f - u) * (u - p.u_c) / p.tau_d;
    float jso = u * (1.0f - hc) / p.tau_o + hc / p.tau_r;
    float jsi = -w * (1.0f + tanhf(p.k * (u - p.u_csi))) / (2.0f * p.tau_si);
    float tvm = (1.0f - hv) * p.tau_v1m + hv * p.tau_v2m;
    *du = -(jfi + jso + jsi);
    *dv = (1.0f - hc) * (1.0f - v) / tvm - hc * v / p.tau_vp;
    *dw = (1.0f - hc) * (1.0f - w) / p.tau_wm - hc * w / p.tau_wp;
}

// n cells: u, v, w the Fenton-Karma state (updated in place), region[i] the parameter set;
// one step of dt ms in sub-steps enough for the upstroke
__global__ void fk_reaction(float *u, float *v, float *w, const unsigned char *region, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    FKParams p = c_fk[region[i]];
    float uu = u[i], vv = v[i], ww = w[i];
    float du, dv, dw;
    fk_rates(p, uu, vv, ww, &du, &dv, &dw);
    int nsub = 1 + (int)(fabsf(du) * dt / FK_DU_MAX);
    if (nsub > FK_MAXSUB) nsub = FK_MAXSUB;
    float h = dt / nsub;
    for (int s = 0; s < nsub; s++) {
        if (s > 0) fk_rates(p, uu, vv, ww, &du, &dv, &dw);
        uu += h * du;
        vv += h * dv;
        ww += h * dw;
    }
    u[i] = uu;
    v[i] = vv;
    w[i] = ww;
}

// n cells (an array of Cell structs), stim[i] 1 on the pacing electrode; nsteps steps of dt ms
// from time t (ms after the stimulus began)
__global__ void lr1_step(Cell *cells, const unsigned char *stim, double t, double dt, int nsteps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Cell c = cells[i];
    double y[6] = {c.m, c.h, c.j, c.d, c.f, c.X};
    double a[6], b[6];
    for (int s = 0; s < nsteps; s++) {
        double V = c.V;
        a[0] = 0.32 * (V + 47.13) / (1.0 - exp(-0.1 * (V + 47.13)));
        b[0] = 0.08 * exp(-V / 11.0);
        if (V >= -40.0) {
            a[1] = 0.0;
            b[1] = 1.0 / (0.13 * (1.0 + exp((V + 10.66) / -11.1)));
            a[2] = 0.0;
            b[2] = 0.3 * exp(-2.535e-7 * V) / (1.0 + exp(-0.1 * (V + 32.0)));
        } else {
            a[1] = 0.135 * exp((80.0 + V) / -6.8);
            b[1] = 3.56 * exp(0.079 * V) + 3.1e5 * exp(0.35 * V);
            a[2] = (-1.2714e5 * exp(0.2444 * V) - 3.474e-5 * exp(-0.04391 * V)) * (V + 37.78) /
                   (1.0 + exp(0.311 * (V + 79.23)));
            b[2] = 0.1212 * exp(-0.01052 * V) / (1.0 + exp(-0.1378 * (V + 40.14)));
        }
        a[3] = 0.095 * exp(-0.01 * (V - 5.0)) / (1.0 + exp(-0.072 * (V - 5.0)));
        b[3] = 0.07 * exp(-0.017 * (V + 44.0)) / (1.0 + exp(0.05 * (V + 44.0)));
        a[4] = 0.012 * exp(-0.008 * (V + 28.0)) / (1.0 + exp(0.15 * (V + 28.0)));
        b[4] = 0.0065 * exp(-0.02 * (V + 30.0)) / (1.0 + exp(-0.2 * (V + 30.0)));
        a[5] = 0.0005 * exp(0.083 * (V + 50.0)) / (1.0 + exp(0.057 * (V + 50.0)));
        b[5] = 0.0013 * exp(-0.06 * (V + 20.0)) / (1.0 + exp(-0.04 * (V + 20.0)));

        // the currents with the gates of the step's start
        double ina = LR_GNA * y[0] * y[0] * y[0] * y[1] * y[2] * (V - LR_ENA);
        double esi = 7.7 - 13.0287 * log(c.Cai);
        double isi = LR_GSI * y[3] * y[4] * (V - esi);
        double xi = 1.0;
        if (V > -100.0) xi = 2.837 * (exp(0.04 * (V + 77.0)) - 1.0) / ((V + 77.0) * exp(0.04 * (V + 35.0)));
        double ik = LR_GK * y[5] * xi * (V - LR_EK);
        double ak1 = 1.02 / (1.0 + exp(0.2385 * (V - LR_EK1 - 59.215)));
        double bk1 = (0.49124 * exp(0.08032 * (V - LR_EK1 + 5.476)) + exp(0.06175 * (V - LR_EK1 - 594.31))) /
                     (1.0 + exp(-0.5143 * (V - LR_EK1 + 4.753)));
        double ik1 = LR_GK1 * ak1 / (ak1 + bk1) * (V - LR_EK1);
        double kp = 1.0 / (1.0 + exp((7.488 - V) / 5.98));
        double ikp = LR_GKP * kp * (V - LR_EK1);
        double ib = LR_GB * (V - LR_EB);
        double ist = (stim[i] && t + s * dt < LR_STIM_DUR) ? LR_STIM : 0.0;

        for (int k = 0; k < 6; k++) {          // Rush-Larsen
            double tau = 1.0 / (a[k] + b[k]);
            double inf = a[k] * tau;
            y[k] = inf - (inf - y[k]) * exp(-dt / tau);
        }
        c.Cai += dt * (-1e-4 * isi + 0.07 * (1e-4 - c.Cai));
        c.V -= dt * (ina + isi + ik + ik1 + ikp + ib + ist);
    }
    c.m = y[0];
    c.h = y[1];
    c.j = y[2];
    c.d = y[3];
    c.f = y[4];
    c.X = y[5];
    cells[i] = c;
}

// n electrograms of nt samples (row-major, int16: 1 count = EGM microvolts), a warp each
// (blockDim.x a multiple of 32); lat[e] the sample of the steepest downstroke (-1 if no slope
// reaches -thr counts a sample), ndefl[e] the runs of samples steeper than -thr, pp[e] the
// peak-to-peak amplitude (counts)
__global__ void egm_lat(const short *egm, int *lat, int *ndefl, int *pp, int thr, int nt, int n) {
    int e = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (e >= n) return;
    const short *x = egm + (size_t)e * nt;
    int best = 1 << 30, bestt = nt;
    int lo = 32767, hi = -32768;
    int runs = 0;
    unsigned prev = 0;
    for (int t0 = 0; t0 < nt; t0 += 32) {
        int t = t0 + lane;
        int steep = 0;
        if (t < nt) {
            int xt = x[t];
            lo = min(lo, xt);
            hi = max(hi, xt);
            if (t >= 1 && t < nt - 1) {
                int d = x[t + 1] - x[t - 1];
                if (d < best) {
                    best = d;
                    bestt = t;
                }
                steep = d <= -2 * thr;
            }
        }
        unsigned bits = __ballot_sync(0xffffffff, steep);
        unsigned starts = bits & ~((bits << 1) | (prev >> 31));
        runs += __popc(starts);
        prev = bits;
    }
    for (int o = 16; o > 0; o >>= 1) {
        int ob = __shfl_down_sync(0xffffffff, best, o);
        int ot = __shfl_down_sync(0xffffffff, bestt, o);
        if (ob < best || (ob == best && ot < bestt)) {
            best = ob;
            bestt = ot;
        }
        lo = min(lo, __shfl_down_sync(0xffffffff, lo, o));
        hi = max(hi, __shfl_down_sync(0xffffffff, hi, o));
    }
    if (lane == 0) {
        lat[e] = best <= -2 * thr ? bestt : -1;
        ndefl[e] = runs;
        pp[e] = hi - lo;
    }
}

// nx x ny sheet of transmembrane potentials vm (mV, row-major, spacing h mm); phi[k] +=
// scale * the sum over the interior cells of grad Vm . r_k / |r_k|^3 (r_k from the cell to
// electrode k; blockDim.x == 256)
__global__ void pseudo_ecg(const float *vm, float *phi, float h, float scale, int nx, int ny) {
    __shared__ float s_phi[ECG_NE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < ECG_NE) s_phi[threadIdx.x] = 0.0f;
    __syncthreads();
    int x = i % nx;
    int y = i / nx;
    if (y < ny && x > 0 && x < nx - 1 && y > 0 && y < ny - 1) {
        float gx = (vm[i + 1] - vm[i - 1]) / (2.0f * h);
        float gy = (vm[i + nx] - vm[i - nx]) / (2.0f * h);
        float px = x * h;
        float py = y * h;
        for (int k = 0; k < ECG_NE; k++) {
            float rx = c_elec_x[k] - px;
            float ry = c_elec_y[k] - py;
            float rz = c_elec_z[k];
            float ir = rsqrtf(rx * rx + ry * ry + rz * rz);
            atomicAdd(&s_phi[k], (gx * rx + gy * ry) * ir * ir * ir);
        }
    }
    __syncthreads();
    if (threadIdx.x < ECG_NE) atomicAdd(&phi[threadIdx.x], scale * s_phi[threadIdx.x]);
}

// nx x ny activation-time map lat (ms, row-major, spacing h mm; < 0 where the cell was not
// activated); cv[i] the conduction velocity (m/s, -1 where not computed), hist[CV_BINS] +=
// the cells counted by CV_MAX / CV_BINS wide bins
__global__ void cv_hist(const float *lat, float *cv, int *hist, float h, int nx, int ny) {
    __shared__ int s_hist[CV_BINS];
    for (int k = threadIdx.x; k < CV_BINS; k += blockDim.x) s_hist[k] = 0;
    __syncthreads();
    int total = nx * ny;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        int x = i % nx;
        int y = i / nx;
        float c = -1.0f;
        if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1 && lat[i] >= 0.0f) {
            float l = lat[i - 1], r = lat[i + 1], d = lat[i - nx], u = lat[i + nx];
            if (l >= 0.0f && r >= 0.0f && d >= 0.0f && u >= 0.0f) {
                float gx = (r - l) / (2.0f * h);
                float gy = (u - d) / (2.0f * h);
                float g = sqrtf(gx * gx + gy * gy);
                c = g > 0.0f ? fminf(1.0f / g, CV_MAX) : CV_MAX;
                int bin = (int)floorf(c * (CV_BINS / CV_MAX));
                if (bin > CV_BINS - 1) bin = CV_BINS - 1;
                atomicAdd(&s_hist[bin], 1);
            }
        }
        cv[i] = c;
    }
    __syncthreads();
    for (int k = threadIdx.x; k < CV_BINS; k += blockDim.x)
        if (s_hist[k]) atomicAdd(&hist[k], s_hist[k]);
}

}
