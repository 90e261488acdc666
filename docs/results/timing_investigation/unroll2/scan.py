"""Run-time-trip loops with global loads in the probe kernels vs. nvcc's unroll factor
in their committed sm_90 SASS.  Static only: simt's IR and cuobjdump text.

python docs/results/timing_investigation/unroll2/scan.py [--dump]  -> loops.csv (+ dump.txt)
"""
import csv, glob, gzip, os, re, sys
from collections import Counter

import simt
from simt import loops as L
from simt.ir import Op
from simt.uniformity import body_size
from simt.machine import _runtime_stride

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../../../.."))
INS = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")


def sass_functions(path):
    out, cur = {}, None
    for line in gzip.open(path, "rt"):
        if "Function :" in line:
            cur = out.setdefault(line.split("Function :")[1].strip(), [])
            continue
        m = INS.search(line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), (m.group(2) or "").strip(), m.group(3), m.group(4)))
    return out


def sass_loops(code):
    """Innermost SASS loops: (top, back) of backward BRAs whose range holds no other."""
    back = []
    for a, pred, op, rest in code:
        if op.startswith("BRA"):
            m = re.search(r"0x([0-9a-f]+)", rest)
            if m and int(m.group(1), 16) <= a:
                back.append((int(m.group(1), 16), a))
    inner = [r for r in back if not any(o != r and r[0] <= o[0] and o[1] <= r[1] for o in back)]
    res = []
    for t, b in sorted(inner):
        ins = [x for x in code if t <= x[0] <= b]
        c = Counter()
        for a, pred, op, rest in ins:
            base = op.split(".")[0]
            c[base] += 1
            if base in ("LDG", "LDS", "LD"):
                w = re.search(r"\.(64|128)", op)
                c[base + "_words"] += (int(w.group(1)) // 32) if w else 1
        c["n"] = len(ins)
        res.append(((t, b), c))
    return res


CONTROL = (Op.LOOPINIT, Op.LOOPTEST, Op.BODYINIT, Op.JUMP)


def control_pcs(code, top, back):
    """pcs of a loop's own control: the compare, LOOPTEST/BODYINIT/JUMP, the counter step."""
    skip = {p for p in range(top, back + 1) if code[p].op in CONTROL and
            (code[p].op != Op.JUMP or p == back)}
    found = L.loop_test(code, top, back)
    if found:
        test, cmp = found
        skip.add(cmp.pc)
        for var in cmp.args:
            if getattr(var, "is_var", False):
                ws = [p for p in range(top, back + 1) if code[p].dst is var]
                if ws:
                    skip.add(ws[-1])
                    src = L.copied_from(code, code[ws[-1]])
                    if src is not None and src.pc is not None and top <= src.pc <= back:
                        skip.add(src.pc)
    # inner LOOPINIT and a loop's test header are ignored too
    return skip


def expanded(code, top, back, fulls):
    """The loop's body without control, a fully unrolled inner loop's body times its trips."""
    skip = control_pcs(code, top, back)
    out, p = [], top
    while p <= back:
        inner = next(((t, b) for (t, b) in fulls if t == p and (t, b) != (top, back)), None)
        if inner is not None:
            trips = L.constant_trips(code, *inner, limit=L.PRAGMA_FULL, geometric=True) or \
                len(fulls[inner][1])
            out += expanded(code, *inner, fulls) * trips
            p = inner[1] + 1
            continue
        if p not in skip and code[p].op not in CONTROL:
            out.append(code[p])
        p += 1
    return out


def measures(code, top, back, fulls):
    body = expanded(code, top, back, fulls)
    raw = [code[p] for p in range(top, back + 1) if p not in control_pcs(code, top, back)
           and code[p].op not in CONTROL]
    sp = lambda i: i.info.get("space")
    ifs = [i for i in body if i.op == Op.IF]
    return dict(
        ir_raw=len(raw), ir_n=len(body), size=body_size(body),
        gld=sum(1 for i in body if i.op == Op.LOAD and sp(i) == "global"),
        gst=sum(1 for i in body if i.op == Op.STORE and sp(i) == "global"),
        sld=sum(1 for i in body if i.op == Op.LOAD and sp(i) == "shared"),
        lcl=sum(1 for i in body if i.op in (Op.LOAD, Op.STORE) and sp(i) == "local"),
        cld=sum(1 for i in body if i.op == Op.LOAD and sp(i) == "const"),
        fma=sum(1 for i in body if i.op == Op.FMA),
        fop=sum(1 for i in body if i.op in (Op.BIN, Op.UN, Op.FMA) and i.dst is not None
                and getattr(i.dst, "dtype", None) is not None and i.dst.dtype.kind == "f"),
        calls=sum(1 for i in body if i.op == Op.CALL),
        atom=sum(1 for i in body if i.op == Op.ATOM),
        ifs=len(ifs), if_pred=sum(1 for i in ifs if i.info.get("predicated")),
        has_full_inner=int(any(t > top and b < back for (t, b) in fulls)),
        branches=len(ifs) - sum(1 for i in ifs if i.info.get("predicated")),
        exits=sum(1 for p in range(top, back) if code[p].op in (Op.EXIT, Op.KILL) or
                  (code[p].op == Op.JUMP and code[p].target is not None and
                   not top <= code[p].target <= back + 1)),
        countable=int(countable(code, top, back)),
    )


def countable(code, top, back):
    """Whether the loop test compares a counter that the body steps by an add (LLVM can
    compute the trip count), as opposed to a while loop on data."""
    found = L.loop_test(code, top, back)
    if found is None:
        return False
    test, cmp = found
    for var in cmp.args:
        if getattr(var, "is_var", False):
            ws = [p for p in range(top, back + 1) if code[p].dst is var]
            if len(ws) == 1 and L.add_step(code, code[ws[0]], var, back) is not None:
                return True
    return False


POW = (1, 2, 4, 8, 16, 32)


def _fits(g, c):
    return any(c["LDG"] == g * k or c["LDG_words"] == g * k for k in POW)


def _fac(g, group):
    best = 0
    for c in group:
        for k in POW:
            if c["LDG"] == g * k or c["LDG_words"] == g * k:
                best = max(best, k)
                break
    return best


def match(cands, sl, others_load=False):
    """Unroll factor per candidate: SASS innermost loops with LDGs are split, in address
    order, into consecutive groups of 1..3 (main loop and remainders), one per IR loop in
    pc order, each loop's LDGs g times a power of two.  A factor all the splits agree on,
    else '?'."""
    sols = []

    def rec(i, j, acc):
        if len(sols) > 200:
            return
        if i == len(cands):
            if j == len(sl):
                sols.append(acc)
            return
        g = cands[i]["gld"]
        for n in (1, 2, 3):
            grp = sl[j:j + n]
            if len(grp) < n or not all(_fits(g, c) for c in grp):
                break
            rec(i + 1, j + n, acc + [_fac(g, grp)])
    rec(0, 0, [])
    out = []
    for i in range(len(cands)):
        vals = {s[i] for s in sols}
        out.append(str(vals.pop()) if len(vals) == 1 else "?")
    return out


def outer_loads(code, inner, fulls):
    """Whether a kept loop around an innermost one has global loads of its own."""
    kept = [r for r in L.loops(code) if r not in fulls and r not in inner]
    for t, b in kept:
        own = [p for p in range(t, b + 1) if not any(i[0] <= p <= i[1] for i in inner)]
        if any(code[p].op == Op.LOAD and code[p].info.get("space") == "global" for p in own):
            return True
    return False


def kept_innermost(code):
    fulls = L.full_unrolls(code)
    kept = [r for r in L.loops(code) if r not in fulls]
    inner = [r for r in kept if not any(o != r and r[0] <= o[0] and o[1] <= r[1] for o in kept)]
    return sorted(inner), fulls


def main():
    dump = "--dump" in sys.argv
    rows, lines = [], []
    from kernels_cuda import timing_probes as tp
    ids = {}
    for e in tp.entries():
        ids.setdefault((os.path.basename(e.source), e.kernel), e.id)
    for sp in sorted(glob.glob(os.path.join(ROOT, "docs/results/timing_investigation/*/probes*_sass.txt.gz")),
                     key=lambda s: int(re.search(r"probes(\d+)_", s).group(1))):
        src = "probes%s.cu" % re.search(r"probes(\d+)_", sp).group(1)
        if not os.path.exists(os.path.join(ROOT, "kernels_cuda", src)):
            continue
        try:
            mod = simt.Module.from_file(os.path.join(ROOT, "kernels_cuda", src))
        except Exception as ex:
            lines.append(f"## {src}: {ex}")
            continue
        sass = sass_functions(sp)
        for fn, scode in sass.items():
            try:
                code = mod.get_function(fn).ir.code
            except Exception:
                continue
            inner, fulls = kept_innermost(code)
            cands = []
            for top, back in inner:
                if L.constant_trips(code, top, back, limit=10**6) is not None:
                    continue      # a constant trip count (kept only for its size)
                m = measures(code, top, back, fulls)
                m.update(top=top, back=back, line=code[top].coord.line,
                         rt_stride=int(_runtime_stride(code, top, back)))
                cands.append(m)
            sl = sass_loops(scode)
            if dump:
                lines.append(f"## {src} {fn} id={ids.get((src, fn))}")
                for m in cands:
                    lines.append("  IR  L%-4d gld=%d sld=%d n=%d size=%d ifs=%d/%d calls=%d rt=%d" % (
                        m["line"], m["gld"], m["sld"], m["ir_n"], m["size"], m["ifs"], m["if_pred"],
                        m["calls"], m["rt_stride"]))
                for (t, b), c in sl:
                    lines.append("  SASS %05x-%05x n=%d LDG=%d(%dw) LDS=%d(%dw) FFMA=%d BRA=%d" % (
                        t, b, c["n"], c["LDG"], c["LDG_words"], c["LDS"], c["LDS_words"], c["FFMA"], c["BRA"]))
            ldgs = [c for _, c in sl if c["LDG"] > 0]
            glc = [m for m in cands if m["gld"] > 0]
            facs = match(glc, ldgs, others_load=any(
                m["gld"] == 0 for m in cands) or outer_loads(code, inner, fulls))
            for m, f in zip(glc, facs):
                rows.append(dict(id=ids.get((src, fn), ""), src=src, kernel=fn, **m,
                                 sass_ldg=";".join(str(c["LDG"]) for c in ldgs), factor=f))
    with open(os.path.join(HERE, "loops.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    if dump:
        open(os.path.join(HERE, "dump.txt"), "w").write("\n".join(lines) + "\n")
    print(len(rows), "candidate loops")


if __name__ == "__main__":
    main()
