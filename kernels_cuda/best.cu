// The fastest variant of each family: each one meets or beats the CuPy / CUB built-in on
// an H100 / H200 at large N (benchmarks/bench_best.py, docs/results/), and stays inside
// simt's C subset so the emulator runs it too.  Host code: fam_best.py.
//
// Habits that make them fast (all memory-bound: the floor is bytes / copy bandwidth):
//   * 16-byte loads and stores: ((const float4*)in)[i] -- one instruction moves 4 floats;
//   * a grid the size of the machine with a grid-stride loop, several independent loads
//     in flight per thread before the first use;
//   * warp shuffles instead of shared-memory trees inside a warp;
//   * one pass over the data (the scan publishes tile sums for later tiles: decoupled
//     look-back), no second kernel where a "last block" can finish the job.
//
// The float kernels add in an order fixed by the launch configuration, so the emulator
// and the GPU give the same bits (a*b+c written in one expression is one fused
// multiply-add on both), except the scan, whose look-back sums whatever earlier tiles
// have published by then.

extern "C" {

#define FULL_MASK 0xffffffffu

// =====================================================================================
// reduce_best: sum of n floats into out[0], one launch.
// Each thread accumulates a grid-stride share with four float4 loads in flight, the warp
// reduces with __shfl_down_sync, warp sums meet in shared memory, and block sums go to
// partials[].  The last block to finish (atomic ticket on *counter, after a
// __threadfence() that makes its partial visible) adds the partials in a fixed order,
// writes out[0] and resets the counter, so the kernel can be launched again as is.
// Launch: blockDim.x a multiple of 32 (<= 1024), any gridDim.x; in 16-byte aligned.
// =====================================================================================
__global__ void reduce_best(const float* __restrict__ in, float* partials,
                            unsigned int* counter, float* out, int n)
{
    __shared__ float warp_sums[32];
    __shared__ int am_last[1];
    int tid = threadIdx.x;
    int lane = tid & 31;
    int warp = tid >> 5;
    int nwarps = blockDim.x >> 5;
    int n4 = n >> 2;
    int stride = gridDim.x * blockDim.x;
    int i = blockIdx.x * blockDim.x + tid;
    const float4* in4 = (const float4*)in;
    float acc0 = 0.0f;
    float acc1 = 0.0f;

    // four independent 16-byte loads per iteration
    while (i + 3 * stride < n4) {
        float4 a = in4[i];
        float4 b = in4[i + stride];
        float4 c = in4[i + 2 * stride];
        float4 d = in4[i + 3 * stride];
        acc0 += (a.x + a.y) + (a.z + a.w);
        acc1 += (b.x + b.y) + (b.z + b.w);
        acc0 += (c.x + c.y) + (c.z + c.w);
        acc1 += (d.x + d.y) + (d.z + d.w);
        i += 4 * stride;
    }
    while (i < n4) {
        float4 a = in4[i];
        acc0 += (a.x + a.y) + (a.z + a.w);
        i += stride;
    }
    // the last n % 4 floats
    int g = blockIdx.x * blockDim.x + tid;
    if (g < (n & 3))
        acc1 += in[(n4 << 2) + g];

    float sum = acc0 + acc1;
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_down_sync(FULL_MASK, sum, off);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();

    if (warp == 0) {
        sum = (lane < nwarps) ? warp_sums[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1)
            sum += __shfl_down_sync(FULL_MASK, sum, off);
        if (lane == 0) {
            partials[blockIdx.x] = sum;
            __threadfence();                       // partial visible before the ticket
            unsigned int ticket = atomicAdd(counter, 1u);
            am_last[0] = (ticket == gridDim.x - 1);
        }
    }
    __syncthreads();

    if (am_last[0]) {
        // the last block: every partial is written; add them in a fixed order
        float s = 0.0f;
        for (int j = tid; j < (int)gridDim.x; j += blockDim.x)
            s += ((volatile float*)partials)[j];
        for (int off = 16; off > 0; off >>= 1)
            s += __shfl_down_sync(FULL_MASK, s, off);
        if (lane == 0)
            warp_sums[warp] = s;
        __syncthreads();
        if (warp == 0) {
            s = (lane < nwarps) ? warp_sums[lane] : 0.0f;
            for (int off = 16; off > 0; off >>= 1)
                s += __shfl_down_sync(FULL_MASK, s, off);
            if (lane == 0) {
                out[0] = s;
                counter[0] = 0u;                   // ready for the next launch
            }
        }
    }
}

// =====================================================================================
// Single-pass inclusive scan of floats with decoupled look-back (Merrill & Garland 2016).
//
// A tile is 16 floats per thread: warp w owns 4 rows of 32 float4, so every load and
// store is a coalesced 16-byte access.  A row is scanned inside each float4, then across
// the lanes with __shfl_up_sync; rows are chained inside the warp, warps through shared
// memory.  Tiles are numbered by an atomic ticket (in the order blocks start, so a block
// only ever waits for blocks that are already running).
//
// Each tile has one 64-bit status word: a flag in the high half (0: nothing yet,
// 1: the tile's own sum, 2: its inclusive prefix) and the float's bits in the low half.
// Flag and value travel in one aligned 8-byte store, which no reader can see half-done,
// so no __threadfence() is needed between them and a reader needs one load, not two.
// As soon as a tile knows its own sum it publishes it (flag 1); warp 0 then looks back
// over the 32 tiles before it at once: each lane spins until its tile has published
// something, and the window's sums are added up to the nearest tile that has published
// its inclusive prefix (flag 2), moving 32 tiles further back if none has.  The tile
// publishes its own inclusive prefix (flag 2) and adds the exclusive prefix to its values.
//
// scan_init must run first (it clears the status words and the ticket), as CUB's scan
// runs an init kernel.  Launch scan_lookback with ceil(n / (16 * blockDim.x)) blocks;
// blockDim.x a multiple of 32 (<= 1024); in and out 16-byte aligned.
// =====================================================================================
__global__ void scan_init(unsigned long long* status, int* tile_counter, int num_tiles)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < num_tiles)
        status[i] = 0ull;
    if (i == 0)
        tile_counter[0] = 0;
}

