// probe-unseen92: a high-energy-physics data-analysis course's CUDA assignments, as a
// student who knows CUDA basics hands them in. Six steps of a collider analysis chain:
//
// calo_cluster      calorimeter cell clustering: events of CALO_NETA x CALO_NPHI cells
//                   (eta rows, phi wrapping around), a thread a cell; a cell above the seed
//                   threshold that no neighbour beats is a seed, and its 3x3 window's cells
//                   above the noise threshold make its cluster (energy and the energy-
//                   weighted eta/phi position in cell units); other cells write 0. The
//                   clusters are counted by one global atomicAdd a seed.
// dimuon_mass_hist  the dimuon invariant-mass histogram of a Z -> mu mu analysis: a thread
//                   an event (two muons as pt, eta, phi in structure-of-arrays), pt and
//                   |eta| cuts, the four-vectors with the muon mass (cosf, sinf, sinhf,
//                   sqrtf), the pair mass binned in [m_lo, m_hi), the event's generator
//                   weight (+-, NLO) added by a float atomicAdd onto the global histogram.
// track_hit_match   track-hit matching by binned search: a thread a track (phi0 and
//                   curvature; trk_per_evt tracks an event, events one after another); at
//                   each of TRK_NLAYER barrel layers (radii in __constant__ memory) the
//                   helix's phi = phi0 + asin(r kappa / 2), its phi bin and the two beside
//                   it scanned through the event's and layer's bin offsets (hits sorted by
//                   event, layer and phi) for the closest hit within the window (at most a
//                   bin wide); the hit's index (or -1) a layer and the layers matched stored.
// vertex_fit        a primary-vertex z fit per event, a block an event (VTX_BLOCK threads):
//                   the event's tracks (z0, sigma) in a block-stride loop, the weighted
//                   mean by a shared-memory tree reduction, then VTX_NITER adaptive passes
//                   with Fermi weights 1 / (1 + exp((chi2 - chi2cut) / 2T)) at a halving
//                   temperature; z, its error and the tracks within chi2cut (counted by a
//                   shared atomicAdd) stored.
// trigger_select    a software trigger with stream compaction: a thread an event, its jets'
//                   pt (row-major, TRIG_MAXJ a row, njet used) summed into HT with the hard
//                   jets counted; passing (4 hard jets and HT, or a leading jet, or MET)
//                   events are compacted by __ballot_sync, one atomicAdd a warp and
//                   __popc of the lower lanes, index and HT stored.
// antikt_nn         the anti-kt jet clustering's distance step: a block an event (up to
//                   JET_MAXP particles, padded), pt/eta/phi and 1/pt^2 staged in shared
//                   memory, a thread a particle scanning all others for the smallest
//                   d_ij = min(1/pt_i^2, 1/pt_j^2) dR^2 / R^2 against the beam distance
//                   d_iB = 1/pt_i^2; the nearest partner (or -1 for the beam) and d stored.

#define CALO_NETA 64          // calo_cluster: cells in eta an event
#define CALO_NPHI 64          // calo_cluster: cells in phi an event (wraps around)
#define CALO_CELLS (CALO_NETA * CALO_NPHI)

#define MU_MASS 0.1056584f    // dimuon_mass_hist: the muon's mass in GeV

#define TRK_NLAYER 8          // track_hit_match: barrel layers
#define TWO_PI 6.28318531f
#define PI_F 3.14159265f

#define VTX_BLOCK 128         // vertex_fit: blockDim.x == VTX_BLOCK (a power of two)
#define VTX_NITER 14          // vertex_fit: adaptive passes after the plain mean

#define TRIG_MAXJ 8           // trigger_select: jets stored an event

#define JET_MAXP 128          // antikt_nn: particles stored an event (blockDim.x == JET_MAXP)

// track_hit_match's layer radii in metres (set by the host)
__constant__ float c_layer_r[TRK_NLAYER];

