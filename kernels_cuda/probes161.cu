// probe-unseen159: a semiconductor device simulation course's CUDA assignments, as a student
// who knows CUDA basics hands them in (potentials psi in thermal voltages kT/q, carrier
// densities in units of the intrinsic density ni):
//  - sg_electron_residual: the electron continuity equation's residual on a graded 2-D
//    tensor mesh (a p-n diode), a thread a node (2-D blocks): the Scharfetter-Gummel
//    currents on the node's 4 edges (the Bernoulli function by expm1f, B(-x) = B(x) + x),
//    their divergence over the box-method control volume minus the SRH recombination in
//    it; the contact columns (x = 0, nx - 1) Dirichlet (residual 0), zero flux top and bottom;
//  - nlpoisson_rbsor: one colour's half-sweep of a nonlinear (Newton-)SOR solve of the
//    equilibrium Poisson equation lam2 lap(psi) = n - p - N with Boltzmann carriers on a
//    uniform mesh (a MOSFET's doping), a 16 x 16 block staging its tile of psi with a
//    one-node halo in shared memory; red-black with two buffers (the other colour and the
//    Dirichlet boundary copied through) so no block reads a node another one writes;
//  - emc_flight: ensemble Monte Carlo of conduction electrons (one parabolic valley) for one
//    time step dt, a thread an electron: free flights under the field (self-scattering at the
//    constant total rate MC_GAMMA) each ended by a mechanism picked from the cumulative
//    scattering-rate table at the electron's energy (acoustic, intervalley absorption and
//    emission: isotropic; ionised impurity: a Brooks-Herring angle about the old direction;
//    else self-scattering), each electron's own xorshift32 stream;
//  - charge_assign: cloud-in-cell assignment of the ensemble's electrons and holes to the
//    nodes of a graded 2-D mesh, a thread a particle: its cell by binary searches of the
//    mesh lines, 4 atomicAdds into the species' density array (particles left the device
//    skipped);
//  - fermi_dirac_n: the electron density and its derivative per node from the Fermi-Dirac
//    integrals F_{1/2} and F_{-1/2} in double precision: their alternating series where
//    eta < -2, else a 128-point trapezoid rule in u = sqrt(t) (exponentially accurate);
//  - tmd_bands: a k-point sweep of a MoS2 monolayer's three-band tight-binding model (the
//    parameters a struct in __constant__), a thread a k-point of a Monkhorst-Pack grid: the
//    3 x 3 Hermitian H(k) from sines and cosines, its eigenvalues in closed form (Smith's
//    trigonometric solution: sqrtf, acosf, cosf); each block's density-of-states histogram
//    of the bands in shared memory (atomicAdd) added to the global one.

#define SG_EPS 1e-4f          // sg_electron_residual: |x| under this, B(x) = 1 - x / 2
#define PS_TILE 16            // nlpoisson_rbsor: blockDim.x == blockDim.y
#define MC_NE 1024            // emc_flight: energy bins of the scattering table
#define MC_DE 0.002f          // the bins' width (eV)
#define MC_NMECH 4            // mechanisms, cumulative rates (1/ps) at [bin * MC_NMECH + m]
#define MC_GAMMA 100.0f       // the total (self-scattering) rate (1/ps)
#define MC_HW 0.063f          // the intervalley phonon's energy (eV)
#define MC_CK 0.1465f         // E = MC_CK |k|^2 (eV, k in 1/nm): hbar^2 / (2 m*), m* = 0.26
#define MC_QH 0.1519f         // q / hbar: dk/dt (1/(nm ps)) per kV/cm
#define MC_EB 0.004f          // the Brooks-Herring screening energy hbar^2 beta^2 / (2 m*) (eV)
#define MC_TWO_PI 6.28318531f
#define FD_NQ 128             // fermi_dirac_n: trapezoid points
#define FD_UPAD 40.0          // the rule covers u^2 - eta up to this
#define TM_NBIN 256           // tmd_bands: density-of-states bins
#define SQRT3 1.7320508f

// tmd_bands' parameters (eV; set by the host): the three-band nearest-neighbour model of a
// MX2 monolayer (Liu et al., PRB 88, 085433 (2013)): on-site energies and hoppings
struct TMDParams {
    float e1, e2;
    float t0, t1, t2, t11, t12, t22;
};
__constant__ TMDParams c_tmd;

// the Bernoulli function x / (e^x - 1)
__device__ float bern(float x) {
    if (fabsf(x) < SG_EPS) return 1.0f - 0.5f * x;
    return x / expm1f(x);
}

// the electron current leaving node a toward node b a distance h away: D/h (n_b B(d) - n_a B(-d)),
// d = psi_b - psi_a
__device__ float sg_flux(float psia, float psib, float na, float nb, float D, float h) {
    float d = psib - psia;
    float b = bern(d);
    return D / h * (nb * b - na * (b + d));
}

