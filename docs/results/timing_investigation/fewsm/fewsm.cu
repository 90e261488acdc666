// Scattered stores and loads (every lane on its own 128-byte line of a 4 MiB table that
// stays in L2) from grids of 8 to 528 blocks of 256 threads: is cal_scatter's rate a limit
// of each SM or of L2?  One SM holds 8 such blocks, so grids up to 132 blocks put one
// block on each of that many SMs.
#include <cstdio>
#include <cuda_runtime.h>
#define LINES (1 << 15)                      // 4 MiB of 128-byte lines
__global__ void scat(float *t, int iters) {
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    for (int it = 0; it < iters; it++)
        t[(((g + it * n) * 2654435761u) & (LINES - 1)) << 5] = (float)it;
}
__global__ void gath(const float *t, float *out, int iters) {
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    float s = 0.0f;
    for (int it = 0; it < iters; it++)
        s += t[(((g + it * n) * 2654435761u) & (LINES - 1)) << 5];
    out[g] = s;
}
int main() {
    float *t, *o;
    cudaMalloc(&t, (size_t)LINES * 128); cudaMalloc(&o, 528 * 256 * 4);
    cudaMemset(t, 0, (size_t)LINES * 128);
    int grids[] = {8, 16, 33, 66, 99, 132, 264, 528};
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (int k = 0; k < 2; k++)
        for (int gi = 0; gi < 8; gi++) {
            int grid = grids[gi], iters = 512;
            float v[15];
            for (int r = 0; r < 15; r++) {
                cudaEventRecord(a);
                if (k == 0) scat<<<grid, 256>>>(t, iters); else gath<<<grid, 256>>>(t, o, iters);
                cudaEventRecord(b); cudaEventSynchronize(b); cudaEventElapsedTime(&v[r], a, b);
            }
            for (int i = 1; i < 15; i++) for (int j = i; j > 0 && v[j] < v[j - 1]; j--) { float x = v[j]; v[j] = v[j - 1]; v[j - 1] = x; }
            double lines = (double)grid * 256 * iters, ms = v[7];
            printf("{\"kernel\": \"%s\", \"grid\": %d, \"median_ms\": %.5f, \"lines_per_us\": %.1f}\n",
                   k ? "gath" : "scat", grid, ms, lines / (ms * 1e3));
        }
    printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
