"""Emulator counters and sanitizer versus Nsight Compute and compute-sanitizer on a GPU:
the logic behind ``simt check --ncu`` and ``simt check --sanitizer``.

For every catalog id (or the ids given) and the probe kernels of ``kernels_cuda/probes.py``
("items"; a probe's item name is ``probe:NAME``):

1. **collect** (GPU only): the items' host drivers run on ``CupyBackend`` (untimed: exactly
   the driver's launches, no warm-up), in a worker process
   (``python -m kernels_cuda.ncu_check --worker ITEM ...``) run under
   ``ncu --metrics <DESIGN.md metrics>`` and under ``compute-sanitizer --tool
   racecheck|synccheck|memcheck`` (compiled with ``-lineinfo`` there, CuPy's memory pool
   off so memcheck sees every allocation's real bounds).  Raw outputs (CSV, sanitizer
   text, the worker's launch manifests) are written to a folder.
2. **emulate** (no GPU): the same drivers with the same inputs on ``EmulatorBackend``.
3. **compare**: launch by launch, metric by metric (ncu rows come in launch order and
   carry the .cu kernel names); the sanitizers item by item (hazard kinds and lines).

Functions the CLI calls::

    ncu_check(ids=None, probes=True, n=None, seed=0, raw_dir=None, collect=None) -> NcuReport
    sanitizer_check(ids=None, probes=True, n=None, seed=0, raw_dir=None, collect=None,
                    tools=SAN_TOOLS) -> SanitizerReport
    report.markdown(command=...) ; report.as_dict() ; report.ok

``raw_dir`` holding an earlier collection: compare only (works without a GPU).  Otherwise
the GPU side runs (ncu / compute-sanitizer must be on PATH) and, when ``raw_dir`` is
given, its raw output is kept there.

Command line (on the GPU machine)::

    python -m kernels_cuda.ncu_check [ID ...] [--no-probes] [--raw DIR] [--out DIR]
    python -m kernels_cuda.ncu_check --collect-only --raw DIR     # GPU side only
    python -m kernels_cuda.ncu_check --compare DIR --out docs/results   # here, no GPU
"""
from __future__ import annotations

import csv
import fnmatch
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from simt import counters as C

# ------------------------------------------------------------------ metrics

#: Metrics that must equal ncu's exactly wherever the counter follows from the source.
EXACT = [C.SHARED_LD, C.SHARED_ST, C.WAVES_LD, C.WAVES_ST, C.CONFL_LD, C.CONFL_ST,
         C.REQ_LD, C.REQ_ST, C.REQ_ATOM, C.REQ_RED, C.SECT_LD, C.SECT_ST, C.SECT_ATOM,
         C.SECT_RED, C.SHARED_ATOM]
#: Counted at the emulator's IR level, not SASS: shown beside ncu, never expected equal.
INFO = [C.RATIO, C.INST, C.THREAD_INST, C.GLOBAL_ATOM_INST, C.GLOBAL_RED_INST,
        C.BRANCH_DIVERGENT]
#: ncu-only diagnostics that help explain a mismatch (instruction counts behind requests).
DIAG = ["smsp__inst_executed_op_global_ld.sum", "smsp__inst_executed_op_global_st.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"]
NCU_METRICS = EXACT + INFO + DIAG

SAN_TOOLS = ("racecheck", "synccheck", "memcheck")
#: Items run last in every tool's process (inter-block spin waits).
LAST = ("scan/decoupled-lookback",)
ALL_TOOLS = ("ncu",) + SAN_TOOLS

ITEM_MARK = "@@simt-item "
LAUNCH_MARK = "@@simt-launch "
DONE_MARK = "@@simt-done "

_SH_INST = "smsp__inst_executed_op_shared_*"
_PRED = ("compiler/predication",
         "the compiler if-converted the branch: its LDS/STS became predicated instructions that "
         "every warp reaching the `if` issues, also with all lanes off (both sides of an if/else "
         "each issue one); smsp__inst_executed counts issued warp instructions, the emulator "
         "counts only warps with an active lane. Wavefronts and bank conflicts (active lanes "
         "only) agree. SASS: reduceSharedContiguous's `if (t < stride)` is `@!P1 LDS; @!P1 LDS; "
         "@!P1 STS` run by all 8 warps every step")
_CSE = ("compiler/redundant load removed",
        "`if (priv[j] > 0) atomicAdd(&hist[j], priv[j])` loads priv[j] once on the GPU (one LDS "
        "reused for the test and the operand); the emulator loads it twice")
_TIMING = ("timing",
           "retry/spin loop: how often a warp retries its atomicCAS (or polls a flag) depends on "
           "contention and timing, not on the source; not expected equal")
_UNROLL = ("compiler/unrolling",
           "the loop is unrolled (x4; SpMV x16/x8/x4 plus a remainder loop). With lane-dependent "
           "trip counts the warp issues each unrolled block for the union of its lanes, e.g. "
           "divergent_loop: max(k//4)*4 + max(k%4) = 8*4+3 = 35 loads per warp instead of 32")
_HOIST = ("compiler/loads merged",
          "both sides of the if/else load in[i]; the compiler hoists one LDG above the branch "
          "(half the requests, half the sectors)")
_VEC = ("compiler/vectorized",
        "the loop over warp_tot[j] (best.cu:245) is unrolled and 4 consecutive uniform loads "
        "are merged into one LDS.128: fewer instructions, 1.5 wavefronts per instruction")
_ATOM = ("hardware/atomic sectors",
         "for global atomics/reductions ncu's l1tex__t_sectors is not the number of distinct "
         "sectors but the sectors of each pass the L1 makes over the warp: lanes on one "
         "address go one per pass (atomicAdd(&c[lane & 3], 1) -> 1 sector x 8 = 8), and a "
         "lane waits too behind an earlier lane on the same bank (word offset in the 128-byte "
         "line) in another line of its L1 set (lines 5, 10 or 15 apart in a 2 KiB group): "
         "in the set's leading line only that lane waits, any other line waits whole "
         "(simt.counters.l1_atomic_passes; docs/results/atomic_sectors_probe). Exact on 36 "
         "single-warp index patterns (RED, ATOM, CAS), atomic_red4/ret4, histogram/2d (4512), "
         "histogram/atomic, -u8 and -weighted (5603) and 996 one-warp probes")

