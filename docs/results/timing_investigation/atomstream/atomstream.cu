// Atomics after streaming (session 49): does an atomic queue add to the streaming before
// it?  Each of n threads reads S floats (s * n + i: coalesced, from DRAM), stores their sum,
// then does one atomic whose value is that sum, in pattern `pat`:
//   0 none; 1 one word, the warp's adds aggregated by nvcc (a uniform address);
//   2 one word a block (blockIdx.x % 64 words, 1 KiB apart);
//   3 sorted runs: lane i on word i / 64 (two warps a word, moving through 1 MiB);
//   4 random words of a 4096-word table; 5 random words of a 16 M-word table;
//   6 random words of a 4096-word table, float adds.
// before = 1: the atomic first (its value the index), then the streaming.
__device__ __forceinline__ unsigned int mix(unsigned int x) {
    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
    return x;
}

extern "C" __global__ void atomstream(const float *a, float *out, int *c, float *cf, int S, int pat,
                                      int before, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = i & 7;
    if (before) {
        if (pat == 1) atomicAdd(&c[0], 1);
        else if (pat == 2) atomicAdd(&c[(blockIdx.x & 63) * 256], v);
        else if (pat == 3) atomicAdd(&c[i >> 6], v);
        else if (pat == 4) atomicAdd(&c[mix(i) & 4095], v);
        else if (pat == 5) atomicAdd(&c[mix(i) & 16777215], v);
        else if (pat == 6) atomicAdd(&cf[mix(i) & 4095], (float)v);
    }
    float s = 0.0f;
    for (int k = 0; k < S; k++) s += a[(size_t)k * n + i];
    out[i] = s;
    if (!before) {
        int w = (int)s;
        if (pat == 1) atomicAdd(&c[0], 1);
        else if (pat == 2) atomicAdd(&c[(blockIdx.x & 63) * 256], w);
        else if (pat == 3) atomicAdd(&c[i >> 6], w);
        else if (pat == 4) atomicAdd(&c[mix(i) & 4095], w);
        else if (pat == 5) atomicAdd(&c[mix(i) & 16777215], w);
        else if (pat == 6) atomicAdd(&cf[mix(i) & 4095], s);
    }
}
