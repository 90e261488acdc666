// probe-unseen50 (session 34): kernels from real applications in ML and image processing,
// in shapes no probe had tried: a mixture-of-experts router's top-2 of 64 logits a token,
// written twice (a thread a token, reading its 256-byte row alone, and a warp a token, a
// float2 a lane, two rounds of a shuffle maximum and a ballot: the same answers, the first
// spreading every warp-wide load over 32 cache lines), group normalization of an NCHW batch
// (a block a (sample, group), block-reduced sum and sum of squares, then a second pass that
// scales), the joint 64 x 64 histogram of two correlated byte images (the
// mutual-information kernel of image registration: 4096 shared counters, the hot ones near
// the diagonal), a linear layer of K = 64 with its bias and an exact (erff) GELU fused in
// the epilogue (a 16 x 64 output tile a block, X's rows and W's slab whole in shared
// memory, four outputs a thread), and PyTorch's bilinear grid_sample of a 32-channel NCHW
// batch through a rotated and rippled sampling grid (zeros outside, align_corners false).
// Predicted before their first GPU run.

extern "C" {

#define MOE_E 64

// the router of a mixture of experts, a thread a token: idx[t] = the experts of token t's
// two largest logits (of logits[64 t ..], the lower index first among equals), w[t] their
// softmax weights renormalized over the two, 1 / (1 + e^(l2 - l1)) and the rest; the
// thread walks its own 64-float row, so each load of a warp touches 32 cache lines
__global__ void moe_top2_thread(const float *logits, int2 *idx, float2 *w, int ntok) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ntok) return;
    const float *row = logits + (size_t)t * MOE_E;
    float b1 = -INFINITY, b2 = -INFINITY;
    int i1 = 0, i2 = 0;
    for (int e = 0; e < MOE_E; ++e) {
        float v = row[e];
        if (v > b1) {
            b2 = b1; i2 = i1;
            b1 = v; i1 = e;
        } else if (v > b2) {
            b2 = v; i2 = e;
        }
    }
    float g = 1.0f / (1.0f + __expf(b2 - b1));
    idx[t] = make_int2(i1, i2);
    w[t] = make_float2(g, 1.0f - g);
}

// the same router, a warp a token: lane l reads logits 2 l and 2 l + 1 (one float2,
// coalesced) and orders them; the top logit is the warp's maximum of the lanes' first (five
// xor shuffles), its lane the lowest that holds it (a ballot); that lane offers its second
// and the others their first, and a second maximum and ballot give the runner-up; lane 0
// writes
__global__ void moe_top2_warp(const float2 *logits, int2 *idx, float2 *w, int ntok) {
    int t = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (t >= ntok) return;
    float2 p = logits[(size_t)t * (MOE_E / 2) + lane];
    float b1 = p.x, b2 = p.y;
    int i1 = 2 * lane, i2 = 2 * lane + 1;
    if (p.y > p.x) {
        b1 = p.y; i1 = 2 * lane + 1;
        b2 = p.x; i2 = 2 * lane;
    }
    float m1 = b1;
    for (int o = 16; o > 0; o >>= 1) m1 = fmaxf(m1, __shfl_xor_sync(0xffffffffu, m1, o));
    int l1 = __ffs(__ballot_sync(0xffffffffu, b1 == m1)) - 1;
    float c = lane == l1 ? b2 : b1;
    int ci = lane == l1 ? i2 : i1;
    float m2 = c;
    for (int o = 16; o > 0; o >>= 1) m2 = fmaxf(m2, __shfl_xor_sync(0xffffffffu, m2, o));
    int l2 = __ffs(__ballot_sync(0xffffffffu, c == m2)) - 1;
    int k1 = __shfl_sync(0xffffffffu, i1, l1), k2 = __shfl_sync(0xffffffffu, ci, l2);
    if (lane == 0) {
        float g = 1.0f / (1.0f + __expf(m2 - m1));
        idx[t] = make_int2(k1, k2);
        w[t] = make_float2(g, 1.0f - g);
    }
}

