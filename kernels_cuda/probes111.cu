// probe-unseen109: a hydrology and water-resources course's CUDA assignments, as a student
// who knows CUDA basics hands them in:
//  - d8_flowdir: D8 flow directions on a DEM (row-major nx x ny floats), a thread a cell in
//    16 x 16 blocks; the block's cells and a one-cell halo staged in a shared tile (cells
//    outside the DEM FLT_MAX, never downhill), then the steepest drop over the 8
//    neighbours (diagonals divided by sqrt 2) gives the ESRI code (1 E, 2 SE, 4 S, 8 SW,
//    16 W, 32 NW, 64 N, 128 NE; 0 for a pit or a flat) and the slope (drop / cellsize);
//  - flowacc_pass: one pass of flow accumulation by repeated passes (a pull-style Jacobi
//    sweep): a cell's new count is 1 plus the counts of the neighbours whose D8 code
//    points at it; a cell whose count changed sets a global flag by atomicOr (the host
//    runs passes until the flag stays 0);
//  - kinwave_route: kinematic-wave routing along river reaches, a thread a reach cut into
//    KW_SEG segments, the implicit nonlinear scheme of Chow, Maidment and Mays (Applied
//    Hydrology 9.6): for each time step and segment a linear-scheme first guess, then
//    Newton iterations on dt/dx Q + alpha Q^beta = C with powf, until the step is below
//    a relative tolerance; the reach's outlet hydrograph stored;
//  - green_ampt: Green-Ampt infiltration, a thread a cell: its soil class's Ks, suction
//    head and effective porosity from __constant__ tables (Rawls et al.), the initial
//    deficit from its effective saturation, then GA_STEPS explicit steps of a storm
//    hyetograph (in __constant__, scaled by the cell's rainfall factor): the capacity
//    Ks (1 + psi dtheta / F), infiltration the smaller of it and the rain, the excess to
//    runoff; cumulative infiltration, runoff and the ponding step stored;
//  - reservoir_sim: daily mass balance of a reservoir over `days` days of many
//    stochastic inflow scenarios, a thread a scenario (inflows day-major): the storage to
//    area table staged in shared memory and searched linearly, evaporation and the
//    month's demand from __constant__ tables, releases cut when the water above the dead
//    storage runs short (a failure day), spill above the capacity; end storage, total
//    spill, the lowest storage and the failure days stored;
//  - catchment_stats: per-catchment statistics of a labelled DEM, a thread a cell: cells
//    outside every catchment (label -1) skipped, then global atomics on the cell's
//    catchment: the cell count, the sums of rainfall and elevation, and the highest and
//    lowest elevation in whole centimetres (atomicMax / atomicMin).

#define D8_BX 16              // d8_flowdir: the block (and tile) width
#define D8_BY 16              // d8_flowdir: the block (and tile) height
#define KW_SEG 16             // kinwave_route: segments a reach
#define KW_MAXIT 20           // kinwave_route: the most Newton iterations a segment and step
#define GA_SOILS 11           // green_ampt: the soil texture classes
#define GA_STEPS 96           // green_ampt: the hyetograph's intervals
#define RES_PTS 16            // reservoir_sim: points of the storage-area table
#define DAYS_YEAR 365         // reservoir_sim: days a year (the months' lengths averaged)

// the D8 neighbours in ESRI code order (code 1 << k): E, SE, S, SW, W, NW, N, NE (y down)
__constant__ int c_dx[8] = {1, 1, 0, -1, -1, -1, 0, 1};
__constant__ int c_dy[8] = {0, 1, 1, 1, 0, -1, -1, -1};

// green_ampt's soil parameters by texture class (set by the host): saturated hydraulic
// conductivity Ks (cm/h), wetting-front suction head psi (cm), effective porosity
__constant__ float c_ks[GA_SOILS];
__constant__ float c_psi[GA_SOILS];
__constant__ float c_theta_e[GA_SOILS];
// the storm's rainfall intensity an interval (cm/h)
__constant__ float c_rain[GA_STEPS];

// reservoir_sim's monthly demand (m^3/s) and lake evaporation (mm/day) (set by the host)
__constant__ float c_demand[12];
__constant__ float c_evap[12];

