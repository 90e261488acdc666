// probe-unseen228: a geophysical potential-fields course's CUDA assignments, as a student who
// knows CUDA basics hands them in:
//  - prism_gz: the vertical gravity of a salt dome built of stacked rectangular prisms
//    (Nagy et al. 2000's closed form, evaluated at the 8 corners of each prism) on a survey
//    grid of stations draped on the ground, a thread a station; the prisms (a struct each:
//    bounds and density contrast) in a __constant__ table that every thread reads in the
//    same order; sqrtf, two logf, a divide and an atanf a corner, with the student's guards
//    against log(0) and a zero z;
//  - terrain_corr: the near-zone terrain correction of a gravity grid from an SRTM-like
//    16-bit DEM (metres), a block a 16 x 16 tile of stations: the tile with an 8-cell halo
//    read into shared memory (clamped at the DEM's edge), __syncthreads, then each station
//    sums the vertical line-element approximation G rho A (1/r - 1/sqrt(r^2 + dh^2)) over
//    the cells of a disc of 8 cells around it (the 17 x 17 square's corners skipped by a test
//    that is the same for every thread);
//  - rtp_upcont: reduction to the pole and upward continuation of an aeromagnetic grid's
//    2-D spectrum (a complex float2 array, FFT order), in place, a grid-stride loop: the
//    wavenumbers from the index by bit tricks (n a power of two), Baranov's RTP operator
//    from the field's and the magnetisation's directions in __constant__ memory, its
//    denominator clamped below (the low-latitude fix), exp(-|k| dz), the mean removed;
//  - euler_windows: Euler deconvolution of a gridded magnetic anomaly, a warp a moving
//    window of 8 x 8 points: each lane accumulates the normal equations of
//    x0 Tx + y0 Ty + z0 Tz + N B = x Tx + y Ty + z Tz + N T in double (local arrays),
//    a window touching a gap in the grid (dummy values) dropped by __any_sync, the 14 sums
//    reduced by __shfl_down_sync, lane 0 solving the 4 x 4 system by Gaussian elimination
//    with partial pivoting and appending an accepted solution (a struct) at a slot from a
//    global atomicAdd;
//  - grid_samples: gridding of an airborne magnetic survey's samples (an array of structs),
//    a grid-stride loop a sample: samples with QC flags counted by reason into a shared
//    histogram (shared int atomics, __ffs over the flag bits) and dropped, the diurnal
//    variation interpolated from base-station readings in a __constant__ table and the
//    regional field (a plane) removed, then the residual spread over the 5 x 5 nearest grid
//    nodes with Gaussian weights by float atomicAdds (contended: neighbouring samples of a
//    line share nodes) and the nearest node's hit count by an int atomicAdd;
//  - inv_grad_step: one projected-gradient step of a gravity inversion with a stored
//    sensitivity matrix, a thread a model cell: J^T r over the data in tiles of the
//    weighted residual staged in shared memory (coalesced rows of J), the smallness term
//    with Li and Oldenburg's depth weighting (layer depths in __constant__ memory, powf),
//    the step clamped to the density bounds, the squared gradient summed by a shared float
//    atomicAdd and one global atomicAdd a block.

#define G_NEWTON 6.674e-11f     // m^3 kg^-1 s^-2
#define SI2MGAL 1.0e5f          // m/s^2 to mGal
#define MAX_PRISMS 32           // prism_gz: the __constant__ table's size

#define TC_T 16                 // terrain_corr: the tile (and block) side
#define TC_R 8                  // the correction's radius (cells)
#define TC_W (TC_T + 2 * TC_R)  // the shared tile's side with its halo

#define EU_W 8                  // euler_windows: the window's side (points)
#define EU_S 2                  // the windows' step (points)
#define EU_DUMMY -1.0e32f       // a grid's dummy value (no data)

#define GR_NBASE 8192           // grid_samples: base-station readings in the table
#define GR_BASE_DT 30.0f        // seconds between readings
#define GR_RAD 2                // the nodes a sample reaches on each side
#define GR_NQC 8                // QC flag bits

#define IV_TILE 256             // inv_grad_step: the residuals staged at a time (= the block)
#define IV_NZMAX 64             // the __constant__ layer table's size

#define FULL_MASK 0xffffffffu

struct Prism {
    float x1, x2, y1, y2, z1, z2;   // bounds (m; z down, z1 < z2)
    float drho;                     // density contrast (kg/m^3)
};

struct EulerSol {
    float x0, y0, z0;               // the source's position (m; z0 depth below the grid)
    float base;                     // the background field B (nT)
    int window;                     // the window's index
    int npts;                       // the window's points
};

