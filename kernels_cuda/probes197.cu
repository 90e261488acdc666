// probe-unseen195: a nuclear reactor physics (neutron transport and reactor kinetics) course's
// CUDA assignments, as a student who knows CUDA basics hands them in:
//  - mc_sphere_history: continuous-energy Monte Carlo in a bare sphere of a homogenised
//    uranium-water mixture, a thread a source neutron followed until it is captured, causes
//    fission or leaks: at each collision the cross sections (scatter, capture, fission) looked
//    up by a binary search in a sorted energy grid (refined at the U-238 resonances) and
//    interpolated linearly, an exponential flight distance from a per-thread xorshift32
//    stream, the distance to the sphere's surface, then scatter (elastic on hydrogen: a
//    uniform share of the energy kept, thermalised neutrons staying at kT, a new isotropic
//    direction), capture or fission;
//  - xs_union_lookup: event-based macroscopic cross-section lookup on a unionised energy grid
//    (XSBench's unionised method): one binary search in the union of the nuclides' grids, then
//    for each of the 16 nuclides present in the query's material (number densities in
//    __constant__) its grid index from the union's index table and a linear interpolation
//    between two of its 16-byte grid-point structs, weighted and summed into Sigma_t,
//    Sigma_a and nu Sigma_f;
//  - diffusion_2g_jacobi: a Jacobi sweep of the two-group fine-mesh diffusion equations of a
//    3-D PWR core with IAEA-3D benchmark cross sections (in __constant__, indexed by each
//    cell's and its neighbours' material), a thread a cell: 7-point stencils of both groups
//    with harmonic-mean face diffusion coefficients, zero flux on the mesh's outer faces, the
//    fission source scaled by 1/k; the squared change summed by a warp shuffle reduction and
//    an atomicAdd a warp;
//  - point_kinetics: point reactor kinetics with six delayed-neutron groups and adiabatic
//    Doppler feedback, integrated by fixed-step RK4 in double, a thread a reactivity-ramp
//    scenario (a struct), the precursor concentrations and the stages' slopes in per-thread
//    arrays, the delayed-group data in __constant__; the peak power, its time, the final
//    power and fuel temperature rise and the energy released;
//  - moc_sweep: a transport sweep of the 2-D method of characteristics over a C5G7-like
//    lattice of pin cells (7 groups, 3 polar angles), a thread a track and direction: along
//    the track's segments (CSR) the angular fluxes of every group and polar angle attenuated
//    towards the flat-source region's reduced source (expf a segment, group and angle), the
//    change added into the region's scalar flux by global atomicAdd (a group a segment);
//  - entropy_tally: the fission bank of a generation binned into the Shannon-entropy mesh
//    (16^3 boxes over the core): a grid-stride loop of the sites, counts and weights by
//    shared-memory atomicAdd into the block's private tally, then merged into the global one
//    by atomicAdd of its non-empty boxes.

#define MC_MAXCOLL 1000       // mc_sphere_history: collisions before a history is given up
#define MC_ETH 0.0253f        // thermal energy kT (eV): thermalised neutrons stay here
#define XS_NNUC 16            // xs_union_lookup: nuclides
#define XS_NMAT 6             // materials
#define DF_NMAT 5             // diffusion_2g_jacobi: materials (IAEA-3D's five regions)
#define PK_G 6                // point_kinetics: delayed-neutron groups
#define MOC_G 7               // moc_sweep: energy groups
#define MOC_NP 3              // polar angles (a half space)
#define MOC_NMAT 7            // materials
#define SE_NB 16              // entropy_tally: mesh boxes along x, y and z
#define SE_BINS (SE_NB * SE_NB * SE_NB)

// xs_union_lookup: a nuclide's cross sections (barns) at a grid energy (eV)
struct NucPoint {
    float energy;
    float total;
    float absorb;
    float nufis;
};

// point_kinetics: a scenario's external reactivity ramp (rate / s up to rho_max, in dk/k), its
// Doppler coefficient (dk/k per K) and initial power (a share of nominal)
struct Scenario {
    double rate;
    double rho_max;
    double alpha;
    double n0;
};

