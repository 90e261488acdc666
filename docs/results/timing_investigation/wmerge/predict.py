"""simt's predictions for wmerge.py's kernels against the H200 timings (no GPU), from the repository
root:  python docs/results/timing_investigation/wmerge/predict.py > docs/results/timing_investigation/wmerge/predicted_h200.txt
(session 42: stores a loop trip apart, counters._trip_sector_extra)."""
import json, sys, numpy as np
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import simt
from simt import timing
src_all = __import__("wmerge").src()
meas = {}
for line in open("docs/results/timing_investigation/wmerge/wmerge_h200.jsonl"):
    d = json.loads(line)
    if "case" in d or "name" in d: meas[d.get("case", d.get("name"))] = d
prof = timing.load_profile("h200")
mod = simt.Module.from_source(src_all, "wmerge.cu")
dev = simt.Device()
for e, k, size in [(4, kk, mb) for mb in (128,) for kk in (3, 4, 5, 6, 8, 16)] + [(1, kk, 16) for kk in (4, 8, 16)] + [(2, kk, 16) for kk in (4, 8)]:
    for kind in "ul":
        name = f"w{e}_k{k}_{kind}"; case = f"{name}_{size}m"
        records = (size << 20) // (e * k)
        buf = dev.zeros((size << 20) // 4 + 64, np.float32)
        grid = -(-records // 256)
        r = mod.get_function(name).launch(dev, simt.LaunchConfig.of(grid, 256), [buf, np.int32(records)], sanitize=False, sample_blocks=64)
        p = timing.predict_result(r, prof)
        m = meas.get(case, {})
        ms = m.get("ms") or m.get("median_ms")
        print(case, f"pred {p.ms:.4f} meas {ms} ratio {p.ms / ms if ms else float('nan'):.2f}", p.bound, r.metrics.get("simt__l2_partial_sectors_st.sum"))
