// probe-unseen230: an immersed-boundary / fluid-structure interaction course's CUDA
// assignments, as a student who knows CUDA basics hands them in:
//  - ib_spread_peskin4: spreading the Lagrangian marker forces of a 2-D red-cell
//    suspension onto the Eulerian grid of a channel, a thread a marker: Peskin's 4-point
//    cosine delta function, its 4 x- and 4 y-weights in local arrays, the 16 nodes'
//    force densities added by float atomicAdd (x periodic by a power-of-two mask, the
//    nodes past the channel's walls dropped);
//  - ib_direct_forcing: Uhlmann's direct forcing for rigid spheres in a triply periodic
//    box (particle-resolved DNS), a thread a surface marker: the staggered (MAC) velocity
//    interpolated to the marker by Roma's 3-point delta function (the components' offsets
//    from a __constant__ table, 27 gathered loads each), the rigid-body velocity of its
//    particle (a struct) at the marker, the force (U_d - U) / dt, and the particle's total
//    force and torque: a warp whose markers are all on one particle (__shfl_sync,
//    __all_sync) sums by __shfl_down_sync and adds once, the others lane by lane (float
//    atomicAdd);
//  - ib_fibre_forces: the elastic forces of closed 2-D membranes (red cells, some infected
//    by malaria: stiffer), a block a membrane: the markers in shared memory, each
//    segment's tension (linear springs on the rest length), the curvature (the turning
//    angle by atan2f) and a Helfrich-like bending force from its second arc-length
//    derivative, the enclosed area by the shoelace formula (warp shuffles, a shared sum
//    a warp) for an area-conservation penalty; the moduli from a __constant__ table of
//    Material structs by the cell's 8-bit type;
//  - ib_pressure_jacobi: one weighted Jacobi sweep of the projection step's pressure
//    Poisson equation, in double, a 16 x 16 tile with its halo in shared memory (x
//    periodic, Neumann walls in y), the squared residual of the old iterate reduced by a
//    shared-memory tree and one double atomicAdd a block;
//  - ib_advect_remesh: advecting closed membranes' markers by their interpolated velocity
//    (forward Euler) and re-meshing them, a block a membrane: each segment longer than
//    ds_max gets ceil(L / ds_max) - 1 new markers by linear interpolation (a divergent
//    loop), the markers' new places by a block scan (__shfl_up_sync, a shared total a
//    warp), the segments split counted by __ballot_sync / __popc and a global atomicAdd;
//  - ib_bin_markers: the first pass of a counting sort of a 3-D red-cell suspension's
//    membrane vertices by the Eulerian tile they lie in (before an atomic-free spread):
//    a grid-stride loop, each vertex's 16^3-cell tile (periodic, power-of-two masks and
//    shifts), its 3-D Morton code by bit interleaving (the magic-number part1by2) stored
//    as a 16-bit key, counted in a per-block shared histogram of 8192 tiles (contended
//    shared int atomics) flushed by global atomicAdd.

#define PI_F 3.14159265358979f
#define FULL_MASK 0xffffffffu

#define MEM_M 128               // ib_fibre_forces: markers a membrane (= blockDim.x)
#define N_TYPE 4                // cell types (healthy, ring, trophozoite, schizont)

#define JT 16                   // ib_pressure_jacobi: the tile's side (and the block's)

#define RM_CAP_IN 256           // ib_advect_remesh: markers a membrane, at most (= blockDim.x)
#define RM_CAP_OUT 512          // room for a membrane after re-meshing

#define BIN_SHIFT 4             // ib_bin_markers: 16 x 16 x 16-cell tiles
#define NBIN 8192               // tiles: up to 32 x 16 x 16 (Morton codes of 13 bits)

// ib_direct_forcing: a rigid particle
struct Particle {
    float xc, yc, zc;           // centre
    float u, v, w;              // translational velocity
    float ox, oy, oz;           // angular velocity
    float r;                    // radius
};

// ib_direct_forcing: a Lagrangian marker on a particle's surface
struct Marker {
    float x, y, z;
    int pid;                    // its particle
};

// ib_fibre_forces: a membrane's moduli
struct Material {
    float ks;                   // stretching (tension per unit strain)
    float kb;                   // bending
    float ka;                   // area-conservation penalty
    float pad;
};

