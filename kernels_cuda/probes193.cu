// probe-unseen191: a micromagnetics (Landau-Lifshitz-Gilbert spin dynamics) course's CUDA
// assignments, as a student who knows CUDA basics hands them in:
//  - llg_heun: one stage of a Heun step of the Landau-Lifshitz-Gilbert equation on a 3-D grid
//    of unit magnetisation vectors (float3, array of structs) of a thin-film element: the
//    effective field from exchange with the 6 neighbours (free boundaries), a uniaxial
//    anisotropy and a Zeeman field, a thread a cell in 8 x 8 x 4 blocks; stage 0 (predictor)
//    stores the torque and the predicted unit vectors, stage 1 (corrector) the step's result,
//    both renormalised with rsqrtf;
//  - dipolar_field: the dipolar (demagnetising) field at each particle of a magnetic
//    nanoparticle assembly by direct summation over all the others, the positions and moments
//    tiled through shared memory (the N-body pattern), rsqrtf a pair;
//  - film_energy: the total exchange, anisotropy and Zeeman energies of a polycrystalline
//    film (structure-of-arrays magnetisation, each cell's grain a region whose material
//    parameters are a struct in __constant__ memory, as in mumax3), each thread a cell's
//    three energies, a block's sums by a shared-memory tree reduction in double, then one
//    double atomicAdd a block and energy;
//  - heisenberg_sweep: one colour's half sweep of a Metropolis Monte Carlo simulation of a
//    classical Heisenberg ferromagnet (exchange J = 1, easy-axis anisotropy, field) on a
//    periodic L^3 lattice, checkerboard decomposition, a thread a site of the colour: each
//    site's own xorshift32 stream, a uniformly random unit vector proposed, the energy change
//    from the 6 neighbours, the acceptance branch (expf), the accepted moves counted by
//    __ballot_sync / __popc and an atomicAdd a warp;
//  - sw_hysteresis: the hysteresis loop of an assembly of independent Stoner-Wohlfarth
//    grains (easy axes and anisotropy fields of their own), a thread a grain stepping the
//    applied field down and up, at each step Newton's method (falling back to fixed downhill
//    steps where the energy is not convex: a grain switching; steps of at most 0.1 rad)
//    relaxing the grain's angle to its local energy minimum; the grains' magnetisation along
//    the field summed a step by shared-memory atomicAdd, the block's sums added to the loop by
//    global atomicAdd;
//  - skyrmion_charge: the topological charge density of a magnetic film with skyrmions
//    (periodic), each plaquette split into two triangles whose solid angles are taken by
//    the Berg-Luscher formula (cross and dot products of neighbours, atan2f), the density
//    stored and the total charge summed by warp shuffles, the warps' sums through shared
//    memory and one atomicAdd a block.

#define GAMMA_E 1.7595e11f        // llg_heun: the electron's gyromagnetic ratio (rad / (s T))
#define DP_TILE 128               // dipolar_field: blockDim.x, the particles of a shared-memory tile
#define DP_MU0_4PI 1e20f          // mu0 / 4 pi (1e-7 T m / A) with positions in nm (1e27 nm^3 a m^3)
#define EN_BLOCK 512              // film_energy: blockDim.x (a power of 2)
#define EN_REGIONS 256            // material regions
#define SW_MAXSTEPS 512           // sw_hysteresis: most field steps
#define SW_MAXIT 100              // most relaxation iterations a step
#define SW_TOL 1e-5f              // converged when |dE / dtheta| < SW_TOL (in units of the grain's K V)
#define SK_INV_4PI 0.0795774715f  // skyrmion_charge: 1 / (4 pi)

struct Material {                 // film_energy: a region's parameters
    float A;                      // exchange stiffness (J / m)
    float Ku;                     // uniaxial anisotropy constant (J / m^3)
    float Ms;                     // saturation magnetisation (A / m)
    float ux, uy, uz;             // the easy axis (unit)
};

__constant__ Material c_mat[EN_REGIONS];     // set by the host

// the unit vector along (x, y, z)
__device__ float3 unit3(float x, float y, float z) {
    float r = rsqrtf(x * x + y * y + z * z);
    return make_float3(x * r, y * r, z * r);
}

