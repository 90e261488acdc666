// probe-unseen192: a polymer physics (coarse-grained bead-spring chains, Kremer-Grest model)
// course's CUDA assignments, as a student who knows CUDA basics hands them in:
//  - fene_bonds: the FENE bond forces and energies of a melt of equal-length chains (beads
//    numbered chain by chain), a thread a bead: the bonds to the previous and the next bead
//    of its chain (none past the chain's ends), minimum image in a periodic box, a logf and
//    two divisions a bond; each bond's energy split between its two beads;
//  - wca_cells: the Weeks-Chandler-Andersen (purely repulsive Lennard-Jones) forces of a
//    melt with a cell list (beads sorted by cell, each cell's range in cell_start), a thread
//    a bead looping over the 27 cells about its own (periodic wrap), float4 positions
//    gathered, the pairs within the cutoff 2^(1/6) sigma kept; force.w the bead's half of
//    its pair energies;
//  - chain_shape: the squared radius of gyration and end-to-end distance of each chain of a
//    polydisperse melt (chains' beads contiguous, offsets in off), a warp a chain: the
//    lanes stride over the chain's beads (array of structs) relative to its first bead,
//    sums in double, reduced by __shfl_down_sync;
//  - rouse_modes: the Rouse modes X_p = 1/N sum_n r_n cos(p pi (n + 1/2) / N) of equal-length
//    chains, a thread a (chain, mode), cosf of each bead's phase (a warp's 32 modes read the
//    same bead at once);
//  - bd_step: a Brownian-dynamics step of every bead, r += F dt / gamma + sqrt(2 kT dt / gamma)
//    xi, the Gaussian xi by Box-Muller from a per-thread PCG-hash stream of (seed, step, bead),
//    positions wrapped into the box with their image counters kept;
//  - pair_hist: the intrachain monomer pair-distance histogram of a few long chains, blocks
//    of (a chunk of beads, a chain) staging the chain in shared memory, a thread a bead i
//    looping over the beads j > i, the distance's bin counted by a shared-memory atomicAdd
//    (the bonded and near-bonded pairs all landing in a few bins), the block's histogram
//    added to the global one.

#define WCA_RC2 1.2599210498948732f   // wca_cells: the cutoff squared, 2^(1/3) sigma^2
#define PH_MAXN 2048                  // pair_hist: the longest chain staged in shared memory
#define PH_BINS 256                   // the histogram's bins (width 1 / inv_dr)
#define TWO_PI 6.28318530717958648f
#define PI_F 3.14159265358979324f

struct Bead {
    float x, y, z;
};

