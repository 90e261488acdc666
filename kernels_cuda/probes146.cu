// probe-unseen144: an orbital-mechanics / space-situational-awareness course's CUDA
// assignments, as a student who knows CUDA basics hands them in. Units: km, s, radians;
// Earth a sphere of radius R_EARTH with mu MU_EARTH, J2 the only perturbation modelled.
//
// kepler_ephemeris: Kepler's equation E - e sin E = M solved by Newton's method for a
//   catalog of satellites (near-circular LEO, GTO and Molniya orbits mixed) at KEP_NT
//   epochs each; a thread a satellite, the iteration count depending on e and M; the
//   eccentric anomaly and the radius stored time-major, the iterations summed.
// rk4_twobody: two-body propagation in double with classical RK4 (a fixed step h, `steps`
//   of them), a thread a satellite, its state in a 6-element array, the state arrays
//   structure-of-arrays and overwritten.
// conjunction_screen: all-pairs conjunction screening of a catalog at one epoch: a 2-D
//   grid over the pair matrix, a block a CS_TILE x CS_TILE tile, a thread a primary i
//   against the tile's CS_TILE secondaries staged in shared memory; every pair j > i
//   closer than thr is appended to a pair list through one global atomicAdd counter (the
//   list holds at most cap pairs; the count goes on).
// station_visibility: ground-station visibility over a day's grid: a thread a satellite
//   on a circular orbit, nt time steps of dt, the satellite rotated into the Earth-fixed
//   frame and its elevation from each of the N_ST stations (__constant__ positions and up
//   vectors); samples above the mask counted, passes (rises) counted, the highest
//   elevation kept (degrees, -90 if never seen).
// j2_secular_drift: J2 secular drift of mean elements over dt: a thread a satellite, the
//   elements an array of 24-byte structs read and written back; RAAN, argument of perigee
//   and mean anomaly advanced by their J2 rates and wrapped into [0, 2 pi).
// od_range_residuals: orbit-determination range residuals of tracking observations
//   (passes of consecutive observations from one of OD_NST stations) against the current
//   circular-orbit estimate: a thread an observation, the residual stored, its weighted
//   square and an outlier flag summed by a shared-memory tree in each block, then one
//   double atomicAdd (chi^2) and one int atomicAdd (outliers) a block.

#define MU_EARTH 398600.4418          // km^3 / s^2
#define MU_EARTH_F 398600.4418f
#define R_EARTH_F 6378.137f           // km
#define J2_F 1.08262668e-3f
#define OMEGA_EARTH_F 7.2921159e-5f   // rad / s
#define PI_F 3.14159265f
#define TWO_PI_F 6.28318531f

#define KEP_NT 16                     // kepler_ephemeris: epochs a satellite
#define KEP_MAX_IT 20                 // kepler_ephemeris: the most Newton iterations an epoch
#define KEP_TOL 1e-5f                 // kepler_ephemeris: stop when |dE| is below this
#define CS_TILE 256                   // conjunction_screen: positions a shared tile (blockDim.x)
#define N_ST 4                        // station_visibility: ground stations
#define OD_NST 16                     // od_range_residuals: tracking stations
#define OD_BLOCK 256                  // od_range_residuals: threads a block (blockDim.x)

// station_visibility's stations (set by the host): Earth-fixed positions (km) and local
// up unit vectors, x y z each
__constant__ float c_st_pos[3 * N_ST];
__constant__ float c_st_up[3 * N_ST];

// od_range_residuals' tracking stations (set by the host): Earth-fixed positions (km)
__constant__ float c_gs_pos[3 * OD_NST];

