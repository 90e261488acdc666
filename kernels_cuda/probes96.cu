// probe-unseen94: a computational-astrophysics course's CUDA assignments, as a student who
// knows CUDA basics hands them in. The particles live in a periodic unit box (the N-body
// one in open space), positions and velocities as float arrays or float4s:
//
// nbody_accel_pot: direct-sum gravity with Plummer softening, a thread a body, the bodies'
//   x, y, z, m (separate arrays) staged NB_TILE at a time into shared memory; each thread
//   sums the acceleration over every body and the potential over every body but itself
//   (an `if` on the index inside the inner loop), G times each stored.
// cic_deposit3d: cloud-in-cell mass assignment of equal-mass particles onto a periodic
//   ng^3 density mesh (cell-centred: the 8 cells around x ng - 0.5 with tri-linear
//   weights), a thread a particle, 8 float atomicAdds each straight into global memory.
// pm_interp_accel: the particle-mesh force interpolation, the transpose of the deposit: a
//   thread a particle gathers the mesh acceleration (three ng^3 component meshes) from the
//   same 8 cells with the same CIC weights and stores it.
// fof_link_step: one sweep of friends-of-friends label propagation on a cell list (the
//   particles sorted by cell, cells of side 1 / ncell, cell_start -1 for an empty cell as
//   in the CUDA particles sample): each particle walks the 27 cells around its own and
//   takes the smallest label among the particles within the linking length (minimum
//   image), writing the new label and counting the particles whose label dropped with a
//   global atomicAdd.
// pk_shell_bin: power-spectrum estimation, the binning half: the |delta_k|^2 of a real-to-
//   complex FFT grid (ng x ng x (ng/2 + 1) float2, numpy's rfftn layout) summed in shells
//   of |k| rounded to the nearest integer (the planes kz = 0 and ng/2 weighted 1, the rest
//   2 for their Hermitian twins, the DC mode and |k| >= nbins left out), a grid-stride loop
//   over the modes with a block's histogram (power and mode count) in shared memory by
//   shared atomicAdds, flushed with one global atomicAdd a bin a block.
// leapfrog_kick_drift: the leapfrog (kick-drift, the previous step's closing half-kick and
//   this one's opening half-kick merged into one kick of dt) on float4 positions (w the
//   mass) and velocities, the positions wrapped into the periodic box, and the kinetic
//   energy summed by a shared-memory tree reduction and one float atomicAdd a block.

#define NB_TILE 128           // nbody_accel_pot: bodies a shared tile (blockDim.x == NB_TILE)
#define PK_MAXBINS 256        // pk_shell_bin: the most shells (nbins <= PK_MAXBINS)
#define LF_BLOCK 256          // leapfrog_kick_drift: blockDim.x (a power of two)

