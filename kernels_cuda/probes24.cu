// probe-unseen23 (session 22): kinds no probe had tried, written after L1 residency went
// into the model (a block's loaded lines stay for its later loads): a 16 KiB lookup table
// in global memory gathered at random, a column-major matrix-vector product with a
// thread per row, a maximum-intensity projection along z, a vertical 9-tap blur that
// re-reads its rows, a 32-key sort inside each warp by __shfl_xor_sync, a float2 axpy,
// and a per-segment atomicMax over sorted segments.
// Predicted before their first GPU run.

extern "C" {

// y[i] = lut[hash(x[i]) >> 20]: 4096 floats (16 KiB, 128 lines) looked up at random
__global__ void lut_gather(const unsigned *x, const float *lut, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = lut[(x[i] * 2654435761u) >> 20];
}

// y = A x with A column-major (A[j * n + i]): a thread a row, neighbouring threads read
// neighbouring words of each column
__global__ void gemv_colmajor(const float *A, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = 0.0f;
    for (int j = 0; j < n; j++)
        s += A[(size_t)j * n + i] * x[j];
    y[i] = s;
}

// out[y][x] = max over z of vol[z][y][x]: a thread a pixel, the slices nx * ny apart
__global__ void mip_z(const float *vol, float *out, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    size_t plane = (size_t)nx * ny;
    const float *p = vol + (size_t)y * nx + x;
    float m = p[0];
    for (int z = 1; z < nz; z++)
        m = fmaxf(m, p[z * plane]);
    out[(size_t)y * nx + x] = m;
}

// out[y][x] = sum_k w_k in[y + k][x], k = -4..4, rows clamped: each row is read by the
// nine outputs around it, most of them in the same block
__global__ void blur_cols(const float *in, float *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    const float wt[9] = {0.05f, 0.09f, 0.12f, 0.15f, 0.18f, 0.15f, 0.12f, 0.09f, 0.05f};
    float s = 0.0f;
#pragma unroll
    for (int k = -4; k <= 4; k++) {
        int r = min(max(y + k, 0), h - 1);
        s += wt[k + 4] * in[(size_t)r * w + x];
    }
    out[(size_t)y * w + x] = s;
}

// each warp sorts its 32 keys ascending: bitonic compare-exchange with __shfl_xor_sync
__global__ void warp_bitonic32(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = i < n ? in[i] : 0x7fffffff;
    for (int size = 2; size <= 32; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            int other = __shfl_xor_sync(0xffffffffu, v, stride);
            bool up = (lane & size) == 0;          // this pair sorts ascending
            bool low = (lane & stride) == 0;       // this lane holds the pair's first
            int keep_min = (up == low);
            v = keep_min ? min(v, other) : max(v, other);
        }
    }
    if (i < n)
        out[i] = v;
}

// y = a x + y on float2 pairs (8-byte loads and stores)
__global__ void axpy_float2(float a, const float2 *x, float2 *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float2 u = x[i], v = y[i];
        v.x = a * u.x + v.x;
        v.y = a * u.y + v.y;
        y[i] = v;
    }
}

// m[seg[i]] = max over i of v[i], seg sorted (runs of about n / 1024 equal segments)
__global__ void seg_max(const int *seg, const int *v, int *m, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicMax(&m[seg[i]], v[i]);
}

}
