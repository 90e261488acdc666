// probe-unseen168: a rarefied gas dynamics (direct simulation Monte Carlo) course's CUDA
// assignments, as a student who knows CUDA basics hands them in:
//  - channel_move: the move step of a Couette-Fourier flow in a micro-channel (periodic in x,
//    walls at y = 0 at rest and y = H moving, at two temperatures), a thread a particle: free
//    flight for dt, each wall hit reflected diffusely with the accommodation coefficient's
//    probability (the velocity drawn from the wall's half-range Maxwellian, xorshift32 stream
//    a particle) else specularly, the rest of the step flown on; the momentum and energy each
//    hit gives the wall summed into the wall's x-bins by float atomicAdd;
//  - cell_count: the first half of the counting sort of particles by cell in a 2-D flow past
//    a cylinder, a thread a particle (stored in last step's cell order): its cell from its
//    position (particles that left the domain marked -1) and its slot in the cell by the
//    value atomicAdd returns on the cell's count;
//  - ntc_collide: Bird's no-time-counter collisions of variable-hard-sphere argon, a thread a
//    cell: N (N - 1) Fn (sigma cr)max dt / (2 Vc) candidate pairs (the fraction carried to the
//    next step), each pair picked at random from the cell's sorted index list, accepted with
//    probability sigma cr / (sigma cr)max (powf for the VHS cross-section, the maximum raised
//    when exceeded), the accepted pairs' relative velocity turned to an isotropic direction
//    about the centre of mass (sqrtf, sinf, cosf), a per-cell xorshift32 stream;
//  - sample_cells: the sampling of cell moments, a block of 64 threads a cell: its particles
//    (gathered through the sorted index list) strided over the threads, the sums of u, v, w
//    and u^2 + v^2 + w^2 reduced in shared memory with __syncthreads, thread 0 adding them
//    and the particle count to the cell's running sums (a struct of doubles);
//  - maxwell_init: the initial particles of a cylinder-flow run from a continuum solution's
//    cell fields, a thread a particle: its cell by binary search of the cells' first-particle
//    prefix sums, a splitmix64 stream (64-bit integer hashing) a particle, the position
//    uniform in the cell, the velocity Maxwellian about the cell's flow velocity at its
//    temperature by Box-Muller (logf, sqrtf, sinf, cosf);
//  - plume_inflow: the inflow boundary of a 3-D plume simulation, a thread a face element of
//    the inflow plane (the jet's exit or the background gas, the two states in __constant__
//    structs): the molecules entering this step (the fraction carried), slots reserved by one
//    atomicAdd on the particle counter, each molecule's normal velocity drawn from the
//    flux-weighted drifting Maxwellian c exp(-(c - s)^2) by acceptance-rejection, tangential
//    ones by Box-Muller, placed on the face and moved in for a random part of the step.

#define PI2 6.28318531f
#define KB 1.380649e-23f     // Boltzmann's constant (J/K)
#define MASS 6.6335e-26f     // an argon atom's mass (kg)
#define VHS_OMEGA 0.81f      // argon's viscosity-temperature index (VHS)
#define SB 64                // sample_cells: blockDim.x

// running sums of a cell's samples (sample_cells)
struct CellSum {
    double n, u, v, w, c2;
};

// an inflow state (plume_inflow): molecules entering a face element a step, most probable
// speed (m/s), speed ratio of the drift normal to the face, the acceptance-rejection range
// (in units of vmp) and the maximum of c exp(-(c - s)^2) over it
struct Inflow {
    float nin, vmp, s, cmax, fmax;
};
__constant__ Inflow c_in[2];     // the jet (0) and the background gas (1), set by the host

// the next xorshift32 number of s as a uniform float in (0, 1)
__device__ float urand(unsigned int &s) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return (float)((s >> 8) | 1u) * (1.0f / 16777216.0f);
}

// the next splitmix64 number of s as a uniform float in (0, 1)
__device__ float u01(unsigned long long &s) {
    s += 0x9E3779B97F4A7C15ULL;
    unsigned long long z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return ((float)(unsigned int)(z >> 40) + 0.5f) * (1.0f / 16777216.0f);
}

