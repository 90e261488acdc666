"""Launch vocabulary shared by the emulator and the CuPy backend.

``Dim3`` and ``LaunchConfig`` mirror CUDA's ``dim3`` and the ``<<<grid, block,
shared>>>`` triple.  Both backends take the same objects, so one host driver runs on
either.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import UsageError

MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIM = (1024, 1024, 64)
MAX_GRID_DIM = (2**31 - 1, 65535, 65535)
MAX_STATIC_SHARED = 48 * 1024
MAX_DYNAMIC_SHARED = 227 * 1024  # opt-in limit on Hopper; default launch limit is 48 KiB
WARP_SIZE = 32


@dataclass(frozen=True)
class Dim3:
    x: int = 1
    y: int = 1
    z: int = 1

    @classmethod
    def of(cls, v: "Dim3 | int | tuple | list | str") -> "Dim3":
        """Build from an int, a tuple, another Dim3 or a string like ``"16,16"``."""
        if isinstance(v, Dim3):
            return v
        if isinstance(v, str):
            return cls.parse(v)
        if isinstance(v, (int,)) and not isinstance(v, bool):
            return cls(int(v))
        if isinstance(v, (tuple, list)) and 1 <= len(v) <= 3:
            return cls(*(int(t) for t in v))
        try:  # numpy integers
            return cls(int(v))
        except (TypeError, ValueError):
            raise UsageError(f"not a dimension: {v!r}") from None

    @classmethod
    def parse(cls, text: str, what: str = "dimension") -> "Dim3":
        parts = [p.strip() for p in str(text).replace("x", ",").split(",")]
        if not 1 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
            raise UsageError(f"bad {what} {text!r}: expected X[,Y[,Z]] with positive integers")
        d = cls(*(int(p) for p in parts))
        if min(d.x, d.y, d.z) < 1:
            raise UsageError(f"bad {what} {text!r}: every dimension must be at least 1")
        return d

    @property
    def size(self) -> int:
        return self.x * self.y * self.z

    def as_tuple(self) -> tuple[int, int, int]:
        return (self.x, self.y, self.z)

    def __str__(self) -> str:
        if self.y == 1 and self.z == 1:
            return str(self.x)
        if self.z == 1:
            return f"{self.x},{self.y}"
        return f"{self.x},{self.y},{self.z}"


@dataclass(frozen=True)
class LaunchConfig:
    grid: Dim3
    block: Dim3
    shared_mem: int = 0

    @classmethod
    def of(cls, grid, block, shared_mem: int = 0) -> "LaunchConfig":
        return cls(Dim3.of(grid), Dim3.of(block), int(shared_mem))

    def validate(self) -> None:
        """Raise UsageError for a launch CUDA would refuse."""
        b, g = self.block, self.grid
        for what, d in (("blockDim", b), ("gridDim", g)):
            for name, v in zip("xyz", d.as_tuple()):
                if v < 1:
                    raise UsageError(f"{what}.{name} = {v}: CUDA refuses a launch with a dimension below 1 "
                                     f"(invalid configuration)")
        if b.size > MAX_THREADS_PER_BLOCK:
            raise UsageError(
                f"block {b} has {b.size} threads; CUDA allows at most {MAX_THREADS_PER_BLOCK} per block")
        for name, v, lim in zip("xyz", b.as_tuple(), MAX_BLOCK_DIM):
            if v > lim:
                raise UsageError(f"blockDim.{name} = {v} exceeds the limit {lim}")
        for name, v, lim in zip("xyz", g.as_tuple(), MAX_GRID_DIM):
            if v > lim:
                raise UsageError(f"gridDim.{name} = {v} exceeds the limit {lim}")
        if self.shared_mem < 0:
            raise UsageError(f"dynamic shared memory must be >= 0, got {self.shared_mem}")
        if self.shared_mem > MAX_DYNAMIC_SHARED:
            raise UsageError(
                f"dynamic shared memory {self.shared_mem} bytes exceeds {MAX_DYNAMIC_SHARED} bytes")

    @property
    def threads(self) -> int:
        return self.grid.size * self.block.size

    def __str__(self) -> str:
        s = f"<<<{self.grid}, {self.block}"
        return s + (f", {self.shared_mem}>>>" if self.shared_mem else ">>>")
