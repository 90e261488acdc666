// probe-unseen203: a nuclear-reactor physics (neutron transport, depletion and reactor noise)
// course's CUDA assignments, as a student who knows CUDA basics hands them in:
//  - delta_track: Woodcock delta tracking of source neutrons in an infinite lattice of 17 x 17
//    PWR fuel assemblies (a C5G7-like 7-group library, the materials' cross sections, the
//    groups' majorants, the scattering's outgoing-group CDFs and the assembly's pin map in
//    __constant__ memory), a thread a neutron from its birth in a fuel pin until it is
//    absorbed: flights sampled on the group's majorant (-logf of a xorshift64* uniform), the
//    position wrapped into the assembly (floorf), the pin cell and fuel-or-moderator by the
//    pin's radius, the collision real with probability Sigma_t / majorant, then absorption
//    or scattering (the new group from the CDF by a linear search, a new isotropic
//    direction); absorptions and fission neutrons tallied a pin cell in shared memory by
//    float atomicAdd, merged into the global tally by a block; each neutron's real collisions
//    (16-bit) and fate stored, the fates counted a warp by __ballot_sync and __popc;
//  - track_tally: the track-length estimator of a 2-group mesh flux tally over a PWR core, a
//    grid-stride loop over a generation's flight segments (36-byte structs with an 8-bit
//    group), each clipped to the mesh box (slabs, fminf / fmaxf) and walked cell by cell by a
//    3-D DDA (Amanatides-Woo), weight x length added into each cell crossed by a global
//    float atomicAdd; the mesh a struct passed by value;
//  - cram_deplete: a 30-day depletion step of many burnup regions (a thread a region) by the
//    16th-order Chebyshev rational approximation (CRAM-16, Pusa's partial-fraction poles and
//    residues in an initialised __constant__ table), the 23-nuclide chain (actinides from
//    U-234 to Cm-244, I-135 / Xe-135, Pm-149 / Sm-149, Nd-148) ordered so that the burnup
//    matrix is lower triangular: each pole's complex shifted solve a forward substitution
//    over the chain's links (decays, captures, fission yields, from __constant__ structs) in
//    double precision, the complex numbers as (re, im) pairs in per-thread local arrays;
//  - rossi_hist: the Rossi-alpha distribution of a subcritical assembly's list-mode
//    detections (64-bit nanosecond timestamps, an 8-bit detector channel): a grid-stride
//    loop over trigger events, each scanning the following events until the window's end,
//    the lag of every pair from two different detectors binned by a shift (2048 ns bins) into
//    a block's shared-memory histogram by int atomicAdd, merged by global atomicAdd;
//  - fm_power: one power-iteration step of a 3-D fission matrix (CSR, float) of a PWR core's
//    mesh, a warp a row: the lanes striding over the row's entries, gathering the fission
//    source, a __shfl_down_sync reduction, the row's new source / k stored and summed into the
//    next k's numerator by a double atomicAdd a row;
//  - scatter_source: the multigroup (32 groups) scattering and fission source of a
//    method-of-characteristics solver's flat-source regions, blocks of 8 regions x 32 groups:
//    the regions' fluxes staged in shared memory, the fission rate a region by a
//    __shfl_xor_sync butterfly over its warp's groups, then a thread a (region, group): the
//    region's material (16-bit id, a depletion zone a pin) selects its 32 x 32 scattering
//    matrix (columns coalesced across the lanes) summed against the shared fluxes, plus chi
//    (in __constant__) times the fission rate / k.

#define DT_NG 7                 // delta_track: energy groups
#define DT_NMAT 4               // UO2, guide tube, fission chamber, moderator
#define DT_MOD 3                // the moderator's material index
#define DT_NPIN 17              // pins along an assembly's side
#define DT_PITCH 1.26f          // pin pitch (cm)
#define DT_RF 0.54f             // fuel radius (cm)
#define DT_MAXEV 20000          // events (real and virtual collisions) before a history is given up
#define TT_NG 2                 // track_tally: groups
#define BU_NN 23                // cram_deplete: nuclides of the chain
#define BU_NL 36                // links (decays, captures, fission yields)
#define BU_NPOLE 8              // CRAM-16: 8 conjugate pole pairs
#define BU_ALPHA0 2.1248537104952237488e-16
#define RA_NB 256               // rossi_hist: bins
#define RA_SHIFT 11             // a bin is 2^11 ns
#define SS_G 32                 // scatter_source: groups (a warp a region)
#define SS_CELLS 8              // regions a block

