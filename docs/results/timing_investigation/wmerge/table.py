"""Tabulate wmerge: python table.py GPU (wmerge_GPU.jsonl and ncu_wmerge_GPU.csv here)."""
import csv
import json
import sys
from pathlib import Path

import wmerge

H = Path(__file__).parent


def ncu(gpu):
    """Per launch, in wmerge.cases() order: metric -> value."""
    rows = [r for r in csv.reader(open(H / f"ncu_wmerge_{gpu}.csv")) if len(r) > 10]
    hdr = rows[0]
    by = {}
    for r in rows[1:]:
        d = dict(zip(hdr, r))
        by.setdefault(int(d["ID"]), {})[d["Metric Name"]] = float(d["Metric Value"].replace(",", "").replace("n/a", "nan") or 0)
    return [by[i] for i in sorted(by)]


def main(gpu):
    ms = {j["case"]: j for j in map(json.loads, open(H / f"wmerge_{gpu}.jsonl")) if "case" in j}
    cs = list(wmerge.cases())
    nc = ncu(gpu)
    print("| case | stride B | lines / req | ms | L1 st sectors / req | sent to L2 / req | merged | L2 write req / req | us per M req |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (name, kern, e, k, kind, size), m in zip(cs, nc):
        req = m["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]
        sec = m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
        sent = m["l1tex__m_l1tex2xbar_write_sectors.sum"]
        lreq = m["lts__t_requests_srcunit_tex_op_write.sum"]
        s = e * k
        lines = max(1, 32 * s // 128)
        print(f"| {name} | {s} | {lines} | {ms[name]['ms']:.4f} | {sec / req:.1f} | {sent / req:.1f} | "
              f"{sec / sent:.2f} | {lreq / req:.1f} | {ms[name]['ms'] * 1e3 / (req / 1e6):.1f} |")


if __name__ == "__main__":
    main(sys.argv[1])
