// Kernels written in session 9 to test the timing model on more course-typical code it
// was not built against (family probe-unseen8): a double-precision matrix product through
// shared tiles, one Bellman-Ford relaxation pass over a graph's edges with atomicMin, a
// double-precision Jacobi step of the 2D heat equation, a histogram of 64-bit weights
// with unsigned long long atomicAdd, a warp-per-row search for the first element above a
// threshold (__any_sync and an early break), and a transpose of doubles through a padded
// shared tile.
extern "C" {

#define DT 16
// C = A B for n x n doubles (n a multiple of DT), DT x DT tiles in shared memory
__global__ void dgemm_tiled(const double *A, const double *B, double *C, int n) {
    __shared__ double as[DT][DT], bs[DT][DT];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * DT + ty, col = blockIdx.x * DT + tx;
    double acc = 0.0;
    for (int t = 0; t < n; t += DT) {
        as[ty][tx] = A[row * n + t + tx];
        bs[ty][tx] = B[(t + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < DT; k++)
            acc += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// one Bellman-Ford pass: each edge (u, v, w) lowers dist[v] to dist[u] + w
__global__ void bellman_ford_relax(const int *src, const int *dst, const int *w, int *dist,
                                   int m) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    int du = dist[src[e]];
    if (du != 0x3fffffff) atomicMin(&dist[dst[e]], du + w[e]);
}

// one Jacobi step of the 2D heat equation on an n x n grid of doubles (edges fixed)
__global__ void heat2d_double(const double *u, double *v, int n, double r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= n - 1 || y >= n - 1) return;
    int i = y * n + x;
    v[i] = u[i] + r * (u[i - 1] + u[i + 1] + u[i - n] + u[i + n] - 4.0 * u[i]);
}

// sum of 64-bit weights per bin: 1024 bins, one unsigned long long atomicAdd a key
__global__ void hist_u64(const unsigned *keys, const unsigned *weights,
                         unsigned long long *bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[keys[i] & 1023], (unsigned long long)weights[i]);
}

// one warp a row: the first column whose value exceeds the threshold, or -1
__global__ void first_above(const float *a, int *first, int rows, int cols, float thr) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    if (warp >= rows) return;
    int found = -1;
    for (int c = lane; c < cols; c += 32) {
        int hit = a[warp * cols + c] > thr;
        unsigned m = __ballot_sync(0xffffffffu, hit);
        if (m) { found = c - lane + __ffs(m) - 1; break; }
    }
    if (lane == 0) first[warp] = found;
}

#define TT 32
// out = in^T for an n x n matrix of doubles, through a 32 x 33 shared tile
__global__ void transpose_double(const double *in, double *out, int n) {
    __shared__ double tile[TT][TT + 1];
    int x = blockIdx.x * TT + threadIdx.x, y = blockIdx.y * TT + threadIdx.y;
    for (int j = 0; j < TT; j += 8)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TT + threadIdx.x;
    y = blockIdx.x * TT + threadIdx.y;
    for (int j = 0; j < TT; j += 8)
        out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

}
