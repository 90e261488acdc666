// probe-unseen125: a seismology / exploration-geophysics course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - wave2d_o4_smem: one leapfrog time step of the 2-D acoustic wave equation, 4th order in
//    space, a thread a grid point in 16 x 16 blocks: u_cur staged into an (16 + 4) x (16 +
//    4) shared tile with a 2-point halo (the halo columns by the first two lanes of a row,
//    the halo rows by the first two rows of threads), the 9-point cross Laplacian from the
//    tile, u_next = 2 u - u_prev + (v dt / dx)^2 lap, a rigid (zero) border two points
//    wide and a source sample added at one grid point;
//  - stalta_pick: recursive STA/LTA event picking on a DAS-style record (time-major:
//    sample t of channel c at t * nch + c), a thread a channel: the energy x^2 through two
//    exponential averages (1 / nsta and 1 / nlta), after nlta samples of warm-up the ratio
//    tested against a trigger threshold, the loop left at the first trigger; the pick's
//    sample (-1 when none) and the largest ratio seen stored;
//  - xcorr_pairs: ambient-noise cross-correlation of all station pairs, a block a pair
//    (the pair's stations from two index arrays), both stations' XC_L-sample windows staged
//    in shared memory while each thread sums their energies, the energies reduced by a
//    shared-memory tree, then a thread a lag (-XC_MAXLAG .. XC_MAXLAG - 1) summing a[t] *
//    b[t + lag] over the window, normalised by sqrt(Ea Eb);
//  - mag_hist: a catalogue's magnitude-frequency histogram (0.1-unit bins) by global
//    atomicAdd, with the count and the sum of (M - Mc) of the events at or above the
//    completeness magnitude Mc added to two global words (Aki's b-value estimate);
//  - hypo_grid: earthquake location by grid search, a thread a trial hypocentre of a
//    NX_H x NY_H x nz grid: the straight-ray P travel time to each of NSTA stations
//    (coordinates and picks in __constant__ memory) in a homogeneous half-space, the
//    origin time as the mean residual, then the sum of squared residuals about it (the
//    travel times computed again) stored;
//  - slant_stack: the linear Radon (tau-p) transform of a shot gather, a thread an output
//    sample (tau, p) (blockIdx.y the slowness): a loop over the gather's traces, each the
//    linearly interpolated sample of trace k at t = tau + p x_k, the times off the trace
//    skipped.

#define WB_X 16              // wave2d_o4_smem: the block (and tile) width
#define WB_Y 16              // wave2d_o4_smem: the block (and tile) height
#define W_R 2                // wave2d_o4_smem: the stencil's radius (4th order)
#define XC_L 512             // xcorr_pairs: the samples of a window
#define XC_MAXLAG 64         // xcorr_pairs: lags -XC_MAXLAG .. XC_MAXLAG - 1 (blockDim.x == 2 XC_MAXLAG)
#define MH_NBINS 100         // mag_hist: 0.1-unit bins from magnitude 0
#define NSTA 48              // hypo_grid: the stations
#define NX_H 128             // hypo_grid: trial points along x
#define NY_H 128             // hypo_grid: trial points along y

// hypo_grid's stations (set by the host): positions in km (z down, 0 at the surface) and
// the observed P arrival times in s
__constant__ float c_sta_x[NSTA];
__constant__ float c_sta_y[NSTA];
__constant__ float c_sta_z[NSTA];
__constant__ float c_tobs[NSTA];

