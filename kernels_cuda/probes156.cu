// probe-unseen154: a computational ecology / population dynamics course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - predprey_rd_step: one explicit Euler step of a spatial Rosenzweig-MacArthur predator-prey
//    model (logistic prey, Holling type II predation) with diffusion of both species on a
//    2-D landscape grid, 5-point Laplacians with zero-flux (reflecting) edges, a thread a
//    cell (2-D blocks), the two fields double-buffered;
//  - crw_forage: an individual-based movement model, a thread an animal: a correlated random
//    walk (wrapped-Cauchy turning angles, exponential step lengths, each from its own
//    xorshift32 stream) with area-restricted search (short tortuous moves where the resource
//    grid's cell under the animal is rich, long straight ones elsewhere) on a torus, the
//    energy budget (intake from the cell minus a cost per distance) kept as it goes;
//  - metapop_step: a year of a metapopulation on a patch network, a thread a patch: Ricker
//    growth of the patch itself and of each patch sending it dispersers (the incoming edges
//    in CSR, the fraction of the sender's emigrants that arrive as each edge's weight), the
//    stayers plus the immigrants, patches under the quasi-extinction density set to 0;
//  - seed_rain: the seed rain of a forest landscape, the cells' seed production convolved
//    with a 15 x 15 2Dt dispersal kernel (Clark et al. 1999) held in __constant__ memory, a
//    16 x 16 block a tile staged with its halo in shared memory (seeds landing outside the
//    landscape lost);
//  - occurrence_grid: species-occurrence records (longitude, latitude, species) binned into
//    the cells of a study-region grid, a thread a record: records outside the region dropped,
//    each cell's record count by atomicAdd and its species-presence bitset (the species
//    richness map's input) by atomicOr;
//  - leslie_project: age-structured populations (a Leslie matrix with a plus group, the
//    species' vital rates in __constant__, Beverton-Holt density-dependent recruitment
//    scaled by the population's region's year-by-year environment series) projected in
//    double precision, a thread a population with its age vector in a per-thread array,
//    stopping at quasi-extinction; the quasi-extinct populations counted by a warp shuffle
//    reduction and an atomicAdd a warp.

#define CRW_RHO_IN 0.3f       // crw_forage: turning concentration inside a rich cell (tortuous)
#define CRW_RHO_OUT 0.9f      // and outside (nearly straight)
#define CRW_LEN_IN 0.5f       // mean step length (cells) inside a rich cell
#define CRW_LEN_OUT 3.0f      // and outside
#define SD_R 7                // seed_rain: the dispersal kernel's radius (cells)
#define SD_K (2 * SD_R + 1)   // its width, 15
#define SD_TILE 16            // blockDim.x == blockDim.y
#define OC_WORDS 8            // occurrence_grid: 32-bit words of a cell's presence bitset (256 species)
#define LS_AGES 12            // leslie_project: age classes (the last a plus group)
#define LS_SPECIES 8          // species with vital rates in __constant__

// seed_rain's dispersal kernel (set by the host): the fraction of a cell's seeds landing dy, dx
// cells away at (dy + SD_R) * SD_K + dx + SD_R
__constant__ float c_disp[SD_K * SD_K];
// leslie_project's vital rates (set by the host): species s, age k at s * LS_AGES + k
__constant__ double c_fec[LS_SPECIES * LS_AGES];
__constant__ double c_surv[LS_SPECIES * LS_AGES];
__constant__ double c_beta[LS_SPECIES];       // Beverton-Holt density dependence of recruitment

