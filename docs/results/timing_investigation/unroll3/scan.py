"""How many trips' global loads nvcc's sm_90 SASS keeps in flight in the run-time-trip loops
of unroll2/ (static only: simt's IR and the committed cuobjdump text).

python docs/results/timing_investigation/unroll3/scan.py [--dump]  -> loops.csv (+ dump.txt)

For each IR loop (unroll2's candidates: innermost kept loops with a run-time trip count and
a global load), the SASS loops are matched as in unroll2/scan.py (groups of 1-3 innermost
SASS loops, g * 2^k LDGs), and the group's loop with the most LDGs (the main, unrolled copy)
is walked in address order:
- d_first: LDGs issued from the top (none pending) before the first instruction that
  reads or overwrites a register written by a still-pending LDG of the body;
- d_reg: the most LDGs issued and not yet consumed (a read or overwrite of one of their
  destination registers) at any point, the body walked twice and measured on the second
  pass (so loads issued at the bottom for the next trip count);
- d_sb: the same from the control words' scoreboards: an LDG sets write barrier b
  (bits 46-48 of the second word), an instruction whose wait mask (bits 52-57) has b
  consumes all pending LDGs on b, DEPBAR.LE SBb, n leaves the n newest.
Trips in flight: d / (LDGs a trip in SASS) with LDGs a trip = the main loop's LDGs / factor
(trips_*), and d / g with g the IR's global loads a trip (trips_*_ir).
"""
import csv, glob, gzip, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../../../.."))
sys.path.insert(0, ROOT)
import importlib.util  # noqa: E402
_spec = importlib.util.spec_from_file_location("unroll2_scan", os.path.join(HERE, "..", "unroll2", "scan.py"))
u2 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(u2)

import simt  # noqa: E402
from simt import loops as L  # noqa: E402
from simt.ir import Op, Reg  # noqa: E402
from simt.machine import _runtime_stride  # noqa: E402
from simt.guarded import _scope_end  # noqa: E402

INS = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")
HEX = re.compile(r"/\*\s*(0x[0-9a-f]{16})\s*\*/")


def sass_functions(path):
    """name -> list of (addr, pred, op, operands), and name -> {addr: control word}."""
    out, ctrl, cur, last = {}, {}, None, None
    for line in gzip.open(path, "rt"):
        if "Function :" in line:
            name = line.split("Function :")[1].strip()
            cur = out.setdefault(name, [])
            cc = ctrl.setdefault(name, {})
            last = None
            continue
        m = INS.search(line)
        if m and cur is not None:
            a = int(m.group(1), 16)
            cur.append((a, (m.group(2) or "").strip(), m.group(3), m.group(4)))
            last = a
            continue
        h = HEX.search(line)
        if h and cur is not None and last is not None and "/*" not in line.split(h.group(0))[0]:
            cc[last] = int(h.group(1), 16)      # the second 64-bit word: control bits
            last = None
    return out, ctrl


def res_regs(sass_path):
    """Function -> REG from the probesMM_res.txt beside the SASS (ptxas -v)."""
    p = sass_path.replace("_sass.txt.gz", "_res.txt")
    out, cur = {}, None
    if not os.path.exists(p):
        return out
    for line in open(p):
        m = re.match(r"\s*Function (\S+):", line)
        if m:
            cur = m.group(1)
            continue
        m = re.search(r"REG:(\d+)", line)
        if m and cur:
            out[cur] = int(m.group(1))
    return out


# ---------------------------------------------------------------- SASS register walk
RNUM = re.compile(r"(?<![A-Za-z0-9_])R(\d+)(\.64)?")
D_OPS = ("DADD", "DMUL", "DFMA", "DSETP", "DMNMX", "DSET")
CVT = ("F2F", "F2I", "I2F", "I2I", "F2IP", "I2FP")


def _wide(op):
    """Whether the instruction's register operands are 64-bit pairs (sources, dest)."""
    base, parts = op.split(".")[0], op.split(".")[1:]
    if base in D_OPS:
        return True, True
    if base in CVT:
        types = [p for p in parts if re.match(r"[FSU](8|16|32|64)$", p)]
        if len(types) >= 2:
            return types[-1].endswith("64"), types[0].endswith("64")
        if len(types) == 1:
            return types[0].endswith("64"), False
    if base == "IMAD" and "WIDE" in parts:
        return False, True
    return False, False


