// probe-unseen183: a geostatistics / spatial statistics course's CUDA assignments, as a student
// who knows CUDA basics hands them in:
//  - variogram_pairs: the experimental semivariogram of scattered samples, every pair (i < j)
//    once: a 2-D grid of (i tile, j tile) blocks, those under the diagonal leaving at once, the
//    j tile's samples staged in shared memory, each pair within the largest lag binned by its
//    distance into a shared-memory histogram (half squared differences by a float atomicAdd,
//    pair counts by an unsigned one), the block's bins added to the global sums (double) and
//    counts by atomicAdd;
//  - ok_krige: ordinary kriging of a raster from scattered samples (Sample structs) with an
//    exponential covariance and a nugget, a thread a target cell: the 8 nearest samples among
//    the 3 x 3 buckets of a uniform bucket grid (the samples sorted by bucket, CSR offsets)
//    kept by insertion in per-thread arrays, the (k + 1) x (k + 1) kriging system with its
//    Lagrange row built and solved in double by Gaussian elimination with partial pivoting,
//    the estimate and the kriging variance stored (nodata where no sample is near);
//  - nscore_backtr: the back-transform of a Gaussian simulation's realisation to data units,
//    a thread a cell: a binary search of the normal-score transformation table (in
//    __constant__ memory) and a linear interpolation, the tails extrapolated linearly to the
//    data's bounds;
//  - local_moran: local Moran's I (LISA) of a raster with nodata cells, queen contiguity with
//    row-standardised weights, a thread a cell (2-D blocks): the cluster quadrant (HH, LL, LH,
//    HL) stored too, and the global statistic's numerator summed by warp shuffles, the warps'
//    sums in shared memory and one float atomicAdd a block;
//  - focal_var9: the 9 x 9 moving-window variance of a DEM (a roughness map) with voids, a
//    16 x 16 block's tile staged with its halo in shared memory, the window's deviations from
//    the centre cell summed (shifted data, no cancellation), voids and cells outside the DEM
//    skipped;
//  - spectral_sim: an unconditional Gaussian simulation by the spectral (random Fourier
//    components) method, a thread a cell: the sum of the cosines of many plane waves (Wave
//    structs: a wavevector drawn from the covariance's spectral density and a phase) staged
//    a chunk at a time in shared memory.

#define VG_TILE 128           // variogram_pairs: blockDim.x, samples a tile
#define VG_BINS 20            // lag classes
#define KR_NB 8               // ok_krige: neighbours at most
#define KR_DIM (KR_NB + 1)    // the kriging system's largest order (a Lagrange row)
#define KR_NODATA -9999.0f    // where no sample is in the 3 x 3 buckets
#define NS_TAB 1024           // nscore_backtr: the transformation table's entries
#define MI_WARPS 8            // local_moran: warps a block (blockDim.x * blockDim.y == 256)
#define FV_R 4                // focal_var9: the window's radius (9 x 9)
#define FV_TILE 16            // blockDim.x == blockDim.y
#define FV_NODATA -9999.0f    // DEM voids
#define SS_CHUNK 256          // spectral_sim: waves staged at a time (== blockDim.x * blockDim.y)

// nscore_backtr's table (set by the host): normal scores c_ns_y (increasing) and the data
// quantiles c_ns_z they stand for
__constant__ float c_ns_y[NS_TAB];
__constant__ float c_ns_z[NS_TAB];

struct Sample {
    float x, y, z;            // easting, northing (km), value
};

struct Wave {
    float kx, ky, phase;      // wavevector (radians a km), phase
};

