// probe-unseen240: a tribology / contact-mechanics course's CUDA assignments, as a student
// who knows CUDA basics hands them in (rough surfaces measured by a white-light
// interferometer, Greenwood-Williamson asperity contact, a textured journal bearing's
// Reynolds equation, Hertzian contact checked by boundary elements, a pin-on-disc wear map,
// a fretting rig with LuGre friction):
//  - asperity_summits: the summits of a measured rough surface (a height map in um, periodic
//    as the FFT-filtered surface is), a 32 x 8 tile a block staged in shared memory with a
//    1-point halo (wrapped by %), a point a thread: its height into a shared 64-bin
//    histogram (the surface's height distribution: contended shared atomics), the 8-point
//    summit test against its neighbours, the summit's mean curvature from the 5-point
//    Laplacian; the warp's summits compacted by __ballot_sync / __popc (one global
//    atomicAdd a warp, the base by __shfl_sync) into float4 (x, y, z, kappa) records and
//    their heights into a second shared histogram; the block's bins added to the global ones;
//  - gw_load_separation: the Greenwood-Williamson load-separation curve, a block a
//    (separation, chunk of the summit list): a block-stride loop over float2 (height,
//    radius) summits, the ones above the separation adding the Hertz load sqrt(R) w^1.5
//    (sqrtf) and the contact area R w in double, and a count (divergent by height); sums
//    reduced by __shfl_down_sync (double and int) and a shared partial a warp, then the
//    block's totals (times 4/3 E* and pi) added by double / int atomicAdd;
//  - reynolds_rb_sor: one red-black SOR half-sweep of a misaligned, laser-textured
//    journal bearing's Reynolds equation (dimensionless, periodic in theta, p = 0 at both
//    ends, double precision pressure, float film), a thread a node of the colour (stride 2
//    across a row: half-used sectors), the H^3 coefficients at the four half nodes, a
//    double divide, the Reynolds (Swift-Stieber) cavitation condition p >= 0 and the
//    largest change: __shfl_xor_sync max of doubles in a warp, one atomicMax on the
//    double's bits (a positive double orders as its unsigned long long) a warp;
//  - boussinesq_deflection: the elastic surface deflection of a Hertzian ball-on-flat
//    contact by Love's influence coefficients (uniform pressure on a square panel), a block
//    16 x 16 target nodes against a group of SRC_TILES source tiles (blockIdx.z), each
//    tile's 16 x 16 pressures staged in shared memory, tiles without pressure skipped by
//    __syncthreads_or, a templated unrolled row of 16 sources: a broadcast shared load and
//    a gathered influence coefficient from the symmetric n x n table (|di|, |dj|); the
//    block's partial deflections added by float atomicAdd;
//  - pin_on_disc_wear: the wear map of a pin-on-disc test stepped through five sliding
//    speeds, a grid-stride loop over the asperity micro-contacts (24-byte AoS records), each
//    contact's flash temperature (Tian-Kennedy: sqrtf of the Peclet number term), its wear
//    regime (mild, Quinn's oxidational with an Arrhenius expf, severe: divergent) as a byte,
//    its Archard wear volume added by float atomicAdd to a shared polar map (16 radii x
//    360 degrees; a warp's contacts in one snapshot of the pin: contended), the block's map
//    added to the global map where nonzero; material constants in a __constant__ struct;
//  - lugre_fretting: a fretting map, a thread a test (stroke amplitude x normal load, the
//    specimen's friction coefficients: a 16-byte struct): a spring-driven specimen against
//    a flat with LuGre friction, c_lg.nsteps semi-implicit Euler steps of a 50 Hz stroke
//    (sincosf of the drive, the Stribeck curve by expf, the bristles' relaxation over the
//    step by a second expf, divides), the rig's constants from a __constant__ struct; the
//    cycle's dissipated energy, the peak friction force and the steps in gross slip (an
//    unsigned short) stored.

#define FULL_MASK 0xffffffffu
#define PI_F 3.14159265358979f

