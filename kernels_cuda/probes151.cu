// probe-unseen149: a nuclear-reactor physics (Monte Carlo neutron transport) course's CUDA
// assignments, as a student who knows CUDA basics hands them in:
//  - slab_history: history-based two-group transport in a 1-D slab reactor (reflector, three
//    fuel zones with water gaps, reflector; the cross sections in __constant__ memory), a
//    thread a source neutron followed until it is absorbed or leaks: exponential flight
//    distances from a per-thread 64-bit LCG, boundary crossings, isotropic scattering and
//    fast-to-thermal down-scatter; its fate, collisions, last position and fission yield;
//  - mesh_tally: the collision estimator of the two-group scalar flux on a 64^3 mesh over a
//    3-D core, a thread a collision site (a 24-byte struct: position, weight, group,
//    material): w / Sigma_t (Sigma_t from __constant__) added into the group's flux tally and
//    1 into the cell's score count by global atomicAdd;
//  - xs_lookup: event-based macroscopic cross-section lookup (XSBench's nuclide-grid
//    method): for each particle, a binary search in each nuclide's energy grid of the
//    particle's material (an array of 48-byte grid-point structs) and a linear interpolation
//    of its 5 cross sections, weighted by the nuclide's density and summed;
//  - fission_bank: the fission bank of a generation built from its collision sites: each
//    site's number of fission neutrons (w nuSigma_f / Sigma_t / k + a hashed uniform),
//    a block-wide inclusive scan of the counts in shared memory (Hillis-Steele), the
//    block's place in the bank by one atomicAdd, each neutron's position and parent stored;
//  - keff_stats: the batch statistics of k: sums and sums of squares of every history's
//    collision and track-length estimates of k and their cross product, in double, over a
//    grid-stride loop, reduced by warp shuffles and shared memory, 5 double atomicAdds a
//    block;
//  - doppler_broaden: Doppler broadening of a 0 K resonance cross section (linear in energy
//    between grid points) to temperature T by the SIGMA1 kernel, exactly per segment: a
//    thread an output energy, a binary search for the window's first segment, then for every
//    segment within 4 thermal widths the moments of z^m exp(-z^2), m = 0..4, from erf and
//    exp, in double.

#define SL_NREG 7             // slab_history: regions of the slab
#define SL_NG 2               // energy groups (fast, thermal)
#define SL_MAXCOLL 10000      // collisions before a history is given up
#define MT_NX 64              // mesh_tally: mesh cells along x, y and z
#define MT_NY 64
#define MT_NZ 64
#define MT_NG 2               // groups
#define MT_NMAT 4             // materials (fuel, clad, water, reflector)
#define FB_BLOCK 512          // fission_bank: blockDim.x (the scan's size)
#define KR_BLOCK 256          // keff_stats: blockDim.x
#define DB_WIN 4.0            // doppler_broaden: the window's half width (thermal widths)

// slab_history's slab: region r is [c_sl_bound[r], c_sl_bound[r + 1]) (cm); its total,
// absorption and nu-fission cross sections of group g at r * SL_NG + g (1/cm) and its
// fast-to-thermal scattering cross section
__constant__ float c_sl_bound[SL_NREG + 1];
__constant__ float c_sl_sigt[SL_NREG * SL_NG];
__constant__ float c_sl_siga[SL_NREG * SL_NG];
__constant__ float c_sl_nusigf[SL_NREG * SL_NG];
__constant__ float c_sl_sig12[SL_NREG];

// mesh_tally's total cross sections (1/cm), material m group g at m * MT_NG + g
__constant__ float c_mt_sigt[MT_NMAT * MT_NG];

struct CollisionSite {
    float x, y, z;       // cm
    float wgt;
    int g;               // energy group
    int mat;             // material
};

struct NuclideGridPoint {
    double energy;       // eV
    double total, elastic, absorption, fission, nu_fission;   // barns
};

// a uniform number in [0, 1) from the 64-bit LCG state s (its top 24 bits)
__device__ float sl_rand(unsigned long long *s) {
    *s = *s * 2862933555777941757ull + 3037000493ull;
    return (float)(*s >> 40) * (1.0f / 16777216.0f);
}

