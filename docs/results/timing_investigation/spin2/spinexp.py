"""Shared-memory CAS loops whose word moves on each trip (session 50).  From the
repository root, no GPU:

    python docs/results/timing_investigation/spin2/spinexp.py MODE ID ...

emulates each probe at its measured size under one rule for the block's other warps on
a word (counters.spin_passes) and prints its shared-load wavefronts, CAS wavefronts,
shared loads, and its H200 prediction against the committed measurement:

    nocross   no other warp loses a pass (the rule before session 24's spin/)
    full      every warp of the block on the word together, every trip ((W + 1) / 2)
    drift     the model: warps whose lanes share a word that moves on each trip drift
              apart (counters.DRIFT_WARPS)"""
import json
import sys

import numpy as np

from kernels_cuda import timing_check
from simt import counters as C, machine, timing

mode = sys.argv[1]
if mode == "nocross":
    C._cross_warp_passes = lambda off2d, act2d, size, blocks, steady=None: np.zeros(off2d.shape[0])
elif mode == "full":
    machine._spin_steady = lambda m, pc, warps, mat, act, size, commit: np.ones(len(mat), bool)
elif mode != "drift":
    raise SystemExit(f"unknown mode {mode!r}: nocross, full or drift")
prof = timing.load_profile("h200")
meas = json.load(open("docs/results/timing_probes_measured_h200.json"))["entries"]
for eid in sys.argv[2:]:
    n = list(meas[eid])[0]
    r = timing_check.emulate(timing_check._entry(eid), int(n))
    m = r[0].metrics
    ms = sum(timing.predict_result(L, prof).ms for L in r)
    want = meas[eid][n]["total_ms"]
    print(f"{mode:8s} {eid}: LD wavefronts {m.get(C.WAVES_LD, 0) / 1e6:.1f} M, CAS wavefronts "
          f"{m.get(C.WAVES_ATOM, 0) / 1e6:.1f} M, shared loads {m.get(C.SHARED_LD, 0) / 1e6:.1f} M; "
          f"predicted {ms:.4f} ms, measured {want:.4f}, ratio {ms / want:.2f}", flush=True)
