// probe-unseen226: a flood inundation / shallow-water hydraulics course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - swe_hll_step: one explicit first-order finite-volume step of the 2-D shallow-water
//    equations on a square-cell grid (h, hu, hv and the bed z as separate float arrays),
//    a thread a cell: its 4 faces' HLL fluxes (Toro's wave speeds, the dry-bed ones at a
//    wet/dry front) after Audusse's hydrostatic reconstruction of the bed step, each face
//    through a rotation to its normal (the face's direction from a __constant__ table),
//    reflective walls at the grid's edge, then semi-implicit Manning friction with the
//    roughness of the cell's land-cover class (an 8-bit code into a __constant__ table);
//  - swe_cfl_reduce: the next time step by the CFL condition, a grid-stride loop over the
//    cells: the wet cells' cfl dx / (max(|u|, |v|) + sqrt(g h)) reduced to a minimum by
//    warp shuffles and a global atomicMin on the float's bits (positive floats order as
//    ints), the deepest cell the same way by atomicMax, the wet cells counted by
//    __ballot_sync / __popc and the water volume summed in double through a shared double
//    atomicAdd and one global double atomicAdd a block;
//  - pd_fill_tile: Planchon and Darboux's depression filling (2001), one launch of the
//    host's loop, a block a 16 x 16 tile: the tile of the water surface W with a one-cell
//    halo in shared memory, then Jacobi sweeps of the rule (lower W to the DEM Z where a
//    neighbour's W + eps is at or below Z, else to the lowest neighbour's W + eps) over
//    the 8 neighbours from a __constant__ table until the tile stops changing
//    (__syncthreads_or) or PD_MAXIT sweeps; the cells changed counted by
//    __syncthreads_count and one global atomicAdd a block;
//  - radar_scs_runoff: rainfall-runoff of a storm seen by a weather radar, a thread a cell:
//    each 5-minute frame's 8-bit reflectivity code of the radar pixel over the cell
//    (nearest pixel, floorf), no echo skipped, dBZ to rain rate by Marshall and Palmer
//    (Z = 200 R^1.6, powf twice), the cumulative rain, its peak and the frame where it
//    passes the initial abstraction; runoff by the SCS curve-number method with the CN of
//    the cell's land use and hydrologic soil group (8-bit codes into a __constant__ table);
//    the start frame stored as a short;
//  - accum_wave: flow accumulation by waves (a topological order), one launch of the
//    host's loop: a block-uniform grid-stride loop, a cell not done whose donors have all
//    fired (in-degree 0 in the wave's snapshot) fires: marked done, its receiver from the
//    ESRI D8 code (one bit: __ffs) and a __constant__ offset table, its accumulated runoff
//    added to the receiver by a float atomicAdd and the receiver's in-degree decremented
//    by an int atomicSub into the next wave's copy; the cells fired counted by
//    __ballot_sync / __popc and one global atomic a warp;
//  - inundation_stats: flood hazard statistics by census zone from a simulation's maximum
//    depth and velocity rasters (16-bit: mm and mm/s) and a 16-bit zone raster, a
//    grid-stride loop: the hazard rating HR = d (v + 0.5) + DF (Defra / EA FD2320, the
//    debris factor by depth) classed by __constant__ thresholds, counted into a per-block
//    shared histogram of zone x class (contended shared int atomics), the zone's flood
//    volume by a shared float atomicAdd and its deepest cell by a shared atomicMax, then
//    flushed by global atomics into an array of ZoneStat structs.

#define G_ACC 9.81f
#define H_DRY 1.0e-3f           // a cell holding less water (m) is dry
#define N_LC 8                  // swe_hll_step: land-cover classes

#define CFL_WARPS 8             // swe_cfl_reduce: the block's warps (256 threads)

#define PD_T 16                 // pd_fill_tile: the tile (and block) side
#define PD_MAXIT 32             // the most sweeps a launch

#define N_LU 8                  // radar_scs_runoff: land-use classes
#define N_HSG 4                 // hydrologic soil groups A .. D
#define DBZ_CAP 53.0f           // reflectivity above this is hail: capped

