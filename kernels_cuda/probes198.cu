// probe-unseen196: a computational linguistics / natural language processing course's CUDA
// assignments, as a student who knows CUDA basics hands them in:
//  - char_trigram_fnv: fastText-style subword features of a large lower-cased text, a thread
//    a byte position: the character trigram starting there (skipped when its middle byte is
//    a space or a newline, so trigrams stay within a word and its boundary marks) hashed by
//    32-bit FNV-1a into nbuckets buckets (fastText's 2M, a modulo), counted by a global
//    atomicAdd (frequent trigrams such as " th", "the", "he " make hot buckets);
//  - levenshtein_spell: spelling correction's candidate scoring, a thread a (misspelling,
//    dictionary word) pair: the Levenshtein distance of the two words (a CSR character buffer)
//    by the Wagner-Fischer dynamic programme kept as one row in a per-thread array, loops as
//    long as the words;
//  - viterbi_pos: part-of-speech tagging with a first-order HMM over the 45 Penn Treebank
//    tags, a block of 45 threads a sentence and a thread a tag: the log transition matrix
//    staged in shared memory, each token's best predecessor (the first maximum of delta +
//    log A) and its emission gathered from the word's row of log B, the scores double-
//    buffered in shared memory with a __syncthreads a token, the back-pointers kept in
//    shared memory as bytes, then one thread picks the best last tag and traces the path;
//  - lm_backoff_score: the log10 probability of each token of a test text under a trigram
//    language model in ARPA back-off form, a thread a token: the trigram looked up in an
//    open-addressing hash table (64-bit keys, linear probing, struct entries of key,
//    log-probability and back-off weight), on a miss the bigram context's back-off weight
//    plus the bigram, on a miss again the unigram's back-off and the unigram; the text's
//    total (for perplexity) summed by a warp shuffle and one double atomicAdd a warp;
//  - bpe_pair_count: a byte-pair-encoding training step's pair statistics, a block a chunk of
//    the tokenised corpus (words split into their current subword symbols, -1 between
//    words): each adjacent symbol pair inside a word inserted into the block's shared-memory
//    hash table (atomicCAS claiming a slot, atomicAdd counting; a full table sends the pair
//    to the global table directly), then the block's nonzero slots merged into the global
//    hash table the same way;
//  - analogy_topk: the word-analogy test (a : b :: c : ?) over 100-dimensional word
//    embeddings (GloVe's 100d), a thread a question (its query vector b - a + c, normalised,
//    laid out dimension-major) and a block's y index a slice of the vocabulary: tiles of 16
//    vocabulary vectors staged in shared memory, 16 dot products a tile accumulated in
//    registers, each kept in a per-thread top-10 (insertion into local arrays) unless it is
//    a, b or c; the slice's top-10 written for a host merge.

#define LV_MAX 24              // levenshtein_spell: the longest word (bytes)
#define VT_TAGS 45             // viterbi_pos: the tag set (blockDim.x)
#define VT_MAXLEN 128          // the longest sentence (tokens)
#define LM_BOS 0               // lm_backoff_score: the <s> token (not scored)
#define LM_WBITS 17            // bits of a word id in a key
#define LM_EMPTY 0xffffffffffffffffULL
#define BP_SLOTS 4096          // bpe_pair_count: the shared hash table's slots (a power of 2)
#define BP_CHUNK 8192          // corpus positions a block
#define BP_PROBES 64           // shared slots tried before a pair goes to the global table
#define BP_EMPTY 0xffffffffu
#define AN_DIM 100             // analogy_topk: the embeddings' dimension
#define AN_TILE 16             // vocabulary vectors staged a time
#define AN_K 10                // the best words kept a question

// a slot of the language model's hash tables (the trigram table's bow unused)
struct LmEntry {
    unsigned long long key;    // (u << 2 LM_WBITS) | (v << LM_WBITS) | w, LM_EMPTY if free
    float logp;                // log10 P(w | context)
    float bow;                 // log10 back-off weight of the n-gram as a context
};

// the slot of a key in a table of mask + 1 slots, or -1 if absent
__device__ int lm_find(const LmEntry *table, unsigned int mask, unsigned long long key) {
    unsigned int h = (unsigned int)((key * 0x9E3779B97F4A7C15ULL) >> 40) & mask;
    while (true) {
        unsigned long long k = table[h].key;
        if (k == key) return (int)h;
        if (k == LM_EMPTY) return -1;
        h = (h + 1) & mask;
    }
}

__device__ unsigned int bp_hash(unsigned int key) {
    unsigned int h = key * 2654435761u;
    return h ^ (h >> 15);
}

// add c to key's count in the global table (gmask + 1 slots, keys BP_EMPTY when free)
__device__ void bp_insert_global(unsigned int *gkey, unsigned int *gcnt, unsigned int gmask, unsigned int key,
                                 unsigned int c) {
    unsigned int h = bp_hash(key) & gmask;
    while (true) {
        unsigned int old = atomicCAS(&gkey[h], BP_EMPTY, key);
        if (old == BP_EMPTY || old == key) break;
        h = (h + 1) & gmask;
    }
    atomicAdd(&gcnt[h], c);
}

