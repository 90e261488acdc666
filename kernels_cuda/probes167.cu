// probe-unseen165: a glaciology / ice-sheet modelling course's CUDA assignments, as a student
// who knows CUDA basics hands them in:
//  - sia_step: one explicit step of the shallow-ice approximation on a 2-D ice-sheet grid,
//    a thread a cell (2-D blocks): the surface (grounded or afloat) of the 3 x 3
//    neighbourhood, the Mahaffy-type staggered diffusivity D = Gamma H^(n + 2) |grad s|^(n - 1)
//    at the cell's 4 faces (powf with Glen's exponent, a __device__ function a face), the
//    flux divergence plus the surface mass balance, the domain's edge cells emptied;
//  - pdd_smb: the surface mass balance of each land or ice cell by the positive-degree-day
//    method, a thread a cell: Fausto et al. (2009) annual-mean and July temperatures from
//    elevation and latitude, a daily seasonal-cycle shape in __constant__, the expected
//    positive degrees of each of the 365 days with a normal spread (Calov and Greve 2005:
//    expf and erfcf a day), a rain/snow ramp, then snow melt, ice melt and refreezing;
//  - route_water: one pass of basal-water routing (D8): each cell holding water sends it all
//    to the neighbour of steepest descent of the hydraulic potential (diagonals per unit
//    distance), by a float atomicAdd; a cell with no lower neighbour keeps it;
//  - calving_front: the calving front of an ice-mask grid (bytes: ocean, grounded,
//    floating, ice-free land), a thread a cell in 1-D: each ice cell with an open-ocean
//    face is appended to a list (its index and its number of ocean faces) by an atomicAdd
//    on one counter;
//  - column_temp: one implicit time step of the ice temperature, a thread a column of NZ
//    levels (layer-major arrays): vertical diffusion and advection by the accumulation,
//    geothermal flux at the bed, the air temperature at the surface, a Thomas algorithm on
//    per-thread arrays, capped at the pressure-melting point; ice-free columns skipped;
//  - ice_volume: the ice volume, the volume above flotation and the ice-covered area of a
//    grid, a grid-stride loop a thread, a shared-memory tree reduction a block, and one
//    atomicAdd a block of each (double for the volumes).

#define RHO_I 910.0f          // ice density (kg m^-3)
#define RHO_W 1028.0f         // sea water
#define OCEAN 0               // the mask's classes
#define GROUNDED 1
#define FLOATING 2
#define LAND 3
#define PDD_DAYS 365
#define DDF_SNOW 0.003f       // pdd_smb: degree-day factors (m water equivalent per K day)
#define DDF_ICE 0.008f
#define REFREEZE 0.6f         // the share of the snow melt refreezing in the firn
#define T_SNOW 0.0f           // all snow below this air temperature (C), all rain above T_RAIN
#define T_RAIN 2.0f
#define NZ 41                 // column_temp: levels of a column, the bed at 0
#define K_ICE 2.1f            // ice's heat conductivity (W m^-1 K^-1)
#define KAPPA 36.2f           // its thermal diffusivity (m^2 a^-1)
#define BETA_CC 8.7e-4f       // the pressure-melting point's fall with depth (K m^-1)
#define T_MELT 273.15f
#define RED_BLOCK 256         // ice_volume's blockDim.x

// pdd_smb's seasonal cycle (set by the host): day d's temperature as a share of the July
// amplitude about the annual mean
__constant__ float c_cycle[PDD_DAYS];

// the ice flux (m^2 a^-1) from cell 0 to cell 1 across their face: thicknesses h0, h1,
// surfaces s0, s1; cross the two centred differences of the surface along the face, summed
__device__ float sia_flux(float h0, float h1, float s0, float s1, float cross, float idx, float gamma, float p,
                          float q) {
    float hf = 0.5f * (h0 + h1);
    float gn = (s1 - s0) * idx;
    float gt = 0.25f * cross * idx;
    float D = gamma * powf(hf, p) * powf(gn * gn + gt * gt, q);
    return -D * gn;
}

