// probe-unseen120: an optics / photonics course's CUDA assignments, as a student who knows
// CUDA basics hands them in.
//
// fresnel_direct:  the Fresnel diffraction integral by direct summation: the field on an
//                  nx x ny observation screen, U(X, Y) = sum_k a_k exp(i alpha ((X - xi_k)^2
//                  + (Y - eta_k)^2)) with alpha = pi / (lambda z), over m points sampled in
//                  the aperture (Monte-Carlo quadrature of an annulus); a thread a screen
//                  pixel (16 x 16 blocks), the aperture points staged through shared memory
//                  a tile of FR_TILE at a time (as in an n-body code), a sincosf a term;
//                  the intensity |U|^2 stored.
// lens_trace:      sequential ray tracing through a lens stack of NSURF spherical surfaces
//                  (a Cooke triplet; the prescription in __constant__ memory): a thread a
//                  ray (x, y, L, M) from the plane z = 0, a step to each surface's vertex
//                  plane, the intersection with the sphere, the clear-aperture check and the
//                  vector form of Snell's law; a ray that misses a surface, falls outside
//                  its aperture or is totally reflected stops there (its surface index
//                  stored), the others land on the image plane (their spot stored).
// thinfilm_R:      the reflectance spectrum of multilayer coatings by the characteristic
//                  (transfer) matrix method at normal incidence: a thread a (coating,
//                  wavelength) pair, NLAYERS layers' 2 x 2 complex matrices multiplied in
//                  cuFloatComplex (the layers' indices in __constant__ memory, the coating's
//                  thicknesses read from global memory: a Monte-Carlo tolerance study of a
//                  quarter-wave Bragg mirror), R = |r|^2 stored.
// tcspc_hist:      time-correlated single photon counting: decoding HydraHarp T3 records
//                  (special bit, 6-bit channel, 15-bit dtime, 10-bit nsync) into per-channel
//                  decay histograms (TC_CH channels x TC_BINS bins of dtime >> DT_SHIFT),
//                  a histogram a block in shared memory (atomicAdd), TC_PER records a thread
//                  (grid-stride), overflow and marker records skipped, the block's non-zero
//                  bins added to the global histogram by atomicAdd.
// bpm_kstep:       the diffraction half of a split-step (Fourier) beam-propagation step: the
//                  field's 2-D spectrum (cuFFT's layout, zero frequency at index 0) multiplied
//                  in place by the paraxial propagator exp(-i dz (kx^2 + ky^2) / (2 k)) and by
//                  the 1 / (nx ny) of cuFFT's unnormalized inverse; a thread an element, 32 x 8
//                  blocks, the frequencies from the indices.
// mie_q:           Mie scattering by homogeneous spheres (Bohren & Huffman's BHMIE, real
//                  relative index m, double precision): a thread a particle of a polydisperse
//                  sample (size parameter x), the logarithmic derivative D_n(mx) by downward
//                  recurrence into a per-thread array, then nstop = x + 4 x^(1/3) + 2 terms of
//                  the Riccati-Bessel upward recurrences and the coefficients a_n, b_n; the
//                  extinction and scattering efficiencies and the terms used stored (the loops'
//                  trip counts follow x: divergent warps).

#define FR_TILE 256        // fresnel_direct: aperture points a shared-memory tile (== threads a block)
#define NSURF 6            // lens_trace: refracting surfaces
#define NLAYERS 24         // thinfilm_R: layers a coating
#define TC_CH 4            // tcspc_hist: detector channels histogrammed
#define TC_BINS 2048       // tcspc_hist: bins a channel
#define DT_SHIFT 4         // tcspc_hist: dtime units a bin = 2^DT_SHIFT
#define TC_PER 64          // tcspc_hist: records a thread (the host sizes the grid by it)
#define MIE_NMAX 256       // mie_q: the longest D_n recurrence (x <= 120 at m <= 1.6)

#include <cuComplex.h>

// lens_trace's prescription (set by the host): each surface's curvature 1/R (0 for a
// plane), the z of its vertex, the refractive index after it and its clear semi-aperture
__constant__ float c_curv[NSURF];
__constant__ float c_zv[NSURF];
__constant__ float c_nafter[NSURF];
__constant__ float c_semi[NSURF];

// thinfilm_R's layer indices (set by the host), from the incidence side
__constant__ float c_nlayer[NLAYERS];

