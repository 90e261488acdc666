// probe-unseen37 (session 31): kinds no probe had tried: Hough-transform voting (each edge
// pixel adds to 180 accumulator cells with atomicAdd, sines and cosines from a
// __constant__ table), a bicubic (Catmull-Rom) resize with 16 taps a pixel, one level of a
// 2-D Haar transform into four quadrants, a 5-point stencil computing four rows a thread
// from registers, upper-casing text read and written as char4, and a distance matrix of
// 3-D points tiled through shared memory with sqrtf. Predicted before their first GPU run.

extern "C" {

__constant__ float c_cos[180], c_sin[180];

// acc[t * nrho + r] += 1 for every edge pixel (img != 0) and angle t, r its rounded
// distance rho = x cos t + y sin t shifted by nrho / 2
__global__ void hough_vote(const unsigned char *img, int w, int h, int *acc, int nrho) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h || !img[y * w + x]) return;
    for (int t = 0; t < 180; ++t) {
        int r = __float2int_rn(x * c_cos[t] + y * c_sin[t]) + nrho / 2;
        atomicAdd(&acc[t * nrho + r], 1);
    }
}

__device__ float cubic_w(float d) {            // Catmull-Rom weight at distance |d| < 2
    d = fabsf(d);
    return d < 1.0f ? (1.5f * d - 2.5f) * d * d + 1.0f : ((-0.5f * d + 2.5f) * d - 4.0f) * d + 2.0f;
}

// out (ow x oh) = the w x h float image resized by Catmull-Rom interpolation, edges clamped
__global__ void bicubic_resize(const float *in, int w, int h, float *out, int ow, int oh) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= ow || y >= oh) return;
    float sx = (x + 0.5f) * w / ow - 0.5f, sy = (y + 0.5f) * h / oh - 0.5f;
    int ix = (int)floorf(sx), iy = (int)floorf(sy);
    float s = 0.0f;
    for (int j = -1; j <= 2; ++j) {
        int yy = min(max(iy + j, 0), h - 1);
        float wy = cubic_w(sy - (iy + j));
        for (int i = -1; i <= 2; ++i) {
            int xx = min(max(ix + i, 0), w - 1);
            s += wy * cubic_w(sx - (ix + i)) * in[yy * w + xx];
        }
    }
    out[y * ow + x] = s;
}

// one level of the 2-D Haar transform of an n x n image: the averages in the top-left
// quadrant, the horizontal, vertical and diagonal details in the other three
__global__ void haar2d(const float *in, float *out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    int m = n / 2;
    if (x >= m || y >= m) return;
    float a = in[(2 * y) * n + 2 * x], b = in[(2 * y) * n + 2 * x + 1];
    float c = in[(2 * y + 1) * n + 2 * x], d = in[(2 * y + 1) * n + 2 * x + 1];
    out[y * n + x] = 0.25f * (a + b + c + d);
    out[y * n + x + m] = 0.25f * (a - b + c - d);
    out[(y + m) * n + x] = 0.25f * (a + b - c - d);
    out[(y + m) * n + x + m] = 0.25f * (a - b - c + d);
}

// out = the 5-point Laplacian stencil of the n x n grid (zero outside the interior's
// edge), each thread four consecutive rows, its column's values kept in registers
__global__ void stencil_rows4(const float *in, float *out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y0 = (blockIdx.y * blockDim.y + threadIdx.y) * 4;
    if (x < 1 || x >= n - 1) return;
    float up = y0 > 0 ? in[(y0 - 1) * n + x] : 0.0f, mid = in[y0 * n + x];
    for (int k = 0; k < 4; ++k) {
        int y = y0 + k;
        if (y >= n) break;
        float down = y + 1 < n ? in[(y + 1) * n + x] : 0.0f;
        if (y > 0 && y < n - 1)
            out[y * n + x] = up + down + in[y * n + x - 1] + in[y * n + x + 1] - 4.0f * mid;
        up = mid;
        mid = down;
    }
}

// text upper-cased (ASCII letters only), four bytes a thread through char4
__global__ void upper_char4(const char4 *in, char4 *out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    char4 c = in[i];
    c.x -= (c.x >= 'a' && c.x <= 'z') ? 32 : 0;
    c.y -= (c.y >= 'a' && c.y <= 'z') ? 32 : 0;
    c.z -= (c.z >= 'a' && c.z <= 'z') ? 32 : 0;
    c.w -= (c.w >= 'a' && c.w <= 'z') ? 32 : 0;
    out[i] = c;
}

// d[i * n + j] = |p_i - p_j| for n 3-D points (x, y, z, pad), 16 x 16 tiles of each side
// through shared memory
__global__ void dist_matrix(const float4 *p, float *d, int n) {
    __shared__ float4 a[16], b[16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * 16 + ty, j = blockIdx.x * 16 + tx;
    if (ty == 0) b[tx] = p[blockIdx.x * 16 + tx];
    if (ty == 1) a[tx] = p[blockIdx.y * 16 + tx];
    __syncthreads();
    float4 u = a[ty], v = b[tx];
    float dx = u.x - v.x, dy = u.y - v.y, dz = u.z - v.z;
    if (i < n && j < n) d[(size_t)i * n + j] = sqrtf(dx * dx + dy * dy + dz * dz);
}

}