extern "C" {

// one step dt (a) of ice thickness H (m) over bed b (m) on an nx x ny grid of dx (m) cells
// (row-major) with surface mass balance smb (m a^-1): H2 = max(H - dt div(q) + dt smb, 0), q the
// SIA flux with Gamma gamma and Glen exponent glen_n; H2 = 0 on the domain's edge
__global__ void sia_step(const float *H, const float *b, const float *smb, float *H2, int nx, int ny, float dx,
                         float gamma, float glen_n, float dt) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        H2[i] = 0.0f;
        return;
    }
    float h[3][3], s[3][3];
    for (int dy = 0; dy < 3; dy++) {
        for (int dxx = 0; dxx < 3; dxx++) {
            int j = i + (dy - 1) * nx + dxx - 1;
            float hj = H[j];
            h[dy][dxx] = hj;
            s[dy][dxx] = fmaxf(b[j] + hj, (1.0f - RHO_I / RHO_W) * hj);    // afloat: the freeboard
        }
    }
    float idx = 1.0f / dx;
    float p = glen_n + 2.0f;
    float q = 0.5f * (glen_n - 1.0f);
    float qw = sia_flux(h[1][0], h[1][1], s[1][0], s[1][1], (s[2][0] - s[0][0]) + (s[2][1] - s[0][1]), idx, gamma,
                        p, q);
    float qe = sia_flux(h[1][1], h[1][2], s[1][1], s[1][2], (s[2][1] - s[0][1]) + (s[2][2] - s[0][2]), idx, gamma,
                        p, q);
    float qs = sia_flux(h[0][1], h[1][1], s[0][1], s[1][1], (s[0][2] - s[0][0]) + (s[1][2] - s[1][0]), idx, gamma,
                        p, q);
    float qn = sia_flux(h[1][1], h[2][1], s[1][1], s[2][1], (s[1][2] - s[1][0]) + (s[2][2] - s[2][0]), idx, gamma,
                        p, q);
    float dHdt = (qw - qe + qs - qn) * idx + smb[i];
    H2[i] = fmaxf(h[1][1] + dt * dHdt, 0.0f);
}

// n cells (mask, surface elevation surf in m, latitude lat in degrees, sea-level precipitation
// precip in m w.e. a^-1): pdd (K d) and smb (m w.e. a^-1) of each cell not open ocean (0 there);
// sigma the daily temperatures' spread (K)
__global__ void pdd_smb(const unsigned char *mask, const float *surf, const float *lat, const float *precip,
                        float *pdd, float *smb, float sigma, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (mask[i] == OCEAN) {
        pdd[i] = 0.0f;
        smb[i] = 0.0f;
        return;
    }
    float h = surf[i];
    float phi = lat[i];
    // Fausto et al. (2009) at 45 W: annual mean and July temperature (C)
    float tma = 38.81f - 0.006309f * h - 0.7189f * phi;
    float tjul = 12.37f - 0.005426f * h - 0.1585f * phi;
    float amp = tjul - tma;
    float pday = precip[i] * expf(-4.37e-4f * h) / PDD_DAYS;     // drier with height (7.3% a K)
    float is2 = 1.0f / (1.41421356f * sigma);
    float c = 0.39894228f * sigma;                                // sigma / sqrt(2 pi)
    float deg = 0.0f;
    float snow = 0.0f;
    for (int d = 0; d < PDD_DAYS; d++) {
        float t = tma + amp * c_cycle[d];
        float u = t * is2;
        deg += c * expf(-u * u) + 0.5f * t * erfcf(-u);            // E[max(T, 0)], T ~ N(t, sigma^2)
        float fs = (T_RAIN - t) / (T_RAIN - T_SNOW);
        snow += fminf(fmaxf(fs, 0.0f), 1.0f) * pday;
    }
    float snowmelt = fminf(snow, DDF_SNOW * deg);
    float icemelt = DDF_ICE * (deg - snowmelt / DDF_SNOW);
    pdd[i] = deg;
    smb[i] = snow - snowmelt + REFREEZE * snowmelt - icemelt;
}

// one routing pass on an nx x ny grid (row-major): each cell's water w (> 0) added to w_out at
// the neighbour (of 8) with the steepest fall of the hydraulic potential phi, or its own
__global__ void route_water(const float *phi, const float *w, float *w_out, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    float wi = w[i];
    if (wi <= 0.0f) return;                      // a frozen bed: nothing to route
    float p0 = phi[i];
    float best = 0.0f;
    int to = i;
    for (int dy = -1; dy <= 1; dy++) {
        int yy = y + dy;
        if (yy < 0 || yy >= ny) continue;
        for (int dx = -1; dx <= 1; dx++) {
            int xx = x + dx;
            if ((dx == 0 && dy == 0) || xx < 0 || xx >= nx) continue;
            int j = yy * nx + xx;
            float drop = p0 - phi[j];
            if (dx != 0 && dy != 0) drop *= 0.70710678f;      // per unit distance
            if (drop > best) {
                best = drop;
                to = j;
            }
        }
    }
    atomicAdd(&w_out[to], wi);
}

