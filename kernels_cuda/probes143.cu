// probe-unseen141: a smoothed-particle-hydrodynamics (particle-based fluids) course's CUDA
// assignments, as a student who knows CUDA basics hands them in. The fluid lives in a box
// [0, m h)^3 cut into m^3 cells of the smoothing length h; positions and velocities are
// float4s (w unused).
//   bin_particles:     cell-list binning: each particle's cell from its position, the
//                      cell's counter bumped by atomicAdd (the old value is the particle's
//                      slot in its cell, for the counting sort that follows);
//   scan_cell_counts:  the counting sort's offsets: an exclusive scan of the cells' counts,
//                      SCAN_BLOCK cells a block, Hillis-Steele double-buffered in shared
//                      memory, each block's total stored for the next pass;
//   sph_density:       density summation with the poly6 kernel over the 27 neighbour cells
//                      of the sorted particles (cell_start/cell_end), and the pressure from
//                      the equation of state p = k (rho - rho0);
//   sph_forces:        pressure (spiky gradient) and viscosity (its Laplacian) forces over
//                      the same neighbour cells, plus gravity: the acceleration;
//   sph_leapfrog:      the leapfrog (kick-drift) step with a velocity limiter (CFL guard);
//   sph_boundary:      boundary handling: the box's walls and N_OBST sphere obstacles from
//                      __constant__ memory, penetrating particles projected back to the
//                      surface, the normal velocity reflected with restitution and the
//                      tangential one damped by friction.

#define SCAN_BLOCK 512        // scan_cell_counts: cells a block (blockDim.x == SCAN_BLOCK)
#define N_OBST 8              // sph_boundary: sphere obstacles

// sph_boundary's obstacles (set by the host): centre x, y, z and radius w
__constant__ float4 c_obst[N_OBST];

extern "C" {

// the cell coordinate of x along one axis (clamped into the grid)
__device__ int cell_coord(float x, float inv_h, int m) {
    int c = (int)(x * inv_h);
    if (c < 0) c = 0;
    if (c > m - 1) c = m - 1;
    return c;
}

// n particles binned into the m^3 cells of side 1 / inv_h: cell_of[i] its cell (x
// fastest), slot[i] its place in the cell (atomicAdd on cell_count)
__global__ void bin_particles(const float4 *pos, int *cell_of, int *cell_count, int *slot, float inv_h, int m,
                              int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i];
    int cx = cell_coord(p.x, inv_h, m);
    int cy = cell_coord(p.y, inv_h, m);
    int cz = cell_coord(p.z, inv_h, m);
    int c = (cz * m + cy) * m + cx;
    cell_of[i] = c;
    slot[i] = atomicAdd(&cell_count[c], 1);
}

// the exclusive scan of n cell counts, SCAN_BLOCK a block (Hillis-Steele, double buffer):
// start[i] the sum of the counts before i in its block, block_sums[b] block b's total
__global__ void scan_cell_counts(const int *count, int *start, int *block_sums, int n) {
    __shared__ int temp[2 * SCAN_BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * SCAN_BLOCK + t;
    int pout = 0;
    int pin = 1;
    // shift right by one for the exclusive scan
    temp[t] = (t > 0 && i - 1 < n) ? count[i - 1] : 0;
    __syncthreads();
    for (int off = 1; off < SCAN_BLOCK; off *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= off)
            temp[pout * SCAN_BLOCK + t] = temp[pin * SCAN_BLOCK + t] + temp[pin * SCAN_BLOCK + t - off];
        else
            temp[pout * SCAN_BLOCK + t] = temp[pin * SCAN_BLOCK + t];
        __syncthreads();
    }
    if (i < n) start[i] = temp[pout * SCAN_BLOCK + t];
    if (t == SCAN_BLOCK - 1) block_sums[blockIdx.x] = temp[pout * SCAN_BLOCK + t] + (i < n ? count[i] : 0);
}

// each particle's density: mass poly6 sum over the neighbours j (itself included) within h
// of (h^2 - r^2)^3, the particles sorted by cell and cell c's in [cell_start[c],
// cell_end[c]); the pressure k_gas (rho - rho0)
__global__ void sph_density(const float4 *pos, const int *cell_start, const int *cell_end, float *rho, float *press,
                            float h2, float inv_h, float mass, float poly6, float k_gas, float rho0, int m, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    int cx = cell_coord(pi.x, inv_h, m);
    int cy = cell_coord(pi.y, inv_h, m);
    int cz = cell_coord(pi.z, inv_h, m);
    float sum = 0.0f;
    for (int dz = -1; dz <= 1; dz++) {
        int z = cz + dz;
        if (z < 0 || z >= m) continue;
        for (int dy = -1; dy <= 1; dy++) {
            int y = cy + dy;
            if (y < 0 || y >= m) continue;
            for (int dx = -1; dx <= 1; dx++) {
                int x = cx + dx;
                if (x < 0 || x >= m) continue;
                int c = (z * m + y) * m + x;
                int s = cell_start[c];
                int e = cell_end[c];
                for (int j = s; j < e; j++) {
                    float4 pj = pos[j];
                    float rx = pi.x - pj.x;
                    float ry = pi.y - pj.y;
                    float rz = pi.z - pj.z;
                    float r2 = rx * rx + ry * ry + rz * rz;
                    if (r2 < h2) {
                        float w = h2 - r2;
                        sum += w * w * w;
                    }
                }
            }
        }
    }
    float d = mass * poly6 * sum;
    rho[i] = d;
    press[i] = k_gas * (d - rho0);
}