extern "C" {

// n samples at (x, y) with values z: for each lag class b (distances [b lag, (b + 1) lag)),
// gsum[b] += sum of (z_i - z_j)^2 / 2 and gcnt[b] += pairs (blockDim.x VG_TILE; grid
// (tiles, tiles), tiles = ceil(n / VG_TILE)); gamma(b) = gsum[b] / gcnt[b]
__global__ void variogram_pairs(const float *x, const float *y, const float *z, double *gsum, unsigned int *gcnt,
                                float lag, int n) {
    __shared__ float sx[VG_TILE];
    __shared__ float sy[VG_TILE];
    __shared__ float sz[VG_TILE];
    __shared__ float s_g[VG_BINS];
    __shared__ unsigned int s_n[VG_BINS];
    if (blockIdx.y < blockIdx.x) return;        // each pair of tiles once
    int t = threadIdx.x;
    if (t < VG_BINS) {
        s_g[t] = 0.0f;
        s_n[t] = 0;
    }
    int j0 = blockIdx.y * VG_TILE;
    if (j0 + t < n) {
        sx[t] = x[j0 + t];
        sy[t] = y[j0 + t];
        sz[t] = z[j0 + t];
    }
    __syncthreads();
    int i = blockIdx.x * VG_TILE + t;
    if (i < n) {
        float xi = x[i];
        float yi = y[i];
        float zi = z[i];
        int m = min(VG_TILE, n - j0);
        for (int k = 0; k < m; k++) {
            if (j0 + k <= i) continue;          // the diagonal tile: j > i only
            float dx = sx[k] - xi;
            float dy = sy[k] - yi;
            float d = sqrtf(dx * dx + dy * dy);
            int b = (int)(d / lag);
            if (b < VG_BINS) {
                float dz = sz[k] - zi;
                atomicAdd(&s_g[b], 0.5f * dz * dz);
                atomicAdd(&s_n[b], 1u);
            }
        }
    }
    __syncthreads();
    if (t < VG_BINS && s_n[t] > 0) {
        atomicAdd(&gsum[t], (double)s_g[t]);
        atomicAdd(&gcnt[t], s_n[t]);
    }
}

// ordinary kriging of the nx x ny cells (side cell km, row-major; centres at ((ix + 0.5) cell,
// (iy + 0.5) cell)) from the samples smp sorted by bucket (bw x bh buckets of side bsize km,
// bucket b's samples at bstart[b] .. bstart[b + 1]), covariance C(0) = nugget + sill, C(h) =
// sill exp(-3 h / range): the estimate est and the kriging variance kvar of each cell from its
// KR_NB nearest samples in the 3 x 3 buckets about its own (fewer if fewer are there)
__global__ void ok_krige(const Sample *smp, const int *bstart, int bw, int bh, float bsize, float cell, int nx,
                         int ny, float nugget, float sill, float range, float *est, float *kvar) {
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix >= nx || iy >= ny) return;
    float px = ((float)ix + 0.5f) * cell;
    float py = ((float)iy + 0.5f) * cell;
    int bx = min((int)(px / bsize), bw - 1);
    int by = min((int)(py / bsize), bh - 1);
    // the nearest samples so far, nearest first
    float nd[KR_NB];
    int ni[KR_NB];
    int k = 0;
    for (int cy = max(by - 1, 0); cy <= min(by + 1, bh - 1); cy++) {
        for (int cx = max(bx - 1, 0); cx <= min(bx + 1, bw - 1); cx++) {
            int b = cy * bw + cx;
            for (int p = bstart[b]; p < bstart[b + 1]; p++) {
                float dx = smp[p].x - px;
                float dy = smp[p].y - py;
                float d2 = dx * dx + dy * dy;
                if (k == KR_NB && d2 >= nd[KR_NB - 1]) continue;
                int q = k < KR_NB ? k : KR_NB - 1;
                if (k < KR_NB) k++;
                while (q > 0 && nd[q - 1] > d2) {
                    nd[q] = nd[q - 1];
                    ni[q] = ni[q - 1];
                    q--;
                }
                nd[q] = d2;
                ni[q] = p;
            }
        }
    }
    int o = iy * nx + ix;
    if (k == 0) {
        est[o] = KR_NODATA;
        kvar[o] = KR_NODATA;
        return;
    }
    int m = k + 1;                              // the system's order; column m the right-hand side
    double c0 = (double)nugget + (double)sill;
    double alpha = 3.0 / (double)range;
    double a[KR_DIM][KR_DIM + 1];
    double rhs[KR_NB];
    for (int r = 0; r < k; r++) {
        double xr = smp[ni[r]].x;
        double yr = smp[ni[r]].y;
        for (int c = 0; c < k; c++) {
            double dx = xr - smp[ni[c]].x;
            double dy = yr - smp[ni[c]].y;
            double h = sqrt(dx * dx + dy * dy);
            a[r][c] = h == 0.0 ? c0 : sill * exp(-alpha * h);
        }
        a[r][k] = 1.0;
        a[k][r] = 1.0;
        double dx = xr - px;
        double dy = yr - py;
        double h = sqrt(dx * dx + dy * dy);
        rhs[r] = h == 0.0 ? c0 : sill * exp(-alpha * h);
        a[r][m] = rhs[r];
    }
    a[k][k] = 0.0;
    a[k][m] = 1.0;
    for (int c = 0; c < m; c++) {
        int piv = c;
        double best = fabs(a[c][c]);
        for (int r = c + 1; r < m; r++) {
            if (fabs(a[r][c]) > best) {
                best = fabs(a[r][c]);
                piv = r;
            }
        }
        if (piv != c) {
            for (int q = c; q <= m; q++) {
                double t = a[c][q];
                a[c][q] = a[piv][q];
                a[piv][q] = t;
            }
        }
        for (int r = c + 1; r < m; r++) {
            double f = a[r][c] / a[c][c];
            for (int q = c; q <= m; q++) a[r][q] -= f * a[c][q];
        }
    }
    double lam[KR_DIM];
    for (int r = m - 1; r >= 0; r--) {
        double s = a[r][m];
        for (int q = r + 1; q < m; q++) s -= a[r][q] * lam[q];
        lam[r] = s / a[r][r];
    }
    double e = 0.0;
    double v = c0 - lam[k];                     // minus the Lagrange multiplier
    for (int r = 0; r < k; r++) {
        e += lam[r] * smp[ni[r]].z;
        v -= lam[r] * rhs[r];
    }
    est[o] = (float)e;
    kvar[o] = (float)v;
}

