import json, simt.timing as T
from simt.occupancy import blocks_by_registers
d=json.load(open('/work/main/docs/results/timing_probes_h200.json'))
rows={r['id']:r for r in d['rows']}
prof=T.load_profile('h200')
print('clock',prof.clock_ghz,'issue_ipc',prof.issue_ipc,'sms',prof.sm_count)
def pr(pid, patch={}, label=''):
    L=rows[pid]['launches'][0]
    m=dict(L['metrics']); m.update(patch)
    p=T.predict(m,L['grid_blocks'],L['threads_per_block'],L['shared_bytes'],prof)
    c=p.components_us
    print(f"{label:40s} {p.ms:.4f} ms ratio {p.ms/L['measured_ms']:.2f} bound {p.bound} bps {p.occupancy_blocks_per_sm} waves {p.waves} issue {c['issue']:.1f} lat {c['latency']:.1f} const {c['constant']:.1f}")
    return p
e='probe/mhd-euler2d-muscl-hll-local'
pr(e,{},'euler committed')
pr(e,{'simt__registers_per_thread.max':53},'euler regs 53')
pr(e,{'simt__registers_per_thread.max':52},'euler regs 52')
for r in (86,64,56,53,40): print(r, blocks_by_registers(r,256))
c='probe/mhd-cooling-subcycle-const'
pr(c,{},'cool committed')
pr(c,{'simt__registers_per_thread.max':26},'cool regs 26')
print('--- cooling patches')
L=rows[c]['launches'][0]; m=L['metrics']
steps=5573120
X=m['simt__issue_extra_cycles.sum']; S=m['simt__issue_slots.sum']
pr(c,{'simt__issue_extra_cycles.sum': X-(90.2-29)*steps},'pow 90.2->29')
pr(c,{'simt__issue_extra_cycles.sum': X-(90.2-29)*steps-(17.5-9)*steps-(17.5-10)*steps},'pow->29, /0.05 ->9, fdiv->10')
pr(c,{'simt__issue_extra_cycles.sum': 0,'simt__issue_slots.sum': 631595193*prof.issue_ipc/4},'Nsight instr at 1/SMSP-cycle')
pr(c,{'simt__issue_extra_cycles.sum': 0,'simt__issue_slots.sum': 631595193*prof.issue_ipc/4, 'simt__const_ldc_passes.sum':0},'  + no constant')
pr(c,{'simt__issue_extra_cycles.sum': X-(90.2-29)*steps, 'simt__const_ldc_passes.sum':0},'pow fix, no constant')
print('--- euler: issue from Nsight')
L=rows[e]['launches'][0]
pr(e,{'simt__registers_per_thread.max':53,'simt__issue_extra_cycles.sum':0,'simt__issue_slots.sum':460062720*prof.issue_ipc/4},'regs 53 + Nsight instr')
pr(e,{'simt__registers_per_thread.max':60},'regs 60 (per-element)')
