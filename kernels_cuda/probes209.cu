// probe-unseen207: a medical-physics / radiation-therapy dose-calculation course's CUDA
// assignments, as a student who knows CUDA basics hands them in:
//  - siddon_drr: a digitally reconstructed radiograph by Siddon's ray tracing (Jacobs'
//    incremental form) through a 16-bit CT volume, a thread a detector pixel (2-D blocks):
//    the ray from the point source to the pixel clipped to the volume (the parametric
//    entry / exit by fminf / fmaxf), the next plane crossing of each axis in small local
//    arrays, then voxel by voxel: the smallest crossing, the voxel of the segment's midpoint
//    (floorf), its HU read by a gathered 16-bit load and turned into a relative electron
//    density by linear interpolation in a __constant__ calibration table (indexed by the
//    voxel: the lanes' indices differ), the density times the length summed; the
//    radiological path length stored, and the DRR's 16-bit intensity by expf; the geometry a
//    __constant__ struct;
//  - pencil_beam: the dose of an IMRT photon field by a pencil-beam kernel, a thread a voxel:
//    the open beamlets (12-byte structs: position and weight) staged a block's worth at a time
//    in shared memory between two __syncthreads, each one within 3 sigma of the voxel adding
//    its weight times a Gaussian (expf; sigma grows with the voxel's water-equivalent depth),
//    the sum scaled by the depth dose interpolated in a __constant__ table;
//  - mc_photon: Monte Carlo photon transport in a voxel phantom (8-bit material ids), a
//    thread a photon history: the energy drawn from a 6 MV spectrum's CDF in __constant__
//    memory by a linear search, a xorshift32 stream seeded by Wang's hash, Woodcock
//    tracking on the majorant (-logf of a uniform, log10f for the energy grid), the real
//    collisions photoelectric (absorbed) or Compton (Kahn's rejection sampling of
//    Klein-Nishina: a divergent loop; the new direction by sqrtf, cosf, sinf), the
//    electrons' energy deposited where they are set moving by global float atomicAdds into
//    the dose grid (contended along the beam's axis); the beam a struct passed by value;
//    the energy that escapes and the interaction count (8-bit) stored a photon;
//  - dvh_hist: dose-volume histograms of a prostate plan's 8 structures (an 8-bit mask a
//    voxel, a bit a structure, overlapping), a grid-stride loop over the dose grid: the
//    structures of a voxel by __ffs and m &= m - 1, a 0.1 Gy bin counted by a shared
//    atomicAdd into the block's 8 x 1000 histogram (the target's few bins: contended), each
//    structure's dose sum (double) and maximum kept in per-thread local arrays, reduced by
//    __shfl_down_sync and added by a double atomicAdd / an atomicMax on the float's bits;
//    the shared histograms merged by global atomicAdds;
//  - gamma_2d: the 2-D gamma index of portal-dosimetry images against the planned dose
//    (3% / 2 mm, global, a 10% low-dose threshold), 16 x 16 tiles a block (blockIdx.z the
//    image): the reference tile and its 16-pixel halo staged in shared memory, __syncthreads,
//    then every pixel over threshold searches the disc of radius 16 pixels (2 DTA) for the smallest
//    squared gamma (fminf, sqrtf at the end), the pass and evaluated counts by
//    __ballot_sync and __popc, added a warp by global atomicAdds;
//  - fluence_grad: one gradient step's work in fluence-map optimisation, a thread a voxel of
//    a CSR dose-influence matrix: the voxel's dose by a gathered dot product with the
//    beamlet weights, its organ's (8-bit id) dose-volume objective (a __constant__ struct
//    table of minimum / maximum doses and weights), for a voxel out of bounds its squared
//    violation in double and the gradient's terms added into each beamlet by global float
//    atomicAdds (~1000 beamlets: contended), the objective summed a warp by
//    __shfl_down_sync and a double atomicAdd.

