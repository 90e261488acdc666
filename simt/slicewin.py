"""The GPU slices that the blocks resident at once keep busy with a region's atomics.

Hot lines that move with the block index (a LiDAR sweep's ground rings, particles sorted
by cell, a window of W lines that starts at line b * D) spread over many slices across the
launch, yet the blocks on the GPU at one time hit only the lines of their own part of the
grid, and those fall on few slices.  The launch then takes about what the busiest slice
of that window costs, not the launch's busiest slice: on the H200, a window of 64 lines
drifting a sixteenth of a line a block took 2.75 times what the launch's busiest slice
(1.15 times the even share) gives (docs/results/timing_investigation/fchain/, fchain3).

The window is ``RESIDENT_SPREAD`` times the blocks resident at once (blocks retire out
of order, so the grid ids on the GPU at one time spread beyond one wave's): with it, the
busiest slice of each window of fchain3's patterns is 3.1, 1.5, 2.8 and 1.5 times the
even share where the timings give 3.2, 1.6, 2.0 and 1.4.

Windows the estimate below makes of more than ``COUPLED_GENERATIONS`` runs' worth of
lines (keys sorted by block, in stretches far apart) keep the launch's rule (``coupled``).

A fully emulated grid has every window's atomics: each window's busiest slice is
counted.  A sampled grid (``module.sample_block_ids``: runs of ``RUN`` consecutive
blocks) holds a run or two a window, and the window's other blocks hit other lines as
the lines turn over.  How fast they turn over is read from how the runs overlap: the
weight two runs (or a run's two halves) share, against what they would share if their
lines were the same, at their distance in blocks, fits a linear overlap
``max(0, 1 - distance / L)`` (a window W lines wide drifting D lines a block has
L = W / D).  A window of B blocks then holds 1 + B / L generations of a run's lines,
each placed as the next stretch of addresses (the lines a drifting window reaches next;
scattered lines land on other chunks and so on other slices), and the busiest slice of
those generations, less three standard deviations of its sampled count, is the run's
estimate.  fchain3's twelve drifting patterns come out at 1.0-3.2 where the full grid's
windows give 1.0-3.1; ``lidar-voxel-atomic``'s sums at 4.5 (the full scan's windows: 4.2).

Limitations: the overlap law is fitted over the whole launch (one turnover rate for all
its lines); a run of 8 blocks sees only the lines 8 blocks hit, so a sparse window (each
block a lane or two a line) reads as noise and is taken as even; the slices are
``counters.gpu_slice``'s (the H200's structure, with a made-up hash of the chunks)."""
from __future__ import annotations

import numpy as np

RESIDENT_SPREAD = 2.0     # the grid ids on the GPU at once: this many times its resident blocks
RUN = 8                   # a sampled grid's runs of consecutive blocks (module.SAMPLE_RUN)
HALF = RUN // 2           # the counters key atomics by half-runs (rank // HALF)
NOISE_SIGMAS = 3.0        # a busiest slice's sampled count, less this many standard deviations
MAX_REPLICA_LINES = 1 << 21   # lines placed for one run's window, at most
MAX_FULL_RUNS = 256           # runs of a whole grid that the turnover is read from, at most
COUPLED_GENERATIONS = 128     # windows of more generations than this: the launch's rule (coupled)


def busiest(cnt: np.ndarray, slices: int) -> float:
    """A window's busiest slice over its even share of ``slices``, less ``NOISE_SIGMAS``
    standard deviations of its count (sampled counts; at least 1)."""
    total = cnt.sum()
    if total <= 0:
        return 1.0
    top = cnt.max()
    return max(1.0, (top - NOISE_SIGMAS * np.sqrt(top)) / (total / slices))


