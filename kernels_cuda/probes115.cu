// probe-unseen113: an atmospheric-science / numerical-weather-prediction course's CUDA
// assignments, as a student who knows CUDA basics hands them in:
//
// - upwind_advect: one forward-Euler step of first-order upwind advection of a tracer by
//   a given wind on a global lat-lon grid (a thread a grid point, 2-D blocks), periodic in
//   longitude, no flux through the poles;
// - sat_adjust: saturation adjustment (condensation of supersaturated vapour, evaporation
//   of cloud in subsaturated air) by Newton iterations on the temperature, a thread a
//   column walking its NLEV levels;
// - lw_two_stream: gray longwave two-stream fluxes (no scattering), a thread a column: a
//   downward sweep from the top, the surface's emission and reflection, an upward sweep,
//   and the layers' heating rates;
// - interp_plevels: vertical interpolation of temperature and geopotential height from the
//   model's sigma levels to NPLEV standard pressure levels (in __constant__ memory), linear
//   in ln p, a thread a column, levels under the ground filled;
// - thomas_vdiff: one implicit (backward Euler) step of vertical diffusion with a
//   height-dependent diffusivity, the tridiagonal system of each column solved by the
//   Thomas algorithm, a thread a column;
// - zonal_mean: zonal means of T and v and the eddy heat flux [v'T'] on each latitude
//   circle of each level, a block a circle with a shared-memory tree reduction, and the
//   area-weighted global mean temperature of each level by atomicAdd.
//
// The column kernels store their 3-D fields level-major: f[k * ncol + c], k = 0 the top.

#define NLEV 64           // model levels of the column kernels
#define NPLEV 16          // interp_plevels: the pressure levels interpolated to
#define SA_MAX_IT 10      // sat_adjust: the most Newton iterations a cell
#define ZM_BLOCK 256      // zonal_mean: threads a block (blockDim.x == ZM_BLOCK)

#define REARTH 6.371e6f   // m
#define GRAV 9.80665f     // m s^-2
#define CP 1004.64f       // J kg^-1 K^-1
#define LV 2.501e6f       // J kg^-1
#define EPS 0.622f        // Rd / Rv
#define SIGMA_SB 5.670374e-8f
#define DIFFUSIVITY 1.66f // two-stream: the diffusivity factor

// interp_plevels' target pressure levels (Pa), top down (set by the host)
__constant__ float c_plev[NPLEV];

extern "C" {

// one step of dt of dq/dt + u dq/dx + v dq/dy = 0 on an nlon x nlat grid (row-major,
// row j at latitude lat0 + j dlat, j = 0 the southernmost), first-order upwind: the
// difference taken on the side the wind comes from, dx = R cos(lat) dlon, dy = R dlat;
// periodic in longitude, no gradient across the poles
__global__ void upwind_advect(const float *q, const float *u, const float *v, float *qn, float dlon, float dlat,
                              float lat0, float dt, int nlon, int nlat) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nlon || j >= nlat) return;
    int id = j * nlon + i;
    float lat = lat0 + j * dlat;
    float dx = REARTH * cosf(lat) * dlon;
    float dy = REARTH * dlat;
    float qc = q[id];
    float uc = u[id];
    float vc = v[id];
    int ie = (i + 1) % nlon;
    int iw = (i - 1 + nlon) % nlon;
    float dqdx;
    if (uc > 0.0f)
        dqdx = (qc - q[j * nlon + iw]) / dx;
    else
        dqdx = (q[j * nlon + ie] - qc) / dx;
    float dqdy = 0.0f;
    if (vc > 0.0f) {
        if (j > 0) dqdy = (qc - q[id - nlon]) / dy;
    } else {
        if (j < nlat - 1) dqdy = (q[id + nlon] - qc) / dy;
    }
    qn[id] = qc - dt * (uc * dqdx + vc * dqdy);
}

// saturation mixing ratio (kg/kg) at T (K) and p (Pa), Bolton's saturation vapour pressure
__device__ float qsat(float T, float p) {
    float es = 611.2f * expf(17.67f * (T - 273.15f) / (T - 29.65f));
    return EPS * es / (p - (1.0f - EPS) * es);
}

