// probe-unseen246: a computational-neuroscience / spiking neural networks course's CUDA
// assignments, as a student who knows CUDA basics hands them in (a conductance-based
// cortical network of adaptive exponential integrate-and-fire neurons on a 0.1 ms grid with
// delayed synapses in a ring buffer; Hodgkin and Huxley's squid axon as a cable; triplet
// STDP; and the analysis of recorded spike trains):
//  - adex_cond_step: one 0.1 ms step of a network of AdEx neurons, a thread a neuron, the
//    state an array of 24-byte structs (v, w, ge, gi, the xorshift state, the refractory
//    counter, the cell type: a strided AoS load and store), the cell type's parameters from
//    a __constant__ struct table (4 types, per-lane indices: serialised), this step's slot
//    of the excitatory and inhibitory ring buffers added and cleared, the external Poisson
//    drive drawn by Knuth's product of uniforms (a data-dependent loop), the refractory
//    neurons held (divergent), an expf for the spike's exponential upswing, the spikes
//    compacted into a shared list by shared atomicAdd, one global atomicAdd a block for
//    its place in the step's spike list and 4 shared per-type counters flushed by global
//    atomicAdd;
//  - deliver_spikes_warp: the synaptic event delivery of the spikes of one minimum-delay
//    interval (1 ms, 10 steps) during a population burst, a warp a spike: the presynaptic
//    neuron's CSR row of outgoing synapses (post index, weight, delay in steps as a byte)
//    walked 32 at a time (rows of lognormal length, unaligned), each weight times the
//    neuron's short-term depression factor added by global float atomicAdd into the ring
//    buffer's slot (t0 + spike step + delay) mod RING_D of the target (excitatory and
//    inhibitory rings: a warp-uniform choice), a scattered gather of 9 bytes a synapse;
//  - hh_cable_cr: Hodgkin and Huxley's squid giant axon as a cable of CR_N compartments, a
//    block an axon of a sweep over radius, temperature (Q10 3) and stimulus, a thread a
//    compartment: each of nsteps steps the m, h, n gates by exponential Euler (6 rate
//    functions: expf, a guarded vtrap, divides), then backward Euler for V, a tridiagonal
//    system in shared memory solved by cyclic reduction (a template over log2 N: 8
//    forward and 8 backward levels, a barrier each, the active threads halving, strides of
//    2^level: up to 32-way bank conflicts), each compartment's first upward crossing of
//    0 mV interpolated for the conduction velocity;
//  - stdp_triplet_ell: the triplet STDP rule (Pfister and Gerstner 2006, the visual
//    cortex's all-to-all minimal model; amplitudes in a __constant__ struct) after one 1 ms
//    step of a recurrent network, a thread a postsynaptic neuron, its incoming synapses in
//    ELL layout (column-major: synapse k of every neuron together, coalesced) walked to its
//    own in-degree (data-dependent trip counts, a warp runs its longest), each presynaptic
//    index's spike bit tested in a bit-packed spike vector (a gather from L1), the weight
//    loaded, updated by the presynaptic traces (gathered) and stored only where the pre-
//    or the postsynaptic neuron spiked (divergent), the updates counted by a global
//    atomicAdd a thread onto one address;
//  - isi_stats_warp: inter-spike-interval statistics of a recording's spike trains, a warp
//    a neuron walking its sorted spike times 32 at a time (trip counts from its rate): the
//    previous spike by __shfl_up_sync (a carry across chunks), the ISIs' sums in double,
//    Shinomoto's local variation from adjacent ISIs, bursts (ISIs under 6 ms) by
//    __ballot_sync with burst onsets by shifting the ballot and __popc, a log-ISI
//    histogram in a warp-private shared array by shared atomicAdd (regular neurons: hot
//    bins), double and float __shfl_xor_sync reductions, a 32-byte struct a neuron, the
//    histogram stored as uint16 and added into its cell class's population histogram by
//    global atomicAdd (192 addresses);
//  - coincidence_popc: pairwise spike synchrony of binned spike trains (1 ms bins, 32 to
//    a 32-bit word), a block a 32 x 32 tile of neuron pairs (32 x 8 threads, 4 pairs a
//    thread): tiles of 32 words of the i neurons and of the j neurons dilated by +-1 bin
//    (the word and its two neighbours: shifts and the carry bits) staged in shared memory,
//    the j tile stored transposed into an unpadded array (32-way bank conflicts on the
//    store), the coincidences counted by __popc(a & b) (a broadcast and a conflict-free
//    shared load), the spike counts reduced by __shfl_xor_sync, then each pair's count and
//    its excess over chance in units of the Poisson standard deviation (rsqrtf).

