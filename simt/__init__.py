"""simt: emulate CUDA kernels warp by warp, from the same .cu files CuPy compiles.

The core depends on numpy and the C parser only; ``import simt`` never imports textual
or cupy.
"""
from .errors import CompileError, Coord, LaunchError, SimtError, UsageError
from .launch import Dim3, LaunchConfig
from .lower import Param
from .memory import Device, DeviceArray
from .module import Finding, Kernel, Launch, LaunchResult, Module, POLICIES
from .stepper import StepEvent, Stepper, WarpState

__all__ = ["CompileError", "Coord", "LaunchError", "SimtError", "UsageError", "Dim3",
           "LaunchConfig", "Param", "Device", "DeviceArray", "Finding", "Kernel", "Launch",
           "LaunchResult", "Module", "POLICIES", "load", "Stepper", "StepEvent", "WarpState"]
__version__ = "0.1.0"


def load(path) -> Module:
    """Parse a .cu file: ``simt.load("kernels.cu").get_function("name")``."""
    return Module.from_file(path)