def _vec(lines: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    u, inv = np.unique(lines, return_inverse=True)
    return u, np.bincount(inv, w)


def _overlap(a, b) -> tuple[float, float]:
    """The weight two sets of lines share (sum of products) and what they would share if
    they were the same lines (the geometric mean of each one's sum of w (w - 1), which
    takes out a count's own Poisson noise)."""
    (la, wa), (lb, wb) = a, b
    _, xa, xb = np.intersect1d(la, lb, assume_unique=True, return_indices=True)
    qa, qb = (wa * (wa - 1)).sum(), (wb * (wb - 1)).sum()
    return float((wa[xa] * wb[xb]).sum()), float(np.sqrt(max(0.0, qa) * max(0.0, qb)))


def turnover(pairs: list[tuple[float, float, float]]) -> float:
    """L, in blocks, of the linear overlap ``max(0, 1 - d / L)`` that makes the pairs'
    (distance d, shared, same) shared weight add up to what they share: inf where they
    share all of it, 0.5 where none."""
    if not pairs:
        return float("inf")
    d, s, q = (np.array(x, float) for x in zip(*pairs))
    if q.sum() <= 0 or s.sum() >= q.sum():
        return float("inf")
    if s.sum() <= 0:
        return 0.5
    lo, hi = 0.5, 1e9
    for _ in range(80):
        mid = np.sqrt(lo * hi)
        if (q * np.maximum(0.0, 1.0 - d / mid)).sum() > s.sum():
            hi = mid
        else:
            lo = mid
    return float(mid)


def _runs(halves: np.ndarray, lines: np.ndarray, w: np.ndarray, keep=None) -> tuple[dict, dict]:
    """Each run's (lines, transactions), and its two halves' where it has both (runs
    ``keep`` alone, if given)."""
    runs = halves // 2
    vec, half = {}, {}
    for r in np.unique(runs) if keep is None else keep:
        m = runs == r
        if not m.any():
            continue
        vec[r] = _vec(lines[m], w[m])
        a, b = m & (halves % 2 == 0), m & (halves % 2 == 1)
        if a.any() and b.any():
            half[r] = (_vec(lines[a], w[a]), _vec(lines[b], w[b]))
    return vec, half


def generations(vec: dict, half: dict, ids: np.ndarray | None, window: float) -> float:
    """How many runs' worth of distinct lines a window of ``window`` grid blocks holds,
    1 + window / L (``turnover``: from each run's two halves and each run and the next
    emulated one; ``ids``: grid ids by rank, None where ranks are ids).  It is also how
    many times more lines the window holds than one block sees."""
    pairs = []
    n = None if ids is None else len(ids)
    gid = (lambda k: k) if ids is None else (lambda k: int(ids[k]))
    for r in vec:
        first = r * RUN
        if r in half and (n is None or first + HALF < n) and gid(first + HALF) == gid(first) + HALF:
            pairs.append((HALF, *_overlap(*half[r])))
        if r + 1 in vec and (n is None or (r + 1) * RUN < n):
            pairs.append((float(gid((r + 1) * RUN) - gid(first)), *_overlap(vec[r], vec[r + 1])))
    return 1.0 + window / turnover(pairs)


def window_share(halves: np.ndarray, lines: np.ndarray, w: np.ndarray, ids: np.ndarray | None,
                 window: float, place, slices: int) -> tuple[float, float]:
    """The busiest GPU slice of the blocks resident at once, over the even share, averaged
    over the launch by weight (0: no atomics), and the window's ``generations`` (``coupled``
    says whether the GPU shows that slice).
    ``halves``, ``lines``, ``w``: atomic transactions by half-run (an emulated block's
    rank // ``HALF``) and 256-byte block of the region, distinct pairs; ``ids``: the
    sampled blocks' grid ids by rank (None: the whole grid was emulated, ranks are ids);
    ``window``: grid blocks a window holds (at most the grid's); ``place``: a 256-byte
    block's slice of ``slices`` (``counters.gpu_slice`` at the region's place)."""
    if not len(w) or w.sum() <= 0:
        return 0.0, 1.0
    if ids is None:
        runs = np.unique(halves // 2)
        vec, half = _runs(halves, lines, w, runs[:: max(1, len(runs) // MAX_FULL_RUNS)])
        gens = generations(vec, half, None, window)
        win = (halves * HALF) // max(1, int(window))
        num = den = 0.0
        for k in np.unique(win):
            m = win == k
            cnt = np.bincount(place(lines[m]), weights=w[m])
            num += busiest(cnt, slices) * w[m].sum()
            den += w[m].sum()
        return num / den, gens
    vec, half = _runs(halves, lines, w)
    gens = generations(vec, half, ids, window)
    num = den = 0.0
    for r, (u, lw) in vec.items():
        g = int(min(np.ceil(gens), max(1, MAX_REPLICA_LINES // len(u))))
        step = int(u.max() - u.min() + 1)
        rep = np.ones(g)
        rep[-1] = gens - (g - 1) if g == np.ceil(gens) else 1.0
        sl = place((u[None, :] + step * np.arange(g)[:, None]).ravel())
        cnt = np.bincount(sl, weights=(rep[:, None] * lw[None, :]).ravel())
        num += busiest(cnt, slices) * lw.sum()
        den += lw.sum()
    return num / den, gens


def coupled(gens: float) -> bool:
    """Whether the GPU shows the window's busiest slice: its window holds at most
    ``COUPLED_GENERATIONS`` runs' worth of lines.  fchain4 (timing_investigation/fchain/)
    paid it in full with blocks that reach 1/67 to 1/1.5 of their window (8 to 256 lines
    a block); the table's sorted-key rows, whose estimate holds 230-500 generations
    (probe/bitmap-index-or, probe/mttkrp-coo-atomic16, probe/coo-row-stats), took about
    the even share's time where the estimate gives 1.15-1.5.  So the line is fitted
    between the two, and it is the estimate that fails there, not the GPU that evens out:
    a run whose lines lie in stretches far apart (16 bitmaps 2 MiB apart) has its later
    generations placed a whole run's span further on, at other chunks, where the GPU
    extends each stretch in place.  Limitations: a fit on a dozen rows and fchain4."""
    return gens <= COUPLED_GENERATIONS
