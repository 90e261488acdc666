"""The best variant of each family (``best.cu``): as fast as the CuPy/CUB built-in.

These are the kernels a course would end on: grid-stride loops with 16-byte loads,
warp shuffles, a single-pass scan with decoupled look-back, run-length merged
privatized histograms and a CSR-vector SpMV whose group size follows the row lengths.
``benchmarks/bench_best.py`` times them at large N beside ``cupy.sum``,
``cupy.cumsum``, ``cupy.histogram`` and ``cupyx.scipy.sparse`` (results in
``docs/results/``); the entries here keep ``default_n`` small so the emulator runs them
in seconds.  The drivers size their grids from N only (never from the device), so the
fixed-order float kernels give the same bits on the emulator and on any GPU; the numpy
references replay those orders in float32.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels_cuda.catalog import Entry, register
from kernels_cuda.fam_histogram import cdiv, histogram_data

SRC = "best.cu"
B = 256

# Grid caps: one wave of blocks on a 132-SM H100/H200 even at 4 resident blocks per SM
# (reduce_best uses 34 registers: 6 blocks of 256 fit, 8 do not), with a grid-stride loop
# doing the rest.  Constants, not device queries, so the summation order is device-free.
REDUCE_GRID_CAP = 528
HIST_GRID_CAP = 528
SCAN_ITEMS = 16                 # floats per thread in scan_lookback (4 rows of float4)
SCAN_BLOCK: int | None = None   # threads per scan tile; None: the entry's block


# ============================================================================ reduction

def _inputs_reduce(n, rng):
    return {"x": rng.standard_normal(int(n), dtype=np.float32)}


def reduce_grid(n: int, block: int = B) -> int:
    return max(1, min(REDUCE_GRID_CAP, cdiv(n >> 2, block * 4)))


def _warp_tree(s: np.ndarray) -> np.ndarray:
    """__shfl_down_sync tree over the last axis (32 lanes); returns lane 0."""
    s = s.copy()
    for off in (16, 8, 4, 2, 1):
        hi = s[..., off:].copy()
        lo_own = s[..., 32 - off:].copy()
        s[..., :32 - off] = s[..., :32 - off] + hi
        s[..., 32 - off:] = lo_own + lo_own       # out of range: a lane gets its own value
    return s[..., 0]


def _block_reduce(thread_vals: np.ndarray, block: int) -> np.ndarray:
    """(blocks, block) per-thread values -> per-block sums, as reduce_best adds them."""
    nb = thread_vals.shape[0]
    nw = block // 32
    warp = _warp_tree(thread_vals.reshape(nb, nw, 32))        # (nb, nw)
    lanes = np.zeros((nb, 32), dtype=np.float32)
    lanes[:, :nw] = warp
    return _warp_tree(lanes)


def reduce_best_reference(x: np.ndarray, block: int = B, grid: int | None = None) -> np.float32:
    """reduce_best's result bit for bit: the same adds in the same order, in float32."""
    x = np.asarray(x, dtype=np.float32)
    n = len(x)
    grid = reduce_grid(n, block) if grid is None else grid
    t_all = grid * block
    n4 = n >> 2
    q4 = x[:n4 * 4].reshape(n4, 4)
    q = (q4[:, 0] + q4[:, 1]) + (q4[:, 2] + q4[:, 3])
    i = np.arange(t_all, dtype=np.int64)
    acc0 = np.zeros(t_all, np.float32)
    acc1 = np.zeros(t_all, np.float32)
    while True:                                   # four loads per iteration
        m = i + 3 * t_all < n4
        if not m.any():
            break
        im = i[m]
        acc0[m] = acc0[m] + q[im]
        acc1[m] = acc1[m] + q[im + t_all]
        acc0[m] = acc0[m] + q[im + 2 * t_all]
        acc1[m] = acc1[m] + q[im + 3 * t_all]
        i[m] += 4 * t_all
    while True:
        m = i < n4
        if not m.any():
            break
        acc0[m] = acc0[m] + q[i[m]]
        i[m] += t_all
    tail = n & 3
    if tail:
        acc1[:tail] = acc1[:tail] + x[n4 * 4:]
    partials = _block_reduce((acc0 + acc1).reshape(grid, block), block)
    # the last block: thread t adds partials t, t + block, ... starting from 0
    s = np.zeros(block, np.float32)
    for j0 in range(0, grid, block):
        chunk = partials[j0:j0 + block]
        s[:len(chunk)] = s[:len(chunk)] + chunk
    return _block_reduce(s.reshape(1, block), block)[0]


