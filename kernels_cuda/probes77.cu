// probe-unseen75: a deep-learning inference / ML-systems course's operator kernels, as a
// student who knows CUDA basics hands them in (one kernel an assignment, launched by the
// course's Python harness):
//   gemv_i8         an int8 weight-only-quantized GEMV, y = (W x) * w_scale[row] * x_scale,
//                   W row-major int8 (GEMV_K columns) read four at a time as char4, the
//                   products accumulated in int32, a warp a row, the lanes' sums by
//                   __shfl_down_sync;
//   rmsnorm_block   RMSNorm of half-precision rows (RMS_H wide) with a block a row: each
//                   thread's sum of squares in float, a shared-memory tree reduction, rsqrtf,
//                   then a second pass writing x * inv_rms * gamma as halves;
//   rope_neox       rotary position embeddings (GPT-NeoX "rotate half" form) applied in
//                   place to the queries (ROPE_HQ heads) and keys (ROPE_HK heads, grouped-
//                   query attention) of a batch of tokens, a thread a rotation pair (i, i +
//                   D/2) of one head: powf for the frequency, sincosf for the angle;
//   embedding_bag_mean  PyTorch's EmbeddingBag(mode="mean") forward: bag b averages the
//                   table rows indices[offsets[b] .. offsets[b+1]), a block a bag and a thread
//                   an embedding column (blockDim.x == BAG_D), empty bags giving zeros;
//   topk_warp       the top TOPK_K logits (values and indices) of each row of a TOPK_V-word
//                   vocabulary, for top-k sampling: a warp a row, each lane keeping its own
//                   sorted top-k by insertion in local arrays, then TOPK_K rounds of a warp
//                   argmax by __shfl_xor_sync whose winning lane pops its head;
//   moe_route_top1  top-1 mixture-of-experts routing: a thread a token, the softmax of its
//                   MOE_E gate logits (expf), the best expert and its probability, a slot in
//                   that expert's bucket from atomicAdd on the expert's counter, tokens past
//                   the capacity dropped (slot -1).
#include <cuda_fp16.h>

#define GEMV_K 4096           // gemv_i8: the row length (int8 weights and activations)
#define RMS_H 4096            // rmsnorm_block: the hidden size
#define RMS_BLOCK 256         // rmsnorm_block: threads a block (a block a row)
#define ROPE_D 128            // rope_neox: the head dimension
#define ROPE_HQ 32            // rope_neox: query heads
#define ROPE_HK 8             // rope_neox: key heads
#define BAG_D 128             // embedding_bag_mean: the embedding dimension (blockDim.x)
#define TOPK_K 8              // topk_warp: k
#define TOPK_V 32000          // topk_warp: the vocabulary (a row's length)
#define MOE_E 8               // moe_route_top1: experts

extern "C" {

// y[r] = (sum_k W[r][k] x[k]) * w_scale[r] * x_scale for rows r < rows: a warp a row, lane l
// taking the char4 words l, l + 32, ... of the row
__global__ void gemv_i8(const char4 *W, const char4 *x, const float *w_scale, float x_scale, float *y, int rows) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const char4 *w = W + (size_t)row * (GEMV_K / 4);
    int acc = 0;
    for (int k = lane; k < GEMV_K / 4; k += 32) {
        char4 a = w[k];
        char4 b = x[k];
        acc += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffff, acc, o);
    if (lane == 0) y[row] = acc * w_scale[row] * x_scale;
}

// y = x / sqrt(mean(x^2) + eps) * gamma, row by row (rows x RMS_H halves), a block of
// RMS_BLOCK threads a row
__global__ void rmsnorm_block(const __half *x, const __half *gamma, __half *y, float eps, int rows) {
    __shared__ float s_sum[RMS_BLOCK];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    if (row >= rows) return;
    const __half *xr = x + (size_t)row * RMS_H;
    __half *yr = y + (size_t)row * RMS_H;

    float ss = 0.0f;
    for (int i = tid; i < RMS_H; i += RMS_BLOCK) {
        float v = __half2float(xr[i]);
        ss += v * v;
    }
    s_sum[tid] = ss;
    __syncthreads();
    for (int s = RMS_BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) s_sum[tid] += s_sum[tid + s];
        __syncthreads();
    }
    float inv = rsqrtf(s_sum[0] / RMS_H + eps);

    for (int i = tid; i < RMS_H; i += RMS_BLOCK) {
        float v = __half2float(xr[i]);
        yr[i] = __float2half(v * inv * __half2float(gamma[i]));
    }
}