extern "C" {

// counts[h % nbuckets] += 1 for the FNV-1a hash h of each trigram text[i .. i + 2] whose
// middle byte is not a space or a newline (text of n bytes)
__global__ void char_trigram_fnv(const unsigned char *text, unsigned int *counts, unsigned int nbuckets, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 2) return;
    unsigned char c1 = text[i + 1];
    if (c1 == ' ' || c1 == '\n') return;
    unsigned int h = 2166136261u;
    h = (h ^ text[i]) * 16777619u;
    h = (h ^ c1) * 16777619u;
    h = (h ^ text[i + 2]) * 16777619u;
    atomicAdd(&counts[h % nbuckets], 1u);
}

// dist[i] = the Levenshtein distance of words qa[i] and qb[i], word k being chars[off[k] ..
// off[k + 1]) (at most LV_MAX bytes)
__global__ void levenshtein_spell(const char *chars, const int *off, const int *qa, const int *qb, int *dist,
                                  int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int wa = qa[i];
    int wb = qb[i];
    const char *a = chars + off[wa];
    const char *b = chars + off[wb];
    int la = off[wa + 1] - off[wa];
    int lb = off[wb + 1] - off[wb];
    int row[LV_MAX + 1];
    for (int y = 0; y <= lb; y++) row[y] = y;
    for (int x = 1; x <= la; x++) {
        int diag = row[0];
        row[0] = x;
        char ca = a[x - 1];
        for (int y = 1; y <= lb; y++) {
            int up = row[y];
            int v = diag + (ca != b[y - 1] ? 1 : 0);
            v = min(v, up + 1);
            v = min(v, row[y - 1] + 1);
            diag = up;
            row[y] = v;
        }
    }
    dist[i] = row[lb];
}

// the most probable tag sequence of each sentence (words[off[s] .. off[s + 1]), word ids,
// 1 .. VT_MAXLEN tokens) under log start probabilities logpi, log transitions logA (from
// row-major) and log emissions logB (a row of VT_TAGS a word): tags a token, score the
// path's log probability a sentence (blockDim.x == VT_TAGS, a block a sentence)
__global__ void viterbi_pos(const int *words, const int *off, const float *logpi, const float *logA,
                            const float *logB, int *tags, float *score) {
    __shared__ float A[VT_TAGS * VT_TAGS];
    __shared__ float delta[2][VT_TAGS];
    __shared__ unsigned char bp[VT_MAXLEN][VT_TAGS];
    int s = threadIdx.x;
    int sent = blockIdx.x;
    for (int k = s; k < VT_TAGS * VT_TAGS; k += VT_TAGS) A[k] = logA[k];
    int start = off[sent];
    int len = off[sent + 1] - start;
    delta[0][s] = logpi[s] + logB[words[start] * VT_TAGS + s];
    __syncthreads();
    int cur = 0;
    for (int t = 1; t < len; t++) {
        float best = delta[cur][0] + A[s];
        int arg = 0;
        for (int p = 1; p < VT_TAGS; p++) {
            float v = delta[cur][p] + A[p * VT_TAGS + s];
            if (v > best) {
                best = v;
                arg = p;
            }
        }
        delta[1 - cur][s] = best + logB[words[start + t] * VT_TAGS + s];
        bp[t][s] = (unsigned char)arg;
        cur = 1 - cur;
        __syncthreads();
    }
    if (s == 0) {
        int q = 0;
        float best = delta[cur][0];
        for (int p = 1; p < VT_TAGS; p++) {
            if (delta[cur][p] > best) {
                best = delta[cur][p];
                q = p;
            }
        }
        score[sent] = best;
        for (int t = len - 1; t > 0; t--) {
            tags[start + t] = q;
            q = bp[t][q];
        }
        tags[start] = q;
    }
}

