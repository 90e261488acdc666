"""Loads in flight in nvcc's unrolled run-time loops: the table and candidate rules, on
unroll3/loops.csv.

python docs/results/timing_investigation/unroll3/rules.py > docs/results/timing_investigation/unroll3/rules_out.txt
"""
import csv, os
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
R = list(csv.DictReader(open(os.path.join(HERE, "loops.csv"))))
I = lambda r, k: int(r[k] or 0)                      # noqa: E731
W = [r for r in R if r.get("d_reg") not in ("", None)]
for r in W:
    f = int(r["factor"])
    per = int(r["main_ldg"]) / f                         # LDGs of one copy in SASS
    # a trip's first-level loads (those whose address takes no load of the same trip)
    r["lv"] = per * I(r, "g0") / max(1, I(r, "gld_raw"))
    r["te"] = I(r, "d_reg") / r["lv"] if r["lv"] else 0.0   # trips in flight
    r["cap"] = min(f, 8 / r["lv"]) if r["lv"] else f         # simt's: factor, 8 loads at most
    r["cls"] = ("chain" if I(r, "ld_dep_carried") and r["te"] < 1.5 else
                "all" if r["te"] >= r["cap"] - 1e-9 else "cap<2" if r["cap"] < 2 and f >= 2 else
                "fewer-1" if r["te"] < 1.5 else "fewer-part")
    r["set"] = "unroll2" if r["u2_factor"] not in ("", "?") else "new"
    r["hoist"] = r["te"] >= 1.5


def table():
    print("## trips in flight (d_reg) vs nvcc's factor, by set")
    print("| set | factor | loops | all copies | fewer, >1 trip | 1 trip (or less) | serial chain | "
          "fewer, but 8 loads < 2 trips |")
    print("|---|---|---|---|---|---|---|---|")
    for st in ("unroll2", "new", "both"):
        S = [r for r in W if st == "both" or r["set"] == st]
        for f in ("1", "2", "4", "8", "16", ">=2"):
            T = [r for r in S if (r["factor"] == f if f != ">=2" else int(r["factor"]) >= 2)]
            c = Counter(r["cls"] for r in T)
            print("| %s | %s | %d | %d | %d | %d | %d | %d |" % (
                st, f, len(T), c["all"], c["fewer-part"], c["fewer-1"], c["chain"], c["cap<2"]))
    S = [r for r in W]
    print("\nd_reg == d_sb: %d of %d; d_first == d_reg: %d" % (
        sum(r["d_reg"] == r["d_sb"] for r in S), len(S), sum(r["d_first"] == r["d_reg"] for r in S)))


COLS = ("src line kernel gld g0 factor main_ldg d_reg d_sb te size calls ifs branches fdiv gst gatom "
        "st_other ld_dep_same acc_f64 acc_f32 acc_int f64ops cvt_f2d regs s_bra s_stg callnames").split()


def show(T, title):
    print("\n### %s (%d)" % (title, len(T)))
    print(" ".join(COLS))
    for r in T:
        print(" ".join(str(round(r[c], 2)) if isinstance(r[c], float) else str(r[c]) for c in COLS),
              r["cls"], r["set"])


st = lambda r: I(r, "st_other") > 0                                   # noqa: E731
br = lambda r: I(r, "branches") > 0                                   # noqa: E731
calls = lambda r: I(r, "calls") > 0                                   # noqa: E731
f64acc = lambda r: I(r, "acc_f64") > 0                                # noqa: E731
cvt = lambda r: I(r, "cvt_f2d") > 0                                   # noqa: E731
big = lambda n: (lambda r: I(r, "size") + 8 * I(r, "calls") > n)      # noqa: E731
sbra = lambda r: I(r, "s_bra") > 1                                    # noqa: E731
chain = lambda r: I(r, "ld_dep_carried") > 0                          # noqa: E731
fdiv = lambda r: I(r, "fdiv") > 0                                     # noqa: E731
idiv64 = lambda r: I(r, "idiv64") > 0                                 # noqa: E731
SLOW = ("m_pow", "m_sqrt", "m_atan2", "m_log1p")
slow = lambda r: any(c in SLOW for c in r["callnames"].split("|"))   # noqa: E731


