// probe-unseen181: an earthquake engineering / seismic hazard course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - newmark_spectrum: the elastic response spectrum of a suite of ground-motion records, a
//    thread a (record, oscillator period): a damped single-degree-of-freedom oscillator
//    driven by the record's acceleration, integrated by Newmark's average-acceleration method
//    in its incremental form (Chopra, Table 5.4.2) in double, the peak relative displacement
//    (Sd) and peak absolute acceleration (Sa) kept as it goes;
//  - psha_hazard: probabilistic seismic hazard curves on a map of sites, a thread a site: a
//    loop over the source model's ruptures (struct array: epicentre, magnitude, annual rate),
//    those within rmax through a BSSA14-style ground-motion model for PGA (magnitude hinge,
//    geometric spreading with a magnitude-dependent slope, anelastic term, the site's linear
//    Vs30 term; coefficients in __constant__), the rate of exceeding each of HZ_NLEV PGA
//    levels (in __constant__) added up through erfcf in a per-thread array;
//  - fragility_loss: scenario loss of a building portfolio, a thread a building (struct:
//    site, typology, region, replacement value): the ShakeMap PGA at its site gathered, the
//    probabilities of reaching each of 4 damage states from its typology's lognormal
//    fragility curves (medians and dispersion in __constant__, erff), the expected loss from
//    the damage ratios, stored and summed into its region's total by a float atomicAdd;
//  - arias_cav: intensity measures of each record of a suite, a block a record: Arias
//    intensity, cumulative absolute velocity, PGA and the samples above a threshold (uniform
//    duration), each thread a strided part of the record, then warp shuffles and the warps'
//    partials through shared memory;
//  - shakemap_idw: a ShakeMap-style map of ln PGA interpolated from station observations by
//    inverse squared distance weighting onto a fine grid, a thread a grid node: the stations
//    staged IDW_TILE at a time through shared memory (__syncthreads around each tile), a node
//    on a station taking the station's value;
//  - pga_exceed: exceedance counts over a stochastic event catalogue, a thread an event: the
//    PGA at each of EX_SITES sites (their coordinates and site terms in __constant__) from a
//    ground-motion model with the event's inter-event term and an intra-event term from an
//    integer hash of (event, site), each PGA level exceeded counted in a block's shared
//    counters by atomicAdd, the non-zero counters added to the global ones.

#define HZ_NLEV 12            // psha_hazard: PGA levels of the hazard curve
#define GM_E0 0               // psha_hazard: c_gm's coefficients (BSSA14-style, PGA, unspecified mechanism)
#define GM_E4 1
#define GM_E5 2
#define GM_E6 3
#define GM_MH 4
#define GM_C1 5
#define GM_C2 6
#define GM_C3 7
#define GM_MREF 8
#define GM_RREF 9
#define GM_H 10
#define GM_CLIN 11
#define GM_VC 12
#define GM_VREF 13
#define GM_SIGMA 14
#define GM_NC 15
#define FR_TYPES 8            // fragility_loss: building typologies
#define FR_DS 4               // damage states: slight, moderate, extensive, complete
#define IDW_TILE 256          // shakemap_idw: stations a tile (== blockDim.x)
#define EX_SITES 128          // pga_exceed: sites
#define EX_LEV 8              // PGA levels

struct Rupture {
    float x, y;               // epicentre (km)
    float mag;                // moment magnitude
    float rate;               // annual rate of occurrence
};

struct Building {
    int site;                 // the ShakeMap grid node it stands on
    int type;                 // typology 0 .. FR_TYPES - 1
    int region;               // census tract
    float value;              // replacement value (thousands of dollars)
};