// the position of velocity component c's nodes in a cell, in cells: u on the x-faces,
// v on the y-faces, w on the z-faces (a MAC grid)
__constant__ float c_stag[3][3] = {{0.0f, 0.5f, 0.5f}, {0.5f, 0.0f, 0.5f}, {0.5f, 0.5f, 0.0f}};

// the membranes' moduli by cell type (set by the host)
__constant__ Material c_mat[N_TYPE];

// Peskin's 4-point cosine delta function, r in grid cells
__device__ float phi_cos4(float r) {
    r = fabsf(r);
    if (r >= 2.0f) return 0.0f;
    return 0.25f * (1.0f + cosf(0.5f * PI_F * r));
}

// Roma, Peskin and Berger's 3-point delta function
__device__ float phi_roma3(float r) {
    r = fabsf(r);
    if (r <= 0.5f) return (1.0f + sqrtf(1.0f - 3.0f * r * r)) / 3.0f;
    if (r <= 1.5f) {
        float q = 1.0f - r;
        return (5.0f - 3.0f * r - sqrtf(1.0f - 3.0f * q * q)) / 6.0f;
    }
    return 0.0f;
}

// spread the low 10 bits of v to every third bit
__device__ unsigned int part1by2(unsigned int v) {
    v &= 0x000003ffu;
    v = (v ^ (v << 16)) & 0xff0000ffu;
    v = (v ^ (v << 8)) & 0x0300f00fu;
    v = (v ^ (v << 4)) & 0x030c30c3u;
    v = (v ^ (v << 2)) & 0x09249249u;
    return v;
}

extern "C" {

// ---------------------------------------------------------------- ib_spread_peskin4

// nm markers at X (um) carrying the forces F (force times the marker's arc length); the
// force density (F / h^2 times the weights) added into fx, fy on an nx x ny grid of
// h x h cells (row-major, nodes at the cells' centres), periodic in x (nx a power of two),
// walls at y = 0 and y = ny h
__global__ void ib_spread_peskin4(const float2 *X, const float2 *F, int nm, float *fx, float *fy,
                                  int nx, int ny, float h) {
    int m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= nm) return;
    float2 x = X[m];
    float2 f = F[m];
    float sx = x.x / h - 0.5f, sy = x.y / h - 0.5f;     // in node units
    int i0 = (int)floorf(sx) - 1, j0 = (int)floorf(sy) - 1;
    float wx[4], wy[4];
    for (int a = 0; a < 4; a++) {
        wx[a] = phi_cos4(sx - (float)(i0 + a));
        wy[a] = phi_cos4(sy - (float)(j0 + a));
    }
    float scale = 1.0f / (h * h);
    for (int b = 0; b < 4; b++) {
        int j = j0 + b;
        if (j < 0 || j >= ny) continue;                 // past a wall
        for (int a = 0; a < 4; a++) {
            int i = (i0 + a) & (nx - 1);                // periodic in x
            float w = wx[a] * wy[b] * scale;
            atomicAdd(&fx[j * nx + i], f.x * w);
            atomicAdd(&fy[j * nx + i], f.y * w);
        }
    }
}

// ---------------------------------------------------------------- ib_direct_forcing

