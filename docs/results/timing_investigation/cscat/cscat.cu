// Session 58: one __constant__ table read at scattered words by a warp's lanes (LDC with
// G distinct addresses a request), the table's span S bytes.  probe/nscore-backtr-const
// (a binary search in a 4 KB table, ~31 distinct words a warp) and
// probe/ionex-tec-const-bilin took about 7 SM cycles a pass where simt charges
// timing.CONST_PASS_CYCLES (2.0, measured on adjacent words).  Each trip: lane l of warp w
// reads word h(w, trip, l / (32 / G)) & mask, a hash (independent of the loads, so the
// warp's trips overlap), and adds it to its sum.
__constant__ float c_t[16384];

__device__ __forceinline__ unsigned int mix(unsigned int x) {
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}

extern "C" __global__ void cscat(float *out, int iters, int mask, int group_shift) {
    unsigned int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned int g = (threadIdx.x & 31) >> group_shift;       // the lane's group: G = 32 >> shift
    float s = 0.0f;
    for (int i = 0; i < iters; i++) {
        unsigned int k = mix(w * 0x9e3779b9u + (unsigned int)i * 0x85ebca6bu + g * 0xc2b2ae35u);
        s += c_t[k & (unsigned int)mask];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
