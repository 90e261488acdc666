"""simt's view of walk_mb.py's cases: predicted time, the share of load lines L1 serves
(1 - lines sent to L2 / lines looked up), and the DRAM reads its re-touch misses add
(sectors, over the data's), beside the GPU's time (walk_GPU.jsonl):
python docs/results/timing_investigation/walk/predict.py [GPU] [CASE ...]"""
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
sys.path.insert(0, str(HERE))
import walk_mb as mb  # noqa: E402
from kernels_cuda.timing_check import emulate  # noqa: E402
from kernels_cuda.timing_probes import TimingProbe  # noqa: E402
from simt import timing  # noqa: E402


def main():
    gpu = sys.argv[1] if len(sys.argv) > 1 else "h200"
    only = sys.argv[2:]
    prof = timing.load_profile(gpu)
    f = HERE / f"walk_{gpu}.jsonl"
    meas = {r["case"]: r["ms"] for r in map(json.loads, f.read_text().splitlines()[1:])} if f.exists() else {}
    src = Path(tempfile.mkdtemp()) / "walk.cu"
    src.write_text(mb.SRC)
    print(f"# {gpu}: case, measured ms, predicted ms, ratio, L1 share, re-touch DRAM reads / data, bound")
    for case, kern, r, k in mb.CASES:
        if only and case not in only:
            continue
        g = mb.SMS * k
        lanes = g * mb.BLOCK
        if kern.startswith("merge_pass"):
            args = (lambda m, rng, r=r, k=k, lanes=lanes: [mb.data(r, k, rng), np.zeros(lanes * r, np.int32),
                                                         np.int32(lanes * r), np.int32(r // 2)])
        else:
            args = (lambda m, rng, r=r, k=k, lanes=lanes: [mb.data(r, k, rng), np.zeros(lanes, np.int32),
                                                         np.int32(r)])
        probe = TimingProbe(f"walk/{case}", "walk", kern, lanes, mb.BLOCK, lambda m, g=g: g, args, source=str(src))
        res = emulate(probe, lanes)[0]
        p = timing.predict_result(res, prof)
        m = res.metrics
        share = 1 - m["simt__l2_lines_ld.sum"] / max(1, m["simt__l1_lines_ld.sum"])
        extra = (m.get("simt__l2_retouch_sectors.sum", 0)
                 * timing.retouch_miss(m, prof, timing.resident_blocks(prof, g, p.occupancy_blocks_per_sm))
                 / (lanes * r * 4 / 32))
        ms = meas.get(case, float("nan"))
        print(f"{case:14s} {ms:8.4f} {p.ms:8.4f} {p.ms / ms:6.2f}  {share:5.2f}  {extra:6.2f}  {p.bound}", flush=True)


if __name__ == "__main__":
    main()
