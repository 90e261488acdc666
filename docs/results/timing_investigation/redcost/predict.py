"""simt's counters and predictions for the redcost sweep against the GPU (no GPU):
python docs/results/timing_investigation/redcost/predict.py > predicted.txt"""
import csv
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
import simt  # noqa: E402
from simt import counters as C, timing  # noqa: E402

text = (HERE / "redcost_mb.py").read_text().split('if sys.argv[1:2] == ["--src"]')[0]
ns: dict = {"__file__": str(HERE / "redcost_mb.py")}
exec(text.replace("import cupy as cp\n", "").replace("from kernels_cuda.cupy_backend import time_gpu", ""), ns)
mod = simt.Module.from_source(ns["code"], "redcost.cu")
meas = {}
for g in ("h100", "h200"):
    p = HERE / f"redcost_{g}.jsonl"
    if p.exists():
        meas[g] = {(r["pattern"], r["reps"]): r["ms"] for r in map(json.loads, open(p)) if "pattern" in r}
ncu = {}
for r in csv.DictReader(l for l in open(HERE / "ncu_redcost_h100.csv") if l.startswith('"')):
    ncu.setdefault(r["Kernel Name"][4:], {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
GRID, REPS = 1056, 64          # as redcost_mb.py launches
tab = np.random.default_rng(0).integers(0, 256, 2048, dtype=np.int32)
print("pattern     reps  red sectors simt / ncu   slice trans  " + "  ".join(f"{g} pred   meas  ratio" for g in meas))
for k in ns["IDX"]:
    for reps in (REPS, 1):
        dev = simt.Device()
        args = [dev.to_device(tab), dev.zeros(256, np.uint32), np.int32(reps)]
        res = mod.get_function("red_" + k).launch(dev, simt.LaunchConfig.of(GRID, 256), args,
                                                  sanitize=False, sample_blocks=16)
        m = res.metrics
        nc = ncu.get(k, {}).get("l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", 0) if reps == REPS else 0
        row = f"{k:11s} {reps:4d}  {m[C.SECT_RED]:11.0f} / {nc:10.0f}  {m['simt__l2_slice_transactions.max']:11.0f}"
        for g in meas:
            p = timing.predict_result(res, timing.load_profile(g)).ms
            row += f"   {p:.4f} {meas[g][(k, reps)]:.4f} {p / meas[g][(k, reps)]:5.2f}"
        print(row, flush=True)
