"""Seed 003's streams program on a real GPU through CuPy: ``simt streams --real``.

The same program the seed writes, in Python: an image of W x H bytes split into N
chunks, each copied in, inverted by ``inverter_pixels`` (``streams.cu``) and copied out;

* synchronous: ``cudaMemcpy`` / kernel / ``cudaMemcpy`` per chunk on the legacy default
  stream;
* asynchronous: chunk c on stream c (``cupy.cuda.Stream(non_blocking=True)``) with
  ``cudaMemcpyAsync``, issued depth-first (H2D0 K0 D2H0 H2D1 ...) or breadth-first (all
  H2D, all K, all D2H), then every stream synchronized;

with the host buffers either pageable (plain numpy arrays: the seed's ``malloc``) or
pinned (``cupyx.empty_pinned``: ``cudaMallocHost``).  Each version is timed like the
seed times it, with a CUDA event recorded on the default stream before the host issues
anything and one after the host has synchronized every stream, so the host's issue
cost is part of the time; the median of ``repeat`` runs after ``warmup`` runs.  One
extra traced run per version records an event before and after every operation in its
stream, which gives a measured timeline (an operation's start is when its stream
reached it, moved later to the end of the previous operation on the same engine).

``calibrate()`` measures what ``simt.streams``'s GPU profile needs: pinned and pageable
H2D/D2H bandwidth and latency at the chunk size, full-duplex behaviour, the kernel's
time and the device's copy bandwidth, and the host's cost per API call from Python.

Runs on the GPU machine on its own (``python -m kernels_cuda.streams_real``): it imports
numpy and CuPy only (not simt, whose C parser may be missing there).
"""
from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

KERNEL_FILE = Path(__file__).resolve().parent / "streams.cu"
BLOCK = 256
MEMORY = ("pageable", "pinned")
ORDERS = ("depth", "breadth")


def _cupy():
    import cupy  # noqa: PLC0415  (lazy on purpose)
    return cupy


def available() -> tuple[bool, str]:
    """``(True, device name)`` or ``(False, reason)``."""
    try:
        cupy = _cupy()
    except ImportError:
        return False, ("CuPy is not installed: install cupy-cuda12x or cupy-cuda13x on a "
                       "machine with an NVIDIA GPU")
    except Exception as exc:  # a broken CUDA install raises all sorts of things
        return False, f"CuPy failed to import: {exc}"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return False, "no CUDA device found"
        return True, device_info()["name"]
    except Exception as exc:
        s = str(exc).strip().splitlines()
        return False, f"no usable CUDA device: {s[0] if s else type(exc).__name__}"


def device_info() -> dict:
    cupy = _cupy()
    rt = cupy.cuda.runtime
    p = rt.getDeviceProperties(cupy.cuda.Device().id)
    name = p["name"].decode() if isinstance(p["name"], bytes) else str(p["name"])
    return {"name": name, "compute_capability": f"{p['major']}.{p['minor']}",
            "sms": int(p["multiProcessorCount"]),
            "async_engine_count": int(p.get("asyncEngineCount", 0)),
            "concurrent_kernels": bool(p.get("concurrentKernels", 0)),
            "cupy": cupy.__version__, "cuda_runtime": rt.runtimeGetVersion(),
            "driver": rt.driverGetVersion()}