// a status word: flag (1 or 2) above the bits of the float v
#define SCAN_STATUS(flag, v) \
    ((((unsigned long long)(flag)) << 32) | (unsigned long long)(unsigned int)__float_as_int(v))

// load float4 number i of in[0..n) (zeros past the end)
#define SCAN_LOAD(v, i)                                                   \
    if (((i) << 2) + 3 < n) {                                             \
        v = in4[i];                                                       \
    } else {                                                              \
        v.x = (((i) << 2) + 0 < n) ? in[((i) << 2) + 0] : 0.0f;           \
        v.y = (((i) << 2) + 1 < n) ? in[((i) << 2) + 1] : 0.0f;           \
        v.z = (((i) << 2) + 2 < n) ? in[((i) << 2) + 2] : 0.0f;           \
        v.w = 0.0f;                                                       \
    }

// store float4 number i of out[0..n)
#define SCAN_STORE(v, i)                                                  \
    if (((i) << 2) + 3 < n) {                                             \
        out4[i] = v;                                                      \
    } else {                                                              \
        if (((i) << 2) + 0 < n) out[((i) << 2) + 0] = v.x;                \
        if (((i) << 2) + 1 < n) out[((i) << 2) + 1] = v.y;                \
        if (((i) << 2) + 2 < n) out[((i) << 2) + 2] = v.z;                \
    }