#define ZS_NZ 1024              // inundation_stats: zones (0: outside the study area)
#define ZS_NCLS 4               // hazard classes: low, moderate, significant, extreme
#define ZS_DRY_MM 10            // cells shallower than this (mm) are dry

#define FULL_MASK 0xffffffffu

struct ZoneStat {
    int ncls[ZS_NCLS];          // wet cells of each hazard class
    int dmax_mm;                // the deepest cell (mm)
    float volume;               // the flood volume (m^3)
};

// swe_hll_step: the 4 faces' outward normals (E, W, N, S), Manning's n of each land-cover
// class (set by the host)
__constant__ int c_fnx[4] = {1, -1, 0, 0};
__constant__ int c_fny[4] = {0, 0, 1, -1};
__constant__ float c_manning[N_LC];

// the D8 neighbours in ESRI code order (code 1 << k): E, SE, S, SW, W, NW, N, NE (y down)
__constant__ int c_d8x[8] = {1, 1, 0, -1, -1, -1, 0, 1};
__constant__ int c_d8y[8] = {0, 1, 1, 1, 0, -1, -1, -1};

// radar_scs_runoff: TR-55 curve numbers (antecedent moisture II) by land use and soil group
__constant__ float c_cn[N_LU][N_HSG];

// inundation_stats: the debris factor's depth breaks (m) and values, the hazard classes'
// lower bounds of HR (classes 1 .. 3)
__constant__ float c_df_depth[2];
__constant__ float c_df[3];
__constant__ float c_hr_class[ZS_NCLS - 1];

// ---------------------------------------------------------------- swe_hll_step

// the HLL flux normal to a face between the left state (h, un, ut) and the right one, in
// the face's frame: f[0] mass, f[1] normal momentum, f[2] tangential momentum
__device__ void hll_flux(float hL, float uL, float vL, float hR, float uR, float vR, float *f) {
    f[0] = 0.0f;
    f[1] = 0.0f;
    f[2] = 0.0f;
    if (hL <= H_DRY && hR <= H_DRY) return;
    float cL = sqrtf(G_ACC * hL), cR = sqrtf(G_ACC * hR);
    float sL, sR;
    if (hL <= H_DRY) {                  // dry bed on the left
        sL = uR - 2.0f * cR;
        sR = uR + cR;
    } else if (hR <= H_DRY) {           // dry bed on the right
        sL = uL - cL;
        sR = uL + 2.0f * cL;
    } else {
        sL = fminf(uL - cL, uR - cR);
        sR = fmaxf(uL + cL, uR + cR);
    }
    float FL[3], FR[3], UL[3], UR[3];
    UL[0] = hL; UL[1] = hL * uL; UL[2] = hL * vL;
    UR[0] = hR; UR[1] = hR * uR; UR[2] = hR * vR;
    FL[0] = hL * uL; FL[1] = hL * uL * uL + 0.5f * G_ACC * hL * hL; FL[2] = hL * uL * vL;
    FR[0] = hR * uR; FR[1] = hR * uR * uR + 0.5f * G_ACC * hR * hR; FR[2] = hR * uR * vR;
    for (int k = 0; k < 3; k++) {
        if (sL >= 0.0f) f[k] = FL[k];
        else if (sR <= 0.0f) f[k] = FR[k];
        else f[k] = (sR * FL[k] - sL * FR[k] + sL * sR * (UR[k] - UL[k])) / (sR - sL);
    }
}

