// probe-unseen241: a coastal-engineering / ocean-wave mechanics course's CUDA assignments,
// as a student who knows CUDA basics hands them in (linear wave theory's dispersion
// relation, refraction over a real-looking coast, wave-by-wave and spectral analysis of
// buoy and model data, bedload transport and the Exner equation, a 20-year runup and
// overtopping hindcast, the seiches of a harbour basin):
//  - trace_rays: wave-ray refraction over a coastal bathymetry (a shelf, a Dean-profile
//    beach with a bar, a canyon, an offshore shoal, a headland), a thread a ray of one
//    spectral component: a 16-byte Ray struct, then up to RAY_MAXSTEP explicit-Euler steps
//    of ds: the depth and its gradient by bilinear interpolation of the grid (4 gathered
//    loads a step, data-dependent addresses), the dispersion relation w^2 = g k tanh(kh)
//    solved by Newton warm-started from the last step's k (a divergent loop of tanhf and a
//    divide), dc/dh by implicit differentiation, sincosf of the heading and the ray
//    equation dtheta/ds = -(1/c) dc/dn; a ray that reaches the breaking depth deposits its
//    energy flux into its shoreline bin by float atomicAdd (contended: neighbouring rays
//    land in the same 50 m bin, caustics pile them up); its end state as a float4;
//  - zero_crossing_stats: wave-by-wave (zero up-crossing) analysis of buoy records, a
//    block a record: the int16 (mm) record staged in shared memory (coalesced 2-byte
//    loads), the up-crossings found 256 samples at a time and compacted in order by
//    __ballot_sync / __popc within a warp and a __shfl_up_sync scan of the 8 warp counts
//    (two barriers a pass); then a thread a wave: its crest and trough by a loop over the
//    shared samples (divergent lengths), its period from the interpolated crossings (float
//    divides), a joint height-period histogram in shared memory (shared atomicAdd,
//    contended near the mode) flushed to the global scatter diagram (global atomicAdd onto
//    ~1200 bins from every block); Hmax, Hrms and Tz by __shfl_down_sync block reductions;
//  - spectral_params: the integrated parameters of a spectral wave model's output (a
//    SWAN-like 32-frequency x 36-direction variance density at every sea point), a warp a
//    grid point in a grid-stride loop: a template over (NF, ND) with #pragma unroll over
//    the frequencies, a lane a direction (lanes 0..3 take a second one: divergence), the
//    direction's cosine and sine from __constant__ tables at per-lane addresses, the 1D
//    spectrum by a 5-step __shfl_xor_sync sum a frequency, the moments m-1, m0, m1, m2,
//    Goda's peakedness and the discrete peak; the mean direction by atan2f and Kuik's
//    spreading, a 32-byte SeaParams struct from lane 0;
//  - exner_update: one morphological step of a surf zone's bed, a 32 x 8 block a tile: the
//    bedload vector of every tile cell and its 1-cell halo (recomputed by the neighbours)
//    into a shared float2 tile: the sediment class (uint8) indexing a __constant__ struct
//    table (d50, critical Shields number, porosity: per-lane constant addresses), Soulsby's
//    wave friction factor and combined wave-current stress (powf, logf, sqrtf), the Shields
//    number and Meyer-Peter Mueller's transport above the threshold (divergent: quiet
//    cells skip it), along the depth-averaged current (float2); a barrier; then the
//    divergence by central differences from shared memory and the Exner update of the
//    bed (hard bottom is not eroded);
//  - runup_overtopping: a 20-year hourly hindcast (Hs, Tp, direction, still water level:
//    16-byte SeaState structs) at a coast's transects, a 256-thread block a transect (its
//    Transect struct from a __constant__ table: one address a warp), the hours in a
//    block-stride loop: the obliquity factor, Stockdon's 2% runup and Donnelly's overwash
//    on beaches, EurOtop's depth-limited runup and mean overtopping discharge (expf,
//    powf(.., 1.3), sqrtf) at dikes (the branch uniform across the block); each hour's
//    overtopping volume summed in double, the impact hours counted by __ballot_sync /
//    __popc, the annual maxima of the total water level by shared atomicMax (all 32 lanes
//    on one year's word: serialised); the block's sums by __shfl_down_sync (double) and
//    shared memory;
//  - harbour_response: the seiche response of a harbour basin by modal superposition, a
//    thread a grid point and a blockIdx.y a forcing frequency: the basin's modes (16-byte
//    Mode structs) staged 64 at a time in shared memory (two barriers a chunk), then a
//    loop over them (#pragma unroll 4): the mode's broadcast shared load, its complex
//    transfer function at the block's frequency in double (w_n^2 - w^2 cancels near a
//    resonance: a double divide a mode and a thread, recomputed by every thread), the
//    mode shape at the point (a coalesced float load, mode-major rows) and two double
//    FMAs into the complex sum; |A| by a double sqrt, a float store a frequency at a time.

