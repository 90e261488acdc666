"""``simt streams``: seed 003's image inversion, synchronous versus asynchronous, on the
stream simulator (``simt.streams``) and, with ``--real``, on the GPU through CuPy
(``kernels_cuda.streams_real``).

    simt streams [--memory pinned|pageable] [--streams N] [--copy-engines 1|2]
                 [--order depth|breadth] [--queues fermi|hyperq] [--size WxH]
                 [--gpu NAME] [--kernel-ms MS] [--json] [--real [--repeat R]] [--tui]

Kept out of ``tui/cli.py`` except for the one line that registers the subcommand
(``add_parser``).  Errors a user can cause raise ``simt.UsageError`` (the CLI prints
``simt: ...`` and exits 2); argparse rejects malformed values with exit status 2.
"""
from __future__ import annotations

import argparse
import copy
import json
import sys

MAX_PIXELS = (1 << 31) - 1      # the kernel's `int tamanho`
MAX_STREAMS = 1024


def _size(text: str) -> tuple[int, int]:
    parts = text.lower().replace("*", "x").split("x")
    try:
        w, h = (int(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT like 3840x2160, got {text!r}") from None
    if w < 1 or h < 1:
        raise argparse.ArgumentTypeError(f"width and height must be positive, got {text!r}")
    if w * h > MAX_PIXELS:
        raise argparse.ArgumentTypeError(f"{text} is {w * h:,} pixels; at most {MAX_PIXELS:,} "
                                         f"(the kernel indexes with an int)")
    return w, h


def _streams(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of streams, got {text!r}") from None
    if not 1 <= v <= MAX_STREAMS:
        raise argparse.ArgumentTypeError(f"streams must be between 1 and {MAX_STREAMS}, got {v}")
    return v


def _ms(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected milliseconds, got {text!r}") from None
    if not v >= 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"expected milliseconds >= 0, got {text!r}")
    return v


def _positive(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def add_parser(sub) -> argparse.ArgumentParser:
    """Register ``simt streams`` on the CLI's subparsers."""
    from simt.streams import gpu_names

    sp = sub.add_parser(
        "streams", help="seed 003: copy/compute overlap on streams, simulated (or --real)",
        description="Seed 003's 4K image inversion split into N chunks: copy in, kernel, copy "
                    "out per chunk, first on one stream (synchronous), then chunk i on stream "
                    "i (asynchronous). Prints both total times, the speedup and the timeline "
                    "of the GPU's engines and streams. Pageable (malloc) host memory, as the "
                    "seed writes it, cannot overlap; pinned memory can.",
        epilog="examples:\n"
               "  simt streams                                  # the seed as written (pageable)\n"
               "  simt streams --memory pinned                  # fixed: copies overlap kernels\n"
               "  simt streams --memory pinned --gpu c1060 --order depth    # one copy engine\n"
               "  simt streams --memory pinned --gpu c1060 --order breadth\n"
               "  simt streams --real --json                    # measured on the GPU too",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sp.add_argument("--memory", choices=("pageable", "pinned"), default="pageable",
                    help="host buffers: pageable malloc (the seed, default) or pinned cudaMallocHost")
    sp.add_argument("--streams", type=_streams, default=6, metavar="N",
                    help="streams, one chunk each (default 6, the seed's NSTREAMS)")
    sp.add_argument("--copy-engines", type=int, choices=(1, 2), default=None, dest="copy_engines",
                    help="1: H2D and D2H share one engine (C1060); 2: one per direction "
                         "(default: the GPU profile's)")
    sp.add_argument("--order", choices=("depth", "breadth"), default="depth",
                    help="issue order: depth-first H2D0 K0 D2H0 H2D1 ... (the seed, default) "
                         "or breadth-first all H2D, all K, all D2H")
    sp.add_argument("--queues", choices=("fermi", "hyperq"), default=None,
                    help="hardware queues: fermi (one per engine, in issue order: pre-Kepler) "
                         "or hyperq (one per stream) (default: the GPU profile's)")
    sp.add_argument("--size", type=_size, default=(3840, 2160), metavar="WxH",
                    help="image size in pixels, one byte each (default 3840x2160)")
    sp.add_argument("--gpu", default=None, metavar="NAME",
                    help=f"GPU profile: {', '.join(gpu_names())} (default h200, measured; with --real, "
                         f"the one matching the device)")
    sp.add_argument("--kernel-ms", type=_ms, default=None, metavar="MS", dest="kernel_ms",
                    help="use this kernel time per chunk instead of the emulator's estimate "
                         "(e.g. a heavier kernel, as in NVIDIA's overlap post)")
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    sp.add_argument("--real", action="store_true",
                    help="also run it on the GPU through CuPy (pageable and pinned, CUDA "
                         "events) and show simulated beside measured")
    sp.add_argument("--repeat", type=_positive, default=20, metavar="R",
                    help="with --real: median of R runs (default 20)")
    sp.add_argument("--tui", action="store_true",
                    help="open the timeline in the terminal UI (keys flip memory, order, "
                         "copy engines, queues, GPU, streams)")
    sp.set_defaults(func=cmd_streams)
    return sp


# --------------------------------------------------------------------------- command

def _simulate(args, memory: str, gpu):
    from kernels_cuda.fam_streams import simulate_seed

    w, h = args.size
    return simulate_seed(w, h, args.streams, memory=memory, order=args.order,
                         copy_engines=args.copy_engines, queues=args.queues, gpu=gpu,
                         kernel_ms=args.kernel_ms)


def _merge(base: dict, up: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in up.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def cmd_streams(args) -> int:
    from simt.errors import UsageError
    from simt import streams

    w, h = args.size
    if args.streams > h:
        raise UsageError(f"--streams {args.streams} is more than the image's {h} rows")
    real = None
    gpu = args.gpu
    if gpu is not None:
        streams.get_profile(gpu)          # unknown name: a clear error before any work
    if args.real:
        real, gpu = _measure(args, gpu)
    result = _simulate(args, args.memory, gpu)
    other = _simulate(args, "pinned" if args.memory == "pageable" else "pageable", gpu)
    report = result.as_dict()
    report["other_memory"] = {"memory": other.params["memory"], "sync_ms": round(other.sync_ms, 6),
                              "async_ms": round(other.async_ms, 6),
                              "speedup": round(other.speedup, 4)}
    report["explanation"] = _explanation(args.memory)
    if real is not None:
        report["real"] = real
    if args.tui:
        return _tui(args, gpu, real)
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
        return 0
    _print(result, other, report, args)
    return 0


def _tui(args, gpu, real) -> int:
    from simt.errors import UsageError
    from simt import streams

    try:
        from tui.screens.streams import StreamsApp
    except ModuleNotFoundError as e:
        if (e.name or "").startswith("textual"):
            raise UsageError("the TUI needs Textual (pip install textual); without it use "
                             "`simt streams` for the text timeline") from None
        raise
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("the TUI needs a terminal; without one use `simt streams`")
    measured = None
    if real:
        row = next((r for r in real["rows"] if r["memory"] == args.memory), None)
        if row:
            measured = streams.schedule_from_timeline(row["measured_timeline"])
    app = StreamsApp(memory=args.memory, order=args.order, nstreams=args.streams,
                     copy_engines=args.copy_engines, queues=args.queues, gpu=gpu,
                     kernel_ms=args.kernel_ms, size=args.size, measured=measured)
    app.run()
    return 0


def _explanation(memory: str) -> str:
    from kernels_cuda.fam_streams import EXPLAIN_PAGEABLE, EXPLAIN_PINNED

    return EXPLAIN_PAGEABLE if memory == "pageable" else EXPLAIN_PINNED


def _measure(args, gpu):
    """Run the program on the GPU (both memories, the chosen order) and simulate each
    beside it, with the stored profile and with the one calibrated just now."""
    from simt.errors import UsageError
    from simt import streams
    from kernels_cuda import streams_real

    ok, why = streams_real.available()
    if not ok:
        raise UsageError(f"--real needs a CUDA GPU: {why}")
    w, h = args.size
    meas = streams_real.measure(w, h, args.streams, orders=(args.order,), repeat=args.repeat)
    dev = meas["device"]["name"]
    gpu = gpu or streams.profile_for_device(dev)
    calibrated = _merge(streams.get_profile(gpu), meas["profile_update"])
    calibrated["id"] = f"{streams.get_profile(gpu)['id']}-calibrated-now"
    calibrated["source"] = f"measured just now on {dev}"
    rows = []
    for run in meas["runs"]:
        args_m = argparse.Namespace(**vars(args))
        sim = _simulate(args_m, run["memory"], gpu)
        cal = _simulate(args_m, run["memory"], calibrated)
        rows.append({
            "memory": run["memory"], "order": run["order"], "correct": run["correct"],
            "measured": {"sync_ms": run["sync_ms"], "async_ms": run["async_ms"],
                         "speedup": run["speedup"]},
            "simulated": {"sync_ms": round(sim.sync_ms, 6), "async_ms": round(sim.async_ms, 6),
                          "speedup": round(sim.speedup, 4), "profile": sim.profile["id"]},
            "simulated_calibrated_now": {"sync_ms": round(cal.sync_ms, 6),
                                         "async_ms": round(cal.async_ms, 6),
                                         "speedup": round(cal.speedup, 4)},
            "speedup_ratio": round(run["speedup"] / sim.speedup, 4),
            "measured_timeline": run["timeline"], "measured_sync_timeline": run["sync_timeline"],
            "sync_samples_ms": run["sync_samples_ms"], "async_samples_ms": run["async_samples_ms"],
        })
    real = {"device": meas["device"], "params": meas["params"], "rows": rows,
            "calibration": meas.get("calibration"), "profile_update": meas.get("profile_update")}
    return real, gpu


# --------------------------------------------------------------------------- text

def _print(result, other, report, args) -> None:
    from simt import streams

    p = result.params
    prof = result.profile
    wr = sys.stdout.write
    mib = p["bytes"] / 2**20
    chunks = streams.chunks(p["width"], p["height"], p["streams"])
    wr(f"seed 003: invert a {p['size']} image ({mib:.1f} MiB) in {len(chunks)} chunks on "
       f"{p['streams']} stream{'s' if p['streams'] != 1 else ''}  [{p['catalog_id']}]\n")
    mem = "pageable malloc (as the seed writes it)" if p["memory"] == "pageable" \
        else "pinned cudaMallocHost (the fix)"
    wr(f"  memory {mem}; {p['copy_engines']} copy engine{'s' if p['copy_engines'] != 1 else ''}, "
       f"{p['queues']} queues, {p['order']}-first issue; GPU profile {prof.get('id')} "
       f"({prof['name']})\n")
    first = result.async_.intervals[:3]
    if first:
        names = {"h2d": "H2D", "kernel": "kernel", "d2h": "D2H"}
        bits = ", ".join(f"{names[iv.kind]} {(iv.end_ms - iv.start_ms) * 1e3:.1f} us"
                         for iv in first)
        wr(f"  chunk 0 ({chunks[0].nbytes / 2**20:.2f} MiB): {bits}; kernel time from "
           f"{p['kernel_time_from']}\n")
    wr(f"synchronous   {result.sync_ms:8.3f} ms\n")
    wr(f"asynchronous  {result.async_ms:8.3f} ms\n")
    wr(f"speedup       {result.speedup:8.2f}x\n")
    wr(f"overlap       {result.async_.overlap_ms():8.3f} ms with two or more engines busy "
       f"({result.async_.copy_kernel_overlap_ms():.3f} ms a copy beside a kernel)\n")
    wr(f"  with {other.params['memory']} memory instead: sync {other.sync_ms:.3f} ms, async "
       f"{other.async_ms:.3f} ms, speedup {other.speedup:.2f}x\n\n")
    wr(streams.format_timeline(result) + "\n\n")
    wr(_wrap("why: " + report["explanation"]) + "\n")
    real = report.get("real")
    if real:
        wr("\n" + format_real(real) + "\n")
        row = next((r for r in real["rows"] if r["memory"] == p["memory"]), None)
        if row:
            wr("\n" + format_measured_timeline(result, row) + "\n")


def format_real(real: dict) -> str:
    dev = real["device"]
    lines = [f"measured on {dev['name']} ({dev['async_engine_count']} async engines, CuPy "
             f"{dev['cupy']}), median of {real['params']['repeat']} runs timed with CUDA "
             f"events; simulated with profile {real['rows'][0]['simulated']['profile']}",
             f"  {'memory':<9}{'order':<8}{'sync sim':>10}{'sync real':>11}{'async sim':>11}"
             f"{'async real':>12}{'speedup sim':>13}{'real':>7}{'real/sim':>10}"]
    for r in real["rows"]:
        s, m = r["simulated"], r["measured"]
        lines.append(f"  {r['memory']:<9}{r['order']:<8}{s['sync_ms']:>10.3f}{m['sync_ms']:>11.3f}"
                     f"{s['async_ms']:>11.3f}{m['async_ms']:>12.3f}{s['speedup']:>13.2f}"
                     f"{m['speedup']:>7.2f}{r['speedup_ratio']:>10.2f}"
                     + ("" if r["correct"] else "   OUTPUT WRONG"))
    lines.append("  (times in ms; speedup = sync / async)")
    return "\n".join(lines)


def format_measured_timeline(result, row: dict, width: int = 72) -> str:
    """The simulated and the measured (traced) asynchronous timelines on one scale."""
    from simt import streams

    meas = streams.schedule_from_timeline(row["measured_timeline"])
    span = max(result.async_ms, meas.total_ms)
    return streams.format_schedules(
        [("asynchronous, simulated", result.async_),
         ("asynchronous, measured in a traced run (events around each operation add host "
          "time; the median run took " f"{row['measured']['async_ms']:.3f} ms)", meas)],
        width, span, per_stream=("asynchronous",))


def _wrap(text: str, width: int = 88) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width, subsequent_indent="  "))
