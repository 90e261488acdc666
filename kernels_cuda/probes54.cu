// probe-unseen52 (session 35): kernels a CUDA course's students or a practitioner would
// write that the other probes do not cover, one a performance regime: dequantizing 4-bit
// weights packed eight to a word with a __half scale per group of 64 (a DRAM stream whose
// writes are eight times its reads, two float4 stores a thread); a lower-bound search of
// an Eytzinger (BFS-ordered) tree of 2^24 keys, a chain of dependent loads per query on a
// small grid-stride grid (latency-bound); a fused separable Gaussian blur (a template on
// the radius, weights in __constant__, a haloed tile and the row pass's result in
// __shared__ 2-D arrays); COO-to-CSR row statistics: the entries a row by atomicAdd and
// the row minimum by the float-as-int atomicMin/atomicMax idiom, on sorted row indices
// (a warp's atomics land on two or three addresses); the nearest of 64 reference points
// by haversine distance (sinf, cosf, asinf, sqrtf a pair; blocks of 192 threads, the
// references as structs in shared memory); a batched Hermitian (conjugate) transpose of
// double2 matrices on a 3-D grid, a padded 32 x 33 double2 tile in shared memory.
// Predicted before their first GPU run.
#include <cuda_fp16.h>

#define DQ_GROUP 64                 // weights sharing one scale
#define DQ_ZERO 8                   // the 4-bit code of weight 0
#define GB_TILE 32                  // gauss_sep_fused: a block's output tile is 32 x 32
#define GB_ROWS 8                   // ... with blocks of 32 x 8 threads
#define HT_TILE 32                  // herm_transpose_batched: 32 x 32 tiles ...
#define HT_ROWS 8                   // ... with blocks of 32 x 8 threads
#define HV_NREF 64                  // haversine_nearest: reference points
#define HV_EARTH_KM 6371.0f

__constant__ float c_gauss[17];     // the blur's 2R + 1 weights, R <= 8

// the complex conjugate of a double2 (x the real part)
__device__ __forceinline__ double2 conj2(double2 z) { return make_double2(z.x, -z.y); }

template <int R>
__global__ void gauss_sep_fused(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
    // out = in blurred by the separable (2R+1)-tap kernel c_gauss in x then y, clamping at
    // the edges: the block loads its (32+2R)^2 haloed tile, the row pass writes (32+2R) x 32
    // sums to a second shared array, the column pass 32 x 32 outputs, four a thread
    __shared__ float tile[GB_TILE + 2 * R][GB_TILE + 2 * R];
    __shared__ float mid[GB_TILE + 2 * R][GB_TILE];
    const int W = GB_TILE + 2 * R;
    int x0 = blockIdx.x * GB_TILE - R, y0 = blockIdx.y * GB_TILE - R;
    int tid = threadIdx.y * GB_TILE + threadIdx.x;
    for (int i = tid; i < W * W; i += GB_TILE * GB_ROWS) {
        int ty = i / W, tx = i - ty * W;
        int gx = min(max(x0 + tx, 0), w - 1), gy = min(max(y0 + ty, 0), h - 1);
        tile[ty][tx] = in[(size_t)gy * w + gx];
    }
    __syncthreads();
    for (int ty = threadIdx.y; ty < W; ty += GB_ROWS) {
        float s = 0.0f;
#pragma unroll
        for (int k = 0; k <= 2 * R; ++k) s += c_gauss[k] * tile[ty][threadIdx.x + k];
        mid[ty][threadIdx.x] = s;
    }
    __syncthreads();
    int x = blockIdx.x * GB_TILE + threadIdx.x;
    for (int ty = threadIdx.y; ty < GB_TILE; ty += GB_ROWS) {
        int y = blockIdx.y * GB_TILE + ty;
        float s = 0.0f;
#pragma unroll
        for (int k = 0; k <= 2 * R; ++k) s += c_gauss[k] * mid[ty + k][threadIdx.x];
        if (x < w && y < h) out[(size_t)y * w + x] = s;
    }
}

template __global__ void gauss_sep_fused<4>(const float *__restrict__, float *__restrict__, int, int);

// the float-as-int atomic minimum: a non-negative float's bits order as a signed int's, a
// negative float's (reversed) as an unsigned int's; *addr starts at +inf
__device__ __forceinline__ void atomic_min_float(float *addr, float v) {
    if (v >= 0.0f)
        atomicMin((int *)addr, __float_as_int(v));
    else
        atomicMax((unsigned int *)addr, __float_as_uint(v));
}

struct GeoRef {
    float lat, lon, coslat, pad;    // radians; cos(lat) precomputed on the host
};

