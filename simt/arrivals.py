"""When a launch's L2 transactions arrive, for the timing model's queue at the busiest slice.

A privatized histogram's blocks loop over their data and then add their bins to global
memory with atomics: the atomics arrive at the end of each block's life, so in a launch
of one wave they queue at the bins' L2 slice after the loops, not beside them
(docs/results/timing_investigation/hloop/).  ``Arrivals`` keeps when each transaction was
issued, in cycles of its block's life on the emulator's critical-path clock, weighted by
transactions; ``simt.timing.slice_queue_us`` turns its quantiles into the time the queue
ends.

Limitations: the clock is the emulator's estimate of the block's critical path, blocks of
one batch start together (the emulator's lockstep batch), and a launch's waves are taken
to repeat the sampled blocks' pattern.
"""
from __future__ import annotations

import numpy as np

QUANTILES = 8           # simt__l2_slice_arrival_cycles.q0 .. q7
_CAP = 2048             # weighted points kept after a compaction


class Arrivals:
    """Issue times and weights (transactions), compacted to ``_CAP`` points of equal weight
    when they grow, so a long launch keeps a bounded summary."""

    def __init__(self):
        self.t: list[np.ndarray] = []
        self.w: list[np.ndarray] = []
        self.n = 0

    def add(self, clocks, weights) -> None:
        t = np.asarray(clocks, np.float64).ravel()
        w = np.broadcast_to(np.asarray(weights, np.float64), t.shape).ravel()
        self.t.append(t)
        self.w.append(w)
        self.n += len(t)
        if self.n > 16 * _CAP:
            self._compact()

    def _sorted(self):
        t = np.concatenate(self.t) if self.t else np.zeros(0)
        w = np.concatenate(self.w) if self.w else np.zeros(0)
        o = np.argsort(t, kind="stable")
        return t[o], w[o]

    def _compact(self) -> None:
        t, w = self._sorted()
        tot = w.sum()
        if tot <= 0:
            self.t, self.w, self.n = [], [], 0
            return
        # each point: the weighted mean time of an equal share of the weight
        g = np.minimum(((np.cumsum(w) - w / 2) / tot * _CAP).astype(np.int64), _CAP - 1)
        ws = np.bincount(g, weights=w, minlength=_CAP)
        ts = np.bincount(g, weights=w * t, minlength=_CAP)
        keep = ws > 0
        self.t, self.w = [ts[keep] / ws[keep]], [ws[keep]]
        self.n = int(keep.sum())

    def quantiles(self, k: int = QUANTILES) -> list[float]:
        """Issue times at the weight quantiles (i + 0.5) / k, i = 0 .. k - 1 (all 0 when
        nothing arrived)."""
        t, w = self._sorted()
        if not len(t) or w.sum() <= 0:
            return [0.0] * k
        cw = np.cumsum(w)
        idx = np.searchsorted(cw, (np.arange(k) + 0.5) / k * cw[-1])
        return [float(t[min(i, len(t) - 1)]) for i in idx]
