"""The small interface every host driver is written against.

Two implementations: ``EmulatorBackend`` (simt, no GPU) here, and ``CupyBackend`` in
``kernels_cuda/cupy_backend.py``.  A host driver only calls these methods, so the same
driver (and the same test body) runs unchanged on either backend.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, Sequence

import numpy as np

from simt.launch import Dim3, LaunchConfig

KERNEL_DIR = Path(__file__).resolve().parent


def auto_sample(cfg, kernel=None) -> int | None:
    """``--sample-blocks auto``: emulate about 2^18 threads of a grid with more than 2^22;
    2^15 if the kernel has an atomicCAS (a CAS loop's lockstep retries cost the square of
    the threads emulated at once, and the timing model rescales them to the GPU's
    contenders whatever the sample: simt.timing.cas_retries); none up to 2^24 threads if an
    atomic runs only after a read of its own word (``whole_if_guarded``)."""
    if cfg.threads <= (1 << 22):
        return None
    threads = (1 << 15) if kernel is not None and has_cas(kernel) else (1 << 18)
    return whole_if_guarded(cfg, kernel, max(1, threads // cfg.block.size))


def whole_if_guarded(cfg, kernel, sample: int | None) -> int | None:
    """No sample (the launch emulated whole) for a kernel with an atomic behind a read of
    its own word, up to ``simt.guarded.WHOLE_THREADS``: the late blocks' skipped atomics
    do not survive a sample (simt.guarded)."""
    from simt.guarded import WHOLE_THREADS, has_guarded_atomic
    if sample and kernel is not None and cfg.threads <= WHOLE_THREADS and has_guarded_atomic(kernel):
        return None
    return sample


def has_cas(kernel) -> bool:
    """Whether a kernel (``simt.Kernel``) has an atomicCAS."""
    from simt.ir import Op
    return any(i.op == Op.ATOM and i.sub == "cas" for i in kernel.ir.code)


def source_path(name: str) -> Path:
    """Path of a catalog .cu file given its bare name (``"histogram.cu"``) or a path."""
    p = Path(name)
    return p if p.is_absolute() or p.exists() else KERNEL_DIR / name


class Backend(Protocol):
    name: str  # "emulator" or "cuda"

    def to_device(self, host: np.ndarray) -> Any: ...
    def zeros(self, shape, dtype) -> Any: ...
    def empty(self, shape, dtype) -> Any: ...
    def to_host(self, arr: Any) -> np.ndarray: ...
    def launch(self, source: str, kernel: str, grid, block, args: Sequence[Any],
               shared_mem: int = 0) -> None: ...
    def get_global(self, source: str, name: str, shape, dtype) -> Any: ...


class EmulatorBackend:
    """Runs launches in the simt emulator; keeps each launch's result in ``launches``."""

    name = "emulator"

    def __init__(self, seed: int = 0, policy: str = "lockstep", sanitize: bool = True,
                 device=None, step_budget: int | None = None, progress=None,
                 sample_blocks: int | None = None, gpu=None, track_time: bool = True,
                 count_memory: bool = True):
        import simt
        self.device = device or simt.Device()
        self.seed = seed
        self.policy = policy
        self.sanitize = sanitize
        self.step_budget = step_budget
        self.progress = progress
        self.sample_blocks = sample_blocks   # large grids: emulate a sample of blocks, extrapolate
        self.gpu = gpu                       # GPU profile for each launch's predicted_ms
        self.track_time = track_time         # False: outputs and counters, no timing model
        self.count_memory = count_memory     # False: outputs and sanitizer only, no memory counters
        self.launches: list = []   # simt.LaunchResult per launch, in order
        self._modules: dict = {}

    def module(self, source: str):
        import simt
        path = source_path(source)
        key = str(path)
        if key not in self._modules:
            self._modules[key] = simt.Module.from_file(path)
        return self._modules[key]

    def to_device(self, host: np.ndarray):
        return self.device.to_device(np.ascontiguousarray(host))

    def zeros(self, shape, dtype):
        return self.device.zeros(shape, dtype)

    def empty(self, shape, dtype):
        return self.device.empty(shape, dtype)

    def to_host(self, arr) -> np.ndarray:
        return arr.get()

    def _sample(self, cfg, kernel=None) -> int | None:
        if self.sample_blocks == "auto":
            return auto_sample(cfg, kernel)
        return whole_if_guarded(cfg, kernel, self.sample_blocks)

    def get_global(self, source: str, name: str, shape=None, dtype=None):
        """A ``__constant__``/``__device__`` variable of the file as a DeviceArray
        (``.set()`` / ``to_host``), the one its launches on this backend's device use."""
        return self.module(source).get_global(self.device, name)

    def launch(self, source: str, kernel: str, grid, block, args, shared_mem: int = 0) -> None:
        fn = self.module(source).get_function(kernel)
        cfg = LaunchConfig(Dim3.of(grid), Dim3.of(block), int(shared_mem))
        res = fn.launch(self.device, cfg, list(args), seed=self.seed + len(self.launches),
                        policy=self.policy, sanitize=self.sanitize,
                        step_budget=self.step_budget, progress=self.progress,
                        sample_blocks=self._sample(cfg, fn), gpu=self.gpu,
                        track_time=self.track_time, count_memory=self.count_memory)
        self.launches.append(res)