extern "C" {

struct OrbitElements {
    float a;      // semi-major axis, km
    float e;      // eccentricity
    float inc;    // inclination
    float raan;   // right ascension of the ascending node
    float argp;   // argument of perigee
    float M;      // mean anomaly
};

// n satellites' eccentric anomalies at KEP_NT epochs t_k = k dt: M = fmodf(M0 + nmot t_k,
// 2 pi), Newton from E = M (e < 0.8) or pi until |dE| < KEP_TOL (KEP_MAX_IT at most);
// E and r = a (1 - e cos E) stored at [k n + i], the Newton iterations summed per satellite
__global__ void kepler_ephemeris(const float *M0, const float *ecc, const float *nmot, const float *sma,
                                 float *E_out, float *r_out, int *iters, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float e = ecc[i];
    float m0 = M0[i];
    float nm = nmot[i];
    float a = sma[i];
    int total = 0;
    for (int k = 0; k < KEP_NT; k++) {
        float M = fmodf(m0 + nm * (k * dt), TWO_PI_F);
        float E = (e < 0.8f) ? M : PI_F;
        for (int it = 0; it < KEP_MAX_IT; it++) {
            float f = E - e * sinf(E) - M;
            float fp = 1.0f - e * cosf(E);
            float dE = f / fp;
            E = E - dE;
            total++;
            if (fabsf(dE) < KEP_TOL) break;
        }
        E_out[k * n + i] = E;
        r_out[k * n + i] = a * (1.0f - e * cosf(E));
    }
    iters[i] = total;
}

// the two-body state derivative: s = (x, y, z, vx, vy, vz)
__device__ void twobody_deriv(const double *s, double *ds) {
    double r2 = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
    double r = sqrt(r2);
    double k = -MU_EARTH / (r2 * r);
    ds[0] = s[3];
    ds[1] = s[4];
    ds[2] = s[5];
    ds[3] = k * s[0];
    ds[4] = k * s[1];
    ds[5] = k * s[2];
}

// `steps` classical RK4 steps of h seconds of n satellites (positions km, velocities km/s)
__global__ void rk4_twobody(double *X, double *Y, double *Z, double *VX, double *VY, double *VZ, double h,
                            int steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double s[6], k1[6], k2[6], k3[6], k4[6], tmp[6];
    s[0] = X[i];
    s[1] = Y[i];
    s[2] = Z[i];
    s[3] = VX[i];
    s[4] = VY[i];
    s[5] = VZ[i];
    for (int step = 0; step < steps; step++) {
        twobody_deriv(s, k1);
        for (int d = 0; d < 6; d++) tmp[d] = s[d] + 0.5 * h * k1[d];
        twobody_deriv(tmp, k2);
        for (int d = 0; d < 6; d++) tmp[d] = s[d] + 0.5 * h * k2[d];
        twobody_deriv(tmp, k3);
        for (int d = 0; d < 6; d++) tmp[d] = s[d] + h * k3[d];
        twobody_deriv(tmp, k4);
        for (int d = 0; d < 6; d++) s[d] += h / 6.0 * (k1[d] + 2.0 * k2[d] + 2.0 * k3[d] + k4[d]);
    }
    X[i] = s[0];
    Y[i] = s[1];
    Z[i] = s[2];
    VX[i] = s[3];
    VY[i] = s[4];
    VZ[i] = s[5];
}

// pairs (i, j), j > i, of n objects closer than thr km: a 2-D grid of CS_TILE x CS_TILE
// tiles of the pair matrix, a thread primary i of tile blockIdx.x against the secondaries
// of tile blockIdx.y (staged in shared memory); each pair found takes a slot of the list
// by atomicAdd on *n_pairs and is stored if the slot < cap
__global__ void conjunction_screen(const float *px, const float *py, const float *pz, int *pair_i, int *pair_j,
                                   float *pair_d, int *n_pairs, float thr, int cap, int n) {
    __shared__ float sx[CS_TILE];
    __shared__ float sy[CS_TILE];
    __shared__ float sz[CS_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j0 = blockIdx.y * CS_TILE;
    int j = j0 + threadIdx.x;
    if (j < n) {
        sx[threadIdx.x] = px[j];
        sy[threadIdx.x] = py[j];
        sz[threadIdx.x] = pz[j];
    }
    __syncthreads();
    if (i >= n) return;
    float xi = px[i];
    float yi = py[i];
    float zi = pz[i];
    float thr2 = thr * thr;
    int m = min(CS_TILE, n - j0);
    for (int k = 0; k < m; k++) {
        float dx = sx[k] - xi;
        float dy = sy[k] - yi;
        float dz = sz[k] - zi;
        float d2 = dx * dx + dy * dy + dz * dz;
        int jj = j0 + k;
        if (jj > i && d2 < thr2) {
            int slot = atomicAdd(n_pairs, 1);
            if (slot < cap) {
                pair_i[slot] = i;
                pair_j[slot] = jj;
                pair_d[slot] = sqrtf(d2);
            }
        }
    }
}

// n satellites on circular orbits (radius sma, inclination inc, node raan, argument of
// latitude u0 at t = 0) sampled at t = k dt, k < nt; the Earth's rotation angle theta0 +
// OMEGA_EARTH t; a sample is visible from station s when the sine of its elevation exceeds
// sin_min_el. Per (station s, satellite i), at [s n + i]: the visible samples, the passes
// (visible after not visible, or at k = 0) and the highest elevation in degrees (-90 if none)
__global__ void station_visibility(const float *sma, const float *inc, const float *raan, const float *u0,
                                   int *vis_count, int *passes, float *max_el, float dt, float theta0,
                                   float sin_min_el, int nt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = sma[i];
    float si, ci, sO, cO;
    sincosf(inc[i], &si, &ci);
    sincosf(raan[i], &sO, &cO);
    float u = u0[i];
    float nm = sqrtf(MU_EARTH_F / (a * a * a));
    int cnt[N_ST];
    int np[N_ST];
    float best[N_ST];
    int prev[N_ST];
    for (int s = 0; s < N_ST; s++) {
        cnt[s] = 0;
        np[s] = 0;
        best[s] = -2.0f;
        prev[s] = 0;
    }
    for (int k = 0; k < nt; k++) {
        float t = k * dt;
        float su, cu;
        sincosf(u + nm * t, &su, &cu);
        float x = a * (cu * cO - su * ci * sO);
        float y = a * (cu * sO + su * ci * cO);
        float z = a * su * si;
        float sth, cth;
        sincosf(theta0 + OMEGA_EARTH_F * t, &sth, &cth);
        float xe = cth * x + sth * y;
        float ye = -sth * x + cth * y;
        for (int s = 0; s < N_ST; s++) {
            float rx = xe - c_st_pos[3 * s];
            float ry = ye - c_st_pos[3 * s + 1];
            float rz = z - c_st_pos[3 * s + 2];
            float rho = sqrtf(rx * rx + ry * ry + rz * rz);
            float sel = (rx * c_st_up[3 * s] + ry * c_st_up[3 * s + 1] + rz * c_st_up[3 * s + 2]) / rho;
            int v = sel > sin_min_el;
            if (v) {
                cnt[s]++;
                if (!prev[s]) np[s]++;
                if (sel > best[s]) best[s] = sel;
            }
            prev[s] = v;
        }
    }
    for (int s = 0; s < N_ST; s++) {
        vis_count[s * n + i] = cnt[s];
        passes[s * n + i] = np[s];
        max_el[s * n + i] = cnt[s] > 0 ? asinf(best[s]) * (180.0f / PI_F) : -90.0f;
    }
}

// n satellites' mean elements advanced dt seconds by the J2 secular rates: with p = a (1 -
// e^2), n0 = sqrt(mu / a^3) and k = 1.5 J2 (R / p)^2 n0: RAAN' = -k cos i, argp' = k / 2
// (5 cos^2 i - 1), M' = n0 + k / 2 sqrt(1 - e^2) (3 cos^2 i - 1); the angles wrapped
__global__ void j2_secular_drift(OrbitElements *el, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    OrbitElements o = el[i];
    float p = o.a * (1.0f - o.e * o.e);
    float n0 = sqrtf(MU_EARTH_F / (o.a * o.a * o.a));
    float rp = R_EARTH_F / p;
    float k = 1.5f * J2_F * rp * rp * n0;
    float c = cosf(o.inc);
    float raan_dot = -k * c;
    float argp_dot = 0.5f * k * (5.0f * c * c - 1.0f);
    float M_dot = n0 + 0.5f * k * sqrtf(1.0f - o.e * o.e) * (3.0f * c * c - 1.0f);
    o.raan = fmodf(o.raan + raan_dot * dt, TWO_PI_F);
    if (o.raan < 0.0f) o.raan += TWO_PI_F;
    o.argp = fmodf(o.argp + argp_dot * dt, TWO_PI_F);
    if (o.argp < 0.0f) o.argp += TWO_PI_F;
    o.M = fmodf(o.M + M_dot * dt, TWO_PI_F);
    if (o.M < 0.0f) o.M += TWO_PI_F;
    el[i] = o;
}

// range residuals of n observations (time t_obs, station index, measured range, sigma)
// against a circular orbit (radius a, inclination inc, node raan, argument of latitude u0
// at t = 0; the Earth's rotation angle theta0 + OMEGA_EARTH t): resid = measured -
// predicted stored; sum of (resid / sigma)^2 into *chi2 and of |resid / sigma| > thresh
// into *n_outlier, a block's sums by a shared-memory tree and one atomicAdd each
__global__ void od_range_residuals(const float *t_obs, const int *station, const float *range_obs,
                                   const float *sigma, float *resid, double *chi2, int *n_outlier, float a,
                                   float inc, float raan, float u0, float theta0, float thresh, int n) {
    __shared__ float s_chi[OD_BLOCK];
    __shared__ int s_out[OD_BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    float c = 0.0f;
    int o = 0;
    if (i < n) {
        float t = t_obs[i];
        int s = station[i];
        float nm = sqrtf(MU_EARTH_F / (a * a * a));
        float su, cu, si, ci, sO, cO, sth, cth;
        sincosf(u0 + nm * t, &su, &cu);
        sincosf(inc, &si, &ci);
        sincosf(raan, &sO, &cO);
        float x = a * (cu * cO - su * ci * sO);
        float y = a * (cu * sO + su * ci * cO);
        float z = a * su * si;
        sincosf(theta0 + OMEGA_EARTH_F * t, &sth, &cth);
        float rx = cth * x + sth * y - c_gs_pos[3 * s];
        float ry = -sth * x + cth * y - c_gs_pos[3 * s + 1];
        float rz = z - c_gs_pos[3 * s + 2];
        float pred = sqrtf(rx * rx + ry * ry + rz * rz);
        float r = range_obs[i] - pred;
        resid[i] = r;
        float w = r / sigma[i];
        c = w * w;
        o = fabsf(w) > thresh ? 1 : 0;
    }
    s_chi[tid] = c;
    s_out[tid] = o;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (tid < st) {
            s_chi[tid] += s_chi[tid + st];
            s_out[tid] += s_out[tid + st];
        }
        __syncthreads();
    }
    if (tid == 0) {
        atomicAdd(chi2, (double)s_chi[0]);
        atomicAdd(n_outlier, s_out[0]);
    }
}

}
