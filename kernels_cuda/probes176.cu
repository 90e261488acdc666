// probe-unseen174: a mass-spectrometry proteomics course's CUDA assignments, as a student
// who knows CUDA basics hands them in. Sequences are capital one-letter amino-acid codes
// (bytes), residue masses monoisotopic (Da) with cysteine carbamidomethylated:
//  - psm_xcorr: peptide-spectrum matching, a thread a candidate (peptide, spectrum) pair:
//    the peptide's singly charged b and y fragment-ion ladder from the residue masses in
//    __constant__ memory, each ion's m/z binned as Comet does (1.0005079 Da bins, offset
//    0.4) and gathered from the candidate's preprocessed spectrum, their sum (times 0.005)
//    the fast XCorr and the ions landing on a positive bin counted;
//  - precursor_window: the precursor-mass window search of a spectrum, a thread a spectrum:
//    its neutral mass from the precursor m/z and charge (double), and for each isotope error
//    0 .. PW_NISO - 1 (the instrument picking a 13C peak) the range of a mass-sorted peptide
//    database within ppm of it, by two binary searches (a lower and an upper bound);
//  - xcorr_preprocess: SEQUEST/Comet's XCorr preprocessing of binned MS/MS spectra, a block a
//    spectrum held in shared memory: square-rooted intensities, the maxima of 10 windows by
//    shared atomicMax (the floats' bits), peaks under 5% of the base peak dropped and the
//    rest scaled to 50 in their window, then the fast-XCorr background subtraction (each
//    bin less the mean of the 150 bins about it);
//  - tryptic_digest: in-silico tryptic digestion of a protein database, a thread a protein:
//    cleavage after K or R unless before P, up to TD_MAXMC missed cleavages (the last
//    fragments' starts and masses in per-thread rings), the peptides of TD_MINLEN ..
//    TD_MAXLEN residues and TD_MINMASS .. TD_MAXMASS Da written as Peptide structs to slots
//    taken from one global counter by atomicAdd;
//  - isotope_score: isotope-envelope scoring of MS1 centroids, a thread a peak taken as a
//    monoisotopic peak: for charges 1 .. IS_MAXZ the averagine isotope pattern of its mass
//    (the convolution of the C, H, N, O, S binomials, each pmf from lgammaf) against the
//    intensities found at the next isotopes' m/z (a forward scan of the spectrum's sorted
//    peaks within IS_PPM), the cosine of the best charge kept;
//  - psm_histogram: the target-decoy bookkeeping of a search's PSMs, a thread a PSM: its
//    XCorr binned into a target or decoy score histogram by shared-memory atomicAdd (merged
//    into the global one by atomicAdd a non-empty bin), the targets over the threshold
//    counted into their protein's spectral count by global atomicAdd and into the total by
//    __ballot_sync, __popc and an atomicAdd a warp (blocks of SC_BLOCK).

#define PROTON 1.00727646688f          // Da
#define WATER 18.0105646863f
#define PROTON_D 1.00727646688         // precursor_window's in double
#define C13_DIFF_D 1.0033548378        // 13C - 12C
#define C13_DIFF 1.0033548378f
#define XC_BINS 2048                   // bins of a binned spectrum (fragment m/z up to ~2049)
#define XC_BIN_WIDTH 1.0005079f        // Comet's fragment_bin_tol
#define XC_BIN_OFFSET 0.6f             // 1 - fragment_bin_offset (0.4)
#define PW_NISO 4                      // precursor_window: isotope errors 0 .. 3
#define XP_NWIN 10                     // xcorr_preprocess: normalisation windows
#define XP_WIN (XC_BINS / XP_NWIN + 1) // their width, 205 bins
#define XP_OFFSET 75                   // the background's half-width (bins)
#define TD_MAXMC 2                     // tryptic_digest: missed cleavages
#define TD_MINLEN 7
#define TD_MAXLEN 30
#define TD_MINMASS 600.0f
#define TD_MAXMASS 5000.0f
#define IS_MAXZ 4                      // isotope_score: charges tried
#define IS_NPEAKS 6                    // isotope peaks compared
#define IS_PPM 10.0f                   // m/z tolerance of an isotope peak
#define AVG_MASS 111.1254f             // the averagine residue's mass
#define SC_BINS 512                    // psm_histogram: bins of each score histogram
#define SC_BLOCK 1024                  // its blockDim.x

