// Dependent 64-bit integer chains, one thread a lane, N steps each: what a step costs a
// warp alone and with more warps beside it (mont64.py times them; cycles by clock64)
extern "C" {

__device__ unsigned long long mont_mul(unsigned long long a, unsigned long long b, unsigned long long n,
                                       unsigned long long ninv) {
    unsigned long long lo = a * b;
    unsigned long long hi = __umul64hi(a, b);
    unsigned long long m = lo * ninv;
    unsigned long long mhi = __umul64hi(m, n);
    unsigned long long t = hi + mhi + (lo != 0);
    if (t < hi || t >= n) t -= n;
    return t;
}

// x = x * x mod n (Montgomery), n_steps times
__global__ void chain_mont(unsigned long long *x, unsigned long long n, unsigned long long ninv, int n_steps,
                           long long *cycles) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long v = x[i];
    long long t0 = clock64();
    for (int s = 0; s < n_steps; s++) v = mont_mul(v, v, n, ninv);
    long long t1 = clock64();
    x[i] = v;
    if (threadIdx.x % 32 == 0) cycles[i / 32] = t1 - t0;
}

// v = v * c + d (64-bit multiply-add), n_steps times
__global__ void chain_mul64(unsigned long long *x, unsigned long long c, unsigned long long d, int n_steps,
                            long long *cycles) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long v = x[i];
    long long t0 = clock64();
    for (int s = 0; s < n_steps; s++) v = v * c + d;
    long long t1 = clock64();
    x[i] = v;
    if (threadIdx.x % 32 == 0) cycles[i / 32] = t1 - t0;
}

// v = __umul64hi(v, c) ^ d, n_steps times
__global__ void chain_mulhi64(unsigned long long *x, unsigned long long c, unsigned long long d, int n_steps,
                              long long *cycles) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long v = x[i];
    long long t0 = clock64();
    for (int s = 0; s < n_steps; s++) v = __umul64hi(v, c) ^ d;
    long long t1 = clock64();
    x[i] = v;
    if (threadIdx.x % 32 == 0) cycles[i / 32] = t1 - t0;
}

}