#define FULL_MASK 0xffffffffu
#define G 9.81f
#define PI_F 3.14159265358979f

#define RAY_MAXSTEP 4096        // trace_rays: steps a ray, at most
#define NEWTON_MAX 20           // Newton iterations a step, at most

#define ZC_THREADS 256          // zero_crossing_stats: blockDim.x
#define ZC_WARPS (ZC_THREADS / 32)
#define ZC_MAXN 4096            // samples a record, at most (staged in shared memory)
#define ZC_HB 48                // wave-height bins
#define ZC_TB 25                // period bins

#define SP_NF 32                // spectral_params: frequencies
#define SP_ND 36                // directions (10 degrees)

#define EX_TX 32                // exner_update: a tile's width (blockDim.x) ...
#define EX_TY 8                 // ... and height (blockDim.y)
#define EX_NCLASS 8             // sediment classes (0: hard bottom)
#define RHO_W 1025.0f           // sea water, kg/m^3
#define RHO_S 2650.0f           // quartz sand
#define HDRY 0.05f              // a cell shallower than this is dry

#define RO_THREADS 256          // runup_overtopping: blockDim.x
#define RO_WARPS (RO_THREADS / 32)
#define RO_MAXTR 512            // transects in the constant table, at most
#define RO_MAXYEARS 64          // years of hindcast, at most
#define HOURS_A_YEAR 8766       // 365.25 days
#define TR_BEACH 0
#define TR_DIKE 1
#define Q_IMPACT 0.001f         // 1 l/s a metre: EurOtop's limit for people on a promenade

#define HR_CHUNK 64             // harbour_response: modes staged in shared memory at a time

// trace_rays: a ray of one spectral component, launched at the offshore boundary (x = 0)
struct Ray {
    float y0;        // its start, m alongshore
    float theta0;    // its heading, radians from +x (onshore), counter-clockwise
    float omega;     // the component's angular frequency, rad/s
    float power;     // the energy flux it carries, W (E cg0 cos(theta0) times the ray spacing)
};

// spectral_params: a sea point's integrated parameters (SWAN's names)
struct SeaParams {
    float hm0;       // significant wave height 4 sqrt(m0), m
    float tm01;      // mean period m0 / m1, s
    float tm02;      // zero-crossing period sqrt(m0 / m2), s
    float tm_10;     // energy period m-1 / m0, s
    float tp;        // peak period (the discrete peak), s
    float dir;       // mean direction, nautical degrees (coming from)
    float spread;    // directional spreading (Kuik), degrees
    float qp;        // Goda's peakedness
};

// exner_update: a sediment class
struct Sediment {
    float d50;       // median grain size, m
    float theta_cr;  // critical Shields number (Soulsby-Whitehouse)
    float porosity;
    float erodible;  // 0: hard bottom (rock, revetment), 1: loose sediment
};

// runup_overtopping: an hour of the hindcast at the offshore point
struct SeaState {
    float hs;        // significant wave height, m
    float tp;        // peak period, s
    float dir;       // mean direction, nautical degrees (coming from)
    float swl;       // still water level (tide + surge + mean sea level), m above datum
};