struct Peptide {
    int protein;                       // its protein's index
    int start;                         // its first residue in the protein
    int len;
    float mass;                        // neutral monoisotopic mass (residues + water)
};

// residue masses by letter - 'A' (0 for the letters that are no amino acid; set by the host)
__constant__ float c_aa_mass[26];
// isotope_score's averagine: C, H, N, O, S atoms per averagine residue, each element's heavy
// isotope abundance (13C, 2H, 15N, 18O, 34S) and its mass shift in isotope peaks (set by the host)
__constant__ float c_avg_atoms[5];
__constant__ float c_heavy_p[5];
__constant__ int c_heavy_shift[5];

// the log of the binomial probability of k heavy atoms among nt (an averagine count, not
// an integer) of heavy-isotope abundance p
__device__ float log_binom(float nt, float p, int k) {
    return lgammaf(nt + 1.0f) - lgammaf(k + 1.0f) - lgammaf(nt - k + 1.0f) + k * logf(p) + (nt - k) * logf(1.0f - p);
}

extern "C" {

// candidate c: peptide cand_pep[c] (residues seq[off[p]] .. seq[off[p + 1] - 1]) against
// spectrum cand_spec[c] (XC_BINS preprocessed bins of spec): xcorr[c] = 0.005 * the sum of
// the bins of its b and y ions, matched[c] the ions on a positive bin
__global__ void psm_xcorr(const unsigned char *seq, const int *off, const int *cand_pep, const int *cand_spec,
                          const float *spec, float *xcorr, int *matched, int n) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;
    int p = cand_pep[c];
    const float *sp = spec + (size_t)cand_spec[c] * XC_BINS;
    int b0 = off[p];
    int len = off[p + 1] - b0;
    float total = WATER + 2.0f * PROTON;            // [M + 2H]: a b ion plus its complementary y ion
    for (int i = 0; i < len; i++) total += c_aa_mass[seq[b0 + i] - 'A'];
    float b = PROTON;
    float sum = 0.0f;
    int hits = 0;
    for (int i = 0; i < len - 1; i++) {
        b += c_aa_mass[seq[b0 + i] - 'A'];
        float y = total - b;
        int bb = (int)(b / XC_BIN_WIDTH + XC_BIN_OFFSET);
        int yb = (int)(y / XC_BIN_WIDTH + XC_BIN_OFFSET);
        if (bb < XC_BINS) {
            float v = sp[bb];
            sum += v;
            if (v > 0.0f) hits++;
        }
        if (yb < XC_BINS) {
            float v = sp[yb];
            sum += v;
            if (v > 0.0f) hits++;
        }
    }
    xcorr[c] = 0.005f * sum;
    matched[c] = hits;
}

// spectrum s (precursor m/z prec_mz[s], charge[s]) against npep peptide masses sorted
// ascending: for isotope error k, the peptides of mass within ppm of M - k C13 are
// first[s * PW_NISO + k] .. last[s * PW_NISO + k] - 1
__global__ void precursor_window(const double *pep_mass, int npep, const double *prec_mz, const int *charge,
                                 int *first, int *last, double ppm, int n) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n) return;
    double M = (prec_mz[s] - PROTON_D) * charge[s];
    for (int k = 0; k < PW_NISO; k++) {
        double m = M - k * C13_DIFF_D;
        double tol = m * ppm * 1e-6;
        double lo = m - tol;
        double hi = m + tol;
        int a = 0;
        int b = npep;
        while (a < b) {                             // the first mass >= lo
            int mid = (a + b) / 2;
            if (pep_mass[mid] < lo) a = mid + 1;
            else b = mid;
        }
        first[s * PW_NISO + k] = a;
        b = npep;
        while (a < b) {                             // the first mass > hi
            int mid = (a + b) / 2;
            if (pep_mass[mid] <= hi) a = mid + 1;
            else b = mid;
        }
        last[s * PW_NISO + k] = a;
    }
}