struct Sample {
    float x, y;                     // position (m) in the grid's frame
    float tmi;                      // raw total magnetic intensity (nT)
    float alt;                      // radar altimeter clearance (m)
    int t_ds;                       // time since the survey clock's start (deciseconds)
    unsigned char kind;             // 0 traverse line, 1 tie line
    unsigned char qc;               // QC flag bits (0: good)
    short line;                     // line number
};

// prism_gz: the model (set by the host)
__constant__ Prism c_prisms[MAX_PRISMS];

// rtp_upcont: unit vectors (x east, y north, z down) of the geomagnetic field and of the
// magnetisation (set by the host)
__constant__ float c_fdir[3];
__constant__ float c_mdir[3];

// grid_samples: base-station readings (nT) every GR_BASE_DT s and the regional field
// (nT at the origin, nT/m along x and y) (set by the host)
__constant__ float c_base[GR_NBASE];
__constant__ float c_regional[3];

// inv_grad_step: the model layers' centre depths (m) (set by the host)
__constant__ float c_zlayer[IV_NZMAX];

extern "C" {

// ---------------------------------------------------------------- prism_gz

// stations on an nx x ny grid at (x0 + i dx, y0 + j dx) and heights h (m above the datum,
// z = -h); gz (mGal, positive down) of the first nprism prisms of c_prisms
__global__ void prism_gz(const float *h, int nx, int ny, float x0, float y0, float dx, int nprism, float *gz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    int s = j * nx + i;
    float xp = x0 + i * dx, yp = y0 + j * dx, zp = -h[s];
    float sum = 0.0f;
    for (int p = 0; p < nprism; p++) {
        Prism q = c_prisms[p];
        float xs[2] = {q.x1 - xp, q.x2 - xp};
        float ys[2] = {q.y1 - yp, q.y2 - yp};
        float zs[2] = {q.z1 - zp, q.z2 - zp};
        float t = 0.0f;
        for (int a = 0; a < 2; a++) {
            for (int b = 0; b < 2; b++) {
                for (int c = 0; c < 2; c++) {
                    float x = xs[a], y = ys[b], z = zs[c];
                    float r = sqrtf(x * x + y * y + z * z);
                    float f = 0.0f;
                    if (y + r > 0.0f) f += x * logf(y + r);
                    if (x + r > 0.0f) f += y * logf(x + r);
                    if (z != 0.0f) f -= z * atanf(x * y / (z * r));
                    if ((a + b + c) % 2 == 0) t += f;       // the corner's sign (-1)^(a + b + c)
                    else t -= f;
                }
            }
        }
        sum += q.drho * t;
    }
    gz[s] = G_NEWTON * SI2MGAL * sum;
}

// ---------------------------------------------------------------- terrain_corr

// an nx x ny DEM (metres, 16-bit) of cell x cell squares, a station at each node on the
// ground; tc (mGal) the correction for the terrain within TC_R cells, density rho (kg/m^3)
__global__ void terrain_corr(const short *dem, int nx, int ny, float cell, float rho, float *tc) {
    __shared__ float s_h[TC_W][TC_W];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.x * TC_T + tx, j = blockIdx.y * TC_T + ty;
    for (int k = ty * TC_T + tx; k < TC_W * TC_W; k += TC_T * TC_T) {
        int a = k % TC_W, b = k / TC_W;
        int gi = blockIdx.x * TC_T + a - TC_R, gj = blockIdx.y * TC_T + b - TC_R;
        gi = min(max(gi, 0), nx - 1);
        gj = min(max(gj, 0), ny - 1);
        s_h[b][a] = (float)dem[gj * nx + gi];
    }
    __syncthreads();
    if (i >= nx || j >= ny) return;
    float h0 = s_h[ty + TC_R][tx + TC_R];
    float sum = 0.0f;
    for (int dy = -TC_R; dy <= TC_R; dy++) {
        for (int dx = -TC_R; dx <= TC_R; dx++) {
            int d2 = dx * dx + dy * dy;
            if (d2 == 0 || d2 > TC_R * TC_R) continue;
            float r = cell * sqrtf((float)d2);
            float dh = s_h[ty + TC_R + dy][tx + TC_R + dx] - h0;
            sum += 1.0f / r - 1.0f / sqrtf(r * r + dh * dh);
        }
    }
    tc[j * nx + i] = G_NEWTON * SI2MGAL * rho * cell * cell * sum;
}

// ---------------------------------------------------------------- rtp_upcont

// spec: the n x n spectrum (n = 1 << logn, row-major, FFT order: index k of a row is the
// wavenumber k, or k - n past n / 2), dk the wavenumber step (rad/m); multiplied in place
// by the RTP operator (its denominator's squared modulus at least eps) and exp(-|k| dz)
__global__ void rtp_upcont(float2 *spec, int logn, float dk, float dz, float eps) {
    int n = 1 << logn;
    int half = n >> 1;
    int total = n * n;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        int col = i & (n - 1);
        int row = i >> logn;
        int kxi = col - ((col & half) << 1);       // past the Nyquist index: negative
        int kyi = row - ((row & half) << 1);
        if (kxi == 0 && kyi == 0) {
            spec[i] = make_float2(0.0f, 0.0f);     // the mean
            continue;
        }
        float kx = kxi * dk, ky = kyi * dk;
        float k = sqrtf(kx * kx + ky * ky);
        // theta = dir_z + i (dir_x kx + dir_y ky) / |k| for the field and the magnetisation
        float af = c_fdir[2], bf = (c_fdir[0] * kx + c_fdir[1] * ky) / k;
        float am = c_mdir[2], bm = (c_mdir[0] * kx + c_mdir[1] * ky) / k;
        float dr = af * am - bf * bm;
        float di = af * bm + bf * am;
        float d2 = fmaxf(dr * dr + di * di, eps);
        float up = expf(-k * dz);
        float fr = dr / d2 * up, fi = -di / d2 * up;   // up / (dr + i di)
        float2 v = spec[i];
        spec[i] = make_float2(v.x * fr - v.y * fi, v.x * fi + v.y * fr);
    }
}

