"""What the committed probe tables would give if the DRAM component were added to the
atomic one (contention or global_atomics, where it is at least 0.3 of the launch)
instead of joining the p-norm.  From the repository root:
    python docs/results/timing_investigation/atomstream/sumscan.py hot   # hot-address atomics only
    python docs/results/timing_investigation/atomstream/sumscan.py all   # every atomic bound
Prints, per GPU: rows, rows within 1.5x now, with the sum, and rows that move > 5%."""
import json,sys
def pn(v,p=4): return sum(x**p for x in v)**(1/p)
def alt(l, mode):
    c=dict(l['components_us']); sq=c.pop('slice_queue',0)
    lat=max(c.pop('latency'),c['dram']); d=c.pop('dram')
    base=max(pn(list(c.values())+[lat]), sq)
    m=l['metrics']
    hot=m.get('simt__global_atomic_hot_address_lanes.max',0)
    if mode=='hot':
        ok = c['global_atomics']>=c['contention']*0.9 and c['global_atomics']>0 and c['global_atomics']>=0.3*base
    else:
        ok = max(c['global_atomics'],c['contention'])>=0.3*base
    if not ok: return base,base
    k='global_atomics' if c['global_atomics']>=c['contention'] else 'contention'
    c2=dict(c); c2[k]=c[k]+d
    new=max(pn(list(c2.values())+[lat]), sq+d if sq>=c[k] else sq)
    return base,new
mode=sys.argv[1]
for g in ['h200','h100']:
  d=json.load(open(f'docs/results/timing_probes_{g}.json'))
  o=n=tot=0; ch=[]
  for r in d['rows']:
    if r.get('measured_ms') is None: continue
    b=nn=0
    for l in r['launches']:
        x,y=alt(l,mode); b+=x; nn+=y
    new=r['ratio']*nn/b if b else r['ratio']
    tot+=1; o+=0.667<=r['ratio']<=1.5; n+=0.667<=new<=1.5
    if abs(new/r['ratio']-1)>0.05: ch.append((r['id'],r['ratio'],new))
  print(g,tot,o,n,len(ch))
  if g=='h200':
    for x in sorted(ch,key=lambda x:x[1]): print('  %-40s %.2f %.2f'%x)
