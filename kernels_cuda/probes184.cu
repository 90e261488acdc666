// probe-unseen182: a computational cosmology / large-scale structure course's CUDA
// assignments, as a student who knows CUDA basics hands them in (lengths in Mpc/h, masses in
// Msun/h, velocities in km/s):
//  - grf_modes: the initial density field of a simulation drawn in Fourier space, a thread a
//    mode of an ng x ng x (ng/2 + 1) rfftn grid: complex Gaussian noise from a counter-based
//    splitmix64 hash of the mode's index (Box-Muller), scaled by sqrt(P(k)) for
//    P(k) = A k^ns T(k)^2 with ln T tabulated against ln k (a CAMB-style transfer table in
//    __constant__, interpolated linearly), conjugate pairs on the kz = 0 and Nyquist planes
//    given conjugate noise, the DC mode 0;
//  - lpt2_particles: second-order Lagrangian perturbation theory initial conditions: a thread
//    a particle of an ng^3 lattice, its position q + D1 psi1(q) + D2 psi2(q) (wrapped into the
//    periodic box) and velocity vf1 psi1 + vf2 psi2 written as a Particle struct (with its
//    64-bit id), the summed squared velocities (a check of the velocity dispersion) by a warp
//    shuffle reduction and a float atomicAdd a warp;
//  - tsc_deposit: triangular-shaped-cloud mass assignment of N-body particles onto a periodic
//    ng^3 density mesh, a thread a particle (particles in Lagrangian, i.e. id, order, evolved
//    by the Zel'dovich approximation into sheets and filaments): the 3 x 3 x 3 weights in
//    per-thread arrays, 27 float atomicAdds into the mesh;
//  - xi_pair_count: the two-point correlation function's DD pair counts of a galaxy catalogue
//    in logarithmic separation bins, a thread a galaxy against every galaxy, the catalogue
//    staged a block-sized tile at a time in shared memory, the counts of a block in a shared
//    histogram (shared atomicAdd), then added into 64-bit global counts;
//  - lya_flux: the Lyman-alpha forest along skewers through a hydro simulation by the
//    fluctuating Gunn-Peterson approximation: a block a skewer, its cells' absorption
//    amplitudes (n_HI ~ Delta^2 T^-0.7), thermal widths and redshift-space velocities staged
//    in dynamic shared memory, then a thread a pixel summing every cell's Gaussian line profile
//    (periodic in velocity) for the optical depth, the transmitted flux exp(-tau);
//  - hod_populate: a mock galaxy catalogue from a halo catalogue by a halo occupation
//    distribution (Zheng et al. 2007 form, the parameters in __constant__), a thread a halo:
//    a central with probability <Ncen>, a Poisson number of satellites (Knuth's product
//    method, a normal approximation for large means), each placed on an NFW profile (the
//    enclosed-mass relation inverted by bisection) in a random direction, the halo's
//    galaxies appended to the catalogue after one atomicAdd on a global counter.

#define GRF_NT 128            // grf_modes: entries of the transfer table
#define XI_NB 20              // xi_pair_count: separation bins
#define XI_TILE 128           // blockDim.x
#define HOD_LOGMMIN 0         // hod_populate: c_hod's entries: log10 Mmin,
#define HOD_SIGMA 1           // the width of the central's step in log10 M,
#define HOD_M0 2              // M0 and M1 (Msun/h),
#define HOD_M1 3
#define HOD_ALPHA 4           // the satellites' power-law slope
#define HOD_BISECT 20         // bisection steps of the NFW radius
#define HOD_KNUTH_MAX 20.0f   // Knuth's method for satellite means below this

// grf_modes' transfer table (set by the host): ln T at ln k = lnk0 + j / inv_dlnk
__constant__ float c_lnT[GRF_NT];
// hod_populate's HOD parameters (set by the host), indexed by HOD_...
__constant__ float c_hod[5];

// a particle of lpt2_particles' initial conditions (32 bytes)
struct Particle {
    float pos[3];             // Mpc/h, in [0, box)
    float vel[3];             // km/s
    long long id;
};

