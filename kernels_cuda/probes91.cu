// probe-unseen89: a computational-electromagnetics course's CUDA assignments, as a student
// who knows CUDA basics hands them in.  Normalized units throughout (H scaled by the free
// space impedance, cell size 1, the Courant number folded into the coefficients).
//
//  fdtd3d_update_e   the E half of a 3-D Yee step: Ex, Ey, Ez from the curl of H (backward
//                    differences), a thread a cell on a 3-D grid (a z-plane a grid layer),
//                    each cell's material index (uchar) picking its update coefficients
//                    ca, cb from __constant__ tables (vacuum, a dielectric sphere, a lossy
//                    layer, a PEC plate); the index-0 faces are PEC walls, left untouched.
//  fdtd2d_cpml_ez    the Ez update of a 2-D TMz grid with a convolutional PML (CPML, Roden
//                    and Gedney) NPML cells deep on all four sides: cells in an x (y) strip
//                    advance their psi_ezx (psi_ezy) auxiliary field from the 1-D profiles
//                    b, c, kappa and stretch the derivative; the one cell at the source
//                    adds a Ricker wavelet (a soft point source).
//  fdtd1d_slabs      a parameter sweep of 1-D FDTD runs, a block a run: a Gaussian pulse
//                    hitting a lossy dielectric slab of the block's own permittivity,
//                    conductivity and position, Ex and Hy of N1D cells in shared memory, a
//                    thread a cell, `steps` leapfrog steps with Sullivan's two-step
//                    absorbing boundary, the field at a reflection and a transmission
//                    probe recorded every step.
//  mom_wire_fill     the impedance matrix of a thin-wire method-of-moments solver (pulse
//                    basis, point matching, the reduced kernel exp(-jkR) / (4 pi R) with R
//                    including the wire radius) for a helix of n straight segments, a
//                    thread an entry: an NQ-point Gauss-Legendre rule (__constant__ nodes
//                    and weights) along the source segment, sincosf a point, the self term
//                    in closed form (2 asinh(h / a) - j k 2h); complex float2 entries.
//  ntff2d_accumulate the 2-D near-to-far-field transform: frequency-domain equivalent
//                    currents Jz, Mx, My on a rectangular Huygens contour, a thread a
//                    (contour sample, far-field angle) pair adding its phase-shifted
//                    contribution to the angle's complex far field with two float
//                    atomicAdds (every thread of a block on the same two words).
//  zmatvec_warp      the matrix-vector product V = Z I of an iterative MoM solve (complex
//                    float, cuComplex), a warp a row: lanes stride the row with cuCfmaf,
//                    then a __shfl_down_sync sum of the real and imaginary parts.

#include <cuComplex.h>

#define NMAT 4                // fdtd3d_update_e: materials in the coefficient tables
#define N1D 256               // fdtd1d_slabs: cells a run (blockDim.x == N1D)
#define SRC_1D 20             // fdtd1d_slabs: the source cell
#define REC_R 10              // fdtd1d_slabs: the reflection probe (before the source)
#define REC_T (N1D - 12)      // fdtd1d_slabs: the transmission probe (behind the slab)
#define NQ 8                  // mom_wire_fill: Gauss-Legendre points a segment

// fdtd3d_update_e's update coefficients by material (set by the host)
__constant__ float c_ca[NMAT];
__constant__ float c_cb[NMAT];

// mom_wire_fill's Gauss-Legendre rule on [-1, 1] (set by the host)
__constant__ float c_gx[NQ];
__constant__ float c_gw[NQ];