__device__ float mc_uniform(unsigned int &s) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return (float)((s >> 8) | 1u) * (1.0f / 16777216.0f);     // uniform in (0, 1)
}

extern "C" {

// res[i] for the nx x ny nodes (row-major) of a tensor mesh with spacings hx (nx - 1),
// hy (ny - 1): net electron current out of node i's control volume minus its SRH
// recombination (n p - 1) / (taup (n + 1) + taun (p + 1)) times the volume
__global__ void sg_electron_residual(const float *psi, const float *n, const float *p, const float *hx,
                                     const float *hy, float *res, int nx, int ny, float Dn, float taun,
                                     float taup) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    if (x == 0 || x == nx - 1) {            // ohmic contacts
        res[i] = 0.0f;
        return;
    }
    float ps = psi[i];
    float nc = n[i];
    float pc = p[i];
    float hw = hx[x - 1];
    float he = hx[x];
    float Je = sg_flux(ps, psi[i + 1], nc, n[i + 1], Dn, he);
    float Jw = sg_flux(ps, psi[i - 1], nc, n[i - 1], Dn, hw);
    float Jn = 0.0f;
    float Js = 0.0f;
    float hs = 0.0f;
    float hn = 0.0f;
    if (y > 0) {
        hs = hy[y - 1];
        Js = sg_flux(ps, psi[i - nx], nc, n[i - nx], Dn, hs);
    }
    if (y < ny - 1) {
        hn = hy[y];
        Jn = sg_flux(ps, psi[i + nx], nc, n[i + nx], Dn, hn);
    }
    float wx = 0.5f * (hw + he);            // the control volume's sides
    float wy = 0.5f * (hs + hn);
    float R = (nc * pc - 1.0f) / (taup * (nc + 1.0f) + taun * (pc + 1.0f));
    res[i] = (Je + Jw) * wy + (Jn + Js) * wx - R * wx * wy;
}

// psi2 = psi with the nodes of colour (x + y) % 2 == color inside the boundary moved by one
// Newton-SOR step of lam2 lap(psi) - (e^(psi - phin) - e^(phip - psi) - dop) = 0 (blockDim
// PS_TILE x PS_TILE)
__global__ void nlpoisson_rbsor(const float *psi, float *psi2, const float *dop, float lam2, float phin,
                                float phip, float omega, int nx, int ny, int color) {
    __shared__ float t[PS_TILE + 2][PS_TILE + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * PS_TILE + tx;
    int y = blockIdx.y * PS_TILE + ty;
    bool in = x < nx && y < ny;
    float c = in ? psi[y * nx + x] : 0.0f;
    t[ty + 1][tx + 1] = c;
    if (tx == 0) t[ty + 1][0] = (x > 0 && y < ny) ? psi[y * nx + x - 1] : 0.0f;
    if (tx == PS_TILE - 1) t[ty + 1][PS_TILE + 1] = (x + 1 < nx && y < ny) ? psi[y * nx + x + 1] : 0.0f;
    if (ty == 0) t[0][tx + 1] = (y > 0 && x < nx) ? psi[(y - 1) * nx + x] : 0.0f;
    if (ty == PS_TILE - 1) t[PS_TILE + 1][tx + 1] = (y + 1 < ny && x < nx) ? psi[(y + 1) * nx + x] : 0.0f;
    __syncthreads();
    if (!in) return;
    float v = c;
    if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1 && ((x + y) & 1) == color) {
        float lap = t[ty + 1][tx] + t[ty + 1][tx + 2] + t[ty][tx + 1] + t[ty + 2][tx + 1] - 4.0f * c;
        float ne = expf(c - phin);
        float pe = expf(phip - c);
        float f = lam2 * lap - (ne - pe - dop[y * nx + x]);
        v = c + omega * f / (4.0f * lam2 + ne + pe);
    }
    psi2[y * nx + x] = v;
}