// ---- siddon_drr ----
#define HU_OFF 1024             // HU -1024 is the calibration table's first point
#define HU_LUT_N 257            // a point every HU_STEP HU: -1024 .. 3072
#define HU_STEP 16.0f

struct DrrGeom {
    float src[3];               // the source (mm, the volume's corner at 0)
    float det0[3];              // detector pixel (0, 0)'s centre
    float du[3];                // from a pixel to the next along a row
    float dv[3];                // ... along a column
    float vox[3];               // voxel size (mm)
    int dim[3];                 // voxels (x fastest)
    int nu;                     // detector pixels a row
    int nv;                     // rows
    float mu_w;                 // water's attenuation (1/mm) for the DRR's intensity
};

__constant__ DrrGeom c_drr;
__constant__ float c_hu_rho[HU_LUT_N];

// ---- pencil_beam ----
#define PB_TILE 256             // beamlets staged at a time (the block's threads)
#define PB_IDD_N 400            // depth-dose table: a point a mm of water, 0 .. 399 mm
#define PB_CUT 3.0f             // beamlets beyond 3 sigma are skipped
#define INV_PI 0.318309886f

struct Beamlet {
    float x;                    // the beamlet's axis in the beam's eye view (mm)
    float z;
    float w;                    // its weight (fluence)
};

__constant__ float c_idd[PB_IDD_N];

// ---- mc_photon ----
#define MC_NMAT 4               // air, lung, soft tissue, bone
#define MC_NE 31                // energy grid: log10(E / MeV) from -2 to 1, 10 points a decade
#define MC_NSPEC 24             // spectrum bins
#define MC_ECUT 0.01f           // photons below 10 keV are absorbed where they are
#define MC_MAXSTEP 2000         // flights (real and virtual) before a history is given up
#define MEC2 0.511f             // electron rest energy (MeV)
#define TWO_PI 6.28318531f

struct McBeam {
    float src[3];               // the point source (mm)
    float iso[3];               // the isocentre (the field's centre)
    float field;                // the square field's side at the isocentre (mm)
    float vox;                  // the phantom's voxel size (mm)
    int dim[3];                 // voxels
    unsigned int seed;
};

__constant__ float c_mu[MC_NMAT][MC_NE];    // linear attenuation (1/mm)
__constant__ float c_mumax[MC_NE];          // the majorant over the materials
__constant__ float c_pe[MC_NMAT][MC_NE];    // photoelectric fraction of mu
__constant__ float c_spec_cdf[MC_NSPEC];    // the spectrum's CDF (the last 1)
__constant__ float c_spec_e[MC_NSPEC];      // its bins' energies (MeV)

// ---- dvh_hist ----
#define DVH_NS 8                // structures (mask bits)
#define DVH_NB 1000             // bins (the last one takes everything above)

// ---- gamma_2d ----
#define GM_T 16                 // tile side (blockDim.x = blockDim.y)
#define GM_R 16                 // search radius (pixels): 2 DTA
#define GM_S (GM_T + 2 * GM_R)  // the staged tile's side

// ---- fluence_grad ----
#define FG_NORG 8               // organ ids

struct ObjTerm {
    float dmin;                 // Gy: below it, w_under x (dmin - d)^2
    float dmax;                 // above it, w_over x (d - dmax)^2
    float w_under;
    float w_over;
};

__constant__ ObjTerm c_obj[FG_NORG];

__device__ unsigned int wang_hash(unsigned int x) {
    x = (x ^ 61u) ^ (x >> 16);
    x *= 9u;
    x = x ^ (x >> 4);
    x *= 0x27d4eb2du;
    x = x ^ (x >> 15);
    return x;
}

__device__ float rnd(unsigned int &s) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return ((s >> 9) + 0.5f) * (1.0f / 8388608.0f);
}

