// probe-unseen135: a GIS / terrain-analysis course's CUDA assignments, as a student who
// knows CUDA basics hands them in:
//   hillshade_horn     analytical hillshading of a DEM: Horn's 3x3 slope and aspect from
//                      nine global loads a cell, the sun's zenith and azimuth, one byte out
//                      (0 on the raster's border);
//   focal_tpi5         focal statistics over a 5x5 window from a 16x16 tile plus a 2-cell
//                      halo staged in shared memory (edges replicated): the topographic
//                      position index (the centre minus the mean of its 24 neighbours) and
//                      the local relief (max - min);
//   idw_grid           inverse-distance-weighted (power 2) interpolation of scattered
//                      stations onto a grid, a thread a cell looping over every station in
//                      global memory (a station on a cell centre gives its value);
//   viewshed_r3        the R3 viewshed: a thread a cell walks the line of sight from the
//                      observer to its cell, sampling the DEM at the integer points of the
//                      line, and stops at the first sample that rises above the sight line;
//   pip_parcels        point-in-polygon over many parcels: each GPS point tests the
//                      parcels' bounding boxes in order and runs the crossing-number test
//                      on the parcels whose box holds it (vertices in CSR arrays), the
//                      first parcel containing it (or -1) stored;
//   reclass_crosstab   reclassification of a DEM into elevation bands (breaks in
//                      __constant__ memory) crossed with a land-cover raster: the class
//                      raster written, and the band x class histogram counted by a
//                      grid-stride loop into shared memory with atomicAdd, a block's
//                      counts added to the global histogram at the end.

#define FT 16                 // focal_tpi5: the tile (blockDim 16 x 16)
#define FR 2                  // focal_tpi5: the window's radius (5 x 5)
#define NLC 16                // reclass_crosstab: land-cover classes
#define NBAND 8               // reclass_crosstab: elevation bands
#define NODATA -9999.0f       // reclass_crosstab: the DEM's no-data value

// reclass_crosstab's band breaks (ascending, set by the host): band b holds
// c_breaks[b - 1] <= z < c_breaks[b]
__constant__ float c_breaks[NBAND - 1];

extern "C" {

// hillshade of an nx x ny DEM (row-major, square cells of `cell` metres): Horn's dz/dx and
// dz/dy, slope = atan(zf |grad|), aspect = atan2(dz/dy, -dz/dx), shade = 255 (cos(zen)
// cos(slope) + sin(zen) sin(slope) cos(az - aspect)) clamped at 0 and truncated to a byte;
// az is the sun's azimuth as a math angle (radians)
__global__ void hillshade_horn(const float *dem, unsigned char *shade, int nx, int ny, float cell, float zf,
                               float zen, float az) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        shade[y * nx + x] = 0;
        return;
    }
    float a = dem[(y - 1) * nx + x - 1];
    float b = dem[(y - 1) * nx + x];
    float c = dem[(y - 1) * nx + x + 1];
    float d = dem[y * nx + x - 1];
    float f = dem[y * nx + x + 1];
    float g = dem[(y + 1) * nx + x - 1];
    float h = dem[(y + 1) * nx + x];
    float i = dem[(y + 1) * nx + x + 1];
    float dzdx = ((c + 2.0f * f + i) - (a + 2.0f * d + g)) / (8.0f * cell);
    float dzdy = ((g + 2.0f * h + i) - (a + 2.0f * b + c)) / (8.0f * cell);
    float slope = atanf(zf * sqrtf(dzdx * dzdx + dzdy * dzdy));
    float aspect = atan2f(dzdy, -dzdx);
    float hs = 255.0f * (cosf(zen) * cosf(slope) + sinf(zen) * sinf(slope) * cosf(az - aspect));
    if (hs < 0.0f) hs = 0.0f;
    shade[y * nx + x] = (unsigned char)hs;
}

// 5x5 focal statistics of an nx x ny DEM: tpi = z - mean of the 24 neighbours, relief =
// max - min of the window; cells outside the raster take the nearest edge cell's value
__global__ void focal_tpi5(const float *dem, float *tpi, float *relief, int nx, int ny) {
    __shared__ float tile[FT + 2 * FR][FT + 2 * FR];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x0 = blockIdx.x * FT - FR;
    int y0 = blockIdx.y * FT - FR;
    for (int k = ty * FT + tx; k < (FT + 2 * FR) * (FT + 2 * FR); k += FT * FT) {
        int lx = k % (FT + 2 * FR);
        int ly = k / (FT + 2 * FR);
        int gx = min(max(x0 + lx, 0), nx - 1);
        int gy = min(max(y0 + ly, 0), ny - 1);
        tile[ly][lx] = dem[gy * nx + gx];
    }
    __syncthreads();
    int x = blockIdx.x * FT + tx;
    int y = blockIdx.y * FT + ty;
    if (x >= nx || y >= ny) return;
    float sum = 0.0f;
    float mn = FLT_MAX;
    float mx = -FLT_MAX;
    for (int dy = -FR; dy <= FR; dy++) {
        for (int dx = -FR; dx <= FR; dx++) {
            float v = tile[ty + FR + dy][tx + FR + dx];
            sum += v;
            mn = fminf(mn, v);
            mx = fmaxf(mx, v);
        }
    }
    float z = tile[ty + FR][tx + FR];
    float mean = (sum - z) / 24.0f;
    tpi[y * nx + x] = z - mean;
    relief[y * nx + x] = mx - mn;
}

