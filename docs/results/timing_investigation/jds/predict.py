"""simt's predictions for jds_mb.py's cases beside what a GPU measured (jds_GPU.jsonl):
python docs/results/timing_investigation/jds/predict.py [GPU] > predicted_GPU.txt
Each case is emulated as the timing tables are (timing_check.emulate: a sample of blocks)."""
import json
import sys
import tempfile
from pathlib import Path


HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
sys.path.insert(0, str(HERE))
import jds_mb  # noqa: E402
from kernels_cuda.timing_check import emulate  # noqa: E402
from kernels_cuda.timing_probes import TimingProbe  # noqa: E402
from simt import timing  # noqa: E402


def main():
    gpu = sys.argv[1] if len(sys.argv) > 1 else "h200"
    prof = timing.load_profile(gpu)
    f = HERE / f"jds_{gpu}.jsonl"
    meas = {r["case"]: r["ms"] for r in map(json.loads, f.read_text().splitlines()[1:])} if f.exists() else {}
    src = Path(tempfile.mkdtemp()) / "jds.cu"
    src.write_text(jds_mb.SRC)
    print(f"# {gpu}: case, measured ms, predicted ms, predicted / measured, bound, components (us)")
    for case, kern, data in jds_mb.CASES:
        probe = TimingProbe(f"jds/{case}", "jds", kern, jds_mb.ROWS, 256, lambda m: -(-m // 256),
                            lambda m, rng, data=data: jds_mb.host_args(data, m, rng), source=str(src))
        p = timing.predict_result(emulate(probe, jds_mb.ROWS)[0], prof)
        m = meas.get(case, float("nan"))
        comp = {k: round(v, 1) for k, v in p.components_us.items() if v}
        print(f"{case:16s} {m:8.4f} {p.ms:8.4f} {p.ms / m:6.2f}  {p.bound}  {comp}", flush=True)


if __name__ == "__main__":
    main()
