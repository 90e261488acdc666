#!/usr/bin/env python3
"""simt against Numba's CUDA simulator, side by side on the same kernels.

    python benchmarks/bench_numba.py            # table
    python benchmarks/bench_numba.py --json     # one JSON object

The kernels are written once in CUDA C (the catalog's ``.cu`` files, run by simt through
the catalog's host drivers) and once in Python with ``numba.cuda.jit``, mirroring them
statement by statement (run by Numba's simulator, ``NUMBA_ENABLE_CUDASIM=1``):

* ``histogram/privatized`` -- seed 002's ``histogram_privatized``: shared
  ``private_hist[256]``, grid-stride loop of shared ``atomicAdd``, global merge.  Two
  rows: the catalog's launch (a capped grid, many elements per thread) and one element
  per thread (grid = ceil(n / 256));
* ``histogram/atomic-u8`` -- seed 002's ``histogram_atomic``: one global ``atomicAdd``
  per byte; ``histogram/atomic`` -- seed 000's ``histograma_atomico``, the same on ints;
* ``reduction/contiguous`` -- seed 001's ``reduceShared`` with the contiguous
  ``t < stride`` loop (each block sums ``2 * blockDim.x`` floats), relaunched on the
  block sums until one value is left.

Numba's simulator runs one OS thread per CUDA thread (about 1,400 threads/s), so it
gets a few thousand threads and simt gets 2^20 elements.  Both report elements per
second over the whole host driver (copies in, launches, copy back), timed inside one
process per backend (simt: median of ``--repeats`` after an untimed warm-up run; Numba:
one run after a warm-up launch); the ratio is simt / numba.  Numba's simulator pays
mostly per *thread*, so each Numba launch copies simt's elements per thread (read from
the launches the simt driver made) with fewer blocks, and takes the same input
generator (``entry.inputs``).  simt runs with the sanitizer on, as ``simt run`` does;
the figure without it is printed too.

Numba is not a dependency of the project.  The Numba half runs in a subprocess with an
interpreter that has it: ``--numba-python PATH``, else this interpreter if it can
import numba (``--install`` pip-installs it here first), else a private virtual
environment under ``~/.cache/simt-bench/numba-venv`` (``$SIMT_BENCH_CACHE`` overrides
the folder), created and filled from PyPI on first use.

Last, for every ``histogram/*`` catalog id, the whole-process wall time of
``simt run ID --n 1048576 --json`` (Python start-up included) against the 5 s target.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 1000.0
TARGET_WHOLE_S = 5.0
NUM_BINS = 256

# The benchmarked rows.  key: row name; id: catalog entry simt runs; kind: the Numba
# kernel mirroring it; shape: "catalog" (the entry's own launch configuration, copied in
# elements per thread by the Numba launch) or "one-per-thread" (grid = ceil(n / block)
# on both sides, the shape of the seeds' one-element-per-thread kernels).
BENCHES = [
    {"key": "histogram/privatized", "id": "histogram/privatized",
     "kind": "histogram_privatized", "shape": "catalog", "elems": 1.0},
    {"key": "histogram/privatized@1", "id": "histogram/privatized",
     "kind": "histogram_privatized", "shape": "one-per-thread", "elems": 1.0},
    {"key": "histogram/atomic-u8", "id": "histogram/atomic-u8",
     "kind": "histogram_atomic", "shape": "catalog", "elems": 1.0},
    {"key": "histogram/atomic", "id": "histogram/atomic",
     "kind": "histograma_atomico", "shape": "catalog", "elems": 1.0},
    {"key": "reduction/contiguous", "id": "reduction/contiguous",
     "kind": "reduce_contiguous", "shape": "catalog", "elems": 2.0},
]
NOTES = {
    "histogram/privatized": "seed 002 histogram_privatized, catalog grid (capped, grid-stride)",
    "histogram/privatized@1": "same kernel, grid = ceil(n/256): one element per thread",
    "histogram/atomic-u8": "seed 002 histogram_atomic (unsigned char data)",
    "histogram/atomic": "seed 000 histograma_atomico (int data)",
    "reduction/contiguous": "seed 001 reduceShared, t < stride loop, relaunched to one value",
}


# --------------------------------------------------------------------------------------
# Numba half (runs in the subprocess; imports numpy and numba only)
# --------------------------------------------------------------------------------------

def _numba_kernels():
    # The simulator swaps the `cuda` module in a kernel's *globals* for its fake one
    # (threadIdx etc.), so `cuda` must be a module global here, not a local.
    global cuda
    from numba import cuda, float32, int32

    @cuda.jit
    def histograma_atomico(dados, histograma, N, numChunks):
        i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        if i < N:
            chunk = dados[i]
            cuda.atomic.add(histograma, chunk, 1)

    @cuda.jit
    def histogram_atomic(data, histogram, n):
        i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        if i < n:
            cuda.atomic.add(histogram, data[i], 1)

    @cuda.jit
    def histogram_privatized(data, histogram, n):
        private_hist = cuda.shared.array(NUM_BINS, int32)
        if cuda.threadIdx.x < NUM_BINS:
            private_hist[cuda.threadIdx.x] = 0
        cuda.syncthreads()
        i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        stride = cuda.blockDim.x * cuda.gridDim.x
        while i < n:
            cuda.atomic.add(private_hist, data[i], 1)
            i += stride
        cuda.syncthreads()
        if cuda.threadIdx.x < NUM_BINS:
            cuda.atomic.add(histogram, cuda.threadIdx.x, private_hist[cuda.threadIdx.x])

    @cuda.jit
    def reduce_contiguous(input, output, N):
        partialSum = cuda.shared.array(0, float32)          # extern __shared__
        t = cuda.threadIdx.x
        start = 2 * cuda.blockIdx.x * cuda.blockDim.x
        if start + t < N:
            partialSum[t] = input[start + t]
        else:
            partialSum[t] = float32(0.0)
        if start + cuda.blockDim.x + t < N:
            partialSum[cuda.blockDim.x + t] = input[start + cuda.blockDim.x + t]
        else:
            partialSum[cuda.blockDim.x + t] = float32(0.0)
        stride = cuda.blockDim.x
        while stride > 0:                                    # for (stride = blockDim.x; ...; stride /= 2)
            cuda.syncthreads()
            if t < stride:
                partialSum[t] += partialSum[t + stride]
            stride //= 2
        cuda.syncthreads()
        if t == 0:
            output[cuda.blockIdx.x] = partialSum[0]

    return {"histograma_atomico": histograma_atomico,
            "histogram_atomic": histogram_atomic,
            "histogram_privatized": histogram_privatized,
            "reduce_contiguous": reduce_contiguous}


def _numba_run_one(kernels, spec, seed):
    """Run one benchmark as the catalog's host driver does; time it, check it."""
    import numpy as np
    from numba import cuda

    kind, n, block, grid = spec["kind"], int(spec["n"]), int(spec["block"]), int(spec["grid"])
    rng = np.random.default_rng(seed)
    k = kernels[kind]
    launches = []
    if spec.get("data"):                       # the catalog's own input generator
        x = np.load(spec["data"])[:n]
        assert len(x) == n, (len(x), n)
    elif kind == "reduce_contiguous":
        x = rng.random(n, dtype=np.float32)
    else:
        x = rng.integers(0, NUM_BINS, n).astype(np.int32 if kind == "histograma_atomico" else np.uint8)
    if kind != "reduce_contiguous":
        t0, c0 = time.perf_counter(), time.process_time()
        d_data = cuda.to_device(x)
        d_hist = cuda.to_device(np.zeros(NUM_BINS, np.int32))
        if kind == "histograma_atomico":
            k[grid, block](d_data, d_hist, np.int32(n), np.int32(NUM_BINS))
        else:
            k[grid, block](d_data, d_hist, np.int32(n))
        launches.append(f"<<<{grid}, {block}>>>")
        out = d_hist.copy_to_host()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        ref = np.bincount(x.astype(np.int64), minlength=NUM_BINS).astype(np.int32)
        correct = bool(np.array_equal(out, ref))
        detail = f"{int(out.sum())} of {n} counted"
    else:
        shared = 2 * block * 4
        t0, c0 = time.perf_counter(), time.process_time()
        cur, m = cuda.to_device(x), n
        while True:                            # relaunch on the block sums, like the driver
            g = (m + 2 * block - 1) // (2 * block)
            d_out = cuda.to_device(np.zeros(g, np.float32))
            k[g, block, 0, shared](cur, d_out, np.int32(m))
            launches.append(f"<<<{g}, {block}, {shared}>>>")
            if g == 1 or not spec.get("recursive"):
                break
            cur, m = d_out, g
        partial = d_out.copy_to_host()
        total = np.float32(partial.sum(dtype=np.float32))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        ref = float(x.sum(dtype=np.float64))
        correct = bool(abs(float(total) - ref) <= 1e-5 * max(1.0, abs(ref)))
        detail = f"sum {float(total):.7g} vs {ref:.7g}"
    return {"kind": kind, "n": n, "block": block, "grid": grid, "launches": launches,
            "threads": grid * block, "wall_s": wall, "elements_per_s": n / wall, "cpu_s": cpu,
            "correct": correct, "detail": detail}


