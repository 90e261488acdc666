"""Replay every one-warp measurement in this folder with simt's atomic sector rule.

    python docs/results/atomic_sectors_probe/check_rule.py

Each measured launch is one warp doing ``atomicAdd(&c[idx[lane]], 1)`` (idx < 0: lane
off) on an int array at a 2 KiB-aligned start (CuPy); ncu's
``l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum`` is compared with
``simt.counters.l1_atomic_passes`` and with the old per-sector rule.
"""
from __future__ import annotations

import csv
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from simt.counters import l1_atomic_passes  # noqa: E402

SECT = "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"


def ncu_sectors(path: Path) -> list[int]:
    lines = path.read_text().splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.startswith('"ID"'))
    return [int(r["Metric Value"]) for r in csv.DictReader(lines[head:]) if r["Metric Name"] == SECT]


def old_rule(idx) -> int:
    per = defaultdict(Counter)
    for i in idx:
        if i >= 0:
            per[i // 8][i] += 1
    return sum(max(c.values()) for c in per.values())


def new_rule(idx) -> int:
    return l1_atomic_passes([4 * i for i in idx if i >= 0])


def cases():
    d = np.load(HERE / "data.npy")
    meas = ncu_sectors(HERE / "ncu_w1.csv")
    for w, m in enumerate(meas):
        yield "histogram warps", [int(x) for x in d[32 * w: 32 * w + 32]], m
    for tests, raw in [("probe2_A.json", "ncu_probe2_A.csv"), ("probe2_B.json", "ncu_probe2_B.csv"),
                       ("probe3_1.json", "ncu_probe3_1.csv"), ("probe3_2.json", "ncu_probe3_2.csv"),
                       ("probe3_3.json", "ncu_probe3_3.csv")]:
        t = json.loads((HERE / tests).read_text())
        meas = ncu_sectors(HERE / raw)
        assert len(t) == len(meas), (tests, len(t), len(meas))
        for (name, idx), m in zip(t, meas):
            yield tests.split(".")[0], idx, m


def main():
    tot = Counter()
    for group, idx, m in cases():
        tot[group, "n"] += 1
        tot[group, "old"] += old_rule(idx) == m
        tot[group, "new"] += new_rule(idx) == m
    print(f"{'measurements':<16} {'count':>6} {'old rule':>9} {'new rule':>9}")
    for g in dict.fromkeys(k[0] for k in tot):
        print(f"{g:<16} {tot[g, 'n']:>6} {tot[g, 'old']:>9} {tot[g, 'new']:>9}")


if __name__ == "__main__":
    main()
