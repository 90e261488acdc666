// probe-unseen99: a statistics / data-science course's CUDA assignments, as a student who
// knows CUDA basics hands them in. The random kernels seed a per-thread xorshift32
// generator with Thomas Wang's integer hash of (seed ^ thread id), so a run can be
// replayed on the host.
//
//  - bootstrap_means: nonparametric bootstrap of a sample's mean and standard deviation,
//    a thread a replicate: m draws with replacement (xorshift32 % m, a random gather from
//    the small data array), the replicate's mean and SD stored.
//  - kde_gauss: a Gaussian kernel density estimate on a regular grid, a thread a grid
//    point: the samples staged through shared memory a tile of KDE_TILE at a time, an
//    expf a (grid point, sample) pair.
//  - pearson_pairs: the sums a Pearson correlation matrix needs (sum x, sum y, sum x^2,
//    sum y^2, sum xy) of every pair of the columns of a column-major table, blockIdx.y a
//    pair (decoded from the pair number), a grid-stride loop over the rows, the block's
//    sums reduced by warp shuffles and shared memory and atomicAdded to global.
//  - hist_shared: the histogram behind quantiles (the host walks its CDF), HIST_BINS
//    equal bins over [lo, lo + HIST_BINS / inv_w), the ends clamped, privatized in shared
//    memory (shared atomicAdd) with a grid-stride loop, then one global atomicAdd per
//    nonzero bin a block.
//  - knn1d_sorted: the distance to the KNN_K-th nearest neighbour (the k-NN density
//    estimate's radius) of 1-D queries among sorted reference values, a thread a query:
//    a binary search of the global array (dependent random loads), then KNN_K steps of a
//    two-sided merge outwards.
//  - perm_test: a two-sample permutation test of the difference in means, a thread a
//    permutation: the pooled sample in shared memory, a partial Fisher-Yates shuffle of a
//    local index array picks group A (n1 of PERM_N), the statistic stored and the
//    permutations at least as extreme as the observed one counted by a global atomicAdd.

#define KDE_TILE 256          // kde_gauss: samples a shared tile (blockDim.x == KDE_TILE)
#define CORR_BLOCK 256        // pearson_pairs: blockDim.x == CORR_BLOCK
#define HIST_BINS 1024        // hist_shared: bins
#define KNN_K 8               // knn1d_sorted: the neighbour whose distance is kept
#define PERM_N 128            // perm_test: the pooled sample's size (n1 + n2)

extern "C" {

// Thomas Wang's 32-bit integer hash: seeds the per-thread generators
__device__ unsigned int wang_hash(unsigned int s) {
    s = (s ^ 61u) ^ (s >> 16);
    s *= 9u;
    s = s ^ (s >> 4);
    s *= 0x27d4eb2du;
    s = s ^ (s >> 15);
    return s;
}

// Marsaglia's xorshift32: advances *state and returns it
__device__ unsigned int xorshift32(unsigned int *state) {
    unsigned int x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

// nboot bootstrap replicates of the sample data[0 .. m): replicate b draws m indices
// xorshift32 % m from the state wang_hash(seed ^ b); its mean and SD (n - 1) stored
__global__ void bootstrap_means(const float *data, int m, float *means, float *sds, unsigned int seed, int nboot) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nboot) return;
    unsigned int state = wang_hash(seed ^ (unsigned int)b);
    float sum = 0.0f;
    float sumsq = 0.0f;
    for (int k = 0; k < m; k++) {
        unsigned int r = xorshift32(&state);
        float v = data[r % m];
        sum += v;
        sumsq += v * v;
    }
    means[b] = sum / m;
    float var = (sumsq - sum * sum / m) / (m - 1);
    sds[b] = sqrtf(fmaxf(var, 0.0f));
}

// the Gaussian KDE of the nx samples x at the ng grid points lo + g * step: dens[g] =
// norm * sum_j exp(-((grid_g - x_j) * inv_h)^2 / 2), norm = 1 / (nx h sqrt(2 pi))
__global__ void kde_gauss(const float *x, int nx, float *dens, float lo, float step, float inv_h, float norm,
                          int ng) {
    __shared__ float sx[KDE_TILE];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    float gx = lo + g * step;
    float sum = 0.0f;
    for (int t = 0; t < nx; t += KDE_TILE) {
        int j = t + threadIdx.x;
        if (j < nx) sx[threadIdx.x] = x[j];
        __syncthreads();
        int cnt = min(KDE_TILE, nx - t);
        for (int k = 0; k < cnt; k++) {
            float u = (gx - sx[k]) * inv_h;
            sum += expf(-0.5f * u * u);
        }
        __syncthreads();
    }
    if (g < ng) dens[g] = sum * norm;
}

