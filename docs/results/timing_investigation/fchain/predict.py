"""simt's predictions for fchain.py's (or fchain2.py's, fchain3.py's) kernels beside the H200
timings (no GPU), from the repository root:
    python docs/results/timing_investigation/fchain/predict.py > docs/results/timing_investigation/fchain/predicted_h200.txt
    python docs/results/timing_investigation/fchain/predict.py fchain2 > docs/results/timing_investigation/fchain/predicted2_h200.txt
    python docs/results/timing_investigation/fchain/predict.py fchain3 > docs/results/timing_investigation/fchain/predicted3_h200.txt
    python docs/results/timing_investigation/fchain/predict.py fchain4 > docs/results/timing_investigation/fchain/predicted4_h200.txt
fchain3's and fchain4's launches are sampled as `simt run` and the timing tables sample a large grid
(512 blocks, kernels_cuda.timing_check.SAMPLE_THREADS), the others emulated whole."""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import simt  # noqa: E402
from simt import timing  # noqa: E402
import fchain  # noqa: E402
import fchain2  # noqa: E402
import fchain3  # noqa: E402
import fchain4  # noqa: E402

name = sys.argv[1] if sys.argv[1:] else "fchain"
bench = {"fchain": fchain, "fchain2": fchain2, "fchain3": fchain3, "fchain4": fchain4}[name]
two = bench is not fchain                   # fchain2's add_i on one array, int adds only
sampled = bench in (fchain3, fchain4)
here = Path(__file__).resolve().parent
meas = {}
for line in (here / f"{name}_h200.jsonl").open():
    d = json.loads(line)
    if "case" in d:
        meas[(d["case"], d.get("kernel", "add_i"))] = d["ms"]
prof = timing.load_profile("h200")
mod = simt.Module.from_source(fchain2.SRC if two else fchain.SRC, "fchain.cu")
dev = simt.Device()
rng = np.random.default_rng(0)
print(f"{'case':12} {'kernel':6} {'measured_ms':>11} {'predicted_ms':>12} {'ratio':>6}  {'bound':12} {'slice_tx':>9} {'slice_ser':>9}")
if two:
    c2 = dev.to_device(np.zeros(fchain2.W, np.int32))
for case, h, *s in bench.cases():
    idx = dev.to_device(bench.pattern(h, *s, rng))
    for k, t in (("add_i", np.int32),) if two else (("add_i", np.int32), ("add_f", np.float32)):
        c = c2 if two else dev.to_device(np.zeros(fchain.W, t))
        r = mod.get_function(k).launch(dev, simt.LaunchConfig.of(fchain.N // fchain.BLOCK, fchain.BLOCK),
                                       [c, idx, np.int32(fchain.N)], sanitize=False,
                                       sample_blocks=512 if sampled else None)
        p = timing.predict_result(r, prof)
        m = r.metrics
        ms = meas[(case, k)]
        print(f"{case:12} {k:6} {ms:11.4f} {p.ms:12.4f} {p.ms / ms:6.2f}  {p.bound:12} "
              f"{m.get('simt__l2_slice_transactions.max', 0):9d} {m.get('simt__l2_slice_serialized.max', 0):9d}", flush=True)
