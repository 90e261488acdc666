// probe-unseen123: a physical-oceanography course's CUDA assignments, as a student who
// knows CUDA basics hands them in (2-D fields row-major, j the row (northward), i the
// column (eastward); 3-D fields level-major: level k of column c at k * ncol + c):
//   swe_step          one forward step of the linear shallow-water equations on an
//                     Arakawa C-grid (eta at the cell centres, u on the east faces, v on
//                     the north faces) with a land mask and a beta-plane Coriolis term:
//                     continuity from the flux divergence of H u, momentum from the
//                     pressure gradient and the four-point averaged Coriolis velocity;
//                     land cells and closed faces get zero; a thread a cell (2-D blocks)
//   track_particles   Lagrangian drifters in a 2-D surface velocity field (A-grid, cell
//                     centres), PT_STEPS midpoint (RK2) steps with bilinear interpolation
//                     plus a random-walk kick of the eddy diffusivity's variance (a
//                     counter-based hash RNG); a drifter whose nearest cell is land (or
//                     the domain's edge) beaches there and stops; a thread a drifter
//   eos80_density     in-situ seawater density from the UNESCO EOS-80 polynomials
//                     (Millero and Poisson's one-atmosphere density and the secant bulk
//                     modulus K(S, T, p)), in double, pressure from the level's depth;
//                     land and below-bottom cells (fill -999) get the fill value
//   tidal_harmonics   the harmonic analysis of hourly sea-level series at many stations
//                     (time-major) for TH_NC constituents: sum h cos(w t) and sum h sin(w t)
//                     with the cos/sin tables of a chunk of TH_CHUNK hours staged in shared
//                     memory by the block; amplitude and phase (degrees, 0..360) by the
//                     orthogonal approximation, and the series' mean; a thread a station
//   vertical_mix      one implicit (backward Euler) step of vertical diffusion of
//                     temperature in each water column of VM_NZ levels: Kz the background
//                     value, or the convective one where the old profile is unstable
//                     (warmer below), the surface heat flux into the top level, the
//                     tridiagonal system solved by the Thomas algorithm with its sweep in
//                     per-thread arrays; kmt[c] wet levels (0 on land); a thread a column
//   heat_content      the heat content (sum T dz area) and volume of each ocean basin of a
//                     global 1/4-degree grid: a thread a column sums its HC_NZ-level
//                     profile (thicknesses in __constant__ memory), area from cos(lat),
//                     then double atomicAdds into the block's per-basin sums in shared
//                     memory and one global atomicAdd per basin a block

#define SWE_BX 32             // swe_step: the block (SWE_BX x SWE_BY)
#define SWE_BY 8
#define PT_STEPS 64           // track_particles: RK2 steps a launch
#define EOS_FILL -999.0f      // eos80_density: the fill of land / below the bottom
#define TH_NC 8               // tidal_harmonics: constituents
#define TH_CHUNK 64           // tidal_harmonics: hours of cos/sin tables in shared memory
#define VM_NZ 64              // vertical_mix: levels of the column model
#define RHO0 1025.0f          // reference density (kg/m^3)
#define CP_SW 3990.0f         // seawater's heat capacity (J/kg/K)
#define HC_NZ 50              // heat_content: levels
#define HC_NB 8               // heat_content: basins (0 unused: land)
#define DEG2RAD 0.017453292f
#define EARTH_R 6371000.0f

// tidal_harmonics: the constituents' angular speeds (rad / hour), set by the host
__constant__ float c_omega[TH_NC];

// heat_content: the level thicknesses (m), set by the host
__constant__ float c_hc_dz[HC_NZ];

