"""A timing model: predict what a GPU will measure for a launch the emulator counted.

For one launch, every resource the kernel uses gets a time from the emulator's counters
and a rate measured on the GPU by ``simt calibrate --real`` (microbenchmarks in
``kernels_cuda/calibrate.cu``; rates are in the emulator's own units, and instructions
are counted as the SASS issue slots they stand for, simt.issue):

    t = launch + (l2^p + l2_lines^p + issue^p + shared^p + l1^p + shared_atomics^p
                  + constant^p + barrier^p + local^p + global_atomics^p + contention^p
                  + max(latency, dram)^p)^(1/p)

    (a p-norm: the largest component dominates, the others add less and less as p grows;
    p = 4, fitted on the measured tables, see ``combine``), or launch + slice_queue where
    that is larger

    dram            (distinct 64-byte chunks read x 64 B + distinct 32-byte sectors written
                    x 32 B) / DRAM bandwidth, and local lines' write-backs (local); a table
                    touched at random at a lower rate, its stores' sectors read first and
                    written back at a cost, and its re-touches that miss L2 (beyond the
                    share of it L2 keeps) again,
                    and a block's re-reads that miss because the GPU touched about L2's
                    size in between (retouch_miss) again (dram_time_us)
    l2              all global sectors x 32 B / L2 bandwidth (re-reads hit L2)
    l2_lines        128-byte lines per load / store request, summed / (active SMs x the
                    lines per cycle a scattered load / store reaches), less what L1 saves
                    by merging a warp's back-to-back stores where issue work spaces them
                    out (store_merge_share)
    issue           issue slots (simt.issue) / (active SMs x slots per cycle x clock)
                    + cycles expensive operations keep a sub-partition busy (integer division,
                    __match_any_sync per distinct value, ...: machine.OP_COST, measured)
                    / (active SMs x 4 sub-partitions x clock); blocks of two warps x twice
                    the busier warp's share of the instructions (PAIR_SUBPARTITIONS)
    shared          shared wavefronts (loads, stores and atomics: an atomic's lanes on one
                    word merge; one for each predicated-off shared access a warp issues)
                    and warp shuffles' SHFLs (one per 32 bits) x SHFL_WAVE_SHARE
                    / (active SMs x wavefronts per second)
    l1              the cycles L1 takes for global load requests (a line each; a gather four
                    lines a cycle or its bank conflicts, counters.l1_gather_waves) / (active SMs x
                    the same rate: L1's data pipe serves a wavefront a cycle); shared and l1 share
                    that pipe, so the larger of the two carries both
    shared_atomics  serialized shared-atomic steps / (active SMs x steps per second)
    constant        the constant cache's passes for LDCs (one per distinct address a warp's
                    __constant__ load reads; a warp-uniform one is an operand, no pass)
                    x CONST_PASS_CYCLES, plus the misses of a loop reading several tables
                    a trip (simt.constcache) / (active SMs x clock)
    barrier         warps' arrivals at __syncthreads() x BAR_WARP_CYCLES and at
                    __syncthreads_count/_and/_or x VOTE_WARP_CYCLES / (active SMs x clock)
    local           128-byte lines of local stores whose lanes write different words (local
                    memory is written through to L2) / lines per second for the whole GPU
                    + (local lines loaded that miss L2 + LOCAL_WB_SHARE x dirty local lines
                    written back) x 128 B / DRAM bandwidth, once the resident warps' frames
                    outgrow L2 (local_dram_bytes; the rest of the write-backs join dram)
    global_atomics  max(atomic lanes / rate, lanes on the busiest address / same-address rate)
    contention      store/atomic transactions (Nsight's sector rule) into the busiest L2 slice
                    x time per transaction (a slice per 512 bytes of a small region; x the
                    slices the region covers over those its resident blocks reach at once,
                    slices_in_turn: sorted keys keep one slice busy at a time); those
                    replaying an address of their request at the one-address atomic rate;
                    atomicCAS transactions x cas_cost, their retries rescaled from the
                    emulator's lockstep batch to the contenders the GPU has in flight (cas_retries)
    slice_queue     when that slice's queue empties: contention's work arriving when the
                    blocks issued it (simt.arrivals), in each wave (slice_queue_us)
    latency         blocks' critical paths (the emulator tracks when every lane's registers
                    are ready: a global load waits ~290 cycles from L2 and 850 from DRAM, a
                    warp keeps the loads of 4 loop trips in flight, ALU latency hides behind
                    issue, expensive operations take their measured latency (a quarter of
                    their wait holds the warp in a loop nvcc unrolls), a warp is done
                    once its stores and atomics are acknowledged) in waves over the SMs: a
                    wave takes the longer of scheduling its blocks and a block's life
                    (block_start_us + its path + DRAM queueing, dram_queue_us x u / (1 - u)
                    at DRAM utilisation u)

Active SMs are min(SMs, blocks), and the per-SM components divide the work by
blocks / ceil(blocks / SMs): the SMs given the most blocks set the pace (133 blocks: one SM
runs two); waves come from occupancy (threads, blocks, shared
memory and registers per SM; registers per thread estimated from the IR, simt.occupancy).

Limitations: no cache model beyond "first touch goes to DRAM, re-reads to L2" (L1
decides only which lines reach L2: counters' L1 sharing, and a block's share of its SM's
sectored L1, counters.l1_keep_lines),
"L2 keeps l2_reuse_bytes of a table touched at random" and "a block's re-read misses
once the GPU touched about l2_retouch_bytes in between"; no
instruction mix beyond machine.OP_COST (an FMA and a load cost the same issue slot); the
slots follow only the rewrites simt.issue lists, not nvcc's constant folding of fully
unrolled loops; registers nvcc spends on unrolled loops are not seen (the estimate is low
there); blocks that wait on each other through memory (a look-back's spin on an earlier
tile's flag) wait only as long as the emulator's order makes them; concurrent kernels are
not modelled (each launch is timed alone, as ``--real`` measures it).
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from . import constcache, counters as C, localreuse, racy
from .arrivals import QUANTILES as ARRIVAL_QUANTILES
from .occupancy import SHARED_RESERVED_PER_BLOCK, blocks_by_registers
from .errors import UsageError

PROFILE_DIR = Path(__file__).resolve().parent / "profiles"
SUBPARTITIONS = 4          # issue schedulers (SMSPs) per SM, each issues one instruction a cycle
# Local stores are written through to L2; lines whose lanes write different words queue
# there at about this rate for the whole GPU (H100: micro2.cu m_local_st, every lane of a
# warp on one of 8 words, 132 x 4 blocks of 256 threads: 34.6 M lines in 1.140 ms; see
# docs/results/timing_investigation/README.md)
LOCAL_STORE_LINES_PER_US = 30360.0
# local memory's DRAM traffic (local_dram_bytes) in the time: a load that misses L2 holds
# the local pipe for its line's DRAM time (the "local" component), and a dirty line's
# write-back holds it for this share of that, the rest overlapping as other DRAM traffic
# does: the nine probes of timing_investigation/lspill2/ whose local lines reach DRAM
# are at 0.58-1.07 of their measured times with 0, 0.74-1.47 with 1, 0.65-1.20 with 0.5
LOCAL_WB_SHARE = 0.5
# SM cycles the constant cache takes per pass of an LDC (simt.constcache, which measured it)
CONST_PASS_CYCLES = constcache.BASE_CYCLES
# SM cycles the barrier unit takes per warp arriving at a __syncthreads() (BAR.SYNC) and
# at a __syncthreads_count/_and/_or (BAR.RED and its B2R): 8 to 32 blocks an SM looping on
# barriers take 1.4-1.8 and 3.2-3.8 cycles a warp a trip on the H100, whatever the block
# size (docs/results/timing_investigation/barred/); one block alone is far faster
BAR_WARP_CYCLES = 1.6
VOTE_WARP_CYCLES = 3.6
# a warp's SHFL passes L1's data pipe as a shared access's wavefront does: Nsight counts
# the 64-bit shuffles of probe/hsi-ppi-skewers-shfl-minmax64 (167.8 M SHFLs) among its
# shared wavefronts, and that pipe bounds the kernel (timing_investigation/unseen224/;
# the rows with shuffles screened in shflpipe/)
SHFL_WAVE_SHARE = 1.0
# an SM puts a two-warp block's warp 0 on an even slot, sub-partition 0 or 2 (the
# slot mod 4, as %warpid shows; timing_investigation/subpart/where_h200.txt)
PAIR_SUBPARTITIONS = True
# what L2 takes for a partial sector beyond the first of its line, in a store request
# whose lanes each write a sector of their own, as a share of a line's time
# (l2_st_lines_per_cycle_sm): 0.56-0.70 on the H200 for records of 12-64 bytes written a
# field a loop trip (wmerge: 128 MiB), 0.6 on the H100 for bytes 32 apart (pstore)
PARTIAL_SECTOR_SHARE = 0.6
# where L1 merges a warp's back-to-back store requests: from none to all as the issue
# slots' time goes from this share of the unmerged l2_lines to the next, for lanes with a
# sector each and for lanes sharing sectors (store_merge_share)
MERGE_BUSY_LO, MERGE_BUSY_HI, MERGE_SHARED_HI = 0.25, 0.4, 1.0
# the components whose work spaces a warp's stores out: the issue slots alone (not DRAM's
# or the latency's: a kernel that only stores waits on its own stores there; not L1's or
# shared memory's, whose pipe the stores pass: probe/rec-spmm-csr-rowthread, eight floats
# 32 bytes apart after gathers that keep L1 busy, did not merge, timing_investigation/wmerge3/)
MERGE_SPACERS = ("issue",)
DEFAULT_GPU = "h100"
# a launch is reported bound by "latency+contention" when the slice's queue ends this
# much later than the largest component alone would (slice_queue_us)
QUEUE_BOUND = 1.05


@dataclass
class Profile:
    name: str
    device: str
    sm_count: int
    clock_ghz: float
    launch_us: float             # an empty kernel, as CUDA events time it
    dram_gbs: float              # DRAM bandwidth (read + write bytes per second)
    l2_gbs: float                # L2 bandwidth for re-reads
    issue_ipc: float             # issue slots (simt.issue) per cycle per SM
    warp_cpi: float              # cycles per warp instruction for a warp alone
    mem_latency_us: float        # one dependent global load
    barrier_us: float            # one __syncthreads() of a full block
    gatom_per_us: float          # global atomic lanes per microsecond, addresses spread
    gatom_same_per_us: float     # global atomic lanes per microsecond on one address
    satom_per_us_sm: float       # serialized shared-atomic steps per microsecond per SM
    shared_waves_per_us_sm: float  # shared wavefronts per microsecond per SM
    block_wave_us: float = 0.0   # scheduling one wave of blocks onto every SM (8 blocks per SM)
    block_start_us: float = 0.0  # a block's time beyond its critical path ...
    dram_queue_us: float = 0.0   # ... plus DRAM queueing, a x u / (1 - u) at DRAM utilisation u
    ilp_latency_us: float = 0.0  # a global load in a loop with independent loads in flight
    sector_req_us: float = 0.0   # one warp store request to a sector other warps also hit
    atom_sector_req_us: float = 0.0  # one warp atomic request to a contended sector
    l2_transaction_us: float = 0.0   # one store/atomic transaction in a busy L2 slice
    cas_cost: float = 0.0        # an atomicCAS transaction costs the slice this many atomicAdd ones
    cas_contention: float = 0.0  # CAS failures per success per contender in flight, at 32 contenders
    cas_contention_slope: float = 0.0  # ... falling as (contenders / 32)^-slope (see cas_retries)
    cas_contenders_max: float = 0.0    # ... and held beyond the most contenders calibrated
    cas_distinct: float = 0.0    # c of a steady state whose warps' CAS lanes all name different words
    overlap: float = 0.0         # fraction of the non-dominant components that adds up
    combine_p: float = 0.0       # components combine as a p-norm (0: the largest alone)
    l2_ld_lines_per_cycle_sm: float = 0.0  # scattered loads: 128-byte-line transactions per cycle per SM
    l2_st_lines_per_cycle_sm: float = 0.0  # scattered stores, the same
    l2_st_lines_alone_per_cycle_sm: float = 0.0  # ... what one SM sends while few do (0: the above)
    alu_ipc: float = 0.0         # integer ALU pipe slots (simt.issue) per cycle per SM (0: not measured)
    bit_ipc: float = 0.0         # POPC/FLO/BREV per cycle per SM (simt.issue.BIT_PIPE; 0: not measured)
    fp64_ipc: float = 0.0        # DADD/DMUL/DFMA/DSETP per cycle per SM (simt.issue.fp64_pipe_weights; 0: not measured)
    imad_ipc: float = 0.0        # 64-bit products' IMAD turns per cycle per SM (simt.issue.imad_pipe_weights; 0: not measured)
    spread_same_cost: float = 0.0  # a region spread over every slice: what its same-address replays
    #                                cost relative to a small region's (slice_busy_us; 0: the same)
    gatom_same_fp_per_us: float = 0.0  # float/double atomicAdd lanes per us on one address (0: the int rate)
    l2_reuse_bytes: float = 0.0  # of a table touched at random, the bytes L2 keeps (0: none)
    dram_random_eff: float = 0.0  # a re-touch's DRAM miss moves at this share of dram_gbs (0: 1)
    dram_rewrite_cost: float = 0.0  # a re-written sector's write-back costs this many read sectors (0: 1)
    l2_retouch_bytes: float = 0.0  # a block's re-touch misses L2 half the time after the GPU
    #                                touched this many bytes in between (0: re-touches hit)
    l2_mib: float = 0.0          # L2's size: a region spread over every slice has this
    #                                GPU's slices (0: the 50 MiB of counters.L2_BYTES)
    max_threads_sm: int = 2048
    max_blocks_sm: int = 32
    shared_per_sm: int = 228 * 1024
    pcie: dict = field(default_factory=dict)      # pinned/pageable copy bandwidths (GB/s)
    measured: dict = field(default_factory=dict)  # the raw microbenchmark figures

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True)


def available_profiles() -> list[str]:
    return sorted(p.stem for p in PROFILE_DIR.glob("*.json"))


def load_profile(name: str | None = None) -> Profile:
    """A GPU profile by name (``h100``, ``h200``) or a path to a profile JSON."""
    name = name or DEFAULT_GPU
    p = Path(name)
    if not (p.suffix == ".json" and p.exists()):
        p = PROFILE_DIR / f"{name.lower()}.json"
    if not p.exists():
        raise UsageError(f"no GPU profile {name!r} (available: {', '.join(available_profiles()) or 'none'}; "
                         "make one with `simt calibrate --real`)")
    data = json.loads(p.read_text())
    known = set(Profile.__dataclass_fields__)
    return Profile(**{k: v for k, v in data.items() if k in known})


@dataclass
class Prediction:
    ms: float
    components_us: dict
    bound: str
    occupancy_blocks_per_sm: int
    waves: int

    def as_dict(self) -> dict:
        return {"ms": self.ms, "components_us": self.components_us, "bound": self.bound,
                "blocks_per_sm": self.occupancy_blocks_per_sm, "waves": self.waves}


def occupancy_limits(prof: Profile, threads_per_block: int, shared_bytes: int, regs: int = 0) -> dict:
    """Blocks an SM can hold by each of its limits: threads, blocks, shared memory and
    registers (``regs``: registers per thread, 0 for no register limit; simt.occupancy)."""
    warps = -(-threads_per_block // 32)
    return {"threads": prof.max_threads_sm // (warps * 32),
            "blocks": prof.max_blocks_sm,
            "shared memory": prof.shared_per_sm // (shared_bytes + SHARED_RESERVED_PER_BLOCK)
                             if shared_bytes else prof.max_blocks_sm,
            "registers": min(prof.max_blocks_sm, blocks_by_registers(regs, threads_per_block))}


def _occupancy(prof: Profile, threads_per_block: int, shared_bytes: int, regs: int = 0) -> int:
    """Blocks per SM: the least of the limits (``occupancy_limits``)."""
    return max(1, min(occupancy_limits(prof, threads_per_block, shared_bytes, regs).values()))


def resident_blocks(prof: Profile, grid_blocks: int, blocks_per_sm: int) -> int:
    """Blocks the GPU holds at once: the grid, or every SM full."""
    return min(grid_blocks, prof.sm_count * blocks_per_sm)


def occupancy_report(r, prof: Profile) -> dict:
    """What limits a launch's occupancy (a ``LaunchResult``), for reports: blocks per SM,
    the limit that sets it (the first of threads, blocks, shared memory, registers that
    does), the estimated registers per thread, waves and the model's bound."""
    regs = int(r.metrics.get(C.REGS, 0))
    lim = occupancy_limits(prof, r.config.block.size, r.shared_bytes, regs)
    p = predict_result(r, prof)
    bps = p.occupancy_blocks_per_sm
    return {"blocks_per_sm": bps, "limited_by": next((k for k, v in lim.items() if v == bps), "threads"),
            "registers_per_thread_est": regs, "waves": p.waves, "bound": p.bound}


