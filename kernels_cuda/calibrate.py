"""``simt calibrate --real``: measure a GPU profile for the timing model.

Each microbenchmark of ``calibrate.cu`` runs on the GPU (CUDA events, median of repeats)
and in the emulator (block-sampled), and one rate of ``simt.timing.Profile`` is the
emulator's counter divided by the measured time, so the profile speaks the emulator's
units.  ``python -m kernels_cuda.calibrate --real --name h200 --out simt/profiles/h200.json``
"""
from __future__ import annotations

import argparse
import math
import sys

import numpy as np

from pathlib import Path

from simt import counters as C
from simt.timing import COMBINE_P, Profile

SRC = "calibrate.cu"
CAS_BUSY_N = 1 << 20                  # contended CAS loops: about 4 waves of blocks
CAS_SMALL_N = 1 << 14                 # ... and 64 blocks, all resident at once
CAS_LANE_N = 1 << 21                  # CAS loops on 64 words in lane order, about 8 waves
SCATTER_FEW_BLOCKS, SCATTER_FEW_N = 16, 1 << 21    # scattered stores from 16 SMs
MID_WORDS = 1 << 24                   # a 64 MiB table: partly in L2
FAR_WORDS = 1 << 26                   # 256 MiB: mostly not
REREAD_WORDS = 1 << 26                # cal_reread: 256 MiB in rows of ...
REREAD_COLS = 2048                    # ... 8 KiB, a warp each, 8 a block


