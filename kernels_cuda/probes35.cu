// probe-unseen33 (session 30): kinds no probe had tried: the Mandelbrot set in double
// precision (DFMA chains, lane-varying trips), unpacking RGB565 pixels (16-bit loads,
// three byte stores a thread), a 32x32 transpose inside each warp by rotating shuffles,
// rank queries on a bitmap (a popcount of a masked word plus a per-word prefix),
// k-means centroid sums by float atomics on 16 x 3 words, and an n-body step that tiles
// the bodies through shared memory as float4.
// Predicted before their first GPU run.

extern "C" {

// iters[p] = escape time (at most max_iter) of the point p of a w x h grid over
// [-2, 1] x [-1.5, 1.5], in double precision
__global__ void mandelbrot_double(int *iters, int w, int h, int max_iter) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    double cr = -2.0 + 3.0 * x / w, ci = -1.5 + 3.0 * y / h;
    double zr = 0.0, zi = 0.0;
    int k = 0;
    while (k < max_iter && zr * zr + zi * zi < 4.0) {
        double t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        ++k;
    }
    iters[(size_t)y * w + x] = k;
}

// rgb[3i..3i+2] = the 8-bit channels of the RGB565 pixel px[i] (bits replicated)
__global__ void rgb565_unpack(const unsigned short *px, unsigned char *rgb, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned p = px[i];
    unsigned r = (p >> 11) & 31u, g = (p >> 5) & 63u, b = p & 31u;
    rgb[3 * i] = (unsigned char)((r << 3) | (r >> 2));
    rgb[3 * i + 1] = (unsigned char)((g << 2) | (g >> 4));
    rgb[3 * i + 2] = (unsigned char)((b << 3) | (b >> 2));
}

// each warp transposes the 32 x 32 tile of its 1024 ints: 32 rotations by __shfl_sync of
// a value picked from v[] by a lane-dependent index (so v lives in local memory)
__global__ void warp_transpose32(const int *in, int *out) {
    int lane = threadIdx.x & 31;
    size_t base = (size_t)(blockIdx.x * blockDim.x + threadIdx.x - lane) * 32;
    int v[32];
#pragma unroll
    for (int j = 0; j < 32; ++j) v[j] = in[base + j * 32 + lane];     // v[j] = tile[j][lane]
    int t[32];
#pragma unroll
    for (int k = 0; k < 32; ++k) {
        // lane gets tile[lane][(lane + k) % 32] = v[lane] of lane (lane + k) % 32
        int src = (lane + k) & 31;
        t[k] = __shfl_sync(0xffffffffu, v[(lane - k) & 31], src);     // v indexed at run time: local memory
    }
#pragma unroll
    for (int k = 0; k < 32; ++k) out[base + (size_t)((lane + k) & 31) * 32 + lane] = t[k];
}

// rank[q] = how many set bits of the bitmap come before bit pos[q]
__global__ void bitmap_rank(const unsigned *bits, const unsigned *prefix, const unsigned *pos,
                            unsigned *rank, int nq) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    unsigned p = pos[q], w = p >> 5;
    rank[q] = prefix[w] + __popc(bits[w] & ((1u << (p & 31)) - 1u));
}

// sums[3c..3c+2] += (x, y, 1) of each point whose label is c (16 centroids)
__global__ void kmeans_update16(const float2 *pts, const int *label, float *sums, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 p = pts[i];
    int c = label[i];
    atomicAdd(&sums[3 * c], p.x);
    atomicAdd(&sums[3 * c + 1], p.y);
    atomicAdd(&sums[3 * c + 2], 1.0f);
}

#define NB_TILE 128

// acc[i] = sum over j of m_j (r_j - r_i) / (|r_j - r_i|^2 + eps)^(3/2), bodies as float4
// (x, y, z, m), tiles of 128 through shared memory
__global__ void nbody_tiled(const float4 *body, float4 *acc, int n, float eps) {
    __shared__ float4 tile[NB_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 bi = body[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int t0 = 0; t0 < n; t0 += NB_TILE) {
        tile[threadIdx.x] = body[t0 + threadIdx.x];
        __syncthreads();
#pragma unroll 8
        for (int j = 0; j < NB_TILE; ++j) {
            float4 bj = tile[j];
            float dx = bj.x - bi.x, dy = bj.y - bi.y, dz = bj.z - bi.z;
            float d2 = dx * dx + dy * dy + dz * dz + eps;
            float inv = rsqrtf(d2);
            float s = bj.w * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        __syncthreads();
    }
    acc[i] = make_float4(ax, ay, az, 0.0f);
}

}
