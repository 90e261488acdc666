"""Put the rows emulate_rows.py wrote (JSON lines; a later file's row wins) into the
committed tables, keeping each row's emulate_s, and write their markdown with the
command their headers name.  From the repository root:

    python docs/results/timing_investigation/repredict/merge_rows.py A.jsonl [B.jsonl ...]"""
import json, sys
from pathlib import Path
from kernels_cuda import timing_check

import repredict                         # (beside this file: its write)
R = Path("docs/results")
new = {}
for f in sys.argv[1:]:
    for l in open(f):
        d = json.loads(l)
        for g, r in d["rows"].items():
            new[(g, d["id"], d["n"])] = r
for stem, g in (("timing_probes_h200", "h200"), ("timing_probes_h100", "h100"), ("timing_h200", "h200"), ("timing_h100", "h100")):
    tab = json.loads((R / f"{stem}.json").read_text())
    k = 0
    for i, r in enumerate(tab["rows"]):
        key = (g, r["id"], r["n"])
        if key in new:
            e = r.get("emulate_s", 0)
            tab["rows"][i] = dict(new[key]); tab["rows"][i]["emulate_s"] = e; k += 1
    tab["order"] = timing_check.order_check(tab["rows"])
    print(stem, k, "rows replaced;", repredict.write(stem, tab))
