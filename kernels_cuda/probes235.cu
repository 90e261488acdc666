// probe-unseen233: a kinetic-plasma course's CUDA assignments (semi-Lagrangian
// Vlasov-Poisson solvers on 1D1V phase space, Landau damping, two-stream and bump-on-tail
// instabilities, a PIC code to compare with), as a student who knows CUDA basics hands
// them in. The Vlasov kernels work on an ensemble of runs (a parameter sweep batched into
// one launch), f[run][v][x] with x fastest, NX x NV points a run, the runs' geometry in a
// __constant__ table of RunParam structs:
//  - vl_advect_x_lag5: the free-streaming half of a Strang-split step, f*(x, v) =
//    f(x - v dt, v), a block a (run, v) row: the row read as float4 into shared memory,
//    the row's shift v dt / dx split into whole cells and a fraction, the 6-point
//    (degree-5) Lagrange weights by a templated helper with #pragma unroll, 4 points a
//    thread interpolated from shared memory (x periodic by a power-of-two mask) and
//    stored as a float4;
//  - vl_advect_v_spline: the acceleration half, f*(x, v) = f(x, v + E(x) dt) for
//    electrons, by cubic B-splines, a thread an (run, x) column walking its NV points:
//    the spline's coefficients by the Thomas algorithm (the constant matrix's
//    elimination factors from a __constant__ table; the forward sweep into a global
//    scratch array, then the backward sweep over it), then the B-spline evaluated at
//    the column's shifted points (4 gathered coefficients each, zero past the v-grid);
//  - vl_moments_diag: the velocity moments and the conservation diagnostics of every
//    run, a block of 32 x 8 a run's 32 x-columns: a column's v-points split over the 8
//    warps (coalesced rows), the moments n, j, 2K, Q summed in float and combined through
//    a shared float4 tile; the run's kinetic energy, L2 norm and entropy (logf of the
//    positive f: divergent) in double by __shfl_down_sync and one double atomicAdd a
//    warp each; the negative f values (the splines' undershoots) counted by
//    __ballot_sync / __popc and an int atomicAdd;
//  - pic_deposit_tsc: the PIC code's charge and current deposition, quadratic (TSC)
//    B-spline shapes onto a periodic 1-D grid, a grid-stride loop over 12-byte particle
//    structs (a 16-bit cell, an 8-bit species, a float offset and velocity): the charge
//    times weight of the species from a __constant__ table, the nearest node by a branch
//    on the offset, 6 contended shared float atomicAdd into a block's private copy of
//    both grids, flushed by global atomicAdd;
//  - vl_poisson_fourier: the Poisson solve of every run by a truncated Fourier series, a
//    block a run: rho = 1 - n from the moments' float4 into shared memory, each warp
//    some of the NMODE lowest modes (a direct DFT: sincosf of the reduced angle, sums
//    by __shfl_down_sync), E_hat = rho_hat / (i k) into shared memory, __syncthreads,
//    then each thread E at its points as the modes' sum (sincosf again), the mode
//    amplitudes for the damping-rate fits, and the field energy by shuffles and a
//    shared partial a warp;
//  - vl_advect_2d_bicubic: an unsplit (2-D characteristics) semi-Lagrangian step in
//    double, a thread a phase-space point: the departure point by a midpoint backtrack
//    (E linearly interpolated at the half-step position), then f at it by bicubic (4 x 4)
//    Lagrange interpolation (the same templated weights, in double), 16 gathered loads,
//    x periodic by a mask, zero past the v-grid.

#define PI_F 3.14159265358979f
#define FULL_MASK 0xffffffffu

#define NX 512                  // x points a run (a power of two)
#define NV 512                  // v points a run
#define MAX_RUN 1024            // runs in the __constant__ table

#define MOM_TY 8                // vl_moments_diag: warps a block (blockDim = 32 x MOM_TY)
#define NXP 2048                // pic_deposit_tsc: grid nodes (a power of two)
#define NMODE 64                // vl_poisson_fourier: the modes kept
#define PS_THREADS 256          // vl_poisson_fourier: threads a block

// a run's geometry (set by the host): the box's fundamental wavenumber 2 pi / L, its
// length, the cell dx = L / NX and 1 / dx
struct RunParam {
    float k;
    float L;
    float dx;
    float inv_dx;
};

// pic_deposit_tsc: a particle, its position as a cell and the offset in it (in cells)
struct PicParticle {
    short cell;
    unsigned char species;
    unsigned char pad;
    float dx;
    float v;
};

__constant__ RunParam c_run[MAX_RUN];

// vl_advect_v_spline: the Thomas algorithm's factors of tridiag(1, 4, 1) of size NV:
// c_cp[0] = 1/4, c_cp[j] = 1 / (4 - c_cp[j - 1])
__constant__ float c_cp[NV];