extern "C" {

// ct[(k * dim[1] + j) * dim[0] + i] in HU; rpl[v * nu + u] the ray's water-equivalent length
// (mm), drr[v * nu + u] 65535 exp(-mu_w rpl)
__global__ void siddon_drr(const short *ct, float *rpl, unsigned short *drr) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    int v = blockIdx.y * blockDim.y + threadIdx.y;
    if (u >= c_drr.nu || v >= c_drr.nv) return;
    float s[3], d[3], anext[3], astep[3];
    for (int a = 0; a < 3; a++) {
        s[a] = c_drr.src[a];
        d[a] = c_drr.det0[a] + u * c_drr.du[a] + v * c_drr.dv[a] - s[a];
    }
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    // where the ray is inside the volume: alpha in [amin, amax]
    float amin = 0.0f, amax = 1.0f;
    for (int a = 0; a < 3; a++) {
        float hi = c_drr.dim[a] * c_drr.vox[a];
        if (fabsf(d[a]) > 1e-6f) {
            float a0 = -s[a] / d[a];
            float a1 = (hi - s[a]) / d[a];
            amin = fmaxf(amin, fminf(a0, a1));
            amax = fminf(amax, fmaxf(a0, a1));
        } else if (s[a] <= 0.0f || s[a] >= hi) {
            amax = -1.0f;                    // parallel to the planes, outside the volume
        }
    }
    float sum = 0.0f;
    if (amin < amax) {
        // the first plane each axis crosses after amin, and the alpha between two planes
        for (int a = 0; a < 3; a++) {
            if (fabsf(d[a]) > 1e-6f) {
                astep[a] = c_drr.vox[a] / fabsf(d[a]);
                float x = (s[a] + amin * d[a]) / c_drr.vox[a];
                float p = d[a] > 0.0f ? floorf(x) + 1.0f : ceilf(x) - 1.0f;
                anext[a] = (p * c_drr.vox[a] - s[a]) / d[a];
            } else {
                astep[a] = 1e30f;
                anext[a] = 1e30f;
            }
        }
        float ac = amin;
        while (ac < amax) {
            float an = fminf(fminf(anext[0], anext[1]), fminf(anext[2], amax));
            float am = 0.5f * (ac + an);
            int i = (int)floorf((s[0] + am * d[0]) / c_drr.vox[0]);
            int j = (int)floorf((s[1] + am * d[1]) / c_drr.vox[1]);
            int k = (int)floorf((s[2] + am * d[2]) / c_drr.vox[2]);
            if (i >= 0 && i < c_drr.dim[0] && j >= 0 && j < c_drr.dim[1] && k >= 0 && k < c_drr.dim[2]) {
                int hu = ct[((size_t)k * c_drr.dim[1] + j) * c_drr.dim[0] + i];
                float f = (hu + HU_OFF) / HU_STEP;
                int b = min((int)f, HU_LUT_N - 2);
                float t = f - b;
                float rho = c_hu_rho[b] + t * (c_hu_rho[b + 1] - c_hu_rho[b]);
                sum += rho * (an - ac);
            }
            for (int a = 0; a < 3; a++)
                if (anext[a] <= an) anext[a] += astep[a];
            ac = an;
        }
    }
    float r = sum * len;
    rpl[v * c_drr.nu + u] = r;
    drr[v * c_drr.nu + u] = (unsigned short)(65535.0f * expf(-c_drr.mu_w * r) + 0.5f);
}

