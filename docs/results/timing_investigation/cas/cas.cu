// CAS microbenchmarks: what an atomicCAS lane costs the L2, and how fast a contended
// word changes, as functions of the access pattern and of the warps in flight.
extern "C" {

__device__ __forceinline__ int cas_add(int *addr, int val) {
    int old = *addr, assumed;
    do {
        assumed = old;
        old = atomicCAS(addr, assumed, assumed + val);
    } while (old != assumed);
    return old;
}

__device__ __forceinline__ unsigned slot_of(unsigned i, unsigned mask, int packed) {
    if (packed) return i & mask;                       // lane j -> word j: 8 lanes a sector
    unsigned h = i * 2654435761u;                      // a hash: lanes scatter over the words
    h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    return h & mask;
}

// one CAS-add per thread, as atomics/cas-add (val=1: every success changes the word;
// val=0: CAS(old, old) always succeeds at once, as atomics/mul-int once products are 0)
__global__ void k_cas(int *slots, unsigned mask, int packed, int val, int n, int *sink) {
    extern __shared__ int pad[];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (unsigned)n) {
        int r = cas_add(&slots[slot_of(i, mask, packed)], val);
        if (r == 0x7fffffff) { pad[0] = r; sink[0] = pad[0]; }
    }
}

// the same accesses as atomicAdd with the result used (ATOM) and unused (RED)
__global__ void k_atom(int *slots, unsigned mask, int packed, int val, int n, int *sink) {
    extern __shared__ int pad[];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (unsigned)n) {
        int r = atomicAdd(&slots[slot_of(i, mask, packed)], val);
        if (r == 0x7fffffff) { pad[0] = r; sink[0] = pad[0]; }
    }
}

__global__ void k_red(int *slots, unsigned mask, int packed, int val, int n, int *sink) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (unsigned)n) atomicAdd(&slots[slot_of(i, mask, packed)], val);
}

// CAS-add with attempts counted: total attempts per launch (one counter per block)
__global__ void k_cas_count(int *slots, unsigned mask, int packed, int val, int n,
                            unsigned long long *attempts) {
    extern __shared__ int pad[];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned a = 0;
    if (i < (unsigned)n) {
        int *addr = &slots[slot_of(i, mask, packed)];
        int old = *addr, assumed;
        do {
            assumed = old;
            old = atomicCAS(addr, assumed, assumed + val);
            ++a;
        } while (old != assumed);
    }
    for (int o = 16; o; o >>= 1) a += __shfl_down_sync(0xffffffffu, a, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(&attempts[blockIdx.x & 1023], (unsigned long long)a);
}
}