def operands(op, rest):
    """(registers written, registers read) of one SASS instruction (approximate)."""
    base = op.split(".")[0]
    ops = [o.strip() for o in rest.split(",")] if rest.strip() else []
    wsrc, wdst = _wide(op)
    dst, src = set(), set()
    for i, o in enumerate(ops):
        regs = RNUM.findall(o)
        if i == 0 and re.match(r"^R\d+", o) and base not in ("STG", "STS", "STL", "ST"):
            n = int(regs[0][0])
            w = 1
            if base in ("LDG", "LD", "LDS", "LDL", "LDC", "ATOMG", "ATOM", "ATOMS"):
                w = 4 if ".128" in op else 2 if ".64" in op else 1
            elif wdst:
                w = 2
            dst |= set(range(n, n + w))
            continue
        for n, w64 in regs:
            n = int(n)
            src.add(n)
            if w64 or wsrc or (base in ("STG", "STS", "STL", "ST") and i > 0 and
                               (".64" in op or ".128" in op)):
                k = 4 if ".128" in op and base in ("STG", "STS", "STL", "ST") and i > 0 else 2
                src |= set(range(n, n + k))
    return dst, src


def walk_regs(body):
    """(d_first, d_reg) on one SASS loop body: see the module doc."""
    parsed = [(op.split(".")[0] == "LDG", *operands(op, rest)) for a, pred, op, rest in body]
    d_first = None
    pending = []                 # (id, dest regs)
    best = 0
    for pas in (0, 1):
        issued = 0
        for j, (is_ldg, dst, src) in enumerate(parsed):
            hit = [p for p in pending if p[1] & (src | dst)]
            if hit:
                if pas == 0 and d_first is None:
                    d_first = issued
                pending = [p for p in pending if p not in hit]
            if is_ldg:
                pending.append(((pas, j), dst))
                issued += 1
            if pas == 1:
                best = max(best, len(pending))
    if d_first is None:
        d_first = sum(1 for x in parsed if x[0])
    return d_first, best


def walk_sb(body, ctrl):
    """d_sb: the most LDGs pending on their scoreboards (two passes, the second measured)."""
    pending = []                 # (barrier)
    best = 0
    for pas in (0, 1):
        for a, pred, op, rest in body:
            c = ctrl.get(a)
            if c is None:
                continue
            wait = (c >> 52) & 0x3F
            if wait:
                pending = [b for b in pending if not (wait >> b) & 1]
            if op.startswith("DEPBAR"):
                m = re.search(r"SB(\d)\s*,\s*(\d+)", rest)
                if m:
                    b, n = int(m.group(1)), int(m.group(2))
                    on = [i for i, x in enumerate(pending) if x == b]
                    drop = set(on[:max(0, len(on) - n)])
                    pending = [x for i, x in enumerate(pending) if i not in drop]
            if op.split(".")[0] == "LDG":
                wb = (c >> 46) & 7
                if wb != 7:
                    pending.append(wb)
            if pas == 1:
                best = max(best, len(pending))
    return best


def sass_features(body):
    c = {}
    c["s_ldg_const"] = sum(1 for a, pred, op, rest in body if op.startswith("LDG") and "CONSTANT" in op)
    c["s_stg"] = sum(1 for a, pred, op, rest in body if op.split(".")[0] in ("STG", "RED", "REDG", "ATOMG", "ST"))
    for a, pred, op, rest in body:
        base = op.split(".")[0]
        if base in D_OPS:
            c["s_dop"] = c.get("s_dop", 0) + 1
        if base == "F2F" and ".F64" in op:
            c["s_f2f64"] = c.get("s_f2f64", 0) + 1
        if base in ("BRA",):
            c["s_bra"] = c.get("s_bra", 0) + 1
        if base == "MUFU":
            c["s_mufu"] = c.get("s_mufu", 0) + 1
        if base in ("CALL", "RET"):
            c["s_call"] = c.get("s_call", 0) + 1
    c["s_n"] = len(body)
    return {k: c.get(k, 0) for k in ("s_n", "s_dop", "s_f2f64", "s_bra", "s_mufu", "s_call",
                                      "s_ldg_const", "s_stg")}


