"""simt's predictions for smerge.py's kernels beside the H200 timings (no GPU), from the
repository root:
    python docs/results/timing_investigation/smerge/predict.py > docs/results/timing_investigation/smerge/predicted_h200.txt"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import simt  # noqa: E402
from simt import timing  # noqa: E402
import smerge  # noqa: E402

here = Path(__file__).resolve().parent
meas = {}
f = here / "smerge_h200.jsonl"
if f.exists():
    for line in f.open():
        d = json.loads(line)
        if "case" in d:
            meas[d["case"]] = d["ms"]
prof = timing.load_profile("h200")
mod = simt.Module.from_source(smerge.src(), "smerge.cu")
dev = simt.Device()
buf = dev.zeros(smerge.RECORDS * max(smerge.KS) + 64, np.float32)
print(f"{'case':10} {'measured_ms':>11} {'predicted_ms':>12} {'ratio':>6}  bound      l2_lines_us  issue_us  st_lines  partial_st")
for name, k, s in smerge.cases():
    r = mod.get_function(name).launch(dev, simt.LaunchConfig.of(smerge.RECORDS // 256, 256),
                                      [buf, np.int32(smerge.RECORDS)], sanitize=False, sample_blocks=64)
    p = timing.predict_result(r, prof)
    ms = meas.get(name)
    c = p.components_us
    print(f"{name:10} {ms if ms else float('nan'):11.4f} {p.ms:12.4f} {p.ms / ms if ms else float('nan'):6.2f}  "
          f"{p.bound:10} {c.get('l2_lines', 0):11.1f} {c.get('issue', 0):9.1f} "
          f"{int(r.metrics.get('simt__l2_lines_st.sum', 0)):9d} {int(r.metrics.get('simt__l2_partial_sectors_st.sum', 0)):10d}")