// psha_hazard's ground-motion model and the hazard curve's levels (set by the host)
__constant__ float c_gm[GM_NC];
__constant__ float c_lnx[HZ_NLEV];              // ln of the PGA levels (g), ascending
// fragility_loss's fragility curves: median PGA (g) of typology t reaching state k at t * FR_DS + k
__constant__ float c_med[FR_TYPES * FR_DS];
__constant__ float c_beta[FR_TYPES];            // the typology's lognormal dispersion
__constant__ float c_dr[FR_DS];                 // the damage states' damage ratios (loss / value)
// pga_exceed's sites (km), their site terms (ln units), the model's coefficients, the levels
__constant__ float c_sx[EX_SITES];
__constant__ float c_sy[EX_SITES];
__constant__ float c_fs[EX_SITES];
__constant__ float c_ex[6];                     // c0, c1 (M - 6), c2 ln r, c3 r, h (km), phi (intra-event sigma)
__constant__ float c_exlev[EX_LEV];             // ln of the PGA levels (g), ascending

extern "C" {

// nrec records of npts samples (ag, m/s^2, spaced dt; record r at r * npts), nper oscillator
// periods (s) with damping ratio zeta: sd[r * nper + p] the peak |u| (m), sa[r * nper + p]
// the peak |u'' + ag| (m/s^2), the oscillator at rest at the start (unit mass)
__global__ void newmark_spectrum(const float *ag, const float *period, float *sd, float *sa, int npts, int nper,
                                 float dt, float zeta, int nrec) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nrec * nper) return;
    int r = i / nper;
    int p = i % nper;
    const float *g = ag + (long long)r * npts;
    const double gam = 0.5;
    const double bet = 0.25;
    double h = dt;
    double w = 2.0 * 3.141592653589793 / period[p];
    double k = w * w;
    double c = 2.0 * zeta * w;
    double khat = k + gam / (bet * h) * c + 1.0 / (bet * h * h);
    double A = 1.0 / (bet * h) + gam / bet * c;
    double B = 1.0 / (2.0 * bet) + h * (gam / (2.0 * bet) - 1.0) * c;
    double u = 0.0;
    double v = 0.0;
    double g0 = g[0];
    double a = -g0;
    double umax = 0.0;
    double amax = 0.0;
    for (int t = 1; t < npts; t++) {
        double g1 = g[t];
        double dp = -(g1 - g0) + A * v + B * a;
        double du = dp / khat;
        double dv = gam / (bet * h) * du - gam / bet * v + h * (1.0 - gam / (2.0 * bet)) * a;
        double da = du / (bet * h * h) - v / (bet * h) - a / (2.0 * bet);
        u += du;
        v += dv;
        a += da;
        umax = fmax(umax, fabs(u));
        amax = fmax(amax, fabs(a + g1));
        g0 = g1;
    }
    sd[i] = (float)umax;
    sa[i] = (float)amax;
}

// nsite sites (x, y km; vs30 m/s), nrup ruptures: haz[l * nsite + i] the annual rate at which
// site i's PGA exceeds exp(c_lnx[l]) g, from the ruptures with epicentral distance <= rmax km
__global__ void psha_hazard(const float *sx, const float *sy, const float *vs30, const Rupture *rup, float *haz,
                            int nrup, float rmax, int nsite) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nsite) return;
    float x = sx[i];
    float y = sy[i];
    float fs = c_gm[GM_CLIN] * logf(fminf(vs30[i], c_gm[GM_VC]) / c_gm[GM_VREF]);
    float isig = 1.0f / (c_gm[GM_SIGMA] * 1.41421356f);
    float h[HZ_NLEV];
    for (int l = 0; l < HZ_NLEV; l++) h[l] = 0.0f;
    for (int r = 0; r < nrup; r++) {
        float dx = rup[r].x - x;
        float dy = rup[r].y - y;
        float rjb = sqrtf(dx * dx + dy * dy);
        if (rjb > rmax) continue;
        float m = rup[r].mag;
        float dm = m - c_gm[GM_MH];
        float fm;
        if (dm <= 0.0f)
            fm = c_gm[GM_E0] + c_gm[GM_E4] * dm + c_gm[GM_E5] * dm * dm;
        else
            fm = c_gm[GM_E0] + c_gm[GM_E6] * dm;
        float R = sqrtf(rjb * rjb + c_gm[GM_H] * c_gm[GM_H]);
        float fd = (c_gm[GM_C1] + c_gm[GM_C2] * (m - c_gm[GM_MREF])) * logf(R / c_gm[GM_RREF]) +
                   c_gm[GM_C3] * (R - c_gm[GM_RREF]);
        float mu = fm + fd + fs;
        float rate = rup[r].rate;
        for (int l = 0; l < HZ_NLEV; l++) h[l] += rate * 0.5f * erfcf((c_lnx[l] - mu) * isig);
    }
    for (int l = 0; l < HZ_NLEV; l++) haz[l * nsite + i] = h[l];
}

