// probe-unseen205: an atmospheric-chemistry / air-quality modelling course's CUDA assignments,
// as a student who knows CUDA basics hands them in:
//  - chem_ros2: the gas-phase chemistry of a chemistry-transport model, a thread a grid cell:
//    a NOx-Ox-HOx-CO mechanism (6 species, 9 reactions, two of them photolyses) integrated
//    over the model's chemistry step by the 2-stage Rosenbrock method ROS2 with adaptive
//    steps (an embedded first-order error estimate, accept / reject), in double precision:
//    the rate constants from an Arrhenius table in __constant__ memory, the Jacobian of the 5
//    reacting species written out by hand into a 5 x 5 local array, I - gamma h J factorised
//    by Gaussian elimination without pivoting, each cell taking as many steps as its
//    stiffness asks; HNO3 (a terminal product) from the nitrogen budget;
//  - jvalues: photolysis frequencies of 16 reactions in every grid cell of a global model:
//    the solar zenith angle from the cell's latitude, longitude, the day and the hour, night
//    cells zeroed, then 18 wavelength bins: the top-of-atmosphere flux attenuated by the
//    ozone column above the cell (temperature-dependent cross-sections) and Rayleigh
//    extinction along the slant path, times each reaction's cross-section x quantum yield,
//    all the spectral tables in __constant__ memory set by the host;
//  - sl_advect: semi-Lagrangian advection of tracers on a global latitude-longitude grid, a
//    thread a grid point: the departure point by two midpoint iterations (the wind
//    bilinearly interpolated there), the tracers bilinearly interpolated at it, longitudes
//    periodic (nx a power of two, wrapped with a mask), latitudes clamped at the poles;
//  - gauss_plume: ground-level concentrations of a city's industrial stacks on a receptor
//    grid by the Gaussian plume model, a thread a receptor: the stacks copied a tile at a
//    time into shared memory (their wind at stack height and Briggs final plume rise
//    computed on the way), then each stack's plume: downwind and crosswind distances, the
//    Briggs rural sigma-y and sigma-z of the hour's stability class from a __constant__
//    table, the 2/3-law gradual rise, reflections off the ground and the mixing lid;
//  - emis_grid: gridding of an emission inventory onto the model grid, a grid-stride loop
//    over the inventory's 16-byte records (a pollutant byte, the sector and the release layer
//    packed in a byte, a 16-bit country code): the cell by floorf, the monthly, weekday and
//    local-hour factors of the record's sector and its country's factor from __constant__
//    tables, the pollutant split into the mechanism's species (NMVOC into 8 lumped species),
//    each added to the grid by a float atomicAdd; records outside the domain counted by a
//    warp __ballot_sync and __popc;
//  - drydep: dry deposition by Wesely's resistance model on the surface grid, a grid-stride
//    loop over cells: the cell's season from its latitude, the month and the temperature,
//    the aerodynamic resistance with the Businger-Dyer stability correction (stable or
//    unstable), for 4 species the quasi-laminar and the bulk surface resistance from
//    Wesely's tables (in __constant__ memory, indexed by the cell's land-use byte), the loss
//    over the lowest layer; the deposited mass added by land use with shared float atomics
//    (and the cells counted with shared int atomics), summed in double a thread, by
//    __shfl_down_sync a warp and by a double atomicAdd over the grid.

#define CH_NSP 5                // chem_ros2: O3, NO, NO2, OH, HO2 integrated
#define CH_NVAL 6               // values a cell: those and HNO3
#define CH_NR 9                 // reactions
#define CH_MAXSTEP 40           // steps (accepted or not) a cell at most
#define JV_NW 18                // jvalues: wavelength bins
#define JV_NJ 16                // photolysis reactions
#define PL_TILE 128             // gauss_plume: stacks a shared-memory tile (== threads a block)
#define EG_NSEC 13              // emis_grid: GNFR sectors A .. M
#define EG_NPOL 6               // inventory pollutants: NOx SO2 CO NMVOC NH3 PM2.5
#define EG_MAXSPLIT 8           // model species a pollutant at most
#define EG_NCTRY 64             // countries
#define DD_NLU 11               // drydep: Wesely's land-use categories
#define DD_NSEA 5               // seasons
#define DD_NSP 4                // deposited species: O3, SO2, NO2, HNO3

