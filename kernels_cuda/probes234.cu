// probe-unseen232: a boundary-element / panel-method course's CUDA assignments (naval
// hydrodynamics: potential flow around foils and hulls, Green's functions, influence
// matrices), as a student who knows CUDA basics hands them in:
//  - hs2d_influence: the influence matrices of the 2-D Hess-Smith source panel method for a
//    batch of rudder / propeller-blade sections (NACA 4-digit, cosine-spaced nodes, clockwise
//    from the trailing edge), a thread a (collocation point, source panel) entry, 32 x 8
//    blocks: the block's 33 nodes and 8 collocation points staged in shared memory, the
//    panels' angles by atan2f, then per entry the log of the distance ratio (logf), the
//    subtended angle (atan2f), sincosf of the angle difference, and the normal and tangential
//    influence coefficients stored into two row-major matrices (coalesced);
//  - rankine_matvec: the matrix-free product of a 3-D constant-strength source panel method's
//    influence matrix with a source vector (a GMRES iterate of the double-body flow around a
//    Wigley hull, the free surface a mirror: each panel and its image in z = 0), N-body style:
//    a thread a collocation point, the sum split over the sources by blockIdx.y (128 a
//    block, a shared tile of float4: centroid and sigma * area, the two half-side vectors,
//    the diameter^2), the partial sums added by float atomicAdd; far pairs as point sources
//    (rsqrtf), nearer ones by 2 x 2 or 4 x 4 Gauss-Legendre quadrature over the panel (a
//    template on the order, #pragma unroll, the points and weights from a __constant__
//    table): divergent within a warp;
//  - john_green: the finite-depth free-surface Green's function of a wave-energy farm
//    (heaving buoys in 40 m of water) by John's eigenfunction series, in double, a thread a
//    pair of panels on different buoys: the propagating term (cosh factors, Y0 - i J0 by
//    Abramowitz-Stegun polynomials, a branch at x = 3) and the evanescent modes (cos
//    factors, K0 by polynomials, a branch at x = 2) from a __constant__ table of
//    wavenumbers and coefficients, the series cut where K0 underflows (a data-dependent
//    trip count); 32-byte structs in, double2 out; a buoy's own blocks skipped;
//  - hull_panel_geometry: the preprocessing of a design sweep of modified-Wigley hull meshes
//    (hull, interior waterplane lid, free surface), a grid-stride loop, a thread a
//    quadrilateral: 4 vertices gathered by an int4 connectivity, the normal from the
//    diagonals' cross product, area, centroid, diameter, stored as 32-byte Panel structs;
//    the hydrostatics (wetted area, displaced volume and its x-moment by the divergence
//    theorem, the waterplane area from the lid) by 8-bit panel kind, summed by
//    __shfl_down_sync and added by double atomicAdd once a warp;
//  - fk_sectional_loads: the nonlinear Froude-Krylov sectional loads of a ship in irregular
//    oblique seas over a time record (for a bending-moment calculation), a block a time
//    step: the panels' pressures (coalesced), the dry panels (pressure below zero: above
//    the wave) counted by __ballot_sync / __popc, the wet panels' forces -p A n from their
//    Panel structs into a shared histogram of stations by a 16-bit station id (float shared
//    atomics, a warp's 32 lanes on one station), then stored per step and added into the
//    record's sum (for its mean) by global atomicAdd;
//  - kochin_rw: the Kochin function of a hull's source distribution and Havelock's wave
//    resistance, a block a (wave direction, speed): each thread a strided share of the
//    panels (float4), expf of the depth decay and sincosf of the phase, a shared-memory
//    tree reduction of the real and imaginary parts, one float atomicAdd a block into the
//    speed's resistance; the directions (Gauss-Legendre in tan theta) and the speeds'
//    wavenumbers in __constant__ tables.

#define PI_F 3.14159265358979f
#define INV2PI_F 0.159154943091895f
#define INV4PI_F 0.0795774715459477f
#define FULL_MASK 0xffffffffu

#define HS_TX 32                // hs2d_influence: source panels a tile (= blockDim.x)
#define HS_TY 8                 // collocation points a tile (= blockDim.y)

