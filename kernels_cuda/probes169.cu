// probe-unseen167: a phylogenetics / molecular evolution course's CUDA assignments, as a student
// who knows CUDA basics hands them in:
//  - felsenstein_k80g: Felsenstein's pruning algorithm on a fixed 32-taxon rooted tree (its
//    post-order children and branch lengths in __constant__), a thread an alignment column,
//    under K80 with 4 discrete-gamma rate categories: every thread computes each branch's K80
//    transition probabilities (the 3 distinct entries) from the branch length (2 expf) and
//    applies them to the child's vector, the leaves' vectors from the bases
//    (gaps/N all ones), the internal nodes' partials in a per-thread [31][4] array, each node
//    rescaled by its largest entry and the logs summed (the textbook guard against underflow),
//    the categories' likelihoods combined by log-sum-exp;
//  - fitch_bitsliced: Fitch parsimony scores of candidate trees (an NNI neighbourhood) of 64
//    taxa, bit-sliced: each taxon's alignment as 4 bit planes (A C G T; 32 sites a word, a gap
//    all four), a thread a word of a tree (blockIdx.y the tree): the post-order pass with the
//    internal nodes' state sets in a per-thread array, the changes counted by __popc, summed
//    by a warp shuffle and an atomicAdd a warp into the tree's score;
//  - k2p_packed: the Kimura 2-parameter distance matrix of aligned genomes packed 16 bases a
//    word (2 bits a base, word-major), a thread a pair (2-D blocks, the pairs above the
//    diagonal): transitions and transversions counted by XOR, masks and __popc, two logf,
//    both triangles written;
//  - bootstrap_weights: Felsenstein's nonparametric bootstrap of alignment columns, a block a
//    replicate: each thread draws columns with its own xorshift32 stream and counts their site
//    patterns in a shared-memory histogram by atomicAdd (the constant columns' few patterns
//    drawn most), the replicate's pattern weights written out;
//  - nj_qmin: one neighbour-joining step: each row's Q-matrix minimum and its column over the
//    active nodes, a block a row: a strided pass over the distance row, then a warp-shuffle
//    (value, index) min reduction and one across the warps through shared memory;
//  - lnl_sum: the alignment's log likelihood from the site patterns' conditional likelihoods
//    at the root (4 rate categories x 4 states a pattern, scaled, with a log scale factor),
//    each pattern's log likelihood in double (stationary frequencies and category weights in
//    __constant__) stored, weighted by the pattern's count and summed by a shared-memory tree
//    reduction in double, an atomicAdd a block.

#define FL_NTAX 32              // felsenstein_k80g: taxa (leaves 0 .. FL_NTAX - 1)
#define FL_NINT (FL_NTAX - 1)   // internal nodes, node FL_NTAX + k; the root the last
#define FL_NCAT 4               // gamma rate categories, equally likely
#define FI_NTAX 64              // fitch_bitsliced: taxa
#define FI_NINT (FI_NTAX - 1)   // internal nodes a tree
#define BS_MAXPAT 8192          // bootstrap_weights: the most site patterns (32 KB of shared counts)
#define NJ_THREADS 256          // nj_qmin: blockDim.x
#define LS_NCAT 4               // lnl_sum: rate categories
#define LS_THREADS 256          // lnl_sum: blockDim.x

// felsenstein_k80g's tree (set by the host): internal node FL_NTAX + k's children c_left[k] and
// c_right[k] (smaller node numbers), node v's branch length (expected substitutions) c_blen[v]
__constant__ int c_left[FL_NINT];
__constant__ int c_right[FL_NINT];
__constant__ float c_blen[2 * FL_NTAX - 2];
__constant__ float c_rate[FL_NCAT];      // the categories' relative rates (mean 1)
// lnl_sum's model (set by the host): stationary base frequencies and the categories' weights
__constant__ double c_pi[4];
__constant__ double c_catw[LS_NCAT];

