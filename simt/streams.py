"""A deterministic discrete-event simulator of CUDA streams: copies and kernels issued by
a host thread to one or more streams, run on a model of the GPU's engines.

Pure Python (no numpy needed, no textual, no cupy).  It answers seed 003's questions:
what does splitting a copy-in / kernel / copy-out pipeline over streams buy, why does
pageable ``malloc`` memory buy nothing, and why did the order of issue matter on a GPU
with one copy engine (NVIDIA's "How to Overlap Data Transfers in CUDA C/C++").

The model
---------

*Host.*  One host thread issues the operations in the given order.  Each API call costs
host time (``profile["host"]``: ``api_copy_us`` for ``cudaMemcpy[Async]``,
``api_launch_us`` for a kernel launch); an operation becomes visible to the GPU when
its call returns.  A *blocking* call (``cudaMemcpy``, or any copy from or to pageable
memory, see below) keeps the host inside the call until the copy has finished, plus
``sync_us`` for the host to notice; only then is the next operation issued.  The
program ends when the host has issued everything and every stream has drained
(``cudaStreamSynchronize`` on each, ``sync_us`` again).

*Streams.*  Operations of one stream run in issue order (FIFO), each starting after the
previous one of its stream has finished.  Operations of different streams may overlap
when the engines and queues allow.

*Engines.*  ``compute`` runs kernels; the copy engines run copies: with
``copy_engines=2`` one per direction (``copy H2D``, ``copy D2H``: PCIe is full duplex),
with ``copy_engines=1`` a single ``copy`` engine that host-to-device and device-to-host
copies share, one at a time (the Tesla C1060, compute capability 1.x, and GeForce
cards).  A copy takes ``latency_us + bytes / bandwidth`` (``profile["pcie"]``); when
both directions run at once each goes at ``duplex`` times its bandwidth (1.0 = a
perfect full-duplex link).  Kernels: one kernel at a time *unless the kernels are
small*: a kernel holds ``min(blocks, capacity)`` of the device's resident-block
capacity (``sms * blocks_per_sm``), and a later kernel may start beside it only while
the capacity is not used up, i.e. only kernels whose grids do not fill the GPU run
concurrently (each at its own duration: the model does not make concurrent kernels
share bandwidth).  Devices without concurrent kernels (``concurrent_kernels: False``)
run one kernel at a time always.  A kernel that fills the GPU, like seed 003's 5400
blocks per chunk, always runs alone.

*Hardware queues* (``queues``).  ``"fermi"`` (every GPU before Kepler GK110's Hyper-Q,
the C1060 included): one hardware queue per engine, processed strictly in issue order.
An operation at the head of an engine's queue that must wait for its stream (a
device-to-host copy waiting for its kernel) blocks everything queued behind it on that
engine, whatever stream it belongs to.  So with one copy engine, depth-first issue
(H2D0 K0 D2H0 H2D1 K1 D2H1 ...) puts H2D1 behind D2H0, which waits for K0: the copy
engine idles during every kernel and nothing overlaps, while breadth-first issue (all
H2D, then all K, then all D2H) lets H2D(i+1) run during K(i).  ``"hyperq"`` (Kepler
GK110 and later, H100/H200): one hardware queue per stream (32 of them; streams beyond
32 share them round-robin); an engine starts, among the streams' next operations that
are ready, the earliest issued, so the issue order matters much less.  (Not modelled:
Fermi's delayed kernel-completion signal when kernels are queued back to back, which
made breadth-first issue *slower* on a C2050 with two copy engines.)

*Pinned versus pageable host memory.*  A DMA engine can only read or write pinned
(page-locked) memory.  A copy from or to pageable memory (``malloc``, a numpy array) is
staged by the driver through a pinned bounce buffer, with the CPU copying between the
user's buffer and the bounce buffer: ``cudaMemcpyAsync`` on pageable memory is
synchronous for the host (it returns when the data has been staged or delivered), it
first waits for the work ahead of it in its stream, and it runs at the lower
``pageable_*_gbps`` bandwidth.  In the model a pageable copy is a blocking copy: the
host issues nothing after it until it has finished, so it overlaps with nothing issued
after it (the only thing it can run beside is a kernel that was issued *before* it in
another stream, as in breadth-first order).  Seed 003's "asynchronous" version copies
from ``malloc`` memory, hence its speedup of about 1.

The *synchronous* version of the pipeline is the same operations on one stream (the
legacy default stream) with ``cudaMemcpy``: every copy blocking.

Kernel durations: ``kernel_us(bytes, profile)`` (device bandwidth from the profile plus
a launch cost), fed with the bytes the emulator's counters say the kernel moves
(``kernels_cuda.fam_streams``); when the timing model (``simt.timing``) exists, its
prediction replaces this estimate.

Profiles: ``PROFILES`` below is the one place for the numbers (PCIe bandwidths and
latencies, host API costs, device bandwidth).  The H200 numbers were measured on the
device (``python -m kernels_cuda.streams_real``, which calibrates them; `simt streams
--real` also simulates with a profile calibrated on the spot); the H100 shares the
H200's PCIe and host figures; the C1060's are typical published figures for PCIe 2.0
x16 and GT200.
"""
from __future__ import annotations

