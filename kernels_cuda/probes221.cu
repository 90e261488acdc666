// probe-unseen219: a formal-verification / model-checking course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - bfs_expand: one level of an explicit-state breadth-first search of the dining
//    philosophers (each philosopher thinking, hungry, holding the left fork or eating: 2 bits
//    a philosopher in a 32-bit state), a thread a frontier state: the enabled transitions by
//    bit tricks on the neighbours' fields, each successor hashed (murmur3's finaliser) into
//    an open-addressing visited set by atomicCAS with linear probing, the new ones appended
//    to the next frontier by an atomicAdd on one counter, with their parent's index;
//  - aig_sim: bit-parallel random simulation of a sequential circuit given as an
//    and-inverter graph (AIGER's literals: 2 var + negated), 32 input sequences a thread,
//    a launch a few frames of a long simulation: the gates staged in shared memory, the
//    values of every variable in a per-thread local array, each frame the AND gates in
//    topological order, the bad-state output checked and the latches' next states taken;
//    the threads that hit the bad state counted by __syncthreads_count;
//  - ctmc_bounded_until: one step of time-bounded reachability in a CTMC by uniformisation
//    (PRISM's tandem queueing network), in double: x' = P x over the uniformised chain's CSR
//    rows (the target states kept at 1), the Fox-Glynn-weighted sum accumulated, and the
//    largest |x' - x| by a block-uniform grid-stride loop, a warp shuffle reduction, shared
//    memory and one atomicMax on the double's bits a block;
//  - petri_check: invariant checking over a batch of Petri-net markings (8-bit token counts
//    of 4 readers-writers / producer-consumer subnets): each marking's weighted token sums
//    against the P-invariants in __constant__ memory and the mutual-exclusion properties,
//    the violations as a 16-bit mask, counted a bit at a time by __ballot_sync / __popc into
//    shared counters, the first violating marking by atomicMin;
//  - cex_backtrace: counterexample reconstruction after a BFS: from each bad state the
//    parent pointers followed back to the initial state (a chase of dependent gathered
//    loads, as long as the state's level), once to count the steps and once to write the
//    trace in order, the action of each step (which philosopher moved) by __ffs of the
//    states' XOR as an 8-bit label, the lengths counted in a shared histogram;
//  - bitstate_insert: SPIN-style bitstate hashing (a Bloom filter of 2^30 bits) of a batch
//    of 16-byte protocol states from random walks: two hashes (Jenkins' one-at-a-time over
//    the bytes, a 64-bit multiply-xorshift) combined into 3 bit positions, set by atomicOr;
//    the state is new when one of its bits was clear; new states flagged in a byte array and
//    counted by a shared atomicAdd and one global one a block, by a grid-stride loop.

#define PH_THINK 0              // bfs_expand / cex_backtrace: a philosopher's 2 bits
#define PH_HUNGRY 1
#define PH_LEFT 2               // holds the left fork
#define PH_EAT 3                // holds both forks
#define EMPTY_KEY 0xffffffffu   // an empty slot of the visited set

#define AIG_MAXVAR 1024         // aig_sim: variables (constant 0, inputs, latches, ANDs) at most
#define AIG_MAXAND 900
#define AIG_MAXLATCH 64

#define TQ_WARPS 32             // ctmc_bounded_until: warps a block at most

#define PN_PLACES 32            // petri_check: places of the net (4 subnets of 8)
#define PN_INV 12               // P-invariants (3 a subnet)
#define PN_SUB 4                // subnets: a mutual-exclusion check each (mask bits 12 .. 15)
#define PN_NONE 0x7fffffff

#define CX_MAXLEN 64            // cex_backtrace: a trace's states at most
#define CX_NOACT 255            // the first state's action label

#define BS_K 3                  // bitstate_insert: bits a state

struct PState {                 // a protocol state: 8 processes' 4-bit program counters,
    unsigned int pc;            // two sequence numbers and 8 one-byte channel slots
    unsigned short seq, ack;
    unsigned char chan[8];
};

// the P-invariants: weights of each place and the invariant's token sum; the places whose
// tokens are the subnet's writers and readers
__constant__ signed char c_pn_weight[PN_INV][PN_PLACES];
__constant__ int c_pn_total[PN_INV];
__constant__ int c_pn_writer[PN_SUB];
__constant__ int c_pn_reader[PN_SUB];

