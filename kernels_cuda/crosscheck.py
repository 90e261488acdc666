"""Emulator versus GPU: the logic behind ``simt check`` and ``simt run ... --real``.

``run_check`` runs catalog entries on both backends with the same inputs and compares:

* integer kernels and float kernels whose order of additions is fixed by the source
  (tree reductions, shuffle trees, serial loops): the outputs must be **identical**, bit
  for bit;
* float kernels whose order is free (float atomics, a scan's look-back): within
  ``entry.float_rtol`` (relative and absolute);
* racy entries (``entry.racy``) that lose updates (``entry.lost_updates`` set: racy
  histograms, counters): both backends must **lose updates** (both wrong against the
  reference); which updates are lost depends on timing, so values are not compared;
* other racy entries (a read that may see an old or a new value, a missing barrier):
  the emulator's schedule for the entry must expose the race (wrong result); on the GPU
  the race shows only when timing lines up, so its result is reported, not required;
* every non-racy entry must also be as correct as ``entry.expect_correct`` says on both
  (a seed's deterministic bug gives the same wrong answer on both).

``real_table`` times entries on the GPU (CUDA events, median of repeated runs) and puts
the numbers beside what the emulator says (correctness, predicted time).  ``real_launch``
does the same for one launch of a user's kernel.  Both need CuPy and a device;
``cupy_backend.available()`` says whether there is one.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np

from kernels_cuda import catalog
from kernels_cuda.catalog import Entry, Outputs


# ------------------------------------------------------------------ selecting entries

def select(ids: Iterable[str] | None = None) -> list[Entry]:
    """Catalog entries for ids, where a bare family name ("scan") means its variants.
    None or empty: every entry."""
    es = catalog.entries()
    ids = list(ids or [])
    if not ids:
        return es
    out: list[Entry] = []
    for i in ids:
        fam = [e for e in es if e.family == i]
        for e in fam or [catalog.get(i)]:
            if e not in out:
                out.append(e)
    return out


# ------------------------------------------------------------------ comparing outputs

def compare_outputs(entry: Entry, a: Outputs, b: Outputs) -> tuple[bool, str]:
    """Do two backends' outputs agree for this entry?  ``(agree, detail)``.

    Exact (NaN equal to NaN) unless the entry has ``float_rtol``, then
    ``allclose(rtol=atol=float_rtol)`` for float outputs.  ``detail`` names the first
    output that differs, how many elements and the largest difference.
    """
    keys = sorted(set(a) | set(b))
    for k in keys:
        if k not in a or k not in b:
            return False, f"{k}: only on {'emulator' if k in a else 'GPU'}"
        x, y = np.asarray(a[k]), np.asarray(b[k])
        if x.shape != y.shape:
            return False, f"{k}: shape {x.shape} vs {y.shape}"
        isfloat = np.issubdtype(x.dtype, np.floating) or np.issubdtype(y.dtype, np.floating)
        if isfloat and entry.float_rtol is not None:
            tol = entry.float_rtol
            bad = ~np.isclose(x, y, rtol=tol, atol=tol, equal_nan=True)
        elif isfloat:
            bad = ~((x == y) | (np.isnan(x) & np.isnan(y)))
        else:
            bad = x != y
        nbad = int(np.count_nonzero(bad))
        if nbad:
            xs = x.astype(np.float64)[bad]
            ys = y.astype(np.float64)[bad]
            first = int(np.flatnonzero(bad.reshape(-1))[0])
            return False, (f"{k}: {nbad} of {x.size} differ (first at [{first}]: "
                           f"{x.reshape(-1)[first]!r} vs {y.reshape(-1)[first]!r}; "
                           f"max |diff| {np.max(np.abs(xs - ys)):.3g})")
    return True, ""


def _mode(entry: Entry) -> str:
    if entry.racy:
        return "racy"
    if entry.float_rtol is not None:
        return f"rtol={entry.float_rtol:g}"
    return "exact"


def _lost(entry: Entry, out: Outputs, ref: Outputs) -> int | None:
    f = getattr(entry, "lost_updates", None)
    if f is None:
        return None
    try:
        return int(f(out, ref))
    except Exception:
        return None


# ------------------------------------------------------------------ simt check

@dataclass
class CheckRow:
    """One catalog entry checked on both backends.

    ``emulator``/``cuda``: "correct", "wrong" (against the numpy reference) or "error";
    ``agree``: the comparison for ``mode`` held (None where a backend failed);
    ``ok``: everything the entry promises held: the row passes.
    """
    id: str
    n: int
    mode: str                          # "exact" | "rtol=1e-05" | "racy"
    expect_correct: bool
    emulator: str = "error"
    cuda: str = "error"
    agree: bool | None = None
    ok: bool = False
    detail: str = ""
    emulator_lost: int | None = None   # racy entries: updates lost on each backend
    cuda_lost: int | None = None
    emulator_s: float | None = None    # emulator wall time
    cuda_ms: float | None = None       # device time of the launches (timed runs only)
    predicted_ms: float | None = None  # the emulator's cost model, when it has one

    def as_dict(self) -> dict:
        return asdict(self)


def _predicted_ms(emu) -> float | None:
    vals = []
    for r in getattr(emu, "launches", []):
        v = getattr(r, "predicted_ms", None)
        if v is None and hasattr(r, "as_dict"):
            try:
                v = r.as_dict().get("predicted_ms")
            except Exception:
                v = None
        if v is None:
            return None
        vals.append(float(v))
    return sum(vals) if vals else None


def check_entry(entry: Entry, n: int | None = None, seed: int = 0, timed: bool = False,
                sanitize: bool = False, emulator_backend=None, cuda_backend=None) -> CheckRow:
    """Run one entry on the emulator and on the GPU with the same inputs and compare.

    ``timed``: also time the GPU launches (fills ``cuda_ms``).  ``sanitize``: run the
    emulator's sanitizer too (slower; findings do not change the verdict).  The
    backends can be passed in (tests do); by default fresh ones are made.
    """
    from kernels_cuda.backend import EmulatorBackend
    from kernels_cuda.cupy_backend import CupyBackend

    n = int(n or entry.default_n)
    row = CheckRow(entry.id, n, _mode(entry), entry.expect_correct)
    inputs = entry.inputs(n, seed)
    ref = entry.reference(inputs)
    details = []

    emu = emulator_backend or EmulatorBackend(seed=seed, policy=entry.policy, sanitize=sanitize)
    t0 = time.perf_counter()
    try:
        eo = entry.run(emu, inputs)
        row.emulator = "correct" if catalog.compare(entry, eo, ref) else "wrong"
        row.emulator_lost = _lost(entry, eo, ref) if entry.racy else None
        row.predicted_ms = _predicted_ms(emu)
    except Exception as err:  # one broken entry must not hide the others
        eo = None
        details.append(f"emulator: {err}")
    row.emulator_s = round(time.perf_counter() - t0, 3)

    dev = cuda_backend or CupyBackend(timed=timed)
    try:
        do = entry.run(dev, inputs)
        row.cuda = "correct" if catalog.compare(entry, do, ref) else "wrong"
        row.cuda_lost = _lost(entry, do, ref) if entry.racy else None
        row.cuda_ms = dev.total_ms() if hasattr(dev, "total_ms") else None
    except Exception as err:
        do = None
        details.append(f"GPU: {err}")

    if eo is not None and do is not None:
        if entry.racy and getattr(entry, "lost_updates", None) is not None:
            # both must lose updates; the values depend on timing and are not compared
            row.agree = row.emulator == "wrong" and row.cuda == "wrong"
            if not row.agree:
                who = [b for b, s in (("emulator", row.emulator), ("GPU", row.cuda))
                       if s == "correct"]
                details.append(f"no update lost on {' and '.join(who)}")
            row.ok = row.agree
        elif entry.racy:
            # an ordering race (a read that may see an old or a new value): the emulator's
            # schedule for this entry must expose it; on the GPU it shows only when the
            # timing happens to line up, so its result is reported, not required wrong
            row.agree = row.emulator == "wrong"
            if row.emulator != "wrong":
                details.append("the emulator's schedule did not expose the race")
            if row.cuda == "correct":
                details.append("the race did not show on the GPU this run")
            row.ok = row.agree
        else:
            row.agree, d = compare_outputs(entry, eo, do)
            if d:
                details.append(d)
            want = "correct" if entry.expect_correct else "wrong"
            for b, s in (("emulator", row.emulator), ("GPU", row.cuda)):
                if s != want:
                    details.append(f"{b} is {s}, expected {want}")
            row.ok = bool(row.agree) and row.emulator == want and row.cuda == want
    row.detail = "; ".join(details)
    return row


def run_check(ids: Sequence[str] | None = None, n: int | None = None, seed: int = 0,
              timed: bool = False, sanitize: bool = False,
              progress: Callable[[Entry, CheckRow | None], None] | None = None) -> list[CheckRow]:
    """``simt check``: every selected catalog entry (all when ``ids`` is empty; a family
    name selects its variants) on the emulator and on the GPU, same inputs.

    ``n``: problem size for every entry (default: each entry's ``default_n``).
    ``progress(entry, None)`` is called before an entry runs and
    ``progress(entry, row)`` after.  Returns one ``CheckRow`` per entry; the check
    passes when ``all(r.ok for r in rows)``.  Raises ``simt.UsageError`` (from
    ``CupyBackend``) when there is no usable GPU, and for an unknown id.
    """
    from kernels_cuda.cupy_backend import CupyBackend

    CupyBackend()          # fail early and plainly without a GPU
    rows = []
    for e in select(ids):
        if progress:
            progress(e, None)
        row = check_entry(e, n=n, seed=seed, timed=timed, sanitize=sanitize)
        rows.append(row)
        if progress:
            progress(e, row)
    return rows


def format_check_table(rows: Sequence[CheckRow]) -> str:
    """Plain-text table of check rows, with a last line saying whether all passed."""
    head = f"{'id':<34} {'mode':<11} {'emulator':<8} {'GPU':<8} {'result':<6} detail"
    lines = [head, "-" * len(head)]
    for r in rows:
        res = "ok" if r.ok else "FAIL"
        det = r.detail
        if r.mode == "racy" and r.emulator_lost is not None:
            det = (f"lost {r.emulator_lost} (emulator), {r.cuda_lost} (GPU)"
                   + (f"; {det}" if det else ""))
        lines.append(f"{r.id:<34} {r.mode:<11} {r.emulator:<8} {r.cuda:<8} {res:<6} {det}")
    bad = sum(not r.ok for r in rows)
    lines.append(f"{len(rows) - bad} of {len(rows)} agree" + ("" if not bad else f"; {bad} FAIL"))
    return "\n".join(lines)


# ------------------------------------------------------------------ simt run --real

@dataclass
class RealRow:
    """One entry (or a user's launch) timed on the GPU, beside the emulator's view.

    ``measured_ms``: sum over the driver's launches of each launch's median;
    throughput counts each input read once and each output written once;
    ``frac_copy_bw``: that bandwidth over the device's measured copy bandwidth.
    """
    id: str
    variant: str
    n: int
    device: str
    measured_ms: float | None = None
    elements_per_s: float | None = None
    gb_per_s: float | None = None
    frac_copy_bw: float | None = None
    correct: bool | None = None              # GPU output vs the numpy reference
    emulator_correct: bool | None = None
    emulator_agrees: bool | None = None      # same comparison as simt check
    predicted_ms: float | None = None        # the emulator's cost model
    emulator_s: float | None = None
    launches: list = field(default_factory=list)   # LaunchTiming.as_dict() per launch
    error: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def _nbytes(d: dict) -> int:
    return int(sum(np.asarray(v).nbytes for v in d.values()))


def real_table(ids: Sequence[str] | str, n: int | None = None, seed: int = 0,
               warmup: int = 3, repeat: int = 20, emulate: bool = True,
               family: bool = False, policy: str | None = None) -> list[RealRow]:
    """``simt run ID --real``: time catalog entries on the GPU.

    ``ids``: an id, a family name, or a list of them; ``family=True`` widens a single id
    to every variant of its family (the seed-000-style table: variant, time,
    throughput).  ``n``: problem size (default each entry's ``default_n``; the GPU side
    is happy with 2**26 and more, the emulator is not: pass ``emulate=False`` for large
    n).  With ``emulate`` the emulator runs the same inputs first and its correctness,
    agreement and predicted time fill the row.  Each launch: ``warmup`` runs, then the
    median of ``repeat`` runs timed with CUDA events.
    """
    from kernels_cuda.backend import EmulatorBackend
    from kernels_cuda.cupy_backend import CupyBackend, copy_bandwidth, device_name, throughput

    CupyBackend()          # fail early and plainly without a GPU
    if isinstance(ids, str):
        ids = [ids]
    entries = select(ids)
    if family:
        fams = {e.family for e in entries}
        entries = [e for e in catalog.entries() if e.family in fams]
    dev_name = device_name()
    bw = copy_bandwidth()
    rows = []
    for e in entries:
        nn = int(n or e.default_n)
        row = RealRow(e.id, e.variant, nn, dev_name)
        inputs = e.inputs(nn, seed)
        ref = e.reference(inputs) if emulate or nn <= 1 << 22 else None
        dev = CupyBackend(timed=True, warmup=warmup, repeat=repeat)
        try:
            do = e.run(dev, inputs)
            row.measured_ms = dev.total_ms()
            row.launches = [t.as_dict() for t in dev.launches]
            if ref is not None:
                row.correct = bool(catalog.compare(e, do, ref))
                nbytes = _nbytes(inputs) + _nbytes(ref)
            else:
                nbytes = _nbytes(inputs) + _nbytes(do)
            tp = throughput(row.measured_ms, nn, nbytes, bw)
            row.elements_per_s, row.gb_per_s, row.frac_copy_bw = (
                tp["elements_per_s"], tp["gb_per_s"], tp["frac_copy_bw"])
        except Exception as err:
            do = None
            row.error = f"GPU: {err}"
        if emulate:
            emu = EmulatorBackend(seed=seed, policy=policy or e.policy, sanitize=False)
            t0 = time.perf_counter()
            try:
                eo = e.run(emu, inputs)
                row.emulator_correct = bool(catalog.compare(e, eo, ref))
                row.predicted_ms = _predicted_ms(emu)
                if do is not None:
                    row.emulator_agrees = ((row.emulator_correct is False and row.correct is False)
                                           if e.racy else compare_outputs(e, eo, do)[0])
            except Exception as err:
                row.error = (row.error + "; " if row.error else "") + f"emulator: {err}"
            row.emulator_s = round(time.perf_counter() - t0, 3)
        rows.append(row)
    return rows


def set_module_vars(dev, source: str, module_vars: dict, symbols: dict) -> dict:
    """Set a file's ``__constant__``/``__device__`` variables on a GPU backend to
    ``symbols[name]`` or their initializers (a fresh module's contents, whatever earlier
    launches in this process left there); return them, name -> device array."""
    out = {}
    for name, var in module_vars.items():
        host = symbols.get(name)
        out[name] = dev.get_global(source, name, var.shape, var.dtype)
        out[name].set(np.array(var.initial if host is None else host, var.dtype,
                               order="C").reshape(var.shape))
    return out


def real_launch(source: str, kernel: str, grid, block, args: Sequence, shared_mem: int = 0,
                warmup: int = 3, repeat: int = 20, symbols: dict | None = None,
                module_vars: dict | None = None, params=None) -> tuple[RealRow, list, dict]:
    """``simt run FILE.cu --kernel K ... --real``: one launch of a user's kernel, timed.

    ``args``: host values in parameter order: numpy arrays for pointers (copied to the
    device), numpy scalars for the rest.  Returns ``(row, after)`` where ``after`` holds,
    per argument, the array's contents after one launch (numpy) or None for scalars.
    ``module_vars`` (``simt.Module.globals``): the file's ``__constant__``/``__device__``
    variables, set to their initializers (or to ``symbols[name]``) before the launch and
    returned, read back after it, as the third item.  Throughput counts every array
    argument once (read or written) and one element per thread of the grid.  With
    ``params`` (the kernel's, ``simt.Module``'s), a struct given as a tuple, list or dict
    may hold numpy arrays for pointer members (``simt.byvalue.map_pointers``): each is
    copied to the device and its member points to it; ``after`` then holds, for that
    argument, the list of those arrays after the launch.
    """
    from kernels_cuda.cupy_backend import CupyBackend, copy_bandwidth, device_name, throughput
    from simt.launch import LaunchConfig

    dev = CupyBackend(timed=True, warmup=warmup, repeat=repeat)
    dargs = [dev.to_device(a) if isinstance(a, np.ndarray) and a.ndim > 0 else a for a in args]
    members: dict[int, list] = {}           # argument -> its members' (host, device) arrays
    for k, (p, a) in enumerate(zip(params or (), args)):
        if p.fields is not None and isinstance(a, (tuple, list, dict)):
            from simt import byvalue
            hosts = []
            dargs[k], devs = byvalue.member_arrays_to(
                p.ctype, a, lambda x: hosts.append(x) or dev.to_device(x))
            members[k] = list(zip(hosts, devs))
    cfg = LaunchConfig.of(grid, block, shared_mem)
    row = RealRow(f"{source}:{kernel}", kernel, cfg.threads, device_name())
    dev.module(source, kernel)          # a template instance: compiled before globals are set
    gvars = set_module_vars(dev, source, module_vars or {}, symbols or {})
    dev.launch(source, kernel, cfg.grid, cfg.block, dargs, cfg.shared_mem)
    row.measured_ms = dev.total_ms()
    row.launches = [t.as_dict() for t in dev.launches]
    nbytes = int(sum(a.nbytes for a in args if isinstance(a, np.ndarray) and a.ndim > 0))
    tp = throughput(row.measured_ms, cfg.threads, nbytes, copy_bandwidth())
    row.elements_per_s, row.gb_per_s, row.frac_copy_bw = (
        tp["elements_per_s"], tp["gb_per_s"], tp["frac_copy_bw"])
    after = [(dev.to_host(d).view(a.dtype).reshape(a.shape) if a.dtype.names else dev.to_host(d))  # structs: bytes
             if isinstance(a, np.ndarray) and a.ndim > 0 else None for a, d in zip(args, dargs)]
    for k, got in members.items():
        after[k] = [dev.to_host(d).view(x.dtype).reshape(x.shape) for x, d in got]
    return row, after, {n: dev.to_host(g) for n, g in gvars.items()}


def _fmt(v, spec: str, scale: float = 1.0) -> str:
    return "-" if v is None else format(v * scale, spec)


def format_real_table(rows: Sequence[RealRow]) -> str:
    """Plain-text table: variant, GPU time, throughput, share of copy bandwidth, and the
    emulator's verdict and predicted time beside them."""
    from kernels_cuda.cupy_backend import copy_bandwidth

    dev = rows[0].device if rows else "?"
    head = (f"{'variant':<28} {'n':>10} {'GPU ms':>9} {'Gelem/s':>8} {'GB/s':>8} {'%copy':>6} "
            f"{'GPU':>7} {'emul.':>7} {'agree':>5} {'pred. ms':>9}")
    lines = [f"device: {dev}; copy bandwidth {copy_bandwidth() / 1e9:.0f} GB/s (read + write)",
             head, "-" * len(head)]

    def yn(v):
        return "-" if v is None else ("ok" if v else "WRONG")

    for r in rows:
        lines.append(
            f"{r.id:<28} {r.n:>10} {_fmt(r.measured_ms, '.4f'):>9} "
            f"{_fmt(r.elements_per_s, '.2f', 1e-9):>8} {_fmt(r.gb_per_s, '.1f'):>8} "
            f"{_fmt(r.frac_copy_bw, '.1f', 100):>6} {yn(r.correct):>7} {yn(r.emulator_correct):>7} "
            f"{'-' if r.emulator_agrees is None else ('yes' if r.emulator_agrees else 'NO'):>5} "
            f"{_fmt(r.predicted_ms, '.4f'):>9}" + (f"  {r.error}" if r.error else ""))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m kernels_cuda.crosscheck [ID ...] [--n N] [--seed S] [--timed]``:
    the check table without the CLI; exit status 1 on any failure, 2 without a GPU."""
    import argparse
    import sys

    from simt.errors import SimtError

    p = argparse.ArgumentParser(prog="python -m kernels_cuda.crosscheck")
    p.add_argument("ids", nargs="*")
    p.add_argument("--n", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timed", action="store_true")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.add_argument("--out", default=None, help="also write the rows as JSON to this file")
    a = p.parse_args(argv)
    try:
        rows = run_check(a.ids, n=a.n, seed=a.seed, timed=a.timed,
                         progress=lambda e, r: r is None and print(f"... {e.id}", file=sys.stderr, flush=True))
    except SimtError as err:
        print(f"simt: {err}", file=sys.stderr)
        return 2
    import json
    if a.out:
        from kernels_cuda.cupy_backend import device_name
        with open(a.out, "w") as f:
            json.dump({"device": device_name(), "seed": a.seed, "n": a.n,
                       "rows": [r.as_dict() for r in rows]}, f, indent=1, default=str)
    if a.json:
        print(json.dumps([r.as_dict() for r in rows], indent=1, default=str))
    else:
        print(format_check_table(rows))
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
