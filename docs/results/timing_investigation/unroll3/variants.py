"""Loads in flight in the main loop of each kernel of variants.cu (SASS from variants.sh).

python docs/results/timing_investigation/unroll3/variants.py
"""
import importlib.util, os, re

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("unroll3_scan", os.path.join(HERE, "scan.py"))
s3 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(s3)

sass, ctrl = s3.sass_functions(os.path.join(HERE, "variants_sass.txt.gz"))
regs = s3.res_regs(os.path.join(HERE, "variants_sass.txt.gz"))
print("| kernel | REG | innermost loops' LDGs | main loop LDGs | d_first | d_reg | d_sb |")
print("|---|---|---|---|---|---|---|")
for fn in sorted(sass):
    sl = [(r, c) for r, c in s3.u2.sass_loops(sass[fn]) if c["LDG"] > 0]
    (t, b), c = max(sl, key=lambda x: x[1]["LDG"])
    body = [x for x in sass[fn] if t <= x[0] <= b]
    d_first, d_reg = s3.walk_regs(body)
    print("| %s | %s | %s | %d | %d | %d | %d |" % (fn, regs.get(fn, "?"), ";".join(str(x["LDG"]) for _, x in sl),
                                         c["LDG"], d_first, d_reg, s3.walk_sb(body, ctrl[fn])))
