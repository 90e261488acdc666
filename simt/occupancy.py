"""Occupancy: how many blocks of a launch an SM holds at once, and the registers per
thread that limit it.

An SM holds blocks up to the least of its limits: threads (2048), blocks (32), shared
memory, and registers (65,536 per SM, given to a warp in units of 256: a thread's count
rounded up to a multiple of 8).  A kernel that needs 44 registers a thread gets 48, so an
SM holds 40 of its warps (5 blocks of 256 threads), not 64.

nvcc's register count is not known without nvcc, so the emulator estimates it from its
own IR (``estimate_registers``): the most 32-bit values live at once (a live range runs
from a value's first to its last mention in the flat instruction list, over the whole of
any loop it is live across; 64-bit values count two, predicates none) plus 3.  Measured
against the counts CUDA 13's compiler gives for sm_90 on the 107 kernels of
``kernels_cuda/`` (docs/results/timing_investigation/regs/): within 3 for 71, never more
than 3 high, the same occupancy at 256 threads a block for 105; 43 for scan_lookback's
44 and 33 for reduce_best's 34.

Local arrays nvcc keeps in registers (``simt.promote.register_arrays``: every access at
an address known once its loops are unrolled) count too, each whole array live from its
first access to its last (session 59: ``probe/kinfu-icp-shfl-double``'s 29 doubles,
90 registers from nvcc, 29 here before, 87 now).  Over the 1105 probe kernels whose
nvcc counts are committed (``timing_investigation/*/probes*_res.txt``) this changed 110
estimates and gives the same occupancy at 256 threads a block as nvcc for 956, against
948 before.

Limitations: nvcc unrolls loops (by 4 when the trip count is unknown, fully when it is a
small constant) and hoists their loads, which takes registers the IR does not have: a
5 x 5 convolution gets 34 from nvcc and 14 here, a naive matrix product 32 and 12.  The
estimate is low there (over the 1105 probe kernels by 8 at the median), so it mostly
limits occupancy where the IR alone needs it; a kernel nvcc unrolls past 32 registers
(the convolution, and calibrate.cu's cal_l2) is predicted at the occupancy of its IR.  An
array kept in registers counts whole over its range, where nvcc frees elements as they
die (``sha256_msgs``: 82 here, 40 from nvcc).
"""
from __future__ import annotations

import re

import numpy as np

from .ir import KernelIR, Reg
from .promote import register_arrays
from .regalloc import back_edges, live_ranges, through_loops

REGS_PER_SM = 65536        # Hopper (and Ampere): 64 K 32-bit registers per SM
REG_ALLOC_UNIT = 256       # registers are given to a warp in units of 256
REG_OVERHEAD = 3           # nvcc's count minus the IR's peak live values, straight-line code


def _width(r: Reg) -> int:
    """32-bit registers a value takes: 64-bit two, predicates (bool) none."""
    if r.dtype.kind == "b":
        return 0
    return max(1, r.dtype.itemsize // 4)


def live_peak(ir: KernelIR) -> int:
    """The most 32-bit registers' worth of IR values live at one instruction, counting
    the local arrays nvcc keeps in registers (``promote.register_arrays``: ``double
    acc[29]`` is 58) as live from their first access to their last, over the whole of
    any loop that range enters."""
    first, last, byid = live_ranges(ir.code)
    if not ir.code:
        return 0
    delta = np.zeros(len(ir.code) + 1, np.int64)
    for k, r in byid.items():
        w = _width(r)
        delta[first[k]] += w
        delta[last[k] + 1] -= w
    loops = back_edges(ir.code)
    for a, z, words in register_arrays(ir):
        delta[a] += words
        delta[through_loops(a, z, loops) + 1] -= words
    return int(np.cumsum(delta).max())


def estimate_registers(ir: KernelIR) -> int:
    """Registers per thread nvcc would give the kernel, estimated (8 at least, 255 at most)."""
    return int(min(255, max(8, live_peak(ir) + REG_OVERHEAD)))


# shared memory the driver keeps for each resident block beside what it asks for (sm_80 and
# later: cudaDevAttrReservedSharedMemoryPerBlock, 1 KiB), so 77 KiB blocks fit two to an
# SM's 228 KiB, not three (CUDA's occupancy calculator does the same)
SHARED_RESERVED_PER_BLOCK = 1024

_BOUNDS = re.compile(r"__launch_bounds__\s*\(\s*([0-9]+)\s*(?:,\s*([0-9]+)\s*)?(?:,[^)]*)?\)"
                     r"\s*(?:[A-Za-z_]\w*\s+)*?([A-Za-z_]\w*)\s*[(<]")


def launch_bounds(text: str) -> dict:
    """Kernel name -> (maxThreadsPerBlock, minBlocksPerMultiprocessor) of each
    ``__launch_bounds__`` with integer literals in ``text`` (minBlocks 1 where absent).
    Limitations: bounds written with macros or expressions are not read."""
    out = {}
    for m in _BOUNDS.finditer(text):
        out[m.group(3)] = (int(m.group(1)), int(m.group(2) or 1))
    return out


def bounded_registers(regs: int, bounds) -> int:
    """The registers nvcc gives a kernel under ``__launch_bounds__(max_threads, min_blocks)``:
    at most what lets min_blocks blocks of max_threads fit an SM (nvcc spills the rest),
    so (1024) caps a thread at 64 and (256, 2) at 128."""
    if not bounds:
        return regs
    threads, blocks = bounds
    cap = regs
    while cap > 8 and blocks_by_registers(cap, threads) < max(1, blocks):
        cap -= 1
    return cap


def blocks_by_registers(regs_per_thread: int, threads_per_block: int) -> int:
    """Blocks an SM can hold by registers alone (0 regs: no limit, returns a large number)."""
    if regs_per_thread <= 0:
        return 1 << 30
    warps = -(-threads_per_block // 32)
    per_warp = -(-regs_per_thread * 32 // REG_ALLOC_UNIT) * REG_ALLOC_UNIT
    return REGS_PER_SM // (per_warp * warps)
