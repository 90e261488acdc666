// probe-unseen134: a particle-physics detector and data-analysis course's CUDA
// assignments, as a student who knows CUDA basics hands them in:
//  - digitize_hits: front-end digitization of a silicon strip detector, a thread a
//    channel: the deposited charge times the channel's gain plus a Gaussian noise draw
//    (a counter-based hash and Box-Muller) on the channel's pedestal, rounded to a 12-bit
//    ADC count and zero-suppressed (the noisy signal under a threshold reads 0);
//  - calo_cluster: calorimeter clustering on an eta x phi grid of cells (phi periodic),
//    a 16 x 16 tile of cells a block staged with a 2-cell halo into shared memory (the
//    cells under 2 sigma of their noise zeroed); a cell over 4 sigma that beats its 8
//    neighbours is a seed, summing the 5 x 5 window around it into a cluster (energy and
//    energy-weighted eta, phi) appended to a list through an atomicAdd counter;
//  - line_fit: straight-line weighted least-squares fits x = a + b z of tracks whose hits
//    are listed track after track (CSR offsets), a thread a track: one pass for the sums,
//    one for the chi^2; tracks of 6 to 40 hits;
//  - mass_hist: the dimuon invariant-mass histogram, a thread an event of 2 to 8 muons
//    (fixed slots of MU_MAX), every opposite-charge pair's massless mass sqrt(2 pt1 pt2
//    (cosh deta - cos dphi)) binned by shared-memory atomics, the block's histogram
//    added to the global one;
//  - trigger_count: a Level-1 trigger menu on events of jets, muons, e/gammas, MET and
//    HT (an array of structs), the menu's paths (object type, multiplicity, threshold,
//    prescale) in __constant__ memory; every path that fires counts by a global
//    atomicAdd and its prescale counter (the atomic's old value) decides whether it
//    accepts; each event's accept bits stored, accepted events counted;
//  - jet_cone: fixed-cone jets, a thread a jet axis (a warp the JET_AXES axes of one
//    event), summing the pt of the event's PART_EV particles within Delta R < R of the
//    axis (phi wrapped), with the pt-weighted eta and phi and the constituent count.

#define ADC_MAX 4095          // digitize_hits: 12-bit ADC
#define TILE 16               // calo_cluster: a block's tile of cells (blockDim 16 x 16)
#define HALO 2                // calo_cluster: the 5 x 5 window's half width
#define MU_MAX 8              // mass_hist: muon slots an event
#define NBINS 200             // mass_hist: the histogram's bins
#define N_PATHS 24            // trigger_count: the menu's paths
#define PART_EV 256           // jet_cone: particles an event
#define JET_AXES 32           // jet_cone: jet axes an event
#define PI_F 3.14159265f

// trigger_count's menu (set by the host): object type (0 jets, 1 muons, 2 e/gammas,
// 3 MET, 4 HT), multiplicity, threshold in GeV, prescale
__constant__ int c_path_type[N_PATHS];
__constant__ int c_path_mult[N_PATHS];
__constant__ float c_path_thr[N_PATHS];
__constant__ int c_path_prescale[N_PATHS];

// trigger_count's event: the Level-1 objects, pt in GeV, each list sorted descending
struct L1Event {
    float jet[4];
    float mu[2];
    float eg[2];
    float met;
    float ht;
};

