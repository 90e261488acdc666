// probe-unseen218: a computational MHD / astrophysical gas-dynamics course's CUDA
// assignments, as a student who knows CUDA basics hands them in:
//  - euler2d_muscl_hll: one forward-Euler stage of a second-order finite-volume scheme
//    for the 2D Euler equations (a Kelvin-Helmholtz problem), a thread a cell: the 5-cell
//    stencils along x and y converted to primitive variables in per-thread local arrays,
//    minmod-limited (MUSCL) slopes, the states either side of the cell's 4 faces and their
//    HLL fluxes (Davis's wave speeds) computed by the thread itself (each face twice over
//    the grid), periodic boundaries;
//  - mhd_cfl_dt: the CFL time step of an ideal-MHD code (a snapshot of supersonic,
//    magnetised turbulence in 32-byte cell structs): each cell's fast magnetosonic speeds
//    along x and y, the largest signal rate (|v| + c_f) / dx summed over the directions by
//    a block-uniform grid-stride loop, a warp shuffle reduction, the warps' maxima in shared
//    memory and one atomicMax on the float's bits a block; the cells with plasma beta
//    under a threshold counted by __ballot_sync and __popc;
//  - ct_update: the constrained-transport update of the face-centred magnetic field in
//    double precision (an Orszag-Tang vortex with turbulent perturbations): the
//    cell-centred electric field E_z = -(v x B)_z of an 18 x 18 tile (one cell of halo) in
//    shared memory, __syncthreads, the corner fields (arithmetic averages of the 4 cells)
//    of a 17 x 17 tile, __syncthreads, then each face's B_x and B_y updated by the curl;
//  - divb_check: the divergence of B of each cell from its face fields (float, after an
//    AMR step whose prolongation broke it near some patches' edges), relative to |B| / dx:
//    binned by its binary exponent (the float's bits) into a shared histogram by shared
//    int atomics, the |div B| summed by a shared float atomic, the largest by atomicMax on
//    the bits; flagged cells in a byte array; flushed by global atomics;
//  - roe_flux: Roe's approximate Riemann solver in double for a batch of 1D Euler shock
//    tubes (exact solutions of Toro's five tests, randomly scaled), a thread an interface
//    reading the two cells' primitive structs: Roe averages, wave strengths, Harten's
//    entropy fix on the acoustic waves (a divergent branch), the flux struct stored;
//  - cool_subcycle: optically thin radiative cooling and photoelectric heating of a
//    multiphase ISM, a thread a cell: the cooling function log10 Lambda(T) interpolated in
//    a __constant__ table, sub-steps of at most 10% of the cooling time until the hydro
//    step is covered (a divergent loop of 1 to CL_MAXSUB turns); the new temperature, the
//    sub-steps taken (16-bit) and the thermal phase (8-bit) stored, the phases counted by
//    shared and global int atomics.

#define NVAR 4                  // euler2d_muscl_hll: rho, rho u, rho v, E

#define CFL_WARPS 32            // mhd_cfl_dt: warps a block at most

#define CT_TILE 16              // ct_update: a block's tile of cells (CT_TILE x CT_TILE threads)

#define DB_BINS 64              // divb_check: bin 0 div B == 0, bin b: binary exponent b - DB_OFFSET
#define DB_OFFSET 64

#define LAM_N 161               // cool_subcycle: log10 Lambda at log10 T = 1.00, 1.05, .. 9.00
#define LAM_LOGT0 1.0f
#define LAM_DLOGT 0.05f
#define CL_MAXSUB 200           // sub-steps at most
#define CL_PHASES 4             // cold (< 300 K), warm (< 2e4 K), warm-hot (< 5e5 K), hot
#define CL_TFAC 2.0993e15f      // (gamma - 1) / (2.3 k_B): dT/dt of a unit (heating - n Lambda), K / s / (erg / s)

struct MhdCell {
    float rho;
    float vx, vy, vz;
    float p;
    float bx, by, bz;
};

struct Prim {
    double rho, u, p;
};

struct Flux {
    double mass, mom, ener;
};

// log10 of the cooling function (erg cm^3 / s) on LAM_N temperatures, set by the host
__constant__ float c_loglam[LAM_N];

// ---------------------------------------------------------------- euler2d_muscl_hll

__device__ float minmod(float a, float b) {
    if (a * b <= 0.0f) return 0.0f;
    if (fabsf(a) < fabsf(b)) return a;
    return b;
}

