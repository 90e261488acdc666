// Integer division and remainder by constants (session 48): latency (one warp, a dependent
// chain, clock64) and issue cost (132 x 4 blocks of 256, four independent chains a
// thread), as div64.cu measures them for 64-bit divisors nvcc does not know.  nvcc turns
// x / d and x % d for a constant d into a multiply by a "magic" reciprocal and shifts;
// for some d (7, 2^31 - 1, 10^9 + 7 in 64 bits) the magic needs one more bit than the word
// and nvcc adds the "add" fix-up, ((x - t) >> 1) + t, before the last shift.
extern "C" {

typedef unsigned long long u64;
typedef unsigned int u32;

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

/* 64-bit: the operand kept above 2^32 (+ 0x100000003) */
#define S_ADD64(x) (((x) ^ y) + 1000003)
#define S_MOD10(x) (((x) % 10ull) + 0x100000003ull)
#define S_DIV10(x) (((x) / 10ull) + 0x100000003ull)
#define S_MOD7(x) (((x) % 7ull) + 0x100000003ull)
#define S_DIV7(x) (((x) / 7ull) + 0x100000003ull)
#define S_MODM31(x) (((x) % 2147483647ull) + 0x100000003ull)
#define S_DIVM31(x) (((x) / 2147483647ull) + 0x100000003ull)
#define S_MODP9(x) (((x) % 1000000007ull) + 0x100000003ull)
#define S_MODM61(x) (((x) % 2305843009213693951ull) + 0x100000003ull)
/* 32-bit unsigned: the operand kept large (+ 0x80000003) */
#define S_ADD32(x) (((x) ^ y) + 1000003u)
#define U_MOD7(x) (((x) % 7u) + 0x80000003u)
#define U_DIV7(x) (((x) / 7u) + 0x80000003u)
#define U_MOD10(x) (((x) % 10u) + 0x80000003u)
#define U_DIV10(x) (((x) / 10u) + 0x80000003u)
#define U_MODP9(x) (((x) % 1000000007u) + 0x80000003u)
/* 32-bit signed: simt's idiv_const was measured on this one (micro.cu's S_SMOD7) */
#define S_SMOD7(x) (((x) % 7) + 1000003)

CHAIN_KERNEL(c_add64, u64, 0x123456789ull, S_ADD64)
CHAIN_KERNEL(c_mod10, u64, 0x123456789ull, S_MOD10)
CHAIN_KERNEL(c_div10, u64, 0x123456789ull, S_DIV10)
CHAIN_KERNEL(c_mod7, u64, 0x123456789ull, S_MOD7)
CHAIN_KERNEL(c_div7, u64, 0x123456789ull, S_DIV7)
CHAIN_KERNEL(c_modm31, u64, 0x123456789ull, S_MODM31)
CHAIN_KERNEL(c_divm31, u64, 0x123456789ull, S_DIVM31)
CHAIN_KERNEL(c_modp9, u64, 0x123456789ull, S_MODP9)
CHAIN_KERNEL(c_modm61, u64, 0x123456789ull, S_MODM61)
CHAIN_KERNEL(c_add32, u32, 12345u, S_ADD32)
CHAIN_KERNEL(c_umod7, u32, 0x90000000u, U_MOD7)
CHAIN_KERNEL(c_udiv7, u32, 0x90000000u, U_DIV7)
CHAIN_KERNEL(c_umod10, u32, 0x90000000u, U_MOD10)
CHAIN_KERNEL(c_udiv10, u32, 0x90000000u, U_DIV10)
CHAIN_KERNEL(c_umodp9, u32, 0x90000000u, U_MODP9)
CHAIN_KERNEL(c_smod7, int, 12345, S_SMOD7)

}