import copy as _copy
import math
from collections import deque
from dataclasses import dataclass, field

from .errors import UsageError

KINDS = ("h2d", "kernel", "d2h")
MEMORY = ("pinned", "pageable")
ORDERS = ("depth", "breadth")
QUEUES = ("fermi", "hyperq")
HYPERQ_QUEUES = 32
_EPS = 1e-9

# --------------------------------------------------------------------------- profiles
#
# Bandwidths in GB/s (1e9 bytes/s), times in microseconds.  ``dram_gbps`` counts bytes
# read plus bytes written (a device-to-device copy of N bytes moves 2N).  ``host`` is
# the cost of the API calls *as issued from Python through CuPy* for the measured
# devices (the --real program is Python); a C program pays about 2-5 us a call.

PROFILES: dict[str, dict] = {
    # Measured on an NVIDIA H200 (PCIe gen5 x16, 3 async engines, CuPy 14.2, driver 580,
    # 2026-11-21) by `python -m kernels_cuda.streams_real --repeat 30` (calibrate() at the
    # seed's chunk size, 1,382,400 bytes; docs/results/streams.md).
    "h200": {
        "name": "NVIDIA H200",
        "sms": 132, "max_threads_per_sm": 2048, "max_blocks_per_sm": 32,
        "dram_gbps": 4073.6,            # 256 MiB device copy, read + write counted
        "kernel_launch_us": 9.5,        # seed kernel on one chunk, events: 10.2 us in all
        "copy_engines": 2, "queues": "hyperq", "concurrent_kernels": True,
        "pcie": {"pinned_h2d_gbps": 54.4, "pinned_d2h_gbps": 54.2,
                 "pageable_h2d_gbps": 18.0, "pageable_d2h_gbps": 13.4,
                 "latency_us": 4.5, "pageable_latency_us": 6.6,
                 "duplex": 0.86},       # both directions at once: 105 us alone, 122 us together
        "host": {"api_copy_us": 2.3, "api_launch_us": 5.5, "sync_us": 1.2},
        "source": "measured on an NVIDIA H200, 2026-11-21 (docs/results/streams.md)",
    },
    # The H100 machine is a PCIe gen5 x16 host as well: its PCIe and host figures are the
    # H200's (not measured on an H100); device copy bandwidth 3.0 TB/s from a measurement
    # on that machine (read + write counted).
    "h100": {
        "name": "NVIDIA H100 80GB HBM3",
        "sms": 132, "max_threads_per_sm": 2048, "max_blocks_per_sm": 32,
        "dram_gbps": 3000.0,
        "kernel_launch_us": 9.5,
        "copy_engines": 2, "queues": "hyperq", "concurrent_kernels": True,
        "pcie": {"pinned_h2d_gbps": 54.4, "pinned_d2h_gbps": 54.2,
                 "pageable_h2d_gbps": 18.0, "pageable_d2h_gbps": 13.4,
                 "latency_us": 4.5, "pageable_latency_us": 6.6, "duplex": 0.86},
        "host": {"api_copy_us": 2.3, "api_launch_us": 5.5, "sync_us": 1.2},
        "source": "PCIe and host figures measured on an H200 (same PCIe gen5 x16 host "
                  "class), not on an H100",
    },
    "c1060": {
        "name": "Tesla C1060 (GT200, compute capability 1.3)",
        "sms": 30, "max_threads_per_sm": 1024, "max_blocks_per_sm": 8,
        "dram_gbps": 75.0,
        "kernel_launch_us": 7.0,
        "copy_engines": 1, "queues": "fermi", "concurrent_kernels": False,
        "pcie": {"pinned_h2d_gbps": 5.7, "pinned_d2h_gbps": 5.3,
                 "pageable_h2d_gbps": 3.0, "pageable_d2h_gbps": 2.5,
                 "latency_us": 10.0, "pageable_latency_us": 20.0, "duplex": 1.0},
        "host": {"api_copy_us": 4.0, "api_launch_us": 5.0, "sync_us": 10.0},
        "source": "typical published figures, not measured: PCIe 2.0 x16, 102 GB/s GDDR3 "
                  "(75 achievable), one copy engine, no concurrent kernels, no Hyper-Q",
    },
}
ALIASES = {"h100": "h100", "h100-sxm": "h100", "h200": "h200", "c1060": "c1060",
           "tesla-c1060": "c1060", "gt200": "c1060"}
