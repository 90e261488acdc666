// Which sub-partition runs a warp: blocks whose busy warps are some of their warps
// (session 69, for probe/dock-intra-lj-coulomb-excl-f64's warp 0 doing 91% of the work).
// Each busy warp runs `iters` trips of 8 independent FMA chains (one FMA a cycle keeps a
// sub-partition's FP32 pipe busy); the others go straight to the barrier.
extern "C" __global__ void busy(float *out, int iters, unsigned busy_mask) {
    int w = threadIdx.x >> 5;
    float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5,
          a6 = a0 + 6, a7 = a0 + 7;
    const float b = 0.999f, c = 0.001f;
    if ((busy_mask >> w) & 1u) {
        for (int i = 0; i < iters; ++i) {
            a0 = a0 * b + c; a1 = a1 * b + c; a2 = a2 * b + c; a3 = a3 * b + c;
            a4 = a4 * b + c; a5 = a5 * b + c; a6 = a6 * b + c; a7 = a7 * b + c;
        }
    }
    __syncthreads();
    float s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
    if (s == 12345.0f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