// n buildings on a grid of ShakeMap PGA values (g): loss[i] the expected loss of building i,
// region_loss[region] += it
__global__ void fragility_loss(const Building *bld, const float *pga, float *loss, float *region_loss, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Building b = bld[i];
    float im = pga[b.site];
    float beta = c_beta[b.type];
    float p[FR_DS + 1];
    for (int k = 0; k < FR_DS; k++)
        p[k] = 0.5f * (1.0f + erff(logf(im / c_med[b.type * FR_DS + k]) / (beta * 1.41421356f)));
    p[FR_DS] = 0.0f;
    float mdr = 0.0f;
    for (int k = 0; k < FR_DS; k++) mdr += (p[k] - p[k + 1]) * c_dr[k];
    float L = b.value * mdr;
    loss[i] = L;
    atomicAdd(&region_loss[b.region], L);
}

// records of npts samples (acc, m/s^2, spaced dt; record blockIdx.x at blockIdx.x * npts), a
// block a record (blockDim.x a multiple of 32): arias = pi / 2g sum a^2 dt (m/s), cav = sum
// |a| dt (m/s), pga = max |a|, nabove = the samples with |a| > thr
__global__ void arias_cav(const float *acc, float *arias, float *cav, float *pga, int *nabove, int npts, float dt,
                          float thr) {
    __shared__ float w2[32];
    __shared__ float w1[32];
    __shared__ float wm[32];
    __shared__ int wc[32];
    const float *a = acc + (long long)blockIdx.x * npts;
    float s2 = 0.0f;
    float s1 = 0.0f;
    float mx = 0.0f;
    int c = 0;
    for (int t = threadIdx.x; t < npts; t += blockDim.x) {
        float v = fabsf(a[t]);
        s2 += v * v;
        s1 += v;
        mx = fmaxf(mx, v);
        if (v > thr) c++;
    }
    for (int o = 16; o > 0; o >>= 1) {
        s2 += __shfl_down_sync(0xffffffff, s2, o);
        s1 += __shfl_down_sync(0xffffffff, s1, o);
        mx = fmaxf(mx, __shfl_down_sync(0xffffffff, mx, o));
        c += __shfl_down_sync(0xffffffff, c, o);
    }
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    if (lane == 0) {
        w2[warp] = s2;
        w1[warp] = s1;
        wm[warp] = mx;
        wc[warp] = c;
    }
    __syncthreads();
    if (warp == 0) {
        int nw = blockDim.x >> 5;
        s2 = lane < nw ? w2[lane] : 0.0f;
        s1 = lane < nw ? w1[lane] : 0.0f;
        mx = lane < nw ? wm[lane] : 0.0f;
        c = lane < nw ? wc[lane] : 0;
        for (int o = 16; o > 0; o >>= 1) {
            s2 += __shfl_down_sync(0xffffffff, s2, o);
            s1 += __shfl_down_sync(0xffffffff, s1, o);
            mx = fmaxf(mx, __shfl_down_sync(0xffffffff, mx, o));
            c += __shfl_down_sync(0xffffffff, c, o);
        }
        if (lane == 0) {
            arias[blockIdx.x] = 3.14159265f / (2.0f * 9.81f) * s2 * dt;
            cav[blockIdx.x] = s1 * dt;
            pga[blockIdx.x] = mx;
            nabove[blockIdx.x] = c;
        }
    }
}