extern "C" {

// a 32-bit integer hash (lowbias32)
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// n channels: the ADC count of charge q[i] (fC) times gain[i] (ADC-equivalent units a fC)
// plus noise_sigma times a normal from the hashes of seed + 2 i and seed + 2 i + 1, on
// the pedestal ped[i]; adc = (int)(v / lsb + 0.5) clamped to [0, ADC_MAX], 0 when the
// noisy signal is at most zs_thresh
__global__ void digitize_hits(const float *q, const float *gain, const float *ped, unsigned short *adc,
                              float noise_sigma, float lsb, float zs_thresh, unsigned int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int c = seed + 2u * (unsigned int)i;
    float u1 = ((hash32(c) >> 8) + 1) * (1.0f / 16777216.0f);      // (0, 1]
    float u2 = (hash32(c + 1u) >> 8) * (1.0f / 16777216.0f);       // [0, 1)
    float z = sqrtf(-2.0f * logf(u1)) * cosf(2.0f * PI_F * u2);
    float signal = q[i] * gain[i] + noise_sigma * z;
    float v = ped[i] + signal;
    int count = (int)(v / lsb + 0.5f);
    if (count < 0) count = 0;
    if (count > ADC_MAX) count = ADC_MAX;
    if (signal > zs_thresh)
        adc[i] = (unsigned short)count;
    else
        adc[i] = 0;
}

// the cells of an n_eta x n_phi calorimeter (E and noise row-major, a row an eta bin;
// phi periodic, nothing beyond the eta edges); blocks of TILE x TILE cells; a seed (E >
// 4 noise, E over every neighbour's in the 3 x 3) sums the 5 x 5 cells over 2 noise into
// a cluster appended at atomicAdd(n_cl, 1) (dropped past max_cl): its energy, eta and
// phi (in cell units, energy-weighted, phi relative to the seed's bin) and seed cell
__global__ void calo_cluster(const float *E, const float *noise, float *cl_e, float *cl_eta, float *cl_phi,
                             int *cl_cell, int *n_cl, int max_cl, int n_eta, int n_phi) {
    __shared__ float tile[TILE + 2 * HALO][TILE + 2 * HALO];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int phi0 = blockIdx.x * TILE;
    int eta0 = blockIdx.y * TILE;
    int tid = ty * TILE + tx;
    const int W = TILE + 2 * HALO;
    for (int k = tid; k < W * W; k += TILE * TILE) {
        int r = k / W;
        int c = k % W;
        int ie = eta0 + r - HALO;
        int ip = phi0 + c - HALO;
        if (ip < 0) ip += n_phi;
        if (ip >= n_phi) ip -= n_phi;
        float e = 0.0f;
        if (ie >= 0 && ie < n_eta) {
            float x = E[ie * n_phi + ip];
            if (x > 2.0f * noise[ie * n_phi + ip]) e = x;
        }
        tile[r][c] = e;
    }
    __syncthreads();

    int ie = eta0 + ty;
    int ip = phi0 + tx;
    if (ie >= n_eta || ip >= n_phi) return;
    int cell = ie * n_phi + ip;
    float e0 = tile[ty + HALO][tx + HALO];
    if (e0 <= 4.0f * noise[cell]) return;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            if ((dy != 0 || dx != 0) && tile[ty + HALO + dy][tx + HALO + dx] >= e0) return;
    float sum = 0.0f;
    float se = 0.0f;
    float sp = 0.0f;
    for (int dy = -HALO; dy <= HALO; dy++) {
        for (int dx = -HALO; dx <= HALO; dx++) {
            float e = tile[ty + HALO + dy][tx + HALO + dx];
            sum += e;
            se += e * dy;
            sp += e * dx;
        }
    }
    int slot = atomicAdd(n_cl, 1);
    if (slot < max_cl) {
        cl_e[slot] = sum;
        cl_eta[slot] = ie + se / sum;
        cl_phi[slot] = ip + sp / sum;
        cl_cell[slot] = cell;
    }
}

// n tracks, track t's hits at off[t] .. off[t + 1] - 1 (z, x in mm, weight w = 1 /
// sigma^2): the weighted least-squares line x = a + b z, its chi^2 and degrees of freedom
__global__ void line_fit(const int *off, const float *z, const float *x, const float *w, float *a_out,
                         float *b_out, float *chi2_out, int *ndf_out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int begin = off[t];
    int end = off[t + 1];
    float S = 0.0f, Sz = 0.0f, Szz = 0.0f, Sx = 0.0f, Szx = 0.0f;
    for (int h = begin; h < end; h++) {
        float wi = w[h];
        float zi = z[h];
        float xi = x[h];
        S += wi;
        Sz += wi * zi;
        Szz += wi * zi * zi;
        Sx += wi * xi;
        Szx += wi * zi * xi;
    }
    float D = S * Szz - Sz * Sz;
    float b = (S * Szx - Sz * Sx) / D;
    float a = (Szz * Sx - Sz * Szx) / D;
    float chi2 = 0.0f;
    for (int h = begin; h < end; h++) {
        float r = x[h] - a - b * z[h];
        chi2 += w[h] * r * r;
    }
    a_out[t] = a;
    b_out[t] = b;
    chi2_out[t] = chi2;
    ndf_out[t] = end - begin - 2;
}

// n events, event e's n_mu[e] muons in slots e MU_MAX .. (pt GeV, eta, phi, charge +-1):
// every opposite-charge pair's mass sqrt(2 pt1 pt2 (cosh(eta1 - eta2) - cos(phi1 -
// phi2))) into NBINS bins of width bw from m_lo (outside dropped), a block's histogram in
// shared memory, then added to hist
__global__ void mass_hist(const float *pt, const float *eta, const float *phi, const int *charge,
                          const int *n_mu, unsigned int *hist, float m_lo, float bw, int n) {
    __shared__ unsigned int sh[NBINS];
    for (int k = threadIdx.x; k < NBINS; k += blockDim.x) sh[k] = 0;
    __syncthreads();
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < n) {
        int m = n_mu[e];
        int base = e * MU_MAX;
        for (int i = 0; i < m; i++) {
            for (int j = i + 1; j < m; j++) {
                if (charge[base + i] == charge[base + j]) continue;
                float m2 = 2.0f * pt[base + i] * pt[base + j] *
                           (coshf(eta[base + i] - eta[base + j]) - cosf(phi[base + i] - phi[base + j]));
                float mass = sqrtf(fmaxf(m2, 0.0f));
                int bin = (int)floorf((mass - m_lo) / bw);
                if (bin >= 0 && bin < NBINS) atomicAdd(&sh[bin], 1u);
            }
        }
    }
    __syncthreads();
    for (int k = threadIdx.x; k < NBINS; k += blockDim.x)
        if (sh[k] > 0) atomicAdd(&hist[k], sh[k]);
}