extern "C" {

// one step of u_tt = v^2 (u_xx + u_yy) on an nx x ny grid (row-major, spacing dx), time
// step dt; src added to u_next at (sx, sy)
__global__ void wave2d_o4_smem(const float *u_prev, const float *u_cur, const float *vel, float *u_next,
                               float dt, float dx, int nx, int ny, int sx, int sy, float src) {
    __shared__ float tile[WB_Y + 2 * W_R][WB_X + 2 * W_R];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int ix = blockIdx.x * WB_X + tx;
    int iy = blockIdx.y * WB_Y + ty;
    int lx = tx + W_R;
    int ly = ty + W_R;

    // the centre
    if (ix < nx && iy < ny)
        tile[ly][lx] = u_cur[iy * nx + ix];
    else
        tile[ly][lx] = 0.0f;
    // the halo columns left and right
    if (tx < W_R) {
        if (ix - W_R >= 0 && iy < ny)
            tile[ly][tx] = u_cur[iy * nx + ix - W_R];
        else
            tile[ly][tx] = 0.0f;
        if (ix + WB_X < nx && iy < ny)
            tile[ly][lx + WB_X] = u_cur[iy * nx + ix + WB_X];
        else
            tile[ly][lx + WB_X] = 0.0f;
    }
    // the halo rows above and below
    if (ty < W_R) {
        if (iy - W_R >= 0 && ix < nx)
            tile[ty][lx] = u_cur[(iy - W_R) * nx + ix];
        else
            tile[ty][lx] = 0.0f;
        if (iy + WB_Y < ny && ix < nx)
            tile[ly + WB_Y][lx] = u_cur[(iy + WB_Y) * nx + ix];
        else
            tile[ly + WB_Y][lx] = 0.0f;
    }
    __syncthreads();

    if (ix >= nx || iy >= ny) return;
    int i = iy * nx + ix;
    if (ix < W_R || iy < W_R || ix >= nx - W_R || iy >= ny - W_R) {
        u_next[i] = 0.0f;            // rigid border
        return;
    }
    const float c0 = -2.5f;
    const float c1 = 4.0f / 3.0f;
    const float c2 = -1.0f / 12.0f;
    float u = tile[ly][lx];
    float lap = 2.0f * c0 * u
              + c1 * (tile[ly][lx - 1] + tile[ly][lx + 1] + tile[ly - 1][lx] + tile[ly + 1][lx])
              + c2 * (tile[ly][lx - 2] + tile[ly][lx + 2] + tile[ly - 2][lx] + tile[ly + 2][lx]);
    float c = vel[i] * dt / dx;
    float un = 2.0f * u - u_prev[i] + c * c * lap;
    if (ix == sx && iy == sy) un += src;
    u_next[i] = un;
}

// recursive STA/LTA of nch channels of ns samples (data[t * nch + c]): the first sample t
// >= nlta whose ratio passes thr_on, or -1; the largest ratio seen up to there
__global__ void stalta_pick(const float *data, int *pick, float *rmax, int nch, int ns, int nsta, int nlta,
                            float thr_on) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= nch) return;
    float csta = 1.0f / nsta;
    float clta = 1.0f / nlta;
    float sta = 0.0f;
    float lta = 0.0f;
    float best = 0.0f;
    int p = -1;
    for (int t = 0; t < ns; t++) {
        float x = data[t * nch + c];
        float e = x * x;
        sta = csta * e + (1.0f - csta) * sta;
        lta = clta * e + (1.0f - clta) * lta;
        if (t >= nlta) {
            float r = sta / lta;
            if (r > best) best = r;
            if (r > thr_on) {
                p = t;
                break;
            }
        }
    }
    pick[c] = p;
    rmax[c] = best;
}

// the normalised cross-correlations of station pairs (pa[k], pb[k]) of nsta stations'
// XC_L-sample windows (tr row-major nsta x XC_L): cc[k * 2 XC_MAXLAG + j] at lag j -
// XC_MAXLAG, the sum over t of a[t] b[t + lag] (t + lag inside the window)
__global__ void xcorr_pairs(const float *tr, const int *pa, const int *pb, float *cc, int npairs) {
    __shared__ float sa[XC_L];
    __shared__ float sb[XC_L];
    __shared__ float ea_s[2 * XC_MAXLAG];
    __shared__ float eb_s[2 * XC_MAXLAG];
    int k = blockIdx.x;
    int tid = threadIdx.x;
    if (k >= npairs) return;
    int a = pa[k];
    int b = pb[k];
    float ea = 0.0f;
    float eb = 0.0f;
    for (int t = tid; t < XC_L; t += blockDim.x) {
        float va = tr[a * XC_L + t];
        float vb = tr[b * XC_L + t];
        sa[t] = va;
        sb[t] = vb;
        ea += va * va;
        eb += vb * vb;
    }
    ea_s[tid] = ea;
    eb_s[tid] = eb;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            ea_s[tid] += ea_s[tid + s];
            eb_s[tid] += eb_s[tid + s];
        }
        __syncthreads();
    }
    float norm = sqrtf(ea_s[0] * eb_s[0]);

    int lag = tid - XC_MAXLAG;
    float sum = 0.0f;
    for (int t = 0; t < XC_L; t++) {
        int j = t + lag;
        if (j >= 0 && j < XC_L) sum += sa[t] * sb[j];
    }
    cc[k * 2 * XC_MAXLAG + tid] = norm > 0.0f ? sum / norm : 0.0f;
}

