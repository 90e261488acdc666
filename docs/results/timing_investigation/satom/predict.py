"""simt's predictions for the satom sweep against its measured times, both GPUs (no GPU):
python docs/results/timing_investigation/satom/predict.py > predicted.txt
The grid is sampled (8 of 1056 blocks; every block does the same)."""
import json
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import satom_cases  # noqa: E402
import simt  # noqa: E402
from simt import counters as C, timing  # noqa: E402

src = re.search(r"SRC = r'''(.*?)'''", (HERE / "satom_mb.py").read_text(), re.S).group(1)
mod = simt.Module.from_source(src, "satom.cu")
meas = {g: {r["case"]: r["ms"] for r in map(json.loads, open(HERE / f"satom_{g}.jsonl")) if "case" in r}
        for g in ("h100", "h200")}
print("case        waves/inst   H100 pred  meas   ratio   H200 pred  meas   ratio")
for name, tab in satom_cases.cases().items():
    dev = simt.Device()
    args = [dev.to_device(tab), dev.zeros(132 * 8, np.int32), np.int32(2048)]
    res = mod.get_function("satom").launch(dev, simt.LaunchConfig.of(132 * 8, 256), args,
                                           sanitize=False, sample_blocks=8)
    m = res.metrics
    row = f"{name:11s} {m[C.WAVES_ATOM] / m[C.SHARED_ATOM]:10.3f}"
    for g in ("h100", "h200"):
        p = timing.predict_result(res, timing.load_profile(g)).ms
        row += f"   {p:.4f} {meas[g][name]:.4f} {p / meas[g][name]:6.2f}"
    print(row)