// n events through the N_PATHS paths of the menu: a path fires when at least mult of its
// objects pass thr (MET, HT: the value passes); a firing path takes c = atomicAdd(&raw[p],
// 1) and accepts when c % prescale == 0; the event's accept bits stored in bits[e], the
// accepted events counted in *n_acc
__global__ void trigger_count(const L1Event *ev, unsigned int *raw, unsigned int *bits, unsigned int *n_acc,
                              int n) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n) return;
    L1Event x = ev[e];
    unsigned int acc = 0;
    for (int p = 0; p < N_PATHS; p++) {
        int type = c_path_type[p];
        int mult = c_path_mult[p];
        float thr = c_path_thr[p];
        int cnt = 0;
        switch (type) {
        case 0:
            for (int k = 0; k < 4; k++)
                if (x.jet[k] > thr) cnt++;
            break;
        case 1:
            for (int k = 0; k < 2; k++)
                if (x.mu[k] > thr) cnt++;
            break;
        case 2:
            for (int k = 0; k < 2; k++)
                if (x.eg[k] > thr) cnt++;
            break;
        case 3:
            if (x.met > thr) cnt = 1;
            break;
        default:
            if (x.ht > thr) cnt = 1;
            break;
        }
        if (cnt >= mult) {
            unsigned int c = atomicAdd(&raw[p], 1u);
            if (c % c_path_prescale[p] == 0) acc |= 1u << p;
        }
    }
    bits[e] = acc;
    if (acc != 0) atomicAdd(n_acc, 1u);
}

// n jet axes, JET_AXES an event (axis j of event j / JET_AXES), the event's PART_EV
// particles at (j / JET_AXES) PART_EV: the pt within Delta R^2 < r2 of the axis (dphi
// wrapped into [-pi, pi]), the pt-weighted eta and phi (phi relative to the axis, not
// wrapped back) and the constituents; a jet with no particle keeps its axis
__global__ void jet_cone(const float *p_eta, const float *p_phi, const float *p_pt, const float *ax_eta,
                         const float *ax_phi, float *j_pt, float *j_eta, float *j_phi, int *j_n, float r2, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    int base = (j / JET_AXES) * PART_EV;
    float ae = ax_eta[j];
    float ap = ax_phi[j];
    float spt = 0.0f;
    float se = 0.0f;
    float sp = 0.0f;
    int cnt = 0;
    for (int k = 0; k < PART_EV; k++) {
        float deta = p_eta[base + k] - ae;
        float dphi = p_phi[base + k] - ap;
        if (dphi > PI_F) dphi -= 2.0f * PI_F;
        if (dphi < -PI_F) dphi += 2.0f * PI_F;
        if (deta * deta + dphi * dphi < r2) {
            float pt = p_pt[base + k];
            spt += pt;
            se += pt * deta;
            sp += pt * dphi;
            cnt++;
        }
    }
    j_pt[j] = spt;
    j_n[j] = cnt;
    if (spt > 0.0f) {
        j_eta[j] = ae + se / spt;
        j_phi[j] = ap + sp / spt;
    } else {
        j_eta[j] = ae;
        j_phi[j] = ap;
    }
}

}