extern "C" {

// direct-sum accelerations and potentials of n bodies (G, softening eps2 = eps^2)
__global__ void nbody_accel_pot(const float *x, const float *y, const float *z, const float *m, float *ax,
                                float *ay, float *az, float *pot, float G, float eps2, int n) {
    __shared__ float sx[NB_TILE];
    __shared__ float sy[NB_TILE];
    __shared__ float sz[NB_TILE];
    __shared__ float sm[NB_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float xi = 0.0f, yi = 0.0f, zi = 0.0f;
    if (i < n) {
        xi = x[i];
        yi = y[i];
        zi = z[i];
    }
    float axi = 0.0f, ayi = 0.0f, azi = 0.0f, phi = 0.0f;
    for (int tile = 0; tile < n; tile += NB_TILE) {
        int j = tile + threadIdx.x;
        if (j < n) {
            sx[threadIdx.x] = x[j];
            sy[threadIdx.x] = y[j];
            sz[threadIdx.x] = z[j];
            sm[threadIdx.x] = m[j];
        } else {                                  // past the last body: a massless one
            sx[threadIdx.x] = 0.0f;
            sy[threadIdx.x] = 0.0f;
            sz[threadIdx.x] = 0.0f;
            sm[threadIdx.x] = 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < NB_TILE; k++) {
            float dx = sx[k] - xi;
            float dy = sy[k] - yi;
            float dz = sz[k] - zi;
            float r2 = dx * dx + dy * dy + dz * dz + eps2;
            float rinv = rsqrtf(r2);
            float mr3 = sm[k] * rinv * rinv * rinv;
            axi += mr3 * dx;
            ayi += mr3 * dy;
            azi += mr3 * dz;
            if (tile + k != i) phi -= sm[k] * rinv;
        }
        __syncthreads();
    }
    if (i < n) {
        ax[i] = G * axi;
        ay[i] = G * ayi;
        az[i] = G * azi;
        pot[i] = G * phi;
    }
}

// CIC deposit of n particles of mass pmass (positions in [0, 1)) onto rho (ng^3, x fastest)
__global__ void cic_deposit3d(const float *x, const float *y, const float *z, float *rho, float pmass, int ng,
                              int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float gx = x[i] * ng - 0.5f;
    float gy = y[i] * ng - 0.5f;
    float gz = z[i] * ng - 0.5f;
    int ix = (int)floorf(gx);
    int iy = (int)floorf(gy);
    int iz = (int)floorf(gz);
    float fx = gx - ix;
    float fy = gy - iy;
    float fz = gz - iz;
    int ix0 = (ix + ng) % ng, ix1 = (ix + 1) % ng;
    int iy0 = (iy + ng) % ng, iy1 = (iy + 1) % ng;
    int iz0 = (iz + ng) % ng, iz1 = (iz + 1) % ng;
    float wx0 = 1.0f - fx, wy0 = 1.0f - fy, wz0 = 1.0f - fz;
    atomicAdd(&rho[(iz0 * ng + iy0) * ng + ix0], pmass * wx0 * wy0 * wz0);
    atomicAdd(&rho[(iz0 * ng + iy0) * ng + ix1], pmass * fx * wy0 * wz0);
    atomicAdd(&rho[(iz0 * ng + iy1) * ng + ix0], pmass * wx0 * fy * wz0);
    atomicAdd(&rho[(iz0 * ng + iy1) * ng + ix1], pmass * fx * fy * wz0);
    atomicAdd(&rho[(iz1 * ng + iy0) * ng + ix0], pmass * wx0 * wy0 * fz);
    atomicAdd(&rho[(iz1 * ng + iy0) * ng + ix1], pmass * fx * wy0 * fz);
    atomicAdd(&rho[(iz1 * ng + iy1) * ng + ix0], pmass * wx0 * fy * fz);
    atomicAdd(&rho[(iz1 * ng + iy1) * ng + ix1], pmass * fx * fy * fz);
}

// the mesh acceleration (gx, gy, gz: ng^3 each, x fastest) at n particles by CIC
__global__ void pm_interp_accel(const float *x, const float *y, const float *z, const float *gx,
                                const float *gy, const float *gz, float *ax, float *ay, float *az, int ng,
                                int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float px = x[i] * ng - 0.5f;
    float py = y[i] * ng - 0.5f;
    float pz = z[i] * ng - 0.5f;
    int ix = (int)floorf(px);
    int iy = (int)floorf(py);
    int iz = (int)floorf(pz);
    float fx = px - ix;
    float fy = py - iy;
    float fz = pz - iz;
    int cx[2] = {(ix + ng) % ng, (ix + 1) % ng};
    int cy[2] = {(iy + ng) % ng, (iy + 1) % ng};
    int cz[2] = {(iz + ng) % ng, (iz + 1) % ng};
    float wx[2] = {1.0f - fx, fx};
    float wy[2] = {1.0f - fy, fy};
    float wz[2] = {1.0f - fz, fz};
    float sx = 0.0f, sy = 0.0f, sz = 0.0f;
    for (int c = 0; c < 2; c++) {
        for (int b = 0; b < 2; b++) {
            for (int a = 0; a < 2; a++) {
                int idx = (cz[c] * ng + cy[b]) * ng + cx[a];
                float w = wx[a] * wy[b] * wz[c];
                sx += w * gx[idx];
                sy += w * gy[idx];
                sz += w * gz[idx];
            }
        }
    }
    ax[i] = sx;
    ay[i] = sy;
    az[i] = sz;
}

// one friends-of-friends sweep: label_out[i] = the smallest label_in of the particles
// within sqrt(b2) of i (itself included), periodic box 1, particles sorted by cell
__global__ void fof_link_step(const float *px, const float *py, const float *pz, const int *cell_start,
                              const int *cell_end, const int *label_in, int *label_out, int *changed, float b2,
                              int ncell, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = px[i];
    float yi = py[i];
    float zi = pz[i];
    int cx = min((int)(xi * ncell), ncell - 1);
    int cy = min((int)(yi * ncell), ncell - 1);
    int cz = min((int)(zi * ncell), ncell - 1);
    int li = label_in[i];
    int best = li;
    for (int dz = -1; dz <= 1; dz++) {
        int zc = (cz + dz + ncell) % ncell;
        for (int dy = -1; dy <= 1; dy++) {
            int yc = (cy + dy + ncell) % ncell;
            for (int dx = -1; dx <= 1; dx++) {
                int xc = (cx + dx + ncell) % ncell;
                int c = (zc * ncell + yc) * ncell + xc;
                int s = cell_start[c];
                if (s < 0) continue;
                int e = cell_end[c];
                for (int j = s; j < e; j++) {
                    float rx = px[j] - xi;
                    float ry = py[j] - yi;
                    float rz = pz[j] - zi;
                    rx -= rintf(rx);                      // minimum image, box 1
                    ry -= rintf(ry);
                    rz -= rintf(rz);
                    if (rx * rx + ry * ry + rz * rz < b2) best = min(best, label_in[j]);
                }
            }
        }
    }
    label_out[i] = best;
    if (best < li) atomicAdd(changed, 1);
}

// shell-binned power of an rfftn grid dk (ng x ng x (ng/2 + 1)): pk[b] += the weighted
// |dk|^2 of the modes with (int)(|k| + 0.5) == b, nmodes[b] += their weights
__global__ void pk_shell_bin(const float2 *dk, float *pk, unsigned int *nmodes, int ng, int nbins) {
    __shared__ float s_pk[PK_MAXBINS];
    __shared__ unsigned int s_n[PK_MAXBINS];
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) {
        s_pk[b] = 0.0f;
        s_n[b] = 0;
    }
    __syncthreads();
    int nz = ng / 2 + 1;
    int total = ng * ng * nz;
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += gridDim.x * blockDim.x) {
        int kz = idx % nz;
        int jy = (idx / nz) % ng;
        int jx = idx / (nz * ng);
        int kx = jx < ng / 2 ? jx : jx - ng;
        int ky = jy < ng / 2 ? jy : jy - ng;
        float k = sqrtf((float)(kx * kx + ky * ky + kz * kz));
        int b = (int)(k + 0.5f);
        if (b > 0 && b < nbins) {
            float2 d = dk[idx];
            float p = d.x * d.x + d.y * d.y;
            unsigned int w = (kz == 0 || kz == ng / 2) ? 1 : 2;
            atomicAdd(&s_pk[b], w * p);
            atomicAdd(&s_n[b], w);
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) {
        atomicAdd(&pk[b], s_pk[b]);
        atomicAdd(&nmodes[b], s_n[b]);
    }
}

// a leapfrog step of n particles: v += dt a, x += dt v wrapped into [0, box); the
// kinetic energy (1/2 m v^2 of the new v, m = pos.w) added into *ekin
__global__ void leapfrog_kick_drift(float4 *pos, float4 *vel, const float4 *acc, float *ekin, float dt, float box,
                                    int n) {
    __shared__ float s_e[LF_BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float e = 0.0f;
    if (i < n) {
        float4 p = pos[i];
        float4 v = vel[i];
        float4 a = acc[i];
        v.x += dt * a.x;
        v.y += dt * a.y;
        v.z += dt * a.z;
        p.x += dt * v.x;
        p.y += dt * v.y;
        p.z += dt * v.z;
        p.x -= box * floorf(p.x / box);
        p.y -= box * floorf(p.y / box);
        p.z -= box * floorf(p.z / box);
        pos[i] = p;
        vel[i] = v;
        e = 0.5f * p.w * (v.x * v.x + v.y * v.y + v.z * v.z);
    }
    s_e[threadIdx.x] = e;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) s_e[threadIdx.x] += s_e[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(ekin, s_e[0]);
}

}
