"""Racy plain stores to a small region: what reaches its L2 slice.

A racy ``hist[bin]++`` (a plain load and a plain store, no atomic) has many warps store to
the same few sectors.  The busiest L2 slice does not see every store sector
(timing_investigation/racy/ - racy4/, Nsight Compute on the H100 and the H200):

- **L1 merges the stores of an SM's warps to a sector while they wait to leave the SM.**
  The racy catalog kernels send a sector about once for each block that stored to it
  (4.0 sends a warp counted so against Nsight's 4.2 (1-byte data) and 5.4 (int data)
  L1-to-L2 write sectors, racy2/).  ``plain_store_counts`` counts a store instruction's
  distinct (block, sector) pairs as its sends.
- **The load of the read-modify-write then misses L1** where partial-sector stores of
  several warps reached the sector close together (racy4/'s timed loads).  Warps whose
  data came in one fill (four warps of 1-byte data, one of 4-byte data: a run of warps
  each sharing a line with the one before) issue together and count as one storer.
  Nsight's misses are ``MISS_PER_GROUP_SECTOR`` of the distinct (arrival group, sector)
  pairs of such stores (1.87, 3.47 and 4.72 misses
  a warp for 1-, 2- and 4-byte data, racy/; 0.27 x the pairs gives 2.0, 3.3 and 4.7).
- **A miss costs the slice ``MISS_COST`` store sends** (racy2/: 0.93 and 2.27 ns a write
  and a read sector on the H100; racy4/: 0.67 and 2.7 ns on the H200).

With these, 30 of the 41 racy launches measured on the H100 (racy/, racy2/) and 25 of the
43 on the H200 (racy/, racy4/) come out within 1.5x, where counting every store sector at
the atomic rate gives 15 and 13; twelve more, predicted before their first run, 9 of 12
(racy5/).

A grid-stride loop's warps drift apart over its trips (racy/: `k4` and `k16` miss 2-3
times as often a trip as one trip does): after a warp's first trip through the data load,
it is its own group.

Limitations: lanes crowding a few sectors merge less than this (`dark` 0.18x, Gaussian
bytes 0.53x); uniform bytes on the H200 miss a third as often (512 bytes of bins: 1.62x);
regions of 4-16 KiB with 4-byte data are off; loads of 4-byte or wider elements leave
each warp its own group.  The merging is taken to happen whether or not the slice is
saturated (when it keeps up, the stores are not what bounds the launch).
"""
from __future__ import annotations

import numpy as np

MISS_PER_GROUP_SECTOR = 0.27    # L1 misses per distinct (arrival group, shared sector) of a racy store
MISS_COST = 3.0                 # an L1 miss's work on the slice, in store sends
LINE = 128


def _row_bounds(mat: np.ndarray, act: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's lowest and highest active address."""
    return (np.where(act, mat, np.iinfo(np.int64).max).min(axis=1),
            np.where(act, mat, -1).max(axis=1))


def arrival_groups(mat: np.ndarray, act: np.ndarray, ranks: np.ndarray) -> np.ndarray | None:
    """A streaming load's arrival groups: per warp row, the first row of its run of rows
    (in a block) that read a common 128-byte line, each from the one before (warps whose
    elements share lines get them from one fill: four warps of bytes, or of 3-byte pixels
    read a channel at a time).  None unless every active row reads one or two lines and
    no line is read by more than two blocks (bins or a table every block reads leave the
    groups as they were)."""
    live = act.any(axis=1)
    if not live.any():
        return None
    lo, hi = (b // LINE for b in _row_bounds(mat, act))
    rows = np.flatnonzero(live)
    if (hi[rows] - lo[rows] > 1).any():
        return None
    order = rows[np.lexsort((rows, lo[rows]))]
    a, b, rk = lo[order], hi[order], ranks[order]
    # a line read by rows of three blocks or more is not a data stream
    lines = np.concatenate([a, b[b != a]])
    blocks = np.concatenate([rk, rk[b != a]]).astype(np.int64)
    pairs = np.unique(((lines - lines.min()) << 24) | blocks)   # distinct (line, block)
    if np.unique(pairs >> 24, return_counts=True)[1].max() > 2:
        return None
    new = np.ones(len(order), bool)
    new[1:] = (a[1:] > np.maximum.accumulate(b)[:-1]) | (rk[1:] != rk[:-1])
    first = order[np.maximum.accumulate(np.where(new, np.arange(len(order)), 0))]
    out = np.arange(len(mat))
    out[order] = first
    return out


def plain_store_counts(mat: np.ndarray, act: np.ndarray, ranks: np.ndarray,
                       groups: np.ndarray, sectors: int | None = None) -> tuple[int, int]:
    """A plain store instruction's sends (distinct (block, sector) pairs) and its distinct
    (arrival group, sector) pairs among the sectors two or more warps of a block stored
    to (``groups``: each row's arrival group, any ids).  ``sectors``: the rows' distinct
    sectors, summed, if known: rows whose sectors no other row shares (a coalesced store)
    are those sends at once."""
    live = act.any(axis=1)
    if not live.any():
        return 0, 0
    lo, hi = (b[live] // 32 for b in _row_bounds(mat, act))
    if sectors is not None:
        order = np.argsort(lo, kind="stable")
        if (hi[order][:-1] < lo[order][1:]).all():
            return sectors, 0
    r, c = np.nonzero(act)
    sec = mat[r, c] // 32
    sec = sec - sec.min()                         # < 2^36: keys below pack (id, sector)
    r = r.astype(np.int64)
    # distinct (row, sector): a warp's lanes on one sector are one store
    rs = np.unique((r << 36) | sec)
    r, sec = rs >> 36, rs & ((1 << 36) - 1)
    bkeys, inv, cnt = np.unique((np.asarray(ranks)[r].astype(np.int64) << 36) | sec,
                                return_inverse=True, return_counts=True)
    shared = cnt[inv.reshape(-1)] > 1
    if not shared.any():
        return len(bkeys), 0
    gs = np.unique((np.asarray(groups)[r[shared]].astype(np.int64) << 36) | sec[shared])
    return len(bkeys), len(gs)


def after_stores(store_warps: float, resident_warps: float) -> float:
    """The share of a racy region's warp stores whose read-modify-write can follow another
    warp's store on its SM: all but the first that each of the GPU's resident warp slots
    makes (a launch of one wave, one element a thread, loads every bin before any warp
    stores: `histogram/naive` at 8192 elements, 32 blocks)."""
    if store_warps <= 0:
        return 0.0
    return max(0.0, 1.0 - resident_warps / store_warps)
