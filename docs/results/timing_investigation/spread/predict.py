"""simt's side of spread.py: the predicted time of each (variant, region) on both GPUs
beside spread_<gpu>.jsonl's measurement.

python docs/results/timing_investigation/spread/predict.py"""
import json
from pathlib import Path
import numpy as np
from kernels_cuda.backend import EmulatorBackend
from kernels_cuda.timing_check import SAMPLE_THREADS
from simt import timing

HERE = Path(__file__).resolve().parent
SRC = str(HERE / "spread.cu")
N = 1 << 24


def main():
    profs = {g: timing.load_profile(g) for g in ("h100", "h200")}
    meas = {}
    for g in profs:
        for line in (HERE / f"spread_{g}.jsonl").read_text().splitlines()[1:]:
            r = json.loads(line)
            meas[(g, r["k"], r["words"])] = r["ms"]
    print("| kernel | region | H100 ms | simt | ratio | H200 ms | simt | ratio | H100 / H200 measured |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in ("spread_rnd", "spread_line"):
        for words in [1 << k for k in range(8, 25, 2)]:
            be = EmulatorBackend(seed=0, sanitize=False, sample_blocks=SAMPLE_THREADS // 256)
            bins = be.zeros(words, np.uint32)
            be.launch(SRC, name, N // 256, 256, [bins, np.uint32(words - 1), np.int32(N)])
            r = be.launches[-1]
            row = [name, f"{words * 4 // 1024} KiB"]
            for g, prof in profs.items():
                p = timing.predict_result(r, prof).ms
                m = meas[(g, name, words)]
                row += [f"{m:.4f}", f"{p:.4f}", f"{p / m:.2f}"]
            row.append(f"{meas[('h100', name, words)] / meas[('h200', name, words)]:.2f}")
            print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
