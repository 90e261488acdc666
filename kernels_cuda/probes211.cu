// probe-unseen209: a computational materials-microstructure course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - ch_spinodal_tile: one explicit Cahn-Hilliard step of a spinodally decomposing binary
//    alloy on a periodic grid, a 16 x 16 tile a block: the composition staged in shared
//    memory with a halo of two (periodic wrap by %), the chemical potential (the double
//    well's derivative minus kappa times the Laplacian) on the tile plus a ring of one into
//    a second shared array, a barrier between, then the Laplacian of the potential for the
//    thread's own cell;
//  - potts_grain_growth: Monte Carlo grain growth by the Q-state Potts model (16-bit grain
//    ids, Moore neighbourhood), one of the four 2 x 2 sublattices a launch, a thread a site:
//    the 8 neighbours' ids in a local array (periodic wrap by a mask: n a power of two),
//    interior sites left alone, boundary sites given several Metropolis trials (the trial
//    id a random neighbour's, picked by the low bits of an integer hash; the energy change
//    counted over the 8 neighbours; Boltzmann factors from a __constant__ table); the
//    flips counted by a warp ballot, __popc and one atomicAdd a warp;
//  - kobayashi_dendrite: Kobayashi's anisotropic phase-field model of dendritic
//    solidification in double, a thread a cell: the gradient angle by atan2 and the
//    six-fold anisotropy (cos / sin) at the cell and its four neighbours by a device
//    function (the radius-two stencil read straight from global memory, no-flux edges by
//    clamping), the undercooling's driving force by atan, the phase and the temperature
//    (latent heat) stepped into new arrays; the model's parameters a struct by value;
//  - gb_stats: grain and grain-boundary statistics of a 16-bit grain map, a grid-stride
//    loop over the pixels: each grain's area and perimeter by global atomicAdds, the
//    boundaries' misorientation (4-fold symmetry: fabsf, fmodf, fminf) into a shared
//    histogram, their Read-Shockley energy (logf) into a shared float by atomicAdd, the
//    triple junctions (2 x 2 windows of three grains or more) into a shared counter, the
//    block's shared tallies added into the global ones at the end;
//  - cnt_nucleation: classical nucleation theory on a 3D solute field in double, a
//    grid-stride loop over the cells: the driving force by log, the critical radius and
//    barrier, the Zeldovich factor (sqrt), the attachment rate, the rate with its incubation
//    term (two exp), the probability a nucleus forms in the time step against a hashed
//    uniform, skipped in cells an existing precipitate has depleted (an 8-bit mask); the
//    new nuclei appended by a warp-aggregated atomicAdd (__ballot_sync, __ffs, __shfl_sync,
//    __popc) as structs; the total driving force summed by __shfl_down_sync and one double
//    atomicAdd a block; the physical constants a __constant__ struct;
//  - apt_grain_growth: a multi-phase-field (Fan-Chen) grain growth step with active
//    parameter tracking, a thread a cell: each cell keeps its 4 largest order parameters
//    (24-byte structs of 16-bit grain ids and floats); the cell's and its 4 neighbours'
//    lists merged into a local union list by linear search (1 grain inside grains, 2 .. 8
//    near boundaries and junctions: divergent loops), the Allen-Cahn update of each, the
//    4 largest above a threshold kept by insertion.

#define PI_D 3.141592653589793
#define HALF_PI_F 1.57079632679f
#define QUARTER_PI_F 0.785398163397f

#define CH_T 16                 // ch_spinodal_tile: the tile's side (blockDim 16 x 16)
#define CH_H 2                  // the halo: the potential's Laplacian needs c two cells out

#define PT_HITS 4               // potts_grain_growth: Metropolis trials a boundary site a launch

#define GB_BINS 32              // gb_stats: misorientation bins over 0 .. 45 degrees
#define GB_THETA_M 0.261799388f // Read-Shockley's cut-off angle (15 degrees)

#define APT_K 4                 // apt_grain_growth: order parameters kept a cell
#define APT_U 20                // the 5-point stencil's union list at most (5 x APT_K)
#define APT_EMPTY 0xffff        // an unused slot's id
#define APT_MIN 1e-4f           // order parameters below this are dropped