extern "C" {

// |U|^2 on the screen pixel (ix, iy) at X = x0 + ix dx, Y = y0 + iy dx, U the sum over the m
// aperture points (ax, ay) of amp exp(i alpha r^2)
__global__ void fresnel_direct(const float *ax, const float *ay, const float *amp, int m, float *intensity,
                               float x0, float y0, float dx, float alpha, int nx, int ny) {
    __shared__ float s_x[FR_TILE];
    __shared__ float s_y[FR_TILE];
    __shared__ float s_a[FR_TILE];
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    float X = x0 + ix * dx;
    float Y = y0 + iy * dx;
    float re = 0.0f;
    float im = 0.0f;
    for (int base = 0; base < m; base += FR_TILE) {
        int k = base + t;
        if (k < m) {
            s_x[t] = ax[k];
            s_y[t] = ay[k];
            s_a[t] = amp[k];
        }
        __syncthreads();
        int cnt = min(FR_TILE, m - base);
        for (int j = 0; j < cnt; j++) {
            float ddx = X - s_x[j];
            float ddy = Y - s_y[j];
            float ph = alpha * (ddx * ddx + ddy * ddy);
            float s, c;
            sincosf(ph, &s, &c);
            re += s_a[j] * c;
            im += s_a[j] * s;
        }
        __syncthreads();
    }
    if (ix < nx && iy < ny) intensity[iy * nx + ix] = re * re + im * im;
}

// n rays (x, y, L, M) from z = 0 in air (N = sqrt(1 - L^2 - M^2)) traced through the NSURF
// surfaces to the plane z = z_image: spot[i] the landing point and lost[i] = -1, or lost[i]
// the surface where the ray was stopped (missed, vignetted, TIR) and spot[i] = (0, 0)
__global__ void lens_trace(const float4 *rays, float2 *spot, int *lost, float z_image, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 r = rays[i];
    float x = r.x, y = r.y, z = 0.0f;
    float L = r.z, M = r.w;
    float N = sqrtf(1.0f - L * L - M * M);
    float n1 = 1.0f;
    int stop = -1;
    for (int s = 0; s < NSURF; s++) {
        float c = c_curv[s];
        // to the vertex plane
        float t0 = (c_zv[s] - z) / N;
        x += t0 * L;
        y += t0 * M;
        // to the sphere: t = F / (G + sqrt(G^2 - c F))
        float F = c * (x * x + y * y);
        float G = N - c * (x * L + y * M);
        float disc = G * G - c * F;
        if (disc < 0.0f) { stop = s; break; }
        float t = F / (G + sqrtf(disc));
        x += t * L;
        y += t * M;
        float zl = t * N;
        z = c_zv[s] + zl;
        if (x * x + y * y > c_semi[s] * c_semi[s]) { stop = s; break; }
        // the unit normal and Snell's law
        float nx = -c * x, ny = -c * y, nz = 1.0f - c * zl;
        float n2 = c_nafter[s];
        float mu = n1 / n2;
        float cosi = L * nx + M * ny + N * nz;
        float k = 1.0f - mu * mu * (1.0f - cosi * cosi);
        if (k < 0.0f) { stop = s; break; }
        float g = sqrtf(k) - mu * cosi;
        L = mu * L + g * nx;
        M = mu * M + g * ny;
        N = mu * N + g * nz;
        n1 = n2;
    }
    if (stop < 0) {
        float t = (z_image - z) / N;
        spot[i] = make_float2(x + t * L, y + t * M);
    } else {
        spot[i] = make_float2(0.0f, 0.0f);
    }
    lost[i] = stop;
}

// the normal-incidence reflectance of n / nw coatings at nw wavelengths each: thread i the
// coating i / nw (thicknesses d[coating NLAYERS ..], nm) at lambda = lam0 + (i % nw) dlam;
// ambient index n_inc, substrate n_sub
__global__ void thinfilm_R(const float *d, float *R, float lam0, float dlam, float n_inc, float n_sub, int nw,
                           int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int coat = i / nw;
    float lam = lam0 + (i % nw) * dlam;
    cuFloatComplex m11 = make_cuFloatComplex(1.0f, 0.0f);
    cuFloatComplex m12 = make_cuFloatComplex(0.0f, 0.0f);
    cuFloatComplex m21 = make_cuFloatComplex(0.0f, 0.0f);
    cuFloatComplex m22 = make_cuFloatComplex(1.0f, 0.0f);
    for (int l = 0; l < NLAYERS; l++) {
        float nl = c_nlayer[l];
        float delta = 2.0f * 3.14159265f * nl * d[coat * NLAYERS + l] / lam;
        float s, c;
        sincosf(delta, &s, &c);
        // the layer's matrix [[cos, i sin / n], [i n sin, cos]]
        cuFloatComplex a11 = make_cuFloatComplex(c, 0.0f);
        cuFloatComplex a12 = make_cuFloatComplex(0.0f, s / nl);
        cuFloatComplex a21 = make_cuFloatComplex(0.0f, nl * s);
        cuFloatComplex a22 = make_cuFloatComplex(c, 0.0f);
        cuFloatComplex b11 = cuCaddf(cuCmulf(m11, a11), cuCmulf(m12, a21));
        cuFloatComplex b12 = cuCaddf(cuCmulf(m11, a12), cuCmulf(m12, a22));
        cuFloatComplex b21 = cuCaddf(cuCmulf(m21, a11), cuCmulf(m22, a21));
        cuFloatComplex b22 = cuCaddf(cuCmulf(m21, a12), cuCmulf(m22, a22));
        m11 = b11;
        m12 = b12;
        m21 = b21;
        m22 = b22;
    }
    // [B; C] = M [1; n_sub], r = (n_inc B - C) / (n_inc B + C)
    cuFloatComplex ns = make_cuFloatComplex(n_sub, 0.0f);
    cuFloatComplex ni = make_cuFloatComplex(n_inc, 0.0f);
    cuFloatComplex B = cuCaddf(m11, cuCmulf(m12, ns));
    cuFloatComplex C = cuCaddf(m21, cuCmulf(m22, ns));
    cuFloatComplex r = cuCdivf(cuCsubf(cuCmulf(ni, B), C), cuCaddf(cuCmulf(ni, B), C));
    R[i] = cuCrealf(r) * cuCrealf(r) + cuCimagf(r) * cuCimagf(r);
}

// the decay histograms hist[ch * TC_BINS + (dtime >> DT_SHIFT)] of nrec T3 records (bit 31
// special, bits 25..30 channel, 10..24 dtime, 0..9 nsync); specials and channels >= TC_CH
// skipped
__global__ void tcspc_hist(const unsigned int *rec, unsigned int *hist, int nrec) {
    __shared__ unsigned int s_hist[TC_CH * TC_BINS];
    for (int k = threadIdx.x; k < TC_CH * TC_BINS; k += blockDim.x) s_hist[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nrec; i += gridDim.x * blockDim.x) {
        unsigned int r = rec[i];
        unsigned int special = r >> 31;
        unsigned int ch = (r >> 25) & 0x3f;
        unsigned int dtime = (r >> 10) & 0x7fff;
        if (special == 0 && ch < TC_CH) {
            atomicAdd(&s_hist[ch * TC_BINS + (dtime >> DT_SHIFT)], 1u);
        }
    }
    __syncthreads();
    for (int k = threadIdx.x; k < TC_CH * TC_BINS; k += blockDim.x) {
        unsigned int v = s_hist[k];
        if (v > 0) atomicAdd(&hist[k], v);
    }
}

// E[iy nx + ix] *= scale exp(-i coef (kx^2 + ky^2)), kx = dkx (ix or ix - nx past nx / 2),
// ky likewise; coef = dz / (2 k) and scale = 1 / (nx ny) from the host
__global__ void bpm_kstep(float2 *E, float coef, float dkx, float dky, float scale, int nx, int ny) {
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix >= nx || iy >= ny) return;
    float kx = (ix < nx / 2 ? ix : ix - nx) * dkx;
    float ky = (iy < ny / 2 ? iy : iy - ny) * dky;
    float ph = -coef * (kx * kx + ky * ky);
    float s, c;
    sincosf(ph, &s, &c);
    int idx = iy * nx + ix;
    float2 e = E[idx];
    float re = e.x * c - e.y * s;
    float im = e.x * s + e.y * c;
    E[idx] = make_float2(scale * re, scale * im);
}

