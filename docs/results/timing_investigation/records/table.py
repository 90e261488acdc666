"""Nsight Compute's counters for records.py's cases, a row each (the first launch is
CuPy's fill of the input buffer):  python table.py ncu_records_h100.csv"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from kernels_cuda.ncu_check import parse_ncu_csv  # noqa: E402

NAMES = ["fill", "st1", "st2", "st3", "st4", "st8", "st16", "st32", "pair16", "ld1", "ld4", "ld16", "ld32"]
COLS = {"gpu__time_duration.sum": "ns", "lts__t_requests_srcunit_tex_op_write.sum": "L2wrreq",
        "lts__t_sectors_srcunit_tex_op_write.sum": "L2wrsect", "l1tex__m_l1tex2xbar_write_sectors.sum": "l1xbar_ws",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "st_req",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "st_sect",
        "lts__t_requests_srcunit_tex_op_read.sum": "L2rdreq", "lts__t_sectors_srcunit_tex_op_read.sum": "L2rdsect",
        "l1tex__data_pipe_lsu_wavefronts.sum": "dpwave", "dram__bytes_write.sum": "dramwr",
        "lts__t_sectors.max": "slicemax", "lts__cycles_active.avg": "ltsactive"}

print("case   kernel     " + " ".join("%10s" % c for c in COLS.values()))
for name, launch in zip(NAMES, parse_ncu_csv(Path(sys.argv[1]).read_text())):
    m = launch["metrics"]
    print("%-6s %-10s " % (name, launch["kernel"][:10]) + " ".join("%10.0f" % m.get(k, -1) for k in COLS))
