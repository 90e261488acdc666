"""Hardware counters, computed from what each warp instruction touched.

Named as Nsight Compute names them (DESIGN.md).  Everything is vectorized over the
warps of a step: addresses arrive as a ``(warps, 32)`` matrix with an activity mask.

Shared memory: 32 banks of 4-byte words.  A warp access costs, per phase (32 lanes for
4-byte accesses, 16 for 8-byte, 8 for 16-byte), the number of distinct words that fall
in its busiest bank (the same word is a broadcast).  Global memory: the distinct 32-byte
sectors the active lanes touch.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from .spaces import GLOBAL_BASE

SHARED_LD = "smsp__inst_executed_op_shared_ld.sum"
SHARED_ST = "smsp__inst_executed_op_shared_st.sum"
WAVES_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
WAVES_ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
CONFL_LD = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
CONFL_ST = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
REQ_LD = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
REQ_ST = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
REQ_ATOM = "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"
REQ_RED = "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"
SECT_LD = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
SECT_ST = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
SECT_ATOM = "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum"
SECT_RED = "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"
INST = "smsp__inst_executed.sum"
THREAD_INST = "smsp__thread_inst_executed.sum"
RATIO = "smsp__thread_inst_executed_per_inst_executed.ratio"
SHARED_ATOM = "smsp__inst_executed_op_shared_atom.sum"
GLOBAL_ATOM_INST = "smsp__inst_executed_op_global_atom.sum"
GLOBAL_RED_INST = "smsp__inst_executed_op_global_red.sum"
BRANCH_DIVERGENT = "smsp__branch_targets_threads_divergent.sum"

L2_SLICES = 64          # Hopper's L2 is hashed over many slices; a few KiB map to one
SLICE_SPAN = 4096

METRICS = [SHARED_LD, SHARED_ST, WAVES_LD, WAVES_ST, CONFL_LD, CONFL_ST, REQ_LD, REQ_ST,
           REQ_ATOM, REQ_RED, SECT_LD, SECT_ST, SECT_ATOM, SECT_RED, RATIO]
LABELS = {
    SHARED_LD: "shared-memory load instructions (per warp)",
    SHARED_ST: "shared-memory store instructions (per warp)",
    WAVES_LD: "shared-load wavefronts (passes through the 32 banks)",
    WAVES_ST: "shared-store wavefronts",
    CONFL_LD: "shared-load bank conflicts (extra wavefronts)",
    CONFL_ST: "shared-store bank conflicts (extra wavefronts)",
    REQ_LD: "global load requests (per warp)",
    REQ_ST: "global store requests (per warp)",
    REQ_ATOM: "global atomics whose result is used",
    REQ_RED: "global atomics whose result is unused (reductions)",
    SECT_LD: "32-byte sectors loaded from global memory",
    SECT_ST: "32-byte sectors stored to global memory",
    SECT_ATOM: "32-byte sectors touched by global atomics",
    SECT_RED: "32-byte sectors touched by global reductions",
    RATIO: "average active lanes per warp instruction (SIMT efficiency x 32)",
    INST: "warp instructions executed",
    THREAD_INST: "thread instructions executed",
}


def sorted_sectors(addr2d: np.ndarray, act2d: np.ndarray, size: int):
    """Per warp row: the sorted sector ids (inactive lanes repeat an active one) and a mask
    of the first occurrence of each distinct sector.  Accesses straddling two sectors
    contribute both."""
    first = addr2d // 32
    act = act2d
    if size > 1:
        last = (addr2d + size - 1) // 32
        if not np.array_equal(first[act2d], last[act2d]):
            first = np.concatenate([first, last], axis=1)
            act = np.concatenate([act2d, act2d], axis=1)
    big = np.iinfo(np.int64).max
    fill = np.where(act, first, big).min(axis=1, keepdims=True)
    k = np.sort(np.where(act, first, fill), axis=1)
    new = np.ones(k.shape, bool)
    new[:, 1:] = k[:, 1:] != k[:, :-1]
    new &= act.any(axis=1, keepdims=True)
    return k, new


class Runs:
    """The active lanes of each warp row grouped by address: one sort serves every atomic
    counter (Nsight's sectors, serialization, the busiest addresses, sectors touched)."""

    def __init__(self, addr2d: np.ndarray, act2d: np.ndarray):
        self.nw = addr2d.shape[0]
        full = bool(act2d.all())
        if full:                            # no inactive lanes: no placeholder runs
            k = np.sort(addr2d, axis=1)
        else:
            k = np.where(act2d, addr2d, -1 - np.arange(32)[None, :])
            k.sort(axis=1)
        new = np.ones(k.shape, bool)
        np.not_equal(k[:, 1:], k[:, :-1], out=new[:, 1:])
        fn = new.ravel()
        starts = np.flatnonzero(fn)
        run_len = np.diff(starts, append=fn.size)
        run_addr = k.ravel()[starts]
        if full:
            self.len, self.addr, self.row = run_len, run_addr, starts >> 5
        else:
            valid = run_addr >= 0
            self.len = run_len[valid]
            self.addr = run_addr[valid]
            self.row = (starts >> 5)[valid]

    def steps(self) -> np.ndarray:
        """Per row: the most lanes on one address (the serialized steps)."""
        out = np.zeros(self.nw, np.int64)
        if len(self.len):
            first = np.ones(len(self.row), bool)
            first[1:] = self.row[1:] != self.row[:-1]
            st = np.flatnonzero(first)
            out[self.row[st]] = np.maximum.reduceat(self.len, st)
        return out

    def _sector_groups(self):
        sec = self.addr // 32
        g = np.ones(len(sec), bool)
        g[1:] = (sec[1:] != sec[:-1]) | (self.row[1:] != self.row[:-1])
        return sec, np.flatnonzero(g)

    def atomic_sectors(self) -> np.ndarray:
        """Per row, Nsight's sectors: per sector touched, the most lanes on one address."""
        if not len(self.len):
            return np.zeros(self.nw, np.int64)
        sec, st = self._sector_groups()
        per = np.maximum.reduceat(self.len, st)
        return np.bincount(self.row[st], weights=per, minlength=self.nw).astype(np.int64)

    def sectors(self):
        """(distinct sector ids, their rows) in row-major order."""
        if not len(self.len):
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        sec, st = self._sector_groups()
        return sec[st], self.row[st]


_LANES = np.arange(32)


def _contiguous(flat: np.ndarray, size: int) -> bool:
    """Whether the addresses step by ``size`` all along (then every warp row does too);
    a 1-D difference is a few times cheaper than one along the rows."""
    n = len(flat)
    return int(flat[-1]) - int(flat[0]) == (n - 1) * size and \
        bool((np.subtract(flat[1:], flat[:-1]) == size).all())


def _longest_ones(x: np.ndarray) -> np.ndarray:
    """Per uint32 element, the length of its longest run of set bits (at most 31: bit 31
    clear).  Binary lifting: p[k] marks where a run of 2**k set bits starts."""
    p = [x]
    for k in range(4):
        q = p[-1]
        p.append(q & (q >> np.uint32(1 << k)))
    n = np.zeros(len(x), np.uint32)                 # the longest run found so far
    cur = np.full(len(x), 0xFFFFFFFF, np.uint32)    # where a run of n set bits starts
    for k in range(4, -1, -1):
        cand = cur & (p[k] >> n)                    # where a run of n + 2**k starts
        ok = cand != 0
        cur = np.where(ok, cand, cur)
        n += ok.astype(np.uint32) << np.uint32(k)
    return n


def lanes_per_address(addr2d: np.ndarray, act2d: np.ndarray, full: bool = False):
    """Per warp row, the most active lanes on one address (0 for a row with none), and the
    number of distinct (row, address) pairs: what ``Runs`` gives as ``steps()`` and
    ``len(len)``, from one sort and no run table.  Addresses must be >= 0; ``full``: every
    lane is active."""
    nw = addr2d.shape[0]
    if full:
        k = np.sort(addr2d, axis=1)
        n_off = 0
    else:
        k = np.where(act2d, addr2d, -1 - _LANES[None, :])   # inactive: distinct, < 0
        k.sort(axis=1)
        n_off = act2d.size - int(np.count_nonzero(act2d))
    # bit j of row r: lanes j and j+1 (sorted) on one address; a run of m set bits is
    # m + 1 lanes on one address
    eq = np.zeros((nw, 32), bool)
    np.equal(k[:, 1:], k[:, :-1], out=eq[:, :31])
    n_addr = k.size - int(np.count_nonzero(eq)) - n_off
    bits = np.packbits(eq, axis=1, bitorder="little").view(np.uint32).ravel()
    steps = _longest_ones(bits).astype(np.int64) + 1
    if not full:
        steps *= act2d.any(axis=1)
    return steps, n_addr


def wavefronts(off2d: np.ndarray, act2d: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Shared-memory wavefronts and the ideal count per warp row."""
    nw = off2d.shape[0]
    words_per_lane = max(1, size // 4)
    lanes_per_phase = 32 // words_per_lane
    w0 = off2d >> 2
    if words_per_lane > 1:
        words = (w0[:, :, None] + np.arange(words_per_lane)).reshape(nw, 32 * words_per_lane)
        act = np.repeat(act2d, words_per_lane, axis=1)
    else:
        words, act = w0, act2d
    phases = 32 // lanes_per_phase
    words = words.reshape(nw * phases, 32)
    act = act.reshape(nw * phases, 32)
    if nw and lanes_per_phase * words_per_lane == 32 and act2d.all():
        # every phase on 32 consecutive words (32 banks) or on one word (a broadcast)
        w1 = words[:, :1]
        if np.array_equal(words, w1 + _LANES) or np.array_equal(words, np.broadcast_to(w1, words.shape)):
            return np.full(nw, phases, np.int64), np.full(nw, phases, np.int64)
    bank = words & 31
    key = bank * (1 << 40) + words
    big = np.iinfo(np.int64).max
    fill = np.where(act, key, big).min(axis=1, keepdims=True)
    k = np.sort(np.where(act, key, fill), axis=1)
    new = np.ones(k.shape, bool)
    new[:, 1:] = k[:, 1:] != k[:, :-1]
    rows = np.repeat(np.arange(k.shape[0]), 32)
    b = (k >> 40).ravel()
    per_bank = np.bincount(rows * 32 + b, weights=new.ravel(), minlength=k.shape[0] * 32)
    per_row = per_bank.reshape(-1, 32).max(axis=1)
    has = act.any(axis=1)
    per_row = np.where(has, np.maximum(per_row, 1), 0).astype(np.int64)
    waves = per_row.reshape(nw, phases).sum(axis=1)
    ideal = has.reshape(nw, phases).sum(axis=1)
    return waves, ideal


class Counters:
    """Per-launch totals, per source line and per warp."""

    def __init__(self, n_code: int, n_warps_total: int, lines: list[int]):
        self.total: dict[str, float] = defaultdict(float)
        self.per_pc: list[dict] = [defaultdict(float) for _ in range(n_code)]
        self.pc_lines = lines
        self.warp_inst = np.zeros(n_warps_total, np.int64)
        self.warp_thread_inst = np.zeros(n_warps_total, np.int64)
        self.warp_extra: dict[str, np.ndarray] = {}
        self.finish = np.zeros(n_warps_total, np.float64)   # critical-path cycles per warp
        self.wpb = 1
        self.atomics: list[dict] = []       # per warp atomic summary (capped)
        self.hot: dict[int, int] = defaultdict(int)         # global atomic lanes per address
        self.hot_span: dict[int, list] = {}                 # [first, last] block hitting each address
        self.run_blocks = 1
        self.shared_hot_max = 0.0                           # most atomic lanes on one shared word of a block
        self.touched: np.ndarray | None = None              # global sectors read (DRAM footprint)
        self.written: np.ndarray | None = None              # global sectors written back
        self.regions: dict[int, list] = {}                  # allocation -> [L2 transactions, lo, hi]
        self.sector_reqs: np.ndarray | None = None          # warp requests per global sector
        self.sector_bmin: np.ndarray | None = None          # first / last block requesting it
        self.sector_bmax: np.ndarray | None = None
        self.divergence: dict[int, list[int]] = defaultdict(lambda: [0, 0])   # pc -> [executions, splits]

    def add(self, pc: int, name: str, value):
        v = float(value)
        self.total[name] += v
        self.per_pc[pc][name] += v

    def warp_finish(self, gw, cycles):
        self.finish[gw] = np.maximum(self.finish[gw], cycles)

    def add_warp(self, name: str, gw, values):
        arr = self.warp_extra.get(name)
        if arr is None:
            arr = self.warp_extra[name] = np.zeros(len(self.warp_inst), np.int64)
        if isinstance(gw, np.ndarray) and gw.ndim == 1 and len(gw) > 1 \
                and np.can_cast(np.result_type(values), np.int64) and (gw[1:] > gw[:-1]).all():
            # distinct warps (in order): a plain add, on a slice when they are consecutive
            n = len(gw)
            g0 = int(gw[0])
            if int(gw[-1]) - g0 + 1 == n:
                arr[g0:g0 + n] += values
            else:
                arr[gw] += values
            return
        np.add.at(arr, gw, values)

    def global_access(self, mat: np.ndarray, act: np.ndarray, size: int, row_blocks: np.ndarray,
                      runs: "Runs | None" = None, kind: str = "ld"):
        """One warp instruction's global access: returns the distinct sectors per warp row and
        records the DRAM footprint and the warp requests per sector (contention at L2)."""
        if act.all() and mat.shape[0] and (_contiguous(mat.reshape(-1), size)
                                           or (np.diff(mat, axis=1) == size).all()):
            # coalesced: each row covers one contiguous range (no sort needed)
            fs = (mat[:, 0] - GLOBAL_BASE) // 32
            ls = (mat[:, -1] + size - 1 - GLOBAL_BASE) // 32
            span = ls - fs
            if (span == span[0]).all():
                q = int(span[0]) + 1
                s = (fs[:, None] + np.arange(q)).ravel()
                per_row = np.full(mat.shape[0], q, np.int64)
                rb = np.repeat(row_blocks, q)
                runs = None
                mat = None
        if mat is None:
            pass                            # the coalesced case above
        elif runs is not None:              # atomics: aligned, so no access straddles sectors
            s, rows = runs.sectors()
            s = s - GLOBAL_BASE // 32
            per_row = np.bincount(rows, minlength=runs.nw)
            rb = row_blocks[rows]
        else:
            k, new = sorted_sectors(mat - GLOBAL_BASE, act, size)
            per_row = new.sum(axis=1)
            s = k[new]                      # row-major, so blocks ascend along s
            rb = np.broadcast_to(row_blocks[:, None], k.shape)[new]
        if self.sector_reqs is not None and len(s):
            if kind != "st":                # loads and atomics read the sector from DRAM
                self.touched[s] = True
            if kind != "ld":                # stores and atomics write it back
                self.written[s] = True
            lo, hi = int(s.min()), int(s.max())
            rel = s - lo
            if hi - lo < 4 * len(s) + 4096:
                cnt = np.bincount(rel, minlength=hi - lo + 1)
                first = np.empty(hi - lo + 1, np.int64)
                first[rel[::-1]] = rb[::-1]          # duplicates: the last write wins
                last = np.empty(hi - lo + 1, np.int64)
                last[rel] = rb
                m = cnt > 0
                idx = np.flatnonzero(m) + lo
                cnt, first, last = cnt[m], first[m], last[m]
            else:
                idx, inv, cnt = np.unique(s, return_inverse=True, return_counts=True)
                first = np.full(len(idx), np.iinfo(np.int64).max)
                last = np.full(len(idx), -1)
                first[inv[::-1]] = rb[::-1]
                last[inv] = rb
            self.sector_reqs[idx] += cnt.astype(np.int32)
            self.sector_bmin[idx] = np.minimum(self.sector_bmin[idx], first)
            self.sector_bmax[idx] = np.maximum(self.sector_bmax[idx], last)
        return per_row

    def l2_transactions(self, alloc: int, trans: int, lo: int, hi: int):
        """Stores and atomics reach L2 as transactions; those aimed at a small region
        (a histogram's bins) funnel into one L2 slice and queue there."""
        r = self.regions.get(alloc)
        if r is None:
            self.regions[alloc] = [trans, lo, hi]
        else:
            r[0] += trans
            r[1] = min(r[1], lo)
            r[2] = max(r[2], hi)

    def hot_addresses(self, addrs: np.ndarray, lanes: np.ndarray, blocks=None):
        """Accumulate global atomic lanes per address (the busiest bounds atomic time)."""
        d = self.hot
        if len(addrs) == 0:
            return
        lo, hi = int(addrs.min()), int(addrs.max())
        if hi - lo < (1 << 22):
            rel = addrs - lo
            tot_all = np.bincount(rel, weights=lanes)
            u = np.flatnonzero(tot_all)
            tot = tot_all[u]
            if blocks is not None:
                bmin = np.full(len(tot_all), np.iinfo(np.int64).max)
                bmax = np.full(len(tot_all), -1)
                if len(blocks) < 2 or (blocks[1:] >= blocks[:-1]).all():
                    # blocks ascend (runs in warp order): the first and the last write win
                    bmin[rel[::-1]] = blocks[::-1]
                    bmax[rel] = blocks
                else:
                    np.minimum.at(bmin, rel, blocks)
                    np.maximum.at(bmax, rel, blocks)
                bmin, bmax = bmin[u], bmax[u]
            u = u + lo
        else:
            u, inv = np.unique(addrs, return_inverse=True)
            tot = np.bincount(inv, weights=lanes)
            if blocks is not None:
                bmin = np.full(len(u), np.iinfo(np.int64).max)
                bmax = np.full(len(u), -1)
                np.minimum.at(bmin, inv, blocks)
                np.maximum.at(bmax, inv, blocks)
        if len(u) > 4096:   # low-contention scatter: keep the busiest ones only
            top = np.argpartition(tot, -1024)[-1024:]
            u, tot = u[top], tot[top]
            if blocks is not None:
                bmin, bmax = bmin[top], bmax[top]
        for k, (a, c) in enumerate(zip(u.tolist(), tot.tolist())):
            d[a] += int(c)
            if blocks is not None:
                sp = self.hot_span.get(a)
                lo_b, hi_b = int(bmin[k]), int(bmax[k])
                if sp is None:
                    self.hot_span[a] = [lo_b, hi_b]
                else:
                    sp[0] = min(sp[0], lo_b)
                    sp[1] = max(sp[1], hi_b)

    def metrics(self, scale: float = 1.0) -> dict[str, float]:
        """Totals; ``scale`` extrapolates a sample of blocks to the whole grid."""
        out = {m: 0 for m in METRICS}
        for k, v in self.total.items():
            v = v * scale
            out[k] = int(round(v)) if scale != 1.0 or float(v).is_integer() else v
        inst = self.total.get(INST, 0.0)
        out[INST] = int(round(inst * scale))
        out[THREAD_INST] = int(round(self.total.get(THREAD_INST, 0.0) * scale))
        out[RATIO] = round(self.total.get(THREAD_INST, 0.0) / inst, 4) if inst else 0.0
        if self.touched is not None:
            # DRAM moves each sector read once and each sector written once (an in-place
            # update or an atomic read-modify-write moves its bytes twice)
            n = np.count_nonzero(self.touched) + np.count_nonzero(self.written)
            out["simt__dram_footprint_sectors.sum"] = int(round(n * scale))
        # the busiest address: lanes from the sampled blocks, extrapolated by the share of
        # blocks that hit it (a histogram bin: all of them; a per-block counter: one)
        hot_lanes = 0
        if self.hot:
            a = max(self.hot, key=self.hot.get)
            sp = self.hot_span.get(a, [0, 0])
            frac = min(1.0, (sp[1] - sp[0] + 1) / max(1, self.run_blocks))
            hot_lanes = self.hot[a] * (1 + (scale - 1) * frac)
        out["simt__global_atomic_hot_address_lanes.max"] = int(round(hot_lanes))
        hot_req = 0
        if self.sector_reqs is not None and len(self.sector_reqs):
            j = int(np.argmax(self.sector_reqs))
            r = int(self.sector_reqs[j])
            if r:
                frac = min(1.0, (int(self.sector_bmax[j]) - int(self.sector_bmin[j]) + 1) / max(1, self.run_blocks))
                hot_req = r * (1 + (scale - 1) * frac)
        out["simt__global_hot_sector_requests.max"] = int(round(hot_req))
        # L2 transactions (stores + atomics) per slice for the busiest allocation: spread
        # over min(L2_SLICES, span / SLICE_SPAN) slices
        best = 0.0
        for trans, lo, hi in self.regions.values():
            slices = min(L2_SLICES, max(1, -(-(hi - lo + 1) // SLICE_SPAN)))
            best = max(best, trans * scale / slices)
        out["simt__l2_slice_transactions.max"] = int(round(best))
        out["simt__shared_atomic_hot_address_lanes.max"] = int(round(self.shared_hot_max))
        out["simt__warp_inst.max"] = int(self.warp_inst.max()) if len(self.warp_inst) else 0
        if self.finish.any():
            nb = max(1, self.run_blocks)
            blk = self.finish[: nb * self.wpb].reshape(nb, self.wpb).max(axis=1)
            out["simt__block_cycles.mean"] = round(float(blk.mean()), 1)
            out["simt__block_cycles.max"] = round(float(blk.max()), 1)
        for name in ("simt__global_requests", "simt__barriers"):
            arr = self.warp_extra.get(name)
            out[name + ".max"] = int(arr.max()) if arr is not None and len(arr) else 0
        return out

    def per_line(self, scale: float = 1.0) -> dict[int, dict[str, float]]:
        lines: dict[int, dict[str, float]] = {}
        for pc, d in enumerate(self.per_pc):
            if not d:
                continue
            tgt = lines.setdefault(self.pc_lines[pc], defaultdict(float))
            for k, v in d.items():
                tgt[k] += v * scale
        out = {}
        for ln, d in sorted(lines.items()):
            dd = {k: (int(round(v)) if scale != 1.0 or float(v).is_integer() else v) for k, v in d.items()}
            inst = d.get(INST, 0)
            dd[RATIO] = round(d.get(THREAD_INST, 0) / inst, 4) if inst else 0.0
            out[ln] = dd
        return out
