// probe-unseen229: an efficient deep-learning / model-quantization course's CUDA
// assignments, as a student who knows CUDA basics hands them in:
//  - w8a8_gemm_tiled: an int8 x int8 linear layer (SmoothQuant's W8A8): activations
//    quantized per token, weights per output channel (stored out-channel-major, as
//    nn.Linear keeps them), the textbook 16 x 16 shared-memory tiled matrix product with
//    8-bit tiles and an int accumulator, __syncthreads around each tile, then the
//    dequantizing epilogue acc * s_token * s_channel + bias stored as half;
//  - nf4_dequant_dq: QLoRA's 4-bit NormalFloat weights back to half, a thread a 32-bit word
//    (8 codes, two a byte, the high nibble first) unpacked by shifts and masks, each code's
//    value from a __constant__ table of the 16 NF4 levels; the 64-weight block's absmax
//    from double quantization: an 8-bit code into a __constant__ 256-entry dynamic map,
//    times the second-level fp32 absmax of its 256 blocks, plus the mean offset;
//  - calib_hist: a histogram calibrator's pass over a batch of activations (TensorRT's
//    percentile / entropy calibration): |x| binned into 2048 bins over [0, range) in a
//    per-block shared histogram by shared int atomics (the clipped values into the last
//    bin, counted by __ballot_sync / __popc), a grid-stride loop, the batch's absmax by
//    warp shuffles and a global atomicMax on the float's bits, the histogram flushed by
//    global atomics;
//  - softmax_causal_f16: the softmax of an attention head's scaled logits QK^T / sqrt(d),
//    stored in half, a block a query row with the causal mask (keys past the query skipped,
//    their probabilities stored as 0): the row maximum and the sum of expf by two
//    shared-memory tree reductions with __syncthreads, then the probabilities as half;
//  - kv_cache_quant_int8: appending a prefill batch's keys and values (half) to a paged
//    int8 KV cache, a warp a (token, head): the head's 128 values in a per-thread local
//    array, the absmax by __shfl_xor_sync, scale absmax / 127, rintf and a clamp, the bytes
//    stored into the token's page slot (a slot mapping from a block table: scattered
//    pages; padding tokens' slot -1 skipped), the page geometry a struct by value;
//  - sr_quant_ef: int8 gradient compression with error feedback for a data-parallel
//    all-reduce: g + the previous step's error, stochastic rounding by a counter-based hash
//    (murmur3's finalizer of the element's index and the step's seed), floorf, a clamp, 4
//    codes packed into a 32-bit word, the new error stored, its squared norm summed in
//    double by warp shuffles and a global double atomicAdd a warp; a grid-stride loop.

#include <cuda_fp16.h>

#define GT 16                   // w8a8_gemm_tiled: the tile side (16 x 16 threads a block)

#define NF4_BLOCK 64            // nf4_dequant_dq: weights an absmax block
#define NF4_BLOCK2 256          // absmax blocks a second-level block

#define CAL_BINS 2048           // calib_hist: histogram bins

#define SM_THREADS 256          // softmax_causal_f16: threads a block (a power of two)

#define KV_HD 128               // kv_cache_quant_int8: head dimension
#define KV_PER_LANE (KV_HD / 32)

#define SR_BUCKET 512           // sr_quant_ef: gradients a scale bucket

#define FULL_MASK 0xffffffffu

// kv_cache_quant_int8: the cache's geometry, passed by value
struct KVLayout {
    int num_heads;
    int block_size;             // tokens a page
    int num_blocks;             // pages in the cache
    float eps;                  // the smallest scale
};

// nf4_dequant_dq: the 16 NF4 levels (set by the host), the 8-bit dynamic map of the
// double-quantized absmax
__constant__ float c_nf4[16];
__constant__ float c_code2[256];

// sr_quant_ef: murmur3's 32-bit finalizer
__device__ unsigned int hash32(unsigned int x) {
    x ^= x >> 16;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    x *= 0xc2b2ae35u;
    x ^= x >> 16;
    return x;
}

