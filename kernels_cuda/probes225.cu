// probe-unseen223: a lattice Boltzmann / mesoscale fluid dynamics course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - d2q9_bgk_pull: D2Q9 stream-and-collide in pull form with BGK collision for a channel
//    through a porous medium (a uint8 geometry mask: disks and the two walls), half-way
//    bounce-back where the upstream neighbour is solid, a Zou-He velocity inlet (x = 0) and
//    pressure outlet (x = nx - 1), periodic in y; populations in structure-of-arrays form,
//    the lattice velocities, weights and opposites from __constant__ tables;
//  - d3q19_push_aos: D3Q19 collide-and-stream in push form on an array-of-structures layout
//    (a cell's 19 populations together), BGK with a body force by the velocity shift, the
//    19 post-collision values in a per-thread array, pushed to the periodic neighbours (an
//    integer modulo each) or bounced back into the cell when the neighbour is a solid of a
//    random sphere pack;
//  - d2q9_mrt_collide: Lallemand and Luo's D2Q9 multiple-relaxation-time collision in double
//    precision, in place: the moments by the 9 x 9 transform from __constant__ memory, the
//    non-conserved ones relaxed at their own rates towards their equilibria, a body force
//    added to the x momentum, back by the inverse transform (per-thread arrays);
//  - shanchen_force: the Shan-Chen pseudopotential force of a two-phase fluid: a block's tile
//    of psi = rho0 (1 - exp(-rho / rho0)) with a one-cell periodic halo in shared memory
//    (the edge threads load the halo, each psi from the cell's 9 populations), __syncthreads,
//    F = -G psi(x) sum_i w_i psi(x + e_i) e_i, then the density and the force-shifted
//    equilibrium velocity written out;
//  - d3q19_moments_ke: the macroscopic moments of a D3Q19 field (8-bit __constant__ lattice
//    vectors) in a grid-stride loop: density and velocity stored, the speed quantised to 16
//    bits for the visualisation, the speed's histogram by shared int atomics, the kinetic
//    energy and mass summed in double (warp shuffles, then one global double atomic a
//    block), the largest speed by an integer atomicMax on its float bits, the fluid cells
//    counted by __ballot_sync / __popc;
//  - tracer_advect: Lagrangian tracer particles (a struct each) in a pore-scale flow: the
//    velocity interpolated bilinearly (floorf, 8 gathered loads), a divergent number of
//    substeps (at most half a cell each), the geometry from a bit-packed mask (a word load,
//    a shift and a mask), the particles leaving at the outlet counted by a global atomic,
//    the rest deposited on the concentration field by cloud-in-cell float atomicAdds.

#define FULL_MASK 0xffffffffu

#define Q9 9
#define Q19 19

#define SC_TX 32                 // shanchen_force: a block's tile, SC_TX x SC_TY threads
#define SC_TY 8

#define KE_BLOCK 256             // d3q19_moments_ke: threads a block (8 warps)
#define KE_BINS 64               // the speed histogram's bins

#define TR_MAXSTEP 0.5f          // tracer_advect: the longest substep, cells

struct Tracer {
    float x, y;                  // position (cell centres at integers)
    float age;                   // time travelled (lattice steps)
    int status;                  // 0 moving, 1 left at the outlet
};

// D2Q9: 0 rest, 1 E, 2 N, 3 W, 4 S, 5 NE, 6 NW, 7 SW, 8 SE
__constant__ int c_ex[Q9];
__constant__ int c_ey[Q9];
__constant__ int c_opp[Q9];
__constant__ float c_w[Q9];

// D3Q19: 0 rest, 1 .. 6 the faces, 7 .. 18 the edges
__constant__ int c3_cx[Q19];
__constant__ int c3_cy[Q19];
__constant__ int c3_cz[Q19];
__constant__ int c3_opp[Q19];
__constant__ float c3_w[Q19];
__constant__ signed char c_e19[Q19][3];

// D2Q9 MRT: the moment transform, its inverse and the relaxation rates (rho, e, eps, jx, qx,
// jy, qy, pxx, pxy)
__constant__ double c_M[Q9][Q9];
__constant__ double c_Minv[Q9][Q9];
__constant__ double c_S[Q9];

