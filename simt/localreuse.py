"""How far apart a warp touches the lines of its local frame: the counters behind the timing
model's local traffic beyond L2 (simt.timing.local_dram_bytes).

The GPU interleaves local memory by lane: word w of a warp's 32 lanes is one 128-byte line,
so a frame of F bytes a thread is F / 4 lines a warp.  For each warp the emulator keeps when
it last touched each of them, and a touch's stack distance is how many distinct lines of
the frame the warp touched since its previous touch of that line.  Every resident warp runs
the same code at about the same pace, so the GPU touched about that many lines times the
resident warps in between: the timing model turns this into the chance that the line left
L2 meanwhile (``counters.retouch_miss_p``), which needs the resident warps of a named GPU and
so happens at prediction, from histograms over log2 of the distance (half-octave bins):

- ``simt__local_ld_sdNN.sum``: line loads whose line the warp touched NN half-octaves
  before (a load that misses L2 reads the line from DRAM);
- ``simt__local_wb_sdNN.sum``: lines a store dirtied, by the longest distance between two
  touches before the line was stored again or the warp ended (a line evicted in between
  was written back to DRAM once).  At a warp's end its dirty lines wait for the next warp
  in its slot, which touches the same addresses: the distance is the lines the warp
  touched after the line plus those the next warp touches before it (the lines this warp
  first touched before it).

A warp's first load of a line it never stored is not counted (a frame read before it is
written holds the last warp's values; kernels rarely do it).

Limitations: L1 is not modelled (a load that hits L1 also counts here, as if it went to
L2; the timing model prices only the misses of L2); the distance is the warp's own,
scaled by the resident warps, so warps that run apart (divergent trip counts, a tail of
blocks) are taken to touch lines at one pace; a line is 128 bytes however many lanes touch
it.
"""
from __future__ import annotations

import numpy as np

BINS = 40                    # half-octaves: distances 1 .. 2^20 lines
LD = "simt__local_ld_sd{:02d}.sum"
WB = "simt__local_wb_sd{:02d}.sum"
LINE_BYTES = 128


def bin_of(sd: np.ndarray) -> np.ndarray:
    """Half-octave bin of stack distances (>= 1)."""
    return np.minimum(BINS - 1, np.floor(2 * np.log2(np.maximum(sd, 1))).astype(np.int64))


def bin_distance(b: int) -> float:
    """The distance in lines a bin stands for (its geometric middle)."""
    return 2.0 ** ((b + 0.5) / 2)


def histograms(metrics: dict):
    """(load counts, write-back counts) per bin from a launch's metrics."""
    g = metrics.get
    return ([g(LD.format(b), 0) for b in range(BINS)], [g(WB.format(b), 0) for b in range(BINS)])


class LocalReuse:
    """Per warp of a batch: a clock (one tick a local access), and per line of the frame
    its last and first touch (0: never), whether a store dirtied it and the longest
    distance between touches since that store."""

    def __init__(self, warps: int, frame_bytes: int):
        n = max(1, -(-frame_bytes // 4))
        self.clock = np.zeros(warps, np.int32)
        self.last = np.zeros((warps, n), np.int32)
        self.first = np.zeros((warps, n), np.int32)
        self.dirty = np.zeros((warps, n), bool)
        self.gap = np.zeros((warps, n), np.int32)

    def touch(self, cnt, pc: int, words: np.ndarray, act: np.ndarray, warps: np.ndarray,
              size: int, store: bool):
        """One access: ``words`` the (warps, 32) matrix of each lane's word offset in its
        frame, ``act`` its active lanes, ``warps`` their rows in the batch."""
        span = max(1, size // 4)
        rows, cols = _distinct_lines(words, act, span, self.last.shape[1])
        if not len(rows):
            return
        rows = np.asarray(warps)[rows]          # the matrix's rows are these warps of the batch
        last = self.last
        lx = last[rows, cols]
        seen = lx > 0
        # distinct lines touched since: those whose last touch is later than this one's
        sd = _later(last, rows, lx)
        if not store:
            _count(cnt, pc, LD, sd[seen])
        d = self.dirty[rows, cols]
        gap = np.where(seen & d, np.maximum(self.gap[rows, cols], sd), 0)
        if store:
            # the store before it dirtied this line: written back if it left L2 in between
            _count(cnt, pc, WB, gap[d])
            self.dirty[rows, cols] = True
            self.gap[rows, cols] = 0
        else:
            self.gap[rows, cols] = gap
        self.clock[rows[_run_starts(rows)]] += 1
        t = self.clock[rows]
        last[rows, cols] = t
        f = self.first[rows, cols]
        self.first[rows, cols] = np.where(f == 0, t, f)

    def finish(self, cnt, pc: int):
        """The batch's warps ended: each dirty line waits for the next warp in its slot."""
        rows, cols = np.nonzero(self.dirty)
        if not len(rows):
            return
        lx = self.last[rows, cols]
        fx = self.first[rows, cols]
        after = _later(self.last, rows, lx)
        # (first touches before fx: those not after it, less the warp's lines never touched)
        never = (self.first == 0).sum(axis=1)
        before = self.first.shape[1] - _later(self.first, rows, fx - 1) - never[rows]
        _count(cnt, pc, WB, np.maximum(self.gap[rows, cols], after + before))
        self.dirty[:] = False


def _later(stamps: np.ndarray, rows: np.ndarray, x: np.ndarray) -> np.ndarray:
    """For each i, how many of row rows[i]'s stamps are greater than x[i] (rows
    ascending).  Compared lane by lane where each row has few queries, else by sorting
    each row once and searching it."""
    n = len(rows)
    start = _run_starts(rows)
    ws = rows[start]
    if n <= 4 * len(ws):
        return (stamps[rows] > x[:, None]).sum(axis=1)
    f = stamps.shape[1]
    srt = np.sort(stamps[ws], axis=1).astype(np.int64)
    big = int(max(int(srt[:, -1].max()), int(x.max()) if n else 0)) + 2
    pos = np.repeat(np.arange(len(ws)), np.diff(np.r_[start, n]))
    flat = (srt + (np.arange(len(ws), dtype=np.int64) * big)[:, None]).ravel()
    le = np.searchsorted(flat, x.astype(np.int64) + pos * big, side="right") - pos * f
    return f - le


def _run_starts(rows: np.ndarray) -> np.ndarray:
    """Where each run of equal values of an ascending array starts."""
    return np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])


def _count(cnt, pc, name, sd):
    """Add stack distances to a histogram's counters."""
    if len(sd):
        h = np.bincount(bin_of(sd), minlength=BINS)
        for k in np.flatnonzero(h):
            cnt.add(pc, name.format(int(k)), int(h[k]))


def _distinct_lines(words, act, span, nlines):
    """(row, line) of each distinct line a warp's active lanes touch, rows ascending (an
    access of ``span`` words touches that many lines a lane)."""
    a = act.any(axis=1)
    if not a.any():
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    first = words[np.arange(len(words)), np.argmax(act, axis=1)]
    if span == 1 and not (act & (words != first[:, None])).any():
        rows = np.flatnonzero(a)
        return rows, np.clip(first[rows], 0, nlines - 1)
    w = np.where(act, words, first[:, None])
    if span > 1:
        w = (w[:, :, None] + np.arange(span)).reshape(len(w), -1)
    w = np.sort(w, axis=1)
    new = np.ones(w.shape, bool)
    new[:, 1:] = w[:, 1:] != w[:, :-1]
    new &= a[:, None]
    rows, k = np.nonzero(new)
    return rows, np.clip(w[rows, k], 0, nlines - 1)
