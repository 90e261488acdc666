// probe-unseen14 (session 14): the C++ that kernels copied from samples and courses use,
// which simt reads since this session: the CUDA samples' SharedMemory<T> (with its
// specialization for double), reference variables, auto, enum class template arguments,
// ?: on structs, FLT_MAX / INT_MAX / INFINITY, __reduce_*_sync and a struct passed by
// value.  Predictions committed before any GPU run.
#include <cfloat>
#include <climits>

template <class T>
struct SharedMemory {
    __device__ inline operator T *() {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
    __device__ inline operator const T *() const {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
};

template <>
struct SharedMemory<double> {
    __device__ inline operator double *() {
        extern __shared__ double __smem_d[];
        return (double *)__smem_d;
    }
    __device__ inline operator const double *() const {
        extern __shared__ double __smem_d[];
        return (double *)__smem_d;
    }
};

// each block sums pairs of elements in a grid-stride loop, then a tree in dynamic shared
// memory down to 64 values and shuffles for the last warp
template <class T, unsigned int blockSize>
__global__ void block_sum_smem(const T *in, T *out, unsigned int n) {
    T *sdata = SharedMemory<T>();
    unsigned int tid = threadIdx.x;
    unsigned int stride = blockSize * 2 * gridDim.x;
    T s = 0;
    for (unsigned int i = blockIdx.x * blockSize * 2 + tid; i < n; i += stride) {
        s += in[i];
        if (i + blockSize < n) s += in[i + blockSize];
    }
    sdata[tid] = s;
    __syncthreads();
    for (unsigned int k = blockSize / 2; k > 32; k >>= 1) {
        if (tid < k) sdata[tid] = s = s + sdata[tid + k];
        __syncthreads();
    }
    if (tid < 32) {
        s += sdata[tid + 32];
        for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    }
    if (tid == 0) out[blockIdx.x] = s;
}

// the maximum and its first index, per block: a struct compared with ?: in a grid-stride
// loop, then a tree of structs in shared memory
struct ArgMax { float v; int i; };

__device__ ArgMax better(ArgMax a, ArgMax b) {
    return (b.v > a.v || (b.v == a.v && b.i < a.i)) ? b : a;
}

extern "C" __global__ void argmax_blocks(const float *x, ArgMax *out, int n) {
    __shared__ ArgMax part[256];
    ArgMax best = {-FLT_MAX, INT_MAX};
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        ArgMax c = {x[i], i};
        best = better(best, c);
    }
    part[threadIdx.x] = best;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] = better(part[threadIdx.x], part[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}

// one Adam step: the hyper-parameters in a struct passed by value, the moments updated
// through references
struct AdamParams { float lr, beta1, beta2, eps, c1, c2; };   // c1, c2: bias corrections

extern "C" __global__ void adam_step(float *p, const float *g, float *m, float *v,
                                     AdamParams h, int n) {
    for (auto i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned int)n;
         i += blockDim.x * gridDim.x) {
        float &mi = m[i];
        float &vi = v[i];
        const float gi = g[i];
        mi = h.beta1 * mi + (1.0f - h.beta1) * gi;
        vi = h.beta2 * vi + (1.0f - h.beta2) * gi * gi;
        p[i] -= h.lr * (mi * h.c1) / (sqrtf(vi * h.c2) + h.eps);
    }
}

// a grid-stride sum or maximum of ints, chosen by an enum class template argument, each
// warp combined with one __reduce_*_sync and one atomic
enum class Combine : int { Sum, Max };

template <Combine C>
__device__ int combine(int a, int b) { return C == Combine::Sum ? a + b : max(a, b); }

template <Combine C>
__global__ void warp_combine(const int *x, int *out, int n) {
    int acc = C == Combine::Sum ? 0 : INT_MIN;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc = combine<C>(acc, x[i]);
    int w = C == Combine::Sum ? __reduce_add_sync(0xffffffffu, acc) : __reduce_max_sync(0xffffffffu, acc);
    if ((threadIdx.x & 31) == 0) {
        if (C == Combine::Sum) atomicAdd(out, w);
        else atomicMax(out, w);
    }
}

// softmax of each row by one warp: an online maximum and sum (from -INFINITY), merged
// across the warp with shuffles, then a second pass that writes
extern "C" __global__ void softmax_warp_rows(const float *x, float *y, int rows, int cols) {
    auto warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    auto lane = threadIdx.x & 31;
    if (warp >= (unsigned int)rows) return;
    const float *r = x + (size_t)warp * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = r[c];
        float nm = fmaxf(m, v);
        s = s * __expf(m - nm) + __expf(v - nm);
        m = nm;
    }
    for (int off = 16; off > 0; off >>= 1) {
        float om = __shfl_xor_sync(0xffffffffu, m, off);
        float os = __shfl_xor_sync(0xffffffffu, s, off);
        float nm = fmaxf(m, om);
        s = s * __expf(m - nm) + os * __expf(om - nm);
        m = nm;
    }
    float inv = 1.0f / s;
    for (int c = lane; c < cols; c += 32) y[(size_t)warp * cols + c] = __expf(r[c] - m) * inv;
}
