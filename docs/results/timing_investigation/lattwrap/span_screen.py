"""Which rows with DRAM re-reads would move if their re-touch span were small (L2 holds)?"""
import json
from simt import timing
prof = {g: timing.load_profile(g) for g in ("h100", "h200")}
for stem, g in (("timing_probes_h200","h200"),("timing_probes_h100","h100"),("timing_h200","h200"),("timing_h100","h100")):
    d = json.load(open(f"docs/results/{stem}.json"))
    for r in d["rows"]:
        if r.get("ratio") is None: continue
        Ls = r["launches"]
        if not any(L["metrics"].get("simt__dram_reread_chunks64.sum", 0) for L in Ls): continue
        base = sum(timing.predict(L["metrics"], L["grid_blocks"], L["threads_per_block"], L["shared_bytes"], prof[g]).ms for L in Ls)
        small = 0.0
        for L in Ls:
            m = dict(L["metrics"]); m["simt__dram_retouched_bytes.max"] = min(m.get("simt__dram_retouched_bytes.max", 0), 1 << 20)
            small += timing.predict(m, L["grid_blocks"], L["threads_per_block"], L["shared_bytes"], prof[g]).ms
        meas = r["measured_ms"]
        if abs(small / base - 1) > 0.01:
            print(f"{g} {stem[7:13]:6s} {r['id']:45s} {r['n']:>10} committed {r['ratio']:.2f} now {base/meas:.2f} span<=1MB {small/meas:.2f}")