// Mie efficiencies of n spheres of size parameters x[i] and relative index m (real): Q_ext,
// Q_sca and the number of terms nstop
__global__ void mie_q(const double *xs, double m, double *qext, double *qsca, int *nterms, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = xs[i];
    double mx = m * x;
    int nstop = (int)(x + 4.0 * cbrt(x) + 2.0);
    int nmx = (int)fmax((double)nstop, fabs(mx)) + 15;
    if (nmx > MIE_NMAX - 1) nmx = MIE_NMAX - 1;
    if (nstop > nmx) nstop = nmx;
    // D_n(mx), downward from D_nmx = 0
    double D[MIE_NMAX];
    D[nmx] = 0.0;
    for (int k = nmx; k >= 2; k--) {
        double en = k / mx;
        D[k - 1] = en - 1.0 / (D[k] + en);
    }
    double psi0 = cos(x), psi1 = sin(x);
    double chi0 = -sin(x), chi1 = cos(x);
    double se = 0.0, ss = 0.0;
    for (int k = 1; k <= nstop; k++) {
        double f = (2.0 * k - 1.0) / x;
        double psi = f * psi1 - psi0;
        double chi = f * chi1 - chi0;
        // xi = psi - i chi; a = (fa psi - psi1) / (fa xi - xi1), b likewise with fb
        double fa = D[k] / m + k / x;
        double fb = m * D[k] + k / x;
        double an = fa * psi - psi1;              // also the denominator's real part
        double ad = -(fa * chi - chi1);           // the denominator's imaginary part
        double bn = fb * psi - psi1;
        double bd = -(fb * chi - chi1);
        // a = an / (an + i ad) = an (an - i ad) / (an^2 + ad^2), b likewise
        double da = an * an + ad * ad;
        double db = bn * bn + bd * bd;
        double a_re = an * an / da, a_im = -an * ad / da;
        double b_re = bn * bn / db, b_im = -bn * bd / db;
        double w = 2.0 * k + 1.0;
        se += w * (a_re + b_re);
        ss += w * (a_re * a_re + a_im * a_im + b_re * b_re + b_im * b_im);
        psi0 = psi1;
        psi1 = psi;
        chi0 = chi1;
        chi1 = chi;
    }
    qext[i] = 2.0 / (x * x) * se;
    qsca[i] = 2.0 / (x * x) * ss;
    nterms[i] = nstop;
}

}
