"""The CuPy device backend: the catalog's ``.cu`` files compiled by NVRTC and run on a GPU.

``CupyBackend`` implements the same small interface as ``EmulatorBackend``
(``to_device``, ``zeros``, ``empty``, ``to_host``, ``launch``), so every host driver and
every test body runs unchanged on the GPU.  CuPy is imported lazily, only when this
backend is used: ``import simt`` and ``import kernels_cuda.catalog`` never import it.

Compilation: each ``.cu`` file is compiled once per process with ``cupy.RawModule`` and
options ``("--std=c++17",)``, NVRTC's defaults otherwise, except that CuPy itself adds
``-ftz=true`` to every NVRTC compile (``cupy/cuda/compiler.py``): on the GPU, float
arithmetic flushes subnormal values to zero and libdevice takes its flush-to-zero branches
(``nextafterf(0.f, 1.f)`` is ``FLT_MIN`` there, session 68's math test), where the emulator
keeps subnormals as nvcc's default (``-ftz=false``) does.  The defaults include
``--fmad=true``: ``a * b + c`` becomes one fused multiply-add, which the emulator models
too (for ``a * b + c`` written in one expression; nvcc also fuses a product stored in a
local and added later, the emulator does not, so fixed-order float kernels meant to
match bit for bit write the product inside the sum).

C library headers: NVRTC has no ``<cfloat>``, ``<climits>``, ``<cmath>``, ``<math.h>``,
``<algorithm>`` or ``<stdio.h>`` (nvcc takes them from the host compiler) and no
``FLT_MAX`` or ``INFINITY`` without them, so a file written for nvcc fails there.  Each module is compiled with an
include directory of small stand-ins for those headers (``host_headers``) that define
what simt's front end predefines (``simt.frontend.BUILTIN_MACROS``), and with that set
pre-included, so the GPU compiles what the emulator reads.  Nor has it ``std::sin``,
``std::min`` and the rest of ``simt.frontend``'s ``STD_FUNCTIONS``/``STD_CMATH`` (nvcc
compiles them in device code): their ``std::`` is blanked before NVRTC sees the file, as
the emulator's front end blanks it.  Half precision: a file that
includes ``<cuda_fp16.h>`` reaches NVRTC unchanged (CuPy's NVRTC has the header); one
that uses ``__half``/``half`` without including it, which the emulator accepts, gets it
pre-included.  ``__half`` parameters take ``numpy.float16`` scalars and CuPy ``float16``
arrays.  ``__nv_bfloat16`` (``<cuda_bf16.h>``, which the file must include) has no numpy
dtype: its parameters take ``numpy.uint16`` bit patterns and CuPy ``uint16`` arrays, so
they travel as the same 16-bit values the emulator holds.

Timing (``timed=True``): each launch runs ``warmup`` times, then ``repeat`` times, each
run timed alone with a pair of CUDA events, and the median is kept.  Before every run
the buffers the kernel may write (pointer parameters not declared ``const``) are put
back as they were before the first run, outside the timed region, so a kernel that
accumulates (atomicAdd into a histogram, a ticket counter) does the same work every
time and the outputs are those of exactly one launch (arrays reached only through a
pointer member of a struct passed by value are not put back).  A short spin kernel runs
before each start event so the GPU is still busy while the host submits the launch: the
events then measure the kernel, not Python's launch overhead.  With ``timed=False`` (the
default) a launch is a plain asynchronous launch.

A struct or vector passed by value (``k(Params p)``) takes a numpy structured scalar
(``simt.byvalue.record_dtype``: C's layout) or a tuple, list or dict of its members
(packed by ``simt.byvalue.pack``, CuPy arrays in pointer members becoming addresses);
it goes to CuPy as a one-element numpy array, which CuPy passes by value (its bytes).
"""
from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from kernels_cuda.backend import source_path
from simt.errors import CompileError, LaunchError, UsageError
from simt.frontend import std_functions
from simt.launch import Dim3, LaunchConfig

DEFAULT_OPTIONS = ("--std=c++17",)

_SPIN_SRC = r"""
extern "C" __global__ void simt_spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
}
"""
_SPIN_CYCLES = 200_000          # ~100 us at 2 GHz: longer than a launch takes to submit


def _cupy():
    import cupy  # noqa: PLC0415  (lazy on purpose)
    return cupy