// the primitive state (rho, u, v, p) of cell idx
__device__ void load_prim(const float *rho, const float *mx, const float *my, const float *en, int idx, float gam,
                          float *w) {
    float r = rho[idx];
    float u = mx[idx] / r;
    float v = my[idx] / r;
    w[0] = r;
    w[1] = u;
    w[2] = v;
    w[3] = (gam - 1.0f) * (en[idx] - 0.5f * r * (u * u + v * v));
}

// the conserved state U and the flux F along dir (0: x, 1: y) of the primitive state w
__device__ void prim_flux(const float *w, int dir, float gam, float *U, float *F) {
    float r = w[0], u = w[1], v = w[2], p = w[3];
    float un = (dir == 0) ? u : v;
    U[0] = r;
    U[1] = r * u;
    U[2] = r * v;
    U[3] = p / (gam - 1.0f) + 0.5f * r * (u * u + v * v);
    F[0] = r * un;
    F[1] = U[1] * un;
    F[2] = U[2] * un;
    F[3] = (U[3] + p) * un;
    F[1 + dir] += p;
}

// the HLL flux between the primitive states wL and wR along dir, Davis's wave speeds
__device__ void hll_flux(const float *wL, const float *wR, int dir, float gam, float *F) {
    float UL[NVAR], UR[NVAR], FL[NVAR], FR[NVAR];
    prim_flux(wL, dir, gam, UL, FL);
    prim_flux(wR, dir, gam, UR, FR);
    float cL = sqrtf(gam * wL[3] / wL[0]);
    float cR = sqrtf(gam * wR[3] / wR[0]);
    float sL = fminf(wL[1 + dir] - cL, wR[1 + dir] - cR);
    float sR = fmaxf(wL[1 + dir] + cL, wR[1 + dir] + cR);
    for (int k = 0; k < NVAR; k++) {
        if (sL >= 0.0f) {
            F[k] = FL[k];
        } else if (sR <= 0.0f) {
            F[k] = FR[k];
        } else {
            F[k] = (sR * FL[k] - sL * FR[k] + sL * sR * (UR[k] - UL[k])) / (sR - sL);
        }
    }
}

extern "C" {

// nx x ny cells (row-major, x fastest), periodic; the new conserved state after one
// forward-Euler step of dt (dtdx = dt / dx, dtdy = dt / dy)
__global__ void euler2d_muscl_hll(const float *rho, const float *mx, const float *my, const float *en,
                                  float *rho_new, float *mx_new, float *my_new, float *en_new, int nx, int ny,
                                  float gam, float dtdx, float dtdy) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    float dU[NVAR];
    for (int k = 0; k < NVAR; k++) dU[k] = 0.0f;
    for (int dir = 0; dir < 2; dir++) {
        // cells i - 2 .. i + 2 (or j - 2 .. j + 2)
        float w[5][NVAR];
        for (int s = 0; s < 5; s++) {
            int ii = i, jj = j;
            if (dir == 0) ii = (i + s - 2 + nx) % nx;
            else jj = (j + s - 2 + ny) % ny;
            load_prim(rho, mx, my, en, jj * nx + ii, gam, w[s]);
        }
        // limited slopes of cells 1, 2, 3 of the stencil
        float dw[3][NVAR];
        for (int s = 1; s <= 3; s++)
            for (int k = 0; k < NVAR; k++) dw[s - 1][k] = minmod(w[s][k] - w[s - 1][k], w[s + 1][k] - w[s][k]);
        float wL[NVAR], wR[NVAR], Fm[NVAR], Fp[NVAR];
        // the face behind the cell
        for (int k = 0; k < NVAR; k++) {
            wL[k] = w[1][k] + 0.5f * dw[0][k];
            wR[k] = w[2][k] - 0.5f * dw[1][k];
        }
        hll_flux(wL, wR, dir, gam, Fm);
        // the face ahead of it
        for (int k = 0; k < NVAR; k++) {
            wL[k] = w[2][k] + 0.5f * dw[1][k];
            wR[k] = w[3][k] - 0.5f * dw[2][k];
        }
        hll_flux(wL, wR, dir, gam, Fp);
        float c = (dir == 0) ? dtdx : dtdy;
        for (int k = 0; k < NVAR; k++) dU[k] -= c * (Fp[k] - Fm[k]);
    }
    int idx = j * nx + i;
    rho_new[idx] = rho[idx] + dU[0];
    mx_new[idx] = mx[idx] + dU[1];
    my_new[idx] = my[idx] + dU[2];
    en_new[idx] = en[idx] + dU[3];
}

}

