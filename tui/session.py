"""What the kernel screen steps through: one launch, prepared for ``simt.Stepper``.

No Textual here (the screens import this, not the other way round), so the launch
capture can be tested and benchmarked on its own.

A catalog entry's host driver calls ``backend.launch(...)`` one or more times.  To step
launch K we run the driver on an emulator backend that executes launches 0..K-1 normally
and, at launch K, records ``(source, kernel, grid, block, args, shared_mem)`` and stops
the driver: the device memory is then exactly what launch K starts from.  The CLI's
``_recording_backend`` wraps it, so its launch records (kernel, config) come for free.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

TUI_MAX_N = 4096          # catalog entries open at a small size: stepping is for watching
POLICIES = ("lockstep", "random", "round-robin")


class _Captured(Exception):
    """Raised inside the host driver once the launch to step has been recorded."""


@dataclass
class LaunchSpec:
    source: str                    # path of the .cu file
    kernel: str
    grid: tuple
    block: tuple
    shared_mem: int
    args: list                     # device arrays and numpy scalars, as the driver passed them
    device: object                 # the simt.Device holding the arrays
    index: int = 0                 # which launch of the driver (0-based)
    n_launches: int | None = None  # how many the driver makes (None: not known yet)

    @property
    def config(self) -> str:
        def d(t):
            t = tuple(t)
            while len(t) > 1 and t[-1] == 1:
                t = t[:-1]
            return ",".join(map(str, t))
        s = f"<<<{d(self.grid)}, {d(self.block)}"
        return s + (f", {self.shared_mem}>>>" if self.shared_mem else ">>>")


@dataclass
class Options:
    """What the user asked for on the command line (``make_app``'s keywords)."""
    kernel: str | None = None
    grid: str | None = None
    block: str | None = None
    shared_mem: int = 0
    args: tuple = ()
    symbols: tuple = ()            # --symbol NAME=VALUE: the file's __constant__/__device__ variables
    seed: int = 0
    policy: str | None = None
    n: int | None = None
    sanitize: bool = True
    step_budget: int | None = None
    launch: int = 0
    real: bool = False


@dataclass
class Session:
    """A prepared launch and everything the kernel screen shows around it."""
    target: str                     # catalog id or file path
    title: str
    options: Options
    source_path: str = ""
    source_text: str = ""
    entry: object = None            # catalog Entry or None
    spec: LaunchSpec | None = None
    stepper: object = None          # simt.Stepper
    kernel: object = None           # simt.Kernel
    error: Exception | None = None  # compile / usage / launch error: shown instead of steps
    policy: str = "lockstep"
    n: int | None = None
    open_s: float = 0.0
    notes: list = field(default_factory=list)

    @property
    def error_line(self) -> int | None:
        c = getattr(self.error, "coord", None)
        return getattr(c, "line", None)

    @property
    def name(self) -> str:
        return self.spec.kernel if self.spec else (self.options.kernel or Path(self.target).stem)


def is_file_target(target: str) -> bool:
    from tui import cli
    return cli._is_file_target(target)


def _stop_at_backend(index: int, **kw):
    """An emulator backend (with the CLI's launch records) that stops at launch ``index``."""
    from kernels_cuda.backend import EmulatorBackend, source_path
    from tui import cli

    class StopAt(EmulatorBackend):
        captured: LaunchSpec | None = None
        count = 0

        def launch(self, source, kernel, grid, block, args, shared_mem=0):
            i = self.count
            self.count += 1
            if i == index:
                from simt.launch import Dim3
                self.captured = LaunchSpec(
                    source=str(source_path(source)), kernel=kernel,
                    grid=Dim3.of(grid).as_tuple(), block=Dim3.of(block).as_tuple(),
                    shared_mem=int(shared_mem), args=list(args), device=self.device, index=i)
                raise _Captured
            super().launch(source, kernel, grid, block, args, shared_mem)

    return cli._recording_backend(StopAt, None, **kw)


def capture_entry_launch(entry, n: int, seed: int = 0, index: int = 0,
                         policy: str | None = None) -> LaunchSpec:
    """Run ``entry``'s driver up to its launch ``index`` and return that launch.

    Raises ``IndexError`` when the driver makes fewer launches (its count in ``args``)."""
    inputs = entry.inputs(n, seed)
    be = _stop_at_backend(index, seed=seed, policy=policy or entry.policy, sanitize=False)
    try:
        entry.run(be, inputs)
    except _Captured:
        return be.captured
    raise IndexError(be.count)


def _load_entry(target: str, o: Options) -> Session:
    from kernels_cuda import catalog

    entry = catalog.get(target)
    n = o.n or min(entry.default_n, TUI_MAX_N)
    policy = o.policy or entry.policy
    s = Session(target=target, title=entry.title, options=o, entry=entry, policy=policy, n=n)
    index = max(0, int(o.launch or 0))
    try:
        spec = capture_entry_launch(entry, n, o.seed, index, policy)
    except IndexError as e:
        count = e.args[0] if e.args else 0
        s.notes.append(f"{entry.id} makes {count} launch{'es' if count != 1 else ''}; "
                       f"showing launch 1")
        index = 0
        spec = capture_entry_launch(entry, n, o.seed, 0, policy)
        spec.n_launches = count
    s.spec = spec
    s.source_path = spec.source
    s.source_text = Path(spec.source).read_text(encoding="utf-8")
    import simt
    s.kernel = simt.Module.from_file(spec.source).get_function(spec.kernel)
    return s


def _load_file(target: str, o: Options) -> Session:
    import simt
    from tui import cli

    path = Path(target)
    s = Session(target=target, title=str(path), options=o, policy=o.policy or "lockstep")
    s.source_path = str(path)
    try:
        s.source_text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        s.source_text = ""
    if path.is_file():
        # parse and lower first: a compile error then keeps its file:line:col (the CLI's
        # loader reports errors inside a kernel as an unknown-kernel usage error)
        mod = simt.Module.from_file(path)
        names = list(mod.kernel_names) + list(mod.template_kernels)
        name = o.kernel or (names[0] if len(names) == 1 and "<" not in names[0] else None)
        if name in names:
            mod.get_function(name)
    ns = SimpleNamespace(target=target, n=None, kernel=o.kernel, grid=o.grid, block=o.block,
                         shared=o.shared_mem or 0, args=list(o.args or ()), seed=o.seed,
                         symbols=list(o.symbols or ()))
    path, mod, fn, name, cfg = cli._load_kernel(ns)
    params, specs, values = cli._build_args(ns, fn, name)
    syms = cli._build_symbols(ns, mod, path)
    dev = simt.Device()
    dargs, _ = cli._device_args(params, values, dev.to_device)
    for sym, v in syms.items():
        mod.get_global(dev, sym).set(v)
    s.title = f"{path.name}: {fn.signature() if hasattr(fn, 'signature') else name}"
    s.kernel = fn
    s.spec = LaunchSpec(source=str(path), kernel=name, grid=cfg.grid.as_tuple(),
                        block=cfg.block.as_tuple(), shared_mem=cfg.shared_mem, args=dargs,
                        device=dev, n_launches=1)
    return s


def open_session(target: str, options: Options | None = None) -> Session:
    """Load ``target`` (catalog id or .cu file) and prepare a stepper on its launch.

    Never raises a ``SimtError``: a compile, usage or launch error is kept in
    ``session.error`` (with the source, when there is one) for the screen to show."""
    from simt.errors import SimtError

    o = options or Options()
    t0 = time.perf_counter()
    file_target = is_file_target(target)
    try:
        s = _load_file(target, o) if file_target else _load_entry(target, o)
    except SimtError as err:
        s = Session(target=target, title=target, options=o, error=err,
                    policy=o.policy or "lockstep")
        c = getattr(err, "coord", None)
        src = getattr(c, "file", None) or (target if file_target else None)
        if src is None and not file_target:
            try:
                from kernels_cuda import catalog
                from kernels_cuda.backend import source_path
                s.entry = catalog.get(target)
                src = str(source_path(s.entry.source))
            except SimtError:
                src = None
        if src:
            try:
                s.source_path = str(src)
                s.source_text = Path(src).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                pass
        s.open_s = time.perf_counter() - t0
        return s
    try:
        prepare(s)
    except SimtError as err:
        s.error = err
    s.open_s = time.perf_counter() - t0
    return s


def prepare(s: Session) -> None:
    """(Re)build the stepper of ``s`` from its captured launch, with its seed and policy."""
    import simt
    from simt.launch import Dim3, LaunchConfig

    spec = s.spec
    cfg = LaunchConfig(Dim3.of(spec.grid), Dim3.of(spec.block), int(spec.shared_mem))
    launch = s.kernel.prepare(spec.device, cfg, list(spec.args), seed=s.options.seed,
                              policy=s.policy, sanitize=s.options.sanitize,
                              **({"step_budget": s.options.step_budget}
                                 if s.options.step_budget else {}))
    s.stepper = simt.Stepper(launch)


def restart(s: Session, seed: int | None = None, policy: str | None = None,
            launch: int | None = None) -> Session:
    """A fresh session on the same target (memory as before the launch)."""
    o = Options(**{**s.options.__dict__})
    if seed is not None:
        o.seed = int(seed)
    if policy is not None:
        o.policy = policy
    elif o.policy is None:
        o.policy = s.policy
    if launch is not None:
        o.launch = int(launch)
    return open_session(s.target, o)


# ----------------------------------------------------------------------- compare

def predict_ms(results, profile: str | None = None) -> tuple[float | None, str | None]:
    """Predicted device time of these launches: ``LaunchResult.predicted_ms`` when the
    emulator filled it, else ``simt.timing`` on a GPU profile when that model is there."""
    pred = [getattr(r, "predicted_ms", None) for r in results]
    if pred and all(p is not None for p in pred):
        return float(sum(pred)), None
    try:
        from simt import timing
        prof = timing.load_profile(profile)
        return float(sum(timing.predict_result(r, prof).ms for r in results)), prof.name
    except Exception:  # no timing model (yet), no profile: the screen says n/a
        return None, None


def run_variant(entry, n: int, seed: int = 0, sanitize: bool = False,
                profile: str | None = None) -> dict:
    """Run every launch of ``entry`` on the emulator; counters summed over launches."""
    from kernels_cuda import catalog
    from kernels_cuda.backend import EmulatorBackend
    from simt.errors import SimtError
    from tui import cli

    t0 = time.perf_counter()
    row = {"id": entry.id, "variant": entry.variant, "n": n, "error": None, "correct": None,
           "metrics": {}, "predicted_ms": None, "launches": 0}
    inputs = entry.inputs(n, seed)
    be = cli._recording_backend(EmulatorBackend, None, seed=seed, policy=entry.policy,
                                sanitize=sanitize)
    try:
        out = entry.run(be, inputs)
        row["correct"] = bool(catalog.compare(entry, out, entry.reference(inputs)))
    except SimtError as err:
        row["error"] = str(err)
    row["metrics"] = cli.sum_metrics(be.launches)
    row["predicted_ms"], row["profile"] = predict_ms(be.launches, profile) if be.launches else (None, None)
    row["launches"] = len(be.records)
    row["wall_s"] = time.perf_counter() - t0
    return row


def gpu_available() -> tuple[bool, str]:
    """``kernels_cuda.cupy_backend.available()``, never raising."""
    try:
        from kernels_cuda import cupy_backend
        return cupy_backend.available()
    except Exception as e:  # no CuPy, a broken driver: say so, do not crash
        return False, f"{type(e).__name__}: {e}"


def measure_variant(entry, n: int, seed: int = 0, repeat: int = 10) -> float | None:
    """Device time (ms) of all of ``entry``'s launches at size ``n``: CUDA events, the
    median of ``repeat`` timed runs per launch (``CupyBackend(timed=True)``)."""
    from kernels_cuda import cupy_backend

    be = cupy_backend.CupyBackend(timed=True, warmup=2, repeat=repeat)
    entry.run(be, entry.inputs(n, seed))
    return be.total_ms()


def measure_launch(s: Session, repeat: int = 10) -> float | None:
    """Device time (ms) of the launch ``s`` steps through, on the GPU through CuPy."""
    from kernels_cuda import cupy_backend

    be = cupy_backend.CupyBackend(timed=True, warmup=2, repeat=repeat)
    spec = s.spec
    if s.entry is not None:
        try:
            s.entry.run(be, s.entry.inputs(s.n, s.options.seed))
        except Exception:
            if len(be.launches) <= spec.index:
                raise
        t = be.launches[spec.index] if len(be.launches) > spec.index else None
        return None if t is None else t.ms
    from tui import cli

    o = s.options
    ns = SimpleNamespace(target=s.target, n=None, kernel=spec.kernel, grid=o.grid, block=o.block,
                         shared=o.shared_mem or 0, args=list(o.args or ()), seed=o.seed,
                         symbols=list(o.symbols or ()))
    path, mod, fn, name, cfg = cli._load_kernel(ns)
    params, _, values = cli._build_args(ns, fn, name)
    from kernels_cuda.crosscheck import set_module_vars

    syms = cli._build_symbols(ns, mod, path)
    dargs, _ = cli._device_args(params, values, be.to_device)
    source = str(Path(spec.source).resolve())
    set_module_vars(be, source, mod.globals, syms)
    be.launch(source, name, cfg.grid, cfg.block, dargs, cfg.shared_mem)
    return be.launches[0].ms