#define PI_F 3.14159265f
#define DEG2RAD 0.0174532925f
#define R_EARTH 6.371e6f
#define KARMAN 0.4f

// ---- chem_ros2 ----

// k = A exp(-E / T) for the thermal reactions (rows 0 and 2 are photolyses, 3 is set apart)
__constant__ double c_arrA[CH_NR] = {0.0, 3.0e-12, 0.0, 1.5e-13, 3.3e-12, 1.1e-11, 3.0e-13, 1.7e-12, 1.0e-14};
__constant__ double c_arrE[CH_NR] = {0.0, 1500.0, 0.0, 0.0, -270.0, 0.0, -460.0, 940.0, 490.0};

// the cell's rates r[k] of the reactions at concentrations y
__device__ void ch_rates(const double *y, const double *k, double co, double *r) {
    r[0] = k[0] * y[2];                 // NO2 + hv -> NO + O3 (O3P + O2 fast)
    r[1] = k[1] * y[1] * y[0];          // NO + O3 -> NO2 + O2
    r[2] = k[2] * y[0];                 // O3 + hv (-> O1D, + H2O) -> 2 OH
    r[3] = k[3] * co * y[3];            // OH + CO (+ O2) -> HO2 + CO2
    r[4] = k[4] * y[4] * y[1];          // HO2 + NO -> OH + NO2
    r[5] = k[5] * y[3] * y[2];          // OH + NO2 (+ M) -> HNO3
    r[6] = k[6] * y[4] * y[4];          // HO2 + HO2 -> H2O2 + O2
    r[7] = k[7] * y[3] * y[0];          // OH + O3 -> HO2 + O2
    r[8] = k[8] * y[4] * y[0];          // HO2 + O3 -> OH + 2 O2
}

// the tendencies f = dy/dt
__device__ void ch_fun(const double *y, const double *k, double co, double *f) {
    double r[CH_NR];
    ch_rates(y, k, co, r);
    f[0] = r[0] - r[1] - r[2] - r[7] - r[8];
    f[1] = r[0] - r[1] - r[4];
    f[2] = -r[0] + r[1] + r[4] - r[5];
    f[3] = 2.0 * r[2] - r[3] + r[4] - r[5] - r[7] + r[8];
    f[4] = r[3] - r[4] - 2.0 * r[6] + r[7] - r[8];
}

// the Jacobian df_i / dy_j, row-major
// (the zeros of J set by the caller)
__device__ void ch_jac(const double *y, const double *k, double co, double *J) {
    // d/dO3
    J[0 * CH_NSP + 0] = -k[1] * y[1] - k[2] - k[7] * y[3] - k[8] * y[4];
    J[1 * CH_NSP + 0] = -k[1] * y[1];
    J[2 * CH_NSP + 0] = k[1] * y[1];
    J[3 * CH_NSP + 0] = 2.0 * k[2] - k[7] * y[3] + k[8] * y[4];
    J[4 * CH_NSP + 0] = k[7] * y[3] - k[8] * y[4];
    // d/dNO
    J[0 * CH_NSP + 1] = -k[1] * y[0];
    J[1 * CH_NSP + 1] = -k[1] * y[0] - k[4] * y[4];
    J[2 * CH_NSP + 1] = k[1] * y[0] + k[4] * y[4];
    J[3 * CH_NSP + 1] = k[4] * y[4];
    J[4 * CH_NSP + 1] = -k[4] * y[4];
    // d/dNO2
    J[0 * CH_NSP + 2] = k[0];
    J[1 * CH_NSP + 2] = k[0];
    J[2 * CH_NSP + 2] = -k[0] - k[5] * y[3];
    J[3 * CH_NSP + 2] = -k[5] * y[3];
    // d/dOH
    J[0 * CH_NSP + 3] = -k[7] * y[0];
    J[2 * CH_NSP + 3] = -k[5] * y[2];
    J[3 * CH_NSP + 3] = -k[3] * co - k[5] * y[2] - k[7] * y[0];
    J[4 * CH_NSP + 3] = k[3] * co + k[7] * y[0];
    // d/dHO2
    J[0 * CH_NSP + 4] = -k[8] * y[0];
    J[1 * CH_NSP + 4] = -k[4] * y[1];
    J[2 * CH_NSP + 4] = k[4] * y[1];
    J[3 * CH_NSP + 4] = k[4] * y[1] + k[8] * y[0];
    J[4 * CH_NSP + 4] = -k[4] * y[1] - 4.0 * k[6] * y[4] - k[8] * y[0];
}

