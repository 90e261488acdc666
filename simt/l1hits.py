"""When a warp-uniform global load finds its sector in the SM's L1 (timing only).

A warp whose active lanes all read one 32-byte sector (a broadcast: every lane on
``pts[j]``) gets it from L1 if an earlier load of its block brought that sector in: the
value is back ``LAT_L1`` cycles after issue, or when the fill that brought it arrives,
whichever is later (a load that finds the sector still on its way waits for it, as a
hit on a miss does).  Otherwise it is an L2 hit (``machine.LAT["global"]``, or DRAM) and
its fill time is recorded for the block's later loads.

L1 fills a sector at a time, not a line: a warp walking a table of float2 one element a
trip misses every fourth trip and waits an L2 trip there, which is what makes such loops
slow on the GPU though Nsight counts 97% of their sectors as hits
(docs/results/timing_investigation/l1unif/: on the H100 a uniform chase through L1 is 40
cycles a step, the same walk one sector at a time about 170 cycles a trip).

Limitations: only single-sector (uniform) loads are looked up; a coalesced or scattered
load is always priced as L2, though its sectors may be in L1.  Entries are per block
(blocks on one SM do not share them); a batch's table holds up to ``8 * KEEP`` sectors of
its blocks together and forgets the older half when full, not by L1's sets and ways; a
store or atomic of the block drops the sectors it writes.  ``__ldcg`` and other
cache hints are not seen: a hinted load is looked up as a plain one.
"""
from __future__ import annotations

import numpy as np

LAT_L1 = 30.0       # cycles from issue to data for a load that hits L1 (l1unif/'s uchase:
                    # 40 a step, less the emulator's 10 of index arithmetic)
KEEP = 2048         # sectors (64 KiB, a quarter of the H100's L1); a batch keeps 8 x this


class L1Table:
    """Per block of a batch: sector -> the time its fill arrives."""

    def __init__(self):
        self.ready: dict[int, float] = {}

    @staticmethod
    def keys(mat, act, size, blocks) -> np.ndarray:
        """Each row's (block, sector) key if its active lanes read one sector, else -1."""
        big = np.iinfo(np.int64).max
        lo = np.where(act, mat, big).min(axis=1)
        hi = np.where(act, mat, -1).max(axis=1) + size - 1
        one = (lo >> 5) == (hi >> 5)
        return np.where(one, (blocks.astype(np.int64) << 40) | (lo >> 5), -1)

    def load(self, keys: np.ndarray, t: np.ndarray, hit: np.ndarray) -> np.ndarray | None:
        """``t``: each row's data-ready time as priced (an L2 or DRAM access); ``hit``: its
        issue + ``LAT_L1``.  Returns the new times (None when no row hits), and records the
        misses' fills."""
        ready = self.ready
        out = None
        for i in np.flatnonzero(keys >= 0):
            k = int(keys[i])
            r = ready.get(k)
            if r is None or r > t[i]:       # not in L1, or its fill lands after a new one would
                ready[k] = float(t[i])
                continue
            if out is None:
                out = t.copy()
            out[i] = max(hit[i], r)
        if len(ready) > KEEP * 8:
            items = list(ready.items())
            self.ready = dict(items[len(items) // 2:])
        return out

    def write(self, keys: np.ndarray) -> None:
        """A store or atomic: the sectors it writes leave the table."""
        for k in keys[keys >= 0].tolist():
            self.ready.pop(k, None)
