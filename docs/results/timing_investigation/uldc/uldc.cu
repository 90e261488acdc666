// __constant__ tables walked in a loop by a warp-uniform index: nvcc reads them with ULDC
// through a uniform register (uldc_*) or, where the index is in an ordinary register,
// with LDC (ldc_*).  uldc.py times them over table footprints of 256 B to 16 KB (32 KB for one table), with one
// warp on one SM and with 64 warps on every SM.
__constant__ float c_a[8192];      // (64 KB of __constant__ data a module at most)
__constant__ float c_b[4096];
extern "C" {

// one table: s += x * c_a[j], j = a & mask (a uniform loop counter), iters trips
__global__ void uldc_one(float *out, int iters, int mask) {
    float x = threadIdx.x * 1e-3f, s = 0.0f;
    for (int a = 0; a < iters; a++) s += x * c_a[a & mask];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// two tables, as a backprojection reads cos and sin: s += x * c_a[j] + y * c_b[j]
__global__ void uldc_two(float *out, int iters, int mask) {
    float x = threadIdx.x * 1e-3f, y = 1.0f - x, s = 0.0f;
    for (int a = 0; a < iters; a++) {
        int j = a & mask;
        s += x * c_a[j] + y * c_b[j];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// the same two tables through LDC: the index carries a lane-dependent term that is always
// 0 (threadIdx.x >> 10 for blocks of at most 1024), so nvcc keeps it in a vector register
__global__ void ldc_two(float *out, int iters, int mask) {
    float x = threadIdx.x * 1e-3f, y = 1.0f - x, s = 0.0f;
    int z = threadIdx.x >> 10;
    for (int a = 0; a < iters; a++) {
        int j = (a + z) & mask;
        s += x * c_a[j] + y * c_b[j];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

}
