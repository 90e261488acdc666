// probe-unseen43 (session 33): kinds no probe had tried: batched Cholesky factorizations
// of 4x4 SPD matrices a thread each (rsqrtf), a box filter of an image by four lookups in
// its summed-area table (unsigned wrap-around sums, an integer division a pixel), one
// level of the Daubechies-4 wavelet transform with the neighbour's pair by shuffles,
// Boyer-Moore-Horspool substring counts a thread a chunk (a shared skip table, data-
// dependent strides), Poisson samples by Knuth's method (expf, a loop as long as the
// draw), and the max-pooling of point features into voxels by atomicMax / atomicMin on
// the floats' bits. Predicted before their first GPU run.

extern "C" {

// L = the Cholesky factor (lower triangular, row-major, zeros above) of each SPD 4x4
// matrix A (four float4 rows a matrix), a thread a matrix
__global__ void cholesky4_batch(const float4 *A, float4 *L, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 a0 = A[4 * i], a1 = A[4 * i + 1], a2 = A[4 * i + 2], a3 = A[4 * i + 3];
    float r0 = rsqrtf(a0.x), l00 = a0.x * r0;
    float l10 = a1.x * r0, l20 = a2.x * r0, l30 = a3.x * r0;
    float d1 = a1.y - l10 * l10, r1 = rsqrtf(d1), l11 = d1 * r1;
    float l21 = (a2.y - l20 * l10) * r1, l31 = (a3.y - l30 * l10) * r1;
    float d2 = a2.z - l20 * l20 - l21 * l21, r2 = rsqrtf(d2), l22 = d2 * r2;
    float l32 = (a3.z - l30 * l20 - l31 * l21) * r2;
    float d3 = a3.w - l30 * l30 - l31 * l31 - l32 * l32, l33 = sqrtf(d3);
    L[4 * i] = make_float4(l00, 0.0f, 0.0f, 0.0f);
    L[4 * i + 1] = make_float4(l10, l11, 0.0f, 0.0f);
    L[4 * i + 2] = make_float4(l20, l21, l22, 0.0f);
    L[4 * i + 3] = make_float4(l30, l31, l32, l33);
}

// out(x, y) = the rounded mean of the w x h u8 image over the (2r+1)^2 box around (x, y)
// clipped to the image, from S, the image's (h+1) x (w+1) summed-area table mod 2^32
__global__ void sat_box_filter(const unsigned *S, unsigned char *out, int w, int h, int r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int x0 = max(x - r, 0), x1 = min(x + r + 1, w), y0 = max(y - r, 0), y1 = min(y + r + 1, h);
    size_t W = (size_t)w + 1;
    unsigned s = S[y1 * W + x1] - S[y0 * W + x1] - S[y1 * W + x0] + S[y0 * W + x0];
    unsigned area = (unsigned)((x1 - x0) * (y1 - y0));
    out[(size_t)y * w + x] = (unsigned char)((s + (area >> 1)) / area);
}

// one level of the periodic Daubechies-4 transform of x (2 * half floats, read as pairs):
// a[k] and d[k] from x[2k .. 2k + 3], the next pair by a shuffle from the next lane
// (lane 31 and the last pair load it, wrapping to the start)
__global__ void daub4_step(const float2 *x, float *a, float *d, int half) {
    int k = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    float2 p = k < half ? x[k] : make_float2(0.0f, 0.0f);
    float nx = __shfl_down_sync(0xffffffffu, p.x, 1), ny = __shfl_down_sync(0xffffffffu, p.y, 1);
    if (k >= half) return;
    if (lane == 31 || k + 1 == half) {
        float2 q = x[k + 1 < half ? k + 1 : 0];
        nx = q.x; ny = q.y;
    }
    const float h0 = 0.48296291314453414f, h1 = 0.83651630373780794f,
                h2 = 0.22414386804201339f, h3 = -0.12940952255126037f;
    a[k] = h0 * p.x + h1 * p.y + h2 * nx + h3 * ny;
    d[k] = h3 * p.x - h2 * p.y + h1 * nx - h0 * ny;
}

#define BMH_CHUNK 256

// count[t] = how many times pat (m <= 32 bytes) occurs in text starting at a position in
// [t * 256, t * 256 + 256), by Boyer-Moore-Horspool a thread a chunk; the block builds
// the bad-character skip table in shared memory first
__global__ void bmh_count(const unsigned char *text, int n, const unsigned char *pat, int m, int *count) {
    __shared__ int skip[256];
    __shared__ unsigned char sp[32];
    for (int c = threadIdx.x; c < 256; c += blockDim.x) {
        int s = m;
        for (int j = 0; j < m - 1; ++j)
            if (pat[j] == c) s = m - 1 - j;
        skip[c] = s;
    }
    if (threadIdx.x < m) sp[threadIdx.x] = pat[threadIdx.x];
    __syncthreads();
    int t = blockIdx.x * blockDim.x + threadIdx.x, last = n - m;      // last start position
    if (t * BMH_CHUNK > last) return;
    int pos = t * BMH_CHUNK, end = min(pos + BMH_CHUNK - 1, last), cnt = 0;
    while (pos <= end) {
        unsigned char tail = text[pos + m - 1];
        int j = m - 1;
        while (j >= 0 && text[pos + j] == sp[j]) --j;
        if (j < 0) ++cnt;
        pos += skip[tail];
    }
    count[t] = cnt;
}

// out[i] = a Poisson(lam[i]) sample by Knuth's method: the number of uniforms whose
// running product stays above exp(-lam); the uniforms from an LCG seeded by a hash of i
__global__ void poisson_knuth(const float *lam, unsigned *out, int n, unsigned seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned s = (unsigned)i * 0x9E3779B9u ^ seed;
    s ^= s >> 16; s *= 0x85EBCA6Bu; s ^= s >> 13; s *= 0xC2B2AE35u; s ^= s >> 16;
    float limit = expf(-lam[i]), p = 1.0f;
    unsigned k = 0u;
    for (;;) {
        s = s * 1664525u + 1013904223u;
        p *= (float)(s >> 8) * (1.0f / 16777216.0f);
        if (p <= limit) break;
        ++k;
    }
    out[i] = k;
}

// vmax[4 * cell[i] + c] = max(vmax[...], feat[i].c) for each point i and channel c: a
// float max by integer atomics on its bits (atomicMax as int for a clear sign bit,
// atomicMin as unsigned for a set one)
__global__ void voxel_max(const int *cell, const float4 *feat, float *vmax, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 f = feat[i];
    float v[4] = {f.x, f.y, f.z, f.w};
    float *dst = vmax + 4 * (size_t)cell[i];
    for (int c = 0; c < 4; ++c) {
        int b = __float_as_int(v[c]);
        if (b >= 0) atomicMax((int *)(dst + c), b);
        else atomicMin((unsigned *)(dst + c), (unsigned)b);
    }
}

}