// Kobayashi's model: the parameters of the classic six-fold snowflake run
struct KobParams {
    double dx;                  // grid spacing
    double dt;                  // time step
    double tau;                 // the phase's relaxation time
    double eps_bar;             // mean gradient energy coefficient
    double delta;               // anisotropy strength
    double aniso;               // anisotropy mode (6: six-fold)
    double theta0;              // the preferred growth direction
    double alpha;               // the driving force's scale (m = alpha / pi atan(gamma (teq - T)))
    double gamma;
    double teq;                 // the melting temperature
    double latent;              // the latent heat (K)
};

// classical nucleation theory's constants (SI), set by the host
struct CntParams {
    double c_eq;                // the solute's solubility (atomic fraction)
    double xp;                  // the precipitate's solute fraction
    double kT;                  // J
    double omega;               // the atomic volume (m^3)
    double gamma;               // the precipitate / matrix interface energy (J / m^2)
    double diff;                // the solute's diffusivity (m^2 / s)
    double a4;                  // the lattice parameter to the 4th (m^4)
    double time;                // the time since the quench (s): the incubation term
    double vdt;                 // a cell's volume times the time step (m^3 s)
};

struct Nucleus {
    int x, y, z;                // the cell
    float r;                    // the critical radius (m)
};

// a cell's order parameters, the largest first; id APT_EMPTY past the last
struct AptCell {
    unsigned short id[APT_K];
    float phi[APT_K];
};

// exp(-dE / kT) for dE = 0 .. 8, set by the host
__constant__ float c_boltz[9];

__constant__ CntParams c_cnt;

// a 32-bit integer hash (lowbias32): the random numbers from (site, launch, trial)
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// the anisotropic gradient coefficient eps and its derivative by the angle at cell (x, y),
// and phi's gradient there (central differences, edges clamped)
__device__ void kob_aniso(const double *phi, int n, int x, int y, const KobParams &p, double &eps, double &deps,
                          double &gx, double &gy) {
    int xm = max(x - 1, 0), xp = min(x + 1, n - 1);
    int ym = max(y - 1, 0), yp = min(y + 1, n - 1);
    gx = (phi[y * n + xp] - phi[y * n + xm]) / (2.0 * p.dx);
    gy = (phi[yp * n + x] - phi[ym * n + x]) / (2.0 * p.dx);
    double theta = atan2(gy, gx);
    eps = p.eps_bar * (1.0 + p.delta * cos(p.aniso * (theta - p.theta0)));
    deps = -p.eps_bar * p.aniso * p.delta * sin(p.aniso * (theta - p.theta0));
}

