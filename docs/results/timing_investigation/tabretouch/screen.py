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
import gzip, json, math, subprocess, sys
from simt import timing, counters as C

rows = {}
for f in [a for a in sys.argv[1:] if a != "-v"]:      # a later file's (id, size) wins
    for line in (gzip.open if f.endswith(".gz") else open)(f, "rt"):
        d = json.loads(line)
        rows[(d["id"], d["n"])] = d
rows = list(rows.values())
prof = {g: timing.load_profile(g) for g in ("h100", "h200")}
old = {}
for stem, g in (("timing_probes_h200", "h200"), ("timing_probes_h100", "h100"),
                ("timing_h200", "h200"), ("timing_h100", "h100")):
    tab = json.loads(subprocess.check_output(["git", "show", f"20e159f:docs/results/{stem}.json"]))
    for r in tab["rows"]:
        old[(g, r["id"], r["n"])] = r


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


def inside(x):
    return 1 / 1.5 <= x <= 1.5


for name, f in VARIANTS:
    timing.table_retouch_miss = f
    res = {"h200": [0, 0, 0], "h100": [0, 0, 0]}
    logs, moved = 0.0, []
    for d in rows:
        for g, r in d["rows"].items():
            o = old.get((g, d["id"], d["n"]))
            if o is None or o.get("ratio") is None or "launches" not in r:
                continue
            ms = sum(timing.predict(L["metrics"], L["grid_blocks"], L["threads_per_block"], L["shared_bytes"], prof[g]).ms
                     for L in r["launches"])
            ratio = ms / r["measured_ms"]
            logs += abs(math.log(ratio))
            if abs(ratio / o["ratio"] - 1) > 0.005:
                res[g][0] += 1
                res[g][1] += inside(o["ratio"])
                res[g][2] += inside(ratio)
                moved.append((g, d["id"], round(o["ratio"], 2), round(ratio, 2)))
    print(f"{name}: " + "; ".join(f"{g} {m} moved, {a} -> {b} within 1.5x" for g, (m, a, b) in res.items())
          + f"; summed |log ratio| {logs:.2f}")
    if "-v" in sys.argv:
        for x in sorted(moved, key=lambda x: -abs(math.log(x[3] / x[2]))):
            print("   ", *x)
