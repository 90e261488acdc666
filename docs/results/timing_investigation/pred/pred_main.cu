#include <cstdio>
#include <cuda_runtime.h>
#include "pred.cu"
typedef void (*K)(const int *, int *);
int main(int argc, char **argv) {
    int grid = argc > 1 ? atoi(argv[1]) : 16384, reps = argc > 2 ? atoi(argv[2]) : 20;
    int *in, *out;
    cudaMalloc(&in, (size_t)grid * 1024 * 4); cudaMalloc(&out, (size_t)grid * 1024 * 4);
    cudaMemset(in, 1, (size_t)grid * 1024 * 4);
    K ks[] = {red_rt, red_const, up_const, up_rt, swap_const};
    const char *names[] = {"red_rt", "red_const", "up_const", "up_rt", "swap_const"};
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (int k = 0; k < 5; k++) {
        ks[k]<<<grid, 512>>>(in, out);
        cudaDeviceSynchronize();
        float t[64];
        if (reps > 64) reps = 64;
        for (int r = 0; r < reps; r++) {
            cudaEventRecord(a); ks[k]<<<grid, 512>>>(in, out); cudaEventRecord(b);
            cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b);
            t[r] = ms;
        }
        for (int i = 1; i < reps; i++) for (int j = i; j > 0 && t[j] < t[j - 1]; j--) { float x = t[j]; t[j] = t[j - 1]; t[j - 1] = x; }
        printf("{\"kernel\": \"%s\", \"grid\": %d, \"median_ms\": %.5f}\n", names[k], grid, t[reps / 2]);
    }
    printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
