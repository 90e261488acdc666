// probe-unseen114: a computational materials-science course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - rdf_cells: the radial distribution function g(r) of a periodic box of atoms, a
//    thread an atom: the atoms come sorted by cell of a cell list (cell_start: the first
//    atom of each cell, ncell^3 + 1 entries), each thread walks the 27 cells around its
//    own, takes the minimum image of every other atom there and adds the pairs closer
//    than rmax to a global histogram of nbins bins with atomicAdd (ordered pairs: each
//    pair counted twice; the host normalizes by the ideal-gas shell counts);
//  - xrd_intensity: X-ray diffraction intensities |F(hkl)|^2 of a cubic supercell, a
//    thread a reflection: the atomic form factors of the XRD_NSPEC species at the
//    reflection's sin(theta)/lambda from Cromer-Mann coefficients and a Debye-Waller
//    factor in __constant__ memory, then the structure factor summed over all atoms
//    (fractional coordinates and occupancy in a float4, the species apart), staged
//    through shared memory a tile of XRD_TILE atoms at a time, a sincosf an atom;
//  - eam_density: the density pass of an embedded-atom-method potential, a thread an
//    atom: rho_i = sum_j f(r_ij) over a padded neighbour list stored column-major
//    (nbr[k * n + i], the GPU layout from the lecture), f an exponential with a smooth
//    cutoff, then the Finnis-Sinclair embedding energy -A sqrt(rho) and its derivative
//    (for the force pass that follows) stored beside rho;
//  - kmc_select: one step of rejection-free (n-fold way / BKL) kinetic Monte Carlo in
//    many independent replicas, a thread a replica: the Arrhenius rates of its KMC_NE
//    events (vacancy hops, barriers row-major) summed, an event picked by a linear
//    search of the running sum for u1 times the total (leaving the loop when found), the
//    replica's clock advanced by -ln(u2) / total; u1 and u2 from a PCG hash;
//  - allen_cahn_step: one explicit Euler step of the Allen-Cahn phase-field equation
//    d(phi)/dt = -M (phi^3 - phi - kappa lap(phi)) in double on a periodic 2-D grid, a
//    16 x 16 tile with a one-cell halo in shared memory, the 5-point Laplacian;
//  - msd_lags: the mean-squared displacement of a trajectory (frames of unwrapped float4
//    positions, frame-major) at lags 1 .. gridDim.y, a thread an atom and blockIdx.y the
//    lag: the squared displacements over every time origin summed by the thread, the
//    block's sums reduced by a shared-memory tree in double and added to the lag's
//    total by a double atomicAdd (the host divides by atoms x origins).

#define RDF_BLOCK 128         // rdf_cells: threads a block
#define XRD_TILE 256          // xrd_intensity: atoms a shared tile (blockDim.x == XRD_TILE)
#define XRD_NSPEC 4           // xrd_intensity: species (Sr, La, Ti, O)
#define EAM_BLOCK 128         // eam_density: threads a block
#define KMC_NE 64             // kmc_select: events a replica
#define AC_TILE 16            // allen_cahn_step: the tile's side (blockDim 16 x 16)
#define MSD_BLOCK 256         // msd_lags: threads a block

#define TWO_PI 6.28318530718f

// xrd_intensity's scattering factors (set by the host): for each species a1..a4,
// b1..b4, c (Cromer-Mann, f(s) = sum a_g exp(-b_g s^2) + c, s = sin(theta)/lambda in
// 1/A) and its isotropic Debye-Waller B (A^2)
__constant__ float c_cm[XRD_NSPEC * 9];
__constant__ float c_biso[XRD_NSPEC];