// xs_union_lookup (set by the host): material m's number density of nuclide k (atoms / b cm) at
// m * XS_NNUC + k; each nuclide's first grid point in the concatenated grids
__constant__ float c_dens[XS_NMAT * XS_NNUC];
__constant__ int c_nuc_off[XS_NNUC];
// diffusion_2g_jacobi's two-group constants (cm, 1/cm) by material
__constant__ float c_D1[DF_NMAT];
__constant__ float c_D2[DF_NMAT];
__constant__ float c_sr1[DF_NMAT];    // fast removal: absorption + down-scatter
__constant__ float c_sa2[DF_NMAT];    // thermal absorption
__constant__ float c_s12[DF_NMAT];    // down-scatter
__constant__ float c_nsf1[DF_NMAT];
__constant__ float c_nsf2[DF_NMAT];
// point_kinetics' delayed-neutron groups: fractions and decay constants (1/s)
__constant__ double c_pk_beta[PK_G];
__constant__ double c_pk_lambda[PK_G];
// moc_sweep: total cross sections (1/cm) of material m, group g at m * MOC_G + g; the polar
// quadrature's 1 / sin(theta) and weights (the 4 pi and the half spaces folded in)
__constant__ float c_moc_sigt[MOC_NMAT * MOC_G];
__constant__ float c_moc_isin[MOC_NP];
__constant__ float c_moc_wp[MOC_NP];

// one xorshift32 step of *s: a uniform float in (0, 1)
__device__ float mc_rand(unsigned int *s) {
    unsigned int x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return (float)((x >> 8) | 1u) * (1.0f / 16777216.0f);
}

// diffusion_2g_jacobi: the coupling of a cell (diffusion coefficients d1, d2) across one face to
// the neighbour cn (-1: outside the mesh) added into a1, a2 (the couplings) and s1, s2 (the
// couplings times the neighbour's fluxes)
__device__ void df_face(const float *phi1, const float *phi2, const unsigned char *mat, int cn, float d1, float d2,
                        float *a1, float *a2, float *s1, float *s2) {
    if (cn < 0) {               // zero flux on the outer face, half a cell away
        *a1 += 2.0f * d1;
        *a2 += 2.0f * d2;
        return;
    }
    int mn = mat[cn];
    float e1 = c_D1[mn];
    float e2 = c_D2[mn];
    float w1 = 2.0f * d1 * e1 / (d1 + e1);
    float w2 = 2.0f * d2 * e2 / (d2 + e2);
    *a1 += w1;
    *a2 += w2;
    *s1 += w1 * phi1[cn];
    *s2 += w2 * phi2[cn];
}

// point_kinetics: the slopes of power p, precursors C and temperature rise T at time t
__device__ void pk_rhs(double t, double p, const double *C, double T, Scenario s, double Lam, double heat, double *dp,
                       double *dC, double *dT) {
    double rho = fmin(s.rate * t, s.rho_max) - s.alpha * T;
    double beta = 0.0;
    double src = 0.0;
    for (int g = 0; g < PK_G; g++) {
        beta += c_pk_beta[g];
        src += c_pk_lambda[g] * C[g];
        dC[g] = c_pk_beta[g] / Lam * p - c_pk_lambda[g] * C[g];
    }
    *dp = (rho - beta) / Lam * p + src;
    *dT = heat * p;
}

