// probe-unseen35 (session 31): kinds no probe had tried: prefix-code (Huffman) decoding
// a thread a chunk through a 256-entry table in shared memory, a PageRank pull step over
// in-edges with a division an edge, a sampled dense-dense product (SDDMM: a 64-float dot
// product of two gathered rows a nonzero, float4 loads), LZ77 match lengths (byte
// compares until a mismatch), a cross-entropy loss (expf / logf over 10 classes, a warp
// sum by shuffles and one float atomicAdd a warp onto one word), and a block scan of
// bytes read as uchar4. Predicted before their first GPU run.

extern "C" {

// out[c * per + s] = the s-th symbol of chunk c of an MSB-first prefix-code stream, the
// chunk starting at bit start[c]; lut[next 8 bits] = symbol << 4 | code length
__global__ void huffman_decode(const unsigned *bits, const unsigned *start, const unsigned short *lut,
                               unsigned char *out, int nchunks, int per) {
    __shared__ unsigned short t[256];
    for (int k = threadIdx.x; k < 256; k += blockDim.x) t[k] = lut[k];
    __syncthreads();
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= nchunks) return;
    unsigned pos = start[c];
    for (int s = 0; s < per; ++s) {
        unsigned w = pos >> 5, sh = pos & 31;
        unsigned peek = __funnelshift_l(bits[w + 1], bits[w], sh) >> 24;
        unsigned e = t[peek];
        out[(size_t)c * per + s] = (unsigned char)(e >> 4);
        pos += e & 15;
    }
}

// next[v] = (1 - d) / n + d * (sum over in-edges u -> v of rank[u] / outdeg[u])
__global__ void pagerank_pull(const int *rowptr, const int *src, const float *rank, const int *outdeg,
                              float *next, int n, float d) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    float s = 0.0f;
    for (int e = rowptr[v]; e < rowptr[v + 1]; ++e) {
        int u = src[e];
        s += rank[u] / outdeg[u];
    }
    next[v] = (1.0f - d) / n + d * s;
}

// out[e] = dot(a[row[e]], b[col[e]]) over 64 floats, a thread a nonzero
__global__ void sddmm_rows(const float4 *a, const float4 *b, const int *row, const int *col, float *out,
                           int nnz) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= nnz) return;
    const float4 *x = a + (size_t)row[e] * 16, *y = b + (size_t)col[e] * 16;
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 16; ++k) {
        float4 p = x[k], q = y[k];
        s += p.x * q.x + p.y * q.y + p.z * q.z + p.w * q.w;
    }
    out[e] = s;
}

// len[i] = how many bytes (at most 32) the text at i repeats from off[i] bytes back
__global__ void lz77_match(const unsigned char *text, const int *off, unsigned char *len, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int o = off[i], m = 0;
    if (o > 0 && o <= i)
        while (m < 32 && i + m < n && text[i + m] == text[i - o + m]) ++m;
    len[i] = (unsigned char)m;
}

// *loss += the cross-entropy of softmax(logits[r]) against label[r] over 10 classes,
// summed over rows: a thread a row, a warp's sum by shuffles, an atomicAdd a warp
__global__ void xent_loss(const float *logits, const int *label, float *loss, int n) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    float l = 0.0f;
    if (r < n) {
        const float *z = logits + (size_t)r * 10;
        float m = z[0];
        for (int k = 1; k < 10; ++k) m = fmaxf(m, z[k]);
        float s = 0.0f;
        for (int k = 0; k < 10; ++k) s += expf(z[k] - m);
        l = logf(s) - (z[label[r]] - m);
    }
    for (int o = 16; o > 0; o >>= 1) l += __shfl_down_sync(0xffffffffu, l, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(loss, l);
}

// out[j] = the sum of the bytes in[tile start .. j] for each block's tile of 1024 bytes
// (256 threads x uchar4): a warp scan by __shfl_up_sync, warp totals through shared memory
__global__ void uchar4_scan(const uchar4 *in, uint4 *out, int n4) {
    __shared__ unsigned wsum[8];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t, lane = t & 31, w = t >> 5;
    uchar4 v = i < n4 ? in[i] : make_uchar4(0, 0, 0, 0);
    unsigned a = v.x, b = a + v.y, c = b + v.z, d = c + v.w;
    unsigned x = d;
    for (int o = 1; o < 32; o <<= 1) {
        unsigned y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) wsum[w] = x;
    __syncthreads();
    if (w == 0) {
        unsigned s = lane < 8 ? wsum[lane] : 0u;
        for (int o = 1; o < 8; o <<= 1) {
            unsigned y = __shfl_up_sync(0xffffffffu, s, o);
            if (lane >= o) s += y;
        }
        if (lane < 8) wsum[lane] = s;
    }
    __syncthreads();
    unsigned base = x - d + (w > 0 ? wsum[w - 1] : 0u);
    if (i < n4) out[i] = make_uint4(base + a, base + b, base + c, base + d);
}

}