DEFAULT_GPU = "h200"        # the measured one


def gpu_names() -> list[str]:
    return list(PROFILES)


def get_profile(name: str | dict | None = None) -> dict:
    """A deep copy of a profile by name (case-insensitive; ``None``: the default), or the
    dict itself when one is given."""
    if isinstance(name, dict):
        return name
    key = (name or DEFAULT_GPU).strip().lower().replace(" ", "-")
    key = ALIASES.get(key, key)
    if key not in PROFILES:
        raise UsageError(f"unknown GPU profile {name!r}; known: {', '.join(PROFILES)}")
    p = _copy.deepcopy(PROFILES[key])
    p.setdefault("id", key)
    return p


def profile_for_device(device_name: str) -> str:
    """The profile id that best matches a CUDA device name (for --real)."""
    low = device_name.lower()
    for key in ("h200", "h100", "c1060"):
        if key in low:
            return key
    return DEFAULT_GPU


def resident_blocks(profile: dict, block: int) -> int:
    """How many blocks of ``block`` threads the whole device holds at once."""
    per_sm = min(profile["max_blocks_per_sm"], max(1, profile["max_threads_per_sm"] // block))
    return profile["sms"] * per_sm


def copy_us(nbytes: int, kind: str, memory: str, profile: dict) -> float:
    """Duration of one copy on its engine, alone on the link."""
    pcie = profile["pcie"]
    d = "h2d" if kind == "h2d" else "d2h"
    gbps = pcie[f"{memory}_{d}_gbps"]
    lat = pcie["pageable_latency_us"] if memory == "pageable" else pcie["latency_us"]
    return lat + nbytes / (gbps * 1e3)


def kernel_us(nbytes_moved: float, profile: dict) -> float:
    """A memory-bound kernel's duration: launch cost + bytes read and written / device
    bandwidth.  The timing model (simt.timing) replaces this where it exists."""
    return profile["kernel_launch_us"] + nbytes_moved / (profile["dram_gbps"] * 1e3)


# --------------------------------------------------------------------------- operations

@dataclass
class Op:
    """One operation issued by the host."""
    stream: int
    kind: str                 # "h2d", "kernel" or "d2h"
    us: float                 # duration on its engine, alone
    nbytes: int = 0           # bytes copied (copies) or moved in DRAM (kernels)
    chunk: int = 0
    blocks: int = 0           # kernels: grid size (for concurrent kernels)
    blocking: bool = False    # the host waits in the call until it has finished
    pageable: bool = False
    label: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise UsageError(f"unknown operation kind {self.kind!r}; one of {', '.join(KINDS)}")
        if not self.label:
            self.label = {"h2d": "H2D", "kernel": "K", "d2h": "D2H"}[self.kind] + str(self.chunk)


@dataclass
class Interval:
    """An operation as it ran: when the host issued it, when its engine ran it."""
    index: int                # position in issue order
    stream: int
    kind: str
    engine: str
    chunk: int
    label: str
    issue_ms: float
    start_ms: float
    end_ms: float
    nbytes: int = 0
    pageable: bool = False

    def as_dict(self) -> dict:
        return {"index": self.index, "stream": self.stream, "kind": self.kind,
                "engine": self.engine, "chunk": self.chunk, "label": self.label,
                "issue_ms": _r(self.issue_ms), "start_ms": _r(self.start_ms),
                "end_ms": _r(self.end_ms), "bytes": self.nbytes, "pageable": self.pageable}


@dataclass
class Schedule:
    intervals: list[Interval]
    total_ms: float
    engines: list[str]
    streams: list[int]
    host: list[tuple[str, float, float]] = field(default_factory=list)  # ("api"|"wait", t0, t1)

    def on(self, engine: str) -> list[Interval]:
        return [iv for iv in self.intervals if iv.engine == engine]

    def of_stream(self, stream: int) -> list[Interval]:
        return [iv for iv in self.intervals if iv.stream == stream]

    def busy_ms(self, engine: str) -> float:
        return _union_length([(iv.start_ms, iv.end_ms) for iv in self.on(engine)])

    def overlap_ms(self) -> float:
        """Time during which two or more engines were busy at once."""
        pts = []
        for e in self.engines:
            for a, b in _merge([(iv.start_ms, iv.end_ms) for iv in self.on(e)]):
                pts.append((a, 1))
                pts.append((b, -1))
        pts.sort(key=lambda p: (p[0], p[1]))
        depth, last, total = 0, 0.0, 0.0
        for t, d in pts:
            if depth >= 2:
                total += t - last
            depth += d
            last = t
        return total

    def copy_kernel_overlap_ms(self) -> float:
        """Time during which a copy ran while a kernel ran."""
        k = _merge([(iv.start_ms, iv.end_ms) for iv in self.intervals if iv.kind == "kernel"])
        c = _merge([(iv.start_ms, iv.end_ms) for iv in self.intervals if iv.kind != "kernel"])
        return _intersection_length(k, c)

    def as_list(self) -> list[dict]:
        return [iv.as_dict() for iv in self.intervals]


def _r(x: float) -> float:
    return round(float(x), 6)


def _merge(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1] + _EPS:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def _union_length(iv) -> float:
    return sum(b - a for a, b in _merge(iv))


def _intersection_length(x, y) -> float:
    i = j = 0
    total = 0.0
    while i < len(x) and j < len(y):
        a, b = max(x[i][0], y[j][0]), min(x[i][1], y[j][1])
        if b > a:
            total += b - a
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return total


# --------------------------------------------------------------------------- simulator

def engine_names(copy_engines: int) -> list[str]:
    return ["copy H2D", "copy D2H", "compute"] if copy_engines == 2 else ["copy", "compute"]


def _engine_of(kind: str, copy_engines: int) -> str:
    if kind == "kernel":
        return "compute"
    if copy_engines == 1:
        return "copy"
    return "copy H2D" if kind == "h2d" else "copy D2H"


def _check_machine(copy_engines, queues):
    if copy_engines not in (1, 2):
        raise UsageError(f"copy engines must be 1 or 2, got {copy_engines!r}")
    if queues not in QUEUES:
        raise UsageError(f"queues must be one of {', '.join(QUEUES)}, got {queues!r}")


def simulate(ops: list[Op], profile: dict | str | None = None, *, copy_engines: int | None = None,
             queues: str | None = None, block: int = 256) -> Schedule:
    """Run ``ops`` (in issue order) on the profile's engines; returns the Schedule.

    ``copy_engines`` and ``queues`` default to the profile's."""
    profile = get_profile(profile)
    copy_engines = int(copy_engines or profile["copy_engines"])
    queues = queues or profile["queues"]
    _check_machine(copy_engines, queues)
    host = profile["host"]
    duplex = float(profile["pcie"].get("duplex", 1.0))
    capacity = resident_blocks(profile, block)
    concurrent = bool(profile.get("concurrent_kernels", True))
    engines = engine_names(copy_engines)

    n = len(ops)
    eng = [_engine_of(op.kind, copy_engines) for op in ops]
    prev = [-1] * n
    last: dict[int, int] = {}
    for i, op in enumerate(ops):
        prev[i] = last.get(op.stream, -1)
        last[op.stream] = i
    issued: list[float | None] = [None] * n
    start: list[float | None] = [None] * n
    end: list[float | None] = [None] * n
    remaining = [max(float(op.us), 0.0) for op in ops]
    occupancy = [capacity if (not concurrent) else min(max(op.blocks, 1), capacity)
                 for op in ops]
    running: set[int] = set()
    copy_busy: dict[str, int | None] = {e: None for e in engines if e != "compute"}
    compute_used = 0
    if queues == "fermi":
        hwq: dict = {e: deque() for e in engines}
        qkey = lambda i: eng[i]                                      # noqa: E731
    else:
        hwq = {}
        qkey = lambda i: ops[i].stream % HYPERQ_QUEUES               # noqa: E731

    def api_us(op: Op) -> float:
        return host["api_launch_us"] if op.kind == "kernel" else host["api_copy_us"]

    def ready(i: int) -> bool:
        return start[i] is None and (prev[i] < 0 or end[prev[i]] is not None)

    def fits(i: int) -> bool:
        if eng[i] == "compute":
            return compute_used + occupancy[i] <= capacity
        return copy_busy[eng[i]] is None

    def begin(i: int, t: float) -> None:
        nonlocal compute_used
        start[i] = t
        running.add(i)
        if eng[i] == "compute":
            compute_used += occupancy[i]
        else:
            copy_busy[eng[i]] = i

    def dispatch(t: float) -> None:
        if queues == "fermi":
            for e in engines:
                q = hwq[e]
                while q and ready(q[0]) and fits(q[0]):
                    begin(q.popleft(), t)
            return
        while True:
            heads = sorted(q[0] for q in hwq.values() if q)
            for i in heads:
                if ready(i) and fits(i):
                    begin(i, t)
                    hwq[qkey(i)].popleft()
                    break
            else:
                return

    def rate(i: int) -> float:
        if eng[i] == "compute" or copy_engines == 1:
            return 1.0
        both = copy_busy["copy H2D"] is not None and copy_busy["copy D2H"] is not None
        return duplex if both else 1.0

    t = 0.0
    host_t = 0.0
    nxt = 0
    blocked: int | None = None
    host_log: list[tuple[str, float, float]] = []
    wait_from = 0.0
    while True:
        t_issue = math.inf
        if blocked is None and nxt < n:
            t_issue = host_t + api_us(ops[nxt])
        rates = {i: rate(i) for i in running}
        t_fin = min((t + remaining[i] / rates[i] for i in running), default=math.inf)
        t_next = min(t_issue, t_fin)
        if t_next == math.inf:
            break
        dt = t_next - t
        for i in running:
            remaining[i] -= dt * rates[i]
        t = t_next
        for i in sorted(running):
            if remaining[i] <= _EPS * max(1.0, ops[i].us):
                remaining[i] = 0.0
                end[i] = t
                running.discard(i)
                if eng[i] == "compute":
                    compute_used -= occupancy[i]
                else:
                    copy_busy[eng[i]] = None
                if blocked == i:
                    host_log.append(("wait", wait_from, t + host["sync_us"]))
                    host_t = t + host["sync_us"]
                    blocked = None
        if t_issue <= t + _EPS and blocked is None and nxt < n:
            i = nxt
            host_log.append(("api", t - api_us(ops[i]), t))
            issued[i] = t
            host_t = t
            hwq.setdefault(qkey(i), deque()).append(i)
            if ops[i].blocking:
                blocked = i
                wait_from = t
            nxt += 1
        dispatch(t)
    if any(e is None for e in end):
        raise RuntimeError("stream simulation deadlocked")  # cannot happen: FIFO chains only
    last_end = max(end, default=0.0)
    total = max(host_t, last_end + host["sync_us"]) if n else 0.0
    if n and last_end + host["sync_us"] > host_t:
        host_log.append(("wait", host_t, total))
    intervals = [Interval(i, op.stream, op.kind, eng[i], op.chunk, op.label,
                          issued[i] / 1e3, start[i] / 1e3, end[i] / 1e3, op.nbytes, op.pageable)
                 for i, op in enumerate(ops)]
    streams = sorted({op.stream for op in ops})
    return Schedule(intervals, total / 1e3, engines, streams,
                    [(k, a / 1e3, b / 1e3) for k, a, b in host_log])


# --------------------------------------------------------------------------- the pipeline

@dataclass(frozen=True)
class Chunk:
    index: int
    row0: int
    rows: int
    nbytes: int               # bytes of the chunk (one byte per pixel)


def chunks(width: int, height: int, nstreams: int, bytes_per_pixel: int = 1) -> list[Chunk]:
    """Split ``height`` rows into ``nstreams`` chunks of ceil(height / nstreams) rows (the
    last one shorter).  Seed 003 divides exactly (2160 / 6 = 360) and would drop the
    remainder rows; here every row is processed."""
    per = -(-height // nstreams)
    out = []
    for c in range(nstreams):
        r0 = c * per
        rows = max(0, min(per, height - r0))
        if rows:
            out.append(Chunk(c, r0, rows, rows * width * bytes_per_pixel))
    return out


def pipeline_ops(width: int, height: int, nstreams: int, *, memory: str, order: str,
                 mode: str, profile: dict, kernel_us_of, block: int = 256) -> list[Op]:
    """Seed 003's pipeline as operations in issue order.

    ``mode="sync"``: one stream, ``cudaMemcpy`` (blocking) copies, chunk after chunk.
    ``mode="async"``: chunk c on stream c, ``cudaMemcpyAsync`` (blocking anyway when the
    memory is pageable), issued depth-first or breadth-first.  ``kernel_us_of(nbytes)``
    gives a chunk kernel's duration in microseconds."""
    if memory not in MEMORY:
        raise UsageError(f"memory must be one of {', '.join(MEMORY)}, got {memory!r}")
    if order not in ORDERS:
        raise UsageError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
    pageable = memory == "pageable"
    per_chunk = []
    for ch in chunks(width, height, nstreams):
        s = 0 if mode == "sync" else ch.index
        blocks = -(-ch.nbytes // block)
        h2d = Op(s, "h2d", copy_us(ch.nbytes, "h2d", memory, profile), ch.nbytes, ch.index,
                 blocking=(mode == "sync" or pageable), pageable=pageable)
        k = Op(s, "kernel", float(kernel_us_of(ch.nbytes)), 2 * ch.nbytes, ch.index, blocks=blocks)
        d2h = Op(s, "d2h", copy_us(ch.nbytes, "d2h", memory, profile), ch.nbytes, ch.index,
                 blocking=(mode == "sync" or pageable), pageable=pageable)
        per_chunk.append((h2d, k, d2h))
    if mode == "sync" or order == "depth":
        return [op for trio in per_chunk for op in trio]
    return [trio[j] for j in range(3) for trio in per_chunk]


@dataclass
class Result:
    """Synchronous and asynchronous schedules of one configuration."""
    params: dict
    sync: Schedule
    async_: Schedule
    profile: dict

    @property
    def sync_ms(self) -> float:
        return self.sync.total_ms

    @property
    def async_ms(self) -> float:
        return self.async_.total_ms

    @property
    def speedup(self) -> float:
        return self.sync_ms / self.async_ms if self.async_ms > 0 else float("nan")

    def as_dict(self) -> dict:
        return {
            "sync_ms": _r(self.sync_ms), "async_ms": _r(self.async_ms),
            "speedup": round(self.speedup, 4),
            "overlap_ms": _r(self.async_.overlap_ms()),
            "copy_kernel_overlap_ms": _r(self.async_.copy_kernel_overlap_ms()),
            "timeline": self.async_.as_list(),
            "sync_timeline": self.sync.as_list(),
            "engines": self.async_.engines,
            "host": {"async": [{"what": k, "start_ms": _r(a), "end_ms": _r(b)}
                               for k, a, b in self.async_.host],
                     "sync": [{"what": k, "start_ms": _r(a), "end_ms": _r(b)}
                              for k, a, b in self.sync.host]},
            **self.params,
            "profile": self.profile,
        }


def simulate_pipeline(width: int = 3840, height: int = 2160, nstreams: int = 6, *,
                      memory: str = "pageable", order: str = "depth",
                      copy_engines: int | None = None, queues: str | None = None,
                      gpu: str | dict | None = None, kernel_us_of=None,
                      block: int = 256) -> Result:
    """Seed 003's image inversion, synchronous and asynchronous, on the profile's GPU.

    ``kernel_us_of(nbytes)`` gives a chunk kernel's duration; by default a memory-bound
    estimate from 2 bytes moved per pixel (``kernel_us``)."""
    profile = get_profile(gpu)
    copy_engines = int(copy_engines or profile["copy_engines"])
    queues = queues or profile["queues"]
    _check_machine(copy_engines, queues)
    if width < 1 or height < 1:
        raise UsageError(f"image size must be positive, got {width}x{height}")
    if not 1 <= nstreams <= height:
        raise UsageError(f"streams must be between 1 and the image height ({height}), got {nstreams}")
    if kernel_us_of is None:
        kernel_us_of = lambda nb: kernel_us(2 * nb, profile)         # noqa: E731
    common = dict(memory=memory, order=order, profile=profile, kernel_us_of=kernel_us_of,
                  block=block)
    sync_ops = pipeline_ops(width, height, nstreams, mode="sync", **common)
    async_ops = pipeline_ops(width, height, nstreams, mode="async", **common)
    sync = simulate(sync_ops, profile, copy_engines=copy_engines, queues=queues, block=block)
    asy = simulate(async_ops, profile, copy_engines=copy_engines, queues=queues, block=block)
    params = {"memory": memory, "streams": nstreams, "copy_engines": copy_engines,
              "order": order, "queues": queues, "size": f"{width}x{height}",
              "width": width, "height": height, "bytes": width * height,
              "gpu": profile.get("id", "custom"), "block": block}
    return Result(params, sync, asy, profile)


# --------------------------------------------------------------------------- text view

KIND_CHAR = {"h2d": ">", "kernel": "#", "d2h": "<"}
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def stream_char(stream: int) -> str:
    return _DIGITS[stream % len(_DIGITS)]


def timeline_rows(sched: Schedule, *, per_stream: bool = True) -> list[tuple[str, list]]:
    """Rows of (label, [(start_ms, end_ms, char, interval-or-None)]) for a text or TUI
    view: the host, one per engine (bars carry the stream's digit), one per stream
    (bars carry the operation's kind: > H2D, # kernel, < D2H)."""
    rows: list[tuple[str, list]] = []
    rows.append(("host", [(a, b, "-" if k == "api" else ".", None) for k, a, b in sched.host]))
    for e in sched.engines:
        rows.append((e, [(iv.start_ms, iv.end_ms, stream_char(iv.stream), iv) for iv in sched.on(e)]))
    if per_stream:
        for s in sched.streams:
            rows.append((f"stream {s}", [(iv.start_ms, iv.end_ms, KIND_CHAR[iv.kind], iv)
                                         for iv in sched.of_stream(s)]))
    return rows


def render_bar(bars, scale_ms: float, width: int) -> str:
    """One text row: each bar from start to end at ``scale_ms`` per column, at least one
    column wide."""
    cells = [" "] * width
    # longest first, so that a bar shorter than a column still shows over its neighbours
    for a, b, ch, _iv in sorted(bars, key=lambda x: -(x[1] - x[0])):
        c0 = int(a / scale_ms) if scale_ms > 0 else 0
        c1 = int(math.ceil(b / scale_ms - 1e-9)) if scale_ms > 0 else 0
        c1 = max(c1, c0 + 1)
        for c in range(max(c0, 0), min(c1, width)):
            cells[c] = ch
    return "".join(cells).rstrip()


def schedule_from_timeline(entries: list[dict], total_ms: float | None = None) -> Schedule:
    """A Schedule from timeline dicts (``stream``, ``kind``, ``engine``, ``start_ms``,
    ``end_ms``), e.g. the measured timeline of ``simt streams --real``, for display."""
    ivs = [Interval(i, int(e["stream"]), e["kind"], e["engine"], int(e.get("chunk", 0)),
                    e.get("label") or ({"h2d": "H2D", "kernel": "K", "d2h": "D2H"}[e["kind"]]
                                       + str(e.get("chunk", 0))),
                    float(e.get("issue_ms", e["start_ms"])), float(e["start_ms"]),
                    float(e["end_ms"]), int(e.get("bytes", 0)), bool(e.get("pageable", False)))
           for i, e in enumerate(entries)]
    present = {iv.engine for iv in ivs}
    engines = engine_names(1 if "copy" in present else 2)
    total = total_ms if total_ms is not None else max((iv.end_ms for iv in ivs), default=0.0)
    return Schedule(ivs, total, engines, sorted({iv.stream for iv in ivs}), [])


def format_schedules(pairs: list[tuple[str, Schedule]], width: int = 72,
                     span_ms: float | None = None, per_stream=("asynchronous",)) -> str:
    """Titled schedules on one time scale (``span_ms`` across ``width`` columns)."""
    span = span_ms or max((sc.total_ms for _t, sc in pairs), default=1e-9) or 1e-9
    scale = span / width
    out = [f"timeline: one column = {scale * 1e3:.1f} us;  engines show the stream (0-9, a-z), "
           f"streams the operation (> H2D, # kernel, < D2H); host: - API call, . waiting"]
    for title, sched in pairs:
        out.append(f"{title} ({sched.total_ms:.3f} ms)")
        show_streams = any(title.startswith(p) for p in per_stream)
        for label, bars in timeline_rows(sched, per_stream=show_streams):
            if label == "host" and not bars:
                continue
            out.append(f"  {label:<10}|{render_bar(bars, scale, width)}")
    return "\n".join(out)


def format_timeline(result: Result, width: int = 72) -> str:
    """The synchronous and asynchronous timelines on one time scale."""
    return format_schedules([("synchronous", result.sync), ("asynchronous", result.async_)],
                            width)
