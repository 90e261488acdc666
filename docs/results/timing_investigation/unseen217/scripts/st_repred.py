import sys, pickle, dataclasses
sys.path.insert(0, '/work/main')
from simt import timing as T
variants, log = pickle.load(open('/tmp/u217_scratch/st_var.pkl','rb'))
prof = T.load_profile('h200')
meas = 0.5078240036964417
def show(name, m, pr=prof):
    p = T.predict(m, 4096, 256, 0, pr)
    c = p.components_us
    print(f"{name:45s} {p.ms:.4f} ({p.ms/meas:.2f}) bound {p.bound} contention {c['contention']:.1f} queue {c['slice_queue']:.1f} gatom {c['global_atomics']:.1f}")
b = variants['base']
show('base', b)
show('spread_same_cost=1', b, dataclasses.replace(prof, spread_same_cost=1.0))
show('cas_cost=1', b, dataclasses.replace(prof, cas_cost=1.0))
show('spread_same 1 + cas_cost 1', b, dataclasses.replace(prof, spread_same_cost=1.0, cas_cost=1.0))
m = dict(b); m['simt__atomic_cas_retried.sum'] = 0
show('no lost retried', m)
# lost-and-left counted once: factor = (lanes - lost_retried + ck lost)/lanes -> emulate by setting stale += lost_left
m = dict(b); m['simt__atomic_cas_stale.sum'] = b['simt__atomic_cas_failed.sum'] - b['simt__atomic_cas_retried.sum']
show('lost-and-left counted once', m)
o = variants['own_hot_out']
show('own hot chains out', o)
show('own hot out + spread_same 1', o, dataclasses.replace(prof, spread_same_cost=1.0))
show('own hot out + lost-left once', {**o, 'simt__atomic_cas_stale.sum': b['simt__atomic_cas_failed.sum'] - b['simt__atomic_cas_retried.sum']})
show('even', variants['even'])
# remove hot chain of keys from base slice by hand: 470568 CAS trans, serialized: lanes beyond first per request
print('---')
o = dict(variants['own_hot_out'])
o2 = dict(o); o2['simt__global_atomic_hot_address_lanes.max'] = round(470568*prof.cas_cost)
show('own hot out + CAS chain at cas_cost', o2)
for f in (1.0, 1.2, 1.48):
    o3 = dict(o); o3['simt__global_atomic_hot_address_lanes.max'] = round(470568*f)
    show(f'own hot out + chain x{f}', o3)
# contributions of base contention
g=b.get; cf = prof.cas_cost*T.cas_retries(b, prof, 4096*256, 132*8*256)
ct, cs = g('simt__l2_slice_cas_transactions.max'), g('simt__l2_slice_cas_serialized.max')
t_, s_ = g('simt__l2_slice_transactions.max')-ct, g('simt__l2_slice_serialized.max')-cs
ss = prof.spread_same_cost; lt = prof.l2_transaction_us; gs = prof.gatom_same_per_us; sh = 50/60
print('cas nonrep', (ct-cs)*lt*cf*sh, 'cas rep', cs*ss/gs*cf*sh, 'other nonrep', (t_-s_)*lt*sh, 'other rep', s_*ss/gs*sh, 'cf', cf)
print('ns per hot CAS replay lane', ss/gs*cf*sh*1e3, 'per hot CAS nonrep', lt*cf*sh*1e3, 'global_atomics per lane', 1e3/gs)