// n electrons (wave vectors kx, ky, kz in 1/nm, the rest of their current free flight ts in
// ps, rng states: updated) advanced by dt ps in a field (kV/cm) along x; nscat[i] += the
// real scatterings; cumrate: cumulative rates (1/ps) at the bins' lower energies
__global__ void emc_flight(float *kx, float *ky, float *kz, float *ts, unsigned int *rng, int *nscat,
                           const float *cumrate, float field, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float ax = -MC_QH * field;              // electrons accelerate against the field
    float x = kx[i];
    float y = ky[i];
    float z = kz[i];
    float tf = ts[i];
    unsigned int s = rng[i];
    int cnt = 0;
    float t = 0.0f;
    while (t + tf < dt) {
        x += ax * tf;                       // free flight to the next scattering
        t += tf;
        float k2 = x * x + y * y + z * z;
        float E = MC_CK * k2;
        int b = min((int)(E / MC_DE), MC_NE - 1);
        const float *w = cumrate + b * MC_NMECH;
        float r = mc_uniform(s) * MC_GAMMA;
        if (r < w[3]) {                     // a real scattering
            float k;
            if (r < w[0]) {
                k = sqrtf(k2);                          // acoustic: elastic
            } else if (r < w[1]) {
                k = sqrtf((E + MC_HW) / MC_CK);         // intervalley, phonon absorbed
            } else if (r < w[2]) {
                k = sqrtf((E - MC_HW) / MC_CK);         // intervalley, phonon emitted
            } else {
                k = -1.0f;                              // ionised impurity
            }
            float u1 = mc_uniform(s);
            float phi = MC_TWO_PI * mc_uniform(s);
            float sp = sinf(phi);
            float cp = cosf(phi);
            if (k >= 0.0f) {                // isotropic
                float ct = 1.0f - 2.0f * u1;
                float st = sqrtf(1.0f - ct * ct);
                x = k * st * cp;
                y = k * st * sp;
                z = k * ct;
            } else {                        // Brooks-Herring: cos(theta) about the old direction
                k = sqrtf(k2);
                float ct = 1.0f - 2.0f * u1 / (1.0f + (1.0f - u1) * 4.0f * E / MC_EB);
                float st = sqrtf(fmaxf(1.0f - ct * ct, 0.0f));
                float a = x / k;
                float bb = y / k;
                float c = z / k;
                float q = 1.0f - c * c;
                if (q < 1e-8f) {
                    x = k * st * cp;
                    y = k * st * sp;
                    z = k * (c > 0.0f ? ct : -ct);
                } else {
                    float sq = sqrtf(q);
                    x = k * (a * ct + st * (a * c * cp - bb * sp) / sq);
                    y = k * (bb * ct + st * (bb * c * cp + a * sp) / sq);
                    z = k * (c * ct - st * sq * cp);
                }
            }
            cnt++;
        }
        tf = -logf(mc_uniform(s)) / MC_GAMMA;
    }
    x += ax * (dt - t);
    kx[i] = x;
    ky[i] = y;
    kz[i] = z;
    ts[i] = tf - (dt - t);
    rng[i] = s;
    nscat[i] += cnt;
}

// n particles (x, y in um; species 0 an electron, 1 a hole) each of weight w assigned by
// cloud-in-cell to the nodes of the mesh with lines xg (nx, increasing), yg (ny): rho_n,
// rho_p (ny x nx, row-major) += the weights; a particle outside the mesh skipped
__global__ void charge_assign(const float *px, const float *py, const int *species, const float *xg,
                              const float *yg, float *rho_n, float *rho_p, float w, int nx, int ny, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = px[i];
    float y = py[i];
    if (x < xg[0] || x > xg[nx - 1] || y < yg[0] || y > yg[ny - 1]) return;   // left at a contact
    int lo = 0;
    int hi = nx - 1;
    while (hi - lo > 1) {                   // xg[lo] <= x <= xg[hi]
        int mid = (lo + hi) / 2;
        if (xg[mid] <= x) lo = mid;
        else hi = mid;
    }
    int cx = lo;
    lo = 0;
    hi = ny - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (yg[mid] <= y) lo = mid;
        else hi = mid;
    }
    int cy = lo;
    float fx = (x - xg[cx]) / (xg[cx + 1] - xg[cx]);
    float fy = (y - yg[cy]) / (yg[cy + 1] - yg[cy]);
    float *rho = species[i] == 0 ? rho_n : rho_p;
    int k = cy * nx + cx;
    atomicAdd(&rho[k], w * (1.0f - fx) * (1.0f - fy));
    atomicAdd(&rho[k + 1], w * fx * (1.0f - fy));
    atomicAdd(&rho[k + nx], w * (1.0f - fx) * fy);
    atomicAdd(&rho[k + nx + 1], w * fx * fy);
}

