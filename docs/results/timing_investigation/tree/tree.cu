// What a shared-memory reduction tree, a barrier and a warp shuffle cost on the GPU,
// timed inside the kernel with clock64() (SM cycles) by thread 0 of each block.
extern "C" {

// the catalog's reduction tree (reduction/recursive): log2(blockDim) levels of
// `if (tid < p) s[tid] += s[tid + p]; __syncthreads();`
__global__ void k_tree(const int* in, int* out, long long* cyc) {
    extern __shared__ int s[];
    int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    long long t0 = clock64();
    for (int p = blockDim.x / 2; p > 0; p >>= 1) {
        if (tid < p) s[tid] += s[tid + p];
        __syncthreads();
    }
    long long t1 = clock64();
    if (tid == 0) { out[blockIdx.x] = s[0]; cyc[blockIdx.x] = t1 - t0; }
}

// 64 barriers in a row
__global__ void k_bar(int* out, long long* cyc) {
    int x = threadIdx.x;
    __syncthreads();
    long long t0 = clock64();
    for (int r = 0; r < 64; r++) { x = x * 3 + 1; __syncthreads(); }
    long long t1 = clock64();
    if (threadIdx.x == 0) { out[blockIdx.x] = x; cyc[blockIdx.x] = t1 - t0; }
}

// 64 rounds of shared store, barrier, shared load of a neighbour's word
__global__ void k_sts_bar_lds(int* out, long long* cyc) {
    extern __shared__ int s[];
    int tid = threadIdx.x;
    int x = tid;
    __syncthreads();
    long long t0 = clock64();
    for (int r = 0; r < 64; r++) {
        s[tid] = x;
        __syncthreads();
        x = s[(tid + 1) % blockDim.x] + 1;
        __syncthreads();
    }
    long long t1 = clock64();
    if (tid == 0) { out[blockIdx.x] = x; cyc[blockIdx.x] = t1 - t0; }
}

// warp_shuffle_reduce's first half: 5 shuffle-adds, 64 times over
__global__ void k_shfl(const float* in, float* out, long long* cyc) {
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    long long t0 = clock64();
    for (int r = 0; r < 64; r++)
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffff, v, o);
    long long t1 = clock64();
    if (threadIdx.x == 0) { out[blockIdx.x] = v; cyc[blockIdx.x] = t1 - t0; }
}

}
