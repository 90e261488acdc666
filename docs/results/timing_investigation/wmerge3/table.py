"""Tabulate wmerge3: python table.py GPU (wmerge3_GPU.jsonl and ncu_wmerge3_GPU.csv here)."""
import csv
import json
import sys
from pathlib import Path

import wmerge3

H = Path(__file__).parent


def ncu(path):
    """Per launch, in launch order: metric -> value."""
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]
    hdr = rows[0]
    by = {}
    for r in rows[1:]:
        d = dict(zip(hdr, r))
        by.setdefault(int(d["ID"]), {})[d["Metric Name"]] = float(d["Metric Value"].replace(",", "").replace("n/a", "nan") or 0)
    return [by[i] for i in sorted(by)]


def main(gpu):
    ms = {j["case"]: j for j in map(json.loads, open(H / f"wmerge3_{gpu}.jsonl")) if "case" in j}
    print("| case | K | sinf steps | ms | ncu us | store req / us / SM | sent to L2 / req | merged |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for (name, k, s), m in zip(wmerge3.cases(), ncu(H / f"ncu_wmerge3_{gpu}.csv")):
        req = m["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]
        sec = m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
        sent = m["l1tex__m_l1tex2xbar_write_sectors.sum"]
        us = m["gpu__time_duration.sum"] / 1e3
        print(f"| {name} | {k} | {s} | {ms[name]['ms']:.4f} | {us:.0f} | {req / us / 132:.1f} | {sent / req:.1f} | {sec / sent:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1])
