// probe-unseen177: a petroleum reservoir / groundwater hydrogeology course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - tpfa_jacobi: one Jacobi sweep of the two-point-flux (TPFA) pressure equation
//    sum_faces T (p_nb - p) + q = 0 on a layered 3-D reservoir grid with a heterogeneous
//    (log-normal) horizontal and vertical permeability, each face's transmissibility the
//    harmonic mean of its two cells' permeabilities times a geometric factor, computed on the
//    fly; no-flow outer boundaries, the wells as the source term q; a thread a cell (8 x 8 x 8
//    blocks), the pressure double-buffered;
//  - corey_upwind: the explicit saturation step of an IMPES waterflood on a 2-D areal grid:
//    each face's water flux the total flux times the fractional flow (Corey relative
//    permeabilities, powf) of the upwind cell, the wells' water in (injectors) or out
//    (producers, at the cell's own fractional flow), a thread a cell in 16 x 16 blocks;
//  - pollock_trace: Pollock's semi-analytic streamline tracing in double precision, a thread a
//    particle released in an injector cell: in each cell the velocities interpolated linearly
//    between the faces, the exit time of each axis from a log, the exit face the earlier one,
//    the other coordinate moved by an exp, cell to cell (a data-dependent loop) until the
//    particle enters a producer cell, stagnates or takes max_steps; its time of flight kept;
//  - well_rates: the Peaceman well model's oil and water rates of each completion of a
//    basin-scale field's wells (Completion structs, contiguous a well), the wellbore pressure
//    at the completion's depth from the well's bottom-hole pressure and a hydrostatic head,
//    the cell's Corey relative permeabilities from its rock type's curves in __constant__;
//    completions whose cell pressure is below the wellbore's shut (no crossflow); the rates
//    and the open completions summed a well by atomicAdd;
//  - perm_upscale: permeability upscaling, a 256-thread block a coarse cell of 8 x 8 x 4 fine
//    cells: the fine permeabilities staged in shared memory, then the Cardwell-Parsons bounds
//    of the x-direction effective permeability (the harmonic mean along x of the arithmetic
//    means of the y-z slabs above, the arithmetic mean of the x-rows' harmonic means below)
//    by a few threads' serial loops, the geometric mean (logf, expf) and the mean porosity by
//    warp shuffles and shared partial sums;
//  - tof_histogram: the breakthrough-time (time-of-flight) distribution of a streamline
//    ensemble: each streamline's time of flight binned on a log10 scale (log10f), its count
//    and its flux added to a block's shared-memory histogram by atomicAdd in a grid-stride
//    loop, the blocks' histograms merged into the global one by atomicAdd.

#define PT_PRODUCER 2          // pollock_trace: kind[] of a producer cell (1 an injector, 0 none)
#define PT_BIG 1e300           // an exit time that never comes
#define WL_NSAT 4              // well_rates: rock types (saturation-function regions)
#define UP_BX 8                // perm_upscale: fine cells of a coarse cell along x, y, z
#define UP_BY 8
#define UP_BZ 4
#define UP_CELLS (UP_BX * UP_BY * UP_BZ)   // 256, blockDim.x
#define TH_BINS 256            // tof_histogram: bins

// a completion (perforation) of a well: its grid cell, its well, its Peaceman well index
// (m3/day/bar/cP) and its depth (m)
struct Completion {
    int cell;
    int well;
    float wi;
    float depth;
};

// well_rates' Corey curves (set by the host), one entry a rock type: connate water, residual
// oil, the exponents and the end-point relative permeabilities
__constant__ float c_swc[WL_NSAT];
__constant__ float c_sor[WL_NSAT];
__constant__ float c_nw[WL_NSAT];
__constant__ float c_no[WL_NSAT];
__constant__ float c_krw[WL_NSAT];
__constant__ float c_kro[WL_NSAT];

// the harmonic mean of two permeabilities
__device__ float harm(float a, float b) {
    return 2.0f * a * b / (a + b);
}

// the water fractional flow at saturation s: mw, mo the end-point mobilities krw0 / muw, kro0 / muo
__device__ float frac_flow(float s, float swc, float sor, float nw, float no, float mw, float mo) {
    float se = (s - swc) / (1.0f - swc - sor);
    se = fminf(fmaxf(se, 0.0f), 1.0f);
    float lw = mw * powf(se, nw);
    float lo = mo * powf(1.0f - se, no);
    return lw / (lw + lo);
}