// dm/dt at cell (x, y, z) of the nx x ny x nz field m (x fastest): -gamma / (1 + alpha^2)
// (m x B + alpha m x (m x B)), B = bex sum over neighbours (m_j - m) + bk (m . u) u + Bext (T)
__device__ float3 llg_rhs(const float3 *m, int x, int y, int z, int nx, int ny, int nz, float bex, float bk,
                          float ux, float uy, float uz, float bx, float by, float bz, float alpha) {
    int i = (z * ny + y) * nx + x;
    float3 c = m[i];
    float sx = 0.0f, sy = 0.0f, sz = 0.0f;
    // free boundaries: a missing neighbour adds nothing
    if (x > 0) {
        float3 v = m[i - 1];
        sx += v.x - c.x; sy += v.y - c.y; sz += v.z - c.z;
    }
    if (x < nx - 1) {
        float3 v = m[i + 1];
        sx += v.x - c.x; sy += v.y - c.y; sz += v.z - c.z;
    }
    if (y > 0) {
        float3 v = m[i - nx];
        sx += v.x - c.x; sy += v.y - c.y; sz += v.z - c.z;
    }
    if (y < ny - 1) {
        float3 v = m[i + nx];
        sx += v.x - c.x; sy += v.y - c.y; sz += v.z - c.z;
    }
    if (z > 0) {
        float3 v = m[i - nx * ny];
        sx += v.x - c.x; sy += v.y - c.y; sz += v.z - c.z;
    }
    if (z < nz - 1) {
        float3 v = m[i + nx * ny];
        sx += v.x - c.x; sy += v.y - c.y; sz += v.z - c.z;
    }
    float mu = c.x * ux + c.y * uy + c.z * uz;
    float Bx = bex * sx + bk * mu * ux + bx;
    float By = bex * sy + bk * mu * uy + by;
    float Bz = bex * sz + bk * mu * uz + bz;
    float px = c.y * Bz - c.z * By;              // m x B
    float py = c.z * Bx - c.x * Bz;
    float pz = c.x * By - c.y * Bx;
    float qx = c.y * pz - c.z * py;              // m x (m x B)
    float qy = c.z * px - c.x * pz;
    float qz = c.x * py - c.y * px;
    float pre = -GAMMA_E / (1.0f + alpha * alpha);
    return make_float3(pre * (px + alpha * qx), pre * (py + alpha * qy), pre * (pz + alpha * qz));
}

// the solid angle of the spherical triangle of unit vectors a, b, c (Berg and Luscher)
__device__ float solid_angle(float3 a, float3 b, float3 c) {
    float cx = b.y * c.z - b.z * c.y;
    float cy = b.z * c.x - b.x * c.z;
    float cz = b.x * c.y - b.y * c.x;
    float num = a.x * cx + a.y * cy + a.z * cz;
    float den = 1.0f + (a.x * b.x + a.y * b.y + a.z * b.z) + (b.x * c.x + b.y * c.y + b.z * c.z) +
                (c.x * a.x + c.y * a.y + c.z * a.z);
    return 2.0f * atan2f(num, den);
}

extern "C" {

// a Heun step (dt, s) of m on an nx x ny x nz grid: stage 0 stores t0 = dm/dt(m) and
// mp = unit(m + dt t0); stage 1 stores mout = unit(m + dt / 2 (t0 + dm/dt(mp)))
__global__ void llg_heun(const float3 *m, float3 *mp, float3 *t0, float3 *mout, int nx, int ny, int nz, float bex,
                         float bk, float ux, float uy, float uz, float bx, float by, float bz, float alpha, float dt,
                         int stage) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    int i = (z * ny + y) * nx + x;
    float3 mi = m[i];
    if (stage == 0) {
        float3 t = llg_rhs(m, x, y, z, nx, ny, nz, bex, bk, ux, uy, uz, bx, by, bz, alpha);
        t0[i] = t;
        mp[i] = unit3(mi.x + dt * t.x, mi.y + dt * t.y, mi.z + dt * t.z);
    } else {
        float3 t = llg_rhs(mp, x, y, z, nx, ny, nz, bex, bk, ux, uy, uz, bx, by, bz, alpha);
        float3 a = t0[i];
        float h = 0.5f * dt;
        mout[i] = unit3(mi.x + h * (a.x + t.x), mi.y + h * (a.y + t.y), mi.z + h * (a.z + t.z));
    }
}