extern "C" {

// an nx x ny grid (row-major, x along a row) of dx x dx cells; the new state into h1, hu1, hv1
__global__ void swe_hll_step(const float *h, const float *hu, const float *hv, const float *z,
                             const unsigned char *lc, float *h1, float *hu1, float *hv1,
                             int nx, int ny, float dx, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    int c = j * nx + i;
    float h0 = h[c], z0 = z[c];
    float u0 = 0.0f, v0 = 0.0f;
    if (h0 > H_DRY) {
        u0 = hu[c] / h0;
        v0 = hv[c] / h0;
    }
    float dh = 0.0f, dhu = 0.0f, dhv = 0.0f;    // the sum of the outward fluxes
    for (int f = 0; f < 4; f++) {
        int nxf = c_fnx[f], nyf = c_fny[f];
        int ii = i + nxf, jj = j + nyf;
        float hn, un, vn, zn;
        if (ii < 0 || ii >= nx || jj < 0 || jj >= ny) {
            // a reflective wall: the mirror state, the normal velocity reversed
            hn = h0;
            zn = z0;
            un = (nxf != 0) ? -u0 : u0;
            vn = (nyf != 0) ? -v0 : v0;
        } else {
            int n = jj * nx + ii;
            hn = h[n];
            zn = z[n];
            un = 0.0f;
            vn = 0.0f;
            if (hn > H_DRY) {
                un = hu[n] / hn;
                vn = hv[n] / hn;
            }
        }
        // hydrostatic reconstruction at the face
        float zf = fmaxf(z0, zn);
        float hs = fmaxf(0.0f, h0 + z0 - zf);
        float hns = fmaxf(0.0f, hn + zn - zf);
        // to the face's frame: normal and tangential velocities
        float qL = u0 * nxf + v0 * nyf, tL = -u0 * nyf + v0 * nxf;
        float qR = un * nxf + vn * nyf, tR = -un * nyf + vn * nxf;
        float fl[3];
        hll_flux(hs, qL, tL, hns, qR, tR, fl);
        // the bed-step pressure correction on the cell's side (well balanced: a lake at rest stays)
        float pc = 0.5f * G_ACC * (h0 * h0 - hs * hs);
        float fn = fl[1] + pc;
        dh += fl[0];
        dhu += fn * nxf - fl[2] * nyf;
        dhv += fn * nyf + fl[2] * nxf;
    }
    float r = dt / dx;
    float hnew = h0 - r * dh;
    float hunew = h0 * u0 - r * dhu;
    float hvnew = h0 * v0 - r * dhv;
    if (hnew > H_DRY) {
        float n = c_manning[lc[c]];
        float q = sqrtf(hunew * hunew + hvnew * hvnew);
        float den = 1.0f + dt * G_ACC * n * n * q / (hnew * powf(hnew, 4.0f / 3.0f));
        hunew /= den;
        hvnew /= den;
    } else {
        hnew = fmaxf(hnew, 0.0f);
        hunew = 0.0f;
        hvnew = 0.0f;
    }
    h1[c] = hnew;
    hu1[c] = hunew;
    hv1[c] = hvnew;
}

// ---------------------------------------------------------------- swe_cfl_reduce

// n cells; dt_bits (a float's bits, set to a large dt by the host) lowered to the smallest
// cfl dx / (max(|u|, |v|) + sqrt(g h)) of the wet cells, hmax_bits (0) raised to the
// largest depth, *nwet += the wet cells, *volume += the water volume dx^2 sum h (m^3)
__global__ void swe_cfl_reduce(const float *h, const float *hu, const float *hv, int n, float dx, float cfl,
                               int *dt_bits, int *hmax_bits, int *nwet, double *volume) {
    __shared__ double s_vol;
    int lane = threadIdx.x % 32;
    if (threadIdx.x == 0) s_vol = 0.0;
    __syncthreads();
    float dtmin = 1.0e30f, hmax = 0.0f;
    double vol = 0.0;
    int wet = 0;
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        int i = base + threadIdx.x;
        bool w = false;
        if (i < n) {
            float d = h[i];
            if (d > H_DRY) {
                w = true;
                float u = hu[i] / d, v = hv[i] / d;
                float s = fmaxf(fabsf(u), fabsf(v)) + sqrtf(G_ACC * d);
                dtmin = fminf(dtmin, cfl * dx / s);
                hmax = fmaxf(hmax, d);
                vol += (double)d;
            }
        }
        unsigned int m = __ballot_sync(FULL_MASK, w);
        if (lane == 0) wet += __popc(m);
    }
    for (int o = 16; o > 0; o /= 2) {
        dtmin = fminf(dtmin, __shfl_xor_sync(FULL_MASK, dtmin, o));
        hmax = fmaxf(hmax, __shfl_xor_sync(FULL_MASK, hmax, o));
    }
    atomicAdd(&s_vol, vol);
    if (lane == 0) {
        atomicMin(dt_bits, __float_as_int(dtmin));
        atomicMax(hmax_bits, __float_as_int(hmax));
        atomicAdd(nwet, wet);
    }
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(volume, s_vol * (double)dx * (double)dx);
}

