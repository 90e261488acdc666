"""simt's predictions for the hloop and hconv sweeps against their measured times, both
GPUs (no GPU):  python docs/results/timing_investigation/hloop/predict.py > predicted.txt
Warm runs only (the model's --real timing: buffers restored, caches as the last run left
them); grids sampled as simt run samples them."""
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
import simt  # noqa: E402
from simt import timing  # noqa: E402
from kernels_cuda.backend import auto_sample  # noqa: E402


def code_of(script: str) -> str:
    """The CUDA source a microbenchmark script builds (its text up to the --src exit)."""
    text = (HERE / script).read_text().split('if sys.argv[1:2] == ["--src"]')[0]
    ns: dict = {"__file__": str(HERE / script)}
    exec(text.replace("import cupy as cp\n", "").replace("from kernels_cuda.cupy_backend import time_gpu", ""), ns)
    return ns["code"]


def measured(stem: str, g: str) -> dict:
    return {(r["mode"], r.get("n", 1 << 24), r["grid"]): r["ms"]
            for r in map(json.loads, open(HERE / f"{stem}_{g}.jsonl")) if "grid" in r and not r["flushed"]}


X = np.random.default_rng(0).random(1 << 24, dtype=np.float32).astype(np.float16)
profs = {g: timing.load_profile(g) for g in ("h100", "h200")}
print("kernel        n         grid   bound         H100 pred   meas  ratio   H200 pred   meas  ratio")
for stem, prefix, script in (("hloop", "hl_", "hloop_mb.py"), ("hconv", "hc_", "hconv_mb.py")):
    mod = simt.Module.from_source(code_of(script), f"{stem}.cu")
    meas = {g: measured(stem, g) for g in profs}
    for (mode, n, grid) in meas["h100"]:
        dev = simt.Device()
        out = dev.zeros(256, np.uint32) if stem == "hloop" else dev.zeros(1056 * 256, np.float32)
        args = [dev.to_device(X[:n]), out, np.int32(n)]
        fn, cfg = mod.get_function(prefix + mode), simt.LaunchConfig.of(grid, 256)
        res = fn.launch(dev, cfg, args, sanitize=False, sample_blocks=auto_sample(cfg, fn))
        row = f"{prefix + mode:12s} {n:9d} {grid:5d}"
        for g, prof in profs.items():
            p = timing.predict_result(res, prof)
            m = meas[g][(mode, n, grid)]
            if g == "h100":
                row += f"   {p.bound:12s}"
            row += f"   {p.ms:.4f} {m:.4f} {p.ms / m:6.2f}"
        print(row, flush=True)
