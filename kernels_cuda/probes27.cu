// probe-unseen26 (session 25): kinds no probe had tried: attention for one head with a
// thread a query (an online softmax over the keys, the keys and values read warp-uniform),
// RGB to HSV with a branch on the largest channel, CRC-32 of 64-byte chunks through a
// table in shared memory (lanes read words 64 bytes apart, lookups land on any bank), a
// direct 3x3 convolution layer (8 input channels, 16 output, weights in __constant__),
// 4x4 matrix inversions by Gauss-Jordan in registers (a thread a matrix), and a 64-tap
// FIR filter over a shared-memory tile with its taps in __constant__ memory.
// Predicted before their first GPU run.

extern "C" {

#define HD 16
// o[i] = softmax(q[i] . K^T * scale) V for one head of width HD: a thread a query, the
// running maximum and sum of an online softmax, every key and value row read by a whole
// warp at once
__global__ void attention_naive(const float *q, const float *k, const float *v, float *o,
                                int nq, int nk, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nq) return;
    float qi[HD], acc[HD];
#pragma unroll
    for (int d = 0; d < HD; ++d) {
        qi[d] = q[(size_t)i * HD + d] * scale;
        acc[d] = 0.f;
    }
    float m = -1e30f, l = 0.f;
    for (int j = 0; j < nk; ++j) {
        float s = 0.f;
#pragma unroll
        for (int d = 0; d < HD; ++d) s += qi[d] * k[j * HD + d];
        float mn = fmaxf(m, s);
        float c = __expf(m - mn), p = __expf(s - mn);
        l = l * c + p;
#pragma unroll
        for (int d = 0; d < HD; ++d) acc[d] = acc[d] * c + p * v[j * HD + d];
        m = mn;
    }
#pragma unroll
    for (int d = 0; d < HD; ++d) o[(size_t)i * HD + d] = acc[d] / l;
}

// RGBA bytes to (hue in degrees, saturation, value, alpha) floats
__global__ void rgb_to_hsv(const uchar4 *in, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uchar4 p = in[i];
    float r = p.x / 255.f, g = p.y / 255.f, b = p.z / 255.f;
    float mx = fmaxf(r, fmaxf(g, b)), mn = fminf(r, fminf(g, b)), d = mx - mn;
    float h = 0.f;
    if (d > 0.f) {
        if (mx == r) h = (g - b) / d;
        else if (mx == g) h = (b - r) / d + 2.f;
        else h = (r - g) / d + 4.f;
        h *= 60.f;
        if (h < 0.f) h += 360.f;
    }
    float s = mx > 0.f ? d / mx : 0.f;
    out[i] = make_float4(h, s, mx, p.w / 255.f);
}

// CRC-32 (the reflected polynomial 0xEDB88320, as zlib) of each 64-byte chunk, a thread a
// chunk, a byte at a time through the 256-word table copied to shared memory
__global__ void crc32_chunks(const unsigned *data, const unsigned *table, unsigned *out, int nchunks) {
    __shared__ unsigned t[256];
    for (int k = threadIdx.x; k < 256; k += blockDim.x) t[k] = table[k];
    __syncthreads();
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= nchunks) return;
    const unsigned *p = data + (size_t)c * 16;
    unsigned crc = 0xFFFFFFFFu;
    for (int w = 0; w < 16; ++w) {
        unsigned x = p[w];
        for (int b = 0; b < 4; ++b) {
            crc = t[(crc ^ x) & 0xFFu] ^ (crc >> 8);
            x >>= 8;
        }
    }
    out[c] = ~crc;
}

#define CIN 8
#define COUT 16
__constant__ float c_w[COUT * CIN * 9];
// a 3x3 convolution layer, zero-padded: out[co][y][x] = sum over ci, dy, dx of
// in[ci][y+dy][x+dx] w[co][ci][dy][dx]; a thread an output pixel, blockIdx.z the channel
__global__ void conv2d_layer(const float *in, float *out, int h, int w) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int co = blockIdx.z;
    if (x >= w || y >= h) return;
    float s = 0.f;
    for (int ci = 0; ci < CIN; ++ci) {
        const float *pl = in + (size_t)ci * h * w;
#pragma unroll
        for (int dy = -1; dy <= 1; ++dy) {
#pragma unroll
            for (int dx = -1; dx <= 1; ++dx) {
                int yy = y + dy, xx = x + dx;
                float v = (yy >= 0 && yy < h && xx >= 0 && xx < w) ? pl[yy * w + xx] : 0.f;
                s += v * c_w[((co * CIN + ci) * 3 + dy + 1) * 3 + dx + 1];
            }
        }
    }
    out[((size_t)co * h + y) * w + x] = s;
}

// the inverse of each 4x4 row-major matrix by Gauss-Jordan without pivoting (the inputs
// are diagonally dominant), a thread a matrix, [A | I] held in registers
__global__ void invert4x4(const float *a, float *inv, int nmat) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nmat) return;
    float m[4][8];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            m[i][j] = a[(size_t)t * 16 + i * 4 + j];
            m[i][j + 4] = (i == j) ? 1.f : 0.f;
        }
    }
#pragma unroll
    for (int c = 0; c < 4; ++c) {
        float r = 1.f / m[c][c];
#pragma unroll
        for (int j = 0; j < 8; ++j) m[c][j] *= r;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            if (i != c) {
                float f = m[i][c];
#pragma unroll
                for (int j = 0; j < 8; ++j) m[i][j] -= f * m[c][j];
            }
        }
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) inv[(size_t)t * 16 + i * 4 + j] = m[i][j + 4];
    }
}

#define FT 64
__constant__ float c_fir[FT];
// y[i] = sum_t h[t] x[i - t] (x zero before 0), each block's 256 inputs and the 63
// before them staged in shared memory; blocks of 256 threads
__global__ void fir64_shared(const float *x, float *y, int n) {
    __shared__ float s[256 + FT - 1];
    int base = blockIdx.x * blockDim.x;
    for (int k = threadIdx.x; k < blockDim.x + FT - 1; k += blockDim.x) {
        int g = base + k - (FT - 1);
        s[k] = (g >= 0 && g < n) ? x[g] : 0.f;
    }
    __syncthreads();
    int i = base + threadIdx.x;
    if (i < n) {
        float acc = 0.f;
#pragma unroll 16
        for (int t = 0; t < FT; ++t) acc += c_fir[t] * s[threadIdx.x + FT - 1 - t];
        y[i] = acc;
    }
}

}