// spectrum blockIdx.x's XC_BINS raw binned intensities (raw) preprocessed into out
__global__ void xcorr_preprocess(const float *raw, float *out) {
    __shared__ float sp[XC_BINS];
    __shared__ int wmax[XP_NWIN];                   // the windows' maxima (non-negative floats' bits)
    const float *r = raw + (size_t)blockIdx.x * XC_BINS;
    float *o = out + (size_t)blockIdx.x * XC_BINS;
    if (threadIdx.x < XP_NWIN) wmax[threadIdx.x] = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < XC_BINS; i += blockDim.x) {
        float v = sqrtf(r[i]);
        sp[i] = v;
        atomicMax(&wmax[i / XP_WIN], __float_as_int(v));
    }
    __syncthreads();
    float base = 0.0f;
    for (int w = 0; w < XP_NWIN; w++) base = fmaxf(base, __int_as_float(wmax[w]));
    for (int i = threadIdx.x; i < XC_BINS; i += blockDim.x) {
        float v = sp[i];
        sp[i] = v > 0.05f * base ? 50.0f * v / __int_as_float(wmax[i / XP_WIN]) : 0.0f;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < XC_BINS; i += blockDim.x) {
        float s = 0.0f;
        int j1 = min(i + XP_OFFSET, XC_BINS - 1);
        for (int j = max(i - XP_OFFSET, 0); j <= j1; j++) s += sp[j];
        o[i] = sp[i] - (s - sp[i]) / (2 * XP_OFFSET);
    }
}

// n proteins (residues seq[off[p]] .. seq[off[p + 1] - 1]) digested: their peptides in
// out[0 .. cap - 1] in any order, *n_out the peptides found (more than cap: some dropped)
__global__ void tryptic_digest(const unsigned char *seq, const int *off, Peptide *out, int *n_out, int cap, int n) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    int b = off[p];
    int e = off[p + 1];
    int fstart[TD_MAXMC + 1];                       // the last fragments' starts and masses, fragment f
    float fmass[TD_MAXMC + 1];                      // at f % (TD_MAXMC + 1)
    int nf = 0;
    int s = b;
    float m = 0.0f;
    for (int i = b; i < e; i++) {
        unsigned char c = seq[i];
        m += c_aa_mass[c - 'A'];
        if (i == e - 1 || ((c == 'K' || c == 'R') && seq[i + 1] != 'P')) {
            int q = nf % (TD_MAXMC + 1);
            fstart[q] = s;
            fmass[q] = m;
            // the fragment s .. i alone, then joined to the 1 .. TD_MAXMC fragments before it
            float pm = WATER;
            for (int k = 0; k <= TD_MAXMC && k <= nf; k++) {
                int f = (nf - k) % (TD_MAXMC + 1);
                pm += fmass[f];
                int len = i + 1 - fstart[f];
                if (len > TD_MAXLEN) break;
                if (len >= TD_MINLEN && pm >= TD_MINMASS && pm <= TD_MAXMASS) {
                    int slot = atomicAdd(n_out, 1);
                    if (slot < cap) {
                        Peptide pep;
                        pep.protein = p;
                        pep.start = fstart[f] - b;
                        pep.len = len;
                        pep.mass = pm;
                        out[slot] = pep;
                    }
                }
            }
            nf++;
            s = i + 1;
            m = 0.0f;
        }
    }
}