extern "C" {

// ---------------------------------------------------------------- d2q9_bgk_pull

// an nx x ny lattice, populations f[q * nx * ny + y * nx + x]; a thread a cell (blockIdx.y the
// row); solid cells left alone; the fluid ones pull f_q from (x - ex, y - ey) (y periodic),
// bounce back (f_opp(q) of the cell itself) where that cell is solid, take the Zou-He inlet
// (velocity u_in, 0) at x = 0 and outlet (density rho_out) at x = nx - 1, then BGK at omega
__global__ void d2q9_bgk_pull(const float *f_in, float *f_out, const unsigned char *solid, int nx, int ny,
                              float omega, float u_in, float rho_out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= nx || y >= ny) return;
    int n = nx * ny;
    int idx = y * nx + x;
    if (solid[idx]) return;

    float f[Q9];
    for (int q = 0; q < Q9; q++) {
        int xs = x - c_ex[q];
        int ys = y - c_ey[q];
        if (ys < 0) ys += ny;
        if (ys >= ny) ys -= ny;
        if (xs < 0 || xs >= nx) {
            f[q] = 0.0f;                                   // unknown: the boundary condition fills it
        } else {
            int src = ys * nx + xs;
            if (solid[src]) f[q] = f_in[c_opp[q] * n + idx];
            else f[q] = f_in[q * n + src];
        }
    }

    if (x == 0) {
        // Zou-He velocity inlet: f1, f5, f8 unknown
        float rho = (f[0] + f[2] + f[4] + 2.0f * (f[3] + f[6] + f[7])) / (1.0f - u_in);
        f[1] = f[3] + (2.0f / 3.0f) * rho * u_in;
        f[5] = f[7] - 0.5f * (f[2] - f[4]) + (1.0f / 6.0f) * rho * u_in;
        f[8] = f[6] + 0.5f * (f[2] - f[4]) + (1.0f / 6.0f) * rho * u_in;
    } else if (x == nx - 1) {
        // Zou-He pressure outlet: f3, f6, f7 unknown
        float ux = -1.0f + (f[0] + f[2] + f[4] + 2.0f * (f[1] + f[5] + f[8])) / rho_out;
        f[3] = f[1] - (2.0f / 3.0f) * rho_out * ux;
        f[7] = f[5] + 0.5f * (f[2] - f[4]) - (1.0f / 6.0f) * rho_out * ux;
        f[6] = f[8] - 0.5f * (f[2] - f[4]) - (1.0f / 6.0f) * rho_out * ux;
    }

    float rho = 0.0f, jx = 0.0f, jy = 0.0f;
    for (int q = 0; q < Q9; q++) {
        rho += f[q];
        jx += c_ex[q] * f[q];
        jy += c_ey[q] * f[q];
    }
    float ux = jx / rho, uy = jy / rho;
    float usq = ux * ux + uy * uy;
    for (int q = 0; q < Q9; q++) {
        float eu = c_ex[q] * ux + c_ey[q] * uy;
        float feq = c_w[q] * rho * (1.0f + 3.0f * eu + 4.5f * eu * eu - 1.5f * usq);
        f_out[q * n + idx] = f[q] - omega * (f[q] - feq);
    }
}

// ---------------------------------------------------------------- d3q19_push_aos

// an nx x ny x nz periodic lattice, f[cell * 19 + q] (cell = (z ny + y) nx + x); a thread a
// cell (blockIdx.y, blockIdx.z its y, z); solid cells left alone; a fluid cell's populations
// collide (BGK at omega, the equilibrium at u + gx / omega along x: a body force gx) and go to
// the neighbour at e_q, or back into the cell as f_opp(q) when the neighbour is solid
__global__ void d3q19_push_aos(const float *f_in, float *f_out, const unsigned char *solid, int nx, int ny, int nz,
                               float omega, float gx) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    int z = blockIdx.z;
    if (x >= nx) return;
    int cell = (z * ny + y) * nx + x;
    if (solid[cell]) return;

    float f[Q19];
    float rho = 0.0f, jx = 0.0f, jy = 0.0f, jz = 0.0f;
    for (int q = 0; q < Q19; q++) {
        f[q] = f_in[cell * Q19 + q];
        rho += f[q];
        jx += c3_cx[q] * f[q];
        jy += c3_cy[q] * f[q];
        jz += c3_cz[q] * f[q];
    }
    float ux = jx / rho + gx / omega;
    float uy = jy / rho;
    float uz = jz / rho;
    float usq = ux * ux + uy * uy + uz * uz;
    for (int q = 0; q < Q19; q++) {
        float eu = c3_cx[q] * ux + c3_cy[q] * uy + c3_cz[q] * uz;
        float feq = c3_w[q] * rho * (1.0f + 3.0f * eu + 4.5f * eu * eu - 1.5f * usq);
        f[q] = f[q] + omega * (feq - f[q]);
    }
    for (int q = 0; q < Q19; q++) {
        int xn = (x + c3_cx[q] + nx) % nx;
        int yn = (y + c3_cy[q] + ny) % ny;
        int zn = (z + c3_cz[q] + nz) % nz;
        int nb = (zn * ny + yn) * nx + xn;
        if (solid[nb]) f_out[cell * Q19 + c3_opp[q]] = f[q];
        else f_out[nb * Q19 + q] = f[q];
    }
}