#define GN_THREADS 256

// group normalization of x[N][C][HW] in G groups of C / G channels: a block of 256 a
// (sample, group) (blockIdx.x = n G + g, whose C / G HW values are contiguous); the sum
// and sum of squares by a strided loop, xor shuffles and shared memory, then
// y = (x - mean) rstd gamma[c] + beta[c] channel by channel (rstd = 1 / sqrt(var + eps))
__global__ void group_norm(const float *x, const float *gamma, const float *beta, float *y, int C, int HW,
                           int G, float eps) {
    __shared__ float ssum[GN_THREADS / 32], ssq[GN_THREADS / 32];
    __shared__ float stat[2];
    int g = blockIdx.x % G, cpg = C / G, m = cpg * HW;
    size_t base = (size_t)blockIdx.x * m;
    float s = 0.0f, q = 0.0f;
    for (int i = threadIdx.x; i < m; i += GN_THREADS) {
        float v = x[base + i];
        s += v;
        q += v * v;
    }
    for (int o = 16; o > 0; o >>= 1) {
        s += __shfl_xor_sync(0xffffffffu, s, o);
        q += __shfl_xor_sync(0xffffffffu, q, o);
    }
    int wi = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0) {
        ssum[wi] = s;
        ssq[wi] = q;
    }
    __syncthreads();
    if (wi == 0) {
        s = lane < GN_THREADS / 32 ? ssum[lane] : 0.0f;
        q = lane < GN_THREADS / 32 ? ssq[lane] : 0.0f;
        for (int o = 4; o > 0; o >>= 1) {
            s += __shfl_xor_sync(0xffffffffu, s, o);
            q += __shfl_xor_sync(0xffffffffu, q, o);
        }
        if (lane == 0) {
            float mean = s / (float)m;
            stat[0] = mean;
            stat[1] = rsqrtf(fmaxf(q / (float)m - mean * mean, 0.0f) + eps);
        }
    }
    __syncthreads();
    float mean = stat[0], rstd = stat[1];
    for (int c = 0; c < cpg; ++c) {
        int ch = g * cpg + c;
        float a = rstd * gamma[ch], b = beta[ch] - mean * a;
        const float *xc = x + base + (size_t)c * HW;
        float *yc = y + base + (size_t)c * HW;
        for (int i = threadIdx.x; i < HW; i += GN_THREADS) yc[i] = xc[i] * a + b;
    }
}

#define JH_BINS 64
#define JH_SHIFT 2

// the joint histogram of two byte images, 64 x 64 bins (a pixel's pair (a, b) counted in
// bin 64 (a >> 2) + (b >> 2)): a grid-stride loop over uchar4 words of both images, four
// shared atomicAdds a word into the block's 4096 counters, then one global atomicAdd a
// nonzero counter
__global__ void joint_hist64(const uchar4 *a, const uchar4 *b, unsigned *hist, int n4) {
    __shared__ unsigned h[JH_BINS * JH_BINS];
    for (int i = threadIdx.x; i < JH_BINS * JH_BINS; i += blockDim.x) h[i] = 0u;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
        uchar4 p = a[i], q = b[i];
        atomicAdd(&h[(p.x >> JH_SHIFT) * JH_BINS + (q.x >> JH_SHIFT)], 1u);
        atomicAdd(&h[(p.y >> JH_SHIFT) * JH_BINS + (q.y >> JH_SHIFT)], 1u);
        atomicAdd(&h[(p.z >> JH_SHIFT) * JH_BINS + (q.z >> JH_SHIFT)], 1u);
        atomicAdd(&h[(p.w >> JH_SHIFT) * JH_BINS + (q.w >> JH_SHIFT)], 1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < JH_BINS * JH_BINS; i += blockDim.x) {
        unsigned c = h[i];
        if (c) atomicAdd(&hist[i], c);
    }
}

