// probe-unseen236: a volcanology / volcanic-hazards course's CUDA assignments, as a student
// who knows CUDA basics hands them in (lava-flow cellular automata, tephra fallout and
// dispersal, ground deformation from a Mogi source, volcanic tremor, SO2 flux by UV camera):
//  - lava_magflow_step: one step of a MAGFLOW-style lava-flow cellular automaton on a DEM
//    (a Bingham fluid: the yield strength and the viscosity from the lava's temperature by
//    powf; an outflow to each of the 8 neighbours where the head drops and the thickness
//    passes the critical one), a 16 x 16 tile a block with a 2-cell halo in shared memory
//    (z, h, T), the 18 x 18 ring's 8 outflows a cell into a shared table (limited to half
//    the cell's lava), __syncthreads, then each cell's thickness by outflows and inflows
//    (#pragma unroll over a __constant__ neighbour table), the heat carried in and the
//    radiative cooling of the surface (cbrtf), the vent's effusion added at one cell;
//  - tephra_fallout<NCLS>: a TEPHRA2-style analytical fallout model (advection-diffusion of
//    each grain class released at each level of a Suzuki column): a thread a ground point
//    (the DEM's elevation there), a loop over the column's levels from a __constant__ table
//    of ColumnLevel structs (the release height, its mass share, the mean wind below it by
//    sincosf), the NCLS grain classes (#pragma unroll over a template parameter, a
//    __constant__ table of settling velocities): the fall time (a divide), the drift, the
//    spread (linear diffusion for coarse classes, the t^(5/2) fine-ash law past the fine
//    threshold time: sqrtf), a 2-D Gaussian by expf and divides; the mass load (kg/m^2);
//  - mogi_grid_search: the grid search of a Mogi point source (x, y, depth) against an
//    InSAR scene's line-of-sight displacements, a block a candidate source: a grid-stride
//    loop over the downsampled points (float4 x, y, los, weight and each point's elevation
//    for the topographic correction of the depth), the LOS Green's function of unit volume
//    change (sqrtf, a divide), the three weighted sums G.d, G.G, d.d reduced by
//    __shfl_down_sync and a shared partial a warp, the best volume change and the misfit
//    in double;
//  - tremor_env_xcorr: the envelope cross-correlation of volcanic tremor (for its source
//    location by the lags between stations), a block a (station pair, window): the two
//    stations' windows (a pair from an int2 table; windows with telemetry gaps, flagged by
//    an 8-bit table, skipped by the whole block) into shared memory, their means by a
//    shared tree reduction, demeaned, then a thread a lag correlating over the window
//    (#pragma unroll 8, broadcast and consecutive shared loads), normalised by sqrtf, the
//    best lag by __shfl_xor_sync (value, lag) pairs and a shared partial a warp;
//  - so2_camera_columns: a UV SO2 camera's two filter images (310 nm absorbed, 330 nm not;
//    12-bit counts in 16 bits, two pixels a thread as ushort2) to SO2 column densities, a
//    grid-stride loop over a frame (blockIdx.y) against the clear-sky background images
//    (float2): the dark subtraction, the apparent absorbance by two logf, saturated or dark
//    pixels skipped (divergent), the calibration polynomial, float2 stores; the plume's
//    pixels counted by __ballot_sync / __popc (an int atomicAdd a warp), the integrated
//    column amount along the cross-section column by float atomicAdd (contended a frame);
//  - ash_particle_step: a Lagrangian tephra-dispersal step, a thread an ash particle (a
//    32-byte AshParticle struct, AoS: the deposited ones return at once): the air's density
//    and viscosity at its height (expf, sqrtf), the wind interpolated from a __constant__
//    profile (lanes at different heights: divergent constant addresses), the settling
//    velocity by Ganser's drag law iterated to convergence (powf; a data-dependent trip
//    count), a turbulent random walk (a hash RNG, Box-Muller by logf / sincosf), then the
//    ground: the DEM gathered under it, the particle's mass added to the deposit grid by a
//    double atomicAdd where it lands (scattered, contended near the vent), the mass leaving
//    the domain into one counter.