def _numba_sized(kernels, spec, seed, min_time, repeats):
    """Run a spec; if it took less than ``min_time``, scale its grid (and n, keeping the
    elements per thread) by up to ``spec["max_scale"]`` and time that instead.  Then
    ``repeats`` runs at the final size; the median counts."""
    import statistics as st
    first = _numba_run_one(kernels, spec, seed)
    runs = [first]
    scale = 1
    if first["wall_s"] < min_time and spec.get("max_scale", 1) > 1:
        scale = min(int(spec["max_scale"]), math.ceil(1.2 * min_time / first["wall_s"]))
        if scale > 1:
            spec = dict(spec, n=spec["n"] * scale, grid=spec["grid"] * scale)
            runs = [_numba_run_one(kernels, spec, seed)]
    while len(runs) < repeats:
        runs.append(_numba_run_one(kernels, spec, seed))
    best = sorted(runs, key=lambda r: r["wall_s"])[len(runs) // 2]
    res = dict(best, times_s=[r["wall_s"] for r in runs], scaled_by=scale,
               wall_s=st.median(r["wall_s"] for r in runs),
               cpu_s=st.median(r["cpu_s"] for r in runs))
    res["elements_per_s"] = res["n"] / res["wall_s"]
    res["correct"] = all(r["correct"] for r in runs) and first["correct"]
    if scale > 1:
        res["first_run"] = {k: first[k] for k in ("n", "grid", "wall_s", "elements_per_s")}
    return res


def numba_worker(spec_json: str) -> None:
    """Entry point of the subprocess: run the specs, print one JSON object."""
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    import numpy as np
    import numba
    from numba import cuda

    spec = json.loads(spec_json)
    kernels = _numba_kernels()
    # One tiny launch of each kernel first, so import-time and first-call costs stay out.
    warm = np.zeros(NUM_BINS, np.int32)
    kernels["histogram_atomic"][1, 32](np.zeros(32, np.uint8), warm, np.int32(32))
    kernels["histograma_atomico"][1, 32](np.zeros(32, np.int32), warm, np.int32(32),
                                         np.int32(NUM_BINS))
    kernels["histogram_privatized"][1, 32](np.zeros(32, np.uint8), warm, np.int32(32))
    kernels["reduce_contiguous"][1, 32, 0, 256](np.zeros(64, np.float32),
                                                np.zeros(1, np.float32), np.int32(64))
    results = {}
    for key, s in spec["runs"].items():
        results[key] = _numba_sized(kernels, s, spec.get("seed", 0), spec.get("min_time", 0.0),
                                    spec.get("repeats", 1))
    print(json.dumps({"numba_version": numba.__version__, "numpy_version": np.__version__,
                      "simulator": bool(cuda.simulator_enabled if hasattr(cuda, "simulator_enabled")
                                        else os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"),
                      "python": sys.executable, "results": results}))


# --------------------------------------------------------------------------------------
# Finding (or installing) an interpreter with numba
# --------------------------------------------------------------------------------------

def _has_numba(python: str) -> bool:
    r = subprocess.run([python, "-c", "import numba, numpy"], capture_output=True)
    return r.returncode == 0


def _cache_dir() -> Path:
    if os.environ.get("SIMT_BENCH_CACHE"):
        return Path(os.environ["SIMT_BENCH_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "simt-bench"


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def numba_python(args) -> str:
    """Path of a Python that can import numba, installing it if need be."""
    if args.numba_python:
        if not _has_numba(args.numba_python):
            sys.exit(f"error: {args.numba_python} cannot import numba")
        return args.numba_python
    if _has_numba(sys.executable):
        return sys.executable
    if args.install:
        _say("installing numba into this environment (pip install numba) ...")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "numba"], check=True)
        return sys.executable
    venv = _cache_dir() / "numba-venv"
    py = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if py.exists() and _has_numba(str(py)):
        return str(py)
    _say(f"numba not found; creating {venv} and installing numba from PyPI (once) ...")
    venv.parent.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)])
    if r.returncode != 0 or not py.exists():
        sys.exit("error: could not create a virtual environment for numba "
                 "(python3-venv missing?); rerun with --install to pip-install numba here, "
                 "or pass --numba-python PATH")
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "numba"])
    if r.returncode != 0 or not _has_numba(str(py)):
        sys.exit("error: pip could not install numba into " + str(venv))
    return str(py)