extern "C" {

// one Euler step (dt) of prey N and predators P on an nx x ny grid (row-major), results in N2, P2:
// dN/dt = r N (1 - N/K) - a N P / (1 + a h N) + DN lap(N), dP/dt = e a N P / (1 + a h N) - m P + DP lap(P)
__global__ void predprey_rd_step(const float *N, const float *P, float *N2, float *P2, int nx, int ny, float r,
                                 float K, float a, float h, float e, float m, float DN, float DP, float dt) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    // zero-flux edges: a missing neighbour is the cell itself
    int il = x > 0 ? i - 1 : i;
    int ir = x < nx - 1 ? i + 1 : i;
    int id = y > 0 ? i - nx : i;
    int iu = y < ny - 1 ? i + nx : i;
    float n = N[i];
    float p = P[i];
    float lapN = N[il] + N[ir] + N[id] + N[iu] - 4.0f * n;
    float lapP = P[il] + P[ir] + P[id] + P[iu] - 4.0f * p;
    float f = a * n / (1.0f + a * h * n);          // Holling type II functional response
    float dn = r * n * (1.0f - n / K) - f * p + DN * lapN;
    float dp = e * f * p - m * p + DP * lapP;
    N2[i] = fmaxf(n + dt * dn, 0.0f);
    P2[i] = fmaxf(p + dt * dp, 0.0f);
}

// steps moves of n animals (x, y, heading, energy, rng updated in place) on a W x H torus of
// resource cells (row-major): rich cells (resource > rich) slow and twist the walk
__global__ void crw_forage(float *x, float *y, float *heading, float *energy, unsigned int *rng,
                           const float *resource, int W, int H, float rich, float gain, float cost, int steps,
                           int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float px = x[i];
    float py = y[i];
    float th = heading[i];
    float en = energy[i];
    unsigned int s = rng[i];
    for (int t = 0; t < steps; t++) {
        int cx = min((int)px, W - 1);
        int cy = min((int)py, H - 1);
        float R = resource[cy * W + cx];
        en += gain * R;
        float rho = CRW_RHO_OUT;
        float len = CRW_LEN_OUT;
        if (R > rich) {
            rho = CRW_RHO_IN;
            len = CRW_LEN_IN;
        }
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        float u1 = (float)((s >> 8) | 1u) * (1.0f / 16777216.0f);     // uniform in (0, 1)
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        float u2 = (float)((s >> 8) | 1u) * (1.0f / 16777216.0f);
        // wrapped-Cauchy turning angle, exponential step length
        float turn = 2.0f * atanf((1.0f - rho) / (1.0f + rho) * tanf(3.14159265f * (u1 - 0.5f)));
        float step = -len * logf(u2);
        th += turn;
        px += step * cosf(th);
        py += step * sinf(th);
        px = fmodf(px, (float)W);
        if (px < 0.0f) px += W;
        py = fmodf(py, (float)H);
        if (py < 0.0f) py += H;
        en -= cost * step;
    }
    x[i] = px;
    y[i] = py;
    heading[i] = th;
    energy[i] = en;
    rng[i] = s;
}

// a year of n patches: densities N (capacities K) grow by Ricker (rate r); a fraction mig
// emigrates, patch i receiving w[e] of patch src[e]'s emigrants for e in off[i] .. off[i + 1];
// densities under ext set to 0
__global__ void metapop_step(const int *off, const int *src, const float *w, const float *N, const float *K,
                             float *N2, float r, float mig, float ext, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float Ni = N[i];
    float grown = Ni * expf(r * (1.0f - Ni / K[i]));
    float imm = 0.0f;
    for (int e = off[i]; e < off[i + 1]; e++) {
        int j = src[e];
        float Nj = N[j];
        imm += w[e] * Nj * expf(r * (1.0f - Nj / K[j]));
    }
    float out = (1.0f - mig) * grown + mig * imm;
    N2[i] = out < ext ? 0.0f : out;
}