// IDW (power 2) of npts stations (px, py, pv) onto an nx x ny grid of cells of size cell
// from (x0, y0): the cell centre's value sum(w v) / sum(w), w = 1 / d^2; a station closer
// than 1e-6 to the centre gives its own value
__global__ void idw_grid(const float *px, const float *py, const float *pv, int npts, float *out, int nx, int ny,
                         float x0, float y0, float cell) {
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix >= nx || iy >= ny) return;
    float x = x0 + (ix + 0.5f) * cell;
    float y = y0 + (iy + 0.5f) * cell;
    float wsum = 0.0f;
    float vsum = 0.0f;
    for (int k = 0; k < npts; k++) {
        float dx = px[k] - x;
        float dy = py[k] - y;
        float d2 = dx * dx + dy * dy;
        if (d2 < 1e-12f) {
            wsum = 1.0f;
            vsum = pv[k];
            break;
        }
        float w = 1.0f / d2;
        wsum += w;
        vsum += w * pv[k];
    }
    out[iy * nx + ix] = vsum / wsum;
}

// the R3 viewshed of an observer at (ox, oy), obs_h above the ground, over an nx x ny DEM:
// cell (x, y) is visible (1) when no sample along the line to it, at (ox + s dx / steps,
// oy + s dy / steps) for 0 < s < steps = max(|dx|, |dy|), has a slope from the eye above
// that of the cell's top (tgt_h above its ground); the 8 cells around the observer are
// visible
__global__ void viewshed_r3(const float *dem, unsigned char *vis, int nx, int ny, int ox, int oy, float obs_h,
                            float tgt_h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int dx = x - ox;
    int dy = y - oy;
    int steps = max(abs(dx), abs(dy));
    if (steps <= 1) {
        vis[y * nx + x] = 1;
        return;
    }
    float z0 = dem[oy * nx + ox] + obs_h;
    float dist = sqrtf((float)(dx * dx + dy * dy));
    float tslope = (dem[y * nx + x] + tgt_h - z0) / dist;
    unsigned char v = 1;
    for (int s = 1; s < steps; s++) {
        int cx = ox + s * dx / steps;
        int cy = oy + s * dy / steps;
        float d = dist * s / steps;
        float sl = (dem[cy * nx + cx] - z0) / d;
        if (sl > tslope) {
            v = 0;
            break;
        }
    }
    vis[y * nx + x] = v;
}

// the parcel (of npoly, in order) holding each of n points, or -1: parcel p's box bbox[p]
// = (xmin, ymin, xmax, ymax) tested first, then the crossing-number test over its
// vertices vx, vy[voff[p] .. voff[p + 1])
__global__ void pip_parcels(const float *ptx, const float *pty, const float4 *bbox, const int *voff,
                            const float *vx, const float *vy, int npoly, int *owner, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = ptx[i];
    float y = pty[i];
    int found = -1;
    for (int p = 0; p < npoly; p++) {
        float4 b = bbox[p];
        if (x < b.x || x > b.z || y < b.y || y > b.w) continue;
        int inside = 0;
        int s = voff[p];
        int e = voff[p + 1];
        for (int k = s, j = e - 1; k < e; j = k++) {
            if (((vy[k] > y) != (vy[j] > y)) && (x < (vx[j] - vx[k]) * (y - vy[k]) / (vy[j] - vy[k]) + vx[k]))
                inside = !inside;
        }
        if (inside) {
            found = p;
            break;
        }
    }
    owner[i] = found;
}

// n cells of a DEM (NODATA: no data) and a land-cover raster (classes 0 .. NLC - 1): the
// class raster cls = lc NBAND + band (255 where there is no data) and the histogram
// hist[lc NBAND + band] counted, a grid-stride loop
__global__ void reclass_crosstab(const float *dem, const unsigned char *lc, unsigned char *cls, unsigned int *hist,
                                 int n) {
    __shared__ unsigned int sh[NLC * NBAND];
    for (int k = threadIdx.x; k < NLC * NBAND; k += blockDim.x) sh[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float z = dem[i];
        if (z == NODATA) {
            cls[i] = 255;
            continue;
        }
        int band = 0;
        while (band < NBAND - 1 && z >= c_breaks[band]) band++;
        int c = lc[i];
        cls[i] = (unsigned char)(c * NBAND + band);
        atomicAdd(&sh[c * NBAND + band], 1u);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < NLC * NBAND; k += blockDim.x) {
        if (sh[k] > 0) atomicAdd(&hist[k], sh[k]);
    }
}

}
