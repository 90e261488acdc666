"""simt's predictions for urow.py's kernels beside the H200 timings (no GPU), from the
repository root:
    python docs/results/timing_investigation/urow/predict.py > docs/results/timing_investigation/urow/predicted_h200.txt
    python docs/results/timing_investigation/urow/predict.py urow2 > docs/results/timing_investigation/urow/predicted2_h200.txt"""
import importlib
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import simt  # noqa: E402
from simt import timing  # noqa: E402
import urow as base  # noqa: E402
urow = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "urow")   # the variant

here = Path(__file__).resolve().parent
meas = {}
for line in (here / f"{urow.__name__}_h200.jsonl").open():
    d = json.loads(line)
    if "case" in d:
        meas[d["case"]] = d["ms"]
prof = timing.load_profile("h200")
mod = simt.Module.from_source(urow.src(), "urow.cu")
dev = simt.Device()
idx, tabs, out = base.inputs(np)
idx, tabs, out = dev.to_device(idx), [dev.to_device(t) for t in tabs], dev.to_device(out)
print(f"{'case':10} {'measured_ms':>11} {'predicted_ms':>12} {'ratio':>6}  {'bound':9} {'l1_lines_ld':>11} {'l2_lines_ld':>11} {'simt L1 share':>13}")
for name, kern, f, sh in urow.cases():
    r = mod.get_function(kern).launch(dev, simt.LaunchConfig.of(base.N // base.BLOCK, base.BLOCK, sh),
                                      urow.args(name, f, idx, tabs, out), sanitize=False, sample_blocks=64)
    p = timing.predict_result(r, prof)
    m = r.metrics
    l1, l2 = m.get("simt__l1_lines_ld.sum", 0), m.get("simt__l2_lines_ld.sum", 0)
    ms = meas[name]
    print(f"{name:10} {ms:11.4f} {p.ms:12.4f} {p.ms / ms:6.2f}  {p.bound:9} {l1:11d} {l2:11d} {1 - l2 / l1 if l1 else 0:13.2f}")
