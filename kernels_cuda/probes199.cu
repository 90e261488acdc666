// probe-unseen197: an optics and photonics course's CUDA assignments, as a student who knows
// CUDA basics hands them in:
//  - mc_photon: Monte Carlo photon migration in skin (MCML's hop, drop, spin, roulette), a thread a
//    photon packet of a pencil beam: exponential optical depths (logf) carried across the
//    layers' boundaries (epidermis, dermis, fat as Tissue structs in __constant__ memory,
//    index-matched), the absorbed fraction of the weight dropped at each interaction into an
//    (r, z) grid by atomicAdd (float, crowded near the beam), Henyey-Greenstein scattering
//    (sincosf, sqrtf), Russian roulette of light packets, the weight escaping through the
//    surface added to the diffuse reflectance's r bins; each from its own xorshift32 stream,
//    packets living from a few to thousands of steps;
//  - tmm_reflect: the reflectance of a 41-layer TiO2 / SiO2 quarter-wave mirror on BK7 by the
//    transfer (characteristic) matrix method, a thread a (wavelength, angle of incidence)
//    pair: per layer the Cauchy indices, the cosine of the angle in the layer (Snell), the
//    phase thickness and its sincosf, the layer's 2 x 2 complex matrix (float2 complex
//    numbers in a CMat struct) multiplied into the running products for s and p
//    polarisation; R_s and R_p from the admittances;
//  - fdtd_tm_e: the E half-step of a 2-D FDTD (Yee) simulation in TM polarisation of a
//    photonic-crystal waveguide (a square lattice of alumina rods with a row removed, a
//    graded lossy absorbing border), a thread a cell (2-D blocks): Ez updated from the curl
//    of H with the update coefficients of the cell's material (a byte map indexing
//    __constant__ tables), PEC walls at the grid's edge;
//  - speckle_stats: the statistics of camera frames of laser speckle (12-bit counts in
//    uint16): a 1024-bin intensity histogram (4 counts a bin) built in shared memory by
//    atomicAdd over a grid-stride loop, then merged into the global one, and the sums of I and
//    I^2 (for the speckle contrast) in 64-bit registers, reduced by warp shuffles and added
//    with one 64-bit atomicAdd each a warp;
//  - lp_modes: the LP modes of step-index fibres, a thread a (V-number, azimuthal order l)
//    pair, in double: the characteristic equation U J_{l-1}(U) K_l(W) + W K_{l-1}(W) J_l(U)
//    scanned over 0 < U < V (W = sqrt(V^2 - U^2)) for sign changes, each bracketed root
//    refined by bisection; J by its power series (terms until they stop counting), K_0 and
//    K_1 by the Abramowitz-Stegun polynomial approximations and K_l by upward recurrence;
//    the normalised propagation constants b = 1 - U^2 / V^2 of up to LP_MMAX modes kept in a
//    per-thread array, and the mode count;
//  - oct_resample: the k-linearisation of spectral-domain OCT: each A-scan's spectrum (a 2048-pixel
//    line camera's 12-bit counts) less the B-scan's mean spectrum, resampled from the
//    spectrometer's pixels to evenly spaced wavenumbers by linear interpolation at a table
//    of fractional pixel positions (two uint16 loads a sample from a slowly sliding
//    window), a Hann window and the dispersion compensation phase (a float2 table) applied,
//    a thread an output sample: the complex input of the depth FFT.

#define MC_LAYERS 3           // mc_photon: epidermis, dermis, subcutaneous fat
#define MC_NR 100             // the absorption grid's r bins
#define MC_NZ 100             // and z bins (the last ones catch everything beyond)
#define MC_WMIN 1e-4f         // Russian roulette under this weight
#define MC_CHANCE 0.1f        // its survival chance
#define TF_LAYERS 41          // tmm_reflect: the stack's layers
#define TF_PI 3.14159265f
#define FD_NMAT 20            // fdtd_tm_e: air, rod, 18 grades of the absorbing border
#define SP_BINS 1024          // speckle_stats: bins of 4 counts (12-bit camera)
#define LP_LMAX 16            // lp_modes: azimuthal orders l = 0 .. LP_LMAX - 1 a V-number
#define LP_MMAX 8             // radial orders kept