// ---------------------------------------------------------------- bfs_expand

__device__ unsigned int hash_state(unsigned int x) {
    x ^= x >> 16;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    x *= 0xc2b2ae35u;
    x ^= x >> 16;
    return x;
}

extern "C" {

// frontier[0 .. nfront) the states of this level (their indices base ..); table: the visited
// set (mask + 1 slots); the successors not yet visited are inserted and appended to next /
// next_parent (the parent's index) at *next_count
__global__ void bfs_expand(const unsigned int *frontier, int nfront, int base, int nphil, unsigned int *table,
                           unsigned int mask, unsigned int *next, int *next_parent, int *next_count) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nfront) return;
    unsigned int s = frontier[t];
    for (int i = 0; i < nphil; i++) {
        int left = (i + nphil - 1) % nphil;
        int right = (i + 1) % nphil;
        unsigned int me = (s >> (2 * i)) & 3;
        unsigned int ns;
        if (me == PH_THINK) {
            ns = PH_HUNGRY;
        } else if (me == PH_HUNGRY) {
            if (((s >> (2 * left)) & 3) == PH_EAT) continue;        // the left fork is the left one's right fork
            ns = PH_LEFT;
        } else if (me == PH_LEFT) {
            if (((s >> (2 * right)) & 3) >= PH_LEFT) continue;      // the right one holds its left fork
            ns = PH_EAT;
        } else {
            ns = PH_THINK;
        }
        unsigned int succ = (s & ~(3u << (2 * i))) | (ns << (2 * i));
        unsigned int h = hash_state(succ) & mask;
        while (true) {
            unsigned int old = atomicCAS(&table[h], EMPTY_KEY, succ);
            if (old == EMPTY_KEY) {
                int pos = atomicAdd(next_count, 1);
                next[pos] = succ;
                next_parent[pos] = base + t;
                break;
            }
            if (old == succ) break;
            h = (h + 1) & mask;
        }
    }
}

}

// ---------------------------------------------------------------- aig_sim

// a literal's value: the variable's 32 patterns, complemented for odd literals
__device__ unsigned int lit_val(const unsigned int *val, int lit) {
    return val[lit >> 1] ^ (0u - (unsigned int)(lit & 1));
}