// inclusive scan of one row: inside the float4, then across the 32 lanes.
// ex: sum of the lanes before this one; tot: the row's total (same in every lane)
#define SCAN_ROW(v, ex, tot)                                              \
    v.y += v.x;                                                           \
    v.z += v.y;                                                           \
    v.w += v.z;                                                           \
    t = v.w;                                                              \
    u = __shfl_up_sync(FULL_MASK, t, 1);  if (lane >= 1)  t += u;         \
    u = __shfl_up_sync(FULL_MASK, t, 2);  if (lane >= 2)  t += u;         \
    u = __shfl_up_sync(FULL_MASK, t, 4);  if (lane >= 4)  t += u;         \
    u = __shfl_up_sync(FULL_MASK, t, 8);  if (lane >= 8)  t += u;         \
    u = __shfl_up_sync(FULL_MASK, t, 16); if (lane >= 16) t += u;         \
    ex = __shfl_up_sync(FULL_MASK, t, 1);                                 \
    if (lane == 0) ex = 0.0f;                                             \
    tot = __shfl_sync(FULL_MASK, t, 31);

// add the prefix p to a scanned float4
#define SCAN_ADD(v, p)                                                    \
    v.x = p + v.x;                                                        \
    v.y = p + v.y;                                                        \
    v.z = p + v.z;                                                        \
    v.w = p + v.w;

__global__ void scan_lookback(const float* __restrict__ in, float* out,
                              unsigned long long* status, int* tile_counter, int n)
{
    __shared__ float warp_tot[32];
    __shared__ float tile_excl[1];
    __shared__ int tile_sh[1];
    int tid = threadIdx.x;
    int lane = tid & 31;
    int warp = tid >> 5;
    int nwarps = blockDim.x >> 5;
    const float4* in4 = (const float4*)in;
    float4* out4 = (float4*)out;

    if (tid == 0)
        tile_sh[0] = atomicAdd(tile_counter, 1);
    __syncthreads();
    int tile = tile_sh[0];

    // this warp's 4 rows of 32 float4
    int base = tile * (blockDim.x * 4) + warp * 128 + lane;
    float4 v0;
    float4 v1;
    float4 v2;
    float4 v3;
    SCAN_LOAD(v0, base)
    SCAN_LOAD(v1, base + 32)
    SCAN_LOAD(v2, base + 64)
    SCAN_LOAD(v3, base + 96)

    float t;
    float u;
    float e0; float e1; float e2; float e3;
    float r0; float r1; float r2; float r3;
    SCAN_ROW(v0, e0, r0)
    SCAN_ROW(v1, e1, r1)
    SCAN_ROW(v2, e2, r2)
    SCAN_ROW(v3, e3, r3)
    // chain the rows: row k starts after rows 0..k-1 of this warp
    float c1 = r0;
    float c2 = c1 + r1;
    float c3 = c2 + r2;
    e1 = c1 + e1;
    e2 = c2 + e2;
    e3 = c3 + e3;
    if (lane == 0)
        warp_tot[warp] = c3 + r3;
    __syncthreads();

    // warps before this one, and the whole tile, in a fixed order
    float wex = 0.0f;
    float agg = 0.0f;
    for (int j = 0; j < nwarps; j++) {
        if (j == warp)
            wex = agg;
        agg += warp_tot[j];
    }

    if (warp == 0) {
        float excl = 0.0f;
        volatile unsigned long long* vstatus = (volatile unsigned long long*)status;
        if (tile == 0) {
            if (lane == 0)
                vstatus[0] = SCAN_STATUS(2, agg);
        } else {
            if (lane == 0)
                vstatus[tile] = SCAN_STATUS(1, agg);   // publish the aggregate early
            int look = tile - 1;
            while (1) {
                // lane k looks at tile look - k; tiles before 0 count as prefix 0
                int idx = look - lane;
                int flag = 2;
                float val = 0.0f;
                if (idx >= 0) {
                    unsigned long long st;
                    do {
                        st = vstatus[idx];
                    } while ((st >> 32) == 0ull);
                    flag = (int)(st >> 32);
                    val = __int_as_float((int)(unsigned int)(st & 0xffffffffull));
                }
                unsigned int pmask = __ballot_sync(FULL_MASK, flag == 2);
                // only tiles up to the nearest inclusive prefix count
                if (pmask != 0u && lane > __ffs(pmask) - 1)
                    val = 0.0f;
                for (int off = 16; off > 0; off >>= 1)
                    val += __shfl_down_sync(FULL_MASK, val, off);
                val = __shfl_sync(FULL_MASK, val, 0);
                excl = excl + val;
                if (pmask != 0u)
                    break;
                look -= 32;
            }
            if (lane == 0)
                vstatus[tile] = SCAN_STATUS(2, excl + agg);
        }
        if (lane == 0)
            tile_excl[0] = excl;
    }
    __syncthreads();

    float p = tile_excl[0] + wex;
    e0 = p + e0;
    e1 = p + e1;
    e2 = p + e2;
    e3 = p + e3;
    SCAN_ADD(v0, e0)
    SCAN_ADD(v1, e1)
    SCAN_ADD(v2, e2)
    SCAN_ADD(v3, e3)
    SCAN_STORE(v0, base)
    SCAN_STORE(v1, base + 32)
    SCAN_STORE(v2, base + 64)
    SCAN_STORE(v3, base + 96)
}

