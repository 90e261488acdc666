// probe-unseen31 (session 30): kinds no probe had tried: Bloom-filter inserts (four
// atomicOr a key into a 2 MiB bit array, their results unused), attention with an online
// softmax (a thread a query, q and the output accumulator in registers, K and V tiles in
// shared memory read as broadcasts), base64 encoding (three byte loads a thread, a
// divergent __constant__ alphabet, one char4 store), a radix-2 FFT stage on cuComplex
// values (a strided twiddle gather), the IoU bit mask of non-maximum suppression (a
// block a 64 x 64 tile of box pairs, the upper triangle only, a 64-bit mask a row), and
// a count by __reduce_add_sync in a grid-stride loop (one REDUX a trip).
// Predicted before their first GPU run.
#include <cuComplex.h>

extern "C" {

__device__ __forceinline__ unsigned mix32(unsigned x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// sets bits (h1 + k h2) & mask_bits, k = 0..3, of the bit array for each key (double hashing)
__global__ void bloom_insert(const unsigned *keys, unsigned *bits, int n, unsigned mask_bits) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h1 = mix32(keys[i]);
    unsigned h2 = mix32(h1 ^ 0x9e3779b9u) | 1u;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        unsigned b = (h1 + k * h2) & mask_bits;
        atomicOr(&bits[b >> 5], 1u << (b & 31));
    }
}

#define FA_D 32
#define FA_TILE 64

// o = softmax(scale q k^T) v for each of gridDim.y heads of L queries and keys, head
// dimension 32: a thread a query (blockDim.x of them a block), 64 keys a tile in shared
// memory, the running max and sum rescaled as each key arrives
__global__ void flash_attn_rows(const float *q, const float *k, const float *v, float *o,
                                int L, float scale) {
    __shared__ float ks[FA_TILE][FA_D];
    __shared__ float vs[FA_TILE][FA_D];
    size_t head = (size_t)blockIdx.y * L * FA_D;
    int qi = blockIdx.x * blockDim.x + threadIdx.x;
    const float *qrow = q + head + (size_t)qi * FA_D;
    float qr[FA_D], acc[FA_D];
#pragma unroll
    for (int d = 0; d < FA_D; ++d) {
        qr[d] = qrow[d] * scale;
        acc[d] = 0.0f;
    }
    float m = -INFINITY, l = 0.0f;
    for (int t0 = 0; t0 < L; t0 += FA_TILE) {
        for (int x = threadIdx.x; x < FA_TILE * FA_D; x += blockDim.x) {
            ks[x / FA_D][x % FA_D] = k[head + (size_t)t0 * FA_D + x];
            vs[x / FA_D][x % FA_D] = v[head + (size_t)t0 * FA_D + x];
        }
        __syncthreads();
        for (int j = 0; j < FA_TILE; ++j) {
            float s = 0.0f;
#pragma unroll
            for (int d = 0; d < FA_D; ++d) s += qr[d] * ks[j][d];
            float mn = fmaxf(m, s);
            float corr = __expf(m - mn);
            float p = __expf(s - mn);
            l = l * corr + p;
#pragma unroll
            for (int d = 0; d < FA_D; ++d) acc[d] = acc[d] * corr + p * vs[j][d];
            m = mn;
        }
        __syncthreads();
    }
    float inv = 1.0f / l;
    float *orow = o + head + (size_t)qi * FA_D;
#pragma unroll
    for (int d = 0; d < FA_D; ++d) orow[d] = acc[d] * inv;
}

__constant__ char c_b64[64];            // the alphabet, set by the host

// out[4g..4g+3] = the base64 characters of in[3g..3g+2]
__global__ void base64_encode(const unsigned char *in, char *out, int groups) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    unsigned a = in[3 * g], b = in[3 * g + 1], c = in[3 * g + 2];
    unsigned w = (a << 16) | (b << 8) | c;
    char4 r = make_char4(c_b64[w >> 18], c_b64[(w >> 12) & 63], c_b64[(w >> 6) & 63], c_b64[w & 63]);
    reinterpret_cast<char4 *>(out)[g] = r;
}

// one radix-2 decimation-in-time stage of an n-point FFT, out of place: butterflies of
// span half, twiddle tw[j n / (2 half)] from a table of n / 2 (tw[m] = exp(-2 pi i m / n))
__global__ void fft_stage(const cuFloatComplex *x, cuFloatComplex *y, const cuFloatComplex *tw,
                          int n, int half) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n / 2) return;
    int j = t % half;
    int i0 = (t / half) * 2 * half + j, i1 = i0 + half;
    cuFloatComplex w = tw[j * (n / (2 * half))];
    cuFloatComplex a = x[i0];
    cuFloatComplex b = cuCmulf(w, x[i1]);
    y[i0] = cuCaddf(a, b);
    y[i1] = cuCsubf(a, b);
}

#define NMS_T 64

// bit j of mask[i * gridDim.x + c] = IoU(box i, box 64c + j) > thr, for boxes j after i;
// boxes are (x1, y1, x2, y2); tiles below the diagonal return at once (mask left as is)
__global__ void nms_mask(const float4 *boxes, unsigned long long *mask, int n, float thr) {
    int rb = blockIdx.y, cb = blockIdx.x;
    if (rb > cb) return;
    __shared__ float4 cbox[NMS_T];
    int t = threadIdx.x;
    int rows = min(n - rb * NMS_T, NMS_T), cols = min(n - cb * NMS_T, NMS_T);
    if (t < cols) cbox[t] = boxes[cb * NMS_T + t];
    __syncthreads();
    if (t < rows) {
        int i = rb * NMS_T + t;
        float4 a = boxes[i];
        float area_a = (a.z - a.x) * (a.w - a.y);
        unsigned long long bits = 0;
        for (int j = (rb == cb) ? t + 1 : 0; j < cols; ++j) {
            float4 b = cbox[j];
            float iw = fmaxf(0.0f, fminf(a.z, b.z) - fmaxf(a.x, b.x));
            float ih = fmaxf(0.0f, fminf(a.w, b.w) - fmaxf(a.y, b.y));
            float inter = iw * ih;
            float area_b = (b.z - b.x) * (b.w - b.y);
            if (inter / (area_a + area_b - inter) > thr) bits |= 1ULL << j;
        }
        mask[(size_t)i * gridDim.x + cb] = bits;
    }
}

// count[w] = how many x[i] > thr over warp w's grid-stride elements: a __reduce_add_sync
// of the lanes' 0/1 every trip, lane 0 keeps the sum
__global__ void redux_count(const int *x, unsigned *count, int n, int thr) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned total = 0;
    for (; i < n; i += gridDim.x * blockDim.x) total += __reduce_add_sync(0xffffffffu, x[i] > thr ? 1u : 0u);
    if ((threadIdx.x & 31) == 0) count[(blockIdx.x * blockDim.x + threadIdx.x) >> 5] = total;
}

}