extern "C" {

__global__ void calo_cluster(const float *cellE, float *clusE, float *clusEta, float *clusPhi, int *nclus,
                             float seed_thr, float cell_thr, int ncells) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= ncells) return;
    int ev = idx / CALO_CELLS;
    int c = idx % CALO_CELLS;
    int ie = c / CALO_NPHI;
    int ip = c % CALO_NPHI;
    const float *E = cellE + ev * CALO_CELLS;
    float e = E[c];
    if (e < seed_thr) {
        clusE[idx] = 0.0f;
        return;
    }
    bool isMax = true;
    float sum = 0.0f;
    float sEta = 0.0f;
    float sPhi = 0.0f;
    for (int de = -1; de <= 1; de++) {
        int je = ie + de;
        if (je < 0 || je >= CALO_NETA) continue;
        for (int dp = -1; dp <= 1; dp++) {
            int jp = (ip + dp + CALO_NPHI) % CALO_NPHI;
            float en = E[je * CALO_NPHI + jp];
            if (en > e) isMax = false;
            if (en > cell_thr) {
                sum += en;
                sEta += en * de;
                sPhi += en * dp;
            }
        }
    }
    if (!isMax) {
        clusE[idx] = 0.0f;
        return;
    }
    clusE[idx] = sum;
    clusEta[idx] = ie + sEta / sum;
    clusPhi[idx] = ip + sPhi / sum;
    atomicAdd(nclus, 1);
}

__global__ void dimuon_mass_hist(const float *pt1, const float *eta1, const float *phi1, const float *pt2,
                                 const float *eta2, const float *phi2, const float *weight, float *hist,
                                 float m_lo, float m_hi, int nbins, float pt_cut, float eta_cut, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float ptA = pt1[i];
    float ptB = pt2[i];
    float etaA = eta1[i];
    float etaB = eta2[i];
    if (ptA < pt_cut || ptB < pt_cut) return;
    if (fabsf(etaA) > eta_cut || fabsf(etaB) > eta_cut) return;
    float phiA = phi1[i];
    float phiB = phi2[i];

    float pxA = ptA * cosf(phiA);
    float pyA = ptA * sinf(phiA);
    float pzA = ptA * sinhf(etaA);
    float eA = sqrtf(pxA * pxA + pyA * pyA + pzA * pzA + MU_MASS * MU_MASS);
    float pxB = ptB * cosf(phiB);
    float pyB = ptB * sinf(phiB);
    float pzB = ptB * sinhf(etaB);
    float eB = sqrtf(pxB * pxB + pyB * pyB + pzB * pzB + MU_MASS * MU_MASS);

    float E = eA + eB;
    float px = pxA + pxB;
    float py = pyA + pyB;
    float pz = pzA + pzB;
    float m2 = E * E - px * px - py * py - pz * pz;
    float m = sqrtf(fmaxf(m2, 0.0f));
    if (m < m_lo || m >= m_hi) return;
    int bin = (int)((m - m_lo) / (m_hi - m_lo) * nbins);
    if (bin >= nbins) bin = nbins - 1;
    atomicAdd(&hist[bin], weight[i]);
}

__global__ void track_hit_match(const float *trk_phi0, const float *trk_kappa, const float *hit_phi,
                                const int *bin_start, int *match, int *nmatch, float window, int nbins,
                                int trk_per_evt, int ntrk) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ntrk) return;
    int ev = t / trk_per_evt;
    float phi0 = trk_phi0[t];
    float kappa = trk_kappa[t];
    int found = 0;
    for (int l = 0; l < TRK_NLAYER; l++) {
        float phi = phi0 + asinf(0.5f * c_layer_r[l] * kappa);
        if (phi < 0.0f) phi += TWO_PI;
        if (phi >= TWO_PI) phi -= TWO_PI;
        int b = (int)(phi / TWO_PI * nbins);
        if (b >= nbins) b = nbins - 1;
        int best = -1;
        float bestd = window;
        for (int db = -1; db <= 1; db++) {
            int bb = (b + db + nbins) % nbins;
            int start = bin_start[(ev * TRK_NLAYER + l) * nbins + bb];
            int end = bin_start[(ev * TRK_NLAYER + l) * nbins + bb + 1];
            for (int h = start; h < end; h++) {
                float d = fabsf(hit_phi[h] - phi);
                if (d > PI_F) d = TWO_PI - d;
                if (d < bestd) {
                    bestd = d;
                    best = h;
                }
            }
        }
        match[t * TRK_NLAYER + l] = best;
        if (best >= 0) found++;
    }
    nmatch[t] = found;
}