// ---------------------------------------------------------------- d2q9_mrt_collide

// n cells, f[q * n + i] in double, collided in place where solid[i] == 0: m = M f, the
// non-conserved moments relaxed towards their equilibria at c_S, fx added to jx, f = M^-1 m
__global__ void d2q9_mrt_collide(double *f, const unsigned char *solid, int n, double fx) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (solid[i]) return;

    double fl[Q9], m[Q9], meq[Q9];
    for (int q = 0; q < Q9; q++) fl[q] = f[q * n + i];
    for (int k = 0; k < Q9; k++) {
        double s = 0.0;
        for (int q = 0; q < Q9; q++) s += c_M[k][q] * fl[q];
        m[k] = s;
    }
    double rho = m[0], jx = m[3], jy = m[5];
    double j2 = (jx * jx + jy * jy) / rho;
    meq[0] = rho;
    meq[1] = -2.0 * rho + 3.0 * j2;
    meq[2] = rho - 3.0 * j2;
    meq[3] = jx;
    meq[4] = -jx;
    meq[5] = jy;
    meq[6] = -jy;
    meq[7] = (jx * jx - jy * jy) / rho;
    meq[8] = jx * jy / rho;
    for (int k = 0; k < Q9; k++) m[k] = m[k] - c_S[k] * (m[k] - meq[k]);
    m[3] += fx;
    for (int q = 0; q < Q9; q++) {
        double s = 0.0;
        for (int k = 0; k < Q9; k++) s += c_Minv[q][k] * m[k];
        f[q * n + i] = s;
    }
}

}

// ---------------------------------------------------------------- shanchen_force

// the pseudopotential of cell idx from its 9 populations
__device__ float sc_psi(const float *f, int idx, int n, float rho0) {
    float rho = 0.0f;
    for (int q = 0; q < Q9; q++) rho += f[q * n + idx];
    return rho0 * (1.0f - expf(-rho / rho0));
}