#define AS_TX 32                // asperity_summits: a tile's width (blockDim.x: a warp a row)
#define AS_TY 8                 // its height (blockDim.y)
#define HBINS 64                // height histogram bins
#define GW_THREADS 256          // gw_load_separation: blockDim.x
#define RB_TX 64                // reynolds_rb_sor: blockDim.x (nodes of the colour along theta)
#define RB_TY 4                 // blockDim.y (axial rows)
#define BT 16                   // boussinesq_deflection: a block's targets / a source panel, a side
#define SRC_TILES 2             // source panels a block (blockIdx.z: the group)
#define NANG 360                // pin_on_disc_wear: angular bins of the wear map (1 degree)
#define NRAD 16                 // radial bins across the track
#define SLIP_FRAC 0.95f         // lugre_fretting: bristles past 95% of the Stribeck limit: gross slip

// pin_on_disc_wear: an asperity micro-contact of the pin on the disc
struct MicroContact {
    float r;        // radius on the disc (mm)
    float theta;    // angle on the disc (rad, [0, 2 pi))
    float load;     // normal load it carries (N)
    float a;        // its contact radius (um)
    float mu;       // its friction coefficient
    float v;        // sliding speed (m/s)
};

// pin_on_disc_wear: materials and the map's geometry (set by the host)
struct WearParams {
    float k_th;     // thermal conductivity (W / m K)
    float kappa;    // thermal diffusivity (m^2 / s)
    float beta;     // share of the frictional heat into the disc
    float t_bulk;   // bulk temperature (K)
    float t_ox;     // oxidational wear from this flash temperature (K) ...
    float t_sev;    // ... severe wear from this one
    float k_mild;   // Archard coefficients: mild ...
    float a_ox;     // ... Quinn's oxidational K = a_ox exp(-q_ox / T) ...
    float q_ox;     // (activation energy over R, K)
    float k_sev;    // ... severe
    float inv_hard; // 1 / hardness (1 / Pa)
    float r_in;     // the map's inner radius (mm)
    float inv_dr;   // radial bins a mm
};
__constant__ WearParams c_wear;

// lugre_fretting: one fretting test's specimen
struct Slider {
    float amp;      // the actuator's stroke amplitude (m)
    float fn;       // normal load (N)
    float mus;      // static friction coefficient
    float muc;      // Coulomb friction coefficient
};

// lugre_fretting: the rig and the LuGre parameters (per unit normal load; set by the host)
struct LuGre {
    float sigma0;   // bristle stiffness (1 / m)
    float sigma1;   // bristle damping (s / m)
    float sigma2;   // viscous friction (s / m)
    float vs;       // Stribeck velocity (m / s)
    float inv_mass; // 1 / the moving mass (1 / kg)
    float k;        // the drive's stiffness (N / m)
    float c;        // the drive's damping (N s / m)
    float dt;       // time step (s)
    float omega;    // the stroke's angular frequency (rad / s)
    int nsteps;
};
__constant__ LuGre c_lg;

// ---------------------------------------------------------------- helpers

// boussinesq_deflection: a row of T sources in shared memory against the influence row krow
// (the coefficient of a source k columns from the target: krow[|off - k|])
template <int T>
__device__ float panel_row(const float *sp, const float *krow, int off) {
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < T; k++) s += sp[k] * krow[abs(off - k)];
    return s;
}

__device__ double warp_max_d(double v) {
    for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(FULL_MASK, v, o));
    return v;
}

