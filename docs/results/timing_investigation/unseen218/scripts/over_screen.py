"""H200 probe rows whose simt register estimate is above nvcc's and gives fewer blocks an SM:
re-predicted with nvcc's count (committed probes*_res.txt), from the committed counters."""
import json, re, glob, sys, math
sys.path.insert(0, '/work/main')
from simt import timing as T
from simt.occupancy import blocks_by_registers
from kernels_cuda import timing_probes as tp
prof = T.load_profile('h200')
regs = {}
for f in glob.glob('/work/main/docs/results/timing_investigation/*/probes*_res.txt'):
    src = re.search(r'(probes\d+)_res', f).group(1) + '.cu'
    fn = None
    for line in open(f):
        m = re.match(r'\s*Function (\w+):', line)
        if m: fn = m.group(1)
        m = re.search(r'REG:(\d+)', line)
        if m and fn: regs[(src, fn)] = int(m.group(1)); fn = None
d = json.load(open('/work/main/docs/results/timing_probes_h200.json'))
band = lambda r: 1/1.5 <= r <= 1.5
out = []
for row in d['rows']:
    if 'error' in row or not row.get('measured_ms'): continue
    try: e = tp.get(row['id'])
    except Exception: continue
    src = getattr(e, 'source', None)
    old = new = 0.0; hit = False; info = []
    for L in row['launches']:
        m = dict(L['metrics'])
        r = regs.get((src, L['kernel']))
        s = m.get('simt__registers_per_thread.max', 0)
        p0 = T.predict(m, L['grid_blocks'], L['threads_per_block'], L['shared_bytes'], prof)
        if r is not None and s > r:
            m['simt__registers_per_thread.max'] = r
        p1 = T.predict(m, L['grid_blocks'], L['threads_per_block'], L['shared_bytes'], prof)
        if p1.occupancy_blocks_per_sm != p0.occupancy_blocks_per_sm:
            hit = True; info.append(f"{L['kernel']} simt {s} nvcc {r} bps {p0.occupancy_blocks_per_sm}->{p1.occupancy_blocks_per_sm}")
        old += p0.ms; new += p1.ms
    if hit:
        out.append((row['id'], old / row['measured_ms'], new / row['measured_ms'], '; '.join(info)))
print('rows where simt estimate > nvcc changes occupancy:', len(out))
print('in band before', sum(band(a) for _, a, _, _ in out), 'after', sum(band(b) for _, _, b, _ in out),
      'closer', sum(abs(math.log(b)) < abs(math.log(a)) for _, a, b, _ in out))
for x in sorted(out, key=lambda x: x[1]): print(f"{x[0]:50s} {x[1]:.2f} -> {x[2]:.2f}  {x[3]}")