#define RK_TB 128               // rankine_matvec: threads a block = source panels a tile
#define RK_SPLIT 128            // source panels a block (blockIdx.y: the sum split over the sources)
#define RK_FAR2 16.0f           // a point source beyond 4 panel diameters ...
#define RK_MID2 4.0f            // ... 2 x 2 Gauss points beyond 2, 4 x 4 within

#define JS_NMODE 24             // john_green: evanescent modes in the table
#define JS_KRMAX 36.0           // K0(k_m R) < 1e-16 K0-scale past k_m R = 36: the series stops

#define HULL_KIND 0             // hull_panel_geometry: panel kinds
#define LID_KIND 1
#define FS_KIND 2

#define SL_NST 128              // fk_sectional_loads: stations (the histogram's bins)

#define KO_NTH 256              // kochin_rw: wave directions
#define KO_NS 32                // speeds
#define KO_BLOCK 256            // threads a block (the reduction's width)

// a flat quadrilateral panel (hull_panel_geometry's output, fk_sectional_loads' input)
struct Panel {
    float cx, cy, cz;           // centroid (m)
    float nx, ny, nz;           // unit normal, out of the body / up
    float area;                 // m^2
    float diam;                 // the longer diagonal (m)
};

// john_green: a panel's centroid and its buoy
struct SrcPt {
    double x, y, z;
    int body;
    int pad;
};

// Gauss-Legendre points and weights on [-1, 1]: 2 points at [0, 2), 4 points at [2, 6)
__constant__ float c_gx[6] = {-0.577350269189626f, 0.577350269189626f, -0.861136311594053f,
                              -0.339981043584856f, 0.339981043584856f, 0.861136311594053f};
__constant__ float c_gw[6] = {1.0f, 1.0f, 0.347854845137454f, 0.652145154862546f, 0.652145154862546f,
                              0.347854845137454f};

// john_green: k_0 (propagating, k tanh kh = K) then k_m (m pi / h - ..., k tan kh = -K), and
// the series' coefficients (set by the host for the wave frequency)
__constant__ double c_km[JS_NMODE + 1];
__constant__ double c_cm[JS_NMODE + 1];

// kochin_rw: a direction's (cos theta, sin theta, sec^2 theta, quadrature weight times
// sec^3 theta d theta / d u) and a speed's (k0 = g / U^2, rho k0^2 U^2 / pi)
__constant__ float4 c_dir[KO_NTH];
__constant__ float2 c_spd[KO_NS];

// the normal velocity at p (normal n) from a unit-density parallelogram panel c + xi a +
// eta b, xi and eta in [-1, 1], over 4 pi and the panel's area (NG x NG Gauss points); zs
// = -1: its mirror image in z = 0
template <int NG>
__device__ float panel_quad(float px, float py, float pz, float nx, float ny, float nz, float4 c, float4 a,
                            float4 b, float zs) {
    float s = 0.0f;
#pragma unroll
    for (int q = 0; q < NG; q++) {
#pragma unroll
        for (int r = 0; r < NG; r++) {
            float xi = c_gx[NG - 2 + q], eta = c_gx[NG - 2 + r];
            float w = c_gw[NG - 2 + q] * c_gw[NG - 2 + r];
            float dx = px - (c.x + xi * a.x + eta * b.x);
            float dy = py - (c.y + xi * a.y + eta * b.y);
            float dz = pz - zs * (c.z + xi * a.z + eta * b.z);
            float ir = rsqrtf(dx * dx + dy * dy + dz * dz);
            s += w * (dx * nx + dy * ny + dz * nz) * ir * ir * ir;
        }
    }
    return 0.25f * s;           // the weights sum to 4 on the square
}

