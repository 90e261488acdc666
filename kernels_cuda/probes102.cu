// probe-unseen100: a computational plasma physics course's particle-in-cell (PIC) CUDA
// assignments, as a student who knows CUDA basics hands them in. The box is periodic (the
// particles' kernels) or a grounded square (the field solve); lengths are normalized to the
// box, so a position times the inverse cell size is its cell coordinate.
//
//   deposit_rho_cic   charge deposition: a thread a particle (positions in [0, 1)^2, in
//                     random order), the particle's charge qw spread onto the 4 nodes of its
//                     cell of a periodic nx x ny grid with cloud-in-cell (bilinear) weights
//                     by 4 float atomicAdds into rho (row-major, rho[j nx + i])
//   boris_push_2d3v   field gather and Boris push of a magnetized 2D3V electrostatic
//                     plasma: a thread a particle, Ex and Ey interpolated from the grid's 4
//                     nodes with the same CIC weights, a half electric kick, the Boris
//                     rotation about a uniform B (bx, by, bz), a second half kick, the drift
//                     in x and y with periodic wrap; positions and velocities updated in
//                     place (structure of arrays)
//   mirror_trace      test particles in a magnetic bottle B = b0 (-x z / L^2, -y z / L^2,
//                     1 + z^2 / L^2) (divergence-free): a thread a particle, up to nsteps
//                     Boris steps (pure magnetic field, 3-D rotation with the field
//                     evaluated at the particle each step), leaving the loop when |z| > zmax
//                     (the particle escaped through a mirror: the loss cone); the state, the
//                     steps survived and a global count of escaped particles (atomicAdd)
//   poisson_jacobi    one Jacobi sweep of the Poisson equation lap(phi) = -rho / eps0 on a
//                     grounded nx x ny grid in double: 16 x 16 tiles of phi staged in shared
//                     memory with a one-cell halo, the interior updated (the boundary copied),
//                     each block's largest |phi_new - phi| by a shared-memory tree (the host
//                     takes the maximum of the blocks' to test convergence)
//   sort_scatter      the last pass of sorting particles by cell (count, scan, scatter): a
//                     thread a particle (nearly sorted: sorted at the previous sort, moved
//                     since), its cell from its position, its slot the cell's start (the scan
//                     of the counts) plus an atomicAdd on the cell's fill counter; its 5
//                     floats and its index written to the slot
//   vdist_diag        diagnostics of a two-stream run: a grid-stride loop (DG_PER particles a
//                     thread) building the vx distribution in a shared-memory histogram
//                     (atomicAdd) and summing v^2; the kinetic energy by warp shuffles, the
//                     warps' partial sums in shared memory and one double atomicAdd a block;
//                     the histogram's nonzero bins added to the global one by atomicAdd

#define JT 16          // poisson_jacobi: the tile's side (blockDim 16 x 16)
#define DG_BINS 128    // vdist_diag: bins of the vx distribution

extern "C" {

// CIC charge deposition of np particles (x, y in [0, 1)) onto the periodic nx x ny grid rho
__global__ void deposit_rho_cic(const float *x, const float *y, float *rho, float qw, float inv_dx, float inv_dy,
                                int nx, int ny, int np) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= np) return;
    float gx = x[p] * inv_dx;
    float gy = y[p] * inv_dy;
    int i = (int)gx;
    int j = (int)gy;
    float fx = gx - i;
    float fy = gy - j;
    int ip = i + 1;
    int jp = j + 1;
    if (ip == nx) ip = 0;      // periodic
    if (jp == ny) jp = 0;
    atomicAdd(&rho[j * nx + i], qw * (1.0f - fx) * (1.0f - fy));
    atomicAdd(&rho[j * nx + ip], qw * fx * (1.0f - fy));
    atomicAdd(&rho[jp * nx + i], qw * (1.0f - fx) * fy);
    atomicAdd(&rho[jp * nx + ip], qw * fx * fy);
}

