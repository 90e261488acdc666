// probe-unseen46 (session 33): more of what CUDA course exercises ask for, in forms no
// probe had tried: the naive sum (every thread an atomicAdd on the one float), a rank
// (enumeration) sort of 1024 keys a block (each key counts the keys below it in shared
// memory, broadcast reads), the "ripple" animation frame of CUDA by Example (sqrtf, cosf
// and a division a pixel, uchar4 stores), a gradient magnitude of a 3-D volume by 8 x 8 x 4
// blocks on a 3-D grid, a gather through an index array (a column-major walk of a
// row-major matrix) by __ldg through const __restrict__ pointers, and piecewise-linear
// interpolation whose segment is found by a linear scan of a shared table that breaks at
// the first breakpoint above x (trip counts set by the data). Predicted before their first
// GPU run.

extern "C" {

// *sum += x[i] for every i < n, an atomicAdd a thread on the one float (a first reduction)
__global__ void atomic_sum_naive(const float *x, float *sum, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(sum, x[i]);
}

#define RS_N 1024

// each block's 1024 keys of in (padded with INT_MAX past n) sorted into the same 1024
// places of out by rank: the keys in shared memory, a block of 256 threads, four keys a
// thread, each key's rank the count of keys smaller or equal and earlier (1024 broadcast
// reads a key)
__global__ void rank_sort1024(const int *in, int *out, int n) {
    __shared__ int k[RS_N];
    int base = blockIdx.x * RS_N, t = threadIdx.x;
    for (int j = t; j < RS_N; j += blockDim.x) k[j] = base + j < n ? in[base + j] : 0x7fffffff;
    __syncthreads();
    for (int i = t; i < RS_N; i += blockDim.x) {
        int v = k[i], r = 0;
        for (int j = 0; j < RS_N; ++j) {
            int w = k[j];
            r += (w < v) | (w == v && j < i);
        }
        if (base + i < n) out[base + r] = v;
    }
}

// CUDA by Example's ripple: pixel (x, y) of the dim x dim uchar4 image gets the grey
// 128 + 127 cos(d / 10 - ticks / 7) / (d / 10 + 1), d its distance from the centre
__global__ void ripple(uchar4 *img, int dim, int ticks) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dim || y >= dim) return;
    float fx = (float)(x - dim / 2), fy = (float)(y - dim / 2);
    float d = sqrtf(fx * fx + fy * fy);
    unsigned char grey = (unsigned char)(128.0f + 127.0f * cosf(d / 10.0f - ticks / 7.0f) / (d / 10.0f + 1.0f));
    img[(size_t)y * dim + x] = make_uchar4(grey, grey, grey, 255);
}

// out = |grad u| for the n^3 volume u (x fastest, then y, then z) by central differences,
// one-sided on the faces (a division by the distance, 1 or 2): a thread a voxel, blocks of
// 8 x 8 x 4 threads on a 3-D grid
__global__ void grad3d_mag(const float *u, float *out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= n || y >= n || z >= n) return;
    size_t sy = (size_t)n, sz = (size_t)n * n, c = z * sz + y * sy + x;
    int xm = max(x - 1, 0), xp = min(x + 1, n - 1);
    int ym = max(y - 1, 0), yp = min(y + 1, n - 1);
    int zm = max(z - 1, 0), zp = min(z + 1, n - 1);
    float gx = (u[c + (xp - x)] - u[c - (x - xm)]) / (float)(xp - xm);
    float gy = (u[c + (yp - y) * sy] - u[c - (y - ym) * sy]) / (float)(yp - ym);
    float gz = (u[c + (zp - z) * sz] - u[c - (z - zm) * sz]) / (float)(zp - zm);
    out[c] = sqrtf(gx * gx + gy * gy + gz * gz);
}

// out[i] = in[idx[i]], both loads by __ldg through const __restrict__ pointers; idx the
// column-major walk of a row-major matrix (idx[i] = (i % rows) * cols + i / rows), so a
// warp's 32 loads of in touch 32 rows
__global__ void gather_ldg(const float *__restrict__ in, const int *__restrict__ idx,
                           float *__restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __ldg(&in[__ldg(&idx[i])]);
}

#define IS_K 256

// y[i] = the piecewise-linear function through (xs[k], ys[k]), k < 256, xs increasing, at
// x[i], clamped to the end values: the table in shared memory, the segment found by a
// linear scan that breaks at the first breakpoint above x[i] (as many trips as the
// segment's index)
__global__ void interp_scan(const float *xs, const float *ys, const float *x, float *y, int n) {
    __shared__ float sx[IS_K], sy[IS_K];
    for (int j = threadIdx.x; j < IS_K; j += blockDim.x) { sx[j] = xs[j]; sy[j] = ys[j]; }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    int k = 0;
    for (; k < IS_K; ++k)
        if (v < sx[k]) break;
    float r;
    if (k == 0) r = sy[0];
    else if (k == IS_K) r = sy[IS_K - 1];
    else {
        float f = (v - sx[k - 1]) / (sx[k] - sx[k - 1]);
        r = sy[k - 1] + f * (sy[k] - sy[k - 1]);
    }
    y[i] = r;
}

}