// pic_deposit_tsc: charge times macro-particle weight over the cell, by species
__constant__ float c_qw[4];

// Lagrange weights of NP equally spaced nodes at -(NP/2 - 1) .. NP/2 for a point a in [0, 1)
template <typename T, int NP>
__device__ void lagrange_weights(T a, T *w) {
#pragma unroll
    for (int m = 0; m < NP; m++) {
        T num = (T)1;
        T den = (T)1;
#pragma unroll
        for (int q = 0; q < NP; q++) {
            if (q != m) {
                num *= a - (T)(q - (NP / 2 - 1));
                den *= (T)(m - q);
            }
        }
        w[m] = num / den;
    }
}

extern "C" {

// ---------------------------------------------------------------- vl_advect_x_lag5

// f, fout: nrun runs of NV x NX floats (as float4); grid (NV, nrun), blockDim NX / 4;
// v_j = vmin + j dv; fout(x_i, v_j) = f(x_i - v_j dt, v_j), x periodic
__global__ void vl_advect_x_lag5(const float4 *f, float4 *fout, float vmin, float dv, float dt) {
    __shared__ float row[NX];
    int j = blockIdx.x, r = blockIdx.y;
    int t = threadIdx.x;
    int off = (r * NV + j) * (NX / 4);
    float4 q = f[off + t];
    row[4 * t] = q.x;
    row[4 * t + 1] = q.y;
    row[4 * t + 2] = q.z;
    row[4 * t + 3] = q.w;
    __syncthreads();
    float v = vmin + (float)j * dv;
    float s = v * dt * c_run[r].inv_dx;         // the shift, in cells
    float fl = floorf(-s);
    int sh = (int)fl;
    float a = -s - fl;                          // the departure point: i + sh + a
    float w[6];
    lagrange_weights<float, 6>(a, w);
    float o[4];
#pragma unroll
    for (int c = 0; c < 4; c++) {
        int i = 4 * t + c + sh;
        float acc = 0.0f;
#pragma unroll
        for (int b = 0; b < 6; b++) acc += w[b] * row[(i + b - 2) & (NX - 1)];
        o[c] = acc;
    }
    fout[off + t] = make_float4(o[0], o[1], o[2], o[3]);
}

// ---------------------------------------------------------------- vl_advect_v_spline

// f, coef (scratch), fout: nrun runs of NV x NX floats; E: nrun x NX; a thread a column;
// fout(x, v_j) = the cubic B-spline interpolant of f(x, .) at v_j + E(x) dt (the spline's
// coefficients zero past the grid's ends)
__global__ void vl_advect_v_spline(const float *f, float *coef, float *fout, const float *E, int nrun,
                                   float dt, float inv_dv) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nrun * NX) return;
    int r = g / NX, i = g % NX;
    int base = r * NV * NX + i;
    // c[j-1] + 4 c[j] + c[j+1] = 6 f[j]: the forward sweep
    float d = 6.0f * f[base] * c_cp[0];
    coef[base] = d;
    for (int j = 1; j < NV; j++) {
        d = (6.0f * f[base + j * NX] - d) * c_cp[j];
        coef[base + j * NX] = d;
    }
    // the backward sweep
    float c = d;
    for (int j = NV - 2; j >= 0; j--) {
        c = coef[base + j * NX] - c_cp[j] * c;
        coef[base + j * NX] = c;
    }
    // the departure points v_j + E dt: j + s in grid units, the same fraction for the column
    float s = E[r * NX + i] * dt * inv_dv;
    float fl = floorf(s);
    int sh = (int)fl;
    float t = s - fl;
    float t2 = t * t, t3 = t2 * t;
    float w[4];
    w[0] = (1.0f - t) * (1.0f - t) * (1.0f - t) / 6.0f;
    w[1] = (3.0f * t3 - 6.0f * t2 + 4.0f) / 6.0f;
    w[2] = (-3.0f * t3 + 3.0f * t2 + 3.0f * t + 1.0f) / 6.0f;
    w[3] = t3 / 6.0f;
    for (int j = 0; j < NV; j++) {
        float acc = 0.0f;
        for (int a = 0; a < 4; a++) {
            int jj = j + sh - 1 + a;
            if (jj >= 0 && jj < NV) acc += w[a] * coef[base + jj * NX];
        }
        fout[base + j * NX] = acc;
    }
}

// ---------------------------------------------------------------- vl_moments_diag