def any_of(*fs):
    return lambda r: any(f(r) for f in fs)


RULES = [
    ("store/atomic through another pointer (st_other)", st),
    ("unpredicated if (branches)", br),
    ("math call", calls),
    ("FP64 accumulator", f64acc),
    ("st_other or branches", any_of(st, br)),
    ("st_other or branches or FP64 accumulator", any_of(st, br, f64acc)),
    ("st_other or branches or f32->f64 conversion", any_of(st, br, cvt)),
    ("st_other or branches or math call", any_of(st, br, calls)),
    ("st_other or branches or size+8*calls > 40", any_of(st, br, big(40))),
    ("st_other or branches or FP64 acc or size+8*calls > 40", any_of(st, br, f64acc, big(40))),
    ("st_other or branches or FP64 acc or carried load chain", any_of(st, br, f64acc, chain)),
    ("st_other or branches or float divide", any_of(st, br, fdiv)),
    ("st_other or branches or float divide or pow/sqrt/atan2/log1p", any_of(st, br, fdiv, slow)),
    ("st_other or branches or float divide or FP64 accumulator", any_of(st, br, fdiv, f64acc)),
    ("st_other or branches or float divide or f32->f64 conversion", any_of(st, br, fdiv, cvt)),
    ("st_other or branches or float divide or 64-bit int divide", any_of(st, br, fdiv, idiv64)),
    ("(SASS) BRA inside the body", sbra),
    ("(SASS) BRA inside the body or st_other", any_of(sbra, st)),
    ("(SASS) BRA inside the body or st_other or FP64 accumulator", any_of(sbra, st, f64acc)),
]


BEST = any_of(st, br, fdiv, idiv64)


def rules():
    S = [r for r in W if int(r["factor"]) >= 2 and r["cls"] not in ("chain", "cap<2")]
    print("\n## rules for 'not hoisted' (trips in flight < 1.5) among %d loops with factor >= 2 (serial chains and cap<2 left out)"
          % len(S))
    print("(hits = loops the rule gets right; 'miss: hoisted' = flagged but hoisted, 'miss: not' = "
          "not flagged but not hoisted)\n")
    print("| rule | hits (all) | unroll2 set | new set | flagged but hoisted | not hoisted, missed |")
    print("|---|---|---|---|---|---|")
    for name, fn in RULES:
        ok = [fn(r) != r["hoist"] for r in S]
        u = [o for o, r in zip(ok, S) if r["set"] == "unroll2"]
        n = [o for o, r in zip(ok, S) if r["set"] == "new"]
        fp = sum(1 for r in S if fn(r) and r["hoist"])
        fn_ = sum(1 for r in S if not fn(r) and not r["hoist"])
        print("| %s | %d/%d | %d/%d | %d/%d | %d | %d |" % (name, sum(ok), len(ok), sum(u), len(u),
                                                          sum(n), len(n), fp, fn_))
    best = BEST
    show([r for r in S if best(r) and r["hoist"]], "best rule: flagged but hoisted")
    show([r for r in S if not best(r) and not r["hoist"]], "best rule: not hoisted, not flagged")
    # factor-1 loops: the rule should not matter; for the record
    F1 = [r for r in W if r["factor"] == "1"]
    print("\nfactor-1 loops: %d, trips in flight >= 1.5 in %d (software-pipelined)" % (
        len(F1), sum(r["te"] >= 1.5 for r in F1)))


def reasons(r):
    out = [n for n, fn in (("store", st), ("if", br), ("fdiv", fdiv), ("idiv64", idiv64)) if fn(r)]
    return "+".join(out) or "-"


