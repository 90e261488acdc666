// probe-unseen110: a natural-language-processing systems course's CUDA assignments (the
// inference side), as a student who knows CUDA basics hands them in:
//  - bpe_merge_pass: one parallel byte-pair-encoding merge pass over a token array. Each
//    block stages its 256 tokens and a halo in shared memory, looks up the rank of the
//    pair starting at every position in the merge table (open addressing, linear
//    probing, key (a << 16) | b), and a pair merges where its rank is a local minimum
//    (lower than the pair on its left, not higher than the one on its right); the merged
//    token's id replaces the first token and the second becomes -1 (a later scan compacts);
//  - embedding_bag_mean: EmbeddingBag(mode="mean") over variable-length bags given by CSR
//    offsets, a thread an output feature (EMB_D threads a bag, two bags a block);
//  - attn_causal_softmax: the attention probabilities softmax(Q K^T * scale) of one head of
//    a short sequence (ATT_L tokens, ATT_DH dims) a block, with a causal mask: Q and K staged
//    in shared memory, a thread a query row (copied into registers; its row of scores in
//    shared memory, i + 1 dot products), the probability matrix written out coalesced;
//  - ngram_hash_count: the hashing trick for unigram, bigram and trigram features: FNV-1a
//    over the token ids of the n-grams starting at each position, each n-gram's hash
//    counted in a 2^table_bits table by atomicAdd;
//  - beam_topk_prune: a beam-search step's pruning, a block a batch item: the BM_K beams'
//    scores plus their next-token log-probabilities (BM_K * vocab candidates), each thread
//    bubbling every candidate into its own sorted top BM_K, then BM_K rounds of a
//    shared-memory argmax over the threads' best (ties to the lower candidate index, the
//    winner popped from its list) give the new beams' scores, tokens and parents;
//  - vocab_softmax: the next-token distribution over the vocabulary with a temperature, a
//    block a row: a max reduction, a sum-of-exp reduction (shared-memory trees), the
//    probabilities and the row's log-sum-exp written.

#define BPE_BLOCK 256         // bpe_merge_pass: tokens a block (blockDim.x)
#define EMB_D 64              // embedding_bag_mean: the embedding's width
#define ATT_L 64              // attn_causal_softmax: the sequence length (blockDim.x)
#define ATT_DH 32             // attn_causal_softmax: the head dimension
#define NG_MAX 3              // ngram_hash_count: the longest n-gram counted
#define BM_K 4                // beam_topk_prune: the beam width
#define BM_BLOCK 256          // beam_topk_prune: threads a block
#define SM_BLOCK 256          // vocab_softmax: threads a block