extern "C" {

// a periodic nx x ny lattice (multiples of SC_TX, SC_TY), f[q * nx * ny + y * nx + x]; a
// block a tile; F = -G psi(x) sum_q w_q psi(x + e_q) e_q; rho_out = rho, ux/uy_out = (j + tau F) / rho
__global__ void shanchen_force(const float *f, int nx, int ny, float G, float rho0, float tau, float *rho_out,
                               float *ux_out, float *uy_out) {
    __shared__ float s_psi[SC_TY + 2][SC_TX + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * SC_TX + tx;
    int y = blockIdx.y * SC_TY + ty;
    int n = nx * ny;
    int xl = (x == 0) ? nx - 1 : x - 1;
    int xr = (x == nx - 1) ? 0 : x + 1;
    int yd = (y == 0) ? ny - 1 : y - 1;
    int yu = (y == ny - 1) ? 0 : y + 1;

    s_psi[ty + 1][tx + 1] = sc_psi(f, y * nx + x, n, rho0);
    if (tx == 0) s_psi[ty + 1][0] = sc_psi(f, y * nx + xl, n, rho0);
    if (tx == SC_TX - 1) s_psi[ty + 1][SC_TX + 1] = sc_psi(f, y * nx + xr, n, rho0);
    if (ty == 0) s_psi[0][tx + 1] = sc_psi(f, yd * nx + x, n, rho0);
    if (ty == SC_TY - 1) s_psi[SC_TY + 1][tx + 1] = sc_psi(f, yu * nx + x, n, rho0);
    if (tx == 0 && ty == 0) s_psi[0][0] = sc_psi(f, yd * nx + xl, n, rho0);
    if (tx == SC_TX - 1 && ty == 0) s_psi[0][SC_TX + 1] = sc_psi(f, yd * nx + xr, n, rho0);
    if (tx == 0 && ty == SC_TY - 1) s_psi[SC_TY + 1][0] = sc_psi(f, yu * nx + xl, n, rho0);
    if (tx == SC_TX - 1 && ty == SC_TY - 1) s_psi[SC_TY + 1][SC_TX + 1] = sc_psi(f, yu * nx + xr, n, rho0);
    __syncthreads();

    float Fx = 0.0f, Fy = 0.0f;
    for (int q = 1; q < Q9; q++) {
        float p = s_psi[ty + 1 + c_ey[q]][tx + 1 + c_ex[q]];
        Fx += c_w[q] * p * c_ex[q];
        Fy += c_w[q] * p * c_ey[q];
    }
    float psi = s_psi[ty + 1][tx + 1];
    Fx = -G * psi * Fx;
    Fy = -G * psi * Fy;

    int idx = y * nx + x;
    float rho = 0.0f, jx = 0.0f, jy = 0.0f;
    for (int q = 0; q < Q9; q++) {
        float v = f[q * n + idx];
        rho += v;
        jx += c_ex[q] * v;
        jy += c_ey[q] * v;
    }
    rho_out[idx] = rho;
    ux_out[idx] = (jx + tau * Fx) / rho;
    uy_out[idx] = (jy + tau * Fy) / rho;
}

// ---------------------------------------------------------------- d3q19_moments_ke

// n cells, f[q * n + i]; for each fluid cell (solid[i] == 0): rho[i], u[i], u[n + i], u[2 n + i],
// speed_q[i] = min(|u| speed_scale + 0.5, 65535) truncated, hist[min(|u| hist_scale, 63)] += 1;
// sums[0] += 0.5 rho |u|^2 (double), sums[1] += rho; *umax_bits = max of the |u| float bits,
// *nfluid += fluid cells; blocks of KE_BLOCK threads
__global__ void d3q19_moments_ke(const float *f, const unsigned char *solid, int n, float *rho_out, float *u_out,
                                 unsigned short *speed_q, float speed_scale, float hist_scale, double *sums,
                                 int *umax_bits, int *nfluid, int *hist) {
    __shared__ int s_hist[KE_BINS];
    __shared__ double s_ke[KE_BLOCK / 32];
    __shared__ double s_mass[KE_BLOCK / 32];
    __shared__ float s_max[KE_BLOCK / 32];
    __shared__ int s_cnt[KE_BLOCK / 32];
    int tid = threadIdx.x;
    int lane = tid % 32, warp = tid / 32;
    if (tid < KE_BINS) s_hist[tid] = 0;
    __syncthreads();

    double ke = 0.0, mass = 0.0;
    float vmax = 0.0f;
    int cnt = 0;
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        int i = base + tid;
        bool fluid = (i < n) && (solid[i] == 0);
        unsigned int b = __ballot_sync(FULL_MASK, fluid);
        if (lane == 0) cnt += __popc(b);
        if (fluid) {
            float rho = 0.0f, jx = 0.0f, jy = 0.0f, jz = 0.0f;
            for (int q = 0; q < Q19; q++) {
                float v = f[q * n + i];
                rho += v;
                jx += c_e19[q][0] * v;
                jy += c_e19[q][1] * v;
                jz += c_e19[q][2] * v;
            }
            float ux = jx / rho, uy = jy / rho, uz = jz / rho;
            rho_out[i] = rho;
            u_out[i] = ux;
            u_out[n + i] = uy;
            u_out[2 * n + i] = uz;
            float u2 = ux * ux + uy * uy + uz * uz;
            float s = sqrtf(u2);
            speed_q[i] = (unsigned short)fminf(s * speed_scale + 0.5f, 65535.0f);
            int bin = min((int)(s * hist_scale), KE_BINS - 1);
            atomicAdd(&s_hist[bin], 1);
            ke += 0.5 * (double)rho * (double)u2;
            mass += (double)rho;
            vmax = fmaxf(vmax, s);
        }
    }

    for (int o = 16; o > 0; o /= 2) {
        ke += __shfl_down_sync(FULL_MASK, ke, o);
        mass += __shfl_down_sync(FULL_MASK, mass, o);
        vmax = fmaxf(vmax, __shfl_down_sync(FULL_MASK, vmax, o));
    }
    if (lane == 0) {
        s_ke[warp] = ke;
        s_mass[warp] = mass;
        s_max[warp] = vmax;
        s_cnt[warp] = cnt;
    }
    __syncthreads();
    if (tid == 0) {
        double k = 0.0, m = 0.0;
        float v = 0.0f;
        int c = 0;
        for (int w = 0; w < KE_BLOCK / 32; w++) {
            k += s_ke[w];
            m += s_mass[w];
            v = fmaxf(v, s_max[w]);
            c += s_cnt[w];
        }
        atomicAdd(&sums[0], k);
        atomicAdd(&sums[1], m);
        atomicMax(umax_bits, __float_as_int(v));            // speeds >= 0: the bits order as the floats
        atomicAdd(nfluid, c);
    }
    if (tid < KE_BINS && s_hist[tid] > 0) atomicAdd(&hist[tid], s_hist[tid]);
}

}