extern "C" {

// D8 flow directions and slopes of an nx x ny DEM (row-major, y down)
__global__ void d8_flowdir(const float *dem, unsigned char *dir, float *slope, float cellsize, int nx, int ny) {
    __shared__ float tile[D8_BY + 2][D8_BX + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x0 = blockIdx.x * D8_BX - 1;
    int y0 = blockIdx.y * D8_BY - 1;
    // the block's cells and the halo around them, (D8_BX + 2) x (D8_BY + 2) values
    for (int k = ty * D8_BX + tx; k < (D8_BX + 2) * (D8_BY + 2); k += D8_BX * D8_BY) {
        int r = k / (D8_BX + 2);
        int c = k % (D8_BX + 2);
        int gx = x0 + c;
        int gy = y0 + r;
        float z = FLT_MAX;                  // outside the DEM: never downhill
        if (gx >= 0 && gx < nx && gy >= 0 && gy < ny) z = dem[gy * nx + gx];
        tile[r][c] = z;
    }
    __syncthreads();

    int x = blockIdx.x * D8_BX + tx;
    int y = blockIdx.y * D8_BY + ty;
    if (x >= nx || y >= ny) return;
    float zc = tile[ty + 1][tx + 1];
    float best = 0.0f;
    int code = 0;
    for (int k = 0; k < 8; k++) {
        float zn = tile[ty + 1 + c_dy[k]][tx + 1 + c_dx[k]];
        float drop = zc - zn;
        if (k % 2 == 1) drop = drop * 0.70710678f;       // diagonal neighbours: sqrt(2) cells away
        if (drop > best) {
            best = drop;
            code = 1 << k;
        }
    }
    dir[y * nx + x] = (unsigned char)code;
    slope[y * nx + x] = best / cellsize;
}

// one pass of flow accumulation: acc_out = 1 + the acc_in of the neighbours draining into
// the cell (their D8 code points back at it); *changed set if any cell's count changed
__global__ void flowacc_pass(const unsigned char *dir, const int *acc_in, int *acc_out, int *changed, int nx,
                             int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int a = 1;                              // the cell itself
    for (int k = 0; k < 8; k++) {
        int xn = x + c_dx[k];
        int yn = y + c_dy[k];
        if (xn < 0 || xn >= nx || yn < 0 || yn >= ny) continue;
        // neighbour k drains here when its direction is the opposite one, (k + 4) % 8
        if (dir[yn * nx + xn] == (1 << ((k + 4) % 8))) a += acc_in[yn * nx + xn];
    }
    int i = y * nx + x;
    acc_out[i] = a;
    if (a != acc_in[i]) atomicOr(changed, 1);
}

// kinematic-wave routing of n reaches (wide rectangular channels, Manning): q_in the
// upstream inflow hydrographs (m^3/s, (steps + 1) x n, time-major), each reach's length
// (m), bed slope, Manning's n, width (m) and lateral inflow a metre (m^2/s); the outlet
// discharge of steps 1 .. steps stored in q_out (steps x n)
__global__ void kinwave_route(const float *q_in, const float *length, const float *slope, const float *manning,
                              const float *width, const float *q_lat, float *q_out, float dt, int steps, int n) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    const float beta = 0.6f;
    float dx = length[r] / KW_SEG;
    // A = alpha Q^beta with alpha = (n P^(2/3) / sqrt(S0))^0.6, the wetted perimeter P ~ the width
    float alpha = powf(manning[r] * powf(width[r], 2.0f / 3.0f) / sqrtf(slope[r]), beta);
    float ql = q_lat[r];
    float dtdx = dt / dx;

    float Q[KW_SEG + 1];                    // discharge at the segment ends, the previous step
    Q[0] = q_in[r];
    for (int i = 1; i <= KW_SEG; i++) Q[i] = Q[i - 1] + ql * dx;      // steady state at t = 0

    for (int t = 1; t <= steps; t++) {
        float qup = q_in[t * n + r];        // Q_i at the new time, starting at the upstream end
        Q[0] = qup;
        for (int i = 1; i <= KW_SEG; i++) {
            float qold = Q[i];              // Q_{i+1} at the old time
            // first guess: the linear scheme
            float ab = alpha * beta * powf(0.5f * (qold + qup), beta - 1.0f);
            float qk = (dtdx * qup + ab * qold + dt * ql) / (dtdx + ab);
            float C = dtdx * qup + alpha * powf(qold, beta) + dt * ql;
            for (int it = 0; it < KW_MAXIT; it++) {
                float f = dtdx * qk + alpha * powf(qk, beta) - C;
                float df = dtdx + alpha * beta * powf(qk, beta - 1.0f);
                float qn = qk - f / df;
                if (qn <= 0.0f) qn = 0.5f * qk;
                float dq = fabsf(qn - qk);
                qk = qn;
                if (dq <= 1e-5f * qk) break;
            }
            Q[i] = qk;
            qup = qk;
        }
        q_out[(t - 1) * n + r] = Q[KW_SEG];
    }
}

// Green-Ampt infiltration of n cells under the storm c_rain (GA_STEPS intervals of dt
// hours) times the cell's rainfall factor: soil class soil[i], effective saturation se[i];
// cumulative infiltration F (cm), runoff (cm) and the first ponded interval (-1: none)
__global__ void green_ampt(const unsigned char *soil, const float *se, const float *rain_fac, float *F_out,
                           float *runoff, int *t_pond, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c = soil[i];
    float ks = c_ks[c];
    float dtheta = (1.0f - se[i]) * c_theta_e[c];
    float psi_dtheta = c_psi[c] * dtheta;
    float rf = rain_fac[i];
    float F = 0.0f;
    float R = 0.0f;
    int tp = -1;
    for (int t = 0; t < GA_STEPS; t++) {
        float rate = c_rain[t] * rf;
        // infiltration capacity; unlimited while nothing has infiltrated yet
        float fcap = 1e30f;
        if (F > 0.0f) fcap = ks * (1.0f + psi_dtheta / F);
        float f = fminf(rate, fcap);
        if (rate > fcap && tp < 0) tp = t;
        F += f * dt;
        R += (rate - f) * dt;
    }
    F_out[i] = F;
    runoff[i] = R;
    t_pond[i] = tp;
}

// the daily mass balance of one reservoir under n inflow scenarios (inflow m^3/s, days x
// n, day-major); storage in hm^3 from s0, the table stor_tab (hm^3) -> area_tab (km^2);
// end storage, total spill, lowest storage and failure days (release cut) stored
__global__ void reservoir_sim(const float *inflow, const float *stor_tab, const float *area_tab, float *s_end,
                              float *spill_tot, float *s_low, int *fail_days, float s_cap, float s_dead, float s0,
                              int days, int n) {
    __shared__ float s_stor[RES_PTS];
    __shared__ float s_area[RES_PTS];
    if (threadIdx.x < RES_PTS) {
        s_stor[threadIdx.x] = stor_tab[threadIdx.x];
        s_area[threadIdx.x] = area_tab[threadIdx.x];
    }
    __syncthreads();
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n) return;
    float S = s0;
    float spill = 0.0f;
    float low = s0;
    int fails = 0;
    for (int d = 0; d < days; d++) {
        int m = (d % DAYS_YEAR) * 12 / DAYS_YEAR;
        float I = inflow[d * n + s] * 0.0864f;            // m^3/s over a day -> hm^3
        // surface area: linear interpolation in the storage-area table
        int k = 0;
        while (k < RES_PTS - 2 && S > s_stor[k + 1]) k++;
        float w = (S - s_stor[k]) / (s_stor[k + 1] - s_stor[k]);
        float A = s_area[k] + w * (s_area[k + 1] - s_area[k]);
        float E = c_evap[m] * A * 0.001f;                  // mm/day x km^2 -> hm^3
        float R = c_demand[m] * 0.0864f;
        float avail = S + I - E - s_dead;
        if (avail < R) {                                   // not enough above the dead storage
            R = fmaxf(avail, 0.0f);
            fails++;
        }
        S = S + I - E - R;
        if (S > s_cap) {
            spill += S - s_cap;
            S = s_cap;
        }
        low = fminf(low, S);
    }
    s_end[s] = S;
    spill_tot[s] = spill;
    s_low[s] = low;
    fail_days[s] = fails;
}

// statistics of n cells by catchment (basin[i], -1 outside every catchment): the cells'
// count, rainfall and elevation sums, and the highest and lowest elevation in whole cm
__global__ void catchment_stats(const int *basin, const float *elev, const float *rain, int *count,
                                float *rain_sum, float *elev_sum, int *zmax_cm, int *zmin_cm, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = basin[i];
    if (b < 0) return;
    float z = elev[i];
    atomicAdd(&count[b], 1);
    atomicAdd(&rain_sum[b], rain[i]);
    atomicAdd(&elev_sum[b], z);
    int zc = (int)(z * 100.0f);
    atomicMax(&zmax_cm[b], zc);
    atomicMin(&zmin_cm[b], zc);
}

}