#define FULL_MASK 0xffffffffu

#define ADEX_TYPES 4            // adex_cond_step: cell types in c_adex
#define ADEX_BLOCK 256          // its blockDim.x (the shared spike list's length)

#define RING_D 64               // ring buffer slots (0.1 ms steps): delays up to 6.3 ms

#define CR_LOGN 8               // hh_cable_cr: log2 of the compartments an axon
#define CR_N (1 << CR_LOGN)     // compartments an axon (== blockDim.x)

#define ISI_WARPS 8             // isi_stats_warp: neurons a block (blockDim.x == 32 ISI_WARPS)
#define ISI_BINS 64             // log-ISI histogram bins ...
#define ISI_BPD 16.0f           // ... 16 a decade from 1 ms (to 9.1 s)
#define ISI_CLASSES 3           // cell classes (population histograms)
#define BURST_ISI 6.0f          // an ISI under this (ms) is inside a burst

#define CO_TILE 32              // coincidence_popc: neurons a tile side, words a tile
#define CO_RY 8                 // blockDim.y
#define CO_RPT (CO_TILE / CO_RY)   // pairs (rows) a thread

// an AdEx cell type (Brette and Gerstner 2005; units pF, nS, mV, ms, pA)
struct AdexType {
    float C, gL, EL, VT, DT;    // capacitance, leak, rest, threshold, slope factor
    float a, tau_w, b, Vr;      // subthreshold and spike-triggered adaptation, reset
    int tref;                   // refractory steps
    float exp_lam;              // exp(-mean external Poisson events a step)
    float w_ext;                // nS an external event
};

// the network's shared constants
struct SimConfig {
    float dt;                   // ms
    float Ee, Ei;               // synaptic reversal potentials (mV)
    float Vpeak;                // a spike when v reaches this (mV)
    float de, di;               // exp(-dt / tau_e), exp(-dt / tau_i)
};

// a neuron's state (24 bytes)
struct Neuron {
    float v, w, ge, gi;         // mV, pA, nS, nS
    unsigned int rng;           // xorshift32 state (nonzero)
    short refr;                 // refractory steps left
    unsigned char type;         // index into c_adex
    unsigned char pad;
};

// the cable's constants (units mS/cm^2, mV, uF/cm^2, ohm cm, cm, ms)
struct HHConfig {
    float gna, gk, gl;
    float ena, ek, el;
    float cm, ri, dx, dt;
};

// an axon of the sweep
struct Axon {
    float radius_um;            // axon radius (um)
    float temp_c;               // temperature (deg C)
    float istim;                // stimulus into compartment 0 (uA/cm^2) ...
    float tstim;                // ... for t < tstim (ms)
};

// the triplet rule's amplitudes and bound
struct Triplet {
    float a2p, a3p, a2m, a3m, wmax;
};

// a spike train's statistics
struct IsiStats {
    float rate;                 // Hz
    float mean_isi;             // ms
    float cv;                   // coefficient of variation of the ISIs
    float lv;                   // local variation (Shinomoto 2003)
    float burst_frac;           // fraction of the spikes inside bursts
    int nspk, nburst, cls;
};

__constant__ AdexType c_adex[ADEX_TYPES];     // set by the host
__constant__ SimConfig c_sim;
__constant__ HHConfig c_hh;
__constant__ Triplet c_stdp;

// ---------------------------------------------------------------- helpers

// x / (exp(x / y) - 1), its limit y (1 - x / y / 2) near x = 0 (NEURON's vtrap)
__device__ float vtrap(float x, float y) {
    float r = x / y;
    if (fabsf(r) < 1e-6f) return y * (1.0f - 0.5f * r);
    return x / (expf(r) - 1.0f);
}

// x_inf + (x - x_inf) exp(-dt (alpha + beta)): a gate's exponential Euler step
__device__ float gate_step(float x, float al, float be, float dt) {
    float s = al + be;
    float xi = al / s;
    return xi + (x - xi) * expf(-dt * s);
}

