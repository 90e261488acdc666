// What probe/sin-series (probes4.cu) spends its time on: the probe as written, then with
// one thing changed at a time.
extern "C" {

#define SERIES(NAME, TERM)                                                     \
__global__ void NAME(const float *x, float *out, int n) {                      \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                             \
    if (i < n) {                                                               \
        float xi = x[i];                                                       \
        float s = 0.0f;                                                        \
        for (int k = 1; k <= 64; k++)                                          \
            s += TERM;                                                         \
        out[i] = s * 0.015625f;                                                \
    }                                                                          \
}

SERIES(as_written, sinf(xi * (float)k))            // arguments up to 64
SERIES(small_args, sinf(xi * 0.03125f * (float)k)) // arguments up to 2
SERIES(no_sin, xi * (float)k)                      // the loop without sinf
SERIES(fast_sin, __sinf(xi * (float)k))            // MUFU.SIN

}  // extern "C"
