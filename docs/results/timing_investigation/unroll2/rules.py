"""Candidate rules for nvcc's unroll factor of a run-time-trip loop, scored on loops.csv.

python docs/results/timing_investigation/unroll2/rules.py
"""
import csv, itertools, os

HERE = os.path.dirname(os.path.abspath(__file__))
rows = [r for r in csv.DictReader(open(os.path.join(HERE, "loops.csv"))) if r["factor"] != "?"]
for r in rows:
    for k, v in r.items():
        if k not in ("id", "src", "kernel", "sass_ldg", "factor"):
            r[k] = int(v)
    r["factor"] = int(r["factor"])
N = len(rows)


def kept(r):
    """simt's 'not unrolled at all' (runtime_stride) or a loop LLVM cannot count."""
    return r["rt_stride"] or not r["countable"]


def score(rule, collapse=False):
    f = (lambda x: min(x, 4)) if collapse else (lambda x: x)
    return sum(f(rule(r)) == f(r["factor"]) for r in rows)


def wsize(r, w):
    return r["size"] + w * r["calls"]


def thresholds(s16, s4, s2, w=0, gate=kept):
    def rule(r):
        if gate(r):
            return 1
        s = wsize(r, w)
        return 16 if s <= s16 else 4 if s <= s4 else 2 if s <= s2 else 1
    return rule


def llvm(T, P, w=0, gate=kept, maxc=4):
    """LLVM runtime unroll: largest power of two c <= maxc with (s - 2) c + 2 <= T;
    then ptxas unrolls again by 4 while c * s <= P."""
    def rule(r):
        if gate(r):
            return 1
        s = wsize(r, w)
        c = maxc
        while c > 1 and (s - 2) * c + 2 > T:
            c //= 2
        if c == 1 and (s - 2) + 2 > T:
            return 1
        return c * 4 if c * s <= P else c
    return rule


def best(make, grids):
    out = []
    for args in itertools.product(*grids):
        out.append((score(make(*args)), score(make(*args), True), args))
    return max(out)


def main():
    print(f"{N} loops with a known factor")
    res = []
    res.append(("simt now: 1 if _runtime_stride else 4", score(lambda r: 1 if r["rt_stride"] else 4),
                score(lambda r: 1 if r["rt_stride"] else 4, True), ()))
    res.append(("1 if _runtime_stride or not countable else 4",
                score(lambda r: 1 if kept(r) else 4), score(lambda r: 1 if kept(r) else 4, True), ()))
    g = [range(4, 20), range(20, 120, 4), range(40, 200, 8)]
    s = best(lambda a, b, c: thresholds(a, b, c), g)
    res.append(("thresholds on body_size: 16 <= S16 < 4 <= S4 < 2 <= S2 < 1 (args S16,S4,S2)", *s))
    sw = best(lambda a, b, c, w: thresholds(a, b, c, w), g + [(0, 4, 8, 16)])
    res.append(("same on body_size + w * calls (args S16,S4,S2,w)", *sw))
    gb = lambda r: kept(r) or r["branches"] > 0
    sb = best(lambda a, b, c, w: thresholds(a, b, c, w, gb), g + [(0, 8)])
    res.append(("same, and 1 for any unpredicated if (args S16,S4,S2,w)", *sb))
    for maxc in (4, 8):
        sl = best(lambda T, P, w: llvm(T, P, w, maxc=maxc),
                  [range(20, 300, 10), range(0, 80, 2), (0, 4, 8, 16)])
        res.append((f"LLVM runtime rule, count <= {maxc}, then x4 while c*s <= P (args T,P,w)", *sl))
        sl0 = best(lambda T, w: llvm(T, -1, w, maxc=maxc), [range(20, 300, 5), (0, 4, 8, 16)])
        res.append((f"LLVM runtime rule, count <= {maxc}, no x4 (args T,w)", *sl0))
    print("| rule | exact | with 16 and 8 as 4 | args |\n|---|---|---|---|")
    for name, a, b, args in res:
        print(f"| {name} | {a}/{N} | {b}/{N} | {args} |")
    fixed = {"thresholds(11, 80, 88, w=8)": thresholds(11, 80, 88, 8), "llvm(T=190, P=46, w=4)": llvm(190, 46, 4)}
    for name, rule in fixed.items():
        print(f"\n{name}: {score(rule)}/{N}; misses (factor, predicted, size, calls, branches, countable, kernel:line):")
        for r in rows:
            if rule(r) != r["factor"]:
                print(f"  {r['factor']} {rule(r)} {r['size']} {r['calls']} {r['branches']} {r['countable']} {r['kernel']}:{r['line']}")


if __name__ == "__main__":
    main()
