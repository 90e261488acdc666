"""Cooperative groups (simt.coop): blocks, tiles, coalesced groups and the grid, their
methods and the collectives, against what CUDA's cooperative_groups.h defines (and, with
a GPU, against the GPU)."""
import numpy as np
import pytest

import simt
from kern import gpu_or_skip, run
from simt.errors import CompileError

SRC = r'''
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

// the CUDA programming guide's example: one function for any group
__device__ int reduce_sum(cg::thread_group g, int *temp, int val) {
    int lane = g.thread_rank();
    for (int i = g.size() / 2; i > 0; i /= 2) {
        temp[lane] = val;
        g.sync();
        if (lane < i) val += temp[lane + i];
        g.sync();
    }
    return val;
}

__device__ int tile_sum(cg::thread_block_tile<16> t, int v) {
    for (int o = t.size() / 2; o > 0; o /= 2) v += t.shfl_down(v, o);
    return v;
}

__device__ void barrier(const cg::thread_block &b) { cg::sync(b); }

extern "C" __global__ void tiles(const int *in, int *out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    auto t8 = cg::tiled_partition<8>(warp);
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    cg::thread_group g16 = cg::tiled_partition(block, 16);
    int r = block.thread_rank();
    int v = in[blockIdx.x * blockDim.x + r];
    int *o = out + (blockIdx.x * blockDim.x + r) * 16;
    o[0] = t8.thread_rank() + 100 * t8.meta_group_rank() + 10000 * t8.meta_group_size();
    o[1] = cg::reduce(warp, v, cg::plus<int>());
    o[2] = cg::reduce(t8, v, cg::greater<int>());
    o[3] = cg::reduce(t8, v, cg::less<int>());
    o[4] = cg::inclusive_scan(t16, v);
    o[5] = cg::exclusive_scan(warp, v);
    o[6] = t8.ballot(v & 1);
    o[7] = t8.any(v > 90) + 2 * t8.all(v > 5);
    o[8] = t8.match_any(v % 3);
    o[9] = warp.shfl(v, 3) + t8.shfl_up(v, 1) * 1000;
    o[10] = t8.shfl_xor(v, 5);
    o[11] = tile_sum(cg::tiled_partition<16>(block), v) + 100000 * t16.meta_group_rank();
    __shared__ int temp[256];
    o[12] = reduce_sum(block, temp, v);
    barrier(block);
    o[13] = reduce_sum(warp, temp + (r / 32) * 32, v);
    o[14] = block.size() + warp.num_threads() * 1000 + g16.size() * 100000;
    o[15] = block.group_index().x + 10 * block.thread_index().x + 10000 * block.group_dim().x;
}

extern "C" __global__ void coalesced(const int *in, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    out[4 * i] = out[4 * i + 1] = out[4 * i + 2] = out[4 * i + 3] = -1;
    if (v % 3 == 0) {
        cg::coalesced_group act = cg::coalesced_threads();
        out[4 * i] = act.thread_rank() + 100 * act.size();
        out[4 * i + 1] = act.shfl(v, act.size() - 1);
        out[4 * i + 2] = act.shfl_down(v, 2) + 1000 * act.shfl_up(v, 1);
        act.sync();
        out[4 * i + 3] = act.any(v > 50) + 2 * act.all(v >= 0);
    }
}

extern "C" __global__ void grid(unsigned long long *out) {
    cg::grid_group g = cg::this_grid();
    out[g.thread_rank()] = g.size() * 1000 + g.thread_rank();
}
'''

BLOCKS, THREADS = 2, 128


def _in():
    return np.random.default_rng(3).integers(0, 100, BLOCKS * THREADS).astype(np.int32)


