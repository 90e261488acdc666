// probe-unseen186: a wildfire spread / fire behaviour modelling course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - rothermel_ros: the Rothermel (1972) surface rate of spread of every cell of a landscape
//    raster, a thread a cell: the cell's fuel model (Anderson's 13, single size class) a
//    FuelModel struct from __constant__ memory, the reaction intensity, propagating flux ratio,
//    wind and slope factors from the fuel's parameters (powf and expf throughout) and the
//    cell's dead fuel moisture, midflame wind and slope, the wind limit applied; non-burnable
//    cells and fuel wetter than its moisture of extinction give 0;
//  - ca_spread_step: one step of a stochastic cellular-automaton fire-spread model (Alexandridis
//    et al. 2008) on a large raster of int states (no fuel, unburned, burning, burned), a thread
//    a cell (2-D blocks of 32 x 8): burning cells burn out, an unburned cell gathers its 8
//    neighbours and, for each burning one, an ignition probability from its vegetation class
//    (a __constant__ factor), the wind along the spread direction and the slope from the
//    neighbour (expf, atanf), then one draw of its own xorshift32 stream against the chance
//    that none ignites it; the new ignitions counted by a warp shuffle reduction and an
//    atomicAdd a warp;
//  - levelset_step: one explicit step of fire-front propagation by the level-set method, the
//    front the zero contour of phi (negative inside the burned area): a 16 x 16 block stages
//    its tile of phi with a one-cell halo (clamped at the domain's edges) in shared memory, then
//    each cell's spread rate is its no-wind rate raised by the wind along the front's outward
//    normal (central differences) and phi advances by the Godunov upwind Hamiltonian F |grad phi|;
//  - ember_transport: firebrand spotting, a thread a firebrand lofted from a burning cell (its
//    source cell, loft height, terminal velocity and burn-out time given): a start inside the
//    cell and a heading about the wind's from a hash-seeded xorshift32 stream (Box-Muller), then
//    the fall stepped in time through a logarithmic wind profile until it lands; live embers
//    landing inside the raster counted per cell by atomicAdd (most brands land a few cells
//    downwind of a few intense sources), each brand's landing cell stored (-1: burnt out or
//    outside);
//  - fuel_moisture_day: dead fuel moisture of the 1-h, 10-h and 100-h time-lag classes of every
//    cell integrated over a day of hourly weather, a thread a cell in blocks of 64: the hour's
//    temperature (lapse-rate corrected for the cell's elevation), relative humidity and rain
//    interpolated bilinearly from a coarse weather grid, the drying and wetting equilibrium
//    moisture contents (Van Wagner's, powf and expf), each class (a per-thread array) relaxing
//    towards the one that applies with its time lag, or wetted by the rain; the day's lowest
//    1-h moisture kept;
//  - region_fire_stats: burned area and fireline-intensity statistics of every administrative
//    region of a raster, a grid-stride loop over the cells: each block sums its burned cells'
//    counts, intensities (in double) and crown-fire counts into shared arrays a region by
//    shared atomics, then adds its nonzero regions' sums to the global ones by atomicAdd.

#define NFM 14                // rothermel_ros: fuel models 0 (non-burnable) .. 13
#define RHO_P 32.0f           // ovendry particle density (lb/ft^3)
#define S_T 0.0555f           // total mineral content
#define ETA_S 0.41739f        // mineral damping coefficient, 0.174 S_e^-0.19 for S_e = 0.01
#define NO_FUEL 0             // ca_spread_step: the cells' states
#define UNBURNED 1
#define BURNING 2
#define BURNED 3
#define NVEG 4                // vegetation classes: none, grass, shrub, forest
#define LS_T 16               // levelset_step: blockDim.x == blockDim.y
#define FM_CLASSES 3          // fuel_moisture_day: the 1-h, 10-h and 100-h classes
#define FM_HOURS 24
#define M_SAT 35.0f           // the moisture content rain wets fuel towards (%)
#define NREG 512              // region_fire_stats: regions
#define CROWN_I 4000.0f       // fireline intensity (kW/m) over which a fire crowns

struct FuelModel {
    float w0;       // ovendry fine fuel load (lb/ft^2)
    float sav;      // surface-area-to-volume ratio (1/ft)
    float depth;    // fuel bed depth (ft)
    float mx;       // dead fuel moisture of extinction (fraction)
    float heat;     // low heat content (Btu/lb)
};

// rothermel_ros's fuel models (set by the host)
__constant__ FuelModel c_fuel[NFM];
// ca_spread_step's vegetation factors (1 + p_veg)(1 + p_den) of each class (set by the host)
__constant__ float c_pveg[NVEG];