// nm markers mk on the surfaces of particles part; u, v, w the predicted velocity on an
// nx x ny x nz MAC grid of h cells (x fastest, every side a power of two, periodic);
// out: the marker's force (fxm, fym, fzm) = (U_d - U) / dt, and pforce[6 p .. 6 p + 5] +=
// the force and torque dv sum F, dv sum r x F of each particle p (dv: a marker's volume)
__global__ void ib_direct_forcing(const Marker *mk, int nm, const Particle *part, const float *u,
                                  const float *v, const float *w, int nx, int ny, int nz, float h,
                                  float dt, float dv, float *fxm, float *fym, float *fzm, float *pforce) {
    int m = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    bool act = m < nm;
    Marker q;
    q.x = 0.0f;
    q.y = 0.0f;
    q.z = 0.0f;
    q.pid = -1;
    if (act) q = mk[m];
    float U[3] = {0.0f, 0.0f, 0.0f};
    if (act) {
        for (int c = 0; c < 3; c++) {
            const float *g = u;
            if (c == 1) g = v;
            if (c == 2) g = w;
            float sx = q.x / h - c_stag[c][0];
            float sy = q.y / h - c_stag[c][1];
            float sz = q.z / h - c_stag[c][2];
            int i0 = (int)floorf(sx + 0.5f) - 1;
            int j0 = (int)floorf(sy + 0.5f) - 1;
            int k0 = (int)floorf(sz + 0.5f) - 1;
            float wx[3], wy[3], wz[3];
            for (int a = 0; a < 3; a++) {
                wx[a] = phi_roma3(sx - (float)(i0 + a));
                wy[a] = phi_roma3(sy - (float)(j0 + a));
                wz[a] = phi_roma3(sz - (float)(k0 + a));
            }
            float s = 0.0f;
            for (int kk = 0; kk < 3; kk++) {
                int k = (k0 + kk) & (nz - 1);
                for (int jj = 0; jj < 3; jj++) {
                    int j = (j0 + jj) & (ny - 1);
                    for (int ii = 0; ii < 3; ii++) {
                        int i = (i0 + ii) & (nx - 1);
                        s += wx[ii] * wy[jj] * wz[kk] * g[(k * ny + j) * nx + i];
                    }
                }
            }
            U[c] = s;
        }
    }
    float fx = 0.0f, fy = 0.0f, fz = 0.0f, rx = 0.0f, ry = 0.0f, rz = 0.0f;
    if (act) {
        Particle P = part[q.pid];
        rx = q.x - P.xc;
        ry = q.y - P.yc;
        rz = q.z - P.zc;
        float ud = P.u + P.oy * rz - P.oz * ry;
        float vd = P.v + P.oz * rx - P.ox * rz;
        float wd = P.w + P.ox * ry - P.oy * rx;
        fx = (ud - U[0]) / dt;
        fy = (vd - U[1]) / dt;
        fz = (wd - U[2]) / dt;
        fxm[m] = fx;
        fym[m] = fy;
        fzm[m] = fz;
    }
    float c6[6];
    c6[0] = fx * dv;
    c6[1] = fy * dv;
    c6[2] = fz * dv;
    c6[3] = (ry * fz - rz * fy) * dv;
    c6[4] = (rz * fx - rx * fz) * dv;
    c6[5] = (rx * fy - ry * fx) * dv;
    int p0 = __shfl_sync(FULL_MASK, q.pid, 0);
    if (__all_sync(FULL_MASK, act && q.pid == p0)) {
        // the whole warp on one particle: a shuffle sum, one atomic each
        for (int k = 0; k < 6; k++) {
            float s = c6[k];
            for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(FULL_MASK, s, o);
            if (lane == 0) atomicAdd(&pforce[6 * p0 + k], s);
        }
    } else if (act) {
        for (int k = 0; k < 6; k++) atomicAdd(&pforce[6 * q.pid + k], c6[k]);
    }
}

// ---------------------------------------------------------------- ib_fibre_forces

