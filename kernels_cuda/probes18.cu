// probe-unseen17 (session 16): kernels that loop over their data and then flush to
// global memory with atomics (privatized histograms of other sizes and types, counts,
// reductions with one atomic a thread, a warp or a block), and a per-thread struct with
// an array member.  Predicted before their first GPU run.

// 64 bins of bytes, shared atomics, 64 global atomics a block at the end
extern "C" __global__ void hist64_u8(const unsigned char *x, unsigned *bins, int n) {
    __shared__ unsigned local[64];
    if (threadIdx.x < 64) local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[x[i] >> 2], 1u);
    __syncthreads();
    if (threadIdx.x < 64) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

// 1024 bins of ints, four bins a thread to clear and to flush
extern "C" __global__ void hist1024_i32(const int *x, unsigned *bins, int n) {
    __shared__ unsigned local[1024];
    for (int b = threadIdx.x; b < 1024; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[x[i] & 1023], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 1024; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}

// weighted histogram: 128 float bins, float shared atomics, float global atomics
extern "C" __global__ void hist128_weighted(const int *idx, const float *w, float *bins, int n) {
    __shared__ float local[128];
    if (threadIdx.x < 128) local[threadIdx.x] = 0.0f;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[idx[i] & 127], w[i]);
    __syncthreads();
    if (threadIdx.x < 128) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

// count of elements above a threshold: one atomicAdd a thread, all on one word
extern "C" __global__ void count_above(const float *x, unsigned *count, float t, int n) {
    unsigned c = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        c += x[i] > t;
    atomicAdd(count, c);
}

// dot product: a warp's shuffle reduction, one atomicAdd a warp on one word
extern "C" __global__ void dot_warp_atomic(const float *a, const float *b, float *out, int n) {
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        s += a[i] * b[i];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

// minimum and maximum: a block's shared tree, then atomicMin / atomicMax on two words
extern "C" __global__ void minmax_block(const int *x, int *mm, int n) {
    __shared__ int smin[256], smax[256];
    int lo = 0x7fffffff, hi = -0x7fffffff - 1;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int v = x[i];
        lo = min(lo, v);
        hi = max(hi, v);
    }
    smin[threadIdx.x] = lo;
    smax[threadIdx.x] = hi;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) {
            smin[threadIdx.x] = min(smin[threadIdx.x], smin[threadIdx.x + k]);
            smax[threadIdx.x] = max(smax[threadIdx.x], smax[threadIdx.x + k]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicMin(&mm[0], smin[0]);
        atomicMax(&mm[1], smax[0]);
    }
}

// four running sums in a struct with an array member (the four quarters of the array)
struct Sums { float s[4]; int count; };

extern "C" __global__ void quarter_sums(const float *x, float *out, int n) {
    Sums acc;
    for (int j = 0; j < 4; j++) acc.s[j] = 0.0f;
    acc.count = 0;
    int q = n / 4;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < q; i += blockDim.x * gridDim.x) {
        for (int j = 0; j < 4; j++) acc.s[j] += x[j * q + i];
        acc.count++;
    }
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < 4; j++) out[4 * t + j] = acc.s[j] / (float)(acc.count > 0 ? acc.count : 1);
}
