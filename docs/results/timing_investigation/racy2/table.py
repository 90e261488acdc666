"""Per-warp counters of sweep2's kernels from ncu_a_GPU.csv and ncu_b_GPU.csv (and times from
sweep2_GPU.jsonl):  python table.py h100"""
import json
import sys
from pathlib import Path

import sweep2

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from kernels_cuda.ncu_check import parse_ncu_csv  # noqa: E402

D = Path(__file__).parent
g = sys.argv[1] if len(sys.argv) > 1 else "h100"
rows = [{} for _ in sweep2.CASES]        # launch i of both passes: case i's metrics
for part in "ab":
    for launch in parse_ncu_csv((D / f"ncu_{part}_{g}.csv").read_text()):
        rows[launch["id"]].update(launch["metrics"])
ms = {j["case"]: j["ms"] for j in map(json.loads, open(D / f"sweep2_{g}.jsonl")) if "case" in j}
W = (1 << 24) / 32
cols = [("L1 st", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
        ("L1->xbar wr", "l1tex__m_l1tex2xbar_write_sectors.sum"),
        ("L2 wr", "lts__t_sectors_op_write.sum"),
        ("L2 wr req", "lts__t_requests_op_write.sum"),
        ("L2 rd", "lts__t_sectors_op_read.sum"),
        ("xbar->L1 rd", "l1tex__m_xbar2l1tex_read_sectors.sum"),
        ("L1 ld", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
        ("slice max", "lts__t_sectors.max")]
print("| case | ms | " + " | ".join(c for c, _ in cols) + " | ld hit % | slice ns/sector |")
print("|---" * (len(cols) + 4) + "|")
for i, c in enumerate(sweep2.CASES):
    m = rows[i]
    t = m["gpu__time_duration.sum"]
    vals = " | ".join(f"{m.get(k, float('nan')) / W:.2f}" for _, k in cols)
    print(f"| {c[0]} | {ms[c[0]]:.3f} | {vals} | {m['l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct']:.1f} | "
          f"{t / m['lts__t_sectors.max']:.2f} |")
