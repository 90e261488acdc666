#!/usr/bin/env python3
"""simt against Numba's CUDA simulator, side by side on the same kernels.

    python benchmarks/bench_numba.py            # table
    python benchmarks/bench_numba.py --json     # one JSON object

Three kernels, written once in CUDA C (the catalog's .cu files, run by simt) and once
in Python with ``numba.cuda.jit`` mirroring them statement by statement (run by Numba's
simulator, ``NUMBA_ENABLE_CUDASIM=1``):

* ``histogram/privatized`` -- seed 002's ``histogram_privatized``: shared
  ``private_hist[256]``, grid-stride loop of shared ``atomicAdd``, global merge;
* ``histogram/atomic``     -- seed 002's ``histogram_atomic``: one global ``atomicAdd``
  per element;
* ``reduction/contiguous`` -- seed 001's ``reduceShared`` with the contiguous
  ``t < stride`` loop (each block sums ``2 * blockDim.x`` floats).

Numba's simulator runs one OS thread per CUDA thread (about 1,400 threads/s), so it
gets a few thousand elements and simt gets 2^20.  Both report elements per second over
the whole host driver (copies in, launches, copy back), timed inside one process per
backend; the ratio is simt / numba.  Numba's simulator pays per *thread*, not per
element, so the Numba launch mirrors simt's elements per thread (taken from the launch
configuration the simt driver actually used) with fewer blocks.

Numba is not a dependency of the project.  The Numba half runs in a subprocess with an
interpreter that has it: ``--numba-python PATH``, else this interpreter if it can
import numba (``--install`` pip-installs it here first), else a private virtual
environment under ``~/.cache/simt-bench/numba-venv`` (``$SIMT_BENCH_CACHE`` overrides
the folder), created and filled from PyPI on first use.

Last, for every ``histogram/*`` catalog id, the whole-process wall time of
``simt run ID --n 1048576`` (Python start-up included) against the 5 s target.
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

# The benchmarked kernels: catalog id -> how the Numba half mirrors it.
#   kind:   which Numba kernel
#   elems:  default elements per thread when no simt launch is there to copy
BENCHES = {
    "histogram/privatized": {"kind": "histogram_privatized", "elems": 1.0},
    "histogram/atomic": {"kind": "histogram_atomic", "elems": 1.0},
    "reduction/contiguous": {"kind": "reduce_contiguous", "elems": 2.0},
}

# Used only when the catalog (kernels_cuda/fam_*.py) has no entry for an id: the seeds'
# kernels as written, launched by the small drivers below.
FALLBACK_CU = r"""
#define NUM_BINS 256
extern "C" {
__global__ void histogram_atomic(unsigned char *data, int *histogram, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&histogram[data[i]], 1);
    }
}

