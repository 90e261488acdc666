"""lspill/'s table from Nsight Compute's CSV: python table.py [GPU] (h200 by default).
Resident frames are nvcc's stack (spill_res.txt) x the warps active x 32 x 132 SMs."""
import csv
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import spill_mb  # noqa: E402

STACK = {16: 64, 32: 128, 64: 256, 128: 512, 256: 1088}    # bytes a thread, spill_res.txt


def main(gpu="h200"):
    txt = open(os.path.join(HERE, f"ncu_spill_{gpu}.csv")).read()
    d = {}
    for r in csv.DictReader(io.StringIO(txt[txt.index('"ID"'):])):
        d.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    print("| case | nvcc stack (bytes) | us (Nsight) | warps active % | resident frames (MB) | DRAM read (MB) "
          "| DRAM written (MB) | L2 hit % | L1 hit % |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for i, v in sorted(d.items()):
        if i % 2 == 0:
            continue                                  # each case's first launch warms up
        c = spill_mb.CASES[i // 2]
        w = int(c[1:].split("_")[0])
        wa = v["sm__warps_active.avg.pct_of_peak_sustained_active"]
        res = STACK[w] * 132 * 2048 * wa / 100 / 1e6
        print(f"| `{c}` | {STACK[w]} | {v['gpu__time_duration.sum'] / 1e3:.0f} | {wa:.1f} | {res:.1f} | "
              f"{v['dram__bytes_read.sum'] / 1e6:.1f} | {v['dram__bytes_write.sum'] / 1e6:.1f} | "
              f"{v['lts__t_sector_hit_rate.pct']:.1f} | {v['l1tex__t_sector_hit_rate.pct']:.1f} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