// a block a closed membrane of MEM_M markers (counter-clockwise) at X; the rest length
// of the segment from marker i to i + 1 l0, the rest curvature at the marker kap0, the
// membrane's rest area A0 and its type; out: the force on each marker (force, not density)
__global__ void ib_fibre_forces(const float2 *X, const float *l0, const float *kap0, const float *A0,
                                const unsigned char *type, float2 *F) {
    __shared__ float2 s_x[MEM_M];
    __shared__ float s_kap[MEM_M];
    __shared__ float s_T[MEM_M];
    __shared__ float s_area[MEM_M / 32];
    int c = blockIdx.x, i = threadIdx.x;
    int g = c * MEM_M + i;
    s_x[i] = X[g];
    __syncthreads();
    int ip = (i + 1) % MEM_M, im = (i + MEM_M - 1) % MEM_M;
    float2 xi = s_x[i], xp = s_x[ip], xm = s_x[im];
    float ex = xp.x - xi.x, ey = xp.y - xi.y;           // segment i -> i + 1
    float l = sqrtf(ex * ex + ey * ey);
    float dxm = xi.x - xm.x, dym = xi.y - xm.y;         // segment i - 1 -> i
    float lm = sqrtf(dxm * dxm + dym * dym);
    float ds = 0.5f * (l + lm);
    // the turning angle at the marker over its arc length: the curvature
    float kap = atan2f(dxm * ey - dym * ex, dxm * ex + dym * ey) / ds;
    Material mat = c_mat[type[c]];
    s_kap[i] = kap;
    s_T[i] = mat.ks * (l / l0[g] - 1.0f);
    // the area: the shoelace formula, about the first marker
    float2 x0 = s_x[0];
    float a = 0.5f * ((xi.x - x0.x) * (xp.y - x0.y) - (xp.x - x0.x) * (xi.y - x0.y));
    for (int o = 16; o > 0; o /= 2) a += __shfl_down_sync(FULL_MASK, a, o);
    if (i % 32 == 0) s_area[i / 32] = a;
    __syncthreads();
    float area = 0.0f;
    for (int k = 0; k < MEM_M / 32; k++) area += s_area[k];
    // tension
    float T = s_T[i], Tm = s_T[im];
    float fx = T * ex / l - Tm * dxm / lm;
    float fy = T * ey / l - Tm * dym / lm;
    // the outward normal from the chord through the neighbours
    float nx = xp.y - xm.y, ny = xm.x - xp.x;
    float nl = sqrtf(nx * nx + ny * ny);
    nx /= nl;
    ny /= nl;
    // bending: kb ((kap - kap0)_ss + (kap - kap0) (kap^2 - kap0^2) / 2) along the normal
    float k0 = kap0[g];
    float dk = kap - k0;
    float dkp = s_kap[ip] - kap0[c * MEM_M + ip];
    float dkm = s_kap[im] - kap0[c * MEM_M + im];
    float kss = (dkp - 2.0f * dk + dkm) / (ds * ds);
    float fb = -mat.kb * (kss + 0.5f * dk * (kap * kap - k0 * k0)) * ds;
    // area conservation: a pressure against the change of area
    float fa = -mat.ka * (area - A0[c]) / A0[c] * ds;
    fx += (fb + fa) * nx;
    fy += (fb + fa) * ny;
    F[g] = make_float2(fx, fy);
}

// ---------------------------------------------------------------- ib_pressure_jacobi

