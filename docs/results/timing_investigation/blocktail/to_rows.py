"""The screen's launches (tail_h200.jsonl.gz, emulated on the GPU machine) as rows of the
H200 probe table, in emulate_rows.py's format, for the ids given: merge_rows.py puts them
in the table.  Session 66 used it for brandes-level-double, whose committed counters came
from inputs generated on another CPU (README.md, "Found on the way"):

    python docs/results/timing_investigation/blocktail/to_rows.py probe/brandes-level-double > R.jsonl
    cd docs/results/timing_investigation/repredict && python merge_rows.py ../../../../R.jsonl
"""
import gzip, json, sys
from pathlib import Path

from simt import timing

prof = timing.load_profile("h200")
tab = {r["id"]: r for r in json.loads(Path("docs/results/timing_probes_h200.json").read_text())["rows"]}
for line in gzip.open(Path(__file__).parent / "tail_h200.jsonl.gz", "rt"):
    d = json.loads(line)
    if d["id"] not in sys.argv[1:]:
        continue
    old = tab[d["id"]]
    assert old["n"] == d["n"] and len(old["launches"]) == len(d["launches"])
    launches, total = [], 0.0
    for L, o in zip(d["launches"], old["launches"]):
        p = timing.predict(L["metrics"], L["grid_blocks"], L["threads_per_block"], L["shared_bytes"], prof)
        total += p.ms
        launches.append({"kernel": L["kernel"], "measured_ms": o["measured_ms"], "predicted_ms": p.ms,
                         "grid_blocks": L["grid_blocks"], "threads_per_block": L["threads_per_block"],
                         "shared_bytes": L["shared_bytes"], "bound": p.bound, "components_us": p.components_us,
                         "sampled_blocks": L["sampled_blocks"], "total_blocks": L["grid_blocks"],
                         "metrics": L["metrics"]})
    row = {"id": d["id"], "family": old["family"], "n": d["n"], "measured_ms": old["measured_ms"],
           "predicted_ms": total, "ratio": total / old["measured_ms"], "launches": launches}
    print(json.dumps({"id": d["id"], "n": d["n"], "rows": {"h200": row}}))