extern "C" {

// ---- swe_step ----

__global__ void swe_step(const float *eta, const float *u, const float *v, const float *H,
                         const unsigned char *mask, float *eta_n, float *u_n, float *v_n, float g, float f0,
                         float beta, float dt, float dx, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    int c = j * nx + i;
    if (mask[c] == 0) {                    // land: nothing there
        eta_n[c] = 0.0f;
        u_n[c] = 0.0f;
        v_n[c] = 0.0f;
        return;
    }

    // continuity: d eta / dt = -div(H u), H on a face the mean of its two cells
    float hc = H[c];
    float fe = (i < nx - 1) ? 0.5f * (hc + H[c + 1]) * u[c] : 0.0f;
    float fw = (i > 0) ? 0.5f * (hc + H[c - 1]) * u[c - 1] : 0.0f;
    float fn = (j < ny - 1) ? 0.5f * (hc + H[c + nx]) * v[c] : 0.0f;
    float fs = (j > 0) ? 0.5f * (hc + H[c - nx]) * v[c - nx] : 0.0f;
    eta_n[c] = eta[c] - dt / dx * (fe - fw + fn - fs);

    // beta-plane Coriolis parameter at this row
    float f = f0 + beta * (float)(j - ny / 2) * dx;

    // u on the east face: open if the east neighbour is ocean
    float un = 0.0f;
    if (i < nx - 1 && mask[c + 1]) {
        float vs = v[c] + v[c + 1];        // the four v around the u point
        if (j > 0) vs += v[c - nx] + v[c - nx + 1];
        un = u[c] + dt * (f * 0.25f * vs - g * (eta[c + 1] - eta[c]) / dx);
    }
    u_n[c] = un;

    // v on the north face: open if the north neighbour is ocean
    float vn = 0.0f;
    if (j < ny - 1 && mask[c + nx]) {
        float us = u[c] + u[c + nx];       // the four u around the v point
        if (i > 0) us += u[c - 1] + u[c + nx - 1];
        vn = v[c] + dt * (-f * 0.25f * us - g * (eta[c + nx] - eta[c]) / dx);
    }
    v_n[c] = vn;
}

// ---- track_particles ----

// a 32-bit integer hash (lowbias32), the random walk's RNG
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// a uniform float in [-1, 1) from a hash's top 24 bits
__device__ float uniform_pm1(unsigned int h) {
    return (h >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

// bilinear interpolation of the cell-centred field F (nx wide) at (x, y) in grid units
__device__ float bilinear(const float *F, float x, float y, int nx) {
    int i0 = (int)floorf(x);
    int j0 = (int)floorf(y);
    float fx = x - i0;
    float fy = y - j0;
    const float *p = F + j0 * nx + i0;
    float lo = (1.0f - fx) * p[0] + fx * p[1];
    float hi = (1.0f - fx) * p[nx] + fx * p[nx + 1];
    return (1.0f - fy) * lo + fy * hi;
}

// PT_STEPS steps of dt of n drifters at (px, py) (grid units: cell (i, j) centred on
// (i, j)) in the velocity U, V (m/s, 0 on land); dt_dx = dt / dx; each step's kick
// uniform in +-kick cells on each axis from hash(seed + 2 (i PT_STEPS + s)) and the next
// counter; a drifter whose nearest cell leaves 1 .. n - 2 or is land stores the step in
// beached[i] (1-based) and stops; beached drifters of earlier launches stay put
__global__ void track_particles(float *px, float *py, int *beached, const float *U, const float *V,
                                const unsigned char *mask, float dt_dx, float kick, unsigned int seed, int nx,
                                int ny, int n) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    if (beached[p] != 0) return;
    float x = px[p];
    float y = py[p];
    for (int s = 0; s < PT_STEPS; s++) {
        // midpoint (RK2) advection
        float u1 = bilinear(U, x, y, nx);
        float v1 = bilinear(V, x, y, nx);
        float xm = x + 0.5f * dt_dx * u1;
        float ym = y + 0.5f * dt_dx * v1;
        float u2 = bilinear(U, xm, ym, nx);
        float v2 = bilinear(V, xm, ym, nx);
        // random walk for the unresolved eddies
        unsigned int ctr = seed + 2u * ((unsigned int)p * PT_STEPS + s);
        x += dt_dx * u2 + kick * uniform_pm1(hash32(ctr));
        y += dt_dx * v2 + kick * uniform_pm1(hash32(ctr + 1u));
        int ci = (int)(x + 0.5f);
        int cj = (int)(y + 0.5f);
        if (ci < 1 || ci > nx - 2 || cj < 1 || cj > ny - 2 || mask[cj * nx + ci] == 0) {
            beached[p] = s + 1;
            break;
        }
    }
    px[p] = x;
    py[p] = y;
}

// ---- eos80_density ----

// in-situ density (kg/m^3) of n cells of temperature T (deg C), salinity S (psu), level k
// = i / ncol at depth z[k] (m; pressure 0.1 z bar), by UNESCO EOS-80
__global__ void eos80_density(const float *T, const float *S, const float *z, float *rho, int ncol, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sf = S[i];
    if (sf < 0.0f) {                       // land or below the bottom
        rho[i] = EOS_FILL;
        return;
    }
    int k = i / ncol;
    double t = T[i];
    double s = sf;
    double p = 0.1 * z[k];                 // bar (1 dbar a metre)
    double s15 = s * sqrt(s);

    // density at one atmosphere
    double rw = 999.842594 + t * (6.793952e-2 + t * (-9.095290e-3 + t * (1.001685e-4 + t * (-1.120083e-6 +
                t * 6.536332e-9))));
    double r0 = rw + s * (0.824493 + t * (-4.0899e-3 + t * (7.6438e-5 + t * (-8.2467e-7 + t * 5.3875e-9)))) +
                s15 * (-5.72466e-3 + t * (1.0227e-4 - t * 1.6546e-6)) + 4.8314e-4 * s * s;

    // secant bulk modulus K(S, T, p)
    double kw = 19652.21 + t * (148.4206 + t * (-2.327105 + t * (1.360477e-2 - t * 5.155288e-5)));
    double k0 = kw + s * (54.6746 + t * (-0.603459 + t * (1.09987e-2 - t * 6.1670e-5))) +
                s15 * (7.944e-2 + t * (1.6483e-2 - t * 5.3009e-4));
    double aw = 3.239908 + t * (1.43713e-3 + t * (1.16092e-4 - t * 5.77905e-7));
    double a = aw + s * (2.2838e-3 + t * (-1.0981e-5 - t * 1.6078e-6)) + 1.91075e-4 * s15;
    double bw = 8.50935e-5 + t * (-6.12293e-6 + t * 5.2787e-8);
    double b = bw + s * (-9.9348e-7 + t * (2.0816e-8 + t * 9.1697e-10));
    double kp = k0 + p * (a + p * b);

    rho[i] = (float)(r0 / (1.0 - p / kp));
}

// ---- tidal_harmonics ----

// ns stations' hourly sea level h (time-major: hour t of station st at t * ns + st), nt
// hours from t = 0: for each constituent c (c_omega[c] rad/h) C = 2/nt sum h cos(w t), S
// = 2/nt sum h sin(w t), amplitude sqrt(C^2 + S^2) and phase atan2(S, C) in degrees
// (0 .. 360) stored at c * ns + st; the mean of the series stored too
__global__ void tidal_harmonics(const float *h, float *amp, float *pha, float *mean, int nt, int ns) {
    __shared__ float s_cos[TH_CHUNK][TH_NC];
    __shared__ float s_sin[TH_CHUNK][TH_NC];
    int st = blockIdx.x * blockDim.x + threadIdx.x;
    float sc[TH_NC];
    float ss[TH_NC];
    for (int c = 0; c < TH_NC; c++) {
        sc[c] = 0.0f;
        ss[c] = 0.0f;
    }
    float sum = 0.0f;
    for (int t0 = 0; t0 < nt; t0 += TH_CHUNK) {
        // the block's cos/sin tables for hours t0 .. t0 + TH_CHUNK - 1
        for (int k = threadIdx.x; k < TH_CHUNK * TH_NC; k += blockDim.x) {
            int tt = k / TH_NC;
            int c = k % TH_NC;
            float ang = c_omega[c] * (float)(t0 + tt);
            s_cos[tt][c] = cosf(ang);
            s_sin[tt][c] = sinf(ang);
        }
        __syncthreads();
        if (st < ns) {
            int tmax = min(TH_CHUNK, nt - t0);
            for (int tt = 0; tt < tmax; tt++) {
                float x = h[(t0 + tt) * ns + st];
                sum += x;
                for (int c = 0; c < TH_NC; c++) {
                    sc[c] += x * s_cos[tt][c];
                    ss[c] += x * s_sin[tt][c];
                }
            }
        }
        __syncthreads();
    }
    if (st >= ns) return;
    mean[st] = sum / nt;
    for (int c = 0; c < TH_NC; c++) {
        float C = 2.0f * sc[c] / nt;
        float S = 2.0f * ss[c] / nt;
        amp[c * ns + st] = sqrtf(C * C + S * S);
        float ph = atan2f(S, C) * 57.2957795f;
        if (ph < 0.0f) ph += 360.0f;
        pha[c * ns + st] = ph;
    }
}

// ---- vertical_mix ----

// one backward-Euler step of dt of dT/dt = d/dz (Kz dT/dz) in ncol columns (levels of dz
// metres, kmt[c] of them wet), T updated in place; Kz at an interface kconv where the
// level below is warmer than the one above, else kbg; the surface flux Qs[c] (W/m^2,
// positive into the ocean) heats the top level; no flux through the bottom
__global__ void vertical_mix(float *T, const int *kmt, const float *Qs, float dt, float dz, float kbg, float kconv,
                             int ncol) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ncol) return;
    int m = kmt[c];
    if (m == 0) return;                    // land
    float cp[VM_NZ];                       // the Thomas algorithm's modified upper diagonal
    float dp[VM_NZ];                       // and right-hand side
    float r = dt / (dz * dz);
    float rup = 0.0f;                      // r Kz on the interface above level k
    float tk = T[c];
    for (int k = 0; k < m; k++) {
        float rdn = 0.0f;                  // r Kz on the interface below level k
        float tnext = 0.0f;
        if (k < m - 1) {
            tnext = T[(k + 1) * ncol + c];
            float kz = (tnext > tk) ? kconv : kbg;
            rdn = r * kz;
        }
        float a = -rup;
        float b = 1.0f + rup + rdn;
        float d = tk;
        if (k == 0) d += dt * Qs[c] / (RHO0 * CP_SW * dz);
        if (k == 0) {
            cp[0] = -rdn / b;
            dp[0] = d / b;
        } else {
            float den = b - a * cp[k - 1];
            cp[k] = -rdn / den;
            dp[k] = (d - a * dp[k - 1]) / den;
        }
        rup = rdn;
        tk = tnext;
    }
    // back substitution
    float x = dp[m - 1];
    T[(m - 1) * ncol + c] = x;
    for (int k = m - 2; k >= 0; k--) {
        x = dp[k] - cp[k] * x;
        T[k * ncol + c] = x;
    }
}

