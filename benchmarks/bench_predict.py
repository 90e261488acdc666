"""How long a 2^24-element histogram launch takes to predict, against issue 6's 10 s target.

    python benchmarks/bench_predict.py [--n N] [--runs R] [--gpu NAME] [ID ...]

For each ``histogram/*`` catalog id (or the ids given), runs the command a user runs,
``simt run ID --n N --gpu NAME --json``, as a fresh process ``--runs`` times (3) and prints
the median whole-process wall time (Python start-up, input generation, emulation and the
prediction), its ratio to the 10 s anchor, the median of the run's own ``elapsed_s`` and
emulated ``wall_s`` (so start-up and input generation can be told apart from the
emulation), and the predicted milliseconds, which must not change from run to run.  The
load average at start is printed: this is a shared 2-core machine, so quote medians and
run it quiet.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 10.0


def one(eid: str, n: int, gpu: str) -> dict:
    cmd = [sys.executable, "-c", "import sys; from tui.cli import main; sys.exit(main())",
           "run", eid, "--n", str(n), "--gpu", gpu, "--json"]
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - t
    if out.returncode not in (0, 1):       # 1: the run's result is wrong (an expected bug)
        raise SystemExit(f"{' '.join(cmd[3:])} failed ({out.returncode}):\n{out.stderr}")
    js = json.loads(out.stdout)
    return {"wall": wall, "elapsed": js["elapsed_s"],
            "emulated": sum(x["wall_s"] for x in js["launches"]), "ms": js["predicted_ms"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ids", nargs="*")
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--gpu", default="h200")
    a = ap.parse_args(argv)
    if not a.ids:
        sys.path.insert(0, str(ROOT))
        from kernels_cuda import catalog
        a.ids = [e.id for e in catalog.entries() if e.family == "histogram"]
    print(f"n = {a.n}, --gpu {a.gpu}, {a.runs} runs each; load average {os.getloadavg()[0]:.2f}, "
          f"{os.cpu_count()} CPUs; target {TARGET_S:.0f} s per prediction")
    print(f"{'id':32} {'wall s':>7} {'ratio':>6} {'max s':>6} {'elapsed':>8} {'emulated':>9} "
          f"{'predicted ms':>13}")
    worst = 0.0
    for eid in a.ids:
        rs = [one(eid, a.n, a.gpu) for _ in range(a.runs)]
        wall = statistics.median(r["wall"] for r in rs)
        worst = max(worst, wall)
        ms = {r["ms"] for r in rs}
        print(f"{eid:32} {wall:7.2f} {wall / TARGET_S:6.2f} {max(r['wall'] for r in rs):6.2f} "
              f"{statistics.median(r['elapsed'] for r in rs):8.2f} "
              f"{statistics.median(r['emulated'] for r in rs):9.2f} "
              f"{', '.join(f'{m:.4f}' for m in sorted(ms)):>13}", flush=True)
    print(f"slowest median: {worst:.2f} s -> {worst / TARGET_S:.2f}x of the {TARGET_S:.0f} s target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