// the seeds landing in each cell of an nx x ny landscape (row-major) from the seed production
// fec of the cells within SD_R, weighted by c_disp (blockDim SD_TILE x SD_TILE)
__global__ void seed_rain(const float *fec, float *rain, int nx, int ny) {
    __shared__ float tile[SD_TILE + 2 * SD_R][SD_TILE + 2 * SD_R];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x0 = blockIdx.x * SD_TILE - SD_R;
    int y0 = blockIdx.y * SD_TILE - SD_R;
    for (int yy = ty; yy < SD_TILE + 2 * SD_R; yy += SD_TILE) {
        for (int xx = tx; xx < SD_TILE + 2 * SD_R; xx += SD_TILE) {
            int gx = x0 + xx;
            int gy = y0 + yy;
            float v = 0.0f;
            if (gx >= 0 && gx < nx && gy >= 0 && gy < ny) v = fec[gy * nx + gx];
            tile[yy][xx] = v;
        }
    }
    __syncthreads();
    int x = blockIdx.x * SD_TILE + tx;
    int y = blockIdx.y * SD_TILE + ty;
    if (x >= nx || y >= ny) return;
    float s = 0.0f;
    for (int dy = 0; dy < SD_K; dy++)
        for (int dx = 0; dx < SD_K; dx++)
            s += c_disp[dy * SD_K + dx] * tile[ty + dy][tx + dx];
    rain[y * nx + x] = s;
}

// n occurrence records (lon, lat in degrees, species 0 .. 32 OC_WORDS - 1) binned into the
// W x H cells of side 1 / inv_res degrees from (lon0, lat0): count[cell] the records,
// presence[cell * OC_WORDS + s / 32] bit s % 32 set for each species s recorded there
__global__ void occurrence_grid(const float *lon, const float *lat, const int *species, int *count,
                                unsigned int *presence, float lon0, float lat0, float inv_res, int W, int H,
                                int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int cx = (int)floorf((lon[i] - lon0) * inv_res);
    int cy = (int)floorf((lat[i] - lat0) * inv_res);
    if (cx < 0 || cx >= W || cy < 0 || cy >= H) return;    // outside the region (or a bad coordinate)
    int cell = cy * W + cx;
    atomicAdd(&count[cell], 1);
    int s = species[i];
    atomicOr(&presence[cell * OC_WORDS + (s >> 5)], 1u << (s & 31));
}

// n populations (age vectors n0, LS_AGES a population; species sp, region reg) projected up to
// years years: recruits = sum fec * age * env[reg * years + t] / (1 + beta * total), age k + 1
// <- surv[k] * age k, the plus group keeping surv[LS_AGES - 1] of itself; qe_year the
// projections after which the total first fell under qe (-1 if never, the projection stopping
// there), nT the last age vector, *n_qe += the quasi-extinct populations (blockDim.x a
// multiple of 32)
__global__ void leslie_project(const double *n0, const int *sp, const int *reg, const double *env, double *nT,
                               int *qe_year, int *n_qe, int years, double qe, int n) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int gone = 0;
    if (p < n) {
        int s = sp[p];
        const double *e = env + reg[p] * years;
        double a[LS_AGES];
        double tot = 0.0;
        for (int k = 0; k < LS_AGES; k++) {
            a[k] = n0[p * LS_AGES + k];
            tot += a[k];
        }
        int year = -1;
        for (int t = 0; t < years; t++) {
            double births = 0.0;
            for (int k = 0; k < LS_AGES; k++) births += c_fec[s * LS_AGES + k] * a[k];
            double plus = c_surv[s * LS_AGES + LS_AGES - 1] * a[LS_AGES - 1];
            for (int k = LS_AGES - 1; k > 0; k--) a[k] = c_surv[s * LS_AGES + k - 1] * a[k - 1];
            a[LS_AGES - 1] += plus;
            a[0] = births * e[t] / (1.0 + c_beta[s] * tot);
            tot = 0.0;
            for (int k = 0; k < LS_AGES; k++) tot += a[k];
            if (tot < qe) {
                year = t + 1;
                break;
            }
        }
        for (int k = 0; k < LS_AGES; k++) nT[p * LS_AGES + k] = a[k];
        qe_year[p] = year;
        gone = year >= 0 ? 1 : 0;
    }
    for (int o = 16; o > 0; o >>= 1) gone += __shfl_down_sync(0xffffffff, gone, o);
    if ((threadIdx.x & 31) == 0 && gone > 0) atomicAdd(n_qe, gone);
}

}
