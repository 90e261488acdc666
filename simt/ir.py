"""The small IR the emulator executes.

A kernel lowers to a flat list of ``Ins``: explicit loads, stores, atomics, barriers and
branches, each carrying its source ``Coord``.  Control flow is structured: every
instruction has a static *depth*, and the lanes active at it are ``mask[depth]`` of the
warp.  ``IF``/``ELSE``/``LOOPTEST`` narrow the mask one level down and jump a warp past
code none of its lanes will run; the warp reconverges where the construct ends (the
immediate post-dominator of structured code).  ``KILL`` clears lanes from a range of
levels (``break``, ``continue``, ``return``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, auto
from typing import Any

import numpy as np

from .ctypes_ import CType
from .errors import Coord


class Op(Enum):
    BIN = auto()        # dst = a <binop> b
    UN = auto()         # dst = <unop> a
    CAST = auto()       # dst = (type) a
    MOV = auto()        # dst = a
    SELECT = auto()     # dst = c ? a : b   (both sides already evaluated)
    FMA = auto()        # dst = a * b + c   (contracted, as nvcc -fmad=true does)
    LOAD = auto()       # dst = *(T*)addr
    STORE = auto()      # *(T*)addr = a
    ATOM = auto()       # dst = atomicOp(addr, a[, b])
    CALL = auto()       # dst = intrinsic(args)   (math, bit, warp-level)
    IF = auto()         # mask[d+1] = act & c ; ereg = act & ~c ; jump target if warp has no then-lanes
    ELSE = auto()       # mask[d+1] = ereg ; jump target if warp has no else-lanes
    LOOPINIT = auto()   # mask[d+1] = act
    LOOPTEST = auto()   # (depth d+1) mask[d+1] &= c ; jump target if warp has no lanes left
    BODYINIT = auto()   # mask[d+1] = act   (loop body level, cleared by continue)
    JUMP = auto()
    KILL = auto()       # mask[level .. depth] &= ~act
    BAR = auto()        # __syncthreads()
    SYNCWARP = auto()
    PRINTF = auto()
    ASSERT = auto()
    EXIT = auto()


@dataclass(eq=False)
class Reg:
    slot: int
    dtype: np.dtype
    is_var: bool = False         # named variable: writes are masked
    name: str = ""
    builtin: str = ""            # "tid.x", "ctaid.y", ... filled per batch

    def __repr__(self) -> str:
        return f"%{self.name or self.slot}"


@dataclass(eq=False)
class Const:
    value: Any                   # numpy scalar

    @property
    def dtype(self) -> np.dtype:
        return np.asarray(self.value).dtype

    def __repr__(self) -> str:
        return repr(self.value.item() if hasattr(self.value, "item") else self.value)


@dataclass(eq=False)
class Uniform:
    """A value the same for every thread of a launch: a scalar parameter, blockDim, gridDim."""
    index: int
    dtype: np.dtype
    name: str = ""

    def __repr__(self) -> str:
        return f"${self.name or self.index}"


Operand = Reg | Const | Uniform


@dataclass(eq=False)
class Ins:
    op: Op
    coord: Coord
    depth: int = 0
    dst: Any = None                  # Reg, list[Reg] (vector load), or None
    args: tuple = ()
    sub: Any = None                  # binop/unop name, intrinsic name, atomic op, format ...
    ctype: CType | None = None       # memory access type / cast target
    target: int = -1                 # jump target (instruction index)
    level: int = 0                   # KILL: first level cleared
    ereg: Reg | None = None          # IF/ELSE: the else-mask register
    info: dict = field(default_factory=dict)

    @property
    def line(self) -> int:
        return self.coord.line

    def __repr__(self) -> str:
        parts = [self.op.name]
        if self.sub is not None:
            parts.append(str(self.sub))
        if self.dst is not None:
            parts.append(f"{self.dst} <-")
        parts.extend(repr(a) for a in self.args)
        if self.target >= 0:
            parts.append(f"-> {self.target}")
        return f"[d{self.depth} L{self.coord.line}] " + " ".join(parts)


@dataclass
class KernelIR:
    name: str
    file: str
    coord: Coord
    params: list                     # list[Param]
    code: list[Ins]
    regs: list[Reg]
    n_uniforms: int
    uniform_names: list[str]
    max_depth: int
    static_shared: int               # bytes of static __shared__ arrays
    dynamic_shared_offset: int       # where extern __shared__ arrays start
    uses_dynamic_shared: bool
    local_frame: int                 # bytes of per-thread local arrays
    shared_symbols: list = field(default_factory=list)   # (name, offset, size, ctype)
    local_slots: tuple = ()          # (start, end) addresses of each local variable's slot
    fences: tuple = ()               # pcs a __threadfence() stands before (no instruction)

    def lines(self) -> list[int]:
        return sorted({i.coord.line for i in self.code})
