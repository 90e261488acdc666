// probe-unseen119: a population-genetics / phylogenetics course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - felsenstein_sites: Felsenstein's pruning algorithm on a fixed 16-taxon rooted tree, a
//    thread an alignment column: the leaves' partial likelihoods from the bases (taxon-major
//    alignment, 0..3 = A C G T, anything else a gap/N: all ones), then the 15 internal
//    nodes in post-order (children and each branch's 4 x 4 GTR transition matrix in
//    __constant__ memory), the partials in a per-thread [31][4] array, the site's log
//    likelihood under the stationary frequencies stored (16 taxa do not underflow a float);
//  - wright_fisher: Wright-Fisher drift with genic selection, a thread a locus: WF_GENS
//    generations of binomial sampling of WF_2N gene copies (a Bernoulli draw a copy from a
//    per-thread xorshift32 generator) at the selected frequency p (1 + s) / (1 + s p), the
//    locus leaving the loop once the allele is lost or fixed; the final count and the
//    generation it was lost/fixed at (-1 still segregating) stored;
//  - sfs_hist: the unfolded site-frequency spectrum of SFS_NIND diploid individuals
//    (genotypes 0/1/2 derived alleles a byte, 3 missing; individual-major), a thread a site:
//    the derived-allele count into a shared-memory histogram by atomicAdd (sites with a
//    missing genotype counted apart), the block's histogram added to the global one;
//  - pdistance: the pairwise p-distance and Jukes-Cantor distance matrices of nseq aligned
//    sequences (a byte a base, > 3 a gap/N skipped pairwise), 16 x 16 blocks of pairs, the
//    two 16-sequence tiles staged in shared memory PD_CHUNK columns at a time;
//  - rell_bootstrap: RELL bootstrap support of RELL_TREES candidate trees, a thread a
//    replicate: nsites columns drawn with replacement by a hash, each draw adding the
//    column's per-tree log likelihoods (site-major) to the replicate's sums; the sums
//    stored and the best tree's support counted by a global atomicAdd;
//  - allele_freq_stats: allele-frequency summaries of FST_POPS populations, a thread a SNP:
//    derived counts and called gene copies a population (population-major, unsigned
//    short), the pooled frequency, the expected heterozygosity H_T and Nei's G_ST =
//    (H_T - H_S) / H_T, monomorphic SNPs written as 0.

#define NTAX 16               // felsenstein_sites: taxa (leaves 0..NTAX-1, internal NTAX..)
#define NNODE (2 * NTAX - 1)  // the tree's nodes, the root NNODE - 1
#define WF_2N 64              // wright_fisher: gene copies (2N) a generation
#define WF_GENS 40            // wright_fisher: generations simulated
#define SFS_NIND 64           // sfs_hist: diploid individuals
#define SFS_BINS (2 * SFS_NIND + 1)
#define PD_TILE 16            // pdistance: sequences a tile (blockDim 16 x 16)
#define PD_CHUNK 64           // pdistance: alignment columns staged at a time
#define RELL_TREES 4          // rell_bootstrap: candidate trees
#define FST_POPS 8            // allele_freq_stats: populations

// felsenstein_sites' tree (set by the host): internal node NTAX + k's children c_left[k],
// c_right[k] (k in post-order), the branch above node v's transition matrix
// c_P[v * 16 + from * 4 + to], the stationary base frequencies
__constant__ int c_left[NTAX - 1];
__constant__ int c_right[NTAX - 1];
__constant__ float c_P[(NNODE - 1) * 16];
__constant__ float c_pi[4];

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

