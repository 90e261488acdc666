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

A load of several sectors (coalesced or scattered) is looked up only against what the
same warp read at the same load on its previous trip (``TripSectors``): where every active
lane's sector is among those, the request is an L1 hit, its data back ``LAT_L1`` after
issue or when the previous trip's data arrived.  A warp comparing bytes one a trip
(``probe/lz77-match``: 87% of its load sectors hit L1, 87% issue-active on the H100) reads
the same two sectors trip after trip; one that moves every lane on to new sectors, or
whose lanes scatter, misses.

Limitations: a several-sector load finds only its own previous trip's sectors, not the
block's other loads' or other warps'; any global store or atomic of a warp forgets what
its loads read.  Entries are per block
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


class TripSectors:
    """Per load instruction: the sectors each warp's lanes read on its previous trip there,
    and when that data arrived (several-sector loads' L1 hits)."""

    def __init__(self, n_warps: int):
        self.n = n_warps
        self.at: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def load(self, pc: int, warps: np.ndarray, sec: np.ndarray, act: np.ndarray, t: np.ndarray,
             hit_t: np.ndarray) -> np.ndarray | None:
        """``sec``: each lane's sector (rows of ``warps``); ``t``: each row's data-ready time
        as priced; ``hit_t``: its issue + ``LAT_L1``.  Rows whose active lanes all read
        sectors the warp's lanes read here last trip get max(``hit_t``, that trip's ready
        time); returns the new times (None when no row hits) and records this trip."""
        st = self.at.get(pc)
        if st is None:
            st = self.at[pc] = (np.full((self.n, 32), -1, np.int64), np.zeros(self.n))
        prev, ready = st
        pv = prev[warps]
        out = None
        anyact = act.any(axis=1)
        same = (sec == pv) | ~act
        # a row can hit only if most of its lanes stayed on their own sector: then look
        # for the movers' sectors among all the lanes' last ones
        n_same = same.sum(axis=1)
        ok = anyact & (pv >= 0).any(axis=1)
        hit = np.flatnonzero(ok & (n_same == 32))             # no lane moved
        cand = np.flatnonzero(ok & (n_same >= 16) & (n_same < 32))
        if len(cand):
            c_sec, c_act, c_pv = sec[cand], act[cand], pv[cand]
            held = (c_sec[:, :, None] == c_pv[:, None, :]).any(axis=2) | ~c_act
            hit = np.concatenate((hit, cand[held.all(axis=1)]))    # (disjoint)
        if len(hit):
            out = t.copy()
            out[hit] = np.maximum(hit_t[hit], ready[warps[hit]])
        new_t = t if out is None else out
        prev[warps] = np.where(act, sec, -1)
        ready[warps] = np.where(anyact, new_t, ready[warps])
        return out

    def forget(self, warps: np.ndarray) -> None:
        """A global store or atomic of these warps: their loads find nothing of last trip."""
        for prev, _ in self.at.values():
            prev[warps] = -1
