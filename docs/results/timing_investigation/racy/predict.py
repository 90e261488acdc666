"""simt's predictions for sweep.py's cases beside what a GPU measured (sweep_GPU.jsonl):
python docs/results/timing_investigation/racy/predict.py [GPU] [CASE ...] > predicted_GPU.txt
Every case is emulated the way the timing tables are (kernels_cuda.timing_check.emulate:
a sample of blocks, extrapolated)."""
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
sys.path.insert(0, str(HERE))
import sweep  # noqa: E402
from kernels_cuda.fam_histogram import histogram_data  # noqa: E402
from kernels_cuda.timing_check import emulate  # noqa: E402
from kernels_cuda.timing_probes import TimingProbe  # noqa: E402
from simt import timing  # noqa: E402


def host_data(w, nb, n, skew, rng):
    """sweep.data's values on the host (the same draws)."""
    base = (rng.integers(0, nb, n) if skew == "uniform" else histogram_data(n, rng, skew)).astype(np.uint32)
    if w < 4:
        return base.astype({1: np.uint8, 2: np.uint16}[w])
    a = np.zeros((n, w // 4), np.uint32)
    a[:, 0] = base
    return a.ravel()


def main():
    gpu = sys.argv[1] if len(sys.argv) > 1 else "h100"
    want = set(sys.argv[2:])
    prof = timing.load_profile(gpu)
    lines = (HERE / f"sweep_{gpu}.jsonl").read_text().splitlines()[1:]
    meas = {r["case"]: r["ms"] for r in map(json.loads, lines)}
    src = Path(tempfile.mkdtemp()) / "racy.cu"
    src.write_text(sweep.source())
    print(f"# {gpu}: case, measured ms, predicted ms, predicted / measured, bound")
    for name, w, nb, k, n, b, skew in sweep.CASES:
        if want and name not in want:
            continue
        probe = TimingProbe(
            f"racy/{name}", "racy", f"racy_{w}", n, b, lambda m, b=b, k=k: max(1, m // (b * k)),
            lambda m, rng, w=w, nb=nb, skew=skew: [host_data(w, nb, m, skew, rng), np.zeros(4096, np.int32),
                                                   np.int32(m), np.int32(nb - 1)],
            source=str(src))
        p = timing.predict_result(emulate(probe, n)[0], prof)
        print(f"{name:10s} {meas[name]:8.3f} {p.ms:8.3f} {p.ms / meas[name]:6.2f}  {p.bound}", flush=True)


if __name__ == "__main__":
    main()
