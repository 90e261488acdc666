// Session 17: the math functions math.cu did not measure (simt charged them one slot).
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

#define S_M_FMA(x) ((x) * y + 0.5f)
#define S_M_CBRTF(x) (cbrtf(x) + 0.5f)
#define S_M_EXP2F(x) (exp2f(-(x)) + 0.5f)
#define S_M_EXP10F(x) (exp10f(-(x)) + 0.5f)
#define S_M_EXPM1F(x) (expm1f(-(x)) + 1.5f)
#define S_M_LOG2F(x) (log2f(x) + 1.5f)
#define S_M_LOG10F(x) (log10f(x) + 1.5f)
#define S_M_LOG1PF(x) (log1pf(x) + 0.5f)
#define S_M_ASINF(x) (asinf(x) * 0.5f + 0.1f)
#define S_M_ACOSF(x) (acosf(x) * 0.3f)
#define S_M_ATANF(x) (atanf(x) + 0.5f)
#define S_M_SINHF(x) (sinhf(x) * 0.25f + 0.1f)
#define S_M_COSHF(x) (coshf(x) * 0.25f)
#define S_M_ASINHF(x) (asinhf(x) + 0.5f)
#define S_M_ACOSHF(x) (acoshf(x) + 1.5f)
#define S_M_ATANHF(x) (atanhf(x) * 0.25f + 0.1f)
#define S_M_ERFCF(x) (erfcf(x) + 0.5f)
#define S_M_LGAMMAF(x) (lgammaf(x) * 0.5f + 2.0f)
#define S_M_TGAMMAF(x) (tgammaf(x) * 0.5f + 1.0f)
#define S_M_ATAN2F(x) (atan2f(x, y) + 0.5f)
#define S_M_HYPOTF(x) (hypotf(x, y) * 0.5f)
#define S_M_FMODF(x) (fmodf(x, y) + 1.5f)
#define S_M_FLOGF(x) (__logf(x) + 1.5f)
#define S_M_FSINF(x) (__sinf(x) + 1.5f)
#define S_M_FCOSF(x) (__cosf(x) + 1.5f)
#define S_M_FTANF(x) (__tanf(x) * 0.25f + 0.5f)
#define S_M_FLOG2F(x) (__log2f(x) + 1.5f)
#define S_M_FLOG10F(x) (__log10f(x) + 1.5f)
#define S_M_FEXP10F(x) (__exp10f(-(x)) + 0.5f)
#define S_M_FPOWF(x) (__powf(x, y) * 0.5f + 0.5f)
#define S_M_FDIVIDEF(x) (__fdividef(y, (x)) + 1.5f)
#define S_M_DFMA(x) ((x) * y + 0.5)
#define S_M_RSQRT(x) (rsqrt(x) + 0.5)
#define S_M_CBRT(x) (cbrt(x) + 0.5)
#define S_M_EXP2(x) (exp2(-(x)) + 0.5)
#define S_M_EXP10(x) (exp10(-(x)) + 0.5)
#define S_M_EXPM1(x) (expm1(-(x)) + 1.5)
#define S_M_LOG2(x) (log2(x) + 1.5)
#define S_M_LOG10(x) (log10(x) + 1.5)
#define S_M_LOG1P(x) (log1p(x) + 0.5)
#define S_M_COS(x) (cos(x) + 1.5)
#define S_M_TAN(x) (tan(x) * 0.25 + 0.5)
#define S_M_ASIN(x) (asin(x) * 0.5 + 0.1)
#define S_M_ACOS(x) (acos(x) * 0.3)
#define S_M_ATAN(x) (atan(x) + 0.5)
#define S_M_SINH(x) (sinh(x) * 0.25 + 0.1)
#define S_M_COSH(x) (cosh(x) * 0.25)
#define S_M_TANH(x) (tanh(x) + 0.5)
#define S_M_ASINH(x) (asinh(x) + 0.5)
#define S_M_ACOSH(x) (acosh(x) + 1.5)
#define S_M_ATANH(x) (atanh(x) * 0.25 + 0.1)
#define S_M_ERF(x) (erf(x) + 0.5)
#define S_M_ERFC(x) (erfc(x) + 0.5)
#define S_M_LGAMMA(x) (lgamma(x) * 0.5 + 2.0)
#define S_M_TGAMMA(x) (tgamma(x) * 0.5 + 1.0)
#define S_M_POW(x) (pow(x, y) * 0.5 + 0.5)
#define S_M_ATAN2(x) (atan2(x, y) + 0.5)
#define S_M_HYPOT(x) (hypot(x, y) * 0.5)
#define S_M_FMOD(x) (fmod(x, y) + 1.5)

