"""The timing model against size_<gpu>.jsonl: each copy shape of size.cu emulated at each
size (sampled as `simt run` samples: grids of more than 2^22 threads) and predicted with
the GPU's profile.  Runs here, no GPU:
python docs/results/timing_investigation/dram_size/model.py h200 [h100]"""
import json
import sys
from pathlib import Path
import numpy as np
from simt import timing
from kernels_cuda.backend import EmulatorBackend

HERE = Path(__file__).parent
SRC = str(HERE / "size.cu")
SMS = 132


def launch(name, mib):
    n = mib << 18
    n4 = n // 4
    shapes = {
        "grid_copy": ((SMS * 32,), (256,)),
        "elem_copy": ((n // 256,), (256,)),
        "tile_copy": ((n // 4096,), (256,)),
        "ticket_copy": ((n // 4096,), (256,)),
    }
    grid, block = shapes[name]
    be = EmulatorBackend(seed=0, sanitize=False, sample_blocks="auto")
    a = be.to_device(np.ones(n, np.float32))
    b = be.zeros(n, np.float32)
    t = be.zeros(1, np.int32)
    args = {"grid_copy": [a, b, np.int32(n4)], "elem_copy": [a, b, np.int32(n)],
            "tile_copy": [a, b, np.int32(n4)], "ticket_copy": [a, b, t, np.int32(n4)]}[name]
    be.launch(SRC, name, grid, block, args)
    return be.launches[-1]


def main(gpus):
    meas = {}
    for g in gpus:
        for line in (HERE / f"size_{g}.jsonl").read_text().splitlines():
            r = json.loads(line)
            if r.get("harness") == "restore":
                meas[(g, r["kernel"], r["mib"])] = r["ms"]
    profs = {g: timing.load_profile(g) for g in gpus}
    print(f"{'kernel':12s} {'MiB':>4s} " + " ".join(f"{g + ' meas us':>13s} {'pred':>7s} {'ratio':>5s} {'bound':>8s}" for g in gpus))
    for name in ("grid_copy", "elem_copy", "tile_copy", "ticket_copy"):
        for mib in sorted({k[2] for k in meas if k[1] == name}):
            res = launch(name, mib)
            cols = []
            for g in gpus:
                p = timing.predict_result(res, profs[g])
                m = meas.get((g, name, mib))
                cols.append(f"{m * 1e3:13.2f} {p.ms * 1e3:7.2f} {p.ms / m:5.2f} {p.bound:>8s}")
            print(f"{name:12s} {mib:4d} " + " ".join(cols), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["h200"])