// an nx x ny grid (nx a power of two, both multiples of JT) of the pressure p and the
// right-hand side rhs (div u* rho / dt); pn the weighted Jacobi update of
// lap p = rhs (5-point, h2 = h^2, x periodic, dp/dn = 0 at the walls); *res2 += the sum
// of the squared residuals of p
__global__ void ib_pressure_jacobi(const double *p, const double *rhs, double *pn, int nx, int ny,
                                   double h2, double omega, double *res2) {
    __shared__ double s_p[JT + 2][JT + 2];
    __shared__ double s_r[JT * JT];
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * JT + tx;
    int i = blockIdx.x * JT + tx, j = blockIdx.y * JT + ty;
    s_p[ty + 1][tx + 1] = p[j * nx + i];
    if (tx == 0) s_p[ty + 1][0] = p[j * nx + ((i - 1) & (nx - 1))];
    if (tx == JT - 1) s_p[ty + 1][JT + 1] = p[j * nx + ((i + 1) & (nx - 1))];
    if (ty == 0) {
        int jj = j - 1;
        if (jj < 0) jj = 0;                             // the wall: a mirrored ghost
        s_p[0][tx + 1] = p[jj * nx + i];
    }
    if (ty == JT - 1) {
        int jj = j + 1;
        if (jj > ny - 1) jj = ny - 1;
        s_p[JT + 1][tx + 1] = p[jj * nx + i];
    }
    __syncthreads();
    double pc = s_p[ty + 1][tx + 1];
    double nb = s_p[ty + 1][tx] + s_p[ty + 1][tx + 2] + s_p[ty][tx + 1] + s_p[ty + 2][tx + 1];
    double b = rhs[j * nx + i];
    double r = b - (nb - 4.0 * pc) / h2;
    pn[j * nx + i] = (1.0 - omega) * pc + omega * 0.25 * (nb - h2 * b);
    s_r[t] = r * r;
    __syncthreads();
    for (int s = JT * JT / 2; s > 0; s /= 2) {
        if (t < s) s_r[t] += s_r[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(res2, s_r[0]);
}

// ---------------------------------------------------------------- ib_advect_remesh

// a block a closed membrane: count[b] markers at X[b RM_CAP_IN ..] with velocities U;
// advected by dt, then every segment longer than ds_max split into equal parts; the new
// markers into Xout[b RM_CAP_OUT ..] (at most RM_CAP_OUT), their number into count_out[b];
// *nsplit += the segments split
__global__ void ib_advect_remesh(const float2 *X, const float2 *U, const int *count, float dt, float ds_max,
                                 float2 *Xout, int *count_out, int *nsplit) {
    __shared__ float2 s_x[RM_CAP_IN];
    __shared__ int s_wsum[RM_CAP_IN / 32];
    int b = blockIdx.x, i = threadIdx.x;
    int lane = i % 32, wid = i / 32;
    int M = count[b];
    bool act = i < M;
    float2 x = make_float2(0.0f, 0.0f);
    if (act) {
        float2 p = X[b * RM_CAP_IN + i];
        float2 vel = U[b * RM_CAP_IN + i];
        x.x = p.x + dt * vel.x;
        x.y = p.y + dt * vel.y;
        s_x[i] = x;
    }
    __syncthreads();
    int k = 0;
    float2 xn = x;
    if (act) {
        xn = s_x[(i + 1) % M];
        float ex = xn.x - x.x, ey = xn.y - x.y;
        float L = sqrtf(ex * ex + ey * ey);
        k = (int)ceilf(L / ds_max) - 1;
        if (k < 0) k = 0;
    }
    int e = act ? 1 + k : 0;
    // the block's exclusive scan of e: within the warp, then the warps before
    int s = e;
    for (int o = 1; o < 32; o *= 2) {
        int y = __shfl_up_sync(FULL_MASK, s, o);
        if (lane >= o) s += y;
    }
    if (lane == 31) s_wsum[wid] = s;
    unsigned int split = __ballot_sync(FULL_MASK, k > 0);
    if (lane == 0 && split != 0) atomicAdd(nsplit, __popc(split));
    __syncthreads();
    int base = 0;
    for (int w = 0; w < wid; w++) base += s_wsum[w];
    int off = base + s - e;
    if (act) {
        float2 *out = Xout + b * RM_CAP_OUT;
        if (off < RM_CAP_OUT) out[off] = x;
        for (int q = 1; q <= k; q++) {
            float t = (float)q / (float)(k + 1);
            if (off + q < RM_CAP_OUT)
                out[off + q] = make_float2(x.x + t * (xn.x - x.x), x.y + t * (xn.y - x.y));
        }
    }
    if (i == blockDim.x - 1) {
        int total = base + s;
        count_out[b] = total < RM_CAP_OUT ? total : RM_CAP_OUT;
    }
}

// ---------------------------------------------------------------- ib_bin_markers

// nm vertices X (um) in a periodic nx x ny x nz box of h cells (powers of two, at most
// 512 x 256 x 256); key[m] = the Morton code of the vertex's 16^3 tile, bin_count[key] +=
// the vertices in each tile
__global__ void ib_bin_markers(const float3 *X, int nm, float inv_h, int nx, int ny, int nz,
                               unsigned short *key, int *bin_count) {
    __shared__ int s_cnt[NBIN];
    for (int k = threadIdx.x; k < NBIN; k += blockDim.x) s_cnt[k] = 0;
    __syncthreads();
    for (int m = blockIdx.x * blockDim.x + threadIdx.x; m < nm; m += gridDim.x * blockDim.x) {
        float3 x = X[m];
        int ci = (int)floorf(x.x * inv_h) & (nx - 1);
        int cj = (int)floorf(x.y * inv_h) & (ny - 1);
        int ck = (int)floorf(x.z * inv_h) & (nz - 1);
        unsigned int code = part1by2(ci >> BIN_SHIFT) | (part1by2(cj >> BIN_SHIFT) << 1)
                            | (part1by2(ck >> BIN_SHIFT) << 2);
        key[m] = (unsigned short)code;
        atomicAdd(&s_cnt[code], 1);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < NBIN; k += blockDim.x)
        if (s_cnt[k] > 0) atomicAdd(&bin_count[k], s_cnt[k]);
}

}
