"""The constant cache's misses when a loop reads several ``__constant__`` tables a trip.

An ``LDC`` costs the SM ``timing.CONST_PASS_CYCLES`` (2.0) a pass while the words a
loop reads stay in the constant cache.  Where a trip reads a word from each of K tables
(streams of words far apart, as an access list's fields kept as separate arrays), the
warps of an SM walking them at different points evict each other's lines, and each
pass costs more: measured on the H200 with 64 warps an SM
(docs/results/timing_investigation/cmiss/), SM cycles a pass:

    streams K             1    2    3    4    5    6    7    8
    each walks 256 B     2.1  2.0  2.0  2.0  4.1  5.9  7.4  9.3
    each walks 2 KB      2.1  2.1  5.5  9.2 14.2 16.4 17.0 20.1
    each walks 4 KB      2.2  2.2  6.8 10.9 16.0 17.6 18.0 21.1

The same words as one table of K-word records (a trip's words adjacent) cost 2.0-2.2 at
every size: one stream.  ``probe/acl-first-match-const`` (seven tables of 4 KB walked
over 2 KB) took about 17 a request on the GPU.  With fewer warps an SM the misses are
fewer (``cmiss_warps_h200.jsonl``, 4 KB tables): of the extra cycles at 64 warps, three or
four streams cost none at 8 warps, 0.71-0.79 at 16 and 0.91-0.93 at 32; seven or eight
cost 0.67-0.76 at 8 and 0.92-0.93 at 16.  That follows the lines the SM's warps read at
once, warps x streams: ``miss_share`` = 1 - (``HELD_LINES`` / (warps x streams))^2 with
32 lines held gives 0, 0.56-0.75, 0.89-0.94 and 0.67-0.75, 0.92-0.94 there.

One table read at scattered words (a binary search, a lookup by a hashed or data-dependent
index) misses too, whatever the warps an SM and the words a request (cscat/, H200): 2.0
cycles a pass up to 2 KB, 10 at 4 KB, 21 at 8 KB, 34 at 64 KB: each pass that misses costs
about ``MISS_CYCLES``, one after another, with about ``CACHE_LINES`` 64-byte lines kept.
``scatter_miss`` estimates the share of an ``LDC``'s passes that miss so: those not on a
line (or the next) its warp read at the previous execution of the load (a walk, which the
cache serves: cmiss/'s single streams) nor on one an earlier load of the table in the
same straight-line run read (a record's later fields, a cell's bilinear neighbours:
``simt.constrecord``), times the share of the reads outside the launch's ``CACHE_LINES``
most-read lines.

Limitations: measured on the H200 only (the H100's constant cache is taken to be the
same); streams beyond eight cost what eight do; the scattered reads' hits are estimated
from the launch's lines, not from the warps resident on one SM; a line an earlier load
of the run read is taken to be there still, however many lines the SM's other warps
read in between.
"""
from __future__ import annotations

import math

import numpy as np

WALKED = (256, 2048, 4096)                 # bytes each stream walks: the table's columns
PASS_CYCLES = {                            # streams -> SM cycles a pass at each WALKED
    1: (2.1, 2.1, 2.2), 2: (2.0, 2.1, 2.2), 3: (2.0, 5.5, 6.8), 4: (2.0, 9.2, 10.9),
    5: (4.1, 14.2, 16.0), 6: (5.9, 16.4, 17.6), 7: (7.4, 17.0, 18.0), 8: (9.3, 20.1, 21.1),
}
# SM cycles every pass of an LDC costs while its words stay in the cache (one distinct
# address of a warp's request): cm_div in docs/results/timing_investigation/const/, 2.0 on
# the H200 at 1 to 32 distinct adjacent words a request (timing.CONST_PASS_CYCLES)
BASE_CYCLES = 2.0
HELD_LINES = 32                            # the lines the SM's warps read at once that the cache holds
STREAM_GAP = 64                            # words of two loads this far apart: one stream
TRACK_WARPS = 64                           # warps whose reads tell how often a warp reads a word again
TRACK_READS = 256                          # ... over at most this many executions of the load
# a load whose warps read each word this many times or more reads a table it keeps
# whole, not a stream it walks: probe/leslie-double-shfl reads three tables of a species'
# rates (1.6 KB) a year, every warp all of them (its lanes' species differ), and costs
# 2.0 cycles a pass (4.6 ms for 592 M passes on the H200), not the 3.8 of three streams
# of 768 bytes; cmiss/'s walks read each word once a warp
HELD_REUSE = 4.0
# one table read at scattered words (cscat/): SM cycles a pass that misses the cache takes,
# and the 64-byte lines the cache keeps (2 KB tables: no misses; 4 KB: 27%; 64 KB: 95%)
MISS_CYCLES = 30.0
CACHE_LINES = 48


def extra_cycles(streams: int, walked: int) -> float:
    """SM cycles a pass costs beyond ``BASE_CYCLES`` for a loop reading ``streams`` streams,
    each over ``walked`` bytes (interpolated on log2 of the bytes between the measured
    sizes, held at their ends).  One or two streams cost the base (their 2.0-2.2 are
    ``const/``'s 2.0 within the sweeps' spread)."""
    if streams <= 2:
        return 0.0
    row = PASS_CYCLES[min(streams, 8)]
    x = math.log2(min(max(walked, WALKED[0]), WALKED[-1]))
    for (a, ca), (b, cb) in zip(zip(WALKED, row), zip(WALKED[1:], row[1:])):
        la, lb = math.log2(a), math.log2(b)
        if x <= lb:
            return max(0.0, ca + (cb - ca) * (x - la) / (lb - la) - BASE_CYCLES)
    return max(0.0, row[-1] - BASE_CYCLES)