extern "C" {

// one E update of an nx x ny x nz Yee grid (x fastest), a thread a cell (block (32, 8),
// grid (nx / 32, ny / 8, nz)): E = ca E + cb curl H with the backward differences, ca and
// cb the cell's material's
__global__ void fdtd3d_update_e(float *Ex, float *Ey, float *Ez, const float *Hx, const float *Hy,
                                const float *Hz, const unsigned char *mat, int nx, int ny, int nz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z;
    if (i < 1 || j < 1 || k < 1 || i >= nx || j >= ny || k >= nz) return;
    int sz = nx * ny;
    int id = (k * ny + j) * nx + i;
    int m = mat[id];
    float ca = c_ca[m];
    float cb = c_cb[m];
    Ex[id] = ca * Ex[id] + cb * ((Hz[id] - Hz[id - nx]) - (Hy[id] - Hy[id - sz]));
    Ey[id] = ca * Ey[id] + cb * ((Hx[id] - Hx[id - sz]) - (Hz[id] - Hz[id - 1]));
    Ez[id] = ca * Ez[id] + cb * ((Hy[id] - Hy[id - 1]) - (Hx[id] - Hx[id - nx]));
}

// the Ez update at step q of an nx x ny TMz grid (x fastest) with a CPML npml cells deep:
// Ez = ca Ez + cb (dHy/dx - dHx/dy), in the PML strips dH/dx -> dH/dx / kappa + psi with
// psi = b psi + c dH/dx (1-D profiles by i and by j); the outer ring of cells is a PEC
// wall; the cell (src_i, src_j) adds amp times a Ricker wavelet of ppw points a wavelength
__global__ void fdtd2d_cpml_ez(float *Ez, const float *Hx, const float *Hy, float *psi_ezx, float *psi_ezy,
                               const float *bx, const float *cx, const float *kx, const float *by, const float *cy,
                               const float *ky, float ca, float cb, int npml, int src_i, int src_j, float amp,
                               float courant, float ppw, int q, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
    int id = j * nx + i;
    float dhy = Hy[id] - Hy[id - 1];
    float dhx = Hx[id] - Hx[id - nx];
    if (i < npml || i >= nx - npml) {
        float p = bx[i] * psi_ezx[id] + cx[i] * dhy;
        psi_ezx[id] = p;
        dhy = dhy / kx[i] + p;
    }
    if (j < npml || j >= ny - npml) {
        float p = by[j] * psi_ezy[id] + cy[j] * dhx;
        psi_ezy[id] = p;
        dhx = dhx / ky[j] + p;
    }
    float e = ca * Ez[id] + cb * (dhy - dhx);
    if (i == src_i && j == src_j) {
        float arg = 3.14159265f * (courant * q / ppw - 1.0f);
        arg = arg * arg;
        e += amp * (1.0f - 2.0f * arg) * expf(-arg);
    }
    Ez[id] = e;
}

// a sweep of 1-D FDTD runs, a block a run (N1D threads, a cell each): free space with a
// slab [slab_lo[b], slab_hi[b]) of eps_r[b] and sigma[b]; a soft Gaussian pulse at SRC_1D
// (peak at step t0, width spread), Courant number 1/2 (Sullivan's ex/hy scaling), the end
// cells by the two-steps-back boundary; Ex at REC_R and REC_T stored every step
__global__ void fdtd1d_slabs(const float *eps_r, const float *sigma, const int *slab_lo, const int *slab_hi,
                             float *rec_r, float *rec_t, float dt_eps0, float t0, float spread, int steps) {
    __shared__ float ex[N1D];
    __shared__ float hy[N1D];
    int k = threadIdx.x;
    int b = blockIdx.x;
    float ca = 1.0f;
    float cb = 0.5f;
    if (k >= slab_lo[b] && k < slab_hi[b]) {
        float er = eps_r[b];
        float eaf = dt_eps0 * sigma[b] / (2.0f * er);
        ca = (1.0f - eaf) / (1.0f + eaf);
        cb = 0.5f / (er * (1.0f + eaf));
    }
    ex[k] = 0.0f;
    hy[k] = 0.0f;
    float low1 = 0.0f, low2 = 0.0f, high1 = 0.0f, high2 = 0.0f;     // the boundary's history
    __syncthreads();
    for (int n = 0; n < steps; n++) {
        if (k > 0) ex[k] = ca * ex[k] + cb * (hy[k - 1] - hy[k]);
        if (k == SRC_1D) {
            float d = (t0 - n) / spread;
            ex[k] += expf(-0.5f * d * d);
        }
        __syncthreads();
        if (k == 0) {
            ex[0] = low2;
            low2 = low1;
            low1 = ex[1];
        }
        if (k == N1D - 1) {
            ex[k] = high2;
            high2 = high1;
            high1 = ex[k - 1];
        }
        __syncthreads();
        if (k == REC_R) rec_r[b * steps + n] = ex[k];
        if (k == REC_T) rec_t[b * steps + n] = ex[k];
        if (k < N1D - 1) hy[k] = hy[k] + 0.5f * (ex[k] - ex[k + 1]);
        __syncthreads();
    }
}

// the n x n thin-wire MoM matrix (row-major complex float2), a thread an entry (block (16,
// 16), column fastest): Z[m][n] = (t_m . t_n) / (4 pi) times the integral over segment n
// (centre c_n, unit tangent t_n, half length h_n) of exp(-j k0 R) / R, R the distance from
// c_m to the point plus the wire radius a squared; the diagonal in closed form
__global__ void mom_wire_fill(const float *cx, const float *cy, const float *cz, const float *tx, const float *ty,
                              const float *tz, const float *half_len, float2 *Z, float k0, float a, int n) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= n) return;
    float h = half_len[col];
    float re = 0.0f;
    float im = 0.0f;
    if (row == col) {
        // exp(-jkR) ~ 1 - jkR on the segment itself; the 1/R part integrated exactly
        re = 2.0f * asinhf(h / a);
        im = -2.0f * k0 * h;
    } else {
        for (int q = 0; q < NQ; q++) {
            float s = h * c_gx[q];
            float dx = cx[row] - (cx[col] + s * tx[col]);
            float dy = cy[row] - (cy[col] + s * ty[col]);
            float dz = cz[row] - (cz[col] + s * tz[col]);
            float R = sqrtf(dx * dx + dy * dy + dz * dz + a * a);
            float sn, cs;
            sincosf(k0 * R, &sn, &cs);
            float w = c_gw[q] * h / R;
            re += w * cs;
            im -= w * sn;
        }
    }
    float dot = tx[row] * tx[col] + ty[row] * ty[col] + tz[row] * tz[col];
    float scale = dot / (4.0f * 3.14159265f);
    Z[row * n + col] = make_float2(scale * re, scale * im);
}