#define PI_F 3.14159265358979f
#define FULL_MASK 0xffffffffu
#define G_ACC 9.81f
#define SIGMA_SB 5.670374e-8f   // Stefan-Boltzmann (W m^-2 K^-4)

// ---- lava_magflow_step
#define LT 16                   // a block's tile (16 x 16 threads)
#define LH (LT + 4)             // the tile with its 2-cell halo
#define LQ (LT + 2)             // the cells whose outflows are computed (the tile and a 1-cell ring)
#define WALL_Z 1.0e9f           // the topography outside the DEM: nothing flows there
#define T_OUTSIDE 300.0f
#define LAVA_MAXOUT 0.5f        // a cell gives at most half its lava a step

// ---- tephra_fallout
#define TF_MAXLEV 64
#define TF_MAXCLS 16

// ---- mogi_grid_search
#define MG_WARPS 8              // blockDim.x = 256

// ---- tremor_env_xcorr
#define XC_WL 1024              // a window's samples
#define XC_ML 128               // lags -XC_ML .. XC_ML - 1, a thread each (blockDim.x = 2 XC_ML)
#define XC_T (2 * XC_ML)

// ---- so2_camera_columns
#define SO2_SAT 4095            // a saturated 12-bit pixel
#define SO2_MINSIG 40.0f        // counts above the dark level a usable pixel needs

// ---- ash_particle_step
#define AT_NZ 72                // the wind profile's levels ...
#define AT_DZ 250.0f            // ... every 250 m from sea level
#define GANSER_MAXIT 40
#define GANSER_TOL 1.0e-4f

// the 8 neighbours, counter-clockwise from east; the opposite of k is (k + 4) & 7
__constant__ int c_nbx[8] = {1, 1, 0, -1, -1, -1, 0, 1};
__constant__ int c_nby[8] = {0, 1, 1, 1, 0, -1, -1, -1};

// a level of the eruption column: the release height (m a.s.l.), its share of the mass
// (Suzuki), the mean wind between it and the ground (m/s, the azimuth it blows towards,
// radians clockwise from north)
struct ColumnLevel {
    float z, frac, wspd, wdir;
};
// a grain-size class: its settling velocity (m/s) and its share of the mass
struct GrainClass {
    float vs, frac;
};
__constant__ ColumnLevel c_lev[TF_MAXLEV];
__constant__ GrainClass c_cls[TF_MAXCLS];

// an ash particle (metres, kg/m^3, kg); mass 0 once it is on the ground or out of the domain
struct AshParticle {
    float x, y, z;
    float diam, rho, sph;
    float mass;
    unsigned int id;
};
__constant__ float2 c_wind[AT_NZ];   // (east, north) wind (m/s) at z = k AT_DZ

// ---------------------------------------------------------------- tephra_fallout<NCLS>

// load[iy][ix]: the tephra load (kg/m^2) at the ground point (x0 + ix dx, y0 + iy dx) of
// elevation elev[iy][ix] from mass kg erupted from the vent (vx, vy, vz) through the
// column's nlev levels (c_lev) in the NCLS classes of c_cls; kdiff the horizontal
// diffusion coefficient (m^2/s), cfine the fine-ash constant, ftt the fine threshold time (s)
template <int NCLS>
__global__ void tephra_fallout(const float *elev, float x0, float y0, float dx, int nx, int ny, int nlev,
                               float vx, float vy, float vz, float mass, float kdiff, float cfine, float ftt,
                               float *load) {
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix >= nx || iy >= ny) return;
    float px = x0 + ix * dx - vx;             // from the vent
    float py = y0 + iy * dx - vy;
    float zg = elev[iy * nx + ix];
    float acc = 0.0f;
    for (int l = 0; l < nlev; l++) {
        ColumnLevel L = c_lev[l];
        float sw, cw;
        sincosf(L.wdir, &sw, &cw);
        float u = L.wspd * sw, v = L.wspd * cw;
        float fall = fmaxf(L.z - zg, 0.0f);   // the height it falls through
        float rad = 0.2f * (L.z - vz);        // the column's radius at the level
        float ts = rad * rad / (4.0f * kdiff); // the source's effective diffusion time
#pragma unroll
        for (int c = 0; c < NCLS; c++) {
            float t = fall / c_cls[c].vs;
            float tt = t + ts;
            float s2;
            if (t < ftt)
                s2 = 4.0f * kdiff * tt;                        // coarse: linear diffusion
            else
                s2 = 1.6f * cfine * tt * tt * sqrtf(tt);       // fine: sigma^2 ~ t^(5/2)
            float dxp = px - u * t, dyp = py - v * t;
            float r2 = dxp * dxp + dyp * dyp;
            acc += L.frac * c_cls[c].frac * expf(-r2 / (2.0f * s2)) / (2.0f * PI_F * s2);
        }
    }
    load[iy * nx + ix] = mass * acc;
}

