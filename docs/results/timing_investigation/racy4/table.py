"""racy4's tables from Nsight Compute's CSVs: python table.py [GPU] (h200 by default).
Prints partial_mb.py's cases (L1 load hits, sends, misses) and occ_mb.py's (time, warp
states, merging) with the least-squares fit of the time to the sends and the misses."""
import csv
import io
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import occ_mb  # noqa: E402
import partial_mb  # noqa: E402

DATA_SECTORS = partial_mb.N // 32       # the bins' own loads: 2^24 bytes, all L1 misses


def load(fn):
    """{launch ID: {metric: value}} of an ``ncu --csv`` log."""
    txt = open(fn).read()
    rows = csv.DictReader(io.StringIO(txt[txt.index('"ID"'):]))
    out = {}
    for r in rows:
        out.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return out


def timed(d, names):
    """Each case's second launch (the first warms up)."""
    return [(names[i // 2], v) for i, v in sorted(d.items()) if i % 2]


def main(gpu="h200"):
    st, wr = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__m_l1tex2xbar_write_sectors.sum"
    rd, ld = "l1tex__m_xbar2l1tex_read_sectors.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
    print("| case | ns (Nsight) | load sectors | L1 hit % | sectors L1 reads from L2 | store sectors | sends | merge |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, v in timed(load(os.path.join(HERE, f"ncu_partial_{gpu}.csv")), partial_mb.CASES):
        print(f"| `{name}` | {v['gpu__time_duration.sum']:,.0f} | {v[ld]:,.0f} | "
              f"{v['l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct']:.2f} | {v[rd]:,.0f} | "
              f"{v[st]:,.0f} | {v[wr]:,.0f} | {v[st] / v[wr]:.2f} |")
    rows = []
    for name, v in timed(load(os.path.join(HERE, f"ncu_occ_{gpu}.csv")), occ_mb.CASES):
        p = v[st] / (partial_mb.N // 32) / 32
        rows.append((name, v["gpu__time_duration.sum"] / 1e3, v[wr], v[rd] - DATA_SECTORS, v[st] / v[wr], p, v))
    a = np.array([[r[2], r[3]] for r in rows])
    c = np.linalg.lstsq(a, np.array([r[1] for r in rows]), rcond=None)[0]
    print()
    print(f"fit: us = {c[0] * 1e6:.1f} x sends (M) + {c[1] * 1e6:.1f} x misses (M), "
          f"i.e. {c[0] * 2e3:.2f} ns a send and {c[1] * 2e3:.2f} ns a miss on each of two slices")
    print()
    print("| case | us (Nsight) | warps active % | long-scoreboard / drain / LSU stall a issue | sends | misses | merge | K = merge / p | fit / us |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for (name, us, sends, miss, merge, p, v), fit in zip(rows, a @ c):
        stall = "/".join(f"{v[f'smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio']:.0f}"
                         for s in ("long_scoreboard", "drain", "lg_throttle"))
        print(f"| `{name}` | {us:.0f} | {v['sm__warps_active.avg.pct_of_peak_sustained_active']:.0f} | {stall} | "
              f"{sends:,.0f} | {miss:,.0f} | {merge:.2f} | {merge / p:.1f} | {fit / us:.2f} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