def _ref_reduce(inp):
    return {"sum": np.array([reduce_best_reference(inp["x"])], dtype=np.float32)}


def _drv_reduce(be, inp, e):
    n = len(inp["x"])
    grid = reduce_grid(n, e.block)
    x = be.to_device(inp["x"])
    partials = be.zeros(grid, np.float32)
    counter = be.zeros(1, np.uint32)
    out = be.zeros(1, np.float32)
    be.launch(SRC, "reduce_best", grid, e.block, [x, partials, counter, out, np.int32(n)])
    return {"sum": be.to_host(out)}


register(Entry(
    id="reduction/best", seed="extra", source=SRC, kernels=("reduce_best",),
    title="Grid-stride float4 reduction with warp shuffles, finished by the last block",
    explanation=(
        "One launch sums everything. A grid of at most 528 blocks walks the array with a "
        "grid-stride loop; each thread has four 16-byte loads in flight "
        "(((const float4*)in)[i]) before adding, so the memory system stays busy. Inside a "
        "warp the 32 sums meet through five __shfl_down_sync steps (no shared memory, no "
        "barriers); warp sums meet in shared memory. Each block writes its sum, makes it "
        "visible with __threadfence() and takes an atomic ticket: the block that draws the "
        "last ticket adds the block sums in a fixed order. The seed's tree reduction reads "
        "each float once too, but with one 4-byte load per thread, a barrier per level and a "
        "second launch per level. On an H100 this reaches the throughput of cupy.sum (CUB)."),
    default_n=70_001, block=B, make_inputs=_inputs_reduce, reference=_ref_reduce,
    driver=_drv_reduce,
    tags=("reduction", "best", "float", "vector-loads", "warp-shuffle", "grid-stride",
          "threadfence")))


# ================================================================================= scan

def _inputs_scan(n, rng):
    # positive values: the prefix sums grow, so a relative tolerance is meaningful
    return {"x": rng.random(int(n), dtype=np.float32)}


def _ref_scan(inp):
    return {"y": np.cumsum(inp["x"], dtype=np.float64).astype(np.float32)}


def scan_tiles(n: int, block: int = B) -> int:
    return cdiv(n, block * SCAN_ITEMS)


def _drv_scan(be, inp, e):
    n = len(inp["x"])
    block = SCAN_BLOCK or e.block
    tiles = max(1, scan_tiles(n, block))
    x = be.to_device(inp["x"])
    y = be.empty(n, np.float32)
    status = be.empty(tiles, np.uint64)
    counter = be.empty(1, np.int32)
    be.launch(SRC, "scan_init", cdiv(tiles, 256), 256, [status, counter, np.int32(tiles)])
    be.launch(SRC, "scan_lookback", tiles, block, [x, y, status, counter, np.int32(n)])
    return {"y": be.to_host(y)}