// ---- delta_track's library (set by the host) ----
__constant__ float c_dt_sigt[DT_NMAT * DT_NG];          // total (1/cm)
__constant__ float c_dt_siga[DT_NMAT * DT_NG];          // absorption
__constant__ float c_dt_nusf[DT_NMAT * DT_NG];          // nu fission
__constant__ float c_dt_cdf[DT_NMAT * DT_NG * DT_NG];   // scattering from g: the CDF of the new group
__constant__ float c_dt_maj[DT_NG];                     // each group's majorant (max over materials)
__constant__ unsigned char c_dt_pin[DT_NPIN * DT_NPIN]; // a pin position's material (0 fuel, 1 GT, 2 FC)

// ---- cram_deplete: Pusa's CRAM-16 poles and residues (one of each conjugate pair) ----
__constant__ double c_theta_re[BU_NPOLE] = {-1.0843917078696988026e+1, -5.2649713434426468895e+0,
                                            +5.9481522689511774808e+0, +3.5091036084149180974e+0,
                                            +6.4161776990994341923e+0, +1.4193758971856659786e+0,
                                            +4.9931747377179963991e+0, -1.4139284624888862114e+0};
__constant__ double c_theta_im[BU_NPOLE] = {+1.9277446167181652284e+1, +1.6220221473167927305e+1,
                                            +3.5874573620183222829e+0, +8.4361989858843750826e+0,
                                            +1.1941223933701386874e+0, +1.0925363484496722585e+1,
                                            +5.9968817136039422260e+0, +1.3497725698892745389e+1};
__constant__ double c_alpha_re[BU_NPOLE] = {-5.0901521865224915650e-7, +2.1151742182466030907e-4,
                                            +1.1339775178483930527e+2, +1.5059585270023467528e+1,
                                            -6.4500878025539646595e+1, -1.4793007113557999718e+0,
                                            -6.2518392463207918892e+1, +4.1023136835410021273e-2};
__constant__ double c_alpha_im[BU_NPOLE] = {-2.4220017652852287970e-5, +4.3892969647380673918e-3,
                                            +1.0194721704215856450e+2, -5.7514052776421819979e+0,
                                            -2.2459440762652096056e+2, +1.7686588323782937906e+0,
                                            -1.1190391094283228480e+1, -1.5743466173455468191e-1};

// a nuclide of the chain: decay constant (1/s), one-group absorption and fission cross
// sections (barns)
struct Nuclide {
    double lambda;
    float sig_a;
    float sig_f;
};

// a link of the chain: from -> to by decay (kind 0), capture (1) or fission (2), with a
// branching ratio or a fission yield; sorted by to, each to after its from
struct Link {
    int from;
    int to;
    int kind;
    float frac;
};

__constant__ Nuclide c_nuc[BU_NN];
__constant__ Link c_link[BU_NL];

// ---- track_tally ----

// a flight segment of a Monte Carlo generation (36 bytes)
struct Track {
    float x, y, z;          // start (cm)
    float u, v, w;          // direction
    float len;              // length (cm)
    float wgt;              // weight
    unsigned char group;    // 0 fast, 1 thermal
};

// a regular mesh: its low corner, cell sizes and cells along each axis
struct Mesh {
    float x0, y0, z0;
    float dx, dy, dz;
    int nx, ny, nz;
};

// ---- scatter_source ----
__constant__ float c_chi[SS_G];                         // the fission spectrum

// xorshift64*: a uniform float in (0, 1) from the state's top 23 bits
__device__ float rnd(unsigned long long *s) {
    unsigned long long x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return ((float)((x * 2685821657736338717ull) >> 41) + 0.5f) * (1.0f / 8388608.0f);
}

