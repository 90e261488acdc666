// 64-bit integer division and remainder (session 27): latency (one warp, a dependent
// chain, clock64) and issue cost (a full GPU of four independent chains a thread), as
// micro.cu measures the 32-bit ones.  nvcc compiles a 64-bit / or % by a value it does
// not know into a test of both operands' high words: a 32-bit division when both are
// zero, else a call to a 64-bit routine.
extern "C" {

typedef unsigned long long u64;
typedef long long s64;

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

#define S_ADD(x) (((x) ^ y) + 1000003)                   /* baseline: 64-bit xor and add */
#define S_MOD(x) (((x) % y) + 0x100000003ull)           /* x > 2^32: the 64-bit routine */
#define S_DIV(x) (((x) / y) + 0x100000003ull)
#define S_MODD(x) ((y % (x)) + 0x100000003ull)           /* the divisor on the chain */
#define S_MODS(x) (((x) % y) + 1000003)                  /* both under 2^32: the 32-bit path */
#define S_MULMOD(x) ((((x) * (x)) % y) + 3)              /* x < y < 2^32: modpow's step */
#define S_DIV10(x) (((x) / 10) + 0x100000003ull)         /* a constant: IMAD.HI.U64 */
#define S_MOD10(x) (((x) % 10) + 0x100000003ull)

CHAIN_KERNEL(d_add, u64, 12345, S_ADD)
CHAIN_KERNEL(d_umod, u64, 0x123456789ull, S_MOD)
CHAIN_KERNEL(d_udiv, u64, 0x123456789ull, S_DIV)
CHAIN_KERNEL(d_umodd, u64, 0x123456789ull, S_MODD)
CHAIN_KERNEL(d_smod, s64, 0x123456789ll, S_MOD)
CHAIN_KERNEL(d_umods, u64, 12345678, S_MODS)
CHAIN_KERNEL(d_mulmod, u64, 12345, S_MULMOD)
CHAIN_KERNEL(d_udiv10, u64, 0x123456789ull, S_DIV10)
CHAIN_KERNEL(d_umod10, u64, 0x123456789ull, S_MOD10)

}
