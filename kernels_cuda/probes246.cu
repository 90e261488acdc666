// probe-unseen244: a computational-electromagnetics / antenna engineering course's CUDA
// assignments, as a student who knows CUDA basics hands them in (a 3.5 GHz 5G small cell in
// the n78 band: its radiator in a 3-D FDTD with a convolutional PML, the near field's running
// DFT on a Huygens box and its transform to the far field, a genetic algorithm's thinned
// linear arrays, a 2-D method-of-moments model of a cylindrical reflector antenna, and the
// small cell's coverage of a street grid by ray launching):
//  - fdtd3d_h_cpml: the H half of a 3-D Yee step with a CPML NPML cells deep on all six faces
//    (normalised units: H scaled by eta0, cells of 1, the Courant number in db), a block a
//    32 x 8 column of cells marching FD_KZ z-layers (blockIdx.z a chunk): each layer's Ex, Ey,
//    Ez staged in shared tiles with a +1 halo in x (one lane a warp: divergent) and y (the
//    block's last row), two barriers a layer, E at z + 1 carried in registers to the next
//    layer; inside the CPML slabs the stretched derivatives dF / kappa + psi with psi <- b
//    psi + c dF (psi only stored in the slabs: [2][nz][ny][2 NPML] for x and likewise), the
//    1-D profiles in a __constant__ struct table indexed by x (per lane: serialised), y
//    (per warp) and z (per block); coalesced float loads and read-modify-writes of H;
//  - huygens_dft: the running DFT of the tangential fields on the six faces of a Huygens box at
//    NF frequencies, launched every time step: a thread a face cell (the flat index split into
//    face and in-face coordinates by integer / and %), 2 E loads and 4 H loads (H averaged
//    across the face: Yee's half-cell offset): along x-faces a lane's loads nx floats apart
//    (a sector a lane), coalesced on the others; per frequency two sincosf of a warp-uniform
//    phase (the omega dt table __constant__) and 4 float2 read-modify-writes of the
//    accumulators ([NF][4][ncell]: coalesced);
//  - ntff_pattern: the 3-D near-to-far-field transform of the box's equivalent currents
//    (J = n x H, M = -n x E at 3.5 GHz, a 64-byte struct a surface sample) into the radiation
//    intensity on a 2-degree (theta, phi) grid: a thread a direction, a block NT_TILE (128)
//    directions, the samples staged NT_TILE at a time into a shared struct array between two
//    barriers (64-byte-strided struct stores: bank conflicts), every thread reading the same sample
//    (broadcast), a sincosf and 24 FMAs a sample; then N_theta, N_phi, L_theta, L_phi, U =
//    k^2 / (32 pi^2) (|L_phi + N_theta|^2 + |L_theta - N_phi|^2), the complex E_theta, E_phi
//    stored (float4), the peak U by an int atomicMax on its bits from every thread (one
//    address), the radiated power (U sin theta dOmega) reduced by __shfl_down_sync and a
//    shared array into one double atomicAdd a block;
//  - array_thin_psll: a genetic algorithm's population of thinned 128-element linear arrays
//    (a bit mask a candidate, uint4-sized), a warp a candidate: the lanes' 32 u samples each
//    of the array factor sum over the switched-on elements (found by __ffs over the mask
//    words: warp-uniform, data-dependent trip counts), the element positions (with their
//    placement errors) and calibrated amplitudes from a __constant__ struct table, a
//    sincospif a (element, sample); the peak sidelobe outside the main beam by
//    __shfl_xor_sync, the samples over the sidelobe mask counted by __ballot_sync / __popc,
//    and the population's best (PSLL, index) packed into one int by a global atomicMin (a
//    warp each on one address);
//  - mom_tm_fill: the impedance matrix of a 2-D EFIE (TM, pulse basis, point matching) for a
//    parabolic-cylinder reflector, in double: a thread 4 entries of a 32 x 32 tile (block 32
//    x 8), the source segment's 48-byte struct loaded once (6 doubles 48 bytes apart lane to
//    lane: strided), the observation point's centre a row (broadcast), Z = (k eta / 4) len
//    H0^(2)(k R) by j0 and y0 (double), the self term in closed form, the neighbours by an
//    8-point Gauss-Legendre rule
//    (__constant__ nodes and weights; divergent next to the diagonal); the tile transposed
//    through shared memory for the column-major store LAPACK wants (a 32 x 32 double2 tile,
//    not padded: a column read is an 8-way bank conflict);
//  - ray_launch_coverage: 2-D shooting-and-bouncing rays from the small cell over a street
//    grid of buildings, a thread a ray: the buildings' footprints (axis-aligned boxes) staged
//    in shared memory as float4s and slab-tested each bounce (broadcast reads, the entry face
//    from the later slab), the TE reflection coefficient of the building's facade material
//    (the ITU-R P.2040 complex permittivities in a __constant__ table: a complex square root
//    by sqrtf / atan2f / sincosf), up to RL_MAXB reflections or until the ray's power fades;
//    each leg walked cell by cell (a DDA: data-dependent, divergent trip counts) adding its
//    length-weighted power to the coverage map by float atomicAdd (every ray through the
//    transmitter's cells: contended there).

