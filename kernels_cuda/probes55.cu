// probe-unseen53 (session 35): what a skeptical GPU performance engineer would write to
// test a timing model's numbers, each kernel's time set by one hardware limit in a shape
// the other probes have not used: a __launch_bounds__(256, 2) SGEMM whose 8 x 8 register
// tile a thread makes registers the occupancy limit (2 blocks an SM: its 400 blocks take
// two rounds); a clamped 17-tap window over chunks staged in 76 KiB of dynamic shared memory a
// block (2 blocks an SM once the 1 KiB each block reserves is counted, 3 without it); a
// grid of 66 blocks (half the SMs) summing four independent streams a thread, its DRAM
// rate set by the loads it keeps in flight; one warp an SM chasing a random cycle of
// 32 MiB (inside L2 on the whole, beyond one partition's half), latency-bound; eight
// warps a block reading shared memory with strides 1, 2, 3, 4, 8, 16, 32 and 33 words
// (1- to 32-way bank conflicts in one block); and eight independent double FMA chains
// beside an integer xorshift a thread, 16 DFMAs to 6 integer operations a round (the
// FP64 pipe, 64 lanes a clock an SM, half the FP32 one's, the limit).
// Predicted before their first GPU run.

#define RT_BM 128
#define RT_BN 128
#define RT_BK 8
#define WIN_R 8
#define SMIX_WORDS 4096

// regtile8x8_lb's register tile: row i's eight accumulators c<i>0 .. c<i>7, declared, updated
// with a[i] times the eight b_j, and stored (columns ca .. ca+3 and cb .. cb+3, in bounds)
#define RT_DECL(i) float c##i##0 = 0.0f, c##i##1 = 0.0f, c##i##2 = 0.0f, c##i##3 = 0.0f, \
                         c##i##4 = 0.0f, c##i##5 = 0.0f, c##i##6 = 0.0f, c##i##7 = 0.0f;
#define RT_FMA8(i, a)                                                                         \
    c##i##0 = fmaf(a, b_0, c##i##0); c##i##1 = fmaf(a, b_1, c##i##1); c##i##2 = fmaf(a, b_2, c##i##2); \
    c##i##3 = fmaf(a, b_3, c##i##3); c##i##4 = fmaf(a, b_4, c##i##4); c##i##5 = fmaf(a, b_5, c##i##5); \
    c##i##6 = fmaf(a, b_6, c##i##6); c##i##7 = fmaf(a, b_7, c##i##7);
#define RT_STORE(i, r)                                                                        \
    if ((r) < M) {                                                                            \
        float *cr = C + (size_t)(r) * N;                                                      \
        if (ca < N) cr[ca] = c##i##0;                                                         \
        if (ca + 1 < N) cr[ca + 1] = c##i##1;                                                 \
        if (ca + 2 < N) cr[ca + 2] = c##i##2;                                                 \
        if (ca + 3 < N) cr[ca + 3] = c##i##3;                                                 \
        if (cb < N) cr[cb] = c##i##4;                                                         \
        if (cb + 1 < N) cr[cb + 1] = c##i##5;                                                 \
        if (cb + 2 < N) cr[cb + 2] = c##i##6;                                                 \
        if (cb + 3 < N) cr[cb + 3] = c##i##7;                                                 \
    }

