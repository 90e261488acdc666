"""simt's view of dslash_mb.py's cases: predicted time, its bound and components, the DRAM
bytes it reads (footprint chunks plus the re-touch misses), beside the GPU's time
(dslash_GPU.jsonl, dslash3_GPU.jsonl): python docs/results/timing_investigation/dslash/predict.py [GPU] [CASE ...]"""
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
sys.path.insert(0, str(HERE))
import dslash_mb as mb  # noqa: E402
from kernels_cuda.timing_check import emulate  # noqa: E402
from kernels_cuda.timing_probes import TimingProbe  # noqa: E402
from simt import timing  # noqa: E402


def main():
    gpu = sys.argv[1] if len(sys.argv) > 1 else "h200"
    only = sys.argv[2:]
    prof = timing.load_profile(gpu)
    meas = {}
    for f in (HERE / f"dslash3_{gpu}.jsonl", HERE / f"dslash_{gpu}.jsonl"):   # the first call's timings where both have a case
        if f.exists():
            meas.update({r["case"]: r["ms"] for r in map(json.loads, f.read_text().splitlines())})
    src = Path(tempfile.mkdtemp()) / "dslash.cu"
    src.write_text(mb.SRC)
    print(f"# {gpu}: case, measured ms, predicted ms, ratio, bound, L2 load lines, L1's share of the load"
          " sectors, components (us)")
    for case, kern, L, fm, bm in mb.CASES + mb.CASES2:
        if only and case not in only:
            continue
        vol = L ** 4

        def args(m, rng, vol=vol, L=L, fm=fm, bm=bm, kern=kern):
            U = rng.standard_normal(4 * vol * 18, dtype=np.float32)
            chi = rng.standard_normal(vol * 6, dtype=np.float32)
            out = np.zeros(vol * 6, np.float32)
            if kern == "dslash_masked":
                return [U, chi, out, np.int32(L), np.int32(fm), np.int32(bm)]
            return [U, out, np.int32(L)]
        probe = TimingProbe(f"dslash/{case}", "dslash", kern, vol, 256, lambda m, vol=vol: -(-vol // 256), args,
                            source=str(src), shared=mb.SMEM.get(case, 0))
        res = emulate(probe, vol)[0]
        p = timing.predict_result(res, prof)
        ms = meas.get(case, float("nan"))
        comp = " ".join(f"{k}={v:.0f}" for k, v in p.components_us.items() if v >= 1)
        m = res.metrics
        hit = 1 - m["simt__l2_lines_ld.sum"] / max(1, m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"])
        print(f"{case:8s} {ms:8.4f} {p.ms:8.4f} {p.ms / ms:6.2f}  {p.bound:9s} L2 lines {m['simt__l2_lines_ld.sum'] / 1e6:5.1f} M"
              f"  L1 share {hit:.3f}  {comp}", flush=True)


if __name__ == "__main__":
    main()
