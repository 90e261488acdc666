"""Predictions for several unseen families at once, a probe a process (predict_unseen.py's
output format: one pred{N}.json a family in $OUT, and pk{N}.pkl.gz, its launches pickled
for repredict.py's --load once gunzipped).  Session 61 made unseen195..198's predicted.json
so on the GPU machine's 16 CPUs (no GPU used), from the repository root with .whl carried:
OUT=... PYTHONPATH=/tmp/site:$PWD python3 docs/results/timing_investigation/predict_pool.py probe-unseen195 ..."""
import gzip, json, multiprocessing, os, pickle, sys
from pathlib import Path
from simt import timing
from kernels_cuda import timing_probes

sys.path.insert(0, str(Path(__file__).parent))
from predict_unseen import predict_one  # noqa: E402

OUT = os.environ["OUT"]


def work(pid):
    p = timing_probes.get(pid)
    try:
        out, launches = predict_one(p, {g: timing.load_profile(g) for g in ("h100", "h200")})
    except Exception as ex:
        return pid, {"error": repr(ex)[:400]}, None
    path = f"/tmp/pk_{pid.replace('/', '_')}.pkl"
    with open(path, "wb") as f:
        pickle.dump({(p.id, int(p.n)): launches}, f)
    return pid, out, path


if __name__ == "__main__":
    fams = sys.argv[1:]
    ids = [p.id for p in timing_probes.entries() if p.family in fams]
    res = {}
    with multiprocessing.get_context("fork").Pool(min(int(os.environ.get("JOBS", 16)), len(ids))) as pool:
        for pid, out, path in pool.imap_unordered(work, ids):
            res[pid] = (out, path)
            print(pid, out, flush=True)
    for fam in fams:
        n = fam.replace("probe-unseen", "")
        fid = [p.id for p in timing_probes.entries() if p.family == fam]
        with open(f"{OUT}/pred{n}.json", "w") as f:
            f.write(json.dumps({i: res[i][0] for i in fid}, indent=1) + "\n")
        runs = {}
        for i in fid:
            if res[i][1]:
                with open(res[i][1], "rb") as f:
                    runs.update(pickle.load(f))
        with gzip.open(f"{OUT}/pk{n}.pkl.gz", "wb", compresslevel=6) as f:
            pickle.dump(runs, f)
    os.system(f"ls -la {OUT}")
