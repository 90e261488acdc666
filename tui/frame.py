"""One frame of the kernel screen: everything the panes show after a step.

The kernel screen builds a ``Frame`` from the stepper after every step (or jump) and
hands it down to the widgets, which only read it.  No Textual here.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


class AddressNames:
    """Turn byte addresses into ``name[index]`` using the launch's arrays and shared symbols."""

    def __init__(self, params=(), args=(), shared_symbols=(), shared_base: int = 0):
        self.globals = []
        for p, a in zip(params, args):
            ptr = getattr(a, "ptr", None)
            if ptr is None or not getattr(p, "is_pointer", False):
                continue
            self.globals.append((int(ptr), int(a.nbytes), int(a.dtype.itemsize), p.name))
        self.globals.sort()
        self.shared = []
        for sym in shared_symbols or ():
            name, off, size, ct = sym
            self.shared.append((int(off), None if size is None else int(size), name))
        self.shared.sort()
        self.shared_base = shared_base

    def global_name(self, addr: int, size: int = 4) -> str:
        for ptr, nbytes, item, name in self.globals:
            if ptr <= addr < ptr + max(nbytes, 1):
                off = addr - ptr
                return f"{name}[{off // item}]" if off % item == 0 else f"{name}+{off}B"
        return f"0x{addr:x}"

    def shared_name(self, offset: int, size: int = 4) -> str:
        best = None
        for off, nbytes, name in self.shared:
            if off <= offset and (nbytes is None or offset < off + nbytes):
                best = (off, name)
        if best is None:
            return f"smem+{offset}"
        off, name = best
        d = offset - off
        return f"{name}[{d // size}]" if d % size == 0 else f"{name}+{d}B"

    def name(self, access: dict, i: int) -> str:
        if access.get("space") == "shared" and "offsets" in access:
            return self.shared_name(int(access["offsets"][i]), int(access.get("size", 4)))
        return self.global_name(int(access["addresses"][i]), int(access.get("size", 4)))

    def name_address(self, space: str, addr: int, size: int = 4) -> str:
        if space == "shared":
            return self.shared_name(int(addr) - self.shared_base, size)
        return self.global_name(int(addr), size)


@dataclass
class Frame:
    step: int = 0                         # warp instructions executed so far
    done: bool = False
    event: object | None = None           # the last simt.StepEvent
    block: int | None = None              # selected block (linear id)
    warp: int = 0                         # selected warp (index in block)
    blocks: list = field(default_factory=list)
    warps: list = field(default_factory=list)        # simt.WarpState of the selected block
    variable: str | None = None
    values: np.ndarray | None = None      # the variable, 32 per warp of the selected block
    shared: np.ndarray | None = None      # bytes of the selected block's shared memory
    line_counters: dict = field(default_factory=dict)
    findings: list = field(default_factory=list)
    error: Exception | None = None
    last_shared: object | None = None     # last event with a shared-memory access
    last_atomic: object | None = None     # last event with an atomic
    last_global: object | None = None     # last event with a global access
    metrics: dict = field(default_factory=dict)
    names: AddressNames | None = None
    policy: str = "lockstep"
    seed: int = 0
    threads_per_block: int = 0
