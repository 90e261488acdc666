// Partial-sector stores back to back (an AoS record written field by field, the loop
// unrolled) against the same stores a trip apart (#pragma unroll 1), K 4-byte fields a
// thread, so a warp's store has its lanes 4K bytes apart.
template <int K>
__device__ void put_unrolled(float *out, int c) {
#pragma unroll
    for (int f = 0; f < K; ++f) out[(size_t)c * K + f] = (float)(c + f);
}

template <int K>
__device__ void put_loop(float *out, int c) {
#pragma unroll 1
    for (int f = 0; f < K; ++f) out[(size_t)c * K + f] = (float)(c + f);
}

#define BOTH(K) \
extern "C" __global__ void aos_unrolled_##K(float *out, int records) { \
    int c = blockIdx.x * blockDim.x + threadIdx.x; if (c < records) put_unrolled<K>(out, c); } \
extern "C" __global__ void aos_loop_##K(float *out, int records) { \
    int c = blockIdx.x * blockDim.x + threadIdx.x; if (c < records) put_loop<K>(out, c); }

BOTH(3)
BOTH(6)
BOTH(8)
BOTH(16)
BOTH(32)