// at each of count nodes, eta = psi - phin + eta0: n = Nc F_{1/2}(eta), dn = Nc F_{-1/2}(eta)
// (= dn/dpsi), the Fermi-Dirac integrals normalised as F_j(eta) = 1 / Gamma(j + 1)
// int_0^inf t^j / (1 + e^(t - eta)) dt
__global__ void fermi_dirac_n(const double *psi, const double *phin, double *n, double *dn, double eta0,
                              double Nc, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    double eta = psi[i] - phin[i] + eta0;
    double F = 0.0;
    double dF = 0.0;
    if (eta < -2.0) {
        // F_j = sum_k (-1)^(k + 1) e^(k eta) / k^(j + 1)
        double x = exp(eta);
        double xk = x;
        double sgn = 1.0;
        for (int k = 1; k <= 64; k++) {
            double rk = sqrt((double)k);
            F += sgn * xk / (k * rk);
            dF += sgn * xk / rk;
            xk *= x;
            if (xk < 1e-17 * x) break;
            sgn = -sgn;
        }
    } else {
        // t = u^2: F_{1/2} = 4 / sqrt(pi) int u^2 f du, F_{-1/2} = 4 / sqrt(pi) int u^2 f (1 - f) du
        double h = sqrt(eta + FD_UPAD) / FD_NQ;
        for (int j = 1; j <= FD_NQ; j++) {
            double u = j * h;
            double f = 1.0 / (1.0 + exp(u * u - eta));
            F += u * u * f;
            dF += u * u * f * (1.0 - f);
        }
        F *= 2.2567583341910251 * h;        // 4 / sqrt(pi)
        dF *= 2.2567583341910251 * h;
    }
    n[i] = Nc * F;
    dn[i] = Nc * dF;
}

// the 3 bands (eV, ascending) of the monolayer at nk k-points (kx, ky in 1/A; a the lattice
// constant, A) into bands; dos[b] += the bands in [emin + b / inv_de, emin + (b + 1) / inv_de)
__global__ void tmd_bands(const float *kx, const float *ky, float *bands, int *dos, float a, float emin,
                          float inv_de, int nk) {
    __shared__ int hist[TM_NBIN];
    for (int b = threadIdx.x; b < TM_NBIN; b += blockDim.x) hist[b] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nk) {
        float al = 0.5f * kx[i] * a;                // alpha = kx a / 2, beta = sqrt(3) ky a / 2
        float be = 0.8660254f * ky[i] * a;
        float sa, ca, s2a, c2a, sb, cb;
        sincosf(al, &sa, &ca);
        sincosf(2.0f * al, &s2a, &c2a);
        sincosf(be, &sb, &cb);
        TMDParams P = c_tmd;
        // H = [[h0, h1, h2], [h1*, h11, h12], [h2*, h12*, h22]] on d_z2, d_xy, d_x2-y2
        float h0 = P.e1 + 2.0f * P.t0 * (2.0f * ca * cb + c2a);
        float h1r = -2.0f * SQRT3 * P.t2 * sa * sb;
        float h1i = 2.0f * P.t1 * (s2a + sa * cb);
        float h2r = 2.0f * P.t2 * (c2a - ca * cb);
        float h2i = 2.0f * SQRT3 * P.t1 * ca * sb;
        float h11 = P.e2 + (P.t11 + 3.0f * P.t22) * ca * cb + 2.0f * P.t11 * c2a;
        float h22 = P.e2 + (3.0f * P.t11 + P.t22) * ca * cb + 2.0f * P.t22 * c2a;
        float h12r = SQRT3 * (P.t22 - P.t11) * sa * sb;
        float h12i = 4.0f * P.t12 * sa * (ca - cb);
        // eigenvalues of a 3 x 3 Hermitian matrix (Smith 1961): B = (H - q I) / p,
        // e = q + 2 p cos(acos(det(B) / 2) / 3 + 2 pi j / 3)
        float q = (h0 + h11 + h22) / 3.0f;
        float b0 = h0 - q;
        float b1 = h11 - q;
        float b2 = h22 - q;
        float m1 = h1r * h1r + h1i * h1i;
        float m2 = h2r * h2r + h2i * h2i;
        float m12 = h12r * h12r + h12i * h12i;
        float p = sqrtf((b0 * b0 + b1 * b1 + b2 * b2 + 2.0f * (m1 + m2 + m12)) / 6.0f);
        // Re(h1 h12 conj(h2))
        float tr = (h1r * h12r - h1i * h12i) * h2r + (h1r * h12i + h1i * h12r) * h2i;
        float det = b0 * b1 * b2 + 2.0f * tr - b0 * m12 - b1 * m2 - b2 * m1;
        float r = det / (2.0f * p * p * p);
        r = fminf(fmaxf(r, -1.0f), 1.0f);          // rounding at degeneracies
        float phi = acosf(r) / 3.0f;
        float e[3];
        e[2] = q + 2.0f * p * cosf(phi);
        e[0] = q + 2.0f * p * cosf(phi + 2.0943951f);
        e[1] = 3.0f * q - e[0] - e[2];
        for (int b = 0; b < 3; b++) {
            bands[3 * i + b] = e[b];
            int bin = (int)floorf((e[b] - emin) * inv_de);
            if (bin >= 0 && bin < TM_NBIN) atomicAdd(&hist[bin], 1);
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < TM_NBIN; b += blockDim.x)
        if (hist[b] > 0) atomicAdd(&dos[b], hist[b]);
}

}