// splitmix64: seeds each thread's stream
__device__ unsigned long long mix64(unsigned long long z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

extern "C" {

// n source neutrons at (sx, sy) in group sg (an assembly's coordinates, 0 .. 17 pitches);
// pin_abs[cell] += absorptions, pin_fis[cell] += nu Sigma_f / Sigma_a of each absorption (the
// pin cells of the assembly, row by row); ncoll[i] real collisions, fate[i] 1 captured in a
// non-fissile material, 2 absorbed in a fissile one, 3 given up; counts[fate - 1] += 1
__global__ void delta_track(const float *sx, const float *sy, const unsigned char *sg, unsigned long long seed,
                            float *pin_abs, float *pin_fis, unsigned short *ncoll, unsigned char *fate,
                            int *counts, int n) {
    __shared__ float s_abs[DT_NPIN * DT_NPIN];
    __shared__ float s_fis[DT_NPIN * DT_NPIN];
    for (int k = threadIdx.x; k < DT_NPIN * DT_NPIN; k += blockDim.x) {
        s_abs[k] = 0.0f;
        s_fis[k] = 0.0f;
    }
    __syncthreads();
    const float W = DT_NPIN * DT_PITCH;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int f = 0;
    if (i < n) {
        unsigned long long s = mix64(seed + i);
        float x = sx[i], y = sy[i];
        int g = sg[i];
        float mu = 2.0f * rnd(&s) - 1.0f;
        float ang = 6.2831853f * rnd(&s);
        float sn = sqrtf(1.0f - mu * mu);
        float ux = sn * cosf(ang), uy = sn * sinf(ang);
        int nc = 0;
        f = 3;
        for (int ev = 0; ev < DT_MAXEV; ev++) {
            float d = -logf(rnd(&s)) / c_dt_maj[g];
            x += d * ux;
            y += d * uy;
            x -= W * floorf(x / W);             // the lattice repeats: back into the assembly
            y -= W * floorf(y / W);
            int px = min((int)(x / DT_PITCH), DT_NPIN - 1);
            int py = min((int)(y / DT_PITCH), DT_NPIN - 1);
            float dx = x - (px + 0.5f) * DT_PITCH;
            float dy = y - (py + 0.5f) * DT_PITCH;
            int cell = py * DT_NPIN + px;
            int m = DT_MOD;
            if (dx * dx + dy * dy < DT_RF * DT_RF) m = c_dt_pin[cell];
            float st = c_dt_sigt[m * DT_NG + g];
            if (rnd(&s) * c_dt_maj[g] >= st) continue;     // a virtual collision
            nc++;
            float sa = c_dt_siga[m * DT_NG + g];
            if (rnd(&s) * st < sa) {                       // absorbed
                float nuf = c_dt_nusf[m * DT_NG + g];
                atomicAdd(&s_abs[cell], 1.0f);
                if (nuf > 0.0f) {
                    atomicAdd(&s_fis[cell], nuf / sa);
                    f = 2;
                } else {
                    f = 1;
                }
                break;
            }
            float u = rnd(&s);                             // scattered: the new group
            int gn = 0;
            while (gn < DT_NG - 1 && u >= c_dt_cdf[(m * DT_NG + g) * DT_NG + gn]) gn++;
            g = gn;
            mu = 2.0f * rnd(&s) - 1.0f;
            ang = 6.2831853f * rnd(&s);
            sn = sqrtf(1.0f - mu * mu);
            ux = sn * cosf(ang);
            uy = sn * sinf(ang);
        }
        ncoll[i] = (unsigned short)nc;
        fate[i] = (unsigned char)f;
    }
    unsigned int cap = __ballot_sync(0xffffffff, f == 1);
    unsigned int fis = __ballot_sync(0xffffffff, f == 2);
    unsigned int lost = __ballot_sync(0xffffffff, f == 3);
    if ((threadIdx.x & 31) == 0) {
        if (cap) atomicAdd(&counts[0], __popc(cap));
        if (fis) atomicAdd(&counts[1], __popc(fis));
        if (lost) atomicAdd(&counts[2], __popc(lost));
    }
    __syncthreads();
    for (int k = threadIdx.x; k < DT_NPIN * DT_NPIN; k += blockDim.x) {
        if (s_abs[k] > 0.0f) {
            atomicAdd(&pin_abs[k], s_abs[k]);
            atomicAdd(&pin_fis[k], s_fis[k]);
        }
    }
}

// n flight segments; flux[(g * nz + k) * ny * nx + j * nx + i] += wgt x the length of each
// segment's part in cell (i, j, k) of the mesh (parts outside the mesh not scored)
__global__ void track_tally(const Track *tr, Mesh m, float *flux, int n) {
    int ncell = m.nx * m.ny * m.nz;
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n; t += blockDim.x * gridDim.x) {
        Track a = tr[t];
        float dir[3] = {a.u, a.v, a.w};
        float p[3] = {a.x, a.y, a.z};
        float lo[3] = {m.x0, m.y0, m.z0};
        float h[3] = {m.dx, m.dy, m.dz};
        int nn[3] = {m.nx, m.ny, m.nz};
        // clip [0, len] to the box by its three slabs
        float t0 = 0.0f, t1 = a.len;
        for (int k = 0; k < 3; k++) {
            float hi = lo[k] + nn[k] * h[k];
            if (dir[k] != 0.0f) {
                float ta = (lo[k] - p[k]) / dir[k];
                float tb = (hi - p[k]) / dir[k];
                t0 = fmaxf(t0, fminf(ta, tb));
                t1 = fminf(t1, fmaxf(ta, tb));
            } else if (p[k] < lo[k] || p[k] >= hi) {
                t1 = -1.0f;
            }
        }
        if (t0 >= t1) continue;                 // misses the mesh
        // the cell at the entry point (the midpoint's side of a face) and the DDA's state
        int c[3], step[3];
        float tmax[3], tdel[3];
        float tm = t0 + 0.5f * fminf(t1 - t0, 1e-3f);
        for (int k = 0; k < 3; k++) {
            c[k] = (int)floorf((p[k] + tm * dir[k] - lo[k]) / h[k]);
            c[k] = max(0, min(c[k], nn[k] - 1));
            if (dir[k] > 0.0f) {
                step[k] = 1;
                tmax[k] = (lo[k] + (c[k] + 1) * h[k] - p[k]) / dir[k];
                tdel[k] = h[k] / dir[k];
            } else if (dir[k] < 0.0f) {
                step[k] = -1;
                tmax[k] = (lo[k] + c[k] * h[k] - p[k]) / dir[k];
                tdel[k] = -h[k] / dir[k];
            } else {
                step[k] = 0;
                tmax[k] = 1e30f;
                tdel[k] = 1e30f;
            }
        }
        float tc = t0;
        int base = a.group * ncell;
        while (tc < t1) {
            int k = 0;                          // the axis whose face comes first
            if (tmax[1] < tmax[k]) k = 1;
            if (tmax[2] < tmax[k]) k = 2;
            float tn = fminf(tmax[k], t1);
            if (tn > tc)
                atomicAdd(&flux[base + (c[2] * m.ny + c[1]) * m.nx + c[0]], a.wgt * (tn - tc));
            tc = tn;
            c[k] += step[k];
            tmax[k] += tdel[k];
            if (c[k] < 0 || c[k] >= nn[k]) break;
        }
    }
}

// n regions: n0[r * BU_NN ..] the number densities (atoms / b cm) at the step's start, phi[r]
// the one-group flux (n / cm^2 s), dt the step (s); n1 the densities at its end by CRAM-16;
// frate[r] the fission rate density at the start (fissions / cm^3 s)
__global__ void cram_deplete(const double *n0, const float *phi, double dt, double *n1, float *frate, int n) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    double N0[BU_NN], acc[BU_NN], dg[BU_NN], xr[BU_NN], xi[BU_NN], a[BU_NL];
    double fdt = (double)phi[r] * 1e-24 * dt;       // barns x flux x dt
    double fr = 0.0;
    for (int i = 0; i < BU_NN; i++) {
        N0[i] = n0[r * BU_NN + i];
        dg[i] = -(c_nuc[i].lambda * dt + c_nuc[i].sig_a * fdt);   // the matrix's diagonal x dt
        acc[i] = BU_ALPHA0 * N0[i];
        fr += c_nuc[i].sig_f * N0[i];
    }
    for (int l = 0; l < BU_NL; l++) {               // the off-diagonal entries x dt
        Link k = c_link[l];
        if (k.kind == 0)
            a[l] = k.frac * c_nuc[k.from].lambda * dt;
        else if (k.kind == 1)
            a[l] = k.frac * (c_nuc[k.from].sig_a - c_nuc[k.from].sig_f) * fdt;
        else
            a[l] = k.frac * c_nuc[k.from].sig_f * fdt;
    }
    for (int p = 0; p < BU_NPOLE; p++) {
        double tr = c_theta_re[p], ti = c_theta_im[p];
        int l = 0;
        for (int i = 0; i < BU_NN; i++) {           // (A dt - theta) x = N0, forward
            double br = N0[i], bi = 0.0;
            while (l < BU_NL && c_link[l].to == i) {
                int j = c_link[l].from;
                br -= a[l] * xr[j];
                bi -= a[l] * xi[j];
                l++;
            }
            double dr = dg[i] - tr, di = -ti;       // (br + i bi) / (dr + i di)
            double den = dr * dr + di * di;
            xr[i] = (br * dr + bi * di) / den;
            xi[i] = (bi * dr - br * di) / den;
        }
        double ar = c_alpha_re[p], ai = c_alpha_im[p];
        for (int i = 0; i < BU_NN; i++) acc[i] += 2.0 * (ar * xr[i] - ai * xi[i]);
    }
    for (int i = 0; i < BU_NN; i++) n1[r * BU_NN + i] = acc[i];
    frate[r] = (float)(fr * phi[r]);                // (barns x atoms / b cm) x flux
}