// dose[v] for the voxels v = (iz * ny + iy) * nx + ix of a grid of voxel size vox, the beam
// along +y; wed[v] the voxel's water-equivalent depth (mm); bl[0 .. nb - 1] the open
// beamlets; sigma(depth) = sigma0 + sigma_slope depth
__global__ void pencil_beam(const float *wed, const Beamlet *bl, int nb, int nx, int ny, float vox, float sigma0,
                            float sigma_slope, float *dose, int nvox) {
    __shared__ Beamlet s_b[PB_TILE];
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    int ix = v % nx;
    int iz = v / (nx * ny);
    float x = (ix + 0.5f) * vox;
    float z = (iz + 0.5f) * vox;
    float depth = v < nvox ? wed[v] : 0.0f;
    float sig = sigma0 + sigma_slope * depth;
    float inv2s2 = 1.0f / (2.0f * sig * sig);
    float cut2 = PB_CUT * PB_CUT * sig * sig;
    float acc = 0.0f;
    for (int base = 0; base < nb; base += PB_TILE) {
        if (base + threadIdx.x < nb) s_b[threadIdx.x] = bl[base + threadIdx.x];
        __syncthreads();
        int m = min(PB_TILE, nb - base);
        for (int j = 0; j < m; j++) {
            float dx = x - s_b[j].x;
            float dz = z - s_b[j].z;
            float r2 = dx * dx + dz * dz;
            if (r2 < cut2) acc += s_b[j].w * expf(-r2 * inv2s2);
        }
        __syncthreads();
    }
    if (v < nvox) {
        int i = min((int)depth, PB_IDD_N - 2);       // a table point a mm
        float t = fminf(depth - i, 1.0f);
        float idd = c_idd[i] + t * (c_idd[i + 1] - c_idd[i]);
        dose[v] = acc * idd * inv2s2 * INV_PI;        // the Gaussian's 1 / (2 pi sigma^2)
    }
}

// nphot photons of beam b through the phantom mat[(k * dim[1] + j) * dim[0] + i]; edep the
// energy (MeV) deposited a voxel; escape[p] the energy photon p took out of the phantom
// (0: absorbed), nint[p] its real interactions
__global__ void mc_photon(const unsigned char *mat, McBeam b, float *edep, float *escape, unsigned char *nint,
                          int nphot) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= nphot) return;
    unsigned int st = wang_hash(b.seed ^ (unsigned int)p);
    if (st == 0) st = 0x9e3779b9u;
    // the energy from the spectrum
    float r = rnd(st);
    int bin = 0;
    while (bin < MC_NSPEC - 1 && r > c_spec_cdf[bin]) bin++;
    float E = c_spec_e[bin];
    // aimed at a uniform point of the field at the isocentre, started on the phantom's y = 0 face
    float tx = b.iso[0] + b.field * (rnd(st) - 0.5f);
    float tz = b.iso[2] + b.field * (rnd(st) - 0.5f);
    float ux = tx - b.src[0], uy = b.iso[1] - b.src[1], uz = tz - b.src[2];
    float inv = 1.0f / sqrtf(ux * ux + uy * uy + uz * uz);
    ux *= inv;
    uy *= inv;
    uz *= inv;
    float t0 = -b.src[1] / uy;
    float px = b.src[0] + t0 * ux, py = 0.0f, pz = b.src[2] + t0 * uz;
    int n = 0;
    for (int step = 0; step < MC_MAXSTEP; step++) {
        float le = (log10f(E) + 2.0f) * 10.0f;
        int ie = min(max((int)le, 0), MC_NE - 2);
        float te = le - ie;
        float mumax = c_mumax[ie] + te * (c_mumax[ie + 1] - c_mumax[ie]);
        float s = -logf(rnd(st)) / mumax;
        px += s * ux;
        py += s * uy;
        pz += s * uz;
        int i = (int)floorf(px / b.vox);
        int j = (int)floorf(py / b.vox);
        int k = (int)floorf(pz / b.vox);
        if (i < 0 || i >= b.dim[0] || j < 0 || j >= b.dim[1] || k < 0 || k >= b.dim[2]) break;   // escaped
        int idx = (k * b.dim[1] + j) * b.dim[0] + i;
        int m = mat[idx];
        float mu = c_mu[m][ie] + te * (c_mu[m][ie + 1] - c_mu[m][ie]);
        if (rnd(st) * mumax >= mu) continue;            // a virtual collision
        n++;
        float pe = c_pe[m][ie] + te * (c_pe[m][ie + 1] - c_pe[m][ie]);
        if (rnd(st) < pe) {                             // photoelectric: all of it here
            atomicAdd(&edep[idx], E);
            E = 0.0f;
            break;
        }
        // Compton: x = E / E' by Kahn's rejection method
        float kk = E / MEC2;
        float x;
        while (true) {
            float r1 = rnd(st), r2 = rnd(st), r3 = rnd(st);
            if (r1 <= (1.0f + 2.0f * kk) / (9.0f + 2.0f * kk)) {
                x = 1.0f + 2.0f * kk * r2;
                if (r3 <= 4.0f * (1.0f / x - 1.0f / (x * x))) break;
            } else {
                x = (1.0f + 2.0f * kk) / (1.0f + 2.0f * kk * r2);
                float c = 1.0f - (x - 1.0f) / kk;
                if (r3 <= 0.5f * (c * c + 1.0f / x)) break;
            }
        }
        float cost = 1.0f - (x - 1.0f) / kk;
        float Ep = E / x;
        atomicAdd(&edep[idx], E - Ep);                  // the electron stops here
        E = Ep;
        if (E < MC_ECUT) {
            atomicAdd(&edep[idx], E);
            E = 0.0f;
            break;
        }
        float sint = sqrtf(fmaxf(0.0f, 1.0f - cost * cost));
        float phi = TWO_PI * rnd(st);
        float cp = cosf(phi), sp = sinf(phi);
        if (fabsf(uz) > 0.99999f) {
            ux = sint * cp;
            uy = sint * sp;
            uz = uz > 0.0f ? cost : -cost;
        } else {
            float q = sqrtf(1.0f - uz * uz);
            float nx = sint * (ux * uz * cp - uy * sp) / q + ux * cost;
            float ny = sint * (uy * uz * cp + ux * sp) / q + uy * cost;
            float nz = -sint * cp * q + uz * cost;
            ux = nx;
            uy = ny;
            uz = nz;
        }
    }
    escape[p] = E;
    nint[p] = (unsigned char)min(n, 255);
}