extern "C" {

// n neutrons from (x0, y0, z0) at energies e0 (eV) in a sphere of radius R; the cross sections
// (1/cm) sig_s, sig_c, sig_f at the ng sorted energies egrid; fate 0 captured, 1 fission,
// 2 leaked, 3 given up; ncoll the collisions, track the path length, efin the last energy
__global__ void mc_sphere_history(const float *egrid, const float *sig_s, const float *sig_c, const float *sig_f,
                                  int ng, const float *x0, const float *y0, const float *z0, const float *e0,
                                  unsigned int *rng, float R, int *fate, int *ncoll, float *track, float *efin,
                                  int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int s = rng[i];
    float x = x0[i];
    float y = y0[i];
    float z = z0[i];
    float E = e0[i];
    float mu = 2.0f * mc_rand(&s) - 1.0f;
    float ph = 6.28318531f * mc_rand(&s);
    float sn = sqrtf(1.0f - mu * mu);
    float u = sn * cosf(ph);
    float v = sn * sinf(ph);
    float w = mu;
    float tl = 0.0f;
    int result = 3;
    int nc = 0;
    while (nc < MC_MAXCOLL) {
        // the cross sections at E: egrid[lo] <= E <= egrid[hi]
        int lo = 0;
        int hi = ng - 1;
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (egrid[mid] > E)
                hi = mid;
            else
                lo = mid;
        }
        float f = (E - egrid[lo]) / (egrid[hi] - egrid[lo]);
        float ss = sig_s[lo] + f * (sig_s[hi] - sig_s[lo]);
        float sc = sig_c[lo] + f * (sig_c[hi] - sig_c[lo]);
        float sf = sig_f[lo] + f * (sig_f[hi] - sig_f[lo]);
        float st = ss + sc + sf;
        float d = -logf(mc_rand(&s)) / st;
        // the distance to the surface along (u, v, w)
        float b = x * u + y * v + z * w;
        float q = x * x + y * y + z * z - R * R;
        float dsurf = -b + sqrtf(fmaxf(b * b - q, 0.0f));
        if (d >= dsurf) {
            tl += dsurf;
            result = 2;
            break;
        }
        tl += d;
        x += d * u;
        y += d * v;
        z += d * w;
        nc++;
        float xi = mc_rand(&s) * st;
        if (xi < ss) {
            E = fmaxf(E * mc_rand(&s), MC_ETH);
            mu = 2.0f * mc_rand(&s) - 1.0f;
            ph = 6.28318531f * mc_rand(&s);
            sn = sqrtf(1.0f - mu * mu);
            u = sn * cosf(ph);
            v = sn * sinf(ph);
            w = mu;
        } else if (xi < ss + sc) {
            result = 0;
            break;
        } else {
            result = 1;
            break;
        }
    }
    fate[i] = result;
    ncoll[i] = nc;
    track[i] = tl;
    efin[i] = E;
    rng[i] = s;
}

// n lookups (energy eV, material) on the nu-point union grid ugrid: uindex[u * XS_NNUC + k] the
// grid point of nuclide k at or below ugrid[u] (in its grid starting at nuc + c_nuc_off[k]);
// the macroscopic cross sections (1/cm) into sig_t, sig_a, nusig_f
__global__ void xs_union_lookup(const float *ugrid, const int *uindex, const NucPoint *nuc, int nu,
                                const float *energy, const int *mat, float *sig_t, float *sig_a, float *nusig_f,
                                int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float E = energy[i];
    int m = mat[i];
    int lo = 0;
    int hi = nu - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (ugrid[mid] > E)
            hi = mid;
        else
            lo = mid;
    }
    float st = 0.0f;
    float sa = 0.0f;
    float sf = 0.0f;
    for (int k = 0; k < XS_NNUC; k++) {
        float N = c_dens[m * XS_NNUC + k];
        if (N == 0.0f) continue;
        const NucPoint *g = nuc + c_nuc_off[k];
        int j = uindex[lo * XS_NNUC + k];
        NucPoint a = g[j];
        NucPoint b = g[j + 1];
        float f = (E - a.energy) / (b.energy - a.energy);
        st += N * (a.total + f * (b.total - a.total));
        sa += N * (a.absorb + f * (b.absorb - a.absorb));
        sf += N * (a.nufis + f * (b.nufis - a.nufis));
    }
    sig_t[i] = st;
    sig_a[i] = sa;
    nusig_f[i] = sf;
}