// ---------------------------------------------------------------- pd_fill_tile

// an nx x ny DEM z and the water surface w_in (W >= Z, W = Z on the DEM's edge); w_out the
// surface after this launch's sweeps of each tile (the halo fixed at w_in); *nchanged +=
// the cells lowered
__global__ void pd_fill_tile(const float *z, const float *w_in, float *w_out, int nx, int ny, float eps,
                             int *nchanged) {
    __shared__ float s_w[PD_T + 2][PD_T + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.x * PD_T + tx, j = blockIdx.y * PD_T + ty;
    for (int k = ty * PD_T + tx; k < (PD_T + 2) * (PD_T + 2); k += PD_T * PD_T) {
        int a = k % (PD_T + 2), b = k / (PD_T + 2);
        int gi = blockIdx.x * PD_T + a - 1, gj = blockIdx.y * PD_T + b - 1;
        float v = FLT_MAX;
        if (gi >= 0 && gi < nx && gj >= 0 && gj < ny) v = w_in[gj * nx + gi];
        s_w[b][a] = v;
    }
    bool inside = i < nx && j < ny;
    bool active = inside && i > 0 && j > 0 && i < nx - 1 && j < ny - 1;
    float zc = 0.0f;
    if (active) zc = z[j * nx + i];
    __syncthreads();
    float w0 = s_w[ty + 1][tx + 1];
    for (int it = 0; it < PD_MAXIT; it++) {
        float wc = s_w[ty + 1][tx + 1];
        float wn = wc;
        if (active && wc > zc) {
            for (int k = 0; k < 8; k++) {
                float wk = s_w[ty + 1 + c_d8y[k]][tx + 1 + c_d8x[k]] + eps;
                if (zc >= wk) {
                    wn = zc;
                    break;
                }
                if (wn > wk) wn = wk;
            }
        }
        bool ch = wn != wc;
        __syncthreads();                    // every read of this sweep done
        if (ch) s_w[ty + 1][tx + 1] = wn;
        if (!__syncthreads_or(ch)) break;
    }
    float wf = s_w[ty + 1][tx + 1];
    if (inside) w_out[j * nx + i] = wf;
    int cnt = __syncthreads_count(inside && wf != w0);
    if (tx == 0 && ty == 0 && cnt > 0) atomicAdd(nchanged, cnt);
}

// ---------------------------------------------------------------- radar_scs_runoff

// an nx x ny grid of cells; radar: nf frames of rnx x rny pixels (frame-major, 8-bit codes:
// dBZ = code / 2 - 32, 0 no echo), a cell's pixel floor((i + 0.5) ratio), ratio the cell
// size over the pixel size; frame_h hours a frame; out: the runoff depth (mm), the peak
// rain rate (mm/h), the frame where the cumulative rain first exceeds the initial
// abstraction (-1: never)
__global__ void radar_scs_runoff(const unsigned char *radar, int nf, int rnx, int rny, float ratio,
                                 const unsigned char *landuse, const unsigned char *hsg, int nx, int ny,
                                 float frame_h, float *runoff, float *peak, short *t_start) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    int c = j * nx + i;
    int ri = (int)floorf((i + 0.5f) * ratio);
    int rj = (int)floorf((j + 0.5f) * ratio);
    if (ri > rnx - 1) ri = rnx - 1;
    if (rj > rny - 1) rj = rny - 1;
    float cn = c_cn[landuse[c]][hsg[c]];
    float S = 25400.0f / cn - 254.0f;       // potential retention (mm)
    float Ia = 0.2f * S;                    // initial abstraction
    float P = 0.0f, pk = 0.0f;
    short start = -1;
    for (int f = 0; f < nf; f++) {
        int code = radar[(f * rny + rj) * rnx + ri];
        if (code == 0) continue;
        float dbz = 0.5f * code - 32.0f;
        if (dbz > DBZ_CAP) dbz = DBZ_CAP;
        float Z = powf(10.0f, dbz / 10.0f);
        float R = powf(Z / 200.0f, 1.0f / 1.6f);
        P += R * frame_h;
        pk = fmaxf(pk, R);
        if (start < 0 && P > Ia) start = (short)f;
    }
    float Q = 0.0f;
    if (P > Ia) Q = (P - Ia) * (P - Ia) / (P - Ia + S);
    runoff[c] = Q;
    peak[c] = pk;
    t_start[c] = start;
}

