// Load latency by where the line is: a one-lane pointer chase through an array that stays
// in L1 (1 KiB) or in L2 (8 MiB), and per-lane sequential walks (each lane its own run of
// consecutive ints, as CSR-scalar SpMV's rows), timed with clock64.
extern "C" {

__global__ void m_chase(const int *next, int *out, long long *cyc, int steps) {
    int p = 0;
    for (int i = 0; i < 256; i++) p = next[p];         // warm the lines
    long long t0 = clock64();
    for (int i = 0; i < steps; i++) p = next[p];
    long long t1 = clock64();
    if (threadIdx.x == 0) { cyc[blockIdx.x] = t1 - t0; out[blockIdx.x] = p; }
}

// each lane sums its own run of `len` consecutive ints starting at starts[lane]; the next
// index comes from the loaded value (idx = i + (v & 0): a dependent walk the compiler
// cannot unroll away)
__global__ void m_walk(const int *a, const int *starts, int *out, long long *cyc, int len, int dep) {
    int i = starts[blockIdx.x * blockDim.x + threadIdx.x];
    int s = 0;
    long long t0 = clock64();
    for (int k = 0; k < len; k++) {
        int v = a[i];
        s += v;
        i += 1 + (v & dep);          // dep = 0 at run time: i + 1, but through the load
    }
    long long t1 = clock64();
    if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

}  // extern "C"