struct Tissue {
    float mua;        // absorption coefficient (1/mm)
    float mus;        // scattering coefficient (1/mm)
    float g;          // anisotropy (Henyey-Greenstein)
    float zbot;       // the layer's bottom (mm); the last one's far away
};

// mc_photon's layers, from the surface down (set by the host)
__constant__ Tissue c_tissue[MC_LAYERS];
// tmm_reflect's stack (set by the host): layer j (from the incident side) of thickness c_tf_d[j]
// (nm) and material c_tf_mat[j] (0 TiO2, 1 SiO2); Cauchy A, B (um^2) of TiO2, SiO2 and the substrate
__constant__ float c_tf_d[TF_LAYERS];
__constant__ int c_tf_mat[TF_LAYERS];
__constant__ float c_tf_cauchy[6];
// fdtd_tm_e's update coefficients by material (set by the host)
__constant__ float c_ca[FD_NMAT];
__constant__ float c_cb[FD_NMAT];

struct CMat {                 // a 2 x 2 complex matrix [[a, b], [c, d]]
    float2 a, b, c, d;
};

__device__ float2 cmul(float2 u, float2 v) { return make_float2(u.x * v.x - u.y * v.y, u.x * v.y + u.y * v.x); }

__device__ float2 cadd(float2 u, float2 v) { return make_float2(u.x + v.x, u.y + v.y); }

__device__ CMat cmat_mul(CMat P, CMat Q) {
    CMat R;
    R.a = cadd(cmul(P.a, Q.a), cmul(P.b, Q.c));
    R.b = cadd(cmul(P.a, Q.b), cmul(P.b, Q.d));
    R.c = cadd(cmul(P.c, Q.a), cmul(P.d, Q.c));
    R.d = cadd(cmul(P.c, Q.b), cmul(P.d, Q.d));
    return R;
}

// the reflectance of admittance eta0 on a stack of characteristic matrix M on a substrate of eta_s
__device__ float tf_reflectance(CMat M, float eta0, float eta_s) {
    float2 B = make_float2(M.a.x + M.b.x * eta_s, M.a.y + M.b.y * eta_s);
    float2 C = make_float2(M.c.x + M.d.x * eta_s, M.c.y + M.d.y * eta_s);
    float2 num = make_float2(eta0 * B.x - C.x, eta0 * B.y - C.y);
    float2 den = make_float2(eta0 * B.x + C.x, eta0 * B.y + C.y);
    return (num.x * num.x + num.y * num.y) / (den.x * den.x + den.y * den.y);
}

// J_l(x), l >= 0, by its power series
__device__ double bessj(int l, double x) {
    double term = 1.0;
    for (int k = 1; k <= l; k++) term *= 0.5 * x / k;      // (x / 2)^l / l!
    double sum = term;
    double q = -0.25 * x * x;
    for (int k = 1; k < 100; k++) {
        term *= q / ((double)k * (k + l));
        sum += term;
        if (fabs(term) < 1e-17 * fabs(sum)) break;
    }
    return sum;
}

// I_0, I_1, K_0, K_1 by the polynomial approximations of Abramowitz and Stegun 9.8.1 - 9.8.8 (x > 0)
__device__ double bessi0(double x) {
    if (x < 3.75) {
        double y = (x / 3.75) * (x / 3.75);
        return 1.0 + y * (3.5156229 + y * (3.0899424 + y * (1.2067492 + y * (0.2659732 + y * (0.0360768 +
                                                                                                y * 0.0045813)))));
    }
    double y = 3.75 / x;
    return exp(x) / sqrt(x) * (0.39894228 + y * (0.01328592 + y * (0.00225319 + y * (-0.00157565 + y * (0.00916281 +
           y * (-0.02057706 + y * (0.02635537 + y * (-0.01647633 + y * 0.00392377))))))));
}

__device__ double bessi1(double x) {
    if (x < 3.75) {
        double y = (x / 3.75) * (x / 3.75);
        return x * (0.5 + y * (0.87890594 + y * (0.51498869 + y * (0.15084934 + y * (0.02658733 +
               y * (0.00301532 + y * 0.00032411))))));
    }
    double y = 3.75 / x;
    double a = 0.02282967 + y * (-0.02895312 + y * (0.01787654 - y * 0.00420059));
    a = 0.39894228 + y * (-0.03988024 + y * (-0.00362018 + y * (0.00163801 + y * (-0.01031555 + y * a))));
    return exp(x) / sqrt(x) * a;
}