// ---- heat_content ----

// the heat content (sum of T dz area, K m^3) and volume (m^3) of each basin of an nx x ny
// grid of dlat-degree cells (row j centred at lat0 + (j + 0.5) dlat), level k of column c
// at T[k * nx * ny + c], kmt[c] wet levels; basin[c] in 1 .. HC_NB - 1 (0 on land);
// added into heat[basin] and vol[basin]
__global__ void heat_content(const float *T, const int *kmt, const unsigned char *basin, double *heat, double *vol,
                             float lat0, float dlat, int nx, int ny) {
    __shared__ double s_heat[HC_NB];
    __shared__ double s_vol[HC_NB];
    if (threadIdx.x < HC_NB) {
        s_heat[threadIdx.x] = 0.0;
        s_vol[threadIdx.x] = 0.0;
    }
    __syncthreads();
    int ncol = nx * ny;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < ncol) {
        int m = kmt[c];
        if (m > 0) {
            int j = c / nx;
            float lat = lat0 + (j + 0.5f) * dlat;
            float d = dlat * DEG2RAD;
            float area = EARTH_R * EARTH_R * d * d * cosf(lat * DEG2RAD);
            float ht = 0.0f;
            float depth = 0.0f;
            for (int k = 0; k < m; k++) {
                ht += T[k * ncol + c] * c_hc_dz[k];
                depth += c_hc_dz[k];
            }
            int b = basin[c];
            atomicAdd(&s_heat[b], (double)(ht * area));
            atomicAdd(&s_vol[b], (double)(depth * area));
        }
    }
    __syncthreads();
    if (threadIdx.x < HC_NB) {
        atomicAdd(&heat[threadIdx.x], s_heat[threadIdx.x]);
        atomicAdd(&vol[threadIdx.x], s_vol[threadIdx.x]);
    }
}

}