// the grounded or floating cells of an nx x ny mask (row-major) with an OCEAN face (of 4; the
// domain's outside is not ocean): the first cap of them in front (cell) and faces (ocean faces),
// in any order, *count all of them
__global__ void calving_front(const unsigned char *mask, int *front, int *faces, int *count, int cap, int nx,
                              int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nx * ny) return;
    int m = mask[i];
    if (m != GROUNDED && m != FLOATING) return;
    int x = i % nx;
    int y = i / nx;
    int open = 0;
    if (x > 0 && mask[i - 1] == OCEAN) open++;
    if (x < nx - 1 && mask[i + 1] == OCEAN) open++;
    if (y > 0 && mask[i - nx] == OCEAN) open++;
    if (y < ny - 1 && mask[i + nx] == OCEAN) open++;
    if (open == 0) return;
    int k = atomicAdd(count, 1);
    if (k < cap) {
        front[k] = i;
        faces[k] = open;
    }
}

// one step dt (a) of the temperature T (K; level k of column c at k * ncol + c, the bed at 0)
// of ncol columns of thickness H (m): surface Ts (K), geothermal flux G (W m^-2), accumulation
// acc (m a^-1, the vertical velocity -acc at the surface, 0 at the bed); columns under 10 m left
__global__ void column_temp(float *T, const float *H, const float *Ts, const float *G, const float *acc, float dt,
                            int ncol) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ncol) return;
    float h = H[c];
    if (h < 10.0f) return;
    float dz = h / (NZ - 1);
    float r = KAPPA * dt / (dz * dz);
    float a = acc[c];
    float t[NZ], cp[NZ], dp[NZ];
    for (int k = 0; k < NZ; k++) t[k] = T[k * ncol + c];
    // the bed: -K dT/dz = G through a ghost level below it
    float b0 = 1.0f + 2.0f * r;
    cp[0] = -2.0f * r / b0;
    dp[0] = (t[0] + 2.0f * r * dz * G[c] / K_ICE) / b0;
    for (int k = 1; k < NZ - 1; k++) {
        float w = -a * k / (NZ - 1);
        float adv = w * dt / (2.0f * dz);
        float lo = -(r + adv);                   // the coefficient of level k - 1
        float up = -(r - adv);                   // and of level k + 1
        float m = 1.0f + 2.0f * r - lo * cp[k - 1];
        cp[k] = up / m;
        dp[k] = (t[k] - lo * dp[k - 1]) / m;
    }
    t[NZ - 1] = Ts[c];
    for (int k = NZ - 2; k >= 0; k--) t[k] = dp[k] - cp[k] * t[k + 1];
    for (int k = 0; k < NZ; k++) {
        float tpmp = T_MELT - BETA_CC * (h - k * dz);
        T[k * ncol + c] = fminf(t[k], tpmp);
    }
}

// over n cells of cell_area (m^2) with thickness H and bed b (m): vol[0] += the ice volume, vaf[0]
// += the volume above flotation, area[0] += the ice-covered cells (blockDim.x RED_BLOCK)
__global__ void ice_volume(const float *H, const float *b, double *vol, double *vaf, int *area, float cell_area,
                           int n) {
    __shared__ float s_vol[RED_BLOCK];
    __shared__ float s_vaf[RED_BLOCK];
    __shared__ int s_cnt[RED_BLOCK];
    int tid = threadIdx.x;
    float v = 0.0f;
    float f = 0.0f;
    int cnt = 0;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) {
        float h = H[i];
        if (h > 0.0f) {
            v += h;
            cnt++;
            float hf = fmaxf(-b[i], 0.0f) * (RHO_W / RHO_I);     // the thickness that would float
            f += fmaxf(h - hf, 0.0f);
        }
    }
    s_vol[tid] = v;
    s_vaf[tid] = f;
    s_cnt[tid] = cnt;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            s_vol[tid] += s_vol[tid + s];
            s_vaf[tid] += s_vaf[tid + s];
            s_cnt[tid] += s_cnt[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        atomicAdd(vol, (double)s_vol[0] * cell_area);
        atomicAdd(vaf, (double)s_vaf[0] * cell_area);
        atomicAdd(area, s_cnt[0]);
    }
}

}
