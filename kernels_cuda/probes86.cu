// probe-unseen84: a statistical-physics Monte Carlo course's CUDA assignments, as a student
// who knows CUDA basics hands them in:
//   ising2d_philox      one checkerboard half-sweep of Metropolis on a 2D Ising lattice
//                       (byte spins, periodic, J = 1, a field h), a thread a site of the
//                       colour being updated; the random number from a hand-written
//                       counter-based Philox-2x32-10 keyed by the seed, its counter (site,
//                       sweep), and the acceptance test u < exp(-beta dE) with expf;
//   potts3d_metropolis  one checkerboard half-sweep of Metropolis on a 3D q = 4 Potts model
//                       (byte spins, periodic, E = -sum over bonds of delta(s_i, s_j)), a
//                       thread a site of one parity from a flat index split by divisions;
//                       each site keeps its own xorshift32 state in global memory (loaded,
//                       advanced twice: the proposed new state and the test, stored back);
//   photon_slab         photon transport through a scattering and absorbing slab (a thread
//                       a photon from normal incidence): exponential free paths (logf),
//                       absorption by the single-scattering albedo, Henyey-Greenstein
//                       scattering (sqrtf, cosf) until the photon leaves the slab or is
//                       absorbed (the trip count differs from lane to lane); reflected and
//                       transmitted photons counted by atomicAdd on a 3-word tally, the
//                       absorbed ones in a 64-bin histogram of their depth;
//   walk_porous         random walkers on a 2D porous medium (a byte grid of open and solid
//                       sites), a thread a walker making WALK_STEPS xorshift32 moves of one
//                       site in one of 4 directions; a move into a solid site or out of
//                       the box is refused (the walker stays and counts it); the final
//                       positions and refused moves stored;
//   wang_landau_ising8  multiple-walker Wang-Landau on the 8 x 8 periodic Ising model, a
//                       thread a walker: the walker's 64 spins in a local array, ln g(E)
//                       (frozen during a launch) staged in shared memory, `steps` single
//                       flips accepted with probability min(1, g(E) / g(E')), each visit
//                       counted in a shared-memory histogram by atomicAdd, the block's
//                       histogram added to the global one at the end;
//   pt_energy_reduce    the measurement of a parallel-tempering run: a block a replica (an
//                       L x L periodic Ising lattice of int spins), each thread summing the
//                       bond energy (right and down neighbours) and magnetization of its
//                       sites, then a shared-memory tree reduction; E and M a replica stored.

#define WALK_STEPS 256        // walk_porous: moves a walker
#define POTTS_Q 4             // potts3d_metropolis: the Potts states
#define PH_BINS 64            // photon_slab: depth bins of the absorption histogram
#define PH_MAX_STEPS 2000     // photon_slab: a photon still in the slab after this many steps is dropped
#define WL_L 8                // wang_landau_ising8: the lattice's side
#define WL_N 64               // wang_landau_ising8: spins (WL_L * WL_L)
#define WL_BINS 65            // wang_landau_ising8: energies -128 .. 128 in steps of 4
#define PT_BLOCK 256          // pt_energy_reduce: threads a block (a power of two)

extern "C" {

// a 32-bit integer hash (lowbias32), to seed the per-thread generators
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// Marsaglia's xorshift32 (the state must not be 0)
__device__ unsigned int xorshift32(unsigned int x) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
}

// a uniform float in [0, 1) from the top 24 bits
__device__ float uniform01(unsigned int r) {
    return (r >> 8) * (1.0f / 16777216.0f);
}

// Philox-2x32-10 (Salmon et al. 2011): the first output word of the counter (c0, c1)
// under the key
__device__ unsigned int philox2x32_10(unsigned int c0, unsigned int c1, unsigned int key) {
    for (int r = 0; r < 10; r++) {
        unsigned int hi = __umulhi(0xD256D193u, c0);
        unsigned int lo = 0xD256D193u * c0;
        c0 = hi ^ key ^ c1;
        c1 = lo;
        key += 0x9E3779B9u;
    }
    return c0;
}

// one Metropolis half-sweep of the L x L Ising lattice: the sites with (x + y) % 2 == color
// (a thread each: x = 2 xh + ((y + color) & 1)); dE = 2 s (sum of the 4 neighbours + h)
__global__ void ising2d_philox(signed char *spin, int L, int color, float beta, float h, unsigned int sweep,
                               unsigned int seed) {
    int xh = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (xh >= L / 2 || y >= L) return;
    int x = 2 * xh + ((y + color) & 1);
    int xl = (x - 1 + L) % L;
    int xr = (x + 1) % L;
    int yu = (y - 1 + L) % L;
    int yd = (y + 1) % L;
    int site = y * L + x;
    int s = spin[site];
    int nb = spin[y * L + xl] + spin[y * L + xr] + spin[yu * L + x] + spin[yd * L + x];
    float dE = 2.0f * s * (nb + h);
    unsigned int r = philox2x32_10((unsigned int)site, sweep, seed);
    float u = uniform01(r);
    if (dE <= 0.0f || u < expf(-beta * dE)) spin[site] = (signed char)(-s);
}

