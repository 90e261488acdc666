// Does a thrashed uniform constant cache depend on how far apart the warps are in the
// table?  uldc/ found ULDC reads of a table over four 64-byte lines cost ~22 SM cycles
// each at 64 warps an SM, in long loops (16,384 trips a warp); kernels whose warps read
// a few hundred table words and exit mostly do not pay it.  These kernels walk one
// __constant__ table with a warp-uniform index (ULDC), `iters` trips a warp, with W
// dependent FMAs of other work a trip (uldc3_wW), and either all warps from word 0
// (aligned), each warp from its own word (_spread: (global warp * 37) & mask; nvcc
// cannot tell threadIdx.x >> 5 is warp-uniform, so these read with LDC: a control), or
// each block from its own word (_bspread: blockIdx.x * 37, uniform: ULDC; a block's
// 8 warps together, the SM's 8 blocks at different points).
__constant__ float c_a[4096];
extern "C" {

#define ULDC3(NAME, W, SPREAD)                                                        \
__global__ void NAME(float *out, int iters, int mask) {                               \
    float x = threadIdx.x * 1e-3f, s = 0.0f, t = x;                                   \
    int a0 = SPREAD == 1 ? (((blockIdx.x * blockDim.x + threadIdx.x) >> 5) * 37)         \
           : SPREAD == 2 ? (int)(blockIdx.x * 37) : 0;                                   \
    for (int a = 0; a < iters; a++) {                                                 \
        s += x * c_a[(a0 + a) & mask];                                                \
        _Pragma("unroll") for (int k = 0; k < W; k++) t = t * 0.999f + 1e-4f;         \
    }                                                                                 \
    out[blockIdx.x * blockDim.x + threadIdx.x] = s + t;                               \
}

ULDC3(uldc3_w0, 0, 0)
ULDC3(uldc3_w4, 4, 0)
ULDC3(uldc3_w16, 16, 0)
ULDC3(uldc3_w0_spread, 0, 1)
ULDC3(uldc3_w16_spread, 16, 1)
ULDC3(uldc3_w0_bspread, 0, 2)
ULDC3(uldc3_w4_bspread, 4, 2)
ULDC3(uldc3_w16_bspread, 16, 2)

}
