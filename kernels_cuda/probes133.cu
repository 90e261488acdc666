// probe-unseen131: a molecular-dynamics course's CUDA assignments, as a student who knows
// CUDA basics hands them in (Lennard-Jones units: epsilon = sigma = 1, a periodic cubic
// box of side `box`, positions as float4 with w unused or the charge):
//   lj_cell_forces  Lennard-Jones forces and energies over a cell list, a thread an atom
//                   (atoms sorted by cell, each cell's atoms contiguous between
//                   cell_start and cell_end), the 27 neighbouring cells with periodic
//                   wrap, minimum image, a plain cutoff rc;
//   bond_forces     harmonic bond forces gathered by atom index, a thread an atom walking
//                   its bonds in a CSR list (bond_start / bond_partner / (k, r0) pairs):
//                   polymer chains plus random crosslinks, no atomics;
//   vv_berendsen    the second half-kick of velocity Verlet with a Berendsen thermostat's
//                   velocity scaling (lambda from the host), masses by atom type from
//                   __constant__ memory, the kinetic energy reduced a block in shared
//                   memory and added to one global float by atomicAdd;
//   rdf_hist        a radial-distribution-function histogram over all pairs (i != j):
//                   blockIdx.x picks a block of i atoms, blockIdx.y a chunk of RDF_CHUNK
//                   j atoms staged RDF_TILE at a time in shared memory, the bins counted
//                   by shared-memory atomics and merged into the global histogram;
//   cell_bin        building the cell list's bins: each atom's cell, a slot in it by a
//                   global atomicAdd on the cell's count, the atom's index stored in a
//                   fixed-capacity row of the cell (overflows counted);
//   ewald_real      the real-space part of an Ewald sum, a thread an atom looping over
//                   every other atom straight from global memory: minimum image, a
//                   cutoff, erfcf and expf for the screened Coulomb force and energy.

#define VV_BLOCK 256        // vv_berendsen: blockDim.x (the shared reduction's size)
#define VV_NTYPES 4         // vv_berendsen: atom types (masses in __constant__ memory)
#define RDF_BINS 256        // rdf_hist: the histogram's bins
#define RDF_TILE 128        // rdf_hist: j atoms staged a time (== blockDim.x)
#define RDF_CHUNK 512       // rdf_hist: j atoms a block (blockIdx.y picks the chunk)
#define MAX_PER_CELL 32     // cell_bin: a cell's capacity

__constant__ float c_mass[VV_NTYPES];
__constant__ float c_inv_mass[VV_NTYPES];

