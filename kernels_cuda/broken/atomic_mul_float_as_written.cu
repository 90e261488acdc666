// seed 004 (INF351 slides): the float atomicMul exactly as the slide writes it.
// It does NOT compile: atomicCAS has no overload taking a float*; the slide meant
// atomicCAS(address_int, ...).  Fixed version: atomicMulf in ../atomics.cu.
// Not a catalog entry: the emulator must reject it with file:line:col, like NVRTC.

extern "C" {

__device__ float atomicMul(float* address, float val){
    int *address_int = (int*)address;
    int old = *address_int, assumed;
    do{
        assumed = old;
        old = atomicCAS(address, assumed,
                        __float_as_int(val*__int_as_float(assumed)));
    } while(assumed != old);
    return __int_as_float(old);
}

__global__ void mul_float_as_written(const float *factors, float *products, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMul(&products[0], factors[i]);
    }
}

}  // extern "C"
