// Kernels written in session 10 to test the timing model on module variables, which simt
// learned to emulate in that session (family probe-unseen9): a 1D convolution whose 17
// taps are a __constant__ array, a lookup table in __constant__ memory read at data-
// dependent indices (lanes of a warp read different words), a k-means assignment step
// against 16 centroids in __constant__ memory, a block sum whose last block adds the
// partial sums (__threadfence and an atomicInc on a __device__ ticket, as CUDA's
// threadFenceReduction sample), a stream compaction through a __device__ counter, and a
// 7-point 3D stencil with its two coefficients in __constant__ memory.
extern "C" {

#define CR 8
__constant__ float c_mask[2 * CR + 1] = {
    0.005650f, 0.011299f, 0.022599f, 0.039548f, 0.062147f, 0.084746f, 0.101695f, 0.112994f,
    0.118644f, 0.112994f, 0.101695f, 0.084746f, 0.062147f, 0.039548f, 0.022599f, 0.011299f,
    0.005650f};

// out[i] = sum over k of mask[k] in[i + k - CR], zero outside the array
__global__ void conv1d_const(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int k = 0; k < 2 * CR + 1; k++) {
        int j = i + k - CR;
        if (j >= 0 && j < n) s += c_mask[k] * in[j];
    }
    out[i] = s;
}

__constant__ float c_lut[256];      // set by the host (cudaMemcpyToSymbol)

// out[i] = lut[in[i]]: each lane of a warp reads its own entry of the table
__global__ void lut_const(const unsigned char *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = c_lut[in[i]];
}

#define KC 16
__constant__ float c_cx[KC] = {0.625f, 0.897f, 0.776f, 0.225f, 0.300f, 0.874f, 0.005f, 0.821f,
                               0.797f, 0.468f, 0.303f, 0.278f, 0.255f, 0.445f, 0.505f, 0.553f};
__constant__ float c_cy[KC] = {0.996f, 0.793f, 0.622f, 0.989f, 0.215f, 0.160f, 0.613f, 0.044f,
                               0.036f, 0.515f, 0.466f, 0.917f, 0.629f, 0.514f, 0.497f, 0.248f};

// label[i] = the nearest of KC centroids to (x[i], y[i])
__global__ void kmeans_assign(const float *x, const float *y, int *label, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float px = x[i], py = y[i];
    float best = 3.0e38f;
    int bi = 0;
    for (int k = 0; k < KC; k++) {
        float dx = px - c_cx[k], dy = py - c_cy[k];
        float d = dx * dx + dy * dy;
        if (d < best) { best = d; bi = k; }
    }
    label[i] = bi;
}

#define FB 256
__device__ unsigned int retire_count = 0;

// total[0] = sum of in: grid-stride partial sums, a shared tree per block, and the last
// block to finish (its ticket from atomicInc) adds the blocks' partial sums
__global__ void sum_threadfence(const float *in, float *partial, float *total, int n) {
    __shared__ float sdata[FB];
    __shared__ bool am_last;
    unsigned int t = threadIdx.x;
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
        s += in[i];
    sdata[t] = s;
    __syncthreads();
    for (unsigned int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (t < st) sdata[t] += sdata[t + st];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = sdata[0];
        __threadfence();
        unsigned int ticket = atomicInc(&retire_count, gridDim.x);
        am_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (am_last) {
        float v = 0.0f;
        for (int i = t; i < gridDim.x; i += blockDim.x)
            v += partial[i];
        sdata[t] = v;
        __syncthreads();
        for (unsigned int st = blockDim.x / 2; st > 0; st >>= 1) {
            if (t < st) sdata[t] += sdata[t + st];
            __syncthreads();
        }
        if (t == 0) {
            total[0] = sdata[0];
            retire_count = 0;
        }
    }
}

__device__ int compact_count = 0;

// out gets the elements of in above thr, in no particular order; compact_count their number
__global__ void compact_atomic(const float *in, float *out, int n, float thr) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = in[i];
        if (v > thr) out[atomicAdd(&compact_count, 1)] = v;
    }
}

__constant__ float c_coef[2] = {0.4f, 0.1f};

// out = c0 in + c1 (sum of the 6 neighbours) inside an n x n x n grid; blocks of 32 x 8,
// one z plane per blockIdx.z
__global__ void stencil3d7(const float *in, float *out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    if (x < 1 || y < 1 || z < 1 || x >= n - 1 || y >= n - 1 || z >= n - 1) return;
    int p = n * n;
    int i = z * p + y * n + x;
    out[i] = c_coef[0] * in[i] + c_coef[1] * (in[i - 1] + in[i + 1] + in[i - n] + in[i + n]
                                               + in[i - p] + in[i + p]);
}

}
