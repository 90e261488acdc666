// Kernels added in session 6 after the math library's costs went into the timing model
// (machine.OP_COST), to test them on code they were not measured on (family
// probe-unseen3): Black-Scholes call and put prices (expf, logf, sqrtf, divisions) and a
// compute-bound sum of sines.
extern "C" {

// the standard normal cumulative distribution (Abramowitz & Stegun 26.2.17)
__device__ float cnd(float d) {
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f,
                a4 = -1.821255978f, a5 = 1.330274429f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = 0.3989422804f * expf(-0.5f * d * d) *
              (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0.0f ? 1.0f - c : c;
}

// European call and put prices of n options (price s, strike x, years t), rate r,
// volatility v
__global__ void black_scholes(const float *s, const float *x, const float *t, float *call,
                              float *put, float r, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float sq = sqrtf(t[i]);
        float d1 = (logf(s[i] / x[i]) + (r + 0.5f * v * v) * t[i]) / (v * sq);
        float d2 = d1 - v * sq;
        float e = x[i] * expf(-r * t[i]);
        call[i] = s[i] * cnd(d1) - e * cnd(d2);
        put[i] = e * cnd(-d2) - s[i] * cnd(-d1);
    }
}

// out[i] = sum over k of sin(x[i] * k) / 64: 64 sinf a thread, little memory
__global__ void sin_series(const float *x, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float xi = x[i];
        float s = 0.0f;
        for (int k = 1; k <= 64; k++)
            s += sinf(xi * (float)k);
        out[i] = s * 0.015625f;
    }
}

}  // extern "C"
