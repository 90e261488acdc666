// Microbenchmarks behind `simt calibrate --real`. Each one stresses one resource of the
// timing model; the emulator counts the same launch, so a measured time divided by the
// emulator's counter gives that resource's rate in the emulator's own units.
extern "C" {

// launch overhead: nothing to do
__global__ void cal_empty(int *out, int n) {
    if (threadIdx.x + blockIdx.x * blockDim.x == n) out[0] = 1;
}

// DRAM bandwidth: grid-stride float4 copy
__global__ void cal_copy(const float4 *in, float4 *out, int n4) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x)
        out[i] = in[i];
}

// one element per thread, one dependent load then a store: DRAM traffic and the blocks'
// critical paths about equal, so the time says how far the two overlap
__global__ void cal_stream(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * 2.0f + 1.0f;
}

// the same with the load's address read from memory first (idx[i] = i): two DRAM loads
// in a chain, so the time says what a dependent load costs while the memory streams
__global__ void cal_stream2(const float *in, const int *idx, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[idx[i]] * 2.0f + 1.0f;
}

// L2 transactions: a random gather from (or scatter into) a table that stays in L2, so
// every lane's access is its own 128-byte line (one L2 transaction per lane, no DRAM
// behind the table)
__global__ void cal_gather(const float *table, const int *idx, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = table[idx[i]];
}

__global__ void cal_scatter(float *table, const int *idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        table[idx[i]] = (float)i;
}

// the same from a few blocks, grid-stride: what one SM sends when L2 is not the limit
__global__ void cal_scatter_gs(float *table, const int *idx, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        table[idx[i]] = (float)i;
}

// L2 bandwidth: every block re-reads the same small buffer
__global__ void cal_l2(const float4 *in, float *out, int n4, int reps) {
    float acc = 0.0f;
    for (int r = 0; r < reps; r++) {
        int i = (threadIdx.x + (blockIdx.x + r) * blockDim.x) % n4;
        float4 v = in[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == -1.0f) out[blockIdx.x] = acc;
}

// instruction issue: four independent dependent-FMA chains per thread
__global__ void cal_alu(float *out, int iters) {
    float a = threadIdx.x, b = a + 1.0f, c = a + 2.0f, d = a + 3.0f;
    for (int i = 0; i < iters; i++) {
        a = a * 0.999f + 0.5f;
        b = b * 0.999f + 0.5f;
        c = c * 0.999f + 0.5f;
        d = d * 0.999f + 0.5f;
    }
    if (a + b + c + d == -1.0f) out[blockIdx.x] = a;
}

// the integer ALU pipe (half the FMA pipes' rate on sm_90): four independent chains of
// shifts and xors per thread (SHF and LOP3, nothing for the FMA pipes)
__global__ void cal_lop(unsigned *out, int iters) {
    unsigned a = threadIdx.x, b = a + 1u, c = a + 2u, d = a + 3u;
    for (int i = 0; i < iters; i++) {
        a ^= a >> 3;
        b ^= b >> 5;
        c ^= c >> 7;
        d ^= d >> 9;
    }
    if ((a ^ b ^ c ^ d) == 0xffffffffu) out[blockIdx.x] = a;
}

// the bit-counting pipe (POPC; __clz's FLO and __brev's BREV take it too): four
// independent population counts a trip, their sums on the ALU and FMA pipes
__global__ void cal_popc(unsigned *out, int iters) {
    unsigned a = threadIdx.x * 0x9e3779b9u, s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int i = 0; i < iters; i++) {
        s0 += __popc(a ^ (4u * i));
        s1 += __popc(a ^ (4u * i + 1u));
        s2 += __popc(a ^ (4u * i + 2u));
        s3 += __popc(a ^ (4u * i + 3u));
    }
    if ((s0 ^ s1 ^ s2 ^ s3) == 0xffffffffu) out[blockIdx.x] = s0;
}

// the FP64 pipe (DFMA): four independent double FMA chains a trip
__global__ void cal_dfma(double *out, int iters) {
    double a = threadIdx.x * 1e-3, b = a + 0.25, c = a + 0.5, d = a + 0.75;
    for (int i = 0; i < iters; i++) {
        a = a * 0.999 + 1e-3;
        b = b * 0.999 + 1e-3;
        c = c * 0.999 + 1e-3;
        d = d * 0.999 + 1e-3;
    }
    if (a + b + c + d == -1.0) out[blockIdx.x] = a;
}

