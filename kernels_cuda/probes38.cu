// probe-unseen36 (session 31): kinds no probe had tried: a warp scan of 64-bit integers
// by shuffles, inverse-CDF sampling by binary search in a shared table, a Kahan-summed
// dot product a thread, a hash table probed by whole warps (a ballot over 32 slots at a
// time), a 2x2 box downsample of uchar4 pixels, and an Estrin-scheme polynomial in
// double precision. Predicted before their first GPU run.

extern "C" {

// out[i] = the sum of in[] over lanes 0..lane of i's warp (64-bit)
__global__ void warp_scan_u64(const unsigned long long *in, unsigned long long *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    unsigned long long v = i < n ? in[i] : 0ull;
    for (int o = 1; o < 32; o <<= 1) {
        unsigned long long y = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += y;
    }
    if (i < n) out[i] = v;
}

// idx[i] = the first bin whose cumulative probability is not below u[i], by binary
// search in the 1024-entry table every block copies to shared memory
__global__ void cdf_sample(const float *cdf, const float *u, int *idx, int n) {
    __shared__ float c[1024];
    for (int k = threadIdx.x; k < 1024; k += blockDim.x) c[k] = cdf[k];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = u[i];
    int lo = 0, hi = 1023;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (c[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    idx[i] = lo;
}

// part[t] = the Kahan-compensated sum of a[i] * b[i] over i = t, t + stride, ...
__global__ void kahan_dot(const float *a, const float *b, float *part, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    float s = 0.0f, c = 0.0f;
    for (int i = t; i < n; i += stride) {
        float y = a[i] * b[i] - c;
        float u = s + y;
        c = (u - s) - y;
        s = u;
    }
    part[t] = s;
}

// res[k] = the slot of key q[k] in an open-addressing table (linear probing, 0 empty),
// or -1: each warp looks its 32 keys up one after another, its lanes reading 32
// consecutive slots at a time and voting with __ballot_sync
__global__ void warp_hash_probe(const unsigned *table, unsigned mask, const unsigned *q, int *res, int nq) {
    int lane = threadIdx.x & 31;
    int base = (blockIdx.x * blockDim.x + threadIdx.x - lane);
    unsigned mine = base + lane < nq ? q[base + lane] : 0u;
    int myres = -1;
    for (int j = 0; j < 32 && base + j < nq; ++j) {
        unsigned key = __shfl_sync(0xffffffffu, mine, j);
        unsigned h = (key * 2654435761u) & mask;
        unsigned g = h & ~31u;
        int found = -1;
        for (int probe = 0; probe < 64; ++probe) {
            unsigned slot = table[(g + lane) & mask];
            unsigned hit = __ballot_sync(0xffffffffu, slot == key);
            if (hit) {
                found = (int)((g + __ffs(hit) - 1) & mask);
                break;
            }
            unsigned empty = __ballot_sync(0xffffffffu, slot == 0u);
            if (probe == 0) empty &= 0xffffffffu << (h & 31u);     // the slots before h do not end it
            if (empty) break;
            g += 32;
        }
        if (lane == j) myres = found;
    }
    if (base + lane < nq) res[base + lane] = myres;
}

// out (w/2 x h/2) = the rounded mean of each 2x2 block of in (w x h uchar4 pixels)
__global__ void downsample2x(const uchar4 *in, uchar4 *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w / 2 || y >= h / 2) return;
    uchar4 a = in[(2 * y) * w + 2 * x], b = in[(2 * y) * w + 2 * x + 1];
    uchar4 c = in[(2 * y + 1) * w + 2 * x], d = in[(2 * y + 1) * w + 2 * x + 1];
    out[y * (w / 2) + x] = make_uchar4((a.x + b.x + c.x + d.x + 2) / 4, (a.y + b.y + c.y + d.y + 2) / 4,
                                       (a.z + b.z + c.z + d.z + 2) / 4, (a.w + b.w + c.w + d.w + 2) / 4);
}

// y[i] = p(x[i]) for the degree-15 polynomial with coefficients c[0..15], by Estrin's
// scheme (pairs, then powers x^2, x^4, x^8), in double precision
__global__ void estrin_double(const double *x, const double *c, double *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = x[i], v2 = v * v, v4 = v2 * v2, v8 = v4 * v4;
    double p[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) p[k] = c[2 * k] + c[2 * k + 1] * v;
    double q0 = p[0] + p[1] * v2, q1 = p[2] + p[3] * v2, q2 = p[4] + p[5] * v2, q3 = p[6] + p[7] * v2;
    double r0 = q0 + q1 * v4, r1 = q2 + q3 * v4;
    y[i] = r0 + r1 * v8;
}

}
