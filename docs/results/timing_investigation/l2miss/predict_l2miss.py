"""The model against the l2miss sweep: every case of ``l2miss_mb.py`` emulated (sampled as
``timing_check`` samples) and predicted with the committed h100 and h200 profiles, beside
the times ``l2miss_GPU.jsonl`` recorded.  The profiles' three parameters for tables touched
at random (``l2_reuse_bytes``, ``dram_random_eff``, ``dram_rewrite_cost``) come from three
calibrate microbenchmarks (a gather over 64 and 256 MiB, reductions over 256 MiB), not
from this sweep.  python docs/results/timing_investigation/l2miss/predict_l2miss.py > predicted.md"""
import json
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
from kernels_cuda.backend import EmulatorBackend      # noqa: E402
from kernels_cuda.timing_check import SAMPLE_THREADS  # noqa: E402
from simt import timing                               # noqa: E402

src = re.search(r"SRC = r'''(.*?)'''", (HERE / "l2miss_mb.py").read_text(), re.S).group(1)
cu = Path(tempfile.mkdtemp()) / "l2miss.cu"
cu.write_text(src)
meas = {}
for g in ("h100", "h200"):
    for line in (HERE / f"l2miss_{g}.jsonl").read_text().splitlines():
        r = json.loads(line)
        if "kernel" in r:
            meas[(g, r["kernel"], r["table_mib"], r["n"])] = r["ms"]
profs = {g: timing.load_profile(g) for g in ("h100", "h200")}
print("| kernel | table MiB | n | H100 measured ms | predicted | ratio | H200 measured ms | predicted | ratio |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
ratios = []
for (g, kernel, mib, n) in sorted(k for k in meas if k[0] == "h100"):
    rng = np.random.default_rng(0)
    idx = rng.integers(0, mib << 18, n).astype(np.int32)
    be = EmulatorBackend(sanitize=False, sample_blocks=SAMPLE_THREADS // 256)
    be.launch(str(cu), kernel, n // 256, 256, [be.to_device(idx), be.zeros(mib << 18, np.uint32), np.int32(n)])
    cells = []
    for gg in ("h100", "h200"):
        p = timing.predict_result(be.launches[-1], profs[gg]).ms
        m = meas[(gg, kernel, mib, n)]
        ratios.append(p / m)
        cells += [f"{m:.4f}", f"{p:.4f}", f"{p / m:.2f}"]
    print(f"| {kernel} | {mib} | 2^{n.bit_length() - 1} | " + " | ".join(cells) + " |", flush=True)
print(f"\n{sum(1 / 1.5 <= r <= 1.5 for r in ratios)} of {len(ratios)} within 1.5x; "
      f"ratios {min(ratios):.2f}-{max(ratios):.2f}, median {float(np.median(ratios)):.2f}")