def chunk_spans(width: int, height: int, nstreams: int) -> list[tuple[int, int]]:
    """(byte offset, bytes) of each chunk: ceil(height / nstreams) rows each, the last
    shorter (the same split as ``simt.streams.chunks``)."""
    per = -(-height // nstreams)
    out = []
    for c in range(nstreams):
        r0 = c * per
        rows = max(0, min(per, height - r0))
        if rows:
            out.append((r0 * width, rows * width))
    return out


_FN = None


def _kernel():
    global _FN
    if _FN is None:
        cupy = _cupy()
        mod = cupy.RawModule(code=KERNEL_FILE.read_text(), options=("--std=c++17",))
        _FN = mod.get_function("inverter_pixels")
    return _FN


def _host_buffer(nbytes: int, memory: str) -> np.ndarray:
    if memory == "pinned":
        import cupyx  # noqa: PLC0415
        a = cupyx.empty_pinned((nbytes,), dtype=np.uint8)
    else:
        a = np.empty(nbytes, dtype=np.uint8)
    a.fill(0)                       # touch every page before timing
    return a


class Rig:
    """Buffers, streams and the kernel for one memory kind; ``run()`` times one version."""

    def __init__(self, width: int, height: int, nstreams: int, memory: str, seed: int = 0):
        cupy = _cupy()
        self.cupy = cupy
        self.rt = cupy.cuda.runtime
        self.memory = memory
        self.spans = chunk_spans(width, height, nstreams)
        total = width * height
        self.h_in = _host_buffer(total, memory)
        self.h_in[:] = np.random.default_rng(seed).integers(0, 256, total, dtype=np.uint8)
        self.h_out = _host_buffer(total, memory)
        self.d = [cupy.empty(n, dtype=np.uint8) for _off, n in self.spans]
        self.streams = [cupy.cuda.Stream(non_blocking=True) for _ in self.spans]
        self.null = cupy.cuda.Stream.null
        self.fn = _kernel()
        self.H2D = self.rt.memcpyHostToDevice
        self.D2H = self.rt.memcpyDeviceToHost

    # ---- the three operations (stream None: the synchronous cudaMemcpy)
    def h2d(self, c: int, stream=None) -> None:
        off, n = self.spans[c]
        src = self.h_in.ctypes.data + off
        if stream is None:
            self.rt.memcpy(self.d[c].data.ptr, src, n, self.H2D)
        else:
            self.rt.memcpyAsync(self.d[c].data.ptr, src, n, self.H2D, stream.ptr)

    def kernel(self, c: int, stream) -> None:
        _off, n = self.spans[c]
        with stream:
            self.fn((-(-n // BLOCK),), (BLOCK,), (self.d[c], np.int32(n)))

    def d2h(self, c: int, stream=None) -> None:
        off, n = self.spans[c]
        dst = self.h_out.ctypes.data + off
        if stream is None:
            self.rt.memcpy(dst, self.d[c].data.ptr, n, self.D2H)
        else:
            self.rt.memcpyAsync(dst, self.d[c].data.ptr, n, self.D2H, stream.ptr)

    def plan(self, mode: str, order: str) -> list[tuple[str, int]]:
        k = range(len(self.spans))
        if mode == "sync" or order == "depth":
            return [(op, c) for c in k for op in ("h2d", "kernel", "d2h")]
        return [(op, c) for op in ("h2d", "kernel", "d2h") for c in k]

    def run(self, mode: str, order: str = "depth", trace: bool = False):
        """One run of the synchronous or asynchronous version: (ms, trace or None)."""
        cupy = self.cupy
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        marks = []
        start.record(self.null)
        for op, c in self.plan(mode, order):
            s = self.null if mode == "sync" else self.streams[c]
            if trace:
                e0 = cupy.cuda.Event()
                e0.record(s)
            if op == "kernel":
                self.kernel(c, s)
            elif op == "h2d":
                self.h2d(c, None if mode == "sync" else s)
            else:
                self.d2h(c, None if mode == "sync" else s)
            if trace:
                e1 = cupy.cuda.Event()
                e1.record(s)
                marks.append((op, c, 0 if mode == "sync" else c, e0, e1))
        if mode != "sync":
            for s in self.streams:
                s.synchronize()
        stop.record(self.null)
        stop.synchronize()
        ms = cupy.cuda.get_elapsed_time(start, stop)
        if not trace:
            return ms, None
        tl = [{"kind": op, "chunk": c, "stream": s,
               "ready_ms": cupy.cuda.get_elapsed_time(start, e0),
               "end_ms": cupy.cuda.get_elapsed_time(start, e1)} for op, c, s, e0, e1 in marks]
        return ms, tl

    def correct(self) -> bool:
        return bool(np.array_equal(self.h_out, 255 - self.h_in))

    def time(self, mode: str, order: str, repeat: int, warmup: int) -> dict:
        for _ in range(warmup):
            self.run(mode, order)
        self.h_out.fill(0)
        samples = []
        gc_was = gc.isenabled()
        gc.disable()
        try:
            for _ in range(repeat):
                samples.append(self.run(mode, order)[0])
        finally:
            if gc_was:
                gc.enable()
        ok = self.correct()
        _ms, tl = self.run(mode, order, trace=True)
        return {"ms": statistics.median(samples), "min_ms": min(samples),
                "samples_ms": [round(x, 5) for x in samples], "correct": ok,
                "timeline": engine_timeline(tl, 2)}


def engine_timeline(tl: list[dict], copy_engines: int) -> list[dict]:
    """Traced operations with an engine and a start: the stream's readiness, moved later
    to the end of the previous operation (by end time) on the same engine."""
    def engine(kind):
        if kind == "kernel":
            return "compute"
        if copy_engines == 1:
            return "copy"
        return "copy H2D" if kind == "h2d" else "copy D2H"
    out = []
    last_end: dict[str, float] = {}
    for rec in sorted(tl, key=lambda r: r["end_ms"]):
        e = engine(rec["kind"])
        st = max(rec["ready_ms"], last_end.get(e, 0.0)) if rec["kind"] != "kernel" else rec["ready_ms"]
        st = min(st, rec["end_ms"])
        last_end[e] = rec["end_ms"]
        out.append({"stream": rec["stream"], "kind": rec["kind"], "engine": e,
                    "chunk": rec["chunk"], "start_ms": round(st, 5),
                    "end_ms": round(rec["end_ms"], 5), "ready_ms": round(rec["ready_ms"], 5)})
    out.sort(key=lambda r: (r["start_ms"], r["end_ms"]))
    return out


# --------------------------------------------------------------------------- calibration

def _median_events(fn, stream, repeat: int = 20, warmup: int = 3) -> float:
    cupy = _cupy()
    out = []
    for k in range(warmup + repeat):
        e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
        e0.record(stream)
        fn()
        e1.record(stream)
        e1.synchronize()
        if k >= warmup:
            out.append(cupy.cuda.get_elapsed_time(e0, e1))
    return statistics.median(out)


def _host_us(fn, count: int = 200, after=None) -> float:
    fn()
    if after:
        after()
    t0 = time.perf_counter()
    for _ in range(count):
        fn()
    dt = time.perf_counter() - t0
    if after:
        after()
    return dt / count * 1e6


def calibrate(chunk_bytes: int, repeat: int = 20) -> dict:
    """Copy bandwidths and latencies (pinned and pageable, both directions), duplex
    factor, kernel time, device copy bandwidth and host API costs, at ``chunk_bytes``."""
    cupy = _cupy()
    rt = cupy.cuda.runtime
    H2D, D2H = rt.memcpyHostToDevice, rt.memcpyDeviceToHost
    n = int(chunk_bytes)
    small = 4096
    s1 = cupy.cuda.Stream(non_blocking=True)
    s2 = cupy.cuda.Stream(non_blocking=True)
    dev = cupy.empty(4 * n, dtype=np.uint8)
    dev2 = cupy.empty(4 * n, dtype=np.uint8)
    res: dict = {"chunk_bytes": n}
    for memory in MEMORY:
        h = _host_buffer(4 * n, memory)
        for d, kind in (("h2d", H2D), ("d2h", D2H)):
            def cp(size, d=d, kind=kind, h=h):
                if d == "h2d":
                    rt.memcpyAsync(dev.data.ptr, h.ctypes.data, size, kind, s1.ptr)
                else:
                    rt.memcpyAsync(h.ctypes.data, dev.data.ptr, size, kind, s1.ptr)
            t_small = _median_events(lambda: cp(small), s1, repeat) * 1e3      # us
            t_chunk = _median_events(lambda: cp(n), s1, repeat) * 1e3
            t_big = _median_events(lambda: cp(4 * n), s1, max(5, repeat // 2)) * 1e3
            # model: t = latency + bytes / bandwidth, exact at 4 KiB and at the chunk size
            slope = max(t_chunk - t_small, 1e-3) / (n - small)              # us per byte
            lat = max(0.0, t_small - small * slope)
            gbps = n / max(t_chunk - lat, 1e-3) / 1e3
            res[f"{memory}_{d}"] = {"small_us": round(t_small, 3), "chunk_us": round(t_chunk, 3),
                                    "big_us": round(t_big, 3), "latency_us": round(lat, 3),
                                    "gbps": round(gbps, 3),
                                    "big_gbps": round(4 * n / t_big / 1e3, 3)}
        if memory == "pinned":
            # both directions at once, 4 chunks each, on two streams
            h2 = _host_buffer(4 * n, memory)

            def both():
                e0 = cupy.cuda.Event()
                e0.record(s1)
                s2.wait_event(e0)
                rt.memcpyAsync(dev.data.ptr, h.ctypes.data, 4 * n, H2D, s1.ptr)
                rt.memcpyAsync(h2.ctypes.data, dev2.data.ptr, 4 * n, D2H, s2.ptr)
                e2 = cupy.cuda.Event()
                e2.record(s2)
                s1.wait_event(e2)
            t_both = _median_events(both, s1, max(5, repeat // 2)) * 1e3
            alone = max(res["pinned_h2d"]["big_us"], res["pinned_d2h"]["big_us"])
            res["duplex"] = {"both_us": round(t_both, 3), "alone_max_us": round(alone, 3),
                             "factor": round(min(1.0, alone / t_both), 3)}
            # host cost of one cudaMemcpyAsync call (pinned, tiny) and of a blocking cudaMemcpy
            res["api_copy_us"] = round(_host_us(
                lambda: rt.memcpyAsync(dev.data.ptr, h.ctypes.data, 4, H2D, s1.ptr),
                after=s1.synchronize), 3)
            res["memcpy_roundtrip_us"] = round(_host_us(
                lambda: rt.memcpy(dev.data.ptr, h.ctypes.data, 4, H2D), count=100), 3)
        del h
    # the kernel on one chunk, and the host cost of a launch
    fn = _kernel()

    def launch(size=n, stream=s1):
        with stream:
            fn((-(-size // BLOCK),), (BLOCK,), (dev, np.int32(size)))
    res["kernel_us"] = round(_median_events(launch, s1, repeat) * 1e3, 3)
    res["api_launch_us"] = round(_host_us(lambda: launch(BLOCK), after=s1.synchronize), 3)
    # device copy bandwidth (bytes read + written), 256 MiB
    m = 1 << 28
    a = cupy.empty(m, dtype=np.uint8)
    b = cupy.empty(m, dtype=np.uint8)
    t = _median_events(lambda: b.data.copy_from_device_async(a.data, m, s1), s1, 10)
    res["dram_gbps"] = round(2 * m / (t * 1e-3) / 1e9, 1)
    del a, b
    return res


def profile_update(cal: dict, info: dict | None = None) -> dict:
    """The fields of a ``simt.streams`` profile that a calibration measures."""
    rt = cal["memcpy_roundtrip_us"]
    sync_us = max(1.0, rt - cal["api_copy_us"] - cal["pinned_h2d"]["small_us"])
    kernel_launch = max(0.5, cal["kernel_us"] - 2 * cal["chunk_bytes"] / (cal["dram_gbps"] * 1e3))
    up = {
        "dram_gbps": cal["dram_gbps"],
        "kernel_launch_us": round(kernel_launch, 3),
        "pcie": {
            "pinned_h2d_gbps": cal["pinned_h2d"]["gbps"], "pinned_d2h_gbps": cal["pinned_d2h"]["gbps"],
            "pageable_h2d_gbps": cal["pageable_h2d"]["gbps"],
            "pageable_d2h_gbps": cal["pageable_d2h"]["gbps"],
            "latency_us": round((cal["pinned_h2d"]["latency_us"] + cal["pinned_d2h"]["latency_us"]) / 2, 3),
            "pageable_latency_us": round((cal["pageable_h2d"]["latency_us"]
                                          + cal["pageable_d2h"]["latency_us"]) / 2, 3),
            "duplex": cal["duplex"]["factor"],
        },
        "host": {"api_copy_us": cal["api_copy_us"], "api_launch_us": cal["api_launch_us"],
                 "sync_us": round(sync_us, 3)},
    }
    if info:
        up["name"] = info["name"]
        up["sms"] = info["sms"]
        up["copy_engines"] = 2 if info.get("async_engine_count", 0) >= 2 else 1
    return up


# --------------------------------------------------------------------------- measure

def measure(width: int = 3840, height: int = 2160, nstreams: int = 6, *,
            memories=MEMORY, orders=ORDERS, repeat: int = 20, warmup: int = 3,
            do_calibrate: bool = True, sweep=None) -> dict:
    """Everything ``simt streams --real`` shows: device, calibration, and per memory and
    order the synchronous and asynchronous times (median of ``repeat``) with traced
    timelines; ``sweep``: stream counts to time (pinned, depth-first) as well."""
    ok, why = available()
    if not ok:
        raise RuntimeError(why)
    info = device_info()
    out = {"device": info, "params": {"width": width, "height": height, "streams": nstreams,
                                      "repeat": repeat, "warmup": warmup,
                                      "timing": "CUDA events on the default stream around "
                                                "the whole host loop, median of repeat"}}
    spans = chunk_spans(width, height, nstreams)
    if do_calibrate:
        cal = calibrate(spans[0][1], repeat)
        out["calibration"] = cal
        out["profile_update"] = profile_update(cal, info)
    runs = []
    for memory in memories:
        rig = Rig(width, height, nstreams, memory)
        sync = rig.time("sync", "depth", repeat, warmup)
        for order in orders:
            asy = rig.time("async", order, repeat, warmup)
            runs.append({"memory": memory, "order": order,
                         "sync_ms": round(sync["ms"], 5), "async_ms": round(asy["ms"], 5),
                         "speedup": round(sync["ms"] / asy["ms"], 4),
                         "correct": bool(sync["correct"] and asy["correct"]),
                         "sync_samples_ms": sync["samples_ms"],
                         "async_samples_ms": asy["samples_ms"],
                         "timeline": asy["timeline"], "sync_timeline": sync["timeline"]})
        del rig
    out["runs"] = runs
    if sweep:
        rows = []
        for k in sweep:
            if not 1 <= k <= height:
                continue
            rig = Rig(width, height, k, "pinned")
            s = rig.time("sync", "depth", max(5, repeat // 2), 2)
            a = rig.time("async", "depth", max(5, repeat // 2), 2)
            rows.append({"streams": k, "memory": "pinned", "order": "depth",
                         "sync_ms": round(s["ms"], 5), "async_ms": round(a["ms"], 5),
                         "speedup": round(s["ms"] / a["ms"], 4)})
            del rig
        out["sweep"] = rows
    return out


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WxH like 3840x2160, got {text!r}") from None
    if w < 1 or h < 1:
        raise argparse.ArgumentTypeError(f"expected a positive WxH, got {text!r}")
    return w, h


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m kernels_cuda.streams_real",
                                description="Time seed 003's streams program on the GPU "
                                            "(sync vs async, pageable vs pinned) and "
                                            "calibrate simt.streams' GPU profile.")
    p.add_argument("--size", type=_size, default=(3840, 2160), metavar="WxH")
    p.add_argument("--streams", type=int, default=6)
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--no-calibrate", action="store_true")
    p.add_argument("--sweep", default="", metavar="N,N,...",
                   help="also time these stream counts (pinned, depth-first)")
    p.add_argument("--out", metavar="FILE.json", help="write the JSON here too")
    args = p.parse_args(argv)
    ok, why = available()
    if not ok:
        print(f"streams_real: {why}", file=sys.stderr)
        return 2
    sweep = [int(x) for x in args.sweep.split(",") if x.strip()]
    res = measure(*args.size, args.streams, repeat=args.repeat, warmup=args.warmup,
                  do_calibrate=not args.no_calibrate, sweep=sweep)
    text = json.dumps(res, indent=1)
    if args.out:
        Path(args.out).write_text(text)
    for r in res["runs"]:
        print(f"{r['memory']:>8} {r['order']:>7}  sync {r['sync_ms']:.3f} ms  async "
              f"{r['async_ms']:.3f} ms  speedup {r['speedup']:.2f}  correct={r['correct']}")
    if "profile_update" in res:
        print(json.dumps(res["profile_update"], indent=1))
    for r in res.get("sweep", []):
        print(f"  streams={r['streams']:>3}  sync {r['sync_ms']:.3f}  async {r['async_ms']:.3f}"
              f"  speedup {r['speedup']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
