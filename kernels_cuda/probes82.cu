// probe-unseen80: a recommender-systems / sparse-ML course's CUDA assignments, as a
// student who knows CUDA basics hands them in:
//   embbag_sum       embedding-bag sum pooling over variable-length bags (offsets into one
//                    index list, as PyTorch's EmbeddingBag takes them), a thread an output
//                    element (bag, d): the bag's rows gathered, EB_DIM floats a row, so a
//                    warp reads 128 contiguous bytes of a row per trip;
//   hash_features    the hashing trick: each (feature id, value) occurrence hashed by
//                    MurmurHash3's finalizer into one of n_buckets, its sign from the hash's
//                    top bit, and added into the bucket by a float atomicAdd (a Zipf-popular
//                    feature stream: the same bucket from several lanes of a warp);
//   score_tiled      dot-product scores of every user against every item, S = U V^T with
//                    FACT factors, 16 x 16 tiles of U and V staged in shared memory (V's tile
//                    padded to dodge bank conflicts), a thread a score;
//   topk_per_user    each user's TOPK best items from its row of scores, a warp a user: each
//                    lane keeps a sorted TOPK list of its strided slice (insertion sort in a
//                    local array, only when a score beats the lane's current 10th), then
//                    TOPK rounds of a warp argmax over the lists' heads by shuffles;
//   mf_sgd_atomic    one Hogwild-style epoch chunk of matrix-factorization SGD, a thread a
//                    rating (u, i, r): P[u] and Q[i] (MF_K factors) read, the error of their
//                    dot product, then both rows updated by atomicAdds so that ratings
//                    sharing a user or item lose no update;
//   spmm_csr_rows    a user-item matrix in CSR (power-law row lengths) times the item-factor
//                    matrix (SP_F factors), a thread a user row accumulating SP_F sums in a
//                    local array (a user's profile folded in from its items).

#define EB_DIM 64             // embbag_sum: the embedding's width
#define FACT 64               // score_tiled: factors (a multiple of TS)
#define TS 16                 // score_tiled: the tile's side (blockDim == (TS, TS))
#define TOPK 10               // topk_per_user: the items kept a user
#define MF_K 32               // mf_sgd_atomic: the factors
#define SP_F 8                // spmm_csr_rows: the factors

extern "C" {

// out[b][d] = sum of table[indices[k]][d] for k in [offsets[b], offsets[b + 1])
__global__ void embbag_sum(const float *table, const int *indices, const int *offsets, float *out, int n_bags) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int bag = t / EB_DIM;
    int d = t % EB_DIM;
    if (bag >= n_bags) return;
    int start = offsets[bag];
    int end = offsets[bag + 1];
    float sum = 0.0f;
    for (int k = start; k < end; k++) {
        int row = indices[k];
        sum += table[row * EB_DIM + d];
    }
    out[bag * EB_DIM + d] = sum;
}

// MurmurHash3's 32-bit finalizer
__device__ unsigned int fmix32(unsigned int h) {
    h ^= h >> 16;
    h *= 0x85ebca6bU;
    h ^= h >> 13;
    h *= 0xc2b2ae35U;
    h ^= h >> 16;
    return h;
}

// signed feature hashing: buckets[h % n_buckets] += (h's top bit ? -1 : 1) * val[i], h the
// hash of feat[i] ^ seed
__global__ void hash_features(const unsigned int *feat, const float *val, float *buckets, unsigned int seed,
                              int n_buckets, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int h = fmix32(feat[i] ^ seed);
    unsigned int b = h % (unsigned int)n_buckets;
    float sign = (h >> 31) ? -1.0f : 1.0f;
    atomicAdd(&buckets[b], sign * val[i]);
}