// one Jacobi sweep on an nx x ny x nz mesh (x fastest) of cubes of side h (inv_h2 = 1 / h^2):
// new fluxes phi1n, phi2n from phi1, phi2; *resid += the squared changes (blockDim.x 32,
// gridDim.z nz)
__global__ void diffusion_2g_jacobi(const float *phi1, const float *phi2, float *phi1n, float *phi2n,
                                    const unsigned char *mat, int nx, int ny, int nz, float inv_h2, float inv_k,
                                    float *resid) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    float r = 0.0f;
    if (x < nx && y < ny && z < nz) {
        int c = (z * ny + y) * nx + x;
        int m = mat[c];
        float d1 = c_D1[m];
        float d2 = c_D2[m];
        float a1 = 0.0f;
        float a2 = 0.0f;
        float s1 = 0.0f;
        float s2 = 0.0f;
        df_face(phi1, phi2, mat, x > 0 ? c - 1 : -1, d1, d2, &a1, &a2, &s1, &s2);
        df_face(phi1, phi2, mat, x < nx - 1 ? c + 1 : -1, d1, d2, &a1, &a2, &s1, &s2);
        df_face(phi1, phi2, mat, y > 0 ? c - nx : -1, d1, d2, &a1, &a2, &s1, &s2);
        df_face(phi1, phi2, mat, y < ny - 1 ? c + nx : -1, d1, d2, &a1, &a2, &s1, &s2);
        df_face(phi1, phi2, mat, z > 0 ? c - nx * ny : -1, d1, d2, &a1, &a2, &s1, &s2);
        df_face(phi1, phi2, mat, z < nz - 1 ? c + nx * ny : -1, d1, d2, &a1, &a2, &s1, &s2);
        float p1 = phi1[c];
        float p2 = phi2[c];
        float q1 = inv_k * (c_nsf1[m] * p1 + c_nsf2[m] * p2);
        float q2 = c_s12[m] * p1;
        float n1 = (q1 + s1 * inv_h2) / (c_sr1[m] + a1 * inv_h2);
        float n2 = (q2 + s2 * inv_h2) / (c_sa2[m] + a2 * inv_h2);
        phi1n[c] = n1;
        phi2n[c] = n2;
        r = (n1 - p1) * (n1 - p1) + (n2 - p2) * (n2 - p2);
    }
    for (int o = 16; o > 0; o >>= 1) r += __shfl_down_sync(0xffffffff, r, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(resid, r);
}

// n scenarios integrated over nsteps steps of dt (s) from equilibrium at power sc[i].n0:
// prompt generation time Lam (s), adiabatic heat-up heat (K / s at nominal power); the peak
// power and its time, the final power and temperature rise, the energy (nominal-power seconds)
__global__ void point_kinetics(const Scenario *sc, double *peak, double *tpeak, double *pfin, double *Tfin,
                               double *energy, double Lam, double heat, double dt, int nsteps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Scenario s = sc[i];
    double p = s.n0;
    double T = 0.0;
    double C[PK_G];
    for (int g = 0; g < PK_G; g++) C[g] = c_pk_beta[g] * p / (Lam * c_pk_lambda[g]);
    double pk = p;
    double tpk = 0.0;
    double en = 0.0;
    for (int k = 0; k < nsteps; k++) {
        double t = k * dt;
        double Cs[PK_G], k1[PK_G], k2[PK_G], k3[PK_G], k4[PK_G];
        double dp1, dp2, dp3, dp4, dT1, dT2, dT3, dT4;
        pk_rhs(t, p, C, T, s, Lam, heat, &dp1, k1, &dT1);
        for (int g = 0; g < PK_G; g++) Cs[g] = C[g] + 0.5 * dt * k1[g];
        pk_rhs(t + 0.5 * dt, p + 0.5 * dt * dp1, Cs, T + 0.5 * dt * dT1, s, Lam, heat, &dp2, k2, &dT2);
        for (int g = 0; g < PK_G; g++) Cs[g] = C[g] + 0.5 * dt * k2[g];
        pk_rhs(t + 0.5 * dt, p + 0.5 * dt * dp2, Cs, T + 0.5 * dt * dT2, s, Lam, heat, &dp3, k3, &dT3);
        for (int g = 0; g < PK_G; g++) Cs[g] = C[g] + dt * k3[g];
        pk_rhs(t + dt, p + dt * dp3, Cs, T + dt * dT3, s, Lam, heat, &dp4, k4, &dT4);
        double pn = p + dt / 6.0 * (dp1 + 2.0 * dp2 + 2.0 * dp3 + dp4);
        for (int g = 0; g < PK_G; g++) C[g] += dt / 6.0 * (k1[g] + 2.0 * k2[g] + 2.0 * k3[g] + k4[g]);
        T += dt / 6.0 * (dT1 + 2.0 * dT2 + 2.0 * dT3 + dT4);
        en += 0.5 * dt * (p + pn);
        p = pn;
        if (p > pk) {
            pk = p;
            tpk = t + dt;
        }
    }
    peak[i] = pk;
    tpeak[i] = tpk;
    pfin[i] = p;
    Tfin[i] = T;
    energy[i] = en;
}