#define FULL_MASK 0xffffffffu
#define PI_F 3.14159265358979f
#define PI_D 3.141592653589793

#define FD_TX 32                // fdtd3d_h_cpml: a block's x extent (blockDim.x)
#define FD_TY 8                 // its y extent (blockDim.y)
#define FD_KZ 32                // z layers a block marches through
#define NPML 10                 // the CPML's depth (cells) on every face

#define NF 8                    // huygens_dft: frequencies of the running DFT

#define NT_TILE 128             // ntff_pattern: surface samples a tile (== blockDim.x)

#define AT_NW 4                 // array_thin_psll: mask words
#define AT_NE (32 * AT_NW)      // elements (128)
#define AT_NQ 32                // u samples a lane
#define AT_NU (32 * AT_NQ)      // u samples over [-1, 1) (1024)

#define MOM_T 32                // mom_tm_fill: the tile's side (blockDim.x; blockDim.y = 8)
#define MOM_NQ 8                // Gauss-Legendre points for the neighbours
#define MOM_NEAR 1.5            // entries closer than this many source lengths integrated
#define ETA0 376.730313668      // free space's impedance (ohm)
#define GAMMA_E 1.7810724179901979   // exp(Euler's gamma)

#define RL_MAXBLD 128           // ray_launch_coverage: buildings at most (staged in shared memory)
#define RL_MAXB 4               // reflections a ray at most
#define RL_NMAT 4               // wall materials

// a CPML profile's coefficients at one cell: psi <- b psi + c dF; ik = 1 / kappa
struct CpmlCoef {
    float b, c, ik, pad;
};

// the Huygens box: its low corner, its sides (cells), the cells of one face of each pair
// (x-faces ly * lz, y-faces lx * lz, z-faces lx * ly) and their total (2 of each)
struct HuyBox {
    int i0, j0, k0;
    int lx, ly, lz;
    int nfx, nfy, nfz;
    int ncell;
};

// a Huygens surface sample: its position (m), its area (m^2) and the DFT'ed equivalent
// currents there (J = n x eta0 H, M = -n x E; complex)
struct SurfPt {
    float x, y, z, area;
    float2 jx, jy, jz;
    float2 mx, my, mz;
};

// an element of the thinned array: its position (half-wavelengths) and amplitude
struct Elem {
    float x, amp;
};

// a segment of the reflector's contour (wavelengths): its centre, unit tangent, length
struct Seg {
    double xc, yc;
    double tx, ty;
    double len;
    double pad;
};

// a building: its footprint (an axis-aligned box, m) and its facades' material
struct Building {
    float x0, y0, x1, y1;
    int mat;
};

// a wall material's relative permittivity eps' - j eps''
struct Material {
    float er, ei;
};

// the ray launcher's set-up
struct RayCfg {
    float txx, txy;     // the transmitter (m)
    float cell;         // the coverage map's cells (m)
    int nx, ny;         // its cells
    float dphi;         // the rays' angular spacing (rad)
    float kdep;         // lam^2 dphi / (16 pi^2 cell^2): power a metre of ray over a metre of range
    float pmin;         // a ray whose |Gamma|^2 product falls under this stops
};

