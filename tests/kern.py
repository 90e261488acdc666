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


def compile_error(src: str, name: str = "bad.cu") -> str:
    """The CompileError message simt gives for source text (the test fails without one)."""
    import pytest
    with pytest.raises(simt.CompileError) as e:
        simt.Module.from_source(src, name).check_all()
    return str(e.value)


def gpu_or_skip() -> None:
    """Skip the calling test unless CuPy is installed and sees a CUDA device."""
    import pytest
    pytest.importorskip("cupy")
    from kernels_cuda import cupy_backend
    ok, why = cupy_backend.available()
    if not ok:
        pytest.skip(f"no CUDA device: {why}")


def emulated_and_gpu(src: str, path, name: str, grid, block, args) -> tuple[list, list]:
    """Run kernel `name` from `src` in the emulator and, written to `path`, through CuPy on
    the GPU with the same inputs: each argument after the launch, emulated and on the GPU
    (None for a scalar on the GPU)."""
    from kernels_cuda import crosscheck
    emu, _ = run(src, name, grid, block, [a.copy() if isinstance(a, np.ndarray) else a for a in args])
    path.write_text(src)
    _, after, _ = crosscheck.real_launch(str(path), name, grid, block, args, repeat=1)
    return emu, after


def same_bytes_on_gpu(src: str, path, name: str, grid, block, args) -> None:
    """`emulated_and_gpu`, where every array argument must end with the same bytes."""
    emu, after = emulated_and_gpu(src, path, name, grid, block, args)
    for k, (a, e) in enumerate(zip(after, emu)):
        if a is not None:
            assert a.tobytes() == np.asarray(e).tobytes(), f"{name}: argument {k + 1}"
