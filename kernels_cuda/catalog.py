"""The catalog: every kernel of the seeds (as written, plus a fixed variant where the
seed is wrong) with its launch configuration, input generator, numpy reference and host
driver.

An ``Entry`` is backend-agnostic: ``entry.run(backend, inputs)`` calls the host driver,
which only uses the ``Backend`` interface (``kernels_cuda/backend.py``).  Family modules
(``kernels_cuda/fam_*.py``) call ``register(Entry(...))`` at import time.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

Inputs = dict[str, np.ndarray]
Outputs = dict[str, np.ndarray]


@dataclass(frozen=True)
class Entry:
    id: str                                   # "histogram/atomic"
    title: str                                # one-line explanation
    seed: str                                 # seed file it comes from: "000".."004", or "extra"
    source: str                               # .cu file in kernels_cuda/, e.g. "histogram.cu"
    kernels: tuple[str, ...]                  # kernel names the driver launches
    default_n: int                            # problem size
    block: int                                # default threads per block (x)
    make_inputs: Callable[[int, np.random.Generator], Inputs]
    reference: Callable[[Inputs], Outputs]    # numpy; the correct answer
    driver: Callable[..., Outputs]            # driver(backend, inputs, entry) -> outputs
    expect_correct: bool = True               # False: the seed's bug makes it wrong
    racy: bool = False                        # result depends on scheduling (lost updates)
    float_rtol: float | None = None           # None: exact; else rtol (float atomics, free order)
    policy: str = "lockstep"                  # emulator scheduling policy that shows the bug
    explanation: str = ""                     # a paragraph for the TUI
    tags: tuple[str, ...] = field(default_factory=tuple)
    # wrong entries: how many updates the run lost, given its outputs and the reference
    # (histograms: reference.sum() - outputs.sum()); None where that has no meaning.
    lost_updates: Callable[[Outputs, Outputs], int] | None = None

    @property
    def family(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def variant(self) -> str:
        return self.id.split("/", 1)[1]

    def inputs(self, n: int | None = None, seed: int = 0) -> Inputs:
        return self.make_inputs(int(n or self.default_n), np.random.default_rng(seed))

    def run(self, backend, inputs: Inputs) -> Outputs:
        return self.driver(backend, inputs, self)


_REGISTRY: dict[str, Entry] = {}
_LOADED = False


def register(entry: Entry) -> Entry:
    if entry.id in _REGISTRY:
        raise ValueError(f"duplicate catalog id {entry.id}")
    _REGISTRY[entry.id] = entry
    return entry


def _load() -> None:
    """Import every family module once (a family imported on its own must not hide the rest)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import importlib
    import pkgutil
    import kernels_cuda
    for mod in sorted(m.name for m in pkgutil.iter_modules(kernels_cuda.__path__)):
        if mod.startswith("fam_"):
            importlib.import_module(f"kernels_cuda.{mod}")


def entries() -> list[Entry]:
    _load()
    return list(_REGISTRY.values())


def get(entry_id: str) -> Entry:
    _load()
    try:
        return _REGISTRY[entry_id]
    except KeyError:
        from simt.errors import UsageError
        close = [e for e in _REGISTRY if entry_id.split("/")[-1] in e]
        hint = f"; did you mean {', '.join(close[:3])}?" if close else "; `simt list` shows them"
        raise UsageError(f"unknown catalog id {entry_id!r}{hint}") from None


def compare(entry: Entry, out: Outputs, ref: Outputs) -> bool:
    """True when every output equals the reference (exactly, or within float_rtol)."""
    for k, r in ref.items():
        o = np.asarray(out[k])
        r = np.asarray(r)
        if o.shape != r.shape:
            return False
        if entry.float_rtol is not None and np.issubdtype(r.dtype, np.floating):
            if not np.allclose(o, r, rtol=entry.float_rtol, atol=entry.float_rtol):
                return False
        elif not np.array_equal(o, r):
            return False
    return True