// Ganser's (1993) drag coefficient of a particle of Reynolds number re, shape factors k1, k2
__device__ float ganser_cd(float re, float k1, float k2) {
    float rk = re * k1 * k2;
    return 24.0f / (re * k1) * (1.0f + 0.1118f * powf(rk, 0.6567f)) + 0.4305f * k2 / (1.0f + 3305.0f / rk);
}

// lowbias32 (C. Wellons): a 32-bit integer hash
__device__ unsigned int hash_u32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// the SO2 column density (ppm m) of a pixel pair's counts ia (310 nm), ib (330 nm) against
// the clear-sky backgrounds ia0, ib0 (dark-subtracted) and the dark levels da, db;
// *aa the apparent absorbance; *ok whether the pixel is usable
__device__ float so2_pixel(unsigned short ia, unsigned short ib, float ia0, float ib0, float da, float db,
                           float c1, float c2, float *aa, bool *ok) {
    float sa = (float)ia - da, sb = (float)ib - db;
    if (ia >= SO2_SAT || ib >= SO2_SAT || sa < SO2_MINSIG || sb < SO2_MINSIG) {
        *ok = false;
        *aa = 0.0f;
        return 0.0f;
    }
    float tau_a = -logf(sa / ia0);
    float tau_b = -logf(sb / ib0);
    float a = tau_a - tau_b;
    *ok = true;
    *aa = a;
    return c1 * a + c2 * a * a;
}

