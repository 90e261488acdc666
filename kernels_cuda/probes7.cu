// Kernels written in session 8 to test the timing model on more course-typical code it
// was not built against (family probe-unseen6): a Monte Carlo estimate of pi (an integer
// random-number loop per thread, a shuffle reduction and one atomic a warp), a Sobel
// filter on a byte image, one pass of a radix sort's digit count (16 shared counters a
// block), a vector's squared norm in double precision (a shared tree and one double
// atomic a block), one level of a breadth-first search over a graph in CSR form
// (Harish and Narayanan: a thread a vertex), and one step k of Floyd-Warshall.
extern "C" {

// each thread draws iters points in the unit square with its own xorshift32 generator
// and counts those inside the quarter circle; a warp adds its counts with shuffles
__global__ void monte_carlo_pi(int *hits, unsigned seed, int iters) {
    unsigned x = seed ^ ((blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u);
    if (x == 0) x = 1;
    int in = 0;
    for (int k = 0; k < iters; k++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        float u = (x & 0xffffff) * (1.0f / 16777216.0f);
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        float v = (x & 0xffffff) * (1.0f / 16777216.0f);
        if (u * u + v * v <= 1.0f) in++;
    }
    for (int off = 16; off > 0; off >>= 1)
        in += __shfl_down_sync(0xffffffffu, in, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(hits, in);
}

// gradient magnitude |gx| + |gy| of a w x h grey image, saturated to 255; 0 on the border
__global__ void sobel_u8(const unsigned char *in, unsigned char *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[y * w + x] = 0;
        return;
    }
    const unsigned char *r0 = in + (y - 1) * w + x, *r1 = in + y * w + x, *r2 = in + (y + 1) * w + x;
    int gx = -r0[-1] + r0[1] - 2 * r1[-1] + 2 * r1[1] - r2[-1] + r2[1];
    int gy = -r0[-1] - 2 * r0[0] - r0[1] + r2[-1] + 2 * r2[0] + r2[1];
    int m = abs(gx) + abs(gy);
    out[y * w + x] = (unsigned char)min(m, 255);
}

#define RADIX_T 256
// one pass of an LSD radix sort: each block counts the 4-bit digit (key >> shift) & 15
// of its keys in 16 shared counters and writes them to counts[block][16]
__global__ void radix_count(const unsigned *keys, int *counts, int n, int shift) {
    __shared__ int c[16];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 16) c[threadIdx.x] = 0;
    __syncthreads();
    if (i < n) atomicAdd(&c[(keys[i] >> shift) & 15], 1);
    __syncthreads();
    if (threadIdx.x < 16) counts[blockIdx.x * 16 + threadIdx.x] = c[threadIdx.x];
}

#define NORM_T 256
// sum of x[i]^2 in double precision: a shared tree per block, one atomicAdd a block
__global__ void norm2_double(const double *x, double *out, int n) {
    __shared__ double s[NORM_T];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v = i < n ? x[i] : 0.0;
    s[threadIdx.x] = v * v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

// one BFS level: each vertex of the frontier visits its neighbours; those not visited yet
// get the next level's cost and join the next frontier (every writer of a word writes the
// same value)
__global__ void bfs_level(const int *row_ptr, const int *cols, int *frontier, int *next,
                          const int *visited, int *cost, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !frontier[v]) return;
    frontier[v] = 0;
    int c = cost[v] + 1;
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; e++) {
        int u = cols[e];
        if (!visited[u]) {
            cost[u] = c;
            next[u] = 1;
        }
    }
}

// step k of Floyd-Warshall on an n x n distance matrix
__global__ void floyd_step(int *d, int n, int k) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    int via = d[i * n + k] + d[k * n + j];
    if (via < d[i * n + j]) d[i * n + j] = via;
}

}
