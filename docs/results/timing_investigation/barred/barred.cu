// Barriers that reduce a predicate (__syncthreads_count / _or: BAR.RED then B2R.RESULT)
// against the plain __syncthreads() (BAR.SYNC), in loops of `trips` barriers a block;
// cycles[block] = clock64() around the loop.  k_jac is jacobi_converge's body
// (kernels_cuda/probes36.cu) with a vote that never ends it; k_jac_bar the same body
// with a plain barrier in the vote's place.
extern "C" {

__global__ void k_bar(int *out, long long *cycles, int trips) {
    int acc = 0;
    long long t0 = clock64();
    for (int i = 0; i < trips; ++i) { __syncthreads(); acc += i; }
    long long t1 = clock64();
    if (threadIdx.x == 0) { cycles[blockIdx.x] = t1 - t0; out[blockIdx.x] = acc; }
}

__global__ void k_count(int *out, long long *cycles, int trips) {
    int acc = 0;
    long long t0 = clock64();
    for (int i = 0; i < trips; ++i) acc += __syncthreads_count(((threadIdx.x + i) & 3) == 0);
    long long t1 = clock64();
    if (threadIdx.x == 0) { cycles[blockIdx.x] = t1 - t0; out[blockIdx.x] = acc; }
}

__global__ void k_or(int *out, long long *cycles, int trips) {
    int acc = 0;
    long long t0 = clock64();
    for (int i = 0; i < trips; ++i) acc += __syncthreads_or(((threadIdx.x + i) & 3) == 0);
    long long t1 = clock64();
    if (threadIdx.x == 0) { cycles[blockIdx.x] = t1 - t0; out[blockIdx.x] = acc; }
}

// the loop exits on the vote, as jacobi_converge's does (the count is never 0 here)
__global__ void k_count_exit(int *out, long long *cycles, int trips) {
    int i = 0;
    long long t0 = clock64();
    while (i < trips) {
        ++i;
        if (__syncthreads_count(((threadIdx.x + i) & 3) == 0) == 0) break;
    }
    long long t1 = clock64();
    if (threadIdx.x == 0) { cycles[blockIdx.x] = t1 - t0; out[blockIdx.x] = i; }
}

__global__ void k_jac(const float *rhs, float *x, long long *cycles, int trips) {
    extern __shared__ float u[];
    int t = threadIdx.x, nt = blockDim.x;
    float f = rhs[blockIdx.x * nt + t];
    u[t + 1] = 0.0f;
    if (t == 0) { u[0] = 0.0f; u[nt + 1] = 0.0f; }
    __syncthreads();
    int it = 0;
    long long t0 = clock64();
    while (it < trips) {
        float nu = 0.5f * (u[t] + u[t + 2] + f);
        __syncthreads();
        float d = fabsf(nu - u[t + 1]);
        u[t + 1] = nu;
        ++it;
        if (__syncthreads_count(d > -1.0f) == 0) break;
    }
    long long t1 = clock64();
    x[blockIdx.x * nt + t] = u[t + 1];
    if (t == 0) cycles[blockIdx.x] = t1 - t0;
}

__global__ void k_jac_bar(const float *rhs, float *x, long long *cycles, int trips) {
    extern __shared__ float u[];
    int t = threadIdx.x, nt = blockDim.x;
    float f = rhs[blockIdx.x * nt + t];
    u[t + 1] = 0.0f;
    if (t == 0) { u[0] = 0.0f; u[nt + 1] = 0.0f; }
    __syncthreads();
    long long t0 = clock64();
    for (int it = 0; it < trips; ++it) {
        float nu = 0.5f * (u[t] + u[t + 2] + f);
        __syncthreads();
        u[t + 1] = nu;
        __syncthreads();
    }
    long long t1 = clock64();
    x[blockIdx.x * nt + t] = u[t + 1];
    if (t == 0) cycles[blockIdx.x] = t1 - t0;
}

}