// =====================================================================================
// histogram_best: 256-bin histogram of int values in [0, 256) (others are skipped).
// One private histogram per block in shared memory, int4 loads in a grid-stride loop,
// and run-length merging in registers: a thread keeps (bin, count) and issues a shared
// atomic only when the value changes, so skewed data (long runs of one value, the worst
// case for atomics) costs fewer atomics, not more.  Blocks merge with one global
// atomicAdd per non-empty bin.  hist must be zeroed.  Any grid; data 16-byte aligned.
// =====================================================================================
#define HIST_BINS 256

#define HIST_PUSH(val)                                                    \
    if ((val) != cur) {                                                   \
        if ((unsigned int)cur < HIST_BINS)                                \
            atomicAdd(&sh[cur], cnt);                                     \
        cur = (val);                                                      \
        cnt = 0;                                                          \
    }                                                                     \
    cnt++;

__global__ void histogram_best(const int* __restrict__ data, int* hist, int n)
{
    __shared__ int sh[HIST_BINS];
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x)
        sh[b] = 0;
    __syncthreads();

    const int4* d4 = (const int4*)data;
    int n4 = n >> 2;
    int stride = gridDim.x * blockDim.x;
    int cur = -1;
    int cnt = 0;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // two independent 16-byte loads in flight
    while (i + stride < n4) {
        int4 a = d4[i];
        int4 b = d4[i + stride];
        HIST_PUSH(a.x)
        HIST_PUSH(a.y)
        HIST_PUSH(a.z)
        HIST_PUSH(a.w)
        HIST_PUSH(b.x)
        HIST_PUSH(b.y)
        HIST_PUSH(b.z)
        HIST_PUSH(b.w)
        i += 2 * stride;
    }
    if (i < n4) {
        int4 a = d4[i];
        HIST_PUSH(a.x)
        HIST_PUSH(a.y)
        HIST_PUSH(a.z)
        HIST_PUSH(a.w)
    }
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < (n & 3)) {
        int v = data[(n4 << 2) + g];
        HIST_PUSH(v)
    }
    if ((unsigned int)cur < HIST_BINS)
        atomicAdd(&sh[cur], cnt);
    __syncthreads();

    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) {
        int c = sh[b];
        if (c != 0)
            atomicAdd(&hist[b], c);
    }
}