// n centroided MS1 peaks (m/z mz, intensity inten; spectrum scan[i], whose peaks, sorted by
// m/z, are off[scan[i]] .. off[scan[i] + 1] - 1): best_z[i] the charge whose averagine
// envelope from peak i best matches the peaks found (0: none with a second isotope peak),
// best_score[i] its cosine
__global__ void isotope_score(const float *mz, const float *inten, const int *scan, const int *off, int *best_z,
                              float *best_score, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = mz[i];
    int end = off[scan[i] + 1];
    float tol = x * IS_PPM * 1e-6f;
    float best = 0.0f;
    int bz = 0;
    for (int z = 1; z <= IS_MAXZ; z++) {
        // the observed envelope
        float obs[IS_NPEAKS];
        obs[0] = inten[i];
        int j = i + 1;
        for (int k = 1; k < IS_NPEAKS; k++) {
            float t = x + k * C13_DIFF / z;
            while (j < end && mz[j] < t - tol) j++;
            obs[k] = (j < end && mz[j] <= t + tol) ? inten[j] : 0.0f;
        }
        if (obs[1] <= 0.0f) continue;               // no second isotope peak: not this charge
        // the averagine pattern of the neutral mass
        float u = (x - PROTON) * z / AVG_MASS;
        float pat[IS_NPEAKS];
        pat[0] = 1.0f;
        for (int k = 1; k < IS_NPEAKS; k++) pat[k] = 0.0f;
        for (int el = 0; el < 5; el++) {
            float nt = c_avg_atoms[el] * u;
            float p = c_heavy_p[el];
            int sh = c_heavy_shift[el];
            float q[IS_NPEAKS];
            for (int k = 0; k < IS_NPEAKS; k++) q[k] = 0.0f;
            for (int k = 0; k <= nt && k * sh < IS_NPEAKS; k++) q[k * sh] = expf(log_binom(nt, p, k));
            float conv[IS_NPEAKS];
            for (int a = 0; a < IS_NPEAKS; a++) {
                float t = 0.0f;
                for (int c = 0; c <= a; c++) t += pat[c] * q[a - c];
                conv[a] = t;
            }
            for (int a = 0; a < IS_NPEAKS; a++) pat[a] = conv[a];
        }
        float dot = 0.0f;
        float pp = 0.0f;
        float oo = 0.0f;
        for (int k = 0; k < IS_NPEAKS; k++) {
            dot += pat[k] * obs[k];
            pp += pat[k] * pat[k];
            oo += obs[k] * obs[k];
        }
        float sc = dot / sqrtf(pp * oo);
        if (sc > best) {
            best = sc;
            bz = z;
        }
    }
    best_z[i] = bz;
    best_score[i] = best;
}

// n PSMs (XCorr xc, protein prot, decoy flag): hist[d * SC_BINS + b] += the PSMs of decoy flag d
// with (int)((xc - lo) * inv_w) == b (clamped to the bins), spc[prot] += the targets with
// xc >= thr, *n_pass += all of those
__global__ void psm_histogram(const float *xc, const int *prot, const unsigned char *decoy, int *hist, int *spc,
                              int *n_pass, float lo, float inv_w, float thr, int n) {
    __shared__ int h[2 * SC_BINS];
    for (int b = threadIdx.x; b < 2 * SC_BINS; b += blockDim.x) h[b] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int pass = 0;
    if (i < n) {
        float x = xc[i];
        int d = decoy[i];
        int b = (int)((x - lo) * inv_w);
        if (b < 0) b = 0;
        if (b > SC_BINS - 1) b = SC_BINS - 1;
        atomicAdd(&h[d * SC_BINS + b], 1);
        if (d == 0 && x >= thr) {
            atomicAdd(&spc[prot[i]], 1);
            pass = 1;
        }
    }
    unsigned int votes = __ballot_sync(0xffffffff, pass);
    if ((threadIdx.x & 31) == 0 && votes != 0) atomicAdd(n_pass, __popc(votes));
    __syncthreads();
    for (int b = threadIdx.x; b < 2 * SC_BINS; b += blockDim.x)
        if (h[b] > 0) atomicAdd(&hist[b], h[b]);
}

}
