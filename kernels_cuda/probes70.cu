// probe-unseen68: a geospatial / climate-modelling course's CUDA assignments (terrain
// analysis, raster GIS, a dynamical core's advection and a column physics scheme), as a
// student who knows CUDA basics hands them in: slope and aspect of a DEM by Horn's 3x3
// method, a thread a cell (8 neighbour loads, sqrtf, atanf, atan2f and ESRI's aspect
// convention, the flat cells given aspect -1); zonal statistics of a raster by a zone-id
// raster, a thread a cell, the nodata cells skipped, the sum, count, min and max of each
// zone by global atomics (min and max by atomicMin/atomicMax on the float's bits, the
// values being >= 0); inverse-distance-weighted interpolation of scattered stations onto a
// grid, a thread a cell, the stations staged through shared memory IDW_TILE at a time;
// one semi-Lagrangian advection step of a tracer on a global lat-lon grid, a thread a
// cell backtracking its departure point along its wind and interpolating the tracer there
// bilinearly (periodic in longitude, clamped at the poles); a saturation adjustment of
// atmospheric columns, a thread a column walking its NLEV levels (stored level-major),
// Magnus' saturation humidity through expf, two Newton steps of condensation where
// supersaturated, evaporation of cloud water where subsaturated, the pressure levels in
// __constant__ memory; and a viewshed, a thread a target cell walking the line of sight
// from an observer cell by cell (as many steps as the target is far), the visible cells
// counted by __ballot_sync, __popc and one atomicAdd a warp.

#define RAD2DEG 57.29578f
#define IDW_TILE 256          // idw_grid: stations a shared tile (blockDim.x * blockDim.y == IDW_TILE)
#define R_EARTH 6371000.0f    // semilag_advect: the Earth's radius (m)
#define PI_F 3.14159265f
#define NLEV 64               // satadj_columns: levels a column
#define LV_CP 2500.8f         // latent heat of vaporisation over c_p (K per kg/kg)

// satadj_columns' levels (set by the host), top first: the pressure (Pa) and the air mass
// per area dp / g (kg/m^2) of each
__constant__ float c_plev[NLEV];
__constant__ float c_dpg[NLEV];

extern "C" {

// slope (degrees) and aspect (degrees clockwise from north; -1 where flat) of an nx x ny
// DEM (row-major, row 0 the northern edge, cell size cs metres) by Horn's method; the
// edge cells get slope 0 and aspect -1
__global__ void horn_slope_aspect(const float *dem, float *slope, float *aspect, float cs, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        slope[i] = 0.0f;
        aspect[i] = -1.0f;
        return;
    }
    float a = dem[i - nx - 1];
    float b = dem[i - nx];
    float c = dem[i - nx + 1];
    float d = dem[i - 1];
    float f = dem[i + 1];
    float g = dem[i + nx - 1];
    float h = dem[i + nx];
    float k = dem[i + nx + 1];
    float dzdx = ((c + 2.0f * f + k) - (a + 2.0f * d + g)) / (8.0f * cs);
    float dzdy = ((g + 2.0f * h + k) - (a + 2.0f * b + c)) / (8.0f * cs);
    slope[i] = atanf(sqrtf(dzdx * dzdx + dzdy * dzdy)) * RAD2DEG;
    float asp = -1.0f;
    if (dzdx != 0.0f || dzdy != 0.0f) {
        float t = atan2f(dzdy, -dzdx) * RAD2DEG;
        if (t < 0.0f)
            asp = 90.0f - t;
        else if (t > 90.0f)
            asp = 360.0f - t + 90.0f;
        else
            asp = 90.0f - t;
    }
    aspect[i] = asp;
}

// per-zone statistics of n raster cells: zone[i] the cell's zone, the cells equal to
// nodata skipped; zsum += v, zcount += 1, and zmin/zmax (the floats' bits as ints, set
// by the host to +inf and 0) by atomicMin/atomicMax, valid as the values are >= 0
__global__ void zonal_stats(const float *val, const int *zone, float nodata, float *zsum, int *zcount, int *zmin,
                            int *zmax, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = val[i];
    if (v == nodata) return;
    int z = zone[i];
    atomicAdd(&zsum[z], v);
    atomicAdd(&zcount[z], 1);
    atomicMin(&zmin[z], __float_as_int(v));
    atomicMax(&zmax[z], __float_as_int(v));
}

// inverse-distance-weighted (power 2) interpolation of nst stations (sx, sy in cells,
// sval) onto an nx x ny grid at the cell centres; a cell within 1e-3 cells of a station
// takes that station's value; blockDim.x * blockDim.y == IDW_TILE
__global__ void idw_grid(const float *sx, const float *sy, const float *sval, int nst, float *out, int nx, int ny) {
    __shared__ float s_x[IDW_TILE];
    __shared__ float s_y[IDW_TILE];
    __shared__ float s_v[IDW_TILE];
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    float px = x + 0.5f;
    float py = y + 0.5f;
    float num = 0.0f;
    float den = 0.0f;
    int hit = -1;
    for (int t = 0; t < nst; t += IDW_TILE) {
        if (t + tid < nst) {
            s_x[tid] = sx[t + tid];
            s_y[tid] = sy[t + tid];
            s_v[tid] = sval[t + tid];
        }
        __syncthreads();
        int m = min(IDW_TILE, nst - t);
        for (int k = 0; k < m; k++) {
            float dx = px - s_x[k];
            float dy = py - s_y[k];
            float d2 = dx * dx + dy * dy;
            if (d2 < 1e-6f) {
                hit = t + k;
            } else {
                float w = 1.0f / d2;
                num += w * s_v[k];
                den += w;
            }
        }
        __syncthreads();
    }
    if (x < nx && y < ny) {
        if (hit >= 0)
            out[y * nx + x] = sval[hit];
        else
            out[y * nx + x] = num / den;
    }
}

