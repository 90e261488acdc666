"""Emulated device memory: one flat byte buffer for every global allocation.

Allocations are 256-byte aligned like ``cudaMalloc`` (sector counts depend on it) and
separated by a guard gap, so an access past the end of one allocation is caught by
memcheck instead of landing silently in the next.
"""
from __future__ import annotations

import bisect

import numpy as np

from .errors import UsageError
from .spaces import ALLOC_ALIGN, GLOBAL_BASE

_GUARD = 256
# where CuPy's memory pool and the driver put an allocation on the GPU, for the L2 slice
# hash (simt.counters.region_slices): the pool rounds each allocation up to 512 bytes, the
# driver packs those under 2 MiB one after another in a 2 MiB page and starts larger ones
# on a 2 MiB boundary (probe/partition8-atomic's 32-byte array then 1 KiB of cursors came
# out at 0x...000 and 0x...200: timing_investigation/unseen49/alignment_h200.txt)
POOL_UNIT = 512
POOL_PAGE = 2 << 20

# glibc malloc, tuned once when the first launch runs (see tune_host_allocator)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_HOST_TRIM_BYTES = 256 << 20
_HOST_MMAP_BYTES = 32 << 20            # glibc's largest mmap threshold
_tuned = False


def tune_host_allocator() -> bool:
    """Keep freed numpy buffers in the process instead of handing them back to the OS.

    A launch allocates its registers, masks and racecheck tables per batch and numpy
    allocates a temporary the size of the batch for most operations: megabytes each.
    With glibc's default (dynamic) thresholds those come from mmap or from the top of
    the heap, which is trimmed once they are freed, so every batch and every launch
    touches fresh pages again: thousands of page faults per launch, a third of the run
    time of a small one.  Raising the mmap threshold to glibc's maximum (32 MiB) and the
    trim threshold to 256 MiB keeps that memory mapped for reuse.  Linux with glibc
    only; once per process; SIMT_MALLOPT=0 in the environment leaves malloc alone.
    Returns whether the thresholds were set."""
    global _tuned
    if _tuned:
        return False
    _tuned = True
    import os
    import platform
    import sys
    if os.environ.get("SIMT_MALLOPT", "1") == "0" or not sys.platform.startswith("linux") \
            or platform.libc_ver()[0] != "glibc":
        return False
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
        mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        return bool(mallopt(_M_MMAP_THRESHOLD, _HOST_MMAP_BYTES)) and \
            bool(mallopt(_M_TRIM_THRESHOLD, _HOST_TRIM_BYTES))
    except (OSError, AttributeError):
        return False


class DeviceArray:
    """An allocation in emulated global memory, shaped like a numpy array."""

    def __init__(self, device: "Device", ptr: int, shape: tuple, dtype: np.dtype, name: str = ""):
        self.device = device
        self.ptr = ptr
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.name = name

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def _view(self) -> np.ndarray:
        off = self.ptr - GLOBAL_BASE
        return self.device.buf[off: off + self.nbytes].view(self.dtype).reshape(self.shape)

    def get(self) -> np.ndarray:
        """Copy back to the host (numpy)."""
        return self._view().copy()

    def set(self, host) -> None:
        if self.dtype.names is not None:       # structs and vectors: their bytes, as cudaMemcpy
            raw = np.ascontiguousarray(host)
            if raw.dtype.names is None:
                if raw.nbytes != self.nbytes:
                    raise UsageError(f"cannot copy {raw.nbytes} bytes ({raw.dtype} {raw.shape}) "
                                     f"into {self.nbytes} ({self.shape} of {self.dtype})")
                self._view()[...] = raw.view(np.uint8).view(self.dtype).reshape(self.shape)
                return
        a = np.asarray(host, dtype=self.dtype)
        if a.shape != self.shape and a.size != self.size:
            raise UsageError(f"cannot copy an array of shape {a.shape} into {self.shape}")
        self._view()[...] = a.reshape(self.shape)

    def __len__(self) -> int:
        return self.shape[0] if self.shape else 1

    def __repr__(self) -> str:
        return f"DeviceArray({self.name or hex(self.ptr)}, shape={self.shape}, dtype={self.dtype})"


