"""simt's predictions for ret.py's kernels beside what the H200 measured (ret_h200.jsonl):
python docs/results/timing_investigation/fpsector/ret_predict.py [PATTERN ...]"""
import json
import os
import sys
import tempfile

import numpy as np

from kernels_cuda import timing_check
from kernels_cuda.timing_probes import TimingProbe
from simt import timing

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ret  # noqa: E402


def main(patterns):
    src = os.path.join(tempfile.mkdtemp(), "ret.cu")
    with open(src, "w") as f:
        f.write(ret.SRC)
    meas = {}
    for line in open(os.path.join(HERE, "ret_h200.jsonl")):
        d = json.loads(line)
        if "ms" in d:
            meas[(d["pattern"], d["kernel"])] = d["ms"]
    prof = timing.load_profile("h200")
    for pat in patterns or ret.PATTERNS:
        w = ret.pattern(pat).astype(np.int32)
        for k in ("red_i", "ret_i", "red_f", "ret_f"):
            t = np.float32 if k.endswith("f") else np.int32
            size = int(w.max()) + 1
            e = TimingProbe(f"ret/{pat}/{k}", "ret", k, ret.N, 256, lambda n: n // 256,
                            lambda n, rng, t=t, size=size: [np.zeros(size, t), np.zeros(1, t), w, np.int32(n)],
                            source=src)
            (r,) = timing_check.emulate(e, ret.N)
            p = timing.predict_result(r, prof)
            top = sorted(p.components_us.items(), key=lambda kv: -kv[1])[:3]
            m = meas[(pat, k)]
            print(f"{pat:10s} {k:6s} measured {m:.4f} predicted {p.ms:.4f} ratio {p.ms / m:.2f} "
                  f"{p.bound} {[(a, round(b, 1)) for a, b in top]}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