def available() -> tuple[bool, str]:
    """``(True, device name)`` when CuPy imports and sees a CUDA device, else
    ``(False, reason)`` with a reason a user can act on."""
    try:
        cupy = _cupy()
    except ImportError:
        return False, ("CuPy is not installed: install cupy-cuda12x or cupy-cuda13x "
                       "(pip install 'simt[cuda12]' or 'simt[cuda13]') on a machine with an "
                       "NVIDIA GPU")
    except Exception as exc:  # a broken CUDA install raises all sorts of things
        return False, f"CuPy failed to import: {exc}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"no usable CUDA device: {_short(exc)}"
    if count < 1:
        return False, "no CUDA device found"
    try:
        return True, device_name()
    except Exception as exc:
        return False, f"the CUDA device cannot be used: {_short(exc)}"


def _short(exc: BaseException) -> str:
    s = str(exc).strip().splitlines()
    return s[0] if s else type(exc).__name__


def device_name() -> str:
    cupy = _cupy()
    dev = cupy.cuda.Device()
    props = cupy.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def device_info() -> dict:
    """Name, compute capability, SM count, memory, CuPy and CUDA versions."""
    cupy = _cupy()
    dev = cupy.cuda.Device()
    p = cupy.cuda.runtime.getDeviceProperties(dev.id)
    name = p["name"].decode() if isinstance(p["name"], bytes) else str(p["name"])
    return {
        "name": name,
        "compute_capability": f"{p['major']}.{p['minor']}",
        "sms": int(p["multiProcessorCount"]),
        "memory_gib": round(p["totalGlobalMem"] / 2**30, 1),
        "l2_mib": round(p.get("l2CacheSize", 0) / 2**20, 1),
        "cupy": cupy.__version__,
        "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
        "driver": cupy.cuda.runtime.driverGetVersion(),
    }


# ------------------------------------------------------------------ copy bandwidth

_COPY_BW: float | None = None