extern "C" {

// g(r) of n atoms (pos sorted by cell, cell_start[c] .. cell_start[c + 1] the atoms of
// cell c) in a periodic cube of side box split into ncell^3 cells of side cell >= rmax
// (ncell >= 3); bin r * inv_dr of hist counted for every ordered pair closer than rmax
__global__ void rdf_cells(const float4 *pos, const int *cell_start, unsigned int *hist, float box, float cell,
                          int ncell, float rmax, float inv_dr, int nbins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i];
    int cx = min((int)(p.x / cell), ncell - 1);
    int cy = min((int)(p.y / cell), ncell - 1);
    int cz = min((int)(p.z / cell), ncell - 1);
    float rmax2 = rmax * rmax;
    for (int dz = -1; dz <= 1; dz++) {
        int z = (cz + dz + ncell) % ncell;
        for (int dy = -1; dy <= 1; dy++) {
            int y = (cy + dy + ncell) % ncell;
            for (int dx = -1; dx <= 1; dx++) {
                int x = (cx + dx + ncell) % ncell;
                int c = (z * ncell + y) * ncell + x;
                int end = cell_start[c + 1];
                for (int j = cell_start[c]; j < end; j++) {
                    if (j == i) continue;
                    float4 q = pos[j];
                    float rx = q.x - p.x;
                    float ry = q.y - p.y;
                    float rz = q.z - p.z;
                    rx -= box * rintf(rx / box);
                    ry -= box * rintf(ry / box);
                    rz -= box * rintf(rz / box);
                    float r2 = rx * rx + ry * ry + rz * rz;
                    if (r2 < rmax2) {
                        int b = (int)(sqrtf(r2) * inv_dr);
                        if (b < nbins) atomicAdd(&hist[b], 1u);
                    }
                }
            }
        }
    }
}

// I(hkl) = |sum_j occ_j f_sp(j)(s) exp(2 pi i (h x_j + k y_j + l z_j))|^2 for nref
// reflections (hkl: 3 ints each) of a cubic cell of natoms atoms (atoms: fractional x, y,
// z and occupancy; species: 0 .. XRD_NSPEC - 1), s^2 = (h^2 + k^2 + l^2) inv_a2 / 4
__global__ void xrd_intensity(const float4 *atoms, const int *species, int natoms, const int *hkl, float inv_a2,
                              float *intensity, int nref) {
    __shared__ float4 s_at[XRD_TILE];
    __shared__ int s_sp[XRD_TILE];
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int h = 0;
    int k = 0;
    int l = 0;
    if (r < nref) {
        h = hkl[3 * r];
        k = hkl[3 * r + 1];
        l = hkl[3 * r + 2];
    }
    float s2 = 0.25f * (float)(h * h + k * k + l * l) * inv_a2;
    float f[XRD_NSPEC];
    for (int e = 0; e < XRD_NSPEC; e++) {
        float v = c_cm[e * 9 + 8];
        for (int g = 0; g < 4; g++) v += c_cm[e * 9 + g] * expf(-c_cm[e * 9 + 4 + g] * s2);
        f[e] = v * expf(-c_biso[e] * s2);
    }
    float re = 0.0f;
    float im = 0.0f;
    for (int base = 0; base < natoms; base += XRD_TILE) {
        int t = base + threadIdx.x;
        if (t < natoms) {
            s_at[threadIdx.x] = atoms[t];
            s_sp[threadIdx.x] = species[t];
        }
        __syncthreads();
        int cnt = min(XRD_TILE, natoms - base);
        for (int j = 0; j < cnt; j++) {
            float4 a = s_at[j];
            float ph = TWO_PI * (h * a.x + k * a.y + l * a.z);
            float sn, cs;
            sincosf(ph, &sn, &cs);
            float fj = a.w * f[s_sp[j]];
            re += fj * cs;
            im += fj * sn;
        }
        __syncthreads();
    }
    if (r < nref) intensity[r] = re * re + im * im;
}

// the EAM density of n atoms in a periodic cube of side box: rho_i = sum over the
// nnum[i] listed neighbours j (nbr[k * n + i]) closer than rc of fe exp(-beta (r / re -
// 1)) psi((r - rc) / hc), psi(x) = x^4 / (1 + x^4); the embedding energy -A sqrt(rho)
// and its derivative -A / (2 sqrt(rho)) stored beside it
__global__ void eam_density(const float4 *pos, const int *nbr, const int *nnum, float *rho, float *emb,
                            float *demb, float box, float rc, float hc, float re, float fe, float beta, float A,
                            int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i];
    int m = nnum[i];
    float rc2 = rc * rc;
    float sum = 0.0f;
    for (int k = 0; k < m; k++) {
        int j = nbr[k * n + i];
        float4 q = pos[j];
        float dx = q.x - p.x;
        float dy = q.y - p.y;
        float dz = q.z - p.z;
        dx -= box * rintf(dx / box);
        dy -= box * rintf(dy / box);
        dz -= box * rintf(dz / box);
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < rc2) {
            float r = sqrtf(r2);
            float x = (r - rc) / hc;
            float x4 = x * x * x * x;
            sum += fe * expf(-beta * (r / re - 1.0f)) * x4 / (1.0f + x4);
        }
    }
    rho[i] = sum;
    float sq = sqrtf(sum);
    emb[i] = -A * sq;
    demb[i] = -0.5f * A / sq;
}