// =====================================================================================
// spmv_csr_vector: y[row] = sum_j vals[j] * x[col_idx[j]].
// `group` threads (a power of two, 1..1024) share one row: 32 is the classic "CSR
// vector" (one warp per row: coalesced reads of vals and col_idx), fewer for short
// rows, several warps for very long rows.  The group's lanes add strided partial sums,
// reduce them with __shfl_down_sync, and groups wider than a warp add their warps'
// sums through shared memory, all in a fixed order.
// Rows: with use_rows == 0, slot k is row k for k < count, and rows longer than max_len
// are skipped (another launch takes them); with use_rows != 0, slot k is row rows[k].
// The host sorts rows once into short ones (first launch, a few lanes each) and very
// long ones (second launch, a list, many lanes each).
// Launch: blockDim.x a multiple of 32 and of group.
// =====================================================================================
__global__ void spmv_csr_vector(const int* __restrict__ rows, int use_rows, int count,
                                int max_len, const int* __restrict__ row_ptr,
                                const int* __restrict__ col_idx,
                                const float* __restrict__ vals,
                                const float* __restrict__ x, float* y, int group)
{
    __shared__ float part[32];
    int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    int slot = gtid / group;
    int lane = gtid & (group - 1);
    int row = -1;
    float sum = 0.0f;
    // no early return: every lane must reach the shuffles and the barrier
    if (slot < count) {
        row = use_rows ? rows[slot] : slot;
        int end = row_ptr[row + 1];
        int j = row_ptr[row];
        if (end - j > max_len)
            row = -1;                          // a long row: the other launch's
        j += lane;
        if (row < 0)
            j = end;
        // four products per lane per round, their loads all issued before the first
        // use (missing ones read as 0: adding 0 * 0 leaves the sum unchanged), so a row
        // of up to 4 * group non-zeros costs one round of memory latency.  vals and
        // col_idx are read once: __ldcs (evict-first) keeps them from pushing x, which
        // is read again and again, out of the L2 cache.  `sum += a * b` is one fused
        // multiply-add on the GPU (nvcc's default -fmad=true) and in the emulator.
        while (j < end) {
            float a0 = __ldcs(&vals[j]);
            float x0 = __ldg(&x[__ldcs(&col_idx[j])]);
            float a1 = 0.0f;
            float x1 = 0.0f;
            float a2 = 0.0f;
            float x2 = 0.0f;
            float a3 = 0.0f;
            float x3 = 0.0f;
            if (j + group < end) {
                a1 = __ldcs(&vals[j + group]);
                x1 = __ldg(&x[__ldcs(&col_idx[j + group])]);
            }
            if (j + 2 * group < end) {
                a2 = __ldcs(&vals[j + 2 * group]);
                x2 = __ldg(&x[__ldcs(&col_idx[j + 2 * group])]);
            }
            if (j + 3 * group < end) {
                a3 = __ldcs(&vals[j + 3 * group]);
                x3 = __ldg(&x[__ldcs(&col_idx[j + 3 * group])]);
            }
            sum += a0 * x0;
            sum += a1 * x1;
            sum += a2 * x2;
            sum += a3 * x3;
            j += 4 * group;
        }
    }
    int width = group < 32 ? group : 32;
    for (int off = width >> 1; off > 0; off >>= 1)
        sum += __shfl_down_sync(FULL_MASK, sum, off);
    if (group > 32) {
        if ((threadIdx.x & 31) == 0)
            part[threadIdx.x >> 5] = sum;
        __syncthreads();
        if (lane == 0) {
            int first = threadIdx.x >> 5;
            sum = 0.0f;
            for (int k = 0; k < (group >> 5); k++)
                sum += part[first + k];
        }
    }
    if (lane == 0 && row >= 0)
        y[row] = sum;
}