// a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i], i < N = 2^LOGN (a[0] = c[N-1] = 0), solved
// by cyclic reduction in place over a, b, c, d into x; blockDim.x >= N / 2; the caller
// has filled the arrays and synchronised
template <int LOGN>
__device__ void cr_solve(float *a, float *b, float *c, float *d, float *x) {
    const int N = 1 << LOGN;
    int t = threadIdx.x;
#pragma unroll
    for (int lv = 0; lv < LOGN; lv++) {
        int s = 1 << lv;
        int i = (t + 1) * 2 * s - 1;
        if (i < N) {
            float k1 = a[i] / b[i - s];
            float an = -a[i - s] * k1;
            float bn = b[i] - c[i - s] * k1;
            float cn = 0.0f;
            float dn = d[i] - d[i - s] * k1;
            if (i + s < N) {
                float k2 = c[i] / b[i + s];
                bn -= a[i + s] * k2;
                cn = -c[i + s] * k2;
                dn -= d[i + s] * k2;
            }
            a[i] = an;
            b[i] = bn;
            c[i] = cn;
            d[i] = dn;
        }
        __syncthreads();
    }
    if (t == 0) x[N - 1] = d[N - 1] / b[N - 1];
    __syncthreads();
#pragma unroll
    for (int lv = LOGN - 1; lv >= 0; lv--) {
        int s = 1 << lv;
        int i = 2 * s * t + s - 1;
        if (i < N) {
            float xl = i >= s ? x[i - s] : 0.0f;
            x[i] = (d[i] - a[i] * xl - c[i] * x[i + s]) / b[i];
        }
        __syncthreads();
    }
}