extern "C" {

// ---- BPE merge pass ----

// the slot of key in the merge table (mask + 1 slots, -1 empty), or -1 when absent
__device__ int merge_find(const int *mkeys, int mask, int key) {
    unsigned int h = (unsigned int)key * 2654435761u;
    int slot = (h ^ (h >> 16)) & mask;
    for (int p = 0; p <= mask; p++) {
        int k = mkeys[slot];
        if (k == key) return slot;
        if (k == -1) return -1;
        slot = (slot + 1) & mask;
    }
    return -1;
}

// one merge pass over tok[0 .. n) (ids < 2^15) into out: the merge table's keys, ranks
// and new ids in mkeys, mrank, mnew (mask + 1 slots)
__global__ void bpe_merge_pass(const int *tok, int *out, const int *mkeys, const int *mrank, const int *mnew,
                               int mask, int n) {
    __shared__ int s_tok[BPE_BLOCK + 4];     // tokens base - 2 .. base + BPE_BLOCK + 1 (-1 outside)
    __shared__ int s_rank[BPE_BLOCK + 3];    // rank of the pair starting at base - 2 + k
    __shared__ int s_slot[BPE_BLOCK + 3];    // its slot in the table
    int t = threadIdx.x;
    int base = blockIdx.x * BPE_BLOCK;
    for (int k = t; k < BPE_BLOCK + 4; k += BPE_BLOCK) {
        int p = base - 2 + k;
        s_tok[k] = (p >= 0 && p < n) ? tok[p] : -1;
    }
    __syncthreads();
    for (int k = t; k < BPE_BLOCK + 3; k += BPE_BLOCK) {
        int a = s_tok[k];
        int b = s_tok[k + 1];
        int r = INT_MAX;
        int slot = -1;
        if (a >= 0 && b >= 0) {
            slot = merge_find(mkeys, mask, (a << 16) | b);
            if (slot >= 0) r = mrank[slot];
        }
        s_rank[k] = r;
        s_slot[k] = slot;
    }
    __syncthreads();
    int i = base + t;
    if (i >= n) return;
    int k = t + 2;
    // the pair at k merges when its rank is below its left neighbour's and not above its
    // right neighbour's (two neighbouring pairs never both merge)
    bool here = s_rank[k] != INT_MAX && s_rank[k] < s_rank[k - 1] && s_rank[k] <= s_rank[k + 1];
    bool left = s_rank[k - 1] != INT_MAX && s_rank[k - 1] < s_rank[k - 2] && s_rank[k - 1] <= s_rank[k];
    int o = s_tok[k];
    if (here) o = mnew[s_slot[k]];
    else if (left) o = -1;
    out[i] = o;
}

// ---- EmbeddingBag (mean) ----

// out[bag] = the mean of table's rows indices[offsets[bag] .. offsets[bag + 1]) (zeros for
// an empty bag); blockDim.x a multiple of EMB_D
__global__ void embedding_bag_mean(const float *table, const int *indices, const int *offsets, float *out,
                                   int n_bags) {
    int bag = blockIdx.x * (blockDim.x / EMB_D) + threadIdx.x / EMB_D;
    int d = threadIdx.x % EMB_D;
    if (bag >= n_bags) return;
    int start = offsets[bag];
    int end = offsets[bag + 1];
    float sum = 0.0f;
    for (int k = start; k < end; k++) sum += table[indices[k] * EMB_D + d];
    out[bag * EMB_D + d] = end > start ? sum / (end - start) : 0.0f;
}

// ---- causal attention probabilities ----

// P[h] = softmax(Q[h] K[h]^T * scale) with the causal mask (row i sees keys 0 .. i), a
// block a head, ATT_L threads; Q, K: n_heads x ATT_L x ATT_DH, P: n_heads x ATT_L x ATT_L
__global__ void attn_causal_softmax(const float *Q, const float *K, float *P, float scale, int n_heads) {
    __shared__ float sQ[ATT_L][ATT_DH + 1];      // padded: thread i reads row i
    __shared__ float sK[ATT_L][ATT_DH];
    __shared__ float sS[ATT_L][ATT_L + 1];
    int h = blockIdx.x;
    int i = threadIdx.x;
    const float *q = Q + (size_t)h * ATT_L * ATT_DH;
    const float *kk = K + (size_t)h * ATT_L * ATT_DH;
    for (int k = i; k < ATT_L * ATT_DH; k += ATT_L) {
        sQ[k / ATT_DH][k % ATT_DH] = q[k];
        sK[k / ATT_DH][k % ATT_DH] = kk[k];
    }
    __syncthreads();

    float qi[ATT_DH];                            // this thread's query row, in registers
    for (int d = 0; d < ATT_DH; d++) qi[d] = sQ[i][d];
    float m = -INFINITY;
    for (int j = 0; j <= i; j++) {
        float s = 0.0f;
        for (int d = 0; d < ATT_DH; d++) s += qi[d] * sK[j][d];
        s *= scale;
        sS[i][j] = s;
        m = fmaxf(m, s);
    }
    float sum = 0.0f;
    for (int j = 0; j <= i; j++) {
        float e = expf(sS[i][j] - m);
        sS[i][j] = e;
        sum += e;
    }
    float inv = 1.0f / sum;
    for (int j = 0; j < ATT_L; j++) sS[i][j] = j <= i ? sS[i][j] * inv : 0.0f;
    __syncthreads();

    float *p = P + (size_t)h * ATT_L * ATT_L;
    for (int k = i; k < ATT_L * ATT_L; k += ATT_L) p[k] = sS[k / ATT_L][k % ATT_L];
}

// ---- hashed n-gram counts ----

// for each position i, the n-grams tok[i .. i + len) for len 1 .. NG_MAX (inside the
// array): FNV-1a over the ids, the hash's low table_bits (after a xor-shift) counted
__global__ void ngram_hash_count(const int *tok, unsigned int *counts, int table_bits, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int tmask = (1u << table_bits) - 1u;
    unsigned int h = 2166136261u;
    for (int k = 0; k < NG_MAX && i + k < n; k++) {
        h = (h ^ (unsigned int)tok[i + k]) * 16777619u;
        unsigned int slot = (h ^ (h >> 15)) & tmask;
        atomicAdd(&counts[slot], 1u);
    }
}

// ---- beam-search top-k ----

// a block a batch item b: candidate c = beam * vocab + v scores beam_score[b][beam] +
// logp[b][beam][v]; the best BM_K candidates (higher score first, then lower c) give
// the new scores, tokens (v) and parent beams
__global__ void beam_topk_prune(const float *logp, const float *beam_score, float *out_score, int *out_token,
                                int *out_parent, int vocab) {
    __shared__ float s_val[BM_BLOCK];
    __shared__ int s_idx[BM_BLOCK];
    int b = blockIdx.x;
    int t = threadIdx.x;
    float top_v[BM_K];
    int top_i[BM_K];
    for (int k = 0; k < BM_K; k++) {
        top_v[k] = -INFINITY;
        top_i[k] = INT_MAX;
    }
    for (int beam = 0; beam < BM_K; beam++) {
        float bs = beam_score[b * BM_K + beam];
        const float *lp = logp + ((size_t)b * BM_K + beam) * vocab;
        for (int v = t; v < vocab; v += BM_BLOCK) {
            // bubble the candidate into this thread's sorted list
            float s = bs + lp[v];
            int c = beam * vocab + v;
            for (int k = 0; k < BM_K; k++) {
                if (s > top_v[k] || (s == top_v[k] && c < top_i[k])) {
                    float tv = top_v[k];
                    int ti = top_i[k];
                    top_v[k] = s;
                    top_i[k] = c;
                    s = tv;
                    c = ti;
                }
            }
        }
    }

    // BM_K rounds: the block's best list head wins and leaves its thread's list
    for (int r = 0; r < BM_K; r++) {
        s_val[t] = top_v[0];
        s_idx[t] = top_i[0];
        __syncthreads();
        for (int st = BM_BLOCK / 2; st > 0; st >>= 1) {
            if (t < st) {
                float v2 = s_val[t + st];
                int i2 = s_idx[t + st];
                if (v2 > s_val[t] || (v2 == s_val[t] && i2 < s_idx[t])) {
                    s_val[t] = v2;
                    s_idx[t] = i2;
                }
            }
            __syncthreads();
        }
        int win = s_idx[0];
        if (t == 0) {
            out_score[b * BM_K + r] = s_val[0];
            out_token[b * BM_K + r] = win % vocab;
            out_parent[b * BM_K + r] = win / vocab;
        }
        if (top_i[0] == win) {
            for (int k = 0; k < BM_K - 1; k++) {
                top_v[k] = top_v[k + 1];
                top_i[k] = top_i[k + 1];
            }
            top_v[BM_K - 1] = -INFINITY;
            top_i[BM_K - 1] = INT_MAX;
        }
        __syncthreads();
    }
}

// ---- vocabulary softmax ----

// a block a row of logits (vocab wide): probs = softmax(logits * inv_temp), lse[row] =
// the log-sum-exp of logits * inv_temp
__global__ void vocab_softmax(const float *logits, float *probs, float *lse, float inv_temp, int vocab) {
    __shared__ float s_red[SM_BLOCK];
    int row = blockIdx.x;
    int t = threadIdx.x;
    const float *x = logits + (size_t)row * vocab;
    float *p = probs + (size_t)row * vocab;

    float m = -INFINITY;
    for (int v = t; v < vocab; v += SM_BLOCK) m = fmaxf(m, x[v] * inv_temp);
    s_red[t] = m;
    __syncthreads();
    for (int s = SM_BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) s_red[t] = fmaxf(s_red[t], s_red[t + s]);
        __syncthreads();
    }
    m = s_red[0];
    __syncthreads();

    float sum = 0.0f;
    for (int v = t; v < vocab; v += SM_BLOCK) sum += expf(x[v] * inv_temp - m);
    s_red[t] = sum;
    __syncthreads();
    for (int s = SM_BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) s_red[t] += s_red[t + s];
        __syncthreads();
    }
    float total = s_red[0];
    float inv = 1.0f / total;
    for (int v = t; v < vocab; v += SM_BLOCK) p[v] = expf(x[v] * inv_temp - m) * inv;
    if (t == 0) lse[row] = m + logf(total);
}

}
