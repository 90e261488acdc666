#include <cstdio>
#include <cuda_runtime.h>
#include "pred.cu"
#include "../../../../kernels_cuda/probes20.cu"
// the metrics of ncu264.csv plus the all-op shared wavefront total, on up_const and
// probes20.cu's blelloch_scan (which ncu19 measured with the total only)
int main() {
    int grid = 264, *in, *out;
    cudaMalloc(&in, (size_t)grid * 1024 * 4); cudaMalloc(&out, (size_t)grid * 1024 * 4);
    cudaMemset(in, 1, (size_t)grid * 1024 * 4);
    up_const<<<grid, 512>>>(in, out);
    blelloch_scan<<<grid, 512>>>(in, out, grid * 1024);
    cudaDeviceSynchronize();
    printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