extern "C" {

// ---------------------------------------------------------------- lava_magflow_step

// z (DEM, m), h (lava thickness, m), T (lava temperature, K): nx x ny cells of dx m; one
// step of dt s into h_out, T_out. rho (kg/m^3), cv (J/kg/K), emis the emissivity, water
// the lava's water (wt%); the vent cell (vent_x, vent_y) gets vent_q m^3/s at vent_T K.
// A 16 x 16 block a tile.
__global__ void lava_magflow_step(const float *z, const float *h, const float *T, int nx, int ny, float dx,
                                  float dt, float rho, float cv, float emis, float water, int vent_x, int vent_y,
                                  float vent_q, float vent_T, float *h_out, float *T_out) {
    __shared__ float s_z[LH][LH];
    __shared__ float s_h[LH][LH];
    __shared__ float s_T[LH][LH];
    __shared__ float s_q[8][LQ][LQ];     // each ring cell's outflows (m of thickness this step)
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * LT + tx;
    int bx = blockIdx.x * LT - 2, by = blockIdx.y * LT - 2;   // the halo's corner on the DEM

    // 1. the tile and its halo
    for (int c = tid; c < LH * LH; c += LT * LT) {
        int cy = c / LH, cx = c % LH;
        int gx = bx + cx, gy = by + cy;
        if (gx >= 0 && gx < nx && gy >= 0 && gy < ny) {
            int g = gy * nx + gx;
            s_z[cy][cx] = z[g];
            s_h[cy][cx] = h[g];
            s_T[cy][cx] = T[g];
        } else {
            s_z[cy][cx] = WALL_Z;
            s_h[cy][cx] = 0.0f;
            s_T[cy][cx] = T_OUTSIDE;
        }
    }
    __syncthreads();

    // 2. the outflows of the tile's cells and the ring around it
    float area = dx * dx;
    for (int c = tid; c < LQ * LQ; c += LT * LT) {
        int cy = c / LQ + 1, cx = c % LQ + 1;     // in the halo tile
        float hi = s_h[cy][cx];
        float q[8];
        float qsum = 0.0f;
#pragma unroll
        for (int k = 0; k < 8; k++) q[k] = 0.0f;
        if (hi > 0.0f) {
            float Ti = s_T[cy][cx];
            float Hi = s_z[cy][cx] + hi;
            float sy = powf(10.0f, 13.00997f - 0.0089f * Ti);                       // yield strength (Pa)
            float eta = powf(10.0f, -4.643f + (5812.44f - 427.04f * water) /
                                             (Ti - 499.31f + 28.74f * logf(water)));  // viscosity (Pa s)
#pragma unroll
            for (int k = 0; k < 8; k++) {
                int ny_ = cy + c_nby[k], nx_ = cx + c_nbx[k];
                float dH = Hi - (s_z[ny_][nx_] + s_h[ny_][nx_]);
                if (dH > 0.0f) {
                    float d = (k & 1) ? dx * 1.41421356f : dx;
                    float hcr = sy * sqrtf(dH * dH + d * d) / (rho * G_ACC * dH);   // critical thickness
                    float a = hi / hcr;
                    if (a > 1.0f) {
                        // q = S_y hcr^2 d / (3 eta) (a^3 - 3/2 a^2 + 1/2), factored
                        q[k] = sy * hcr * hcr * d / (3.0f * eta) * (a - 1.0f) * (a - 1.0f) * (a + 0.5f);
                        qsum += q[k];
                    }
                }
            }
        }
        // m^3/s -> m of thickness this step, at most LAVA_MAXOUT of the cell's lava in all
        float scale = dt / area;
        if (qsum * scale > LAVA_MAXOUT * hi) scale = LAVA_MAXOUT * hi / qsum;
#pragma unroll
        for (int k = 0; k < 8; k++) s_q[k][cy - 1][cx - 1] = q[k] * scale;
    }
    __syncthreads();

    // 3. each cell of the tile: what leaves, what comes in, the heat with it
    int gx = bx + 2 + tx, gy = by + 2 + ty;
    if (gx >= nx || gy >= ny) return;
    int cy = ty + 2, cx = tx + 2;
    float hi = s_h[cy][cx], Ti = s_T[cy][cx];
    float out = 0.0f, in = 0.0f, heat = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; k++) {
        out += s_q[k][cy - 1][cx - 1];
        int jy = cy + c_nby[k], jx = cx + c_nbx[k];
        float qin = s_q[(k + 4) & 7][jy - 1][jx - 1];
        in += qin;
        heat += qin * s_T[jy][jx];
    }
    float hn = hi - out + in;
    float hk = (hi - out) * Ti + heat;
    if (gx == vent_x && gy == vent_y) {
        float add = vent_q * dt / area;
        hn += add;
        hk += add * vent_T;
    }
    float Tn = Ti;
    if (hn > 0.0f) {
        Tn = hk / hn;
        // the surface's radiation over dt: dT/dt = -emis sigma T^4 / (rho cv h)
        float k3 = 3.0f * emis * SIGMA_SB * Tn * Tn * Tn * dt / (rho * cv * hn);
        Tn = Tn / cbrtf(1.0f + k3);
    }
    int g = gy * nx + gx;
    h_out[g] = hn;
    T_out[g] = Tn;
}

// ---------------------------------------------------------------- mogi_grid_search