__device__ double bessk0(double x) {
    if (x <= 2.0) {
        double y = 0.25 * x * x;
        return -log(0.5 * x) * bessi0(x) + (-0.57721566 + y * (0.42278420 + y * (0.23069756 + y * (0.03488590 +
               y * (0.00262698 + y * (0.00010750 + y * 0.0000074))))));
    }
    double y = 2.0 / x;
    return exp(-x) / sqrt(x) * (1.25331414 + y * (-0.07832358 + y * (0.02189568 + y * (-0.01062446 + y * (0.00587872 +
           y * (-0.00251540 + y * 0.00053208))))));
}

__device__ double bessk1(double x) {
    if (x <= 2.0) {
        double y = 0.25 * x * x;
        return log(0.5 * x) * bessi1(x) + (1.0 / x) * (1.0 + y * (0.15443144 + y * (-0.67278579 + y * (-0.18156897 +
               y * (-0.01919402 + y * (-0.00110404 + y * (-0.00004686)))))));
    }
    double y = 2.0 / x;
    return exp(-x) / sqrt(x) * (1.25331414 + y * (0.23498619 + y * (-0.03655620 + y * (0.01504268 + y * (-0.00780353 +
           y * (0.00325614 + y * (-0.00068245)))))));
}

// the LP_l characteristic function U J_{l-1}(U) K_l(W) + W K_{l-1}(W) J_l(U) (J_{-1} = -J_1, K_{-1} = K_1)
__device__ double lp_char(int l, double U, double W) {
    double jl = bessj(l, U);
    double jm = l > 0 ? bessj(l - 1, U) : -bessj(1, U);
    double k0 = bessk0(W);
    double k1 = bessk1(W);
    double km, kl;            // K_{l-1}, K_l
    if (l == 0) {
        km = k1;
        kl = k0;
    } else {
        km = k0;
        kl = k1;
        for (int k = 1; k < l; k++) {
            double kn = km + 2.0 * k / W * kl;
            km = kl;
            kl = kn;
        }
    }
    return U * jm * kl + W * km * jl;
}

