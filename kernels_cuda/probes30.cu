// probe-unseen29 (session 28): kinds no probe had tried: 30-bit Morton codes of 3-D points
// (bits spread by shifts and masks), persistent blocks that take 4096-element chunks from
// an atomic counter until none are left, a cloud-in-cell deposit (four float atomics a
// particle), parallel cyclic reduction of tridiagonal systems in shared memory, trilinear
// sampling of a 3-D volume (eight gathers a sample), and float to bfloat16 rounded to
// nearest even in integer operations.  Predicted before their first GPU run.

extern "C" {

// v's low 10 bits moved to bits 0, 3, 6, ..., 27
__device__ unsigned spread3(unsigned v) {
    v = (v | (v << 16)) & 0x030000FFu;
    v = (v | (v << 8)) & 0x0300F00Fu;
    v = (v | (v << 4)) & 0x030C30C3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

// code[i] = the 30-bit Morton code of p[i] in [0,1)^3: each coordinate quantized to 10
// bits (clamped), x's bits highest of each triple
__global__ void morton3d(const float3 *p, unsigned *code, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 q = p[i];
    unsigned x = (unsigned)fminf(fmaxf(q.x * 1024.f, 0.f), 1023.f);
    unsigned y = (unsigned)fminf(fmaxf(q.y * 1024.f, 0.f), 1023.f);
    unsigned z = (unsigned)fminf(fmaxf(q.z * 1024.f, 0.f), 1023.f);
    code[i] = (spread3(x) << 2) | (spread3(y) << 1) | spread3(z);
}

#define CHUNK 4096
// part[blockIdx.x] = the sum of x[j]^2 over the 4096-element chunks this block took: each
// block takes the next chunk from *next (atomicAdd, starting at 0) until all nchunks are
// taken, then reduces its threads' sums (shuffles, then shared memory)
__global__ void persistent_chunks(const float *x, unsigned *next, float *part, unsigned nchunks) {
    __shared__ unsigned s_chunk;
    __shared__ float s_warp[32];
    float acc = 0.f;
    for (;;) {
        if (threadIdx.x == 0) s_chunk = atomicAdd(next, 1u);
        __syncthreads();
        unsigned c = s_chunk;
        __syncthreads();                 // all have read it before thread 0 takes the next
        if (c >= nchunks) break;
        const float *p = x + (size_t)c * CHUNK;
        for (int j = threadIdx.x; j < CHUNK; j += blockDim.x) {
            float v = p[j];
            acc += v * v;
        }
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) s_warp[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < (blockDim.x >> 5) ? s_warp[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
        if (threadIdx.x == 0) part[blockIdx.x] = acc;
    }
}

// cloud-in-cell: each particle at pos[i] in [0,g)^2 adds its mass to the four grid points
// around it (g x g, row-major, periodic), with bilinear weights
__global__ void cic_deposit(const float2 *pos, const float *mass, float *grid, int n, int g) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 p = pos[i];
    float m = mass[i];
    int x0 = (int)p.x, y0 = (int)p.y;
    float fx = p.x - x0, fy = p.y - y0;
    int x1 = x0 + 1 == g ? 0 : x0 + 1, y1 = y0 + 1 == g ? 0 : y0 + 1;
    atomicAdd(&grid[y0 * g + x0], m * (1.f - fx) * (1.f - fy));
    atomicAdd(&grid[y0 * g + x1], m * fx * (1.f - fy));
    atomicAdd(&grid[y1 * g + x0], m * (1.f - fx) * fy);
    atomicAdd(&grid[y1 * g + x1], m * fx * fy);
}

#define PCR_N 256
// x = the solution of tridiagonal system blockIdx.x (a[k] x[k-1] + b[k] x[k] + c[k] x[k+1]
// = d[k], 256 unknowns, a block of 256 threads a system) by parallel cyclic reduction in
// shared memory: 8 steps, each eliminating the neighbours at distance 1, 2, 4, ..., 128
__global__ void pcr_tridiag(const float *a, const float *b, const float *c, const float *d, float *x) {
    __shared__ float sa[PCR_N], sb[PCR_N], sc[PCR_N], sd[PCR_N];
    int i = threadIdx.x;
    size_t base = (size_t)blockIdx.x * PCR_N;
    sa[i] = a[base + i];
    sb[i] = b[base + i];
    sc[i] = c[base + i];
    sd[i] = d[base + i];
    __syncthreads();
    for (int s = 1; s < PCR_N; s <<= 1) {
        float na = 0.f, nc = 0.f, nb = sb[i], nd = sd[i];
        if (i - s >= 0) {
            float al = -sa[i] / sb[i - s];
            na = al * sa[i - s];
            nb += al * sc[i - s];
            nd += al * sd[i - s];
        }
        if (i + s < PCR_N) {
            float ga = -sc[i] / sb[i + s];
            nc = ga * sc[i + s];
            nb += ga * sa[i + s];
            nd += ga * sd[i + s];
        }
        __syncthreads();
        sa[i] = na;
        sb[i] = nb;
        sc[i] = nc;
        sd[i] = nd;
        __syncthreads();
    }
    x[base + i] = sd[i] / sb[i];
}

// out[i] = the d^3 volume vol (x fastest) sampled at pos[i] (voxel coordinates in
// [0, d-1)) by trilinear interpolation: eight gathers, seven lerps
__global__ void trilinear3d(const float *vol, const float3 *pos, float *out, int n, int d) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 p = pos[i];
    int x0 = min(max((int)p.x, 0), d - 2);
    int y0 = min(max((int)p.y, 0), d - 2);
    int z0 = min(max((int)p.z, 0), d - 2);
    float fx = p.x - x0, fy = p.y - y0, fz = p.z - z0;
    const float *v = vol + ((size_t)z0 * d + y0) * d + x0;
    size_t sy = d, sz = (size_t)d * d;
    float c00 = v[0] + fx * (v[1] - v[0]);
    float c10 = v[sy] + fx * (v[sy + 1] - v[sy]);
    float c01 = v[sz] + fx * (v[sz + 1] - v[sz]);
    float c11 = v[sz + sy] + fx * (v[sz + sy + 1] - v[sz + sy]);
    float c0 = c00 + fy * (c10 - c00);
    float c1 = c01 + fy * (c11 - c01);
    out[i] = c0 + fz * (c1 - c0);
}

// out[i] = in[i] as bfloat16 (its bits), rounded to nearest, ties to even, in integer
// operations; a NaN stays a NaN, made quiet
__global__ void to_bf16_rne(const float *in, unsigned short *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned u = __float_as_uint(in[i]);
    unsigned short h;
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) h = (unsigned short)((u >> 16) | 0x0040u);
    else h = (unsigned short)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
    out[i] = h;
}

}
