"""Which L2 capacity prices a sample's own re-touches of a randomly touched table (session
68).  Reads the rows emulate_rows.py wrote (rows.jsonl: every (id, size) of the four tables
with a scattered allocation, re-emulated with the simt__l2_retouch_table_* counters; rows_rmw.jsonl: the 36 ids with atomic
re-touches, again after the fix that counts their sectors once) and
the tables as they were before (git show 20e159f), predicts each row again with each
variant of ``timing.table_retouch_miss``, and prints, a GPU each, how many rows moved by
more than 0.5% and how many of those were within 1.5x before and after, then the summed
|log ratio| over every row.  From the repository root, no GPU:

    python docs/results/timing_investigation/tabretouch/screen.py docs/results/timing_investigation/tabretouch/rows.jsonl.gz \
        docs/results/timing_investigation/tabretouch/rows_rmw.jsonl.gz [-v]"""
import sys
from pathlib import Path
from simt import timing, counters as C

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "repredict"))
from screen_setting import load_rows, print_moved, screen, tables_at  # noqa: E402

rows = load_rows([a for a in sys.argv[1:] if a != "-v"])
prof = {g: timing.load_profile(g) for g in ("h100", "h200")}
old = tables_at("20e159f")


def law(cap, k=C.RETOUCH_STEEPNESS):
    """The distance law at capacity cap(profile) and steepness k."""
    def f(metrics, p, resident):
        qs = [metrics.get(f"simt__l2_retouch_table_block_bytes.q{q}", 0) for q in range(C.RETOUCH_QUANTILES)]
        if not metrics.get("simt__l2_retouch_table_sectors.sum"):
            return 0.0
        return sum(1 / (1 + (cap(p) / (q * max(1, resident))) ** k) if q else 0.0 for q in qs) / len(qs)
    return f


def none(metrics, p, resident):
    return 0.0


VARIANTS = [("none (as before: L2 hits)", none),
            ("l2_reuse_bytes (30.9 MiB on the H200)", law(lambda p: p.l2_reuse_bytes)),
            ("l2_retouch_bytes (70 MiB; chosen)", law(lambda p: p.l2_retouch_bytes)),
            ("L2's size", law(lambda p: p.l2_mib * 2 ** 20)),
            ("50 MiB", law(lambda p: 50 * 2 ** 20)),
            ("90 MiB", law(lambda p: 90 * 2 ** 20)),
            ("l2_retouch_bytes, k = 3", law(lambda p: p.l2_retouch_bytes, 3.0))]


for name, f in VARIANTS:
    timing.table_retouch_miss = f
    res, logs, moved = screen(rows, old, prof)
    print(f"{name}: " + "; ".join(f"{g} {m} moved, {a} -> {b} within 1.5x" for g, (m, a, b, _) in res.items())
          + f"; summed |log ratio| {logs:.2f}")
    if "-v" in sys.argv:
        print_moved(moved)