// ---------------------------------------------------------------- mhd_cfl_dt

// the fast magnetosonic speed from a^2 (sound), b^2 = B^2 / rho and bn^2 = B_n^2 / rho
__device__ float fast_speed(float a2, float b2, float bn2) {
    float s = a2 + b2;
    float d = s * s - 4.0f * a2 * bn2;
    return sqrtf(0.5f * (s + sqrtf(fmaxf(d, 0.0f))));
}

extern "C" {

// n cells (dx = 1 / inv_dx, dy = 1 / inv_dy); *max_rate_bits = max over the cells of the
// bits of (|vx| + cfx) inv_dx + (|vy| + cfy) inv_dy (dt = CFL / that), *n_low_beta += the
// cells with 2 p / B^2 < beta_low
__global__ void mhd_cfl_dt(const MhdCell *cell, int n, float gam, float inv_dx, float inv_dy, float beta_low,
                           int *max_rate_bits, int *n_low_beta) {
    __shared__ float s_max[CFL_WARPS];
    __shared__ int s_low;
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    if (threadIdx.x == 0) s_low = 0;
    __syncthreads();
    float my_max = 0.0f;
    int my_low = 0;
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        int i = base + threadIdx.x;
        bool low = false;
        if (i < n) {
            MhdCell c = cell[i];
            float a2 = gam * c.p / c.rho;
            float B2 = c.bx * c.bx + c.by * c.by + c.bz * c.bz;
            float b2 = B2 / c.rho;
            float cfx = fast_speed(a2, b2, c.bx * c.bx / c.rho);
            float cfy = fast_speed(a2, b2, c.by * c.by / c.rho);
            float rate = (fabsf(c.vx) + cfx) * inv_dx + (fabsf(c.vy) + cfy) * inv_dy;
            my_max = fmaxf(my_max, rate);
            low = 2.0f * c.p < beta_low * B2;
        }
        unsigned int m = __ballot_sync(0xffffffff, low);
        if (lane == 0) my_low += __popc(m);
    }
    for (int o = 16; o > 0; o /= 2) my_max = fmaxf(my_max, __shfl_xor_sync(0xffffffff, my_max, o));
    if (lane == 0) {
        s_max[warp] = my_max;
        atomicAdd(&s_low, my_low);
    }
    __syncthreads();
    if (warp == 0) {
        float v = (lane < blockDim.x / 32) ? s_max[lane] : 0.0f;
        for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
        if (lane == 0) {
            atomicMax(max_rate_bits, __float_as_int(v));     // rates >= 0: the bits order as the floats
            atomicAdd(n_low_beta, s_low);
        }
    }
}

// ---------------------------------------------------------------- ct_update

// an n x n periodic grid (x fastest): cell-centred vx, vy, bxc, byc; bxf[j][i] = B_x at the
// face x_{i-1/2}, byf[j][i] = B_y at y_{j-1/2}, advanced by dt (dtdx = dt / dx, dtdy = dt / dy):
// B_x -= dt dE_z/dy, B_y += dt dE_z/dx, E_z at the corners the average of the 4 cells'
__global__ void ct_update(const double *vx, const double *vy, const double *bxc, const double *byc, double *bxf,
                          double *byf, int n, double dtdx, double dtdy) {
    __shared__ double s_ez[CT_TILE + 2][CT_TILE + 2];      // cells i0 - 1 .. i0 + CT_TILE
    __shared__ double s_ec[CT_TILE + 1][CT_TILE + 1];      // corners i0 - 1/2 .. i0 + CT_TILE - 1/2
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * CT_TILE + tx;
    int i0 = blockIdx.x * CT_TILE, j0 = blockIdx.y * CT_TILE;
    for (int k = t; k < (CT_TILE + 2) * (CT_TILE + 2); k += CT_TILE * CT_TILE) {
        int a = k % (CT_TILE + 2), b = k / (CT_TILE + 2);
        int gi = (i0 + a - 1 + n) % n;
        int gj = (j0 + b - 1 + n) % n;
        int g = gj * n + gi;
        s_ez[b][a] = vy[g] * bxc[g] - vx[g] * byc[g];
    }
    __syncthreads();
    for (int k = t; k < (CT_TILE + 1) * (CT_TILE + 1); k += CT_TILE * CT_TILE) {
        int a = k % (CT_TILE + 1), b = k / (CT_TILE + 1);
        s_ec[b][a] = 0.25 * (s_ez[b][a] + s_ez[b][a + 1] + s_ez[b + 1][a] + s_ez[b + 1][a + 1]);
    }
    __syncthreads();
    int i = i0 + tx, j = j0 + ty;
    if (i < n && j < n) {
        int g = j * n + i;
        // B_x at (i - 1/2, j): corners (i - 1/2, j + 1/2) and (i - 1/2, j - 1/2)
        bxf[g] = bxf[g] - dtdy * (s_ec[ty + 1][tx] - s_ec[ty][tx]);
        // B_y at (i, j - 1/2): corners (i + 1/2, j - 1/2) and (i - 1/2, j - 1/2)
        byf[g] = byf[g] + dtdx * (s_ec[ty][tx + 1] - s_ec[ty][tx]);
    }
}