// the magnitude-frequency histogram of n events (bin floor(10 M), MH_NBINS bins from 0;
// magnitudes outside them not binned), and the count and sum of M - mc of those with M >= mc
__global__ void mag_hist(const float *mag, int *hist, int *n_mc, float *sum_dm, float mc, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float m = mag[i];
    int b = (int)(m * 10.0f);
    if (b >= 0 && b < MH_NBINS) atomicAdd(&hist[b], 1);
    if (m >= mc) {
        atomicAdd(n_mc, 1);
        atomicAdd(sum_dm, m - mc);
    }
}

// the misfit of the trial hypocentres of an NX_H x NY_H x nz grid (x0 + ix dh, y0 + iy dh,
// z0 + iz dh; point i = (iz NY_H + iy) NX_H + ix) in a half-space of P velocity vp
__global__ void hypo_grid(float *misfit, float x0, float y0, float z0, float dh, float vp, int nz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= NX_H * NY_H * nz) return;
    int ix = i % NX_H;
    int iy = (i / NX_H) % NY_H;
    int iz = i / (NX_H * NY_H);
    float x = x0 + ix * dh;
    float y = y0 + iy * dh;
    float z = z0 + iz * dh;

    // the origin time: the mean of the observed minus the computed times
    float t0 = 0.0f;
    for (int k = 0; k < NSTA; k++) {
        float ddx = x - c_sta_x[k];
        float ddy = y - c_sta_y[k];
        float ddz = z - c_sta_z[k];
        float tt = sqrtf(ddx * ddx + ddy * ddy + ddz * ddz) / vp;
        t0 += c_tobs[k] - tt;
    }
    t0 /= NSTA;

    float s = 0.0f;
    for (int k = 0; k < NSTA; k++) {
        float ddx = x - c_sta_x[k];
        float ddy = y - c_sta_y[k];
        float ddz = z - c_sta_z[k];
        float tt = sqrtf(ddx * ddx + ddy * ddy + ddz * ddz) / vp;
        float r = c_tobs[k] - t0 - tt;
        s += r * r;
    }
    misfit[i] = s;
}

// the tau-p transform of ntr traces of nt samples (d row-major ntr x nt, sampling dt,
// offsets xoff): m[ip * nt + it] = sum over k of d_k(it dt + (p0 + ip dp) xoff[k]),
// linearly interpolated, the times outside [0, (nt - 1) dt) left out
__global__ void slant_stack(const float *d, const float *xoff, float *m, int ntr, int nt, float dt, float p0,
                            float dp) {
    int it = blockIdx.x * blockDim.x + threadIdx.x;
    int ip = blockIdx.y;
    if (it >= nt) return;
    float p = p0 + ip * dp;
    float tau = it * dt;
    float sum = 0.0f;
    for (int k = 0; k < ntr; k++) {
        float t = (tau + p * xoff[k]) / dt;
        int i0 = (int)floorf(t);
        if (i0 >= 0 && i0 < nt - 1) {
            float w = t - i0;
            sum += (1.0f - w) * d[k * nt + i0] + w * d[k * nt + i0 + 1];
        }
    }
    m[ip * nt + it] = sum;
}

}
