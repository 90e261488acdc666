// probe-unseen13 (session 13): kernels written with cooperative groups, which simt reads
// since this session (simt/coop.py).  Predictions committed before any GPU run.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

// warp-aggregated increment (the CUDA Pro Tip "Optimized Filtering with Warp-Aggregated
// Atomics"): one atomicAdd per group of lanes that reach it together
__device__ int atomic_agg_inc(int *ctr) {
    cg::coalesced_group g = cg::coalesced_threads();
    int warp_res = 0;
    if (g.thread_rank() == 0) warp_res = atomicAdd(ctr, (int)g.size());
    return g.shfl(warp_res, 0) + g.thread_rank();
}

extern "C" {

// a block's sum: each warp reduces with cg::reduce, warp 0 reduces the warps' sums
__global__ void cg_block_sum(const float *in, float *out, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float part[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) part[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < warp.meta_group_size() ? part[warp.thread_rank()] : 0.0f;
        v = cg::reduce(warp, v, cg::plus<float>());
        if (warp.thread_rank() == 0) atomicAdd(out, v);
    }
}

// keep the positive elements (in no particular order)
__global__ void cg_filter(const int *src, int *dst, int *nres, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && src[i] > 0) dst[atomic_agg_inc(nres)] = src[i];
}

// prefix sums within each tile of 16 threads
__global__ void cg_tile_scan(const int *in, int *out, int n) {
    cg::thread_block_tile<16> t = cg::tiled_partition<16>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    v = cg::inclusive_scan(t, v);
    if (i < n) out[i] = v;
}

// a grid-stride sum over the whole grid group, tiles of 32 reduce, one atomic per warp
__global__ void cg_grid_sum(const float *in, float *out, int n) {
    cg::grid_group grid = cg::this_grid();
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    float v = 0.0f;
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
        v += in[i];
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) atomicAdd(out, v);
}

}
