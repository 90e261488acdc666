// probe-unseen27 (session 26): kinds no probe had tried: a 3x3 median filter over an 8-bit
// image (a 19-exchange sorting network in registers), Needleman-Wunsch scores of many short
// sequence pairs (a block a pair, one anti-diagonal between barriers), a lower-triangular
// matrix times a vector with a thread a row (rows of different lengths, lanes a row
// apart), the 8 nearest of 2048 points for each query (an insertion into a sorted array
// indexed at run time), a running sum along each row with a thread a row (lanes a row
// apart, loads and stores one word at a time), and index_add of rows (float atomics on
// rows picked at random, the backward pass of an embedding lookup).
// Predicted before their first GPU run.

extern "C" {

#define SWAP8(a, b) { unsigned char lo_ = min(a, b); b = max(a, b); a = lo_; }

// out = 3x3 median of in (w x h, row-major), edges clamped
__global__ void median3x3_u8(const unsigned char *in, unsigned char *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    unsigned char p[9];
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
        for (int dx = -1; dx <= 1; ++dx) {
            int yy = min(max(y + dy, 0), h - 1), xx = min(max(x + dx, 0), w - 1);
            p[(dy + 1) * 3 + dx + 1] = in[yy * w + xx];
        }
    // Paeth's 19-exchange median network
    SWAP8(p[1], p[2]); SWAP8(p[4], p[5]); SWAP8(p[7], p[8]);
    SWAP8(p[0], p[1]); SWAP8(p[3], p[4]); SWAP8(p[6], p[7]);
    SWAP8(p[1], p[2]); SWAP8(p[4], p[5]); SWAP8(p[7], p[8]);
    SWAP8(p[0], p[3]); SWAP8(p[5], p[8]); SWAP8(p[4], p[7]);
    SWAP8(p[3], p[6]); SWAP8(p[1], p[4]); SWAP8(p[2], p[5]);
    SWAP8(p[4], p[7]); SWAP8(p[4], p[2]); SWAP8(p[6], p[4]);
    SWAP8(p[4], p[2]);
    out[y * w + x] = p[4];
}

#define NW_LEN 32
// score[pair] = Needleman-Wunsch score of a[pair] against b[pair] (NW_LEN bytes each):
// match +1, mismatch -1, gap -1.  A block of NW_LEN threads a pair; thread t fills row
// t + 1 of the (NW_LEN + 1)^2 table, one anti-diagonal between barriers
__global__ void nw_batch(const unsigned char *a, const unsigned char *b, int *score, int pairs) {
    __shared__ int H[NW_LEN + 1][NW_LEN + 1];
    __shared__ unsigned char sb[NW_LEN];
    int p = blockIdx.x, t = threadIdx.x;
    if (p >= pairs) return;
    unsigned char ca = a[p * NW_LEN + t];
    sb[t] = b[p * NW_LEN + t];
    H[t + 1][0] = -(t + 1);
    H[0][t + 1] = -(t + 1);
    if (t == 0) H[0][0] = 0;
    __syncthreads();
    for (int d = 0; d < 2 * NW_LEN - 1; ++d) {
        int j = d - t;
        if (j >= 0 && j < NW_LEN) {
            int diag = H[t][j] + (ca == sb[j] ? 1 : -1);
            int up = H[t][j + 1] - 1, left = H[t + 1][j] - 1;
            H[t + 1][j + 1] = max(diag, max(up, left));
        }
        __syncthreads();
    }
    if (t == 0) score[p] = H[NW_LEN][NW_LEN];
}

// y = L x for the lower triangle of L (n x n, row-major), a thread a row
__global__ void tri_mv_rows(const float *L, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.f;
    for (int j = 0; j <= i; ++j) s += L[(size_t)i * n + j] * x[j];
    y[i] = s;
}

#define KNN_K 8
// idx[q * KNN_K ..] = the KNN_K points nearest query q, nearest first (squared distance),
// a thread a query, every point read by the whole warp at once
__global__ void knn_top8(const float2 *pts, const float2 *qs, int *idx, int m, int nq) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    float2 me = qs[q];
    float best[KNN_K];
    int bi[KNN_K];
    for (int k = 0; k < KNN_K; ++k) { best[k] = 3.4e38f; bi[k] = -1; }
    for (int j = 0; j < m; ++j) {
        float dx = pts[j].x - me.x, dy = pts[j].y - me.y;
        float d = dx * dx + dy * dy;
        if (d < best[KNN_K - 1]) {
            int k = KNN_K - 1;
            while (k > 0 && best[k - 1] > d) {
                best[k] = best[k - 1];
                bi[k] = bi[k - 1];
                --k;
            }
            best[k] = d;
            bi[k] = j;
        }
    }
    for (int k = 0; k < KNN_K; ++k) idx[q * KNN_K + k] = bi[k];
}

// out[r][c] = in[r][0] + ... + in[r][c], a thread a row (rows x cols, row-major)
__global__ void cumsum_rows_thread(const float *in, float *out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.f;
    for (int c = 0; c < cols; ++c) {
        acc += in[(size_t)r * cols + c];
        out[(size_t)r * cols + c] = acc;
    }
}

#define IA_COLS 64
// out[index[i]][:] += src[i][:] (rows of IA_COLS floats), a thread an element
__global__ void index_add_rows(const float *src, const int *index, float *out, int nsrc) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nsrc * IA_COLS) return;
    int i = e / IA_COLS, c = e % IA_COLS;
    atomicAdd(&out[index[i] * IA_COLS + c], src[e]);
}

}  // extern "C"
