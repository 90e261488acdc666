"""simt's side of barred.py: per kernel and block size, the emulator's cycles a trip for
one block alone (simt__block_cycles.mean at 400 trips less at 200, over 200) and for a
block at full occupancy (the predicted time of the launch at 1000 trips, less the launch
overhead, at the profile's clock, over 1000), beside barred_h100.jsonl's clock64 cycles.
(Its CUDA-event times are not compared: five short launches after an idle GPU ran at a
lower clock than the profile's.)

python docs/results/timing_investigation/barred/predict.py [h100]"""
import json
import sys
from pathlib import Path
import numpy as np
from kernels_cuda.backend import EmulatorBackend
from simt import timing

HERE = Path(__file__).resolve().parent
SRC = str(HERE / "barred.cu")
KERNELS = ("k_bar", "k_count", "k_or", "k_count_exit", "k_jac", "k_jac_bar")


def launch(name, grid, block, trips):
    be = EmulatorBackend(seed=0, sample_blocks="auto")
    n = grid * block
    if name.startswith("k_jac"):
        args = [be.to_device(np.full(n, 1e-3, np.float32)), be.zeros(n, np.float32), be.zeros(grid, np.int64),
                np.int32(trips)]
        shm = (block + 2) * 4
    else:
        args = [be.zeros(grid, np.int32), be.zeros(grid, np.int64), np.int32(trips)]
        shm = 0
    be.launch(SRC, name, grid, block, args, shm)
    return be.launches[-1]


def main(gpu="h100"):
    prof = timing.load_profile(gpu)
    meas = {}
    f = HERE / f"barred_{gpu}.jsonl"
    if f.exists():
        for line in f.read_text().splitlines()[1:]:
            r = json.loads(line)
            meas[(r["k"], r["block"], r["grid"] > 1)] = r
    print(f"{'kernel':14} {'block':>5} {'alone sim':>9} {'alone GPU':>9} {'ratio':>6} {'full sim':>8} {'full GPU':>8} "
          f"{'ratio':>6}  bound")
    for block in (64, 256, 1024):
        for k in KERNELS:
            c = [launch(k, 1, block, t).metrics["simt__block_cycles.mean"] for t in (200, 400)]
            per = (c[1] - c[0]) / 200
            grid = prof.sm_count * (2048 // block)
            p = timing.predict_result(launch(k, grid, block, 1000), prof)
            a, fm = meas.get((k, block, False), {}), meas.get((k, block, True), {})
            full = (p.ms * 1e3 - prof.launch_us) * prof.clock_ghz * 1e3 / 1000
            ga, gf = a.get("cycles_per_trip", float("nan")), fm.get("cycles_per_trip", float("nan"))
            print(f"{k:14} {block:5} {per:9.1f} {ga:9.1f} {per / ga:6.2f} {full:8.1f} {gf:8.1f} {full / gf:6.2f}  "
                  f"{p.bound}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