extern "C" {

// n particles (x, y, u, v, w, rng updated in place) of a channel periodic in x (length Lx)
// between walls at y = 0 (at rest, most probable speed vmp0) and y = H (moving at uw in x,
// vmp1) moved dt; a wall hit reflects diffusely with probability alpha, else specularly; what
// the particle gives the wall (x and y momentum, energy; per unit mass) summed in the wall's
// bin (nwb bins a wall, the top wall's after the bottom's)
__global__ void channel_move(float *x, float *y, float *u, float *v, float *w, unsigned int *rng, float *wall_px,
                             float *wall_py, float *wall_e, float Lx, float H, float uw, float vmp0, float vmp1,
                             float alpha, float dt, int nwb, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float px = x[i];
    float py = y[i];
    float cu = u[i];
    float cv = v[i];
    float cw = w[i];
    unsigned int s = rng[i];
    float t = dt;
    for (;;) {
        float yn = py + cv * t;
        if (yn >= 0.0f && yn <= H) {
            px += cu * t;
            py = yn;
            break;
        }
        int top = yn > H;
        float th = top ? (H - py) / cv : -py / cv;     // the flight to the wall
        px += cu * th;
        if (px >= Lx) px -= Lx;
        else if (px < 0.0f) px += Lx;
        py = top ? H : 0.0f;
        t = fmaxf(t - th, 0.0f);
        float u0 = cu, v0 = cv, w0 = cw;
        if (urand(s) < alpha) {                        // diffuse: the wall's half-range Maxwellian
            float vmp = top ? vmp1 : vmp0;
            float vn = vmp * sqrtf(-logf(urand(s)));
            float r = vmp * sqrtf(-logf(urand(s)));
            float a = PI2 * urand(s);
            cu = (top ? uw : 0.0f) + r * cosf(a);
            cw = r * sinf(a);
            cv = top ? -vn : vn;
        } else {                                       // specular
            cv = -cv;
        }
        int b = min((int)(px / Lx * nwb), nwb - 1) + top * nwb;
        atomicAdd(&wall_px[b], u0 - cu);
        atomicAdd(&wall_py[b], v0 - cv);
        atomicAdd(&wall_e[b], 0.5f * (u0 * u0 + v0 * v0 + w0 * w0 - cu * cu - cv * cv - cw * cw));
    }
    if (px >= Lx) px -= Lx;
    else if (px < 0.0f) px += Lx;
    x[i] = px;
    y[i] = py;
    u[i] = cu;
    v[i] = cv;
    w[i] = cw;
    rng[i] = s;
}

// the cell (row-major in nx x ny cells of side 1 / inv_dx; -1 outside) of each of n particles
// and its slot among the cell's particles, count[cell] the particles in each cell
__global__ void cell_count(const float *x, const float *y, int *cell, int *slot, int *count, float inv_dx, int nx,
                           int ny, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int cx = (int)floorf(x[i] * inv_dx);
    int cy = (int)floorf(y[i] * inv_dx);
    if (cx < 0 || cx >= nx || cy < 0 || cy >= ny) {    // left the domain: removed
        cell[i] = -1;
        slot[i] = -1;
        return;
    }
    int c = cy * nx + cx;
    cell[i] = c;
    slot[i] = atomicAdd(&count[c], 1);
}

// NTC collisions in each of ncell cells, cell c's particles pid[start[c] .. start[c] + cnt[c]]
// (velocities u, v, w updated in place); coll = Fn sigma_ref dt / (2 Vc), sigma cr = cr
// (cr / cref)^(1 - 2 omega) in units of sigma_ref; scrmax, rem (the candidates' fraction) and
// rng carried between steps, ncoll the collisions done
__global__ void ntc_collide(const int *start, const int *cnt, const int *pid, float *u, float *v, float *w,
                            float *scrmax, float *rem, unsigned int *rng, int *ncoll, float coll, float inv_cref,
                            int ncell) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ncell) return;
    int N = cnt[c];
    int s0 = start[c];
    unsigned int s = rng[c];
    float smax = scrmax[c];
    float sel = coll * N * (N - 1) * smax + rem[c];
    int nsel = (int)sel;
    int nc = 0;
    for (int k = 0; k < nsel; k++) {
        int a = min((int)(urand(s) * N), N - 1);
        int b;
        do {
            b = min((int)(urand(s) * N), N - 1);
        } while (b == a);
        int ia = pid[s0 + a];
        int ib = pid[s0 + b];
        float ua = u[ia], va = v[ia], wa = w[ia];
        float ub = u[ib], vb = v[ib], wb = w[ib];
        float ur = ua - ub, vr = va - vb, wr = wa - wb;
        float cr = sqrtf(ur * ur + vr * vr + wr * wr);
        float scr = cr * powf(cr * inv_cref, 1.0f - 2.0f * VHS_OMEGA);
        if (scr > smax) smax = scr;
        if (scr > urand(s) * smax) {
            nc++;
            float um = 0.5f * (ua + ub), vm = 0.5f * (va + vb), wm = 0.5f * (wa + wb);
            float cx = 2.0f * urand(s) - 1.0f;         // isotropic scattering
            float sx = sqrtf(1.0f - cx * cx);
            float e = PI2 * urand(s);
            float urn = cr * cx;
            float vrn = cr * sx * cosf(e);
            float wrn = cr * sx * sinf(e);
            u[ia] = um + 0.5f * urn;
            v[ia] = vm + 0.5f * vrn;
            w[ia] = wm + 0.5f * wrn;
            u[ib] = um - 0.5f * urn;
            v[ib] = vm - 0.5f * vrn;
            w[ib] = wm - 0.5f * wrn;
        }
    }
    scrmax[c] = smax;
    rem[c] = sel - nsel;
    rng[c] = s;
    ncoll[c] = nc;
}