__constant__ CpmlCoef c_cpml[3][2 * NPML];     // x, y, z profiles at H's half cells (set by the host)
__constant__ HuyBox c_box;                     // huygens_dft's box (set by the host)
__constant__ float c_wdt[NF];                  // omega_f dt of the DFT's frequencies
__constant__ Elem c_elem[AT_NE];               // the array's elements
__constant__ double c_glx[MOM_NQ], c_glw[MOM_NQ];   // Gauss-Legendre on [-1, 1]
__constant__ Material c_mat[RL_NMAT];          // concrete, brick, glass, wood at 3.5 GHz
__constant__ RayCfg c_ray;

// ---------------------------------------------------------------- helpers

// H0^(2)(x) = J0(x) - j Y0(x)
__device__ double2 hankel2_0(double x) {
    return make_double2(j0(x), -y0(x));
}

// |Gamma_TE|^2 of a wall of permittivity er - j ei at incidence cosine ci
__device__ float gamma_te2(float ci, float er, float ei) {
    float s2 = 1.0f - ci * ci;
    float ar = er - s2, ai = -ei;
    float mag = sqrtf(sqrtf(ar * ar + ai * ai));
    float ang = 0.5f * atan2f(ai, ar);
    float sn, cs;
    sincosf(ang, &sn, &cs);
    float qr = mag * cs, qi = mag * sn;
    float nr = ci - qr, dr = ci + qr;
    return (nr * nr + qi * qi) / (dr * dr + qi * qi);
}

// the ray p + t d, 0 <= t < tend, walked across the coverage map's cells: each cell gets
// kdep pw len / max(range, 1 m), range the unfolded path's length at the piece's middle
__device__ void ray_deposit(float px, float py, float dx, float dy, float tend, float dist0, float pw,
                            float *cov) {
    float cell = c_ray.cell;
    int nx = c_ray.nx, ny = c_ray.ny;
    int cx = min(max((int)(px / cell), 0), nx - 1);
    int cy = min(max((int)(py / cell), 0), ny - 1);
    int sx = dx > 0.0f ? 1 : -1;
    int sy = dy > 0.0f ? 1 : -1;
    float tdx = dx != 0.0f ? cell / fabsf(dx) : 1e30f;
    float tdy = dy != 0.0f ? cell / fabsf(dy) : 1e30f;
    float tmx = dx != 0.0f ? ((float)(cx + (sx > 0 ? 1 : 0)) * cell - px) / dx : 1e30f;
    float tmy = dy != 0.0f ? ((float)(cy + (sy > 0 ? 1 : 0)) * cell - py) / dy : 1e30f;
    float k = c_ray.kdep * pw;
    float t = 0.0f;
    while (true) {
        float tn = fminf(tmx, tmy);
        bool last = tn >= tend;
        if (last) tn = tend;
        float l = tn - t;
        if (l > 0.0f) {
            float d = fmaxf(dist0 + 0.5f * (t + tn), 1.0f);
            atomicAdd(&cov[cy * nx + cx], k * l / d);
        }
        if (last) break;
        t = tn;
        if (tmx < tmy) {
            cx += sx;
            tmx += tdx;
        } else {
            cy += sy;
            tmy += tdy;
        }
        if (cx < 0 || cx >= nx || cy < 0 || cy >= ny) break;
    }
}