// solve (LU) x = b in place; A holds L (unit diagonal, below) and U
__device__ void ch_solve(const double *A, double *b) {
    for (int i = 1; i < CH_NSP; i++)
        for (int j = 0; j < i; j++) b[i] -= A[i * CH_NSP + j] * b[j];
    for (int i = CH_NSP - 1; i >= 0; i--) {
        for (int j = i + 1; j < CH_NSP; j++) b[i] -= A[i * CH_NSP + j] * b[j];
        b[i] /= A[i * CH_NSP + i];
    }
}

// ---- jvalues ----

__constant__ float c_f0[JV_NW];             // top-of-atmosphere actinic flux a bin, photons cm^-2 s^-1
__constant__ float c_so3[JV_NW];            // O3 cross-section at 295 K, cm^2
__constant__ float c_dso3[JV_NW];           // its change a kelvin, cm^2 / K
__constant__ float c_sray[JV_NW];           // Rayleigh cross-section, cm^2
__constant__ float c_sq[JV_NJ][JV_NW];      // cross-section x quantum yield of each reaction, cm^2

// ---- gauss_plume ----

// Briggs' rural sigmas of stability classes A .. F: sy = a x / sqrt(1 + b x), sz = c x (1 + d x)^e
__constant__ float c_pg[6][5] = {{0.22f, 0.0001f, 0.20f, 0.0f, 0.0f},
                                 {0.16f, 0.0001f, 0.12f, 0.0f, 0.0f},
                                 {0.11f, 0.0001f, 0.08f, 0.0002f, -0.5f},
                                 {0.08f, 0.0001f, 0.06f, 0.0015f, -0.5f},
                                 {0.06f, 0.0001f, 0.03f, 0.0003f, -1.0f},
                                 {0.04f, 0.0001f, 0.016f, 0.0003f, -1.0f}};
// wind profile exponents (rural) and potential temperature gradients (K/m, stable classes)
__constant__ float c_pexp[6] = {0.07f, 0.07f, 0.10f, 0.15f, 0.35f, 0.55f};
__constant__ float c_dtdz[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.02f, 0.035f};

struct Stack {
    float x, y;        // position (m)
    float h;           // stack height (m)
    float q;           // emission rate (g/s)
    float vs;          // exit velocity (m/s)
    float ts;          // exit temperature (K)
    float d;           // inner diameter (m)
};

struct Plume {
    float x, y, h, q;
    float us;          // wind speed at the stack's top
    float f13;         // the buoyancy flux's cube root
    float dhmax;       // Briggs' final rise
};

// ---- emis_grid ----

struct EmisRec {
    float lon, lat;            // degrees
    float emis;                // tonnes a year of its pollutant
    unsigned short country;    // country index
    unsigned char pol;         // pollutant
    unsigned char sec_lay;     // the GNFR sector in the low nibble, the release layer in the high one
};

__constant__ float c_month[EG_NSEC][12];
__constant__ float c_wday[EG_NSEC][7];
__constant__ float c_hour[EG_NSEC][24];
__constant__ float c_ctry[EG_NCTRY];
__constant__ int c_nsplit[EG_NPOL];
__constant__ int c_split_sp[EG_NPOL][EG_MAXSPLIT];
__constant__ float c_split_f[EG_NPOL][EG_MAXSPLIT];   // mol of the species a gram of the pollutant

// ---- drydep ----