// pts: npts InSAR points (x east, y north (m), LOS displacement (m, towards the satellite),
// weight 1 / sigma^2), elev their elevations (m); (ex, ey, eu) the ground-to-satellite unit
// vector; nu Poisson's ratio. Candidate blockIdx.x = (iz gny + iy) gnx + ix at (gx0 + ix gdx,
// gy0 + iy gdx) and depth gz0 + iz gdz below sea level: the best volume change dv (m^3)
// and the weighted misfit chi2 left.
__global__ void mogi_grid_search(const float4 *pts, const float *elev, int npts, float ex, float ey, float eu,
                                 float nu, float gx0, float gy0, float gdx, int gnx, int gny, float gz0, float gdz,
                                 float *dv, float *chi2) {
    __shared__ float s_part[3][MG_WARPS];
    int cand = blockIdx.x;
    int iz = cand / (gnx * gny);
    int r = cand - iz * gnx * gny;
    int iy = r / gnx, ix = r - (r / gnx) * gnx;
    float xs = gx0 + ix * gdx, ys = gy0 + iy * gdx, ds = gz0 + iz * gdz;
    float cm = (1.0f - nu) / PI_F;
    float sgd = 0.0f, sgg = 0.0f, sdd = 0.0f;
    for (int i = threadIdx.x; i < npts; i += blockDim.x) {
        float4 p = pts[i];
        float ddx = p.x - xs, ddy = p.y - ys;
        float dz = ds + elev[i];                  // the source's depth below the point
        float R2 = ddx * ddx + ddy * ddy + dz * dz;
        float g = cm * (ex * ddx + ey * ddy + eu * dz) / (R2 * sqrtf(R2));
        sgd += p.w * g * p.z;
        sgg += p.w * g * g;
        sdd += p.w * p.z * p.z;
    }
    for (int o = 16; o > 0; o /= 2) {
        sgd += __shfl_down_sync(FULL_MASK, sgd, o);
        sgg += __shfl_down_sync(FULL_MASK, sgg, o);
        sdd += __shfl_down_sync(FULL_MASK, sdd, o);
    }
    int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
    if (lane == 0) {
        s_part[0][wid] = sgd;
        s_part[1][wid] = sgg;
        s_part[2][wid] = sdd;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double a = 0.0, b = 0.0, c = 0.0;
        for (int w = 0; w < MG_WARPS; w++) {
            a += (double)s_part[0][w];
            b += (double)s_part[1][w];
            c += (double)s_part[2][w];
        }
        double best = a / b;
        dv[cand] = (float)best;
        chi2[cand] = (float)(c - a * best);
    }
}

// ---------------------------------------------------------------- tremor_env_xcorr

// env: nsta tremor envelopes of nsamp samples; window w of pair pairs[blockIdx.y] = (p, q):
// station p's samples w hop + XC_ML + [0, XC_WL), station q's w hop + [0, XC_WL + 2 XC_ML);
// gap[s nwin + w] != 0: station s has a gap in window w. ccmax, lagmax [pair nwin + w]: the
// largest normalised correlation of the demeaned windows and its lag (q's delay, samples);
// -2 and 0 for a window with a gap.
__global__ void tremor_env_xcorr(const float *env, int nsamp, int hop, const int2 *pairs,
                                 const unsigned char *gap, int nwin, float *ccmax, int *lagmax) {
    __shared__ float sa[XC_WL];
    __shared__ float sb[XC_WL + 2 * XC_ML];
    __shared__ float sred[2][XC_T];
    __shared__ float s_best[XC_T / 32];
    __shared__ int s_lag[XC_T / 32];
    int w = blockIdx.x, pr = blockIdx.y;
    int tid = threadIdx.x;
    int2 p = pairs[pr];
    int out = pr * nwin + w;
    if (gap[p.x * nwin + w] || gap[p.y * nwin + w]) {
        if (tid == 0) {
            ccmax[out] = -2.0f;
            lagmax[out] = 0;
        }
        return;
    }
    const float *ea = env + (size_t)p.x * nsamp + w * hop + XC_ML;
    const float *eb = env + (size_t)p.y * nsamp + w * hop;
    float suma = 0.0f, sumb = 0.0f;
    for (int i = tid; i < XC_WL; i += XC_T) {
        float v = ea[i];
        sa[i] = v;
        suma += v;
    }
    for (int i = tid; i < XC_WL + 2 * XC_ML; i += XC_T) {
        float v = eb[i];
        sb[i] = v;
        sumb += v;
    }
    sred[0][tid] = suma;
    sred[1][tid] = sumb;
    __syncthreads();
    for (int s = XC_T / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sred[0][tid] += sred[0][tid + s];
            sred[1][tid] += sred[1][tid + s];
        }
        __syncthreads();
    }
    float ma = sred[0][0] / (float)XC_WL;
    float mb = sred[1][0] / (float)(XC_WL + 2 * XC_ML);
    for (int i = tid; i < XC_WL; i += XC_T) sa[i] -= ma;
    for (int i = tid; i < XC_WL + 2 * XC_ML; i += XC_T) sb[i] -= mb;
    __syncthreads();

    // lag tid - XC_ML: sum_t a[t] b[t + lag]
    float num = 0.0f, eaa = 0.0f, ebb = 0.0f;
