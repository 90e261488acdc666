// probe-unseen45 (session 33): what CUDA course exercises most often ask for, in forms no
// probe had tried: a tiled product of rectangular matrices (M, N, K no multiples of the
// tile) through non-square 16 x 32 and 32 x 16 shared tiles, a 256-bin byte histogram
// with a private sub-histogram a warp in shared memory, a 7x7 convolution with its filter
// in __constant__ memory by input tiles (a 16 x 16 block loads its tile and halo, its
// inner 10 x 10 threads compute), Harris's first reduction (interleaved addressing by
// tid % (2 s): divergent warps and an integer remainder a step), a matrix-vector product
// a block a row with a shared-memory tree, and 16 time steps of the 1-D heat equation in
// one launch by temporal blocking in shared memory (ping-pong buffers, a barrier a step).
// Predicted before their first GPU run.

extern "C" {

#define MR_T 16
#define MR_K 32

// C (M x N) = A (M x K) B (K x N), all row-major: a 16 x 16 block an output tile, K in
// steps of 32 through shared tiles As[16][32] and Bs[32][16], two loads of each a thread
// (zeros past the matrices' edges)
__global__ void matmul_rect(const float *A, const float *B, float *C, int M, int N, int K) {
    __shared__ float As[MR_T][MR_K];
    __shared__ float Bs[MR_K][MR_T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * MR_T + ty, col = blockIdx.x * MR_T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += MR_K) {
        int ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = row < M && ka < K ? A[(size_t)row * K + ka] : 0.0f;
        As[ty][tx + MR_T] = row < M && ka + MR_T < K ? A[(size_t)row * K + ka + MR_T] : 0.0f;
        Bs[ty][tx] = kb < K && col < N ? B[(size_t)kb * N + col] : 0.0f;
        Bs[ty + MR_T][tx] = kb + MR_T < K && col < N ? B[(size_t)(kb + MR_T) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < MR_K; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

#define HW_BINS 256
#define HW_WARPS 8

// bins[b] += how many of the 4 * nwords bytes (read four at a time as unsigned words)
// equal b: each warp of the block of 256 counts into its own 256-bin copy in shared
// memory by atomicAdd, then the block sums its 8 copies bin by bin and adds each nonzero
// total to bins by one global atomicAdd
__global__ void hist256_warp_private(const unsigned *data, int nwords, unsigned *bins) {
    __shared__ unsigned h[HW_WARPS][HW_BINS];
    for (int b = threadIdx.x; b < HW_WARPS * HW_BINS; b += blockDim.x) h[b / HW_BINS][b % HW_BINS] = 0u;
    __syncthreads();
    unsigned *mine = h[threadIdx.x >> 5];
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += blockDim.x * gridDim.x) {
        unsigned w = data[i];
        atomicAdd(&mine[w & 0xffu], 1u);
        atomicAdd(&mine[(w >> 8) & 0xffu], 1u);
        atomicAdd(&mine[(w >> 16) & 0xffu], 1u);
        atomicAdd(&mine[w >> 24], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < HW_BINS; b += blockDim.x) {
        unsigned s = 0u;
        for (int w = 0; w < HW_WARPS; ++w) s += h[w][b];
        if (s) atomicAdd(&bins[b], s);
    }
}

#define CV_IN 16
#define CV_R 3
#define CV_OUT (CV_IN - 2 * CV_R)

__constant__ float c_filt7[49];

// out(x, y) = sum over dy, dx in [0, 7) of c_filt7[7 dy + dx] in(x + dx - 3, y + dy - 3),
// zeros outside the w x h image: a 16 x 16 block loads a 16 x 16 input tile (a 10 x 10
// output tile and its 3-pixel halo) into shared memory, then its inner 10 x 10 threads
// compute an output each while the other 156 wait
__global__ void conv7x7_tiled(const float *in, float *out, int w, int h) {
    __shared__ float tile[CV_IN][CV_IN];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * CV_OUT + tx - CV_R, y = blockIdx.y * CV_OUT + ty - CV_R;
    tile[ty][tx] = x >= 0 && x < w && y >= 0 && y < h ? in[(size_t)y * w + x] : 0.0f;
    __syncthreads();
    int ox = x + CV_R, oy = y + CV_R;
    if (tx >= CV_OUT || ty >= CV_OUT || ox >= w || oy >= h) return;
    float s = 0.0f;
#pragma unroll
    for (int dy = 0; dy < 7; ++dy)
#pragma unroll
        for (int dx = 0; dx < 7; ++dx) s += c_filt7[dy * 7 + dx] * tile[ty + dy][tx + dx];
    out[(size_t)oy * w + ox] = s;
}

// sums[b] = the sum of block b's 256 ints (zeros past n) by Harris's first reduction:
// interleaved addressing, at step s the threads whose index is a multiple of 2 s add
// s[tid + s] (an unsigned remainder a step, warps divergent from the first step on)
__global__ void reduce_modulo(const int *in, int *sums, int n) {
    __shared__ int s[256];
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = i < (unsigned)n ? in[i] : 0;
    __syncthreads();
    for (unsigned st = 1; st < blockDim.x; st *= 2) {
        if (tid % (2 * st) == 0) s[tid] += s[tid + st];
        __syncthreads();
    }
    if (tid == 0) sums[blockIdx.x] = s[0];
}

// y[r] = row r of the row-major rows x cols matrix A dotted with x: a block of 256 a row,
// each thread the columns t, t + 256, ..., then a tree in shared memory
__global__ void gemv_block_row(const float *A, const float *x, float *y, int cols) {
    __shared__ float part[256];
    int r = blockIdx.x, t = threadIdx.x;
    const float *row = A + (size_t)r * cols;
    float s = 0.0f;
    for (int c = t; c < cols; c += blockDim.x) s += row[c] * x[c];
    part[t] = s;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (t < h) part[t] += part[t + h];
        __syncthreads();
    }
    if (t == 0) y[r] = part[0];
}

#define HT_STEPS 16
#define HT_TILE 256

// out = u after 16 explicit steps u[i] += r (u[i-1] - 2 u[i] + u[i+1]) of the 1-D heat
// equation on n cells with zeros held beyond both ends, in one launch: a block of 256
// loads 256 cells (its 224 outputs and 16 more a side) into shared memory and steps them
// there, ping-pong between two buffers with a barrier a step (the tile's valid part
// shrinks by a cell a side a step)
__global__ void heat1d_multistep(const float *u, float *out, int n, float r) {
    __shared__ float buf[2][HT_TILE];
    int t = threadIdx.x, g = blockIdx.x * (HT_TILE - 2 * HT_STEPS) + t - HT_STEPS;
    bool inside = g >= 0 && g < n;
    buf[0][t] = inside ? u[g] : 0.0f;
    __syncthreads();
    int src = 0;
    for (int step = 0; step < HT_STEPS; ++step) {
        float c = buf[src][t], v = c;
        if (inside && t > 0 && t < HT_TILE - 1)
            v = c + r * (buf[src][t - 1] - 2.0f * c + buf[src][t + 1]);
        buf[1 - src][t] = v;
        src = 1 - src;
        __syncthreads();
    }
    if (inside && t >= HT_STEPS && t < HT_TILE - HT_STEPS) out[g] = buf[src][t];
}

}
