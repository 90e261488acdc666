"""Errors a user can cause, each naming where: ``file:line:col`` or the argument.

Every error the emulator raises for a user's mistake derives from ``SimtError``; the
CLI prints ``str(err)`` and exits non-zero, never a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Coord:
    file: str
    line: int
    col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}" if self.col else f"{self.file}:{self.line}"


class SimtError(Exception):
    """Base of every error caused by the user's kernel, launch or arguments."""

    kind = "error"

    def __init__(self, message: str, coord: Coord | None = None):
        super().__init__(message)
        self.message = message
        self.coord = coord

    def __str__(self) -> str:
        return f"{self.coord}: {self.kind}: {self.message}" if self.coord else f"{self.kind}: {self.message}"


class UsageError(SimtError):
    """Bad command-line argument, launch configuration or argument list."""
    kind = "error"


class CompileError(SimtError):
    """The kernel source does not parse, is outside the subset, or does not type-check."""
    kind = "error"


class LaunchError(SimtError):
    """The launch went wrong at run time: out of bounds, divergent barrier, step budget."""
    kind = "error"

    def __init__(self, message: str, coord: Coord | None = None, tool: str = "memcheck",
                 thread=None, block=None):
        super().__init__(message, coord)
        self.tool = tool
        self.thread = thread
        self.block = block