// Pollock: the time to leave a cell of length len along one axis from local coordinate xl,
// v the velocity there, v1, v2 at the faces 0 and len, a = (v2 - v1) / len
__device__ double pollock_exit(double v, double v1, double v2, double a, double xl, double len) {
    bool flat = fabs(v2 - v1) <= 1e-9 * (fabs(v1) + fabs(v2));
    if (v > 0.0 && v2 > 0.0) {
        if (flat) return (len - xl) / v;
        return log(v2 / v) / a;
    }
    if (v < 0.0 && v1 < 0.0) {
        if (flat) return -xl / v;
        return log(v1 / v) / a;
    }
    return PT_BIG;
}

// Pollock: the local coordinate after time dt along an axis that is not the exit's
__device__ double pollock_move(double xl, double v, double v1, double v2, double a, double dt, double len) {
    bool flat = fabs(v2 - v1) <= 1e-9 * (fabs(v1) + fabs(v2));
    double x = flat ? xl + v * dt : (v * exp(a * dt) - v1) / a;
    return fmin(fmax(x, 0.0), len);
}

extern "C" {

// one Jacobi sweep on nx x ny x nz cells (x fastest): pn = (q + sum T p_nb) / sum T over the
// cell's existing neighbours, T = tx harm(kh) across x faces, ty harm(kh) across y faces,
// tz harm(kv) across z faces
__global__ void tpfa_jacobi(const float *kh, const float *kv, const float *q, const float *p, float *pn, int nx,
                            int ny, int nz, float tx, float ty, float tz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    int i = (z * ny + y) * nx + x;
    int plane = nx * ny;
    float k = kh[i];
    float kz = kv[i];
    float diag = 0.0f;
    float rhs = q[i];
    if (x > 0) {
        float t = tx * harm(k, kh[i - 1]);
        diag += t;
        rhs += t * p[i - 1];
    }
    if (x < nx - 1) {
        float t = tx * harm(k, kh[i + 1]);
        diag += t;
        rhs += t * p[i + 1];
    }
    if (y > 0) {
        float t = ty * harm(k, kh[i - nx]);
        diag += t;
        rhs += t * p[i - nx];
    }
    if (y < ny - 1) {
        float t = ty * harm(k, kh[i + nx]);
        diag += t;
        rhs += t * p[i + nx];
    }
    if (z > 0) {
        float t = tz * harm(kz, kv[i - plane]);
        diag += t;
        rhs += t * p[i - plane];
    }
    if (z < nz - 1) {
        float t = tz * harm(kz, kv[i + plane]);
        diag += t;
        rhs += t * p[i + plane];
    }
    pn[i] = rhs / diag;
}

// one explicit upwind step (dt, days) of the water saturation S on nx x ny cells (row-major):
// Fx (ny x (nx + 1)) the total flux (m3/day) across the x faces, positive along +x, Fy
// ((ny + 1) x nx) across the y faces, q the wells' total rates (> 0 injection of water), pv
// the pore volumes (m3)
__global__ void corey_upwind(const float *S, const float *Fx, const float *Fy, const float *q, const float *pv,
                             float *Snew, int nx, int ny, float dt, float swc, float sor, float nw, float no,
                             float mw, float mo) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    float s = S[i];
    float fi = frac_flow(s, swc, sor, nw, no, mw, mo);
    float fl = Fx[y * (nx + 1) + x];
    float fr = Fx[y * (nx + 1) + x + 1];
    float fd = Fy[y * nx + x];
    float fu = Fy[(y + 1) * nx + x];
    float win = 0.0f;      // the water flowing in
    if (fl > 0.0f && x > 0) win += fl * frac_flow(S[i - 1], swc, sor, nw, no, mw, mo);
    else win += fl * fi;
    if (fr < 0.0f && x < nx - 1) win -= fr * frac_flow(S[i + 1], swc, sor, nw, no, mw, mo);
    else win -= fr * fi;
    if (fd > 0.0f && y > 0) win += fd * frac_flow(S[i - nx], swc, sor, nw, no, mw, mo);
    else win += fd * fi;
    if (fu < 0.0f && y < ny - 1) win -= fu * frac_flow(S[i + nx], swc, sor, nw, no, mw, mo);
    else win -= fu * fi;
    float qi = q[i];
    if (qi > 0.0f) win += qi;
    else win += qi * fi;
    float sn = s + dt / pv[i] * win;
    Snew[i] = fminf(fmaxf(sn, 0.0f), 1.0f);
}