extern "C" {

// ---------------------------------------------------------------- w8a8_gemm_tiled

// A: M x K int8 (a row a token), W: N x K int8 (a row an output channel), sa: M token
// scales, sw: N channel scales, bias: N; C: M x N half = (A W^T) sa sw + bias
__global__ void w8a8_gemm_tiled(const signed char *A, const signed char *W, const float *sa, const float *sw,
                                const float *bias, __half *C, int M, int N, int K) {
    __shared__ signed char sA[GT][GT];
    __shared__ signed char sW[GT][GT];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * GT + ty;
    int col = blockIdx.x * GT + tx;
    int wrow = blockIdx.x * GT + ty;        // the W row this thread loads
    int acc = 0;
    for (int t = 0; t < K; t += GT) {
        if (row < M && t + tx < K) sA[ty][tx] = A[row * K + t + tx];
        else sA[ty][tx] = 0;
        if (wrow < N && t + tx < K) sW[ty][tx] = W[wrow * K + t + tx];
        else sW[ty][tx] = 0;
        __syncthreads();
        for (int k = 0; k < GT; k++) acc += (int)sA[ty][k] * (int)sW[tx][k];
        __syncthreads();
    }
    if (row < M && col < N) {
        float y = (float)acc * sa[row] * sw[col] + bias[col];
        C[row * N + col] = __float2half(y);
    }
}

// ---------------------------------------------------------------- nf4_dequant_dq

// packed: nwords 32-bit words of NF4 codes (weight 8w + 2b from byte b's high nibble,
// 8w + 2b + 1 from its low one), absmax_q: an 8-bit code a 64-weight block, absmax2: an
// fp32 absmax a 256 blocks, offset: the absmaxes' mean; out: 8 nwords halves
__global__ void nf4_dequant_dq(const unsigned int *packed, const unsigned char *absmax_q, const float *absmax2,
                               float offset, __half *out, int nwords) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nwords) return;
    unsigned int p = packed[w];
    int blk = w / (NF4_BLOCK / 8);
    float amax = c_code2[absmax_q[blk]] * absmax2[blk / NF4_BLOCK2] + offset;
    for (int b = 0; b < 4; b++) {
        unsigned int byte = (p >> (8 * b)) & 0xFF;
        out[8 * w + 2 * b] = __float2half(c_nf4[byte >> 4] * amax);
        out[8 * w + 2 * b + 1] = __float2half(c_nf4[byte & 0xF] * amax);
    }
}

// ---------------------------------------------------------------- calib_hist

// x: n activations; hist[b] += the values with |x| in [b, b + 1) range / CAL_BINS (those at
// or past range in the last bin), *nclip += those at or past range, amax_bits (a float's
// bits, 0 to start) raised to the largest |x|
__global__ void calib_hist(const float *x, int n, float range, unsigned int *hist, int *amax_bits, int *nclip) {
    __shared__ unsigned int s_hist[CAL_BINS];
    int lane = threadIdx.x % 32;
    for (int b = threadIdx.x; b < CAL_BINS; b += blockDim.x) s_hist[b] = 0;
    __syncthreads();
    float scale = CAL_BINS / range;
    float amax = 0.0f;
    int clipped = 0;
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        int i = base + threadIdx.x;
        bool clip = false;
        if (i < n) {
            float a = fabsf(x[i]);
            amax = fmaxf(amax, a);
            int b = (int)(a * scale);
            if (b >= CAL_BINS) {
                b = CAL_BINS - 1;
                clip = a >= range;
            }
            atomicAdd(&s_hist[b], 1u);
        }
        unsigned int m = __ballot_sync(FULL_MASK, clip);
        if (lane == 0) clipped += __popc(m);
    }
    for (int o = 16; o > 0; o /= 2) amax = fmaxf(amax, __shfl_down_sync(FULL_MASK, amax, o));
    if (lane == 0) {
        atomicMax(amax_bits, __float_as_int(amax));
        if (clipped > 0) atomicAdd(nclip, clipped);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < CAL_BINS; b += blockDim.x)
        if (s_hist[b] > 0) atomicAdd(&hist[b], s_hist[b]);
}

// ---------------------------------------------------------------- softmax_causal_f16

// scores: gridDim.x rows of S logits (half; row r is query r % S of its head), probs the
// same shape: softmax over keys 0 .. q of scale * logits, 0 past the query
__global__ void softmax_causal_f16(const __half *scores, __half *probs, int S, float scale) {
    __shared__ float red[SM_THREADS];
    int tid = threadIdx.x;
    int row = blockIdx.x;
    int q = row % S;
    const __half *in = scores + (size_t)row * S;
    __half *out = probs + (size_t)row * S;
    float m = -INFINITY;
    for (int j = tid; j <= q; j += blockDim.x) m = fmaxf(m, __half2float(in[j]) * scale);
    red[tid] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int j = tid; j <= q; j += blockDim.x) sum += expf(__half2float(in[j]) * scale - m);
    red[tid] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] += red[tid + s];
        __syncthreads();
    }
    float inv = 1.0f / red[0];
    for (int j = tid; j < S; j += blockDim.x) {
        float p = 0.0f;
        if (j <= q) p = expf(__half2float(in[j]) * scale - m) * inv;
        out[j] = __float2half(p);
    }
}

