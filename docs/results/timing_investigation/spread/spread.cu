// atomicAdd (RED, result unused) of 2^24 lanes over a region of mask + 1 int words: at a
// hashed word a lane (rnd), or a hashed 128-byte line a warp with a word a lane (line)
extern "C" {

__device__ __forceinline__ unsigned mix(unsigned x) {
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}

__global__ void spread_rnd(unsigned *bins, unsigned mask, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[mix((unsigned)i) & mask], 1u);
}

__global__ void spread_line(unsigned *bins, unsigned mask, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[((mix((unsigned)i >> 5) << 5) | (i & 31)) & mask], 1u);
}

}
