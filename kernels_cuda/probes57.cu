// probe-unseen55: what a skeptical GPU performance engineer would write to
// break a timing model, each kernel's time set by one hardware limit in a shape the other
// probes have not used: blocks of one warp each following one random cycle of 8 MiB (all
// lanes of a warp on the same word), 32 blocks an SM by the blocks-per-SM limit, not by
// threads, so the time is L2's latency times the steps times the 4 waves; a grid of 133
// blocks of 1024 threads (one block more than an SM each) running eight independent FMA
// chains a thread, the GPU's time that of the one SM holding two blocks (a tail of
// one block, twice the time of 132); 2^24 float atomicAdds at random addresses among 4096
// (16 KiB of bins, the lanes of a warp on 32 different sectors); a butterfly all-reduce of
// a 1024-float row in shared memory a block of 1024 threads, 21 __syncthreads() a row and
// little else (barrier latency at 32 warps a block); the sum of the x of 2^24 xyz triples
// (a load every 12 bytes: all the bytes come from DRAM for a third of them used); and
// y = a x + y over 2^22 floats in blocks of 32 threads, one element a thread (2^17 blocks:
// the rate the GPU starts blocks at).
// Predicted before their first GPU run.

#define U55_ROW 1024
#define U55_WARPS 8        // xyz_sum_x's warps a block (256 threads)

extern "C" {

// block b (one warp) starts at b * size / gridDim.x of next (a random cycle over size ints)
// and all its lanes follow it for steps steps, one dependent load of one word a step;
// out[b * 32 + lane] = where it ended + lane
__global__ void chase_warp_blocks(const int *__restrict__ next, int *__restrict__ out, int steps, int size) {
    int p = (int)((long long)blockIdx.x * size / gridDim.x);
    for (int s = 0; s < steps; ++s) p = next[p];
    out[blockIdx.x * blockDim.x + threadIdx.x] = p + (int)threadIdx.x;
}

// thread g runs iters rounds of eight independent chains a_k = fmaf(a_k, 0.999f - k/1024, b)
// (b = x[g], a_k starting at b + k); y[g] = the chains' sum ((a0 + a1) + (a2 + a3)) + ..
__global__ void fma_tail(const float *__restrict__ x, float *__restrict__ y, int iters) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    float b = x[g];
    float a0 = b, a1 = b + 1.0f, a2 = b + 2.0f, a3 = b + 3.0f, a4 = b + 4.0f, a5 = b + 5.0f, a6 = b + 6.0f,
          a7 = b + 7.0f;
    for (int it = 0; it < iters; ++it) {
        a0 = fmaf(a0, 0.999f, b);
        a1 = fmaf(a1, 0.998f, b);
        a2 = fmaf(a2, 0.997f, b);
        a3 = fmaf(a3, 0.996f, b);
        a4 = fmaf(a4, 0.995f, b);
        a5 = fmaf(a5, 0.994f, b);
        a6 = fmaf(a6, 0.993f, b);
        a7 = fmaf(a7, 0.992f, b);
    }
    y[g] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
}

// bins[idx[i]] += v[i] for i < n, one float atomicAdd a thread (the result unused: RED)
__global__ void atomic_f32_rand(const int *__restrict__ idx, const float *__restrict__ v, float *bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[idx[i]], v[i]);
}

// block b centres row b of x (1024 floats): every thread gets the row's sum by a butterfly
// in shared memory (at level k, v += s[t ^ k], k = 1, 2, .. 512: the same sum in every
// thread, float adds commuting), a barrier after each read and each write; y = x - sum / 1024
__global__ void butterfly_center1024(const float *__restrict__ x, float *__restrict__ y) {
    __shared__ float s[U55_ROW];
    int t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * U55_ROW + t;
    float xv = x[i], v = xv;
    s[t] = v;
    __syncthreads();
    for (int k = 1; k < U55_ROW; k <<= 1) {
        v += s[t ^ k];
        __syncthreads();
        s[t] = v;
        __syncthreads();
    }
    y[i] = xv - v * (1.0f / U55_ROW);
}

// out[b] = the sum of p[3 i] (the x of n xyz triples) over the i of block b's threads:
// thread g adds p[3g], p[3(g + T)], .. (T the grid's threads), then its warp's lanes by
// __shfl_down_sync (16, 8, .. 1) and lane 0's of the 8 warps in order
__global__ void xyz_sum_x(const float *__restrict__ p, float *__restrict__ out, int n) {
    __shared__ float ws[U55_WARPS];
    int T = gridDim.x * blockDim.x, g = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int i = g; i < n; i += T) s += p[3 * (size_t)i];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (lane == 0) ws[w] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float b = 0.0f;
        for (int k = 0; k < U55_WARPS; ++k) b += ws[k];
        out[blockIdx.x] = b;
    }
}

// y[i] = a x[i] + y[i], one element a thread, blocks of 32 threads
__global__ void axpy_b32(float a, const float *__restrict__ x, float *__restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

}
