// probe-unseen20 (session 19): kernel kinds no probe had tried, and the two mechanisms
// session 19 added, on kernels the model was not fit to: a 64-bit atomicCAS add on
// doubles in lane order and through a hash, an interleaved shared reduction in a loop
// nvcc unrolls (predicated, with bank conflicts), a Blelloch scan padded against bank
// conflicts, a 4-bit digit histogram (radix-sort pass) with shared atomics, an odd-even
// transposition sort in shared memory, k-means assignment against centroids in
// __constant__ memory, and a transpose of doubles through a padded shared tile.
// Predicted before their first GPU run.

extern "C" {

// the classic atomicAdd for double built from 64-bit atomicCAS
__device__ double cas_add_double(double *address, double val) {
    unsigned long long int *p = (unsigned long long int *)address;
    unsigned long long int old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}

// each thread adds its value to sums[i % 128]: every warp names 32 different words
__global__ void cas_add_f64_lane(const double *x, double *sums, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cas_add_double(&sums[i % 128], x[i]);
}

// ... or to sums[bin[i]], 256 bins drawn at random: lanes of a warp collide
__global__ void cas_add_f64_hashed(const double *x, const int *bin, double *sums, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cas_add_double(&sums[bin[i]], x[i]);
}

// block sums, interleaved addressing (index = 2 s tid: strided, bank conflicts), in a
// loop whose trips are constants
__global__ void reduce_interleaved256(const float *in, float *out) {
    __shared__ float s[256];
    int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * 256 + tid];
    __syncthreads();
    for (int d = 1; d < 256; d *= 2) {
        int index = 2 * d * tid;
        if (index < 256) s[index] += s[index + d];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

// exclusive scan of 1024 ints a block, 512 threads, indices padded by one word every 32
// (no bank conflicts)
#define PAD(i) ((i) + ((i) >> 5))
__global__ void blelloch_padded(const int *in, int *out) {
    __shared__ int t[1024 + 32];
    int tid = threadIdx.x;
    int base = blockIdx.x * 1024;
    t[PAD(tid)] = in[base + tid];
    t[PAD(tid + 512)] = in[base + tid + 512];
    int offset = 1;
    for (int d = 512; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            t[PAD(bi)] += t[PAD(ai)];
        }
        offset *= 2;
    }
    if (tid == 0) t[PAD(1023)] = 0;
    for (int d = 1; d < 1024; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            int v = t[PAD(ai)];
            t[PAD(ai)] = t[PAD(bi)];
            t[PAD(bi)] += v;
        }
    }
    __syncthreads();
    out[base + tid] = t[PAD(tid)];
    out[base + tid + 512] = t[PAD(tid + 512)];
}

// one pass of a radix sort: the histogram of a 4-bit digit, 16 shared counters a block
// (many lanes on one counter), then 16 global atomics a block
__global__ void radix_digit_hist(const unsigned int *keys, unsigned int *hist, int n, int shift) {
    __shared__ unsigned int h[16];
    if (threadIdx.x < 16) h[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[(keys[i] >> shift) & 15], 1u);
    __syncthreads();
    if (threadIdx.x < 16) atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);
}

// odd-even transposition sort of 512 ints a block (256 threads, 512 phases, a barrier
// each); the compare-exchange is branch-free
__global__ void odd_even_sort512(int *data) {
    __shared__ int s[512];
    int tid = threadIdx.x;
    int base = blockIdx.x * 512;
    s[tid] = data[base + tid];
    s[tid + 256] = data[base + tid + 256];
    for (int phase = 0; phase < 512; phase++) {
        __syncthreads();
        int i = 2 * tid + (phase & 1);
        if (i + 1 < 512) {
            int a = s[i], b = s[i + 1];
            s[i] = min(a, b);
            s[i + 1] = max(a, b);
        }
    }
    __syncthreads();
    data[base + tid] = s[tid];
    data[base + tid + 256] = s[tid + 256];
}

__constant__ float c_cx[32];
__constant__ float c_cy[32];

// k-means assignment: the nearest of 32 centroids (read by every lane alike from
// __constant__ memory) for each point
__global__ void kmeans_assign(const float *px, const float *py, int *label, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = px[i], y = py[i];
        float best = 3.4e38f;
        int arg = 0;
        for (int k = 0; k < 32; k++) {
            float dx = x - c_cx[k], dy = y - c_cy[k];
            float d = dx * dx + dy * dy;
            if (d < best) { best = d; arg = k; }
        }
        label[i] = arg;
    }
}

// out = in^T for a 4096 x 4096 matrix of doubles, 32 x 32 tiles padded to 33 columns,
// blocks of 32 x 8 threads
__global__ void transpose_f64(const double *in, double *out, int n) {
    __shared__ double tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

}