// per-site log likelihoods of a taxon-major alignment (aln[t * nsites + s]) on the tree
__global__ void felsenstein_sites(const unsigned char *aln, float *site_lnl, int nsites) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nsites) return;
    float L[NNODE][4];
    for (int t = 0; t < NTAX; t++) {
        unsigned char b = aln[t * nsites + s];
        for (int x = 0; x < 4; x++) L[t][x] = (b > 3 || b == x) ? 1.0f : 0.0f;
    }
    for (int k = 0; k < NTAX - 1; k++) {
        int a = c_left[k];
        int c = c_right[k];
        int v = NTAX + k;
        for (int x = 0; x < 4; x++) {
            float sa = 0.0f;
            float sc = 0.0f;
            for (int y = 0; y < 4; y++) {
                sa += c_P[a * 16 + x * 4 + y] * L[a][y];
                sc += c_P[c * 16 + x * 4 + y] * L[c][y];
            }
            L[v][x] = sa * sc;
        }
    }
    float lk = 0.0f;
    for (int x = 0; x < 4; x++) lk += c_pi[x] * L[NNODE - 1][x];
    site_lnl[s] = logf(lk);
}

// WF_GENS generations of Wright-Fisher sampling of nloci loci with selection coefficients
// sel[i] from count0[i] copies of WF_2N; the generator seeded by hash(seed ^ i * golden)
__global__ void wright_fisher(const int *count0, const float *sel, int *count_out, int *fix_gen,
                              unsigned int seed, int nloci) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nloci) return;
    int c = count0[i];
    float s = sel[i];
    unsigned int state = hash32(seed ^ ((unsigned int)i * 0x9E3779B9u));
    if (state == 0) state = 1;
    int fixed = -1;
    for (int g = 0; g < WF_GENS; g++) {
        if (c == 0 || c == WF_2N) {
            fixed = g;
            break;
        }
        float p = (float)c / WF_2N;
        float w = p * (1.0f + s) / (1.0f + s * p);
        int next = 0;
        for (int k = 0; k < WF_2N; k++) {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            float u = (state >> 8) * (1.0f / 16777216.0f);
            if (u < w) next++;
        }
        c = next;
    }
    if (fixed < 0 && (c == 0 || c == WF_2N)) fixed = WF_GENS;
    count_out[i] = c;
    fix_gen[i] = fixed;
}

// the unfolded SFS of nsites sites (geno[j * nsites + s], individual j's genotype at s)
// added into sfs[SFS_BINS]; sites with a missing genotype counted in *n_missing
__global__ void sfs_hist(const unsigned char *geno, unsigned int *sfs, unsigned int *n_missing, int nsites) {
    __shared__ unsigned int hist[SFS_BINS];
    __shared__ unsigned int miss;
    for (int k = threadIdx.x; k < SFS_BINS; k += blockDim.x) hist[k] = 0;
    if (threadIdx.x == 0) miss = 0;
    __syncthreads();
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < nsites) {
        int dac = 0;
        bool missing = false;
        for (int j = 0; j < SFS_NIND; j++) {
            unsigned char g = geno[j * nsites + s];
            if (g > 2)
                missing = true;
            else
                dac += g;
        }
        if (missing)
            atomicAdd(&miss, 1u);
        else
            atomicAdd(&hist[dac], 1u);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < SFS_BINS; k += blockDim.x)
        if (hist[k] > 0) atomicAdd(&sfs[k], hist[k]);
    if (threadIdx.x == 0 && miss > 0) atomicAdd(n_missing, miss);
}