extern "C" {

// nthr threads a 32 patterns each; variables 0 (false), 1 .. ninput, the latches, then the
// nand AND gates (gate g: variable 1 + ninput + nlatch + g = rhs0 & rhs1); the latches start
// at state_in[l * nthr + t] (where the last launch left them) and take latch_next's literals
// each frame; stim[(f * ninput + i) * nthr + t] the inputs of frame f
__global__ void aig_sim(const int2 *gates, int nand, const int *latch_next, int nlatch, int ninput, int bad_lit,
                        const unsigned int *state_in, const unsigned int *stim, int nframe, int nthr,
                        unsigned int *state_out, int *first_bad, unsigned int *bad_bits, int *n_hit) {
    __shared__ int2 s_gate[AIG_MAXAND];
    __shared__ int s_next[AIG_MAXLATCH];
    for (int k = threadIdx.x; k < nand; k += blockDim.x) s_gate[k] = gates[k];
    for (int k = threadIdx.x; k < nlatch; k += blockDim.x) s_next[k] = latch_next[k];
    __syncthreads();
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int found = -1;
    unsigned int found_bits = 0;
    if (t < nthr) {
        unsigned int val[AIG_MAXVAR];
        unsigned int nxt[AIG_MAXLATCH];
        int lbase = 1 + ninput;
        int gbase = 1 + ninput + nlatch;
        val[0] = 0;
        for (int l = 0; l < nlatch; l++) val[lbase + l] = state_in[l * nthr + t];
        for (int f = 0; f < nframe; f++) {
            for (int i = 0; i < ninput; i++) val[1 + i] = stim[(f * ninput + i) * nthr + t];
            for (int g = 0; g < nand; g++) {
                int2 gt = s_gate[g];
                val[gbase + g] = lit_val(val, gt.x) & lit_val(val, gt.y);
            }
            unsigned int bad = lit_val(val, bad_lit);
            if (bad != 0 && found < 0) {
                found = f;
                found_bits = bad;
            }
            for (int l = 0; l < nlatch; l++) nxt[l] = lit_val(val, s_next[l]);
            for (int l = 0; l < nlatch; l++) val[lbase + l] = nxt[l];
        }
        for (int l = 0; l < nlatch; l++) state_out[l * nthr + t] = val[lbase + l];
        first_bad[t] = found;
        bad_bits[t] = found_bits;
    }
    int hits = __syncthreads_count(found >= 0);
    if (threadIdx.x == 0 && hits > 0) atomicAdd(n_hit, hits);
}

// ---------------------------------------------------------------- ctmc_bounded_until

// nstate rows of the uniformised chain (CSR: rowptr, col, val); x the probabilities of
// reaching a target within k steps, x_new within k + 1 (targets: 1), acc += weight x_new;
// *max_diff_bits = max over the rows of the bits of |x_new - x|
__global__ void ctmc_bounded_until(const int *rowptr, const int *col, const double *val,
                                   const unsigned char *is_target, const double *x, double *x_new, double *acc,
                                   double weight, int nstate, unsigned long long *max_diff_bits) {
    __shared__ double s_max[TQ_WARPS];
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    double my_max = 0.0;
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < nstate; v += gridDim.x * blockDim.x) {
        double y;
        if (is_target[v]) {
            y = 1.0;
        } else {
            y = 0.0;
            for (int e = rowptr[v]; e < rowptr[v + 1]; e++) y += val[e] * x[col[e]];
        }
        x_new[v] = y;
        acc[v] += weight * y;
        my_max = fmax(my_max, fabs(y - x[v]));
    }
    for (int o = 16; o > 0; o /= 2) my_max = fmax(my_max, __shfl_down_sync(0xffffffff, my_max, o));
    if (lane == 0) s_max[warp] = my_max;
    __syncthreads();
    if (warp == 0) {
        double m = (lane < blockDim.x / 32) ? s_max[lane] : 0.0;
        for (int o = 16; o > 0; o /= 2) m = fmax(m, __shfl_down_sync(0xffffffff, m, o));
        if (lane == 0) atomicMax(max_diff_bits, (unsigned long long)__double_as_longlong(m));   // m >= 0
    }
}

// ---------------------------------------------------------------- petri_check

// n markings of PN_PLACES 8-bit token counts; viol[i] the bits of the invariants it breaks
// (bit k < PN_INV: invariant k, bit PN_INV + j: subnet j's writer not alone); count[b] += the
// markings breaking b, *first = the lowest violating marking
__global__ void petri_check(const unsigned char *marking, int n, unsigned short *viol, int *count, int *first) {
    __shared__ int s_count[16];
    if (threadIdx.x < 16) s_count[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int mask = 0;
    if (i < n) {
        unsigned char tok[PN_PLACES];
        for (int p = 0; p < PN_PLACES; p++) tok[p] = marking[(size_t)i * PN_PLACES + p];
        for (int k = 0; k < PN_INV; k++) {
            int sum = 0;
            for (int p = 0; p < PN_PLACES; p++) sum += c_pn_weight[k][p] * tok[p];
            if (sum != c_pn_total[k]) mask |= 1u << k;
        }
        for (int j = 0; j < PN_SUB; j++) {
            int w = tok[c_pn_writer[j]];
            int r = tok[c_pn_reader[j]];
            if (w > 1 || (w > 0 && r > 0)) mask |= 1u << (PN_INV + j);
        }
        viol[i] = (unsigned short)mask;
        if (mask != 0) atomicMin(first, i);
    }
    int lane = threadIdx.x % 32;
    if (__any_sync(0xffffffff, mask != 0)) {
        for (int b = 0; b < 16; b++) {
            unsigned int v = __ballot_sync(0xffffffff, (mask >> b) & 1);
            if (lane == 0 && v != 0) atomicAdd(&s_count[b], __popc(v));
        }
    }
    __syncthreads();
    if (threadIdx.x < 16 && s_count[threadIdx.x] > 0) atomicAdd(&count[threadIdx.x], s_count[threadIdx.x]);
}

// ---------------------------------------------------------------- cex_backtrace

// state / parent: the states in BFS order and their parents' indices (-1: the initial
// state); for each of the ntarget bad states target[t]: trace[t * CX_MAXLEN + k] the k-th
// state from the initial one, action[..] the philosopher that moved into it, len[t]; hist[l]
// += the traces of l states
__global__ void cex_backtrace(const unsigned int *state, const int *parent, const int *target, int ntarget,
                              unsigned int *trace, unsigned char *action, int *len, int *hist) {
    __shared__ int s_hist[CX_MAXLEN + 1];
    for (int k = threadIdx.x; k <= CX_MAXLEN; k += blockDim.x) s_hist[k] = 0;
    __syncthreads();
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < ntarget) {
        int v = target[t];
        int n = 0;
        while (v >= 0) {
            n++;
            v = parent[v];
        }
        if (n > CX_MAXLEN) n = CX_MAXLEN;           // cut: the part nearest the bad state kept
        v = target[t];
        for (int k = n - 1; k >= 0; k--) {
            unsigned int s = state[v];
            int p = parent[v];
            trace[t * CX_MAXLEN + k] = s;
            if (p >= 0) {
                unsigned int d = s ^ state[p];
                action[t * CX_MAXLEN + k] = (unsigned char)((__ffs(d) - 1) >> 1);
            } else {
                action[t * CX_MAXLEN + k] = CX_NOACT;
            }
            v = p;
        }
        len[t] = n;
        atomicAdd(&s_hist[n], 1);
    }
    __syncthreads();
    for (int k = threadIdx.x; k <= CX_MAXLEN; k += blockDim.x)
        if (s_hist[k] > 0) atomicAdd(&hist[k], s_hist[k]);
}

