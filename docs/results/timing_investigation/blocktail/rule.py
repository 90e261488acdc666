"""The exponential-tail rule on the screen's block lives (README.md): for k = 4..32 the rows
it moves and brings within 1.5x or takes out, per GPU; with an argument, the rows at that k.

    python docs/results/timing_investigation/blocktail/rule.py 8
"""
import gzip, json, math, sys
from pathlib import Path
import numpy as np
from simt import timing as T
rows=[json.loads(l) for l in gzip.open(Path(__file__).parent / 'tail_h200.jsonl.gz', 'rt')]
meas={}
for g in ('h200','h100'):
    tab=json.load(open(f'docs/results/timing_probes_{g}.json'))
    meas[g]={r['id']:r for r in tab['rows']}
profs={g:T.load_profile(g) for g in ('h200','h100')}
def est(blk, N, k, mode):
    m=len(blk)
    if m>=N or m<=k: return blk[0]
    u=blk[k]; beta=float(np.mean(blk[:k]))-u
    if beta<=0: return blk[0]
    if mode=='exp':
        e=u+beta*(math.log(N*k/m)+0.5772)
    return max(blk[0], e)
def run(k, mode, show=False):
    res={}
    for g in ('h200','h100'):
        ins=outs=0; moved=[]
        for d in rows:
            if 'error' in d or d['id'] not in meas[g]: continue
            r=meas[g][d['id']]
            old=new=0
            for L in d['launches']:
                m=dict(L['metrics'])
                p0=T.predict(m,L['grid_blocks'],L['threads_per_block'],L['shared_bytes'],profs[g]).ms
                if L['blk'] and (L['sampled_blocks'] or L['grid_blocks'])<L['grid_blocks']:
                    m['simt__block_cycles.max']=est(L['blk'],L['grid_blocks'],k,mode)
                p1=T.predict(m,L['grid_blocks'],L['threads_per_block'],L['shared_bytes'],profs[g]).ms
                old+=p0; new+=p1
            mm=r['measured_ms']
            a,b=old/mm,new/mm
            okA=1/1.5<=a<=1.5; okB=1/1.5<=b<=1.5
            if abs(b/a-1)>0.005: moved.append((d['id'],round(a,2),round(b,2),round(r['ratio'],2)))
            ins+= (okB and not okA); outs+=(okA and not okB)
        res[g]=(len(moved),ins,outs)
        if show:
            print(g, 'moved',len(moved),'in',ins,'out',outs)
            for x in sorted(moved,key=lambda x:x[2]/x[1]): print('  ',x)
    return res
for k in (4,8,16,32):
    print(k, run(k,'exp'))
run(int(sys.argv[1]) if len(sys.argv)>1 else 8,'exp',show=True)