__constant__ float c_ri[DD_NSEA][DD_NLU];     // Wesely (1989) table 3: minimum stomatal resistance
__constant__ float c_rlu[DD_NSEA][DD_NLU];    // upper canopy (cuticles)
__constant__ float c_rac[DD_NSEA][DD_NLU];    // in-canopy transfer
__constant__ float c_rgss[DD_NSEA][DD_NLU];   // ground, SO2
__constant__ float c_rgso[DD_NSEA][DD_NLU];   // ground, O3
__constant__ float c_rcls[DD_NSEA][DD_NLU];   // lower canopy, SO2
__constant__ float c_rclo[DD_NSEA][DD_NLU];   // lower canopy, O3
__constant__ float c_z0[DD_NSEA][DD_NLU];     // roughness length (m)
__constant__ float c_hstar[DD_NSP];           // effective Henry's law constant (M/atm)
__constant__ float c_f0r[DD_NSP];             // reactivity
__constant__ float c_drat[DD_NSP];            // D(H2O) / D(species)
__constant__ int c_season_nh[12];             // northern-hemisphere season of each month

extern "C" {

// n cells: conc[6 i .. 6 i + 5] cell i's O3, NO, NO2, OH, HO2, HNO3 (molecules cm^-3),
// integrated over dt seconds in place; temp (K), pres (hPa), h2o (molecules cm^-3), co
// (molecules cm^-3), jno2, jo1d (s^-1) the cell's; h[i] its first step (the last one the
// previous call proposed) and, after, the step it proposes next; nsteps[i] the steps it took
// (rejected ones included)
__global__ void chem_ros2(double *conc, const float *temp, const float *pres, const float *h2o, const float *co,
                          const float *jno2, const float *jo1d, float *h_cell, int *nsteps, double dt, double rtol,
                          double atol, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double T = temp[i];
    double M = pres[i] * 100.0 / (1.380649e-23 * T) * 1.0e-6;
    double k[CH_NR];
    for (int r = 0; r < CH_NR; r++) k[r] = c_arrA[r] * exp(-c_arrE[r] / T);
    k[0] = jno2[i];
    // O1D: quenched by N2 and O2 or turned into 2 OH by water
    double kq = (0.78 * 2.15e-11 * exp(110.0 / T) + 0.21 * 3.3e-11 * exp(55.0 / T)) * M;
    double kw = 1.63e-10 * exp(60.0 / T) * h2o[i];
    k[2] = jo1d[i] * kw / (kw + kq);
    k[3] = 1.5e-13 * (1.0 + 0.6 * pres[i] / 1013.25);
    double cco = co[i];

    double y[CH_NSP], ynew[CH_NSP], k1[CH_NSP], k2[CH_NSP], f[CH_NSP];
    double J[CH_NSP * CH_NSP], A[CH_NSP * CH_NSP];
    for (int s = 0; s < CH_NSP * CH_NSP; s++) J[s] = 0.0;
    for (int s = 0; s < CH_NSP; s++) y[s] = conc[i * CH_NVAL + s];
    double nox0 = y[1] + y[2];
    const double gam = 1.0 + 1.0 / sqrt(2.0);
    double t = 0.0, h = h_cell[i];
    int step = 0;
    while (t < dt && step < CH_MAXSTEP) {
        if (t + h > dt) h = dt - t;
        ch_jac(y, k, cco, J);
        for (int a = 0; a < CH_NSP; a++)
            for (int b = 0; b < CH_NSP; b++)
                A[a * CH_NSP + b] = (a == b ? 1.0 : 0.0) - gam * h * J[a * CH_NSP + b];
        for (int p = 0; p < CH_NSP; p++) {               // LU, no pivoting (diagonally dominant)
            for (int a = p + 1; a < CH_NSP; a++) {
                double l = A[a * CH_NSP + p] / A[p * CH_NSP + p];
                A[a * CH_NSP + p] = l;
                for (int b = p + 1; b < CH_NSP; b++) A[a * CH_NSP + b] -= l * A[p * CH_NSP + b];
            }
        }
        ch_fun(y, k, cco, k1);
        ch_solve(A, k1);
        for (int s = 0; s < CH_NSP; s++) ynew[s] = y[s] + h * k1[s];
        ch_fun(ynew, k, cco, f);
        for (int s = 0; s < CH_NSP; s++) k2[s] = f[s] - 2.0 * k1[s];
        ch_solve(A, k2);
        double err = 0.0;
        for (int s = 0; s < CH_NSP; s++) {
            ynew[s] = y[s] + h * (1.5 * k1[s] + 0.5 * k2[s]);
            double sc = atol + rtol * fmax(fabs(y[s]), fabs(ynew[s]));
            double e = 0.5 * h * (k1[s] + k2[s]) / sc;
            err += e * e;
        }
        err = sqrt(err / CH_NSP);
        if (err <= 1.0) {                                // accepted
            t += h;
            for (int s = 0; s < CH_NSP; s++) y[s] = fmax(ynew[s], 0.0);
        }
        double fac = 0.9 / sqrt(fmax(err, 1.0e-10));
        h = h * fmin(5.0, fmax(0.2, fac));
        step++;
    }
    for (int s = 0; s < CH_NSP; s++) conc[i * CH_NVAL + s] = y[s];
    // HNO3 is the mechanism's only nitrogen sink and reacts no further: the NOx lost went there
    conc[i * CH_NVAL + 5] += nox0 - (y[1] + y[2]);
    h_cell[i] = (float)h;
    nsteps[i] = step;
}

// n cells, cell i in column i % ncol: lat, lon (degrees) and albedo of the columns; pres
// (hPa), temp (K) and o3col (Dobson units above the cell) of the cells; J[16 i .. 16 i + 15]
// the photolysis frequencies (s^-1) at day of year doy and hour utc
__global__ void jvalues(const float *lat, const float *lon, const float *albedo, const float *pres,
                        const float *temp, const float *o3col, float *J, int ncol, int doy, float utc, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int col = i % ncol;
    float phi = lat[col] * DEG2RAD;
    float decl = 23.44f * DEG2RAD * sinf(2.0f * PI_F * (284 + doy) / 365.0f);
    float ha = (utc + lon[col] / 15.0f - 12.0f) * 15.0f * DEG2RAD;
    float mu = sinf(phi) * sinf(decl) + cosf(phi) * cosf(decl) * cosf(ha);
    if (mu <= 0.0f) {                                    // the sun is down
        for (int k = 0; k < JV_NJ; k++) J[i * JV_NJ + k] = 0.0f;
        return;
    }
    float mue = fmaxf(mu, 0.03f);                        // the slant path's cap near the horizon
    float nair = pres[i] * 100.0f / (9.81f * 4.81e-26f) * 1.0e-4f;   // air molecules cm^-2 above
    float no3 = o3col[i] * 2.687e16f;                    // O3 molecules cm^-2 above
    float dT = temp[i] - 295.0f;
    float enh = 1.0f + 2.0f * albedo[col] * mu;          // the surface's reflection
    float jv[JV_NJ];
    for (int k = 0; k < JV_NJ; k++) jv[k] = 0.0f;
    for (int w = 0; w < JV_NW; w++) {
        float so3 = c_so3[w] + c_dso3[w] * dT;
        float tau = so3 * no3 + c_sray[w] * nair;
        float fl = c_f0[w] * expf(-tau / mue) * enh;
        for (int k = 0; k < JV_NJ; k++) jv[k] += c_sq[k][w] * fl;
    }
    for (int k = 0; k < JV_NJ; k++) J[i * JV_NJ + k] = jv[k];
}

// bilinear interpolation of f (ny rows of nx) at (x, y) in grid units: x periodic (nx a
// power of two), y clamped to the first and last rows
__device__ float sl_bilin(const float *f, int nx, int ny, float x, float y) {
    y = fminf(fmaxf(y, 0.0f), (float)(ny - 1));
    float fx = floorf(x);
    float fy = floorf(y);
    float a = x - fx;
    float b = y - fy;
    int i0 = ((int)fx) & (nx - 1);
    int i1 = (i0 + 1) & (nx - 1);
    int j0 = (int)fy;
    int j1 = min(j0 + 1, ny - 1);
    return (1.0f - a) * (1.0f - b) * f[j0 * nx + i0] + a * (1.0f - b) * f[j0 * nx + i1] +
           (1.0f - a) * b * f[j1 * nx + i0] + a * b * f[j1 * nx + i1];
}

// q[k][j][i] ntr tracers on ny x nx points (row j at latitude lat0 + j dlat, in radians),
// u, v the wind (m/s); qn the tracers after dt seconds: cx = dt / (R dlon), cy = dt / (R dlat)
__global__ void sl_advect(const float *q, float *qn, const float *u, const float *v, int nx, int ny, int ntr,
                          float lat0, float dlat, float cx, float cy) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    int c = j * nx + i;
    float cosl = cosf(lat0 + j * dlat);
    float xd = i - u[c] * cx / cosl;
    float yd = j - v[c] * cy;
    for (int it = 0; it < 2; it++) {                     // the midpoint's wind, twice
        float xm = 0.5f * (i + xd);
        float ym = 0.5f * (j + yd);
        float um = sl_bilin(u, nx, ny, xm, ym);
        float vm = sl_bilin(v, nx, ny, xm, ym);
        float cm = cosf(lat0 + fminf(fmaxf(ym, 0.0f), (float)(ny - 1)) * dlat);
        xd = i - um * cx / cm;
        yd = j - vm * cy;
    }
    for (int k = 0; k < ntr; k++) qn[k * nx * ny + c] = sl_bilin(q + k * nx * ny, nx, ny, xd, yd);
}

