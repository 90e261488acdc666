"""The ``simt`` command.

    simt                              the TUI on the default kernel
    simt list [--json]                the catalog, by family
    simt run ID [--n N] [--seed S] [--policy P] [--no-sanitize] [--json] [--real]
    simt run FILE.cu --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] [--shared BYTES]
             --arg SPEC ... [--seed S] [--out NAME=path.npy] [--json] [--real]
    simt tui [ID | FILE.cu ...]       the Textual UI
    simt check [ID ...]               emulator vs GPU (needs CuPy and a device)
    simt bench [ID ...]               time catalog kernels on the GPU

Every error a user can cause is printed as ``simt: <message>`` on stderr with exit
status 2; never a traceback.  ``--json`` prints one JSON object on stdout (see the
README's "JSON contract").

Contracts with the other parts:

* ``tui.app.make_app(target=None, *, kernel=None, grid=None, block=None, shared_mem=0,
  args=(), seed=0, policy=None, n=None, sanitize=True, step_budget=None, launch=0,
  real=False) -> textual.app.App`` (``launch`` is 0-based; ``--launch`` on the command line is
  1-based); the CLI passes only the keywords the function accepts and calls ``.run()``.
* ``tui/session.py`` reuses ``_is_file_target``, ``_recording_backend``, ``_load_kernel``,
  ``_build_args`` and ``_device_args``: keep their signatures.
* ``kernels_cuda.cupy_backend.available() -> (bool, reason)`` and ``CupyBackend()``
  implementing ``kernels_cuda.backend.Backend``; per-launch device times are read from
  ``CupyBackend.launches`` (items with an ``ms`` key or attribute) when present.
"""
from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import sys
import time
from pathlib import Path

DEFAULT_ID = "histogram/shared-local"
POLICIES = ("lockstep", "random", "round-robin")
DEVICE = "simt emulator"
PRINTF_LINES = 20