// the 2-D near-to-far-field sum over nsurf contour samples (position xs, ys, length dl,
// currents Jz, Mx, My as float2 phasors) for nang angles phi = 2 pi a / nang, a thread a
// (sample, angle) (grid (ceil(nsurf / blockDim.x), nang)): far[a] += dl (eta Jz + My cos
// phi - Mx sin phi) exp(j k0 (x cos phi + y sin phi)), far as (re, im) pairs
__global__ void ntff2d_accumulate(const float *xs, const float *ys, const float *dl, const float2 *Jz,
                                  const float2 *Mx, const float2 *My, float *far, float k0, float eta, int nsurf,
                                  int nang) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    int a = blockIdx.y;
    if (s >= nsurf) return;
    float phi = 2.0f * 3.14159265f * a / nang;
    float sp, cp;
    sincosf(phi, &sp, &cp);
    float2 jz = Jz[s];
    float2 mx = Mx[s];
    float2 my = My[s];
    float sr = eta * jz.x + my.x * cp - mx.x * sp;
    float si = eta * jz.y + my.y * cp - mx.y * sp;
    float sn, cs;
    sincosf(k0 * (xs[s] * cp + ys[s] * sp), &sn, &cs);
    float w = dl[s];
    atomicAdd(&far[2 * a], w * (sr * cs - si * sn));
    atomicAdd(&far[2 * a + 1], w * (sr * sn + si * cs));
}

// V = Z I for a complex n x n Z (row-major), a warp a row (blockDim.x a multiple of 32)
__global__ void zmatvec_warp(const cuFloatComplex *Z, const cuFloatComplex *I, cuFloatComplex *V, int n) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= n) return;
    cuFloatComplex acc = make_cuFloatComplex(0.0f, 0.0f);
    for (int c = lane; c < n; c += 32) acc = cuCfmaf(Z[row * n + c], I[c], acc);
    float re = cuCrealf(acc);
    float im = cuCimagf(acc);
    for (int o = 16; o > 0; o >>= 1) {
        re += __shfl_down_sync(0xffffffff, re, o);
        im += __shfl_down_sync(0xffffffff, im, o);
    }
    if (lane == 0) V[row] = make_cuFloatComplex(re, im);
}

}
