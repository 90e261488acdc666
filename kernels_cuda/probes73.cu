// probe-unseen71: an agent-based modelling / computational-epidemiology course's CUDA
// assignments, as a student who knows CUDA basics hands them in. Every random number is
// counter-based (hash32 of the step's seed, a draw number and the cell / agent / contact
// index), so a run can be replayed on the host: an SIRS epidemic on a periodic 2-D lattice,
// a thread a cell (a susceptible cell counts its 8 infectious neighbours with % wrap and is
// infected with probability c_pinf[k] from a __constant__ table, an infectious one counts
// its timer down, a recovered one loses its immunity at random), new infections counted by
// one global atomicAdd; a Schelling segregation step, a thread a cell: an agent with too
// few neighbours of its own group is unhappy, tries up to `tries` random cells and claims
// the first empty one it wins with atomicCAS, the unhappy counted with __ballot_sync and
// one atomicAdd a warp; an SIR step on a contact network (CSR), a thread an agent: an
// infectious agent walks its contacts, infects each susceptible one with probability beta
// by atomicOr on its flag (the first setter counting it) and recovers with probability
// gamma; many random walkers on a periodic lattice, a thread a walker taking `steps` lazy
// steps (a switch on the hash % 5), then its cell's density atomicAdded; a yard-sale
// wealth-exchange step, a thread an agent trading a floored share of the poorer one's
// wealth with a random partner (float atomicAdds onto the new wealths), the block's traded
// volume summed in shared memory and atomicAdded; and a Drossel-Schwabl forest-fire step
// over byte cells, a 16 x 16 block staging its tile and a one-cell wrapped halo in shared
// memory, the new fires counted in a shared counter and added once a block.

#define SIR_S 0
#define SIR_I 1
#define SIR_R 2

#define FF_EMPTY 0
#define FF_TREE 1
#define FF_FIRE 2
#define FF_TILE 16            // forest_fire_step: blockDim == (FF_TILE, FF_TILE), L a multiple of it

#define YS_BLOCK 256          // yard_sale_step: blockDim.x == YS_BLOCK

// sir_lattice_step: the infection probability of a susceptible cell with k infectious
// neighbours (1 - (1 - beta)^k, set by the host)
__constant__ float c_pinf[9];

extern "C" {

// a 32-bit integer hash (the "lowbias32" finalizer)
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// draw k of thing id at this seed: a uniform float in [0, 1) from 24 bits of the hash
__device__ float rand01(unsigned int seed, unsigned int k, unsigned int id) {
    unsigned int h = hash32(hash32(seed + k) ^ id);
    return (h >> 8) * (1.0f / 16777216.0f);
}

// one step of an SIRS epidemic on an L x L periodic lattice (row-major bytes): S -> I with
// probability c_pinf[k] (k infectious cells among the 8 around it), the timer set to t_inf;
// I counts its timer down, turning R at 0; R -> S with probability omega; *new_inf += the
// new infections
__global__ void sir_lattice_step(const unsigned char *state, const unsigned char *timer, unsigned char *state_new,
                                 unsigned char *timer_new, int *new_inf, float omega, int t_inf, unsigned int seed,
                                 int L) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= L || y >= L) return;
    int i = y * L + x;
    unsigned char s = state[i];
    unsigned char t = timer[i];
    if (s == SIR_S) {
        int k = 0;
        for (int dy = -1; dy <= 1; dy++) {
            for (int dx = -1; dx <= 1; dx++) {
                if (dx == 0 && dy == 0) continue;
                int yy = (y + dy + L) % L;
                int xx = (x + dx + L) % L;
                if (state[yy * L + xx] == SIR_I) k++;
            }
        }
        if (k > 0 && rand01(seed, 0, i) < c_pinf[k]) {
            s = SIR_I;
            t = t_inf;
            atomicAdd(new_inf, 1);
        }
    } else if (s == SIR_I) {
        t = t - 1;
        if (t == 0) s = SIR_R;
    } else {
        if (rand01(seed, 1, i) < omega) s = SIR_S;
    }
    state_new[i] = s;
    timer_new[i] = t;
}