// =====================================================================================
// spmv_csr_tiled: spmv_csr_vector's rows, lanes and order of additions (group <= 32
// lanes per row), for matrices whose rows use nearby columns (banded matrices, stencils,
// meshes in a good order).  There the gathers x[col] hit in cache, but each one still
// costs the L1 a cache-line lookup of its own (32 random columns: ~30 lines per load
// instruction), which is what held spmv_csr_vector to 2/3 of cuSPARSE.  Here a block
// owns rows [b * rows_per_block, (b + 1) * rows_per_block) and first copies the window
// of x that they use into shared memory with coalesced loads; the gathers then read
// shared memory (32 banks: a few conflicts per instruction instead of ~30 lines), and
// the kernel streams vals and col_idx at close to the memory bandwidth.
// tiles[2b], tiles[2b + 1] = lo, len: every column of block b's rows lies in
// [lo, lo + len), len <= the dynamic shared memory / 4; len == 0: the block gathers from
// global memory as spmv_csr_vector does (its rows use columns too far apart).
// The block works in passes of blockDim.x / group rows, each lane's next row bounds
// loaded while the current row is summed.  Rows longer than max_len are skipped (the
// long-row launch of spmv_csr_vector takes them).
// Launch: blockDim.x a multiple of 32 and of group; one block per tile.
// =====================================================================================
#define SPMV_X(c) (len > 0 ? xs[(c) - lo] : __ldg(&x[(c)]))

__global__ void spmv_csr_tiled(const int* __restrict__ tiles, int rows_per_block,
                               int nrows, int max_len, const int* __restrict__ row_ptr,
                               const int* __restrict__ col_idx,
                               const float* __restrict__ vals,
                               const float* __restrict__ x, float* y, int group)
{
    extern __shared__ float xs[];
    int lo = tiles[2 * blockIdx.x];
    int len = tiles[2 * blockIdx.x + 1];
    int first = blockIdx.x * rows_per_block;
    int last = first + rows_per_block;
    if (last > nrows)
        last = nrows;
    int per_pass = blockDim.x / group;
    int lane = threadIdx.x & (group - 1);
    int r = first + threadIdx.x / group;
    int j_next = 0;
    int end_next = 0;
    if (r < last) {
        j_next = row_ptr[r];
        end_next = row_ptr[r + 1];
    }
    for (int i = threadIdx.x; i < len; i += blockDim.x)
        xs[i] = __ldg(&x[lo + i]);
    __syncthreads();

    // block-uniform trip count: every lane reaches every shuffle
    for (int base = first; base < last; base += per_pass) {
        int row = r;
        int j = j_next;
        int end = end_next;
        r += per_pass;
        if (r < last) {
            j_next = row_ptr[r];
            end_next = row_ptr[r + 1];
        }
        int mine = row < last && end - j <= max_len;
        if (!mine)
            j = end;
        j += lane;
        float sum = 0.0f;
        // as in spmv_csr_vector: four products per lane per round, loads first
        while (j < end) {
            float a0 = __ldcs(&vals[j]);
            int c0 = __ldcs(&col_idx[j]);
            float a1 = 0.0f;
            float a2 = 0.0f;
            float a3 = 0.0f;
            int c1 = -1;
            int c2 = -1;
            int c3 = -1;
            if (j + group < end) {
                a1 = __ldcs(&vals[j + group]);
                c1 = __ldcs(&col_idx[j + group]);
            }
            if (j + 2 * group < end) {
                a2 = __ldcs(&vals[j + 2 * group]);
                c2 = __ldcs(&col_idx[j + 2 * group]);
            }
            if (j + 3 * group < end) {
                a3 = __ldcs(&vals[j + 3 * group]);
                c3 = __ldcs(&col_idx[j + 3 * group]);
            }
            float x0 = SPMV_X(c0);
            float x1 = 0.0f;
            float x2 = 0.0f;
            float x3 = 0.0f;
            if (c1 >= 0)
                x1 = SPMV_X(c1);
            if (c2 >= 0)
                x2 = SPMV_X(c2);
            if (c3 >= 0)
                x3 = SPMV_X(c3);
            sum += a0 * x0;
            sum += a1 * x1;
            sum += a2 * x2;
            sum += a3 * x3;
            j += 4 * group;
        }
        for (int off = group >> 1; off > 0; off >>= 1)
            sum += __shfl_down_sync(FULL_MASK, sum, off);
        if (lane == 0 && mine)
            y[row] = sum;
    }
}

#undef SPMV_X

}  // extern "C"
