// probe-unseen103: an information-retrieval / search-engine course's CUDA assignments, as
// a student who knows CUDA basics hands them in. Documents are numbered 0 .. n_docs - 1,
// terms by their frequency rank (term 0 the most frequent); an inverted index keeps each
// term's postings (doc ids ascending, term frequencies) one list after another (CSR).
//
//   bm25_postings     BM25 scores of one query against the whole collection, term at a
//                     time: a thread a posting of the query's terms (their lists
//                     concatenated, term_off[t] .. term_off[t + 1] term t's), the posting's
//                     term found by a scan of term_off, the document's length gathered, the
//                     BM25 weight idf * tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)) added
//                     to the document's score by a float atomicAdd (scores zeroed by the host)
//   intersect_bsearch the AND of two terms: a thread an entry of the shorter postings list a,
//                     a binary search for it in the longer list b (both ascending); a match
//                     appends the doc id to out through an atomicAdd on one counter (the
//                     host sorts out[0 .. *count) afterwards)
//   df_count          document frequencies from a forward index's (doc, term) entries (the
//                     term ids flattened): a grid-stride loop, the DF_HOT most frequent terms
//                     counted in a shared-memory histogram (atomicAdd), the rest by global
//                     atomicAdd; each block's nonzero hot counts added to df at the end
//   topk_query        the K best documents of each query's candidate scores (NC a query): a
//                     block a query, each thread keeping the K best of its strided NC / 256
//                     candidates in local arrays by insertion, the threads' lists then merged
//                     pairwise in shared memory (a tree of 8 rounds); ties to the lower doc
//   tfidf_cosine      cosine similarity of every document's tf-idf vector (CSR rows of term
//                     ids and weights, the rows' norms precomputed) with one dense vector
//                     over the vocabulary (a Rocchio-expanded query / a cluster centroid): a
//                     warp a document, its lanes striding the row and gathering the dense
//                     weights, the dot product by __shfl_down_sync
//   minhash_sig       MinHash signatures for near-duplicate detection: a block a document of
//                     DOC_LEN tokens, its SH_W-token shingles hashed (FNV-1a over the token
//                     ids) into shared memory, then thread k (NUM_HASH of them) the minimum of
//                     (a_k h + b_k) mod (2^31 - 1) over the shingles

#define DF_HOT 2048        // df_count: terms counted in shared memory (ids below DF_HOT)
#define TOPK 10            // topk_query: K
#define NC 4096            // topk_query: candidates a query
#define TK_THREADS 256     // topk_query: blockDim.x
#define DOC_LEN 256        // minhash_sig: tokens a document
#define SH_W 5             // minhash_sig: tokens a shingle
#define NUM_HASH 128       // minhash_sig: hash functions (blockDim.x)
#define MERSENNE 2147483647ULL

extern "C" {

__global__ void bm25_postings(const int *post_doc, const int *post_tf, const int *term_off, const float *idf,
                              const int *doc_len, float *scores, float avgdl, float k1, float b, int n_terms,
                              int n_post) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_post) return;
    int t = 0;
    while (t < n_terms - 1 && i >= term_off[t + 1]) t++;
    int d = post_doc[i];
    float tf = (float)post_tf[i];
    float dl = (float)doc_len[d];
    float w = idf[t] * tf * (k1 + 1.0f) / (tf + k1 * (1.0f - b + b * dl / avgdl));
    atomicAdd(&scores[d], w);
}

__global__ void intersect_bsearch(const int *a, int na, const int *b, int nb, int *out, int *count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= na) return;
    int x = a[i];
    int lo = 0;
    int hi = nb - 1;
    bool found = false;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int v = b[mid];
        if (v == x) {
            found = true;
            break;
        }
        if (v < x)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    if (found) {
        int pos = atomicAdd(count, 1);
        out[pos] = x;
    }
}

__global__ void df_count(const int *terms, int *df, int n) {
    __shared__ int s_df[DF_HOT];
    for (int k = threadIdx.x; k < DF_HOT; k += blockDim.x) s_df[k] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int t = terms[i];
        if (t < DF_HOT)
            atomicAdd(&s_df[t], 1);
        else
            atomicAdd(&df[t], 1);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < DF_HOT; k += blockDim.x) {
        if (s_df[k] > 0) atomicAdd(&df[k], s_df[k]);
    }
}