// the hash of "Hash Functions for GPU Rendering" (Jarzynski and Olano 2020)
__device__ unsigned int pcg_hash(unsigned int v) {
    unsigned int state = v * 747796405u + 2891336453u;
    unsigned int word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// a uniform float in (0, 1) from a hash
__device__ float hash_uniform(unsigned int h) {
    return ((float)(h >> 9) + 0.5f) * (1.0f / 8388608.0f);
}

extern "C" {

// n beads in chains of nb (bead i in chain i / nb at place i % nb), positions x, y, z in a
// periodic box of side L: f = the FENE forces -K r / (1 - r^2 / R0^2) of its bonds, epot =
// half of each of its bonds' energies -K R0^2 / 2 log(1 - r^2 / R0^2)
__global__ void fene_bonds(const float *x, const float *y, const float *z, float *fx, float *fy, float *fz,
                           float *epot, int nb, float L, float K, float R0, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int k = i % nb;
    float xi = x[i];
    float yi = y[i];
    float zi = z[i];
    float R02 = R0 * R0;
    float f[3] = {0.0f, 0.0f, 0.0f};
    float e = 0.0f;
    for (int side = -1; side <= 1; side += 2) {
        int kj = k + side;
        if (kj < 0 || kj >= nb) continue;     // the chain's ends have one bond
        int j = i + side;
        float dx = xi - x[j];
        float dy = yi - y[j];
        float dz = zi - z[j];
        dx -= L * rintf(dx / L);
        dy -= L * rintf(dy / L);
        dz -= L * rintf(dz / L);
        float r2 = dx * dx + dy * dy + dz * dz;
        float q = 1.0f - r2 / R02;
        float c = -K / q;
        f[0] += c * dx;
        f[1] += c * dy;
        f[2] += c * dz;
        e += -0.25f * K * R02 * logf(q);
    }
    fx[i] = f[0];
    fy[i] = f[1];
    fz[i] = f[2];
    epot[i] = e;
}

// n beads sorted by cell (nc^3 cells of side L / nc >= the cutoff, cell (cz nc + cy) nc + cx
// holding beads cell_start[cell] .. cell_start[cell + 1] - 1): force = the WCA forces on each
// (epsilon = sigma = 1), force.w half its pair energies
__global__ void wca_cells(const float4 *pos, const int *cell_start, float4 *force, int nc, float L, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i];
    float cs = L / nc;
    int cx = min((int)(p.x / cs), nc - 1);
    int cy = min((int)(p.y / cs), nc - 1);
    int cz = min((int)(p.z / cs), nc - 1);
    float fx = 0.0f, fy = 0.0f, fz = 0.0f, e = 0.0f;
    for (int dz = -1; dz <= 1; dz++) {
        int z = (cz + dz + nc) % nc;
        for (int dy = -1; dy <= 1; dy++) {
            int y = (cy + dy + nc) % nc;
            for (int dx = -1; dx <= 1; dx++) {
                int x = (cx + dx + nc) % nc;
                int cell = (z * nc + y) * nc + x;
                for (int j = cell_start[cell]; j < cell_start[cell + 1]; j++) {
                    if (j == i) continue;
                    float4 q = pos[j];
                    float rx = p.x - q.x;
                    float ry = p.y - q.y;
                    float rz = p.z - q.z;
                    rx -= L * rintf(rx / L);
                    ry -= L * rintf(ry / L);
                    rz -= L * rintf(rz / L);
                    float r2 = rx * rx + ry * ry + rz * rz;
                    if (r2 < WCA_RC2) {
                        float ir2 = 1.0f / r2;
                        float ir6 = ir2 * ir2 * ir2;
                        float c = 24.0f * ir6 * (2.0f * ir6 - 1.0f) * ir2;
                        fx += c * rx;
                        fy += c * ry;
                        fz += c * rz;
                        e += 2.0f * ir6 * (ir6 - 1.0f) + 0.5f;    // half of 4 (r^-12 - r^-6) + 1
                    }
                }
            }
        }
    }
    force[i] = make_float4(fx, fy, fz, e);
}

// nch chains, chain c's beads r[off[c]] .. r[off[c + 1] - 1]: rg2[c] its squared radius of
// gyration, ree2[c] its squared end-to-end distance (a warp a chain, blockDim.x a multiple of 32)
__global__ void chain_shape(const Bead *r, const int *off, float *rg2, float *ree2, int nch) {
    int c = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (c >= nch) return;                     // the whole warp
    int b = off[c];
    int nb = off[c + 1] - b;
    Bead r0 = r[b];
    double sx = 0.0, sy = 0.0, sz = 0.0, s2 = 0.0;
    for (int k = lane; k < nb; k += 32) {
        Bead q = r[b + k];
        double dx = q.x - r0.x;
        double dy = q.y - r0.y;
        double dz = q.z - r0.z;
        sx += dx;
        sy += dy;
        sz += dz;
        s2 += dx * dx + dy * dy + dz * dz;
    }
    for (int o = 16; o > 0; o >>= 1) {
        sx += __shfl_down_sync(0xffffffff, sx, o);
        sy += __shfl_down_sync(0xffffffff, sy, o);
        sz += __shfl_down_sync(0xffffffff, sz, o);
        s2 += __shfl_down_sync(0xffffffff, s2, o);
    }
    if (lane == 0) {
        double mx = sx / nb, my = sy / nb, mz = sz / nb;
        rg2[c] = (float)(s2 / nb - (mx * mx + my * my + mz * mz));
        Bead q = r[b + nb - 1];
        float ex = q.x - r0.x, ey = q.y - r0.y, ez = q.z - r0.z;
        ree2[c] = ex * ex + ey * ey + ez * ez;
    }
}

// nch chains of nb beads (positions x, y, z, chain by chain): X[(c nb + p) 3 + d] = mode p of
// chain c, 1/nb sum_k r_k,d cos(p pi (k + 1/2) / nb), for p = 0 .. nb - 1
__global__ void rouse_modes(const float *x, const float *y, const float *z, float *X, int nb, int nch) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nch * nb) return;
    int c = t / nb;
    int p = t % nb;
    const float *cx = x + c * nb;
    const float *cy = y + c * nb;
    const float *cz = z + c * nb;
    float sx = 0.0f, sy = 0.0f, sz = 0.0f;
    for (int k = 0; k < nb; k++) {
        float w = cosf(PI_F * p * (k + 0.5f) / nb);
        sx += w * cx[k];
        sy += w * cy[k];
        sz += w * cz[k];
    }
    X[3 * t] = sx / nb;
    X[3 * t + 1] = sy / nb;
    X[3 * t + 2] = sz / nb;
}