extern "C" {

// c (n x n, periodic) stepped into c_new: c + mdt lap(2 A c (1 - c)(1 - 2 c) - kappa lap(c));
// n a multiple of CH_T
__global__ void ch_spinodal_tile(const float *c, float *c_new, int n, float A, float kappa, float mdt) {
    __shared__ float s_c[CH_T + 2 * CH_H][CH_T + 2 * CH_H];
    __shared__ float s_mu[CH_T + 2][CH_T + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * CH_T + tx;
    int x0 = blockIdx.x * CH_T - CH_H;
    int y0 = blockIdx.y * CH_T - CH_H;
    const int W = CH_T + 2 * CH_H;
    for (int k = tid; k < W * W; k += CH_T * CH_T) {
        int ly = k / W, lx = k % W;
        int gx = (x0 + lx + n) % n;
        int gy = (y0 + ly + n) % n;
        s_c[ly][lx] = c[gy * n + gx];
    }
    __syncthreads();
    const int M = CH_T + 2;
    for (int k = tid; k < M * M; k += CH_T * CH_T) {
        int ly = k / M + 1, lx = k % M + 1;
        float v = s_c[ly][lx];
        float lap = s_c[ly][lx - 1] + s_c[ly][lx + 1] + s_c[ly - 1][lx] + s_c[ly + 1][lx] - 4.0f * v;
        s_mu[ly - 1][lx - 1] = 2.0f * A * v * (1.0f - v) * (1.0f - 2.0f * v) - kappa * lap;
    }
    __syncthreads();
    int mx = tx + 1, my = ty + 1;
    float lapmu = s_mu[my][mx - 1] + s_mu[my][mx + 1] + s_mu[my - 1][mx] + s_mu[my + 1][mx] - 4.0f * s_mu[my][mx];
    int x = blockIdx.x * CH_T + tx;
    int y = blockIdx.y * CH_T + ty;
    c_new[y * n + x] = s_c[ty + CH_H][tx + CH_H] + mdt * lapmu;
}

// one Metropolis pass over sublattice (sx, sy) of the periodic n x n grain map spin (n a
// power of two, a multiple of 64; blockDim 32 x 8, the grid n / 64 x n / 16); *flips += the
// sites that changed
__global__ void potts_grain_growth(unsigned short *spin, int n, int sx, int sy, unsigned int seed, int *flips) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int x = 2 * i + sx;
    int y = 2 * j + sy;
    int mask = n - 1;
    int xm = (x - 1) & mask, xp = (x + 1) & mask;
    int ym = (y - 1) & mask, yp = (y + 1) & mask;
    unsigned short nb[8];
    nb[0] = spin[ym * n + xm];
    nb[1] = spin[ym * n + x];
    nb[2] = spin[ym * n + xp];
    nb[3] = spin[y * n + xm];
    nb[4] = spin[y * n + xp];
    nb[5] = spin[yp * n + xm];
    nb[6] = spin[yp * n + x];
    nb[7] = spin[yp * n + xp];
    unsigned short old = spin[y * n + x];
    unsigned short cur = old;
    int same = 0;
    for (int k = 0; k < 8; k++) same += (nb[k] == cur);
    if (same < 8) {                              // a boundary site
        unsigned int site = (unsigned int)(y * n + x);
        for (int h = 0; h < PT_HITS; h++) {
            unsigned int r = hash32(site ^ hash32(seed * PT_HITS + h));
            unsigned short trial = nb[r & 7];
            if (trial == cur) continue;
            int e_old = 0, e_new = 0;
            for (int k = 0; k < 8; k++) {
                e_old += (nb[k] != cur);
                e_new += (nb[k] != trial);
            }
            int de = e_new - e_old;
            float u = (r >> 8) * (1.0f / 16777216.0f);
            if (de <= 0 || u < c_boltz[de]) cur = trial;
        }
        if (cur != old) spin[y * n + x] = cur;
    }
    unsigned int changed = __ballot_sync(0xffffffff, cur != old);
    if ((threadIdx.x & 31) == 0 && changed != 0) atomicAdd(flips, __popc(changed));
}

// one explicit step of Kobayashi's model on an n x n grid: phi, T into phi_new, T_new
__global__ void kobayashi_dendrite(const double *phi, const double *T, double *phi_new, double *T_new, int n,
                                   KobParams p) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n) return;
    int xm = max(x - 1, 0), xp = min(x + 1, n - 1);
    int ym = max(y - 1, 0), yp = min(y + 1, n - 1);
    double eps, deps, gx, gy;
    double eps_l, deps_l, gx_l, gy_l;
    double eps_r, deps_r, gx_r, gy_r;
    double eps_d, deps_d, gx_d, gy_d;
    double eps_u, deps_u, gx_u, gy_u;
    kob_aniso(phi, n, x, y, p, eps, deps, gx, gy);
    kob_aniso(phi, n, xm, y, p, eps_l, deps_l, gx_l, gy_l);
    kob_aniso(phi, n, xp, y, p, eps_r, deps_r, gx_r, gy_r);
    kob_aniso(phi, n, x, ym, p, eps_d, deps_d, gx_d, gy_d);
    kob_aniso(phi, n, x, yp, p, eps_u, deps_u, gx_u, gy_u);
    int id = y * n + x;
    double c = phi[id];
    double dx2 = p.dx * p.dx;
    double lap = (phi[y * n + xm] + phi[y * n + xp] + phi[ym * n + x] + phi[yp * n + x] - 4.0 * c) / dx2;
    // d/dy (eps eps' phi_x) - d/dx (eps eps' phi_y)
    double term1 = (eps_u * deps_u * gx_u - eps_d * deps_d * gx_d) / (2.0 * p.dx);
    double term2 = -(eps_r * deps_r * gy_r - eps_l * deps_l * gy_l) / (2.0 * p.dx);
    // div(eps^2 grad phi) = eps^2 lap(phi) + grad(eps^2) . grad(phi)
    double e2x = (eps_r * eps_r - eps_l * eps_l) / (2.0 * p.dx);
    double e2y = (eps_u * eps_u - eps_d * eps_d) / (2.0 * p.dx);
    double term3 = eps * eps * lap + e2x * gx + e2y * gy;
    double t = T[id];
    double m = p.alpha / PI_D * atan(p.gamma * (p.teq - t));
    double dphi = (term1 + term2 + term3 + c * (1.0 - c) * (c - 0.5 + m)) / p.tau;
    double pn = c + p.dt * dphi;
    double lapT = (T[y * n + xm] + T[y * n + xp] + T[ym * n + x] + T[yp * n + x] - 4.0 * t) / dx2;
    phi_new[id] = pn;
    T_new[id] = t + p.dt * lapT + p.latent * (pn - c);
}