__global__ void histogram_privatized(unsigned char *data, int *histogram, int n) {
    __shared__ int private_hist[NUM_BINS];
    if (threadIdx.x < NUM_BINS) {
        private_hist[threadIdx.x] = 0;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    while (i < n) {
        atomicAdd(&private_hist[data[i]], 1);
        i += stride;
    }
    __syncthreads();
    if (threadIdx.x < NUM_BINS) {
        atomicAdd(&histogram[threadIdx.x], private_hist[threadIdx.x]);
    }
}

__global__ void reduceShared(float *input, float *output, int N) {
    extern __shared__ float partialSum[];
    unsigned int t = threadIdx.x;
    unsigned int start = 2 * blockIdx.x * blockDim.x;
    if (start + t < N)
        partialSum[t] = input[start + t];
    else
        partialSum[t] = 0.0f;
    if (start + blockDim.x + t < N)
        partialSum[blockDim.x + t] = input[start + blockDim.x + t];
    else
        partialSum[blockDim.x + t] = 0.0f;
    for (unsigned int stride = blockDim.x; stride > 0; stride /= 2) {
        __syncthreads();
        if (t < stride)
            partialSum[t] += partialSum[t + stride];
    }
    __syncthreads();
    if (t == 0)
        output[blockIdx.x] = partialSum[0];
}
}
"""


# --------------------------------------------------------------------------------------
# Numba half (runs in the subprocess; imports numpy and numba only)
# --------------------------------------------------------------------------------------

def _numba_kernels():
    # The simulator swaps the `cuda` module in a kernel's *globals* for its fake one
    # (threadIdx etc.), so `cuda` must be a module global here, not a local.
    global cuda
    from numba import cuda, float32, int32

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

    return {"histogram_atomic": histogram_atomic,
            "histogram_privatized": histogram_privatized,
            "reduce_contiguous": reduce_contiguous}


def _numba_run_one(kernels, spec, seed):
    """Run one benchmark as the host driver would; return timing and correctness."""
    import numpy as np
    from numba import cuda

    kind, n, block, grid = spec["kind"], int(spec["n"]), int(spec["block"]), int(spec["grid"])
    rng = np.random.default_rng(seed)
    k = kernels[kind]
    launches = []
    if kind.startswith("histogram"):
        data = rng.integers(0, NUM_BINS, n, dtype=np.uint8)
        t0 = time.perf_counter()
        d_data = cuda.to_device(data)
        d_hist = cuda.to_device(np.zeros(NUM_BINS, np.int32))
        k[grid, block](d_data, d_hist, np.int32(n))
        launches.append(f"<<<{grid}, {block}>>>")
        out = d_hist.copy_to_host()
        wall = time.perf_counter() - t0
        ref = np.bincount(data, minlength=NUM_BINS).astype(np.int32)
        correct = bool(np.array_equal(out, ref))
        detail = f"{int(out.sum())} of {n} counted"
    else:
        x = rng.random(n, dtype=np.float32)
        shared = 2 * block * 4
        t0 = time.perf_counter()
        d_x = cuda.to_device(x)
        cur, m = d_x, n
        while True:
            g = (m + 2 * block - 1) // (2 * block)
            d_out = cuda.to_device(np.zeros(g, np.float32))
            k[g, block, 0, shared](cur, d_out, np.int32(m))
            launches.append(f"<<<{g}, {block}, {shared}>>>")
            if g == 1 or not spec.get("recursive"):
                break
            cur, m = d_out, g
        partial = d_out.copy_to_host()
        total = np.float32(partial.sum(dtype=np.float32)) if len(partial) > 1 else partial[0]
        wall = time.perf_counter() - t0
        ref = np.float64(x.sum(dtype=np.float64))
        correct = bool(abs(float(total) - ref) <= 1e-4 * max(1.0, abs(ref)))
        detail = f"sum {float(total):.6g} vs {ref:.6g}"
    return {"kind": kind, "n": n, "block": block, "grid": grid, "launches": launches,
            "threads": grid * block, "wall_s": wall, "elements_per_s": n / wall,
            "correct": correct, "detail": detail}


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
    kernels["histogram_privatized"][1, 32](np.zeros(32, np.uint8), warm, np.int32(32))
    kernels["reduce_contiguous"][1, 32, 0, 256](np.zeros(64, np.float32),
                                                np.zeros(1, np.float32), np.int32(64))
    results = {}
    for key, s in spec["runs"].items():
        results[key] = _numba_run_one(kernels, s, spec.get("seed", 0))
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
    spec = json.dumps({"runs": runs, "seed": args.seed})
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

    class RecordingBackend(EmulatorBackend):
        """EmulatorBackend that remembers each launch's kernel and configuration and
        shares parsed modules across instances (so repeats time emulation, not parsing)."""
        module_cache: dict = {}

        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.calls: list[tuple] = []
            self._modules = RecordingBackend.module_cache

        def launch(self, source, kernel, grid, block, args, shared_mem=0):
            from simt.launch import Dim3
            self.calls.append((kernel, Dim3.of(grid), Dim3.of(block), int(shared_mem)))
            return super().launch(source, kernel, grid, block, args, shared_mem)

    return RecordingBackend


class _FallbackEntry:
    """Stands in for a catalog Entry when the catalog has none for an id."""

    def __init__(self, bench_id: str):
        import numpy as np
        self.id = bench_id
        self.policy = "lockstep"
        self.float_rtol = 1e-5 if bench_id.startswith("reduction") else None
        self._np = np

    def inputs(self, n, seed=0):
        np = self._np
        rng = np.random.default_rng(seed)
        if self.id.startswith("histogram"):
            return {"data": rng.integers(0, NUM_BINS, n, dtype=np.uint8)}
        return {"input": rng.random(n, dtype=np.float32)}

    def reference(self, inputs):
        np = self._np
        if self.id.startswith("histogram"):
            return {"histogram": np.bincount(inputs["data"], minlength=NUM_BINS).astype(np.int32)}
        return {"sum": np.array([inputs["input"].sum(dtype=np.float64)], np.float32)}

    def run(self, backend, inputs):
        np = self._np
        src = _fallback_source()
        block = 256
        if self.id.startswith("histogram"):
            n = len(inputs["data"])
            d = backend.to_device(inputs["data"])
            h = backend.zeros(NUM_BINS, np.int32)
            kern = "histogram_privatized" if self.id.endswith("privatized") else "histogram_atomic"
            grid = (n + block - 1) // block
            backend.launch(src, kern, grid, block, [d, h, np.int32(n)])
            return {"histogram": backend.to_host(h)}
        x = inputs["input"]
        n = len(x)
        d = backend.to_device(x)
        g = (n + 2 * block - 1) // (2 * block)
        out = backend.zeros(g, np.float32)
        backend.launch(src, "reduceShared", g, block, [d, out, np.int32(n)], 2 * block * 4)
        return {"sum": np.array([backend.to_host(out).sum(dtype=np.float32)], np.float32)}


def _fallback_source() -> str:
    import tempfile
    p = Path(tempfile.gettempdir()) / "simt_bench_numba_fallback.cu"
    if not p.exists() or p.read_text() != FALLBACK_CU:
        p.write_text(FALLBACK_CU)
    return str(p)


def _entry(bench_id: str):
    """The catalog entry for an id, or a fallback driving the seeds' kernels directly."""
    try:
        from kernels_cuda import catalog
        return catalog.get(bench_id), "catalog"
    except Exception:
        return _FallbackEntry(bench_id), "fallback (kernels in this script)"