// f: nrun runs of NV x NX floats; grid (NX / 32, nrun), blockDim (32, MOM_TY);
// mom[r NX + i] = (n, j, 2K, Q) = sum over v of (1, v, v^2, v^3) f dv;
// diag[3 r ..] += (kinetic energy, L2 norm, entropy) of run r; nneg[r] += its f < 0
__global__ void vl_moments_diag(const float *f, float4 *mom, double *diag, int *nneg, float vmin, float dv) {
    __shared__ float4 s_m[MOM_TY][32];
    int tx = threadIdx.x, ty = threadIdx.y;
    int r = blockIdx.y;
    int i = blockIdx.x * 32 + tx;
    const float *col = f + r * NV * NX + i;
    float n = 0.0f, m1 = 0.0f, m2 = 0.0f, m3 = 0.0f;
    double l2 = 0.0, ent = 0.0;
    int neg = 0;
    for (int j = ty; j < NV; j += MOM_TY) {
        float fv = col[j * NX];
        float v = vmin + (float)j * dv;
        n += fv;
        m1 += v * fv;
        m2 += v * v * fv;
        m3 += v * v * v * fv;
        l2 += (double)(fv * fv);
        if (fv > 0.0f) ent -= (double)(fv * logf(fv));
        unsigned int b = __ballot_sync(FULL_MASK, fv < 0.0f);
        neg += __popc(b);
    }
    s_m[ty][tx] = make_float4(n * dv, m1 * dv, m2 * dv, m3 * dv);
    __syncthreads();
    if (ty == 0) {
        float4 acc = s_m[0][tx];
        for (int y = 1; y < MOM_TY; y++) {
            float4 p = s_m[y][tx];
            acc.x += p.x;
            acc.y += p.y;
            acc.z += p.z;
            acc.w += p.w;
        }
        mom[r * NX + i] = acc;
    }
    // the run's totals: a warp's sum, one atomic each
    double dxr = (double)c_run[r].dx;
    double cell = (double)dv * dxr;
    double ke = 0.5 * (double)m2 * cell;
    l2 *= cell;
    ent *= cell;
    for (int o = 16; o > 0; o /= 2) {
        ke += __shfl_down_sync(FULL_MASK, ke, o);
        l2 += __shfl_down_sync(FULL_MASK, l2, o);
        ent += __shfl_down_sync(FULL_MASK, ent, o);
    }
    if (tx == 0) {
        atomicAdd(&diag[3 * r], ke);
        atomicAdd(&diag[3 * r + 1], l2);
        atomicAdd(&diag[3 * r + 2], ent);
        if (neg > 0) atomicAdd(&nneg[r], neg);
    }
}

// ---------------------------------------------------------------- pic_deposit_tsc

// np particles p on a periodic grid of NXP cells (node i at x = i dx); rho[i] += the
// charge density, jx[i] += the current density at node i (in c_qw's units)
__global__ void pic_deposit_tsc(const PicParticle *p, int np, float *rho, float *jx) {
    __shared__ float s_rho[NXP];
    __shared__ float s_j[NXP];
    for (int k = threadIdx.x; k < NXP; k += blockDim.x) {
        s_rho[k] = 0.0f;
        s_j[k] = 0.0f;
    }
    __syncthreads();
    for (int m = blockIdx.x * blockDim.x + threadIdx.x; m < np; m += gridDim.x * blockDim.x) {
        PicParticle q = p[m];
        float qw = c_qw[q.species];
        int i;
        float d;                                // from the nearest node, in [-0.5, 0.5)
        if (q.dx < 0.5f) {
            i = q.cell;
            d = q.dx;
        } else {
            i = q.cell + 1;
            d = q.dx - 1.0f;
        }
        float w0 = 0.5f * (0.5f - d) * (0.5f - d);
        float w1 = 0.75f - d * d;
        float w2 = 0.5f * (0.5f + d) * (0.5f + d);
        int im = (i - 1) & (NXP - 1), i0 = i & (NXP - 1), ip = (i + 1) & (NXP - 1);
        float qv = qw * q.v;
        atomicAdd(&s_rho[im], qw * w0);
        atomicAdd(&s_rho[i0], qw * w1);
        atomicAdd(&s_rho[ip], qw * w2);
        atomicAdd(&s_j[im], qv * w0);
        atomicAdd(&s_j[i0], qv * w1);
        atomicAdd(&s_j[ip], qv * w2);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < NXP; k += blockDim.x) {
        if (s_rho[k] != 0.0f) atomicAdd(&rho[k], s_rho[k]);
        if (s_j[k] != 0.0f) atomicAdd(&jx[k], s_j[k]);
    }
}

// ---------------------------------------------------------------- vl_poisson_fourier