extern "C" {

// C = A B (A M x K, B K x N, row-major floats): a block a 128 x 128 tile of C, 256 threads,
// a thread an 8 x 8 register tile (rows ty*4 .. +3 and 64 + ty*4 .. +3, columns likewise
// with tx) in 64 scalar accumulators written out by macros (RT_*), K in steps of 8 through
// shared tiles (A's transposed) read as float4s, 64 FFMAs a thread a step of k;
// __launch_bounds__(256, 2) caps nvcc at 128 registers a thread, so 2 blocks an SM
__global__ void __launch_bounds__(256, 2)
regtile8x8_lb(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N,
              int K) {
    __shared__ __align__(16) float As[RT_BK][RT_BM];
    __shared__ __align__(16) float Bs[RT_BK][RT_BN];
    int t = threadIdx.x, tx = t & 15, ty = t >> 4;
    int row0 = blockIdx.y * RT_BM, col0 = blockIdx.x * RT_BN;
    RT_DECL(0) RT_DECL(1) RT_DECL(2) RT_DECL(3) RT_DECL(4) RT_DECL(5) RT_DECL(6) RT_DECL(7)
    int ar = t >> 1, ak = (t & 1) * 4;              // A tile: 128 rows x 8 k, 4 a thread
    int bk = t >> 5, bc = (t & 31) * 4;             // B tile: 8 k x 128 columns, 4 a thread
    for (int k0 = 0; k0 < K; k0 += RT_BK) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            int gr = row0 + ar, gk = k0 + ak + q;
            As[ak + q][ar] = (gr < M && gk < K) ? A[(size_t)gr * K + gk] : 0.0f;
            int gk2 = k0 + bk, gc = col0 + bc + q;
            Bs[bk][bc + q] = (gk2 < K && gc < N) ? B[(size_t)gk2 * N + gc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < RT_BK; ++kk) {
            float4 a0 = *reinterpret_cast<const float4 *>(&As[kk][ty * 4]);
            float4 a1 = *reinterpret_cast<const float4 *>(&As[kk][64 + ty * 4]);
            float4 b0 = *reinterpret_cast<const float4 *>(&Bs[kk][tx * 4]);
            float4 b1 = *reinterpret_cast<const float4 *>(&Bs[kk][64 + tx * 4]);
            float b_0 = b0.x, b_1 = b0.y, b_2 = b0.z, b_3 = b0.w, b_4 = b1.x, b_5 = b1.y, b_6 = b1.z, b_7 = b1.w;
            RT_FMA8(0, a0.x) RT_FMA8(1, a0.y) RT_FMA8(2, a0.z) RT_FMA8(3, a0.w)
            RT_FMA8(4, a1.x) RT_FMA8(5, a1.y) RT_FMA8(6, a1.z) RT_FMA8(7, a1.w)
        }
        __syncthreads();
    }
    int ca = col0 + tx * 4, cb = col0 + 64 + tx * 4;
    RT_STORE(0, row0 + ty * 4) RT_STORE(1, row0 + ty * 4 + 1) RT_STORE(2, row0 + ty * 4 + 2)
    RT_STORE(3, row0 + ty * 4 + 3) RT_STORE(4, row0 + 64 + ty * 4) RT_STORE(5, row0 + 64 + ty * 4 + 1)
    RT_STORE(6, row0 + 64 + ty * 4 + 2) RT_STORE(7, row0 + 64 + ty * 4 + 3)
}

// y[i] = the sum of x over the 17-element window around i, clamped to the ends of i's
// chunk: a block a chunk of ch floats (the last one shorter), staged in dynamic shared
// memory (ch * 4 bytes), then each thread its elements i, i + blockDim.x, .. of the chunk,
// 17 shared loads each (adds in the order d = -8 .. 8)
__global__ void smem_window_dyn(const float *__restrict__ x, float *__restrict__ y, int n, int ch) {
    extern __shared__ float buf[];
    size_t base = (size_t)blockIdx.x * ch;
    int cnt = min(ch, (int)(n - base));
    for (int i = threadIdx.x; i < cnt; i += blockDim.x) buf[i] = x[base + i];
    __syncthreads();
    for (int i = threadIdx.x; i < cnt; i += blockDim.x) {
        float s = 0.0f;
#pragma unroll
        for (int d = -WIN_R; d <= WIN_R; ++d) s += buf[min(max(i + d, 0), cnt - 1)];
        y[base + i] = s;
    }
}

