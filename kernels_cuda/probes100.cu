// probe-unseen98: a digital-logic / VLSI CAD course's CUDA assignments, as a student who
// knows CUDA basics hands them in:
//  - logic_sim_level: bit-parallel gate-level logic simulation of one level of a levelized
//    netlist, a thread a gate: the gate's type (AND, NAND, OR, NOR, XOR, XNOR, NOT, BUF),
//    its two fan-in signal ids, then LS_W 64-bit words (LS_W * 64 test patterns) of each
//    fan-in gathered, combined by a switch on the type and stored as the gate's output
//    signal (out_base + gate);
//  - fault_sim: parallel-pattern stuck-at fault simulation of a small combinational
//    circuit (FS_G gates, the first FS_PI primary inputs, the last FS_PO primary outputs)
//    held in __constant__ arrays, a thread a (fault, 32-pattern word): the whole circuit
//    simulated in a per-thread array with the fault forced on its gate, the outputs
//    XORed with the good circuit's, the mask of detecting patterns stored;
//  - sta_level: static timing analysis of one level, a thread a gate: the cell's NLDM
//    delay and output-slew tables (7 x 7, __constant__) interpolated bilinearly at each
//    fan-in's input slew and the gate's load, the arrival time the max over fan-ins of
//    arrival + wire delay + cell delay (the critical fan-in kept for path tracing), the
//    output slew the worst one;
//  - hpwl_nets: placement wirelength, a thread a net: min/max over the net's pins (cell
//    position + pin offset) for the weighted half-perimeter, stored per net, the block's
//    sum by a shared-memory tree reduction and one float atomicAdd a block into the total;
//  - rudy_map: a RUDY routing-congestion map, a thread a net: the net's bounding box
//    mapped onto RUDY_GW x RUDY_GH bins, its wirelength (w + h) spread evenly over the
//    bins it covers by float atomicAdd on the global map;
//  - sig_compare: response-signature comparison for a BIST/fault-dictionary flow, a
//    thread a 256-bit MISR signature: the Hamming distance to the golden signature
//    (__constant__) by __popc of XORed words, stored, and a histogram of the distances in
//    shared memory (shared atomicAdd) added to the global one a bin a block.

#define LS_W 4                // logic_sim_level: 64-bit words a signal (256 patterns)

#define FS_G 256              // fault_sim: gates of the circuit, inputs included
#define FS_PI 32              // the first FS_PI gates are the primary inputs
#define FS_PO 16              // the last FS_PO gates are the primary outputs

#define NLDM_N 7              // sta_level: NLDM table axes' points
#define NLDM_TYPES 8          // cell types

#define HPWL_BLOCK 256        // hpwl_nets: blockDim.x == HPWL_BLOCK

#define RUDY_GW 512           // rudy_map: the congestion map's bins
#define RUDY_GH 512

#define SIG_WORDS 8           // sig_compare: 32-bit words a signature
#define SIG_BINS (32 * SIG_WORDS + 1)

// gate types of the netlists
#define G_AND 0
#define G_NAND 1
#define G_OR 2
#define G_NOR 3
#define G_XOR 4
#define G_XNOR 5
#define G_NOT 6
#define G_BUF 7

// fault_sim's circuit: gate g = type(in0, in1) (gates below FS_PI are inputs)
__constant__ int c_fs_type[FS_G];
__constant__ int c_fs_in0[FS_G];
__constant__ int c_fs_in1[FS_G];

// sta_level's cell library: the shared axes and a delay and an output-slew table a type
__constant__ float c_slew_ax[NLDM_N];
__constant__ float c_load_ax[NLDM_N];
__constant__ float c_delay_tab[NLDM_TYPES * NLDM_N * NLDM_N];
__constant__ float c_oslew_tab[NLDM_TYPES * NLDM_N * NLDM_N];

// sig_compare's golden signature
__constant__ unsigned int c_golden[SIG_WORDS];