#pragma unroll 8
    for (int t = 0; t < XC_WL; t++) {
        float x = sa[t];
        float y = sb[t + tid];
        num += x * y;
        eaa += x * x;
        ebb += y * y;
    }
    float cc = num / sqrtf(eaa * ebb + 1e-30f);
    int lag = tid - XC_ML;
    for (int o = 16; o > 0; o /= 2) {
        float occ = __shfl_xor_sync(FULL_MASK, cc, o);
        int olag = __shfl_xor_sync(FULL_MASK, lag, o);
        if (occ > cc || (occ == cc && olag < lag)) {
            cc = occ;
            lag = olag;
        }
    }
    if (tid % 32 == 0) {
        s_best[tid / 32] = cc;
        s_lag[tid / 32] = lag;
    }
    __syncthreads();
    if (tid == 0) {
        float b = s_best[0];
        int l = s_lag[0];
        for (int k = 1; k < XC_T / 32; k++) {
            if (s_best[k] > b) {                  // warps in increasing lag: ties keep the smaller
                b = s_best[k];
                l = s_lag[k];
            }
        }
        ccmax[out] = b;
        lagmax[out] = l;
    }
}

// ---------------------------------------------------------------- so2_camera_columns

// imA, imB: nframes frames of the 310 nm and 330 nm cameras, npix2 pixel pairs a frame
// (w2 pairs a row; npix2 a multiple of 32); bgA, bgB the clear-sky images (dark
// subtracted); dark[f] the frame's dark levels (A, B). cd: the SO2 column densities (ppm m,
// 0 where the pixel is unusable); ica[f] += the column amounts along the cross-section's
// pixel column 2 ica_col2 times the pixel's height pix_m; nplume[f] += the pixels whose
// apparent absorbance passes aa_plume. Frame blockIdx.y.
__global__ void so2_camera_columns(const ushort2 *imA, const ushort2 *imB, const float2 *bgA, const float2 *bgB,
                                   const float2 *dark, int npix2, int w2, int ica_col2, float c1, float c2,
                                   float pix_m, float aa_plume, float2 *cd, float *ica, int *nplume) {
    int f = blockIdx.y;
    int lane = threadIdx.x % 32;
    float2 dk = dark[f];
    size_t base = (size_t)f * npix2;
    int cnt = 0;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < npix2; k += gridDim.x * blockDim.x) {
        ushort2 a = imA[base + k];
        ushort2 b = imB[base + k];
        float2 a0 = bgA[k], b0 = bgB[k];
        float aa0, aa1;
        bool ok0, ok1;
        float v0 = so2_pixel(a.x, b.x, a0.x, b0.x, dk.x, dk.y, c1, c2, &aa0, &ok0);
        float v1 = so2_pixel(a.y, b.y, a0.y, b0.y, dk.x, dk.y, c1, c2, &aa1, &ok1);
        cd[base + k] = make_float2(v0, v1);
        unsigned int m0 = __ballot_sync(FULL_MASK, ok0 && aa0 > aa_plume);
        unsigned int m1 = __ballot_sync(FULL_MASK, ok1 && aa1 > aa_plume);
        if (lane == 0) cnt += __popc(m0) + __popc(m1);
        if (k % w2 == ica_col2 && ok0) atomicAdd(&ica[f], v0 * pix_m);
    }
    if (lane == 0 && cnt > 0) atomicAdd(&nplume[f], cnt);
}

