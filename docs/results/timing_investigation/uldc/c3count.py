"""Count each kernel's constant-bank-3 reads in the committed sm_90 SASS, by instruction
(ULDC, LDC, or an operand of another instruction) and address (immediate or register).
From docs/results/timing_investigation: python3 uldc/c3count.py KERNEL ..."""
import gzip, glob, re, sys, collections
res = {}
files = glob.glob('*/probes*_sass.txt.gz') + []
for f in files:
    cur = None
    for line in gzip.open(f, 'rt'):
        if 'Function :' in line:
            cur = line.split('Function :')[1].strip(); res.setdefault(cur, collections.Counter()); continue
        if cur and 'c[0x3]' in line:
            m = re.search(r'\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)', line)
            op = m.group(2) if m else '?'
            kind = 'ULDC' if op.startswith('ULDC') else 'LDC' if op.startswith('LDC') else 'operand'
            idx = 'imm' if re.search(r'c\[0x3\]\[0x[0-9a-f]+\]', line) else 'reg'
            res[cur][kind + '_' + idx] += 1
for k in sys.argv[1:]:
    print(k, dict(res.get(k, {})))