#define LG_K 64
#define LG_TM 16
#define LG_TN 64

// a linear layer with its bias and GELU fused in the epilogue: Y = gelu(X W + bias) for X
// M x 64, W 64 x Nout (row-major), gelu(v) = v (1 + erf(v / sqrt 2)) / 2; a 16 x 16 block
// a 16 x 64 tile of Y: its 16 rows of X and the 64 x 64 slab of W staged whole in shared
// memory (K = 64 fits), then thread (tx, ty) accumulates row ty's columns tx, tx + 16,
// tx + 32 and tx + 48 over the 64 k (a broadcast and four conflict-free shared loads,
// four FMAs a k) and adds the bias and applies erff before its four stores
__global__ void linear_bias_gelu(const float *X, const float *W, const float *bias, float *Y, int M, int Nout) {
    __shared__ float xs[LG_TM][LG_K];
    __shared__ float ws[LG_K][LG_TN];
    int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
    int row0 = blockIdx.y * LG_TM, col0 = blockIdx.x * LG_TN;
    for (int i = t; i < LG_TM * LG_K; i += 256) {
        int r = i / LG_K, k = i % LG_K;
        xs[r][k] = row0 + r < M ? X[(size_t)(row0 + r) * LG_K + k] : 0.0f;
    }
    for (int i = t; i < LG_K * LG_TN; i += 256) {
        int k = i / LG_TN, c = i % LG_TN;
        ws[k][c] = W[(size_t)k * Nout + col0 + c];
    }
    __syncthreads();
    int row = row0 + ty;
    if (row >= M) return;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll 8
    for (int k = 0; k < LG_K; ++k) {
        float a = xs[ty][k];
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[j] += a * ws[k][tx + 16 * j];
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        int col = col0 + tx + 16 * j;
        float v = acc[j] + bias[col];
        Y[(size_t)row * Nout + col] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
    }
}

// PyTorch's grid_sample (bilinear, zeros padding, align_corners false) of in[N][C][H][W]
// at grid[N][Ho][Wo] (float2, x then y in [-1, 1]): a thread an output pixel; the four
// corners' weights and whether each is inside computed once, then a loop over the C
// channels gathering up to four floats each and writing out[n][c][p]
__global__ void grid_sample_bilinear(const float *in, const float2 *grid, float *out, int N, int C, int H,
                                     int W, int Ho, int Wo) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int P = Ho * Wo;
    if (idx >= N * P) return;
    int n = idx / P, p = idx - n * P;
    float2 g = grid[idx];
    float ix = ((g.x + 1.0f) * W - 1.0f) * 0.5f, iy = ((g.y + 1.0f) * H - 1.0f) * 0.5f;
    float fx0 = floorf(ix), fy0 = floorf(iy);
    int x0 = (int)fx0, y0 = (int)fy0, x1 = x0 + 1, y1 = y0 + 1;
    float ax = ix - fx0, ay = iy - fy0;
    float w00 = (1.0f - ax) * (1.0f - ay), w01 = ax * (1.0f - ay), w10 = (1.0f - ax) * ay, w11 = ax * ay;
    bool vx0 = x0 >= 0 && x0 < W, vx1 = x1 >= 0 && x1 < W, vy0 = y0 >= 0 && y0 < H, vy1 = y1 >= 0 && y1 < H;
    const float *src = in + (size_t)n * C * H * W;
    float *dst = out + (size_t)n * C * P + p;
    for (int c = 0; c < C; ++c) {
        float s = 0.0f;
        if (vy0 && vx0) s += w00 * src[y0 * W + x0];
        if (vy0 && vx1) s += w01 * src[y0 * W + x1];
        if (vy1 && vx0) s += w10 * src[y1 * W + x0];
        if (vy1 && vx1) s += w11 * src[y1 * W + x1];
        dst[(size_t)c * P] = s;
        src += H * W;
    }
}

}
