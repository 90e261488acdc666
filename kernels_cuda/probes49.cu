// probe-unseen47 (session 33): more of what CUDA courses and samples have students write,
// in forms no probe had tried: a 32 x 32-tile matrix product (an inner dimension an eighth
// of the outer ones) by 32 x 8 blocks, each thread four outputs down a column (thread
// coarsening, A read by broadcast), a sparse
// matrix-vector product in PMPP's JDS format (rows sorted by length, jagged diagonals
// stored column by column, results scattered through the permutation), histogram
// equalization applied to bytes through a 256-entry table built in shared memory from the
// cumulative histogram (bank conflicts set by the data), the fast Walsh-Hadamard transform
// of 1024 floats a block in shared memory by NVIDIA's radix-4 butterflies (2- and 4-way
// bank conflicts in the last stages), a switch on threadIdx.x % 4 sending the four lanes
// of each group down four different loops (intra-warp divergence), and NVIDIA's
// simpleAtomicIntrinsics at scale: nine kinds of atomics by every thread on nine words.
// Predicted before their first GPU run.

extern "C" {

#define MC_T 32
#define MC_R 8

// C (n x n) = A (n x k) B (k x n), all row-major, n and k multiples of 32: a 32 x 8 block
// a 32 x 32 output tile, the thread (tx, ty) its column tx in rows ty, ty + 8, ty + 16 and
// ty + 24; k in steps of 32 through shared tiles As and Bs, four loads of each a thread a
// step, As read by broadcast, Bs by rows
__global__ void matmul_t32_rows4(const float *A, const float *B, float *C, int n, int k) {
    __shared__ float As[MC_T][MC_T];
    __shared__ float Bs[MC_T][MC_T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * MC_T + ty, col = blockIdx.x * MC_T + tx;
    float c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f;
    for (int k0 = 0; k0 < k; k0 += MC_T) {
        for (int j = 0; j < MC_T; j += MC_R) {
            As[ty + j][tx] = A[(size_t)(row + j) * k + k0 + tx];
            Bs[ty + j][tx] = B[(size_t)(k0 + ty + j) * n + col];
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < MC_T; ++kk) {
            float b = Bs[kk][tx];
            c0 += As[ty][kk] * b;
            c1 += As[ty + MC_R][kk] * b;
            c2 += As[ty + 2 * MC_R][kk] * b;
            c3 += As[ty + 3 * MC_R][kk] * b;
        }
        __syncthreads();
    }
    C[(size_t)row * n + col] = c0;
    C[(size_t)(row + MC_R) * n + col] = c1;
    C[(size_t)(row + 2 * MC_R) * n + col] = c2;
    C[(size_t)(row + 3 * MC_R) * n + col] = c3;
}

// y = A x for A in JDS format (PMPP): the rows sorted by decreasing length (perm[r] the
// original index of sorted row r), jagged diagonal d holding the d-th nonzero of every
// sorted row that has one at jd_ptr[d] + r (cols, vals); a thread a sorted row walks the
// diagonals while diagonal d still reaches its row, then stores y[perm[r]]
__global__ void spmv_jds(const int *jd_ptr, const int *perm, const int *cols, const float *vals,
                         const float *x, float *y, int rows, int ndiag) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (int d = 0; d < ndiag && jd_ptr[d + 1] - jd_ptr[d] > r; ++d) {
        int k = jd_ptr[d] + r;
        s += vals[k] * x[cols[k]];
    }
    y[perm[r]] = s;
}

// histogram equalization applied to an image of 4 * n4 bytes (read and written as uchar4):
// each block of 256 builds lut[v] = round(255 (cdf[v] - cdf_min) / (cdf[255] - cdf_min))
// (0 below cdf_min) in shared memory from the cumulative histogram, then maps four bytes a
// thread a trip of a grid-stride loop through it
__global__ void equalize_lut_u8(const unsigned *cdf, unsigned cdf_min, const uchar4 *in, uchar4 *out, int n4) {
    __shared__ unsigned lut[256];
    for (int v = threadIdx.x; v < 256; v += blockDim.x) {
        unsigned c = cdf[v], total = cdf[255] - cdf_min;
        unsigned long long num = c > cdf_min ? (unsigned long long)(c - cdf_min) * 255ull : 0ull;
        lut[v] = total ? (unsigned)((num + total / 2) / total) : 0u;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
        uchar4 p = in[i];
        out[i] = make_uchar4((unsigned char)lut[p.x], (unsigned char)lut[p.y], (unsigned char)lut[p.z],
                             (unsigned char)lut[p.w]);
    }
}

#define FW_N 1024

// out = the unnormalized Walsh-Hadamard transform (natural order) of each block's 1024
// floats, out[k] = sum over j of (-1)^popc(j & k) in[j]: NVIDIA's fwtBatch1Kernel with
// N = 1024, a block of 256 threads, one radix-4 butterfly a thread a stage, strides 256,
// 64, 16, 4 and 1 in shared memory (a barrier before each stage)
__global__ void fwht1024_shared(const float *in, float *out) {
    __shared__ float s[FW_N];
    const float *src = in + (size_t)blockIdx.x * FW_N;
    float *dst = out + (size_t)blockIdx.x * FW_N;
    for (int p = threadIdx.x; p < FW_N; p += blockDim.x) s[p] = src[p];
    int pos = threadIdx.x;
    for (int stride = FW_N >> 2; stride > 0; stride >>= 2) {
        int lo = pos & (stride - 1);
        int i0 = ((pos - lo) << 2) + lo;
        int i1 = i0 + stride, i2 = i1 + stride, i3 = i2 + stride;
        __syncthreads();
        float d0 = s[i0], d1 = s[i1], d2 = s[i2], d3 = s[i3];
        float t = d0;
        d0 = d0 + d2;
        d2 = t - d2;
        t = d1;
        d1 = d1 + d3;
        d3 = t - d3;
        s[i0] = d0 + d1;
        s[i1] = d0 - d1;
        s[i2] = d2 + d3;
        s[i3] = d2 - d3;
    }
    __syncthreads();
    for (int p = threadIdx.x; p < FW_N; p += blockDim.x) dst[p] = s[p];
}

#define LS_STEPS 32

// out[i] from in[i] by one of four 32-step loops picked by threadIdx.x % 4, so every warp
// runs all four one after another, each with 8 of its lanes: 0 the geometric series in
// y = x / (1 + |x|) by FMAs, 1 Newton's iteration for 1 / sqrt(1 + x^2) from 1 / (1 + x^2),
// 2 xorshift32 of x's bits (the top 24 bits scaled to [0, 1)), 3 r = __sinf(r + x)
__global__ void lane_switch4(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i], r = 0.0f;
    switch (threadIdx.x % 4) {
    case 0: {
        float y = x / (1.0f + fabsf(x));
        for (int k = 0; k < LS_STEPS; ++k) r = r * y + 1.0f;
        break;
    }
    case 1: {
        float a = 1.0f + x * x;
        r = 1.0f / a;
        for (int k = 0; k < LS_STEPS; ++k) r = r * (1.5f - 0.5f * a * r * r);
        break;
    }
    case 2: {
        unsigned h = __float_as_uint(x);
        for (int k = 0; k < LS_STEPS; ++k) {
            h ^= h << 13;
            h ^= h >> 17;
            h ^= h << 5;
        }
        r = (float)(h >> 8) * (1.0f / 16777216.0f);
        break;
    }
    default:
        for (int k = 0; k < LS_STEPS; ++k) r = __sinf(r + x);
    }
    out[i] = r;
}

// NVIDIA's simpleAtomicIntrinsics with n threads: every thread i < n does g[0] += 10,
// g[1] -= 10, g[2] = max(g[2], i), g[3] = min(g[3], i ^ 0x2aaaa), atomicInc(g[4], 17),
// atomicDec(g[5], 137), g[6] &= 2 i + 7, g[7] |= 1 << (i % 32) and g[8] ^= i, results unused
__global__ void atomic_intrinsics9(unsigned *g, int n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (unsigned)n) return;
    atomicAdd(&g[0], 10u);
    atomicSub(&g[1], 10u);
    atomicMax(&g[2], i);
    atomicMin(&g[3], i ^ 0x2aaaau);
    atomicInc(&g[4], 17u);
    atomicDec(&g[5], 137u);
    atomicAnd(&g[6], 2u * i + 7u);
    atomicOr(&g[7], 1u << (i % 32u));
    atomicXor(&g[8], i);
}

}