// ---------------------------------------------------------------- divb_check

// nx x ny periodic cells, bx[j][i] = B_x at x_{i-1/2}, by[j][i] = B_y at y_{j-1/2}; each
// cell's rel = |div B| dx / |B| (B the face averages): flag[c] = rel > tol,
// hist[b] += the cells of binary exponent b - DB_OFFSET (bin 0: rel == 0, clamped to 1 ..
// DB_BINS - 1), *sum_abs += |div B|, *max_bits = max of rel's bits
__global__ void divb_check(const float *bx, const float *by, int nx, int ny, float inv_dx, float inv_dy, float dx,
                           float tol, unsigned char *flag, int *hist, float *sum_abs, int *max_bits) {
    __shared__ int s_hist[DB_BINS];
    __shared__ float s_sum;
    __shared__ int s_max;
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    for (int k = t; k < DB_BINS; k += blockDim.x * blockDim.y) s_hist[k] = 0;
    if (t == 0) {
        s_sum = 0.0f;
        s_max = 0;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < nx && j < ny) {
        int ip = (i + 1 == nx) ? 0 : i + 1;
        int jp = (j + 1 == ny) ? 0 : j + 1;
        float bxl = bx[j * nx + i], bxr = bx[j * nx + ip];
        float byl = by[j * nx + i], byr = by[jp * nx + i];
        float divb = (bxr - bxl) * inv_dx + (byr - byl) * inv_dy;
        float bcx = 0.5f * (bxl + bxr);
        float bcy = 0.5f * (byl + byr);
        float bmag = sqrtf(bcx * bcx + bcy * bcy);
        float rel = fabsf(divb) * dx / (bmag + 1e-30f);
        int b = 0;
        if (rel > 0.0f) {
            int e = ((__float_as_int(rel) >> 23) & 0xff) - 127;     // floor(log2(rel)) of a normal float
            b = min(max(e + DB_OFFSET, 1), DB_BINS - 1);
        }
        atomicAdd(&s_hist[b], 1);
        atomicAdd(&s_sum, fabsf(divb));
        atomicMax(&s_max, __float_as_int(rel));
        flag[j * nx + i] = (rel > tol) ? 1 : 0;
    }
    __syncthreads();
    for (int k = t; k < DB_BINS; k += blockDim.x * blockDim.y)
        if (s_hist[k] > 0) atomicAdd(&hist[k], s_hist[k]);
    if (t == 0) {
        atomicAdd(sum_abs, s_sum);
        atomicMax(max_bits, s_max);
    }
}

// ---------------------------------------------------------------- roe_flux