// the dipolar field (T) at each of n particles (positions pos in nm, moments mom in A m^2)
// from all the others: B_i = mu0 / 4 pi sum_j (3 (m_j . r) r / r^5 - m_j / r^3), r = p_i - p_j
// (blockDim.x == DP_TILE)
__global__ void dipolar_field(const float3 *pos, const float3 *mom, float3 *B, int n) {
    __shared__ float3 s_pos[DP_TILE];
    __shared__ float3 s_mom[DP_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float3 p = make_float3(0.0f, 0.0f, 0.0f);
    if (i < n) p = pos[i];
    float bx = 0.0f, by = 0.0f, bz = 0.0f;
    for (int t = 0; t < n; t += DP_TILE) {
        int j = t + threadIdx.x;
        if (j < n) {
            s_pos[threadIdx.x] = pos[j];
            s_mom[threadIdx.x] = mom[j];
        }
        __syncthreads();
        int cnt = min(DP_TILE, n - t);
        for (int k = 0; k < cnt; k++) {
            if (t + k == i) continue;                // no self-field
            float dx = p.x - s_pos[k].x;
            float dy = p.y - s_pos[k].y;
            float dz = p.z - s_pos[k].z;
            float r2 = dx * dx + dy * dy + dz * dz;
            float ri = rsqrtf(r2);
            float ri3 = ri * ri * ri;
            float3 mj = s_mom[k];
            float f = 3.0f * (mj.x * dx + mj.y * dy + mj.z * dz) * ri * ri;
            bx += ri3 * (f * dx - mj.x);
            by += ri3 * (f * dy - mj.y);
            bz += ri3 * (f * dz - mj.z);
        }
        __syncthreads();
    }
    if (i < n) B[i] = make_float3(DP_MU0_4PI * bx, DP_MU0_4PI * by, DP_MU0_4PI * bz);
}

// the energies (J) of an nx x ny film of cells of volume dV (m^3) and side 1 / sqrt(inv_dx2) (m),
// magnetisation (mx, my, mz), region[i] the cell's material: E[0] += exchange (each bond to
// the +x and +y neighbour once), E[1] += anisotropy -Ku (m . u)^2, E[2] += Zeeman -Ms B . m
// (B in T) (blockDim.x == EN_BLOCK)
__global__ void film_energy(const float *mx, const float *my, const float *mz, const unsigned char *region, double *E,
                            int nx, int ny, float inv_dx2, float bx, float by, float bz, float dV) {
    __shared__ double s_ex[EN_BLOCK];
    __shared__ double s_an[EN_BLOCK];
    __shared__ double s_ze[EN_BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    float ex = 0.0f, an = 0.0f, ze = 0.0f;
    if (i < nx * ny) {
        int x = i % nx;
        int y = i / nx;
        Material p = c_mat[region[i]];
        float ax = mx[i], ay = my[i], az = mz[i];
        float d2 = 0.0f;
        if (x + 1 < nx) {
            float dx = mx[i + 1] - ax, dy = my[i + 1] - ay, dz = mz[i + 1] - az;
            d2 += dx * dx + dy * dy + dz * dz;
        }
        if (y + 1 < ny) {
            float dx = mx[i + nx] - ax, dy = my[i + nx] - ay, dz = mz[i + nx] - az;
            d2 += dx * dx + dy * dy + dz * dz;
        }
        ex = p.A * inv_dx2 * d2 * dV;
        float mu = ax * p.ux + ay * p.uy + az * p.uz;
        an = -p.Ku * mu * mu * dV;
        ze = -p.Ms * (ax * bx + ay * by + az * bz) * dV;
    }
    s_ex[tid] = ex;
    s_an[tid] = an;
    s_ze[tid] = ze;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            s_ex[tid] += s_ex[tid + s];
            s_an[tid] += s_an[tid + s];
            s_ze[tid] += s_ze[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        atomicAdd(&E[0], s_ex[0]);
        atomicAdd(&E[1], s_an[0]);
        atomicAdd(&E[2], s_ze[0]);
    }
}

// colour `color`'s half sweep of the L^3 Heisenberg lattice (spins sx, sy, sz; x fastest,
// periodic; site (x, y, z) of colour (x + y + z) & 1, L even): energy -sum S_i . S_j -
// D sum Sz^2 - h sum Sz at inverse temperature beta; rng[site] each site's xorshift32
// state; *accepted += the moves accepted
__global__ void heisenberg_sweep(float *sx, float *sy, float *sz, unsigned int *rng, int *accepted, int L, int color,
                                 float beta, float D, float h) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int Lh = L / 2;
    int ok = 0;
    if (t < L * L * Lh) {
        int row = t / Lh;
        int y = row % L;
        int z = row / L;
        int x = 2 * (t % Lh) + ((y + z + color) & 1);
        int i = (z * L + y) * L + x;
        int xm = (z * L + y) * L + (x + L - 1) % L;
        int xp = (z * L + y) * L + (x + 1) % L;
        int ym = (z * L + (y + L - 1) % L) * L + x;
        int yp = (z * L + (y + 1) % L) * L + x;
        int zm = (((z + L - 1) % L) * L + y) * L + x;
        int zp = (((z + 1) % L) * L + y) * L + x;
        float hx = sx[xm] + sx[xp] + sx[ym] + sx[yp] + sx[zm] + sx[zp];
        float hy = sy[xm] + sy[xp] + sy[ym] + sy[yp] + sy[zm] + sy[zp];
        float hz = sz[xm] + sz[xp] + sz[ym] + sz[yp] + sz[zm] + sz[zp] + h;
        float ox = sx[i], oy = sy[i], oz = sz[i];
        unsigned int s = rng[i];
        float u[3];
        for (int k = 0; k < 3; k++) {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            u[k] = (float)(s >> 8) * (1.0f / 16777216.0f);       // uniform in [0, 1)
        }
        // a uniformly random unit vector
        float cz = 2.0f * u[0] - 1.0f;
        float sr = sqrtf(1.0f - cz * cz);
        float ph = 6.28318531f * u[1];
        float nx = sr * cosf(ph);
        float ny = sr * sinf(ph);
        float dE = -((nx - ox) * hx + (ny - oy) * hy + (cz - oz) * hz) - D * (cz * cz - oz * oz);
        if (dE <= 0.0f || u[2] < expf(-beta * dE)) {
            sx[i] = nx;
            sy[i] = ny;
            sz[i] = cz;
            ok = 1;
        }
        rng[i] = s;
    }
    unsigned int b = __ballot_sync(0xffffffff, ok);
    if ((threadIdx.x & 31) == 0) atomicAdd(accepted, __popc(b));
}

// n Stoner-Wohlfarth grains (easy axis at psi rad from the field, anisotropy field hk, angle
// theta of the moment from the field, updated) through nsteps field values H (same units as
// hk): energy / (K V) = sin^2(theta - psi) / 2 - (H / hk) cos theta; M[k] += the sum of the
// grains' cos theta at step k (nsteps <= SW_MAXSTEPS)
__global__ void sw_hysteresis(const float *psi, const float *hk, float *theta, const float *H, float *M, int nsteps,
                              int n) {
    __shared__ float s_M[SW_MAXSTEPS];
    for (int k = threadIdx.x; k < nsteps; k += blockDim.x) s_M[k] = 0.0f;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float ps = psi[i];
        float inv_hk = 1.0f / hk[i];
        float th = theta[i];
        for (int k = 0; k < nsteps; k++) {
            float h = H[k] * inv_hk;
            for (int it = 0; it < SW_MAXIT; it++) {
                float g = 0.5f * sinf(2.0f * (th - ps)) + h * sinf(th);      // dE / dtheta
                float c = cosf(2.0f * (th - ps)) + h * cosf(th);             // d2E / dtheta2
                if (fabsf(g) < SW_TOL && c > 0.0f) break;                    // at a minimum
                float step;
                if (c > 0.0f) step = -g / c;                                 // Newton
                else step = -copysignf(0.1f, g);                             // not convex: go downhill
                step = fminf(fmaxf(step, -0.1f), 0.1f);
                th += step;
            }
            atomicAdd(&s_M[k], cosf(th));
        }
        theta[i] = th;
    }
    __syncthreads();
    for (int k = threadIdx.x; k < nsteps; k += blockDim.x) atomicAdd(&M[k], s_M[k]);
}