extern "C" {

// ---------------------------------------------------------------- asperity_summits

// z: ny rows of nx heights (um, periodic; nx a multiple of AS_TX, ny of AS_TY), spacing dx
// (um). Heights binned from zlo at 1 / inv_bw a bin (clamped) into hist_all; summits
// (higher than all 8 neighbours) stored as (x, y, z, kappa) into summit[0 .. cap) (*nsummit
// counts them all) and their heights into hist_sum; kappa = -(z_xx + z_yy) / 2 (1 / um)
__global__ void asperity_summits(const float *z, int nx, int ny, float dx, float inv_dx2, float zlo, float inv_bw,
                                 float4 *summit, int cap, int *nsummit, unsigned int *hist_all,
                                 unsigned int *hist_sum) {
    __shared__ float t[AS_TY + 2][AS_TX + 2];
    __shared__ unsigned int h_all[HBINS];
    __shared__ unsigned int h_sum[HBINS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * AS_TX + tx;
    if (tid < HBINS) {
        h_all[tid] = 0;
        h_sum[tid] = 0;
    }
    int x0 = blockIdx.x * AS_TX, y0 = blockIdx.y * AS_TY;
    for (int k = tid; k < (AS_TY + 2) * (AS_TX + 2); k += AS_TX * AS_TY) {
        int ly = k / (AS_TX + 2), lx = k % (AS_TX + 2);
        int gx = (x0 + lx - 1 + nx) % nx;
        int gy = (y0 + ly - 1 + ny) % ny;
        t[ly][lx] = z[(size_t)gy * nx + gx];
    }
    __syncthreads();
    float c = t[ty + 1][tx + 1];
    int b = (int)((c - zlo) * inv_bw);
    b = min(max(b, 0), HBINS - 1);
    atomicAdd(&h_all[b], 1u);
    bool peak = true;
#pragma unroll
    for (int dy = -1; dy <= 1; dy++) {
#pragma unroll
        for (int dx_ = -1; dx_ <= 1; dx_++) {
            if (dy != 0 || dx_ != 0) {
                if (!(c > t[ty + 1 + dy][tx + 1 + dx_])) peak = false;
            }
        }
    }
    unsigned int m = __ballot_sync(FULL_MASK, peak);
    if (m != 0) {                                            // warp-uniform
        int base = 0;
        if (tx == 0) base = atomicAdd(nsummit, __popc(m));
        base = __shfl_sync(FULL_MASK, base, 0);
        if (peak) {
            float lap = t[ty + 1][tx] + t[ty + 1][tx + 2] + t[ty][tx + 1] + t[ty + 2][tx + 1] - 4.0f * c;
            float kappa = -0.5f * lap * inv_dx2;
            int k = base + __popc(m & ((1u << tx) - 1u));
            if (k < cap) summit[k] = make_float4((float)(x0 + tx) * dx, (float)(y0 + ty) * dx, c, kappa);
            atomicAdd(&h_sum[b], 1u);
        }
    }
    __syncthreads();
    if (tid < HBINS) {
        if (h_all[tid] != 0) atomicAdd(&hist_all[tid], h_all[tid]);
        if (h_sum[tid] != 0) atomicAdd(&hist_sum[tid], h_sum[tid]);
    }
}

// ---------------------------------------------------------------- gw_load_separation

// asp: nasp summits (height um, radius um); block (s, c): separation d = d0 + s dd against
// summits [c chunk, (c + 1) chunk): load[s] += 4/3 E* sum sqrt(R) w^1.5 (uN, E* in MPa),
// area[s] += pi sum R w (um^2), ncontact[s] += the count, w = z - d > 0
__global__ void gw_load_separation(const float2 *asp, int nasp, int chunk, float d0, float dd, float estar,
                                   double *load, double *area, int *ncontact) {
    __shared__ double s_p[GW_THREADS / 32];
    __shared__ double s_a[GW_THREADS / 32];
    __shared__ int s_n[GW_THREADS / 32];
    float d = d0 + dd * (float)blockIdx.x;
    int beg = blockIdx.y * chunk;
    int end = min(nasp, beg + chunk);
    double sp = 0.0, sa = 0.0;
    int cnt = 0;
    for (int i = beg + threadIdx.x; i < end; i += blockDim.x) {
        float2 s = asp[i];
        float w = s.x - d;
        if (w > 0.0f) {
            sp += (double)(w * sqrtf(s.y * w));
            sa += (double)(s.y * w);
            cnt++;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        sp += __shfl_down_sync(FULL_MASK, sp, o);
        sa += __shfl_down_sync(FULL_MASK, sa, o);
        cnt += __shfl_down_sync(FULL_MASK, cnt, o);
    }
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    if (lane == 0) {
        s_p[wid] = sp;
        s_a[wid] = sa;
        s_n[wid] = cnt;
    }
    __syncthreads();
    if (wid == 0) {
        int nw = blockDim.x >> 5;
        sp = lane < nw ? s_p[lane] : 0.0;
        sa = lane < nw ? s_a[lane] : 0.0;
        cnt = lane < nw ? s_n[lane] : 0;
        for (int o = 16; o > 0; o >>= 1) {
            sp += __shfl_down_sync(FULL_MASK, sp, o);
            sa += __shfl_down_sync(FULL_MASK, sa, o);
            cnt += __shfl_down_sync(FULL_MASK, cnt, o);
        }
        if (lane == 0 && cnt > 0) {
            atomicAdd(&load[blockIdx.x], (4.0 / 3.0) * (double)estar * sp);
            atomicAdd(&area[blockIdx.x], 3.141592653589793 * sa);
            atomicAdd(&ncontact[blockIdx.x], cnt);
        }
    }
}

// ---------------------------------------------------------------- reynolds_rb_sor

// p: nz rows of nth pressures (row 0 and nz - 1 the bearing's ends: p = 0; periodic in
// theta, nth even), h: the film (same shape); the nodes with (i + j) % 2 == colour updated:
// d/dth (H^3 dP/dth) + alpha d/dj (H^3 dP/dj) = 3 dth (H[i+1] - H[i-1]) by SOR (omega),
// clamped at 0; *maxdp = max |change| (as the double's bits)
__global__ void reynolds_rb_sor(double *p, const float *h, int nth, int nz, double dth, double alpha, double omega,
                                int colour, unsigned long long *maxdp) {
    int k = blockIdx.x * RB_TX + threadIdx.x;
    int j = blockIdx.y * RB_TY + threadIdx.y + 1;
    double dp = 0.0;
    if (k < nth / 2 && j < nz - 1) {
        int i = 2 * k + ((j + colour) & 1);
        int ie = i + 1 == nth ? 0 : i + 1;
        int iw = i == 0 ? nth - 1 : i - 1;
        size_t row = (size_t)j * nth;
        double hc = h[row + i];
        double he = h[row + ie], hw = h[row + iw];
        double hn = h[row + nth + i], hs = h[row - nth + i];
        double ae = 0.125 * (hc + he) * (hc + he) * (hc + he);
        double aw = 0.125 * (hc + hw) * (hc + hw) * (hc + hw);
        double an = alpha * 0.125 * (hc + hn) * (hc + hn) * (hc + hn);
        double as = alpha * 0.125 * (hc + hs) * (hc + hs) * (hc + hs);
        double rhs = 3.0 * dth * (he - hw);
        double pold = p[row + i];
        double pgs = (ae * p[row + ie] + aw * p[row + iw] + an * p[row + nth + i] + as * p[row - nth + i] - rhs) /
                     (ae + aw + an + as);
        double pnew = pold + omega * (pgs - pold);
        if (pnew < 0.0) pnew = 0.0;                          // cavitation: no sub-ambient pressure
        p[row + i] = pnew;
        dp = fabs(pnew - pold);
    }
    dp = warp_max_d(dp);
    if ((threadIdx.y * RB_TX + threadIdx.x) % 32 == 0 && dp > 0.0)
        atomicMax(maxdp, (unsigned long long)__double_as_longlong(dp));
}

// ---------------------------------------------------------------- boussinesq_deflection

// p: n x n panel pressures (MPa; n a multiple of BT, n / BT of SRC_TILES), kern: the n x n
// influence coefficients (um / MPa) of a panel |di|, |dj| panels away; u (zeroed) += the
// deflection (um) by the SRC_TILES source panels of block z (in row-major panel order)
__global__ void boussinesq_deflection(const float *p, const float *kern, int n, float *u) {
    __shared__ float s_p[BT][BT];
    int tx = threadIdx.x, ty = threadIdx.y;
    int ix = blockIdx.x * BT + tx;
    int iy = blockIdx.y * BT + ty;
    int nt = n / BT;                                         // panels a side
    float acc = 0.0f;
    for (int s = 0; s < SRC_TILES; s++) {
        int tile = blockIdx.z * SRC_TILES + s;
        int sy0 = (tile / nt) * BT, sx0 = (tile % nt) * BT;
        float pv = p[(size_t)(sy0 + ty) * n + sx0 + tx];
        s_p[ty][tx] = pv;
        int any = __syncthreads_or(pv != 0.0f);              // a panel outside the contact: skipped
        if (any) {
            for (int ky = 0; ky < BT; ky++) {
                const float *krow = kern + (size_t)abs(iy - sy0 - ky) * n;
                acc += panel_row<BT>(s_p[ky], krow, ix - sx0);
            }
        }
        __syncthreads();
    }
    if (acc != 0.0f) atomicAdd(&u[(size_t)iy * n + ix], acc);
}

// ---------------------------------------------------------------- pin_on_disc_wear

// mc: n micro-contacts; regime[i] = 0 mild, 1 oxidational, 2 severe (by the flash
// temperature); wear (NRAD x NANG, um^3) += each contact's Archard volume K W (2 a) / H
__global__ void pin_on_disc_wear(const MicroContact *mc, int n, unsigned char *regime, float *wear) {
    __shared__ float s_w[NRAD * NANG];
    for (int k = threadIdx.x; k < NRAD * NANG; k += blockDim.x) s_w[k] = 0.0f;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        MicroContact e = mc[i];
        float a = e.a * 1e-6f;                                   // m
        float q = e.mu * e.load * e.v / (PI_F * a * a);         // the mean frictional heat flux (W / m^2)
        float pe = e.v * a / (2.0f * c_wear.kappa);              // Peclet number
        float dT = c_wear.beta * 2.0f * q * a / (c_wear.k_th * sqrtf(PI_F * (1.273f + pe)));
        float tf = c_wear.t_bulk + dT;
        float K;
        unsigned char reg;
        if (tf < c_wear.t_ox) {
            K = c_wear.k_mild;
            reg = 0;
        } else if (tf < c_wear.t_sev) {
            K = c_wear.a_ox * expf(-c_wear.q_ox / tf);
            reg = 1;
        } else {
            K = c_wear.k_sev;
            reg = 2;
        }
        regime[i] = reg;
        float dv = K * e.load * (2.0f * e.a) * c_wear.inv_hard * 1e12f;   // um^3
        int ia = (int)(e.theta * (NANG / (2.0f * PI_F)));
        ia = min(ia, NANG - 1);
        int ir = (int)((e.r - c_wear.r_in) * c_wear.inv_dr);
        ir = min(max(ir, 0), NRAD - 1);
        atomicAdd(&s_w[ir * NANG + ia], dv);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < NRAD * NANG; k += blockDim.x) {
        float w = s_w[k];
        if (w != 0.0f) atomicAdd(&wear[k], w);
    }
}

// ---------------------------------------------------------------- lugre_fretting

// sl: n tests; each from rest through c_lg.nsteps steps: energy[i] = the friction's work
// (J), fpeak[i] = max |F| (N), nslip[i] = the steps in gross slip
__global__ void lugre_fretting(const Slider *sl, int n, float *energy, float *fpeak, unsigned short *nslip) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Slider s = sl[i];
    float x = 0.0f, v = 0.0f, zb = 0.0f;
    float work = 0.0f, fmx = 0.0f;
    int slip = 0;
    for (int k = 0; k < c_lg.nsteps; k++) {
        float sn, cs;
        sincosf(c_lg.omega * ((float)k * c_lg.dt), &sn, &cs);
        float xd = s.amp * sn;
        float vd = s.amp * c_lg.omega * cs;
        float r = v / c_lg.vs;
        float g = s.muc + (s.mus - s.muc) * expf(-r * r);      // the Stribeck curve
        // the bristles relax towards their steady state over the step (exact for a frozen v)
        float zss = (v >= 0.0f ? g : -g) / c_lg.sigma0;
        float decay = expf(-c_lg.sigma0 * fabsf(v) * c_lg.dt / g);
        float znew = zss + (zb - zss) * decay;
        float zdot = (znew - zb) / c_lg.dt;
        float f = s.fn * (c_lg.sigma0 * znew + c_lg.sigma1 * zdot + c_lg.sigma2 * v);
        float acc = (c_lg.k * (xd - x) + c_lg.c * (vd - v) - f) * c_lg.inv_mass;
        v += acc * c_lg.dt;
        x += v * c_lg.dt;
        zb = znew;
        work += f * v * c_lg.dt;
        fmx = fmaxf(fmx, fabsf(f));
        if (c_lg.sigma0 * fabsf(zb) > SLIP_FRAC * g) slip++;
    }
    energy[i] = work;
    fpeak[i] = fmx;
    nslip[i] = (unsigned short)slip;
}

}  // extern "C"
