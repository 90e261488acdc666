// probe-unseen170: a wind energy engineering course's CUDA assignments, as a student who
// knows CUDA basics hands them in:
//  - bem_solve: blade-element momentum theory (Hansen's algorithm) for a 3-bladed 5 MW rotor,
//    a thread a blade element at an operating point (wind speed, rotor speed, pitch): the
//    fixed-point iteration of the axial and tangential induction factors with Prandtl's tip
//    and hub losses and Glauert's (Spera's) high-loading correction, the airfoils' lift and
//    drag polars tabulated in __constant__ and interpolated linearly in the angle of attack,
//    iterating until both factors change by under BEM_TOL (divergent counts), then the
//    normal and tangential loads per unit length at the converged state;
//  - gauss_wake_map: a hub-height flow map of a wind farm cluster by the Bastankhah & Porte-Agel
//    (2014) Gaussian wake model, a thread a map point (2-D blocks): the velocity deficits of
//    all turbines upstream of it (in the wind's frame) superposed as a root sum of squares,
//    the turbines staged a tile at a time in shared memory (rotated into the wind's frame and
//    their initial wake width computed by the thread loading them) between __syncthreads;
//  - wind_rose_hist: the joint wind-speed / direction frequency table (36 sectors of 10
//    degrees x 0.5 m/s bins, the annual-energy estimate's input) of a long 1 Hz met-mast
//    record, a grid-stride loop over the records, a block's table in shared memory by
//    atomicAdd (consecutive seconds fall in the same few bins: contended), the outage
//    records (flagged by a negative speed) counted, the block's table added to the global
//    one by atomicAdd at the end;
//  - power_curve_energy: a fleet's year of 10-minute SCADA records turned into power, a thread
//    a record (blockIdx.y the turbine): the IEC 61400-12-1 air-density normalisation of the
//    wind speed (cbrtf), a binary search of the turbine model's power curve (a table of
//    non-uniformly spaced speeds, CSR over the models, in global memory), linear
//    interpolation, 0 outside cut-in .. cut-out and for missing records; each turbine's
//    energy summed in double by a warp shuffle reduction and one double atomicAdd a warp;
//  - kaimal_synth: a turbulent inflow field (the longitudinal component on a grid of points
//    over the rotor disc) synthesised from the IEC Kaimal spectrum as a sum of cosines with
//    random phases, a thread a time sample of a point (blockIdx.y the point): the row's
//    amplitudes and the point's phases read for every frequency (a warp's lanes the same
//    address), a cosf a term, the row's mean wind (power-law shear) added;
//  - yaw_search: a grid search over the yaw settings of a farm's upstream columns (wake
//    steering), a 64-thread block a candidate setting and a thread a turbine: each turbine's
//    yaw decoded from the candidate's index (base YS_NYAW digits, one a column), its wake's
//    Jensen deficit and Jimenez deflection put in a shared array of structs, then each
//    turbine's inflow from the top-hat wakes of all turbines upstream (the circle-circle
//    overlap of wake and rotor, acosf) superposed as a root sum of squares, its power, and
//    the farm's power by a shared-memory tree reduction.

#define PI_F 3.14159265f
#define BEM_B 3               // bem_solve: blades
#define BEM_R 63.0f           // rotor radius (m)
#define BEM_RHUB 1.5f         // hub radius (m)
#define BEM_NE 32             // blade elements an operating point
#define BEM_AC 0.2f           // Glauert correction above a = BEM_AC
#define BEM_TOL 1e-5f         // convergence: both induction factors change by less
#define BEM_MAXIT 100
#define BEM_RHO 1.225f        // air density (kg/m^3)
#define PC_AF 4               // airfoil classes (cylinder, DU40/35, DU30/25/21, NACA64)
#define PC_NA 91              // polar points an airfoil: alpha -30 .. 60 degrees, 1 degree apart
#define PC_A0 (-30.0f)
#define GW_TILE 256           // gauss_wake_map: turbines a tile (== blockDim.x * blockDim.y)
#define WR_SECT 36            // wind_rose_hist: direction sectors of 10 degrees, sector 0 centred on north
#define WR_BINS 60            // speed bins of 0.5 m/s (the last also holds everything above 29.5 m/s)
#define PW_RGAS 287.05f       // power_curve_energy: dry air's gas constant (J / kg K)
#define PW_RHO0 1.225f        // the reference air density
#define YS_NT 48              // yaw_search: turbines
#define YS_BLOCK 64           // blockDim.x
#define YS_NYAW 7             // yaw levels
#define YS_RHO 1.225f
#define YS_CP 0.45f           // power coefficient (unyawed)
#define YS_PP 1.88f           // power lost to yaw as cos(gamma)^YS_PP