// n Gaussian values yv back-transformed to data units zv through the table (c_ns_y, c_ns_z):
// linear interpolation inside it, linear tails from (ymin, zmin) and to (ymax, zmax), clamped
// beyond them
__global__ void nscore_backtr(const float *yv, float *zv, float ymin, float zmin, float ymax, float zmax, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float y = yv[i];
    float z;
    if (y <= c_ns_y[0]) {
        if (y <= ymin) z = zmin;
        else z = zmin + (c_ns_z[0] - zmin) * (y - ymin) / (c_ns_y[0] - ymin);
    } else if (y >= c_ns_y[NS_TAB - 1]) {
        if (y >= ymax) z = zmax;
        else z = c_ns_z[NS_TAB - 1] + (zmax - c_ns_z[NS_TAB - 1]) * (y - c_ns_y[NS_TAB - 1]) /
                                          (ymax - c_ns_y[NS_TAB - 1]);
    } else {
        // c_ns_y[lo] <= y < c_ns_y[hi]
        int lo = 0;
        int hi = NS_TAB - 1;
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (c_ns_y[mid] <= y) lo = mid;
            else hi = mid;
        }
        float t = (y - c_ns_y[lo]) / (c_ns_y[hi] - c_ns_y[lo]);
        z = c_ns_z[lo] + t * (c_ns_z[hi] - c_ns_z[lo]);
    }
    zv[i] = z;
}

