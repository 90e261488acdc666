"""Re-predict the committed tables after a model change, emulating each (entry, size)
once for both GPUs (timing_check.predict_table emulates per GPU).  From the repository
root, no GPU:

    python docs/results/timing_investigation/repredict/repredict.py [catalog] [probes] [--from-metrics] [--jobs N] [--load FILE ...] [--only ID|FAMILY ...]

writes docs/results/timing_{h100,h200}.{md,json} and timing_probes_{h100,h200}.{md,json}
with the commands their headers already name (the first line after the title is kept).
--from-metrics predicts again from the counters the tables recorded, emulating nothing
(after a profile change).  --only emulates just those ids or families and keeps every
other row as the table has it (a model change that cannot move them).  --jobs N emulates
in N processes first (the emulator is deterministic: the same tables, sooner).  --load FILE
takes the launches predict_unseen.py --save pickled (a family emulated for its predictions
at the same commit) instead of emulating them again."""
import functools
import json
import pickle
import sys
from pathlib import Path

from kernels_cuda import timing_check

R = Path("docs/results")
_emulate, _done = timing_check.emulate, {}


def _once(entry, n):
    key = (entry.id, int(n))
    if key not in _done:
        _done[key] = _emulate(entry, n)
    if isinstance(_done[key], Exception):
        raise _done[key]
    return _done[key]


def _work(key):
    try:
        return key, _emulate(timing_check._entry(key[0]), key[1])
    except Exception as ex:                              # kept, raised where the table asks
        return key, ex


def emulate_all(which, only, jobs):
    """Emulate every (entry, size) the tables in ``which`` will ask for, in ``jobs``
    processes, into the cache ``_once`` reads."""
    import multiprocessing
    keys = {}                                            # (id, n) -> None, in table order
    for kind in which:
        for gpu in ("h100", "h200"):
            measured = json.loads((R / (f"timing_measured_{gpu}.json" if kind == "catalog"
                                        else f"timing_probes_measured_{gpu}.json")).read_text())
            for eid, by_n in measured["entries"].items():
                try:
                    e = timing_check._entry(eid)
                except Exception:
                    continue
                if only and eid not in only and e.family not in only:
                    continue
                keys.update(dict.fromkeys((eid, int(n)) for n, rec in by_n.items() if "error" not in rec))
    keys = [k for k in keys if k not in _done]          # (loaded with --load)
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for key, got in pool.imap_unordered(_work, keys):
            _done[key] = got


timing_check.emulate = _once
timing_check._entry = functools.lru_cache(maxsize=None)(timing_check._entry)


def from_metrics(stem: str, gpu: str) -> dict:
    """A table's predictions again from the counters it recorded (a profile change that
    leaves the emulation alone)."""
    from simt import timing
    prof = timing.load_profile(gpu)
    tab = json.loads((R / f"{stem}.json").read_text())
    for r in tab["rows"]:
        if "error" in r:
            continue
        for lt in r["launches"]:
            p = timing.predict(lt["metrics"], lt["grid_blocks"], lt["threads_per_block"], lt["shared_bytes"], prof)
            lt.update(predicted_ms=p.ms, bound=p.bound, components_us=p.components_us)
        r["predicted_ms"] = sum(lt["predicted_ms"] for lt in r["launches"])
        r["ratio"] = r["predicted_ms"] / r["measured_ms"] if r["measured_ms"] else None
    tab["order"] = timing_check.order_check(tab["rows"])
    return tab


def main(which, metrics_only=False, only=None, jobs=1):
    if jobs > 1 and not metrics_only:
        emulate_all(which, only, jobs)
    for kind in which:
        for gpu in ("h100", "h200"):
            stem = f"timing_{gpu}" if kind == "catalog" else f"timing_probes_{gpu}"
            measured = json.loads((R / (f"timing_measured_{gpu}.json" if kind == "catalog"
                                        else f"timing_probes_measured_{gpu}.json")).read_text())
            reuse = json.loads((R / f"{stem}.json").read_text()) if only else None
            tab = from_metrics(stem, gpu) if metrics_only else timing_check.predict_table(
                measured, gpu, only=only, reuse=reuse)
            print(stem, write(stem, tab), file=sys.stderr, flush=True)


def write(stem: str, tab: dict) -> str:
    """Write table ``stem`` (.json and .md, the .md with the command its header names);
    its summary line."""
    head = (R / f"{stem}.md").read_text().split("\n")
    line = next((ln for ln in head if ln.startswith("Command: ")), None)
    text = timing_check.markdown(tab, "x").split("\n")
    if line is not None:                      # the header's command, verbatim
        text[text.index("Command: `x`")] = line
    (R / f"{stem}.json").write_text(json.dumps(tab, indent=1, default=float))
    (R / f"{stem}.md").write_text("\n".join(text))
    return text[4]


if __name__ == "__main__":
    argv = sys.argv[1:]
    only = argv[argv.index("--only") + 1:] if "--only" in argv else None
    argv = argv[:argv.index("--only")] if only else argv
    jobs = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 1
    loads = [argv[i + 1] for i, a in enumerate(argv) if a == "--load"]
    for f in loads:
        with open(f, "rb") as fh:
            _done.update(pickle.load(fh))
    args = [a for a in argv if a not in ("--from-metrics", "--jobs", str(jobs), "--load", *loads)]
    main(args or ["catalog", "probes"], "--from-metrics" in sys.argv, only, jobs)
