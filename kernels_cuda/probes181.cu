// probe-unseen179: a single-cell genomics / RNA-seq analysis course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//  - sc_lognorm: library-size normalisation of a CSR cell-by-gene UMI count matrix, a warp a
//    cell: the lanes sum the cell's counts (a strided loop and a __shfl_xor_sync butterfly,
//    every lane getting the library size), then write log1p(count * target / library size)
//    for each stored count (scanpy's normalize_total + log1p), the library sizes kept for QC;
//  - sc_gene_stats: per-gene statistics for highly-variable-gene selection (scanpy's "seurat"
//    flavour: mean and dispersion of expm1 of the log-normalised values), a thread a stored
//    value: the gene's sum and sum of squares by double atomicAdd and its detected-cell count
//    by int atomicAdd into the gene's column (genes Zipf-like: the commonest in every cell);
//  - sc_pca_project: the cells' scores on the first 50 principal components, the (up to
//    2000) highly-variable genes' log values scaled on the fly (the genes' means and inverse
//    standard deviations in __constant__, z-scores clipped at 10 as scanpy's scale does)
//    times the loadings, a 16 x 16 tiled matrix product with both tiles in shared memory;
//  - sc_knn_batch: one batch of a brute-force k-nearest-neighbour search in 50-d PCA space, a
//    thread a query cell with its coordinates in a per-thread array, the batch's reference
//    cells staged 128 at a time in shared memory, each query keeping its 15 smallest squared
//    distances (and their cells) by insertion into per-thread arrays carried between batches;
//  - sc_umi_dedup: UMI deduplication of aligned reads (a Read struct: corrected cell barcode
//    index, 12-mer UMI 2-bit packed, gene or -1 when unassigned), a thread a read: the
//    (cell, UMI, gene) key packed into 64 bits, hashed (murmur3's fmix64) into an
//    open-addressing table with linear probing by 64-bit atomicCAS, the first read of each
//    molecule counting it to its cell by atomicAdd and marking itself;
//  - sc_label_prop: a synchronous label-propagation step over a cell kNN graph (15
//    neighbours), a thread a cell: the neighbours' labels gathered into a per-thread array,
//    the most common one taken (ties: the cell's own label if among them, else the smallest),
//    the cells that changed counted by a shared-memory atomicAdd and one global atomicAdd a
//    block.

#define PCA_G 2000            // sc_pca_project: the most highly-variable genes
#define PCA_K 50              // principal components
#define PCA_TILE 16           // blockDim.x == blockDim.y
#define PCA_CLIP 10.0f        // z-scores clipped at this (scanpy's scale(max_value=10))
#define KNN_D 50              // sc_knn_batch: PCA dimensions
#define KNN_K 15              // neighbours kept
#define KNN_TILE 128          // reference cells staged at a time (== blockDim.x)
#define LP_K 15               // sc_label_prop: neighbours of a cell
#define UMI_EMPTY 0xffffffffffffffffULL    // sc_umi_dedup: an empty table slot

// sc_pca_project's gene scaling (set by the host): gene g's mean and 1 / standard deviation
__constant__ float c_mu[PCA_G];
__constant__ float c_isd[PCA_G];

// an aligned read after barcode correction and gene assignment
struct Read {
    int cell;             // the cell barcode's index in the whitelist
    unsigned int umi;     // the 12-mer UMI, 2 bits a base
    int gene;             // the gene it was assigned to, -1 if none (intergenic, multi-mapped)
};

extern "C" {

// ncells cells of a CSR count matrix (indptr, counts): libsize[c] = the cell's total count,
// out[j] = log1p(counts[j] * target / libsize) (a warp a cell; blockDim.x a multiple of 32)
__global__ void sc_lognorm(const int *indptr, const float *counts, float *out, float *libsize, float target,
                           int ncells) {
    int cell = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (cell >= ncells) return;
    int start = indptr[cell];
    int end = indptr[cell + 1];
    float s = 0.0f;
    for (int j = start + lane; j < end; j += 32) s += counts[j];
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffff, s, o);
    if (lane == 0) libsize[cell] = s;
    float scale = s > 0.0f ? target / s : 0.0f;
    for (int j = start + lane; j < end; j += 32) out[j] = log1pf(counts[j] * scale);
}

// nnz stored log-normalised values (data) of genes indices: gsum[g] += expm1(v), gsumsq[g] +=
// expm1(v)^2, gnnz[g] += 1 for each value v of gene g
__global__ void sc_gene_stats(const int *indices, const float *data, double *gsum, double *gsumsq, int *gnnz,
                              int nnz) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= nnz) return;
    int g = indices[j];
    double v = (double)expm1f(data[j]);
    atomicAdd(&gsum[g], v);
    atomicAdd(&gsumsq[g], v * v);
    atomicAdd(&gnnz[g], 1);
}