extern "C" {

// lnl[p]: the log likelihood of alignment column p of n (aln taxon-major bytes, 0 .. 3 = A C G T,
// anything else a gap or N) on c_left / c_right / c_blen under K80 (transition / transversion
// rate ratio kappa) with FL_NCAT equally likely rate categories c_rate
__global__ void felsenstein_k80g(const unsigned char *aln, float *lnl, float kappa, int n) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    float beta = 1.0f / (kappa + 2.0f);      // transversion rate, one substitution per unit time
    float alpha = kappa * beta;              // transition rate
    float part[FL_NINT][4];
    float lnc[FL_NCAT];
    for (int c = 0; c < FL_NCAT; c++) {
        float lnscale = 0.0f;
        for (int k = 0; k < FL_NINT; k++) {
            float prod[4] = {1.0f, 1.0f, 1.0f, 1.0f};
            for (int side = 0; side < 2; side++) {
                int ch = side == 0 ? c_left[k] : c_right[k];
                float d = c_blen[ch] * c_rate[c];
                float e1 = expf(-4.0f * beta * d);
                float e2 = expf(-2.0f * (alpha + beta) * d);
                // K80: P(x -> x) = ps, to its transition partner (A-G, C-T) pt, to either
                // transversion pv
                float ps = 0.25f + 0.25f * e1 + 0.5f * e2;
                float pt = 0.25f + 0.25f * e1 - 0.5f * e2;
                float pv = 0.25f - 0.25f * e1;
                float v[4];
                if (ch < FL_NTAX) {
                    int b = aln[ch * n + p];
                    for (int s = 0; s < 4; s++) v[s] = (b > 3 || b == s) ? 1.0f : 0.0f;
                } else {
                    for (int s = 0; s < 4; s++) v[s] = part[ch - FL_NTAX][s];
                }
                prod[0] *= ps * v[0] + pt * v[2] + pv * (v[1] + v[3]);     // A
                prod[1] *= ps * v[1] + pt * v[3] + pv * (v[0] + v[2]);     // C
                prod[2] *= ps * v[2] + pt * v[0] + pv * (v[1] + v[3]);     // G
                prod[3] *= ps * v[3] + pt * v[1] + pv * (v[0] + v[2]);     // T
            }
            float m = fmaxf(fmaxf(prod[0], prod[1]), fmaxf(prod[2], prod[3]));
            for (int s = 0; s < 4; s++) part[k][s] = prod[s] / m;
            lnscale += logf(m);
        }
        float *root = part[FL_NINT - 1];
        lnc[c] = lnscale + logf(0.25f * (root[0] + root[1] + root[2] + root[3]));
    }
    float mx = lnc[0];
    for (int c = 1; c < FL_NCAT; c++) mx = fmaxf(mx, lnc[c]);
    float s = 0.0f;
    for (int c = 0; c < FL_NCAT; c++) s += expf(lnc[c] - mx);
    lnl[p] = mx + logf(s / FL_NCAT);
}

// score[blockIdx.y] += the Fitch parsimony changes of tree blockIdx.y (trees: FI_NINT (left, right)
// child pairs a tree in post-order, internal node k being node FI_NTAX + k) over 32 nwords sites:
// bits holds taxon t's base-b plane at (t * 4 + b) * nwords (bit i of word w set if site 32 w + i
// may be b: a gap or N all four, as the padding); blockDim.x a multiple of 32
__global__ void fitch_bitsliced(const unsigned int *bits, const int *trees, int *score, int nwords) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int tree = blockIdx.y;
    const int *tr = trees + tree * FI_NINT * 2;
    int changes = 0;
    if (w < nwords) {
        unsigned int st[FI_NINT][4];
        for (int k = 0; k < FI_NINT; k++) {
            int a = tr[2 * k];
            int b = tr[2 * k + 1];
            unsigned int x[4], y[4];
            if (a < FI_NTAX) {
                for (int s = 0; s < 4; s++) x[s] = bits[(a * 4 + s) * nwords + w];
            } else {
                for (int s = 0; s < 4; s++) x[s] = st[a - FI_NTAX][s];
            }
            if (b < FI_NTAX) {
                for (int s = 0; s < 4; s++) y[s] = bits[(b * 4 + s) * nwords + w];
            } else {
                for (int s = 0; s < 4; s++) y[s] = st[b - FI_NTAX][s];
            }
            unsigned int any = 0;
            for (int s = 0; s < 4; s++) {
                st[k][s] = x[s] & y[s];
                any |= st[k][s];
            }
            unsigned int none = ~any;            // sites where the children's sets do not meet
            for (int s = 0; s < 4; s++) st[k][s] |= none & (x[s] | y[s]);
            changes += __popc(none);
        }
    }
    for (int o = 16; o > 0; o >>= 1) changes += __shfl_down_sync(0xffffffff, changes, o);
    if ((threadIdx.x & 31) == 0 && changes > 0) atomicAdd(&score[tree], changes);
}

// the Kimura 2-parameter distances of n genomes of nsites aligned sites packed 16 bases a word
// (A C G T = 0 1 2 3, base i of a word in bits 2 i and 2 i + 1), word-major: word k of genome j at
// k * n + j; a thread a pair i = y < j = x: dist[i * n + j] and dist[j * n + i] the distance, -1
// where it is undefined (saturated)
__global__ void k2p_packed(const unsigned int *seq, float *dist, int n, int nwords, int nsites) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n || j <= i) return;
    int ts = 0;
    int tv = 0;
    for (int k = 0; k < nwords; k++) {
        unsigned int x = seq[k * n + i] ^ seq[k * n + j];
        unsigned int lo = x & 0x55555555u;            // the low bits differ: a transversion
        unsigned int hi = (x >> 1) & 0x55555555u;     // only the high bit: a transition (A-G, C-T)
        tv += __popc(lo);
        ts += __popc(hi & ~lo);
    }
    float P = (float)ts / nsites;
    float Q = (float)tv / nsites;
    float w1 = 1.0f - 2.0f * P - Q;
    float w2 = 1.0f - 2.0f * Q;
    float d = -1.0f;
    if (w1 > 0.0f && w2 > 0.0f) d = -0.5f * logf(w1) - 0.25f * logf(w2);
    dist[i * n + j] = d;
    dist[j * n + i] = d;
}

