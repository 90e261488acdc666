"""simt's predictions for unseen_mb.py's cases, made before their first run; with a GPU's
measurements (unseen_GPU.jsonl) beside them, the ratios.  From the repository root:

    python docs/results/timing_investigation/racy5/predict_unseen.py > docs/results/timing_investigation/racy5/unseen_predicted.txt
    python docs/results/timing_investigation/racy5/predict_unseen.py --table h200 [PREDICTIONS_FILE]
"""
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
sys.path.insert(0, str(HERE))
import unseen_mb as U  # noqa: E402
from kernels_cuda.timing_check import emulate  # noqa: E402
from kernels_cuda.timing_probes import TimingProbe  # noqa: E402
from simt import timing  # noqa: E402

GPUS = ("h100", "h200")


def predict():
    src = Path(tempfile.mkdtemp()) / "racy5.cu"
    src.write_text(U.SRC)
    print("# case, predicted ms per GPU (h100, h200), bound, racy misses a slice")
    for name, kernel, skew, bins, n, block, trips in U.CASES:
        probe = TimingProbe(
            f"racy5/{name}", "racy5", kernel, n, block, lambda m, b=block, t=trips: U.grid(m, b, t),
            lambda m, rng, k=kernel, s=skew, nb=bins: [U.data(k, s, nb, m, rng),
                                                       np.zeros(1024, np.float32 if k == "once_f32" else np.int32),
                                                       np.int32(m), np.int32(nb - 1)],
            source=str(src))
        res = emulate(probe, n)[0]
        preds = [timing.predict_result(res, timing.load_profile(g)) for g in GPUS]
        miss = res.metrics.get("simt__l2_slice_racy_misses.max", 0)
        print(f"{name:18s} " + " ".join(f"{p.ms:8.4f}" for p in preds) + f"  {preds[1].bound}  {miss}",
              flush=True)


def table(gpu):
    pred = {}
    for line in (HERE / (sys.argv[3] if len(sys.argv) > 3 else "unseen_predicted.txt")).read_text().splitlines():
        if line and not line.startswith("#"):
            f = line.split()
            pred[f[0]] = float(f[1 + GPUS.index(gpu)])
    meas = [json.loads(x) for x in (HERE / f"unseen_{gpu}.jsonl").read_text().splitlines()]
    meas = {r["case"]: r["ms"] for r in meas if "case" in r}
    print(f"| case | measured ms ({gpu}) | predicted ms | ratio |\n|---|---:|---:|---:|")
    ok = 0
    for name in pred:
        r = pred[name] / meas[name]
        ok += 1 / 1.5 <= r <= 1.5
        print(f"| `{name}` | {meas[name]:.3f} | {pred[name]:.3f} | {r:.2f}{'' if 1 / 1.5 <= r <= 1.5 else ' **off**'} |")
    print(f"\n{ok} of {len(pred)} within 1.5x")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--table"]:
        table(sys.argv[2])
    else:
        predict()