def run_numba(args, runs: dict) -> dict:
    py = numba_python(args)
    spec = json.dumps({"runs": runs, "seed": args.seed, "min_time": args.numba_min_time,
                       "repeats": args.numba_repeats})
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    cmd = [py, str(Path(__file__).resolve()), "--numba-worker", spec]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        sys.exit("error: the Numba half failed")
    return json.loads(r.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------------------
# simt half (this process)
# --------------------------------------------------------------------------------------

def _simt_backend_class():
    from kernels_cuda.backend import EmulatorBackend
    from simt.launch import Dim3

    class RecordingBackend(EmulatorBackend):
        """EmulatorBackend that remembers each launch's kernel and configuration and
        shares parsed modules across instances (so repeats time emulation, not parsing)."""
        module_cache: dict = {}

        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.calls: list[dict] = []
            self._modules = RecordingBackend.module_cache

        def launch(self, source, kernel, grid, block, args, shared_mem=0):
            self.calls.append({"kernel": kernel, "grid": str(Dim3.of(grid)),
                               "block": str(Dim3.of(block)), "shared_mem": int(shared_mem)})
            return super().launch(source, kernel, grid, block, args, shared_mem)

    return RecordingBackend


def _one_per_thread_driver(kernel):
    """A histogram_* (data, histogram, n) driver with one element per thread."""
    import numpy as np

    def driver(be, inp, e):
        n = len(inp["data"])
        data = be.to_device(inp["data"])
        hist = be.zeros(NUM_BINS, np.int32)
        be.launch(e.source, kernel, -(-n // e.block), e.block, [data, hist, np.int32(n)])
        return {"hist": be.to_host(hist)}
    return driver


def _entry(bench: dict):
    """The catalog entry a row runs (with a one-element-per-thread driver if asked)."""
    import dataclasses
    from kernels_cuda import catalog
    entry = catalog.get(bench["id"])
    if bench["shape"] == "one-per-thread":
        entry = dataclasses.replace(entry, driver=_one_per_thread_driver(entry.kernels[0]))
    return entry


def run_simt(args) -> dict:
    from kernels_cuda import catalog
    Backend = _simt_backend_class()
    results = {}
    for bench in BENCHES:
        entry = _entry(bench)
        inputs = entry.inputs(args.simt_n, seed=args.seed)
        ref = entry.reference(inputs)
        row = {"id": entry.id, "source": entry.source, "kernel": entry.kernels[0],
               "shape": bench["shape"], "n": args.simt_n, "policy": entry.policy}
        for sanitize in (True, False):
            mk = lambda: Backend(seed=args.seed, policy=entry.policy, sanitize=sanitize)  # noqa: E731
            be = mk()                               # untimed warm-up: parse, check
            out = entry.run(be, inputs)
            correct = bool(catalog.compare(entry, out, ref))
            times, cpus = [], []
            for _ in range(args.repeats):
                be = mk()
                t0, c0 = time.perf_counter(), time.process_time()
                entry.run(be, inputs)
                times.append(time.perf_counter() - t0)
                cpus.append(time.process_time() - c0)
            wall = statistics.median(times)
            row["sanitize" if sanitize else "no_sanitize"] = {
                "wall_s": wall, "times_s": times, "elements_per_s": args.simt_n / wall,
                "cpu_s": statistics.median(cpus), "correct": correct}
            row["launches"] = be.calls
            row["warp_instructions"] = sum(int(getattr(r, "warp_instructions", 0) or 0)
                                           for r in be.launches)
        results[bench["key"]] = row
        _say(f"  simt {bench['key']}: {row['sanitize']['elements_per_s']:.3g} el/s")
    return results


def numba_specs(args, simt_results: dict | None, data_dir: Path | None) -> dict:
    """One Numba launch per row, copying simt's elements per thread with fewer blocks."""
    runs = {}
    for bench in BENCHES:
        block, elems, recursive = 256, bench["elems"], bench["kind"] == "reduce_contiguous"
        row = (simt_results or {}).get(bench["key"])
        if row and row.get("launches"):
            from simt.launch import Dim3
            first = row["launches"][0]
            g, bl = Dim3.of(first["grid"]), Dim3.of(first["block"])
            block = bl.size
            elems = row["n"] / (g.size * bl.size)
            recursive = sum(1 for L in row["launches"] if L["kernel"] == first["kernel"]) > 1
        grid = max(1, min(args.numba_threads // block,
                          int(args.numba_max_n // max(1.0, elems * block))))
        n = max(1, int(round(elems * grid * block)))
        if bench["kind"] == "reduce_contiguous":
            grid = -(-n // (2 * block))
        elif bench["kind"] != "histogram_privatized" or bench["shape"] == "one-per-thread":
            grid = -(-n // block)
        max_scale = max(1, min(args.numba_threads * 4 // (grid * block),
                               int(args.numba_max_n * 4 // n)))
        spec = {"kind": bench["kind"], "n": n, "block": block, "grid": grid,
                "recursive": recursive, "elements_per_thread": elems, "max_scale": max_scale}
        if data_dir is not None and simt_results:
            import numpy as np
            inp = _entry(bench).inputs(n * max_scale, seed=args.seed)
            (arr,) = inp.values()
            path = data_dir / (bench["key"].replace("/", "_").replace("@", "_") + ".npy")
            np.save(path, arr)
            spec["data"] = str(path)
        runs[bench["key"]] = spec
    return runs


# --------------------------------------------------------------------------------------
# whole-process `simt run ID --n N`
# --------------------------------------------------------------------------------------

def _simt_command() -> list[str]:
    exe = Path(sys.executable).parent / ("simt.exe" if os.name == "nt" else "simt")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("simt")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from tui.cli import main; sys.exit(main())"]


def run_whole_process(args) -> list[dict]:
    from kernels_cuda import catalog
    ents = [e for e in catalog.entries() if e.id.startswith("histogram/")]
    rows = []
    base = _simt_command()
    for e in ents:
        eid = e.id
        cmd = base + ["run", eid, "--n", str(args.whole_n), "--json"]
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=str(ROOT),
                           stdin=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        correct = None
        try:
            correct = json.loads(r.stdout).get("correct")
        except Exception:
            pass
        rows.append({"id": eid, "n": args.whole_n, "wall_s": wall, "rc": r.returncode,
                     "correct": correct, "expect_correct": e.expect_correct,
                     "under_target": wall < TARGET_WHOLE_S,
                     "stderr_tail": r.stderr.strip()[-300:] if r.returncode else ""})
    return rows


# --------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------

def _si(x: float) -> str:
    for unit, f in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= f:
            return f"{x / f:.3g}{unit}"
    return f"{x:.3g}"


def _launch_str(L: dict) -> str:
    return f"<<<{L['grid']}, {L['block']}{', ' + str(L['shared_mem']) if L['shared_mem'] else ''}>>>"


def report_text(rep: dict) -> str:
    L = []
    L.append(f"$ {rep['command']}")
    m = rep["machine"]
    nb_v = rep.get("numba", {}).get("numba_version", "-")
    L.append(f"# {rep['date']}  {m['cpu']} ({m['cpus']} CPUs)  Python {m['python']}  "
             f"numba {nb_v} (NUMBA_ENABLE_CUDASIM=1)  load average at start "
             f"{m.get('loadavg_at_start')}")
    L.append("")
    kern = rep.get("kernels", {})
    if any("numba" in k or "simt" in k for k in kern.values()):
        L.append("Elements per second over the whole host driver (copy in, launches, copy back).")
        L.append("(by CPU s): the same ratio from process CPU time, less sensitive to other load.")
        L.append(f"simt: sanitizer on (as `simt run`), median of {rep['repeats']}; "
                 f"numba simulator: median of {rep.get('numba_repeats', 1)}, same elements "
                 "per thread as simt's launch.")
        hdr = (f"{'row':24} {'numba n':>8} {'numba launch':>18} {'numba s':>8} "
               f"{'numba el/s':>10} | {'simt n':>8} {'simt launch':>18} {'simt s':>7} "
               f"{'simt el/s':>10} | {'simt/numba':>10} {'(by CPU s)':>10}  target >= {TARGET_RATIO:.0f}x")
        L.append(hdr)
        L.append("-" * len(hdr))
        for key, k in kern.items():
            nb, sm = k.get("numba"), k.get("simt")
            nb_cols = (f"{nb['n']:>8} {nb['launches'][0]:>18} {nb['wall_s']:>8.2f} "
                       f"{_si(nb['elements_per_s']):>10}") if nb else \
                f"{'-':>8} {'':>18} {'':>8} {'-':>10}"
            if sm:
                lstr = _launch_str(sm["launches"][0]) if sm.get("launches") else "-"
                sm_cols = (f"{sm['n']:>8} {lstr:>18} {sm['sanitize']['wall_s']:>7.3f} "
                           f"{_si(sm['sanitize']['elements_per_s']):>10}")
            else:
                sm_cols = f"{'-':>8} {'':>18} {'':>7} {'-':>10}"
            ratio = k.get("ratio")
            rstr = (f"{ratio:>9.0f}x {k['ratio_cpu_time']:>9.0f}x" if ratio
                    else f"{'-':>10} {'-':>10}")
            verdict = ("ok" if ratio >= TARGET_RATIO else "BELOW") if ratio else ""
            L.append(f"{key:24} {nb_cols} | {sm_cols} | {rstr}  {verdict}")
        L.append("")
        for key, k in kern.items():
            nb, sm = k.get("numba"), k.get("simt")
            L.append(f"  {key}: {NOTES.get(key, '')}")
            if nb:
                L.append(f"    numba: correct={nb['correct']} ({nb['detail']}); {nb['threads']} threads "
                         f"({nb['threads'] / nb['wall_s']:.0f} threads/s), "
                         f"{nb['n'] / nb['threads']:.3g} elements/thread, "
                         f"launches {' '.join(nb['launches'])}"
                         + (f"; grown x{nb['scaled_by']} after a {nb['first_run']['wall_s']:.2f} s "
                            f"run of n={nb['first_run']['n']}" if nb.get("scaled_by", 1) > 1 else ""))
            if sm:
                z = sm["no_sanitize"]
                more = len(sm["launches"]) - 3
                L.append(f"    simt:  correct={sm['sanitize']['correct']}; {sm['kernel']} from "
                         f"{sm['source']}, policy {sm['policy']}, {sm['n'] / _threads(sm['launches'][0]):.3g} "
                         f"elements/thread, launches "
                         + " ".join(_launch_str(x) for x in sm["launches"][:3])
                         + (f" +{more} more" if more > 0 else "")
                         + f"; runs {', '.join(f'{t:.3f}' for t in sm['sanitize']['times_s'])} s")
                L.append(f"           without sanitizer {z['wall_s']:.3f} s = "
                         f"{_si(z['elements_per_s'])} el/s"
                         + (f" ({z['elements_per_s'] / nb['elements_per_s']:.0f}x numba)" if nb else ""))
        L.append("")
    whole = rep.get("whole_process")
    if whole:
        L.append(f"Whole process `simt run ID --n {whole[0]['n']} --json` "
                 f"(wall clock incl. Python start-up), target < {TARGET_WHOLE_S:.0f} s")
        L.append(f"{'id':32} {'seconds':>8}  {'rc':>3}  {'correct':>7}  {'expected':>8}  target")
        for w in whole:
            ok = "ok" if w["under_target"] else "OVER"
            if w["rc"] != 0:
                ok += f" (exit {w['rc']})"
            L.append(f"{w['id']:32} {w['wall_s']:>8.2f}  {w['rc']:>3}  {str(w['correct']):>7}  {str(w['expect_correct']):>8}  {ok}")
            if w.get("stderr_tail"):
                L.append("    " + w["stderr_tail"].replace("\n", "\n    "))
        L.append("")
    return "\n".join(L)


def _threads(launch: dict) -> int:
    from simt.launch import Dim3
    return Dim3.of(launch["grid"]).size * Dim3.of(launch["block"]).size


def _loadavg():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simt-n", type=int, default=1 << 20, help="elements for simt (2^20)")
    ap.add_argument("--numba-threads", type=int, default=4096,
                    help="most CUDA threads in a Numba launch (~1,400/s on the simulator)")
    ap.add_argument("--numba-max-n", type=int, default=1 << 17,
                    help="most elements in a Numba launch (rows with many elements per thread)")
    ap.add_argument("--numba-min-time", type=float, default=1.0,
                    help="a Numba run shorter than this (s) is redone with up to 4x the "
                         "threads/elements, so it is long enough to time")
    ap.add_argument("--numba-repeats", type=int, default=1, help="Numba repeats (median)")
    ap.add_argument("--repeats", type=int, default=3, help="simt repeats (median)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--whole-n", type=int, default=1 << 20,
                    help="--n for the whole-process `simt run` timings")
    ap.add_argument("--skip-numba", action="store_true")
    ap.add_argument("--skip-simt", action="store_true")
    ap.add_argument("--skip-whole", action="store_true",
                    help="skip the whole-process `simt run` timings")
    ap.add_argument("--numba-python", metavar="PATH", help="a Python that has numba")
    ap.add_argument("--install", action="store_true",
                    help="pip-install numba into this environment instead of a private venv")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--numba-worker", metavar="SPEC", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.numba_worker:
        numba_worker(args.numba_worker)
        return 0

    sys.path.insert(0, str(ROOT))
    cmdline = "python benchmarks/bench_numba.py" + "".join(
        " " + a for a in (sys.argv[1:] if argv is None else argv))
    rep = {"command": cmdline, "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
           "machine": {"cpu": _cpu_name(), "cpus": os.cpu_count(),
                       "python": platform.python_version(), "platform": platform.platform(),
                       "loadavg_at_start": _loadavg()},
           "repeats": args.repeats, "numba_repeats": args.numba_repeats, "target_ratio": TARGET_RATIO,
           "target_whole_s": TARGET_WHOLE_S, "kernels": {}}

    if not args.skip_simt or not args.skip_whole:
        try:
            import simt
            simt.Module  # noqa: B018  -- the core, not just the package folder
            from kernels_cuda import catalog
            catalog.get(BENCHES[0]["id"])
        except Exception as e:  # the core or the catalog is not there (yet)
            _say(f"simt half skipped: {type(e).__name__}: {e}")
            args.skip_simt = args.skip_whole = True

    simt_res = None
    if not args.skip_simt:
        _say(f"simt: {len(BENCHES)} rows at n = {args.simt_n} ...")
        simt_res = run_simt(args)
    numba_res = None
    if not args.skip_numba:
        import tempfile
        with tempfile.TemporaryDirectory(prefix="simt-bench-") as tmp:
            runs = numba_specs(args, simt_res, Path(tmp))
            _say("numba simulator: " + ", ".join(f"{k} n={v['n']}" for k, v in runs.items()) + " ...")
            numba_res = run_numba(args, runs)
        rep["numba"] = {k: v for k, v in numba_res.items() if k != "results"}

    for bench in BENCHES:
        key, row = bench["key"], {"note": NOTES.get(bench["key"], "")}
        if numba_res:
            row["numba"] = numba_res["results"][key]
        if simt_res:
            row["simt"] = simt_res[key]
        if numba_res and simt_res:
            row["ratio"] = (simt_res[key]["sanitize"]["elements_per_s"]
                            / numba_res["results"][key]["elements_per_s"])
            row["ratio_no_sanitize"] = (simt_res[key]["no_sanitize"]["elements_per_s"]
                                        / numba_res["results"][key]["elements_per_s"])
            row["meets_target"] = row["ratio"] >= TARGET_RATIO
            nb, sm = numba_res["results"][key], simt_res[key]["sanitize"]
            row["ratio_cpu_time"] = (args.simt_n / sm["cpu_s"]) / (nb["n"] / nb["cpu_s"])
        rep["kernels"][key] = row

    if not args.skip_whole:
        _say(f"whole process: simt run histogram/* --n {args.whole_n} ...")
        rep["whole_process"] = run_whole_process(args)

    if args.json:
        print(json.dumps(rep, indent=2))
    else:
        print(report_text(rep))
    return 0


if __name__ == "__main__":
    sys.exit(main())
