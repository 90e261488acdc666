// Kernels written in session 7 to test the timing model on more course-typical code it
// was not built against (family probe-unseen5): a Mandelbrot set (a data-dependent loop
// per pixel), an all-pairs n-body step through shared tiles, Conway's game of life, the
// "CUDA by Example" dot product (a fixed grid of 32 blocks, a shared tree and one float
// atomic a block), a Hillis-Steele block scan with double buffering, and stream
// compaction with __ballot_sync and one atomic a warp.
extern "C" {

// escape count of each pixel of a w x h view of [-2, 1] x [-1.5, 1.5], at most max_iter
__global__ void mandelbrot(int *out, int w, int h, int max_iter) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float cr = -2.0f + 3.0f * x / w, ci = -1.5f + 3.0f * y / h;
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (it < max_iter && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        it++;
    }
    out[y * w + x] = it;
}

#define NB_TILE 128
// acceleration of each of n bodies (x, y, z, mass in a float4) from all n, tiles of
// NB_TILE bodies staged in shared memory; softening keeps the self-term finite
__global__ void nbody_accel(const float4 *pos, float4 *acc, int n) {
    __shared__ float4 tile[NB_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 p = pos[i < n ? i : 0];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int t = 0; t < n; t += NB_TILE) {
        tile[threadIdx.x] = pos[t + threadIdx.x];
        __syncthreads();
        for (int j = 0; j < NB_TILE; j++) {
            float4 q = tile[j];
            float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
            float r2 = dx * dx + dy * dy + dz * dz + 0.01f;
            float inv = rsqrtf(r2);
            float s = q.w * inv * inv * inv;
            ax += dx * s; ay += dy * s; az += dz * s;
        }
        __syncthreads();
    }
    if (i < n) acc[i] = make_float4(ax, ay, az, 0.0f);
}

// one generation of Conway's game of life on a w x h torus of 0/1 ints
__global__ void life_step(const int *in, int *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int xl = (x + w - 1) % w, xr = (x + 1) % w;
    int yu = (y + h - 1) % h, yd = (y + 1) % h;
    int n = in[yu * w + xl] + in[yu * w + x] + in[yu * w + xr]
          + in[y * w + xl] + in[y * w + xr]
          + in[yd * w + xl] + in[yd * w + x] + in[yd * w + xr];
    int c = in[y * w + x];
    out[y * w + x] = (n == 3 || (c && n == 2)) ? 1 : 0;
}

#define DOT_T 256
// "CUDA by Example" dot product: a grid-stride loop over a fixed, small grid, a shared
// tree per block, then one atomicAdd a block
__global__ void dot_cbe(const float *a, const float *b, float *c, int n) {
    __shared__ float cache[DOT_T];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    float temp = 0.0f;
    while (tid < n) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[threadIdx.x] = temp;
    __syncthreads();
    for (int i = blockDim.x / 2; i != 0; i /= 2) {
        if (threadIdx.x < i) cache[threadIdx.x] += cache[threadIdx.x + i];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(c, cache[0]);
}

#define HS_T 512
// inclusive scan of each block's 512 ints (Hillis-Steele, two buffers in shared memory)
__global__ void hillis_steele_scan(const int *in, int *out, int n) {
    __shared__ int buf[2][HS_T];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x, src = 0;
    buf[0][t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int off = 1; off < HS_T; off <<= 1) {
        int v = buf[src][t];
        if (t >= off) v += buf[src][t - off];
        buf[1 - src][t] = v;
        src = 1 - src;
        __syncthreads();
    }
    if (i < n) out[i] = buf[src][t];
}

// keep the positive values: each warp counts its survivors with a ballot, reserves room
// with one atomicAdd and writes them packed (the output's order between warps is free)
__global__ void compact_ballot(const int *in, int *out, int *count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = i < n ? in[i] : 0;
    unsigned keep = __ballot_sync(0xffffffffu, v > 0);
    int base = 0;
    if (lane == 0 && keep) base = atomicAdd(count, __popc(keep));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (v > 0) out[base + __popc(keep & ((1u << lane) - 1u))] = v;
}

}