// x holds four streams of q floats one after another; thread g of the (small) grid sums
// elements g, g + T, g + 2T, .. (T the grid's threads) of each stream into four
// independent accumulators (four loads in flight an iteration) and stores the four sums
// as one float4 at out[g]
__global__ void stream_ilp4_few(const float *__restrict__ x, float4 *__restrict__ out, int q) {
    int T = gridDim.x * blockDim.x, g = blockIdx.x * blockDim.x + threadIdx.x;
    const float *x1 = x + (size_t)q, *x2 = x + 2 * (size_t)q, *x3 = x + 3 * (size_t)q;
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (int i = g; i < q; i += T) {
        s0 += x[i];
        s1 += x1[i];
        s2 += x2[i];
        s3 += x3[i];
    }
    out[g] = make_float4(s0, s1, s2, s3);
}

// each thread of the grid follows next (a random cycle over size ints) for steps steps from
// index g * size / T, one dependent load a step, and writes where it ended
__global__ void chase_l2_few(const int *next, int *out, int steps, int size) {
    int T = gridDim.x * blockDim.x, g = blockIdx.x * blockDim.x + threadIdx.x;
    int p = (int)((long long)g * size / T);
    for (int s = 0; s < steps; ++s) p = next[p];
    out[g] = p;
}

// a block copies its 4096 words into shared memory, then warp w (of 8) reads word
// (lane * stride + it) mod 4096 for it = 0 .. iters-1, stride 1, 2, 3, 4, 8, 16, 32, 33
// for w = 0 .. 7 (1-, 2-, 1-, 4-, 8-, 16-, 32- and 1-way bank conflicts), folding each into
// acc = acc * 31 + word; out gets each thread's acc
__global__ void smem_stride_mix(const unsigned *__restrict__ in, unsigned *__restrict__ out, int iters) {
    __shared__ unsigned s[SMIX_WORDS];
    const unsigned *src = in + (size_t)blockIdx.x * SMIX_WORDS;
    for (int i = threadIdx.x; i < SMIX_WORDS; i += blockDim.x) s[i] = src[i];
    __syncthreads();
    int lane = threadIdx.x & 31, w = (threadIdx.x >> 5) & 7;
    int st = w == 2 ? 3 : w == 7 ? 33 : 1 << (w > 2 ? w - 1 : w);
    unsigned acc = (unsigned)lane, off = (unsigned)(lane * st);
    for (int it = 0; it < iters; ++it) acc = acc * 31u + s[(off + it) & (SMIX_WORDS - 1)];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// a thread runs iters rounds of eight independent double chains, each stepped twice a round
// by a_k = fma(a_k, c_k, b) (b = x[g], a_k starting at b + k), beside one step of a 32-bit
// xorshift of its own (three shifts, three xors): 16 DFMAs to 6 integer operations a round,
// the FP64 pipe's 64 lanes a clock an SM the limit; yd[g] = the chains' sum, yh[g] = the
// xorshift's last state
__global__ void dfma_imix(const double *__restrict__ x, double *__restrict__ yd, unsigned *__restrict__ yh, int n,
                          int iters) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) return;
    double b = x[g];
    double a0 = b, a1 = b + 1.0, a2 = b + 2.0, a3 = b + 3.0, a4 = b + 4.0, a5 = b + 5.0, a6 = b + 6.0, a7 = b + 7.0;
    unsigned h = (unsigned)g * 2654435761u + 1u;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            a0 = fma(a0, 0.999, b);
            a1 = fma(a1, 0.998, b);
            a2 = fma(a2, 0.997, b);
            a3 = fma(a3, 0.996, b);
            a4 = fma(a4, 0.995, b);
            a5 = fma(a5, 0.994, b);
            a6 = fma(a6, 0.993, b);
            a7 = fma(a7, 0.992, b);
        }
        h ^= h << 13;
        h ^= h >> 17;
        h ^= h << 5;
    }
    yd[g] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
    yh[g] = h;
}

}