// J0 and Y0 (x > 0) by Abramowitz and Stegun 9.4.1 - 9.4.3 (errors below 1e-7)
__device__ void bessel_j0y0(double x, double *j0, double *y0) {
    if (x <= 3.0) {
        double t = (x / 3.0) * (x / 3.0);
        double j = 1.0 + t * (-2.2499997 + t * (1.2656208 + t * (-0.3163866 + t * (0.0444479
                   + t * (-0.0039444 + t * 0.0002100)))));
        double y = 0.36746691 + t * (0.60559366 + t * (-0.74350384 + t * (0.25300117 + t * (-0.04261214
                   + t * (0.00427916 - t * 0.00024846)))));
        *j0 = j;
        *y0 = 0.636619772367581 * log(0.5 * x) * j + y;
    } else {
        double u = 3.0 / x;
        double f0 = 0.79788456 + u * (-0.00000077 + u * (-0.00552740 + u * (-0.00009512 + u * (0.00137237
                    + u * (-0.00072805 + u * 0.00014476)))));
        double th = x - 0.78539816 + u * (-0.04166397 + u * (-0.00003954 + u * (0.00262573 + u * (-0.00054125
                    + u * (-0.00029333 + u * 0.00013558)))));
        double a = f0 / sqrt(x);
        *j0 = a * cos(th);
        *y0 = a * sin(th);
    }
}

// K0 (x > 0) by Abramowitz and Stegun 9.8.1, 9.8.5, 9.8.6 (relative error below 2e-7)
__device__ double bessel_k0(double x) {
    if (x <= 2.0) {
        double t = (x / 3.75) * (x / 3.75);
        double i0 = 1.0 + t * (3.5156229 + t * (3.0899424 + t * (1.2067492 + t * (0.2659732 + t * (0.0360768
                    + t * 0.0045813)))));
        double s = 0.25 * x * x;
        return -log(0.5 * x) * i0 - 0.57721566 + s * (0.42278420 + s * (0.23069756 + s * (0.03488590
               + s * (0.00262698 + s * (0.00010750 + s * 0.00000740)))));
    }
    double u = 2.0 / x;
    double p = 1.25331414 + u * (-0.07832358 + u * (0.02189568 + u * (-0.01062446 + u * (0.00587872
               + u * (-0.00251540 + u * 0.00053208)))));
    return exp(-x) / sqrt(x) * p;
}