extern "C" {

// the cell (cx, cy, cz) of a position, clamped into the grid of m^3 cells
__device__ int cell_of(float x, float y, float z, float cell_len, int m) {
    int cx = (int)(x / cell_len);
    int cy = (int)(y / cell_len);
    int cz = (int)(z / cell_len);
    cx = min(max(cx, 0), m - 1);
    cy = min(max(cy, 0), m - 1);
    cz = min(max(cz, 0), m - 1);
    return (cz * m + cy) * m + cx;
}

// Lennard-Jones forces (xyz) and half the pair energies (w) of n atoms sorted by cell:
// atom i's cell from its position, the atoms of the 27 cells around it (periodic), pairs
// inside the cutoff (r^2 < rc2) by the minimum image
__global__ void lj_cell_forces(const float4 *pos, const int *cell_start, const int *cell_end, float4 *force,
                               float box, float cell_len, int m, float rc2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    int c = cell_of(pi.x, pi.y, pi.z, cell_len, m);
    int cx = c % m;
    int cy = (c / m) % m;
    int cz = c / (m * m);
    float fx = 0.0f, fy = 0.0f, fz = 0.0f, e = 0.0f;
    for (int dz = -1; dz <= 1; dz++) {
        for (int dy = -1; dy <= 1; dy++) {
            for (int dx = -1; dx <= 1; dx++) {
                int nx = (cx + dx + m) % m;
                int ny = (cy + dy + m) % m;
                int nz = (cz + dz + m) % m;
                int nc = (nz * m + ny) * m + nx;
                int end = cell_end[nc];
                for (int j = cell_start[nc]; j < end; j++) {
                    if (j == i) continue;
                    float4 pj = pos[j];
                    float rx = pi.x - pj.x;
                    float ry = pi.y - pj.y;
                    float rz = pi.z - pj.z;
                    rx -= box * rintf(rx / box);
                    ry -= box * rintf(ry / box);
                    rz -= box * rintf(rz / box);
                    float r2 = rx * rx + ry * ry + rz * rz;
                    if (r2 < rc2) {
                        float ir2 = 1.0f / r2;
                        float ir6 = ir2 * ir2 * ir2;
                        float fr = 24.0f * ir2 * ir6 * (2.0f * ir6 - 1.0f);
                        fx += fr * rx;
                        fy += fr * ry;
                        fz += fr * rz;
                        e += 4.0f * ir6 * (ir6 - 1.0f);
                    }
                }
            }
        }
    }
    force[i] = make_float4(fx, fy, fz, 0.5f * e);
}

// harmonic bond forces F = -k (r - r0) r_hat on each atom from its bonds (CSR: atom i's
// bonds bond_start[i] .. bond_start[i + 1], partner and (k, r0) each), minimum image;
// w the atom's half of its bonds' energies
__global__ void bond_forces(const float4 *pos, const int *bond_start, const int *bond_partner,
                            const float2 *bond_param, float4 *force, float box, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    float fx = 0.0f, fy = 0.0f, fz = 0.0f, e = 0.0f;
    int b1 = bond_start[i + 1];
    for (int b = bond_start[i]; b < b1; b++) {
        int j = bond_partner[b];
        float2 kp = bond_param[b];
        float4 pj = pos[j];
        float rx = pi.x - pj.x;
        float ry = pi.y - pj.y;
        float rz = pi.z - pj.z;
        rx -= box * rintf(rx / box);
        ry -= box * rintf(ry / box);
        rz -= box * rintf(rz / box);
        float r = sqrtf(rx * rx + ry * ry + rz * rz);
        float dr = r - kp.y;
        float fr = -kp.x * dr / r;
        fx += fr * rx;
        fy += fr * ry;
        fz += fr * rz;
        e += 0.25f * kp.x * dr * dr;
    }
    force[i] = make_float4(fx, fy, fz, e);
}

// velocity Verlet's second half-kick v += dt/2 f/m, then the Berendsen scaling v *=
// lambda; the block's kinetic energy (1/2 m v^2) by a shared-memory tree, added to *ke
__global__ void vv_berendsen(float *vx, float *vy, float *vz, const float *fx, const float *fy, const float *fz,
                             const int *type, float *ke, float dt, float lambda, int n) {
    __shared__ float s_ke[VV_BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    float k = 0.0f;
    if (i < n) {
        int t = type[i];
        float h = 0.5f * dt * c_inv_mass[t];
        float a = (vx[i] + h * fx[i]) * lambda;
        float b = (vy[i] + h * fy[i]) * lambda;
        float c = (vz[i] + h * fz[i]) * lambda;
        vx[i] = a;
        vy[i] = b;
        vz[i] = c;
        k = 0.5f * c_mass[t] * (a * a + b * b + c * c);
    }
    s_ke[tid] = k;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) s_ke[tid] += s_ke[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(ke, s_ke[0]);
}

// the pair-distance histogram of n atoms (every ordered pair i != j with r < rmax, bin
// r * inv_dr): this block's i atoms against the j atoms of chunk blockIdx.y, staged in
// shared memory, counted in a shared histogram, then added to hist
__global__ void rdf_hist(const float4 *pos, unsigned int *hist, float box, float rmax, float inv_dr, int n) {
    __shared__ unsigned int s_hist[RDF_BINS];
    __shared__ float4 s_pos[RDF_TILE];
    int tid = threadIdx.x;
    for (int b = tid; b < RDF_BINS; b += blockDim.x) s_hist[b] = 0;
    int i = blockIdx.x * blockDim.x + tid;
    float4 pi = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (i < n) pi = pos[i];
    float rmax2 = rmax * rmax;
    int j0 = blockIdx.y * RDF_CHUNK;
    int j1 = min(j0 + RDF_CHUNK, n);
    for (int t = j0; t < j1; t += RDF_TILE) {
        __syncthreads();
        if (t + tid < j1) s_pos[tid] = pos[t + tid];
        __syncthreads();
        int cnt = min(RDF_TILE, j1 - t);
        if (i < n) {
            for (int k = 0; k < cnt; k++) {
                if (t + k == i) continue;
                float4 pj = s_pos[k];
                float rx = pi.x - pj.x;
                float ry = pi.y - pj.y;
                float rz = pi.z - pj.z;
                rx -= box * rintf(rx / box);
                ry -= box * rintf(ry / box);
                rz -= box * rintf(rz / box);
                float r2 = rx * rx + ry * ry + rz * rz;
                if (r2 < rmax2) {
                    int bin = (int)(sqrtf(r2) * inv_dr);
                    if (bin < RDF_BINS) atomicAdd(&s_hist[bin], 1u);
                }
            }
        }
    }
    __syncthreads();
    for (int b = tid; b < RDF_BINS; b += blockDim.x) {
        if (s_hist[b] > 0) atomicAdd(&hist[b], s_hist[b]);
    }
}

// the cell list's bins: atom i into its cell's next free slot (a global atomicAdd on the
// cell's count), the index stored in the cell's row of MAX_PER_CELL; a full cell counts
// an overflow instead
__global__ void cell_bin(const float4 *pos, int *cell_count, int *cell_atoms, int *overflow, float cell_len, int m,
                         int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i];
    int c = cell_of(p.x, p.y, p.z, cell_len, m);
    int slot = atomicAdd(&cell_count[c], 1);
    if (slot < MAX_PER_CELL) {
        cell_atoms[c * MAX_PER_CELL + slot] = i;
    } else {
        atomicAdd(overflow, 1);
    }
}

// the real-space Ewald sum of n point charges (w): each atom against every other, the
// minimum image inside the cutoff (r^2 < rc2), the screened Coulomb energy q_i q_j
// erfc(alpha r) / r (halved: each pair seen twice) and its force
__global__ void ewald_real(const float4 *pos, float4 *force, float box, float alpha, float rc2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    const float two_over_sqrtpi = 1.1283791671f;
    float fx = 0.0f, fy = 0.0f, fz = 0.0f, e = 0.0f;
    for (int j = 0; j < n; j++) {
        if (j == i) continue;
        float4 pj = pos[j];
        float rx = pi.x - pj.x;
        float ry = pi.y - pj.y;
        float rz = pi.z - pj.z;
        rx -= box * rintf(rx / box);
        ry -= box * rintf(ry / box);
        rz -= box * rintf(rz / box);
        float r2 = rx * rx + ry * ry + rz * rz;
        if (r2 < rc2) {
            float r = sqrtf(r2);
            float qq = pi.w * pj.w;
            float erfc_term = erfcf(alpha * r) / r;
            float fr = qq * (erfc_term + two_over_sqrtpi * alpha * expf(-alpha * alpha * r2)) / r2;
            fx += fr * rx;
            fy += fr * ry;
            fz += fr * rz;
            e += qq * erfc_term;
        }
    }
    force[i] = make_float4(fx, fy, fz, 0.5f * e);
}

}