// bem_solve's airfoil polars (set by the host): class c, alpha = PC_A0 + k degrees at c * PC_NA + k
__constant__ float c_cl[PC_AF * PC_NA];
__constant__ float c_cd[PC_AF * PC_NA];
// yaw_search's farm (set by the host): the turbines' positions (m; x downwind), the digit of
// the candidate index setting each one's yaw (-1: never yawed), the yaw levels (radians)
__constant__ float c_ys_x[YS_NT];
__constant__ float c_ys_y[YS_NT];
__constant__ int c_ys_slot[YS_NT];
__constant__ float c_ys_yaw[YS_NYAW];

// the wake a yawed turbine sheds (yaw_search)
struct WakeSrc {
    float x, y;     // the rotor's position
    float dct;      // the deficit behind the rotor, 1 - sqrt(1 - Ct cos^2 gamma)
    float defl;     // the Jimenez deflection far downstream, xi0 D / (2 k)
};

// lift and drag of airfoil class af at angle of attack alpha (radians), the table clamped at its ends
__device__ void polar(int af, float alpha, float *cl, float *cd) {
    float fx = alpha * (180.0f / PI_F) - PC_A0;
    if (fx < 0.0f) fx = 0.0f;
    if (fx > PC_NA - 1) fx = PC_NA - 1;
    int k = (int)fx;
    if (k > PC_NA - 2) k = PC_NA - 2;
    float w = fx - k;
    int j = af * PC_NA + k;
    *cl = c_cl[j] + w * (c_cl[j + 1] - c_cl[j]);
    *cd = c_cd[j] + w * (c_cd[j + 1] - c_cd[j]);
}

extern "C" {

// n operating points (wind speed U m/s, rotor speed omega rad/s, pitch rad) x BEM_NE blade
// elements (radius r, chord, twist rad, airfoil class): the converged induction factors a, ap,
// the normal and tangential loads pn, pt (N/m) and the iterations taken (BEM_MAXIT: not
// converged), element e of operating point op at op * BEM_NE + e
__global__ void bem_solve(const float *U, const float *omega, const float *pitch, const float *r,
                          const float *chord, const float *twist, const int *airfoil, float *a_out, float *ap_out,
                          float *pn, float *pt, int *iters, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * BEM_NE) return;
    int op = i / BEM_NE;
    int e = i % BEM_NE;
    float u = U[op];
    float om = omega[op];
    float theta = twist[e] + pitch[op];
    float re = r[e];
    float c = chord[e];
    int af = airfoil[e];
    float sigma = BEM_B * c / (2.0f * PI_F * re);      // local solidity
    float a = 0.0f;
    float ap = 0.0f;
    int it = 0;
    bool conv = false;
    while (!conv && it < BEM_MAXIT) {
        float phi = atan2f((1.0f - a) * u, (1.0f + ap) * om * re);   // inflow angle
        float cl, cd;
        polar(af, phi - theta, &cl, &cd);
        float s = sinf(phi);
        float co = cosf(phi);
        float cn = cl * co + cd * s;
        float ct = cl * s - cd * co;
        float ftip = 0.5f * BEM_B * (BEM_R - re) / (re * s);
        float fhub = 0.5f * BEM_B * (re - BEM_RHUB) / (BEM_RHUB * s);
        float F = (2.0f / PI_F) * acosf(expf(-ftip)) * (2.0f / PI_F) * acosf(expf(-fhub));
        float K = 4.0f * F * s * s / (sigma * cn);
        float an = 1.0f / (K + 1.0f);
        if (an > BEM_AC) {       // Glauert correction (Spera)
            float q = 2.0f + K * (1.0f - 2.0f * BEM_AC);
            an = 0.5f * (q - sqrtf(q * q + 4.0f * (K * BEM_AC * BEM_AC - 1.0f)));
        }
        float apn = 1.0f / (4.0f * F * s * co / (sigma * ct) - 1.0f);
        conv = fabsf(an - a) < BEM_TOL && fabsf(apn - ap) < BEM_TOL;
        a = an;
        ap = apn;
        it++;
    }
    float vx = (1.0f - a) * u;
    float vy = (1.0f + ap) * om * re;
    float phi = atan2f(vx, vy);
    float cl, cd;
    polar(af, phi - theta, &cl, &cd);
    float q = 0.5f * BEM_RHO * (vx * vx + vy * vy) * c;
    a_out[i] = a;
    ap_out[i] = ap;
    pn[i] = q * (cl * cosf(phi) + cd * sinf(phi));
    pt[i] = q * (cl * sinf(phi) - cd * cosf(phi));
    iters[i] = it;
}