class Device:
    """Global memory of one emulated GPU."""

    name = "simt emulator"

    def __init__(self):
        self.buf = np.zeros(0, np.uint8)
        self.top = 0                       # next free offset
        self.starts: list[int] = []        # absolute start addresses, sorted
        self.ends: list[int] = []
        self.names: list[str] = []
        self.sizes: list[int] = []
        # each allocation's offset in its 2 MiB page on the GPU (POOL_UNIT), None for a
        # module's variables, which live in the module's own segment
        self.gpu_offsets: list[int | None] = []
        self._page_used = POOL_PAGE        # bytes of the current small-allocation page taken
        self.module_vars: dict = {}        # Lowerer -> {name: DeviceArray}

    def _grow(self, need: int):
        if need <= len(self.buf):
            return
        cap = max(need, 2 * len(self.buf), 1 << 16)
        cap = -(-cap // ALLOC_ALIGN) * ALLOC_ALIGN
        nb = np.zeros(cap, np.uint8)
        nb[: len(self.buf)] = self.buf
        self.buf = nb

    def _gpu_offset(self, nbytes: int) -> int:
        """Where the pool and the driver would put an allocation of ``nbytes`` in its 2 MiB
        page, allocations made in this order from an empty pool (POOL_UNIT)."""
        r = -(-nbytes // POOL_UNIT) * POOL_UNIT          # (an empty array takes nothing)
        if r >= POOL_PAGE:
            return 0
        if self._page_used + r > POOL_PAGE:
            self._page_used = 0
        off, self._page_used = self._page_used, self._page_used + r
        return off

    def malloc(self, nbytes: int, name: str = "", pool: bool = True) -> int:
        nbytes = int(nbytes)
        if nbytes < 0:
            raise UsageError(f"cannot allocate {nbytes} bytes")
        self.gpu_offsets.append(self._gpu_offset(nbytes) if pool else None)
        off = -(-self.top // ALLOC_ALIGN) * ALLOC_ALIGN
        self._grow(off + nbytes + _GUARD)
        ptr = GLOBAL_BASE + off
        self.starts.append(ptr)
        self.ends.append(ptr + nbytes)
        self.sizes.append(nbytes)
        self.names.append(name or f"allocation {len(self.starts)}")
        self.top = off + max(nbytes, 1) + _GUARD
        return ptr

    def empty(self, shape, dtype, name: str = "", pool: bool = True) -> DeviceArray:
        shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(s) for s in shape)
        dt = np.dtype(dtype)
        ptr = self.malloc(int(np.prod(shape, dtype=np.int64)) * dt.itemsize, name, pool)
        return DeviceArray(self, ptr, shape, dt, name)

    def zeros(self, shape, dtype, name: str = "") -> DeviceArray:
        return self.empty(shape, dtype, name)      # fresh memory is zero-filled

    def to_device(self, host, name: str = "") -> DeviceArray:
        a = np.ascontiguousarray(host)
        arr = self.empty(a.shape, a.dtype, name)
        arr.set(a)
        return arr

    def module_var(self, owner, var) -> DeviceArray:
        """The memory of a module's ``__constant__``/``__device__`` variable on this device
        (``simt.lower.ModuleVar``; ``owner``: the module's lowerer), allocated and set to
        its initializer the first time a launch or the host asks for it, then kept."""
        got = self.module_vars.setdefault(owner, {})
        if var.name not in got:
            kind = "string literal" if var.literal else \
                "__constant__" if var.space == "constant" else "__device__"
            arr = self.empty(var.shape, var.dtype, f"{kind} {var.name}", pool=False)
            arr.set(var.initial)
            got[var.name] = arr
        return got[var.name]

    def find(self, addr: int) -> int:
        """Index of the allocation containing addr, or -1."""
        k = bisect.bisect_right(self.starts, addr) - 1
        if k >= 0 and addr < max(self.ends[k], self.starts[k] + 1):
            return k
        return -1

    def describe(self, addr: int, size: int) -> str:
        """compute-sanitizer style: how far outside which allocation an access falls."""
        k = bisect.bisect_right(self.starts, addr) - 1
        parts = []
        if k >= 0:
            end = self.ends[k]
            if addr >= end:
                parts.append(f"{addr - end + 1} bytes after the end of {self.names[k]} "
                             f"({self.sizes[k]} bytes at {hex(self.starts[k])})")
        if k + 1 < len(self.starts):
            nxt = self.starts[k + 1]
            if not parts or nxt - (addr + size) < addr - self.ends[k]:
                parts = [f"{nxt - addr} bytes before the start of {self.names[k + 1]} "
                         f"({self.sizes[k + 1]} bytes at {hex(nxt)})"]
        if not parts:
            parts.append("not inside any allocation")
        return parts[0]