// ---------------------------------------------------------------- euler_windows

// T, Tx, Ty, Tz: an nx x ny grid (dx m apart, on z = 0) of the anomaly (nT, EU_DUMMY where
// there is no data) and its derivatives (nT/m, z down); window w (nwx along x) covers
// points (wx EU_S .. + EU_W - 1, wy EU_S ..); an accepted solution (0 < z0 <= zmax and
// (x0, y0) within a window's side of the window's centre) goes to sol[atomicAdd(nsol, 1)]
__global__ void euler_windows(const float *T, const float *Tx, const float *Ty, const float *Tz, int nx, int ny,
                              float dx, float si, int nwx, int nwy, float zmax, EulerSol *sol, int *nsol) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (warp >= nwx * nwy) return;
    int i0 = (warp % nwx) * EU_S, j0 = (warp / nwx) * EU_S;
    double a[10], b[4];
    for (int k = 0; k < 10; k++) a[k] = 0.0;
    for (int k = 0; k < 4; k++) b[k] = 0.0;
    bool gap = false;
    for (int p = lane; p < EU_W * EU_W; p += 32) {
        int i = i0 + p % EU_W, j = j0 + p / EU_W;
        int c = j * nx + i;
        float t = T[c];
        if (t == EU_DUMMY) {
            gap = true;
            continue;
        }
        double row[4];
        row[0] = Tx[c];
        row[1] = Ty[c];
        row[2] = Tz[c];
        row[3] = si;
        double x = (double)i * dx, y = (double)j * dx;
        double rhs = x * row[0] + y * row[1] + si * (double)t;     // z = 0
        int k = 0;
        for (int r = 0; r < 4; r++) {
            for (int q = r; q < 4; q++) {
                a[k] += row[r] * row[q];
                k++;
            }
            b[r] += row[r] * rhs;
        }
    }
    if (__any_sync(FULL_MASK, gap)) return;
    for (int o = 16; o > 0; o /= 2) {
        for (int k = 0; k < 10; k++) a[k] += __shfl_down_sync(FULL_MASK, a[k], o);
        for (int k = 0; k < 4; k++) b[k] += __shfl_down_sync(FULL_MASK, b[k], o);
    }
    if (lane != 0) return;
    double M[4][5];
    int k = 0;
    for (int r = 0; r < 4; r++) {
        for (int q = r; q < 4; q++) {
            M[r][q] = a[k];
            M[q][r] = a[k];
            k++;
        }
        M[r][4] = b[r];
    }
    for (int col = 0; col < 4; col++) {
        int piv = col;
        for (int r = col + 1; r < 4; r++)
            if (fabs(M[r][col]) > fabs(M[piv][col])) piv = r;
        if (fabs(M[piv][col]) < 1.0e-30) return;           // singular: no solution
        if (piv != col) {
            for (int q = 0; q < 5; q++) {
                double tmp = M[col][q];
                M[col][q] = M[piv][q];
                M[piv][q] = tmp;
            }
        }
        for (int r = col + 1; r < 4; r++) {
            double f = M[r][col] / M[col][col];
            for (int q = col; q < 5; q++) M[r][q] -= f * M[col][q];
        }
    }
    double s[4];
    for (int r = 3; r >= 0; r--) {
        double v = M[r][4];
        for (int q = r + 1; q < 4; q++) v -= M[r][q] * s[q];
        s[r] = v / M[r][r];
    }
    double xc = (i0 + 0.5 * (EU_W - 1)) * dx, yc = (j0 + 0.5 * (EU_W - 1)) * dx;
    double side = EU_W * dx;
    if (s[2] <= 0.0 || s[2] > zmax || fabs(s[0] - xc) > side || fabs(s[1] - yc) > side) return;
    int slot = atomicAdd(nsol, 1);
    EulerSol e;
    e.x0 = (float)s[0];
    e.y0 = (float)s[1];
    e.z0 = (float)s[2];
    e.base = (float)s[3];
    e.window = warp;
    e.npts = EU_W * EU_W;
    sol[slot] = e;
}