// one leapfrog step of np particles: E gathered by CIC from the grid (Ex, Ey nx x ny), the
// Boris push in the uniform field B (bx, by, bz), then x += vx dt, y += vy dt in the
// periodic box [0, lx) x [0, ly)
__global__ void boris_push_2d3v(float *x, float *y, float *vx, float *vy, float *vz, const float *Ex,
                                const float *Ey, float bx, float by, float bz, float qm, float dt, float inv_dx,
                                float inv_dy, float lx, float ly, int nx, int ny, int np) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= np) return;
    float px = x[p];
    float py = y[p];

    // gather E at the particle (same weights as the deposition)
    float gx = px * inv_dx;
    float gy = py * inv_dy;
    int i = (int)gx;
    int j = (int)gy;
    float fx = gx - i;
    float fy = gy - j;
    int ip = i + 1;
    int jp = j + 1;
    if (ip == nx) ip = 0;
    if (jp == ny) jp = 0;
    float w00 = (1.0f - fx) * (1.0f - fy);
    float w10 = fx * (1.0f - fy);
    float w01 = (1.0f - fx) * fy;
    float w11 = fx * fy;
    float ex = w00 * Ex[j * nx + i] + w10 * Ex[j * nx + ip] + w01 * Ex[jp * nx + i] + w11 * Ex[jp * nx + ip];
    float ey = w00 * Ey[j * nx + i] + w10 * Ey[j * nx + ip] + w01 * Ey[jp * nx + i] + w11 * Ey[jp * nx + ip];

    // Boris: half kick, rotation, half kick
    float h = 0.5f * qm * dt;
    float ux = vx[p] + h * ex;
    float uy = vy[p] + h * ey;
    float uz = vz[p];
    float tx = h * bx;
    float ty = h * by;
    float tz = h * bz;
    float f = 2.0f / (1.0f + tx * tx + ty * ty + tz * tz);
    float sx = f * tx;
    float sy = f * ty;
    float sz = f * tz;
    float wx = ux + (uy * tz - uz * ty);
    float wy = uy + (uz * tx - ux * tz);
    float wz = uz + (ux * ty - uy * tx);
    ux += wy * sz - wz * sy;
    uy += wz * sx - wx * sz;
    uz += wx * sy - wy * sx;
    ux += h * ex;
    uy += h * ey;

    // drift, periodic wrap
    px += ux * dt;
    py += uy * dt;
    if (px < 0.0f) px += lx;
    if (px >= lx) px -= lx;
    if (py < 0.0f) py += ly;
    if (py >= ly) py -= ly;

    x[p] = px;
    y[p] = py;
    vx[p] = ux;
    vy[p] = uy;
    vz[p] = uz;
}

// up to nsteps Boris steps of np test particles in the magnetic bottle (b0, 1 / L^2 =
// inv_l2); a particle with |z| > zmax has escaped: it stops, and is counted in *n_lost
__global__ void mirror_trace(float *x, float *y, float *z, float *vx, float *vy, float *vz, int *steps,
                             int *n_lost, float b0, float inv_l2, float zmax, float qm, float dt, int nsteps,
                             int np) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= np) return;
    float px = x[p];
    float py = y[p];
    float pz = z[p];
    float ux = vx[p];
    float uy = vy[p];
    float uz = vz[p];
    float h = 0.5f * qm * dt;
    int done = nsteps;
    int lost = 0;
    for (int s = 0; s < nsteps; s++) {
        // the bottle's field at the particle
        float bx = -b0 * px * pz * inv_l2;
        float by = -b0 * py * pz * inv_l2;
        float bz = b0 * (1.0f + pz * pz * inv_l2);
        float tx = h * bx;
        float ty = h * by;
        float tz = h * bz;
        float f = 2.0f / (1.0f + tx * tx + ty * ty + tz * tz);
        float wx = ux + (uy * tz - uz * ty);
        float wy = uy + (uz * tx - ux * tz);
        float wz = uz + (ux * ty - uy * tx);
        ux += f * (wy * tz - wz * ty);
        uy += f * (wz * tx - wx * tz);
        uz += f * (wx * ty - wy * tx);
        px += ux * dt;
        py += uy * dt;
        pz += uz * dt;
        if (fabsf(pz) > zmax) {
            done = s + 1;
            lost = 1;
            break;
        }
    }
    x[p] = px;
    y[p] = py;
    z[p] = pz;
    vx[p] = ux;
    vy[p] = uy;
    vz[p] = uz;
    steps[p] = done;
    if (lost) atomicAdd(n_lost, 1);
}