// local Moran's I of the nx x ny raster v (row-major; NaN nodata) about its mean, inv_m2 the
// inverse of the mean squared deviation: li[i] = z_i * (mean of the valid queen neighbours'
// z) * inv_m2 (0 for nodata and isolated cells), quad[i] 1 HH, 2 LL, 3 LH, 4 HL (0 none);
// *gnum += the sum of z_i times its neighbours' mean (blockDim 32 x MI_WARPS)
__global__ void local_moran(const float *v, float *li, unsigned char *quad, float *gnum, float mean, float inv_m2,
                            int nx, int ny) {
    __shared__ float wsum[MI_WARPS];
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    float num = 0.0f;
    if (x < nx && y < ny) {
        int i = y * nx + x;
        float c = v[i];
        float I = 0.0f;
        unsigned char q = 0;
        if (c == c) {                           // not nodata
            float s = 0.0f;
            int k = 0;
            for (int dy = -1; dy <= 1; dy++) {
                for (int dx = -1; dx <= 1; dx++) {
                    if (dx == 0 && dy == 0) continue;
                    int xx = x + dx;
                    int yy = y + dy;
                    if (xx < 0 || xx >= nx || yy < 0 || yy >= ny) continue;
                    float w = v[yy * nx + xx];
                    if (w == w) {
                        s += w - mean;
                        k++;
                    }
                }
            }
            if (k > 0) {
                float zc = c - mean;
                float lag = s / k;
                num = zc * lag;
                I = zc * lag * inv_m2;
                if (zc >= 0.0f) q = lag >= 0.0f ? 1 : 4;
                else q = lag >= 0.0f ? 3 : 2;
            }
        }
        li[i] = I;
        quad[i] = q;
    }
    for (int o = 16; o > 0; o >>= 1) num += __shfl_down_sync(0xffffffff, num, o);
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    int lane = tid & 31;
    int warp = tid >> 5;
    if (lane == 0) wsum[warp] = num;
    __syncthreads();
    if (warp == 0) {
        num = lane < MI_WARPS ? wsum[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) num += __shfl_down_sync(0xffffffff, num, o);
        if (lane == 0) atomicAdd(gnum, num);
    }
}

// the variance of the 9 x 9 window about each cell of the nx x ny DEM (row-major; voids
// FV_NODATA), over the window's cells inside the DEM and not void (FV_NODATA where the centre
// is a void); blockDim FV_TILE x FV_TILE
__global__ void focal_var9(const float *dem, float *var, int nx, int ny) {
    __shared__ float tile[FV_TILE + 2 * FV_R][FV_TILE + 2 * FV_R];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x0 = blockIdx.x * FV_TILE - FV_R;
    int y0 = blockIdx.y * FV_TILE - FV_R;
    for (int yy = ty; yy < FV_TILE + 2 * FV_R; yy += FV_TILE) {
        for (int xx = tx; xx < FV_TILE + 2 * FV_R; xx += FV_TILE) {
            int gx = x0 + xx;
            int gy = y0 + yy;
            float h = FV_NODATA;
            if (gx >= 0 && gx < nx && gy >= 0 && gy < ny) h = dem[gy * nx + gx];
            tile[yy][xx] = h;
        }
    }
    __syncthreads();
    int x = blockIdx.x * FV_TILE + tx;
    int y = blockIdx.y * FV_TILE + ty;
    if (x >= nx || y >= ny) return;
    float c = tile[ty + FV_R][tx + FV_R];
    float out = FV_NODATA;
    if (c != FV_NODATA) {
        float s = 0.0f;
        float s2 = 0.0f;
        int k = 0;
        for (int dy = 0; dy <= 2 * FV_R; dy++) {
            for (int dx = 0; dx <= 2 * FV_R; dx++) {
                float h = tile[ty + dy][tx + dx];
                if (h != FV_NODATA) {
                    float d = h - c;
                    s += d;
                    s2 += d * d;
                    k++;
                }
            }
        }
        out = fmaxf((s2 - s * s / k) / k, 0.0f);
    }
    var[y * nx + x] = out;
}

// an unconditional Gaussian simulation on the nx x ny cells (side cell km, row-major; centres
// at ((ix + 0.5) cell, (iy + 0.5) cell)): out = mean + amp * sum over the nw waves of
// cos(kx x + ky y + phase); blockDim 16 x 16 (SS_CHUNK threads)
__global__ void spectral_sim(const Wave *w, float *out, int nx, int ny, float cell, float mean, float amp, int nw) {
    __shared__ Wave sw[SS_CHUNK];
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    float px = ((float)ix + 0.5f) * cell;
    float py = ((float)iy + 0.5f) * cell;
    float s = 0.0f;
    for (int c0 = 0; c0 < nw; c0 += SS_CHUNK) {
        if (c0 + tid < nw) sw[tid] = w[c0 + tid];
        __syncthreads();
        int m = min(SS_CHUNK, nw - c0);
        for (int l = 0; l < m; l++) s += cosf(sw[l].kx * px + sw[l].ky * py + sw[l].phase);
        __syncthreads();
    }
    if (ix < nx && iy < ny) out[iy * nx + ix] = mean + amp * s;
}

}
