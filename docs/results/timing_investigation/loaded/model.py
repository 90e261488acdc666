"""The timing model against dep.cu's measurements (no GPU: emulates every configuration
of dep.py, sampled, and predicts it with simt's profiles).

python docs/results/timing_investigation/loaded/model.py [h100|h200 ...]"""
import json
import sys
from pathlib import Path

import numpy as np

from kernels_cuda.backend import EmulatorBackend
from simt import timing

HERE = Path(__file__).resolve().parent
N = 1 << 24
B = 256
SMEM = 233472


def args_for(be, k, rec):
    ident = np.arange(N, dtype=np.int32)
    if k.startswith(("k_chain", "k_indep")):   # (k_chainload too)
        return [be.to_device(np.concatenate([ident] * 4)), be.zeros(N, np.int32), np.int32(N)]
    v = be.zeros(N + 1, np.int32)
    if k == "k_rmw":
        return [v, np.int32(N), np.int32(rec["off"])]
    if k == "k_ctl":
        t = np.zeros(N, np.int32) if rec["t"] == "zero" else \
            np.random.default_rng(4).integers(0, 2, N).astype(np.int32)
        return [be.to_device(t), v, np.int32(N), np.int32(rec["off"])]
    if k == "k_dep":
        return [be.to_device(ident + rec["off"]), v, np.int32(N)]
    if k == "k_case3":
        return [be.to_device(np.random.default_rng(4).integers(0, 2, N).astype(np.int32)), v, np.int32(N)]
    raise KeyError(k)


def _records(path):
    return [r for r in map(json.loads, open(path)) if "k" in r] if path.exists() else []


def main(gpus):
    profs = {g: timing.load_profile(g) for g in gpus}
    meas = {g: {json.dumps({k: v for k, v in r.items() if k != "ms"}, sort_keys=True): r["ms"]
                for f in ("dep", "dep2") for r in _records(HERE / f"{f}_{g}.jsonl")} for g in gpus}
    recs = _records(HERE / f"dep_{gpus[0]}.jsonl") + _records(HERE / f"dep2_{gpus[0]}.jsonl")
    for rec in recs:
        bpsm, block = rec.get("bpsm", 2048 // rec.get("block", B)), rec.get("block", B)
        shm = 0 if bpsm >= 2048 // block else max(0, min(SMEM // bpsm - 1024 - 1, 227 * 1024))
        be = EmulatorBackend(sanitize=False, sample_blocks=64 * B // block)
        be.launch(str(HERE / "dep.cu"), rec["k"], N // block, block, args_for(be, rec["k"], rec), shm)
        res = be.launches[-1]
        key = json.dumps({k: v for k, v in rec.items() if k != "ms"}, sort_keys=True)
        tag = " ".join(f"{k}={rec[k]}" for k in ("depth", "off", "t", "block") if k in rec)
        line = f"{rec['k']:12s} {tag:16s} bpsm={bpsm:<2d}"
        for g, prof in profs.items():
            if key not in meas[g]:
                continue
            p = timing.predict(res.metrics, N // block, block, shm, prof)
            m = meas[g][key]
            c = p.components_us
            line += f" | {g} {m * 1e3:7.1f} pred {p.ms * 1e3:7.1f} {p.ms / m:5.2f} lat {c['latency']:6.1f} dram {c['dram']:5.1f}"
        print(line, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["h100", "h200"])