// one Metropolis half-sweep of the L^3 q-state Potts model on the sites with (x + y + z) % 2
// == parity; the proposal a different state (s + 1 + r % (q - 1)) % q, dE = (neighbours
// equal to s) - (neighbours equal to the new state); each site's xorshift32 state in
// rng_state (L^3 words, indexed by site)
__global__ void potts3d_metropolis(unsigned char *spin, unsigned int *rng_state, int L, int parity, float beta) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int half = L / 2;
    if (t >= half * L * L) return;
    int xh = t % half;
    int y = (t / half) % L;
    int z = t / (half * L);
    int x = 2 * xh + ((y + z + parity) & 1);
    int site = (z * L + y) * L + x;
    int xm = x == 0 ? L - 1 : x - 1;
    int xp = x == L - 1 ? 0 : x + 1;
    int ym = y == 0 ? L - 1 : y - 1;
    int yp = y == L - 1 ? 0 : y + 1;
    int zm = z == 0 ? L - 1 : z - 1;
    int zp = z == L - 1 ? 0 : z + 1;
    int nb[6];
    nb[0] = spin[(z * L + y) * L + xm];
    nb[1] = spin[(z * L + y) * L + xp];
    nb[2] = spin[(z * L + ym) * L + x];
    nb[3] = spin[(z * L + yp) * L + x];
    nb[4] = spin[(zm * L + y) * L + x];
    nb[5] = spin[(zp * L + y) * L + x];
    int s = spin[site];
    unsigned int st = rng_state[site];
    st = xorshift32(st);
    int snew = (s + 1 + st % (POTTS_Q - 1)) % POTTS_Q;
    int dE = 0;
    for (int k = 0; k < 6; k++) {
        if (nb[k] == s) dE++;
        if (nb[k] == snew) dE--;
    }
    st = xorshift32(st);
    float u = uniform01(st);
    if (dE <= 0 || u < expf(-beta * dE)) spin[site] = (unsigned char)snew;
    rng_state[site] = st;
}

// n photons enter a slab 0 <= z <= d at z = 0 going straight in (mu = cos theta = 1): free
// paths -ln(u) / (mu_a + mu_s), absorbed when a uniform >= the albedo mu_s / (mu_a + mu_s),
// else scattered by Henyey-Greenstein (g) with a uniform azimuth; reflected (z < 0) and
// transmitted (z > d) photons counted in tally[0], tally[1], photons still inside after
// PH_MAX_STEPS in tally[2], absorbed ones in depth_hist[(int)(z / d * PH_BINS)]
__global__ void photon_slab(unsigned int *tally, unsigned int *depth_hist, float mu_a, float mu_s, float g, float d,
                            unsigned int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int st = hash32(seed + (unsigned int)i) | 1u;
    float mu_t = mu_a + mu_s;
    float albedo = mu_s / mu_t;
    float z = 0.0f;
    float mu = 1.0f;
    int fate = 2;
    for (int k = 0; k < PH_MAX_STEPS; k++) {
        st = xorshift32(st);
        float u = ((st >> 8) + 1) * (1.0f / 16777216.0f);      // (0, 1]: no log(0)
        float s = -logf(u) / mu_t;
        z += s * mu;
        if (z < 0.0f) {
            fate = 0;
            break;
        }
        if (z > d) {
            fate = 1;
            break;
        }
        st = xorshift32(st);
        if (uniform01(st) >= albedo) {
            fate = 3;
            break;
        }
        st = xorshift32(st);
        float tmp = (1.0f - g * g) / (1.0f - g + 2.0f * g * uniform01(st));
        float ct = (1.0f + g * g - tmp * tmp) / (2.0f * g);
        ct = fminf(1.0f, fmaxf(-1.0f, ct));
        st = xorshift32(st);
        float phi = 6.28318531f * uniform01(st);
        float sint = sqrtf(1.0f - ct * ct);
        float sinp = sqrtf(fmaxf(0.0f, 1.0f - mu * mu));
        mu = mu * ct + sinp * sint * cosf(phi);
        mu = fminf(1.0f, fmaxf(-1.0f, mu));
    }
    if (fate == 3) {
        int b = (int)(z / d * PH_BINS);
        if (b > PH_BINS - 1) b = PH_BINS - 1;
        atomicAdd(&depth_hist[b], 1u);
    } else {
        atomicAdd(&tally[fate], 1u);
    }
}