// ntube tubes of ncell cells, tube t's cells w[t * ncell ..]; f[t * (ncell + 1) + k] the
// Roe flux at the face before cell k (k = 0 and ncell: transmissive boundaries), Harten's
// entropy fix on the acoustic waves with delta = eps a~
__global__ void roe_flux(const Prim *w, Flux *f, int ncell, int ntube, double gam, double eps) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= ntube * (ncell + 1)) return;
    int t = g / (ncell + 1);
    int k = g % (ncell + 1);
    int kl = (k > 0) ? k - 1 : 0;
    int kr = (k < ncell) ? k : ncell - 1;
    Prim L = w[t * ncell + kl];
    Prim R = w[t * ncell + kr];
    double EL = L.p / (gam - 1.0) + 0.5 * L.rho * L.u * L.u;
    double ER = R.p / (gam - 1.0) + 0.5 * R.rho * R.u * R.u;
    double HL = (EL + L.p) / L.rho;
    double HR = (ER + R.p) / R.rho;
    // Roe averages
    double sl = sqrt(L.rho), sr = sqrt(R.rho);
    double rt = sl * sr;
    double ut = (sl * L.u + sr * R.u) / (sl + sr);
    double Ht = (sl * HL + sr * HR) / (sl + sr);
    double at = sqrt((gam - 1.0) * (Ht - 0.5 * ut * ut));
    // wave strengths
    double dr = R.rho - L.rho, du = R.u - L.u, dp = R.p - L.p;
    double a1 = (dp - rt * at * du) / (2.0 * at * at);
    double a2 = dr - dp / (at * at);
    double a3 = (dp + rt * at * du) / (2.0 * at * at);
    double l1 = fabs(ut - at), l2 = fabs(ut), l3 = fabs(ut + at);
    double delta = eps * at;
    if (l1 < delta) l1 = (l1 * l1 + delta * delta) / (2.0 * delta);
    if (l3 < delta) l3 = (l3 * l3 + delta * delta) / (2.0 * delta);
    Flux out;
    out.mass = 0.5 * (L.rho * L.u + R.rho * R.u) - 0.5 * (l1 * a1 + l2 * a2 + l3 * a3);
    out.mom = 0.5 * (L.rho * L.u * L.u + L.p + R.rho * R.u * R.u + R.p)
            - 0.5 * (l1 * a1 * (ut - at) + l2 * a2 * ut + l3 * a3 * (ut + at));
    out.ener = 0.5 * (L.u * (EL + L.p) + R.u * (ER + R.p))
             - 0.5 * (l1 * a1 * (Ht - ut * at) + l2 * a2 * 0.5 * ut * ut + l3 * a3 * (Ht + ut * at));
    f[t * (ncell + 1) + k] = out;
}

}

// ---------------------------------------------------------------- cool_subcycle

// dT/dt (K / s) of gas of hydrogen density nh (cm^-3) at T: heating heat (erg / s a
// hydrogen atom) less nh Lambda(T), Lambda interpolated linearly in log10 T in c_loglam
__device__ float cooling_rate(float T, float nh, float heat) {
    float x = (log10f(T) - LAM_LOGT0) / LAM_DLOGT;
    x = fminf(fmaxf(x, 0.0f), LAM_N - 1.001f);
    int k = (int)floorf(x);
    float f = x - k;
    float lg = c_loglam[k] + f * (c_loglam[k + 1] - c_loglam[k]);
    float lam = powf(10.0f, lg);
    return CL_TFAC * (heat - nh * lam);
}

extern "C" {

// n cells: nh (cm^-3), temp (K) advanced by dt seconds in sub-steps of at most 10% of the
// cooling time, at least tfloor; nsub the sub-steps taken, phase 0 .. 3 by the new T,
// phase_count[ph] += the cells of each phase
__global__ void cool_subcycle(const float *nh, float *temp, unsigned short *nsub, unsigned char *phase,
                              int *phase_count, int n, float dt, float heat, float tfloor) {
    __shared__ int s_count[CL_PHASES];
    if (threadIdx.x < CL_PHASES) s_count[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float n_h = nh[i];
        float T = temp[i];
        float t = 0.0f;
        int it = 0;
        while (t < dt && it < CL_MAXSUB) {
            float rate = cooling_rate(T, n_h, heat);
            float step = fminf(0.1f * T / fabsf(rate), dt - t);
            T = fmaxf(T + rate * step, tfloor);
            t = t + step;
            it++;
        }
        temp[i] = T;
        nsub[i] = (unsigned short)it;
        int ph;
        if (T < 300.0f) ph = 0;
        else if (T < 2.0e4f) ph = 1;
        else if (T < 5.0e5f) ph = 2;
        else ph = 3;
        phase[i] = (unsigned char)ph;
        atomicAdd(&s_count[ph], 1);
    }
    __syncthreads();
    if (threadIdx.x < CL_PHASES && s_count[threadIdx.x] > 0) atomicAdd(&phase_count[threadIdx.x], s_count[threadIdx.x]);
}

}