__device__ unsigned long long splitmix64(unsigned long long x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// one xorshift32 step of *s; a uniform in (0, 1]
__device__ float hod_uniform(unsigned int *s) {
    unsigned int x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return (float)((x >> 9) + 1u) * (1.0f / 8388608.0f);
}

extern "C" {

// the modes dk (ng x ng x (ng/2 + 1), kz fastest) of a Gaussian random field with power
// amp^2 k^ns T(k)^2 (k = kf |(kx, ky, kz)|), its noise from seed
__global__ void grf_modes(float2 *dk, int ng, unsigned long long seed, float kf, float amp, float ns, float lnk0,
                          float inv_dlnk) {
    int nz = ng / 2 + 1;
    int m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= ng * ng * nz) return;
    if (m == 0) {                                   // the mean density: no fluctuation
        dk[0] = make_float2(0.0f, 0.0f);
        return;
    }
    int iz = m % nz;
    int iy = (m / nz) % ng;
    int ix = m / (nz * ng);
    int kx = ix <= ng / 2 ? ix : ix - ng;
    int ky = iy <= ng / 2 ? iy : iy - ng;
    // on the kz = 0 and Nyquist planes the mode (-kx, -ky) is this one's conjugate: the pair
    // takes the noise of its first mode, the second one conjugated
    int src = m;
    float sgn = 1.0f;
    if (iz == 0 || iz == ng / 2) {
        int jx = (ng - ix) % ng;
        int jy = (ng - iy) % ng;
        int pm = (jx * ng + jy) * nz + iz;
        if (pm < m) {
            src = pm;
            sgn = -1.0f;
        } else if (pm == m) {
            sgn = 0.0f;                             // its own conjugate: real
        }
    }
    unsigned long long h1 = splitmix64(seed + 2ull * src);
    unsigned long long h2 = splitmix64(seed + 2ull * src + 1ull);
    float u1 = (float)((h1 >> 41) + 1ull) * (1.0f / 8388608.0f);     // (0, 1]
    float u2 = (float)(h2 >> 40) * (1.0f / 16777216.0f);             // [0, 1)
    float r = sqrtf(-2.0f * logf(u1));
    float s, c;
    sincosf(6.28318531f * u2, &s, &c);
    float k = kf * sqrtf((float)(kx * kx + ky * ky + iz * iz));
    float t = (logf(k) - lnk0) * inv_dlnk;
    int j = min(max((int)t, 0), GRF_NT - 2);
    float f = t - j;
    float lnT = c_lnT[j] + f * (c_lnT[j + 1] - c_lnT[j]);
    float a = amp * powf(k, 0.5f * ns) * expf(lnT);
    dk[m] = make_float2(a * r * c, sgn * a * r * s);
}

// the ng^3 particles of a lattice of spacing box / ng (id = (iz ng + iy) ng + ix) displaced by
// D1 psi1 + D2 psi2 (psi on the lattice, the same order), velocities vf1 psi1 + vf2 psi2;
// *v2sum += the particles' |v|^2 (blockDim.x a multiple of 32)
__global__ void lpt2_particles(const float *p1x, const float *p1y, const float *p1z, const float *p2x,
                               const float *p2y, const float *p2z, Particle *part, float *v2sum, int ng, float box,
                               float D1, float D2, float vf1, float vf2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v2 = 0.0f;
    if (i < ng * ng * ng) {
        int ix = i % ng;
        int iy = (i / ng) % ng;
        int iz = i / (ng * ng);
        float cell = box / ng;
        float q[3] = {(ix + 0.5f) * cell, (iy + 0.5f) * cell, (iz + 0.5f) * cell};
        float s1[3] = {p1x[i], p1y[i], p1z[i]};
        float s2[3] = {p2x[i], p2y[i], p2z[i]};
        Particle p;
        for (int d = 0; d < 3; d++) {
            float x = q[d] + D1 * s1[d] + D2 * s2[d];
            if (x < 0.0f) x += box;
            else if (x >= box) x -= box;
            p.pos[d] = x;
            p.vel[d] = vf1 * s1[d] + vf2 * s2[d];
            v2 += p.vel[d] * p.vel[d];
        }
        p.id = i;
        part[i] = p;
    }
    for (int o = 16; o > 0; o >>= 1) v2 += __shfl_down_sync(0xffffffff, v2, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(v2sum, v2);
}

// n particles (x, y, z in mesh units, [0, ng)) of equal mass deposited with TSC weights on
// the periodic ng^3 mesh rho (x fastest; grid points at integer coordinates)
__global__ void tsc_deposit(const float *x, const float *y, const float *z, float *rho, int ng, float mass, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float p[3] = {x[i], y[i], z[i]};
    int idx[3][3];
    float w[3][3];
    for (int d = 0; d < 3; d++) {
        int c = (int)floorf(p[d] + 0.5f);          // the nearest grid point
        float dd = p[d] - c;                       // in [-0.5, 0.5)
        w[d][0] = 0.5f * (0.5f - dd) * (0.5f - dd);
        w[d][1] = 0.75f - dd * dd;
        w[d][2] = 0.5f * (0.5f + dd) * (0.5f + dd);
        for (int k = 0; k < 3; k++) idx[d][k] = (c - 1 + k + ng) % ng;
    }
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int c = 0; c < 3; c++)
                atomicAdd(&rho[(idx[2][a] * ng + idx[1][b]) * ng + idx[0][c]], mass * w[2][a] * w[1][b] * w[0][c]);
}

// dd[b] += the ordered pairs (i, j) of the n galaxies with rmin^2 <= r^2 < rmax^2 in bin
// b = (ln r - lnrmin) * inv_dlnr (blockDim.x == XI_TILE)
__global__ void xi_pair_count(const float *x, const float *y, const float *z, unsigned long long *dd, float rmin2,
                              float rmax2, float lnrmin, float inv_dlnr, int n) {
    __shared__ float sx[XI_TILE];
    __shared__ float sy[XI_TILE];
    __shared__ float sz[XI_TILE];
    __shared__ unsigned int hist[XI_NB];
    int t = threadIdx.x;
    int i = blockIdx.x * XI_TILE + t;
    if (t < XI_NB) hist[t] = 0;
    float px = 0.0f, py = 0.0f, pz = 0.0f;
    if (i < n) {
        px = x[i];
        py = y[i];
        pz = z[i];
    }
    for (int tile = 0; tile < n; tile += XI_TILE) {
        int j = tile + t;
        if (j < n) {
            sx[t] = x[j];
            sy[t] = y[j];
            sz[t] = z[j];
        }
        __syncthreads();
        int m = min(XI_TILE, n - tile);
        if (i < n) {
            for (int k = 0; k < m; k++) {
                float dx = sx[k] - px;
                float dy = sy[k] - py;
                float dz = sz[k] - pz;
                float r2 = dx * dx + dy * dy + dz * dz;
                if (r2 >= rmin2 && r2 < rmax2) {      // (a galaxy with itself: r2 = 0)
                    int b = (int)((0.5f * logf(r2) - lnrmin) * inv_dlnr);
                    atomicAdd(&hist[min(b, XI_NB - 1)], 1u);
                }
            }
        }
        __syncthreads();
    }
    if (t < XI_NB) atomicAdd(&dd[t], (unsigned long long)hist[t]);
}

// the flux (npix pixels of dv km/s a skewer, skewer blockIdx.x) from the cells' overdensity
// delta, temperature temp (K) and peculiar velocity vpec (km/s), tau0 the optical depth of
// gas at the mean density and 10^4 K; 3 npix floats of dynamic shared memory
__global__ void lya_flux(const float *delta, const float *temp, const float *vpec, float *flux, int npix, float dv,
                         float tau0) {
    extern __shared__ float sm[];
    float *s_amp = sm;                  // a cell's optical depth, integrated over its line
    float *s_u = sm + npix;             // its velocity (Hubble flow + peculiar)
    float *s_ib = sm + 2 * npix;        // 1 / its thermal width b
    int sk = blockIdx.x;
    float vbox = npix * dv;
    for (int j = threadIdx.x; j < npix; j += blockDim.x) {
        int g = sk * npix + j;
        float T = temp[g];
        float d = delta[g];
        float b = 0.128450f * sqrtf(T);                       // sqrt(2 k T / m_H) in km/s
        s_amp[j] = tau0 * d * d * powf(T * 1.0e-4f, -0.7f) * dv / (1.77245385f * b);
        s_u[j] = (j + 0.5f) * dv + vpec[g];
        s_ib[j] = 1.0f / b;
    }
    __syncthreads();
    for (int p = threadIdx.x; p < npix; p += blockDim.x) {
        float v = (p + 0.5f) * dv;
        float tau = 0.0f;
        for (int j = 0; j < npix; j++) {
            float d = v - s_u[j];
            if (d > 0.5f * vbox) d -= vbox;                    // the nearest periodic image
            else if (d < -0.5f * vbox) d += vbox;
            float xx = d * s_ib[j];
            tau += s_amp[j] * expf(-xx * xx);
        }
        flux[sk * npix + p] = expf(-tau);
    }
}

// galaxies of n halos (position, log10 mass, NFW concentration, virial radius) in a periodic
// box: centrals and satellites appended at gx, gy, gz, ghalo[atomicAdd(ngal, count)] (those
// past maxgal counted but not written); halo i's random stream from seed and i
__global__ void hod_populate(const float *hx, const float *hy, const float *hz, const float *logm,
                             const float *conc, const float *rvir, float *gx, float *gy, float *gz, int *ghalo,
                             int *ngal, int maxgal, unsigned int seed, float box, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int s = seed ^ ((unsigned int)i * 0x9E3779B9u);   // a hash of the halo: its stream's seed
    s ^= s >> 16;
    s *= 0x7feb352du;
    s ^= s >> 15;
    s *= 0x846ca68bu;
    s ^= s >> 16;
    if (s == 0) s = 1;
    float lm = logm[i];
    float ncen = 0.5f * (1.0f + erff((lm - c_hod[HOD_LOGMMIN]) / c_hod[HOD_SIGMA]));
    int cen = hod_uniform(&s) < ncen ? 1 : 0;
    float M = powf(10.0f, lm);
    float lam = 0.0f;
    if (M > c_hod[HOD_M0]) lam = ncen * powf((M - c_hod[HOD_M0]) / c_hod[HOD_M1], c_hod[HOD_ALPHA]);
    int nsat = 0;
    if (lam < HOD_KNUTH_MAX) {
        float L = expf(-lam);
        float p = hod_uniform(&s);
        while (p > L) {
            nsat++;
            p *= hod_uniform(&s);
        }
    } else {
        float u1 = hod_uniform(&s);
        float u2 = hod_uniform(&s);
        float g = sqrtf(-2.0f * logf(u1)) * cosf(6.28318531f * u2);
        nsat = max(0, (int)rintf(lam + sqrtf(lam) * g));
    }
    int ntot = cen + nsat;
    if (ntot == 0) return;
    int k = atomicAdd(ngal, ntot);
    float x0 = hx[i];
    float y0 = hy[i];
    float z0 = hz[i];
    if (cen) {
        if (k < maxgal) {
            gx[k] = x0;
            gy[k] = y0;
            gz[k] = z0;
            ghalo[k] = i;
        }
        k++;
    }
    float c = conc[i];
    float rv = rvir[i];
    float mc = logf(1.0f + c) - c / (1.0f + c);
    for (int j = 0; j < nsat; j++, k++) {
        // the radius (in units of the scale radius) enclosing a uniform fraction of the mass within rvir
        float target = hod_uniform(&s) * mc;
        float lo = 0.0f, hi = c;
        for (int it = 0; it < HOD_BISECT; it++) {
            float mid = 0.5f * (lo + hi);
            if (logf(1.0f + mid) - mid / (1.0f + mid) < target) lo = mid;
            else hi = mid;
        }
        float r = rv * 0.5f * (lo + hi) / c;
        float ct = 2.0f * hod_uniform(&s) - 1.0f;
        float st = sqrtf(fmaxf(1.0f - ct * ct, 0.0f));
        float ph = 6.28318531f * hod_uniform(&s);
        float g[3] = {x0 + r * st * cosf(ph), y0 + r * st * sinf(ph), z0 + r * ct};
        for (int d = 0; d < 3; d++) {
            if (g[d] < 0.0f) g[d] += box;
            else if (g[d] >= box) g[d] -= box;
        }
        if (k < maxgal) {
            gx[k] = g[0];
            gy[k] = g[1];
            gz[k] = g[2];
            ghalo[k] = i;
        }
    }
}

}