def fewer_table():
    print("\n## factor >= 2, one trip (or less) in flight: the loops")
    print("| kernel | file:line | set | factor | g | d_reg | trips | flags | size | calls | "
          "FP64 acc | REG | SASS BRA | calls |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in sorted([r for r in W if int(r["factor"]) >= 2 and r["cls"] == "fewer-1"],
                    key=lambda r: (reasons(r), r["set"], r["kernel"])):
        print("| %s | %s:%s | %s | %s | %s | %s | %.2f | %s | %s | %s | %s | %s | %s | %s |" % (
            r["kernel"], r["src"], r["line"], r["set"], r["factor"], r["gld"], r["d_reg"], r["te"],
            reasons(r), r["size"], r["calls"], r["acc_f64"], r["regs"], int(r["s_bra"]) - 1,
            r["callnames"].replace("|", " ")))


def pressure():
    """Register words a fully hoisted schedule would hold: min(factor, cap) x (words the
    loads of a trip write) + carried words, on the loops the best rule does not flag."""
    S = [r for r in W if int(r["factor"]) >= 2 and r["cls"] not in ("chain", "cap<2")]
    clean = [r for r in S if not BEST(r)]
    for r in S:
        r["pw8"] = min(int(r["factor"]), r["cap"]) * I(r, "ldw") + I(r, "accw")
    print("\n## register-word estimate on the %d unflagged loops (factor >= 2)" % len(clean))
    print("| words > T | T | fewer | all | words <= T: fewer | all |")
    print("|---|---|---|---|---|---|")
    for T in (10, 14, 16, 19, 24):
        c = Counter((r["pw8"] > T, r["cls"] == "all") for r in clean)
        print("| | %d | %d | %d | %d | %d |" % (T, c[(True, False)], c[(True, True)], c[(False, False)],
                                                c[(False, True)]))
    act = lambda r: {"all": "all", "fewer-part": "part", "fewer-1": "1"}[r["cls"]]   # noqa: E731
    for T in (None, 19):
        ok = sum(("1" if BEST(r) else "part" if T is not None and r["pw8"] > T else "all") == act(r)
                 for r in S)
        print("3-way (1 if flagged, part if words > %s, else all): %d/%d" % (T, ok, len(S)))


def simt_now(r):
    """simt.loops.runtime_unroll as committed (unroll2/README.md): 1 where _runtime_stride or
    not countable, 4 where size + 8 calls <= 88, else 1."""
    if I(r, "rt_stride") or not I(r, "countable"):
        return 1
    return 4 if I(r, "size") + 8 * I(r, "calls") <= 88 else 1


def simt_rule(r):
    return 1 if BEST(r) else simt_now(r)


def versus_simt():
    """Trips of loads in flight, simt's against the SASS's, both capped at 8 loads (8 / g
    trips, g the IR's global loads a trip), on every walked loop."""
    import math
    print("\n## simt's trips in flight against the SASS's (both capped at 8 IR loads)")
    print("| model | loops | within x1.5 | simt more than x1.5 | simt less | mean abs log2 |")
    print("|---|---|---|---|---|---|")
    for name, fn in (("simt now (runtime_unroll)", simt_now), ("simt now, then 1 where the best rule flags", simt_rule)):
        for label, S in (("all walked", W), ("factor >= 2", [r for r in W if int(r["factor"]) >= 2])):
            lg = []
            for r in S:
                cap = 8 / max(1, I(r, "gld"))
                a = min(fn(r), cap)
                b = max(min(r["te"], cap), 1 / 8)
                lg.append(math.log2(a / b))
            print("| %s, %s | %d | %d | %d | %d | %.3f |" % (
                name, label, len(lg), sum(abs(x) <= math.log2(1.5) for x in lg),
                sum(x > math.log2(1.5) for x in lg), sum(x < -math.log2(1.5) for x in lg),
                sum(abs(x) for x in lg) / len(lg)))


if __name__ == "__main__":
    table()
    S = [r for r in W if int(r["factor"]) >= 2]
    show(sorted([r for r in S if r["cls"] != "all"], key=lambda r: (r["cls"], r["set"], int(r["factor"]))),
         "factor >= 2, fewer than all copies' loads in flight")
    rules()
    pressure()
    versus_simt()
    fewer_table()
