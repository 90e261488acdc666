"""Which rows a model change can move, without emulating them whole: each listed id's H200
prediction on a small sample of blocks (SCREEN_THREADS threads, 32768 unless set), with and
without the change, as JSON lines (old, new).  Rows whose two differ by more than 0.5% are
then emulated whole (emulate_rows.py).  Session 62 screened the calls that flow like
arithmetic (simt.machine.FLOW_CALLS; "old" empties the set) so, on the GPU machine's 16 CPUs:

    python docs/results/timing_investigation/repredict/screen_rows.py OUT.jsonl JOBS IDS.txt

(entropy-mesh-smem-atomic's sampled prediction went 0.2865 -> 0.1166 ms, its whole one
0.288 -> 0.117.)  Session 63 screened a struct's shared fields joined into one access
(simt.sharedfields; "old" joins none) with CHANGE=sharedfields in the environment.
CHANGE=constloads compares session 64's ``__constant__`` loads at a loop-invariant address
made before the loop with their staying in it (simt.issue.HOIST_CONST_LOADS); the change
touched seven rows, so they were emulated whole instead (constloads/README.md)."""
import json, multiprocessing, os, sys, time
from pathlib import Path
from kernels_cuda import timing_check as t
from kernels_cuda.backend import EmulatorBackend
import simt
from simt import issue, machine, timing
PROF = timing.load_profile("h200")
NEW = machine.FLOW_CALLS
THREADS = int(os.environ.get("SCREEN_THREADS", 32768))

CHANGE = os.environ.get("CHANGE", "flowcalls")
FIELDS = machine.shared_field_groups


def em(e, inp, new):
    if CHANGE == "flowcalls":
        machine.FLOW_CALLS = NEW if new else frozenset()
    elif CHANGE == "constloads":
        issue.HOIST_CONST_LOADS = new
        simt.Module._cache.clear()            # (each lowers its kernels again)
    else:
        machine.shared_field_groups = FIELDS if new else (lambda ir: {})
    bt = t._block_threads(e.block)
    be = EmulatorBackend(seed=0, policy="lockstep", sanitize=False, sample_blocks=max(1, THREADS // max(32, bt)))
    e.run(be, inp)
    return sum(timing.predict_result(r, PROF).ms for r in be.launches)

def work(key):
    eid, n = key
    t0 = time.time()
    try:
        e = t._entry(eid)
        inp = e.inputs(n=n, seed=0)
        a = em(e, inp, False)
        inp = e.inputs(n=n, seed=0)
        b = em(e, inp, True)
        return key, {"old": a, "new": b}, time.time() - t0
    except Exception as ex:
        return key, {"error": repr(ex)[:300]}, time.time() - t0

def screen(work, argv):
    """Run ``work`` over every (id, size) of the ids file argv[3] in argv[2] processes,
    writing its results as JSON lines to argv[1] as they come (killfinish/screen.py too)."""
    dest, jobs = argv[1], int(argv[2])
    keys = []
    for eid in Path(argv[3]).read_text().split():
        e = t._entry(eid)
        keys += [(eid, int(n)) for n in t._sizes(e)]
    with open(dest, "w") as fh, multiprocessing.get_context("fork").Pool(jobs) as pool:
        for key, out, dt in pool.imap_unordered(work, keys):
            fh.write(json.dumps({"id": key[0], "n": key[1], "s": round(dt, 1), **out}, default=float) + "\n")
            fh.flush()


if __name__ == "__main__":
    screen(work, sys.argv)
