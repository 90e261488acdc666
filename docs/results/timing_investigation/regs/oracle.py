"""What a perfect register estimate would give the H200 probe table (session 64): each
row predicted again from its committed counters with simt__registers_per_thread.max
replaced by nvcc's count (``../unseen*/probes*_res.txt``), emulating nothing.  Runs here,
no GPU:
python docs/results/timing_investigation/regs/oracle.py > docs/results/timing_investigation/regs/oracle.txt

An approximation: the emulation itself depends on the blocks an SM holds (L1's share, the
window of blocks), which this leaves as the estimate had them."""
import glob
import json
import re
from pathlib import Path

import numpy as np

from kernels_cuda import timing_probes as tp
from simt import timing

nv = {}
for res in sorted(glob.glob("docs/results/timing_investigation/*/probes*_res.txt")):
    f = Path(res).name.replace("_res.txt", ".cu")
    for m in re.finditer(r"Function (\w+):\n\s*REG:(\d+)", Path(res).read_text()):
        nv.setdefault((f, m.group(1)), int(m.group(2)))
src = {e.id: Path(e.source).name for e in tp.entries()}
prof = timing.load_profile("h200")
rows = []
for r in json.loads(Path("docs/results/timing_probes_h200.json").read_text())["rows"]:
    if "error" in r or not r.get("measured_ms"):
        continue
    ms, regs, known = 0.0, [], True
    for lt in r["launches"]:
        k = (src.get(r["id"]), lt["kernel"].split("<")[0])
        if k not in nv:
            known = False
            break
        m = dict(lt["metrics"])
        regs.append((int(m["simt__registers_per_thread.max"]), nv[k]))
        m["simt__registers_per_thread.max"] = nv[k]
        ms += timing.predict(m, lt["grid_blocks"], lt["threads_per_block"], lt["shared_bytes"], prof).ms
    if known:
        rows.append((r["id"], r["ratio"], ms / r["measured_ms"], regs))


def inb(x):
    return 1 / 1.5 <= x <= 1.5


print(f"{len(rows)} H200 probe rows whose kernels have nvcc's count")
print(f"within 1.5x: the estimate {sum(inb(o[1]) for o in rows)}, nvcc's count {sum(inb(o[2]) for o in rows)}")
print(f"mean |log ratio|: the estimate {np.mean([abs(np.log(o[1])) for o in rows]):.4f},"
      f" nvcc's count {np.mean([abs(np.log(o[2])) for o in rows]):.4f}")
moved = sorted((o for o in rows if abs(np.log(o[2] / o[1])) > 0.05), key=lambda o: abs(np.log(o[2])) - abs(np.log(o[1])))
print(f"moved by more than 5%: {len(moved)}, closer {sum(abs(np.log(o[2])) < abs(np.log(o[1])) for o in moved)}")
print()
print(f"{'probe':44s} {'ratio':>6s} {'nvcc':>6s}  (estimate, nvcc) registers")
for o in moved:
    print(f"{o[0]:44s} {o[1]:6.2f} {o[2]:6.2f}  {o[3]}")