CHAIN_KERNEL(m_fma, float, 1, S_M_FMA)
CHAIN_KERNEL(m_cbrtf, float, 1, S_M_CBRTF)
CHAIN_KERNEL(m_exp2f, float, 1, S_M_EXP2F)
CHAIN_KERNEL(m_exp10f, float, 1, S_M_EXP10F)
CHAIN_KERNEL(m_expm1f, float, 1, S_M_EXPM1F)
CHAIN_KERNEL(m_log2f, float, 1, S_M_LOG2F)
CHAIN_KERNEL(m_log10f, float, 1, S_M_LOG10F)
CHAIN_KERNEL(m_log1pf, float, 1, S_M_LOG1PF)
CHAIN_KERNEL(m_asinf, float, 0, S_M_ASINF)
CHAIN_KERNEL(m_acosf, float, 0, S_M_ACOSF)
CHAIN_KERNEL(m_atanf, float, 0, S_M_ATANF)
CHAIN_KERNEL(m_sinhf, float, 0, S_M_SINHF)
CHAIN_KERNEL(m_coshf, float, 0, S_M_COSHF)
CHAIN_KERNEL(m_asinhf, float, 0, S_M_ASINHF)
CHAIN_KERNEL(m_acoshf, float, 1, S_M_ACOSHF)
CHAIN_KERNEL(m_atanhf, float, 0, S_M_ATANHF)
CHAIN_KERNEL(m_erfcf, float, 0, S_M_ERFCF)
CHAIN_KERNEL(m_lgammaf, float, 2, S_M_LGAMMAF)
CHAIN_KERNEL(m_tgammaf, float, 1, S_M_TGAMMAF)
CHAIN_KERNEL(m_atan2f, float, 1, S_M_ATAN2F)
CHAIN_KERNEL(m_hypotf, float, 1, S_M_HYPOTF)
CHAIN_KERNEL(m_fmodf, float, 1, S_M_FMODF)
CHAIN_KERNEL(m_flogf, float, 1, S_M_FLOGF)
CHAIN_KERNEL(m_fsinf, float, 1, S_M_FSINF)
CHAIN_KERNEL(m_fcosf, float, 1, S_M_FCOSF)
CHAIN_KERNEL(m_ftanf, float, 0, S_M_FTANF)
CHAIN_KERNEL(m_flog2f, float, 1, S_M_FLOG2F)
CHAIN_KERNEL(m_flog10f, float, 1, S_M_FLOG10F)
CHAIN_KERNEL(m_fexp10f, float, 1, S_M_FEXP10F)
CHAIN_KERNEL(m_fpowf, float, 1, S_M_FPOWF)
CHAIN_KERNEL(m_fdividef, float, 1, S_M_FDIVIDEF)
CHAIN_KERNEL(m_dfma, double, 1, S_M_DFMA)
CHAIN_KERNEL(m_rsqrt, double, 1, S_M_RSQRT)
CHAIN_KERNEL(m_cbrt, double, 1, S_M_CBRT)
CHAIN_KERNEL(m_exp2, double, 1, S_M_EXP2)
CHAIN_KERNEL(m_exp10, double, 1, S_M_EXP10)
CHAIN_KERNEL(m_expm1, double, 1, S_M_EXPM1)
CHAIN_KERNEL(m_log2, double, 1, S_M_LOG2)
CHAIN_KERNEL(m_log10, double, 1, S_M_LOG10)
CHAIN_KERNEL(m_log1p, double, 1, S_M_LOG1P)
CHAIN_KERNEL(m_cos, double, 1, S_M_COS)
CHAIN_KERNEL(m_tan, double, 0, S_M_TAN)
CHAIN_KERNEL(m_asin, double, 0, S_M_ASIN)
CHAIN_KERNEL(m_acos, double, 0, S_M_ACOS)
CHAIN_KERNEL(m_atan, double, 0, S_M_ATAN)
CHAIN_KERNEL(m_sinh, double, 0, S_M_SINH)
CHAIN_KERNEL(m_cosh, double, 0, S_M_COSH)
CHAIN_KERNEL(m_tanh, double, 0, S_M_TANH)
CHAIN_KERNEL(m_asinh, double, 0, S_M_ASINH)
CHAIN_KERNEL(m_acosh, double, 1, S_M_ACOSH)
CHAIN_KERNEL(m_atanh, double, 0, S_M_ATANH)
CHAIN_KERNEL(m_erf, double, 0, S_M_ERF)
CHAIN_KERNEL(m_erfc, double, 0, S_M_ERFC)
CHAIN_KERNEL(m_lgamma, double, 2, S_M_LGAMMA)
CHAIN_KERNEL(m_tgamma, double, 1, S_M_TGAMMA)
CHAIN_KERNEL(m_pow, double, 1, S_M_POW)
CHAIN_KERNEL(m_atan2, double, 1, S_M_ATAN2)
CHAIN_KERNEL(m_hypot, double, 1, S_M_HYPOT)
CHAIN_KERNEL(m_fmod, double, 1, S_M_FMOD)

}  // extern "C"