extern "C" {

// ---------------------------------------------------------------- hs2d_influence

// nf sections of np panels, the (np + 1) nodes of section f at xn, yn[f (np + 1) ..]
// (clockwise from the trailing edge, the last = the first); out: An, At[(f np + i) np + j]
// the normal and tangential velocity at panel i's midpoint from a unit source density on
// panel j (Hess and Smith; the vortex panels' coefficients follow from these)
__global__ void hs2d_influence(const float *xn, const float *yn, int np, float *An, float *At) {
    __shared__ float s_x[HS_TX + 1], s_y[HS_TX + 1];            // the tile's source nodes
    __shared__ float s_th[HS_TX];                               // their panels' angles
    __shared__ float s_xm[HS_TY], s_ym[HS_TY], s_thi[HS_TY];    // the collocation points
    int f = blockIdx.z;
    const float *x = xn + f * (np + 1);
    const float *y = yn + f * (np + 1);
    int tx = threadIdx.x, ty = threadIdx.y;
    int t = ty * HS_TX + tx;
    int j0 = blockIdx.x * HS_TX, i0 = blockIdx.y * HS_TY;
    if (t <= HS_TX && j0 + t <= np) {
        s_x[t] = x[j0 + t];
        s_y[t] = y[j0 + t];
    }
    if (t >= 64 && t < 64 + HS_TY && i0 + t - 64 < np) {
        int ii = i0 + t - 64;
        float xa = x[ii], ya = y[ii], xb = x[ii + 1], yb = y[ii + 1];
        s_xm[t - 64] = 0.5f * (xa + xb);
        s_ym[t - 64] = 0.5f * (ya + yb);
        s_thi[t - 64] = atan2f(yb - ya, xb - xa);
    }
    __syncthreads();
    if (ty == 0 && j0 + tx < np) s_th[tx] = atan2f(s_y[tx + 1] - s_y[tx], s_x[tx + 1] - s_x[tx]);
    __syncthreads();
    int i = i0 + ty, j = j0 + tx;
    if (i >= np || j >= np) return;
    float xm = s_xm[ty], ym = s_ym[ty];
    float dx1 = xm - s_x[tx], dy1 = ym - s_y[tx];
    float dx2 = xm - s_x[tx + 1], dy2 = ym - s_y[tx + 1];
    float lg, beta;
    if (i == j) {
        lg = 0.0f;                                              // the panel on itself
        beta = PI_F;
    } else {
        lg = 0.5f * logf((dx2 * dx2 + dy2 * dy2) / (dx1 * dx1 + dy1 * dy1));   // ln(r_j+1 / r_j)
        beta = atan2f(dx1 * dy2 - dy1 * dx2, dx1 * dx2 + dy1 * dy2);           // the angle subtended
    }
    float sn, cs;
    sincosf(s_thi[ty] - s_th[tx], &sn, &cs);
    int o = (f * np + i) * np + j;
    An[o] = INV2PI_F * (sn * lg + cs * beta);
    At[o] = INV2PI_F * (sn * beta - cs * lg);
}

// ---------------------------------------------------------------- rankine_matvec

// n panels: cen (centroid, area), pa (half side a, diameter^2), pb (half side b, 0), nrm
// (unit normal, 0), sigma the source densities; vn[i] (zeroed) += the normal velocity at
// panel i's centroid from the RK_SPLIT source panels of blockIdx.y and their images in
// z = 0: sigma_j A_j n_i . (x_i - y_j) / (4 pi r^3) (nearer panels by quadrature), and
// sigma_i / 2 (the panel itself) from blockIdx.y = 0
__global__ void rankine_matvec(const float4 *cen, const float4 *pa, const float4 *pb, const float4 *nrm,
                               const float *sigma, int n, float *vn) {
    __shared__ float4 s_c[RK_TB];       // centroid, sigma * area
    __shared__ float4 s_a[RK_TB];       // half side a, diameter^2
    __shared__ float4 s_b[RK_TB];       // half side b
    int t = threadIdx.x;
    int i = blockIdx.x * RK_TB + t;
    bool act = i < n;
    float4 x = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float4 nv = x;
    if (act) {
        x = cen[i];
        nv = nrm[i];
    }
    float acc = 0.0f;
    int jbeg = blockIdx.y * RK_SPLIT;
    int jend = min(jbeg + RK_SPLIT, n);
    for (int t0 = jbeg; t0 < jend; t0 += RK_TB) {
        int j = t0 + t;
        if (j < jend) {
            float4 c = cen[j];
            c.w *= sigma[j];
            s_c[t] = c;
            s_a[t] = pa[j];
            s_b[t] = pb[j];
        }
        __syncthreads();
        int kmax = min(RK_TB, jend - t0);
        for (int k = 0; k < kmax; k++) {
            float4 c = s_c[k];
            float dd = s_a[k].w;
#pragma unroll
            for (int m = 0; m < 2; m++) {
                float zs = m == 0 ? 1.0f : -1.0f;      // the panel, then its image
                float dx = x.x - c.x, dy = x.y - c.y, dz = x.z - zs * c.z;
                float r2 = dx * dx + dy * dy + dz * dz;
                if (m == 0 && t0 + k == i) {
                    // the panel itself: its jump sigma / 2, below
                } else if (r2 > RK_FAR2 * dd) {
                    float ir = rsqrtf(r2);
                    acc += c.w * (dx * nv.x + dy * nv.y + dz * nv.z) * ir * ir * ir;
                } else if (r2 > RK_MID2 * dd) {
                    acc += c.w * panel_quad<2>(x.x, x.y, x.z, nv.x, nv.y, nv.z, c, s_a[k], s_b[k], zs);
                } else {
                    acc += c.w * panel_quad<4>(x.x, x.y, x.z, nv.x, nv.y, nv.z, c, s_a[k], s_b[k], zs);
                }
            }
        }
        __syncthreads();
    }
    if (act) {
        float v = INV4PI_F * acc;
        if (blockIdx.y == 0) v += 0.5f * sigma[i];
        atomicAdd(&vn[i], v);
    }
}

// ---------------------------------------------------------------- john_green

// n panel centroids pt (z < 0) on buoys in water of depth h; G[i n + j] = John's series for
// the field point i and the source point j when on different buoys (else left alone):
// c_0 cosh k_0(z + h) cosh k_0(zeta + h) (Y0(k_0 R) - i J0(k_0 R))
//   + sum_m c_m cos k_m(z + h) cos k_m(zeta + h) K0(k_m R)
__global__ void john_green(const SrcPt *pt, int n, double h, double2 *G) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    SrcPt P = pt[i];
    SrcPt Q = pt[j];
    if (P.body == Q.body) return;                   // the buoy's own block: the Rankine part, elsewhere
    double dx = P.x - Q.x, dy = P.y - Q.y;
    double R = sqrt(dx * dx + dy * dy);
    double zi = P.z + h, zj = Q.z + h;
    double k0 = c_km[0];
    double J0, Y0;
    bessel_j0y0(k0 * R, &J0, &Y0);
    double a0 = c_cm[0] * cosh(k0 * zi) * cosh(k0 * zj);
    double gr = a0 * Y0;
    double gi = -a0 * J0;
    for (int m = 1; m <= JS_NMODE; m++) {
        double km = c_km[m];
        double kr = km * R;
        if (kr > JS_KRMAX) break;                   // the rest below double's resolution
        gr += c_cm[m] * cos(km * zi) * cos(km * zj) * bessel_k0(kr);
    }
    G[i * n + j] = make_double2(gr, gi);
}

