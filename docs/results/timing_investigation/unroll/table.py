"""unroll/: sweep_sass.txt (cuobjdump -sass of sweep.cu) as a table: for each kernel the
SASS instructions, the backward branches (loops nvcc kept; the trap at the end excluded)
and the local loads and stores.  python table.py"""
import gzip
import re
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "sweep_sass.txt.gz"
txt = (gzip.open(path, "rt") if path.endswith(".gz") else open(path)).read()
parts = re.split(r"\n\s*Function : (\S+)", txt)
rows = {}
for name, body in zip(parts[1::2], parts[2::2]):
    ins = re.findall(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", body)
    back = sum(1 for a, t in ins if (m := re.search(r"BRA\s.*?0x([0-9a-f]+)", t))
               and int(m.group(1), 16) < int(a, 16))
    local = sum(1 for a, t in ins if re.search(r"\b(LDL|STL)", t))
    rows[name] = (len(ins), back, local)
print("| kernel | SASS instructions | loops kept | LDL/STL |")
print("|---|---:|---:|---:|")
for name in sorted(rows, key=lambda s: (s.split("_")[0], int(s.split("_n")[1].split("_")[0]), s)):
    print(f"| `{name}` | {rows[name][0]} | {rows[name][1]} | {rows[name][2]} |")