// the periodic n x n grain map label (grain g's orientation ori[g], radians in 0 .. pi / 2):
// area[g] += its pixels, perim[g] += its boundary edges (each pixel's right and lower edges),
// mis_hist[b] += the boundary edges of misorientation bin b, *junctions += the 2 x 2
// windows of 3 grains or more, *gb_energy += the edges' Read-Shockley energy (units of the
// high-angle boundaries')
__global__ void gb_stats(const unsigned short *label, const float *ori, int n, int *area, int *perim, int *mis_hist,
                         int *junctions, float *gb_energy) {
    __shared__ int s_hist[GB_BINS];
    __shared__ int s_tj;
    __shared__ float s_energy;
    for (int k = threadIdx.x; k < GB_BINS; k += blockDim.x) s_hist[k] = 0;
    if (threadIdx.x == 0) {
        s_tj = 0;
        s_energy = 0.0f;
    }
    __syncthreads();
    int total = n * n;
    for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < total; p += gridDim.x * blockDim.x) {
        int x = p % n, y = p / n;
        int xr = (x + 1) % n, yd = (y + 1) % n;
        int g = label[p];
        int gr = label[y * n + xr];
        int gd = label[yd * n + x];
        int gdr = label[yd * n + xr];
        atomicAdd(&area[g], 1);
        for (int k = 0; k < 2; k++) {
            int h = (k == 0) ? gr : gd;
            if (h == g) continue;
            atomicAdd(&perim[g], 1);
            atomicAdd(&perim[h], 1);
            float th = fabsf(ori[g] - ori[h]);
            th = fmodf(th, HALF_PI_F);
            th = fminf(th, HALF_PI_F - th);                 // 0 .. pi / 4
            int bin = (int)(th / QUARTER_PI_F * GB_BINS);
            if (bin > GB_BINS - 1) bin = GB_BINS - 1;
            atomicAdd(&s_hist[bin], 1);
            float e = 1.0f;
            if (th < GB_THETA_M) {
                float r = th / GB_THETA_M;
                e = r > 0.0f ? r * (1.0f - logf(r)) : 0.0f;
            }
            atomicAdd(&s_energy, e);
        }
        int distinct = 1 + (gr != g) + (gd != g && gd != gr) + (gdr != g && gdr != gr && gdr != gd);
        if (distinct >= 3) atomicAdd(&s_tj, 1);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < GB_BINS; k += blockDim.x)
        if (s_hist[k] != 0) atomicAdd(&mis_hist[k], s_hist[k]);
    if (threadIdx.x == 0) {
        atomicAdd(junctions, s_tj);
        atomicAdd(gb_energy, s_energy);
    }
}