// ---------------------------------------------------------------- ash_particle_step

// np particles, a step of dt s: settling (Ganser), the wind (c_wind), a random walk of
// horizontal diffusivity kh (m^2/s), drawn from the particle's id and the step's number;
// a particle reaching the ground (topo: gnx x gny cells of gdx m from (gx0, gy0)) adds its
// mass to deposit[cell] (kg), one leaving the grid to deposit[gnx gny]
__global__ void ash_particle_step(AshParticle *p, int np, const float *topo, int gnx, int gny, float gx0,
                                  float gy0, float gdx, float dt, float kh, unsigned int step, double *deposit) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= np) return;
    AshParticle q = p[i];
    if (q.mass <= 0.0f) return;                 // on the ground already

    // the air at its height: standard lapse rate to the tropopause, exponential density
    float za = fmaxf(q.z, 0.0f);
    float Tair = 288.15f - 0.0065f * fminf(za, 11000.0f);
    float rho_a = 1.225f * expf(-za / 8400.0f);
    float mu = 1.458e-6f * Tair * sqrtf(Tair) / (Tair + 110.4f);   // Sutherland

    // the wind, linear between the profile's levels
    float zk = za / AT_DZ;
    int k = (int)zk;
    if (k > AT_NZ - 2) k = AT_NZ - 2;
    float fr = fminf(zk - (float)k, 1.0f);
    float2 w0 = c_wind[k], w1 = c_wind[k + 1];
    float u = w0.x + fr * (w1.x - w0.x);
    float v = w0.y + fr * (w1.y - w0.y);

    // the settling velocity: v = sqrt(4 g d (rho_p - rho_a) / (3 Cd rho_a)), Cd by Ganser
    float k1 = 3.0f / (1.0f + 2.0f / sqrtf(q.sph));
    float k2 = powf(10.0f, 1.8148f * powf(-log10f(q.sph), 0.5743f));
    float drho = q.rho - rho_a;
    float gp = 4.0f * G_ACC * q.diam * drho / (3.0f * rho_a);
    float vs = drho * G_ACC * q.diam * q.diam / (18.0f * mu);       // Stokes: the first guess
    for (int it = 0; it < GANSER_MAXIT; it++) {
        float re = rho_a * vs * q.diam / mu;
        float vn = sqrtf(gp / ganser_cd(re, k1, k2));
        float dv = fabsf(vn - vs);
        vs = vn;
        if (dv < GANSER_TOL * vn) break;
    }

    // turbulent diffusion: two normal deviates by Box-Muller
    unsigned int h1 = hash_u32(q.id * 0x9e3779b9u ^ (step * 0x85ebca6bu));
    unsigned int h2 = hash_u32(h1 ^ 0x68e31da4u);
    float u1 = (float)((h1 >> 8) + 1u) * (1.0f / 16777216.0f);     // (0, 1]
    float u2 = (float)(h2 >> 8) * (1.0f / 16777216.0f);            // [0, 1)
    float rr = sqrtf(-2.0f * logf(u1));
    float sn, cs;
    sincosf(2.0f * PI_F * u2, &sn, &cs);
    float sd = sqrtf(2.0f * kh * dt);
    q.x += u * dt + sd * rr * cs;
    q.y += v * dt + sd * rr * sn;
    q.z -= vs * dt;

    // the ground
    int cx = (int)floorf((q.x - gx0) / gdx);
    int cy = (int)floorf((q.y - gy0) / gdx);
    if (cx < 0 || cx >= gnx || cy < 0 || cy >= gny) {
        atomicAdd(&deposit[gnx * gny], (double)q.mass);
        q.mass = 0.0f;
    } else {
        int c = cy * gnx + cx;
        float zg = topo[c];
        if (q.z <= zg) {
            atomicAdd(&deposit[c], (double)q.mass);
            q.mass = 0.0f;
            q.z = zg;
        }
    }
    p[i] = q;
}

}