def copy_bandwidth(nbytes: int = 1 << 30, repeat: int = 10) -> float:
    """Device-to-device copy bandwidth in bytes/s, counting bytes read plus bytes written
    (the ceiling for a memory-bound kernel).  Measured once per process."""
    global _COPY_BW
    if _COPY_BW is None:
        cupy = _cupy()
        free, _total = cupy.cuda.runtime.memGetInfo()
        nbytes = int(min(nbytes, free // 4)) // 256 * 256
        src = cupy.random.random(nbytes // 4, dtype=np.float32)
        dst = cupy.empty_like(src)

        def copy():
            dst.data.copy_from_device_async(src.data, nbytes, cupy.cuda.get_current_stream())

        ms = time_gpu(copy, warmup=3, repeat=repeat)
        _COPY_BW = 2.0 * nbytes / (ms * 1e-3)
        del src, dst
    return _COPY_BW


# ------------------------------------------------------------------ timing helpers

_SPIN = None


def release_pools() -> None:
    """Hand every block CuPy's memory pools keep back to the driver, so the next arrays
    are allocated as in a fresh process (timing_check.measure does this per entry)."""
    cupy = _cupy()
    cupy.cuda.Device().synchronize()
    cupy.get_default_memory_pool().free_all_blocks()
    cupy.get_default_pinned_memory_pool().free_all_blocks()


def _spin():
    """Launch a ~100 us spin kernel on the current stream (keeps the GPU busy while the
    host submits the work to be timed)."""
    global _SPIN
    cupy = _cupy()
    if _SPIN is None:
        _SPIN = cupy.RawKernel(_SPIN_SRC, "simt_spin")
    _SPIN((1,), (1,), (np.int64(_SPIN_CYCLES),))


def time_gpu(fn, warmup: int = 3, repeat: int = 20, before=None) -> float:
    """Median milliseconds of the GPU work ``fn()`` enqueues, each run timed alone with
    CUDA events.  ``before()`` (untimed) runs ahead of each run, e.g. to reset buffers."""
    samples = time_gpu_samples(fn, warmup, repeat, before)
    return statistics.median(samples)


def time_gpu_samples(fn, warmup: int = 3, repeat: int = 20, before=None) -> list[float]:
    cupy = _cupy()
    events = []
    for k in range(warmup + repeat):
        if before is not None:
            before()
        _spin()
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        end.record()
        if k >= warmup:
            events.append((start, end))
    if events:
        events[-1][1].synchronize()
    return [cupy.cuda.get_elapsed_time(s, e) for s, e in events]


# ------------------------------------------------------------------ kernel signatures

_C_SCALARS = {
    "char": np.int8, "signed char": np.int8, "unsigned char": np.uint8,
    "short": np.int16, "unsigned short": np.uint16,
    "int": np.int32, "signed": np.int32, "signed int": np.int32,
    "unsigned": np.uint32, "unsigned int": np.uint32,
    "long": np.int64, "long int": np.int64, "unsigned long": np.uint64,
    "long long": np.int64, "long long int": np.int64,
    "unsigned long long": np.uint64, "unsigned long long int": np.uint64,
    "size_t": np.uint64, "float": np.float32, "double": np.float64, "bool": np.bool_,
    "__half": np.float16, "half": np.float16,
    "__nv_bfloat16": np.uint16, "nv_bfloat16": np.uint16,     # bit patterns (16-bit buffers)
    "int8_t": np.int8, "uint8_t": np.uint8, "int16_t": np.int16, "uint16_t": np.uint16,
    "int32_t": np.int32, "uint32_t": np.uint32, "int64_t": np.int64, "uint64_t": np.uint64,
}


@dataclass(frozen=True)
class KParam:
    name: str
    ctype: str            # e.g. "const float *"
    is_pointer: bool
    is_const: bool        # const pointee (read-only buffer)
    dtype: Any            # numpy dtype of the scalar or of the pointee; None if unknown


def _simt_params(source: str, kernel: str) -> list[KParam] | None:
    """A template instance's parameters, from simt's own instantiation of it."""
    import simt
    try:
        fn = simt.Module.from_file(source_path(source)).get_function(kernel)
    except simt.SimtError:
        return None
    out = []
    for p in fn.params:
        ptr = p.is_pointer
        out.append(KParam(p.name, str(p.ctype), ptr, ptr and bool(p.ctype.const), p.dtype))
    return out


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", lambda m: " " * len(m.group(0)), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def kernel_params(text: str, kernel: str) -> list[KParam] | None:
    """Parameters of ``__global__ void kernel(...)`` read off the source, or None when the
    signature cannot be found (then every array argument counts as writable)."""
    text = _strip_comments(text)
    m = re.search(r"__global__[\w\s()]*?\bvoid\s+" + re.escape(kernel) + r"\s*\(", text)
    if not m:
        return None
    depth, i = 1, m.end()
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    inner = text[m.end():i - 1].strip()
    if not inner or inner == "void":
        return []
    from simt.templates import split_args
    params = []
    for raw in split_args(inner):                    # (commas inside Arr<float, 4> do not split)
        decl = re.sub(r"\b(__restrict__|restrict|__restrict|volatile|__grid_constant__)\b", " ", raw)
        decl = re.sub(r"(\w+)\s*\[\s*\]", r"* \1", decl)
        is_pointer = "*" in decl
        words = decl.replace("*", " * ").split()
        name = words[-1] if words and words[-1] != "*" else ""
        before_star = decl.split("*", 1)[0] if is_pointer else decl
        base_words = [w for w in before_star.replace("*", " ").split() if w != "const"]
        if not is_pointer and base_words and base_words[-1] == name:
            base_words = base_words[:-1]
        base = " ".join(base_words)
        is_const = is_pointer and "const" in before_star.split()
        dt = _C_SCALARS.get(base)
        params.append(KParam(name, " ".join(raw.split()), is_pointer, is_const,
                             np.dtype(dt) if dt is not None else None))
    return params


# ------------------------------------------------------------------ launch records

@dataclass
class LaunchTiming:
    """One launch on the device; ``ms`` is the median of ``samples`` (None: not timed)."""
    source: str
    kernel: str
    grid: Dim3
    block: Dim3
    shared_mem: int
    ms: float | None = None
    samples: list[float] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"source": self.source, "kernel": self.kernel, "grid": str(self.grid),
                "block": str(self.block), "shared_mem": self.shared_mem, "ms": self.ms,
                "samples_ms": self.samples}


def throughput(ms: float | None, elements: int, nbytes: int, copy_bw: float | None) -> dict:
    """Elements/s, GB/s (bytes that must move: inputs read once, outputs written once)
    and the fraction of the device's measured copy bandwidth."""
    if not ms:
        return {"ms": ms, "elements_per_s": None, "gb_per_s": None, "frac_copy_bw": None}
    s = ms * 1e-3
    bw = nbytes / s
    return {"ms": ms, "elements_per_s": elements / s, "gb_per_s": bw / 1e9,
            "frac_copy_bw": (bw / copy_bw) if copy_bw else None}


# ------------------------------------------------------------------ the backend

_MODULES: dict = {}
# (path, text, options) -> the module compiled last for it (the one get_global reaches)
_LATEST: dict = {}


def _file_globals(path) -> dict:
    """A .cu file's ``__constant__``/``__device__`` variables as simt's parser finds them
    (``simt.Module.globals``); none where it cannot parse the file."""
    import simt
    try:
        return simt.Module.from_file(path).globals
    except simt.SimtError:
        return {}


def _carry_globals(old, new, path) -> None:
    """Copy a file's ``__constant__``/``__device__`` variables (found by simt's parser;
    none where it cannot parse the file) from the module compiled before to the one
    compiled again with one more template instance.  Without it a table written through
    ``get_global`` before a template kernel's first launch stayed in the old module, and
    the instance read zeros (probe/volc-tephra2-fallout-const-unroll and three other
    template probes with ``__constant__`` tables were timed so until session 71)."""
    missing = _cupy().cuda.driver.CUDADriverError
    for name, var in _file_globals(path).items():
        nbytes = int(np.prod(var.shape, dtype=np.int64)) * np.dtype(var.dtype).itemsize
        try:
            src, dst = old.get_global(name), new.get_global(name)
        except missing:             # a variable NVRTC left out of a module
            continue
        dst.copy_from_device(src, nbytes)
_HOST_HEADERS: dict = {}
# stand-ins for the C library headers NVRTC lacks: header -> the macros' name prefixes
_STAND_INS = {
    ("cfloat", "float.h"): ("FLT_", "DBL_"),
    ("climits", "limits.h"): ("CHAR_", "SCHAR_", "UCHAR_", "SHRT_", "USHRT_", "INT_", "UINT_",
                              "LONG_", "ULONG_", "LLONG_", "ULLONG_"),
    ("cmath", "math.h"): ("INFINITY", "NAN", "HUGE_VAL", "M_"),
    ("cstdio", "stdio.h", "cstdlib", "stdlib.h"): (),      # printf and malloc are NVRTC's own
    ("algorithm",): (),         # std::min and std::max: module() blanks the std:: (below)
}


def host_headers() -> Path:
    """A directory (made once per process) of stand-ins for the C library headers NVRTC
    lacks, each defining its part of ``simt.frontend.BUILTIN_MACROS`` unless already
    defined, and ``simt_host_macros.h`` with all of them (pre-included)."""
    if "dir" not in _HOST_HEADERS:
        import tempfile

        from simt.frontend import BUILTIN_MACROS
        d = Path(tempfile.mkdtemp(prefix="simt-nvrtc-"))

        def defs(prefixes) -> str:
            return "".join(f"#ifndef {k}\n#define {k} {v}\n#endif\n" for k, v in BUILTIN_MACROS.items()
                           if k.startswith(prefixes))
        every = ()
        for names, prefixes in _STAND_INS.items():
            every += prefixes
            for name in names:
                (d / name).write_text(f"#pragma once\n{defs(prefixes) if prefixes else ''}")
        (d / "simt_host_macros.h").write_text("#pragma once\n" + defs(every))
        _HOST_HEADERS["dir"] = d
    return _HOST_HEADERS["dir"]
_NAME_EXPRESSIONS: dict = {}       # (path, text) -> template kernels asked for, in order
_USES_HALF = re.compile(r"\b(?:__half|half)\b")
_FP16_HEADERS = re.compile(r'^\s*#\s*include\s*[<"](?:cuda_fp16\.h|cuda_fp16\.hpp|cuda_bf16\.h|'
                           r'cuda_fp8\.h|mma\.h)[>"]', re.M)


def fp16_options(text: str) -> tuple:
    """``--pre-include=cuda_fp16.h`` for a file that uses ``__half`` (or ``half``) without
    including a header that declares it; nothing otherwise."""
    text = _strip_comments(text)
    if _USES_HALF.search(text) and not _FP16_HEADERS.search(text):
        return ("--pre-include=cuda_fp16.h",)
    return ()


class StructGlobal:
    """A ``__constant__``/``__device__`` variable of vectors or structs on the GPU: its bytes
    in a CuPy uint8 array, set and read as the numpy structured array of its layout."""

    def __init__(self, raw, shape: tuple, dtype: np.dtype):
        self.raw, self.shape, self.dtype = raw, shape, dtype

    def set(self, host) -> None:
        self.raw.set(np.ascontiguousarray(np.asarray(host, self.dtype)).view(np.uint8).reshape(-1))

    def get(self) -> np.ndarray:
        return self.raw.get().view(self.dtype).reshape(self.shape)

    def __array__(self, dtype=None, copy=None):
        a = self.get()
        return a if dtype is None else a.astype(dtype)


class CupyBackend:
    """Runs the catalog's launches on the GPU through CuPy; same interface as
    ``EmulatorBackend``.  ``launches`` holds a ``LaunchTiming`` per launch, in order.

    ``timed=True``: time each launch (``warmup`` runs, then the median of ``repeat``
    runs, buffers restored before each run); ``timed=False``: plain launches.
    """

    name = "cuda"

    def __init__(self, timed: bool = False, warmup: int = 3, repeat: int = 20,
                 options: Sequence[str] = DEFAULT_OPTIONS):
        ok, why = available()
        if not ok:
            raise UsageError(f"--real needs a CUDA GPU: {why}")
        self.cupy = _cupy()
        self.timed = bool(timed)
        self.warmup = int(warmup)
        self.repeat = max(1, int(repeat))
        self.options = tuple(options)
        self.launches: list[LaunchTiming] = []

    # ---- memory
    def to_device(self, host: np.ndarray):
        host = np.ascontiguousarray(host)
        if host.dtype.names:        # CuPy has no structured dtypes: an array of structs as bytes
            host = host.view(np.uint8).reshape(-1)
        return self.cupy.asarray(host)

    def zeros(self, shape, dtype):
        return self.cupy.zeros(shape, dtype)

    def empty(self, shape, dtype):
        return self.cupy.empty(shape, dtype)

    def to_host(self, arr) -> np.ndarray:
        if isinstance(arr, np.ndarray):
            return arr
        if isinstance(arr, StructGlobal):
            return arr.get()
        return self.cupy.asnumpy(arr)

    # ---- modules
    def module(self, source: str, kernel: str | None = None):
        """The compiled RawModule of a .cu file (compiled once per process and options).
        A template kernel (``reduce<float, 256>``) is a name expression: the file is
        compiled again with it added to those asked for before (which the later module
        keeps, so ``get_global`` and every instance see one module), and the
        ``__constant__``/``__device__`` variables the host set in the module before are
        copied into the new one (``_carry_globals``): a table set through ``get_global``
        before the instance's first launch is the table that launch reads."""
        path = source_path(source)
        try:
            text = Path(path).read_text()
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
        names = _NAME_EXPRESSIONS.setdefault((str(path), text), [])
        if kernel and "<" in kernel and kernel not in names:
            names.append(kernel)
        key = (str(path), text, self.options, tuple(names))
        latest = (str(path), text, self.options)
        if key not in _MODULES:
            cupy = self.cupy
            hdrs = host_headers()
            opts = self.options + (f"-I{Path(path).resolve().parent}", f"-I{hdrs}",
                                   f"--pre-include={hdrs / 'simt_host_macros.h'}") + fp16_options(text)
            # std::sin, std::min, ...: NVRTC has no <cmath> or <algorithm> to declare them, so
            # the qualification is blanked as the emulator's front end blanks it (the same
            # functions, CUDA's own overloads, at the same columns)
            code = std_functions(text)
            mod = (cupy.RawModule(code=code, options=opts, name_expressions=tuple(names)) if names
                   else cupy.RawModule(code=code, options=opts))
            try:
                if hasattr(mod, "compile"):
                    mod.compile()
                else:                       # old CuPy: compiling happens on first use
                    mod.get_function(_first_kernel(text))
            except _compile_errors(cupy) as exc:
                raise CompileError(f"NVRTC rejected {Path(path).name}:\n"
                                   f"{_nvrtc_log(exc, str(path))}") from None
            if latest in _LATEST:
                _carry_globals(_LATEST[latest], mod, path)
            _MODULES[key] = (mod, text)
            _LATEST[latest] = mod
        return _MODULES[key]

    def get_global(self, source: str, name: str, shape, dtype):
        """A ``__constant__``/``__device__`` variable of the file's module as a CuPy array
        over its memory (``RawModule.get_global``): ``.set()`` writes it, ``to_host`` reads it."""
        ptr = _named(self.module(source)[0].get_global, name, source,
                     "__constant__ or __device__ variable")
        dtype = np.dtype(dtype)
        if dtype.names:             # a struct or vector variable: CuPy has no structured dtypes
            n = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            return StructGlobal(self.cupy.ndarray((n,), np.uint8, memptr=ptr), tuple(shape), dtype)
        return self.cupy.ndarray(tuple(shape), dtype, memptr=ptr)

    def total_ms(self) -> float | None:
        """Sum of the timed launches' medians (None if any launch was not timed)."""
        ms = [t.ms for t in self.launches]
        return sum(ms) if ms and all(m is not None for m in ms) else None

    # ---- launch
    def _device_globals(self, source: str) -> list:
        """The file's ``__device__`` variables (found by simt's parser; none where it cannot
        parse the file), which a timed launch restores before each run like its arrays."""
        found = _file_globals(source_path(source))
        return [self.get_global(source, n, v.shape, v.dtype) for n, v in found.items() if v.space == "global"]

    def launch(self, source: str, kernel: str, grid, block, args: Sequence[Any],
               shared_mem: int = 0) -> None:
        """One launch (timed: ``repeat`` of them, each from the same state: the writable
        arrays and the module's ``__device__`` variables are restored before each)."""
        cupy = self.cupy
        cfg = LaunchConfig(Dim3.of(grid), Dim3.of(block), int(shared_mem))
        cfg.validate()
        mod, text = self.module(source, kernel)
        fn = _named(mod.get_function, kernel, source, "kernel",
                    "" if "<" in kernel else ' (kernels must be extern "C")')
        params = kernel_params(text, kernel) if "<" not in kernel else _simt_params(source, kernel)
        if any(isinstance(a, (tuple, list, dict)) for a in args):
            args = self._pack_structs(source, kernel, args)
        kargs = self._convert_args(kernel, params, args)
        if cfg.shared_mem > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = cfg.shared_mem
        g, b = cfg.grid.as_tuple(), cfg.block.as_tuple()

        def run():
            fn(g, b, kargs, shared_mem=cfg.shared_mem)

        rec = LaunchTiming(str(source), kernel, cfg.grid, cfg.block, cfg.shared_mem)
        try:
            if self.timed:
                writable = [a for a, p in zip(kargs, params or [None] * len(kargs))
                            if isinstance(a, cupy.ndarray) and not (p is not None and p.is_const)]
                writable += self._device_globals(source)
                snaps = [a.copy() for a in writable]

                def restore():
                    stream = cupy.cuda.get_current_stream()
                    for a, s in zip(writable, snaps):
                        a.data.copy_from_device_async(s.data, a.nbytes, stream)

                rec.samples = time_gpu_samples(run, self.warmup, self.repeat, before=restore)
                rec.ms = statistics.median(rec.samples)
                del snaps
            else:
                run()
            cupy.cuda.get_current_stream().synchronize()
        except cupy.cuda.driver.CUDADriverError as exc:
            raise LaunchError(f"{kernel}{cfg} failed on the GPU: {_short(exc)}",
                              tool="cuda") from None
        except cupy.cuda.runtime.CUDARuntimeError as exc:
            raise LaunchError(f"{kernel}{cfg} failed on the GPU: {_short(exc)}",
                              tool="cuda") from None
        self.launches.append(rec)

    def _pack_structs(self, source: str, kernel: str, args: Sequence[Any]) -> list:
        """Tuples, lists and dicts given for structs or vectors passed by value, packed as
        the emulator packs them (``simt.byvalue.pack``: numpy structured scalars in C's
        layout, from simt's reading of the kernel's signature); a CuPy array given for a
        pointer member becomes its device address."""
        import simt
        from simt import byvalue
        cupy = self.cupy
        try:
            fn = simt.Module.from_file(source_path(source)).get_function(kernel)
        except simt.SimtError as err:
            raise UsageError(f"{kernel}: a struct argument given as a tuple or dict needs simt to "
                             f"read the kernel's signature ({err.message}); pass a numpy "
                             "structured scalar instead") from None

        def pointer(x, where):
            if isinstance(x, cupy.ndarray):
                return x.data.ptr
            raise UsageError(f"{where} needs a CuPy array or an address, got {type(x).__name__}")

        out = list(args)
        for k, (p, a) in enumerate(zip(fn.params, args)):
            if p.fields is not None and isinstance(a, (tuple, list, dict)):
                out[k] = byvalue.pack(p.ctype, a, f"{kernel}: argument {k + 1} ({p})", pointer=pointer)
        return out

    def _convert_args(self, kernel: str, params: list[KParam] | None, args: Sequence[Any]):
        cupy = self.cupy
        if params is not None and len(params) != len(args):
            raise UsageError(f"{kernel} takes {len(params)} arguments, got {len(args)}")
        out = []
        for k, a in enumerate(args):
            p = params[k] if params is not None else None
            if isinstance(a, np.void) or (isinstance(a, np.ndarray) and a.dtype.names):
                # a struct or vector by value: CuPy passes a one-element numpy array by
                # value (its bytes, C's layout: simt.byvalue.record_dtype)
                if p is not None and p.is_pointer:
                    raise UsageError(f"{kernel}: argument {k + 1} ({p.ctype}) is a pointer, got a "
                                     "struct value")
                if a.size != 1:
                    raise UsageError(f"{kernel}: argument {k + 1} is a host array of {a.size} "
                                     "structs; pass one struct value, or backend.to_device(...)")
                out.append(np.array(a).reshape(1))
                continue
            if isinstance(a, cupy.ndarray):
                if p is not None and not p.is_pointer:
                    raise UsageError(f"{kernel}: argument {k + 1} ({p.ctype}) is a scalar, "
                                     f"got an array")
                out.append(a)
                continue
            if isinstance(a, np.ndarray) and a.ndim > 0:
                raise UsageError(f"{kernel}: argument {k + 1} is a host array; "
                                 f"pass backend.to_device(...)")
            if p is not None and p.is_pointer:
                raise UsageError(f"{kernel}: argument {k + 1} ({p.ctype}) is a pointer, "
                                 f"got {type(a).__name__}")
            if p is not None and p.dtype is not None:
                out.append(p.dtype.type(a))
            elif isinstance(a, (np.generic, np.ndarray)):
                out.append(a)
            elif isinstance(a, bool):
                out.append(np.bool_(a))
            elif isinstance(a, int):
                out.append(np.int32(a))
            elif isinstance(a, float):
                out.append(np.float32(a))
            else:
                raise UsageError(f"{kernel}: cannot pass {type(a).__name__} as argument {k + 1}")
        return tuple(out)


def _named(lookup, name: str, source: str, what: str, hint: str = ""):
    """``lookup(name)`` on a RawModule, or a UsageError saying the file has no such thing."""
    try:
        return lookup(name)
    except Exception:
        raise UsageError(f"no {what} named {name!r} in {Path(source_path(source)).name}{hint}") from None


def _compile_errors(cupy) -> tuple:
    """The exception classes CuPy raises for an NVRTC failure (CompileException in
    CuPy 14, CompilationError in some older versions)."""
    comp = cupy.cuda.compiler
    errs = tuple(getattr(comp, n) for n in ("CompileException", "CompilationError")
                 if isinstance(getattr(comp, n, None), type))
    return errs or (Exception,)


def _first_kernel(text: str) -> str:
    m = re.search(r"__global__[\w\s()]*?\bvoid\s+(\w+)\s*\(", _strip_comments(text))
    return m.group(1) if m else "_"


def _nvrtc_log(exc, filename: str = "") -> str:
    """NVRTC's messages from a CompilationError, with its program name replaced by the
    .cu file's name and ``name(line): error`` turned into ``name:line: error``."""
    text = str(exc).strip()
    out = []
    for ln in text.splitlines():
        m = re.match(r"^\s*(\S+?\.(?:cu|cuh|h))\((\d+)\):\s*(.*)$", ln)
        if m:
            name = filename if filename and m.group(1).endswith(".cu") else m.group(1)
            ln = f"{name}:{m.group(2)}: {m.group(3)}"
        out.append(ln)
    return "\n".join(out[:24])