// the PCG hash (a 32-bit RNG step and output permutation)
__device__ unsigned int pcg_hash(unsigned int v) {
    unsigned int state = v * 747796405u + 2891336453u;
    unsigned int word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// one n-fold-way KMC step in each of n replicas (barriers: KMC_NE events a replica,
// row-major, eV): rates nu exp(-E / kT), the event whose running sum first exceeds u1 x
// total, t[r] += -ln(u2) / total; u1 = top 24 bits of pcg_hash(seed + 2r) / 2^24, u2 =
// (top 24 bits of pcg_hash(seed + 2r + 1) + 1) / 2^24
__global__ void kmc_select(const float *barrier, float *t, int *event, float nu, float inv_kT,
                           unsigned int seed, int n) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    const float *E = barrier + r * KMC_NE;
    float total = 0.0f;
    for (int k = 0; k < KMC_NE; k++) total += nu * expf(-E[k] * inv_kT);
    float u1 = (pcg_hash(seed + 2u * r) >> 8) * (1.0f / 16777216.0f);
    float u2 = ((pcg_hash(seed + 2u * r + 1u) >> 8) + 1) * (1.0f / 16777216.0f);
    float target = u1 * total;
    float acc = 0.0f;
    int ev = KMC_NE - 1;
    for (int k = 0; k < KMC_NE; k++) {
        acc += nu * expf(-E[k] * inv_kT);
        if (acc > target) {
            ev = k;
            break;
        }
    }
    event[r] = ev;
    t[r] += -logf(u2) / total;
}

// one explicit step of Allen-Cahn on a periodic nx x ny grid (nx, ny multiples of
// AC_TILE): phi_new = phi - dt mob (phi^3 - phi - kappa lap(phi)), lap by the 5-point
// stencil over dx^2
__global__ void allen_cahn_step(const double *phi, double *phi_new, double dt, double mob, double kappa,
                                double inv_dx2, int nx, int ny) {
    __shared__ double s[AC_TILE + 2][AC_TILE + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * AC_TILE + tx;
    int y = blockIdx.y * AC_TILE + ty;
    s[ty + 1][tx + 1] = phi[y * nx + x];
    if (tx == 0) s[ty + 1][0] = phi[y * nx + (x - 1 + nx) % nx];
    if (tx == AC_TILE - 1) s[ty + 1][AC_TILE + 1] = phi[y * nx + (x + 1) % nx];
    if (ty == 0) s[0][tx + 1] = phi[((y - 1 + ny) % ny) * nx + x];
    if (ty == AC_TILE - 1) s[AC_TILE + 1][tx + 1] = phi[((y + 1) % ny) * nx + x];
    __syncthreads();
    double c = s[ty + 1][tx + 1];
    double lap = (s[ty + 1][tx] + s[ty + 1][tx + 2] + s[ty][tx + 1] + s[ty + 2][tx + 1] - 4.0 * c) * inv_dx2;
    double mu = c * c * c - c - kappa * lap;
    phi_new[y * nx + x] = c - dt * mob * mu;
}

// msd_sum[lag - 1] += sum over atoms i and origins t0 (t0 + lag < nframes) of
// |traj[t0 + lag][i] - traj[t0][i]|^2, lag = blockIdx.y + 1 (traj frame-major, xyz of
// float4)
__global__ void msd_lags(const float4 *traj, double *msd_sum, int natoms, int nframes) {
    __shared__ double s[MSD_BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lag = blockIdx.y + 1;
    float acc = 0.0f;
    if (i < natoms) {
        for (int t0 = 0; t0 + lag < nframes; t0++) {
            float4 a = traj[t0 * natoms + i];
            float4 b = traj[(t0 + lag) * natoms + i];
            float dx = b.x - a.x;
            float dy = b.y - a.y;
            float dz = b.z - a.z;
            acc += dx * dx + dy * dy + dz * dz;
        }
    }
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(&msd_sum[blockIdx.y], s[0]);
}

}