def _compare(entry, out, ref) -> bool:
    try:
        from kernels_cuda.catalog import compare
        return bool(compare(entry, out, ref))
    except Exception:
        import numpy as np
        return all(np.allclose(out[k], v, rtol=entry.float_rtol or 0, atol=entry.float_rtol or 0)
                   for k, v in ref.items())


def run_simt(args) -> dict:
    import numpy as np  # noqa: F401  (simt needs it anyway)
    import simt  # noqa: F401  -- fail early with a clear message if the core is missing
    Backend = _simt_backend_class()
    results = {}
    for bench_id in BENCHES:
        entry, origin = _entry(bench_id)
        inputs = entry.inputs(args.simt_n, seed=args.seed)
        ref = entry.reference(inputs)
        row = {"id": bench_id, "origin": origin, "n": args.simt_n}
        for sanitize in ([False, True] if args.sanitize_too else [False]):
            # untimed warm-up: parses the .cu file once, checks correctness
            be = Backend(seed=args.seed, policy=getattr(entry, "policy", "lockstep"),
                         sanitize=sanitize)
            out = entry.run(be, inputs)
            correct = _compare(entry, out, ref)
            times = []
            for _ in range(args.repeats):
                be = Backend(seed=args.seed, policy=getattr(entry, "policy", "lockstep"),
                             sanitize=sanitize)
                t0 = time.perf_counter()
                entry.run(be, inputs)
                times.append(time.perf_counter() - t0)
            wall = statistics.median(times)
            key = "sanitized" if sanitize else "plain"
            row[key] = {"wall_s": wall, "times_s": times, "elements_per_s": args.simt_n / wall,
                        "correct": correct}
            row["launches"] = [
                {"kernel": k, "grid": str(g), "block": str(b), "shared_mem": s}
                for k, g, b, s in be.calls]
            row["warp_instructions"] = sum(int(getattr(r, "warp_instructions", 0) or 0)
                                           for r in be.launches)
        results[bench_id] = row
    return results