// (va, ia) ranks before (vb, ib): the higher score, on a tie the lower doc
__device__ bool better(float va, int ia, float vb, int ib) {
    return va > vb || (va == vb && ia < ib);
}

__global__ void topk_query(const float *scores, float *top_v, int *top_i, int n_queries) {
    __shared__ float s_v[TK_THREADS * TOPK];
    __shared__ int s_i[TK_THREADS * TOPK];
    int q = blockIdx.x;
    int tid = threadIdx.x;
    float tv[TOPK];
    int ti[TOPK];
    for (int k = 0; k < TOPK; k++) {
        tv[k] = -INFINITY;
        ti[k] = -1;
    }
    const float *row = scores + (size_t)q * NC;
    for (int c = tid; c < NC; c += TK_THREADS) {
        float v = row[c];
        if (v > tv[TOPK - 1]) {
            int p = TOPK - 1;
            while (p > 0 && tv[p - 1] < v) {
                tv[p] = tv[p - 1];
                ti[p] = ti[p - 1];
                p--;
            }
            tv[p] = v;
            ti[p] = c;
        }
    }
    for (int k = 0; k < TOPK; k++) {
        s_v[tid * TOPK + k] = tv[k];
        s_i[tid * TOPK + k] = ti[k];
    }
    __syncthreads();
    for (int s = TK_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) {
            int pa = tid * TOPK;
            int pb = (tid + s) * TOPK;
            int ea = pa + TOPK;
            float mv[TOPK];
            int mi[TOPK];
            for (int k = 0; k < TOPK; k++) {
                if (pa < ea && better(s_v[pa], s_i[pa], s_v[pb], s_i[pb])) {
                    mv[k] = s_v[pa];
                    mi[k] = s_i[pa];
                    pa++;
                } else {
                    mv[k] = s_v[pb];
                    mi[k] = s_i[pb];
                    pb++;
                }
            }
            for (int k = 0; k < TOPK; k++) {
                s_v[tid * TOPK + k] = mv[k];
                s_i[tid * TOPK + k] = mi[k];
            }
        }
        __syncthreads();
    }
    if (tid < TOPK) {
        top_v[q * TOPK + tid] = s_v[tid];
        top_i[q * TOPK + tid] = s_i[tid];
    }
}

__global__ void tfidf_cosine(const int *row_ptr, const int *col, const float *val, const float *doc_norm,
                             const float *qw, float q_norm, float *sim, int n_docs) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (warp >= n_docs) return;
    float dot = 0.0f;
    for (int j = row_ptr[warp] + lane; j < row_ptr[warp + 1]; j += 32) dot += val[j] * qw[col[j]];
    for (int o = 16; o > 0; o >>= 1) dot += __shfl_down_sync(0xffffffff, dot, o);
    if (lane == 0) {
        float dn = doc_norm[warp];
        sim[warp] = dn > 0.0f ? dot / (dn * q_norm) : 0.0f;
    }
}

__global__ void minhash_sig(const int *tokens, const unsigned int *ha, const unsigned int *hb, unsigned int *sig,
                            int n_docs) {
    __shared__ unsigned int s_sh[DOC_LEN - SH_W + 1];
    int d = blockIdx.x;
    int tid = threadIdx.x;
    const int *doc = tokens + (size_t)d * DOC_LEN;
    for (int p = tid; p < DOC_LEN - SH_W + 1; p += blockDim.x) {
        unsigned int h = 2166136261u;
        for (int w = 0; w < SH_W; w++) {
            h ^= (unsigned int)doc[p + w];
            h *= 16777619u;
        }
        s_sh[p] = h;
    }
    __syncthreads();
    unsigned long long a = ha[tid];
    unsigned long long bb = hb[tid];
    unsigned long long m = MERSENNE;
    for (int p = 0; p < DOC_LEN - SH_W + 1; p++) {
        unsigned long long v = (a * s_sh[p] + bb) % MERSENNE;
        if (v < m) m = v;
    }
    sig[(size_t)d * NUM_HASH + tid] = (unsigned int)m;
}

}
