"""simt's DRAM reads for the probes session 37's L1 and L2 changes moved most, before (the
table of e5a9b73) and after (the committed table), beside Nsight Compute's
(dram_moved_h200.txt, run_moved.sh): python docs/results/timing_investigation/walk/dram_moved.py
[BEFORE.json]  (BEFORE: `git show e5a9b73:docs/results/timing_probes_h200.json > BEFORE.json`)."""
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
from simt import counters as C  # noqa: E402
from simt import timing  # noqa: E402


def read_mb(launch: dict, prof) -> float:
    """DRAM bytes read (MB) as the model counts them: chunks moved once, a scattered table's
    re-reads that miss, the block re-touches that miss."""
    m, g = launch["metrics"], launch["metrics"].get
    bps = timing._occupancy(prof, launch["threads_per_block"], launch["shared_bytes"], int(g(C.REGS, 0)))
    res = timing.resident_blocks(prof, launch["grid_blocks"], bps)
    sectors = (2 * (g("simt__dram_read_chunks64.sum", 0) + g("simt__dram_fill_sectors.sum", 0))
               + timing.reread_miss(m, prof) * 2 * (g("simt__dram_reread_chunks64.sum", 0)
                                                    + g("simt__dram_refill_sectors.sum", 0))
               + g("simt__l2_retouch_sectors.sum", 0) * timing.retouch_miss(m, prof, res))
    return sectors * 32 / 1e6


def main():
    prof = timing.load_profile("h200")
    before = json.loads(Path(sys.argv[1]).read_text()) if len(sys.argv) > 1 else None
    after = json.loads((HERE.parents[1] / "timing_probes_h200.json").read_text())
    gpu, cur = {}, None
    for line in (HERE / "dram_moved_h200.txt").read_text().splitlines():
        if line.startswith("== "):
            cur = line.split()[1]
        m = re.match(r'\S+ dram__bytes_read.sum ([\d,]+)', line)
        if m and cur:
            gpu[cur] = int(m.group(1).replace(",", "")) / 1e6
    rows = lambda tab: {r["id"]: r for r in tab["rows"]}
    a, b = rows(after), rows(before) if before else {}
    print("| probe | Nsight MB read | simt before | simt now | ratio before | ratio now |")
    print("|---|---:|---:|---:|---:|---:|")
    for pid, mb in gpu.items():
        now = sum(read_mb(ln, prof) for ln in a[pid]["launches"])
        was = sum(read_mb(ln, prof) for ln in b[pid]["launches"]) if pid in b else float("nan")
        print(f"| `{pid[6:]}` | {mb:.0f} | {was:.0f} | {now:.0f} | {b[pid]['ratio'] if pid in b else float('nan'):.2f} "
              f"| {a[pid]['ratio']:.2f} |")


if __name__ == "__main__":
    main()