register(Entry(
    id="scan/decoupled-lookback", seed="extra", source=SRC,
    kernels=("scan_init", "scan_lookback"),
    title="Single-pass inclusive scan with decoupled look-back (float4, warp shuffles)",
    explanation=(
        "The seed's scans read and write the data several times (scan blocks, scan the block "
        "sums, add them back). This one reads each float once and writes it once. A tile is "
        "4096 floats: each warp scans 4 rows of 32 float4 with __shfl_up_sync, warps meet in "
        "shared memory. Tiles are numbered by an atomic ticket in the order blocks start. A "
        "tile publishes its own sum at once (flag 1), then warp 0 looks back at the 32 tiles "
        "before it together, spinning on a volatile flag until each has published, and adds "
        "their sums up to the nearest tile that already knows its inclusive prefix (flag 2). "
        "Then it publishes its own prefix (flag 2). Flag and value share one 64-bit status "
        "word per tile, written and read in one access, so a reader never sees a flag "
        "without its value. Which tiles had published what depends on timing, so the float "
        "result can differ in the last bits between runs: compared with a tolerance."),
    default_n=20_003, block=B, make_inputs=_inputs_scan, reference=_ref_scan,
    driver=_drv_scan, float_rtol=1e-5,
    tags=("scan", "best", "float", "vector-loads", "warp-shuffle", "decoupled-look-back",
          "volatile")))


# ============================================================================ histogram

def _inputs_hist(n, rng):
    return {"data": histogram_data(n, rng, "image", np.int32)}


def _ref_hist(inp):
    return {"hist": np.bincount(inp["data"], minlength=256).astype(np.int32)}


def hist_grid(n: int, block: int = B) -> int:
    return max(1, min(HIST_GRID_CAP, cdiv(n >> 2, block * 4)))


def _drv_hist(be, inp, e):
    n = len(inp["data"])
    data = be.to_device(inp["data"])
    hist = be.zeros(256, np.int32)
    be.launch(SRC, "histogram_best", hist_grid(n, e.block), e.block, [data, hist, np.int32(n)])
    return {"hist": be.to_host(hist)}


register(Entry(
    id="histogram/best", seed="extra", source=SRC, kernels=("histogram_best",),
    title="Privatized histogram with int4 loads and run-length merged shared atomics",
    explanation=(
        "Each block counts into its own 256 bins in shared memory and merges them with one "
        "global atomicAdd per non-empty bin. Threads read four values at a time "
        "(((const int4*)data)[i]) in a grid-stride loop with two loads in flight. Before "
        "touching shared memory a thread compares each value with the bin it is counting: "
        "equal values only bump a register, and the shared atomic is issued when the value "
        "changes. Uniform data costs one shared atomic per value, as plain privatization; "
        "skewed data (dark or saturated images, a constant image) costs far fewer, so the "
        "serialization of atomics on one hot bin disappears instead of getting worse."),
    default_n=10_003, block=B, make_inputs=_inputs_hist, reference=_ref_hist,
    driver=_drv_hist,
    tags=("histogram", "best", "atomics", "shared-memory", "privatization", "vector-loads",
          "grid-stride")))


# ================================================================================= SpMV

SPMV_TARGET_THREADS = 1 << 17   # enough threads to fill an H100; grow groups until then
SPMV_NNZ_PER_LANE = 4.0         # short rows: about this many non-zeros per lane
SPMV_LONG_NNZ_PER_LANE = 128.0  # long rows: 256 lanes for 32768 non-zeros
# spmv_csr_tiled (rows whose columns lie close together): x windows in shared memory
SPMV_TILE = True                # False: always spmv_csr_vector
SPMV_TILE_NNZ_PER_LANE = 4.0    # lanes per row: nearest power of two to mean / this
SPMV_TILE_NNZ = 16384           # about this many non-zeros per block (tile of rows) ...
SPMV_TILE_MIN_BLOCKS = 1056     # ... but fewer rows when that leaves < 8 blocks per SM
SPMV_XWIN = 8192                # at most this many floats of x per block (32 KiB)
SPMV_TILE_MIN_FIT = 0.5         # tile when blocks holding this share of nnz have windows
INT_MAX = 2**31 - 1


def _pow2_at_least(v: float) -> int:
    p = 1
    while p < v:
        p *= 2
    return p


@dataclass(frozen=True)
class SpmvLaunch:
    rows: np.ndarray      # the rows this launch computes, ascending
    group: int            # threads per row
    use_rows: bool        # False: slots are rows 0..count-1, rows longer than max_len skipped
    count: int            # slots
    max_len: int
    kernel: str = "spmv_csr_vector"
    tiles: np.ndarray | None = None   # spmv_csr_tiled: (lo, len) of x per block, int32
    rows_per_block: int = 0           # spmv_csr_tiled: rows per block
    shared: int = 0                   # spmv_csr_tiled: dynamic shared memory, bytes