extern "C" {

// the rate of spread ros (m/min) of n cells from their fuel model fuel, dead fuel moisture
// moist (fraction), midflame wind speed wind (m/s, upslope) and slope (tan)
__global__ void rothermel_ros(const unsigned char *fuel, const float *moist, const float *wind,
                              const float *slope, float *ros, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int f = fuel[i];
    if (f == 0) {                       // water, rock, urban
        ros[i] = 0.0f;
        return;
    }
    FuelModel fm = c_fuel[f];
    float Mf = moist[i];
    if (Mf >= fm.mx) {                  // too wet to carry a fire
        ros[i] = 0.0f;
        return;
    }
    float sigma = fm.sav;
    float rho_b = fm.w0 / fm.depth;                 // bulk density
    float beta = rho_b / RHO_P;                     // packing ratio
    float beta_op = 3.348f * powf(sigma, -0.8189f);
    float rb = beta / beta_op;
    float s15 = powf(sigma, 1.5f);
    float gmax = s15 / (495.0f + 0.0594f * s15);
    float A = 133.0f * powf(sigma, -0.7913f);
    float gamma = gmax * powf(rb, A) * expf(A * (1.0f - rb));     // optimum reaction velocity
    float rm = Mf / fm.mx;
    float eta_m = 1.0f - 2.59f * rm + 5.11f * rm * rm - 3.52f * rm * rm * rm;
    float IR = gamma * fm.w0 * (1.0f - S_T) * fm.heat * eta_m * ETA_S;    // reaction intensity
    float xi = expf((0.792f + 0.681f * sqrtf(sigma)) * (beta + 0.1f)) / (192.0f + 0.2595f * sigma);
    float C = 7.47f * expf(-0.133f * powf(sigma, 0.55f));
    float B = 0.02526f * powf(sigma, 0.54f);
    float E = 0.715f * expf(-3.59e-4f * sigma);
    float U = wind[i] * 196.85f;                    // m/s to ft/min
    U = fminf(U, 0.9f * IR);                        // the wind limit
    float phi_w = C * powf(U, B) * powf(rb, -E);
    float ts = slope[i];
    float phi_s = 5.275f * powf(beta, -0.3f) * ts * ts;
    float eps = expf(-138.0f / sigma);              // effective heating number
    float Qig = 250.0f + 1116.0f * Mf;              // heat of preignition
    float R = IR * xi * (1.0f + phi_w + phi_s) / (rho_b * eps * Qig);    // ft/min
    ros[i] = R * 0.3048f;
}

// one step of the nx x ny raster (row-major) from state to next: burning cells burn out, an
// unburned cell catches fire from each burning neighbour with probability
// ph c_pveg[veg] exp(V (c1 + c2 (cos theta - 1))) exp(a_s slope_deg), theta the angle between the
// wind (unit vector wx, wy; speed V m/s) and the spread direction, the slope from the neighbour's
// elevation to the cell's; rng the cells' xorshift32 states (advanced when drawn); *n_ignited +=
// the new fires (blockDim.x == 32)
__global__ void ca_spread_step(const int *state, int *next, const unsigned char *veg, const float *elev,
                               unsigned int *rng, int *n_ignited, int nx, int ny, float cell, float ph,
                               float a_s, float c1, float c2, float V, float wx, float wy) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int ign = 0;
    if (x < nx && y < ny) {
        int i = y * nx + x;
        int s = state[i];
        if (s == BURNING) {
            s = BURNED;
        } else if (s == UNBURNED) {
            float z = elev[i];
            float q = 1.0f;             // the chance that no burning neighbour ignites the cell
            for (int dy = -1; dy <= 1; dy++) {
                int yy = y + dy;
                if (yy < 0 || yy >= ny) continue;
                for (int dx = -1; dx <= 1; dx++) {
                    int xx = x + dx;
                    if ((dx == 0 && dy == 0) || xx < 0 || xx >= nx) continue;
                    int j = yy * nx + xx;
                    if (state[j] != BURNING) continue;
                    float d = (dx != 0 && dy != 0) ? cell * 1.41421356f : cell;
                    float cth = -(dx * wx + dy * wy) * (cell / d);          // spread is from j to i
                    float pw = expf(V * (c1 + c2 * (cth - 1.0f)));
                    float slope_deg = atanf((z - elev[j]) / d) * 57.2957795f;
                    float ps = expf(a_s * slope_deg);
                    float p = ph * c_pveg[veg[i]] * pw * ps;
                    q *= 1.0f - fminf(p, 1.0f);
                }
            }
            if (q < 1.0f) {
                unsigned int r = rng[i];
                r ^= r << 13;
                r ^= r >> 17;
                r ^= r << 5;
                rng[i] = r;
                float u = (float)(r >> 8) * (1.0f / 16777216.0f);
                if (u >= q) {
                    s = BURNING;
                    ign = 1;
                }
            }
        }
        next[i] = s;
    }
    for (int o = 16; o > 0; o >>= 1) ign += __shfl_down_sync(0xffffffff, ign, o);
    if (threadIdx.x == 0 && ign > 0) atomicAdd(n_ignited, ign);
}