def miss_share(warps: float, streams: int) -> float:
    """The share of the extra cycles (measured at 64 warps an SM) that ``warps`` resident
    warps an SM reading ``streams`` streams a trip pay."""
    held = warps * streams
    return 0.0 if held <= HELD_LINES else 1.0 - (HELD_LINES / held) ** 2


def reuse(reads: dict) -> dict:
    """pc -> how many times, on average, the first ``TRACK_WARPS`` warps to reach that
    ``LDC`` read each (warp, word) they read there, over its first ``TRACK_READS``
    executions.  ``reads``: pc -> arrays of (warp << 32 | word), one an execution."""
    out = {}
    for pc, parts in reads.items():
        if parts:                          # (none where no tracked warp got there)
            allr = np.concatenate(parts)
            out[pc] = len(allr) / max(1, len(np.unique(allr)))
    return out


def scatter_miss(reads: dict, lines: dict, loop_of: dict, follow: dict | None = None) -> dict:
    """pc -> the share of that ``LDC``'s passes that miss the constant cache on scattered
    lines of a table larger than it (cscat/), from ``reads`` (as ``reuse``'s, one array an
    execution), ``lines`` (pc -> (origin, every warp's passes per 64-byte line)) and
    ``loop_of`` (pc -> the loop nvcc keeps around it, or None).  A pass walks when its
    warp's previous execution of the load read at most two lines and this one is on one
    of them or the next (a table walked in order, which the cache serves: cmiss/'s single
    streams); the others scatter (a warp's first reads of a load outside a loop
    included), and miss as often as the passes fall outside the ``CACHE_LINES`` lines the
    launch's warps read most (an SM's resident blocks come from all over the grid).
    Loads that read at most ``CACHE_LINES`` lines: none.  ``follow`` (pc -> {execution:
    whether each read is on a line an earlier load of the table in the same straight-line
    run read}, ``simt.constrecord``) marks passes that hit: a record's later fields, a
    bilinear cell's neighbours read in one run.  (Session 58 also took the first warps'
    most-read lines where they shared more, a fit to ionex-tec-const-bilin's bilinear
    reads that the run's hits explain: without it and with them, that probe, nscore-
    backtr-const and film-energy-const-f64red are at 1.25, 0.86 and 0.91 on the H200.)"""
    out = {}
    for pc, parts in reads.items():
        if not parts or pc not in lines:
            continue
        cnt = lines[pc][1]
        cnt = cnt[cnt > 0]
        if len(cnt) <= CACHE_LINES:
            continue
        held = np.sort(cnt)[::-1][:CACHE_LINES].sum() / cnt.sum()
        looped = loop_of.get(pc) is not None
        prev = None                                     # the previous execution's (warp, line)s
        total = far = 0
        hits = (follow or {}).get(pc, {})
        for i, part in enumerate(parts):
            warp = part >> 32
            key = (warp << 32) | ((part & 0xFFFFFFFF) >> 6)
            if prev is None:
                seen = walk = np.zeros(len(part), bool)
            else:
                uw, nlines = np.unique(prev >> 32, return_counts=True)
                seen = np.isin(warp, uw)
                walk = np.isin(warp, uw[nlines <= 2]) & (np.isin(key, prev) | np.isin(key - 1, prev))
            if i in hits:
                walk = walk | hits[i]
            counted = seen | (not looped)
            total += int(counted.sum())
            far += int((counted & ~walk).sum())
            prev = np.unique(key)
        if total:
            share = far / total * (1.0 - held)
            if share > 0:
                out[pc] = share
    return out


def pass_extra(spans: dict, loop_of: dict, again: dict | None = None) -> dict:
    """pc -> (extra SM cycles a pass of that ``LDC`` costs at 64 warps an SM, the streams
    its loop reads).  ``spans``: pc -> (lowest, highest) address it read; ``loop_of``: pc
    -> the innermost loop nvcc keeps (not unrolled fully) around it, or None.  The loads
    of one loop whose address ranges lie within ``STREAM_GAP`` bytes of each other read
    one stream; each stream walks its range.  Loads outside any loop are read once a
    warp, not walked: none; nor loads whose warps read each word ``HELD_REUSE`` times or
    more (``again``, from ``reuse``): their tables stay in the cache."""
    groups: dict = {}
    again = again or {}
    for pc, (lo, hi) in spans.items():
        loop = loop_of.get(pc)
        if loop is not None and again.get(pc, 1.0) < HELD_REUSE:
            groups.setdefault(loop, []).append((lo, hi, pc))
    out = {}
    for members in groups.values():
        members.sort()
        streams = []                       # [lo, hi, pcs]
        for lo, hi, pc in members:
            if streams and lo <= streams[-1][1] + STREAM_GAP:
                streams[-1][1] = max(streams[-1][1], hi)
                streams[-1][2].append(pc)
            else:
                streams.append([lo, hi, [pc]])
        for lo, hi, pcs in streams:
            extra = extra_cycles(len(streams), hi - lo + 4)
            for pc in pcs:
                out[pc] = (extra, len(streams))
    return out
