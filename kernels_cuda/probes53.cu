// probe-unseen51 (session 34): kernels that exercise language features the other probes
// use less: a 3-D grid of 3-D blocks (blockIdx.z, threadIdx.z) running a 27-point box
// filter over a 256^3 float volume through const __restrict__ pointers and __ldg, written
// once and launched twice, with blocks of 32 x 4 x 4 (a warp a run of 32 x, coalesced) and
// of 4 x 4 x 32 (a warp 4 x by 4 y by 2 z: eight 16-byte pieces a load); a group-by of
// float values on 1024 integer keys whose per-block accumulators are an array of structs
// in extern __shared__ memory, flushed by double and unsigned long long atomicAdds; a C++
// template (float and double instances) normalizing rows of 256 to unit L2 norm with a
// cooperative_groups::tiled_partition<16> a row; and the Tanimoto similarity of a query
// to 2^21 1024-bit fingerprints, a warp a fingerprint, two __reduce_add_sync of popcounts.
// Predicted before their first GPU run.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// y[r][c] = x[r][c] / sqrt(sum_c x[r][c]^2) (0 for an all-zero row), rows of cols T: a tile
// of 16 threads a row (lane l its elements l, l + 16, ..), the sum of squares by four
// xor shuffles of the tile, then a second pass over the row (in L1 by then) that scales
template <typename T>
__global__ void l2norm_rows16(const T *__restrict__ x, T *__restrict__ y, int rows, int cols) {
    cg::thread_block_tile<16> t = cg::tiled_partition<16>(cg::this_thread_block());
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 16;
    if (row >= rows) return;                        // a whole tile leaves together
    const T *xr = x + (size_t)row * cols;
    T *yr = y + (size_t)row * cols;
    T s = 0;
    for (int c = t.thread_rank(); c < cols; c += 16) {
        T v = xr[c];
        s += v * v;
    }
    for (int o = 8; o > 0; o >>= 1) s += t.shfl_xor(s, o);
    T r = s > T(0) ? T(1) / sqrt(s) : T(0);
    for (int c = t.thread_rank(); c < cols; c += 16) yr[c] = xr[c] * r;
}

extern "C" {

// out = the 27-point box mean of the nx x ny x nz volume u (x fastest, then y, then z),
// zeros outside, always divided by 27: a thread a voxel on a 3-D grid of 3-D blocks of any
// shape, the 27 loads by __ldg through const __restrict__ pointers
__global__ void box27_3d(const float *__restrict__ u, float *__restrict__ out, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    size_t sy = (size_t)nx, sz = (size_t)nx * ny;
    float s = 0.0f;
    for (int dz = -1; dz <= 1; ++dz) {
        int zz = z + dz;
        if (zz < 0 || zz >= nz) continue;
        for (int dy = -1; dy <= 1; ++dy) {
            int yy = y + dy;
            if (yy < 0 || yy >= ny) continue;
            const float *p = u + zz * sz + yy * sy;
            for (int dx = -1; dx <= 1; ++dx) {
                int xx = x + dx;
                if (xx >= 0 && xx < nx) s += __ldg(&p[xx]);
            }
        }
    }
    out[z * sz + y * sy + x] = s * (1.0f / 27.0f);
}

struct KeyAcc {
    float sum;
    unsigned cnt;
};

// a group-by of vals on keys in [0, nkeys): sums[k] += the values of key k, counts[k] +=
// how many; each block's accumulators are nkeys KeyAcc structs in dynamic shared memory
// (8 bytes each), filled by a grid-stride loop of two shared atomicAdds an element, then
// flushed by a double and an unsigned long long atomicAdd a touched key
__global__ void groupby_aos_dyn(const int *__restrict__ keys, const float *__restrict__ vals, double *sums,
                                unsigned long long *counts, int nkeys, int n) {
    extern __shared__ KeyAcc acc[];
    for (int k = threadIdx.x; k < nkeys; k += blockDim.x) {
        acc[k].sum = 0.0f;
        acc[k].cnt = 0u;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int k = keys[i];
        atomicAdd(&acc[k].sum, vals[i]);
        atomicAdd(&acc[k].cnt, 1u);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < nkeys; k += blockDim.x) {
        unsigned c = acc[k].cnt;
        if (c) {
            atomicAdd(&sums[k], (double)acc[k].sum);
            atomicAdd(&counts[k], (unsigned long long)c);
        }
    }
}

// sim[f] = |q & db_f| / |q | db_f| (1 when both are empty), the Tanimoto similarity of the
// 1024-bit query q to fingerprint f of nfp (32 words each): a warp a fingerprint, lane l
// its word l and the query's (by __ldg), the two popcounts summed by __reduce_add_sync
__global__ void tanimoto_redux(const unsigned *__restrict__ db, const unsigned *__restrict__ query,
                               float *__restrict__ sim, int nfp) {
    int f = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (f >= nfp) return;
    unsigned a = db[(size_t)f * 32 + lane], q = __ldg(&query[lane]);
    unsigned both = __reduce_add_sync(0xffffffffu, (unsigned)__popc(a & q));
    unsigned either = __reduce_add_sync(0xffffffffu, (unsigned)__popc(a | q));
    if (lane == 0) sim[f] = either ? (float)both / (float)either : 1.0f;
}

}