// n particles from (x0, y0) (m, from the grid's corner) traced through nx x ny cells of dx x dy
// x h (m) with porosity poro: Fx, Fy the total fluxes (m3/day) across the faces as in
// corey_upwind; tof the time of flight (days) until the particle entered a producer cell
// (end_cell that cell) or stopped (stagnant, or max_steps cells: end_cell -1), nsteps the
// cells it crossed
__global__ void pollock_trace(const double *Fx, const double *Fy, const double *poro, const int *kind,
                              const double *x0, const double *y0, double *tof, int *end_cell, int *nsteps, int nx,
                              int ny, double dx, double dy, double h, int max_steps, int n) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    int i = min((int)(x0[p] / dx), nx - 1);
    int j = min((int)(y0[p] / dy), ny - 1);
    double xl = x0[p] - i * dx;
    double yl = y0[p] - j * dy;
    double t = 0.0;
    int end = -1;
    int s = 0;
    for (; s < max_steps; s++) {
        int c = j * nx + i;
        if (kind[c] == PT_PRODUCER) {
            end = c;
            break;
        }
        double area = poro[c] * h;
        double vx1 = Fx[j * (nx + 1) + i] / (area * dy);
        double vx2 = Fx[j * (nx + 1) + i + 1] / (area * dy);
        double vy1 = Fy[j * nx + i] / (area * dx);
        double vy2 = Fy[(j + 1) * nx + i] / (area * dx);
        double ax = (vx2 - vx1) / dx;
        double ay = (vy2 - vy1) / dy;
        double vx = vx1 + ax * xl;
        double vy = vy1 + ay * yl;
        double tx = pollock_exit(vx, vx1, vx2, ax, xl, dx);
        double ty = pollock_exit(vy, vy1, vy2, ay, yl, dy);
        if (tx >= PT_BIG && ty >= PT_BIG) break;          // a stagnation point
        if (tx <= ty) {
            yl = pollock_move(yl, vy, vy1, vy2, ay, tx, dy);
            if (vx > 0.0) {
                i++;
                xl = 0.0;
            } else {
                i--;
                xl = dx;
            }
            t += tx;
        } else {
            xl = pollock_move(xl, vx, vx1, vx2, ax, ty, dx);
            if (vy > 0.0) {
                j++;
                yl = 0.0;
            } else {
                j--;
                yl = dy;
            }
            t += ty;
        }
        if (i < 0 || i >= nx || j < 0 || j >= ny) break;     // out of the grid (not through no-flow faces)
    }
    tof[p] = t;
    end_cell[p] = end;
    nsteps[p] = s;
}

// n completions: the wellbore pressure bhp[well] + rho_g (depth - dref[well]) (bar), the cell's
// pressure p and water saturation sw, its rock type satnum; qo[well], qw[well] (m3/day) +=
// wi kr / mu (p - pwb) of the open completions, nopen[well] += 1 for each
__global__ void well_rates(const Completion *comp, const float *p, const float *sw, const int *satnum,
                           const float *bhp, const float *dref, float *qo, float *qw, int *nopen, float rho_g,
                           float muo, float muw, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Completion c = comp[i];
    float pwb = bhp[c.well] + rho_g * (c.depth - dref[c.well]);
    float dp = p[c.cell] - pwb;
    if (dp <= 0.0f) return;                // no crossflow: the completion is shut
    int r = satnum[c.cell];
    float se = (sw[c.cell] - c_swc[r]) / (1.0f - c_swc[r] - c_sor[r]);
    se = fminf(fmaxf(se, 0.0f), 1.0f);
    float krw = c_krw[r] * powf(se, c_nw[r]);
    float kro = c_kro[r] * powf(1.0f - se, c_no[r]);
    atomicAdd(&qo[c.well], c.wi * kro / muo * dp);
    atomicAdd(&qw[c.well], c.wi * krw / muw * dp);
    atomicAdd(&nopen[c.well], 1);
}