// classical nucleation on the n x n x n solute field conc (x fastest): the cells where a
// nucleus forms in this step appended to nuclei (*count of them, the first max_nuclei
// kept), *dg_sum += the driving force (J / m^3) summed over the supersaturated cells; seed
// the step's; blockDim a multiple of 32, at most 1024
__global__ void cnt_nucleation(const float *conc, const unsigned char *depleted, int n, unsigned int seed,
                               Nucleus *nuclei, int *count, int max_nuclei, double *dg_sum) {
    __shared__ double s_part[32];
    int lane = threadIdx.x & 31;
    int wid = threadIdx.x >> 5;
    double dg_acc = 0.0;
    int total = n * n * n;
    // the whole warp goes round the loop together, so that the ballot sees every lane
    for (int base = blockIdx.x * blockDim.x; base < total; base += gridDim.x * blockDim.x) {
        int i = base + threadIdx.x;
        bool nuc = false;
        float rstar = 0.0f;
        if (i < total) {
            double c = conc[i];
            if (c > c_cnt.c_eq) {
                double dgv = c_cnt.xp * c_cnt.kT / c_cnt.omega * log(c / c_cnt.c_eq);
                dg_acc += dgv;
                if (depleted[i] == 0) {
                    double g = c_cnt.gamma;
                    double rs = 2.0 * g / dgv;
                    double dgs = 16.0 * PI_D * g * g * g / (3.0 * dgv * dgv);
                    double zeld = c_cnt.omega * dgv * dgv / (8.0 * PI_D * sqrt(g * g * g * c_cnt.kT));
                    double beta = 4.0 * PI_D * rs * rs * c_cnt.diff * c / c_cnt.a4;
                    double tau = 1.0 / (2.0 * beta * zeld * zeld);
                    double J = c / c_cnt.omega * zeld * beta * exp(-dgs / c_cnt.kT) * exp(-tau / c_cnt.time);
                    double prob = 1.0 - exp(-J * c_cnt.vdt);
                    double u = hash32((unsigned int)i ^ hash32(seed)) * 2.3283064365386963e-10;
                    if (u < prob) {
                        nuc = true;
                        rstar = (float)rs;
                    }
                }
            }
        }
        unsigned int ballot = __ballot_sync(0xffffffff, nuc);
        if (ballot != 0) {
            int leader = __ffs(ballot) - 1;
            int first = 0;
            if (lane == leader) first = atomicAdd(count, __popc(ballot));
            first = __shfl_sync(0xffffffff, first, leader);
            if (nuc) {
                int slot = first + __popc(ballot & ((1u << lane) - 1));
                if (slot < max_nuclei) {
                    Nucleus nu;
                    nu.x = i % n;
                    nu.y = (i / n) % n;
                    nu.z = i / (n * n);
                    nu.r = rstar;
                    nuclei[slot] = nu;
                }
            }
        }
    }
    for (int o = 16; o > 0; o /= 2) dg_acc += __shfl_down_sync(0xffffffff, dg_acc, o);
    if (lane == 0) s_part[wid] = dg_acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        double s = 0.0;
        for (int w = 0; w < blockDim.x / 32; w++) s += s_part[w];
        atomicAdd(dg_sum, s);
    }
}

// one explicit Fan-Chen step of the periodic n x n multi-phase field in into out:
// dphi = -ldt (-alpha phi + beta phi^3 + 2 gam phi sum_{j != i} phi_j^2 - kappa lap(phi))
__global__ void apt_grain_growth(const AptCell *in, AptCell *out, int n, float ldt, float alpha, float beta,
                                 float gam, float kappa) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n) return;
    int nbr[5];
    nbr[0] = y * n + x;
    nbr[1] = y * n + (x + n - 1) % n;
    nbr[2] = y * n + (x + 1) % n;
    nbr[3] = ((y + n - 1) % n) * n + x;
    nbr[4] = ((y + 1) % n) * n + x;
    unsigned short uid[APT_U];
    float uc[APT_U];                   // the cell's own value (0 where it lacks the grain)
    float us[APT_U];                   // the neighbours' sum
    int nu = 0;
    for (int s = 0; s < 5; s++) {
        AptCell cell = in[nbr[s]];
        for (int k = 0; k < APT_K; k++) {
            if (cell.id[k] == APT_EMPTY) break;
            int j = 0;
            while (j < nu && uid[j] != cell.id[k]) j++;
            if (j == nu) {
                uid[nu] = cell.id[k];
                uc[nu] = 0.0f;
                us[nu] = 0.0f;
                nu++;
            }
            if (s == 0) uc[j] = cell.phi[k];
            else us[j] += cell.phi[k];
        }
    }
    float sum2 = 0.0f;
    for (int j = 0; j < nu; j++) sum2 += uc[j] * uc[j];
    unsigned short kid[APT_K];
    float kphi[APT_K];
    int nk = 0;
    for (int j = 0; j < nu; j++) {
        float p = uc[j];
        float lap = us[j] - 4.0f * p;
        float df = -alpha * p + beta * p * p * p + 2.0f * gam * p * (sum2 - p * p);
        float pn = p - ldt * (df - kappa * lap);
        pn = fminf(fmaxf(pn, 0.0f), 1.0f);
        if (pn < APT_MIN) continue;
        if (nk == APT_K && pn <= kphi[APT_K - 1]) continue;
        int pos = nk < APT_K ? nk : APT_K - 1;
        while (pos > 0 && kphi[pos - 1] < pn) {
            kphi[pos] = kphi[pos - 1];
            kid[pos] = kid[pos - 1];
            pos--;
        }
        kphi[pos] = pn;
        kid[pos] = uid[j];
        if (nk < APT_K) nk++;
    }
    AptCell o;
    for (int k = 0; k < APT_K; k++) {
        o.id[k] = k < nk ? kid[k] : (unsigned short)APT_EMPTY;
        o.phi[k] = k < nk ? kphi[k] : 0.0f;
    }
    out[y * n + x] = o;
}

}