def predict(metrics: dict, grid_blocks: int, threads_per_block: int, shared_bytes: int,
            prof: Profile) -> Prediction:
    """Predicted time of one launch from its counters (``LaunchResult.metrics``)."""
    g = metrics.get
    lim = occupancy_limits(prof, threads_per_block, shared_bytes, int(g(C.REGS, 0)))
    bps = max(1, min(lim.values()))
    active = max(1, min(prof.sm_count, grid_blocks))
    # the SM-bound components go at the pace of the SMs that get the most blocks,
    # ceil(blocks / SMs) each: a grid of 133 blocks has one SM run two, and takes twice a
    # block's time where its issue is the limit (fma-tail-133, timing_investigation/unseen55/)
    sms = grid_blocks / math.ceil(grid_blocks / prof.sm_count) if grid_blocks > 0 else 1
    waves = max(1, math.ceil(grid_blocks / (prof.sm_count * bps)))
    clock_per_us = prof.clock_ghz * 1e3
    sectors = l2_sectors(metrics)
    resident = resident_blocks(prof, grid_blocks, bps)
    dram_us = dram_time_us(metrics, prof, resident)
    # local memory beyond L2: its loads that miss wait for DRAM in the local pipe, its
    # dirty lines' write-backs share DRAM (local_dram_bytes)
    loc_rd, loc_wb = local_dram_bytes(metrics, prof, resident * -(-threads_per_block // 32))
    dram_bw = prof.dram_gbs * 1e3
    dram_us += (1.0 - LOCAL_WB_SHARE) * loc_wb / dram_bw
    comp = {
        "dram": dram_us,
        "l2": sectors * 32 / (prof.l2_gbs * 1e3),
        # a request reaches L2 as one transaction per 128-byte line it touches: a gather
        # or a column-wise store sends one per lane
        "l2_lines": (_rate(g("simt__l2_lines_ld.sum", 0), prof.l2_ld_lines_per_cycle_sm)
                     + _rate(g("simt__l2_lines_st.sum", 0)
                             + PARTIAL_SECTOR_SHARE * g("simt__l2_partial_sectors_st.sum", 0),
                             st_lines_per_cycle_sm(prof, active)))
                    / (sms * clock_per_us),
        # SASS issue slots (simt.issue; IR instructions where a record has none) at the
        # measured rate, plus what expensive operations (integer division,
        # __match_any_sync, ...) keep a sub-partition busy beyond one slot
        # (or the integer ALU pipe's slots at its own, half, rate where they dominate, or
        # the bit-counting pipe's POPC/FLO/BREV at its quarter rate: simt.issue.BIT_PIPE,
        # or the FP64 pipe's double arithmetic at its half rate, or 64-bit integer products'
        # IMADs on the FMA pipe's heavy half at its half rate)
        "issue": max(g(C.ISSUE_SLOTS, g(C.INST, 0)) / prof.issue_ipc,
                     _rate(g(C.ALU_SLOTS, 0), prof.alu_ipc),
                     _rate(g(C.BIT_SLOTS, 0), prof.bit_ipc),
                     _rate(g(C.FP64_SLOTS, 0), prof.fp64_ipc),
                     _rate(g(C.IMAD_SLOTS, 0), prof.imad_ipc)) / (sms * clock_per_us)
                 + g(C.ISSUE_EXTRA, 0) / (sms * SUBPARTITIONS * clock_per_us),
        # (a warp whose lanes are all predicated off still passes the pipe once)
        "shared": (g(C.WAVES_LD, 0) + g(C.WAVES_ST, 0) + g(C.WAVES_ATOM, 0) + g(C.SHARED_PRED_OFF, 0)
                   + SHFL_WAVE_SHARE * g(C.SHFL_WAVES, 0))
                  / (sms * prof.shared_waves_per_us_sm),
        # global load requests, L1 hits too, pass L1's data pipe, which serves a wavefront
        # a cycle as it serves a shared one: a line of a coalesced request; a gather's lines
        # four a cycle, or its bank conflicts (counters.l1_gather_waves; timing_investigation/
        # l1/ and l1gather/)
        "l1": g("simt__l1_wavefronts_ld.sum", g("simt__l1_lines_ld.sum", 0))
              / (sms * prof.shared_waves_per_us_sm),
        "shared_atomics": g("simt__atomic_shared_serialized_steps.sum", 0) / (sms * prof.satom_per_us_sm),
        # the constant cache serves an LDC one distinct address at a time, and misses
        # where a loop reads several tables a trip, the more the more warps an SM
        # (simt.constcache)
        "constant": (g(C.CONST_PASSES, 0) * CONST_PASS_CYCLES
                     + g(C.CONST_MISS_CYCLES, 0)
                     * constcache.miss_share(resident / prof.sm_count * -(-threads_per_block // 32),
                                             int(g(C.CONST_MISS_STREAMS, 0)))
                     + g(C.CONST_SCATTER_CYCLES, 0))
                    / (sms * clock_per_us),
        # the SM's barrier unit takes the warps' arrivals one after another
        "barrier": (g(C.BAR_WARPS, 0) * BAR_WARP_CYCLES + g(C.VOTE_WARPS, 0) * VOTE_WARP_CYCLES)
                   / (sms * clock_per_us),
        "local": g(C.LOCAL_STORE_LINES, 0) / LOCAL_STORE_LINES_PER_US
                 + (loc_rd + LOCAL_WB_SHARE * loc_wb) / dram_bw,
        # the busiest sector's chain: a float add waits for the one before it, 2.4x an int
        # add's time (timing_investigation/fatom/, fpsector/)
        "global_atomics": max(g("simt__atomic_global_lanes.sum", 0) / prof.gatom_per_us,
                              (g("simt__global_atomic_hot_address_lanes.max", 0)
                               - g("simt__global_atomic_hot_fp_lanes.max", 0)) / prof.gatom_same_per_us
                              + g("simt__global_atomic_hot_fp_lanes.max", 0) / (prof.gatom_same_fp_per_us
                                                                                or prof.gatom_same_per_us)),
        # warps queueing on one L2 sector: stores and atomics to shared bins serialize there
        "contention": _slice_us(metrics, prof, grid_blocks * threads_per_block,
                                prof.sm_count * bps * threads_per_block)
                      * slices_in_turn(metrics, resident)
                      * spread_share(metrics, prof)
                      if prof.l2_transaction_us else
                      g("simt__global_hot_sector_requests.max", 0) *
                      (prof.atom_sector_req_us if g("simt__atomic_global_lanes.sum", 0) else prof.sector_req_us),
        # the emulator's critical path of each block (per-lane ready times, see machine.py),
        # blocks scheduled in waves over the SMs
        "latency": _latency_us(metrics, prof, grid_blocks, bps, waves, dram_us,
                               -(-threads_per_block // 32), lim)
                   if "simt__block_cycles.mean" in metrics else
                   waves * (prof.block_wave_us + g("simt__warp_inst.max", 0) * prof.warp_cpi / clock_per_us
                            + g("simt__global_requests.max", 0) * (prof.ilp_latency_us or prof.mem_latency_us)
                            + g("simt__barriers.max", 0) * prof.barrier_us),
    }
    if PAIR_SUBPARTITIONS and g(C.PAIR_SHARE, 0) > 0.5:
        # blocks of two warps: every warp 0 sits on two of the four sub-partitions (an even
        # slot), every warp 1 on the other two, so the busier of the two issues its share
        # of the slots at half the SM's rate (timing_investigation/subpart/: 16 busy warps
        # an SM take 1.90x as long as warp 0s of 64-thread blocks as one-warp blocks)
        comp["issue"] *= 2 * g(C.PAIR_SHARE)
    if g("simt__l2_slice_transactions.max", 0) and g("simt__atomic_global_lanes.sum", 0):
        # the slices that serve the atomics serve the gathers' lines too, one after the
        # other (probe/coo-spmv: 2^24 float atomics beside as many gathered x[col]);
        # a coalesced stream's lines pass at DRAM's pace beside them.  Plain stores do
        # not hold a slice so: spmv_csr_vector's few y stores beside 2^16 gathered lines
        # (timing_investigation/csrlat/, x1m: 19.6 us measured, 33 predicted with them)
        comp["contention"] += (_rate(g("simt__l2_lines_ld_gather.sum", 0), prof.l2_ld_lines_per_cycle_sm)
                               / (sms * clock_per_us))
    own = g("simt__l2_st_merge_own_lines.sum", 0) + PARTIAL_SECTOR_SHARE * g("simt__l2_st_merge_partial_sectors.sum", 0)
    shared = g("simt__l2_st_merge_lines.sum", 0)
    if (own or shared) and comp["l2_lines"] > 0:
        # back-to-back stores L1 merges where the stores do not keep it busy
        busy = max(comp[k] for k in MERGE_SPACERS) / comp["l2_lines"]
        saved = _rate(store_merge_share(busy) * own + store_merge_share(busy, MERGE_SHARED_HI) * shared,
                      st_lines_per_cycle_sm(prof, active)) / (sms * clock_per_us)
        comp["l2_lines"] -= min(saved, comp["l2_lines"])
    # shared wavefronts and global load lines pass the same data pipe of L1, one after
    # the other: the one with more work carries both (crc32-chunks: 16 lines a load
    # request beside table lookups with bank conflicts, timing_investigation/unseen26/)
    pipe = comp["shared"] + comp["l1"]
    comp["shared" if comp["shared"] >= comp["l1"] else "l1"] = pipe
    busy = combine(comp, prof)
    bound = max(comp, key=comp.get)
    if prof.l2_transaction_us and "simt__l2_slice_arrival_cycles.q0" in metrics:
        # the busiest slice's queue, fed as the blocks issue its transactions: atomics at
        # the end of every block of one wave queue after the blocks' loops
        comp["slice_queue"] = slice_queue_us(metrics, comp["contention"], comp["latency"], waves)
        if comp["slice_queue"] > QUEUE_BOUND * busy:
            bound = "latency+contention"
        busy = max(busy, comp["slice_queue"])
    total_us = prof.launch_us + busy
    return Prediction(ms=total_us / 1e3, components_us={k: round(v, 3) for k, v in comp.items()},
                      bound=bound, occupancy_blocks_per_sm=bps, waves=waves)


def l2_sectors(metrics: dict) -> float:
    """The sectors global accesses move between L1 and L2: stores', atomics' and
    reductions' all, a load's at the share of its lines that miss L1 (``simt__l2_lines_ld``
    of ``simt__l1_lines_ld``; sectors L1 serves never reach L2).  probe/mel-filterbank,
    whose lanes re-read the lines their neighbours read the trip before: Nsight's L2 sees
    14.4 M sectors of its 246.7 M, this share gives 15.0 M."""
    g = metrics.get
    l1_lines = g("simt__l1_lines_ld.sum", 0)
    missed = min(1.0, g("simt__l2_lines_ld.sum") / l1_lines) \
        if l1_lines and "simt__l2_lines_ld.sum" in metrics else 1.0
    return g(C.SECT_LD, 0) * missed + sum(g(k, 0) for k in (C.SECT_ST, C.SECT_ATOM, C.SECT_RED))


def dram_time_us(metrics: dict, prof: Profile, resident_blocks: int = 0) -> float:
    """DRAM time: distinct 64-byte chunks read and 32-byte sectors written at the streaming
    bandwidth, those of scattered allocations (``simt__dram_scattered_*``: a chunk here and
    there, each opening a DRAM row) at ``dram_random_eff`` of it and a scattered sector
    written back at ``dram_rewrite_cost`` read sectors, plus the re-touches that miss L2:
    of a randomly touched table (``reread_miss``) and a block's own re-reads after the
    GPU's ``resident_blocks`` touched more than L2 holds (``retouch_miss``), those of a
    64-byte chunk alone in its line (``simt__l2_retouch_scattered_sectors``) at the
    scattered rate."""
    g = metrics.get
    if "simt__dram_read_chunks64.sum" not in metrics:
        return g("simt__dram_footprint_sectors.sum", 0) * 32 / (prof.dram_gbs * 1e3)
    scat_rd, scat_wr = g("simt__dram_scattered_chunks64.sum", 0), g("simt__dram_scattered_sectors_written.sum", 0)
    stream = 2 * (g("simt__dram_read_chunks64.sum") - scat_rd) + g("simt__dram_written_sectors.sum", 0) - scat_wr
    rt_miss = retouch_miss(metrics, prof, resident_blocks)
    rt_scat = g("simt__l2_retouch_scattered_sectors.sum", 0)
    stream += (g("simt__l2_retouch_sectors.sum", 0) - rt_scat) * rt_miss
    wb = prof.dram_rewrite_cost or 1.0
    # (a sector filled before a partial write costs a 64-byte read, as any DRAM read;
    # a re-touched chunk alone in its line, as a scattered one)
    rand = 2 * (scat_rd + g("simt__dram_fill_sectors.sum", 0)) + scat_wr * wb + rt_scat * rt_miss
    rand += reread_miss(metrics, prof) * (2 * (g("simt__dram_reread_chunks64.sum", 0) + g("simt__dram_refill_sectors.sum", 0))
                                          + g("simt__dram_rewritten_sectors.sum", 0) * wb)
    rand += table_retouch_miss(metrics, prof, resident_blocks) * (
        g("simt__l2_retouch_table_sectors.sum", 0) + g("simt__l2_retouch_table_rmw_sectors.sum", 0) * wb)
    return (stream + rand / (prof.dram_random_eff or 1.0)) * 32 / (prof.dram_gbs * 1e3)


def local_dram_bytes(metrics: dict, prof: Profile, resident_warps: int) -> tuple[float, float]:
    """Bytes local memory moves through DRAM: (lines loaded that miss L2, dirty lines
    written back) x 128 B.  A line the warp touched sd distinct lines of its frame before
    (simt.localreuse's histograms) saw the GPU touch about sd x 128 B x the resident warps
    in between, and misses with ``counters.retouch_miss_p`` at C = L2's size
    (``l2_mib``): a frame's lines stay in L2 while the resident frames fit it.  Nsight
    Compute's DRAM bytes, less simt's global ones, for the nine probes whose frames
    outgrow L2 (timing_investigation/lspill2/): L2's 60 MB gives levenshtein-short 857 / 887
    MB read / written against Nsight's 1039 / 770; 45 MB fits rc4's best but sends arrays
    nvcc keeps in registers to DRAM (intra4x4-satd-modes); ``l2_retouch_bytes`` (73 MB)
    gives rc4 a fifth of Nsight's reads."""
    ld, wb = localreuse.histograms(metrics)
    cap = prof.l2_mib * 2 ** 20
    if not (any(ld) or any(wb)) or not cap:
        return 0.0, 0.0
    p = [C.retouch_miss_p(localreuse.bin_distance(b) * localreuse.LINE_BYTES * max(1, resident_warps), cap)
         for b in range(localreuse.BINS)]
    return (sum(n * q for n, q in zip(ld, p)) * localreuse.LINE_BYTES,
            sum(n * q for n, q in zip(wb, p)) * localreuse.LINE_BYTES)


def reread_miss(metrics: dict, prof: Profile) -> float:
    """The chance a re-touch of a randomly touched table misses L2: 1 - C / W for tables
    of W bytes beyond the C bytes of them L2 keeps (``l2_reuse_bytes``, about 45% of L2 on
    the H100 and the H200: timing_investigation/l2miss/), 0 for smaller ones.  Profiles
    without C count every re-touch as a miss."""
    span = metrics.get("simt__dram_retouched_bytes.max", 0)
    if not span:
        return 0.0
    if not prof.l2_reuse_bytes:
        return 1.0
    return max(0.0, 1.0 - prof.l2_reuse_bytes / span)


def table_retouch_miss(metrics: dict, prof: Profile, resident_blocks: int) -> float:
    """The share of the sample's own re-touches of a randomly touched table
    (``simt__l2_retouch_table_sectors``, and the atomics' sectors among them, which go back
    to DRAM again) that miss L2: the law of a block's re-reads (``retouch_miss``) over the
    bytes the GPU touched in between (``simt__l2_retouch_table_block_bytes.q*``).  A Bloom
    filter's atomicOr, a walk back through a parent table, a clause list gathered again:
    with 1 - C / W (``reread_miss``) a 128 MiB filter's 8.9 M re-touches in a sample's
    batch missed 0.76 of the time, and counted as L2 hits the filter wrote back 0.44
    sectors an atomic where the H200 wrote 0.90 (timing_investigation/unseen219/,
    tabretouch/)."""
    return retouch_miss(metrics, prof, resident_blocks, "table_")


def retouch_miss(metrics: dict, prof: Profile, resident_blocks: int, which: str = "") -> float:
    """The share of a block's re-touches (``simt__l2_retouch_sectors``) that miss L2.
    Between its two touches of a sector every resident block touches about as many
    bytes as this one (``simt__l2_retouch_block_bytes.q*``, quantiles over the
    re-touches), so the GPU touches d = that x ``resident_blocks`` bytes in between, and
    the sector misses with probability 1 / (1 + (C / d)^k): C = ``l2_retouch_bytes``
    (calibrate's ``reread`` launch) and k = ``counters.RETOUCH_STEEPNESS``, from Nsight Compute's DRAM
    bytes over a sweep of a warp re-reading its row (timing_investigation/retouch/: C is
    L2's size and some more, what L1 holds; stores count as much as loads).  ``which``
    "table_": those of randomly touched tables (``table_retouch_miss``)."""
    if not prof.l2_retouch_bytes or not metrics.get(f"simt__l2_retouch_{which}sectors.sum"):
        return 0.0
    qs = [metrics.get(f"simt__l2_retouch_{which}block_bytes.q{q}", 0) for q in range(C.RETOUCH_QUANTILES)]
    per = [C.retouch_miss_p(q * max(1, resident_blocks), prof.l2_retouch_bytes) if q else 0.0 for q in qs]
    return sum(per) / len(per)


CAL_BLOCKS_PER_SM = 8       # calibrate's "blocks" launch: waves of 8 empty blocks per SM


def warp_slot_share(metrics: dict, prof: Profile, bps: int, wpb: int, lim: dict, life_us: float) -> float:
    """The share of its life a block holds an SM for, when the SM's warp slots (not its
    block slots, shared memory or registers) limit its occupancy: a warp's slot frees when
    the warp exits, and another block starts once its warps fit, so blocks whose warps
    exit at different times overlap more than ``bps`` at a time.  An SM then serves a block
    in the larger of its warps' mean life x its warps / the SM's warp slots, and its life
    / the blocks the other limits allow.  On the H200, 132 x 64 blocks of 256 threads
    whose warp 0 spins and whose other warps exit at once take 0.45 of the time all eight
    spinning do, and 128-thread blocks 0.55; with 56 KiB of shared memory a block, or 127
    registers a thread, they take the same (timing_investigation/warpslots/: registers
    are held a block at a time, 16 blocks of 256 threads at 10-16 registers).  The warps'
    mean life counts those that exit early in their block's life (counters.EARLY_EXIT).
    probe/rle-encode-runs: a run's first lane scans to its end, most warps exit at once.

    Limitations: the register limit is the estimate's (simt.occupancy), often below
    nvcc's count, so kernels nvcc gives 17-32 registers may overlap here where the GPU
    does not (probe/pagerank-pull: 27 in nvcc's count, 12 estimated)."""
    others = min(lim["blocks"], lim["shared memory"], lim["registers"])   # held to the block's end
    warp, blk = metrics.get("simt__warp_cycles.mean", 0), metrics.get("simt__block_cycles.mean", 0)
    max_warps = prof.max_threads_sm // 32
    if not warp or not blk or others <= bps or bps != lim["threads"]:
        return 1.0                  # (the warp slots are not what limits the blocks)
    warp_life = life_us - (blk - warp) / (prof.clock_ghz * 1e3)
    per_block = max(warp_life * wpb / max_warps, life_us / others)
    return min(1.0, per_block * bps / life_us)


def _latency_us(metrics: dict, prof: Profile, grid_blocks: int, bps: int, waves: int,
                dram_us: float, wpb: int, lim: dict) -> float:
    """The blocks' critical paths in waves over the SMs.  A wave of w blocks per SM takes
    the longer of scheduling them (w x ``block_wave_us`` / 8, empty blocks) and a block's
    life: ``block_start_us`` + its critical path + the time its loads queue at DRAM,
    ``dram_queue_us`` x u / (1 - u) at DRAM utilisation u (the wave's DRAM time over its
    life; ``queued_life``).  Calibrated on cal_stream at 1 block per SM and cal_stream2
    at 8 (see docs/timing.md).  The longest block ends no sooner than the lives of the
    blocks ahead of it in the grid plus its own (``simt__block_cycles.max_at``).  Profiles
    without ``block_start_us`` add a scheduling cost per wave to the paths."""
    g = metrics.get
    clock_per_us = prof.clock_ghz * 1e3
    top, mean = g("simt__block_cycles.max", 0) / clock_per_us, g("simt__block_cycles.mean", 0) / clock_per_us
    if not prof.block_start_us:
        return max(top, waves * mean) + waves * prof.block_wave_us
    w = max(1, min(bps, -(-grid_blocks // prof.sm_count)))
    sched = w * prof.block_wave_us / CAL_BLOCKS_PER_SM
    # blocks whose warps exit early overlap more (warp_slot_share): fewer, fuller waves,
    # each with more of the launch's DRAM traffic to queue behind
    share = warp_slot_share(metrics, prof, bps, wpb, lim, prof.block_start_us + mean)
    full = waves * share
    life = queued_life(prof.block_start_us + mean, dram_us / full, prof.dram_queue_us)
    # the longest block starts once the blocks before it have made room: at block i of
    # the grid, (i / the blocks an SM now holds at once - 1) lives in (pagerank-pull: its
    # hub vertices' blocks, anywhere in the grid; mna-stamp-csr-atomic: its package
    # resistors' blocks half-way through it, whose warps all live as long as the block)
    at = metrics.get("simt__block_cycles.max_at", 1.0) * grid_blocks
    last = max(0.0, at * share / (prof.sm_count * bps) - 1.0) * life
    return max(prof.block_start_us + top + last, waves * sched, full * life)


def queued_life(c: float, d: float, a: float) -> float:
    """A block's life L when its path is c, its wave moves d of DRAM time, and DRAM
    queueing adds a x u / (1 - u) at utilisation u = d / L: the root of
    (L - c)(L - d) = a d, a smooth maximum of c and d."""
    return ((c + d) + math.sqrt((c - d) ** 2 + 4.0 * a * d)) / 2.0


def _slice_us(metrics: dict, prof: Profile, grid_threads: int, resident_threads: int) -> float:
    """The busiest L2 slice's time: atomicCAS transactions cost ``cas_cost`` times more,
    and their retries are rescaled from the emulator's lockstep batch to the contenders
    the GPU has in flight (``cas_retries``); a racy region's L1 misses cost
    ``racy.MISS_COST`` transactions each, those after the first stores on their SM."""
    # a racy read-modify-write's loads that miss L1 after other warps' stores (simt.racy)
    misses = (metrics.get("simt__l2_slice_racy_misses.max", 0) * racy.MISS_COST * prof.l2_transaction_us
              * racy.after_stores(metrics.get("simt__racy_store_warps.sum", 0), resident_threads / 32))
    if not metrics.get("simt__l2_slice_cas_transactions.max", 0):
        return slice_busy_us(metrics, prof) + misses
    return slice_busy_us(metrics, prof, (prof.cas_cost or 1.0) * cas_retries(
        metrics, prof, grid_threads, resident_threads)) + misses


def slice_busy_us(metrics: dict, prof: Profile, cas_factor: float = 1.0) -> float:
    """The busiest L2 slice's transactions at ``l2_transaction_us``, those that replay an
    address of their request at the one-address rate; its atomicCAS transactions' time
    multiplied by ``cas_factor``.  In a region spread over every slice the replays cost
    ``spread_same_cost`` times that: warps whose lanes share two or three words of 4 MiB
    (sorted keys: a COO's rows) take 1.8-2.2 times what the one-address rate over every
    slice gives, while on one slice's words they take what it gives (H200,
    timing_investigation/redgroups/; cal_gatom's ``gatom_spread_same`` measures it)."""
    g = metrics.get
    same = prof.spread_same_cost if prof.spread_same_cost and _spread(metrics) else 1.0

    def busy(trans, ser):
        return (trans - ser) * prof.l2_transaction_us + same * ser / prof.gatom_same_per_us

    cas_t, cas_s = g("simt__l2_slice_cas_transactions.max", 0), g("simt__l2_slice_cas_serialized.max", 0)
    return (busy(g("simt__l2_slice_transactions.max", 0) - cas_t, g("simt__l2_slice_serialized.max", 0) - cas_s)
            + busy(cas_t, cas_s) * cas_factor)


def spread_share(metrics: dict, prof: Profile) -> float:
    """The busiest slice's share of its work on this GPU relative to the emulator's: a
    region spread over every slice (``counters.L2_SLICES`` x ``SLICE_SPAN`` bytes or more)
    has as many slices as the GPU's L2 holds, and slices scale with its size.  2^24
    atomics at random words of 256 KiB to 16 MiB take 1.18-1.21 times as long on the
    H100 (50 MiB) as on the H200 (60 MiB), where a 1 KiB region takes the same
    (timing_investigation/spread/).  Limitations: regions of 4-64 KiB hash onto the two
    GPUs' slices differently (the H200 is 1.9 times slower at 16 KiB); not modelled."""
    if not prof.l2_mib or not _spread(metrics):
        return 1.0
    return C.L2_BYTES / (prof.l2_mib * 2 ** 20)


def _spread(metrics: dict) -> bool:
    """Whether the busiest region spans every L2 slice."""
    return metrics.get("simt__l2_region_span_bytes.max", 0) >= C.L2_SLICES * C.SLICE_SPAN


def slice_queue_us(metrics: dict, busy_us: float, latency_us: float, waves: int) -> float:
    """When the busiest L2 slice's queue empties, ``busy_us`` of work arriving as the
    blocks issue it.  Its transactions arrive at the quantiles of
    ``simt__l2_slice_arrival_cycles`` (cycles into a block's life, simt.arrivals) scaled
    to the life of a wave, ``latency_us / waves``, in each of the ``waves`` waves; a queue
    served in order at its rate ends at the latest a_j + (work arriving from a_j on)
    over the arrivals a_j.  Atomics spread over the blocks' lives or over many waves
    overlap the loops (the larger of the two, as before); those every block issues last,
    in one wave, follow them: a privatized histogram's flush to global memory
    (docs/results/timing_investigation/hloop/).  At least ``busy_us``."""
    life = metrics.get("simt__block_cycles.mean", 0)
    qs = np.array([metrics.get(f"simt__l2_slice_arrival_cycles.q{q}", 0.0) for q in range(ARRIVAL_QUANTILES)])
    if busy_us <= 0 or latency_us <= 0 or not life:
        return busy_us
    wave = latency_us / max(1, waves)
    t = np.sort((np.arange(max(1, waves))[:, None] + np.minimum(qs / life, 1.0)[None, :]).ravel()) * wave
    left = busy_us * (len(t) - np.arange(len(t))) / len(t)    # the work arriving from each on
    return float(max(busy_us, (t + left).max()))


def slices_in_turn(metrics: dict, resident: int) -> float:
    """How many times longer the busiest slice's work takes because the slices of a
    region take turns: the counters spread a region's transactions over the slices its
    whole span covers (``counters.SLICE_SPAN`` bytes a slice), as Nsight counts them, but
    the blocks resident at once hit only the part of it their keys reach: the width
    blocks reach together (``simt__l2_region_block_span_bytes``: one block's span, or a
    run of blocks' less their drift) and ``simt__l2_region_span_per_block`` more for each
    further block (counters.block_spans: how far the middle half of its warps' lanes
    moves, which a nearly sorted key's few lanes a row of cells away do not move,
    timing_investigation/sortscatter/).  Sorted keys (an atomicMax per
    sorted segment, probe/seg-max: 2^24 lanes on 1024 words, 16 in flight) keep one slice
    busy at a time: 10.5 ms on the H100 where the 8 slices working together would take 1.5.
    Random keys span the region in every block: 1.  Regions past ``counters.HASH_SPAN``
    whose resident blocks' slices the counters priced (simt.slicewin): 1."""
    g = metrics.get
    span = g("simt__l2_region_span_bytes.max", 0)
    if not span or g("simt__l2_region_windowed.max", 0):
        return 1.0
    whole = min(C.L2_SLICES, max(1, math.ceil(span / C.SLICE_SPAN)))
    reach = min(span, g("simt__l2_region_block_span_bytes.max", 0)
                + g("simt__l2_region_span_per_block.max", 0) * max(0, resident - 1))
    return whole / min(whole, max(1, math.ceil(reach / C.SLICE_SPAN)))


def store_merge_share(busy: float, hi: float | None = None) -> float:
    """The share of the store lines and partial sectors that L1 could save by merging a
    warp's back-to-back store requests (``counters.Counters._store_merge``) that it does
    save, given the kernel's busiest other component (``MERGE_SPACERS``) over its
    unmerged ``l2_lines``: none below MERGE_BUSY_LO, all from ``hi`` (MERGE_BUSY_HI by
    default), linear in between.  A warp's requests merge when they reach L1 one after
    the other; where stores are most of the work, the warps' requests interleave in L1's
    queue.  On the H200 (timing_investigation/smerge/: records of K floats written field
    by field after S sinf steps): with lanes 32 or 36 bytes apart (a sector each) nothing
    merged at 0.20-0.23 (S = 16) and six to seven of every seven at 0.57-0.65 (S = 48), and
    probe/fem-p1-element-quad7 (nine floats, 28 sinf) merged 4.4 of its 6.3 to one (the
    union of its requests' sectors) at about 0.36;
    with lanes 24 bytes apart (sharing sectors, MERGE_SHARED_HI) 2.1 of 6 at 0.32 and 5.9
    of 6 at 1.1."""
    hi = MERGE_BUSY_HI if hi is None else hi
    return min(1.0, max(0.0, (busy - MERGE_BUSY_LO) / (hi - MERGE_BUSY_LO)))


def st_lines_per_cycle_sm(prof: Profile, active: int) -> float:
    """Scattered store lines a cycle per active SM: L2 takes the GPU's
    ``l2_st_lines_per_cycle_sm`` x SMs however many send (what every SM sending measured),
    and one SM sends at most ``l2_st_lines_alone_per_cycle_sm``: 64 of the H100's SMs
    send at 0.47 lines a cycle each where all 132 share 0.25 (timing_investigation/fewsm/)."""
    full = prof.l2_st_lines_per_cycle_sm
    if not prof.l2_st_lines_alone_per_cycle_sm or active >= prof.sm_count:
        return full
    return min(prof.l2_st_lines_alone_per_cycle_sm, full * prof.sm_count / max(active, 1))


def cas_retries(metrics: dict, prof: Profile, grid_threads: int, resident_threads: int) -> float:
    """CAS attempts the GPU makes per attempt the emulator made.

    A CAS that fails (another lane changed the word first) retries.  In the emulator's
    lockstep batch of T threads all start together and every contender retries each
    round while one wins, so S contenders of a word cost (S - 1) / 2 failures per success
    (the emulator counts them; S is read back from that ratio).  On the GPU
    (``cal_gcas``; docs/results/timing_investigation/cas/) a success costs c(X) times the
    other contenders in flight on the word.  The contenders in flight are S / 2 on average
    when the grid fits the GPU at once, S * C' / T in a steady state of many waves
    (C' = min(resident threads, grid): the resident threads, replaced as they finish), so
        X = S / 2 * k,   k = (C' / T) * (2 - C' / grid),
        c(X) = cas_contention * (min(X, cas_contenders_max) / 32) ^ -cas_contention_slope
    the others are (S - 1) / 2 * k, and each lockstep failure becomes c(X) k failures on
    the GPU (a lone contender, S = 1, never fails; few contenders retry almost in
    lockstep; many queue in the L2 slice, and a round lets several succeed).  c is held
    beyond the most contenders ``cal_gcas`` measured: steady states with up to 4 times
    more show c of 0.27-0.49, not the law's fall.
    A CAS that fails because its word held another value before the instruction (a hash
    table's probe finding its slot taken, ``simt__atomic_cas_stale.sum``) lost no race:
    the GPU makes it once, as the emulator did, and it does not count towards S.  Nor
    does one whose lane then leaves the word (``simt__atomic_cas_retried.sum`` counts the
    lanes that CAS the word they lost again): a soup's corners welded by a CAS hash lose
    to another corner of their own vertex in the same warp and stop there (session 48,
    unseen111/: 2.31 of the measured time with those counted as races).
    Warps whose lanes all name different words (lane order: ``out[i % 64]``) retry more
    in a steady state than c(X) says, which was measured on hashed words whose lanes
    collide in a warp: ``cal_gcas`` on 64 words in lane order, about 8 waves, gives
    ``cas_distinct``, and
        c' = c + d * s * max(0, cas_distinct - c)
    with d the share of CAS lanes whose warp names different words
    (``simt__atomic_cas_distinct_lanes.sum``) and s = 1 - C' / grid the share of the grid
    that runs in the steady state (a grid that fits at once follows c(X) in any pattern).
    Limitations: the emulated sample sets which words contend and how often a success
    changes the word; a value that reaches a fixed point later in the
    grid (a product that becomes 0) is not foreseen, the sample's contention is
    extrapolated; two patterns only (lanes that collide in a warp or none that do, the
    CAS data in docs/results/timing_investigation/cas/ vary 25% between runs of one
    configuration)."""
    g = metrics.get
    lanes = g("simt__atomic_cas_lanes.sum", 0)
    failed = g("simt__atomic_cas_failed.sum", 0)
    stale = g("simt__atomic_cas_stale.sum", 0)
    lost = failed - stale                                   # races lost in the lockstep batch
    if "simt__atomic_cas_retried.sum" in metrics:
        # ... that the lane retried: one that lost to a lane writing its own key and left
        # (a hash insert's `prev == key`) or moved to the next slot waited for nothing
        lost = min(lost, g("simt__atomic_cas_retried.sum"))
    if not lanes or lost <= 0 or not prof.cas_contention:
        return 1.0
    succeeded = lanes - failed
    per_success = lost / max(succeeded, 1)                  # (S - 1) / 2 in lockstep
    k = cas_scale(g("simt__lockstep_threads.max", 0) or grid_threads, grid_threads, resident_threads)
    x = (per_success + 0.5) * k                             # S / 2 * k
    c = cas_law(x, prof)
    if prof.cas_distinct:
        c += cas_distinct_weight(metrics, grid_threads, resident_threads) * max(0.0, prof.cas_distinct - c)
    # the GPU makes each stale attempt once, each success once, and c(X) k failures
    # per failure of the lockstep batch
    return (stale + succeeded + c * k * lost) / lanes


def cas_law(x: float, prof: Profile) -> float:
    """c(X) of ``cas_retries``: failures per success per other contender in flight."""
    xc = min(x, prof.cas_contenders_max) if prof.cas_contenders_max else x
    return prof.cas_contention * (xc / 32.0) ** -prof.cas_contention_slope


def cas_distinct_weight(metrics: dict, grid_threads: int, resident_threads: int) -> float:
    """d * s of ``cas_retries``: the share of CAS lanes whose warp names different words,
    times the share of the grid that runs in a steady state."""
    lanes = metrics.get("simt__atomic_cas_lanes.sum", 0)
    if not lanes:
        return 0.0
    d = metrics.get("simt__atomic_cas_distinct_lanes.sum", 0) / lanes
    return d * max(0.0, 1.0 - min(resident_threads, grid_threads) / max(grid_threads, 1))


def cas_scale(batch: int, grid_threads: int, resident_threads: int) -> float:
    """k of ``cas_retries``: a word's contenders in flight on the GPU per contender in the
    emulator's lockstep batch of ``batch`` threads, twice over: (C' / T) (2 - C' / grid)."""
    conc = min(resident_threads, grid_threads)
    return conc / batch * (2.0 - conc / max(grid_threads, 1))


def cas_contenders(per_success: float, batch: int, grid_threads: int, resident_threads: int) -> float:
    """X of ``cas_retries``: contenders in flight per word on the GPU, from the emulator's
    failures per success in a lockstep batch of ``batch`` threads."""
    return (per_success + 0.5) * cas_scale(batch, grid_threads, resident_threads)


def _rate(n: float, per_cycle: float) -> float:
    return n / per_cycle if per_cycle else 0.0


def pnorm(vals, p: float) -> float:
    """(sum of v^p)^(1/p), scaled by the largest value so large p does not overflow."""
    vals = list(vals)
    top = max(vals)
    if top <= 0:
        return 0.0
    return top * sum((v / top) ** p for v in vals) ** (1.0 / p)


# The p-norm's exponent.  Unlike the profiles' rates it is not measured by a
# microbenchmark: it is fitted on the measured tables (docs/results/timing_*.json and
# timing_probes_*.json, session 48), where launches whose issue, shared wavefronts, L1 and
# critical paths are about equal took longer than the largest of them (probe/viterbi-acs:
# issue 147 us beside shared 146, 0.66 -> 0.79).  3 to 5 fit about as well; 4 keeps every
# catalog row within 1.5x and every ordering (timing_investigation/pnorm/).
COMBINE_P = 4.0


def combine(comp: dict, prof: Profile) -> float:
    """The busy time from the components: a p-norm, since resources overlap imperfectly
    (a scheduler that waits on a full shared-memory queue issues nothing else).  DRAM
    joins the critical paths first as the larger of the two: the paths already wait in
    DRAM's queue (``_latency_us``'s dram_queue_us x u / (1 - u)), and cal_stream, where the
    two are about equal, takes the larger (docs/timing.md).  Without ``combine_p``, the
    largest component plus ``overlap`` times the others."""
    comp = dict(comp)
    if "latency" in comp and "dram" in comp:
        comp["latency"] = max(comp["latency"], comp.pop("dram"))
    vals = list(comp.values())
    if prof.combine_p > 0:
        return pnorm(vals, prof.combine_p)
    top = max(vals)
    return top + prof.overlap * (sum(vals) - top)


def predict_result(res, prof: Profile, shared_bytes: int | None = None) -> Prediction:
    """Prediction for a ``LaunchResult``."""
    cfg = res.config
    sb = shared_bytes if shared_bytes is not None else getattr(res, "shared_bytes", cfg.shared_mem)
    return predict(res.metrics, cfg.grid.size, cfg.block.size, sb, prof)