// nst stations (x, y km; ln PGA lnv) interpolated onto the nx x ny grid of spacing hgrid km from
// (x0, y0) (row-major): lnmap[node] = sum w lnv / sum w, w = 1 / d^2, or the value of a station
// within 1 m of the node (blockDim.x == IDW_TILE)
__global__ void shakemap_idw(const float *stx, const float *sty, const float *lnv, float *lnmap, int nst, float x0,
                             float y0, float hgrid, int nx, int ny) {
    __shared__ float tx[IDW_TILE];
    __shared__ float ty[IDW_TILE];
    __shared__ float tv[IDW_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float px = x0 + (i % nx) * hgrid;
    float py = y0 + (i / nx) * hgrid;
    float sw = 0.0f;
    float swv = 0.0f;
    int on = 0;
    float von = 0.0f;
    for (int base = 0; base < nst; base += IDW_TILE) {
        int j = base + threadIdx.x;
        if (j < nst) {
            tx[threadIdx.x] = stx[j];
            ty[threadIdx.x] = sty[j];
            tv[threadIdx.x] = lnv[j];
        }
        __syncthreads();
        int m = min(IDW_TILE, nst - base);
        for (int k = 0; k < m; k++) {
            float dx = tx[k] - px;
            float dy = ty[k] - py;
            float d2 = dx * dx + dy * dy;
            if (d2 < 1e-6f) {
                on = 1;
                von = tv[k];
            } else {
                float w = 1.0f / d2;
                sw += w;
                swv += w * tv[k];
            }
        }
        __syncthreads();
    }
    if (i < nx * ny) lnmap[i] = on ? von : swv / sw;
}

// nev events (x, y km, magnitude, inter-event term in ln units): count[s * EX_LEV + l] += the
// events whose PGA at site s exceeds exp(c_exlev[l]) g
__global__ void pga_exceed(const float *ex, const float *ey, const float *em, const float *eta, int *count,
                           int nev) {
    __shared__ int cnt[EX_SITES * EX_LEV];
    for (int k = threadIdx.x; k < EX_SITES * EX_LEV; k += blockDim.x) cnt[k] = 0;
    __syncthreads();
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < nev) {
        float x = ex[e];
        float y = ey[e];
        float fm = c_ex[0] + c_ex[1] * (em[e] - 6.0f) + eta[e];
        for (int s = 0; s < EX_SITES; s++) {
            float dx = c_sx[s] - x;
            float dy = c_sy[s] - y;
            float r = sqrtf(dx * dx + dy * dy + c_ex[4] * c_ex[4]);
            // intra-event term: 4 uniform bytes of a hash of (event, site), summed (Irwin-Hall) to unit variance
            unsigned int hs = (unsigned int)e * 0x9E3779B1u ^ (unsigned int)s * 0x85EBCA77u;
            hs ^= hs >> 15;
            hs *= 0x2C1B3C6Du;
            hs ^= hs >> 12;
            hs *= 0x297A2D39u;
            hs ^= hs >> 15;
            float u4 = (float)((hs & 255u) + ((hs >> 8) & 255u) + ((hs >> 16) & 255u) + (hs >> 24) + 2u) *
                       (1.0f / 256.0f);
            float eps = (u4 - 2.0f) * 1.73205081f;
            float lny = fm + c_ex[2] * logf(r) + c_ex[3] * r + c_fs[s] + c_ex[5] * eps;
            int l = 0;
            while (l < EX_LEV && lny > c_exlev[l]) {
                atomicAdd(&cnt[s * EX_LEV + l], 1);
                l++;
            }
        }
    }
    __syncthreads();
    for (int k = threadIdx.x; k < EX_SITES * EX_LEV; k += blockDim.x)
        if (cnt[k] > 0) atomicAdd(&count[k], cnt[k]);
}

}
