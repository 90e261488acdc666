// Probe kernels: NOT part of the catalog.  Small kernels written to test the emulator's
// hardware counters (Nsight Compute metric names) and its sanitizer against ncu and
// compute-sanitizer on a real GPU: transposes, strided/wide/broadcast shared and global
// accesses, a stencil with a halo, a warp-shuffle reduction, scattered and misaligned
// loads, atomics, a divergent branch; and a few deliberately broken kernels (races, an
// out-of-bounds write, a misaligned load, a divergent barrier) for the sanitizer.
// Launch configurations and inputs: kernels_cuda/probes.py.  Kept inside simt's C subset.

#define TILE 32
#define ROWS 8
#define RADIUS 3
#define STENCIL_BLOCK 128
#define SMEM_WORDS 2048

extern "C" {

// ------------------------------------------------------------------ transposes
// n x n floats, n a multiple of TILE; block (TILE, ROWS), grid (n/TILE, n/TILE).

// Reads coalesced, writes strided by n: every lane of a warp stores to its own sector.
__global__ void transpose_naive(const float *in, float *out, int n) {
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[x * n + (y + j)] = in[(y + j) * n + x];
}

// Through a 32x32 tile: the column read tile[threadIdx.x][...] hits one bank 32 times.
__global__ void transpose_tiled(const float *in, float *out, int n) {
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// The same with one column of padding: consecutive rows start in consecutive banks.
__global__ void transpose_padded(const float *in, float *out, int n) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// ------------------------------------------------------------------ strided shared memory
// One block of 64 threads.  The array is filled (coalesced), then every thread reads
// element threadIdx.x * stride (distinct for every stride >= 1).  Expected wavefronts
// per warp for 4-byte words: gcd(stride, 32).

__global__ void shared_ld_f32(float *out, int stride) {
    __shared__ float s[SMEM_WORDS];
    for (int i = threadIdx.x; i < SMEM_WORDS; i += blockDim.x)
        s[i] = (float)i;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x * stride];
}

__global__ void shared_ld_f64(double *out, int stride) {
    __shared__ double s[SMEM_WORDS];
    for (int i = threadIdx.x; i < SMEM_WORDS; i += blockDim.x)
        s[i] = (double)i;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x * stride];
}

__global__ void shared_ld_f128(float4 *out, int stride) {
    __shared__ float4 s[SMEM_WORDS];
    for (int i = threadIdx.x; i < SMEM_WORDS; i += blockDim.x)
        s[i] = make_float4((float)i, 1.0f, 2.0f, 3.0f);
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x * stride];
}

// Strided shared stores (the other direction): each thread writes its word at
// threadIdx.x * stride, then reads its own word back.
__global__ void shared_st_f32(float *out, int stride) {
    __shared__ float s[SMEM_WORDS];
    s[threadIdx.x * stride] = (float)threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x * stride];
}

__global__ void shared_st_f64(double *out, int stride) {
    __shared__ double s[SMEM_WORDS];
    s[threadIdx.x * stride] = (double)threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x * stride];
}

// Broadcasts: every lane reads word 0; every 4 lanes share a word (8 words, 8 banks);
// every lane reads word (lane / 4) * 32, so 8 distinct words all in bank 0.
__global__ void shared_broadcast(float *out, int mode) {
    __shared__ float s[SMEM_WORDS];
    for (int i = threadIdx.x; i < SMEM_WORDS; i += blockDim.x)
        s[i] = (float)i;
    __syncthreads();
    int lane = threadIdx.x & 31;
    int idx = 0;
    if (mode == 1) idx = lane / 4;
    if (mode == 2) idx = (lane / 4) * 32;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[idx];
}

// ------------------------------------------------------------------ strided global memory
// Element (blockIdx.x * blockDim.x + threadIdx.x) * stride.  Sectors per warp request:
// min(32, 32 * 4 * stride / 32) for 4-byte elements.

__global__ void global_ld_f32(const float *in, float *out, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i * stride];
}

__global__ void global_ld_f64(const double *in, double *out, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i * stride];
}

__global__ void global_ld_f128(const float4 *in, float4 *out, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i * stride];
}

__global__ void global_st_f32(const float *in, float *out, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i * stride] = in[i];
}

// Every lane loads the same element: one sector per request.
__global__ void global_broadcast(const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[blockIdx.x];
}

// Scattered: a random index per lane.
__global__ void global_gather(const float *in, const int *idx, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[idx[i]];
}

// Byte loads at an offset: legal (1-byte aligned) but the warp's 32 bytes straddle two
// sectors when off is not a multiple of 32.
__global__ void char_copy(const char *in, char *out, int off, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i + off];
}

// ------------------------------------------------------------------ stencil with halo