// n walkers on an L x L grid of open (1) and solid (0) sites, walker i from (px[i], py[i]):
// WALK_STEPS moves, the direction the top 2 bits of xorshift32 (0 +x, 1 -x, 2 +y, 3 -y); a
// move off the grid or onto a solid site refused (blocked[i] counts them)
__global__ void walk_porous(const unsigned char *open, int *px, int *py, int *blocked, int L, unsigned int seed,
                            int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int st = hash32(seed + (unsigned int)i) | 1u;
    int x = px[i];
    int y = py[i];
    int nblk = 0;
    for (int k = 0; k < WALK_STEPS; k++) {
        st = xorshift32(st);
        int dir = st >> 30;
        int nx = x;
        int ny = y;
        if (dir == 0) nx++;
        else if (dir == 1) nx--;
        else if (dir == 2) ny++;
        else ny--;
        if (nx < 0 || nx >= L || ny < 0 || ny >= L || open[ny * L + nx] == 0) {
            nblk++;
        } else {
            x = nx;
            y = ny;
        }
    }
    px[i] = x;
    py[i] = y;
    blocked[i] = nblk;
}

// `steps` Wang-Landau flips of n walkers, each its own 8 x 8 periodic Ising lattice
// (spins[w * 64 + y * 8 + x]) with energy energy[w]; site k = the top 6 bits of xorshift32,
// the flip accepted when ln g(E) - ln g(E') >= 0 or u < exp of it; after each try the
// walker's energy counted in hist[(E + 128) / 4] (a block's counts gathered in shared memory)
__global__ void wang_landau_ising8(signed char *spins, int *energy, const float *lng, unsigned int *hist, int steps,
                                   unsigned int seed, int n) {
    __shared__ float s_lng[WL_BINS];
    __shared__ unsigned int s_hist[WL_BINS];
    for (int k = threadIdx.x; k < WL_BINS; k += blockDim.x) {
        s_lng[k] = lng[k];
        s_hist[k] = 0;
    }
    __syncthreads();
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w < n) {
        signed char s[WL_N];
        for (int k = 0; k < WL_N; k++) s[k] = spins[w * WL_N + k];
        int E = energy[w];
        unsigned int st = hash32(seed + (unsigned int)w) | 1u;
        for (int t = 0; t < steps; t++) {
            st = xorshift32(st);
            int k = st >> 26;
            int x = k % WL_L;
            int y = k / WL_L;
            int nb = s[y * WL_L + (x + 1) % WL_L] + s[y * WL_L + (x + WL_L - 1) % WL_L] +
                     s[((y + 1) % WL_L) * WL_L + x] + s[((y + WL_L - 1) % WL_L) * WL_L + x];
            int Enew = E + 2 * s[k] * nb;
            st = xorshift32(st);
            float u = uniform01(st);
            float dl = s_lng[(E + 128) / 4] - s_lng[(Enew + 128) / 4];
            if (dl >= 0.0f || u < expf(dl)) {
                s[k] = -s[k];
                E = Enew;
            }
            atomicAdd(&s_hist[(E + 128) / 4], 1u);
        }
        for (int k = 0; k < WL_N; k++) spins[w * WL_N + k] = s[k];
        energy[w] = E;
    }
    __syncthreads();
    for (int k = threadIdx.x; k < WL_BINS; k += blockDim.x) {
        if (s_hist[k] > 0) atomicAdd(&hist[k], s_hist[k]);
    }
}

// E = -sum over bonds s_i s_j (each site with its right and down neighbour, periodic) and
// M = sum s of replica r's L x L lattice (spin + r L^2), a block a replica (PT_BLOCK threads)
__global__ void pt_energy_reduce(const int *spin, int *E_out, int *M_out, int L) {
    __shared__ int sE[PT_BLOCK];
    __shared__ int sM[PT_BLOCK];
    int r = blockIdx.x;
    int t = threadIdx.x;
    const int *s = spin + (size_t)r * L * L;
    int e = 0;
    int m = 0;
    for (int k = t; k < L * L; k += blockDim.x) {
        int x = k % L;
        int y = k / L;
        int sk = s[k];
        int right = s[y * L + (x + 1) % L];
        int down = s[((y + 1) % L) * L + x];
        e -= sk * (right + down);
        m += sk;
    }
    sE[t] = e;
    sM[t] = m;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) {
            sE[t] += sE[t + stride];
            sM[t] += sM[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        E_out[r] = sE[0];
        M_out[r] = sM[0];
    }
}

}
