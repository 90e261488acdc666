"""Modules, kernels and launches: the public face of the emulator.

``Module.from_file(path)`` parses a ``.cu`` file once; ``module.get_function(name)``
lowers one kernel (cached); ``kernel.launch(device, cfg, args)`` runs it to the end and
returns a ``LaunchResult``; ``kernel.prepare(...)`` returns a ``Launch`` that can also
be stepped (see ``Launch.steps``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from . import byvalue, slicewin
from . import counters as C
from . import timing
from .errors import CompileError, SimtError, UsageError
from .frontend import parse, read_source
from .ir import KernelIR
from .launch import MAX_STATIC_SHARED, LaunchConfig
from .lower import Lowerer, NeedInstance, Param
from .templates import MAX_INSTANCES
from .issue import (alu_pipe_weights, bit_pipe_weights, fp64_pipe_weights, imad_pipe_weights, issue_weights,
                    shfl_pipe_weights)
from .occupancy import bounded_registers, estimate_registers, launch_bounds
from .memory import Device, DeviceArray
from .spaces import GLOBAL_BASE, SHARED_ALIGN, SHARED_BASE

POLICIES = ("lockstep", "random", "round-robin")
DEFAULT_STEP_BUDGET = 1_000_000       # warp instructions per warp
DEFAULT_BATCH_THREADS = 1 << 19
SAMPLE_RUN = slicewin.RUN            # a sampled grid is emulated in runs of this many blocks


def sample_block_ids(n_blocks: int, k: int, seed: int = 0) -> np.ndarray:
    """Linear ids of the ``k`` blocks a sampled launch emulates, ascending: the grid is cut
    into k / ``SAMPLE_RUN`` equal strata and each gets a run of consecutive blocks starting
    at a seeded random place in it (wrapping round to the stratum's start, so that every
    block is as likely to be drawn).  Blocks whose work varies over the grid (a Mandelbrot
    set, a triangular loop, image borders) are then sampled without bias, while the runs
    keep the neighbouring blocks whose memory overlaps together (the first k blocks alone
    saw only the top rows of an image).

    Limitations: a kernel whose blocks wait for lower-numbered blocks (a chained scan that
    spins on its predecessor's flag) would wait forever for a block outside the sample; the
    step budget stops it.  Kernels that take their tile from an atomic counter, as the
    catalog's look-back scan does, are unaffected."""
    if k >= n_blocks:
        return np.arange(n_blocks, dtype=np.int64)
    nc = max(1, -(-k // SAMPLE_RUN))
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, n_blocks, k])
    lens = np.full(nc, k // nc, np.int64)
    lens[:k % nc] += 1
    ids = []
    for j in range(nc):
        lo, hi = j * n_blocks // nc, (j + 1) * n_blocks // nc
        start = int(rng.integers(0, hi - lo))
        ids.append(lo + (start + np.arange(lens[j], dtype=np.int64)) % (hi - lo))
    return np.sort(np.concatenate(ids))


@dataclass
class Finding:
    """One sanitizer report, worded like compute-sanitizer."""
    tool: str            # racecheck | memcheck | synccheck | initcheck | assert | simt
    kind: str            # e.g. "RAW hazard", "out-of-bounds", "divergent barrier"
    file: str
    line: int
    message: str
    count: int = 1
    line2: int | None = None
    severity: str = "error"

    def as_dict(self) -> dict:
        d = {"tool": self.tool, "kind": self.kind, "line": self.line, "message": self.message,
             "count": self.count, "file": self.file, "severity": self.severity}
        if self.line2 is not None:
            d["line2"] = self.line2
        return d

    def __str__(self) -> str:
        return f"========= {self.tool}: {self.kind} at {self.file}:{self.line}: {self.message}" + \
               (f" ({self.count} hazards)" if self.count > 1 else "")


@dataclass
class LaunchResult:
    kernel: str
    config: LaunchConfig
    metrics: dict
    per_line: dict
    sanitizer: list
    warp_instructions: int
    thread_instructions: int
    steps: int
    wall_s: float
    stdout: list = field(default_factory=list)
    error: SimtError | None = None
    per_warp: dict = field(default_factory=dict)
    atomics: list = field(default_factory=list)
    divergence: dict = field(default_factory=dict)
    shared_bytes: int = 0                 # static + dynamic shared memory per block
    sampled_blocks: int | None = None     # emulated only this many blocks (sample_block_ids)
    total_blocks: int = 0
    predicted_ms: float | None = None

    def as_dict(self) -> dict:
        return {"kernel": self.kernel, "grid": list(self.config.grid.as_tuple()),
                "block": list(self.config.block.as_tuple()), "shared_mem": self.config.shared_mem,
                "metrics": self.metrics, "sanitizer": [f.as_dict() for f in self.sanitizer],
                "warp_instructions": self.warp_instructions,
                "thread_instructions": self.thread_instructions, "steps": self.steps,
                "wall_s": round(self.wall_s, 4),
                "sampled_blocks": self.sampled_blocks, "total_blocks": self.total_blocks,
                "predicted_ms": self.predicted_ms,
                "error": str(self.error) if self.error else None}


class Module:
    """A parsed .cu translation unit."""

    def __init__(self, ast, filename: str, text: str):
        self.filename = filename
        self.text = text
        self.lowerer = Lowerer(ast, filename)
        self._kernels: dict[str, Kernel] = {}
        self._requests: list = []        # template instances asked for (simt.templates)

    _cache: dict = {}

    @classmethod
    def from_file(cls, path) -> "Module":
        """Parse a .cu file (cached per path and modification time: kernels are immutable)."""
        import os
        try:
            st = os.stat(path)
            key = (os.path.abspath(path), str(path), st.st_mtime_ns, st.st_size)
        except OSError:
            key = None
        if key is not None and key in cls._cache:
            return cls._cache[key]
        text = read_source(path)
        mod = cls.from_source(text, str(path))
        if key is not None:
            cls._cache[key] = mod
        return mod

    @classmethod
    def from_source(cls, text: str, filename: str = "<kernel>") -> "Module":
        return cls(parse(text, filename), filename, text)

    @property
    def kernel_names(self) -> list[str]:
        """The kernels that can be launched as named (template kernels: ``template_kernels``)."""
        return [n for n in self.lowerer.kernels if "<" not in n]

    @property
    def template_kernels(self) -> list[str]:
        """Kernel templates, as ``reduce<typename T, unsigned int blockSize>``; launch an
        instance by its arguments: ``get_function("reduce<float, 256>")``."""
        tm = self.lowerer.templates
        return [t.signature() for t in tm.templates if t.is_kernel] if tm else []

    def _instantiate(self, inst) -> None:
        """Write one more template instance into the text and lower the file again."""
        from .frontend import parse
        self._requests.append(inst)
        self.lowerer = Lowerer(parse(self.text, self.filename, self._requests), self.filename)

    def get_function(self, name: str) -> "Kernel":
        tm = self.lowerer.templates
        try:
            inst = tm.request(name) if tm is not None and name not in self.lowerer.funcs else None
        except CompileError as err:
            raise UsageError(f"--kernel {name}: {err.message}") from None
        if inst is not None:
            if not tm.by_name[inst.name].is_kernel:
                raise UsageError(f"{inst.name} in {self.filename} is a __device__ function "
                                 f"template, not a __global__ kernel")
            name = inst.display
            if name not in self.lowerer.kernels and name not in self._kernels:
                self._instantiate(inst)
        if name not in self._kernels:
            if name not in self.lowerer.kernels:
                names = ", ".join(self.kernel_names + self.template_kernels) or "none"
                if name in self.lowerer.funcs:
                    raise UsageError(f"{name} in {self.filename} is a __device__ function, not a "
                                     f"__global__ kernel (kernels: {names})")
                if name in self.lowerer.host_funcs:
                    raise UsageError(f"{name} in {self.filename} is a host function, which simt "
                                     f"skips; it runs __global__ kernels (kernels: {names})")
                raise UsageError(f"no kernel named {name!r} in {self.filename} (kernels: {names})")
            for _ in range(MAX_INSTANCES):
                try:
                    ir = self.lowerer.kernel(name)
                    break
                except NeedInstance as need:     # a deduced template call: write it in
                    self._instantiate(need.inst)
            else:
                raise CompileError(f"{name}: more than {MAX_INSTANCES} deduced template instances")
            self._kernels[name] = Kernel(self, ir)
        return self._kernels[name]

    @property
    def globals(self) -> dict:
        """The file's ``__constant__`` and ``__device__`` variables (``simt.lower.ModuleVar``)."""
        return dict(self.lowerer.module_vars)

    def get_global(self, device: Device, name: str) -> DeviceArray:
        """A ``__constant__``/``__device__`` variable's memory on ``device``, as a
        DeviceArray (``.set()`` is cudaMemcpyToSymbol, ``.get()`` cudaMemcpyFromSymbol;
        CuPy's ``RawModule.get_global``).  Launches of this module on the device use it."""
        var = self.lowerer.module_vars.get(name) or self.lowerer.literals.get(name)
        if var is None:
            names = ", ".join(self.lowerer.module_vars) or "none"
            raise UsageError(f"no __constant__ or __device__ variable named {name!r} in "
                             f"{self.filename} (its variables: {names})")
        return device.module_var(self, var)

    def check_all(self) -> None:
        """Lower every kernel (reports compile errors for the whole file)."""
        for n in self.lowerer.kernels:
            self.get_function(n)


class Kernel:
    def __init__(self, module: Module, ir: KernelIR):
        self.module = module
        self.ir = ir
        self.name = ir.name
        from .regalloc import compact
        from .loops import shared_quotients, unrolled_divisors
        from .uniformity import analyse, if_convert, static_spaces
        for pc, ins in enumerate(ir.code):      # (the loop analyses read them)
            ins.pc = pc
        unrolled_divisors(ir.code)
        shared_quotients(ir.code)
        analyse(ir)
        static_spaces(ir)
        if_convert(ir)
        compact(ir)
        # for occupancy (an estimate of nvcc's, within the kernel's __launch_bounds__)
        self.bounds = launch_bounds(module.text).get(ir.name.split("<")[0])
        self.registers = bounded_registers(estimate_registers(ir), self.bounds)
        if ir.static_shared > MAX_STATIC_SHARED:
            raise CompileError(f'kernel "{ir.name}" uses {ir.static_shared} bytes of static shared '
                               f"memory; the limit is {MAX_STATIC_SHARED} bytes (48 KiB)", ir.coord)

    @property
    def params(self) -> list[Param]:
        return self.ir.params

    def signature(self) -> str:
        return f"{self.name}(" + ", ".join(str(p) for p in self.params) + ")"

    def prepare(self, device: Device, cfg: LaunchConfig, args, **kw) -> "Launch":
        return Launch(self, device, cfg, list(args), **kw)

    def launch(self, device: Device, cfg: LaunchConfig, args, **kw) -> LaunchResult:
        return self.prepare(device, cfg, args, **kw).run()


class Launch:
    """One kernel launch: validated arguments, counters, sanitizer, and the batches."""

    max_printf = 4096

    def __init__(self, kernel: Kernel, device: Device, cfg: LaunchConfig, args: list,
                 seed: int = 0, policy: str = "lockstep", sanitize: bool = True,
                 step_budget: int | None = None, progress=None, batch_threads: int | None = None,
                 sample_blocks: int | None = None, track_time: bool = True, gpu=None,
                 count_memory: bool = True):
        cfg = LaunchConfig.of(cfg.grid, cfg.block, cfg.shared_mem) if not isinstance(cfg, LaunchConfig) else cfg
        cfg.validate()
        bounds = kernel.bounds
        if bounds and cfg.block.size > bounds[0]:
            raise UsageError(f'block {cfg.block} has {cfg.block.size} threads; kernel "{kernel.name}" is '
                             f"declared __launch_bounds__({bounds[0]}), and CUDA refuses the launch")
        if policy not in POLICIES:
            raise UsageError(f"unknown scheduling policy {policy!r} (choose from {', '.join(POLICIES)})")
        self.kernel = kernel
        self.ir = kernel.ir
        self.device = device
        self.cfg = cfg
        self.policy = policy
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.step_budget = DEFAULT_STEP_BUDGET if step_budget is None else step_budget
        self.progress = progress
        ir = self.ir
        dyn = ir.dynamic_shared_offset + cfg.shared_mem if ir.uses_dynamic_shared or cfg.shared_mem else ir.static_shared
        self.shared_bytes = -(-max(dyn, ir.static_shared) // SHARED_ALIGN) * SHARED_ALIGN
        self.uniforms = self._bind(args)
        self.alloc_starts = np.array(device.starts, np.int64)
        self.alloc_ends = np.array(device.ends, np.int64)
        tpb = cfg.block.size
        self.wpb = -(-tpb // 32)
        self.n_blocks = cfg.grid.size
        # large launches: emulate sample_blocks blocks spread over the grid and extrapolate
        # the counters.  The machine and the counters number the emulated blocks 0..run_blocks-1
        # (their rank in the sample); sample_ids maps a rank to the block's linear id.
        self.run_blocks = self.n_blocks if not sample_blocks or sample_blocks >= self.n_blocks \
            else max(1, int(sample_blocks))
        self.sample_ids = sample_block_ids(self.n_blocks, self.run_blocks, seed) \
            if self.run_blocks < self.n_blocks else None
        self.n_warps = self.n_blocks * self.wpb
        bt = batch_threads or DEFAULT_BATCH_THREADS
        self.batch_blocks = max(1, bt // (self.wpb * 32))
        self.counters = C.Counters(len(ir.code), self.n_warps, [i.line for i in ir.code])
        self.counters.slot_weights = issue_weights(ir)
        self.counters.alu_weights = alu_pipe_weights(ir)
        self.counters.bit_weights = bit_pipe_weights(ir)
        self.counters.fp64_weights = fp64_pipe_weights(ir)
        self.counters.imad_weights = imad_pipe_weights(ir)
        self.counters.shfl_weights = shfl_pipe_weights(ir)
        nsec = len(device.buf) // 32 + 1
        self.counters.touched = np.zeros(nsec, bool)
        self.counters.alloc_sectors = [((a - GLOBAL_BASE) // 32, -(-(e - GLOBAL_BASE) // 32))
                                       for a, e in zip(device.starts, device.ends)]
        self.counters.alloc_first = np.array([lo for lo, _ in self.counters.alloc_sectors] or [0], np.int64)
        # where each allocation would sit in its 2 MiB page on the GPU (the slice hash)
        self.counters.alloc_gpu = list(zip(device.starts, device.gpu_offsets))
        self.counters.written = np.zeros(nsec, bool)
        self.counters.sector_reqs = np.zeros(nsec, np.int32)
        # the GPU the launch is timed for (its profile, the default one if it names none)
        # decides a block's share of L1 and which of its loads wait on DRAM
        prof = self._profile(gpu)
        bps = timing._occupancy(prof, self.cfg.block.size, self.shared_bytes, self.kernel.registers)
        self._l1_share(prof, bps)
        # the grid blocks on the GPU at once: which atomics share its slices (simt.slicewin)
        self.counters.window_blocks = slicewin.RESIDENT_SPREAD * bps * prof.sm_count
        self.counters.sample_ids = None if self.sample_ids is None else np.asarray(self.sample_ids, np.int64)
        # loads whose sectors come from DRAM wait longer (machine.LAT["dram"]), in a launch
        # whose memory does not fit the L2 (timing a small launch again finds it in L2,
        # unless restoring what it writes before each timed run pushes it out)
        if sum(device.sizes) + 2 * self._restored_bytes() > C.L2_BYTES:
            self.counters.first_read = np.full(nsec, -1, np.int64)
            # each emulated block's wave on the GPU (what an earlier wave left in L2)
            ids = np.arange(self.run_blocks) if self.sample_ids is None else np.asarray(self.sample_ids)
            self.counters.rank_wave = ids // max(1, bps * prof.sm_count)
            self.counters.first_wave = np.full(nsec, np.iinfo(np.int64).max, np.int64)   # (none yet)
            # ... and a block's re-touch of data L2 may have let go since (timing.retouch_miss)
            self.counters.last_touch = np.full(nsec, -1, np.int64)
            self.counters.retouch = np.zeros((max(1, len(device.starts)), C.RETOUCH_BINS))
            self.counters.retouch_sum = np.zeros_like(self.counters.retouch)
            self.counters.retouch_scat = np.zeros(len(self.counters.retouch))
            self.counters.retouch_rmw = np.zeros(len(self.counters.retouch))
            self._retouch_latency(prof, bps)
        else:
            self._partly_resident(device, prof)
        self.counters.sector_bmin = np.full(nsec, np.iinfo(np.int32).max, np.int32)
        self.counters.sector_bmax = np.full(nsec, -1, np.int32)
        self.counters.run_blocks = self.run_blocks
        self.counters.wpb = self.wpb
        self.counters.lockstep_threads = min(self.run_blocks, self.batch_blocks) * tpb
        self.track_time = track_time      # per-lane ready times for the timing model
        # False: no memory counters (sectors, wavefronts, constant passes), for runs that
        # check outputs and the sanitizer's findings only (a third less time on the probes)
        self.count_memory = count_memory
        self.gpu = gpu                    # profile name (or Profile) for predicted_ms
        self.stdout: list[str] = []
        self.sanitizer = None
        if sanitize:
            from .sanitizer import Sanitizer
            self.sanitizer = Sanitizer(self)
        self.steps_done = 0
        self.machine = None
        self.block_cursor = 0
        self.error: SimtError | None = None
        self.done = False

    def _restored_bytes(self) -> int:
        """Bytes of the allocations the kernel may write (pointer parameters not declared
        const), which ``--real`` puts back before each timed run (a copy from a snapshot:
        twice their bytes through L2 between one run and the next, kernels_cuda.cupy_backend)."""
        seen, total = set(), 0
        for p in self.ir.params:
            if p.fields is not None or not p.is_pointer or p.ctype.const:
                continue
            a = int(self.uniforms[p.uniform.index])
            k = int(np.searchsorted(self.alloc_starts, a, "right")) - 1
            if 0 <= k < len(self.alloc_ends) and a < self.alloc_ends[k] and k not in seen:
                seen.add(k)
                total += int(self.alloc_ends[k] - self.alloc_starts[k])
        return total

    def _partly_resident(self, device, prof) -> None:
        """A launch whose memory fits L2 finds it there when timed again, except that L2
        keeps only ``l2_reuse_bytes`` of a table read at random (a line that SMs on both
        of L2's sides read is kept in both: timing_investigation/l2miss/).  Each allocation
        larger than that keeps that share of its sectors (``Counters.resident_share``), and
        a gather from it waits on DRAM when one of its sectors is not kept
        (``machine._gather_misses``)."""
        c = prof.l2_reuse_bytes
        share = np.array([min(1.0, c / s) if c and s else 1.0 for s in device.sizes])
        if (share < 1.0).any():
            self.counters.resident_share = share

    @staticmethod
    def _profile(gpu):
        try:
            return gpu if isinstance(gpu, timing.Profile) else timing.load_profile(gpu)
        except UsageError:
            return timing.load_profile(None)

    def _l1_share(self, prof, bps: int) -> None:
        """The lines of L1 each block keeps (counters.l1_keep_lines): the SM's L1 split
        among the blocks the GPU holds there at once (``bps`` an SM at most)."""
        per_sm = max(1, min(bps, -(-self.n_blocks // prof.sm_count)))
        lines = self.counters.l1_keep_lines = C.l1_keep_lines(per_sm, self.shared_bytes)
        at_once = min(self.batch_blocks, C.L1_KEEP_ENTRIES // max(1, lines))
        self.counters.l1_keep_rows = min(self.run_blocks, max(C.L1_KEEP_ROWS, at_once))

    def _retouch_latency(self, prof, bps: int) -> None:
        """Which of a block's re-touches wait on DRAM depends on the GPU (its L2, its
        resident blocks, ``bps`` an SM), for the critical paths the timing model reads."""
        if not prof.l2_retouch_bytes:
            return
        self.counters.retouch_bytes = prof.l2_retouch_bytes
        self.counters.retouch_resident = timing.resident_blocks(prof, self.n_blocks, bps)

    # ------------------------------------------------------------- arguments
    def _bind(self, args: list) -> list:
        ir = self.ir
        params = ir.params
        if len(args) != len(params):
            sig = ", ".join(str(p) for p in params)
            raise UsageError(f"kernel {ir.name}({sig}) takes {len(params)} argument"
                             f"{'s' if len(params) != 1 else ''}, got {len(args)}")
        u = [None] * ir.n_uniforms

        def address(a, where: str):
            if isinstance(a, DeviceArray):
                if a.device is not self.device:
                    raise UsageError(f"{where}: array lives on another device")
                return np.int64(a.ptr)
            if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
                return np.int64(int(a))
            raise UsageError(f"{where} needs a device array, got {type(a).__name__}")

        for p, a in zip(params, args):
            if p.fields is not None:     # a struct or vector by value: a uniform per leaf member
                rec = byvalue.pack(p.ctype, a, f"argument {p.name} ({p.ctype})", pointer=address)
                for (*_, uni), val in zip(p.fields, byvalue.leaf_values(p.ctype, rec)):
                    u[uni.index] = val
                continue
            if p.is_pointer:
                val = address(a, f"argument {p.name}" if isinstance(a, DeviceArray)
                              else f"argument {p.name} ({p.ctype})")
            else:
                if isinstance(a, DeviceArray):
                    raise UsageError(f"argument {p.name} ({p.ctype}) is a scalar, got an array")
                try:
                    val = np.asarray(a).astype(p.dtype)[()]
                except (TypeError, ValueError):
                    raise UsageError(f"argument {p.name} ({p.ctype}): cannot convert {a!r}") from None
            u[p.uniform.index] = val
        names = ir.uniform_names
        g, b = self.cfg.grid, self.cfg.block
        for i, n in enumerate(names):
            if n.startswith("ntid."):
                u[i] = np.uint32(getattr(b, n[-1]))
            elif n.startswith("nctaid."):
                u[i] = np.uint32(getattr(g, n[-1]))
            elif n == "dynshared":
                u[i] = np.int64(SHARED_BASE + ir.dynamic_shared_offset)
            elif n.startswith(("csym.", "gsym.")):
                u[i] = np.int64(self.kernel.module.get_global(self.device, n[5:]).ptr)
        return u

    def block_id(self, rank: int) -> int:
        """Linear id of the emulated block of this rank (the same unless sampled)."""
        return rank if self.sample_ids is None else int(self.sample_ids[rank])

    def block_coords(self, b: int) -> tuple[int, int, int]:
        """blockIdx of the emulated block of rank ``b``."""
        b = self.block_id(b)
        gx, gy, _ = self.cfg.grid.as_tuple()
        return (b % gx, (b // gx) % gy, b // (gx * gy))

    def pc_of(self, ins) -> int:
        return ins.pc

    # ------------------------------------------------------------------- run
    def _batches(self):
        nb = self.run_blocks
        step = self.batch_blocks
        for s in range(0, nb, step):
            yield np.arange(s, min(nb, s + step), dtype=np.int64)

    def run(self, warp_steps: bool = False) -> LaunchResult:
        from .machine import Machine
        from .memory import tune_host_allocator
        tune_host_allocator()
        t0 = time.perf_counter()
        total = self.run_blocks
        done = 0
        with np.errstate(all="ignore"):
            for blocks in self._batches():
                m = self.machine = Machine(self)
                m.setup(blocks)
                on_step = self._progress_hook(m, done, len(blocks), total) if self.progress else None
                try:
                    m.run(warp_steps=warp_steps, on_step=on_step)
                finally:
                    self.steps_done += int(m.wsteps.sum())
                    # the machine refers back to the launch: without this cycle its arrays
                    # are freed as soon as the batch is done, not at the next full gc
                    self.machine = None
                done += len(blocks)
                if self.progress is not None:
                    self.progress(done, total)
        self.done = True
        return self.result(time.perf_counter() - t0)

    def _progress_hook(self, m, done: int, nb: int, total: int):
        """Report progress at most every 0.1 s from inside a batch (by finished warps)."""
        last = [time.perf_counter()]

        def on_step(p, w):
            now = time.perf_counter()
            if now - last[0] > 0.1:
                last[0] = now
                self.progress(done + int(float(np.mean(m.state == 2)) * nb), total)
        return on_step

    def _predict(self, metrics: dict) -> float | None:
        if self.gpu is None:
            return None
        prof = self.gpu if isinstance(self.gpu, timing.Profile) else timing.load_profile(self.gpu)
        return round(timing.predict(metrics, self.n_blocks, self.cfg.block.size,
                                    self.shared_bytes, prof).ms, 6)

    def result(self, wall: float) -> LaunchResult:
        cnt = self.counters
        scale = self.n_blocks / self.run_blocks
        metrics = cnt.metrics(scale)
        metrics[C.REGS] = self.kernel.registers
        findings = self.sanitizer.findings() if self.sanitizer is not None else []
        per_warp = {"inst": cnt.warp_inst, "thread_inst": cnt.warp_thread_inst, **cnt.warp_extra}
        div = {}
        for pc, (n, s) in cnt.divergence.items():
            ln = self.ir.code[pc].line
            e = div.setdefault(ln, [0, 0])
            e[0] += n
            e[1] += s
        return LaunchResult(kernel=self.ir.name, config=self.cfg, metrics=metrics,
                            per_line=cnt.per_line(scale), sanitizer=findings,
                            warp_instructions=metrics[C.INST],
                            thread_instructions=metrics[C.THREAD_INST], steps=self.steps_done,
                            wall_s=wall, stdout=list(self.stdout), per_warp=per_warp,
                            atomics=list(cnt.atomics), divergence=div,
                            sampled_blocks=self.run_blocks if self.run_blocks < self.n_blocks else None,
                            total_blocks=self.n_blocks, shared_bytes=self.shared_bytes,
                            predicted_ms=self._predict(metrics))