// scores Y (ncells x PCA_K) = clip((X - mu) * isd) W for the log values X (ncells x ngenes,
// row-major; ngenes <= PCA_G) and the loadings W (ngenes x PCA_K); blockDim PCA_TILE x
// PCA_TILE, grid (ceil(PCA_K / PCA_TILE), ceil(ncells / PCA_TILE))
__global__ void sc_pca_project(const float *X, const float *W, float *Y, int ngenes, int ncells) {
    __shared__ float xs[PCA_TILE][PCA_TILE];
    __shared__ float ws[PCA_TILE][PCA_TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * PCA_TILE + ty;      // the cell
    int col = blockIdx.x * PCA_TILE + tx;      // the component
    float acc = 0.0f;
    for (int t = 0; t < ngenes; t += PCA_TILE) {
        int g = t + tx;
        float z = 0.0f;
        if (row < ncells && g < ngenes) {
            z = (X[row * ngenes + g] - c_mu[g]) * c_isd[g];
            z = fminf(z, PCA_CLIP);
        }
        xs[ty][tx] = z;
        ws[ty][tx] = (col < PCA_K && t + ty < ngenes) ? W[(t + ty) * PCA_K + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < PCA_TILE; k++) acc += xs[ty][k] * ws[k][tx];
        __syncthreads();
    }
    if (row < ncells && col < PCA_K) Y[row * PCA_K + col] = acc;
}

// the query cells 0 .. nq - 1 of pcs (KNN_D floats a cell) against the reference cells r0 ..
// r0 + nr - 1 (a cell never its own neighbour): kdist / kidx (KNN_K a query, ascending; FLT_MAX
// / -1 before the first batch) updated to the KNN_K smallest squared distances so far
// (blockDim.x == KNN_TILE)
__global__ void sc_knn_batch(const float *pcs, float *kdist, int *kidx, int r0, int nr, int nq) {
    __shared__ float ref[KNN_TILE][KNN_D];
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    float x[KNN_D];
    float bd[KNN_K];
    int bi[KNN_K];
    if (q < nq) {
        for (int d = 0; d < KNN_D; d++) x[d] = pcs[q * KNN_D + d];
        for (int k = 0; k < KNN_K; k++) {
            bd[k] = kdist[q * KNN_K + k];
            bi[k] = kidx[q * KNN_K + k];
        }
    }
    for (int t = 0; t < nr; t += KNN_TILE) {
        for (int e = threadIdx.x; e < KNN_TILE * KNN_D; e += blockDim.x) {
            int j = e / KNN_D;
            int d = e % KNN_D;
            ref[j][d] = t + j < nr ? pcs[(r0 + t + j) * KNN_D + d] : 0.0f;
        }
        __syncthreads();
        if (q < nq) {
            int m = min(KNN_TILE, nr - t);
            for (int j = 0; j < m; j++) {
                int id = r0 + t + j;
                if (id == q) continue;
                float d2 = 0.0f;
                for (int d = 0; d < KNN_D; d++) {
                    float df = x[d] - ref[j][d];
                    d2 += df * df;
                }
                if (d2 < bd[KNN_K - 1]) {
                    int p = KNN_K - 1;
                    while (p > 0 && bd[p - 1] > d2) {
                        bd[p] = bd[p - 1];
                        bi[p] = bi[p - 1];
                        p--;
                    }
                    bd[p] = d2;
                    bi[p] = id;
                }
            }
        }
        __syncthreads();
    }
    if (q < nq) {
        for (int k = 0; k < KNN_K; k++) {
            kdist[q * KNN_K + k] = bd[k];
            kidx[q * KNN_K + k] = bi[k];
        }
    }
}

// murmur3's 64-bit finaliser
__device__ unsigned long long fmix64(unsigned long long k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

// n reads into the table (mask + 1 slots, a power of two, UMI_EMPTY when empty): each distinct
// (cell, umi, gene) key stored once; umis[cell] += 1 and first[i] = 1 for the read that stored
// it, first[i] = 0 for the others (duplicates, unassigned reads)
__global__ void sc_umi_dedup(const Read *reads, unsigned long long *table, unsigned int mask, int *umis,
                             unsigned char *first, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Read r = reads[i];
    unsigned char isnew = 0;
    if (r.gene >= 0) {
        unsigned long long key = ((unsigned long long)r.cell << 40) | ((unsigned long long)r.umi << 16) |
                                 (unsigned long long)r.gene;
        unsigned int slot = (unsigned int)fmix64(key) & mask;
        while (true) {
            unsigned long long old = atomicCAS(&table[slot], UMI_EMPTY, key);
            if (old == UMI_EMPTY) {
                isnew = 1;
                atomicAdd(&umis[r.cell], 1);
                break;
            }
            if (old == key) break;                 // a PCR duplicate of a stored molecule
            slot = (slot + 1) & mask;
        }
    }
    first[i] = isnew;
}

// one step of label propagation over n cells with LP_K neighbours each (nbr, row-major):
// label2[i] = the most common label among the neighbours' (ties: label[i] if among them,
// else the smallest); *changed += the cells whose label changed
__global__ void sc_label_prop(const int *nbr, const int *label, int *label2, int *changed, int n) {
    __shared__ int nchanged;
    if (threadIdx.x == 0) nchanged = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int lab[LP_K];
        for (int k = 0; k < LP_K; k++) lab[k] = label[nbr[i * LP_K + k]];
        int cur = label[i];
        int best = cur;
        int bestc = 0;
        for (int a = 0; a < LP_K; a++)
            if (lab[a] == cur) bestc++;
        for (int a = 0; a < LP_K; a++) {
            int c = 0;
            for (int b = 0; b < LP_K; b++)
                if (lab[b] == lab[a]) c++;
            if (c > bestc || (c == bestc && best != cur && lab[a] < best)) {
                best = lab[a];
                bestc = c;
            }
        }
        label2[i] = best;
        if (best != cur) atomicAdd(&nchanged, 1);
    }
    __syncthreads();
    if (threadIdx.x == 0 && nchanged > 0) atomicAdd(changed, nchanged);
}

}