// a block (UP_CELLS threads) a coarse cell of a fine nx x ny x nz grid (x fastest; nx, ny
// multiples of UP_BX, UP_BY, nz of UP_BZ) of permeability k (> 0) and porosity phi; the coarse
// grid (nx / UP_BX) x (ny / UP_BY) x (nz / UP_BZ), x fastest: k_hi the harmonic mean along x
// of the y-z slabs' arithmetic means, k_lo the arithmetic mean of the x-rows' harmonic means,
// k_geo the geometric mean, phi_c the mean porosity
__global__ void perm_upscale(const float *k, const float *phi, float *k_lo, float *k_hi, float *k_geo, float *phi_c,
                             int nx, int ny, int nz) {
    __shared__ float s_k[UP_BZ][UP_BY][UP_BX];
    __shared__ float s_row[UP_BZ * UP_BY];     // the x-rows' harmonic means
    __shared__ float s_slab[UP_BX];            // the y-z slabs' arithmetic means
    __shared__ float s_log[UP_CELLS / 32];     // the warps' sums of log k
    __shared__ float s_phi[UP_CELLS / 32];
    int t = threadIdx.x;
    int lx = t % UP_BX;
    int ly = (t / UP_BX) % UP_BY;
    int lz = t / (UP_BX * UP_BY);
    int gx = blockIdx.x * UP_BX + lx;
    int gy = blockIdx.y * UP_BY + ly;
    int gz = blockIdx.z * UP_BZ + lz;
    int g = (gz * ny + gy) * nx + gx;
    float kv = k[g];
    float ph = phi[g];
    s_k[lz][ly][lx] = kv;
    float lk = logf(kv);
    for (int o = 16; o > 0; o >>= 1) {
        lk += __shfl_down_sync(0xffffffff, lk, o);
        ph += __shfl_down_sync(0xffffffff, ph, o);
    }
    if ((t & 31) == 0) {
        s_log[t / 32] = lk;
        s_phi[t / 32] = ph;
    }
    __syncthreads();
    if (t < UP_BZ * UP_BY) {
        // row t: harmonic mean along x
        float inv = 0.0f;
        for (int x = 0; x < UP_BX; x++) inv += 1.0f / s_k[t / UP_BY][t % UP_BY][x];
        s_row[t] = UP_BX / inv;
    } else if (t < UP_BZ * UP_BY + UP_BX) {
        // slab x: arithmetic mean over y and z
        int x = t - UP_BZ * UP_BY;
        float sum = 0.0f;
        for (int z = 0; z < UP_BZ; z++)
            for (int y = 0; y < UP_BY; y++) sum += s_k[z][y][x];
        s_slab[x] = sum / (UP_BY * UP_BZ);
    }
    __syncthreads();
    if (t == 0) {
        int c = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
        float lo = 0.0f;
        for (int r = 0; r < UP_BZ * UP_BY; r++) lo += s_row[r];
        float inv = 0.0f;
        for (int x = 0; x < UP_BX; x++) inv += 1.0f / s_slab[x];
        float sl = 0.0f;
        float sp = 0.0f;
        for (int w = 0; w < UP_CELLS / 32; w++) {
            sl += s_log[w];
            sp += s_phi[w];
        }
        k_lo[c] = lo / (UP_BZ * UP_BY);
        k_hi[c] = UP_BX / inv;
        k_geo[c] = expf(sl / UP_CELLS);
        phi_c[c] = sp / UP_CELLS;
    }
}

// n streamlines' times of flight tof (days, > 0) and fluxes flux (m3/day): count[b] += the
// streamlines and flow[b] += their flux in bin b = floor((log10 tof - lt0) bpd), clamped to
// 0 .. TH_BINS - 1
__global__ void tof_histogram(const float *tof, const float *flux, unsigned int *count, float *flow, float lt0,
                              float bpd, int n) {
    __shared__ unsigned int s_cnt[TH_BINS];
    __shared__ float s_flow[TH_BINS];
    for (int b = threadIdx.x; b < TH_BINS; b += blockDim.x) {
        s_cnt[b] = 0;
        s_flow[b] = 0.0f;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int b = (int)floorf((log10f(tof[i]) - lt0) * bpd);
        b = min(max(b, 0), TH_BINS - 1);
        atomicAdd(&s_cnt[b], 1u);
        atomicAdd(&s_flow[b], flux[i]);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < TH_BINS; b += blockDim.x) {
        if (s_cnt[b] > 0) {
            atomicAdd(&count[b], s_cnt[b]);
            atomicAdd(&flow[b], s_flow[b]);
        }
    }
}

}
