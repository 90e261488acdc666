// probe-unseen208: an accelerator / beam-physics course's CUDA assignments, as a student
// who knows CUDA basics hands them in:
//  - fodo_track: symplectic tracking of a bunch through a ring of thin-lens FODO cells
//    with sextupoles and one RF cavity, a thread a particle: the particle's struct loaded
//    once, then turn after turn every element of the lattice (structs in __constant__
//    memory, a switch on the element's type: a paraxial drift with the path-length and
//    slip terms, a thin quadrupole or sextupole kick, the cavity's energy kick by sinf),
//    the beam pipe's aperture checked after each element; a lost particle stops where it
//    hit and its turn is written as a 16-bit number;
//  - cic_deposit: the space-charge solver's charge deposition, a grid-stride loop over
//    the macro-particles: cloud-in-cell weights onto the four nodes around the particle
//    (floorf), added into the 2D charge grid by global float atomicAdds (the beam core's
//    nodes hit by thousands of particles: contended);
//  - beam_moments: the beam's second moments and its halo, a grid-stride loop over the
//    particles (the tracking's 24-byte structs): ten first and second moments summed in
//    double in a per-thread local array, the Courant-Snyder amplitude's octave (the float's
//    exponent bits) counted in a shared histogram by shared atomicAdds, then a shared-memory
//    tree reduction of the moments and global atomicAdds (double and unsigned) a block;
//  - wake_potential: the longitudinal wake potential of many bunch profiles (a profile
//    blockIdx.y), a thread a bin: the line density staged through shared memory a tile at a
//    time between __syncthreads, each thread summing the bins ahead of it (the diagonal tile
//    only partly) times the tabulated wake function (a global load, coalesced);
//  - tune_dft: the betatron tune of turn-by-turn BPM data (16-bit ADC counts), a block a
//    signal: the mean by warp shuffles and a shared atomicAdd, the signal less its mean
//    times a Hann window staged in shared memory, a thread a few candidate tunes summing the
//    DFT by sincosf, the highest bin found by __shfl_down_sync and a shared array,
//    parabolic interpolation by one thread, and a global histogram of the tunes by
//    atomicAdd;
//  - da_scan: a dynamic-aperture scan, a thread an initial amplitude on a polar grid (the
//    angle and the radius from the thread's index by a mask and a shift): the one-turn map
//    of linear rotations and thin sextupole kicks in normalised coordinates, in double,
//    with its coefficients in __constant__ memory, tracked until the particle leaves the
//    aperture or the turns run out (a divergent loop); the turns survived as a 16-bit
//    number and the plane it was lost in as a byte.

#define TWO_PI 6.28318530718f

#define LAT_MAX 128             // fodo_track: elements in the lattice at most
#define EL_DRIFT 0
#define EL_QUAD 1
#define EL_SEXT 2
#define EL_RF 3

#define MOM_BLOCK 256           // beam_moments: threads a block (the tree reduction's width)
#define NMOM 10                 // moments summed
#define HBINS 32                // halo histogram: octaves of the amplitude
#define HOFF 16                 // bin of amplitudes in [1, 2) (units of the emittance)

#define WK_TILE 256             // wake_potential: bins a tile (blockDim.x)

#define TN_TURNS 512            // tune_dft: turns a signal
#define TN_FREQ 512             // candidate tunes over [0, 0.5)
#define TN_BLOCK 256            // threads a block
#define TN_HIST 256             // tune histogram bins over [0, 0.5)

#define DA_LOG_ANG 7            // da_scan: 2^7 = 128 angles a radius
#define DA_NANG (1 << DA_LOG_ANG)
#define DA_NSEC 4               // arcs a turn, each a rotation and a sextupole kick
#define DA_HALF_PI 1.5707963267948966

struct Particle {
    float x;                    // m
    float px;                   // rad (p_x / p0)
    float y;
    float py;
    float z;                    // m, ahead of the reference particle positive
    float dp;                   // relative momentum deviation
};