// hist[s * DVH_NB + b]: the voxels of structure s (bit s of mask) with dose in bin b
// (dose * inv_bin, the last bin open); dsum[s] their dose's sum, dmax[s] the bits of the
// largest (doses >= 0)
__global__ void dvh_hist(const float *dose, const unsigned char *mask, int n, float inv_bin, unsigned int *hist,
                         double *dsum, unsigned int *dmax) {
    __shared__ unsigned int s_h[DVH_NS * DVH_NB];
    double sum[DVH_NS];
    float mx[DVH_NS];
    for (int s = 0; s < DVH_NS; s++) {
        sum[s] = 0.0;
        mx[s] = 0.0f;
    }
    for (int i = threadIdx.x; i < DVH_NS * DVH_NB; i += blockDim.x) s_h[i] = 0;
    __syncthreads();
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += blockDim.x * gridDim.x) {
        unsigned int m = mask[v];
        if (m == 0) continue;                            // outside the body
        float d = dose[v];
        int b = min((int)(d * inv_bin), DVH_NB - 1);
        while (m != 0) {
            int s = __ffs(m) - 1;
            m &= m - 1;
            atomicAdd(&s_h[s * DVH_NB + b], 1u);
            sum[s] += d;
            mx[s] = fmaxf(mx[s], d);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < DVH_NS * DVH_NB; i += blockDim.x)
        if (s_h[i] != 0) atomicAdd(&hist[i], s_h[i]);
    int lane = threadIdx.x % 32;
    for (int s = 0; s < DVH_NS; s++) {
        double a = sum[s];
        float m = mx[s];
        for (int o = 16; o > 0; o /= 2) {
            a += __shfl_down_sync(0xffffffff, a, o);
            m = fmaxf(m, __shfl_down_sync(0xffffffff, m, o));
        }
        if (lane == 0 && a != 0.0) {
            atomicAdd(&dsum[s], a);
            atomicMax(&dmax[s], __float_as_uint(m));
        }
    }
}