extern "C" {

__device__ float mc_rand(unsigned int &s) {                 // xorshift32, uniform in (0, 1]
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return ((s >> 8) + 1) * (1.0f / 16777216.0f);
}

// n photon packets of weight 1 entering at the origin along +z: absorb[iz * MC_NR + ir] += the
// weight absorbed in the bin (dz, dr wide; the last ones open-ended), refl[ir] += the weight
// escaping through the surface at radius in bin ir; seed[i] the packet's xorshift32 state (left
// as it ends)
__global__ void mc_photon(unsigned int *seed, float *absorb, float *refl, float dr, float dz, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int s = seed[i];
    float x = 0.0f, y = 0.0f, z = 0.0f;
    float ux = 0.0f, uy = 0.0f, uz = 1.0f;
    float w = 1.0f;
    int lay = 0;
    bool alive = true;
    while (alive) {
        // hop: an optical depth, spent layer by layer
        float tau = -logf(mc_rand(s));
        while (tau > 0.0f) {
            float mut = c_tissue[lay].mua + c_tissue[lay].mus;
            float step = tau / mut;
            float db = 1e30f;                             // distance to the layer's boundary ahead
            if (uz > 0.0f) db = (c_tissue[lay].zbot - z) / uz;
            else if (uz < 0.0f) db = ((lay > 0 ? c_tissue[lay - 1].zbot : 0.0f) - z) / uz;
            if (step <= db) {
                x += step * ux;
                y += step * uy;
                z += step * uz;
                tau = 0.0f;
            } else {
                x += db * ux;
                y += db * uy;
                z += db * uz;
                tau -= db * mut;
                if (uz < 0.0f && lay == 0) {              // out through the surface
                    int ir = min((int)(sqrtf(x * x + y * y) / dr), MC_NR - 1);
                    atomicAdd(&refl[ir], w);
                    alive = false;
                    break;
                }
                lay += uz > 0.0f ? 1 : -1;
            }
        }
        if (!alive) break;
        // drop
        Tissue T = c_tissue[lay];
        float dw = w * T.mua / (T.mua + T.mus);
        int ir = min((int)(sqrtf(x * x + y * y) / dr), MC_NR - 1);
        int iz = min((int)(z / dz), MC_NZ - 1);
        atomicAdd(&absorb[iz * MC_NR + ir], dw);
        w -= dw;
        // spin: Henyey-Greenstein
        float ct;
        if (T.g != 0.0f) {
            float q = (1.0f - T.g * T.g) / (1.0f - T.g + 2.0f * T.g * mc_rand(s));
            ct = fminf(fmaxf((1.0f + T.g * T.g - q * q) / (2.0f * T.g), -1.0f), 1.0f);
        } else {
            ct = 2.0f * mc_rand(s) - 1.0f;
        }
        float st = sqrtf(1.0f - ct * ct);
        float sp, cp;
        sincosf(6.2831853f * mc_rand(s), &sp, &cp);
        if (fabsf(uz) > 0.99999f) {
            ux = st * cp;
            uy = st * sp;
            uz = uz > 0.0f ? ct : -ct;
        } else {
            float r = sqrtf(1.0f - uz * uz);
            float nx = st * (ux * uz * cp - uy * sp) / r + ux * ct;
            float ny = st * (uy * uz * cp + ux * sp) / r + uy * ct;
            uz = -st * cp * r + uz * ct;
            ux = nx;
            uy = ny;
        }
        // roulette
        if (w < MC_WMIN) {
            if (mc_rand(s) <= MC_CHANCE) w /= MC_CHANCE;
            else alive = false;
        }
    }
    seed[i] = s;
}

// R_s and R_p of the c_tf stack (incident from air) at wavelength lam0 + (i % nlam) dlam (nm)
// and angle of incidence (i / nlam) dtheta (radians), i < n
__global__ void tmm_reflect(float *Rs, float *Rp, float lam0, float dlam, int nlam, float dtheta, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float lam = lam0 + (i % nlam) * dlam;
    float th = (i / nlam) * dtheta;
    float s0 = sinf(th);
    float c0 = cosf(th);
    float lu = lam * 1e-3f;                              // um, for the Cauchy formula
    float il2 = 1.0f / (lu * lu);
    CMat Ms, Mp;
    Ms.a = make_float2(1.0f, 0.0f);
    Ms.b = make_float2(0.0f, 0.0f);
    Ms.c = make_float2(0.0f, 0.0f);
    Ms.d = make_float2(1.0f, 0.0f);
    Mp = Ms;
    for (int j = 0; j < TF_LAYERS; j++) {
        int m = c_tf_mat[j];
        float nj = c_tf_cauchy[2 * m] + c_tf_cauchy[2 * m + 1] * il2;
        float sj = s0 / nj;                              // Snell's law from air
        float cj = sqrtf(1.0f - sj * sj);
        float delta = 2.0f * TF_PI * nj * c_tf_d[j] * cj / lam;
        float sd, cd;
        sincosf(delta, &sd, &cd);
        float es = nj * cj;                              // the layer's admittances
        float ep = nj / cj;
        CMat Ls, Lp;
        Ls.a = make_float2(cd, 0.0f);
        Ls.b = make_float2(0.0f, sd / es);
        Ls.c = make_float2(0.0f, es * sd);
        Ls.d = make_float2(cd, 0.0f);
        Lp.a = Ls.a;
        Lp.b = make_float2(0.0f, sd / ep);
        Lp.c = make_float2(0.0f, ep * sd);
        Lp.d = Ls.d;
        Ms = cmat_mul(Ms, Ls);
        Mp = cmat_mul(Mp, Lp);
    }
    float ns = c_tf_cauchy[4] + c_tf_cauchy[5] * il2;
    float ss = s0 / ns;
    float cs = sqrtf(1.0f - ss * ss);
    Rs[i] = tf_reflectance(Ms, c0, ns * cs);
    Rp[i] = tf_reflectance(Mp, 1.0f / c0, ns / cs);
}

// the E half-step on an nx x ny Yee grid (row-major): Ez = ca Ez + cb ((Hy - Hy left) - (Hx - Hx below))
// with the coefficients of the cell's material; the edge cells are PEC (Ez stays 0)
__global__ void fdtd_tm_e(float *Ez, const float *Hx, const float *Hy, const unsigned char *mat, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
    int i = y * nx + x;
    int m = mat[i];
    Ez[i] = c_ca[m] * Ez[i] + c_cb[m] * ((Hy[i] - Hy[i - 1]) - (Hx[i] - Hx[i - nx]));
}

// n 12-bit pixels: hist[v / 4] += 1 for each, moments[0] += sum v, moments[1] += sum v^2
// (blockDim.x a multiple of 32)
__global__ void speckle_stats(const unsigned short *img, unsigned int *hist, unsigned long long *moments, int n) {
    __shared__ unsigned int h[SP_BINS];
    for (int b = threadIdx.x; b < SP_BINS; b += blockDim.x) h[b] = 0;
    __syncthreads();
    unsigned long long s1 = 0;
    unsigned long long s2 = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned int v = img[i];
        atomicAdd(&h[v >> 2], 1u);
        s1 += v;
        s2 += v * v;
    }
    for (int o = 16; o > 0; o >>= 1) {
        s1 += __shfl_down_sync(0xffffffff, s1, o);
        s2 += __shfl_down_sync(0xffffffff, s2, o);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&moments[0], s1);
        atomicAdd(&moments[1], s2);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < SP_BINS; b += blockDim.x)
        if (h[b] > 0) atomicAdd(&hist[b], h[b]);
}

