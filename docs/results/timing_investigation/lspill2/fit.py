"""Local memory beyond L2 (session 50): simt's local DRAM bytes and times against Nsight
Compute's, for the probes whose kernels keep arrays in local memory.  From the repository
root, no GPU:

    python docs/results/timing_investigation/lspill2/fit.py [C_MB,...] [SHARE,...]

For each probe row of docs/results/timing_probes_h200.json with local stores, it reads the
counters the table recorded (simt.localreuse's histograms among them) and the probe's
Nsight CSV (ncu_<probe>.csv in a unseenNN/ncuNN.tgz): "measured" local bytes are Nsight's
DRAM bytes less simt's global ones (its first-touch chunks read and sectors written).  It
prints, for each L2 capacity C (MB, default L2's size) and write-back share (default
timing.LOCAL_WB_SHARE), simt's local DRAM bytes (timing.local_dram_bytes) and the ratio of
the prediction to the measured time, and the table's ratio before ("was": the committed
prediction of the model before session 50, given as an argument file, optional)."""
import csv
import glob
import io
import json
import re
import sys
import tarfile
from pathlib import Path

from simt import timing

B = Path("docs/results/timing_investigation")


def nsight():
    out = {}
    for t in glob.glob(str(B / "*" / "*.tgz")):
        try:
            tf = tarfile.open(t)
        except tarfile.TarError:
            continue
        for m in tf.getmembers():
            mm = re.match(r"(?:.*/)?ncu_(.*)\.csv$", m.name)
            if not mm:
                continue
            rows = [ln for ln in tf.extractfile(m).read().decode(errors="replace").splitlines()
                    if ln.startswith('"')]
            rd = csv.reader(io.StringIO("\n".join(rows)))
            hdr = next(rd, None)
            if not hdr or "Metric Value" not in hdr:
                continue
            d = {}
            for r in rd:
                if len(r) == len(hdr):
                    rr = dict(zip(hdr, r))
                    try:
                        v = float(rr["Metric Value"].replace(",", ""))
                    except ValueError:
                        continue
                    d.setdefault(rr["Kernel Name"], {})[rr["Metric Name"]] = v
            out[mm.group(1)] = d
    return out


def main(argv):
    prof = timing.load_profile("h200")
    caps = [float(x) * 1e6 for x in argv[0].split(",")] if argv else [prof.l2_mib * 2 ** 20]
    shares = [float(x) for x in argv[1].split(",")] if len(argv) > 1 else [timing.LOCAL_WB_SHARE]
    ncu = nsight()
    table = json.loads(Path("docs/results/timing_probes_h200.json").read_text())
    print("| probe | Nsight local MB read / written | "
          + " | ".join(f"C {c / 1e6:.0f} MB, share {s}: MB read / written, ratio" for c in caps for s in shares) + " |")
    print("|---|---|" + "---|" * (len(caps) * len(shares)))
    for r in table["rows"]:
        for L in r["launches"]:
            m = L["metrics"]
            if not m.get("simt__local_store_lines.sum"):
                continue
            name = r["id"].split("/", 1)[1]
            nd = ncu.get(name, {})
            nd = nd.get(L["kernel"]) or next(iter(nd.values()), None)
            meas = "-"
            if nd:
                lr = max(0.0, nd["dram__bytes_read.sum"] - m.get("simt__dram_read_chunks64.sum", 0) * 64)
                lw = max(0.0, nd["dram__bytes_write.sum"] - m.get("simt__dram_written_sectors.sum", 0) * 32)
                meas = f"{lr / 1e6:.0f} / {lw / 1e6:.0f}"
            cells = []
            keep = (prof.l2_mib, timing.LOCAL_WB_SHARE)
            for c in caps:
                for s in shares:
                    prof.l2_mib, timing.LOCAL_WB_SHARE = c / 2 ** 20, s
                    p = timing.predict(m, L["grid_blocks"], L["threads_per_block"], L["shared_bytes"], prof)
                    res = timing.resident_blocks(prof, L["grid_blocks"], p.occupancy_blocks_per_sm) \
                        * -(-L["threads_per_block"] // 32)
                    rd, wb = timing.local_dram_bytes(m, prof, res)
                    cells.append(f"{rd / 1e6:.0f} / {wb / 1e6:.0f}, {p.ms / L['measured_ms']:.2f}")
            prof.l2_mib, timing.LOCAL_WB_SHARE = keep
            print(f"| `{name}` | {meas} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