// nr x nr receptors (spacing dxr, zr above the ground) and ns stacks; conc[j nr + i] the
// hour's concentration (ug/m^3) at receptor (i, j): wind u10 (m/s at 10 m) from wdir
// (degrees), stability class cls (0 .. 5: A .. F), air temperature ta (K), mixing height zmix
__global__ void gauss_plume(const Stack *st, int ns, float *conc, int nr, float dxr, float zr, float u10,
                            float wdir, int cls, float ta, float zmix) {
    __shared__ Plume s_pl[PL_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    float rx = (i + 0.5f) * dxr;
    float ry = (j + 0.5f) * dxr;
    float sw = sinf(wdir * DEG2RAD);
    float cw = cosf(wdir * DEG2RAD);
    float a = c_pg[cls][0], b = c_pg[cls][1], c = c_pg[cls][2], d = c_pg[cls][3], e = c_pg[cls][4];
    float sum = 0.0f;
    for (int base = 0; base < ns; base += PL_TILE) {
        if (base + t < ns) {
            Stack s = st[base + t];
            float hs = fmaxf(s.h, 10.0f);
            float us = u10 * powf(hs / 10.0f, c_pexp[cls]);
            float F = 9.81f * s.vs * s.d * s.d * (s.ts - ta) / (4.0f * s.ts);   // buoyancy flux m^4 s^-3
            F = fmaxf(F, 0.0f);
            float dhmax;
            if (cls >= 4) {                                  // stable: 2.6 (F / (u s))^(1/3)
                float sst = 9.81f / ta * c_dtdz[cls];
                dhmax = 2.6f * cbrtf(F / (us * sst));
            } else if (F < 55.0f) {
                dhmax = 21.425f * powf(F, 0.75f) / us;
            } else {
                dhmax = 38.71f * powf(F, 0.6f) / us;
            }
            s_pl[t].x = s.x;
            s_pl[t].y = s.y;
            s_pl[t].h = s.h;
            s_pl[t].q = s.q;
            s_pl[t].us = us;
            s_pl[t].f13 = cbrtf(F);
            s_pl[t].dhmax = dhmax;
        }
        __syncthreads();
        int m = min(PL_TILE, ns - base);
        for (int k = 0; k < m; k++) {
            float dx = rx - s_pl[k].x;
            float dy = ry - s_pl[k].y;
            float xd = -(dx * sw + dy * cw);                  // downwind: the wind blows from wdir
            float yc = dx * cw - dy * sw;
            if (xd > 1.0f) {
                float sy = a * xd / sqrtf(1.0f + b * xd);
                float sz = c * xd * powf(1.0f + d * xd, e);
                float us = s_pl[k].us;
                float dh = fminf(1.6f * s_pl[k].f13 * powf(xd, 2.0f / 3.0f) / us, s_pl[k].dhmax);
                float he = s_pl[k].h + dh;
                if (he < zmix) {                              // above the lid: no ground impact
                    float gy = expf(-0.5f * yc * yc / (sy * sy));
                    float z2 = 2.0f * sz * sz;
                    float gz = expf(-(zr - he) * (zr - he) / z2) + expf(-(zr + he) * (zr + he) / z2) +
                               expf(-(zr - 2.0f * zmix + he) * (zr - 2.0f * zmix + he) / z2) +
                               expf(-(zr + 2.0f * zmix - he) * (zr + 2.0f * zmix - he) / z2);
                    sum += s_pl[k].q / (2.0f * PI_F * us * sy * sz) * gy * gz;
                }
            }
        }
        __syncthreads();
    }
    if (i < nr && j < nr) conc[j * nr + i] = sum * 1.0e6f;      // g/m^3 -> ug/m^3
}

// n inventory records onto an nlat x nlon grid (south-west corner lon0, lat0, dres degrees)
// of nlev layers: emis[(s nlev + layer) ncell + cell] += the species' flux (mol m^-2 s^-1;
// g for PM) at month (0 ..), weekday wday (0 Monday ..) and UTC hour hour_utc of the
// sectors in sector_mask; *dropped += the records outside the domain
__global__ void emis_grid(const EmisRec *rec, float *emis, int nlon, int nlat, int nlev, float lon0, float lat0,
                          float dres, int month, int wday, int hour_utc, unsigned int sector_mask, int *dropped,
                          int n) {
    int ncell = nlon * nlat;
    for (int base = blockIdx.x * blockDim.x; base < n; base += blockDim.x * gridDim.x) {
        int r = base + threadIdx.x;
        int out = 0;
        if (r < n) {
            EmisRec e = rec[r];
            int sec = e.sec_lay & 0xF;
            int lay = e.sec_lay >> 4;
            int ci = (int)floorf((e.lon - lon0) / dres);
            int cj = (int)floorf((e.lat - lat0) / dres);
            if (ci < 0 || ci >= nlon || cj < 0 || cj >= nlat) {
                out = 1;
            } else if ((sector_mask >> sec) & 1) {
                int hloc = hour_utc + (int)floorf(e.lon / 15.0f + 0.5f);   // local solar hour
                int wd = wday;
                if (hloc < 0) {
                    hloc += 24;
                    wd = (wd + 6) % 7;
                } else if (hloc >= 24) {
                    hloc -= 24;
                    wd = (wd + 1) % 7;
                }
                float tf = c_month[sec][month] * c_wday[sec][wd] * c_hour[sec][hloc];
                float clat = (lat0 + (cj + 0.5f) * dres) * DEG2RAD;
                float area = R_EARTH * R_EARTH * (dres * DEG2RAD) * (dres * DEG2RAD) * cosf(clat);
                float gps = e.emis * 1.0e6f / (365.0f * 24.0f * 3600.0f) * tf * c_ctry[e.country];
                float flux = gps / area;
                int p = e.pol;
                for (int k = 0; k < c_nsplit[p]; k++) {
                    int s = c_split_sp[p][k];
                    atomicAdd(&emis[(s * nlev + lay) * ncell + cj * nlon + ci], flux * c_split_f[p][k]);
                }
            }
        }
        unsigned int outs = __ballot_sync(0xffffffff, out);
        if ((threadIdx.x & 31) == 0 && outs) atomicAdd(dropped, __popc(outs));
    }
}

// n surface cells of a grid of rows of nlon (row j at latitude lat0 + (j + 0.5) dres
// degrees): lu the land use (0 .. 10), ustar (m/s), mol_l the Obukhov length (m), rad the
// solar radiation (W/m^2), tsurf (K); conc[s n + c] the species' concentration (ug/m^3) in
// the lowest layer (dz1 m thick) after dt seconds of deposition; dep_lu[s DD_NLU + l] += the
// mass deposited (ug) on land use l, dep_tot[s] += all of it, ncell_lu[l] += the cells
__global__ void drydep(const unsigned char *lu, const float *ustar, const float *mol_l, const float *rad,
                       const float *tsurf, float *conc, int nlon, float lat0, float dres, int month, float dt,
                       float zref, float dz1, float *dep_lu, double *dep_tot, int *ncell_lu, int n) {
    __shared__ float s_dep[DD_NSP * DD_NLU];
    __shared__ int s_cnt[DD_NLU];
    for (int k = threadIdx.x; k < DD_NSP * DD_NLU; k += blockDim.x) s_dep[k] = 0.0f;
    for (int k = threadIdx.x; k < DD_NLU; k += blockDim.x) s_cnt[k] = 0;
    __syncthreads();
    double mine[DD_NSP];
    for (int s = 0; s < DD_NSP; s++) mine[s] = 0.0;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < n; c += blockDim.x * gridDim.x) {
        int l = lu[c];
        float lat = lat0 + (c / nlon + 0.5f) * dres;
        float ts = tsurf[c] - 273.15f;
        int sea;
        if (ts < -5.0f) sea = 3;                              // snow and frost: winter
        else if (fabsf(lat) < 23.0f) sea = 0;                 // the tropics: midsummer all year
        else if (lat > 0.0f) sea = c_season_nh[month];
        else sea = c_season_nh[(month + 6) % 12];
        float us = fmaxf(ustar[c], 0.01f);
        float zeta = zref / mol_l[c];
        float psih;
        if (zeta < 0.0f) psih = 2.0f * logf(0.5f * (1.0f + sqrtf(1.0f - 16.0f * zeta)));
        else psih = -5.0f * zeta;
        float ra = fmaxf((logf(zref / c_z0[sea][l]) - psih) / (KARMAN * us), 1.0f);
        float g = rad[c];
        float rsx;
        if (ts > 0.0f && ts < 40.0f)                          // stomata: light and temperature
            rsx = c_ri[sea][l] * (1.0f + (200.0f / (g + 0.1f)) * (200.0f / (g + 0.1f))) *
                  (400.0f / (ts * (40.0f - ts)));
        else
            rsx = 1.0e6f;
        float rdc = 100.0f * (1.0f + 1000.0f / (g + 10.0f));
        float lat_r = lat * DEG2RAD;
        float area = R_EARTH * R_EARTH * (dres * DEG2RAD) * (dres * DEG2RAD) * cosf(lat_r);
        for (int s = 0; s < DD_NSP; s++) {
            float hs = c_hstar[s], f0 = c_f0r[s];
            float rb = 2.0f / (KARMAN * us) * powf(0.6f * c_drat[s] / 0.72f, 2.0f / 3.0f);
            float rs = rsx * c_drat[s];
            float rm = 1.0f / (hs / 3000.0f + 100.0f * f0);
            float rlu = c_rlu[sea][l] / (1.0e-5f * hs + f0);
            float rcl = 1.0f / (1.0e-5f * hs / c_rcls[sea][l] + f0 / c_rclo[sea][l]);
            float rgs = 1.0f / (1.0e-5f * hs / c_rgss[sea][l] + f0 / c_rgso[sea][l]);
            float rc = 1.0f / (1.0f / (rs + rm) + 1.0f / rlu + 1.0f / (rdc + rcl) + 1.0f / (c_rac[sea][l] + rgs));
            float vd = 1.0f / (ra + rb + rc);
            float cold = conc[s * n + c];
            float cnew = cold * expf(-vd * dt / dz1);
            conc[s * n + c] = cnew;
            float dep = (cold - cnew) * dz1 * area;          // ug over the cell
            atomicAdd(&s_dep[s * DD_NLU + l], dep);
            mine[s] += dep;
        }
        atomicAdd(&s_cnt[l], 1);
    }
    for (int s = 0; s < DD_NSP; s++) {
        double v = mine[s];
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
        if ((threadIdx.x & 31) == 0) atomicAdd(&dep_tot[s], v);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < DD_NSP * DD_NLU; k += blockDim.x) atomicAdd(&dep_lu[k], s_dep[k]);
    for (int k = threadIdx.x; k < DD_NLU; k += blockDim.x) atomicAdd(&ncell_lu[k], s_cnt[k]);
}

}