// runup_overtopping: a transect of the coast
struct Transect {
    float normal;    // the direction waves come from to hit it square, nautical degrees
    float slope;     // tan: the beach's foreshore or the dike's seaward face
    float crest;     // dune or dike crest, m above datum
    float toe;       // dune toe (beach) or structure toe (dike), m above datum
    float gamma_f;   // roughness factor (1 smooth, ~0.5 rock armour)
    float shelter;   // the offshore Hs's share that reaches it (headlands, islands)
    int type;        // TR_BEACH or TR_DIKE
    int pad;
};

// harbour_response: a mode of the basin
struct Mode {
    float w2;        // its natural frequency squared, (rad/s)^2
    float damp;      // 2 zeta omega_n, rad/s
    float amp;       // its participation factor
    float pad;
};

// spectral_params: the frequencies (Hz), their bin widths (Hz), the directions' cos / sin
__constant__ float c_freq[SP_NF];
__constant__ float c_df[SP_NF];
__constant__ float c_cosd[SP_ND];
__constant__ float c_sind[SP_ND];
// exner_update: the sediment classes
__constant__ Sediment c_sed[EX_NCLASS];
// runup_overtopping: the coast's transects
__constant__ Transect c_tr[RO_MAXTR];

// ---------------------------------------------------------------- helpers

// the depth at grid coordinates (fx, fy) (0 <= fx <= nx - 1, 0 <= fy <= ny - 1) by
// bilinear interpolation, and its gradient (m a grid unit)
__device__ float depth_bilinear(const float *h, int nx, int ny, float fx, float fy, float *dhdx, float *dhdy) {
    int i = min((int)fx, nx - 2);
    int j = min((int)fy, ny - 2);
    float tx = fx - (float)i, ty = fy - (float)j;
    const float *p = h + (size_t)j * nx + i;
    float h00 = p[0], h10 = p[1], h01 = p[nx], h11 = p[nx + 1];
    float a = h10 - h00, b = h01 - h00, c = h11 - h10 - h01 + h00;
    *dhdx = a + c * ty;
    *dhdy = b + c * tx;
    return h00 + a * tx + b * ty + c * tx * ty;
}

// the bedload transport vector (m^2/s) of cell i
__device__ float2 bedload(const float *h, const float *uw, const float2 *u, const unsigned char *cls, size_t i,
                          float tp, float cw, float sw) {
    float2 q = make_float2(0.0f, 0.0f);
    float hh = h[i];
    Sediment s = c_sed[cls[i]];
    if (hh < HDRY || s.erodible == 0.0f) return q;
    float2 U = u[i];
    float um = sqrtf(U.x * U.x + U.y * U.y);
    if (um < 1e-6f) return q;                              // no current: no net bedload direction
    float d = s.d50;
    float z0 = d / 12.0f;                                  // Nikuradse roughness ks = 2.5 d50, z0 = ks / 30
    // the current's stress: a logarithmic profile's drag coefficient
    float cd = 0.40f / (logf(hh / z0) - 1.0f);
    cd *= cd;
    float tc = RHO_W * cd * um * um;
    // the waves' stress: Soulsby's friction factor of the orbital excursion
    float ub = uw[i];
    float tw = 0.0f;
    if (ub > 0.0f) {
        float A = ub * tp / (2.0f * PI_F);
        float fw = fminf(1.39f * powf(A / z0, -0.52f), 0.3f);
        tw = 0.5f * RHO_W * fw * ub * ub;
    }
    // Soulsby (1997): the mean stress of the combined flow and its maximum
    float tm = tc * (1.0f + 1.2f * powf(tw / (tc + tw), 3.2f));
    float cphi = (U.x * cw + U.y * sw) / um;               // the angle between the waves and the current
    float tmax = sqrtf(tm * tm + tw * tw + 2.0f * tm * tw * fabsf(cphi));
    float shields = tmax / ((RHO_S - RHO_W) * G * d);
    float ex = shields - s.theta_cr;
    if (ex <= 0.0f) return q;
    // Meyer-Peter Mueller, along the current
    float qb = 8.0f * ex * sqrtf(ex) * sqrtf((RHO_S / RHO_W - 1.0f) * G * d * d * d);
    q.x = qb * U.x / um;
    q.y = qb * U.y / um;
    return q;
}

