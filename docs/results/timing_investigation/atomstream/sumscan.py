"""What the committed probe tables would give if the DRAM component were added to the
atomic one (contention or global_atomics, where it is at least 0.3 of the launch)
instead of joining the p-norm.  From the repository root:
    python docs/results/timing_investigation/atomstream/sumscan.py hot   # hot-address atomics only
    python docs/results/timing_investigation/atomstream/sumscan.py all   # every atomic bound
Prints, per GPU: rows, rows within 1.5x now, with the sum, and rows that move > 5%."""
import json
import sys

from simt import timing


def alt(launch, mode, prof):
    """The launch's busy time as timing.predict combines it, and with DRAM added to the
    atomic component (its slice queue too, where the queue carried that component)."""
    c = dict(launch["components_us"])
    sq = c.pop("slice_queue", 0)
    base = max(timing.combine(c, prof), sq)
    top = max(c["global_atomics"], c["contention"])
    if mode == "hot":
        ok = c["global_atomics"] > 0 and c["global_atomics"] >= 0.9 * c["contention"] and c["global_atomics"] >= 0.3 * base
    else:
        ok = top >= 0.3 * base
    if not ok:
        return base, base
    k = "global_atomics" if c["global_atomics"] >= c["contention"] else "contention"
    d = c.pop("dram")
    c["latency"] = max(c["latency"], d)
    c[k] += d
    return base, max(timing.pnorm(list(c.values()), prof.combine_p), sq + d if sq >= c[k] - d else sq)


def main(mode):
    for g in ("h200", "h100"):
        prof = timing.load_profile(g)
        rows = [r for r in json.load(open(f"docs/results/timing_probes_{g}.json"))["rows"]
                if r.get("measured_ms") is not None]
        now = new = 0
        moved = []
        for r in rows:
            pairs = [alt(lt, mode, prof) for lt in r["launches"]]
            b, n = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
            ratio = r["ratio"] * n / b if b else r["ratio"]
            now += 1 / 1.5 <= r["ratio"] <= 1.5
            new += 1 / 1.5 <= ratio <= 1.5
            if abs(ratio / r["ratio"] - 1) > 0.05:
                moved.append((r["id"], r["ratio"], ratio))
        print(g, len(rows), now, new, len(moved))
        if g == "h200":
            for x in sorted(moved, key=lambda x: x[1]):
                print("  %-40s %.2f %.2f" % x)


if __name__ == "__main__":
    main(sys.argv[1])