// one Brownian-dynamics step (dt) of n beads (friction gamma, temperature kT, forces f) in a
// periodic box of side L: positions x, y, z in [0, L) and their image counters ix, iy, iz updated
// in place, the noise from the hash stream of (seed, step, bead)
__global__ void bd_step(float *x, float *y, float *z, int *ix, int *iy, int *iz, const float *fx,
                        const float *fy, const float *fz, float L, float dt, float gamma, float kT,
                        unsigned int seed, unsigned int step, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int h = pcg_hash(i ^ pcg_hash(seed + pcg_hash(step)));
    float u1 = hash_uniform(h);
    h = pcg_hash(h);
    float u2 = hash_uniform(h);
    h = pcg_hash(h);
    float u3 = hash_uniform(h);
    h = pcg_hash(h);
    float u4 = hash_uniform(h);
    // Box-Muller: three of the four Gaussians
    float r1 = sqrtf(-2.0f * logf(u1));
    float r2 = sqrtf(-2.0f * logf(u3));
    float g0 = r1 * cosf(TWO_PI * u2);
    float g1 = r1 * sinf(TWO_PI * u2);
    float g2 = r2 * cosf(TWO_PI * u4);
    float amp = sqrtf(2.0f * kT * dt / gamma);
    float px = x[i] + fx[i] * dt / gamma + amp * g0;
    float py = y[i] + fy[i] * dt / gamma + amp * g1;
    float pz = z[i] + fz[i] * dt / gamma + amp * g2;
    int jx = ix[i], jy = iy[i], jz = iz[i];
    if (px >= L) { px -= L; jx++; } else if (px < 0.0f) { px += L; jx--; }
    if (py >= L) { py -= L; jy++; } else if (py < 0.0f) { py += L; jy--; }
    if (pz >= L) { pz -= L; jz++; } else if (pz < 0.0f) { pz += L; jz--; }
    x[i] = px;
    y[i] = py;
    z[i] = pz;
    ix[i] = jx;
    iy[i] = jy;
    iz[i] = jz;
}

// chains of nb <= PH_MAXN beads (chain c's at r[c nb ..]), grid (nb / blockDim.x rounded up,
// chains): hist[b] += the pairs i < j of a chain at distance r with (int)(r inv_dr) == b < PH_BINS
__global__ void pair_hist(const Bead *r, unsigned int *hist, int nb, float inv_dr) {
    __shared__ float sx[PH_MAXN];
    __shared__ float sy[PH_MAXN];
    __shared__ float sz[PH_MAXN];
    __shared__ unsigned int h[PH_BINS];
    const Bead *ch = r + (size_t)blockIdx.y * nb;
    for (int k = threadIdx.x; k < nb; k += blockDim.x) {
        Bead q = ch[k];
        sx[k] = q.x;
        sy[k] = q.y;
        sz[k] = q.z;
    }
    for (int k = threadIdx.x; k < PH_BINS; k += blockDim.x) h[k] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nb) {
        float xi = sx[i], yi = sy[i], zi = sz[i];
        for (int j = i + 1; j < nb; j++) {
            float dx = sx[j] - xi;
            float dy = sy[j] - yi;
            float dz = sz[j] - zi;
            float d = sqrtf(dx * dx + dy * dy + dz * dz);
            int b = (int)(d * inv_dr);
            if (b < PH_BINS) atomicAdd(&h[b], 1u);
        }
    }
    __syncthreads();
    for (int k = threadIdx.x; k < PH_BINS; k += blockDim.x)
        if (h[k] > 0) atomicAdd(&hist[k], h[k]);
}

}