extern "C" {

// ---------------------------------------------------------------- adex_cond_step

// one step of n AdEx neurons: in_e / in_i this step's slot of the ring buffers (added to
// ge / gi, then cleared); the neurons that spiked go to spk[*nspk ...] (in any order),
// type_cnt[type] += them
__global__ void adex_cond_step(Neuron *nrn, float *in_e, float *in_i, int n, int *spk, int *nspk, int *type_cnt) {
    __shared__ int s_spk[ADEX_BLOCK];
    __shared__ int s_cnt[ADEX_TYPES];
    __shared__ int s_n, s_base;
    int tid = threadIdx.x;
    if (tid == 0) s_n = 0;
    if (tid < ADEX_TYPES) s_cnt[tid] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + tid;
    if (i < n) {
        Neuron s = nrn[i];
        AdexType P = c_adex[s.type];
        s.ge += in_e[i];
        s.gi += in_i[i];
        in_e[i] = 0.0f;
        in_i[i] = 0.0f;
        // the external drive: Poisson events, Knuth's product of uniforms
        unsigned int x = s.rng;
        float p = 1.0f;
        int k = -1;
        do {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            p *= (float)((x >> 8) + 1u) * (1.0f / 16777216.0f);
            k++;
        } while (p > P.exp_lam);
        s.rng = x;
        s.ge += (float)k * P.w_ext;
        float dt = c_sim.dt;
        float v = s.v;
        float wn = s.w + dt * (P.a * (v - P.EL) - s.w) / P.tau_w;
        bool fired = false;
        if (s.refr > 0) {
            s.refr--;
            s.v = P.Vr;
        } else {
            float ex = fminf((v - P.VT) / P.DT, 20.0f);
            float I = -P.gL * (v - P.EL) + P.gL * P.DT * expf(ex) - s.ge * (v - c_sim.Ee) - s.gi * (v - c_sim.Ei) - s.w;
            s.v = v + dt * I / P.C;
            if (s.v >= c_sim.Vpeak) {
                s.v = P.Vr;
                wn += P.b;
                s.refr = (short)P.tref;
                fired = true;
            }
        }
        s.w = wn;
        s.ge *= c_sim.de;
        s.gi *= c_sim.di;
        nrn[i] = s;
        if (fired) {
            int slot = atomicAdd(&s_n, 1);
            s_spk[slot] = i;
            atomicAdd(&s_cnt[s.type], 1);
        }
    }
    __syncthreads();
    if (tid == 0 && s_n > 0) s_base = atomicAdd(nspk, s_n);
    __syncthreads();
    if (tid < s_n) spk[s_base + tid] = s_spk[tid];
    if (tid < ADEX_TYPES && s_cnt[tid] > 0) atomicAdd(&type_cnt[tid], s_cnt[tid]);
}

// ---------------------------------------------------------------- deliver_spikes_warp

// nspk spikes (neuron spk_id[s] at step t0 + spk_step[s]); neuron p's synapses
// row_ptr[p] .. row_ptr[p + 1]: ring[(t0 + step + delay) mod RING_D][post] += wgt * stp[p],
// ring_e for p < ne, else ring_i (RING_D rows of n); a warp a spike
__global__ void deliver_spikes_warp(const int *spk_id, const unsigned char *spk_step, int nspk, const int *row_ptr,
                                    const int *post, const float *wgt, const unsigned char *delay, const float *stp,
                                    int n, int ne, int t0, float *ring_e, float *ring_i) {
    int lane = threadIdx.x & 31;
    int s = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (s >= nspk) return;
    int pre = spk_id[s];
    int ts = t0 + spk_step[s];
    float f = stp[pre];
    int beg = row_ptr[pre], end = row_ptr[pre + 1];
    float *ring = pre < ne ? ring_e : ring_i;
    for (int k = beg + lane; k < end; k += 32) {
        int slot = (ts + delay[k]) & (RING_D - 1);
        atomicAdd(&ring[(size_t)slot * n + post[k]], wgt[k] * f);
    }
}

// ---------------------------------------------------------------- hh_cable_cr

// a block an axon (ax[blockIdx.x]) of CR_N compartments (c_hh.dx long, sealed ends), its
// state V, M, H, Nn[axon][compartment]: nsteps steps of c_hh.dt from t0 (ms); tcross[axon]
// [compartment] the first upward crossing of 0 mV (left alone where none; -1 on entry)
__global__ void hh_cable_cr(const Axon *ax, float *V, float *M, float *H, float *Nn, int nsteps, float t0,
                            float *tcross) {
    __shared__ float sa[CR_N], sb[CR_N], sc[CR_N], sd[CR_N], sx[CR_N];
    int i = threadIdx.x;
    Axon A = ax[blockIdx.x];
    size_t g = (size_t)blockIdx.x * CR_N + i;
    float v = V[g], m = M[g], h = H[g], nn = Nn[g];
    float tc = tcross[g];
    float dt = c_hh.dt;
    float phi = powf(3.0f, (A.temp_c - 6.3f) / 10.0f);
    float gax = 1000.0f * (A.radius_um * 1e-4f) / (2.0f * c_hh.ri * c_hh.dx * c_hh.dx);   // mS/cm^2
    float cdt = c_hh.cm / dt;
    float offl = i > 0 ? -gax : 0.0f;
    float offr = i < CR_N - 1 ? -gax : 0.0f;
    for (int step = 0; step < nsteps; step++) {
        float t = t0 + step * dt;
        float am = 0.1f * vtrap(-(v + 40.0f), 10.0f);
        float bm = 4.0f * expf(-(v + 65.0f) / 18.0f);
        float ah = 0.07f * expf(-(v + 65.0f) / 20.0f);
        float bh = 1.0f / (1.0f + expf(-(v + 35.0f) / 10.0f));
        float an = 0.01f * vtrap(-(v + 55.0f), 10.0f);
        float bn = 0.125f * expf(-(v + 65.0f) / 80.0f);
        m = gate_step(m, phi * am, phi * bm, dt);
        h = gate_step(h, phi * ah, phi * bh, dt);
        nn = gate_step(nn, phi * an, phi * bn, dt);
        float gna = c_hh.gna * m * m * m * h;
        float gk = c_hh.gk * nn * nn * nn * nn;
        float gsum = gna + gk + c_hh.gl;
        float gE = gna * c_hh.ena + gk * c_hh.ek + c_hh.gl * c_hh.el;
        float is = (i == 0 && t < A.tstim) ? A.istim : 0.0f;
        sa[i] = offl;
        sc[i] = offr;
        sb[i] = cdt + gsum - offl - offr;
        sd[i] = cdt * v + gE + is;
        __syncthreads();
        cr_solve<CR_LOGN>(sa, sb, sc, sd, sx);
        float vn = sx[i];
        if (tc < 0.0f && v < 0.0f && vn >= 0.0f) tc = t + dt * (-v / (vn - v));
        v = vn;
    }
    V[g] = v;
    M[g] = m;
    H[g] = h;
    Nn[g] = nn;
    tcross[g] = tc;
}

// ---------------------------------------------------------------- stdp_triplet_ell

// npost neurons, neuron j's nin[j] incoming synapses at pre[k * npost + j], W[k * npost + j]
// (k < nin[j] <= width); spk the step's spikes as bits (neuron p: bit p & 31 of word p >> 5);
// r1, r2 (o1, o2) the pre- (post-)synaptic traces before this step's spikes: a presynaptic
// spike w -= o1 (a2m + a3m r2), a postsynaptic one w += r1 (a2p + a3p o2), w clipped to
// [0, wmax]; *nupd += the synapses updated
__global__ void stdp_triplet_ell(const int *pre, float *W, const int *nin, int npost, const unsigned int *spk,
                                 const float *r1, const float *r2, const float *o1, const float *o2, int *nupd) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= npost) return;
    bool post = (spk[j >> 5] >> (j & 31)) & 1u;
    float ltd = o1[j];
    float ltp = c_stdp.a2p + c_stdp.a3p * o2[j];
    int cnt = nin[j];
    int changed = 0;
    for (int k = 0; k < cnt; k++) {
        size_t e = (size_t)k * npost + j;
        int p = pre[e];
        bool ps = (spk[p >> 5] >> (p & 31)) & 1u;
        if (ps || post) {
            float w = W[e];
            if (ps) w -= ltd * (c_stdp.a2m + c_stdp.a3m * r2[p]);
            if (post) w += r1[p] * ltp;
            W[e] = fminf(fmaxf(w, 0.0f), c_stdp.wmax);
            changed++;
        }
    }
    if (changed > 0) atomicAdd(nupd, changed);
}

