"""The OP_COST rows from math4_<gpu>.jsonl (runs here, no GPU):
python docs/results/timing_investigation/math4/costs.py

latency: cycles per step of the one-warp chain (clock64) less m_fma's.
issue: sub-partition cycles per warp-step of the full-GPU run from its event time,
(ms - 0.004) x 1.98e6 x 4 / (32 warps x 4 chains x 1024 steps), less m_fma's: the
function's whole sequence, as micro.cu's rows (sqrtf 12.2 here, 12.1 there).  (The
clock64 cycles of a block's thread 0 in that run, math.py's smsp_cycles_per_warp_step,
undercount: the oldest warp is issued first and finishes early.)"""
import json
from pathlib import Path

HERE = Path(__file__).parent


def cyc(ms):
    return (ms - 0.004) * 1.98e6 * 4 / (32 * 4 * 1024)


for g in ("h200",):
    rows = [json.loads(line) for line in (HERE / f"math4_{g}.jsonl").read_text().splitlines()][1:]
    base = next(r for r in rows if r["bench"] == "m_fma")
    print(g)
    for r in rows:
        print(f"  {r['bench']:9s} latency {r['latency_cycles_per_step'] - base['latency_cycles_per_step']:6.1f}"
              f"  issue {cyc(r['throughput_ms']) - cyc(base['throughput_ms']):5.1f}")
