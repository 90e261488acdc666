// probe-unseen66: a computational-neuroscience course's CUDA assignments (spiking and rate
// network simulation), as a student who knows CUDA basics hands them in: a leaky
// integrate-and-fire update, a thread a neuron (one Euler step, threshold, reset and a
// refractory counter, the refractory neurons skipping the input current); an Izhikevich
// network's neuron update, a thread a neuron integrating 1 ms in IZ_SUBSTEPS sub-steps
// with its own a, b, c, d, the neurons that fired compacted into a spike list with
// __ballot_sync, one atomicAdd a warp and __popc; Hodgkin-Huxley neurons, a thread a
// neuron, HH_SUBSTEPS steps of exponential Euler on the m, h, n gates (the rates through
// expf and a guarded vtrap) and forward Euler on V, the constants in __constant__ memory,
// counting upward crossings of 0 mV; spike propagation, a thread a presynaptic neuron
// which, when it spiked, walks its CSR row of synapses and atomicAdds each weight into its
// target's input current; an STDP weight update, a thread a synapse (COO, sorted by the
// presynaptic neuron): potentiation by the presynaptic trace when the target spiked,
// depression by the postsynaptic trace when the source spiked, clipped to [0, w_max],
// synapses with neither end spiking left alone; and one Euler step of a dense rate
// network (tau dr/dt = -r + tanh(g (W r + I))), a thread a unit (row of W), the rates
// staged through a shared-memory tile of RN_TILE.

#define IZ_SUBSTEPS 4         // izhikevich_step: sub-steps of the 1 ms step
#define HH_SUBSTEPS 10        // hh_step: sub-steps of c_hh[HH_DT] ms each
#define RN_TILE 256           // rate_step: the shared tile of rates (blockDim.x == RN_TILE)

// hh_step's constants (set by the host): conductances (mS/cm^2), reversal potentials (mV),
// membrane capacitance (uF/cm^2) and the sub-step (ms)
#define HH_GNA 0
#define HH_GK 1
#define HH_GL 2
#define HH_ENA 3
#define HH_EK 4
#define HH_EL 5
#define HH_CM 6
#define HH_DT 7
__constant__ float c_hh[8];