// ---------------------------------------------------------------- hull_panel_geometry

// np quadrilaterals quad (vertex indices into V, counter-clockwise seen from outside) of
// kind (HULL_KIND, LID_KIND, FS_KIND), the meshes of the variants ppv panels each (ppv a
// multiple of 32); out: the Panel structs, and hydro[4 v ..] += the wetted area, the
// displaced volume (sum z n_z A), its x-moment (sum x z n_z A) and the waterplane area
// of variant v
__global__ void hull_panel_geometry(const float3 *V, const int4 *quad, const unsigned char *kind, int np,
                                    int ppv, Panel *pan, double *hydro) {
    int lane = threadIdx.x % 32;
    int stride = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < np; base += stride) {
        int p = base + lane;
        float s_wet = 0.0f, s_vol = 0.0f, s_mx = 0.0f, s_wp = 0.0f;
        if (p < np) {
            int4 q = quad[p];
            float3 v0 = V[q.x], v1 = V[q.y], v2 = V[q.z], v3 = V[q.w];
            float d1x = v2.x - v0.x, d1y = v2.y - v0.y, d1z = v2.z - v0.z;
            float d2x = v3.x - v1.x, d2y = v3.y - v1.y, d2z = v3.z - v1.z;
            float nx = d1y * d2z - d1z * d2y;
            float ny = d1z * d2x - d1x * d2z;
            float nz = d1x * d2y - d1y * d2x;
            float nn = sqrtf(nx * nx + ny * ny + nz * nz);
            Panel P;
            P.cx = 0.25f * (v0.x + v1.x + v2.x + v3.x);
            P.cy = 0.25f * (v0.y + v1.y + v2.y + v3.y);
            P.cz = 0.25f * (v0.z + v1.z + v2.z + v3.z);
            P.nx = nx / nn;
            P.ny = ny / nn;
            P.nz = nz / nn;
            P.area = 0.5f * nn;
            P.diam = sqrtf(fmaxf(d1x * d1x + d1y * d1y + d1z * d1z, d2x * d2x + d2y * d2y + d2z * d2z));
            pan[p] = P;
            unsigned char k = kind[p];
            if (k == HULL_KIND) {
                s_wet = P.area;
                s_vol = P.cz * P.nz * P.area;
                s_mx = P.cx * s_vol;
            } else if (k == LID_KIND) {
                s_wp = P.area;
            }
        }
        for (int o = 16; o > 0; o /= 2) {
            s_wet += __shfl_down_sync(FULL_MASK, s_wet, o);
            s_vol += __shfl_down_sync(FULL_MASK, s_vol, o);
            s_mx += __shfl_down_sync(FULL_MASK, s_mx, o);
            s_wp += __shfl_down_sync(FULL_MASK, s_wp, o);
        }
        if (lane == 0 && (s_wet != 0.0f || s_wp != 0.0f)) {       // free-surface warps add nothing
            int v = base / ppv;
            atomicAdd(&hydro[4 * v + 0], (double)s_wet);
            atomicAdd(&hydro[4 * v + 1], (double)s_vol);
            atomicAdd(&hydro[4 * v + 2], (double)s_mx);
            atomicAdd(&hydro[4 * v + 3], (double)s_wp);
        }
    }
}