// thread i: the LP_l modes (l = i % LP_LMAX) of a fibre of V-number V[i / LP_LMAX], the scan in steps of
// about du, the roots bisected to tol V: b[i * LP_MMAX + m] the m-th root's b = 1 - U^2 / V^2 (in
// decreasing b; 0 past the last), nmodes[i] the roots found
__global__ void lp_modes(const double *V, double du, double tol, double *b, int *nmodes, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = V[i / LP_LMAX];
    int l = i % LP_LMAX;
    double roots[LP_MMAX];
    int m = 0;
    int ns = (int)(v / du) + 1;                          // scan intervals over 0 < U < V
    double Up = v / ns;
    double fp = lp_char(l, Up, sqrt(v * v - Up * Up));
    for (int k = 2; k <= ns && m < LP_MMAX; k++) {
        double U = k < ns ? v * k / ns : v * (1.0 - 1e-9);  // the last just short of the cutoff
        double f = lp_char(l, U, sqrt(v * v - U * U));
        if ((f > 0.0) != (fp > 0.0)) {                   // a root in (Up, U): bisection
            double lo = Up;
            double hi = U;
            double flo = fp;
            while (hi - lo > tol * v) {
                double mid = 0.5 * (lo + hi);
                double fm = lp_char(l, mid, sqrt(v * v - mid * mid));
                if ((fm > 0.0) == (flo > 0.0)) {
                    lo = mid;
                    flo = fm;
                } else {
                    hi = mid;
                }
            }
            double u = 0.5 * (lo + hi) / v;
            roots[m] = 1.0 - u * u;
            m++;
        }
        Up = U;
        fp = f;
    }
    for (int k = 0; k < LP_MMAX; k++) b[i * LP_MMAX + k] = k < m ? roots[k] : 0.0;
    nmodes[i] = m;
}

// n samples (A-scans of npix): out[a * npix + j] = ((spec - dc) at pixel kidx[j], linearly
// interpolated) win[j] disp[j]
__global__ void oct_resample(const unsigned short *spec, const float *dc, const float *kidx, const float *win,
                             const float2 *disp, float2 *out, int npix, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a = i / npix;
    int j = i - a * npix;
    float p = kidx[j];
    int p0 = min((int)p, npix - 2);
    float t = p - p0;
    const unsigned short *s = spec + (size_t)a * npix;
    float v0 = s[p0] - dc[p0];
    float v1 = s[p0 + 1] - dc[p0 + 1];
    float v = (v0 + t * (v1 - v0)) * win[j];
    float2 d = disp[j];
    out[i] = make_float2(v * d.x, v * d.y);
}

}