__global__ void vertex_fit(const float *trk_z, const float *trk_sz, const int *evt_start, float *vtx_z,
                           float *vtx_err, int *vtx_ntrk, float chi2cut, float t0, int nevt) {
    __shared__ float s_w[VTX_BLOCK];
    __shared__ float s_wz[VTX_BLOCK];
    __shared__ float s_z;
    __shared__ int s_n;
    int ev = blockIdx.x;
    int tid = threadIdx.x;
    if (ev >= nevt) return;
    int first = evt_start[ev];
    int last = evt_start[ev + 1];
    if (tid == 0) s_n = 0;
    float T = t0;
    for (int it = 0; it <= VTX_NITER; it++) {
        float sw = 0.0f;
        float swz = 0.0f;
        for (int k = first + tid; k < last; k += blockDim.x) {
            float z = trk_z[k];
            float s = trk_sz[k];
            float w = 1.0f / (s * s);
            if (it > 0) {
                float chi2 = (z - s_z) * (z - s_z) * w;
                w = w / (1.0f + expf((chi2 - chi2cut) / (2.0f * T)));
            }
            sw += w;
            swz += w * z;
        }
        s_w[tid] = sw;
        s_wz[tid] = swz;
        __syncthreads();
        for (int st = blockDim.x / 2; st > 0; st >>= 1) {
            if (tid < st) {
                s_w[tid] += s_w[tid + st];
                s_wz[tid] += s_wz[tid + st];
            }
            __syncthreads();
        }
        if (tid == 0) s_z = s_wz[0] / s_w[0];
        __syncthreads();
        if (it > 0) T = fmaxf(0.5f * T, 1.0f);
    }
    // the tracks compatible with the vertex
    int cnt = 0;
    for (int k = first + tid; k < last; k += blockDim.x) {
        float d = (trk_z[k] - s_z) / trk_sz[k];
        if (d * d < chi2cut) cnt++;
    }
    if (cnt > 0) atomicAdd(&s_n, cnt);
    __syncthreads();
    if (tid == 0) {
        vtx_z[ev] = s_z;
        vtx_err[ev] = 1.0f / sqrtf(s_w[0]);
        vtx_ntrk[ev] = s_n;
    }
}

__global__ void trigger_select(const float *jet_pt, const int *njet, const float *met, int *sel, float *sel_ht,
                               int *nsel, float jet_thr, float ht_cut, float lead_cut, float met_cut, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    bool pass = false;
    float ht = 0.0f;
    if (i < n) {
        int nj = njet[i];
        int nhard = 0;
        for (int j = 0; j < nj; j++) {
            float pt = jet_pt[i * TRIG_MAXJ + j];
            ht += pt;
            if (pt > jet_thr) nhard++;
        }
        float lead = nj > 0 ? jet_pt[i * TRIG_MAXJ] : 0.0f;
        pass = (nhard >= 4 && ht > ht_cut) || lead > lead_cut || met[i] > met_cut;
    }
    unsigned int ballot = __ballot_sync(0xffffffff, pass);
    int base = 0;
    if (lane == 0 && ballot != 0) base = atomicAdd(nsel, __popc(ballot));
    base = __shfl_sync(0xffffffff, base, 0);
    if (pass) {
        int pos = base + __popc(ballot & ((1u << lane) - 1));
        sel[pos] = i;
        sel_ht[pos] = ht;
    }
}

__global__ void antikt_nn(const float *p_pt, const float *p_eta, const float *p_phi, const int *npart, int *nn,
                          float *dmin, float R, int nevt) {
    __shared__ float s_inv[JET_MAXP];
    __shared__ float s_eta[JET_MAXP];
    __shared__ float s_phi[JET_MAXP];
    int ev = blockIdx.x;
    int i = threadIdx.x;
    if (ev >= nevt) return;
    int np = npart[ev];
    if (i < np) {
        float pt = p_pt[ev * JET_MAXP + i];
        s_inv[i] = 1.0f / (pt * pt);
        s_eta[i] = p_eta[ev * JET_MAXP + i];
        s_phi[i] = p_phi[ev * JET_MAXP + i];
    }
    __syncthreads();
    if (i >= np) return;
    float inv_i = s_inv[i];
    float eta_i = s_eta[i];
    float phi_i = s_phi[i];
    float R2 = R * R;
    float best = inv_i;
    int bestj = -1;
    for (int j = 0; j < np; j++) {
        if (j == i) continue;
        float deta = eta_i - s_eta[j];
        float dphi = fabsf(phi_i - s_phi[j]);
        if (dphi > PI_F) dphi = TWO_PI - dphi;
        float d = fminf(inv_i, s_inv[j]) * (deta * deta + dphi * dphi) / R2;
        if (d < best) {
            best = d;
            bestj = j;
        }
    }
    nn[ev * JET_MAXP + i] = bestj;
    dmin[ev * JET_MAXP + i] = best;
}

}