// ---------------------------------------------------------------- fk_sectional_loads

// n hull panels pan at stations station (< SL_NST); p[t n + j] the Froude-Krylov pressure
// (Pa, hydrostatic included) on panel j at time step t = blockIdx.x; out: q[(3 t + c)
// SL_NST + s] the force component c (x, y, z) on station s of the wet panels (p >= 0),
// qmean[c SL_NST + s] += the same (the record's sum), ndry[t] the dry panels (p < 0)
__global__ void fk_sectional_loads(const Panel *pan, const unsigned short *station, const float *p, int n,
                                   float *q, float *qmean, int *ndry) {
    __shared__ float s_f[3][SL_NST];
    __shared__ int s_dry;
    int t = blockIdx.x, tid = threadIdx.x, lane = tid % 32;
    for (int k = tid; k < SL_NST; k += blockDim.x) {
        s_f[0][k] = 0.0f;
        s_f[1][k] = 0.0f;
        s_f[2][k] = 0.0f;
    }
    if (tid == 0) s_dry = 0;
    __syncthreads();
    const float *pt = p + t * n;
    for (int j0 = 0; j0 < n; j0 += blockDim.x) {
        int j = j0 + tid;
        bool act = j < n;
        float pj = act ? pt[j] : 0.0f;
        bool dry = act && pj < 0.0f;
        unsigned int b = __ballot_sync(FULL_MASK, dry);
        if (lane == 0 && b != 0) atomicAdd(&s_dry, __popc(b));
        if (act && !dry) {
            Panel P = pan[j];
            int s = station[j];
            float fa = -pj * P.area;
            atomicAdd(&s_f[0][s], fa * P.nx);
            atomicAdd(&s_f[1][s], fa * P.ny);
            atomicAdd(&s_f[2][s], fa * P.nz);
        }
    }
    __syncthreads();
    for (int k = tid; k < 3 * SL_NST; k += blockDim.x) {
        float v = s_f[k / SL_NST][k % SL_NST];
        q[t * 3 * SL_NST + k] = v;
        atomicAdd(&qmean[k], v);
    }
    if (tid == 0) ndry[t] = s_dry;
}

// ---------------------------------------------------------------- kochin_rw

// n sources src (x, y, z < 0, sigma A at 1 m/s); blockIdx.x a direction of c_dir,
// blockIdx.y a speed of c_spd; out: H2[speed KO_NTH + dir] = |H|^2, H = sum sigma A
// exp(k z) exp(i k (x cos + y sin)), k = k0 sec^2; Rw[speed] += rho k0^2 U^2 / pi times the
// weight times |H|^2 (the Havelock integral over half the directions, the hull symmetric)
__global__ void kochin_rw(const float4 *src, int n, float *H2, float *Rw) {
    __shared__ float s_re[KO_BLOCK];
    __shared__ float s_im[KO_BLOCK];
    int d = blockIdx.x, s = blockIdx.y, tid = threadIdx.x;
    float4 dir = c_dir[d];
    float2 spd = c_spd[s];
    float k = spd.x * dir.z;
    float kx = k * dir.x, ky = k * dir.y;
    float re = 0.0f, im = 0.0f;
    for (int j = tid; j < n; j += KO_BLOCK) {
        float4 q = src[j];
        float amp = q.w * expf(k * q.z);
        float sn, cs;
        sincosf(kx * q.x + ky * q.y, &sn, &cs);
        re += amp * cs;
        im += amp * sn;
    }
    s_re[tid] = re;
    s_im[tid] = im;
    __syncthreads();
    for (int h = KO_BLOCK / 2; h > 0; h /= 2) {
        if (tid < h) {
            s_re[tid] += s_re[tid + h];
            s_im[tid] += s_im[tid + h];
        }
        __syncthreads();
    }
    if (tid == 0) {
        float h2 = s_re[0] * s_re[0] + s_im[0] * s_im[0];
        H2[s * KO_NTH + d] = h2;
        atomicAdd(&Rw[s], spd.y * dir.w * h2);
    }
}

}