// lowbias32: a well-mixed 32-bit hash
__device__ unsigned int fb_hash(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// the antiderivatives F_m(z) of z^m exp(-z^2), m = 0..4
__device__ void db_moments(double z, double *F) {
    const double sqpi = 1.7724538509055160273;
    double ez = exp(-z * z);
    F[0] = 0.5 * sqpi * erf(z);
    F[1] = -0.5 * ez;
    F[2] = 0.5 * F[0] - 0.5 * z * ez;
    F[3] = F[1] - 0.5 * z * z * ez;
    F[4] = 1.5 * F[2] - 0.5 * z * z * z * ez;
}

extern "C" {

// n neutrons born at x0 (fast, isotropic) followed through the slab, seed[i] neutron i's
// LCG state; fate: 0 leaked left, 1 leaked right, 2 absorbed, 3 given up; the collisions,
// the last position and, when absorbed, nuSigma_f / Sigma_a there
__global__ void slab_history(const float *x0, const unsigned long long *seed, int *fate, int *ncoll, float *xend,
                             float *yield, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long s = seed[i];
    float x = x0[i];
    int reg = 0;
    while (reg < SL_NREG - 1 && x >= c_sl_bound[reg + 1]) reg++;
    int g = 0;
    float mu = 2.0f * sl_rand(&s) - 1.0f;
    int coll = 0;
    int f = 3;
    float y = 0.0f;
    while (coll < SL_MAXCOLL) {
        int k = reg * SL_NG + g;
        float st = c_sl_sigt[k];
        float d = -logf(sl_rand(&s)) / st;            // distance to the next collision
        float db;                                     // distance to the region's boundary
        if (mu > 0.0f) db = (c_sl_bound[reg + 1] - x) / mu;
        else db = (c_sl_bound[reg] - x) / mu;
        if (d < db) {
            x = x + d * mu;
            coll++;
            float xi = sl_rand(&s) * st;
            if (xi < c_sl_siga[k]) {
                f = 2;
                y = c_sl_nusigf[k] / c_sl_siga[k];
                break;
            }
            if (g == 0 && xi < c_sl_siga[k] + c_sl_sig12[reg]) g = 1;
            mu = 2.0f * sl_rand(&s) - 1.0f;
        } else {
            if (mu > 0.0f) {
                reg++;
                x = c_sl_bound[reg];
            } else {
                x = c_sl_bound[reg];
                reg--;
            }
            if (reg < 0) {
                f = 0;
                break;
            }
            if (reg >= SL_NREG) {
                f = 1;
                break;
            }
        }
    }
    fate[i] = f;
    ncoll[i] = coll;
    xend[i] = x;
    yield[i] = y;
}

// the collision estimator of n collision sites on the MT_NX x MT_NY x MT_NZ mesh from
// (x0, y0, z0) with cells of dx x dx x dz: flux[g * cells + cell] += wgt / Sigma_t,
// nscore[cell] += 1 (sites off the mesh skipped)
__global__ void mesh_tally(const struct CollisionSite *sites, float *flux, int *nscore, float x0, float y0, float z0,
                           float inv_dx, float inv_dz, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    struct CollisionSite c = sites[i];
    int ix = (int)floorf((c.x - x0) * inv_dx);
    int iy = (int)floorf((c.y - y0) * inv_dx);
    int iz = (int)floorf((c.z - z0) * inv_dz);
    if (ix < 0 || ix >= MT_NX || iy < 0 || iy >= MT_NY || iz < 0 || iz >= MT_NZ) return;
    int cell = (iz * MT_NY + iy) * MT_NX + ix;
    float score = c.wgt / c_mt_sigt[c.mat * MT_NG + c.g];
    atomicAdd(&flux[c.g * (MT_NX * MT_NY * MT_NZ) + cell], score);
    atomicAdd(&nscore[cell], 1);
}

// the macroscopic total, elastic, absorption, fission and nu-fission cross sections of n
// particles (energy, material): material m holds num_nucs[m] nuclides mats[m * max_nucs + j]
// at densities concs[m * max_nucs + j]; nuclide u's grid is grid[u * ngp .. u * ngp + ngp)
// (increasing energies, the particles' energies within it); out 5 doubles a particle
__global__ void xs_lookup(const struct NuclideGridPoint *grid, const int *num_nucs, const int *mats,
                          const double *concs, const double *p_energy, const int *p_mat, double *out, int ngp,
                          int max_nucs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double e = p_energy[i];
    int m = p_mat[i];
    double xs[5];
    for (int k = 0; k < 5; k++) xs[k] = 0.0;
    for (int j = 0; j < num_nucs[m]; j++) {
        int nuc = mats[m * max_nucs + j];
        double conc = concs[m * max_nucs + j];
        const struct NuclideGridPoint *g = grid + (long long)nuc * ngp;
        int lo = 0;
        int hi = ngp - 1;
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (g[mid].energy > e) hi = mid;
            else lo = mid;
        }
        struct NuclideGridPoint a = g[lo];
        struct NuclideGridPoint b = g[lo + 1];
        double f = (b.energy - e) / (b.energy - a.energy);
        xs[0] += conc * (b.total - f * (b.total - a.total));
        xs[1] += conc * (b.elastic - f * (b.elastic - a.elastic));
        xs[2] += conc * (b.absorption - f * (b.absorption - a.absorption));
        xs[3] += conc * (b.fission - f * (b.fission - a.fission));
        xs[4] += conc * (b.nu_fission - f * (b.nu_fission - a.nu_fission));
    }
    for (int k = 0; k < 5; k++) out[5 * i + k] = xs[k];
}

// the fission neutrons of n collision sites (x, y, z; weight; nuSigma_f / Sigma_t there):
// site i makes floor(wgt nusf_st / keff + u_i) (u_i from the hash of i ^ seed), stored at
// their place in the bank (a block's place from *bank_n by atomicAdd; entries past cap
// dropped, *bank_n counts them all)
__global__ void fission_bank(const float *x, const float *y, const float *z, const float *wgt, const float *nusf_st,
                             float keff, unsigned int seed, float *bx, float *by, float *bz, int *parent,
                             int *bank_n, int cap, int n) {
    __shared__ int s[FB_BLOCK];
    __shared__ int base;
    int t = threadIdx.x;
    int i = blockIdx.x * FB_BLOCK + t;
    int k = 0;
    if (i < n) {
        float u = (float)(fb_hash((unsigned int)i ^ seed) >> 8) * (1.0f / 16777216.0f);
        k = (int)(wgt[i] * nusf_st[i] / keff + u);
    }
    s[t] = k;
    __syncthreads();
    for (int off = 1; off < FB_BLOCK; off <<= 1) {
        int v = 0;
        if (t >= off) v = s[t - off];
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    if (t == FB_BLOCK - 1) base = atomicAdd(bank_n, s[t]);
    __syncthreads();
    int start = base + s[t] - k;
    for (int j = 0; j < k; j++) {
        int p = start + j;
        if (p < cap) {
            bx[p] = x[i];
            by[p] = y[i];
            bz[p] = z[i];
            parent[p] = i;
        }
    }
}

// acc[0..4] += the sums of kc, kc^2, kt, kt^2 and kc kt over n histories' collision (kc)
// and track-length (kt) estimates of k
__global__ void keff_stats(const float *kc, const float *kt, double *acc, int n) {
    __shared__ double s[5][KR_BLOCK / 32];
    double a[5];
    for (int k = 0; k < 5; k++) a[k] = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double c = kc[i];
        double t = kt[i];
        a[0] += c;
        a[1] += c * c;
        a[2] += t;
        a[3] += t * t;
        a[4] += c * t;
    }
    for (int off = 16; off > 0; off >>= 1)
        for (int k = 0; k < 5; k++) a[k] += __shfl_down_sync(0xffffffff, a[k], off);
    int lane = threadIdx.x & 31;
    int w = threadIdx.x >> 5;
    if (lane == 0)
        for (int k = 0; k < 5; k++) s[k][w] = a[k];
    __syncthreads();
    if (w == 0) {
        for (int k = 0; k < 5; k++) a[k] = lane < KR_BLOCK / 32 ? s[k][lane] : 0.0;
        for (int off = 4; off > 0; off >>= 1)
            for (int k = 0; k < 5; k++) a[k] += __shfl_down_sync(0xffffffff, a[k], off);
        if (lane == 0)
            for (int k = 0; k < 5; k++) atomicAdd(&acc[k], a[k]);
    }
}

// the cross section sig (0 K, linear in energy between the n grid energies E) broadened to
// the temperature of alpha = A / kT (1/eV) at every grid energy: with x = sqrt(alpha E),
// sigT(y) = 1 / (y^2 sqrt(pi)) * integral of x^2 sig(x) exp(-(x - y)^2) over the segments
// from the one holding y - DB_WIN to the first that ends past y + DB_WIN
__global__ void doppler_broaden(const double *E, const double *sig, double *sigT, double alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double y = sqrt(alpha * E[i]);
    double xlo = y - DB_WIN;
    double elo = xlo > 0.0 ? xlo * xlo / alpha : 0.0;
    int lo = 0;
    int hi = n - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (E[mid] > elo) hi = mid;
        else lo = mid;
    }
    double F[5];
    double G[5];
    double x2a = alpha * E[lo];
    db_moments(sqrt(x2a) - y, F);
    double y2 = y * y;
    double sum = 0.0;
    for (int k = lo; k < n - 1; k++) {
        double x2b = alpha * E[k + 1];
        double z = sqrt(x2b) - y;
        db_moments(z, G);
        double H0 = G[0] - F[0];
        double H1 = G[1] - F[1];
        double H2 = G[2] - F[2];
        double H3 = G[3] - F[3];
        double H4 = G[4] - F[4];
        // sig = a + b x^2 on the segment
        double b = (sig[k + 1] - sig[k]) / (x2b - x2a);
        double a = sig[k] - b * x2a;
        double m2 = y2 * H0 + 2.0 * y * H1 + H2;                                   // x^2
        double m4 = y2 * y2 * H0 + 4.0 * y2 * y * H1 + 6.0 * y2 * H2 + 4.0 * y * H3 + H4;   // x^4
        sum += a * m2 + b * m4;
        for (int m = 0; m < 5; m++) F[m] = G[m];
        x2a = x2b;
        if (z > DB_WIN) break;
    }
    sigT[i] = sum / (y2 * 1.7724538509055160273);
}

}
