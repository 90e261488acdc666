// probe-unseen221: an optimal-transport and kernel-methods machine-learning course's CUDA
// assignments, as a student who knows CUDA basics hands them in:
//  - sinkhorn_lse_rows: the row half of a log-domain Sinkhorn iteration on a dense cost
//    matrix (two 2-D Gaussian-mixture point clouds, squared distances normalised by the
//    largest): f_i = eps log a_i - eps log sum_j exp((g_j - C_ij) / eps), a block a row,
//    each thread an online log-sum-exp (running maximum and rescaled sum, in double) over
//    a strided slice of the row, then a shared-memory tree reduction of the (max, sum)
//    pairs with __syncthreads;
//  - sinkhorn_ktu: the column half of a standard-domain Sinkhorn iteration, (K^T u)_j =
//    sum_i K_ij u_i for a colour-transfer problem (K = exp(-C / eps) of two images' RGB
//    colours, stored in half precision to halve the traffic), a thread a column and a
//    block row a chunk of KTU_ROWS rows, each thread's partial sum added to the column's
//    by a global float atomicAdd;
//  - mmd_gauss: the unbiased maximum mean discrepancy of two 16-D samples with a Gaussian
//    kernel, 16 x 16 tiles of the Gram matrices (blockIdx.z: XX, YY, XY) from two tiles
//    of points in shared memory, the diagonal left out, a warp shuffle sum, the warps'
//    sums in a shared float atomicAdd and each block's in a global double atomicAdd;
//  - rff_features: random Fourier features z_k(x) = sqrt(2 / D) cos(w_k . x + b_k) of a
//    Gaussian kernel, the frequencies w and phases b in __constant__ memory, a thread a
//    (sample, feature) pair;
//  - sliced_w2: the sliced Wasserstein-2 distance between the colour distributions of
//    pairs of 32 x 32 RGBA thumbnails (8-bit struct pixels), a block a (direction, pair):
//    both images' pixels projected on a __constant__ direction into shared memory, each
//    bitonic-sorted in place (__syncthreads between the stages), the sorted projections
//    compared, a warp shuffle and shared-memory reduction;
//  - laplace_graph: the sparse Laplacian-kernel matrix exp(-|x_i - x_j|_1 / sigma) of an
//    8-D clustered data set, entries above a cutoff kept (an epsilon-neighbourhood graph
//    for kernel ridge regression / spectral clustering): a grid-stride loop over the
//    n x n pairs (the pair's row and column by shift and mask), the two points in
//    per-thread local arrays, the kept pairs compacted by __ballot_sync, __popc and one
//    global atomicAdd a warp into an array of edge structs.

#include <cuda_fp16.h>

#define LSE_THREADS 256         // sinkhorn_lse_rows: threads a block (a power of two)

#define KTU_ROWS 64             // sinkhorn_ktu: rows a block row sums

#define MMD_TILE 16             // mmd_gauss: a block's tile of pairs (MMD_TILE x MMD_TILE threads)
#define MMD_DIM 16              // the points' dimension (= MMD_TILE: a thread loads one coordinate)

#define RFF_DIM 16              // rff_features: input dimension
#define RFF_FEAT 256            // features D

#define SW_N 1024               // sliced_w2: pixels an image (32 x 32, a power of two)
#define SW_THREADS 256          // threads a block
#define SW_MAXDIR 1024          // directions at most

#define G_DIM 8                 // laplace_graph: the points' dimension

struct Rgba {
    unsigned char r, g, b, a;
};

struct Edge {
    int i, j;
    float w;
};

// rff_features: frequencies (RFF_FEAT x RFF_DIM, row-major) and phases, set by the host
__constant__ float c_w[RFF_FEAT * RFF_DIM];
__constant__ float c_b[RFF_FEAT];

// sliced_w2: unit directions in RGB space (x, y, z a direction), set by the host
__constant__ float c_dir[SW_MAXDIR * 3];