// n detections in time order: t[i] (ns), ch[i] the detector; hist[b] += the pairs (i < j) of
// different detectors with t[j] - t[i] in [b, b + 1) x 2^RA_SHIFT ns
__global__ void rossi_hist(const unsigned long long *t, const unsigned char *ch, unsigned int *hist, int n) {
    __shared__ unsigned int s_h[RA_NB];
    for (int b = threadIdx.x; b < RA_NB; b += blockDim.x) s_h[b] = 0;
    __syncthreads();
    const unsigned long long window = (unsigned long long)RA_NB << RA_SHIFT;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned long long t0 = t[i];
        unsigned char c0 = ch[i];
        for (int j = i + 1; j < n; j++) {
            unsigned long long lag = t[j] - t0;
            if (lag >= window) break;
            if (ch[j] != c0) atomicAdd(&s_h[lag >> RA_SHIFT], 1u);
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < RA_NB; b += blockDim.x) {
        if (s_h[b]) atomicAdd(&hist[b], s_h[b]);
    }
}

// one power iteration: snew[row] = sum over the row's entries of F[row][col] s[col] / k, for
// nrows rows of a CSR matrix; *total += the new source's sum
__global__ void fm_power(const int *rowptr, const int *col, const float *val, const float *s, float inv_k,
                         float *snew, double *total, int nrows) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= nrows) return;
    float sum = 0.0f;
    for (int j = rowptr[row] + lane; j < rowptr[row + 1]; j += 32) sum += val[j] * s[col[j]];
    for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffff, sum, off);
    if (lane == 0) {
        float y = sum * inv_k;
        snew[row] = y;
        atomicAdd(total, (double)y);
    }
}