// a block a run: mom[r NX ..] the moments (n in .x); E[r NX + i] the field of
// dE/dx = 1 - n kept to its NMODE lowest modes; espec[r NMODE + m - 1] = |E_m| (the
// amplitude of mode m); wfield[r] = the field energy, sum of E^2 / 2 dx
__global__ void vl_poisson_fourier(const float4 *mom, float *E, float *espec, float *wfield) {
    __shared__ float s_rho[NX];
    __shared__ float2 s_eh[NMODE];
    __shared__ float s_w[PS_THREADS / 32];
    int r = blockIdx.x, tid = threadIdx.x;
    int lane = tid % 32, wid = tid / 32;
    RunParam rp = c_run[r];
    for (int i = tid; i < NX; i += PS_THREADS) s_rho[i] = 1.0f - mom[r * NX + i].x;
    __syncthreads();
    const float dth = 2.0f * PI_F / (float)NX;
    for (int m = wid + 1; m <= NMODE; m += PS_THREADS / 32) {
        float re = 0.0f, im = 0.0f;
        for (int i = lane; i < NX; i += 32) {
            float sn, cs;
            sincosf(dth * (float)((m * i) & (NX - 1)), &sn, &cs);
            re += s_rho[i] * cs;
            im -= s_rho[i] * sn;
        }
        for (int o = 16; o > 0; o /= 2) {
            re += __shfl_down_sync(FULL_MASK, re, o);
            im += __shfl_down_sync(FULL_MASK, im, o);
        }
        if (lane == 0) {
            float km = (float)m * rp.k;
            float ar = re / (float)NX, ai = im / (float)NX;
            float2 eh = make_float2(ai / km, -ar / km);     // rho_hat / (i k)
            s_eh[m - 1] = eh;
            espec[r * NMODE + m - 1] = 2.0f * sqrtf(eh.x * eh.x + eh.y * eh.y);
        }
    }
    __syncthreads();
    float w = 0.0f;
    for (int i = tid; i < NX; i += PS_THREADS) {
        float e = 0.0f;
        for (int m = 1; m <= NMODE; m++) {
            float sn, cs;
            sincosf(dth * (float)((m * i) & (NX - 1)), &sn, &cs);
            float2 eh = s_eh[m - 1];
            e += eh.x * cs - eh.y * sn;
        }
        e *= 2.0f;
        E[r * NX + i] = e;
        w += 0.5f * e * e * rp.dx;
    }
    for (int o = 16; o > 0; o /= 2) w += __shfl_down_sync(FULL_MASK, w, o);
    if (lane == 0) s_w[wid] = w;
    __syncthreads();
    if (tid == 0) {
        float tot = 0.0f;
        for (int k = 0; k < PS_THREADS / 32; k++) tot += s_w[k];
        wfield[r] = tot;
    }
}

// ---------------------------------------------------------------- vl_advect_2d_bicubic

// f, fout: nrun runs of NV x NX doubles; E: nrun x NX doubles; grid (NX / 32, NV / 8,
// nrun), blockDim (32, 8); fout(x_i, v_j) = f at the departure point of the characteristic
// dx/dt = v, dv/dt = -E(x) through (x_i, v_j) a step dt back (x periodic, f = 0 past v's ends)
__global__ void vl_advect_2d_bicubic(const double *f, double *fout, const double *E, double vmin, double dv,
                                     double dt) {
    int i = blockIdx.x * 32 + threadIdx.x;
    int j = blockIdx.y * 8 + threadIdx.y;
    int r = blockIdx.z;
    double dx = (double)c_run[r].dx;
    const double *fr = f + (size_t)r * NV * NX;
    const double *Er = E + r * NX;
    double x = (double)i * dx;
    double v = vmin + (double)j * dv;
    // the field at the half step back, linearly interpolated
    double ph = (x - 0.5 * v * dt) / dx;
    double fh = floor(ph);
    int ih = (int)fh;
    double th = ph - fh;
    double Eh = (1.0 - th) * Er[ih & (NX - 1)] + th * Er[(ih + 1) & (NX - 1)];
    double V = v + Eh * dt;
    double X = x - 0.5 * (v + V) * dt;
    // bicubic Lagrange at (X, V)
    double px = X / dx, pv = (V - vmin) / dv;
    double fx = floor(px), fv = floor(pv);
    int ix = (int)fx, iv = (int)fv;
    double wx[4], wv[4];
    lagrange_weights<double, 4>(px - fx, wx);
    lagrange_weights<double, 4>(pv - fv, wv);
    double acc = 0.0;
    for (int b = 0; b < 4; b++) {
        int jj = iv - 1 + b;
        if (jj < 0 || jj >= NV) continue;
        const double *row = fr + jj * NX;
        double s = 0.0;
#pragma unroll
        for (int a = 0; a < 4; a++) s += wx[a] * row[(ix - 1 + a) & (NX - 1)];
        acc += wv[b] * s;
    }
    fout[(size_t)r * NV * NX + j * NX + i] = acc;
}

}