// the wind speed at the nx x ny points (x0 + ix * dxy, y0 + iy * dxy) (row-major) of a farm of
// nt turbines (tx, ty m; thrust coefficients tct; diameter D) in a wind uinf blowing toward
// the angle wdir (radians from the x axis): Gaussian wakes of growth rate kstar, superposed
// as a root sum of squares (blockDim.x * blockDim.y == GW_TILE)
__global__ void gauss_wake_map(const float *tx, const float *ty, const float *tct, float *umap, int nt, float x0,
                               float y0, float dxy, int nx, int ny, float uinf, float wdir, float kstar, float D) {
    __shared__ float sx[GW_TILE];
    __shared__ float sy[GW_TILE];
    __shared__ float sct[GW_TILE];
    __shared__ float seps[GW_TILE];
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    float cw = cosf(wdir);
    float sw = sinf(wdir);
    float px = x0 + ix * dxy;
    float py = y0 + iy * dxy;
    float xs = px * cw + py * sw;           // downwind
    float ys = -px * sw + py * cw;          // crosswind
    float sum = 0.0f;
    for (int base = 0; base < nt; base += GW_TILE) {
        if (base + t < nt) {
            float X = tx[base + t];
            float Y = ty[base + t];
            float ct = tct[base + t];
            sx[t] = X * cw + Y * sw;
            sy[t] = -X * sw + Y * cw;
            sct[t] = ct;
            float beta = 0.5f * (1.0f + sqrtf(1.0f - ct)) / sqrtf(1.0f - ct);
            seps[t] = 0.2f * sqrtf(beta);  // the wake's initial width / D
        }
        __syncthreads();
        int m = min(GW_TILE, nt - base);
        for (int j = 0; j < m; j++) {
            float dx = xs - sx[j];
            if (dx > 0.0f) {
                float sd = kstar * dx / D + seps[j];          // sigma / D
                float C = 1.0f - sqrtf(fmaxf(1.0f - sct[j] / (8.0f * sd * sd), 0.0f));
                float dy = ys - sy[j];
                float d = C * expf(-dy * dy / (2.0f * sd * sd * D * D));
                sum += d * d;
            }
        }
        __syncthreads();
    }
    if (ix < nx && iy < ny) umap[iy * nx + ix] = uinf * (1.0f - sqrtf(sum));
}

// n records of wind speed (m/s; negative: an outage) and direction (degrees, 0 .. 360):
// hist[sector * WR_BINS + bin] += the records in each sector and speed bin, *n_bad += the
// outage records
__global__ void wind_rose_hist(const float *speed, const float *dir, unsigned int *hist, unsigned int *n_bad,
                               int n) {
    __shared__ unsigned int h[WR_SECT * WR_BINS];
    __shared__ unsigned int bad;
    for (int k = threadIdx.x; k < WR_SECT * WR_BINS; k += blockDim.x) h[k] = 0;
    if (threadIdx.x == 0) bad = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float v = speed[i];
        if (v < 0.0f) {
            atomicAdd(&bad, 1u);
            continue;
        }
        int s = (int)((dir[i] + 5.0f) / 10.0f);
        if (s >= WR_SECT) s -= WR_SECT;
        int b = (int)(v * 2.0f);
        if (b >= WR_BINS) b = WR_BINS - 1;
        atomicAdd(&h[s * WR_BINS + b], 1u);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < WR_SECT * WR_BINS; k += blockDim.x)
        if (h[k] > 0) atomicAdd(&hist[k], h[k]);
    if (threadIdx.x == 0 && bad > 0) atomicAdd(n_bad, bad);
}

// nrec 10-minute records a turbine (turbine w's at w * nrec: speed m/s, negative if missing;
// temperature K), the turbines' site pressure pres (Pa) and model; model m's power curve the
// points c_off[m] .. c_off[m + 1] - 1 of (c_v m/s ascending, c_p kW), its last the cut-out:
// power (kW) a record, energy[w] += the turbine's energy (kWh) (blockDim.x a multiple of 32)
__global__ void power_curve_energy(const float *speed, const float *temp, const float *pres, const int *model,
                                   const int *c_off, const float *c_v, const float *c_p, float *power,
                                   double *energy, int nrec) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int w = blockIdx.y;
    float P = 0.0f;
    if (t < nrec) {
        int i = w * nrec + t;
        float v = speed[i];
        if (v >= 0.0f) {
            float rho = pres[w] / (PW_RGAS * temp[i]);
            float vn = v * cbrtf(rho / PW_RHO0);            // IEC 61400-12-1 density normalisation
            int m = model[w];
            int lo = c_off[m];
            int hi = c_off[m + 1] - 1;
            if (vn >= c_v[lo] && vn < c_v[hi]) {
                while (hi - lo > 1) {                       // c_v[lo] <= vn < c_v[hi]
                    int mid = (lo + hi) / 2;
                    if (c_v[mid] <= vn)
                        lo = mid;
                    else
                        hi = mid;
                }
                float f = (vn - c_v[lo]) / (c_v[lo + 1] - c_v[lo]);
                P = c_p[lo] + f * (c_p[lo + 1] - c_p[lo]);
            }
        }
        power[i] = P;
    }
    double e = P / 6.0;                                     // kWh in 10 minutes
    for (int o = 16; o > 0; o >>= 1) e += __shfl_down_sync(0xffffffff, e, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(&energy[w], e);
}