// lp[i] = log10 P(tok[i] | the two tokens before it) by back-off (0 for <s>, tok[0] == <s>);
// tri and big hash tables of tmask + 1 and bmask + 1 slots, the unigrams' log10 probabilities
// and back-off weights indexed by word; *total += the sum of lp
__global__ void lm_backoff_score(const int *tok, const LmEntry *tri, unsigned int tmask, const LmEntry *big,
                                 unsigned int bmask, const float *uni_lp, const float *uni_bow, float *lp,
                                 double *total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float p = 0.0f;
    if (i < n) {
        int w = tok[i];
        if (w != LM_BOS) {
            int v = tok[i - 1];
            unsigned long long kvw = ((unsigned long long)v << LM_WBITS) | (unsigned long long)w;
            int u = -1;
            int e = -1;
            if (v != LM_BOS) {
                u = tok[i - 2];
                e = lm_find(tri, tmask, ((unsigned long long)u << (2 * LM_WBITS)) | kvw);
            }
            if (e >= 0) {
                p = tri[e].logp;
            } else {
                float b = 0.0f;
                if (u >= 0) {
                    int c = lm_find(big, bmask, ((unsigned long long)u << LM_WBITS) | (unsigned long long)v);
                    if (c >= 0) b = big[c].bow;
                }
                int e2 = lm_find(big, bmask, kvw);
                if (e2 >= 0) p = b + big[e2].logp;
                else p = b + uni_bow[v] + uni_lp[w];
            }
        }
        lp[i] = p;
    }
    for (int o = 16; o > 0; o >>= 1) p += __shfl_down_sync(0xffffffff, p, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(total, (double)p);
}

// the counts of adjacent symbol pairs (a, b) of tok (n symbols, ids < 65535, -1 between
// words) in the global hash table gkey / gcnt (gmask + 1 slots, keys (a << 16) | b,
// BP_EMPTY when free); a block a chunk of BP_CHUNK positions
__global__ void bpe_pair_count(const int *tok, unsigned int *gkey, unsigned int *gcnt, unsigned int gmask, int n) {
    __shared__ unsigned int skey[BP_SLOTS];
    __shared__ unsigned int scnt[BP_SLOTS];
    for (int k = threadIdx.x; k < BP_SLOTS; k += blockDim.x) {
        skey[k] = BP_EMPTY;
        scnt[k] = 0;
    }
    __syncthreads();
    int base = blockIdx.x * BP_CHUNK;
    for (int j = threadIdx.x; j < BP_CHUNK; j += blockDim.x) {
        int i = base + j;
        if (i + 1 >= n) break;
        int a = tok[i];
        int b = tok[i + 1];
        if (a < 0 || b < 0) continue;          // no pair across a word boundary
        unsigned int key = ((unsigned int)a << 16) | (unsigned int)b;
        unsigned int h = bp_hash(key) & (BP_SLOTS - 1);
        bool done = false;
        for (int probe = 0; probe < BP_PROBES; probe++) {
            unsigned int old = atomicCAS(&skey[h], BP_EMPTY, key);
            if (old == BP_EMPTY || old == key) {
                atomicAdd(&scnt[h], 1u);
                done = true;
                break;
            }
            h = (h + 1) & (BP_SLOTS - 1);
        }
        if (!done) bp_insert_global(gkey, gcnt, gmask, key, 1u);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < BP_SLOTS; k += blockDim.x)
        if (scnt[k] > 0) bp_insert_global(gkey, gcnt, gmask, skey[k], scnt[k]);
}

// for each of nq questions (its query vector dimension-major in Qt: Qt[d * nq + q]; its
// words a, b, c at excl[3 q .. 3 q + 2]) the AN_K vocabulary words (E: nv vectors of AN_DIM
// floats, row-major) of the largest dot products among words blockIdx.y * slice ..
// + slice - 1, a, b and c left out: topi / tops[(q * gridDim.y + blockIdx.y) * AN_K + k],
// best first (-1 / -FLT_MAX when the slice has fewer)
__global__ void analogy_topk(const float *Qt, const int *excl, const float *E, int *topi, float *tops, int nq,
                             int nv, int slice) {
    __shared__ float tile[AN_TILE][AN_DIM];
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    int v0 = blockIdx.y * slice;
    int v1 = min(v0 + slice, nv);
    float bs[AN_K];
    int bi[AN_K];
    for (int k = 0; k < AN_K; k++) {
        bs[k] = -FLT_MAX;
        bi[k] = -1;
    }
    int ea = -1, eb = -1, ec = -1;
    if (q < nq) {
        ea = excl[3 * q];
        eb = excl[3 * q + 1];
        ec = excl[3 * q + 2];
    }
    for (int t0 = v0; t0 < v1; t0 += AN_TILE) {
        __syncthreads();                       // the last tile used up
        for (int k = threadIdx.x; k < AN_TILE * AN_DIM; k += blockDim.x) {
            int w = k / AN_DIM;
            tile[w][k - w * AN_DIM] = t0 + w < v1 ? E[t0 * AN_DIM + k] : 0.0f;
        }
        __syncthreads();
        if (q < nq) {
            float acc[AN_TILE];
            for (int w = 0; w < AN_TILE; w++) acc[w] = 0.0f;
            for (int d = 0; d < AN_DIM; d++) {
                float x = Qt[d * nq + q];
                for (int w = 0; w < AN_TILE; w++) acc[w] += x * tile[w][d];
            }
            for (int w = 0; w < AN_TILE; w++) {
                int v = t0 + w;
                if (v >= v1 || v == ea || v == eb || v == ec) continue;
                float sc = acc[w];
                if (sc > bs[AN_K - 1]) {
                    int j = AN_K - 1;
                    while (j > 0 && bs[j - 1] < sc) {
                        bs[j] = bs[j - 1];
                        bi[j] = bi[j - 1];
                        j--;
                    }
                    bs[j] = sc;
                    bi[j] = v;
                }
            }
        }
    }
    if (q < nq) {
        for (int k = 0; k < AN_K; k++) {
            topi[(q * gridDim.y + blockIdx.y) * AN_K + k] = bi[k];
            tops[(q * gridDim.y + blockIdx.y) * AN_K + k] = bs[k];
        }
    }
}

}