struct Element {
    int type;                   // EL_DRIFT, EL_QUAD, EL_SEXT or EL_RF
    float length;               // drift: m
    float strength;             // quad: k1 l (1/m); sext: k2 l (1/m^2); RF: eV / (p0 c)
    float krf;                  // RF: 2 pi / wavelength (1/m)
    float phase;                // RF: synchronous phase (rad)
    float aperture;             // radius of the beam pipe after the element (m)
};

struct Twiss {
    float beta;                 // m
    float alpha;
    float inv_eps;              // 1 / the design emittance (1 / (m rad))
};

// the ring's elements, set by the host
__constant__ Element c_lattice[LAT_MAX];

// da_scan's arcs: cos mu_x, sin mu_x, cos mu_y, sin mu_y of the rotation, then the kick's
// coefficients a, b, c: px -= a (x^2 - b y^2), py += c x y (normalised coordinates)
__constant__ double c_arc[DA_NSEC][7];

extern "C" {

// n particles tracked nturns turns through the nelem elements of c_lattice; inv_gamma2:
// 1 / gamma^2 (the slip in a drift); lost_turn[i] the turn particle i was lost in, nturns
// if it survived
__global__ void fodo_track(Particle *parts, unsigned short *lost_turn, int n, int nelem, int nturns,
                           float inv_gamma2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle p = parts[i];
    int lost = nturns;
    for (int turn = 0; turn < nturns && lost == nturns; turn++) {
        for (int e = 0; e < nelem; e++) {
            Element el = c_lattice[e];
            switch (el.type) {
            case EL_DRIFT: {
                float inv = 1.0f / (1.0f + p.dp);
                float xp = p.px * inv;
                float yp = p.py * inv;
                p.x += el.length * xp;
                p.y += el.length * yp;
                p.z += el.length * (p.dp * inv_gamma2 - 0.5f * (xp * xp + yp * yp));
                break;
            }
            case EL_QUAD:
                p.px -= el.strength * p.x;
                p.py += el.strength * p.y;
                break;
            case EL_SEXT:
                p.px -= 0.5f * el.strength * (p.x * p.x - p.y * p.y);
                p.py += el.strength * p.x * p.y;
                break;
            case EL_RF:
                p.dp += el.strength * (sinf(el.phase - el.krf * p.z) - sinf(el.phase));
                break;
            }
            if (p.x * p.x + p.y * p.y > el.aperture * el.aperture) {
                lost = turn;
                break;
            }
        }
    }
    parts[i] = p;
    lost_turn[i] = (unsigned short)lost;
}

// n macro-particles of charge q at (x[i], y[i]) deposited onto rho (ny x nx nodes, node
// (ix, iy) at (xmin + ix / inv_dx, ymin + iy / inv_dx)); particles outside skipped
__global__ void cic_deposit(const float *x, const float *y, int n, float q, float xmin, float ymin, float inv_dx,
                            int nx, int ny, float *rho) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float gx = (x[i] - xmin) * inv_dx;
        float gy = (y[i] - ymin) * inv_dx;
        int ix = (int)floorf(gx);
        int iy = (int)floorf(gy);
        if (ix < 0 || iy < 0 || ix >= nx - 1 || iy >= ny - 1) continue;
        float fx = gx - ix;
        float fy = gy - iy;
        int k = iy * nx + ix;
        atomicAdd(&rho[k], q * (1.0f - fx) * (1.0f - fy));
        atomicAdd(&rho[k + 1], q * fx * (1.0f - fy));
        atomicAdd(&rho[k + nx], q * (1.0f - fx) * fy);
        atomicAdd(&rho[k + nx + 1], q * fx * fy);
    }
}

