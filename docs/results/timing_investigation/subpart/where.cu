// Where the busy kernel's warps run: each warp's lane 0 records %smid and %warpid (the
// warp's slot in its SM; sub-partition = slot mod 4, by NVIDIA's PTX notes, a belief this
// checks against the timings) after `iters` trips of the same FMA chains as subpart.cu.
extern "C" __global__ void where(unsigned *smid, unsigned *slot, float *out, int iters, unsigned busy_mask) {
    int w = threadIdx.x >> 5;
    float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
    const float b = 0.999f, c = 0.001f;
    if ((busy_mask >> w) & 1u) {
        for (int i = 0; i < iters; ++i) {
            a0 = a0 * b + c; a1 = a1 * b + c; a2 = a2 * b + c; a3 = a3 * b + c;
        }
    }
    unsigned s, k;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(k));
    __syncthreads();
    int g = blockIdx.x * (blockDim.x >> 5) + w;
    if ((threadIdx.x & 31) == 0) { smid[g] = s; slot[g] = k; }
    float t = a0 + a1 + a2 + a3;
    if (t == 12345.0f) out[blockIdx.x] = t;
}