def restrict_params(text, fn):
    """(pointer parameters, how many of them are __restrict__) of a kernel in the source."""
    m = re.search(r"__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s*)?%s\s*\(([^)]*)\)" % re.escape(fn), text)
    if not m:
        return "", ""
    ps = [p for p in m.group(1).split(",") if "*" in p]
    return len(ps), sum(1 for p in ps if "restrict" in p)


# ---------------------------------------------------------------- IR features
def _regs(x):
    if isinstance(x, Reg):
        return [x]
    if isinstance(x, (list, tuple)):
        return [r for r in x if isinstance(r, Reg)]
    return []


def _base(code, x, pc, ptrs, depth=0):
    """The pointer parameters (or __constant__ symbols) an address is computed from; '?'
    where a pointer comes from memory or the chain is too long."""
    from simt.ir import Uniform
    if isinstance(x, Uniform):
        return {x.name} if x.name in ptrs or x.name.startswith("csym.") else set()
    if not isinstance(x, Reg):
        return set()
    if depth > 40:
        return {"?"}
    d = L.def_before(code, x, pc)
    if d is None:
        return set()            # a builtin or a value from outside the kernel's code
    if d.op in (Op.BIN, Op.MOV, Op.CAST, Op.SELECT):
        out = set()
        for a in d.args:
            out |= _base(code, a, d.pc, ptrs, depth + 1)
        return out
    if d.op == Op.LOAD and d.info.get("space") == "global" and x.dtype.itemsize == 8 \
            and x.dtype.kind in "iu":
        return {"?"}            # a pointer (or a 64-bit index) read from memory
    return set()


