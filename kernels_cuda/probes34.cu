// probe-unseen32 (session 30): kinds no probe had tried: Newton's method on a cubic a
// thread (a float division a trip, trip counts that differ by lane), an 8x8 DCT a block
// (coefficients in __constant__ read at 8 addresses a warp, two shared passes), a warp's
// LSD radix sort of 32 keys by __ballot_sync (32 passes, each a scatter through shared
// memory), parsing fixed-width decimal records (one 16-byte load, a 64-bit multiply-add a
// digit), rotating a byte image with nearest-neighbour lookup (a rotated gather), and a
// STREAM triad on double2.
// Predicted before their first GPU run.

extern "C" {

// root[i] = the real root of x^3 + a x + b (a > 0) by Newton's method from -b / (a + 1),
// stopping when |f| < 1e-5 (1 + |b|) or after 50 steps; iters[i] = the steps taken
__global__ void newton_cubic(const float *a, const float *b, float *root, int *iters, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float A = a[i], B = b[i], x = -B / (A + 1.0f);
    float tol = 1e-5f * (1.0f + fabsf(B));
    int k = 0;
    for (; k < 50; ++k) {
        float f = (x * x + A) * x + B;
        if (fabsf(f) < tol) break;
        x -= f / (3.0f * x * x + A);
    }
    root[i] = x;
    iters[i] = k;
}

__constant__ float c_dct[64];           // c_dct[8u + x] = alpha(u) cos((2x + 1) u pi / 16)

// out's 8x8 tile (blockIdx.x, blockIdx.y) = C tile C^T, C the DCT-II matrix: 64 threads a
// block, a row pass then a column pass through shared memory
__global__ void dct8x8(const float *img, float *out, int w) {
    __shared__ float tile[8][8];
    __shared__ float tmp[8][8];
    int tx = threadIdx.x & 7, ty = threadIdx.x >> 3;
    size_t at = (size_t)(blockIdx.y * 8 + ty) * w + blockIdx.x * 8 + tx;
    tile[ty][tx] = img[at];
    __syncthreads();
    float s = 0.0f;
    for (int x = 0; x < 8; ++x) s += c_dct[tx * 8 + x] * tile[ty][x];
    tmp[ty][tx] = s;
    __syncthreads();
    s = 0.0f;
    for (int y = 0; y < 8; ++y) s += c_dct[ty * 8 + y] * tmp[y][tx];
    out[at] = s;
}

// each warp sorts its 32 keys (ascending) by one bit at a time, lowest first: a ballot
// splits the zeros from the ones, stably, and the keys move through shared memory
__global__ void warp_radix_sort32(const unsigned *in, unsigned *out) {
    __shared__ unsigned buf[8][32];     // blockDim.x == 256
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    unsigned below = (1u << lane) - 1u;
    unsigned key = in[i];
    for (int bit = 0; bit < 32; ++bit) {
        unsigned one = (key >> bit) & 1u;
        unsigned ones = __ballot_sync(0xffffffffu, one);
        unsigned pos = one ? __popc(~ones) + __popc(ones & below) : __popc(~ones & below);
        buf[w][pos] = key;
        __syncwarp();
        key = buf[w][lane];
        __syncwarp();
    }
    out[i] = key;
}

// val[i] = the integer in record i: 16 ASCII bytes, right-aligned, spaces then an optional
// '-' then digits
__global__ void atoi_fixed16(const uint4 *rec, long long *val, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint4 r = rec[i];
    unsigned wd[4] = {r.x, r.y, r.z, r.w};
    long long v = 0;
    bool neg = false;
#pragma unroll
    for (int k = 0; k < 16; ++k) {
        unsigned c = (wd[k >> 2] >> ((k & 3) * 8)) & 0xffu;
        if (c == '-') neg = true;
        else if (c >= '0' && c <= '9') v = v * 10 + (c - '0');
    }
    val[i] = neg ? -v : v;
}

// dst = src rotated about its centre (cs = cos, sn = sin of the angle), nearest source
// pixel, 0 outside
__global__ void rotate_nearest(const unsigned char *src, unsigned char *dst, int w, int h, float cs,
                               float sn) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float cx = 0.5f * (w - 1), cy = 0.5f * (h - 1);
    float dx = x - cx, dy = y - cy;
    int sx = __float2int_rn(cs * dx + sn * dy + cx);
    int sy = __float2int_rn(cs * dy - sn * dx + cy);
    dst[(size_t)y * w + x] = (sx >= 0 && sx < w && sy >= 0 && sy < h) ? src[(size_t)sy * w + sx] : 0;
}

// a[i] = b[i] + s c[i] on double2 elements
__global__ void triad_double2(double2 *a, const double2 *b, const double2 *c, double s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double2 x = b[i], y = c[i];
    a[i] = make_double2(x.x + s * y.x, x.y + s * y.y);
}

}
