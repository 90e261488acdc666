"""machine.OP_COST's rows from math5_<gpu>.jsonl (runs here, no GPU; copy the file from
run.sh's $OUT next to this one first):
python3 docs/results/timing_investigation/math5/costs.py [GPU]        (default h200)

latency: cycles per step of the one-warp chain (clock64) less m_fma's.
issue: sub-partition cycles per warp-step of the full-GPU run from its event time,
(ms - 0.004) x 1.98e6 x 4 / (32 warps x 4 chains x 1024 steps), less m_fma's (math4's
costs.py; the H200's 1.98 GHz).  Every row, the double ones too, is less the float FFMA
step, as math/ ... math4/ priced them (a double chain's DFMA stays in its row).  Printed
as OP_COST rows (simt/machine.py's session 68 block); m_hypot_f4 is a check on
math.cu's 107.8 / 30.3 (H100)."""
import json
import sys
from pathlib import Path

HERE = Path(__file__).parent


def cyc(ms):
    return (ms - 0.004) * 1.98e6 * 4 / (32 * 4 * 1024)


g = sys.argv[1] if len(sys.argv) > 1 else "h200"
rows = [json.loads(line) for line in (HERE / f"math5_{g}.jsonl").read_text().splitlines()][1:]
base = next(r for r in rows if r["bench"] == "m_fma")
print(f"# {g}: (latency, issue) beyond one FFMA step")
for r in rows:
    if r.get("op_cost") is None:
        continue
    lat = r["latency_cycles_per_step"] - base["latency_cycles_per_step"]
    iss = cyc(r["throughput_ms"]) - cyc(base["throughput_ms"])
    print(f'    "{r["op_cost"]}": ({lat:.1f}, {iss:.1f}),{" " * max(1, 24 - len(r["op_cost"]))}# {r["bench"]}')
