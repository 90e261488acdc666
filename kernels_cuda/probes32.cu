// probe-curand (session 29): cuRAND's device API as Monte Carlo kernels use it, to
// measure what simt/include/curand_kernel.h costs: curand_init by thread id (a
// subsequence each, XORWOW's skip-ahead), the same with every base-4 digit of a 40-bit
// subsequence set (60 jump steps a thread), XORWOW and Philox draws after a cheap init,
// normals, and Monte Carlo pi with an atomicAdd a thread.
#include <curand_kernel.h>

extern "C" {

// out[i] = the first uniform of subsequence i
__global__ void curand_init_id(float *out, unsigned long long seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandState s;
    curand_init(seed, i, 0, &s);
    out[i] = curand_uniform(&s);
}

// subsequence (i << 20) | 0xFFFFF: its ten low base-4 digits are all 3 in every lane
__global__ void curand_init_deep(float *out, unsigned long long seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandState s;
    curand_init(seed, ((unsigned long long)i << 20) | 0xFFFFFull, 0, &s);
    out[i] = curand_uniform(&s);
}

// out[i] = the sum of 64 uniforms of sequence (seed + i): an init with no skip-ahead
__global__ void xorwow_draws64(float *out, unsigned long long seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandState s;
    curand_init(seed + i, 0, 0, &s);
    float acc = 0.f;
    for (int k = 0; k < 64; ++k) acc += curand_uniform(&s);
    out[i] = acc;
}

// the same with Philox4_32_10, a subsequence a thread (its init costs one block)
__global__ void philox_draws64(float *out, unsigned long long seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandStatePhilox4_32_10_t s;
    curand_init(seed, i, 0, &s);
    float acc = 0.f;
    for (int k = 0; k < 64; ++k) acc += curand_uniform(&s);
    out[i] = acc;
}

// out[i] = the sum of squares of 32 normals of subsequence i
__global__ void xorwow_normals32(float *out, unsigned long long seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandState s;
    curand_init(seed, i, 0, &s);
    float acc = 0.f;
    for (int k = 0; k < 32; ++k) {
        float z = curand_normal(&s);
        acc += z * z;
    }
    out[i] = acc;
}

// Monte Carlo pi as course notes write it: a subsequence a thread, 64 points, one
// atomicAdd of the thread's count
__global__ void mc_pi(unsigned int *hits, unsigned long long seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    curandState s;
    curand_init(seed, i, 0, &s);
    unsigned int c = 0;
    for (int k = 0; k < 64; ++k) {
        float x = curand_uniform(&s);
        float y = curand_uniform(&s);
        if (x * x + y * y <= 1.0f) ++c;
    }
    atomicAdd(hits, c);
}

}