// saturation adjustment of ncol columns of NLEV levels, a thread a column: a cell that is
// supersaturated (qv > qsat(T, p)) or holds cloud (qc > 0) gets the temperature tn with
// tn - T - LV/CP (qv - qsat(tn, p)) = 0 by Newton's method (from tn = T, until a step is
// under tol, at most SA_MAX_IT steps), then condenses qv - qsat(tn, p) (a negative amount
// evaporates cloud, at most all of it) and is warmed by LV/CP times that; the other cells
// are left alone; the Newton steps of each column counted into iters
__global__ void sat_adjust(float *T, float *qv, float *qc, const float *p, int *iters, float tol, int ncol) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ncol) return;
    int nit = 0;
    for (int k = 0; k < NLEV; k++) {
        int id = k * ncol + c;
        float t = T[id];
        float q = qv[id];
        float l = qc[id];
        float pk = p[id];
        float qs = qsat(t, pk);
        if (q > qs || l > 0.0f) {
            float tn = t;
            for (int it = 0; it < SA_MAX_IT; it++) {
                float es = 611.2f * expf(17.67f * (tn - 273.15f) / (tn - 29.65f));
                float den = pk - (1.0f - EPS) * es;
                float qsn = EPS * es / den;
                float dqs = qsn * pk / den * 17.67f * 243.5f / ((tn - 29.65f) * (tn - 29.65f));
                float f = tn - t - LV / CP * (q - qsn);
                float df = 1.0f + LV / CP * dqs;
                float dT = f / df;
                tn = tn - dT;
                nit++;
                if (fabsf(dT) < tol) break;
            }
            float dq = q - qsat(tn, pk);
            if (dq < -l) dq = -l;
            T[id] = t + LV / CP * dq;
            qv[id] = q - dq;
            qc[id] = l + dq;
        }
    }
    iters[c] = nit;
}

// gray longwave fluxes of ncol columns of NLEV layers, a thread a column: layer k
// transmits tr = exp(-1.66 tau) and emits sigma T^4 (1 - tr); downward from Fdn = 0 at
// the top; the surface emits emis sigma Ts^4 and reflects (1 - emis) Fdn; upward to the
// top (tr and the Planck flux computed again); the NLEV + 1 interface fluxes stored
// (level-major, interface 0 the top) and each layer's heating rate g/cp (Fnet(bottom) -
// Fnet(top)) / dp in K/day (Fnet = Fup - Fdn)
__global__ void lw_two_stream(const float *T, const float *tau, const float *dp, const float *Ts, float emis,
                              float *Fup, float *Fdn, float *heat, int ncol) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ncol) return;
    float fd = 0.0f;
    Fdn[c] = 0.0f;
    for (int k = 0; k < NLEV; k++) {
        int id = k * ncol + c;
        float t = T[id];
        float tr = expf(-DIFFUSIVITY * tau[id]);
        float B = SIGMA_SB * t * t * t * t;
        fd = fd * tr + B * (1.0f - tr);
        Fdn[(k + 1) * ncol + c] = fd;
    }
    float ts = Ts[c];
    float fu = emis * SIGMA_SB * ts * ts * ts * ts + (1.0f - emis) * fd;
    Fup[NLEV * ncol + c] = fu;
    for (int k = NLEV - 1; k >= 0; k--) {
        int id = k * ncol + c;
        float t = T[id];
        float tr = expf(-DIFFUSIVITY * tau[id]);
        float B = SIGMA_SB * t * t * t * t;
        float fu_top = fu * tr + B * (1.0f - tr);
        float fnet_top = fu_top - Fdn[id];
        float fnet_bot = fu - Fdn[id + ncol];
        heat[id] = GRAV / CP * (fnet_bot - fnet_top) / dp[id] * 86400.0f;
        Fup[id] = fu_top;
        fu = fu_top;
    }
}

