"""simt's predictions for l1unif.py's cases beside what the H100 measured
(l1unif_h100.jsonl): python docs/results/timing_investigation/l1unif/predict.py [GPU].
Each case is emulated as the timing tables are (kernels_cuda.timing_check.emulate); a
per-trip figure is the difference between m = 1024 and m = 256, as l1unif.py takes it."""
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
sys.path.insert(0, str(HERE))
from kernels_cuda.timing_check import emulate  # noqa: E402
from kernels_cuda.timing_probes import TimingProbe  # noqa: E402
from simt import timing  # noqa: E402

SRC = str(HERE / "l1unif.cu")


def main():
    gpu = sys.argv[1] if len(sys.argv) > 1 else "h100"
    prof = timing.load_profile(gpu)
    ghz = prof.clock_ghz if hasattr(prof, "clock_ghz") else prof["clock_ghz"]
    meas = [json.loads(x) for x in (HERE / f"l1unif_{gpu}.jsonl").read_text().splitlines()]
    rng = np.random.default_rng(0)

    def pred(kernel, nq, block, args):
        p = TimingProbe(f"l1unif/{kernel}", "l1unif", kernel, nq, block, lambda n, b=block: n // b,
                        lambda n, rng, a=args: a, source=SRC)
        return timing.predict_result(emulate(p, nq)[0], prof).ms

    for r in meas:
        if r["kernel"] == "uchase":
            length = r["table_ints"]
            perm = rng.permutation(length)
            nxt = np.empty(length, np.int32)
            nxt[perm] = np.roll(perm, -1)
            t = {s: pred("uchase", 32, 32, [nxt, np.zeros(32, np.int32), np.int32(s)]) for s in (1024, 4096)}
            per = (t[4096] - t[1024]) * 1e6 / 3072
            print(f"uchase                    GPU {r['ns_per_step'] * ghz:6.0f} cycles a step, simt {per * ghz:6.0f}")
            continue
        nq, block = r["nq"], r["block"]
        qs = np.random.default_rng(1).random(2 * nq, dtype=np.float32)
        if r["kernel"] == "dep_loop":
            pts = np.random.default_rng(2).random(2048, dtype=np.float32)
            p = pred("dep_loop", nq, block, [pts, qs, np.zeros(nq, np.float32), np.int32(1024), np.int32(nq)])
            print(f"dep_loop   block {block:4d}      GPU {r['ms']:.4f} ms, simt {p:.4f}  ({p / r['ms']:.2f})")
            continue
        pts = sets(r["points"])
        t = {mm: pred("knn_top8", nq, block, [pts, qs, np.zeros(nq * 8, np.int32), np.int32(mm), np.int32(nq)])
             for mm in (256, 1024)}
        per = (t[1024] - t[256]) * 1e6 / 768
        print(f"knn {r['points']:7s} block {block:4d}  GPU {r['ns_per_trip'] * ghz:6.0f} cycles a trip, "
              f"simt {per * ghz:6.0f}; m=1024: GPU {r['ms_1024']:.4f} ms, simt {t[1024]:.4f} ({t[1024] / r['ms_1024']:.2f})")


def sets(name, m=1024):
    rng = np.random.default_rng(3)
    if name == "random":
        return rng.random(2 * m, dtype=np.float32)
    if name == "far":
        far = np.full((m, 2), 1e6, np.float32)
        far[:8] = rng.random((8, 2), dtype=np.float32)
        return far.ravel()
    closer = np.zeros((m, 2), np.float32)
    closer[:, 0] = 1e4 - np.arange(m, dtype=np.float32) * 4.0
    return closer.ravel()


if __name__ == "__main__":
    main()
