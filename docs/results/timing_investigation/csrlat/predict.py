"""simt's prediction for cases.CASES: python predict.py GPU > predicted_GPU.jsonl"""
import json
import sys

from kernels_cuda.backend import EmulatorBackend
from simt import timing
from cases import CASES, run

prof = timing.load_profile(sys.argv[1] if len(sys.argv) > 1 else "h100")
for name, R, L, X, g in CASES:
    be = EmulatorBackend(seed=0, policy="lockstep", sanitize=False)
    run(be, name, R, L, X, g)
    r = be.launches[0]
    p = timing.predict_result(r, prof)
    m = r.metrics
    print(json.dumps({"case": name, "ms": p.ms, "bound": p.bound, "comp": p.components_us,
                      "block_cycles_max": m.get("simt__block_cycles.max"),
                      "l1_lines": m.get("simt__l1_lines_ld.sum"),
                      "l2_lines": m.get("simt__l2_lines_ld.sum")}), flush=True)
