"""simt's view of bfsq_mb.py's variants beside the GPU's times (bfsq_GPU.jsonl) and
Nsight's busiest-slice sectors: python docs/results/timing_investigation/bfsq/predict.py [GPU]"""
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
sys.path.insert(0, str(HERE))
import bfsq_mb as mb  # noqa: E402
from kernels_cuda import timing_probes as tp  # noqa: E402
from kernels_cuda.timing_check import emulate  # noqa: E402
from simt import timing  # noqa: E402


def main():
    gpu = sys.argv[1] if len(sys.argv) > 1 else "h200"
    only = sys.argv[2:]
    prof = timing.load_profile(gpu)
    f = HERE / f"bfsq_{gpu}.jsonl"
    meas = {r["case"]: r["ms"] for r in map(json.loads, f.read_text().splitlines()[1:])} if f.exists() else {}
    src = Path(tempfile.mkdtemp()) / "bfsq.cu"
    src.write_text(mb.SRC)
    print(f"# {gpu}: case, measured ms, predicted ms, ratio, bound, busiest slice (simt), components > 5 us")
    for case in mb.CASES:
        if only and case not in only:
            continue
        probe = tp.TimingProbe(f"bfsq/{case}", "bfsq", case, mb.N, 256,
                               lambda n: -(-len(tp._u54_bfs_state(n)[2]) // 256), tp._u54_bfs_args,
                               source=str(src))
        r = emulate(probe, mb.N)[0]
        p = timing.predict_result(r, prof)
        m = r.metrics
        ms = meas.get(case, float("nan"))
        comp = {k: round(v, 1) for k, v in p.components_us.items() if v > 5}
        print(f"{case:10s} {ms:8.4f} {p.ms:8.4f} {p.ms / ms:6.2f}  {p.bound:20s} "
              f"{m.get('simt__l2_slice_transactions.max', 0):8d} {comp}", flush=True)


if __name__ == "__main__":
    main()
