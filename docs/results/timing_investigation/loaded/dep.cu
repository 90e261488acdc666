// Dependent DRAM loads under a loaded memory system (H100/H200): how much a load whose
// address or whose execution waits on an earlier load costs, against the same bytes
// loaded independently.  One element per thread, ints, n = 2^24, identity indices.
extern "C" {

// depth D chain: j = a[d*n + j] for d < D (each level a fresh 64 MiB region), out[i] = j
#define CHAIN(D)                                                                     \
__global__ void k_chain##D(const int* __restrict__ a, int* out, int n) {             \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                   \
    if (i < n) {                                                                     \
        int j = i;                                                                   \
        _Pragma("unroll")                                                            \
        for (int d = 0; d < D; d++) j = a[(size_t)d * n + j];                        \
        out[i] = j;                                                                  \
    }                                                                                \
}
CHAIN(1) CHAIN(2) CHAIN(3) CHAIN(4)

// the same chain without the store traffic (the store never happens: j is never -1)
#define CHAINL(D)                                                                    \
__global__ void k_chainload##D(const int* __restrict__ a, int* out, int n) {         \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                   \
    if (i < n) {                                                                     \
        int j = i;                                                                   \
        _Pragma("unroll")                                                            \
        for (int d = 0; d < D; d++) j = a[(size_t)d * n + j];                        \
        if (j == -1) out[i] = j;                                                     \
    }                                                                                \
}
CHAINL(1) CHAINL(2)

// the same bytes, independent loads
#define INDEP(D)                                                                     \
__global__ void k_indep##D(const int* __restrict__ a, int* out, int n) {             \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                   \
    if (i < n) {                                                                     \
        int s = 0;                                                                   \
        _Pragma("unroll")                                                            \
        for (int d = 0; d < D; d++) s += a[(size_t)d * n + i];                       \
        out[i] = s;                                                                  \
    }                                                                                \
}
INDEP(1) INDEP(2) INDEP(3) INDEP(4)

// read-modify-write of one array, aligned (off 0) or one element off (off 1)
__global__ void k_rmw(int* v, int n, int off) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i + off] += 1;
}

// control dependence: the RMW runs where t[i] == 0 (races/case3-broken's kernel0/kernel1)
__global__ void k_ctl(const int* t, int* v, int n, int off) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && t[i] == 0) v[i + off] += 1;
}

// data dependence: the RMW's address comes from t (t[i] = i + off: identity or shifted)
__global__ void k_dep(const int* t, int* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[t[i]] += 1;
}

// races/case3-broken: type 0 -> v[i], type 1 -> v[i + 1]
__global__ void k_case3(const int* t, int* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { int tp = t[i]; v[tp == 0 ? i : i + 1] += 1; }
}

}
