"""How the committed tables fare as the components combine with other exponents p.

From the repository root, no GPU:

    python docs/results/timing_investigation/pnorm/scan.py

For each p, re-predicts every row of docs/results/timing_{h100,h200}.json and
timing_probes_{h100,h200}.json from the counters it recorded (timing.predict with the
profile's combine_p set to p) and prints, per table: rows within 1.5x, orderings right
(family pairs measured more than 25% apart), the median and the root-mean-square of
ln(predicted / measured).  "joined" is timing.combine as committed (DRAM joins the
critical paths as the larger of the two before the p-norm); "all" puts DRAM in the
p-norm beside them."""
import collections
import itertools
import json
import math
import statistics
from pathlib import Path

from simt import timing

R = Path("docs/results")
TABLES = [("timing_h200", "h200"), ("timing_h100", "h100"),
          ("timing_probes_h200", "h200"), ("timing_probes_h100", "h100")]
_joined = timing.combine


def _all(comp, prof):
    vals = list(comp.values())
    return timing.pnorm(vals, prof.combine_p) if prof.combine_p > 0 else max(vals)


def score(stem, gpu, p):
    prof = timing.load_profile(gpu)
    prof.combine_p = p
    out = {}
    for r in json.loads((R / f"{stem}.json").read_text())["rows"]:
        if "error" in r or not r.get("measured_ms"):
            continue
        ms = sum(timing.predict(lt["metrics"], lt["grid_blocks"], lt["threads_per_block"],
                                lt["shared_bytes"], prof).ms for lt in r["launches"])
        out[r["id"], r["n"]] = (r["family"], r["measured_ms"], ms)
    within = sum(1 for f, m, pr in out.values() if 1 / 1.5 <= pr / m <= 1.5)
    fam = collections.defaultdict(list)
    for (_, n), (f, m, pr) in out.items():
        fam[f, n].append((m, pr))
    good = pairs = 0
    for v in fam.values():
        for (m1, p1), (m2, p2) in itertools.combinations(v, 2):
            if max(m1, m2) / min(m1, m2) > 1.25:
                pairs += 1
                good += (m1 > m2) == (p1 > p2)
    lg = [math.log(pr / m) for f, m, pr in out.values()]
    return (f"{within}/{len(out)} {good}/{pairs} med {statistics.median(lg):+.3f} "
            f"rms {math.sqrt(sum(x * x for x in lg) / len(lg)):.3f}")


def main():
    print("| DRAM | p | " + " | ".join(s for s, _ in TABLES) + " |")
    print("|---|---:|" + "---|" * len(TABLES))
    for name, fn in (("all", _all), ("joined", _joined)):
        timing.combine = fn
        for p in (0.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0):
            print(f"| {name} | {p:g} | " + " | ".join(score(s, g, p) for s, g in TABLES) + " |", flush=True)
    timing.combine = _joined


if __name__ == "__main__":
    main()