// replicate blockIdx.x of a nonparametric bootstrap of ncols alignment columns (colpat: each
// column's site pattern, npat <= BS_MAXPAT of them): ncols columns drawn with replacement, each
// thread from its own xorshift32 stream (seeded from seed, the replicate and the thread);
// weights[rep * npat + q] the times pattern q was drawn
__global__ void bootstrap_weights(const int *colpat, int *weights, int ncols, int npat, unsigned int seed) {
    __shared__ int cnt[BS_MAXPAT];
    int rep = blockIdx.x;
    for (int q = threadIdx.x; q < npat; q += blockDim.x) cnt[q] = 0;
    __syncthreads();
    unsigned int s = seed ^ ((unsigned int)(rep * blockDim.x + threadIdx.x + 1) * 2654435761u);
    if (s == 0) s = 1;
    for (int d = threadIdx.x; d < ncols; d += blockDim.x) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        int col = (int)(s % (unsigned int)ncols);
        atomicAdd(&cnt[colpat[col]], 1);
    }
    __syncthreads();
    for (int q = threadIdx.x; q < npat; q += blockDim.x) weights[rep * npat + q] = cnt[q];
}

// one neighbour-joining step over n node slots (D: row-major distances; R[i] the sum of node i's
// distances to the r active nodes; active[i] 0 for the slots already joined): Q(i, j) = (r - 2)
// D(i, j) - R[i] - R[j] over the active j != i, a block of NJ_THREADS a row i: qmin[i] the
// smallest Q(i, j), qarg[i] its j (the lowest of a tie); FLT_MAX and -1 for a joined row
__global__ void nj_qmin(const float *D, const float *R, const unsigned char *active, float *qmin, int *qarg,
                        int n, int r) {
    __shared__ float sv[NJ_THREADS / 32];
    __shared__ int sj[NJ_THREADS / 32];
    int i = blockIdx.x;
    if (!active[i]) {
        if (threadIdx.x == 0) {
            qmin[i] = FLT_MAX;
            qarg[i] = -1;
        }
        return;
    }
    float Ri = R[i];
    float f = (float)(r - 2);
    float best = FLT_MAX;
    int bj = -1;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        if (j == i || !active[j]) continue;
        float q = f * D[i * n + j] - Ri - R[j];
        if (q < best) {
            best = q;
            bj = j;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float ov = __shfl_down_sync(0xffffffff, best, o);
        int oj = __shfl_down_sync(0xffffffff, bj, o);
        if (ov < best || (ov == best && oj < bj)) {
            best = ov;
            bj = oj;
        }
    }
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    if (lane == 0) {
        sv[warp] = best;
        sj[warp] = bj;
    }
    __syncthreads();
    if (warp == 0) {
        best = lane < NJ_THREADS / 32 ? sv[lane] : FLT_MAX;
        bj = lane < NJ_THREADS / 32 ? sj[lane] : -1;
        for (int o = 16; o > 0; o >>= 1) {
            float ov = __shfl_down_sync(0xffffffff, best, o);
            int oj = __shfl_down_sync(0xffffffff, bj, o);
            if (ov < best || (ov == best && oj < bj)) {
                best = ov;
                bj = oj;
            }
        }
        if (lane == 0) {
            qmin[i] = best;
            qarg[i] = bj;
        }
    }
}

// the log likelihood of an alignment from its n site patterns' conditional likelihoods at the root
// (partial: LS_NCAT categories x 4 states a pattern, pattern-major; lnscale[p] the pattern's log
// scale factor; wgt[p] the columns with the pattern): site_lnl[p] the pattern's log likelihood,
// *total += the block's sum of wgt[p] site_lnl[p], reduced in double in shared memory (blockDim.x
// == LS_THREADS)
__global__ void lnl_sum(const float *partial, const float *lnscale, const int *wgt, float *site_lnl,
                        double *total, int n) {
    __shared__ double sh[LS_THREADS];
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    double v = 0.0;
    if (p < n) {
        double L = 0.0;
        for (int c = 0; c < LS_NCAT; c++) {
            double Lc = 0.0;
            for (int s = 0; s < 4; s++) Lc += c_pi[s] * partial[(p * LS_NCAT + c) * 4 + s];
            L += c_catw[c] * Lc;
        }
        double l = log(L) + lnscale[p];
        site_lnl[p] = (float)l;
        v = wgt[p] * l;
    }
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(total, sh[0]);
}

}