// ---------------------------------------------------------------- tracer_advect

// the velocity at (x, y) by bilinear interpolation between the cell centres (x clamped to
// the lattice, y periodic)
__device__ void tr_interp(const float *ux, const float *uy, int nx, int ny, float x, float y, float &u, float &v) {
    float xf = floorf(x), yf = floorf(y);
    int i0 = (int)xf, j0 = (int)yf;
    float ax = x - xf, ay = y - yf;
    int i1 = i0 + 1;
    if (i1 > nx - 1) i1 = nx - 1;
    int j1 = j0 + 1;
    if (j1 >= ny) j1 = 0;
    int c00 = j0 * nx + i0, c10 = j0 * nx + i1, c01 = j1 * nx + i0, c11 = j1 * nx + i1;
    float a = ux[c00] + ax * (ux[c10] - ux[c00]);
    float b = ux[c01] + ax * (ux[c11] - ux[c01]);
    u = a + ay * (b - a);
    a = uy[c00] + ax * (uy[c10] - uy[c00]);
    b = uy[c01] + ax * (uy[c11] - uy[c01]);
    v = a + ay * (b - a);
}

extern "C" {

// np tracers on an nx x ny lattice (y periodic) moved over a time dt in nsub = max(1,
// ceil(max(|u|, |v|) dt / TR_MAXSTEP)) equal substeps of the velocity interpolated where the
// tracer is (explicit Euler); a substep ending in a solid cell (bit c % 32 of
// solid_bits[c / 32], c = row * nx + column) is not taken; a tracer reaching x >= nx - 1
// leaves (status 1, *n_exit += 1); the others deposit 1 on the 4 cell centres around them
// (bilinear weights) in conc
__global__ void tracer_advect(Tracer *p, int np, const float *ux, const float *uy, const unsigned int *solid_bits,
                              int nx, int ny, float dt, float *conc, int *n_exit) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= np) return;
    Tracer t = p[i];
    if (t.status != 0) return;

    float u, v;
    tr_interp(ux, uy, nx, ny, t.x, t.y, u, v);
    float sp = fmaxf(fabsf(u), fabsf(v));
    int nsub = (int)ceilf(sp * dt / TR_MAXSTEP);
    if (nsub < 1) nsub = 1;
    float h = dt / nsub;
    for (int s = 0; s < nsub; s++) {
        if (s > 0) tr_interp(ux, uy, nx, ny, t.x, t.y, u, v);
        float xn = t.x + h * u;
        float yn = t.y + h * v;
        if (yn < 0.0f) yn += ny;
        if (yn >= ny) yn -= ny;
        if (xn < 0.0f) xn = 0.0f;
        if (xn >= nx - 1) {
            t.x = xn;
            t.y = yn;
            t.status = 1;
            atomicAdd(n_exit, 1);
            break;
        }
        int c = (int)yn * nx + (int)xn;
        if ((solid_bits[c >> 5] >> (c & 31)) & 1u) continue;   // into a grain: stays
        t.x = xn;
        t.y = yn;
        t.age += h;
    }
    p[i] = t;
    if (t.status == 0) {
        int i0 = (int)t.x, j0 = (int)t.y;
        float ax = t.x - i0, ay = t.y - j0;
        int j1 = (j0 + 1 == ny) ? 0 : j0 + 1;
        atomicAdd(&conc[j0 * nx + i0], (1.0f - ax) * (1.0f - ay));
        atomicAdd(&conc[j0 * nx + i0 + 1], ax * (1.0f - ay));
        atomicAdd(&conc[j1 * nx + i0], (1.0f - ax) * ay);
        atomicAdd(&conc[j1 * nx + i0 + 1], ax * ay);
    }
}

}