// ---------------------------------------------------------------- accum_wave

// an nx x ny grid, d8 its ESRI codes (0: no receiver); the cells with done 0 and indeg_in 0
// fire: done = 1, acc[receiver] += acc[cell], indeg_out[receiver] -= 1; *nfired += the
// cells fired
__global__ void accum_wave(const unsigned char *d8, const int *indeg_in, int *indeg_out, unsigned char *done,
                           float *acc, int nx, int ny, int *nfired) {
    int lane = threadIdx.x % 32;
    int n = nx * ny;
    int fired = 0;
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        int c = base + threadIdx.x;
        bool fire = false;
        if (c < n && done[c] == 0 && indeg_in[c] == 0) {
            fire = true;
            done[c] = 1;
            int code = d8[c];
            if (code != 0) {
                int k = __ffs(code) - 1;
                int ii = c % nx + c_d8x[k], jj = c / nx + c_d8y[k];
                if (ii >= 0 && ii < nx && jj >= 0 && jj < ny) {
                    int r = jj * nx + ii;
                    atomicAdd(&acc[r], acc[c]);
                    atomicSub(&indeg_out[r], 1);
                }
            }
        }
        unsigned int m = __ballot_sync(FULL_MASK, fire);
        if (lane == 0) fired += __popc(m);
    }
    if (lane == 0 && fired > 0) atomicAdd(nfired, fired);
}

// ---------------------------------------------------------------- inundation_stats

// n cells: the maximum depth (mm) and velocity (mm/s), the zone (0: outside, else
// 1 .. ZS_NZ - 1); for the wet cells of a zone: stats[zone].ncls[class] += 1, volume +=
// depth cell_area, dmax_mm = the deepest
__global__ void inundation_stats(const unsigned short *depth_mm, const unsigned short *vel_mms,
                                 const unsigned short *zone, int n, float cell_area, ZoneStat *stats) {
    __shared__ int s_cnt[ZS_NZ][ZS_NCLS];
    __shared__ float s_vol[ZS_NZ];
    __shared__ int s_dmax[ZS_NZ];
    for (int k = threadIdx.x; k < ZS_NZ; k += blockDim.x) {
        for (int c = 0; c < ZS_NCLS; c++) s_cnt[k][c] = 0;
        s_vol[k] = 0.0f;
        s_dmax[k] = 0;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int zn = zone[i];
        int dmm = depth_mm[i];
        if (zn == 0 || dmm < ZS_DRY_MM) continue;
        float d = dmm * 0.001f;
        float v = vel_mms[i] * 0.001f;
        float df = c_df[0];
        if (d > c_df_depth[1]) df = c_df[2];
        else if (d > c_df_depth[0]) df = c_df[1];
        float hr = d * (v + 0.5f) + df;
        int cls = 0;
        while (cls < ZS_NCLS - 1 && hr >= c_hr_class[cls]) cls++;
        atomicAdd(&s_cnt[zn][cls], 1);
        atomicAdd(&s_vol[zn], d * cell_area);
        atomicMax(&s_dmax[zn], dmm);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < ZS_NZ; k += blockDim.x) {
        int tot = 0;
        for (int c = 0; c < ZS_NCLS; c++) tot += s_cnt[k][c];
        if (tot == 0) continue;
        for (int c = 0; c < ZS_NCLS; c++)
            if (s_cnt[k][c] > 0) atomicAdd(&stats[k].ncls[c], s_cnt[k][c]);
        atomicAdd(&stats[k].volume, s_vol[k]);
        atomicMax(&stats[k].dmax_mm, s_dmax[k]);
    }
}

}
