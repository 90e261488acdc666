// probe-unseen12 (session 12): memory touched at random, at sizes around and beyond L2.
// Written after the model learned "tables touched at random" (docs/timing.md), to test it
// on kernels it was not calibrated on.
extern "C" {

// out[i] = in[perm[i]]: a random permutation, each element read once
__global__ void permute_gather(const float *in, const int *perm, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[perm[i]];
}

// out[perm[i]] = in[i]: each element written once, at random
__global__ void permute_scatter(const float *in, const int *perm, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[perm[i]] = in[i];
}

// a histogram with many bins (a power of two): few collisions, a wide table
__global__ void hist_wide(const unsigned *keys, unsigned *bins, unsigned mask, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[keys[i] & mask], 1u);
}

// an embedding bag: each block sums `bag` rows of `dim` floats picked by ids
__global__ void embed_bag(const float *table, const int *ids, float *out, int dim, int bag) {
    int row = blockIdx.x, t = threadIdx.x;
    float acc = 0.0f;
    for (int j = 0; j < bag; j++)
        acc += table[(long long)ids[row * bag + j] * dim + t];
    out[row * dim + t] = acc;
}

// y = A x, a thread per row of a CSR matrix whose columns are random over a wide x
__global__ void spmv_random_cols(const int *rowptr, const int *cols, const float *vals,
                                 const float *x, float *y, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (int k = rowptr[r]; k < rowptr[r + 1]; k++)
        s += vals[k] * x[cols[k]];
    y[r] = s;
}

// each thread follows `steps` links of a random cycle: dependent random loads
__global__ void chase_many(const int *next, int *out, int steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int p = i;
    for (int s = 0; s < steps; s++) p = next[p];
    out[i] = p;
}

}
