"""The README's table: each spin case's time over the case with every warp spinning (same
block size), measured on the H200, beside timing.warp_slot_share for it (a block whose k
of w warps spin L cycles and the others exit at once: warp life k/w L, block life L).
python docs/results/timing_investigation/warpslots/table.py"""
import json
from pathlib import Path

from simt.timing import load_profile, occupancy_limits, warp_slot_share

HERE = Path(__file__).parent
prof = load_profile("h200")
rows = []
for name in ("warpslots_h200.jsonl", "sets_h200.jsonl"):
    for line in (HERE / name).read_text().splitlines():
        d = json.loads(line)
        if "block" not in d:
            continue
        block = d["block"]
        k = len(d["spinning"]) if "spinning" in d else d["long_warps"]
        regs = 127 if d.get("kernel") == "spinreg" else 10       # cupy's num_regs
        rows.append((name.split("_")[0], block, k, d.get("smem", 0), regs, d["ms"]))
full = {(src, b, s, r): ms for src, b, k, s, r, ms in rows if k == b // 32}
print("| call | block | spinning warps | shared bytes | registers | ms | over all spinning | modelled |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for src, b, k, s, r, ms in rows:
    w = b // 32
    L = 40000.0
    m = {"simt__warp_cycles.mean": L * k / w, "simt__block_cycles.mean": L}
    lim = occupancy_limits(prof, b, s, r)
    model = warp_slot_share(m, prof, min(lim.values()), b // 32, lim, L / (prof.clock_ghz * 1e3))
    base = full.get((src, b, s, r))
    print(f"| {src} | {b} | {k} of {w} | {s} | {r} | {ms:.4f} | {ms / base:.2f} | {model:.2f} |")