// one semi-Lagrangian step of tracer q on a global nlon x nlat grid (row j at latitude
// -90 + (j + 0.5) 180 / nlat degrees, column i at longitude i 360 / nlon), winds u (east)
// and v (north) in m/s: qn at each cell is q at the departure point dt seconds back along
// the cell's wind, interpolated bilinearly, periodic in longitude, the latitude clamped to
// the first and last rows
__global__ void semilag_advect(const float *q, const float *u, const float *v, float *qn, float dt, int nlon,
                               int nlat) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nlon || j >= nlat) return;
    int c = j * nlon + i;
    float dlon = 2.0f * PI_F / nlon;
    float dlat = PI_F / nlat;
    float lat = -0.5f * PI_F + (j + 0.5f) * dlat;
    // the departure point in grid units
    float xd = i - u[c] * dt / (R_EARTH * cosf(lat) * dlon);
    float yd = j - v[c] * dt / (R_EARTH * dlat);
    if (yd < 0.0f) yd = 0.0f;
    if (yd > nlat - 1) yd = nlat - 1;
    int j0 = (int)floorf(yd);
    if (j0 > nlat - 2) j0 = nlat - 2;
    float fy = yd - j0;
    float xf = floorf(xd);
    float fx = xd - xf;
    int i0 = ((int)xf) % nlon;
    if (i0 < 0) i0 += nlon;
    int i1 = i0 + 1;
    if (i1 == nlon) i1 = 0;
    float q00 = q[j0 * nlon + i0];
    float q01 = q[j0 * nlon + i1];
    float q10 = q[(j0 + 1) * nlon + i0];
    float q11 = q[(j0 + 1) * nlon + i1];
    qn[c] = (1.0f - fy) * ((1.0f - fx) * q00 + fx * q01) + fy * ((1.0f - fx) * q10 + fx * q11);
}

// saturation specific humidity (kg/kg) at temperature t (K) and pressure p (Pa), Magnus' formula
__device__ float qsat(float t, float p) {
    float tc = t - 273.15f;
    float es = 610.94f * expf(17.625f * tc / (tc + 243.04f));
    return 0.622f * es / (p - 0.378f * es);
}

// d qsat / dT (per K) from qsat's value qs at t
__device__ float dqsat_dt(float qs, float t) {
    float tc = t - 273.15f;
    return qs * 17.625f * 243.04f / ((tc + 243.04f) * (tc + 243.04f));
}

// saturation adjustment of ncol columns of NLEV levels, a thread a column, the fields
// level-major (level k of column col at k * ncol + col): supersaturated levels condense
// (two Newton steps, the latent heat warming them), subsaturated ones with cloud water
// evaporate it towards saturation (at most all of it); T (K), qv and qc (kg/kg) updated in
// place where they changed; cond[col] = the column's net condensation (kg/m^2)
__global__ void satadj_columns(float *T, float *qv, float *qc, float *cond, int ncol) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= ncol) return;
    float total = 0.0f;
    for (int k = 0; k < NLEV; k++) {
        int i = k * ncol + col;
        float t = T[i];
        float q = qv[i];
        float c = qc[i];
        float p = c_plev[k];
        float qs = qsat(t, p);
        float dq = 0.0f;
        if (q > qs) {
            for (int it = 0; it < 2; it++) {
                if (it > 0) qs = qsat(t, p);
                float d = (q - qs) / (1.0f + LV_CP * dqsat_dt(qs, t));
                t += LV_CP * d;
                q -= d;
                dq += d;
            }
        } else if (c > 0.0f) {
            float d = (qs - q) / (1.0f + LV_CP * dqsat_dt(qs, t));
            if (d > c) d = c;
            t -= LV_CP * d;
            q += d;
            dq = -d;
        }
        if (dq != 0.0f) {
            T[i] = t;
            qv[i] = q;
            qc[i] = c + dq;
        }
        total += dq * c_dpg[k];
    }
    cond[col] = total;
}

// the viewshed of an observer at cell (ox, oy), h_obs metres above an nx x ny DEM (cell
// size cs): a thread a target cell walks the line of sight a cell at a time along its
// longer axis (the DEM sampled at the nearest cell), the target visible (vis = 1) when its
// elevation angle is at least every sample's; *nvisible += the visible cells;
// blockDim.x == 32 (a warp a row of the block)
__global__ void viewshed(const float *dem, unsigned char *vis, int *nvisible, int ox, int oy, float h_obs, float cs,
                         int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    bool visible = false;
    if (x < nx && y < ny) {
        float z0 = dem[oy * nx + ox] + h_obs;
        int dx = x - ox;
        int dy = y - oy;
        int steps = max(abs(dx), abs(dy));
        if (steps == 0) {
            visible = true;
        } else {
            float tx = (float)dx / steps;
            float ty = (float)dy / steps;
            float step_len = sqrtf(tx * tx + ty * ty) * cs;
            float max_slope = -1e30f;
            for (int s = 1; s < steps; s++) {
                int cx = ox + (int)floorf(s * tx + 0.5f);
                int cy = oy + (int)floorf(s * ty + 0.5f);
                float slope = (dem[cy * nx + cx] - z0) / (s * step_len);
                if (slope > max_slope) max_slope = slope;
            }
            float target = (dem[y * nx + x] - z0) / (steps * step_len);
            visible = target >= max_slope;
        }
        vis[y * nx + x] = visible ? 1 : 0;
    }
    unsigned int mask = __ballot_sync(0xffffffff, visible);
    if (threadIdx.x == 0) atomicAdd(nvisible, __popc(mask));
}

}