// mom[0..9] += sums of x, px, x^2, x px, px^2, y, py, y^2, y py, py^2 over the n particles;
// halo[b] += the particles whose amplitude (x and y Courant-Snyder invariants over the
// emittances) lies in octave b - HOFF (clamped to 0 .. HBINS - 1)
__global__ void beam_moments(const Particle *parts, int n, Twiss tx, Twiss ty, double *mom, unsigned int *halo) {
    __shared__ double s_m[NMOM][MOM_BLOCK];
    __shared__ unsigned int s_h[HBINS];
    int tid = threadIdx.x;
    if (tid < HBINS) s_h[tid] = 0;
    __syncthreads();
    double m[NMOM];
    for (int k = 0; k < NMOM; k++) m[k] = 0.0;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) {
        Particle p = parts[i];
        double x = p.x, px = p.px, y = p.y, py = p.py;
        m[0] += x;
        m[1] += px;
        m[2] += x * x;
        m[3] += x * px;
        m[4] += px * px;
        m[5] += y;
        m[6] += py;
        m[7] += y * y;
        m[8] += y * py;
        m[9] += py * py;
        float u = tx.alpha * p.x + tx.beta * p.px;
        float v = ty.alpha * p.y + ty.beta * p.py;
        float a = (p.x * p.x + u * u) / tx.beta * tx.inv_eps + (p.y * p.y + v * v) / ty.beta * ty.inv_eps;
        int b = (__float_as_int(a) >> 23) - 127 + HOFF;       // floor(log2(a)) + HOFF
        b = max(0, min(b, HBINS - 1));
        atomicAdd(&s_h[b], 1u);
    }
    for (int k = 0; k < NMOM; k++) s_m[k][tid] = m[k];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            for (int k = 0; k < NMOM; k++) s_m[k][tid] += s_m[k][tid + s];
        }
        __syncthreads();
    }
    if (tid < NMOM) atomicAdd(&mom[tid], s_m[tid][0]);
    if (tid < HBINS && s_h[tid] > 0) atomicAdd(&halo[tid], s_h[tid]);
}

// profile blockIdx.y's line density lambda[prof * nbins ..] (bin 0 the head); volt[prof *
// nbins + i] = -sum over j <= i of lambda[j] wake[i - j]
__global__ void wake_potential(const float *lambda, const float *wake, float *volt, int nbins) {
    __shared__ float s_l[WK_TILE];
    int prof = blockIdx.y;
    int i = blockIdx.x * WK_TILE + threadIdx.x;
    const float *lam = lambda + (size_t)prof * nbins;
    float v = 0.0f;
    int last = blockIdx.x * WK_TILE + WK_TILE;
    for (int t0 = 0; t0 < last; t0 += WK_TILE) {
        int j = t0 + threadIdx.x;
        s_l[threadIdx.x] = j < nbins ? lam[j] : 0.0f;
        __syncthreads();
        for (int k = 0; k < WK_TILE; k++) {
            int jj = t0 + k;
            if (jj <= i && i < nbins) v += s_l[k] * wake[i - jj];
        }
        __syncthreads();
    }
    if (i < nbins) volt[(size_t)prof * nbins + i] = -v;
}