// S[u][i] = dot(U[u], V[i]) over FACT factors (U n_users x FACT, V n_items x FACT, both
// row-major; n_users and n_items multiples of TS); grid (n_items / TS, n_users / TS)
__global__ void score_tiled(const float *U, const float *V, float *S, int n_users, int n_items) {
    __shared__ float sU[TS][TS];
    __shared__ float sV[TS][TS + 1];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int u = blockIdx.y * TS + ty;            // this thread's score: user u, item i
    int i = blockIdx.x * TS + tx;
    int iv = blockIdx.x * TS + ty;           // the item row this thread loads into sV
    float acc = 0.0f;
    for (int t = 0; t < FACT; t += TS) {
        sU[ty][tx] = U[u * FACT + t + tx];
        sV[ty][tx] = V[iv * FACT + t + tx];
        __syncthreads();
        for (int k = 0; k < TS; k++) acc += sU[ty][k] * sV[tx][k];
        __syncthreads();
    }
    S[u * n_items + i] = acc;
}

// the TOPK highest scores of each user's row (n_items >= TOPK), best first, ties to the
// lower item; a warp a user
__global__ void topk_per_user(const float *scores, int *top_idx, float *top_val, int n_users, int n_items) {
    int user = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (user >= n_users) return;
    const float *row = scores + (size_t)user * n_items;
    float v[TOPK];
    int id[TOPK];
    for (int k = 0; k < TOPK; k++) {
        v[k] = -FLT_MAX;
        id[k] = -1;
    }
    for (int j = lane; j < n_items; j += 32) {
        float s = row[j];
        if (s > v[TOPK - 1]) {
            int p = TOPK - 1;
            while (p > 0 && v[p - 1] < s) {
                v[p] = v[p - 1];
                id[p] = id[p - 1];
                p--;
            }
            v[p] = s;
            id[p] = j;
        }
    }
    // merge the 32 sorted lists: each round the best head wins and its lane moves on
    int head = 0;
    for (int r = 0; r < TOPK; r++) {
        float hv = v[head];
        int hi = id[head];
        float bv = hv;
        int bi = hi;
        for (int o = 16; o > 0; o >>= 1) {
            float ov = __shfl_xor_sync(0xffffffff, bv, o);
            int oi = __shfl_xor_sync(0xffffffff, bi, o);
            if (ov > bv || (ov == bv && oi < bi)) {
                bv = ov;
                bi = oi;
            }
        }
        if (hi == bi) head++;
        if (lane == 0) {
            top_idx[user * TOPK + r] = bi;
            top_val[user * TOPK + r] = bv;
        }
    }
}

// one SGD step a rating: err = r - P[u] . Q[i]; P[u] += lr (err Q[i] - reg P[u]) and
// Q[i] += lr (err P[u] - reg Q[i]) (the old rows on the right), by atomicAdd
__global__ void mf_sgd_atomic(const int *user, const int *item, const float *rating, float *P, float *Q, float lr,
                              float reg, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int u = user[t];
    int i = item[t];
    float pu[MF_K];
    float qi[MF_K];
    float pred = 0.0f;
    for (int k = 0; k < MF_K; k++) {
        pu[k] = P[u * MF_K + k];
        qi[k] = Q[i * MF_K + k];
        pred += pu[k] * qi[k];
    }
    float err = rating[t] - pred;
    for (int k = 0; k < MF_K; k++) {
        atomicAdd(&P[u * MF_K + k], lr * (err * qi[k] - reg * pu[k]));
        atomicAdd(&Q[i * MF_K + k], lr * (err * pu[k] - reg * qi[k]));
    }
}

// out[r] = sum over row r's entries (c, a) of a * V[c] (V n_items x SP_F row-major)
__global__ void spmm_csr_rows(const int *row_ptr, const int *col, const float *val, const float *V, float *out,
                              int n_rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n_rows) return;
    float acc[SP_F];
    for (int f = 0; f < SP_F; f++) acc[f] = 0.0f;
    for (int j = row_ptr[r]; j < row_ptr[r + 1]; j++) {
        int c = col[j];
        float a = val[j];
        for (int f = 0; f < SP_F; f++) acc[f] += a * V[c * SP_F + f];
    }
    for (int f = 0; f < SP_F; f++) out[r * SP_F + f] = acc[f];
}

}