extern "C" {

// ---------------------------------------------------------------- sinkhorn_lse_rows

// C: n x m costs (row-major), g: m column potentials, loga: log of the n row weights;
// f[i] = eps * (loga[i] - log sum_j exp((g[j] - C[i][j]) / eps))
__global__ void sinkhorn_lse_rows(const float *C, const float *g, const float *loga, float *f, int n, int m,
                                  float eps) {
    __shared__ double s_max[LSE_THREADS];
    __shared__ double s_sum[LSE_THREADS];
    int i = blockIdx.x;
    int t = threadIdx.x;
    if (i >= n) return;
    double inv_eps = 1.0 / eps;
    double mx = -1.0e300;
    double s = 0.0;
    for (int j = t; j < m; j += blockDim.x) {
        double v = ((double)g[j] - (double)C[i * m + j]) * inv_eps;
        if (v > mx) {
            s = s * exp(mx - v) + 1.0;
            mx = v;
        } else {
            s += exp(v - mx);
        }
    }
    s_max[t] = mx;
    s_sum[t] = s;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
        if (t < h) {
            double m1 = s_max[t], m2 = s_max[t + h];
            double mn = fmax(m1, m2);
            s_sum[t] = s_sum[t] * exp(m1 - mn) + s_sum[t + h] * exp(m2 - mn);
            s_max[t] = mn;
        }
        __syncthreads();
    }
    if (t == 0) f[i] = (float)(eps * (loga[i] - (s_max[0] + log(s_sum[0]))));
}

// ---------------------------------------------------------------- sinkhorn_ktu

// K: n x m kernel (row-major, half), u: n row scalings; ktu[j] += sum over the block
// row's KTU_ROWS rows of K[i][j] u[i] (ktu zeroed by the host)
__global__ void sinkhorn_ktu(const __half *K, const float *u, float *ktu, int n, int m) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i0 = blockIdx.y * KTU_ROWS;
    if (j >= m) return;
    int i1 = min(i0 + KTU_ROWS, n);
    float acc = 0.0f;
    for (int i = i0; i < i1; i++) {
        acc += __half2float(K[i * m + j]) * u[i];
    }
    atomicAdd(&ktu[j], acc);
}

// ---------------------------------------------------------------- mmd_gauss

// X: n x MMD_DIM, Y: m x MMD_DIM; out[0] += sum_{i != j} k(x_i, x_j), out[1] += the same
// over Y, out[2] += sum_{i, j} k(x_i, y_j), k(a, b) = exp(-|a - b|^2 inv2s2); the grid
// covers the larger sample in both directions, blockIdx.z the Gram matrix
__global__ void mmd_gauss(const float *X, const float *Y, int n, int m, float inv2s2, double *out) {
    __shared__ float sa[MMD_TILE][MMD_DIM];
    __shared__ float sb[MMD_TILE][MMD_DIM];
    __shared__ float s_sum;
    int z = blockIdx.z;
    const float *A = (z == 1) ? Y : X;
    const float *B = (z == 0) ? X : Y;
    int na = (z == 1) ? m : n;
    int nb = (z == 0) ? n : m;
    int tx = threadIdx.x, ty = threadIdx.y;
    int a0 = blockIdx.y * MMD_TILE, b0 = blockIdx.x * MMD_TILE;
    if (a0 >= na || b0 >= nb) return;                // the whole block: outside this Gram matrix
    if (tx == 0 && ty == 0) s_sum = 0.0f;
    sa[ty][tx] = (a0 + ty < na) ? A[(a0 + ty) * MMD_DIM + tx] : 0.0f;
    sb[ty][tx] = (b0 + ty < nb) ? B[(b0 + ty) * MMD_DIM + tx] : 0.0f;
    __syncthreads();
    int i = a0 + ty, j = b0 + tx;
    float k = 0.0f;
    if (i < na && j < nb && !(z < 2 && i == j)) {
        float d2 = 0.0f;
        for (int c = 0; c < MMD_DIM; c++) {
            float d = sa[ty][c] - sb[tx][c];
            d2 += d * d;
        }
        k = expf(-d2 * inv2s2);
    }
    for (int o = 16; o > 0; o /= 2) k += __shfl_down_sync(0xffffffff, k, o);
    if ((ty * MMD_TILE + tx) % 32 == 0) atomicAdd(&s_sum, k);
    __syncthreads();
    if (tx == 0 && ty == 0) atomicAdd(&out[z], (double)s_sum);
}

// ---------------------------------------------------------------- rff_features