def ir_features(code, top, back, ptrs=()):
    """Loop-carried variables and load dependences of one IR loop body (control left out),
    walked twice: a load's address from a load of the same trip (ld_dep_same) or of an
    earlier trip through a variable (ld_dep_carried); carried variables by type, and
    whether their update takes loaded data (acc_*_ld)."""
    skip = u2.control_pcs(code, top, back)
    body = [code[p] for p in range(top, back + 1) if p not in skip and code[p].op not in u2.CONTROL]
    written = {id(r) for ins in body for r in _regs(ins.dst)}
    seen_w, carried = set(), {}
    for ins in body:
        for r in ins.args or ():
            if isinstance(r, Reg) and r.is_var and id(r) in written and id(r) not in seen_w:
                carried[id(r)] = r
        for r in _regs(ins.dst):
            seen_w.add(id(r))
    taint = {}
    dep_same = dep_carried = g0 = 0
    for pas in (0, 1):
        for ins in body:
            t = set()
            for a in ins.args or ():
                for r in _regs(a):
                    t |= taint.get(id(r), set())
            if ins.op == Op.LOAD and ins.info.get("space") == "global":
                if pas == 1:
                    if any(q == 1 for (_, q) in t):
                        dep_same += 1
                    if any(q == 0 for (_, q) in t):
                        dep_carried += 1
                    if not any(q == 1 for (_, q) in t):
                        g0 += 1
                t = t | {(id(ins), pas)}
            for r in _regs(ins.dst):
                taint[id(r)] = t
    f = dict(ld_dep_same=int(dep_same > 0), ld_dep_carried=int(dep_carried > 0), g0=g0,
             gld_raw=sum(1 for ins in body if ins.op == Op.LOAD and ins.info.get("space") == "global"))
    # global loads under an unpredicated if of the body (ptxas cannot issue them early
    # without a branch or a predicate)
    guarded = set()
    for p in range(top, back + 1):
        if code[p].op == Op.IF and not code[p].info.get("predicated"):
            guarded |= set(range(p + 1, min(_scope_end(code, p), back + 1)))
    f["ld_cond"] = sum(1 for p in guarded if code[p].op == Op.LOAD and
                       code[p].info.get("space") == "global")
    kinds = {"f64": lambda r: r.dtype.kind == "f" and r.dtype.itemsize == 8,
             "f32": lambda r: r.dtype.kind == "f" and r.dtype.itemsize <= 4,
             "int": lambda r: r.dtype.kind in "iub"}
    for k, fn in kinds.items():
        rs = [r for r in carried.values() if fn(r)]
        f["acc_" + k] = len(rs)
        f["acc_%s_ld" % k] = sum(1 for r in rs if any(q == 1 for (_, q) in taint.get(id(r), ())))
    isf64 = lambda r: isinstance(r, Reg) and r.dtype.kind == "f" and r.dtype.itemsize == 8
    f["f64ops"] = sum(1 for ins in body if ins.op in (Op.BIN, Op.UN, Op.FMA, Op.CALL)
                      and any(isf64(r) for r in _regs(ins.dst)))
    f["cvt_f2d"] = sum(1 for ins in body if ins.op == Op.CAST and any(isf64(r) for r in _regs(ins.dst))
                       and any(isinstance(a, Reg) and a.dtype.kind == "f" and a.dtype.itemsize == 4
                               for a in ins.args))
    # stores and global atomics whose pointer may be another one than a load's (ptxas cannot
    # move a later trip's load above them)
    lds = [ins for ins in body if ins.op == Op.LOAD and ins.info.get("space") == "global"]
    lb = [_base(code, ins.args[0], ins.pc, ptrs) for ins in lds]
    # an atomic has no space in the IR: global where its address comes from a pointer
    sts = [(ins, _base(code, ins.args[0], ins.pc, ptrs)) for ins in body
           if (ins.op == Op.STORE and ins.info.get("space") == "global") or ins.op == Op.ATOM]
    sts = [(ins, b) for ins, b in sts if ins.op == Op.STORE or b]
    sb = [b for _, b in sts]
    f["gatom"] = sum(1 for ins, _ in sts if ins.op == Op.ATOM)
    f["st_other"] = int(any(s_ != l_ or "?" in s_ for s_ in sb for l_ in lb))
    f["ld_bases"] = "|".join(sorted({b for x in lb for b in x}))
    f["st_bases"] = "|".join(sorted({b for x in sb for b in x}))
    # 32-bit words a trip's global loads write, and the words of the carried variables
    f["ldw"] = sum(sum(r.dtype.itemsize for r in _regs(ins.dst)) for ins in lds) // 4
    f["accw"] = sum(max(1, r.dtype.itemsize // 4) for r in carried.values())
    f["callnames"] = "|".join(sorted({str(ins.sub) for ins in body if ins.op == Op.CALL}))
    f["fdiv"] = sum(1 for ins in body if ins.op == Op.BIN and ins.sub in ("div", "mod", "rem") and
                    any(isinstance(r, Reg) and r.dtype.kind == "f" for r in _regs(ins.dst)))
    f["idiv"] = sum(1 for ins in body if ins.op == Op.BIN and ins.sub in ("div", "mod", "rem") and
                    any(isinstance(r, Reg) and r.dtype.kind in "iu" for r in _regs(ins.dst))
                    and not (len(ins.args) > 1 and type(ins.args[1]).__name__ == "Const"))
    f["idiv64"] = sum(1 for ins in body if ins.op == Op.BIN and ins.sub in ("div", "mod", "rem") and
                      any(isinstance(r, Reg) and r.dtype.kind in "iu" and r.dtype.itemsize == 8
                          for r in _regs(ins.dst))
                      and not (len(ins.args) > 1 and type(ins.args[1]).__name__ == "Const"))
    f["ldsz"] = max([sum(r.dtype.itemsize for r in _regs(ins.dst)) for ins in body
                     if ins.op == Op.LOAD and ins.info.get("space") == "global"] or [0])
    return f


# ---------------------------------------------------------------- matching (unroll2's, with groups)
def match_groups(cands, sl):
    """unroll2's match(), also returning per candidate the indices (into sl) of its group's
    loop with the most LDGs in each valid split (one index when the splits agree)."""
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
            if len(grp) < n or not all(u2._fits(g, c) for c in grp):
                break
            main = max(range(j, j + n), key=lambda q: (sl[q]["LDG"], -q))
            rec(i + 1, j + n, acc + [(u2._fac(g, grp), main)])
    rec(0, 0, [])
    out = []
    for i in range(len(cands)):
        facs = {s[i][0] for s in sols}
        mains = {s[i][1] for s in sols}
        out.append((str(facs.pop()) if len(facs) == 1 else "?", sorted(mains)))
    return out


def main():
    dump = "--dump" in sys.argv
    u2rows = {}
    for r in csv.DictReader(open(os.path.join(HERE, "..", "unroll2", "loops.csv"))):
        u2rows[(r["src"], r["kernel"], r["line"], r["top"])] = r["factor"]
    from kernels_cuda import timing_probes as tp
    ids = {}
    for e in tp.entries():
        ids.setdefault((os.path.basename(e.source), e.kernel), e.id)
    rows, lines = [], []
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
        sass, ctrl = sass_functions(sp)
        text = open(os.path.join(ROOT, "kernels_cuda", src)).read()
        regs = res_regs(sp)
        for fn, scode in sass.items():
            try:
                code = mod.get_function(fn).ir.code
            except Exception:
                continue
            inner, fulls = u2.kept_innermost(code)
            cands = []
            for top, back in inner:
                if L.constant_trips(code, top, back, limit=10**6) is not None:
                    continue
                m = u2.measures(code, top, back, fulls)
                m.update(top=top, back=back, line=code[top].coord.line,
                         rt_stride=int(_runtime_stride(code, top, back)))
                cands.append(m)
            sl_all = u2.sass_loops(scode)
            sl = [(r, c) for r, c in sl_all if c["LDG"] > 0]
            glc = [m for m in cands if m["gld"] > 0]
            got = match_groups(glc, [c for _, c in sl])
            for m, (f, mi) in zip(glc, got):
                key = (src, fn, str(m["line"]), str(m["top"]))
                row = dict(id=ids.get((src, fn), ""), src=src, kernel=fn, **m,
                           sass_ldg=";".join(str(c["LDG"]) for _, c in sl), factor=f,
                           u2_factor=u2rows.get(key, ""), regs=regs.get(fn, ""))
                params = mod.get_function(fn).ir.params
                ptrs = {p.name for p in params if type(p.ctype).__name__ == "Pointer"}
                row.update(ir_features(code, m["top"], m["back"], ptrs))
                row["ptrs"], row["restrict"] = restrict_params(text, fn)
                walks = {}
                for q in (mi if f != "?" else []):
                    (t, b), c = sl[q]
                    body = [x for x in scode if t <= x[0] <= b]
                    d_first, d_reg = walk_regs(body)
                    d_sb = walk_sb(body, ctrl[fn])
                    per = c["LDG"] / int(f)
                    walks[q] = (body, dict(
                        main="%05x-%05x" % (t, b), main_ldg=c["LDG"], d_first=d_first,
                        d_reg=d_reg, d_sb=d_sb,
                        trips_first=round(d_first / per, 2), trips_reg=round(d_reg / per, 2),
                        trips_sb=round(d_sb / per, 2), trips_reg_ir=round(d_reg / m["gld"], 2),
                        **sass_features(body)))
                # several splits with different main loops: kept when they give the same trips
                if walks and len({(w["trips_reg"], w["trips_sb"]) for _, w in walks.values()}) == 1:
                    body, w = walks[mi[0]]
                    row.update(w, main_ambig=int(len(mi) > 1))
                    if dump:
                        lines.append(f"## {src}:{m['line']} {fn} factor={f} main={w['main']} "
                                     f"g={m['gld']} d_first={w['d_first']} d_reg={w['d_reg']} "
                                     f"d_sb={w['d_sb']} ambig={len(mi) > 1}")
                        for a, pred, op, rest in body:
                            cw = ctrl[fn].get(a, 0)
                            if op.split(".")[0] in ("LDG", "BRA", "STG", "RED", "ATOMG", "CALL") or \
                                    (cw >> 52) & 0x3F:
                                lines.append("   %05x wb=%d wait=%s %s %s %s" % (
                                    a, (cw >> 46) & 7, format((cw >> 52) & 0x3F, "06b"), pred, op,
                                    rest[:60]))
                rows.append(row)
    fields = []
    for r in rows:
        for k in r:
            if k not in fields:
                fields.append(k)
    with open(os.path.join(HERE, "loops.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    if dump:
        open(os.path.join(HERE, "dump.txt"), "w").write("\n".join(lines) + "\n")
    print(len(rows), "candidate loops,", sum(1 for r in rows if r.get("d_reg") != None), "walked")


if __name__ == "__main__":
    main()