// ---------------------------------------------------------------- bitstate_insert

}

// Jenkins' one-at-a-time hash, nbytes bytes of w (low byte first) into h
__device__ unsigned int oat_bytes(unsigned int h, unsigned int w, int nbytes) {
    for (int k = 0; k < nbytes; k++) {
        h += (w >> (8 * k)) & 0xff;
        h += h << 10;
        h ^= h >> 6;
    }
    return h;
}

__device__ unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

extern "C" {

// n states into the Bloom filter of (mask + 1) bits (words of 32); is_new[i] = 1 when one of
// state i's BS_K bits was clear, *new_count += those
__global__ void bitstate_insert(const PState *states, int n, unsigned int *filter, unsigned int mask,
                                unsigned char *is_new, int *new_count) {
    __shared__ int s_new;
    if (threadIdx.x == 0) s_new = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        PState st = states[i];
        unsigned int h1 = oat_bytes(0, st.pc, 4);
        h1 = oat_bytes(h1, st.seq, 2);
        h1 = oat_bytes(h1, st.ack, 2);
        unsigned int c0 = 0, c1 = 0;
        for (int k = 0; k < 4; k++) {
            c0 |= (unsigned int)st.chan[k] << (8 * k);
            c1 |= (unsigned int)st.chan[4 + k] << (8 * k);
        }
        h1 = oat_bytes(h1, c0, 4);
        h1 = oat_bytes(h1, c1, 4);
        h1 += h1 << 3;
        h1 ^= h1 >> 11;
        h1 += h1 << 15;
        unsigned long long lo = (unsigned long long)st.pc | ((unsigned long long)st.seq << 32) |
                                ((unsigned long long)st.ack << 48);
        unsigned long long hi = (unsigned long long)c0 | ((unsigned long long)c1 << 32);
        unsigned int h2 = (unsigned int)mix64(lo ^ mix64(hi)) | 1u;
        int fresh = 0;
        for (int k = 0; k < BS_K; k++) {
            unsigned int b = (h1 + k * h2) & mask;
            unsigned int bit = 1u << (b & 31);
            unsigned int old = atomicOr(&filter[b >> 5], bit);
            if ((old & bit) == 0) fresh = 1;
        }
        is_new[i] = (unsigned char)fresh;
        if (fresh) atomicAdd(&s_new, 1);
    }
    __syncthreads();
    if (threadIdx.x == 0 && s_new > 0) atomicAdd(new_count, s_new);
}

}