extern "C" {

// one level of a levelized netlist: gate g reads signals fin0[g], fin1[g] (ids below
// out_base, from earlier levels; a one-input gate has fin1 == fin0) and writes signal
// out_base + g; signal s's patterns are val[s * LS_W .. s * LS_W + LS_W - 1]
__global__ void logic_sim_level(const unsigned char *gtype, const int *fin0, const int *fin1,
                                unsigned long long *val, int out_base, int n) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) return;
    int t = gtype[g];
    int a = fin0[g];
    int b = fin1[g];
    int o = out_base + g;
    for (int w = 0; w < LS_W; w++) {
        unsigned long long x = val[a * LS_W + w];
        unsigned long long y = val[b * LS_W + w];
        unsigned long long r;
        switch (t) {
        case G_AND: r = x & y; break;
        case G_NAND: r = ~(x & y); break;
        case G_OR: r = x | y; break;
        case G_NOR: r = ~(x | y); break;
        case G_XOR: r = x ^ y; break;
        case G_XNOR: r = ~(x ^ y); break;
        case G_NOT: r = ~x; break;
        default: r = x; break;
        }
        val[o * LS_W + w] = r;
    }
}

__device__ unsigned int eval_gate(int t, unsigned int x, unsigned int y) {
    switch (t) {
    case G_AND: return x & y;
    case G_NAND: return ~(x & y);
    case G_OR: return x | y;
    case G_NOR: return ~(x | y);
    case G_XOR: return x ^ y;
    case G_XNOR: return ~(x ^ y);
    case G_NOT: return ~x;
    default: return x;
    }
}

// stuck-at fault simulation: blockIdx.y picks the fault flist[f] (gate * 2 + stuck
// value), x the 32-pattern word w; pat[i * nwords + w] are input i's patterns and
// good_po[k * nwords + w] the good circuit's output k; detect[f * nwords + w] gets the
// patterns that see the fault at some output
__global__ void fault_sim(const unsigned int *pat, const unsigned int *good_po, const int *flist,
                          unsigned int *detect, int nwords) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int f = blockIdx.y;
    if (w >= nwords) return;
    int fg = flist[f] >> 1;
    unsigned int sv = (flist[f] & 1) ? 0xffffffffu : 0u;
    unsigned int v[FS_G];
    for (int i = 0; i < FS_PI; i++) {
        unsigned int x = pat[i * nwords + w];
        if (i == fg) x = sv;
        v[i] = x;
    }
    for (int g = FS_PI; g < FS_G; g++) {
        unsigned int r = eval_gate(c_fs_type[g], v[c_fs_in0[g]], v[c_fs_in1[g]]);
        if (g == fg) r = sv;
        v[g] = r;
    }
    unsigned int d = 0;
    for (int k = 0; k < FS_PO; k++) d |= v[FS_G - FS_PO + k] ^ good_po[k * nwords + w];
    detect[f * nwords + w] = d;
}

// bilinear interpolation in one NLDM table at cell k = (type, i, j), fractions fx
// (slew) and fy (load); outside the axes it extrapolates
__device__ float nldm_delay(int k, float fx, float fy) {
    float v00 = c_delay_tab[k], v01 = c_delay_tab[k + 1];
    float v10 = c_delay_tab[k + NLDM_N], v11 = c_delay_tab[k + NLDM_N + 1];
    return (1.0f - fx) * ((1.0f - fy) * v00 + fy * v01) + fx * ((1.0f - fy) * v10 + fy * v11);
}

__device__ float nldm_oslew(int k, float fx, float fy) {
    float v00 = c_oslew_tab[k], v01 = c_oslew_tab[k + 1];
    float v10 = c_oslew_tab[k + NLDM_N], v11 = c_oslew_tab[k + NLDM_N + 1];
    return (1.0f - fx) * ((1.0f - fy) * v00 + fy * v01) + fx * ((1.0f - fy) * v10 + fy * v11);
}