// one Schelling step on an L x L periodic lattice (0 empty, else the agent's group): an
// agent with fewer than tol * (occupied neighbours) neighbours of its group is unhappy and
// tries up to `tries` random cells, moving to the first one that was empty and that it
// claims (claim[j] == -1 -> its index, atomicCAS): grid_new (a copy of grid) gets it there
// and an empty cell where it was; *n_unhappy += the unhappy agents; blockDim.x == 32
__global__ void schelling_step(const int *grid, int *claim, int *grid_new, int *n_unhappy, float tol, int tries,
                               unsigned int seed, int L) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int lane = threadIdx.x % 32;
    bool unhappy = false;
    if (x < L && y < L) {
        int i = y * L + x;
        int me = grid[i];
        if (me != 0) {
            int same = 0;
            int occupied = 0;
            for (int dy = -1; dy <= 1; dy++) {
                for (int dx = -1; dx <= 1; dx++) {
                    if (dx == 0 && dy == 0) continue;
                    int g = grid[((y + dy + L) % L) * L + (x + dx + L) % L];
                    if (g != 0) {
                        occupied++;
                        if (g == me) same++;
                    }
                }
            }
            if (same < tol * occupied) {
                unhappy = true;
                for (int t = 0; t < tries; t++) {
                    int j = hash32(hash32(seed + t) ^ i) % (L * L);
                    if (grid[j] == 0 && atomicCAS(&claim[j], -1, i) == -1) {
                        grid_new[j] = me;
                        grid_new[i] = 0;
                        break;
                    }
                }
            }
        }
    }
    unsigned int mask = __ballot_sync(0xffffffff, unhappy);
    if (lane == 0 && mask != 0) atomicAdd(n_unhappy, __popc(mask));
}

// one SIR step on a contact network of n agents (state 0 S, 1 I, 2 R; agent i's contacts
// contacts[row_ptr[i] .. row_ptr[i + 1])): an infectious agent infects each susceptible
// contact with probability beta (draw 0 of the contact's slot e), setting infected[j] by
// atomicOr, *n_new counting each newly flagged agent once; and recovers with probability
// gamma (draw 1 of i) into state_new (a copy of state)
__global__ void contact_sir_step(const unsigned char *state, const int *row_ptr, const int *contacts, int *infected,
                                 unsigned char *state_new, int *n_new, float beta, float gamma, unsigned int seed,
                                 int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (state[i] != SIR_I) return;
    int start = row_ptr[i];
    int end = row_ptr[i + 1];
    for (int e = start; e < end; e++) {
        int j = contacts[e];
        if (state[j] == SIR_S && rand01(seed, 0, e) < beta) {
            if (atomicOr(&infected[j], 1) == 0) atomicAdd(n_new, 1);
        }
    }
    if (rand01(seed, 1, i) < gamma) state_new[i] = SIR_R;
}

// n walkers on an L x L periodic lattice, each taking `steps` lazy steps (hash % 5: stay,
// right, left, down, up), then counted into density[y * L + x]
__global__ void random_walk_hist(int *px, int *py, int *density, int steps, unsigned int seed, int L, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = px[i];
    int y = py[i];
    for (int s = 0; s < steps; s++) {
        unsigned int h = hash32(hash32(seed + s) ^ i);
        switch (h % 5) {
            case 1: x = (x + 1) % L; break;
            case 2: x = (x - 1 + L) % L; break;
            case 3: y = (y + 1) % L; break;
            case 4: y = (y - 1 + L) % L; break;
            default: break;
        }
    }
    px[i] = x;
    py[i] = y;
    atomicAdd(&density[y * L + x], 1);
}

