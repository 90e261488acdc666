"""Hardware counters, computed from what each warp instruction touched.

Named as Nsight Compute names them (DESIGN.md).  Everything is vectorized over the
warps of a step: addresses arrive as a ``(warps, 32)`` matrix with an activity mask.

Shared memory: 32 banks of 4-byte words.  A warp access costs, per phase (32 lanes for
4-byte accesses, 16 for 8-byte, 8 for 16-byte), the number of distinct words that fall
in its busiest bank (the same word is a broadcast).  Global memory: the distinct 32-byte
sectors the active lanes touch.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from . import constcache, racy, slicewin
from .arrivals import Arrivals
from .occupancy import SHARED_RESERVED_PER_BLOCK

from .spaces import GLOBAL_BASE

SHARED_LD = "smsp__inst_executed_op_shared_ld.sum"
SHARED_ST = "smsp__inst_executed_op_shared_st.sum"
WAVES_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
WAVES_ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
CONFL_LD = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
CONFL_ST = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
REQ_LD = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
REQ_ST = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
REQ_ATOM = "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"
REQ_RED = "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"
SECT_LD = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
SECT_ST = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
SECT_ATOM = "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum"
SECT_RED = "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"
INST = "smsp__inst_executed.sum"
THREAD_INST = "smsp__thread_inst_executed.sum"
RATIO = "smsp__thread_inst_executed_per_inst_executed.ratio"
SHARED_ATOM = "smsp__inst_executed_op_shared_atom.sum"
WAVES_ATOM = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"
# shared loads and stores issued by a warp whose lanes are all predicated off (an
# if-converted body): no bank is read, but the LSU pipe spends a wavefront on each.  Nsight's
# l1tex__data_pipe_lsu_wavefronts_mem_shared.sum counts them, its _op_ld / _op_st do not
# (docs/results/timing_investigation/pred/)
SHARED_PRED_OFF = "simt__shared_predicated_off.sum"
GLOBAL_ATOM_INST = "smsp__inst_executed_op_global_atom.sum"
GLOBAL_RED_INST = "smsp__inst_executed_op_global_red.sum"
BRANCH_DIVERGENT = "smsp__branch_targets_threads_divergent.sum"
# timing model only (no Nsight equivalent): cycles an expensive IR operation keeps its SM
# sub-partition busy beyond one issue slot (machine.OP_COST), and 128-byte lines that local
# stores with lane-divergent addresses write through to L2
ISSUE_EXTRA = "simt__issue_extra_cycles.sum"
LOCAL_STORE_LINES = "simt__local_store_lines.sum"
# an allocation whose marked DRAM units (64-byte chunks read, 32-byte sectors written) form
# at least this share of the runs that as many units placed at random would form is touched
# at random: a chunk here and there, not a tile's rows (Counters._extrapolated)
SCATTER_RUNS_SHARE = 0.6
CONST_LD = "simt__const_load_requests.sum"      # warp loads from __constant__ memory
CONST_REPLAYS = "simt__const_replays.sum"       # their extra passes: distinct addresses - 1
CONST_PASSES = "simt__const_ldc_passes.sum"     # the constant cache's passes for LDCs (timing)
CONST_MISS_CYCLES = "simt__const_miss_cycles.sum"   # ... and what their misses add (simt.constcache)
CONST_MISS_STREAMS = "simt__const_miss_streams.max"  # ... the tables such a loop reads a trip
CONST_SCATTER_CYCLES = "simt__const_scatter_miss_cycles.sum"  # ... one table's scattered misses
# the SASS instructions the executed IR stands for (simt.issue: register copies and loop
# markers are free, an unrolled loop's control counts once per 4 trips)
ISSUE_SLOTS = "simt__issue_slots.sum"
ALU_SLOTS = "simt__alu_pipe_slots.sum"   # of those, the integer ALU pipe's (simt.issue)
BIT_SLOTS = "simt__bit_pipe_slots.sum"   # POPC, FLO, BREV: the bit-counting pipe's (simt.issue)
FP64_SLOTS = "simt__fp64_pipe_slots.sum"  # DADD, DMUL, DFMA, DSETP: the FP64 pipe's (simt.issue)
IMAD_SLOTS = "simt__imad_pipe_slots.sum"  # 64-bit integer products' turns on the FMA pipe's heavy half (simt.issue)
# blocks of two warps: the busier warp's (0 or 1) share of the instructions; its warps
# run on two of the four sub-partitions
PAIR_SHARE = "simt__warp_pair_share.max"
SHFL_WAVES = "simt__shfl_pipe_waves.sum"  # SHFLs: L1 data pipe wavefronts beside shared's (simt.issue)
# warps' arrivals at a __syncthreads() (BAR.SYNC) and at a __syncthreads_count/_and/_or
# (BAR.RED, then B2R for the result): an SM's barrier unit takes them one after another
BAR_WARPS = "simt__barrier_warps.sum"
VOTE_WARPS = "simt__vote_barrier_warps.sum"
# registers per thread nvcc would give the kernel, estimated from the IR (simt.occupancy):
# with threads and shared memory, what limits the blocks an SM holds at once
REGS = "simt__registers_per_thread.max"

# L2's size (the H100's 50 MiB; the H200 has 60): a launch whose allocations exceed it
# reads its inputs from DRAM each time it is timed, a smaller one finds them in L2
# (which latency its first loads wait, machine.LAT)
L2_BYTES = 50 * 1024 * 1024
RETOUCH_BINS_PER_OCTAVE = 4   # re-touch distances: a bin per quarter octave of bytes ...
RETOUCH_BINS = 40 * RETOUCH_BINS_PER_OCTAVE                 # ... up to 2^40 a block
RETOUCH_QUANTILES = 8         # simt__l2_retouch_block_bytes.q0 .. q7
RETOUCH_BUCKET_SHIFT = 8      # the re-touch clock's buckets for counting distinct lines (64 lines)
RETOUCH_STEEPNESS = 5.8       # how sharply re-touches start to miss (simt.timing.retouch_miss)
# the most 128-byte lines a store request may touch for L1 to merge it with the warp's next
# (Counters._store_merge): 36-byte records (9-10 lines a request) merged after 48 sinf steps
# a thread, 48-byte ones (12-13) did not (timing_investigation/smerge/; they did after 256,
# wmerge3/)
MERGE_LINES = 10
L2_SLICES = 64          # Hopper's L2 is hashed over many slices ...
SLICE_SPAN = 512        # ... a slice per 512 bytes of a small region (ncu on the H100:
                        # one 128-byte line sits in one slice, 1 KiB of bins spreads over
                        # more; docs/results/timing_investigation/slices/)
HASH_SPAN = 16 << 10    # up to 16 KiB, where a region falls decides its slices (region_slices)
CONCENTRATION_SPAN = 64 << 10   # regions up to this size: where in them the atomics fall
CONCENTRATION_BLOCK_SPAN = 0.5  # ... counted when a block's atomics span this share of the region

METRICS = [SHARED_LD, SHARED_ST, WAVES_LD, WAVES_ST, CONFL_LD, CONFL_ST, REQ_LD, REQ_ST,
           REQ_ATOM, REQ_RED, SECT_LD, SECT_ST, SECT_ATOM, SECT_RED, RATIO]
LABELS = {
    SHARED_LD: "shared-memory load instructions (per warp)",
    SHARED_ST: "shared-memory store instructions (per warp)",
    WAVES_LD: "shared-load wavefronts (passes through the 32 banks)",
    WAVES_ST: "shared-store wavefronts",
    CONFL_LD: "shared-load bank conflicts (extra wavefronts)",
    CONFL_ST: "shared-store bank conflicts (extra wavefronts)",
    REQ_LD: "global load requests (per warp)",
    REQ_ST: "global store requests (per warp)",
    REQ_ATOM: "global atomics whose result is used",
    REQ_RED: "global atomics whose result is unused (reductions)",
    SECT_LD: "32-byte sectors loaded from global memory",
    SECT_ST: "32-byte sectors stored to global memory",
    SECT_ATOM: "32-byte sectors touched by global atomics",
    SECT_RED: "32-byte sectors touched by global reductions",
    RATIO: "average active lanes per warp instruction (SIMT efficiency x 32)",
    INST: "warp instructions executed",
    THREAD_INST: "thread instructions executed",
    CONST_LD: "__constant__ loads (per warp)",
    CONST_REPLAYS: "__constant__ load replays (lanes of a warp reading different words)",
    WAVES_ATOM: "shared-atomic wavefronts (lanes on one word merge; words sharing a bank do not)",
}


# a warp that exits before this share of its block's life frees its slot for another
# block (simt.timing.warp_slot_share); later ones are taken to hold it to the block's end
EARLY_EXIT = 0.25


def sorted_sectors(addr2d: np.ndarray, act2d: np.ndarray, size: int):
    """Per warp row: the sorted sector ids (inactive lanes repeat an active one) and a mask
    of the first occurrence of each distinct sector.  Accesses straddling two sectors
    contribute both."""
    first = addr2d // 32
    act = act2d
    if size > 1:
        last = (addr2d + size - 1) // 32
        if not np.array_equal(first[act2d], last[act2d]):
            first = np.concatenate([first, last], axis=1)
            act = np.concatenate([act2d, act2d], axis=1)
    big = np.iinfo(np.int64).max
    fill = np.where(act, first, big).min(axis=1, keepdims=True)
    k = np.sort(np.where(act, first, fill), axis=1)
    new = np.ones(k.shape, bool)
    new[:, 1:] = k[:, 1:] != k[:, :-1]
    new &= act.any(axis=1, keepdims=True)
    return k, new


def _l2_bound(s: np.ndarray, srow: np.ndarray | None, per_row: np.ndarray, mat: np.ndarray,
              miss: np.ndarray, size: int) -> np.ndarray:
    """Which of a load's distinct sectors ``s`` (row by row; ``srow`` each one's row, None
    when every row has ``per_row[0]`` in turn) some lane asked L2 for (``miss``: the lanes
    their previous trip's sector did not serve): only those can be L2 re-touches
    (``Counters._retouches``).  A lane walking its own row a word a trip finds the sector
    its last trip brought in L1 (``Counters._l1_missed_lines``); on the GPU those trips
    never reach L2, and counting them as re-touches a whole trip of the GPU's lanes apart
    sent them to DRAM (probe/chem-descriptors-csr: timing_investigation/l1retouch/)."""
    if srow is None:
        srow = np.repeat(np.arange(len(per_row)), len(s) // len(per_row))
    r, c = np.nonzero(miss)
    a = mat[r, c] - GLOBAL_BASE
    want = np.concatenate([(r.astype(np.int64) << 40) | (a >> 5),
                           (r.astype(np.int64) << 40) | ((a + size - 1) >> 5)])
    return np.isin((srow.astype(np.int64) << 40) | s, want)


def _line_starts(sectors: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Which sectors (sorted within each row) begin a new 128-byte line of their request."""
    line = sectors // 4
    new = np.ones(len(line), bool)
    new[1:] = (line[1:] != line[:-1]) | (rows[1:] != rows[:-1])
    return new


def region_slices(lo: int, hi: int, gpu_lo: int | None) -> int:
    """The L2 slices a region of addresses lo..hi spreads over.  Up to ``HASH_SPAN``, where
    it falls decides (``gpu_lo``: its first address's offset on the GPU, memory.POOL_UNIT):
    each kilobyte puts its lines 0, 1, 4, 5 in one slice and 2, 3, 6, 7 in another, and
    the next kilobyte in a new pair (timing_investigation/l2map/, H100), so 1 KiB of bins
    on a kilobyte boundary has two slices and the same 512 bytes on takes four
    (atomret/, unseen49/).  Larger regions, and those of unknown place, a slice per
    ``SLICE_SPAN`` bytes."""
    span = hi - lo + 1
    if gpu_lo is None or span > HASH_SPAN:
        return min(L2_SLICES, max(1, -(-span // SLICE_SPAN)))
    blocks = np.arange(gpu_lo >> 8, ((gpu_lo + span - 1) >> 8) + 1)     # 256-byte blocks
    return min(L2_SLICES, len(np.unique(_hashed_slice(blocks))))


def _hashed_slice(blocks: np.ndarray) -> np.ndarray:
    """A key for the L2 slice each 256-byte block on the GPU (its address >> 8) falls in:
    a kilobyte's lines 0, 1, 4, 5 (its blocks 0 and 2) go to one slice, 2, 3, 6, 7 to
    another, and the next kilobyte to a new pair (``region_slices``)."""
    return ((blocks >> 2) << 1) | (blocks & 1)


# The GPU's slices as an atomic region past HASH_SPAN meets them (H200, Nsight's per-slice
# reduction sectors: timing_investigation/fchain/, fchain2): 16 KiB of 256-byte blocks
# covers 32 of them (``_hashed_slice``), the next 16 KiB the same 32, and each 32 KiB chunk
# one of three such groups in turn. So evenly spread atomics put on the busiest slice 3
# times simt's even share (1 / ``L2_SLICES``) over 16-32 KiB, 1.5 times over 64-128 KiB,
# 1.125 times over 256-512 KiB and 1.03 times past 1 MiB; a few hundred hot lines
# scattered at random fall on them as balls in bins (256 lines: 2.3 times).
GPU_SLICE_GROUPS = 3
GPU_GROUP_SLICES = 32
GPU_SLICES = GPU_SLICE_GROUPS * GPU_GROUP_SLICES
UNEVEN_MAX_BYTES = 256 << 20    # allocations past this: within 1% of the even share
WINDOW_PENDING = 1 << 21         # (half-run, block) keys held before merging equal ones
UNEVEN_SHARED_SPAN = 0.5        # a block hot lines share: grid blocks this share of the sample apart hit it
CONCENTRATED = 2.0              # busiest_slice_share's measured rule wins from this many even shares
#                                 (an order book's 29: probe/orderbook-depth); below, sampling noise


def gpu_slice(blocks: np.ndarray) -> np.ndarray:
    """Which of ``GPU_SLICES`` slices each 256-byte block on the GPU (its address >> 8)
    falls in, past ``HASH_SPAN``: its 32 KiB chunk's group, in turn, and its place in the
    16 KiB pattern, turned by a hash of the chunk so that rows a power of two apart do not
    all meet on one slice (the GPU hashes the higher address bits too).  Limitations: that
    hash is made up, not measured, and where a region lies in physical memory moves its
    chunks among the groups (fchain's 32 KiB took 2.5 times the even share on one
    allocation and 3 times on another); simt places them by their offset in the pool."""
    chunk = blocks >> 7
    turn = (chunk * 0x9E3779B1) >> 16
    return chunk % GPU_SLICE_GROUPS * GPU_GROUP_SLICES + ((_hashed_slice(blocks) ^ turn) & (GPU_GROUP_SLICES - 1))


def _own_sector_extra(per_row: np.ndarray, lanes: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """Per store request, its sectors beyond the first of each line where its active lanes
    each write part of a sector of their own (lanes 32 bytes or more apart), else 0.  In a
    kernel its stores keep busy, L1 passes such a request's partial sectors on to L2 one by
    one, whether the warp's stores come back to back or a loop trip apart, and L2 takes
    each at about 0.6 of a line's time (``timing.PARTIAL_SECTOR_SHARE``;
    docs/results/timing_investigation/wmerge/, pstore/).  Where two lanes share a sector,
    L1 merges a warp's back-to-back stores into it, and the request is priced by its lines
    alone.  ``lanes``: each request's active lanes; ``lines``: its 128-byte lines."""
    return np.where(per_row == lanes, per_row - lines, 0)


def _trip_sector_extra(mat: np.ndarray, act: np.ndarray, size: int) -> int:
    """Partial sectors beyond the first of each line, summed over store requests whose
    lanes share sectors (fewer than 32 bytes apart) and that a warp makes a loop trip after
    its store at the same instruction.  L1 merges a warp's back-to-back stores into the
    sectors they share (``_own_sector_extra``), but not stores a trip apart: each partial
    sector reaches L2 on its own (docs/results/timing_investigation/wmerge/: 4-byte fields
    24 bytes apart, a trip apart, take 0.74 of the time of fields 32 bytes apart; unrolled,
    0.36).  A sector is partial where the request's lanes write fewer than 32 of its bytes."""
    sec = np.where(act, mat // 32, -1)
    sec.sort(axis=1)
    new = np.ones(sec.shape, bool)
    new[:, 1:] = sec[:, 1:] != sec[:, :-1]
    new &= sec >= 0
    rows, cols = np.nonzero(new)
    if not len(rows):
        return 0
    ends = np.append(cols[1:], sec.shape[1])
    ends[np.append(rows[1:] != rows[:-1], True)] = sec.shape[1]
    partial = (ends - cols) * size < 32
    s, r = sec[rows, cols][partial], rows[partial]
    if not len(s):
        return 0
    line_new = np.ones(len(s), bool)
    line_new[1:] = (s[1:] // 4 != s[:-1] // 4) | (r[1:] != r[:-1])
    return int(len(s) - line_new.sum())


def _lines(sectors: np.ndarray, rows: np.ndarray) -> int:
    """Distinct 128-byte lines per warp request (sectors sorted within each row): a
    request reaches L2 as one transaction per line it touches."""
    return int(_line_starts(sectors, rows).sum()) if len(sectors) else 0


GATHER_LINES = 4        # a load request touching more lines than this is a gather
L1_BLOCK_KEYS = 4096    # (block, trip) keys a load keeps for a block's later warps (L1 sharing)
# L1 residency: the lines a block loaded stay in its SM's L1 for its later loads, any load
# instruction, up to its share of the SM's L1 (l1_keep_lines; L1_KEEP_LINES, 64 KiB, where
# a launch does not say), L1_KEEP_WAYS-way sets, the least recently used line of a set
# going first; blocks share a table of rows (block modulo the rows: a later block that
# lands on a row finds another block's tags and misses), L1_KEEP_ROWS of them or as many
# as a lockstep batch runs blocks at once, up to L1_KEEP_ENTRIES lines in all (blocks of
# one batch sharing a row would evict each other's lines: marker-pose-horn-quat's 2,048
# sampled blocks of 64 threads, unseen187/notes.md)
L1_KEEP_LINES = 512
L1_KEEP_WAYS = 4
L1_KEEP_ROWS = 1024
L1_KEEP_ENTRIES = 1 << 21
# sm_90's SM has 256 KiB of L1 and shared memory; the driver sets one of these shared
# carveouts (KiB), the smallest that holds the resident blocks' shared memory and the KiB
# each reserves (occupancy.SHARED_RESERVED_PER_BLOCK), and L1 is the rest
L1_SHARED_BYTES = 256 * 1024
SHARED_CARVEOUTS_KIB = (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)


def l1_keep_lines(blocks_per_sm: int, shared_bytes: int) -> int:
    """The lines of L1 a block has to itself when ``blocks_per_sm`` blocks of
    ``shared_bytes`` of shared memory each share an SM: L1 (what the shared carveout
    leaves) split evenly, in whole sets.  spmv-jds's eight blocks an SM each gather
    from 42 KiB of x of their own; Nsight counts 30% of its load sectors as L1 hits,
    where a block keeping 64 KiB would hit on most (timing_investigation/jds/).
    Limitations: blocks that gather from one table (a small x) hold it once on the GPU,
    once each here."""
    bps = max(1, int(blocks_per_sm))
    need = bps * (int(shared_bytes) + SHARED_RESERVED_PER_BLOCK)
    carve = next((c * 1024 for c in SHARED_CARVEOUTS_KIB if c * 1024 >= need), SHARED_CARVEOUTS_KIB[-1] * 1024)
    lines = (L1_SHARED_BYTES - carve) // 128 // bps
    return max(L1_KEEP_WAYS, lines // L1_KEEP_WAYS * L1_KEEP_WAYS)


def block_spans(wlo: np.ndarray, whi: np.ndarray, wblk: np.ndarray, qlo: np.ndarray | None = None,
                qhi: np.ndarray | None = None) -> tuple | None:
    """How the addresses a launch's atomics hit move with the block index: (the bytes one
    block's atomics span, the median over blocks; how many more bytes each further block
    adds; the width blocks reach together less that drift).  From each warp's lowest
    address, highest + size and block, and (``qlo``, ``qhi``, ``warp_spans``) the same
    over the middle half of its lanes.
    - The slope is how far a block's middle (of the middle half of its lanes) moves from
      one block to the next, pooled over the runs of consecutive blocks emulated.  A run's
      span less the median block's would add the blocks' spread about it: nearly sorted
      keys, 16 bytes a block, read as 29 (timing_investigation/sortscatter/).
    - The width is the median over those runs of their span less the slope's drift, at
      least one block's span: random keys' blocks together reach the whole table (skewed
      keys: more than one block reaches, probe/orderbook-depth), sorted keys' one block's.
    Keys sorted by block (a sorted segment's maximum, COO rows) give a small span and a
    slope of a few bytes; random keys (a histogram's bins) the whole table and no slope.
    None: no atomics."""
    ok = whi >= 0
    if not ok.any():
        return None
    b, lo, hi = wblk[ok], wlo[ok], whi[ok]
    o = np.argsort(b, kind="stable")
    b, lo, hi = b[o], lo[o], hi[o]
    first = np.flatnonzero(np.r_[True, b[1:] != b[:-1]])
    blk = b[first]
    blo, bhi = np.minimum.reduceat(lo, first), np.maximum.reduceat(hi, first)
    if qlo is not None:
        mlo, mhi = np.minimum.reduceat(qlo[ok][o], first), np.maximum.reduceat(qhi[ok][o], first)
    else:
        mlo, mhi = blo, bhi
    own = float(np.median(bhi - blo))
    run = np.flatnonzero(np.r_[True, blk[1:] != blk[:-1] + 1])    # runs of consecutive blocks
    ends = np.r_[run[1:], len(blk)]
    long = ends - run > 1
    if not long.any():
        return own, 0.0, own
    mid = (mlo + mhi) / 2.0
    steps = (ends - run - 1)[long]
    slope = float(np.abs(mid[ends[long] - 1] - mid[run[long]]).sum() / steps.sum())
    span = (np.maximum.reduceat(bhi, run) - np.minimum.reduceat(blo, run))[long]
    return own, slope, max(own, float(np.median(span - slope * steps)))


def warp_spans(mat: np.ndarray, act: np.ndarray, size: int, srt: np.ndarray | None = None) -> tuple:
    """Per warp (row): its active lanes' lowest address and highest + ``size``, then the
    same over the middle half of its lanes (a quarter of them left off at each end): where
    the bulk of its atomics land.  A nearly sorted key's few lanes in the next row of a
    grid (probe/pic-sort-scatter-cells: a cell's counter 1 KiB away) move the first's
    middle about from block to block, not the second's (``block_spans``' slope).
    ``srt``: each row's addresses sorted with the inactive lanes first, as ``Runs.sorted``
    holds them (sorted here if not given)."""
    if srt is None:
        srt = np.sort(np.where(act, mat, -1 - np.arange(mat.shape[1])[None, :]), axis=1)
    big, n = np.iinfo(np.int64).max, srt.shape[1]
    c = act.sum(axis=1)
    rows = np.arange(len(c))
    any_ = c > 0
    first = np.minimum(n - c, n - 1)                # each row's lowest active lane
    lo, hi = np.where(any_, srt[rows, first], big), np.where(any_, srt[:, -1] + size, -1)
    qlo = np.where(any_, srt[rows, np.minimum(first + c // 4, n - 1)], big)
    qhi = np.where(any_, srt[rows, n - 1 - c // 4] + size, -1)
    return lo, hi, qlo, qhi


def _gather_lines(per: np.ndarray) -> int:
    """The lines of the requests that touch more than ``GATHER_LINES`` lines (``per``:
    each request's lines): what a gather sends to L2 (a coalesced request, however
    narrow its elements, touches one to four)."""
    return int(per[per > GATHER_LINES].sum())


L1_TAGS_PER_CYCLE = 4   # lines a gather's request L1 looks up a cycle (timing_investigation/l1gather/)


def l1_gather_waves(mat: np.ndarray, act: np.ndarray, size: int, lines: np.ndarray) -> int:
    """The cycles L1's data pipe takes for a gather's requests (one row each): the lines a
    request touches, four a cycle, or its bank conflicts (the most distinct words one of
    the 32 four-byte banks holds, as for shared memory: ``wavefronts``), whichever is more.
    On the H100 a request of 32 lines takes 32.2 cycles when its lanes share one bank and
    8.6 when they fall in 32 (or 2-4 a bank); 16 lines 16.1 and 4.8; one word a lane or a
    byte, hit or miss alike (l1gather/).  ``lines``: each request's lines."""
    waves, _ = wavefronts(mat, act, size, half16=False)
    return int(np.maximum(-(-lines // L1_TAGS_PER_CYCLE), waves).sum())


L1_SET_SPAN = 2048      # the set hash below repeats every 16 lines (2 KiB)


def l1_set(line):
    """L1 set of a 128-byte line (``byte address >> 7``), as far as Nsight's atomic sector
    counts on an H200 show it: lines whose indices differ by 5, 10 or 15 within one aligned
    group of 16 (2 KiB) share a set: the set bits are (l0^l2, l1^l3) plus the line bits
    above.  Works on ints and on numpy arrays."""
    return ((line >> 4) << 2) | ((line ^ (line >> 2)) & 3)


def set_shift(addr, starts):
    """Per address: how far its allocation start lies past a 2 KiB boundary.  The emulator
    packs allocations 256-byte aligned with guards between them, while the GPU runs measured
    here had them on 2 KiB boundaries; subtracting this before ``l1_set`` places every
    allocation as there."""
    if starts is None or not len(starts):
        return np.zeros(np.shape(addr), np.int64)
    i = np.searchsorted(starts, addr, side="right") - 1
    return np.where(i >= 0, starts[np.maximum(i, 0)] % L1_SET_SPAN, 0)


def _one_shift(addr: np.ndarray, starts):
    """``set_shift`` as one number when every address lies in one allocation, else None."""
    if starts is None or not len(starts):
        return 0
    i = np.searchsorted(starts, [addr.min(), addr.max()], side="right") - 1
    if i[0] != i[1]:
        return None
    return int(starts[i[0]] % L1_SET_SPAN) if i[0] >= 0 else 0


def l1_atomic_passes(addrs: list, size: int = 4, shifts: list | None = None) -> int:
    """Nsight's ``l1tex__t_sectors`` for one warp's global atomic (RED/ATOM), replayed as
    the L1 processes it in passes; ``addrs``: the active lanes' byte addresses in lane order
    (``shifts``: per lane, ``set_shift`` of its allocation).

    Measured on an H200 (docs/results/atomic_sectors_probe): each pass serves the pending
    lanes at once, and counts the distinct 32-byte sectors it serves.  A lane waits for a
    later pass when

    * an earlier pending lane has the same address (same-address lanes go one per pass), or
    * an earlier pending lane has a different address on the same bank (same word offset
      in its 128-byte line) in another line of the same L1 set (``l1_set``): then, per set,
      the line of the set's first pending lane (the lead line) keeps its other lanes and
      only the later lane of the pair waits if it is in the lead line, while every other
      line of the pair waits whole.

    With no such bank clash this is, per sector, the most lanes on one address.
    """
    unit = max(4, size)
    rem = list(zip(addrs, shifts if shifts is not None else [0] * len(addrs)))
    total = 0
    while rem:
        line = [a >> 7 for a, _ in rem]
        sid = [l1_set((a - sh) >> 7) for a, sh in rem]
        lead: dict = {}
        for s_, x in zip(sid, line):
            lead.setdefault(s_, x)
        wait = [False] * len(rem)
        seen: set = set()
        earlier: dict = {}                  # (set, bank) -> lines of the earlier lanes there
        bad_lines: set = set()
        for i, (a, _) in enumerate(rem):
            if a in seen:
                wait[i] = True
            seen.add(a)
            prev = earlier.setdefault((sid[i], (a & 127) // unit), [])
            clash = [x for x in prev if x != line[i]]
            if clash:
                ld = lead[sid[i]]
                bad_lines.update(x for x in clash if x != ld)
                if line[i] == ld:
                    wait[i] = True
                else:
                    bad_lines.add(line[i])
            prev.append(line[i])
        served = set()
        nxt = []
        for i, (a, sh) in enumerate(rem):
            if wait[i] or line[i] in bad_lines:
                nxt.append((a, sh))
            else:
                served.add(a >> 5)
        total += len(served)
        rem = nxt
    return total


_BIT = np.left_shift(np.uint32(1), np.arange(32, dtype=np.uint32))
_BELOW = _BIT - np.uint32(1)                            # per lane: the lanes before it
_Z = np.uint32(0)
_CHUNK = 4096                                           # warp rows per vectorized batch


def _pack(b: np.ndarray) -> np.ndarray:
    """(rows, 32) bool -> (rows,) uint32 lane mask."""
    return np.packbits(np.ascontiguousarray(b), axis=1, bitorder="little").view("<u4").ravel()


def _unpack(m: np.ndarray) -> np.ndarray:
    """(rows,) uint32 lane mask -> (rows, 32) bool."""
    m = np.ascontiguousarray(m, "<u4")
    return np.unpackbits(m.view(np.uint8).reshape(-1, 4), axis=1, bitorder="little").view(bool)


def _off(act: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Inactive lanes get distinct negative keys, so they match nothing."""
    return np.where(act, key, -1 - np.arange(32, dtype=np.int64))


def _sort_rows(key: np.ndarray):
    o = np.argsort(key, axis=1, kind="stable")
    return o, np.take_along_axis(key, o, axis=1)


def _same_key(o: np.ndarray, keys: list) -> list:
    """Rows sorted by ``o``; ``keys``: key arrays in that order, nondecreasing along each
    row.  For each, the (rows, 32) uint32 mask, per lane, of the lanes of its row with the
    same key (an OR over each run of equal keys, read back in lane order)."""
    nr = o.shape[0]
    bits = _BIT[o].ravel()
    inv = np.empty(o.shape, np.int64)
    np.put_along_axis(inv, o, np.broadcast_to(np.arange(32), o.shape), axis=1)
    inv += 32 * np.arange(nr)[:, None]
    out = []
    for ks in keys:
        new = np.empty(ks.shape, bool)
        new[:, 0] = True
        np.not_equal(ks[:, 1:], ks[:, :-1], out=new[:, 1:])
        fn = new.ravel()
        grp = np.bitwise_or.reduceat(bits, np.flatnonzero(fn))
        out.append(grp[(np.cumsum(fn) - 1)[inv]])
    return out


def _set_bank_sort(mat, act, size, shift):
    """Per row, the lanes sorted by (L1 set, bank, line) and those keys in that order.
    Lines of one set differ only in their low 4 bits, so ``key >> 4`` is (set, bank)."""
    a = mat - shift
    line = a >> 7
    key = (l1_set(line) * 32 + (a & 127) // max(4, size)) * 16 + (line & 15)
    return _sort_rows(key if act.all() else _off(act, key))


def _clash_rows(mat: np.ndarray, act: np.ndarray, size: int, shift):
    """``_set_bank_sort`` and the rows where two lanes in different lines of one L1 set
    share a bank: only these can deviate from the per-sector rule."""
    o, ks = _set_bank_sort(mat, act, size, shift)
    hit = ((ks[:, 1:] >> 4) == (ks[:, :-1] >> 4)) & (ks[:, 1:] != ks[:, :-1]) & (ks[:, :-1] >= 0)
    return o, ks, np.flatnonzero(hit.any(axis=1))


_TABLE_WORDS = 2048      # table masks for chunks whose addresses span up to 8 KiB
_SET_OF_WORD = l1_set(np.arange(_TABLE_WORDS) >> 5)    # per word of such a region: its set
_SB_OF_WORD = (_SET_OF_WORD << 5) | (np.arange(_TABLE_WORDS) & 31)     # and set and bank


class _TableMasks:
    """The lane masks the replay needs (same address, sector, line, L1 set,
    and set-and-bank) without sorting, for 4-byte atomics whose addresses, less the shift,
    span at most ``_TABLE_WORDS`` words (a histogram's bins).  A lane's bits are distinct
    powers of two, so the OR over the lanes sharing a key is their sum: one ``bincount``
    per key, computed for the rows asked, when asked.  Inactive lanes get only their own
    bit."""

    def __init__(self, mat: np.ndarray, act: np.ndarray, shift: int):
        a = mat - shift
        self.full = full = bool(act.all())
        lo = int(a.min() if full else a[act].min()) & ~(L1_SET_SPAN - 1)
        w = (a - lo) >> 2
        span = int(w.max() if full else w[act].max()) + 1
        self.ok = span <= _TABLE_WORDS
        if not self.ok:
            return
        self.groups = -(-span // (L1_SET_SPAN // 4))
        self.span = span
        self.act = act
        self.w = w if full else np.where(act, w, 0)

    def _mask(self, rows, kind: str) -> np.ndarray:
        w = self.w if rows is None else self.w[rows]
        act = self.act if rows is None else self.act[rows]
        nr = w.shape[0]
        sp, g = self.span, self.groups
        if kind == "off":       # word within the sector (with "sec": the address)
            key, n = w & 7, 8
        elif kind == "set":
            key, n = _SET_OF_WORD.take(w), 4 * g
        elif kind == "sb":
            key, n = _SB_OF_WORD.take(w), 128 * g
        else:
            sh = {"sec": 3, "line": 5}[kind]
            key, n = w >> sh, ((sp - 1) >> sh) + 1
        if self.full:
            wt = _BIT_W[:32 * nr]
        else:
            wt = np.where(act, _BIT_F, 0.0).ravel()
        k = (key + _ROW0[:nr] * n).ravel()
        m = np.bincount(k, weights=wt, minlength=nr * n).take(k).astype(np.uint32).reshape(w.shape)
        return m if self.full else np.where(act, m, np.broadcast_to(_BIT, w.shape))


_BIT_F = _BIT.astype(np.float64)
_ROW0 = np.arange(_CHUNK, dtype=np.int64)[:, None]     # row numbers of a chunk
_BIT_W = np.tile(_BIT_F, _CHUNK)                        # every lane's bit, full rows, flat


def _replay_rows(mat: np.ndarray, act: np.ndarray, size: int, shift, pre, masks):
    """The rows that may deviate from the per-sector rule, with the lane masks their replay
    needs: (rows, act, same address, same sector, same line, same set, clash), or None.
    ``masks``: (``_TableMasks``, its rows these are (None: all), their line and
    set-and-bank masks); else the masks come from sorts (``pre``: ``_set_bank_sort`` of
    these rows)."""
    tm = None
    if masks is not None:
        tm, trows, m_line, m_sb = masks
        m_sec = tm._mask(trows, "sec")
        m_addr = m_sec & tm._mask(trows, "off")       # same sector, same word in it
    else:
        # one sort by (set, address) groups lanes by address, sector, line and set at
        # once: within a set, an address is fixed by its offset in the 2 KiB group
        a = mat - shift
        key = l1_set(a >> 7) * L1_SET_SPAN + (a & (L1_SET_SPAN - 1))
        full = act.all()
        oa, ka = _sort_rows(key if full else _off(act, key))
        if full:
            ks3 = [ka, ka >> 5, ka >> 7]
        else:
            acts = np.take_along_axis(act, oa, axis=1)
            ks3 = [ka, _off(acts, ka >> 5), _off(acts, ka >> 7)]
        m_addr, m_sec, m_line = _same_key(oa, ks3)
        (m_sb,) = _same_key(pre[0], [pre[1] >> 4])
    m_clash = m_sb & ~m_line                                # same set and bank, other line
    # A lane x can only wait for a clash (the one way to split a sector beyond the rule)
    # while its line leads the set, i.e. behind an earlier lane of its own line, and only
    # matters if its sector holds another address: x needs a clashing y with
    # first(line(x)) < y < x.
    low = m_line & (~m_line + np.uint32(1))                 # first lane of each lane's line
    after_first = ~((low << np.uint32(1)) - np.uint32(1))
    can = ((m_clash & _BELOW & after_first) != _Z) & ((m_sec & ~m_addr) != _Z) & act
    rows = np.flatnonzero(can.any(axis=1))
    if not len(rows):
        return None
    act = act[rows]
    m_addr, m_sec, m_line, m_clash = m_addr[rows], m_sec[rows], m_line[rows], m_clash[rows]
    if tm is not None:
        m_set = tm._mask(rows if trows is None else trows[rows], "set")
    else:
        ks = ka[rows]
        (m_set,) = _same_key(oa[rows], [ks >> 11 if full else np.where(ks >= 0, ks >> 11, ks)])
    return rows, act, m_addr, m_sec, m_line, m_set, m_clash


def _replay(act, m_addr, m_sec, m_line, m_set, m_clash) -> np.ndarray:
    """The L1 passes of ``l1_atomic_passes`` on lane masks, for many rows at once: a pass
    costs a few operations on (rows, 32) arrays, and a row whose pending lanes no longer
    clash finishes by the per-sector rule."""
    m_addr0, m_sec0 = m_addr, m_sec
    res = np.zeros(len(act), np.int64)
    done_idx: list = []                                 # rows finished by the per-sector rule
    done_pend: list = []                                # and their pending lanes then
    pend = _pack(act)
    idx = np.arange(len(act))
    m_sec_b = m_sec & _BELOW                            # earlier lanes of the same sector
    m_clash_b = m_clash & _BELOW                        # earlier lanes that clash
    while len(idx):
        P = pend[:, None]
        on = _unpack(pend)
        in_pair = on & ((m_clash & P) != _Z)
        fin = _pack(in_pair) == _Z
        if 8 * np.count_nonzero(fin) >= len(idx):
            # no bank clash left among a row's pending lanes: the rest is the per-sector
            # rule, for all such rows at once after the loop
            done_idx.append(idx[fin])
            done_pend.append(pend[fin])
            k = ~fin
            idx, P, on, in_pair = idx[k], P[k], on[k], in_pair[k]
            m_addr, m_sec_b, m_line, m_set, m_clash, m_clash_b = (
                x[k] for x in (m_addr, m_sec_b, m_line, m_set, m_clash, m_clash_b))
            if not len(idx):
                break
        dup = (m_addr & P & _BELOW) != _Z                  # an earlier pending lane, same address
        later_of_pair = (m_clash_b & P) != _Z               # an earlier pending lane clashes
        first = m_set & P
        first &= ~first + np.uint32(1)                      # the set's first pending lane
        lead = (m_line & first) != _Z
        inv = _pack(in_pair & ~lead)[:, None]               # non-lead lanes of a clash
        wait = on & (dup | (later_of_pair & lead) | ((m_line & inv) != _Z))
        serve = on & ~wait
        served = _pack(serve)[:, None]
        res[idx] += _popcount(_pack(serve & ((m_sec_b & served) == _Z)))
        pend = _pack(wait)
        k = pend != _Z
        if not k.all():
            idx, pend = idx[k], pend[k]
            m_addr, m_sec_b, m_line, m_set, m_clash, m_clash_b = (
                x[k] for x in (m_addr, m_sec_b, m_line, m_set, m_clash, m_clash_b))
    if done_idx:
        r = np.concatenate(done_idx)
        res[r] += _sector_rule_masks(m_addr0[r], m_sec0[r], np.concatenate(done_pend))
    return res


def _popcount_lut(x: np.ndarray) -> np.ndarray:
    b = np.ascontiguousarray(x, np.uint32).view(np.uint8).reshape(*np.shape(x), 4)
    return _POP8[b].sum(axis=-1, dtype=np.int64)


_POP8 = np.array([bin(i).count("1") for i in range(256)], np.int64)
_popcount = getattr(np, "bitwise_count", None) or _popcount_lut     # numpy >= 2 has it


def _sector_rule_masks(m_addr: np.ndarray, m_sec: np.ndarray, pend: np.ndarray) -> np.ndarray:
    """``Runs.per_sector_max`` of the pending lanes ``pend`` (a lane mask per row), from the
    lane masks of the same address and the same sector.  Each address's first pending lane
    weighs ``64 ** c`` (``c``: pending lanes on the address) in its sector's sum, keyed by
    the sector's first pending lane; a sector holds at most 32 addresses, so the sum's
    binary exponent over 6 is the sector's largest ``c``."""
    nr = len(pend)
    P = pend[:, None]
    lead = _unpack(pend) & ((m_addr & P & _BELOW) == _Z)
    r, lane = np.nonzero(lead)
    pr = pend[r]
    c = _popcount(m_addr[r, lane] & pr).astype(np.int64)
    s = m_sec[r, lane] & pr
    s &= ~s + np.uint32(1)                                  # the sector's first pending lane
    key = r * 32 + (np.frexp(s.astype(np.float64))[1] - 1)
    tot = np.bincount(key, weights=np.ldexp(1.0, 6 * c), minlength=nr * 32)
    cmax = np.where(tot > 0, (np.frexp(tot)[1] - 1) // 6, 0)
    return cmax.reshape(nr, 32).sum(axis=1)


class Runs:
    """The active lanes of each warp row grouped by address: one sort serves every atomic
    counter (Nsight's sectors, serialization, the busiest addresses, sectors touched)."""

    def __init__(self, addr2d: np.ndarray, act2d: np.ndarray):
        self.nw = addr2d.shape[0]
        self.mat, self.act = addr2d, act2d      # lane order, for the L1 pass replay
        self._sg = None                         # _sector_groups, once asked
        self._sm = None                         # sector_max, once asked
        full = bool(act2d.all())
        if full:                            # no inactive lanes: no placeholder runs
            k = np.sort(addr2d, axis=1)
        else:
            k = np.where(act2d, addr2d, -1 - np.arange(32)[None, :])
            k.sort(axis=1)
        self.sorted = k                     # each row's addresses, ascending (active ones last)
        new = np.ones(k.shape, bool)
        np.not_equal(k[:, 1:], k[:, :-1], out=new[:, 1:])
        fn = new.ravel()
        starts = np.flatnonzero(fn)
        run_len = np.diff(starts, append=fn.size)
        run_addr = k.ravel()[starts]
        if full:
            self.len, self.addr, self.row = run_len, run_addr, starts >> 5
        else:
            valid = run_addr >= 0
            self.len = run_len[valid]
            self.addr = run_addr[valid]
            self.row = (starts >> 5)[valid]

    def steps(self) -> np.ndarray:
        """Per row: the most lanes on one address (the serialized steps)."""
        out = np.zeros(self.nw, np.int64)
        if len(self.len):
            first = np.ones(len(self.row), bool)
            first[1:] = self.row[1:] != self.row[:-1]
            st = np.flatnonzero(first)
            out[self.row[st]] = np.maximum.reduceat(self.len, st)
        return out

    def _sector_groups(self):
        """(each run's sector, the first run of each (row, sector)), computed once."""
        sg = self._sg
        if sg is None:
            sec = self.addr >> 5
            g = np.ones(len(sec), bool)
            np.not_equal(sec[1:], sec[:-1], out=g[1:])
            g[1:] |= self.row[1:] != self.row[:-1]
            sg = self._sg = sec, np.flatnonzero(g)
        return sg

    def sector_max(self):
        """(the first run of each (row, sector), its sector's address, the most of its
        lanes on one address of that sector), computed once."""
        sm = self._sm
        if sm is None:
            sec, st = self._sector_groups()
            per = np.maximum.reduceat(self.len, st) if len(st) else np.zeros(0, np.int64)
            sm = self._sm = st, sec[st] << 5, per
        return sm

    def per_sector_max(self) -> np.ndarray:
        """Per row: per sector touched, the most lanes on one address, summed."""
        if not len(self.len):
            return np.zeros(self.nw, np.int64)
        st, _, per = self.sector_max()
        return np.bincount(self.row[st], weights=per, minlength=self.nw).astype(np.int64)

    def atomic_sectors(self, size: int = 4, starts: np.ndarray | None = None) -> np.ndarray:
        """Per row, Nsight's sectors: per sector touched, the most lanes on one address,
        except in rows where two lines of one L1 set meet on one bank (see
        ``l1_atomic_passes``), which are replayed pass by pass.  ``starts``: the sorted
        allocation starts (``set_shift``)."""
        out = self.per_sector_max()
        if not len(self.len):
            return out
        shift = _one_shift(self.addr, starts)
        if shift is None:
            shift = set_shift(self.mat, starts)
        cands = []          # per chunk, the rows to replay and their masks
        for lo in range(0, self.nw, _CHUNK):     # chunks keep the temporaries in cache
            hi = min(self.nw, lo + _CHUNK)
            sh = shift if np.ndim(shift) == 0 else shift[lo:hi]
            tm = _TableMasks(self.mat[lo:hi], self.act[lo:hi], sh) \
                if size == 4 and np.ndim(sh) == 0 else None
            if tm is not None and tm.ok:        # a small region (bins): masks by table
                act = self.act[lo:hi]
                m_line, m_sb = tm._mask(None, "line"), tm._mask(None, "sb")
                rows = np.flatnonzero((act & ((m_sb & ~m_line) != _Z)).any(axis=1))
                if 2 * len(rows) > hi - lo:     # most rows: cheaper than picking them
                    rows = np.arange(hi - lo)
                    c = _replay_rows(self.mat[lo:hi], act, size, sh, None,
                                     (tm, None, m_line, m_sb))
                else:
                    c = _replay_rows(self.mat[lo + rows], act[rows], size, sh, None,
                                     (tm, rows, m_line[rows], m_sb[rows])) if len(rows) else None
            else:
                o, ks, rows = _clash_rows(self.mat[lo:hi], self.act[lo:hi], size, sh)
                r = rows + lo
                c = _replay_rows(self.mat[r], self.act[r], size,
                                 sh if np.ndim(sh) == 0 else sh[rows],
                                 (o[rows], ks[rows]), None) if len(rows) else None
            if c is not None:
                cands.append((rows[c[0]] + lo,) + c[1:])
        if cands:           # one replay for the whole launch: fewer, longer passes
            r = np.concatenate([c[0] for c in cands])
            out[r] = _replay(*(np.concatenate([c[k] for c in cands]) for k in range(1, 7)))
        return out

    def sectors(self):
        """(distinct sector ids, their rows) in row-major order."""
        if not len(self.len):
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        sec, st = self._sector_groups()
        return sec[st], self.row[st]


_LANES = np.arange(32)


def _contiguous(flat: np.ndarray, size: int) -> bool:
    """Whether the addresses step by ``size`` all along (then every warp row does too);
    a 1-D difference is a few times cheaper than one along the rows."""
    n = len(flat)
    return int(flat[-1]) - int(flat[0]) == (n - 1) * size and \
        bool((np.subtract(flat[1:], flat[:-1]) == size).all())


def _longest_ones(x: np.ndarray) -> np.ndarray:
    """Per uint32 element, the length of its longest run of set bits (at most 31: bit 31
    clear).  Binary lifting: p[k] marks where a run of 2**k set bits starts."""
    p = [x]
    for k in range(4):
        q = p[-1]
        p.append(q & (q >> np.uint32(1 << k)))
    n = np.zeros(len(x), np.uint32)                 # the longest run found so far
    cur = np.full(len(x), 0xFFFFFFFF, np.uint32)    # where a run of n set bits starts
    for k in range(4, -1, -1):
        cand = cur & (p[k] >> n)                    # where a run of n + 2**k starts
        ok = cand != 0
        cur = np.where(ok, cand, cur)
        n += ok.astype(np.uint32) << np.uint32(k)
    return n


def lanes_per_address(addr2d: np.ndarray, act2d: np.ndarray, full: bool = False):
    """Per warp row, the most active lanes on one address (0 for a row with none), and the
    number of distinct (row, address) pairs: what ``Runs`` gives as ``steps()`` and
    ``len(len)``, from one sort and no run table.  Addresses must be >= 0; ``full``: every
    lane is active."""
    nw = addr2d.shape[0]
    if full:
        k = np.sort(addr2d, axis=1)
        n_off = 0
    else:
        k = np.where(act2d, addr2d, -1 - _LANES[None, :])   # inactive: distinct, < 0
        k.sort(axis=1)
        n_off = act2d.size - int(np.count_nonzero(act2d))
    # bit j of row r: lanes j and j+1 (sorted) on one address; a run of m set bits is
    # m + 1 lanes on one address
    eq = np.zeros((nw, 32), bool)
    np.equal(k[:, 1:], k[:, :-1], out=eq[:, :31])
    n_addr = k.size - int(np.count_nonzero(eq)) - n_off
    bits = np.packbits(eq, axis=1, bitorder="little").view(np.uint32).ravel()
    steps = _longest_ones(bits).astype(np.int64) + 1
    if not full:
        steps *= act2d.any(axis=1)
    return steps, n_addr


# nvcc's loop for a float atomicAdd on shared memory (sm_90 has no floating-point add among
# its shared atomics): SASS instructions a pass (LDS, FADD, ATOMS.CAST.SPIN, ISETP, BRA and
# one more; 6.0 a pass in spin/'s sweep, ncu) and around the loop (BSSY, BSYNC), and the
# CAS's wavefronts a pass (2, whatever the lanes: ncu, spin/)
SPIN_PASS_INST = 6
SPIN_LOOP_INST = 2
SPIN_CAS_WAVES = 2


def spin_atomic(ins) -> bool:
    """Whether an atomic is a floating-point add or subtract, or a 64-bit integer one: on
    shared memory nvcc makes it a compare-and-swap loop (``spin_passes``; sm_90's SASS for
    ``atomicAdd`` on a ``__shared__ unsigned long long`` is ``LDS.64; IADD; ATOMS.CAST.SPIN.64``,
    timing_investigation/unseen64/).  Decided once and kept on the instruction (the
    machine asks at every step of every atomic)."""
    got = getattr(ins, "_simt_spin", None)
    if got is None:
        dt = np.dtype(ins.ctype.dtype)
        got = ins._simt_spin = ins.sub in ("add", "sub") and (dt.kind == "f" or dt.itemsize == 8)
    return got


# a float or double add on one L2 word takes this many integer adds' time (the profiles'
# gatom_same_per_us / gatom_same_fp_per_us: 2.40 on the H100 and the H200, fatom/): the
# busiest chain is the one that takes longest, not the one with the most lanes
FP_CHAIN_COST = 2.4
# warps of a block that contend for a shared word at once in a CAS loop whose word changes
# from trip to trip (spin_passes)
DRIFT_WARPS = 2


def spin_passes(off2d: np.ndarray, act2d: np.ndarray, size: int,
                blocks: np.ndarray | None = None, steady: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per warp row, the passes of a shared-memory CAS loop (``ATOMS.CAST.SPIN``) and the
    wavefronts of its ``LDS`` of the words, summed over the passes.

    A pass succeeds for one lane of each bank (of each bank pair and half-warp for 8-byte
    words), lanes on the same word included; the others go round again.  So a warp makes as
    many passes as its busiest bank has lanes, and pass j's load is an ordinary ``LDS`` of
    the lanes left (``wavefronts``: distinct words in the busiest bank; taken here as the
    lanes after the first j of each bank, in lane order).  Nsight Compute on the H200
    (docs/results/timing_investigation/spin/, one warp a block): passes, loads and load
    wavefronts as this rule says for all eleven lane patterns, and two CAS wavefronts a
    pass (``SPIN_CAS_WAVES``).

    ``blocks`` (each row's block): a pass also fails when another warp of the block wrote
    the word in between.  A row's L lanes on a word that W of the block's warps hit
    together take L x (W + 1) / 2 passes (the warps succeed one after another), and the
    row makes the larger of that, over its words, and its banks' passes; each further pass
    loads the word alone (a broadcast LDS wavefront).  spin/ (8 warps a block on the H200,
    every warp on the same words): 3.77 passes a warp where each lane has its own word (4.5
    here), 142 with all 32 lanes on one (144), 3.70 for 32 lanes on random words of 1024
    (4.5); 4 words in each bank lose the most, 7.7 passes where this gives 4.5.
    unseen64/'s 64-bit group sums, a quarter of the lanes on one word: 33 passes, 36 here.

    ``steady`` (per row): the warp's lanes are spread over several words, or its previous
    visit of this atomic was on the same word, or this is its first.  Warps whose lanes
    share a word that changes each trip drift apart into a pipeline, and a warp finds
    about one other on its word (W = ``DRIFT_WARPS`` at most): `qc-marginals-smem-atomic`
    (a word a qubit, 24 in turn) and `zonal-ndvi-smem-atomics` (a district a trip) load
    1.7-1.8 times the words a warp alone would in Nsight's count, where the warps of the
    block together would make it 4.5 (timing_investigation/spin2/)."""
    nw = off2d.shape[0]
    if size >= 8:
        key = ((np.arange(32) // 16) * 16)[None, :] + ((off2d >> 3) & 15)
    else:
        key = (off2d >> 2) & 31
    hit = (key[:, :, None] == np.arange(32)) & act2d[:, :, None]          # row, lane, key
    rank = ((np.cumsum(hit, axis=1) - 1) * hit).sum(axis=2)                # among its key's lanes
    k = np.where(act2d, rank + 1, 0).max(axis=1) if nw else np.zeros(0, np.int64)
    waves = np.zeros(nw, np.int64)
    for j in range(int(k.max()) if nw else 0):
        left = act2d & (rank >= j)
        w, _ = wavefronts(off2d, left, size)
        waves += np.where(left.any(axis=1), w, 0)
    k = k.astype(np.float64)
    if blocks is not None and nw > 1:
        extra = np.maximum(_cross_warp_passes(off2d, act2d, size, blocks, steady) - k, 0.0)
        k += extra
        waves = waves + extra
    return k, waves


def _cross_warp_passes(off2d: np.ndarray, act2d: np.ndarray, size: int, blocks: np.ndarray,
                       steady: np.ndarray | None = None) -> np.ndarray:
    """Per row, the passes its words take with other warps of its block on them
    (``spin_passes``): the most, over its words, of its lanes on the word x (warps of the
    block on it, at most ``DRIFT_WARPS`` where the row is not ``steady``, + 1) / 2."""
    r, c = np.nonzero(act2d)
    if not len(r):
        return np.zeros(off2d.shape[0])
    word = (off2d[r, c] // size).astype(np.int64)         # < 2^18: a block's shared memory
    # lanes of each (row, word), then warps of each (block, word)
    rw, lanes = np.unique((r.astype(np.int64) << 18) | word, return_counts=True)
    row = rw >> 18
    blk = np.asarray(blocks).astype(np.int64)[row]
    _, inv, warps = np.unique((blk << 18) | (rw & ((1 << 18) - 1)), return_inverse=True,
                              return_counts=True)
    w = warps[inv.reshape(-1)]
    if steady is not None:
        w = np.where(np.asarray(steady)[row], w, np.minimum(w, DRIFT_WARPS))
    lost = lanes * (w + 1) / 2.0
    out = np.zeros(off2d.shape[0])
    np.maximum.at(out, row, lost)
    return out


LATTICE_MIN_STRIDE = 64      # bytes between lanes: each lane its own 64-byte DRAM chunk
LATTICE_SHARE = 0.9          # of an allocation's gather rows, for it to count as a lattice walk


def wavefronts(off2d: np.ndarray, act2d: np.ndarray, size: int, half16: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Shared-memory wavefronts and the ideal count per warp row.

    The banks serve a phase of the warp at a time: all 32 lanes for 4-byte words, a
    half-warp for 8 bytes, and a half-warp for 16 bytes too (each lane's four words: a
    phase of 64 words, two a bank at best). A phase takes as many wavefronts as the most
    distinct words one bank holds, one at least. ncu counts 2 wavefronts for an
    ``LDS.128`` whose lanes all read one address and 2 for one whose half-warps read one
    address each in the same banks, 4 for 16 lanes' 16-byte words twice over
    (``probe/flash-attn-rows``, ``probe/matmul-rect`` and ``probe/sgemm-reg4x4``,
    docs/results/timing_investigation/unseen31/, unseen45/, unseen18/): not the 4 of a
    quarter-warp a phase. ``half16`` False keeps the quarter-warp for L1's data banks
    (``l1_gather_waves``: global gathers, measured with 4-byte words only)."""
    nw = off2d.shape[0]
    words_per_lane = max(1, size // 4)
    lanes_per_phase = 16 if words_per_lane >= 4 and half16 else 32 // words_per_lane
    width = lanes_per_phase * words_per_lane           # words a phase
    w0 = off2d >> 2
    if words_per_lane > 1:
        words = (w0[:, :, None] + np.arange(words_per_lane)).reshape(nw, 32 * words_per_lane)
        act = np.repeat(act2d, words_per_lane, axis=1)
    else:
        words, act = w0, act2d
    phases = 32 // lanes_per_phase
    words = words.reshape(nw * phases, width)
    act = act.reshape(nw * phases, width)
    if nw and width == 32 and act2d.all():
        # every phase on 32 consecutive words (32 banks) or on one word (a broadcast)
        w1 = words[:, :1]
        if np.array_equal(words, w1 + _LANES) or np.array_equal(words, np.broadcast_to(w1, words.shape)):
            return np.full(nw, phases, np.int64), np.full(nw, phases, np.int64)
    bank = words & 31
    key = bank * (1 << 40) + words
    big = np.iinfo(np.int64).max
    fill = np.where(act, key, big).min(axis=1, keepdims=True)
    fill[fill == big] = 0             # a phase with no active lane (a wide access's upper
                                      # half-warp): any bank, has masks it below
    k = np.sort(np.where(act, key, fill), axis=1)
    new = np.ones(k.shape, bool)
    new[:, 1:] = k[:, 1:] != k[:, :-1]
    rows = np.repeat(np.arange(k.shape[0]), width)
    b = (k >> 40).ravel()
    per_bank = np.bincount(rows * 32 + b, weights=new.ravel(), minlength=k.shape[0] * 32)
    per_row = per_bank.reshape(-1, 32).max(axis=1)
    has = act.any(axis=1)
    per_row = np.where(has, np.maximum(per_row, 1), 0).astype(np.int64)
    waves = per_row.reshape(nw, phases).sum(axis=1)
    # the ideal: a phase's distinct words over the 32 banks (a 16-byte phase of 16 lanes
    # on 64 distinct words needs 2; a phase of 32 words, one)
    ideal_rows = np.where(has, np.maximum(1, -(-new.sum(axis=1) // 32)), 0)
    ideal = ideal_rows.reshape(nw, phases).sum(axis=1)
    return waves, ideal


def retouch_miss_p(d, l2_retouch_bytes: float):
    """The chance a re-touch misses L2 after the GPU touched ``d`` bytes in between:
    1 / (1 + (C / d)^k), C a profile's ``l2_retouch_bytes``, k RETOUCH_STEEPNESS
    (timing_investigation/retouch/)."""
    return 1.0 / (1.0 + (l2_retouch_bytes / d) ** RETOUCH_STEEPNESS)


class Counters:
    """Per-launch totals, per source line and per warp."""

    def __init__(self, n_code: int, n_warps_total: int, lines: list[int]):
        self.total: dict[str, float] = defaultdict(float)
        self.per_pc: list[dict] = [defaultdict(float) for _ in range(n_code)]
        self.pc_lines = lines
        self.warp_inst = np.zeros(n_warps_total, np.int64)
        self.warp_thread_inst = np.zeros(n_warps_total, np.int64)
        self.warp_extra: dict[str, np.ndarray] = {}
        self.finish = np.zeros(n_warps_total, np.float64)   # critical-path cycles per warp
        self.wpb = 1
        self.atomics: list[dict] = []       # per warp atomic summary (capped)
        self.hot: dict[int, int] = defaultdict(int)         # global atomic chain lanes per sector
        self.hot_span: dict[int, list] = {}                 # [first, last] block hitting each sector
        self.hot_fp: dict[int, int] = defaultdict(int)      # ... those of float or double adds
        self.run_blocks = 1
        self.lockstep_threads = 0                           # threads of the largest batch
        self.shared_hot_max = 0.0                           # most atomic lanes on one shared word of a block
        self.slot_weights: np.ndarray | None = None         # simt.issue.issue_weights, per pc
        self.alu_weights: np.ndarray | None = None          # simt.issue.alu_pipe_weights, per pc
        self.bit_weights: np.ndarray | None = None          # simt.issue.bit_pipe_weights, per pc
        self.fp64_weights: np.ndarray | None = None         # simt.issue.fp64_pipe_weights, per pc
        self.imad_weights: np.ndarray | None = None         # simt.issue.imad_pipe_weights, per pc
        self.shfl_weights: np.ndarray | None = None         # simt.issue.shfl_pipe_weights, per pc
        self.touched: np.ndarray | None = None              # global sectors read (DRAM footprint)
        self.alloc_sectors: list = []                        # per allocation: (first, end) sector
        self.alloc_first = np.zeros(1, np.int64)             # ... their first sectors, ascending
        self.alloc_gpu: list = []                            # ... (start, offset on the GPU or None)
        self.lattice: dict[int, list] = {}                   # allocation -> [gather rows, of them
        #                                                      lanes a constant stride apart, the stride]
        self.written: np.ndarray | None = None              # global sectors written back
        self.regions: dict[int, list] = {}                  # allocation -> [L2 transactions, lo, hi, replays,
        #                                                     of them atomicCAS transactions, CAS replays]
        self.atom_spans: dict[int, tuple] = {}              # allocation -> per warp: lowest address its
        #                                                     atomics hit, highest + size, its block
        self.blocks256: dict[int, np.ndarray] = {}          # allocation -> atomic transactions per
        #                                                     256-byte block of its first 64 KiB
        self.slices96: dict[int, list] = {}                 # allocation -> per 256-byte block: atomic
        #                                                     transactions, lowest and highest grid block
        #                                                     to hit it; the grid blocks seen (uneven_share)
        self.win_parts: dict[int, list] = {}                # allocation -> [keys (half-run, 256-byte
        #                                                     block), their transactions, pending] (window_share)
        self.sample_ids: np.ndarray | None = None           # a sampled grid's block ids by rank
        self.window_blocks = 0.0                            # grid blocks on the GPU at once (slicewin)
        self.racy: dict[int, list] = {}                     # allocation -> [plain store sectors counted
        #                                                     here, their sends, (arrival group, shared
        #                                                     sector) pairs, warp stores] (simt.racy)
        self.arrival: np.ndarray | None = None              # per warp: its arrival group (simt.racy)
        self.stream_seen: dict[int, np.ndarray] = {}        # load pc -> warps that made it once
        self.arrivals: dict[int, tuple] = {}                # allocation -> when its transactions were
        #                                                     issued: (all, all but plain stores)
        self.l2_lines: dict[str, int] = defaultdict(int)    # kind -> 128-byte lines per request, summed
        self.last_st_pc: np.ndarray | None = None           # per warp: the pc of its last global store
        self.unrolled_stores: frozenset = frozenset()       # store pcs in loops nvcc unrolls fully
        self.st_group: np.ndarray | None = None             # per warp: its last store request's lines
        self.st_group_extra: np.ndarray | None = None       # ... its partial sectors, if no merge took them
        self.st_group_pc: np.ndarray | None = None          # ... its pc (-1: too many lines to merge)
        self.kept_loop: dict = {}                           # pc -> innermost loop nvcc keeps
        self.const_span: dict = {}                          # LDC pc -> (lowest, highest) address
        self.const_first: dict = {}                         # ... the first warp to read there
        self.const_reads: dict = {}                         # ... (warp, word) of the first warps' reads
        self.const_lines: dict = {}                         # ... (64 KiB origin, passes per 64-byte line)
        self.const_follow: dict = {}                        # ... per tracked read: on a line its run read
        self.l1_lines = 0                                   # ... of loads, L1 hits included
        self.l1_waves = 0                                   # ... and the cycles L1 takes for them
        self.l1_prev: dict[int, tuple] = {}                 # load pc -> (each lane's last sector there, warps seen)
        self.l1_lane_miss: np.ndarray | None = None        # the last _l1_missed_lines call: the lanes no
                                                            # previous trip's sector served (None: all)
        self.l1_trip: dict[int, np.ndarray] = {}            # load pc -> each warp's trips through it
        self.l1_block: dict[int, dict] = {}                 # load pc -> (block, trip) -> [warps, lines]
        self.l1_keep: tuple | None = None                   # per block row: l1_keep_lines line tags, their
        #                                                     last use and the sectors they hold
        self.l1_keep_lines = L1_KEEP_LINES                  # ... a block's share of its SM's L1
        self.l1_keep_rows = L1_KEEP_ROWS
        self.n_warps_total = n_warps_total
        self.sector_reqs: np.ndarray | None = None          # warp requests per global sector
        self.first_read: np.ndarray | None = None           # per global sector, the load (dram_key)
        #                                                     that first read it (-1: none; -2: written)
        self.first_wave: np.ndarray | None = None           # ... and the earliest GPU wave to ask for it
        self.rank_wave: np.ndarray | None = None            # per emulated block (rank), its wave
        self.resident_share: np.ndarray | None = None       # per allocation, the share L2 keeps
        self.fresh_rows: np.ndarray | None = None           # last load: rows that wait on DRAM
        self.sector_bmin: np.ndarray | None = None          # first / last block requesting it
        self.sector_bmax: np.ndarray | None = None
        self.divergence: dict[int, list[int]] = defaultdict(lambda: [0, 0])   # pc -> [executions, splits]
        # re-touch distances (a launch larger than L2): when each global sector was last
        # touched, on a clock of the sectors the batch has touched; per allocation, how
        # many loads and atomics touched a sector again within the batch, binned by the
        # bytes each block touched in between (RETOUCH_BINS_PER_OCTAVE bins per octave)
        self.last_touch: np.ndarray | None = None
        self.clock = 0
        self.batch_clock0 = 0
        self.batch_blocks = 1
        self.retouch: np.ndarray | None = None              # (allocations, RETOUCH_BINS)
        self.retouch_sum: np.ndarray | None = None          # ... and their distances, summed
        self.retouch_scat: np.ndarray | None = None         # ... those of lone chunks, per allocation
        self.retouch_rmw: np.ndarray | None = None          # ... sectors atomics re-touched, per allocation
        self.line_touch: np.ndarray | None = None           # per 128-byte line, its last touch (clock)
        self.line_buckets: np.ndarray | None = None         # lines last touched in each clock bucket
        self.retouch_bytes = 0.0        # a profile's l2_retouch_bytes and the resident blocks
        self.retouch_resident = 0       # it gives: which re-touches wait on DRAM (0: none)

    def begin_batch(self, nblocks: int) -> None:
        """A new batch of resident blocks: re-touch distances count from here."""
        self.batch_clock0 = self.clock
        self.batch_blocks = max(1, nblocks)
        if self.line_buckets is not None:
            self.line_buckets[:] = 0

    def _retouches(self, s: np.ndarray, kind: str) -> np.ndarray | None:
        """Loads and atomics that touch a sector again within the batch: record the bytes
        each block of the batch touched in between (the distinct 128-byte lines the batch
        touched since, over its blocks; ``timing.retouch_miss`` turns it into GPU-wide
        bytes with the resident blocks).  Every access moves its sectors' and lines'
        stamps to now, and the clock on by four a line.  Returns which of ``s`` wait on
        DRAM: with ``retouch_bytes`` set, a re-touch misses with the probability
        ``timing.retouch_miss`` gives its distance (drawn from a hash of the sector, so
        runs repeat).  Limitations: warps of a batch
        run in the emulator's order, a sector's several requests by one instruction count
        once each, re-touches in another batch are not counted (blocks of another wave,
        which L2 serves as it served the rest of the launch), and which re-touches wait on
        DRAM follows the one profile the launch names (the latency of a prediction for
        another GPU too)."""
        lt = self.last_touch
        miss = None
        c0 = self.batch_clock0
        lines = np.unique(s >> 2)
        if self.line_touch is None:
            self.line_touch = np.full(len(lt) // 4 + 1, -1, np.int64)
            self.line_buckets = np.zeros(1 << 12, np.int64)
        old = self.line_touch[lines]                # each line's last touch before this one
        cnt_b = self.line_buckets
        cur = (self.clock - c0) >> RETOUCH_BUCKET_SHIFT
        if cur >= len(cnt_b):
            cnt_b = self.line_buckets = np.concatenate([cnt_b, np.zeros(max(len(cnt_b), cur + 1), np.int64)])
        if kind != "st":
            prev = lt[s]
            again = prev >= c0
            if again.any():
                # the distinct lines the batch touched since: those whose last touch came
                # after (a line's last touch in buckets of the clock).  An instruction's
                # warps are one access here, its lines one stamp: half of that access's
                # lines come after the sector's touch, and half of this one's before it
                cum = np.cumsum(cnt_b[:cur + 1])
                pb = (prev[again] - c0) >> RETOUCH_BUCKET_SHIFT
                # (this access's lines not touched since the sector was: last touched in
                # its bucket or before, or not in the batch)
                ob = np.where(old >= c0, (old - c0) >> RETOUCH_BUCKET_SHIFT, -1)
                fresh = np.cumsum(np.bincount(ob + 1, minlength=cur + 2))
                after = cum[-1] - cum[pb] + 0.5 * (cnt_b[pb] + fresh[pb + 1])
                d = np.maximum(after, 1.0) * (128.0 / self.batch_blocks)
                b = np.clip(np.floor(np.log2(np.maximum(d, 1.0)) * RETOUCH_BINS_PER_OCTAVE),
                            0, RETOUCH_BINS - 1).astype(np.int64)
                sa = s[again]
                a = np.searchsorted(self.alloc_first, sa, "right") - 1
                a = np.maximum(a, 0)
                # what a miss reads: DRAM serves 64-byte chunks, so a sector re-touched
                # without the other of its pair costs two (a lane's word of a walked row);
                # a chunk's two sectors, one each
                ch, inv, cnt = np.unique(sa >> 1, return_inverse=True, return_counts=True)
                w = 2.0 / cnt[inv]
                np.add.at(self.retouch, (a, b), w)
                np.add.at(self.retouch_sum, (a, b), d * w)
                # a chunk alone in its 128-byte line (the lane's word of a walked row, rows
                # 256 bytes apart) is read at DRAM's scattered rate if it misses, a line's
                # two at the streaming rate (timing.dram_time_us)
                ln = ch >> 1
                alone = np.ones(len(ch), bool)
                alone[1:] &= ln[1:] != ln[:-1]
                alone[:-1] &= ln[:-1] != ln[1:]
                if alone.any():
                    np.add.at(self.retouch_scat, a, np.where(alone[inv], w, 0.0))
                if kind != "ld":
                    # an atomic's sector, written back again if it missed (once an access)
                    first = np.unique(sa, return_index=True)[1]
                    np.add.at(self.retouch_rmw, a[first], 1.0)
                if self.retouch_bytes and self.retouch_resident:
                    p = retouch_miss_p(d * self.retouch_resident, self.retouch_bytes)
                    u = (((sa.astype(np.uint64) * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF))
                         + 0.5) / 4294967296.0      # in (0, 1): no sector misses at p = 0
                    miss = np.zeros(len(s), bool)
                    miss[np.flatnonzero(again)] = u < p
        lt[s] = self.clock
        # L2 keeps 128-byte lines, whatever sectors of them were fetched: what lies between
        # two touches is the distinct lines touched in between (lanes walking rows of their
        # own a word a step, 256 bytes apart, hold a line each where they read a sector:
        # merge_pass; a small table gathered over and over takes its lines' room once:
        # spmv_csr_scalar's x; timing_investigation/walk/)
        inb = old >= c0
        if inb.any():
            np.subtract.at(cnt_b, (old[inb] - c0) >> RETOUCH_BUCKET_SHIFT, 1)
        self.line_touch[lines] = self.clock
        cnt_b[cur] += len(lines)
        self.clock += 4 * len(lines)
        return miss

    def add(self, pc: int, name: str, value):
        v = float(value)
        self.total[name] += v
        self.per_pc[pc][name] += v

    def warp_finish(self, gw, cycles):
        self.finish[gw] = np.maximum(self.finish[gw], cycles)

    def add_warp(self, name: str, gw, values):
        arr = self.warp_extra.get(name)
        if arr is None:
            arr = self.warp_extra[name] = np.zeros(len(self.warp_inst), np.int64)
        if isinstance(gw, np.ndarray) and gw.ndim == 1 and len(gw) > 1 \
                and np.can_cast(np.result_type(values), np.int64) and (gw[1:] > gw[:-1]).all():
            # distinct warps (in order): a plain add, on a slice when they are consecutive
            n = len(gw)
            g0 = int(gw[0])
            if int(gw[-1]) - g0 + 1 == n:
                arr[g0:g0 + n] += values
            else:
                arr[gw] += values
            return
        np.add.at(arr, gw, values)

    def _store_merge(self, gwarps, pc: int | None, line_ids: np.ndarray, line_rows: np.ndarray,
                     nlines: np.ndarray, extra: np.ndarray, own: np.ndarray) -> None:
        """What L1 would save by merging a warp's back-to-back store requests: each
        request of at most ``MERGE_LINES`` lines that comes straight after the warp's
        previous store (a later instruction, or the next trip of a loop nvcc unrolls
        fully, with no global load or atomic of the warp between:
        probe/track-hit-binmatch's stores a layer apart, each layer's hits loaded in
        between, do not merge) and shares lines with it sends L2 only its lines the
        previous one did not touch, and neither its partial sectors nor the previous one's
        (``l2_lines["st_merge_own"]``, ``["st_merge_partial"]`` where each lane writes a
        sector of its own, ``["st_merge"]`` where lanes share sectors).  Whether L1 does
        merge them depends on how busy the stores keep it (``timing.store_merge_share``;
        docs/results/timing_investigation/smerge/: nine floats 36 bytes apart merge six to
        one after 48 sinf a thread, not at all after 16; requests of twelve lines not
        after 48).
        Call before ``_store_trip``.  Limitations: only the previous request is compared,
        and which of them the GPU merges depends on when its warps reach them, which the
        emulator does not model."""
        if gwarps is None or pc is None:
            return
        gw = np.asarray(gwarps)
        if self.st_group is None:
            self.st_group = np.full((len(self.warp_inst), MERGE_LINES), -1, np.int64)
            self.st_group_extra = np.zeros(len(self.warp_inst), np.int64)
            self.st_group_pc = np.full(len(self.warp_inst), -1, np.int64)
        ok = nlines <= MERGE_LINES
        if not ok.any():                   # (a transpose's or a row store's 32 lines: nothing to track)
            self.st_group_pc[gw] = -1
            self.st_group_extra[gw] = 0
            return
        cur = np.full((len(nlines), MERGE_LINES), -2, np.int64)
        pos = np.arange(len(line_ids)) - np.searchsorted(line_rows, line_rows)
        sel = ok[line_rows]
        cur[line_rows[sel], pos[sel]] = line_ids[sel]
        prev_pc = self.last_st_pc[gw] if self.last_st_pc is not None else np.full(len(gw), -1)
        b2b = ok & (self.st_group_pc[gw] == prev_pc) & (prev_pc >= 0) & (
            (pc > prev_pc) | ((pc == prev_pc) & (pc in self.unrolled_stores)))
        if b2b.any():
            prev = self.st_group[gw]
            shared = ((cur[:, :, None] == prev[:, None, :]) & (cur[:, :, None] >= 0)).any(axis=2).sum(axis=1)
            b2b &= shared > 0
            if b2b.any():
                o = b2b & own
                self.l2_lines["st_merge_own"] += int(shared[o].sum())
                self.l2_lines["st_merge"] += int(shared[b2b & ~own].sum())
                self.l2_lines["st_merge_partial"] += int(extra[b2b].sum() + self.st_group_extra[gw[b2b]].sum())
        self.st_group[gw] = cur
        self.st_group_pc[gw] = np.where(ok, pc, -1)
        self.st_group_extra[gw] = np.where(b2b | ~ok, 0, extra)

    def _store_trip(self, gwarps, pc) -> np.ndarray | None:
        """Per row: whether its warp's last global store was this one (a loop trip ago);
        records this store as each warp's last."""
        if gwarps is None or pc is None:
            return None
        if self.last_st_pc is None:
            self.last_st_pc = np.full(len(self.warp_inst), -1, np.int64)
        gw = np.asarray(gwarps)
        again = (self.last_st_pc[gw] == pc) & (pc not in self.unrolled_stores)
        self.last_st_pc[gw] = pc
        return again

    def global_access(self, mat: np.ndarray, act: np.ndarray, size: int, row_blocks: np.ndarray,
                      runs: "Runs | None" = None, kind: str = "ld", gwarps=None, pc: int | None = None,
                      dram_key: int | None = None, dep: np.ndarray | None = None):
        """One warp instruction's global access: returns the distinct sectors per warp row and
        records the DRAM footprint and the warp requests per sector (contention at L2)."""
        l2 = None                           # which of the sectors s reach L2 (None: all)
        if kind != "st" and self.st_group_pc is not None and gwarps is not None:
            self.st_group_pc[np.asarray(gwarps)] = -1       # parts a warp's stores (_store_merge)
        if act.all() and mat.shape[0] and (_contiguous(mat.reshape(-1), size)
                                           or (np.diff(mat[:1], axis=1) == size).all()
                                           and (np.diff(mat, axis=1) == size).all()):
            # coalesced: each row covers one contiguous range (no sort needed)
            fs = (mat[:, 0] - GLOBAL_BASE) // 32
            ls = (mat[:, -1] + size - 1 - GLOBAL_BASE) // 32
            span = ls - fs
            if (span == span[0]).all():
                q = int(span[0]) + 1
                s = (fs[:, None] + np.arange(q)).ravel()
                srow = None                 # each row's q sectors in turn (built if needed)
                per_row = np.full(mat.shape[0], q, np.int64)
                rb = np.repeat(row_blocks, q)
                plain = int((ls // 4 - fs // 4 + 1).sum())
                if kind == "ld":
                    self.l1_lines += plain          # every line of a load passes L1's data pipe
                    self.l1_waves += plain          # (a contiguous range: a wavefront a line)
                    if gwarps is not None:
                        fl, ll = fs // 4, ls // 4
                        same = row_blocks[1:] == row_blocks[:-1]
                        shared = bool((same & (fl[1:] <= ll[:-1]) & (ll[1:] >= fl[:-1])).any())
                        whole = self.wpb > 1 and len(row_blocks) == self.wpb * (1 + int(np.count_nonzero(
                            row_blocks[1:] != row_blocks[:-1]))) and pc not in self.l1_block
                        plain = self._l1_missed_lines(mat, act, gwarps, pc, row_blocks, plain,
                                                      share=shared or not whole, dep=dep)
                        l2 = self._l2_sectors(s, srow, per_row, mat, size)
                if kind == "st":
                    self._store_trip(gwarps, pc)
                self.l2_lines[kind] += plain
                runs = None
                mat = None
        if mat is None:
            pass                            # the coalesced case above
        elif runs is not None:              # atomics: aligned, so no access straddles sectors
            s, rows = runs.sectors()
            s = s - GLOBAL_BASE // 32
            srow = rows
            per_row = np.bincount(rows, minlength=runs.nw)
            rb = row_blocks[rows]
            self.l2_lines[kind] += _lines(s, rows)
        else:
            k, new = sorted_sectors(mat - GLOBAL_BASE, act, size)
            per_row = new.sum(axis=1)
            s = k[new]                      # row-major, so blocks ascend along s
            rb = np.broadcast_to(row_blocks[:, None], k.shape)[new]
            srow = np.nonzero(new)[0]
            starts = _line_starts(s, srow)
            plain = int(starts.sum())
            if kind == "st":
                lanes = np.count_nonzero(act, axis=1)
                nlines = np.bincount(srow[starts], minlength=len(per_row))
                extra = _own_sector_extra(per_row, lanes, nlines)
                self.l2_lines["st_partial"] += int(extra.sum())
                self._store_merge(gwarps, pc, s[starts] >> 2, srow[starts], nlines, extra, per_row == lanes)
                again = self._store_trip(gwarps, pc)
                if again is not None:
                    again &= per_row < lanes                # lanes sharing sectors
                    if again.any():
                        self.l2_lines["st_partial"] += _trip_sector_extra(mat[again], act[again], size)
            if kind == "ld":
                self.l1_lines += plain
                lines = np.bincount(srow[starts], minlength=len(per_row))
                self.l1_waves += l1_gather_waves(mat, act, size, lines)
                if self.alloc_sectors:
                    self._note_lattice(mat, act)
                wide = _gather_lines(lines)
                if gwarps is not None:
                    missed = self._l1_missed_lines(mat, act, gwarps, pc, row_blocks, plain, dep=dep)
                    l2 = self._l2_sectors(s, srow, per_row, mat, size)
                    wide, plain = (wide * missed / plain if plain else 0), missed
                self.l2_lines["ld_gather"] += wide
            self.l2_lines[kind] += plain
        self.fresh_rows = None
        miss = None
        if self.last_touch is not None and len(s):
            if l2 is None:
                miss = self._retouches(s, kind)
            elif l2.any():
                m2 = self._retouches(s[l2], kind)
                if m2 is not None:
                    miss = np.zeros(len(s), bool)
                    miss[l2] = m2
        if self.first_read is not None and len(s):
            if srow is None and kind != "st":
                srow = np.repeat(np.arange(len(per_row)), len(s) // len(per_row))
            self._dram_waits(s, srow if kind != "st" else None, len(per_row), kind, dram_key, row_blocks)
            if miss is not None and miss.any():     # re-touches L2 let go of wait on DRAM too
                rows = self.fresh_rows if self.fresh_rows is not None else np.zeros(len(per_row), bool)
                rows[srow[miss]] = True
                self.fresh_rows = rows
        if self.sector_reqs is not None and len(s):
            if kind != "st":                # loads and atomics read the sector from DRAM
                self.touched[s] = True
            if kind != "ld":                # stores and atomics write it back
                self.written[s] = True
            lo, hi = int(s.min()), int(s.max())
            rel = s - lo
            if hi - lo < 4 * len(s) + 4096:
                cnt = np.bincount(rel, minlength=hi - lo + 1)
                first = np.empty(hi - lo + 1, np.int64)
                first[rel[::-1]] = rb[::-1]          # duplicates: the last write wins
                last = np.empty(hi - lo + 1, np.int64)
                last[rel] = rb
                m = cnt > 0
                idx = np.flatnonzero(m) + lo
                cnt, first, last = cnt[m], first[m], last[m]
            else:
                idx, inv, cnt = np.unique(s, return_inverse=True, return_counts=True)
                first = np.full(len(idx), np.iinfo(np.int64).max)
                last = np.full(len(idx), -1)
                first[inv[::-1]] = rb[::-1]
                last[inv] = rb
            self.sector_reqs[idx] += cnt.astype(np.int32)
            self.sector_bmin[idx] = np.minimum(self.sector_bmin[idx], first)
            self.sector_bmax[idx] = np.maximum(self.sector_bmax[idx], last)
        return per_row

    def _note_lattice(self, mat: np.ndarray, act: np.ndarray) -> None:
        """Per allocation, the gather rows whose 32 lanes read addresses a constant stride
        of ``LATTICE_MIN_STRIDE`` bytes or more apart (a column of a row-major matrix), and
        that stride: such a walk comes back to a sector's next words after the threads of
        one pass down the column, not at random (``_extrapolated``).  A row may break the
        stride once, where its lanes wrap to the next column (a column of 140 rows is 4.4
        warps: ``probe/mp2-energy-const-f64``'s transposed read, a fifth of whose warps
        wrap)."""
        full = act.all(axis=1)
        if not full.any():
            return
        m = mat[full]
        d = np.diff(m, axis=1)
        # (the stride: two of the first three differences agree on it, a wrap breaking one)
        s = np.where(d[:, 0] == d[:, 1], d[:, 0], d[:, 2])
        lat = (np.count_nonzero(d != s[:, None], axis=1) <= 1) & (np.abs(s) >= LATTICE_MIN_STRIDE)
        a = np.searchsorted(self.alloc_first, (m[:, 0] - GLOBAL_BASE) // 32, "right") - 1
        for i in np.unique(a):
            rows = a == i
            rec = self.lattice.setdefault(int(i), [0, 0, 0])
            rec[0] += int(np.count_nonzero(rows))
            hit = rows & lat
            rec[1] += int(np.count_nonzero(hit))
            if hit.any():
                rec[2] = int(np.abs(s[hit]).max())

    def _dram_waits(self, s: np.ndarray, srow, nrows: int, kind: str, key, row_blocks) -> None:
        """Which rows of a load or atomic request wait on DRAM (``fresh_rows``): those with
        a sector that nothing earlier brought into L2, neither it nor its 64-byte neighbour
        (DRAM reads both; an atomic's L2 fetches the sector before it operates).  ``key``
        names, per row, the instruction, the batch of resident blocks executing it and the
        warp's trip through it: a sector that the same instruction first asked for on the
        same trip counts as DRAM for every warp asking for it (they wait on the same
        fetch), so stepping one warp at a time gives what a group of warps does, while a
        later trip (a loop reading the sector again) finds it in L2.  That holds for the
        warps of one wave of the launch: a block of a later wave (``rank_wave``: its linear
        id over the GPU's resident blocks) finds in L2 what a block of an earlier wave
        brought there, as a sampled batch that spans the launch's waves would otherwise
        have every block wait for data they all read (a table, a weight vector) as the
        first wave does.  A store leaves its sector in L2.  Limitations: L2 never evicts
        within a launch; blocks are taken to start in the order of their ids."""
        fp = self.first_read
        if kind == "st" or key is None:
            fp[s[fp[s] == -1]] = -2
            return
        mine = np.asarray(key, np.int64)[srow]
        a, b = fp[s], fp[np.minimum(s ^ 1, len(fp) - 1)]
        far = ((a == -1) | (a == mine)) & ((b == -1) | (b == mine))
        if self.rank_wave is not None:
            # each sector's earliest wave to ask: before this request, or in it (the
            # machine issues an instruction for a batch's warps at once)
            wave = self.rank_wave[np.asarray(row_blocks)[srow]]
            np.minimum.at(self.first_wave, s, wave)
            far &= ~(self.first_wave[s] < wave)         # an earlier wave brought it
        if far.any():
            rows = np.zeros(nrows, bool)
            rows[srow[far]] = True
            self.fresh_rows = rows
        new = a == -1
        fp[s[new]] = mine[new]

    def _l2_sectors(self, s, srow, per_row, mat, size: int) -> np.ndarray | None:
        """After ``_l1_missed_lines``: which of the load's sectors ``s`` reach L2 and can be
        re-touches there (``_l2_bound``); None for all of them, or where re-touches are not
        tracked."""
        if self.l1_lane_miss is None or self.last_touch is None or not len(s):
            return None
        return _l2_bound(s, srow, per_row, mat, self.l1_lane_miss, size)

    def _l1_missed_lines(self, mat, act, gwarps, pc, blocks: np.ndarray, plain: int | None = None,
                         share: bool = True, dep: np.ndarray | None = None) -> int:
        """Lines a load request sends to L2.  L1 keeps what a lane loaded on the previous
        trip through this load (the next element of its CSR row, say), so a sector one of
        the request's lanes held there is a hit, unless the warp's address waited for
        that trip's value (``dep``, per row: the machine's ready times): then every warp
        of the SM steps once a load latency and the lines of all of them must fit, which
        the block's LRU share decides.  The machine sets ``dep`` too for a load in a loop
        nvcc unrolls fully, whose trips are separate loads (``Machine.ld_unrolled``).
        And the warps of a block that run the load together share the SM's L1: a line an
        earlier warp of the block requested there is not requested again (``blocks``,
        each row's block; ``share`` False where no two rows of a block can share a line).
        A 16 x 16 block whose ``threadIdx.x`` walks
        down 16 rows has its eight warps read the same 16 lines (``probe/matadd-rows-x``:
        Nsight counts 77% of its load sectors as L1 hits).  And a line any of the block's
        loads brought in before stays for the block's later loads, up to its share of the
        SM's L1 (``_l1_kept``, ``l1_keep_lines``): a small table gathered
        over and over (spmv's x of 8192 floats: timing_investigation/csrlat/, x8k) hits.
        ``plain``: the request's line count when nothing hits, if the caller knows it.
        Limitations: nothing is shared between blocks (a table they all gather from is
        kept once for each); stores neither fill nor evict."""
        line = ((mat - GLOBAL_BASE) >> 7).astype(np.int32)
        # L1 is sectored: a miss brings in the sectors asked for, so what the lane held from
        # its last trip is a sector, and a lane stepping a word a trip along its row misses
        # once a sector, not once a line (Nsight: 87% of the load sectors of walk/'s `ind`
        # walks hit L1, 7 of a sector's 8 words)
        sec = ((mat - GLOBAL_BASE) >> 5).astype(np.int32)
        st = self.l1_prev.get(pc)
        if st is None:      # each lane's last sector here, and which warps have been here
            st = self.l1_prev[pc] = (np.empty((self.n_warps_total, 32), np.int32),
                                     np.zeros(self.n_warps_total, bool))
        prev, seen = st
        g0 = int(gwarps[0])
        rows = slice(g0, g0 + len(gwarps)) if int(gwarps[-1]) - g0 + 1 == len(gwarps) else gwarps
        full = bool(act.all())
        been = seen[rows]
        if not been.any():                  # a first trip: nothing held yet
            seen[rows] = True
            if full:
                prev[rows] = sec
            else:
                prev[rows] = np.where(act, sec, -1)
            hit = None
        else:
            pl = np.where(been[:, None], prev[rows], -1)
            hit = pl == sec
            if not full:
                hit &= act
            if dep is not None and dep.any():
                # a warp whose address waited for its previous trip's load steps once a
                # load latency, as every warp of the SM does: between a lane's two trips
                # the SM's other lanes touch their lines too, so the line is held only if
                # they all fit, which the block's LRU share decides (_l1_kept).  A
                # pipelined walk comes back before the line can go (hit on the miss).
                # Lanes walking two runs of 32 ints, 8 blocks an SM: Nsight counts 7% of
                # the load sectors as L1 hits, 94.5% at 2 blocks (timing_investigation/walk/)
                hit &= ~dep[:, None]
            prev[rows] = sec if full else np.where(act, sec, pl)
            seen[rows] = True
        big = np.iinfo(np.int32).max
        if hit is not None and hit.any():
            held = np.where(hit, sec, -2)
            covered = (sec[:, :, None] == held[:, None, :]).any(axis=2)
            miss = act & ~covered
        else:
            miss = act
        # (the lanes a previous trip's sector serves never reach L2: Counters._retouches
        # leaves them out.  Lines the block's share of L1 keeps do count there: the
        # re-touch law's C, fitted on rows re-read past L1, takes in what L1 holds)
        self.l1_lane_miss = None if miss is act else miss
        blocks = np.asarray(blocks, np.int64)
        kept = self._l1_kept(blocks, line, act, ((mat - GLOBAL_BASE) >> 5) & 3)
        if kept is not None:
            miss = miss & ~kept
        elif miss is act and plain is not None and not share:
            return plain
        if share and self.wpb > 1:
            return self._block_lines(pc, rows, blocks, line, miss)
        k = np.sort(np.where(miss, line, big), axis=1)
        new = np.ones(k.shape, bool)
        new[:, 1:] = k[:, 1:] != k[:, :-1]
        return int(np.count_nonzero(new & (k != big)))

    def _l1_kept(self, blocks: np.ndarray, line: np.ndarray, act: np.ndarray,
                 sector: np.ndarray) -> np.ndarray | None:
        """Which active lanes' sectors the block's L1 still holds from its earlier loads
        (None: none); then the request's lines are its most recent.  Per block row, sets of
        ``L1_KEEP_WAYS`` (block, line) tags (set: a fold of the line's bits modulo the
        sets), each with the sectors of its line it holds and the request count of its
        last use; a missing line takes the least recently used way.  L1 is sectored: a miss fetches the sectors the
        request asked for, not the whole line, so a gather that brought one sector of a
        line into L1 hits there only on that sector (spmv-jds's gathers of x,
        timing_investigation/jds/).  A request's lanes are looked up before any of them
        fills, so its warps do not hit on each other's lines (the (block, trip) sharing of
        ``_block_lines`` counts those).  A run of lanes on one line (a coalesced request)
        is looked up once, by its first, for all the sectors the run reads."""
        sets, nrows = self.l1_keep_lines // L1_KEEP_WAYS, self.l1_keep_rows
        if self.l1_keep is None:
            self.l1_keep = (np.full((nrows, sets, L1_KEEP_WAYS), -1, np.int64),
                            np.zeros((nrows, sets, L1_KEEP_WAYS), np.int64),
                            np.zeros((nrows, sets, L1_KEEP_WAYS), np.uint8), [0])
        tags, used, held, clock = self.l1_keep
        clock[0] += 1
        dup = np.zeros(act.shape, bool)         # the lane before it is active, on its line
        dup[:, 1:] = (line[:, 1:] == line[:, :-1]) & act[:, 1:] & act[:, :-1]
        look = act & ~dup
        # the sectors each run of lanes on one line reads: its first lane's and its dups'
        bits = np.where(act, np.left_shift(1, sector.astype(np.int64)), 0).astype(np.uint8).ravel()
        at = np.flatnonzero(look.ravel())
        need = np.bitwise_or.reduceat(bits, at) if len(at) else bits[:0]
        ln = line.astype(np.int64)
        r = np.broadcast_to((blocks % nrows)[:, None], ln.shape)[look]
        # (the set from the line's bits folded: rows 4 KiB apart, a line a lane, spread
        # over the sets as over the GPU's, where the line modulo the sets put them in 31)
        st = ((ln ^ (ln >> 6) ^ (ln >> 12)) % sets)[look]
        tag = ((blocks[:, None] << 32) | ln)[look]
        have = tags[r, st] == tag[:, None]                  # (runs, ways)
        present = have.any(axis=1)
        way = have.argmax(axis=1)
        hit = np.zeros(len(r), bool)
        if present.any():
            pr, ps, pw = r[present], st[present], way[present]
            got = held[pr, ps, pw]
            hit[present] = (got & need[present]) == need[present]
            used[pr, ps, pw] = clock[0]
            # the sectors a present line lacked are fetched into it (lines a request
            # repeats OR their needs in: np.bitwise_or.at)
            np.bitwise_or.at(held, (pr, ps, pw), need[present])
        if not present.all():
            # one fill per distinct (row, line), of the sectors its runs read; the k-th new
            # line of a set takes its k-th least recently used way
            mr, ms, mt, mn = r[~present], st[~present], tag[~present], need[~present]
            key = mr * sets + ms
            o = np.lexsort((mt, key))
            mr, ms, mt, mn, key = mr[o], ms[o], mt[o], mn[o], key[o]
            grp = np.flatnonzero(np.r_[True, (key[1:] != key[:-1]) | (mt[1:] != mt[:-1])])
            mn = np.bitwise_or.reduceat(mn, grp)
            mr, ms, mt, key = mr[grp], ms[grp], mt[grp], key[grp]
            i = np.arange(len(key))
            rank = i - np.maximum.accumulate(np.where(np.r_[True, key[1:] != key[:-1]], i, 0))
            w = np.argsort(used[mr, ms], axis=1, kind="stable")[i, rank % L1_KEEP_WAYS]
            tags[mr, ms, w] = mt
            used[mr, ms, w] = clock[0]
            held[mr, ms, w] = mn
        if not hit.any():
            return None
        got = np.zeros(act.shape, bool)
        got[look] = hit
        if dup.any():                           # a run's lanes share its first's answer
            first = np.maximum.accumulate(np.where(dup, 0, np.arange(act.shape[1])), axis=1)
            got = np.take_along_axis(got, first, axis=1) & act
        return got

    def _block_lines(self, pc, rows, row_blocks, line, miss) -> int:
        """The distinct lines the warps of each block ask L2 for at their k-th trip through
        load ``pc``, counted once a block: the block's warps share the SM's L1, so the line
        one of them requested is there for the others.  Keyed by (block, trip), so the
        count does not depend on whether the scheduler runs the block's warps together (a
        lockstep batch) or one at a time (the stepper, the random order): a key whose
        warps came in several batches keeps its lines until all the block's warps passed,
        or until ``L1_BLOCK_KEYS`` younger keys wait (the oldest goes first): warps that
        never reach the load would otherwise keep theirs for the whole launch."""
        tr = self.l1_trip.get(pc)
        if tr is None:
            tr = self.l1_trip[pc] = np.zeros(self.n_warps_total, np.int64)
        trip = tr[rows].copy()
        tr[rows] += 1
        key = (row_blocks << 24) | trip
        r, c = np.nonzero(miss)
        if not len(r):
            return 0
        k, ln = key[r], line[r, c].astype(np.int64)
        order = np.lexsort((ln, k))
        k, ln = k[order], ln[order]
        new = np.ones(len(k), bool)
        new[1:] = (k[1:] != k[:-1]) | (ln[1:] != ln[:-1])
        k, ln = k[new], ln[new]
        ukeys, nrows = np.unique(key, return_counts=True)
        held = self.l1_block.get(pc)
        if held is None and (nrows == self.wpb).all():
            return int(len(k))              # every block whole in this batch: nothing to keep
        held = self.l1_block.setdefault(pc, {})
        total = 0
        starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
        ends = np.r_[starts[1:], len(k)]
        lines_of = {int(k[a]): ln[a:b] for a, b in zip(starts, ends)}
        for kk, cnt in zip(ukeys.tolist(), nrows.tolist()):
            got = lines_of.get(kk, np.empty(0, np.int64))
            st = held.get(kk)
            if st is None:
                total += len(got)
                if cnt < self.wpb:
                    if len(held) >= L1_BLOCK_KEYS:      # a block's warps that never come
                        del held[next(iter(held))]      # (exited, or another branch)
                    held[kk] = [cnt, set(got.tolist())]
                continue
            before = st[1]
            fresh = [x for x in got.tolist() if x not in before]
            total += len(fresh)
            before.update(fresh)
            st[0] += cnt
            if st[0] >= self.wpb:
                del held[kk]
        if not held:
            del self.l1_block[pc]
        return total

    def l2_transactions(self, alloc: int, trans: int, lo: int, hi: int, serialized: int = 0,
                        cas: bool = False, plain: bool = False, clocks=None, weights=None,
                        spans=None):
        """Stores and atomics reach L2 as transactions; those aimed at a small region
        (a histogram's bins) funnel into one L2 slice and queue there.  ``serialized``:
        how many of them replay an address an earlier lane of the same request hit (an
        atomic's same-address lanes), which the L2's atomic unit runs one after another.
        ``cas``: they are atomicCAS transactions (counted apart: they cost more, and their
        retries depend on how many warps contend, see ``simt.timing``).  ``plain``: they
        are plain stores (counted apart too: spread over every slice, they queue nowhere).
        ``clocks``, ``weights``: each warp's issue cycle and transactions (simt.arrivals).
        ``spans``: (warps, their blocks, each warp's lowest address, its highest + size,
        the same over the middle half of its lanes: ``warp_spans``), for ``block_spans``."""
        if spans is not None:
            gw, blk, wlo, whi, qlo, qhi = spans
            sp = self.atom_spans.get(alloc)
            if sp is None:
                n = self.n_warps_total
                big = np.iinfo(np.int64).max
                sp = self.atom_spans[alloc] = (np.full(n, big, np.int64), np.full(n, -1, np.int64),
                                               np.full(n, -1, np.int64), np.full(n, big, np.int64),
                                               np.full(n, -1, np.int64))
            sp[0][gw] = np.minimum(sp[0][gw], wlo)
            sp[1][gw] = np.maximum(sp[1][gw], whi)
            sp[2][gw] = blk
            sp[3][gw] = np.minimum(sp[3][gw], qlo)
            sp[4][gw] = np.maximum(sp[4][gw], qhi)
        if clocks is not None:
            arr = self.arrivals.get(alloc)
            if arr is None:
                arr = self.arrivals[alloc] = (Arrivals(), Arrivals())
            for a in arr[:1] if plain else arr:
                a.add(clocks, weights)
        r = self.regions.get(alloc)
        if r is None:
            r = self.regions[alloc] = [0, lo, hi, 0, 0, 0, 0]
        r[0] += trans
        if plain:
            r[6] += trans
        r[1] = min(r[1], lo)
        r[2] = max(r[2], hi)
        r[3] += serialized
        if cas:
            r[4] += trans
            r[5] += serialized

    def atomic_blocks(self, alloc: int, start: int, mat: np.ndarray, act: np.ndarray,
                      sec: np.ndarray) -> None:
        """Where an atomic's transactions fall in its allocation: each row's transactions
        shared among its active lanes, counted per 256-byte block (the first
        ``CONCENTRATION_SPAN`` bytes; ``busiest_slice_share``)."""
        r, c = np.nonzero(act)
        if not len(r):
            return
        b = (mat[r, c] - start) >> 8
        keep = b < CONCENTRATION_SPAN >> 8
        if not keep.any():
            return
        w = (sec / np.maximum(act.sum(axis=1), 1))[r]
        got = np.bincount(b[keep], weights=w[keep], minlength=CONCENTRATION_SPAN >> 8)
        have = self.blocks256.get(alloc)
        self.blocks256[alloc] = got if have is None else have + got

    def atomic_slices(self, alloc: int, mat: np.ndarray, act: np.ndarray, sec: np.ndarray,
                      bids: np.ndarray, ranks: np.ndarray | None = None) -> None:
        """Each row's atomic transactions, shared among its active lanes, per 256-byte
        block of the allocation, and the lowest and highest grid block (``bids``, each
        row's) that hit each one (``uneven_share``); with ``ranks`` (each row's block's
        rank among the emulated blocks), the same per half-run too (``window_share``).
        Allocations past ``UNEVEN_MAX_BYTES`` are left out (within 1% of the even share)."""
        r, c = np.nonzero(act)
        if not len(r) or not 0 <= alloc < len(self.alloc_gpu) or alloc >= len(self.alloc_sectors):
            return
        first, end = self.alloc_sectors[alloc]
        nblk = ((end - first) * 32 + 255) >> 8
        if nblk > UNEVEN_MAX_BYTES >> 8:
            return
        got = self.slices96.get(alloc)
        if got is None:
            got = self.slices96[alloc] = [np.zeros(nblk), np.full(nblk, np.iinfo(np.int64).max, np.int64),
                                          np.full(nblk, -1, np.int64), [np.iinfo(np.int64).max, -1]]
        w, bmin, bmax, ids = got
        b = (mat[r, c] - self.alloc_gpu[alloc][0]) >> 8
        lw = (sec / np.maximum(act.sum(axis=1), 1))[r]
        blk = np.asarray(bids, np.int64)[r]
        half = None if ranks is None else np.asarray(ranks, np.int64)[r] // slicewin.HALF
        keep = (b >= 0) & (b < nblk)                 # (one instruction's lanes in another array)
        if not keep.all():
            b, lw, blk = b[keep], lw[keep], blk[keep]
            half = None if half is None else half[keep]
            if not len(b):
                return
        if half is not None and nblk > HASH_SPAN >> 8:      # (window_share: regions past HASH_SPAN)
            self._window_add(alloc, half * nblk + b, lw)
        np.add.at(w, b, lw)
        np.minimum.at(bmin, b, blk)
        np.maximum.at(bmax, b, blk)
        ids[0] = min(ids[0], int(blk.min()))
        ids[1] = max(ids[1], int(blk.max()))

    def _window_add(self, alloc: int, keys: np.ndarray, w: np.ndarray) -> None:
        """Add transactions by (half-run, 256-byte block) key, merging equal keys now and
        then (a loop's atomics on the same lines)."""
        got = self.win_parts.get(alloc)
        if got is None:
            got = self.win_parts[alloc] = [[], [], 0]
        got[0].append(keys)
        got[1].append(w)
        got[2] += len(keys)
        if got[2] > WINDOW_PENDING:
            k, wt = self._window_keys(alloc)
            got[:] = [[k], [wt], len(k)]

    def _window_keys(self, alloc: int) -> tuple[np.ndarray, np.ndarray]:
        """An allocation's distinct (half-run, 256-byte block) keys and their transactions."""
        keys, w, _ = self.win_parts[alloc]
        u, inv = np.unique(np.concatenate(keys), return_inverse=True)
        return u, np.bincount(inv, weights=np.concatenate(w))

    def window_share(self, alloc: int, base: int, off, hot=None) -> tuple[float, bool]:
        """The share of a region's atomic transactions past ``HASH_SPAN`` that the busiest
        GPU slice of the blocks resident at once takes, in simt's slices (as
        ``uneven_share``'s; simt.slicewin); ``hot`` as there, its chain's lanes taken off
        its block in the same proportion in every half-run (0, and False, where none were
        counted or the GPU's resident blocks are not known); and whether that estimate
        holds (``slicewin.coupled``): then it is the resident blocks' reach
        (``timing.slices_in_turn``'s)."""
        if alloc not in self.win_parts or not self.window_blocks or alloc >= len(self.alloc_sectors):
            return 0.0, False
        first, end = self.alloc_sectors[alloc]
        nblk = ((end - first) * 32 + 255) >> 8
        keys, w = self._window_keys(alloc)
        halves, lines = keys // nblk, keys % nblk
        b = -1 if hot is None else (hot[0] - base) >> 8
        on = lines == b
        if on.any():
            w = w.copy()
            w[on] *= max(0.0, 1.0 - hot[1] / w[on].sum())
        at = 0 if off is None else int(off) >> 8
        grid = self.n_warps_total / max(1, self.wpb)
        r, gens = slicewin.window_share(halves, lines, w, self.sample_ids, min(self.window_blocks, grid),
                                        lambda x: gpu_slice(x + at), GPU_SLICES)
        return r / L2_SLICES, slicewin.coupled(gens)

    def uneven_share(self, alloc: int, lo: int, hi: int, base: int, off, hot=None) -> float:
        """The share of a region's atomic transactions past ``HASH_SPAN`` that its busiest
        GPU slice (``gpu_slice``) takes, in simt's slices: ``GPU_SLICES / L2_SLICES``
        times its share of the GPU's.  Where most of them fall on 256-byte blocks that
        grid blocks far apart all hit (hot lines every block shares: a sampled block sees
        the grid's distribution), from the sample: the busiest slice's count less three
        standard deviations, so that a thin sample does not make one up.  Otherwise (each
        block its own stretch: sorted keys, a bitmap's words per block, scattered keys) the
        sampled blocks' places say nothing of the others', and the region's blocks count
        evenly.  ``hot``: (the busiest sector's address, its chain's sampled lanes), left
        out: ``global_atomics`` prices that word's chain, and the GPU runs the slice's
        other atomics beside it (probe/sax-words-prefix-atomic: 28% of the lanes on one
        word, 1.03 with its chain alone, 2.03 with its lanes on the slice too).  0 where
        none were counted."""
        got = self.slices96.get(alloc)
        if got is None:
            return 0.0
        w, bmin, bmax, ids = got
        b = -1 if hot is None else (hot[0] - base) >> 8
        if 0 <= b < len(w):
            w = w.copy()
            w[b] = max(0.0, w[b] - hot[1])
        total = w.sum()
        if total <= 0:
            return 0.0
        at = 0 if off is None else int(off) >> 8          # the allocation's first block on the GPU
        shared = (bmax - bmin) >= UNEVEN_SHARED_SPAN * (ids[1] - ids[0])
        if ids[1] > ids[0] and w[shared].sum() >= 0.5 * total:
            nz = np.flatnonzero(w)
            cnt = np.bincount(gpu_slice(nz + at), weights=w[nz], minlength=GPU_SLICES)
            return float(slicewin.busiest(cnt, GPU_SLICES) / L2_SLICES)
        first = at + ((lo - base) >> 8)
        cnt = np.bincount(gpu_slice(np.arange(first, at + ((hi - base) >> 8) + 1)), minlength=GPU_SLICES)
        return float(cnt.max() / cnt.sum() * GPU_SLICES / L2_SLICES)

    def stream_load(self, mat: np.ndarray, act: np.ndarray, ranks: np.ndarray,
                    gwarps: np.ndarray, pc: int) -> None:
        """A load of 1- or 2-byte elements: a data stream's rows set their warps' arrival
        groups (simt.racy.arrival_groups) on a warp's first trip through the load; on
        later trips each warp is its own group (the warps have drifted apart)."""
        first = racy.arrival_groups(mat, act, ranks)
        if first is not None:
            if self.arrival is None:
                self.arrival = np.arange(self.n_warps_total)
            seen = self.stream_seen.get(pc)
            if seen is None:
                seen = self.stream_seen[pc] = np.zeros(self.n_warps_total, bool)
            self.arrival[gwarps] = np.where(seen[gwarps], gwarps, gwarps[first])
            seen[gwarps] = True

    def plain_store(self, alloc: int, sectors: int, mat: np.ndarray, act: np.ndarray,
                    ranks: np.ndarray, gwarps: np.ndarray) -> None:
        """A plain store's sends and racy sectors (simt.racy.plain_store_counts)."""
        groups = gwarps if self.arrival is None else self.arrival[gwarps]
        sends, pairs = racy.plain_store_counts(mat, act, ranks, groups, sectors)
        r = self.racy.setdefault(alloc, [0, 0, 0, 0])
        r[0] += sectors
        r[1] += sends
        r[2] += pairs
        r[3] += int(act.any(axis=1).sum())

    def _read(self, lo: int, hi: int) -> bool:
        """Whether loads (or atomics) of the launch read any sector of lo..hi."""
        t = self.touched
        return t is not None and bool(t[(lo - GLOBAL_BASE) // 32:(hi - GLOBAL_BASE) // 32 + 1].any())

    def busiest_slice_share(self, alloc: int, lo: int, hi: int, slices: int, gpu_off) -> float:
        """The share of a region's atomic transactions its busiest L2 slice takes, where the
        sample shows it (0 otherwise: the even share, 1 / ``slices``).  Regions of 1-64 KiB
        whose every block spans most of the region (keys at random, not sorted: a sampled
        block then sees the grid's distribution) and whose busiest slice, less three
        standard deviations of its count, holds more than its even share: an order book's
        levels near the mid (probe/orderbook-depth, unseen62/: 29 times the even share
        on one 512-byte chunk).  Slices as ``region_slices`` places them: up to
        ``HASH_SPAN`` on a known GPU offset, lines 0, 1, 4, 5 of each kilobyte on one and
        2, 3, 6, 7 on another; otherwise a slice per ``SLICE_SPAN`` bytes."""
        cnt = self.blocks256.get(alloc)
        span = hi - lo + 1
        if cnt is None or slices < 2 or span > CONCENTRATION_SPAN or alloc not in self.atom_spans:
            return 0.0
        got = block_spans(*self.atom_spans[alloc])
        if got is None or got[0] < CONCENTRATION_BLOCK_SPAN * span:
            return 0.0
        total = cnt.sum()
        if total <= 0:
            return 0.0
        b = np.arange(len(cnt))
        if gpu_off is not None and span <= HASH_SPAN:
            key = _hashed_slice(b + (int(gpu_off) >> 8))    # its 256-byte blocks on the GPU
        else:
            key = b // (SLICE_SPAN >> 8)
        return float(slicewin.busiest(np.bincount(key, weights=cnt), slices) / slices)

    def hot_addresses(self, addrs: np.ndarray, lanes: np.ndarray, blocks=None, fp: bool = False):
        """Accumulate global atomic lanes per address (the busiest bounds atomic time);
        ``fp``: the atomic is a float or double add (slower on one address).  The caller
        passes a warp's sectors, each with the most of its lanes on one word: the L2 takes
        a sector's atomics one after another, whichever of its words they hit, and a warp's
        lanes on distinct words of it at once (timing_investigation/fpsector/)."""
        d = self.hot
        if len(addrs) == 0:
            return
        lo, hi = int(addrs.min()), int(addrs.max())
        if hi - lo < (1 << 22):
            rel = addrs - lo
            tot_all = np.bincount(rel, weights=lanes)
            u = np.flatnonzero(tot_all)
            tot = tot_all[u]
            if blocks is not None:
                bmin = np.full(len(tot_all), np.iinfo(np.int64).max)
                bmax = np.full(len(tot_all), -1)
                if len(blocks) < 2 or (blocks[1:] >= blocks[:-1]).all():
                    # blocks ascend (runs in warp order): the first and the last write win
                    bmin[rel[::-1]] = blocks[::-1]
                    bmax[rel] = blocks
                else:
                    np.minimum.at(bmin, rel, blocks)
                    np.maximum.at(bmax, rel, blocks)
                bmin, bmax = bmin[u], bmax[u]
            u = u + lo
        else:
            u, inv = np.unique(addrs, return_inverse=True)
            tot = np.bincount(inv, weights=lanes)
            if blocks is not None:
                bmin = np.full(len(u), np.iinfo(np.int64).max)
                bmax = np.full(len(u), -1)
                np.minimum.at(bmin, inv, blocks)
                np.maximum.at(bmax, inv, blocks)
        if len(u) > 4096:   # low-contention scatter: keep the busiest ones only
            top = np.argpartition(tot, -1024)[-1024:]
            u, tot = u[top], tot[top]
            if blocks is not None:
                bmin, bmax = bmin[top], bmax[top]
        dfp = self.hot_fp
        for k, (a, c) in enumerate(zip(u.tolist(), tot.tolist())):
            d[a] += int(c)
            if fp:
                dfp[a] += int(c)
            if blocks is not None:
                sp = self.hot_span.get(a)
                lo_b, hi_b = int(bmin[k]), int(bmax[k])
                if sp is None:
                    self.hot_span[a] = [lo_b, hi_b]
                else:
                    sp[0] = min(sp[0], lo_b)
                    sp[1] = max(sp[1], hi_b)

    def _extrapolated(self, marks: np.ndarray, per: int, scale: float,
                      scattered_out: set | None = None) -> tuple[int, int, int, int]:
        """Marked DRAM units (``per`` sectors each) of a sample, extrapolated to the grid:
        (units moved once, those of them in scattered allocations, units touched again,
        bytes of the allocations touched again).

        The extrapolation stops at the allocation's size: the grid moves each of its bytes
        once, as in a launch emulated whole (a 3D stencil's sampled blocks each read their
        neighbour planes, which the grid's other blocks, running at the same time, share
        in L2).  An allocation whose marks are mostly alone is scattered (n marks of m
        units placed at random form about n (1 - n / m) runs; those forming at least
        ``SCATTER_RUNS_SHARE`` of that are: a random gather, sparse or dense, not a
        tile's rows of 128 bytes): DRAM serves it a unit at a time, slower than a stream, and an
        extrapolation beyond the allocation touches every unit of it once and the rest
        again.  L2 holds
        some re-touches, and those it cannot hold (a random gather over a table larger
        than the share of L2 it keeps) come from DRAM again: the timing model decides how
        many from the profile (``timing.reread_miss``).
        The sample's own re-touches of such a table within a batch count apart, by their
        distance (``_retouch_metrics``, ``timing.table_retouch_miss``).
        Limitations: a launch emulated whole counts each unit once a batch, re-touched or
        not, and stores' re-touches not at all."""
        if not self.alloc_sectors:
            return int(round(np.count_nonzero(marks) * scale)), 0, 0, 0
        total = scattered = again = span = 0.0
        for i, (lo, hi) in enumerate(self.alloc_sectors):
            a, b = lo // per, -(-hi // per)
            sub = marks[a:b]
            n = np.count_nonzero(sub)
            if not n:
                continue
            runs = int(sub[0]) + np.count_nonzero(sub[1:] & ~sub[:-1])
            first = min(n * scale, b - a)
            total += first
            if runs > SCATTER_RUNS_SHARE * n * (1.0 - n / (b - a)) + 1:
                if scattered_out is not None:
                    scattered_out.add(i)
                scattered += first
                if n * scale > b - a:
                    again += n * scale - (b - a)
                    span += self._retouch_span(i, (hi - lo) * 32)
        return int(round(total)), int(round(scattered)), int(round(again)), int(span)

    def _retouch_span(self, i: int, nbytes: int) -> int:
        """The bytes between a scattered allocation's re-touches of a unit, for
        ``timing.reread_miss``: the allocation's size for a gather at random; for one whose
        gathers mostly walk a lattice (``_note_lattice``), the units of one pass down it,
        nbytes / stride lattice points, a sector each, as the threads after it come back
        for the sector's next words (``probe/gather-ldg``'s column walk of a 64 MiB matrix:
        4096 rows, 128 KiB between re-touches, which L2 holds; ncu reads 134 MB from DRAM
        where every re-touch missing would be 600)."""
        rec = self.lattice.get(i)
        if rec is None or not rec[2] or rec[1] < LATTICE_SHARE * rec[0]:
            return nbytes
        return min(nbytes, nbytes // rec[2] * 32)

    def _retouch_metrics(self, scattered: set, scale: float) -> dict[str, float]:
        """Re-touches within a batch by loads and atomics, extrapolated, in the sectors
        DRAM reads if they miss (a 64-byte chunk for a sector re-touched alone), and the bytes a
        block touched in between at RETOUCH_QUANTILES evenly spaced quantiles (q0 the
        lowest; each the mean distance of the bin it falls in).  Allocations touched at
        random count apart (``simt__l2_retouch_table_*``, with the sectors atomics
        re-touched, which go back to DRAM again if they missed): beyond the sample's own
        re-touches, theirs are ``simt__dram_reread_chunks64`` 's (L2 keeps a share of
        such a table, ``timing.reread_miss``)."""
        out = {}
        for name, sel in (("", [i for i in range(len(self.retouch)) if i not in scattered]),
                          ("table_", sorted(scattered))):
            h = self.retouch[sel].sum(axis=0)
            dsum = self.retouch_sum[sel].sum(axis=0)
            n = float(h.sum())
            out[f"simt__l2_retouch_{name}sectors.sum"] = int(round(n * scale))
            if name:
                out["simt__l2_retouch_table_rmw_sectors.sum"] = int(round(float(self.retouch_rmw[sel].sum()) * scale))
            else:
                scat = float(self.retouch_scat[sel].sum())
                out["simt__l2_retouch_scattered_sectors.sum"] = int(round(scat * scale))
            cum = np.cumsum(h)
            for q in range(RETOUCH_QUANTILES):
                b = int(np.searchsorted(cum, (q + 0.5) / RETOUCH_QUANTILES * n)) if n else 0
                out[f"simt__l2_retouch_{name}block_bytes.q{q}"] = int(round(dsum[b] / h[b])) if n else 0
        return out

    def metrics(self, scale: float = 1.0) -> dict[str, float]:
        """Totals; ``scale`` extrapolates a sample of blocks to the whole grid."""
        out = {m: 0 for m in METRICS}
        for k, v in self.total.items():
            v = v * scale
            out[k] = int(round(v)) if scale != 1.0 or float(v).is_integer() else v
        inst = self.total.get(INST, 0.0)
        out[INST] = int(round(inst * scale))
        out[THREAD_INST] = int(round(self.total.get(THREAD_INST, 0.0) * scale))
        out[RATIO] = round(self.total.get(THREAD_INST, 0.0) / inst, 4) if inst else 0.0
        for key, weights in ((ISSUE_SLOTS, self.slot_weights), (ALU_SLOTS, self.alu_weights),
                             (BIT_SLOTS, self.bit_weights), (FP64_SLOTS, self.fp64_weights),
                             (IMAD_SLOTS, self.imad_weights), (SHFL_WAVES, self.shfl_weights)):
            # (no IMAD or SHFL count where a kernel has no 64-bit product or shuffle: its
            # counters stay as they were)
            if weights is not None and (key not in (IMAD_SLOTS, SHFL_WAVES) or weights.any()):
                slots = sum(d.get(INST, 0) * weights[pc] for pc, d in enumerate(self.per_pc) if d)
                out[key] = int(round(slots * scale))
        if self.touched is not None:
            # DRAM moves each sector read once and each sector written once (an in-place
            # update or an atomic read-modify-write moves its bytes twice)
            n = np.count_nonzero(self.touched) + np.count_nonzero(self.written)
            out["simt__dram_footprint_sectors.sum"] = int(round(n * scale))
            # DRAM reads 64 bytes at a time: a sector read alone costs its neighbour too
            t = self.touched
            chunks = t[0:len(t) - 1:2] | t[1::2]
            if len(t) % 2:
                chunks = np.r_[chunks, t[-1]]
            # (a scattered allocation's units once, and its re-touches apart)
            scat: set = set()
            rd, rd_scat, rd_again, rd_span = self._extrapolated(chunks, 2, scale, scat)
            wr, wr_scat, wr_again, wr_span = self._extrapolated(self.written, 1, scale)
            out["simt__dram_read_chunks64.sum"] = rd
            out["simt__dram_written_sectors.sum"] = wr
            out["simt__dram_scattered_chunks64.sum"] = rd_scat
            out["simt__dram_scattered_sectors_written.sum"] = wr_scat
            # a scattered store writes part of a sector, which DRAM cannot take alone: the
            # sector is read in first (those no load or atomic of the launch read)
            _, fill, fill_again, _ = self._extrapolated(self.written & ~self.touched, 1, scale)
            out["simt__dram_fill_sectors.sum"] = fill
            out["simt__dram_refill_sectors.sum"] = fill_again
            out["simt__dram_reread_chunks64.sum"] = rd_again
            out["simt__dram_rewritten_sectors.sum"] = wr_again
            out["simt__dram_retouched_bytes.max"] = max(rd_span, wr_span)
            if self.retouch is not None:
                out.update(self._retouch_metrics(scat, scale))
        # the busiest sector: its chain's lanes from the sampled blocks, extrapolated by the
        # share of blocks that hit it (a histogram bin: all of them; a per-block counter:
        # one), and how many of them float or double adds take
        hot_lanes = hot_fp = 0
        hot_sector = None
        if self.hot:
            # (the longest chain: a float add takes FP_CHAIN_COST integer adds' time)
            a = max(self.hot, key=lambda x: self.hot[x] + (FP_CHAIN_COST - 1) * self.hot_fp.get(x, 0))
            hot_sector = (a, self.hot[a])
            sp = self.hot_span.get(a, [0, 0])
            frac = min(1.0, (sp[1] - sp[0] + 1) / max(1, self.run_blocks))
            hot_lanes = self.hot[a] * (1 + (scale - 1) * frac)
            hot_fp = self.hot_fp.get(a, 0) * (1 + (scale - 1) * frac)
        out["simt__global_atomic_hot_address_lanes.max"] = int(round(hot_lanes))
        out["simt__global_atomic_hot_fp_lanes.max"] = int(round(hot_fp))
        hot_req = 0
        if self.sector_reqs is not None and len(self.sector_reqs):
            j = int(np.argmax(self.sector_reqs))
            r = int(self.sector_reqs[j])
            if r:
                frac = min(1.0, (int(self.sector_bmax[j]) - int(self.sector_bmin[j]) + 1) / max(1, self.run_blocks))
                hot_req = r * (1 + (scale - 1) * frac)
        out["simt__global_hot_sector_requests.max"] = int(round(hot_req))
        # L2 transactions (stores + atomics) per slice for the busiest allocation: spread
        # over min(L2_SLICES, span / SLICE_SPAN) slices; those spread over every slice, summed,
        # and added to the busiest small region's: its slice serves its share of them too
        small, small_alloc, small_span = (0.0, 0.0, 0.0, 0.0), None, 0
        racy_misses = {}                # racy regions: their L1 misses a slice, their store warps
        every, top_spread = (0.0, 0.0, 0.0, 0.0), (0.0, None, 0)
        top_extra = (0.0, 0.0, 0.0, 0.0)    # the spread region whose uneven slices add the most
        win_allocs = set()              # regions priced by the resident blocks' slices
        gpu = self.alloc_gpu
        for alloc, (trans, lo, hi, ser, cas, cas_ser, plain) in self.regions.items():
            base, off = gpu[alloc] if 0 <= alloc < len(gpu) else (lo, None)
            slices = region_slices(lo, hi, None if off is None else off + lo - base)
            spread = slices == L2_SLICES
            if spread:
                # plain stores spread over every slice queue in none: what they cost is
                # the lines they reach L2 in (l2_lines, cal_scatter) and L2's bandwidth
                # (an array of structs written member by member: probe/particles-aos)
                trans -= plain
            elif alloc in self.racy:
                # plain stores reach the slice merged, and a racy read-modify-write's
                # loads miss L1 after them (simt.racy; simt.timing prices the misses)
                counted, sends, pairs, stores = self.racy[alloc]
                trans += sends - counted
                if self._read(lo, hi):
                    racy_misses[alloc] = (racy.MISS_PER_GROUP_SECTOR * pairs * scale / slices,
                                          stores * scale)
            work = even = tuple(v * scale / slices for v in (trans, ser, cas, cas_ser))
            share = self.busiest_slice_share(alloc, lo, hi, slices, off)
            uneven = windowed = 0.0
            if hi - lo + 1 > HASH_SPAN:
                # the launch's busiest slice, or the resident blocks' (simt.slicewin)
                windowed, coupled = self.window_share(alloc, base, off, hot_sector)
                uneven = self.uneven_share(alloc, lo, hi, base, off, hot_sector)
                if coupled:
                    uneven = max(uneven, windowed)
                    win_allocs.add(alloc)
            if uneven > max(share, 1.0 / slices) and share * slices < CONCENTRATED:
                # hot lines on few GPU slices (gpu_slice): the busiest one's share
                work = tuple(v * uneven * slices for v in work)
            elif share * slices > 1.0:
                # most of the region's atomics on one slice: that slice's work, alone
                work = tuple(v * share * slices for v in work)
                spread = False
            if spread:
                # regions spread over every slice share every slice: their work adds up
                # (a COO's row counts and row minima: probe/coo-row-stats, unseen52/);
                # where a region's hot lines put more on its busiest slice, that excess is
                # its own: other arrays' hot lines hash to other slices, so one region's
                # excess (the largest) joins the even shares (a well's three totals at the
                # same drifting lines: probe/peaceman-wells-atomic, unseen177/)
                every = tuple(a + b for a, b in zip(every, even))
                if work[0] - even[0] > top_extra[0]:
                    top_extra = tuple(a - b for a, b in zip(work, even))
                if work[0] > top_spread[0]:
                    top_spread = (work[0], alloc, hi - lo + 1)
            elif work[0] > small[0]:
                small, small_alloc, small_span = work, alloc, hi - lo + 1
        # the busiest slice: the busiest small region's, which serves its share of the
        # spread regions' work as well (a BFS's queue tail, one word, beside its CAS on
        # dist over 8 MiB: Nsight's busiest slice holds both, timing_investigation/bfsq/);
        # where it lies (span, arrivals) is the larger part's
        every = tuple(a + b for a, b in zip(every, top_extra))
        best = tuple(a + b for a, b in zip(small, every))
        if small[0] >= every[0]:
            best_alloc, best_span, spread_part = small_alloc, small_span, False
        else:
            best_alloc, best_span, spread_part = top_spread[1], top_spread[2], True
        when = None
        if best_alloc is not None:
            arr = self.arrivals.get(best_alloc)
            when = arr[1 if spread_part else 0] if arr else None
        for name, v in zip(("transactions", "serialized", "cas_transactions", "cas_serialized"), best):
            out[f"simt__l2_slice_{name}.max"] = int(round(v))
        if small_alloc in racy_misses:
            # the busiest small region's, if racy: its L1 misses, and the warp stores it had
            misses, stores = racy_misses[small_alloc]
            out["simt__l2_slice_racy_misses.max"] = int(round(misses))
            out["simt__racy_store_warps.sum"] = int(round(stores))
        if best_alloc is not None and best_alloc in self.atom_spans:
            got = block_spans(*self.atom_spans[best_alloc])
            if got is not None:
                out["simt__l2_region_span_bytes.max"] = int(best_span)
                out["simt__l2_region_block_span_bytes.max"] = round(got[2], 1)
                out["simt__l2_region_span_per_block.max"] = round(got[1], 3)
        # the resident blocks' window, their reach, priced it already (timing.slices_in_turn)
        out["simt__l2_region_windowed.max"] = int(best_alloc in win_allocs)
        if when is not None and when.n:
            # when the busiest slice's transactions were issued (simt.arrivals)
            for q, v in enumerate(when.quantiles()):
                out[f"simt__l2_slice_arrival_cycles.q{q}"] = round(v, 1)
        # lanes a lockstep batch runs at once: a CAS loop's retries grow with them
        out["simt__lockstep_threads.max"] = self.lockstep_threads
        out["simt__shared_atomic_hot_address_lanes.max"] = int(round(self.shared_hot_max))
        for kind in ("ld", "st", "ld_gather"):
            out[f"simt__l2_lines_{kind}.sum"] = int(round(self.l2_lines.get(kind, 0) * scale))
        # partial sectors beyond a line's first that scattered stores send L2 (_own_sector_extra)
        out["simt__l2_partial_sectors_st.sum"] = int(round(self.l2_lines.get("st_partial", 0) * scale))
        # what L1 saves of those and of the lines where it merges back-to-back stores (_store_merge)
        for key, name in (("st_merge", "lines"), ("st_merge_own", "own_lines"),
                          ("st_merge_partial", "partial_sectors")):
            if self.l2_lines.get(key):
                out[f"simt__l2_st_merge_{name}.sum"] = int(round(self.l2_lines[key] * scale))
        if self.const_span:
            # SM cycles the constant cache's misses add to the LDCs' passes, at full
            # occupancy (a loop reading several tables a trip: simt.constcache)
            extra = constcache.pass_extra(self.const_span, self.kept_loop, constcache.reuse(self.const_reads))
            cyc = sum(self.per_pc[pc].get(CONST_PASSES, 0) * e for pc, (e, _) in extra.items() if e)
            if cyc:
                out[CONST_MISS_CYCLES] = int(round(cyc * scale))
                out[CONST_MISS_STREAMS] = max(k for e, k in extra.values() if e)
            # and the misses of a table read at scattered words, where the streams' rule
            # charges none (cscat/)
            scat = constcache.scatter_miss(self.const_reads, self.const_lines, self.kept_loop,
                                           self.const_follow)
            cyc = sum(self.per_pc[pc].get(CONST_PASSES, 0) * share * constcache.MISS_CYCLES
                      for pc, share in scat.items() if not extra.get(pc, (0.0, 0))[0])
            if cyc:
                out[CONST_SCATTER_CYCLES] = int(round(cyc * scale))
        # 128-byte lines of global load requests, L1 hits included (L1's data pipe)
        out["simt__l1_lines_ld.sum"] = int(round(self.l1_lines * scale))
        # the cycles L1's data pipe takes for them (l1_gather_waves)
        out["simt__l1_wavefronts_ld.sum"] = int(round(self.l1_waves * scale))
        out["simt__warp_inst.max"] = int(self.warp_inst.max()) if len(self.warp_inst) else 0
        if self.wpb == 2 and self.warp_inst.sum():
            # blocks of two warps: an SM gives a block's warp 0 an even slot, so every warp 0
            # shares two of the four sub-partitions (timing_investigation/subpart/); the
            # busier of the two warps' shares of the instructions
            even, odd = int(self.warp_inst[0::2].sum()), int(self.warp_inst[1::2].sum())
            out[PAIR_SHARE] = round(max(even, odd) / (even + odd), 4)
        if self.finish.any():
            nb = max(1, self.run_blocks)
            fin = self.finish[: nb * self.wpb].reshape(nb, self.wpb)
            blk = fin.max(axis=1)
            out["simt__block_cycles.mean"] = round(float(blk.mean()), 1)
            out["simt__block_cycles.max"] = round(float(blk.max()), 1)
            # where in the grid the longest block lies (its rank among the emulated blocks,
            # which are in the grid's order): it cannot end before it starts
            out["simt__block_cycles.max_at"] = round((int(blk.argmax()) + 0.5) / nb, 4)
            # a warp's slot on the SM frees when it exits, before its block ends
            # (timing_investigation/warpslots/): the warps that exit early in their
            # block's life count their own life, the others their block's
            eff = np.where(fin < EARLY_EXIT * blk[:, None], fin, blk[:, None])
            out["simt__warp_cycles.mean"] = round(float(eff.mean()), 1)
        for name in ("simt__global_requests", "simt__barriers"):
            arr = self.warp_extra.get(name)
            out[name + ".max"] = int(arr.max()) if arr is not None and len(arr) else 0
        return out

    def per_line(self, scale: float = 1.0) -> dict[int, dict[str, float]]:
        lines: dict[int, dict[str, float]] = {}
        for pc, d in enumerate(self.per_pc):
            if not d:
                continue
            tgt = lines.setdefault(self.pc_lines[pc], defaultdict(float))
            for k, v in d.items():
                tgt[k] += v * scale
        out = {}
        for ln, d in sorted(lines.items()):
            dd = {k: (int(round(v)) if scale != 1.0 or float(v).is_integer() else v) for k, v in d.items()}
            inst = d.get(INST, 0)
            dd[RATIO] = round(d.get(THREAD_INST, 0) / inst, 4) if inst else 0.0
            out[ln] = dd
        return out