#: Explanations of known mismatches: (item glob, metric glob, category, text).  The first
#: match names the row's note; a row with a note does not fail the check.  Measured on
#: an H200 with CUDA 13 (docs/results/ncu_check.md); each says which compiler
#: transformation or hardware rule the emulator does not model.
EXPLANATIONS: list[tuple[str, str, str, str]] = [
    *[(i, _SH_INST) + _PRED for i in (
        "reduction/interleaved", "reduction/contiguous", "reduction/recursive",
        "scan/hillis-steele", "scan/blelloch", "exercise/reduce-scan",
        "probe:atomic_shared", "probe:uninit_shared")],
    *[(i, m) + _CSE for i in ("histogram/optimized", "histogram/optimized-fixed", "histogram/rgb")
      for m in (_SH_INST, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")],
    ("scan/decoupled-lookback", _SH_INST) + _VEC,
    ("scan/decoupled-lookback", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum") + _VEC,
    ("scan/decoupled-lookback", "l1tex__t_*_pipe_lsu_mem_global_op_ld.sum") + _TIMING,
    *[(i, "l1tex__t_*_pipe_lsu_mem_global_op_atom.sum") + _TIMING
      for i in ("atomics/cas-add", "atomics/mul-int", "atomics/mul-float")],
    *[(i, "l1tex__t_*_pipe_lsu_mem_global_op_ld.sum") + _UNROLL
      for i in ("spmv/csr-scalar", "probe:divergent_loop")],
    ("probe:divergent_branch", "l1tex__t_*_pipe_lsu_mem_global_op_ld.sum") + _HOIST,
    ("*", "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum") + _ATOM,
    ("*", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum") + _ATOM,
]


def explain(item: str, kernel: str, metric: str) -> str:
    """``"category: text"`` for a known mismatch, or ``""``."""
    for ig, mg, cat, text in EXPLANATIONS:
        if (fnmatch.fnmatchcase(item, ig) or fnmatch.fnmatchcase(kernel, ig)) \
                and fnmatch.fnmatchcase(metric, mg):
            return f"{cat}: {text}"
    return ""


#: Known sanitizer disagreements: (item glob, tool, text).  (histogram/shared-local's
#: hazard kinds used to differ: lockstep never shows RAW; see ``emulate``.)
SAN_NOTES: list[tuple[str, str, str]] = []


def san_note(item: str, tool: str) -> str:
    for ig, t, text in SAN_NOTES:
        if t == tool and fnmatch.fnmatchcase(item, ig):
            return text
    return ""


# ------------------------------------------------------------------ items

def select_items(ids: Iterable[str] | None = None, probes: bool = True,
                 fatal: bool = False) -> list[str]:
    """Item names: catalog ids (a family name selects its variants; none: all) and, with
    ``probes``, ``probe:NAME`` for every probe (``fatal``: include the probes a sanitizer
    stops).  An id ``probe:NAME`` or ``probe:GLOB`` selects probes explicitly."""
    from kernels_cuda import crosscheck, probes as P
    ids = list(ids or [])
    cat_ids = [i for i in ids if not i.startswith("probe:")]
    probe_globs = [i[len("probe:"):] for i in ids if i.startswith("probe:")]
    items: list[str] = []
    if cat_ids or not ids:
        items += [e.id for e in crosscheck.select(cat_ids)]
    if probe_globs:
        for g in probe_globs:
            items += [p.item for p in P.PROBES if fnmatch.fnmatchcase(p.name, g)
                      and (fatal or not p.fatal or p.name == g) and p.item not in items]
    elif probes and not cat_ids:
        items += [p.item for p in P.PROBES if fatal or not p.fatal]
    return items


def item_kernels(item: str) -> tuple[str, ...]:
    from kernels_cuda import catalog, probes as P
    if item.startswith("probe:"):
        return (P.get(item).kernel,)
    return tuple(catalog.get(item).kernels)


def item_policy(item: str) -> str:
    from kernels_cuda import catalog
    return "lockstep" if item.startswith("probe:") else catalog.get(item).policy


def run_item(backend, item: str, n: int | None = None, seed: int = 0):
    """Run one item's host driver on a backend (same inputs on every backend)."""
    from kernels_cuda import catalog, probes as P
    if item.startswith("probe:"):
        return P.run_probe(backend, P.get(item), seed=seed)
    e = catalog.get(item)
    return e.run(backend, e.inputs(n, seed))


# ------------------------------------------------------------------ emulator side

@dataclass
class EmuLaunch:
    kernel: str
    grid: str
    block: str
    shared: int
    metrics: dict = field(default_factory=dict)
    findings: list = field(default_factory=list)     # Finding.as_dict(), error included
    error: dict | None = None                        # memcheck/synccheck that stopped it


def emulate(items: Sequence[str], n: int | None = None, seed: int = 0, sanitize: bool = True,
            progress=None) -> dict[str, dict]:
    """``{item: {"launches": [EmuLaunch...], "error": str|None}}`` from the emulator."""
    from kernels_cuda.backend import EmulatorBackend
    from simt.errors import LaunchError, SimtError
    from simt.launch import Dim3, LaunchConfig
    from simt.sanitizer import finding_from_error

    class Rec(EmulatorBackend):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.records: list[EmuLaunch] = []

        def launch(self, source, kernel, grid, block, args, shared_mem=0):
            cfg = LaunchConfig(Dim3.of(grid), Dim3.of(block), int(shared_mem))
            rec = EmuLaunch(kernel, str(cfg.grid.as_tuple()), str(cfg.block.as_tuple()),
                            int(shared_mem))
            self.records.append(rec)
            try:
                super().launch(source, kernel, grid, block, args, shared_mem)
            except LaunchError as err:
                f = finding_from_error(err).as_dict()
                rec.error = f
                rec.findings.append(f)
                raise
            res = self.launches[-1]
            rec.metrics = dict(res.metrics)
            rec.findings = [f.as_dict() for f in res.sanitizer]

    out = {}
    for item in items:
        if progress:
            progress(item)
        be = Rec(seed=seed, policy=item_policy(item), sanitize=sanitize)
        err = None
        try:
            run_item(be, item, n, seed)
        except SimtError as e:
            err = str(e)
        except Exception as e:  # a broken item must not hide the others
            err = f"{type(e).__name__}: {e}"
        if sanitize and err is None and not item.startswith("probe:") and any(
                f.get("tool") == "racecheck" for r in be.records for f in r.findings):
            # racecheck's hazard kinds follow how warps interleave.  Lockstep issues every
            # warp's load before any warp's store (WAR/WAW, never RAW); on the GPU the
            # thousands of warps of a catalog launch drift apart, so a racy catalog item's
            # findings come from the seeded random schedule, which lets them drift too.
            # (The probes are one block of two warps whose order lockstep already gives
            # as the GPU does.)  The counters stay those of the entry's own policy.
            rb = Rec(seed=seed, policy="random", sanitize=True)
            try:
                run_item(rb, item, n, seed)
            except Exception:
                rb = None
            if rb is not None and len(rb.records) == len(be.records):
                for a, b in zip(be.records, rb.records):
                    a.findings = b.findings
        out[item] = {"launches": be.records, "error": err}
    return out


# ------------------------------------------------------------------ GPU worker

def worker(items: Sequence[str], manifest: str | None, n: int | None = None, seed: int = 0,
           lineinfo: bool = False, pool: bool = False) -> int:
    """Runs inside ncu / compute-sanitizer: every item's driver on ``CupyBackend``,
    printing ``@@simt-item``/``@@simt-launch`` markers on stdout (so sanitizer reports can
    be attributed) and writing the launches to ``manifest`` (JSON) after every item."""
    import cupy

    from kernels_cuda.cupy_backend import DEFAULT_OPTIONS, CupyBackend

    if not pool:
        cupy.cuda.set_allocator(None)          # plain cudaMalloc: exact bounds for memcheck
    opts = tuple(DEFAULT_OPTIONS) + (("-lineinfo",) if lineinfo else ())

    class Marked(CupyBackend):
        def launch(self, source, kernel, grid, block, args, shared_mem=0):
            print(f"{LAUNCH_MARK}{len(self.launches)} {kernel}", flush=True)
            super().launch(source, kernel, grid, block, args, shared_mem)

    be = Marked(timed=False, options=opts)
    doc = {"items": [], "options": list(opts), "pool": pool, "n": n, "seed": seed}
    for item in items:
        print(f"{ITEM_MARK}{item}", flush=True)
        start = len(be.launches)
        rec = {"item": item, "launches": [], "error": None}
        try:
            run_item(be, item, n, seed)
            cupy.cuda.runtime.deviceSynchronize()
        except Exception as e:
            rec["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
        for t in be.launches[start:]:
            rec["launches"].append({"kernel": t.kernel, "grid": str(t.grid.as_tuple()),
                                    "block": str(t.block.as_tuple()), "shared": t.shared_mem})
        doc["items"].append(rec)
        print(f"{DONE_MARK}{item} launches={len(rec['launches'])} error={rec['error']}", flush=True)
        if manifest:
            Path(manifest).write_text(json.dumps(doc, indent=1))
    return 0


# ------------------------------------------------------------------ collect (GPU)

def _run(cmd: list[str], out_path: Path, timeout: float, env=None) -> dict:
    """Run cmd with stdout+stderr to out_path; kill its whole process group on timeout."""
    t0 = time.time()
    with open(out_path, "w") as f:
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, start_new_session=True,
                             env=env)
        try:
            rc = p.wait(timeout=max(1.0, timeout))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = "timeout"
    return {"cmd": cmd, "rc": rc, "seconds": round(time.time() - t0, 1), "out": out_path.name}


def _worker_cmd(items, manifest: Path, n, seed, lineinfo: bool) -> list[str]:
    cmd = [sys.executable, "-m", "kernels_cuda.ncu_check", "--worker", "--manifest", str(manifest),
           "--seed", str(seed)]
    if n:
        cmd += ["--n", str(n)]
    if lineinfo:
        cmd.append("--lineinfo")
    return cmd + ["--"] + list(items)


def _tool_version(exe: str) -> str:
    try:
        r = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
        lines = [ln for ln in (r.stdout + r.stderr).splitlines() if ln.strip()]
        return lines[-1].strip() if lines else ""
    except Exception as e:
        return f"unavailable: {e}"


def collect(items: Sequence[str], raw_dir: str | Path, tools: Sequence[str] = ALL_TOOLS,
            n: int | None = None, seed: int = 0, deadline_s: float = 480.0,
            ncu: str = "ncu", sanitizer: str = "compute-sanitizer", log=print,
            ncu_chunks: int = 3, ncu_timeout: float = 150.0, san_timeout: float = 130.0) -> dict:
    """GPU side: run the items under ncu and compute-sanitizer; raw outputs go to
    ``raw_dir`` (``ncu_<k>.csv`` + ``ncu_manifest_<k>.json`` per chunk of items,
    ``<tool>.txt``, ``<tool>_manifest.json``, ``<tool>_fatal.txt``, ``meta.json``).  ncu
    runs in ``ncu_chunks`` processes so a slow chunk cannot lose the others; output is
    written as it comes, so a run stopped at its deadline still leaves what it did.
    Probes marked ``fatal`` run one per process under the tool that stops them.  Returns
    the meta."""
    from kernels_cuda import probes as P
    from kernels_cuda.cupy_backend import device_info

    raw = Path(raw_dir)
    raw.mkdir(parents=True, exist_ok=True)
    t_end = time.time() + deadline_s
    left = lambda: t_end - time.time()            # noqa: E731
    fatal = [i for i in items if i.startswith("probe:") and P.get(i).fatal]
    plain = [i for i in items if i not in fatal]
    # items whose blocks wait on each other (spin loops) last: if one hangs under a tool,
    # everything before it is already on disk
    plain = [i for i in plain if i not in LAST] + [i for i in plain if i in LAST]
    meta = {"command": "python -m kernels_cuda.ncu_check " + " ".join(sys.argv[1:])
            if sys.argv and sys.argv[0].endswith("ncu_check.py") else None,
            "items": list(items), "n": n, "seed": seed, "device": device_info(),
            "ncu_version": _tool_version(ncu) if "ncu" in tools else None,
            "sanitizer_version": _tool_version(sanitizer) if set(tools) & set(SAN_TOOLS) else None,
            "runs": []}
    env = dict(os.environ, PYTHONUNBUFFERED="1")

    def save():
        (raw / "meta.json").write_text(json.dumps(meta, indent=1, default=str))

    if "ncu" in tools and plain:
        metrics = list(NCU_METRICS)
        nc = max(1, int(ncu_chunks))
        chunks = [c for c in (plain[k * len(plain) // nc:(k + 1) * len(plain) // nc]
                              for k in range(nc)) if c]
        for c, chunk in enumerate(chunks):
            kernels = sorted({k for i in chunk for k in item_kernels(i)})
            rep = raw / f"ncu_{c}"
            for attempt in range(4 if c == 0 else 1):
                if left() < 40:
                    break
                cmd = [ncu, "--target-processes", "all", "--replay-mode", "kernel",
                       "--metrics", ",".join(metrics), "-k", "regex:^(" + "|".join(kernels) + ")$",
                       "-o", str(rep), "-f"] + _worker_cmd(chunk, raw / f"ncu_manifest_{c}.json", n, seed, False)
                log(f"ncu chunk {c + 1}/{len(chunks)} attempt {attempt + 1}: {len(chunk)} items, "
                    f"{len(metrics)} metrics")
                r = _run(cmd, raw / f"ncu_{c}.log", min(ncu_timeout, left() - 30), env)
                r["metrics"] = list(metrics)
                meta["runs"].append(r)
                save()
                text = (raw / f"ncu_{c}.log").read_text(errors="replace")
                bad = [m for m in metrics if re.search(
                    r"(?i)(fail|not found|invalid|unknown|error)[^\n]*" + re.escape(m.split(".")[0]), text)]
                if r["rc"] == "timeout" or (rep.with_suffix(".ncu-rep").exists() and not bad):
                    break
                if bad:
                    metrics = [m for m in metrics if m not in bad]
                elif len(metrics) > len(EXACT):
                    metrics = list(EXACT)
                else:
                    break
            if rep.with_suffix(".ncu-rep").exists():
                r = _run([ncu, "-i", str(rep.with_suffix(".ncu-rep")), "--csv", "--page", "raw",
                          "--print-units", "base"], raw / f"ncu_{c}.csv", 120, env)
                if r["rc"] != 0:
                    r = _run([ncu, "-i", str(rep.with_suffix(".ncu-rep")), "--csv", "--page", "raw"],
                             raw / f"ncu_{c}.csv", 120, env)
                meta["runs"].append(r)
            save()

    san_args = {"racecheck": ["--racecheck-report", "all", "--racecheck-detect-level", "info"],
                "synccheck": [], "memcheck": []}
    san = [t for t in SAN_TOOLS if t in tools]
    # the main run of racecheck first, then the probes each tool stops (one process each),
    # then synccheck and memcheck over everything
    for tool in san[:1] + [None] + san[1:]:
        if tool is None:
            for t in san:
                mine = [i for i in fatal if P.get(i).expect.split(":")[0] == t]
                chunks_txt = []
                for i in mine:
                    if left() < 15:
                        break
                    tmp = raw / f"_{t}_one.txt"
                    r = _run([sanitizer, "--tool", t, "--target-processes", "all"]
                             + _worker_cmd([i], raw / f"_{t}_one.json", n, seed, True),
                             tmp, min(60.0, left() - 10), env)
                    meta["runs"].append(r)
                    chunks_txt.append(tmp.read_text(errors="replace"))
                    tmp.unlink()
                    (raw / f"_{t}_one.json").unlink(missing_ok=True)
                if mine:
                    (raw / f"{t}_fatal.txt").write_text("".join(chunks_txt))
                    save()
            continue
        if not plain or left() < 30:
            continue
        base = [sanitizer, "--tool", tool, "--target-processes", "all"]
        for extra in (san_args[tool] + ["--print-limit", "100000"], []):
            log(f"{tool}: {len(plain)} items")
            r = _run(base + extra + _worker_cmd(plain, raw / f"{tool}_manifest.json", n, seed, True),
                     raw / f"{tool}.txt", min(san_timeout, left() - 20), env)
            meta["runs"].append(r)
            save()
            if ITEM_MARK in (raw / f"{tool}.txt").read_text(errors="replace"):
                break              # the worker ran (the options were accepted)
    save()
    return meta


# ------------------------------------------------------------------ ncu CSV parser

def _num(s: str):
    s = (s or "").strip().strip('"')
    if s in ("", "n/a", "N/A", "nan"):
        return None
    t = s.replace(",", "") if re.fullmatch(r"-?[\d,]+(\.\d+)?", s) else s
    try:
        v = float(t)
    except ValueError:
        return None
    return int(v) if v.is_integer() and "." not in t else v


def parse_ncu_csv(text: str) -> list[dict]:
    """Launches from ncu's CSV, in launch order: ``[{"id", "kernel", "grid", "block",
    "metrics": {name: number}}]``.  Accepts the raw page (one row per launch, a units
    row under the header) and the details page (one row per launch and metric);
    ``==PROF==`` lines and other noise before the header are skipped."""
    lines = text.splitlines()
    start = next((k for k, ln in enumerate(lines) if ln.startswith('"ID"')), None)
    if start is None:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(ln for ln in lines[start:] if ln.startswith('"')))))
    head = rows[0]
    col = {h: k for k, h in enumerate(head)}
    kcol = col.get("Kernel Name", col.get("Function Name"))
    launches: dict[int, dict] = {}

    def launch_of(r):
        lid = int(_num(r[col["ID"]]) or 0)
        d = launches.get(lid)
        if d is None:
            d = launches[lid] = {"id": lid, "kernel": r[kcol] if kcol is not None else "",
                                 "grid": r[col["Grid Size"]] if "Grid Size" in col else "",
                                 "block": r[col["Block Size"]] if "Block Size" in col else "",
                                 "metrics": {}}
        return d

    if "Metric Name" in col:                                      # details page
        for r in rows[1:]:
            if len(r) < len(head):
                continue
            d = launch_of(r)
            v = _num(r[col["Metric Value"]])
            if v is not None:
                d["metrics"][r[col["Metric Name"]]] = v
    else:                                                         # raw page
        for r in rows[1:]:
            if len(r) < len(head) or not re.fullmatch(r"\d+", r[col["ID"]].strip()):
                continue                                          # the units row
            d = launch_of(r)
            for h, k in col.items():
                if "__" in h:
                    v = _num(r[k])
                    if v is not None:
                        d["metrics"][h] = v
    for d in launches.values():
        d["kernel"] = re.sub(r"\(.*$", "", d["kernel"]).strip()   # demangled "(int*, ...)"
    return [launches[k] for k in sorted(launches)]


# ------------------------------------------------------------------ compute-sanitizer parser

_LOC = re.compile(r"\bat\s+(?P<at>.*?)(?:\s+in\s+(?P<file>[^\s:]+):(?P<line>\d+)(?::(?P<fn>\S.*?))?)?"
                  r"(?:\s*\[(?P<n>\d+)\s+hazards?\])?\s*$")


def _loc(text: str) -> dict:
    m = _LOC.search(text)
    if not m:
        return {"line": None, "where": text.strip()}
    at = m.group("at")
    fn = m.group("fn") or re.sub(r"\+0x[0-9a-fA-F]+$", "", at)
    fn = re.sub(r"\(.*$", "", fn).strip()
    return {"line": int(m.group("line")) if m.group("line") else None, "kernel": fn,
            "count": int(m.group("n")) if m.group("n") else None}


def _blocks(text: str):
    """compute-sanitizer's reports as (headline, [detail lines]), with the item/launch
    markers of the worker as ("@item", item) / ("@launch", kernel) entries."""
    cur = None
    for raw in text.splitlines():
        if raw.startswith(ITEM_MARK):
            if cur:
                yield cur
                cur = None
            yield ("@item", raw[len(ITEM_MARK):].strip())
            continue
        if raw.startswith(LAUNCH_MARK):
            if cur:
                yield cur
                cur = None
            parts = raw[len(LAUNCH_MARK):].split()
            yield ("@launch", parts[1] if len(parts) > 1 else "")
            continue
        if not raw.startswith("========="):
            continue
        body = raw[len("========="):]
        if not body.strip():
            continue
        if body.startswith("    ") or body.startswith("\t"):
            if cur:
                cur[1].append(body.strip())
            continue
        if cur:
            yield cur
        cur = (body.strip(), [])
    if cur:
        yield cur


def parse_sanitizer(text: str, tool: str) -> dict[str, list[dict]]:
    """compute-sanitizer output (with the worker's markers) -> ``{item: [report...]}``.

    Report kinds: racecheck ``race`` (analysis: ``access`` = first/second access types,
    ``line``/``line2`` = second/first line, ``count`` hazards) and ``RAW``/``WAR``/``WAW``
    (hazard mode, one per hazard: ``line2`` first access, ``line`` second);
    memcheck ``invalid <space> <read|write>``; synccheck ``barrier``; any other headline
    is kept as ``other``.  Every report has ``severity``, ``kernel`` and ``text``."""
    out: dict[str, list[dict]] = {}
    item, kernel = "(none)", ""
    for head, det in _blocks(text):
        if head == "@item":
            item, kernel = det, ""
            out.setdefault(item, [])
            continue
        if head == "@launch":
            kernel = det
            continue
        m_sev = re.match(r"(?i)(error|warning|info)\s*:\s*(.*)$", head)
        sev, body = (m_sev.group(1).lower(), m_sev.group(2)) if m_sev else ("error", head)
        rep = {"tool": tool, "severity": sev, "kernel": kernel, "text": "\n".join([head] + det)}
        if re.match(r"(?i)(racecheck|error|leak|initcheck|synccheck|memcheck)\s+summary", body) \
                or body.startswith("COMPUTE-SANITIZER") or re.match(r"(?i)error summary", head):
            out.setdefault(item, []).append(dict(rep, kind="summary"))
            continue
        m = re.match(r"Race reported between (Read|Write) access (.*)$", body)
        if m:
            first = _loc(m.group(2))
            seconds = [(mm.group(1), _loc(mm.group(2))) for mm in
                       (re.match(r"and (Read|Write) access (.*)$", d) for d in det) if mm]
            if not seconds and re.search(r"and (Read|Write) access", body):
                mm = re.search(r"(.*?)\s+and (Read|Write) access (.*)$", m.group(2))
                first = _loc(mm.group(1))
                seconds = [(mm.group(2), _loc(mm.group(3)))]
            for acc2, loc2 in seconds or [("?", {"line": None})]:
                out.setdefault(item, []).append(dict(
                    rep, kind="race", access=f"{m.group(1)}/{acc2}", line2=first.get("line"),
                    line=loc2.get("line"), count=loc2.get("count") or 1,
                    kernel=first.get("kernel") or kernel))
            continue
        m = re.match(r"(\([^)]*\)\s*)?Potential (RAW|WAR|WAW) hazard detected at (__shared__|__global__)?"
                     r"\s*(0x[0-9a-fA-F]+)?", body)
        if m:
            thr = [(mm.group(1), mm.group(2), _loc(mm.group(3))) for mm in
                   (re.match(r"(Read|Write)\s+Thread\s+\(([^)]*)\)\s+(at .*)$", d) for d in det) if mm]
            first = thr[0][2] if thr else {}
            second = thr[1][2] if len(thr) > 1 else {}
            out.setdefault(item, []).append(dict(
                rep, kind=m.group(2), line2=first.get("line"), line=second.get("line"), count=1,
                warp_level=bool(m.group(1)), kernel=first.get("kernel") or kernel,
                threads=[t[1] for t in thr[:2]]))
            continue
        m = re.match(r"Invalid (__\w+__)\s+(read|write|atomic)\w*\s+of size (\d+) bytes?", body)
        if m:
            loc = next((_loc(d) for d in det if d.startswith("at ")), {"line": None})
            addr = " ".join(d for d in det if d.startswith(("Address", "Access to", "and is")))
            thread = next((d for d in det if d.startswith("by thread")), "")
            out.setdefault(item, []).append(dict(
                rep, kind=f"invalid {m.group(1)} {m.group(2)}", size=int(m.group(3)),
                line=loc.get("line"), address=addr, thread=thread,
                misaligned="misaligned" in (addr + " " + body).lower(),
                kernel=loc.get("kernel") or kernel))
            continue
        if re.match(r"(?i)barrier error", body) or "Divergent thread" in body:
            loc = next((_loc(d) for d in det if d.startswith("at ")), {"line": None})
            out.setdefault(item, []).append(dict(rep, kind="barrier", detail=body,
                                                 line=loc.get("line"), kernel=loc.get("kernel") or kernel))
            continue
        if body.startswith("Program hit") or "CUDA API" in body:
            out.setdefault(item, []).append(dict(rep, kind="api error"))
            continue
        out.setdefault(item, []).append(dict(rep, kind="other"))
    return out


# ------------------------------------------------------------------ loading a collection

def _load_json(p: Path):
    return json.loads(p.read_text()) if p.exists() else None


def load_ncu(raw_dir) -> tuple[dict[str, list[dict]], dict]:
    """ncu's launches attributed to items: ``({item: [ncu launch...]}, info)``.  Each
    chunk's CSV launches (in order) are matched to its worker manifest's launches by
    kernel name (rows of kernels the manifest does not expect are skipped)."""
    raw = Path(raw_dir)
    pairs = []
    for man_path in sorted(raw.glob("ncu_manifest*.json"), key=lambda p: (len(p.name), p.name)):
        suffix = man_path.stem[len("ncu_manifest"):]               # "" or "_0", "_1", ...
        csv_path = raw / f"ncu{suffix}.csv"
        pairs.append((_load_json(man_path) or {"items": []},
                      parse_ncu_csv(csv_path.read_text(errors="replace")) if csv_path.exists() else []))
    by_item: dict[str, list] = {}
    info = {"ncu_launches": 0, "skipped_ncu_rows": 0, "manifest_errors": {}}
    for man, launches in pairs:
        k = 0
        info["ncu_launches"] += len(launches)
        for rec in man["items"]:
            if rec.get("error"):
                info["manifest_errors"][rec["item"]] = rec["error"]
            lst = by_item.setdefault(rec["item"], [])
            for ml in rec["launches"]:
                j = k
                while j < len(launches) and launches[j]["kernel"] != ml["kernel"]:
                    j += 1
                if j < len(launches):
                    info["skipped_ncu_rows"] += j - k
                    lst.append(launches[j])
                    k = j + 1
                else:
                    lst.append(None)
        info["skipped_ncu_rows"] += max(0, len(launches) - k)
    return by_item, info


# ------------------------------------------------------------------ comparing counters

@dataclass
class NcuRow:
    id: str
    launch: int
    kernel: str
    metric: str
    emulator: float | None
    ncu: float | None
    equal: bool | None          # None: a side is missing
    expect: str                 # "exact" | "info"
    note: str = ""


@dataclass
class NcuReport:
    rows: list[NcuRow]
    items: list[str]
    device: str = ""
    ncu_version: str = ""
    command: str = ""
    collected_with: str = ""                       # the GPU-side command (meta.json)
    errors: dict = field(default_factory=dict)     # item -> error text (either side)
    info: dict = field(default_factory=dict)

    @property
    def exact_rows(self) -> list[NcuRow]:
        return [r for r in self.rows if r.expect == "exact"]

    @property
    def mismatches(self) -> list[NcuRow]:
        return [r for r in self.exact_rows if r.equal is False]

    @property
    def ok(self) -> bool:
        """Every exact metric equal, or explained (a note), and nothing missing."""
        return all(r.equal or r.note for r in self.exact_rows)

    def summary(self) -> dict:
        per_metric = {}
        for m in EXACT + INFO:
            rs = [r for r in self.rows if r.metric == m and r.equal is not None]
            per_metric[m] = {"compared": len(rs), "equal": sum(bool(r.equal) for r in rs)}
        items_ok = {}
        for it in self.items:
            rs = [r for r in self.exact_rows if r.id == it]
            items_ok[it] = None if not rs or any(r.equal is None for r in rs) else all(r.equal for r in rs)
        ex = self.exact_rows
        return {"exact_compared": sum(r.equal is not None for r in ex),
                "exact_equal": sum(bool(r.equal) for r in ex),
                "exact_missing": sum(r.equal is None for r in ex),
                "items": len(self.items),
                "items_all_equal": sum(v is True for v in items_ok.values()),
                "items_with_mismatch": sorted(k for k, v in items_ok.items() if v is False),
                "items_missing": sorted(k for k, v in items_ok.items() if v is None),
                "per_metric": per_metric}

    def as_dict(self, compact: bool = False) -> dict:
        """JSON-able.  ``compact``: rows as lists under ``columns``, notes by index into
        ``notes``, and exact rows where both sides are 0 left out (counted in
        ``summary.exact_zero_rows_omitted``)."""
        d = {"device": self.device, "ncu_version": self.ncu_version, "command": self.command,
             "collected_with": self.collected_with,
             "summary": self.summary(), "errors": self.errors, "info": self.info}
        if not compact:
            d["rows"] = [asdict(r) for r in self.rows]
            return d
        notes: list[str] = []
        rows = []
        omitted = 0
        for r in self.rows:
            if r.expect == "exact" and r.equal and not r.emulator and not r.ncu:
                omitted += 1
                continue
            if r.note and r.note not in notes:
                notes.append(r.note)
            rows.append([r.id, r.launch, r.kernel, r.metric, r.emulator, r.ncu, r.equal, r.expect,
                         notes.index(r.note) if r.note else None])
        d["summary"]["exact_zero_rows_omitted"] = omitted
        d["columns"] = ["id", "launch", "kernel", "metric", "emulator", "ncu", "equal", "expect", "note"]
        d["notes"] = notes
        d["rows"] = rows
        return d

    def markdown(self, command: str | None = None) -> str:
        return format_ncu_markdown(self, command)


def _eq(a, b, metric: str) -> bool:
    if metric in (C.RATIO,):
        return abs(float(a) - float(b)) < 0.005
    return float(a) == float(b)


def compare_ncu(emu: dict[str, dict], ncu: dict[str, list], items: Sequence[str],
                errors: dict | None = None) -> NcuReport:
    rows: list[NcuRow] = []
    errs = dict(errors or {})
    for it in items:
        e = emu.get(it, {"launches": [], "error": "not emulated"})
        g = ncu.get(it, [])
        if e.get("error"):
            errs[it] = "emulator: " + str(e["error"])
        for k in range(max(len(e["launches"]), len(g))):
            el = e["launches"][k] if k < len(e["launches"]) else None
            gl = g[k] if k < len(g) else None
            kern = (el.kernel if el else None) or (gl["kernel"] if gl else "?")
            for m in EXACT + INFO:
                # a counter the emulator never incremented is 0 (its dict lists only some)
                ev = el.metrics.get(m, 0) if el and el.metrics else None
                gv = gl["metrics"].get(m) if gl else None
                eq = None if ev is None or gv is None else _eq(ev, gv, m)
                rows.append(NcuRow(it, k, kern, m, ev, gv, eq, "exact" if m in EXACT else "info",
                                   explain(it, kern, m) if eq is False else ""))
    return NcuReport(rows, list(items), errors=errs)


def _short(m: str) -> str:
    return (m.replace("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_", "shared wavefronts ")
             .replace("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_", "bank conflicts ")
             .replace("l1tex__t_requests_pipe_lsu_mem_global_op_", "global requests ")
             .replace("l1tex__t_sectors_pipe_lsu_mem_global_op_", "global sectors ")
             .replace("smsp__inst_executed_op_", "inst ")
             .replace(".sum", ""))


def _v(x) -> str:
    if x is None:
        return "-"
    return f"{x:g}" if isinstance(x, float) else str(x)


def format_ncu_markdown(rep: NcuReport, command: str | None = None) -> str:
    s = rep.summary()
    L = ["# Emulator counters vs Nsight Compute", ""]
    L += [f"- device: **{rep.device or '?'}**", f"- ncu: {rep.ncu_version or '?'}"]
    if rep.collected_with:
        L.append(f"- measured on the GPU with: `{rep.collected_with}`")
    L += [f"- compared with: `{command or rep.command or 'python -m kernels_cuda.ncu_check'}`", ""]
    L += ["Each row compares one launch's counter in the emulator with ncu's value for the same "
          "launch (same driver, inputs and launch configuration, CuPy/NVRTC build). "
          "`exact` metrics must be equal wherever the counter follows from the source; "
          "`info` metrics are counted at the emulator's IR level, not SASS, and are shown "
          "for reference only.", ""]
    L += ["## Summary", "",
          f"- exact metric values compared: {s['exact_compared']}, equal: {s['exact_equal']}, "
          f"missing on one side: {s['exact_missing']}",
          f"- items: {s['items']}, with every exact metric equal: {s['items_all_equal']}", ""]
    L += ["| metric | kind | equal / compared |", "| --- | --- | --- |"]
    for m, d in s["per_metric"].items():
        L.append(f"| `{m}` | {'exact' if m in EXACT else 'info'} | {d['equal']} / {d['compared']} |")
    L.append("")
    if rep.errors:
        L += ["## Items that did not run on one side", "", "| id | error |", "| --- | --- |"]
        L += [f"| {k} | {str(v)[:300].replace('|', '/')} |" for k, v in sorted(rep.errors.items())]
        L.append("")
    mm = rep.mismatches
    cats: dict[str, list] = {}
    for r in mm:
        cat, _, text = r.note.partition(": ") if r.note else ("unexplained", "", "")
        cats.setdefault(cat, [text, []])[1].append(r)
    if mm:
        L += ["## Why they differ", "",
              "| category | mismatches | items | explanation |", "| --- | --- | --- | --- |"]
        for cat, (text, rs) in sorted(cats.items(), key=lambda kv: -len(kv[1][1])):
            its = sorted({r.id for r in rs})
            shown = ", ".join(its[:8]) + (f" and {len(its) - 8} more" if len(its) > 8 else "")
            L.append(f"| {cat} | {len(rs)} | {shown} | {text or 'not explained yet'} |")
        L.append("")
    L += [f"## Mismatches ({len(mm)})", "",
          "| id | launch | kernel | metric | emulator | ncu | equal? | why |",
          "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in mm:
        cat = r.note.partition(": ")[0] if r.note else "**unexplained**"
        L.append(f"| {r.id} | {r.launch} | {r.kernel} | `{_short(r.metric)}` | {_v(r.emulator)} | "
                 f"{_v(r.ncu)} | no | {cat} |")
    L.append("")
    full = sorted(i for i, v in ((it, [r for r in rep.exact_rows if r.id == it]) for it in rep.items)
                  if v and all(r.equal for r in v))
    L += [f"## Items with every exact metric equal ({len(full)} of {len(rep.items)})", "",
          ", ".join(full) or "-", ""]
    miss = [r for r in rep.exact_rows if r.equal is None]
    if miss:
        L += [f"## Missing ({len(miss)} exact values with no counterpart)", ""]
        seen = sorted({(r.id, r.launch, r.kernel) for r in miss})
        L += [f"- {i} launch {k} ({kern})" for i, k, kern in seen[:60]]
        L.append("")
    L += ["## All launches (exact metrics where either side is non-zero, and the IR-level ratio)", "",
          "| id | launch | kernel | metric | emulator | ncu | equal? |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rep.rows:
        if r.expect == "exact" and not (r.emulator or r.ncu):
            continue
        if r.expect == "info" and r.metric != C.RATIO:
            continue
        eq = "-" if r.equal is None else ("yes" if r.equal else ("no" if r.expect == "exact" else "differs"))
        L.append(f"| {r.id} | {r.launch} | {r.kernel} | `{_short(r.metric)}` | {_v(r.emulator)} | "
                 f"{_v(r.ncu)} | {eq} |")
    L.append("")
    return "\n".join(L)


# ------------------------------------------------------------------ comparing sanitizers

@dataclass
class SanRow:
    id: str
    tool: str
    emulator: str            # e.g. "RAW 45->48 (3840); WAR 48->45 (256)" or "clean"
    sanitizer: str           # compute-sanitizer's view, same wording; "not run"
    agree: bool | None       # both flag it or neither, with the same classes of finding
    lines_agree: bool | None  # the same lines (racecheck: unordered line pairs per class)
    kinds_agree: bool | None = None   # racecheck: the same RAW/WAR/WAW kinds (timing-dependent)
    note: str = ""


#: racecheck classes: what compute-sanitizer's analysis report tells apart
_CLASS = {"RAW": "read/write", "WAR": "read/write", "WAW": "write/write",
          "Write/Read": "read/write", "Read/Write": "read/write", "Write/Write": "write/write"}


@dataclass
class SanitizerReport:
    rows: list[SanRow]
    items: list[str]
    device: str = ""
    version: str = ""
    command: str = ""
    collected_with: str = ""
    raw: dict = field(default_factory=dict)     # tool -> item -> aggregated reports

    @property
    def ok(self) -> bool:
        """Every item agrees (verdict, classes and lines), or its difference is explained."""
        return all((r.agree is not False and r.lines_agree is not False) or r.note for r in self.rows)

    def summary(self) -> dict:
        out = {}
        for t in SAN_TOOLS + ("initcheck",):
            rs = [r for r in self.rows if r.tool == t]
            out[t] = {"items": len(rs), "agree": sum(r.agree is True for r in rs),
                      "disagree": sorted(r.id for r in rs if r.agree is False),
                      "lines_differ": sorted(r.id for r in rs if r.lines_agree is False),
                      "kinds_differ": sorted(r.id for r in rs if r.kinds_agree is False),
                      "not_compared": sum(r.agree is None for r in rs)}
        return out

    def as_dict(self) -> dict:
        return {"device": self.device, "version": self.version, "command": self.command,
                "collected_with": self.collected_with,
                "summary": self.summary(), "rows": [asdict(r) for r in self.rows],
                "reports": self.raw}

    def markdown(self, command: str | None = None) -> str:
        return format_sanitizer_markdown(self, command)


@dataclass
class _View:
    classes: set = field(default_factory=set)
    lines: set = field(default_factory=set)
    kinds: set = field(default_factory=set)
    text: str = "clean"


def _emu_view(e: dict, tool: str) -> _View:
    """The emulator's findings for one tool, as classes, lines, kinds and text."""
    v = _View()
    parts = []
    agg: dict = {}
    for L in e["launches"]:
        for f in L.findings:
            if f["tool"] != tool:
                continue
            if tool == "racecheck":
                kind = f["kind"].split()[0]
                key = (kind, f.get("line2"), f["line"])
                agg[key] = agg.get(key, 0) + int(f.get("count", 1))
                v.kinds.add(kind)
                v.classes.add(_CLASS[kind])
                v.lines.add((_CLASS[kind], frozenset((f.get("line2"), f["line"]))))
            else:
                kind = _emu_kind(f)
                v.classes.add(kind)
                v.lines.add(f["line"])
                parts.append(f"{kind} line {f['line']} ({L.kernel})")
    for (kind, l1, l2), n in sorted(agg.items(), key=lambda kv: (kv[0][1] or 0, kv[0][2] or 0, kv[0][0])):
        parts.append(f"{kind} {l1}->{l2} ({n} byte hazards)")
    v.text = "; ".join(parts) or "clean"
    return v


def _emu_kind(f: dict) -> str:
    msg = f.get("message", "")
    m = re.search(r"Invalid (__\w+__) (read|write|atomic)", msg)
    if f["tool"] == "memcheck" and m:
        return f"invalid {m.group(1)} {m.group(2)}"
    if f["tool"] == "synccheck":
        return "barrier"
    return f.get("kind", f["tool"])


def _cs_view(reps: list[dict], tool: str) -> _View:
    v = _View()
    parts = []
    if tool == "racecheck":
        haz: dict = {}
        ana: dict = {}
        for r in reps:
            if r["kind"] in ("RAW", "WAR", "WAW"):
                key = (r["kind"], r.get("line2"), r.get("line"))
                haz[key] = haz.get(key, 0) + int(r.get("count") or 1)
            elif r["kind"] == "race":
                key = (r["access"], r.get("line2"), r.get("line"), r["severity"])
                ana[key] = ana.get(key, 0) + int(r.get("count") or 1)
        for (acc, l1, l2, sev), n in sorted(ana.items(), key=lambda kv: str(kv[0])):
            cls = _CLASS.get(acc, acc)
            v.classes.add(cls)
            v.lines.add((cls, frozenset((l1, l2))))
            parts.append(f"[{sev}] {acc} {l1}->{l2} ({n} byte hazards)")
        for (kind, l1, l2), n in sorted(haz.items(), key=lambda kv: (kv[0][1] or 0, kv[0][2] or 0, kv[0][0])):
            v.kinds.add(kind)
            if not ana:        # hazard reports only (analysis reports missing)
                v.classes.add(_CLASS[kind])
                v.lines.add((_CLASS[kind], frozenset((l1, l2))))
            parts.append(f"{kind} {l1}->{l2} ({n} printed)")
    else:
        for r in reps:
            if r["kind"] in ("summary", "api error"):
                continue
            if r["kind"] == "other" and not re.search(r"(?i)error|invalid|barrier", r["text"]):
                continue
            v.classes.add(r["kind"])
            v.lines.add(r.get("line"))
            parts.append(f"{r['kind']} line {r.get('line')} ({r.get('kernel', '')})")
    v.text = "; ".join(dict.fromkeys(parts)) or "clean"
    return v


def compare_sanitizer(emu: dict[str, dict], cs: dict[str, dict[str, list]], items: Sequence[str],
                      tools: Sequence[str] = SAN_TOOLS, ran: dict | None = None) -> SanitizerReport:
    """``cs``: ``{tool: {item: [reports]}}`` from ``parse_sanitizer``; ``ran``:
    ``{tool: set(items that ran under it)}`` (items missing: "not run").

    racecheck is compared by *class* (a read/write pair or a write/write pair, which is
    what compute-sanitizer's analysis report tells apart) and by the unordered pair of
    lines; which of RAW/WAR a read/write pair was depends on how the warps interleaved
    and is shown in ``kinds_agree`` (from the hazard reports) without failing the row."""
    rows = []
    for it in items:
        e = emu.get(it, {"launches": [], "error": None})
        for tool in tools:
            ev = _emu_view(e, tool)
            if ran is not None and it not in ran.get(tool, set()):
                rows.append(SanRow(it, tool, ev.text, "not run", None, None))
                continue
            cv = _cs_view(cs.get(tool, {}).get(it, []), tool)
            agree = ev.classes == cv.classes
            lines_agree = None if not ev.classes and not cv.classes else ev.lines == cv.lines
            kinds_agree = (ev.kinds == cv.kinds) if tool == "racecheck" and cv.kinds else None
            differs = agree is False or lines_agree is False or kinds_agree is False
            rows.append(SanRow(it, tool, ev.text, cv.text, agree, lines_agree, kinds_agree,
                               san_note(it, tool) if differs else ""))
        ev = _emu_view(e, "initcheck")
        if ev.classes:
            rows.append(SanRow(it, "initcheck", ev.text, "n/a (compute-sanitizer's initcheck checks "
                               "global memory only)", None, None))
    return SanitizerReport(rows, list(items))


def format_sanitizer_markdown(rep: SanitizerReport, command: str | None = None) -> str:
    s = rep.summary()
    L = ["# Emulator sanitizer vs compute-sanitizer", ""]
    L += [f"- device: **{rep.device or '?'}**", f"- compute-sanitizer: {rep.version or '?'}"]
    if rep.collected_with:
        L.append(f"- measured on the GPU with: `{rep.collected_with}`")
    L += [f"- compared with: `{command or rep.command or 'python -m kernels_cuda.ncu_check'}`", ""]
    L += ["Per item and tool, the emulator's findings beside compute-sanitizer's for the same "
          "driver run (CuPy/NVRTC build with `-lineinfo`; CuPy's memory pool off so memcheck "
          "sees each allocation's real size). racecheck runs with `--racecheck-report all "
          "--racecheck-detect-level info`; the probes a tool stops (out of bounds, misaligned, "
          "divergent barrier) run one per process.", "",
          "Racecheck reads `KIND first-line->second-line (count)`. compute-sanitizer's analysis "
          "reports (`[severity] First/Second access`) give the pair of accesses and a hazard "
          "count **per byte**; its hazard reports (`RAW`/`WAR`/`WAW`, one per printed hazard) "
          "say which access came first (*printed*: reports in the raw text; a copy trimmed with "
          "`--trim-raw` keeps 20 per item and kind). The emulator counts per 4-byte word, so "
          "its count x 4 is compute-sanitizer's where the schedule does not matter.", "",
          "*agree*: both flag the item or neither, with the same classes (racecheck: read/write "
          "vs write/write pair; memcheck: space and read/write; synccheck: barrier); *lines*: "
          "the same lines (racecheck: unordered line pairs per class); *kinds*: racecheck's "
          "RAW/WAR/WAW sets, which depend on how warps interleave (informative).", ""]
    L += ["## Summary", "",
          "| tool | items | agree | disagree | lines differ | kinds differ | not compared |",
          "| --- | --- | --- | --- | --- | --- | --- |"]
    for t, d in s.items():
        if d["items"]:
            L.append(f"| {t} | {d['items']} | {d['agree']} | {', '.join(d['disagree']) or '-'} | "
                     f"{', '.join(d['lines_differ']) or '-'} | {', '.join(d['kinds_differ']) or '-'} | "
                     f"{d['not_compared']} |")
    L.append("")
    L += ["## Items with a finding on either side", "",
          "| id | tool | emulator | compute-sanitizer | agree? | lines? | kinds? | note |",
          "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    quiet = []

    def yn(v, bold=False):
        return "-" if v is None else ("yes" if v else ("**no**" if bold else "no"))

    for r in rep.rows:
        if r.emulator == "clean" and r.sanitizer in ("clean", "not run"):
            quiet.append(r)
            continue
        L.append(f"| {r.id} | {r.tool} | {r.emulator} | {r.sanitizer[:500]} | {yn(r.agree, True)} | "
                 f"{yn(r.lines_agree, True)} | {yn(r.kinds_agree)} | {r.note} |")
    L.append("")
    noisy = {r.id for r in rep.rows if r not in quiet}
    clean = sorted({r.id for r in quiet if r.sanitizer == "clean"} - noisy)
    L += [f"## Clean on both sides ({len(clean)} items, every tool that ran)", "",
          ", ".join(clean) or "-", ""]
    notrun = sorted({f"{r.id} ({r.tool})" for r in rep.rows if r.sanitizer == "not run"})
    if notrun:
        L += ["## Not run under compute-sanitizer", "",
              "Probes a tool stops run only under that tool.", "", ", ".join(notrun), ""]
    return "\n".join(L)


# ------------------------------------------------------------------ loading sanitizer output

def aggregate_reports(reps: list[dict]) -> list[dict]:
    """One entry per distinct (kind, lines, severity, kernel) with a count: what the JSON
    keeps of compute-sanitizer's reports (the raw text can run to tens of MB)."""
    agg: dict = {}
    for r in reps:
        if r["kind"] == "summary":
            continue
        key = (r["kind"], r.get("line2"), r.get("line"), r["severity"], r.get("kernel", ""),
               r.get("access", ""), bool(r.get("warp_level")))
        n = int(r.get("count") or 1) if r["kind"] == "race" else 1
        agg[key] = agg.get(key, 0) + n
    return [{"kind": k[0], "line2": k[1], "line": k[2], "severity": k[3], "kernel": k[4],
             **({"access": k[5]} if k[5] else {}), **({"warp_level": True} if k[6] else {}),
             "count": n} for k, n in agg.items()]


def load_sanitizer(raw_dir, tools: Sequence[str] = SAN_TOOLS) -> tuple[dict, dict]:
    """``({tool: {item: [reports]}}, {tool: set(items that ran)})`` from a collection."""
    raw = Path(raw_dir)
    cs, ran = {}, {}
    for tool in tools:
        d: dict[str, list] = {}
        r: set = set()
        for name in (f"{tool}.txt", f"{tool}_fatal.txt"):
            p = raw / name
            if p.exists():
                text = p.read_text(errors="replace")
                for it, reps in parse_sanitizer(text, tool).items():
                    d.setdefault(it, []).extend(reps)
                r |= {ln[len(ITEM_MARK):].strip() for ln in text.splitlines() if ln.startswith(ITEM_MARK)}
        cs[tool], ran[tool] = d, r
    return cs, ran


def trim_raw(src, dst, keep_hazards: int = 20) -> Path:
    """A compact copy of a collection that ``--compare`` still reads (to keep in the repo
    and re-compare after emulator fixes without a GPU): ncu CSVs with only the identity
    columns and the compared metrics, no ``.ncu-rep``; sanitizer text without host
    backtraces and with at most ``keep_hazards`` racecheck hazard reports per item, kind
    and warp-level flag (every analysis report, memcheck and synccheck report is kept)."""
    src, dst = Path(src), Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    keep_cols = {"ID", "Kernel Name", "Block Size", "Grid Size", "Device", "CC"} | set(NCU_METRICS)
    for p in sorted(src.iterdir()):
        if p.suffix == ".json":
            shutil.copy(p, dst / p.name)
        elif p.name.startswith("ncu") and p.suffix == ".csv":
            lines = p.read_text(errors="replace").splitlines()
            start = next((k for k, ln in enumerate(lines) if ln.startswith('"ID"')), None)
            if start is None:
                continue
            rows = list(csv.reader(io.StringIO("\n".join(ln for ln in lines[start:] if ln.startswith('"')))))
            idx = [k for k, h in enumerate(rows[0]) if h in keep_cols]
            out = io.StringIO()
            w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
            for r in rows:
                w.writerow([r[k] if k < len(r) else "" for k in idx])
            (dst / p.name).write_text(out.getvalue())
        elif p.suffix == ".txt":
            out_lines, seen, skip, item = [], {}, False, ""
            for ln in p.read_text(errors="replace").splitlines(True):
                if ln.startswith(ITEM_MARK):
                    item = ln[len(ITEM_MARK):].strip()
                if not ln.startswith("========="):
                    skip = False
                    out_lines.append(ln)
                    continue
                body = ln[len("========="):]
                if not body.strip():
                    if not skip and out_lines and out_lines[-1].strip() != "=========":
                        out_lines.append(ln)
                    continue
                if not body.startswith("    "):
                    m = re.search(r"(\(Warp Level Programming\) )?Potential (\w+) hazard", body)
                    if m:
                        key = (item, m.group(2), bool(m.group(1)))
                        seen[key] = seen.get(key, 0) + 1
                        skip = seen[key] > keep_hazards
                    else:
                        skip = False
                if skip or "Host Frame" in body or "Saved host backtrace" in body:
                    continue
                out_lines.append(ln)
            (dst / p.name).write_text("".join(out_lines))
    return dst


# ------------------------------------------------------------------ the two checks

def _meta(raw: Path) -> dict:
    return _load_json(raw / "meta.json") or {}


def _gpu_collect(items, raw_dir, tools, n, seed, log, deadline_s: float = 480.0):
    from kernels_cuda.cupy_backend import CupyBackend
    CupyBackend()                                  # fail early and plainly without a GPU
    for exe in (["ncu"] if "ncu" in tools else []) + (["compute-sanitizer"] if set(tools) & set(SAN_TOOLS) else []):
        if shutil.which(exe) is None:
            from simt.errors import UsageError
            raise UsageError(f"{exe} is not on PATH (it comes with the CUDA toolkit)")
    return collect(items, raw_dir, tools, n=n, seed=seed, log=log, deadline_s=deadline_s)


def ncu_check(ids: Iterable[str] | None = None, probes: bool = True, n: int | None = None,
              seed: int = 0, raw_dir: str | Path | None = None, collect: bool | None = None,
              emu: dict | None = None, log=lambda s: None) -> NcuReport:
    """``simt check --ncu``: emulator counters vs ncu for the selected items.

    ``collect``: run ncu now (GPU); default: only when ``raw_dir`` holds no earlier
    collection.  Raises ``simt.UsageError`` without a GPU / ncu when it must collect."""
    items = select_items(ids, probes)
    raw, tmp = _raw(raw_dir)
    try:
        if collect or (collect is None and not any(raw.glob("ncu_manifest*.json"))):
            _gpu_collect(items, raw, ("ncu",), n, seed, log)
        meta = _meta(raw)
        ncu, info = load_ncu(raw)
        items = [i for i in items if i in ncu] or items
        emu = emu if emu is not None else emulate(items, n, seed, sanitize=False, progress=log)
        errors = {k: f"GPU: {v}" for k, v in info.pop("manifest_errors", {}).items()}
        rep = compare_ncu(emu, ncu, items, errors)
        rep.device = (meta.get("device") or {}).get("name", "")
        rep.ncu_version = meta.get("ncu_version") or ""
        rep.collected_with = meta.get("command") or ""
        rep.info = info
        return rep
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def sanitizer_check(ids: Iterable[str] | None = None, probes: bool = True, n: int | None = None,
                    seed: int = 0, raw_dir: str | Path | None = None, collect: bool | None = None,
                    tools: Sequence[str] = SAN_TOOLS, emu: dict | None = None,
                    log=lambda s: None) -> SanitizerReport:
    """``simt check --sanitizer``: the emulator's sanitizer vs compute-sanitizer
    (racecheck, synccheck, memcheck) for the selected items, broken probes included."""
    items = select_items(ids, probes, fatal=True)
    raw, tmp = _raw(raw_dir)
    try:
        if collect or (collect is None and not any((raw / f"{t}.txt").exists() for t in tools)):
            _gpu_collect(items, raw, tuple(tools), n, seed, log)
        meta = _meta(raw)
        cs, ran = load_sanitizer(raw, tools)
        emu = emu if emu is not None else emulate(items, n, seed, sanitize=True, progress=log)
        rep = compare_sanitizer(emu, cs, items, tools, ran)
        rep.device = (meta.get("device") or {}).get("name", "")
        rep.version = meta.get("sanitizer_version") or ""
        rep.collected_with = meta.get("command") or ""
        rep.raw = {t: {it: aggregate_reports(reps) for it, reps in cs[t].items() if reps}
                   for t in cs}
        return rep
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def _raw(raw_dir):
    if raw_dir is None:
        tmp = tempfile.mkdtemp(prefix="simt-ncu-")
        return Path(tmp), tmp
    p = Path(raw_dir)
    p.mkdir(parents=True, exist_ok=True)
    return p, None


# ------------------------------------------------------------------ command line

def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    from simt.errors import SimtError

    p = argparse.ArgumentParser(prog="python -m kernels_cuda.ncu_check",
                                description="emulator counters/sanitizer vs ncu/compute-sanitizer")
    p.add_argument("ids", nargs="*", help="catalog ids, families or probe:GLOB (default: all)")
    p.add_argument("--no-probes", action="store_true", help="catalog items only")
    p.add_argument("--n", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tools", default=",".join(ALL_TOOLS), help="subset of " + ",".join(ALL_TOOLS))
    p.add_argument("--raw", default=None, help="folder for (or holding) the raw GPU output")
    p.add_argument("--collect-only", action="store_true", help="GPU side only: write --raw")
    p.add_argument("--compare", default=None, metavar="RAW", help="compare a collection (no GPU)")
    p.add_argument("--out", default=None, help="write ncu_check.md/.json, sanitizer_check.md/.json here")
    p.add_argument("--deadline", type=float, default=480.0, help="seconds for the GPU side")
    p.add_argument("--trim-raw", nargs=2, metavar=("RAW", "DEST"),
                   help="write a compact copy of a collection (to commit) and exit")
    # the worker (runs under the tools)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--manifest", default=None, help=argparse.SUPPRESS)
    p.add_argument("--lineinfo", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--pool", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)

    if a.worker:
        return worker(a.ids, a.manifest, a.n, a.seed, a.lineinfo, a.pool)
    if a.trim_raw:
        print(trim_raw(*a.trim_raw))
        return 0

    log = lambda s: print(f"... {s}", file=sys.stderr, flush=True)   # noqa: E731
    tools = [t for t in a.tools.split(",") if t]
    command = "python -m kernels_cuda.ncu_check " + " ".join(
        (argv if argv is not None else sys.argv[1:]))
    try:
        if a.collect_only:
            if not a.raw:
                p.error("--collect-only needs --raw DIR")
            items = select_items(a.ids, not a.no_probes, fatal=True)
            _gpu_collect(items, a.raw, tools, a.n, a.seed, log, a.deadline)
            return 0
        raw = a.compare or a.raw
        collect_now = None if a.compare else True
        if raw is None and collect_now:
            raw = tempfile.mkdtemp(prefix="simt-ncu-")
        if collect_now:
            items = select_items(a.ids, not a.no_probes, fatal=True)
            collect(items, raw, tools, n=a.n, seed=a.seed, deadline_s=a.deadline, log=log)
        ok = True
        out = Path(a.out) if a.out else None
        if out:
            out.mkdir(parents=True, exist_ok=True)
        if "ncu" in tools:
            rep = ncu_check(a.ids, not a.no_probes, a.n, a.seed, raw, collect=False, log=log)
            md = rep.markdown(command)
            if out:
                (out / "ncu_check.md").write_text(md)
                (out / "ncu_check.json").write_text(json.dumps(rep.as_dict(compact=True), default=str)
                                                    .replace('], [', '],\n['))
            s = rep.summary()
            print(f"ncu: {s['exact_equal']} of {s['exact_compared']} exact values equal; "
                  f"{len(rep.mismatches)} mismatches; {s['exact_missing']} missing")
            ok &= rep.ok
        st = [t for t in tools if t in SAN_TOOLS]
        if st:
            srep = sanitizer_check(a.ids, not a.no_probes, a.n, a.seed, raw, collect=False,
                                   tools=st, log=log)
            if out:
                (out / "sanitizer_check.md").write_text(srep.markdown(command))
                (out / "sanitizer_check.json").write_text(json.dumps(srep.as_dict(), indent=1, default=str))
            ss = srep.summary()
            print("sanitizer: " + "; ".join(f"{t}: {d['agree']}/{d['items']} agree"
                                            for t, d in ss.items() if d["items"]))
            ok &= srep.ok
        return 0 if ok else 1
    except SimtError as err:
        print(f"simt: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