// one level of arrival-time propagation: gate g's fan-ins are fin_idx[fin_ptr[g] ..
// fin_ptr[g + 1] - 1] (signal ids below out_base) with wire delays wire_d[e]; its cell
// type ctype[g] and load cload[g]; at/slew of signal out_base + g written, pred[g] the
// critical fan-in
__global__ void sta_level(const int *fin_ptr, const int *fin_idx, const float *wire_d,
                          const unsigned char *ctype, const float *cload, float *at, float *slew,
                          int *pred, int out_base, int n) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) return;
    int t = ctype[g];
    float load = cload[g];
    int j = 0;
    while (j < NLDM_N - 2 && load > c_load_ax[j + 1]) j++;
    float fy = (load - c_load_ax[j]) / (c_load_ax[j + 1] - c_load_ax[j]);
    float best = -1e30f;
    float worst_slew = 0.0f;
    int arg = -1;
    for (int e = fin_ptr[g]; e < fin_ptr[g + 1]; e++) {
        int u = fin_idx[e];
        float s = slew[u];
        int i = 0;
        while (i < NLDM_N - 2 && s > c_slew_ax[i + 1]) i++;
        float fx = (s - c_slew_ax[i]) / (c_slew_ax[i + 1] - c_slew_ax[i]);
        int k = (t * NLDM_N + i) * NLDM_N + j;
        float a = at[u] + wire_d[e] + nldm_delay(k, fx, fy);
        if (a > best) {
            best = a;
            arg = u;
        }
        worst_slew = fmaxf(worst_slew, nldm_oslew(k, fx, fy));
    }
    at[out_base + g] = best;
    slew[out_base + g] = worst_slew;
    pred[g] = arg;
}

// half-perimeter wirelength: net i's pins are net_ptr[i] .. net_ptr[i + 1] - 1, pin p on
// cell pin_cell[p] at offset (pin_dx[p], pin_dy[p]); net_hpwl[i] = net_w[i] * (bbox w + h)
// and *total += the block's sum
__global__ void hpwl_nets(const int *net_ptr, const int *pin_cell, const float *pin_dx, const float *pin_dy,
                          const float *cell_x, const float *cell_y, const float *net_w, float *net_hpwl,
                          float *total, int nnets) {
    __shared__ float s_sum[HPWL_BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    float h = 0.0f;
    if (i < nnets) {
        float xmin = FLT_MAX, xmax = -FLT_MAX, ymin = FLT_MAX, ymax = -FLT_MAX;
        for (int p = net_ptr[i]; p < net_ptr[i + 1]; p++) {
            int c = pin_cell[p];
            float x = cell_x[c] + pin_dx[p];
            float y = cell_y[c] + pin_dy[p];
            xmin = fminf(xmin, x);
            xmax = fmaxf(xmax, x);
            ymin = fminf(ymin, y);
            ymax = fmaxf(ymax, y);
        }
        h = net_w[i] * ((xmax - xmin) + (ymax - ymin));
        net_hpwl[i] = h;
    }
    s_sum[tid] = h;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) s_sum[tid] += s_sum[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(total, s_sum[0]);
}

// RUDY: net i's bounding box bbox[i] = (xmin, ymin, xmax, ymax) in die units, bins of
// bin_w x bin_h; each bin the box touches gets net_w[i] * (w + h) / (bins touched)
__global__ void rudy_map(const float4 *bbox, const float *net_w, float *demand, float bin_w, float bin_h,
                         int nnets) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nnets) return;
    float4 b = bbox[i];
    int x0 = (int)(b.x / bin_w);
    int y0 = (int)(b.y / bin_h);
    int x1 = min((int)(b.z / bin_w), RUDY_GW - 1);
    int y1 = min((int)(b.w / bin_h), RUDY_GH - 1);
    int nb = (x1 - x0 + 1) * (y1 - y0 + 1);
    float d = net_w[i] * ((b.z - b.x) + (b.w - b.y)) / nb;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++)
            atomicAdd(&demand[y * RUDY_GW + x], d);
}

// signature i is sig[i * SIG_WORDS .. + SIG_WORDS - 1]; dist[i] its Hamming distance
// to c_golden, hist[d] += the signatures at distance d
__global__ void sig_compare(const unsigned int *sig, unsigned short *dist, unsigned int *hist, int n) {
    __shared__ unsigned int s_hist[SIG_BINS];
    for (int k = threadIdx.x; k < SIG_BINS; k += blockDim.x) s_hist[k] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int d = 0;
        for (int w = 0; w < SIG_WORDS; w++) d += __popc(sig[i * SIG_WORDS + w] ^ c_golden[w]);
        dist[i] = (unsigned short)d;
        atomicAdd(&s_hist[d], 1u);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < SIG_BINS; k += blockDim.x)
        if (s_hist[k] > 0) atomicAdd(&hist[k], s_hist[k]);
}

}
