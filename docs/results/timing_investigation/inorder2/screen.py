"""The screen's figures: each emulated row (rows1/rows2.jsonl.gz, made with
simt.issue.INORDER_FROM_SLOW_PATH = True) against the committed tables; rows that moved by
more than 2%, and how many are within 1.5x before and after.  From the repository root."""
import gzip, json, math
from pathlib import Path

D = Path(__file__).parent
old = {}
for stem, g in (("timing_probes_h200", "h200"), ("timing_probes_h100", "h100"), ("timing_h200", "h200"), ("timing_h100", "h100")):
    for r in json.loads(Path(f"docs/results/{stem}.json").read_text())["rows"]:
        old[(g, r["id"], r["n"])] = r.get("ratio")


def inside(x):
    return 1 / 1.5 <= x <= 1.5


stats = {"h200": [0, 0, 0, 0], "h100": [0, 0, 0, 0]}
moved, lo, ln = [], 0.0, 0.0
for f in ("rows1.jsonl.gz", "rows2.jsonl.gz"):
    for line in gzip.open(D / f, "rt"):
        d = json.loads(line)
        for g, r in d["rows"].items():
            o = old.get((g, d["id"], d["n"]))
            if o is None or r.get("ratio") is None:
                continue
            s = stats[g]
            s[0] += 1
            s[2] += inside(o)
            s[3] += inside(r["ratio"])
            lo += abs(math.log(o))
            ln += abs(math.log(r["ratio"]))
            if abs(r["ratio"] / o - 1) > 0.02:
                s[1] += 1
                moved.append((g, d["id"], d["n"], round(o, 2), round(r["ratio"], 2)))
for g, (n, m, a, b) in stats.items():
    print(f"{g}: {n} rows, {m} moved by more than 2%, within 1.5x {a} -> {b}")
print(f"summed |log ratio| {lo:.2f} -> {ln:.2f}")
for x in sorted(moved, key=lambda x: -abs(math.log(x[4] / x[3]))):
    print("   ", *x)