// the samples of ncell cells (a block of SB threads a cell) added to their running sums: the
// particle count and the sums of u, v, w and u^2 + v^2 + w^2 of the cell's particles
__global__ void sample_cells(const int *start, const int *cnt, const int *pid, const float *u, const float *v,
                             const float *w, CellSum *sum, int ncell) {
    __shared__ float sh[4][SB];
    int c = blockIdx.x;
    if (c >= ncell) return;
    int t = threadIdx.x;
    int N = cnt[c];
    int s0 = start[c];
    float su = 0.0f, sv = 0.0f, sw = 0.0f, sc = 0.0f;
    for (int k = t; k < N; k += SB) {
        int p = pid[s0 + k];
        float a = u[p], b = v[p], d = w[p];
        su += a;
        sv += b;
        sw += d;
        sc += a * a + b * b + d * d;
    }
    sh[0][t] = su;
    sh[1][t] = sv;
    sh[2][t] = sw;
    sh[3][t] = sc;
    __syncthreads();
    for (int st = SB / 2; st > 0; st >>= 1) {
        if (t < st) {
            sh[0][t] += sh[0][t + st];
            sh[1][t] += sh[1][t + st];
            sh[2][t] += sh[2][t + st];
            sh[3][t] += sh[3][t + st];
        }
        __syncthreads();
    }
    if (t == 0) {
        sum[c].n += N;
        sum[c].u += sh[0][0];
        sum[c].v += sh[1][0];
        sum[c].w += sh[2][0];
        sum[c].c2 += sh[3][0];
    }
}

// n particles in ncell cells (row-major, nx a row, side dx), cell c's particles cstart[c] ..
// cstart[c + 1] (cstart[ncell] == n): positions uniform in the cell, velocities Maxwellian at
// temperature T[c] about (uc[c], vc[c], 0)
__global__ void maxwell_init(const int *cstart, const float *T, const float *uc, const float *vc, float *x, float *y,
                             float *u, float *v, float *w, int *cell, unsigned long long seed, float dx, int nx,
                             int ncell, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int lo = 0, hi = ncell;                            // cstart[lo] <= i < cstart[hi]
    while (hi - lo > 1) {
        int mid = (lo + hi) >> 1;
        if (cstart[mid] <= i) lo = mid;
        else hi = mid;
    }
    unsigned long long s = seed + (unsigned long long)i * 0xD1B54A32D192ED03ULL;
    float sig = sqrtf(KB * T[lo] / MASS);
    float r1 = sqrtf(-2.0f * logf(u01(s)));
    float a1 = PI2 * u01(s);
    float r2 = sqrtf(-2.0f * logf(u01(s)));
    float a2 = PI2 * u01(s);
    float fx = u01(s);
    float fy = u01(s);
    x[i] = (lo % nx + fx) * dx;
    y[i] = (lo / nx + fy) * dx;
    u[i] = uc[lo] + sig * r1 * cosf(a1);
    v[i] = vc[lo] + sig * r1 * sinf(a1);
    w[i] = sig * r2 * cosf(a2);
    cell[i] = lo;
}

// the molecules entering through the nface = ny x nz face elements (side dy, y fastest) of the
// inflow plane x = 0 this step, element f in state c_in[type[f]]: rem (the fraction carried)
// and rng updated, *np the particle count (slots past maxp dropped); each new particle's
// position, velocity and cell (the first of its row of nx cells)
__global__ void plume_inflow(const int *type, float *rem, unsigned int *rng, float *x, float *y, float *z, float *u,
                             float *v, float *w, int *cell, int *np, int maxp, float dt, float dy, int ny, int nx,
                             int nface) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= nface) return;
    Inflow st = c_in[type[f]];
    float a = st.nin + rem[f];
    int k = (int)a;
    rem[f] = a - k;
    if (k == 0) return;
    unsigned int s = rng[f];
    int base = atomicAdd(np, k);
    int iy = f % ny;
    int iz = f / ny;
    for (int j = 0; j < k; j++) {
        int p = base + j;
        if (p >= maxp) break;
        float c;
        do {
            c = st.cmax * urand(s);
        } while (c * expf(-(c - st.s) * (c - st.s)) < st.fmax * urand(s));
        float r = st.vmp * sqrtf(-logf(urand(s)));
        float e = PI2 * urand(s);
        float un = c * st.vmp;
        x[p] = un * dt * urand(s);
        y[p] = (iy + urand(s)) * dy;
        z[p] = (iz + urand(s)) * dy;
        u[p] = un;
        v[p] = r * cosf(e);
        w[p] = r * sinf(e);
        cell[p] = f * nx;
    }
    rng[f] = s;
}

}