extern "C" {

// w[8i + j] = (nibble j of q[i] - 8) * s[(8i + j) / 64] for nw words: a thread a word,
// the group's __half scale (shared by eight neighbours), eight floats out by two float4
__global__ void dequant_int4(const unsigned *__restrict__ q, const __half *__restrict__ s,
                             float4 *__restrict__ w, int nw) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nw) return;
    unsigned u = q[i];
    float sc = __half2float(s[i / (DQ_GROUP / 8)]);
    float f[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) f[j] = (float)((int)((u >> (4 * j)) & 0xFu) - DQ_ZERO) * sc;
    w[2 * i] = make_float4(f[0], f[1], f[2], f[3]);
    w[2 * i + 1] = make_float4(f[4], f[5], f[6], f[7]);
}

// idx[i] = the Eytzinger index (1-based BFS order) of the smallest key >= x[i] in the tree
// of nt keys tree[1..nt] (0 when every key is smaller): the branch-free descent
// k = 2k + (tree[k] < x) until k passes nt, then k >> (trailing ones + 1) via __ffs(~k);
// a grid-stride loop of a few hundred blocks, so each thread runs ~16 chains of ~24 loads
__global__ void eytzinger_lower_bound(const int *__restrict__ tree, const int *__restrict__ x, int *idx,
                                      int nt, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int v = x[i];
        unsigned k = 1;
        while (k <= (unsigned)nt) k = 2 * k + (tree[k] < v);
        k >>= __ffs(~k);
        idx[i] = (int)k;
    }
}

// COO row statistics for nnz entries with sorted row indices: counts[r] += 1 (the CSR row
// lengths before their scan) and rowmin[r] = min(rowmin[r], val) (rowmin starts at +inf)
__global__ void coo_row_stats(const int *__restrict__ rows, const float *__restrict__ vals, int *counts,
                              float *rowmin, int nnz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nnz) return;
    int r = rows[i];
    atomicAdd(&counts[r], 1);
    atomic_min_float(&rowmin[r], vals[i]);
}

// for each of n points (lat, lon in radians) the nearest of HV_NREF references by the
// haversine great-circle distance, computed in full (asinf included) for every pair: the
// references copied into shared memory as GeoRef structs, nearest[i] its index (the first
// on a tie) and dist[i] the distance in km
__global__ void haversine_nearest(const float2 *__restrict__ pts, const GeoRef *__restrict__ refs,
                                  int *nearest, float *dist, int n) {
    __shared__ GeoRef sref[HV_NREF];
    for (int j = threadIdx.x; j < HV_NREF; j += blockDim.x) sref[j] = refs[j];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 p = pts[i];
    float cp = cosf(p.x);
    float best = 3.0e38f;
    int bj = 0;
    for (int j = 0; j < HV_NREF; ++j) {
        GeoRef r = sref[j];
        float s1 = sinf(0.5f * (p.x - r.lat)), s2 = sinf(0.5f * (p.y - r.lon));
        float a = fminf(s1 * s1 + cp * r.coslat * s2 * s2, 1.0f);
        float d = 2.0f * HV_EARTH_KM * asinf(sqrtf(a));
        if (d < best) {
            best = d;
            bj = j;
        }
    }
    nearest[i] = bj;
    dist[i] = best;
}

// out[b][c][r] = conj(in[b][r][c]) for a batch of rows x cols complex double matrices
// (out[b] = in[b]^H, cols x rows): a 3-D grid (x column tiles, y row tiles, z the matrix),
// a 32 x 32 tile through a padded 32 x 33 double2 shared tile (the padding puts a column
// read's lanes four banks apart, so each quarter-warp's 16-byte reads are conflict-free)
__global__ void herm_transpose_batched(const double2 *__restrict__ in, double2 *__restrict__ out, int rows,
                                       int cols) {
    __shared__ double2 tile[HT_TILE][HT_TILE + 1];
    size_t mat = (size_t)blockIdx.z * rows * cols;
    int c = blockIdx.x * HT_TILE + threadIdx.x;
    int r0 = blockIdx.y * HT_TILE;
    for (int j = threadIdx.y; j < HT_TILE; j += HT_ROWS)
        if (r0 + j < rows && c < cols) tile[j][threadIdx.x] = in[mat + (size_t)(r0 + j) * cols + c];
    __syncthreads();
    int r = r0 + threadIdx.x;
    int c0 = blockIdx.x * HT_TILE;
    for (int j = threadIdx.y; j < HT_TILE; j += HT_ROWS)
        if (c0 + j < cols && r < rows) out[mat + (size_t)(c0 + j) * rows + r] = conj2(tile[threadIdx.x][j]);
}

}
