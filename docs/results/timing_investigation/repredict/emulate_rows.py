"""Emulate the listed probe/catalog ids in N processes and write each one's table rows
(both GPUs) as JSON lines, flushed as they come: repredict.py --jobs N --only, split so
that a machine with more CPUs (the GPU machine's 16) can do the emulation and a call cut
short at its time limit keeps what it finished.  From the repository root:

    python docs/results/timing_investigation/repredict/emulate_rows.py OUT.jsonl JOBS IDS.txt

IDS.txt: ids, whitespace-separated, taken in that order (list the slowest first: the
tables' emulate_s is 0 for rows loaded from pickles, so it cannot sort them).  merge_rows.py puts the rows into the tables.
(Session 60: the 320 rows with a break or continue, and the 32 running more than 1,024
blocks a batch.)"""
import json, multiprocessing, sys, time
from pathlib import Path
from kernels_cuda import timing_check as t
R = Path("docs/results")
MEAS = {}
for kind, stem in (("probes", "timing_probes_measured_{}"), ("catalog", "timing_measured_{}")):
    for gpu in ("h100", "h200"):
        MEAS[(kind, gpu)] = json.loads((R / (stem.format(gpu) + ".json")).read_text())

def work(key):
    eid, n = key
    kind = "probes" if eid.startswith("probe/") else "catalog"
    t0 = time.time()
    try:
        e = t._entry(eid)
        L = t.emulate(e, n)
    except Exception as ex:
        return key, {"error": repr(ex)[:300]}, time.time() - t0
    orig = t.emulate
    t.emulate = lambda e_, n_: L
    out = {}
    try:
        for gpu in ("h100", "h200"):
            rec = MEAS[(kind, gpu)]["entries"].get(eid, {}).get(str(n))
            if rec is None or "error" in rec:
                continue
            tab = t.predict_table({"entries": {eid: {str(n): rec}}}, gpu)
            out[gpu] = tab["rows"][0]
    finally:
        t.emulate = orig
    return key, out, time.time() - t0

if __name__ == "__main__":
    dest, jobs = sys.argv[1], int(sys.argv[2])
    ids = Path(sys.argv[3]).read_text().split()
    keys = {}
    for eid in ids:
        kind = "probes" if eid.startswith("probe/") else "catalog"
        for gpu in ("h100", "h200"):
            for n, rec in MEAS[(kind, gpu)]["entries"].get(eid, {}).items():
                if "error" not in rec:
                    keys[(eid, int(n))] = None
    keys = list(keys)                    # in the file's order: list the slowest first
    print(len(keys), "keys", file=sys.stderr, flush=True)
    t0 = time.time()
    with open(dest, "w") as fh, multiprocessing.get_context("fork").Pool(jobs) as pool:
        for i, (key, out, dt) in enumerate(pool.imap_unordered(work, keys)):
            fh.write(json.dumps({"id": key[0], "n": key[1], "s": round(dt, 1), "rows": out}, default=float) + "\n")
            fh.flush()
            print(i, key, round(dt, 1), round(time.time() - t0), file=sys.stderr, flush=True)
