"""Helpers for tests: run a one-off kernel source in the emulator."""
from __future__ import annotations

import numpy as np

import simt


def run(src: str, name: str, grid, block, args, shared: int = 0, **kw):
    """Launch kernel `name` from source text; numpy arrays in args become device arrays.
    Returns (list of host arrays in arg order (scalars as-is), LaunchResult)."""
    mod = simt.Module.from_source(src, "t.cu")
    dev = simt.Device()
    dargs = [dev.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    res = mod.get_function(name).launch(dev, simt.LaunchConfig.of(grid, block, shared), dargs, **kw)
    return [d.get() if isinstance(d, simt.DeviceArray) else d for d in dargs], res


def gpu_or_skip() -> None:
    """Skip the calling test unless CuPy is installed and sees a CUDA device."""
    import pytest
    pytest.importorskip("cupy")
    from kernels_cuda import cupy_backend
    ok, why = cupy_backend.available()
    if not ok:
        pytest.skip(f"no CUDA device: {why}")