// p-distances and JC69 distances of nseq sequences of len bases (seqs[i * len + c]): the
// pair (i, j) at dist[i * nseq + j]; columns with a gap/N in either skipped; a pair with
// no column compared gets -1, a p-distance >= 0.75 a JC distance of 10
__global__ void pdistance(const unsigned char *seqs, float *pdist, float *jcdist, int nseq, int len) {
    __shared__ unsigned char sa[PD_TILE][PD_CHUNK];
    __shared__ unsigned char sb[PD_TILE][PD_CHUNK];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int i = blockIdx.y * PD_TILE + ty;
    int j = blockIdx.x * PD_TILE + tx;
    int t = ty * PD_TILE + tx;
    int diff = 0;
    int valid = 0;
    for (int base = 0; base < len; base += PD_CHUNK) {
        for (int k = t; k < PD_TILE * PD_CHUNK; k += PD_TILE * PD_TILE) {
            int r = k / PD_CHUNK;
            int col = base + k % PD_CHUNK;
            int ra = blockIdx.y * PD_TILE + r;
            int rb = blockIdx.x * PD_TILE + r;
            sa[r][k % PD_CHUNK] = (ra < nseq && col < len) ? seqs[ra * len + col] : 4;
            sb[r][k % PD_CHUNK] = (rb < nseq && col < len) ? seqs[rb * len + col] : 4;
        }
        __syncthreads();
        for (int c = 0; c < PD_CHUNK; c++) {
            unsigned char a = sa[ty][c];
            unsigned char b = sb[tx][c];
            if (a < 4 && b < 4) {
                valid++;
                if (a != b) diff++;
            }
        }
        __syncthreads();
    }
    if (i < nseq && j < nseq) {
        float p = valid > 0 ? (float)diff / valid : -1.0f;
        float d;
        if (p < 0.0f)
            d = -1.0f;
        else if (p >= 0.75f)
            d = 10.0f;
        else
            d = -0.75f * logf(1.0f - 4.0f / 3.0f * p);
        pdist[i * nseq + j] = p;
        jcdist[i * nseq + j] = d;
    }
}

// nrep RELL bootstrap replicates of nsites columns: replicate b's draw k the column
// hash(seed + b * nsites + k) % nsites; site_lnl site-major (site_lnl[s * RELL_TREES + t]);
// the replicates' sums at rep_lnl[b * RELL_TREES + t], support[t] the replicates tree t wins
// (the first of the largest sums)
__global__ void rell_bootstrap(const float *site_lnl, float *rep_lnl, int *support, int nsites, unsigned int seed,
                               int nrep) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nrep) return;
    float sum[RELL_TREES];
    for (int t = 0; t < RELL_TREES; t++) sum[t] = 0.0f;
    for (int k = 0; k < nsites; k++) {
        unsigned int h = hash32(seed + (unsigned int)b * nsites + k);
        int s = h % nsites;
        for (int t = 0; t < RELL_TREES; t++) sum[t] += site_lnl[s * RELL_TREES + t];
    }
    int best = 0;
    for (int t = 1; t < RELL_TREES; t++)
        if (sum[t] > sum[best]) best = t;
    for (int t = 0; t < RELL_TREES; t++) rep_lnl[b * RELL_TREES + t] = sum[t];
    atomicAdd(&support[best], 1);
}

// per-SNP summaries of FST_POPS populations (dac[k * nsnp + i] derived copies, ncalled[k *
// nsnp + i] called copies of population k at SNP i; populations with fewer than 2 copies
// left out): the pooled derived frequency p, H_T = 2 p (1 - p) and G_ST = (H_T - H_S) /
// H_T, H_S the mean of the populations' 2 p_k (1 - p_k); a monomorphic SNP (or one with
// no population of 2 copies) gets H_T = G_ST = 0
__global__ void allele_freq_stats(const unsigned short *dac, const unsigned short *ncalled, float *p_pool,
                                  float *h_tot, float *gst, int nsnp) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nsnp) return;
    int d_sum = 0;
    int n_sum = 0;
    float hs = 0.0f;
    int npop = 0;
    for (int k = 0; k < FST_POPS; k++) {
        int n = ncalled[k * nsnp + i];
        int d = dac[k * nsnp + i];
        if (n >= 2) {
            float pk = (float)d / n;
            hs += 2.0f * pk * (1.0f - pk);
            d_sum += d;
            n_sum += n;
            npop++;
        }
    }
    if (npop == 0 || d_sum == 0 || d_sum == n_sum) {
        p_pool[i] = npop > 0 ? (float)d_sum / n_sum : 0.0f;
        h_tot[i] = 0.0f;
        gst[i] = 0.0f;
        return;
    }
    float p = (float)d_sum / n_sum;
    float ht = 2.0f * p * (1.0f - p);
    hs = hs / npop;
    p_pool[i] = p;
    h_tot[i] = ht;
    gst[i] = (ht - hs) / ht;
}

}
