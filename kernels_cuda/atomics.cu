// Atomic operations built from atomicCAS, and the "tipos/valores" example.
//   seed 002 (PMPP chapter 9 notes): atomicAdd_manual, atomicAdd written as a CAS loop
//   seed 004 (INF351 slides, Spanish): atomicMul for int and float, kernel0/kernel1,
//            the atomic `kernel`
// C has no overloading, so the float atomicMul is named atomicMulf here.  Seed 004's
// float version as written does not compile: see broken/atomic_mul_float_as_written.cu.

extern "C" {

// =====================================================================================
// seed 002: atomicAdd_manual -- "the essence of atomicAdd": retry a compare-and-swap
// until no other thread changed the word between our read and our write.
// =====================================================================================
__device__ int atomicAdd_manual(int *addr, int val) {
    int old = *addr, assumed;
    do {
        assumed = old;
        old = atomicCAS(addr, assumed, assumed + val);
    } while (old != assumed);
    return old;
}

// extra (driver for the seed's device function): a histogram counted with it
__global__ void histogram_cas(const unsigned char *data, int *histogram, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd_manual(&histogram[data[i]], 1);
    }
}

// =====================================================================================
// seed 004: atomicMul for int -- there is no built-in atomic multiply
// =====================================================================================
__device__ int atomicMul(int* address, int val){
    int old = *address, assumed;
    do{
        assumed = old;
        old = atomicCAS(address, assumed, val*assumed);
    } while(assumed != old);
    return old;
}

// extra: every thread multiplies one factor into products[i % num_slots]
__global__ void mul_int_kernel(const int *factors, int *products, int n, int num_slots) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMul(&products[i % num_slots], factors[i]);
    }
}

// =====================================================================================
// seed 004: atomicMul for float -- FIXED.  The seed passes `address` (a float*) to
// atomicCAS, which only takes integer pointers; it must pass `address_int`.
// The bits travel as int; __int_as_float / __float_as_int reinterpret them.
// =====================================================================================
__device__ float atomicMulf(float* address, float val){
    int *address_int = (int*)address;
    int old = *address_int, assumed;
    do{
        assumed = old;
        old = atomicCAS(address_int, assumed,
                        __float_as_int(val*__int_as_float(assumed)));  // FIX: address_int
    } while(assumed != old);
    return __int_as_float(old);
}

// extra: every thread multiplies one factor into products[i % num_slots]
__global__ void mul_float_kernel(const float *factors, float *products, int n, int num_slots) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMulf(&products[i % num_slots], factors[i]);
    }
}

// =====================================================================================
// seed 004, Ejemplo 1: split the work in two kernels so that no two threads of one
// launch touch the same element.  The host launches kernel0, then kernel1.
// =====================================================================================
__global__ void kernel0(int* tipos, int* valores, int N){
    int tId = threadIdx.x + blockIdx.x * blockDim.x;
    if (tId < N && tipos[tId] == 0){
        valores[tId] += 1;
    }
}

__global__ void kernel1(int* tipos, int* valores, int N){
    int tId = threadIdx.x + blockIdx.x * blockDim.x;
    if (tId < N && tipos[tId] == 1){
        valores[(tId + 1) % N] += 1;
    }
}

// =====================================================================================
// seed 004, Ejemplo 1 with atomics: one launch; the atomics resolve the collisions
// (thread tId of type 1 and thread tId+1 of type 0 both add to valores[tId+1]).
// =====================================================================================
__global__ void kernel(int* tipos, int* valores, int N){
    int tId = threadIdx.x + blockIdx.x * blockDim.x;
    if (tId < N){
        int tipo = tipos[tId];
        if (tipo == 0) atomicAdd(&valores[tId], 1);
        else atomicAdd(&valores[(tId + 1) % N], 1);
    }
}

}  // extern "C"
