// probe-unseen11 (session 11): function templates, deduced template calls and C++ casts.
// The kernels are templates; each probe launches one instance ("reduce6<256>").
#define FULL 0xffffffffu

// Harris's reduction #6 (blockSize as a template parameter, the warp-synchronous tail
// with __syncwarp as Volta and later need)
template <unsigned int blockSize>
__device__ void warpReduce(volatile float *s, unsigned int tid) {
    float v = s[tid];
    if (blockSize >= 64) { v += s[tid + 32]; __syncwarp(); s[tid] = v; __syncwarp(); }
    if (blockSize >= 32) { v += s[tid + 16]; __syncwarp(); s[tid] = v; __syncwarp(); }
    if (blockSize >= 16) { v += s[tid + 8]; __syncwarp(); s[tid] = v; __syncwarp(); }
    if (blockSize >= 8) { v += s[tid + 4]; __syncwarp(); s[tid] = v; __syncwarp(); }
    if (blockSize >= 4) { v += s[tid + 2]; __syncwarp(); s[tid] = v; __syncwarp(); }
    if (blockSize >= 2) { v += s[tid + 1]; __syncwarp(); s[tid] = v; __syncwarp(); }
}

template <unsigned int blockSize>
__global__ void reduce6(const float *g_idata, float *g_odata, unsigned int n) {
    __shared__ float sdata[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + tid;
    unsigned int gridSize = blockSize * 2 * gridDim.x;
    float sum = 0.0f;
    while (i < n) { sum += g_idata[i] + g_idata[i + blockSize]; i += gridSize; }
    sdata[tid] = sum;
    __syncthreads();
    if (blockSize >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads(); }
    if (blockSize >= 128) { if (tid < 64) { sdata[tid] += sdata[tid + 64]; } __syncthreads(); }
    if (tid < 32) warpReduce<blockSize>(sdata, tid);
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// y = a * x, VEC floats per thread (VEC == 4: one float4 load and store)
template <int VEC>
__global__ void scale_vec(const float *__restrict__ in, float *__restrict__ out, float a, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * VEC;
    if (i + VEC > n) return;
    if constexpr (VEC == 4) {
        float4 v = reinterpret_cast<const float4 *>(in)[i / 4];
        v.x *= a; v.y *= a; v.z *= a; v.w *= a;
        reinterpret_cast<float4 *>(out)[i / 4] = v;
    } else {
        for (int k = 0; k < VEC; k++) out[i + k] = a * in[i + k];
    }
}

// a dot product: grid-stride partial sums, a deduced shuffle reduction, one atomic per warp
template <typename T>
__device__ T warpSum(T v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL, v, o);
    return v;
}

template <typename T>
__global__ void dot_t(const T *x, const T *y, T *out, int n) {
    T acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc += x[i] * y[i];
    acc = warpSum(acc);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}

// a histogram of BINS bins in shared memory over any integer input type
template <typename T, int BINS>
__global__ void hist_t(const T *in, unsigned int *bins, int n) {
    __shared__ unsigned int h[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) h[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[static_cast<unsigned int>(in[i]) % BINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], h[b]);
}
