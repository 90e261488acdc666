// Latency (one warp, one dependent chain, clock64) and issue cost (132 x 4 blocks of 256
// threads, 4 independent chains a thread) of CUDA's math functions, which nvcc expands to
// sequences of SASS instructions where the emulator's IR has one CALL.  The chain step is
// f(x) + c, so the baseline is m_fma's x * y + c (one FFMA).  Same harness as the session-3
// integer-division microbenchmarks (machine.OP_COST).
// cyc[blockIdx.x] = clock64 cycles of the block's thread 0 around the loop.
extern "C" {

#define CHAIN_KERNEL(NAME, T, INIT, STEP)                                                  \
__global__ void NAME(T *out, long long *cyc, int iters, T y) {                             \
    T a = (T)(threadIdx.x % 7) * (T)0.01 + (T)INIT, b = a + (T)0.001, c = a + (T)0.002,    \
      d = a + (T)0.003;                                                                    \
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

#define S_FMA(x) ((x) * y + 0.5f)
#define S_EXPF(x) (expf(-(x)) + 0.5f)
#define S_FEXPF(x) (__expf(-(x)) + 0.5f)
#define S_LOGF(x) (logf(x) + 1.5f)
#define S_SINF(x) (sinf(x) + 1.5f)
#define S_COSF(x) (cosf(x) + 1.5f)
#define S_TANF(x) (tanf(x) * 0.25f + 0.5f)
#define S_POWF(x) (powf(x, y) * 0.5f + 0.5f)
#define S_TANHF(x) (tanhf(x) + 0.5f)
#define S_ERFF(x) (erff(x) + 0.5f)
#define S_RSQRTF(x) (rsqrtf(x) + 0.5f)
#define S_SQRTF(x) (sqrtf(x) + 1000.5f)
#define S_FDIV(x) (y / (x) + 1.5f)
#define S_DFMA(x) ((x) * y + 0.5)
#define S_EXP(x) (exp(-(x)) + 0.5)
#define S_LOG(x) (log(x) + 1.5)
#define S_SIN(x) (sin(x) + 1.5)
#define S_DDIV(x) (y / (x) + 1.5)
#define S_DSQRT(x) (sqrt(x) + 1000.5)

CHAIN_KERNEL(m_fma, float, 1, S_FMA)
CHAIN_KERNEL(m_expf, float, 1, S_EXPF)
CHAIN_KERNEL(m_fexpf, float, 1, S_FEXPF)
CHAIN_KERNEL(m_logf, float, 1, S_LOGF)
CHAIN_KERNEL(m_sinf, float, 1, S_SINF)
CHAIN_KERNEL(m_cosf, float, 1, S_COSF)
CHAIN_KERNEL(m_tanf, float, 0, S_TANF)
CHAIN_KERNEL(m_powf, float, 1, S_POWF)
CHAIN_KERNEL(m_tanhf, float, 0, S_TANHF)
CHAIN_KERNEL(m_erff, float, 0, S_ERFF)
CHAIN_KERNEL(m_rsqrtf, float, 1, S_RSQRTF)
CHAIN_KERNEL(m_sqrtf, float, 1, S_SQRTF)
CHAIN_KERNEL(m_fdiv, float, 1, S_FDIV)
CHAIN_KERNEL(m_dfma, double, 1, S_DFMA)
CHAIN_KERNEL(m_exp, double, 1, S_EXP)
CHAIN_KERNEL(m_log, double, 1, S_LOG)
CHAIN_KERNEL(m_sin, double, 1, S_SIN)
CHAIN_KERNEL(m_ddiv, double, 1, S_DDIV)
CHAIN_KERNEL(m_dsqrt, double, 1, S_DSQRT)

}  // extern "C"