// phi2 = phi - dt F |grad phi|+ on an nx x ny grid of spacing h (row-major), F = ros (1 + cw
// max(u . n, 0)), n the outward normal of the front, (ux, uy) the wind (m/s)
__global__ void levelset_step(const float *phi, const float *ros, float *phi2, int nx, int ny, float h,
                              float dt, float ux, float uy, float cw) {
    __shared__ float t[LS_T + 2][LS_T + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * LS_T + tx;
    int y = blockIdx.y * LS_T + ty;
    int cx = min(x, nx - 1);
    int cy = min(y, ny - 1);
    t[ty + 1][tx + 1] = phi[cy * nx + cx];
    if (tx == 0) t[ty + 1][0] = phi[cy * nx + max(x - 1, 0)];
    if (tx == LS_T - 1) t[ty + 1][LS_T + 1] = phi[cy * nx + min(x + 1, nx - 1)];
    if (ty == 0) t[0][tx + 1] = phi[max(y - 1, 0) * nx + cx];
    if (ty == LS_T - 1) t[LS_T + 1][tx + 1] = phi[min(y + 1, ny - 1) * nx + cx];
    __syncthreads();
    if (x >= nx || y >= ny) return;
    float c = t[ty + 1][tx + 1];
    float dxm = (c - t[ty + 1][tx]) / h;            // one-sided differences
    float dxp = (t[ty + 1][tx + 2] - c) / h;
    float dym = (c - t[ty][tx + 1]) / h;
    float dyp = (t[ty + 2][tx + 1] - c) / h;
    float gx = 0.5f * (dxm + dxp);                  // the normal from central differences
    float gy = 0.5f * (dym + dyp);
    float gn = sqrtf(gx * gx + gy * gy) + 1e-6f;
    float F = ros[y * nx + x] * (1.0f + cw * fmaxf((ux * gx + uy * gy) / gn, 0.0f));
    // Godunov's upwind |grad phi| for a front moving outwards (F >= 0)
    float a = fmaxf(dxm, 0.0f);
    float b = fminf(dxp, 0.0f);
    float e = fmaxf(dym, 0.0f);
    float g = fminf(dyp, 0.0f);
    phi2[y * nx + x] = c - dt * F * sqrtf(a * a + b * b + e * e + g * g);
}

// n firebrands, brand i lofted from cell src[i] of an nx x ny raster (cells of side cell, m) to
// height loft[i] (m), falling at vt[i] (m/s), burning out after tburn[i] (s): carried by the
// wind u10 (m/s at 10 m, log profile of roughness z0) at heading wdir (rad) + N(0, spread^2),
// stepped by dt (s); land[i] the live ember's landing cell (-1 if burnt out or outside),
// count[cell] += the live embers landing there
__global__ void ember_transport(const int *src, const float *loft, const float *vt, const float *tburn, int *land,
                                int *count, int nx, int ny, float cell, float u10, float wdir, float spread,
                                float z0, float dt, unsigned int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int s = seed ^ (unsigned int)i;        // Wang hash of the brand's index
    s = (s ^ 61u) ^ (s >> 16);
    s *= 9u;
    s ^= s >> 4;
    s *= 0x27d4eb2du;
    s ^= s >> 15;
    float u[4];
    for (int k = 0; k < 4; k++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        u[k] = (float)((s >> 8) | 1u) * (1.0f / 16777216.0f);
    }
    int c = src[i];
    float x = ((float)(c % nx) + u[0]) * cell;
    float y = ((float)(c / nx) + u[1]) * cell;
    float th = wdir + spread * sqrtf(-2.0f * logf(u[2])) * cosf(6.28318531f * u[3]);
    float cs = cosf(th);
    float sn = sinf(th);
    float z = loft[i];
    float w = vt[i];
    float lnref = logf(10.0f / z0);
    float t = 0.0f;
    while (z > 0.0f) {
        float ws = z > z0 ? u10 * logf(z / z0) / lnref : 0.0f;
        x += ws * cs * dt;
        y += ws * sn * dt;
        z -= w * dt;
        t += dt;
    }
    int gx = (int)floorf(x / cell);
    int gy = (int)floorf(y / cell);
    int cl = -1;
    if (t < tburn[i] && gx >= 0 && gx < nx && gy >= 0 && gy < ny) {
        cl = gy * nx + gx;
        atomicAdd(&count[cl], 1);
    }
    land[i] = cl;
}

// the 1-h, 10-h and 100-h dead fuel moistures (%, m1, m10, m100 updated in place) of the W x H
// cells (row-major, elevation elev m) over FM_HOURS hours: temperature T (deg C at sea level),
// relative humidity RH (%) and rain (mm) of hour k at the gw x gh nodes of a weather grid of
// spacing gs cells, node (gx, gy) of hour k at (k * gh + gy) * gw + gx; mmin the day's lowest
// 1-h moisture
__global__ void fuel_moisture_day(float *m1, float *m10, float *m100, float *mmin, const float *elev,
                                  const float *T, const float *RH, const float *rain, int W, int H, int gw,
                                  int gh, int gs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= W * H) return;
    const float tau[FM_CLASSES] = {1.0f, 10.0f, 100.0f};     // time lags (h)
    const float rw[FM_CLASSES] = {0.5f, 0.15f, 0.03f};       // wetting by rain (1/mm)
    float m[FM_CLASSES];
    m[0] = m1[i];
    m[1] = m10[i];
    m[2] = m100[i];
    float lo = m[0];
    float z = elev[i];
    // the cell's place in the weather grid
    float fx = ((float)(i % W) + 0.5f) / (float)gs;
    float fy = ((float)(i / W) + 0.5f) / (float)gs;
    int x0 = min((int)fx, gw - 2);
    int y0 = min((int)fy, gh - 2);
    float ax = fx - (float)x0;
    float ay = fy - (float)y0;
    float w00 = (1.0f - ax) * (1.0f - ay);          // bilinear weights
    float w10 = ax * (1.0f - ay);
    float w01 = (1.0f - ax) * ay;
    float w11 = ax * ay;
    for (int k = 0; k < FM_HOURS; k++) {
        int b = (k * gh + y0) * gw + x0;
        float t = w00 * T[b] + w10 * T[b + 1] + w01 * T[b + gw] + w11 * T[b + gw + 1];
        float rh = w00 * RH[b] + w10 * RH[b + 1] + w01 * RH[b + gw] + w11 * RH[b + gw + 1];
        float r = w00 * rain[b] + w10 * rain[b + 1] + w01 * rain[b + gw] + w11 * rain[b + gw + 1];
        t -= 0.0065f * z;                           // lapse rate
        float tt = 0.18f * (21.1f - t) * (1.0f - expf(-0.115f * rh));
        float ed = 0.942f * powf(rh, 0.679f) + 11.0f * expf((rh - 100.0f) / 10.0f) + tt;   // drying EMC
        float ew = 0.618f * powf(rh, 0.753f) + 10.0f * expf((rh - 100.0f) / 10.0f) + tt;   // wetting EMC
        for (int c = 0; c < FM_CLASSES; c++) {
            if (r > 0.0f) {
                m[c] += (M_SAT - m[c]) * (1.0f - expf(-rw[c] * r));
            } else if (m[c] > ed) {
                m[c] += (ed - m[c]) * (1.0f - expf(-1.0f / tau[c]));
            } else if (m[c] < ew) {
                m[c] += (ew - m[c]) * (1.0f - expf(-1.0f / tau[c]));
            }
        }
        lo = fminf(lo, m[0]);
    }
    m1[i] = m[0];
    m10[i] = m[1];
    m100[i] = m[2];
    mmin[i] = lo;
}