extern "C" {

// one Euler step of n LIF neurons: a neuron in its refractory period (refrac > 0) counts
// down, held at v_reset; the others integrate v += dt/tau (v_rest - v + R I), and spike
// (spiked = 1, v = v_reset, refrac = t_ref) when v reaches v_th
__global__ void lif_step(float *v, int *refrac, const float *I, unsigned char *spiked, float dt_tau,
                         float v_rest, float v_reset, float v_th, float r_m, int t_ref, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float vi = v[i];
    int r = refrac[i];
    unsigned char s = 0;
    if (r > 0) {
        r = r - 1;
        vi = v_reset;
    } else {
        vi = vi + dt_tau * (v_rest - vi + r_m * I[i]);
        if (vi >= v_th) {
            vi = v_reset;
            r = t_ref;
            s = 1;
        }
    }
    v[i] = vi;
    refrac[i] = r;
    spiked[i] = s;
}

// 1 ms of n Izhikevich neurons in IZ_SUBSTEPS sub-steps (a reset, v = c and u += d, after
// any sub-step that reached 30 mV); the neurons that fired at least once go to
// spike_ids[0 .. *nspikes) (in any order); blockDim.x a multiple of 32
__global__ void izhikevich_step(float *v, float *u, const float *a, const float *b, const float *c,
                                const float *d, const float *I, int *spike_ids, int *nspikes, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    bool fired = false;
    if (i < n) {
        float vi = v[i];
        float ui = u[i];
        float ai = a[i];
        float bi = b[i];
        float ci = c[i];
        float di = d[i];
        float Ii = I[i];
        float h = 1.0f / IZ_SUBSTEPS;
        for (int k = 0; k < IZ_SUBSTEPS; k++) {
            vi = vi + h * (0.04f * vi * vi + 5.0f * vi + 140.0f - ui + Ii);
            ui = ui + h * ai * (bi * vi - ui);
            if (vi >= 30.0f) {
                vi = ci;
                ui = ui + di;
                fired = true;
            }
        }
        v[i] = vi;
        u[i] = ui;
    }
    unsigned mask = __ballot_sync(0xffffffff, fired);
    int base = 0;
    if (lane == 0 && mask != 0) base = atomicAdd(nspikes, __popc(mask));
    base = __shfl_sync(0xffffffff, base, 0);
    if (fired) spike_ids[base + __popc(mask & ((1u << lane) - 1))] = i;
}

// x / (exp(x / y) - 1), its limit y (1 - x / y / 2) near x = 0 (NEURON's vtrap)
__device__ float vtrap(float x, float y) {
    if (fabsf(x / y) < 1e-6f) return y * (1.0f - x / y / 2.0f);
    return x / (expf(x / y) - 1.0f);
}

// HH_SUBSTEPS steps of n Hodgkin-Huxley neurons (V in mV, t in ms), I the injected current
// (uA/cm^2); nspk[i] += the sub-steps at which V crossed 0 mV upwards
__global__ void hh_step(float *V, float *m, float *h, float *nn, const float *I, int *nspk, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = V[i];
    float mi = m[i];
    float hi = h[i];
    float ni = nn[i];
    float Ii = I[i];
    float dt = c_hh[HH_DT];
    int count = 0;
    for (int k = 0; k < HH_SUBSTEPS; k++) {
        float am = 0.1f * vtrap(-(v + 40.0f), 10.0f);
        float bm = 4.0f * expf(-(v + 65.0f) / 18.0f);
        float ah = 0.07f * expf(-(v + 65.0f) / 20.0f);
        float bh = 1.0f / (1.0f + expf(-(v + 35.0f) / 10.0f));
        float an = 0.01f * vtrap(-(v + 55.0f), 10.0f);
        float bn = 0.125f * expf(-(v + 65.0f) / 80.0f);
        // exponential Euler: x -> x_inf + (x - x_inf) exp(-dt / tau_x)
        float sm = am + bm;
        float sh = ah + bh;
        float sn = an + bn;
        mi = am / sm + (mi - am / sm) * expf(-dt * sm);
        hi = ah / sh + (hi - ah / sh) * expf(-dt * sh);
        ni = an / sn + (ni - an / sn) * expf(-dt * sn);
        float ina = c_hh[HH_GNA] * mi * mi * mi * hi * (v - c_hh[HH_ENA]);
        float ik = c_hh[HH_GK] * ni * ni * ni * ni * (v - c_hh[HH_EK]);
        float il = c_hh[HH_GL] * (v - c_hh[HH_EL]);
        float vnew = v + dt * (Ii - ina - ik - il) / c_hh[HH_CM];
        if (v < 0.0f && vnew >= 0.0f) count++;
        v = vnew;
    }
    V[i] = v;
    m[i] = mi;
    h[i] = hi;
    nn[i] = ni;
    nspk[i] += count;
}

// I_syn[post[j]] += w[j] for every synapse j of every neuron that spiked (row_ptr[i] ..
// row_ptr[i + 1] its synapses)
__global__ void propagate_csr(const unsigned char *spiked, const int *row_ptr, const int *post,
                              const float *w, float *I_syn, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (spiked[i] == 0) return;
    int start = row_ptr[i];
    int end = row_ptr[i + 1];
    for (int j = start; j < end; j++) {
        atomicAdd(&I_syn[post[j]], w[j]);
    }
}

// pair-based STDP on nsyn synapses pre[j] -> post[j]: w += a_plus x_pre[pre] when the
// postsynaptic neuron spiked, w -= a_minus y_post[post] when the presynaptic one did,
// then clipped to [0, w_max]; the others untouched
__global__ void stdp_update(float *w, const int *pre, const int *post, const float *x_pre,
                            const float *y_post, const unsigned char *spiked, float a_plus, float a_minus,
                            float w_max, int nsyn) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= nsyn) return;
    int p = pre[j];
    int q = post[j];
    bool pre_spk = spiked[p] != 0;
    bool post_spk = spiked[q] != 0;
    if (!pre_spk && !post_spk) return;
    float wj = w[j];
    if (post_spk) wj += a_plus * x_pre[p];
    if (pre_spk) wj -= a_minus * y_post[q];
    w[j] = fminf(fmaxf(wj, 0.0f), w_max);
}

// r_new = r + dt/tau (-r + tanh(gain (W r + I_ext))) for n units, W row-major n x n;
// blockDim.x == RN_TILE
__global__ void rate_step(const float *W, const float *r, const float *I_ext, float *r_new, float dt_tau,
                          float gain, int n) {
    __shared__ float s_r[RN_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n; t += RN_TILE) {
        if (t + threadIdx.x < n)
            s_r[threadIdx.x] = r[t + threadIdx.x];
        else
            s_r[threadIdx.x] = 0.0f;
        __syncthreads();
        if (i < n) {
            for (int k = 0; k < RN_TILE && t + k < n; k++) {
                acc += W[i * n + t + k] * s_r[k];
            }
        }
        __syncthreads();
    }
    if (i < n) {
        float x = gain * (acc + I_ext[i]);
        r_new[i] = r[i] + dt_tau * (-r[i] + tanhf(x));
    }
}

}
