"""simt's view of l1share_mb.py's cases: the share of the gathers' lines L1 serves (1 -
lines sent to L2 / lines looked up) and the predicted time, beside the GPU's time
(l1share_GPU.jsonl) and, where given, Nsight's L1 sector hit rate (l1share_ncu_GPU.json):
python docs/results/timing_investigation/jds/predict_l1share.py [GPU]"""
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
sys.path.insert(0, str(HERE))
import l1share_mb as mb  # noqa: E402
from kernels_cuda.timing_check import emulate  # noqa: E402
from kernels_cuda.timing_probes import TimingProbe  # noqa: E402
from simt import timing  # noqa: E402


def main():
    gpu = sys.argv[1] if len(sys.argv) > 1 else "h200"
    prof = timing.load_profile(gpu)
    f = HERE / f"l1share_{gpu}.jsonl"
    meas = {r["case"]: r["ms"] for r in map(json.loads, f.read_text().splitlines()[1:])} if f.exists() else {}
    nf = HERE / f"l1share_ncu_{gpu}.json"
    hits = json.loads(nf.read_text()) if nf.exists() else {}
    src = Path(tempfile.mkdtemp()) / "l1share.cu"
    src.write_text(mb.SRC)
    print(f"# {gpu}: case, measured ms, predicted ms, ratio, simt's L1 hit share of gathered lines, "
          f"Nsight's L1 sector hit rate, bound")
    for case, b, wk, sec in mb.CASES:
        g, words = mb.grid(b), wk * 256
        probe = TimingProbe(f"l1share/{case}", "l1share", "l1win", g * b, b, lambda m, g=g: g,
                            lambda m, rng, g=g, words=words, sec=sec: [
                                np.ones(g * words, np.float32), np.zeros(m, np.float32), np.int32(mb.TRIPS),
                                np.int32(words), np.int32(sec)], source=str(src))
        r = emulate(probe, g * b)[0]
        p = timing.predict_result(r, prof)
        m = r.metrics
        share = 1 - m["simt__l2_lines_ld.sum"] / max(1, m["simt__l1_lines_ld.sum"])
        ms = meas.get(case, float("nan"))
        print(f"{case:16s} {ms:8.4f} {p.ms:8.4f} {p.ms / ms:6.2f}  {share:5.2f}  {hits.get(case, float('nan')):5.2f}"
              f"  {p.bound}", flush=True)


if __name__ == "__main__":
    main()