// gamma of eval against ref, images blockIdx.z of nx x ny pixels; norm[z] the image's
// normalisation dose: dose difference dd_frac x norm, threshold low_frac x norm; dta in
// pixels; gamma[...] -1 under the threshold; counts[2 z] passed, counts[2 z + 1] evaluated
__global__ void gamma_2d(const float *ref, const float *eval, const float *norm, int nx, int ny, float dta,
                         float dd_frac, float low_frac, float *gamma, unsigned int *counts) {
    __shared__ float s_ref[GM_S][GM_S];
    int z = blockIdx.z;
    const float *R = ref + (size_t)z * nx * ny;
    const float *E = eval + (size_t)z * nx * ny;
    int x0 = blockIdx.x * GM_T - GM_R;
    int y0 = blockIdx.y * GM_T - GM_R;
    int tid = threadIdx.y * GM_T + threadIdx.x;
    for (int i = tid; i < GM_S * GM_S; i += GM_T * GM_T) {
        int sx = x0 + i % GM_S;
        int sy = y0 + i / GM_S;
        float r = -1.0f;                                 // off the image
        if (sx >= 0 && sx < nx && sy >= 0 && sy < ny) r = R[sy * nx + sx];
        s_ref[i / GM_S][i % GM_S] = r;
    }
    __syncthreads();
    int x = blockIdx.x * GM_T + threadIdx.x;
    int y = blockIdx.y * GM_T + threadIdx.y;
    bool inside = x < nx && y < ny;
    float dd = dd_frac * norm[z];
    float inv_dd2 = 1.0f / (dd * dd);
    float inv_dta2 = 1.0f / (dta * dta);
    float de = inside ? E[y * nx + x] : 0.0f;
    bool valid = inside && de >= low_frac * norm[z];
    float g = -1.0f;
    if (valid) {
        float best = 1e30f;
        for (int dy = -GM_R; dy <= GM_R; dy++) {
            for (int dx = -GM_R; dx <= GM_R; dx++) {
                int r2 = dx * dx + dy * dy;
                if (r2 > GM_R * GM_R) continue;
                float dr = s_ref[threadIdx.y + GM_R + dy][threadIdx.x + GM_R + dx];
                if (dr < 0.0f) continue;
                float diff = dr - de;
                best = fminf(best, r2 * inv_dta2 + diff * diff * inv_dd2);
            }
        }
        g = sqrtf(best);
    }
    if (inside) gamma[(size_t)z * nx * ny + y * nx + x] = g;
    unsigned int pass = __ballot_sync(0xffffffff, valid && g <= 1.0f);
    unsigned int ev = __ballot_sync(0xffffffff, valid);
    if (tid % 32 == 0) {
        atomicAdd(&counts[2 * z], __popc(pass));
        atomicAdd(&counts[2 * z + 1], __popc(ev));
    }
}

// dose = A w for the CSR matrix A (nvox rows, a row a voxel); for each voxel out of its
// organ's bounds obj += w (d - bound)^2 and grad[j] += 2 w (d - bound) A[i][j]
__global__ void fluence_grad(const int *rowptr, const int *col, const float *val, const float *w,
                             const unsigned char *organ, int nvox, float *dose, float *grad, double *obj) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double f = 0.0;
    if (i < nvox) {
        int k0 = rowptr[i], k1 = rowptr[i + 1];
        float d = 0.0f;
        for (int k = k0; k < k1; k++) d += val[k] * w[col[k]];
        dose[i] = d;
        ObjTerm t = c_obj[organ[i]];
        float e = 0.0f, wt = 0.0f;
        if (d < t.dmin) {
            e = d - t.dmin;
            wt = t.w_under;
        } else if (d > t.dmax) {
            e = d - t.dmax;
            wt = t.w_over;
        }
        if (wt > 0.0f) {
            f = (double)wt * e * e;
            float g = 2.0f * wt * e;
            for (int k = k0; k < k1; k++) atomicAdd(&grad[col[k]], g * val[k]);
        }
    }
    for (int o = 16; o > 0; o /= 2) f += __shfl_down_sync(0xffffffff, f, o);
    if (threadIdx.x % 32 == 0 && f != 0.0) atomicAdd(obj, f);
}

}
