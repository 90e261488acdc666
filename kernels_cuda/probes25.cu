// probe-unseen24 (session 23): kinds no probe had tried, written after loop nests that
// nvcc unrolls fully went into the issue model: 3-float vectors (12-byte elements)
// normalised in place, a 2x nearest-neighbour upsample (one load, four stores), floats
// quantised to signed bytes, GELU with tanhf, an 8x8 sum-of-squared-differences template
// match, a push of each element onto one of 4096 linked lists with atomicExch, and a
// bit-reversal permutation (__brev: every lane's store in another sector).
// Predicted before their first GPU run.

extern "C" {

// v[i] = v[i] / |v[i]| for 3-float vectors stored one after the other (12 bytes each)
__global__ void normalize_float3(float3 *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float3 a = v[i];
        float r = rsqrtf(a.x * a.x + a.y * a.y + a.z * a.z + 1e-12f);
        v[i] = make_float3(a.x * r, a.y * r, a.z * r);
    }
}

// out (2w x 2h) = in (w x h) with each pixel repeated 2 x 2: a thread an input pixel
__global__ void upsample2x(const float *in, float *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float v = in[(size_t)y * w + x];
    size_t o = (size_t)(2 * y) * (2 * w) + 2 * x;
    out[o] = v;
    out[o + 1] = v;
    out[o + 2 * w] = v;
    out[o + 2 * w + 1] = v;
}

// q[i] = x[i] / scale rounded to the nearest integer and clamped to [-127, 127]
__global__ void quantize_i8(const float *x, signed char *q, float inv_scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = __float2int_rn(x[i] * inv_scale);
        q[i] = (signed char)max(-127, min(127, v));
    }
}

// y = GELU(x), the tanh approximation
__global__ void gelu_tanh(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float u = 0.7978845608f * (v + 0.044715f * v * v * v);
        y[i] = 0.5f * v * (1.0f + tanhf(u));
    }
}

// d[y][x] = sum over the 8x8 window at (x, y) of (img - tpl)^2; tpl is 64 floats
__global__ void ssd8x8(const float *img, const float *tpl, float *d, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > w - 8 || y > h - 8)
        return;
    float s = 0.0f;
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 8; i++) {
            float e = img[(size_t)(y + j) * w + x + i] - tpl[j * 8 + i];
            s += e * e;
        }
    d[(size_t)y * w + x] = s;
}

// next[i] = old head of list key[i] % 4096, which becomes i
__global__ void list_push(const unsigned *key, int *heads, int *next, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        next[i] = atomicExch(&heads[(key[i] * 2654435761u) >> 20], i);
}

// out[reverse of i's low bits] = in[i] for n = 2^bits
__global__ void brev_permute(const float *in, float *out, int bits, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[__brev((unsigned)i) >> (32 - bits)] = in[i];
}

}
