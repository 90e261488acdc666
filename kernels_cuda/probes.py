"""Probe kernels outside the catalog (``kernels_cuda/probes.cu``): launches that test the
emulator's counters and sanitizer against Nsight Compute and compute-sanitizer.

``PROBES`` is a list of ``Probe(name, kernel, grid, block, shared, args)``: ``args(rng)``
builds the kernel's arguments as host values (numpy arrays for pointers, numpy scalars
for the rest), seeded.  ``run_probe(backend, probe)`` is the tiny host driver: it copies
the arrays to the device, launches once and returns every array argument back on the
host, so the same probe runs unchanged on ``EmulatorBackend`` and ``CupyBackend``.

``probe.expect``: what the sanitizers should say -- ``"clean"``, or the tool and kind a
broken probe exists to show (``"racecheck:RAW"``, ``"memcheck"``, ``"synccheck"``, ...).
``probe.fatal``: the launch is expected to be stopped by the tool (memcheck, synccheck),
so a cross-check runs it in a process of its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

SOURCE = "probes.cu"
TILE = 32
N_T = 64                      # transpose size (n x n)
STRIDES = (1, 2, 4, 8, 16, 32)


@dataclass(frozen=True)
class Probe:
    name: str                                  # unique, e.g. "shared_ld_f32/s4"
    kernel: str                                # kernel name in probes.cu
    grid: Any                                  # int or tuple
    block: Any
    shared: int = 0
    args: Callable[[np.random.Generator], list] = lambda rng: []
    expect: str = "clean"                      # sanitizer verdict it exists to show
    fatal: bool = False                        # the sanitizer stops the launch
    note: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)

    @property
    def item(self) -> str:
        """The item name the cross-check uses: ``probe:NAME``."""
        return f"probe:{self.name}"


def run_probe(backend, probe: Probe, seed: int = 0) -> dict[str, np.ndarray]:
    """Launch ``probe`` once on ``backend``; returns ``{"arg0": array, ...}`` for every
    array argument, read back after the launch."""
    host = probe.args(np.random.default_rng(seed))
    dev = [backend.to_device(a) if isinstance(a, np.ndarray) and a.ndim > 0 else a for a in host]
    backend.launch(SOURCE, probe.kernel, probe.grid, probe.block, dev, probe.shared)
    return {f"arg{k}": backend.to_host(d) for k, (a, d) in enumerate(zip(host, dev))
            if isinstance(a, np.ndarray) and a.ndim > 0}


# ------------------------------------------------------------------ argument builders

def _f32(n, rng):
    return rng.standard_normal(int(n)).astype(np.float32)


def _zeros(n, dt):
    return np.zeros(int(n), dt)


def _transpose_args(rng):
    return [_f32(N_T * N_T, rng), _zeros(N_T * N_T, np.float32), np.int32(N_T)]


def _shared_args(dt, stride, threads=64):
    def build(rng):
        shape = (threads, 4) if dt == "f128" else threads
        out = np.zeros(shape, np.float32 if dt in ("f32", "f128") else np.float64)
        return [out, np.int32(stride)]
    return build


def _global_args(dt, stride, threads=128):
    def build(rng):
        n_in = threads * stride
        if dt == "f128":
            a = rng.standard_normal((n_in, 4)).astype(np.float32)
            return [a, np.zeros((threads, 4), np.float32), np.int32(stride)]
        t = np.float32 if dt == "f32" else np.float64
        return [rng.standard_normal(n_in).astype(t), np.zeros(threads, t), np.int32(stride)]
    return build


def _global_st_args(stride, threads=128):
    def build(rng):
        return [_f32(threads, rng), _zeros(threads * stride, np.float32), np.int32(stride)]
    return build


def _gather_args(rng, n=1024):
    return [_f32(n, rng), rng.integers(0, n, n).astype(np.int32), _zeros(n, np.float32), np.int32(n)]


def _char_args(off, n=1024):
    def build(rng):
        return [rng.integers(-128, 128, n + 64).astype(np.int8), _zeros(n, np.int8),
                np.int32(off), np.int32(n)]
    return build


def _stencil_args(rng, n=1024):
    return [_f32(n, rng), _zeros(n, np.float32), np.int32(n)]


def _shfl_args(rng, n=1024):
    return [_f32(n, rng), _zeros(n // 256, np.float32), np.int32(n)]


def _ints(n, rng, hi=100):
    return rng.integers(0, hi, int(n)).astype(np.int32)


_LANE = np.arange(32)
#: Index patterns for one warp's atomic (element indices into a 1024-int array; 8 ints
#: per 32-byte sector).
ATOMIC_PATTERNS: dict[str, np.ndarray] = {
    "same1": np.zeros(32, np.int32),                       # 32 lanes, one address
    "same2": (_LANE & 1).astype(np.int32),                 # 2 addresses x 16 lanes
    "same4": (_LANE & 3).astype(np.int32),                 # 4 addresses x 8 lanes
    "same8": (_LANE & 7).astype(np.int32),                 # 8 addresses x 4 lanes, 1 sector
    "blocks8": (_LANE >> 2).astype(np.int32),              # same 8 addresses, lane order blocked
    "pairs": (_LANE >> 1).astype(np.int32),                # 16 addresses x 2 lanes, 2 sectors
    "stride1": _LANE.astype(np.int32),                     # 32 addresses, 4 sectors
    "stride8": (_LANE * 8).astype(np.int32),               # 32 addresses, 32 sectors
    "sec2x16": ((_LANE & 1) * 8).astype(np.int32),         # 2 sectors, 1 address each, 16 lanes
    "half": np.where(_LANE < 16, 0, _LANE - 8).astype(np.int32),   # 16 lanes on word 0 + 16 distinct
    "rand": np.random.default_rng(7).integers(0, 256, 32).astype(np.int32),
    "rand64": np.random.default_rng(8).integers(0, 64, 32).astype(np.int32),
}


def _build_probes() -> list[Probe]:
    P: list[Probe] = []
    g2 = (N_T // TILE, N_T // TILE)
    for k in ("transpose_naive", "transpose_tiled", "transpose_padded"):
        P.append(Probe(k, k, g2, (TILE, 8), 0, _transpose_args, tags=("transpose",)))
    for dt in ("f32", "f64", "f128"):
        for s in STRIDES:
            P.append(Probe(f"shared_ld_{dt}/s{s}", f"shared_ld_{dt}", 1, 64, 0, _shared_args(dt, s),
                           tags=("shared", "stride")))
    for dt in ("f32", "f64"):
        for s in STRIDES:
            P.append(Probe(f"shared_st_{dt}/s{s}", f"shared_st_{dt}", 1, 64, 0, _shared_args(dt, s),
                           tags=("shared", "stride")))
    for mode, label in ((0, "all"), (1, "quad"), (2, "bank0")):
        P.append(Probe(f"shared_broadcast/{label}", "shared_broadcast", 1, 64, 0,
                       (lambda m: lambda rng: [_zeros(64, np.float32), np.int32(m)])(mode),
                       tags=("shared", "broadcast")))
    for dt in ("f32", "f64", "f128"):
        for s in STRIDES:
            P.append(Probe(f"global_ld_{dt}/s{s}", f"global_ld_{dt}", 2, 64, 0, _global_args(dt, s),
                           tags=("global", "stride")))
    for s in STRIDES:
        P.append(Probe(f"global_st_f32/s{s}", "global_st_f32", 2, 64, 0, _global_st_args(s),
                       tags=("global", "stride")))
    P.append(Probe("global_broadcast", "global_broadcast", 2, 64, 0,
                   lambda rng: [_f32(2, rng), _zeros(128, np.float32)], tags=("global", "broadcast")))
    P.append(Probe("global_gather", "global_gather", 4, 256, 0, _gather_args, tags=("global",)))
    for off in (0, 1, 3, 32):
        P.append(Probe(f"char_copy/off{off}", "char_copy", 4, 256, 0, _char_args(off),
                       tags=("global", "bytes")))
    P.append(Probe("stencil1d", "stencil1d", 8, 128, 0, _stencil_args, tags=("shared", "stencil")))
    P.append(Probe("warp_shuffle_reduce", "warp_shuffle_reduce", 4, 256, 0, _shfl_args,
                   tags=("shuffle",)))
    P.append(Probe("atomic_red4", "atomic_red4", 2, 128, 0, lambda rng: [_zeros(4, np.int32)],
                   tags=("atomic",)))
    P.append(Probe("atomic_ret4", "atomic_ret4", 2, 128, 0,
                   lambda rng: [_zeros(4, np.int32), _zeros(256, np.int32)], tags=("atomic",)))
    P.append(Probe("atomic_uniform", "atomic_uniform", 2, 128, 0, lambda rng: [_zeros(1, np.int32)],
                   tags=("atomic",)))
    P.append(Probe("atomic_shared", "atomic_shared", 4, 256, 0,
                   lambda rng: [_ints(1024, rng), _zeros(32, np.int32), np.int32(1024)],
                   tags=("atomic", "shared")))
    for pat, idx in ATOMIC_PATTERNS.items():
        for kind in ("red", "ret", "cas"):
            P.append(Probe(f"atomic_idx_{kind}/{pat}", f"atomic_idx_{kind}", 1, 32, 0,
                           (lambda ix, k: lambda rng: [_zeros(1024, np.int32), ix.copy()]
                            + ([_zeros(32, np.int32)] if k != "red" else []))(idx, kind),
                           tags=("atomic", "pattern")))
    P.append(Probe("divergent_branch", "divergent_branch", 2, 128, 0,
                   lambda rng: [_ints(256, rng), _zeros(256, np.int32), np.int32(256)],
                   tags=("divergence",)))
    P.append(Probe("divergent_loop", "divergent_loop", 2, 64, 0,
                   lambda rng: [_ints(128, rng), _zeros(128, np.int32), np.int32(128)],
                   tags=("divergence",)))
    # ---- broken kernels for the sanitizers
    P.append(Probe("race_raw", "race_raw", 1, 64, 0, lambda rng: [_zeros(64, np.int32)],
                   expect="racecheck:RAW", tags=("broken",)))
    P.append(Probe("race_waw", "race_waw", 1, 64, 0, lambda rng: [_zeros(64, np.int32)],
                   expect="racecheck:WAW", tags=("broken",)))
    P.append(Probe("race_war", "race_war", 1, 64, 0, lambda rng: [_zeros(64, np.int32)],
                   expect="racecheck:WAR", tags=("broken",)))
    P.append(Probe("uninit_shared", "uninit_shared", 1, 64, 0, lambda rng: [_zeros(64, np.int32)],
                   expect="initcheck", tags=("broken",),
                   note="compute-sanitizer's initcheck covers global memory only"))
    P.append(Probe("oob_global_write", "oob_global_write", 1, 64, 0,
                   lambda rng: [_zeros(32, np.int32), np.int32(32)],
                   expect="memcheck", fatal=True, tags=("broken",)))
    P.append(Probe("oob_shared_write", "oob_shared_write", 1, 64, 0,
                   lambda rng: [_zeros(64, np.int32)], expect="memcheck", fatal=True, tags=("broken",)))
    P.append(Probe("misaligned_load", "misaligned_load", 1, 32, 0,
                   lambda rng: [np.arange(256, dtype=np.int8), _zeros(32, np.int32)],
                   expect="memcheck", fatal=True, tags=("broken",)))
    P.append(Probe("divergent_barrier", "divergent_barrier", 1, 64, 0,
                   lambda rng: [_zeros(64, np.int32)], expect="synccheck", fatal=True,
                   tags=("broken",)))
    return P


PROBES: list[Probe] = _build_probes()
_BY_NAME = {p.name: p for p in PROBES}
assert len(_BY_NAME) == len(PROBES), "duplicate probe names"


def get(name: str) -> Probe:
    """A probe by name (``"shared_ld_f32/s4"``) or item (``"probe:shared_ld_f32/s4"``)."""
    key = name[len("probe:"):] if name.startswith("probe:") else name
    try:
        return _BY_NAME[key]
    except KeyError:
        from simt.errors import UsageError
        raise UsageError(f"unknown probe {key!r}") from None


def counter_probes() -> list[Probe]:
    """Probes whose counters are compared (everything that is not stopped by a tool)."""
    return [p for p in PROBES if not p.fatal]
