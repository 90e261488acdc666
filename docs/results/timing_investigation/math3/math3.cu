// Session 18: sincosf and its kin, sinpi and cospi (supported from session 18), with sinf and cosf beside them.
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


__device__ float scf(float x) { float s, c; sincosf(x, &s, &c); return s * 0.5f + c * 0.25f; }
__device__ float fscf(float x) { float s, c; __sincosf(x, &s, &c); return s * 0.5f + c * 0.25f; }
__device__ float scpf(float x) { float s, c; sincospif(x, &s, &c); return s * 0.5f + c * 0.25f; }
__device__ double scd(double x) { double s, c; sincos(x, &s, &c); return s * 0.5 + c * 0.25; }
__device__ double scpd(double x) { double s, c; sincospi(x, &s, &c); return s * 0.5 + c * 0.25; }

#define S_M_FMA(x) ((x) * y + 0.5f)
#define S_M_SINF(x) (sinf(x) + 0.5f)
#define S_M_COSF(x) (cosf(x) + 0.5f)
#define S_M_SINCOSF(x) (scf(x) + 0.5f)
#define S_M_FSINCOSF(x) (fscf(x) + 0.5f)
#define S_M_SINPIF(x) (sinpif(x) + 0.5f)
#define S_M_COSPIF(x) (cospif(x) + 0.5f)
#define S_M_SINCOSPIF(x) (scpf(x) + 0.5f)
#define S_M_DFMA(x) ((x) * y + 0.5)
#define S_M_SIN(x) (sin(x) + 0.5)
#define S_M_SINCOS(x) (scd(x) + 0.5)
#define S_M_SINPI(x) (sinpi(x) + 0.5)
#define S_M_COSPI(x) (cospi(x) + 0.5)
#define S_M_SINCOSPI(x) (scpd(x) + 0.5)

CHAIN_KERNEL(m_fma, float, 1, S_M_FMA)
CHAIN_KERNEL(m_sinf, float, 1, S_M_SINF)
CHAIN_KERNEL(m_cosf, float, 1, S_M_COSF)
CHAIN_KERNEL(m_sincosf, float, 1, S_M_SINCOSF)
CHAIN_KERNEL(m_fsincosf, float, 1, S_M_FSINCOSF)
CHAIN_KERNEL(m_sinpif, float, 1, S_M_SINPIF)
CHAIN_KERNEL(m_cospif, float, 1, S_M_COSPIF)
CHAIN_KERNEL(m_sincospif, float, 1, S_M_SINCOSPIF)
CHAIN_KERNEL(m_dfma, double, 1, S_M_DFMA)
CHAIN_KERNEL(m_sin, double, 1, S_M_SIN)
CHAIN_KERNEL(m_sincos, double, 1, S_M_SINCOS)
CHAIN_KERNEL(m_sinpi, double, 1, S_M_SINPI)
CHAIN_KERNEL(m_cospi, double, 1, S_M_COSPI)
CHAIN_KERNEL(m_sincospi, double, 1, S_M_SINCOSPI)

}
