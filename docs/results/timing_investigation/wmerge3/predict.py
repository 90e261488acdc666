"""simt's predictions for wmerge3.py's kernels and wmerge2.py's 4-byte ones against the H200
timings (no GPU), from the repository root:
python docs/results/timing_investigation/wmerge3/predict.py > docs/results/timing_investigation/wmerge3/predicted_h200.txt"""
import json
import sys
from pathlib import Path

import numpy as np

H = Path(__file__).resolve().parent
sys.path.insert(0, str(H))
sys.path.insert(0, str(H.parent / "wmerge2"))
import simt  # noqa: E402
from simt import timing  # noqa: E402
import wmerge2  # noqa: E402
import wmerge3  # noqa: E402

prof = timing.load_profile("h200")
dev = simt.Device()
buf = dev.zeros((128 << 20) // 4 + 64, np.float32)
for name, mod, cases in (("wmerge3", wmerge3, [(n, 4, k) for n, k, s in wmerge3.cases()]),
                         ("wmerge2", wmerge2, [(n, e, k) for n, e, k, kind in wmerge2.cases() if e == 4])):
    meas = {d["case"]: d["ms"] for d in map(json.loads, open(H.parent / name / f"{name}_h200.jsonl")) if "case" in d}
    m = simt.Module.from_source(mod.src(), name + ".cu")
    for case, e, k in cases:
        records = (128 << 20) // (e * k)
        r = m.get_function(case).launch(dev, simt.LaunchConfig.of(-(-records // 256), 256), [buf, np.int32(records)],
                                        sanitize=False, sample_blocks=64)
        p = timing.predict_result(r, prof)
        c = p.components_us
        print(f"{name} {case:9s} pred {p.ms:.4f} meas {meas[case]:.4f} ratio {p.ms / meas[case]:.2f} {p.bound:9s} "
              f"l2_lines {c['l2_lines']:.0f} us, issue {c['issue']:.0f} us", flush=True)
