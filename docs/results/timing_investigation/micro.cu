// Microbenchmarks for simt's timing model: latency (one warp, dependent chain, clock64)
// and throughput (full GPU, independent chains) of IR operations that expand to many SASS
// instructions, and the local-memory store->load dependence.
// cyc[blockIdx.x] = clock64 cycles of the block's thread 0 around the loop.
extern "C" {

#define CHAIN_KERNEL(NAME, T, INIT, STEP)                                                  \
__global__ void NAME(T *out, long long *cyc, int iters, T y) {                             \
    T a = (T)(threadIdx.x + INIT), b = a + (T)1, c = a + (T)2, d = a + (T)3;               \
    int nch = (blockDim.x == 32 && gridDim.x == 1) ? 1 : 4;                                \
    long long t0 = clock64();                                                              \
    if (nch == 1) {                                                                        \
        _Pragma("unroll 4") for (int i = 0; i < iters; i++) { a = STEP(a); }               \
    } else {                                                                               \
        _Pragma("unroll 2") for (int i = 0; i < iters; i++) {                              \
            a = STEP(a); b = STEP(b); c = STEP(c); d = STEP(d); }                          \
    }                                                                                      \
    long long t1 = clock64();                                                              \
    if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;                                       \
    if (a + b + c + d == (T)-7) out[blockIdx.x] = a;                                       \
}

// baseline: two dependent integer ALU ops per step
#define S_ADD(x) (((x) ^ y) + 1000003)
#define S_SMOD(x) (((x) % y) + 1000003)            /* divisor invariant: reciprocal hoisted */
#define S_UMOD(x) (((x) % y) + 1000003u)
#define S_SDIV(x) (((x) / y) + 1000003)
#define S_SMODD(x) ((y % (x)) + 1000003)           /* divisor on the chain: the whole sequence */
#define S_UMODD(x) ((y % (x)) + 1000003u)
#define S_UDIVD(x) ((y / (x)) + 1000003u)
#define S_SMOD7(x) (((x) % 7) + 1000003)           /* constant divisor */
#define S_FADD(x) (((x) * y) + 1.5f)
#define S_FDIV(x) (((x) / y) + 1.5f)
#define S_FDIVD(x) ((y / (x)) + 1.5f)
#define S_SQRT(x) (sqrtf(x) + 1000.5f)
#define S_EXPF(x) (__expf(-(x)) + 1.5f)
#define S_MATCH(x) ((int)(__match_any_sync(0xffffffffu, (x) & 7) & 15) + ((x) & 0x7fff0) + 16)
#define S_SHFL(x) (__shfl_xor_sync(0xffffffffu, (x), 1) + 1)
#define S_BALLOT(x) ((int)(__ballot_sync(0xffffffffu, (x) & 1) & 3) + (x) + 1)

CHAIN_KERNEL(m_add, int, 12345, S_ADD)
CHAIN_KERNEL(m_smod, int, 12345678, S_SMOD)
CHAIN_KERNEL(m_umod, unsigned, 12345678u, S_UMOD)
CHAIN_KERNEL(m_sdiv, int, 12345678, S_SDIV)
CHAIN_KERNEL(m_smodd, int, 12345678, S_SMODD)
CHAIN_KERNEL(m_umodd, unsigned, 12345678u, S_UMODD)
CHAIN_KERNEL(m_udivd, unsigned, 12345678u, S_UDIVD)
CHAIN_KERNEL(m_smod7, int, 12345678, S_SMOD7)
CHAIN_KERNEL(m_fma, float, 1, S_FADD)
CHAIN_KERNEL(m_fdiv, float, 1, S_FDIV)
CHAIN_KERNEL(m_fdivd, float, 1, S_FDIVD)
CHAIN_KERNEL(m_sqrt, float, 1, S_SQRT)
CHAIN_KERNEL(m_expf, float, 1, S_EXPF)
CHAIN_KERNEL(m_match, int, 1, S_MATCH)
CHAIN_KERNEL(m_shfl, int, 1, S_SHFL)
CHAIN_KERNEL(m_ballot, int, 1, S_BALLOT)

// local memory: h[bin]++ with bin = tbl[i & 63] from shared memory.  tbl all equal: every
// trip reads what the previous trip stored; tbl = i & 7: the same word every 8th trip.
__global__ void m_local(const int *tbl, int *out, long long *cyc, int iters, int lanemul) {
    __shared__ int s[64];
    if (threadIdx.x < 64) s[threadIdx.x] = tbl[threadIdx.x];
    __syncthreads();
    int h[8] = {0};
    long long t0 = clock64();
    int off = (threadIdx.x & 31) * lanemul;
    for (int i = 0; i < iters; i++) h[s[(i + off) & 63]]++;
    long long t1 = clock64();
    if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
    int acc = 0;
    for (int k = 0; k < 8; k++) acc += h[k] * (k + 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// the same without local memory: a shared-table lookup plus an add (the loop's own cost)
__global__ void m_local_base(const int *tbl, int *out, long long *cyc, int iters) {
    __shared__ int s[64];
    if (threadIdx.x < 64) s[threadIdx.x] = tbl[threadIdx.x];
    __syncthreads();
    int h = 0;
    long long t0 = clock64();
    for (int i = 0; i < iters; i++) h += s[i & 63];
    long long t1 = clock64();
    if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
    out[blockIdx.x * blockDim.x + threadIdx.x] = h;
}

// histogram_register's loop with the clock around it (one warp or full grid)
__global__ void m_histreg(const unsigned char *data, int *hist, long long *cyc, int n) {
    int local_hist[8] = {0};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    long long t0 = clock64();
    while (i < n) {
        int bin = data[i] % 8;
        local_hist[bin]++;
        i += stride;
    }
    long long t1 = clock64();
    if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
    for (int b = 0; b < 8; b++) atomicAdd(&hist[b], local_hist[b]);
}

}  // extern "C"