// the integrated parameters of one point's spectrum S[NF][ND] (m^2/Hz/rad), a warp
template <int NF, int ND>
__device__ SeaParams integrate_spectrum(const float *S, int lane) {
    const float dth = 2.0f * PI_F / (float)ND;
    float m0 = 0.0f, m1 = 0.0f, m2 = 0.0f, mm1 = 0.0f, qp = 0.0f;
    float a = 0.0f, b = 0.0f;
    float emax = -1.0f;
    int ip = 0;
#pragma unroll
    for (int f = 0; f < NF; f++) {
        float e = 0.0f, ec = 0.0f, es = 0.0f;
        for (int d = lane; d < ND; d += 32) {
            float v = S[f * ND + d];
            e += v;
            ec += v * c_cosd[d];
            es += v * c_sind[d];
        }
        for (int o = 16; o > 0; o >>= 1) e += __shfl_xor_sync(FULL_MASK, e, o);
        float fr = c_freq[f], df = c_df[f];
        float E = e * dth;                                 // the 1D spectrum, m^2/Hz
        m0 += E * df;
        m1 += E * fr * df;
        m2 += E * fr * fr * df;
        mm1 += E * df / fr;
        qp += fr * E * E * df;
        a += ec * df;
        b += es * df;
        if (E > emax) {
            emax = E;
            ip = f;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(FULL_MASK, a, o);
        b += __shfl_xor_sync(FULL_MASK, b, o);
    }
    a *= dth;
    b *= dth;
    SeaParams r;
    if (m0 <= 0.0f) {                                      // land, or a calm
        r.hm0 = r.tm01 = r.tm02 = r.tm_10 = r.tp = r.dir = r.spread = r.qp = 0.0f;
        return r;
    }
    r.hm0 = 4.0f * sqrtf(m0);
    r.tm01 = m0 / m1;
    r.tm02 = sqrtf(m0 / m2);
    r.tm_10 = mm1 / m0;
    r.tp = 1.0f / c_freq[ip];
    float dir = atan2f(b, a) * (180.0f / PI_F);
    r.dir = dir < 0.0f ? dir + 360.0f : dir;
    float rr = fminf(sqrtf(a * a + b * b) / m0, 1.0f);
    r.spread = sqrtf(2.0f * (1.0f - rr)) * (180.0f / PI_F);
    r.qp = 2.0f * qp / (m0 * m0);
    return r;
}

extern "C" {

// ---------------------------------------------------------------- trace_rays

// nrays rays over the depth grid h (ny rows of nx, spacing dx; x = i dx onshore, y = j dx
// alongshore), steps of ds until the depth is under hmin (arrived: its power added to
// shore[y / binw]), the ray leaves the grid or RAY_MAXSTEP; end[i] = (x, y, theta, depth),
// steps[i] = the steps taken, negative if the ray did not arrive
__global__ void trace_rays(const Ray *rays, int nrays, const float *h, int nx, int ny, float dx, float ds,
                           float hmin, float binw, int nbins, float *shore, float4 *end, int *steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nrays) return;
    Ray r = rays[i];
    float x = 0.0f, y = r.y0, th = r.theta0;
    float w2 = r.omega * r.omega;
    float k = w2 / G;                                      // deep water, to start
    float xmax = (float)(nx - 1) * dx, ymax = (float)(ny - 1) * dx;
    float inv_dx = 1.0f / dx;
    float hh = 0.0f;
    int n, arrived = 0;
    for (n = 0; n < RAY_MAXSTEP; n++) {
        if (x < 0.0f || x > xmax || y < 0.0f || y > ymax) break;       // left the grid
        float hx, hy;
        hh = depth_bilinear(h, nx, ny, x * inv_dx, y * inv_dx, &hx, &hy);
        if (hh < hmin) {                                   // the breaking depth: arrived
            arrived = 1;
            break;
        }
        // w^2 = g k tanh(k h) by Newton from the last step's k
        for (int it = 0; it < NEWTON_MAX; it++) {
            float t = tanhf(k * hh);
            float f = G * k * t - w2;
            float fp = G * (t + k * hh * (1.0f - t * t));
            float dk = f / fp;
            k -= dk;
            if (fabsf(dk) <= 1e-6f * k) break;
        }
        float t = tanhf(k * hh);
        float sech2 = 1.0f - t * t;
        float dkdh = -k * k * sech2 / (t + k * hh * sech2);
        float c = r.omega / k;
        float dcdh = -c / k * dkdh;
        float sn, cs;
        sincosf(th, &sn, &cs);
        float dcdn = dcdh * (cs * hy - sn * hx) * inv_dx;  // along the ray's left normal
        x += ds * cs;
        y += ds * sn;
        th -= ds * dcdn / c;
    }
    if (arrived) {
        int b = min((int)(y / binw), nbins - 1);
        atomicAdd(&shore[b], r.power);
    }
    end[i] = make_float4(x, y, th, hh);
    steps[i] = arrived ? n : -n;
}

// ---------------------------------------------------------------- zero_crossing_stats

// records of ns int16 samples (mm, demeaned) at fs Hz, a block each: the zero up-crossing
// waves' joint histogram (height bins of hbin_mm, period bins of tbin s; the last bins
// open-ended) added to hist (ZC_HB x ZC_TB); per record the number of waves, Hmax (mm),
// Hrms (m) and the mean period Tz (s)
__global__ void zero_crossing_stats(const short *eta, int ns, float fs, int hbin_mm, float tbin, unsigned int *hist,
                                    int *nwaves, int *hmax, float *hrms, float *tz) {
    __shared__ short s_eta[ZC_MAXN];
    __shared__ int s_cross[ZC_MAXN / 2];
    __shared__ unsigned int s_hist[ZC_HB * ZC_TB];
    __shared__ int s_wcnt[ZC_WARPS];
    __shared__ int s_woff[ZC_WARPS];
    __shared__ int s_tot;
    __shared__ float s_h2[ZC_WARPS], s_t[ZC_WARPS];
    __shared__ int s_hm[ZC_WARPS];
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const short *rec = eta + (size_t)blockIdx.x * ns;
    for (int b = tid; b < ZC_HB * ZC_TB; b += ZC_THREADS) s_hist[b] = 0u;
    for (int s = tid; s < ns; s += ZC_THREADS) s_eta[s] = rec[s];
    __syncthreads();
    // the up-crossings (eta[s-1] < 0 <= eta[s]), compacted in order
    int ncross = 0;
    for (int c = 0; c < ns; c += ZC_THREADS) {
        int s = c + tid;
        bool up = s >= 1 && s < ns && s_eta[s - 1] < 0 && s_eta[s] >= 0;
        unsigned int m = __ballot_sync(FULL_MASK, up);
        if (lane == 0) s_wcnt[warp] = __popc(m);
        __syncthreads();
        if (warp == 0) {
            int v = lane < ZC_WARPS ? s_wcnt[lane] : 0;
            int incl = v;
            for (int o = 1; o < ZC_WARPS; o <<= 1) {
                int u = __shfl_up_sync(FULL_MASK, incl, o);
                if (lane >= o) incl += u;
            }
            if (lane < ZC_WARPS) s_woff[lane] = incl - v;
            if (lane == ZC_WARPS - 1) s_tot = incl;
        }
        __syncthreads();
        if (up) s_cross[ncross + s_woff[warp] + __popc(m & ((1u << lane) - 1u))] = s;
        ncross += s_tot;
    }
    __syncthreads();
    // a thread a wave: from one up-crossing to the next
    int nw = max(ncross - 1, 0);
    int my_hmax = 0;
    float my_h2 = 0.0f, my_t = 0.0f;
    for (int j = tid; j < nw; j += ZC_THREADS) {
        int a = s_cross[j], b = s_cross[j + 1];
        int hi = s_eta[a], lo = s_eta[a];
        for (int s = a + 1; s < b; s++) {
            int v = s_eta[s];
            hi = max(hi, v);
            lo = min(lo, v);
        }
        int H = hi - lo;
        float e0 = (float)s_eta[a - 1], e1 = (float)s_eta[a];
        float ta = (float)(a - 1) + e0 / (e0 - e1);
        float f0 = (float)s_eta[b - 1], f1 = (float)s_eta[b];
        float tb = (float)(b - 1) + f0 / (f0 - f1);
        float T = (tb - ta) / fs;
        int hb = min(H / hbin_mm, ZC_HB - 1);
        int tbn = min((int)(T / tbin), ZC_TB - 1);
        atomicAdd(&s_hist[hb * ZC_TB + tbn], 1u);
        float Hm = (float)H * 0.001f;
        my_h2 += Hm * Hm;
        my_t += T;
        my_hmax = max(my_hmax, H);
    }
    __syncthreads();
    for (int b = tid; b < ZC_HB * ZC_TB; b += ZC_THREADS) {
        unsigned int v = s_hist[b];
        if (v != 0u) atomicAdd(&hist[b], v);
    }
    for (int o = 16; o > 0; o >>= 1) {
        my_h2 += __shfl_down_sync(FULL_MASK, my_h2, o);
        my_t += __shfl_down_sync(FULL_MASK, my_t, o);
        my_hmax = max(my_hmax, __shfl_down_sync(FULL_MASK, my_hmax, o));
    }
    if (lane == 0) {
        s_h2[warp] = my_h2;
        s_t[warp] = my_t;
        s_hm[warp] = my_hmax;
    }
    __syncthreads();
    if (tid == 0) {
        float h2 = 0.0f, t = 0.0f;
        int hm = 0;
        for (int w = 0; w < ZC_WARPS; w++) {
            h2 += s_h2[w];
            t += s_t[w];
            hm = max(hm, s_hm[w]);
        }
        nwaves[blockIdx.x] = nw;
        hmax[blockIdx.x] = hm;
        hrms[blockIdx.x] = nw > 0 ? sqrtf(h2 / (float)nw) : 0.0f;
        tz[blockIdx.x] = nw > 0 ? t / (float)nw : 0.0f;
    }
}

// ---------------------------------------------------------------- spectral_params

// spec: npts points of SP_NF x SP_ND variance densities (m^2/Hz/rad; the frequencies and
// directions in the constant tables), a warp a point
__global__ void spectral_params(const float *spec, int npts, SeaParams *out) {
    int lane = threadIdx.x & 31;
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int nwarps = (gridDim.x * blockDim.x) >> 5;
    for (int p = warp; p < npts; p += nwarps) {
        SeaParams r = integrate_spectrum<SP_NF, SP_ND>(spec + (size_t)p * SP_NF * SP_ND, lane);
        if (lane == 0) out[p] = r;
    }
}

// ---------------------------------------------------------------- exner_update

// one morphological step dtm (s, the morphological factor included) of the bed zb (ny
// rows of nx cells of dx x dy m): the bedload of every cell from its depth h, its
// significant orbital velocity uw (waves of period tp, heading (cw, sw) = (cos, sin) from
// +x), its current u and its sediment class; zb_out = zb - dtm / (1 - porosity) div q
// (central differences, zero-gradient edges; hard bottom not lowered)
__global__ void exner_update(const float *h, const float *uw, const float2 *u, const unsigned char *cls,
                             const float *zb, int nx, int ny, float dx, float dy, float tp, float cw, float sw,
                             float dtm, float *zb_out) {
    __shared__ float2 s_q[EX_TY + 2][EX_TX + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * EX_TX + tx;
    int i0 = blockIdx.x * EX_TX - 1, j0 = blockIdx.y * EX_TY - 1;
    for (int e = tid; e < (EX_TX + 2) * (EX_TY + 2); e += EX_TX * EX_TY) {
        int li = e % (EX_TX + 2), lj = e / (EX_TX + 2);
        int gi = min(max(i0 + li, 0), nx - 1);
        int gj = min(max(j0 + lj, 0), ny - 1);
        s_q[lj][li] = bedload(h, uw, u, cls, (size_t)gj * nx + gi, tp, cw, sw);
    }
    __syncthreads();
    int i = i0 + 1 + tx, j = j0 + 1 + ty;
    if (i >= nx || j >= ny) return;
    float div = (s_q[ty + 1][tx + 2].x - s_q[ty + 1][tx].x) / (2.0f * dx) +
                (s_q[ty + 2][tx + 1].y - s_q[ty][tx + 1].y) / (2.0f * dy);
    size_t c = (size_t)j * nx + i;
    Sediment s = c_sed[cls[c]];
    float dz = -dtm / (1.0f - s.porosity) * div;
    if (s.erodible == 0.0f && dz < 0.0f) dz = 0.0f;
    zb_out[c] = zb[c] + dz;
}

// ---------------------------------------------------------------- runup_overtopping

// block t: transect c_tr[t] under nhours hourly sea states: vol[t] = the overtopping (or
// overwash) volume, m^3 a metre; r2max[t] the highest 2% runup, m; nimpact[t] the hours
// with the dune toe reached (beaches) or over 1 l/s/m overtopping (dikes); annmax[t][y]
// the highest total water level (swl + runup) of year y, mm
__global__ void runup_overtopping(const SeaState *ss, int nhours, int nyears, double *vol, float *r2max,
                                  int *nimpact, int *annmax) {
    __shared__ int s_ann[RO_MAXYEARS];
    __shared__ double s_vol[RO_WARPS];
    __shared__ float s_r2[RO_WARPS];
    __shared__ int s_n[RO_WARPS];
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    Transect tr = c_tr[blockIdx.x];
    for (int y = tid; y < nyears; y += RO_THREADS) s_ann[y] = -1000000;
    __syncthreads();
    double my_vol = 0.0;
    float my_r2 = 0.0f;
    int my_n = 0;
    float sq_slope = sqrtf(tr.slope);
    for (int base = 0; base < nhours; base += RO_THREADS) {
        int hr = base + tid;
        bool valid = hr < nhours;
        float q = 0.0f, r2 = 0.0f, twl = 0.0f;
        bool impact = false;
        if (valid) {
            SeaState s = ss[hr];
            twl = s.swl;
            float rel = s.dir - tr.normal;                 // the angle of incidence, -180 .. 180
            rel -= 360.0f * floorf((rel + 180.0f) / 360.0f);
            float hs = s.hs * tr.shelter;
            if (fabsf(rel) < 90.0f && hs > 0.05f) {
                float gb = 1.0f - 0.0033f * fminf(fabsf(rel), 80.0f);
                if (tr.type == TR_BEACH) {
                    // Stockdon et al. (2006), the deep-water wavelength of Tp
                    float hl = hs * G * s.tp * s.tp / (2.0f * PI_F);
                    float b = tr.slope;
                    r2 = gb * 1.1f * (0.35f * b * sqrtf(hl) + 0.5f * sqrtf(hl * (0.563f * b * b + 0.004f)));
                    twl = s.swl + r2;
                    if (twl > tr.crest) {                  // overwash (Donnelly et al. 2006)
                        float e = twl - tr.crest;
                        q = 0.51f * sqrtf(G) * e * sqrtf(e);
                    }
                    impact = twl > tr.toe;
                } else {
                    float depth = s.swl - tr.toe;
                    if (depth > 0.0f) {
                        // EurOtop (2018): the depth-limited Hm0 at the toe, Tm-1,0 = Tp / 1.1
                        float hm0 = fminf(hs, 0.55f * depth);
                        float tm = s.tp / 1.1f;
                        float lm = G * tm * tm / (2.0f * PI_F);
                        float xi = tr.slope / sqrtf(hm0 / lm);
                        float gfb = tr.gamma_f * gb;
                        r2 = hm0 * fminf(1.65f * gfb * xi, gfb * (4.0f - 1.5f / sqrtf(xi)));
                        twl = s.swl + r2;
                        float rc = fmaxf(tr.crest - s.swl, 0.0f);
                        float q1 = 0.023f / sq_slope * xi * expf(-powf(2.7f * rc / (xi * hm0 * gfb), 1.3f));
                        float q2 = 0.09f * expf(-powf(1.5f * rc / (hm0 * gfb), 1.3f));
                        q = sqrtf(G * hm0 * hm0 * hm0) * fminf(q1, q2);
                        impact = q > Q_IMPACT;
                    }
                }
            }
            my_vol += (double)q * 3600.0;
            my_r2 = fmaxf(my_r2, r2);
            atomicMax(&s_ann[hr / HOURS_A_YEAR], __float2int_rn(twl * 1000.0f));
        }
        unsigned int m = __ballot_sync(FULL_MASK, valid && impact);
        if (lane == 0) my_n += __popc(m);
    }
    for (int o = 16; o > 0; o >>= 1) {
        my_vol += __shfl_down_sync(FULL_MASK, my_vol, o);
        my_r2 = fmaxf(my_r2, __shfl_down_sync(FULL_MASK, my_r2, o));
    }
    if (lane == 0) {
        s_vol[warp] = my_vol;
        s_r2[warp] = my_r2;
        s_n[warp] = my_n;
    }
    __syncthreads();
    if (tid == 0) {
        double v = 0.0;
        float r = 0.0f;
        int n = 0;
        for (int w = 0; w < RO_WARPS; w++) {
            v += s_vol[w];
            r = fmaxf(r, s_r2[w]);
            n += s_n[w];
        }
        vol[blockIdx.x] = v;
        r2max[blockIdx.x] = r;
        nimpact[blockIdx.x] = n;
    }
    for (int y = tid; y < nyears; y += RO_THREADS) annmax[blockIdx.x * nyears + y] = s_ann[y];
}

// ---------------------------------------------------------------- harbour_response

// phi: nmodes rows of npts mode-shape values; omega: the forcing frequencies (rad/s), one a
// blockIdx.y; amp[w][p] = |sum over modes of phi_m(p) a_m H_m(omega_w)|, H_m(w) = w_m^2 /
// (w_m^2 - w^2 + i 2 zeta_m w_m w), in double (w_m^2 - w^2 cancels near a resonance)
__global__ void harbour_response(const float *phi, const Mode *modes, int nmodes, int npts, const float *omega,
                                 float *amp) {
    __shared__ Mode s_m[HR_CHUNK];
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    double om = (double)omega[blockIdx.y];
    double om2 = om * om;
    double re = 0.0, im = 0.0;
    for (int m0 = 0; m0 < nmodes; m0 += HR_CHUNK) {
        int mc = min(HR_CHUNK, nmodes - m0);
        __syncthreads();                                   // the last chunk's modes are used up
        if (threadIdx.x < mc) s_m[threadIdx.x] = modes[m0 + threadIdx.x];
        __syncthreads();
        if (p < npts) {
            const float *ph = phi + (size_t)m0 * npts + p;
#pragma unroll 4
            for (int m = 0; m < mc; m++) {
                Mode md = s_m[m];
                double w2 = (double)md.w2;
                double dr = w2 - om2;
                double di = (double)md.damp * om;
                double s = (double)md.amp * w2 / (dr * dr + di * di);
                double f = (double)ph[(size_t)m * npts] * s;
                re += f * dr;
                im -= f * di;
            }
        }
    }
    if (p < npts) amp[(size_t)blockIdx.y * npts + p] = (float)sqrt(re * re + im * im);
}

}