// ---------------------------------------------------------------- isi_stats_warp

// nneu spike trains, neuron i's sorted spike times (ms) t[off[i] .. off[i + 1]), its class
// cls[i]; a warp a neuron: st[i] its statistics over a recording of t_rec seconds,
// hist[i][b] its ISIs with 16 log10(ISI / ms) in [b, b + 1) (clamped to the first and last
// bins), pop[cls][b] += them
__global__ void isi_stats_warp(const float *t, const int *off, const unsigned char *cls, int nneu, float t_rec,
                               IsiStats *st, unsigned short *hist, unsigned int *pop) {
    __shared__ int s_h[ISI_WARPS][ISI_BINS];
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    int i = blockIdx.x * ISI_WARPS + wid;
    if (i >= nneu) return;
    int *h = s_h[wid];
    h[lane] = 0;
    h[lane + 32] = 0;
    __syncwarp();
    int beg = off[i], end = off[i + 1];
    double s1 = 0.0, s2 = 0.0;
    float lvs = 0.0f;
    int nshort = 0, nburst = 0;
    float carry_t = 0.0f, carry_isi = 0.0f;
    unsigned int carry_short = 0u;
    for (int c = beg; c < end; c += 32) {
        int k = c + lane;
        bool in = k < end;
        float tk = in ? t[k] : 0.0f;
        float tp = __shfl_up_sync(FULL_MASK, tk, 1);
        if (lane == 0) tp = carry_t;
        bool v1 = in && k > beg;
        float isi = v1 ? tk - tp : 0.0f;
        float ip = __shfl_up_sync(FULL_MASK, isi, 1);
        if (lane == 0) ip = carry_isi;
        bool v2 = in && k > beg + 1;
        unsigned int b = __ballot_sync(FULL_MASK, v1 && isi < BURST_ISI);
        unsigned int on = b & ~((b << 1) | carry_short);
        nshort += __popc(b);
        nburst += __popc(on);
        if (v1) {
            s1 += (double)isi;
            s2 += (double)isi * (double)isi;
            int bin = (int)floorf(log10f(fmaxf(isi, 0.01f)) * ISI_BPD);
            bin = min(max(bin, 0), ISI_BINS - 1);
            atomicAdd(&h[bin], 1);
        }
        if (v2) {
            float d = (ip - isi) / (ip + isi);
            lvs += d * d;
        }
        carry_t = __shfl_sync(FULL_MASK, tk, 31);
        carry_isi = __shfl_sync(FULL_MASK, isi, 31);
        carry_short = b >> 31;
    }
    for (int o = 16; o > 0; o >>= 1) {
        s1 += __shfl_xor_sync(FULL_MASK, s1, o);
        s2 += __shfl_xor_sync(FULL_MASK, s2, o);
        lvs += __shfl_xor_sync(FULL_MASK, lvs, o);
    }
    __syncwarp();
    int cl = cls[i];
    int c0 = h[lane], c1 = h[lane + 32];
    unsigned short *hr = hist + (size_t)i * ISI_BINS;
    hr[lane] = (unsigned short)c0;
    hr[lane + 32] = (unsigned short)c1;
    if (c0 > 0) atomicAdd(&pop[cl * ISI_BINS + lane], (unsigned int)c0);
    if (c1 > 0) atomicAdd(&pop[cl * ISI_BINS + lane + 32], (unsigned int)c1);
    if (lane == 0) {
        int nspk = end - beg;
        int nisi = nspk > 0 ? nspk - 1 : 0;
        IsiStats r;
        r.rate = (float)nspk / t_rec;
        r.mean_isi = 0.0f;
        r.cv = 0.0f;
        if (nisi > 0) {
            double mean = s1 / nisi;
            double var = s2 / nisi - mean * mean;
            r.mean_isi = (float)mean;
            if (nisi > 1 && var > 0.0) r.cv = (float)(sqrt(var) / mean);
        }
        r.lv = nisi > 1 ? 3.0f * lvs / (float)(nisi - 1) : 0.0f;
        r.burst_frac = nspk > 0 ? (float)(nshort + nburst) / (float)nspk : 0.0f;
        r.nspk = nspk;
        r.nburst = nburst;
        r.cls = cl;
        st[i] = r;
    }
}