// ---------------------------------------------------------------- grid_samples

// n samples; the good ones' residual field (tmi - the diurnal - the regional) spread over a
// gnx x gny grid of cell m nodes (node (i, j) at (i cell, j cell)): wsum += w, vsum += w v,
// w = exp(-d^2 / (2 sigma^2)), d in cells; count of the nearest node += 1; rejected[b] +=
// the samples with QC bit b
__global__ void grid_samples(const Sample *smp, int n, float base_ref, float cell, float sigma, int gnx, int gny,
                             float *wsum, float *vsum, int *count, int *rejected) {
    __shared__ int s_rej[GR_NQC];
    if (threadIdx.x < GR_NQC) s_rej[threadIdx.x] = 0;
    __syncthreads();
    float inv2s2 = 1.0f / (2.0f * sigma * sigma);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        Sample p = smp[i];
        if (p.qc != 0) {
            unsigned int q = p.qc;
            while (q != 0) {
                int bit = __ffs(q) - 1;
                atomicAdd(&s_rej[bit], 1);
                q &= q - 1;
            }
            continue;
        }
        float tb = p.t_ds * (0.1f / GR_BASE_DT);
        int kb = (int)tb;
        float fb = tb - kb;
        if (kb >= GR_NBASE - 1) {
            kb = GR_NBASE - 2;
            fb = 1.0f;
        }
        float diurnal = c_base[kb] + fb * (c_base[kb + 1] - c_base[kb]) - base_ref;
        float v = p.tmi - diurnal - (c_regional[0] + c_regional[1] * p.x + c_regional[2] * p.y);
        float gx = p.x / cell, gy = p.y / cell;
        int ci = (int)floorf(gx + 0.5f), cj = (int)floorf(gy + 0.5f);
        for (int dj = -GR_RAD; dj <= GR_RAD; dj++) {
            for (int di = -GR_RAD; di <= GR_RAD; di++) {
                int ii = ci + di, jj = cj + dj;
                if (ii < 0 || ii >= gnx || jj < 0 || jj >= gny) continue;
                float ex = gx - ii, ey = gy - jj;
                float w = expf(-(ex * ex + ey * ey) * inv2s2);
                atomicAdd(&wsum[jj * gnx + ii], w);
                atomicAdd(&vsum[jj * gnx + ii], w * v);
            }
        }
        if (ci >= 0 && ci < gnx && cj >= 0 && cj < gny) atomicAdd(&count[cj * gnx + ci], 1);
    }
    __syncthreads();
    if (threadIdx.x < GR_NQC && s_rej[threadIdx.x] > 0) atomicAdd(&rejected[threadIdx.x], s_rej[threadIdx.x]);
}

// ---------------------------------------------------------------- inv_grad_step

// J: nd x ncell (row d: datum d's sensitivity to each cell, mGal per g/cc), res: the
// weighted residuals (J m - d_obs) / sd^2; cells layer-major (nxy a layer); the gradient
// g = J^T res + beta w(z)^2 (m - mref), w(z) = (z + z0)^(-1) (Li and Oldenburg, beta = 2);
// m_new = clamp(m - step g, mmin, mmax); *gnorm2 += sum g^2
__global__ void inv_grad_step(const float *J, const float *res, int nd, int ncell, const float *m, const float *mref,
                              int nxy, float beta, float z0, float step, float mmin, float mmax, float *m_new,
                              float *gnorm2) {
    __shared__ float s_r[IV_TILE];
    __shared__ float s_g2;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) s_g2 = 0.0f;
    float g = 0.0f;
    for (int t0 = 0; t0 < nd; t0 += IV_TILE) {
        if (t0 + threadIdx.x < nd) s_r[threadIdx.x] = res[t0 + threadIdx.x];
        __syncthreads();
        int tn = min(IV_TILE, nd - t0);
        if (c < ncell) {
            for (int k = 0; k < tn; k++) g += J[(t0 + k) * ncell + c] * s_r[k];
        }
        __syncthreads();
    }
    if (c < ncell) {
        float wz = powf(c_zlayer[c / nxy] + z0, -1.0f);
        g += beta * wz * wz * (m[c] - mref[c]);
        float mn = m[c] - step * g;
        m_new[c] = fminf(fmaxf(mn, mmin), mmax);
        atomicAdd(&s_g2, g * g);
    }
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(gnorm2, s_g2);
}

}