// T and Z from NLEV model levels (pressure p rising downward) to the NPLEV pressure
// levels c_plev (rising), a thread a column: a target at or above the top level takes the
// top level's values, one below the lowest level (under the ground) the fill value;
// otherwise the bracket k (p[k] < target <= p[k + 1]) is walked down from the previous
// target's and the values interpolated linearly in ln p; outputs level-major (NPLEV rows)
__global__ void interp_plevels(const float *p, const float *T, const float *Z, float *Tp, float *Zp, float fill,
                               int ncol) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ncol) return;
    float ptop = p[c];
    float pbot = p[(NLEV - 1) * ncol + c];
    int k = 0;
    for (int m = 0; m < NPLEV; m++) {
        float pt = c_plev[m];
        int o = m * ncol + c;
        if (pt > pbot) {
            Tp[o] = fill;
            Zp[o] = fill;
            continue;
        }
        if (pt <= ptop) {
            Tp[o] = T[c];
            Zp[o] = Z[c];
            continue;
        }
        while (p[(k + 1) * ncol + c] < pt) k++;
        int i0 = k * ncol + c;
        int i1 = i0 + ncol;
        float w = logf(pt / p[i0]) / logf(p[i1] / p[i0]);
        Tp[o] = T[i0] + w * (T[i1] - T[i0]);
        Zp[o] = Z[i0] + w * (Z[i1] - Z[i0]);
    }
}

// one backward-Euler step of dt of d(phi)/dt = d/dz (K d(phi)/dz) in ncol columns of NLEV
// levels, a thread a column: layer thicknesses dz (NLEV, the same in every column, top
// down), K at the NLEV - 1 interfaces (level-major, interface k between levels k and k +
// 1), no flux through the top or the bottom; row k of the system is -lo phi[k-1] + (1 +
// lo + up) phi[k] - up phi[k+1] = phi_old[k], solved by the Thomas algorithm (the modified
// coefficients in per-thread arrays); phi overwritten
__global__ void thomas_vdiff(float *phi, const float *K, const float *dz, float dt, int ncol) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ncol) return;
    float cprime[NLEV];
    float dprime[NLEV];
    for (int k = 0; k < NLEV; k++) {
        float lo = 0.0f;
        float up = 0.0f;
        if (k > 0) lo = dt * K[(k - 1) * ncol + c] / (dz[k] * 0.5f * (dz[k - 1] + dz[k]));
        if (k < NLEV - 1) up = dt * K[k * ncol + c] / (dz[k] * 0.5f * (dz[k] + dz[k + 1]));
        float a = -lo;
        float b = 1.0f + lo + up;
        float d = phi[k * ncol + c];
        if (k == 0) {
            cprime[0] = -up / b;
            dprime[0] = d / b;
        } else {
            float m = b - a * cprime[k - 1];
            cprime[k] = -up / m;
            dprime[k] = (d - a * dprime[k - 1]) / m;
        }
    }
    float x = dprime[NLEV - 1];
    phi[(NLEV - 1) * ncol + c] = x;
    for (int k = NLEV - 2; k >= 0; k--) {
        x = dprime[k] - cprime[k] * x;
        phi[k * ncol + c] = x;
    }
}

// zonal means on nlev levels of an nlon x nlat grid (level-major, rows of nlon), a block
// a latitude circle (blockIdx.x the latitude, blockIdx.y the level): each thread sums T, v
// and vT over every ZM_BLOCK-th point of the circle, a shared-memory tree reduction of the
// three sums, thread 0 stores [T], [v] and the eddy heat flux [vT] - [v][T] and adds [T]
// times the latitude's area weight wlat[j] (the weights sum to 1) into the level's global
// mean Tglob[lev] by atomicAdd
__global__ void zonal_mean(const float *T, const float *v, const float *wlat, float *Tbar, float *vbar,
                           float *vT_eddy, float *Tglob, int nlon, int nlat) {
    __shared__ float sT[ZM_BLOCK];
    __shared__ float sv[ZM_BLOCK];
    __shared__ float svT[ZM_BLOCK];
    int j = blockIdx.x;
    int lev = blockIdx.y;
    int tid = threadIdx.x;
    int row = (lev * nlat + j) * nlon;
    float st = 0.0f;
    float sw = 0.0f;
    float swt = 0.0f;
    for (int i = tid; i < nlon; i += blockDim.x) {
        float t = T[row + i];
        float w = v[row + i];
        st += t;
        sw += w;
        swt += w * t;
    }
    sT[tid] = st;
    sv[tid] = sw;
    svT[tid] = swt;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sT[tid] += sT[tid + s];
            sv[tid] += sv[tid + s];
            svT[tid] += svT[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        float tm = sT[0] / nlon;
        float vm = sv[0] / nlon;
        int o = lev * nlat + j;
        Tbar[o] = tm;
        vbar[o] = vm;
        vT_eddy[o] = svT[0] / nlon - vm * tm;
        atomicAdd(&Tglob[lev], tm * wlat[j]);
    }
}

}
