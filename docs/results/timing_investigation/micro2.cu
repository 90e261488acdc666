// Second round: __match_any_sync against the number of distinct values in the warp, and
// local memory loads / stores alone, at several grid sizes.
extern "C" {

// chain: x = key ^ (match(x) & y), y = 0 at run time: the warp keeps k distinct values
__global__ void m_matchk(int *out, long long *cyc, int iters, int k, unsigned y) {
    int lane = threadIdx.x & 31;
    int one = (blockDim.x == 32 && gridDim.x == 1);
    int a = lane % k, b = a + 64, c = a + 128, d = a + 192;
    int ka = a, kb = b, kc = c, kd = d;
    long long t0 = clock64();
    if (one) {
        for (int i = 0; i < iters; i++) a = ka ^ (int)(__match_any_sync(0xffffffffu, a) & y);
    } else {
        for (int i = 0; i < iters; i++) {
            a = ka ^ (int)(__match_any_sync(0xffffffffu, a) & y);
            b = kb ^ (int)(__match_any_sync(0xffffffffu, b) & y);
            c = kc ^ (int)(__match_any_sync(0xffffffffu, c) & y);
            d = kd ^ (int)(__match_any_sync(0xffffffffu, d) & y);
        }
    }
    long long t1 = clock64();
    if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
    if (a + b + c + d == -7) out[blockIdx.x] = a;
}

// local loads only: h[] written once, then read at scattered words
__global__ void m_local_ld(const int *tbl, int *out, long long *cyc, int iters, int lanemul) {
    __shared__ int s[64];
    if (threadIdx.x < 64) s[threadIdx.x] = tbl[threadIdx.x];
    __syncthreads();
    int h[64];
    for (int k = 0; k < 64; k++) h[k] = s[k] * (int)threadIdx.x + k;
    int off = (threadIdx.x & 31) * lanemul;
    int acc = 0;
    long long t0 = clock64();
    for (int i = 0; i < iters; i++) acc += h[s[(i + off) & 63]];
    long long t1 = clock64();
    if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// local stores only
__global__ void m_local_st(const int *tbl, int *out, long long *cyc, int iters, int lanemul) {
    __shared__ int s[64];
    if (threadIdx.x < 64) s[threadIdx.x] = tbl[threadIdx.x];
    __syncthreads();
    int h[64] = {0};
    int off = (threadIdx.x & 31) * lanemul;
    long long t0 = clock64();
    for (int i = 0; i < iters; i++) h[s[(i + off) & 63]] = i;
    long long t1 = clock64();
    if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
    int acc = 0;
    for (int k = 0; k < 64; k++) acc += h[k] * (k + 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// load + increment + store (as micro.cu's m_local)
__global__ void m_local_rmw(const int *tbl, int *out, long long *cyc, int iters, int lanemul) {
    __shared__ int s[64];
    if (threadIdx.x < 64) s[threadIdx.x] = tbl[threadIdx.x];
    __syncthreads();
    int h[64] = {0};
    int off = (threadIdx.x & 31) * lanemul;
    long long t0 = clock64();
    for (int i = 0; i < iters; i++) h[s[(i + off) & 63]]++;
    long long t1 = clock64();
    if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
    int acc = 0;
    for (int k = 0; k < 64; k++) acc += h[k] * (k + 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

}  // extern "C"
