"""The screen's figures: each row emulated with simt.machine.SPIN_DRIFT_ANY_ATOMIC = True
(rows*.jsonl.gz: emulate_rows_with.py over ids.txt) against the tables
committed at BASE; rows that moved by more than 2%, and how many are within 1.5x before
and after.  From the repository root (git needed for BASE's tables):

    PYTHONPATH=$PWD:docs/results/timing_investigation/repredict python docs/results/timing_investigation/spinany/screen.py"""
import math
from pathlib import Path

from screen_setting import inside, load_rows, tables_at

BASE = "94bdfde"
D = Path(__file__).parent
old = {k: r.get("ratio") for k, r in tables_at(BASE).items()}
stats = {"h200": [0, 0, 0, 0], "h100": [0, 0, 0, 0]}
moved, lo, ln = [], 0.0, 0.0
for d in load_rows([str(p) for p in sorted(D.glob("rows*.jsonl.gz"))]):
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