// n tracks, each swept forward (thread 2 t) and backward (2 t + 1): track t's segments
// seg_off[t] .. seg_off[t + 1] (flat-source region seg_fsr, length seg_len cm, in the forward
// order), weight wt[t] (azimuthal weight times spacing); the incoming angular fluxes psi_in,
// the outgoing psi_out ((thread * MOC_NP + p) * MOC_G + g); qred the regions' reduced sources
// (Q / Sigma_t), fsr_mat their materials; phi += the flux changes (fsr * MOC_G + g)
__global__ void moc_sweep(const int *seg_off, const int *seg_fsr, const float *seg_len, const float *wt,
                          const int *fsr_mat, const float *qred, const float *psi_in, float *psi_out, float *phi,
                          int n) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= 2 * n) return;
    int t = tid / 2;
    int back = tid % 2;
    float psi[MOC_NP][MOC_G];
    for (int p = 0; p < MOC_NP; p++)
        for (int g = 0; g < MOC_G; g++) psi[p][g] = psi_in[(tid * MOC_NP + p) * MOC_G + g];
    int s0 = seg_off[t];
    int s1 = seg_off[t + 1];
    float w = wt[t];
    for (int k = 0; k < s1 - s0; k++) {
        int sg = back ? s1 - 1 - k : s0 + k;
        int f = seg_fsr[sg];
        float len = seg_len[sg];
        int m = fsr_mat[f];
        for (int g = 0; g < MOC_G; g++) {
            float sig = c_moc_sigt[m * MOC_G + g];
            float q = qred[f * MOC_G + g];
            float acc = 0.0f;
            for (int p = 0; p < MOC_NP; p++) {
                float tau = sig * len * c_moc_isin[p];
                float dpsi = (psi[p][g] - q) * (1.0f - expf(-tau));
                psi[p][g] -= dpsi;
                acc += c_moc_wp[p] * dpsi;
            }
            atomicAdd(&phi[f * MOC_G + g], w * acc);
        }
    }
    for (int p = 0; p < MOC_NP; p++)
        for (int g = 0; g < MOC_G; g++) psi_out[(tid * MOC_NP + p) * MOC_G + g] = psi[p][g];
}

// n fission sites (x, y, z cm; weight wgt) binned into the SE_NB^3 boxes from (x0, y0, z0) of
// 1 / inv_dx x 1 / inv_dy x 1 / inv_dz (sites outside clamped into the edge boxes); count and
// weight ((iz * SE_NB + iy) * SE_NB + ix) += the sites and their weights
__global__ void entropy_tally(const float *x, const float *y, const float *z, const float *wgt, int *count,
                              float *weight, float x0, float y0, float z0, float inv_dx, float inv_dy, float inv_dz,
                              int n) {
    __shared__ int s_cnt[SE_BINS];
    __shared__ float s_w[SE_BINS];
    for (int b = threadIdx.x; b < SE_BINS; b += blockDim.x) {
        s_cnt[b] = 0;
        s_w[b] = 0.0f;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int ix = min(max((int)floorf((x[i] - x0) * inv_dx), 0), SE_NB - 1);
        int iy = min(max((int)floorf((y[i] - y0) * inv_dy), 0), SE_NB - 1);
        int iz = min(max((int)floorf((z[i] - z0) * inv_dz), 0), SE_NB - 1);
        int b = (iz * SE_NB + iy) * SE_NB + ix;
        atomicAdd(&s_cnt[b], 1);
        atomicAdd(&s_w[b], wgt[i]);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < SE_BINS; b += blockDim.x) {
        if (s_cnt[b] > 0) {
            atomicAdd(&count[b], s_cnt[b]);
            atomicAdd(&weight[b], s_w[b]);
        }
    }
}

}