// X: n x RFF_DIM; Z[i][k] = scale * cos(c_w[k] . X[i] + c_b[k]), n x RFF_FEAT
__global__ void rff_features(const float *X, float *Z, int n, float scale) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n * RFF_FEAT) return;
    int i = t / RFF_FEAT;
    int k = t % RFF_FEAT;
    float dot = c_b[k];
    for (int c = 0; c < RFF_DIM; c++) {
        dot += c_w[k * RFF_DIM + c] * X[i * RFF_DIM + c];
    }
    Z[t] = scale * cosf(dot);
}

}

// ---------------------------------------------------------------- sliced_w2

// sorts s[0 .. SW_N) ascending in place, the whole block taking part
__device__ void bitonic_sort(float *s) {
    for (int k = 2; k <= SW_N; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            for (int t = threadIdx.x; t < SW_N; t += blockDim.x) {
                int p = t ^ j;
                if (p > t) {
                    bool up = ((t & k) == 0);
                    float a = s[t], b = s[p];
                    if ((a > b) == up) {
                        s[t] = b;
                        s[p] = a;
                    }
                }
            }
            __syncthreads();
        }
    }
}

extern "C" {

// src, dst: npair images of SW_N pixels each; sw[pair * nslice + l] = the mean squared
// difference of the sorted projections of pair's two images on direction l (0 .. 1 a
// channel); blockIdx.x the direction, blockIdx.y the pair
__global__ void sliced_w2(const Rgba *src, const Rgba *dst, float *sw, int nslice) {
    __shared__ float ps[SW_N];
    __shared__ float pd[SW_N];
    __shared__ float s_part[SW_THREADS / 32];
    int l = blockIdx.x;
    int pair = blockIdx.y;
    float d0 = c_dir[3 * l], d1 = c_dir[3 * l + 1], d2 = c_dir[3 * l + 2];
    const Rgba *a_img = src + pair * SW_N;
    const Rgba *b_img = dst + pair * SW_N;
    for (int t = threadIdx.x; t < SW_N; t += blockDim.x) {
        Rgba a = a_img[t];
        Rgba b = b_img[t];
        ps[t] = (a.r * d0 + a.g * d1 + a.b * d2) / 255.0f;
        pd[t] = (b.r * d0 + b.g * d1 + b.b * d2) / 255.0f;
    }
    __syncthreads();
    bitonic_sort(ps);
    bitonic_sort(pd);
    float acc = 0.0f;
    for (int t = threadIdx.x; t < SW_N; t += blockDim.x) {
        float d = ps[t] - pd[t];
        acc += d * d;
    }
    for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffff, acc, o);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) s_part[warp] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float tot = 0.0f;
        for (int w = 0; w < blockDim.x / 32; w++) tot += s_part[w];
        sw[pair * nslice + l] = tot / SW_N;
    }
}

// ---------------------------------------------------------------- laplace_graph

// X: n x G_DIM (n = 1 << logn); every pair i < j with w = exp(-|x_i - x_j|_1 inv_sigma)
// > cutoff appended to edges (slot from *count; those past cap counted, not stored)
__global__ void laplace_graph(const float *X, int n, int logn, float inv_sigma, float cutoff, Edge *edges,
                              int *count, int cap) {
    int lane = threadIdx.x % 32;
    int total = n * n;
    for (int base = blockIdx.x * blockDim.x; base < total; base += gridDim.x * blockDim.x) {
        int p = base + threadIdx.x;
        bool keep = false;
        float w = 0.0f;
        int i = p >> logn;
        int j = p & (n - 1);
        if (p < total && i < j) {
            float xi[G_DIM], xj[G_DIM];
            for (int c = 0; c < G_DIM; c++) {
                xi[c] = X[i * G_DIM + c];
                xj[c] = X[j * G_DIM + c];
            }
            float d = 0.0f;
            for (int c = 0; c < G_DIM; c++) d += fabsf(xi[c] - xj[c]);
            w = expf(-d * inv_sigma);
            keep = w > cutoff;
        }
        unsigned int mask = __ballot_sync(0xffffffff, keep);
        int slot0 = 0;
        if (lane == 0 && mask != 0) slot0 = atomicAdd(count, __popc(mask));
        slot0 = __shfl_sync(0xffffffff, slot0, 0);
        if (keep) {
            int slot = slot0 + __popc(mask & ((1u << lane) - 1));
            if (slot < cap) {
                Edge e;
                e.i = i;
                e.j = j;
                e.w = w;
                edges[slot] = e;
            }
        }
    }
}

}