__global__ void stencil1d(const float *in, float *out, int n) {
    __shared__ float s[STENCIL_BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    s[l] = in[g];
    if (threadIdx.x < RADIUS) {
        s[l - RADIUS] = (g >= RADIUS) ? in[g - RADIUS] : 0.0f;
        s[l + STENCIL_BLOCK] = (g + STENCIL_BLOCK < n) ? in[g + STENCIL_BLOCK] : 0.0f;
    }
    __syncthreads();
    float r = 0.0f;
    for (int o = -RADIUS; o <= RADIUS; o++)
        r += s[l + o];
    out[g] = r;
}

// ------------------------------------------------------------------ warp shuffles

__global__ void warp_shuffle_reduce(const float *in, float *out, int n) {
    __shared__ float partial[32];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int w = threadIdx.x >> 5;
    float v = (g < n) ? in[g] : 0.0f;
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffff, v, o);
    if (lane == 0)
        partial[w] = v;
    __syncthreads();
    if (w == 0) {
        v = (lane < (int)(blockDim.x >> 5)) ? partial[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffff, v, o);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}

// ------------------------------------------------------------------ atomics

// Result unused (RED) on 4 addresses; result used (ATOM); one address for the whole grid
// (which the compiler may aggregate per warp); shared-memory atomics.
__global__ void atomic_red4(int *counts) {
    atomicAdd(&counts[threadIdx.x & 3], 1);
}

__global__ void atomic_ret4(int *counts, int *old) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    old[i] = atomicAdd(&counts[threadIdx.x & 3], 1);
}

__global__ void atomic_uniform(int *counter) {
    atomicAdd(counter, 1);
}

__global__ void atomic_shared(const int *in, int *counts, int n) {
    __shared__ int h[32];
    if (threadIdx.x < 32)
        h[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&h[in[i] & 31], 1);
    __syncthreads();
    if (threadIdx.x < 32)
        atomicAdd(&counts[threadIdx.x], h[threadIdx.x]);
}

// ------------------------------------------------------------------ divergence

// Odd and even lanes take different sides; both load and store (the compiler may merge
// the two loads/stores into one predicated instruction).
__global__ void divergent_branch(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (threadIdx.x & 1)
            out[i] = in[i] * 2;
        else
            out[i] = in[i] + 3;
    }
}

// A loop whose trip count depends on the lane: lanes drop out one by one.
__global__ void divergent_loop(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int acc = 0;
    for (int k = 0; k <= lane; k++)
        acc += in[(i + k) % n];
    if (i < n)
        out[i] = acc;
}

// ------------------------------------------------------------------ broken kernels (sanitizer)

// RAW between warps: thread t reads the word thread 63 - t wrote, no barrier.
__global__ void race_raw(int *out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    out[t] = s[63 - t];
}

// WAW between warps: both warps write s[lane], no barrier before the re-read.
__global__ void race_waw(int *out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t & 31] = t;
    __syncthreads();
    out[t] = s[t & 31];
}

// WAR: thread t reads its right neighbour's word, then (no barrier) overwrites its own.
__global__ void race_war(int *out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    int v = s[(t + 1) & 63];
    s[t] = v + 1;
    __syncthreads();
    out[t] = s[t];
}

// Reads shared memory no thread wrote (initcheck in simt; not a compute-sanitizer tool
// for shared memory).
__global__ void uninit_shared(int *out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t < 32)
        s[t] = t;
    __syncthreads();
    out[t] = s[t];
}

// Out of bounds: one thread too many writes out[n].
__global__ void oob_global_write(int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n)
        out[i] = i;
}

// Out of bounds in shared memory: s has 32 words, 64 threads write.
__global__ void oob_shared_write(int *out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    out[t] = s[t & 31];
}

// Misaligned: a 4-byte load from a char pointer plus 1.
__global__ void misaligned_load(const char *in, int *out) {
    int t = threadIdx.x;
    out[t] = *(const int *)(in + 1 + 4 * t);
}

// A barrier only half of each warp reaches.
__global__ void divergent_barrier(int *out) {
    int t = threadIdx.x;
    if ((t & 31) < 16)
        __syncthreads();
    out[t] = t;
}

// ------------------------------------------------------------------ atomic patterns
// (last in the file so the lines of the kernels above stay where recorded reports put them)

// One warp, lane t updates counts[idx[t]]: the index patterns in probes.py isolate how
// a warp's atomic becomes sectors (same address, same sector, several sectors).
__global__ void atomic_idx_red(int *counts, const int *idx) {
    atomicAdd(&counts[idx[threadIdx.x]], 1);
}

__global__ void atomic_idx_ret(int *counts, const int *idx, int *old) {
    old[threadIdx.x] = atomicAdd(&counts[idx[threadIdx.x]], 1);
}

__global__ void atomic_idx_cas(int *counts, const int *idx, int *old) {
    old[threadIdx.x] = atomicCAS(&counts[idx[threadIdx.x]], 0, (int)threadIdx.x + 1);
}

// A CAS-add loop per thread on slots[slot]: slot = i % nslots (packed: 8 lanes a sector)
// or a hash of i (scattered).  val 0 writes back what it read, so no CAS ever fails;
// val 1 changes the word, and lanes on the same slot retry.
__global__ void cas_slots(int *slots, unsigned mask, int hashed, int val, int n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (unsigned)n) {
        unsigned s = i;
        if (hashed) { s = i * 2654435761u; s ^= s >> 15; s *= 2246822519u; s ^= s >> 13; }
        int *addr = &slots[s & mask];
        int old = *addr, assumed;
        do {
            assumed = old;
            old = atomicCAS(addr, assumed, assumed + val);
        } while (old != assumed);
    }
}

}  // extern "C"