def numba_specs(args, simt_results: dict | None) -> dict:
    """Numba launch per benchmark, mirroring simt's elements per thread."""
    runs = {}
    for bench_id, b in BENCHES.items():
        block = 256
        elems = b["elems"]
        recursive = False
        row = (simt_results or {}).get(bench_id)
        if row and row.get("launches"):
            first = row["launches"][0]
            from simt.launch import Dim3
            g, bl = Dim3.of(first["grid"]), Dim3.of(first["block"])
            block = bl.size
            elems = row["n"] / (g.size * bl.size)
            recursive = sum(1 for L in row["launches"] if L["kernel"] == first["kernel"]) > 1
        grid = max(1, args.numba_threads // block)
        n = max(1, int(round(elems * grid * block)))
        if b["kind"] == "histogram_atomic":
            grid = (n + block - 1) // block
        elif b["kind"] == "reduce_contiguous":
            grid = (n + 2 * block - 1) // (2 * block)
        runs[bench_id] = {"kind": b["kind"], "n": n, "block": block, "grid": grid,
                          "recursive": recursive, "simt_elements_per_thread": elems}
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
    ids = [e.id for e in catalog.entries() if e.id.startswith("histogram/")]
    rows = []
    base = _simt_command()
    for eid in ids:
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
                     "correct": correct, "under_target": wall < TARGET_WHOLE_S,
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


def report_text(rep: dict) -> str:
    L = []
    L.append(f"$ {rep['command']}")
    m = rep["machine"]
    L.append(f"# {rep['date']}  {m['cpu']} ({m['cpus']} CPUs)  Python {m['python']}  "
             f"numba {rep.get('numba', {}).get('numba_version', '-')} (NUMBA_ENABLE_CUDASIM=1)")
    L.append("")
    kern = rep.get("kernels", {})
    if kern:
        L.append("Elements per second, whole host driver (copy in, launches, copy back); "
                 f"simt: median of {rep['repeats']}, numba: one run")
        hdr = (f"{'kernel':22} {'numba n':>8} {'numba launch':>18} {'numba s':>8} "
               f"{'numba el/s':>10} | {'simt n':>8} {'simt launch':>16} {'simt s':>7} "
               f"{'simt el/s':>10} | {'simt/numba':>10}  target >= {TARGET_RATIO:.0f}x")
        L.append(hdr)
        L.append("-" * len(hdr))
        for bid, k in kern.items():
            nb, sm = k.get("numba"), k.get("simt")
            nb_cols = (f"{nb['n']:>8} {nb['launches'][0]:>18} {nb['wall_s']:>8.2f} "
                       f"{_si(nb['elements_per_s']):>10}") if nb else f"{'-':>8} {'':>18} {'':>8} {'-':>10}"
            if sm:
                L0 = sm["launches"][0] if sm.get("launches") else None
                lstr = (f"<<<{L0['grid']}, {L0['block']}>>>" if L0 else "-")
                sm_cols = (f"{sm['n']:>8} {lstr:>16} {sm['plain']['wall_s']:>7.3f} "
                           f"{_si(sm['plain']['elements_per_s']):>10}")
            else:
                sm_cols = f"{'-':>8} {'':>16} {'':>7} {'-':>10}"
            ratio = k.get("ratio")
            rstr = f"{ratio:>9.0f}x" if ratio else f"{'-':>10}"
            verdict = ("ok" if ratio >= TARGET_RATIO else "BELOW") if ratio else ""
            L.append(f"{bid:22} {nb_cols} | {sm_cols} | {rstr}  {verdict}")
        L.append("")
        for bid, k in kern.items():
            nb, sm = k.get("numba"), k.get("simt")
            parts = []
            if nb:
                parts.append(f"numba correct={nb['correct']} ({nb['detail']}), "
                             f"{nb['threads']} threads, {nb['threads'] / nb['wall_s']:.0f} threads/s, "
                             f"{len(nb['launches'])} launch(es)")
            if sm:
                s = f"simt correct={sm['plain']['correct']} [{sm['origin']}]"
                s += f", {len(sm['launches'])} launch(es) " + ", ".join(
                    f"{x['kernel']}<<<{x['grid']}, {x['block']}{', ' + str(x['shared_mem']) if x['shared_mem'] else ''}>>>"
                    for x in sm["launches"][:3]) + (" ..." if len(sm["launches"]) > 3 else "")
                if "sanitized" in sm:
                    z = sm["sanitized"]
                    s += (f"; with sanitizer {z['wall_s']:.3f} s = {_si(z['elements_per_s'])} el/s "
                          f"({z['elements_per_s'] / nb['elements_per_s']:.0f}x numba)" if nb else "")
                parts.append(s)
            L.append(f"  {bid}: " + "; ".join(parts))
        L.append("")
    whole = rep.get("whole_process")
    if whole:
        L.append(f"Whole process `simt run ID --n {whole[0]['n']} --json` "
                 f"(wall clock incl. Python start-up), target < {TARGET_WHOLE_S:.0f} s")
        L.append(f"{'id':32} {'seconds':>8}  {'rc':>3}  {'correct':>7}  target")
        for w in whole:
            L.append(f"{w['id']:32} {w['wall_s']:>8.2f}  {w['rc']:>3}  {str(w['correct']):>7}  "
                     f"{'ok' if w['under_target'] and w['rc'] in (0, 1) else 'OVER' if not w['under_target'] else 'FAILED'}")
            if w.get("stderr_tail"):
                L.append("    " + w["stderr_tail"].replace("\n", "\n    "))
        L.append("")
    return "\n".join(L)


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
                    help="CUDA threads per Numba launch (~1,400/s on the simulator; default 4096)")
    ap.add_argument("--repeats", type=int, default=3, help="simt repeats (median)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--whole-n", type=int, default=1 << 20,
                    help="--n for the whole-process `simt run` timings")
    ap.add_argument("--sanitize-too", action="store_true",
                    help="also time simt with the sanitizer on")
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
    cmdline = "python benchmarks/bench_numba.py" + "".join(" " + a for a in (argv or sys.argv[1:]))
    rep = {"command": cmdline, "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
           "machine": {"cpu": _cpu_name(), "cpus": os.cpu_count(),
                       "python": platform.python_version(), "platform": platform.platform()},
           "repeats": args.repeats, "target_ratio": TARGET_RATIO,
           "target_whole_s": TARGET_WHOLE_S, "kernels": {}}

    simt_res = None
    if not args.skip_simt:
        try:
            import simt
            simt.Module  # noqa: B018  -- the core, not just the package folder
        except Exception as e:  # the core is not there (yet)
            _say(f"simt half skipped: cannot import simt ({e})")
            args.skip_simt = args.skip_whole = True
    if not args.skip_simt:
        _say(f"simt: {len(BENCHES)} kernels at n = {args.simt_n} ...")
        simt_res = run_simt(args)
    numba_res = None
    if not args.skip_numba:
        runs = numba_specs(args, simt_res)
        _say("numba simulator: " + ", ".join(f"{k} n={v['n']}" for k, v in runs.items()) + " ...")
        numba_res = run_numba(args, runs)
        rep["numba"] = {k: v for k, v in numba_res.items() if k != "results"}

    for bid in BENCHES:
        row = {}
        if numba_res:
            row["numba"] = numba_res["results"][bid]
        if simt_res:
            row["simt"] = simt_res[bid]
        if numba_res and simt_res:
            row["ratio"] = (simt_res[bid]["plain"]["elements_per_s"]
                            / numba_res["results"][bid]["elements_per_s"])
            row["meets_target"] = row["ratio"] >= TARGET_RATIO
        rep["kernels"][bid] = row

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