def _tiles_expected(x):
    n = len(x)
    o = np.zeros((n, 16), np.int64)
    r = np.arange(n) % THREADS
    lane = r % 32

    def groups(size):
        return x.reshape(-1, size)

    def per(size, f):
        return np.repeat(np.array([f(g) for g in groups(size)]), size, axis=0).reshape(n, -1).squeeze()

    o[:, 0] = lane % 8 + 100 * (lane // 8) + 10000 * 4          # t8's place in its warp
    o[:, 1] = per(32, np.sum)
    o[:, 2] = per(8, np.max)
    o[:, 3] = per(8, np.min)
    o[:, 4] = np.concatenate([np.cumsum(g) for g in groups(16)])
    o[:, 5] = np.concatenate([np.cumsum(g) - g for g in groups(32)])
    o[:, 6] = per(8, lambda g: int(sum(int(b & 1) << k for k, b in enumerate(g))))
    o[:, 7] = per(8, lambda g: int((g > 90).any()) + 2 * int((g > 5).all()))
    o[:, 8] = np.concatenate([[sum(1 << k for k, w in enumerate(g) if w % 3 == v % 3) for v in g]
                              for g in groups(8)])
    up = np.concatenate([np.concatenate([[g[0]], g[:-1]]) for g in groups(8)])
    o[:, 9] = np.repeat(groups(32)[:, 3], 32) + up * 1000
    o[:, 10] = x[(np.arange(n) & ~7) | ((np.arange(n) & 7) ^ 5)]
    o[:, 11] = np.where(lane % 16 == 0, per(16, np.sum) + 100000 * (r // 16), 0)
    # reduce_sum leaves the whole sum in rank 0 and partial sums elsewhere: rank 0 checked
    o[:, 12] = np.where(r == 0, per(THREADS, np.sum), 0)
    o[:, 13] = np.where(lane == 0, per(32, np.sum), 0)
    o[:, 14] = THREADS + 32 * 1000 + 16 * 100000
    o[:, 15] = np.arange(n) // THREADS + 10 * r + 10000 * THREADS
    return o


def _check_tiles(o, x):
    want = _tiles_expected(x)
    o = o.reshape(-1, 16).astype(np.int64)
    lane = np.arange(len(x)) % 32
    r = np.arange(len(x)) % THREADS
    o[:, 11] = np.where(lane % 16 == 0, o[:, 11], 0)       # only the tile's rank 0 is defined
    o[:, 12] = np.where(r == 0, o[:, 12], 0)
    o[:, 13] = np.where(lane == 0, o[:, 13], 0)
    for k in range(16):
        np.testing.assert_array_equal(o[:, k], want[:, k], err_msg=f"column {k}")


def _coalesced_expected(x):
    out = np.full((len(x), 4), -1, np.int64)
    for w0 in range(0, len(x), 32):
        w = x[w0:w0 + 32]
        lanes = [k for k in range(32) if w[k] % 3 == 0]
        vals = [int(w[k]) for k in lanes]
        for rank, k in enumerate(lanes):
            s = len(lanes)
            down = vals[rank + 2] if rank + 2 < s else vals[rank]
            up = vals[rank - 1] if rank >= 1 else vals[rank]
            out[w0 + k] = [rank + 100 * s, vals[-1], down + 1000 * up,
                           int(any(v > 50 for v in vals)) + 2]
    return out


def test_tiles_and_blocks_compute_what_cooperative_groups_define():
    x = _in()
    (_, o), _ = run(SRC, "tiles", BLOCKS, THREADS, [x, np.zeros(len(x) * 16, np.int32)])
    _check_tiles(o, x)


def test_a_coalesced_group_is_the_lanes_that_took_the_branch():
    x = _in()
    (_, o), _ = run(SRC, "coalesced", BLOCKS, THREADS, [x, np.zeros(len(x) * 4, np.int32)])
    np.testing.assert_array_equal(o.reshape(-1, 4), _coalesced_expected(x))


def test_the_grid_group_counts_every_thread():
    (o,), _ = run(SRC, "grid", (2, 3), (32, 2), [np.zeros(6 * 64, np.uint64)])
    np.testing.assert_array_equal(o, 384 * 1000 + np.arange(384))


def test_using_namespace_and_a_tile_reduction_in_a_float_kernel():
    src = r'''
    #include <cooperative_groups.h>
    using namespace cooperative_groups;
    extern "C" __global__ void k(const float *a, float *s) {
        thread_block b = this_thread_block();
        thread_block_tile<32> w = tiled_partition<32>(b);
        float v = a[b.thread_rank()];
        for (int o = 16; o > 0; o /= 2) v += w.shfl_xor(v, o);
        if (w.thread_rank() == 0) atomicAdd(s, v);
    }'''
    a = np.arange(64, dtype=np.float32)
    (_, s), res = run(src, "k", 1, 64, [a, np.zeros(1, np.float32)])
    assert s[0] == a.sum()


@pytest.mark.parametrize("body, where, words", [
    ("cg::this_grid().sync();", "bad.cu:5:21", "cooperative launch"),
    ("auto t = cg::tiled_partition<64>(cg::this_thread_block());", "bad.cu:5:14", "tiles of 1, 2, 4"),
    ("auto t = cg::labeled_partition(cg::coalesced_threads(), 1);", "bad.cu:5:14",
     "cg::labeled_partition is outside"),
    ("cg::coalesced_group g = cg::coalesced_threads(); g.ballot(1);", "bad.cu:5:56", "__ballot_sync"),
    ("cg::thread_block b = cg::this_thread_block(); b.frobnicate();", "bad.cu:5:53", "frobnicate() of"),
])
def test_cooperative_groups_outside_the_subset_name_their_place(body, where, words):
    src = ('#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n\n'
           f'extern "C" __global__ void k(int *o) {{\n    {body}\n}}\n')
    with pytest.raises(CompileError) as e:
        simt.Module.from_source(src, "bad.cu").get_function("k")
    assert str(e.value).startswith(where) and words in str(e.value), str(e.value)


def test_a_file_without_cooperative_groups_is_read_as_before():
    src = 'extern "C" __global__ void k(int *sync, int reduce) { sync[threadIdx.x] = reduce; }'
    (o, _), _ = run(src, "k", 1, 32, [np.zeros(32, np.int32), np.int32(7)])
    np.testing.assert_array_equal(o, 7)


@pytest.mark.gpu
def test_cooperative_groups_match_the_gpu(tmp_path):
    gpu_or_skip()
    from kernels_cuda import crosscheck
    p = tmp_path / "coop.cu"
    p.write_text(SRC)
    x = _in()
    _, after, _ = crosscheck.real_launch(str(p), "tiles", BLOCKS, THREADS,
                                         [x, np.zeros(len(x) * 16, np.int32)], repeat=1)
    _check_tiles(after[1], x)
    _, after, _ = crosscheck.real_launch(str(p), "coalesced", BLOCKS, THREADS,
                                         [x, np.zeros(len(x) * 4, np.int32)], repeat=1)
    np.testing.assert_array_equal(after[1].reshape(-1, 4), _coalesced_expected(x))