extern "C" {

// ---------------------------------------------------------------- fdtd3d_h_cpml

// fields nx x ny x nz, x fastest; H -= db curl E with E outside the grid 0 (a PEC box behind
// the CPML); psi_x: [2][nz][ny][2 NPML] (hyx, hzx), psi_y: [2][nz][2 NPML][nx] (hxy, hzy),
// psi_z: [2][2 NPML][ny][nx] (hxz, hyz); grid (nx / FD_TX, ny / FD_TY, nz / FD_KZ)
__global__ void fdtd3d_h_cpml(const float *ex, const float *ey, const float *ez, float *hx, float *hy, float *hz,
                              float *psi_x, float *psi_y, float *psi_z, int nx, int ny, int nz, float db) {
    __shared__ float sEx[FD_TY + 1][FD_TX];
    __shared__ float sEy[FD_TY][FD_TX + 1];
    __shared__ float sEz[FD_TY + 1][FD_TX + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.x * FD_TX + tx;
    int j = blockIdx.y * FD_TY + ty;
    int k0 = blockIdx.z * FD_KZ;
    int k1 = min(k0 + FD_KZ, nz);
    size_t plane = (size_t)nx * ny;
    size_t idx = (size_t)j * nx + i;
    // this cell's place in the x and y slabs (warp-varying in x, warp-uniform in y)
    bool inx = i < NPML || i >= nx - NPML;
    int px = i < NPML ? i : i - nx + 2 * NPML;
    bool iny = j < NPML || j >= ny - NPML;
    int py = j < NPML ? j : j - ny + 2 * NPML;
    size_t nslx = (size_t)nz * ny * 2 * NPML;      // a psi_x component
    size_t nsly = (size_t)nz * 2 * NPML * nx;      // a psi_y component
    size_t nslz = (size_t)2 * NPML * plane;        // a psi_z component
    float exc = ex[(size_t)k0 * plane + idx];
    float eyc = ey[(size_t)k0 * plane + idx];
    for (int k = k0; k < k1; k++) {
        size_t c = (size_t)k * plane + idx;
        float ezc = ez[c];
        float exn = 0.0f, eyn = 0.0f;
        if (k + 1 < nz) {
            exn = ex[c + plane];
            eyn = ey[c + plane];
        }
        sEx[ty][tx] = exc;
        sEy[ty][tx] = eyc;
        sEz[ty][tx] = ezc;
        if (tx == FD_TX - 1) {
            float a = 0.0f, b = 0.0f;
            if (i + 1 < nx) {
                a = ey[c + 1];
                b = ez[c + 1];
            }
            sEy[ty][FD_TX] = a;
            sEz[ty][FD_TX] = b;
        }
        if (ty == FD_TY - 1) {
            float a = 0.0f, b = 0.0f;
            if (j + 1 < ny) {
                a = ex[c + nx];
                b = ez[c + nx];
            }
            sEx[FD_TY][tx] = a;
            sEz[FD_TY][tx] = b;
        }
        __syncthreads();
        float dezdy = sEz[ty + 1][tx] - ezc;
        float dezdx = sEz[ty][tx + 1] - ezc;
        float deydx = sEy[ty][tx + 1] - eyc;
        float dexdy = sEx[ty + 1][tx] - exc;
        float deydz = eyn - eyc;
        float dexdz = exn - exc;
        __syncthreads();
        // the stretched derivatives: d / kappa + psi (the plain difference outside the slabs)
        float cx_ezdx = dezdx, cx_eydx = deydx;
        float cy_ezdy = dezdy, cy_exdy = dexdy;
        float cz_eydz = deydz, cz_exdz = dexdz;
        if (inx) {
            CpmlCoef q = c_cpml[0][px];
            size_t s = ((size_t)k * ny + j) * (2 * NPML) + px;
            float a = q.b * psi_x[s] + q.c * dezdx;
            float b = q.b * psi_x[nslx + s] + q.c * deydx;
            psi_x[s] = a;
            psi_x[nslx + s] = b;
            cx_ezdx = dezdx * q.ik + a;
            cx_eydx = deydx * q.ik + b;
        }
        if (iny) {
            CpmlCoef q = c_cpml[1][py];
            size_t s = ((size_t)k * (2 * NPML) + py) * nx + i;
            float a = q.b * psi_y[s] + q.c * dezdy;
            float b = q.b * psi_y[nsly + s] + q.c * dexdy;
            psi_y[s] = a;
            psi_y[nsly + s] = b;
            cy_ezdy = dezdy * q.ik + a;
            cy_exdy = dexdy * q.ik + b;
        }
        if (k < NPML || k >= nz - NPML) {
            int pz = k < NPML ? k : k - nz + 2 * NPML;
            CpmlCoef q = c_cpml[2][pz];
            size_t s = (size_t)pz * plane + idx;
            float a = q.b * psi_z[s] + q.c * deydz;
            float b = q.b * psi_z[nslz + s] + q.c * dexdz;
            psi_z[s] = a;
            psi_z[nslz + s] = b;
            cz_eydz = deydz * q.ik + a;
            cz_exdz = dexdz * q.ik + b;
        }
        hx[c] = hx[c] - db * (cy_ezdy - cz_eydz);
        hy[c] = hy[c] - db * (cz_exdz - cx_ezdx);
        hz[c] = hz[c] - db * (cx_eydx - cy_exdy);
        exc = exn;
        eyc = eyn;
    }
}

// ---------------------------------------------------------------- huygens_dft

// fields nx x ny x nz (x fastest); dft[(f * 4 + q) * ncell + t] += F_q(t) exp(-j omega_f t_n),
// t_n = step dt for E (q 0, 1), (step + 1/2) dt for H (q 2, 3); a face cell's tangential
// components in the order (y, z), (x, z), (x, y) for x-, y-, z-faces, H the mean of its two
// Yee samples either side of the face
__global__ void huygens_dft(const float *ex, const float *ey, const float *ez, const float *hx, const float *hy,
                            const float *hz, int nx, int ny, int step, float2 *dft) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int ncell = c_box.ncell;
    if (t >= ncell) return;
    size_t plane = (size_t)nx * ny;
    int r = t;
    float v[4];
    if (r < 2 * c_box.nfx) {
        int face = r / c_box.nfx;
        r -= face * c_box.nfx;
        int j = c_box.j0 + r % c_box.ly;
        int k = c_box.k0 + r / c_box.ly;
        int i = c_box.i0 + face * c_box.lx;
        size_t c = (size_t)k * plane + (size_t)j * nx + i;
        v[0] = ey[c];
        v[1] = ez[c];
        v[2] = 0.5f * (hy[c - 1] + hy[c]);
        v[3] = 0.5f * (hz[c - 1] + hz[c]);
    } else if (r < 2 * (c_box.nfx + c_box.nfy)) {
        r -= 2 * c_box.nfx;
        int face = r / c_box.nfy;
        r -= face * c_box.nfy;
        int i = c_box.i0 + r % c_box.lx;
        int k = c_box.k0 + r / c_box.lx;
        int j = c_box.j0 + face * c_box.ly;
        size_t c = (size_t)k * plane + (size_t)j * nx + i;
        v[0] = ex[c];
        v[1] = ez[c];
        v[2] = 0.5f * (hx[c - nx] + hx[c]);
        v[3] = 0.5f * (hz[c - nx] + hz[c]);
    } else {
        r -= 2 * (c_box.nfx + c_box.nfy);
        int face = r / c_box.nfz;
        r -= face * c_box.nfz;
        int i = c_box.i0 + r % c_box.lx;
        int j = c_box.j0 + r / c_box.lx;
        int k = c_box.k0 + face * c_box.lz;
        size_t c = (size_t)k * plane + (size_t)j * nx + i;
        v[0] = ex[c];
        v[1] = ey[c];
        v[2] = 0.5f * (hx[c - plane] + hx[c]);
        v[3] = 0.5f * (hy[c - plane] + hy[c]);
    }
#pragma unroll
    for (int f = 0; f < NF; f++) {
        float se, ce, sh, ch;
        sincosf(c_wdt[f] * (float)step, &se, &ce);
        sincosf(c_wdt[f] * ((float)step + 0.5f), &sh, &ch);
#pragma unroll
        for (int q = 0; q < 4; q++) {
            float cq = q < 2 ? ce : ch;
            float sq = q < 2 ? se : sh;
            float2 *p = dft + ((size_t)(f * 4 + q) * ncell + t);
            float2 a = *p;
            a.x += v[q] * cq;
            a.y -= v[q] * sq;
            *p = a;
        }
    }
}

// ---------------------------------------------------------------- ntff_pattern

// the far field in ndir = nth * nph directions (theta = it dth, phi = ip dph; d = it * nph + ip)
// of nsurf surface samples at wavenumber k: far[d] = (E_theta, E_phi) r / exp(-jkr) (the
// radiated field's complex amplitudes, H scaled by eta0), U[d] = the radiation intensity
// (W / sr over eta0); prad += sum U sin theta dth dph (a double atomicAdd a block), umax =
// max U's bits (U >= 0: int order is float order)
__global__ void ntff_pattern(const SurfPt *surf, int nsurf, int nth, int nph, float dth, float dph, float k,
                             float4 *far, float *U, double *prad, int *umax) {
    __shared__ SurfPt s[NT_TILE];
    __shared__ float s_p[NT_TILE / 32];
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    int ndir = nth * nph;
    bool act = d < ndir;
    int it = act ? d / nph : 0;
    int ip = act ? d - it * nph : 0;
    float st, ct, sp, cp;
    sincosf((float)it * dth, &st, &ct);
    sincosf((float)ip * dph, &sp, &cp);
    float ux = k * st * cp, uy = k * st * sp, uz = k * ct;
    float jxr = 0.0f, jxi = 0.0f, jyr = 0.0f, jyi = 0.0f, jzr = 0.0f, jzi = 0.0f;
    float mxr = 0.0f, mxi = 0.0f, myr = 0.0f, myi = 0.0f, mzr = 0.0f, mzi = 0.0f;
    for (int base = 0; base < nsurf; base += NT_TILE) {
        int cnt = min(NT_TILE, nsurf - base);
        if (threadIdx.x < cnt) s[threadIdx.x] = surf[base + threadIdx.x];
        __syncthreads();
        if (act) {
            for (int q = 0; q < cnt; q++) {
                SurfPt P = s[q];
                float ph = ux * P.x + uy * P.y + uz * P.z;
                float sn, cs;
                sincosf(ph, &sn, &cs);
                cs *= P.area;
                sn *= P.area;
                jxr += P.jx.x * cs - P.jx.y * sn;
                jxi += P.jx.x * sn + P.jx.y * cs;
                jyr += P.jy.x * cs - P.jy.y * sn;
                jyi += P.jy.x * sn + P.jy.y * cs;
                jzr += P.jz.x * cs - P.jz.y * sn;
                jzi += P.jz.x * sn + P.jz.y * cs;
                mxr += P.mx.x * cs - P.mx.y * sn;
                mxi += P.mx.x * sn + P.mx.y * cs;
                myr += P.my.x * cs - P.my.y * sn;
                myi += P.my.x * sn + P.my.y * cs;
                mzr += P.mz.x * cs - P.mz.y * sn;
                mzi += P.mz.x * sn + P.mz.y * cs;
            }
        }
        __syncthreads();
    }
    float p = 0.0f;
    if (act) {
        // theta and phi projections
        float tx = ct * cp, ty = ct * sp, tz = -st;
        float fx = -sp, fy = cp;
        float ntr = jxr * tx + jyr * ty + jzr * tz, nti = jxi * tx + jyi * ty + jzi * tz;
        float npr = jxr * fx + jyr * fy, npi = jxi * fx + jyi * fy;
        float ltr = mxr * tx + myr * ty + mzr * tz, lti = mxi * tx + myi * ty + mzi * tz;
        float lpr = mxr * fx + myr * fy, lpi = mxi * fx + myi * fy;
        // E_theta = -jk / (4 pi) (L_phi + N_theta), E_phi = jk / (4 pi) (L_theta - N_phi)
        float ar = lpr + ntr, ai = lpi + nti;
        float br = ltr - npr, bi = lti - npi;
        float g = k / (4.0f * PI_F);
        far[d] = make_float4(g * ai, -g * ar, -g * bi, g * br);
        float u = k * k / (32.0f * PI_F * PI_F) * (ar * ar + ai * ai + br * br + bi * bi);
        U[d] = u;
        atomicMax(umax, __float_as_int(u));
        p = u * st * dth * dph;
    }
    for (int o = 16; o > 0; o >>= 1) p += __shfl_down_sync(FULL_MASK, p, o);
    if ((threadIdx.x & 31) == 0) s_p[threadIdx.x >> 5] = p;
    __syncthreads();
    if (threadIdx.x == 0) {
        double tot = 0.0;
        for (int w = 0; w < NT_TILE / 32; w++) tot += (double)s_p[w];
        atomicAdd(prad, tot);
    }
}

// ---------------------------------------------------------------- array_thin_psll

// masks[c][w]: candidate c's elements (bit b of word w: element 32 w + b on); a warp a
// candidate: AF(u) = sum_on amp e^{j pi x u} at u = -1 + (lane + 32 q) 2 / AT_NU;
// psll[c] = 10 log10(max_{|u| > u_main} |AF|^2 / (sum_on amp)^2), nviol[c] = samples over
// the mask (|u| > u_main, |AF|^2 > mask (sum amp)^2), best = min over c of
// (int)rint(100 psll) * 65536 + c
__global__ void array_thin_psll(const unsigned int *masks, int ncand, float u_main, float mask, float *psll,
                                int *nviol, int *best) {
    int lane = threadIdx.x & 31;
    int c = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (c >= ncand) return;
    float re[AT_NQ], im[AT_NQ];
#pragma unroll
    for (int q = 0; q < AT_NQ; q++) {
        re[q] = 0.0f;
        im[q] = 0.0f;
    }
    float asum = 0.0f;
    const unsigned int *m = masks + (size_t)c * AT_NW;
    for (int w = 0; w < AT_NW; w++) {
        unsigned int bits = m[w];
        while (bits != 0u) {
            int b = __ffs(bits) - 1;
            bits &= bits - 1u;
            Elem e = c_elem[w * 32 + b];
            asum += e.amp;
#pragma unroll
            for (int q = 0; q < AT_NQ; q++) {
                float u = -1.0f + (float)(lane + 32 * q) * (2.0f / AT_NU);
                float sn, cs;
                sincospif(e.x * u, &sn, &cs);
                re[q] += e.amp * cs;
                im[q] += e.amp * sn;
            }
        }
    }
    float thr = mask * asum * asum;
    float pk = 0.0f;
    int nv = 0;
#pragma unroll
    for (int q = 0; q < AT_NQ; q++) {
        float u = -1.0f + (float)(lane + 32 * q) * (2.0f / AT_NU);
        float p = re[q] * re[q] + im[q] * im[q];
        bool side = fabsf(u) > u_main;
        if (side) pk = fmaxf(pk, p);
        nv += __popc(__ballot_sync(FULL_MASK, side && p > thr));
    }
    for (int o = 16; o > 0; o >>= 1) pk = fmaxf(pk, __shfl_xor_sync(FULL_MASK, pk, o));
    if (lane == 0) {
        float db = 10.0f * log10f(pk / (asum * asum));
        psll[c] = db;
        nviol[c] = nv;
        atomicMin(best, (int)rintf(100.0f * db) * 65536 + c);
    }
}

// ---------------------------------------------------------------- mom_tm_fill

// Z[m][n] = (k eta0 / 4) int_seg n H0^(2)(k |r_m - r'|) dl' stored column-major:
// zcm[n * nseg + m]; k in radians a wavelength (lengths in wavelengths); grid (ceil(nseg / 32),
// ceil(nseg / 32)), block (32, 8)
__global__ void mom_tm_fill(const Seg *seg, int nseg, double k, double2 *zcm) {
    __shared__ double2 tile[MOM_T][MOM_T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int n = blockIdx.x * MOM_T + tx;
    double coef = k * ETA0 / 4.0;
    Seg sn;
    if (n < nseg) sn = seg[n];
    for (int r = 0; r < MOM_T / 8; r++) {
        int m = blockIdx.y * MOM_T + ty + 8 * r;
        double2 z = make_double2(0.0, 0.0);
        if (m < nseg && n < nseg) {
            double xm = seg[m].xc, ym = seg[m].yc;
            double dx = xm - sn.xc, dy = ym - sn.yc;
            double R = sqrt(dx * dx + dy * dy);
            if (m == n) {
                z.x = coef * sn.len;
                z.y = -coef * sn.len * (2.0 / PI_D) * (log(GAMMA_E * k * sn.len / 4.0) - 1.0);
            } else if (R < MOM_NEAR * sn.len) {
                double zr = 0.0, zi = 0.0;
                for (int q = 0; q < MOM_NQ; q++) {
                    double l = 0.5 * sn.len * c_glx[q];
                    double qx = xm - (sn.xc + l * sn.tx), qy = ym - (sn.yc + l * sn.ty);
                    double2 h = hankel2_0(k * sqrt(qx * qx + qy * qy));
                    zr += c_glw[q] * h.x;
                    zi += c_glw[q] * h.y;
                }
                z.x = coef * 0.5 * sn.len * zr;
                z.y = coef * 0.5 * sn.len * zi;
            } else {
                double2 h = hankel2_0(k * R);
                z.x = coef * sn.len * h.x;
                z.y = coef * sn.len * h.y;
            }
        }
        tile[ty + 8 * r][tx] = z;
    }
    __syncthreads();
    for (int r = 0; r < MOM_T / 8; r++) {
        int nn = blockIdx.x * MOM_T + ty + 8 * r;
        int mm = blockIdx.y * MOM_T + tx;
        if (nn < nseg && mm < nseg) zcm[(size_t)nn * nseg + mm] = tile[tx][ty + 8 * r];
    }
}

// ---------------------------------------------------------------- ray_launch_coverage

// nray rays from the transmitter at angles (r + 1/2) dphi over nbld buildings (axis-aligned
// boxes); cov[cy * nx + cx] += each ray piece's kdep pw len / range (see ray_deposit), pw the
// product of the |Gamma_TE|^2 of its reflections so far; a ray stops on leaving the map, after
// RL_MAXB reflections or once pw < pmin; nbounce[r] its reflections
__global__ void ray_launch_coverage(const Building *bld, int nbld, int nray, float *cov, int *nbounce) {
    __shared__ float4 s_box[RL_MAXBLD];
    __shared__ int s_mat[RL_MAXBLD];
    for (int i = threadIdx.x; i < nbld; i += blockDim.x) {
        Building b = bld[i];
        s_box[i] = make_float4(b.x0, b.y0, b.x1, b.y1);
        s_mat[i] = b.mat;
    }
    __syncthreads();
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nray) return;
    float dx, dy;
    sincosf(((float)r + 0.5f) * c_ray.dphi, &dy, &dx);
    float px = c_ray.txx, py = c_ray.txy;
    float W = (float)c_ray.nx * c_ray.cell, H = (float)c_ray.ny * c_ray.cell;
    float pw = 1.0f, dist = 0.0f;
    int nb = 0;
    for (int b = 0; b <= RL_MAXB; b++) {
        // the nearest building face ahead: the slab test, the entry face the later slab's
        float idx = 1.0f / dx, idy = 1.0f / dy;
        float tbest = 1e30f;
        int hbest = -1;
        bool xface = false;
        for (int i = 0; i < nbld; i++) {
            float4 bx = s_box[i];
            float t1 = (bx.x - px) * idx, t2 = (bx.z - px) * idx;
            float t3 = (bx.y - py) * idy, t4 = (bx.w - py) * idy;
            float tnx = fminf(t1, t2), tny = fminf(t3, t4);
            float tin = fmaxf(tnx, tny);
            float tout = fminf(fmaxf(t1, t2), fmaxf(t3, t4));
            if (tin < tout && tin > 1e-3f && tin < tbest) {
                tbest = tin;
                hbest = i;
                xface = tnx > tny;
            }
        }
        float tex = dx > 0.0f ? (W - px) / dx : (dx < 0.0f ? -px / dx : 1e30f);
        float tey = dy > 0.0f ? (H - py) / dy : (dy < 0.0f ? -py / dy : 1e30f);
        float tedge = fminf(tex, tey);
        bool hit = hbest >= 0 && tbest < tedge;
        ray_deposit(px, py, dx, dy, hit ? tbest : tedge, dist, pw, cov);
        if (!hit || b == RL_MAXB) break;
        px += tbest * dx;
        py += tbest * dy;
        dist += tbest;
        Material mt = c_mat[s_mat[hbest]];
        // specular reflection: the face's normal component reversed
        if (xface) {
            pw *= gamma_te2(fabsf(dx), mt.er, mt.ei);
            dx = -dx;
        } else {
            pw *= gamma_te2(fabsf(dy), mt.er, mt.ei);
            dy = -dy;
        }
        nb++;
        if (pw < c_ray.pmin) break;
    }
    nbounce[r] = nb;
}

}  // extern "C"