// per region r < NREG of n cells (region id region[i], fireline intensity intensity[i] kW/m, 0
// where unburned): burned[r] += its burned cells, isum[r] += their intensities, crown[r] += those
// of at least CROWN_I
__global__ void region_fire_stats(const unsigned short *region, const float *intensity, int *burned,
                                  double *isum, int *crown, int n) {
    __shared__ int s_burned[NREG];
    __shared__ double s_isum[NREG];
    __shared__ int s_crown[NREG];
    for (int r = threadIdx.x; r < NREG; r += blockDim.x) {
        s_burned[r] = 0;
        s_isum[r] = 0.0;
        s_crown[r] = 0;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float I = intensity[i];
        if (I > 0.0f) {
            int r = region[i];
            atomicAdd(&s_burned[r], 1);
            atomicAdd(&s_isum[r], (double)I);
            if (I >= CROWN_I) atomicAdd(&s_crown[r], 1);
        }
    }
    __syncthreads();
    for (int r = threadIdx.x; r < NREG; r += blockDim.x) {
        if (s_burned[r] > 0) {
            atomicAdd(&burned[r], s_burned[r]);
            atomicAdd(&isum[r], s_isum[r]);
            if (s_crown[r] > 0) atomicAdd(&crown[r], s_crown[r]);
        }
    }
}

}
