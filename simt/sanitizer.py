"""The sanitizer, modelled on compute-sanitizer.

- racecheck: shared-memory hazards between threads with no barrier between them.  For
  every shared word the block keeps, since the last ``__syncthreads()``, the last writer
  and the readers; a read of another thread's write is a RAW hazard, a write over
  another thread's read a WAR hazard, a write over another thread's write a WAW hazard.
  A ``__syncwarp()`` orders the accesses of its warp's lanes: two lanes of one warp with
  a ``__syncwarp()`` between their accesses do not race.
  Reported per pair of source lines with a hazard count.
- initcheck: a shared word read before any thread of the block wrote it.
- memcheck and synccheck stop the launch: the machine raises ``LaunchError`` for an
  out-of-bounds or misaligned access and for a barrier reached by part of a block or
  warp; ``finding_from_error`` turns that into a report.

- racecheck-global (simt's own): the same hazards on global memory between threads of
  one block (a missing atomic, an in-place update that reads a neighbour's element).
  Threads of different blocks are not compared (they synchronize through atomics and
  fences, as the last-block and look-back patterns do).

Shared racecheck and initcheck keep their state per unit of shared memory: a 4-byte word,
or in a kernel with narrower accesses that may touch shared memory (``__half``, ``short``,
``char``) the narrowest one's size (``_shared_unit``), so that threads writing different
halves or bytes of one word do not race, as compute-sanitizer (which checks bytes) says.

Limitations: global racecheck keeps 4-byte words (a narrower access conflicts only on
the bytes it touches);
atomics neither race with each other nor are checked against plain accesses; global
memory is race-checked within a block only (compute-sanitizer does not check it at all).
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from .ctypes_ import Vector, sizeof
from .errors import LaunchError
from .ir import Op

_KIND_TEXT = {"RAW": "Read-after-write", "WAR": "Write-after-read", "WAW": "Write-after-write"}


class Sanitizer:
    def __deepcopy__(self, memo):
        """Snapshots (the stepper's time travel) copy the state, not the launch."""
        import copy
        new = Sanitizer.__new__(Sanitizer)
        for k, v in self.__dict__.items():
            new.__dict__[k] = v if k in ("ir", "device") else copy.deepcopy(v, memo)
        return new

    def __init__(self, launch):
        # the kernel and the device, not the launch (which refers to the sanitizer: a
        # cycle would keep the batch's arrays alive until a full garbage collection)
        self.ir = launch.ir
        self.device = launch.device
        self.unit = _shared_unit(launch.ir)
        self.hazards: dict[tuple[str, int, int], int] = defaultdict(int)
        self.g_hazards: dict[tuple[str, int, int], int] = defaultdict(int)
        self.uninit: dict[int, list] = {}

    # -------------------------------------------------------------- batches
    def begin_batch(self, m):
        words = max(1, m.b.nb * (m.S // self.unit))
        self.words_per_block = m.S // self.unit
        self.w_thr = np.full(words, -1, np.int64)
        self.w_pc = np.zeros(words, np.int32)
        self.r_thr = np.full(words, -1, np.int64)
        self.r_pc = np.zeros(words, np.int32)
        self.written = np.zeros(words, bool)
        # __syncwarp: per warp of the batch a count, and per word the count of its last
        # writer's (and single reader's) warp when it wrote (read)
        # (kept only once a warp of the batch has synced: before that every count is 0)
        self.wsync = np.zeros(m.b.nb * m.b.wpb, np.int64)
        self.w_wep = np.zeros(words, np.int64)
        self.r_wep = np.zeros(words, np.int64)
        self.synced = False
        # global memory, within a block (simt's extension): per word the last writer and a
        # reader, each with its block's barrier epoch
        self.lanes_per_block = m.b.wpb * 32
        # barrier epochs keep rising across batches, so entries of earlier batches (whose
        # lane numbers are reused) never match: the global arrays are made once per launch
        base = int(self.epoch.max()) + 1 if hasattr(self, "epoch") else 0
        self.epoch = np.full(m.b.nb, base, np.int64)
        if not hasattr(self, "g_on"):
            gw = len(self.device.buf) // 4
            self.g_on = gw <= (1 << 26)
            if self.g_on:
                # one int64 per word for the last writer and one for a reader, packed as
                # 1 + (lane | bytes-mask << 24 | pc << 28 | barrier epoch << 44), 0: none
                # (zeros: the pages of words no access touches are never written)
                self.g_w = np.zeros(gw, np.int64)
                self.g_r = np.zeros(gw, np.int64)

    def barrier(self, m, blocks: np.ndarray):
        """A barrier completed in these blocks (batch-local indices): new interval."""
        self.epoch[blocks] += 1
        wpb = self.words_per_block
        if wpb == 0 or len(blocks) == 0:
            return
        if len(blocks) == m.b.nb:
            self.w_thr[:] = -1
            self.r_thr[:] = -1
            return
        idx = (blocks[:, None] * wpb + np.arange(wpb)).ravel()
        self.w_thr[idx] = -1
        self.r_thr[idx] = -1

    def syncwarp(self, warps: np.ndarray) -> None:
        """These warps (batch indices) passed a ``__syncwarp()``."""
        self.wsync[warps] += 1
        self.synced = True

    @staticmethod
    def _warp_of(r: np.ndarray) -> np.ndarray:
        """The warp of a recorded lane r, or of several lanes of one warp (r = -3 - w)."""
        return np.where(r >= 0, r // 32, -3 - r)

    def _unsynced(self, hazard: np.ndarray, other: np.ndarray, t: np.ndarray, other_wep) -> np.ndarray:
        """``hazard`` less the lane pairs a ``__syncwarp()`` orders: one warp, and a sync
        since the other's access (``other_wep()``: its warp's count then)."""
        if not self.synced or not hazard.any():
            return hazard
        return hazard & ~((self._warp_of(other) == t // 32) & (self.wsync[t // 32] > other_wep()))

    # --------------------------------------------------------------- access
    @staticmethod
    def _words(byte, t, size, unit=4):
        """The units (4-byte words unless ``unit`` says less) an access covers, with the
        thread of each."""
        nwords = max(1, size // unit)
        x0 = byte >> (unit.bit_length() - 1)
        if nwords > 1:
            return (x0[:, None] + np.arange(nwords)).ravel(), np.repeat(t, nwords)
        return x0, t

    def access(self, m, ins, parts, gl, size, kind):
        for space, byte, pos in parts:
            t = gl if pos is None else gl[pos]
            if space == "global" and self.g_on and kind in ("ld", "st"):
                x, tw = self._words(byte, t, size)
                if size < 4:    # narrower accesses: only the bytes touched can conflict
                    mask, b = None, byte        # the mask follows from the byte
                else:
                    mask, b = np.uint8(15), None
                self._check_global(ins, x, tw, kind, min(size, 4), mask, b)
            elif space == "shared":
                x, tw = self._words(byte, t, size, self.unit)
                self._check(ins, x, tw, kind, min(size, self.unit))

    def _check(self, ins, x, t, kind, nbytes=4):
        pc = ins.pc
        self._w = nbytes
        if kind == "atom":
            self.written[x] = True
            return
        # one lane per word, in order (each lane its own word): the words as a slice when
        # they are consecutive, else the array
        asc = _ascending(x)
        xi = x
        if asc and len(x) and int(x[-1]) - int(x[0]) + 1 == len(x):
            xi = slice(int(x[0]), int(x[-1]) + 1)
        if kind == "ld":
            notw = ~self.written[xi]
            if notw.any():
                j = int(np.flatnonzero(notw)[0])
                e = self.uninit.setdefault(pc, [0, int(t[j])])
                e[0] += int(np.count_nonzero(notw))
            wt = self.w_thr[xi]
            raw = self._unsynced((wt >= 0) & (wt != t), wt, t, lambda: self.w_wep[xi])
            if raw.any():
                self._record("RAW", self.w_pc[x[raw]], pc)
            # readers: remember one, -3 - w for several lanes of warp w, -2 for several warps
            if asc:                         # one lane per word: each word has one reader
                ux, tmin = xi, t
                cur = self.r_thr[ux]
                val = np.where((cur == -1) | (cur == tmin), tmin,
                               np.where((cur != -2) & (self._warp_of(cur) == tmin // 32), -3 - tmin // 32, -2))
            else:
                order = np.argsort(x, kind="stable")
                xs, ts = x[order], t[order]
                new = np.ones(len(xs), bool)
                new[1:] = xs[1:] != xs[:-1]
                tmin = np.minimum.reduceat(ts, np.flatnonzero(new))
                tmax = np.maximum.reduceat(ts, np.flatnonzero(new))
                ux = xs[new]
                cur = self.r_thr[ux]
                single = tmin == tmax
                one_warp = (tmin // 32 == tmax // 32) & ((cur == -1) | ((cur != -2)
                                                                       & (self._warp_of(cur) == tmin // 32)))
                val = np.where(single & ((cur == -1) | (cur == tmin)), tmin,
                               np.where(one_warp, -3 - tmin // 32, -2))
            self.r_thr[ux] = val
            self.r_pc[ux] = pc
            if self.synced:
                self.r_wep[ux] = self.wsync[np.maximum(self._warp_of(val), 0)]
            return
        # store: as if the warps of the step wrote one after another in warp order; the
        # lanes of one warp write at once (each sees the state before the instruction)
        if asc:
            # one lane per word: every lane is its word's first (and only) writer
            xs, ts = xi, t
            new_run = None
            pre_w = self.w_thr[xs]
            pre_wpc = self.w_pc[xs]
            pre_r = self.r_thr[xs]
            pre_wep = lambda: self.w_wep[xs]     # noqa: E731 (read only after a __syncwarp)
        else:
            order = np.lexsort((t, x))
            xs, ts = x[order], t[order]
            warp = ts // 32
            n = len(xs)
            new_x = np.ones(n, bool)
            new_x[1:] = xs[1:] != xs[:-1]
            new_run = new_x.copy()
            new_run[1:] |= warp[1:] != warp[:-1]
            run_id = np.cumsum(new_run) - 1
            run_start = np.flatnonzero(new_run)
            first_run = new_x[run_start][run_id]          # element belongs to its word's first warp
            prev_t = ts[np.maximum(run_start[run_id] - 1, 0)]
            pre_w = np.where(first_run, self.w_thr[xs], prev_t)
            pre_wpc = np.where(first_run, self.w_pc[xs], pc)
            pre_r = np.where(first_run, self.r_thr[xs], -1)
            pre_wep = lambda: np.where(first_run, self.w_wep[xs], -1)     # noqa: E731
        pre_rpc = self.r_pc[xs]
        waw = self._unsynced((pre_w >= 0) & (pre_w != ts), pre_w, ts, pre_wep)
        if waw.any():
            self._record("WAW", pre_wpc[waw], pc)
        war = (pre_r == -2) | self._unsynced((pre_r <= -3) | ((pre_r >= 0) & (pre_r != ts)), pre_r, ts,
                                             lambda: self.r_wep[xs])
        if war.any():
            self._record("WAR", pre_rpc[war], pc)
        # lanes of one warp writing the same word in this instruction
        if new_run is not None:
            dup = ~new_run[1:] & (ts[1:] != ts[:-1])
            if dup.any():
                self.hazards[("WAW", pc, pc)] += int(np.count_nonzero(dup)) * self._w
        self.w_thr[xi] = t
        self.w_pc[xi] = pc
        if self.synced:
            self.w_wep[xi] = self.wsync[t // 32]
        self.r_thr[xi] = -1
        self.written[xi] = True

    def _check_global(self, ins, x, t, kind, nbytes, mask, byte):
        """Hazards on global words between threads of one block with no barrier between
        them (compute-sanitizer's racecheck covers shared memory only; simt reports these
        under the tool name racecheck-global).  ``mask``: the bytes of its word each lane
        touches; None for an access narrower than a word, where it follows from ``byte``."""
        pc = ins.pc
        lpb = self.lanes_per_block
        sh = lpb.bit_length() - 1 if lpb & (lpb - 1) == 0 else None
        blk = None
        ep_all = self.epoch
        if len(ep_all) and ep_all.min() == ep_all.max():
            ep = ep_all[0]                  # every block of the batch in the same interval
        else:
            blk = t >> sh if sh is not None else t // lpb
            ep = self.epoch[blk]
        lowbits = (1 << nbytes) - 1
        # packed: lane | bytes-mask << 24 | pc << 28 | barrier epoch << 44, stored plus one
        if mask is None:
            mine = byte & 3
            mine += 24
            mine = np.left_shift(lowbits, mine)     # the bytes-mask, << 24
            mine |= t
        else:
            mine = t | (int(mask) << 24)
        mine |= (ep << 44) | (pc << 28)     # (ep: int64, as a scalar too: wraps like the array)
        mine += 1                           # stored plus one (0: none)

        def conflicts(stored):
            """The lanes whose word holds another thread of the same block and barrier
            interval, on a byte this access touches (a stored 0: nobody)."""
            cand = np.flatnonzero(stored > 0)   # (a packed value < 0 never matched either)
            if len(cand) == 0:
                return cand
            p_ = stored[cand] - 1
            tc = t[cand]
            bc = (tc >> sh if sh is not None else tc // lpb) if blk is None else blk[cand]
            ec = ep if np.ndim(ep) == 0 else ep[cand]
            mc = mask if mask is not None else lowbits << (byte[cand] & 3)
            o = p_ & 0xFFFFFF
            hit = (o != tc) & (o // lpb == bc) & ((p_ >> 44) == ec) & (((p_ >> 24) & 15) & mc != 0)
            return cand[hit]

        # the words' span: when no word in it holds anybody, nothing can conflict
        lo, hi = int(x.min()), int(x.max())
        small = hi - lo < 2 * len(x) + 64

        def stored_of(arr):
            if small and not (arr[lo:hi + 1] > 0).any():
                return None
            return arr[x]

        if kind == "ld":
            w = stored_of(self.g_w)
            if w is not None:
                raw = conflicts(w)
                if len(raw):
                    self._record_g("RAW", ((w[raw] - 1) >> 28) & 0xFFFF, pc, nbytes)
            self.g_r[x] = mine
            return
        w = stored_of(self.g_w)
        if w is not None:
            waw = conflicts(w)
            if len(waw):
                self._record_g("WAW", ((w[waw] - 1) >> 28) & 0xFFFF, pc, nbytes)
        r = stored_of(self.g_r)
        if r is not None:
            war = conflicts(r)
            if len(war):
                self._record_g("WAR", ((r[war] - 1) >> 28) & 0xFFFF, pc, nbytes)
        key = x if byte is None else byte      # sub-word stores collide only on the same byte
        if not _ascending(key):                # ascending keys: no two lanes on one
            order = np.argsort(key, kind="stable")
            xs, ts = key[order], t[order]
            dup = (xs[1:] == xs[:-1]) & (ts[1:] != ts[:-1]) & (ts[1:] // lpb == ts[:-1] // lpb)
            if dup.any():
                self.g_hazards[("WAW", pc, pc)] += int(np.count_nonzero(dup)) * nbytes
        self.g_w[x] = mine
        self.g_r[x] = 0

    def _record_g(self, kind, pcs_first, pc_second, nbytes):
        u, c = np.unique(pcs_first, return_counts=True)
        for p, n in zip(u, c):
            self.g_hazards[(kind, int(p), pc_second)] += int(n) * nbytes

    def _record(self, kind, pcs_first: np.ndarray, pc_second: int):
        u, c = np.unique(pcs_first, return_counts=True)
        for p, n in zip(u, c):   # compute-sanitizer counts hazards per byte
            self.hazards[(kind, int(p), pc_second)] += int(n) * self._w

    # -------------------------------------------------------------- reports
    def findings(self):
        from .module import Finding
        code = self.ir.code
        f = self.ir.file
        by_lines: dict[tuple[str, int, int], int] = defaultdict(int)
        for (kind, p1, p2), n in self.hazards.items():
            by_lines[(kind, code[p1].line, code[p2].line)] += n
        out = []
        for (kind, l1, l2), n in sorted(by_lines.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
            first, second = {"RAW": ("Write", "Read"), "WAR": ("Read", "Write"), "WAW": ("Write", "Write")}[kind]
            out.append(Finding(
                tool="racecheck", kind=f"{kind} hazard", file=f, line=l2, line2=l1, count=n,
                message=(f"{_KIND_TEXT[kind]} race on __shared__ memory between {first} access at line {l1} "
                         f"and {second} access at line {l2} [{n} hazards], with no __syncthreads() between them")))
        g_lines: dict[tuple[str, int, int], int] = defaultdict(int)
        for (kind, p1, p2), n in self.g_hazards.items():
            g_lines[(kind, code[p1].line, code[p2].line)] += n
        for (kind, l1, l2), n in sorted(g_lines.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
            first, second = {"RAW": ("Write", "Read"), "WAR": ("Read", "Write"), "WAW": ("Write", "Write")}[kind]
            out.append(Finding(
                tool="racecheck-global", kind=f"{kind} hazard", file=f, line=l2, line2=l1, count=n,
                message=(f"{_KIND_TEXT[kind]} race on __global__ memory between {first} access at line "
                         f"{l1} and {second} access at line {l2} [{n} hazards] by threads of one block "
                         "with no __syncthreads() between them (simt's extension: compute-sanitizer "
                         "checks shared memory only)")))
        for pc, (n, t) in sorted(self.uninit.items()):
            ins = code[pc]
            out.append(Finding(tool="initcheck", kind="uninitialized read", file=f, line=ins.line, count=n,
                               message=f"Uninitialized __shared__ memory read at line {ins.line} "
                                       f"({n} reads of words no thread of the block had written)",
                               severity="warning"))
        return out


def _shared_unit(ir) -> int:
    """The bytes shared-memory racecheck tracks together: 4, or the element size of the
    narrowest load, store or atomic that may touch shared memory (1 or 2)."""
    unit = 4
    for ins in ir.code:
        if ins.op in (Op.LOAD, Op.STORE, Op.ATOM) and ins.ctype is not None \
                and ins.info.get("space") in (None, "shared"):
            t = ins.ctype.elem if isinstance(ins.ctype, Vector) else ins.ctype
            unit = min(unit, sizeof(t))
    return unit


def _ascending(x: np.ndarray) -> bool:
    """Whether x strictly ascends (no value twice, already in order)."""
    return len(x) < 2 or bool((x[1:] > x[:-1]).all())


def finding_from_error(err: LaunchError):
    from .module import Finding
    kind = {"memcheck": "invalid access", "synccheck": "barrier error", "assert": "assertion",
            "simt": "step budget"}.get(err.tool, err.tool)
    c = err.coord
    return Finding(tool=err.tool, kind=kind, file=c.file if c else "", line=c.line if c else 0,
                   message=err.message)