// nt time samples (dt s apart) of the longitudinal wind at each point p of a grid with ny
// points a row (blockIdx.y the point): umean[row] + sum over the nf frequencies (k + 1) df of
// amp[row * nf + k] cos(2 pi f t + phase[p * nf + k]), at u[p * nt + j]
__global__ void kaimal_synth(const float *amp, const float *phase, const float *umean, float *u, int ny, int nf,
                             int nt, float dt, float df) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int p = blockIdx.y;
    if (j >= nt) return;
    int row = p / ny;
    float t = j * dt;
    float s = 0.0f;
    for (int k = 0; k < nf; k++) {
        float f = (k + 1) * df;
        s += amp[row * nf + k] * cosf(2.0f * PI_F * f * t + phase[p * nf + k]);
    }
    u[p * nt + j] = umean[row] + s;
}

// the farm's power (W) with each of ncand yaw settings (a block a setting, blockDim.x ==
// YS_BLOCK): free stream uinf, unyawed thrust coefficient ct0, wake growth kw, diameter D
__global__ void yaw_search(float *farm_power, float uinf, float ct0, float kw, float D, int ncand) {
    __shared__ WakeSrc src[YS_NT];
    __shared__ float red[YS_BLOCK];
    int t = threadIdx.x;
    int cand = blockIdx.x;
    float R = 0.5f * D;
    float gamma = 0.0f;
    if (t < YS_NT && cand < ncand) {
        int slot = c_ys_slot[t];
        if (slot >= 0) {
            int d = cand;
            for (int k = 0; k < slot; k++) d /= YS_NYAW;
            gamma = c_ys_yaw[d % YS_NYAW];
        }
        float cg = cosf(gamma);
        float xi0 = 0.5f * cg * cg * sinf(gamma) * ct0;   // Jimenez: the wake's initial skew angle
        src[t].x = c_ys_x[t];
        src[t].y = c_ys_y[t];
        src[t].dct = 1.0f - sqrtf(1.0f - ct0 * cg * cg);
        src[t].defl = xi0 * D / (2.0f * kw);
    }
    __syncthreads();
    float p = 0.0f;
    if (t < YS_NT && cand < ncand) {
        float xi = c_ys_x[t];
        float yi = c_ys_y[t];
        float sum = 0.0f;
        for (int j = 0; j < YS_NT; j++) {
            float dx = xi - src[j].x;
            if (dx <= 0.0f) continue;                       // not downwind of turbine j
            float grow = 1.0f + 2.0f * kw * dx / D;
            float rw = R * grow;                            // the wake's radius
            float yc = src[j].y + src[j].defl * (1.0f - 1.0f / grow);
            float d = fabsf(yi - yc);
            if (d >= rw + R) continue;                      // the wake misses the rotor
            float frac = 1.0f;                              // the rotor's area in the wake
            if (d > rw - R) {
                float c1 = (d * d + R * R - rw * rw) / (2.0f * d * R);
                float c2 = (d * d + rw * rw - R * R) / (2.0f * d * rw);
                float k4 = (-d + R + rw) * (d + R - rw) * (d - R + rw) * (d + R + rw);
                c1 = fminf(fmaxf(c1, -1.0f), 1.0f);         // (rounding near tangency)
                c2 = fminf(fmaxf(c2, -1.0f), 1.0f);
                float A = R * R * acosf(c1) + rw * rw * acosf(c2) - 0.5f * sqrtf(fmaxf(k4, 0.0f));
                frac = A / (PI_F * R * R);
            }
            float du = src[j].dct / (grow * grow) * frac;
            sum += du * du;
        }
        float ui = uinf * (1.0f - sqrtf(sum));
        p = 0.5f * YS_RHO * PI_F * R * R * YS_CP * ui * ui * ui * powf(cosf(gamma), YS_PP);
    }
    red[t] = p;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    if (t == 0 && cand < ncand) farm_power[cand] = red[0];
}

}
