"""simt's predictions for spin_mb.py's launches against the measured times (no GPU):
python docs/results/timing_investigation/spin/predict.py GPU > predicted_GPU.txt
The full launch is sampled (8 of 1056 blocks; every block does the same)."""
import json
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import spin_cases  # noqa: E402
import simt  # noqa: E402
from simt import counters as C, timing  # noqa: E402

gpu = sys.argv[1] if len(sys.argv) > 1 else "h200"
text = (HERE / "spin_mb.py").read_text()
src = re.search(r"SRC = r'''(.*?)'''", text, re.S).group(1)
reps = int(re.search(r"^REPS = (\d+)", text, re.M).group(1))
mod = simt.Module.from_source(src, "spin.cu")
path = HERE / f"spin_{gpu}.jsonl"
meas = {(r["case"], r["launch"]): r["ms"] for r in map(json.loads, open(path)) if "case" in r} if path.exists() else {}
prof = timing.load_profile(gpu)
print(f"# {gpu}: case, launch, passes a warp instruction, predicted ms, measured ms, ratio")
for name, tab in spin_cases.cases().items():
    for launch, (bps, threads) in (("full", (8, 256)), ("warp", (1, 32))):
        dev = simt.Device()
        args = [dev.to_device(tab), dev.zeros(132 * 8, np.float32), np.int32(reps)]
        res = mod.get_function("spin").launch(dev, simt.LaunchConfig.of(132 * bps, threads), args,
                                              sanitize=False, sample_blocks=min(8, 132 * bps))
        m = res.metrics
        p = timing.predict_result(res, prof).ms
        got = meas.get((name, launch))
        passes = m[C.SHARED_ATOM] / m["simt__atomic_warp_instructions.sum"]
        print(f"{name:18s} {launch:4s} {passes:6.2f} {p:8.4f} " +
              (f"{got:8.4f} {p / got:6.2f}" if got else "       -      -"), flush=True)