def spmv_tiles(row_ptr: np.ndarray, col_idx: np.ndarray, skip: np.ndarray,
               rows_per_block: int, xwin: int | None = None) -> np.ndarray:
    """Per block of ``rows_per_block`` rows, the window (lo, len) of x its rows use (rows
    in ``skip`` and empty rows use none), as int32 pairs; len 0 where it is wider than
    ``xwin`` floats (default SPMV_XWIN; the block gathers from global memory)."""
    xwin = SPMV_XWIN if xwin is None else xwin
    ptr = np.asarray(row_ptr, dtype=np.int64)
    col = np.asarray(col_idx)
    lengths = np.diff(ptr)
    nrows = len(lengths)
    nblocks = -(-nrows // rows_per_block)
    rmin = np.full(nblocks * rows_per_block, INT_MAX, dtype=np.int64)
    rmax = np.full(nblocks * rows_per_block, -1, dtype=np.int64)
    used = (lengths > 0) & ~skip
    if used.any():
        nonempty = lengths > 0                      # reduceat needs strictly rising starts
        starts = ptr[:-1][nonempty]
        keep = used[nonempty]
        rmin[:nrows][used] = np.minimum.reduceat(col, starts)[keep]
        rmax[:nrows][used] = np.maximum.reduceat(col, starts)[keep]
    lo = rmin.reshape(nblocks, rows_per_block).min(axis=1)
    hi = rmax.reshape(nblocks, rows_per_block).max(axis=1)
    ln = hi - lo + 1
    fits = (hi >= lo) & (ln <= xwin)
    tiles = np.zeros((nblocks, 2), dtype=np.int32)
    tiles[fits, 0] = lo[fits]
    tiles[fits, 1] = ln[fits]
    return tiles.reshape(-1)


def _tiled_launch(ptr: np.ndarray, col_idx: np.ndarray, lengths: np.ndarray,
                  long_mask: np.ndarray, short: np.ndarray, max_len: int,
                  block: int = B) -> SpmvLaunch | None:
    """spmv_csr_tiled for the short rows, if most of their non-zeros get x windows."""
    m = max(1.0, float(lengths[short].mean()))
    g = int(min(32, max(2, 2 ** round(np.log2(max(1.0, m / SPMV_TILE_NNZ_PER_LANE))))))
    per_pass = block // g
    passes = max(1, int(round(SPMV_TILE_NNZ / (per_pass * m))))
    while passes > 1 and -(-len(lengths) // (per_pass * passes)) < SPMV_TILE_MIN_BLOCKS:
        passes //= 2
    rows_per_block = per_pass * passes
    tiles = spmv_tiles(ptr, col_idx, long_mask, rows_per_block)
    nnz_short = np.where(long_mask, 0, lengths)
    nrows = len(lengths)
    pad = np.zeros(len(tiles) // 2 * rows_per_block, dtype=np.int64)
    pad[:nrows] = nnz_short
    per_block = pad.reshape(-1, rows_per_block).sum(axis=1)
    total = per_block.sum()
    if total == 0 or per_block[tiles[1::2] > 0].sum() < SPMV_TILE_MIN_FIT * total:
        return None
    shared = 4 * max(1, int(tiles[1::2].max()))
    return SpmvLaunch(short, g, False, nrows, max_len, "spmv_csr_tiled", tiles,
                      rows_per_block, shared)


def spmv_plan(row_ptr: np.ndarray, col_idx: np.ndarray | None = None) -> list[SpmvLaunch]:
    """Split rows into launches, each with ``group`` threads per row (a power of two).

    Short rows: about SPMV_NNZ_PER_LANE non-zeros per thread (2..32 threads), all rows
    in order, skipping the long ones.  Rows much longer than the mean (16x, and over
    256) go to a second launch, as a list, with 32..1024 threads per row (about
    SPMV_LONG_NNZ_PER_LANE non-zeros each).  When few rows are left for many threads (all rows long), groups
    grow until the launch has SPMV_TARGET_THREADS threads.  Given ``col_idx`` too, the
    short rows go to spmv_csr_tiled instead when their columns lie close enough together
    (blocks holding SPMV_TILE_MIN_FIT of their non-zeros get x windows of at most
    SPMV_XWIN floats).  Depends only on the matrix.
    """
    lengths = np.diff(np.asarray(row_ptr, dtype=np.int64))
    nrows = len(lengths)
    if nrows == 0:
        return []
    rows = np.arange(nrows, dtype=np.int32)
    mean = max(1.0, float(lengths.mean()))
    threshold = int(max(256.0, 16.0 * mean))
    long_mask = lengths > threshold
    plan = []
    short = rows[~long_mask]
    if len(short):
        m = max(1.0, float(lengths[short].mean()))
        g = min(32, max(2, _pow2_at_least(m / SPMV_NNZ_PER_LANE)))
        while len(short) * g < SPMV_TARGET_THREADS and g < 1024 and 4 * g < m:
            g *= 2
        max_len = threshold if long_mask.any() else INT_MAX
        tiled = None
        if SPMV_TILE and col_idx is not None and len(col_idx):
            tiled = _tiled_launch(np.asarray(row_ptr, dtype=np.int64), col_idx, lengths,
                                  long_mask, short, max_len)
        plan.append(tiled or SpmvLaunch(short, g, False, nrows, max_len))
    long_rows = rows[long_mask]
    if len(long_rows):
        m = float(lengths[long_rows].mean())
        g = min(1024, max(32, _pow2_at_least(m / SPMV_LONG_NNZ_PER_LANE)))
        plan.append(SpmvLaunch(long_rows, g, True, len(long_rows), INT_MAX))
    return plan


def spmv_launch_dims(count: int, group: int, block: int = B) -> tuple[int, int]:
    blk = max(block, group)
    return cdiv(count * group, blk), blk


def spmv_vector_reference(inp) -> np.ndarray:
    """spmv_csr_vector's and spmv_csr_tiled's y bit for bit: per-lane strided sums,
    shuffle tree, warp sums (the tiled kernel adds in the vector kernel's order)."""
    ptr = np.asarray(inp["row_ptr"], dtype=np.int64)
    col, val, x = inp["col_idx"], inp["vals"], inp["x"]
    # sum += a * b is a fused multiply-add: the exact product, one rounding of the sum
    # (float64 holds a float32 product exactly; rounding the float64 sum to float32 can
    # differ from a true fmaf in about one case in 2^29, as in the emulator)
    prod = val.astype(np.float64) * x[col].astype(np.float64)
    y = np.zeros(len(ptr) - 1, dtype=np.float32)
    for launch in spmv_plan(ptr, col):
        rows, g = launch.rows, launch.group
        start, end = ptr[rows], ptr[rows + 1]
        lane = np.arange(g, dtype=np.int64)
        j = start[:, None] + lane[None, :]            # (rows, g)
        s = np.zeros(j.shape, dtype=np.float32)
        while True:
            m = j < end[:, None]
            if not m.any():
                break
            s[m] = (s[m].astype(np.float64) + prod[j[m]]).astype(np.float32)
            j = j + g
        w = min(g, 32)
        if w > 1:                                     # shuffle tree inside width-w segments
            nw = g // w
            s = s.reshape(len(rows), nw, w)
            off = w // 2
            while off:
                s[..., :w - off] = s[..., :w - off] + s[..., off:w].copy()
                off //= 2
            s = s[..., 0]                             # (rows, nw): the warp sums
        if g > 32:
            acc = np.zeros(len(rows), dtype=np.float32)
            for k in range(s.shape[1]):
                acc = acc + s[:, k]
            y[rows] = acc
        else:
            y[rows] = s.reshape(len(rows), -1)[:, 0]
    return y


def random_csr_mixed(rows: int, cols: int, rng: np.random.Generator,
                     mean_len: float = 6.0, long_frac: float = 1 / 64,
                     long_len: tuple[int, int] = (600, 1500)) -> dict[str, np.ndarray]:
    """CSR with mostly short rows (Poisson lengths) and a few very long ones.

    Columns are drawn with replacement (a duplicate column is a second term for the same
    x, which every SpMV adds up the same way); values and x uniform in [-1, 1).
    """
    lengths = rng.poisson(mean_len, rows).astype(np.int64)
    long_rows = rng.random(rows) < long_frac
    lengths[long_rows] = rng.integers(long_len[0], long_len[1], int(long_rows.sum()))
    ptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    nnz = int(ptr[-1])
    return {
        "row_ptr": ptr.astype(np.int32),
        "col_idx": rng.integers(0, cols, nnz, dtype=np.int32),
        "vals": (rng.random(nnz, dtype=np.float32) * 2 - 1).astype(np.float32),
        "x": (rng.random(cols, dtype=np.float32) * 2 - 1).astype(np.float32),
    }


def _inputs_spmv(n, rng):
    # long rows long enough for several warps per row (the shared-memory combine)
    return random_csr_mixed(int(n), int(n), rng, long_len=(4200, 7000))


def _ref_spmv(inp):
    return {"y": spmv_vector_reference(inp)}


def _drv_spmv(be, inp, e):
    ptr_h = inp["row_ptr"]
    nrows = len(ptr_h) - 1
    ptr = be.to_device(ptr_h)
    col = be.to_device(inp["col_idx"])
    val = be.to_device(inp["vals"])
    x = be.to_device(inp["x"])
    y = be.zeros(nrows, np.float32)
    for launch in spmv_plan(ptr_h, inp["col_idx"]):
        if launch.kernel == "spmv_csr_tiled":
            tiles = be.to_device(launch.tiles)
            be.launch(SRC, "spmv_csr_tiled", len(launch.tiles) // 2, e.block,
                      [tiles, np.int32(launch.rows_per_block), np.int32(nrows),
                       np.int32(launch.max_len), ptr, col, val, x, y, np.int32(launch.group)],
                      shared_mem=launch.shared)
            continue
        grid, blk = spmv_launch_dims(launch.count, launch.group, e.block)
        rows = be.to_device(launch.rows) if launch.use_rows else ptr   # unused: any array
        be.launch(SRC, "spmv_csr_vector", grid, blk,
                  [rows, np.int32(launch.use_rows), np.int32(launch.count),
                   np.int32(launch.max_len), ptr, col, val, x, y, np.int32(launch.group)])
    return {"y": be.to_host(y)}


register(Entry(
    id="spmv/csr-vector", seed="extra", source=SRC,
    kernels=("spmv_csr_vector", "spmv_csr_tiled"),
    title="CSR-vector SpMV: a warp (or a group of lanes sized to the rows) per row",
    explanation=(
        "The seed gives each row one thread: neighbouring lanes read far-apart parts of "
        "vals and col_idx, and a warp waits for its longest row. Here a group of lanes "
        "shares a row (a whole warp for rows of ~100 non-zeros and more, the classic CSR "
        "vector kernel), so consecutive lanes read consecutive non-zeros (coalesced), each "
        "with four products in flight, and the group adds its partial sums with "
        "__shfl_down_sync. The host looks at the row lengths once: short rows get 2..32 "
        "lanes, rows far longer than the rest go to a second launch with up to 1024 lanes "
        "(several warps, combined in shared memory), so one long row no longer holds up a "
        "warp of short ones. When the rows of each block of ~1024 rows use nearby columns "
        "(a banded matrix), spmv_csr_tiled copies that window of x into shared memory "
        "first and gathers from there, in the same order of additions. The order is "
        "fixed, so the emulator and the GPU agree to the bit."),
    default_n=600, block=B, make_inputs=_inputs_spmv, reference=_ref_spmv, driver=_drv_spmv,
    tags=("spmv", "best", "float", "warp-shuffle", "coalescing", "load-balance")))