// each particle's acceleration: the pressure force -sum m (p_i + p_j) / (2 rho_j) spiky
// (h - r)^2 r_ij / r and the viscosity mu sum m (v_j - v_i) / rho_j visc_lap (h - r) over
// the other particles within h, over rho_i, plus gravity along z
__global__ void sph_forces(const float4 *pos, const float4 *vel, const float *rho, const float *press,
                           const int *cell_start, const int *cell_end, float4 *acc, float h, float inv_h, float mass,
                           float spiky, float visc_lap, float mu, float gravity, int m, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    float4 vi = vel[i];
    float rhoi = rho[i];
    float pri = press[i];
    float h2 = h * h;
    int cx = cell_coord(pi.x, inv_h, m);
    int cy = cell_coord(pi.y, inv_h, m);
    int cz = cell_coord(pi.z, inv_h, m);
    float fx = 0.0f;
    float fy = 0.0f;
    float fz = 0.0f;
    for (int dz = -1; dz <= 1; dz++) {
        int z = cz + dz;
        if (z < 0 || z >= m) continue;
        for (int dy = -1; dy <= 1; dy++) {
            int y = cy + dy;
            if (y < 0 || y >= m) continue;
            for (int dx = -1; dx <= 1; dx++) {
                int x = cx + dx;
                if (x < 0 || x >= m) continue;
                int c = (z * m + y) * m + x;
                for (int j = cell_start[c]; j < cell_end[c]; j++) {
                    if (j == i) continue;
                    float4 pj = pos[j];
                    float rx = pi.x - pj.x;
                    float ry = pi.y - pj.y;
                    float rz = pi.z - pj.z;
                    float r2 = rx * rx + ry * ry + rz * rz;
                    if (r2 < h2) {
                        float r = sqrtf(r2);
                        float hr = h - r;
                        float rhoj = rho[j];
                        float fp = -mass * (pri + press[j]) / (2.0f * rhoj) * spiky * hr * hr / r;
                        fx += fp * rx;
                        fy += fp * ry;
                        fz += fp * rz;
                        float4 vj = vel[j];
                        float fv = mu * mass / rhoj * visc_lap * hr;
                        fx += fv * (vj.x - vi.x);
                        fy += fv * (vj.y - vi.y);
                        fz += fv * (vj.z - vi.z);
                    }
                }
            }
        }
    }
    acc[i] = make_float4(fx / rhoi, fy / rhoi, fz / rhoi + gravity, 0.0f);
}

// one leapfrog step: v += dt a, the speed limited to vmax (rescaled), x += dt v
__global__ void sph_leapfrog(float4 *pos, float4 *vel, const float4 *acc, float dt, float vmax, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i];
    float4 v = vel[i];
    float4 a = acc[i];
    v.x += dt * a.x;
    v.y += dt * a.y;
    v.z += dt * a.z;
    float s2 = v.x * v.x + v.y * v.y + v.z * v.z;
    if (s2 > vmax * vmax) {
        float sc = vmax / sqrtf(s2);
        v.x *= sc;
        v.y *= sc;
        v.z *= sc;
    }
    p.x += dt * v.x;
    p.y += dt * v.y;
    p.z += dt * v.z;
    pos[i] = p;
    vel[i] = v;
}

// boundary handling: a particle outside the box [0, box)^3 is put back on the wall and its
// normal velocity turned inward times restitution; one inside an obstacle sphere is
// projected onto its surface, an inward normal velocity reflected times restitution and the
// tangential velocity scaled by 1 - friction
__global__ void sph_boundary(float4 *pos, float4 *vel, float box, float restitution, float friction, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i];
    float4 v = vel[i];
    if (p.x < 0.0f) {
        p.x = 0.0f;
        v.x = restitution * fabsf(v.x);
    }
    if (p.x > box) {
        p.x = box;
        v.x = -restitution * fabsf(v.x);
    }
    if (p.y < 0.0f) {
        p.y = 0.0f;
        v.y = restitution * fabsf(v.y);
    }
    if (p.y > box) {
        p.y = box;
        v.y = -restitution * fabsf(v.y);
    }
    if (p.z < 0.0f) {
        p.z = 0.0f;
        v.z = restitution * fabsf(v.z);
    }
    if (p.z > box) {
        p.z = box;
        v.z = -restitution * fabsf(v.z);
    }
    for (int k = 0; k < N_OBST; k++) {
        float4 s = c_obst[k];
        float dx = p.x - s.x;
        float dy = p.y - s.y;
        float dz = p.z - s.z;
        float d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < s.w * s.w) {
            float d = sqrtf(d2);
            float nx = dx / d;
            float ny = dy / d;
            float nz = dz / d;
            p.x = s.x + s.w * nx;
            p.y = s.y + s.w * ny;
            p.z = s.z + s.w * nz;
            float vn = v.x * nx + v.y * ny + v.z * nz;
            if (vn < 0.0f) {
                float tx = v.x - vn * nx;
                float ty = v.y - vn * ny;
                float tz = v.z - vn * nz;
                v.x = (1.0f - friction) * tx - restitution * vn * nx;
                v.y = (1.0f - friction) * ty - restitution * vn * ny;
                v.z = (1.0f - friction) * tz - restitution * vn * nz;
            }
        }
    }
    pos[i] = p;
    vel[i] = v;
}

}