// the correlation sums of the column pair p = blockIdx.y (pairs j < k in order (0,1),
// (0,2), .., (ncol-2, ncol-1)) of the column-major n x ncol table X: sums[5p ..] +=
// sum x_j, sum x_k, sum x_j^2, sum x_k^2, sum x_j x_k
__global__ void pearson_pairs(const float *X, int n, int ncol, float *sums) {
    __shared__ float part[5][CORR_BLOCK / 32];
    int p = blockIdx.y;
    int j = 0;
    int r = p;
    while (r >= ncol - 1 - j) {
        r -= ncol - 1 - j;
        j++;
    }
    int k = j + 1 + r;
    const float *a = X + j * n;
    const float *b = X + k * n;
    float sa = 0.0f, sb = 0.0f, saa = 0.0f, sbb = 0.0f, sab = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float va = a[i];
        float vb = b[i];
        sa += va;
        sb += vb;
        saa += va * va;
        sbb += vb * vb;
        sab += va * vb;
    }
    for (int o = 16; o > 0; o >>= 1) {
        sa += __shfl_down_sync(0xffffffff, sa, o);
        sb += __shfl_down_sync(0xffffffff, sb, o);
        saa += __shfl_down_sync(0xffffffff, saa, o);
        sbb += __shfl_down_sync(0xffffffff, sbb, o);
        sab += __shfl_down_sync(0xffffffff, sab, o);
    }
    int lane = threadIdx.x % 32;
    int w = threadIdx.x / 32;
    if (lane == 0) {
        part[0][w] = sa;
        part[1][w] = sb;
        part[2][w] = saa;
        part[3][w] = sbb;
        part[4][w] = sab;
    }
    __syncthreads();
    if (threadIdx.x < 5) {
        float t = 0.0f;
        for (int q = 0; q < CORR_BLOCK / 32; q++) t += part[threadIdx.x][q];
        atomicAdd(&sums[p * 5 + threadIdx.x], t);
    }
}

// the histogram of the n values x in HIST_BINS bins of width 1 / inv_w from lo (values
// below in bin 0, above in the last), a shared copy a block, then added to hist
__global__ void hist_shared(const float *x, int n, float lo, float inv_w, unsigned int *hist) {
    __shared__ unsigned int sh[HIST_BINS];
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) sh[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int b = (int)((x[i] - lo) * inv_w);
        if (b < 0) b = 0;
        if (b >= HIST_BINS) b = HIST_BINS - 1;
        atomicAdd(&sh[b], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) {
        if (sh[b] > 0) atomicAdd(&hist[b], sh[b]);
    }
}

// the k-NN density estimate's distances: for each of the nq queries qs[q], the distance
// to its KNN_K-th nearest of the nr reference values r (sorted ascending): a binary search
// for the first r[i] >= x, then KNN_K steps merging outwards (the nearer side first, the
// left on a tie)
__global__ void knn1d_sorted(const float *r, int nr, const float *qs, int nq, float *kdist) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    float x = qs[q];
    int lo = 0;
    int hi = nr;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (r[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    int L = lo - 1;
    int R = lo;
    float d = 0.0f;
    for (int k = 0; k < KNN_K; k++) {
        float dl = (L >= 0) ? x - r[L] : FLT_MAX;
        float dr = (R < nr) ? r[R] - x : FLT_MAX;
        if (dl <= dr) {
            d = dl;
            L--;
        } else {
            d = dr;
            R++;
        }
    }
    kdist[q] = d;
}

// nperm permutations of the pooled sample (PERM_N values, the first n1 group A's in the
// data): permutation p shuffles the first n1 places of an index array (Fisher-Yates, j =
// i + xorshift32 % (PERM_N - i), the state wang_hash(seed ^ p)), its statistic mean(A) -
// mean(B) stored and counted in *count when |stat| >= |obs|
__global__ void perm_test(const float *pooled, int n1, float total, float obs, unsigned int seed, float *stats,
                          unsigned int *count, int nperm) {
    __shared__ float s[PERM_N];
    for (int i = threadIdx.x; i < PERM_N; i += blockDim.x) s[i] = pooled[i];
    __syncthreads();
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= nperm) return;
    unsigned int state = wang_hash(seed ^ (unsigned int)p);
    int idx[PERM_N];
    for (int i = 0; i < PERM_N; i++) idx[i] = i;
    float sa = 0.0f;
    for (int i = 0; i < n1; i++) {
        int j = i + xorshift32(&state) % (PERM_N - i);
        int t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
        sa += s[idx[i]];
    }
    float stat = sa / n1 - (total - sa) / (PERM_N - n1);
    stats[p] = stat;
    if (fabsf(stat) >= fabsf(obs)) atomicAdd(count, 1u);
}

}
