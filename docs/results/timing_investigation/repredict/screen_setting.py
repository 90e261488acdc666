"""Screen a setting of simt.timing over rows emulate_rows.py wrote (session 69): each row is
predicted again from its recorded counters at each value of the setting and compared
with the committed tables at BASE (a commit before the change); prints, a GPU each, how
many rows moved by more than 0.5%, how many of those were within 1.5x before and after,
how many of all the rows are within 1.5x, and the summed |log ratio| over every row.
From the repository root, no GPU:

    python docs/results/timing_investigation/repredict/screen_setting.py BASE SETTING VALUES ROWS.jsonl[.gz] ... [-v]

VALUES: comma-separated, numbers or True/False.  shflpipe/ screened SHFL_WAVE_SHARE
(BASE 9783e8c, 0,0.5,1,1.5,2), subpart/ PAIR_SUBPARTITIONS (BASE 2618de8, False,True)."""
import gzip, json, math, subprocess, sys
from simt import timing

GPUS = (("timing_probes_h200", "h200"), ("timing_probes_h100", "h100"), ("timing_h200", "h200"), ("timing_h100", "h100"))


def load_rows(files) -> list:
    """emulate_rows.py's rows from the files (a later file's (id, size) wins)."""
    rows = {}
    for f in files:
        for line in (gzip.open if f.endswith(".gz") else open)(f, "rt"):
            d = json.loads(line)
            rows[(d["id"], d["n"])] = d
    return list(rows.values())


def tables_at(base: str) -> dict:
    """(gpu, id, n) -> the row of the committed tables at commit ``base``."""
    old = {}
    for stem, g in GPUS:
        for r in json.loads(subprocess.check_output(["git", "show", f"{base}:docs/results/{stem}.json"]))["rows"]:
            old[(g, r["id"], r["n"])] = r
    return old


def inside(x):
    return 1 / 1.5 <= x <= 1.5


def compare_rows(base: str, files) -> None:
    """Print how emulated rows (emulate_rows.py's files, made with a switch on) compare with
    the tables committed at ``base``: a GPU each, how many rows, how many moved by more than
    2%, how many were within 1.5x before and after; the summed |log ratio|; the rows that
    moved, most first (inorder2/screen.py, spinany/screen.py)."""
    old = {k: r.get("ratio") for k, r in tables_at(base).items()}
    stats = {"h200": [0, 0, 0, 0], "h100": [0, 0, 0, 0]}
    moved, lo, ln = [], 0.0, 0.0
    for d in load_rows(files):
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


def screen(rows, old, prof) -> tuple:
    """Each row predicted again from its counters at simt.timing as it is now, against
    ``old``: per GPU [moved by more than 0.5%, of those within 1.5x before, after, rows
    within 1.5x], the summed |log ratio| and the moved (gpu, id, n, before, after)."""
    res = {"h200": [0, 0, 0, 0], "h100": [0, 0, 0, 0]}
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
            res[g][3] += inside(ratio)
            if abs(ratio / o["ratio"] - 1) > 0.005:
                res[g][0] += 1
                res[g][1] += inside(o["ratio"])
                res[g][2] += inside(ratio)
                moved.append((g, d["id"], d["n"], round(o["ratio"], 2), round(ratio, 2)))
    return res, logs, moved


def print_moved(moved):
    for x in sorted(moved, key=lambda x: -abs(math.log(x[4] / x[3]))):
        print("   ", *x)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "-v"]
    base, setting, values, files = args[0], args[1], args[2], args[3:]
    rows, old = load_rows(files), tables_at(base)
    prof = {g: timing.load_profile(g) for g in ("h100", "h200")}
    for value in [v == "True" if v in ("True", "False") else float(v) for v in values.split(",")]:
        setattr(timing, setting, value)
        res, logs, moved = screen(rows, old, prof)
        print(f"{setting} = {value}: " + "; ".join(f"{g} {m} moved, {a} -> {b} within 1.5x ({w} of the rows)"
                                                for g, (m, a, b, w) in res.items())
              + f"; summed |log ratio| {logs:.2f}")
        if "-v" in sys.argv:
            print_moved(moved)
