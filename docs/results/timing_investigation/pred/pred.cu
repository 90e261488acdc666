// When does a predicated-off shared load/store cost a wavefront?  Five kernels of 512
// threads with `if (tid < d)` bodies over shared memory, some in loops nvcc unrolls
// fully (constant trips), some in loops it cannot (trips from blockDim).  pred_main.cu
// launches them; ncu counts wavefronts, SASS shows which bodies are predicated.
extern "C" __global__ void red_rt(const int *in, int *out) {
    __shared__ int s[512];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 512 + t];
    __syncthreads();
    for (int d = blockDim.x / 2; d > 0; d >>= 1) {
        if (t < d) s[t] += s[t + d];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void red_const(const int *in, int *out) {
    __shared__ int s[512];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 512 + t];
    __syncthreads();
    for (int d = 256; d > 0; d >>= 1) {
        if (t < d) s[t] += s[t + d];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// blelloch up-sweep, strided (bank conflicts), unrolled
extern "C" __global__ void up_const(const int *in, int *out) {
    __shared__ int t[1024];
    int tid = threadIdx.x;
    t[tid] = in[blockIdx.x * 1024 + tid];
    t[tid + 512] = in[blockIdx.x * 1024 + tid + 512];
    int offset = 1;
    for (int d = 512; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            t[bi] += t[ai];
        }
        offset *= 2;
    }
    __syncthreads();
    out[blockIdx.x * 1024 + tid] = t[tid];
    out[blockIdx.x * 1024 + tid + 512] = t[tid + 512];
}

// the same with trips from blockDim (not unrolled)
extern "C" __global__ void up_rt(const int *in, int *out) {
    __shared__ int t[1024];
    int tid = threadIdx.x;
    t[tid] = in[blockIdx.x * 1024 + tid];
    t[tid + 512] = in[blockIdx.x * 1024 + tid + 512];
    int offset = 1;
    for (int d = blockDim.x; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            t[bi] += t[ai];
        }
        offset *= 2;
    }
    __syncthreads();
    out[blockIdx.x * 1024 + tid] = t[tid];
    out[blockIdx.x * 1024 + tid + 512] = t[tid + 512];
}

// down-sweep body (two loads, two stores), unrolled, no conflicts: unit stride
extern "C" __global__ void swap_const(const int *in, int *out) {
    __shared__ int t[1024];
    int tid = threadIdx.x;
    t[tid] = in[blockIdx.x * 1024 + tid];
    t[tid + 512] = in[blockIdx.x * 1024 + tid + 512];
    for (int d = 1; d < 1024; d *= 2) {
        __syncthreads();
        if (tid < d) {
            int v = t[tid];
            t[tid] = t[tid + 512];
            t[tid + 512] += v;
        }
    }
    __syncthreads();
    out[blockIdx.x * 1024 + tid] = t[tid];
    out[blockIdx.x * 1024 + tid + 512] = t[tid + 512];
}