// ---------------------------------------------------------------- coincidence_popc

// raster: nn neurons' binned spike trains, nw words each (bin b of neuron i: bit b & 31 of
// raster[i * nw + (b >> 5)]), nbins bins; count[i][j] = i's spikes with a spike of j within
// one bin, z[i][j] = (count - E) / sqrt(E), E = n_i d_j / nbins (n_i i's spikes, d_j the bins
// j's dilated train covers; 0 where E is 0); grid (nn / 32, nn / 32), block (32, 8)
__global__ void coincidence_popc(const unsigned int *raster, int nn, int nw, int nbins, int *count, float *z) {
    __shared__ unsigned int sA[CO_TILE][CO_TILE];     // [i row][word]
    __shared__ unsigned int sB[CO_TILE][CO_TILE];     // [word][j column], dilated
    __shared__ int s_ni[CO_TILE], s_dj[CO_TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i0 = blockIdx.y * CO_TILE, j0 = blockIdx.x * CO_TILE;
    int acc[CO_RPT], na[CO_RPT], nb[CO_RPT];
#pragma unroll
    for (int q = 0; q < CO_RPT; q++) {
        acc[q] = 0;
        na[q] = 0;
        nb[q] = 0;
    }
    for (int k0 = 0; k0 < nw; k0 += CO_TILE) {
        int k = k0 + tx;
#pragma unroll
        for (int q = 0; q < CO_RPT; q++) {
            int r = ty + q * CO_RY;
            unsigned int a = 0u, d = 0u;
            if (k < nw) {
                a = raster[(size_t)(i0 + r) * nw + k];
                const unsigned int *rb = raster + (size_t)(j0 + r) * nw;
                unsigned int cb = rb[k];
                unsigned int l = k > 0 ? rb[k - 1] : 0u;
                unsigned int rr = k + 1 < nw ? rb[k + 1] : 0u;
                d = cb | (cb << 1) | (cb >> 1) | (l >> 31) | (rr << 31);
            }
            sA[r][tx] = a;
            sB[tx][r] = d;
            na[q] += __popc(a);
            nb[q] += __popc(d);
        }
        __syncthreads();
#pragma unroll 4
        for (int kk = 0; kk < CO_TILE; kk++) {
            unsigned int b = sB[kk][tx];
#pragma unroll
            for (int q = 0; q < CO_RPT; q++) acc[q] += __popc(sA[ty * CO_RPT + q][kk] & b);
        }
        __syncthreads();
    }
#pragma unroll
    for (int q = 0; q < CO_RPT; q++) {
        for (int o = 16; o > 0; o >>= 1) {
            na[q] += __shfl_xor_sync(FULL_MASK, na[q], o);
            nb[q] += __shfl_xor_sync(FULL_MASK, nb[q], o);
        }
        if (tx == 0) {
            s_ni[ty + q * CO_RY] = na[q];
            s_dj[ty + q * CO_RY] = nb[q];
        }
    }
    __syncthreads();
    float fj = (float)s_dj[tx] / (float)nbins;
    int j = j0 + tx;
#pragma unroll
    for (int q = 0; q < CO_RPT; q++) {
        int r = ty * CO_RPT + q;
        size_t o = (size_t)(i0 + r) * nn + j;
        float e = (float)s_ni[r] * fj;
        count[o] = acc[q];
        z[o] = e > 0.0f ? ((float)acc[q] - e) * rsqrtf(e) : 0.0f;
    }
}

}  // extern "C"
