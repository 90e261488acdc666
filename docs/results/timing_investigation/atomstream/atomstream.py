"""atomstream.cu on CuPy: 2^24 threads in blocks of 256, medians of 9 CUDA-event timings
(the counters zeroed before each); with --emulate, simt's h200 prediction of each launch.
Prints JSON lines.  From the repository root:
    python docs/results/timing_investigation/atomstream/atomstream.py [--emulate]"""
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
N = 1 << 24
SMAX = 8
CASES = [(pat, S, 0) for pat in range(7) for S in (0, 2, 8)] + [(pat, 8, 1) for pat in (1, 3, 4)]
CASES = [c for c in CASES if c != (0, 0, 0)]


def _inputs(xp):
    a = xp.ones(SMAX * N, xp.float32)
    return a, xp.zeros(N, xp.float32), xp.zeros(1 << 24, xp.int32), xp.zeros(4096, xp.float32)


def gpu():
    import cupy as cp
    k = cp.RawModule(code=(HERE / "atomstream.cu").read_text()).get_function("atomstream")
    a, out, c, cf = _inputs(cp)
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    for pat, S, before in CASES:
        ts = []
        for _ in range(10):
            c.fill(0); cf.fill(0)
            e0.record()
            k((N // 256,), (256,), (a, out, c, cf, np.int32(S), np.int32(pat), np.int32(before), np.int32(N)))
            e1.record(); e1.synchronize()
            ts.append(cp.cuda.get_elapsed_time(e0, e1))
        print(json.dumps({"pat": pat, "S": S, "before": before, "ms": float(np.median(ts[1:]))}), flush=True)


def emulated(only=None):
    import simt
    from simt import timing
    mod = simt.Module.from_file(str(HERE / "atomstream.cu"))
    prof = timing.load_profile("h200")
    for pat, S, before in CASES:
        if only and (pat, S, before) not in only:
            continue
        dev = simt.Device()
        a = dev.to_device(np.ones(SMAX * N, np.float32))
        out, c, cf = dev.zeros(N, np.float32), dev.zeros(1 << 24, np.int32), dev.zeros(4096, np.float32)
        res = mod.get_function("atomstream").launch(
            dev, simt.LaunchConfig.of(N // 256, 256),
            [a, out, c, cf, np.int32(S), np.int32(pat), np.int32(before), np.int32(N)],
            sanitize=False, sample_blocks=512)
        p = timing.predict_result(res, prof)
        comp = {k: round(v, 1) for k, v in sorted(p.components_us.items(), key=lambda kv: -kv[1])[:5]}
        print(json.dumps({"pat": pat, "S": S, "before": before, "predicted_ms": round(p.ms, 4),
                          "bound": p.bound, "components_us": comp}), flush=True)


if __name__ == "__main__":
    emulated() if "--emulate" in sys.argv else gpu()
