// probe-unseen16 (session 15): half precision as course code writes it: __half arrays
// and scalars, __half2 pairs, conversions to and from float, float accumulators.
#include <cuda_fp16.h>

// y = a x + y on halves, one element a thread
extern "C" __global__ void haxpy(int n, __half a, const __half *x, __half *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hfma(a, x[i], y[i]);
}

// the same on pairs: __half2, two elements a thread
extern "C" __global__ void h2axpy(int n2, __half a, const __half2 *x, __half2 *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) y[i] = __hfma2(__half2half2(a), x[i], y[i]);
}

// float to half, a grid-stride loop
extern "C" __global__ void to_half(const float *in, __half *out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = __float2half(in[i]);
}

// sum of halves in float: grid-stride, a shared-memory tree, one atomicAdd a block
extern "C" __global__ void hsum(const __half *x, float *out, int n) {
    __shared__ float s[256];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc += __half2float(x[i]);
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

// y = A x with a half matrix and a float vector, a warp a row, float accumulation
extern "C" __global__ void hgemv_warp(const __half *A, const float *x, float *y, int rows, int cols) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (row >= rows) return;
    const __half *r = A + (size_t)row * cols;
    float acc = 0.0f;
    for (int c = lane; c < cols; c += 32) acc += __half2float(r[c]) * x[c];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (lane == 0) y[row] = acc;
}

// softmax of rows of halves, a warp a row, in float, written back as halves
extern "C" __global__ void hsoftmax_warp(const __half *x, __half *y, int rows, int cols) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (row >= rows) return;
    const __half *r = x + (size_t)row * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, __half2float(r[c]));
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += __expf(__half2float(r[c]) - m);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    float inv = 1.0f / s;
    for (int c = lane; c < cols; c += 32)
        y[(size_t)row * cols + c] = __float2half(__expf(__half2float(r[c]) - m) * inv);
}

// histogram of halves in [0, 1) into 256 bins: shared-memory atomics, merged per block
extern "C" __global__ void hhist(const __half *x, unsigned *bins, int n) {
    __shared__ unsigned local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int b = __half2int_rz(__hmul(x[i], __float2half(256.0f)));
        atomicAdd(&local[min(max(b, 0), 255)], 1u);
    }
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
