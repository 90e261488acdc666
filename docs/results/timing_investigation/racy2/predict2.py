"""simt's predictions for sweep2.py's cases beside the GPU's (sweep2_GPU.jsonl):
python docs/results/timing_investigation/racy2/predict2.py [GPU] [CASE ...]"""
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
sys.path.insert(0, str(HERE.parent / "racy"))
sys.path.insert(0, str(HERE))
import sweep2  # noqa: E402
from predict import host_data  # noqa: E402
from kernels_cuda.timing_check import emulate  # noqa: E402
from kernels_cuda.timing_probes import TimingProbe  # noqa: E402
from simt import timing  # noqa: E402


def main():
    gpu = sys.argv[1] if len(sys.argv) > 1 else "h100"
    want = set(sys.argv[2:])
    prof = timing.load_profile(gpu)
    meas = {r["case"]: r["ms"] for r in map(json.loads, open(HERE / f"sweep2_{gpu}.jsonl")) if "case" in r}
    src = Path(tempfile.mkdtemp()) / "racy2.cu"
    src.write_text(sweep2.source())
    n, b = 1 << 24, 256
    print(f"# {gpu}: case, measured ms, predicted ms, predicted / measured, bound")
    for name, kind, w, nb, skew in sweep2.CASES:
        if want and name not in want:
            continue
        probe = TimingProbe(
            f"racy2/{name}", "racy2", f"{kind}_{w}", n, b, lambda m: max(1, m // b),
            lambda m, rng, w=w, nb=nb, skew=skew: [host_data(w, nb, m, skew, rng), np.zeros(4096, np.int32),
                                                   np.int32(m), np.int32(nb - 1)],
            source=str(src))
        p = timing.predict_result(emulate(probe, n)[0], prof)
        print(f"{name:20s} {meas[name]:8.3f} {p.ms:8.3f} {p.ms / meas[name]:6.2f}  {p.bound}", flush=True)


if __name__ == "__main__":
    main()