// signal blockIdx.x: bpm[sig * TN_TURNS ..] (ADC counts); its tune (0 .. 0.5) and the
// peak's DFT magnitude; tune_hist[bin of the tune] += 1
__global__ void tune_dft(const short *bpm, float *tune, float *amp, int *tune_hist, int nsig) {
    __shared__ float s_x[TN_TURNS];
    __shared__ float s_p[TN_FREQ];
    __shared__ float s_wp[TN_BLOCK / 32];
    __shared__ int s_wk[TN_BLOCK / 32];
    __shared__ int s_sum;
    int sig = blockIdx.x;
    int tid = threadIdx.x;
    int lane = tid % 32;
    int wid = tid / 32;
    const short *raw = bpm + (size_t)sig * TN_TURNS;
    if (tid == 0) s_sum = 0;
    __syncthreads();
    int part = 0;
    for (int t = tid; t < TN_TURNS; t += TN_BLOCK) part += raw[t];
    for (int o = 16; o > 0; o /= 2) part += __shfl_down_sync(0xffffffff, part, o);
    if (lane == 0) atomicAdd(&s_sum, part);
    __syncthreads();
    float mean = (float)s_sum / TN_TURNS;
    for (int t = tid; t < TN_TURNS; t += TN_BLOCK) {
        float w = 0.5f - 0.5f * cosf(TWO_PI * t / TN_TURNS);
        s_x[t] = (raw[t] - mean) * w;
    }
    __syncthreads();
    float best = -1.0f;
    int bk = 0;
    for (int f = tid; f < TN_FREQ; f += TN_BLOCK) {
        float nu = 0.5f * f / TN_FREQ;
        float re = 0.0f, im = 0.0f;
        for (int t = 0; t < TN_TURNS; t++) {
            float s, c;
            sincosf(TWO_PI * nu * t, &s, &c);
            re += s_x[t] * c;
            im += s_x[t] * s;
        }
        float p = re * re + im * im;
        s_p[f] = p;
        if (p > best) {
            best = p;
            bk = f;
        }
    }
    // the highest bin (the lowest of equal ones)
    for (int o = 16; o > 0; o /= 2) {
        float ob = __shfl_down_sync(0xffffffff, best, o);
        int ok = __shfl_down_sync(0xffffffff, bk, o);
        if (ob > best || (ob == best && ok < bk)) {
            best = ob;
            bk = ok;
        }
    }
    if (lane == 0) {
        s_wp[wid] = best;
        s_wk[wid] = bk;
    }
    __syncthreads();
    if (tid == 0) {
        best = s_wp[0];
        bk = s_wk[0];
        for (int w = 1; w < TN_BLOCK / 32; w++) {
            if (s_wp[w] > best || (s_wp[w] == best && s_wk[w] < bk)) {
                best = s_wp[w];
                bk = s_wk[w];
            }
        }
        float d = 0.0f;
        if (bk > 0 && bk < TN_FREQ - 1) {
            float a = s_p[bk - 1], c = s_p[bk + 1];
            float den = a - 2.0f * best + c;
            if (den != 0.0f) d = 0.5f * (a - c) / den;
        }
        float nu = 0.5f * (bk + d) / TN_FREQ;
        tune[sig] = nu;
        amp[sig] = sqrtf(best);
        int h = (int)(nu * 2.0f * TN_HIST);
        h = max(0, min(h, TN_HIST - 1));
        atomicAdd(&tune_hist[h], 1);
    }
}

// nrad x DA_NANG initial amplitudes (radius rmax (ir + 1) / nrad, angle (ia + 0.5) / DA_NANG
// x pi / 2, at rest) tracked nturns turns through the DA_NSEC arcs of c_arc; lost beyond
// x^2 + y^2 > r2lost: turns[tid] the turns survived, plane[tid] 1 (x) or 2 (y), whichever
// was larger, or 0 if it survived
__global__ void da_scan(unsigned short *turns, unsigned char *plane, int nrad, int nturns, double rmax,
                        double r2lost) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int ia = tid & (DA_NANG - 1);
    int ir = tid >> DA_LOG_ANG;
    if (ir >= nrad) return;
    double r = rmax * (ir + 1) / nrad;
    double th = (ia + 0.5) * DA_HALF_PI / DA_NANG;
    double x = r * cos(th), y = r * sin(th);
    double px = 0.0, py = 0.0;
    int t;
    unsigned char pl = 0;
    for (t = 0; t < nturns; t++) {
        for (int s = 0; s < DA_NSEC; s++) {
            double x1 = c_arc[s][0] * x + c_arc[s][1] * px;
            px = -c_arc[s][1] * x + c_arc[s][0] * px;
            x = x1;
            double y1 = c_arc[s][2] * y + c_arc[s][3] * py;
            py = -c_arc[s][3] * y + c_arc[s][2] * py;
            y = y1;
            px -= c_arc[s][4] * (x * x - c_arc[s][5] * y * y);
            py += c_arc[s][6] * x * y;
        }
        if (x * x + y * y > r2lost) {
            pl = fabs(x) >= fabs(y) ? 1 : 2;
            break;
        }
    }
    turns[tid] = (unsigned short)t;
    plane[tid] = pl;
}

}