// the FMA pipe's heavy half, which takes 64-bit integer products (IMAD.WIDE.U32 and IMADs)
// at half its rate: four independent chains of 64-bit multiply-adds by values nvcc cannot
// see, v = v * c + d
__global__ void cal_imad(unsigned long long *out, unsigned long long c, unsigned long long d, int iters) {
    unsigned long long a = threadIdx.x, b = a + 1ull, e = a + 2ull, f = a + 3ull;
    for (int i = 0; i < iters; i++) {
        a = a * c + d;
        b = b * c + d;
        e = e * c + d;
        f = f * c + d;
    }
    if ((a ^ b ^ e ^ f) == 0xffffffffffffffffull) out[blockIdx.x] = a;
}

// global atomics: idx chooses the address pattern (all one, distinct, 256 bins)
__global__ void cal_gatom(int *c, const int *idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&c[idx[i]], 1);
}

// the same with float adds: on one word each waits for the one before it longer
__global__ void cal_gatom_f(float *c, const int *idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&c[idx[i]], 1.0f);
}

// atomicCAS in a retry loop (seed 002's atomicAdd_manual) on c[idx[i]]: val 0 writes back
// the value it saw, so every CAS succeeds at once (what a CAS lane costs the L2); val 1
// changes the word, so warps on the same word retry (how the retries grow with the warps
// in flight)
__global__ void cal_gcas(int *c, const int *idx, int n, int val) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int *addr = &c[idx[i]];
        int old = *addr, assumed;
        do {
            assumed = old;
            old = atomicCAS(addr, assumed, assumed + val);
        } while (old != assumed);
    }
}

// shared atomics: the address comes from a shared table each trip (so the compiler cannot
// merge the trips); idx all zero: every lane of a warp on one word; idx = 0..255: no collision
__global__ void cal_satom(const int *idx, int *out, int reps) {
    __shared__ int s[256];
    __shared__ int sidx[256];
    s[threadIdx.x] = 0;
    sidx[threadIdx.x] = idx[threadIdx.x];
    __syncthreads();
    for (int r = 0; r < reps; r++) atomicAdd(&s[sidx[(threadIdx.x + r) & 255]], 1);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

// plain global stores: idx chooses how many warps write one sector
__global__ void cal_gstore(int *c, const int *idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[idx[i]] = i;
}

// memory latency with independent loads in flight (a loop over a strided array)
__global__ void cal_ilp(const float *in, float *out, int k, int stride) {
    float acc = 0.0f;
    for (int j = 0; j < k; j++) acc += in[threadIdx.x + j * stride];
    out[threadIdx.x] = acc;
}

// shared wavefronts: loads with a stride (32 -> every lane in one bank)
__global__ void cal_shared(float *out, int stride, int reps) {
    __shared__ float s[4096];
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = i;
    __syncthreads();
    float acc = 0.0f;
    int k = (threadIdx.x * stride) % 4096;
    for (int r = 0; r < reps; r++) {
        acc += s[k];
        k = (k + 1) % 4096;
    }
    if (acc == -1.0f) out[blockIdx.x] = acc;
}

// memory latency: one thread chases pointers
__global__ void cal_chase(const int *next, int *out, int steps) {
    int j = 0;
    for (int s = 0; s < steps; s++) j = next[j];
    out[0] = j;
}

// barrier latency
__global__ void cal_bar(int *out, int reps) {
    int x = threadIdx.x;
    for (int r = 0; r < reps; r++) {
        x = x * 3 + 1;
        __syncthreads();
    }
    if (x == -1) out[0] = x;
}

// a warp reads its row, then reads it again: with 64 warps on each SM and rows of 8 KiB
// the GPU touches 66 MiB between a sector's two reads, about L2's size, so part of the
// second pass comes from DRAM again (timing_investigation/retouch/)
__global__ void cal_reread(const float *x, float *y, int rows, int cols) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (w >= rows)
        return;
    const float *r = x + (size_t)w * cols;
    float s = 0.f;
    for (int c = lane; c < cols; c += 32)
        s += r[c];
    for (int o = 16; o; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    float t = 0.f;
    for (int c = lane; c < cols; c += 32)
        t += r[c] * s;
    if (lane == 0)
        y[w] = t;
}

}  // extern "C"