# The Nsight Compute metrics, in the order DESIGN.md lists them, with a short gloss.
METRICS = [
    ("smsp__inst_executed_op_shared_ld.sum", "shared-memory load instructions (per warp)"),
    ("smsp__inst_executed_op_shared_st.sum", "shared-memory store instructions (per warp)"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared load wavefronts"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "shared store wavefronts"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared load bank conflicts"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared store bank conflicts"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global load requests"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "global store requests"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "global atomic requests (result used)"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "global reductions (atomic, result unused)"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global load sectors (32 B)"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "global store sectors (32 B)"),
    ("smsp__thread_inst_executed_per_inst_executed.ratio", "active lanes per warp instruction"),
]
_GLOSS = dict(METRICS, **{
    "smsp__inst_executed.sum": "warp instructions",
    "smsp__thread_inst_executed.sum": "thread instructions",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum": "global atomic sectors",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum": "global reduction sectors",
    "smsp__inst_executed_op_shared_atom.sum": "shared-memory atomic instructions (per warp)",
    "simt__atomic_warp_instructions.sum": "atomic warp instructions (emulator)",
    "simt__atomic_lanes.sum": "atomic lane operations (emulator)",
    "simt__atomic_addresses.sum": "distinct addresses per atomic, summed (emulator)",
    "simt__atomic_serialized_steps.sum": "serialized atomic steps (emulator)",
})


class _NoGPU(Exception):
    pass


# --------------------------------------------------------------------------- parser

def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="simt",
        description="Run CUDA C kernels warp by warp without a GPU: watch divergence, bank "
                    "conflicts, atomics and races. With no command, opens the TUI on "
                    f"{DEFAULT_ID}.",
        epilog="examples:\n"
               "  simt list\n"
               f"  simt run {DEFAULT_ID}\n"
               "  simt run my.cu --kernel add --grid 4 --block 256 "
               "--arg float32[1024]=uniform --arg int32=1024\n"
               "  simt tui histogram/atomic",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    lp = sub.add_parser("list", help="the catalog of kernels, by family",
                        description="List the catalog: every seed kernel, as written and fixed.")
    lp.add_argument("--json", action="store_true", help="print one JSON object")
    lp.set_defaults(func=cmd_list)

    def launch_options(q: argparse.ArgumentParser, real: bool = True) -> None:
        q.add_argument("--n", type=_positive_int, metavar="N",
                       help="problem size of a catalog entry (default: the entry's)")
        q.add_argument("--seed", type=_nonneg_int, default=0, metavar="S",
                       help="seed for inputs and scheduling (default 0)")
        q.add_argument("--policy", choices=POLICIES,
                       help="warp scheduling (default: the entry's, lockstep for a .cu file)")
        q.add_argument("--no-sanitize", action="store_true",
                       help="skip racecheck/memcheck/synccheck/initcheck (faster)")
        q.add_argument("--max-steps", "--step-budget", type=_positive_int, metavar="N",
                       dest="step_budget",
                       help="stop a launch when a warp has executed N instructions "
                            "(catches endless loops; default 1,000,000)")
        g = q.add_argument_group("your own kernel (TARGET is a .cu file)")
        g.add_argument("--kernel", metavar="NAME", help="kernel to launch (optional if the file has one)")
        g.add_argument("--grid", metavar="X[,Y[,Z]]", help="grid dimensions, e.g. 64 or 16,16")
        g.add_argument("--block", metavar="X[,Y[,Z]]", help="block dimensions, e.g. 256 or 16,16")
        g.add_argument("--shared", type=_nonneg_int, default=None, metavar="BYTES",
                       help="dynamic shared memory per block (default 0)")
        g.add_argument("--arg", action="append", default=None, metavar="SPEC", dest="args",
                       help="one per kernel parameter, in order: int32=65536, float32=0.5, "
                            "float32[1024x1024]=uniform, int32[65536]=randint(0,256), "
                            "int32[1]=zeros, int32[4096]=arange, ones, full(v), "
                            "uniform(lo,hi), normal, [1,2,3], @file.npy; a struct passed by "
                            "value: {0.5,1024} (members in order), {alpha=0.5,n=1024} "
                            "(by name, the rest zero), Params={...}, nested braces; a pointer "
                            "member takes an array: {n=1024,x=float32[1024]=uniform}")
        g.add_argument("--symbol", action="append", default=None, metavar="NAME=VALUE", dest="symbols",
                       help="set one of the file's __constant__ or __device__ variables before the "
                            "launch (cudaMemcpyToSymbol): mask=[1,2,1], w=uniform, t=@t.npy, "
                            "or a full SPEC such as w=float32[5]=normal")
        g.add_argument("--out", action="append", default=None, metavar="NAME=PATH.npy",
                       help="save an array argument (parameter name or position) or a "
                            "__device__ variable after the launch")
        g.add_argument("--gpu", default=None, metavar="NAME",
                       help="GPU profile for predicted_ms (h100, h200 or a profile .json; "
                            "default h100)")
        g.add_argument("--sample-blocks", default="auto", metavar="N|auto|all",
                       help="large grids: emulate only N blocks (runs of 8 spread over the grid) and extrapolate the "
                            "counters and predicted time (auto: about 2^18 threads of grids over "
                            "2^22 threads, 2^15 for kernels with atomicCAS; all: never sample). "
                            "Sampled runs do not check outputs")

    rp = sub.add_parser(
        "run", help="run a catalog kernel or your own .cu file",
        description="Run a catalog entry (simt run histogram/atomic) or a kernel of your own "
                    "(simt run FILE.cu --kernel NAME --grid X --block Y --arg SPEC ...).  "
                    "Reports whether the output matches the numpy reference, the Nsight "
                    "Compute counters and the sanitizer's findings.  Exit status 0 when the "
                    "run completed (even if the kernel is wrong), 2 on an error.")
    rp.add_argument("target", metavar="ID|FILE.cu", help="catalog id (see `simt list`) or a .cu file")
    launch_options(rp)
    rp.add_argument("--json", action="store_true", help="print one JSON object")
    rp.add_argument("--real", action="store_true",
                    help="run on the GPU through CuPy instead: time it (CUDA events) beside the emulator")
    rp.add_argument("--repeat", type=_positive_int, default=20, metavar="R",
                    help="with --real: median of R timed runs (default 20)")
    rp.set_defaults(func=cmd_run)

    tp = sub.add_parser("tui", help="the Textual UI (step through warps)",
                        description="Open the Textual UI on a catalog entry or a .cu file.")
    tp.add_argument("target", nargs="?", metavar="ID|FILE.cu",
                    help=f"what to open (default {DEFAULT_ID})")
    launch_options(tp)
    tp.add_argument("--launch", type=_positive_int, default=1, metavar="K",
                    help="which launch of a catalog entry's host driver to step (default 1)")
    tp.add_argument("--real", action="store_true",
                    help="also run on the GPU through CuPy and show its output and time")
    tp.set_defaults(func=cmd_tui)

    cp = sub.add_parser("check", help="compare the emulator with the GPU (needs CuPy)",
                        description="Run catalog entries on the emulator and on the GPU and "
                                    "compare outputs and timings.  Exit 1 if they disagree.")
    cp.add_argument("ids", nargs="*", metavar="ID", help="catalog ids or families (default: all)")
    cp.add_argument("--n", type=_positive_int, metavar="N")
    cp.add_argument("--seed", type=_nonneg_int, default=0, metavar="S")
    cp.add_argument("--timed", action="store_true", help="also time the GPU launches")
    cp.add_argument("--sanitize", action="store_true", help="run the emulator's sanitizer too (slower)")
    cp.add_argument("--json", action="store_true")
    cp.add_argument("--ncu", action="store_true",
                    help="instead: compare the emulator's counters with Nsight Compute's (needs ncu)")
    cp.add_argument("--sanitizer", action="store_true",
                    help="instead: compare the sanitizer with compute-sanitizer (needs compute-sanitizer)")
    cp.add_argument("--out", default=None, metavar="DIR", help="with --ncu/--sanitizer: write the tables here")
    cp.set_defaults(func=cmd_check)

    calp = sub.add_parser("calibrate", help="measure a GPU profile for the timing model (needs CuPy)",
                          description="Run the timing model's microbenchmarks on the present GPU "
                                      "and write a profile (simt calibrate --real --name h100 --out "
                                      "simt/profiles/h100.json).")
    calp.add_argument("--real", action="store_true", help="measure on the GPU (required)")
    calp.add_argument("--name", default=None)
    calp.add_argument("--out", default=None)
    calp.add_argument("--repeat", type=_positive_int, default=20)
    calp.add_argument("--update", default=None, metavar="PROFILE",
                      help="keep PROFILE's recorded times; measure only the microbenchmarks it "
                           "lacks (or --only), then derive it again")
    calp.add_argument("--only", default=None, metavar="NAMES",
                      help="comma-separated microbenchmarks to measure")
    calp.add_argument("--derive", default=None, metavar="PROFILE",
                      help="no GPU needed: derive PROFILE again from its recorded times")
    calp.set_defaults(func=cmd_calibrate)

    bp = sub.add_parser("bench", help="time catalog kernels on the GPU (needs CuPy)",
                        description="Time catalog entries on the GPU (median of --repeat runs).")
    bp.add_argument("ids", nargs="*", metavar="ID", help="catalog ids or families (default: all)")
    bp.add_argument("--n", type=_positive_int, metavar="N")
    bp.add_argument("--seed", type=_nonneg_int, default=0, metavar="S")
    bp.add_argument("--repeat", type=_positive_int, default=20, metavar="R")
    bp.add_argument("--emulate", action="store_true",
                    help="also run the emulator on the same inputs (correctness, predicted time)")
    bp.add_argument("--json", action="store_true")
    bp.set_defaults(func=cmd_bench)

    from tui.streams_cli import add_parser as add_streams_parser
    add_streams_parser(sub)        # simt streams: seed 003's overlap (tui/streams_cli.py)
    return p


def _positive_int(text: str) -> int:
    try:
        v = int(text.replace("_", ""), 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def _nonneg_int(text: str) -> int:
    try:
        v = int(text.replace("_", ""), 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return v


# --------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    from simt.errors import SimtError

    argv = list(sys.argv[1:] if argv is None else argv)
    progress = None
    try:
        try:
            args = _parser().parse_args(argv)
        except SystemExit as e:  # argparse: --help (0) or a usage error (2)
            return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
        if args.command is None:
            args = _parser().parse_args(["tui"])
        progress = _Progress(enabled=_stderr_is_tty())
        args.progress = progress
        return int(args.func(args) or 0)
    except SimtError as err:
        if progress:
            progress.close()
        print(f"simt: {err}", file=sys.stderr)
        return 2
    except _NoGPU as err:
        print(f"simt: no usable GPU: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if progress:
            progress.close()
        print("simt: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `simt list | head`
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
    except RecursionError:
        print("simt: error: the kernel source nests too deeply for the parser", file=sys.stderr)
        return 2
    except MemoryError:
        print("simt: error: out of memory (try a smaller --n or smaller --arg arrays)", file=sys.stderr)
        return 2


def _stderr_is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


# --------------------------------------------------------------------------- list

def cmd_list(args) -> int:
    from kernels_cuda import catalog

    es = catalog.entries()
    if args.json:
        _emit_json({
            "backend": "emulator",
            "device": DEVICE,
            "families": sorted({e.family for e in es}),
            "entries": [_entry_dict(e) for e in es],
        })
        return 0
    if not es:
        print("the catalog is empty")
        return 0
    width = max(len(e.id) for e in es)
    for fam in _families(es):
        print(fam)
        for e in (e for e in es if e.family == fam):
            flags = []
            if not e.expect_correct:
                flags.append("seed bug")
            if e.racy:
                flags.append("racy")
            note = f"  [{', '.join(flags)}]" if flags else ""
            print(f"  {e.id:<{width}}  {e.seed:>5}  {e.title}{note}")
    print(f"\n{len(es)} kernels.  Run one: simt run ID    Watch it: simt tui ID")
    return 0


def _families(es) -> list[str]:
    seen: list[str] = []
    for e in es:
        if e.family not in seen:
            seen.append(e.family)
    return seen


def _entry_dict(e) -> dict:
    return {
        "id": e.id, "family": e.family, "seed": e.seed, "title": e.title,
        "source": e.source, "kernels": list(e.kernels), "default_n": e.default_n,
        "block": e.block, "expect_correct": e.expect_correct, "racy": e.racy,
        "policy": e.policy, "tags": list(e.tags),
    }


# --------------------------------------------------------------------------- run

def _is_file_target(target: str) -> bool:
    return target.lower().endswith((".cu", ".cuh")) or Path(target).is_file()


def cmd_run(args) -> int:
    if _is_file_target(args.target):
        return _run_file(args)
    return _run_entry(args)


def _usage(msg: str):
    from simt.errors import UsageError
    return UsageError(msg)


def _reject_file_options(args, what: str) -> None:
    for opt, val in (("--kernel", args.kernel), ("--grid", args.grid), ("--block", args.block),
                     ("--shared", args.shared), ("--arg", args.args), ("--out", args.out),
                     ("--symbol", args.symbols)):
        if val is not None:
            raise _usage(f"{opt} applies to a .cu file; {what} has its own launch "
                         f"configuration and inputs (try --n and --seed)")


# ---- a catalog entry

def _recording_backend(base_cls, bar, **kw):
    """A backend that also records each launch's kernel and configuration."""
    from simt.launch import Dim3, LaunchConfig

    class Recording(base_cls):
        def __init__(self, **k):
            super().__init__(**k)
            self.records: list[dict] = []

        def launch(self, source, kernel, grid, block, args, shared_mem=0):
            cfg = LaunchConfig(Dim3.of(grid), Dim3.of(block), int(shared_mem))
            rec = {"kernel": kernel, "source": str(source), "grid": list(cfg.grid.as_tuple()),
                   "block": list(cfg.block.as_tuple()), "shared_mem": cfg.shared_mem,
                   "config": f"{kernel}{cfg}", "wall_s": None}
            self.records.append(rec)
            if bar:
                bar.label(f"launch {len(self.records)}: {kernel}{cfg}")
            t0 = time.perf_counter()
            super().launch(source, kernel, grid, block, args, shared_mem)
            rec["wall_s"] = time.perf_counter() - t0

    return Recording(**kw)


def _gpu_profile(args):
    from simt import timing
    return timing.load_profile(getattr(args, "gpu", None))


def _sample_arg(args):
    v = str(getattr(args, "sample_blocks", "auto") or "auto").lower()
    if v == "auto":
        return "auto"
    if v in ("all", "none", "0"):
        return None
    if v.isdigit() and int(v) > 0:
        return int(v)
    raise _usage(f"--sample-blocks {v!r}: expected a positive number of blocks, 'auto' or 'all'")


def _sampled(results) -> list | None:
    out = [{"kernel": r.kernel, "emulated_blocks": r.sampled_blocks, "total_blocks": r.total_blocks}
           for r in results if getattr(r, "sampled_blocks", None)]
    return out or None


def _run_entry(args) -> int:
    from kernels_cuda import catalog

    _reject_file_options(args, "a catalog entry")
    if Path(args.target).is_dir():
        raise _usage(f"{args.target} is a directory; give a catalog id (see `simt list`) or a .cu file")
    entry = catalog.get(args.target)
    n = args.n or entry.default_n
    if args.real:
        return _run_entry_real(args, entry, n)

    from kernels_cuda.backend import EmulatorBackend
    from simt.errors import LaunchError

    t0 = time.perf_counter()
    inputs = entry.inputs(n, args.seed)
    policy = args.policy or entry.policy
    progress = args.progress
    gpu = _gpu_profile(args)
    backend = _recording_backend(EmulatorBackend, progress, seed=args.seed, policy=policy,
                                 sanitize=not args.no_sanitize, step_budget=args.step_budget,
                                 progress=progress, sample_blocks=_sample_arg(args), gpu=gpu)
    report = {
        "id": entry.id, "backend": "emulator", "device": DEVICE, "correct": None,
        "metrics": {}, "sanitizer": [], "predicted_ms": None, "measured_ms": None,
        "title": entry.title, "family": entry.family, "seed_file": entry.seed,
        "n": n, "seed": args.seed, "policy": policy, "sanitize": not args.no_sanitize,
        "expect_correct": entry.expect_correct, "racy": entry.racy,
        "lost_updates": None, "mismatch": {}, "launches": backend.records,
    }
    error = None
    try:
        out = entry.run(backend, inputs)
    except LaunchError as err:
        error, out = err, None
    finally:
        progress.close()
    _fill_from_results(report, backend.launches, gpu)
    report["gpu"] = gpu.name
    sampled = _sampled(backend.launches)
    if sampled:
        report["sampled"] = sampled
    if error is not None:
        report["sanitizer"].append(_error_finding(error))
        report["error"] = str(error)
    elif sampled:
        report["note"] = ("sampled: only a sample of the blocks of large grids was emulated; counters and "
                          "predicted_ms are extrapolated, outputs were not checked (--sample-blocks all "
                          "emulates everything)")
    else:
        ref = entry.reference(inputs)
        report["correct"] = bool(catalog.compare(entry, out, ref))
        report["mismatch"] = _mismatches(entry, out, ref)
        report["lost_updates"] = _lost_updates(entry, inputs, out, ref)
    report["elapsed_s"] = round(time.perf_counter() - t0, 4)
    _report(args, report)
    if error is not None:
        raise error
    return 0


def _mismatches(entry, out, ref) -> dict:
    import numpy as np

    res = {}
    for k, r in ref.items():
        o = np.asarray(out.get(k)) if k in out else None
        r = np.asarray(r)
        if o is None or o.shape != r.shape:
            res[k] = {"shape": list(np.shape(o)) if o is not None else None, "want_shape": list(r.shape)}
            continue
        if entry.float_rtol is not None and np.issubdtype(r.dtype, np.floating):
            bad = ~np.isclose(o, r, rtol=entry.float_rtol, atol=entry.float_rtol)
        else:
            bad = o != r
        nbad = int(np.count_nonzero(bad))
        if nbad:
            first = tuple(int(i) for i in np.argwhere(bad)[0])
            res[k] = {"elements": nbad, "of": int(r.size), "first_index": list(first),
                      "got": _py(o[first]), "want": _py(r[first])}
    return res


def _lost_updates(entry, inputs, out, ref):
    """How many updates the race lost: the entry's hook, else reference sum - output sum."""
    import numpy as np

    hook = getattr(entry, "lost_updates", None)
    if callable(hook):
        try:
            n_params = len(inspect.signature(hook).parameters)
        except (TypeError, ValueError):
            n_params = 2
        return _py(hook(inputs, out, ref) if n_params >= 3 else hook(out, ref))
    if not entry.racy:
        return None
    lost = 0
    for k, r in ref.items():
        r = np.asarray(r)
        if k not in out or not np.issubdtype(r.dtype, np.integer):
            return None
        lost += int(r.astype(np.int64).sum()) - int(np.asarray(out[k]).astype(np.int64).sum())
    return lost


def _fill_from_results(report: dict, results, gpu=None) -> None:
    report["metrics"] = sum_metrics(results)
    report["sanitizer"] = merge_findings(results)
    pred = [getattr(r, "predicted_ms", None) for r in results]
    report["predicted_ms"] = _py(sum(pred)) if pred and all(p is not None for p in pred) else None
    for key in ("warp_instructions", "thread_instructions", "steps"):
        vals = [getattr(r, key, None) for r in results]
        report[key] = _py(sum(vals)) if vals and all(v is not None for v in vals) else None
    report["stdout"] = [str(line) for r in results for line in (getattr(r, "stdout", None) or [])]
    for rec, r in zip(report.get("launches") or [], results):
        rec["metrics"] = {k: _py(v) for k, v in (getattr(r, "metrics", None) or {}).items()}
        if gpu is not None and getattr(r, "predicted_ms", None) is not None:
            from simt.timing import occupancy_report
            rec["predicted_ms"] = _py(r.predicted_ms)
            rec["occupancy"] = {k: _py(v) for k, v in occupancy_report(r, gpu).items()}


def sum_metrics(results) -> dict:
    """Metrics summed over launches; ratios and means weighted by warp instructions,
    maxima (``.max``: the most on one address, one block, one kernel's registers) the
    largest of the launches'."""
    total: dict = {}
    ratio_num: dict = {}
    ratio_den: dict = {}
    for r in results:
        m = getattr(r, "metrics", None) or {}
        w = getattr(r, "warp_instructions", None)
        for k, v in m.items():
            v = _py(v)
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                continue
            if k.endswith(".max"):
                total[k] = max(total.get(k, v), v)
            elif k.endswith((".ratio", ".pct", ".mean")):
                weight = w if isinstance(w, (int, float)) and w else 1
                ratio_num[k] = ratio_num.get(k, 0.0) + v * weight
                ratio_den[k] = ratio_den.get(k, 0) + weight
            else:
                total[k] = total.get(k, 0) + v
    for k in ratio_num:
        total[k] = ratio_num[k] / ratio_den[k] if ratio_den[k] else 0.0
    order = {k: i for i, (k, _) in enumerate(METRICS)}
    return dict(sorted(total.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))


def merge_findings(results) -> list[dict]:
    """Sanitizer findings of all launches; the same finding twice adds its counts."""
    merged: dict = {}
    for r in results:
        for f in getattr(r, "sanitizer", None) or []:
            d = f.as_dict() if hasattr(f, "as_dict") else dict(f)
            d = {k: _py(v) for k, v in d.items()}
            d.setdefault("count", 1)
            key = (d.get("tool"), d.get("kind"), d.get("file"), d.get("line"), d.get("message"))
            if key in merged:
                merged[key]["count"] += d["count"]
            else:
                merged[key] = d
    return list(merged.values())


def _error_finding(err) -> dict:
    c = getattr(err, "coord", None)
    return {"tool": getattr(err, "tool", "memcheck"), "kind": "error",
            "file": getattr(c, "file", None), "line": getattr(c, "line", None),
            "message": getattr(err, "message", str(err)), "count": 1, "fatal": True}


# ---- a .cu file

def _check_readable(path: Path) -> None:
    """Raise a UsageError naming the path unless it is a readable UTF-8 text file."""
    if not path.exists():
        raise _usage(f"no such file: {path}")
    if path.is_dir():
        raise _usage(f"{path} is a directory, not a .cu file")
    try:
        data = path.read_bytes()
    except PermissionError:
        raise _usage(f"cannot read {path}: permission denied") from None
    except OSError as e:
        raise _usage(f"cannot read {path}: {e.strerror or e}") from None
    if b"\0" in data[:8192]:
        raise _usage(f"{path} is a binary file, not CUDA C source")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise _usage(f"{path}:{line}: is not UTF-8 text (byte 0x{data[e.start]:02x})") from None


def _kernel_names(mod) -> list[str] | None:
    for attr in ("kernel_names", "kernels", "functions", "names"):
        v = getattr(mod, attr, None)
        if callable(v):
            try:
                v = v()
            except TypeError:
                continue
        if isinstance(v, dict):
            return list(v)
        if isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v):
            return list(v)
        if isinstance(v, (list, tuple)):
            names = [getattr(x, "name", None) for x in v]
            if all(isinstance(x, str) for x in names):
                return names
    return None


def _signature(name: str, params) -> str:
    return f"{name}({', '.join(_param_decl(p) for p in params)})"


def _param_decl(p) -> str:
    ct = str(getattr(p, "ctype", "") or "")
    return f"{ct} {p.name}".replace("* ", "*") if ct.endswith("*") else f"{ct} {p.name}".strip()


def _load_kernel(args):
    """Module, function, name, config for a FILE.cu target (validated)."""
    import simt
    from simt.launch import Dim3, LaunchConfig

    if args.n is not None:
        raise _usage("--n applies to catalog entries; a .cu file takes its sizes from --arg specs")
    path = Path(args.target)
    _check_readable(path)
    mod = simt.Module.from_file(path)
    names = _kernel_names(mod)
    if names is not None:
        names += list(getattr(mod, "template_kernels", ()))
    name = args.kernel
    if name is None:
        if names and len(names) == 1 and "<" not in names[0]:
            name = names[0]
        else:
            listing = f" (kernels in {path}: {', '.join(names)})" if names else ""
            raise _usage(f"--kernel NAME is required for {path}{listing}")
    try:
        fn = mod.get_function(name)
    except simt.CompileError:
        raise                      # keeps its file:line:col
    except simt.SimtError as err:
        if names and not any(n in str(err) for n in names):
            raise _usage(f"{err.message}; kernels in {path}: {', '.join(names)}") from None
        raise
    name = getattr(fn, "name", name)           # a template instance's C++ spelling
    if args.grid is None or args.block is None:
        missing = " and ".join(o for o, v in (("--grid", args.grid), ("--block", args.block)) if v is None)
        raise _usage(f"{missing} X[,Y[,Z]] required to launch {name} from {path}"
                     + _launch_hint(path, name))
    cfg = LaunchConfig(Dim3.parse(args.grid, "--grid"), Dim3.parse(args.block, "--block"),
                       int(args.shared or 0))
    cfg.validate()
    return path, mod, fn, name, cfg


def _launch_hint(path: Path, name: str) -> str:
    """`` (d1.cu:40 launches it as k<<<grid, block>>>(a, b, n))``: the file's own host code's
    first launch of kernel ``name``, to show what --grid, --block and --arg stand for; ""
    when there is none."""
    import re

    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    base = re.escape(name.split("<")[0].strip())
    m = re.search(rf"\b{base}\s*(?:<[^;<>]*>\s*)?<<<([^;]*?)>>>\s*\(([^;]*?)\)\s*;", text)
    if not m:
        return ""
    line = text.count("\n", 0, m.start()) + 1
    return f" (as {path.name}:{line} launches it: {' '.join(m.group(0)[:-1].split())})"


def _build_args(args, fn, name):
    """numpy values for the kernel's parameters from --arg specs, checked against them."""
    import numpy as np
    from simt import argspec

    params = list(fn.params)
    specs = list(args.args or [])
    sig = _signature(name, params)
    if len(specs) != len(params):
        if not params:
            raise _usage(f"kernel {sig} takes no arguments, got {len(specs)} --arg")
        raise _usage(f"kernel {sig} takes {len(params)} argument{'s' if len(params) != 1 else ''}, "
                     f"got {len(specs)} --arg; give one --arg SPEC per parameter, in order"
                     + (_launch_hint(Path(args.target), name) if _is_file_target(args.target) else ""))
    rng = np.random.default_rng(args.seed)
    values = []
    for i, (p, text) in enumerate(zip(params, specs), 1):
        where = f"argument {i} ({_param_decl(p)}) of {name}"
        sdt = getattr(p, "dtype", None)
        if getattr(p, "fields", None) is not None:          # a struct or vector by value
            values.append(_record_arg(text, p, where, rng))
            continue
        if argspec.is_record(text):
            if p.is_pointer:
                what = "a pointer: give an array such as [1024]=" + ("{...}" if sdt is not None and sdt.fields
                                                                     else "zeros")
            else:
                pdt = _param_dtype(p)
                what = f"a scalar: give a value such as {pdt.name if pdt is not None else 'int32'}=1"
            raise _usage(f"{where} is not a struct passed by value; it is {what}, not {text!r}")
        if p.is_pointer and sdt is not None and sdt.fields:
            values.append(_struct_array(text, sdt, rng, where))
            continue
        pdt = _param_dtype(p)
        spec = argspec.parse(text, default_dtype=pdt)
        if p.is_pointer and not spec.is_array:
            example = f"{pdt.name if pdt is not None else 'float32'}[1024]=zeros"
            raise _usage(f"{where} is a pointer: give an array such as {example}, not {text!r}")
        if not p.is_pointer and spec.is_array:
            raise _usage(f"{where} is a scalar: give a value such as "
                         f"{pdt.name if pdt is not None else 'int32'}=1, not the array {text!r}")
        v = spec.build(rng, base_dir=Path.cwd())
        if p.is_pointer:
            if pdt is not None and v.dtype != pdt:
                raise _usage(f"{where} points to {pdt.name}, but --arg {text!r} gives "
                             f"{v.dtype.name} values; write {pdt.name}[...] instead")
        elif pdt is not None and v.dtype != pdt:
            conv = np.array(v).astype(pdt)
            with np.errstate(invalid="ignore", over="ignore"):
                exact = np.array(conv).astype(v.dtype) == v and (
                    not np.issubdtype(pdt, np.integer) or float(conv) == float(v))
            if not exact:
                raise _usage(f"{where} is {pdt.name}, and --arg {text!r} does not fit it exactly")
            v = pdt.type(conv)
        values.append(v)
    return params, specs, values


def _var_decl(var) -> str:
    """``__constant__ float w[5]``: a module variable as declared (for messages)."""
    import simt.ctypes_ as T

    elem = T.array_dims(var.ctype)[1]
    kind = "__constant__" if var.space == "constant" else "__device__"
    return f"{kind} {elem} {var.name}" + "".join(f"[{d}]" for d in var.shape)


def _build_symbols(args, mod, path) -> dict:
    """numpy values for the --symbol NAME=VALUE options, checked against the variables."""
    import numpy as np
    from simt import argspec
    from simt.errors import UsageError

    known = mod.globals
    out: dict = {}
    # drawn after the arguments', so adding --symbol does not change the --arg values
    rng = np.random.default_rng([args.seed, 1])
    for text in args.symbols or []:
        name, eq, rest = text.partition("=")
        name, rest = name.strip(), rest.strip()
        if not eq or not name or not rest:
            raise _usage(f"bad --symbol {text!r}: expected NAME=VALUE, e.g. mask=[1,2,1]")
        var = known.get(name)
        if var is None:
            names = ", ".join(known) or "none"
            raise _usage(f"bad --symbol {text!r}: {path} has no __constant__ or __device__ "
                         f"variable {name!r} (its variables: {names})")
        if name in out:
            raise _usage(f"--symbol {name} is given twice")
        decl = _var_decl(var)
        if var.dtype.names:                                # vectors or structs: member by member
            dims = "x".join(map(str, var.shape)) or "1"
            v = _struct_array(rest if rest.startswith(("@", "[")) else f"[{dims}]={rest}", var.dtype,
                              rng, f"--symbol {name} ({decl})")
            if v.size != math.prod(var.shape):
                raise _usage(f"--symbol {text!r}: {decl} holds {math.prod(var.shape)} elements, "
                             f"got {v.size}")
            out[name] = np.array(v.reshape(var.shape), order="C")
            continue
        spec_text = rest
        if "=" not in rest and not rest.startswith("@"):     # VALUE for the declared type
            spec_text = (f"{var.dtype.name}[{'x'.join(map(str, var.shape))}]={rest}"
                         if var.shape else f"{var.dtype.name}={rest}")
        try:
            spec = argspec.parse(spec_text, default_dtype=var.dtype)
            v = np.asarray(spec.build(rng, base_dir=Path.cwd()))
        except UsageError as e:
            raise _usage(f"bad --symbol {text!r} for {decl}: {e.message}") from None
        want = math.prod(var.shape)
        if v.size != want:
            raise _usage(f"--symbol {text!r}: {decl} holds {want} value{'s' if want != 1 else ''}, "
                         f"got {v.size}")
        if v.dtype != var.dtype:
            conv = v.astype(var.dtype)
            with np.errstate(invalid="ignore", over="ignore"):
                exact = bool(np.all(conv.astype(v.dtype) == v))
            if not exact:
                raise _usage(f"--symbol {text!r}: {decl} holds {var.dtype.name} values, and "
                             f"these do not fit it exactly")
            v = conv
        out[name] = np.array(v.reshape(var.shape), order="C")     # (keeps a scalar 0-d)
    return out


def _symbol_items(mod, values_before: dict, after: dict, outs: dict) -> list[dict]:
    """The array summaries of the file's module variables after the launch."""
    import types

    import numpy as np

    items = []
    for name, var in mod.globals.items():
        if name not in after:
            continue
        before = values_before.get(name)
        if before is None:
            before = var.initial
        p = types.SimpleNamespace(name=name, ctype=_var_decl(var).rsplit(" ", 1)[0])
        a = np.asarray(after[name]).reshape(var.shape or (1,))
        item = _array_summary(p, None, np.asarray(before).reshape(a.shape), a)
        item["symbol"] = "constant" if var.space == "constant" else "device"
        if name in outs:
            _save(outs[name], a)
            item["saved_to"] = str(outs[name])
        items.append(item)
    return items


def _struct_array(text: str, dt, rng, where: str):
    """An array of structs for a struct pointer: ``[DIMS]=INIT`` (or ``NAME[DIMS]=INIT``)
    fills every member with INIT drawn for its own type, member by member;
    ``[DIMS]={x=uniform, alive=randint(0,2)}`` gives members their own (the others are
    zero); ``@file.npy`` loads a structured array with the same fields."""
    import re

    import numpy as np
    from simt import argspec
    from simt.errors import UsageError

    t = text.strip()
    if t.startswith("@"):
        a = _load_npy(t[1:], where)
        if a.dtype.names != dt.names:
            raise _usage(f"{where} points to structs with members {', '.join(dt.names)}; "
                         f"{t[1:]} holds {a.dtype}")
        return np.ascontiguousarray(a.astype(dt))
    m = re.fullmatch(r"(?:[A-Za-z_]\w*)?\s*(\[[^\]]*\])\s*=\s*(.+)", t, re.S)
    if m is None:
        raise _usage(f"{where} points to structs ({', '.join(dt.names)}): give [N]=INIT, "
                     f"e.g. [1024]=uniform or [1024]=zeros, or @file.npy; not {text!r}")
    dims, init = m.group(1), m.group(2).strip()
    per = {f: init for f in dt.names}
    if init.startswith("{") and init.endswith("}"):       # {x=uniform, alive=randint(0,2)}
        per, depth, item = {}, 0, ""
        for ch in init[1:-1] + ",":
            depth += (ch in "([") - (ch in ")]")
            if ch == "," and depth == 0:
                name, eq, val = item.partition("=")
                if not eq or name.strip() not in dt.names or not val.strip():
                    raise _usage(f"{where}: bad member initializer {item.strip()!r} in {text!r} "
                                 f"(members: {', '.join(dt.names)})")
                per[name.strip()] = val.strip()
                item = ""
            else:
                item += ch
    out = None
    for f in dt.names:
        ft = dt.fields[f][0]
        # a vector or array member (float3, float v[4], float m[2][3]): more dimensions
        base, shape = ft.subdtype or (ft, ())
        sub = f"{dims[:-1]}x{'x'.join(map(str, shape))}]" if shape else dims
        if base.names:                       # a struct member or an array of them: its members the same
            v = _struct_array(f"{sub}={per.get(f, 'zeros')}", base, rng, f"{where}, member {f}")
        else:
            try:
                v = argspec.parse(f"{base.name}{sub}={per.get(f, 'zeros')}", default_dtype=base).build(
                    rng, base_dir=Path.cwd())
            except UsageError as e:
                raise _usage(f"{where}, member {f} ({base.name}): {e.message}; give each member its "
                             "own values with [N]={member=INIT, ...}") from None
        if out is None:
            out = np.zeros(v.shape[:v.ndim - len(ft.shape)], dt)
        out[f] = v
    return out


def _load_npy(path: str, where: str):
    """A ``.npy`` file named by an argument (``@file.npy``), or a usage error naming it."""
    import numpy as np
    try:
        return np.load(Path(path), allow_pickle=False)
    except (OSError, ValueError) as e:
        raise _usage(f"{where}: cannot load {path}: {e}") from None


class _StructValue:
    """A struct argument some of whose pointer members are arrays given by --arg specs
    (``{n=1024, x=float32[1024]=uniform}``): ``value`` as ``simt.byvalue.pack`` takes it,
    each such array (numpy) where its spec was; ``members``: (path, spec, array) of each,
    in ``byvalue.map_pointers``'s order."""

    def __init__(self, value, members):
        self.value, self.members = value, members


def _record_arg(text: str, p, where: str, rng):
    """A struct or vector passed by value (numpy structured scalar, ``simt.byvalue``):
    ``{0.5,1024}`` (every member in order), ``{alpha=0.5,n=1024}`` (by name, the others
    zero), nested braces for nested members, ``Params={...}`` (the struct's name first) or
    ``@value.npy`` (a numpy structured scalar or one-element array with the same members).
    A pointer member takes an array spec (``x=float32[1024]=uniform``): the struct then
    comes back as a ``_StructValue`` holding the arrays, each copied to the device and
    pointed at by its member at the launch."""
    from simt import argspec, byvalue
    from simt.ctypes_ import Scalar
    from simt.errors import UsageError

    t = text.strip()
    if t.startswith("@"):
        value = _load_npy(t[1:], where)
        if not value.dtype.names:
            raise _usage(f"{where} is a {p.ctype} passed by value; {t[1:]} holds {value.dtype} "
                         "values, not a numpy structured value")
        return byvalue.pack(p.ctype, value, where, spec=text)
    if not argspec.is_record(t):
        raise _usage(f"{where} is a {p.ctype} passed by value: give its members in braces, e.g. "
                     f"{byvalue.example(p.ctype)}, not {text!r}")
    tname, value = argspec.record(t)
    from simt.ctypes_ import TYPEDEFS
    if tname is not None and tname != p.ctype.name and TYPEDEFS.get(tname) != p.ctype:
        raise _usage(f"{where} is a {p.ctype}, not {tname}: write {p.ctype.name}={{...}} or "
                     "just the braces")
    members = []

    def build(x, mt, path):
        if not isinstance(x, str) or x.strip() in ("0", "NULL", "nullptr"):
            return x
        label = f"{where}, member {path} ({mt})"
        pdt = mt.base.dtype if isinstance(mt.base, Scalar) else None
        if pdt is None and str(mt.base) != "void":
            raise _usage(f"{label} points to {mt.base}: the command line gives a pointer member "
                         "an array of numbers (pass the struct from Python for others)")
        try:
            spec = argspec.parse(x, default_dtype=pdt)
            arr = spec.build(rng, base_dir=Path.cwd()) if spec.is_array else None
        except UsageError as e:
            raise _usage(f"{label}: {e.message}") from None
        if arr is None:
            raise _usage(f"{label} is a pointer: give an array such as "
                         f"{pdt.name if pdt is not None else 'float32'}[1024]=zeros, not {x!r}")
        if pdt is not None and arr.dtype != pdt:
            raise _usage(f"{label} points to {pdt.name}, but {x!r} gives {arr.dtype.name} values; "
                         f"write {pdt.name}[...] instead")
        members.append((path, x, arr))
        return arr

    value = byvalue.map_pointers(p.ctype, value, build)
    packed = byvalue.pack(p.ctype, value, where, spec=text, pointer=lambda a, w: 0)
    return _StructValue(value, members) if members else packed


def _param_dtype(p):
    import numpy as np

    dt = getattr(p, "dtype", None)
    if dt is None:
        return None
    try:
        dt = np.dtype(dt)
    except TypeError:
        return None
    return dt if dt.kind in "biuf" else None


def _parse_outs(args, params, symbols=()) -> dict:
    """--out NAME=PATH: keys are parameter positions, or the names of module variables."""
    outs: dict = {}
    for item in args.out or []:
        if "=" not in item:
            raise _usage(f"bad --out {item!r}: expected NAME=path.npy (NAME: a parameter name or position)")
        key, _, dest = item.partition("=")
        key, dest = key.strip(), dest.strip()
        if not dest:
            raise _usage(f"bad --out {item!r}: expected a file name after '='")
        idx = None
        if key.isdigit() and 1 <= int(key) <= len(params):
            idx = int(key) - 1
        else:
            for i, p in enumerate(params):
                if p.name == key:
                    idx = i
        if idx is None and key in symbols:
            idx = key
        if idx is None:
            more = f"; the file's variables: {', '.join(symbols)}" if symbols else ""
            raise _usage(f"bad --out {item!r}: no parameter {key!r}; the kernel's are "
                         f"{', '.join(p.name for p in params) or 'none'}{more}")
        if isinstance(idx, int) and not params[idx].is_pointer:
            raise _usage(f"bad --out {item!r}: {params[idx].name} is a scalar, not an array")
        path = Path(dest)
        if path.suffix != ".npy":
            path = path.with_name(path.name + ".npy")
        if not path.parent.is_dir():
            raise _usage(f"bad --out {item!r}: no such directory: {path.parent}")
        outs[idx] = path
    return outs


def _run_file(args) -> int:
    import numpy as np

    t0 = time.perf_counter()
    path, mod, fn, name, cfg = _load_kernel(args)
    params, specs, values = _build_args(args, fn, name)
    syms = _build_symbols(args, mod, path)
    members = _member_labels(params, values)
    outs = _parse_outs(args, params, list(mod.globals) + members)
    if args.real:
        return _run_file_real(args, path, mod, name, cfg, params, specs, values, syms, outs, t0)

    import simt
    from simt.errors import LaunchError

    dev = simt.Device()
    dargs, on_device = _device_args(params, values, dev.to_device)
    for sym, v in syms.items():
        mod.get_global(dev, sym).set(v)
    policy = args.policy or "lockstep"
    progress = args.progress
    progress.label(f"{name}{cfg}")
    rec = {"kernel": name, "source": str(path), "grid": list(cfg.grid.as_tuple()),
           "block": list(cfg.block.as_tuple()), "shared_mem": cfg.shared_mem,
           "config": f"{name}{cfg}", "wall_s": None}
    report = {
        "id": f"{path}:{name}", "backend": "emulator", "device": DEVICE, "correct": None,
        "metrics": {}, "sanitizer": [], "predicted_ms": None, "measured_ms": None,
        "file": str(path), "kernel": name, "signature": _signature(name, params),
        "seed": args.seed, "policy": policy, "sanitize": not args.no_sanitize,
        "launches": [rec], "lost_updates": None,
    }
    error = None
    results = []
    gpu = None
    t1 = time.perf_counter()
    try:
        gpu = _gpu_profile(args)
        report["gpu"] = gpu.name
        sample = _sample_arg(args)
        if sample == "auto":
            from kernels_cuda.backend import auto_sample
            sample = auto_sample(cfg, fn)
        res = fn.launch(dev, cfg, dargs, seed=args.seed, policy=policy,
                        sanitize=not args.no_sanitize, step_budget=args.step_budget,
                        progress=progress, sample_blocks=sample, gpu=gpu)
        if res.sampled_blocks:
            report["sampled"] = _sampled([res])
        results.append(res)
    except LaunchError as err:
        error = err
    finally:
        progress.close()
    rec["wall_s"] = time.perf_counter() - t1
    _fill_from_results(report, results, gpu)
    if error is not None:
        report["sanitizer"].append(_error_finding(error))
        report["error"] = str(error)
    arrays = []
    for i, (p, spec, before, d) in enumerate(zip(params, specs, values, dargs)):
        if not p.is_pointer:
            continue
        after = np.asarray(d.get())
        item = _array_summary(p, spec, before, after)
        if i in outs:
            _save(outs[i], after)
            item["saved_to"] = str(outs[i])
        arrays.append(item)
    arrays += _member_items(params, values, [None if d is None else [np.asarray(x.get()) for x in d]
                                             for d in on_device], outs)
    arrays += _symbol_items(mod, syms, {n: mod.get_global(dev, n).get() for n in mod.globals}, outs)
    report["arrays"] = arrays
    report["elapsed_s"] = round(time.perf_counter() - t0, 4)
    _report(args, report)
    if error is not None:
        raise error
    return 0


def _device_args(params, values, to_device) -> tuple[list, list]:
    """The launch's arguments from ``_build_args``' values: each array through
    ``to_device``, and so is each array a struct's pointer member was given
    (``_StructValue``; the backend packs the struct with their addresses).  Returns the
    arguments and, per parameter, the device arrays of its members (None for others)."""
    from simt import byvalue

    dargs, members = [], []
    for p, v in zip(params, values):
        if isinstance(v, _StructValue):
            value, got = byvalue.member_arrays_to(p.ctype, v.value, to_device)
            dargs.append(value)
            members.append(got)
        else:
            dargs.append(to_device(v) if p.is_pointer else v)
            members.append(None)
    return dargs, members


def _member_labels(params, values) -> list:
    """``p.x`` for each pointer member given an array (``_StructValue``): names for --out."""
    return [f"{p.name}.{path}" for p, v in zip(params, values) if isinstance(v, _StructValue)
            for path, _, _ in v.members]


def _member_items(params, values, afters, outs) -> list:
    """The summaries of the arrays struct members point to (``p.x``), after the launch
    (``afters``: per parameter, the member arrays in ``_StructValue.members``' order)."""
    from types import SimpleNamespace

    items = []
    for p, v, after in zip(params, values, afters):
        if not isinstance(v, _StructValue) or after is None:
            continue
        for (path, spec, before), a in zip(v.members, after):
            label = f"{p.name}.{path}"
            item = _array_summary(SimpleNamespace(name=label, ctype=f"{p.ctype} member"), spec, before, a)
            if label in outs:
                _save(outs[label], a)
                item["saved_to"] = str(outs[label])
            items.append(item)
    return items


def _array_summary(p, spec, before, after) -> dict:
    import numpy as np

    if after.dtype.names:            # an array of structs: one summary per member
        members = {f: _array_summary(p, spec, before[f], after[f]) for f in after.dtype.names}
        return {"name": p.name, "ctype": str(getattr(p, "ctype", "")), "spec": spec,
                "dtype": "struct", "shape": list(after.shape),
                "sum": {f: m["sum"] for f, m in members.items()},
                "min": {f: m["min"] for f, m in members.items()},
                "max": {f: m["max"] for f, m in members.items()},
                "first": [{f: _py(x[f]) for f in after.dtype.names} for x in after.reshape(-1)[:2]],
                "changed": any(m["changed"] for m in members.values())}
    flat = after.reshape(-1)
    acc = np.float64 if after.dtype.kind == "f" else (np.uint64 if after.dtype.kind == "u" else np.int64)
    with np.errstate(over="ignore", invalid="ignore"):
        total = flat.sum(dtype=acc)
    changed = not np.array_equal(before, after, equal_nan=after.dtype.kind == "f")
    return {"name": p.name, "ctype": str(getattr(p, "ctype", "")), "spec": spec,
            "dtype": after.dtype.name, "shape": list(after.shape), "sum": _py(total),
            "min": _py(flat.min()) if flat.size else None,
            "max": _py(flat.max()) if flat.size else None,
            "first": [_py(x) for x in flat[:8]], "changed": bool(changed)}


def _save(path: Path, arr) -> None:
    import numpy as np

    try:
        np.save(path, arr)
    except OSError as e:
        raise _usage(f"cannot write {path}: {e.strerror or e}") from None


# ---- on the GPU (kernels_cuda.crosscheck does the work; CuPy is imported only here)

def _cupy_backend():
    """The CuPy backend module, or _NoGPU with a reason a user can act on."""
    try:
        import kernels_cuda.cupy_backend as cb
    except ImportError as e:
        missing = getattr(e, "name", "") or ""
        if missing.startswith("cupy"):
            raise _NoGPU("CuPy is not installed (pip install -e '.[cuda13]' or '.[cuda12]')") from None
        raise _NoGPU(f"the CuPy backend is not available ({e})") from None
    try:
        ok, reason = cb.available()
    except Exception as e:  # a broken driver must not give a traceback
        ok, reason = False, f"{type(e).__name__}: {e}"
    if not ok:
        raise _NoGPU(reason or "unknown reason")
    return cb


def _real_dict(row, **extra) -> dict:
    d = row.as_dict() if hasattr(row, "as_dict") else dict(row)
    d = {k: _py(v) for k, v in d.items()}
    out = {"id": d.pop("id"), "backend": "cuda", "device": d.pop("device", "cuda"),
           "correct": d.pop("correct", None), "metrics": {}, "sanitizer": [],
           "predicted_ms": d.pop("predicted_ms", None), "measured_ms": d.pop("measured_ms", None)}
    out.update(d)
    out.update(extra)
    return out


def _run_entry_real(args, entry, n) -> int:
    _cupy_backend()
    from kernels_cuda import crosscheck

    t0 = time.perf_counter()
    # the emulator runs the same inputs beside the GPU, unless n is far beyond its sizes
    emulate = n <= 4 * entry.default_n
    rows = crosscheck.real_table([entry.id], n=n, seed=args.seed, repeat=args.repeat,
                                 emulate=emulate, policy=args.policy)
    row = rows[0]
    if row.error and row.measured_ms is None:
        raise _usage(f"{entry.id} on the GPU: {row.error}")
    if args.json:
        _emit_json(_real_dict(row, n=n, seed=args.seed, repeat=args.repeat,
                              elapsed_s=round(time.perf_counter() - t0, 4)))
    else:
        print(crosscheck.format_real_table(rows))
        if row.error:
            print(f"note: {row.error}")
    return 0


def _run_file_real(args, path, mod, name, cfg, params, specs, values, syms, outs, t0) -> int:
    import numpy as np

    _cupy_backend()
    from kernels_cuda import crosscheck

    row, after, after_syms = crosscheck.real_launch(
        str(path.resolve()), name, cfg.grid, cfg.block,
        [v.value if isinstance(v, _StructValue) else v for v in values], cfg.shared_mem,
        repeat=args.repeat, symbols=syms, module_vars=mod.globals, params=params)
    arrays = []
    for i, (p, spec, before, a) in enumerate(zip(params, specs, values, after)):
        if p.is_pointer and a is not None:
            a = np.asarray(a)
            item = _array_summary(p, spec, before, a)
            if i in outs:
                _save(outs[i], a)
                item["saved_to"] = str(outs[i])
            arrays.append(item)
    arrays += _member_items(params, values, after, outs)
    arrays += _symbol_items(mod, syms, after_syms, outs)
    report = _real_dict(row, id=f"{path}:{name}", file=str(path), kernel=name,
                        signature=_signature(name, params), seed=args.seed, arrays=arrays,
                        elapsed_s=round(time.perf_counter() - t0, 4))
    if args.json:
        _emit_json(report)
        return 0
    w = sys.stdout.write
    w(f"{report['id']}  on {report['device']}\n")
    w(f"  launch: {name}{cfg}  median of {args.repeat} runs: {_ms(report['measured_ms'])}"
      + (f", {report['gb_per_s']:.1f} GB/s" if report.get("gb_per_s") else "") + "\n")
    _print_arrays(arrays)
    return 0


def cmd_calibrate(args) -> int:
    from kernels_cuda import calibrate
    opts = [("--name", args.name), ("--out", args.out)]
    if args.derive:
        if not Path(args.derive).is_file():
            raise _usage(f"--derive {args.derive}: no such profile file")
        argv = ["--derive", args.derive]
    else:
        if not args.real:
            raise _usage("calibrate measures on a GPU: pass --real on a machine with one "
                         "(or --derive PROFILE to re-derive a recorded one)")
        if args.update and not Path(args.update).is_file():
            raise _usage(f"--update {args.update}: no such profile file")
        _cupy_backend()  # "no usable GPU: <reason>" without a GPU
        argv = ["--real", "--repeat", str(args.repeat)]
        opts += [("--update", args.update), ("--only", args.only)]
    for flag, val in opts:
        if val:
            argv += [flag, val]
    return calibrate.main(argv)


def cmd_check(args) -> int:
    _cupy_backend()
    if args.ncu or args.sanitizer:
        from kernels_cuda import ncu_check
        argv = list(args.ids)
        tools = (["ncu"] if args.ncu else []) + (["racecheck", "synccheck", "memcheck"] if args.sanitizer else [])
        argv += ["--tools", ",".join(tools), "--seed", str(args.seed)]
        if args.n:
            argv += ["--n", str(args.n)]
        if args.out:
            argv += ["--out", args.out]
        return int(ncu_check.main(argv) or 0)
    from kernels_cuda import crosscheck
    from kernels_cuda.cupy_backend import device_name

    bar = args.progress

    def progress(entry, row):
        if row is None and bar.enabled:
            sys.stderr.write(f"\r... {entry.id}\x1b[K")
            sys.stderr.flush()

    try:
        rows = crosscheck.run_check(args.ids, n=args.n, seed=args.seed, timed=args.timed,
                                    sanitize=args.sanitize, progress=progress)
    finally:
        if bar.enabled:
            sys.stderr.write("\r\x1b[K")
    ok = all(r.ok for r in rows)
    if args.json:
        _emit_json({"backend": "cuda", "device": device_name(), "ok": ok, "seed": args.seed,
                    "n": args.n, "rows": [{k: _py(v) for k, v in r.as_dict().items()} for r in rows]})
    else:
        print(crosscheck.format_check_table(rows))
    return 0 if ok else 1


def cmd_bench(args) -> int:
    _cupy_backend()
    from kernels_cuda import crosscheck
    from kernels_cuda.cupy_backend import device_name

    rows = crosscheck.real_table(args.ids or [], n=args.n, seed=args.seed, repeat=args.repeat,
                                 emulate=args.emulate)
    if args.json:
        _emit_json({"backend": "cuda", "device": device_name(), "seed": args.seed, "n": args.n,
                    "repeat": args.repeat, "rows": [_real_dict(r) for r in rows]})
    else:
        print(crosscheck.format_real_table(rows))
    return 0


def _ms(v) -> str:
    return "-" if v is None else f"{v:.3f} ms"


# --------------------------------------------------------------------------- tui

def cmd_tui(args) -> int:
    target = args.target
    if target is None:
        target = _default_target()
    elif _is_file_target(target):
        _check_readable(Path(target))
    else:
        from kernels_cuda import catalog
        catalog.get(target)  # unknown id -> a clear error before the screen changes
    try:
        from tui.app import make_app
    except ModuleNotFoundError as e:
        if e.name in ("tui.app", "textual") or (e.name or "").startswith("textual"):
            what = "Textual is not installed" if "textual" in (e.name or "") else "tui/app.py is missing"
            raise _usage(f"the TUI is not available ({what}); use `simt run "
                         f"{target or DEFAULT_ID}` instead") from None
        raise
    if args.real:
        _cupy_backend()  # "no usable GPU: <reason>" before the screen changes
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise _usage(f"the TUI needs a terminal; without one use `simt run {target or DEFAULT_ID}`")
    opts = {"kernel": args.kernel, "grid": args.grid, "block": args.block,
            "shared_mem": args.shared or 0, "args": tuple(args.args or ()),
            "symbols": tuple(args.symbols or ()), "seed": args.seed,
            "policy": args.policy, "n": args.n, "sanitize": not args.no_sanitize,
            "step_budget": args.step_budget, "launch": args.launch - 1, "real": args.real}
    app = make_app(target, **_accepted(make_app, opts))
    app.run()
    return int(getattr(app, "return_code", 0) or 0)


def _accepted(fn, opts: dict) -> dict:
    """The keywords of ``opts`` that ``fn`` accepts (all of them if it takes **kwargs)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return opts
    ps = sig.parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in ps):
        return opts
    names = {p.name for p in ps}
    return {k: v for k, v in opts.items() if k in names and v is not None}


def _default_target() -> str | None:
    from kernels_cuda import catalog

    ids = [e.id for e in catalog.entries()]
    if DEFAULT_ID in ids:
        return DEFAULT_ID
    return ids[0] if ids else None


# --------------------------------------------------------------------------- output

def _py(v):
    """numpy scalars -> Python numbers (JSON-able)."""
    if hasattr(v, "item") and not isinstance(v, (list, dict, str)):
        try:
            v = v.item()
        except (ValueError, TypeError):
            return v
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return v


def _json_default(o):
    if hasattr(o, "tolist"):
        return o.tolist()
    if hasattr(o, "as_dict"):
        return o.as_dict()
    if isinstance(o, Path):
        return str(o)
    if isinstance(o, (set, tuple)):
        return list(o)
    return str(o)


def _emit_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=_json_default) + "\n")
    sys.stdout.flush()


def _report(args, r: dict) -> None:
    if getattr(args, "json", False):
        _emit_json(r)
        return
    w = sys.stdout.write
    head = r["id"]
    if r.get("title"):
        head += f"  -- {r['title']}"
    w(head + "\n")
    bits = []
    if r.get("n") is not None:
        bits.append(f"n={r['n']}")
    bits.append(f"seed={r.get('seed')}")
    if r["backend"] == "emulator":
        bits.append(f"policy={r.get('policy')}")
        bits.append("sanitizer " + ("on" if r.get("sanitize") else "off"))
    bits.append(f"on {r['device']}")
    w("  " + ", ".join(bits) + "\n")
    for i, rec in enumerate(r.get("launches") or [], 1):
        t = f"  {rec['wall_s']:.2f} s" if rec.get("wall_s") is not None else "  (not finished)"
        w(f"  launch {i}: {rec['config']}{t}\n")
        occ = rec.get("occupancy")
        if occ:
            why = occ["limited_by"]
            if why == "registers":
                why += f" (~{occ['registers_per_thread_est']} a thread, estimated)"
            w(f"    predicted {rec['predicted_ms']:.4f} ms, {occ['bound']}-bound; "
              f"{occ['blocks_per_sm']} blocks per SM (limited by {why}), {occ['waves']} wave"
              f"{'s' if occ['waves'] != 1 else ''}\n")

    # result
    if r.get("error"):
        w("result: the launch stopped with an error (see the sanitizer report below)\n")
    elif r["correct"] is None:
        w("result: no reference for this kernel" + ("; the arrays after the launch:\n" if r.get("arrays") else "\n"))
    elif r["correct"]:
        w("result: correct -- the output matches the numpy reference\n")
    else:
        expect = "" if r.get("expect_correct", True) else " (as expected: the seed has this bug)"
        w(f"result: INCORRECT -- the output differs from the numpy reference{expect}\n")
        for k, m in (r.get("mismatch") or {}).items():
            if "elements" in m:
                idx = ",".join(map(str, m["first_index"]))
                w(f"  {k}: {m['elements']} of {m['of']} elements differ; first {k}[{idx}] = "
                  f"{m['got']}, reference {m['want']}\n")
            else:
                w(f"  {k}: shape {m.get('shape')}, reference shape {m.get('want_shape')}\n")
    if r.get("lost_updates") is not None and (r["lost_updates"] != 0 or r["correct"] is False):
        lost = r["lost_updates"]
        w(f"  lost updates: {lost:,}\n" if isinstance(lost, int) else f"  lost updates: {lost}\n")
    _print_arrays(r.get("arrays") or [])

    lines = r.get("stdout") or []
    if lines:
        w(f"printf output ({len(lines)} line{'s' if len(lines) != 1 else ''}):\n")
        for line in lines[:PRINTF_LINES]:
            w(f"  {line.rstrip(chr(10))}\n")
        if len(lines) > PRINTF_LINES:
            w(f"  ... {len(lines) - PRINTF_LINES} more (all of them in --json's \"stdout\")\n")

    # counters
    m = r.get("metrics") or {}
    if m:
        nl = len(r.get("launches") or [])
        w(f"counters (Nsight Compute names, summed over {nl} launch{'es' if nl != 1 else ''}):\n")
        width = max(len(k) for k in m)
        for k, v in m.items():
            gloss = _GLOSS.get(k, "")
            w(f"  {k:<{width}}  {_fmt_num(v):>14}  {gloss}\n".rstrip() + "\n")
    if r.get("warp_instructions") is not None and "smsp__inst_executed.sum" not in m:
        w(f"  warp instructions {r['warp_instructions']:,}, thread instructions "
          f"{(r.get('thread_instructions') or 0):,}\n")
    if r.get("predicted_ms") is not None:
        w(f"predicted on {r.get('gpu') or 'the GPU'} (simt's timing model): {r['predicted_ms']:.4f} ms\n")
    if r.get("sampled"):
        s = r["sampled"][0]
        w(f"sampled: emulated {s['emulated_blocks']} of {s['total_blocks']} blocks and extrapolated; "
          "outputs not checked (--sample-blocks all to emulate everything)\n")
    if r.get("measured_ms") is not None:
        w(f"measured on {r['device']}: {r['measured_ms']:.3f} ms\n")

    # sanitizer
    if r["backend"] == "emulator":
        if not r.get("sanitize"):
            w("sanitizer: off (--no-sanitize)\n")
        else:
            w(format_sanitizer(r.get("sanitizer") or []))
    w(f"elapsed: {r.get('elapsed_s', 0):.2f} s\n")


def _print_arrays(arrays) -> None:
    for a in arrays:
        shape = "x".join(map(str, a["shape"]))
        if isinstance(a["sum"], dict):        # an array of structs: each member's sum
            state = "written" if a["changed"] else "unchanged"
            sums = ", ".join(f"{f}={_fmt_num(v)}" for f, v in a["sum"].items())
            sys.stdout.write(f"  {a['name']:<12} {a['ctype'].rstrip(' *')}[{shape}]  sums: {sums}  "
                             f"({state})\n")
            continue
        first = " ".join(_fmt_num(x) for x in a["first"])
        more = " ..." if math.prod(a["shape"]) > len(a["first"]) else ""
        state = "written" if a["changed"] else "unchanged"
        saved = f"  -> {a['saved_to']}" if a.get("saved_to") else ""
        sys.stdout.write(f"  {a['name']:<12} {a['dtype']}[{shape}]  sum={_fmt_num(a['sum'])}  "
                         f"[{first}{more}]  ({state}){saved}\n")


def _fmt_num(v) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            return f"{int(v):,}" if abs(v) >= 1000 else f"{v:g}"
        return f"{v:.4g}"
    return str(v)


def format_sanitizer(findings: list[dict]) -> str:
    """Findings as compute-sanitizer prints them."""
    if not findings:
        return "========= COMPUTE-SANITIZER (simt)\n========= ERROR SUMMARY: 0 errors\n"
    out = ["========= COMPUTE-SANITIZER (simt)"]
    errors = warnings = 0
    for f in findings:
        kind = str(f.get("kind") or "error")
        sev = "Warning" if "warn" in kind.lower() else "Error"
        if sev == "Error":
            errors += 1
        else:
            warnings += 1
        where = ""
        if f.get("line") is not None:
            where = f" at {Path(str(f.get('file') or '')).name or '?'}:{f['line']}"
        tool = f.get("tool") or "sanitizer"
        count = f.get("count") or 1
        unit = "hazards" if tool == "racecheck" else "times"
        msg = str(f.get("message", ""))
        tail = f" [{count:,} {unit}]" if count and count > 1 and str(count) not in msg else ""
        label = tool if kind.lower() in ("error", "warning", tool) else f"{tool} {kind}"
        out.append(f"========= {sev}: {f.get('message', '')}")
        out.append(f"=========     {label}{where}{tail}")
        out.append("=========")
    s = "s" if errors != 1 else ""
    out.append(f"========= ERROR SUMMARY: {errors} error{s}"
               + (f", {warnings} warning{'s' if warnings != 1 else ''}" if warnings else ""))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- progress

class _Progress:
    """A one-line progress bar on stderr, drawn only on a TTY and only for long launches."""

    def __init__(self, enabled: bool, delay: float = 0.5, stream=None):
        self.enabled = enabled
        self.delay = delay
        self.stream = stream or sys.stderr
        self.text = ""
        self.start = time.monotonic()
        self.last = 0.0
        self.drawn = False
        self.shown = ""

    def __bool__(self) -> bool:
        return True

    def label(self, text: str) -> None:
        self.text = text
        self.start = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.delay or now - self.last < 0.1:
            return
        self.last = now
        frac = min(max(done / total, 0.0), 1.0) if total else 0.0
        width = 30
        bar = "#" * int(frac * width) + "." * (width - int(frac * width))
        line = f"\r[{bar}] {frac * 100:5.1f}%  {self.text[:60]}\x1b[K"
        if line == self.shown:
            return
        self.shown = line
        self.stream.write(line)
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False
            self.shown = ""


if __name__ == "__main__":  # python -m tui.cli
    sys.exit(main())