// the topological charge of each plaquette (x, y)-(x+1, y)-(x+1, y+1)-(x, y+1) of an nx x ny
// periodic film of unit vectors m (x fastest) in q, their sum added to *Q (blockDim.x a
// multiple of 32)
__global__ void skyrmion_charge(const float3 *m, float *q, float *Q, int nx, int ny) {
    __shared__ float s_warp[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float qi = 0.0f;
    if (i < nx * ny) {
        int x = i % nx;
        int y = i / nx;
        int xr = (x + 1) % nx;
        int yu = (y + 1) % ny;
        float3 a = m[i];
        float3 b = m[y * nx + xr];
        float3 c = m[yu * nx + xr];
        float3 d = m[yu * nx + x];
        qi = (solid_angle(a, b, c) + solid_angle(a, c, d)) * SK_INV_4PI;
        q[i] = qi;
    }
    for (int o = 16; o > 0; o >>= 1) qi += __shfl_down_sync(0xffffffff, qi, o);
    int lane = threadIdx.x & 31;
    int w = threadIdx.x >> 5;
    if (lane == 0) s_warp[w] = qi;
    __syncthreads();
    if (w == 0) {
        float v = lane < (blockDim.x >> 5) ? s_warp[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
        if (lane == 0) atomicAdd(Q, v);
    }
}

}