def _benches(sms: int):
    """(key, kernel, grid, block, shared, args(backend)) of every microbenchmark."""
    rng = np.random.default_rng(0)
    n4 = 1 << 24                      # 256 MiB per buffer: far beyond L2
    l2n4 = 1 << 15                    # 512 KiB re-read by every block
    na = 1 << 22
    chase_n = 1 << 25
    perm = rng.permutation(chase_n).astype(np.int32)
    nxt = np.empty(chase_n, np.int32)
    nxt[perm] = np.roll(perm, -1)     # one cycle through a random permutation
    blocks = sms * 16
    return [
        ("empty", "cal_empty", 1, 32, 0, lambda b: [b.zeros(1, np.int32), np.int32(-1)]),
        ("copy", "cal_copy", sms * 32, 256, 0,
         lambda b: [b.zeros(n4 * 4, np.float32), b.zeros(n4 * 4, np.float32), np.int32(n4)]),
        ("l2", "cal_l2", blocks * 4, 256, 0,
         lambda b: [b.to_device(np.ones(l2n4 * 4, np.float32)), b.zeros(blocks * 4, np.float32),
                    np.int32(l2n4), np.int32(64)]),
        ("alu", "cal_alu", blocks, 256, 0, lambda b: [b.zeros(blocks, np.float32), np.int32(2048)]),
        ("lop", "cal_lop", blocks, 256, 0, lambda b: [b.zeros(blocks, np.uint32), np.int32(2048)]),
        ("popc", "cal_popc", blocks, 256, 0, lambda b: [b.zeros(blocks, np.uint32), np.int32(2048)]),
        ("dfma", "cal_dfma", blocks, 256, 0, lambda b: [b.zeros(blocks, np.float64), np.int32(2048)]),
        ("imad", "cal_imad", blocks, 256, 0,
         lambda b: [b.zeros(blocks, np.uint64), np.uint64(0x9E3779B97F4A7C15), np.uint64(12345), np.int32(2048)]),
        ("alu_1warp", "cal_alu", 1, 32, 0, lambda b: [b.zeros(1, np.float32), np.int32(2048)]),
        ("gatom_same", "cal_gatom", na // 256, 256, 0,
         lambda b: [b.zeros(256, np.int32), b.to_device(np.zeros(na, np.int32)), np.int32(na)]),
        ("gatom_same_f", "cal_gatom_f", na // 256, 256, 0,
         lambda b: [b.zeros(256, np.float32), b.to_device(np.zeros(na, np.int32)), np.int32(na)]),
        ("gatom_spread", "cal_gatom", na // 256, 256, 0,
         lambda b: [b.zeros(na, np.int32), b.to_device(np.arange(na, dtype=np.int32)), np.int32(na)]),
        ("blocks", "cal_empty", sms * 8 * 64, 256, 0, lambda b: [b.zeros(1, np.int32), np.int32(-1)]),
        ("satom_conflict", "cal_satom", blocks, 256, 0,
         lambda b: [b.to_device(np.zeros(256, np.int32)), b.zeros(blocks, np.int32), np.int32(256)]),
        ("satom_free", "cal_satom", blocks, 256, 0,
         lambda b: [b.to_device(np.arange(256, dtype=np.int32)), b.zeros(blocks, np.int32), np.int32(256)]),
        ("gatom_sector", "cal_gatom", na // 256, 256, 0,
         lambda b: [b.zeros(256, np.int32), b.to_device((np.arange(na) % 8).astype(np.int32)), np.int32(na)]),
        # warps whose 32 lanes add to one word each, the words walking 512 KiB (every slice)
        ("gatom_spread_same", "cal_gatom", na // 256, 256, 0,
         lambda b: [b.zeros(1 << 20, np.int32), b.to_device(((np.arange(na) >> 5) % (1 << 20)).astype(np.int32)),
                    np.int32(na)]),
        ("gatom_bins", "cal_gatom", na // 256, 256, 0,
         lambda b: [b.zeros(256, np.int32), b.to_device(rng.integers(0, 256, na).astype(np.int32)),
                    np.int32(na)]),
        ("cas_free", "cal_gcas", na // 256, 256, 0,
         lambda b: [b.zeros(256, np.int32), b.to_device(_bins(256, na)), np.int32(na), np.int32(0)]),
        ("cas_busy", "cal_gcas", CAS_BUSY_N // 256, 256, 0,
         lambda b: [b.zeros(256, np.int32), b.to_device(_bins(256, CAS_BUSY_N)),
                    np.int32(CAS_BUSY_N), np.int32(1)]),
        ("cas_small", "cal_gcas", CAS_SMALL_N // 256, 256, 0,
         lambda b: [b.zeros(256, np.int32), b.to_device(_bins(256, CAS_SMALL_N)),
                    np.int32(CAS_SMALL_N), np.int32(1)]),
        ("cas_lane", "cal_gcas", CAS_LANE_N // 256, 256, 0,
         lambda b: [b.zeros(64, np.int32), b.to_device((np.arange(CAS_LANE_N) % 64).astype(np.int32)),
                    np.int32(CAS_LANE_N), np.int32(1)]),
        ("gstore_sector", "cal_gstore", na // 256, 256, 0,
         lambda b: [b.zeros(256, np.int32), b.to_device((np.arange(na) % 8).astype(np.int32)), np.int32(na)]),
        ("ilp", "cal_ilp", 1, 32, 0,
         lambda b: [b.to_device(np.ones(32 + 2048 * 4096, np.float32)), b.zeros(32, np.float32),
                    np.int32(2048), np.int32(4096)]),
        ("shared_conflict", "cal_shared", blocks, 256, 0,
         lambda b: [b.zeros(blocks, np.float32), np.int32(32), np.int32(256)]),
        ("chase", "cal_chase", 1, 1, 0,
         lambda b: [b.to_device(nxt), b.zeros(1, np.int32), np.int32(2048)]),
        ("barrier", "cal_bar", 1, 1024, 0, lambda b: [b.zeros(1, np.int32), np.int32(2048)]),
        ("gather", "cal_gather", n4 // 256, 256, 0,
         lambda b: [b.to_device(np.ones(1 << 20, np.float32)),
                    b.to_device(rng.integers(0, 1 << 20, n4).astype(np.int32)),
                    b.zeros(n4, np.float32), np.int32(n4)]),
        ("scatter", "cal_scatter", n4 // 256, 256, 0,
         lambda b: [b.zeros(1 << 20, np.float32),
                    b.to_device(rng.integers(0, 1 << 20, n4).astype(np.int32)), np.int32(n4)]),
        # ... and from 16 blocks, one an SM: what an SM sends when L2 is not the limit
        # (timing_investigation/fewsm/)
        ("scatter_few", "cal_scatter_gs", SCATTER_FEW_BLOCKS, 256, 0,
         lambda b: [b.zeros(1 << 20, np.float32),
                    b.to_device(rng.integers(0, 1 << 20, SCATTER_FEW_N).astype(np.int32)), np.int32(SCATTER_FEW_N)]),
        # random gathers and reductions over tables larger than L2: how many re-touched
        # chunks miss it, and what a miss costs (timing_investigation/l2miss/)
        ("gather_mid", "cal_gather", n4 // 256, 256, 0,
         lambda b: [b.zeros(MID_WORDS, np.float32),
                    b.to_device(rng.integers(0, MID_WORDS, n4).astype(np.int32)),
                    b.zeros(n4, np.float32), np.int32(n4)]),
        ("gather_far", "cal_gather", n4 // 256, 256, 0,
         lambda b: [b.zeros(FAR_WORDS, np.float32),
                    b.to_device(rng.integers(0, FAR_WORDS, n4).astype(np.int32)),
                    b.zeros(n4, np.float32), np.int32(n4)]),
        ("ratom_far", "cal_gatom", n4 // 256, 256, 0,
         lambda b: [b.zeros(FAR_WORDS, np.int32),
                    b.to_device(rng.integers(0, FAR_WORDS, n4).astype(np.int32)), np.int32(n4)]),
        # a warp re-reading its row after the GPU touched about L2's size in between
        ("reread", "cal_reread", REREAD_WORDS // REREAD_COLS // 8, 256, 0,
         lambda b: [b.to_device(np.ones(REREAD_WORDS, np.float32)), b.zeros(REREAD_WORDS // REREAD_COLS, np.float32),
                    np.int32(REREAD_WORDS // REREAD_COLS), np.int32(REREAD_COLS)]),
        ("stream", "cal_stream", n4 // 256, 256, 0,
         lambda b: [b.to_device(np.ones(n4, np.float32)), b.zeros(n4, np.float32), np.int32(n4)]),
        # one block per SM (the shared memory it asks for leaves room for one)
        ("stream_b1", "cal_stream", n4 // 256, 256, ONE_BLOCK_SHARED,
         lambda b: [b.to_device(np.ones(n4, np.float32)), b.zeros(n4, np.float32), np.int32(n4)]),
        ("stream2", "cal_stream2", n4 // 256, 256, 0,
         lambda b: [b.to_device(np.ones(n4, np.float32)), b.to_device(np.arange(n4, dtype=np.int32)),
                    b.zeros(n4, np.float32), np.int32(n4)]),
    ]


def _bins(nbins: int, n: int) -> np.ndarray:
    """n uniform bin indices, from their own seed (the others' data stays as it was)."""
    return np.random.default_rng(nbins).integers(0, nbins, n).astype(np.int32)


STREAM_GRID = (1 << 24) // 256        # the "stream" launches above (and the 2^24-thread others)
ONE_BLOCK_SHARED = 120 * 1024         # dynamic shared memory: one block per SM (228 KiB each)


def _clock_ghz() -> float:
    """SM clock (the attribute; cudaDeviceProp lost clockRate in CUDA 13)."""
    import cupy
    rt = cupy.cuda.runtime
    try:
        khz = rt.deviceGetAttribute(getattr(rt, "cudaDevAttrClockRate", 13), cupy.cuda.Device().id)
        if khz:
            return round(khz / 1e6, 3)
    except Exception:
        pass
    return 1.98


def measure_gpu(repeat: int = 20, only=None) -> tuple[dict, dict]:
    """Median milliseconds of every microbenchmark on the present GPU (those named in
    ``only``, if given), and device info."""
    from kernels_cuda import cupy_backend as cb
    info = cb.device_info()
    sms = info["sm_count"] = int(info.get("sms") or 132)
    info["clock_ghz"] = _clock_ghz()
    out = {}
    be = cb.CupyBackend(timed=True, warmup=3, repeat=repeat)
    for key, kern, grid, block, shared, args in _benches(sms):
        if only is not None and key not in only:
            continue
        be.launch(SRC, kern, grid, block, args(be), shared)
        out[key] = be.launches[-1].ms
    info["copy_bandwidth_gbs"] = cb.copy_bandwidth() / 1e9
    return out, info


_COUNTED: dict = {}          # (sms, sample_blocks) -> count_emulator's answer, once a process


def count_emulator(sms: int, sample_blocks: int = 64) -> dict:
    """The emulator's metrics for every microbenchmark (grids sampled, then extrapolated).
    The emulator is deterministic, so a process counts each SM count once (a copy each
    call: deriving both 132-SM profiles emulates the microbenchmarks once)."""
    key = (sms, sample_blocks)
    if key not in _COUNTED:
        _COUNTED[key] = _count_emulator(sms, sample_blocks)
    return {k: dict(v) for k, v in _COUNTED[key].items()}


def _count_emulator(sms: int, sample_blocks: int) -> dict:
    from dataclasses import replace
    from kernels_cuda.backend import EmulatorBackend
    from simt import timing
    # which re-touches wait on DRAM follows a profile's l2_retouch_bytes, which reread
    # measures: the counts here wait on L2 for all of them, not on the profile being made
    plain = replace(timing.load_profile(None), l2_retouch_bytes=0.0)
    out = {}
    for key, kern, grid, block, shared, args in _benches(sms):
        be = EmulatorBackend(sanitize=False, sample_blocks=sample_blocks, gpu=plain)
        be.launch(SRC, kern, grid, block, args(be), shared)
        out[key] = be.launches[-1].metrics
    return out


def _spread_same_cost(prof: Profile, busy_us: float, m: dict) -> float:
    """``spread_same_cost``: the measured time over what the busiest slice's replays give
    at the one-address rate, once its plain transactions and the slices' scaling with L2's
    size (``timing.spread_share``) are taken out."""
    from simt import timing as T
    trans, ser = m["simt__l2_slice_transactions.max"], m["simt__l2_slice_serialized.max"]
    share = T.spread_share(m, prof)
    left = busy_us / share - (trans - ser) * prof.l2_transaction_us
    return round(max(1.0, left * prof.gatom_same_per_us / ser), 4) if ser else 0.0


def derive(name: str, times_ms: dict, counts: dict, info: dict) -> Profile:
    sms = int(info.get("sm_count") or 132)
    clock = float(info.get("clock_ghz") or 1.98)
    us = {k: v * 1e3 for k, v in times_ms.items()}
    launch = us["empty"]

    def busy(k):
        return max(us[k] - launch, 1e-3)

    c = counts
    copy_bytes = (c["copy"][C.SECT_LD] + c["copy"][C.SECT_ST]) * 32
    l2_bytes = c["l2"][C.SECT_LD] * 32
    alu_inst = c["alu"].get(C.ISSUE_SLOTS, c["alu"][C.INST])
    one_warp_inst = c["alu_1warp"][C.INST]
    satom_steps = c["satom_conflict"]["simt__atomic_shared_serialized_steps.sum"]
    waves = c["shared_conflict"][C.WAVES_LD] + c["shared_conflict"][C.WAVES_ST]
    block_waves = 64                  # the "blocks" grid is 64 waves of 8 blocks per SM
    gatom_same = round(c["gatom_same"]["simt__global_atomic_hot_address_lanes.max"] / busy("gatom_same"), 2)
    prof = Profile(
        name=name, device=str(info.get("name", name)), sm_count=sms, clock_ghz=clock,
        launch_us=round(launch, 3),
        dram_gbs=round(copy_bytes / busy("copy") / 1e3, 1),
        l2_gbs=round(l2_bytes / busy("l2") / 1e3, 1),
        issue_ipc=round(alu_inst / busy("alu") / (sms * clock * 1e3), 4),
        warp_cpi=round(busy("alu_1warp") * clock * 1e3 / one_warp_inst, 3),
        mem_latency_us=round(busy("chase") / 2048, 5),
        barrier_us=round(busy("barrier") / 2048, 5),
        gatom_per_us=round(c["gatom_spread"]["simt__atomic_global_lanes.sum"] / busy("gatom_spread"), 1),
        gatom_same_per_us=gatom_same,
        # (the same-address rate above is measured where every lane hits one word)
        satom_per_us_sm=round(satom_steps / max(busy("satom_conflict") - busy("satom_free"), 1e-3) / sms, 2),
        block_wave_us=round(busy("blocks") / block_waves, 4),
        ilp_latency_us=round(busy("ilp") / 2048, 5),
        sector_req_us=round(busy("gstore_sector") / c["gstore_sector"]["simt__global_hot_sector_requests.max"], 6),
        atom_sector_req_us=round(busy("gatom_sector") / c["gatom_sector"]["simt__global_hot_sector_requests.max"], 6),
        # (a replayed same-address lane costs 1 / gatom_same_per_us, measured above)
        l2_transaction_us=round(_per_transaction(busy("gatom_bins"), c["gatom_bins"], gatom_same), 7),
        shared_waves_per_us_sm=round(waves / busy("shared_conflict") / sms, 2),
        l2_mib=float(info.get("l2_mib") or 0.0),
        combine_p=COMBINE_P,
        measured={"times_ms": times_ms, "device": info},
    )
    if "gatom_same_f" in us:     # float adds on one word
        prof.gatom_same_fp_per_us = round(
            c["gatom_same_f"]["simt__global_atomic_hot_address_lanes.max"] / busy("gatom_same_f"), 2)
    if "lop" in us:     # the integer ALU pipe's own rate, in its slots (simt.issue)
        prof.alu_ipc = round(c["lop"][C.ALU_SLOTS] / busy("lop") / (sms * clock * 1e3), 4)
    if "popc" in us:    # the bit-counting pipe's (simt.issue.BIT_PIPE)
        prof.bit_ipc = round(c["popc"][C.BIT_SLOTS] / busy("popc") / (sms * clock * 1e3), 4)
    if "gatom_spread_same" in us:   # same-address replays spread over every slice
        prof.spread_same_cost = _spread_same_cost(prof, busy("gatom_spread_same"), c["gatom_spread_same"])
    if "dfma" in us:    # the FP64 pipe's (simt.issue.fp64_pipe_weights)
        prof.fp64_ipc = round(c["dfma"][C.FP64_SLOTS] / busy("dfma") / (sms * clock * 1e3), 4)
    if "imad" in us:    # the FMA pipe's heavy half's, in 64-bit products' turns (simt.issue.imad_pipe_weights)
        prof.imad_ipc = round(c["imad"][C.IMAD_SLOTS] / busy("imad") / (sms * clock * 1e3), 4)
    for key, field in (("gather", "ld"), ("scatter", "st")):
        if key in us:   # the table stays in L2: the line transactions are the whole cost
            setattr(prof, f"l2_{field}_lines_per_cycle_sm", round(
                c[key][f"simt__l2_lines_{field}.sum"] / (busy(key) * clock * 1e3 * sms), 5))
    if all(k in us for k in ("cas_free", "cas_busy", "cas_small")):
        _derive_cas(prof, busy("cas_free"), c["cas_free"],
                    [(busy(k), c[k], n) for k, n in (("cas_small", CAS_SMALL_N), ("cas_busy", CAS_BUSY_N))])
    if "scatter_few" in us:     # one SM's scattered store lines a cycle when few send
        prof.l2_st_lines_alone_per_cycle_sm = round(
            c["scatter_few"]["simt__l2_lines_st.sum"] / (busy("scatter_few") * clock * 1e3 * SCATTER_FEW_BLOCKS), 5)
    if prof.cas_contention and "cas_lane" in us:
        # the law and the lane-order term each take the other's share out: a few rounds
        for _ in range(4):
            _derive_cas_distinct(prof, busy("cas_lane"), c["cas_lane"], CAS_LANE_N)
            _derive_cas(prof, busy("cas_free"), c["cas_free"],
                        [(busy(k), c[k], n) for k, n in (("cas_small", CAS_SMALL_N), ("cas_busy", CAS_BUSY_N))])
        _derive_cas_distinct(prof, busy("cas_lane"), c["cas_lane"], CAS_LANE_N)
    if all(k in us for k in ("stream", "stream_b1", "stream2")):
        _derive_blocks(prof, c, busy)
    if all(k in us for k in ("gather_mid", "gather_far", "ratom_far")):
        _derive_l2_reuse(prof, c, us, float(info.get("l2_mib") or 50.0) * 2**20)
    if "reread" in us:
        _derive_retouch(prof, c["reread"], us["reread"], float(info.get("l2_mib") or 50.0) * 2**20)
    return prof


def _bisect(f, lo: float, hi: float, steps: int = 60) -> float:
    """The root of f between lo and hi, halving the interval: the end where f has the
    sign it has at lo moves (hi is returned when f keeps that sign throughout)."""
    above = f(lo) > 0
    for _ in range(steps):
        mid = (lo + hi) / 2
        if (f(mid) > 0) == above:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _derive_l2_reuse(prof: Profile, c: dict, us: dict, l2_bytes: float) -> None:
    """``l2_reuse_bytes`` (of a table touched at random, the bytes L2 keeps),
    ``dram_random_eff`` (a scattered chunk's share of the streaming bandwidth) and
    ``dram_rewrite_cost`` (a scattered sector's write-back in read sectors), the values
    that make the model's predictions of gather_mid (a random gather over 64 MiB, partly
    held), gather_far (256 MiB, mostly missed) and ratom_far (random reductions over 256
    MiB) their measured times.  The first two depend on each other a little: iterated to
    a fixed point."""
    from simt import timing

    def fit(field, key, lo, hi):
        """Set ``field`` to the value that predicts microbenchmark ``key``'s time."""
        def off(x):
            setattr(prof, field, x)
            return timing.predict(c[key], STREAM_GRID, 256, 0, prof).ms * 1e3 - us[key]
        setattr(prof, field, _bisect(off, lo, hi))

    prof.l2_reuse_bytes, prof.dram_random_eff, prof.dram_rewrite_cost = l2_bytes / 2, 1.0, 1.0
    for _ in range(8):
        fit("dram_random_eff", "gather_far", 0.05, 2.0)
        fit("l2_reuse_bytes", "gather_mid", 0.0, l2_bytes)
    fit("dram_rewrite_cost", "ratom_far", 0.1, 16.0)
    prof.l2_reuse_bytes = int(round(prof.l2_reuse_bytes / 2**16)) * 2**16
    prof.dram_random_eff = round(prof.dram_random_eff, 4)
    prof.dram_rewrite_cost = round(prof.dram_rewrite_cost, 4)


def _derive_retouch(prof: Profile, m: dict, us: float, l2_bytes: float) -> None:
    """``l2_retouch_bytes``: the GPU-wide bytes between a block's two touches of a sector
    at which half such re-touches miss L2, the value that makes the model predict the
    measured time of ``reread`` (each warp's second pass over its 8 KiB row; with the
    steepness ``counters.RETOUCH_STEEPNESS`` measured by Nsight Compute, see
    timing_investigation/retouch/).  Searched between a tenth of L2 and four times it."""
    from simt import timing

    def off(x):
        prof.l2_retouch_bytes = x
        return timing.predict(m, REREAD_WORDS // REREAD_COLS // 8, 256, 0, prof).ms * 1e3 - us
    prof.l2_retouch_bytes = int(round(_bisect(off, l2_bytes / 10, 4 * l2_bytes) / 2**16)) * 2**16


def _derive_blocks(prof: Profile, c: dict, busy) -> None:
    """``block_start_us`` (a block's time beyond its critical path), ``dram_queue_us``
    (how long its loads queue at DRAM, a x u / (1 - u) at utilisation u) and
    ``combine_p``.  cal_stream at one block per SM (little DRAM traffic) and cal_stream2
    (two dependent DRAM loads) at eight are latency-bound: the latency per wave L their
    measured times leave once the other components are taken out, their paths m and
    DRAM time per wave d satisfy (L - s - m)(L - d) = a d (``timing.queued_life``), and s
    is where both give the same a.  They depend on each other a little: iterated to a
    fixed point.  (``combine_p`` is ``timing.COMBINE_P``, fitted on the measured tables;
    cal_stream at eight blocks per SM, where DRAM traffic and latency are about equal,
    takes the larger of the two, which ``timing.combine`` joins first.)"""
    from simt import timing
    prof.combine_p = timing.COMBINE_P

    def point(key, shared):
        m = c[key]
        p = timing.predict(m, STREAM_GRID, 256, shared, prof)
        need = _latency_left(p.components_us, prof.combine_p, busy(key))
        return (need / p.waves, m["simt__block_cycles.mean"] / (prof.clock_ghz * 1e3),
                p.components_us["dram"] / p.waves)

    for _ in range(10):
        prof.dram_queue_us = prof.dram_queue_us or 0.1
        (l1, m1, d1), (l8, m8, d8) = point("stream_b1", ONE_BLOCK_SHARED), point("stream2", 0)

        def gap(s):
            return (l1 - s - m1) * (l1 - d1) / d1 - (l8 - s - m8) * (l8 - d8) / d8
        s = _bisect(gap, 0.0, max(min(l1 - m1, l8 - m8), 1e-4))
        prof.block_start_us = round(max(s, 1e-4), 4)
        prof.dram_queue_us = round(max((l8 - s - m8) * (l8 - d8) / d8, 1e-4), 4)


def _latency_left(comp: dict, p: float, busy_us: float) -> float:
    """The latency component that makes a launch's other components (``comp``) combine,
    as a p-norm, to ``busy_us`` (DRAM joins latency as the larger of the two first,
    ``timing.combine``: it is not among the others)."""
    others = [v for k, v in comp.items() if k not in ("latency", "dram", "slice_queue")]
    if p <= 0:
        return busy_us
    rest = sum(v ** p for v in others)
    return max(busy_us ** p - rest, 0.0) ** (1.0 / p) if busy_us ** p > rest else 0.0


def _derive_cas(prof: Profile, free_us: float, free: dict, contended: list) -> None:
    """``cas_cost`` from CAS loops that never retry against atomicAdd's transaction time
    (same 256 bins); ``cas_contention`` and its slope from CAS loops on the same bins
    that do, with few contenders (a grid the GPU runs at once) and many (about 4 waves):
    the failures per success each measured time implies, per other contender in flight (see
    ``simt.timing.cas_retries``), less what ``cas_distinct`` (if set) adds for the warps
    whose lanes happen to name different words."""
    from simt import timing
    prof.cas_cost = round(free_us / timing.slice_busy_us(free, prof), 4)
    resident = _resident(prof)
    points = []
    for busy_us, m, grid in contended:
        x, c = _cas_point(prof, busy_us, m, grid)
        w = timing.cas_distinct_weight(m, grid, resident) if prof.cas_distinct else 0.0
        law = (c - w * prof.cas_distinct) / (1.0 - w) if w < 1.0 else c
        points.append((x, law if law < prof.cas_distinct else c))
    (x1, c1), (x2, c2) = points
    slope = math.log(c1 / c2) / math.log(x2 / x1)
    prof.cas_contention_slope = round(slope, 4)
    prof.cas_contention = round(c1 * (x1 / 32.0) ** slope, 4)
    prof.cas_contenders_max = round(max(x1, x2), 1)       # the law is held beyond this


def _resident(prof: Profile) -> int:
    """Threads the GPU holds at once in blocks of 256 (cal_gcas's)."""
    from simt import timing
    return prof.sm_count * timing._occupancy(prof, 256, 0) * 256


def _cas_point(prof: Profile, busy_us: float, m: dict, grid: int):
    """(X, c): the contenders in flight a word and the failures per success per other
    contender that a CAS loop's measured time implies (see ``simt.timing.cas_retries``)."""
    from simt import timing
    resident = _resident(prof)
    need = busy_us / timing.slice_busy_us(m, prof, prof.cas_cost)   # GPU attempts per emulated one
    lanes = m["simt__atomic_cas_lanes.sum"]
    failed = m["simt__atomic_cas_failed.sum"] - m.get("simt__atomic_cas_stale.sum", 0)
    f = failed / lanes
    ratio = max(need - 1.0 + f, 1e-6) / f                         # GPU failures per emulated one
    per_success = failed / (lanes - failed)
    batch = m["simt__lockstep_threads.max"]
    x = timing.cas_contenders(per_success, batch, grid, resident)
    return x, ratio / timing.cas_scale(batch, grid, resident)


def _derive_cas_distinct(prof: Profile, busy_us: float, m: dict, grid: int) -> None:
    """``cas_distinct`` from CAS loops on 64 words in lane order (every warp names 32
    different words) over about 8 waves: the value that makes ``cas_retries`` give the
    c this time implies, given the hashed law ``_derive_cas`` set."""
    from simt import timing
    resident = _resident(prof)
    x, c = _cas_point(prof, busy_us, m, grid)
    law = timing.cas_law(x, prof)
    w = timing.cas_distinct_weight(m, grid, resident)
    prof.cas_distinct = round(law + (c - law) / w, 4) if w > 0 else 0.0


def _per_transaction(busy_us: float, m: dict, same_per_us: float) -> float:
    """Time per L2 transaction in the busiest slice, once the replayed same-address lanes
    (each 1 / same_per_us) are taken out."""
    trans = m["simt__l2_slice_transactions.max"]
    ser = m.get("simt__l2_slice_serialized.max", 0)
    return max(busy_us - ser / same_per_us, 0.5 * busy_us) / max(1, trans - ser)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="simt calibrate")
    ap.add_argument("--real", action="store_true", help="measure on the present GPU (required)")
    ap.add_argument("--name", default=None, help="profile name (default: from the device name)")
    ap.add_argument("--out", default=None, help="write the profile JSON here")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--update", default=None, metavar="PROFILE",
                    help="keep this profile's recorded times, measure only the microbenchmarks "
                         "it lacks (or those named in --only), and derive the profile again")
    ap.add_argument("--only", default=None, help="comma-separated microbenchmarks to (re)measure")
    ap.add_argument("--derive", default=None, metavar="PROFILE",
                    help="no GPU: derive the profile again from its recorded times")
    a = ap.parse_args(argv)
    if a.derive:
        old = _load_recorded(a.derive)
        if old is None:
            return 2
        times, info = old
        return _write(a, derive(a.name or Path(a.derive).stem, times,
                                count_emulator(int(info["sm_count"])), info))
    if not a.real:
        print("simt calibrate: measuring needs a GPU; pass --real on a machine with one", file=sys.stderr)
        return 2
    from kernels_cuda import cupy_backend as cb
    ok, why = cb.available()
    if not ok:
        print(f"simt calibrate: no usable GPU: {why}", file=sys.stderr)
        return 2
    only = set(a.only.split(",")) if a.only else None
    known = {b[0] for b in _benches(132)}
    if only and not only <= known:
        print(f"simt calibrate: unknown microbenchmark(s) {', '.join(sorted(only - known))} "
              f"(known: {', '.join(sorted(known))})", file=sys.stderr)
        return 2
    if a.update:
        old = _load_recorded(a.update)
        if old is None:
            return 2
        times, info = old
        todo = only if only is not None else known - set(times)
        new, new_info = measure_gpu(a.repeat, only=todo)
        if new_info.get("name") != info.get("name"):
            print(f"simt calibrate: {a.update} was measured on {info.get('name')}, this is "
                  f"{new_info.get('name')}", file=sys.stderr)
            return 2
        times = {**times, **new}
    else:
        times, info = measure_gpu(a.repeat, only=only)
    sms = int(info["sm_count"])
    counts = count_emulator(sms)
    name = a.name or (Path(a.update).stem if a.update else
                      "".join(ch for ch in str(info.get("name", "gpu")).lower().split()[-1] if ch.isalnum()))
    return _write(a, derive(name, times, counts, info))


def _load_recorded(path):
    import json
    try:
        data = json.loads(Path(path).read_text())
        return dict(data["measured"]["times_ms"]), dict(data["measured"]["device"])
    except (OSError, ValueError, KeyError, TypeError) as ex:
        print(f"simt calibrate: {path}: not a profile with recorded times ({ex})", file=sys.stderr)
        return None


def _write(a, prof: Profile) -> int:
    text = prof.to_json()
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
