"""simt's predictions for rowstore_mb.py's cases beside the H200's times (no GPU):
python docs/results/timing_investigation/rowstore/predict.py > docs/results/timing_investigation/rowstore/predicted_h200.txt"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import rowstore_mb as mb  # noqa: E402
import simt  # noqa: E402
from simt import timing  # noqa: E402

here = Path(__file__).parent
meas = {json.loads(ln)["case"]: json.loads(ln) for ln in (here / "rowstore_h200.jsonl").read_text().splitlines()
        if '"case"' in ln}
prof = timing.load_profile("h200")
mod = simt.Module.from_source(mb.SRC, "rowstore.cu")
print("case           measured_ms  predicted_ms  ratio  bound     l2_lines_us  st_lines")
for case, kern, r, k in mb.CASES:
    if k < 4:
        continue
    dev = simt.Device()
    g = mb.SMS * k
    out = dev.zeros(g * mb.BLOCK * r, np.float32)
    res = mod.get_function(kern).launch(dev, simt.LaunchConfig.of(g, mb.BLOCK), [out, np.int32(r), np.float32(1e-3)],
                                        sanitize=False, sample_blocks=64, gpu=prof)
    p = timing.predict_result(res, prof)
    m = meas[case]["ms"]
    print(f"{case:14s} {m:11.4f} {p.ms:13.4f} {p.ms / m:6.2f}  {p.bound:9s} {p.components_us['l2_lines']:11.1f}  "
          f"{res.metrics['simt__l2_lines_st.sum']}", flush=True)