// one Jacobi sweep on the nx x ny grid (row-major): phi_new = (the 4 neighbours + h2 rho) / 4
// inside, phi on the boundary; block_res[block] = the block's max |phi_new - phi|
__global__ void poisson_jacobi(const double *phi, double *phi_new, const double *rho, double *block_res, double h2,
                               int nx, int ny) {
    __shared__ double s_phi[JT + 2][JT + 2];
    __shared__ double s_res[JT * JT];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int i = blockIdx.x * JT + tx;
    int j = blockIdx.y * JT + ty;
    bool inside = (i < nx && j < ny);

    if (inside) {
        s_phi[ty + 1][tx + 1] = phi[j * nx + i];
        if (tx == 0 && i > 0) s_phi[ty + 1][0] = phi[j * nx + i - 1];
        if (tx == JT - 1 && i < nx - 1) s_phi[ty + 1][JT + 1] = phi[j * nx + i + 1];
        if (ty == 0 && j > 0) s_phi[0][tx + 1] = phi[(j - 1) * nx + i];
        if (ty == JT - 1 && j < ny - 1) s_phi[JT + 1][tx + 1] = phi[(j + 1) * nx + i];
    }
    __syncthreads();

    double r = 0.0;
    if (inside) {
        if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1) {
            double v = 0.25 * (s_phi[ty + 1][tx] + s_phi[ty + 1][tx + 2] + s_phi[ty][tx + 1] + s_phi[ty + 2][tx + 1] +
                               h2 * rho[j * nx + i]);
            r = fabs(v - s_phi[ty + 1][tx + 1]);
            phi_new[j * nx + i] = v;
        } else {
            phi_new[j * nx + i] = s_phi[ty + 1][tx + 1];    // grounded wall: phi stays
        }
    }

    // the block's largest change
    int t = ty * JT + tx;
    s_res[t] = r;
    __syncthreads();
    for (int s = JT * JT / 2; s > 0; s >>= 1) {
        if (t < s) s_res[t] = fmax(s_res[t], s_res[t + s]);
        __syncthreads();
    }
    if (t == 0) block_res[blockIdx.y * gridDim.x + blockIdx.x] = s_res[0];
}

// scatter np particles into cell order: cell = (int)(y / dy) nx + (int)(x / dx), slot =
// cell_start[cell] + atomicAdd(&cell_fill[cell], 1) (cell_fill zeroed by the host)
__global__ void sort_scatter(const float *x, const float *y, const float *vx, const float *vy, const float *vz,
                             const int *cell_start, int *cell_fill, float *xs, float *ys, float *vxs, float *vys,
                             float *vzs, int *id_sorted, float inv_dx, float inv_dy, int nx, int np) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= np) return;
    float px = x[p];
    float py = y[p];
    int cell = (int)(py * inv_dy) * nx + (int)(px * inv_dx);
    int slot = cell_start[cell] + atomicAdd(&cell_fill[cell], 1);
    xs[slot] = px;
    ys[slot] = py;
    vxs[slot] = vx[p];
    vys[slot] = vy[p];
    vzs[slot] = vz[p];
    id_sorted[slot] = p;
}

// f(vx) on DG_BINS bins of width 1 / inv_dv from vmin (values outside dropped) added into
// hist, and half_m sum(vx^2 + vy^2 + vz^2) added into *ke; grid-stride over np particles
__global__ void vdist_diag(const float *vx, const float *vy, const float *vz, unsigned int *hist, double *ke,
                           float vmin, float inv_dv, float half_m, int np) {
    __shared__ unsigned int s_hist[DG_BINS];
    __shared__ float s_warp[32];
    for (int b = threadIdx.x; b < DG_BINS; b += blockDim.x) s_hist[b] = 0;
    __syncthreads();

    float sum = 0.0f;
    for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < np; p += blockDim.x * gridDim.x) {
        float ux = vx[p];
        float uy = vy[p];
        float uz = vz[p];
        sum += ux * ux + uy * uy + uz * uz;
        int b = (int)floorf((ux - vmin) * inv_dv);
        if (b >= 0 && b < DG_BINS) atomicAdd(&s_hist[b], 1u);
    }

    // kinetic energy: warp sums, then the first warp sums the warps'
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffff, sum, o);
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    if (lane == 0) s_warp[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        float w = (lane < blockDim.x / 32) ? s_warp[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) w += __shfl_down_sync(0xffffffff, w, o);
        if (lane == 0) atomicAdd(ke, (double)(half_m * w));
    }

    for (int b = threadIdx.x; b < DG_BINS; b += blockDim.x)
        if (s_hist[b] > 0) atomicAdd(&hist[b], s_hist[b]);
}

}