// ---------------------------------------------------------------- kv_cache_quant_int8

// key, value: num_tokens x num_heads x KV_HD halves; slot_mapping: a token's cache slot
// (page * block_size + offset, -1: padding); caches [num_blocks][num_heads][block_size][KV_HD]
// int8, scales [num_blocks][num_heads][block_size]: x = q scale, scale = absmax / 127
__global__ void kv_cache_quant_int8(const __half *key, const __half *value, const int *slot_mapping,
                                    int num_tokens, KVLayout L, signed char *k_cache, signed char *v_cache,
                                    float *k_scale, float *v_scale) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    int token = warp / L.num_heads, head = warp % L.num_heads;
    if (token >= num_tokens) return;
    int slot = slot_mapping[token];
    if (slot < 0) return;
    int page = slot / L.block_size, off = slot % L.block_size;
    if (page >= L.num_blocks) return;
    size_t src = ((size_t)token * L.num_heads + head) * KV_HD;
    float kv[KV_PER_LANE], vv[KV_PER_LANE];
    float kmax = 0.0f, vmax = 0.0f;
    for (int c = 0; c < KV_PER_LANE; c++) {
        kv[c] = __half2float(key[src + lane + 32 * c]);
        vv[c] = __half2float(value[src + lane + 32 * c]);
        kmax = fmaxf(kmax, fabsf(kv[c]));
        vmax = fmaxf(vmax, fabsf(vv[c]));
    }
    for (int o = 16; o > 0; o /= 2) {
        kmax = fmaxf(kmax, __shfl_xor_sync(FULL_MASK, kmax, o));
        vmax = fmaxf(vmax, __shfl_xor_sync(FULL_MASK, vmax, o));
    }
    float ks = fmaxf(kmax / 127.0f, L.eps);
    float vs = fmaxf(vmax / 127.0f, L.eps);
    size_t srow = ((size_t)page * L.num_heads + head) * L.block_size + off;
    size_t dst = srow * KV_HD;
    for (int c = 0; c < KV_PER_LANE; c++) {
        float qk = fminf(fmaxf(rintf(kv[c] / ks), -127.0f), 127.0f);
        float qv = fminf(fmaxf(rintf(vv[c] / vs), -127.0f), 127.0f);
        k_cache[dst + lane + 32 * c] = (signed char)qk;
        v_cache[dst + lane + 32 * c] = (signed char)qv;
    }
    if (lane == 0) {
        k_scale[srow] = ks;
        v_scale[srow] = vs;
    }
}

// ---------------------------------------------------------------- sr_quant_ef

// grad, err: 4 n4 floats, scale: a float a SR_BUCKET gradients (0: an all-zero bucket);
// q = clamp(floor((g + err) / scale + u), -127, 127) with u the element's hash in [0, 1),
// packed 4 a word (element 4w + k in byte k); err = g + err - q scale; *err_sq += sum err^2
__global__ void sr_quant_ef(const float *grad, float *err, const float *bucket_scale, unsigned int *q_packed,
                            int n4, unsigned int seed, double *err_sq) {
    int lane = threadIdx.x % 32;
    double local = 0.0;
    for (int base = blockIdx.x * blockDim.x; base < n4; base += gridDim.x * blockDim.x) {
        int w = base + threadIdx.x;
        if (w < n4) {
            float s = bucket_scale[(4 * w) / SR_BUCKET];
            float inv = 0.0f;
            if (s > 0.0f) inv = 1.0f / s;
            float g[4];
            int q[4];
            for (int k = 0; k < 4; k++) {
                int i = 4 * w + k;
                g[k] = grad[i] + err[i];
                unsigned int h = hash32(seed ^ ((unsigned int)i * 0x9E3779B9u));
                float u = (h >> 8) * (1.0f / 16777216.0f);
                float y = floorf(g[k] * inv + u);
                y = fminf(fmaxf(y, -127.0f), 127.0f);
                q[k] = (int)y;
                float e = g[k] - q[k] * s;
                err[i] = e;
                local += (double)e * e;
            }
            unsigned int word = 0;
            for (int k = 0; k < 4; k++) word |= ((unsigned int)q[k] & 0xFFu) << (8 * k);
            q_packed[w] = word;
        }
    }
    for (int o = 16; o > 0; o /= 2) local += __shfl_down_sync(FULL_MASK, local, o);
    if (lane == 0 && local != 0.0) atomicAdd(err_sq, local);
}

}
