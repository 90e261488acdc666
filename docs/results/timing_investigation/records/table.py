"""Nsight Compute counters of records.py's cases, a row each: python table.py ncu_records_h100.csv
(the first kernel is CuPy's fill of the input buffer)."""
import csv, io, collections, sys
txt = open(sys.argv[1]).read()
i = txt.find('"ID"')
rows = list(csv.DictReader(io.StringIO(txt[i:])))
names = ["fill", "st1","st2","st3","st4","st8","st16","st32","pair16","ld1","ld4","ld16","ld32"]
by = collections.defaultdict(dict)
kn = {}
def num(s):
    try: return float(s.replace(',', ''))
    except: return -1
for r in rows:
    by[int(r['ID'])][r['Metric Name']] = num(r['Metric Value']); kn[int(r['ID'])] = r['Kernel Name']
short = {'gpu__time_duration.sum':'ns','lts__t_requests_srcunit_tex_op_write.sum':'L2wrreq','lts__t_sectors_srcunit_tex_op_write.sum':'L2wrsect','l1tex__m_l1tex2xbar_write_sectors.sum':'l1xbar_ws','l1tex__t_requests_pipe_lsu_mem_global_op_st.sum':'st_req','l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum':'st_sect','lts__t_requests_srcunit_tex_op_read.sum':'L2rdreq','lts__t_sectors_srcunit_tex_op_read.sum':'L2rdsect','l1tex__data_pipe_lsu_wavefronts.sum':'dpwave','dram__bytes_write.sum':'dramwr','lts__t_sectors.max':'slicemax','lts__cycles_active.avg':'ltsactive'}
keys=list(short)
print('case   kernel     '+' '.join('%10s'%short[k] for k in keys))
for j,n in enumerate(names):
    d = by[j]
    print('%-6s %-10s '%(n, kn.get(j,'')[:10]) + ' '.join('%10.0f'%d.get(k,-1) for k in keys))
