// probe-unseen28 (session 27): kinds no probe had tried: modular exponentiation with
// 64-bit products and a modulus known only at run time, the decimal digit sum of each
// word (a loop of / 10 and % 10 whose trips depend on the value), running sums down the
// columns of an image (a thread a column: few warps, coalesced rows), a 5x5 bilateral
// filter (25 expf a pixel, spatial weights in __constant__), RGBA pixels split into byte
// planes, and the bucket of each key among 1024 sorted splitters by binary search in
// shared memory.  Predicted before their first GPU run.

extern "C" {

// out[i] = base[i]^e mod p (p < 2^32): square and multiply over e's 32 bits
__global__ void modpow_u64(const unsigned *base, unsigned *out, unsigned e, unsigned long long p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long b = base[i] % p, r = 1;
    for (int k = 0; k < 32; ++k) {
        if ((e >> k) & 1u) r = r * b % p;
        b = b * b % p;
    }
    out[i] = (unsigned)r;
}

// out[i] = the sum of the decimal digits of v[i]
__global__ void digit_sum_u32(const unsigned *v, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = v[i];
    int s = 0;
    while (x) {
        s += x % 10u;
        x /= 10u;
    }
    out[i] = s;
}

// out[r][c] = in[0][c] + ... + in[r][c], a thread a column (rows x cols, row-major)
__global__ void integral_cols(const float *in, float *out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float acc = 0.f;
    for (int r = 0; r < rows; ++r) {
        acc += in[(size_t)r * cols + c];
        out[(size_t)r * cols + c] = acc;
    }
}

__constant__ float c_space[25];

// out = 5x5 bilateral filter of in (w x h, row-major), edges clamped: each neighbour
// weighs c_space[its offset] * exp(-(its value - the centre's)^2 * inv2s2)
__global__ void bilateral5x5(const float *in, float *out, int w, int h, float inv2s2) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float c = in[y * w + x], num = 0.f, den = 0.f;
#pragma unroll
    for (int dy = -2; dy <= 2; ++dy)
#pragma unroll
        for (int dx = -2; dx <= 2; ++dx) {
            int yy = min(max(y + dy, 0), h - 1), xx = min(max(x + dx, 0), w - 1);
            float v = in[yy * w + xx], d = v - c;
            float wgt = c_space[(dy + 2) * 5 + dx + 2] * expf(-d * d * inv2s2);
            num += wgt * v;
            den += wgt;
        }
    out[y * w + x] = num / den;
}

// the r, g and b bytes of n RGBA pixels into three planes
__global__ void rgba_to_planar(const uchar4 *in, unsigned char *r, unsigned char *g, unsigned char *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uchar4 p = in[i];
    r[i] = p.x;
    g[i] = p.y;
    b[i] = p.z;
}

#define NSPLIT 1024
// bucket[i] = how many of the sorted splitters are <= keys[i]: a binary search of a
// shared copy (each block loads all 1024)
__global__ void bucket_of(const float *keys, const float *splitters, int *bucket, int n) {
    __shared__ float s[NSPLIT];
    for (int j = threadIdx.x; j < NSPLIT; j += blockDim.x) s[j] = splitters[j];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float k = keys[i];
    int lo = 0, hi = NSPLIT;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (s[mid] <= k) lo = mid + 1;
        else hi = mid;
    }
    bucket[i] = lo;
}

}