// one yard-sale step of n agents: agent i trades with partner j = hash % n (none when j ==
// i) the stake floor(frac * min(w[i], w[j])), won by i on an even hash of draw 1; the
// winner's w_new (a copy of w) atomicAdd +stake, the loser's -stake; *volume += the
// stakes (a shared-memory sum a block); blockDim.x == YS_BLOCK
__global__ void yard_sale_step(const float *w, float *w_new, float *volume, float frac, unsigned int seed, int n) {
    __shared__ float s_vol[YS_BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float stake = 0.0f;
    if (i < n) {
        int j = hash32(hash32(seed) ^ i) % n;
        if (j != i) {
            stake = floorf(frac * fminf(w[i], w[j]));
            if (stake > 0.0f) {
                if ((hash32(hash32(seed + 1) ^ i) & 1) == 0) {
                    atomicAdd(&w_new[i], stake);
                    atomicAdd(&w_new[j], -stake);
                } else {
                    atomicAdd(&w_new[i], -stake);
                    atomicAdd(&w_new[j], stake);
                }
            }
        }
    }
    s_vol[threadIdx.x] = stake;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) s_vol[threadIdx.x] += s_vol[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(volume, s_vol[0]);
}

// one Drossel-Schwabl forest-fire step on an L x L periodic lattice of bytes: a fire burns
// out (empty), a tree catches fire when any of its 8 neighbours burns or by lightning
// (probability f_light, draw 0), an empty cell grows a tree with probability p_grow (draw
// 1); *n_fire += the cells burning after the step; blockDim == (FF_TILE, FF_TILE)
__global__ void forest_fire_step(const unsigned char *cur, unsigned char *next, int *n_fire, float p_grow,
                                 float f_light, unsigned int seed, int L) {
    __shared__ unsigned char tile[FF_TILE + 2][FF_TILE + 2];
    __shared__ int s_count;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * FF_TILE + tx;
    int y = blockIdx.y * FF_TILE + ty;
    int xm = (x - 1 + L) % L;
    int xp = (x + 1) % L;
    int ym = (y - 1 + L) % L;
    int yp = (y + 1) % L;
    if (tx == 0 && ty == 0) s_count = 0;
    tile[ty + 1][tx + 1] = cur[y * L + x];
    if (tx == 0) tile[ty + 1][0] = cur[y * L + xm];
    if (tx == FF_TILE - 1) tile[ty + 1][FF_TILE + 1] = cur[y * L + xp];
    if (ty == 0) tile[0][tx + 1] = cur[ym * L + x];
    if (ty == FF_TILE - 1) tile[FF_TILE + 1][tx + 1] = cur[yp * L + x];
    if (tx == 0 && ty == 0) tile[0][0] = cur[ym * L + xm];
    if (tx == FF_TILE - 1 && ty == 0) tile[0][FF_TILE + 1] = cur[ym * L + xp];
    if (tx == 0 && ty == FF_TILE - 1) tile[FF_TILE + 1][0] = cur[yp * L + xm];
    if (tx == FF_TILE - 1 && ty == FF_TILE - 1) tile[FF_TILE + 1][FF_TILE + 1] = cur[yp * L + xp];
    __syncthreads();
    int i = y * L + x;
    unsigned char s = tile[ty + 1][tx + 1];
    unsigned char ns;
    if (s == FF_FIRE) {
        ns = FF_EMPTY;
    } else if (s == FF_TREE) {
        bool burn = false;
        for (int dy = 0; dy < 3; dy++)
            for (int dx = 0; dx < 3; dx++)
                if (tile[ty + dy][tx + dx] == FF_FIRE) burn = true;
        if (burn || rand01(seed, 0, i) < f_light)
            ns = FF_FIRE;
        else
            ns = FF_TREE;
    } else {
        ns = rand01(seed, 1, i) < p_grow ? FF_TREE : FF_EMPTY;
    }
    next[i] = ns;
    if (ns == FF_FIRE) atomicAdd(&s_count, 1);
    __syncthreads();
    if (tx == 0 && ty == 0) atomicAdd(n_fire, s_count);
}

}