// ncell regions: phi[c * SS_G + g] the scalar flux, mat[c] the material; sig_s[(m * SS_G +
// gp) * SS_G + g] material m's scattering from gp to g, nu_sig_f[m * SS_G + g];
// q[c * SS_G + g] = sum over gp of sig_s(gp -> g) phi[gp] + chi[g] / k sum of nu_sig_f phi
__global__ void scatter_source(const float *phi, const unsigned short *mat, const float *sig_s,
                               const float *nu_sig_f, float inv_k, float *q, int ncell) {
    __shared__ float s_phi[SS_CELLS][SS_G];
    int g = threadIdx.x;
    int lc = threadIdx.y;
    int c = blockIdx.x * SS_CELLS + lc;
    int m = 0;
    float fis = 0.0f;
    if (c < ncell) {
        m = mat[c];
        s_phi[lc][g] = phi[c * SS_G + g];
        fis = nu_sig_f[m * SS_G + g] * s_phi[lc][g];
    } else {
        s_phi[lc][g] = 0.0f;
    }
    for (int off = 16; off > 0; off >>= 1) fis += __shfl_xor_sync(0xffffffff, fis, off);
    __syncthreads();
    if (c < ncell) {
        float src = c_chi[g] * fis * inv_k;
        const float *S = sig_s + (size_t)m * SS_G * SS_G;
        for (int gp = 0; gp < SS_G; gp++) src += S[gp * SS_G + g] * s_phi[lc][gp];
        q[c * SS_G + g] = src;
    }
}

}