// rotary embeddings in place: q is tokens x ROPE_HQ x ROPE_D, k tokens x ROPE_HK x ROPE_D
// (floats, row-major), pos[t] token t's position; the pair (i, i + ROPE_D / 2) of a head
// turns by pos * theta^(-2 i / ROPE_D). Thread p: pair i = p % (D/2) of head h (queries
// first, then keys) of token p / ((HQ + HK) D/2)
__global__ void rope_neox(float *q, float *k, const int *pos, float theta, int tokens) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int half = ROPE_D / 2;
    int heads = ROPE_HQ + ROPE_HK;
    if (p >= tokens * heads * half) return;
    int i = p % half;
    int h = (p / half) % heads;
    int t = p / (half * heads);

    float inv_freq = powf(theta, -2.0f * i / ROPE_D);
    float angle = pos[t] * inv_freq;
    float s, c;
    sincosf(angle, &s, &c);

    float *v;
    if (h < ROPE_HQ)
        v = q + ((size_t)t * ROPE_HQ + h) * ROPE_D;
    else
        v = k + ((size_t)t * ROPE_HK + (h - ROPE_HQ)) * ROPE_D;
    float x1 = v[i];
    float x2 = v[i + half];
    v[i] = x1 * c - x2 * s;
    v[i + half] = x2 * c + x1 * s;
}

// out[b][d] = mean of table[indices[j]][d] over j in [offsets[b], offsets[b + 1]) (0 for an
// empty bag); table is rows x BAG_D floats; a block a bag, thread d a column
__global__ void embedding_bag_mean(const float *table, const int *indices, const int *offsets, float *out, int bags) {
    int b = blockIdx.x;
    int d = threadIdx.x;
    if (b >= bags) return;
    int start = offsets[b];
    int end = offsets[b + 1];
    float sum = 0.0f;
    for (int j = start; j < end; j++) {
        int r = indices[j];
        sum += table[(size_t)r * BAG_D + d];
    }
    int count = end - start;
    out[(size_t)b * BAG_D + d] = count > 0 ? sum / count : 0.0f;
}

// the TOPK_K largest of each row of logits (rows x TOPK_V), descending (ties: the lower
// index first), into top_val and top_idx (rows x TOPK_K); a warp a row
__global__ void topk_warp(const float *logits, float *top_val, int *top_idx, int rows) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float *x = logits + (size_t)row * TOPK_V;

    // this lane's top TOPK_K of the columns lane, lane + 32, ..., sorted descending
    float tv[TOPK_K];
    int ti[TOPK_K];
    for (int j = 0; j < TOPK_K; j++) {
        tv[j] = -FLT_MAX;
        ti[j] = -1;
    }
    for (int c = lane; c < TOPK_V; c += 32) {
        float v = x[c];
        if (v > tv[TOPK_K - 1]) {
            int j = TOPK_K - 1;
            while (j > 0 && tv[j - 1] < v) {
                tv[j] = tv[j - 1];
                ti[j] = ti[j - 1];
                j--;
            }
            tv[j] = v;
            ti[j] = c;
        }
    }

    // merge: TOPK_K rounds of a warp argmax over the lanes' heads
    int head = 0;
    for (int r = 0; r < TOPK_K; r++) {
        float bv = tv[head];
        int bi = ti[head];
        for (int o = 16; o > 0; o >>= 1) {
            float ov = __shfl_xor_sync(0xffffffff, bv, o);
            int oi = __shfl_xor_sync(0xffffffff, bi, o);
            if (ov > bv || (ov == bv && oi < bi)) {
                bv = ov;
                bi = oi;
            }
        }
        if (bi % 32 == lane) head++;        // the winner's lane owns column bi
        if (lane == 0) {
            top_val[row * TOPK_K + r] = bv;
            top_idx[row * TOPK_K + r] = bi;
        }
    }
}

// top-1 routing of tokens (gate_logits tokens x MOE_E): expert e = argmax (the first of
// equals), p = softmax(logits)[e]; slot = atomicAdd(&expert_count[e], 1) and, when slot <
// capacity, expert e's bucket entry slot gets the token and p (expert_tokens and
// expert_weights are MOE_E x capacity) and token_slot[t] = e * capacity + slot, else -1
__global__ void moe_route_top1(const float *gate_logits, int *expert_count, int *expert_tokens, float *expert_weights,
                               int *token_slot, int capacity, int tokens) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= tokens) return;
    const float *g = gate_logits + (size_t)t * MOE_E;
    float mx = g[0];
    int best = 0;
    for (int e = 1; e < MOE_E; e++) {
        if (g[e] > mx) {
            mx = g[e];
            best = e;
        }
    }
    float sum = 0.0f;
    for (int e = 0; e < MOE_E; e++) sum += expf(g[e] - mx);
    float p = 1.0f / sum;

    int slot = atomicAdd(&expert_count[best], 1);
    if (slot < capacity) {
        expert_tokens[best * capacity + slot] = t;
        expert_weights[best * capacity + slot] = p;
        token_slot[t] = best * capacity + slot;
    } else {
        token_slot[t] = -1;
    }
}

}
